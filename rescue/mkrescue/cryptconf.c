// SPDX-License-Identifier: GPL-2.0
/*
 * cryptconf.c: the root's /etc/crypttab in the image (--crypttab FILE,
 * or the host's with --hostonly), for rescue-init to name and open the
 * LUKS containers as the booted system expects them, with the detached
 * LUKS headers its entries name (header=), at the same paths.  Key
 * files are not shipped: --include puts one in on purpose.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "crypttab.h"
#include "mkrescue.h"
#include "readfile.h"

#define CRYPTTAB_ENTRIES	64
#define CRYPTTAB_SIZE_MAX	(1 << 20)

struct bad_ctx {
	const char *path;
};

static void bad_line(void *ctx, int no, const char *why)
{
	const struct bad_ctx *b = ctx;

	msg_error("%s line %d left to the booted system: %s (rescue-init "
		  "ignores it too)", b->path, no, why);
}

/* The header file of entry E, read from the host, at its own path. */
static int add_header(struct list *l, const char *path,
		      const struct crypttab_entry *e)
{
	struct stat st;
	int err;

	err = stat(e->header, &st) ? -errno :
	      S_ISREG(st.st_mode) ? 0 : -EINVAL;
	if (err) {
		msg_error("unable to ship the LUKS header %s of %s line %d "
			  "(%s): %s", e->header, path, e->line, e->name,
			  err == -EINVAL ? "not a regular file" :
			  strerror(-err));
		return err;
	}
	/* keyslots: the image is written 0600 */
	l->secret = true;
	return list_add_file(l, e->header + 1, 0600, e->header,
			     (uint64_t)st.st_size, LIST_OWN,
			     "a detached LUKS header of the crypttab");
}

/* What rescue-init will not do for entry E of PATH, said now. */
static void say_unused(const char *path, const struct crypttab_entry *e)
{
	if (e->flags & CT_NOT_LUKS)
		return;
	if (e->keyscript[0])
		msg_error("%s line %d (%s): keyscript=%s is not run by "
			  "rescue-init, which asks for the passphrase", path,
			  e->line, e->name, e->keyscript);
	if (e->keyfile[0])
		msg_verbose("%s line %d (%s): the key file %s is not shipped "
			    "(--include it to open the container with it)",
			    path, e->line, e->name, e->keyfile);
}

int cryptconf_add(struct list *l, const char *path, bool required)
{
	struct crypttab_entry *t;
	struct bad_ctx b = { path };
	char *text;
	size_t i, n;
	int err;

	err = readfile_alloc(path, CRYPTTAB_SIZE_MAX, &text, NULL);
	if (err == -ENOENT && !required)
		return 0;
	if (err) {
		msg_error("unable to read the crypttab %s: %s", path,
			  strerror(-err));
		return err;
	}
	t = calloc(CRYPTTAB_ENTRIES, sizeof(*t));
	if (!t) {
		free(text);
		msg_error("unable to read the crypttab %s: out of memory", path);
		return -ENOMEM;
	}
	n = crypttab_parse(text, t, CRYPTTAB_ENTRIES, bad_line, &b);
	err = list_add_data(l, "etc/crypttab", 0644, text, strlen(text),
			    LIST_OWN, path);
	for (i = 0; !err && i < n; i++) {
		say_unused(path, &t[i]);
		if (t[i].header[0] && !(t[i].flags & CT_NOT_LUKS))
			err = add_header(l, path, &t[i]);
	}
	free(t);
	free(text);
	return err;
}
