// SPDX-License-Identifier: GPL-2.0
/*
 * test_lvmreport.c: what storage-lvm.c reads from lvm 2.03.16: `lvm pvs
 * --noheadings --nameprefixes` output as it was captured in a VM (one
 * PV found, one missing, lvm's warnings between), and the dm names lvm
 * gives LVs.
 */
#include "unit.h"

#include <errno.h>
#include <string.h>

#include "storage/lvm/lvmreport.h"

static const char span_output[] =
	"  WARNING: Couldn't find device with uuid Rescue-PV00-0000-0000-0000-0002-span02.\n"
	"  WARNING: VG span is missing PV Rescue-PV00-0000-0000-0000-0002-span02 (last written to /dev/vdc).\n"
	"  LVM2_PV_NAME='/dev/vdb' LVM2_PV_UUID='Rescue-PV00-0000-0000-0000-0001-span01' LVM2_PV_MISSING='' LVM2_VG_NAME='span' LVM2_VG_UUID='3Gj9gA-3TGt-juJf-mQ2B-28fw-r1mb-AJ1HMp'\n"
	"  LVM2_PV_NAME='[unknown]' LVM2_PV_UUID='Rescue-PV00-0000-0000-0000-0002-span02' LVM2_PV_MISSING='missing' LVM2_VG_NAME='span' LVM2_VG_UUID='3Gj9gA-3TGt-juJf-mQ2B-28fw-r1mb-AJ1HMp'\n";

static void parses_found_and_missing_pvs(void **state)
{
	struct lvm_pv_record r[4];

	(void)state;
	assert_int_equal(lvmreport_parse(span_output, r, 4), 2);
	assert_string_equal(r[0].pv_name, "/dev/vdb");
	assert_string_equal(r[0].pv_uuid, "Rescue-PV00-0000-0000-0000-0001-span01");
	assert_false(r[0].missing);
	assert_string_equal(r[0].vg_name, "span");
	assert_string_equal(r[0].vg_uuid, "3Gj9gA-3TGt-juJf-mQ2B-28fw-r1mb-AJ1HMp");
	assert_string_equal(r[1].pv_name, "[unknown]");
	assert_true(r[1].missing);
	assert_string_equal(r[1].pv_uuid, "Rescue-PV00-0000-0000-0000-0002-span02");
	/* no room: the first only */
	assert_int_equal(lvmreport_parse(span_output, r, 1), 1);
}

/* The record line() read. */
static struct lvm_pv_record rec;

static int line(const char *s)
{
	return lvmreport_parse_line(s, strlen(s), &rec);
}

static void an_orphan_pv_has_no_vg(void **state)
{
	(void)state;
	assert_int_equal(line("  LVM2_PV_NAME='/dev/vdc' LVM2_PV_UUID='abc-def' "
			      "LVM2_PV_MISSING='' LVM2_VG_NAME='' LVM2_VG_UUID=''"), 0);
	assert_string_equal(rec.vg_name, "");
	/* a VG UUID without a name is not lvm's */
	assert_int_equal(line("LVM2_PV_NAME='/dev/vdc' LVM2_PV_UUID='abc' "
			      "LVM2_PV_MISSING='' LVM2_VG_NAME='' LVM2_VG_UUID='x'"), -EINVAL);
}

static void a_device_name_may_hold_quotes_and_spaces(void **state)
{
	(void)state;
	assert_int_equal(line("LVM2_PV_NAME='/dev/disk/a b'c' LVM2_PV_UUID='u1' "
			      "LVM2_PV_MISSING='' LVM2_VG_NAME='vg' LVM2_VG_UUID='u2'\r"), 0);
	assert_string_equal(rec.pv_name, "/dev/disk/a b'c");
}

static void refuses_what_lvm_would_not_write(void **state)
{
	static const struct unit_refusal bad[] = {
		/* not a report line */
		{ "  WARNING: LVM2_PV_NAME='x'", -ENOENT, NULL },
		{ "", -ENOENT, NULL },
		/* a field missing */
		{ "LVM2_PV_NAME='/dev/vda' LVM2_PV_UUID='u' "
		  "LVM2_VG_NAME='vg' LVM2_VG_UUID='u'", -EINVAL, NULL },
		/* no closing quote, no quote, garbage between */
		{ "LVM2_PV_NAME='/dev/vda LVM2_PV_UUID", -EINVAL, NULL },
		{ "LVM2_PV_NAME=/dev/vda", -EINVAL, NULL },
		{ "LVM2_PV_NAME='a' x LVM2_PV_UUID='u'", -EINVAL, NULL },
		/* a VG name lvm refuses: it would reach lvm's command line */
		{ "LVM2_PV_NAME='/dev/vda' LVM2_PV_UUID='u' LVM2_PV_MISSING='' "
		  "LVM2_VG_NAME='a\"b' LVM2_VG_UUID='u'", -EINVAL, NULL },
		{ "LVM2_PV_NAME='/dev/vda' LVM2_PV_UUID='u' LVM2_PV_MISSING='' "
		  "LVM2_VG_NAME='-vg' LVM2_VG_UUID='u'", -EINVAL, NULL },
		{ "LVM2_PV_NAME='/dev/vda' LVM2_PV_UUID='u u' LVM2_PV_MISSING='' "
		  "LVM2_VG_NAME='vg' LVM2_VG_UUID='u'", -EINVAL, NULL },
		/* a UUID too long for its field */
		{ "LVM2_PV_NAME='/dev/vda' LVM2_PV_UUID="
		  "'0123456789012345678901234567890123456789' LVM2_PV_MISSING='' "
		  "LVM2_VG_NAME='vg' LVM2_VG_UUID='u'", -EINVAL, NULL },
	};

	(void)state;
	unit_refused(line, NULL, bad, UNIT_COUNT(bad));
}

static void splits_dm_names_as_lvm_mangles_them(void **state)
{
	char vg[LVM_NAME_MAX], lv[LVM_NAME_MAX];

	(void)state;
	assert_int_equal(lvmreport_split_dm_name("rescue--vg-root--lv", vg,
						 sizeof(vg), lv, sizeof(lv)), 0);
	assert_string_equal(vg, "rescue-vg");
	assert_string_equal(lv, "root-lv");
	assert_int_equal(lvmreport_split_dm_name("vg-lv-real", vg, sizeof(vg),
						 lv, sizeof(lv)), 0);
	assert_string_equal(lv, "lv");
	assert_int_equal(lvmreport_split_dm_name("a---b", vg, sizeof(vg), lv,
						 sizeof(lv)), 0);
	assert_string_equal(vg, "a-");
	assert_string_equal(lv, "b");
	/* not an LV's: no separator, an empty part, a name lvm refuses */
	assert_int_equal(lvmreport_split_dm_name("luks-1234", vg, sizeof(vg),
						 lv, sizeof(lv)), 0);
	assert_int_equal(lvmreport_split_dm_name("crypt", vg, sizeof(vg), lv,
						 sizeof(lv)), -EINVAL);
	assert_int_equal(lvmreport_split_dm_name("vg-", vg, sizeof(vg), lv,
						 sizeof(lv)), -EINVAL);
	assert_int_equal(lvmreport_split_dm_name("v/g-lv", vg, sizeof(vg), lv,
						 sizeof(lv)), -EINVAL);
	assert_int_equal(lvmreport_split_dm_name("vg-lv", vg, 2, lv,
						 sizeof(lv)), -EINVAL);
}

static void uuids_compare_without_dashes(void **state)
{
	(void)state;
	assert_true(lvmreport_same_uuid("abc-DEF", "abcDEF"));
	assert_false(lvmreport_same_uuid("abc-DEF", "abcdef"));
	assert_false(lvmreport_same_uuid("abc", "abcd"));
	assert_true(lvmreport_same_uuid("", "--"));
}

UNIT_MAIN(NULL, NULL,
	cmocka_unit_test(parses_found_and_missing_pvs),
	cmocka_unit_test(an_orphan_pv_has_no_vg),
	cmocka_unit_test(a_device_name_may_hold_quotes_and_spaces),
	cmocka_unit_test(refuses_what_lvm_would_not_write),
	cmocka_unit_test(splits_dm_names_as_lvm_mangles_them),
	cmocka_unit_test(uuids_compare_without_dashes))
