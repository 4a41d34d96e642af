/* SPDX-License-Identifier: GPL-2.0 */
/* mklayout.h: private interfaces between the files of mklayout. */
#ifndef MKLAYOUT_H
#define MKLAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * A layout is planned entirely in memory from the seed (mklayout-plan.c,
 * mklayout-ids.c), given its root= (mklayout-root.c), checked
 * (mklayout-check.c), and only then written out (mklayout-plan-files.c,
 * mklayout-script.c).  Functions
 * return 0 or -errno; those that fail have printed the one line that says
 * why, and main() decides what is fatal.
 */

#define MAX_DISKS	16
#define MAX_DATA_PARTS	8	/* per disk */
#define MAX_PARTS	(MAX_DATA_PARTS + 1)	/* + an MBR extended container */
#define MAX_CONTROLLERS	3	/* per kind of controller */
#define ID_LEN		40	/* a UUID, a label or a PARTLABEL, NUL included */
#define MIB		(1024 * 1024)

/* The buses a disk hangs off; what each is, is its row in mklayout-names.c. */
enum bus { BUS_VIRTIO_BLK, BUS_VIRTIO_SCSI, BUS_AHCI, BUS_NVME, BUS_USB, BUS_COUNT };
/* How the kernel names a bus's disks. */
enum naming { NAMED_VD, NAMED_SD, NAMED_NVME };
enum table { TABLE_NONE, TABLE_MBR, TABLE_GPT, TABLE_COUNT };
enum fs { FS_NONE, FS_EXT2, FS_EXT3, FS_EXT4, FS_VFAT, FS_COUNT };
enum form {
	FORM_DEV, FORM_UUID, FORM_LABEL, FORM_PARTUUID, FORM_PARTNROFF,
	FORM_PARTLABEL, FORM_MAJMIN, FORM_HEX, FORM_COUNT
};

/*
 * A root left with an unreplayed journal (tests/tools/random-layouts runs a VM that
 * writes and is killed before the checkpoint), booted with
 * rescue.ro=strict (nothing may change) or without it (the replay
 * writes the root's disk, and nothing else).
 */
enum dirty { DIRTY_NO, DIRTY_STRICT, DIRTY_WRITTEN, DIRTY_COUNT };

/* Why a volume is there; a layout has exactly one ROLE_ROOT. */
enum role {
	ROLE_UNSET,
	ROLE_ROOT,		/* ext2/3/4 with /marker = seed and the init */
	ROLE_BLANK,		/* no filesystem: a blank disk, an empty partition */
	ROLE_DATA,		/* ext2/3/4 without an init, or vfat */
	ROLE_IMPOSTOR,		/* ext2/3/4 with an init and a wrong marker */
	ROLE_LABEL_NEAR,	/* LABEL one character off the root's */
	ROLE_UUID_NEAR,		/* UUID one hex digit off the root's */
	ROLE_PARTLABEL_ROOT_LABEL, /* PARTLABEL equal to the root's LABEL */
	ROLE_PARTUUID_NEAR,	/* PARTUUID one hex digit off the root's */
	ROLE_COUNT
};

/* What a whole disk or a partition holds. */
struct volume {
	enum role role;
	enum fs fs;
	bool has_init;		/* a busybox root whose init reports itself */
	unsigned int size_mib;
	char uuid[ID_LEN];	/* filesystem UUID ("ABCD-1234" for vfat) */
	char label[ID_LEN];
	char hash_seed[ID_LEN];	/* ext: -E hash_seed= */
	uint32_t volume_id;	/* vfat: -i */
};

struct partition {
	unsigned int number;	/* as the kernel numbers it: vda<number> */
	unsigned int start_mib;
	bool extended;		/* the MBR container of the logical ones */
	char partuuid[ID_LEN];	/* GPT: its GUID; MBR: label-id "-" number */
	char partlabel[ID_LEN];	/* GPT only; may be empty */
	struct volume vol;	/* unused for the extended container */
};

struct disk {
	enum bus bus;
	unsigned int controller;	/* virtio-scsi, ahci, usb: N of BUS/N */
	enum table table;
	unsigned int size_mib;
	char label_id[ID_LEN];	/* GPT disk GUID, or MBR "0x%08x" */
	struct volume whole;	/* the content of an unpartitioned disk */
	unsigned int nparts;	/* in table order (by number) */
	struct partition part[MAX_PARTS];
};

/* A block device of the layout: a whole disk (part < 0) or a partition. */
struct location {
	int disk;
	int part;
};

struct layout {
	uint64_t seed;
	unsigned int ndisks;
	struct disk disk[MAX_DISKS];
	struct location root;
	/* The command line (mklayout-root.c). */
	enum form form;
	char root_arg[160];	/* what follows root= */
	struct location anchor;	/* FORM_PARTNROFF: the PARTUUID= partition */
	bool rootwait;
	unsigned int rootwait_secs;	/* 0: plain "rootwait" */
	bool ro_given;
	const char *init;	/* NULL: no init=, the default /sbin/init */
	enum dirty dirty;	/* only for an ext3/ext4 root, with an initramfs */
};

/* What the command line may use. */
struct root_policy {
	bool kernel_only;	/* only forms the kernel mounts without initrd */
};

/*
 * A stacked layout (mklayout-stack.c): a seed's second layout, its root
 * on md RAID1, LUKS2, LVM, two-device btrfs or a nesting of them.  The
 * plain layout of every seed stays what it was: a stacked one is asked
 * for (--stacked) and exists for the seeds its own stream picks.
 */
enum stack_kind {
	STACK_MD, STACK_LUKS, STACK_LVM, STACK_BTRFS, STACK_LUKS_LVM,
	STACK_MD_LUKS_LVM, STACK_COUNT
};
enum stack_form {
	SFORM_MAPPER, SFORM_VG_LV, SFORM_MD_NAME, SFORM_MD_DEV, SFORM_UUID,
	SFORM_LABEL, SFORM_COUNT
};

#define STACK_MAX_DISKS	3
#define STACK_MAX_LVS	4
#define NAME_LEN	16

struct stack {
	uint64_t seed;
	enum stack_kind kind;
	unsigned int ndisks;		/* made, the absent member included */
	enum bus bus[STACK_MAX_DISKS];
	unsigned int size_mib[STACK_MAX_DISKS];
	int absent;			/* the md member left out, or -1 */
	int decoy_disk;			/* the decoy VG's PV, or -1 */
	bool md_090;
	char md_uuid[ID_LEN];
	char md_name[NAME_LEN];
	char luks_uuid[ID_LEN];
	char pass[24];
	bool wrong_try;			/* one wrong passphrase typed first */
	char vg[NAME_LEN], decoy_vg[NAME_LEN];
	unsigned int nlvs;
	char lv[STACK_MAX_LVS][NAME_LEN];	/* lv[0] holds the root */
	char fs_uuid[ID_LEN], fs_label[ID_LEN], hash_seed[ID_LEN];
	char imp_uuid[ID_LEN], imp_label[ID_LEN], imp_hash_seed[ID_LEN];
	bool impostor;			/* btrfs top, decoy VG: an init, a wrong marker */
	char subvol[NAME_LEN];		/* btrfs: the root's subvolume */
	enum stack_form form;
	char root_arg[160];
	const char *kernel;		/* "stock": Debian's, with mkrescue -k */
};

/* mklayout-msg.c */
void msg_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* mklayout-rng.c: xoshiro256** seeded through splitmix64 */
struct rng {
	uint64_t s[4];
};
void rng_seed(struct rng *r, uint64_t seed, uint64_t stream);
uint64_t rng_next(struct rng *r);
/* Uniform in [0, n); n > 0. */
unsigned int rng_below(struct rng *r, unsigned int n);
/* True with probability num/den. */
bool rng_chance(struct rng *r, unsigned int num, unsigned int den);
/* A random version 4 UUID, lower case. */
void rng_uuid(struct rng *r, char out[ID_LEN]);
void rng_shuffle(struct rng *r, unsigned int *v, unsigned int n);

/* mklayout-names.c: names in text, and the kernel's numbering */
extern unsigned int virtio_blk_major;
const char *bus_name(enum bus bus);
const char *table_name(enum table table);
const char *fs_name(enum fs fs);
const char *form_name(enum form form);
const char *role_name(enum role role);
const char *dirty_name(enum dirty dirty);
/* The volume of a location, or NULL for a partitioned disk or a container. */
const struct volume *location_volume(const struct layout *l, struct location loc);
bool location_same(struct location a, struct location b);
/* True when the kernel's name of LOC (vdb3, nvme1n1p2, sda) is known. */
bool kernel_name(const struct layout *l, struct location loc, char *buf, size_t size);
/* True when its MAJ:MIN is known. */
bool kernel_devt(const struct layout *l, struct location loc,
		 unsigned int *major, unsigned int *minor);
/* False only when LOC can certainly not be called NAME / have MAJ:MIN. */
bool kernel_may_be_named(const struct layout *l, struct location loc, const char *name);
bool kernel_may_have_devt(const struct layout *l, struct location loc,
			  unsigned int major, unsigned int minor);
/* How the kernel's hex form encodes MAJ:MIN (new_encode_dev). */
unsigned long kernel_hex_devt(unsigned int major, unsigned int minor);
/* The volumes a root or a decoy may be: all but MBR extended containers. */
unsigned int layout_volumes(const struct layout *l, struct location *v);
struct volume *layout_volume_at(struct layout *l, struct location loc);
bool bus_is_scsi(enum bus bus);
/* Disks per controller; 0: every disk is its own PCI device. */
unsigned int bus_capacity(enum bus bus);
/* Its disks attach after the kernel looks for the root: rootwait. */
bool bus_attaches_late(enum bus bus);
/* The disks file's controller: its number, or "-" for a bus without. */
const char *bus_controller_text(enum bus bus, unsigned int controller,
				char *buf, size_t size);
unsigned int layout_count_late(const struct layout *l);

/* mklayout-plan.c: disks, tables, partitions, roles, places, then ids */
void layout_plan(struct layout *l, uint64_t seed);

/* mklayout-ids.c: the identifiers, once roles and places are planned */
void ids_plan(struct layout *l, struct rng *r);

/* mklayout-root.c: the root= form and the rest of the command line;
 * -ENOENT when the policy leaves no form that names the root. */
int root_choose(struct layout *l, const struct root_policy *policy);
/* "root=... [rootwait[=N]] [ro] [init=...] [rescue.ro=strict]" */
void cmdline_format(const struct layout *l, char *buf, size_t size);

/* mklayout-check.c: the layout's promises, checked before writing */
/* Does root= select LOC?  For PARTNROFF, does its PARTUUID= part? */
bool root_spec_selects(const struct layout *l, struct location loc);
int layout_check(const struct layout *l);

/* mklayout-plan-files.c: layout.txt, disks, cmdline, expect in DIR */
int plan_files_write(const struct layout *l, const char *dir);
/* DIR/NAME created for writing, and closed; each says what failed. */
FILE *open_plan_file(const char *dir, const char *name);
int close_plan_file(FILE *f, const char *dir, const char *name);
/* NAME as the next item of a comma-separated list; *SEP starts as "". */
void write_list_item(FILE *f, const char **sep, const char *name);

/* mklayout-script.c: build.sh, the commands that make the images */
int script_write(const struct layout *l, const char *dir, const char *busybox);
void disk_file_name(unsigned int index, char *buf, size_t size);
void script_prologue(FILE *f, uint64_t seed, const char *busybox);

/* mklayout-stack.c: the stacked layout of a seed, if it has one */
bool stack_chosen(uint64_t seed);
void stack_plan(struct stack *s, uint64_t seed);
int stack_check(const struct stack *s);
const char *stack_kind_name(enum stack_kind kind);

/* mklayout-stack-files.c: its plan files, build.sh and helper.cmds */
int stack_files_write(const struct stack *s, const char *dir, const char *busybox);

#endif
