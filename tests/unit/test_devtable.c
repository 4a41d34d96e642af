// SPDX-License-Identifier: GPL-2.0
/* test_devtable.c: the device table's sizes, cells and alignment. */
#include "unit.h"

#include <stdio.h>
#include <string.h>

#include "rescue-init.h"

static char lines[8][1024];
static size_t nlines;

static void collect(void *ctx, const char *line)
{
	(void)ctx;
	snprintf(lines[nlines++], sizeof(lines[0]), "%s", line);
}

static void sizes_are_human(void **state)
{
	static const struct { uint64_t bytes; const char *text; } cases[] = {
		{ 0, "0B" }, { 512, "512B" }, { 1024, "1K" }, { 1536, "1.5K" },
		{ 16ULL << 20, "16M" }, { 3ULL << 29, "1.5G" },
		{ (21ULL << 29), "10G" }, { 1ULL << 40, "1T" },
		{ 8ULL << 60, "8E" },
	};
	char buf[16];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		devtable_human_size(cases[i].bytes, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].text);
	}
}

static void table_is_aligned_with_dashes(void **state)
{
	struct blkdev d[2];
	const char *col;

	(void)state;
	memset(d, 0, sizeof(d));
	strcpy(d[0].name, "nvme0n1");
	d[0].major = 259;
	d[0].sectors = 32768;
	strcpy(d[0].pttype, "gpt");
	strcpy(d[1].name, "nvme0n1p1");
	d[1].major = 259;
	d[1].minor = 1;
	d[1].partno = 1;
	d[1].sectors = 8192;
	strcpy(d[1].type, "ext4");
	strcpy(d[1].uuid, "0f3c8a2e-1b4d-4e5f-8a9b-0c1d2e3f4a5b");
	strcpy(d[1].label, "my root");
	strcpy(d[1].partlabel, "rescue-root");
	nlines = 0;
	devtable_format(d, 2, collect, NULL);
	assert_int_equal(nlines, 3);
	assert_string_equal(lines[0],
		"NAME      MAJ:MIN SIZE TYPE UUID                                 "
		"LABEL      PARTUUID PARTLABEL");
	assert_string_equal(lines[1],
		"nvme0n1   259:0   16M  gpt  -                                    "
		"-          -        -");
	assert_string_equal(lines[2],
		"nvme0n1p1 259:1   4M   ext4 0f3c8a2e-1b4d-4e5f-8a9b-0c1d2e3f4a5b "
		"my\\x20root -        rescue-root");
	col = strstr(lines[0], "PARTLABEL");
	assert_int_equal(col - lines[0], strstr(lines[2], "rescue-root") - lines[2]);
}

/* The cell of a one-device table's LABEL column, by the row's layout. */
static const char *label_cell(const char *label)
{
	static char out[600];
	struct blkdev d = { .name = "vda", .sectors = 8 };
	const char *p;

	snprintf(d.label, sizeof(d.label), "%s", label);
	strcpy(d.type, "ext4");
	nlines = 0;
	devtable_format(&d, 1, collect, NULL);
	assert_int_equal(nlines, 2);
	/* NAME MAJ:MIN SIZE TYPE UUID LABEL ...: the sixth field */
	p = lines[1];
	for (int f = 0; f < 5; f++) {
		p = strchr(p, ' ');
		assert_non_null(p);
		p += strspn(p, " ");
	}
	snprintf(out, sizeof(out), "%.*s", (int)strcspn(p, " "), p);
	return out;
}

static void labels_cannot_drive_the_console(void **state)
{
	(void)state;
	/* C0, DEL, a raw C1 CSI, and the UTF-8 form of C1 CSI (U+009B) */
	assert_string_equal(label_cell("a\x1b[2Jb"), "a\\x1b[2Jb");
	assert_string_equal(label_cell("a\x7f"), "a\\x7f");
	assert_string_equal(label_cell("x\x9b" "31m"), "x\\x9b31m");
	assert_string_equal(label_cell("x\xc2\x9b" "1m"), "x\\xc2\\x9b1m");
	/* invalid, overlong, surrogate, beyond U+10FFFF, cut short */
	assert_string_equal(label_cell("\xff\xfe"), "\\xff\\xfe");
	assert_string_equal(label_cell("\xc0\xaf"), "\\xc0\\xaf");
	assert_string_equal(label_cell("\xed\xa0\x80"), "\\xed\\xa0\\x80");
	assert_string_equal(label_cell("\xf4\x90\x80\x80"),
			    "\\xf4\\x90\\x80\\x80");
	assert_string_equal(label_cell("\xe2\x82"), "\\xe2\\x82");
	/* a right-to-left override would reorder the rest of the line */
	assert_string_equal(label_cell("a\xe2\x80\xae" "b"), "a\\xe2\\x80\\xaeb");
	/* printable UTF-8 stays readable; backslash is escaped */
	assert_string_equal(label_cell("Wurzel-\xc3\xa4\xe2\x82\xac"),
			    "Wurzel-\xc3\xa4\xe2\x82\xac");
	assert_string_equal(label_cell("a\\b"), "a\\x5cb");
}

static void empty_list_is_the_header(void **state)
{
	(void)state;
	nlines = 0;
	devtable_format(NULL, 0, collect, NULL);
	assert_int_equal(nlines, 1);
	assert_string_equal(lines[0], "NAME MAJ:MIN SIZE TYPE UUID LABEL PARTUUID PARTLABEL");
}

UNIT_MAIN(NULL, NULL,
	cmocka_unit_test(sizes_are_human),
	cmocka_unit_test(table_is_aligned_with_dashes),
	cmocka_unit_test(labels_cannot_drive_the_console),
	cmocka_unit_test(empty_list_is_the_header))
