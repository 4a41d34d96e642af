// SPDX-License-Identifier: GPL-2.0
/* hostpath.c: a host file at its host path in the image, links and all. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mkrescue.h"

/*
 * A path such as /lib64/ld-linux-x86-64.so.2 or /sbin/lvm must resolve in
 * the image as it does on the host, so it is walked a component at a
 * time: each symbolic link on the way is shipped as it is (target kept
 * verbatim) and the walk goes on from its target; the file at the end
 * is shipped at its real path.
 *
 * One exception keeps the image coherent with a merged /usr: the host's
 * /bin, /sbin and /lib are links to usr/..., but the image keeps its own
 * /bin and /sbin (busybox) and /lib (lib/modules) as directories.  For
 * those the link goes one level down: /lib/x86_64-linux-gnu ->
 * ../usr/lib/x86_64-linux-gnu, /sbin/lvm -> ../usr/sbin/lvm.
 */
static const char *const hostpath_image_dirs[] = { "bin", "sbin", "lib" };

#define HOSTPATH_MAX_LINKS 40	/* as the kernel's ELOOP limit */

static bool hostpath_is_image_dir(const char *path)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(hostpath_image_dirs); i++) {
		if (!strcmp(path, hostpath_image_dirs[i]))
			return true;
	}
	return false;
}

/* True the first time PATH is seen: each path is added once. */
static int hostpath_first(struct hostpath *hp, const char *path)
{
	size_t i;
	int err;

	for (i = 0; i < hp->count; i++) {
		if (!strcmp(hp->added[i], path))
			return 0;
	}
	err = strv_push(&hp->added, &hp->count, path, strlen(path));
	return err ? err : 1;
}

void hostpath_free(struct hostpath *hp)
{
	strv_free(&hp->added, &hp->count);
}

static int hostpath_symlink(struct hostpath *hp, struct list *l,
			    const char *path, const char *target, const char *why)
{
	int first = hostpath_first(hp, path);

	if (first <= 0)
		return first;
	return list_add_symlink(l, path, target, LIST_OWN, why);
}

/* The file at host path PATH ("/usr/..."), at the same path in the image. */
static int hostpath_file(struct hostpath *hp, struct list *l, const char *path,
			 const struct stat *st, const char *why)
{
	int first = hostpath_first(hp, path + 1);

	if (first <= 0)
		return first;
	/* Modes normalized as --include does. */
	return list_add_file(l, path + 1, (st->st_mode & 0111) ? 0755 : 0644,
			     path, (uint64_t)st->st_size, LIST_OWN, why);
}

/*
 * Appends the components of REST to CUR (no links in it), "." dropped,
 * ".." taking one off CUR.  CUR is "" for the root.
 */
static int hostpath_join(struct buf *out, const char *cur, const char *rest)
{
	struct buf b = { 0 };
	int err = buf_append(&b, cur, strlen(cur));

	while (!err && *rest) {
		size_t len;

		rest += strspn(rest, "/");
		len = strcspn(rest, "/");
		if (!len)
			break;
		if (len == 1 && rest[0] == '.') {
			/* nothing */
		} else if (len == 2 && !strncmp(rest, "..", 2)) {
			char *slash = strrchr(b.data, '/');

			b.len = slash ? (size_t)(slash - b.data) : 0;
			b.data[b.len] = '\0';
		} else {
			err = buf_append(&b, "/", 1);
			if (!err)
				err = buf_append(&b, rest, len);
		}
		rest += len;
	}
	if (err) {
		buf_free(&b);
		return err;
	}
	buf_free(out);
	*out = b;
	return 0;
}

/*
 * The walk reached the link LINK (to TARGET) with REST after it: ships the
 * link and leaves in LINK the path the walk goes on with.
 */
static int hostpath_follow(struct hostpath *hp, struct list *l,
			   const struct buf *cur, struct buf *link,
			   const char *target, const char **rest, const char *why)
{
	const char *img = link->data + 1, *tail = *rest + strspn(*rest, "/");
	struct buf to = { 0 }, at = { 0 }, out = { 0 };
	size_t len = strcspn(tail, "/");
	char *rel = NULL;
	int err;

	err = hostpath_join(&to, target[0] == '/' ? "" : cur->data, target);
	if (!err && len && hostpath_is_image_dir(img)) {
		/* The link one level down, relative, as programs' links. */
		err = buf_printf(&to, "/%.*s", (int)len, tail);
		if (!err)
			err = buf_printf(&at, "%s/%.*s", img, (int)len, tail);
		rel = err ? NULL : programs_link_target(at.data, to.data + 1);
		if (!err && !rel)
			err = -ENOMEM;
		if (!err)
			err = hostpath_symlink(hp, l, at.data, rel, why);
		tail += len;
	} else if (!err) {
		err = hostpath_symlink(hp, l, img, target, why);
	}
	if (!err)
		err = hostpath_join(&out, to.data, tail);
	if (!err) {
		buf_free(link);
		*link = out;
		out = (struct buf){ 0 };
	}
	if (err == -ENOMEM)
		msg_error("unable to ship %s: out of memory", why);
	free(rel);
	buf_free(&to);
	buf_free(&at);
	buf_free(&out);
	return err;
}

int hostpath_add(struct hostpath *hp, struct list *l, const char *path,
		 const char *why)
{
	struct buf todo = { 0 }, cur = { 0 }, next = { 0 };
	unsigned int links = 0;
	const char *rest;
	int err;

	err = hostpath_join(&todo, "", path);
	if (!err)
		err = buf_append(&cur, "", 0);
	rest = todo.data;
	while (!err) {
		char target[PATH_MAX];
		struct stat st;
		size_t len;
		ssize_t n;

		rest += strspn(rest, "/");
		len = strcspn(rest, "/");
		if (!len) {
			msg_error("unable to ship %s (%s): a directory, not a file",
				  path, why);
			err = -EISDIR;
			break;
		}
		buf_free(&next);
		err = buf_printf(&next, "%s/%.*s", cur.data, (int)len, rest);
		if (err)
			break;
		rest += len;
		if (lstat(next.data, &st) < 0) {
			err = -errno;
			msg_error("unable to ship %s (%s): %s: %s", path, why,
				  next.data, strerror(-err));
			break;
		}
		if (S_ISDIR(st.st_mode)) {
			buf_free(&cur);
			cur = next;
			next = (struct buf){ 0 };
			continue;
		}
		if (S_ISREG(st.st_mode) && !rest[strspn(rest, "/")]) {
			err = hostpath_file(hp, l, next.data, &st, why);
			break;
		}
		if (!S_ISLNK(st.st_mode)) {
			err = -ENOTDIR;
			msg_error("unable to ship %s (%s): %s: not a directory, file or link",
				  path, why, next.data);
			break;
		}
		if (++links > HOSTPATH_MAX_LINKS ||
		    (n = readlink(next.data, target, sizeof(target) - 1)) < 0) {
			err = links > HOSTPATH_MAX_LINKS ? -ELOOP : -errno;
			msg_error("unable to ship %s (%s): %s: %s", path, why,
				  next.data, strerror(-err));
			break;
		}
		target[n] = '\0';
		err = hostpath_follow(hp, l, &cur, &next, target, &rest, why);
		if (!err) {
			buf_free(&todo);
			todo = next;
			next = (struct buf){ 0 };
			rest = todo.data;
			buf_free(&cur);
			err = buf_append(&cur, "", 0);
		}
	}
	buf_free(&todo);
	buf_free(&cur);
	buf_free(&next);
	return err < 0 ? err : 0;
}
