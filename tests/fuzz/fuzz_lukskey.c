// SPDX-License-Identifier: GPL-2.0
/* fuzz_lukskey.c: rd.luks.key= values, parsed and their devices matched. */
#include <stdio.h>

#include "fuzz.h"
#include "storage/lukskey.h"

static struct blkdev devs[] = {
	{ .name = "vda", .node = "/dev/vda", .major = 254, .minor = 0,
	  .sectors = 32768, .type = "crypto_LUKS",
	  .uuid = "4c1e2d3f-5a6b-4c7d-8e9f-0a1b2c3d4e5f", .sb_probed = true },
	{ .name = "vdb", .node = "/dev/vdb", .major = 254, .minor = 16,
	  .sectors = 8192, .type = "ext4", .label = "keys",
	  .uuid = "3c0d8a52-7e41-4f0b-9a6d-2b1e5f7c9001", .sb_probed = true },
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size, 4096), why[256];
	size_t found, other, n = sizeof(devs) / sizeof(devs[0]);
	struct lukskey k;

	if (!s)
		return 0;
	if (lukskey_parse(s, &k, why, sizeof(why)) == 0) {
		if (k.has_keydev)
			rootspec_match(&k.keydev, devs, n, &found, &other);
		if (k.has_luksdev)
			rootspec_match(&k.luksdev, devs, n, &found, &other);
	}
	free(s);
	return 0;
}
