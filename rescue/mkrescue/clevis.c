// SPDX-License-Identifier: GPL-2.0
/*
 * clevis.c: --clevis: Debian's clevis with its tang and sss pins, the
 * programs of rescue/share/clevis-tools shipped as the storage tools are
 * (the host's, with their loader and libraries; the scripts as they
 * are), for rescue-init's network-bound LUKS unlock (luksclevis.c).
 * By default with -k when the host boots with clevis: its
 * clevis-initramfs (initramfs-tools) or clevis-dracut is installed.
 */
#include <sys/stat.h>

#include "mkrescue.h"

#define CLEVIS_TOOLS		"clevis-tools"
#define CLEVIS_TOOLS_COLUMN	1

/* What Debian's clevis-initramfs and clevis-dracut install. */
static const char *const clevis_boot_files[] = {
	"/usr/share/initramfs-tools/hooks/clevis",
	"/usr/lib/dracut/modules.d/60clevis/module-setup.sh",
};

bool clevis_host_uses(void)
{
	struct stat st;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(clevis_boot_files); i++)
		if (stat(clevis_boot_files[i], &st) == 0) {
			msg_verbose("clevis: the host has %s",
				    clevis_boot_files[i]);
			return true;
		}
	return false;
}

int clevis_add(struct list *l, struct hostpath *hp, bool required,
	       const char *datadir)
{
	return storage_add_tools(l, hp, required, datadir, CLEVIS_TOOLS,
				 CLEVIS_TOOLS_COLUMN, "clevis");
}
