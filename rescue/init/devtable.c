// SPDX-License-Identifier: GPL-2.0
/* devtable.c: the table of block devices shown when the root is not found. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rescue-init.h"

enum { C_NAME, C_DEV, C_SIZE, C_TYPE, C_UUID, C_LABEL, C_PARTUUID,
       C_PARTLABEL, NCOLS };

static const char *const headers[NCOLS] = {
	"NAME", "MAJ:MIN", "SIZE", "TYPE", "UUID", "LABEL", "PARTUUID",
	"PARTLABEL",
};

/* 16M, 1.5G, 512B: binary units, one decimal below 10. */
void devtable_human_size(uint64_t bytes, char *buf, size_t size)
{
	static const char units[] = "BKMGTPE";
	uint64_t whole = bytes, rem = 0;
	size_t u = 0;

	while (whole >= 1024 && u < sizeof(units) - 2) {
		rem = whole % 1024;
		whole /= 1024;
		u++;
	}
	if (u > 0 && whole < 10 && rem * 10 / 1024 > 0)
		snprintf(buf, size, "%" PRIu64 ".%" PRIu64 "%c", whole,
			 rem * 10 / 1024, units[u]);
	else
		snprintf(buf, size, "%" PRIu64 "%c", whole, units[u]);
}

/*
 * Length of the UTF-8 sequence at s if it encodes a character that is
 * safe to print on a console, else 0.  Refused: malformed, overlong and
 * surrogate sequences, the C1 controls U+0080..U+009F (a raw 0x9b is
 * CSI on many terminals, and so is its two-byte form on some), and the
 * invisible direction overrides U+202A..U+202E, U+2066..U+2069.
 */
static size_t printable_utf8(const unsigned char *s)
{
	static const unsigned smallest[5] = { 0, 0, 0x80, 0x800, 0x10000 };
	unsigned cp, i, len;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	cp = s[0] & (0x7fu >> len);
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < smallest[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ||
	    cp <= 0x9f || (cp >= 0x202a && cp <= 0x202e) ||
	    (cp >= 0x2066 && cp <= 0x2069))
		return 0;
	return len;
}

/*
 * A table cell, or any string from a disk in a message: "-" when empty;
 * printable ASCII and printable UTF-8 as they are; blanks, backslashes,
 * every control byte and every byte of a sequence that is not printable
 * UTF-8 as \xHH, like udev's encoding, so that no disk label can move
 * the cursor or recolour the console.
 */
void devtable_escape(const char *s, char *buf, size_t size)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0, len;

	if (!s || !*s) {
		snprintf(buf, size, "-");
		return;
	}
	while (*p && n + 5 < size) {
		if (*p > ' ' && *p < 0x7f && *p != '\\') {
			buf[n++] = (char)*p++;
		} else if (*p >= 0x80 && (len = printable_utf8(p)) &&
			   n + len + 1 < size) {
			memcpy(buf + n, p, len);
			n += len;
			p += len;
		} else {
			n += snprintf(buf + n, size - n, "\\x%02x", *p++);
		}
	}
	buf[n] = '\0';
}

static void row_cells(const struct blkdev *d, char cells[NCOLS][300])
{
	const char *type = d->type[0] ? d->type : d->pttype;

	devtable_escape(d->name, cells[C_NAME], sizeof(cells[0]));
	snprintf(cells[C_DEV], sizeof(cells[0]), "%u:%u", d->major, d->minor);
	devtable_human_size(d->sectors * 512, cells[C_SIZE], sizeof(cells[0]));
	devtable_escape(type, cells[C_TYPE], sizeof(cells[0]));
	devtable_escape(d->uuid, cells[C_UUID], sizeof(cells[0]));
	devtable_escape(d->label, cells[C_LABEL], sizeof(cells[0]));
	devtable_escape(d->partuuid, cells[C_PARTUUID], sizeof(cells[0]));
	devtable_escape(d->partlabel, cells[C_PARTLABEL], sizeof(cells[0]));
}

static void emit(char cells[NCOLS][300], const size_t *width,
		 devtable_line_fn *fn, void *ctx)
{
	char line[NCOLS * 300 + NCOLS];
	size_t c, n = 0;

	for (c = 0; c < NCOLS; c++) {
		if (c + 1 < NCOLS)
			n += snprintf(line + n, sizeof(line) - n, "%-*s ",
				      (int)width[c], cells[c]);
		else
			n += snprintf(line + n, sizeof(line) - n, "%s",
				      cells[c]);
	}
	fn(ctx, line);
}

/*
 * The header, then one aligned line per device, then one for each that
 * could not be probed and why, each passed to fn.
 */
void devtable_format(const struct blkdev *devs, size_t n,
		     devtable_line_fn *fn, void *ctx)
{
	static char cells[NCOLS][300];
	size_t width[NCOLS], i, c;

	for (c = 0; c < NCOLS; c++)
		width[c] = strlen(headers[c]);
	for (i = 0; i < n; i++) {
		row_cells(&devs[i], cells);
		for (c = 0; c < NCOLS; c++)
			if (strlen(cells[c]) > width[c])
				width[c] = strlen(cells[c]);
	}
	for (c = 0; c < NCOLS; c++)
		snprintf(cells[c], sizeof(cells[c]), "%s", headers[c]);
	emit(cells, width, fn, ctx);
	for (i = 0; i < n; i++) {
		row_cells(&devs[i], cells);
		emit(cells, width, fn, ctx);
	}
	/* A disk that errors or does not answer: what it did, below. */
	for (i = 0; i < n; i++) {
		if (!devs[i].fault[0])
			continue;
		char line[sizeof(cells[0]) + sizeof(devs[i].fault) + 2];

		devtable_escape(devs[i].name, cells[0], sizeof(cells[0]));
		snprintf(line, sizeof(line), "%s: %s", cells[0], devs[i].fault);
		fn(ctx, line);
	}
}
