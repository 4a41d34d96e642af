// SPDX-License-Identifier: GPL-2.0
/*
 * members.c: recognise devices that are a part, not a whole.  An md
 * RAID1 member with metadata 0.90 or 1.0 keeps its superblock at the
 * end, so the filesystem at its start looks like any other; mounting
 * one half of a mirror read-write desynchronises it.  The boot's probe
 * therefore looks for these signatures too (libblkid reports a RAID or
 * crypto signature in preference to the filesystem it covers), and
 * rootmount.c refuses a member unless told otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "members.h"
#include "storage-layers.h"

/*
 * libblkid TYPE names, and what to call the whole they belong to: the
 * member column of rescue/share/storage-layers.
 */
static const struct {
	const char *type;
	const char *whole;
} kinds[] = {
#define STORAGE_MEMBER(type, whole) { type, whole },
	STORAGE_MEMBERS
#undef STORAGE_MEMBER
};

#define BTRFS_SB_OFFSET		65536
#define BTRFS_MAGIC_OFFSET	0x40
#define BTRFS_NUM_DEVICES	0x88	/* __le64 num_devices */

unsigned long long members_btrfs_devices(const unsigned char *sb, size_t len)
{
	unsigned long long n = 0;
	int i;

	if (len < BTRFS_NUM_DEVICES + 8 ||
	    memcmp(sb + BTRFS_MAGIC_OFFSET, "_BHRfS_M", 8))
		return 0;
	for (i = 7; i >= 0; i--)
		n = n << 8 | sb[BTRFS_NUM_DEVICES + i];
	return n;
}

/*
 * With the btrfs layer on, a multi-device btrfs mounts as a whole:
 * storage.c says so as it starts the layers.
 */
static bool btrfs_layer;

void members_set_btrfs_layer(bool on)
{
	btrfs_layer = on;
}

unsigned long long members_btrfs_count(const char *node)
{
	unsigned char sb[BTRFS_NUM_DEVICES + 8];
	ssize_t n;
	int fd;

	fd = open(node, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return 0;
	n = pread(fd, sb, sizeof(sb), BTRFS_SB_OFFSET);
	close(fd);
	return n == (ssize_t)sizeof(sb) ? members_btrfs_devices(sb, sizeof(sb))
					: 0;
}

bool members_describe(const struct blkdev *d, char *what, size_t size)
{
	char uuid[300], label[300];
	unsigned long long ndev;
	size_t i;

	/* Both come from the disk: escaped like the device table's. */
	devtable_escape(d->uuid, uuid, sizeof(uuid));
	devtable_escape(d->label, label, sizeof(label));
	for (i = 0; i < ARRAY_SIZE(kinds); i++) {
		if (strcmp(d->type, kinds[i].type))
			continue;
		/* a whole without a UUID (dm-integrity): no space before none */
		snprintf(what, size, "%s%s%s%s%s%s", kinds[i].whole,
			 d->uuid[0] ? " " : "", d->uuid[0] ? uuid : "",
			 d->label[0] ? " (name " : "",
			 d->label[0] ? label : "", d->label[0] ? ")" : "");
		return true;
	}
	if (!strcmp(d->type, "btrfs") && !btrfs_layer &&
	    (ndev = members_btrfs_count(d->node)) > 1) {
		snprintf(what, size, "one of the %llu devices of the btrfs "
			 "filesystem %s", ndev, uuid);
		return true;
	}
	return false;
}
