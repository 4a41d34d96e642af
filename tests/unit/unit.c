// SPDX-License-Identifier: GPL-2.0
/*
 * unit.c: the scratch file helpers and the checks of tables of cases
 * that every cmocka test of tests/unit/ links (unit.h says what each
 * does); a failure to make a scratch file is the test's failure.
 */
#include "unit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void unit_put(const char *dir, const char *name, const char *text)
{
	char path[512], *slash;
	FILE *f;

	assert_true((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) <
		    sizeof(path));
	for (slash = strchr(path + strlen(dir) + 1, '/'); slash;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			fail_msg("mkdir %s: %s", path, strerror(errno));
		*slash = '/';
	}
	f = fopen(path, "w");
	if (!f)
		fail_msg("writing %s: %s", path, strerror(errno));
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

const char *unit_temp_file(const void *data, size_t len)
{
	static char path[256];
	int fd;

	snprintf(path, sizeof(path), "/tmp/%s.XXXXXX",
		 program_invocation_short_name);
	fd = mkstemp(path);
	if (fd < 0)
		fail_msg("mkstemp %s: %s", path, strerror(errno));
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
	return path;
}

void unit_case_int(const char *name, long long got, long long want)
{
	if (got != want)
		fail_msg("%s: %lld, not %lld", name, got, want);
}

void unit_case_str(const char *name, const char *got, const char *want)
{
	if (!got || strcmp(got, want))
		fail_msg("%s: \"%s\", not \"%s\"", name, got ? got : "(null)",
			 want);
}

void unit_case_has(const char *name, const char *got, const char *part)
{
	if (!got || !strstr(got, part))
		fail_msg("%s: \"%s\" has no \"%s\"", name,
			 got ? got : "(null)", part);
}

void unit_refused(int (*parse)(const char *spec), const char *msg,
		  const struct unit_refusal *r, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unit_case_int(r[i].spec, parse(r[i].spec), r[i].err);
		if (r[i].why)
			unit_case_has(r[i].spec, msg, r[i].why);
	}
}

int unit_rm_rf(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}
