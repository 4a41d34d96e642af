// SPDX-License-Identifier: GPL-2.0
/* tools.c: rescue-ls and rescue-mount, the rescue shell's commands. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rescue-init.h"
#include "storage.h"

enum tool { TOOL_NONE, TOOL_LS, TOOL_MOUNT, TOOL_HELP };

static const char usage[] =
	"usage: rescue-ls            list the block devices\n"
	"       rescue-mount [DIR]   mount the root as the boot would "
	"(default " NEWROOT ")\n"
	"       rescue-init --ls | --mount [DIR] | --help\n"
	"rescue-init itself is the /init (PID 1) of an initramfs: see "
	"rescue-init(8).\n";

static enum tool which(int argc, char *argv[], int *first)
{
	const char *base = strrchr(argv[0], '/');

	base = base ? base + 1 : argv[0];
	*first = 1;
	if (!strcmp(base, "rescue-ls"))
		return TOOL_LS;
	if (!strcmp(base, "rescue-mount"))
		return TOOL_MOUNT;
	*first = 2;
	if (argc > 1 && !strcmp(argv[1], "--ls"))
		return TOOL_LS;
	if (argc > 1 && !strcmp(argv[1], "--mount"))
		return TOOL_MOUNT;
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
		return TOOL_HELP;
	return TOOL_NONE;
}

/*
 * The tools are meant for a bare shell too (rdinit=/bin/sh), where
 * nobody mounted /proc or /sys yet: mount what they read, and say so.
 */
static void mount_if_missing(const char *tool, const char *probe,
			     const char *dir, const char *fstype)
{
	if (access(probe, F_OK) == 0)
		return;
	mkdir(dir, 0755);
	if (mount(fstype, dir, fstype, MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL))
		fprintf(stderr, "%s: unable to mount %s on %s: %s\n", tool,
			fstype, dir, strerror(errno));
	else
		fprintf(stderr, "%s: mounted %s on %s, which was not mounted\n",
			tool, fstype, dir);
}

static void mount_proc_and_sys(const char *tool)
{
	mount_if_missing(tool, "/proc/self", "/proc", "proc");
	mount_if_missing(tool, "/sys/class", "/sys", "sysfs");
}

/* Every block device there is, fully probed, one line at a time to fn. */
void tools_print_table(struct blklist *l, devtable_line_fn *fn, void *ctx)
{
	if (l->n == 0)
		blk_enumerate(l, "/sys/class/block");
	probe_all(l, PROBE_ALL | PROBE_FULL);
	devtable_format(l->dev, l->n, fn, ctx);
	storage_report(fn, ctx);
}

static void print_line(void *ctx, const char *line)
{
	fprintf(ctx, "%s\n", line);
}

static int rescue_mount(const char *dir)
{
	static struct cmdline cmd;
	static char buf[CMDLINE_SIZE];
	struct blklist devs = { 0 };
	struct mountent m;
	char why[2048];
	size_t i;
	int err, ufd;

	if (mounts_find(dir, &m) == 0) {
		printf("rescue-mount: %s is already mounted: %s (%s, %s)\n",
		       dir, m.source, m.fstype, m.ro ? "ro" : "rw");
		return 0;
	}
	err = cmdline_read_all(CMDLINE_CONF_DIR, "/proc/cmdline", buf,
			       sizeof(buf));
	if (err) {
		fprintf(stderr, "rescue-mount: unable to read /proc/cmdline: "
			"%s\n", strerror(-err));
		return 1;
	}
	cmdline_parse(buf, &cmd);
	log_set_debug(cmd.debug);
	for (i = 0; i < cmd.nproblems; i++)
		log_warn("%s", cmd.problems[i]);
	ufd = uevent_open();
	err = modload_init(&cmd);
	if (err && err != -ENOENT)
		log_warn("unable to read the module indexes: %s",
			 strerror(-err));
	probe_init_filesystems();
	err = rootmount_boot(&cmd, &devs, ufd, dir, &m, why, sizeof(why));
	if (err) {
		fprintf(stderr, "rescue-mount: %s\n", why);
		tools_print_table(&devs, print_line, stderr);
		return 1;
	}
	printf("rescue-mount: mounted %s (%s, %s) on %s\n", m.source, m.fstype,
	       m.ro ? "ro" : "rw", dir);
	return 0;
}

/* rescue-ls, rescue-mount, or a polite refusal when not PID 1. */
int tools_main(int argc, char *argv[])
{
	struct blklist devs = { 0 };
	int first;

	switch (argc > 0 ? which(argc, argv, &first) : TOOL_NONE) {
	case TOOL_LS:
		log_to_fd(2, "rescue-ls: ", false);
		mount_proc_and_sys("rescue-ls");
		tools_print_table(&devs, print_line, stdout);
		return 0;
	case TOOL_MOUNT:
		log_to_fd(2, "rescue-mount: ", false);
		if (argc > first + 1) {
			fputs(usage, stderr);
			return 2;
		}
		mount_proc_and_sys("rescue-mount");
		return rescue_mount(argc > first ? argv[first] : NEWROOT);
	case TOOL_HELP:
		fputs(usage, stdout);
		return 0;
	default:
		fprintf(stderr, "rescue-init: not running as PID 1 (PID %d): it "
			"switches root only as the /init of an initramfs\n%s",
			(int)getpid(), usage);
		return 2;
	}
}
