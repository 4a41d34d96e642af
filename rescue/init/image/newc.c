// SPDX-License-Identifier: GPL-2.0
/*
 * newc.c: reads a cpio newc archive ("070701", the format of initramfs
 * images) in memory, for the toolkit (toolkit.c).  By hand: libarchive
 * is a shared library here and would more than double rescue-init; the
 * format is 13 hex fields and two padded strings.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "newc.h"

#define NEWC_MAGIC	"070701"
#define NEWC_HEADER	110		/* magic and 13 fields of 8 hex digits */
#define NEWC_TRAILER	"TRAILER!!!"

enum { F_INO, F_MODE, F_UID, F_GID, F_NLINK, F_MTIME, F_FILESIZE,
       F_DEVMAJOR, F_DEVMINOR, F_RDEVMAJOR, F_RDEVMINOR, F_NAMESIZE,
       F_CHECK, F_COUNT };

static int hex8(const char *p, unsigned long *v)
{
	int i;

	*v = 0;
	for (i = 0; i < 8; i++) {
		char c = p[i];
		unsigned d;

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return -EINVAL;
		*v = *v << 4 | d;
	}
	return 0;
}

static size_t pad4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

/* A plain relative path: no leading '/', no empty or ".." component. */
static bool newc_name_ok(const char *name)
{
	const char *p = name;

	if (!*name || *name == '/')
		return false;
	while (*p) {
		size_t n = strcspn(p, "/");

		if (!n || (n == 2 && !strncmp(p, "..", 2)))
			return false;
		p += n;
		if (*p && !*++p)
			return false;	/* a trailing '/' */
	}
	return true;
}

int newc_next(const char *buf, size_t len, size_t *off, struct newc_entry *e)
{
	unsigned long f[F_COUNT];
	size_t at = *off, name_end, data_end;
	int i;

	if (at > len || len - at < NEWC_HEADER ||
	    memcmp(buf + at, NEWC_MAGIC, strlen(NEWC_MAGIC)))
		return -EINVAL;
	for (i = 0; i < F_COUNT; i++)
		if (hex8(buf + at + 6 + 8 * i, &f[i]))
			return -EINVAL;
	/* The name with its NUL, padded so that header + name ends on 4. */
	if (!f[F_NAMESIZE] || f[F_NAMESIZE] > len - at - NEWC_HEADER ||
	    buf[at + NEWC_HEADER + f[F_NAMESIZE] - 1] ||
	    memchr(buf + at + NEWC_HEADER, '\0', f[F_NAMESIZE] - 1))
		return -EINVAL;
	e->name = buf + at + NEWC_HEADER;
	name_end = pad4(at + NEWC_HEADER + f[F_NAMESIZE]);
	/* The last entry's padding may be cut: it needs none. */
	if (name_end > len && !f[F_FILESIZE])
		name_end = len;
	if (name_end > len || f[F_FILESIZE] > len - name_end)
		return -EINVAL;
	data_end = name_end + f[F_FILESIZE];
	e->mode = (mode_t)f[F_MODE];
	e->data = buf + name_end;
	e->size = f[F_FILESIZE];
	*off = pad4(data_end) < len ? pad4(data_end) : len;
	if (!strcmp(e->name, NEWC_TRAILER))
		return 0;
	return newc_name_ok(e->name) ? 1 : -EINVAL;
}
