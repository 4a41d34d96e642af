/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mdsuper.h: the md RAID superblock of a member device, metadata 0.90
 * and 1.0/1.1/1.2, read from the bytes the md layer gives it: what
 * the kernel needs told (the version), and what the boot reports (the
 * array's name and shape, the member's slot, its event count).
 */
#ifndef RESCUE_MDSUPER_H
#define RESCUE_MDSUPER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where each version keeps it; mdadm's order of preference. */
enum mdsuper_kind { MDSB_12, MDSB_11, MDSB_10, MDSB_090, MDSB_KINDS };

#define MDSUPER_READ	4096	/* bytes to read at mdsuper_offset() */
#define MDSUPER_SPARE	(-1)	/* role of a spare */
#define MDSUPER_FAULTY	(-2)	/* role of a member marked faulty */

struct mdsuper {
	unsigned major, minor;		/* 0.90, or 1.0, 1.1, 1.2 */
	uint8_t uuid[16];		/* the array's */
	char name[33];			/* 1.x: "host:name", else "" */
	int level;			/* 1, 5, 6, 0, -1 (linear) ... */
	unsigned raid_disks;
	uint64_t events;
	bool clean;
	int role;			/* slot, or SPARE, FAULTY */
	unsigned dev_number;		/* 1.x: index into dev_roles */
	bool has_dev_uuid;
	uint8_t dev_uuid[16];		/* 1.x: this member's own */
	int preferred_minor;		/* 0.90: mdN it was; else -1 */
};

/*
 * Byte offset of the superblock of kind k on a device of size bytes,
 * or UINT64_MAX when the device is too small to hold one there.
 */
uint64_t mdsuper_offset(enum mdsuper_kind k, uint64_t size);

/*
 * Parse len bytes read at byte offset off of a device as a superblock
 * of kind k.  0, -ENOENT (no magic there), -EINVAL (a field the kernel
 * would refuse, or another kind's superblock) or -EBADMSG (checksum).
 */
int mdsuper_parse(const unsigned char *buf, size_t len, enum mdsuper_kind k,
		  uint64_t off, struct mdsuper *sb);

/* "1.2", "0.90". */
const char *mdsuper_version(const struct mdsuper *sb);

/* The number of members missing before the array cannot run at all. */
unsigned mdsuper_redundancy(const struct mdsuper *sb);

#endif
