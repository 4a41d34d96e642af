// SPDX-License-Identifier: GPL-2.0
/*
 * readonly.c: rescue.ro=strict, a boot that writes to no disk.
 *
 * A read-only mount is not enough: ext3/ext4 replay their journal, XFS
 * its log, btrfs its tree log even on a ro mount.  So every block device
 * is set read-only (BLKROSET) before the first probe, and every one that
 * appears later, by a watcher process with its own uevent socket (PID 1
 * sits in the rescue shell for minutes, a hot-added disk must not wait
 * for it); the root is mounted with its filesystem's no-replay option.
 *
 * BLKROSET is a policy, not a barrier: on 6.1 the filesystems and the
 * block device files obey it, but a write bio from inside the kernel to a
 * read-only device is only warned about (bio_check_ro()).  The no-replay
 * options are what keeps the filesystem code from writing.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/fs.h>

#include "rescue-init.h"
#include "storage.h"

#define CLASS_BLOCK	"/sys/class/block"

/* Says to rescue-mount in the shell that strict mode is on now. */
#define STRICT_FLAG	"/run/rescue-ro-strict"

static bool strict;		/* in force now */
static bool implied;		/* by the rescue word: ends with its shell */
static pid_t watcher = -1;

/* In force in this boot now: in PID 1, or in rescue-mount under it. */
bool readonly_strict(void)
{
	return strict || (getpid() != 1 && access(STRICT_FLAG, F_OK) == 0);
}

/*
 * BLKROSET on /dev/NAME (sysfs name, '!' for '/').  1 when the device
 * reads otherwise before (BLKROGET), 0 when it read so already, else
 * -errno.  The flag is set even then: BLKROGET of a partition says
 * read-only while its disk is, and the partition's own flag must stay
 * when rescue-mount --rw makes the disk writable for a sibling.
 */
int readonly_set(const char *name, bool ro)
{
	char node[PATH_MAX], *p;
	int fd, cur = -1, val = ro, err = 0;

	snprintf(node, sizeof(node), "/dev/%s", name);
	for (p = node + 5; *p; p++)
		if (*p == '!')
			*p = '/';
	fd = open(node, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, BLKROGET, &cur))
		cur = -1;
	if (ioctl(fd, BLKROSET, &val))
		err = -errno;
	close(fd);
	return err ? err : cur != val;
}

/* Every device in /sys/class/block set to ro; how many are ro now. */
static int set_all(bool ro, unsigned *failed)
{
	struct dirent *e;
	DIR *d = opendir(CLASS_BLOCK);
	int n = 0, r;

	*failed = 0;
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		r = readonly_set(e->d_name, ro);
		if (r >= 0) {
			n++;
		} else {
			(*failed)++;
			log_error("strict read-only: unable to set /dev/%s "
				  "%s: %s", e->d_name,
				  ro ? "read-only" : "writable", errtext(-r));
		}
	}
	closedir(d);
	return n;
}

/* The watcher: each block device added from now on is set read-only. */
static void __attribute__((noreturn)) watch(int ufd)
{
	static char buf[UEVENT_BUFFER_SIZE];
	struct pollfd pfd = { .fd = ufd, .events = POLLIN };
	struct uevent ev;
	unsigned failed;
	const char *name;
	int r;

	prctl(PR_SET_NAME, "rescue-ro-watch");
	for (;;) {
		r = uevent_receive(ufd, buf, sizeof(buf), &ev);
		if (r == -ENOBUFS) {	/* lost events: all of them again */
			set_all(true, &failed);
			continue;
		}
		if (r == -EAGAIN) {
			poll(&pfd, 1, -1);
			continue;
		}
		if (r || strcmp(ev.action, "add") || !ev.subsystem ||
		    strcmp(ev.subsystem, "block"))
			continue;
		name = ev.devname ? ev.devname : strrchr(ev.devpath, '/');
		if (!name)
			continue;
		name += *name == '/';
		r = readonly_set(name, true);
		if (r > 0)
			log_info("strict read-only: /dev/%s set read-only as it "
				 "appeared", name);
		else if (r < 0)
			log_error("strict read-only: unable to set /dev/%s "
				  "read-only: %s", name, errtext(-r));
	}
}

/*
 * rescue.ro=strict (or the rescue word): the watcher's socket first,
 * so that a device appearing during the enumeration is not missed,
 * then every device there is.  Returns how many devices are read-only.
 */
int readonly_init(const struct cmdline *c)
{
	unsigned failed;
	int ufd, n;

	if (!c->strict)
		return 0;
	strict = true;
	implied = c->strict_implied;
	storage_set_readonly(true);
	close(open(STRICT_FLAG, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
	ufd = uevent_open();
	if (ufd < 0)
		log_error("strict read-only: unable to open a uevent socket: "
			  "%s; devices that appear later stay writable",
			  errtext(-ufd));
	else if ((watcher = fork()) == 0)
		watch(ufd);
	else if (watcher < 0)
		log_error("strict read-only: unable to fork the watcher: %s; "
			  "devices that appear later stay writable",
			  errtext(errno));
	if (ufd >= 0)
		close(ufd);
	n = set_all(true, &failed);
	if (n < 0)
		log_error("strict read-only: unable to read %s: %s",
			  CLASS_BLOCK, errtext(-n));
	else
		log_info("strict read-only: %d devices set read-only%s (%s)",
			 n, failed ? ", some failed" : "",
			 c->strict_implied ? "implied by rescue; rescue.ro=0 "
			 "turns it off" : "rescue.ro=strict");
	return n;
}

/* A device announced by a uevent in PID 1's own loop (rootfind.c). */
void readonly_device(const char *name)
{
	int r;

	if (!strict)
		return;
	r = readonly_set(name, true);
	if (r < 0)
		log_error("strict read-only: unable to set /dev/%s read-only: "
			  "%s", name, errtext(-r));
}

static void stop_watcher(void)
{
	if (watcher <= 0)
		return;
	kill(watcher, SIGKILL);
	waitpid(watcher, NULL, 0);
	watcher = -1;
}

/*
 * The rescue word's strict mode ends with its shell: "exit continues
 * the boot" means a boot as without the word, so the devices become
 * writable again.
 */
void readonly_end(void)
{
	struct mountent m;
	unsigned failed;
	int n;

	if (!strict || !implied)
		return;
	stop_watcher();
	strict = false;
	unlink(STRICT_FLAG);
	storage_set_readonly(false);
	n = set_all(false, &failed);
	log_info("strict read-only ends with the rescue shell: %d devices "
		 "writable again (rescue.ro=strict keeps them read-only)",
		 n < 0 ? 0 : n);
	if (mounts_find(NEWROOT, &m) == 0)
		log_warn("the root on %s stays as mounted in strict mode "
			 "(read-only, no journal replay)", NEWROOT);
}

/*
 * Before the switch: no process of the initramfs is left behind.  With
 * rescue.ro=strict the devices stay read-only, as asked explicitly
 * (those that appear in the real system are not set read-only); the
 * rescue word's strict mode ends here at the latest.
 */
void readonly_before_switch(void)
{
	if (strict && implied)
		readonly_end();
	stop_watcher();
	unlink(STRICT_FLAG);	/* /run moves into the real root */
	if (strict)
		log_info("strict read-only: the devices stay read-only for "
			 "the real init (rescue.ro=strict)");
}

/* The mount option that stops a filesystem replaying its journal. */
const char *readonly_noreplay(const char *fstype)
{
	if (!strcmp(fstype, "ext3") || !strcmp(fstype, "ext4"))
		return "noload";
	if (!strcmp(fstype, "xfs"))
		return "norecovery";
	if (!strcmp(fstype, "btrfs"))
		return "rescue=nologreplay";
	return NULL;
}
