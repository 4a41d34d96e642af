/* SPDX-License-Identifier: GPL-2.0 */
/*
 * storage.h: the storage-layer step of rescue-init's boot, between
 * finding block devices and matching root=.
 *
 * A storage layer turns block devices into other block devices: md
 * assembles arrays from their members, dm-crypt opens LUKS containers,
 * LVM activates logical volumes, btrfs registers every device of a
 * multi-device filesystem.  The root can only be matched once the
 * layers below it have made their devices, and those appear as new
 * block devices with uevents, like any disk: so a layer only reacts to
 * devices (claims, device_added, device_removed) and never polls or
 * sleeps.
 *
 * A new layer is one row of rescue/share/storage-layers (its name, the
 * libblkid types it claims, its off parameter; storage.c's table is
 * generated from it, lowest layer first) and one file,
 * rescue/init/storage/storage-NAME.c, defining its hooks as
 * const struct storage_layer storage_NAME.  Each hook is named after
 * when it runs; NULL: the layer has nothing to do then.
 */
#ifndef RESCUE_STORAGE_H
#define RESCUE_STORAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "arraysize.h"
#include "rescue-init.h"

struct storage_layer {
	/*
	 * Once, first, before any device: reads the layer's parameters
	 * (rd.md.uuid=) and returns whether the layer is on for this
	 * boot (false for the table's off parameter, rd.md=0).  NULL:
	 * always on.
	 */
	bool (*setup)(const struct cmdline *c);
	/*
	 * Whether d (probed, TYPE and UUID known, TYPE one of the layer's
	 * in the table) is one of its members.  NULL: every device of its
	 * types is.
	 */
	bool (*claims)(const struct blkdev *d);
	/*
	 * A device it claims is there: assemble, open or activate what it
	 * completes.  0, or -errno after logging the one line that says
	 * which device and why; the boot goes on either way.  It may come
	 * again for a device it has (a change uevent, or every device
	 * after lost uevents): taking it twice must do nothing.
	 */
	int (*device_added)(const struct blkdev *d);
	/* A device of that name went away (it may not have been claimed). */
	void (*device_removed)(const char *name);
	/*
	 * Any device, probed or not, after device_added(): the other names
	 * it has below /dev if this layer made it (d->alias, "md!root" for
	 * /dev/md/root), which root=/dev/... matches; d->incomplete when
	 * it is part of a whole that still misses devices, which root=
	 * then does not match; and what the device was awaited for (the
	 * key device of a LUKS container: the container is unlocked).
	 */
	void (*device_seen)(struct blkdev *d);
	/*
	 * The root wait ended without the root: start what can run
	 * incomplete (a degraded array), saying what is missing.  Returns
	 * how many devices it started, which will come as uevents.
	 */
	int (*root_wait_over)(void);
	/* What it made and what it still misses, one line each. */
	void (*report)(devtable_line_fn *fn, void *ctx);
};


/*
 * storage-dm.c: what every device-mapper layer (LUKS, LVM) shares.
 *
 * dm_ready(): dm_mod loaded and /dev/mapper/control there (made from
 * /sys/class/misc/device-mapper/dev if devtmpfs did not); 0, or -errno
 * after one error line for the whole boot.
 *
 * dm_run(TOOL, ARGV, INPUT, INLEN, OUT, OUTSIZE): run the image's TOOL
 * ("cryptsetup", "lvm"; found in /usr/sbin, /sbin, /usr/bin, /bin) with
 * ARGV (argv[0] included, NULL-ended) and DM_DISABLE_UDEV=1, so that
 * libdevmapper makes the /dev/mapper nodes itself.  INPUT (may be NULL)
 * goes to its stdin through a pipe and is never logged: a passphrase
 * or key.  Each line of its stdout and stderr is logged as "TOOL: ...",
 * and kept in OUT (may be NULL) up to OUTSIZE - 1 bytes.  Returns the
 * tool's exit status (0 success, > 0 its failure), or -ENOENT after
 * "no TOOL in this image: make it with mkrescue --storage", or -errno.
 *
 * dm_tool(TOOL, PATH, SIZE): TOOL's path in the image, or -ENOENT after
 * that same line: for a layer that must know before it asks for a key.
 *
 * dm_find(DMNAME, DEV, SIZE): the dm-N whose mapping is named DMNAME.
 * dm_info(DEV, NAME, NSIZE, UUID, USIZE): the mapping name and dm UUID
 * (UUID may be NULL) of dm-N.
 * dm_annotate(D): for a layer's device_seen(): D, if it is a dm-N, gets
 * the alias "mapper!NAME" (root=/dev/mapper/NAME matches it), and
 * /dev/mapper/NAME is made a link to it if libdevmapper made no node.
 */
int dm_ready(void);
int dm_run(const char *tool, char *const argv[], const void *input,
	   size_t inlen, char *out, size_t outsize);
int dm_tool(const char *tool, char *path, size_t size);
int dm_find(const char *dmname, char *dev, size_t size);
int dm_info(const char *dev, char *name, size_t nsize, char *uuid,
	    size_t usize);
void dm_annotate(struct blkdev *d);
/* dmudev.c: dm-N's record in /run/udev/data, for the root's udev. */
void dm_udev_record(const struct blkdev *d);

/*
 * A LUKS passphrase from elsewhere than the console (an SSH session's
 * rescue-unlock, tools.c): while the prompt waits, RESCUE_LUKS_WAITING says
 * which container in one line, and a line written to the FIFO
 * RESCUE_LUKS_PASS_FIFO answers it as a typed one would; RESCUE_LUKS_STATUS says how
 * each try went.
 */

/* How long the root wait goes on for what root_wait_over() started. */
#define STORAGE_WAIT_OVER_S	5

void storage_init(const struct cmdline *c);
void storage_device(struct blkdev *d);
void storage_removed(const char *name);
int storage_root_wait_over(void);
void storage_report(devtable_line_fn *fn, void *ctx);
void storage_add_alias(struct blkdev *d, const char *alias);
size_t storage_active(void);
int storage_find_twin(const struct blkdev *d, char *twin, size_t size);

/*
 * A layer's record for KEY in its fixed table, found by the string
 * member FIELD: the one there, else a zeroed new one with KEY in FIELD,
 * else NULL when the table is full.  TABLE is an array, N its count.
 */
void *storage_slot(void *table, size_t size, size_t *n, size_t max,
		   size_t key_off, size_t key_size, const char *key);
#define STORAGE_SLOT(table, n, field, key)				\
	((__typeof__(&(table)[0]))storage_slot((table), sizeof((table)[0]), \
		&(n), ARRAY_SIZE(table),				\
		offsetof(__typeof__((table)[0]), field),		\
		sizeof((table)[0].field), (key)))

/*
 * Strict read-only mode is readonly.c's (readonly_strict()): layers
 * then write nothing at all, not even what a read-only assembly would
 * write on the first write (md starts "readonly", not "read-auto").
 */

/* multipath.c: the root's other paths, named in one line. */
void multipath_note_root(const struct blklist *l, size_t i,
			 const char *why);
/*
 * The root's disk on several paths made one dm-multipath map: true when
 * made (look for the root again: its paths are held, blkdev.c, and
 * root= skips them), false after the line that says why not.
 */
bool multipath_assemble(const struct cmdline *c, const struct blklist *l,
			size_t i);

#endif
