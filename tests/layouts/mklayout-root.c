// SPDX-License-Identifier: GPL-2.0
/*
 * mklayout-root.c: the kernel command line of a layout: which root= form
 * names the root (only forms that can name it: /dev/NAME, MAJ:MIN and hex
 * only when the kernel's numbering is known, PARTUUID and PARTNROFF only
 * for a partition, PARTLABEL only on GPT), rootwait, ro and init=, and
 * whether the root is left dirty (and rescue.ro=strict).  Drawn from
 * streams of their own, so the images of a seed do not depend on them,
 * and a seed's root= did not change when the dirty roots came.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mklayout.h"

#define RNG_STREAM_CMDLINE	1
#define RNG_STREAM_DIRTY	2
#define ROOTWAIT_SECS		30
#define OTHER_INIT		"/sbin/seed-init"

static bool form_possible(const struct layout *l, enum form form,
			  const struct root_policy *policy)
{
	const struct disk *d = &l->disk[l->root.disk];
	bool on_part = l->root.part >= 0;
	unsigned int major, minor;
	char name[32];

	switch (form) {
	case FORM_DEV:
		return kernel_name(l, l->root, name, sizeof(name));
	case FORM_UUID:
	case FORM_LABEL:
		return !policy->kernel_only;
	case FORM_PARTUUID:
	case FORM_PARTNROFF:
		return on_part;
	case FORM_PARTLABEL:
		return on_part && d->table == TABLE_GPT &&
		       d->part[l->root.part].partlabel[0];
	case FORM_MAJMIN:
	case FORM_HEX:
		/* The kernel takes a number at once: it cannot wait for USB. */
		if (policy->kernel_only && bus_attaches_late(d->bus))
			return false;
		return kernel_devt(l, l->root, &major, &minor);
	default:
		return false;
	}
}

static void upper(char *s)
{
	for (; *s; s++)
		*s = (char)toupper((unsigned char)*s);
}

/* PARTUUID= compares without case, as the kernel does: test that too. */
static void partuuid_arg(struct rng *r, const char *partuuid, char *out, size_t size)
{
	snprintf(out, size, "%s", partuuid);
	if (rng_chance(r, 1, 4))
		upper(out);
}

/* A partition of the root's disk, other than the root when there is one. */
static void choose_anchor(struct layout *l, struct rng *r)
{
	const struct disk *d = &l->disk[l->root.disk];
	int candidates[MAX_PARTS];
	unsigned int n = 0, p;

	for (p = 0; p < d->nparts; p++)
		if (!d->part[p].extended && (int)p != l->root.part)
			candidates[n++] = (int)p;
	l->anchor.disk = l->root.disk;
	l->anchor.part = n ? candidates[rng_below(r, n)] : l->root.part;
}

static void format_root_arg(struct layout *l, struct rng *r)
{
	const struct disk *d = &l->disk[l->root.disk];
	const struct volume *vol = location_volume(l, l->root);
	const struct partition *part = l->root.part >= 0 ? &d->part[l->root.part] : NULL;
	char *out = l->root_arg, name[32], id[ID_LEN];
	size_t size = sizeof(l->root_arg);
	unsigned int major = 0, minor = 0;
	int offset;

	/* plan_root_form only picks a partition form for a partition */
	if (!part && (l->form == FORM_PARTUUID || l->form == FORM_PARTNROFF ||
		      l->form == FORM_PARTLABEL))
		abort();
	switch (l->form) {
	case FORM_DEV:
		kernel_name(l, l->root, name, sizeof(name));
		snprintf(out, size, "/dev/%s", name);
		break;
	case FORM_UUID:
		snprintf(out, size, "UUID=%s", vol->uuid);
		break;
	case FORM_LABEL:
		snprintf(out, size, "LABEL=%s", vol->label);
		break;
	case FORM_PARTUUID:
		partuuid_arg(r, part->partuuid, id, sizeof(id));
		snprintf(out, size, "PARTUUID=%s", id);
		break;
	case FORM_PARTNROFF:
		choose_anchor(l, r);
		partuuid_arg(r, d->part[l->anchor.part].partuuid, id, sizeof(id));
		offset = (int)part->number - (int)d->part[l->anchor.part].number;
		snprintf(out, size, "PARTUUID=%s/PARTNROFF=%d", id, offset);
		break;
	case FORM_PARTLABEL:
		snprintf(out, size, "PARTLABEL=%s", part->partlabel);
		break;
	case FORM_MAJMIN:
		kernel_devt(l, l->root, &major, &minor);
		snprintf(out, size, "%u:%u", major, minor);
		break;
	case FORM_HEX:
		kernel_devt(l, l->root, &major, &minor);
		snprintf(out, size, "%lx", kernel_hex_devt(major, minor));
		break;
	default:
		break;
	}
}

/*
 * A dirty root for one seed in three whose root has a journal
 * (ext3, ext4), half of them booted with rescue.ro=strict.  Not with
 * --kernel-root: the kernel replays the journal, and tests/tools/random-layouts
 * requires every disk unchanged there.
 */
static void dirty_choose(struct layout *l, const struct root_policy *policy)
{
	const struct volume *root = location_volume(l, l->root);
	struct rng r;

	l->dirty = DIRTY_NO;
	if (policy->kernel_only || (root->fs != FS_EXT3 && root->fs != FS_EXT4))
		return;
	rng_seed(&r, l->seed, RNG_STREAM_DIRTY);
	if (rng_chance(&r, 1, 3))
		l->dirty = rng_chance(&r, 1, 2) ? DIRTY_STRICT : DIRTY_WRITTEN;
}

/*
 * rootwait whenever a disk is on USB (usb-storage attaches its disks
 * after userspace starts), and now and then without, to show that it
 * costs nothing when the root is there; rootwait=N only for rescue-init
 * (the 6.1 kernel knows only the plain flag).
 */
int root_choose(struct layout *l, const struct root_policy *policy)
{
	enum form candidates[FORM_COUNT];
	unsigned int n = 0;
	struct rng r;
	int f;

	rng_seed(&r, l->seed, RNG_STREAM_CMDLINE);
	for (f = 0; f < FORM_COUNT; f++)
		if (form_possible(l, (enum form)f, policy))
			candidates[n++] = (enum form)f;
	if (!n) {
		msg_error("seed %llu: no root= form %snames the root", (unsigned long long)l->seed,
			  policy->kernel_only ? "that the kernel mounts itself " : "");
		return -ENOENT;
	}
	l->form = candidates[rng_below(&r, n)];
	l->anchor = l->root;
	format_root_arg(l, &r);

	l->rootwait = layout_count_late(l) > 0 || rng_chance(&r, 1, 4);
	if (l->rootwait && !policy->kernel_only && rng_chance(&r, 1, 2))
		l->rootwait_secs = ROOTWAIT_SECS;
	l->ro_given = rng_chance(&r, 1, 2);
	l->init = rng_chance(&r, 1, 4) ? OTHER_INIT : NULL;
	dirty_choose(l, policy);
	return 0;
}

void cmdline_format(const struct layout *l, char *buf, size_t size)
{
	int n;

	n = snprintf(buf, size, "root=%s", l->root_arg);
	if (l->rootwait && l->rootwait_secs)
		n += snprintf(buf + n, size - (size_t)n, " rootwait=%u", l->rootwait_secs);
	else if (l->rootwait)
		n += snprintf(buf + n, size - (size_t)n, " rootwait");
	if (l->ro_given)
		n += snprintf(buf + n, size - (size_t)n, " ro");
	if (l->init)
		n += snprintf(buf + n, size - (size_t)n, " init=%s", l->init);
	if (l->dirty == DIRTY_STRICT)
		snprintf(buf + n, size - (size_t)n, " rescue.ro=strict");
}
