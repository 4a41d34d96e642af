// SPDX-License-Identifier: GPL-2.0
/* main.c: options (options.c), then gather and check everything, then write. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mkrescue.h"
#include "options.h"

#ifndef MKRESCUE_VERSION
#define MKRESCUE_VERSION "unknown"
#endif
#ifndef MKRESCUE_DEFAULT_INIT
#define MKRESCUE_DEFAULT_INIT "/usr/local/lib/devtmpfs-rescue/rescue-init"
#endif
/* Where the data files are: rescue/share/ of the tree, or installed. */
#ifndef MKRESCUE_DATADIR
#define MKRESCUE_DATADIR "/usr/local/share/devtmpfs-rescue"
#endif
#define MKRESCUE_DEFAULT_MODULE_LIST MKRESCUE_DATADIR "/modules.list"
#ifndef MKRESCUE_DEFAULT_SSH_HOST_KEY
#define MKRESCUE_DEFAULT_SSH_HOST_KEY "/etc/devtmpfs-rescue/ssh_host_ed25519_key"
#endif
#define MKRESCUE_DEFAULT_BUSYBOX "/bin/busybox"
#define MKRESCUE_DEFAULT_E2FSCK "/sbin/e2fsck.static"
#define MKRESCUE_DEFAULT_FIRMWARE_DIR "/lib/firmware"
#define MKRESCUE_DEFAULT_RESUME_CONF "/etc/initramfs-tools/conf.d"

enum { EXIT_USAGE = 2 };

/* The temporary output, removed on every way out but success. */
static char tmp_path[4096];
static volatile sig_atomic_t tmp_exists;

static void on_signal(int sig)
{
	if (tmp_exists)
		unlink(tmp_path);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* KVER names the directory in the image: one plain path component. */
static int resolve_kernel(struct options *o, char **kmoddir_alloc)
{
	if (!o->kver) {
		char *base, *end;

		*kmoddir_alloc = strdup(o->kmoddir);
		if (!*kmoddir_alloc) {
			msg_error("unable to use %s: out of memory", o->kmoddir);
			return -ENOMEM;
		}
		end = *kmoddir_alloc + strlen(*kmoddir_alloc);
		while (end > *kmoddir_alloc + 1 && end[-1] == '/')
			*--end = '\0';
		base = strrchr(*kmoddir_alloc, '/');
		o->kver = base ? base + 1 : *kmoddir_alloc;
	} else if (!o->kmoddir) {
		if (asprintf(kmoddir_alloc, "/lib/modules/%s", o->kver) < 0) {
			*kmoddir_alloc = NULL;
			msg_error("unable to use kernel %s: out of memory", o->kver);
			return -ENOMEM;
		}
		o->kmoddir = *kmoddir_alloc;
	}
	if (!*o->kver || strchr(o->kver, '/') || !strcmp(o->kver, ".") ||
	    !strcmp(o->kver, "..")) {
		msg_error("unable to use kernel version '%s': not a directory name",
			  o->kver);
		return -EINVAL;
	}
	return 0;
}

static int parse_epoch(int64_t *mtime)
{
	const char *s = getenv("SOURCE_DATE_EPOCH");
	char *end;
	unsigned long long v;

	*mtime = 0;
	if (!s || !*s)
		return 0;
	errno = 0;
	v = strtoull(s, &end, 10);
	/* newc stores 32 bits of mtime. */
	if (errno || end == s || *end || *s == '-' || v > 0xffffffffULL) {
		msg_error("unable to use SOURCE_DATE_EPOCH '%s': not a number of seconds up to 4294967295",
			  s);
		return -EINVAL;
	}
	*mtime = (int64_t)v;
	return 0;
}

/* The output's directory must exist; the image must not be a directory. */
static int check_output(const char *out, char **dir)
{
	const char *slash = strrchr(out, '/');
	struct stat st;
	int err;

	if (!*out || (slash && !slash[1])) {
		msg_error("unable to write '%s': not a file name", out);
		return -EINVAL;
	}
	*dir = !slash ? strdup(".") : slash == out ? strdup("/") :
	       strndup(out, (size_t)(slash - out));
	if (!*dir) {
		msg_error("unable to write %s: out of memory", out);
		return -ENOMEM;
	}
	if (stat(out, &st) == 0 && S_ISDIR(st.st_mode)) {
		msg_error("unable to write %s: %s", out, strerror(EISDIR));
		return -EISDIR;
	}
	if (stat(*dir, &st) < 0 || access(*dir, W_OK | X_OK) < 0) {
		err = -errno;
		msg_error("unable to write %s: %s: %s", out, *dir, strerror(-err));
		return err;
	}
	return 0;
}

static int gather(struct list *l, const struct options *o)
{
	struct modules_request req = {
		.kver = o->kver, .kmoddir = o->kmoddir,
		.module_list = o->module_list, .add = o->add, .nadd = o->nadd,
		.hostonly = o->hostonly,
	};
	/* Host paths of the dynamic programs, shared: one loader, one /lib. */
	struct hostpath hp = { 0 };
	size_t i;
	int err;

	err = layout_add(l);
	/* The root's crypttab: --crypttab, or the host's with --hostonly. */
	if (!err && (o->crypttab || o->hostonly))
		err = cryptconf_add(l, o->crypttab ? o->crypttab :
				    "/etc/crypttab", o->crypttab != NULL);
	if (!err)
		err = shelllock_add(l, o->rescue_pw_hash, o->rescue_pw_file,
				    o->lock_shell);
	if (!err)
		err = programs_add_init(l, o->init);
	if (!err)
		err = programs_add_busybox(l, o->busybox);
	if (!err && !o->e2fsck_off)
		err = programs_add_e2fsck(l, o->e2fsck, o->e2fsck_given);
	if (!err && o->kmoddir)
		err = modules_add(l, &req);
	if (!err && o->kmoddir)
		err = firmware_add(l, o->kver, o->firmware_dir, o->add, o->nadd);
	/* By default with modules: a stock kernel is a distribution's. */
	if (!err && (o->storage == OPTIONS_STORAGE_ON ||
		     (o->storage == OPTIONS_STORAGE_DEFAULT && o->kmoddir)))
		err = storage_add(l, &hp, o->storage == OPTIONS_STORAGE_ON,
				  MKRESCUE_DATADIR);
	if (!err && (o->storage == OPTIONS_STORAGE_ON ||
		     (o->storage == OPTIONS_STORAGE_DEFAULT && o->kmoddir)))
		err = multipath_add(l, &hp, MKRESCUE_DATADIR);
	if (!err && (o->disk_tools == OPTIONS_STORAGE_ON ||
		     (o->disk_tools == OPTIONS_STORAGE_DEFAULT && o->kmoddir)))
		err = disktools_add(l, &hp, o->disk_tools == OPTIONS_STORAGE_ON,
				    MKRESCUE_DATADIR);
	if (!err && (o->clevis == OPTIONS_STORAGE_ON ||
		     (o->clevis == OPTIONS_STORAGE_DEFAULT && o->kmoddir &&
		      clevis_host_uses())))
		err = clevis_add(l, &hp, o->clevis == OPTIONS_STORAGE_ON,
				 MKRESCUE_DATADIR);
	if (!err && (o->tpm2 == OPTIONS_STORAGE_ON ||
		     (o->tpm2 == OPTIONS_STORAGE_DEFAULT && o->kmoddir &&
		      tpm2_in_crypttab(o->crypttab ? o->crypttab : "/etc/crypttab"))))
		err = tpm2_add(l, &hp, o->tpm2 == OPTIONS_STORAGE_ON);
	if (!err && o->ssh_keys)
		err = ssh_add(l, &hp, o->ssh_keys, o->ssh_host_key,
			      o->ssh_default_host_key);
	hostpath_free(&hp);
	if (!err)
		err = keymap_add(l, o->keymap, o->kmoddir != NULL);
	/* The host's hibernation swap with its kernel (-k), as initramfs-tools. */
	if (!err && (o->resume_conf ? *o->resume_conf : o->kver != NULL))
		err = resume_add(l, o->resume_conf ? o->resume_conf :
				 MKRESCUE_DEFAULT_RESUME_CONF);
	for (i = 0; !err && i < o->ninclude; i++)
		err = include_add(l, o->include[i]);
	if (!err)
		err = list_finish(l);
	for (i = 0; !err && msg_verbose_on && i < l->count; i++) {
		const struct list_entry *e = &l->entries[i];

		msg_verbose("/%s%s%s (%s)", e->path, S_ISLNK(e->mode) ? " -> " : "",
			    S_ISLNK(e->mode) ? e->data : "", e->why);
	}
	return err;
}

/* Writes to a temporary file beside OUT, then renames it over OUT. */
static int write_output(const struct list *l, const struct options *o,
			const char *dir)
{
	const char *base = strrchr(o->output, '/');
	sigset_t old;
	struct stat st;
	mode_t mask;
	int fd, err = 0;

	base = base ? base + 1 : o->output;
	if ((size_t)snprintf(tmp_path, sizeof(tmp_path), "%s/.%s.XXXXXX", dir,
			     base) >= sizeof(tmp_path)) {
		msg_error("unable to write %s: path too long", o->output);
		return -ENAMETOOLONG;
	}
	signals_hold(&old);	/* tmp_exists changes with them held */
	fd = mkostemp(tmp_path, O_CLOEXEC);
	if (fd < 0)
		err = -errno;
	else
		tmp_exists = true;
	signals_release(&old);
	if (err) {
		msg_error("unable to create a temporary file in %s: %s", dir,
			  strerror(-err));
		return err;
	}
	/* An image that may hold a private key (l->secret) is its owner's
	 * only, whatever the umask; any other is 0644 less the umask. */
	mask = umask(0);
	umask(mask);
	/* EPERM: a filesystem without modes (vfat) refuses a mode it
	 * cannot represent; the fstat() below then warns. */
	if (fchmod(fd, (l->secret ? 0600 : 0644) & ~mask) < 0 && errno != EPERM) {
		err = -errno;
		msg_error("unable to set the mode of %s: %s", tmp_path, strerror(-err));
	}
	/* A filesystem without modes (vfat) ignores that: say so. */
	if (!err && l->secret && fstat(fd, &st) == 0 && (st.st_mode & 0044))
		fprintf(stderr, "mkrescue: warning: %s holds a private key (SSH "
			"host key, --include) yet others can read it (mode %04o "
			"on this filesystem): keep it where only its owner can\n",
			o->output, (unsigned)(st.st_mode & 07777));
	if (!err)
		err = image_write(l, &o->image, fd, o->output);
	if (!err && fsync(fd) < 0) {
		err = -errno;
		msg_error("unable to write %s: %s", tmp_path, strerror(-err));
	}
	if (close(fd) < 0 && !err) {
		err = -errno;
		msg_error("unable to write %s: %s", tmp_path, strerror(-err));
	}
	if (!err && rename(tmp_path, o->output) < 0) {
		err = -errno;
		msg_error("unable to rename %s to %s: %s", tmp_path, o->output,
			  strerror(-err));
	}
	signals_hold(&old);
	if (err)
		unlink(tmp_path);
	tmp_exists = false;
	signals_release(&old);
	return err;
}

int main(int argc, char **argv)
{
	struct options o = {
		.init = MKRESCUE_DEFAULT_INIT,
		.busybox = MKRESCUE_DEFAULT_BUSYBOX,
		.e2fsck = MKRESCUE_DEFAULT_E2FSCK,
		.module_list = MKRESCUE_DEFAULT_MODULE_LIST,
		.firmware_dir = MKRESCUE_DEFAULT_FIRMWARE_DIR,
		.ssh_default_host_key = MKRESCUE_DEFAULT_SSH_HOST_KEY,
		.image = { .compress = IMAGE_ZSTD },
		.version = MKRESCUE_VERSION,
	};
	struct list l = { 0 };
	char *kmoddir = NULL, *dir = NULL;
	int err, status = EXIT_FAILURE;
	const char *env = getenv("MKRESCUE_SSH_HOST_KEY");

	if (env && *env)
		o.ssh_default_host_key = env;
	err = parse_options(argc, argv, &o);
	if (err) {
		status = err > 0 ? EXIT_SUCCESS : err == -EINVAL ? EXIT_USAGE : EXIT_FAILURE;
		goto out;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	err = parse_epoch(&o.image.mtime);
	if (!err && (o.kver || o.kmoddir))
		err = resolve_kernel(&o, &kmoddir);
	if (!err)
		err = check_output(o.output, &dir);
	/* Early microcode: --microcode-dir, or by default with modules (a
	 * distribution's kernel) the firmware directory's, if it has any. */
	if (o.microcode == OPTIONS_STORAGE_ON ||
	    (o.microcode == OPTIONS_STORAGE_DEFAULT && o.kmoddir)) {
		o.image.microcode_dir = o.microcode_dir ? o.microcode_dir :
					o.firmware_dir;
		o.image.microcode_required = o.microcode_dir != NULL;
	}
	if (!err)
		err = gather(&l, &o);
	if (!err)
		err = write_output(&l, &o, dir);
	if (!err) {
		msg_verbose("wrote %s: %zu entries", o.output, l.count);
		status = EXIT_SUCCESS;
	}
out:
	list_free(&l);
	free(kmoddir);
	free(dir);
	options_free(&o);
	return status;
}
