// SPDX-License-Identifier: GPL-2.0
/*
 * mklayout-names.c: how things are named, in the plan files and by the
 * kernel.  The kernel numbering rules (build/bzImage, QEMU's PCI order):
 * virtio-blk disks are vda, vdb... in PCI order, 254:16*i+partno (the
 * first dynamic major; 253 when md, built in, registers mdp before it:
 * --virtio-blk-major says which);
 * NVMe controllers are nvme0, nvme1... in PCI order, so names are known,
 * but their MAJ:MIN come from the shared 259 pool in scan order, known
 * only when there is a single NVMe disk (259:0, then its partitions in
 * number order); SCSI-type disks (virtio-scsi, AHCI, USB) are sda, sdb...
 * in asynchronous scan order, known only when there is a single one
 * (sda, 8:partno).
 */
#include <stdio.h>
#include <string.h>

#include "mklayout.h"

/* The booted kernel's; set by --virtio-blk-major. */
unsigned int virtio_blk_major = 254;
#define SD_MAJOR		8
#define BLOCK_EXT_MAJOR		259
#define VIRTIO_BLK_MINORS	16
#define SD_MINORS		16

static const char *const bus_names[BUS_COUNT] = {
	"virtio-blk", "virtio-scsi", "ahci", "nvme", "usb",
};
static const char *const table_names[TABLE_COUNT] = { "none", "mbr", "gpt" };
static const char *const fs_names[FS_COUNT] = {
	"none", "ext2", "ext3", "ext4", "vfat",
};
static const char *const form_names[FORM_COUNT] = {
	"/dev/NAME", "UUID", "LABEL", "PARTUUID", "PARTUUID/PARTNROFF",
	"PARTLABEL", "MAJ:MIN", "hex",
};
static const char *const role_names[ROLE_COUNT] = {
	"unset", "root", "blank", "data", "impostor", "label-near",
	"uuid-near", "partlabel-is-root-label", "partuuid-near",
};
static const char *const dirty_names[DIRTY_COUNT] = { "no", "strict", "written" };

const char *bus_name(enum bus bus)
{
	return bus_names[bus];
}

const char *table_name(enum table table)
{
	return table_names[table];
}

const char *fs_name(enum fs fs)
{
	return fs_names[fs];
}

const char *form_name(enum form form)
{
	return form_names[form];
}

const char *role_name(enum role role)
{
	return role_names[role];
}

const char *dirty_name(enum dirty dirty)
{
	return dirty_names[dirty];
}

bool bus_is_scsi(enum bus bus)
{
	return bus == BUS_VIRTIO_SCSI || bus == BUS_AHCI || bus == BUS_USB;
}

const struct volume *location_volume(const struct layout *l, struct location loc)
{
	const struct disk *d = &l->disk[loc.disk];

	if (loc.part < 0)
		return d->table == TABLE_NONE ? &d->whole : NULL;
	return d->part[loc.part].extended ? NULL : &d->part[loc.part].vol;
}

bool location_same(struct location a, struct location b)
{
	return a.disk == b.disk && a.part == b.part;
}

unsigned int layout_count_bus(const struct layout *l, enum bus bus)
{
	unsigned int i, n = 0;

	for (i = 0; i < l->ndisks; i++)
		n += l->disk[i].bus == bus;
	return n;
}

static unsigned int count_scsi(const struct layout *l)
{
	unsigned int i, n = 0;

	for (i = 0; i < l->ndisks; i++)
		n += bus_is_scsi(l->disk[i].bus);
	return n;
}

/* The disk's position among the earlier disks of its bus. */
static unsigned int bus_index(const struct layout *l, int disk)
{
	unsigned int n = 0;
	int i;

	for (i = 0; i < disk; i++)
		n += l->disk[i].bus == l->disk[disk].bus;
	return n;
}

static unsigned int part_number(const struct layout *l, struct location loc)
{
	return loc.part < 0 ? 0 : l->disk[loc.disk].part[loc.part].number;
}

bool kernel_name(const struct layout *l, struct location loc, char *buf, size_t size)
{
	const struct disk *d = &l->disk[loc.disk];
	unsigned int partno = part_number(l, loc);
	unsigned int i = bus_index(l, loc.disk);
	char disk[24];
	int n;

	if (d->bus == BUS_VIRTIO_BLK) {
		snprintf(disk, sizeof(disk), "vd%c", 'a' + i);
	} else if (d->bus == BUS_NVME) {
		snprintf(disk, sizeof(disk), "nvme%un1", i);
	} else if (count_scsi(l) == 1) {
		snprintf(disk, sizeof(disk), "sda");
	} else {
		if (partno)
			snprintf(buf, size, "sd?%u", partno);
		else
			snprintf(buf, size, "sd?");
		return false;
	}
	if (!partno)
		n = snprintf(buf, size, "%s", disk);
	else if (d->bus == BUS_NVME)
		n = snprintf(buf, size, "%sp%u", disk, partno);
	else
		n = snprintf(buf, size, "%s%u", disk, partno);
	return n > 0 && (size_t)n < size;
}

/* NVMe minors: the disk first, then its partitions by number. */
static unsigned int nvme_rank(const struct layout *l, struct location loc)
{
	const struct disk *d = &l->disk[loc.disk];
	unsigned int number = part_number(l, loc), rank = 0, i;

	if (!number)
		return 0;
	for (i = 0; i < d->nparts; i++)
		rank += d->part[i].number <= number;
	return rank;
}

bool kernel_devt(const struct layout *l, struct location loc,
		 unsigned int *major, unsigned int *minor)
{
	const struct disk *d = &l->disk[loc.disk];
	unsigned int partno = part_number(l, loc);

	switch (d->bus) {
	case BUS_VIRTIO_BLK:
		*major = virtio_blk_major;
		*minor = VIRTIO_BLK_MINORS * bus_index(l, loc.disk) + partno;
		return partno < VIRTIO_BLK_MINORS;
	case BUS_NVME:
		if (layout_count_bus(l, BUS_NVME) != 1)
			return false;
		*major = BLOCK_EXT_MAJOR;
		*minor = nvme_rank(l, loc);
		return true;
	default:
		if (count_scsi(l) != 1)
			return false;
		*major = SD_MAJOR;
		*minor = partno;
		return partno < SD_MINORS;
	}
}

bool kernel_may_be_named(const struct layout *l, struct location loc, const char *name)
{
	char own[32];

	if (kernel_name(l, loc, own, sizeof(own)))
		return strcmp(own, name) == 0;
	/* One of several SCSI-type disks: any sd name. */
	return strncmp(name, "sd", 2) == 0;
}

bool kernel_may_have_devt(const struct layout *l, struct location loc,
			  unsigned int major, unsigned int minor)
{
	unsigned int own_major, own_minor;

	if (kernel_devt(l, loc, &own_major, &own_minor))
		return own_major == major && own_minor == minor;
	if (l->disk[loc.disk].bus == BUS_NVME)
		return major == BLOCK_EXT_MAJOR;
	return major == SD_MAJOR;
}

unsigned long kernel_hex_devt(unsigned int major, unsigned int minor)
{
	return (minor & 0xffUL) | ((unsigned long)major << 8) |
	       ((unsigned long)(minor & ~0xffU) << 12);
}

/* The volumes a root or a decoy may live on: all but MBR containers. */
unsigned int layout_volumes(const struct layout *l, struct location *v)
{
	unsigned int i, p, n = 0;

	for (i = 0; i < l->ndisks; i++) {
		if (l->disk[i].table == TABLE_NONE) {
			v[n++] = (struct location){ (int)i, -1 };
			continue;
		}
		for (p = 0; p < l->disk[i].nparts; p++)
			if (!l->disk[i].part[p].extended)
				v[n++] = (struct location){ (int)i, (int)p };
	}
	return n;
}

struct volume *layout_volume_at(struct layout *l, struct location loc)
{
	return (struct volume *)location_volume(l, loc);
}
