# SPDX-License-Identifier: GPL-2.0
# tests/groups/mkrescue-options.sh: mkrescue's command line on the host: a bad
# option is one line that names it as the user wrote it and points to
# --help, exit status 2, nothing written.

. "$TOP/tests/lib/mkrescue-lib.sh"

# expect_usage_error WANT ARGS...: one line, "mkrescue: ... WANT; see
# mkrescue --help", status 2, no image.
expect_usage_error() {
	local want=$1 status
	shift
	mk "$@" -o "$T/rescue.img" >"$T/stdout" 2>"$T/stderr"
	status=$?
	[ "$status" -eq 2 ] ||
		{ fail "status $status, not 2, for: $*" "$(cat "$T/stderr")"; return 1; }
	[ "$(wc -l <"$T/stderr")" -eq 1 ] ||
		{ fail "not one error line for: $*" "$(cat "$T/stderr")"; return 1; }
	grep -qxF "mkrescue: unable to parse the options: $want; see mkrescue --help" \
		"$T/stderr" ||
		{ fail "for $*, expected '$want; see mkrescue --help', got:" \
			"$(cat "$T/stderr")"; return 1; }
	expect_no_file_left "$T/rescue.img"
}

test_unknown_options_are_named_as_written() {
	mk_setup || return 1
	expect_usage_error "unknown option --foo" --foo || return 1
	expect_usage_error "unknown option --foo" --foo=bar || return 1
	# A letter in a cluster: getopt's argv[optind - 1] is the word before.
	expect_usage_error "unknown option -x" -xv || return 1
	expect_usage_error "unknown option -x" -v -vx || return 1
	expect_usage_error "unknown option -q" -q
}

test_ambiguous_and_misused_options_say_so() {
	mk_setup || return 1
	expect_usage_error "ambiguous option --in" --in x || return 1
	expect_usage_error "no argument taken by --verbose" --verbose=yes || return 1
	expect_usage_error "unexpected argument extra" extra
}

test_missing_arguments_name_the_option() {
	mk_setup || return 1
	local status
	"$MKRESCUE" --init "$MK_INIT" -vo 2>"$T/stderr"
	status=$?
	[ "$status" -eq 2 ] && grep -qxF \
		"mkrescue: unable to parse the options: missing argument of -o; see mkrescue --help" \
		"$T/stderr" || { fail "-vo:" "$(cat "$T/stderr")"; return 1; }
	"$MKRESCUE" --init "$MK_INIT" --output 2>"$T/stderr"
	grep -qxF \
		"mkrescue: unable to parse the options: missing argument of --output; see mkrescue --help" \
		"$T/stderr" || fail "--output:" "$(cat "$T/stderr")"
}

test_help_shows_the_defaults() {
	mk_setup || return 1
	"$MKRESCUE" --init /somewhere/else --help >"$T/help" ||
		{ fail "--help failed"; return 1; }
	grep -q -- "--init PATH .*(default /" "$T/help" &&
		! grep -q /somewhere/else "$T/help" ||
		fail "--help does not show the compiled-in --init:" "$(grep -- --init "$T/help")"
}

# --hostonly replaces the module list and needs a kernel to resolve the
# host's drivers against.
test_hostonly_needs_a_kernel_and_no_module_list() {
	mk_setup || return 1
	expect_usage_error "--hostonly needs -k or --kmoddir" --hostonly || return 1
	expect_usage_error "--hostonly and --module-list exclude each other" \
		--kmoddir "$T" --hostonly --module-list "$T/list"
}
