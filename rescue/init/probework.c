// SPDX-License-Identifier: GPL-2.0
/*
 * probework.c: every probe of a block device runs in a worker process of
 * its own, with a deadline; the one that asked (PID 1, rescue-ls,
 * rescue-mount) never reads a disk itself.
 *
 * A failing disk errors, or takes 30 s and more per read while the
 * drive retries; a USB bridge may stop answering altogether.  A read
 * that hangs in the kernel cannot be interrupted, not even by SIGKILL,
 * so it must hang in a process that nothing waits for.  Each probe is
 * a fork()ed worker that identifies one device with libblkid (probe.c)
 * and sends what it found as one message on a SOCK_SEQPACKET pair
 * shared by all of them.  The asker waits for the answers of a batch
 * until each probe is rd.probe.timeout= old (2 s by default), then goes
 * on: a device that did not answer is "not answering after N s, still
 * waiting", and its answer, when it comes, is taken into account then
 * (probe_receive(), which the root wait polls for).  A device is never
 * probed twice at once: a second reader would queue behind the first.
 *
 * Workers are not waited for: PID 1 reaps every child (shell.c), and an
 * answer that never comes is the sign of a worker that hung or died.
 *
 * Several device lists probe at once (the root search's, and the fresh
 * one a storage layer enumerates to look for a twin while the first
 * waits), and whichever is waiting reads the answers.  Each probe knows
 * its list's generation: an answer read for another list is applied to
 * the reader's too, and kept for its own, which takes it at its next
 * probe_receive(); one never taken is dropped after STASH_KEEP_US.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "rescue-init.h"
#include "probe.h"

#define PROBE_TIMEOUT_MS	2000	/* rd.probe.timeout= not given */
#define STASH_KEEP_US	(30 * 1000000ULL)

struct pending {
	uint32_t seq;
	pid_t pid;
	unsigned gen;		/* the list it is for: blklist.probe_gen */
	char name[64];
	unsigned major, minor;
	unsigned what;
	uint64_t start_us;
	bool said;		/* its lateness was logged */
	struct probe_answer *stash;	/* read for another list, kept for gen's */
	uint64_t stashed_us;
};

static struct pending *pending;
static size_t npending, pending_cap;
static uint32_t next_seq = 1;
static unsigned next_gen = 1;
static int channel[2] = { -1, -1 };	/* [0] the asker's, [1] the workers' */
static uint64_t timeout_us = PROBE_TIMEOUT_MS * 1000ULL;
static struct probe_answer rx;		/* one at a time: 30 KB, not on the stack */

/*
 * rd.probe.timeout=SECONDS (a decimal fraction allowed): how long a
 * probe is waited for before the boot goes on without it; 0 waits for
 * every answer, as before this file existed (and as dracut's timeouts
 * read 0).
 */
void probe_set_timeout(const struct cmdline *c)
{
	const char *v = cmdline_get(c, "rd.probe.timeout");
	char *end;
	double s;

	if (!v)
		return;
	errno = 0;
	s = strtod(v, &end);
	if (end == v || *end || errno || s < 0 || s > 86400) {
		log_warn("rd.probe.timeout=%s is not a number of seconds; "
			 "keeping %llu ms", v,
			 (unsigned long long)(timeout_us / 1000));
		return;
	}
	timeout_us = s == 0 ? UINT64_MAX : (uint64_t)(s * 1000000);
}

/* The asker's end of the channel, for poll(); -1 before the first probe. */
int probe_fd(void)
{
	return channel[0];
}

static int open_channel(void)
{
	if (channel[0] >= 0)
		return 0;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, channel))
		return -errno;
	if (fcntl(channel[0], F_SETFL, O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

static bool same_device(const struct blkdev *d, const char *name,
			unsigned major, unsigned minor)
{
	return !strcmp(d->name, name) && d->major == major && d->minor == minor;
}

static unsigned gen_of(struct blklist *l)
{
	if (!l->probe_gen)
		l->probe_gen = next_gen++;
	return l->probe_gen;
}

/* Drop pending[k]: the last entry takes its place, and none is left twice. */
static void forget(size_t k)
{
	free(pending[k].stash);
	npending--;
	if (k != npending)
		pending[k] = pending[npending];
	memset(&pending[npending], 0, sizeof(pending[npending]));
}

/* d's probe still waited for, else an answer kept for another list. */
static struct pending *find_pending(const struct blkdev *d)
{
	struct pending *stashed = NULL;
	size_t i;

	for (i = 0; i < npending; i++) {
		if (!same_device(d, pending[i].name, pending[i].major,
				 pending[i].minor))
			continue;
		if (!pending[i].stash)
			return &pending[i];
		stashed = &pending[i];
	}
	return stashed;
}

/* The worker: identify d, send the answer, exit.  Never returns. */
static void __attribute__((noreturn)) work(const struct blkdev *d,
					   unsigned what, uint32_t seq)
{
	static struct probe_answer a;
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	/* No terminal or pipe held open by a worker that hangs. */
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
	}
	a.seq = seq;
	a.major = d->major;
	a.minor = d->minor;
	snprintf(a.name, sizeof(a.name), "%s", d->name);
	probe_identify(d->node, d->sectors, what, &a);
	if (send(channel[1], &a, offsetof(struct probe_answer, parts) +
		 a.nparts * sizeof(a.parts[0]), MSG_NOSIGNAL) < 0)
		_exit(1);
	_exit(0);
}

static int start(struct blklist *l, const struct blkdev *d, unsigned what)
{
	struct pending *p;
	pid_t pid;
	int err;

	err = open_channel();
	if (err)
		return err;
	if (npending == pending_cap) {
		size_t cap = pending_cap ? pending_cap * 2 : 16;

		p = realloc(pending, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		pending = p;
		pending_cap = cap;
	}
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0)
		work(d, what, next_seq);
	p = &pending[npending++];
	memset(p, 0, sizeof(*p));
	p->seq = next_seq++;
	p->pid = pid;
	p->gen = gen_of(l);
	snprintf(p->name, sizeof(p->name), "%s", d->name);
	p->major = d->major;
	p->minor = d->minor;
	p->what = what;
	p->start_us = log_now_us();
	log_debug("probing %s in worker %d", d->node, (int)pid);
	return 0;
}

/* A partition's PARTUUID and PARTLABEL, from its disk's table. */
static void fill_partition(struct blkdev *p, const struct blkdev *disk)
{
	size_t i;

	p->pt_probed = true;
	for (i = 0; i < disk->nparts; i++) {
		if (disk->parts[i].partno != p->partno)
			continue;
		snprintf(p->partuuid, sizeof(p->partuuid), "%s",
			 disk->parts[i].uuid);
		snprintf(p->partlabel, sizeof(p->partlabel), "%s",
			 disk->parts[i].name);
	}
}

static void apply_table(struct blklist *l, struct blkdev *d,
			const struct probe_answer *a)
{
	size_t i;

	d->pt_probed = true;
	snprintf(d->pttype, sizeof(d->pttype), "%s", a->pttype);
	free(d->parts);
	d->parts = NULL;
	d->nparts = 0;
	if (a->nparts && (d->parts = calloc(a->nparts, sizeof(*d->parts)))) {
		memcpy(d->parts, a->parts, a->nparts * sizeof(*d->parts));
		d->nparts = a->nparts;
	}
	for (i = 0; i < l->n; i++)
		if (l->dev[i].partno && !strcmp(l->dev[i].disk, d->name))
			fill_partition(&l->dev[i], d);
}

/* What a device is said to be when its probe failed. */
static void say_error(struct blkdev *d, const struct probe_answer *a)
{
	if (a->err == -EIO && a->bad_sector != UINT64_MAX)
		snprintf(d->fault, sizeof(d->fault), "I/O error at sector %llu",
			 (unsigned long long)a->bad_sector);
	else
		snprintf(d->fault, sizeof(d->fault), "unable to read it: %s",
			 errtext(-a->err));
	log_warn("%s: %s; the root search goes on without it", d->node,
		 d->fault);
}

/* Answer a of probe p into l: the device's index, or -1 when it is gone. */
static ssize_t apply(struct blklist *l, const struct pending *p,
		     const struct probe_answer *a)
{
	uint64_t took = log_now_us() - p->start_us;
	ssize_t i = blk_find(l, p->name);
	struct blkdev *d;

	if (i < 0 || !same_device(&l->dev[i], p->name, p->major, p->minor)) {
		if (p->said)
			log_info("/dev/%s answered after %llu ms, and is gone",
				 p->name, (unsigned long long)(took / 1000));
		return -1;
	}
	d = &l->dev[i];
	d->fault[0] = '\0';
	if (p->what & PROBE_SB) {
		d->sb_probed = true;
		d->sb_full = p->what & PROBE_FULL;
	}
	if (a->err) {
		d->pt_probed = true;
		say_error(d, a);
		return i;
	}
	if (a->done & PROBE_SB) {
		snprintf(d->type, sizeof(d->type), "%s", a->type);
		snprintf(d->uuid, sizeof(d->uuid), "%s", a->uuid);
		snprintf(d->label, sizeof(d->label), "%s", a->label);
		snprintf(d->usage, sizeof(d->usage), "%s", a->usage);
	}
	if (a->ambiguous)
		log_warn("unable to identify %s: more than one filesystem "
			 "signature (wipefs shows them)", d->node);
	if (p->what & PROBE_PT)
		apply_table(l, d, a);
	if (p->said)
		log_info("%s answered after %llu ms: %s", d->node,
			 (unsigned long long)(took / 1000),
			 d->type[0] ? d->type : "no signature");
	else
		log_debug("probed %s in %llu us", d->node,
			  (unsigned long long)took);
	return i;
}

static size_t answer_size(const struct probe_answer *a)
{
	return offsetof(struct probe_answer, parts) +
	       a->nparts * sizeof(a->parts[0]);
}

/* Answer a of pending[k], read by l: to l, and to its own list. */
static ssize_t take(struct blklist *l, size_t k, const struct probe_answer *a)
{
	unsigned gen = gen_of(l);
	ssize_t i = apply(l, &pending[k], a);

	if (pending[k].gen != gen &&
	    (pending[k].stash = malloc(answer_size(a)))) {
		memcpy(pending[k].stash, a, answer_size(a));
		pending[k].stashed_us = log_now_us();
	} else {
		forget(k);	/* l's own, or no memory to keep it */
	}
	return i;
}

/*
 * Take every answer there is now into l: those read for l before by
 * another list, then those on the channel; forget their probes.  fn(l,
 * i, ctx) for each device of l that one told about.  The number taken.
 */
size_t probe_receive(struct blklist *l, probe_answered_fn *fn, void *ctx)
{
	uint64_t now = log_now_us();
	unsigned gen = gen_of(l);
	size_t n = 0, k;
	ssize_t got, i;

	for (k = 0; k < npending; ) {
		struct pending *p = &pending[k];
		bool mine = p->stash && p->gen == gen;
		bool stale = p->stash && now - p->stashed_us > STASH_KEEP_US;

		if (!mine && !stale) {
			k++;
			continue;
		}
		i = mine ? apply(l, p, p->stash) : -1;
		forget(k);	/* stale: its list is gone */
		if (!mine)
			continue;
		n++;
		if (i >= 0 && fn)
			fn(l, (size_t)i, ctx);
	}
	while (channel[0] >= 0 &&
	       (got = recv(channel[0], &rx, sizeof(rx), MSG_DONTWAIT)) > 0) {
		if ((size_t)got < offsetof(struct probe_answer, parts) ||
		    rx.nparts > PROBE_PARTS_MAX)
			continue;
		for (k = 0; k < npending && pending[k].seq != rx.seq; k++)
			;
		if (k == npending || pending[k].stash)
			continue;	/* forgotten (probe_forget) */
		i = take(l, k, &rx);
		n++;
		if (i >= 0 && fn)
			fn(l, (size_t)i, ctx);
	}
	return n;
}

/* The earliest deadline of a probe that has not passed it, or 0. */
static uint64_t next_deadline(uint64_t now)
{
	uint64_t next = 0, end;
	size_t i;

	if (timeout_us == UINT64_MAX) {
		for (i = 0; i < npending; i++)
			if (!pending[i].stash)
				return UINT64_MAX;
		return 0;
	}
	for (i = 0; i < npending; i++) {
		if (pending[i].stash)
			continue;	/* answered, for another list */
		end = pending[i].start_us + timeout_us;
		if (end > now && (!next || end < next))
			next = end;
	}
	return next;
}

/* A device whose probe is past its deadline: said so, once per probe. */
static void mark_waiting(struct blklist *l)
{
	uint64_t now = log_now_us(), secs;
	ssize_t i;
	size_t k;

	for (k = 0; k < npending; k++) {
		struct pending *p = &pending[k];

		if (p->stash || now - p->start_us < timeout_us)
			continue;	/* answered, or still in its time */
		i = blk_find(l, p->name);
		if (i < 0 || !same_device(&l->dev[i], p->name, p->major,
					  p->minor))
			continue;
		secs = (now - p->start_us) / 1000000;
		snprintf(l->dev[i].fault, sizeof(l->dev[i].fault),
			 "not answering after %llu s, still waiting",
			 (unsigned long long)secs);
		if (!p->said)
			log_warn("%s: %s (rd.probe.timeout=); the root search "
				 "goes on without it", l->dev[i].node,
				 l->dev[i].fault);
		p->said = true;
	}
}

/*
 * Wait for the answers of every probe younger than the deadline, PID 1
 * serving its signals meanwhile (a reboot asked for now happens now);
 * fn(l, i, ctx) for each device one told about.
 */
size_t probe_wait(struct blklist *l, probe_answered_fn *fn, void *ctx)
{
	struct pollfd pfd[2] = { { .fd = channel[0], .events = POLLIN },
				 { .fd = shell_signal_fd(), .events = POLLIN } };
	uint64_t now, until;
	size_t n = 0;
	int ms;

	for (;;) {
		n += probe_receive(l, fn, ctx);
		now = log_now_us();
		until = next_deadline(now);
		if (!until)
			break;
		ms = until == UINT64_MAX ? -1 : (int)((until - now + 999) / 1000);
		if (poll(pfd, 2, ms) > 0 && (pfd[1].revents & POLLIN))
			shell_serve_signals();
	}
	mark_waiting(l);
	return n;
}

/*
 * The root wait's turn of probe_wait(), which does not block: the
 * devices whose probe passed its deadline are said (a disk announced
 * during the wait that hangs), and the time when the next one will, for
 * the wait's poll; 0 when no probe is pending.
 */
uint64_t probe_mark_late(struct blklist *l)
{
	mark_waiting(l);
	return next_deadline(log_now_us());
}

/*
 * Start what l->dev[i] needs for WHAT and does not know yet, without
 * waiting: true when an answer about it is on its way (probe_wait(), or
 * probe_receive() when probe_fd() is readable, takes it).
 */
bool probe_start(struct blklist *l, size_t i, unsigned what)
{
	struct blkdev *d = &l->dev[i];
	bool full = what & PROBE_FULL;
	struct pending *p;
	unsigned want = 0;
	ssize_t disk;
	int err;

	if (d->sectors == 0)
		return false;	/* nothing to read */
	p = find_pending(d);
	if (p && p->stash) {
		apply(l, p, p->stash);	/* read for another list just now */
		d = &l->dev[i];
		if (p->gen == gen_of(l)) {
			forget((size_t)(p - pending));
			return false;
		}
		if (!((what & PROBE_SB) && (!d->sb_probed ||
		      ((what & PROBE_FULL) && !d->sb_full))) &&
		    !((what & PROBE_PT) && !d->pt_probed))
			return false;
	} else if (p) {
		return true;	/* its answer is coming */
	}
	if ((what & PROBE_PT) && d->partno && !d->pt_probed) {
		disk = blk_find(l, d->disk);
		if (disk < 0)
			d->pt_probed = true;
		else if (l->dev[disk].pt_probed)
			fill_partition(&l->dev[i], &l->dev[disk]);
		else
			probe_start(l, (size_t)disk, PROBE_PT);
	}
	if ((what & PROBE_SB) && (!d->sb_probed || (full && !d->sb_full)))
		want |= PROBE_SB | (what & PROBE_FULL);
	if ((what & PROBE_PT) && !d->partno && !d->pt_probed)
		want |= PROBE_PT;
	if (!want)
		return false;
	err = start(l, d, want);
	if (err) {
		snprintf(d->fault, sizeof(d->fault), "not probed: %s",
			 errtext(-err));
		log_warn("unable to probe %s: %s", d->node, errtext(-err));
		d->sb_probed = d->pt_probed = true;
		return false;
	}
	return true;
}

/*
 * Probe l->dev[i] for what is asked and not known yet: its filesystem
 * (PROBE_SB), and its partition table entry (PROBE_PT), which for a
 * partition comes from probing its disk's table once.  PROBE_FULL asks
 * for every signature libblkid knows, not only the kernel's filesystems.
 * Waits at most rd.probe.timeout=; 0.
 */
int probe_device(struct blklist *l, size_t i, unsigned what)
{
	probe_start(l, i, what);
	probe_wait(l, NULL, NULL);
	return 0;
}

/*
 * Probe every device at once, each in its worker: one deadline for all
 * of them, however many hang.  The number of devices there are to look
 * at (those that have a medium).
 */
size_t probe_all(struct blklist *l, unsigned what)
{
	size_t i, n = 0;

	for (i = 0; i < l->n; i++) {
		if (l->dev[i].sectors == 0)
			continue;
		probe_start(l, i, what);
		n++;
	}
	probe_wait(l, NULL, NULL);
	return n;
}

/*
 * Before the switch to the root: the workers still waiting are killed
 * (they die when their read returns) and their answers no longer
 * expected; the root's init inherits nothing to wait for.
 */
void probe_forget(void)
{
	size_t i;

	for (i = 0; i < npending; i++) {
		if (!pending[i].stash)
			kill(pending[i].pid, SIGKILL);
		free(pending[i].stash);
	}
	npending = 0;
}
