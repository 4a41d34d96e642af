// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_mdsuper.c: md member superblocks as any disk may hold them: the
 * first byte picks the kind, the next eight the offset it was read at.
 */
#include "fuzz.h"
#include "storage/mdsuper.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *buf;
	struct mdsuper sb;
	uint64_t off = 0;
	int kind;

	if (size < 9)
		return 0;
	kind = data[0] % (MDSB_KINDS + 1);
	memcpy(&off, data + 1, 8);
	data += 9;
	size -= 9;
	/* A copy of its own size, so that reads past it are caught. */
	buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	if (mdsuper_parse(buf, size, kind, off, &sb) == 0) {
		(void)strlen(sb.name);
		(void)strlen(mdsuper_version(&sb));
		(void)mdsuper_redundancy(&sb);
	}
	(void)mdsuper_offset(kind, off);
	free(buf);
	return 0;
}
