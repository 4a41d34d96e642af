// SPDX-License-Identifier: GPL-2.0
/*
 * hostonly.c: what --hostonly keeps, from the running host: the drivers
 * of its own block devices, as dracut --hostonly finds them (each
 * device's ancestors in /sys, their driver's module and their modalias),
 * the md and dm layers under them, and the module of its root
 * filesystem (/proc/mounts, read with getmntent(3)).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mkrescue.h"

/* The last component of the target of link DIR/NAME, or NULL. */
static const char *link_base(const char *dir, const char *name, char *buf,
			     size_t size)
{
	char path[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	n = readlink(path, buf, size - 1);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return strrchr(buf, '/') ? strrchr(buf, '/') + 1 : buf;
}

/* The first line of DIR/NAME, or NULL. */
static const char *first_line(const char *dir, const char *name, char *buf,
			      size_t size)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "re");
	if (!f)
		return NULL;
	if (!fgets(buf, (int)size, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return buf[0] ? buf : NULL;
}

/* The device of block DEV and each of its parents up to /sys/devices. */
static int hostonly_device(const char *sysfs, const char *dev,
			   hostonly_fn *fn, void *ctx)
{
	char path[PATH_MAX], real[PATH_MAX], buf[512], why[300];
	const char *v;
	size_t top;
	char *slash;
	int err = 0;

	snprintf(path, sizeof(path), "%s/class/block/%s/device", sysfs, dev);
	if (!realpath(path, real))
		return 0;	/* a partition, loop, zram: no device */
	snprintf(why, sizeof(why), "--hostonly, block device %s", dev);
	top = strlen(sysfs) + strlen("/devices");
	while (!err && strlen(real) > top) {
		if ((v = link_base(real, "driver/module", buf, sizeof(buf))))
			err = fn(ctx, v, why);
		if (!err && (v = link_base(real, "driver", buf, sizeof(buf))))
			err = fn(ctx, v, why);	/* built in: no module link */
		if (!err && (v = first_line(real, "modalias", buf, sizeof(buf))))
			err = fn(ctx, v, why);
		slash = strrchr(real, '/');
		if (!slash)
			break;
		*slash = '\0';
	}
	return err;
}

/* md and device-mapper devices: their layer, not a driver of /sys. */
static int hostonly_layer(const char *sysfs, const char *dev,
			  hostonly_fn *fn, void *ctx)
{
	char dir[PATH_MAX], buf[256], why[300];
	const char *v;
	int err = 0;

	snprintf(why, sizeof(why), "--hostonly, block device %s", dev);
	snprintf(dir, sizeof(dir), "%s/class/block/%s", sysfs, dev);
	if ((v = first_line(dir, "md/level", buf, sizeof(buf)))) {
		err = fn(ctx, "md_mod", why);
		if (!err && (!strcmp(v, "raid4") || !strcmp(v, "raid5") ||
			     !strcmp(v, "raid6")))
			err = fn(ctx, "raid456", why);
		else if (!err)
			err = fn(ctx, v, why);		/* raid0, raid1, raid10 */
	}
	if (!err && (v = first_line(dir, "dm/uuid", buf, sizeof(buf)))) {
		err = fn(ctx, "dm_mod", why);
		if (!err && !strncmp(v, "CRYPT-", 6))
			err = fn(ctx, "dm_crypt", why);
	}
	return err;
}

int hostonly_walk(const char *sysfs, const char *mounts, hostonly_fn *fn,
		  void *ctx)
{
	char path[PATH_MAX], fs[128];
	struct mntent *m;
	struct dirent *e;
	FILE *f;
	DIR *d;
	int err = 0;

	snprintf(path, sizeof(path), "%s/class/block", sysfs);
	d = opendir(path);
	if (!d) {
		err = -errno;
		msg_error("unable to find the host's block devices: %s: %s",
			  path, strerror(-err));
		return err;
	}
	while (!err && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		err = hostonly_device(sysfs, e->d_name, fn, ctx);
		if (!err)
			err = hostonly_layer(sysfs, e->d_name, fn, ctx);
	}
	closedir(d);
	if (err)
		return err;
	f = setmntent(mounts, "re");
	if (!f) {
		err = -errno;
		msg_error("unable to find the host's root filesystem: %s: %s",
			  mounts, strerror(-err));
		return err;
	}
	fs[0] = '\0';
	while ((m = getmntent(f)))	/* the last mount on / is the one seen */
		if (!strcmp(m->mnt_dir, "/") && strcmp(m->mnt_type, "rootfs"))
			snprintf(fs, sizeof(fs), "%s", m->mnt_type);
	endmntent(f);
	if (!fs[0])
		return 0;
	snprintf(path, sizeof(path), "fs-%s", fs);
	err = fn(ctx, path, "--hostonly, the root filesystem");
	return err ? err : fn(ctx, fs, "--hostonly, the root filesystem");
}
