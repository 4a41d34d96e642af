/* SPDX-License-Identifier: GPL-2.0 */
/* mkrescue-moddb.h: the parsed index files, for mkrescue-moddb.c and -prune.c. */
#ifndef MKRESCUE_MODDB_H
#define MKRESCUE_MODDB_H

#include "mkrescue.h"

struct moddb_alias {
	const char *pattern;	/* as written */
	char *norm;		/* normalized, for matching */
	const char *modname;
	size_t mod;		/* index of modname, or SIZE_MAX */
	bool glob;
};

struct moddb_softdep {
	size_t mod;		/* whose soft dependencies these are */
	const char **pre, **post;
	size_t npre, npost;
};

struct moddb {
	char *dir;
	struct buf dep_file, alias_file, softdep_file, builtin_file, balias_file;
	struct moddb_module *mods;
	const char ***dep_paths;	/* per module, until linked */
	size_t nmods;
	size_t *by_name;	/* module indexes sorted by name */
	char **builtin;		/* normalized names, sorted */
	size_t nbuiltin;
	struct moddb_alias *aliases, *baliases;
	size_t naliases, nbaliases;
	struct moddb_softdep *softdeps;
	size_t nsoftdeps;
	const char ***soft_names;	/* per module: all its softdep names */
	size_t *soft_count;
};

/* '-' to '_', outside of [...] classes, in place. */
void moddb_normalize(char *s);
/* NORM is normalized. */
bool moddb_alias_matches(const struct moddb_alias *a, const char *norm);

#endif
