// SPDX-License-Identifier: GPL-2.0
/* shell.c: the rescue shell, and PID 1's wait loop: reap, reboot on signals. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rescue-init.h"
#include "readfile.h"

#define SHELL	"/bin/sh"
#define SHELL_AGAIN_US	1000000	/* the last resort's shell: not in a loop */

static bool disabled;		/* rd.shell=0 */

/* PID 1 takes every signal through sigwaitinfo(), as sinit does. */
void shell_block_signals(void)
{
	sigset_t all;

	sigfillset(&all);
	crash_unblock_set(&all);	/* a blocked fault kills, see crash.c */
	sigprocmask(SIG_BLOCK, &all, NULL);
}

void shell_restore_signals(void)
{
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* The console device itself (ttyS0), so the shell gets job control. */
static void console_device(char *buf, size_t size)
{
	char active[256], *last;
	ssize_t n;
	int fd;

	snprintf(buf, size, "/dev/console");
	fd = open("/sys/class/tty/console/active", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, active, sizeof(active) - 1);
	close(fd);
	while (n > 0 && (active[n - 1] == '\n' || active[n - 1] == ' '))
		n--;
	if (n <= 0)
		return;
	active[n] = '\0';
	last = strrchr(active, ' ');	/* the last one is /dev/console */
	last = last ? last + 1 : active;
	snprintf(buf, size, "/dev/%s", last);
	if (access(buf, R_OK | W_OK))
		snprintf(buf, size, "/dev/console");
}

static void power(int how)
{
	log_info("syncing the disks");
	sync();
	umount2(NEWROOT, MNT_DETACH);
	if (reboot(how))
		log_error("unable to reboot: %s", errtext(errno));
}

/* busybox reboot, poweroff, halt signal PID 1: SIGTERM, SIGUSR2, SIGUSR1. */
static void power_signal(int sig)
{
	int how = RB_AUTOBOOT;
	const char *what = "rebooting";

	if (sig == SIGUSR2) {
		how = RB_POWER_OFF;
		what = "powering off";
	} else if (sig == SIGUSR1) {
		how = RB_HALT_SYSTEM;
		what = "halting";
	}
	log_info("%s (signal %s)", what, strsignal(sig));
	power(how);
}

/* Every signal that PID 1 waits for (the faults go to crash.c). */
static void waited_signals(sigset_t *set)
{
	sigfillset(set);
	crash_unblock_set(set);
}

/* A power request, or a child to reap: 1 when pid (> 0) has exited. */
static int handle_signal(int sig, pid_t pid, int *status)
{
	pid_t w;

	if (sig == SIGCHLD) {
		while ((w = waitpid(-1, status, WNOHANG)) > 0)
			if (w == pid)
				return 1;
	} else if (sig == SIGINT || sig == SIGTERM || sig == SIGUSR1 ||
		   sig == SIGUSR2) {
		power_signal(sig);
	}
	return 0;
}

/* Reap every child; handle power signals; return when pid has exited. */
static int wait_for(pid_t pid)
{
	sigset_t all;
	siginfo_t si;
	int status = 0;

	waited_signals(&all);
	for (;;)
		if (handle_signal(sigwaitinfo(&all, &si), pid, &status))
			return status;
}

/*
 * Let us (0: none) pass, reaping children and honouring power requests;
 * shell_pause(0) or a tiny us serves what is pending and returns.
 */
void shell_pause(uint64_t us)
{
	uint64_t end = log_now_us() + us, now;
	struct timespec ts;
	sigset_t all;
	siginfo_t si;
	int sig, status;

	waited_signals(&all);
	for (;;) {
		now = log_now_us();
		us = now < end ? end - now : 0;
		ts.tv_sec = (time_t)(us / 1000000);
		ts.tv_nsec = (long)(us % 1000000) * 1000;
		sig = sigtimedwait(&all, &si, &ts);
		if (sig > 0)
			handle_signal(sig, 0, &status);
		else if (errno == EAGAIN)
			return;
	}
}

/*
 * PID 1's waited signals as a file descriptor for the loops that poll
 * instead of waiting here (the root wait, the settle, the passphrase
 * prompt): readable while one is pending.  It only wakes the loop:
 * shell_serve_signals() acts on them.  -errno when there is none (said
 * once, or in a process that is not PID 1).
 */
int shell_signal_fd(void)
{
	static int fd = -1, err;
	sigset_t all;

	if (fd >= 0 || err)
		return fd >= 0 ? fd : err;
	if (getpid() != 1)	/* rescue-mount's wait: its signals are its own */
		return -EPERM;
	waited_signals(&all);
	fd = signalfd(-1, &all, SFD_NONBLOCK | SFD_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		log_warn("unable to make a signalfd: %s; reboot and poweroff "
			 "wait for the next turn of a device wait",
			 errtext(errno));
		return err;
	}
	return fd;
}

/* Act on every pending signal (power requests, children), then return. */
void shell_serve_signals(void)
{
	shell_pause(0);
}

static void exec_shell(const char *tty)
{
	char home[32] = "HOME=/root", term[64];
	char *const argv[] = { SHELL, NULL };
	/* No \w in PS1: dash, the /bin/sh of many dracut images, prints it. */
	char *envp[] = {
		"PS1=(rescue) # ", home,
		"PATH=/bin:/sbin:/usr/bin:/usr/sbin", term,
		/* The module tools by name are rescue-init's: layout.c. */
		"ENV=/etc/rescue.shrc", NULL,
	};
	const char *t = getenv("TERM");
	int fd;

	shell_restore_signals();
	setsid();
	fd = open(tty, O_RDWR);
	if (fd < 0)
		fd = open("/dev/console", O_RDWR);
	if (fd >= 0) {
		ioctl(fd, TIOCSCTTY, 1);
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	if (access("/root", X_OK))
		snprintf(home, sizeof(home), "HOME=/");
	snprintf(term, sizeof(term), "TERM=%s", t ? t : "linux");
	if (chdir("/"))	/* "/" is there: nothing to do but go on */
		log_debug("the rescue shell starts where it was: %s",
			  errtext(errno));
	execve(SHELL, argv, envp);
	_exit(127);
}

/* What the shell's opening says under its hint, while it holds. */
static const char *notice;

/*
 * A wing's standing condition (strict read-only), said when the shell
 * opens; NULL when it no longer holds.  The wing tells the shell, so
 * that the shell depends on no wing.
 */
void shell_set_notice(const char *line)
{
	notice = line;
}

/*
 * Where rescue-continue (tools.c) finds the console's shell: a session
 * that is not on the console (SSH) ends it to let the boot go on.
 */
static void shell_note_pid(pid_t pid)
{
	FILE *f;

	mkdir(RESCUE_RUN_DIR, 0755);
	f = fopen(RESCUE_SHELL_PID_FILE, "we");
	if (!f)
		return;
	fprintf(f, "%d\n", (int)pid);
	fclose(f);
}

/* The console shell's PID as shell_note_pid() wrote it, or 0: none. */
pid_t shell_noted_pid(void)
{
	char text[32] = "", *end = text;
	long pid = 0;

	if (!readfile_into(RESCUE_SHELL_PID_FILE, text, sizeof(text), NULL))
		pid = strtol(text, &end, 10);
	return pid > 1 && (!*end || *end == '\n') ? (pid_t)pid : 0;
}

/*
 * Run the rescue shell on the console and wait for it, reaping every
 * other child meanwhile and honouring reboot/poweroff/halt.  0 when it
 * ran and exited 0 (exit); else -errno, or 1 when it exited otherwise
 * (127: it could not be executed).  A NULL hint: a repeat, said only in
 * the debug log.
 */
int shell_run(const char *hint)
{
	int level = hint ? LOG_ERR : LOG_DEBUG;
	char tty[300];
	pid_t pid;
	int err, status;

	if (disabled) {
		log_error("not starting the rescue shell: rd.shell=0");
		return -EPERM;
	}
	err = shell_lock_check("shell");	/* TPM2, tang, --lock-shell */
	if (err)
		return err;
	toolkit_unpack("the rescue shell");
	if (access(SHELL, X_OK)) {
		err = -errno;
		log_msg(level, "unable to start the rescue shell %s: %s", SHELL,
			errtext(errno));
		return err;
	}
	modload_rest("the rescue shell");	/* its keyboard, its screen */
	console_device(tty, sizeof(tty));
	log_msg(level, "starting the rescue shell: %s", hint ? hint : "again");
	if (hint && notice)
		log_msg(level, "%s", notice);
	pid = fork();
	if (pid < 0) {
		err = -errno;
		log_error("unable to start the rescue shell: %s", errtext(errno));
		return err;
	}
	if (pid == 0)
		exec_shell(tty);
	shell_note_pid(pid);
	status = wait_for(pid);
	unlink(RESCUE_SHELL_PID_FILE);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		log_msg(level, "the rescue shell %s failed to start", SHELL);
	log_msg(hint ? LOG_INFO : LOG_DEBUG, "the rescue shell exited");
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

/* rd.shell=0: no shell_run() from here on, whatever asks for it. */
void shell_disable(void)
{
	disabled = true;
}

/*
 * Ctrl-Alt-Del as SIGINT to PID 1, a reboot after a sync (power_signal),
 * instead of the kernel's immediate reset: from the start of PID 1 to
 * the exec of the real init, which sets its own.
 */
void shell_catch_ctrl_alt_del(bool on)
{
	if (reboot(on ? RB_DISABLE_CAD : RB_ENABLE_CAD))
		log_debug("unable to %s ctrl-alt-del: %s", on ? "catch" :
			  "release", errtext(errno));
}

/* A reboot now (three wrong rescue passwords: shelllock.c). */
void shell_reboot(void)
{
	power(RB_AUTOBOOT);
	shell_wait_forever();	/* reboot() failed */
}

/* No shell, and no exit: reboot, power off or halt on request. */
void shell_wait_forever(void)
{
	log_error("no rescue shell%s: ctrl-alt-del or reboot restarts, "
		  "poweroff powers off", disabled ? " (rd.shell=0)" : "");
	for (;;)
		wait_for(-1);
}

/*
 * The boot is given up (rd.retry= ran out): what the kernel does after
 * a panic, as panic= says: reboot after that many seconds, at once when
 * negative, and with 0 (the default) wait for a reboot request.
 */
void shell_give_up(int panic_s)
{
	if (panic_s == 0)
		shell_wait_forever();
	if (panic_s > 0) {
		log_error("rebooting in %d s (panic=%d)", panic_s, panic_s);
		shell_pause((uint64_t)panic_s * 1000000);
	}
	log_info("rebooting (panic=%d)", panic_s);
	power(RB_AUTOBOOT);
	shell_wait_forever();	/* reboot() failed */
}

/*
 * PID 1 run as "sh" (crash.c's last resort): the rescue shell on the
 * console, started again each time it exits, PID 1 reaping and serving
 * power requests meanwhile.  An exit typed there never ends PID 1.
 */
void shell_last_resort(void)
{
	int err;

	/* What the crashed PID 1 started (its shell reads the console too). */
	kill(-1, SIGKILL);
	shell_pause(0);
	for (;;) {
		err = shell_run("PID 1 crashed too often: a shell only; exit "
				"starts it again");
		if (err < 0)
			shell_wait_forever();
		shell_pause(SHELL_AGAIN_US);
	}
}
