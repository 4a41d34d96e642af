// SPDX-License-Identifier: GPL-2.0
/* test_mounts.c: mountinfo lines and mount options as mount(8) reads them. */
#include "unit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "rescue-init.h"

static void parses_mountinfo_lines(void **state)
{
	char l1[] = "36 35 98:0 / /newroot ro,relatime shared:1 master:2 - ext4 /dev/vda1 ro";
	char l2[] = "21 1 0:5 / /dev rw,nosuid - devtmpfs devtmpfs rw,size=1k,mode=755";
	char l3[] = "40 1 0:30 / /mnt/my\\040disk rw - vfat /dev/sd\\134a rw";
	char l4[] = "41 1 0:31 / /mnt/x rootcontext=a - ext4 /dev/x rw";
	struct mountent m;

	(void)state;
	assert_int_equal(mounts_parse_line(l1, &m), 0);
	assert_string_equal(m.target, "/newroot");
	assert_string_equal(m.fstype, "ext4");
	assert_string_equal(m.source, "/dev/vda1");
	assert_true(m.ro);
	assert_int_equal(mounts_parse_line(l2, &m), 0);
	assert_string_equal(m.target, "/dev");
	assert_string_equal(m.fstype, "devtmpfs");
	assert_false(m.ro);
	assert_int_equal(mounts_parse_line(l3, &m), 0);
	assert_string_equal(m.target, "/mnt/my disk");
	assert_string_equal(m.source, "/dev/sd\\a");
	assert_int_equal(mounts_parse_line(l4, &m), 0);
	assert_false(m.ro);	/* "rootcontext" is not "ro" */
}

static void rejects_short_lines(void **state)
{
	static const char *const lines[] = {
		"36 35 98:0 / /newroot",
		"36 35 98:0 / /newroot ro shared:1 ext4 /dev/vda1",
		"36 35 98:0 / /newroot ro - ext4",
		"",
	};
	struct mountent m;
	char line[128];
	size_t i;

	(void)state;
	for (i = 0; i < UNIT_COUNT(lines); i++) {
		snprintf(line, sizeof(line), "%s", lines[i]);	/* cut in place */
		unit_case_int(*lines[i] ? lines[i] : "an empty line",
			      mounts_parse_line(line, &m), -EINVAL);
	}
}

static void options_split_into_flags_and_data(void **state)
{
	unsigned long flags = MS_RDONLY;
	char data[64];

	(void)state;
	assert_int_equal(mounts_options("rw,noatime,data=ordered,nodev,,errors=remount-ro",
					&flags, data, sizeof(data)), 0);
	assert_int_equal(flags, MS_NOATIME | MS_NODEV);
	assert_string_equal(data, "data=ordered,errors=remount-ro");
	flags = 0;
	assert_int_equal(mounts_options("ro,defaults", &flags, data, sizeof(data)), 0);
	assert_int_equal(flags, MS_RDONLY);
	assert_string_equal(data, "");
	assert_int_equal(mounts_options(NULL, &flags, data, sizeof(data)), 0);
	assert_int_equal(mounts_options("noro,rwx", &flags, data, sizeof(data)), 0);
	assert_string_equal(data, "noro,rwx");
	assert_int_equal(mounts_options("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", &flags,
					data, 16), -E2BIG);
}

static void reads_small_files(void **state)
{
	const char *path = unit_temp_file("nodev\tproc\n", 11);
	char buf[8];

	(void)state;
	assert_int_equal(mounts_read_proc(path, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "nodev\tp");
	unlink(path);
	assert_int_equal(mounts_read_proc(path, buf, sizeof(buf)), -ENOENT);
}

static void finds_mounts_of_this_process(void **state)
{
	struct mountent m;

	(void)state;
	assert_int_equal(mounts_find("/", &m), 0);
	assert_string_equal(m.target, "/");
	assert_int_equal(mounts_find("/no/such/mount/point", &m), -ENOENT);
	/* statx() says "not a mount" for a directory in /proc, "a mount"
	 * for /proc, whose line mountinfo then gives. */
	assert_int_equal(mounts_find("/proc/self/fd", &m), -ENOENT);
	assert_int_equal(mounts_find("/proc", &m), 0);
	assert_string_equal(m.target, "/proc");
	assert_string_equal(m.fstype, "proc");
}

UNIT_MAIN(NULL, NULL,
	cmocka_unit_test(parses_mountinfo_lines),
	cmocka_unit_test(rejects_short_lines),
	cmocka_unit_test(options_split_into_flags_and_data),
	cmocka_unit_test(reads_small_files),
	cmocka_unit_test(finds_mounts_of_this_process))
