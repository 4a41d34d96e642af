// SPDX-License-Identifier: GPL-2.0
/* main.c: rescue-init's boot sequence as PID 1; the only place deciding what is fatal. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rescue-init.h"
#include "net/network.h"
#include "storage/storage.h"
#include "storage/readonly.h"
#include "storage/resume.h"
#include "image/unpack.h"

#define HINT_FAILED	"rescue-ls lists block devices, rescue-mount mounts " \
			"the root, exit retries the boot"
#define HINT_BREAK	"rescue-ls lists block devices, rescue-mount mounts " \
			"the root, exit continues the boot"
#define HINT_PIVOT	"the root is mounted on " NEWROOT " and " SYSROOT ", " \
			"exit switches to it"
#define HINT_UNPACK	"what the image holds is incomplete; exit tries the " \
			"boot anyway"
/* Before an early shell: uevents until none for 0.5 s, at most 5 s. */
#define SETTLE_QUIET_US	500000
#define SETTLE_MAX_US	5000000
#define SYSROOT		"/sysroot"	/* dracut's: chroot /sysroot works */
#define NOSHELL_TURN_S	5	/* rd.shell=0: a root wait between signals */
#define NOSHELL_NOTE_S	60	/* rd.shell=0: a line while failing */
#define RETRY_PAUSE_MAX_S 30	/* between attempts that fail at once */
#define SHELL_QUICK_US	1000000	/* a shell shorter than this ended at once */
#define MIN(a, b)	((a) < (b) ? (a) : (b))
#define INIT_ARGS_MAX	64
#define INIT_ENVS_MAX	128

/*
 * The command line as parsed; the attempts change only its root wait
 * (rootwait_s, which rootmount_boot() reads): with rd.shell=0,
 * retry_without_shell() cuts it to one turn.
 */
static struct cmdline cmd;
/*
 * The rescue shell stop still to come: cmd.brk (rd.break=, the rescue
 * word), or before the mount after a crash; BREAK_NONE once made.
 */
static enum rd_break stop;
static char cmdbuf[CMDLINE_SIZE];
static struct blklist devs;
static int uevent_fd = -1;
static uint64_t t_start;

/*
 * rescue-init under another name, the last part of argv[0], as busybox's
 * applets: each name's main function.  Any other name (rescue-init,
 * init, /init) is the boot as PID 1, or tools_main() outside it.  As
 * PID 1 the names do not count, but for "sh": crash.c's last resort.
 */
static const struct applet {
	const char *name;
	int (*main)(int argc, char *argv[]);
} applets[] = {
	{ RESCUE_TOOL_LS,	rescue_ls_main },	/* tools.c */
	{ RESCUE_TOOL_MOUNT,	rescue_mount_main },
	{ RESCUE_TOOL_CONTINUE,	rescue_continue_main },
	{ RESCUE_TOOL_UNLOCK,	rescue_unlock_main },
	{ RESCUE_TOOL_RW,	rescue_rw_main },	/* storage/rescuerw.c */
	/* /bin/sh until the toolkit's busybox replaces the link */
	{ RESCUE_SH,		toolkit_sh_main },	/* image/toolkit.c */
	/* the kernel's request_module(), and the shell's */
	{ "modprobe",		modprobe_main },	/* modules/modprobe.c */
	{ "insmod",		modprobe_main },
	{ "rmmod",		modprobe_main },
	/* udhcpc's lease script */
	{ NET_EVENT_NAME,	net_event_main },	/* net/network.c */
};

/* The name rescue-init runs under: argv[0] without its directory. */
static const char *applet_name(const char *argv0)
{
	const char *base = strrchr(argv0, '/');

	return base ? base + 1 : argv0;
}

/* Why an init that rootmount_find_init() found still does not start. */
static const char *exec_hint(int err)
{
	switch (err) {
	case -ENOENT:
		return " (its #! interpreter or ELF loader is missing)";
	case -ENOEXEC:
		return " (not a format this kernel runs: another architecture?)";
	case -EACCES:
		return " (a noexec mount, or an interpreter not executable)";
	default:
		return "";
	}
}

/*
 * dracut's recipe at rd.break: "mount -o remount,rw /sysroot; chroot
 * /sysroot".  busybox mount looks /sysroot up in /proc/mounts, so a link
 * would not do: bind the root there for the shell.
 */
static bool bind_sysroot(void)
{
	struct stat st;

	if (lstat(SYSROOT, &st) == 0 && S_ISLNK(st.st_mode))
		unlink(SYSROOT);
	if (mkdir(SYSROOT, 0755) && errno != EEXIST) {
		log_warn("unable to make %s: %s", SYSROOT, errtext(errno));
		return false;
	}
	if (mount(NEWROOT, SYSROOT, NULL, MS_BIND, NULL)) {
		log_warn("unable to bind %s on %s: %s", NEWROOT, SYSROOT,
			 errtext(errno));
		return false;
	}
	return true;
}

/*
 * After the shell: a remount,rw of /sysroot made the filesystem
 * writable but left NEWROOT's own mount read-only; follow it (keeping
 * NEWROOT's other mount flags), then unmount /sysroot.
 */
static void unbind_sysroot(void)
{
	static const struct { unsigned long st, ms; } keep[] = {
		{ ST_NOSUID, MS_NOSUID }, { ST_NODEV, MS_NODEV },
		{ ST_NOEXEC, MS_NOEXEC }, { ST_NOATIME, MS_NOATIME },
		{ ST_NODIRATIME, MS_NODIRATIME }, { ST_RELATIME, MS_RELATIME },
	};
	struct statvfs sys, nr;
	unsigned long flags = MS_REMOUNT | MS_BIND;
	size_t i;

	if (statvfs(SYSROOT, &sys) == 0 && statvfs(NEWROOT, &nr) == 0 &&
	    !(sys.f_flag & ST_RDONLY) && (nr.f_flag & ST_RDONLY)) {
		for (i = 0; i < ARRAY_SIZE(keep); i++)
			if (nr.f_flag & keep[i].st)
				flags |= keep[i].ms;
		if (mount(NULL, NEWROOT, NULL, flags, NULL))
			log_warn("unable to make %s read-write as %s is: %s",
				 NEWROOT, SYSROOT, errtext(errno));
	}
	if (umount2(SYSROOT, MNT_DETACH))
		log_warn("unable to unmount %s: %s", SYSROOT, errtext(errno));
}

/*
 * One attempt: the root (already on /newroot after a rescue-mount, or
 * found and mounted now), its init, then the switch.  Returns only on
 * failure, with the reason in why.
 */
static void boot_root(int argc, char *argv[], char *envp[], char *why,
		      size_t size)
{
	char init[4096], tried[512], what[4096 + 600];
	char *init_argv[INIT_ARGS_MAX], *init_envp[INIT_ENVS_MAX];
	struct mountent m;
	bool bound, strict;
	int err;

	if (mounts_find(NEWROOT, &m) == 0) {
		log_info("using the root already mounted on %s: %s (%s, %s)",
			 NEWROOT, m.source, m.fstype, m.ro ? "ro" : "rw");
	} else if (rootmount_boot(&cmd, &devs, uevent_fd, NEWROOT, &m, why,
				  size)) {
		return;
	}
	err = rootmount_find_init(NEWROOT, cmd.init, init, sizeof(init),
				  tried, sizeof(tried));
	if (err && cmd.init) {
		snprintf(why, size, "unable to find init=%.200s in the root %s: "
			 "%s", cmd.init, m.source, errtext(-err));
		return;
	}
	if (err) {
		snprintf(why, size, "unable to find an init in the root %s: "
			 "tried %s", m.source, tried);
		return;
	}
	if (stop == BREAK_PRE_PIVOT) {
		stop = BREAK_NONE;
		bound = bind_sysroot();
		shell_run(HINT_PIVOT);
		if (bound)
			unbind_sysroot();
		boot_root(argc, argv, envp, why, size);	/* it may have changed */
		return;
	}
	/* init=/bin/sh is a shell: asked for when it is locked */
	shell_lock_check_init(NEWROOT, cmd.init, init, sizeof(init));
	cmdline_init_argv(&cmd, init, argc, argv, init_argv, INIT_ARGS_MAX);
	cmdline_init_envp(envp, init_envp, INIT_ENVS_MAX);
	snprintf(what, sizeof(what), "%s on %s (%s, %s)", init, m.source,
		 m.fstype, m.ro ? "ro" : "rw");
	if (switchroot_check(NEWROOT, why, size))
		return;
	strict = readonly_strict();
	readonly_before_switch();
	dmnodes_hand_over();	/* /dev/mapper links, as the root's udev makes them */
	net_end();
	probe_forget();		/* a disk that never answered: not the root's */
	mounts_leave_run();
	err = switchroot_run(NEWROOT, init, init_argv, init_envp, what,
			     t_start);
	snprintf(why, size, "unable to start %.1500s: %s%s", what,
		 errtext(-err), exec_hint(err));
	/*
	 * Back in the initramfs: the rescue as it was before the switch,
	 * strict mode and, for a machine that is reached only over the
	 * network, ip= and SSH.
	 */
	if (strict)
		readonly_init(&cmd);
	net_init(&cmd);
}

/*
 * /init again after crash.c caught a fault: what the crashed PID 1 had
 * started (its shell) goes, and the boot stops at the rescue shell.
 */
static void restart_after_crash(unsigned crashes)
{
	log_error("restarted after %u crash%s of PID 1: %s", crashes,
		  crashes > 1 ? "es" : "", cmd.shell ?
		  "the rescue shell comes first" :
		  "booting again, without a shell (rd.shell=0)");
	kill(-1, SIGKILL);	/* every process but PID 1 */
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	if (cmd.shell)
		stop = BREAK_PRE_MOUNT;
}

/*
 * rd.shell=0 after a failed attempt: report the first failure, then keep
 * trying, the root wait in short turns (so that reboot requests are
 * served between them), failures that take no time with a growing pause,
 * until rd.retry= runs out; then panic= says what comes.
 */
static void retry_without_shell(const char *why, uint64_t attempt_start)
{
	static uint64_t first, next_note;
	static unsigned pause_s;
	uint64_t now = log_now_us(), limit;
	char retry[64] = "";

	if (!first) {
		first = now;
		modload_rest("a second attempt");	/* a driver we put off */
		next_note = now + NOSHELL_NOTE_S * 1000000ULL;
		report_failure(&devs, why);
		if (cmd.retry_s >= 0)
			snprintf(retry, sizeof(retry), " for %d s (rd.retry=%d)",
				 cmd.retry_s, cmd.retry_s);
		log_error("no rescue shell (rd.shell=0): trying again%s as "
			  "devices come; ctrl-alt-del or reboot restarts, "
			  "poweroff powers off", retry);
	} else if (now >= next_note) {
		log_error("still failing after %llu s (rd.shell=0): %s",
			  (unsigned long long)((now - first) / 1000000), why);
		next_note += NOSHELL_NOTE_S * 1000000ULL;
	}
	limit = cmd.retry_s >= 0 ? first + cmd.retry_s * 1000000ULL :
		UINT64_MAX;
	if (now >= limit) {
		log_error("giving up the boot after %d s (rd.retry=%d)",
			  cmd.retry_s, cmd.retry_s);
		shell_give_up(cmd.panic_s);
	}
	if (now - attempt_start < 1000000)	/* failed at once: pause */
		pause_s = pause_s ? MIN(pause_s * 2, RETRY_PAUSE_MAX_S) : 1;
	else
		pause_s = 0;
	shell_pause(MIN(pause_s * 1000000ULL, limit - now));
	now = log_now_us();
	cmd.rootwait_s = (int)MIN((uint64_t)NOSHELL_TURN_S,
				  now < limit ? (limit - now + 999999) / 1000000 :
				  0);
}

static void setup_modules(void)
{
	int err = modload_init(&cmd);

	if (err == 0)
		modload_coldplug();
	else if (err != -ENOENT)
		log_warn("unable to read the module indexes: %s; loading no "
			 "modules", errtext(-err));
}

/*
 * After a failed attempt: the report and the rescue shell.  A shell that
 * cannot start or ends at once (EOF on the console) would make a loop of
 * probe, table and fork: then the attempts pause, 1 s growing to 30 s,
 * and what repeats is said once, until a shell session lasts.
 */
static void retry_with_shell(const char *why)
{
	static char last[2048];
	static unsigned pause_s;
	uint64_t t;
	int err;

	if (!pause_s || strcmp(why, last))
		report_failure(&devs, why);
	snprintf(last, sizeof(last), "%s", why);
	t = log_now_us();
	err = shell_run(pause_s ? NULL : HINT_FAILED);
	if (log_now_us() - t >= SHELL_QUICK_US) {
		pause_s = 0;
		return;
	}
	if (!pause_s)
		log_error("the rescue shell %s at once; trying the boot and "
			  "the shell again after 1 s, then up to every %d s, "
			  "saying so only once", err < 0 ? "did not start" :
			  "ended", RETRY_PAUSE_MAX_S);
	pause_s = pause_s ? MIN(pause_s * 2, RETRY_PAUSE_MAX_S) : 1;
	log_debug("%s; again in %u s", why, pause_s);
	shell_pause(pause_s * 1000000ULL);
}

/* rescue-init as PID 1 (/init, init=, rdinit=): the boot, never returning. */
static __attribute__((noreturn)) void pid1_main(int argc, char *argv[],
						char *envp[])
{
	char why[2048];
	uint64_t attempt;
	bool devtmpfs_ours, kept;
	unsigned crashes;
	size_t i;
	int err, console;

	t_start = log_now_us();
	crashes = crash_install(argv, envp);
	shell_block_signals();
	shell_catch_ctrl_alt_del(true);
	umask(022);
	if (argc > 0 && !strcmp(applet_name(argv[0]), RESCUE_SH)) {
		/* crash.c's last resort: /dev and the console are kept */
		log_open();
		shell_last_resort();
	}

	/* 1. /proc /sys /run /dev, the console, the log: once per boot. */
	err = 0;
	devtmpfs_ours = false;
	kept = crashes && access("/proc/self", F_OK) == 0;
	if (!kept)
		err = mounts_early(&devtmpfs_ours, why, sizeof(why));
	console = mounts_console();
	log_open();
	if (err)
		log_error("%s", why);
	if (kept)
		log_info("kept /proc /sys /run /dev of the PID 1 that crashed");
	else
		log_info("mounted /proc /sys /run%s in %llu us",
			 devtmpfs_ours ? " and devtmpfs on /dev" : "",
			 (unsigned long long)(log_now_us() - t_start));
	if (console < 0)
		log_error("unable to open /dev/console: %s", errtext(-console));
	else if (console > 0)
		log_info("opened /dev/console for stdin, stdout and stderr");

	/* 2. The command line. */
	err = cmdline_read_all_why(CMDLINE_CONF_DIR, "/proc/cmdline", cmdbuf,
				   sizeof(cmdbuf), why, sizeof(why));
	if (err)
		log_error("unable to read /proc/cmdline: %s", errtext(-err));
	else if (why[0])
		log_warn("%s", why);
	cmdline_parse(cmdbuf, &cmd);
	stop = cmd.brk;
	log_set_debug(cmd.debug);
	log_set_quiet(cmd.quiet);
	for (i = 0; i < cmd.nproblems; i++)
		log_warn("%s", cmd.problems[i]);
	crash_set_policy(cmd.shell, cmd.panic_s);
	if (!cmd.shell)
		shell_disable();
	keymap_load(&cmd);	/* before any prompt or shell */

	if (crashes) {
		restart_after_crash(crashes);
		/* The last restart's fallback is busybox sh: have it there. */
		toolkit_unpack("the shell after a crash");
	}

	/* The image itself: a partial one fails in odd ways further on. */
	if (!crashes && unpack_check("/", why, sizeof(why))) {
		log_error("%s", why);
		if (shell_run(HINT_UNPACK) < 0) {
			log_error("no rescue shell to look at the incomplete "
				  "image: giving up the boot");
			shell_give_up(cmd.panic_s);
		}
	}

	/* 3. Uevents first, so that no device is missed; then modules. */
	uevent_fd = uevent_open();
	if (uevent_fd < 0)
		log_warn("unable to open the uevent socket: %s; not waiting "
			 "for devices", errtext(-uevent_fd));
	probe_set_timeout(&cmd);
	readonly_init(&cmd);	/* before the first probe */
	setup_modules();
	storage_init(&cmd);
	probe_init_filesystems();
	net_init(&cmd);		/* after coldplug loaded the NIC drivers */
	resume_boot(&cmd, &devs, uevent_fd);	/* before any mount: dracut's order */

	if (stop == BREAK_PRE_MOUNT) {
		stop = BREAK_NONE;
		rootfind_settle(&devs, uevent_fd, SETTLE_QUIET_US,
				SETTLE_MAX_US);
		shell_run(HINT_BREAK);
		readonly_end();	/* the rescue word's ends with its shell */
	}
	if (cmd.rootdelay_s > 0) {
		log_info("rootdelay: waiting %d s", cmd.rootdelay_s);
		rootfind_events(&devs, uevent_fd,
				log_now_us() + cmd.rootdelay_s * 1000000ULL);
	}

	/* 4. Find, mount, switch; on failure report, shell, retry. */
	for (;;) {
		attempt = log_now_us();
		boot_root(argc, argv, envp, why, sizeof(why));
		if (!cmd.shell) {
			retry_without_shell(why, attempt);
			continue;
		}
		retry_with_shell(why);
	}
}

int main(int argc, char *argv[], char *envp[])
{
	size_t i;

	if (getpid() == 1)
		pid1_main(argc, argv, envp);
	for (i = 0; argc > 0 && i < ARRAY_SIZE(applets); i++)
		if (!strcmp(applet_name(argv[0]), applets[i].name))
			return applets[i].main(argc, argv);
	return tools_main(argc, argv);
}
