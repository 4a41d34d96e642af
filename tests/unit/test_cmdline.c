// SPDX-License-Identifier: GPL-2.0
/* test_cmdline.c: the kernel command line parser and what init inherits. */
#include "unit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rescue-init.h"

static struct cmdline c;

static void parse(const char *line)
{
	static char buf[CMDLINE_SIZE];

	snprintf(buf, sizeof(buf), "%s", line);
	cmdline_parse(buf, &c);
}

static void next_arg_splits_like_the_kernel(void **state)
{
	char buf[] = "a b=c  \"d e\" f=\"g h\" i=j\"k l\"m";
	char *rest = buf, *p, *v;

	(void)state;
	rest = cmdline_next_arg(rest, &p, &v);
	assert_string_equal(p, "a");
	assert_null(v);
	rest = cmdline_next_arg(rest, &p, &v);
	assert_string_equal(p, "b");
	assert_string_equal(v, "c");
	rest = cmdline_next_arg(rest, &p, &v);
	assert_string_equal(p, "d e");		/* quoted word */
	assert_null(v);
	rest = cmdline_next_arg(rest, &p, &v);
	assert_string_equal(p, "f");
	assert_string_equal(v, "g h");		/* quotes removed */
	rest = cmdline_next_arg(rest, &p, &v);
	assert_string_equal(p, "i");
	assert_string_equal(v, "j\"k l\"m");	/* mid-word quote kept */
	assert_string_equal(rest, "");
}

static void quoted_root_value_keeps_its_blank(void **state)
{
	(void)state;
	parse("console=ttyS0 root=\"LABEL=my disk\" ro");
	assert_string_equal(c.root, "LABEL=my disk");
	assert_false(c.rw);
}

static void unbalanced_quote_runs_to_the_end(void **state)
{
	(void)state;
	parse("quiet root=\"LABEL=a b rw");
	assert_string_equal(c.root, "LABEL=a b rw");
	assert_false(c.rw);		/* inside the quote */
	assert_true(c.quiet);
	parse("\"");
	assert_null(c.root);
	parse("\"\" = == \"=\" root");
	assert_string_equal(c.root, "");
	parse("root=\"");
	assert_string_equal(c.root, "");
}

static void every_parameter_is_read(void **state)
{
	(void)state;
	parse("root=/dev/vda2 rootfstype=ext4,vfat rootflags=noatime,data=ordered "
	      "init=/sbin/alt rw rootwait=12 rootdelay=3 rd.break=pre-pivot "
	      "rd.retry=20 panic=-1 quiet rescue.debug");
	assert_string_equal(c.root, "/dev/vda2");
	assert_string_equal(c.rootfstype, "ext4,vfat");
	assert_string_equal(c.rootflags, "noatime,data=ordered");
	assert_string_equal(c.init, "/sbin/alt");
	assert_true(c.rw);
	assert_int_equal(c.rootwait_s, 12);
	assert_int_equal(c.rootdelay_s, 3);
	assert_int_equal(c.brk, BREAK_PRE_PIVOT);
	assert_int_equal(c.retry_s, 20);
	assert_int_equal(c.panic_s, -1);
	assert_true(c.quiet);
	assert_true(c.debug);
	assert_int_equal(c.nproblems, 0);
}

static void defaults_without_parameters(void **state)
{
	(void)state;
	parse("");
	assert_null(c.root);
	assert_null(c.init);
	assert_false(c.rw);
	assert_int_equal(c.rootwait_s, -1);
	assert_int_equal(c.rootdelay_s, 0);
	assert_int_equal(c.brk, BREAK_NONE);
	assert_true(c.shell);
	assert_int_equal(c.retry_s, -1);
	assert_int_equal(c.panic_s, 0);
	assert_false(c.debug);
}

static void later_parameters_win(void **state)
{
	(void)state;
	parse("ro rw root=/dev/a root=/dev/b rw ro rd.shell=0 rd.shell");
	assert_false(c.rw);
	assert_string_equal(c.root, "/dev/b");
	assert_true(c.shell);
}

static void rootwait_forms(void **state)
{
	(void)state;
	parse("rootwait");	/* the kernel's: no limit */
	assert_int_equal(c.rootwait_s, ROOTWAIT_FOREVER);
	parse("rootwait=0");
	assert_int_equal(c.rootwait_s, 0);
	parse("rootwait=abc");	/* the kernel falls back to no limit */
	assert_int_equal(c.rootwait_s, ROOTWAIT_FOREVER);
	assert_int_equal(c.nproblems, 1);
	assert_non_null(strstr(c.problems[0], "rootwait=abc"));
	parse("rootwait=99999999999999999999 rootdelay=-1");
	assert_int_equal(c.nproblems, 2);
	assert_non_null(strstr(c.problems[1], "rootdelay=-1"));
	assert_int_equal(c.rootdelay_s, 0);
}

static void break_forms(void **state)
{
	(void)state;
	parse("rescue");
	assert_int_equal(c.brk, BREAK_PRE_MOUNT);
	parse("rd.break");	/* dracut's: at the end, the root mounted */
	assert_int_equal(c.brk, BREAK_PRE_PIVOT);
	parse("rd.break=pre-mount");
	assert_int_equal(c.brk, BREAK_PRE_MOUNT);
	parse("rd.break=mount");	/* dracut's: before the mount hook */
	assert_int_equal(c.brk, BREAK_PRE_MOUNT);
	parse("rd.break=pre-pivot");
	assert_int_equal(c.brk, BREAK_PRE_PIVOT);
	parse("rd.break=cleanup");
	assert_int_equal(c.brk, BREAK_PRE_PIVOT);
	parse("rd.break=sometime");
	assert_int_equal(c.brk, BREAK_PRE_MOUNT);
	assert_int_equal(c.nproblems, 1);
	assert_non_null(strstr(c.problems[0], "rd.break=sometime"));
	parse("rescue=1");	/* not the word: nothing */
	assert_int_equal(c.brk, BREAK_NONE);
}

/* rd.shell=0 means no shell: a break asked for anywhere is refused. */
static void no_shell_refuses_every_break(void **state)
{
	(void)state;
	parse("rd.break rd.shell=0");
	assert_false(c.shell);
	assert_int_equal(c.brk, BREAK_NONE);
	assert_int_equal(c.nproblems, 1);
	assert_non_null(strstr(c.problems[0], "ignoring rd.break"));
	parse("rd.shell=0 rescue");
	assert_int_equal(c.brk, BREAK_NONE);
	assert_non_null(strstr(c.problems[0], "ignoring rescue"));
	parse("rd.shell=0 rd.break=pre-pivot rd.shell=1");
	assert_int_equal(c.brk, BREAK_PRE_PIVOT);
	assert_int_equal(c.nproblems, 0);
}

/* rescue.ro=: explicit strict, off, implied by the rescue word's shell. */
static void strict_read_only_forms(void **state)
{
	(void)state;
	parse("root=/dev/vda");
	assert_false(c.strict);
	parse("rescue.ro=strict");
	assert_true(c.strict);
	assert_false(c.strict_implied);
	parse("rescue.ro=1 rescue.ro=0");
	assert_false(c.strict);
	parse("rescue");
	assert_true(c.strict);
	assert_true(c.strict_implied);
	parse("rescue rescue.ro=0");
	assert_false(c.strict);
	parse("rescue rescue.ro=strict");
	assert_true(c.strict);
	assert_false(c.strict_implied);
	parse("rd.shell=0 rescue");	/* no shell: nothing to imply it */
	assert_false(c.strict);
	parse("rd.break=mount");
	assert_false(c.strict);
	parse("rescue.ro");
	assert_true(c.strict);
	assert_int_equal(c.nproblems, 0);
	parse("rescue.ro=stirct");	/* a typo must not write */
	assert_true(c.strict);
	assert_int_equal(c.nproblems, 1);
	assert_non_null(strstr(c.problems[0], "rescue.ro=stirct"));
	assert_true(cmdline_consumed("rescue.ro=strict"));
}

static void retry_and_panic_forms(void **state)
{
	(void)state;
	parse("rd.retry=0 panic=30");
	assert_int_equal(c.retry_s, 0);
	assert_int_equal(c.panic_s, 30);
	parse("rd.retry=-5 panic=soon");
	assert_int_equal(c.retry_s, -1);
	assert_int_equal(c.panic_s, 0);
	assert_int_equal(c.nproblems, 2);
	assert_non_null(strstr(c.problems[0], "rd.retry=-5"));
	assert_non_null(strstr(c.problems[1], "panic=soon"));
	assert_true(cmdline_consumed("rd.retry=20"));
}

static void bad_values_name_the_parameter(void **state)
{
	(void)state;
	parse("rd.shell=maybe init= rescue.debug=x");
	assert_true(c.shell);
	assert_null(c.init);
	assert_int_equal(c.nproblems, 3);
	assert_non_null(strstr(c.problems[0], "rd.shell=maybe"));
	assert_non_null(strstr(c.problems[1], "init="));
	assert_non_null(strstr(c.problems[2], "rescue.debug=x"));
}

static void words_after_dashes_are_the_inits(void **state)
{
	(void)state;
	parse("root=/dev/vda -- rescue root=/dev/vdb single");
	assert_string_equal(c.root, "/dev/vda");
	assert_int_equal(c.brk, BREAK_NONE);
	assert_int_equal(c.after_dashes, 3);
}

static void values_of_2047_bytes(void **state)
{
	static char line[CMDLINE_SIZE];
	size_t n;

	(void)state;
	n = (size_t)snprintf(line, sizeof(line), "root=");
	memset(line + n, 'x', 2047 - n);
	line[2047] = '\0';
	parse(line);
	assert_int_equal(strlen(c.root), 2047 - 5);
	n = (size_t)snprintf(line, sizeof(line), "init=\"");
	memset(line + n, 'y', 2047 - n);
	line[2047] = '\0';
	parse(line);
	assert_int_equal(strlen(c.init), 2047 - 6);
}

static void own_words_are_not_passed_on(void **state)
{
	char *argv[] = { "/init", "single", "rescue", "rd.break", "rootwait=3",
			 "rescue", "x=y", NULL };
	char *out[16];
	size_t n;

	(void)state;
	parse("single rescue rd.break rootwait=3 -- rescue x=y");
	n = cmdline_init_argv(&c, "/sbin/init", 7, argv, out, 16);
	assert_int_equal(n, 4);
	assert_string_equal(out[0], "/sbin/init");
	assert_string_equal(out[1], "single");
	assert_string_equal(out[2], "rescue");	/* after "--" */
	assert_string_equal(out[3], "x=y");
	assert_null(out[4]);
	n = cmdline_init_argv(&c, "/sbin/init", 7, argv, out, 3);
	assert_int_equal(n, 2);
	assert_null(out[2]);
}

static void own_variables_are_not_passed_on(void **state)
{
	char *envp[] = { "HOME=/", "TERM=linux", "foo=bar", "rootwait=30",
			 "rd.shell=0", "rescue.debug=1", "RESCUE_CRASHED=1",
			 NULL };
	char *out[8];

	(void)state;
	/* RESCUE_CRASHED: crash.c's, for the restarted rescue-init only */
	assert_int_equal(cmdline_init_envp(envp, out, 8), 3);
	assert_string_equal(out[2], "foo=bar");
	assert_null(out[3]);
	assert_true(cmdline_consumed("rd.break=pre-pivot"));
	assert_false(cmdline_consumed("rescuex"));
	assert_false(cmdline_consumed("root=/dev/vda"));
}

static void module_options_from_dotted_words(void **state)
{
	char buf[128];
	size_t n;

	(void)state;
	parse("nvme_core.multipath=N nvme-core.io_timeout=30 virtio_blk.x=1 "
	      "nvme_core.flag nvme_core.s=\"a b\" nvme_core. nvme_corex.y=2");
	n = cmdline_module_options(&c, "nvme_core", buf, sizeof(buf));
	assert_int_equal(n, strlen(buf));
	assert_string_equal(buf, "multipath=N io_timeout=30 flag s=\"a b\"");
	cmdline_module_options(&c, "virtio_blk", buf, sizeof(buf));
	assert_string_equal(buf, "x=1");
	cmdline_module_options(&c, "ext4", buf, sizeof(buf));
	assert_string_equal(buf, "");
	cmdline_module_options(&c, "nvme_core", buf, 16);	/* cut whole */
	assert_string_equal(buf, "multipath=N");
}

static void read_strips_the_newline(void **state)
{
	const char *path = unit_temp_file("root=/dev/vda ro\n", 17);
	char buf[64];

	(void)state;
	assert_int_equal(cmdline_read(path, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "root=/dev/vda ro");
	assert_int_equal(cmdline_read(path, buf, 5), 0);
	assert_string_equal(buf, "root");
	unlink(path);
	assert_int_equal(cmdline_read(path, buf, sizeof(buf)), -ENOENT);
}

/* Layers read their own parameters: last wins, repeats kept, dracut bools. */
static void layer_parameters(void **state)
{
	const char *v[4];

	(void)state;
	parse("rd.md.uuid=a rd.md=0 rd.luks rd.md.uuid=b rd.lvm=1 rd.lvm=no");
	assert_string_equal(cmdline_get(&c, "rd.md"), "0");
	assert_string_equal(cmdline_get(&c, "rd.luks"), "");
	assert_null(cmdline_get(&c, "rd.luks.uuid"));
	assert_int_equal(cmdline_get_all(&c, "rd.md.uuid", v, 4), 2);
	assert_string_equal(v[0], "a");
	assert_string_equal(v[1], "b");
	assert_int_equal(cmdline_get_all(&c, "rd.md.uuid", v, 1), 1);
	assert_false(cmdline_flag(&c, "rd.md", true));
	assert_true(cmdline_flag(&c, "rd.luks", false));
	assert_false(cmdline_flag(&c, "rd.lvm", true));	/* the last wins */
	assert_true(cmdline_flag(&c, "rd.btrfs", true));	/* absent */
	assert_false(cmdline_flag(&c, "rd.btrfs", false));
}

/*
 * The tests of cmdline_read_all_why() below each run in a scratch folder,
 * confdir, that is /etc/cmdline.d and holds /proc/cmdline as "kernel".
 */
static char confdir[64], kernel[128];
/* What read_all() read, and what it said it left out. */
static char got[CMDLINE_SIZE], why[512];

static int make_confdir(void **state)
{
	(void)state;
	snprintf(confdir, sizeof(confdir), "/tmp/test_cmdline_d.XXXXXX");
	if (!mkdtemp(confdir))
		return -1;
	snprintf(kernel, sizeof(kernel), "%s/kernel", confdir);
	return 0;
}

static int remove_confdir(void **state)
{
	(void)state;
	return unit_rm_rf(confdir);
}

/* The lines of DIR's files and the kernel's, in the first SIZE bytes of got. */
static int read_all(const char *dir, size_t size)
{
	return cmdline_read_all_why(dir, kernel, got, size, why, sizeof(why));
}

/* dracut's /etc/cmdline.d first, in name order, then /proc/cmdline. */
static void conf_dir_comes_before_the_kernel_line(void **state)
{
	(void)state;
	unit_put(confdir, "20-b.conf", "rd.lvm.lv=vg/root\n");
	unit_put(confdir, "10-a.conf", "# hostonly\n  root=UUID=1 rd.md=0\n\nrw");
	unit_put(confdir, "30-c.txt", "ignored=1\n");
	unit_put(confdir, "kernel", "root=/dev/vda quiet\n");
	assert_int_equal(read_all(confdir, sizeof(got)), 0);
	assert_string_equal(why, "");	/* nothing lost */
	assert_string_equal(got, "root=UUID=1 rd.md=0 rw rd.lvm.lv=vg/root "
			    "root=/dev/vda quiet");
	cmdline_parse(got, &c);
	assert_string_equal(c.root, "/dev/vda");	/* the kernel's wins */
	assert_true(c.rw);
	/* No conf dir at all: the kernel line alone. */
	assert_int_equal(cmdline_read_all("/nonexistent", kernel, got,
					  sizeof(got)), 0);
	assert_string_equal(got, "root=/dev/vda quiet");
	/*
	 * A conf line that does not fit beside the kernel's line is dropped,
	 * not cut, and its file named; the kernel's line stays whole.
	 */
	assert_int_equal(read_all(confdir, 24), 0);
	assert_string_equal(got, "root=/dev/vda quiet");
	assert_non_null(strstr(why, "/10-a.conf and the files after it: no "
			       "room beside the kernel command line"));
	assert_int_equal(read_all(confdir, 40), 0);
	assert_string_equal(got, "root=UUID=1 rd.md=0 root=/dev/vda quiet");
	assert_non_null(strstr(why, "/10-a.conf and"));
}

/*
 * The review's probe (L7): a 4080-byte cmdline.d line used to fill the
 * buffer and cut the kernel's line to "root=LA", losing rd.shell=0 and
 * rescue.ro=strict without a word.  The kernel's line wins, whole.
 */
static void big_conf_never_cuts_the_kernel_line(void **state)
{
	static char big[4096];

	(void)state;
	memset(big, 'x', 4080);
	memcpy(big, "big=", 4);
	big[4080] = '\n';
	unit_put(confdir, "10-big.conf", big);
	unit_put(confdir, "20-small.conf", "rd.md=0\n");
	unit_put(confdir, "kernel", "root=LABEL=real rd.shell=0 rescue.ro=strict\n");
	assert_int_equal(read_all(confdir, sizeof(got)), 0);
	assert_string_equal(got, "root=LABEL=real rd.shell=0 rescue.ro=strict");
	assert_non_null(strstr(why, "ignoring "));
	assert_non_null(strstr(why, "/10-big.conf and the files after it"));
	cmdline_parse(got, &c);
	assert_string_equal(c.root, "LABEL=real");
	assert_false(c.shell);
	assert_true(c.strict);
}

/* A kernel line longer than the buffer: cut at a blank, and said. */
static void long_kernel_line_is_cut_at_a_blank_and_said(void **state)
{
	(void)state;
	unit_put(confdir, "kernel", "root=/dev/vda rd.shell=0 rescue.ro=strict quiet\n");
	assert_int_equal(read_all(NULL, 32), 0);
	assert_string_equal(got, "root=/dev/vda rd.shell=0");
	assert_non_null(strstr(why, "/kernel, 47 bytes) is longer than the 31 "
			       "bytes read: cut after byte 24"));
	/* One that fits: nothing said. */
	assert_int_equal(read_all(NULL, 48), 0);
	assert_string_equal(got, "root=/dev/vda rd.shell=0 rescue.ro=strict quiet");
	assert_string_equal(why, "");
}

/* Random command lines: no crash, no overread (ASan), pointers inside. */
static void survives_random_lines(void **state)
{
	static const char alphabet[] = "ab=\" \t-.rootUID/\\x";
	static char buf[CMDLINE_SIZE];
	size_t i, len, k;
	int round;

	(void)state;
	srand(2);
	for (round = 0; round < 5000; round++) {
		len = (size_t)rand() % 200;
		for (i = 0; i < len; i++)
			buf[i] = alphabet[rand() % (sizeof(alphabet) - 1)];
		buf[len] = '\0';
		cmdline_parse(buf, &c);
		for (k = 0; k < c.nargs; k++)
			assert_true(c.args[k].key >= buf && c.args[k].key <= buf + len);
	}
}

UNIT_MAIN(NULL, NULL,
	cmocka_unit_test(next_arg_splits_like_the_kernel),
	cmocka_unit_test(quoted_root_value_keeps_its_blank),
	cmocka_unit_test(unbalanced_quote_runs_to_the_end),
	cmocka_unit_test(every_parameter_is_read),
	cmocka_unit_test(defaults_without_parameters),
	cmocka_unit_test(later_parameters_win),
	cmocka_unit_test(rootwait_forms),
	cmocka_unit_test(break_forms),
	cmocka_unit_test(no_shell_refuses_every_break),
	cmocka_unit_test(strict_read_only_forms),
	cmocka_unit_test(retry_and_panic_forms),
	cmocka_unit_test(bad_values_name_the_parameter),
	cmocka_unit_test(words_after_dashes_are_the_inits),
	cmocka_unit_test(values_of_2047_bytes),
	cmocka_unit_test(own_words_are_not_passed_on),
	cmocka_unit_test(own_variables_are_not_passed_on),
	cmocka_unit_test(module_options_from_dotted_words),
	cmocka_unit_test(read_strips_the_newline),
	cmocka_unit_test(layer_parameters),
	cmocka_unit_test_setup_teardown(conf_dir_comes_before_the_kernel_line,
					make_confdir, remove_confdir),
	cmocka_unit_test_setup_teardown(big_conf_never_cuts_the_kernel_line,
					make_confdir, remove_confdir),
	cmocka_unit_test_setup_teardown(long_kernel_line_is_cut_at_a_blank_and_said,
					make_confdir, remove_confdir),
	cmocka_unit_test(survives_random_lines))
