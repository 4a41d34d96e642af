// SPDX-License-Identifier: GPL-2.0
/*
 * modindex.c: the one reader of depmod's text files, for rescue-init
 * and mkrescue, so that a module mkrescue ships is one rescue-init
 * finds.  libc only, no libkmod: rescue-init links statically and
 * Debian ships libkmod only as a shared object.
 *
 * kmod itself reads the .bin indexes, which depmod writes from the
 * same data as the text files; the rules below are kmod's, each from
 * the kmod function named (kmod-project/kmod, libkmod/ and shared/):
 *
 * - Lines end at '\n'; ' ', '\t', '\r', '\f' and '\v' are blanks, so a
 *   CRLF line is the same line: kmod_config_add_softdep() splits at
 *   isspace().  Lines whose first word starts with '#' are comments.
 * - modules.dep: a line without a ':' says nothing and is skipped, as
 *   kmod_module_parse_depline() returns on it; dependencies are split
 *   at blanks (its strtok_r(" \t")).  A dependency is the module of
 *   that name whose line has that same path (kmod_module_new_from_path()
 *   refuses a second path for a name); another is "missing".
 * - A module's name is its path's basename, '-' made '_', cut at the
 *   first '.' (path_to_modname(), modname_normalize()).
 * - modules.alias and a name looked up: '-' is '_' outside of [...],
 *   and a pattern with an unmatched bracket matches nothing
 *   (alias_normalize(), as depmod's output_aliases_bin() writes the
 *   patterns); then fnmatch(pattern, name, 0) (index_searchwild()).
 * - modules.softdep: "softdep MODULE ...", MODULE with underscores(),
 *   words before the first "pre:" or "post:" ignored
 *   (kmod_config_parse(), kmod_config_add_softdep()).
 * - modules.builtin: a line that does not start with a letter is
 *   skipped (depmod's output_builtin_bin()), then path_to_modname().
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modindex.h"
#include "readfile.h"

#define BLANKS		" \t\r\f\v"
#define NAME_MAX_LEN	4096
/* Index files are a few MB at most. */
#define INDEX_MAX	(256u << 20)

const char *const modindex_files[MODINDEX_FILES] = {
	[MODINDEX_DEP] = "modules.dep",
	[MODINDEX_ALIAS] = "modules.alias",
	[MODINDEX_SOFTDEP] = "modules.softdep",
	[MODINDEX_BUILTIN] = "modules.builtin",
	[MODINDEX_BUILTIN_ALIAS] = "modules.builtin.alias",
};

void modindex_name(const char *path, char *name, size_t size)
{
	const char *base = strrchr(path, '/');
	size_t i;

	if (!size)
		return;
	base = base ? base + 1 : path;
	for (i = 0; base[i] && base[i] != '.' && i + 1 < size; i++)
		name[i] = base[i] == '-' ? '_' : base[i];
	name[i] = '\0';
}

bool modindex_normalize_alias(const char *alias, char *out, size_t size)
{
	size_t i;
	bool in_class = false;

	if (!size)
		return false;
	for (i = 0; alias[i] && i + 1 < size; i++) {
		char c = alias[i];

		if (c == '[' && !in_class)
			in_class = true;
		else if (c == ']' && in_class)
			in_class = false;
		else if (c == ']')
			return false;
		else if (c == '-' && !in_class)
			c = '_';
		out[i] = c;
	}
	out[i] = '\0';
	return !in_class;
}

/* Its own allocation, the size of the name: thousands of them. */
static char *name_of(const char *path)
{
	char name[NAME_MAX_LEN];

	modindex_name(path, name, sizeof(name));
	return strdup(name);
}

/* The next line of *P, NUL-terminated and without leading blanks. */
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
	return line + strspn(line, BLANKS);
}

static char *trim_end(char *s)
{
	char *e = s + strlen(s);

	while (e > s && strchr(BLANKS, e[-1]))
		*--e = '\0';
	return s;
}

/* Splits LINE at blanks in place; the number of words, at most MAX. */
static size_t split(char *line, char **words, size_t max)
{
	char *save, *w;
	size_t n = 0;

	for (w = strtok_r(line, BLANKS, &save); w && n < max;
	     w = strtok_r(NULL, BLANKS, &save))
		words[n++] = w;
	return n;
}

static size_t count_words(const char *s)
{
	size_t n = 0;

	while (*(s += strspn(s, BLANKS))) {
		n++;
		s += strcspn(s, BLANKS);
	}
	return n;
}

/*
 * Room for one more element of SIZE bytes in *ARRAY holding COUNT: 64
 * at first, then doubled whenever COUNT reaches a power of two.
 */
static int grow(void *array, size_t count, size_t size)
{
	void **a = array, *n;

	if (*a && (count < 64 || (count & (count - 1)) != 0))
		return 0;
	n = realloc(*a, (count < 64 ? 64 : count * 2) * size);
	if (!n)
		return -ENOMEM;
	*a = n;
	return 0;
}

static const struct modindex *sort_ix;

static int by_name(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int c = strcmp(sort_ix->mods[i].name, sort_ix->mods[j].name);

	return c ? c : (i > j) - (i < j);	/* the first line first */
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Index of the first module called NORM, or -1. */
static ssize_t find_norm(const struct modindex *ix, const char *norm)
{
	size_t lo = 0, hi = ix->nmods;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(ix->mods[ix->by_name[mid]].name, norm) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < ix->nmods && !strcmp(ix->mods[ix->by_name[lo]].name, norm))
		return (ssize_t)ix->by_name[lo];
	return -1;
}

ssize_t modindex_find(const struct modindex *ix, const char *name)
{
	char norm[NAME_MAX_LEN];

	if (!ix->nmods || !modindex_normalize_alias(name, norm, sizeof(norm)))
		return -1;
	return find_norm(ix, norm);
}

/* Turns each module's dependency paths into module indexes. */
static int link_deps(struct modindex *ix)
{
	char name[NAME_MAX_LEN];
	size_t i, j;

	for (i = 0; i < ix->nmods; i++) {
		struct module *m = &ix->mods[i];
		size_t n = count_words(m->dep_text);
		char **w = malloc((n + 1) * sizeof(*w));
		ssize_t k;

		if (!w)
			return -ENOMEM;
		n = split(m->dep_text, w, n);
		for (j = 0; j < n; j++) {
			modindex_name(w[j], name, sizeof(name));
			k = find_norm(ix, name);
			if (k < 0 || strcmp(ix->mods[k].path, w[j])) {
				if (!m->missing)
					m->missing = w[j];
				continue;
			}
			m->deps[m->ndeps++] = (size_t)k;
		}
		free(w);
	}
	return 0;
}

static int parse_dep(struct modindex *ix, char *buf)
{
	char *line, *colon;
	struct module *m;
	size_t i;
	int err = 0;

	if (ix->by_name)	/* once: the other files refer to its modules */
		return -EINVAL;
	while (!err && (line = next_line(&buf))) {
		colon = strchr(line, ':');
		if (*line == '#' || !colon)
			continue;
		*colon = '\0';
		trim_end(line);
		if (grow(&ix->mods, ix->nmods, sizeof(*ix->mods))) {
			err = -ENOMEM;
			break;
		}
		m = &ix->mods[ix->nmods];
		*m = (struct module){ .path = line, .dep_text = colon + 1 };
		m->name = name_of(line);
		m->deps = malloc((count_words(colon + 1) + 1) * sizeof(size_t));
		if (!m->name || !m->deps) {
			free(m->name);
			free(m->deps);
			err = -ENOMEM;
		} else if (!*m->name) {		/* ".ko:" names nothing */
			free(m->name);
			free(m->deps);
		} else {
			ix->nmods++;
		}
	}
	free(ix->by_name);
	ix->by_name = malloc((ix->nmods + 1) * sizeof(size_t));
	if (!err && !ix->by_name)
		err = -ENOMEM;
	if (!err) {
		for (i = 0; i < ix->nmods; i++)
			ix->by_name[i] = i;
		sort_ix = ix;
		if (ix->nmods > 1)
			qsort(ix->by_name, ix->nmods, sizeof(size_t), by_name);
		err = link_deps(ix);
	}
	return err;
}

/*
 * rescue-init parses this at every boot with modules, tens of thousands
 * of lines on a distribution kernel: a pattern that normalizes to itself
 * (most: '-' is rare outside fs- and crypto- names) is not copied, and
 * depmod writes a module's aliases one after the other, so the module
 * of the line before is tried before a search.
 */
static int parse_alias(struct modindex *ix, char *buf, struct modalias **array,
		       size_t *count)
{
	char *line, *w[3], norm[NAME_MAX_LEN];
	const char *last_module = NULL;
	size_t last_mod = SIZE_MAX;
	struct modalias *a;
	ssize_t k;

	while ((line = next_line(&buf))) {
		if (split(line, w, 3) < 3 || strcmp(w[0], "alias"))
			continue;
		if (grow(array, *count, sizeof(**array)))
			return -ENOMEM;
		a = &(*array)[(*count)++];
		*a = (struct modalias){ .pattern = w[1], .module = w[2],
					.mod = SIZE_MAX };
		if (modindex_normalize_alias(w[1], norm, sizeof(norm))) {
			a->norm = strcmp(norm, w[1]) ? strdup(norm) : w[1];
			if (!a->norm)
				return -ENOMEM;
			a->literal = strcspn(a->norm, "*?[\\");
		}
		if (array != &ix->aliases)
			continue;
		if (!last_module || strcmp(last_module, w[2])) {
			k = modindex_find(ix, w[2]);
			last_module = w[2];
			last_mod = k >= 0 ? (size_t)k : SIZE_MAX;
		}
		a->mod = last_mod;
	}
	return 0;
}

/* A norm of its own, not the pattern's text in the file (parse_alias()). */
static void free_norm(struct modalias *a)
{
	if (a->norm != a->pattern)
		free(a->norm);
}

static int parse_softdep(struct modindex *ix, char *buf)
{
	char *line, **w;
	const char ***list;
	struct modsoftdep *s;
	size_t n, i;
	ssize_t mod;

	while ((line = next_line(&buf))) {
		n = count_words(line);
		if (n < 2)
			continue;
		w = malloc(n * sizeof(*w));
		if (!w)
			return -ENOMEM;
		n = split(line, w, n);
		if (n < 2) {
			free(w);
			continue;
		}
		mod = strcmp(w[0], "softdep") ? -1 : modindex_find(ix, w[1]);
		if (mod < 0 || grow(&ix->softdeps, ix->nsoftdeps, sizeof(*s))) {
			free(w);
			if (mod < 0)
				continue;	/* not a module of this kernel */
			return -ENOMEM;
		}
		s = &ix->softdeps[ix->nsoftdeps++];
		*s = (struct modsoftdep){ .mod = (size_t)mod };
		s->pre = calloc(n, sizeof(*s->pre));
		s->post = calloc(n, sizeof(*s->post));
		if (!s->pre || !s->post) {
			free(w);
			return -ENOMEM;
		}
		list = NULL;
		for (i = 2; i < n; i++) {
			if (!strcmp(w[i], "pre:"))
				list = &s->pre;
			else if (!strcmp(w[i], "post:"))
				list = &s->post;
			else if (list == &s->pre)
				s->pre[s->npre++] = w[i];
			else if (list)
				s->post[s->npost++] = w[i];
		}
		free(w);
	}
	return 0;
}

static int parse_builtin(struct modindex *ix, char *buf)
{
	char *line;

	while ((line = next_line(&buf))) {
		if (!isalpha((unsigned char)*line))
			continue;
		if (grow(&ix->builtin, ix->nbuiltin, sizeof(char *)) ||
		    !(ix->builtin[ix->nbuiltin] = name_of(trim_end(line))))
			return -ENOMEM;
		ix->nbuiltin++;
	}
	if (ix->nbuiltin > 1)
		qsort(ix->builtin, ix->nbuiltin, sizeof(char *), by_string);
	return 0;
}

int modindex_parse(struct modindex *ix, enum modindex_file which, char *buf)
{
	switch (which) {
	case MODINDEX_DEP:
		return parse_dep(ix, buf);
	case MODINDEX_ALIAS:
		return parse_alias(ix, buf, &ix->aliases, &ix->naliases);
	case MODINDEX_SOFTDEP:
		return parse_softdep(ix, buf);
	case MODINDEX_BUILTIN:
		return parse_builtin(ix, buf);
	case MODINDEX_BUILTIN_ALIAS:
		return parse_alias(ix, buf, &ix->baliases, &ix->nbaliases);
	default:
		return -EINVAL;
	}
}

int modindex_read(struct modindex *ix, const char *dir, unsigned need,
		  const char **failed)
{
	char path[NAME_MAX_LEN];
	int err = 0;
	size_t i;

	for (i = 0; !err && i < MODINDEX_FILES; i++) {
		*failed = modindex_files[i];
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir,
				     modindex_files[i]) >= sizeof(path))
			return -ENAMETOOLONG;
		err = readfile_alloc(path, INDEX_MAX, &ix->files[i], NULL);
		if (err == -ENOENT && !(need & (1u << i))) {
			err = 0;
			continue;
		}
		if (!err)
			err = modindex_parse(ix, i, ix->files[i]);
	}
	return err;
}

bool modindex_is_builtin(const struct modindex *ix, const char *name)
{
	char norm[NAME_MAX_LEN], *key = norm;

	return ix->nbuiltin && modindex_normalize_alias(name, norm, sizeof(norm)) &&
	       bsearch(&key, ix->builtin, ix->nbuiltin, sizeof(char *), by_string);
}

bool modindex_alias_matches(const struct modalias *a, const char *norm)
{
	return a->norm && !strncmp(a->norm, norm, a->literal) &&
	       !fnmatch(a->norm, norm, 0);
}

bool modindex_alias_is_builtin(const struct modindex *ix, const char *name)
{
	char norm[NAME_MAX_LEN];
	size_t i;

	if (!modindex_normalize_alias(name, norm, sizeof(norm)))
		return false;
	for (i = 0; i < ix->nbaliases; i++)
		if (modindex_alias_matches(&ix->baliases[i], norm))
			return true;
	return false;
}

int modindex_resolve(const struct modindex *ix, const char *name,
		     int (*fn)(void *ctx, size_t mod), void *ctx)
{
	char norm[NAME_MAX_LEN];
	int n = 0, err;
	size_t i;

	if (!modindex_normalize_alias(name, norm, sizeof(norm)))
		return 0;
	for (i = 0; i < ix->naliases; i++) {
		const struct modalias *a = &ix->aliases[i];

		if (!modindex_alias_matches(a, norm))
			continue;
		n++;
		if (fn && a->mod != SIZE_MAX && (err = fn(ctx, a->mod)) < 0)
			return err;
	}
	return n;
}

void modindex_free(struct modindex *ix)
{
	size_t i;

	for (i = 0; i < ix->nmods; i++) {
		free(ix->mods[i].name);
		free(ix->mods[i].deps);
	}
	for (i = 0; i < ix->naliases; i++)
		free_norm(&ix->aliases[i]);
	for (i = 0; i < ix->nbaliases; i++)
		free_norm(&ix->baliases[i]);
	for (i = 0; i < ix->nsoftdeps; i++) {
		free(ix->softdeps[i].pre);
		free(ix->softdeps[i].post);
	}
	for (i = 0; i < ix->nbuiltin; i++)
		free(ix->builtin[i]);
	for (i = 0; i < MODINDEX_FILES; i++)
		free(ix->files[i]);
	free(ix->mods);
	free(ix->by_name);
	free(ix->aliases);
	free(ix->baliases);
	free(ix->softdeps);
	free(ix->builtin);
	memset(ix, 0, sizeof(*ix));
}
