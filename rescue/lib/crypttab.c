// SPDX-License-Identifier: GPL-2.0
/*
 * crypttab.c: parse /etc/crypttab lines and the rd.luks.name= and
 * rd.luks.options= values (crypttab.h).  Options that rescue-init has
 * no use for (cipher=, tries=, x-systemd.*) are accepted and ignored,
 * as systemd-cryptsetup ignores those it does not know: the same file
 * serves the booted system.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "crypttab.h"

#define BLANKS	" \t"

bool crypttab_name_ok(const char *name)
{
	size_t n = strlen(name);

	return n > 0 && n < CRYPTTAB_NAME_MAX && !strchr(name, '/') &&
	       strcmp(name, ".") && strcmp(name, "..") &&
	       !name[strcspn(name, " \t\n\\\"'")];
}

/* VALUE (LEN bytes) into DST of SIZE: -EINVAL if it does not fit. */
static int copy(char *dst, size_t size, const char *v, size_t len)
{
	if (len >= size)
		return -EINVAL;
	memcpy(dst, v, len);
	dst[len] = '\0';
	return 0;
}

/* The options that make an entry one rescue-init does not open. */
static bool not_luks(const char *o, size_t len)
{
	static const char *const kinds[] = { "plain", "swap", "tmp", "tcrypt",
					     "bitlk", "loopaes", NULL };
	size_t i;

	for (i = 0; kinds[i]; i++)
		if (strlen(kinds[i]) == len && !strncmp(o, kinds[i], len))
			return true;
	return false;
}

/* One option, O of LEN bytes. */
static int option(const char *o, size_t len, struct crypttab_entry *e,
		  char *why, size_t size)
{
	static const struct { const char *name; unsigned flag; } flags[] = {
		{ "discard", CT_DISCARD }, { "readonly", CT_READONLY },
		{ "read-only", CT_READONLY }, { "initramfs", CT_INITRAMFS },
		{ "x-initrd.attach", CT_ATTACH }, { "nofail", CT_NOFAIL },
	};
	size_t i;

	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (strlen(flags[i].name) == len &&
		    !strncmp(o, flags[i].name, len)) {
			e->flags |= flags[i].flag;
			return 0;
		}
	if (not_luks(o, len)) {
		e->flags |= CT_NOT_LUKS;
		copy(e->not_luks, sizeof(e->not_luks), o, len);
		return 0;
	}
	if (len > 7 && !strncmp(o, "header=", 7)) {
		if (o[7] != '/' || copy(e->header, sizeof(e->header), o + 7,
					len - 7)) {
			snprintf(why, size, "header= is not an absolute path "
				 "shorter than %d characters",
				 CRYPTTAB_FIELD_MAX);
			return -EINVAL;
		}
		return 0;
	}
	if (len >= 10 && !strncmp(o, "keyscript=", 10)) {
		/* said by the reader, which refuses it */
		if (copy(e->keyscript, sizeof(e->keyscript), o + 10, len - 10))
			copy(e->keyscript, sizeof(e->keyscript), "(too long)",
			     10);
		if (!e->keyscript[0])
			snprintf(e->keyscript, sizeof(e->keyscript), "(empty)");
		return 0;
	}
	return 0;
}

int crypttab_options(const char *opts, struct crypttab_entry *e,
		     char *why, size_t size)
{
	const char *o = opts;
	size_t len;

	while (*o) {
		len = strcspn(o, ",");
		if (len && option(o, len, e, why, size))
			return -EINVAL;
		o += len;
		if (*o == ',')
			o++;
	}
	return 0;
}

/* The next blank-separated field of *S into DST, 0 or -EINVAL. */
static int field(const char **s, char *dst, size_t size)
{
	size_t len;

	*s += strspn(*s, BLANKS);
	len = strcspn(*s, BLANKS);
	if (copy(dst, size, *s, len))
		return -EINVAL;
	*s += len;
	return 0;
}

int crypttab_parse_line(const char *line, struct crypttab_entry *e,
			char *why, size_t size)
{
	char opts[CRYPTTAB_LINE_MAX];
	const char *s = line + strspn(line, BLANKS);

	memset(e, 0, sizeof(*e));
	if (!*s || *s == '#')
		return 0;
	if (field(&s, e->name, sizeof(e->name)) || !crypttab_name_ok(e->name)) {
		snprintf(why, size, "the name is not a /dev/mapper name (no "
			 "'/', quotes or backslashes, under %d characters)",
			 CRYPTTAB_NAME_MAX);
		return -EINVAL;
	}
	if (field(&s, e->source, sizeof(e->source)) || !e->source[0]) {
		snprintf(why, size, e->source[0] ? "the device is too long" :
			 "no device after the name");
		return -EINVAL;
	}
	if (field(&s, e->keyfile, sizeof(e->keyfile))) {
		snprintf(why, size, "the key file is too long");
		return -EINVAL;
	}
	if (!strcmp(e->keyfile, "none") || !strcmp(e->keyfile, "-"))
		e->keyfile[0] = '\0';
	if (field(&s, opts, sizeof(opts))) {
		snprintf(why, size, "the options are too long");
		return -EINVAL;
	}
	s += strspn(s, BLANKS);
	if (*s) {
		snprintf(why, size, "more than four fields");
		return -EINVAL;
	}
	return crypttab_options(opts, e, why, size) ? -EINVAL : 1;
}

size_t crypttab_parse(const char *text, struct crypttab_entry *out,
		      size_t max, crypttab_bad_fn *bad, void *ctx)
{
	char line[CRYPTTAB_LINE_MAX], why[200];
	const char *p = text;
	size_t n = 0, len;
	int no = 0, r;

	while (*p) {
		len = strcspn(p, "\n");
		no++;
		if (len >= sizeof(line)) {
			if (bad)
				bad(ctx, no, "longer than 2047 characters");
		} else {
			memcpy(line, p, len);
			line[len] = '\0';
			if (len && line[len - 1] == '\r')
				line[len - 1] = '\0';
			r = n < max ? crypttab_parse_line(line, &out[n], why,
							  sizeof(why)) : 0;
			if (r > 0)
				out[n++].line = no;
			else if (r < 0 && bad)
				bad(ctx, no, why);
			else if (n == max && bad &&
				 line[strspn(line, BLANKS)] &&
				 line[strspn(line, BLANKS)] != '#')
				bad(ctx, no, "too many entries");
		}
		p += len;
		if (*p == '\n')
			p++;
	}
	return n;
}

/* Whether S (LEN bytes) looks like a LUKS UUID: hex digits and dashes. */
static bool uuid_like(const char *s, size_t len)
{
	size_t i, dashes = 0;

	if (len < 8)
		return false;
	for (i = 0; i < len; i++) {
		if (s[i] == '-')
			dashes++;
		else if (!strchr("0123456789abcdefABCDEF", s[i]))
			return false;
	}
	return dashes > 0;
}

/* "UUID=" and "luks-" dropped from the front of S. */
static const char *uuid_start(const char *s)
{
	if (!strncasecmp(s, "UUID=", 5))
		s += 5;
	if (!strncasecmp(s, "luks-", 5))
		s += 5;
	return s;
}

int crypttab_luks_name(const char *s, char *uuid, size_t usize,
		       char *name, size_t nsize, char *why, size_t size)
{
	const char *u = uuid_start(s), *eq = strchr(u, '=');

	if (!eq || !uuid_like(u, (size_t)(eq - u)) ||
	    copy(uuid, usize, u, (size_t)(eq - u))) {
		snprintf(why, size, "not UUID=NAME (a LUKS UUID, '=', a name)");
		return -EINVAL;
	}
	if (!crypttab_name_ok(eq + 1) || copy(name, nsize, eq + 1,
					       strlen(eq + 1))) {
		snprintf(why, size, "the name is not a /dev/mapper name");
		return -EINVAL;
	}
	return 0;
}

int crypttab_luks_options(const char *s, char *uuid, size_t usize,
			  struct crypttab_entry *e, char *why, size_t size)
{
	const char *u = uuid_start(s), *eq = strchr(u, '=');

	memset(e, 0, sizeof(*e));
	uuid[0] = '\0';
	if (eq && uuid_like(u, (size_t)(eq - u))) {
		if (copy(uuid, usize, u, (size_t)(eq - u))) {
			snprintf(why, size, "the UUID is too long");
			return -EINVAL;
		}
		s = eq + 1;
	}
	return crypttab_options(s, e, why, size);
}
