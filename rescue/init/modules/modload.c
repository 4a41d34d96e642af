// SPDX-License-Identifier: GPL-2.0
/* modload.c: load kernel modules by modalias with finit_module(2), no udev. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <linux/module.h>

#include "readfile.h"
#include "rescue-init.h"

#define SYSFS_DEPTH_MAX	32

static struct modindex modules;
static const struct cmdline *module_cmdline;
static char moddir[PATH_MAX - 256];
static bool modules_active;
static unsigned modules_loaded;
static bool *put_off;		/* per module: a device wants it, later */
static bool *not_this_cpu;	/* per module: for CPU features not here */
static bool load_all;		/* after modload_rest(): nothing put off */

/* /proc/filesystems: a few KB. */
#define PROC_MAX	(1u << 20)
#define CPU_MODALIAS	"/sys/devices/system/cpu/modalias"
#define SOFTDEP_DEPTH_MAX	16

static int read_file(const char *path, char **out)
{
	return readfile_alloc(path, PROC_MAX, out, NULL);
}

/* Which modules are for CPU features this CPU lacks (modcpu.c). */
static void mark_cpu_modules(void)
{
	char *cpu = NULL, *nl;

	not_this_cpu = calloc(modules.nmods ? modules.nmods : 1,
			      sizeof(*not_this_cpu));
	if (!not_this_cpu || readfile_alloc(CPU_MODALIAS, PROC_MAX, &cpu,
					    NULL) || !cpu) {
		free(cpu);
		return;		/* nothing known: nothing skipped */
	}
	nl = strchr(cpu, '\n');
	if (nl)
		*nl = '\0';
	modcpu_mark(&modules, cpu, not_this_cpu);
	free(cpu);
}

/*
 * Read the module indexes of the running kernel (rescue/lib/modindex.c,
 * the parser mkrescue uses too).  -ENOENT when the image has no
 * modules.alias: then nothing is loaded, as on a kernel with its drivers
 * built in.
 */
int modload_init(const struct cmdline *c)
{
	const char *failed = NULL;
	struct utsname u;
	int err;

	module_cmdline = c;
	coldplug_init(c);
	if (uname(&u))
		return -errno;
	snprintf(moddir, sizeof(moddir), "/lib/modules/%s", u.release);
	err = modindex_read(&modules, moddir, 1u << MODINDEX_DEP |
			    1u << MODINDEX_ALIAS, &failed);
	if (err) {
		/*
		 * No /lib/modules/RELEASE at all is an image for a kernel
		 * with its drivers built in: nothing to say.  A directory
		 * without its indexes is a broken image: say which file.
		 */
		if (err != -ENOENT || (access(moddir, F_OK) == 0 &&
				       strcmp(failed, "modules.alias")))
			log_warn("unable to read %s/%s: %s", moddir, failed,
				 errtext(-err));
		modindex_free(&modules);
		return err;
	}
	put_off = calloc(modules.nmods ? modules.nmods : 1, sizeof(*put_off));
	if (!put_off)
		load_all = true;	/* no room to remember: load now */
	mark_cpu_modules();
	modules_active = true;
	log_debug("%zu modules, %zu aliases, %zu builtin in %s",
		  modules.nmods, modules.naliases, modules.nbuiltin, moddir);
	return 0;
}

unsigned modload_loaded(void)
{
	return modules_loaded;
}

static bool compressed(const char *path)
{
	const char *ko = strstr(path, ".ko.");

	return ko && ko[4];
}

/*
 * Why the kernel refused a .ko.xz/.ko.zst/.ko.gz that it reads itself:
 * EOPNOTSUPP without CONFIG_MODULE_DECOMPRESS, EINVAL before Linux 5.17
 * (the flag unknown) or for another compression than its own.
 */
static const char *decompress_error(int err)
{
	if (err == -EOPNOTSUPP)
		return "this kernel cannot decompress modules "
		       "(no CONFIG_MODULE_DECOMPRESS): ship them uncompressed";
	if (err == -EINVAL)
		return "this kernel cannot decompress it (Linux before 5.17, "
		       "or not its CONFIG_MODULE_COMPRESS_* format)";
	return secureboot_module_error(-err);
}

/*
 * A device's driver probes asynchronously: "async_probe", which the
 * kernel takes for any module (kernel/module/main.c), makes
 * finit_module() return before the probe ends (libata's port resets
 * sleep for 100 ms and more) and skips its wait for all async work, so
 * the next load overlaps it.  The disk comes later as a uevent, which
 * rootfind.c waits for anyway.  Not for the drivers whose probe order
 * names disks (coldplug_async()).  Options from the command line come
 * after it: MODULE.async_probe=0 turns it off.
 */
#define MODLOAD_ASYNC	"async_probe"

/*
 * load_one()'s context: drivers of devices and filesystems load with
 * MODLOAD_ASYNC.  A filesystem's too, though it probes nothing: a
 * module without it makes the kernel wait for every async probe still
 * running (do_init_module()), libata's resets among them.
 */
static bool modload_async = true;

static int load_one(void *ctx, const struct module *m, const char *reason)
{
	const bool *async = ctx;
	char path[PATH_MAX], opts[1024];
	uint64_t t0 = log_now_us();
	int fd, err = 0, flags = 0;
	size_t n = 0;

	snprintf(path, sizeof(path), "%s/%s", moddir, m->path);
	if (async && *async && coldplug_async(m->path))
		n = (size_t)snprintf(opts, sizeof(opts), "%s ", MODLOAD_ASYNC);
	if (!cmdline_module_options(module_cmdline, m->name, opts + n,
				    sizeof(opts) - n) && n)
		opts[n - 1] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
#ifdef MODULE_INIT_COMPRESSED_FILE
	if (compressed(m->path))
		flags |= MODULE_INIT_COMPRESSED_FILE;
#else
	(void)compressed;
	(void)decompress_error;
#endif
	if (syscall(SYS_finit_module, fd, opts, flags) && errno != EEXIST)
		err = -errno;
	close(fd);
out:
	if (err) {
		log_warn("unable to load module %s (%s): %s", m->name, m->path,
			 flags ? decompress_error(err) :
			 secureboot_module_error(-err));
		return err;
	}
	modules_loaded++;
	log_info("loaded module %s for %s", m->name, reason);
	log_debug("module %s took %llu us%s%s", m->name,
		  (unsigned long long)(log_now_us() - t0), *opts ? ", options " : "",
		  opts);
	return 0;
}

static int load_name(struct modindex *ix, const char *name, modload_fn *fn,
		     void *ctx, const char *reason, int depth);

static int load_list(struct modindex *ix, const char **names, size_t n,
		     modload_fn *fn, void *ctx, const char *reason, int depth)
{
	int loaded = 0, r;
	size_t i;

	for (i = 0; i < n; i++) {
		r = load_name(ix, names[i], fn, ctx, reason, depth + 1);
		if (r > 0)
			loaded += r;
	}
	return loaded;
}

/* The softdep pre: (PRE) or post: names of module I, each line's. */
static int load_soft(struct modindex *ix, size_t i, bool pre, modload_fn *fn,
		     void *ctx, const char *reason, int depth)
{
	const struct modsoftdep *s;
	int n = 0;
	size_t j;

	for (j = 0; j < ix->nsoftdeps; j++) {
		s = &ix->softdeps[j];
		if (s->mod == i)
			n += load_list(ix, pre ? s->pre : s->post,
				       pre ? s->npre : s->npost, fn, ctx,
				       reason, depth);
	}
	return n;
}

/* One module: its softdep pre:, its dependencies, itself, its post:. */
static int load_module(struct modindex *ix, size_t i, modload_fn *fn,
		       void *ctx, const char *reason, int depth)
{
	struct module *m = &ix->mods[i];
	int n = 0, err;
	size_t j;

	if (m->state != MOD_NEW)
		return 0;
	if (modindex_is_builtin(ix, m->name)) {
		m->state = MOD_BUILTIN;
		return 0;
	}
	m->state = MOD_LOADING;		/* a cycle stops here */
	n += load_soft(ix, i, true, fn, ctx, reason, depth);
	for (j = 0; j < m->ndeps; j++)
		n += load_module(ix, m->deps[j], fn, ctx, reason, depth);
	err = fn(ctx, m, reason);
	m->state = err ? MOD_FAILED : MOD_LOADED;
	if (!err)
		n++;
	n += load_soft(ix, i, false, fn, ctx, reason, depth);
	return n;
}

struct load_ctx {
	struct modindex *ix;
	modload_fn *fn;
	void *ctx;
	const char *reason;
	int depth, n;
};

static int load_alias(void *ctx, size_t mod)
{
	struct load_ctx *c = ctx;

	/* One of several for an alias, made for another CPU (modcpu.c). */
	if (c->ix == &modules && not_this_cpu && not_this_cpu[mod] &&
	    c->ix->mods[mod].state == MOD_NEW) {
		log_debug("module %s skipped for %s: made for CPU features "
			  "this CPU lacks", c->ix->mods[mod].name, c->reason);
		return 0;
	}
	c->n += load_module(c->ix, mod, c->fn, c->ctx, c->reason, c->depth);
	return 0;
}

static int load_name(struct modindex *ix, const char *name, modload_fn *fn,
		     void *ctx, const char *reason, int depth)
{
	struct load_ctx c = { ix, fn, ctx, reason, depth, 0 };
	ssize_t i;

	if (depth > SOFTDEP_DEPTH_MAX)
		return 0;
	i = modindex_find(ix, name);
	if (i >= 0)
		return load_module(ix, (size_t)i, fn, ctx, reason, depth);
	if (modindex_is_builtin(ix, name))
		return 0;
	if (modindex_resolve(ix, name, load_alias, &c) > 0 ||
	    modindex_alias_is_builtin(ix, name))
		return c.n;
	return -ENOENT;
}

int modload_order(struct modindex *ix, const char *name_or_alias,
		  modload_fn *fn, void *ctx)
{
	return load_name(ix, name_or_alias, fn, ctx, name_or_alias, 0);
}

void modload_alias(const char *modalias)
{
	if (!modules_active || !modalias || !*modalias)
		return;
	if (modload_order(&modules, modalias, load_one, NULL) == -ENOENT)
		log_debug("no module for %s", modalias);
}

/* A device's module that the boot does not need: remembered, not loaded. */
static int device_alias(void *ctx, size_t mod)
{
	struct load_ctx *c = ctx;

	if (load_all || coldplug_now(c->ix->mods[mod].path))
		return load_alias(ctx, mod);
	if (c->ix->mods[mod].state == MOD_NEW)
		put_off[mod] = true;
	return 0;
}

/*
 * The drivers a device's MODALIAS names (coldplug, uevents): those that
 * the boot needs now, the others when modload_rest() comes (coldplug.c).
 */
void modload_device(const char *modalias)
{
	struct load_ctx c = { &modules, load_one, &modload_async, modalias,
			      0, 0 };

	if (!modules_active || !modalias || !*modalias)
		return;
	if (modindex_resolve(&modules, modalias, device_alias, &c) <= 0 &&
	    !modindex_alias_is_builtin(&modules, modalias))
		log_debug("no module for %s", modalias);
}

static bool is_legacy(const char *path)
{
	return coldplug_class(path) == MODCLASS_LEGACY;
}

/*
 * The modules put off so far that WANTED takes (all with NULL), each
 * loaded once, async as load_one() says; one line says how many and
 * for what.  How many loaded.
 */
static unsigned load_put_off(bool (*wanted)(const char *path),
			     bool *async, const char *what,
			     const char *why)
{
	uint64_t t0 = log_now_us();
	unsigned before = modules_loaded;
	size_t i;

	for (i = 0; i < modules.nmods; i++)
		if (put_off[i] && (!wanted || wanted(modules.mods[i].path))) {
			put_off[i] = false;
			load_module(&modules, i, load_one, async, why, 0);
		}
	if (modules_loaded != before)
		log_info("loaded %u %s put off until %s in %llu us",
			 modules_loaded - before, what, why,
			 (unsigned long long)(log_now_us() - t0));
	return modules_loaded - before;
}

/*
 * Before a person is asked something (the rescue shell, a passphrase):
 * the drivers put off so far, the keyboard's among them; from now on
 * every device gets its driver at once.
 */
void modload_rest(const char *why)
{
	if (!modules_active || load_all)
		return;
	load_all = true;
	load_put_off(NULL, NULL, "modules", why);
}

/*
 * The root is not among the devices the boot drivers made: the legacy
 * IDE/PATA drivers put off so far (coldplug.c), with async_probe as any
 * device's driver; their disks come as uevents.  How many loaded.
 */
unsigned modload_legacy(const char *why)
{
	if (!modules_active || load_all)
		return 0;
	coldplug_want_legacy();
	return load_put_off(is_legacy, &modload_async,
			    "legacy disk driver modules", why);
}

struct request_ctx {
	int err;		/* the first module that failed */
};

static int load_counted(void *ctx, const struct module *m, const char *reason)
{
	struct request_ctx *c = ctx;
	int err = load_one(NULL, m, reason);

	if (err && !c->err)
		c->err = err;
	return err;
}

/*
 * One name or alias as modprobe(8) is asked for it: 0 once it is loaded
 * (or built in, or was already there), -ENOENT when no module has that
 * name or alias, else the error of the first module that failed.
 */
int modload_request(const char *name)
{
	struct request_ctx c = { 0 };
	int n;

	if (!modules_active)
		return -ENOENT;
	n = modload_order(&modules, name, load_counted, &c);
	if (n < 0)
		return n;
	return c.err;
}

/* Filesystems come as modules too: "fs-ext4" in modules.alias. */
void modload_fs(const char *fstype)
{
	char alias[64], *fs = NULL, *p;
	size_t len = strlen(fstype);

	/* strstr(p, "") never moves p: the loop below would never end. */
	if (!modules_active || !*fstype ||
	    read_file("/proc/filesystems", &fs) || !fs)
		goto out;
	for (p = fs; (p = strstr(p, fstype)); p += len)
		if (p > fs && (p[-1] == '\t' || p[-1] == ' ') &&
		    (p[len] == '\n' || p[len] == '\0'))
			goto out;	/* already there */
	snprintf(alias, sizeof(alias), "fs-%s", fstype);
	if (modload_order(&modules, alias, load_one, &modload_async) ==
	    -ENOENT)
		modload_order(&modules, fstype, load_one, &modload_async);
out:
	free(fs);
}

/* The filesystems modules provide: "fs-NAME" aliases. */
void modload_filesystems(void (*fn)(const char *name))
{
	size_t i;

	for (i = 0; modules_active && i < modules.naliases; i++)
		if (!strncmp(modules.aliases[i].pattern, "fs-", 3) &&
		    modules.aliases[i].norm &&
		    !modules.aliases[i].norm[modules.aliases[i].literal])
			fn(modules.aliases[i].pattern + 3);
}

struct aliases {
	char **v;
	size_t n, cap;
};

static void collect(int dirfd, struct aliases *a)
{
	char buf[512];
	ssize_t n;
	int fd;

	fd = openat(dirfd, "modalias", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	while (n > 0 && buf[n - 1] == '\n')
		n--;
	if (n <= 0)
		return;
	buf[n] = '\0';
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 64;
		char **v = realloc(a->v, cap * sizeof(*v));

		if (!v)
			return;
		a->v = v;
		a->cap = cap;
	}
	if ((a->v[a->n] = strdup(buf)))
		a->n++;
}

/* Every directory below /sys/devices, without following links. */
static void walk(int fd, struct aliases *a, int depth)
{
	struct dirent *e;
	DIR *dir;
	int sub;

	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return;
	}
	while ((e = readdir(dir))) {
		if (!strcmp(e->d_name, "modalias") && e->d_type == DT_REG)
			collect(dirfd(dir), a);
		if (e->d_type != DT_DIR || e->d_name[0] == '.' ||
		    depth >= SYSFS_DEPTH_MAX)
			continue;
		sub = openat(dirfd(dir), e->d_name,
			     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0)
			walk(sub, a, depth + 1);
	}
	closedir(dir);
}

/*
 * Load drivers for the devices there already are; devices that appear
 * later, when these drivers bind, come as uevents (modload_device()).
 * Those the boot does not need wait for modload_rest() (coldplug.c).
 */
void modload_coldplug(void)
{
	struct aliases a = { 0 };
	uint64_t t0 = log_now_us();
	unsigned before = modules_loaded, later = 0, legacy = 0;
	size_t i;
	int fd;

	if (!modules_active)
		return;
	fd = open("/sys/devices", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		log_warn("unable to read /sys/devices: %s", errtext(errno));
		return;
	}
	walk(fd, &a, 0);
	for (i = 0; i < a.n; i++) {
		modload_device(a.v[i]);
		free(a.v[i]);
	}
	free(a.v);
	for (i = 0; put_off && i < modules.nmods; i++)
		if (put_off[i]) {
			if (coldplug_class(modules.mods[i].path) ==
			    MODCLASS_LEGACY)
				legacy++;
			else
				later++;
			log_debug("module %s put off: %s", modules.mods[i].name,
				  modules.mods[i].path);
		}
	log_info("loaded %u modules for %zu devices in %llu us, %u put off "
		 "until a shell or passphrase needs them, %u legacy disk "
		 "drivers until the root is not found without them",
		 modules_loaded - before, a.n,
		 (unsigned long long)(log_now_us() - t0), later, legacy);
}
