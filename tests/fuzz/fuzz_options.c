// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_options.c: mkrescue's command line (rescue/mkrescue/options.c),
 * the input's NUL-separated words as argv after "mkrescue", parsed as
 * main() does, without writing anything.
 */
#include "fuzz.h"
#include "options.h"

#define WORDS_MAX	64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct options o = {
		.init = "/init", .busybox = "/bin/busybox",
		.e2fsck = "/sbin/e2fsck.static", .module_list = "modules.list",
		.ssh_default_host_key = "ssh_host_ed25519_key",
		.image = { .compress = IMAGE_ZSTD }, .version = "fuzz",
	};
	char *argv[WORDS_MAX + 2] = { "mkrescue" }, *text, *p;
	int argc = 1;

	text = fuzz_string(data, size, 4096);
	if (!text)
		return 0;
	/* size may hold a NUL: the words are the strings up to it. */
	for (p = text; p < text + (size < 4096 ? size : 4096) &&
	     argc <= WORDS_MAX; p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;
	parse_options(argc, argv, &o);
	options_free(&o);
	free(text);
	return 0;
}
