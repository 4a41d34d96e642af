// SPDX-License-Identifier: GPL-2.0
/*
 * mklayout-stack.c: the stacked layout of a seed.  Whether a seed has
 * one is drawn from a stream of its own, and the layout from another, so
 * that no plain layout changed when stacked ones came: md RAID1 over two
 * buses (metadata 1.2 or 0.90, now and then with a member left out),
 * LUKS2 (a known passphrase, now and then a wrong one typed first), LVM
 * with several LVs and a decoy VG, two-device btrfs with the root in a
 * subvolume, and the nestings LUKS -> LVM and md -> LUKS -> LVM.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "mklayout.h"

#define RNG_STREAM_STACKED	3	/* does the seed have a stacked layout */
#define RNG_STREAM_STACK	4	/* what it is */

static const char lower[] = "abcdefghijklmnopqrstuvwxyz0123456789";

static const char *const kind_names[STACK_COUNT] = {
	"md", "luks", "lvm", "btrfs", "luks-lvm", "md-luks-lvm",
};

const char *stack_kind_name(enum stack_kind kind)
{
	return kind_names[kind];
}

/* One seed in four. */
bool stack_chosen(uint64_t seed)
{
	struct rng r;

	rng_seed(&r, seed, RNG_STREAM_STACKED);
	return rng_chance(&r, 1, 4);
}

static bool has_md(enum stack_kind k)
{
	return k == STACK_MD || k == STACK_MD_LUKS_LVM;
}

static bool has_luks(enum stack_kind k)
{
	return k == STACK_LUKS || k == STACK_LUKS_LVM || k == STACK_MD_LUKS_LVM;
}

static bool has_lvm(enum stack_kind k)
{
	return k == STACK_LVM || k == STACK_LUKS_LVM || k == STACK_MD_LUKS_LVM;
}

static void random_word(struct rng *r, const char *prefix, unsigned int n, char *out)
{
	size_t len = strlen(prefix);
	unsigned int i;

	snprintf(out, NAME_LEN, "%s", prefix);
	for (i = 0; i < n && len + i < NAME_LEN - 1; i++)
		out[len + i] = lower[rng_below(r, sizeof(lower) - 1)];
	out[len + i] = '\0';
}

/* Buses whose disks need no rootwait (USB attaches late). */
static enum bus random_bus(struct rng *r)
{
	enum bus buses[BUS_COUNT] = { BUS_VIRTIO_BLK };
	unsigned int n = 0, b;

	for (b = 0; b < BUS_COUNT; b++)
		if (!bus_attaches_late((enum bus)b))
			buses[n++] = (enum bus)b;
	return buses[rng_below(r, n)];
}

static void plan_disks(struct stack *s, struct rng *r)
{
	unsigned int i, members = has_md(s->kind) || s->kind == STACK_BTRFS ? 2 : 1;

	s->ndisks = members + (has_lvm(s->kind) ? 1 : 0);
	s->absent = -1;
	s->decoy_disk = has_lvm(s->kind) ? (int)members : -1;
	for (i = 0; i < s->ndisks; i++) {
		s->bus[i] = random_bus(r);
		/* an array or a btrfs over two buses, not one */
		while (i == 1 && members == 2 && s->bus[1] == s->bus[0])
			s->bus[1] = random_bus(r);
		s->size_mib[i] = s->kind == STACK_BTRFS ? 128 : (int)i == s->decoy_disk ? 32 : 64;
	}
	if (has_md(s->kind)) {
		s->md_090 = rng_chance(r, 1, 3);
		if (rng_chance(r, 1, 3))
			s->absent = (int)rng_below(r, 2);
	}
}

static void plan_ids(struct stack *s, struct rng *r)
{
	static const char *const root_lvs[] = { "root", "root-lv", "sys" };
	static const char *const other_lvs[] = { "home", "var", "srv", "data-1" };
	unsigned int i, n, pick[4] = { 0, 1, 2, 3 };

	rng_uuid(r, s->fs_uuid);
	rng_uuid(r, s->hash_seed);
	random_word(r, "stk-", 8, s->fs_label);
	if (has_md(s->kind)) {
		rng_uuid(r, s->md_uuid);
		random_word(r, "md", 3, s->md_name);
	}
	if (has_luks(s->kind)) {
		rng_uuid(r, s->luks_uuid);
		random_word(r, "pass-", 10, s->pass);
		s->wrong_try = rng_chance(r, 1, 3);
	}
	if (has_lvm(s->kind)) {
		/* a dash now and then: /dev/mapper doubles it */
		random_word(r, rng_chance(r, 1, 2) ? "vg-" : "vg", 4, s->vg);
		random_word(r, "decoy", 4, s->decoy_vg);
		snprintf(s->lv[0], NAME_LEN, "%s", root_lvs[rng_below(r, 3)]);
		n = 1 + rng_below(r, 3);
		rng_shuffle(r, pick, 4);
		for (i = 0; i < n; i++)
			snprintf(s->lv[1 + i], NAME_LEN, "%s", other_lvs[pick[i]]);
		s->nlvs = 1 + n;
		s->impostor = true;
	}
	if (s->kind == STACK_BTRFS) {
		random_word(r, "sv-", 5, s->subvol);
		s->impostor = true;
	}
	if (s->impostor) {
		rng_uuid(r, s->imp_uuid);
		rng_uuid(r, s->imp_hash_seed);
		random_word(r, "imp-", 8, s->imp_label);
	}
}

/* /dev/mapper/NAME of an LV: each '-' of either name doubled. */
static void mapper_name(const char *vg, const char *lv, char *out, size_t size)
{
	const char *parts[2] = { vg, lv }, *p;
	size_t n = 0;
	int k;

	for (k = 0; k < 2; k++) {
		if (k && n + 1 < size)
			out[n++] = '-';
		for (p = parts[k]; *p && n + 2 < size; p++) {
			if (*p == '-')
				out[n++] = '-';
			out[n++] = *p;
		}
	}
	out[n] = '\0';
}

static bool sform_possible(const struct stack *s, enum stack_form f)
{
	switch (f) {
	case SFORM_MAPPER:
		return has_lvm(s->kind) || s->kind == STACK_LUKS;
	case SFORM_VG_LV:
		return has_lvm(s->kind);
	case SFORM_MD_NAME:
		return s->kind == STACK_MD && !s->md_090;
	case SFORM_MD_DEV:
		return s->kind == STACK_MD;
	default:
		return true;
	}
}

static void plan_root_arg(struct stack *s, struct rng *r)
{
	enum stack_form candidates[SFORM_COUNT] = { 0 };
	unsigned int n = 0, f;
	char name[64];

	for (f = 0; f < SFORM_COUNT; f++)
		if (sform_possible(s, (enum stack_form)f))
			candidates[n++] = (enum stack_form)f;
	s->form = candidates[rng_below(r, n)];
	/* an array's own names half the time: few seeds are plain md */
	if (s->kind == STACK_MD && rng_chance(r, 1, 2))
		s->form = !s->md_090 && rng_chance(r, 1, 2) ? SFORM_MD_NAME : SFORM_MD_DEV;
	switch (s->form) {
	case SFORM_MAPPER:
		if (has_lvm(s->kind))
			mapper_name(s->vg, s->lv[0], name, sizeof(name));
		else
			snprintf(name, sizeof(name), "luks-%s", s->luks_uuid);
		snprintf(s->root_arg, sizeof(s->root_arg), "/dev/mapper/%s", name);
		break;
	case SFORM_VG_LV:
		snprintf(s->root_arg, sizeof(s->root_arg), "/dev/%s/%s", s->vg, s->lv[0]);
		break;
	case SFORM_MD_NAME:
		snprintf(s->root_arg, sizeof(s->root_arg), "/dev/md/%s", s->md_name);
		break;
	case SFORM_MD_DEV:
		/* 0.90: its preferred minor; 1.2: the first one free from the top */
		snprintf(s->root_arg, sizeof(s->root_arg), "/dev/md%d", s->md_090 ? 0 : 127);
		break;
	case SFORM_UUID:
		snprintf(s->root_arg, sizeof(s->root_arg), "UUID=%s", s->fs_uuid);
		break;
	default:
		snprintf(s->root_arg, sizeof(s->root_arg), "LABEL=%s", s->fs_label);
		break;
	}
}

void stack_plan(struct stack *s, uint64_t seed)
{
	struct rng r;

	memset(s, 0, sizeof(*s));
	s->seed = seed;
	rng_seed(&r, seed, RNG_STREAM_STACK);
	s->kind = (enum stack_kind)rng_below(&r, STACK_COUNT);
	plan_disks(s, &r);
	plan_ids(s, &r);
	plan_root_arg(s, &r);
	/* until the patched kernel's config carries dm, md and btrfs */
	s->kernel = "stock";
}

/* The promises: root= names the root and not the impostor. */
int stack_check(const struct stack *s)
{
	const char *why = NULL;

	if (s->impostor && (!strcmp(s->imp_uuid, s->fs_uuid) ||
			    !strcmp(s->imp_label, s->fs_label)))
		why = "the impostor has the root's UUID or LABEL";
	else if (has_lvm(s->kind) && !strcmp(s->vg, s->decoy_vg))
		why = "the decoy VG has the root VG's name";
	else if (s->absent >= 0 && !has_md(s->kind))
		why = "a member left out of no array";
	if (why) {
		msg_error("seed %llu: stacked layout: %s", (unsigned long long)s->seed, why);
		return -EINVAL;
	}
	return 0;
}
