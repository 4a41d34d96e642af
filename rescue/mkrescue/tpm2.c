// SPDX-License-Identifier: GPL-2.0
/*
 * tpm2.c: --tpm2: what the image's cryptsetup needs to open a LUKS2
 * container through its systemd-tpm2 token (rescue-init's
 * storage/lukstpm2.c): systemd's token plugin, with its libraries, and
 * the TPM2 Software Stack libraries that systemd dlopen()s at run time,
 * which no DT_NEEDED names and the closure cannot see: they are added
 * by name, each with its own closure.
 *
 * On by default with -k when the root's crypttab (--crypttab, else the
 * host's) has an entry with tpm2-device=, as systemd-cryptenroll's
 * users write it: the plugin and libsystemd-shared weigh some MiB, not
 * to be in every image.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "mkrescue.h"

#if defined(__x86_64__)
#define TPM2_TRIPLET	"x86_64-linux-gnu"
#elif defined(__aarch64__)
#define TPM2_TRIPLET	"aarch64-linux-gnu"
#else
#define TPM2_TRIPLET	""
#endif

/* cryptsetup's plugin path is /lib/TRIPLET/cryptsetup (merged /usr). */
static const char *const tpm2_libdirs[] = {
	"/lib/" TPM2_TRIPLET, "/usr/lib/" TPM2_TRIPLET, "/usr/lib64", "/usr/lib",
};

/*
 * The plugin (systemd's package; cryptsetup looks for it in its
 * compiled-in LIBDIR/cryptsetup), then what systemd 252's tpm2-util.c
 * dlopen()s: esys, rc, mu, and the "device" TCTI it loads for
 * /dev/tpmrm0 (tpm2-device=auto).
 */
static const char *const tpm2_files[] = {
	"cryptsetup/libcryptsetup-token-systemd-tpm2.so",
	"libtss2-esys.so.0",
	"libtss2-rc.so.0",
	"libtss2-mu.so.0",
	"libtss2-tcti-device.so.0",
};

/* NAME in the first library directory that has it, into P. */
static int tpm2_find(const char *name, char *p, size_t size)
{
	struct stat st;
	size_t d;

	for (d = 0; d < ARRAY_SIZE(tpm2_libdirs); d++) {
		snprintf(p, size, "%s/%s", tpm2_libdirs[d], name);
		if (stat(p, &st) == 0)
			return 0;
	}
	return -ENOENT;
}

bool tpm2_in_crypttab(const char *path)
{
	struct buf text = { 0 };
	const char *line, *next;
	bool found = false;

	if (buf_read_file(&text, path))
		return false;
	for (line = text.data; line && *line && !found; line = next) {
		next = strchr(line, '\n');
		if (next)
			next++;
		line += strspn(line, " \t");
		if (*line == '#')
			continue;
		found = strstr(line, "tpm2-device=") &&
			(!next || strstr(line, "tpm2-device=") < next);
	}
	buf_free(&text);
	return found;
}

int tpm2_add(struct list *l, struct hostpath *hp, bool required)
{
	struct ldconf conf = { 0 };
	struct ldpath lp;
	char p[160];
	size_t i;
	int err;

	ldpath_init(&lp, NULL);
	err = ldconf_read_depth(&conf, "/etc/ld.so.conf", 0);
	lp.conf = &conf;
	for (i = 0; !err && i < ARRAY_SIZE(tpm2_files); i++) {
		if (tpm2_find(tpm2_files[i], p, sizeof(p))) {
			if (required) {
				msg_error("unable to ship TPM2 unlocking: no %s "
					  "in /usr/lib/%s (packages systemd, "
					  "libtss2-*)", tpm2_files[i],
					  TPM2_TRIPLET);
				err = -ENOENT;
			} else {
				msg_error("the crypttab names a TPM2 but there "
					  "is no %s: the image will ask for the "
					  "passphrase", tpm2_files[i]);
			}
			break;
		}
		err = ldpath_add_program(&lp, p);
		if (!err)
			err = hostpath_add(hp, l, p, "TPM2 token unlocking");
	}
	for (i = 0; !err && i < lp.nfiles; i++)
		err = hostpath_add(hp, l, lp.files[i].path, lp.files[i].why);
	if (!err)
		msg_verbose("tpm2: %zu libraries and loaders", lp.nfiles);
	ldpath_free(&lp);
	ldconf_free(&conf);
	return err;
}
