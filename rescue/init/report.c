// SPDX-License-Identifier: GPL-2.0
/*
 * report.c: what a failed boot shows, and rescue-ls: every block device
 * in the device table (devtable.c), then what the storage layers and
 * the network have to say about theirs, and whether Secure Boot holds
 * the kernel locked down (secureboot.c).
 */
#include "rescue-init.h"
#include "net/network.h"
#include "storage/storage.h"

/* Every block device there is, fully probed, one line at a time to fn. */
void report_devices(struct blklist *l, devtable_line_fn *fn, void *ctx)
{
	if (l->n == 0)
		blk_enumerate(l, "/sys/class/block");
	probe_all(l, PROBE_ALL | PROBE_FULL);
	devtable_format(l->dev, l->n, fn, ctx);
	storage_report(fn, ctx);
	net_report(fn, ctx);
	secureboot_report(fn, ctx);
}

static void log_line(void *ctx, const char *line)
{
	(void)ctx;
	log_error("%s", line);
}

/* The one line saying why the root was not used, then every device. */
void report_failure(struct blklist *l, const char *why)
{
	log_error("%s", why);
	report_devices(l, log_line, NULL);
}
