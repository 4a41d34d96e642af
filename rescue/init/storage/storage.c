// SPDX-License-Identifier: GPL-2.0
/*
 * storage.c: the storage-layer step: every probed block device is
 * offered to the layers that are on for this boot; the first that
 * claims it gets it.  See storage.h for what a layer implements.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "storage.h"

/*
 * The layers, lowest first: md below dm-crypt below LVM, as Debian's
 * "encrypted LVM" and RAID installs stack them; btrfs on top of any.
 */
static const struct storage_layer *const layers[] = {
	&storage_md,
	&storage_luks,
	&storage_lvm,
	&storage_btrfs,
	NULL,
};

static bool active[ARRAY_SIZE(layers)];
static bool strict_ro;

void storage_set_readonly(bool ro)
{
	strict_ro = ro;
}

bool storage_readonly(void)
{
	return strict_ro;
}

/* Which layers are on: those the command line does not turn off. */
void storage_init(const struct cmdline *c)
{
	size_t i;

	for (i = 0; layers[i]; i++) {
		active[i] = !layers[i]->disabled || !layers[i]->disabled(c);
		if (!active[i])
			log_info("storage: %s is off for this boot",
				 layers[i]->name);
	}
}

size_t storage_active(void)
{
	size_t i, n = 0;

	for (i = 0; layers[i]; i++)
		n += active[i];
	return n;
}

/* The signatures the active layers need the probe to recognise. */
void storage_probe_types(void (*add)(const char *type))
{
	const char *const *t;
	size_t i;

	for (i = 0; layers[i]; i++)
		for (t = layers[i]->types; active[i] && t && *t; t++)
			add(*t);
}

/*
 * A layer that is off leaves its members alone; say so for each, since
 * the root above them will not be found.
 */
static void left_alone(size_t i, const struct blkdev *d)
{
	log_info("storage: %s left alone: %s turns %s off", d->node,
		 layers[i]->off_param ? layers[i]->off_param : "a parameter",
		 layers[i]->name);
}

/* The first active layer that claims d adds it. */
static void offer(const struct blkdev *d)
{
	size_t i;
	int err;

	for (i = 0; layers[i]; i++) {
		if (!layers[i]->claims(d))
			continue;
		if (!active[i]) {
			left_alone(i, d);
			return;
		}
		log_debug("storage: %s claims %s (%s)", layers[i]->name,
			  d->node, d->type);
		err = layers[i]->add(d);
		if (err)
			log_debug("storage: %s did not take %s: %s",
				  layers[i]->name, d->node, errtext(-err));
		return;
	}
}

/*
 * A device was probed: offer it, then let the layers name it, after
 * the add that may have made its whole complete.
 */
void storage_device(struct blkdev *d)
{
	size_t i;

	if (d->sb_probed && d->type[0])
		offer(d);
	for (i = 0; layers[i]; i++)
		if (active[i] && layers[i]->annotate)
			layers[i]->annotate(d);
}

void storage_removed(const char *name)
{
	size_t i;

	for (i = 0; layers[i]; i++)
		if (active[i] && layers[i]->remove)
			layers[i]->remove(name);
}

/* The root is late: let each layer start what it can incomplete. */
int storage_settle(void)
{
	size_t i;
	int n = 0, r;

	for (i = 0; layers[i]; i++) {
		if (!active[i] || !layers[i]->settle)
			continue;
		r = layers[i]->settle();
		if (r > 0)
			n += r;
	}
	return n;
}

/*
 * One more name of d below /dev ("VG!LV" for /dev/VG/LV), for a layer's
 * annotate(): once, and never cut, since a cut name would match another.
 */
void storage_add_alias(struct blkdev *d, const char *alias)
{
	size_t i;

	if (strlen(alias) >= sizeof(d->alias[0]))
		return;
	for (i = 0; i < ARRAY_SIZE(d->alias); i++) {
		if (!strcmp(d->alias[i], alias))
			return;
		if (!d->alias[i][0]) {
			snprintf(d->alias[i], sizeof(d->alias[i]), "%s", alias);
			return;
		}
	}
}

/*
 * Another block device there now with d's TYPE and UUID: a copy of a
 * LUKS container or a PV (dd, a USB backup of the system disk).  Its
 * node in twin and 0, or -ENOENT.  Every device is probed for it: the
 * first enumeration offers one device at a time, and the copy may not
 * have been offered yet.
 */
int storage_find_twin(const struct blkdev *d, char *twin, size_t size)
{
	struct blklist l = { 0 };
	int r = -ENOENT;
	size_t i;

	if (!d->uuid[0] || blk_enumerate(&l, "/sys/class/block"))
		goto out;
	probe_all(&l, PROBE_SB);
	for (i = 0; i < l.n; i++)
		if (strcmp(l.dev[i].name, d->name) &&
		    !strcmp(l.dev[i].type, d->type) &&
		    !strcasecmp(l.dev[i].uuid, d->uuid)) {
			snprintf(twin, size, "%s", l.dev[i].node);
			r = 0;
			break;
		}
out:
	blk_free(&l);
	return r;
}

void storage_report(devtable_line_fn *fn, void *ctx)
{
	size_t i;

	for (i = 0; layers[i]; i++)
		if (active[i] && layers[i]->report)
			layers[i]->report(fn, ctx);
}
