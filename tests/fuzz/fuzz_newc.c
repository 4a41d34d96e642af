// SPDX-License-Identifier: GPL-2.0
/* fuzz_newc.c: the toolkit's archive (newc.c), as rescue-init walks it. */
#include "fuzz.h"
#include "image/newc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	struct newc_entry e;
	size_t off = 0, prev;
	int r;

	if (!buf)
		return 0;
	memcpy(buf, data, size);	/* exactly SIZE bytes: ASan sees overreads */
	do {
		prev = off;
		r = newc_next(buf, size, &off, &e);
		if (r > 0) {
			if (off <= prev || off > size || e.data + e.size > buf + size ||
			    strlen(e.name) >= size)
				abort();
		}
	} while (r > 0);
	free(buf);
	return 0;
}
