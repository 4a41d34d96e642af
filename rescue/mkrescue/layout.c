// SPDX-License-Identifier: GPL-2.0
/* layout.c: the directories, nodes and /etc of every image. */
#include <string.h>

#include "imagemark.h"
#include "mkrescue.h"

/*
 * What rescue-init and the rescue shell expect to find, as data.  These
 * entries have the layout's rank: --include may replace the /etc files.
 */
static const struct layout_dir {
	const char *path;
	mode_t perm;
} layout_dirs[] = {
	{ "bin", 0755 },
	{ "dev", 0755 },
	{ "etc", 0755 },
	{ "newroot", 0755 },
	{ "proc", 0755 },
	{ "root", 0700 },
	{ "run", 0755 },
	{ "sbin", 0755 },
	{ "sys", 0755 },
	{ "tmp", 01777 },
	{ "usr", 0755 },
	{ "usr/bin", 0755 },
	{ "usr/sbin", 0755 },
};

static const struct layout_file {
	const char *path;
	const char *data;
} layout_files[] = {
	{ "etc/fstab", "" },
	{ "etc/group", "root:x:0:\n" },
	{ "etc/hostname", "rescue\n" },
	{ "etc/passwd", "root:x:0:0:root:/root:/bin/sh\n" },
	{ "etc/profile",
	  "export PATH=/bin:/sbin:/usr/bin:/usr/sbin\n"
	  "export HOME=/root\n"
	  "export ENV=/etc/rescue.shrc\n"
	  "PS1='rescue:\\w# '\n"
	  /* An SSH login learns of a LUKS prompt that waits for it. */
	  "[ -r " RESCUE_LUKS_WAITING " ] && echo \"rescue: $(cat "
	  RESCUE_LUKS_WAITING "): " RESCUE_TOOL_UNLOCK " gives it\"\n" },
	/*
	 * The interactive shell's $ENV (rescue-init's console shell, and
	 * SSH logins through /etc/profile).  Debian's busybox sh runs its
	 * own applets before $PATH (FEATURE_SH_STANDALONE): busybox's
	 * modprobe hands the kernel the compressed bytes of a .ko.xz.  The
	 * module tools by name are /sbin's, rescue-init with -k.
	 */
	{ "etc/rescue.shrc",
	  RESCUE_MODPROBE "() { /" RESCUE_MODTOOL_DIR "/" RESCUE_MODPROBE " \"$@\"; }\n"
	  RESCUE_INSMOD "() { /" RESCUE_MODTOOL_DIR "/" RESCUE_INSMOD " \"$@\"; }\n"
	  RESCUE_RMMOD "() { /" RESCUE_MODTOOL_DIR "/" RESCUE_RMMOD " \"$@\"; }\n" },
	/* The first marker of a whole image: image.c writes its text. */
	{ IMAGEMARK_BEGIN, "" },
};

static const struct layout_link {
	const char *path;
	const char *target;
} layout_links[] = {
	{ "etc/mtab", "/proc/mounts" },
};

/* A stock kernel opens /dev/console before /init runs: it must exist. */
static const struct layout_node {
	const char *path;
	mode_t perm;
	unsigned int major, minor;
} layout_nodes[] = {
	{ "dev/console", 0600, 5, 1 },
};


int layout_add(struct list *l)
{
	size_t i;
	int err = 0;

	for (i = 0; !err && i < ARRAY_SIZE(layout_dirs); i++)
		err = list_add_dir(l, layout_dirs[i].path, layout_dirs[i].perm,
				   LIST_DEFAULT, "layout");
	for (i = 0; !err && i < ARRAY_SIZE(layout_files); i++)
		err = list_add_data(l, layout_files[i].path, 0644,
				    layout_files[i].data,
				    strlen(layout_files[i].data),
				    LIST_DEFAULT, "layout");
	for (i = 0; !err && i < ARRAY_SIZE(layout_links); i++)
		err = list_add_symlink(l, layout_links[i].path,
				       layout_links[i].target, LIST_DEFAULT,
				       "layout");
	for (i = 0; !err && i < ARRAY_SIZE(layout_nodes); i++)
		err = list_add_chardev(l, layout_nodes[i].path,
				       layout_nodes[i].perm,
				       layout_nodes[i].major,
				       layout_nodes[i].minor, LIST_DEFAULT,
				       "layout");
	return err;
}
