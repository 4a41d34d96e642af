// SPDX-License-Identifier: GPL-2.0
/*
 * firmware.c: the firmware files that the shipped modules declare
 * (MODULE_FIRMWARE, the "firmware=" strings of a module's .modinfo
 * section, what `modinfo -F firmware` prints), copied from the firmware
 * directory into the image's /lib/firmware.
 *
 * The kernel's own loader reads /lib/firmware (CONFIG_FW_LOADER, built
 * into Debian's kernels): a driver that asks before the root is mounted
 * finds its file in the initramfs, and nothing in rescue-init takes
 * part.  A file is looked for where the kernel looks, in its order:
 * plain, then .zst, then .xz (the forms this kernel's loader reads),
 * each in updates/KVER, updates, KVER and the directory itself; the
 * first found is shipped under the same name, its
 * symbolic links followed (linux-firmware's names are often links).  A
 * declared file that is not there is never an error, as initramfs-tools
 * and dracut say "possible missing firmware": a module declares every
 * variant it could ask for, a machine has a few (firmware_loud() says
 * which ones get a line).
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lzma.h>

#include "mkrescue.h"

/* A module bigger than this unpacked is not read (the largest are 20 MiB). */
#define FIRMWARE_MAX_MODULE	(256u << 20)
#define FIRMWARE_XZ_MEMLIMIT	(64u << 20)

struct firmware_ctx {
	struct list *l;
	const char *kver, *fwdir;
	const char *const *add;	/* --add-module */
	size_t nadd;
	char **seen;		/* names already shipped or said missing */
	size_t nseen;
	size_t shipped, missing;
	struct buf config;	/* /boot/config-KVER, if there */
	bool config_read;
};

/* The .xz stream IN, unpacked into OUT. */
static int firmware_unxz(const struct buf *in, struct buf *out)
{
	lzma_stream s = LZMA_STREAM_INIT;
	lzma_ret r;

	if (lzma_stream_decoder(&s, FIRMWARE_XZ_MEMLIMIT, 0) != LZMA_OK)
		return -ENOMEM;
	s.next_in = (const uint8_t *)in->data;
	s.avail_in = in->len;
	do {
		if (out->len == out->cap) {
			size_t cap = out->cap ? out->cap * 2 : in->len * 4 + 4096;
			char *n;

			if (cap > FIRMWARE_MAX_MODULE) {
				r = LZMA_DATA_ERROR;
				break;
			}
			n = realloc(out->data, cap);
			if (!n) {
				r = LZMA_MEM_ERROR;
				break;
			}
			out->data = n;
			out->cap = cap;
		}
		s.next_out = (uint8_t *)out->data + out->len;
		s.avail_out = out->cap - out->len;
		r = lzma_code(&s, LZMA_FINISH);
		out->len = out->cap - s.avail_out;
	} while (r == LZMA_OK);
	lzma_end(&s);
	if (r == LZMA_MEM_ERROR)
		return -ENOMEM;
	return r == LZMA_STREAM_END ? 0 : -EBADMSG;
}

/* The contents of the section .modinfo of ELF, or -ENOEXEC. */
static int firmware_modinfo(Elf *elf, const char **info, size_t *len)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx))
		return -ENOEXEC;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		Elf_Data *data;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			return -ENOEXEC;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".modinfo"))
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf)
			return -ENOEXEC;
		*info = data->d_buf;
		*len = data->d_size;
		return 0;
	}
	return -ENOEXEC;
}

static bool firmware_seen(struct firmware_ctx *ctx, const char *name)
{
	size_t i;

	for (i = 0; i < ctx->nseen; i++)
		if (!strcmp(ctx->seen[i], name))
			return true;
	return false;
}

/* A name below the firmware directory: relative, without a ".." part. */
static bool firmware_valid_name(const char *name)
{
	const char *p;

	if (!*name || *name == '/')
		return false;
	for (p = name; p; p = strchr(p, '/'), p = p ? p + 1 : NULL)
		if (!strncmp(p, "..", 2) && (p[2] == '/' || !p[2]))
			return false;
	return true;
}

/* FILE (below the firmware directory) shipped as lib/firmware/FILE. */
static int firmware_ship(struct firmware_ctx *ctx, const char *file,
			 const char *src, const struct stat *st,
			 const char *module)
{
	struct buf dst = { 0 }, why = { 0 };
	int err;

	if (buf_printf(&dst, "lib/firmware/%s", file) ||
	    buf_printf(&why, "firmware of module %s", module)) {
		msg_error("unable to add firmware %s: out of memory", file);
		err = -ENOMEM;
	} else {
		msg_verbose("firmware %s (module %s): %s", file, module, src);
		err = list_add_file(ctx->l, dst.data, 0644, src,
				    (uint64_t)st->st_size, LIST_DEFAULT,
				    why.data);
		ctx->shipped += !err;
	}
	buf_free(&dst);
	buf_free(&why);
	return err;
}

/*
 * Whether kernel KVER's loader reads files ending in SUFFIX, by its
 * /boot/config-KVER: Debian's 6.1 reads .xz, not .zst; 6.12 both.  A
 * kernel without that file (a cross build) is trusted to read them all.
 */
static bool firmware_kernel_reads(struct firmware_ctx *ctx, const char *suffix)
{
	const char *option = !strcmp(suffix, ".zst") ? "ZSTD" : "XZ";
	char want[64];

	if (!*suffix)
		return true;
	if (!ctx->config_read) {
		struct buf path = { 0 };

		ctx->config_read = true;
		if (!buf_printf(&path, "/boot/config-%s", ctx->kver) &&
		    buf_read_file(&ctx->config, path.data))
			buf_free(&ctx->config);
		buf_free(&path);
	}
	if (!ctx->config.data)
		return true;
	snprintf(want, sizeof(want), "\nCONFIG_FW_LOADER_COMPRESS_%s=y\n", option);
	if (strstr(ctx->config.data, want))
		return true;
	/* Before 5.19, CONFIG_FW_LOADER_COMPRESS alone meant .xz. */
	return !strcmp(option, "XZ") &&
	       strstr(ctx->config.data, "\nCONFIG_FW_LOADER_COMPRESS=y\n") &&
	       !strstr(ctx->config.data, "CONFIG_FW_LOADER_COMPRESS_XZ");
}

/* NAME looked for as the kernel does; 0 and nothing added if absent. */
static int firmware_find(struct firmware_ctx *ctx, const char *name,
			 const char *module)
{
	static const char *const suffixes[] = { "", ".zst", ".xz" };
	/* updates/KVER/, updates/, KVER/, then the directory itself. */
	static const struct {
		const char *dir;
		bool kver;
	} subdirs[] = {
		{ "updates/", true }, { "updates/", false }, { "", true }, { "", false },
	};
	struct buf sub = { 0 }, file = { 0 }, src = { 0 };
	size_t i, j;
	int err = 0, found = 0;

	for (i = 0; !err && !found && i < ARRAY_SIZE(suffixes); i++) {
		if (!firmware_kernel_reads(ctx, suffixes[i]))
			continue;
		for (j = 0; !err && !found && j < ARRAY_SIZE(subdirs); j++) {
			struct stat st;

			sub.len = file.len = src.len = 0;
			err = buf_printf(&sub, "%s%s%s", subdirs[j].dir,
					 subdirs[j].kver ? ctx->kver : "",
					 subdirs[j].kver ? "/" : "") ||
			      buf_printf(&file, "%s%s%s", sub.data, name,
					 suffixes[i]) ||
			      buf_printf(&src, "%s/%s", ctx->fwdir, file.data) ?
			      -ENOMEM : 0;
			if (err) {
				msg_error("unable to add firmware %s: out of memory",
					  name);
				break;
			}
			if (stat(src.data, &st) || !S_ISREG(st.st_mode))
				continue;
			if (access(src.data, R_OK)) {
				err = -errno;
				msg_error("unable to add firmware %s (module %s): %s: %s",
					  name, module, src.data, strerror(-err));
				break;
			}
			err = firmware_ship(ctx, file.data, src.data, &st, module);
			found = 1;
		}
	}
	buf_free(&sub);
	buf_free(&file);
	buf_free(&src);
	return err ? err : found;
}

/*
 * Whether a missing file of MODULE is said without --verbose: when the
 * module was named by --add-module, or this host has it loaded, as
 * initramfs-tools warns only for loaded modules.  The module list ships
 * drivers for every machine, and r8169 alone declares 30 files: a line
 * for each on every build (and every kernel upgrade) would bury the rest.
 */
static bool firmware_loud(const struct firmware_ctx *ctx, const char *module)
{
	char sys[512];
	size_t i, j;

	for (i = 0; i < ctx->nadd; i++) {
		const char *a = ctx->add[i];

		for (j = 0; a[j] && module[j] &&
		     (a[j] == module[j] || (a[j] == '-' && module[j] == '_')); j++)
			;
		if (!a[j] && !module[j])
			return true;
	}
	snprintf(sys, sizeof(sys), "/sys/module/%s", module);
	return access(sys, F_OK) == 0;
}

/* One "firmware=" name of MODULE. */
static int firmware_want(struct firmware_ctx *ctx, const char *name,
			 const char *module)
{
	int n;

	if (firmware_seen(ctx, name))
		return 0;
	if (strv_push(&ctx->seen, &ctx->nseen, name, strlen(name))) {
		msg_error("unable to add firmware %s: out of memory", name);
		return -ENOMEM;
	}
	/* The kernel's loader would look outside its directories: a line,
	 * and the image built without it, as for a file not there. */
	if (!firmware_valid_name(name)) {
		msg_error("firmware '%s' of module %s: not a path below %s, left out",
			  name, module, ctx->fwdir);
		return 0;
	}
	n = firmware_find(ctx, name, module);
	if (n == 0 && firmware_loud(ctx, module))
		fprintf(stderr, "mkrescue: possible missing firmware %s for module %s (not in %s)\n",
			name, module, ctx->fwdir);
	else if (n == 0)
		msg_verbose("possible missing firmware %s for module %s (not in %s)",
			    name, module, ctx->fwdir);
	ctx->missing += n == 0;
	return n < 0 ? n : 0;
}

/* The firmware names of the module file SRC (.ko or .ko.xz) called
 * MODULE, as lines "MODULE NAME" appended to OUT. */
static int firmware_module(const char *src, const char *module, struct buf *out)
{
	struct buf file = { 0 }, plain = { 0 };
	const struct buf *image = &file;
	const char *info = NULL, *p, *end;
	size_t len = 0, slen = strlen(src);
	Elf *elf = NULL;
	int err;

	err = buf_read_file(&file, src);
	if (!err && slen > 3 && !strcmp(src + slen - 3, ".xz")) {
		err = firmware_unxz(&file, &plain);
		image = &plain;
	}
	if (!err) {
		elf = elf_memory(image->data, image->len);
		err = elf ? firmware_modinfo(elf, &info, &len) : -ENOEXEC;
	}
	/*
	 * Not the firmware's business to refuse a module: one that is not
	 * ELF the kernel refuses at its load, and rescue-init says so.
	 */
	if (err == -ENOMEM) {
		msg_error("unable to read the firmware names of module %s: out of memory",
			  module);
		goto out;
	} else if (err) {
		msg_verbose("module %s: no firmware names read: %s: %s", module,
			    src, err == -ENOEXEC ? "no .modinfo section" :
			    err == -EBADMSG ? "not a valid .xz file" : strerror(-err));
		err = 0;
		goto out;
	}
	end = info + len;
	for (p = info; !err && p < end; p += strnlen(p, (size_t)(end - p)) + 1) {
		size_t n = strnlen(p, (size_t)(end - p));

		/* Unterminated, empty, or a name no line can hold: skipped. */
		if (strncmp(p, "firmware=", 9) || n == 9 || p + n == end ||
		    memchr(p, '\n', n) || memchr(p, ' ', n))
			continue;
		err = buf_printf(out, "%s %.*s\n", module, (int)(n - 9), p + 9);
		if (err)
			msg_error("unable to add firmware of %s: out of memory", module);
	}
out:
	if (elf)
		elf_end(elf);
	buf_free(&file);
	buf_free(&plain);
	return err;
}

/* "lib/modules/KVER/.../NAME.ko[.xz]": NAME, '-' as '_'; or NULL. */
static char *firmware_module_name(const struct list_entry *e, const char *prefix)
{
	const char *base, *ko;
	char *name, *c;
	size_t n;

	if (!S_ISREG(e->mode) || !e->source ||
	    strncmp(e->path, prefix, strlen(prefix)))
		return NULL;
	base = strrchr(e->path, '/') + 1;
	n = strlen(base);
	if (n > 3 && !strcmp(base + n - 3, ".ko"))
		ko = base + n - 3;
	else if (n > 6 && !strcmp(base + n - 6, ".ko.xz"))
		ko = base + n - 6;
	else
		return NULL;
	name = strndup(base, (size_t)(ko - base));
	for (c = name; c && *c; c++)
		if (*c == '-')
			*c = '_';
	return name;
}

#define FIRMWARE_CACHE_FORMAT	"devtmpfs-rescue firmware names 1"

/*
 * The firmware names of the modules SRCS (called NAMES), as lines
 * "MODULE NAME" after the format line.  Reading them means unpacking
 * every module: Debian's 6.12 .ko.xz took mkrescue from 0.3 s to 1.2 s.
 * They are kept in the cache (toolkitcache.c) under a key of the
 * modules' stat lines, as the toolkit is.
 */
static int firmware_names(char **srcs, char **names, size_t n, struct buf *out)
{
	struct buf key = { 0 };
	char *dir = cache_dir(), *path = NULL;
	size_t i;
	int err = 0;

	err = buf_printf(&key, "%s\n", FIRMWARE_CACHE_FORMAT);
	for (i = 0; !err && dir && i < n; i++)
		err = cache_stat_key(&key, srcs[i]);
	if (!err && dir) {
		mkdir(dir, 0700);
		if (asprintf(&path, "%s/firmware-%016llx.txt", dir,
			     (unsigned long long)cache_fnv1a(CACHE_FNV1A_INIT,
							     key.data, key.len)) < 0)
			path = NULL;
	}
	buf_free(&key);
	free(dir);
	if (path && !cache_get_lines(path, FIRMWARE_CACHE_FORMAT, out)) {
		msg_verbose("the modules' firmware names from the cache: %s", path);
		free(path);
		return 0;
	}
	err = buf_printf(out, "%s\n", FIRMWARE_CACHE_FORMAT);
	for (i = 0; !err && i < n; i++)
		err = firmware_module(srcs[i], names[i], out);
	if (!err && path)
		cache_put(path, out);
	free(path);
	return err;
}

/* Each line "MODULE NAME" of LINES (after the format line) wanted. */
static int firmware_want_all(struct firmware_ctx *ctx, char *lines)
{
	char *line = strchr(lines, '\n') + 1, *next, *sp;
	int err = 0;

	for (; !err && *line; line = next) {
		next = strchr(line, '\n');
		*next++ = '\0';
		sp = strchr(line, ' ');
		if (!sp)
			continue;
		*sp = '\0';
		err = firmware_want(ctx, sp + 1, line);
	}
	return err;
}

int firmware_add(struct list *l, const char *kver, const char *fwdir,
		 const char *const *add, size_t nadd)
{
	struct firmware_ctx ctx = {
		.l = l, .kver = kver, .fwdir = fwdir, .add = add, .nadd = nadd,
	};
	char **srcs = NULL, **names = NULL, *prefix = NULL;
	size_t i, nsrcs = 0, nnames = 0, count = l->count;
	struct buf lines = { 0 };
	int err = 0;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		msg_error("unable to read module files: libelf is too old");
		return -ENOSYS;
	}
	if (asprintf(&prefix, "lib/modules/%s/", kver) < 0) {
		msg_error("unable to add firmware: out of memory");
		return -ENOMEM;
	}
	/* The list grows below: the modules are taken from it first. */
	for (i = 0; !err && i < count; i++) {
		char *name = firmware_module_name(&l->entries[i], prefix);

		if (!name)
			continue;
		err = strv_push(&names, &nnames, name, strlen(name)) ||
		      strv_push(&srcs, &nsrcs, l->entries[i].source,
				strlen(l->entries[i].source)) ? -ENOMEM : 0;
		free(name);
		if (err)
			msg_error("unable to add firmware: out of memory");
	}
	if (!err)
		err = firmware_names(srcs, names, nsrcs, &lines);
	if (!err)
		err = firmware_want_all(&ctx, lines.data);
	if (!err)
		msg_verbose("firmware: %zu files from %s, %zu missing", ctx.shipped,
			    fwdir, ctx.missing);
	buf_free(&lines);
	buf_free(&ctx.config);
	strv_free(&srcs, &nsrcs);
	strv_free(&names, &nnames);
	strv_free(&ctx.seen, &ctx.nseen);
	free(prefix);
	return err;
}
