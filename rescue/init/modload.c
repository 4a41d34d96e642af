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
static char *files[4];
static bool modules_active;
static unsigned modules_loaded;

/* Index files of a few MB at most; /proc/filesystems a few KB. */
#define INDEX_MAX	(256u << 20)

static int read_file(const char *path, char **out)
{
	return readfile_alloc(path, INDEX_MAX, out, NULL);
}

static int read_index(const char *name, char **out)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", moddir, name);
	return read_file(path, out);
}

/*
 * Read the module indexes of the running kernel.  -ENOENT when the
 * image has no modules.alias: then nothing is loaded, as on a kernel
 * with its drivers built in.
 */
int modload_init(const struct cmdline *c)
{
	struct utsname u;
	int err;

	module_cmdline = c;
	if (uname(&u))
		return -errno;
	snprintf(moddir, sizeof(moddir), "/lib/modules/%s", u.release);
	err = read_index("modules.alias", &files[0]);
	if (err)
		return err;
	err = read_index("modules.dep", &files[1]);
	if (err) {
		log_warn("unable to read %s/modules.dep: %s", moddir,
			 strerror(-err));
		return err;
	}
	err = modindex_parse_dep(&modules, files[1]);
	if (!err)
		err = modindex_parse_alias(&modules, files[0]);
	if (!err && read_index("modules.softdep", &files[2]) == 0)
		err = modindex_parse_softdep(&modules, files[2]);
	if (!err && read_index("modules.builtin", &files[3]) == 0)
		err = modindex_parse_builtin(&modules, files[3]);
	if (err)
		return err;
	modules_active = true;
	log_debug("%zu modules, %zu aliases, %zu builtin in %s",
		  modules.nmods, modules.naliases, modules.nbuiltin, moddir);
	return 0;
}

bool modload_active(void)
{
	return modules_active;
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

static int load_one(void *ctx, const struct module *m, const char *reason)
{
	char path[PATH_MAX], opts[1024];
	uint64_t t0 = log_now_us();
	int fd, err = 0, flags = 0;

	(void)ctx;
	snprintf(path, sizeof(path), "%s/%s", moddir, m->path);
	cmdline_module_options(module_cmdline, m->name, opts, sizeof(opts));
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
#endif
	if (syscall(SYS_finit_module, fd, opts, flags) && errno != EEXIST)
		err = -errno;
	close(fd);
out:
	if (err) {
		log_warn("unable to load module %s (%s): %s", m->name, m->path,
			 strerror(-err));
		return err;
	}
	modules_loaded++;
	log_info("loaded module %s for %s", m->name, reason);
	log_debug("module %s took %llu us%s%s", m->name,
		  (unsigned long long)(log_now_us() - t0), *opts ? ", options " : "",
		  opts);
	return 0;
}

void modload_alias(const char *modalias)
{
	if (!modules_active || !modalias || !*modalias)
		return;
	if (modindex_load(&modules, modalias, load_one, NULL) == -ENOENT)
		log_debug("no module for %s", modalias);
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
	if (modindex_load(&modules, alias, load_one, NULL) == -ENOENT)
		modindex_load(&modules, fstype, load_one, NULL);
out:
	free(fs);
}

/* The filesystems modules provide: "fs-NAME" aliases. */
void modload_filesystems(void (*fn)(const char *name))
{
	size_t i;

	for (i = 0; modules_active && i < modules.naliases; i++)
		if (!strncmp(modules.aliases[i].pattern, "fs-", 3) &&
		    !modules.aliases[i].pattern[modules.aliases[i].literal])
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
 * later, when these drivers bind, come as uevents (modload_alias()).
 */
void modload_coldplug(void)
{
	struct aliases a = { 0 };
	uint64_t t0 = log_now_us();
	unsigned before = modules_loaded;
	size_t i;
	int fd;

	if (!modules_active)
		return;
	fd = open("/sys/devices", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		log_warn("unable to read /sys/devices: %s", strerror(errno));
		return;
	}
	walk(fd, &a, 0);
	for (i = 0; i < a.n; i++) {
		modload_alias(a.v[i]);
		free(a.v[i]);
	}
	free(a.v);
	log_info("loaded %u modules for %zu devices in %llu us",
		 modules_loaded - before, a.n,
		 (unsigned long long)(log_now_us() - t0));
}
