# SPDX-License-Identifier: GPL-2.0
# tests/groups/runner.sh: tests/run itself, on throwaway groups in a copy of the
# runner: what it keeps of a test's directory once the test has ended,
# and that a run cannot pass on nothing (a group that does not load, a
# group or a TESTS= with no test) nor count a skipped test as passed.

# scratch_group NAME: a group tests/groups/NAME.sh, from stdin, in a tree
# with copies of tests/run and the libraries.
scratch_group() {
	mkdir -p "$T/tree/tests/lib" "$T/tree/tests/groups" &&
	cp "$TOP/tests/run" "$T/tree/tests/" &&
	cp "$TOP/tests/lib/lib.sh" "$TOP/tests/lib/stacked-lib.sh" "$T/tree/tests/lib/" &&
	cat >"$T/tree/tests/groups/$1.sh"
}

# run_scratch [VAR=VALUE...] GROUP...: the copy of tests/run on GROUPs,
# with BUILD=$T/build, one group at a time and VARs; none of the
# variables of the run that runs this one (TESTS=, CI=) reach it.  Its
# lines go to $T/run.out, its status to $T/run.status.
run_scratch() {
	local vars=()
	while [[ ${1:-} == *=* ]]; do
		vars+=("$1")
		shift
	done
	env -u TESTS -u TESTS_KEEP -u TESTS_NO_SKIP -u CI -u TESTS_BACKGROUND \
		-u TESTS_AFTER_BACKGROUND -u STACK_KERNELS \
		BUILD="$T/build" TEST_JOBS=1 "${vars[@]}" "$T/tree/tests/run" "$@" \
		</dev/null >"$T/run.out" 2>&1
	echo "$?" >"$T/run.status"
}

# expect_run 0|non-zero LINE...: the last run_scratch ended with that
# status and printed each LINE (an extended regex over a whole line).
expect_run() {
	local want=$1 got line bad=()
	shift
	got=$(cat "$T/run.status")
	case $want in
	0) [ "$got" -eq 0 ] ;;
	*) [ "$got" -ne 0 ] ;;
	esac || bad+=("tests/run ended with status $got, expected $want")
	for line in "$@"; do
		grep -Eqx -- "$line" "$T/run.out" || bad+=("no line /$line/")
	done
	[ "${#bad[@]}" -eq 0 ] ||
		{ fail "${bad[@]}" "in the output of tests/run:" "$(sed 's/^/| /' "$T/run.out")"; return 1; }
}

# A group "throwaway" of one test that passes and one that fails, each
# leaving a file in its directory; run with what the arguments add.
run_throwaway_group() {
	scratch_group throwaway <<-'GROUP' || return 1
	test_passes() { echo kept >"$T/disk.img"; }
	test_fails() { echo kept >"$T/disk.img"; echo "the reason"; return 1; }
	GROUP
	run_scratch "$@" throwaway
	expect_run non-zero '1 passed, 1 failed, 0 skipped'
}

# The disks of a whole run stayed to its end before: several GB on a CI
# machine whose disk filled.
test_a_passed_tests_directory_goes_a_failed_ones_stays() {
	run_throwaway_group || return 1
	[ ! -e "$T/build/tests/throwaway/passes" ] ||
		{ fail "the passed test's directory is still there:" "$(ls -la "$T/build/tests/throwaway/passes")"; return 1; }
	[ -e "$T/build/tests/throwaway/fails/disk.img" ] ||
		{ fail "the failed test's files are gone"; return 1; }
	grep -qx 'the reason' "$T/build/tests/throwaway/fails/output" ||
		{ fail "the failed test's output is not in its directory"; return 1; }
}

test_tests_keep_keeps_the_passed_tests_directory() {
	run_throwaway_group TESTS_KEEP=1 || return 1
	[ -e "$T/build/tests/throwaway/passes/disk.img" ] ||
		{ fail "TESTS_KEEP=1 did not keep the passed test's files"; return 1; }
}

# A group with a syntax error listed no test, and the run ended "0
# failed", status 0.  It is a failure named after the group, with bash's
# error; the groups beside it still run.
test_a_group_with_a_syntax_error_fails_by_name() {
	scratch_group broken <<-'GROUP' || return 1
	test_defined_before() { :; }
	test_the_error() { if; }
	GROUP
	scratch_group fine <<<'test_passes() { :; }' || return 1
	run_scratch broken fine
	expect_run non-zero \
		'FAIL broken \(tests/groups/broken\.sh did not load: status [1-9][0-9]*\)' \
		'  .*syntax error.*' \
		'PASS fine/passes .*' \
		'failed: broken' \
		'1 passed, 1 failed, 0 skipped'
}

# Its tests are all defined; the load's status is what says it is broken.
test_a_group_whose_last_line_returns_non_zero_fails() {
	scratch_group last <<-'GROUP' || return 1
	test_passes() { :; }
	[ -e /nonexistent/the-last-line ]
	GROUP
	run_scratch last
	expect_run non-zero \
		'FAIL last \(tests/groups/last\.sh did not load: status 1\)' \
		'0 passed, 1 failed, 0 skipped'
}

test_a_group_without_tests_fails() {
	scratch_group empty <<<'helper() { :; }' || return 1
	run_scratch empty
	expect_run non-zero \
		'FAIL empty \(tests/groups/empty\.sh has no test_ function\)' \
		'0 passed, 1 failed, 0 skipped'
}

# A mistyped TESTS= ran nothing and passed.
test_tests_matching_no_test_fails_the_run() {
	scratch_group fine <<<'test_passes() { :; }' || return 1
	run_scratch TESTS=no_such_test fine
	expect_run non-zero \
		'tests/run: TESTS=no_such_test matched no test' \
		'0 passed, 0 failed, 0 skipped' || return 1
	# A selection is not a mistake when it matches somewhere.
	run_scratch TESTS=passes fine
	expect_run 0 'PASS fine/passes .*' '1 passed, 0 failed, 0 skipped'
}

# A skip is counted on its own, with its reason, also from a subshell.
test_a_skipped_test_is_counted_not_passed() {
	scratch_group skips <<-'GROUP' || return 1
	test_passes() { :; }
	test_skips() { skip "no linux-image-6.12 installed"; return; }
	test_skips_in_a_subshell() { ( skip "said in a subshell" ); }
	GROUP
	run_scratch skips
	expect_run 0 \
		'PASS skips/passes .*' \
		'SKIP skips/skips \(no linux-image-6\.12 installed\)' \
		'SKIP skips/skips_in_a_subshell \(said in a subshell\)' \
		'skipped: skips/skips \(no linux-image-6\.12 installed\); skips/skips_in_a_subshell \(said in a subshell\)' \
		'1 passed, 0 failed, 2 skipped'
}

# CI must not go green where a test could not run; the counts stay true.
test_ci_fails_a_run_with_a_skipped_test() {
	local var
	scratch_group skips <<-'GROUP' || return 1
	test_passes() { :; }
	test_skips() { skip "no linux-image-6.12 installed"; return; }
	GROUP
	for var in CI=true TESTS_NO_SKIP=1; do
		run_scratch "$var" skips
		expect_run non-zero \
			'SKIP skips/skips \(no linux-image-6\.12 installed\)' \
			'skipped, and CI requires every test: skips/skips \(no linux-image-6\.12 installed\)' \
			'1 passed, 0 failed, 1 skipped' || { fail "with $var"; return 1; }
	done
}

# What did run went wrong: failed, whatever the order or the status.
test_a_test_that_failed_and_skipped_is_failed() {
	scratch_group both <<-'GROUP' || return 1
	test_fail_then_skip() { fail "the check"; skip "a kernel missing"; return 0; }
	test_skip_then_fail() { skip "a kernel missing"; ( fail "the check" ); return 0; }
	test_skip_then_status() { skip "a kernel missing"; return 1; }
	GROUP
	run_scratch both
	expect_run non-zero \
		'FAIL both/fail_then_skip .*' \
		'FAIL both/skip_then_fail .*' \
		'FAIL both/skip_then_status .*' \
		'0 passed, 3 failed, 0 skipped'
}

# for_each_stock_kernel ran on 6.1 alone and passed where 6.12 was not
# installed; it runs what it can, then skips.  The kernels installed
# here are stood in for.
test_a_missing_stock_kernel_skips() {
	scratch_group stock <<-'GROUP' || return 1
	stock_kernel_versions() { echo 6.1.0-57-amd64; }
	on_kernel() { echo "$STOCK_KVER" >>"$T/../ran"; }
	test_for_each_stock_kernel() {
		for_each_stock_kernel on_kernel || return 1
		grep -qx 6.1.0-57-amd64 "$T/ran" || fail "6.1 did not run"
	}
	test_a_failure_wins() { for_each_stock_kernel false; }
	GROUP
	run_scratch stock
	expect_run non-zero \
		'SKIP stock/for_each_stock_kernel \(no Debian stock kernel 6\.12 in /boot and /lib/modules \(make deps\)\)' \
		'FAIL stock/a_failure_wins .*' \
		'0 passed, 1 failed, 1 skipped'
}

# for_each_stack_kernel_and_newest noted "not booted twice" and passed.
test_a_missing_newest_kernel_skips_a_stack_test() {
	scratch_group stack <<-'GROUP' || return 1
	. "$TOP/tests/lib/stacked-lib.sh"
	stock_kernel_versions() { echo 6.1.0-57-amd64; }
	test_and_newest() { for_each_stack_kernel_and_newest true; }
	test_patched_alone() { STACK_KERNELS=patched for_each_stack_kernel_and_newest true; }
	test_both_installed() {
		stock_kernel_versions() { printf '%s\n' 6.1.0-57-amd64 6.12.118+deb12-amd64; }
		for_each_stack_kernel_and_newest true
	}
	GROUP
	run_scratch stack
	expect_run 0 \
		'SKIP stack/and_newest \(no Debian stock kernel 6\.12 in /boot and /lib/modules \(make deps\)\)' \
		'PASS stack/patched_alone .*' \
		'PASS stack/both_installed .*' \
		'2 passed, 0 failed, 1 skipped'
}
