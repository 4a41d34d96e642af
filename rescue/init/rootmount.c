// SPDX-License-Identifier: GPL-2.0
/* rootmount.c: mount the root as root= and friends say, and find its init. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>

#include "storage/members.h"
#include "rescue-init.h"
#include "storage/storage.h"

/* The block filesystems the kernel knows, for a root of unknown type. */
static void kernel_filesystems(char *buf, size_t size)
{
	char fs[4096], *line, *nl;
	size_t n = 0, len;

	buf[0] = '\0';
	if (mounts_read_proc("/proc/filesystems", fs, sizeof(fs)))
		return;
	for (line = fs; *line; line = nl) {
		nl = line + strcspn(line, "\n");
		if (*nl)
			*nl++ = '\0';
		if (!strncmp(line, "nodev", 5))
			continue;
		line += strspn(line, " \t");
		len = strlen(line);
		if (!len || n + len + 2 > size)
			continue;
		if (n)
			buf[n++] = ',';
		memcpy(buf + n, line, len + 1);
		n += len;
	}
}

/*
 * Mount d on dir: as each rootfstype= in turn, else as the probed
 * TYPE of a filesystem, else as each filesystem the kernel has;
 * read-only unless rw; rootflags= as options.  The type it took is in
 * fstype.
 */
int rootmount_mount(const struct blkdev *d, const struct cmdline *c,
		    const char *dir, char *fstype, size_t fslen, bool *ro)
{
	char types[1024], data[4096], opts[4096 + 32], type[64];
	unsigned long flags = c->rw ? 0 : MS_RDONLY;
	bool strict = c->strict && readonly_strict();
	const char *noreplay = NULL;
	const char *p;
	size_t len;
	int err = -ENODEV, e;

	e = mounts_options(c->rootflags, &flags, data, sizeof(data));
	if (e)
		return e;
	if (strict && !(flags & MS_RDONLY))
		log_warn("strict read-only: mounting %s read-only, not "
			 "read-write as asked", d->node);
	if (strict)
		flags |= MS_RDONLY;
	if (c->rootfstype)
		snprintf(types, sizeof(types), "%s", c->rootfstype);
	else if (d->type[0] && (!d->usage[0] || !strcmp(d->usage, "filesystem")))
		snprintf(types, sizeof(types), "%s", d->type);
	else	/* unknown, or a member's signature (rescue.member=1) */
		kernel_filesystems(types, sizeof(types));
	snprintf(fstype, fslen, "%s", types);
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	for (p = types; *p; p += len + (p[len] == ',')) {
		len = strcspn(p, ",");
		if (len == 0 || len >= sizeof(type))
			continue;
		memcpy(type, p, len);
		type[len] = '\0';
		modload_fs(type);
		/* strict: no journal or log replay, which writes even ro */
		noreplay = strict ? readonly_noreplay(type) : NULL;
		snprintf(opts, sizeof(opts), "%s%s%s", data,
			 noreplay && data[0] ? "," : "",
			 noreplay ? noreplay : "");
		e = mountwatch_mount(d->node, dir, type, flags, opts);
		if (e == 0)
			goto mounted;
		if ((e == -EACCES || e == -EROFS) && !(flags & MS_RDONLY)) {
			log_warn("unable to mount %s read-write: %s; mounting "
				 "it read-only", d->node, errtext(-e));
			flags |= MS_RDONLY;
			e = mountwatch_mount(d->node, dir, type, flags, opts);
			if (e == 0)
				goto mounted;
		}
		log_debug("unable to mount %s as %s: %s", d->node, type,
			  errtext(-e));
		if (err == -ENODEV)
			err = e;	/* the first error that says more */
	}
	return err;
mounted:
	snprintf(fstype, fslen, "%s", type);
	*ro = flags & MS_RDONLY;
	if (noreplay)
		log_info("strict read-only: %s mounted with %s, its journal "
			 "not replayed", d->node, noreplay);
	return 0;
}

static int open_in_root(int rootfd, const char *path)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT,
	};
	long fd;

	/* Absolute links (/sbin/init -> /lib/systemd/systemd) stay inside. */
	fd = syscall(SYS_openat2, rootfd, path, &how, sizeof(how));
	if (fd < 0 && errno == ENOSYS)
		fd = openat(rootfd, path + (*path == '/'), O_PATH | O_CLOEXEC);
	return (int)fd;
}

/*
 * The init to run in the root mounted on dir: init= if given, else the
 * first of the kernel's list that is an executable file.  -ENOENT with
 * the paths looked at in tried.
 */
int rootmount_find_init(const char *dir, const char *init, char *found,
			size_t size, char *tried, size_t trylen)
{
	static const char *const defaults[] = {
		"/sbin/init", "/etc/init", "/bin/init", "/bin/sh",
	};
	const char *one[1] = { init };
	const char *const *list = init ? one : defaults;
	size_t i, n = init ? 1 : ARRAY_SIZE(defaults), t = 0;
	char path[PATH_MAX];
	struct stat st;
	int rootfd, fd, err = -ENOENT;

	tried[0] = '\0';
	rootfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return -errno;
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s%s", *list[i] == '/' ? "" : "/",
			 list[i]);
		t += snprintf(tried + t, trylen - t, "%s%s", t ? " " : "", path);
		if (t >= trylen)
			t = trylen - 1;
		fd = open_in_root(rootfd, path);
		if (fd < 0) {
			err = -errno;
			continue;
		}
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
		    (st.st_mode & 0111)) {
			close(fd);
			close(rootfd);
			snprintf(found, size, "%s", path);
			return 0;
		}
		err = S_ISDIR(st.st_mode) ? -EISDIR : -EACCES;
		close(fd);
	}
	close(rootfd);
	return n == 1 ? err : -ENOENT;
}

/* How long the root is looked for on a multipath map just made. */
#define MULTIPATH_WAIT_S	5

/*
 * rootfind_locate() with its failures said as "unable to ..." in why:
 * 0 with the root in res->index.
 */
static int locate(const struct rootspec *spec, struct blklist *l, int ufd,
		  unsigned wait_s, struct rootresult *res, char *why,
		  size_t size)
{
	const struct blkdev *d;
	char reason[256];
	int err;

	err = rootfind_locate(spec, l, ufd, wait_s, res);
	if (err == -ENODEV) {
		snprintf(why, size, "unable to find root %s: %s (%zu devices "
			 "probed, waited %llu s)", spec->text,
			 rootspec_absent(spec, reason, sizeof(reason)),
			 res->probed,
			 (unsigned long long)((res->waited_us + 500000) / 1000000));
		return err;
	}
	if (err == -ENOTUNIQ) {
		snprintf(why, size, "unable to use root %s: %zu devices match: "
			 "%s and %s", spec->text,
			 rootspec_count(spec, l->dev, l->n),
			 l->dev[res->index].node, l->dev[res->other].node);
		return err;
	}
	if (err == -ENXIO) {
		d = &l->dev[res->other];
		snprintf(why, size, "unable to find root %s: %s has this "
			 "PARTUUID, but /dev/%s has no partition %d", spec->text,
			 d->node, d->disk, (int)d->partno + spec->partnroff);
		return err;
	}
	if (err)
		snprintf(why, size, "unable to find root %s: %s", spec->text,
			 errtext(-err));
	return err;
}

/*
 * The boot's root: parse root=, find it (waiting as rootwait= says),
 * mount it on dir.  0 with what was mounted in m; else -errno and the
 * one-line "unable to ..." message in why.
 */
int rootmount_boot(const struct cmdline *c, struct blklist *l, int ufd,
		   const char *dir, struct mountent *m, char *why, size_t size)
{
	char reason[256], fstype[1024] = "", member[700];
	struct rootspec spec;
	struct rootresult res;
	const struct blkdev *d;
	uint64_t t0 = log_now_us();
	bool ro = true;
	int err;

	if (!c->root) {
		snprintf(why, size, "unable to find the root: no root= on the "
			 "kernel command line");
		return -EINVAL;
	}
	if (rootvirtiofs_tag(c))	/* no block device to find */
		return rootvirtiofs_boot(c, l, ufd, dir, m, why, size);
	err = rootspec_parse(c->root, &spec, reason, sizeof(reason));
	if (err) {
		snprintf(why, size, "unable to parse root=%s: %s", spec.text,
			 reason);
		return err;
	}
	err = locate(&spec, l, ufd, rootfind_wait_s(c), &res, why, size);
	if (err)
		return err;
	if (multipath_assemble(c, l, res.index)) {
		/*
		 * The map's device, or its partition's, comes by uevent; its
		 * paths now belong to it (EBUSY to anyone else).
		 */
		err = locate(&spec, l, ufd, MULTIPATH_WAIT_S, &res, why, size);
		if (err) {
			log_error("multipath: the map's device did not come");
			return err;
		}
	}
	d = &l->dev[res.index];
	log_info("found root %s on %s (%s) in %llu us, %zu devices probed",
		 spec.text, d->node, d->type[0] ? d->type : "unknown type",
		 (unsigned long long)(log_now_us() - t0), res.probed);
	/*
	 * A member is refused even when root= matched it by UUID: a
	 * storage layer (storage.c) is what makes the whole out of it.
	 */
	if (members_describe(d, member, sizeof(member))) {
		if (!c->member || (spec.kind != ROOT_DEVNAME &&
				   spec.kind != ROOT_DEVNUM)) {
			snprintf(why, size, "unable to mount %s as the root: it "
				 "is %s, not a whole filesystem; use the device "
				 "that it is part of, or root=%s rescue.member=1 "
				 "to mount this one alone", d->node, member,
				 d->node);
			return -EMEDIUMTYPE;
		}
		log_warn("mounting %s alone, as rescue.member=1 asks: it is %s",
			 d->node, member);
	} else if (!c->rootfstype && d->usage[0] &&
		   strcmp(d->usage, "filesystem")) {
		snprintf(why, size, "unable to mount %s on %s: it holds %s "
			 "(%s), not a filesystem", d->node, dir, d->type,
			 d->usage);
		return -EMEDIUMTYPE;
	}
	t0 = log_now_us();
	err = rootmount_mount(d, c, dir, fstype, sizeof(fstype), &ro);
	if (err && !c->rootfstype && !d->type[0]) {
		/* Say that probing failed: the kernel's error alone misleads. */
		snprintf(why, size, "unable to mount %s on %s: blkid recognises "
			 "no filesystem on it, and none of the kernel's (%s) "
			 "mounts it: %s", d->node, dir,
			 fstype[0] ? fstype : "none", errtext(-err));
		return err;
	}
	if (err) {
		snprintf(why, size, "unable to mount %s on %s as %s: %s",
			 d->node, dir, fstype[0] ? fstype : "any filesystem",
			 errtext(-err));
		return err;
	}
	memset(m, 0, sizeof(*m));
	snprintf(m->source, sizeof(m->source), "%s", d->node);
	snprintf(m->target, sizeof(m->target), "%s", dir);
	snprintf(m->fstype, sizeof(m->fstype), "%.31s", fstype);
	m->ro = ro;
	log_info("mounted %s on %s (%s, %s) in %llu us", d->node, dir, fstype,
		 ro ? "ro" : "rw", (unsigned long long)(log_now_us() - t0));
	return 0;
}
