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

/*
 * The buses, a row each: a new bus is its enum bus, its row here and its
 * --disk BUS in qemu/run-vm (tests/tools/random-layouts passes the
 * controller of a bus that has one).
 */
static const struct {
	const char *name;	/* run-vm's --disk BUS: */
	enum naming naming;
	unsigned int capacity;	/* disks per controller; 0: a PCI device each */
	bool late;		/* attaches after the kernel's root search */
} buses[BUS_COUNT] = {
	[BUS_VIRTIO_BLK]	= { "virtio-blk", NAMED_VD, 0, false },
	[BUS_VIRTIO_SCSI]	= { "virtio-scsi", NAMED_SD, 8, false },
	[BUS_AHCI]		= { "ahci", NAMED_SD, 6, false },	/* QEMU's ports */
	[BUS_NVME]		= { "nvme", NAMED_NVME, 0, false },
	[BUS_USB]		= { "usb", NAMED_SD, 4, true },	/* qemu-xhci's USB 2 */
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
	return buses[bus].name;
}

unsigned int bus_capacity(enum bus bus)
{
	return buses[bus].capacity;
}

bool bus_attaches_late(enum bus bus)
{
	return buses[bus].late;
}

const char *bus_controller_text(enum bus bus, unsigned int controller,
				char *buf, size_t size)
{
	if (!buses[bus].capacity)
		return "-";
	snprintf(buf, size, "%u", controller);
	return buf;
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
	return buses[bus].naming == NAMED_SD;
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

static unsigned int count_named(const struct layout *l, enum naming naming)
{
	unsigned int i, n = 0;

	for (i = 0; i < l->ndisks; i++)
		n += buses[l->disk[i].bus].naming == naming;
	return n;
}

unsigned int layout_count_late(const struct layout *l)
{
	unsigned int i, n = 0;

	for (i = 0; i < l->ndisks; i++)
		n += buses[l->disk[i].bus].late;
	return n;
}

static enum naming disk_naming(const struct layout *l, int disk)
{
	return buses[l->disk[disk].bus].naming;
}

/* The disk's position among the earlier disks its kernel names alike. */
static unsigned int name_index(const struct layout *l, int disk)
{
	unsigned int n = 0;
	int i;

	for (i = 0; i < disk; i++)
		n += disk_naming(l, i) == disk_naming(l, disk);
	return n;
}

static unsigned int part_number(const struct layout *l, struct location loc)
{
	return loc.part < 0 ? 0 : l->disk[loc.disk].part[loc.part].number;
}

bool kernel_name(const struct layout *l, struct location loc, char *buf, size_t size)
{
	unsigned int partno = part_number(l, loc);
	unsigned int i = name_index(l, loc.disk);
	enum naming naming = disk_naming(l, loc.disk);
	char disk[24];
	int n;

	if (naming == NAMED_VD) {
		snprintf(disk, sizeof(disk), "vd%c", 'a' + i);
	} else if (naming == NAMED_NVME) {
		snprintf(disk, sizeof(disk), "nvme%un1", i);
	} else if (count_named(l, NAMED_SD) == 1) {
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
	else if (naming == NAMED_NVME)
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
	unsigned int partno = part_number(l, loc);

	switch (disk_naming(l, loc.disk)) {
	case NAMED_VD:
		*major = virtio_blk_major;
		*minor = VIRTIO_BLK_MINORS * name_index(l, loc.disk) + partno;
		return partno < VIRTIO_BLK_MINORS;
	case NAMED_NVME:
		if (count_named(l, NAMED_NVME) != 1)
			return false;
		*major = BLOCK_EXT_MAJOR;
		*minor = nvme_rank(l, loc);
		return true;
	default:
		if (count_named(l, NAMED_SD) != 1)
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
	if (disk_naming(l, loc.disk) == NAMED_NVME)
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
