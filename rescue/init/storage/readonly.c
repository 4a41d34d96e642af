// SPDX-License-Identifier: GPL-2.0
/*
 * readonly.c: rescue.ro=strict, a boot that writes to no disk.
 *
 * A read-only mount is not enough: ext3/ext4 replay their journal, XFS
 * and f2fs their log, btrfs its tree log even on a ro mount.  So every
 * block device is set read-only (BLKROSET) before the first probe, and
 * every one that appears later, or changes (a dm table resumed, a loop
 * device attached, an md array restarted), by a watcher process with
 * its own uevent socket (PID 1 sits in the rescue shell for minutes, a
 * hot-added disk must not wait for it); the root is mounted with its
 * filesystem's no-replay option.  md arrays assembled by hand start
 * read-only too (md_mod's start_ro), and lvm activates read-only the
 * volume groups the watcher has seen (lvmstrict.c).
 *
 * BLKROSET is a policy, not a barrier: the filesystems and the block
 * device files obey it, but a write bio from inside the kernel to a
 * read-only device is only warned about (bio_check_ro(), on 6.1 and
 * 6.12 alike).  So a writable device stacked on a read-only one (a dm
 * or md device the watcher has not reached yet) would pass writes
 * down; the no-replay options and the read-only top device are what
 * keep the filesystem code from writing.
 *
 * The watcher runs in every boot, strict or not: it also makes the
 * /dev/mapper/NAME links of dm devices made in the shell (dmnodes.c).
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
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/fs.h>

#include "rescue-init.h"
#include "readonly.h"

#define CLASS_BLOCK	"/sys/class/block"

/* Says to rescue-mount in the shell that strict mode is on now. */
/*
 * One empty file per device rescue-mount --rw made writable: the
 * watcher leaves it writable at its change events.
 */
#define MD_START_RO	"/sys/module/md_mod/parameters/start_ro"

static bool strict;		/* in force now */
static bool implied;		/* by the rescue word: ends with its shell */
static pid_t watcher = -1;

/* In force in this boot now: in PID 1, or in rescue-mount under it. */
bool readonly_strict(void)
{
	return strict || (getpid() != 1 && access(RESCUE_STRICT_FLAG, F_OK) == 0);
}

/*
 * An md array assembled from now on (mdadm in the shell) starts
 * auto-read-only: no resync, no superblock write until a write comes.
 * Written when md_mod is there, or as it is loaded (the watcher).
 */
static void md_start_ro(bool ro)
{
	int fd = open(MD_START_RO, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return;		/* no md (yet) */
	if (write(fd, ro ? "1" : "0", 1) != 1)
		log_warn("strict read-only: unable to write %s: %s",
			 MD_START_RO, errtext(errno));
	else if (ro)
		log_info("strict read-only: md arrays start read-only "
			 "(md_mod start_ro=1)");
	close(fd);
}

static void writable_path(const char *name, char *path, size_t size)
{
	snprintf(path, size, RESCUE_WRITABLE_DIR "/%s", name);
}

/*
 * rescue-mount --rw or rescue-rw made NAME writable: its change events
 * keep it so.
 */
static void mark_writable(const char *name)
{
	char path[PATH_MAX];

	writable_path(name, path, sizeof(path));
	if (mkdir(RESCUE_WRITABLE_DIR, 0755) && errno != EEXIST)
		return;
	close(open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
}

static bool marked_writable(const char *name)
{
	char path[PATH_MAX];

	writable_path(name, path, sizeof(path));
	return access(path, F_OK) == 0;
}

static void unmark_writable(const char *name)
{
	char path[PATH_MAX];

	writable_path(name, path, sizeof(path));
	unlink(path);
}

/* No mark left: strict mode ends, or /run moves into the real root. */
static void unmark_all(void)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d = opendir(RESCUE_WRITABLE_DIR);

	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.') {
			writable_path(e->d_name, path, sizeof(path));
			unlink(path);
		}
	closedir(d);
	rmdir(RESCUE_WRITABLE_DIR);
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
	char node[PATH_MAX];
	int fd, cur = -1, val = ro, err = 0;

	blk_node_path(name, node, sizeof(node));
	fd = open(node, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, BLKROGET, &cur))
		cur = -1;
	if (ioctl(fd, BLKROSET, &val))
		err = -errno;
	close(fd);
	/* rescue-mount --rw, rescue-rw: the mark; rescue-rw --ro: none */
	if (!err && getpid() != 1 && readonly_strict()) {
		if (ro)
			unmark_writable(name);
		else
			mark_writable(name);
	}
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
		if (e->d_name[0] == '.' || (ro && marked_writable(e->d_name)))
			continue;	/* the watcher's lost events: keep marks */
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

/* In strict mode, NAME that appeared (add) or changed: read-only. */
static void watch_readonly(const char *action, const char *name)
{
	bool added = !strcmp(action, "add");
	int r;

	if (!added && marked_writable(name))
		return;		/* rescue-mount --rw made it so */
	if (added)
		unmark_writable(name);	/* a new device of an old name */
	r = readonly_set(name, true);
	if (r > 0)
		log_info("strict read-only: /dev/%s set read-only %s", name,
			 added ? "as it appeared" : "again as it changed");
	else if (r == -ENODEV)	/* an md device with no array (yet) */
		log_debug("strict read-only: /dev/%s: %s", name, errtext(-r));
	else if (r < 0)
		log_error("strict read-only: unable to set /dev/%s "
			  "read-only: %s", name, errtext(-r));
}

/* One uevent: a block device's, or md_mod's as it is loaded. */
static void watch_event(const struct uevent *ev, bool ro)
{
	const char *name;

	if (!ev->subsystem)
		return;
	if (!strcmp(ev->subsystem, "module")) {
		if (ro && !strcmp(ev->action, "add") &&
		    !strcmp(ev->devpath, "/module/md_mod"))
			md_start_ro(true);
		return;
	}
	if (strcmp(ev->subsystem, "block"))
		return;
	name = ev->devname ? ev->devname : strrchr(ev->devpath, '/');
	if (!name)
		return;
	name += *name == '/';
	if (!strcmp(ev->action, "remove")) {
		dmnodes_remove(name);
		if (ro)
			unmark_writable(name);
		return;
	}
	if (strcmp(ev->action, "add") && strcmp(ev->action, "change"))
		return;
	if (ro)		/* first: before anything opens it by its link */
		watch_readonly(ev->action, name);
	dmnodes_update(name);
	if (ro)
		lvmstrict_device(name);
}

/* In strict mode, the VGs of the devices there now (lvmstrict.c). */
static void watch_existing_pvs(void)
{
	struct dirent *e;
	DIR *d = opendir(CLASS_BLOCK);

	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			lvmstrict_device(e->d_name);
	closedir(d);
}

/*
 * The watcher: each block device added or changed from now on is set
 * read-only (RO), and each dm device gets its /dev/mapper link.
 */
static void __attribute__((noreturn)) watch(int ufd, bool ro)
{
	static char buf[UEVENT_BUFFER_SIZE];
	struct pollfd pfd = { .fd = ufd, .events = POLLIN };
	struct uevent ev;
	unsigned failed;
	int r;

	prctl(PR_SET_NAME, ro ? "rescue-ro-watch" : "rescue-dm-watch");
	if (ro)
		watch_existing_pvs();	/* their events come after */
	for (;;) {
		r = uevent_receive(ufd, buf, sizeof(buf), &ev);
		if (r == -ENOBUFS) {	/* lost events: all of them again */
			if (ro)
				set_all(true, &failed);
			continue;
		}
		if (r == -EAGAIN) {
			poll(&pfd, 1, -1);
			continue;
		}
		if (!r)
			watch_event(&ev, ro);
	}
}

/*
 * The watcher's socket first, so that a device appearing during the
 * enumeration that follows is not missed; 0 or -errno.
 */
static int start_watcher(bool ro)
{
	int ufd, err = 0;

	ufd = uevent_open();
	if (ufd < 0)
		return ufd;
	watcher = fork();
	if (watcher == 0)
		watch(ufd, ro);
	if (watcher < 0)
		err = -errno;
	close(ufd);
	return err;
}

/*
 * rescue.ro=strict (or the rescue word): the watcher first, so that a
 * device appearing during the enumeration is not missed, then every
 * device there is.  Returns how many devices are read-only.  Without
 * strict mode the watcher only makes /dev/mapper links.
 */
int readonly_init(const struct cmdline *c)
{
	unsigned failed;
	int err, n;

	if (!c->strict) {
		err = start_watcher(false);
		if (err)
			log_warn("unable to start the dm link watcher: %s; "
				 "dmsetup in the shell makes no /dev/mapper "
				 "links", errtext(-err));
		return 0;
	}
	strict = true;
	implied = c->strict_implied;
	/* The way out for a ddrescue copy, said as the shell opens. */
	shell_set_notice("strict read-only: every disk stays read-only; "
			 RESCUE_TOOL_RW " DEV makes one writable");
	close(open(RESCUE_STRICT_FLAG, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
	err = start_watcher(true);
	if (err)
		log_error("strict read-only: unable to start the watcher: %s; "
			  "devices that appear later stay writable",
			  errtext(-err));
	n = set_all(true, &failed);
	if (n < 0)
		log_error("strict read-only: unable to read %s: %s",
			  CLASS_BLOCK, errtext(-n));
	else
		log_info("strict read-only: %d devices set read-only%s (%s)",
			 n, failed ? ", some failed" : "",
			 c->strict_implied ? "implied by rescue; rescue.ro=0 "
			 "turns it off" : "rescue.ro=strict");
	md_start_ro(true);
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
	shell_set_notice(NULL);
	unlink(RESCUE_STRICT_FLAG);
	unmark_all();
	md_start_ro(false);
	lvmstrict_undo();
	if (start_watcher(false))
		log_warn("unable to restart the dm link watcher");
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
	unlink(RESCUE_STRICT_FLAG);	/* /run moves into the real root */
	unmark_all();
	if (strict)
		log_info("strict read-only: the devices stay read-only for "
			 "the real init (rescue.ro=strict)");
}

/* The mount option that stops a filesystem replaying its journal. */
const char *readonly_noreplay(const char *fstype)
{
	if (!strcmp(fstype, "ext3") || !strcmp(fstype, "ext4"))
		return "noload";
	/* f2fs: roll-forward recovery; nilfs2: its log */
	if (!strcmp(fstype, "xfs") || !strcmp(fstype, "f2fs") ||
	    !strcmp(fstype, "nilfs2"))
		return "norecovery";
	if (!strcmp(fstype, "btrfs"))
		return "rescue=nologreplay";
	return NULL;
}
