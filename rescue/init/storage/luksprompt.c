// SPDX-License-Identifier: GPL-2.0
/*
 * luksprompt.c: the LUKS passphrase prompt's terminal (see
 * luksprompt.h): echo off from the moment a container is claimed, what
 * was typed ahead discarded, a line from the terminal or from
 * rescue-unlock's FIFO, whichever comes first, within a timeout, while
 * PID 1 still serves reboot and poweroff.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "luksprompt.h"
#include "storage.h"

static int terminal_open(void)
{
	return getpid() != 1 && isatty(0) ? fcntl(0, F_DUPFD_CLOEXEC, 3) :
		open("/dev/console", O_RDWR | O_NOCTTY | O_CLOEXEC);
}

/*
 * From the moment a container is claimed until it is opened or its
 * prompt ends, the terminal does not echo: people type the passphrase
 * ahead when they know the prompt comes, and loading dm_crypt or
 * reading a key device takes a while.
 */
static struct lukscon before_prompt = { .fd = -1 };

void luksprompt_echo_off(void)
{
	struct termios quiet;

	if (before_prompt.fd >= 0)
		return;
	before_prompt.fd = terminal_open();
	if (before_prompt.fd < 0)
		return;
	before_prompt.tty = tcgetattr(before_prompt.fd,
				      &before_prompt.saved) == 0;
	if (!before_prompt.tty)
		return;
	quiet = before_prompt.saved;
	quiet.c_lflag &= ~(tcflag_t)(ECHO | ECHOE | ECHOK | ECHONL);
	tcsetattr(before_prompt.fd, TCSANOW, &quiet);
}

void luksprompt_echo_on(void)
{
	if (before_prompt.fd < 0)
		return;
	if (before_prompt.tty)
		tcsetattr(before_prompt.fd, TCSANOW, &before_prompt.saved);
	close(before_prompt.fd);
	before_prompt.fd = -1;
}

/*
 * Echo off, and what was typed before the prompt discarded, as
 * getpass() does (TCSAFLUSH): a line typed ahead is no answer to a
 * prompt not yet shown.  One line says so.
 */
int luksprompt_open(struct lukscon *c)
{
	struct termios quiet;
	int typed = 0;

	c->fd = terminal_open();
	if (c->fd < 0)
		return -errno;
	c->tty = tcgetattr(c->fd, &c->saved) == 0;
	if (!c->tty)
		return 0;
	quiet = c->saved;
	quiet.c_lflag &= ~(tcflag_t)(ECHO | ECHOE | ECHOK | ECHONL | ICANON);
	/* a moment not canonical: FIONREAD counts an unfinished line too */
	tcsetattr(c->fd, TCSANOW, &quiet);
	if (ioctl(c->fd, FIONREAD, &typed))
		typed = 0;
	quiet.c_lflag |= ICANON;
	tcsetattr(c->fd, TCSAFLUSH, &quiet);
	if (typed > 0)
		dprintf(c->fd, "\n(%d characters typed before the passphrase "
			"prompt were discarded: type it after the prompt)\n",
			typed);
	return 0;
}

void luksprompt_close(struct lukscon *c)
{
	if (c->tty)
		tcsetattr(c->fd, TCSANOW, &c->saved);
	close(c->fd);
}

/*
 * What ends a wait at the prompt other than a line: in PID 1, the
 * signals it blocks (reboot, poweroff, a child's end), which
 * shell_pause() serves; in rescue-mount, ctrl-c and the like, which
 * must not leave its terminal without echo.
 */
static int prompt_signals(sigset_t *old)
{
	sigset_t set;

	sigprocmask(SIG_BLOCK, NULL, old);
	if (getpid() == 1) {
		set = *old;
	} else {
		sigemptyset(&set);
		sigaddset(&set, SIGINT);
		sigaddset(&set, SIGTERM);
		sigaddset(&set, SIGHUP);
		sigaddset(&set, SIGQUIT);
		if (sigprocmask(SIG_BLOCK, &set, old))
			return -1;
	}
	return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

/* A signal came at the prompt: its number when it ends the prompt. */
static int prompt_signal(int sfd)
{
	struct signalfd_siginfo si;

	if (getpid() == 1) {
		shell_pause(1);	/* reboot syncs and reboots; reaps */
		return 0;
	}
	return read(sfd, &si, sizeof(si)) == sizeof(si) ? (int)si.ssi_signo :
		0;
}

/*
 * The FIFO that rescue-unlock writes to, made anew if something else
 * has its name: a file written before the FIFO existed is nobody's
 * passphrase.  O_RDWR: it never reads as ended when a writer leaves.
 */
static int fifo_open(void)
{
	struct stat st;

	mkdir(RESCUE_RUN_DIR, 0755);
	if (lstat(RESCUE_LUKS_PASS_FIFO, &st) == 0 && !S_ISFIFO(st.st_mode)) {
		log_warn("luks: %s was not a FIFO: removed", RESCUE_LUKS_PASS_FIFO);
		unlink(RESCUE_LUKS_PASS_FIFO);
	}
	if (mkfifo(RESCUE_LUKS_PASS_FIFO, 0600) && errno != EEXIST) {
		log_warn("luks: unable to make %s: %s; the passphrase can "
			 "only be typed on the console", RESCUE_LUKS_PASS_FIFO,
			 errtext(errno));
		return -1;
	}
	return open(RESCUE_LUKS_PASS_FIFO, O_RDWR | O_NONBLOCK | O_NOFOLLOW |
		    O_CLOEXEC);
}

/*
 * One line from fd (the FIFO's is written whole by one write): its
 * length, the end of line dropped; -ENODATA at the end of input;
 * -EMSGSIZE for one longer than cryptsetup takes, the rest of it
 * discarded, so that neither the next try nor a shell reads it.
 */
static int read_line(int fd, bool tty, char *buf, size_t size)
{
	char rest[256];
	ssize_t n;

	do
		n = read(fd, buf, size - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n == 0)
		return -ENODATA;	/* end of input, not an empty line */
	if ((size_t)n == size - 1 && buf[n - 1] != '\n') {
		explicit_bzero(buf, size);
		if (tty)
			tcflush(fd, TCIFLUSH);
		else if (fcntl(fd, F_GETFL) & O_NONBLOCK)
			while (read(fd, rest, sizeof(rest)) > 0)
				;
		explicit_bzero(rest, sizeof(rest));
		return -EMSGSIZE;
	}
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		n--;
	buf[n] = '\0';
	return (int)n;
}

static int (*retry_fn)(void *arg);
static void *retry_arg;
static unsigned retry_ms;

void luksprompt_retry(int (*fn)(void *arg), void *arg, unsigned retry_s)
{
	retry_fn = fn;
	retry_arg = arg;
	retry_ms = retry_s * 1000;
}

/* The poll's wait: until the deadline, or the next retry if sooner. */
static int wait_ms(int left)
{
	if (!retry_fn || (left >= 0 && left < (int)retry_ms))
		return left;
	return (int)retry_ms;
}

/* Milliseconds until deadline (log_now_us()'s clock), at most ~16 min. */
static int ms_left(uint64_t deadline)
{
	uint64_t now = log_now_us(), ms;

	ms = now >= deadline ? 0 : (deadline - now + 999) / 1000;
	return ms > 1000000 ? 1000000 : (int)ms;
}

/*
 * One line from the terminal or the FIFO, whichever comes first, after
 * question, within timeout_s (0: no limit); its length, or -errno:
 * -ETIMEDOUT, -ENODATA at the end of input, -EMSGSIZE.  A ctrl-c ends
 * rescue-mount, echo back on.
 */
int luksprompt_ask(struct lukscon *con, const char *question,
		   unsigned timeout_s, char *buf, size_t size)
{
	uint64_t deadline = timeout_s ? log_now_us() +
			    timeout_s * 1000000ULL : UINT64_MAX;
	struct pollfd p[3];
	sigset_t old;
	int fifo, sfd, n = -ETIMEDOUT, sig = 0, r;

	fifo = fifo_open();
	sfd = prompt_signals(&old);
	dprintf(con->fd, "\n%s", question);
	p[0] = (struct pollfd){ .fd = con->fd, .events = POLLIN };
	p[1] = (struct pollfd){ .fd = fifo, .events = POLLIN };
	p[2] = (struct pollfd){ .fd = sfd, .events = POLLIN };
	for (;;) {
		if (deadline != UINT64_MAX && !ms_left(deadline))
			break;
		r = poll(p, 3, wait_ms(deadline == UINT64_MAX ? -1 :
				      ms_left(deadline)));
		if (r < 0) {
			if (errno == EINTR)
				continue;
			n = -errno;
			break;
		}
		if (r == 0 && retry_fn && retry_fn(retry_arg) == 0) {
			n = -EALREADY;	/* opened without it */
			break;
		}
		if ((p[2].revents & POLLIN) && (sig = prompt_signal(sfd)))
			break;
		if (p[1].revents & POLLIN) {
			n = read_line(fifo, false, buf, size);
			dprintf(con->fd, "(given by rescue-unlock)");
			break;
		}
		if (p[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			n = read_line(con->fd, con->tty, buf, size);
			break;
		}
	}
	dprintf(con->fd, "\n");
	if (fifo >= 0)
		close(fifo);
	if (sfd >= 0)
		close(sfd);
	if (getpid() != 1)
		sigprocmask(SIG_SETMASK, &old, NULL);
	if (sig) {		/* rescue-mount interrupted: it ends */
		unlink(RESCUE_LUKS_WAITING);
		luksprompt_close(con);
		luksprompt_echo_on();
		unlink(RESCUE_LUKS_PASS_FIFO);
		signal(sig, SIG_DFL);
		kill(getpid(), sig);	/* ends as the shell expects */
		_exit(128 + sig);
	}
	return n;
}
