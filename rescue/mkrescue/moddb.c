// SPDX-License-Identifier: GPL-2.0
/*
 * moddb.c: a kernel's modules.dep, .alias, .softdep, .builtin and
 * .builtin.alias, read by rescue/lib/modindex.c (the parser rescue-init
 * loads with, so that what mkrescue ships is what rescue-init finds),
 * and what only mkrescue needs: a shipped flag per module, and refusing
 * a modules.dep that names a dependency without a line of its own.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mkrescue.h"
#include "moddb.h"

static int moddb_link(struct moddb *db)
{
	const struct modsoftdep *s;
	const char **names;
	size_t i, n, have;

	db->mods = calloc(db->ix.nmods + 1, sizeof(*db->mods));
	db->soft_names = calloc(db->ix.nmods + 1, sizeof(*db->soft_names));
	db->soft_count = calloc(db->ix.nmods + 1, sizeof(*db->soft_count));
	if (!db->mods || !db->soft_names || !db->soft_count)
		return -ENOMEM;
	for (i = 0; i < db->ix.nmods; i++) {
		const struct module *m = &db->ix.mods[i];

		if (m->missing) {
			msg_error("unable to read %s/modules.dep: %s has no line of its own",
				  db->dir, m->missing);
			return -EINVAL;
		}
		db->mods[i] = (struct moddb_module){
			.name = m->name, .path = m->path,
			.deps = m->deps, .ndeps = m->ndeps,
		};
	}
	for (i = 0; i < db->ix.nsoftdeps; i++) {
		s = &db->ix.softdeps[i];
		n = s->npre + s->npost;
		have = db->soft_count[s->mod];
		names = realloc(db->soft_names[s->mod],
				(have + n + 1) * sizeof(*names));
		if (!names)
			return -ENOMEM;
		memcpy(names + have, s->pre, s->npre * sizeof(*names));
		memcpy(names + have + s->npre, s->post, s->npost * sizeof(*names));
		db->soft_names[s->mod] = names;
		db->soft_count[s->mod] = have + n;
	}
	return 0;
}

int moddb_load(struct moddb **dbp, const char *dir)
{
	struct moddb *db = calloc(1, sizeof(*db));
	const char *failed = NULL;
	size_t i;
	int err;

	if (!db || !(db->dir = strdup(dir))) {
		free(db);
		msg_error("unable to read the modules of %s: out of memory", dir);
		return -ENOMEM;
	}
	err = modindex_read(&db->ix, dir, 1u << MODINDEX_DEP, &failed);
	if (err == -ENOMEM)
		msg_error("unable to read the modules of %s: out of memory", dir);
	else if (err)
		msg_error("unable to read %s/%s: %s", dir, failed, strerror(-err));
	for (i = 0; !err && i < MODINDEX_FILES; i++)
		if (!db->ix.files[i])
			msg_verbose("%s/%s: none (treated as empty)", dir,
				    modindex_files[i]);
	if (!err) {
		err = moddb_link(db);
		if (err == -ENOMEM)
			msg_error("unable to read the modules of %s: out of memory",
				  dir);
	}
	if (err) {
		moddb_free(db);
		return err;
	}
	*dbp = db;
	return 0;
}

void moddb_free(struct moddb *db)
{
	size_t i;

	if (!db)
		return;
	for (i = 0; db->soft_names && i < db->ix.nmods; i++)
		free(db->soft_names[i]);
	free(db->soft_names);
	free(db->soft_count);
	free(db->mods);
	modindex_free(&db->ix);
	free(db->dir);
	free(db);
}

const char *moddb_dir(const struct moddb *db)
{
	return db->dir;
}

size_t moddb_count(const struct moddb *db)
{
	return db->ix.nmods;
}

struct moddb_module *moddb_module(struct moddb *db, size_t i)
{
	return &db->mods[i];
}

ssize_t moddb_find(const struct moddb *db, const char *name)
{
	ssize_t k = modindex_find(&db->ix, name);

	return k < 0 ? -ENOENT : k;
}

bool moddb_is_builtin(const struct moddb *db, const char *name)
{
	return modindex_is_builtin(&db->ix, name);
}

int moddb_resolve_alias(struct moddb *db, const char *name,
			int (*fn)(void *ctx, size_t mod), void *ctx)
{
	return modindex_resolve(&db->ix, name, fn, ctx);
}

bool moddb_alias_is_builtin(const struct moddb *db, const char *name)
{
	return modindex_alias_is_builtin(&db->ix, name);
}

size_t moddb_softdeps(const struct moddb *db, size_t i, const char ***names)
{
	*names = db->soft_names[i];
	return db->soft_count[i];
}
