// SPDX-License-Identifier: GPL-2.0
/*
 * mountwatch.c: the root's mount(2) in a child that PID 1 watches.  A
 * root disk that stops answering holds its mount, as it would hold the
 * kernel's own root mount (a hung root is a hung root), but not PID 1:
 * after MOUNT_WATCH_S it says so and opens the rescue shell, and when
 * the mount returns the boot goes on, ending that shell if it is still
 * open, as rescue-continue would.
 *
 * The child tells its errno through a pipe, not its exit status: PID 1
 * reaps every child while a shell runs.  It stays until PID 1 has read
 * the answer (the ack pipe closes), ending any shell noted meanwhile:
 * a shell that PID 1 opened just as the mount returned is ended too.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rescue-init.h"

#define MOUNT_WATCH_S	10
#define CHILD_TURN_MS	100
#define HINT_MOUNT_HANGS "the root's mount has not returned; rescue-ls " \
			 "shows the disks; the boot goes on when the mount " \
			 "does (this shell ends then)"

/* End the console's rescue shell, if one is noted. */
static void end_noted_shell(void)
{
	pid_t pid = shell_noted_pid();

	if (pid)
		kill(pid, SIGKILL);
}

static void __attribute__((noreturn))
mount_child(int answer, int ack, const char *src, const char *dir,
	    const char *type, unsigned long flags, const char *data)
{
	struct pollfd pfd = { .fd = ack, .events = POLLIN };
	int e = mount(src, dir, type, flags, data) ? errno : 0;

	if (write(answer, &e, sizeof(e)) != (ssize_t)sizeof(e))
		_exit(1);
	close(answer);
	for (;;) {
		end_noted_shell();
		if (poll(&pfd, 1, CHILD_TURN_MS) > 0)
			_exit(0);	/* PID 1 took the answer */
	}
}

/* PID 1's side: the child's errno, the shell opened if it takes long. */
static int watch(int answer, const char *src)
{
	struct pollfd pfd[2] = { { .fd = answer, .events = POLLIN },
				 { .fd = shell_signal_fd(), .events = POLLIN } };
	uint64_t start = log_now_us(), now;
	uint64_t until = start + MOUNT_WATCH_S * 1000000ULL;
	bool watched = false;
	int n, e, ms;

	for (;;) {
		now = log_now_us();
		if (!watched && now >= until) {
			watched = true;
			log_warn("%s: its mount has not returned after %d s: "
				 "the disk does not answer", src,
				 MOUNT_WATCH_S);
			shell_run(HINT_MOUNT_HANGS);
			continue;
		}
		ms = watched ? -1 : (int)((until - now + 999) / 1000);
		n = poll(pfd, 2, ms);
		if (n > 0 && (pfd[1].revents & POLLIN))
			shell_serve_signals();
		if (n > 0 && (pfd[0].revents & (POLLIN | POLLHUP))) {
			if (read(answer, &e, sizeof(e)) != (ssize_t)sizeof(e))
				return -EIO;	/* it died without a word */
			if (watched)
				log_info("%s: its mount returned after %llu s",
					 src, (unsigned long long)
					 ((log_now_us() - start) / 1000000));
			return -e;
		}
	}
}

/*
 * mount(2) as rescue-init's root mount does it: 0 or -errno.  Outside
 * PID 1 (rescue-mount), or when no child can be made, a plain mount.
 */
int mountwatch_mount(const char *src, const char *dir, const char *type,
		     unsigned long flags, const char *data)
{
	int answer[2], ack[2], err;
	pid_t pid;

	if (getpid() != 1)
		return mount(src, dir, type, flags, data) ? -errno : 0;
	if (pipe2(answer, O_CLOEXEC))
		return mount(src, dir, type, flags, data) ? -errno : 0;
	if (pipe2(ack, O_CLOEXEC)) {
		close(answer[0]);
		close(answer[1]);
		return mount(src, dir, type, flags, data) ? -errno : 0;
	}
	pid = fork();
	if (pid == 0) {
		close(answer[0]);
		close(ack[1]);
		mount_child(answer[1], ack[0], src, dir, type, flags, data);
	}
	close(answer[1]);
	close(ack[0]);
	err = pid < 0 ? (mount(src, dir, type, flags, data) ? -errno : 0) :
			watch(answer[0], src);
	close(answer[0]);
	close(ack[1]);		/* the child ends */
	if (pid > 0)
		waitpid(pid, NULL, 0);	/* ECHILD if a shell's wait took it */
	return err;
}
