// SPDX-License-Identifier: GPL-2.0
/*
 * resume.c: the machine's hibernation swap, as Debian's initramfs-tools
 * keeps it (RESUME= in /etc/initramfs-tools/conf.d/resume, or any file of
 * that directory, the last assignment in name order winning, as its init
 * sources them), taken into the image as /etc/cmdline.d/90-resume.conf:
 * rescue-init reads it before the kernel's command line, so that a
 * resume= or noresume there still wins.  RESUME=none (or empty) ships
 * nothing; RESUME=auto, initramfs-tools' guess at build time, is not
 * guessed here, and a line says so.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mkrescue.h"

#define RESUME_CONF	"etc/cmdline.d/90-resume.conf"
#define VALUE_MAX	512

/* Editors' and dpkg's leftovers, which initramfs-tools users do not mean. */
static int conf_filter(const struct dirent *e)
{
	size_t n = strlen(e->d_name);

	return e->d_name[0] != '.' && n && e->d_name[n - 1] != '~' &&
	       !strstr(e->d_name, ".dpkg-") && !strstr(e->d_name, ".ucf-");
}

/*
 * The value of "[export ]NAME=VALUE" on one shell line, unquoted: 1 when
 * the line assigns NAME, else 0.
 */
static int assigned(const char *line, const char *name, char *val,
		    size_t size)
{
	size_t n = strlen(name), len;
	char quote = 0;

	line += strspn(line, " \t");
	if (!strncmp(line, "export", 6) && (line[6] == ' ' || line[6] == '\t'))
		line += 6 + strspn(line + 6, " \t");
	if (strncmp(line, name, n) || line[n] != '=')
		return 0;
	line += n + 1;
	if (*line == '"' || *line == '\'')
		quote = *line++;
	len = quote ? strcspn(line, quote == '"' ? "\"" : "'") :
		      strcspn(line, " \t#;");
	snprintf(val, size, "%.*s", (int)len, line);
	return 1;
}

/* RESUME= and RESUME_OFFSET= of one file, the last ones kept. */
static void read_conf(const char *path, char *resume, char *offset,
		      char *from, size_t fromsize)
{
	struct buf b = { 0 };
	char *line, *next;

	if (buf_read_file(&b, path))
		return;
	for (line = b.data; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (assigned(line, "RESUME", resume, VALUE_MAX))
			snprintf(from, fromsize, "%s", path);
		assigned(line, "RESUME_OFFSET", offset, VALUE_MAX);
	}
	buf_free(&b);
}

/* A value that would split into two words, or carry a quote, on the line. */
static bool bad_value(const char *v)
{
	return v[strcspn(v, " \t\n\"'\\")] != '\0';
}

int resume_add(struct list *l, const char *confdir)
{
	char resume[VALUE_MAX] = "", offset[VALUE_MAX] = "", from[4096] = "";
	char path[4096], why[4200];
	struct dirent **names;
	struct buf line = { 0 };
	int i, n, err;

	n = scandir(confdir, &names, conf_filter, alphasort);
	if (n < 0)
		return 0;	/* no initramfs-tools configuration: nothing */
	for (i = 0; i < n; i++) {
		if (snprintf(path, sizeof(path), "%s/%s", confdir,
			     names[i]->d_name) < (int)sizeof(path))
			read_conf(path, resume, offset, from, sizeof(from));
		free(names[i]);
	}
	free(names);
	if (!resume[0] || !strcmp(resume, "none"))
		return 0;
	if (!strcmp(resume, "auto")) {
		fprintf(stderr, "mkrescue: warning: RESUME=auto in %s is not "
			"guessed: no resume= in the image; give resume= on the "
			"kernel command line, or RESUME=UUID=...\n", from);
		return 0;
	}
	if (bad_value(resume) || bad_value(offset) ||
	    offset[strspn(offset, "0123456789")]) {
		msg_error("unable to use RESUME=%s%s%s of %s: not one word%s",
			  resume, offset[0] ? " RESUME_OFFSET=" : "", offset,
			  from, offset[0] ? " and a number of pages" : "");
		return -EINVAL;
	}
	err = buf_printf(&line, "resume=%s%s%s\n", resume,
			 offset[0] ? " resume_offset=" : "", offset);
	snprintf(why, sizeof(why), "RESUME= of %s", from);
	if (err)
		msg_error("unable to add %s: out of memory", RESUME_CONF);
	else
		err = list_add_data(l, RESUME_CONF, 0644, line.data, line.len,
				    LIST_OWN, why);
	if (!err)
			msg_verbose("resume=%s%s%s from %s", resume,
			    offset[0] ? " resume_offset=" : "", offset, from);
	buf_free(&line);
	return err;
}
