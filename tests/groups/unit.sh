# SPDX-License-Identifier: GPL-2.0
# tests/groups/unit.sh: rescue-init's cmocka unit tests (built with ASan and
# UBSan by tests/unit/unit.mk), one test per binary, so that they count in
# the one summary of `make check`.

UNIT=$BUILD/tests/unit

# run_unit NAME: run build/tests/unit/NAME; note cmocka's count.
run_unit() {
	local bin=$UNIT/$1 out status
	[ -x "$bin" ] || { fail "missing $bin (make unit-tests)"; return 1; }
	out=$(ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 "$bin" 2>&1)
	status=$?
	if [ "$status" -ne 0 ]; then
		printf '%s\n' "$out" | grep -v '^\[ \(RUN\|      OK\) ' >&2
		fail "$1 exited with status $status"
		return 1
	fi
	note "$1: $(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] //p')"
}

test_cmdline_parser() { run_unit test_cmdline; }
test_root_spec_parser_and_matcher() { run_unit test_rootspec; }
test_uevent_parser_and_acceptance() { run_unit test_uevent; }
test_module_index_and_load_order() { run_unit test_modindex; }
test_logger_records() { run_unit test_log; }
test_device_table() { run_unit test_devtable; }
test_mountinfo_and_mount_options() { run_unit test_mounts; }
test_block_device_enumeration() { run_unit test_blkdev; }
test_mkrescue_module_indexes_regressions() { run_unit test_moddb; }
test_mkrescue_ships_what_rescue_init_loads() { run_unit test_modsame; }
test_whole_file_readers() { run_unit test_readfile; }
test_members_of_arrays_and_volumes() { run_unit test_members; }
test_mkrescue_elf_reader_and_library_closure() { run_unit test_elfdeps; }
test_md_member_superblocks() { run_unit test_mdsuper; }
test_image_markers_and_unpack_line() { run_unit test_unpack; }
test_ip_parameter_forms() { run_unit test_ipconf; }
test_luks_key_specs() { run_unit test_lukskey; }
test_crypttab_lines_and_luks_parameters() { run_unit test_crypttab; }
test_resume_of_initramfs_tools_conf_d() { run_unit test_resumeconf; }
test_lvm_report_lines_and_dm_names() { run_unit test_lvmreport; }
test_lvm_on_disk_metadata() { run_unit test_lvmmeta; }
test_mkrescue_hostonly_reads_sys_and_mounts() { run_unit test_hostonly; }
test_coldplug_boot_set_rule() { run_unit test_coldplug; }
test_toolkit_cpio_reader() { run_unit test_newc; }

# A unit test that is built but never run proves nothing: every
# tests/unit/test_*.c must have its run_unit line above.
test_every_unit_test_is_run() {
	local src name missing=""
	for src in "$TOP"/tests/unit/test_*.c; do
		name=$(basename "$src" .c)
		grep -q "run_unit $name; }" "$TOP/tests/groups/unit.sh" ||
			missing="$missing $name"
	done
	[ -z "$missing" ] || fail "not run by tests/groups/unit.sh:$missing"
}
