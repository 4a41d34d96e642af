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

/* A cell: "-" when empty, blanks and controls as \xHH like udev. */
static void cell(const char *s, char *buf, size_t size)
{
	size_t n = 0;

	if (!s || !*s) {
		snprintf(buf, size, "-");
		return;
	}
	for (; *s && n + 5 < size; s++) {
		unsigned char c = (unsigned char)*s;

		if (c <= ' ' || c == 0x7f || c == '\\')
			n += snprintf(buf + n, size - n, "\\x%02x", c);
		else
			buf[n++] = (char)c;
	}
	buf[n] = '\0';
}

static void row_cells(const struct blkdev *d, char cells[NCOLS][300])
{
	const char *type = d->type[0] ? d->type : d->pttype;

	cell(d->name, cells[C_NAME], sizeof(cells[0]));
	snprintf(cells[C_DEV], sizeof(cells[0]), "%u:%u", d->major, d->minor);
	devtable_human_size(d->sectors * 512, cells[C_SIZE], sizeof(cells[0]));
	cell(type, cells[C_TYPE], sizeof(cells[0]));
	cell(d->uuid, cells[C_UUID], sizeof(cells[0]));
	cell(d->label, cells[C_LABEL], sizeof(cells[0]));
	cell(d->partuuid, cells[C_PARTUUID], sizeof(cells[0]));
	cell(d->partlabel, cells[C_PARTLABEL], sizeof(cells[0]));
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

/* The header, then one aligned line per device, each passed to fn. */
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
}
