// SPDX-License-Identifier: GPL-2.0
/*
 * microcode.c: the early microcode archive that starts a -k image.
 *
 * The x86 kernel looks for kernel/x86/microcode/GenuineIntel.bin and
 * AuthenticAMD.bin in an uncompressed cpio newc archive at the very
 * start of the initramfs (arch/x86/kernel/cpu/microcode/, find_cpio_data),
 * long before it unpacks the rest; the compressed image follows it, and
 * the kernel unpacks both, one after the other.  The files are what
 * dracut's early microcode and Debian's amd64-microcode hook write: the
 * concatenation of DIR/intel-ucode/ (every file but a .asc signature)
 * and of the .bin files of DIR/amd-ucode/, in byte order of their names.  All of it,
 * not the build host's CPU's: the rescue image boots other machines.
 *
 * Reproducible like the rest: owner 0:0, the image's mtime, inodes
 * numbered in order, no padding after the trailer.
 */
#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mkrescue.h"

#define MICROCODE_DIR	"kernel/x86/microcode"

static const struct microcode_vendor {
	const char *subdir;	/* below DIR */
	const char *suffix;	/* of the files taken, "" for all */
	const char *dest;	/* in MICROCODE_DIR */
} microcode_vendors[] = {
	{ "intel-ucode", "", "GenuineIntel.bin" },
	{ "amd-ucode", ".bin", "AuthenticAMD.bin" },
};

static int microcode_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool microcode_takes(const struct microcode_vendor *v, const char *name)
{
	size_t n = strlen(name), s = strlen(v->suffix);

	if (name[0] == '.' || (n > 4 && !strcmp(name + n - 4, ".asc")))
		return false;
	return n > s && !strcmp(name + n - s, v->suffix);
}

/* The names of DIR/V->subdir taken, sorted; 0 names if it is not there. */
static int microcode_names(const char *dir, const struct microcode_vendor *v,
			   char ***names, size_t *n, struct buf *path)
{
	struct dirent *de;
	DIR *d;
	int err = 0;

	path->len = 0;
	if (buf_printf(path, "%s/%s", dir, v->subdir))
		return -ENOMEM;
	d = opendir(path->data);
	if (!d)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
	while (!err && (errno = 0, de = readdir(d)))
		if (microcode_takes(v, de->d_name))
			err = strv_push(names, n, de->d_name, strlen(de->d_name));
	if (!err && errno)
		err = -errno;
	closedir(d);
	if (!err && *n)
		qsort(*names, *n, sizeof(**names), microcode_cmp);
	return err;
}

/* One vendor's files, concatenated into OUT (empty: none). */
static int microcode_collect(const char *dir, const struct microcode_vendor *v,
			     struct buf *out)
{
	struct buf path = { 0 }, file = { 0 };
	char **names = NULL;
	size_t i, n = 0;
	int err;

	err = microcode_names(dir, v, &names, &n, &path);
	if (err)
		msg_error("unable to read %s/%s: %s", dir, v->subdir, strerror(-err));
	for (i = 0; !err && i < n; i++) {
		struct stat st;

		path.len = 0;
		file.len = 0;
		if (buf_printf(&path, "%s/%s/%s", dir, v->subdir, names[i])) {
			err = -ENOMEM;
			msg_error("unable to read microcode: out of memory");
			break;
		}
		if (stat(path.data, &st) || !S_ISREG(st.st_mode))
			continue;
		err = buf_read_file(&file, path.data);
		if (!err)
			err = buf_append(out, file.data, file.len);
		if (err)
			msg_error("unable to read microcode %s: %s", path.data,
				  strerror(-err));
	}
	if (!err && out->len)
		msg_verbose("/%s/%s: %zu files of %s/%s, %zu bytes", MICROCODE_DIR,
			    v->dest, n, dir, v->subdir, out->len);
	strv_free(&names, &n);
	buf_free(&path);
	buf_free(&file);
	return err;
}

static int microcode_fail(struct archive *a, const char *path)
{
	const char *msg = archive_error_string(a);

	msg_error("unable to write the early microcode of %s: %s", path,
		  msg ? msg : "libarchive error");
	return archive_errno(a) > 0 ? -archive_errno(a) : -EIO;
}

static int microcode_entry(struct archive *a, struct archive_entry *ae,
			   const char *name, const struct buf *data,
			   unsigned int ino, int64_t mtime)
{
	archive_entry_clear(ae);
	archive_entry_copy_pathname(ae, name);
	archive_entry_set_mode(ae, data ? S_IFREG | 0644 : S_IFDIR | 0755);
	archive_entry_set_uid(ae, 0);
	archive_entry_set_gid(ae, 0);
	archive_entry_set_nlink(ae, data ? 1 : 2);
	archive_entry_set_ino(ae, ino);
	archive_entry_set_dev(ae, 0);
	archive_entry_set_mtime(ae, (time_t)mtime, 0);
	archive_entry_set_size(ae, data ? (la_int64_t)data->len : 0);
	if (archive_write_header(a, ae) != ARCHIVE_OK)
		return -EIO;
	if (data && archive_write_data(a, data->data, data->len) !=
		    (la_ssize_t)data->len)
		return -EIO;
	return 0;
}

/* The archive of the vendors' files BLOBS (some empty) onto FD. */
static int microcode_archive(const struct buf *blobs, int64_t mtime, int fd,
			     const char *path)
{
	static const char *const dirs[] = { "kernel", "kernel/x86", MICROCODE_DIR };
	struct archive_entry *ae = archive_entry_new();
	struct archive *a = archive_write_new();
	unsigned int ino = 0;
	size_t i;
	int err = 0;

	if (!a || !ae) {
		msg_error("unable to write the early microcode of %s: out of memory",
			  path);
		err = -ENOMEM;
		goto out;
	}
	if (archive_write_set_format_cpio_newc(a) != ARCHIVE_OK ||
	    archive_write_add_filter_none(a) != ARCHIVE_OK ||
	    archive_write_set_bytes_in_last_block(a, 1) != ARCHIVE_OK ||
	    archive_write_open_fd(a, fd) != ARCHIVE_OK) {
		err = microcode_fail(a, path);
		goto out;
	}
	for (i = 0; !err && i < ARRAY_SIZE(dirs); i++)
		err = microcode_entry(a, ae, dirs[i], NULL, ++ino, mtime);
	for (i = 0; !err && i < ARRAY_SIZE(microcode_vendors); i++) {
		char name[128];

		if (!blobs[i].len)
			continue;
		snprintf(name, sizeof(name), MICROCODE_DIR "/%s",
			 microcode_vendors[i].dest);
		err = microcode_entry(a, ae, name, &blobs[i], ++ino, mtime);
	}
	if (err || archive_write_close(a) != ARCHIVE_OK)
		err = microcode_fail(a, path);
out:
	if (a)
		archive_write_free(a);
	archive_entry_free(ae);
	return err;
}

int microcode_write(const char *dir, int64_t mtime, int fd, const char *path)
{
	struct buf blobs[ARRAY_SIZE(microcode_vendors)] = { 0 };
	size_t i, total = 0;
	int err = 0;

	for (i = 0; !err && i < ARRAY_SIZE(microcode_vendors); i++) {
		err = microcode_collect(dir, &microcode_vendors[i], &blobs[i]);
		total += blobs[i].len;
	}
	if (!err && total)
		err = microcode_archive(blobs, mtime, fd, path);
	else if (!err)
		msg_verbose("no early microcode: %s has no intel-ucode/ or amd-ucode/*.bin",
			    dir);
	for (i = 0; i < ARRAY_SIZE(microcode_vendors); i++)
		buf_free(&blobs[i]);
	return err ? err : total ? 1 : 0;
}
