// SPDX-License-Identifier: GPL-2.0
/*
 * rootvirtiofs.c: a root shared by the host through virtio-fs, named by
 * its tag rather than by a block device: root=virtiofs:TAG (dracut's
 * virtiofs module) or root=TAG rootfstype=virtiofs (systemd's).  The
 * tag exists once the virtio-fs driver has bound its device, which on a
 * stock kernel comes after the module loads: the mount is tried again
 * after each batch of uevents, until the root wait ends.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include "rescue-init.h"

#define VIRTIOFS_PREFIX	"virtiofs:"

/* The tag the root is named by, or NULL when the root is not virtio-fs. */
const char *rootvirtiofs_tag(const struct cmdline *c)
{
	if (!c->root)
		return NULL;
	if (!strncmp(c->root, VIRTIOFS_PREFIX, strlen(VIRTIOFS_PREFIX)))
		return c->root + strlen(VIRTIOFS_PREFIX);
	if (c->rootfstype && !strcmp(c->rootfstype, "virtiofs"))
		return c->root;
	return NULL;
}

/*
 * Until a uevent comes or deadline_us, PID 1 serving its signals: the
 * mount's own child (mountwatch.c) ends with a SIGCHLD, which is no
 * reason to try again.
 */
static void wait_uevent(int ufd, uint64_t deadline_us)
{
	struct pollfd pfd[2] = { { .fd = ufd, .events = POLLIN },
				 { .fd = shell_signal_fd(), .events = POLLIN } };
	uint64_t now;

	while ((now = log_now_us()) < deadline_us) {
		if (poll(pfd, 2, (int)((deadline_us - now + 999) / 1000)) <= 0)
			continue;	/* EINTR, or the deadline: checked above */
		if (pfd[1].revents & POLLIN)
			shell_serve_signals();
		if (pfd[0].revents & POLLIN)
			return;
	}
}

/*
 * Mount the virtio-fs tag on dir, as rootmount_boot() mounts a block
 * device (read-only unless rw, rootflags=, strict).  0 with m filled,
 * else -errno and the "unable to ..." line in why.
 */
int rootvirtiofs_boot(const struct cmdline *c, struct blklist *l, int ufd,
		      const char *dir, struct mountent *m, char *why,
		      size_t size)
{
	const char *tag = rootvirtiofs_tag(c);
	uint64_t t0 = log_now_us(), deadline;
	struct blkdev d = { .type = "virtiofs", .usage = "filesystem" };
	char fstype[64];
	unsigned wait_s;
	bool ro = true;
	int err;

	if (!tag[0]) {
		snprintf(why, size, "unable to parse root=%s: no virtio-fs tag",
			 c->root);
		return -EINVAL;
	}
	snprintf(d.node, sizeof(d.node), "%s", tag);
	modload_fs("virtiofs");		/* the filesystem and its driver */
	wait_s = rootfind_wait_s(c);
	if (wait_s == 0)
		wait_s = MODULES_WAIT_S;	/* the device binds after init */
	deadline = wait_s == ROOTFIND_FOREVER ? UINT64_MAX :
		   t0 + wait_s * 1000000ULL;
	for (;;) {
		err = rootmount_mount(&d, c, dir, fstype, sizeof(fstype), &ro);
		/* No such tag (yet): EINVAL; no virtiofs filesystem: ENODEV. */
		if (!err || (err != -EINVAL && err != -ENODEV) ||
		    log_now_us() >= deadline)
			break;
		rootfind_events(l, ufd, 0);	/* drivers for new devices */
		wait_uevent(ufd, deadline);
	}
	if (err) {
		snprintf(why, size, "unable to mount the virtio-fs tag %s on "
			 "%s: %s (waited %llu s)", tag, dir,
			 err == -EINVAL ? "no virtio-fs device has this tag" :
			 err == -ENODEV ? "the kernel has no virtiofs filesystem" :
			 errtext(-err),
			 (unsigned long long)((log_now_us() - t0 + 500000) /
					      1000000));
		return err;
	}
	memset(m, 0, sizeof(*m));
	snprintf(m->source, sizeof(m->source), "%s", tag);
	snprintf(m->target, sizeof(m->target), "%s", dir);
	snprintf(m->fstype, sizeof(m->fstype), "virtiofs");
	m->ro = ro;
	log_info("mounted the virtio-fs tag %s on %s (virtiofs, %s) in %llu us",
		 tag, dir, ro ? "ro" : "rw",
		 (unsigned long long)(log_now_us() - t0));
	return 0;
}
