// SPDX-License-Identifier: GPL-2.0
/*
 * resume.c: resume from hibernation before any filesystem is mounted,
 * as dracut orders it.  resume= names the swap the way root= names the
 * root (UUID=, PARTUUID=, LABEL=, /dev/..., maj:min), found the same way
 * and waited for by uevent as long, after the storage layers have seen
 * it: a swap on LUKS is opened, on LVM activated, by the same path as a
 * root there.  resume_offset= is a swap file's first page on the device
 * that holds it.  With an image there, the offset goes to
 * /sys/power/resume_offset, then "maj:min" to /sys/power/resume: the
 * kernel loads the image and this boot is gone; if the write returns,
 * it did not resume, and the boot goes on to the root.
 *
 * An image is the kernel's signature ("S1SUSPEND", HIBERNATE_SIG) at
 * the end of the swap header's page, which is what the kernel checks:
 * a swap without it is not handed over.  The kernel's check writes
 * (it puts the swap signature back at once), so the rescue boot (the
 * word rescue, rescue.ro=strict) never resumes, nor does noresume;
 * each says so when a swap holds an image, since the filesystems the
 * hibernated system had mounted are then not clean.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "resume.h"

#define SYS_RESUME		"/sys/power/resume"
#define SYS_RESUME_OFFSET	"/sys/power/resume_offset"
#define HIBERNATE_SIG		"S1SUSPEND"	/* kernel/power/swap.c */
#define SIG_LEN			10
#define SETTLE_QUIET_US		500000
#define SETTLE_MAX_US		5000000

bool resume_signature(const unsigned char *buf, size_t page)
{
	return page >= SIG_LEN &&
	       !memcmp(buf + page - SIG_LEN, HIBERNATE_SIG, SIG_LEN);
}

/* Whether node holds the kernel's image at page offset pages: -errno, 0, 1. */
static int image_at(const char *node, unsigned long long offset)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *buf;
	ssize_t n;
	int fd, r;

	if (page <= 0)
		page = 4096;
	buf = malloc((size_t)page);
	if (!buf)
		return -ENOMEM;
	fd = open(node, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		r = -errno;
		goto out;
	}
	n = pread(fd, buf, (size_t)page, (off_t)(offset * (unsigned long long)page));
	r = n < 0 ? -errno : n != page ? -EIO :
	    resume_signature(buf, (size_t)page);
	close(fd);
out:
	free(buf);
	return r;
}

static int write_sys(const char *path, const char *val)
{
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	if (n < 0)
		err = -errno;
	close(fd);
	return err;
}

/* Why this boot must not resume, NULL when it may. */
static const char *must_not(const struct cmdline *c)
{
	if (c->rescue_word)
		return "the rescue boot never resumes: resuming writes to "
		       "the disk";
	if (c->ro_strict == 1)
		return "rescue.ro=strict writes to no disk, and resuming "
		       "writes";
	if (cmdline_get(c, "noresume"))
		return "noresume is given";
	return NULL;
}

/*
 * A boot that must not resume says which swaps hold an image (libblkid's
 * TYPE "swsuspend"), among the devices there once they have settled,
 * whatever resume= says.
 */
static void scan_images(struct blklist *l, int ufd, const char *why)
{
	size_t i;

	rootfind_settle(l, ufd, SETTLE_QUIET_US, SETTLE_MAX_US);
	blk_free(l);
	if (blk_enumerate(l, "/sys/class/block"))
		return;
	probe_all(l, PROBE_SB);
	for (i = 0; i < l->n; i++)
		if (!strcmp(l->dev[i].type, "swsuspend"))
			log_warn("not resuming from the hibernation image on "
				 "%s: %s; the filesystems it had mounted are "
				 "not clean", l->dev[i].node, why);
}

/* resume_offset=: pages, decimal; 0 when absent. */
static int parse_offset(const struct cmdline *c, unsigned long long *off)
{
	const char *v = cmdline_get(c, "resume_offset");
	char *end;

	*off = 0;
	if (!v)
		return 0;
	errno = 0;
	*off = strtoull(v, &end, 10);
	if (!*v || *end || errno || *v == '-') {
		log_error("unable to use resume_offset=%.60s: not a number of "
			  "pages; not resuming", v);
		return -EINVAL;
	}
	return 0;
}

/* The device of spec, waited for as the root is; -errno after one line. */
static int find_swap(const struct cmdline *c, struct rootspec *spec,
		     struct blklist *l, int ufd, size_t *at)
{
	char reason[256];
	struct rootresult res;
	unsigned wait_s = rootfind_wait_s(c);
	int err;

	/* A missing swap must not hold the boot for ever (rootwait). */
	if (wait_s == ROOTFIND_FOREVER)
		wait_s = MODULES_WAIT_S;
	spec->role = "resume";
	err = rootfind_locate(spec, l, ufd, wait_s, &res);
	if (err == -ENOTUNIQ)
		log_error("unable to use resume=%s: %zu devices match: %s and "
			  "%s; not resuming", spec->text,
			  rootspec_count(spec, l->dev, l->n),
			  l->dev[res.index].node, l->dev[res.other].node);
	else if (err)
		log_error("unable to find resume=%s: %s (%zu devices probed, "
			  "waited %llu s); booting without resuming",
			  spec->text, rootspec_absent(spec, reason,
						     sizeof(reason)),
			  res.probed, (unsigned long long)
			  ((res.waited_us + 500000) / 1000000));
	*at = res.index;
	return err;
}

/* Hand d to the kernel; returns only when it did not resume. */
static void resume_from(const struct blkdev *d, const char *text,
			unsigned long long off)
{
	char val[48], offtext[48] = "";
	int err;

	if (access(SYS_RESUME, W_OK)) {
		log_error("unable to resume from %s: this kernel cannot (no %s: "
			  "no CONFIG_HIBERNATION, or nohibernate, or locked "
			  "down); booting the root", d->node, SYS_RESUME);
		return;
	}
	if (off)
		snprintf(offtext, sizeof(offtext), ", resume_offset=%llu", off);
	log_info("resuming from the hibernation image on %s (resume=%s, "
		 "%u:%u%s)", d->node, text, d->major, d->minor, offtext);
	snprintf(val, sizeof(val), "%llu\n", off);
	if (off && (err = write_sys(SYS_RESUME_OFFSET, val))) {
		log_error("unable to write %llu to %s: %s; booting the root",
			  off, SYS_RESUME_OFFSET, errtext(-err));
		return;
	}
	snprintf(val, sizeof(val), "%u:%u\n", d->major, d->minor);
	err = write_sys(SYS_RESUME, val);
	/* Back here: the kernel did not restore the image. */
	log_error("the kernel did not resume from %s%s%s: the image is "
		  "dropped (see the kernel's PM: lines); booting the root",
		  d->node, err ? ": " : "", err ? errtext(-err) : "");
}

void resume_boot(const struct cmdline *c, struct blklist *l, int ufd)
{
	const char *given = cmdline_get(c, "resume");
	const char *why = must_not(c);
	char reason[256];
	struct rootspec spec;
	struct mountent m;
	unsigned long long off;
	const struct blkdev *d;
	size_t at;
	int img;

	/*
	 * Not even resume='s swap is looked for by the root's path: that
	 * would open a LUKS container (its passphrase asked) in a rescue
	 * boot, and wait for a swap not resumed from.
	 */
	if (why) {
		scan_images(l, ufd, why);
		return;
	}
	if (!given || !strcmp(given, "none"))	/* initramfs-tools' none */
		return;
	if (mounts_find(NEWROOT, &m) == 0) {
		log_warn("not resuming from resume=%.200s: %s is mounted "
			 "already", given, NEWROOT);
		return;
	}
	if (rootspec_parse(given, &spec, reason, sizeof(reason))) {
		log_error("unable to parse resume=%s: %s; not resuming",
			  spec.text, reason);
		return;
	}
	if (parse_offset(c, &off) || find_swap(c, &spec, l, ufd, &at))
		return;
	d = &l->dev[at];
	img = image_at(d->node, off);
	if (img < 0) {
		log_error("unable to read the swap header of %s (resume=%s): "
			  "%s; not resuming", d->node, spec.text,
			  errtext(-img));
		return;
	}
	if (!img && !off && strcmp(d->type, "swap") &&
	    strcmp(d->type, "swsuspend")) {
		log_error("unable to resume from %s (resume=%s): it holds %s, "
			  "not a swap (a swap file needs resume_offset=); "
			  "booting the root", d->node, spec.text,
			  d->type[0] ? d->type : "nothing blkid knows");
		return;
	}
	if (!img) {
		log_info("no hibernation image on %s (resume=%s): booting the "
			 "root", d->node, spec.text);
		return;
	}
	resume_from(d, spec.text, off);
}
