// SPDX-License-Identifier: GPL-2.0
/*
 * test_unpack.c: the markers of a whole image, the kernel's "Initramfs
 * unpacking failed" line, MemTotal, and the one line rescue-init gives
 * for an image the kernel did not unpack to its end, down to a tree
 * whose last entry is missing.
 */
#include "unit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "image/unpack.h"

static void test_marker_parse(void **state)
{
	static const char *const bad[] = {
		"", "entries=1 bytes=2", "entries=1 bytes=2\nmore",
		"entries=-1 bytes=2\n", "entries= 1 bytes=2\n",
		"entries=1  bytes=2\n", "bytes=2 entries=1\n",
		"entries=99999999999999999999999 bytes=2\n",
		"entries=1 bytes=\n", "Entries=1 bytes=2\n",
	};
	struct unpack_totals t;
	size_t i;

	(void)state;
	assert_int_equal(unpack_parse_marker("entries=298 bytes=5038277\n", &t), 0);
	assert_int_equal(t.entries, 298);
	assert_int_equal(t.bytes, 5038277);
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		assert_int_equal(unpack_parse_marker(bad[i], &t), -EINVAL);
}

static void test_kernel_reason(void **state)
{
	static const char log[] =
		"<6>[    0.5] Unpacking initramfs...\n"
		"<0>[    0.9] Initramfs unpacking failed: junk\n"
		"<0>[    1.0] Initramfs unpacking failed: write error\n"
		"<6>[    1.1] Freeing initrd memory: 1888K\n";
	char reason[64];

	(void)state;
	assert_true(unpack_kernel_reason(log, strlen(log), reason, sizeof(reason)));
	assert_string_equal(reason, "write error");	/* the last one */
	assert_false(unpack_kernel_reason(log, 40, reason, sizeof(reason)));
	assert_false(unpack_kernel_reason("", 0, reason, sizeof(reason)));
	/* Cut to the buffer, and only printable bytes. */
	assert_true(unpack_kernel_reason(log, strlen(log), reason, 6));
	assert_string_equal(reason, "write");
	assert_true(unpack_kernel_reason("Initramfs unpacking failed: a\tb", 31,
					 reason, sizeof(reason)));
	assert_string_equal(reason, "a?b");
	/* The line at the very end of the buffer, without a newline. */
	assert_true(unpack_kernel_reason("Initramfs unpacking failed: ", 28,
					 reason, sizeof(reason)));
	assert_string_equal(reason, "");
	assert_false(unpack_kernel_reason(log, strlen(log), reason, 0));
}

static void test_memtotal(void **state)
{
	(void)state;
	assert_int_equal(unpack_memtotal_kb("MemTotal:          34368 kB\nMemFree: 1 kB\n"),
			 34368);
	assert_int_equal(unpack_memtotal_kb("MemFree: 1 kB\nMemTotal: 2048 kB\n"), 2048);
	assert_int_equal(unpack_memtotal_kb("XMemTotal: 5 kB\n"), 0);
	assert_int_equal(unpack_memtotal_kb(""), 0);
}

static void test_memory_reasons(void **state)
{
	(void)state;
	assert_true(unpack_reason_is_memory("write error"));
	assert_true(unpack_reason_is_memory("Out of memory while allocating ZSTD_DCtx"));
	assert_false(unpack_reason_is_memory("junk within compressed archive"));
	assert_false(unpack_reason_is_memory("no cpio magic"));
}

/* What unpack_verdict() said of the state below: its line. */
static char why[512];

/*
 * unpack_verdict() of an image of 298 entries and 5038277 bytes on a
 * machine of 34368 kB, with or without its markers, after REASON.
 */
static int verdict(bool begin, bool end, const char *reason)
{
	struct unpack_state s;

	memset(&s, 0, sizeof(s));
	s.begin = begin;
	s.end = end;
	s.totals.entries = 298;
	s.totals.bytes = 5038277;
	snprintf(s.reason, sizeof(s.reason), "%s", reason);
	s.memtotal_kb = 34368;
	return unpack_verdict(&s, why, sizeof(why));
}

static void test_verdict(void **state)
{
	(void)state;
	/* Whole, or not ours and the kernel said nothing: no line. */
	assert_int_equal(verdict(true, true, ""), 0);
	assert_int_equal(verdict(false, false, ""), 0);

	assert_int_equal(verdict(true, false, "write error"), 1);
	assert_string_equal(why, "the initramfs was not unpacked completely: "
		"the kernel ran out of memory (\"Initramfs unpacking failed: "
		"write error\"; MemTotal 33 MiB, the image unpacks to 4921 KiB "
		"in 298 entries); boot with more memory");

	assert_int_equal(verdict(true, false, "junk within compressed archive"), 1);
	assert_non_null(strstr(why, "the kernel stopped on a damaged image "
		"(\"Initramfs unpacking failed: junk within compressed archive\""));
	assert_non_null(strstr(why, "write the image again"));

	assert_int_equal(verdict(true, false, ""), 1);
	assert_string_equal(why, "the initramfs was not unpacked completely: "
		"its last entry /etc/rescue-image.end is missing, the image is "
		"cut short (MemTotal 33 MiB, the image unpacks to 4921 KiB in "
		"298 entries); write the image again");

	/* Another maker's image (no markers): the kernel's word alone. */
	assert_int_equal(verdict(false, false, "write error"), 1);
	assert_null(strstr(why, "unpacks to"));
	assert_non_null(strstr(why, "MemTotal 33 MiB); boot with more memory"));
}

/* A tree as the kernel left it: the first marker, not the last. */
static void test_tree_without_its_last_entry(void **state)
{
	char dir[] = "/tmp/test_unpack.XXXXXX";
	struct unpack_state s;

	(void)state;
	assert_non_null(mkdtemp(dir));
	unit_put(dir, "proc/meminfo", "MemTotal:          65536 kB\n");
	unit_put(dir, "etc/rescue-image", "entries=10 bytes=2048\n");
	unpack_state_read(dir, &s);
	assert_true(s.begin);
	assert_false(s.end);
	assert_int_equal(s.totals.entries, 10);
	assert_int_equal(s.memtotal_kb, 65536);
	assert_int_equal(unpack_verdict(&s, why, sizeof(why)), 1);
	assert_non_null(strstr(why, "is missing, the image is cut short "
		"(MemTotal 64 MiB, the image unpacks to 2 KiB in 10 entries)"));

	unit_put(dir, "etc/rescue-image.end", "entries=10 bytes=2048\n");
	unpack_state_read(dir, &s);
	assert_true(s.end);
	assert_int_equal(unpack_verdict(&s, why, sizeof(why)), 0);

	/* A marker not of ours still counts as there. */
	unit_put(dir, "etc/rescue-image", "something else\n");
	unpack_state_read(dir, &s);
	assert_true(s.begin);
	assert_int_equal(s.totals.entries, 0);

	assert_int_equal(unit_rm_rf(dir), 0);
}

UNIT_MAIN(NULL, NULL,
	cmocka_unit_test(test_marker_parse),
	cmocka_unit_test(test_kernel_reason),
	cmocka_unit_test(test_memtotal),
	cmocka_unit_test(test_memory_reasons),
	cmocka_unit_test(test_verdict),
	cmocka_unit_test(test_tree_without_its_last_entry))
