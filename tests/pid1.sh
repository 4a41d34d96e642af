# SPDX-License-Identifier: GPL-2.0
# tests/pid1.sh: a PID 1 that never strands the machine: rd.shell=0 means
# no shell on any path (a failure, rd.break, a crash restart) and keeps
# trying until the root comes or rd.retry= runs out (then panic= reboots);
# plain rootwait waits without limit; a shell that exits at once is
# retried with a pause, and said once.

. "$TOP/tests/rescue-lib.sh"

# ---- helpers -----------------------------------------------------------

# late_root APPEND WAIT_REGEX: boot with a decoy, add the root once the
# console shows WAIT_REGEX, and expect the boot to reach it.
late_root() {
	make_image "$T/initrd" || return 1
	make_decoy "$T/decoy.img" "$DECOY_UUID" decoy
	make_root_dir "$T/root" late
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" lateroot || return 1
	start_vm "$1" --disk "virtio-scsi:$T/decoy.img"
	wait_log "$T/console.log" "$2" "$VM_TIMEOUT" &&
		hot_add_disk "$T/root.img" ||
		{ stop_vm; return 1; }
	wait "$vm_pid" || { fail "run-vm: $(cat "$T/run-vm.err")"; show_log "$T/console.log"; return 1; }
	expect_field "$T/console.log" root marker late &&
	expect_exec_line /sbin/init /dev/sdb ext4 ro &&
	expect_no_log "$T/console.log" 'Kernel panic|Attempted to kill init' "panic"
}

# ---- rd.shell=0 ---------------------------------------------------------

# No rootwait: the first look fails and is reported; PID 1 goes on
# watching the devices and boots the root added afterwards.
test_no_shell_boots_a_root_that_comes_later() {
	late_root "root=UUID=$ROOT_UUID rd.shell=0" 'rescue: no rescue shell \(rd.shell=0\)' &&
	expect_log "$T/console.log" "rescue: unable to find root UUID=$ROOT_UUID: no block device has this UUID" \
		"the first failure" &&
	expect_no_log "$T/console.log" 'starting the rescue shell|\(rescue\) ' "rescue shell"
}

# rd.retry= bounds the trying; panic= then reboots, as the kernel would.
test_no_shell_gives_up_after_rd_retry_and_reboots() {
	make_image "$T/initrd" || return 1
	make_decoy "$T/decoy.img" "$DECOY_UUID" decoy
	VM_TIMEOUT=60 boot "$T/initrd" "root=LABEL=never rd.shell=0 rd.retry=8 panic=2" \
		--disk "virtio-blk:$T/decoy.img" || return 1
	expect_log "$T/console.log" 'rescue: no rescue shell \(rd.shell=0\): trying again for 8 s \(rd.retry=8\)' \
		"the wait" &&
	expect_log "$T/console.log" 'rescue: giving up the boot after 8 s \(rd.retry=8\)$' "giving up" &&
	expect_log "$T/console.log" 'rescue: rebooting in 2 s \(panic=2\)$' "the reboot" &&
	expect_no_log "$T/console.log" 'starting the rescue shell|\(rescue\) ' "rescue shell" &&
	expect_no_log "$T/console.log" 'Kernel panic|Attempted to kill init' "panic"
}

# A restart after a crash (RESCUE_CRASHED=1, as crash.c sets it) and
# rd.break both ask for the shell; rd.shell=0 wins, the boot goes on.
test_no_shell_crash_restart_and_rd_break_boot_without_shell() {
	make_image "$T/initrd" || return 1
	make_root_dir "$T/root" noshell
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" root || return 1
	boot "$T/initrd" "root=/dev/vda rd.shell=0 rd.break RESCUE_CRASHED=1" \
		--disk "virtio-blk:$T/root.img" || return 1
	expect_log "$T/console.log" 'rescue: restarted after 1 crash of PID 1: booting again, without a shell \(rd.shell=0\)' \
		"the restart without shell" &&
	expect_log "$T/console.log" 'rescue: ignoring rd.break: rd.shell=0 means no shell' \
		"rd.break refused" &&
	expect_field "$T/console.log" root marker noshell &&
	expect_no_log "$T/console.log" 'starting the rescue shell|\(rescue\) ' "rescue shell"
}

# ---- a rescue shell that ends at once ----------------------------------

# /bin/sh that exits at once (as busybox sh does on EOF of the console):
# the boot and the shell are tried again with a growing pause, and the
# failure and the repeat are said once, not in a loop.
test_shell_ending_at_once_is_retried_slowly_and_said_once() {
	local status fails starts
	printf '#!/bin/busybox sh\nexit 0\n' >"$T/quick-sh"
	echo "file /bin/sh $T/quick-sh 0755 0 0" >"$T/extra.list"
	EXTRA_LIST=$T/extra.list make_image "$T/initrd" || return 1
	"$RUN_VM" --log "$T/console.log" --timeout 25 --kernel "$BZIMAGE" --initrd "$T/initrd" \
		--append "root=LABEL=nowhere rescue.debug" 2>"$T/run-vm.err"
	status=$?
	[ "$status" -eq 124 ] || { fail "run-vm ended with $status, not the timeout:" "$(cat "$T/run-vm.err")"; show_log "$T/console.log"; return 1; }
	fails=$(tr -d '\r' <"$T/console.log" | grep -c 'rescue: unable to find root LABEL=nowhere: .*s)$')
	starts=$(tr -d '\r' <"$T/console.log" | grep -c 'rescue: starting the rescue shell')
	note "shell ending at once: $starts shell starts and $fails failure lines in 25 s"
	[ "$fails" -eq 1 ] || { fail "expected the failure line once, got it $fails times"; show_log "$T/console.log"; return 1; }
	[ "$starts" -le 6 ] || { fail "expected at most 6 shell starts in 25 s (pauses 1, 2, 4, 8 s), got $starts"; return 1; }
	expect_log "$T/console.log" 'rescue: the rescue shell ended at once; trying the boot and the shell again after 1 s, then up to every 30 s, saying so only once$' \
		"the repeat, said once" &&
	expect_no_log "$T/console.log" 'Kernel panic|Attempted to kill init' "panic"
}

# ---- rootwait without a value ------------------------------------------

# Plain rootwait waits as the kernel's does, without limit (it was 30 s),
# with a progress line naming the root: a disk added after 35 s boots.
test_plain_rootwait_waits_past_30_s() {
	VM_TIMEOUT=120 late_root "root=UUID=$ROOT_UUID rootwait" \
		"rescue: waiting for root UUID=$ROOT_UUID: 3[5-9] s \\(rootwait, no limit\\)" &&
	expect_no_log "$T/console.log" 'unable to find root|starting the rescue shell' "a give-up"
}
