// SPDX-License-Identifier: GPL-2.0
/* mounts.c: early mounts (/proc /sys /run, devtmpfs), /dev entries, console. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/magic.h>
#include <linux/stat.h>

#include "readfile.h"
#include "rescue-init.h"

/*
 * systemd's own options for /run, which it keeps when it finds /run
 * mounted: the kernel's default (half the RAM) would stay for the life
 * of the system.
 */
#define RUN_OPTIONS	"mode=0755,size=20%,nr_inodes=800k"

/* mountinfo's octal escapes (\040 for a blank), decoded in place. */
static void unescape_octal(char *s)
{
	char *d = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
				      (s[3] - '0'));
			s += 3;
		} else {
			*d++ = *s;
		}
	}
	*d = '\0';
}

/* A small /proc file into buf, NUL-terminated, without stdio. */
int mounts_read_proc(const char *path, char *buf, size_t size)
{
	return readfile_into(path, buf, size, NULL);
}

/* The next blank-separated field of *p, NUL-terminated in place. */
static char *field(char **p)
{
	char *s = *p + strspn(*p, " "), *e;

	if (!*s)
		return NULL;
	e = s + strcspn(s, " ");
	if (*e)
		*e++ = '\0';
	*p = e;
	return s;
}

static void copy(char *dst, size_t size, const char *src)
{
	size_t n = strlen(src);

	if (n >= size)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/*
 * One /proc/self/mountinfo line, without its newline:
 * "36 35 98:0 / /newroot ro,relatime shared:1 - ext4 /dev/vda1 ro"
 */
int mounts_parse_line(char *line, struct mountent *m)
{
	char *f[6], *tok = NULL, *fstype, *source;
	size_t n;

	memset(m, 0, sizeof(*m));
	for (n = 0; n < 6; n++)
		if (!(f[n] = field(&line)))
			return -EINVAL;
	while ((tok = field(&line)) && strcmp(tok, "-"))
		;
	fstype = tok ? field(&line) : NULL;
	source = fstype ? field(&line) : NULL;
	if (!source)
		return -EINVAL;
	unescape_octal(f[4]);
	unescape_octal(source);
	copy(m->target, sizeof(m->target), f[4]);
	copy(m->fstype, sizeof(m->fstype), fstype);
	copy(m->source, sizeof(m->source), source);
	m->ro = !strncmp(f[5], "ro", 2) && (!f[5][2] || f[5][2] == ',');
	return 0;
}

/*
 * Whether path is the root of a mount, from statx() alone: 1 yes, 0 no
 * (or no such path), -1 when the kernel does not say (before 5.8).
 * The boot asks of /dev, /dev/shm and /newroot; mountinfo answers too,
 * but its first read is the slowest of rescue-init's early steps (cold
 * kernel code; docs/decisions.md), and the answer is mostly "nothing
 * there".
 */
static int mount_root(const char *path)
{
	struct statx stx;

	if (syscall(SYS_statx, AT_FDCWD, path,
		    AT_NO_AUTOMOUNT | AT_SYMLINK_NOFOLLOW, 0, &stx))
		return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
	if (!(stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT))
		return -1;
	return !!(stx.stx_attributes & STATX_ATTR_MOUNT_ROOT);
}

/* The topmost mount on target: 0, or -ENOENT when nothing is mounted. */
int mounts_find(const char *target, struct mountent *m)
{
	static char buf[65536];
	struct mountent e;
	char *line, *nl;
	bool found = false;
	int err;

	if (mount_root(target) == 0)
		return -ENOENT;
	err = mounts_read_proc("/proc/self/mountinfo", buf, sizeof(buf));
	if (err)
		return err;
	for (line = buf; *line; line = nl) {
		nl = line + strcspn(line, "\n");
		if (*nl)
			*nl++ = '\0';
		if (mounts_parse_line(line, &e) == 0 && !strcmp(e.target, target)) {
			*m = e;
			found = true;
		}
	}
	return found ? 0 : -ENOENT;
}

static const struct {
	const char *word;
	unsigned long set, clear;
} flag_words[] = {
	{ "ro", MS_RDONLY, 0 },		{ "rw", 0, MS_RDONLY },
	{ "nosuid", MS_NOSUID, 0 },	{ "suid", 0, MS_NOSUID },
	{ "nodev", MS_NODEV, 0 },	{ "dev", 0, MS_NODEV },
	{ "noexec", MS_NOEXEC, 0 },	{ "exec", 0, MS_NOEXEC },
	{ "sync", MS_SYNCHRONOUS, 0 },	{ "async", 0, MS_SYNCHRONOUS },
	{ "dirsync", MS_DIRSYNC, 0 },
	{ "noatime", MS_NOATIME, 0 },	{ "atime", 0, MS_NOATIME },
	{ "nodiratime", MS_NODIRATIME, 0 }, { "diratime", 0, MS_NODIRATIME },
	{ "relatime", MS_RELATIME, 0 },	{ "norelatime", 0, MS_RELATIME },
	{ "strictatime", MS_STRICTATIME, 0 },
	{ "lazytime", MS_LAZYTIME, 0 },	{ "nolazytime", 0, MS_LAZYTIME },
	{ "silent", MS_SILENT, 0 },	{ "loud", 0, MS_SILENT },
	{ "defaults", 0, 0 },
};

/*
 * Mount options as mount(8) reads -o (rootflags=): the generic words (ro, noatime, ...)
 * change *flags, the rest is the filesystem's data, comma-separated.
 */
int mounts_options(const char *opts, unsigned long *flags, char *data,
		   size_t size)
{
	size_t i, len, n = 0;
	const char *p;
	bool known;

	if (size)
		data[0] = '\0';
	for (p = opts; p && *p; p += len + (p[len] == ',')) {
		len = strcspn(p, ",");
		if (len == 0)
			continue;
		known = false;
		for (i = 0; i < ARRAY_SIZE(flag_words); i++) {
			if (strlen(flag_words[i].word) == len &&
			    !strncmp(p, flag_words[i].word, len)) {
				*flags = (*flags | flag_words[i].set) &
					 ~flag_words[i].clear;
				known = true;
			}
		}
		if (known)
			continue;
		if (n + len + 2 > size)
			return -E2BIG;
		if (n)
			data[n++] = ',';
		memcpy(data + n, p, len);
		n += len;
		data[n] = '\0';
	}
	return 0;
}

static int mount_once(const char *src, const char *dir, const char *type,
		      unsigned long flags, const char *data)
{
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	if (mount(src, dir, type, flags, data) && errno != EBUSY)
		return -errno;
	return 0;
}

/*
 * A tmpfs on /dev/shm, unless something is mounted there: a world-writable
 * directory in devtmpfs would let anyone fill the filesystem of the nodes.
 */
static void dev_shm(void)
{
	struct mountent m;

	if (mounts_find("/dev/shm", &m) == 0)
		return;
	if (mkdir("/dev/shm", 0755) && errno != EEXIST)
		log_warn("unable to create /dev/shm: %s", errtext(errno));
	else if (mount("shm", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV,
		       "mode=1777"))
		log_warn("unable to mount tmpfs on /dev/shm: %s",
			 errtext(errno));
}

/* /dev/fd, stdin, stdout, stderr and pts where the kernel did not, shm. */
static void dev_entries(void)
{
	static const char *const links[][2] = {
		{ "/proc/self/fd", "/dev/fd" },
		{ "/proc/self/fd/0", "/dev/stdin" },
		{ "/proc/self/fd/1", "/dev/stdout" },
		{ "/proc/self/fd/2", "/dev/stderr" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(links); i++)
		if (symlink(links[i][0], links[i][1]) && errno != EEXIST)
			log_warn("unable to create %s: %s", links[i][1],
				 errtext(errno));
	if (mkdir("/dev/pts", 0755) && errno != EEXIST)
		log_warn("unable to create /dev/pts: %s", errtext(errno));
	dev_shm();
}

/*
 * A mount on /dev that is a tmpfs (a ramfs on a kernel without
 * CONFIG_TMPFS): the kernel's devtmpfs, which is the only thing that
 * mounts there before PID 1, told without reading mountinfo.
 */
static bool kernel_devtmpfs(void)
{
	struct statfs st;

	return mount_root("/dev") == 1 && statfs("/dev", &st) == 0 &&
	       (st.f_type == TMPFS_MAGIC || st.f_type == RAMFS_MAGIC);
}

/*
 * Mount /proc, /sys, /run, and devtmpfs on /dev unless the kernel did
 * (EBUSY counts as mounted).  Never an empty tmpfs over /dev.  The
 * first failure is in why.  *devtmpfs_mounted tells whether we did it.
 */
int mounts_early(bool *devtmpfs_mounted, char *why, size_t size)
{
	static const unsigned long nodev = MS_NOSUID | MS_NODEV | MS_NOEXEC;
	struct mountent dev;
	int err;

	*devtmpfs_mounted = false;
	err = mount_once("proc", "/proc", "proc", nodev, NULL);
	if (err) {
		snprintf(why, size, "unable to mount proc on /proc: %s",
			 errtext(-err));
		return err;
	}
	err = mount_once("sysfs", "/sys", "sysfs", nodev, NULL);
	if (!err)
		err = mount_once("tmpfs", "/run", "tmpfs", MS_NOSUID | MS_NODEV,
				 RUN_OPTIONS);
	if (err)
		snprintf(why, size, "unable to mount %s: %s",
			 access("/sys/class", F_OK) ? "sysfs on /sys" :
			 "tmpfs on /run", errtext(-err));
	if (kernel_devtmpfs()) {
		/* nothing to do */
	} else if (mounts_find("/dev", &dev) == 0) {
		if (strcmp(dev.fstype, "devtmpfs"))
			log_warn("/dev is a %s, not devtmpfs: leaving it as it is",
				 dev.fstype);
	} else if (mkdir("/dev", 0755) && errno != EEXIST) {
		err = -errno;
		snprintf(why, size, "unable to create /dev: %s", errtext(errno));
	} else if (mount("devtmpfs", "/dev", "devtmpfs", MS_NOSUID | MS_NOEXEC,
			 "mode=0755") == 0) {
		*devtmpfs_mounted = true;
	} else if (errno != EBUSY) {
		err = -errno;
		snprintf(why, size, "unable to mount devtmpfs on /dev: %s",
			 errtext(errno));
		return err;
	}
	dev_entries();
	return err;
}

/*
 * fds 0, 1, 2 on /dev/console: the kernel leaves them closed when it
 * could not open the console (an archive without /dev/console on a
 * kernel that does not mount devtmpfs).  1 when they were opened here.
 */
int mounts_console(void)
{
	bool missing[3];
	int fd, i, any = 0;

	for (i = 0; i < 3; i++) {
		missing[i] = fcntl(i, F_GETFD) < 0 && errno == EBADF;
		any |= missing[i];
	}
	if (!any)
		return 0;
	fd = open("/dev/console", O_RDWR | O_NOCTTY);
	if (fd < 0)
		return -errno;
	for (i = 0; i < 3; i++)
		if (missing[i] && fd != i && dup2(fd, i) < 0)
			return -errno;
	if (fd > 2)
		close(fd);
	return 1;
}

/*
 * What rescue-init made in /run, gone before the switch: the real root
 * gets /run (systemd keeps it) as it would have found it, with nothing
 * of the rescue system's (PID files, the passphrase FIFO, the LUKS
 * status) left in it.  /run/rescue holds files only; the key device's
 * mount point and cryptsetup's lock directory go when they are empty.
 */
void mounts_leave_run(void)
{
	static const char *const empty_dirs[] = {
		"/run/rescue-luks-key", "/run/cryptsetup",
	};
	struct dirent *e;
	size_t i;
	DIR *d = opendir(RESCUE_RUN_DIR);

	if (d) {
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				unlinkat(dirfd(d), e->d_name, 0);
		closedir(d);
		if (rmdir(RESCUE_RUN_DIR))
			log_warn("unable to remove %s before switching root: %s",
				 RESCUE_RUN_DIR, errtext(errno));
	}
	for (i = 0; i < ARRAY_SIZE(empty_dirs); i++)
		rmdir(empty_dirs[i]);
}
