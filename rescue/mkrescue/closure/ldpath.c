// SPDX-License-Identifier: GPL-2.0
/* ldpath.c: the loader and libraries ld.so would load for a program. */
#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mkrescue.h"

/*
 * Names are resolved as glibc's ld.so does on a Debian host, without
 * running it: a name with a '/' is a path; otherwise DT_RPATH of the
 * object (only if it has no DT_RUNPATH) and of the program, then
 * DT_RUNPATH of the object, then the directories of ld.so.conf (which
 * ld.so.cache caches), then the multiarch and standard directories.
 * A candidate of another ELF class or machine is passed over, as ld.so
 * does.
 */

/* An ELF file read once, by its real path. */
struct ldpath_obj {
	char *real;
	struct elfdeps d;
};


/* The multiarch tuple of Debian for an ELF machine and class. */
static const char *ldpath_tuple(const struct elfdeps *d)
{
	switch (d->machine) {
	case EM_X86_64:
		return d->class == ELFCLASS64 ? "x86_64-linux-gnu" :
		       "x86_64-linux-gnux32";
	case EM_386:
		return "i386-linux-gnu";
	case EM_AARCH64:
		return "aarch64-linux-gnu";
	case EM_ARM:
		return "arm-linux-gnueabihf";
	case EM_PPC64:
		return "powerpc64le-linux-gnu";
	case EM_S390:
		return "s390x-linux-gnu";
	case EM_RISCV:
		return "riscv64-linux-gnu";
	default:
		return NULL;
	}
}

void ldpath_init(struct ldpath *lp, const char *const *dirs)
{
	*lp = (struct ldpath){ .dirs = dirs };
}

void ldpath_free(struct ldpath *lp)
{
	size_t i;

	for (i = 0; i < lp->nobjs; i++) {
		free(lp->objs[i].real);
		elfdeps_free(&lp->objs[i].d);
	}
	free(lp->objs);
	for (i = 0; i < lp->nfiles; i++) {
		free(lp->files[i].path);
		free(lp->files[i].why);
	}
	free(lp->files);
	*lp = (struct ldpath){ 0 };
}

/* The object at PATH, read once; -ENOENT, -ENOEXEC... without a message. */
static int ldpath_read(struct ldpath *lp, const char *path, size_t *index)
{
	struct ldpath_obj *n;
	char *real = realpath(path, NULL);
	size_t i;
	int err;

	if (!real)
		return errno ? -errno : -ENOENT;
	for (i = 0; i < lp->nobjs; i++) {
		if (!strcmp(lp->objs[i].real, real)) {
			free(real);
			*index = i;
			return 0;
		}
	}
	n = realloc(lp->objs, (lp->nobjs + 1) * sizeof(*n));
	if (!n) {
		free(real);
		return -ENOMEM;
	}
	lp->objs = n;
	err = elfdeps_read(real, &n[lp->nobjs].d);
	if (err) {
		free(real);
		return err;
	}
	n[lp->nobjs].real = real;
	*index = lp->nobjs++;
	return 0;
}

int ldpath_expand_origin(const char *dir, const char *origin, char **out)
{
	struct buf b = { 0 };
	const char *p = dir;
	int err = 0;

	*out = NULL;
	while (!err && *p) {
		size_t skip = !strncmp(p, "$ORIGIN", 7) ? 7 :
			      !strncmp(p, "${ORIGIN}", 9) ? 9 : 0;

		if (skip) {
			/* "$ORIGINX" is another token: not ours. */
			if (skip == 7 && (isalnum((unsigned char)p[7]) || p[7] == '_'))
				err = -EINVAL;
			else
				err = buf_append(&b, origin, strlen(origin));
			p += skip;
		} else if (*p == '$') {
			/* $LIB, $PLATFORM: no fixed meaning off the host's ld.so. */
			err = -EINVAL;
		} else {
			err = buf_append(&b, p, 1);
			p++;
		}
	}
	if (!err && !b.data)
		err = buf_append(&b, "", 0);
	if (err) {
		buf_free(&b);
		return err;
	}
	*out = b.data;
	return 0;
}

/* The directory of PATH; "/" for a file in the root. */
static char *ldpath_dirname(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	return slash == path ? strdup("/") : strndup(path, (size_t)(slash - path));
}

/* 0 and *found when DIR/NAME is an ELF file WANT can load. */
static int ldpath_try(struct ldpath *lp, const char *dir, const char *name,
		      const struct elfdeps *want, char **found, size_t *obj)
{
	char *path;
	int err;

	if (asprintf(&path, "%s/%s", dir, name) < 0)
		return -ENOMEM;
	err = ldpath_read(lp, path, obj);
	if (!err && (lp->objs[*obj].d.class != want->class ||
		     lp->objs[*obj].d.machine != want->machine))
		err = -ENOEXEC;
	if (err) {
		free(path);
		return err == -ENOMEM ? err : -ENOENT;
	}
	*found = path;
	return 0;
}

/* Each directory of a colon-separated LIST, $ORIGIN expanded. */
static int ldpath_try_list(struct ldpath *lp, const char *list,
			   const char *origin, const char *name,
			   const struct elfdeps *want, char **found, size_t *obj)
{
	const char *p = list;
	int err = -ENOENT;

	while (p && err == -ENOENT) {
		const char *colon = strchr(p, ':');
		char *dir = colon ? strndup(p, (size_t)(colon - p)) : strdup(p);
		char *expanded = NULL;

		p = colon ? colon + 1 : NULL;
		if (!dir)
			return -ENOMEM;
		err = ldpath_expand_origin(dir, origin, &expanded);
		if (err == -EINVAL)
			msg_verbose("%s: search directory '%s' not followed: an unknown $ token",
				    name, dir);
		/* An empty or relative entry is the loader's cwd: not ours. */
		if (!err && expanded[0] == '/')
			err = ldpath_try(lp, expanded, name, want, found, obj);
		else if (err != -ENOMEM)
			err = -ENOENT;
		free(expanded);
		free(dir);
	}
	return err;
}

static int ldpath_try_std(struct ldpath *lp, const char *name,
			  const struct elfdeps *want, char **found, size_t *obj)
{
	const char *tuple = ldpath_tuple(want);
	char multi[2][64];
	const char *std[] = { multi[0], multi[1], "/lib64", "/usr/lib64",
			      "/lib", "/usr/lib", NULL };
	const char *const *dirs = lp->dirs;
	size_t i;
	int err = -ENOENT;

	if (!dirs) {
		snprintf(multi[0], sizeof(multi[0]), "/lib/%s", tuple ? tuple : "");
		snprintf(multi[1], sizeof(multi[1]), "/usr/lib/%s", tuple ? tuple : "");
		/* lib64 holds 64-bit objects only. */
		if (want->class != ELFCLASS64) {
			std[2] = "/lib";
			std[3] = "/usr/lib";
			std[4] = NULL;
		}
		dirs = tuple ? std : std + 2;
	}
	for (i = 0; err == -ENOENT && lp->conf && i < lp->conf->count; i++)
		err = ldpath_try(lp, lp->conf->dirs[i], name, want, found, obj);
	for (i = 0; err == -ENOENT && dirs[i]; i++)
		err = ldpath_try(lp, dirs[i], name, want, found, obj);
	return err;
}

/* Where NAME, needed by object LOADER of program EXE, is found. */
static int ldpath_find(struct ldpath *lp, const char *name, size_t loader,
		       const char *loader_origin, size_t exe,
		       const char *exe_origin, char **found, size_t *obj)
{
	/* Copies: reading a candidate may move lp->objs. */
	const char *runpath = lp->objs[loader].d.runpath;
	const char *rpath = lp->objs[loader].d.rpath;
	const char *exe_rpath = lp->objs[exe].d.rpath;
	struct elfdeps want = lp->objs[loader].d;
	int err = -ENOENT;

	if (strchr(name, '/')) {
		*found = strdup(name);
		if (!*found)
			return -ENOMEM;
		err = ldpath_read(lp, name, obj);
		if (err) {
			free(*found);
			*found = NULL;
		}
		return err == -ENOMEM ? err : err ? -ENOENT : 0;
	}
	if (!runpath && rpath)
		err = ldpath_try_list(lp, rpath, loader_origin, name, &want,
				      found, obj);
	if (err == -ENOENT && !runpath && loader != exe && exe_rpath)
		err = ldpath_try_list(lp, exe_rpath, exe_origin, name, &want,
				      found, obj);
	if (err == -ENOENT && runpath)
		err = ldpath_try_list(lp, runpath, loader_origin, name, &want,
				      found, obj);
	if (err == -ENOENT)
		err = ldpath_try_std(lp, name, &want, found, obj);
	return err;
}

/* Records PATH to ship, once. */
static int ldpath_add_file(struct ldpath *lp, const char *path,
			   const char *why_fmt, const char *why_arg)
{
	struct ldpath_file *n;
	size_t i;

	for (i = 0; i < lp->nfiles; i++) {
		if (!strcmp(lp->files[i].path, path))
			return 0;
	}
	n = realloc(lp->files, (lp->nfiles + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	lp->files = n;
	n += lp->nfiles;
	n->path = strdup(path);
	if (!n->path || asprintf(&n->why, why_fmt, why_arg) < 0) {
		free(n->path);
		return -ENOMEM;
	}
	lp->nfiles++;
	return 0;
}

/* The closure of one program: a queue of objects and their origins. */
struct ldpath_walk {
	size_t *objs;
	char **origins;
	size_t count;
};

static int ldpath_walk_push(struct ldpath_walk *w, size_t obj, char *origin)
{
	size_t *o;
	char **g;
	size_t i;

	for (i = 0; i < w->count; i++) {
		if (w->objs[i] == obj) {
			free(origin);
			return 0;
		}
	}
	o = realloc(w->objs, (w->count + 1) * sizeof(*o));
	if (o)
		w->objs = o;
	g = o ? realloc(w->origins, (w->count + 1) * sizeof(*g)) : NULL;
	if (g)
		w->origins = g;
	if (!origin || !o || !g) {
		free(origin);
		return -ENOMEM;
	}
	w->objs[w->count] = obj;
	w->origins[w->count++] = origin;
	return 0;
}

static void ldpath_walk_free(struct ldpath_walk *w)
{
	size_t i;

	for (i = 0; i < w->count; i++)
		free(w->origins[i]);
	free(w->origins);
	free(w->objs);
}

static bool ldpath_needs_glibc(const struct ldpath *lp, const struct ldpath_walk *w)
{
	size_t i, j;

	for (i = 0; i < w->count; i++) {
		const struct elfdeps *d = &lp->objs[w->objs[i]].d;

		for (j = 0; j < d->nneeded; j++) {
			if (!strcmp(d->needed[j], "libc.so.6") ||
			    !strcmp(d->needed[j], "libpthread.so.0"))
				return true;
		}
	}
	return false;
}

/* NAME for object I of the walk; adds what it finds. */
static int ldpath_need(struct ldpath *lp, struct ldpath_walk *w, size_t i,
		       const char *name, const char *program)
{
	char *found = NULL;
	size_t obj = 0;
	int err;

	err = ldpath_find(lp, name, w->objs[i], w->origins[i], w->objs[0],
			  w->origins[0], &found, &obj);
	if (err == -ENOENT) {
		msg_error("unable to ship %s: library %s, needed by %s, not found",
			  program, name, lp->objs[w->objs[i]].real);
		return err;
	}
	if (err) {
		msg_error("unable to ship %s: library %s: %s", program, name,
			  strerror(-err));
		return err;
	}
	err = ldpath_add_file(lp, found, "library of %s", program);
	if (!err)
		err = ldpath_walk_push(w, obj, ldpath_dirname(found));
	free(found);
	return err;
}

static int ldpath_interp(struct ldpath *lp, struct ldpath_walk *w,
			 const char *program)
{
	const char *interp = lp->objs[w->objs[0]].d.interp;
	size_t obj;
	int err;

	if (!interp)
		return 0;
	err = ldpath_read(lp, interp, &obj);
	if (err) {
		msg_error("unable to ship %s: its loader %s: %s", program, interp,
			  err == -ENOEXEC ? "not an ELF file" : strerror(-err));
		return err;
	}
	err = ldpath_add_file(lp, interp, "loader of %s", program);
	/* ld.so is self-contained; its own DT_NEEDED (none) is not walked. */
	return err;
}

int ldpath_add_program(struct ldpath *lp, const char *program)
{
	struct ldpath_walk w = { 0 };
	size_t exe = 0, i, j;
	int err;

	err = ldpath_read(lp, program, &exe);
	if (err) {
		msg_error("unable to ship %s: %s", program,
			  err == -ENOEXEC ? "not an ELF file" : strerror(-err));
		return err;
	}
	/* $ORIGIN of the program: its real directory, as /proc/self/exe. */
	err = ldpath_walk_push(&w, exe, ldpath_dirname(lp->objs[exe].real));
	if (!err)
		err = ldpath_interp(lp, &w, program);
	/* The queue grows as it is walked: breadth first, as ld.so loads. */
	for (i = 0; !err && i < w.count; i++) {
		for (j = 0; !err && j < lp->objs[w.objs[i]].d.nneeded; j++)
			err = ldpath_need(lp, &w, i, lp->objs[w.objs[i]].d.needed[j],
					  program);
	}
	/*
	 * glibc dlopen()s libgcc_s.so.1 for pthread_cancel() and
	 * pthread_exit() (the unwinder): dracut installs it too.
	 */
	if (!err && lp->objs[exe].d.interp && ldpath_needs_glibc(lp, &w)) {
		size_t before = w.count;

		err = ldpath_need(lp, &w, 0, "libgcc_s.so.1", program);
		for (i = before; !err && i < w.count; i++) {
			for (j = 0; !err && j < lp->objs[w.objs[i]].d.nneeded; j++)
				err = ldpath_need(lp, &w, i,
						  lp->objs[w.objs[i]].d.needed[j],
						  program);
		}
	}
	ldpath_walk_free(&w);
	return err;
}
