# SPDX-License-Identifier: GPL-2.0
# tests/lint.sh: static analysis of every C file of rescue/, qemu/ and
# tests/fuzz/, which must find nothing.  A false positive is silenced
# where it stands, with a NOLINT or cppcheck-suppress comment that says
# why, never by lowering the level here.

lint_sources() {
	ls "$TOP"/rescue/*/*.c "$TOP"/tests/fixtures/*.c "$TOP"/qemu/*.c "$TOP"/tests/fuzz/*.c
}

lint_cflags() {
	echo "-std=gnu11 -D_GNU_SOURCE -I$TOP/rescue/init -I$TOP/rescue/mkrescue -I$TOP/rescue/lib -I$TOP/tests/fuzz" \
		"$(pkg-config --cflags blkid libarchive)"
}

# cppcheck's warning, style, performance and portability checks; style's
# variableScope is left out: it asks to declare variables in the
# innermost block, against the kernel style the code follows.
test_cppcheck_finds_nothing() {
	local out
	# shellcheck disable=SC2046
	out=$(cppcheck -q --enable=warning,style,performance,portability \
		--suppress=variableScope --inline-suppr --error-exitcode=1 \
		-D_GNU_SOURCE --std=c11 -I "$TOP/rescue/init" -I "$TOP/rescue/mkrescue" -I "$TOP/rescue/lib" $(lint_sources) 2>&1) ||
		{ fail "cppcheck:" "$out"; return 1; }
	note "cppcheck: $(lint_sources | wc -l) files, no finding"
}

# The checks of .clang-tidy (the analyzer, bugprone-*, cert-*), every
# warning an error; two files at a time.
test_clang_tidy_finds_nothing() {
	local out flags
	flags=$(lint_cflags)
	out=$(cd "$TOP" && lint_sources | xargs -P2 -n4 sh -c \
		'clang-tidy --quiet "$@" -- '"$flags"' 2>/dev/null' clang-tidy)
	if grep -qE '(warning|error):' <<<"$out"; then
		fail "clang-tidy:" "$(grep -E '(warning|error):' <<<"$out")"
		return 1
	fi
	note "clang-tidy: $(lint_sources | wc -l) files, no finding"
}
