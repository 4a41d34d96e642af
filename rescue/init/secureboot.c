// SPDX-License-Identifier: GPL-2.0
/*
 * secureboot.c: whether the firmware enforces Secure Boot and how the
 * kernel is locked down, for rescue-ls's account and for the line that
 * names a module the kernel refuses.
 *
 * Under Secure Boot a distribution kernel locks itself down: it loads
 * only modules signed with a key it trusts, and refuses hibernation and
 * /dev/mem.  A rescue shell that does not say so leaves its user
 * guessing why insmod fails.  The two facts are in filesystems nobody
 * mounted yet in an initramfs (efivarfs, securityfs): each is mounted
 * read-only for the one read and unmounted at once, so that nothing of
 * it reaches the root's /sys and no firmware variable can be written.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "readfile.h"
#include "rescue-init.h"

#define EFIVARS_DIR	"/sys/firmware/efi/efivars"
/* EFI_GLOBAL_VARIABLE's SecureBoot: 4 bytes of attributes, then 0 or 1. */
#define SECUREBOOT_VAR	EFIVARS_DIR "/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"
/*
 * What the kernel's EFI stub read from the same variable, in the zero
 * page (Documentation/arch/x86/zero-page.rst: secure_boot at 0x1ec, 3
 * when enabled): efivarfs is a module in Debian's kernels, which an
 * image seldom ships.
 */
#define BOOT_PARAMS		"/sys/kernel/boot_params/data"
#define BOOT_PARAMS_SECURE_BOOT	0x1ec
#define EFI_SECUREBOOT_ENABLED	3
#define SECURITYFS_DIR	"/sys/kernel/security"
#define LOCKDOWN_FILE	SECURITYFS_DIR "/lockdown"

/*
 * Read PATH (at most SIZE - 1 bytes) from the filesystem TYPE on DIR,
 * mounted for this read if nothing was there: 0 or -errno.
 */
static int read_pseudo(const char *type, const char *dir, const char *path,
		       char *buf, size_t size, size_t *len)
{
	int err;

	err = readfile_into(path, buf, size, len);
	if (err != -ENOENT)
		return err;
	if (mount(type, dir, type, MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  NULL))
		return -errno;
	err = readfile_into(path, buf, size, len);
	if (umount2(dir, MNT_DETACH))
		log_debug("unable to unmount %s from %s: %s", type, dir,
			  errtext(errno));
	return err;
}

/* 1 when the firmware enforces Secure Boot, 0 when not, -ENODEV on BIOS. */
static int secureboot_enforced(void)
{
	char buf[BOOT_PARAMS_SECURE_BOOT + 2];
	struct stat st;
	size_t len;
	int err;

	if (stat("/sys/firmware/efi", &st))
		return -ENODEV;
	err = read_pseudo("efivarfs", EFIVARS_DIR, SECUREBOOT_VAR, buf,
			  sizeof(buf), &len);
	if (!err)
		return len >= 5 && buf[4] == 1;
	err = readfile_into(BOOT_PARAMS, buf, sizeof(buf), &len);
	if (err)
		return err;
	if (len <= BOOT_PARAMS_SECURE_BOOT)
		return -EINVAL;
	return buf[BOOT_PARAMS_SECURE_BOOT] == EFI_SECUREBOOT_ENABLED;
}

/*
 * The kernel's lockdown mode ("none", "integrity", "confidentiality")
 * into MODE: 0, or -errno (-ENOENT: a kernel without the lockdown LSM).
 */
static int secureboot_lockdown(char *mode, size_t size)
{
	char buf[64], *open, *close;
	int err;

	err = read_pseudo("securityfs", SECURITYFS_DIR, LOCKDOWN_FILE, buf,
			  sizeof(buf), NULL);
	if (err)
		return err;
	/* "none [integrity] confidentiality": the bracketed one is set. */
	open = strchr(buf, '[');
	close = open ? strchr(open, ']') : NULL;
	if (!close)
		return -EINVAL;
	snprintf(mode, size, "%.*s", (int)(close - open - 1), open + 1);
	return 0;
}

/* Whether the kernel is locked down, its mode (or "") into MODE. */
static bool locked_down(char *mode, size_t size)
{
	*mode = '\0';
	return !secureboot_lockdown(mode, size) && strcmp(mode, "none");
}

/* rescue-ls's line, on an EFI machine or a locked-down kernel. */
void secureboot_report(devtable_line_fn *fn, void *ctx)
{
	char mode[32], line[256];
	int sb = secureboot_enforced();
	bool locked = locked_down(mode, sizeof(mode));

	if (sb < 0 && sb != -ENODEV)
		snprintf(line, sizeof(line), "Secure Boot: unknown (%s)",
			 errtext(-sb));
	else
		snprintf(line, sizeof(line), "Secure Boot: %s",
			 sb == -ENODEV ? "none (booted by BIOS)" :
			 sb ? "on" : "off");
	if (locked)
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
			 "; the kernel is locked down (%s): it loads only modules signed by a key it trusts, no hibernation, no /dev/mem",
			 mode);
	else if (*mode)
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
			 "; lockdown: none");
	if (sb == -ENODEV && !locked)
		return;	/* a BIOS machine: nothing to say */
	fn(ctx, line);
}

/*
 * Why finit_module() failed with ERR, in words for the user: a module
 * refused for its signature says so, and says why the kernel asked.
 */
const char *secureboot_module_error(int err)
{
	char mode[32];

	switch (err) {
	case EKEYREJECTED:
		if (locked_down(mode, sizeof(mode)))
			return "the kernel is locked down (Secure Boot) and loads only modules signed by a key it trusts: this one is unsigned or signed by another key (EKEYREJECTED)";
		return "the kernel wants a valid signature (module.sig_enforce) and this module has none it trusts (EKEYREJECTED)";
	case EBADMSG:
		return "its signature is malformed (EBADMSG)";
	case ENOKEY:
		return "it is signed by a key the kernel does not have (ENOKEY)";
	case EPERM:	/* lockdown without module.sig_enforce */
		if (locked_down(mode, sizeof(mode)))
			return "the kernel is locked down (Secure Boot) and loads only modules signed by a key it trusts: this one is unsigned or signed by another key (EPERM)";
		break;
	}
	return errtext(err);
}
