// SPDX-License-Identifier: GPL-2.0
/*
 * tools.c: the rescue shell's commands, rescue-init under their names
 * (main.c's table): rescue-ls, rescue-mount, rescue-continue and
 * rescue-unlock, and rescue-init by its own name outside PID 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "rescue-init.h"
#include "storage/storage.h"
#include "readfile.h"

static const char usage[] =
	"usage: rescue-ls            list the block devices\n"
	"       rescue-mount [DIR]   mount the root as the boot would "
	"(default " NEWROOT ")\n"
	"       rescue-mount --rw DEV [DIR]\n"
	"                            make DEV writable (strict read-only) and "
	"mount it\n"
	"                            read-write on DIR (default " NEWROOT "), "
	"or remount it so\n"
	"       rescue-rw [--ro] DEV make DEV writable (strict read-only), "
	"mounting nothing;\n"
	"                            --ro: read-only again\n"
	"       rescue-continue      end the console's rescue shell: the "
	"boot goes on\n"
	"                            (from an SSH session)\n"
	"       rescue-unlock [--stdin]\n"
	"                            give the waiting LUKS prompt its "
	"passphrase, typed on\n"
	"                            this terminal (ssh -t), or a line of "
	"stdin (--stdin)\n"
	"       rescue-init --ls | --mount [DIR] | --continue | --help\n"
	"rescue-init itself is the /init (PID 1) of an initramfs: see "
	"rescue-init(8).\n";

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
			fstype, dir, errtext(errno));
	else
		fprintf(stderr, "%s: mounted %s on %s, which was not mounted\n",
			tool, fstype, dir);
}

static void mount_proc_and_sys(const char *tool)
{
	mount_if_missing(tool, "/proc/self", "/proc", "proc");
	mount_if_missing(tool, "/sys/class", "/sys", "sysfs");
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
			"%s\n", errtext(-err));
		return 1;
	}
	cmdline_parse(buf, &cmd);
	log_set_debug(cmd.debug);
	probe_set_timeout(&cmd);
	for (i = 0; i < cmd.nproblems; i++)
		log_warn("%s", cmd.problems[i]);
	ufd = uevent_open();
	err = modload_init(&cmd);
	if (err && err != -ENOENT)
		log_warn("unable to read the module indexes: %s",
			 errtext(-err));
	/*
	 * The storage layers as the boot starts them (a root on LUKS, LVM,
	 * md); strict read-only as PID 1 has it now (readonly_strict(): the
	 * rescue word's until its shell ends).
	 */
	storage_init(&cmd);
	probe_init_filesystems();
	err = rootmount_boot(&cmd, &devs, ufd, dir, &m, why, sizeof(why));
	if (err) {
		fprintf(stderr, "rescue-mount: %s\n", why);
		report_devices(&devs, print_line, stderr);
		return 1;
	}
	printf("rescue-mount: mounted %s (%s, %s) on %s\n", m.source, m.fstype,
	       m.ro ? "ro" : "rw", dir);
	return 0;
}

/*
 * Where DEV is mounted, from /proc/mounts: 1 with the mount point and
 * its options, 0 when it is not mounted.
 */
static int mounted_at(const char *node, char *target, size_t tlen,
		      char *opts, size_t olen)
{
	char buf[16384], src[256], dir[256], type[32], o[1024], *line, *nl;

	if (mounts_read_proc("/proc/mounts", buf, sizeof(buf)))
		return 0;
	for (line = buf; *line; line = nl) {
		nl = line + strcspn(line, "\n");
		if (*nl)
			*nl++ = '\0';
		if (sscanf(line, "%255s %255s %31s %1023s", src, dir, type,
			   o) == 4 && !strcmp(src, node)) {
			snprintf(target, tlen, "%s", dir);
			snprintf(opts, olen, ",%s,", o);
			return 1;
		}
	}
	return 0;
}

/* Lift read-only on /dev/NAME, saying what changed; -errno on failure. */
static int lift(const char *name, const char *what)
{
	int r = readonly_set(name, false);

	if (r < 0)
		fprintf(stderr, "rescue-mount: unable to make /dev/%s writable: "
			"%s\n", name, errtext(-r));
	else if (r > 0)
		printf("rescue-mount: /dev/%s%s was read-only, now writable\n",
		       name, what);
	return r < 0 ? r : 0;
}

/*
 * rescue-mount --rw DEV [DIR]: with rescue-rw, the one way to lift
 * strict read-only, for one device.  A partition is read-only while its
 * disk is (the kernel checks both flags), so the disk is made writable
 * too; its other partitions keep their own flag and stay read-only.
 */
static int rescue_mount_rw(const char *dev, const char *dir)
{
	static struct cmdline cmd;	/* rw, no strict: a plain mount */
	struct blklist l = { 0 };
	char target[256], opts[1100], fstype[1024], disk[120];
	const char *name = strncmp(dev, "/dev/", 5) ? dev : dev + 5;
	const char *const noreplay[] = { ",noload,", ",norecovery,",
					 ",rescue=nologreplay," };
	const struct blkdev *d;
	ssize_t i;
	size_t k;
	bool ro = true;
	int err;

	blk_enumerate(&l, "/sys/class/block");
	i = blk_find(&l, name);
	if (i < 0) {
		fprintf(stderr, "rescue-mount: unable to use %s: no such block "
			"device in /sys/class/block\n", dev);
		return 1;
	}
	d = &l.dev[i];
	if (mounted_at(d->node, target, sizeof(target), opts, sizeof(opts))) {
		for (k = 0; k < ARRAY_SIZE(noreplay); k++)
			if (strstr(opts, noreplay[k])) {
				fprintf(stderr, "rescue-mount: unable to remount "
					"%s on %s read-write: it was mounted "
					"without replaying its journal (%.*s); "
					"umount %s, then rescue-mount --rw %s "
					"DIR replays it\n", d->node, target,
					(int)strlen(noreplay[k]) - 2,
					noreplay[k] + 1, target, d->node);
				return 1;
			}
	}
	if (lift(d->name, ""))
		return 1;
	if (d->partno) {
		snprintf(disk, sizeof(disk), " (the disk of %s)", d->node);
		if (lift(d->disk, disk))
			return 1;
	}
	if (mounted_at(d->node, target, sizeof(target), opts, sizeof(opts))) {
		if (mount(NULL, target, NULL, MS_REMOUNT, NULL)) {
			fprintf(stderr, "rescue-mount: unable to remount %s on "
				"%s read-write: %s\n", d->node, target,
				errtext(errno));
			return 1;
		}
		printf("rescue-mount: remounted %s on %s read-write\n",
		       d->node, target);
		return 0;
	}
	probe_init_filesystems();
	probe_device(&l, (size_t)i, PROBE_SB);
	cmd.rw = true;
	err = rootmount_mount(&l.dev[i], &cmd, dir, fstype, sizeof(fstype),
			      &ro);
	if (err) {
		fprintf(stderr, "rescue-mount: unable to mount %s on %s as %s: "
			"%s\n", d->node, dir, fstype[0] ? fstype : "any "
			"filesystem", errtext(-err));
		return 1;
	}
	printf("rescue-mount: mounted %s (%s, %s) on %s\n", d->node, fstype,
	       ro ? "ro" : "rw", dir);
	return 0;
}

/*
 * The console's shell holds up the boot until it exits; a session
 * elsewhere (SSH) cannot type exit there, so it ends that shell.
 */
static int rescue_continue(void)
{
	pid_t pid = shell_noted_pid();

	if (!pid) {
		fprintf(stderr, "rescue-continue: no rescue shell holds up the "
			"boot (%s)\n", RESCUE_SHELL_PID_FILE);
		return 1;
	}
	if (kill(pid, SIGKILL)) {
		fprintf(stderr, "rescue-continue: unable to end the rescue "
			"shell (PID %d): %s\n", (int)pid, errtext(errno));
		return 1;
	}
	printf("rescue-continue: ended the console's rescue shell (PID %d): "
	       "the boot goes on\n", (int)pid);
	return 0;
}

/* The passphrase from stdin: a line, echo off on a terminal. */
static ssize_t read_passphrase(char *buf, size_t size)
{
	struct termios old, quiet;
	bool tty = tcgetattr(0, &old) == 0;
	ssize_t n;

	if (tty) {
		quiet = old;
		quiet.c_lflag &= ~(tcflag_t)(ECHO | ECHOE | ECHOK | ECHONL);
		tcsetattr(0, TCSAFLUSH, &quiet);	/* typeahead was shown */
		fputs("Passphrase: ", stdout);
		fflush(stdout);
	}
	n = read(0, buf, size - 1);
	if (tty) {
		tcsetattr(0, TCSANOW, &old);
		putchar('\n');
	}
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		n--;
	return n;
}

/*
 * The LUKS prompt of PID 1 from another terminal (an SSH session): the
 * passphrase goes through RESCUE_LUKS_PASS_FIFO, as if typed on the console,
 * and RESCUE_LUKS_STATUS says how it went.
 */
static int rescue_unlock(bool from_stdin)
{
	char what[300], pass[512 + 1], before[300] = "", after[300] = "";
	ssize_t n;
	int fd, i;

	/*
	 * ssh HOST rescue-unlock gets no terminal: the passphrase would be
	 * echoed by the one it is typed on.  A pipe is said with --stdin.
	 */
	if (!from_stdin && !isatty(0)) {
		fprintf(stderr, "rescue-unlock: stdin is not a terminal, so "
			"the passphrase would be shown as it is typed: use "
			"ssh -t, or rescue-unlock --stdin to read it from a "
			"pipe\n");
		return 2;
	}
	if (readfile_into(RESCUE_LUKS_WAITING, what, sizeof(what), NULL)) {
		fprintf(stderr, "rescue-unlock: no LUKS container waits for a "
			"passphrase\n");
		return 1;
	}
	printf("rescue-unlock: %s", what);
	fflush(stdout);
	readfile_into(RESCUE_LUKS_STATUS, before, sizeof(before), NULL);
	n = read_passphrase(pass, sizeof(pass) - 1);
	if (n <= 0) {
		fprintf(stderr, "rescue-unlock: no passphrase read\n");
		return 1;
	}
	if ((size_t)n >= sizeof(pass) - 2) {
		if (isatty(0))
			tcflush(0, TCIFLUSH);
		explicit_bzero(pass, sizeof(pass));
		fprintf(stderr, "rescue-unlock: passphrase longer than %zu "
			"characters: refused\n", sizeof(pass) - 3);
		return 1;
	}
	pass[n++] = '\n';
	fd = open(RESCUE_LUKS_PASS_FIFO, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || write(fd, pass, (size_t)n) != n) {
		fprintf(stderr, "rescue-unlock: unable to give the passphrase "
			"through %s: %s\n", RESCUE_LUKS_PASS_FIFO, errtext(errno));
		explicit_bzero(pass, sizeof(pass));
		if (fd >= 0)
			close(fd);
		return 1;
	}
	explicit_bzero(pass, sizeof(pass));
	close(fd);
	/* cryptsetup's key derivation takes a while: up to 60 s. */
	for (i = 0; i < 600; i++) {
		if (!readfile_into(RESCUE_LUKS_STATUS, after, sizeof(after), NULL) &&
		    strcmp(after, before))
			break;
		usleep(100000);
	}
	if (!strcmp(after, before)) {
		fprintf(stderr, "rescue-unlock: no answer from the prompt in "
			"60 s\n");
		return 1;
	}
	printf("rescue-unlock: %s", after);
	return strstr(after, " opened") ? 0 : 1;
}

int rescue_ls_main(int argc, char *argv[])
{
	static struct cmdline cmd;
	static char buf[CMDLINE_SIZE];
	struct blklist devs = { 0 };

	(void)argc;
	(void)argv;
	log_to_fd(2, "rescue-ls: ", false);
	mount_proc_and_sys(RESCUE_TOOL_LS);
	/* rd.probe.timeout=: a disk that hangs holds rescue-ls that long */
	if (cmdline_read_all(CMDLINE_CONF_DIR, "/proc/cmdline", buf,
			     sizeof(buf)) == 0) {
		cmdline_parse(buf, &cmd);
		probe_set_timeout(&cmd);
	}
	report_devices(&devs, print_line, stdout);
	return 0;
}

int rescue_mount_main(int argc, char *argv[])
{
	log_to_fd(2, "rescue-mount: ", false);
	if (argc > 1 && !strcmp(argv[1], "--rw")) {
		if (argc < 3 || argc > 4) {
			fputs(usage, stderr);
			return 2;
		}
		mount_proc_and_sys(RESCUE_TOOL_MOUNT);
		return rescue_mount_rw(argv[2], argc > 3 ? argv[3] : NEWROOT);
	}
	if (argc > 2) {
		fputs(usage, stderr);
		return 2;
	}
	mount_proc_and_sys(RESCUE_TOOL_MOUNT);
	return rescue_mount(argc > 1 ? argv[1] : NEWROOT);
}

int rescue_continue_main(int argc, char *argv[])
{
	(void)argc;
	(void)argv;
	return rescue_continue();
}

int rescue_unlock_main(int argc, char *argv[])
{
	if (argc > 2 || (argc > 1 && strcmp(argv[1], "--stdin"))) {
		fputs(usage, stderr);
		return 2;
	}
	return rescue_unlock(argc > 1);
}

/*
 * rescue-init by its own name, not as PID 1: a tool by option (its
 * arguments after the option), the usage, or a polite refusal.
 */
int tools_main(int argc, char *argv[])
{
	const char *opt = argc > 1 ? argv[1] : "";

	if (!strcmp(opt, "--ls"))
		return rescue_ls_main(argc - 1, argv + 1);
	if (!strcmp(opt, "--mount"))
		return rescue_mount_main(argc - 1, argv + 1);
	if (!strcmp(opt, "--continue"))
		return rescue_continue_main(argc - 1, argv + 1);
	if (!strcmp(opt, "--help") || !strcmp(opt, "-h")) {
		fputs(usage, stdout);
		return 0;
	}
	fprintf(stderr, "rescue-init: not running as PID 1 (PID %d): it "
		"switches root only as the /init of an initramfs\n%s",
		(int)getpid(), usage);
	return 2;
}
