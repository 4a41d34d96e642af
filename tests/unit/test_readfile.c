// SPDX-License-Identifier: GPL-2.0
/* test_readfile.c: the whole-file readers shared by rescue-init and mkrescue. */
#include "unit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "readfile.h"

static void size_zero_is_refused_without_writing(void **state)
{
	const char *path = unit_temp_file("abc", 3);
	char guard[2] = { 'x', 'y' };
	size_t len = 99;

	(void)state;
	assert_int_equal(readfile_into(path, guard + 1, 0, &len), -EINVAL);
	assert_int_equal(guard[0], 'x');
	assert_int_equal(guard[1], 'y');
	assert_int_equal(len, 0);
	unlink(path);
}

static void fixed_buffer_is_cut_and_terminated(void **state)
{
	const char *path = unit_temp_file("hello world", 11);
	char buf[6];
	size_t len;

	(void)state;
	assert_int_equal(readfile_into(path, buf, sizeof(buf), &len), 0);
	assert_string_equal(buf, "hello");
	assert_int_equal(len, 5);
	assert_int_equal(readfile_into(path, buf, 1, &len), 0);
	assert_string_equal(buf, "");
	unlink(path);
	assert_int_equal(readfile_into(path, buf, sizeof(buf), NULL), -ENOENT);
}

static void alloc_reads_files_larger_than_its_first_guess(void **state)
{
	size_t n = 10000, len;
	char *data = malloc(n), *out;
	const char *path;

	(void)state;
	memset(data, 'a', n);
	path = unit_temp_file(data, n);
	assert_int_equal(readfile_alloc(path, 1 << 20, &out, &len), 0);
	assert_int_equal(len, n);
	assert_int_equal(out[n], '\0');
	assert_memory_equal(out, data, n);
	free(out);
	assert_int_equal(readfile_alloc(path, 5000, &out, &len), -EFBIG);
	assert_null(out);
	assert_int_equal(readfile_alloc(path, 0, &out, &len), -EINVAL);
	unlink(path);
	free(data);
}

static void alloc_reads_an_empty_file_and_proc_files(void **state)
{
	const char *path = unit_temp_file("", 0);
	char *out;
	size_t len = 1;

	(void)state;
	assert_int_equal(readfile_alloc(path, 100, &out, &len), 0);
	assert_int_equal(len, 0);
	assert_string_equal(out, "");
	free(out);
	unlink(path);
	/* st_size 0, contents nonetheless */
	assert_int_equal(readfile_alloc("/proc/self/status", 1 << 20, &out,
					&len), 0);
	assert_true(len > 0);
	assert_non_null(strstr(out, "Name:"));
	free(out);
}

UNIT_MAIN(NULL, NULL,
	cmocka_unit_test(size_zero_is_refused_without_writing),
	cmocka_unit_test(fixed_buffer_is_cut_and_terminated),
	cmocka_unit_test(alloc_reads_files_larger_than_its_first_guess),
	cmocka_unit_test(alloc_reads_an_empty_file_and_proc_files))
