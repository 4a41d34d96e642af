/* SPDX-License-Identifier: GPL-2.0 */
/* mkrescue.h: private interfaces between the files of mkrescue. */
#ifndef MKRESCUE_H
#define MKRESCUE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "arraysize.h"
#include "contract.h"

/*
 * Every function below returns 0 (or a count) on success and -errno on
 * failure.  A function that fails has already printed the one line that
 * says why ("mkrescue: unable to ..."); its callers only pass the error
 * up, and main() decides that it is fatal.
 */

/* msg.c */
extern bool msg_verbose_on;
void msg_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void msg_verbose(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* buf.c: growable byte buffers and whole-file reads */
struct buf {
	char *data;
	size_t len;
	size_t cap;
};
int buf_append(struct buf *b, const void *data, size_t len);
int buf_printf(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void buf_free(struct buf *b);
/* Reads all of PATH, NUL-terminated; -errno without a message. */
int buf_read_file(struct buf *b, const char *path);
/* A list of strings *V, *N long: a copy of S's first LEN bytes added. */
int strv_push(char ***v, size_t *n, const char *s, size_t len);
void strv_free(char ***v, size_t *n);

/* signals.c: SIGINT, SIGTERM and SIGHUP held while a scratch file exists */
void signals_hold(sigset_t *old);
void signals_release(const sigset_t *old);

/* list.c: the image's entries, sorted and numbered at the end */
enum list_rank {
	LIST_WEAK,	/* implicit parent dirs, busybox applet links */
	LIST_DEFAULT,	/* the fixed layout: /etc files, /dev/console */
	LIST_OWN,	/* /init, programs, modules, --include files */
};
struct list_entry {
	char *path;		/* in the image, without a leading '/' */
	mode_t mode;		/* file type and permissions */
	char *source;		/* regular file: copy this host file, or */
	char *data;		/* contents (regular) or target (symlink) */
	uint64_t size;
	unsigned int rdev_major, rdev_minor;
	unsigned int ino;	/* assigned by list_finish() */
	enum list_rank rank;
	char *why;		/* said by --verbose and in conflicts */
	size_t seq;		/* order of addition */
};
struct list {
	struct list_entry *entries;
	size_t count, cap;
	/* It may hold a private key (an SSH host key, any --include file,
	 * such as a LUKS key file): the image is written 0600. */
	bool secret;
};
int list_add_dir(struct list *l, const char *path, mode_t perm,
		 enum list_rank rank, const char *why);
int list_add_file(struct list *l, const char *path, mode_t perm,
		  const char *source, uint64_t size, enum list_rank rank,
		  const char *why);
int list_add_data(struct list *l, const char *path, mode_t perm,
		  const void *data, size_t len, enum list_rank rank,
		  const char *why);
int list_add_symlink(struct list *l, const char *path, const char *target,
		     enum list_rank rank, const char *why);
int list_add_chardev(struct list *l, const char *path, mode_t perm,
		     unsigned int major, unsigned int minor,
		     enum list_rank rank, const char *why);
/* Sorts, resolves duplicate paths, checks parents, numbers inodes. */
int list_finish(struct list *l);
const struct list_entry *list_find(const struct list *l, const char *path);
void list_free(struct list *l);

/* elf.c */
/* Checks that PATH is an executable, statically linked ELF file. */
int elf_check_static(const char *path, const char *role, uint64_t *size);

/* elfdeps.c: PT_INTERP, DT_NEEDED, DT_RUNPATH and DT_RPATH, by libelf */
struct elfdeps {
	char *interp;		/* PT_INTERP, or NULL: static */
	char **needed;		/* DT_NEEDED, in order */
	size_t nneeded;
	char *runpath, *rpath;	/* or NULL */
	unsigned int class;	/* ELFCLASS32 or ELFCLASS64 */
	unsigned int machine;	/* EM_* */
	unsigned int type;	/* ET_EXEC, ET_DYN ... */
};
/* -ENOEXEC for what is not a well-formed ELF file; no message. */
int elfdeps_read(const char *path, struct elfdeps *d);
int elfdeps_read_mem(const void *image, size_t size, struct elfdeps *d);
void elfdeps_free(struct elfdeps *d);

/* ldconf.c: the directories of /etc/ld.so.conf, includes followed */
struct ldconf {
	char **dirs;		/* absolute, each once, in order */
	size_t count;
	/* Instead of glob() and reading (the fuzzer): each include pattern. */
	int (*include)(struct ldconf *c, const char *pattern, int depth);
};
/* An unreadable file or include is skipped, as ldconfig does: 0. */
int ldconf_read_depth(struct ldconf *c, const char *path, int depth);
/* TEXT of a file in directory BASE. */
int ldconf_parse(struct ldconf *c, const char *text, const char *base,
		 int depth);
void ldconf_free(struct ldconf *c);

/* ldpath.c: the loader and libraries a program needs, found as ld.so does */
struct ldpath_file {
	char *path;		/* on the host, as found (maybe a link) */
	char *why;
};
struct ldpath_obj;
struct ldpath {
	const char *const *dirs;	/* NULL: the host's standard ones */
	const struct ldconf *conf;	/* searched before them, or NULL */
	struct ldpath_obj *objs;	/* every ELF file read, once */
	size_t nobjs;
	struct ldpath_file *files;	/* what to ship, each path once */
	size_t nfiles;
};
/* DIRS replaces the standard directories (for tests); NULL for them. */
void ldpath_init(struct ldpath *lp, const char *const *dirs);
/* Adds the loader and the library closure of PROGRAM to lp->files. */
int ldpath_add_program(struct ldpath *lp, const char *program);
/* DIR with $ORIGIN and ${ORIGIN} replaced; -EINVAL for another $ token. */
int ldpath_expand_origin(const char *dir, const char *origin, char **out);
void ldpath_free(struct ldpath *lp);

/* hostpath.c: a host path shipped so that it resolves as on the host */
struct hostpath {
	char **added;		/* image paths already added */
	size_t count;
};
int hostpath_add(struct hostpath *hp, struct list *l, const char *path,
		 const char *why);
void hostpath_free(struct hostpath *hp);

/* layout.c: the fixed directories and /etc of every image */
int layout_add(struct list *l);

/* programs.c: /init, busybox and its applets, e2fsck */
/* The relative link target from image path PATH to TARGET; NULL: ENOMEM. */
char *programs_link_target(const char *path, const char *target);
int programs_add_init(struct list *l, const char *init);
int programs_add_busybox(struct list *l, const char *busybox);
/* E2FSCK may be missing unless REQUIRED; then 0 and nothing added. */
int programs_add_e2fsck(struct list *l, const char *e2fsck, bool required);

/* include.c: --include SRC:DST */
int include_add(struct list *l, const char *spec);

/*
 * cryptconf.c: --crypttab FILE (or the host's with --hostonly) as
 * /etc/crypttab, with the header= files it names; a missing FILE is
 * no error unless REQUIRED.
 */
int cryptconf_add(struct list *l, const char *path, bool required);

/*
 * shelllock.c: --rescue-password-hash HASH or --rescue-password-file
 * FILE (a hash musl's crypt() verifies) as /etc/rescue-shadow, 0600, the
 * image then 0600; --lock-shell (LOCK) as /etc/rescue-lock-shell.
 */
int shelllock_add(struct list *l, const char *hash, const char *file,
		  bool lock);

/*
 * ssh.c: --ssh-authorized-keys: dropbear, root's keys, a host key: HOST_KEY
 * (--ssh-host-key), else DEFAULT_KEY, made there if it does not exist.
 */
int ssh_add(struct list *l, struct hostpath *hp, const char *authorized_keys,
	    const char *host_key, const char *default_key);

/* storage.c: the tools of rescue/share/storage-layers and their /etc */
/* Unless REQUIRED, a tool the host does not have is left out; the
 * tools' configuration files come from DATADIR (rescue/share/). */
int storage_add(struct list *l, struct hostpath *hp, bool required,
		const char *datadir);
/*
 * The programs named in column COLUMN (1 the first; "-" none, commas
 * between names) of DATADIR/FILE, found in /sbin, /bin, /usr/sbin or
 * /usr/bin, with their loader and libraries; WHY says what they are.
 */
int storage_add_tools(struct list *l, struct hostpath *hp, bool required,
		      const char *datadir, const char *file, int column,
		      const char *why);

/*
 * resume.c: RESUME= (and RESUME_OFFSET=) of initramfs-tools' conf.d
 * directory CONFDIR as the image's default resume= (nothing when it
 * has none, or no CONFDIR).
 */
int resume_add(struct list *l, const char *confdir);

/* keymap.c: --keymap, else with MACHINE (-k) the machine's layout */
int keymap_add(struct list *l, const char *keymap, bool machine);

/*
 * multipath.c: with --storage, multipath and kpartx with their plugins
 * and the host's configuration, when the host has multipath-tools.
 */
int multipath_add(struct list *l, struct hostpath *hp, const char *datadir);

/* clevis.c: --clevis, the programs of rescue/share/clevis-tools */
bool clevis_host_uses(void);
int clevis_add(struct list *l, struct hostpath *hp, bool required,
	       const char *datadir);

/* disktools.c: --disk-tools, the tools of rescue/share/disk-tools */
int disktools_add(struct list *l, struct hostpath *hp, bool required,
		  const char *datadir);

/* tpm2.c: --tpm2, systemd's TPM2 token plugin and the libraries it dlopen()s */
int tpm2_add(struct list *l, struct hostpath *hp, bool required);
/* Whether a crypttab line of PATH has tpm2-device= (false: unreadable). */
bool tpm2_in_crypttab(const char *path);

/* moddb.c: modules.dep, .alias, .softdep and .builtin of a kernel */
struct moddb;
struct moddb_module {
	char *name;		/* normalized: '-' is '_' */
	char *path;		/* relative to the module directory */
	size_t *deps;		/* indexes into the module array */
	size_t ndeps;
	bool shipped;
};
int moddb_load(struct moddb **dbp, const char *dir);
void moddb_free(struct moddb *db);
const char *moddb_dir(const struct moddb *db);
size_t moddb_count(const struct moddb *db);
struct moddb_module *moddb_module(struct moddb *db, size_t i);
/* Index of the module called NAME ('-' or '_'), or -ENOENT. */
ssize_t moddb_find(const struct moddb *db, const char *name);
bool moddb_is_builtin(const struct moddb *db, const char *name);
/* Calls FN for each module an alias NAME resolves to; returns how many. */
int moddb_resolve_alias(struct moddb *db, const char *name,
			int (*fn)(void *ctx, size_t mod), void *ctx);
bool moddb_alias_is_builtin(const struct moddb *db, const char *name);
/* The softdep names of module I, pre: and post: together. */
size_t moddb_softdeps(const struct moddb *db, size_t i, const char ***names);

/* prune.c: the index files, cut to the shipped modules */
int prune_dep(struct moddb *db, struct buf *out);
int prune_alias(struct moddb *db, struct buf *out);
int prune_softdep(struct moddb *db, struct buf *out);

/* modules.c: the module list, resolved and added to the image */
struct modules_request {
	const char *kver;		/* the directory name in the image */
	const char *kmoddir;		/* where the modules are on the host */
	const char *module_list;	/* file of module names */
	const char *const *add;		/* --add-module names */
	size_t nadd;
	bool hostonly;			/* the host's drivers, not the list */
};
int modules_add(struct list *l, const struct modules_request *req);

/* firmware.c: the firmware the shipped modules of KVER declare, from
 * FWDIR (--firmware-dir); one missing is a line, not an error, for the
 * modules of ADD (--add-module) and those the host has loaded. */
int firmware_add(struct list *l, const char *kver, const char *fwdir,
		 const char *const *add, size_t nadd);

/* microcode.c: the early microcode archive (--microcode-dir), written
 * uncompressed to FD before the image: 1 when written, 0 and nothing
 * written when DIR has neither vendor's files. */
int microcode_write(const char *dir, int64_t mtime, int fd, const char *path);

/*
 * mkrescue-hostonly.c: for each driver of the host's block devices and
 * its root filesystem, FN with a module name, driver name or modalias.
 */
typedef int hostonly_fn(void *ctx, const char *name_or_alias, const char *why);
int hostonly_walk(const char *sysfs, const char *mounts, hostonly_fn *fn,
		  void *ctx);

/* image.c: the cpio newc archive, through libarchive */
enum image_compress {
	IMAGE_NONE,
	IMAGE_GZIP,
	IMAGE_ZSTD,
};
struct image_options {
	enum image_compress compress;
	int level;		/* -1: the default of that compressor */
	int64_t mtime;		/* of every entry */
	/* The early microcode's directory (microcode.c), or NULL; required:
	 * given by --microcode-dir, so that finding none is an error. */
	const char *microcode_dir;
	bool microcode_required;
};
int image_write(const struct list *l, const struct image_options *opt,
		int fd, const char *path);

/* toolkitcache.c: the compressed toolkit kept between runs.  The cache
 * file for the toolkit entries of L, or -ENOENT for no cache. */
int toolkit_cache_path(const struct list *l,
		       bool (*in_toolkit)(const struct list_entry *),
		       int64_t mtime, int preset, char **path);
/* 0 with the blob, or -ENOENT for none usable. */
int toolkit_cache_get(const char *path, struct buf *blob);
/* The cache file for the `BUSYBOX --list-full` output, or -ENOENT. */
int applets_cache_path(const char *busybox, char **path);
int applets_cache_get(const char *path, struct buf *list);
/* Best effort: a file of the cache, atomically. */
void cache_put(const char *path, const struct buf *blob);
/* A line identifying FILE's content by its stat (path, inode, times). */
int cache_stat_key(struct buf *key, const char *file);
/* 0 with the cache file PATH in B if it is text whose first line is FIRST. */
int cache_get_lines(const char *path, const char *first, struct buf *b);
/* The cache directory (MKRESCUE_CACHE...), or NULL for none. */
char *cache_dir(void);
/* 64-bit FNV-1a, by hand: cache names, not signatures. */
#define CACHE_FNV1A_INIT	0xcbf29ce484222325ULL
uint64_t cache_fnv1a(uint64_t h, const void *data, size_t len);

#endif
