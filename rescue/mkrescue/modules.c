// SPDX-License-Identifier: GPL-2.0
/* modules.c: the module list, resolved and added to the image. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mkrescue.h"

/*
 * Each name of the module list (and of --add-module) is shipped with its
 * modules.dep dependencies and its softdep pre:/post: modules, an alias
 * among those resolved through modules.alias, recursively.  A name the
 * kernel has built in needs nothing; a name of the list it does not have
 * at all is skipped, one of --add-module is an error.  Every .ko is
 * checked now, before anything is written.
 *
 * Compressed modules (.ko.xz of Debian's 6.12) are shipped as they are,
 * for rescue-init's finit_module(MODULE_INIT_COMPRESSED_FILE): the
 * kernel unpacks every shipped module but loads a dozen, so decompressed
 * ones cost the boot far more than the loads gain (docs/decisions.md,
 * "mkrescue").  Only a kernel without CONFIG_MODULE_DECOMPRESS needs .ko
 * files.
 */

struct modules_ctx {
	struct list *l;
	struct moddb *db;
	const char *kver;
	const char *why;	/* of the alias being resolved */
	size_t shipped;
};

static int modules_ship(struct modules_ctx *ctx, size_t i, const char *why);

static int modules_ship_alias(void *ctx, size_t mod)
{
	struct modules_ctx *c = ctx;

	return modules_ship(c, mod, c->why);
}

/* NAME is a module name, or an alias, from a softdep line of OF. */
static int modules_ship_soft(struct modules_ctx *ctx, const char *name,
			     const char *of)
{
	const char *outer = ctx->why;
	struct buf why = { 0 };
	ssize_t k;
	int n;

	if (buf_printf(&why, "soft dependency %s of %s", name, of)) {
		msg_error("unable to resolve module %s: out of memory", name);
		return -ENOMEM;
	}
	k = moddb_find(ctx->db, name);
	if (k >= 0) {
		n = modules_ship(ctx, (size_t)k, why.data);
	} else if (moddb_is_builtin(ctx->db, name)) {
		msg_verbose("module %s (%s): built in", name, why.data);
		n = 0;
	} else {
		ctx->why = why.data;
		n = moddb_resolve_alias(ctx->db, name, modules_ship_alias, ctx);
		ctx->why = outer;
		if (n == 0 && moddb_alias_is_builtin(ctx->db, name))
			msg_verbose("module %s (%s): built in", name, why.data);
		else if (n == 0)
			msg_verbose("module %s (%s): not in %s, skipped", name,
				    why.data, ctx->kver);
	}
	buf_free(&why);
	return n < 0 ? n : 0;
}

static int modules_ship(struct modules_ctx *ctx, size_t i, const char *why)
{
	struct moddb_module *m = moddb_module(ctx->db, i);
	struct buf src = { 0 }, dst = { 0 }, dep_why = { 0 };
	const char **soft;
	struct stat st;
	size_t j, nsoft;
	int err;

	if (m->shipped)
		return 0;
	if (buf_printf(&src, "%s/%s", moddb_dir(ctx->db), m->path) ||
	    buf_printf(&dst, "lib/modules/%s/%s", ctx->kver, m->path) ||
	    buf_printf(&dep_why, "dependency of %s", m->name)) {
		msg_error("unable to add module %s: out of memory", m->name);
		err = -ENOMEM;
		goto out;
	}
	err = stat(src.data, &st) < 0 ? -errno : S_ISREG(st.st_mode) ? 0 : -EINVAL;
	if (err) {
		msg_error("unable to add module %s (%s): %s: %s", m->name, why,
			  src.data, err == -EINVAL ? "not a regular file" :
			  strerror(-err));
		goto out;
	}
	m->shipped = true;
	ctx->shipped++;
	msg_verbose("module %s (%s): %s", m->name, why, m->path);
	err = list_add_file(ctx->l, dst.data, 0644, src.data,
			    (uint64_t)st.st_size, LIST_OWN, why);
	for (j = 0; !err && j < m->ndeps; j++)
		err = modules_ship(ctx, m->deps[j], dep_why.data);
	nsoft = moddb_softdeps(ctx->db, i, &soft);
	for (j = 0; !err && j < nsoft; j++)
		err = modules_ship_soft(ctx, soft[j], m->name);
out:
	buf_free(&src);
	buf_free(&dst);
	buf_free(&dep_why);
	return err;
}

static bool modules_valid_name(const char *name)
{
	return *name && strspn(name, "abcdefghijklmnopqrstuvwxyz"
				     "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") ==
				strlen(name);
}

/* A name asked for by the list (optional) or by --add-module (required). */
static int modules_request(struct modules_ctx *ctx, const char *name,
			   const char *why, bool required)
{
	ssize_t k;

	if (!modules_valid_name(name)) {
		msg_error("unable to add module '%s' (%s): not a module name",
			  name, why);
		return -EINVAL;
	}
	k = moddb_find(ctx->db, name);
	if (k >= 0)
		return modules_ship(ctx, (size_t)k, why);
	if (moddb_is_builtin(ctx->db, name)) {
		msg_verbose("module %s (%s): built into %s", name, why, ctx->kver);
		return 0;
	}
	if (required) {
		msg_error("unable to add module %s: kernel %s has no such module (%s/modules.dep, modules.builtin)",
			  name, ctx->kver, moddb_dir(ctx->db));
		return -ENOENT;
	}
	msg_verbose("module %s (%s): not in %s, skipped", name, why, ctx->kver);
	return 0;
}

/*
 * A directory of the list ("kernel/drivers/ata/"): every module below it,
 * as dracut --no-hostonly takes drivers by directory rather than by name.
 */
static int modules_request_dir(struct modules_ctx *ctx, const char *dir,
			       const char *why)
{
	size_t i, len = strlen(dir), n = 0;
	int err = 0;

	if (strspn(dir, "abcdefghijklmnopqrstuvwxyz0123456789_-./") != len ||
	    strstr(dir, "..") || dir[0] == '/') {
		msg_error("unable to add modules of '%s' (%s): not a directory "
			  "of the module tree", dir, why);
		return -EINVAL;
	}
	for (i = 0; !err && i < moddb_count(ctx->db); i++) {
		if (strncmp(moddb_module(ctx->db, i)->path, dir, len))
			continue;
		err = modules_ship(ctx, i, why);
		n++;
	}
	if (!err)
		msg_verbose("%zu modules below %s (%s)", n, dir, why);
	return err;
}

/* --hostonly: a module name, a driver's name or a modalias of the host. */
static int modules_host(void *c, const char *name, const char *why)
{
	struct modules_ctx *ctx = c;
	const char *outer = ctx->why;
	ssize_t k = moddb_find(ctx->db, name);
	int n;

	if (k >= 0)
		return modules_ship(ctx, (size_t)k, why);
	if (moddb_is_builtin(ctx->db, name))
		return 0;
	ctx->why = why;
	n = moddb_resolve_alias(ctx->db, name, modules_ship_alias, ctx);
	ctx->why = outer;
	if (n == 0)
		msg_verbose("%s (%s): no module of %s", name, why, ctx->kver);
	return n < 0 ? n : 0;
}

static int modules_read_list(struct modules_ctx *ctx, const char *file)
{
	struct buf b = { 0 }, why = { 0 };
	char *line, *next;
	int err;

	err = buf_read_file(&b, file);
	if (err) {
		msg_error("unable to read module list %s: %s", file, strerror(-err));
		return err;
	}
	err = buf_printf(&why, "module list %s", file);
	for (line = b.data; !err && line && *line; line = next) {
		char *hash, *end;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		line += strspn(line, " \t");
		end = line + strlen(line);
		while (end > line && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
			*--end = '\0';
		if (*line && end[-1] == '/')
			err = modules_request_dir(ctx, line, why.data);
		else if (*line)
			err = modules_request(ctx, line, why.data, false);
	}
	if (err == -ENOMEM)
		msg_error("unable to read module list %s: out of memory", file);
	buf_free(&why);
	buf_free(&b);
	return err;
}

/* The pruned index files, and the built-in lists as they are. */
static int modules_add_indexes(struct modules_ctx *ctx)
{
	static const struct {
		const char *name;
		int (*write)(struct moddb *db, struct buf *out);
	} pruned[] = {
		{ "modules.alias", prune_alias },
		{ "modules.dep", prune_dep },
		{ "modules.softdep", prune_softdep },
	};
	static const char *const copied[] = {
		"modules.builtin",
		"modules.builtin.alias",
	};
	size_t i;
	int err = 0;

	for (i = 0; !err && i < ARRAY_SIZE(pruned); i++) {
		struct buf data = { 0 }, dst = { 0 };

		err = pruned[i].write(ctx->db, &data);
		if (!err)
			err = buf_printf(&dst, "lib/modules/%s/%s", ctx->kver,
					 pruned[i].name);
		if (err)
			msg_error("unable to write %s: out of memory", pruned[i].name);
		else
			err = list_add_data(ctx->l, dst.data, 0644,
					    data.data ? data.data : "", data.len,
					    LIST_OWN, "pruned to the shipped modules");
		buf_free(&data);
		buf_free(&dst);
	}
	for (i = 0; !err && i < ARRAY_SIZE(copied); i++) {
		struct buf src = { 0 }, dst = { 0 };
		struct stat st;

		if (buf_printf(&src, "%s/%s", moddb_dir(ctx->db), copied[i]) ||
		    buf_printf(&dst, "lib/modules/%s/%s", ctx->kver, copied[i])) {
			msg_error("unable to add %s: out of memory", copied[i]);
			err = -ENOMEM;
		} else if (stat(src.data, &st) < 0) {
			if (errno != ENOENT) {
				err = -errno;
				msg_error("unable to add %s: %s", src.data,
					  strerror(-err));
			}
		} else {
			err = list_add_file(ctx->l, dst.data, 0644, src.data,
					    (uint64_t)st.st_size, LIST_OWN,
					    "copied as it is");
		}
		buf_free(&src);
		buf_free(&dst);
	}
	return err;
}

/* Links to rescue-init, which acts by the name it is called with. */
static const char *const modules_tools[] = {
	RESCUE_MODTOOL_DIR "/" RESCUE_MODPROBE,
	RESCUE_MODTOOL_DIR "/" RESCUE_INSMOD,
	RESCUE_MODTOOL_DIR "/" RESCUE_RMMOD,
};

int modules_add(struct list *l, const struct modules_request *req)
{
	struct modules_ctx ctx = { .l = l, .kver = req->kver };
	struct stat st;
	size_t i;
	int err;

	err = stat(req->kmoddir, &st) < 0 ? -errno :
	      S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
	if (err) {
		msg_error("unable to find the modules of kernel %s: %s: %s",
			  req->kver, req->kmoddir, strerror(-err));
		return err;
	}
	err = moddb_load(&ctx.db, req->kmoddir);
	if (err)
		return err;
	if (req->hostonly)
		err = hostonly_walk("/sys", "/proc/mounts", modules_host, &ctx);
	else
		err = modules_read_list(&ctx, req->module_list);
	for (i = 0; !err && i < req->nadd; i++)
		err = modules_request(&ctx, req->add[i], "--add-module", true);
	if (!err)
		err = modules_add_indexes(&ctx);
	/*
	 * The kernel's request_module() runs /sbin/modprobe; busybox's
	 * cannot read .ko.xz (Debian's 6.12), rescue-init can, and loads
	 * and unloads for the shell as insmod and rmmod too.
	 */
	for (i = 0; !err && i < ARRAY_SIZE(modules_tools); i++)
		err = list_add_symlink(l, modules_tools[i], "../init", LIST_OWN,
				       "rescue-init as a module tool");
	if (!err)
		msg_verbose("%zu modules of %s from %s", ctx.shipped, req->kver,
			    req->kmoddir);
	moddb_free(ctx.db);
	return err;
}
