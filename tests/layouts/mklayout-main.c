// SPDX-License-Identifier: GPL-2.0
/*
 * mklayout-main.c: the seeded random disk-layout generator.  From --seed N
 * alone it plans 1-16 disks with one real root among decoys, chooses a
 * root= that names it, checks the plan, and writes into --out DIR the
 * plan files and build.sh, which it runs to make the images; the
 * directory appears complete (renamed from DIR.tmp) or not at all.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mklayout.h"

#define OUT_MAX 3072	/* --out and DIR.tmp; file paths in DIR get 4096 */

struct options {
	uint64_t seed;
	bool seed_given;
	const char *out;
	const char *busybox;
	bool plan_only;
	bool stacked;
	struct root_policy policy;
};

static void usage(FILE *f)
{
	fputs("usage: mklayout --seed N --out DIR [--plan-only] [--kernel-root] [--stacked]\n"
	      "                [--busybox FILE] [--virtio-blk-major M]\n"
	      "  --seed N       every decision comes from N: same N, same bytes\n"
	      "  --out DIR      write layout.txt, disks, cmdline, expect, build.sh\n"
	      "                 and the disk images there (DIR must not exist)\n"
	      "  --plan-only    write the plan files and build.sh, not the images\n"
	      "  --kernel-root  only root= forms the kernel mounts itself, without\n"
	      "                 an initramfs (no UUID=, LABEL=, rootwait=N)\n"
	      "  --stacked      the seed's stacked layout (md, LUKS2, LVM, btrfs and\n"
	      "                their nestings; one seed in four has one): build.sh\n"
	      "                makes what userspace can, helper.cmds is for a VM\n"
	      "  --busybox FILE the busybox copied into root trees (/bin/busybox)\n"
	      "  --virtio-blk-major M  the booted kernel's virtio-blk major (254;\n"
	      "                253 when md is built in and takes the first one)\n"
	      "exit status: 0 done, 1 failed, 2 bad usage, 3 no root= form allowed\n"
	      "names the root (--kernel-root and a whole-disk root among SCSI disks)\n"
	      "or the seed has no stacked layout\n", f);
}

static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "out", required_argument, NULL, 'o' },
		{ "busybox", required_argument, NULL, 'b' },
		{ "plan-only", no_argument, NULL, 'p' },
		{ "kernel-root", no_argument, NULL, 'k' },
		{ "stacked", no_argument, NULL, 'S' },
		{ "virtio-blk-major", required_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long major;
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	o->busybox = "/bin/busybox";
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			errno = 0;
			o->seed = strtoull(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-') {
				msg_error("unable to use --seed %s: not a decimal number below 2^64", optarg);
				return -EINVAL;
			}
			o->seed_given = true;
			break;
		case 'o':
			o->out = optarg;
			break;
		case 'b':
			o->busybox = optarg;
			break;
		case 'p':
			o->plan_only = true;
			break;
		case 'k':
			o->policy.kernel_only = true;
			break;
		case 'S':
			o->stacked = true;
			break;
		case 'M':
			errno = 0;
			major = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || major == 0 || major > 511) {
				msg_error("unable to use --virtio-blk-major %s: not a major number",
					  optarg);
				return -EINVAL;
			}
			virtio_blk_major = (unsigned int)major;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	if (optind != argc || !o->seed_given || !o->out || !o->out[0]) {
		usage(stderr);
		return -EINVAL;
	}
	return 0;
}

/* Inputs first: nothing is written unless all of them are right. */
static int check_inputs(const struct options *o)
{
	struct stat st;

	if (strlen(o->out) + sizeof(".tmp") > OUT_MAX) {
		msg_error("unable to use --out %s: too long", o->out);
		return -ENAMETOOLONG;
	}
	if (lstat(o->out, &st) == 0) {
		msg_error("unable to use --out %s: it exists", o->out);
		return -EEXIST;
	}
	if (!o->plan_only && access(o->busybox, R_OK) != 0) {
		msg_error("unable to read busybox %s: %s", o->busybox, strerror(errno));
		return -errno;
	}
	return 0;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return type == FTW_DP ? rmdir(path) : unlink(path);
}

static void remove_tree(const char *path)
{
	nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void show_build_log(const char *dir)
{
	char path[4096], line[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/build.log", dir);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		fprintf(stderr, "  %s", line);
	fclose(f);
}

/* sh build.sh in DIR, its output in DIR/build.log (removed when empty). */
static int run_build(const char *dir, const char *busybox, uint64_t seed)
{
	char log[4096];
	struct stat st;
	int status, fd;
	pid_t pid;

	snprintf(log, sizeof(log), "%s/build.log", dir);
	pid = fork();
	if (pid < 0) {
		msg_error("unable to fork for build.sh: %s", strerror(errno));
		return -errno;
	}
	if (pid == 0) {
		fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || chdir(dir) != 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(126);
		/* build.sh honours $BUSYBOX: let nothing else than --busybox in. */
		setenv("BUSYBOX", busybox, 1);
		execl("/bin/sh", "sh", "build.sh", (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0) {
		msg_error("unable to wait for build.sh: %s", strerror(errno));
		return -errno;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		msg_error("unable to build the images of seed %llu: build.sh failed (status %d):",
			  (unsigned long long)seed, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		show_build_log(dir);
		return -EIO;
	}
	if (stat(log, &st) == 0 && st.st_size == 0)
		unlink(log);
	return 0;
}

/* 0, or the exit status: a seed without a stacked layout is skipped. */
static int plan_stack(const struct options *o, struct stack *s)
{
	if (o->policy.kernel_only) {
		msg_error("seed %llu: a stacked root needs the initramfs, not --kernel-root",
			  (unsigned long long)o->seed);
		return 3;
	}
	if (!stack_chosen(o->seed)) {
		msg_error("seed %llu has no stacked layout (one seed in four has)",
			  (unsigned long long)o->seed);
		return 3;
	}
	stack_plan(s, o->seed);
	return stack_check(s) ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct options o;
	struct layout l;
	struct stack s;
	char tmp[OUT_MAX];
	int err;

	if (parse_options(argc, argv, &o) || check_inputs(&o))
		return 2;
	if (o.stacked) {
		err = plan_stack(&o, &s);
		if (err)
			return err;
	} else {
		layout_plan(&l, o.seed);
		err = root_choose(&l, &o.policy);
		if (err)
			return err == -ENOENT ? 3 : 1;
		if (layout_check(&l))
			return 1;
	}

	snprintf(tmp, sizeof(tmp), "%s.tmp", o.out);
	remove_tree(tmp);
	if (mkdir(tmp, 0755) != 0) {
		msg_error("unable to create %s: %s", tmp, strerror(errno));
		return 1;
	}
	if (o.stacked) {
		err = stack_files_write(&s, tmp, o.busybox);
	} else {
		err = plan_files_write(&l, tmp);
		if (!err)
			err = script_write(&l, tmp, o.busybox);
	}
	if (!err && !o.plan_only)
		err = run_build(tmp, o.busybox, o.seed);
	if (!err && rename(tmp, o.out) != 0) {
		msg_error("unable to rename %s to %s: %s", tmp, o.out, strerror(errno));
		err = -errno;
	}
	if (err) {
		remove_tree(tmp);
		return 1;
	}
	return 0;
}
