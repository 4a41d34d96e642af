// SPDX-License-Identifier: GPL-2.0
/* mkrescue-image.c: the entry list as a cpio newc archive, via libarchive. */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "imagemark.h"
#include "mkrescue.h"

/*
 * Nothing of the host gets in: owner 0:0, one mtime for all, the inode
 * numbers of the sorted list, no device numbers but the nodes' own, and
 * compressed frames without a time or a name (gzip's header mtime is 0).
 */

#define IMAGE_CHUNK (256 * 1024)

static int image_fail(struct archive *a, const char *what, const char *path)
{
	const char *msg = archive_error_string(a);
	int err = archive_errno(a) > 0 ? -archive_errno(a) : -EIO;

	if (msg && archive_errno(a) > 0)
		msg_error("unable to %s %s: %s: %s", what, path, msg, strerror(-err));
	else
		msg_error("unable to %s %s: %s", what, path, msg ? msg : strerror(-err));
	return err;
}

static int image_set_option(struct archive *a, const char *filter,
			    const char *key, const char *value, const char *path)
{
	if (archive_write_set_filter_option(a, filter, key, value) != ARCHIVE_OK)
		return image_fail(a, "set up the compression of", path);
	return 0;
}

static int image_set_filter(struct archive *a, const struct image_options *opt,
			    const char *path)
{
	const char *filter = NULL;
	char level[16];
	int r, err;

	switch (opt->compress) {
	case IMAGE_GZIP:
		filter = "gzip";
		r = archive_write_add_filter_gzip(a);
		break;
	case IMAGE_ZSTD:
		filter = "zstd";
		r = archive_write_add_filter_zstd(a);
		break;
	default:
		r = archive_write_add_filter_none(a);
		break;
	}
	/* ARCHIVE_WARN: through the external program, which is still fine. */
	if (r < ARCHIVE_WARN)
		return image_fail(a, "set up the compression of", path);
	if (!filter)
		return 0;
	snprintf(level, sizeof(level), "%d", opt->level);
	/* A NULL value is "!timestamp": a gzip header mtime of 0. */
	err = opt->compress == IMAGE_GZIP ?
	      image_set_option(a, filter, "timestamp", NULL, path) : 0;
	if (!err && opt->level >= 0)
		err = image_set_option(a, filter, "compression-level", level, path);
	return err;
}

/* Copies the host file SOURCE, which must still have the size it had. */
static int image_copy_file(struct archive *a, const struct list_entry *e,
			   const char *path)
{
	static char chunk[IMAGE_CHUNK];
	uint64_t done = 0;
	struct stat st;
	ssize_t n;
	int fd, err = 0;

	fd = open(e->source, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		err = -errno;
		msg_error("unable to read %s: %s", e->source, strerror(-err));
		goto out;
	}
	while (done < e->size) {
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			msg_error("unable to read %s: %s", e->source, strerror(-err));
			goto out;
		}
		if (n == 0 || done + (uint64_t)n > e->size)
			break;
		if (archive_write_data(a, chunk, (size_t)n) != n) {
			err = image_fail(a, "write", path);
			goto out;
		}
		done += (uint64_t)n;
	}
	if (done != e->size || (uint64_t)st.st_size != e->size) {
		err = -EIO;
		msg_error("unable to read %s: it changed size while the image was written",
			  e->source);
	}
out:
	if (fd >= 0)
		close(fd);
	return err;
}

static int image_write_entry(struct archive *a, struct archive_entry *ae,
			     const struct image_options *opt,
			     const struct list_entry *e, const char *path)
{
	archive_entry_clear(ae);
	archive_entry_copy_pathname(ae, e->path);
	archive_entry_set_mode(ae, e->mode);
	archive_entry_set_uid(ae, 0);
	archive_entry_set_gid(ae, 0);
	archive_entry_set_nlink(ae, S_ISDIR(e->mode) ? 2 : 1);
	archive_entry_set_ino(ae, e->ino);
	archive_entry_set_dev(ae, 0);
	archive_entry_set_mtime(ae, (time_t)opt->mtime, 0);
	if (S_ISCHR(e->mode) || S_ISBLK(e->mode)) {
		archive_entry_set_rdevmajor(ae, e->rdev_major);
		archive_entry_set_rdevminor(ae, e->rdev_minor);
	}
	if (S_ISLNK(e->mode))
		archive_entry_copy_symlink(ae, e->data);
	archive_entry_set_size(ae, S_ISREG(e->mode) ? (la_int64_t)e->size : 0);
	if (archive_write_header(a, ae) != ARCHIVE_OK)
		return image_fail(a, "write", path);
	if (!S_ISREG(e->mode) || !e->size)
		return 0;
	if (e->source)
		return image_copy_file(a, e, path);
	if (archive_write_data(a, e->data, e->size) != (la_ssize_t)e->size)
		return image_fail(a, "write", path);
	return 0;
}

/*
 * The markers of a whole image (rescue/lib/imagemark.h): IMAGEMARK_BEGIN
 * (layout.c reserves its place) gets the totals here, and IMAGEMARK_END
 * with the same follows every other entry, out of the sorted order.
 */
static void image_marker(const struct list *l, char *text, size_t size)
{
	unsigned long long bytes = 0;
	size_t i;

	for (i = 0; i < l->count; i++)
		if (S_ISREG(l->entries[i].mode) &&
		    strcmp(l->entries[i].path, IMAGEMARK_BEGIN))
			bytes += l->entries[i].size;
	snprintf(text, size, IMAGEMARK_FORMAT,
		 (unsigned long long)l->count + 1, bytes);
}

static int image_write_marked(struct archive *a, struct archive_entry *ae,
			      const struct image_options *opt,
			      const struct list_entry *e, const char *text,
			      const char *path)
{
	struct list_entry m = *e;

	if (strcmp(e->path, IMAGEMARK_BEGIN))
		return image_write_entry(a, ae, opt, e, path);
	m.mode = S_IFREG | 0644;
	m.source = NULL;
	m.data = (char *)text;
	m.size = strlen(text);
	return image_write_entry(a, ae, opt, &m, path);
}

int image_write(const struct list *l, const struct image_options *opt,
		int fd, const char *path)
{
	struct archive_entry *ae = archive_entry_new();
	struct archive *a = archive_write_new();
	char text[128];
	struct list_entry end = {
		.path = (char *)IMAGEMARK_END, .mode = S_IFREG | 0644,
		.data = text, .ino = (unsigned int)l->count + 1,
	};
	size_t i;
	int err;

	if (!a || !ae) {
		msg_error("unable to write %s: out of memory", path);
		err = -ENOMEM;
		goto out;
	}
	err = archive_write_set_format_cpio_newc(a) != ARCHIVE_OK ?
	      image_fail(a, "set up the format of", path) : 0;
	if (!err)
		err = image_set_filter(a, opt, path);
	/* No padding after the last byte: the kernel needs none. */
	if (!err && archive_write_set_bytes_in_last_block(a, 1) != ARCHIVE_OK)
		err = image_fail(a, "set up", path);
	if (!err && archive_write_open_fd(a, fd) != ARCHIVE_OK)
		err = image_fail(a, "write", path);
	image_marker(l, text, sizeof(text));
	end.size = strlen(text);
	for (i = 0; !err && i < l->count; i++)
		err = image_write_marked(a, ae, opt, &l->entries[i], text, path);
	if (!err)
		err = image_write_entry(a, ae, opt, &end, path);
	if (!err && archive_write_close(a) != ARCHIVE_OK)
		err = image_fail(a, "write", path);
out:
	if (a)
		archive_write_free(a);
	archive_entry_free(ae);
	return err;
}
