// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_moddb.c: mkrescue's reading of a kernel's module indexes
 * (modules.dep, .alias, .softdep, .builtin, .builtin.alias, written
 * from the input's 0xff-separated parts into a temporary directory),
 * then an alias resolution by a name from the input and the pruned
 * indexes of what that ships.
 */
#include <stdio.h>

#include "fuzz.h"
#include "mkrescue.h"

static char dir[] = "/tmp/fuzz_moddb.XXXXXX";

static void put(const char *name, const uint8_t **data, size_t *size)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fuzz_write_part(path, data, size, 1 << 16);
}

static int ship(void *ctx, size_t mod)
{
	moddb_module(ctx, mod)->shipped = true;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf dep = { 0 }, alias = { 0 }, soft = { 0 };
	const char **names;
	struct moddb *db;
	char *want;
	static bool made;
	ssize_t i;

	/* Not by looking at dir: mkdtemp() may well put an X there. */
	if (!made && !mkdtemp(dir))
		abort();
	made = true;
	put("modules.dep", &data, &size);
	put("modules.alias", &data, &size);
	put("modules.softdep", &data, &size);
	put("modules.builtin", &data, &size);
	put("modules.builtin.alias", &data, &size);
	want = fuzz_part(&data, &size, 256);
	if (want && moddb_load(&db, dir) == 0) {
		moddb_resolve_alias(db, want, ship, db);
		moddb_alias_is_builtin(db, want);
		moddb_is_builtin(db, want);
		i = moddb_find(db, want);
		if (i >= 0)
			moddb_softdeps(db, (size_t)i, &names);
		prune_dep(db, &dep);
		prune_alias(db, &alias);
		prune_softdep(db, &soft);
		moddb_free(db);
	}
	buf_free(&dep);
	buf_free(&alias);
	buf_free(&soft);
	free(want);
	return 0;
}
