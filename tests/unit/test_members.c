// SPDX-License-Identifier: GPL-2.0
/* test_members.c: devices that are part of an array or a volume. */
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "storage/members.h"

static struct blkdev dev(const char *type, const char *uuid, const char *label)
{
	struct blkdev d;

	memset(&d, 0, sizeof(d));
	strcpy(d.node, "/dev/vda1");
	snprintf(d.type, sizeof(d.type), "%s", type);
	snprintf(d.uuid, sizeof(d.uuid), "%s", uuid);
	snprintf(d.label, sizeof(d.label), "%s", label);
	return d;
}

static void names_the_whole_a_member_belongs_to(void **state)
{
	struct blkdev d = dev("linux_raid_member", "a1b2", "host:root");
	char what[512];

	(void)state;
	assert_true(members_describe(&d, what, sizeof(what)));
	assert_string_equal(what, "a member of the md array a1b2 (name host:root)");
	d = dev("crypto_LUKS", "c3d4", "");
	assert_true(members_describe(&d, what, sizeof(what)));
	assert_string_equal(what, "the LUKS container c3d4");
	d = dev("LVM2_member", "e5f6", "");
	assert_true(members_describe(&d, what, sizeof(what)));
	assert_non_null(strstr(what, "LVM"));
	d = dev("bcache", "0718", "");
	assert_true(members_describe(&d, what, sizeof(what)));
	d = dev("DM_integrity", "", "");		/* no UUID to name it by */
	assert_true(members_describe(&d, what, sizeof(what)));
	assert_string_equal(what, "a dm-integrity device");
	d = dev("ext4", "1234", "root");
	assert_false(members_describe(&d, what, sizeof(what)));
	d = dev("", "", "");
	assert_false(members_describe(&d, what, sizeof(what)));
}

/* What the disk says is escaped: no label drives the console. */
static void escapes_what_comes_from_the_disk(void **state)
{
	struct blkdev d = dev("linux_raid_member", "a1", "x\x1b[2J");
	char what[512];

	(void)state;
	assert_true(members_describe(&d, what, sizeof(what)));
	assert_null(strchr(what, '\x1b'));
	assert_non_null(strstr(what, "x\\x1b[2J"));
}

static void counts_the_devices_of_a_btrfs_filesystem(void **state)
{
	unsigned char sb[0x90] = { 0 };

	(void)state;
	memcpy(sb + 0x40, "_BHRfS_M", 8);
	sb[0x88] = 2;
	assert_int_equal(members_btrfs_devices(sb, sizeof(sb)), 2);
	sb[0x88] = 0;
	sb[0x89] = 1;		/* little-endian: 256 */
	assert_int_equal(members_btrfs_devices(sb, sizeof(sb)), 256);
	sb[0x40] = 'x';
	assert_int_equal(members_btrfs_devices(sb, sizeof(sb)), 0);
	assert_int_equal(members_btrfs_devices(sb, 0x80), 0);
}

/* A btrfs device is a member only when its filesystem has several. */
static void a_multi_device_btrfs_is_refused_a_single_one_is_not(void **state)
{
	char path[] = "/tmp/test_members.XXXXXX", what[512];
	unsigned char sb[0x90] = { 0 };
	struct blkdev d = dev("btrfs", "f00d", "");
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	memcpy(sb + 0x40, "_BHRfS_M", 8);
	sb[0x88] = 1;
	assert_int_equal(pwrite(fd, sb, sizeof(sb), 65536), (ssize_t)sizeof(sb));
	snprintf(d.node, sizeof(d.node), "%s", path);
	assert_false(members_describe(&d, what, sizeof(what)));
	sb[0x88] = 3;
	assert_int_equal(pwrite(fd, sb, sizeof(sb), 65536), (ssize_t)sizeof(sb));
	assert_true(members_describe(&d, what, sizeof(what)));
	assert_string_equal(what, "one of the 3 devices of the btrfs filesystem f00d");
	close(fd);
	unlink(path);
}

UNIT_MAIN(NULL, NULL,
	cmocka_unit_test(names_the_whole_a_member_belongs_to),
	cmocka_unit_test(escapes_what_comes_from_the_disk),
	cmocka_unit_test(counts_the_devices_of_a_btrfs_filesystem),
	cmocka_unit_test(a_multi_device_btrfs_is_refused_a_single_one_is_not))
