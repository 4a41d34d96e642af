/* SPDX-License-Identifier: GPL-2.0 */
/*
 * options.h: mkrescue's command line, parsed apart from main() so that
 * a harness (tests/fuzz/fuzz_options.c) can call parse_options() without
 * writing an image.
 */
#ifndef MKRESCUE_OPTIONS_H
#define MKRESCUE_OPTIONS_H

#include "mkrescue.h"

/*
 * --storage, --no-storage, or neither: on with -k or --kmoddir; the same
 * for --disk-tools, --no-disk-tools.
 */
enum options_storage {
	OPTIONS_STORAGE_DEFAULT,
	OPTIONS_STORAGE_ON,
	OPTIONS_STORAGE_OFF,
};

struct options {
	const char *output;
	const char *init, *busybox, *e2fsck;
	bool e2fsck_given, e2fsck_off;
	const char *kver, *kmoddir, *module_list;
	bool module_list_given, hostonly;
	enum options_storage storage, disk_tools;
	enum options_storage clevis;	/* --clevis, --no-clevis (clevis.c) */
	const char *ssh_keys, *ssh_host_key;	/* --ssh-authorized-keys */
	/* initramfs-tools' conf.d for RESUME=; NULL: the host's with -k */
	const char *resume_conf;
	/* Without --ssh-host-key: the persistent key, made there once. */
	const char *ssh_default_host_key;
	const char *keymap;	/* --keymap: NAME, FILE or us */
	const char *firmware_dir;	/* --firmware-dir */
	/* --microcode-dir, else the firmware directory's; --no-microcode */
	const char *microcode_dir;
	enum options_storage microcode;
	const char **add, **include;
	size_t nadd, ninclude;
	struct image_options image;
	const char *version;	/* for --version */
	const char *crypttab;	/* --crypttab; NULL: the host's with --hostonly */
	/* --rescue-password-hash, --rescue-password-file, --lock-shell */
	const char *rescue_pw_hash, *rescue_pw_file;
	bool lock_shell;
	/* --tpm2, --no-tpm2; default: with -k, if the crypttab names a TPM2 */
	enum options_storage tpm2;
};

/*
 * ARGV into O, which holds the defaults (--help shows them).  1 when
 * the program is done (--help, --version), 0 to go on, -EINVAL on a
 * usage error (said in one line), or -ENOMEM.  Can be called again.
 */
int parse_options(int argc, char **argv, struct options *o);
void options_free(struct options *o);

#endif
