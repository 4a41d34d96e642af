/* SPDX-License-Identifier: GPL-2.0 */
/*
 * members.h: block devices that are one part of something bigger (a
 * RAID member, a LUKS container, an LVM physical volume, a bcache
 * backing device, one device of a multi-device btrfs) and must not be
 * mounted as the root on their own.
 */
#ifndef RESCUE_MEMBERS_H
#define RESCUE_MEMBERS_H

#include <stdbool.h>
#include <stddef.h>

#include "rescue-init.h"

/*
 * Whether d is a member; if so, what of, in words that name it ("a
 * member of the md array 3f0c... (name host:root)").  Reads the device
 * for btrfs, whose device count libblkid does not report.
 */
bool members_describe(const struct blkdev *d, char *what, size_t size);

/* The device count of the btrfs filesystem whose superblock is in sb. */
unsigned long long members_btrfs_devices(const unsigned char *sb, size_t len);
/* The same, read from the device node (0 when it is not btrfs). */
unsigned long long members_btrfs_count(const char *node);

/*
 * Whether the btrfs layer (storage-btrfs.c) is on, from storage.c's
 * storage_init(): when it is, one device of a multi-device btrfs is no
 * longer refused, it mounts the whole filesystem.
 */
void members_set_btrfs_layer(bool on);

#endif
