// SPDX-License-Identifier: GPL-2.0
/* fuzz_cmdline.c: /proc/cmdline, as rescue-init parses it and passes it on. */
#include "fuzz.h"
#include "rescue-init.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct cmdline c;	/* large: not on the stack */
	char *buf = fuzz_string(data, size, CMDLINE_SIZE - 1);
	char *argv[CMDLINE_MAX_ARGS], *out[CMDLINE_MAX_ARGS + 2], opts[512];
	int argc = 0;
	size_t i;

	if (!buf)
		return 0;
	memset(&c, 0, sizeof(c));
	cmdline_parse(buf, &c);
	/* What the kernel would hand to init: the words, as argv. */
	argv[argc++] = "/init";
	for (i = 0; i < c.nargs && argc < CMDLINE_MAX_ARGS; i++)
		if (!c.args[i].val)
			argv[argc++] = (char *)c.args[i].key;
	cmdline_init_argv(&c, "/sbin/init", argc, argv, out, CMDLINE_MAX_ARGS + 2);
	cmdline_module_options(&c, "virtio_blk", opts, sizeof(opts));
	cmdline_module_options(&c, "", opts, sizeof(opts));
	free(buf);
	return 0;
}
