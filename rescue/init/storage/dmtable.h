/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dmtable.h: a device-mapper device made by the ioctls of
 * linux/dm-ioctl.h, as libdevmapper makes one (DM_DEV_CREATE with name
 * and UUID, DM_TABLE_LOAD, DM_DEV_SUSPEND without the suspend flag to
 * resume), with no udev cookie: the kernel's uevents of the new dm-N
 * bring it to rescue-init like any disk.
 */
#ifndef RESCUE_DMTABLE_H
#define RESCUE_DMTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DMTABLE_PARAMS_MAX	1024

struct dmtable_target {
	uint64_t start, len;		/* sectors */
	char type[16];			/* "linear", "striped" */
	char params[DMTABLE_PARAMS_MAX];
};

/*
 * Make the device name (uuid) with the n targets t, read-only if ro:
 * 0 and its minor in *minor (dm-N), or -errno after the line that says
 * which ioctl failed for name and why; a device half made is removed.
 */
int dmtable_create(const char *name, const char *uuid, bool ro,
		   const struct dmtable_target *t, size_t n, unsigned *minor);

#endif
