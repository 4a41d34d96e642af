// SPDX-License-Identifier: GPL-2.0
/* image.c: the entry list as a cpio newc archive, via libarchive. */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lzma.h>

#include "imagemark.h"
#include "mkrescue.h"
#include "toolkit.h"

/*
 * Nothing of the host gets in: owner 0:0, one mtime for all, the inode
 * numbers of the sorted list, no device numbers but the nodes' own, and
 * compressed frames without a time or a name (gzip's header mtime is 0).
 */

#define IMAGE_CHUNK (256 * 1024)

/*
 * The toolkit's files (rescue/lib/toolkit.h): big, and needed only by the
 * rescue shell, fsck and the network.  Their links stay in the image.
 */
static const char *const image_toolkit_paths[] = {
	"bin/busybox",
	"sbin/e2fsck",
};

/* xz preset 6 with the x86 BCJ filter: see mkrescue(8), "COMPRESSION". */
#define IMAGE_TOOLKIT_PRESET	6

static bool image_in_toolkit(const struct list_entry *e)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(image_toolkit_paths); i++)
		if (S_ISREG(e->mode) && !strcmp(e->path, image_toolkit_paths[i]))
			return true;
	return false;
}

/*
 * /bin/sh is rescue-init until the toolkit is unpacked (rdinit=/bin/sh,
 * a script's #!/bin/sh): it unpacks the toolkit and runs busybox sh.
 * The toolkit holds the real link, which replaces it.
 */
#define IMAGE_SH	RESCUE_SH_PATH
#define IMAGE_SH_INIT	"../init"

static bool image_is_sh(const struct list_entry *e)
{
	return S_ISLNK(e->mode) && !strcmp(e->path, IMAGE_SH);
}

/* What the toolkit's archive holds: its files and the real /bin/sh. */
static bool image_toolkit_archived(const struct list_entry *e)
{
	return image_in_toolkit(e) || image_is_sh(e);
}

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
 * with the same follows every other entry, out of the sorted order.  The
 * totals are those of the archive the kernel unpacks: the toolkit's
 * files count as the one blob that holds them.
 */
static void image_marker(const struct list *l, size_t blob, char *text,
			 size_t size)
{
	unsigned long long bytes = blob, entries = 1 + !!blob;
	size_t i;

	for (i = 0; i < l->count; i++) {
		const struct list_entry *e = &l->entries[i];

		if (image_in_toolkit(e))
			continue;
		entries++;
		if (S_ISREG(e->mode) && strcmp(e->path, IMAGEMARK_BEGIN))
			bytes += e->size;
	}
	snprintf(text, size, IMAGEMARK_FORMAT, entries, bytes);
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

static la_ssize_t image_to_buf(struct archive *a, void *data,
				const void *chunk, size_t len)
{
	if (buf_append(data, chunk, len)) {
		archive_set_error(a, ENOMEM, "out of memory");
		return -1;
	}
	return (la_ssize_t)len;
}

static void image_archive_free(struct archive *a, struct archive_entry *ae)
{
	if (a)
		archive_write_free(a);
	archive_entry_free(ae);
}

/* A libarchive writer and the entry it reuses, for the archive PATH. */
static int image_archive_new(struct archive **a, struct archive_entry **ae,
			     const char *path)
{
	*ae = archive_entry_new();
	*a = archive_write_new();
	if (*a && *ae)
		return 0;
	msg_error("unable to write %s: out of memory", path);
	image_archive_free(*a, *ae);
	return -ENOMEM;
}

/* The toolkit's files as an uncompressed cpio newc archive, in memory. */
static int image_toolkit_cpio(const struct list *l,
			      const struct image_options *opt, struct buf *out,
			      size_t *count, const char *path)
{
	struct archive_entry *ae;
	struct archive *a;
	size_t i;
	int err;

	*count = 0;
	err = image_archive_new(&a, &ae, path);
	if (err)
		return err;
	err = archive_write_set_format_cpio_newc(a) != ARCHIVE_OK ||
	      archive_write_add_filter_none(a) != ARCHIVE_OK ||
	      archive_write_set_bytes_in_last_block(a, 1) != ARCHIVE_OK ||
	      archive_write_open2(a, out, NULL, image_to_buf, NULL, NULL) !=
	      ARCHIVE_OK ? image_fail(a, "write the toolkit of", path) : 0;
	for (i = 0; !err && i < l->count; i++) {
		struct list_entry m = l->entries[i];

		if (!image_toolkit_archived(&m))
			continue;
		m.ino = (unsigned int)++*count;
		err = image_write_entry(a, ae, opt, &m, path);
	}
	if (!err && archive_write_close(a) != ARCHIVE_OK)
		err = image_fail(a, "write the toolkit of", path);
	image_archive_free(a, ae);
	return err;
}

/* IN compressed by liblzma into OUT: an .xz stream, CRC32 checked. */
static int image_xz(const struct buf *in, struct buf *out, const char *path)
{
	lzma_options_lzma lz;
	lzma_filter filters[] = {
		{ .id = LZMA_FILTER_X86 },
		{ .id = LZMA_FILTER_LZMA2, .options = &lz },
		{ .id = LZMA_VLI_UNKNOWN },
	};
	size_t pos = 0, bound = lzma_stream_buffer_bound(in->len);
	lzma_ret r;

	if (lzma_lzma_preset(&lz, IMAGE_TOOLKIT_PRESET)) {
		msg_error("unable to compress the toolkit of %s: no xz preset %d",
			  path, IMAGE_TOOLKIT_PRESET);
		return -EINVAL;
	}
	/* A dictionary no larger than the data: what the decoder allocates. */
	while (lz.dict_size > 64 * 1024 && lz.dict_size / 2 >= in->len)
		lz.dict_size /= 2;
	out->data = malloc(bound ? bound : 1);
	if (!out->data) {
		msg_error("unable to compress the toolkit of %s: out of memory",
			  path);
		return -ENOMEM;
	}
	out->cap = bound;
	r = lzma_stream_buffer_encode(filters, LZMA_CHECK_CRC32, NULL,
				      (const uint8_t *)in->data, in->len,
				      (uint8_t *)out->data, &pos, bound);
	if (r != LZMA_OK) {
		msg_error("unable to compress the toolkit of %s: liblzma error %d",
			  path, (int)r);
		return r == LZMA_MEM_ERROR ? -ENOMEM : -EIO;
	}
	out->len = pos;
	return 0;
}

/* The toolkit blob, or none (BLOB->len 0) if the image has no toolkit. */
static int image_toolkit(const struct list *l, const struct image_options *opt,
			 struct buf *blob, const char *path)
{
	struct buf cpio = { 0 };
	char *cached = NULL;
	size_t i, count = 0;
	int err;

	for (i = 0; i < l->count; i++)
		count += image_in_toolkit(&l->entries[i]);
	if (!count)
		return 0;
	if (!toolkit_cache_path(l, image_toolkit_archived, opt->mtime,
				IMAGE_TOOLKIT_PRESET, &cached) &&
	    !toolkit_cache_get(cached, blob)) {
		free(cached);
		return 0;
	}
	err = image_toolkit_cpio(l, opt, &cpio, &count, path);
	if (!err)
		err = image_xz(&cpio, blob, path);
	if (!err)
		msg_verbose("/%s: %zu files, %zu bytes, %zu compressed",
			    TOOLKIT_BLOB, count, cpio.len, blob->len);
	if (!err && cached)
		cache_put(cached, blob);
	buf_free(&cpio);
	free(cached);
	return err;
}

int image_write(const struct list *l, const struct image_options *opt,
		int fd, const char *path)
{
	struct archive_entry *ae;
	struct archive *a;
	struct buf blob = { 0 };
	char text[128];
	struct list_entry end = {
		.path = (char *)IMAGEMARK_END, .mode = S_IFREG | 0644,
		.data = text,
	}, toolkit = {
		.path = (char *)TOOLKIT_BLOB, .mode = S_IFREG | 0644,
	};
	unsigned int ino = 0;	/* the archive's entries, numbered in order */
	size_t i;
	int err;

	/* The early microcode before all, uncompressed (microcode.c). */
	err = opt->microcode_dir ?
	      microcode_write(opt->microcode_dir, opt->mtime, fd, path) : 1;
	if (!err && opt->microcode_required) {
		msg_error("unable to add early microcode: %s has no intel-ucode/ or amd-ucode/*.bin",
			  opt->microcode_dir);
		err = -ENOENT;
	}
	if (err < 0)
		return err;
	err = image_archive_new(&a, &ae, path);
	if (err)
		return err;
	err = image_toolkit(l, opt, &blob, path);
	toolkit.data = blob.data;
	toolkit.size = blob.len;
	if (!err && archive_write_set_format_cpio_newc(a) != ARCHIVE_OK)
		err = image_fail(a, "set up the format of", path);
	if (!err)
		err = image_set_filter(a, opt, path);
	/* No padding after the last byte: the kernel needs none. */
	if (!err && archive_write_set_bytes_in_last_block(a, 1) != ARCHIVE_OK)
		err = image_fail(a, "set up", path);
	if (!err && archive_write_open_fd(a, fd) != ARCHIVE_OK)
		err = image_fail(a, "write", path);
	image_marker(l, blob.len, text, sizeof(text));
	end.size = strlen(text);
	for (i = 0; !err && i < l->count; i++) {
		struct list_entry e = l->entries[i];

		if (image_in_toolkit(&e))
			continue;
		e.ino = ++ino;
		if (blob.len && image_is_sh(&e))
			e.data = (char *)IMAGE_SH_INIT;
		err = image_write_marked(a, ae, opt, &e, text, path);
		/* The blob right after the first marker, in etc/ too. */
		if (!err && blob.len && !strcmp(e.path, IMAGEMARK_BEGIN)) {
			toolkit.ino = ++ino;
			err = image_write_entry(a, ae, opt, &toolkit, path);
		}
	}
	end.ino = ++ino;
	if (!err)
		err = image_write_entry(a, ae, opt, &end, path);
	if (!err && archive_write_close(a) != ARCHIVE_OK)
		err = image_fail(a, "write", path);
	image_archive_free(a, ae);
	buf_free(&blob);
	return err;
}
