// SPDX-License-Identifier: GPL-2.0
/*
 * disktools.c: --disk-tools: the tools for a failing disk, the names of
 * rescue/share/disk-tools (ddrescue, smartctl, badblocks), shipped as the
 * storage tools are: the host's programs with their loader and libraries.
 * The list is data, read by mkrescue and the dracut module alike.
 */
#include "mkrescue.h"

#define DISK_TOOLS		"disk-tools"
#define DISK_TOOLS_COLUMN	1

int disktools_add(struct list *l, struct hostpath *hp, bool required,
		  const char *datadir)
{
	return storage_add_tools(l, hp, required, datadir, DISK_TOOLS,
				 DISK_TOOLS_COLUMN, "disk tool");
}
