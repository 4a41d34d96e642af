// SPDX-License-Identifier: GPL-2.0
/*
 * keymap.c: the console keymap of the image (--keymap, or the machine's
 * with -k), compiled here into the binary format rescue-init loads
 * before the first passphrase prompt (rescue/init/keymap.c): kbd's
 * loadkeys -b, which writes it to stdout without touching a console,
 * from a kbd keymap name or file, or from an XKB layout through
 * console-setup's ckbcomp.  "us" ships nothing: it is the kernel's own.
 */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "contract.h"
#include "mkrescue.h"

#define BKEYMAP_MAGIC	"bkeymap"
#define BKEYMAP_HEAD	(7 + 256)	/* the magic, a flag per table */
#define BKEYMAP_TABLE	(128 * 2)	/* NR_KEYS u16 values */
#define VCONSOLE_CONF	"/etc/vconsole.conf"
#define KEYBOARD_CONF	"/etc/default/keyboard"

extern char **environ;

/* An XKB layout, as /etc/default/keyboard and ckbcomp name its parts. */
struct xkb {
	char *layout, *variant, *options, *model;
};

/* What went to FD, from its start, into b (which keeps a NUL after it). */
static int fd_slurp(int fd, struct buf *b)
{
	char chunk[4096];
	ssize_t n;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		if (buf_append(b, chunk, (size_t)n))
			return -ENOMEM;
	return n < 0 ? -errno : 0;
}

/* The first line of a tool's complaint that is not a WARNING. */
static void first_error(const struct buf *err, char *line, size_t size)
{
	const char *p = err->data ? err->data : "";

	while (*p && !strncmp(p, "WARNING", 7) && strchr(p, '\n'))
		p = strchr(p, '\n') + 1;
	snprintf(line, size, "%.*s", (int)strcspn(p, "\n"), *p ? p : "failed");
}

/*
 * argv[0] from the PATH, stdin from IN (or /dev/null), stdout into OUT
 * (an fd), stderr's first error into WHY: 0 when it exited 0.
 */
static int run(char *const argv[], int in, int out, char *why, size_t size)
{
	posix_spawn_file_actions_t fa;
	struct buf err = { 0 };
	int efd, status, r;
	pid_t pid;

	efd = memfd_create("stderr", MFD_CLOEXEC);
	if (efd < 0)
		return -errno;
	posix_spawn_file_actions_init(&fa);
	if (in >= 0)
		posix_spawn_file_actions_adddup2(&fa, in, 0);
	else
		posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, out, 1);
	posix_spawn_file_actions_adddup2(&fa, efd, 2);
	/* loadkeys looks for a name in its working directory first */
	posix_spawn_file_actions_addchdir_np(&fa, "/");
	r = -posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (!r && waitpid(pid, &status, 0) < 0)
		r = -errno;
	if (!r && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
		r = -EIO;
		fd_slurp(efd, &err);
		first_error(&err, why, size);
		buf_free(&err);
	} else if (r && r != -ENOENT) {	/* ENOENT: the caller names it */
		snprintf(why, size, "%s: %s", argv[0], strerror(-r));
	}
	close(efd);
	return r;
}

/* A binary keymap whose size matches its flags: loadkeys -b's. */
static bool is_bkeymap(const struct buf *b)
{
	size_t i, n = 0;

	if (b->len < BKEYMAP_HEAD || memcmp(b->data, BKEYMAP_MAGIC, 7))
		return false;
	for (i = 7; i < BKEYMAP_HEAD; i++) {
		if ((unsigned char)b->data[i] > 1)
			return false;
		n += (unsigned char)b->data[i];
	}
	return b->len == BKEYMAP_HEAD + n * BKEYMAP_TABLE;
}

/*
 * loadkeys -u -b of SOURCE (a kbd name or file, "-" for IN) into out:
 * Unicode values, as the kernel's console takes them by default.
 */
static int loadkeys(const char *source, int in, struct buf *out, char *why,
		    size_t size)
{
	char *argv[] = { "loadkeys", "-q", "-u", "-b", (char *)source, NULL };
	int fd, r;

	fd = memfd_create("bkeymap", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = run(argv, in, fd, why, size);
	if (r == -ENOENT && !why[0])
		snprintf(why, size, "no loadkeys (kbd)");
	if (!r)
		r = fd_slurp(fd, out);
	close(fd);
	if (!r && !is_bkeymap(out)) {
		snprintf(why, size, "loadkeys -b wrote no binary keymap");
		r = -EINVAL;
	}
	return r;
}

/* ckbcomp (console-setup) of an XKB layout, then loadkeys -b. */
static int compile_xkb(const struct xkb *x, struct buf *out, char *why,
		       size_t size)
{
	char *argv[] = { "ckbcomp", "-compact", "-layout", x->layout,
			 "-variant", x->variant ? x->variant : "",
			 "-option", x->options ? x->options : "",
			 "-model", x->model ? x->model : "pc105", NULL };
	int fd, r;

	fd = memfd_create("kmap", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = run(argv, -1, fd, why, size);
	if (r == -ENOENT && !why[0])
		snprintf(why, size, "no ckbcomp (console-setup)");
	if (!r && lseek(fd, 0, SEEK_SET) < 0)
		r = -errno;
	if (!r)
		r = loadkeys("-", fd, out, why, size);
	close(fd);
	return r;
}

/*
 * --keymap's NAME: a binary keymap file as it is, a keymap file
 * (loadkeys reads .gz too), a kbd keymap name, else an XKB layout,
 * LAYOUT or LAYOUT:VARIANT.
 */
static int compile_named(const char *name, struct buf *out, char *why,
			 size_t size)
{
	char kbd_why[200] = "", path[PATH_MAX], *colon;
	struct xkb x = { 0 };
	struct stat st;
	int r;

	if (strchr(name, '/') || stat(name, &st) == 0) {
		if (!realpath(name, path)) {
			snprintf(why, size, "%s", strerror(errno));
			return -errno;
		}
		r = buf_read_file(out, path);
		if (r) {
			snprintf(why, size, "%s", strerror(-r));
			return r;
		}
		if (is_bkeymap(out))
			return 0;
		buf_free(out);
		return loadkeys(path, -1, out, why, size);
	}
	if (loadkeys(name, -1, out, kbd_why, sizeof(kbd_why)) == 0)
		return 0;
	buf_free(out);
	x.layout = strdup(name);
	if (!x.layout)
		return -ENOMEM;
	colon = strchr(x.layout, ':');
	if (colon) {
		*colon = '\0';
		x.variant = colon + 1;
	}
	r = compile_xkb(&x, out, why, size);
	if (r && r != -ENOMEM)
		snprintf(why + strlen(why), size - strlen(why), "; as a kbd "
			 "keymap: %s", kbd_why);
	free(x.layout);
	return r;
}

/* VAR's value in a shell-style KEY=value file (quotes dropped), or NULL. */
static char *conf_value(const char *text, const char *var)
{
	size_t n = strlen(var), len;
	const char *p = text, *v;

	for (; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		p += strspn(p, " \t");
		if (strncmp(p, var, n) || p[n] != '=')
			continue;
		v = p + n + 1;
		len = strcspn(v, "\n");
		while (len && (v[len - 1] == ' ' || v[len - 1] == '\t'))
			len--;
		if (len >= 2 && (*v == '"' || *v == '\'') && v[len - 1] == *v) {
			v++;
			len -= 2;
		}
		return len ? strndup(v, len) : NULL;
	}
	return NULL;
}

/*
 * The machine's layout: KEYMAP= of /etc/vconsole.conf (systemd's, a kbd
 * name), else XKBLAYOUT= of /etc/default/keyboard (Debian's
 * console-setup).  1 with *name or x set, 0 when it has none.
 */
static int machine_layout(char **name, struct xkb *x, const char **from)
{
	struct buf b = { 0 };

	if (buf_read_file(&b, VCONSOLE_CONF) == 0) {
		*name = conf_value(b.data, "KEYMAP");
		buf_free(&b);
		if (*name) {
			*from = VCONSOLE_CONF;
			return 1;
		}
	}
	if (buf_read_file(&b, KEYBOARD_CONF))
		return 0;
	x->layout = conf_value(b.data, "XKBLAYOUT");
	x->variant = conf_value(b.data, "XKBVARIANT");
	x->options = conf_value(b.data, "XKBOPTIONS");
	x->model = conf_value(b.data, "XKBMODEL");
	buf_free(&b);
	*from = KEYBOARD_CONF;
	return x->layout ? 1 : 0;
}

static void xkb_free(struct xkb *x)
{
	free(x->layout);
	free(x->variant);
	free(x->options);
	free(x->model);
}

/* The map and its name into the image, where rescue-init reads them. */
static int add_files(struct list *l, const struct buf *map, const char *name,
		     const char *from)
{
	char why[300], line[210];
	int err;

	snprintf(why, sizeof(why), "the console keymap %s (%s)", name, from);
	err = list_add_data(l, RESCUE_KEYMAP_PATH + 1, 0644, map->data,
			    map->len, LIST_OWN, why);
	snprintf(line, sizeof(line), "%s\n", name);
	if (!err)
		err = list_add_data(l, RESCUE_KEYMAP_NAME_PATH + 1, 0644, line,
				    strlen(line), LIST_OWN, why);
	return err;
}

/*
 * KEYMAP (--keymap), else with MACHINE (-k) the machine's layout.  A
 * --keymap that does not compile fails the image; the machine's is a
 * warning, and the image types in US.
 */
int keymap_add(struct list *l, const char *keymap, bool machine)
{
	struct xkb x = { 0 };
	struct buf map = { 0 };
	char why[400] = "", label[200], *name = NULL;
	const char *from = "--keymap";
	int r;

	if (!keymap && (!machine || !machine_layout(&name, &x, &from))) {
		if (machine)
			msg_verbose("no console keymap: neither %s nor %s names "
				    "one; the console types in US",
				    VCONSOLE_CONF, KEYBOARD_CONF);
		xkb_free(&x);	/* a variant without a layout */
		return 0;
	}
	if (x.layout)
		snprintf(label, sizeof(label), "%s%s%s", x.layout,
			 x.variant && *x.variant ? ":" : "",
			 x.variant ? x.variant : "");
	else
		snprintf(label, sizeof(label), "%s", keymap ? keymap : name);
	if (!strcmp(label, "us")) {
		msg_verbose("console keymap us (%s): the kernel's own, none "
			    "shipped", from);
		r = 0;
		goto out;
	}
	r = x.layout ? compile_xkb(&x, &map, why, sizeof(why)) :
	    compile_named(label, &map, why, sizeof(why));
	if (!r) {
		msg_verbose("console keymap %s (%s): %zu bytes", label, from,
			    map.len);
		r = add_files(l, &map, label, from);
	} else if (r != -ENOMEM && !keymap) {
		fprintf(stderr, "mkrescue: warning: the console keymap %s of "
			"%s is not in the image, which types in US: %s\n",
			label, from, why);
		r = 0;
	} else if (r != -ENOMEM) {
		msg_error("unable to compile the console keymap %s: %s", label,
			  why);
	}
out:
	buf_free(&map);
	xkb_free(&x);
	free(name);
	return r;
}
