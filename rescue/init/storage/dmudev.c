// SPDX-License-Identifier: GPL-2.0
/*
 * dmudev.c: the udev database record of a dm device rescue-init made,
 * for the root's udev.  Its coldplug ("udevadm trigger --action=add")
 * gives a dm device the flag DM_UDEV_PRIMARY_SOURCE_FLAG from the
 * database only; without it, 55-dm.rules disables the device's other
 * rules and systemd marks it not ready (SYSTEMD_READY=0): no
 * /dev/disk/by-uuid link, and a swap or a mount on it in the root's
 * fstab waits 90 s and fails (a swap on LUKS, the hibernating boot's).
 * dracut keeps its initramfs udev's database for the same reason; this
 * is the part of it the rules read.  /run goes to the root.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "readfile.h"
#include "storage.h"

#define UDEV_DATA	"/run/udev/data"
#define DM_RECORD	"E:DM_UDEV_PRIMARY_SOURCE_FLAG=1\nE:DM_UDEV_RULES_VSN=2\n"

void dm_udev_record(const struct blkdev *d)
{
	char path[96];
	int fd, err;

	if (strncmp(d->name, "dm-", 3) || !d->major)
		return;
	mkdir("/run/udev", 0755);
	mkdir(UDEV_DATA, 0755);
	snprintf(path, sizeof(path), UDEV_DATA "/b%u:%u", d->major, d->minor);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		if (errno != EEXIST)
			log_warn("unable to write %s for the root's udev: %s",
				 path, errtext(errno));
		return;
	}
	err = writefile_all(fd, DM_RECORD, strlen(DM_RECORD));
	if (err)
		log_warn("unable to write %s for the root's udev: %s", path,
			 errtext(-err));
	close(fd);
}
