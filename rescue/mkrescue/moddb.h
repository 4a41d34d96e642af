/* SPDX-License-Identifier: GPL-2.0 */
/*
 * moddb.h: mkrescue's layer over the one parser of depmod's files
 * (rescue/lib/modindex.h, shared with rescue-init): what it ships, for
 * moddb.c and prune.c.
 */
#ifndef MKRESCUE_MODDB_H
#define MKRESCUE_MODDB_H

#include "mkrescue.h"
#include "modindex.h"

struct moddb {
	char *dir;
	struct modindex ix;
	struct moddb_module *mods;	/* as ix.mods, with shipped */
	const char ***soft_names;	/* per module: all its softdep names */
	size_t *soft_count;
};

#endif
