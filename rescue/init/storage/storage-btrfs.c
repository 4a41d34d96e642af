// SPDX-License-Identifier: GPL-2.0
/*
 * storage-btrfs.c: multi-device btrfs.  The kernel mounts such a
 * filesystem from any one of its devices once it knows all the others;
 * udev tells it with "btrfs device ready" per device, which is
 * BTRFS_IOC_SCAN_DEV on /dev/btrfs-control (registers the device) and
 * BTRFS_IOC_DEVICES_READY (whether every device of its filesystem is
 * registered).  Nothing is written: registering only reads.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/btrfs.h>

#include "members.h"
#include "storage.h"

#define BTRFS_CONTROL	"/dev/btrfs-control"
#define BTRFS_FS_MAX	16
#define BTRFS_DEVS_MAX	16

struct btrfs_fs {
	char uuid[64];
	unsigned long long total;	/* num_devices of its superblock */
	size_t n;
	char dev[BTRFS_DEVS_MAX][64];
	bool ready;
};

static struct btrfs_fs filesystems[BTRFS_FS_MAX];
static size_t nfs;
static bool no_control, degraded_ok;

/* Whether the comma-separated opts hold want. */
static bool has_option(const char *opts, const char *want)
{
	size_t len = strlen(want);
	const char *p;

	for (p = opts; p; p = strchr(p, ',')) {
		p += *p == ',';
		if (!strncmp(p, want, len) && (p[len] == ',' || !p[len]))
			return true;
	}
	return false;
}

static bool btrfs_setup(const struct cmdline *c)
{
	/* mounted without its missing devices: match it incomplete */
	degraded_ok = c->rootflags && has_option(c->rootflags, "degraded");
	return true;
}

/* Of a multi-device btrfs (storage.c matched the type). */
static bool btrfs_claims(const struct blkdev *d)
{
	return members_btrfs_count(d->node) > 1;
}

/* /dev/btrfs-control, which devtmpfs makes once btrfs is loaded. */
static int open_control(void)
{
	int fd;

	fd = open(BTRFS_CONTROL, O_RDWR | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		modload_alias("devname:btrfs-control");
		fd = open(BTRFS_CONTROL, O_RDWR | O_CLOEXEC);
	}
	if (fd < 0 && !no_control) {
		log_warn("btrfs: unable to open %s: %s; multi-device btrfs "
			 "filesystems stay unregistered", BTRFS_CONTROL,
			 errtext(errno));
		no_control = true;
	}
	return fd < 0 ? -errno : fd;
}

static struct btrfs_fs *find_fs(const struct blkdev *d)
{
	size_t known = nfs;
	struct btrfs_fs *fs = STORAGE_SLOT(filesystems, nfs, uuid, d->uuid);

	if (fs && nfs > known)	/* new: how many devices it wants */
		fs->total = members_btrfs_count(d->node);
	return fs;
}

static int btrfs_device_added(const struct blkdev *d)
{
	struct btrfs_ioctl_vol_args args;
	struct btrfs_fs *fs = find_fs(d);
	int fd, err, r;
	size_t i;

	if (!fs)
		return -ENOSPC;
	for (i = 0; i < fs->n; i++)
		if (!strcmp(fs->dev[i], d->name))
			return 0;	/* registered already */
	fd = open_control();
	if (fd < 0)
		return fd;
	memset(&args, 0, sizeof(args));
	snprintf(args.name, sizeof(args.name), "%s", d->node);
	if (ioctl(fd, BTRFS_IOC_SCAN_DEV, &args)) {
		err = -errno;
		log_warn("btrfs: unable to register %s (filesystem %s): %s",
			 d->node, fs->uuid, errtext(-err));
		close(fd);
		return err;
	}
	if (fs->n < BTRFS_DEVS_MAX)
		snprintf(fs->dev[fs->n++], sizeof(fs->dev[0]), "%s", d->name);
	r = ioctl(fd, BTRFS_IOC_DEVICES_READY, &args);
	close(fd);
	fs->ready = r == 0;	/* 1: devices missing, <0: an error */
	log_info("btrfs: registered %s, %zu of %llu devices of %s%s", d->node,
		 fs->n, fs->total, fs->uuid, fs->ready ? ", all there" : "");
	return 0;
}

/* A btrfs missing a device mounts only with -o degraded: say so. */
static int btrfs_root_wait_over(void)
{
	size_t i;

	for (i = 0; i < nfs; i++)
		if (!filesystems[i].ready)
			log_warn("btrfs: filesystem %s has %zu of its %llu "
				 "devices; rootflags=degraded mounts it "
				 "without the others", filesystems[i].uuid,
				 filesystems[i].n, filesystems[i].total);
	return 0;
}

static void btrfs_report(devtable_line_fn *fn, void *ctx)
{
	char line[512];
	size_t i, j, n;

	for (i = 0; i < nfs; i++) {
		const struct btrfs_fs *fs = &filesystems[i];

		n = (size_t)snprintf(line, sizeof(line), "btrfs %s: %zu of "
				     "%llu devices%s:", fs->uuid, fs->n,
				     fs->total, fs->ready ? ", ready" :
				     ", incomplete");
		for (j = 0; j < fs->n && n < sizeof(line); j++)
			n += (size_t)snprintf(line + n, sizeof(line) - n,
					      " %s", fs->dev[j]);
		fn(ctx, line);
	}
}

/* Until all its devices are registered, root= does not match one. */
static void btrfs_device_seen(struct blkdev *d)
{
	size_t i, j;

	for (i = 0; i < nfs; i++)
		for (j = 0; j < filesystems[i].n; j++)
			if (!strcmp(filesystems[i].dev[j], d->name))
				d->incomplete = !filesystems[i].ready &&
						!degraded_ok;
}

const struct storage_layer storage_btrfs = {
	.setup = btrfs_setup,
	.claims = btrfs_claims,
	.device_added = btrfs_device_added,
	.root_wait_over = btrfs_root_wait_over,
	.device_seen = btrfs_device_seen,
	.report = btrfs_report,
};
