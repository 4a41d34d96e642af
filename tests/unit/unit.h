// SPDX-License-Identifier: GPL-2.0
/*
 * unit.h: what every cmocka test of tests/unit/ shares: cmocka's headers
 * in the order it needs them, UNIT_MAIN() for main(), and unit.c's
 * scratch file helpers and checks of tables of cases, written once
 * instead of once a test file.
 */
#ifndef UNIT_H
#define UNIT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

/*
 * UNIT_MAIN(setup, teardown, cmocka_unit_test(a), ...) is main(): the
 * tests given, run as one group between the group's setup and teardown
 * (NULL for none).
 */
#define UNIT_MAIN(setup, teardown, ...)					\
int main(void)								\
{									\
	const struct CMUnitTest tests[] = { __VA_ARGS__ };		\
									\
	return cmocka_run_group_tests(tests, setup, teardown);		\
}

/* The number of elements of the array A. */
#define UNIT_COUNT(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Write TEXT to DIR/NAME, making the folders of NAME below DIR first; a
 * file that cannot be written fails the test.
 */
void unit_put(const char *dir, const char *name, const char *text);

/*
 * A new scratch file /tmp/PROGRAM.XXXXXX holding LEN bytes of DATA: its
 * path, good until the next call.  The test unlinks it.
 */
const char *unit_temp_file(const void *data, size_t len);

/*
 * The checks of a table of cases: each fails the test with a message
 * that names the case NAME and what came instead, where cmocka's own
 * assert_*() would name only the line of the loop.
 */
void unit_case_int(const char *name, long long got, long long want);
void unit_case_str(const char *name, const char *got, const char *want);
/* GOT holds PART (strstr). */
void unit_case_has(const char *name, const char *got, const char *part);

/* A spec a parser refuses: the error it returns, a part of its message. */
struct unit_refusal {
	const char *spec;
	int err;		/* -EINVAL, ... */
	const char *why;	/* NULL: any message */
};

/*
 * Each of the N specs of R, given to PARSE, returns its error, and the
 * message PARSE left in MSG holds its why (MSG may be NULL where no case
 * has one); a case that does not fails the test, named by its spec.
 */
void unit_refused(int (*parse)(const char *spec), const char *msg,
		  const struct unit_refusal *r, size_t n);

/* Remove the scratch tree DIR and all below it: 0, or rm's status. */
int unit_rm_rf(const char *dir);

#endif /* UNIT_H */
