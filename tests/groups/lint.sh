# SPDX-License-Identifier: GPL-2.0
# tests/groups/lint.sh: static analysis of every C file of rescue/,
# tests/layouts/, tests/fixtures/ and tests/fuzz/, and shellcheck over
# every shell file of the repo, which must find nothing.  A false
# positive is silenced where it stands, with a NOLINT, cppcheck-suppress
# or shellcheck disable comment that says why, never by lowering the
# level here.

lint_sources() {
	ls "$TOP"/rescue/*/*.c "$TOP"/rescue/*/*/*.c "$TOP"/rescue/*/*/*/*.c "$TOP"/tests/fixtures/*.c "$TOP"/tests/layouts/*.c "$TOP"/tests/fuzz/*.c
}

# The headers the build generates from rescue/share/ (rescue/init/init.mk),
# made into $T/gen by the same generator: the table as it is now.
lint_gen() {
	mkdir -p "$T/gen" &&
		awk -f "$TOP/rescue/init/table.awk" -f "$TOP/rescue/init/storage/storage-layers.awk" \
			"$TOP/rescue/share/storage-layers" >"$T/gen/storage-layers.h" &&
		awk -f "$TOP/rescue/init/table.awk" -f "$TOP/rescue/init/modules/module-classes.awk" \
			"$TOP/rescue/share/module-classes" >"$T/gen/module-classes.h"
}

lint_cflags() {
	echo "-std=gnu11 -D_GNU_SOURCE -I$TOP/rescue/init -I$TOP/rescue/mkrescue -I$TOP/rescue/lib -I$TOP/tests/fuzz" \
		"-I$T/gen $(pkg-config --cflags blkid libarchive)"
}

# cppcheck's warning, style, performance and portability checks; style's
# variableScope is left out: it asks to declare variables in the
# innermost block, against the kernel style the code follows.
test_cppcheck_finds_nothing() {
	local out
	lint_gen || { fail "unable to generate the headers of rescue/share/"; return 1; }
	# shellcheck disable=SC2046 # lint_sources: paths of this tree, one word each
	out=$(cppcheck -q --enable=warning,style,performance,portability \
		--suppress=variableScope --inline-suppr --error-exitcode=1 \
		-D_GNU_SOURCE --std=c11 -I "$TOP/rescue/init" -I "$TOP/rescue/mkrescue" -I "$TOP/rescue/lib" -I "$T/gen" $(lint_sources) 2>&1) ||
		{ fail "cppcheck:" "$out"; return 1; }
	note "cppcheck: $(lint_sources | wc -l) files, no finding"
}

# The checks of .clang-tidy (the analyzer, bugprone-*, cert-*), every
# warning an error; two files at a time.  "No finding" needs proof that
# each file was analysed: its clang-tidy ended with status 0, and left a
# check profile (--store-check-profile), which clang-tidy writes only
# after it has run the checks over a parsed file.  A missing or crashing
# clang-tidy, or a file it could not parse, fails the test.
test_clang_tidy_finds_nothing() {
	local flags src log status prof bad=0
	command -v clang-tidy >/dev/null || { fail "no clang-tidy (make deps)"; return 1; }
	lint_gen || { fail "unable to generate the headers of rescue/share/"; return 1; }
	flags=$(lint_cflags)
	mkdir -p "$T/profile" "$T/log"
	# One list for the run and the check: files may come and go meanwhile.
	lint_sources >"$T/sources"
	[ -s "$T/sources" ] || { fail "no C file to analyse under $TOP"; return 1; }
	# shellcheck disable=SC2016 # the sh -c script expands its own $1 and $2
	(cd "$TOP" && xargs -P2 -n1 sh -c '
		log=$1/log/$(echo "$2" | tr / _)
		clang-tidy --quiet --enable-check-profile --store-check-profile="$1/profile" \
			"$2" -- '"$flags"' >"$log" 2>&1
		echo $? >"$log.status"' clang-tidy "$T" <"$T/sources")
	while read -r src; do
		log=$T/log/$(echo "$src" | tr / _)
		status=$(cat "$log.status" 2>/dev/null)
		if [ "${status:-none}" != 0 ] || grep -qE '(warning|error):' "$log" 2>/dev/null; then
			# The findings, or the end of the log when there are none.
			fail "clang-tidy $src: status ${status:-none} (all of it in $log):" \
				"$(grep -E '(warning|error):' "$log" 2>/dev/null ||
					grep -v 'warnings generated\.$' "$log" 2>/dev/null | tail -n5)"
			bad=1
		fi
		prof=$(grep -lxF "\"file\": \"$src\"," "$T"/profile/*.json 2>/dev/null | head -n1)
		if [ -z "$prof" ] || ! grep -q '"time\.clang-tidy\.bugprone-' "$prof"; then
			fail "clang-tidy left no profile of the checks of .clang-tidy for $src"
			bad=1
		fi
	done <"$T/sources"
	[ "$bad" -eq 0 ] || return 1
	note "clang-tidy: $(wc -l <"$T/sources") files analysed, no finding"
}

# The tree's files: git's list in a checkout; else (CI's clean root has
# no git) every file but build/ and .git/, which a clean clone holds.
tree_files() {
	if git -C "$TOP" rev-parse --git-dir >/dev/null 2>&1; then
		git -C "$TOP" ls-files
	else
		(cd "$TOP" && find . \( -path ./build -o -path ./.git \) -prune -o \
			-type f -print | sed 's|^\./||' | sort)
	fi
}

# The shell files of the repo: those of tree_files whose name ends in .sh or
# whose first line is a shell's #!.  The ones without a #! (the test
# groups and libraries, sourced by bash) are checked as bash.
shell_files() {
	tree_files | while read -r f; do
		case $f in
		*.sh) echo "$f" ;;
		*) [ -f "$TOP/$f" ] && head -n1 "$TOP/$f" | grep -qE '^#!.*[/ ](ba|da)?sh([[:space:]]|$)' &&
			echo "$f" ;;
		esac
	done
}

# The default level of shellcheck; left out for every file: SC1090 and
# SC1091 (the files source each other by paths under $TOP, which the
# checker cannot follow; each is checked on its own), and SC2015
# (`check && check || { fail ...; return 1; }` is how every check here
# reads: the failure branch is meant to run when any step of the chain
# fails).  A finding fails the test with its file:line.
test_every_shell_file_passes_shellcheck() {
	local f shell n=0
	command -v shellcheck >/dev/null || { fail "no shellcheck (make deps)"; return 1; }
	shell_files >"$T/files"
	[ -s "$T/files" ] || { fail "no shell file under $TOP"; return 1; }
	: >"$T/findings"
	while read -r f; do
		shell=()
		head -n1 "$TOP/$f" | grep -q '^#!' || shell=(-s bash)
		(cd "$TOP" && shellcheck -f gcc -e SC1090,SC1091,SC2015 "${shell[@]}" "$f") >>"$T/findings" 2>&1
		n=$((n + 1))
	done <"$T/files"
	[ ! -s "$T/findings" ] ||
		{ fail "shellcheck: $(wc -l <"$T/findings") findings in $(cut -d: -f1 "$T/findings" | sort -u | wc -l) of $n files:" \
			"$(cat "$T/findings")"; return 1; }
	note "shellcheck: $n files, no finding"
}
