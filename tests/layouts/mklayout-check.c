// SPDX-License-Identifier: GPL-2.0
/*
 * mklayout-check.c: what every layout promises, checked on the plan
 * before anything is written: one root with an init, identifiers that
 * are unique, partitions that fit, a root= that selects the root and no
 * decoy (matched as the kernel and libblkid match), rootwait with USB.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mklayout.h"

#define MAX_PCI_DEVICES 28	/* free slots of QEMU's pc machine, with margin */

static bool is_ext(enum fs fs)
{
	return fs == FS_EXT2 || fs == FS_EXT3 || fs == FS_EXT4;
}

static const char *arg_after(const char *arg, const char *prefix)
{
	size_t n = strlen(prefix);

	return strncmp(arg, prefix, n) == 0 ? arg + n : NULL;
}

/* The kernel's match_dev_by_uuid(): a prefix, without case. */
static bool partuuid_matches(const struct layout *l, struct location loc,
			     const char *want, size_t len)
{
	if (loc.part < 0 || len == 0)
		return false;
	return strncasecmp(l->disk[loc.disk].part[loc.part].partuuid, want, len) == 0;
}

bool root_spec_selects(const struct layout *l, struct location loc)
{
	const struct volume *vol = location_volume(l, loc);
	const char *arg = l->root_arg, *v;
	unsigned int major, minor;
	unsigned long hex;
	char *end;

	if ((v = arg_after(arg, "/dev/")))
		return kernel_may_be_named(l, loc, v);
	if ((v = arg_after(arg, "UUID=")))
		return vol && vol->fs != FS_NONE && strcasecmp(vol->uuid, v) == 0;
	if ((v = arg_after(arg, "LABEL=")))
		return vol && vol->fs != FS_NONE && strcmp(vol->label, v) == 0;
	if ((v = arg_after(arg, "PARTUUID=")))
		return partuuid_matches(l, loc, v, strcspn(v, "/"));
	if ((v = arg_after(arg, "PARTLABEL=")))
		return loc.part >= 0 && l->disk[loc.disk].table == TABLE_GPT &&
		       strcmp(l->disk[loc.disk].part[loc.part].partlabel, v) == 0;
	if (strchr(arg, ':')) {
		major = (unsigned int)strtoul(arg, &end, 10);
		minor = (unsigned int)strtoul(end + 1, NULL, 10);
		return kernel_may_have_devt(l, loc, major, minor);
	}
	hex = strtoul(arg, NULL, 16);
	major = (unsigned int)((hex & 0xfff00) >> 8);
	minor = (unsigned int)((hex & 0xff) | ((hex >> 12) & 0xfff00));
	return kernel_may_have_devt(l, loc, major, minor);
}

/* Every block device: each disk, then its partitions. */
static unsigned int list_devices(const struct layout *l, struct location *v)
{
	unsigned int i, p, n = 0;

	for (i = 0; i < l->ndisks; i++) {
		v[n++] = (struct location){ (int)i, -1 };
		for (p = 0; p < l->disk[i].nparts; p++)
			v[n++] = (struct location){ (int)i, (int)p };
	}
	return n;
}

static int check_root_volume(const struct layout *l)
{
	struct location v[MAX_DISKS * (MAX_PARTS + 1)];
	const struct volume *vol;
	unsigned int i, n = list_devices(l, v), roots = 0;

	for (i = 0; i < n; i++) {
		vol = location_volume(l, v[i]);
		if (vol && vol->role == ROLE_ROOT)
			roots++;
		if (vol && vol->role == ROLE_UNSET) {
			msg_error("disk %d: a volume has no role", v[i].disk);
			return -EINVAL;
		}
	}
	vol = location_volume(l, l->root);
	if (roots != 1 || !vol || vol->role != ROLE_ROOT || !vol->has_init ||
	    !is_ext(vol->fs) || !vol->label[0]) {
		msg_error("seed %llu: %u roots, or a root without an init",
			  (unsigned long long)l->seed, roots);
		return -EINVAL;
	}
	return 0;
}

/* No two filesystem UUIDs, PARTUUIDs, disk ids or labels alike. */
static int check_unique_ids(const struct layout *l)
{
	const char *ids[4][MAX_DISKS * (MAX_PARTS + 1)];
	static const char *const kinds[4] = {
		"filesystem UUID", "PARTUUID", "disk label-id", "filesystem LABEL",
	};
	unsigned int count[4] = { 0 }, i, j, k, p;
	const struct disk *d;
	const struct volume *vol;

	for (i = 0; i < l->ndisks; i++) {
		d = &l->disk[i];
		if (d->table != TABLE_NONE)
			ids[2][count[2]++] = d->label_id;
		for (p = 0; p < d->nparts; p++)
			ids[1][count[1]++] = d->part[p].partuuid;
		for (p = 0; p <= d->nparts; p++) {
			vol = location_volume(l, (struct location){ (int)i, p ? (int)p - 1 : -1 });
			if (!vol || vol->fs == FS_NONE)
				continue;
			ids[0][count[0]++] = vol->uuid;
			if (vol->label[0])
				ids[3][count[3]++] = vol->label;
		}
	}
	for (k = 0; k < 4; k++)
		for (i = 0; i < count[k]; i++)
			for (j = i + 1; j < count[k]; j++)
				if (k == 3 ? strcmp(ids[k][i], ids[k][j]) == 0 :
					     strcasecmp(ids[k][i], ids[k][j]) == 0) {
					msg_error("seed %llu: two of %s %s",
						  (unsigned long long)l->seed,
						  kinds[k], ids[k][i]);
					return -EINVAL;
				}
	return 0;
}

/* Partitions inside the disk, between its first and last MiB, apart. */
static int check_places(const struct layout *l)
{
	const struct partition *a, *b;
	const struct disk *d;
	unsigned int i, p, q, pci = 0, ports[BUS_COUNT][MAX_CONTROLLERS] = { { 0 } };

	for (i = 0; i < l->ndisks; i++) {
		d = &l->disk[i];
		/* A PCI device each disk, or each controller at its first. */
		if (!bus_capacity(d->bus) || !ports[d->bus][d->controller]++)
			pci++;
		if (bus_capacity(d->bus) &&
		    ports[d->bus][d->controller] > bus_capacity(d->bus)) {
			msg_error("%s%u has more than %u disks", bus_name(d->bus),
				  d->controller, bus_capacity(d->bus));
			return -EINVAL;
		}
		for (p = 0; p < d->nparts; p++) {
			a = &d->part[p];
			if (a->start_mib < 1 || a->start_mib + a->vol.size_mib > d->size_mib - 1 ||
			    a->vol.size_mib == 0) {
				msg_error("disk %u: partition %u outside the disk", i, a->number);
				return -EINVAL;
			}
			for (q = 0; q < d->nparts; q++) {
				b = &d->part[q];
				if (q == p || a->extended || b->extended)
					continue;
				if (a->start_mib < b->start_mib + b->vol.size_mib &&
				    b->start_mib < a->start_mib + a->vol.size_mib) {
					msg_error("disk %u: partitions %u and %u overlap",
						  i, a->number, b->number);
					return -EINVAL;
				}
			}
		}
	}
	if (pci > MAX_PCI_DEVICES) {
		msg_error("seed %llu: more PCI devices than slots", (unsigned long long)l->seed);
		return -EINVAL;
	}
	return 0;
}

/* Exactly one device selected, and it is the root (for PARTNROFF: the
 * PARTUUID part selects the anchor, whose number + offset is the root). */
static int check_root_spec(const struct layout *l)
{
	struct location v[MAX_DISKS * (MAX_PARTS + 1)], chosen = { -1, -1 };
	unsigned int i, n = list_devices(l, v), selected = 0, number;
	const struct disk *d;
	const char *offset;

	for (i = 0; i < n; i++)
		if (root_spec_selects(l, v[i])) {
			selected++;
			chosen = v[i];
		}
	if (selected != 1) {
		msg_error("seed %llu: root=%s selects %u devices", (unsigned long long)l->seed,
			  l->root_arg, selected);
		return -EINVAL;
	}
	offset = strstr(l->root_arg, "/PARTNROFF=");
	if (offset) {
		if (!location_same(chosen, l->anchor) || chosen.part < 0)
			goto wrong;
		d = &l->disk[chosen.disk];
		number = (unsigned int)((int)d->part[chosen.part].number +
					(int)strtol(offset + strlen("/PARTNROFF="), NULL, 10));
		chosen.part = -1;
		for (i = 0; i < d->nparts; i++)
			if (d->part[i].number == number)
				chosen.part = (int)i;
	}
	if (!location_same(chosen, l->root))
		goto wrong;
	return 0;
wrong:
	msg_error("seed %llu: root=%s selects disk %d partition %d, not the root",
		  (unsigned long long)l->seed, l->root_arg, chosen.disk, chosen.part);
	return -EINVAL;
}

int layout_check(const struct layout *l)
{
	int err;

	err = check_root_volume(l);
	if (!err)
		err = check_unique_ids(l);
	if (!err)
		err = check_places(l);
	if (!err)
		err = check_root_spec(l);
	if (!err && layout_count_late(l) && !l->rootwait) {
		msg_error("seed %llu: a disk on a bus that attaches late (USB) "
			  "but no rootwait", (unsigned long long)l->seed);
		err = -EINVAL;
	}
	return err;
}
