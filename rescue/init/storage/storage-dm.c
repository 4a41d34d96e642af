// SPDX-License-Identifier: GPL-2.0
/*
 * storage-dm.c: what every device-mapper layer (LUKS, LVM) needs, see
 * the dm_* declarations in storage.h:
 *
 *  dm_ready()     dm_mod loaded (it has no modalias, so coldplug never
 *                 loads it) and /dev/mapper/control there;
 *  dm_tool()      where the image has a tool, or the line that says
 *                 it has none;
 *  dm_run()       one storage tool of the image (cryptsetup, lvm), its
 *                 output in rescue-init's log, udev off for
 *                 libdevmapper (DM_DISABLE_UDEV=1: it makes the
 *                 /dev/mapper nodes itself and waits for no udev);
 *  dm_find()      which dm-N a mapping of a given name is;
 *  dm_annotate()  a dm-N device gets its "mapper!NAME" alias, so that
 *                 root=/dev/mapper/NAME matches it, and the
 *                 /dev/mapper/NAME link if libdevmapper made none.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "storage.h"

#define DM_CONTROL	"/dev/mapper/control"
#define DM_MISC_DEV	"/sys/class/misc/device-mapper/dev"
#define DM_LINE_MAX	512

static bool no_dm;

/* One small sysfs attribute, trailing newline removed; 0 or -errno. */
static int read_attr(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = '\0';
	return 0;
}

/* The control node from sysfs, when devtmpfs did not make it. */
static int make_control(void)
{
	unsigned long maj, min;
	char buf[32], *end;
	int err;

	err = read_attr(DM_MISC_DEV, buf, sizeof(buf));
	if (err)
		return err;
	maj = strtoul(buf, &end, 10);
	if (end == buf || *end != ':')
		return -EINVAL;
	min = strtoul(end + 1, &end, 10);
	if (*end || maj > 0xfff || min > 0xfffff)
		return -EINVAL;
	if (mkdir("/dev/mapper", 0755) && errno != EEXIST)
		return -errno;
	if (mknod(DM_CONTROL, S_IFCHR | 0600,
		  makedev((unsigned)maj, (unsigned)min)) && errno != EEXIST)
		return -errno;
	return 0;
}

int dm_ready(void)
{
	int err;

	if (access(DM_CONTROL, F_OK) == 0)
		return 0;
	if (access(DM_MISC_DEV, F_OK))
		modload_alias("dm_mod");
	err = make_control();
	if (err && !no_dm)
		log_error("dm: no %s (%s): the kernel has no device-mapper "
			  "(dm_mod), nothing is opened or activated",
			  DM_CONTROL, err == -ENOENT ? "no " DM_MISC_DEV :
			  errtext(-err));
	no_dm = err != 0;
	return err;
}

int dm_tool(const char *tool, char *path, size_t size)
{
	static const char *const dirs[] = {
		"/usr/sbin", "/sbin", "/usr/bin", "/bin",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(path, size, "%s/%s", dirs[i], tool);
		if (access(path, X_OK) == 0)
			return 0;
	}
	log_error("no %s in this image: make it with mkrescue --storage",
		  tool);
	return -ENOENT;
}

/* One line of a tool's output to the log, control bytes made '?'. */
static void log_line(const char *tool, char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < ' ' || (unsigned char)s[i] >= 0x7f)
			s[i] = '?';
	if (n)
		log_info("%s: %.*s", tool, (int)n, s);
}

/* Each complete line of buf[0..*len) to the log (ALL: the rest too). */
static void log_lines(const char *tool, char *buf, size_t *len, bool all)
{
	size_t start = 0, i;

	for (i = 0; i < *len; i++) {
		if (buf[i] != '\n')
			continue;
		log_line(tool, buf + start, i - start);
		start = i + 1;
	}
	if (all && start < *len) {
		log_line(tool, buf + start, *len - start);
		start = *len;
	}
	memmove(buf, buf + start, *len - start);
	*len -= start;
}

static void child(const char *path, char *const argv[], int in, int out)
{
	static char *const envp[] = {
		"PATH=/usr/sbin:/usr/bin:/sbin:/bin",
		"DM_DISABLE_UDEV=1",	/* libdevmapper: no udev to wait for */
		"LVM_SUPPRESS_FD_WARNINGS=1",
		"LC_ALL=C",
		NULL,
	};
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	shell_restore_signals();
	if (dup2(in >= 0 ? in : null, 0) < 0 || dup2(out, 1) < 0 ||
	    dup2(out, 2) < 0)
		_exit(127);
	execve(path, argv, envp);
	_exit(127);
}

int dm_run(const char *tool, char *const argv[], const void *input,
	   size_t inlen, char *out, size_t outsize)
{
	int inp[2] = { -1, -1 }, outp[2], status = 0, err = 0;
	char path[64], buf[DM_LINE_MAX];
	size_t len = 0, kept = 0;
	ssize_t n;
	pid_t pid;

	if (out && outsize)
		out[0] = '\0';
	if (dm_tool(tool, path, sizeof(path)))
		return -ENOENT;
	if ((input && pipe2(inp, O_CLOEXEC)) || pipe2(outp, O_CLOEXEC)) {
		err = -errno;
		log_error("unable to run %s: pipe: %s", tool, errtext(-err));
		if (inp[0] >= 0) {
			close(inp[0]);
			close(inp[1]);
		}
		return err;
	}
	pid = fork();
	if (pid == 0)
		child(path, argv, inp[0], outp[1]);
	if (inp[0] >= 0)
		close(inp[0]);
	close(outp[1]);
	if (pid < 0) {
		err = -errno;
		log_error("unable to run %s: fork: %s", tool, errtext(-err));
		goto out;
	}
	/* A passphrase or key fits the pipe: written whole, never logged. */
	if (input && write(inp[1], input, inlen) != (ssize_t)inlen)
		log_warn("%s: its input was cut: %s", tool, errtext(errno));
	if (inp[1] >= 0) {
		close(inp[1]);
		inp[1] = -1;
	}
	while ((n = read(outp[0], buf + len, sizeof(buf) - 1 - len)) > 0 ||
	       (n < 0 && errno == EINTR)) {
		if (n < 0)
			continue;
		if (out && kept + 1 < outsize) {
			size_t c = (size_t)n < outsize - 1 - kept ?
				   (size_t)n : outsize - 1 - kept;

			memcpy(out + kept, buf + len, c);
			kept += c;
			out[kept] = '\0';
		}
		len += (size_t)n;
		log_lines(tool, buf, &len, len == sizeof(buf) - 1);
	}
	log_lines(tool, buf, &len, true);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		log_error("unable to run %s (%s): exec failed, a library "
			  "missing?", tool, path);
	err = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
out:
	if (inp[1] >= 0)
		close(inp[1]);
	close(outp[0]);
	return err;
}

int dm_find(const char *dmname, char *dev, size_t size)
{
	char path[300], name[128];
	struct dirent *e;
	DIR *dir;
	int err = -ENOENT;

	dir = opendir("/sys/block");
	if (!dir)
		return -errno;
	while ((e = readdir(dir))) {
		if (strncmp(e->d_name, "dm-", 3))
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/dm/name",
			 e->d_name);
		if (read_attr(path, name, sizeof(name)) == 0 &&
		    !strcmp(name, dmname)) {
			snprintf(dev, size, "%s", e->d_name);
			err = 0;
			break;
		}
	}
	closedir(dir);
	return err;
}

int dm_info(const char *dev, char *name, size_t nsize, char *uuid,
	    size_t usize)
{
	char path[128];
	int err;

	snprintf(path, sizeof(path), "/sys/block/%s/dm/name", dev);
	err = read_attr(path, name, nsize);
	if (err)
		return err;
	snprintf(path, sizeof(path), "/sys/block/%s/dm/uuid", dev);
	if (uuid && read_attr(path, uuid, usize))
		uuid[0] = '\0';
	return 0;
}

/* /dev/mapper/NAME -> ../dm-N, unless libdevmapper made its node. */
static void make_link(const char *name, const char *dev)
{
	char path[200], target[80];

	if (strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return;
	snprintf(path, sizeof(path), "/dev/mapper/%s", name);
	if (access(path, F_OK) == 0)
		return;
	if (mkdir("/dev/mapper", 0755) && errno != EEXIST)
		return;
	snprintf(target, sizeof(target), "../%s", dev);
	if (symlink(target, path) && errno != EEXIST)
		log_warn("dm: unable to link %s to %s: %s", path, dev,
			 errtext(errno));
}

void dm_annotate(struct blkdev *d)
{
	char name[128] = "", alias[160];

	if (strncmp(d->name, "dm-", 3) ||
	    dm_info(d->name, name, sizeof(name), NULL, 0) || !name[0])
		return;
	make_link(name, d->name);
	snprintf(alias, sizeof(alias), "mapper!%s", name);
	storage_add_alias(d, alias);
	dm_udev_record(d);	/* dmudev.c: ready for the root's udev */
}
