// SPDX-License-Identifier: GPL-2.0
/*
 * storage.c: --storage: the tools of rescue/share/storage-layers and their
 * configuration (rescue/share/tool-confs);
 * the closure of any list of tools (--disk-tools, disktools.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "mkrescue.h"

/*
 * The tools of the stacked roots (md RAID, LUKS, LVM2, multi-device
 * btrfs), for rescue-init's storage layers and the rescue shell: the
 * tools column of rescue/share/storage-layers, read from the data
 * directory.  They are the host's, dynamically linked: each comes with
 * its loader and libraries (ldpath.c), at their host paths (hostpath.c),
 * found in the first of these directories that has them.
 */
#define STORAGE_LAYERS		"storage-layers"
#define STORAGE_TOOLS_MAX	16
#define STORAGE_TOOLS_COLUMN	3

/* /usr last: a host without merged /usr has ddrescue, smartctl there. */
static const char *const storage_tool_dirs[] = {
	"/sbin", "/bin", "/usr/sbin", "/usr/bin",
};

struct storage_tools {
	struct buf text;	/* the table, cut into its names */
	const char *name[STORAGE_TOOLS_MAX];
	size_t n;
};

/* lvm's commands, links to it on the host as lvm2 installs them. */
static const char *const storage_lvm_links[] = {
	"lvchange", "lvcreate", "lvdisplay", "lvextend", "lvmconfig",
	"lvreduce", "lvremove", "lvrename", "lvresize", "lvs", "lvscan",
	"pvchange", "pvck", "pvcreate", "pvdisplay", "pvmove", "pvremove",
	"pvresize", "pvs", "pvscan", "vgcfgbackup", "vgcfgrestore",
	"vgchange", "vgck", "vgcreate", "vgdisplay", "vgexport", "vgextend",
	"vgimport", "vgmknodes", "vgreduce", "vgremove", "vgrename", "vgs",
	"vgscan",
};

/* The storage tools' configuration files: DATADIR/TOOL_CONFS, a row each. */
#define TOOL_CONFS		"tool-confs"

/* Each command as the host has it, a link to lvm. */
static int storage_add_lvm_links(struct list *l, struct hostpath *hp,
				 bool required)
{
	size_t i;
	int err = 0;

	for (i = 0; !err && i < ARRAY_SIZE(storage_lvm_links); i++) {
		char path[64];
		struct stat st;

		snprintf(path, sizeof(path), "/sbin/%s", storage_lvm_links[i]);
		if (!required && lstat(path, &st) < 0 && errno == ENOENT) {
			msg_verbose("no %s: it does not exist", path);
			continue;
		}
		err = hostpath_add(hp, l, path, "lvm command");
	}
	return err;
}

/* Each program name of a tools column once, in the table's order. */
static int storage_tools_add(struct storage_tools *t, char *list,
			     const char *path)
{
	char *save = NULL, *name;
	size_t i;

	for (name = strtok_r(list, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < t->n && strcmp(t->name[i], name); i++)
			;
		if (i < t->n)
			continue;
		if (strchr(name, '/') || t->n == STORAGE_TOOLS_MAX) {
			msg_error("unable to read %s: '%s' is not a program name, or one too many",
				  path, name);
			return -EINVAL;
		}
		t->name[t->n++] = name;
	}
	return 0;
}

/* The names of column COLUMN (1 the first) of DATADIR/FILE. */
static int storage_tools_read(struct storage_tools *t, const char *datadir,
			      const char *file, int column)
{
	struct buf path = { 0 };
	char *line, *next;
	int err;

	err = buf_printf(&path, "%s/%s", datadir, file);
	if (err) {
		msg_error("unable to read %s: out of memory", file);
		return err;
	}
	err = buf_read_file(&t->text, path.data);
	if (err)
		msg_error("unable to read %s: %s", path.data, strerror(-err));
	for (line = t->text.data; !err && line && *line; line = next) {
		char *save = NULL, *col;
		int i;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		col = strtok_r(line, " \t", &save);
		if (!col || *col == '#')
			continue;
		for (i = 1; col && i < column; i++)
			col = strtok_r(NULL, " \t", &save);
		if (col && strcmp(col, "-"))
			err = storage_tools_add(t, col, path.data);
	}
	buf_free(&path);
	return err;
}

/* Whether PATH starts with "#!": a script, no ELF to follow. */
static bool storage_is_script(const char *path)
{
	char head[2] = { 0 };
	FILE *f = fopen(path, "re");

	if (!f)
		return false;
	if (fread(head, 1, 2, f) != 2)
		head[0] = '\0';
	fclose(f);
	return head[0] == '#' && head[1] == '!';
}

int storage_add_tools(struct list *l, struct hostpath *hp, bool required,
		      const char *datadir, const char *file, int column,
		      const char *why)
{
	struct storage_tools tools = { 0 };
	struct ldconf conf = { 0 };
	struct ldpath lp;
	size_t i, d;
	int err;

	ldpath_init(&lp, NULL);
	err = storage_tools_read(&tools, datadir, file, column);
	if (!err)
		err = ldconf_read_depth(&conf, "/etc/ld.so.conf", 0);
	lp.conf = &conf;
	for (i = 0; !err && i < tools.n; i++) {
		char p[64];
		struct stat st;

		for (d = 0; d < ARRAY_SIZE(storage_tool_dirs); d++) {
			snprintf(p, sizeof(p), "%s/%s", storage_tool_dirs[d],
				 tools.name[i]);
			if (stat(p, &st) == 0 || errno != ENOENT)
				break;
		}
		if (d == ARRAY_SIZE(storage_tool_dirs)) {
			if (!required) {
				msg_verbose("no %s: it is not in /sbin, /bin, "
					    "/usr/sbin or /usr/bin",
					    tools.name[i]);
				continue;
			}
			snprintf(p, sizeof(p), "%s/%s", storage_tool_dirs[0],
				 tools.name[i]);
		}
		/* a script (clevis's): its interpreter is in the list */
		if (!storage_is_script(p))
			err = ldpath_add_program(&lp, p);
		if (!err)
			err = hostpath_add(hp, l, p, why);
		if (!err && !strcmp(tools.name[i], "lvm"))
			err = storage_add_lvm_links(l, hp, required);
	}
	for (i = 0; !err && i < lp.nfiles; i++)
		err = hostpath_add(hp, l, lp.files[i].path, lp.files[i].why);
	if (!err)
		msg_verbose("%s: %zu libraries and loaders", file, lp.nfiles);
	ldpath_free(&lp);
	ldconf_free(&conf);
	buf_free(&tools.text);
	return err;
}

/* DATADIR/NAME as the image's PATH. */
static int storage_add_conf(struct list *l, const char *datadir,
			    const char *name, const char *path)
{
	struct buf file = { 0 }, text = { 0 };
	int err;

	err = buf_printf(&file, "%s/%s", datadir, name);
	if (err) {
		msg_error("unable to add %s: out of memory", path);
		return err;
	}
	err = buf_read_file(&text, file.data);
	if (err)
		msg_error("unable to read %s: %s", file.data, strerror(-err));
	else
		err = list_add_data(l, path + 1, 0644, text.data, text.len,
				    LIST_DEFAULT, "storage configuration");
	buf_free(&text);
	buf_free(&file);
	return err;
}

/* Each row of DATADIR/tool-confs: "TOOL FILE /PATH". */
static int storage_add_confs(struct list *l, const char *datadir)
{
	struct buf path = { 0 }, table = { 0 };
	char *line, *next;
	int err;

	err = buf_printf(&path, "%s/%s", datadir, TOOL_CONFS);
	if (!err)
		err = buf_read_file(&table, path.data);
	if (err)
		msg_error("unable to read %s/%s: %s", datadir, TOOL_CONFS,
			  strerror(-err));
	for (line = table.data; !err && line && *line; line = next) {
		char *save = NULL, *tool, *name, *dest;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		tool = strtok_r(line, " \t", &save);
		if (!tool || *tool == '#')
			continue;
		name = strtok_r(NULL, " \t", &save);
		dest = strtok_r(NULL, " \t", &save);
		if (!name || !dest || *dest != '/' || strchr(name, '/') ||
		    strtok_r(NULL, " \t", &save)) {
			msg_error("unable to read %s: the row of %s is not "
				  "TOOL FILE /PATH", path.data, tool);
			err = -EINVAL;
			break;
		}
		err = storage_add_conf(l, datadir, name, dest);
	}
	buf_free(&table);
	buf_free(&path);
	return err;
}

int storage_add(struct list *l, struct hostpath *hp, bool required,
		const char *datadir)
{
	int err;

	err = storage_add_tools(l, hp, required, datadir, STORAGE_LAYERS,
				STORAGE_TOOLS_COLUMN, "storage tool");
	if (!err)
		err = storage_add_confs(l, datadir);
	return err;
}
