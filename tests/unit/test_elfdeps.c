// SPDX-License-Identifier: GPL-2.0
/*
 * test_elfdeps.c: mkrescue's ELF reader (rescue/mkrescue/closure/elfdeps.c) and
 * library resolver (ldpath.c), on the host's real programs.
 */
#include "unit.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mkrescue.h"

/* Debian's cryptsetup: dynamic, threads, libraries of libraries. */
#define PROGRAM		"/sbin/cryptsetup"
#define STATIC_PROGRAM	"/bin/busybox"
#define LOADER		"/lib64/ld-linux-x86-64.so.2"

static bool has_needed(const struct elfdeps *d, const char *name)
{
	size_t i;

	for (i = 0; i < d->nneeded; i++) {
		if (!strcmp(d->needed[i], name))
			return true;
	}
	return false;
}

static const struct ldpath_file *shipped(const struct ldpath *lp,
					 const char *path)
{
	size_t i;

	for (i = 0; i < lp->nfiles; i++) {
		if (!strcmp(lp->files[i].path, path))
			return &lp->files[i];
	}
	return NULL;
}

static void dynamic_program_has_interp_and_needed(void **state)
{
	struct elfdeps d;

	(void)state;
	assert_int_equal(elfdeps_read(PROGRAM, &d), 0);
	assert_non_null(d.interp);
	assert_string_equal(d.interp, LOADER);
	assert_true(has_needed(&d, "libcryptsetup.so.12"));
	assert_true(has_needed(&d, "libc.so.6"));
	assert_int_equal(d.class, 2);	/* ELFCLASS64 */
	assert_int_equal(d.machine, 62);	/* EM_X86_64 */
	elfdeps_free(&d);
}

static void static_program_has_neither(void **state)
{
	struct elfdeps d;

	(void)state;
	assert_int_equal(elfdeps_read(STATIC_PROGRAM, &d), 0);
	assert_null(d.interp);
	assert_int_equal(d.nneeded, 0);
	elfdeps_free(&d);
}

static void not_elf_and_missing_are_errors(void **state)
{
	struct elfdeps d;

	(void)state;
	assert_int_equal(elfdeps_read("/etc/passwd", &d), -ENOEXEC);
	assert_int_equal(elfdeps_read("/nonexistent/program", &d), -ENOENT);
	assert_int_equal(elfdeps_read_mem("\177ELF", 4, &d), -ENOEXEC);
}

/* Every prefix of a real program is refused or read, never overrun. */
static void truncated_copies_are_safe(void **state)
{
	size_t len, sizes[] = { 16, 64, 100, 1000, 4096, 20000 };
	struct elfdeps d;
	char *data;
	size_t i;

	(void)state;
	{
		struct buf b = { 0 };

		assert_int_equal(buf_read_file(&b, PROGRAM), 0);
		data = b.data;
		len = b.len;
	}
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		char *copy = malloc(sizes[i]);
		int err;

		assert_non_null(copy);
		memcpy(copy, data, sizes[i] < len ? sizes[i] : len);
		err = elfdeps_read_mem(copy, sizes[i] < len ? sizes[i] : len, &d);
		assert_true(err == 0 || err == -ENOEXEC);
		if (!err)
			elfdeps_free(&d);
		free(copy);
	}
	assert_int_equal(elfdeps_read_mem(data, len, &d), 0);
	assert_string_equal(d.interp, LOADER);
	elfdeps_free(&d);
	free(data);
}

static void closure_has_loader_libraries_and_libgcc_s(void **state)
{
	const struct ldpath_file *f;
	struct ldpath lp;

	(void)state;
	ldpath_init(&lp, NULL);
	assert_int_equal(ldpath_add_program(&lp, PROGRAM), 0);
	f = shipped(&lp, LOADER);
	assert_non_null(f);
	assert_string_equal(f->why, "loader of " PROGRAM);
	/* Found in the first standard directory, as ld.so would. */
	assert_non_null(shipped(&lp, "/lib/x86_64-linux-gnu/libcryptsetup.so.12"));
	/* A library of a library (libcryptsetup needs libcrypto). */
	assert_non_null(shipped(&lp, "/lib/x86_64-linux-gnu/libcrypto.so.3"));
	assert_non_null(shipped(&lp, "/lib/x86_64-linux-gnu/libc.so.6"));
	/* glibc dlopen()s it for pthread_cancel(). */
	assert_non_null(shipped(&lp, "/lib/x86_64-linux-gnu/libgcc_s.so.1"));
	/* A second program adds only what is new; each path is there once. */
	{
		size_t before = lp.nfiles, i, j;

		assert_int_equal(ldpath_add_program(&lp, "/sbin/dmsetup"), 0);
		assert_true(lp.nfiles >= before);
		for (i = 0; i < lp.nfiles; i++)
			for (j = i + 1; j < lp.nfiles; j++)
				assert_string_not_equal(lp.files[i].path,
							lp.files[j].path);
	}
	ldpath_free(&lp);
}

static void static_program_needs_nothing(void **state)
{
	struct ldpath lp;

	(void)state;
	ldpath_init(&lp, NULL);
	assert_int_equal(ldpath_add_program(&lp, STATIC_PROGRAM), 0);
	assert_int_equal(lp.nfiles, 0);
	ldpath_free(&lp);
}

static void missing_library_is_an_error(void **state)
{
	char dir[] = "/tmp/test_elfdeps.XXXXXX";
	const char *dirs[] = { dir, NULL };
	struct ldpath lp;

	(void)state;
	assert_non_null(mkdtemp(dir));
	ldpath_init(&lp, dirs);
	assert_int_equal(ldpath_add_program(&lp, PROGRAM), -ENOENT);
	ldpath_free(&lp);
	rmdir(dir);
	ldpath_init(&lp, NULL);
	assert_int_equal(ldpath_add_program(&lp, "/nonexistent/program"), -ENOENT);
	assert_int_equal(ldpath_add_program(&lp, "/etc/passwd"), -ENOEXEC);
	ldpath_free(&lp);
}

/* Directories given instead of the standard ones are searched in order. */
static void given_directories_are_searched(void **state)
{
	const char *dirs[] = { "/nonexistent", "/usr/lib/x86_64-linux-gnu", NULL };
	struct ldpath lp;

	(void)state;
	ldpath_init(&lp, dirs);
	assert_int_equal(ldpath_add_program(&lp, PROGRAM), 0);
	assert_non_null(shipped(&lp, "/usr/lib/x86_64-linux-gnu/libcryptsetup.so.12"));
	assert_null(shipped(&lp, "/lib/x86_64-linux-gnu/libcryptsetup.so.12"));
	ldpath_free(&lp);
}

/* The fuzz seeds: DT_RUNPATH $ORIGIN/../lib, and PT_INTERP with DT_RPATH. */
static void seeds_have_runpath_rpath_and_interp(void **state)
{
	struct elfdeps d;

	(void)state;
	assert_int_equal(elfdeps_read(ELFDEPS_SEEDS "/runpath-origin.so", &d), 0);
	assert_null(d.interp);
	assert_string_equal(d.runpath, "$ORIGIN/../lib");
	assert_null(d.rpath);
	assert_true(has_needed(&d, "libc.so.6"));
	elfdeps_free(&d);
	assert_int_equal(elfdeps_read(ELFDEPS_SEEDS "/interp-rpath.exe", &d), 0);
	assert_string_equal(d.interp, LOADER);
	assert_string_equal(d.rpath, "/opt/lib");
	assert_null(d.runpath);
	elfdeps_free(&d);
}

/* DT_RUNPATH with $ORIGIN is searched before the standard directories. */
static void runpath_origin_comes_first(void **state)
{
	char top[] = "/tmp/test_elfdeps.XXXXXX", path[128], lib[64], link[128];
	struct ldpath lp;
	struct buf b = { 0 };
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(top));
	snprintf(path, sizeof(path), "%s/bin", top);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(lib, sizeof(lib), "%s/lib", top);
	assert_int_equal(mkdir(lib, 0755), 0);
	snprintf(link, sizeof(link), "%s/libc.so.6", lib);
	assert_int_equal(symlink("/lib/x86_64-linux-gnu/libc.so.6", link), 0);
	snprintf(path, sizeof(path), "%s/bin/prog.so", top);
	assert_int_equal(buf_read_file(&b, ELFDEPS_SEEDS "/runpath-origin.so"), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(b.data, 1, b.len, f), b.len);
	fclose(f);
	buf_free(&b);
	ldpath_init(&lp, NULL);
	assert_int_equal(ldpath_add_program(&lp, path), 0);
	snprintf(path, sizeof(path), "%s/bin/../lib/libc.so.6", top);
	assert_non_null(shipped(&lp, path));
	assert_null(shipped(&lp, "/lib/x86_64-linux-gnu/libc.so.6"));
	ldpath_free(&lp);
	assert_int_equal(unit_rm_rf(top), 0);
}

/* ld.so.conf: comments, hwcap, DIR=TYPE, relative includes in glob order. */
static void ld_so_conf_is_read_with_its_includes(void **state)
{
	char top[] = "/tmp/test_elfdeps.XXXXXX", path[128];
	struct ldconf c = { 0 };

	(void)state;
	assert_non_null(mkdtemp(top));
	unit_put(top, "conf.d/b.conf", "/b/lib\n/a/lib # again\n");
	unit_put(top, "conf.d/a.conf",
		 "# a\n  /a/lib/  \ninclude /nonexistent/*.conf\n");
	unit_put(top, "ld.so.conf",
		 "/first\ninclude conf.d/*.conf\nhwcap 0 nosegneg\n"
		 "/old/lib=libc5\nrelative/lib\n\t/last\t\n");
	snprintf(path, sizeof(path), "%s/ld.so.conf", top);
	assert_int_equal(ldconf_read_depth(&c, path, 0), 0);
	assert_int_equal(c.count, 5);
	assert_string_equal(c.dirs[0], "/first");
	assert_string_equal(c.dirs[1], "/a/lib");
	assert_string_equal(c.dirs[2], "/b/lib");
	assert_string_equal(c.dirs[3], "/old/lib");
	assert_string_equal(c.dirs[4], "/last");
	ldconf_free(&c);
	/* A file that includes itself ends at the depth limit. */
	unit_put(top, "ld.so.conf", "include ld.so.conf\n/loop\n");
	assert_int_equal(ldconf_read_depth(&c, path, 0), 0);
	assert_int_equal(c.count, 1);
	ldconf_free(&c);
	assert_int_equal(ldconf_read_depth(&c, "/nonexistent/ld.so.conf", 0), 0);
	assert_int_equal(c.count, 0);
	assert_int_equal(unit_rm_rf(top), 0);
}

/* A directory of ld.so.conf comes before the standard ones, as the cache. */
static void ld_so_conf_directories_come_first(void **state)
{
	char *conf_dirs[] = { "/nonexistent", "/usr/lib/x86_64-linux-gnu" };
	struct ldconf c = { .dirs = conf_dirs, .count = 2 };
	struct ldpath lp;

	(void)state;
	ldpath_init(&lp, NULL);
	lp.conf = &c;
	assert_int_equal(ldpath_add_program(&lp, PROGRAM), 0);
	assert_non_null(shipped(&lp, "/usr/lib/x86_64-linux-gnu/libcryptsetup.so.12"));
	assert_null(shipped(&lp, "/lib/x86_64-linux-gnu/libcryptsetup.so.12"));
	ldpath_free(&lp);
}

static void origin_is_expanded(void **state)
{
	static const struct {
		const char *path, *origin, *want;	/* NULL: refused */
	} cases[] = {
		{ "$ORIGIN/../lib", "/opt/x/bin", "/opt/x/bin/../lib" },
		{ "${ORIGIN}/a:$ORIGIN", "/o", "/o/a:/o" },
		{ "/usr/lib", "/o", "/usr/lib" },
		{ "", "/o", "" },
		{ "$ORIGINX/lib", "/o", NULL },
		{ "/usr/$LIB", "/o", NULL },
		{ "$PLATFORM", "/o", NULL },
	};
	size_t i;
	char *out;

	(void)state;
	for (i = 0; i < UNIT_COUNT(cases); i++) {
		unit_case_int(cases[i].path,
			      ldpath_expand_origin(cases[i].path,
						   cases[i].origin, &out),
			      cases[i].want ? 0 : -EINVAL);
		if (!cases[i].want)
			continue;
		unit_case_str(cases[i].path, out, cases[i].want);
		free(out);
	}
}

UNIT_MAIN(NULL, NULL,
	cmocka_unit_test(dynamic_program_has_interp_and_needed),
	cmocka_unit_test(static_program_has_neither),
	cmocka_unit_test(not_elf_and_missing_are_errors),
	cmocka_unit_test(truncated_copies_are_safe),
	cmocka_unit_test(closure_has_loader_libraries_and_libgcc_s),
	cmocka_unit_test(static_program_needs_nothing),
	cmocka_unit_test(missing_library_is_an_error),
	cmocka_unit_test(given_directories_are_searched),
	cmocka_unit_test(seeds_have_runpath_rpath_and_interp),
	cmocka_unit_test(runpath_origin_comes_first),
	cmocka_unit_test(origin_is_expanded),
	cmocka_unit_test(ld_so_conf_is_read_with_its_includes),
	cmocka_unit_test(ld_so_conf_directories_come_first))
