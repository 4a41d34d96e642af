/* SPDX-License-Identifier: GPL-2.0 */
/*
 * modindex.h: the text files depmod writes into /lib/modules/KVER
 * (modules.dep, .alias, .softdep, .builtin, .builtin.alias), read by
 * one parser with one set of rules for rescue-init (which loads from
 * them) and mkrescue (which ships and prunes from them).  See
 * modindex.c for the rules and the kmod function each follows.
 *
 * libc only, and no libkmod: rescue-init links statically, and Debian
 * ships libkmod as a shared object only.
 */
#ifndef RESCUE_MODINDEX_H
#define RESCUE_MODINDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* rescue-init's loader state of a module (modload.c). */
enum modstate { MOD_NEW, MOD_LOADING, MOD_LOADED, MOD_FAILED, MOD_BUILTIN };

struct module {
	char *name;		/* normalized: '-' is '_', up to the first '.' */
	char *path;		/* as in modules.dep, relative to its folder */
	size_t *deps;		/* indexes of its dependencies, in order */
	size_t ndeps;
	const char *missing;	/* first dependency without a line of its own */
	char *dep_text;		/* what follows the ':', split in place */
	enum modstate state;
};

struct modalias {
	const char *pattern;	/* as written */
	char *norm;		/* normalized (pattern itself if the same); NULL:
				 * unmatched bracket */
	const char *module;	/* as written */
	size_t mod;		/* index of module, or SIZE_MAX */
	size_t literal;		/* length of norm before any wildcard */
};

struct modsoftdep {
	size_t mod;		/* whose soft dependencies these are */
	const char **pre, **post;	/* names or aliases, as written */
	size_t npre, npost;
};

enum modindex_file {
	MODINDEX_DEP, MODINDEX_ALIAS, MODINDEX_SOFTDEP, MODINDEX_BUILTIN,
	MODINDEX_BUILTIN_ALIAS, MODINDEX_FILES
};

struct modindex {
	struct module *mods;	/* in modules.dep's order */
	size_t nmods;
	size_t *by_name;	/* indexes of mods, sorted by name */
	struct modalias *aliases, *baliases;	/* .alias, .builtin.alias */
	size_t naliases, nbaliases;
	struct modsoftdep *softdeps;	/* in modules.softdep's order */
	size_t nsoftdeps;
	char **builtin;		/* normalized names, sorted */
	size_t nbuiltin;
	char *files[MODINDEX_FILES];	/* what modindex_read() read */
};

/* The file names, in enum modindex_file's order: "modules.dep", ... */
extern const char *const modindex_files[MODINDEX_FILES];

/*
 * Read and parse the files of DIR.  A file of NEED (a mask of
 * 1 << MODINDEX_DEP, ...) must be there; a missing other one is empty.
 * 0, or -errno with the name of the failing file in *FAILED.
 */
int modindex_read(struct modindex *ix, const char *dir, unsigned need,
		  const char **failed);

/*
 * Parse one file's text, changed in place and kept: BUF must outlive
 * IX.  modules.dep first: the others refer to its modules.  0 or
 * -ENOMEM; lines that are not in depmod's format are skipped.
 */
int modindex_parse(struct modindex *ix, enum modindex_file which, char *buf);
void modindex_free(struct modindex *ix);

/* "kernel/fs/ext4/ext4.ko.xz" -> "ext4" into NAME of SIZE bytes. */
void modindex_name(const char *path, char *name, size_t size);
/* '-' to '_' outside of [...]; false on an unmatched bracket. */
bool modindex_normalize_alias(const char *alias, char *out, size_t size);

/* Index of the module NAME ('-' or '_'), or -1. */
ssize_t modindex_find(const struct modindex *ix, const char *name);
bool modindex_is_builtin(const struct modindex *ix, const char *name);
/* Does a modules.builtin.alias pattern match NAME? */
bool modindex_alias_is_builtin(const struct modindex *ix, const char *name);
/*
 * FN for each module of modules.dep a modules.alias pattern matching
 * NAME names, in modules.alias's order.  The number of matching
 * patterns (their module may be built in, or missing), or the first
 * error FN returns (< 0).
 */
int modindex_resolve(const struct modindex *ix, const char *name,
		     int (*fn)(void *ctx, size_t mod), void *ctx);
/* Does the modules.alias entry A match NAME (already normalized)? */
bool modindex_alias_matches(const struct modalias *a, const char *norm);

#endif
