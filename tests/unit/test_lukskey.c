// SPDX-License-Identifier: GPL-2.0
/*
 * test_lukskey.c: rd.luks.key=KEYPATH[:KEYDEV[:LUKSDEV]] split as
 * dracut's crypt-lib.sh splits it, each device in a root= form.
 */
#include "unit.h"

#include <errno.h>
#include <string.h>

#include "storage/lukskey.h"

static struct lukskey k;
static char why[256];

/* lukskey_parse() of SPEC into k, its why (if refused) in why. */
static int parse(const char *spec)
{
	why[0] = '\0';
	return lukskey_parse(spec, &k, why, sizeof(why));
}

static void path_only(void **state)
{
	(void)state;
	assert_int_equal(parse("/etc/luks.key"), 0);
	assert_string_equal(k.path, "/etc/luks.key");
	assert_false(k.has_keydev);
	assert_false(k.has_luksdev);
}

static void key_device(void **state)
{
	(void)state;
	assert_int_equal(parse("/root.key:LABEL=keys"), 0);
	assert_string_equal(k.path, "/root.key");
	assert_true(k.has_keydev);
	assert_int_equal(k.keydev.kind, ROOT_LABEL);
	assert_string_equal(k.keydev.value, "keys");
	assert_false(k.has_luksdev);
}

static void all_three(void **state)
{
	(void)state;
	assert_int_equal(parse("/k/root.key:UUID=3c0d8a52-7e41-4f0b-"
			       "9a6d-2b1e5f7c9001:/dev/vda2"), 0);
	assert_string_equal(k.path, "/k/root.key");
	assert_int_equal(k.keydev.kind, ROOT_UUID);
	assert_string_equal(k.keydev.value,
			    "3c0d8a52-7e41-4f0b-9a6d-2b1e5f7c9001");
	assert_true(k.has_luksdev);
	assert_int_equal(k.luksdev.kind, ROOT_DEVNAME);
}

/* An empty KEYDEV: the key is in the initramfs, for LUKSDEV only. */
static void empty_keydev(void **state)
{
	(void)state;
	assert_int_equal(parse("/k::LABEL=crypt"), 0);
	assert_false(k.has_keydev);
	assert_true(k.has_luksdev);
	assert_int_equal(k.luksdev.kind, ROOT_LABEL);
	assert_int_equal(parse("/k:"), 0);
	assert_false(k.has_keydev);
	assert_false(k.has_luksdev);
}

/* The rest after the second ':' is LUKSDEV, colons and all. */
static void luksdev_with_colons(void **state)
{
	(void)state;
	assert_int_equal(parse("/k:LABEL=keys:LABEL=a:b"), 0);
	assert_true(k.has_luksdev);
	assert_string_equal(k.luksdev.value, "a:b");
}

static void refused(void **state)
{
	static const char *const bad[] = {
		"", ":LABEL=keys", "root.key", "/a/../etc/shadow", "/..",
		"/k:LABEL=", "/k:UUID=nothex", "/k:LABEL=keys:UUID=1234",
	};
	size_t i;

	(void)state;
	for (i = 0; i < UNIT_COUNT(bad); i++) {
		unit_case_int(bad[i], parse(bad[i]), -EINVAL);
		if (!why[0])
			fail_msg("%s: refused without a why", bad[i]);
	}
}

/* A path of exactly the limit is refused, one less is taken. */
static void long_path(void **state)
{
	char s[LUKSKEY_PATH_MAX + 2];

	(void)state;
	memset(s, 'a', sizeof(s));
	s[0] = '/';
	s[LUKSKEY_PATH_MAX] = '\0';
	assert_int_equal(parse(s), -EINVAL);
	s[LUKSKEY_PATH_MAX - 1] = '\0';
	assert_int_equal(parse(s), 0);
	assert_int_equal(strlen(k.path), LUKSKEY_PATH_MAX - 1);
}

/* "..." and "a..b" are names, not the parent. */
static void dots_in_names(void **state)
{
	(void)state;
	assert_int_equal(parse("/k/.../a..b"), 0);
}

UNIT_MAIN(NULL, NULL,
	cmocka_unit_test(path_only),
	cmocka_unit_test(key_device),
	cmocka_unit_test(all_three),
	cmocka_unit_test(empty_keydev),
	cmocka_unit_test(luksdev_with_colons),
	cmocka_unit_test(refused),
	cmocka_unit_test(long_path),
	cmocka_unit_test(dots_in_names))
