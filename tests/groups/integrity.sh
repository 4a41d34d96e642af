# SPDX-License-Identifier: GPL-2.0
# tests/groups/integrity.sh: roots on standalone dm-integrity devices, opened
# by rescue-init's integrity layer (the image's integritysetup), on the
# patched kernel (dm-integrity built in) and the stock kernels (the
# module loaded for it), tests/lib/stacked-lib.sh.  dm-integrity cannot be
# written from userspace (its data sectors interleave with their tags):
# tests/disks/integrity.sh makes the device in a helper VM, once.

. "$TOP/tests/lib/rescue-lib.sh"
. "$TOP/tests/lib/stacked-lib.sh"
. "$TOP/tests/lib/disks.sh"

INTEGRITY_VM_TIMEOUT=${INTEGRITY_VM_TIMEOUT:-240}
# shellcheck disable=SC2034 # stack_boot and stack_steps read it (tests/lib/stacked-lib.sh)
STACK_VM_TIMEOUT=$INTEGRITY_VM_TIMEOUT

integrity_setup() {
	# shellcheck disable=SC2034 # stack_image reads it
	KVER=$(stock_kernel_version) || return 1
	stack_image "$T/initrd" --storage &&
	disk integrity ROOT_UUID &&
	record_sums "$T/d.img"
}

# root= the ext4's UUID inside: the device opened as integrity-vda, the
# root mounted read-only from it, the disk unchanged.
test_integrity_root_by_uuid() {
	for_each_stack_kernel_and_newest integrity_root_by_uuid
}
integrity_root_by_uuid() {
	integrity_setup || return 1
	stack_boot "root=UUID=$ROOT_UUID" --disk "virtio-blk:$T/d.img" || return 1
	expect_log "$T/console.log" \
		"rescue: integrity: opened /dev/vda as dm-0 \(/dev/mapper/integrity-vda\)$" \
		"the device opened as integrity-vda" &&
	expect_log "$T/console.log" "rescue: found root UUID=$ROOT_UUID on /dev/dm-0 \(ext4\)" \
		"the root found inside it" &&
	expect_field "$T/console.log" root marker integrity-root &&
	expect_field "$T/console.log" root fs ext4 &&
	expect_field "$T/console.log" root mode ro &&
	expect_exec_line /sbin/init /dev/dm-0 ext4 ro &&
	expect_disks_unchanged
}

# root=/dev/mapper/integrity-vda, the name the layer gives it.
test_integrity_root_by_mapper_name() {
	integrity_setup || return 1
	stack_boot "root=/dev/mapper/integrity-vda" --disk "virtio-blk:$T/d.img" || return 1
	expect_field "$T/console.log" root marker integrity-root &&
	expect_exec_line /sbin/init /dev/dm-0 ext4 ro
}

# rd.integrity=0: left alone, with the line that says which parameter.
test_integrity_off_leaves_the_device_alone() {
	integrity_setup || return 1
	stack_boot "root=UUID=$ROOT_UUID rootwait=2 rd.integrity=0 rd.shell=0 rd.retry=1 panic=1" \
		--disk "virtio-blk:$T/d.img" || return 1
	expect_log "$T/console.log" "rescue: storage: integrity is off for this boot" \
		"the layer turned off" &&
	expect_log "$T/console.log" "rescue: storage: /dev/vda left alone: rd.integrity=0 turns integrity off" \
		"why the device is not opened" &&
	expect_log "$T/console.log" "rescue: unable to find root UUID=$ROOT_UUID" \
		"the root not found" &&
	expect_log "$T/console.log" "rescue: +vda +[0-9]+:[0-9]+ +[0-9.]+M +DM_integrity" \
		"the device in the device table" &&
	expect_no_log "$T/console.log" 'TEST RESULT: root' "a boot" &&
	expect_disks_unchanged
}

# Strict read-only: opening would replay the device's journal, so it
# stays closed, the line says why, and the disk is byte-identical.
test_integrity_strict_readonly_leaves_it_closed() {
	integrity_setup || return 1
	stack_boot "root=UUID=$ROOT_UUID rootwait=2 rescue.ro=strict rd.shell=0 rd.retry=1 panic=1" \
		--disk "virtio-blk:$T/d.img" || return 1
	expect_log "$T/console.log" \
		"rescue: integrity: /dev/vda left closed: strict read-only \(rescue.ro=strict\): opening replays its journal, a write" \
		"the device left closed, and why" &&
	expect_log "$T/console.log" "rescue: vda: dm-integrity: not opened: strict read-only" \
		"its line in the device table" &&
	expect_no_log "$T/console.log" 'TEST RESULT: root' "a boot" &&
	expect_disks_unchanged
}

# root= naming the raw device: refused as what it is, not mounted.
test_integrity_raw_device_as_root_is_refused() {
	integrity_setup || return 1
	stack_boot "root=/dev/vda rootwait=2 rd.integrity=0 rd.shell=0 rd.retry=1 panic=1" \
		--disk "virtio-blk:$T/d.img" || return 1
	expect_log "$T/console.log" \
		"rescue: unable to mount /dev/vda as the root: it is a dm-integrity device" \
		"the refusal naming what the device is" &&
	expect_no_log "$T/console.log" 'TEST RESULT: root' "a boot" &&
	expect_disks_unchanged
}
