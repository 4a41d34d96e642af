// SPDX-License-Identifier: GPL-2.0
/* include.c: --include SRC:DST, a file or a directory tree. */
#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mkrescue.h"

/*
 * Modes are normalized: 0755 if anyone may execute it, 0644 if not, less
 * what the source withholds from its group and others: a 0600 key file
 * stays 0600 in the image.
 */
static mode_t include_perm(mode_t mode)
{
	return ((mode & 0111) ? 0755 : 0644) & (mode | 0700);
}

/* Regular files are opened now, so that an unreadable one fails early. */
static int include_file(struct list *l, const char *src, const char *dst,
			const struct stat *st, const char *why)
{
	int fd = open(src, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		int err = -errno;

		msg_error("unable to include %s: %s", src, strerror(-err));
		return err;
	}
	close(fd);
	return list_add_file(l, dst, include_perm(st->st_mode), src,
			     (uint64_t)st->st_size, LIST_OWN, why);
}

static int include_symlink(struct list *l, const char *src, const char *dst,
			   const char *why)
{
	char target[PATH_MAX];
	ssize_t n = readlink(src, target, sizeof(target) - 1);

	if (n < 0) {
		int err = -errno;

		msg_error("unable to include %s: %s", src, strerror(-err));
		return err;
	}
	target[n] = '\0';
	return list_add_symlink(l, dst, target, LIST_OWN, why);
}

/* One entry of the tree at SRC, to go at DST + its path below SRC. */
static int include_tree_entry(struct list *l, FTSENT *ent, size_t rootlen,
			      const char *dst, const char *why)
{
	const char *rel = ent->fts_level ? ent->fts_path + rootlen : "";
	struct buf path = { 0 };
	int err;

	/* A tree included at "/" merges into the root: no entry for it. */
	if (!ent->fts_level && !dst[strspn(dst, "/")])
		return 0;
	err = buf_printf(&path, "%s/%s", dst, rel);
	if (err) {
		msg_error("unable to include %s: out of memory", ent->fts_path);
		return err;
	}
	switch (ent->fts_info) {
	case FTS_D:
		/* Weak: a tree merges into the image's directories. */
		err = list_add_dir(l, path.data,
				   0755 & (ent->fts_statp->st_mode | 0700),
				   LIST_WEAK, why);
		break;
	case FTS_DP:
		break;
	case FTS_F:
		err = include_file(l, ent->fts_path, path.data, ent->fts_statp, why);
		break;
	case FTS_SL:
	case FTS_SLNONE:
		err = include_symlink(l, ent->fts_path, path.data, why);
		break;
	case FTS_DNR:
	case FTS_ERR:
	case FTS_NS:
		err = -ent->fts_errno;
		msg_error("unable to include %s: %s", ent->fts_path, strerror(-err));
		break;
	case FTS_DC:
		err = -ELOOP;
		msg_error("unable to include %s: directory cycle", ent->fts_path);
		break;
	default:
		err = -EINVAL;
		msg_error("unable to include %s: not a file, directory or symlink",
			  ent->fts_path);
		break;
	}
	buf_free(&path);
	return err;
}

static int include_tree(struct list *l, const char *src, const char *dst,
			const char *why)
{
	char *const roots[] = { (char *)src, NULL };
	size_t rootlen = strlen(src);
	FTSENT *ent;
	FTS *fts;
	int err = 0;

	fts = fts_open(roots, FTS_PHYSICAL | FTS_COMFOLLOW | FTS_NOCHDIR, NULL);
	if (!fts) {
		err = -errno;
		msg_error("unable to include %s: %s", src, strerror(-err));
		return err;
	}
	while (!err && (ent = fts_read(fts)))
		err = include_tree_entry(l, ent, rootlen, dst, why);
	if (!err && errno && !ent) {
		/* fts_read() returns NULL with errno set on an error. */
		err = -errno;
		msg_error("unable to include %s: %s", src, strerror(-err));
	}
	fts_close(fts);
	return err;
}

int include_add(struct list *l, const char *spec)
{
	const char *colon = strchr(spec, ':');
	struct buf why = { 0 };
	struct stat st;
	char *src;
	int err;

	if (!colon || colon == spec || colon[1] != '/') {
		msg_error("unable to include '%s': expected SRC:DST with DST absolute",
			  spec);
		return -EINVAL;
	}
	/* Whatever it is, it may be a secret (rd.luks.key=): mkrescue
	 * cannot tell, so the image is private. */
	l->secret = true;
	src = strndup(spec, (size_t)(colon - spec));
	if (!src || buf_printf(&why, "--include %s", spec)) {
		free(src);
		msg_error("unable to include %s: out of memory", spec);
		return -ENOMEM;
	}
	if (stat(src, &st) < 0) {
		err = -errno;
		msg_error("unable to include %s: %s", src, strerror(-err));
	} else if (S_ISDIR(st.st_mode)) {
		errno = 0;
		err = include_tree(l, src, colon + 1, why.data);
	} else if (S_ISREG(st.st_mode)) {
		err = include_file(l, src, colon + 1, &st, why.data);
	} else {
		err = -EINVAL;
		msg_error("unable to include %s: not a file or directory", src);
	}
	free(src);
	buf_free(&why);
	return err;
}
