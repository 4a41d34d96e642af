// SPDX-License-Identifier: GPL-2.0
/* test_rootspec.c: every root= form parsed, and matched over device lists. */
#include "unit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rescue-init.h"

#define U1 "0f3c8a2e-1b4d-4e5f-8a9b-0c1d2e3f4a5b"
#define U2 "11111111-2222-4333-8444-555555555555"
#define P1 "8e2a61c4-53b7-4d2e-b1f0-6c9d4a3e7001"
#define P2 "8e2a61c4-53b7-4d2e-b1f0-6c9d4a3e7002"

static struct rootspec spec;
static char why[512];

static int parse(const char *s)
{
	why[0] = '\0';
	return rootspec_parse(s, &spec, why, sizeof(why));
}

static void dev_names(void **state)
{
	static const struct {
		const char *spec, *name;
	} good[] = {
		{ "/dev/vda2", "vda2" },
		{ "/dev/nvme0n1p3", "nvme0n1p3" },
		{ "/dev/cciss/c0d0p1", "cciss!c0d0p1" },	/* as in /sys */
		{ "block:/dev/sda", "sda" },
	};
	static const struct unit_refusal bad[] = {
		{ "/dev/", -EINVAL, NULL },
		{ "/dev/../etc", -EINVAL, NULL },
	};
	size_t i;

	(void)state;
	for (i = 0; i < UNIT_COUNT(good); i++) {
		unit_case_int(good[i].spec, parse(good[i].spec), 0);
		unit_case_int(good[i].spec, spec.kind, ROOT_DEVNAME);
		unit_case_str(good[i].spec, spec.value, good[i].name);
	}
	unit_refused(parse, why, bad, UNIT_COUNT(bad));
	assert_int_equal(rootspec_needs(&spec), 0);
}

static void uuids(void **state)
{
	(void)state;
	assert_int_equal(parse("UUID=" U1), 0);
	assert_int_equal(spec.kind, ROOT_UUID);
	assert_string_equal(spec.value, U1);
	assert_int_equal(rootspec_needs(&spec), PROBE_SB);
	assert_int_equal(parse("UUID=0F3C8A2E-1B4D-4E5F-8A9B-0C1D2E3F4A5B"), 0);
	assert_int_equal(parse("UUID=1A2B-3C4D"), 0);		/* FAT */
	assert_int_equal(parse("UUID=0123456789ABCDEF"), 0);	/* NTFS */
	assert_int_equal(parse("UUID=2023-01-31-12-34-56-00"), 0);	/* iso9660 */
}

static void bad_uuids_say_why(void **state)
{
	static const struct unit_refusal bad[] = {
		{ "UUID=0f3c-12", -EINVAL, "this one has 7" },
		{ "UUID=" U1 "0", -EINVAL, "this one has 37" },
		{ "UUID=0f3c8a2e-1b4d-4e5f-8a9b-0c1d2e3f4a5g", -EINVAL,
		  "not hexadecimal" },
		{ "UUID=0f3c8a2e11b4d-4e5f-8a9b-0c1d2e3f4a5b", -EINVAL, NULL },
		{ "UUID=2023-01-31-12-34-56-0x", -EINVAL, NULL },
	};

	(void)state;
	assert_int_equal(parse("UUID="), -EINVAL);
	assert_string_equal(why, "nothing after UUID=");
	unit_refused(parse, why, bad, UNIT_COUNT(bad));
}

static void labels(void **state)
{
	(void)state;
	assert_int_equal(parse("LABEL=my root"), 0);
	assert_int_equal(spec.kind, ROOT_LABEL);
	assert_string_equal(spec.value, "my root");
	assert_int_equal(parse("LABEL="), -EINVAL);
	assert_int_equal(parse("PARTLABEL=rescue-root"), 0);
	assert_int_equal(spec.kind, ROOT_PARTLABEL);
	assert_int_equal(rootspec_needs(&spec), PROBE_PT);
	assert_int_equal(parse("PARTLABEL="), -EINVAL);
}

static void partuuids(void **state)
{
	(void)state;
	assert_int_equal(parse("PARTUUID=" P1), 0);
	assert_int_equal(spec.kind, ROOT_PARTUUID);
	assert_false(spec.has_partnroff);
	assert_int_equal(parse("PARTUUID=5eedc0de-02"), 0);	/* MBR */
	assert_string_equal(spec.value, "5eedc0de-02");
	assert_int_equal(parse("PARTUUID=" P1 "/PARTNROFF=1"), 0);
	assert_string_equal(spec.value, P1);
	assert_true(spec.has_partnroff);
	assert_int_equal(spec.partnroff, 1);
	assert_int_equal(parse("PARTUUID=" P1 "/PARTNROFF=-2"), 0);
	assert_int_equal(spec.partnroff, -2);
}

static void bad_partuuids_say_why(void **state)
{
	static const struct unit_refusal bad[] = {
		{ "PARTUUID=" P1 "/PARTNROFF=999", -ERANGE, "between -256 and 256" },
		{ "PARTUUID=" P1 "/PARTNROFF=99999999999999999999", -ERANGE, NULL },
		{ "PARTUUID=" P1 "/PARTNROFF=", -EINVAL, NULL },
		{ "PARTUUID=" P1 "/PARTNROFF=1x", -EINVAL, NULL },
		{ "PARTUUID=" P1 "/OFFSET=1", -EINVAL, NULL },
		{ "PARTUUID=/PARTNROFF=1", -EINVAL, NULL },
		{ "PARTUUID=5eedc0de", -EINVAL, NULL },
		{ "PARTUUID=5eedc0dz-02", -EINVAL, NULL },
	};

	(void)state;
	assert_int_equal(parse("PARTUUID=" P1 "/PARTNROFF=two"), -EINVAL);
	assert_string_equal(why, "PARTNROFF is not a number");
	unit_refused(parse, why, bad, UNIT_COUNT(bad));
}

static void device_numbers(void **state)
{
	static const struct {
		const char *spec;
		unsigned major, minor;
	} good[] = {
		{ "8:1", 8, 1 },
		{ "fe01", 254, 1 },		/* major << 8 | minor */
		{ "803", 8, 3 },
		{ "1234567", 0x345, 0x1267 },	/* new_decode_dev() */
	};
	static const struct unit_refusal bad[] = {
		{ "8:", -EINVAL, NULL },
		{ "4096:0", -EINVAL, NULL },
		{ "8:1:2", -EINVAL, NULL },
		{ "0x803", -EINVAL, NULL },
		{ "fe01z", -EINVAL, NULL },
		{ "123456789", -EINVAL, NULL },
		{ "sda1", -EINVAL, "not /dev/NAME, UUID=" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < UNIT_COUNT(good); i++) {
		unit_case_int(good[i].spec, parse(good[i].spec), 0);
		unit_case_int(good[i].spec, spec.kind, ROOT_DEVNUM);
		unit_case_int(good[i].spec, spec.major, good[i].major);
		unit_case_int(good[i].spec, spec.minor, good[i].minor);
	}
	unit_refused(parse, why, bad, UNIT_COUNT(bad));
}

static void disk_by_paths_without_udev(void **state)
{
	(void)state;
	assert_int_equal(parse("/dev/disk/by-uuid/" U1), 0);
	assert_int_equal(spec.kind, ROOT_UUID);
	assert_string_equal(spec.value, U1);
	assert_int_equal(parse("/dev/disk/by-label/my\\x20root\\x2fa"), 0);
	assert_int_equal(spec.kind, ROOT_LABEL);
	assert_string_equal(spec.value, "my root/a");
	assert_int_equal(parse("/dev/disk/by-label/bad\\x2"), 0);
	assert_string_equal(spec.value, "bad\\x2");
	assert_int_equal(parse("/dev/disk/by-partuuid/" P2), 0);
	assert_int_equal(spec.kind, ROOT_PARTUUID);
	assert_int_equal(parse("/dev/disk/by-partlabel/EFI\\x20System"), 0);
	assert_int_equal(spec.kind, ROOT_PARTLABEL);
	assert_string_equal(spec.value, "EFI System");
	assert_int_equal(parse("/dev/disk/by-uuid/nothex"), -EINVAL);
	assert_int_equal(parse("/dev/disk/by-id/ata-QEMU"), -EINVAL);
	assert_non_null(strstr(why, "without udev"));
	assert_int_equal(parse("/dev/disk/by-uuid/"), -EINVAL);
}

static void empty_and_long_values(void **state)
{
	char s[2100];

	(void)state;
	assert_int_equal(parse(""), -EINVAL);
	assert_string_equal(why, "the value is empty");
	assert_int_equal(rootspec_parse(NULL, &spec, why, sizeof(why)), -EINVAL);
	memcpy(s, "LABEL=", 6);
	memset(s + 6, 'a', 2041);
	s[2047] = '\0';
	assert_int_equal(parse(s), -ENAMETOOLONG);
	assert_non_null(strstr(why, "2047 bytes long"));
	assert_true(strlen(spec.text) < sizeof(spec.text));
	assert_non_null(strstr(spec.text, "..."));
	s[1023] = '\0';
	assert_int_equal(parse(s), 0);
	assert_int_equal(strlen(spec.value), 1023 - 6);
}

/* vda (ext4), nvme0n1 with three partitions, sda (twin of vda's UUID). */
static struct blkdev devs[8];
static size_t ndevs;

static struct blkdev *add(const char *name, unsigned maj, unsigned min,
			  unsigned partno, const char *disk)
{
	struct blkdev *d = &devs[ndevs++];

	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", name);
	snprintf(d->node, sizeof(d->node), "/dev/%s", name);
	d->major = maj;
	d->minor = min;
	d->partno = partno;
	snprintf(d->disk, sizeof(d->disk), "%s", disk ? disk : "");
	d->sb_probed = d->pt_probed = true;
	return d;
}

static int setup_devices(void **state)
{
	struct blkdev *d;

	(void)state;
	ndevs = 0;
	d = add("vda", 254, 0, 0, NULL);
	strcpy(d->uuid, U1);
	strcpy(d->label, "root");
	strcpy(d->type, "ext4");
	add("nvme0n1", 259, 0, 0, NULL);
	d = add("nvme0n1p1", 259, 1, 1, "nvme0n1");
	strcpy(d->partuuid, P1);
	strcpy(d->partlabel, "esp");
	d = add("nvme0n1p2", 259, 2, 2, "nvme0n1");
	strcpy(d->partuuid, "8e2a61c4-53b7-4d2e-b1f0-6c9d4a3e7003");
	strcpy(d->partlabel, "rescue-root");
	strcpy(d->uuid, U2);
	d = add("nvme0n1p3", 259, 3, 3, "nvme0n1");
	strcpy(d->partuuid, "8e2a61c4-53b7-4d2e-b1f0-6c9d4a3e7004");
	add("vdb", 254, 16, 0, NULL);
	d = add("vdb2", 254, 18, 2, "vdb");	/* another disk's partition 2 */
	strcpy(d->partuuid, P2);
	strcpy(d->partlabel, "Root");
	return 0;
}

static int match(const char *s, size_t *found, size_t *other)
{
	assert_int_equal(parse(s), 0);
	return rootspec_match(&spec, devs, ndevs, found, other);
}

static void matches_each_form(void **state)
{
	static const struct {
		const char *spec, *dev;
	} cases[] = {
		{ "/dev/nvme0n1p3", "nvme0n1p3" },
		{ "UUID=0F3C8A2E-1B4D-4E5F-8A9B-0C1D2E3F4A5B", "vda" },
		{ "LABEL=root", "vda" },
		{ "PARTUUID=" P1, "nvme0n1p1" },
		{ "PARTLABEL=rescue-root", "nvme0n1p2" },
		{ "259:2", "nvme0n1p2" },
		{ "fe12", "vdb2" },
		{ "/dev/disk/by-uuid/" U2, "nvme0n1p2" },
		{ "/dev/disk/by-partuuid/" P2, "vdb2" },
	};
	size_t i, f = 99, o = 99;

	(void)state;
	for (i = 0; i < UNIT_COUNT(cases); i++) {
		unit_case_int(cases[i].spec, match(cases[i].spec, &f, &o), 0);
		unit_case_str(cases[i].spec, devs[f].name, cases[i].dev);
	}
}

static void no_match_says_what_is_missing(void **state)
{
	size_t f, o;
	char buf[128];

	(void)state;
	assert_int_equal(match("LABEL=Root", &f, &o), -ENODEV);	/* case */
	assert_string_equal(rootspec_absent(&spec, buf, sizeof(buf)),
			    "no block device has this LABEL");
	assert_int_equal(match("PARTLABEL=root", &f, &o), -ENODEV);
	assert_string_equal(rootspec_absent(&spec, buf, sizeof(buf)),
			    "no partition has this PARTLABEL");
	assert_int_equal(match("/dev/vdc", &f, &o), -ENODEV);
	assert_string_equal(rootspec_absent(&spec, buf, sizeof(buf)),
			    "no block device is named vdc");
	assert_int_equal(match("8:0", &f, &o), -ENODEV);
	assert_string_equal(rootspec_absent(&spec, buf, sizeof(buf)),
			    "no block device has the number 8:0");
	assert_int_equal(match("UUID=" P1, &f, &o), -ENODEV);	/* a PARTUUID */
	assert_int_equal(match("PARTUUID=" U1, &f, &o), -ENODEV);	/* a UUID */
	assert_int_equal(rootspec_match(&spec, devs, 0, &f, &o), -ENODEV);
}

static void two_matches_name_both(void **state)
{
	size_t f = 99, o = 99;

	(void)state;
	strcpy(devs[5].uuid, "0F3C8A2E-1B4D-4E5F-8A9B-0C1D2E3F4A5B");	/* vdb */
	assert_int_equal(match("UUID=" U1, &f, &o), -ENOTUNIQ);
	assert_string_equal(devs[f].node, "/dev/vda");
	assert_string_equal(devs[o].node, "/dev/vdb");
	assert_int_equal(rootspec_count(&spec, devs, ndevs), 2);
	strcpy(devs[6].label, "root");
	assert_int_equal(match("LABEL=root", &f, &o), -ENOTUNIQ);
	assert_string_equal(devs[o].name, "vdb2");
}

/* A storage layer's name for a device it made: /dev/md/root. */
static void matches_a_layer_alias(void **state)
{
	size_t f = 99, o = 99;

	(void)state;
	assert_int_equal(match("/dev/md/root", &f, &o), -ENODEV);
	strcpy(devs[5].alias[1], "md!root");		/* vdb */
	assert_int_equal(match("/dev/md/root", &f, &o), 0);
	assert_string_equal(devs[f].name, "vdb");
	assert_int_equal(match("/dev/md/other", &f, &o), -ENODEV);
	assert_int_equal(match("/dev/vdb", &f, &o), 0);
}

/* The devices of one multi-device btrfs are one match, the first. */
static void devices_of_one_btrfs_are_one_match(void **state)
{
	size_t f = 99, o = 99;

	(void)state;
	strcpy(devs[0].type, "btrfs");			/* vda */
	strcpy(devs[5].type, "btrfs");			/* vdb */
	strcpy(devs[5].uuid, U1);
	strcpy(devs[5].label, "root");
	assert_int_equal(match("UUID=" U1, &f, &o), 0);
	assert_string_equal(devs[f].name, "vda");
	assert_int_equal(rootspec_count(&spec, devs, ndevs), 1);
	assert_int_equal(match("LABEL=root", &f, &o), 0);
	/* Its layer still misses devices: vda is not matched, vdb is. */
	devs[0].incomplete = true;
	assert_int_equal(match("UUID=" U1, &f, &o), 0);
	assert_string_equal(devs[f].name, "vdb");
	devs[5].incomplete = true;
	assert_int_equal(match("UUID=" U1, &f, &o), -ENODEV);
	devs[0].incomplete = devs[5].incomplete = false;
	strcpy(devs[5].type, "ext4");	/* a twin that is not btrfs */
	assert_int_equal(match("UUID=" U1, &f, &o), -ENOTUNIQ);
}

/* One disk on two paths is one match; a clone with another identity is not. */
static void paths_of_one_disk_are_one_match(void **state)
{
	size_t f = 99, o = 99;

	(void)state;
	strcpy(devs[5].uuid, U1);			/* vdb: vda's UUID */
	devs[5].sectors = devs[0].sectors;
	devs[5].partno = devs[0].partno;
	assert_int_equal(match("UUID=" U1, &f, &o), -ENOTUNIQ);
	strcpy(devs[0].path_id, "wwid:naa.5000c50015ea71ac");
	strcpy(devs[5].path_id, "wwid:naa.5000c50015ea71ac");
	assert_int_equal(match("UUID=" U1, &f, &o), 0);
	assert_string_equal(devs[f].name, "vda");
	assert_int_equal(rootspec_count(&spec, devs, ndevs), 1);
	devs[5].sectors++;		/* not the same blocks */
	assert_int_equal(match("UUID=" U1, &f, &o), -ENOTUNIQ);
	devs[5].sectors--;
	strcpy(devs[5].path_id, "wwid:naa.5000c50015ea71ad");
	assert_int_equal(match("UUID=" U1, &f, &o), -ENOTUNIQ);
	devs[0].path_id[0] = devs[5].path_id[0] = '\0';	/* no identity */
	assert_int_equal(match("UUID=" U1, &f, &o), -ENOTUNIQ);
	/* the paths of a multipath map are the map's: skipped */
	devs[0].held = true;
	assert_int_equal(match("UUID=" U1, &f, &o), 0);
	assert_string_equal(devs[f].name, "vdb");
	devs[5].held = true;
	assert_int_equal(match("UUID=" U1, &f, &o), -ENODEV);
	devs[0].held = devs[5].held = false;
}

static void partnroff_counts_on_the_same_disk(void **state)
{
	size_t f = 99, o = 99;

	(void)state;
	assert_int_equal(match("PARTUUID=" P1 "/PARTNROFF=1", &f, &o), 0);
	assert_string_equal(devs[f].name, "nvme0n1p2");	/* not vdb2 */
	assert_string_equal(devs[o].name, "nvme0n1p1");
	assert_int_equal(match("PARTUUID=" P1 "/PARTNROFF=2", &f, &o), 0);
	assert_string_equal(devs[f].name, "nvme0n1p3");
	assert_int_equal(match("PARTUUID=" P1 "/PARTNROFF=0", &f, &o), 0);
	assert_string_equal(devs[f].name, "nvme0n1p1");
	assert_int_equal(match("PARTUUID=8E2A61C4-53B7-4D2E-B1F0-6C9D4A3E7004/PARTNROFF=-2",
			       &f, &o), 0);
	assert_string_equal(devs[f].name, "nvme0n1p1");
	assert_int_equal(match("PARTUUID=" P1 "/PARTNROFF=3", &f, &o), -ENXIO);
	assert_string_equal(devs[o].name, "nvme0n1p1");
	assert_int_equal(match("PARTUUID=" P1 "/PARTNROFF=-1", &f, &o), -ENXIO);
	assert_int_equal(match("PARTUUID=" P2 "/PARTNROFF=-1", &f, &o), -ENXIO);
}

static void survives_random_specs(void **state)
{
	static const char alphabet[] = "UIDLABEPRTNOF=/-:0123456789abcdefx\\";
	char s[80];
	size_t i, len, f, o;
	int round;

	(void)state;
	srand(3);
	setup_devices(NULL);
	for (round = 0; round < 20000; round++) {
		len = (size_t)rand() % (sizeof(s) - 1);
		for (i = 0; i < len; i++)
			s[i] = alphabet[rand() % (sizeof(alphabet) - 1)];
		s[len] = '\0';
		if (round % 4 == 0)
			memcpy(s, "PARTUUID=", len < 9 ? len : 9);
		if (parse(s) == 0)
			rootspec_match(&spec, devs, ndevs, &f, &o);
		else
			assert_true(why[0] != '\0');
	}
}

UNIT_MAIN(NULL, NULL,
	cmocka_unit_test(dev_names),
	cmocka_unit_test(uuids),
	cmocka_unit_test(bad_uuids_say_why),
	cmocka_unit_test(labels),
	cmocka_unit_test(partuuids),
	cmocka_unit_test(bad_partuuids_say_why),
	cmocka_unit_test(device_numbers),
	cmocka_unit_test(disk_by_paths_without_udev),
	cmocka_unit_test(empty_and_long_values),
	cmocka_unit_test_setup(matches_each_form, setup_devices),
	cmocka_unit_test_setup(no_match_says_what_is_missing, setup_devices),
	cmocka_unit_test_setup(two_matches_name_both, setup_devices),
	cmocka_unit_test_setup(matches_a_layer_alias, setup_devices),
	cmocka_unit_test_setup(paths_of_one_disk_are_one_match, setup_devices),
	cmocka_unit_test_setup(devices_of_one_btrfs_are_one_match,
			       setup_devices),
	cmocka_unit_test_setup(partnroff_counts_on_the_same_disk, setup_devices),
	cmocka_unit_test(survives_random_specs))
