// SPDX-License-Identifier: GPL-2.0
/*
 * test_modsame.c: what mkrescue ships (modules_add()) is what rescue-init
 * loads (modload_order()) from the same odd index files: CRLF line ends,
 * tabs between dependencies, a modules.dep line without a colon, an
 * alias and a softdep spelt with '-'.  Before both sat on one parser
 * (rescue/lib/modindex.c), mkrescue refused the line without a colon
 * and kept the '\r' in paths, where rescue-init skipped and stripped.
 */
#include "unit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mkrescue.h"
#include "rescue-init.h"

#define KVER	"9.9.9-test"
#define MAXMODS	32

static char dir[] = "/tmp/test_modsame.XXXXXX";
static char list_file[128];

static const char *const files[][2] = {
	{ "modules.dep",
	  "kernel/fs/a.ko: kernel/lib/b.ko\tkernel/lib/c-x.ko.xz\r\n"
	  "kernel/lib/b.ko:\r\n"
	  "kernel/lib/c-x.ko.xz:\t\r\n"
	  "kernel/no/colon.ko kernel/lib/b.ko\r\n"
	  "kernel/drivers/d.ko:\tkernel/lib/b.ko \r\n"
	  "kernel/lib/e.ko:\r\n"
	  "kernel/lib/f-impl.ko:\r\n"
	  "kernel/lib/unused.ko:\r\n" },
	{ "modules.alias",
	  "alias pci:v00001234d*sv*sd*bc*sc*i* d\r\n"
	  "alias crypto-f f_impl\r\n"
	  "alias fs-a a\r\n" },
	{ "modules.softdep",
	  "softdep a pre: e\tpost: crypto_f\r\n" },
	{ "modules.builtin", "kernel/lib/g.ko\r\n" },
	/* Not a module: the .ko files themselves, empty. */
	{ "kernel/fs/a.ko", "" },
	{ "kernel/lib/b.ko", "" },
	{ "kernel/lib/c-x.ko.xz", "" },
	{ "kernel/no/colon.ko", "" },
	{ "kernel/drivers/d.ko", "" },
	{ "kernel/lib/e.ko", "" },
	{ "kernel/lib/f-impl.ko", "" },
	{ "kernel/lib/unused.ko", "" },
};

/* The names asked for: module list and --add-module alike. */
static const char *const wanted[] = {
	"a", "colon", "g", "pci:v00001234d00000001sv0sd0bc0sc0i0",
};

static int setup(void **state)
{
	size_t i;
	FILE *f;

	(void)state;
	if (!mkdtemp(dir))
		return -1;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		unit_put(dir, files[i][0], files[i][1]);
	snprintf(list_file, sizeof(list_file), "%s/modules.list", dir);
	f = fopen(list_file, "w");
	if (!f)
		return -1;
	fputs("# the module list\r\n", f);
	for (i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++)
		if (strchr(wanted[i], ':') == NULL)	/* not a module name */
			fprintf(f, "%s\r\n", wanted[i]);
	fclose(f);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return unit_rm_rf(dir);
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct loaded {
	char *paths[MAXMODS];
	size_t n;
};

static int record(void *ctx, const struct module *m, const char *reason)
{
	struct loaded *l = ctx;

	(void)reason;
	assert_true(l->n < MAXMODS);
	l->paths[l->n] = strdup(m->path);
	assert_non_null(l->paths[l->n]);
	l->n++;
	return 0;
}

/* The .ko paths mkrescue puts below lib/modules/KVER/, sorted. */
static size_t shipped(const char *const *add, size_t nadd, char **out)
{
	static const char prefix[] = "lib/modules/" KVER "/";
	struct modules_request req = {
		.kver = KVER, .kmoddir = dir, .module_list = list_file,
		.add = add, .nadd = nadd,
	};
	struct list l = { 0 };
	size_t i, n = 0;

	assert_int_equal(modules_add(&l, &req), 0);
	for (i = 0; i < l.count; i++) {
		const char *p = l.entries[i].path;

		if (!S_ISREG(l.entries[i].mode) ||
		    strncmp(p, prefix, strlen(prefix)) ||
		    !strncmp(p + strlen(prefix), "modules.", 8))
			continue;
		assert_true(n < MAXMODS);
		out[n] = strdup(p + strlen(prefix));
		assert_non_null(out[n]);
		n++;
	}
	list_free(&l);
	qsort(out, n, sizeof(*out), by_string);
	return n;
}

static void same_modules_from_odd_files(void **state)
{
	const char *failed = NULL;
	struct modindex ix = { 0 };
	struct loaded ld = { 0 };
	char *ship[MAXMODS];
	const char *add = wanted[3];
	size_t i, n;

	(void)state;
	n = shipped(&add, 0, ship);
	/* The modalias is no module name: only rescue-init takes it. */
	assert_int_equal(modindex_read(&ix, dir, 1u << MODINDEX_DEP, &failed), 0);
	for (i = 0; i < 3; i++)
		modload_order(&ix, wanted[i], record, &ld);
	qsort(ld.paths, ld.n, sizeof(*ld.paths), by_string);
	for (i = 0; i < n && i < ld.n; i++)
		assert_string_equal(ship[i], ld.paths[i]);
	assert_int_equal(n, ld.n);
	/* a, its dependencies b and c-x, its softdeps e and crypto-f. */
	assert_int_equal(n, 5);
	assert_string_equal(ship[0], "kernel/fs/a.ko");
	assert_string_equal(ship[1], "kernel/lib/b.ko");
	assert_string_equal(ship[2], "kernel/lib/c-x.ko.xz");
	assert_string_equal(ship[3], "kernel/lib/e.ko");
	assert_string_equal(ship[4], "kernel/lib/f-impl.ko");
	for (i = 0; i < n; i++)
		free(ship[i]);
	for (i = 0; i < ld.n; i++)
		free(ld.paths[i]);
	/* What a device asks for at boot is shipped by its driver's name. */
	ld.n = 0;
	assert_int_equal(modload_order(&ix, wanted[3], record, &ld), 1);
	assert_string_equal(ld.paths[0], "kernel/drivers/d.ko");	/* b is in */
	add = ix.mods[modindex_find(&ix, "d")].name;
	n = shipped(&add, 1, ship);
	assert_int_equal(n, 6);
	for (i = 0; i < n; i++)
		free(ship[i]);
	for (i = 0; i < ld.n; i++)
		free(ld.paths[i]);
	modindex_free(&ix);
}

UNIT_MAIN(setup, teardown,
	cmocka_unit_test(same_modules_from_odd_files))
