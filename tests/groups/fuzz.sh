# SPDX-License-Identifier: GPL-2.0
# tests/groups/fuzz.sh: a bounded libFuzzer run (FUZZ_RUNS, default 20000
# executions) of each harness of tests/fuzz/fuzz.mk, from its seed corpus.
# A crash, a leak or undefined behaviour fails the test with the input
# that caused it and the sanitizer's report.  `make fuzz FUZZ_RUNS=N`
# runs the same outside make check.

FUZZ_RUNS=${FUZZ_RUNS:-20000}

fuzz_target() { # name
	local out
	out=$("$TOP/tests/fuzz/run-target" "$BUILD/fuzz/fuzz_$1" "$TOP/tests/fuzz/corpus/$1" \
		"$T/corpus" "$T/crashes" "$FUZZ_RUNS") || { fail "$out"; return 1; }
	note "$out"
}

test_kernel_command_line() { fuzz_target cmdline; }
test_root_specs() { fuzz_target rootspec; }
test_uevent_messages_and_senders() { fuzz_target uevent; }
test_module_indexes_and_load_order() { fuzz_target modindex; }
test_mountinfo_and_mount_options() { fuzz_target mountinfo; }
test_device_table_values() { fuzz_target devtable; }
test_sysfs_block_attributes() { fuzz_target sysfs; }
test_mkrescue_module_indexes() { fuzz_target moddb; }
test_mkrescue_include_specs() { fuzz_target include; }
test_mkrescue_options() { fuzz_target options; }
test_mkrescue_module_lists() { fuzz_target modlist; }
test_mkrescue_elf_files() { fuzz_target elfdeps; }
test_mkrescue_ld_so_conf() { fuzz_target ldconf; }
test_md_member_superblocks() { fuzz_target mdsuper; }
test_luks_key_specs() { fuzz_target lukskey; }
test_crypttab_lines_and_luks_parameters() { fuzz_target crypttab; }
test_lvm_report_lines_and_dm_names() { fuzz_target lvmreport; }
test_lvm_on_disk_metadata() { fuzz_target lvmmeta; }
test_image_markers_and_kernel_log() { fuzz_target unpack; }
test_toolkit_archive() { fuzz_target newc; }
test_ip_parameter_forms() { fuzz_target ipconf; }
