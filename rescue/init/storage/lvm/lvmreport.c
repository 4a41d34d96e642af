// SPDX-License-Identifier: GPL-2.0
/*
 * lvmreport.c: lvm's report lines and dm names of LVs, see lvmreport.h.
 * A report line is KEY='VALUE' pairs, space-separated, as lvm's
 * --nameprefixes writes them; a value ends at a quote that a space or
 * the end of the line follows (a device name may hold quotes).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "arraysize.h"
#include "lvmreport.h"

#define PREFIX	"LVM2_"

bool lvmreport_valid_name(const char *s)
{
	const char *p;

	if (!*s || *s == '-' || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr("+_.-", *p)))
			return false;
	return p - s < LVM_NAME_MAX;
}

static bool valid_uuid(const char *s)
{
	const char *p;

	for (p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '-'))
			return false;
	return p > s;
}

/* Copy v[0..n) into dst if it fits: 0, else -EINVAL. */
static int put(char *dst, size_t size, const char *v, size_t n)
{
	if (n >= size)
		return -EINVAL;
	memcpy(dst, v, n);
	dst[n] = '\0';
	return 0;
}

enum { F_PV_NAME = 1, F_PV_UUID = 2, F_MISSING = 4, F_VG_NAME = 8,
       F_VG_UUID = 16, F_ALL = 31 };

static int field(struct lvm_pv_record *r, const char *k, size_t klen,
		 const char *v, size_t vlen, unsigned *seen)
{
	static const struct {
		const char *key;
		unsigned bit;
	} keys[] = {
		{ "PV_NAME", F_PV_NAME }, { "PV_UUID", F_PV_UUID },
		{ "PV_MISSING", F_MISSING }, { "VG_NAME", F_VG_NAME },
		{ "VG_UUID", F_VG_UUID },
	};
	char missing[16];
	size_t i;
	int err = 0;

	for (i = 0; i < ARRAY_SIZE(keys); i++)
		if (strlen(keys[i].key) == klen &&
		    !memcmp(keys[i].key, k, klen))
			break;
	if (i == ARRAY_SIZE(keys))
		return 0;	/* a field asked for by a newer caller */
	switch (keys[i].bit) {
	case F_PV_NAME:
		err = put(r->pv_name, sizeof(r->pv_name), v, vlen);
		break;
	case F_PV_UUID:
		err = put(r->pv_uuid, sizeof(r->pv_uuid), v, vlen);
		break;
	case F_MISSING:
		err = put(missing, sizeof(missing), v, vlen);
		r->missing = !err && !strcmp(missing, "missing");
		break;
	case F_VG_NAME:
		err = put(r->vg_name, sizeof(r->vg_name), v, vlen);
		break;
	case F_VG_UUID:
		err = put(r->vg_uuid, sizeof(r->vg_uuid), v, vlen);
		break;
	}
	*seen |= keys[i].bit;
	return err;
}

int lvmreport_parse_line(const char *line, size_t len,
			 struct lvm_pv_record *r)
{
	const char *p = line, *end = line + len, *k, *v;
	unsigned seen = 0;
	size_t klen;
	int err;

	memset(r, 0, sizeof(*r));
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if ((size_t)(end - p) < strlen(PREFIX) ||
	    memcmp(p, PREFIX, strlen(PREFIX)))
		return -ENOENT;
	while (p < end) {
		if ((size_t)(end - p) < strlen(PREFIX) ||
		    memcmp(p, PREFIX, strlen(PREFIX)))
			return -EINVAL;
		k = p += strlen(PREFIX);
		while (p < end && ((*p >= 'A' && *p <= 'Z') || *p == '_'))
			p++;
		klen = (size_t)(p - k);
		if (p + 1 >= end || p[0] != '=' || p[1] != '\'')
			return -EINVAL;
		v = p += 2;
		while (p < end && !(*p == '\'' && (p + 1 == end ||
						   p[1] == ' ' || p[1] == '\r')))
			p++;
		if (p == end)
			return -EINVAL;	/* no closing quote */
		err = field(r, k, klen, v, (size_t)(p - v), &seen);
		if (err)
			return err;
		for (p++; p < end && (*p == ' ' || *p == '\r'); p++)
			;
	}
	if (seen != F_ALL || !valid_uuid(r->pv_uuid))
		return -EINVAL;
	if (!r->vg_name[0])
		return r->vg_uuid[0] ? -EINVAL : 0;	/* an orphan PV */
	if (!lvmreport_valid_name(r->vg_name) || !valid_uuid(r->vg_uuid))
		return -EINVAL;
	return 0;
}

size_t lvmreport_parse(const char *buf, struct lvm_pv_record *out,
		       size_t max)
{
	const char *line = buf, *nl;
	size_t n = 0, len;

	while (*line && n < max) {
		nl = strchr(line, '\n');
		len = nl ? (size_t)(nl - line) : strlen(line);
		if (lvmreport_parse_line(line, len, &out[n]) == 0)
			n++;
		if (!nl)
			break;
		line = nl + 1;
	}
	return n;
}

/* One name of a dm name from *p, up to a single '-' or the end. */
static int unmangle(const char **p, char *out, size_t size)
{
	const char *s = *p;
	size_t n = 0;

	while (*s && !(*s == '-' && s[1] != '-')) {
		if (n + 1 >= size)
			return -EINVAL;
		out[n++] = *s;
		s += *s == '-' ? 2 : 1;		/* "--" is one '-' */
	}
	out[n] = '\0';
	*p = s;
	return 0;
}

int lvmreport_split_dm_name(const char *dm, char *vg, size_t vsize,
			    char *lv, size_t lsize)
{
	const char *p = dm;

	if (unmangle(&p, vg, vsize) || *p != '-')
		return -EINVAL;
	p++;
	if (unmangle(&p, lv, lsize))
		return -EINVAL;
	if (!lvmreport_valid_name(vg) || !lvmreport_valid_name(lv))
		return -EINVAL;
	return 0;
}

bool lvmreport_same_uuid(const char *a, const char *b)
{
	for (;;) {
		while (*a == '-')
			a++;
		while (*b == '-')
			b++;
		if (*a != *b)
			return false;
		if (!*a)
			return true;
		a++;
		b++;
	}
}
