// SPDX-License-Identifier: GPL-2.0
/* fuzz_rootspec.c: root= values, parsed and matched against a device list. */
#include <stdio.h>

#include "fuzz.h"
#include "rescue-init.h"

static struct blkdev devs[] = {
	{ .name = "vda", .node = "/dev/vda", .major = 254, .minor = 0,
	  .sectors = 32768, .pttype = "gpt", .pt_probed = true, .sb_probed = true },
	{ .name = "vda1", .node = "/dev/vda1", .major = 254, .minor = 1,
	  .sectors = 8192, .partno = 1, .disk = "vda", .type = "vfat",
	  .uuid = "1A2B-3C4D", .label = "ESP", .partuuid = "8e2a61c4-53b7-4d2e-b1f0-6c9d4a3e7001",
	  .partlabel = "esp", .sb_probed = true, .pt_probed = true },
	{ .name = "vda2", .node = "/dev/vda2", .major = 254, .minor = 2,
	  .sectors = 20480, .partno = 2, .disk = "vda", .type = "ext4",
	  .uuid = "3c0d8a52-7e41-4f0b-9a6d-2b1e5f7c9001", .label = "root",
	  .partuuid = "8e2a61c4-53b7-4d2e-b1f0-6c9d4a3e7002", .partlabel = "root",
	  .sb_probed = true, .pt_probed = true },
	{ .name = "sda", .node = "/dev/sda", .major = 8, .minor = 0,
	  .sectors = 16384, .type = "ext4", .uuid = "3c0d8a52-7e41-4f0b-9a6d-2b1e5f7c9001",
	  .label = "root", .sb_probed = true, .pt_probed = true },
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size, 4096), why[256], absent[256];
	struct rootspec spec;
	size_t found, other, n = sizeof(devs) / sizeof(devs[0]);

	if (!s)
		return 0;
	if (rootspec_parse(s, &spec, why, sizeof(why)) == 0) {
		rootspec_needs(&spec);
		rootspec_match(&spec, devs, n, &found, &other);
		rootspec_count(&spec, devs, n);
		rootspec_absent(&spec, absent, sizeof(absent));
	}
	free(s);
	return 0;
}
