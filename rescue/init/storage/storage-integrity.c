// SPDX-License-Identifier: GPL-2.0
/*
 * storage-integrity.c: standalone dm-integrity devices (integritysetup
 * format: a checksum for every sector, so that a dying disk's silent
 * corruption is an I/O error instead of bad data).  Each one is opened
 * with the image's integritysetup as integrity-NAME, NAME the kernel
 * name of the device under it: its superblock has no UUID to name it
 * by.  The root is found by what is inside (root=UUID= of its
 * filesystem) or as /dev/mapper/integrity-NAME.
 *
 * The tag algorithm is not in the superblock: integritysetup assumes
 * its default, crc32c, as this layer does; a device formatted with
 * another one fails to open, and the line says so.  Opening replays
 * the device's journal, a write: in strict read-only mode the layer
 * leaves every device closed, with a line that says why.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "storage.h"

#define INTEGRITY_MAX	16

enum integrity_state { I_NEW, I_OPEN, I_CLOSED };

struct integrity {
	char name[64];		/* the device under it: "vda" */
	char node[80];		/* "/dev/vda" */
	char dmname[80];	/* "integrity-vda" */
	char dm[32];		/* the device it opened as: "dm-0" */
	enum integrity_state state;
	char why[128];		/* I_CLOSED: the reason */
};

static struct integrity devs[INTEGRITY_MAX];
static size_t ndevs;

static bool integrity_setup(const struct cmdline *c)
{
	return cmdline_flag(c, "rd.integrity", true);
}

/* x closed for why, said once in the log. */
static int leave_closed(struct integrity *x, int err, const char *why)
{
	x->state = I_CLOSED;
	snprintf(x->why, sizeof(x->why), "%s", why);
	log_error("integrity: %s left closed: %s", x->node, x->why);
	return err;
}

static int open_device(struct integrity *x)
{
	char *argv[] = { "integritysetup", "open", x->node, x->dmname, NULL };
	char path[64];
	int r;

	if (dm_find(x->dmname, x->dm, sizeof(x->dm)) == 0) {
		x->state = I_OPEN;	/* by an earlier run of /init */
		return 0;
	}
	if (readonly_strict())
		return leave_closed(x, -EROFS, "strict read-only "
				    "(rescue.ro=strict): opening replays its "
				    "journal, a write");
	if (dm_ready())
		return leave_closed(x, -ENODEV, "no device-mapper");
	if (dm_tool("integritysetup", path, sizeof(path)))
		return leave_closed(x, -ENOENT,
				    "no integritysetup in this image");
	modload_alias("dm_integrity");
	r = dm_run("integritysetup", argv, NULL, 0, NULL, 0);
	if (r < 0)
		return leave_closed(x, r, "integritysetup did not run");
	if (r > 0) {
		char why[96];

		snprintf(why, sizeof(why), "integritysetup failed (exit status "
			 "%d; a tag algorithm other than crc32c?)", r);
		return leave_closed(x, -EIO, why);
	}
	if (dm_find(x->dmname, x->dm, sizeof(x->dm)))
		snprintf(x->dm, sizeof(x->dm), "?");
	x->state = I_OPEN;
	log_info("integrity: opened %s as %s (/dev/mapper/%s)", x->node,
		 x->dm, x->dmname);
	return 0;
}

static int integrity_device_added(const struct blkdev *d)
{
	struct integrity *x = STORAGE_SLOT(devs, ndevs, name, d->name);

	if (!x)
		return -ENOSPC;
	if (x->state != I_NEW)
		return 0;	/* taken already */
	snprintf(x->node, sizeof(x->node), "%s", d->node);
	snprintf(x->dmname, sizeof(x->dmname), "integrity-%s", d->name);
	return open_device(x);
}

static void integrity_device_removed(const char *name)
{
	size_t i;

	for (i = 0; i < ndevs; i++)
		if (devs[i].state == I_OPEN && !strcmp(devs[i].dm, name)) {
			devs[i].state = I_CLOSED;
			snprintf(devs[i].why, sizeof(devs[i].why),
				 "%s was closed", name);
		}
}

/* "vda: dm-integrity: opened as dm-0 (/dev/mapper/integrity-vda)". */
static void integrity_report(devtable_line_fn *fn, void *ctx)
{
	char line[384];
	size_t i;

	for (i = 0; i < ndevs; i++) {
		const struct integrity *x = &devs[i];

		if (x->state == I_OPEN)
			snprintf(line, sizeof(line), "%s: dm-integrity: opened "
				 "as %s (/dev/mapper/%s)", x->name, x->dm,
				 x->dmname);
		else
			snprintf(line, sizeof(line), "%s: dm-integrity: not "
				 "opened: %s", x->name,
				 x->why[0] ? x->why : "not yet");
		fn(ctx, line);
	}
}

const struct storage_layer storage_integrity = {
	.setup = integrity_setup,
	.device_added = integrity_device_added,
	.device_removed = integrity_device_removed,
	.device_seen = dm_annotate,
	.report = integrity_report,
};
