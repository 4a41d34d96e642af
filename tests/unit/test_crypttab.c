// SPDX-License-Identifier: GPL-2.0
/*
 * test_crypttab.c: /etc/crypttab lines as Debian's installer and
 * systemd write them, and rd.luks.name= and rd.luks.options= values.
 */
#include "unit.h"

#include <errno.h>
#include <string.h>

#include "crypttab.h"

static struct crypttab_entry e;
static char why[256];

static int line(const char *s)
{
	why[0] = '\0';
	return crypttab_parse_line(s, &e, why, sizeof(why));
}

/* What Debian's installer writes for an encrypted root. */
static void debian_installer(void **state)
{
	(void)state;
	assert_int_equal(line("vda3_crypt UUID=4c1e2d3f-5a6b-4c7d-8e9f-"
			      "0a1b2c3d4e5f none luks,discard"), 1);
	assert_string_equal(e.name, "vda3_crypt");
	assert_string_equal(e.source, "UUID=4c1e2d3f-5a6b-4c7d-8e9f-"
			    "0a1b2c3d4e5f");
	assert_string_equal(e.keyfile, "");
	assert_int_equal(e.flags, CT_DISCARD);
}

static void options_read(void **state)
{
	(void)state;
	assert_int_equal(line("\thome\t/dev/vdb\t/etc/k.key\tinitramfs,"
			      "x-initrd.attach,readonly,header=/etc/h.img,"
			      "keyscript=decrypt_keyctl,tries=3"), 1);
	assert_string_equal(e.keyfile, "/etc/k.key");
	assert_string_equal(e.header, "/etc/h.img");
	assert_string_equal(e.keyscript, "decrypt_keyctl");
	assert_int_equal(e.flags, CT_INITRAMFS | CT_ATTACH | CT_READONLY);
}

/* Name and device only; "-" is no key file; swap is not LUKS. */
static void short_lines(void **state)
{
	(void)state;
	assert_int_equal(line("a /dev/vda"), 1);
	assert_string_equal(e.keyfile, "");
	assert_int_equal(e.flags, 0);
	assert_int_equal(line("b /dev/vdb -"), 1);
	assert_string_equal(e.keyfile, "");
	assert_int_equal(line("cswap /dev/vdc /dev/urandom swap,cipher=aes"), 1);
	assert_true(e.flags & CT_NOT_LUKS);
	assert_string_equal(e.not_luks, "swap");
}

static void blank_and_comment(void **state)
{
	(void)state;
	assert_int_equal(line(""), 0);
	assert_int_equal(line("   \t "), 0);
	assert_int_equal(line("# vda3_crypt UUID=x none luks"), 0);
}

static void refused(void **state)
{
	static const char *const bad[] = {
		"onlyname", "a/b /dev/vda", ".. /dev/vda",
		"a /dev/vda none luks extra",
		"a /dev/vda none header=relative",
	};
	size_t i;

	(void)state;
	for (i = 0; i < UNIT_COUNT(bad); i++) {
		unit_case_int(bad[i], line(bad[i]), -EINVAL);
		if (!why[0])
			fail_msg("%s: refused without a why", bad[i]);
	}
}

struct seen { int lines[4]; int n; };

static void bad_line(void *ctx, int no, const char *w)
{
	struct seen *s = ctx;

	(void)w;
	if (s->n < 4)
		s->lines[s->n++] = no;
}

/* A file: entries with their line numbers, bad lines named. */
static void whole_file(void **state)
{
	struct crypttab_entry t[2];
	struct seen s = { { 0 }, 0 };

	(void)state;
	assert_int_equal(crypttab_parse("# crypttab\r\nroot UUID=u none "
					"luks\r\nbad\n\nhome /dev/vdb\nthird "
					"/dev/vdc\n", t, 2, bad_line, &s), 2);
	assert_string_equal(t[0].name, "root");
	assert_int_equal(t[0].line, 2);
	assert_string_equal(t[1].name, "home");
	assert_int_equal(t[1].line, 5);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.lines[0], 3);
	assert_int_equal(s.lines[1], 6);	/* no room left */
}

static void luks_name(void **state)
{
	char uuid[64], name[CRYPTTAB_NAME_MAX];

	(void)state;
	assert_int_equal(crypttab_luks_name("4c1e2d3f-5a6b=root", uuid,
					    sizeof(uuid), name, sizeof(name),
					    why, sizeof(why)), 0);
	assert_string_equal(uuid, "4c1e2d3f-5a6b");
	assert_string_equal(name, "root");
	assert_int_equal(crypttab_luks_name("UUID=luks-4c1e2d3f-5a6b=r2",
					    uuid, sizeof(uuid), name,
					    sizeof(name), why, sizeof(why)), 0);
	assert_string_equal(uuid, "4c1e2d3f-5a6b");
	assert_string_equal(name, "r2");
	assert_int_equal(crypttab_luks_name("root", uuid, sizeof(uuid), name,
					    sizeof(name), why, sizeof(why)),
			 -EINVAL);
	assert_int_equal(crypttab_luks_name("4c1e2d3f-5a6b=a/b", uuid,
					    sizeof(uuid), name, sizeof(name),
					    why, sizeof(why)), -EINVAL);
}

static void luks_options(void **state)
{
	char uuid[64];

	(void)state;
	assert_int_equal(crypttab_luks_options("4c1e2d3f-5a6b=discard,header="
					       "/h", uuid, sizeof(uuid), &e,
					       why, sizeof(why)), 0);
	assert_string_equal(uuid, "4c1e2d3f-5a6b");
	assert_int_equal(e.flags, CT_DISCARD);
	assert_string_equal(e.header, "/h");
	/* no UUID: for every container without an entry */
	assert_int_equal(crypttab_luks_options("header=/h,discard", uuid,
					       sizeof(uuid), &e, why,
					       sizeof(why)), 0);
	assert_string_equal(uuid, "");
	assert_string_equal(e.header, "/h");
}

UNIT_MAIN(NULL, NULL,
	cmocka_unit_test(debian_installer),
	cmocka_unit_test(options_read),
	cmocka_unit_test(short_lines),
	cmocka_unit_test(blank_and_comment),
	cmocka_unit_test(refused),
	cmocka_unit_test(whole_file),
	cmocka_unit_test(luks_name),
	cmocka_unit_test(luks_options))
