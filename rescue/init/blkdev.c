// SPDX-License-Identifier: GPL-2.0
/* blkdev.c: the block devices of /sys/class/block, disks and partitions. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rescue-init.h"

/* One small sysfs attribute, trailing newline removed. */
static int read_attr(int dirfd, const char *name, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return (int)n;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = '\0';
	return 0;
}

/* A partition's disk is the directory its sysfs directory sits in. */
static void find_disk(int classfd, struct blkdev *d)
{
	char link[512], *last, *prev;
	ssize_t n;

	n = readlinkat(classfd, d->name, link, sizeof(link) - 1);
	if (n <= 0)
		return;
	link[n] = '\0';
	last = strrchr(link, '/');
	if (!last)
		return;
	*last = '\0';
	prev = strrchr(link, '/');
	snprintf(d->disk, sizeof(d->disk), "%.63s", prev ? prev + 1 : link);
}

/* "MAJ:MIN\n" of a dev attribute; -EINVAL for anything else. */
static int parse_devnum(const char *s, unsigned *major, unsigned *minor)
{
	unsigned long maj, min;
	char *end;

	errno = 0;
	maj = strtoul(s, &end, 10);
	if (end == s || *end != ':' || errno || maj > UINT_MAX)
		return -EINVAL;
	s = end + 1;
	min = strtoul(s, &end, 10);
	if (end == s || (*end && *end != '\n') || errno || min > UINT_MAX)
		return -EINVAL;
	*major = (unsigned)maj;
	*minor = (unsigned)min;
	return 0;
}

/*
 * The disk's identity that multipath-tools compares (its WWID: SCSI
 * VPD page 0x83 in device/wwid, NVMe's wwid), or a virtio disk's
 * serial, read from its sysfs directory diskfd.
 */
static void read_path_id(int diskfd, char *id, size_t size)
{
	static const struct {
		const char *attr, *prefix;
	} sources[] = {
		{ "device/wwid", "wwid:" },
		{ "wwid", "wwid:" },
		{ "serial", "serial:" },
	};
	char value[80] = "";
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sources); i++) {
		if (read_attr(diskfd, sources[i].attr, value, sizeof(value)) ||
		    !value[0])
			continue;
		snprintf(id, size, "%s%s", sources[i].prefix, value);
		return;
	}
}

/*
 * Whether the disk of sysfs directory diskfd is a path of a
 * dm-multipath map: one of its holders is a dm device whose dm UUID
 * multipath gave ("mpath-WWID").  Its blocks are the map's then.
 */
static bool read_held(int diskfd)
{
	char attr[128], uuid[16];
	struct dirent *e;
	bool held = false;
	DIR *dir;
	int fd;

	fd = openat(diskfd, "holders", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return false;
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return false;
	}
	while (!held && (e = readdir(dir))) {
		if (strncmp(e->d_name, "dm-", 3))
			continue;
		snprintf(attr, sizeof(attr), "holders/%.60s/dm/uuid", e->d_name);
		held = !read_attr(diskfd, attr, uuid, sizeof(uuid)) &&
		       !strncmp(uuid, "mpath-", 6);
	}
	closedir(dir);
	return held;
}

static int read_device(int classfd, const char *name, struct blkdev *d)
{
	char buf[64];
	int fd, err;

	memset(d, 0, sizeof(*d));
	if (snprintf(d->name, sizeof(d->name), "%s", name) >= (int)sizeof(d->name))
		return -ENAMETOOLONG;
	fd = openat(classfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = read_attr(fd, "dev", buf, sizeof(buf));
	if (!err)
		err = parse_devnum(buf, &d->major, &d->minor);
	if (!err && read_attr(fd, "size", buf, sizeof(buf)) == 0)
		d->sectors = strtoull(buf, NULL, 10);
	if (!err && read_attr(fd, "partition", buf, sizeof(buf)) == 0)
		d->partno = (unsigned)strtoul(buf, NULL, 10);
	if (!err && !d->partno) {
		read_path_id(fd, d->path_id, sizeof(d->path_id));
		d->held = read_held(fd);
	}
	if (!err && d->partno) {
		/* A partition's directory is inside its disk's. */
		int diskfd = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (diskfd >= 0) {
			read_path_id(diskfd, d->path_id, sizeof(d->path_id));
			d->held = read_held(diskfd);
			close(diskfd);
		}
	}
	close(fd);
	if (err)
		return err;
	if (d->partno)
		find_disk(classfd, d);
	blk_node_path(name, d->node, sizeof(d->node));
	return 0;
}

/* /dev/NAME for the sysfs NAME, whose '!' stands for '/' (cciss!c0d0). */
void blk_node_path(const char *name, char *node, size_t size)
{
	char *p;

	snprintf(node, size, "/dev/%s", name);
	for (p = node; *p; p++)
		if (*p == '!')
			*p = '/';
}

ssize_t blk_find(const struct blklist *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->dev[i].name, name))
			return (ssize_t)i;
	return -1;
}

static void clear_device(struct blkdev *d)
{
	/* NOLINTNEXTLINE(clang-analyzer-unix.Malloc): read_device zeroes parts */
	free(d->parts);
	d->parts = NULL;
	d->nparts = 0;
}

static int add_at(struct blklist *l, int classfd, const char *name)
{
	struct blkdev d, *grown;
	ssize_t at;
	int err;

	err = read_device(classfd, name, &d);
	if (err)
		return err;
	at = blk_find(l, name);
	if (at >= 0) {
		clear_device(&l->dev[at]);
		l->dev[at] = d;
		return (int)at;
	}
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 32;

		grown = realloc(l->dev, cap * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		l->dev = grown;
		l->cap = cap;
	}
	l->dev[l->n] = d;
	return (int)l->n++;
}

/* Add or refresh one device by its sysfs name: its index, or -errno. */
int blk_add(struct blklist *l, const char *classdir, const char *name)
{
	int fd, ret;

	if (strchr(name, '/') || name[0] == '.')
		return -EINVAL;
	fd = open(classdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = add_at(l, fd, name);
	close(fd);
	return ret;
}

void blk_remove(struct blklist *l, const char *name)
{
	ssize_t at = blk_find(l, name);

	if (at < 0)
		return;
	clear_device(&l->dev[at]);
	memmove(&l->dev[at], &l->dev[at + 1],
		(l->n - at - 1) * sizeof(l->dev[0]));
	l->n--;
}

/* Natural order: vda, vda1, vda2, vda10, vdb. */
static int by_name(const void *a, const void *b)
{
	const char *x = ((const struct blkdev *)a)->name;
	const char *y = ((const struct blkdev *)b)->name;

	while (*x && *y) {
		if (isdigit((unsigned char)*x) && isdigit((unsigned char)*y)) {
			unsigned long m = strtoul(x, (char **)&x, 10);
			unsigned long n = strtoul(y, (char **)&y, 10);

			if (m != n)
				return m < n ? -1 : 1;
			continue;
		}
		if (*x != *y)
			return (unsigned char)*x - (unsigned char)*y;
		x++;
		y++;
	}
	return (unsigned char)*x - (unsigned char)*y;
}

/* Every device of classdir (/sys/class/block), sorted by name. */
int blk_enumerate(struct blklist *l, const char *classdir)
{
	struct dirent *e;
	DIR *dir;
	int fd, err = 0;

	fd = open(classdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	dir = fdopendir(fd);
	if (!dir) {
		err = -errno;
		close(fd);
		return err;
	}
	while ((e = readdir(dir))) {
		if (e->d_name[0] == '.')
			continue;
		err = add_at(l, fd, e->d_name);
		if (err == -ENOMEM)
			break;
		err = 0;	/* a device that went away meanwhile */
	}
	closedir(dir);
	if (l->n > 1)
		qsort(l->dev, l->n, sizeof(l->dev[0]), by_name);
	return err;
}

void blk_free(struct blklist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		clear_device(&l->dev[i]);
	free(l->dev);
	memset(l, 0, sizeof(*l));
}
