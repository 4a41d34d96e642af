# SPDX-License-Identifier: GPL-2.0
# tests/runner.sh: tests/run itself, on throwaway groups in a copy of the
# runner: what it keeps of a test's directory once the test has ended.

# A tree with tests/run, tests/lib.sh and a group "throwaway" of one test
# that passes and one that fails, each leaving a file in its directory;
# run it with BUILD=$T/build and what the environment adds.
run_throwaway_group() {
	mkdir -p "$T/tree/tests" &&
	cp "$TOP/tests/run" "$TOP/tests/lib.sh" "$T/tree/tests/" || return 1
	cat >"$T/tree/tests/throwaway.sh" <<-'GROUP'
	test_passes() { echo kept >"$T/disk.img"; }
	test_fails() { echo kept >"$T/disk.img"; echo "the reason"; return 1; }
	GROUP
	env BUILD="$T/build" TEST_JOBS=1 "$@" "$T/tree/tests/run" throwaway \
		>"$T/run.out" 2>&1
	grep -q '^1 passed, 1 failed$' "$T/run.out" ||
		{ fail "tests/run did not count one pass and one failure:" "$(cat "$T/run.out")"; return 1; }
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
