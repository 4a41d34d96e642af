// SPDX-License-Identifier: GPL-2.0
/*
 * test_mdsuper.c: md member superblocks, 1.x and 0.90, built here as
 * mdadm writes them (super1.c, super0.c): what the kernel would take
 * is parsed, what it would refuse is refused.
 */
#include "unit.h"

#include <errno.h>
#include <string.h>

#include "storage/mdsuper.h"

static const uint8_t uuid[16] = {
	0x5a, 0x1f, 0x3c, 0x2e, 0x0b, 0x4d, 0x4e, 0x5f,
	0x8a, 0x9b, 0x0c, 0x1d, 0x2e, 0x3f, 0x4a, 0x5b,
};

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static void put64(unsigned char *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

/* calc_sb_1_csum() over 256 + 2 * max_dev bytes. */
static void csum1(unsigned char *b)
{
	size_t size = 256 + 2 * (b[220] | b[221] << 8), i;
	uint64_t sum = 0;

	put32(b + 216, 0);
	for (i = 0; i + 4 <= size; i += 4)
		sum += b[i] | b[i + 1] << 8 | b[i + 2] << 16 |
		       (uint32_t)b[i + 3] << 24;
	if (size - i == 2)
		sum += b[i] | b[i + 1] << 8;
	put32(b + 216, (uint32_t)((sum & 0xffffffff) + (sum >> 32)));
}

/* A RAID1 1.x member of n disks in slot at sector sb_sector. */
static void sb1(unsigned char *b, unsigned slot, unsigned n,
		uint64_t sb_sector)
{
	unsigned i;

	memset(b, 0, MDSUPER_READ);
	put32(b, 0xa92b4efc);
	put32(b + 4, 1);
	memcpy(b + 16, uuid, 16);
	memcpy(b + 32, "host:root", 9);
	put32(b + 72, 1);
	put32(b + 92, n);
	put64(b + 128, 2048);
	put64(b + 136, 63488);
	put64(b + 144, sb_sector);
	put32(b + 160, slot);
	b[168] = 0x42;
	put64(b + 200, 0x100000007ULL);
	put64(b + 208, UINT64_MAX);
	put32(b + 220, n);
	for (i = 0; i < n; i++) {
		b[256 + 2 * i] = i;
		b[257 + 2 * i] = 0;
	}
	csum1(b);
}

static void csum090(unsigned char *b)
{
	uint64_t sum = 0;
	size_t i;

	put32(b + 4 * 38, 0);
	for (i = 0; i < 4096; i += 4)
		sum += b[i] | b[i + 1] << 8 | b[i + 2] << 16 |
		       (uint32_t)b[i + 3] << 24;
	put32(b + 4 * 38, (uint32_t)((sum & 0xffffffff) + (sum >> 32)));
}

static void w(unsigned char *b, unsigned word, uint32_t v)
{
	put32(b + 4 * word, v);
}

/* A RAID1 0.90 member of n disks in slot, superblock at byte off. */
static void sb090(unsigned char *b, unsigned slot, unsigned n, uint64_t off)
{
	unsigned i;

	memset(b, 0, MDSUPER_READ);
	w(b, 0, 0xa92b4efc);
	w(b, 2, 90);
	w(b, 5, 0x5a1f3c2e);
	w(b, 7, 1);
	w(b, 8, (uint32_t)(off / 1024));
	w(b, 9, n);
	w(b, 10, n);
	w(b, 11, 3);
	w(b, 13, 0x0b4d4e5f);
	w(b, 14, 0x8a9b0c1d);
	w(b, 15, 0x2e3f4a5b);
	w(b, 33, 1);
	w(b, 39, 7);
	w(b, 40, 1);
	for (i = 0; i < n; i++) {
		w(b, 128 + 32 * i, i);
		w(b, 128 + 32 * i + 3, i);
		w(b, 128 + 32 * i + 4, 6);	/* active, sync */
	}
	memcpy(b + 4 * 992, b + 4 * (128 + 32 * slot), 32 * 4);
	csum090(b);
}

/* The superblock the tests make, and what mdsuper_parse() read of it. */
static unsigned char b[MDSUPER_READ];
static struct mdsuper sb;

/* A 0.90 member of 32 MiB: where its superblock is. */
#define OFF090 ((32ULL << 20) - 65536)

/* The first LEN bytes of b parsed as a 1.2 superblock, at 4 KiB. */
static int parse12(size_t len)
{
	return mdsuper_parse(b, len, MDSB_12, 4096, &sb);
}

/* The first LEN bytes of b parsed as a 0.90 superblock, at OFF090. */
static int parse090(size_t len)
{
	return mdsuper_parse(b, len, MDSB_090, OFF090, &sb);
}

/* What sb1() and sb090() write alike, read back: slot 1 of 2, clean. */
static void assert_slot_1_of_2(void)
{
	assert_memory_equal(sb.uuid, uuid, 16);
	assert_int_equal(sb.level, 1);
	assert_int_equal(sb.raid_disks, 2);
	assert_int_equal(sb.role, 1);
	assert_int_equal(sb.events, 0x100000007ULL);
	assert_true(sb.clean);
}

static void offsets_are_where_the_kernel_looks(void **state)
{
	uint64_t mib32 = 32ULL << 20;

	(void)state;
	assert_int_equal(mdsuper_offset(MDSB_12, mib32), 4096);
	assert_int_equal(mdsuper_offset(MDSB_11, mib32), 0);
	assert_int_equal(mdsuper_offset(MDSB_10, mib32), mib32 - 8192);
	assert_int_equal(mdsuper_offset(MDSB_10, mib32 + 5000),
			 (mib32 + 5000 - 8192) & ~4095ULL);
	assert_int_equal(mdsuper_offset(MDSB_090, mib32), mib32 - 65536);
	assert_int_equal(mdsuper_offset(MDSB_090, mib32 + 70000),
			 mib32 - 65536 + 65536);
	assert_int_equal(mdsuper_offset(MDSB_090, 65536), UINT64_MAX);
	assert_int_equal(mdsuper_offset(MDSB_12, 4096), UINT64_MAX);
	assert_int_equal(mdsuper_offset(MDSB_KINDS, mib32), UINT64_MAX);
}

static void parses_a_12_member(void **state)
{
	(void)state;
	sb1(b, 1, 2, 8);
	assert_int_equal(parse12(sizeof(b)), 0);
	assert_int_equal(sb.major, 1);
	assert_int_equal(sb.minor, 2);
	assert_string_equal(mdsuper_version(&sb), "1.2");
	assert_slot_1_of_2();
	assert_string_equal(sb.name, "host:root");
	assert_true(sb.has_dev_uuid);
	assert_int_equal(sb.dev_uuid[0], 0x42);
	assert_int_equal(sb.preferred_minor, -1);
	assert_int_equal(mdsuper_redundancy(&sb), 1);
}

/* The same superblock is 1.0 or 1.1 only where those keep theirs. */
static void a_12_superblock_is_not_another_kind(void **state)
{
	(void)state;
	sb1(b, 0, 2, 8);
	assert_int_equal(mdsuper_parse(b, sizeof(b), MDSB_11, 0, &sb),
			 -EINVAL);
	assert_int_equal(mdsuper_parse(b, sizeof(b), MDSB_10,
				       (32 << 20) - 8192, &sb), -EINVAL);
	sb1(b, 0, 2, 0);
	assert_int_equal(mdsuper_parse(b, sizeof(b), MDSB_11, 0, &sb), 0);
	assert_string_equal(mdsuper_version(&sb), "1.1");
}

static void refuses_what_the_kernel_refuses(void **state)
{
	(void)state;
	memset(b, 0, sizeof(b));
	assert_int_equal(parse12(sizeof(b)), -ENOENT);
	sb1(b, 0, 2, 8);
	b[40] ^= 1;				/* the name, after the sum */
	assert_int_equal(parse12(sizeof(b)), -EBADMSG);
	sb1(b, 0, 2, 8);
	b[230] = 1;				/* pad3: a newer feature */
	csum1(b);
	assert_int_equal(parse12(sizeof(b)), -EINVAL);
	sb1(b, 0, 2, 8);
	put32(b + 220, 5000);			/* max_dev past 4 KiB */
	assert_int_equal(parse12(sizeof(b)), -EINVAL);
	sb1(b, 0, 2, 8);
	put32(b + 4, 2);			/* major version 2 */
	csum1(b);
	assert_int_equal(parse12(sizeof(b)), -EINVAL);
	sb1(b, 0, 2, 8);
	assert_int_equal(parse12(200), -ENOENT);
	assert_int_equal(parse12(257), -EINVAL);
}

static void spares_and_faulty_members_have_no_slot(void **state)
{
	(void)state;
	sb1(b, 1, 2, 8);
	b[258] = 0xff;
	b[259] = 0xff;
	csum1(b);
	assert_int_equal(parse12(sizeof(b)), 0);
	assert_int_equal(sb.role, MDSUPER_SPARE);
	b[258] = 0xfe;
	csum1(b);
	assert_int_equal(parse12(sizeof(b)), 0);
	assert_int_equal(sb.role, MDSUPER_FAULTY);
	sb1(b, 7, 2, 8);			/* beyond max_dev: a spare */
	assert_int_equal(parse12(sizeof(b)), 0);
	assert_int_equal(sb.role, MDSUPER_SPARE);
}

static void parses_a_090_member(void **state)
{
	(void)state;
	sb090(b, 1, 2, OFF090);
	assert_int_equal(parse090(sizeof(b)), 0);
	assert_string_equal(mdsuper_version(&sb), "0.90");
	assert_slot_1_of_2();	/* the uuid as mdadm prints it */
	assert_string_equal(sb.name, "");
	assert_int_equal(sb.preferred_minor, 3);
	assert_false(sb.has_dev_uuid);
}

static void refuses_a_damaged_090_member(void **state)
{
	(void)state;
	sb090(b, 0, 2, OFF090);
	b[4 * 7] = 5;				/* level, after the sum */
	assert_int_equal(parse090(sizeof(b)), -EBADMSG);
	sb090(b, 0, 2, OFF090);
	w(b, 8, (uint32_t)(OFF090 / 1024) + 1);	/* data over the superblock */
	csum090(b);
	assert_int_equal(parse090(sizeof(b)), -EINVAL);
	sb090(b, 0, 2, OFF090);
	w(b, 992, 27);				/* this_disk past disks[] */
	csum090(b);
	assert_int_equal(parse090(sizeof(b)), -EINVAL);
	sb090(b, 0, 2, OFF090);
	assert_int_equal(parse090(4095), -EINVAL);
	w(b, 996, 1);				/* faulty */
	w(b, 128 + 4, 1);
	csum090(b);
	assert_int_equal(parse090(sizeof(b)), 0);
	assert_int_equal(sb.role, MDSUPER_FAULTY);
}

static void redundancy_by_level(void **state)
{
	struct mdsuper md = { .raid_disks = 4 };

	(void)state;
	md.level = 1;
	assert_int_equal(mdsuper_redundancy(&md), 3);
	md.level = 5;
	assert_int_equal(mdsuper_redundancy(&md), 1);
	md.level = 6;
	assert_int_equal(mdsuper_redundancy(&md), 2);
	md.level = 0;
	assert_int_equal(mdsuper_redundancy(&md), 0);
	md.level = -1;
	assert_int_equal(mdsuper_redundancy(&md), 0);
}

UNIT_MAIN(NULL, NULL,
	cmocka_unit_test(offsets_are_where_the_kernel_looks),
	cmocka_unit_test(parses_a_12_member),
	cmocka_unit_test(a_12_superblock_is_not_another_kind),
	cmocka_unit_test(refuses_what_the_kernel_refuses),
	cmocka_unit_test(spares_and_faulty_members_have_no_slot),
	cmocka_unit_test(parses_a_090_member),
	cmocka_unit_test(refuses_a_damaged_090_member),
	cmocka_unit_test(redundancy_by_level))
