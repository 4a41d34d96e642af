// SPDX-License-Identifier: GPL-2.0
/*
 * multipath.c: one disk seen on several paths (two HBAs or ports to one
 * LUN, blk_same_disk()) is named as such, so that a root on it is one
 * match and not "2 devices match".  With multipath-tools in the image
 * (mkrescue --storage, when the host has them) the paths become one
 * dm-multipath map, made by the image's own multipath(8) as multipathd
 * would make it, and the root is found again on the map; without them,
 * or when a rescue boot keeps every disk read-only, the root is mounted
 * through its first path, and the line says why.
 *
 * multipath(8) needs no udev daemon, but it skips a path whose udev
 * database record is missing ("not initialized"): rescue-init, the
 * only udev here, writes an empty one ("I:" alone) for each path's
 * disk.  With no ID_SERIAL in it, multipath reads the WWID from sysfs
 * (VPD page 0x83), as for any disk udev left unnamed.  "multipath -a"
 * first puts the WWID in the image's wwids file: Debian's default
 * find_multipaths "strict" maps only the WWIDs listed there, and two
 * paths of one disk are rescue-init's own evidence that this one is.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "readfile.h"

#include "rescue-init.h"
#include "storage.h"

/* The other paths of l->dev[i], as " /dev/sdb1 /dev/sdc1": how many. */
static size_t other_paths(const struct blklist *l, size_t i, char *buf,
			  size_t size)
{
	size_t j, n = 0, used = 0;
	int w;

	buf[0] = '\0';
	for (j = 0; j < l->n; j++) {
		if (j == i || !blk_same_disk(&l->dev[i], &l->dev[j]))
			continue;
		n++;
		w = snprintf(buf + used, size - used, " %s", l->dev[j].node);
		if (w > 0 && (size_t)w < size - used)
			used += (size_t)w;
	}
	return n;
}

void multipath_note_root(const struct blklist *l, size_t i,
			 const char *why)
{
	char paths[256], id[128];
	size_t n;

	n = other_paths(l, i, paths, sizeof(paths));
	if (!n)
		return;
	devtable_escape(l->dev[i].path_id, id, sizeof(id));
	log_info("root on one disk seen on %zu paths (multipath, %s): %s%s; "
		 "mounted through %s, without a multipath map (%s)",
		 n + 1, id, l->dev[i].node, paths, l->dev[i].node, why);
}

#define MULTIPATH_UDEV_DATA	"/run/udev/data"

/*
 * An empty udev database record for DISK (sda): what makes multipath(8)
 * take it as a path.  The root's udev writes the full one at coldplug.
 */
static void udev_initialized(const char *disk)
{
	char path[128], dev[32];
	int fd;

	snprintf(path, sizeof(path), "/sys/class/block/%s/dev", disk);
	if (readfile_into(path, dev, sizeof(dev), NULL))
		return;
	dev[strcspn(dev, "\n")] = '\0';
	mkdir("/run/udev", 0755);
	mkdir(MULTIPATH_UDEV_DATA, 0755);
	snprintf(path, sizeof(path), MULTIPATH_UDEV_DATA "/b%s", dev);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return;		/* there already, or nowhere to write it */
	if (write(fd, "I:1\n", 4) != 4)
		log_warn("multipath: unable to write %s: %s", path,
			 errtext(errno));
	close(fd);
}

/* The disk a device is on: its own name for a whole disk. */
static const char *disk_of(const struct blkdev *d)
{
	return d->partno ? d->disk : d->name;
}

/* Why no map is made, or NULL when multipath(8) may try. */
static const char *map_refused(const struct cmdline *c)
{
	if (!cmdline_flag(c, "rd.multipath", true))
		return "rd.multipath=0";
	if (readonly_strict())
		return "strict read-only: dm-multipath cannot open read-only paths";
	if (access("/sbin/multipath", X_OK) && access("/usr/sbin/multipath", X_OK))
		return "multipath-tools are not in the image";
	return NULL;
}

/*
 * The map's name, from its first path's holder: "mpatha" or the WWID
 * (user_friendly_names off, Debian's default).
 */
static int map_name(const char *disk, char *name, size_t size)
{
	char path[128], holder[64] = "";
	struct dirent *e;
	DIR *dir;

	snprintf(path, sizeof(path), "/sys/class/block/%s/holders", disk);
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((e = readdir(dir)))
		if (!strncmp(e->d_name, "dm-", 3))
			snprintf(holder, sizeof(holder), "%.60s", e->d_name);
	closedir(dir);
	if (!holder[0] || dm_info(holder, name, size, NULL, 0))
		return -ENODEV;
	return 0;
}

/*
 * The udev database records of the map and its partitions' maps, for
 * the root's udev (dmudev.c): without them its rules leave the root's
 * device "not ready", and systemd waits for it in vain.
 */
static void record_maps(const char *holder_of)
{
	char path[128];
	struct blkdev d;
	struct dirent *e;
	struct stat st;
	DIR *dir;

	snprintf(path, sizeof(path), "/sys/class/block/%s/holders", holder_of);
	dir = opendir(path);
	if (!dir)
		return;
	while ((e = readdir(dir))) {
		if (strncmp(e->d_name, "dm-", 3))
			continue;
		memset(&d, 0, sizeof(d));
		snprintf(d.name, sizeof(d.name), "%.60s", e->d_name);
		/* devtmpfs made its node: the number is there */
		snprintf(path, sizeof(path), "/dev/%s", d.name);
		if (stat(path, &st) || !S_ISBLK(st.st_mode))
			continue;
		d.major = major(st.st_rdev);
		d.minor = minor(st.st_rdev);
		dm_udev_record(&d);
		record_maps(d.name);	/* its partitions' maps */
	}
	closedir(dir);
}

bool multipath_assemble(const struct cmdline *c, const struct blklist *l,
			size_t i)
{
	char paths[256], name[128], node[160], id[128];
	const struct blkdev *d = &l->dev[i];
	const char *why;
	size_t j, n;
	int status;

	n = other_paths(l, i, paths, sizeof(paths));
	if (!n)
		return false;
	why = map_refused(c);
	if (why) {
		multipath_note_root(l, i, why);
		return false;
	}
	if (dm_ready())
		return false;
	modload_alias("dm_multipath");
	modload_alias("dm_round_robin");
	modload_alias("dm_service_time");
	for (j = 0; j < l->n; j++)
		if (blk_same_disk(d, &l->dev[j]))
			udev_initialized(disk_of(&l->dev[j]));
	snprintf(node, sizeof(node), "/dev/%s", disk_of(d));
	status = dm_run("multipath", (char *const[]){ "multipath", "-a", node,
			NULL }, NULL, 0, NULL, 0);
	if (!status)
		status = dm_run("multipath", (char *const[]){ "multipath",
				"-v1", node, NULL }, NULL, 0, NULL, 0);
	if (status || map_name(disk_of(d), name, sizeof(name))) {
		multipath_note_root(l, i, "multipath(8) made no map");
		return false;
	}
	devtable_escape(d->path_id, id, sizeof(id));
	snprintf(node, sizeof(node), "/dev/mapper/%s", name);
	/* Partitions on the map, named as Debian's kpartx rules name them. */
	if (d->partno && dm_run("kpartx", (char *const[]){ "kpartx", "-a",
				"-p", "-part", node, NULL }, NULL, 0, NULL, 0)) {
		multipath_note_root(l, i, "kpartx made no partition maps");
		return false;
	}
	record_maps(disk_of(d));
	log_info("root on one disk seen on %zu paths (multipath, %s): %s%s; "
		 "assembled as the multipath map %s", n + 1, id, d->node,
		 paths, name);
	return true;
}
