// SPDX-License-Identifier: GPL-2.0
/*
 * rescuerw.c: rescue-rw DEV, the rescue shell's one way to write to one
 * block device in strict read-only mode without mounting it: the target
 * of a ddrescue copy off a dying disk, which must stay untouched.
 *
 * rescue-mount --rw lifts strict mode for a device it mounts; a copy
 * target holds no filesystem yet, so it cannot go that way.  rescue-rw
 * lifts BLKRO on the one device named (readonly_set(), which leaves the
 * mark that keeps the watcher from setting it read-only again at its
 * change events) and nothing else; rescue-rw --ro puts it back.  A
 * device that is mounted, or that a dm or md device sits on, is refused:
 * writing under a filesystem or a stacked device corrupts it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/fs.h>

#include "rescue-init.h"

static const char rw_usage[] =
	"usage: rescue-rw DEV        make the block device DEV writable in "
	"strict read-only\n"
	"                            mode, mounting nothing (a ddrescue "
	"target)\n"
	"       rescue-rw --ro DEV   make it read-only again\n";

/* A mountinfo line's "MAJOR:MINOR" (its third field): is it this one? */
static bool same_dev(const char *field, unsigned major, unsigned minor)
{
	char *end;
	unsigned long ma = strtoul(field, &end, 10), mi;

	if (end == field || *end != ':')
		return false;
	field = end + 1;
	mi = strtoul(field, &end, 10);
	return end != field && !*end && ma == major && mi == minor;
}

/* Where device MAJOR:MINOR is mounted (mountinfo): 1 with DIR, else 0. */
static int mounted_on(unsigned major, unsigned minor, char *dir, size_t size)
{
	char buf[16384], *line, *nl, *save, *f[5];
	int i;

	if (mounts_read_proc("/proc/self/mountinfo", buf, sizeof(buf)))
		return 0;
	for (line = buf; *line; line = nl) {
		nl = line + strcspn(line, "\n");
		if (*nl)
			*nl++ = '\0';
		save = NULL;
		for (i = 0; i < 5; i++)
			f[i] = strtok_r(i ? NULL : line, " ", &save);
		if (f[4] && same_dev(f[2], major, minor)) {
			snprintf(dir, size, "%s", f[4]);
			return 1;
		}
	}
	return 0;
}

/* The first device stacked on NAME (dm, md: its holders), 1, else 0. */
static int held_by(const char *name, char *holder, size_t size)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d;
	int found = 0;

	snprintf(path, sizeof(path), "/sys/class/block/%s/holders", name);
	d = opendir(path);
	if (!d)
		return 0;
	while (!found && (e = readdir(d)))
		if (e->d_name[0] != '.') {
			blk_node_path(e->d_name, holder, size);
			found = 1;
		}
	closedir(d);
	return found;
}

/*
 * Why DEV (or, for a disk, one of its partitions) must not be written
 * under: 1 with the reason said, 0 when it is free.
 */
static int in_use(const struct blklist *l, const struct blkdev *dev)
{
	char what[256];
	size_t i;

	for (i = 0; i < l->n; i++) {
		const struct blkdev *d = &l->dev[i];

		if (d != dev && (dev->partno || strcmp(d->disk, dev->name)))
			continue;
		if (mounted_on(d->major, d->minor, what, sizeof(what))) {
			fprintf(stderr, "rescue-rw: unable to make %s writable: "
				"%s is mounted on %s\n", dev->node, d->node,
				what);
			return 1;
		}
		if (held_by(d->name, what, sizeof(what))) {
			fprintf(stderr, "rescue-rw: unable to make %s writable: "
				"%s is in use by %s, stacked on it\n",
				dev->node, d->node, what);
			return 1;
		}
	}
	return 0;
}

/* BLKROGET of NAME: 1 read-only, 0 writable, -errno. */
static int read_only(const char *name)
{
	char node[PATH_MAX];
	int fd, ro = 0;

	blk_node_path(name, node, sizeof(node));
	fd = open(node, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, BLKROGET, &ro))
		ro = -errno;
	close(fd);
	return ro;
}

/* Does another partition of DISK than SKIP read writable now? */
static bool sibling_writable(const struct blklist *l, const char *disk,
			     const char *skip)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->dev[i].partno && !strcmp(l->dev[i].disk, disk) &&
		    strcmp(l->dev[i].name, skip) && read_only(l->dev[i].name) == 0)
			return true;
	return false;
}

/* BLKROSET of NAME, said in one line; -errno on failure. */
static int set(const char *name, bool ro, const char *what)
{
	char node[PATH_MAX];
	int r = readonly_set(name, ro);

	blk_node_path(name, node, sizeof(node));
	if (r < 0)
		fprintf(stderr, "rescue-rw: unable to make %s%s %s: %s\n", node,
			what, ro ? "read-only" : "writable", errtext(-r));
	else
		printf("rescue-rw: %s%s %s\n", node, what,
		       r ? (ro ? "was writable, now read-only" :
			    "was read-only, now writable") :
		       (ro ? "is read-only" : "is writable"));
	return r < 0 ? r : 0;
}

/*
 * A partition is read-only while its disk is (the kernel checks both
 * flags), so its disk is made writable too, and read-only again with
 * the last writable partition; the other partitions keep their flag.
 */
static int rescue_rw(const char *dev, bool ro)
{
	struct blklist l = { 0 };
	char what[120];
	const char *name = strncmp(dev, "/dev/", 5) ? dev : dev + 5;
	const struct blkdev *d;
	ssize_t i;
	int err = 0;

	blk_enumerate(&l, "/sys/class/block");
	i = blk_find(&l, name);
	if (i < 0) {
		fprintf(stderr, "rescue-rw: unable to use %s: no such block "
			"device in /sys/class/block\n", dev);
		blk_free(&l);
		return 1;
	}
	d = &l.dev[i];
	if (!ro && in_use(&l, d)) {
		blk_free(&l);
		return 1;
	}
	if (!ro && !readonly_strict())
		printf("rescue-rw: strict read-only is off in this boot: "
		       "every device is writable unless set otherwise\n");
	snprintf(what, sizeof(what), " (the disk of %s)", d->node);
	if (ro) {
		err = set(d->name, true, "");
		if (!err && d->partno && !sibling_writable(&l, d->disk, d->name))
			err = set(d->disk, true, what);
	} else {
		err = set(d->name, false, "");
		if (!err && d->partno)
			err = set(d->disk, false, what);
	}
	if (!err && !ro)
		printf("rescue-rw: every other device stays as it was; "
		       "rescue-rw --ro %s puts it back\n", d->node);
	blk_free(&l);
	return err ? 1 : 0;
}

int rescue_rw_main(int argc, char *argv[])
{
	bool ro = argc == 3 && !strcmp(argv[1], "--ro");

	log_to_fd(2, "rescue-rw: ", false);
	if (argc != 2 + ro || argv[argc - 1][0] == '-') {
		fputs(rw_usage, stderr);
		return 2;
	}
	return rescue_rw(argv[argc - 1], ro);
}
