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
 * crypttab: the image's /etc/crypttab (mkrescue --crypttab, dracut's
 * crypt module under hostonly; parsed by rescue/lib/crypttab.c) names
 * the container whose device is its SOURCE, as the booted system's
 * fstab and systemd-cryptsetup expect it (vda3_crypt), and gives its
 * options: discard (--allow-discards), readonly, header= (a detached
 * header in the image: its data device, seen by device_seen(), has no
 * LUKS signature), a key file in the image.  rd.luks.name=UUID=NAME
 * names one too (before crypttab), rd.luks.options=[UUID=]OPTIONS
 * gives the options of a container crypttab does not list.  An entry
 * with initramfs (Debian) or x-initrd.attach (systemd) is opened even
 * when rd.luks.uuid= does not name it.  keyscript= is refused with a
 * line, and the passphrase asked instead: a keyscript runs a shell
 * program of the root's cryptsetup package, and the one most used,
 * decrypt_keyctl, does what the kept passphrase does here.
 *
 * One passphrase for all: the last one typed that opened a container
 * is tried on each container that then waits for a passphrase, before
 * asking for its own (Debian's decrypt_keyctl habit).  It stays in PID
 * 1's memory only, gone with the exec of the root's init.
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

#include "crypttab.h"
#include "luksclevis.h"
#include "lukskey.h"
#include "luksprompt.h"
#include "lukstpm2.h"
#include "readfile.h"
#include "storage.h"

#define LUKS_MAX	16
#define LUKS_UUIDS_MAX	16
#define LUKS_KEYS_MAX	8
#define LUKS_TRIES	3
#define LUKS_KEY_MAX	8192	/* cryptsetup's own default is larger */
#define LUKS_PASS_MAX	512	/* cryptsetup's interactive limit */
#define KEY_MOUNT	"/run/rescue-luks-key"
#define CRYPTSETUP_BAD_KEY	2	/* "No key available with this ..." */
#define LUKS_CRYPTTAB	"/etc/crypttab"
#define LUKS_CRYPTTAB_MAX	32

/*
 * L_ASK_AGAIN: its prompt failed; asked again at the next attempt.
 * L_CLASH: another device has its UUID; looked at again then too.
 */
enum luks_state { L_NEW, L_WAIT_KEY, L_OPEN, L_FAILED, L_SKIPPED,
		  L_ASK_AGAIN, L_CLASH };

struct luks {
	const struct crypttab_entry *opt;	/* its options, or NULL */
	struct blkdev dev;		/* as probed, for LUKSDEV matching */
	int version;			/* 1 or 2 */
	enum luks_state state;
	int key;			/* the rd.luks.key it waits for */
	char name[64], node[80];	/* vda2, /dev/vda2 */
	char uuid[140];			/* escaped for messages */
	char dmname[CRYPTTAB_NAME_MAX];	/* luks-UUID, or crypttab's name */
	char from[48];			/* what named it: "/etc/crypttab line 2" */
	char dm[32];			/* dm-0 once open */
	char why[200];
};

static struct luks cont[LUKS_MAX];
static size_t ncont;
static const char *only[LUKS_UUIDS_MAX];	/* rd.luks.uuid= */
static size_t nonly;
static struct lukskey keys[LUKS_KEYS_MAX];	/* rd.luks.key= */
static size_t nkeys;
static unsigned prompt_timeout_s;	/* 0: wait forever */
static struct crypttab_entry tab[LUKS_CRYPTTAB_MAX];	/* /etc/crypttab */
static size_t ntab;
static struct {
	char uuid[64], name[CRYPTTAB_NAME_MAX];
} names[LUKS_UUIDS_MAX];			/* rd.luks.name= */
static size_t nnames;
static struct {
	char uuid[64];				/* "": every container */
	struct crypttab_entry o;
} opts[LUKS_UUIDS_MAX];				/* rd.luks.options= */
static size_t nopts;
static char kept[LUKS_PASS_MAX];	/* the passphrase that opened one */
static size_t kept_len;
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

static void bad_line(void *ctx, int no, const char *why)
{
	(void)ctx;
	log_warn("luks: %s line %d ignored: %s", LUKS_CRYPTTAB, no, why);
}

/* The image's crypttab, its entries' devices checked as root= specs. */
static void read_crypttab(const struct cmdline *c)
{
	struct rootspec spec;
	char *text, why[200];
	size_t i, n;
	int err;

	ntab = 0;
	if (!cmdline_flag(c, "rd.luks.crypttab", true)) {
		log_info("luks: %s not read: rd.luks.crypttab=0", LUKS_CRYPTTAB);
		return;
	}
	err = readfile_alloc(LUKS_CRYPTTAB, 1 << 20, &text, NULL);
	if (err) {
		if (err != -ENOENT)
			log_warn("luks: unable to read %s: %s", LUKS_CRYPTTAB,
				 errtext(-err));
		return;
	}
	n = crypttab_parse(text, tab, ARRAY_SIZE(tab), bad_line, NULL);
	free(text);
	for (i = 0; i < n; i++) {
		if (rootspec_parse(tab[i].source, &spec, why, sizeof(why))) {
			log_warn("luks: %s line %d (%s) ignored: its device "
				 "%s: %s", LUKS_CRYPTTAB, tab[i].line,
				 tab[i].name, tab[i].source, why);
			continue;
		}
		tab[ntab++] = tab[i];
	}
}

/* rd.luks.name=UUID=NAME and rd.luks.options=[UUID=]OPTIONS. */
static void read_params(const struct cmdline *c)
{
	const char *v[LUKS_UUIDS_MAX];
	char why[200];
	size_t i, n;

	nnames = nopts = 0;
	n = cmdline_get_all(c, "rd.luks.name", v, ARRAY_SIZE(v));
	for (i = 0; i < n; i++) {
		if (v[i] && !crypttab_luks_name(v[i], names[nnames].uuid,
				sizeof(names[0].uuid), names[nnames].name,
				sizeof(names[0].name), why, sizeof(why)))
			nnames++;
		else
			log_warn("luks: rd.luks.name=%s ignored: %s",
				 v[i] ? v[i] : "", v[i] ? why : "no value");
	}
	n = cmdline_get_all(c, "rd.luks.options", v, ARRAY_SIZE(v));
	for (i = 0; i < n; i++) {
		if (v[i] && !crypttab_luks_options(v[i], opts[nopts].uuid,
				sizeof(opts[0].uuid), &opts[nopts].o, why,
				sizeof(why)))
			nopts++;
		else
			log_warn("luks: rd.luks.options=%s ignored: %s",
				 v[i] ? v[i] : "", v[i] ? why : "no value");
	}
}

static bool luks_setup(const struct cmdline *c)
{
	const char *specs[LUKS_KEYS_MAX];
	char why[256];
	size_t i, n;

	if (!cmdline_flag(c, "rd.luks", true))
		return false;
	prompt_timeout_s = prompt_timeout(c);
	read_crypttab(c);
	lukstpm2_setup(c);
	read_params(c);
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

/* The name rd.luks.name= gives the container UUID, or NULL. */
static const char *name_given(const char *uuid)
{
	size_t i;

	for (i = 0; i < nnames; i++)
		if (!strcasecmp(names[i].uuid, uuid))
			return names[i].name;
	return NULL;
}

/*
 * rd.luks.uuid=: "luks-" dropped, matched as a part, any case.  Also
 * a container rd.luks.name= names, or whose crypttab entry says
 * initramfs or x-initrd.attach.
 */
static bool wanted(const struct luks *x, const char *uuid)
{
	const char *u;
	size_t i;

	if (!nonly || name_given(uuid) ||
	    (x->opt && x->opt->flags & (CT_INITRAMFS | CT_ATTACH)))
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
	char *argv[16], *header = x->opt && x->opt->header[0] ?
				 (char *)x->opt->header : NULL;
	bool ro = readonly_strict() || (x->opt &&
					x->opt->flags & CT_READONLY);
	bool discard = x->opt && x->opt->flags & CT_DISCARD;
	int argc = 0, r;

	argv[argc++] = "cryptsetup";
	argv[argc++] = "open";
	argv[argc++] = "--type";
	argv[argc++] = "luks";
	if (ro)
		argv[argc++] = "--readonly";
	if (discard)
		argv[argc++] = "--allow-discards";
	if (header) {
		argv[argc++] = "--header";
		argv[argc++] = header;
	}
	/* no key: the systemd-tpm2 token, through its plugin */
	argv[argc++] = key ? "--key-file=-" : "--token-only";
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
			 "(/dev/mapper/%s)%s%s%s%s%s%s", x->node, x->version,
			 x->uuid, x->dm, x->dmname,
			 x->from[0] ? ", named by " : "", x->from,
			 discard ? ", discards allowed" : "",
			 header ? ", header " : "", header ? header : "",
			 ro ? ", read-only" : "");
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

/*
 * The key of a clevis binding (tang, sss: luksclevis.c): 0 when it
 * opened x.  QUIET: a retry while the prompt waits, said only if it
 * opens.
 */
static int clevis_open(struct luks *x, bool quiet)
{
	char key[LUKS_KEY_MAX];
	int n, r;

	n = luksclevis_key(x->node, key, sizeof(key), quiet);
	if (n < 0)
		return n;
	r = open_with(x, key, (size_t)n);
	explicit_bzero(key, sizeof(key));
	if (r == 0)
		luksclevis_opened(x->node);
	return r;
}

static int clevis_retry(void *x)
{
	return clevis_open(x, true);
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
 * layout changed; docs/decisions.md, "keymap"); what opened goes into
 * pass (LUKS_PASS_MAX), *len, for the next container that waits.
 * CRYPTSETUP_BAD_KEY when that opens nothing either, or there is
 * nothing else to try.
 */
static int retry_as_us(struct luks *x, char *pass, int *len)
{
	char us[LUKS_PASS_MAX];
	int n, r;

	n = keymap_as_us(pass, (size_t)*len, us, sizeof(us));
	if (n <= 0)
		return CRYPTSETUP_BAD_KEY;
	r = open_with(x, us, (size_t)n);
	if (r == 0) {
		memcpy(pass, us, (size_t)n);
		*len = n;
	}
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
	if (luksclevis_bound(x->node))	/* tang asked again meanwhile */
		luksprompt_retry(clevis_retry, x, LUKSCLEVIS_RETRY_S);
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
		if (n == -EALREADY) {	/* clevis_retry() opened it */
			r = 0;
			break;
		}
		if (n < 0) {
			r = n;
			no_passphrase(x, n);
			break;
		}
		r = open_with(x, pass, (size_t)n);
		if (r == CRYPTSETUP_BAD_KEY)
			r = retry_as_us(x, pass, &n);
		if (r == 0) {	/* for the next container that waits */
			memcpy(kept, pass, (size_t)n);
			kept_len = (size_t)n;
		}
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
	luksprompt_retry(NULL, NULL, 0);
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

/*
 * The passphrase that opened another container first (one passphrase
 * for all, as Debian's decrypt_keyctl keeps it), then the prompt.
 */
static int ask(struct luks *x)
{
	int r;

	if (kept_len) {
		r = open_with(x, kept, kept_len);
		if (r == 0) {
			log_info("luks: %s opened with the passphrase typed "
				 "for another container", x->node);
			note_file(RESCUE_LUKS_STATUS, "%s opened\n", x->node);
			return 0;
		}
		if (r != CRYPTSETUP_BAD_KEY) {
			x->state = L_ASK_AGAIN;
			log_error("luks: %s (UUID %s) not opened: %s", x->node,
				  x->uuid, x->why);
			return r;
		}
		log_info("luks: the passphrase typed before does not open %s "
			 "(UUID %s): asking for its own", x->node, x->uuid);
	}
	return prompt(x);
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

/*
 * crypttab's key file, if it is in the image (mkrescue does not put it
 * there by itself: --include does); 0 when it opened x.  A path with a
 * device (systemd's PATH:DEVICE) is not looked for.
 */
static int crypttab_key(struct luks *x)
{
	const char *path = x->opt ? x->opt->keyfile : "";
	char buf[LUKS_KEY_MAX];
	size_t len = 0;
	int err;

	if (path[0] != '/' || strchr(path, ':'))
		return -ENOENT;
	err = read_key("", path, buf, sizeof(buf), &len);
	if (err) {
		log_info("luks: no key file %s in this image for %s (%s): "
			 "asking for the passphrase", path, x->node, x->from);
		return err;
	}
	err = open_with(x, buf, len);
	explicit_bzero(buf, sizeof(buf));
	if (err == CRYPTSETUP_BAD_KEY)
		log_warn("luks: the key file %s opens no keyslot of %s (UUID "
			 "%s)", path, x->node, x->uuid);
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
	if (crypttab_key(x) == 0)
		return 0;
	if (lukstpm2_wanted(x->node) && lukstpm2_opened(x->node, open_with(x, NULL, 0)))
		return 0;
	if (clevis_open(x, false) == 0)
		return 0;
	return ask(x);
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
	size_t i;

	if (!x->dmname[0] && !uuid_usable(d->uuid)) {
		x->state = L_FAILED;
		snprintf(x->why, sizeof(x->why), "its UUID is not hex digits "
			 "and dashes, which luks-UUID is made of");
		log_error("luks: %s (UUID %s) left closed: %s", x->node,
			  x->uuid, x->why);
		return -EINVAL;
	}
	if (!x->dmname[0])
		snprintf(x->dmname, sizeof(x->dmname), "luks-%s", d->uuid);
	if (clashes(x, d))
		return -ENOTUNIQ;
	for (i = 0; i < ncont; i++)
		if (&cont[i] != x && cont[i].state == L_OPEN &&
		    !strcmp(cont[i].dmname, x->dmname)) {
			x->state = L_FAILED;
			snprintf(x->why, sizeof(x->why), "its name %.60s (%.40s) is "
				 "%.60s's already", x->dmname, x->from,
				 cont[i].node);
			log_error("luks: %s (UUID %s) left closed: %s", x->node,
				  x->uuid, x->why);
			return -EEXIST;
		}
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

/* The crypttab entry whose device is d, or NULL. */
static const struct crypttab_entry *entry_of(const struct blkdev *d)
{
	struct rootspec spec;
	char why[200];
	size_t i, f, o;

	for (i = 0; i < ntab; i++)
		if (!(tab[i].flags & CT_NOT_LUKS) &&
		    !rootspec_parse(tab[i].source, &spec, why, sizeof(why)) &&
		    rootspec_match(&spec, d, 1, &f, &o) == 0)
			return &tab[i];
	return NULL;
}

/* rd.luks.options= for the container UUID: its own, else everyone's. */
static const struct crypttab_entry *options_given(const char *uuid)
{
	size_t i;

	for (i = 0; i < nopts; i++)
		if (!strcasecmp(opts[i].uuid, uuid))
			return &opts[i].o;
	for (i = 0; i < nopts; i++)
		if (!opts[i].uuid[0])
			return &opts[i].o;
	return NULL;
}

/*
 * x's name and options: rd.luks.name=, else its crypttab entry e (also
 * its options), else luks-UUID (open_one()); keyscript= said here.
 */
static void configure(struct luks *x, const char *uuid,
		      const struct crypttab_entry *e)
{
	const char *name = name_given(uuid);

	x->opt = e ? e : options_given(uuid);
	if (e)
		snprintf(x->from, sizeof(x->from), "%s line %d", LUKS_CRYPTTAB,
			 e->line);
	if (name) {
		snprintf(x->dmname, sizeof(x->dmname), "%s", name);
		snprintf(x->from, sizeof(x->from), "rd.luks.name=");
	} else if (e) {
		snprintf(x->dmname, sizeof(x->dmname), "%s", e->name);
	}
	if (x->opt && x->opt->keyscript[0])
		log_warn("luks: keyscript=%s of %s (%s) refused: rescue-init "
			 "runs no keyscript; asking for the passphrase instead",
			 x->opt->keyscript, x->node,
			 e ? x->from : "rd.luks.options=");
}

/*
 * x's fields from d (its crypttab entry e, or NULL), then open it if it
 * is wanted and can be.
 */
static int take(struct luks *x, const struct blkdev *d,
		const struct crypttab_entry *e)
{
	snprintf(x->node, sizeof(x->node), "%s", d->node);
	x->dev = *d;
	x->dev.parts = NULL;
	x->dev.nparts = 0;
	configure(x, d->uuid, e);
	devtable_escape(d->uuid, x->uuid, sizeof(x->uuid));
	x->version = read_version(x->opt && x->opt->header[0] ?
				  x->opt->header : d->node);
	if (!wanted(x, d->uuid)) {
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
	r = take(x, d, entry_of(d));
	luksprompt_echo_on();
	return r;
}

/* The LUKS UUID of a header file, at 168 in LUKS1 and LUKS2 alike. */
static int header_uuid(const char *path, char *uuid, size_t size)
{
	char h[208];
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    memcmp(h, "LUKS\xba\xbe", 6))
		err = -EMEDIUMTYPE;
	close(fd);
	if (!err)
		snprintf(uuid, size, "%.40s", h + 168);
	return err;
}

/*
 * d is the data device of a crypttab entry with header=: it has no
 * LUKS signature, so no device_added() comes for it.  Opened with the
 * header file of the image, the container's UUID its header's.
 */
static void detached(const struct blkdev *d)
{
	struct rootspec spec;
	struct blkdev h;
	struct luks *x;
	char why[200];
	size_t i, f, o;
	int err;

	if (!strcmp(d->type, "crypto_LUKS") || !strncmp(d->name, "dm-", 3))
		return;
	for (i = 0; i < ntab; i++) {
		if (!tab[i].header[0] || tab[i].flags & CT_NOT_LUKS ||
		    rootspec_parse(tab[i].source, &spec, why, sizeof(why)) ||
		    rootspec_match(&spec, d, 1, &f, &o))
			continue;
		x = STORAGE_SLOT(cont, ncont, name, d->name);
		if (!x || x->state != L_NEW)
			return;
		h = *d;
		snprintf(h.type, sizeof(h.type), "crypto_LUKS");
		err = header_uuid(tab[i].header, h.uuid, sizeof(h.uuid));
		if (err) {
			snprintf(x->node, sizeof(x->node), "%s", d->node);
			x->state = L_FAILED;
			snprintf(x->why, sizeof(x->why), "its header %.80s (%s "
				 "line %d): %.60s", tab[i].header, LUKS_CRYPTTAB,
				 tab[i].line, err == -EMEDIUMTYPE ?
				 "not a LUKS header" : err == -ENOENT ?
				 "not in this image" : errtext(-err));
			log_error("luks: %s left closed: %s", d->node, x->why);
			return;
		}
		luksprompt_echo_off();
		take(x, &h, &tab[i]);
		luksprompt_echo_on();
		return;
	}
}

/*
 * dm-N names; the data device of a detached header; a key device that
 * came for a container waiting on it.
 */
static void luks_device_seen(struct blkdev *d)
{
	size_t i, f, o;
	int k;

	dm_annotate(d);
	if (ntab)
		detached(d);
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
		if (ask(&cont[i]) == 0)
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
