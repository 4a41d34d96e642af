// SPDX-License-Identifier: GPL-2.0
/*
 * dmnodes.c: /dev/mapper/NAME for the device-mapper devices that others
 * make (dmsetup, cryptsetup, lvm in the rescue shell or an SSH session),
 * as udev's 10-dm.rules would make it: a link to ../dm-N.
 *
 * No udev runs here, and dmsetup leaves its nodes to udev whatever
 * happens (it sets DM_UDEV_DISABLE_LIBRARY_FALLBACK unless --verifyudev
 * or DM_DISABLE_UDEV=1 is given), so `dmsetup create NAME` left no
 * /dev/mapper/NAME.  The watcher of readonly.c calls these for each dm
 * uevent; a node libdevmapper or lvm made itself is left as it is.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "rescue-init.h"
#include "storage.h"
#include "readonly.h"

#define MAPPER_DIR	"/dev/mapper"

static bool is_dm(const char *dev)
{
	return !strncmp(dev, "dm-", 3) && !strchr(dev, '/');
}

/*
 * Every link in /dev/mapper to ../DEV but KEEP (NULL: all) removed: a
 * mapping renamed or gone.
 */
static void remove_links(const char *dev, const char *keep)
{
	char path[PATH_MAX], target[64], want[64];
	struct dirent *e;
	ssize_t n;
	DIR *d;

	d = opendir(MAPPER_DIR);
	if (!d)
		return;
	snprintf(want, sizeof(want), "../%s", dev);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || (keep && !strcmp(e->d_name, keep)))
			continue;
		snprintf(path, sizeof(path), MAPPER_DIR "/%s", e->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		if (!strcmp(target, want) && unlink(path) == 0)
			log_info("dm: %s removed (%s is %s)", path, dev,
				 keep ? "renamed" : "gone");
	}
	closedir(d);
}

/* /dev/mapper/NAME, whatever it was, made a link to ../DEV. */
static void dmnodes_update_link(const char *name, const char *dev)
{
	char path[PATH_MAX], target[64];

	if (mkdir(MAPPER_DIR, 0755) && errno != EEXIST)
		return;
	snprintf(path, sizeof(path), MAPPER_DIR "/%s", name);
	unlink(path);		/* a stale node or link of an older dm-N */
	snprintf(target, sizeof(target), "../%s", dev);
	if (symlink(target, path) && errno != EEXIST)
		log_warn("dm: unable to link %s to %s: %s", path, dev,
			 errtext(errno));
}

/* DEV (dm-N) appeared or changed: /dev/mapper/NAME names it. */
void dmnodes_update(const char *dev)
{
	char name[128] = "", path[PATH_MAX], devpath[64];
	struct stat dst, st;

	if (!is_dm(dev) || dm_info(dev, name, sizeof(name), NULL, 0) ||
	    !name[0] || strchr(name, '/') || !strcmp(name, ".") ||
	    !strcmp(name, ".."))
		return;
	remove_links(dev, name);
	snprintf(devpath, sizeof(devpath), "/dev/%s", dev);
	if (stat(devpath, &dst) || !S_ISBLK(dst.st_mode))
		return;
	snprintf(path, sizeof(path), MAPPER_DIR "/%s", name);
	if (stat(path, &st) == 0 && S_ISBLK(st.st_mode) &&
	    st.st_rdev == dst.st_rdev)
		return;		/* libdevmapper's node, or ours */
	dmnodes_update_link(name, dev);
}

/* DEV (dm-N) is gone: its links with it. */
void dmnodes_remove(const char *dev)
{
	if (is_dm(dev))
		remove_links(dev, NULL);
}

/*
 * Before the switch: each /dev/mapper/NAME that is a block node (made by
 * libdevmapper, DM_DISABLE_UDEV) becomes the link udev makes, ../dm-N.
 * The root's udev refuses to replace a node with its link ("Failed to
 * create/update device symlink ... File exists", a warning systemd
 * shows); whether the node or dmnodes_update()'s link came first
 * depended on whether cryptsetup or the uevent watcher was first.
 */
void dmnodes_hand_over(void)
{
	char path[PATH_MAX], devpath[64];
	struct dirent *e;
	struct stat st, dst;
	DIR *d;

	d = opendir(MAPPER_DIR);
	if (!d)
		return;
	while ((e = readdir(d))) {
		snprintf(path, sizeof(path), MAPPER_DIR "/%s", e->d_name);
		if (lstat(path, &st) || !S_ISBLK(st.st_mode))
			continue;
		snprintf(devpath, sizeof(devpath), "dm-%u", minor(st.st_rdev));
		snprintf(path, sizeof(path), "/dev/%s", devpath);
		/* only a node of a dm device devtmpfs knows by that name */
		if (stat(path, &dst) || dst.st_rdev != st.st_rdev)
			continue;
		dmnodes_update_link(e->d_name, devpath);
	}
	closedir(d);
}
