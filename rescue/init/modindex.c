// SPDX-License-Identifier: GPL-2.0
/* modindex.c: modules.dep/alias/softdep/builtin parsed, and load order. */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rescue-init.h"

#define SOFTDEP_DEPTH_MAX	16

/* "kernel/drivers/block/virtio_blk.ko.xz" -> "virtio_blk" */
void modindex_name(const char *path, char *name, size_t size)
{
	const char *base = strrchr(path, '/');
	size_t i;

	base = base ? base + 1 : path;
	for (i = 0; base[i] && i + 1 < size; i++) {
		if (!strncmp(base + i, ".ko", 3) &&
		    (base[i + 3] == '\0' || base[i + 3] == '.'))
			break;
		name[i] = base[i] == '-' ? '_' : base[i];
	}
	name[i] = '\0';
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct module *)a)->name,
		      ((const struct module *)b)->name);
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *next_line(char **p)
{
	char *line = *p, *nl;

	if (!line || !*line)
		return NULL;
	nl = strchr(line, '\n');
	if (nl) {
		*nl = '\0';
		*p = nl + 1;
	} else {
		*p = line + strlen(line);
	}
	return line;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

/* modules.dep: "path: dep dep ..." per line.  buf must outlive ix. */
int modindex_parse_dep(struct modindex *ix, char *buf)
{
	char name[256], *line, *colon;
	size_t cap = ix->nmods;
	struct module *m;

	while ((line = next_line(&buf))) {
		line = trim(line);
		colon = strchr(line, ':');
		if (!*line || *line == '#' || !colon || colon == line)
			continue;
		*colon = '\0';
		modindex_name(line, name, sizeof(name));
		if (!*name)
			continue;
		if (ix->nmods == cap) {
			cap = cap ? cap * 2 : 256;
			m = realloc(ix->mods, cap * sizeof(*m));
			if (!m)
				return -ENOMEM;
			ix->mods = m;
		}
		m = &ix->mods[ix->nmods];
		memset(m, 0, sizeof(*m));
		m->name = strdup(name);
		if (!m->name)
			return -ENOMEM;
		m->path = line;
		m->deps = trim(colon + 1);
		ix->nmods++;
	}
	if (ix->nmods > 1)
		qsort(ix->mods, ix->nmods, sizeof(*ix->mods), by_name);
	return 0;
}

ssize_t modindex_find(const struct modindex *ix, const char *name)
{
	struct module key = { .name = (char *)name };
	char norm[256];
	const struct module *m;
	size_t i;

	for (i = 0; name[i] && i + 1 < sizeof(norm); i++)
		norm[i] = name[i] == '-' ? '_' : name[i];
	norm[i] = '\0';
	key.name = norm;
	if (!ix->nmods)
		return -1;
	m = bsearch(&key, ix->mods, ix->nmods, sizeof(*m), by_name);
	return m ? m - ix->mods : -1;
}

/* modules.alias: "alias PATTERN MODULE" per line. */
int modindex_parse_alias(struct modindex *ix, char *buf)
{
	char *line, *pattern, *module, *save;
	size_t cap = ix->naliases;
	struct modalias *a;

	while ((line = next_line(&buf))) {
		if (strncmp(line, "alias", 5) || (line[5] != ' ' && line[5] != '\t'))
			continue;
		pattern = strtok_r(line + 5, " \t", &save);
		module = strtok_r(NULL, " \t\r", &save);
		if (!pattern || !module)
			continue;
		if (ix->naliases == cap) {
			cap = cap ? cap * 2 : 1024;
			a = realloc(ix->aliases, cap * sizeof(*a));
			if (!a)
				return -ENOMEM;
			ix->aliases = a;
		}
		a = &ix->aliases[ix->naliases++];
		a->pattern = pattern;
		a->module = module;
		a->literal = strcspn(pattern, "*?[\\");
	}
	return 0;
}

static int append(char **list, const char *word)
{
	size_t old = *list ? strlen(*list) : 0, len = strlen(word);
	char *s = realloc(*list, old + len + 2);

	if (!s)
		return -ENOMEM;
	if (old)
		s[old++] = ' ';
	memcpy(s + old, word, len + 1);
	*list = s;
	return 0;
}

/* modules.softdep: "softdep MODULE pre: A B post: C" per line. */
int modindex_parse_softdep(struct modindex *ix, char *buf)
{
	enum { NONE, PRE, POST } mode;
	char *line, *word, *save;
	struct module *m;
	ssize_t i;
	int err;

	while ((line = next_line(&buf))) {
		if (strncmp(line, "softdep", 7) ||
		    (line[7] != ' ' && line[7] != '\t'))
			continue;
		word = strtok_r(line + 7, " \t\r", &save);
		if (!word || (i = modindex_find(ix, word)) < 0)
			continue;
		m = &ix->mods[i];
		mode = NONE;	/* as kmod: words before pre:/post: are ignored */
		while ((word = strtok_r(NULL, " \t\r", &save))) {
			if (!strcmp(word, "pre:"))
				mode = PRE;
			else if (!strcmp(word, "post:"))
				mode = POST;
			else if (mode != NONE &&
				 (err = append(mode == PRE ? &m->pre : &m->post,
					       word)))
				return err;
		}
	}
	return 0;
}

/* modules.builtin: one path per line. */
int modindex_parse_builtin(struct modindex *ix, char *buf)
{
	char name[256], *line, **b;
	size_t cap = ix->nbuiltin;

	while ((line = next_line(&buf))) {
		line = trim(line);
		if (!*line || *line == '#')
			continue;
		modindex_name(line, name, sizeof(name));
		if (ix->nbuiltin == cap) {
			cap = cap ? cap * 2 : 256;
			b = realloc(ix->builtin, cap * sizeof(*b));
			if (!b)
				return -ENOMEM;
			ix->builtin = b;
		}
		if (!(ix->builtin[ix->nbuiltin] = strdup(name)))
			return -ENOMEM;
		ix->nbuiltin++;
	}
	if (ix->nbuiltin > 1)
		qsort(ix->builtin, ix->nbuiltin, sizeof(*ix->builtin), by_string);
	return 0;
}

bool modindex_is_builtin(const struct modindex *ix, const char *name)
{
	char norm[256], *key = norm;
	size_t i;

	for (i = 0; name[i] && i + 1 < sizeof(norm); i++)
		norm[i] = name[i] == '-' ? '_' : name[i];
	norm[i] = '\0';
	return ix->nbuiltin && bsearch(&key, ix->builtin, ix->nbuiltin,
				       sizeof(*ix->builtin), by_string);
}

static int load_name(struct modindex *ix, const char *name, modindex_load_fn *fn,
		     void *ctx, const char *reason, int depth);

static int load_list(struct modindex *ix, const char *list, modindex_load_fn *fn,
		     void *ctx, const char *reason, int depth)
{
	char word[512];
	int n = 0, r;
	size_t len;

	while (list && *list) {
		list += strspn(list, " \t");
		len = strcspn(list, " \t");
		if (len == 0)
			break;
		if (len < sizeof(word)) {
			memcpy(word, list, len);
			word[len] = '\0';
			r = load_name(ix, word, fn, ctx, reason, depth + 1);
			if (r > 0)
				n += r;
		}
		list += len;
	}
	return n;
}

/* One module: its softdep pre:, its dependencies, itself, its post:. */
static int load_module(struct modindex *ix, size_t i, modindex_load_fn *fn,
		       void *ctx, const char *reason, int depth)
{
	char name[256], path[512];
	const char *deps;
	struct module *m = &ix->mods[i];
	int n = 0, err;
	ssize_t j;
	size_t len;

	if (m->state != MOD_NEW)
		return 0;
	if (modindex_is_builtin(ix, m->name)) {
		m->state = MOD_BUILTIN;
		return 0;
	}
	m->state = MOD_LOADING;		/* a cycle stops here */
	n += load_list(ix, m->pre, fn, ctx, reason, depth);
	for (deps = ix->mods[i].deps; deps && *deps; deps += len) {
		deps += strspn(deps, " \t");
		len = strcspn(deps, " \t");
		if (len == 0 || len >= sizeof(path))
			break;
		memcpy(path, deps, len);
		path[len] = '\0';
		modindex_name(path, name, sizeof(name));
		j = modindex_find(ix, name);
		if (j >= 0)
			n += load_module(ix, (size_t)j, fn, ctx, reason, depth);
	}
	m = &ix->mods[i];
	err = fn(ctx, m, reason);
	m->state = err ? MOD_FAILED : MOD_LOADED;
	if (!err)
		n++;
	n += load_list(ix, m->post, fn, ctx, reason, depth);
	return n;
}

static int load_name(struct modindex *ix, const char *name, modindex_load_fn *fn,
		     void *ctx, const char *reason, int depth)
{
	bool any = false;
	ssize_t i;
	size_t a;
	int n = 0;

	if (depth > SOFTDEP_DEPTH_MAX)
		return 0;
	i = modindex_find(ix, name);
	if (i >= 0)
		return load_module(ix, (size_t)i, fn, ctx, reason, depth);
	if (modindex_is_builtin(ix, name))
		return 0;
	for (a = 0; a < ix->naliases; a++) {
		const struct modalias *al = &ix->aliases[a];

		if (strncmp(al->pattern, name, al->literal) ||
		    fnmatch(al->pattern, name, 0))
			continue;
		any = true;
		i = modindex_find(ix, al->module);
		if (i >= 0)
			n += load_module(ix, (size_t)i, fn, ctx, reason, depth);
	}
	return any || modindex_is_builtin(ix, name) ? n : -ENOENT;
}

/*
 * Load what a module name or an alias (a modalias, "fs-ext4", a softdep
 * such as "crypto-crc32c") stands for: every matching module, each
 * after its dependencies and pre: softdeps, each at most once, builtin
 * modules skipped.  fn does the loading.  Returns the number of modules
 * fn loaded, or -ENOENT when nothing matches.
 */
int modindex_load(struct modindex *ix, const char *name_or_alias,
		  modindex_load_fn *fn, void *ctx)
{
	return load_name(ix, name_or_alias, fn, ctx, name_or_alias, 0);
}

void modindex_free(struct modindex *ix)
{
	size_t i;

	for (i = 0; i < ix->nmods; i++) {
		free(ix->mods[i].name);
		free(ix->mods[i].pre);
		free(ix->mods[i].post);
	}
	for (i = 0; i < ix->nbuiltin; i++)
		free(ix->builtin[i]);
	free(ix->mods);
	free(ix->aliases);
	free(ix->builtin);
	memset(ix, 0, sizeof(*ix));
}
