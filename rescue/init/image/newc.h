/* SPDX-License-Identifier: GPL-2.0 */
/* newc.h: the entries of a cpio newc archive in memory (newc.c). */
#ifndef RESCUE_NEWC_H
#define RESCUE_NEWC_H

#include <stddef.h>
#include <sys/types.h>

struct newc_entry {
	const char *name;	/* NUL-terminated, inside the archive */
	mode_t mode;
	const char *data;	/* a file's contents, a symlink's target */
	size_t size;		/* (not NUL-terminated) */
};

/*
 * The entry at *OFF of the archive BUF of LEN bytes, *OFF moved past it:
 * 1, or 0 at the trailer, or -EINVAL for a damaged archive (a bad magic
 * or number, a name or data beyond LEN, a name that is not a plain
 * relative path: absolute, empty, or with a ".." component).
 */
int newc_next(const char *buf, size_t len, size_t *off, struct newc_entry *e);

#endif
