// SPDX-License-Identifier: GPL-2.0
/*
 * test_newc.c: the cpio newc reader of the toolkit (rescue/init/image/newc.c):
 * an archive as libarchive and the kernel's gen_init_cpio write it, its
 * trailer, and what a damaged archive or a hostile name gives.
 */
#include "unit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "image/newc.h"

/* One entry: header, name with its NUL, padding, data, padding. */
static size_t put(char *buf, size_t at, const char *name, unsigned mode,
		  const char *data)
{
	size_t n = strlen(name) + 1, size = data ? strlen(data) : 0;

	at += (size_t)sprintf(buf + at, "070701%08X%08X%08X%08X%08X%08X%08X"
			      "%08X%08X%08X%08X%08X%08X", 1u, mode, 0u, 0u, 1u,
			      0u, (unsigned)size, 0u, 0u, 0u, 0u, (unsigned)n,
			      0u);
	memcpy(buf + at, name, n);
	at = (at + n + 3) & ~(size_t)3;
	memcpy(buf + at, data ? data : "", size);
	return (at + size + 3) & ~(size_t)3;
}

static size_t archive(char *buf, const char *name, const char *data)
{
	size_t at = put(buf, 0, "bin", S_IFDIR | 0755, NULL);

	at = put(buf, at, name, S_IFREG | 0755, data);
	at = put(buf, at, "bin/sh", S_IFLNK | 0777, "busybox");
	return put(buf, at, "TRAILER!!!", 0, NULL);
}

static void test_entries(void **state)
{
	char buf[4096];
	struct newc_entry e;
	size_t len = archive(buf, "bin/busybox", "\177ELF..."), off = 0;

	(void)state;
	assert_int_equal(newc_next(buf, len, &off, &e), 1);
	assert_string_equal(e.name, "bin");
	assert_int_equal(e.mode, S_IFDIR | 0755);
	assert_int_equal(newc_next(buf, len, &off, &e), 1);
	assert_string_equal(e.name, "bin/busybox");
	assert_int_equal(e.size, 7);
	assert_memory_equal(e.data, "\177ELF...", 7);
	assert_int_equal(newc_next(buf, len, &off, &e), 1);
	assert_int_equal(e.mode, S_IFLNK | 0777);
	assert_int_equal(e.size, 7);
	assert_memory_equal(e.data, "busybox", 7);
	assert_int_equal(newc_next(buf, len, &off, &e), 0);
	assert_int_equal(off, len);
	/* The trailer without its padding (mkrescue writes no last block). */
	off = 0;
	len -= 2;
	while (newc_next(buf, len, &off, &e) > 0)
		;
	assert_int_equal(off, len);
}

static void test_damaged(void **state)
{
	char buf[4096], copy[4096];
	struct newc_entry e;
	size_t len = archive(buf, "bin/busybox", "data"), cut, off;
	int r;

	(void)state;
	/* Cut anywhere: never the trailer, never beyond the end. */
	for (cut = 0; cut < len - 120; cut++) {
		off = 0;
		while ((r = newc_next(buf, cut, &off, &e)) > 0)
			assert_true(off <= cut);
		assert_int_equal(r, -EINVAL);
	}
	/* A bad magic, a bad digit, a name size past the end. */
	memcpy(copy, buf, len);
	copy[5] = '2';
	off = 0;
	assert_int_equal(newc_next(copy, len, &off, &e), -EINVAL);
	memcpy(copy, buf, len);
	copy[6 + 8 + 3] = 'g';
	off = 0;
	assert_int_equal(newc_next(copy, len, &off, &e), -EINVAL);
	memcpy(copy, buf, len);
	memcpy(copy + 6 + 8 * 11, "FFFFFFFF", 8);
	off = 0;
	assert_int_equal(newc_next(copy, len, &off, &e), -EINVAL);
	/* A name without its NUL. */
	memcpy(copy, buf, len);
	memcpy(copy + 6 + 8 * 11, "00000003", 8);
	off = 0;
	assert_int_equal(newc_next(copy, len, &off, &e), -EINVAL);
	/* An offset past the end. */
	off = len + 1;
	assert_int_equal(newc_next(buf, len, &off, &e), -EINVAL);
}

static void test_names(void **state)
{
	static const char *const bad[] = {
		"/bin/busybox", "../busybox", "bin/../../etc/passwd", "bin//x",
		"bin/", "bin/..",
	};
	char buf[4096];
	struct newc_entry e;
	size_t i, len, off;
	int r;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		len = archive(buf, bad[i], "x");
		off = 0;
		while ((r = newc_next(buf, len, &off, &e)) > 0)
			;
		assert_int_equal(r, -EINVAL);
	}
	len = archive(buf, "usr/sbin/..x", "x");
	off = 0;
	while ((r = newc_next(buf, len, &off, &e)) > 0)
		;
	assert_int_equal(r, 0);
}

UNIT_MAIN(NULL, NULL,
	cmocka_unit_test(test_entries),
	cmocka_unit_test(test_damaged),
	cmocka_unit_test(test_names))
