// SPDX-License-Identifier: GPL-2.0
/*
 * mklayout-plan.c: every random decision about the disks, from the seed:
 * how many disks, their buses and controllers, partition tables, the
 * partitions' numbers, order and sizes, which volume is the root, and
 * what the decoys are (their identifiers: mklayout-ids.c).  Nothing here
 * touches a file.
 */
#include <stdio.h>
#include <string.h>

#include "mklayout.h"

#define RNG_STREAM_LAYOUT	0


struct controllers {
	unsigned int count[BUS_COUNT];
	unsigned int disks[BUS_COUNT][MAX_CONTROLLERS];
};

/* A new controller now and then, else one with a free port. */
static bool controller_assign(struct rng *r, struct controllers *c,
			      enum bus bus, unsigned int *ctrl)
{
	unsigned int cap = bus_capacity(bus), n = c->count[bus];
	unsigned int start, k, i;

	*ctrl = 0;
	if (!cap)
		return true;
	if (n > 0 && !(n < MAX_CONTROLLERS && rng_chance(r, 1, 4))) {
		start = rng_below(r, n);
		for (k = 0; k < n; k++) {
			i = (start + k) % n;
			if (c->disks[bus][i] < cap) {
				c->disks[bus][i]++;
				*ctrl = i;
				return true;
			}
		}
	}
	if (n == MAX_CONTROLLERS)
		return false;
	c->count[bus]++;
	c->disks[bus][n] = 1;
	*ctrl = n;
	return true;
}

static void sort_numbers(unsigned int *v, unsigned int n)
{
	unsigned int i, j, t;

	for (i = 1; i < n; i++)
		for (j = i; j > 0 && v[j - 1] > v[j]; j--) {
			t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
}

/*
 * GPT: n numbers out of 1..n+2, so some numbers may be unused.  MBR: up
 * to 4 partitions are primaries in any of the 4 slots; more than 4 are
 * 0-3 primaries, an extended container in a free slot, and logical
 * partitions 5, 6... in it.
 */
static void plan_numbers(struct rng *r, struct disk *d)
{
	unsigned int n = 1 + rng_below(r, MAX_DATA_PARTS);
	unsigned int pool[MAX_DATA_PARTS + 2], numbers[MAX_PARTS];
	unsigned int i, top, primaries, extended = 0, total;

	if (d->table == TABLE_GPT) {
		top = n + rng_below(r, 3);
		for (i = 0; i < top; i++)
			pool[i] = i + 1;
		rng_shuffle(r, pool, top);
		memcpy(numbers, pool, n * sizeof(*numbers));
		total = n;
	} else {
		for (i = 0; i < 4; i++)
			pool[i] = i + 1;
		rng_shuffle(r, pool, 4);
		primaries = n <= 4 ? n : rng_below(r, 4);
		memcpy(numbers, pool, primaries * sizeof(*numbers));
		total = primaries;
		if (n > 4) {
			extended = pool[primaries];
			numbers[total++] = extended;
			for (i = 0; i < n - primaries; i++)
				numbers[total++] = 5 + i;
		}
	}
	sort_numbers(numbers, total);
	d->nparts = total;
	for (i = 0; i < total; i++) {
		d->part[i].number = numbers[i];
		d->part[i].extended = numbers[i] == extended;
	}
}

static void plan_disks(struct layout *l, struct rng *r)
{
	struct controllers c;
	struct disk *d;
	unsigned int i, t;

	memset(&c, 0, sizeof(c));
	l->ndisks = 1 + rng_below(r, MAX_DISKS);
	for (i = 0; i < l->ndisks; i++) {
		d = &l->disk[i];
		do
			d->bus = rng_below(r, BUS_COUNT);
		while (!controller_assign(r, &c, d->bus, &d->controller));
		t = rng_below(r, 8);
		d->table = t < 2 ? TABLE_NONE : t < 5 ? TABLE_MBR : TABLE_GPT;
		if (d->table != TABLE_NONE)
			plan_numbers(r, d);
	}
}

static enum fs random_ext(struct rng *r)
{
	unsigned int t = rng_below(r, 4);

	return t < 2 ? FS_EXT4 : t == 2 ? FS_EXT3 : FS_EXT2;
}

static enum fs random_fs_or_none(struct rng *r)
{
	unsigned int t = rng_below(r, 3);

	return t == 0 ? FS_NONE : t == 1 ? random_ext(r) : FS_VFAT;
}

static bool on_gpt(const struct layout *l, struct location loc)
{
	return loc.part >= 0 && l->disk[loc.disk].table == TABLE_GPT;
}

/* Through a permutation of indexes: rng_shuffle() shuffles numbers. */
static void shuffle_locations(struct rng *r, struct location *v, unsigned int n)
{
	unsigned int order[MAX_DISKS * MAX_PARTS], i;
	struct location copy[MAX_DISKS * MAX_PARTS];

	for (i = 0; i < n; i++)
		order[i] = i;
	rng_shuffle(r, order, n);
	memcpy(copy, v, n * sizeof(*v));
	for (i = 0; i < n; i++)
		v[i] = copy[order[i]];
}

/* The first volume of V still without a role (and on GPT if asked). */
static struct volume *take_volume(struct layout *l, struct location *v,
				  unsigned int n, bool gpt_only)
{
	struct volume *vol;
	unsigned int i;

	for (i = 0; i < n; i++) {
		vol = layout_volume_at(l, v[i]);
		if (vol->role == ROLE_UNSET && (!gpt_only || on_gpt(l, v[i])))
			return vol;
	}
	return NULL;
}

static void give_role(struct volume *vol, enum role role, enum fs fs, bool has_init)
{
	vol->role = role;
	vol->fs = fs;
	vol->has_init = has_init && fs != FS_NONE && fs != FS_VFAT;
}

/* The root first, then the decoys that aim at each root= form. */
static void plan_roles(struct layout *l, struct rng *r)
{
	struct location v[MAX_DISKS * MAX_PARTS];
	struct disk *d;
	struct volume *vol;
	unsigned int n, i, p;
	enum fs fs;

	/* Any disk, then any of its volumes. */
	d = &l->disk[rng_below(r, l->ndisks)];
	l->root.disk = (int)(d - l->disk);
	l->root.part = -1;
	if (d->table != TABLE_NONE) {
		/* plan_disk always gives a table a data partition */
		int data_parts[MAX_PARTS] = { 0 };

		n = 0;
		for (p = 0; p < d->nparts; p++)
			if (!d->part[p].extended)
				data_parts[n++] = (int)p;
		l->root.part = data_parts[rng_below(r, n)];
	}
	give_role(layout_volume_at(l, l->root), ROLE_ROOT, random_ext(r), true);

	n = layout_volumes(l, v);
	for (i = 0; i < n; i++)
		if (location_same(v[i], l->root))
			v[i] = v[--n];
	shuffle_locations(r, v, n);

	if (rng_chance(r, 3, 4) && (vol = take_volume(l, v, n, false))) {
		fs = rng_chance(r, 2, 3) ? random_ext(r) : FS_VFAT;
		give_role(vol, ROLE_LABEL_NEAR, fs, rng_chance(r, 1, 2));
	}
	if (rng_chance(r, 3, 4) && (vol = take_volume(l, v, n, true)))
		give_role(vol, ROLE_PARTLABEL_ROOT_LABEL, random_fs_or_none(r), false);
	if (rng_chance(r, 1, 2) && (vol = take_volume(l, v, n, false)))
		give_role(vol, ROLE_UUID_NEAR, random_ext(r), rng_chance(r, 1, 3));
	if (on_gpt(l, l->root) && rng_chance(r, 1, 2) &&
	    (vol = take_volume(l, v, n, true)))
		give_role(vol, ROLE_PARTUUID_NEAR, random_fs_or_none(r), false);
	if (rng_chance(r, 1, 3) && (vol = take_volume(l, v, n, false)))
		give_role(vol, ROLE_IMPOSTOR, random_ext(r), true);
	while ((vol = take_volume(l, v, n, false))) {
		if (rng_chance(r, 1, 4))
			give_role(vol, ROLE_BLANK, FS_NONE, false);
		else
			give_role(vol, ROLE_DATA,
				  rng_chance(r, 1, 2) ? random_ext(r) : FS_VFAT, false);
	}
}

/* MiB: a root tree holds busybox (2 MiB) and an ext3/4 journal (1 MiB). */
static unsigned int volume_size(struct rng *r, const struct volume *vol, bool whole)
{
	if (vol->has_init)
		return 5 + rng_below(r, 3);
	switch (vol->fs) {
	case FS_EXT2:
	case FS_EXT3:
	case FS_EXT4:
		return 2 + rng_below(r, 2);
	case FS_VFAT:
		return 1 + rng_below(r, 2);
	default:
		return 1 + rng_below(r, whole ? 4 : 2);
	}
}

/*
 * Sizes, then places: the first MiB holds the table, the last one the
 * GPT backup; top-level partitions go in a random order with the odd
 * free MiB between them, logical ones in number order, each after a MiB
 * for its EBR.
 */
static void plan_places(struct layout *l, struct rng *r)
{
	unsigned int i, p, k, n, cur, inside;
	unsigned int order[MAX_PARTS];
	struct partition *part, *lp;
	struct disk *d;

	for (i = 0; i < l->ndisks; i++) {
		d = &l->disk[i];
		if (d->table == TABLE_NONE) {
			d->whole.size_mib = volume_size(r, &d->whole, true);
			d->size_mib = d->whole.size_mib;
			continue;
		}
		for (p = 0; p < d->nparts; p++)
			if (!d->part[p].extended)
				d->part[p].vol.size_mib = volume_size(r, &d->part[p].vol, false);
		n = 0;
		for (p = 0; p < d->nparts; p++)
			if (d->table == TABLE_GPT || d->part[p].number <= 4)
				order[n++] = p;
		rng_shuffle(r, order, n);
		cur = 1;
		for (k = 0; k < n; k++) {
			part = &d->part[order[k]];
			cur += rng_chance(r, 1, 4);
			part->start_mib = cur;
			if (!part->extended) {
				cur += part->vol.size_mib;
				continue;
			}
			inside = cur;
			for (p = 0; p < d->nparts; p++) {
				lp = &d->part[p];
				if (lp->number < 5)
					continue;
				inside += 1;
				lp->start_mib = inside;
				inside += lp->vol.size_mib;
			}
			part->vol.size_mib = inside - cur;
			cur = inside;
		}
		d->size_mib = cur + 1;
	}
}

void layout_plan(struct layout *l, uint64_t seed)
{
	struct rng r;

	memset(l, 0, sizeof(*l));
	l->seed = seed;
	rng_seed(&r, seed, RNG_STREAM_LAYOUT);
	plan_disks(l, &r);
	plan_roles(l, &r);
	plan_places(l, &r);
	ids_plan(l, &r);
}
