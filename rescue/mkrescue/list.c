// SPDX-License-Identifier: GPL-2.0
/* list.c: the image's entries, sorted by path and numbered. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mkrescue.h"

/*
 * Entries are appended as the parts of the image are gathered, each with
 * the implicit directories above it.  list_finish() sorts them by path
 * (a parent sorts before its children: it is a prefix of theirs), keeps
 * one entry per path, and numbers the inodes in that order, so that the
 * archive depends only on what was added, never on the host's inodes.
 */

/* Strips the leading '/', folds "//", refuses "." and ".." components. */
static int list_norm_path(const char *in, char **out)
{
	size_t len = strlen(in), i = 0, o = 0;
	char *p = malloc(len + 1);

	if (!p)
		return -ENOMEM;
	while (i < len) {
		size_t start;

		while (in[i] == '/')
			i++;
		if (!in[i])
			break;
		start = i;
		while (in[i] && in[i] != '/')
			i++;
		if ((i - start == 1 && in[start] == '.') ||
		    (i - start == 2 && in[start] == '.' && in[start + 1] == '.')) {
			free(p);
			return -EINVAL;
		}
		if (o)
			p[o++] = '/';
		memcpy(p + o, in + start, i - start);
		o += i - start;
	}
	p[o] = '\0';
	if (!o) {
		free(p);
		return -EINVAL;
	}
	*out = p;
	return 0;
}

/* NOLINTBEGIN(clang-analyzer-unix.Malloc): see list_dedup */
static void list_entry_free(struct list_entry *e)
{
	free(e->path);
	free(e->source);
	free(e->data);
	free(e->why);
}
/* NOLINTEND(clang-analyzer-unix.Malloc) */

static int list_push(struct list *l, struct list_entry *e)
{
	if (l->count == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 512;
		struct list_entry *n = realloc(l->entries, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		l->entries = n;
		l->cap = cap;
	}
	e->seq = l->count;
	l->entries[l->count++] = *e;
	return 0;
}

/* The directories above PATH, as weak entries any explicit one overrides. */
static int list_add_parents(struct list *l, const char *path)
{
	const char *slash;

	for (slash = strchr(path, '/'); slash; slash = strchr(slash + 1, '/')) {
		struct list_entry e = { .mode = S_IFDIR | 0755, .rank = LIST_WEAK };
		int err;

		e.path = strndup(path, (size_t)(slash - path));
		e.why = strdup("parent directory");
		if (!e.path || !e.why) {
			list_entry_free(&e);
			return -ENOMEM;
		}
		err = list_push(l, &e);
		if (err) {
			list_entry_free(&e);
			return err;
		}
	}
	return 0;
}

/* Takes the strings of E (path not yet normalized) and adds it. */
static int list_add(struct list *l, struct list_entry *e, const char *path,
		    const char *why)
{
	int err;

	err = list_norm_path(path, &e->path);
	if (err) {
		if (err == -EINVAL)
			msg_error("unable to add '%s' (%s): not a valid path in the image",
				  path, why);
		goto fail;
	}
	e->why = strdup(why);
	if (!e->why) {
		err = -ENOMEM;
		goto fail;
	}
	err = list_add_parents(l, e->path);
	if (!err)
		err = list_push(l, e);
	if (!err)
		return 0;
fail:
	if (err == -ENOMEM)
		msg_error("unable to add %s: out of memory", path);
	list_entry_free(e);
	return err;
}

int list_add_dir(struct list *l, const char *path, mode_t perm,
		 enum list_rank rank, const char *why)
{
	struct list_entry e = { .mode = S_IFDIR | perm, .rank = rank };

	return list_add(l, &e, path, why);
}

int list_add_file(struct list *l, const char *path, mode_t perm,
		  const char *source, uint64_t size, enum list_rank rank,
		  const char *why)
{
	struct list_entry e = { .mode = S_IFREG | perm, .size = size, .rank = rank };

	e.source = strdup(source);
	if (!e.source) {
		msg_error("unable to add %s: out of memory", path);
		return -ENOMEM;
	}
	return list_add(l, &e, path, why);
}

int list_add_data(struct list *l, const char *path, mode_t perm,
		  const void *data, size_t len, enum list_rank rank,
		  const char *why)
{
	struct list_entry e = { .mode = S_IFREG | perm, .size = len, .rank = rank };

	e.data = malloc(len + 1);
	if (!e.data) {
		msg_error("unable to add %s: out of memory", path);
		return -ENOMEM;
	}
	memcpy(e.data, data, len);
	e.data[len] = '\0';
	return list_add(l, &e, path, why);
}

int list_add_symlink(struct list *l, const char *path, const char *target,
		     enum list_rank rank, const char *why)
{
	struct list_entry e = { .mode = S_IFLNK | 0777, .rank = rank };

	e.data = strdup(target);
	if (!e.data) {
		msg_error("unable to add %s: out of memory", path);
		return -ENOMEM;
	}
	e.size = strlen(target);
	return list_add(l, &e, path, why);
}

int list_add_chardev(struct list *l, const char *path, mode_t perm,
		     unsigned int major, unsigned int minor,
		     enum list_rank rank, const char *why)
{
	struct list_entry e = {
		.mode = S_IFCHR | perm, .rdev_major = major,
		.rdev_minor = minor, .rank = rank,
	};

	return list_add(l, &e, path, why);
}

static int list_cmp(const void *a, const void *b)
{
	const struct list_entry *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	if (c)
		return c;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Two entries for one path: two directories merge (the higher rank keeps
 * its mode); a directory beats a weak non-directory (an applet link) and
 * conflicts with any other; otherwise the higher rank wins, and two of
 * mkrescue's own rank conflict.
 * Returns 0 to keep WIN, 1 to keep E, -EEXIST on a conflict.
 */
static int list_pick(const struct list_entry *win, const struct list_entry *e)
{
	bool win_dir = S_ISDIR(win->mode), e_dir = S_ISDIR(e->mode);

	if (win_dir && e_dir)
		return e->rank > win->rank;
	if (win_dir != e_dir) {
		const struct list_entry *other = win_dir ? e : win;

		if (other->rank == LIST_WEAK)
			return !win_dir;
		return -EEXIST;
	}
	if (e->rank != win->rank)
		return e->rank > win->rank;
	return e->rank == LIST_OWN ? -EEXIST : 1;
}

/*
 * The analyzer loses that out <= i, and so that WIN and E never alias,
 * and reports uses after free that cannot happen; ASan under the
 * include fuzzer and the mkrescue tests sees none.
 */
/* NOLINTBEGIN(clang-analyzer-unix.Malloc) */
static int list_dedup(struct list *l)
{
	size_t i, out = 0;

	for (i = 0; i < l->count; i++) {
		struct list_entry *e = &l->entries[i];
		struct list_entry *win = out ? &l->entries[out - 1] : NULL;
		int pick;

		if (!win || strcmp(win->path, e->path)) {
			l->entries[out++] = *e;
			continue;
		}
		pick = list_pick(win, e);
		if (pick < 0) {
			msg_error("unable to add /%s (%s): /%s is already in the image (%s)",
				  e->path, e->why, win->path, win->why);
			/* The rest are freed by list_free(). */
			memmove(&l->entries[out], &l->entries[i],
				(l->count - i) * sizeof(*e));
			l->count = out + l->count - i;
			return pick;
		}
		if (pick) {
			if (!S_ISDIR(win->mode) || win->rank != LIST_WEAK)
				msg_verbose("/%s (%s) replaces /%s (%s)",
					    e->path, e->why, win->path, win->why);
			list_entry_free(win);
			*win = *e;
		} else {
			list_entry_free(e);
		}
	}
	l->count = out;
	return 0;
}
/* NOLINTEND(clang-analyzer-unix.Malloc) */

const struct list_entry *list_find(const struct list *l, const char *path)
{
	struct list_entry key = { .path = (char *)path };
	size_t lo = 0, hi = l->count;

	/* The list is sorted by path, and each path is there once. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(key.path, l->entries[mid].path);

		if (!c)
			return &l->entries[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

int list_finish(struct list *l)
{
	size_t i;
	int err;

	if (l->count > 1)	/* qsort(NULL, 0) is undefined */
		qsort(l->entries, l->count, sizeof(*l->entries), list_cmp);
	err = list_dedup(l);
	if (err)
		return err;
	for (i = 0; i < l->count; i++) {
		struct list_entry *e = &l->entries[i];
		char *slash = strrchr(e->path, '/');

		if (slash) {
			const struct list_entry *parent;
			char *dir = strndup(e->path, (size_t)(slash - e->path));

			if (!dir) {
				msg_error("unable to sort the image: out of memory");
				return -ENOMEM;
			}
			parent = list_find(l, dir);
			if (!parent || !S_ISDIR(parent->mode)) {
				/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): see list_dedup */
				msg_error("unable to add /%s (%s): /%s is not a directory (%s)",
					  e->path, e->why, dir,
					  parent ? parent->why : "missing");
				free(dir);
				return -ENOTDIR;
			}
			free(dir);
		}
		e->ino = (unsigned int)i + 1;
	}
	return 0;
}

void list_free(struct list *l)
{
	size_t i;

	for (i = 0; i < l->count; i++)
		list_entry_free(&l->entries[i]);
	free(l->entries);
	l->entries = NULL;
	l->count = l->cap = 0;
}
