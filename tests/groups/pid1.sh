# SPDX-License-Identifier: GPL-2.0
# tests/groups/pid1.sh: a PID 1 that never strands the machine: rd.shell=0 means
# no shell on any path (a failure, rd.break, a crash restart) and keeps
# trying until the root comes or rd.retry= runs out (then panic= reboots);
# plain rootwait waits without limit; a shell that exits at once is
# retried with a pause, and said once; PID 1 serves reboot, poweroff and
# ctrl-alt-del during the root wait; abort() and a third crash never
# panic the kernel; a root on the initramfs itself is refused.

. "$TOP/tests/lib/rescue-lib.sh"

# ---- helpers -----------------------------------------------------------

# pid1_steps APPEND [run-vm options]: vm_steps, with a disk or two.
pid1_steps() {
	local append=$1
	shift
	"$TOP/tests/tools/vm-steps.exp" "$T/console.log" "$VM_TIMEOUT" "$T/steps" \
		--kernel "$BZIMAGE" --initrd "$T/initrd" --append "$append" "$@" ||
		{ show_log "$T/console.log" 40; return 1; }
}

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
	# shellcheck disable=SC2154 # vm_pid: set by start_vm (tests/lib/lib.sh)
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
	root_boot noshell "root=/dev/vda rd.shell=0 rd.break RESCUE_CRASHED=1" || return 1
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
	# Its /bin/sh: mkrescue's toolkit would put busybox's link back before the shell.
	EXTRA_LIST=$T/extra.list make_image_by_hand "$T/initrd" || return 1
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

# Plain rootwait waits as the kernel's does, without limit, with a
# progress line naming the root: a disk added after 35 s boots.
test_plain_rootwait_waits_past_30_s() {
	VM_TIMEOUT=120 late_root "root=UUID=$ROOT_UUID rootwait" \
		"rescue: waiting for root UUID=$ROOT_UUID: 3[5-9] s \\(rootwait, no limit\\)" &&
	expect_no_log "$T/console.log" 'unable to find root|starting the rescue shell' "a give-up"
}

# ---- PID 1 answers during the root wait ---------------------------------

# power_during_root_wait CMD LINE END: from the rd.break shell, a
# process of its own runs busybox CMD 8 s later, once the shell has
# exited and the boot waits for a root that never comes (plain rootwait,
# no limit): PID 1 acts on it at once, after a sync.  It used to wait
# forever.  END: the last steps (build/bzImage has no ACPI: a poweroff
# halts, and QEMU stays).
power_during_root_wait() {
	make_image "$T/initrd" || return 1
	cat >"$T/steps" <<EOF2
want \(rescue\)[^\n]*#\s
send setsid sh -c 'sleep 8; $1' </dev/null >/dev/null 2>&1 &
send exit
want rescue: waiting for root LABEL=nowhere: [0-9]+ s \(rootwait, no limit\)
$3
EOF2
	VM_TIMEOUT=90 vm_steps "root=LABEL=nowhere rootwait rd.break=pre-mount" || return 1
	expect_log "$T/console.log" "rescue: $2 \\(signal [^)]*\\)$" "the $1 request" &&
	expect_log "$T/console.log" 'rescue: syncing the disks$' "the sync" &&
	expect_no_log "$T/console.log" 'Kernel panic|Attempted to kill init' "panic"
}

test_reboot_during_the_root_wait() {
	power_during_root_wait reboot rebooting end
}

test_poweroff_during_the_root_wait() {
	power_during_root_wait poweroff 'powering off' \
		"$(printf 'want reboot: System halted\nstop')"
}

# Ctrl-Alt-Del during the root wait of a headless boot (rd.shell=0): a
# synced reboot, not the kernel's immediate reset.  The stock kernel has
# the keyboard and VT that build/bzImage leaves out.
test_ctrl_alt_del_during_the_root_wait_syncs_first() {
	local kver
	kver=$(stock_kernel_version) || return 1
	make_image "$T/initrd" || return 1
	BZIMAGE=/boot/vmlinuz-$kver VM_TIMEOUT=120 start_vm \
		"root=LABEL=nowhere rootwait rd.shell=0" --mem 512M
	wait_log "$T/console.log" 'rescue: waiting for root LABEL=nowhere: [0-9]+ s \(rootwait, no limit\)' 100 &&
		monitor "$T/mon.sock" "sendkey ctrl-alt-delete" ||
		{ stop_vm; return 1; }
	# shellcheck disable=SC2154 # vm_pid: set by start_vm (tests/lib/lib.sh)
	wait "$vm_pid" || { fail "run-vm: $(cat "$T/run-vm.err")"; show_log "$T/console.log"; return 1; }
	expect_log "$T/console.log" 'rescue: rebooting \(signal Interrupt\)$' "the reboot on ctrl-alt-del" &&
	expect_log "$T/console.log" 'rescue: syncing the disks$' "the sync" &&
	expect_no_log "$T/console.log" 'Kernel panic|Attempted to kill init' "panic"
}

# ---- crashes -------------------------------------------------------------

# A root whose init says whether it got crash.c's variable, then reports.
crash_root() { # img
	make_root_dir "$T/root" crashed
	mv "$T/root/sbin/init" "$T/root/sbin/report-init"
	cat >"$T/root/sbin/init" <<'EOF'
#!/bin/sh
echo "TEST RESULT: env crashed=${RESCUE_CRASHED:-unset}"
exec /sbin/report-init "$@"
EOF
	chmod 0755 "$T/root/sbin/init"
	make_ext4 "$T/root" "$1" 16 "$ROOT_UUID" root
}

# The rescue shell's prompt, as tests/tools/vm-steps.exp wants it.
RESCUE_PROMPT_STEP='want \(rescue\)[^\n]*#\s'

# crash_steps SIGNAL COUNT: the steps of a crash of PID 1 typed at the
# rescue shell's prompt: kill -SIGNAL 1, the restart after COUNT ("1
# crash", "2 crashes"), the new shell's banner (the crashed PID 1's
# shell prints one more prompt before the new PID 1 kills it, and a
# command sent to that prompt is lost), its prompt.
crash_steps() {
	printf '%s\n' "send kill -$1 1" "want restarted after $2 of PID 1" \
		"want Enter 'help' for a list of built-in commands" "$RESCUE_PROMPT_STEP"
}

# SIGABRT (abort(), a failed assert() in libblkid) is caught like the
# other faults: the restart keeps the kernel's argv (single) and
# environment (foo=bar) for the real init, without RESCUE_CRASHED; a
# mount the shell left in the initramfs is unmounted before the switch.
test_abort_restarts_with_the_same_argv_and_environment() {
	make_image "$T/initrd" || return 1
	crash_root "$T/root.img" || return 1
	{
		echo "$RESCUE_PROMPT_STEP"
		crash_steps ABRT '1 crash'
		echo 'send mkdir -p /mnt && mount -t tmpfs spare /mnt && exit'
		echo end
	} >"$T/steps"
	pid1_steps "root=/dev/vda rd.break=pre-mount single foo=bar" --disk "virtio-blk:$T/root.img" || return 1
	expect_log "$T/console.log" 'rescue: PID 1 crashed \(signal 6\); restarting /init into the rescue shell' \
		"the crash line" &&
	expect_log "$T/console.log" 'rescue: unmounted /mnt \(spare\) before switching root$' \
		"the leftover mount" &&
	expect_field "$T/console.log" root marker crashed &&
	expect_field "$T/console.log" root argv single &&
	expect_field "$T/console.log" root foo bar &&
	expect_field "$T/console.log" env crashed unset &&
	expect_no_log "$T/console.log" 'Kernel panic|Attempted to kill init' "panic"
}

# After the third crash PID 1 is the rescue shell's keeper: an exit typed
# there starts the shell again (busybox sh as PID 1 used to end, and the
# kernel panicked), and reboot still works.  Each restart is awaited up
# to the new shell's banner: the crashed PID 1's shell prints one more
# prompt before the new PID 1 kills it, and a command sent to that prompt
# is lost.
test_exit_after_the_third_crash_starts_the_shell_again() {
	local starts
	make_image "$T/initrd" || return 1
	{
		echo "$RESCUE_PROMPT_STEP"
		crash_steps SEGV '1 crash'
		crash_steps SEGV '2 crashes'
		printf '%s\n' 'send kill -SEGV 1' 'want PID 1 crashed \(signal 11\);' \
			"want Enter 'help' for a list of built-in commands"
		cat <<'EOF2'
want #\s
send exit
want rescue: the rescue shell exited
want starting the rescue shell: PID 1 crashed too often
want \(rescue\)[^\n]*#\s
send reboot
end
EOF2
	} >"$T/steps"
	VM_TIMEOUT=120 vm_steps "root=LABEL=nowhere" || return 1
	starts=$(tr -d '\r' <"$T/console.log" | grep -c 'rescue: starting the rescue shell: PID 1 crashed too often')
	[ "$starts" -eq 2 ] || { fail "expected the last resort's shell twice (before and after exit), got $starts"; return 1; }
	expect_log "$T/console.log" 'rescue: PID 1 crashed \(signal 11\); the rescue shell only, from now on$' \
		"the third crash" &&
	expect_log "$T/console.log" 'rescue: rebooting \(signal Terminated\)$' "the reboot" &&
	expect_no_log "$T/console.log" 'Kernel panic|Attempted to kill init' "panic"
}

# ---- switch_root ----------------------------------------------------------

# A root bound from a directory of the initramfs ("run from RAM") is on
# the initramfs itself: the switch is refused, as busybox's switch_root
# refuses it, instead of the deleter wiping it; the shell comes back and
# the real root still boots after.
test_root_on_the_initramfs_is_refused_and_kept() {
	make_image "$T/initrd" || return 1
	make_root_dir "$T/root" real
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" root || return 1
	cat >"$T/steps" <<'EOF2'
want \(rescue\)[^\n]*#\s
send mkdir -p /ramroot/sbin /ramroot/bin /ramroot/proc /ramroot/sys /ramroot/dev /ramroot/run && cp /bin/busybox /ramroot/bin/ && echo ramroot >/ramroot/marker
want \(rescue\)[^\n]*#\s
send printf '#!/bin/busybox sh\n/bin/busybox echo INIT_$((1 + 1))_RAN\n/bin/busybox sleep 3\n/bin/busybox reboot -f\n' >/ramroot/sbin/init && chmod 755 /ramroot/sbin/init && mount --bind /ramroot /newroot && exit
want refusing to switch
want \(rescue\)[^\n]*#\s
send printf '%s %s: ramroot marker=%s init=%s\n' TEST RESULT "$(cat /ramroot/marker)" "$(test -x /ramroot/sbin/init && echo kept || echo gone)"
want TEST RESULT: ramroot
send umount /newroot && exit
end
EOF2
	pid1_steps "root=/dev/vda rd.break=pre-mount" --disk "virtio-blk:$T/root.img" || return 1
	expect_log "$T/console.log" 'rescue: refusing to switch to the root on /newroot: it is on the initramfs itself' \
		"the refusal" &&
	expect_field "$T/console.log" ramroot marker ramroot &&
	expect_field "$T/console.log" ramroot init kept &&
	expect_no_log "$T/console.log" 'INIT_2_RAN' "the init of the bound root" &&
	expect_field "$T/console.log" root marker real &&
	expect_no_log "$T/console.log" 'Kernel panic|Attempted to kill init' "panic"
}

# ---- a failed exec of the real init --------------------------------------

# An init the kernel cannot run (ENOEXEC) brings the boot back to the
# rescue shell with strict read-only as it was: the flag that
# rescue-mount reads (no journal replay) and the watcher are back.  They
# stayed off, and rescue-mount then replayed journals.
test_failed_exec_keeps_strict_read_only() {
	make_image "$T/initrd" || return 1
	make_root_dir "$T/root" strict
	printf 'not a program\n' >"$T/root/sbin/broken"
	chmod 0755 "$T/root/sbin/broken"
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" root || return 1
	cat >"$T/steps" <<'EOF2'
want unable to start /sbin/broken
want \(rescue\)[^\n]*#\s
send printf '%s %s: strict flag=%s\n' TEST RESULT "$(test -e /run/rescue-ro-strict && echo present || echo absent)"
want TEST RESULT: strict
send reboot -f
end
EOF2
	pid1_steps "root=/dev/vda rescue.ro=strict init=/sbin/broken" --disk "virtio-blk:$T/root.img" || return 1
	local applied
	applied=$(tr -d '\r' <"$T/console.log" | grep -c 'rescue: strict read-only: [0-9]* devices set read-only (rescue.ro=strict)')
	[ "$applied" -eq 2 ] || { fail "expected strict read-only applied twice (at the start, after the failed exec), got $applied"; return 1; }
	expect_field "$T/console.log" strict flag present &&
	expect_no_log "$T/console.log" 'Kernel panic|Attempted to kill init' "panic"
}
