// SPDX-License-Identifier: GPL-2.0
/* test_blkdev.c: enumeration of a /sys/class/block laid out in a temp dir. */
#include "unit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rescue-init.h"

static char top[] = "/tmp/test_blkdev.XXXXXX";
static char classdir[64];

static void put(const char *dir, const char *attr, const char *value)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/%s", top, dir, attr);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%s\n", value);
	fclose(f);
}

/* A device directory under devices/, linked from class/block/NAME. */
static void device(const char *path, const char *name, const char *dev,
		   const char *size, const char *partition)
{
	char dir[512], link[512], target[512];

	snprintf(dir, sizeof(dir), "%s/devices/%s", top, path);
	assert_int_equal(mkdir(dir, 0755), 0);
	put(dir + strlen(top) + 1, "dev", dev);
	put(dir + strlen(top) + 1, "size", size);
	if (partition)
		put(dir + strlen(top) + 1, "partition", partition);
	snprintf(link, sizeof(link), "%s/%s", classdir, name);
	snprintf(target, sizeof(target), "../../devices/%s", path);
	assert_int_equal(symlink(target, link), 0);
}

static int setup(void **state)
{
	char d[128], path[512];

	(void)state;
	assert_non_null(mkdtemp(top));
	snprintf(classdir, sizeof(classdir), "%s/class", top);
	mkdir(classdir, 0755);
	strcat(classdir, "/block");
	mkdir(classdir, 0755);
	snprintf(d, sizeof(d), "%s/devices", top);
	mkdir(d, 0755);
	snprintf(d, sizeof(d), "%s/devices/virtio0", top);
	mkdir(d, 0755);
	device("virtio0/vda", "vda", "254:0", "32768", NULL);
	device("virtio0/vda/vda1", "vda1", "254:1", "8192", "1");
	device("virtio0/vda/vda2", "vda2", "254:2", "8192", "2");
	device("virtio0/vda/vda10", "vda10", "254:10", "2048", "10");
	put("devices/virtio0/vda", "serial", "disk-7");
	/* vda is a path of a dm-multipath map (blkdev.c read_held) */
	snprintf(path, sizeof(path), "%s/devices/virtio0/vda/holders", top);
	assert_int_equal(mkdir(path, 0755), 0);
	strcat(path, "/dm-0");
	assert_int_equal(mkdir(path, 0755), 0);
	strcat(path, "/dm");
	assert_int_equal(mkdir(path, 0755), 0);
	put("devices/virtio0/vda/holders/dm-0/dm", "uuid", "mpath-3disk7");
	device("virtio0/cciss!c0d0", "cciss!c0d0", "104:0", "0", NULL);
	device("virtio0/bad", "bad", "not-a-number", "1", NULL);
	/* sscanf("%u:%u") took these; a number past UINT_MAX wrapped */
	device("virtio0/big", "big", "4294967296:0", "1", NULL);
	device("virtio0/trail", "trail", "8:0x", "1", NULL);
	device("virtio0/half", "half", "8:", "1", NULL);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return unit_rm_rf(top);
}

static void enumerates_disks_and_partitions(void **state)
{
	struct blklist l = { 0 };
	ssize_t i;

	(void)state;
	assert_int_equal(blk_enumerate(&l, classdir), 0);
	assert_int_equal(l.n, 5);	/* "bad" & co. have no device number */
	assert_int_equal(blk_find(&l, "big"), -1);
	assert_int_equal(blk_find(&l, "trail"), -1);
	assert_int_equal(blk_find(&l, "half"), -1);
	assert_string_equal(l.dev[0].name, "cciss!c0d0");
	assert_string_equal(l.dev[0].node, "/dev/cciss/c0d0");
	assert_string_equal(l.dev[1].name, "vda");
	assert_string_equal(l.dev[2].name, "vda1");
	assert_string_equal(l.dev[3].name, "vda2");
	assert_string_equal(l.dev[4].name, "vda10");	/* natural order */
	assert_int_equal(l.dev[1].partno, 0);
	assert_int_equal(l.dev[1].sectors, 32768);
	assert_int_equal(l.dev[4].major, 254);
	assert_int_equal(l.dev[4].minor, 10);
	assert_int_equal(l.dev[4].partno, 10);
	assert_string_equal(l.dev[4].disk, "vda");
	assert_string_equal(l.dev[2].disk, "vda");
	/* The disk's identity, on its partitions too; none: empty. */
	assert_string_equal(l.dev[1].path_id, "serial:disk-7");
	assert_string_equal(l.dev[4].path_id, "serial:disk-7");
	assert_string_equal(l.dev[0].path_id, "");
	/* vda holds a multipath map: it and its partitions are the map's */
	assert_true(l.dev[1].held);
	assert_true(l.dev[4].held);
	assert_false(l.dev[0].held);
	i = blk_find(&l, "vda2");
	assert_int_equal(i, 3);
	blk_remove(&l, "vda2");
	assert_int_equal(l.n, 4);
	assert_int_equal(blk_find(&l, "vda2"), -1);
	assert_int_equal(blk_add(&l, classdir, "vda2"), 4);
	assert_int_equal(blk_add(&l, classdir, "vda2"), 4);	/* refreshed */
	assert_int_equal(l.n, 5);
	assert_int_equal(blk_add(&l, classdir, "../etc"), -EINVAL);
	assert_int_equal(blk_add(&l, classdir, "nosuch"), -ENOENT);
	blk_free(&l);
	assert_int_equal(l.n, 0);
	assert_int_equal(blk_enumerate(&l, "/nonexistent"), -ENOENT);
}

UNIT_MAIN(NULL, NULL,
	cmocka_unit_test_setup_teardown(enumerates_disks_and_partitions,
					setup, teardown))
