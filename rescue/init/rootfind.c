// SPDX-License-Identifier: GPL-2.0
/* rootfind.c: find the root among the block devices, waiting on uevents. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include "rescue-init.h"
#include "storage/storage.h"

#define CLASS_BLOCK	"/sys/class/block"
/* What is awaited, in the wait's lines: the root, or resume='s swap. */
#define ROLE(spec)	((spec)->role ? (spec)->role : "root")

/*
 * How long to wait for a missing root: rootwait=, ROOTFIND_FOREVER for a
 * plain rootwait (as the kernel), else 10 s with modules.
 */
unsigned rootfind_wait_s(const struct cmdline *c)
{
	if (c->rootwait_s == ROOTWAIT_FOREVER)
		return ROOTFIND_FOREVER;
	if (c->rootwait_s >= 0)
		return (unsigned)c->rootwait_s;
	return modload_loaded() ? MODULES_WAIT_S : 0;
}

static const char *devname_of(const struct uevent *ev)
{
	const char *slash;

	if (ev->devname)
		return ev->devname;
	slash = strrchr(ev->devpath, '/');
	return slash ? slash + 1 : ev->devpath;
}

/* A probe that answered (after a uevent, or late): to the layers now. */
static void offer_late(struct blklist *l, size_t i, void *ctx)
{
	(void)ctx;
	storage_device(&l->dev[i]);
}

/* One uevent: drivers for new devices, new block devices probed. */
static void handle(struct blklist *l, const struct uevent *ev, unsigned needs)
{
	char name[64], *p;
	int i;

	if (!strcmp(ev->action, "add") && ev->modalias)
		modload_device(ev->modalias);
	if (!ev->subsystem || strcmp(ev->subsystem, "block"))
		return;
	snprintf(name, sizeof(name), "%s", devname_of(ev));
	for (p = name; *p; p++)
		if (*p == '/')
			*p = '!';
	if (!strcmp(ev->action, "remove")) {
		i = (int)blk_find(l, name);
		if (i >= 0 && !l->dev[i].partno)	/* its partitions go with it */
			log_info("%s went away (unplugged, or its bus reset); "
				 "dropped from the device table", l->dev[i].node);
		blk_remove(l, name);
		storage_removed(name);
		return;
	}
	if (strcmp(ev->action, "add") && strcmp(ev->action, "change"))
		return;
	i = (int)blk_find(l, name);
	if (i >= 0 && !strcmp(ev->action, "add") &&
	    (!ev->has_devnum || (l->dev[i].major == ev->major &&
				 l->dev[i].minor == ev->minor)))
		return;		/* enumerated already: probe it once */
	if (!strcmp(ev->action, "add"))
		readonly_device(name);	/* strict: before it is probed */
	i = blk_add(l, CLASS_BLOCK, name);
	if (i < 0)
		return;
	log_debug("uevent %s %s (%u:%u)", ev->action, l->dev[i].node,
		  l->dev[i].major, l->dev[i].minor);
	/*
	 * Not waited for here: the next uevents (the root's, maybe) are
	 * handled while it is probed; its answer is offered to the layers
	 * as it comes (offer_late()).
	 */
	if (!probe_start(l, (size_t)i, needs))
		storage_device(&l->dev[i]);
}

/* Probe every device for what spec needs, and offer each to the layers. */
static void probe_and_offer(struct blklist *l, unsigned needs)
{
	size_t i;

	probe_all(l, needs);
	for (i = 0; i < l->n; i++)
		storage_device(&l->dev[i]);
}

/* Whether spec matches now: once, or ambiguously (an error to report). */
static bool matched(const struct rootspec *spec, const struct blklist *l)
{
	size_t found, other;
	int r;

	if (!spec)
		return false;
	r = rootspec_match(spec, l->dev, l->n, &found, &other);
	return r == 0 || r == -ENOTUNIQ;
}

/*
 * Sleep until a uevent (pfd[0]) or timeout_ms, PID 1 serving its
 * signals (pfd[1], shell_signal_fd(), ignored by poll when negative):
 * a reboot or poweroff asked for during the root wait happens at once,
 * and children are reaped.  A probe that answers late (pfd[2],
 * probe_fd()) is taken into l, and its device offered to the layers.
 * -errno when polling fails.
 */
static int wait_events(struct blklist *l, struct pollfd pfd[3],
		       int timeout_ms)
{
	int n;

	pfd[2].fd = probe_fd();
	n = poll(pfd, 3, timeout_ms);
	if (n < 0 && errno != EINTR)
		return -errno;
	if (n > 0 && (pfd[1].revents & POLLIN))
		shell_serve_signals();
	if (n > 0 && (pfd[2].revents & POLLIN))
		probe_receive(l, offer_late, NULL);
	return 0;
}

/*
 * Handle the queued uevents, then those that come until deadline_us
 * (0: only the queued ones), or until spec matches.  1 when it
 * matched, else 0.
 */
static int events(struct blklist *l, int ufd, uint64_t deadline_us,
		  const struct rootspec *spec, unsigned needs, uint64_t start_us)
{
	static char buf[UEVENT_BUFFER_SIZE];
	uint64_t now, next_note = start_us + PROGRESS_EVERY_S * 1000000ULL;
	struct pollfd pfd[3] = { { .fd = ufd, .events = POLLIN },
				 { .fd = shell_signal_fd(), .events = POLLIN },
				 { .fd = -1, .events = POLLIN } };
	struct uevent ev;
	uint64_t wake, late;
	int r, timeout;

	if (ufd < 0)
		return 0;
	for (;;) {
		r = uevent_receive(ufd, buf, sizeof(buf), &ev);
		if (r == 0) {
			handle(l, &ev, needs);
			if (matched(spec, l))
				return 1;
			continue;
		}
		if (r == -ENOBUFS) {
			/* Events were lost: look at everything again, once. */
			log_debug("uevents were lost; enumerating again");
			blk_free(l);
			blk_enumerate(l, CLASS_BLOCK);
			probe_and_offer(l, needs);
			if (matched(spec, l))
				return 1;
			continue;
		}
		if (r != -EAGAIN)
			continue;	/* not from the kernel, or malformed */
		/*
		 * Answers offered to the layers may make devices (an LV, an
		 * opened LUKS container), whose uevents come next: handle
		 * them before the deadline counts.
		 */
		if (probe_receive(l, offer_late, NULL) > 0) {
			if (matched(spec, l))
				return 1;
			continue;
		}
		now = log_now_us();
		if (now >= deadline_us) {
			/* What the uevents brought is probed: its answers. */
			if (probe_wait(l, offer_late, NULL) == 0)
				return 0;
			if (matched(spec, l))
				return 1;
			continue;
		}
		if (spec && now >= next_note && deadline_us == UINT64_MAX) {
			log_info("waiting for %s %s: %llu s (rootwait, no "
				 "limit)", ROLE(spec), spec->text,
				 (unsigned long long)((now - start_us) / 1000000));
			next_note += PROGRESS_EVERY_S * 1000000ULL;
		} else if (spec && now >= next_note) {
			log_info("waiting for %s %s: %llu of %llu s",
				 ROLE(spec), spec->text,
				 (unsigned long long)((now - start_us) / 1000000),
				 (unsigned long long)((deadline_us - start_us +
						       999999) / 1000000));
			next_note += PROGRESS_EVERY_S * 1000000ULL;
		}
		wake = spec && next_note < deadline_us ? next_note : deadline_us;
		late = probe_mark_late(l);	/* a disk that came, and hangs */
		if (late && late < wake)
			wake = late;
		timeout = (int)((wake - now + 999) / 1000);
		if (wait_events(l, pfd, timeout))
			return 0;
		if (matched(spec, l))
			return 1;	/* a probe that answered late */
	}
}

/*
 * Before a shell that stops the boot early (rescue, rd.break): the
 * devices that coldplug's modules made (a NIC behind virtio_pci, the
 * disks behind an HBA) come as uevents, and nothing handles uevents
 * while the shell runs.  Handle them until none came for quiet_us, at
 * most max_us, as `udevadm settle` would.
 */
void rootfind_settle(struct blklist *l, int ufd, uint64_t quiet_us,
		     uint64_t max_us)
{
	static char buf[UEVENT_BUFFER_SIZE];
	uint64_t start = log_now_us(), last = start, now, until;
	struct pollfd pfd[3] = { { .fd = ufd, .events = POLLIN },
				 { .fd = shell_signal_fd(), .events = POLLIN },
				 { .fd = -1, .events = POLLIN } };
	struct uevent ev;
	int r;

	if (ufd < 0)
		return;
	for (;;) {
		r = uevent_receive(ufd, buf, sizeof(buf), &ev);
		if (r == 0) {
			handle(l, &ev, 0);
			last = log_now_us();
			continue;
		}
		if (r != -EAGAIN)
			continue;	/* lost or foreign: the next one */
		now = log_now_us();
		if (now - last >= quiet_us || now - start >= max_us) {
			if (probe_wait(l, offer_late, NULL) > 0 &&
			    now - start < max_us) {
				last = log_now_us();	/* what they made */
				continue;
			}
			break;
		}
		until = last + quiet_us < start + max_us ? last + quiet_us :
			start + max_us;
		if (wait_events(l, pfd, (int)((until - now + 999) / 1000)))
			break;
	}
	log_debug("devices settled in %llu us",
		  (unsigned long long)(log_now_us() - start));
}

/* rootdelay=: handle uevents (modules, new devices) for a while. */
void rootfind_events(struct blklist *l, int ufd, uint64_t deadline_us)
{
	events(l, ufd, deadline_us, NULL, 0, log_now_us());
}

/*
 * Enumerate and probe what spec needs, match; when nothing matches
 * and wait_s > 0, wait for it on the uevent socket ufd (opened before
 * this enumeration, so nothing is missed).  0 with res->index, or
 * -ENODEV, -ENOTUNIQ, -ENXIO as rootspec_match().
 */
int rootfind_locate(const struct rootspec *spec, struct blklist *l, int ufd,
		    unsigned wait_s, struct rootresult *res)
{
	/* The layers claim devices by TYPE: with any on, probe it. */
	unsigned needs = rootspec_needs(spec) |
			 (storage_active() ? PROBE_SB : 0);
	uint64_t start;
	int err;

	memset(res, 0, sizeof(*res));
	blk_free(l);		/* a retry starts from what is there now */
	err = blk_enumerate(l, CLASS_BLOCK);
	if (err)
		log_warn("unable to read %s: %s", CLASS_BLOCK, errtext(-err));
	probe_and_offer(l, needs);
	events(l, ufd, 0, spec, needs, log_now_us());	/* already queued */
	err = rootspec_match(spec, l->dev, l->n, &res->index, &res->other);
	/*
	 * Not among what the boot drivers made (yet: an async probe may
	 * still be on its way): the legacy IDE/PATA drivers now, not after
	 * a wait (coldplug.c).  Their disks come as uevents; a boot that
	 * loaded no module before them waits for those as any other.
	 */
	if ((err == -ENODEV || err == -ENXIO) &&
	    modload_legacy("the root was not found without them") > 0 &&
	    wait_s == 0)
		wait_s = MODULES_WAIT_S;
	if ((err == -ENODEV || err == -ENXIO) && wait_s > 0 && ufd >= 0) {
		start = log_now_us();
		events(l, ufd, wait_s == ROOTFIND_FOREVER ? UINT64_MAX :
		       start + wait_s * 1000000ULL, spec, needs, start);
		res->waited_us = log_now_us() - start;
		err = rootspec_match(spec, l->dev, l->n, &res->index,
				     &res->other);
		if (err == 0)
			log_info("%s %s appeared after %llu us of waiting",
				 ROLE(spec), spec->text,
				 (unsigned long long)res->waited_us);
	}
	/* The root's wait only: a swap late for resume= starts nothing. */
	if ((err == -ENODEV || err == -ENXIO) && ufd >= 0 && !spec->role &&
	    storage_root_wait_over() > 0) {
		/* Degraded arrays and the like: their devices come as uevents. */
		start = log_now_us();
		events(l, ufd, start + STORAGE_WAIT_OVER_S * 1000000ULL, spec,
		       needs, start);
		res->waited_us += log_now_us() - start;
		err = rootspec_match(spec, l->dev, l->n, &res->index,
				     &res->other);
	}
	res->probed = 0;
	for (size_t i = 0; i < l->n; i++)
		res->probed += l->dev[i].sectors > 0;
	if (err == 0 && !l->dev[res->index].sb_probed)
		probe_device(l, res->index, PROBE_SB);	/* its TYPE */
	return err;
}
