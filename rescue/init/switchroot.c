// SPDX-License-Identifier: GPL-2.0
/* switchroot.c: move into the new root, exec init, then delete the initramfs. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/close_range.h>
#include <linux/magic.h>

#include "rescue-init.h"

#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x00000004	/* <linux/mount.h> */
#endif

static const char *const moved_mounts[] = { "/dev", "/proc", "/sys", "/run" };

/*
 * util-linux switch_root's recursiveRemove(): delete everything below
 * fd, never crossing to another device (which skips the new root and
 * any mount point), closing fd.
 */
static int recursive_remove(int fd)
{
	struct stat rb, sb;
	struct dirent *d;
	DIR *dir;
	int dfd, cfd, isdir;

	dir = fdopendir(fd);
	if (!dir) {
		log_warn("unable to read the old root: %s", errtext(errno));
		close(fd);
		return -errno;
	}
	dfd = dirfd(dir);
	if (fstat(dfd, &rb)) {
		closedir(dir);
		return -errno;
	}
	for (;;) {
		errno = 0;
		d = readdir(dir);
		if (!d)
			break;
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		isdir = 0;
		if (d->d_type == DT_DIR || d->d_type == DT_UNKNOWN) {
			if (fstatat(dfd, d->d_name, &sb, AT_SYMLINK_NOFOLLOW))
				continue;
			if (sb.st_dev != rb.st_dev)
				continue;	/* a mount point: not ours */
			if (S_ISDIR(sb.st_mode)) {
				cfd = openat(dfd, d->d_name,
					     O_RDONLY | O_DIRECTORY | O_CLOEXEC);
				if (cfd >= 0)
					recursive_remove(cfd);
				isdir = 1;
			}
		}
		if (unlinkat(dfd, d->d_name, isdir ? AT_REMOVEDIR : 0))
			log_debug("unable to delete %s from the initramfs: %s",
				  d->d_name, errtext(errno));
	}
	closedir(dir);
	return 0;
}

static void move_back(const char *newroot, const bool *moved)
{
	char target[PATH_MAX];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(moved_mounts); i++) {
		if (!moved[i])
			continue;
		snprintf(target, sizeof(target), "%s%s", newroot, moved_mounts[i]);
		if (mount(target, moved_mounts[i], NULL, MS_MOVE, NULL))
			log_error("unable to move %s back to %s: %s", target,
				  moved_mounts[i], errtext(errno));
	}
}

static void close_on_exec_above_2(void)
{
	int fd;

	/* syscall(): musl 1.2.3 has no close_range() or move_mount(). */
	if (syscall(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC) == 0)
		return;
	for (fd = 3; fd < 1024; fd++)
		fcntl(fd, F_SETFD, FD_CLOEXEC);
}

/*
 * The child that deletes the initramfs, as switch_root's, but only once
 * init is running: PID 1's end of the close-on-exec pipe closes on a
 * successful exec (EOF), and gets a byte when the exec failed.
 */
static pid_t start_deleter(int oldfd, int pipefd[2])
{
	pid_t pid = fork();
	char c;

	if (pid == 0) {
		close(pipefd[1]);
		if (read(pipefd[0], &c, 1) == 0)
			recursive_remove(oldfd);
		_exit(0);
	}
	close(pipefd[0]);
	if (pid < 0)
		log_warn("unable to fork the process deleting the initramfs: "
			 "%s; keeping it", errtext(errno));
	return pid;
}

/*
 * Whether the root on newroot can be switched to: not when it is on the
 * initramfs itself (a bind mount of one of its directories, a "run from
 * RAM" setup), whose files the deleter would delete, as busybox's and
 * toybox's switch_root refuse it.  0, or -EXDEV with the reason in why.
 */
int switchroot_check(const char *newroot, char *why, size_t size)
{
	struct stat newst, oldst;

	if (stat(newroot, &newst) || stat("/", &oldst))
		return 0;	/* switchroot_run() says what is wrong */
	if (newst.st_dev != oldst.st_dev)
		return 0;
	snprintf(why, size, "refusing to switch to the root on %s: it is on "
		 "the initramfs itself (a bind mount of one of its "
		 "directories?), which the switch deletes; mount a device "
		 "or a tmpfs there instead", newroot);
	return -EXDEV;
}

/* Whether target is dir or below it. */
static bool below(const char *target, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(target, dir, n) &&
	       (target[n] == '\0' || target[n] == '/');
}

/*
 * What the rescue left mounted in the initramfs (/mnt, a rescue-mount
 * --rw, the toolkit's spare tmpfs, a key mount): out of reach under the
 * new root for the life of the system, and never cleanly unmounted, so
 * unmounted now, lazily when busy, one line each.  The newest first.
 */
static void unmount_leftovers(const char *newroot)
{
	static char buf[65536];
	char *lines[256], *line, *nl;
	struct mountent m;
	size_t n = 0, i;

	if (mounts_read_proc("/proc/self/mountinfo", buf, sizeof(buf)))
		return;
	for (line = buf; *line && n < ARRAY_SIZE(lines); line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = '\0';
		else
			nl = line + strlen(line);
		lines[n++] = line;
	}
	while (n-- > 0) {
		if (mounts_parse_line(lines[n], &m) || !strcmp(m.target, "/") ||
		    below(m.target, newroot))
			continue;
		for (i = 0; i < ARRAY_SIZE(moved_mounts); i++)
			if (below(m.target, moved_mounts[i]))
				break;
		if (i < ARRAY_SIZE(moved_mounts))
			continue;	/* moves with its parent */
		if (umount2(m.target, 0) == 0)
			log_info("unmounted %s (%s) before switching root",
				 m.target, m.source);
		else if (umount2(m.target, MNT_DETACH) == 0)
			log_warn("unmounted %s (%s) lazily before switching "
				 "root: it was busy", m.target, m.source);
		else
			log_warn("unable to unmount %s (%s) before switching "
				 "root: %s", m.target, m.source, errtext(errno));
	}
}

/*
 * What switch_into() did, for switch_back() to undo: the mounts moved
 * below newroot, the initramfs' "/" (oldfd) and, once newroot became
 * "/", its mount (newfd), and the deleter waiting for the exec.
 */
struct way_back {
	const char *newroot;
	bool moved[ARRAY_SIZE(moved_mounts)];
	bool root_moved;	/* newroot is on "/" now */
	int oldfd, newfd;
	pid_t deleter;
	int deleter_pipe;	/* the write end: a byte stops the deleter */
};

/*
 * Undo switch_into(), after a failed exec or halfway: stop the deleter,
 * chroot back into the initramfs, move the new root back onto newroot
 * and the API file systems back below /.
 */
static void switch_back(struct way_back *b)
{
	char byte = 1;

	if (b->deleter > 0) {
		if (write(b->deleter_pipe, &byte, 1) != 1)
			log_warn("unable to stop the deleting process: %s",
				 errtext(errno));
		close(b->deleter_pipe);
		waitpid(b->deleter, NULL, 0);
	} else if (b->deleter_pipe >= 0) {
		close(b->deleter_pipe);
	}
	if (!b->root_moved) {
		move_back(b->newroot, b->moved);
	} else if (fchdir(b->oldfd) || chroot(".") || chdir("/")) {
		log_error("unable to return to the initramfs: %s",
			  errtext(errno));
	} else if (syscall(SYS_move_mount, b->newfd, "", AT_FDCWD, b->newroot,
			   MOVE_MOUNT_F_EMPTY_PATH)) {
		log_error("unable to move the root back to %s: %s", b->newroot,
			  errtext(errno));
	} else {
		move_back(b->newroot, b->moved);
		log_info("back in the initramfs, the root on %s again",
			 b->newroot);
	}
	close(b->oldfd);
	if (b->newfd >= 0)
		close(b->newfd);
}

/*
 * Into the root mounted on newroot, as util-linux switch_root's
 * switchroot(): move /dev /proc /sys /run below it, move it onto "/",
 * chroot there, and start the deleter of the initramfs.  0, or -errno
 * with everything undone (said in one line).
 */
static int switch_into(const char *newroot, struct way_back *b)
{
	char target[PATH_MAX];
	struct stat newst, st;
	struct statfs sfs;
	uint64_t t1 = log_now_us();
	int pipefd[2], err;
	bool delete;
	size_t i;

	*b = (struct way_back){ .newroot = newroot, .newfd = -1,
				.deleter = -1, .deleter_pipe = -1 };
	if (stat(newroot, &newst))
		return -errno;
	err = switchroot_check(newroot, target, sizeof(target));
	if (err) {
		log_error("%s", target);
		return err;
	}
	b->oldfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (b->oldfd < 0) {
		err = -errno;
		log_error("unable to open the initramfs /: %s", errtext(errno));
		return err;
	}
	unmount_leftovers(newroot);
	delete = fstatfs(b->oldfd, &sfs) == 0 &&
		 (sfs.f_type == RAMFS_MAGIC || sfs.f_type == TMPFS_MAGIC);
	if (!delete)
		log_warn("the old root is not an initramfs (ramfs or tmpfs): "
			 "not deleting it");
	for (i = 0; i < ARRAY_SIZE(moved_mounts); i++) {
		snprintf(target, sizeof(target), "%s%s", newroot, moved_mounts[i]);
		if (stat(target, &st) || !S_ISDIR(st.st_mode) ||
		    st.st_dev != newst.st_dev) {
			log_warn("unable to move %s to %s: no such directory; "
				 "unmounting it", moved_mounts[i], target);
			umount2(moved_mounts[i], MNT_DETACH);
			continue;
		}
		if (mount(moved_mounts[i], target, NULL, MS_MOVE, NULL)) {
			err = -errno;
			log_error("unable to move %s to %s: %s", moved_mounts[i],
				  target, errtext(errno));
			goto undo;
		}
		b->moved[i] = true;
	}
	if (chdir(newroot)) {
		err = -errno;
		goto undo;
	}
	if (mount(newroot, "/", NULL, MS_MOVE, NULL)) {
		err = -errno;
		log_error("unable to move %s to /: %s", newroot, errtext(errno));
		if (chdir("/"))
			log_error("unable to go back to /: %s", errtext(errno));
		goto undo;
	}
	b->root_moved = true;
	/* The way back: the new root's mount, before it becomes "/". */
	b->newfd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (b->newfd < 0 || chroot(".") || chdir("/")) {
		err = -errno;
		log_error("unable to chroot to %s: %s", newroot, errtext(errno));
		goto undo;
	}
	if (delete && pipe2(pipefd, O_CLOEXEC) == 0) {
		b->deleter = start_deleter(b->oldfd, pipefd);
		b->deleter_pipe = pipefd[1];
	} else if (delete) {
		log_warn("unable to make a pipe: %s; keeping the initramfs",
			 errtext(errno));
	}
	log_info("switched to the root on %s in %llu us", newroot,
		 (unsigned long long)(log_now_us() - t1));
	return 0;
undo:
	switch_back(b);
	return err;
}

/*
 * Exec init as PID 1 of the new root, with the kernel's signal mask and
 * ctrl-alt-del and no fd but 0-2 kept: returns only when that failed,
 * -errno, with PID 1's signals and ctrl-alt-del caught again.
 */
static int exec_init(const char *init, char *const argv[], char *const envp[],
		     const char *what, uint64_t t0)
{
	int err;

	shell_restore_signals();
	shell_catch_ctrl_alt_del(false);	/* the kernel's, for init */
	close_on_exec_above_2();
	log_info("exec %s after %llu us", what,
		 (unsigned long long)(log_now_us() - t0));
	execve(init, argv, envp);
	err = -errno;
	shell_block_signals();
	shell_catch_ctrl_alt_del(true);
	return err;
}

/*
 * Switch to the root mounted on newroot and exec init there, as
 * util-linux switch_root does, deleting the initramfs only once the exec
 * has succeeded.  Returns only on failure: -errno, back in the
 * initramfs with the root on newroot again (unless that failed too,
 * which is logged).
 */
int switchroot_run(const char *newroot, const char *init, char *const argv[],
		   char *const envp[], const char *what, uint64_t t0)
{
	struct way_back back;
	int err;

	err = switch_into(newroot, &back);
	if (err)
		return err;
	err = exec_init(init, argv, envp, what, t0);
	switch_back(&back);
	return err;
}
