// SPDX-License-Identifier: GPL-2.0
/*
 * test_resumeconf.c: mkrescue's resume= from initramfs-tools' conf.d
 * (resume.c): the last RESUME= in name order, RESUME_OFFSET=, quotes and
 * export, backups skipped, none and auto adding nothing, a value of two
 * words refused.
 */
#include "unit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mkrescue.h"

#define CONF	"etc/cmdline.d/90-resume.conf"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_resumeconf.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* resume_add() on a fresh conf.d of FILES ("name", "text", ...): its line. */
static int conf_line(char *line, size_t size, const char *const *files,
		     size_t n)
{
	char sub[128], cmd[256];
	struct list l = { 0 };
	const struct list_entry *e;
	static int round;
	size_t i;
	int err;

	snprintf(sub, sizeof(sub), "%s/c%d", dir, round++);
	assert_int_equal(mkdir(sub, 0755), 0);
	for (i = 0; i + 1 < n; i += 2)
		unit_put(sub, files[i], files[i + 1]);
	line[0] = '\0';
	err = resume_add(&l, sub);
	e = list_find(&l, CONF);
	if (e)
		snprintf(line, size, "%.*s", (int)e->size, e->data);
	list_free(&l);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", sub);
	assert_int_equal(system(cmd), 0);
	return err;
}

static void test_the_last_in_name_order_wins(void **state)
{
	static const char *const one[] = { "resume", "RESUME=UUID=abc\n" };
	static const char *const two[] = {
		"resume", "RESUME=UUID=aaa\n",
		"zz-local", "# mine\nexport RESUME=\"UUID=bbb\"\nRESUME_OFFSET=34816 # pages\n",
		"resume~", "RESUME=UUID=backup\n",
		"zz-local.dpkg-old", "RESUME=UUID=old\n",
	};
	char line[256];

	(void)state;
	assert_int_equal(conf_line(line, sizeof(line), one, UNIT_COUNT(one)), 0);
	assert_string_equal(line, "resume=UUID=abc\n");
	assert_int_equal(conf_line(line, sizeof(line), two, UNIT_COUNT(two)), 0);
	assert_string_equal(line, "resume=UUID=bbb resume_offset=34816\n");
}

static void test_none_auto_and_nothing_add_nothing(void **state)
{
	static const char *const none[] = { "resume", "RESUME=none\n" };
	static const char *const autos[] = { "resume", "RESUME=auto\n" };
	static const char *const other[] = { "modules", "MODULES=most\n" };
	char line[256];

	(void)state;
	assert_int_equal(conf_line(line, sizeof(line), none, UNIT_COUNT(none)), 0);
	assert_string_equal(line, "");
	assert_int_equal(conf_line(line, sizeof(line), autos, UNIT_COUNT(autos)), 0);
	assert_string_equal(line, "");
	assert_int_equal(conf_line(line, sizeof(line), other, UNIT_COUNT(other)), 0);
	assert_string_equal(line, "");
	assert_int_equal(conf_line(line, sizeof(line), NULL, 0), 0);
	assert_string_equal(line, "");
}

static void test_two_words_are_refused(void **state)
{
	static const char *const two[] = { "resume", "RESUME=\"UUID=a noresume\"\n" };
	static const char *const off[] = { "resume", "RESUME=/dev/sda2\nRESUME_OFFSET=12k\n" };
	char line[256];

	(void)state;
	assert_int_equal(conf_line(line, sizeof(line), two, UNIT_COUNT(two)), -EINVAL);
	assert_int_equal(conf_line(line, sizeof(line), off, UNIT_COUNT(off)), -EINVAL);
}

UNIT_MAIN(setup, teardown,
	  cmocka_unit_test(test_the_last_in_name_order_wins),
	  cmocka_unit_test(test_none_auto_and_nothing_add_nothing),
	  cmocka_unit_test(test_two_words_are_refused))
