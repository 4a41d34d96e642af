// SPDX-License-Identifier: GPL-2.0
/* test_log.c: the logger's records: level, prefix, cutting, debug, quiet. */
#include "unit.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rescue-init.h"

/* A SOCK_SEQPACKET pair keeps each write() a record, as /dev/kmsg does. */
static int sv[2];

static int setup(void **state)
{
	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	fcntl(sv[1], F_SETFL, O_NONBLOCK);
	log_to_fd(sv[0], "rescue: ", true);
	log_set_debug(false);
	log_set_quiet(false);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	close(sv[0]);
	close(sv[1]);
	return 0;
}

/* The next record, NUL-terminated; its length, or -1 when none. */
static ssize_t record(char *buf, size_t size)
{
	ssize_t n = recv(sv[1], buf, size - 1, 0);

	if (n >= 0)
		buf[n] = '\0';
	return n;
}

static void records_have_level_and_prefix(void **state)
{
	char buf[2048];

	(void)state;
	log_error("unable to mount %s: %s", "/dev/vda", "Invalid argument");
	assert_true(record(buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "<3>rescue: unable to mount /dev/vda: Invalid argument\n");
	log_info("mounted /proc /sys /run in %d us", 312);
	record(buf, sizeof(buf));
	assert_string_equal(buf, "<6>rescue: mounted /proc /sys /run in 312 us\n");
	log_warn("w");
	record(buf, sizeof(buf));
	assert_string_equal(buf, "<4>rescue: w\n");
	assert_int_equal(record(buf, sizeof(buf)), -1);
}

static void debug_only_when_asked(void **state)
{
	char buf[256];

	(void)state;
	log_debug("hidden");
	assert_int_equal(record(buf, sizeof(buf)), -1);
	log_set_debug(true);
	assert_true(log_debug_enabled());
	log_debug("shown %d", 1);
	record(buf, sizeof(buf));
	assert_string_equal(buf, "<6>rescue: shown 1\n");
}

static void long_lines_are_cut_into_records(void **state)
{
	char msg[3001], buf[2048], joined[4096] = "";
	size_t i, total = 0;
	ssize_t n;

	(void)state;
	for (i = 0; i < 3000; i++)
		msg[i] = (char)('a' + i % 26);
	msg[3000] = '\0';
	log_info("%s", msg);
	while ((n = record(buf, sizeof(buf))) > 0) {
		assert_true(n <= LOG_RECORD_MAX);
		assert_memory_equal(buf, "<6>rescue: ", 11);
		assert_int_equal(buf[n - 1], '\n');
		buf[n - 1] = '\0';
		strcat(joined, buf + 11);
		total++;
	}
	assert_int_equal(total, 4);
	assert_string_equal(joined, msg);
}

static void lines_become_records(void **state)
{
	char buf[256];

	(void)state;
	log_error("one\ntwo\n");
	record(buf, sizeof(buf));
	assert_string_equal(buf, "<3>rescue: one\n");
	record(buf, sizeof(buf));
	assert_string_equal(buf, "<3>rescue: two\n");
	assert_int_equal(record(buf, sizeof(buf)), -1);
}

static void cut_never_splits_a_character(void **state)
{
	const char *s = "ab\xc3\xa9" "cd\xe2\x82\xac";	/* abécd€ */

	(void)state;
	assert_int_equal(log_cut("abcdef", 6, 10), 6);
	assert_int_equal(log_cut("abcdef", 6, 4), 4);
	assert_int_equal(log_cut(s, strlen(s), 3), 2);	/* not inside é */
	assert_int_equal(log_cut(s, strlen(s), 4), 4);
	assert_int_equal(log_cut(s, strlen(s), 7), 6);	/* not inside € */
	assert_int_equal(log_cut(s, strlen(s), 8), 6);
	assert_int_equal(log_cut("\x82\x82\x82", 3, 2), 2);	/* no start byte */
}

static void console_without_kmsg(void **state)
{
	char buf[256];

	(void)state;
	log_to_fd(sv[0], "rescue-mount: ", false);
	log_info("mounted");
	record(buf, sizeof(buf));
	assert_string_equal(buf, "rescue-mount: mounted\n");
	log_set_quiet(true);
	log_info("quiet hides this");
	log_warn("but not this");
	record(buf, sizeof(buf));
	assert_string_equal(buf, "rescue-mount: but not this\n");
}

static void clock_is_monotonic_us(void **state)
{
	uint64_t a, b;

	(void)state;
	a = log_now_us();
	usleep(2000);
	b = log_now_us();
	assert_true(b >= a + 2000);
	assert_true(b < a + 2000000);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
UNIT_MAIN(NULL, NULL,
	T(records_have_level_and_prefix),
	T(debug_only_when_asked),
	T(long_lines_are_cut_into_records),
	T(lines_become_records),
	cmocka_unit_test(cut_never_splits_a_character),
	T(console_without_kmsg),
	cmocka_unit_test(clock_is_monotonic_us))
