// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_sysfs.c: the sysfs attribute files rescue-init reads for each
 * block device (dev, size, partition), for a disk and one partition of
 * it, in a /sys/class/block laid out in a temporary directory.  Parts:
 * disk dev, disk size, part dev, part size, part partition (0xff apart).
 */
#include <stdio.h>

#include "fuzz.h"
#include "rescue-init.h"

static char top[] = "/tmp/fuzz_sysfs.XXXXXX";
static char classdir[64], diskdir[96], partdir[128];

static void setup(void)
{
	if (!mkdtemp(top))
		abort();
	fuzz_mkdir(top, "class", 0755);
	fuzz_mkdir(top, "devices", 0755);
	fuzz_mkdir(top, "devices/fzd", 0755);
	fuzz_mkdir(top, "devices/fzd/fzd1", 0755);
	fuzz_symlink("../devices/fzd", top, "class/fzd");
	fuzz_symlink("../devices/fzd/fzd1", top, "class/fzd1");
	snprintf(classdir, sizeof(classdir), "%s/class", top);
	snprintf(diskdir, sizeof(diskdir), "%s/devices/fzd", top);
	snprintf(partdir, sizeof(partdir), "%s/fzd1", diskdir);
}

static void put(const char *dir, const char *attr, const uint8_t **data, size_t *size)
{
	char path[192];

	snprintf(path, sizeof(path), "%s/%s", dir, attr);
	fuzz_write_part(path, data, size, 4096);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct blklist l = { 0 };

	if (!classdir[0])
		setup();
	put(diskdir, "dev", &data, &size);
	put(diskdir, "size", &data, &size);
	put(partdir, "dev", &data, &size);
	put(partdir, "size", &data, &size);
	put(partdir, "partition", &data, &size);
	blk_enumerate(&l, classdir);
	blk_find(&l, "fzd1");
	blk_remove(&l, "fzd");
	blk_free(&l);
	return 0;
}
