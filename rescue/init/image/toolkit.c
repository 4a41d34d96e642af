// SPDX-License-Identifier: GPL-2.0
/*
 * toolkit.c: unpacks the rescue toolkit (rescue/lib/toolkit.h) on first
 * need: before the rescue shell, DHCP and dropbear.  The kernel copied
 * the compressed blob instead of unpacking busybox and e2fsck before
 * /init; here liblzma (static, decoder only) decompresses it and newc.c
 * reads the archive.  The blob is deleted once decompressed, which frees
 * its RAM and says "done" to the next caller; a lock on its directory
 * keeps the network child and PID 1 from unpacking it twice at once.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lzma.h>

#include "newc.h"
#include "readfile.h"
#include "rescue-init.h"
#include "toolkit.h"

#define TOOLKIT_PATH		"/" TOOLKIT_BLOB
#define TOOLKIT_DIR		"/etc"		/* the blob's, locked */
#define TOOLKIT_MAX_BLOB	(256u << 20)
#define TOOLKIT_MAX_UNPACKED	(1024u << 20)
#define TOOLKIT_MEMLIMIT	(64u << 20)	/* xz -9's dictionary */
#define TOOLKIT_SPARE		"/.toolkit"	/* a tmpfs of its own */
#define TOOLKIT_BUSYBOX		"/bin/busybox"

/* The .xz stream IN into a malloc()ed buffer. */
static int toolkit_xz(const char *in, size_t len, char **out, size_t *out_len)
{
	lzma_stream s = LZMA_STREAM_INIT;
	size_t cap = len * 4 + 4096;
	char *buf = NULL, *n;
	lzma_ret r;

	if (lzma_stream_decoder(&s, TOOLKIT_MEMLIMIT, 0) != LZMA_OK)
		return -ENOMEM;
	s.next_in = (const uint8_t *)in;
	s.avail_in = len;
	do {
		if (!buf || !s.avail_out) {
			size_t used = buf ? (size_t)((char *)s.next_out - buf) : 0;

			if (buf)
				cap *= 2;
			if (cap > TOOLKIT_MAX_UNPACKED) {
				r = LZMA_DATA_ERROR;
				break;
			}
			n = realloc(buf, cap);
			if (!n) {
				r = LZMA_MEM_ERROR;
				break;
			}
			buf = n;
			s.next_out = (uint8_t *)buf + used;
			s.avail_out = cap - used;
		}
		r = lzma_code(&s, LZMA_FINISH);
	} while (r == LZMA_OK);
	*out_len = buf ? (size_t)((char *)s.next_out - buf) : 0;
	lzma_end(&s);
	if (r != LZMA_STREAM_END) {
		free(buf);
		return r == LZMA_MEM_ERROR || r == LZMA_MEMLIMIT_ERROR ?
		       -ENOMEM : -EBADMSG;
	}
	*out = buf;
	return 0;
}

static int toolkit_write_file(const char *path, const struct newc_entry *e)
{
	char tmp[PATH_MAX];
	int fd, err;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.toolkit", path) >=
	    sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
		  0600);
	if (fd < 0)
		return -errno;
	err = writefile_all(fd, e->data, e->size);
	if (!err && fchmod(fd, e->mode & 07777) < 0)
		err = -errno;
	if (close(fd) < 0 && !err)
		err = -errno;
	if (!err && rename(tmp, path) < 0)
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

/*
 * A file that does not fit: the kernel filled the rootfs (a tmpfs of
 * half the RAM) when it ran out of memory unpacking the image, the one
 * case where the rescue shell matters most.  The file goes to a tmpfs of
 * its own, with a link at its place (a short link takes no block).
 */
static int toolkit_spare(const char *path, const struct newc_entry *e)
{
	static bool mounted;
	char spare[PATH_MAX], *p;
	int err;

	if (!mounted) {
		mkdir(TOOLKIT_SPARE, 0755);
		if (mount("tmpfs", TOOLKIT_SPARE, "tmpfs", MS_NOSUID | MS_NODEV,
			  "mode=0755") < 0)
			return -errno;
		mounted = true;
	}
	if ((size_t)snprintf(spare, sizeof(spare), TOOLKIT_SPARE "/%s",
			     e->name) >= sizeof(spare))
		return -ENAMETOOLONG;
	for (p = spare + strlen(TOOLKIT_SPARE) + 1; *p; p++)
		if (*p == '/')
			*p = '!';
	err = toolkit_write_file(spare, e);
	if (!err && symlink(spare, path) < 0)
		err = -errno;
	if (!err)
		log_warn("toolkit: /%s is on a tmpfs of its own (%s): the "
			 "initramfs is full", e->name, spare);
	return err;
}

/* One entry under /: files, directories and symbolic links only. */
static int toolkit_create(const struct newc_entry *e)
{
	char path[PATH_MAX], target[PATH_MAX];
	int r;

	if ((size_t)snprintf(path, sizeof(path), "/%s", e->name) >=
	    sizeof(path))
		return -ENAMETOOLONG;
	switch (e->mode & S_IFMT) {
	case S_IFREG:
		r = toolkit_write_file(path, e);
		return r == -ENOSPC ? toolkit_spare(path, e) : r;
	case S_IFDIR:
		if (mkdir(path, e->mode & 07777) < 0 && errno != EEXIST)
			return -errno;
		return 0;
	case S_IFLNK:
		if (e->size >= sizeof(target))
			return -ENAMETOOLONG;
		memcpy(target, e->data, e->size);
		target[e->size] = '\0';
		unlink(path);
		return symlink(target, path) < 0 ? -errno : 0;
	default:
		return -EINVAL;
	}
}

static int toolkit_extract(const char *cpio, size_t len, size_t *files)
{
	struct newc_entry e;
	size_t off = 0;
	int r;

	*files = 0;
	while ((r = newc_next(cpio, len, &off, &e)) > 0) {
		r = toolkit_create(&e);
		if (r < 0) {
			log_error("toolkit: unable to unpack /%s from /%s: %s",
				  e.name, TOOLKIT_BLOB, errtext(-r));
			return r;
		}
		(*files)++;
	}
	if (r < 0)
		log_error("toolkit: unable to unpack /%s: a damaged archive "
			  "after %zu files", TOOLKIT_BLOB, *files);
	return r;
}

/*
 * /bin/sh before the toolkit replaced it with busybox's link: unpack it,
 * then be busybox's sh.  (As PID 1, "sh" is crash.c's last resort, which
 * main.c hands to shell_last_resort(): an exec'ed shell's exit would
 * panic the kernel.)
 */
int toolkit_sh_main(int argc, char *argv[])
{
	(void)argc;
	toolkit_unpack(RESCUE_SH);
	execv(TOOLKIT_BUSYBOX, argv);
	fprintf(stderr, "sh: unable to run %s: %s\n", TOOLKIT_BUSYBOX,
		errtext(errno));
	return 127;
}

int toolkit_unpack(const char *why)
{
	uint64_t start = log_now_us();
	char *blob = NULL, *cpio = NULL;
	size_t len, cpio_len, files = 0;
	int lock, err;

	/* On the directory: the blob is deleted before its files are out. */
	lock = open(TOOLKIT_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (lock >= 0 && flock(lock, LOCK_EX) < 0) {
		close(lock);
		lock = -1;
	}
	err = readfile_alloc(TOOLKIT_PATH, TOOLKIT_MAX_BLOB, &blob, &len);
	if (err == -ENOENT) {
		err = 0;		/* none, or unpacked */
		goto out;
	}
	if (err)
		log_error("toolkit: unable to read /%s: %s", TOOLKIT_BLOB,
			  errtext(-err));
	if (!err) {
		err = toolkit_xz(blob, len, &cpio, &cpio_len);
		if (err)
			log_error("toolkit: unable to decompress /%s: %s",
				  TOOLKIT_BLOB, err == -ENOMEM ?
				  "out of memory" : "not a whole .xz stream");
	}
	free(blob);
	/* Its RAM back before the files take theirs: a full rootfs. */
	if (!err) {
		unlink(TOOLKIT_PATH);
		err = toolkit_extract(cpio, cpio_len, &files);
	}
	free(cpio);
	/*
	 * Said by PID 1; a child's kmsg budget (10 records in 5 s a file)
	 * is kept for its own lines, such as dropbear's start.
	 */
	if (!err)
		log_msg(getpid() == 1 ? LOG_INFO : LOG_DEBUG,
			"toolkit: %zu files unpacked for %s in %llu ms", files,
			why, (unsigned long long)(log_now_us() - start) / 1000);
out:
	if (lock >= 0)
		close(lock);
	return err;
}
