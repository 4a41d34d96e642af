/* SPDX-License-Identifier: GPL-2.0 */
/*
 * crypttab.h: /etc/crypttab as crypttab(5) (Debian's and systemd's)
 * writes it, and the kernel parameters that stand for it,
 * rd.luks.name=UUID=NAME and rd.luks.options=[UUID=]OPTIONS
 * (systemd-cryptsetup-generator(8)).  One parser for both programs:
 * mkrescue reads the header= files it must ship, rescue-init the names
 * and options of the containers it opens.  libc only.
 *
 * A line: NAME SOURCE [KEYFILE [OPTIONS]], blanks between, '#' starts a
 * comment line.  SOURCE is kept as text (rescue-init matches it as a
 * root= spec); KEYFILE "none", "-" or absent is none.
 */
#ifndef RESCUE_CRYPTTAB_H
#define RESCUE_CRYPTTAB_H

#include <stdbool.h>
#include <stddef.h>

#define CRYPTTAB_NAME_MAX	128	/* a dm name: 127 bytes */
#define CRYPTTAB_FIELD_MAX	256
#define CRYPTTAB_LINE_MAX	2048

enum crypttab_flag {
	CT_DISCARD	= 1 << 0,	/* discard: --allow-discards */
	CT_READONLY	= 1 << 1,	/* readonly, read-only */
	CT_INITRAMFS	= 1 << 2,	/* initramfs (Debian) */
	CT_ATTACH	= 1 << 3,	/* x-initrd.attach (systemd) */
	CT_NOT_LUKS	= 1 << 4,	/* plain, swap, tmp, tcrypt, bitlk */
	CT_NOFAIL	= 1 << 5,
};

struct crypttab_entry {
	char name[CRYPTTAB_NAME_MAX];		/* vda3_crypt */
	char source[CRYPTTAB_FIELD_MAX];	/* UUID=..., /dev/vda3 */
	char keyfile[CRYPTTAB_FIELD_MAX];	/* "" for none */
	char header[CRYPTTAB_FIELD_MAX];	/* header=, "" for none */
	char keyscript[CRYPTTAB_FIELD_MAX];	/* keyscript=, refused */
	char not_luks[16];			/* the option that said so */
	unsigned flags;
	int line;				/* 1-based, 0: not a file's */
};

/*
 * One line (no newline) into E: 1 for an entry, 0 for a blank or
 * comment line, -EINVAL with why (for a line naming the file's line).
 */
int crypttab_parse_line(const char *line, struct crypttab_entry *e,
			char *why, size_t size);

/* Comma-separated OPTIONS into E's flags and fields: 0 or -EINVAL. */
int crypttab_options(const char *opts, struct crypttab_entry *e,
		     char *why, size_t size);

typedef void crypttab_bad_fn(void *ctx, int line, const char *why);

/*
 * A whole file's TEXT: up to MAX entries into OUT, their count
 * returned; BAD (may be NULL) hears each line left out and why.
 */
size_t crypttab_parse(const char *text, struct crypttab_entry *out,
		      size_t max, crypttab_bad_fn *bad, void *ctx);

/*
 * rd.luks.name=UUID=NAME (or systemd's bare UUID=NAME): UUID (without
 * "luks-") and NAME, 0 or -EINVAL with why.
 */
int crypttab_luks_name(const char *s, char *uuid, size_t usize,
		       char *name, size_t nsize, char *why, size_t size);

/*
 * rd.luks.options=[UUID=]OPTIONS: the UUID ("" when the options are for
 * every container without a crypttab entry), the options in E; 0 or
 * -EINVAL with why.
 */
int crypttab_luks_options(const char *s, char *uuid, size_t usize,
			  struct crypttab_entry *e, char *why, size_t size);

/* Whether NAME can be a /dev/mapper name. */
bool crypttab_name_ok(const char *name);

#endif
