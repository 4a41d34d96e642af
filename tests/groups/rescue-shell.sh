# SPDX-License-Identifier: GPL-2.0
# tests/groups/rescue-shell.sh: rescue-init's failures in QEMU: the one-line
# report and the device table, the rescue shell (rescue-ls, rescue-mount,
# exit retries), rd.shell=0, dracut's rd.break points, a missing
# init, mount errors, malformed root= values, rootwait giving up, and
# reboot from the shell.

# shellcheck disable=SC2016 # the result_cmd expressions are single-quoted: they expand in the guest
. "$TOP/tests/lib/rescue-lib.sh"

# ---- failures, the rescue shell, rd.shell=0, rd.break ----------------


test_missing_root_opens_shell() {
	make_image "$T/initrd" || return 1
	make_decoy "$T/decoy.img" "$DECOY_UUID" decoy
	make_gpt "$T/gpt.img" 16 "esp:$BASE_PARTUUID:4" "data:$DECOY_PARTUUID:rest" || return 1
	{
		echo "rescue-ls"
		result_cmd shell pid '$$' tty '$(tty)' ps1_set '${PS1:+yes}' path '$PATH'
	} >"$T/commands"
	vm_shell "$T/console.log" "$VM_TIMEOUT" "$T/commands" --initrd "$T/initrd" \
		--append "root=LABEL=nowhere" \
		--disk "virtio-blk:$T/decoy.img" --disk "nvme:$T/gpt.img" || return 1
	local log=$T/console.log
	expect_log "$log" '^\[ *[0-9.]+\] rescue: unable to find root LABEL=nowhere: no block device has this LABEL \(4 devices probed, waited 0 s\)$' \
		"the failure line" &&
	expect_log "$log" '^\[ *[0-9.]+\] rescue: NAME +MAJ:MIN +SIZE +TYPE +UUID +LABEL +PARTUUID +PARTLABEL$' \
		"the table header in the kernel log" &&
	expect_log "$log" "rescue: vda +$(virtio_blk_major):0 +8M +ext4 +$DECOY_UUID +decoy +- +-" \
		"the decoy's row" &&
	expect_log "$log" "rescue: nvme0n1p2 +259:2 +10M +- +- +- +$DECOY_PARTUUID +data" \
		"a partition's row" &&
	expect_log "$log" 'rescue: starting the rescue shell: rescue-ls lists block devices, rescue-mount mounts the root, exit retries the boot' \
		"the hint" &&
	expect_log "$log" '^NAME +MAJ:MIN +SIZE +TYPE +UUID +LABEL +PARTUUID +PARTLABEL' \
		"rescue-ls's header" &&
	expect_log "$log" "^nvme0n1 +259:0 +16M +gpt +- +- +- +-" "rescue-ls's disk row" &&
	expect_field "$log" shell tty /dev/ttyS0 &&
	expect_field "$log" shell ps1_set yes &&
	expect_field "$log" shell path /bin:/sbin:/usr/bin:/usr/sbin
}

# rd.shell=0: the same report, then no shell and no panic: PID 1 waits.
test_rd_shell_0_waits_without_shell() {
	local status
	make_image "$T/initrd" || return 1
	make_decoy "$T/decoy.img" "$DECOY_UUID" decoy
	"$RUN_VM" --log "$T/console.log" --timeout 10 --kernel "$BZIMAGE" --initrd "$T/initrd" \
		--append "root=UUID=$ROOT_UUID rd.shell=0" --disk "virtio-blk:$T/decoy.img" \
		2>"$T/run-vm.err"
	status=$?
	[ "$status" -eq 124 ] || { fail "run-vm ended with $status, not the timeout:" "$(cat "$T/run-vm.err")"; show_log "$T/console.log"; return 1; }
	expect_log "$T/console.log" "rescue: unable to find root UUID=$ROOT_UUID: no block device has this UUID \(1 devices probed, waited 0 s\)" \
		"the failure line" &&
	expect_log "$T/console.log" 'rescue: NAME +MAJ:MIN' "the table" &&
	expect_log "$T/console.log" 'rescue: no rescue shell \(rd.shell=0\)' "the wait" &&
	expect_no_log "$T/console.log" 'Kernel panic|Attempted to kill init' "panic" &&
	expect_no_log "$T/console.log" 'starting the rescue shell|\(rescue\) ' "rescue shell"
}

test_duplicate_uuid_names_both_devices() {
	make_image "$T/initrd" || return 1
	make_root_dir "$T/root" twin
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" twin || return 1
	cp "$T/root.img" "$T/twin.img"
	: >"$T/commands"
	vm_shell "$T/console.log" "$VM_TIMEOUT" "$T/commands" --initrd "$T/initrd" \
		--append "root=UUID=$ROOT_UUID" \
		--disk "virtio-blk:$T/root.img" --disk "ahci:$T/twin.img" || return 1
	expect_log "$T/console.log" "rescue: unable to use root UUID=$ROOT_UUID: 2 devices match: /dev/sda and /dev/vda\$" \
		"the error naming both" &&
	expect_no_log "$T/console.log" 'TEST RESULT: root' "a boot on one of them"
}

# rd.break=mount (dracut's: before the mount hook): the shell comes
# before the root is looked for; rescue-mount there mounts it as the boot
# would, and exit boots from that mount.
test_rd_break_mount_opens_shell_before_mounting() {
	make_image "$T/initrd" || return 1
	make_root_dir "$T/root" break shell
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" root || return 1
	{
		result_cmd break newroot_mounts '$(grep -c " /newroot " /proc/mounts)'
		echo "rescue-mount"
		echo "exit"
	} >"$T/commands"
	vm_shell "$T/console.log" "$VM_TIMEOUT" "$T/commands" --initrd "$T/initrd" \
		--append "root=LABEL=root rd.break=mount" --disk "virtio-blk:$T/root.img" || return 1
	expect_field "$T/console.log" break newroot_mounts 0 &&
	expect_log "$T/console.log" 'rescue: starting the rescue shell: rescue-ls lists block devices, rescue-mount mounts the root, exit continues the boot' \
		"the rd.break hint" &&
	expect_log "$T/console.log" '^rescue-mount: mounted /dev/vda \(ext4, ro\) on /newroot' \
		"rescue-mount's report" &&
	expect_log "$T/console.log" 'rescue: using the root already mounted on /newroot: /dev/vda \(ext4, ro\)' \
		"the boot taking that mount" &&
	expect_field "$T/console.log" root marker break &&
	expect_field "$T/console.log" root argv none
}

# Bare rd.break is dracut's stop at the end: the root is mounted, and the
# password-reset recipe (remount /sysroot rw, chroot /sysroot) works;
# exit boots it.
test_bare_rd_break_stops_with_the_root_on_sysroot() {
	make_image "$T/initrd" || return 1
	make_root_dir "$T/root" sysroot shell
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" root || return 1
	{
		result_cmd brk sysroot '$(awk '"'"'$2 == "/sysroot" { print $1 }'"'"' /proc/mounts)' chrooted '$(chroot /sysroot cat /marker)'
		echo "mount -o remount,rw /sysroot"
		result_cmd rw written '$(chroot /sysroot touch /written && echo yes)'
		echo exit
	} >"$T/commands"
	vm_shell "$T/console.log" "$VM_TIMEOUT" "$T/commands" --initrd "$T/initrd" \
		--append "root=/dev/vda rd.break" --disk "virtio-blk:$T/root.img" || return 1
	expect_log "$T/console.log" 'rescue: starting the rescue shell: the root is mounted on /newroot and /sysroot, exit switches to it' \
		"the pre-pivot hint" &&
	expect_field "$T/console.log" brk sysroot /dev/vda &&
	expect_field "$T/console.log" brk chrooted sysroot &&
	expect_field "$T/console.log" rw written yes &&
	expect_field "$T/console.log" root marker sysroot &&
	expect_field "$T/console.log" root mode rw
}

# "rescue" is a word the kernel hands to /init: the shell, then the boot;
# the real init does not get the word in argv, but it stays in
# /proc/cmdline, where systemd reads it (and starts rescue.target).
test_rescue_param_opens_shell_then_boots() {
	make_image "$T/initrd" || return 1
	make_root_dir "$T/root" rescue-word shell
	mv "$T/root/sbin/init" "$T/root/sbin/report-init"
	cat >"$T/root/sbin/init" <<'EOF2'
#!/bin/sh
echo "TEST RESULT: cmdline rescue=$(tr ' ' '\n' </proc/cmdline | grep -cx rescue) "
exec /sbin/report-init "$@"
EOF2
	chmod 0755 "$T/root/sbin/init"
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" root || return 1
	echo exit >"$T/commands"
	vm_shell "$T/console.log" "$VM_TIMEOUT" "$T/commands" --initrd "$T/initrd" \
		--append "root=/dev/vda rescue" --disk "virtio-blk:$T/root.img" || return 1
	expect_log "$T/console.log" 'rescue: starting the rescue shell: rescue-ls lists block devices, rescue-mount mounts the root, exit continues the boot' \
		"the shell before the mount" &&
	expect_field "$T/console.log" root marker rescue-word &&
	expect_field "$T/console.log" root argv none &&
	expect_field "$T/console.log" root run_left none &&
	expect_field "$T/console.log" cmdline rescue 1
}

test_pre_pivot_break_shell_sees_mounted_root() {
	make_image "$T/initrd" || return 1
	make_root_dir "$T/root" pivot shell
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" root || return 1
	{
		result_cmd pivot newroot '$(awk '"'"'$2 == "/newroot" { print $1 }'"'"' /proc/mounts)' marker '$(cat /newroot/marker)'
		echo exit
	} >"$T/commands"
	vm_shell "$T/console.log" "$VM_TIMEOUT" "$T/commands" --initrd "$T/initrd" \
		--append "root=/dev/vda rd.break=pre-pivot" --disk "virtio-blk:$T/root.img" || return 1
	expect_field "$T/console.log" pivot newroot /dev/vda &&
	expect_field "$T/console.log" pivot marker pivot &&
	expect_log "$T/console.log" 'rescue: starting the rescue shell: the root is mounted on /newroot and /sysroot, exit switches to it' \
		"the pre-pivot hint" &&
	expect_field "$T/console.log" root marker pivot
}

test_missing_init_is_reported_and_shell_starts() {
	make_image "$T/initrd" || return 1
	make_root_dir "$T/root" no-init
	rm -f "$T/root/sbin/init" "$T/root/bin/init" "$T/root/bin/sh"
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" root || return 1
	result_cmd left init '$(test -x /init && echo yes)' >"$T/commands"
	vm_shell "$T/console.log" "$VM_TIMEOUT" "$T/commands" --initrd "$T/initrd" \
		--append "root=/dev/vda" --disk "virtio-blk:$T/root.img" || return 1
	expect_log "$T/console.log" 'rescue: unable to find an init in the root /dev/vda: tried /sbin/init /etc/init /bin/init /bin/sh$' \
		"the missing init" &&
	expect_field "$T/console.log" left init yes
}

# An init that exists but cannot be executed (#! to a missing program):
# the exec fails after the switch, and PID 1 goes back into the
# initramfs, which is still there: one line, the rescue shell with
# rescue-ls, the root on /newroot again, no panic.
test_failed_exec_returns_to_the_initramfs() {
	make_image "$T/initrd" || return 1
	make_root_dir "$T/root" bad-init
	rm -f "$T/root/bin/init" "$T/root/bin/sh"
	printf '#!/nonexistent/sh\necho never\n' >"$T/root/sbin/init"
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" root || return 1
	{
		echo "rescue-ls"
		result_cmd back init '$(test -x /init && echo yes)' newroot '$(cat /newroot/marker)' proc '$(test -e /proc/self/stat && echo yes)'
	} >"$T/commands"
	vm_shell "$T/console.log" "$VM_TIMEOUT" "$T/commands" --initrd "$T/initrd" \
		--append "root=/dev/vda" --disk "virtio-blk:$T/root.img" || return 1
	expect_log "$T/console.log" '^\[ *[0-9.]+\] rescue: unable to start /sbin/init on /dev/vda \(ext4, ro\): No such file or directory \(its #! interpreter or ELF loader is missing\)$' \
		"the exec failure line" &&
	expect_log "$T/console.log" "^vda +$(virtio_blk_major):0 +16M +ext4 " "rescue-ls's answer" &&
	expect_field "$T/console.log" back init yes &&
	expect_field "$T/console.log" back newroot bad-init &&
	expect_field "$T/console.log" back proc yes &&
	expect_no_log "$T/console.log" 'Kernel panic|Attempted to kill init' "panic"
}

# shell_after APPEND DISK REGEX WHAT: the image booted with APPEND, the
# disk image DISK on virtio, up to the rescue shell (nothing typed); the
# line REGEX (WHAT) said before it.
shell_after() {
	make_image "$T/initrd" || return 1
	: >"$T/commands"
	vm_shell "$T/console.log" "$VM_TIMEOUT" "$T/commands" --initrd "$T/initrd" \
		--append "$1" --disk "virtio-blk:$2" || return 1
	expect_log "$T/console.log" "$3" "$4"
}

test_unmountable_root_reports_mount_error() {
	make_decoy "$T/root.img" "$ROOT_UUID" root
	shell_after "root=/dev/vda rootfstype=vfat" "$T/root.img" \
		'rescue: unable to mount /dev/vda on /newroot as vfat: Invalid argument$' "the mount error"
}

# Malformed root= values: a message naming the parameter, never a crash.
malformed_root() { # root= value, expected message regex
	make_decoy "$T/decoy.img" "$DECOY_UUID" decoy
	shell_after "root=$1" "$T/decoy.img" "rescue: $2" "the message"
}

test_malformed_uuid_is_reported() {
	malformed_root UUID=0f3c-12 'unable to parse root=UUID=0f3c-12: a UUID has 36 characters .*this one has 7$'
}

test_partnroff_out_of_range_is_reported() {
	malformed_root "PARTUUID=$ROOT_PARTUUID/PARTNROFF=999" \
		"unable to parse root=PARTUUID=$ROOT_PARTUUID/PARTNROFF=999: PARTNROFF must be between -256 and 256$"
}

# PARTNROFF past the last partition: the message names both ends.
test_partnroff_past_last_partition_is_reported() {
	make_gpt "$T/disk.img" 16 "a:$BASE_PARTUUID:4" "b:$ROOT_PARTUUID:rest" || return 1
	shell_after "root=PARTUUID=$BASE_PARTUUID/PARTNROFF=2" "$T/disk.img" \
		"rescue: unable to find root PARTUUID=$BASE_PARTUUID/PARTNROFF=2: /dev/vda1 has this PARTUUID, but /dev/vda has no partition 3\$" \
		"the PARTNROFF message"
}

test_empty_root_is_reported() {
	malformed_root "" 'unable to parse root=: the value is empty$'
}

# A 2047-byte value inside an unbalanced quote: cut, reported, no crash.
test_long_unterminated_root_is_reported() {
	local long
	long=$(head -c 1500 /dev/zero | tr '\0' a)
	malformed_root "\"LABEL=$long" "unable to parse root=LABEL=a+\\.\\.\\.: the value is 1506 bytes long, more than 1023$"
}

test_rootwait_gives_up_with_progress() {
	make_decoy "$T/decoy.img" "$DECOY_UUID" decoy
	shell_after "root=LABEL=never rootwait=6" "$T/decoy.img" \
		'rescue: waiting for root LABEL=never: 5 of 6 s$' "the progress line" &&
	expect_log "$T/console.log" 'rescue: unable to find root LABEL=never: no block device has this LABEL \(1 devices probed, waited 6 s\)$' \
		"the failure after the wait"
}

# Orphans of the rescue shell become PID 1's children: reaped, no zombie.
test_rescue_shell_orphans_are_reaped() {
	make_image "$T/initrd" || return 1
	{
		echo "sh -c 'sleep 0.2 & exit 0'; sleep 1"
		result_cmd reap zombies '$(cat /proc/[0-9]*/stat 2>/dev/null | awk '"'"'$3 == "Z"'"'"' | wc -l)'
	} >"$T/commands"
	vm_shell "$T/console.log" "$VM_TIMEOUT" "$T/commands" --initrd "$T/initrd" \
		--append "root=LABEL=nowhere" || return 1
	expect_field "$T/console.log" reap zombies 0
}

# busybox reboot (no -f) signals PID 1, which reboots: no panic.
test_reboot_from_rescue_shell_without_force() {
	make_image "$T/initrd" || return 1
	cat >"$T/steps" <<'EOF2'
want \(rescue\)[^\n]*#\s
send reboot
end
EOF2
	vm_steps "root=LABEL=nowhere" || return 1
	expect_log "$T/console.log" 'rescue: rebooting \(signal Terminated\)' "the reboot on SIGTERM" &&
	expect_no_log "$T/console.log" 'Kernel panic' "panic"
}

# A fault in PID 1 restarts /init into the rescue shell instead of the
# kernel's panic.  The fault here is a SIGSEGV sent from the shell, which
# the kernel delivers to init only because rescue-init handles it.
test_crash_of_pid1_restarts_into_the_rescue_shell() {
	make_image "$T/initrd" || return 1
	cat >"$T/steps" <<'EOF2'
want \(rescue\)[^\n]*#\s
send kill -SEGV 1
want restarted after 1 crash of PID 1
want exit continues the boot
want \(rescue\)[^\n]*#\s
send printf '%s %s: crash %s\n' TEST RESULT $(tr '\0' '\n' </proc/1/environ | grep RESCUE_CRASHED)
want TEST RESULT: crash
send reboot -f
end
EOF2
	vm_steps "root=LABEL=nowhere" || return 1
	expect_log "$T/console.log" 'rescue: PID 1 crashed \(signal 11\); restarting /init into the rescue shell' \
		"the crash line" &&
	expect_log "$T/console.log" 'TEST RESULT: crash RESCUE_CRASHED=1$' "the restarted PID 1" &&
	expect_no_log "$T/console.log" 'Kernel panic|Attempted to kill init' "panic"
}
