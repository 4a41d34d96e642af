// SPDX-License-Identifier: GPL-2.0
/*
 * shelllock.c: the rescue password and --lock-shell in the image.
 *
 * rescue-init asks for the rescue password before any shell once a disk
 * was opened without a person (a TPM2 token, a tang server), or always
 * with --lock-shell.  The image holds the crypt(3) hash, never the
 * password, as /etc/rescue-shadow (0600); with it, the image is written
 * 0600 like one with a key.  rescue-init verifies with musl's crypt(),
 * which knows SHA-512 ($6$), SHA-256 ($5$) and bcrypt ($2b$) but not
 * yescrypt ($y$), Debian's default in mkpasswd and passwd: such a hash
 * is refused here, when a shell can still be had, rather than at a
 * locked console.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mkrescue.h"
#include "readfile.h"

#define SHADOW_PATH	"etc/rescue-shadow"
#define LOCK_PATH	"etc/rescue-lock-shell"
#define HASH_MAX	512
#define CRYPT_CHARS	"./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ" \
			"abcdefghijklmnopqrstuvwxyz"

/* $6$[rounds=N$]salt$hash (86 chars), $5$ likewise (43). */
static bool sha_crypt_ok(const char *h, size_t hash_len)
{
	const char *p = h + 3, *end;
	size_t salt;

	if (!strncmp(p, "rounds=", 7)) {
		p += 7 + strspn(p + 7, "0123456789");
		if (*p++ != '$')
			return false;
	}
	end = strchr(p, '$');
	if (!end)
		return false;
	salt = (size_t)(end - p);
	return salt >= 1 && salt <= 16 && strspn(end + 1, CRYPT_CHARS) ==
	       hash_len && !end[1 + hash_len];
}

/* $2b$NN$ then 53 characters: 22 of salt, 31 of hash. */
static bool bcrypt_ok(const char *h)
{
	return (h[2] == 'a' || h[2] == 'b' || h[2] == 'y') && h[3] == '$' &&
	       h[4] >= '0' && h[4] <= '3' && h[5] >= '0' && h[5] <= '9' &&
	       h[6] == '$' && strspn(h + 7, CRYPT_CHARS) == 53 && !h[60];
}

/* 0 when rescue-init's crypt() can verify h; else says why, -EINVAL. */
static int check_hash(const char *h, const char *from)
{
	if (!strncmp(h, "$y$", 3) || !strncmp(h, "$7$", 3) ||
	    !strncmp(h, "$gy$", 4)) {
		msg_error("the rescue password hash %s is yescrypt or scrypt, "
			  "which rescue-init (musl's crypt) cannot verify: make "
			  "one with: mkpasswd -m sha-512 (whois) or openssl "
			  "passwd -6", from);
		return -EINVAL;
	}
	if ((!strncmp(h, "$6$", 3) && sha_crypt_ok(h, 86)) ||
	    (!strncmp(h, "$5$", 3) && sha_crypt_ok(h, 43)) ||
	    (!strncmp(h, "$2", 2) && bcrypt_ok(h)))
		return 0;
	msg_error("the rescue password hash %s is not a SHA-512, SHA-256 or "
		  "bcrypt crypt(3) hash: make one with: mkpasswd -m sha-512 "
		  "(whois) or openssl passwd -6",
		  from);
	return -EINVAL;
}

/* The first line of FILE, the hash, into buf. */
static int read_hash_file(const char *path, char *buf, size_t size)
{
	char *text;
	size_t n;
	int err;

	err = readfile_alloc(path, HASH_MAX, &text, NULL);
	if (err) {
		msg_error("unable to read the rescue password file %s: %s", path,
			  err == -EFBIG ? "longer than a password hash" :
			  strerror(-err));
		return err;
	}
	n = strcspn(text, "\r\n");
	text[n] = '\0';
	snprintf(buf, size, "%s", text);
	explicit_bzero(text, strlen(text));
	free(text);
	return 0;
}

int shelllock_add(struct list *l, const char *hash, const char *file,
		  bool lock)
{
	char h[HASH_MAX + 2], from[HASH_MAX + 64];
	int err;

	if (lock)
		err = list_add_data(l, LOCK_PATH, 0644, "--lock-shell\n", 13,
				    LIST_OWN, "--lock-shell");
	else
		err = 0;
	if (err || (!hash && !file))
		return err;
	if (file) {
		err = read_hash_file(file, h, sizeof(h));
		if (err)
			return err;
		snprintf(from, sizeof(from), "in %s", file);
	} else {
		snprintf(h, sizeof(h), "%s", hash);
		snprintf(from, sizeof(from), "'%s'", hash);
	}
	err = check_hash(h, from);
	if (!err) {
		/* a hash can be attacked offline: the image is written 0600 */
		size_t n = strlen(h);	/* h has room for the newline */

		l->secret = true;
		h[n++] = '\n';
		err = list_add_data(l, SHADOW_PATH, 0600, h, n, LIST_OWN,
				    "the rescue password's hash");
	}
	explicit_bzero(h, sizeof(h));
	return err;
}
