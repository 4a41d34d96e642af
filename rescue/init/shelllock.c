// SPDX-License-Identifier: GPL-2.0
/*
 * shelllock.c: whether this boot opened a disk without a person.
 *
 * A root that a TPM2 token or a tang server unlocked is open to
 * whoever sits at the console the moment a shell starts: rd.break, the
 * rescue entry, a crash restart.  The unlocker that opened it says so
 * here, once; every path that would hand out a shell asks.  The flag
 * lives in PID 1's memory and in /run (for a restarted PID 1, whose
 * memory is new but whose /run is the same tmpfs).
 *
 * The image may also lock every shell whatever opened the disks
 * (mkrescue --lock-shell, /etc/rescue-lock-shell).  A locked shell asks
 * for the rescue password on the console (its crypt(3) hash in
 * /etc/rescue-shadow, from mkrescue --rescue-password-hash), echo off,
 * three tries then a reboot; an image without one gives no shell at
 * all.  The same holds for an init= of the command line that is not
 * the root's own init: init=/bin/sh is a root shell too.  What the
 * person at the console sees is written there directly, "rescue-init: "
 * lines, quiet or not: the kernel log has the same at debug level.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "rescue-init.h"
#include "readfile.h"

#define SHELL_LOCK_FLAG	"/run/rescue-unattended-unlock"
#define SHELL_LOCK_IMAGE	"/etc/rescue-lock-shell"
#define SHELL_LOCK_SHADOW	"/etc/rescue-shadow"
#define SHELL_LOCK_TRIES	3
#define SHELL_LOCK_PW_MAX	256

static char unlocked_by[64];

void shell_lock_engage(const char *how)
{
	int fd;

	if (!unlocked_by[0])
		snprintf(unlocked_by, sizeof(unlocked_by), "%s", how);
	fd = open(SHELL_LOCK_FLAG, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd >= 0) {
		if (write(fd, how, strlen(how)) < 0)
			log_warn("shell lock: %s: %m", SHELL_LOCK_FLAG);
		close(fd);
	}
}

/* The unlocker's name ("TPM2", "tang") when this boot used one, else NULL. */
const char *shell_lock_engaged(void)
{
	int fd;
	ssize_t n;

	if (unlocked_by[0])
		return unlocked_by;
	fd = open(SHELL_LOCK_FLAG, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	n = read(fd, unlocked_by, sizeof(unlocked_by) - 1);
	close(fd);
	if (n <= 0) {
		/* a flag we cannot read still says a disk was opened */
		snprintf(unlocked_by, sizeof(unlocked_by), "an unattended unlock");
	}
	return unlocked_by;
}

/* What the console is told: the line, and the kernel log at debug. */
static void say(int fd, const char *line)
{
	log_debug("%s", line);
	dprintf(fd >= 0 ? fd : 2, "rescue-init: %s\n", line);
}

/* Why the shell is locked: the line said, or NULL when it is not. */
static const char *lock_reason(char *buf, size_t size)
{
	const char *how = shell_lock_engaged();

	if (how)
		snprintf(buf, size, "a disk was opened by %s", how);
	else if (access(SHELL_LOCK_IMAGE, F_OK) == 0)
		snprintf(buf, size, "this image's --lock-shell");
	else
		return NULL;
	return buf;
}

/* Equal strings, in a time that depends on the length of want only. */
static bool same_secret(const char *got, const char *want)
{
	size_t i, n = strlen(got), m = strlen(want);
	unsigned char diff = n != m;

	for (i = 0; i < m; i++)
		diff |= (unsigned char)((i < n ? got[i] : 0) ^ want[i]);
	return !diff;
}

/*
 * One line from the console, echo off, what was typed before the
 * prompt discarded; PID 1 serves reboot and poweroff meanwhile.  Its
 * length, or -errno (-ENODATA: the console ended).
 */
static int read_password(int fd, char *buf, size_t size)
{
	struct pollfd p[2] = { { .fd = fd, .events = POLLIN },
			       { .fd = shell_signal_fd(), .events = POLLIN } };
	struct termios saved, quiet;
	bool tty = tcgetattr(fd, &saved) == 0;
	ssize_t n = -1;
	int err = 0;

	if (tty) {
		quiet = saved;
		quiet.c_lflag &= ~(tcflag_t)(ECHO | ECHOE | ECHOK | ECHONL);
		quiet.c_lflag |= ICANON;
		tcsetattr(fd, TCSAFLUSH, &quiet);
	}
	dprintf(fd, "Rescue password: ");
	while (!err) {
		if (poll(p, p[1].fd >= 0 ? 2 : 1, -1) < 0) {
			err = errno == EINTR ? 0 : -errno;
			continue;
		}
		if (p[1].fd >= 0 && p[1].revents)
			shell_serve_signals();
		if (!p[0].revents)
			continue;
		n = read(fd, buf, size - 1);
		if (n > 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
			break;
		if (n == 0)
			err = -ENODATA;
	}
	if (tty)
		tcsetattr(fd, TCSAFLUSH, &saved);
	dprintf(fd, "\n");
	if (err || n < 0)
		return err ? err : -errno;
	if ((size_t)n == size - 1 && buf[n - 1] != '\n')
		n = 0;	/* longer than any password: wrong, never cut */
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		n--;
	buf[n] = '\0';
	return (int)n;
}

/* The stored hash, its first line; -errno when there is none. */
static int read_shadow(char *hash, size_t size)
{
	int err = readfile_into(SHELL_LOCK_SHADOW, hash, size, NULL);

	hash[strcspn(hash, "\r\n")] = '\0';
	return err ? err : hash[0] == '$' ? 0 : -EINVAL;
}

/* Three tries at the password: 0 when one was right; else a reboot. */
static int ask_password(int fd, const char *hash)
{
	char pw[SHELL_LOCK_PW_MAX];
	const char *out;
	int i, n;

	for (i = 0; i < SHELL_LOCK_TRIES; i++) {
		n = read_password(fd, pw, sizeof(pw));
		if (n == -ENODATA)
			return -EACCES;	/* no one can type here */
		out = n >= 0 ? crypt(pw, hash) : NULL;
		explicit_bzero(pw, sizeof(pw));
		if (out && same_secret(out, hash))
			return 0;
		say(fd, i + 1 < SHELL_LOCK_TRIES ? "wrong rescue password" :
		    "three wrong rescue passwords: rebooting");
	}
	close(fd);
	shell_reboot();
}

/*
 * Before a shell (or what stands for one, WHAT): 0 when the shell is
 * not locked or the rescue password was given; -EACCES when it is
 * refused (said on the console); three wrong passwords reboot.
 */
int shell_lock_check(const char *what)
{
	static char refused[300];	/* said once: the boot retries */
	char why[96], hash[512], line[300];
	int fd, err, open_err;

	if (!lock_reason(why, sizeof(why)))
		return 0;
	fd = open("/dev/console", O_RDWR | O_NOCTTY | O_CLOEXEC);
	open_err = errno;
	if (read_shadow(hash, sizeof(hash))) {
		snprintf(line, sizeof(line), "%s refused%s%s%s this image "
			 "has no rescue password", what,
			 shell_lock_engaged() ? ": " : " by ", why,
			 shell_lock_engaged() ? " and" : ":");
		if (strcmp(line, refused))
			say(fd, line);
		snprintf(refused, sizeof(refused), "%s", line);
		if (fd >= 0)
			close(fd);
		return -EACCES;
	}
	if (shell_lock_engaged())
		snprintf(line, sizeof(line), "%s locked: %s without a "
			 "passphrase", what, why);
	else
		snprintf(line, sizeof(line), "%s locked by %s", what, why);
	say(fd, line);
	if (fd < 0) {
		explicit_bzero(hash, sizeof(hash));
		log_error("%s refused: unable to open /dev/console for the "
			  "rescue password: %s", what, errtext(open_err));
		return -EACCES;
	}
	err = ask_password(fd, hash);
	explicit_bzero(hash, sizeof(hash));
	close(fd);
	return err;
}

/*
 * init= on a locked boot: the root's own init needs no password, any
 * other (init=/bin/sh) does; refused, the root's own init boots.
 * init holds what boot_root() found; given is init= (NULL: none).
 */
void shell_lock_check_init(const char *root, const char *given, char *init,
			   size_t size)
{
	char def[PATH_MAX], tried[512], what[PATH_MAX + 16], why[96];
	bool has_def;

	if (!given || !lock_reason(why, sizeof(why)))
		return;
	has_def = !rootmount_find_init(root, NULL, def, sizeof(def), tried,
				       sizeof(tried));
	if (has_def && !strcmp(def, init))
		return;
	snprintf(what, sizeof(what), "init=%s", given);
	if (!shell_lock_check(what))
		return;
	if (!has_def) {
		log_error("no init but init=%s in the root: waiting for a "
			  "reboot", given);
		shell_wait_forever();
	}
	log_info("booting the root's own init %s instead", def);
	snprintf(init, size, "%s", def);
}
