// SPDX-License-Identifier: GPL-2.0
/* cmdline.c: parse /proc/cmdline as the kernel does, and what init inherits. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "readfile.h"
#include "rescue-init.h"

static char *skip_spaces(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

/*
 * The kernel's next_arg() (lib/cmdline.c): split off one "param" or
 * "param=value" from args, where double quotes group words, may start
 * mid-word (param="a b") and are removed around the value.  Unbalanced
 * quotes run to the end of the line.  Returns the rest of the line.
 */
char *cmdline_next_arg(char *args, char **param, char **val)
{
	unsigned int i, equals = 0;
	int in_quote = 0, quoted = 0;

	if (*args == '"') {
		args++;
		in_quote = 1;
		quoted = 1;
	}
	for (i = 0; args[i]; i++) {
		if (isspace((unsigned char)args[i]) && !in_quote)
			break;
		if (equals == 0 && args[i] == '=')
			equals = i;
		if (args[i] == '"')
			in_quote = !in_quote;
	}
	*param = args;
	if (!equals) {
		*val = NULL;
	} else {
		args[equals] = '\0';
		*val = args + equals + 1;
		if (**val == '"') {
			(*val)++;
			if (args[i - 1] == '"')
				args[i - 1] = '\0';
		}
	}
	if (quoted && i > 0 && args[i - 1] == '"')
		args[i - 1] = '\0';
	if (args[i]) {
		args[i] = '\0';
		args += i + 1;
	} else {
		args += i;
	}
	return skip_spaces(args);
}

static void problem(struct cmdline *c, const char *fmt, const char *key,
		    const char *val)
{
	if (c->nproblems < CMDLINE_MAX_PROBLEMS)
		snprintf(c->problems[c->nproblems++], sizeof(c->problems[0]),
			 fmt, key, val ? val : "");
}

/* Seconds for rootwait=, rootdelay=: decimal, at most a day. */
static int parse_seconds(const char *val, int *out)
{
	char *end;
	long n;

	if (!val || !*val || !isdigit((unsigned char)*val))
		return -EINVAL;
	errno = 0;
	n = strtol(val, &end, 10);
	if (errno || *end || n > 86400)
		return -ERANGE;
	*out = (int)n;
	return 0;
}

/* panic=: the kernel's int, negative for "at once". */
static int parse_panic(const char *val, int *out)
{
	char *end;
	long n;

	if (!val || !*val)
		return -EINVAL;
	errno = 0;
	n = strtol(val, &end, 10);
	if (errno || *end || n > 86400 || n < -86400)
		return -ERANGE;
	*out = (int)n;
	return 0;
}

static bool parse_bool(const char *val, bool *out)
{
	static const char *const yes[] = { "1", "yes", "y", "on", "true" };
	static const char *const no[] = { "0", "no", "n", "off", "false" };
	size_t i;

	if (!val) {
		*out = true;
		return true;
	}
	for (i = 0; i < ARRAY_SIZE(yes); i++) {
		if (!strcmp(val, yes[i])) {
			*out = true;
			return true;
		}
		if (!strcmp(val, no[i])) {
			*out = false;
			return true;
		}
	}
	return false;
}

/* rescue.ro=: strict (or 1, yes, ...) or 0; -1 for a value it does not know. */
static int parse_ro(const char *val)
{
	bool on;

	if (!val || !strcmp(val, "strict"))	/* a bare rescue.ro too */
		return 1;
	if (parse_bool(val, &on))
		return on;
	return -1;
}

/*
 * dracut's rd.break points: before the mount for those up to "mount"
 * (dracut stops before its mount hook), after it for "pre-pivot",
 * "cleanup" and a bare rd.break (dracut's stop at the end, the root on
 * /sysroot).
 */
static enum rd_break parse_break(struct cmdline *c, const char *val)
{
	static const char *const before[] = {
		"cmdline", "pre-udev", "pre-trigger", "initqueue", "pre-mount",
		"mount",
	};
	static const char *const after[] = { "pre-pivot", "cleanup" };
	size_t i;

	if (!val || !*val)
		return BREAK_PRE_PIVOT;
	for (i = 0; i < ARRAY_SIZE(before); i++)
		if (!strcmp(val, before[i]))
			return BREAK_PRE_MOUNT;
	for (i = 0; i < ARRAY_SIZE(after); i++)
		if (!strcmp(val, after[i]))
			return BREAK_PRE_PIVOT;
	problem(c, "unable to use %s=%.60s: not a dracut break point; "
		"breaking before the mount", "rd.break", val);
	return BREAK_PRE_MOUNT;
}

static void parse_one(struct cmdline *c, const char *key, const char *val)
{
	int n;

	if (!strcmp(key, "root")) {
		c->root = val ? val : "";
	} else if (!strcmp(key, "rootfstype")) {
		c->rootfstype = val && *val ? val : NULL;
	} else if (!strcmp(key, "rootflags")) {
		c->rootflags = val && *val ? val : NULL;
	} else if (!strcmp(key, "init")) {
		if (val && *val)
			c->init = val;
		else
			problem(c, "unable to use %s=: empty value; using the "
				"default init%s", "init", NULL);
	} else if (!strcmp(key, "ro") && !val) {
		c->rw = false;
	} else if (!strcmp(key, "rw") && !val) {
		c->rw = true;
	} else if (!strcmp(key, "rootwait")) {
		if (!val)
			c->rootwait_s = ROOTWAIT_FOREVER;
		else if (parse_seconds(val, &n) == 0)
			c->rootwait_s = n;
		else {
			/* The kernel's fallback too: an indefinite wait. */
			c->rootwait_s = ROOTWAIT_FOREVER;
			problem(c, "unable to use %s=%.60s: not a number of "
				"seconds (0 to 86400); waiting without limit",
				"rootwait", val);
		}
	} else if (!strcmp(key, "rootdelay")) {
		if (parse_seconds(val, &n) == 0)
			c->rootdelay_s = n;
		else
			problem(c, "unable to use %s=%.60s: not a number of "
				"seconds (0 to 86400); ignored", "rootdelay",
				val);
	} else if (!strcmp(key, "rescue") && !val) {
		c->brk = BREAK_PRE_MOUNT;
		c->brk_word = key;
		c->rescue_word = true;
	} else if (!strcmp(key, "rd.break")) {
		c->brk = parse_break(c, val);
		c->brk_word = key;
	} else if (!strcmp(key, "rd.retry")) {
		if (parse_seconds(val, &n) == 0)
			c->retry_s = n;
		else
			problem(c, "unable to use %s=%.60s: not a number of "
				"seconds (0 to 86400); ignored", "rd.retry", val);
	} else if (!strcmp(key, "panic")) {
		if (parse_panic(val, &n) == 0)
			c->panic_s = n;
		else
			problem(c, "unable to use %s=%.60s: not a number of "
				"seconds; ignored", "panic", val);
	} else if (!strcmp(key, "rd.shell")) {
		if (!parse_bool(val, &c->shell))
			problem(c, "unable to use %s=%.60s: not 0 or 1; "
				"the rescue shell stays enabled", "rd.shell",
				val);
	} else if (!strcmp(key, "quiet") && !val) {
		c->quiet = true;
	} else if (!strcmp(key, "rescue.debug")) {
		if (!parse_bool(val, &c->debug))
			problem(c, "unable to use %s=%.60s: not 0 or 1",
				"rescue.debug", val);
	} else if (!strcmp(key, "rescue.ro")) {
		n = parse_ro(val);
		if (n < 0)	/* a typo must not write */
			problem(c, "unable to use %s=%.60s: not strict or 0; "
				"strict read-only is on", "rescue.ro", val);
		c->ro_strict = n < 0 ? 1 : n;
	} else if (!strcmp(key, "rescue.member")) {
		if (!parse_bool(val, &c->member))
			problem(c, "unable to use %s=%.60s: not 0 or 1; "
				"members of arrays and volumes stay refused",
				"rescue.member", val);
	}
}

/*
 * Parse a command line in place.  Later parameters override earlier
 * ones, as with the kernel.  Words after "--" belong to init.
 */
void cmdline_parse(char *buf, struct cmdline *c)
{
	char *args, *key, *val;
	bool dashes = false;

	memset(c, 0, sizeof(*c));
	c->rootwait_s = -1;
	c->retry_s = -1;
	c->shell = true;
	c->ro_strict = -1;
	args = skip_spaces(buf);
	while (*args) {
		args = cmdline_next_arg(args, &key, &val);
		if (!val && !strcmp(key, "--") && !dashes) {
			dashes = true;
			continue;
		}
		if (dashes) {
			c->after_dashes++;
			continue;
		}
		if (c->nargs < CMDLINE_MAX_ARGS) {
			c->args[c->nargs].key = key;
			c->args[c->nargs++].val = val;
		}
		parse_one(c, key, val);
	}
	if (!c->shell && c->brk != BREAK_NONE) {
		problem(c, "ignoring %s%.60s: rd.shell=0 means no shell",
			c->brk_word, "");
		c->brk = BREAK_NONE;
	}
	/*
	 * The rescue word implies strict read-only (unless rescue.ro=0) for
	 * as long as its shell lasts: not when rd.shell=0 dropped the shell.
	 */
	c->strict = c->ro_strict == 1 ||
		    (c->ro_strict < 0 && c->rescue_word && c->brk != BREAK_NONE);
	c->strict_implied = c->strict && c->ro_strict != 1;
}

int cmdline_read(const char *path, char *buf, size_t size)
{
	size_t len;
	int err = readfile_into(path, buf, size, &len);

	while (len > 0 && buf[len - 1] == '\n')
		len--;
	if (size > 0)
		buf[len] = '\0';
	return err;
}

/*
 * Parameters of rescue-init's own that the kernel hands to /init (as an
 * argument or in the environment) and the real init must not get.
 */
bool cmdline_consumed(const char *word)
{
	static const char *const words[] = { "rescue", "rd.break", "rd.shell",
					      "rescue.debug", "rescue.member",
					      "rescue.ro" };
	static const char *const keys[] = { "rd.break=", "rd.shell=",
					     "rd.retry=", "rescue.debug=",
					     "rootwait=",
					     "rescue.member=", "rescue.ro=",
					     "RESCUE_CRASHED=" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(words); i++)
		if (!strcmp(word, words[i]))
			return true;
	for (i = 0; i < ARRAY_SIZE(keys); i++)
		if (!strncmp(word, keys[i], strlen(keys[i])))
			return true;
	return false;
}

/*
 * The real init's argv: its path, then what the kernel gave /init,
 * less rescue-init's own words; those after "--" pass untouched.
 */
size_t cmdline_init_argv(const struct cmdline *c, const char *init, int argc,
			 char *const argv[], char **out, size_t max)
{
	size_t n = 0, keep_from;
	int i;

	if (max < 2)
		return 0;
	out[n++] = (char *)init;
	keep_from = (size_t)argc > c->after_dashes ? argc - c->after_dashes : 1;
	for (i = 1; i < argc && n < max - 1; i++)
		if ((size_t)i >= keep_from || !cmdline_consumed(argv[i]))
			out[n++] = argv[i];
	out[n] = NULL;
	return n;
}

size_t cmdline_init_envp(char *const envp[], char **out, size_t max)
{
	size_t n = 0;

	if (max < 1)
		return 0;
	for (; envp && *envp && n < max - 1; envp++)
		if (!cmdline_consumed(*envp))
			out[n++] = *envp;
	out[n] = NULL;
	return n;
}

static bool same_module(const char *a, const char *b, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		char x = a[i] == '-' ? '_' : a[i];
		char y = b[i] == '-' ? '_' : b[i];

		if (x != y || !y)
			return false;
	}
	return b[len] == '\0';
}

/*
 * "MODULE.PARAM=VALUE" words for a module, as modprobe passes them:
 * "PARAM=VALUE PARAM2" into buf.  Returns the length.
 */
size_t cmdline_module_options(const struct cmdline *c, const char *module,
			      char *buf, size_t size)
{
	size_t i, len = 0;
	const char *dot;
	int n;

	if (size)
		buf[0] = '\0';
	for (i = 0; i < c->nargs; i++) {
		dot = strchr(c->args[i].key, '.');
		if (!dot || !dot[1] ||
		    !same_module(c->args[i].key, module, dot - c->args[i].key))
			continue;
		if (c->args[i].val && strchr(c->args[i].val, ' '))
			n = snprintf(buf + len, size - len, "%s%s=\"%s\"",
				     len ? " " : "", dot + 1, c->args[i].val);
		else if (c->args[i].val)
			n = snprintf(buf + len, size - len, "%s%s=%s",
				     len ? " " : "", dot + 1, c->args[i].val);
		else
			n = snprintf(buf + len, size - len, "%s%s",
				     len ? " " : "", dot + 1);
		if (n < 0 || (size_t)n >= size - len) {
			buf[len] = '\0';
			break;
		}
		len += n;
	}
	return len;
}

/*
 * For the parameters a storage layer reads itself (rd.md=, rd.luks.uuid=):
 * the value of the last "key=value" on the line, "" for a bare "key",
 * NULL when the key is absent.  Later words win, as in cmdline_parse().
 */
const char *cmdline_get(const struct cmdline *c, const char *key)
{
	size_t i = c->nargs;

	while (i-- > 0)
		if (!strcmp(c->args[i].key, key))
			return c->args[i].val ? c->args[i].val : "";
	return NULL;
}

/*
 * Every value of a key that may repeat (rd.md.uuid=), in line order, at
 * most max of them: the ones past max are ignored, and a line says so.
 */
size_t cmdline_get_all(const struct cmdline *c, const char *key,
		       const char **out, size_t max)
{
	const char *first_ignored = NULL;
	size_t i, n = 0, ignored = 0;

	for (i = 0; i < c->nargs; i++) {
		if (strcmp(c->args[i].key, key) || !c->args[i].val)
			continue;
		if (n < max)
			out[n++] = c->args[i].val;
		else if (!ignored++)
			first_ignored = c->args[i].val;
	}
	if (ignored)
		log_warn("ignoring %s=%.60s%s: more than %zu %s= given", key,
			 first_ignored, ignored > 1 ? " and the ones after it" :
			 "", max, key);
	return n;
}

/*
 * dracut's getargbool(): absent is dflt, a bare key or any value but
 * 0/no/off/false is on (so "rd.md=0" turns md off, "rd.md" leaves it on).
 */
bool cmdline_flag(const struct cmdline *c, const char *key, bool dflt)
{
	const char *val = cmdline_get(c, key);
	bool on;

	if (!val)
		return dflt;
	if (!*val)
		return true;
	return parse_bool(val, &on) ? on : true;
}

/*
 * Append the lines of one dracut cmdline.d file, less its comments, while
 * they fit in size: false when one did not (it and what follows dropped).
 */
static bool append_conf(const char *path, char *buf, size_t size,
			size_t *len)
{
	char *text, *line, *next;
	size_t tlen;
	bool fit = true;

	if (readfile_alloc(path, CMDLINE_SIZE, &text, &tlen))
		return true;
	for (line = text; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		line = skip_spaces(line);
		if (!*line || *line == '#')
			continue;
		if (*len + strlen(line) + 2 > size) {
			fit = false;
			break;
		}
		*len += sprintf(buf + *len, "%s ", line);
	}
	free(text);
	return fit;
}

static int conf_filter(const struct dirent *e)
{
	size_t n = strlen(e->d_name);

	return e->d_name[0] != '.' && n > 5 &&
	       !strcmp(e->d_name + n - 5, ".conf");
}

/*
 * The kernel's line into its own buffer first: it wins, so it is never
 * what gives way.  Longer than size (a big COMMAND_LINE_SIZE), it is cut
 * at a blank, and why says so.  0 or -errno; *out is malloc()ed.
 */
static int read_kernel_line(const char *path, size_t size, char **out,
			    size_t *len, char *why, size_t whysize)
{
	size_t cut;
	int err;

	err = readfile_alloc(path, 1 << 16, out, len);
	if (err)
		return err;
	while (*len > 0 && (*out)[*len - 1] == '\n')
		(*out)[--*len] = '\0';
	if (*len < size)
		return 0;
	for (cut = size - 1; cut > 0 && (*out)[cut] != ' '; cut--)
		;
	snprintf(why, whysize, "the kernel command line (%s, %zu bytes) is "
		 "longer than the %zu bytes read: cut after byte %zu", path,
		 *len, size - 1, cut);
	(*out)[cut] = '\0';
	*len = cut;
	return 0;
}

/*
 * The command line rescue-init obeys: the *.conf files of confdir (in
 * name order; a dracut hostonly image carries the root's root= and
 * rd.* there as /etc/cmdline.d), then the kernel's line, which comes
 * last so that it wins, as dracut's getcmdline() orders them.  The
 * kernel's line is kept whole; a conf file that does not fit beside it
 * is dropped, and that file named in why (empty when nothing was lost).
 * Returns 0, or -errno when kernel_path cannot be read.
 */
int cmdline_read_all_why(const char *confdir, const char *kernel_path,
			 char *buf, size_t size, char *why, size_t whysize)
{
	struct dirent **names;
	char path[PATH_MAX], *kernel = NULL;
	size_t len = 0, klen = 0;
	bool dropped = false;
	int i, n, err;

	if (whysize)
		why[0] = '\0';
	if (size == 0)
		return -ENOBUFS;
	buf[0] = '\0';
	err = read_kernel_line(kernel_path, size, &kernel, &klen, why,
			       whysize);
	n = confdir ? scandir(confdir, &names, conf_filter, alphasort) : -1;
	for (i = 0; i < n; i++) {
		if (!dropped && snprintf(path, sizeof(path), "%s/%s", confdir,
					 names[i]->d_name) < (int)sizeof(path) &&
		    !append_conf(path, buf, size - klen, &len)) {
			dropped = true;
			if (!why[0])
				snprintf(why, whysize, "ignoring %s and the "
					 "files after it: no room beside the "
					 "kernel command line (%zu bytes of "
					 "%zu)", path, klen, size - 1);
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	if (kernel)
		memcpy(buf + len, kernel, klen + 1);
	free(kernel);
	return err;
}

/* cmdline_read_all_why() for a caller that PID 1 already told (modprobe). */
int cmdline_read_all(const char *confdir, const char *kernel_path,
		     char *buf, size_t size)
{
	char why[256];

	return cmdline_read_all_why(confdir, kernel_path, buf, size, why,
				    sizeof(why));
}
