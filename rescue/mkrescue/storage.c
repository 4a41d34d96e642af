// SPDX-License-Identifier: GPL-2.0
/* storage.c: --storage: mdadm, cryptsetup, lvm, dmsetup, btrfs and /etc. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "mkrescue.h"

/*
 * The tools of the stacked roots (md RAID, LUKS, LVM2, multi-device
 * btrfs), for rescue-init's storage layers and the rescue shell.  They
 * are the host's, dynamically linked: each comes with its loader and
 * libraries (ldpath.c), at their host paths (hostpath.c).
 */
static const char *const storage_programs[] = {
	"/sbin/mdadm",
	"/sbin/cryptsetup",
	"/sbin/lvm",
	"/sbin/dmsetup",
	"/bin/btrfs",
};

/* lvm's commands, links to it on the host as lvm2 installs them. */
static const char *const storage_lvm_links[] = {
	"lvchange", "lvcreate", "lvdisplay", "lvextend", "lvmconfig",
	"lvreduce", "lvremove", "lvrename", "lvresize", "lvs", "lvscan",
	"pvchange", "pvck", "pvcreate", "pvdisplay", "pvmove", "pvremove",
	"pvresize", "pvs", "pvscan", "vgcfgbackup", "vgcfgrestore",
	"vgchange", "vgck", "vgcreate", "vgdisplay", "vgexport", "vgextend",
	"vgimport", "vgmknodes", "vgreduce", "vgremove", "vgrename", "vgs",
	"vgscan",
};

/*
 * No udev in the image: LVM makes its /dev nodes itself and waits for
 * no udev event; no daemon (lvmpolld, dmeventd) runs.  No hints file
 * (it would be left in /run/lvm), synchronous reads (the patched
 * kernel has no AIO: lvm would try, then say it falls back), no D-Bus
 * notification (there is no bus).  The names are those of lvm.conf(5)
 * of lvm2 2.03.16 (use_lvmetad is gone since 2.03).
 */
static const char storage_lvm_conf[] =
	"# /etc/lvm/lvm.conf of the devtmpfs-rescue image: no udev, no daemons.\n"
	"devices {\n"
	"\tobtain_device_list_from_udev = 0\n"
	"\texternal_device_info_source = \"none\"\n"
	"\tuse_devicesfile = 0\n"
	"\thints = \"none\"\n"
	"}\n"
	"activation {\n"
	"\tudev_sync = 0\n"
	"\tudev_rules = 0\n"
	"\tverify_udev_operations = 0\n"
	"\tmonitoring = 0\n"
	"}\n"
	"global {\n"
	"\tuse_lvmpolld = 0\n"
	"\tuse_aio = 0\n"
	"\tnotify_dbus = 0\n"
	"}\n";

/*
 * mdadm waits for udev only when /run/udev exists and MDADM_NO_UDEV is
 * unset: never in this image, where it makes the /dev/md nodes itself.
 * Arrays of any host assemble under their own names (HOMEHOST <ignore>).
 */
static const char storage_mdadm_conf[] =
	"# /etc/mdadm/mdadm.conf of the devtmpfs-rescue image.\n"
	"# No udev here: mdadm creates the /dev/md* nodes itself.\n"
	"DEVICE partitions containers\n"
	"HOMEHOST <ignore>\n"
	"AUTO +all\n"
	"CREATE owner=root group=disk mode=0660 auto=yes\n";

static const struct storage_conf {
	const char *path;
	const char *data;
} storage_confs[] = {
	{ "etc/lvm/lvm.conf", storage_lvm_conf },
	{ "etc/mdadm/mdadm.conf", storage_mdadm_conf },
};


/* Each command as the host has it, a link to lvm. */
static int storage_add_lvm_links(struct list *l, struct hostpath *hp,
				 bool required)
{
	size_t i;
	int err = 0;

	for (i = 0; !err && i < ARRAY_SIZE(storage_lvm_links); i++) {
		char path[64];
		struct stat st;

		snprintf(path, sizeof(path), "/sbin/%s", storage_lvm_links[i]);
		if (!required && lstat(path, &st) < 0 && errno == ENOENT) {
			msg_verbose("no %s: it does not exist", path);
			continue;
		}
		err = hostpath_add(hp, l, path, "lvm command");
	}
	return err;
}

static int storage_add_programs(struct list *l, struct hostpath *hp,
				bool required)
{
	struct ldconf conf = { 0 };
	struct ldpath lp;
	size_t i;
	int err;

	ldpath_init(&lp, NULL);
	err = ldconf_read_depth(&conf, "/etc/ld.so.conf", 0);
	lp.conf = &conf;
	for (i = 0; !err && i < ARRAY_SIZE(storage_programs); i++) {
		const char *p = storage_programs[i];
		struct stat st;

		if (!required && stat(p, &st) < 0 && errno == ENOENT) {
			msg_verbose("no %s: it does not exist", p);
			continue;
		}
		err = ldpath_add_program(&lp, p);
		if (!err)
			err = hostpath_add(hp, l, p, "storage tool");
		if (!err && !strcmp(p, "/sbin/lvm"))
			err = storage_add_lvm_links(l, hp, required);
	}
	for (i = 0; !err && i < lp.nfiles; i++)
		err = hostpath_add(hp, l, lp.files[i].path, lp.files[i].why);
	if (!err)
		msg_verbose("storage tools: %zu libraries and loaders", lp.nfiles);
	ldpath_free(&lp);
	ldconf_free(&conf);
	return err;
}

int storage_add(struct list *l, struct hostpath *hp, bool required)
{
	size_t i;
	int err;

	err = storage_add_programs(l, hp, required);
	for (i = 0; !err && i < ARRAY_SIZE(storage_confs); i++)
		err = list_add_data(l, storage_confs[i].path, 0644,
				    storage_confs[i].data,
				    strlen(storage_confs[i].data), LIST_DEFAULT,
				    "storage configuration");
	return err;
}
