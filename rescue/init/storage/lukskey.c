// SPDX-License-Identifier: GPL-2.0
/*
 * lukskey.c: parse rd.luks.key= specs.  Split as dracut's crypt-lib.sh
 * splits them: KEYPATH up to the first ':', KEYDEV up to the second,
 * LUKSDEV the rest (so a LUKSDEV may hold colons, a KEYDEV may not);
 * an empty KEYDEV or LUKSDEV is none.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lukskey.h"

/* A ".." component would leave the key device's mount. */
static bool has_dotdot(const char *p)
{
	const char *c;

	for (c = p; (c = strstr(c, "..")); c += 2)
		if ((c == p || c[-1] == '/') && (c[2] == '/' || !c[2]))
			return true;
	return false;
}

static int device(const char *s, size_t len, struct rootspec *spec,
		  const char *what, char *why, size_t size)
{
	char buf[ROOTSPEC_VALUE_MAX + 64], sub[200];

	if (len >= sizeof(buf)) {
		snprintf(why, size, "the %s is too long", what);
		return -EINVAL;
	}
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (rootspec_parse(buf, spec, sub, sizeof(sub))) {
		snprintf(why, size, "the %s: %s", what, sub);
		return -EINVAL;
	}
	return 0;
}

int lukskey_parse(const char *s, struct lukskey *k, char *why, size_t size)
{
	const char *c1 = strchr(s, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	size_t plen = c1 ? (size_t)(c1 - s) : strlen(s);

	memset(k, 0, sizeof(*k));
	if (plen == 0) {
		snprintf(why, size, "no key file path before the first ':'");
		return -EINVAL;
	}
	if (s[0] != '/') {
		snprintf(why, size, "the key file path is not absolute");
		return -EINVAL;
	}
	if (plen >= sizeof(k->path)) {
		snprintf(why, size, "the key file path is longer than %d "
			 "characters", LUKSKEY_PATH_MAX - 1);
		return -EINVAL;
	}
	memcpy(k->path, s, plen);
	if (has_dotdot(k->path)) {
		snprintf(why, size, "the key file path has a '..' component");
		return -EINVAL;
	}
	if (!c1)
		return 0;
	if ((c2 ? c2 : c1 + 1 + strlen(c1 + 1)) > c1 + 1) {
		if (device(c1 + 1, c2 ? (size_t)(c2 - c1 - 1) : strlen(c1 + 1),
			   &k->keydev, "key device", why, size))
			return -EINVAL;
		k->has_keydev = true;
	}
	if (c2 && c2[1]) {
		if (device(c2 + 1, strlen(c2 + 1), &k->luksdev,
			   "LUKS device", why, size))
			return -EINVAL;
		k->has_luksdev = true;
	}
	return 0;
}
