/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lukskey.h: rd.luks.key=KEYPATH[:KEYDEV[:LUKSDEV]] as dracut.cmdline(7)
 * writes it: the key file KEYPATH, on KEYDEV (mounted read-only to read
 * it) or inside the initramfs without one, for the container LUKSDEV or
 * for every container without one.  KEYDEV and LUKSDEV take any root=
 * form (rootspec.c).
 */
#ifndef RESCUE_LUKSKEY_H
#define RESCUE_LUKSKEY_H

#include "rescue-init.h"

#define LUKSKEY_PATH_MAX	256

struct lukskey {
	char path[LUKSKEY_PATH_MAX];	/* absolute, no ".." */
	bool has_keydev, has_luksdev;
	struct rootspec keydev, luksdev;
};

/* 0, or -EINVAL with why (for the log line naming the parameter). */
int lukskey_parse(const char *s, struct lukskey *k, char *why, size_t size);

#endif
