// SPDX-License-Identifier: GPL-2.0
/* mkrescue-moddb.c: a kernel's modules.dep, .alias, .softdep, .builtin. */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mkrescue.h"
#include "moddb.h"

/*
 * The text files depmod writes, parsed in place.  Module names are
 * compared normalized ('-' is '_', as kmod does), and so are alias names
 * outside of [...] classes; the pruned files keep the original spelling.
 */

void moddb_normalize(char *s)
{
	int depth = 0;

	for (; *s; s++) {
		if (*s == '[')
			depth++;
		else if (*s == ']' && depth)
			depth--;
		else if (*s == '-' && !depth)
			*s = '_';
	}
}

/* "kernel/fs/ext4/ext4.ko" (or .ko.xz, ...) -> "ext4". */
static char *moddb_name_of(const char *path)
{
	const char *base = strrchr(path, '/');
	const char *ko;
	char *name;

	base = base ? base + 1 : path;
	/* The ".ko" that ends the name, or precedes a compression suffix. */
	for (ko = strstr(base, ".ko"); ko && ko[3] && ko[3] != '.';)
		ko = strstr(ko + 1, ".ko");
	name = strndup(base, ko ? (size_t)(ko - base) : strlen(base));
	if (name)
		moddb_normalize(name);
	return name;
}

/* What separates the words of an index line. */
#define MODDB_BLANKS	" \t"

/* Splits LINE at blanks in place; returns the number of words, at most MAX. */
static size_t moddb_words(char *line, char **words, size_t max)
{
	size_t n = 0;
	char *save, *w;

	for (w = strtok_r(line, MODDB_BLANKS, &save); w && n < max;
	     w = strtok_r(NULL, MODDB_BLANKS, &save))
		words[n++] = w;
	return n;
}

/* Calls FN on each line of B that is not blank or a comment. */
static int moddb_lines(struct moddb *db, struct buf *b,
		       int (*fn)(struct moddb *db, char *line))
{
	char *line, *next;
	int err = 0;

	for (line = b->data; !err && line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		line += strspn(line, MODDB_BLANKS);
		if (*line && *line != '#')
			err = fn(db, line);
	}
	return err;
}

static int moddb_cmp_name(const void *a, const void *b, void *ctx)
{
	const struct moddb *db = ctx;

	return strcmp(db->mods[*(const size_t *)a].name,
		      db->mods[*(const size_t *)b].name);
}

static int moddb_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int moddb_grow(void **array, size_t count, size_t size)
{
	void *n;

	/* Doubling at each power of two, from 64. */
	if (count < 64 ? count != 0 : (count & (count - 1)) != 0)
		return 0;
	n = realloc(*array, (count < 64 ? 64 : count * 2) * size);
	if (!n)
		return -ENOMEM;
	*array = n;
	return 0;
}

/* "path: dep dep ..."; the deps are kept as paths until all are read. */
static int moddb_parse_dep(struct moddb *db, char *line)
{
	struct moddb_module *m;
	char *colon = strchr(line, ':');
	size_t words = 1;
	const char *p;

	if (!colon)
		return -EINVAL;
	*colon = '\0';
	if (moddb_grow((void **)&db->mods, db->nmods, sizeof(*db->mods)) ||
	    moddb_grow((void **)&db->dep_paths, db->nmods, sizeof(*db->dep_paths)))
		return -ENOMEM;
	m = &db->mods[db->nmods];
	*m = (struct moddb_module){ .path = line };
	/* At most one more word than blanks, as moddb_words() splits. */
	for (p = colon + 1; *p; p++)
		words += strchr(MODDB_BLANKS, *p) != NULL;
	db->dep_paths[db->nmods] = calloc(words, sizeof(char *));
	m->deps = calloc(words, sizeof(*m->deps));
	m->name = moddb_name_of(line);
	db->nmods++;
	if (!db->dep_paths[db->nmods - 1] || !m->deps || !m->name)
		return -ENOMEM;
	m->ndeps = moddb_words(colon + 1, (char **)db->dep_paths[db->nmods - 1],
			       words);
	return 0;
}

static int moddb_parse_alias_into(char *line, struct moddb_alias **array,
				  size_t *count)
{
	char *w[3];
	struct moddb_alias *a;

	if (moddb_words(line, w, 3) != 3 || strcmp(w[0], "alias"))
		return -EINVAL;
	if (moddb_grow((void **)array, *count, sizeof(**array)))
		return -ENOMEM;
	a = &(*array)[(*count)++];
	*a = (struct moddb_alias){ .pattern = w[1], .modname = w[2], .mod = SIZE_MAX };
	a->norm = strdup(w[1]);
	if (!a->norm)
		return -ENOMEM;
	moddb_normalize(a->norm);
	a->glob = strpbrk(a->norm, "*?[") != NULL;
	return 0;
}

static int moddb_parse_alias(struct moddb *db, char *line)
{
	return moddb_parse_alias_into(line, &db->aliases, &db->naliases);
}

static int moddb_parse_balias(struct moddb *db, char *line)
{
	return moddb_parse_alias_into(line, &db->baliases, &db->nbaliases);
}

/* "softdep MOD pre: a b post: c"; words before pre:/post: are ignored. */
static int moddb_parse_softdep(struct moddb *db, char *line)
{
	char *w[256];
	size_t n = moddb_words(line, w, 256), i;
	struct moddb_softdep *s;
	int list = 0;
	ssize_t mod;

	if (n < 2 || strcmp(w[0], "softdep"))
		return -EINVAL;
	mod = moddb_find(db, w[1]);
	if (mod < 0)
		return 0;	/* a module this kernel does not have */
	if (moddb_grow((void **)&db->softdeps, db->nsoftdeps, sizeof(*s)))
		return -ENOMEM;
	s = &db->softdeps[db->nsoftdeps++];
	*s = (struct moddb_softdep){ .mod = (size_t)mod };
	s->pre = calloc(n, sizeof(*s->pre));
	s->post = calloc(n, sizeof(*s->post));
	if (!s->pre || !s->post)
		return -ENOMEM;
	for (i = 2; i < n; i++) {
		if (!strcmp(w[i], "pre:"))
			list = 1;
		else if (!strcmp(w[i], "post:"))
			list = 2;
		else if (list == 1)
			s->pre[s->npre++] = w[i];
		else if (list == 2)
			s->post[s->npost++] = w[i];
	}
	return 0;
}

static int moddb_parse_builtin(struct moddb *db, char *line)
{
	if (moddb_grow((void **)&db->builtin, db->nbuiltin, sizeof(char *)))
		return -ENOMEM;
	db->builtin[db->nbuiltin] = moddb_name_of(line);
	if (!db->builtin[db->nbuiltin])
		return -ENOMEM;
	db->nbuiltin++;
	return 0;
}

/* Turns the dependency paths of every module into module indexes. */
static int moddb_link_deps(struct moddb *db, const char **bad)
{
	size_t i, j;

	for (i = 0; i < db->nmods; i++) {
		struct moddb_module *m = &db->mods[i];

		for (j = 0; j < m->ndeps; j++) {
			const char *dep = db->dep_paths[i][j];
			char *name = moddb_name_of(dep);
			ssize_t k = name ? moddb_find(db, name) : -ENOMEM;

			free(name);
			if (k == -ENOMEM)
				return -ENOMEM;
			if (k < 0 || strcmp(db->mods[k].path, dep)) {
				*bad = dep;
				return -EINVAL;
			}
			m->deps[j] = (size_t)k;
		}
	}
	return 0;
}

/* Reads DIR/NAME into B; a missing optional file is an empty one. */
static int moddb_read(struct moddb *db, struct buf *b, const char *name,
		      bool optional, int (*fn)(struct moddb *db, char *line))
{
	struct buf path = { 0 };
	int err;

	err = buf_printf(&path, "%s/%s", db->dir, name);
	if (!err)
		err = buf_read_file(b, path.data);
	if (err == -ENOENT && optional) {
		msg_verbose("%s: none (treated as empty)", path.data);
		err = 0;
	} else if (err) {
		msg_error("unable to read %s: %s", path.data ? path.data : name,
			  strerror(-err));
	} else {
		err = moddb_lines(db, b, fn);
		if (err)
			msg_error("unable to read %s: %s", path.data,
				  err == -EINVAL ? "not in depmod's format" :
				  strerror(-err));
	}
	buf_free(&path);
	return err;
}

static int moddb_index(struct moddb *db)
{
	size_t i;

	db->by_name = malloc((db->nmods ? db->nmods : 1) * sizeof(size_t));
	if (!db->by_name)
		return -ENOMEM;
	for (i = 0; i < db->nmods; i++)
		db->by_name[i] = i;
	qsort_r(db->by_name, db->nmods, sizeof(size_t), moddb_cmp_name, db);
	return 0;
}

int moddb_load(struct moddb **dbp, const char *dir)
{
	struct moddb *db = calloc(1, sizeof(*db));
	const char *bad = NULL;
	size_t i;
	int err;

	if (!db || !(db->dir = strdup(dir))) {
		free(db);
		msg_error("unable to read the modules of %s: out of memory", dir);
		return -ENOMEM;
	}
	err = moddb_read(db, &db->dep_file, "modules.dep", false, moddb_parse_dep);
	if (!err)
		err = moddb_index(db);
	if (!err) {
		err = moddb_link_deps(db, &bad);
		if (err == -EINVAL)
			msg_error("unable to read %s/modules.dep: %s has no line of its own",
				  dir, bad);
	}
	if (!err)
		err = moddb_read(db, &db->builtin_file, "modules.builtin", true,
				 moddb_parse_builtin);
	if (!err && db->nbuiltin > 1)	/* qsort(NULL, 0) is undefined */
		qsort(db->builtin, db->nbuiltin, sizeof(char *), moddb_cmp_str);
	if (!err)
		err = moddb_read(db, &db->alias_file, "modules.alias", true,
				 moddb_parse_alias);
	if (!err)
		err = moddb_read(db, &db->balias_file, "modules.builtin.alias",
				 true, moddb_parse_balias);
	if (!err)
		err = moddb_read(db, &db->softdep_file, "modules.softdep", true,
				 moddb_parse_softdep);
	for (i = 0; !err && i < db->naliases; i++) {
		ssize_t k = moddb_find(db, db->aliases[i].modname);

		db->aliases[i].mod = k < 0 ? SIZE_MAX : (size_t)k;
	}
	if (!err) {
		db->soft_names = calloc(db->nmods + 1, sizeof(*db->soft_names));
		db->soft_count = calloc(db->nmods + 1, sizeof(*db->soft_count));
		if (!db->soft_names || !db->soft_count)
			err = -ENOMEM;
	}
	for (i = 0; !err && i < db->nsoftdeps; i++) {
		struct moddb_softdep *s = &db->softdeps[i];
		size_t n = s->npre + s->npost, have = db->soft_count[s->mod];
		const char **names = realloc(db->soft_names[s->mod],
					     (have + n + 1) * sizeof(*names));

		if (!names) {
			err = -ENOMEM;
			break;
		}
		memcpy(names + have, s->pre, s->npre * sizeof(*names));
		memcpy(names + have + s->npre, s->post, s->npost * sizeof(*names));
		db->soft_names[s->mod] = names;
		db->soft_count[s->mod] = have + n;
	}
	if (err == -ENOMEM)
		msg_error("unable to read the modules of %s: out of memory", dir);
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
	for (i = 0; i < db->nmods; i++) {
		free(db->mods[i].name);
		free(db->mods[i].deps);
		free(db->dep_paths[i]);
	}
	free(db->dep_paths);
	for (i = 0; i < db->nbuiltin; i++)
		free(db->builtin[i]);
	for (i = 0; i < db->naliases; i++)
		free(db->aliases[i].norm);
	for (i = 0; i < db->nbaliases; i++)
		free(db->baliases[i].norm);
	for (i = 0; i < db->nsoftdeps; i++) {
		free(db->softdeps[i].pre);
		free(db->softdeps[i].post);
	}
	for (i = 0; db->soft_names && i < db->nmods; i++)
		free(db->soft_names[i]);
	free(db->soft_names);
	free(db->soft_count);
	free(db->softdeps);
	free(db->aliases);
	free(db->baliases);
	free(db->builtin);
	free(db->by_name);
	free(db->mods);
	buf_free(&db->dep_file);
	buf_free(&db->alias_file);
	buf_free(&db->softdep_file);
	buf_free(&db->builtin_file);
	buf_free(&db->balias_file);
	free(db->dir);
	free(db);
}

const char *moddb_dir(const struct moddb *db)
{
	return db->dir;
}

struct moddb_module *moddb_module(struct moddb *db, size_t i)
{
	return &db->mods[i];
}

ssize_t moddb_find(const struct moddb *db, const char *name)
{
	char *norm = strdup(name);
	size_t lo = 0, hi = db->nmods;
	ssize_t found = -ENOENT;

	if (!norm)
		return -ENOMEM;
	moddb_normalize(norm);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(norm, db->mods[db->by_name[mid]].name);

		if (!c) {
			found = (ssize_t)db->by_name[mid];
			break;
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	free(norm);
	return found;
}

bool moddb_is_builtin(const struct moddb *db, const char *name)
{
	char *norm = strdup(name);
	bool found;

	if (!norm)
		return false;
	moddb_normalize(norm);
	found = db->nbuiltin && bsearch(&norm, db->builtin, db->nbuiltin, sizeof(char *),
			moddb_cmp_str) != NULL;
	free(norm);
	return found;
}

bool moddb_alias_matches(const struct moddb_alias *a, const char *norm)
{
	return a->glob ? !fnmatch(a->norm, norm, 0) : !strcmp(a->norm, norm);
}

int moddb_resolve_alias(struct moddb *db, const char *name,
			int (*fn)(void *ctx, size_t mod), void *ctx)
{
	char *norm = strdup(name);
	size_t i;
	int count = 0, err = 0;

	if (!norm)
		return -ENOMEM;
	moddb_normalize(norm);
	for (i = 0; !err && i < db->naliases; i++) {
		const struct moddb_alias *a = &db->aliases[i];

		if (a->mod == SIZE_MAX || !moddb_alias_matches(a, norm))
			continue;
		count++;
		if (fn)
			err = fn(ctx, a->mod);
	}
	free(norm);
	return err ? err : count;
}

bool moddb_alias_is_builtin(const struct moddb *db, const char *name)
{
	char *norm = strdup(name);
	bool found = false;
	size_t i;

	if (!norm)
		return false;
	moddb_normalize(norm);
	for (i = 0; !found && i < db->nbaliases; i++)
		found = moddb_alias_matches(&db->baliases[i], norm);
	free(norm);
	return found;
}

size_t moddb_softdeps(const struct moddb *db, size_t i, const char ***names)
{
	*names = db->soft_names[i];
	return db->soft_count[i];
}
