// SPDX-License-Identifier: GPL-2.0
/*
 * mklayout-ids.c: the identifiers of a planned layout: filesystem UUIDs,
 * hash seeds, vfat volume ids, LABELs, disk label-ids, PARTUUIDs and
 * PARTLABELs, all unique, and the near misses of the root's that the
 * decoys carry (a LABEL one character off, a UUID or PARTUUID one hex
 * digit off, a PARTLABEL equal to the root's LABEL).
 */
#include <stdio.h>
#include <string.h>

#include "mklayout.h"

#define LABEL_LEN 8

static const char *const label_words[] = {
	"ROOT", "SYS", "DATA", "BOOT", "HOME", "SRV", "VAR", "OPT",
};
static const char *const partlabel_words[] = {
	"data", "home", "srv", "var", "boot", "efi", "log", "cache",
};
static const char alnum[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
static const char hex_digits[] = "0123456789abcdef";

static void random_label(struct rng *r, char *out)
{
	const char *word = label_words[rng_below(r, sizeof(label_words) / sizeof(*label_words))];
	size_t i;

	snprintf(out, ID_LEN, "%s", word);
	for (i = strlen(out); i < LABEL_LEN; i++)
		out[i] = alnum[rng_below(r, sizeof(alnum) - 1)];
	out[LABEL_LEN] = '\0';
}

static void random_partlabel(struct rng *r, char *out)
{
	const char *word = partlabel_words[rng_below(r, sizeof(partlabel_words) /
							    sizeof(*partlabel_words))];

	if (rng_chance(r, 1, 5))
		out[0] = '\0';
	else
		snprintf(out, ID_LEN, "%s-%04x", word, rng_below(r, 0x10000));
}

/* Does a filesystem other than SELF have LABEL? */
static bool label_taken(const struct layout *l, const struct volume *self)
{
	struct location v[MAX_DISKS * MAX_PARTS];
	const struct volume *vol;
	unsigned int i, n = layout_volumes(l, v);

	for (i = 0; i < n; i++) {
		vol = location_volume(l, v[i]);
		if (vol != self && vol->fs != FS_NONE &&
		    strcmp(vol->label, self->label) == 0)
			return true;
	}
	return false;
}

/* One character off: changed, dropped, added, or (ext) lower case. */
static void near_label(struct rng *r, const char *root, enum fs fs, char *out)
{
	size_t len = strlen(root), pos = rng_below(r, (unsigned int)len);
	unsigned int op = rng_below(r, fs == FS_VFAT ? 3 : 4);
	char c;

	snprintf(out, ID_LEN, "%s", root);
	switch (op) {
	case 0:
		do
			c = alnum[rng_below(r, sizeof(alnum) - 1)];
		while (c == root[pos]);
		out[pos] = c;
		break;
	case 1:
		memmove(out + pos, out + pos + 1, len - pos);
		break;
	case 2:
		memmove(out + pos + 1, out + pos, len - pos + 1);
		out[pos] = alnum[rng_below(r, sizeof(alnum) - 1)];
		break;
	default:
		while (!(out[pos] >= 'A' && out[pos] <= 'Z'))
			pos = (pos + 1) % len;
		out[pos] = (char)(out[pos] - 'A' + 'a');
		break;
	}
}

/* One hex digit of a UUID changed, dashes kept. */
static void near_hex(struct rng *r, const char *id, char *out)
{
	size_t len = strlen(id), pos;
	char c;

	snprintf(out, ID_LEN, "%s", id);
	do
		pos = rng_below(r, (unsigned int)len);
	while (out[pos] == '-');
	do
		c = hex_digits[rng_below(r, 16)];
	while (c == id[pos]);
	out[pos] = c;
}

static void plan_fs_ids(struct layout *l, struct rng *r, struct volume *vol)
{
	const struct volume *root = location_volume(l, l->root);

	if (vol->fs == FS_NONE)
		return;
	if (vol->fs == FS_VFAT) {
		vol->volume_id = (uint32_t)rng_next(r);
		snprintf(vol->uuid, ID_LEN, "%04X-%04X", vol->volume_id >> 16,
			 vol->volume_id & 0xffff);
	} else {
		rng_uuid(r, vol->uuid);
		rng_uuid(r, vol->hash_seed);
		if (vol->role == ROLE_UUID_NEAR)
			near_hex(r, root->uuid, vol->uuid);
	}
	do {
		if (vol->role == ROLE_LABEL_NEAR)
			near_label(r, root->label, vol->fs, vol->label);
		else if (vol->role != ROLE_ROOT && rng_chance(r, 1, 5))
			vol->label[0] = '\0';
		else
			random_label(r, vol->label);
	} while (vol->label[0] && label_taken(l, vol));
}

/* Does a GPT partition other than SELF have SELF's PARTLABEL? */
static bool partlabel_taken(const struct layout *l, const struct partition *self)
{
	const struct disk *d;
	unsigned int i, p;

	for (i = 0; i < l->ndisks; i++) {
		d = &l->disk[i];
		for (p = 0; p < d->nparts; p++)
			if (&d->part[p] != self &&
			    strcmp(d->part[p].partlabel, self->partlabel) == 0)
				return true;
	}
	return false;
}

static void plan_disk_ids(struct layout *l, struct rng *r, struct disk *d)
{
	const struct location root = l->root;
	struct partition *part;
	uint32_t mbr_id;
	unsigned int p;

	if (d->table == TABLE_GPT) {
		rng_uuid(r, d->label_id);
	} else if (d->table == TABLE_MBR) {
		do
			mbr_id = (uint32_t)rng_next(r);
		while (!mbr_id);
		snprintf(d->label_id, ID_LEN, "0x%08x", mbr_id);
	}
	for (p = 0; p < d->nparts; p++) {
		part = &d->part[p];
		if (d->table == TABLE_MBR) {
			snprintf(part->partuuid, ID_LEN, "%s-%02x", d->label_id + 2,
				 part->number);
		} else {
			rng_uuid(r, part->partuuid);
			do
				random_partlabel(r, part->partlabel);
			while (part->partlabel[0] && partlabel_taken(l, part));
		}
	}
	/* Near misses of the root's, which may be on this very disk. */
	for (p = 0; p < d->nparts; p++) {
		part = &d->part[p];
		if (part->vol.role == ROLE_PARTLABEL_ROOT_LABEL)
			snprintf(part->partlabel, ID_LEN, "%s",
				 location_volume(l, root)->label);
		if (part->vol.role == ROLE_PARTUUID_NEAR)
			near_hex(r, l->disk[root.disk].part[root.part].partuuid,
				 part->partuuid);
	}
}

/* The root's identifiers first: the near misses are made from them. */
void ids_plan(struct layout *l, struct rng *r)
{
	struct location v[MAX_DISKS * MAX_PARTS];
	unsigned int i, n;

	plan_fs_ids(l, r, layout_volume_at(l, l->root));
	plan_disk_ids(l, r, &l->disk[l->root.disk]);
	n = layout_volumes(l, v);
	for (i = 0; i < n; i++)
		if (!location_same(v[i], l->root))
			plan_fs_ids(l, r, layout_volume_at(l, v[i]));
	for (i = 0; i < l->ndisks; i++)
		if ((int)i != l->root.disk)
			plan_disk_ids(l, r, &l->disk[i]);
}
