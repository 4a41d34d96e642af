// SPDX-License-Identifier: GPL-2.0
/*
 * mdsuper.c: parse an md member's superblock (metadata 0.90 and 1.x),
 * the checks the kernel's super_90_load()/super_1_load() make, so that
 * what this accepts the kernel accepts too.  Outside input: the bytes
 * come from any disk; the md layer reads them.
 */
#include <errno.h>
#include <string.h>

#include "mdsuper.h"

#define MD_MAGIC		0xa92b4efcU
#define SB1_SIZE		256	/* struct mdp_superblock_1 */
#define SB1_MAX_DEV		((4096 - SB1_SIZE) / 2)	/* the kernel's bound */
#define SB090_BYTES		4096
#define SB090_DISKS		27
#define SB090_RESERVED		65536
#define ROLE_SPARE		0xffff
#define ROLE_FAULTY		0xfffe

static uint32_t le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const unsigned char *p)
{
	return le32(p) | (uint64_t)le32(p + 4) << 32;
}

uint64_t mdsuper_offset(enum mdsuper_kind k, uint64_t size)
{
	switch (k) {
	case MDSB_12:
		return size >= 2 * 4096 ? 4096 : UINT64_MAX;
	case MDSB_11:
		return size >= 4096 ? 0 : UINT64_MAX;
	case MDSB_10:
		/* 8 KiB below the end, rounded down to 4 KiB */
		return size >= 3 * 4096 ? (size - 8192) & ~(uint64_t)4095 :
					  UINT64_MAX;
	case MDSB_090:
		/* 64 KiB below the end rounded down to 64 KiB */
		return size >= 2 * SB090_RESERVED ?
		       (size & ~(uint64_t)(SB090_RESERVED - 1)) - SB090_RESERVED :
		       UINT64_MAX;
	default:
		return UINT64_MAX;
	}
}

/* calc_sb_1_csum(): 32-bit words, a trailing 16-bit one, folded. */
static uint32_t sb1_csum(const unsigned char *sb, size_t size)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i + 4 <= size; i += 4)
		sum += i == 216 ? 0 : le32(sb + i);	/* sb_csum as 0 */
	if (size - i == 2)
		sum += sb[i] | sb[i + 1] << 8;
	return (uint32_t)((sum & 0xffffffff) + (sum >> 32));
}

static int parse_1(const unsigned char *b, size_t len, enum mdsuper_kind k,
		   uint64_t off, struct mdsuper *sb)
{
	static const unsigned minors[] = { [MDSB_12] = 2, [MDSB_11] = 1,
					   [MDSB_10] = 0 };
	uint32_t max_dev = le32(b + 220), dev_number = le32(b + 160), role;
	size_t i;

	if (le32(b + 4) != 1)
		return -EINVAL;
	if (max_dev > SB1_MAX_DEV || SB1_SIZE + max_dev * 2 > len)
		return -EINVAL;
	if (le64(b + 144) != off / 512)
		return -EINVAL;		/* another kind's, or a copy */
	if (sb1_csum(b, SB1_SIZE + max_dev * 2) != le32(b + 216))
		return -EBADMSG;
	/* Padding the kernel insists on being zero (a newer feature). */
	if (le32(b + 12))
		return -EINVAL;
	for (i = 224; i < SB1_SIZE; i++)
		if (b[i])
			return -EINVAL;
	sb->major = 1;
	sb->minor = minors[k];
	memcpy(sb->uuid, b + 16, 16);
	memcpy(sb->name, b + 32, 32);
	sb->name[32] = '\0';
	sb->level = (int)le32(b + 72);
	sb->raid_disks = le32(b + 92);
	sb->events = le64(b + 200);
	sb->clean = le64(b + 208) == UINT64_MAX;
	sb->dev_number = dev_number;
	sb->has_dev_uuid = true;
	memcpy(sb->dev_uuid, b + 168, 16);
	sb->preferred_minor = -1;
	role = dev_number < max_dev ? b[256 + 2 * dev_number] |
				      b[257 + 2 * dev_number] << 8 : ROLE_SPARE;
	if (role == ROLE_FAULTY)
		sb->role = MDSUPER_FAULTY;
	else if (role >= sb->raid_disks)	/* spare, journal, beyond */
		sb->role = MDSUPER_SPARE;
	else
		sb->role = (int)role;
	if (sb->raid_disks == 0 || sb->raid_disks > SB1_MAX_DEV)
		return -EINVAL;
	return 0;
}

/* 0.90 is in the CPU's byte order; ours (x86) is little-endian. */
static uint32_t w90(const unsigned char *b, unsigned word)
{
	return le32(b + 4 * word);
}

static int parse_090(const unsigned char *b, size_t len, uint64_t off,
		     struct mdsuper *sb)
{
	uint64_t sum = 0;
	uint32_t csum, number, state, raid_disk, i;

	if (len < SB090_BYTES || w90(b, 1) != 0 ||
	    (w90(b, 2) != 90 && w90(b, 2) != 91))
		return -EINVAL;
	for (i = 0; i < SB090_BYTES / 4; i++)
		sum += i == 38 ? 0 : w90(b, i);
	csum = (uint32_t)((sum & 0xffffffff) + (sum >> 32));
	/* md_csum_fold(): both sides folded to 16 bits, as the kernel. */
	if (((csum & 0xffff) + (csum >> 16)) % 0x10000 !=
	    ((w90(b, 38) & 0xffff) + (w90(b, 38) >> 16)) % 0x10000)
		return -EBADMSG;
	sb->major = 0;
	sb->minor = 90;
	for (i = 0; i < 4; i++) {	/* set_uuid0..3, as mdadm prints */
		uint32_t w = w90(b, i ? 12 + i : 5);

		sb->uuid[4 * i] = w >> 24;
		sb->uuid[4 * i + 1] = w >> 16;
		sb->uuid[4 * i + 2] = w >> 8;
		sb->uuid[4 * i + 3] = w;
	}
	sb->name[0] = '\0';
	sb->level = (int)w90(b, 7);
	sb->raid_disks = w90(b, 10);
	sb->preferred_minor = (int)(w90(b, 11) & 0xfffff);
	sb->events = (uint64_t)w90(b, 40) << 32 | w90(b, 39);
	sb->clean = w90(b, 33) & 1;
	sb->has_dev_uuid = false;
	number = w90(b, 992);		/* this_disk.number */
	sb->dev_number = number;
	if ((int)sb->raid_disks <= 0 || sb->raid_disks > SB090_DISKS ||
	    number >= SB090_DISKS)
		return -EINVAL;
	/* The data (size KiB) must end before the superblock. */
	if ((uint64_t)w90(b, 8) * 1024 > off)
		return -EINVAL;
	state = w90(b, 128 + 32 * number + 4);
	raid_disk = w90(b, 128 + 32 * number + 3);
	if (state & 1)			/* MD_DISK_FAULTY */
		sb->role = MDSUPER_FAULTY;
	else if ((state & 4) && raid_disk < sb->raid_disks) /* MD_DISK_SYNC */
		sb->role = (int)raid_disk;
	else
		sb->role = MDSUPER_SPARE;
	return 0;
}

int mdsuper_parse(const unsigned char *buf, size_t len, enum mdsuper_kind k,
		  uint64_t off, struct mdsuper *sb)
{
	memset(sb, 0, sizeof(*sb));
	if (len < SB1_SIZE || le32(buf) != MD_MAGIC)
		return -ENOENT;
	switch (k) {
	case MDSB_12:
	case MDSB_11:
	case MDSB_10:
		return parse_1(buf, len, k, off, sb);
	case MDSB_090:
		return parse_090(buf, len, off, sb);
	default:
		return -EINVAL;
	}
}

const char *mdsuper_version(const struct mdsuper *sb)
{
	static const char *const v1[] = { "1.0", "1.1", "1.2" };

	if (sb->major == 1 && sb->minor < 3)
		return v1[sb->minor];
	return "0.90";
}

unsigned mdsuper_redundancy(const struct mdsuper *sb)
{
	switch (sb->level) {
	case 1:
		return sb->raid_disks ? sb->raid_disks - 1 : 0;
	case 4:
	case 5:
	case 10:		/* at least one, whatever the layout */
		return 1;
	case 6:
		return 2;
	default:		/* linear, RAID0: every member */
		return 0;
	}
}
