// SPDX-License-Identifier: GPL-2.0
/*
 * lvmstrict.c: in strict mode, lvm run by hand (the rescue shell, an
 * SSH session) activates every LV it can see read-only.
 *
 * lvm reads /etc/lvm/lvm.conf on every run, whoever starts it, and
 * activates read-only the LVs of the VGs named in
 * activation/read_only_volume_list; that list has no wildcard (a name,
 * VG/LV or @tag), so the watcher names each VG whose PV it sees: it
 * reads the PV's label and metadata (lvmmeta.c) as the device appears,
 * and rewrites lvm.conf with the list, the image's own lvm.conf kept
 * aside until strict mode ends.  Without it the LV's table is
 * read-write and only the watcher's BLKROSET, a moment later, makes
 * the LV read-only.  (metadata_read_only in lvm.conf or --config does
 * not stop a metadata write of lvm 2.03.16 in the shell: its lock
 * setup reads it as 0; the read-only PVs refuse the write instead.)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "readfile.h"
#include "rescue-init.h"
#include "lvmdisk.h"
#include "lvmmeta.h"
#include "storage/readonly.h"

#define LVM_CONF	"/etc/lvm/lvm.conf"
#define LVM_CONF_SAVED	LVM_CONF ".before-strict"
#define LVM_CONF_MAX	65536
#define VGS_MAX		64

static char vgs[VGS_MAX][LVMMETA_NAME_MAX];
static size_t nvgs;

/* The VG of the PV /dev/NAME into vg->name: 0, or -ENOENT (no PV). */
static int pv_vg_name(const char *name, struct lvmmeta_vg *vg)
{
	const char *why;	/* storage-lvm.c's words: not said here */
	uint8_t buf[LVMMETA_LABEL_SCAN];
	struct lvmmeta_label l;
	char node[PATH_MAX];
	size_t i;
	int fd, err;

	blk_node_path(name, node, sizeof(node));
	fd = open(node, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = lvmdisk_read_at(fd, buf, sizeof(buf), 0);
	if (!err)
		err = lvmmeta_label(buf, sizeof(buf), &l);
	if (!err) {
		err = -ENOENT;	/* a PV with no metadata area */
		for (i = 0; err && i < l.nmda; i++)
			err = lvmdisk_read_area(fd, l.mda[i].offset,
					    l.mda[i].size, vg, &why);
	}
	close(fd);
	return err;
}

/* Where the line after "SECTION {" starts in conf, or NULL. */
static const char *section_body(const char *conf, const char *section)
{
	size_t len = strlen(section);
	const char *p = conf, *q;

	for (; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		for (q = p; *q == ' ' || *q == '\t'; q++)
			;
		if (strncmp(q, section, len))
			continue;
		for (q += len; *q == ' ' || *q == '\t'; q++)
			;
		if (*q != '{')
			continue;
		q = strchr(q, '\n');
		return q ? q + 1 : NULL;
	}
	return NULL;
}

/* The whole of data to path, through path.tmp; 0 or -errno. */
static int write_file(const char *path, const char *data, size_t len)
{
	char tmp[PATH_MAX];
	int fd, err = 0;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (write(fd, data, len) != (ssize_t)len)
		err = errno ? -errno : -EIO;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

/* The file at path, NUL-terminated, into buf: its length or -errno. */
static ssize_t read_conf(const char *path, char *buf, size_t size)
{
	size_t len;
	int err = readfile_into(path, buf, size, &len);

	if (err)
		return err;
	return len == size - 1 ? -EFBIG : (ssize_t)len;	/* cut: too big */
}

/*
 * lvm.conf: the image's (kept aside the first time) with every VG seen
 * so far in its activation section's read_only_volume_list.
 */
static int write_conf(void)
{
	static char old[LVM_CONF_MAX], buf[2 * LVM_CONF_MAX];
	char list[VGS_MAX * (LVMMETA_NAME_MAX + 4) + 64];
	const char *at;
	size_t len = 0, i, head;
	ssize_t n;
	int err;

	n = read_conf(LVM_CONF_SAVED, old, sizeof(old));
	if (n == -ENOENT) {
		n = read_conf(LVM_CONF, old, sizeof(old));
		if (n == -ENOENT)
			return 0;	/* no lvm in this image */
		if (n >= 0 && (err = write_file(LVM_CONF_SAVED, old,
						(size_t)n)))
			return err;
	}
	if (n < 0)
		return (int)n;
	len = (size_t)snprintf(list, sizeof(list),
			       "\t# rescue.ro=strict (rescue-init): every VG "
			       "seen\n\tread_only_volume_list = [");
	for (i = 0; i < nvgs; i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len,
					"%s \"%s\"", i ? "," : "", vgs[i]);
	snprintf(list + len, sizeof(list) - len, " ]\n");
	at = section_body(old, "activation");
	if (at) {
		head = (size_t)(at - old);
		n = snprintf(buf, sizeof(buf), "%.*s%s%s", (int)head, old,
			     list, at);
	} else {
		n = snprintf(buf, sizeof(buf), "%s%sactivation {\n%s}\n", old,
			     n && old[n - 1] != '\n' ? "\n" : "", list);
	}
	return write_file(LVM_CONF, buf, (size_t)n);
}

/* A suspended dm device: a read of it would wait for its resume. */
static bool dm_suspended(const char *name)
{
	char path[PATH_MAX], c = '0';
	int fd;

	if (strncmp(name, "dm-", 3))
		return false;
	snprintf(path, sizeof(path), "/sys/block/%s/dm/suspended", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (read(fd, &c, 1) != 1)
		c = '0';
	close(fd);
	return c == '1';
}

/*
 * A device not to read: empty (a loop device with no file), a floppy or
 * optical drive (a read without a medium retries for seconds), a
 * suspended dm device (the read would wait for its resume).
 */
static bool not_to_read(const char *name)
{
	char path[PATH_MAX], buf[32] = "";
	ssize_t n;
	int fd;

	if (!strncmp(name, "fd", 2) || !strncmp(name, "sr", 2))
		return true;
	snprintf(path, sizeof(path), "/sys/class/block/%s/size", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0 || strtoull(buf, NULL, 10) < LVMMETA_LABEL_SCAN / 512)
			return true;
	}
	return dm_suspended(name);
}

void lvmstrict_device(const char *name)
{
	struct lvmmeta_vg *vg;
	size_t i;
	int err;

	if (nvgs == VGS_MAX || not_to_read(name) ||
	    !(vg = malloc(sizeof(*vg))))
		return;
	vg->name[0] = '\0';
	err = pv_vg_name(name, vg);
	for (i = 0; !err && i < nvgs; i++)
		if (!strcmp(vgs[i], vg->name))
			err = -EEXIST;
	if (!err) {
		snprintf(vgs[nvgs++], sizeof(vgs[0]), "%s", vg->name);
		err = write_conf();
		if (err)
			log_error("strict read-only: unable to write %s: %s; "
				  "lvm in the shell activates volume group %s "
				  "read-write", LVM_CONF, errtext(-err),
				  vg->name);
		else
			log_info("strict read-only: volume group %s (PV "
				 "/dev/%s) is activated read-only by lvm in "
				 "the shell", vg->name, name);
	}
	free(vg);
}

void lvmstrict_undo(void)
{
	rename(LVM_CONF_SAVED, LVM_CONF);
	nvgs = 0;
}
