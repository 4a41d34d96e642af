/* SPDX-License-Identifier: GPL-2.0 */
/* rescue-init.h: private interfaces of rescue-init, grouped by file. */
#ifndef RESCUE_INIT_H
#define RESCUE_INIT_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <syslog.h>
#include <linux/netlink.h>

#include "arraysize.h"
#include "contract.h"	/* the names and /run paths shared with mkrescue */

#define NEWROOT			"/newroot"
#define ROOTWAIT_FOREVER	INT_MAX	/* plain "rootwait": no limit */
#define ROOTFIND_FOREVER	UINT_MAX /* rootfind_locate()'s wait_s for it */
#define MODULES_WAIT_S		10	/* root wait after loading modules */
#define PROGRESS_EVERY_S	5

#define PRINTF(f, a)	__attribute__((format(printf, f, a)))

/* log.c */
#define LOG_RECORD_MAX	900	/* one /dev/kmsg record, prefix included */
void log_open(void);
void log_to_fd(int fd, const char *prefix, bool kmsg);
void log_set_debug(bool on);
void log_set_quiet(bool on);
bool log_debug_enabled(void);
void log_msg(int level, const char *fmt, ...) PRINTF(2, 3);
size_t log_cut(const char *s, size_t len, size_t max);
uint64_t log_now_us(void);
#define log_error(...)	log_msg(LOG_ERR, __VA_ARGS__)
#define log_warn(...)	log_msg(LOG_WARNING, __VA_ARGS__)
#define log_info(...)	log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...)	log_msg(LOG_DEBUG, __VA_ARGS__)

/* errtext.c: use it, not strerror(), in every message */
const char *errtext(int err);

/* cmdline.c */
#define CMDLINE_SIZE		4096
#define CMDLINE_MAX_ARGS	1024
#define CMDLINE_MAX_PROBLEMS	8
enum rd_break { BREAK_NONE, BREAK_PRE_MOUNT, BREAK_PRE_PIVOT };
struct cmdline_arg {
	const char *key;
	const char *val;	/* NULL for a word without '=' */
};
struct cmdline {
	const char *root;	/* NULL when not given */
	const char *rootfstype;
	const char *rootflags;
	const char *init;
	bool rw;
	/* -1: not given, or ROOTWAIT_FOREVER; with rd.shell=0, main.c
	 * cuts it to one turn per attempt */
	int rootwait_s;
	int rootdelay_s;
	enum rd_break brk;
	const char *brk_word;	/* "rescue" or "rd.break": which asked */
	bool shell;		/* rd.shell, default on */
	int retry_s;		/* rd.retry=: -1 not given */
	int panic_s;		/* panic=: the kernel's, 0 by default */
	bool quiet;
	bool debug;		/* rescue.debug */
	bool member;		/* rescue.member: mount a member named by root= */
	bool rescue_word;	/* "rescue" was given */
	int ro_strict;		/* rescue.ro=: -1 not given, 0 off, 1 strict */
	bool strict;		/* strict read-only in force (readonly.c) */
	bool strict_implied;	/* by the rescue word, not rescue.ro=strict */
	size_t after_dashes;	/* words after "--": the init's, not ours */
	size_t nargs;
	struct cmdline_arg args[CMDLINE_MAX_ARGS];
	size_t nproblems;
	char problems[CMDLINE_MAX_PROBLEMS][160];
};
char *cmdline_next_arg(char *args, char **param, char **val);
void cmdline_parse(char *buf, struct cmdline *c);
int cmdline_read(const char *path, char *buf, size_t size);
bool cmdline_consumed(const char *word);
size_t cmdline_init_argv(const struct cmdline *c, const char *init, int argc,
			 char *const argv[], char **out, size_t max);
size_t cmdline_init_envp(char *const envp[], char **out, size_t max);
size_t cmdline_module_options(const struct cmdline *c, const char *module,
			      char *buf, size_t size);
/* dracut's hostonly command line, read before /proc/cmdline */
#define CMDLINE_CONF_DIR	"/etc/cmdline.d"
int cmdline_read_all(const char *confdir, const char *kernel_path,
		     char *buf, size_t size);
int cmdline_read_all_why(const char *confdir, const char *kernel_path,
			 char *buf, size_t size, char *why, size_t whysize);
const char *cmdline_get(const struct cmdline *c, const char *key);
size_t cmdline_get_all(const struct cmdline *c, const char *key,
		       const char **out, size_t max);
bool cmdline_flag(const struct cmdline *c, const char *key, bool dflt);

/* keymap.c: the image's console keymap, before any prompt */
void keymap_load(const struct cmdline *c);
const char *keymap_name(void);
int keymap_as_us(const char *in, size_t len, char *out, size_t size);

/* blkdev.c */
struct ptentry {
	unsigned partno;
	char uuid[64];
	char name[128];
};
struct blkdev {
	char name[64];		/* sysfs name: vda1, cciss!c0d0 */
	char node[80];		/* /dev/vda1 */
	unsigned major, minor;
	uint64_t sectors;	/* 512-byte units */
	unsigned partno;	/* 0 for a whole disk */
	char disk[64];		/* a partition's disk */
	bool sb_probed, sb_full, pt_probed;
	char type[32], usage[16], uuid[64], label[256];
	char pttype[16], partuuid[64], partlabel[128];
	struct ptentry *parts;	/* a disk's partition table, once probed */
	size_t nparts;
	/* Its other names below /dev from a storage layer: md!root */
	char alias[2][80];
	/* Part of a whole its layer misses devices of: root= skips it. */
	bool incomplete;
	/* Why it was not identified: an I/O error, no answer (probework.c) */
	char fault[64];
	/*
	 * Its disk's own identity, the same on every path to it: "wwid:"
	 * and the SCSI or NVMe WWID, or "serial:" and a virtio disk's
	 * serial; empty when the disk has none.
	 */
	char path_id[96];
	/*
	 * On a path of a dm-multipath map (its disk's holder has an
	 * "mpath-" dm UUID): the map is the device, root= skips this.
	 */
	bool held;
};

/*
 * One disk seen on two paths (two HBAs, two ports: multipath): the same
 * identity, size and partition, so the same blocks, under two names.
 */
static inline bool blk_same_disk(const struct blkdev *a,
				 const struct blkdev *b)
{
	return a->path_id[0] && !strcmp(a->path_id, b->path_id) &&
	       a->sectors == b->sectors && a->partno == b->partno;
}
struct blklist {
	struct blkdev *dev;
	size_t n, cap;
	unsigned probe_gen;	/* which list a probe's answer is for (probework.c) */
};
int blk_enumerate(struct blklist *l, const char *classdir);
int blk_add(struct blklist *l, const char *classdir, const char *name);
void blk_remove(struct blklist *l, const char *name);
ssize_t blk_find(const struct blklist *l, const char *name);
void blk_node_path(const char *name, char *node, size_t size);
void blk_free(struct blklist *l);

/* probe.c: what libblkid is asked for; probework.c: in workers, timed */
enum { PROBE_SB = 1, PROBE_PT = 2, PROBE_ALL = 3, PROBE_FULL = 4 };
void probe_init_filesystems(void);
void probe_set_timeout(const struct cmdline *c);
int probe_device(struct blklist *l, size_t i, unsigned what);
size_t probe_all(struct blklist *l, unsigned what);
/* A late answer: poll probe_fd() (-1 before any probe), then receive. */
int probe_fd(void);
typedef void probe_answered_fn(struct blklist *l, size_t i, void *ctx);
size_t probe_receive(struct blklist *l, probe_answered_fn *fn, void *ctx);
/* The two halves of probe_device(), for the uevent loop. */
bool probe_start(struct blklist *l, size_t i, unsigned what);
size_t probe_wait(struct blklist *l, probe_answered_fn *fn, void *ctx);
/* Say which probes passed their deadline; when the next one will (0: none). */
uint64_t probe_mark_late(struct blklist *l);
void probe_forget(void);

/* devtable.c */
typedef void devtable_line_fn(void *ctx, const char *line);
void devtable_human_size(uint64_t bytes, char *buf, size_t size);
void devtable_escape(const char *s, char *buf, size_t size);
void devtable_format(const struct blkdev *devs, size_t n,
		     devtable_line_fn *fn, void *ctx);

/* rootspec.c */
#define ROOTSPEC_VALUE_MAX	1024
enum root_kind {
	ROOT_DEVNAME, ROOT_UUID, ROOT_LABEL, ROOT_PARTUUID, ROOT_PARTLABEL,
	ROOT_DEVNUM,
};
struct rootspec {
	enum root_kind kind;
	char value[ROOTSPEC_VALUE_MAX];	/* decoded name, UUID or label */
	bool has_partnroff;
	int partnroff;
	unsigned major, minor;
	char text[200];			/* as given, cut for messages */
	const char *role;		/* for the wait's lines; NULL: "root" */
};
int rootspec_parse(const char *s, struct rootspec *spec, char *why, size_t size);
unsigned rootspec_needs(const struct rootspec *spec);
int rootspec_match(const struct rootspec *spec, const struct blkdev *devs,
		   size_t n, size_t *found, size_t *other);
size_t rootspec_count(const struct rootspec *spec, const struct blkdev *devs,
		      size_t n);
const char *rootspec_absent(const struct rootspec *spec, char *buf, size_t size);

/* uevent.c */
#define UEVENT_BUFFER_SIZE	8192
struct uevent {
	const char *action, *devpath, *subsystem, *devtype, *devname;
	const char *modalias;
	unsigned major, minor;
	bool has_devnum;
};
int uevent_open(void);
int uevent_parse(const char *buf, size_t len, struct uevent *ev);
bool uevent_accept(const struct sockaddr_nl *from, socklen_t fromlen,
		   const struct ucred *cred, int msg_flags);
int uevent_receive(int fd, char *buf, size_t size, struct uevent *ev);

/* modindex.h (rescue/lib): depmod's files; modload.c walks them */
#include "modindex.h"
typedef int modload_fn(void *ctx, const struct module *m, const char *reason);
/*
 * FN for what NAME_OR_ALIAS stands for (a module, a modalias, "fs-ext4"):
 * every matching module, each after its pre: softdeps and dependencies
 * and before its post: softdeps, at most once, built-in ones skipped.
 * The number FN loaded, or -ENOENT when nothing matches.
 */
int modload_order(struct modindex *ix, const char *name_or_alias,
		  modload_fn *fn, void *ctx);

/* coldplug.c: which device drivers load before the root is found */
enum modclass {
	MODCLASS_BOOT, MODCLASS_NET, MODCLASS_LEGACY, MODCLASS_LATER
};
void coldplug_init(const struct cmdline *c);
enum modclass coldplug_class(const char *path);
bool coldplug_now(const char *path);
void coldplug_want_legacy(void);
/* Whether the module may load with async_probe (modload.c). */
bool coldplug_async(const char *path);

/*
 * modcpu.c: UNUSABLE[i] (IX's nmods entries) for each module whose cpu:
 * aliases all miss CPU_MODALIAS (/sys/devices/system/cpu/modalias).
 */
void modcpu_mark(const struct modindex *ix, const char *cpu_modalias,
		 bool *unusable);

/* modload.c */
int modload_init(const struct cmdline *c);
void modload_coldplug(void);
void modload_alias(const char *modalias);
void modload_device(const char *modalias);
void modload_rest(const char *why);
unsigned modload_legacy(const char *why);
void modload_fs(const char *fstype);
void modload_filesystems(void (*fn)(const char *name));
unsigned modload_loaded(void);
int modload_request(const char *name);

/* modprobe.c: rescue-init called as modprobe, for request_module() */
int modprobe_main(int argc, char *argv[]);

/* mounts.c */
struct mountent {
	char source[256];
	char target[256];
	char fstype[32];
	bool ro;
};
int mounts_read_proc(const char *path, char *buf, size_t size);
int mounts_parse_line(char *line, struct mountent *m);
int mounts_options(const char *opts, unsigned long *flags, char *data,
		   size_t size);
int mounts_find(const char *target, struct mountent *m);
int mounts_early(bool *devtmpfs_mounted, char *why, size_t size);
int mounts_console(void);
void mounts_leave_run(void);

/* rootfind.c */
struct rootresult {
	size_t index;		/* in the device list */
	size_t other;		/* the second match, for -ENOTUNIQ */
	size_t probed;
	uint64_t waited_us;
};
unsigned rootfind_wait_s(const struct cmdline *c);
void rootfind_events(struct blklist *l, int ufd, uint64_t deadline_us);
void rootfind_settle(struct blklist *l, int ufd, uint64_t quiet_us,
		     uint64_t max_us);
int rootfind_locate(const struct rootspec *spec, struct blklist *l, int ufd,
		    unsigned wait_s, struct rootresult *res);

/* mountwatch.c: the root's mount(2), PID 1 answering while it hangs */
int mountwatch_mount(const char *src, const char *dir, const char *type,
		     unsigned long flags, const char *data);

/* rootmount.c */
int rootmount_mount(const struct blkdev *d, const struct cmdline *c,
		    const char *dir, char *fstype, size_t fslen, bool *ro);
int rootmount_find_init(const char *dir, const char *init, char *found,
			size_t size, char *tried, size_t trylen);
int rootmount_boot(const struct cmdline *c, struct blklist *l, int ufd,
		   const char *dir, struct mountent *m, char *why, size_t size);

/* rootvirtiofs.c: a root named by its virtio-fs tag */
const char *rootvirtiofs_tag(const struct cmdline *c);
int rootvirtiofs_boot(const struct cmdline *c, struct blklist *l, int ufd,
		      const char *dir, struct mountent *m, char *why,
		      size_t size);

/* switchroot.c */
int switchroot_check(const char *newroot, char *why, size_t size);
int switchroot_run(const char *newroot, const char *init, char *const argv[],
		   char *const envp[], const char *what, uint64_t t0);

/* crash.c */
unsigned crash_install(char *const argv[], char *const envp[]);
void crash_set_policy(bool shell, int panic_s);
void crash_unblock_set(sigset_t *set);

/* toolkit.c: busybox and e2fsck, unpacked on first need (toolkit.h); 0
 * when done or there is none, else -errno, said in one line */
int toolkit_unpack(const char *why);
/* Called as sh: /bin/sh is a link to /init until the toolkit is out. */
int toolkit_sh_main(int argc, char *argv[]);

/* shell.c */
void shell_block_signals(void);
void shell_restore_signals(void);
int shell_run(const char *hint);
void shell_pause(uint64_t us);
void shell_disable(void);
void shell_wait_forever(void) __attribute__((noreturn));
void shell_give_up(int panic_s) __attribute__((noreturn));
void shell_catch_ctrl_alt_del(bool on);
void shell_last_resort(void) __attribute__((noreturn));
pid_t shell_noted_pid(void);
void shell_set_notice(const char *line);
/*
 * PID 1's duties in a loop that polls (a device wait, a prompt): add
 * shell_signal_fd() (when >= 0) to the poll set; when it is readable,
 * or at each turn, call shell_serve_signals(): it reaps children and
 * acts on reboot (SIGTERM, and SIGINT from ctrl-alt-del), halt
 * (SIGUSR1) and poweroff (SIGUSR2) at once, then returns.  shell_pause(1)
 * does the same.
 */
int shell_signal_fd(void);
void shell_serve_signals(void);

/*
 * shelllock.c: a TPM2 or tang unlocker calls shell_lock_engage("TPM2")
 * once it opened a disk with no one typing; every path to a shell asks
 * shell_lock_engaged() (the unlocker's name, or NULL) first.
 */
void shell_lock_engage(const char *how);
const char *shell_lock_engaged(void);
/*
 * Before WHAT ("shell", "init=/bin/sh") on a locked boot (an unlocker,
 * or mkrescue --lock-shell): 0 when it may start (not locked, or the
 * rescue password given); -EACCES refused; three wrong ones reboot.
 */
int shell_lock_check(const char *what);
void shell_lock_check_init(const char *root, const char *given, char *init,
			   size_t size);
void shell_reboot(void) __attribute__((noreturn));

/* readonly.c: rescue.ro=strict, a boot that writes to no disk */
int readonly_init(const struct cmdline *c);
/*
 * Whether strict mode is in force now: in PID 1 from readonly_init()
 * to readonly_end(), in its tools (rescue-mount) from the flag file it
 * leaves in /run.  The one answer: the storage layers ask it too.
 */
bool readonly_strict(void);
int readonly_set(const char *name, bool ro);
void readonly_device(const char *name);
void readonly_end(void);
void readonly_before_switch(void);
const char *readonly_noreplay(const char *fstype);

/* secureboot.c: Secure Boot and the kernel's lockdown, for rescue-ls and modules */
void secureboot_report(devtable_line_fn *fn, void *ctx);
const char *secureboot_module_error(int err);

/* report.c: the device table with the storage layers' and network's lines */
void report_devices(struct blklist *l, devtable_line_fn *fn, void *ctx);
void report_failure(struct blklist *l, const char *why);

/* tools.c: the rescue shell's commands, by name (main.c's table) */
int rescue_ls_main(int argc, char *argv[]);
int rescue_mount_main(int argc, char *argv[]);
int rescue_continue_main(int argc, char *argv[]);
int rescue_unlock_main(int argc, char *argv[]);
int tools_main(int argc, char *argv[]);	/* rescue-init --ls, --help, ... */

/* storage/rescuerw.c: rescue-rw DEV, one device writable in strict mode */
int rescue_rw_main(int argc, char *argv[]);

#endif
