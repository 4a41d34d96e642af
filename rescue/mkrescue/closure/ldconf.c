// SPDX-License-Identifier: GPL-2.0
/* ldconf.c: the library directories of /etc/ld.so.conf, as ldconfig reads it. */
#include <errno.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>

#include "mkrescue.h"

/*
 * ld.so finds a name through /etc/ld.so.cache before the standard
 * directories; ldconfig builds the cache from the directories of
 * ld.so.conf, so they are searched first here.  A line is a directory,
 * "include PATTERN..." (relative to the including file's directory,
 * glob(3) order) or "hwcap ..." (ignored); '#' starts a comment.  As
 * ldconfig, an include that matches nothing or a file that cannot be
 * read is skipped.  The text is outside input
 * (tests/fuzz/fuzz_ldconf.c).
 */

#define LDCONF_MAX_DEPTH 8	/* includes of includes */

static int ldconf_add_dir(struct ldconf *c, const char *dir, size_t len)
{
	size_t i;

	/* "DIR=TYPE", libc4/5 days: the type is ignored, as ldconfig does. */
	if (memchr(dir, '=', len))
		len = (size_t)((const char *)memchr(dir, '=', len) - dir);
	while (len > 1 && dir[len - 1] == '/')
		len--;
	if (!len || dir[0] != '/')
		return 0;
	for (i = 0; i < c->count; i++) {
		if (strlen(c->dirs[i]) == len && !strncmp(c->dirs[i], dir, len))
			return 0;
	}
	return strv_push(&c->dirs, &c->count, dir, len);
}

static int ldconf_include(struct ldconf *c, const char *pattern, size_t len,
			  const char *base, int depth)
{
	struct buf path = { 0 };
	glob_t g = { 0 };
	size_t i;
	int err;

	if (pattern[0] == '/')
		err = buf_printf(&path, "%.*s", (int)len, pattern);
	else
		err = buf_printf(&path, "%s/%.*s", base, (int)len, pattern);
	if (err)
		return err;
	if (c->include) {
		err = c->include(c, path.data, depth);
		buf_free(&path);
		return err;
	}
	if (glob(path.data, 0, NULL, &g) == 0) {
		for (i = 0; !err && i < g.gl_pathc; i++)
			err = ldconf_read_depth(c, g.gl_pathv[i], depth);
	}
	globfree(&g);
	buf_free(&path);
	return err;
}

int ldconf_parse(struct ldconf *c, const char *text, const char *base,
		 int depth)
{
	const char *line = text;
	int err = 0;

	if (depth > LDCONF_MAX_DEPTH)
		return 0;
	while (!err && line && *line) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		const char *hash = memchr(line, '#', len);
		const char *p = line;

		if (hash)
			len = (size_t)(hash - line);
		line = end ? end + 1 : NULL;
		while (len && (*p == ' ' || *p == '\t')) {
			p++;
			len--;
		}
		while (len && (p[len - 1] == ' ' || p[len - 1] == '\t' ||
			       p[len - 1] == '\r'))
			len--;
		if (len > 7 && !strncmp(p, "include", 7) &&
		    (p[7] == ' ' || p[7] == '\t')) {
			p += 7;
			len -= 7;
			/* Each word a pattern. */
			while (!err && len) {
				size_t w;

				while (len && (*p == ' ' || *p == '\t')) {
					p++;
					len--;
				}
				for (w = 0; w < len && p[w] != ' ' && p[w] != '\t'; w++)
					;
				if (w)
					err = ldconf_include(c, p, w, base, depth + 1);
				p += w;
				len -= w;
			}
		} else if (len > 5 && !strncmp(p, "hwcap", 5) &&
			   (p[5] == ' ' || p[5] == '\t')) {
			continue;
		} else if (len) {
			err = ldconf_add_dir(c, p, len);
		}
	}
	return err;
}

int ldconf_read_depth(struct ldconf *c, const char *path, int depth)
{
	struct buf text = { 0 };
	char *base, *slash;
	int err;

	if (depth > LDCONF_MAX_DEPTH)
		return 0;
	err = buf_read_file(&text, path);
	if (err) {
		msg_verbose("%s not read: %s", path, strerror(-err));
		return err == -ENOMEM ? err : 0;
	}
	base = strdup(path);
	if (!base) {
		buf_free(&text);
		return -ENOMEM;
	}
	slash = strrchr(base, '/');
	if (slash)
		*slash = '\0';
	err = ldconf_parse(c, text.data ? text.data : "", slash ? base : ".",
			   depth);
	free(base);
	buf_free(&text);
	return err;
}

void ldconf_free(struct ldconf *c)
{
	strv_free(&c->dirs, &c->count);
}
