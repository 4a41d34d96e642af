# SPDX-License-Identifier: GPL-2.0
# tests/groups/faults.sh: the fault scenarios of the randomized-layout issue that
# tests/groups/rescue-init.sh does not already cover: a root disk hot-added
# through the QEMU monitor after boot, with and without rootwait; a
# corrupt root superblock and corrupt group descriptors; root=UUID= with
# no value; a root with a journal to replay, in the rescue shell.  Every
# boot checks that no disk image changed (sha256).
#
# Covered elsewhere, by name: missing root (rescue-shell/missing_root_
# opens_shell, rd_shell_0_waits_without_shell), duplicated UUID
# (rescue-shell/duplicate_uuid_names_both_devices), wrong rootfstype=
# (rescue-shell/unmountable_root_reports_mount_error), no /sbin/init
# (rescue-shell/missing_init_is_reported_and_shell_starts), empty root=,
# 2047-byte unbalanced quote (rescue-shell/empty_root_is_reported,
# long_unterminated_root_is_reported).

# shellcheck disable=SC2016 # the result_cmd expressions are single-quoted: they expand in the guest
. "$TOP/tests/lib/rescue-lib.sh"

# ---- a root that appears late -----------------------------------------

# rootwait: the disk added seconds after boot is found through its
# uevent, and mounted; the note gives the time from the kernel seeing
# the disk to rescue-init mounting it.
test_hot_added_root_is_found_with_rootwait() {
	local seen mounted
	make_image "$T/initrd" || return 1
	make_decoy "$T/decoy.img" "$DECOY_UUID" decoy
	make_root_dir "$T/root" hot-added
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" hotroot || return 1
	record_sums "$T/decoy.img" "$T/root.img"
	start_vm "root=UUID=$ROOT_UUID rootwait=60" --disk "virtio-scsi:$T/decoy.img"
	wait_log "$T/console.log" "rescue: waiting for root UUID=$ROOT_UUID: [0-9]+ of 60 s" 30 &&
		sleep 2 && hot_add_disk "$T/root.img" ||
		{ stop_vm; return 1; }
	# shellcheck disable=SC2154 # vm_pid: set by start_vm (tests/lib/lib.sh)
	wait "$vm_pid" || { fail "run-vm: $(cat "$T/run-vm.err")"; show_log "$T/console.log"; return 1; }
	expect_log "$T/console.log" "rescue: root UUID=$ROOT_UUID appeared after [0-9]+ us of waiting" \
		"the appearance through a uevent" &&
	expect_field "$T/console.log" root marker hot-added &&
	expect_field "$T/console.log" root mode ro &&
	expect_exec_line /sbin/init /dev/sdb ext4 ro &&
	expect_disks_unchanged || return 1
	seen=$(printk_time "$T/console.log" '\[sdb\]')
	mounted=$(printk_time "$T/console.log" 'rescue: mounted /dev/sdb ')
	note "hot-add: the kernel saw sdb at ${seen} s, rescue-init mounted it at ${mounted} s:" \
		"$(awk -v a="$seen" -v b="$mounted" 'BEGIN { printf "%.1f", (b - a) * 1000 }') ms"
}

# No rootwait: the root is looked for once, at boot; a disk added later
# is not waited for, the missing-root report is given and the rescue
# shell keeps the console.  (rd.shell=0 boots a root that comes later:
# pid1/no_shell_boots_a_root_that_comes_later.)
test_hot_added_root_without_rootwait_is_reported_missing() {
	make_image "$T/initrd" || return 1
	make_decoy "$T/decoy.img" "$DECOY_UUID" decoy
	make_root_dir "$T/root" too-late
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" hotroot || return 1
	record_sums "$T/decoy.img" "$T/root.img"
	start_vm "root=UUID=$ROOT_UUID" --disk "virtio-scsi:$T/decoy.img"
	wait_log "$T/console.log" 'rescue: starting the rescue shell' 30 &&
		hot_add_disk "$T/root.img" &&
		wait_log "$T/console.log" '\[sdb\] Attached SCSI disk' 30 ||
		{ stop_vm; return 1; }
	sleep 2
	stop_vm
	expect_log "$T/console.log" "rescue: unable to find root UUID=$ROOT_UUID: no block device has this UUID \(1 devices probed, waited 0 s\)" \
		"the missing-root line" &&
	expect_log "$T/console.log" 'rescue: sda +8:0 +8M +ext4' "the table row of the decoy" &&
	expect_no_log "$T/console.log" 'rescue: mounted /dev/|TEST RESULT: root' "a mount of the late disk" &&
	expect_no_log "$T/console.log" 'Kernel panic|Attempted to kill init' "panic" &&
	expect_disks_unchanged
}

# ---- corrupt filesystems ----------------------------------------------

# corrupt_boot IMG APPEND: boot to the rescue shell, type nothing.
corrupt_boot() {
	make_image "$T/initrd" || return 1
	record_sums "$1"
	: >"$T/commands"
	vm_shell "$T/console.log" "$VM_TIMEOUT" "$T/commands" --initrd "$T/initrd" \
		--append "$2" --disk "virtio-blk:$1" || return 1
	expect_log "$T/console.log" 'rescue: starting the rescue shell' "the rescue shell" &&
	expect_no_log "$T/console.log" 'TEST RESULT: root' "a boot" &&
	expect_disks_unchanged
}

# corrupt_root_boot BLOCK APPEND: corrupt_boot of an ext4 root whose
# 1 KiB block BLOCK is zeroed (1 KiB blocks on a 16 MiB filesystem: 1 is
# the primary superblock, 2 the group descriptors).
corrupt_root_boot() {
	make_root_dir "$T/root" corrupt
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" root || return 1
	dd if=/dev/zero of="$T/root.img" bs=1024 seek="$1" count=1 conv=notrunc status=none
	corrupt_boot "$T/root.img" "$2"
}

# The primary superblock zeroed: nothing is recognised on the disk, and
# the report says so for the device root= names.
test_corrupt_superblock_is_reported() {
	corrupt_root_boot 1 "root=/dev/vda" &&
	expect_log "$T/console.log" 'rescue: unable to mount /dev/vda on /newroot: blkid recognises no filesystem on it, and none of the kernel.s \([a-z0-9,]+\) mounts it: ' \
		"the unrecognised filesystem" &&
	expect_log "$T/console.log" "rescue: vda +$(virtio_blk_major):0 +16M +- +- +- +- +-\$" "the table row"
}

# Group descriptors zeroed: blkid still sees the ext4 by its UUID, the
# kernel refuses to mount it, and the line gives the kernel's reason.
test_corrupt_group_descriptors_give_the_mount_error() {
	corrupt_root_boot 2 "root=UUID=$ROOT_UUID" &&
	expect_log "$T/console.log" 'rescue: unable to mount /dev/vda on /newroot as ext4: Structure needs cleaning$' \
		"the mount error" &&
	expect_log "$T/console.log" 'EXT4-fs \(vda\): .*group descriptors? ' "the kernel's own reason"
}

# ---- garbage on the command line --------------------------------------

test_uuid_without_value_is_reported() {
	make_decoy "$T/decoy.img" "$DECOY_UUID" decoy
	corrupt_boot "$T/decoy.img" "root=UUID=" &&
	expect_log "$T/console.log" 'rescue: unable to parse root=UUID=: nothing after UUID=$' "the message"
}

# ---- a root that died while writing -------------------------------------

# The machine died in the middle of a write: its ext4 root has a journal
# to replay (rescue-lib's maker).  The rescue word stops at the shell in
# strict read-only mode: rescue-ls names the root, e2fsck -n sees the
# journal and writes nothing, rescue-mount mounts it without replaying
# it, and the disk is byte-identical after the boot, its journal still
# unreplayed for whoever copies it first.
test_dirty_root_is_named_and_checked_in_the_rescue_shell_without_writing() {
	local recipe
	EXTRA_LIST=$T/extra.list
	echo "file /sbin/e2fsck /sbin/e2fsck.static 0755 0 0" >"$EXTRA_LIST"
	make_image "$T/initrd" || return 1
	make_root_dir "$T/root" dirty
	recipe=$( {
		(cd "$T/root" && find . -printf '%p %l %s %m\n' | sort)
		sha256sum "$T/root/sbin/init" | cut -d' ' -f1
		echo "faults dirty $ROOT_UUID 16 MiB"
	})
	dirty_ext4_disk "$T/root.img" /dev/vda 0 "$recipe" \
		make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" dirtyroot || return 1
	record_sums "$T/root.img"
	{
		echo "rescue-ls"
		echo "e2fsck -n /dev/vda"
		result_cmd fsck status '$?' ro '$(blockdev --getro /dev/vda)'
		echo "rescue-mount"
		result_cmd mnt marker '$(cat /newroot/marker)'
	} >"$T/commands"
	vm_shell "$T/console.log" "$VM_TIMEOUT" "$T/commands" --initrd "$T/initrd" \
		--append "root=UUID=$ROOT_UUID rescue" --disk "virtio-blk:$T/root.img" || return 1
	expect_disks_unchanged &&
	expect_log "$T/console.log" "vda +$(virtio_blk_major):0 +16M +ext4 +$ROOT_UUID +dirtyroot" \
		"rescue-ls naming the dirty root" &&
	expect_log "$T/console.log" 'skipping journal recovery because doing a read-only filesystem check' \
		"e2fsck -n seeing the journal to replay" &&
	expect_field "$T/console.log" fsck ro 1 &&
	expect_log "$T/console.log" '^rescue-mount: mounted /dev/vda \(ext4, ro\) on /newroot' \
		"rescue-mount of the root" &&
	expect_field "$T/console.log" mnt marker dirty || return 1
	needs_recovery "$T/root.img" ||
		fail "the root's journal was replayed during the rescue boot"
	note "e2fsck -n on the dirty root: status $(result_field "$T/console.log" fsck status)"
}
