// SPDX-License-Identifier: GPL-2.0
/* fuzz_mountinfo.c: /proc/self/mountinfo lines, and rootflags= options. */
#include "fuzz.h"
#include "rescue-init.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_string(data, size, 1 << 16), *line, *nl, opts[4096];
	struct mountent m;
	unsigned long flags;

	if (!buf)
		return 0;
	for (line = buf; *line; line = nl) {
		nl = line + strcspn(line, "\n");
		if (*nl)
			*nl++ = '\0';
		mounts_parse_line(line, &m);
	}
	free(buf);
	buf = fuzz_string(data, size, 4096);
	if (buf)
		mounts_options(buf, &flags, opts, sizeof(opts));
	free(buf);
	return 0;
}
