// SPDX-License-Identifier: GPL-2.0
/* prune.c: modules.dep, .alias, .softdep cut to the shipped modules. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mkrescue.h"
#include "moddb.h"

/*
 * Each file keeps the lines of shipped modules only, in depmod's order:
 * modules.dep needs nothing more, since the dependencies of a shipped
 * module are shipped; a softdep line keeps the names that reach a
 * shipped module, directly or through modules.alias.
 */

int prune_dep(struct moddb *db, struct buf *out)
{
	size_t i, j;
	int err = 0;

	for (i = 0; !err && i < db->ix.nmods; i++) {
		const struct moddb_module *m = &db->mods[i];

		if (!m->shipped)
			continue;
		err = buf_printf(out, "%s:", m->path);
		for (j = 0; !err && j < m->ndeps; j++)
			err = buf_printf(out, " %s", db->mods[m->deps[j]].path);
		if (!err)
			err = buf_append(out, "\n", 1);
	}
	return err;
}

int prune_alias(struct moddb *db, struct buf *out)
{
	size_t i;
	int err = 0;

	for (i = 0; !err && i < db->ix.naliases; i++) {
		const struct modalias *a = &db->ix.aliases[i];

		if (a->mod != SIZE_MAX && db->mods[a->mod].shipped)
			err = buf_printf(out, "alias %s %s\n", a->pattern, a->module);
	}
	return err;
}

static int prune_shipped(void *ctx, size_t mod)
{
	struct moddb *db = ctx;

	return db->mods[mod].shipped ? -EEXIST : 0;
}

/* A name stays in modules.softdep if it reaches a shipped module. */
static bool prune_reaches_shipped(struct moddb *db, const char *name)
{
	ssize_t k = moddb_find(db, name);

	if (k >= 0)
		return db->mods[k].shipped;
	return modindex_resolve(&db->ix, name, prune_shipped, db) == -EEXIST;
}

/* Appends " pre: a b" (MARK and the names that reach a shipped module). */
static int prune_softdep_names(struct moddb *db, struct buf *line,
			       const char *mark, const char **names, size_t n)
{
	bool marked = false;
	size_t i;
	int err = 0;

	for (i = 0; !err && i < n; i++) {
		if (!prune_reaches_shipped(db, names[i]))
			continue;
		err = buf_printf(line, "%s %s", marked ? "" : mark, names[i]);
		marked = true;
	}
	return err ? err : marked;
}

int prune_softdep(struct moddb *db, struct buf *out)
{
	size_t i;
	int err = 0;

	for (i = 0; !err && i < db->ix.nsoftdeps; i++) {
		const struct modsoftdep *s = &db->ix.softdeps[i];
		struct buf line = { 0 };
		int pre = 0, post = 0;

		if (!db->mods[s->mod].shipped)
			continue;
		err = buf_printf(&line, "softdep %s", db->mods[s->mod].name);
		if (!err)
			pre = prune_softdep_names(db, &line, " pre:", s->pre, s->npre);
		if (!err && pre >= 0)
			post = prune_softdep_names(db, &line, " post:", s->post, s->npost);
		if (!err)
			err = pre < 0 ? pre : post < 0 ? post : 0;
		/* A line without a name left says nothing: leave it out. */
		if (!err && (pre || post))
			err = buf_printf(out, "%s\n", line.data);
		buf_free(&line);
	}
	return err;
}
