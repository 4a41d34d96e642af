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

#include "members.h"
#include "storage-layers.h"
#include "storage.h"

/*
 * The layers, lowest first, as rescue/share/storage-layers lists them
 * (md below dm-crypt below LVM, as Debian's "encrypted LVM" and RAID
 * installs stack them; btrfs on top of any): the table's name, types
 * and off parameter, and storage-NAME.c's hooks.
 */
#define STORAGE_LAYER(name, off, ...) \
	extern const struct storage_layer storage_##name; \
	static const char *const name##_types[] = { __VA_ARGS__, NULL };
STORAGE_LAYERS
#undef STORAGE_LAYER

static const struct {
	const char *name;		/* "md", "luks", "lvm", "btrfs" */
	const char *const *types;	/* libblkid TYPE names, NULL-ended */
	const char *off_param;		/* "rd.md=0"; NULL: none */
	const struct storage_layer *hooks;
} layers[] = {
#define STORAGE_LAYER(name, off, ...) \
	{ #name, name##_types, off, &storage_##name },
	STORAGE_LAYERS
#undef STORAGE_LAYER
};

static bool active[ARRAY_SIZE(layers)];

static bool layer_on(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(layers); i++)
		if (!strcmp(layers[i].name, name))
			return active[i];
	return false;
}

/* Which layers are on: those the command line does not turn off. */
void storage_init(const struct cmdline *c)
{
	const struct storage_layer *l;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(layers); i++) {
		l = layers[i].hooks;
		active[i] = !l->setup || l->setup(c);
		if (!active[i])
			log_info("storage: %s is off for this boot",
				 layers[i].name);
	}
	/*
	 * Told here rather than by the btrfs layer's setup(), so that what
	 * members.c hears follows which layers are on, while members.c
	 * stays a leaf the unit tests link alone.
	 */
	members_set_btrfs_layer(layer_on("btrfs"));
}

size_t storage_active(void)
{
	size_t i, n = 0;

	for (i = 0; i < ARRAY_SIZE(layers); i++)
		n += active[i];
	return n;
}

/*
 * A layer that is off leaves its members alone; say so for each, since
 * the root above them will not be found.
 */
static void left_alone(size_t i, const struct blkdev *d)
{
	log_info("storage: %s left alone: %s turns %s off", d->node,
		 layers[i].off_param ? layers[i].off_param : "a parameter",
		 layers[i].name);
}

/* Whether layer i claims d: one of its types, and its claims() agrees. */
static bool claims(size_t i, const struct blkdev *d)
{
	const char *const *t;

	for (t = layers[i].types; *t; t++)
		if (!strcmp(d->type, *t))
			return !layers[i].hooks->claims ||
				layers[i].hooks->claims(d);
	return false;
}

/* The first active layer that claims d adds it. */
static void offer(const struct blkdev *d)
{
	size_t i;
	int err;

	for (i = 0; i < ARRAY_SIZE(layers); i++) {
		if (!claims(i, d))
			continue;
		if (!active[i]) {
			left_alone(i, d);
			return;
		}
		log_debug("storage: %s claims %s (%s)", layers[i].name,
			  d->node, d->type);
		err = layers[i].hooks->device_added ?
		      layers[i].hooks->device_added(d) : 0;
		if (err)
			log_debug("storage: %s did not take %s: %s",
				  layers[i].name, d->node, errtext(-err));
		return;
	}
}

/*
 * A device was probed: offer it, then let the layers see it, after the
 * device_added() that may have made its whole complete.
 */
void storage_device(struct blkdev *d)
{
	size_t i;

	if (d->sb_probed && d->type[0])
		offer(d);
	for (i = 0; i < ARRAY_SIZE(layers); i++)
		if (active[i] && layers[i].hooks->device_seen)
			layers[i].hooks->device_seen(d);
}

void storage_removed(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(layers); i++)
		if (active[i] && layers[i].hooks->device_removed)
			layers[i].hooks->device_removed(name);
}

void *storage_slot(void *table, size_t size, size_t *n, size_t max,
		   size_t key_off, size_t key_size, const char *key)
{
	char *e = table;
	size_t i;

	for (i = 0; i < *n; i++, e += size)
		if (!strcmp(e + key_off, key))
			return e;
	if (*n == max)
		return NULL;
	memset(e, 0, size);
	snprintf(e + key_off, key_size, "%s", key);
	(*n)++;
	return e;
}

/* The root is late: let each layer start what it can incomplete. */
int storage_root_wait_over(void)
{
	size_t i;
	int n = 0, r;

	for (i = 0; i < ARRAY_SIZE(layers); i++) {
		if (!active[i] || !layers[i].hooks->root_wait_over)
			continue;
		r = layers[i].hooks->root_wait_over();
		if (r > 0)
			n += r;
	}
	return n;
}

/*
 * One more name of d below /dev ("VG!LV" for /dev/VG/LV), for a layer's
 * device_seen(): once, and never cut, since a cut name would match
 * another.
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

	for (i = 0; i < ARRAY_SIZE(layers); i++)
		if (active[i] && layers[i].hooks->report)
			layers[i].hooks->report(fn, ctx);
}
