// SPDX-License-Identifier: GPL-2.0
/*
 * storage-luks.c: LUKS1 and LUKS2 containers opened with the image's
 * cryptsetup as luks-UUID, the name dracut and systemd give them.
 * Which: each rd.luks.uuid= (with or without "luks-", a part of the
 * UUID is enough, as dracut's udev rule matches it), else every one
 * seen; rd.luks=0 turns the layer off.
 *
 * The key: a key file of rd.luks.key= (lukskey.c) that applies to the
 * container, read from the initramfs or from its key device, found the
 * way the root is and mounted read-only; else a passphrase asked on
 * /dev/console, echo off, three tries.  Either goes to cryptsetup
 * through a pipe (--key-file=-), never on its command line, never to
 * the log or a file.
 *
 * The prompt blocks the boot loop: a first, synchronous version.  It
 * takes the passphrase from whichever comes first, the console or an
 * SSH session's rescue-unlock through RESCUE_LUKS_PASS_FIFO (storage.h).
 * Uevents queue on the socket meanwhile (lost ones make rootfind.c
 * enumerate again), so disks that appear while it asks are seen after.
 * In PID 1 it serves reboot and poweroff meanwhile (a signalfd over the
 * blocked signals, handled by shell_pause()).  It gives up after
 * rd.luks.timeout= seconds (dracut's; 0, the default, waits forever),
 * or after rd.retry= with rd.shell=0, so that an unattended boot ends
 * as panic= says.  A prompt that failed (wrong passphrases, end of
 * input, no answer) is asked again at the next attempt of the boot:
 * root_wait_over() ends an attempt that did not find the root.
 *
 * The terminal (luksprompt.c): echo goes off as a container is claimed,
 * and what was typed before the prompt is discarded (TCSAFLUSH, as
 * getpass() does), with a line saying so.  A line longer than
 * cryptsetup takes is refused, the rest of it discarded.
 *
 * One LUKS UUID on two devices (a dd copy of the disk) opens neither:
 * which one would boot would depend on the probe order.
 *
 * Read-only: --readonly only in strict mode (readonly_strict()).  On
 * a plain read-only boot the mapping is writable, as dracut makes it:
 * the root is mounted ro anyway, and the booted system's remount of /
 * rw (systemd-remount-fs) needs it.  Opening writes nothing to a sound
 * header; a LUKS2 header whose second copy is damaged is repaired by
 * cryptsetup on that open, which strict mode's --readonly prevents.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lukskey.h"
#include "luksprompt.h"
#include "storage.h"

#define LUKS_MAX	16
#define LUKS_UUIDS_MAX	16
#define LUKS_KEYS_MAX	8
#define LUKS_TRIES	3
#define LUKS_KEY_MAX	8192	/* cryptsetup's own default is larger */
#define LUKS_PASS_MAX	512	/* cryptsetup's interactive limit */
#define KEY_MOUNT	"/run/rescue-luks-key"
#define CRYPTSETUP_BAD_KEY	2	/* "No key available with this ..." */

/*
 * L_ASK_AGAIN: its prompt failed; asked again at the next attempt.
 * L_CLASH: another device has its UUID; looked at again then too.
 */
enum luks_state { L_NEW, L_WAIT_KEY, L_OPEN, L_FAILED, L_SKIPPED,
		  L_ASK_AGAIN, L_CLASH };

struct luks {
	char name[64], node[80];	/* vda2, /dev/vda2 */
	struct blkdev dev;		/* as probed, for LUKSDEV matching */
	char uuid[140];			/* escaped for messages */
	char dmname[80];		/* luks-UUID */
	char dm[32];			/* dm-0 once open */
	int version;			/* 1 or 2 */
	enum luks_state state;
	int key;			/* the rd.luks.key it waits for */
	char why[200];
};

static struct luks cont[LUKS_MAX];
static size_t ncont;
static const char *only[LUKS_UUIDS_MAX];	/* rd.luks.uuid= */
static size_t nonly;
static struct lukskey keys[LUKS_KEYS_MAX];	/* rd.luks.key= */
static size_t nkeys;
static unsigned prompt_timeout_s;	/* 0: wait forever */
static char timeout_param[48];		/* what set it, for messages */

/*
 * rd.luks.timeout= (seconds, 0 for ever, dracut's); without it, an
 * unattended boot (rd.shell=0 with rd.retry=) waits no longer than
 * rd.retry= at a prompt nobody answers.
 */
static unsigned prompt_timeout(const struct cmdline *c)
{
	const char *v = cmdline_get(c, "rd.luks.timeout");
	char *end;
	long t;

	if (v) {
		t = strtol(v, &end, 10);
		snprintf(timeout_param, sizeof(timeout_param),
			 "rd.luks.timeout=%.20s", v);
		if (*v && !*end && t >= 0 && t <= 86400 * 365)
			return (unsigned)t;
		log_warn("luks: rd.luks.timeout=%s ignored: not a number of "
			 "seconds", v);
	}
	snprintf(timeout_param, sizeof(timeout_param), "rd.retry=%d with "
		 "rd.shell=0", c->retry_s);
	return !c->shell && c->retry_s > 0 ? (unsigned)c->retry_s : 0;
}

static bool luks_setup(const struct cmdline *c)
{
	const char *specs[LUKS_KEYS_MAX];
	char why[256];
	size_t i, n;

	if (!cmdline_flag(c, "rd.luks", true))
		return false;
	prompt_timeout_s = prompt_timeout(c);
	nonly = cmdline_get_all(c, "rd.luks.uuid", only, ARRAY_SIZE(only));
	n = cmdline_get_all(c, "rd.luks.key", specs, ARRAY_SIZE(specs));
	for (i = 0; i < n; i++) {
		if (!specs[i] || lukskey_parse(specs[i], &keys[nkeys], why,
					       sizeof(why))) {
			log_warn("luks: rd.luks.key=%s ignored: %s",
				 specs[i] ? specs[i] : "",
				 specs[i] ? why : "no value");
			continue;
		}
		nkeys++;
	}
	return true;
}

/* rd.luks.uuid=: "luks-" dropped, matched as a part, any case. */
static bool wanted(const char *uuid)
{
	const char *u;
	size_t i;

	if (!nonly)
		return true;
	for (i = 0; i < nonly; i++) {
		u = only[i] ? only[i] : "";
		if (!strncasecmp(u, "luks-", 5))
			u += 5;
		if (*u && strcasestr(uuid, u))
			return true;
	}
	return false;
}

/* 1 or 2 from the header ("LUKS\xba\xbe", then a big-endian u16). */
static int read_version(const char *node)
{
	unsigned char h[8];
	int fd, v = 0;

	fd = open(node, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return 0;
	if (pread(fd, h, sizeof(h), 0) == sizeof(h) &&
	    !memcmp(h, "LUKS\xba\xbe", 6))
		v = h[6] << 8 | h[7];
	close(fd);
	return v;
}

/*
 * cryptsetup open with KEY on its stdin: 0 opened, CRYPTSETUP_BAD_KEY
 * for a key that opens no keyslot, else another failure (said).
 */
static int open_with(struct luks *x, const void *key, size_t len)
{
	char *argv[10];
	int argc = 0, r;

	argv[argc++] = "cryptsetup";
	argv[argc++] = "open";
	argv[argc++] = "--type";
	argv[argc++] = "luks";
	if (readonly_strict())
		argv[argc++] = "--readonly";
	argv[argc++] = "--key-file=-";
	/* the node: cryptsetup finds UUID= only through udev's links */
	argv[argc++] = x->node;
	argv[argc++] = x->dmname;
	argv[argc] = NULL;
	r = dm_run("cryptsetup", argv, key, len, NULL, 0);
	if (r == 0) {
		if (dm_find(x->dmname, x->dm, sizeof(x->dm)))
			snprintf(x->dm, sizeof(x->dm), "?");
		x->state = L_OPEN;
		log_info("luks: opened %s (LUKS%d, UUID %s) as %s "
			 "(/dev/mapper/%s)%s", x->node, x->version, x->uuid,
			 x->dm, x->dmname,
			 readonly_strict() ? ", read-only" : "");
		return 0;
	}
	if (r == -ENOENT)
		snprintf(x->why, sizeof(x->why), "no cryptsetup in this image");
	else if (r < 0)
		snprintf(x->why, sizeof(x->why), "cryptsetup did not run: %s",
			 errtext(-r));
	else if (r != CRYPTSETUP_BAD_KEY)
		snprintf(x->why, sizeof(x->why), "cryptsetup failed (exit "
			 "status %d)", r);
	return r;
}

/* A line of what the prompt is about, for rescue-unlock and SSH logins. */
static void note_file(const char *path, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;
	FILE *f;

	/*
	 * Written aside and renamed: rescue-unlock polls the file, and
	 * must never read it truncated and not yet written (it took an
	 * empty status for the answer, and said nothing of the open).
	 */
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	mkdir(RESCUE_RUN_DIR, 0755);
	f = fopen(tmp, "we");
	if (!f)
		return;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	if (fclose(f) || rename(tmp, path))
		unlink(tmp);
}

/* What a failed luksprompt_ask() means, for the log and the device table. */
static void no_passphrase(struct luks *x, int err)
{
	if (err == -ENODATA)
		snprintf(x->why, sizeof(x->why), "no passphrase: end of input");
	else if (err == -ETIMEDOUT)
		snprintf(x->why, sizeof(x->why), "no passphrase in %u s (%s)",
			 prompt_timeout_s, timeout_param);
	else
		snprintf(x->why, sizeof(x->why), "no passphrase: %s",
			 errtext(-err));
}

/*
 * A passphrase refused as typed under the image's keymap: the same keys
 * as the kernel's US map reads them, once (a passphrase set before the
 * layout changed; docs/decisions.md, "keymap").  CRYPTSETUP_BAD_KEY
 * when that opens nothing either, or there is nothing else to try.
 */
static int retry_as_us(struct luks *x, const char *pass, size_t len)
{
	char us[LUKS_PASS_MAX];
	int n, r;

	n = keymap_as_us(pass, len, us, sizeof(us));
	if (n <= 0)
		return CRYPTSETUP_BAD_KEY;
	r = open_with(x, us, (size_t)n);
	explicit_bzero(us, sizeof(us));
	if (r == 0)
		log_warn("luks: %s opened with the keys typed read as the US "
			 "layout types them, not as %s: a passphrase set in "
			 "US (rd.vconsole.keymap=us types in US)", x->node,
			 keymap_name());
	return r;
}

/*
 * Three tries; a wrong one says so and asks again.  However it fails,
 * it is asked again at the next attempt of the boot (luks_root_wait_over()).
 */
static int prompt(struct luks *x)
{
	char pass[LUKS_PASS_MAX], question[300];
	struct lukscon con;
	int try, n, r;

	modload_rest("the passphrase prompt");	/* a USB keyboard: usbhid */
	/* then what was typed ahead goes, right before the question */
	r = luksprompt_open(&con);
	if (r < 0) {
		snprintf(x->why, sizeof(x->why), "no passphrase: /dev/console: "
			 "%s", errtext(-r));
		goto out;
	}
	for (try = 1; try <= LUKS_TRIES; try++) {
		note_file(RESCUE_LUKS_WAITING, "%s (LUKS UUID %s) waits for its "
			  "passphrase (try %d of %d)\n", x->node, x->uuid, try,
			  LUKS_TRIES);
		snprintf(question, sizeof(question), "Passphrase for %s (LUKS "
			 "UUID %s)%s: ", x->node, x->uuid,
			 try > 1 ? ", again" : "");
		log_info("luks: %s (UUID %s) waits for its passphrase on the "
			 "console, keymap %s (try %d of %d)", x->node, x->uuid,
			 keymap_name(), try, LUKS_TRIES);
		n = luksprompt_ask(&con, question, prompt_timeout_s, pass,
				   sizeof(pass));
		unlink(RESCUE_LUKS_WAITING);
		if (n == -EMSGSIZE) {
			r = n;
			snprintf(x->why, sizeof(x->why), "a passphrase longer "
				 "than %d characters", LUKS_PASS_MAX - 2);
			log_warn("luks: refused a passphrase for %s longer than "
				 "%d characters, try %d of %d", x->node,
				 LUKS_PASS_MAX - 2, try, LUKS_TRIES);
			dprintf(con.fd, "Passphrase too long for %s (over %d "
				"characters): refused, %d tries left.\n",
				x->node, LUKS_PASS_MAX - 2, LUKS_TRIES - try);
			continue;
		}
		if (n < 0) {
			r = n;
			no_passphrase(x, n);
			break;
		}
		r = open_with(x, pass, (size_t)n);
		if (r == CRYPTSETUP_BAD_KEY)
			r = retry_as_us(x, pass, (size_t)n);
		explicit_bzero(pass, sizeof(pass));
		if (r != CRYPTSETUP_BAD_KEY)
			break;
		log_warn("luks: wrong passphrase for %s (UUID %s), try %d of "
			 "%d", x->node, x->uuid, try, LUKS_TRIES);
		note_file(RESCUE_LUKS_STATUS, "wrong passphrase for %s, try %d of "
			  "%d\n", x->node, try, LUKS_TRIES);
		dprintf(con.fd, "Wrong passphrase for %s: %d tries left.\n",
			x->node, LUKS_TRIES - try);
		snprintf(x->why, sizeof(x->why), "%d wrong passphrases",
			 LUKS_TRIES);
	}
	explicit_bzero(pass, sizeof(pass));
	luksprompt_close(&con);
out:
	if (r) {
		x->state = L_ASK_AGAIN;
		log_error("luks: %s (UUID %s) not opened: %s", x->node,
			  x->uuid, x->why);
		note_file(RESCUE_LUKS_STATUS, "%s not opened: %s\n", x->node, x->why);
	} else {
		note_file(RESCUE_LUKS_STATUS, "%s opened\n", x->node);
	}
	unlink(RESCUE_LUKS_PASS_FIFO);
	return r;
}

/* The key file at path below root ("" for the initramfs). */
static int read_key(const char *root, const char *path, char *buf,
		    size_t size, size_t *len)
{
	char full[LUKSKEY_PATH_MAX + 64];
	ssize_t n;
	int fd, err = 0;

	snprintf(full, sizeof(full), "%s%s", root, path);
	fd = open(full, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size);
	if (n < 0)
		err = -errno;
	else if ((size_t)n == size)
		err = -EFBIG;
	else
		*len = (size_t)n;
	close(fd);
	return err;
}

/* The key of k from the key device kd, mounted read-only meanwhile. */
static int read_key_on(const struct blkdev *kd, const struct lukskey *k,
		       char *buf, size_t size, size_t *len)
{
	unsigned long flags = MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC;
	int err;

	if (!kd->type[0])
		return -EMEDIUMTYPE;
	if (mkdir(KEY_MOUNT, 0700) && errno != EEXIST)
		return -errno;
	modload_fs(kd->type);
	/*
	 * No journal replay either: a key device is only read.  No second
	 * try without the option, which would replay a dirty journal
	 * (review L3): a mount that fails is the error to report.
	 */
	if (mount(kd->node, KEY_MOUNT, kd->type, flags,
		  readonly_noreplay(kd->type)))
		return -errno;
	err = read_key(KEY_MOUNT, k->path, buf, size, len);
	if (umount2(KEY_MOUNT, 0))
		log_warn("luks: unable to unmount %s from %s: %s", kd->node,
			 KEY_MOUNT, errtext(errno));
	return err;
}

/* Whether key i is for x: no LUKSDEV, or LUKSDEV names it. */
static bool key_applies(const struct luks *x, size_t i)
{
	size_t f, o;

	return !keys[i].has_luksdev ||
	       rootspec_match(&keys[i].luksdev, &x->dev, 1, &f, &o) == 0;
}

/* Try key i on x from kd (NULL: the initramfs); 0 when it opened. */
static int try_key(struct luks *x, size_t i, const struct blkdev *kd)
{
	char buf[LUKS_KEY_MAX];
	size_t len = 0;
	int err;

	err = kd ? read_key_on(kd, &keys[i], buf, sizeof(buf), &len) :
		   read_key("", keys[i].path, buf, sizeof(buf), &len);
	if (err) {
		log_warn("luks: no key %s%s%s for %s: %s", keys[i].path,
			 kd ? " on " : " in the initramfs", kd ? kd->node : "",
			 x->node, err == -EFBIG ? "larger than 8 KiB" :
			 err == -EMEDIUMTYPE ? "no filesystem" :
			 errtext(-err));
		return err;
	}
	err = open_with(x, buf, len);
	explicit_bzero(buf, sizeof(buf));
	if (err == CRYPTSETUP_BAD_KEY)
		log_warn("luks: the key %s%s%s opens no keyslot of %s (UUID "
			 "%s)", keys[i].path, kd ? " on " : "",
			 kd ? kd->node : "", x->node, x->uuid);
	return err;
}

/* The device of spec among those there now, probed as the root is. */
static int find_keydev(const struct rootspec *spec, struct blklist *l,
		       size_t *at)
{
	size_t other;

	if (blk_enumerate(l, "/sys/class/block"))
		return -ENODEV;
	probe_all(l, PROBE_SB);
	return rootspec_match(spec, l->dev, l->n, at, &other);
}

/*
 * The keys that apply, in order; a key device not there yet leaves x
 * waiting for it (device_seen() sees it come, root_wait_over() gives
 * up on it).
 * Then the passphrase.
 */
static int unlock(struct luks *x, size_t from)
{
	struct blklist l = { 0 };
	size_t i, at;
	int r;

	for (i = from; i < nkeys; i++) {
		if (!key_applies(x, i))
			continue;
		if (!keys[i].has_keydev) {
			if (try_key(x, i, NULL) == 0)
				return 0;
			continue;
		}
		r = find_keydev(&keys[i].keydev, &l, &at);
		if (r == 0)
			r = try_key(x, i, &l.dev[at]);
		blk_free(&l);
		if (r == 0)
			return 0;
		if (r == -ENODEV || r == -ENXIO) {
			x->state = L_WAIT_KEY;
			x->key = (int)i;
			snprintf(x->why, sizeof(x->why), "waiting for its key "
				 "device %s", keys[i].keydev.text);
			log_info("luks: %s (UUID %s) waits for its key device "
				 "%s", x->node, x->uuid, keys[i].keydev.text);
			return 0;
		}
	}
	return prompt(x);
}

/*
 * A UUID a /dev/mapper name can be made of: hex digits and dashes, as
 * cryptsetup writes it.  The header's field is the disk's to fill.
 */
static bool uuid_usable(const char *uuid)
{
	return uuid[0] && strlen(uuid) <= 40 &&
	       !uuid[strspn(uuid, "0123456789abcdefABCDEF-")];
}

static void clash(struct luks *x, const char *twin)
{
	x->state = L_CLASH;
	snprintf(x->why, sizeof(x->why), "%s has the same LUKS UUID", twin);
}

/*
 * Another device with x's LUKS UUID, among the containers seen or the
 * devices there now: a copy of one disk (dd, a USB backup).  Which one
 * opens as luks-UUID must not depend on the probe order: neither does,
 * with one line for the pair, as for two filesystems matching root=.
 * A copy that comes after the original opened is left closed.
 */
static bool clashes(struct luks *x, const struct blkdev *d)
{
	char twin[80];
	size_t i;

	for (i = 0; i < ncont; i++) {
		struct luks *y = &cont[i];

		if (y == x || strcmp(y->uuid, x->uuid))
			continue;
		if (y->state == L_CLASH) {	/* said when it came */
			clash(x, y->node);
			return true;
		}
		if (y->state == L_OPEN) {
			log_error("luks: %s has the LUKS UUID %s of %s, opened "
				  "already as %s: left closed (a copy of one "
				  "disk?)", x->node, x->uuid, y->node, y->dm);
			clash(x, y->node);
			return true;
		}
	}
	if (storage_find_twin(d, twin, sizeof(twin)))
		return false;
	log_error("luks: %s and %s have one LUKS UUID %s (a copy of one "
		  "disk?): neither is opened; detach the copy, or give it a "
		  "UUID of its own (cryptsetup luksUUID --uuid=NEW)", x->node,
		  twin, x->uuid);
	clash(x, twin);
	return true;
}

/* Open x, of d, if it can be and is the only one of its UUID. */
static int open_one(struct luks *x, const struct blkdev *d)
{
	char path[64];

	if (!uuid_usable(d->uuid)) {
		x->state = L_FAILED;
		snprintf(x->why, sizeof(x->why), "its UUID is not hex digits "
			 "and dashes, which luks-UUID is made of");
		log_error("luks: %s (UUID %s) left closed: %s", x->node,
			  x->uuid, x->why);
		return -EINVAL;
	}
	snprintf(x->dmname, sizeof(x->dmname), "luks-%s", d->uuid);
	if (clashes(x, d))
		return -ENOTUNIQ;
	if (dm_find(x->dmname, x->dm, sizeof(x->dm)) == 0) {
		x->state = L_OPEN;	/* by an earlier run of /init */
		return 0;
	}
	if (dm_ready()) {
		x->state = L_FAILED;
		snprintf(x->why, sizeof(x->why), "no device-mapper");
		return -ENODEV;
	}
	/* before any prompt: a passphrase asked for nothing */
	if (dm_tool("cryptsetup", path, sizeof(path))) {
		x->state = L_FAILED;
		snprintf(x->why, sizeof(x->why), "no cryptsetup in this image");
		return -ENOENT;
	}
	modload_alias("dm_crypt");
	return unlock(x, 0);
}

/* x's fields from d, then open it if it is wanted and can be. */
static int take(struct luks *x, const struct blkdev *d)
{
	snprintf(x->name, sizeof(x->name), "%s", d->name);
	snprintf(x->node, sizeof(x->node), "%s", d->node);
	x->dev = *d;
	x->dev.parts = NULL;
	x->dev.nparts = 0;
	devtable_escape(d->uuid, x->uuid, sizeof(x->uuid));
	x->version = read_version(d->node);
	if (!wanted(d->uuid)) {
		x->state = L_SKIPPED;
		snprintf(x->why, sizeof(x->why), "not in rd.luks.uuid");
		log_info("luks: %s left closed: its UUID %s is not in "
			 "rd.luks.uuid", x->node, x->uuid);
		return 0;
	}
	return open_one(x, d);
}

static int luks_device_added(const struct blkdev *d)
{
	struct luks *x = STORAGE_SLOT(cont, ncont, name, d->name);
	int r;

	if (!x)
		return -ENOSPC;
	if (x->state != L_NEW)
		return 0;	/* taken already */
	luksprompt_echo_off();
	r = take(x, d);
	luksprompt_echo_on();
	return r;
}

/* dm-N names; a key device that came for a container waiting on it. */
static void luks_device_seen(struct blkdev *d)
{
	size_t i, f, o;
	int k;

	dm_annotate(d);
	for (i = 0; i < ncont; i++) {
		k = cont[i].key;
		if (cont[i].state != L_WAIT_KEY ||
		    rootspec_match(&keys[k].keydev, d, 1, &f, &o))
			continue;
		cont[i].state = L_NEW;
		if (try_key(&cont[i], (size_t)k, d))
			unlock(&cont[i], (size_t)k + 1);
	}
}

static void luks_device_removed(const char *name)
{
	size_t i;

	for (i = 0; i < ncont; i++)
		if (cont[i].state == L_OPEN && !strcmp(cont[i].dm, name)) {
			cont[i].state = L_FAILED;
			snprintf(cont[i].why, sizeof(cont[i].why),
				 "%s was closed", name);
		}
}

/* Key devices that never came: the passphrase instead. */
static int luks_root_wait_over(void)
{
	int n = 0;
	size_t i;

	for (i = 0; i < ncont; i++) {
		if (cont[i].state != L_WAIT_KEY)
			continue;
		log_warn("luks: no key device %s for %s (UUID %s): asking for "
			 "the passphrase", keys[cont[i].key].keydev.text,
			 cont[i].node, cont[i].uuid);
		if (prompt(&cont[i]) == 0)
			n++;
	}
	/*
	 * The attempt ends without its root: at the next one (the shell's
	 * exit, rd.retry=), a failed prompt asks again, and a UUID on two
	 * devices is looked at again (the copy may be gone).
	 */
	for (i = 0; i < ncont; i++)
		if (cont[i].state == L_ASK_AGAIN || cont[i].state == L_CLASH)
			cont[i].state = L_NEW;
	return n;
}

/* "vda: LUKS2, UUID u: opened as dm-0 (/dev/mapper/luks-u)". */
static void luks_report(devtable_line_fn *fn, void *ctx)
{
	char line[512];
	size_t i;

	for (i = 0; i < ncont; i++) {
		const struct luks *x = &cont[i];

		if (x->state == L_OPEN)
			snprintf(line, sizeof(line), "%s: LUKS%d, UUID %s: "
				 "opened as %s (/dev/mapper/%s)", x->name,
				 x->version, x->uuid, x->dm, x->dmname);
		else
			snprintf(line, sizeof(line), "%s: LUKS%d, UUID %s: "
				 "not opened: %s", x->name, x->version,
				 x->uuid, x->why[0] ? x->why : "not yet");
		fn(ctx, line);
	}
}

const struct storage_layer storage_luks = {
	.setup = luks_setup,
	.device_added = luks_device_added,
	.device_removed = luks_device_removed,
	.root_wait_over = luks_root_wait_over,
	.device_seen = luks_device_seen,
	.report = luks_report,
};
