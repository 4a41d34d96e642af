// SPDX-License-Identifier: GPL-2.0
/*
 * multipath.c: with --storage, the host's multipath-tools when it has
 * them: multipath(8) and kpartx(8), the checker and prioritizer plugins
 * multipath dlopen()s from /lib/multipath (no library closure sees
 * them: each is added with its own), and the host's multipath.conf,
 * bindings and wwids, so that a map is named as on the host.
 * rescue-init runs them when the root's disk is seen on several paths
 * (rescue/init/storage/multipath.c).  No multipathd: the root's own
 * takes the map over after the switch.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mkrescue.h"

#define MULTIPATH_PROGRAM	"/sbin/multipath"
#define MULTIPATH_PLUGINS	"/lib/multipath"
#define MULTIPATH_TOOLS		"multipath-tools"
#define MULTIPATH_TOOLS_COLUMN	1

static const char *const multipath_confs[] = {
	"/etc/multipath.conf", "/etc/multipath/bindings",
	"/etc/multipath/wwids",
};

/* Each plugin of /lib/multipath with the libraries it needs. */
static int add_plugins(struct list *l, struct hostpath *hp)
{
	struct ldconf conf = { 0 };
	struct ldpath lp;
	struct dirent *e;
	char path[320];
	size_t i;
	DIR *dir;
	int err;

	dir = opendir(MULTIPATH_PLUGINS);
	if (!dir) {
		msg_error("unable to read %s: %s", MULTIPATH_PLUGINS,
			  strerror(errno));
		return -errno;
	}
	ldpath_init(&lp, NULL);
	err = ldconf_read_depth(&conf, "/etc/ld.so.conf", 0);
	lp.conf = &conf;
	while (!err && (e = readdir(dir))) {
		size_t n = strlen(e->d_name);

		if (n < 4 || strcmp(e->d_name + n - 3, ".so"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", MULTIPATH_PLUGINS,
			 e->d_name);
		err = ldpath_add_program(&lp, path);
		if (!err)
			err = hostpath_add(hp, l, path, "multipath plugin");
	}
	closedir(dir);
	for (i = 0; !err && i < lp.nfiles; i++)
		err = hostpath_add(hp, l, lp.files[i].path, lp.files[i].why);
	ldpath_free(&lp);
	ldconf_free(&conf);
	return err;
}

int multipath_add(struct list *l, struct hostpath *hp, const char *datadir)
{
	size_t i;
	int err;

	if (access(MULTIPATH_PROGRAM, X_OK)) {
		msg_verbose("no %s: a root on several paths is mounted "
			    "through one (apt-get install multipath-tools)",
			    MULTIPATH_PROGRAM);
		return 0;
	}
	err = storage_add_tools(l, hp, true, datadir, MULTIPATH_TOOLS,
				MULTIPATH_TOOLS_COLUMN, "multipath tool");
	if (!err)
		err = add_plugins(l, hp);
	for (i = 0; !err && i < ARRAY_SIZE(multipath_confs); i++)
		if (access(multipath_confs[i], R_OK) == 0)
			err = hostpath_add(hp, l, multipath_confs[i],
					   "multipath configuration");
	return err;
}
