// SPDX-License-Identifier: GPL-2.0
/* switchroot.c: move into the new root, delete the initramfs, exec init. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/close_range.h>
#include <linux/magic.h>

#include "rescue-init.h"

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
		log_warn("unable to read the old root: %s", strerror(errno));
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
				  d->d_name, strerror(errno));
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
				  moved_mounts[i], strerror(errno));
	}
}

static void close_on_exec_above_2(void)
{
	int fd;

	if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) == 0)
		return;
	for (fd = 3; fd < 1024; fd++)
		fcntl(fd, F_SETFD, FD_CLOEXEC);
}

/*
 * Switch to the root mounted on newroot and exec init there, as
 * util-linux switch_root does.  Returns only on failure: -errno, with
 * the initramfs still in place unless *root_deleted.
 */
int switchroot_run(const char *newroot, const char *init, char *const argv[],
		   char *const envp[], const char *what, uint64_t t0,
		   bool *root_deleted)
{
	bool moved[ARRAY_SIZE(moved_mounts)] = { false };
	char target[PATH_MAX];
	struct stat newst, st;
	struct statfs sfs;
	uint64_t t1 = log_now_us();
	size_t i;
	pid_t pid;
	int cfd, err;

	*root_deleted = false;
	if (stat(newroot, &newst))
		return -errno;
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
				  target, strerror(errno));
			move_back(newroot, moved);
			return err;
		}
		moved[i] = true;
	}
	if (chdir(newroot)) {
		err = -errno;
		goto undo;
	}
	cfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (mount(newroot, "/", NULL, MS_MOVE, NULL)) {
		err = -errno;
		log_error("unable to move %s to /: %s", newroot, strerror(errno));
		if (cfd >= 0)
			close(cfd);
		chdir("/");
		goto undo;
	}
	if (chroot(".") || chdir("/")) {
		err = -errno;
		log_error("unable to chroot to %s: %s", newroot, strerror(errno));
		if (cfd >= 0)
			close(cfd);
		return err;
	}
	/* As switch_root: a child deletes the old root while init starts. */
	if (cfd >= 0 && fstatfs(cfd, &sfs) == 0 &&
	    (sfs.f_type == RAMFS_MAGIC || sfs.f_type == TMPFS_MAGIC)) {
		pid = fork();
		if (pid == 0) {
			recursive_remove(cfd);
			_exit(0);
		}
		if (pid < 0)
			recursive_remove(cfd);
		else
			close(cfd);
		*root_deleted = true;
	} else if (cfd >= 0) {
		log_warn("the old root is not an initramfs (ramfs or tmpfs): "
			 "not deleting it");
		close(cfd);
	}
	log_info("switched to the root on %s in %llu us", newroot,
		 (unsigned long long)(log_now_us() - t1));
	shell_restore_signals();
	close_on_exec_above_2();
	log_info("exec %s after %llu us", what,
		 (unsigned long long)(log_now_us() - t0));
	execve(init, argv, envp);
	err = -errno;
	shell_block_signals();
	return err;
undo:
	move_back(newroot, moved);
	return err;
}
