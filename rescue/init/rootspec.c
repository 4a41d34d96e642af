// SPDX-License-Identifier: GPL-2.0
/* rootspec.c: parse root= in every kernel and dracut form, and match it. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rescue-init.h"

#define PARTNROFF_MAX	256	/* DISK_MAX_PARTS */

static bool is_hex(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* s is hex digit groups of the given lengths, joined by '-'. */
static bool is_hex_groups(const char *s, const int *groups, size_t ngroups)
{
	size_t i;

	for (i = 0; i < ngroups; i++) {
		if (!is_hex(s, groups[i]))
			return false;
		s += groups[i];
		if (i + 1 < ngroups && *s++ != '-')
			return false;
	}
	return *s == '\0';
}

static bool is_iso9660_uuid(const char *s)
{
	size_t i;

	/* 2023-01-31-12-34-56-00: dashes at 4, 7, 10, ..., digits between */
	for (i = 0; i < 22; i++) {
		bool dash = i == 4 || (i > 4 && i % 3 == 1);

		if (dash ? s[i] != '-' : !isdigit((unsigned char)s[i]))
			return false;
	}
	return s[22] == '\0';
}

static int check_uuid(const char *u, char *why, size_t size)
{
	static const int rfc[] = { 8, 4, 4, 4, 12 }, fat[] = { 4, 4 };
	size_t len = strlen(u);

	if (len == 36 && is_hex_groups(u, rfc, 5))
		return 0;
	if (len == 9 && is_hex_groups(u, fat, 2))
		return 0;
	if (len == 16 && is_hex(u, 16))
		return 0;
	if (len == 22 && is_iso9660_uuid(u))
		return 0;
	if (len == 36 || len == 9 || len == 16)
		snprintf(why, size, "the UUID is not hexadecimal digits in "
			 "the form 8-4-4-4-12");
	else
		snprintf(why, size, "a UUID has 36 characters "
			 "(0f3c8a2e-1b4d-4e5f-8a9b-0c1d2e3f4a5b), or 9 for "
			 "FAT (1A2B-3C4D), 16 for NTFS; this one has %zu", len);
	return -EINVAL;
}

static int check_partuuid(const char *u, size_t len, char *why, size_t size)
{
	static const int gpt[] = { 8, 4, 4, 4, 12 };
	char buf[40];

	if (len == 36) {
		memcpy(buf, u, len);
		buf[len] = '\0';
		if (is_hex_groups(buf, gpt, 5))
			return 0;
	}
	if (len >= 11 && len <= 12 && is_hex(u, 8) && u[8] == '-' &&
	    is_hex(u + 9, len - 9))
		return 0;
	snprintf(why, size, "a PARTUUID is a GPT GUID of 36 characters "
		 "(8-4-4-4-12 hex digits) or an MBR SSSSSSSS-PP; this one "
		 "has %zu characters", len);
	return -EINVAL;
}

/* udev's \xHH escapes of /dev/disk/by-label/ names, decoded. */
static void unescape(const char *s, char *out, size_t size)
{
	size_t n = 0;
	char hex[3] = "";

	while (*s && n + 1 < size) {
		if (s[0] == '\\' && s[1] == 'x' && isxdigit((unsigned char)s[2]) &&
		    isxdigit((unsigned char)s[3])) {
			hex[0] = s[2];
			hex[1] = s[3];
			out[n++] = (char)strtoul(hex, NULL, 16);
			s += 4;
		} else {
			out[n++] = *s++;
		}
	}
	out[n] = '\0';
}

static int parse_partuuid(const char *v, struct rootspec *spec, char *why,
			  size_t size)
{
	const char *slash = strchr(v, '/');
	size_t len = slash ? (size_t)(slash - v) : strlen(v);
	char *end;
	long off;

	if (len == 0) {
		snprintf(why, size, "the PARTUUID is empty");
		return -EINVAL;
	}
	if (check_partuuid(v, len, why, size))
		return -EINVAL;
	memcpy(spec->value, v, len);
	spec->value[len] = '\0';
	if (!slash)
		return 0;
	if (strncmp(slash + 1, "PARTNROFF=", 10)) {
		snprintf(why, size, "expected PARTUUID=<uuid>/PARTNROFF=<n> "
			 "after the '/'");
		return -EINVAL;
	}
	errno = 0;
	off = strtol(slash + 11, &end, 10);
	if (!slash[11] || *end || (!isdigit((unsigned char)slash[11]) &&
				   slash[11] != '-' && slash[11] != '+')) {
		snprintf(why, size, "PARTNROFF is not a number");
		return -EINVAL;
	}
	if (errno || off < -PARTNROFF_MAX || off > PARTNROFF_MAX) {
		snprintf(why, size, "PARTNROFF must be between %d and %d",
			 -PARTNROFF_MAX, PARTNROFF_MAX);
		return -ERANGE;
	}
	spec->has_partnroff = true;
	spec->partnroff = (int)off;
	return 0;
}

static int parse_devnum(const char *v, struct rootspec *spec, char *why,
			size_t size)
{
	unsigned long maj, min, dev;
	char *end;

	if (isdigit((unsigned char)*v) && strchr(v, ':')) {
		errno = 0;
		maj = strtoul(v, &end, 10);
		if (*end == ':' && isdigit((unsigned char)end[1])) {
			min = strtoul(end + 1, &end, 10);
			if (!*end && !errno && maj < 4096 && min < (1UL << 20)) {
				spec->major = maj;
				spec->minor = min;
				return 0;
			}
		}
		snprintf(why, size, "MAJ:MIN is two decimal numbers, major "
			 "below 4096 and minor below 1048576");
		return -EINVAL;
	}
	if (strlen(v) > 8 || !is_hex(v, strlen(v))) {
		snprintf(why, size, "not /dev/NAME, UUID=, LABEL=, PARTUUID=, "
			 "PARTLABEL=, MAJ:MIN or a hexadecimal device number");
		return -EINVAL;
	}
	/* The kernel's new_decode_dev() of a hex number such as fe01. */
	dev = strtoul(v, NULL, 16);
	spec->major = (dev & 0xfff00) >> 8;
	spec->minor = (dev & 0xff) | ((dev >> 12) & 0xfff00);
	return 0;
}

static const struct {
	const char *prefix;
	enum root_kind kind;
	bool escaped;
} forms[] = {
	{ "UUID=", ROOT_UUID, false },
	{ "LABEL=", ROOT_LABEL, false },
	{ "PARTUUID=", ROOT_PARTUUID, false },
	{ "PARTLABEL=", ROOT_PARTLABEL, false },
	{ "/dev/disk/by-uuid/", ROOT_UUID, true },
	{ "/dev/disk/by-label/", ROOT_LABEL, true },
	{ "/dev/disk/by-partuuid/", ROOT_PARTUUID, true },
	{ "/dev/disk/by-partlabel/", ROOT_PARTLABEL, true },
};

int rootspec_parse(const char *s, struct rootspec *spec, char *why, size_t size)
{
	char v[ROOTSPEC_VALUE_MAX];
	size_t i, len;
	char *p;

	memset(spec, 0, sizeof(*spec));
	if (!s)
		s = "";
	len = strlen(s);
	snprintf(spec->text, sizeof(spec->text), "%.180s%s", s,
		 len > 180 ? "..." : "");
	if (len == 0) {
		snprintf(why, size, "the value is empty");
		return -EINVAL;
	}
	if (len >= ROOTSPEC_VALUE_MAX) {
		snprintf(why, size, "the value is %zu bytes long, more than %d",
			 len, ROOTSPEC_VALUE_MAX - 1);
		return -ENAMETOOLONG;
	}
	if (!strncmp(s, "block:", 6))	/* dracut's explicit form */
		s += 6;
	for (i = 0; i < ARRAY_SIZE(forms); i++) {
		len = strlen(forms[i].prefix);
		if (strncmp(s, forms[i].prefix, len))
			continue;
		spec->kind = forms[i].kind;
		if (forms[i].escaped)
			unescape(s + len, v, sizeof(v));
		else
			snprintf(v, sizeof(v), "%s", s + len);
		if (!*v) {
			snprintf(why, size, "nothing after %s", forms[i].prefix);
			return -EINVAL;
		}
		if (spec->kind == ROOT_PARTUUID)
			return parse_partuuid(v, spec, why, size);
		if (spec->kind == ROOT_UUID && check_uuid(v, why, size))
			return -EINVAL;
		snprintf(spec->value, sizeof(spec->value), "%s", v);
		return 0;
	}
	if (!strncmp(s, "/dev/disk/", 10)) {
		snprintf(why, size, "without udev there is no %.40s; use UUID=, "
			 "LABEL=, PARTUUID= or PARTLABEL=", s);
		return -EINVAL;
	}
	if (!strncmp(s, "/dev/", 5)) {
		spec->kind = ROOT_DEVNAME;
		if (!s[5] || strstr(s + 5, "..")) {
			snprintf(why, size, "no device name after /dev/");
			return -EINVAL;
		}
		snprintf(spec->value, sizeof(spec->value), "%s", s + 5);
		for (p = spec->value; *p; p++)
			if (*p == '/')
				*p = '!';	/* sysfs names: cciss!c0d0 */
		return 0;
	}
	spec->kind = ROOT_DEVNUM;
	return parse_devnum(s, spec, why, size);
}

unsigned rootspec_needs(const struct rootspec *spec)
{
	switch (spec->kind) {
	case ROOT_UUID:
	case ROOT_LABEL:
		return PROBE_SB;
	case ROOT_PARTUUID:
	case ROOT_PARTLABEL:
		return PROBE_PT;
	default:
		return 0;
	}
}

static bool matches(const struct rootspec *spec, const struct blkdev *d)
{
	if (d->incomplete || d->held)
		return false;
	switch (spec->kind) {
	case ROOT_DEVNAME:	/* /dev/md/root: a layer's alias */
		return !strcmp(d->name, spec->value) ||
		       !strcmp(d->alias[0], spec->value) ||
		       !strcmp(d->alias[1], spec->value);
	case ROOT_UUID:
		return !strcasecmp(d->uuid, spec->value);
	case ROOT_LABEL:
		return !strcmp(d->label, spec->value);
	case ROOT_PARTUUID:
		return d->partno && !strcasecmp(d->partuuid, spec->value);
	case ROOT_PARTLABEL:
		return d->partno && !strcmp(d->partlabel, spec->value);
	case ROOT_DEVNUM:
		return d->major == spec->major && d->minor == spec->minor;
	}
	return false;
}

/*
 * The devices of one multi-device btrfs share its UUID and LABEL, and
 * any of them mounts it (the btrfs layer registered the others): one.
 */
static bool same_btrfs(const struct blkdev *a, const struct blkdev *b)
{
	return !strcmp(a->type, "btrfs") && !strcmp(b->type, "btrfs") &&
	       a->uuid[0] && !strcasecmp(a->uuid, b->uuid);
}

/*
 * The one device of devs[0..n) that spec names, in *found: 0 (a disk
 * seen on several paths is one, the first path).  None:
 * -ENODEV.  Two or more: -ENOTUNIQ, the first two in *found, *other.
 * PARTUUID=/PARTNROFF= whose partition is missing: -ENXIO, with the
 * partition that has the PARTUUID in *other.
 */
int rootspec_match(const struct rootspec *spec, const struct blkdev *devs,
		   size_t n, size_t *found, size_t *other)
{
	size_t i, count = 0;
	unsigned want;

	for (i = 0; i < n; i++) {
		if (!matches(spec, &devs[i]) ||
		    (count && (same_btrfs(&devs[*found], &devs[i]) ||
			       blk_same_disk(&devs[*found], &devs[i]))))
			continue;
		if (count == 0)
			*found = i;
		else if (count == 1)
			*other = i;
		count++;
	}
	if (count == 0)
		return -ENODEV;
	if (count > 1)
		return -ENOTUNIQ;
	if (!spec->has_partnroff || spec->partnroff == 0)
		return 0;
	want = devs[*found].partno + spec->partnroff;
	for (i = 0; i < n; i++) {
		/* want wraps for a negative offset past partition 1 */
		if (devs[i].partno && devs[i].partno == want &&
		    !strcmp(devs[i].disk, devs[*found].disk)) {
			*other = *found;
			*found = i;
			return 0;
		}
	}
	*other = *found;
	return -ENXIO;
}

size_t rootspec_count(const struct rootspec *spec, const struct blkdev *devs,
		      size_t n)
{
	size_t i, first = 0, count = 0;

	for (i = 0; i < n; i++) {
		if (!matches(spec, &devs[i]) ||
		    (count && (same_btrfs(&devs[first], &devs[i]) ||
			       blk_same_disk(&devs[first], &devs[i]))))
			continue;
		if (!count)
			first = i;
		count++;
	}
	return count;
}

/* Why nothing matched, for "unable to find root X: <reason>". */
const char *rootspec_absent(const struct rootspec *spec, char *buf, size_t size)
{
	switch (spec->kind) {
	case ROOT_DEVNAME:
		snprintf(buf, size, "no block device is named %.60s",
			 spec->value);
		break;
	case ROOT_UUID:
		snprintf(buf, size, "no block device has this UUID");
		break;
	case ROOT_LABEL:
		snprintf(buf, size, "no block device has this LABEL");
		break;
	case ROOT_PARTUUID:
		snprintf(buf, size, "no partition has this PARTUUID");
		break;
	case ROOT_PARTLABEL:
		snprintf(buf, size, "no partition has this PARTLABEL");
		break;
	case ROOT_DEVNUM:
		snprintf(buf, size, "no block device has the number %u:%u",
			 spec->major, spec->minor);
		break;
	}
	return buf;
}
