// SPDX-License-Identifier: GPL-2.0
/*
 * toolkitcache.c: what mkrescue derives from busybox and e2fsck, kept
 * between runs: the compressed toolkit blob (image.c) and busybox's
 * applet list (programs.c).  xz takes seconds, and running busybox
 * --list-full a tenth of mkrescue's 0.2 s, for files which change with
 * a package upgrade, not between two images: the blob is kept under
 * $MKRESCUE_CACHE (else $XDG_CACHE_HOME/devtmpfs-rescue, else
 * ~/.cache/devtmpfs-rescue), named by a key of what went into it, as
 * ccache's direct mode does: each file's path, device, inode, size,
 * mtime and ctime, each link's target, the mtime of the entries and the
 * preset.  The key is
 * a 64-bit FNV-1a, by hand: a cache name, not a signature.  The cache
 * is an optimisation only: any error there means "compress again".
 * What it holds becomes the image's busybox, so it is trusted only as
 * the program's own: the directory and the file must belong to the
 * effective uid and be writable by no group or other, or a cache that
 * another user can write (root under sudo -E with a user's HOME) would
 * put that user's busybox in root's image.  An untrusted cache is
 * neither read nor written.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mkrescue.h"
#include "readfile.h"

#define TOOLKIT_CACHE_FORMAT	"devtmpfs-rescue toolkit 2"
#define APPLETS_CACHE_FORMAT	"devtmpfs-rescue applets 1"

uint64_t cache_fnv1a(uint64_t h, const void *data, size_t len)
{
	const unsigned char *s = data;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

char *cache_dir(void)
{
	const char *env = getenv("MKRESCUE_CACHE"), *base;
	char *dir = NULL, *parent = NULL;

	if (env && !*env)
		return NULL;		/* MKRESCUE_CACHE= : no cache */
	if (env)
		return strdup(env);
	base = getenv("XDG_CACHE_HOME");
	if (base && *base == '/') {
		parent = strdup(base);
	} else {
		base = getenv("HOME");
		if (!base || *base != '/' || asprintf(&parent, "%s/.cache", base) < 0)
			return NULL;
	}
	if (!parent)
		return NULL;
	mkdir(parent, 0700);
	if (asprintf(&dir, "%s/devtmpfs-rescue", parent) < 0)
		dir = NULL;
	free(parent);
	return dir;
}

int toolkit_cache_path(const struct list *l,
		       bool (*in_toolkit)(const struct list_entry *),
		       int64_t mtime, int preset, char **path)
{
	struct buf key = { 0 };
	uint64_t h = CACHE_FNV1A_INIT;
	char *dir;
	size_t i;
	int err;

	*path = NULL;
	dir = cache_dir();
	if (!dir)
		return -ENOENT;
	err = buf_printf(&key, "%s mtime=%lld preset=%d\n",
			 TOOLKIT_CACHE_FORMAT, (long long)mtime, preset);
	for (i = 0; !err && i < l->count; i++) {
		const struct list_entry *e = &l->entries[i];
		struct stat st;

		if (!in_toolkit(e))
			continue;
		if (S_ISLNK(e->mode)) {
			err = buf_printf(&key, "%s -> %s\n", e->path, e->data);
			continue;
		}
		if (!e->source || stat(e->source, &st) < 0) {
			err = -ENOENT;
			break;
		}
		err = buf_printf(&key, "%s %s %o %llu %llu %llu %lld.%09ld %lld.%09ld\n",
				 e->path, e->source, (unsigned)e->mode,
				 (unsigned long long)st.st_dev,
				 (unsigned long long)st.st_ino,
				 (unsigned long long)st.st_size,
				 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
				 (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
	}
	if (!err) {
		h = cache_fnv1a(h, key.data, key.len);
		mkdir(dir, 0700);
		if (asprintf(path, "%s/toolkit-%016llx.cpio.xz", dir,
			     (unsigned long long)h) < 0) {
			*path = NULL;
			err = -ENOMEM;
		}
	}
	buf_free(&key);
	free(dir);
	return err;
}

/* Is ST, the cache directory or file at PATH, the program's own? */
static bool cache_owned(const char *path, const struct stat *st)
{
	if (st->st_uid != geteuid()) {
		msg_verbose("the cache %s is not used: it belongs to uid %u, not %u",
			    path, (unsigned)st->st_uid, (unsigned)geteuid());
		return false;
	}
	if (st->st_mode & 022) {
		msg_verbose("the cache %s is not used: others may write it (mode %04o)",
			    path, (unsigned)(st->st_mode & 07777));
		return false;
	}
	return true;
}

/* The directory of PATH, the file's own directory, is trusted. */
static bool cache_dir_trusted(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash && slash != path ? strndup(path, (size_t)(slash - path)) :
		    strdup(slash ? "/" : ".");
	struct stat st;
	bool ok = false;
	int fd;

	if (!dir)
		return false;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0 && fstat(fd, &st) == 0)
		ok = cache_owned(dir, &st);
	if (fd >= 0)
		close(fd);
	free(dir);
	return ok;
}

/*
 * All of the cache file PATH into B, NUL-terminated, if it and its
 * directory are the program's own (cache_owned); -ENOENT if not.  The
 * file is opened without following a link and checked on its fd.
 */
static int cache_read(const char *path, struct buf *b)
{
	struct stat st;
	char chunk[65536];
	ssize_t n;
	int fd, err = 0;

	if (!cache_dir_trusted(path))
		return -ENOENT;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -ENOENT;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !cache_owned(path, &st)) {
		close(fd);
		return -ENOENT;
	}
	while (!err && (n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		err = n < 0 ? -errno : buf_append(b, chunk, (size_t)n);
	}
	close(fd);
	if (!err)
		err = buf_append(b, "", 0);	/* NUL-terminated, even empty */
	if (err) {
		buf_free(b);
		return -ENOENT;
	}
	return 0;
}

/* An .xz stream at least: its header and footer magic. */
int toolkit_cache_get(const char *path, struct buf *blob)
{
	static const char head[] = "\xfd" "7zXZ", foot[] = "YZ";

	if (cache_read(path, blob))
		return -ENOENT;
	if (blob->len < 32 || memcmp(blob->data, head, 5) ||
	    memcmp(blob->data + blob->len - 2, foot, 2)) {
		buf_free(blob);
		return -ENOENT;
	}
	msg_verbose("the toolkit from the cache: %s", path);
	return 0;
}

/* What identifies FILE's content short of reading it, as in the key. */
static int stat_key(struct buf *key, const char *file)
{
	struct stat st;

	if (stat(file, &st) < 0)
		return -ENOENT;
	return buf_printf(key, "%s %llu %llu %llu %lld.%09ld %lld.%09ld\n",
			  file, (unsigned long long)st.st_dev,
			  (unsigned long long)st.st_ino,
			  (unsigned long long)st.st_size,
			  (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
			  (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
}

int applets_cache_path(const char *busybox, char **path)
{
	struct buf key = { 0 };
	char *dir;
	int err;

	*path = NULL;
	dir = cache_dir();
	if (!dir)
		return -ENOENT;
	err = buf_printf(&key, "%s\n", APPLETS_CACHE_FORMAT);
	if (!err)
		err = stat_key(&key, busybox);
	if (!err) {
		mkdir(dir, 0700);
		if (asprintf(path, "%s/applets-%016llx.txt", dir,
			     (unsigned long long)cache_fnv1a(CACHE_FNV1A_INIT,
						       key.data, key.len)) < 0) {
			*path = NULL;
			err = -ENOMEM;
		}
	}
	buf_free(&key);
	free(dir);
	return err;
}

/* Lines of text at least: no NUL, the last one ended. */
int applets_cache_get(const char *path, struct buf *list)
{
	if (cache_read(path, list))
		return -ENOENT;
	if (!list->len || list->data[list->len - 1] != '\n' ||
	    memchr(list->data, '\0', list->len)) {
		buf_free(list);
		return -ENOENT;
	}
	msg_verbose("busybox's applets from the cache: %s", path);
	return 0;
}

/* Written to a temporary file renamed into place: never half a blob. */
void cache_put(const char *path, const struct buf *blob)
{
	char *tmp = NULL;
	bool written;
	int fd;

	if (!cache_dir_trusted(path) || asprintf(&tmp, "%s.XXXXXX", path) < 0)
		return;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		free(tmp);
		return;
	}
	written = writefile_all(fd, blob->data, blob->len) == 0;
	if (close(fd) < 0 || !written || fchmodat(AT_FDCWD, tmp, 0644, 0) < 0 ||
	    rename(tmp, path) < 0)
		unlink(tmp);
	free(tmp);
}

/* For another cache of derived facts (firmware.c): a file's stat key. */
int cache_stat_key(struct buf *key, const char *file)
{
	return stat_key(key, file);
}

/* The cache file PATH if it is lines of text starting with FIRST. */
int cache_get_lines(const char *path, const char *first, struct buf *b)
{
	size_t n = strlen(first);

	if (cache_read(path, b))
		return -ENOENT;
	if (b->len <= n || strncmp(b->data, first, n) || b->data[n] != '\n' ||
	    b->data[b->len - 1] != '\n' || memchr(b->data, '\0', b->len)) {
		buf_free(b);
		return -ENOENT;
	}
	return 0;
}
