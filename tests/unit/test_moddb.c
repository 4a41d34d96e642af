// SPDX-License-Identifier: GPL-2.0
/*
 * test_moddb.c: regressions from fuzzing mkrescue's module indexes
 * (tests/fuzz/fuzz_moddb.c): a kernel without modules.builtin, and an
 * empty file list, once passed NULL to qsort() and bsearch(), which is
 * undefined behaviour (UBSan: "null pointer passed as argument 1").
 * And a modules.dep with tabs between the dependencies.
 */
#include "unit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mkrescue.h"

static char dir[] = "/tmp/test_moddb.XXXXXX";

static void drop(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	drop("modules.dep");
	drop("modules.builtin");
	return rmdir(dir);
}

/* No modules.builtin (optional): no builtins, and asking is no error. */
static void no_builtin_file(void **state)
{
	struct moddb *db;

	(void)state;
	unit_put(dir, "modules.dep", "kernel/fs/ext4/ext4.ko:\n");
	drop("modules.builtin");
	assert_int_equal(moddb_load(&db, dir), 0);
	assert_false(moddb_is_builtin(db, "ext4"));
	assert_false(moddb_is_builtin(db, "virtio_blk"));
	assert_int_equal(moddb_find(db, "ext4"), 0);
	moddb_free(db);
}

/* An empty modules.dep: no modules, every lookup answers "none". */
static void empty_dep_file(void **state)
{
	struct moddb *db;

	(void)state;
	unit_put(dir, "modules.dep", "");
	unit_put(dir, "modules.builtin", "");
	assert_int_equal(moddb_load(&db, dir), 0);
	assert_int_equal(moddb_find(db, "ext4"), -ENOENT);
	assert_false(moddb_is_builtin(db, "ext4"));
	moddb_free(db);
}

/* Dependencies split by tabs were counted by spaces, and the last lost. */
static void tab_separated_deps(void **state)
{
	struct moddb *db;
	ssize_t a;

	(void)state;
	unit_put(dir, "modules.dep", "kernel/a.ko:\tkernel/b.ko\tkernel/c.ko\n"
	    "kernel/b.ko:\nkernel/c.ko:\n");
	unit_put(dir, "modules.builtin", "");
	assert_int_equal(moddb_load(&db, dir), 0);
	a = moddb_find(db, "a");
	assert_true(a >= 0);
	assert_int_equal(moddb_module(db, (size_t)a)->ndeps, 2);
	moddb_free(db);
}

static void empty_list_finishes(void **state)
{
	struct list l = { 0 };

	(void)state;
	assert_int_equal(list_finish(&l), 0);
	assert_int_equal(l.count, 0);
	list_free(&l);
}

UNIT_MAIN(setup, teardown,
	cmocka_unit_test(no_builtin_file),
	cmocka_unit_test(empty_dep_file),
	cmocka_unit_test(tab_separated_deps),
	cmocka_unit_test(empty_list_finishes))
