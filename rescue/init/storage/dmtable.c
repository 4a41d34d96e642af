// SPDX-License-Identifier: GPL-2.0
/*
 * dmtable.c: a device-mapper device from a table, by ioctls on
 * /dev/mapper/control, see dmtable.h.  libdevmapper would do the same
 * but is linked dynamically on Debian and would add its udev
 * synchronisation; the three ioctls are what it sends.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/dm-ioctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "dmtable.h"
#include "rescue-init.h"

#define DM_CONTROL	"/dev/mapper/control"
#define ALIGN8(x)	(((x) + 7) & ~(size_t)7)

static void dm_header(struct dm_ioctl *io, size_t size, const char *name)
{
	memset(io, 0, sizeof(*io));
	io->version[0] = DM_VERSION_MAJOR;	/* minor 0: any kernel's */
	io->data_size = (__u32)size;
	io->data_start = sizeof(*io);
	snprintf(io->name, sizeof(io->name), "%s", name);
}

static const char *cmd_name(unsigned long cmd)
{
	switch (cmd) {
	case DM_DEV_CREATE:
		return "DM_DEV_CREATE";
	case DM_TABLE_LOAD:
		return "DM_TABLE_LOAD";
	case DM_DEV_SUSPEND:
		return "DM_DEV_SUSPEND (resume)";
	default:
		return "DM_DEV_REMOVE";
	}
}

static int dm_ioctl(int fd, unsigned long cmd, struct dm_ioctl *io)
{
	int err;

	if (ioctl(fd, cmd, io) == 0)
		return 0;
	err = -errno;
	log_warn("dm: %s of %s failed: %s", cmd_name(cmd), io->name,
		 errtext(-err));
	return err;
}

/* The DM_TABLE_LOAD buffer: the header, then each spec and its params. */
static struct dm_ioctl *table(const char *name, bool ro,
			      const struct dmtable_target *t, size_t n)
{
	size_t size = sizeof(struct dm_ioctl), off, i;
	struct dm_target_spec *spec;
	struct dm_ioctl *io;

	for (i = 0; i < n; i++)
		size += ALIGN8(sizeof(*spec) + strlen(t[i].params) + 1);
	io = calloc(1, size);
	if (!io)
		return NULL;
	dm_header(io, size, name);
	io->target_count = (__u32)n;
	io->flags = ro ? DM_READONLY_FLAG : 0;
	off = sizeof(*io);
	for (i = 0; i < n; i++) {
		size_t plen = strlen(t[i].params) + 1;
		size_t len = ALIGN8(sizeof(*spec) + plen);

		spec = (struct dm_target_spec *)((char *)io + off);
		spec->sector_start = t[i].start;
		spec->length = t[i].len;
		spec->next = (__u32)len;
		snprintf(spec->target_type, sizeof(spec->target_type), "%s",
			 t[i].type);
		memcpy(spec + 1, t[i].params, plen);	/* room counted above */
		off += len;
	}
	return io;
}

int dmtable_create(const char *name, const char *uuid, bool ro,
		   const struct dmtable_target *t, size_t n, unsigned *minor)
{
	struct dm_ioctl io, *load;
	int fd, err;

	if (strlen(name) >= DM_NAME_LEN || strlen(uuid) >= DM_UUID_LEN)
		return -ENAMETOOLONG;
	fd = open(DM_CONTROL, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		log_warn("dm: unable to open %s for %s: %s", DM_CONTROL, name,
			 errtext(-err));
		return err;
	}
	dm_header(&io, sizeof(io), name);
	snprintf(io.uuid, sizeof(io.uuid), "%s", uuid);
	err = dm_ioctl(fd, DM_DEV_CREATE, &io);
	if (err)
		goto out;
	*minor = minor(io.dev);
	load = table(name, ro, t, n);
	err = load ? dm_ioctl(fd, DM_TABLE_LOAD, load) : -ENOMEM;
	free(load);
	if (!err) {
		dm_header(&io, sizeof(io), name);
		err = dm_ioctl(fd, DM_DEV_SUSPEND, &io);
	}
	if (err) {
		dm_header(&io, sizeof(io), name);
		dm_ioctl(fd, DM_DEV_REMOVE, &io);
	}
out:
	close(fd);
	return err;
}
