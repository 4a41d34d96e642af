# SPDX-License-Identifier: GPL-2.0
# tests/groups/lvm.sh: roots on LVM2 logical volumes that rescue-init activates
# (storage-lvm.c), on the Debian stock kernel with an image of mkrescue
# -k, and the root on an LV and the Debian layout (LUKS2 -> LVM) on the
# patched kernel too (tests/lib/stacked-lib.sh).  The volume groups are
# made inside a helper VM (the stock kernel with mkrescue's image and
# its lvm), never with this machine's device-mapper; the filesystems
# are made here by mke2fs -d and copied into their LVs there: the disks
# are tests/disks/lvm*.sh, cached under $BUILD/tests/disks.

. "$TOP/tests/lib/rescue-lib.sh"
. "$TOP/tests/lib/stacked-lib.sh"
. "$TOP/tests/lib/dracut-lib.sh"
. "$TOP/tests/lib/disks.sh"

LVM_VM_TIMEOUT=${LVM_VM_TIMEOUT:-240}
# shellcheck disable=SC2034 # stack_boot and stack_steps read it (tests/lib/stacked-lib.sh)
STACK_VM_TIMEOUT=$LVM_VM_TIMEOUT
SPAN_UUID=3c0d8a52-7e41-4f0b-9a6d-2b1e5f7c9015
LUKS_LVM_UUID=3c0d8a52-7e41-4f0b-9a6d-2b1e5f7c9016
# PV UUIDs (lvm's 6-4-4-4-4-4-6), fixed so a test can name a missing one.
PV_ROOT=Rescue-PV00-0000-0000-0000-0000-rootpv
PV_SPAN1=Rescue-PV00-0000-0000-0000-0001-span01
PV_SPAN2=Rescue-PV00-0000-0000-0000-0002-span02
PV_DECOY=Rescue-PV00-0000-0000-0000-0003-decoy0
PV_LUKS=Rescue-PV00-0000-0000-0000-0004-luksp0
SNAP_UUID=3c0d8a52-7e41-4f0b-9a6d-2b1e5f7c9017
PV_SNAP=Rescue-PV00-0000-0000-0000-0005-snapp0
THIN_UUID=3c0d8a52-7e41-4f0b-9a6d-2b1e5f7c9018
PV_THIN=Rescue-PV00-0000-0000-0000-0006-thinp0
RAID_UUID=3c0d8a52-7e41-4f0b-9a6d-2b1e5f7c9019
PV_RAID1=Rescue-PV00-0000-0000-0000-0007-raid01
PV_RAID2=Rescue-PV00-0000-0000-0000-0008-raid02
HALF_UUID=3c0d8a52-7e41-4f0b-9a6d-2b1e5f7c9020
PV_HALF1=Rescue-PV00-0000-0000-0000-0009-half01
PV_HALF2=Rescue-PV00-0000-0000-0000-0010-half02
MIRROR_UUID=3c0d8a52-7e41-4f0b-9a6d-2b1e5f7c9021
PV_MIRROR1=Rescue-PV00-0000-0000-0000-0011-mirr01
PV_MIRROR2=Rescue-PV00-0000-0000-0000-0012-mirr02
CACHE_UUID=3c0d8a52-7e41-4f0b-9a6d-2b1e5f7c9022
PV_CACHE1=Rescue-PV00-0000-0000-0000-0013-cach01
PV_CACHE2=Rescue-PV00-0000-0000-0000-0014-cach02
LUKS_PASS=rescue-lvm-pass
# The disk scripts read the ids from their environment (tests/lib/disks.sh).
export SPAN_UUID LUKS_LVM_UUID PV_ROOT PV_SPAN1 PV_SPAN2 PV_DECOY PV_LUKS \
	SNAP_UUID PV_SNAP THIN_UUID PV_THIN RAID_UUID PV_RAID1 PV_RAID2 HALF_UUID \
	PV_HALF1 PV_HALF2 MIRROR_UUID PV_MIRROR1 PV_MIRROR2 CACHE_UUID PV_CACHE1 \
	PV_CACHE2 LUKS_PASS

# The disks in $T: tests/disks/NAME.sh says what each holds.
make_lvm_disks() {
	disk lvm ROOT_UUID SPAN_UUID LUKS_LVM_UUID PV_ROOT PV_SPAN1 PV_SPAN2 PV_DECOY PV_LUKS LUKS_PASS
}

make_lvm_snap_disk() {
	disk lvm-snap PV_SNAP SNAP_UUID
}

make_lvm_thin_disk() {
	disk lvm-thin PV_THIN THIN_UUID
}

make_lvm_raid_disks() {
	disk lvm-raid1 PV_RAID1 PV_RAID2 RAID_UUID
}

make_lvm_mirror_disks() {
	disk lvm-mirror PV_MIRROR1 PV_MIRROR2 MIRROR_UUID
}

make_lvm_cache_disks() {
	disk lvm-cache PV_CACHE1 PV_CACHE2 CACHE_UUID
}

make_lvm_half_disks() {
	disk lvm-half PV_HALF1 PV_HALF2 HALF_UUID
}

# lvm_meta_id IMG NAME: the id of the section NAME (a VG or an LV) in
# the metadata text lvm wrote on IMG, dashes removed.
lvm_meta_id() {
	grep -a -m1 -A1 -P "(^|\\x00)\\Q$2\\E \\{\$" "$1" | sed -n 's/^id = "\(.*\)"$/\1/p' | tr -d -
}

# lvm_image: mkrescue -k for the stock kernel (its lvm, dm_mod), or
# --storage for the patched one, with this build's rescue-init, in
# $T/initrd.
lvm_image() {
	stack_image "$T/initrd"
}

# lvm_vm HOW APPEND DISK...: the disks ($LVM_DISKS, a make_lvm_*disk*
# function; make_lvm_disks by default), the image, sums of the DISKs
# (BUS:NAME of $T/NAME.img), then the kernel on them: HOW is boot
# (stack_boot) or steps (stack_steps, typing $T/steps).
lvm_vm() {
	local how=$1 append=$2 disk args=() imgs=()
	shift 2
	"${LVM_DISKS:-make_lvm_disks}" && lvm_image || return 1
	for disk in "$@"; do
		args+=(--disk "${disk%%:*}:$T/${disk#*:}.img")
		imgs+=("$T/${disk#*:}.img")
	done
	record_sums "${imgs[@]}"
	"stack_$how" "$append" "${args[@]}"
}
lvm_boot() { lvm_vm boot "$@"; }
lvm_steps() { lvm_vm steps "$@"; }

# The root on an LV (a dm-N) booted: marker, ext4, read-only, the exec
# line.
expect_lv_booted() { # marker
	expect_field "$T/console.log" root marker "$1" &&
	expect_field "$T/console.log" root fs ext4 &&
	expect_field "$T/console.log" root mode ro &&
	expect_exec_line /sbin/init '/dev/dm-[0-9]+' ext4 ro
}

# ... with /dev a devtmpfs, and not a byte written to any disk.
expect_lv_root() { # marker
	expect_lv_booted "$1" &&
	expect_field "$T/console.log" root dev_fs devtmpfs &&
	expect_disks_unchanged
}

# expect_lvm_activates VG WHY [HOW]: the line saying why lvm activates
# VG (not rescue-init's device-mapper ioctls), and lvm's activation;
# HOW, how the VG stands ("all its PVs there" by default).
expect_lvm_activates() {
	expect_log "$T/console.log" "rescue: lvm: volume group $1: lvm activates it: $2\$" \
		"the line saying why lvm activates the VG" &&
	expect_log "$T/console.log" \
		"rescue: lvm: activating the LVs of $1 \(volume group $1, UUID [A-Za-z0-9-]+, ${3:-all its PVs there}\)\$" \
		"lvm's activation"
}

# expect_lvm_degraded VG PV: when the root wait ended, VG named
# incomplete with its missing PV, and activated by lvm's degraded mode.
expect_lvm_degraded() {
	expect_log "$T/console.log" \
		"rescue: lvm: volume group $1 \(UUID [A-Za-z0-9-]+\) is incomplete: 1 of 2 PVs, missing PV $2" \
		"the incomplete VG and its missing PV" &&
	expect_lvm_activates "$1" "PVs missing" "incomplete, what can run without the missing PVs"
}

# expect_lvm_now_active VG N WHAT: lvm's own line, N LVs of VG active.
expect_lvm_now_active() {
	expect_log "$T/console.log" "rescue: lvm: +$2 logical volume\(s\) in volume group \"$1\" now active" \
		"lvm activating $3"
}

# expect_lvs_activated VG N WHAT: rescue-init's count of VG's LVs.
expect_lvs_activated() {
	expect_log "$T/console.log" "rescue: lvm: volume group $1: $2 LVs activated\$" "$3"
}

# expect_lv_found ROOT WHAT: root= ROOT found on a dm-N.
expect_lv_found() {
	expect_log "$T/console.log" "rescue: found root $1 on /dev/dm-[0-9]+" "the root found $2"
}

# lvm_luks_uuid: the UUID of the LUKS container of the Debian layout
# (make_lvm_disks' luks.img, made here).
lvm_luks_uuid() {
	local uuid
	make_lvm_disks || return 1
	uuid=$(blkid -p -s UUID -o value "$T/luks.img") && [ -n "$uuid" ] ||
		{ fail "no LUKS UUID on $T/luks.img"; return 1; }
	echo "$uuid"
}

# A root that must not be found: no boot, and the disks as they were.
expect_no_root() {
	expect_no_log "$T/console.log" 'TEST RESULT: root' "a boot" &&
	expect_disks_unchanged
}

# ---- one VG, one PV ---------------------------------------------------

# root=/dev/VG/LV, a name lvm links itself: the VG is activated when its
# one PV appears, and the LV (a dm-N) answers to that name.  On the
# patched and the stock kernel.
test_root_on_lv_by_dev_vg_lv() {
	for_each_stack_kernel_and_newest root_on_lv_by_dev_vg_lv
}
root_on_lv_by_dev_vg_lv() {
	lvm_boot "root=/dev/rescue-vg/root-lv" virtio-blk:lvm-root || return 1
	expect_log "$T/console.log" \
		"rescue: lvm: /dev/vda is PV $PV_ROOT of volume group rescue-vg \(UUID [A-Za-z0-9-]+\), 1 of 1 PVs there" \
		"the PV seen, its VG complete" &&
	expect_lvs_activated rescue-vg 3 "the three LVs activated" &&
	expect_lv_found /dev/rescue-vg/root-lv "by /dev/VG/LV" &&
	expect_lv_root lvm-root
}

# root=/dev/mapper/VG-LV, each '-' of either name doubled as lvm names
# the dm device; rd.lvm.lv= activates that LV alone.
test_root_on_lv_by_mapper_name_with_rd_lvm_lv() {
	lvm_boot "root=/dev/mapper/rescue--vg-root--lv rd.lvm.lv=rescue-vg/root-lv" \
		virtio-blk:lvm-root || return 1
	expect_log "$T/console.log" "rescue: lvm: activating rd.lvm.lv=rescue-vg/root-lv \(volume group rescue-vg," \
		"the named LV activated alone" &&
	expect_lvs_activated rescue-vg 1 "one LV activated, not three" &&
	expect_log "$T/console.log" "rescue: found root /dev/mapper/rescue--vg-root--lv on /dev/dm-0" \
		"the root found by its /dev/mapper name" &&
	expect_lv_root lvm-root
}

# root=UUID= of the filesystem on the LV, behind an SCSI disk.
test_root_on_lv_by_filesystem_uuid() {
	lvm_boot "root=UUID=$ROOT_UUID" virtio-scsi:lvm-root || return 1
	expect_lv_found "UUID=$ROOT_UUID" "by the filesystem's UUID" &&
	expect_lv_root lvm-root
}

# ---- the fast path and what it leaves to lvm -------------------------

# A VG of plain linear LVs is activated with no lvm run, from its
# metadata by device-mapper ioctls, named as lvm names it: lvm itself
# (lvs in the rescue shell) sees the LVs active, /dev/VG/LV links to
# /dev/mapper/VG-LV as lvm links it without udev, and the root's shell after switch_root reads the
# dm UUID LVM-<VG id><LV id> of the metadata.  On the patched and the
# stock kernel.
test_plain_vg_activated_without_lvm_as_lvm_names_it() {
	for_each_stack_kernel plain_vg_activated_without_lvm
}
plain_vg_activated_without_lvm() {
	local vgid lvid
	make_lvm_disks || return 1
	vgid=$(lvm_meta_id "$T/lvm-root.img" rescue-vg) &&
	lvid=$(lvm_meta_id "$T/lvm-root.img" root-lv) &&
	[ ${#vgid} = 32 ] && [ ${#lvid} = 32 ] ||
		{ fail "no VG and LV ids in the metadata of $T/lvm-root.img"; return 1; }
	cat >"$T/steps" <<-STEPS
	want \\(rescue\\) # 
	send lvm lvs --noheadings -o lv_name,lv_attr rescue-vg
	want root-lv +-wi-a
	want \\(rescue\\) # 
	send readlink /dev/rescue-vg/root-lv
	want /dev/mapper/rescue--vg-root--lv
	want \\(rescue\\) # 
	send exit
	want rescue: exec /bin/sh on /dev/dm-
	send for d in /sys/block/dm-*; do echo "dm: \$(cat \$d/dm/name) \$(cat \$d/dm/uuid)"; done
	want dm: rescue--vg-root--lv LVM-$vgid$lvid
	send exec /sbin/init
	want TEST RESULT: root
	end
	STEPS
	lvm_steps "root=/dev/rescue-vg/root-lv rd.break=pre-pivot init=/bin/sh" virtio-blk:lvm-root || return 1
	expect_log "$T/console.log" \
		"rescue: lvm: activating the LVs of rescue-vg \(volume group rescue-vg, UUID [A-Za-z0-9-]+, all its PVs there\) with device-mapper ioctls, no lvm run" \
		"the fast path's line" &&
	expect_no_log "$T/console.log" "lvm activates it" "a fall-back to lvm" &&
	expect_lvs_activated rescue-vg 3 "the three LVs activated" &&
	expect_field "$T/console.log" root marker lvm-root &&
	expect_exec_line /bin/sh '/dev/dm-[0-9]+' ext4 ro &&
	expect_disks_unchanged
}

# An LV with a snapshot is not a plain table (lvm stacks the origin on a
# -real layer): its VG goes to lvm, with the line why, and the root on
# the origin boots.  On the patched and the stock kernel.
test_lv_with_a_snapshot_falls_back_to_lvm() {
	for_each_stack_kernel lv_with_a_snapshot_falls_back_to_lvm
}
lv_with_a_snapshot_falls_back_to_lvm() {
	LVM_DISKS=make_lvm_snap_disk lvm_boot "root=/dev/snapvg/root" virtio-blk:snap || return 1
	expect_lvm_activates snapvg "LV root is used by another LV" &&
	expect_lvs_activated snapvg 2 "the origin and its snapshot activated" &&
	expect_lv_found /dev/snapvg/root "on the origin" &&
	expect_lv_booted lvm-snap
}

# A thin LV is not a plain table (a thin target in a thin pool): its VG
# goes to lvm, with the line why, and the root on the thin LV boots.
# The image has no thin_check (thin-provisioning-tools): lvm says it
# skips the pool's check and activates it.  On both stock kernels (the
# thin target and its persistent-data modules loaded on lvm's request),
# not the patched one, which leaves the thin target out (kernel/README).
test_thin_lv_falls_back_to_lvm() {
	STACK_KERNELS=${STACK_KERNELS:-stock newest} for_each_stack_kernel thin_lv_falls_back_to_lvm
}
thin_lv_falls_back_to_lvm() {
	LVM_DISKS=make_lvm_thin_disk lvm_boot "root=/dev/thinvg/root" virtio-blk:thin || return 1
	expect_lvm_activates thinvg "LV pool is used by another LV" &&
	expect_log "$T/console.log" \
		"rescue: lvm: +WARNING: Check is skipped, please install recommended missing binary /usr/sbin/thin_check!" \
		"lvm skipping the pool's thin_check, which the image does not have" &&
	expect_lvm_now_active thinvg 2 "the pool and the thin LV" &&
	expect_lvs_activated thinvg 1 "the thin LV counted (the pool's devices have suffixed dm UUIDs)" &&
	expect_lv_found /dev/thinvg/root "on the thin LV" &&
	expect_lv_booted lvm-thin
}

# A RAID1 LV (lvcreate --type raid1 -m1, over two PVs) is not a plain
# table (a raid target over its hidden rimage and rmeta LVs): its VG goes
# to lvm, with the line why, and the root on the RAID1 LV boots.  On the
# patched and the stock kernel.
test_raid1_lv_falls_back_to_lvm() {
	for_each_stack_kernel raid1_lv_falls_back_to_lvm
}
raid1_lv_falls_back_to_lvm() {
	LVM_DISKS=make_lvm_raid_disks lvm_boot "root=/dev/raidvg/root" \
		virtio-blk:raid1 virtio-blk:raid2 || return 1
	expect_lvm_activates raidvg "LV root is a segment not striped or linear" &&
	expect_lvm_now_active raidvg 1 "the RAID1 LV" &&
	expect_log "$T/console.log" "md/raid1:mdX: active with 2 out of 2 mirrors" \
		"the kernel's RAID1 running on both legs" &&
	expect_lvs_activated raidvg 5 "the RAID1 LV and its hidden rimage and rmeta LVs activated" &&
	expect_lv_found /dev/raidvg/root "on the RAID1 LV" &&
	expect_lv_booted lvm-raid
}

# An old-style mirror LV (lvcreate --type mirror -m1, its log in
# memory, over two PVs) is not a plain table (a mirror target over its
# hidden mimage LVs): its VG goes to lvm, with the line why, and the
# root on the mirror LV boots.  On both stock kernels (dm-mirror loaded
# on lvm's request), not the patched one, which leaves the mirror
# target out (kernel/README).
test_mirror_lv_falls_back_to_lvm() {
	STACK_KERNELS=${STACK_KERNELS:-stock newest} for_each_stack_kernel mirror_lv_falls_back_to_lvm
}
mirror_lv_falls_back_to_lvm() {
	LVM_DISKS=make_lvm_mirror_disks lvm_boot "root=/dev/mirrorvg/root" \
		virtio-blk:mirror1 virtio-blk:mirror2 || return 1
	expect_lvm_activates mirrorvg "LV root is a segment not striped or linear" &&
	expect_log "$T/console.log" "modprobe: loaded module dm_mirror for dm-mirror" \
		"dm-mirror loaded from the image on lvm's request" &&
	expect_lvm_now_active mirrorvg 1 "the mirror LV" &&
	expect_lvs_activated mirrorvg 3 "the mirror LV and its two hidden mimage LVs activated" &&
	expect_lv_found /dev/mirrorvg/root "on the mirror LV" &&
	expect_lv_booted lvm-mirror
}

# An LV cached by a cache pool (lvconvert --type cache --cachepool, the
# pool on another PV) is not a plain table (a cache target over the
# pool's cdata and cmeta and the origin's corig LV): its VG goes to
# lvm, with the line why, and the root on the cached LV boots.  The
# image has no cache_check (thin-provisioning-tools): lvm says it skips
# the check and activates.  On both stock kernels (dm-cache and its smq
# policy loaded on lvm's request), not the patched one, which leaves
# the cache target out (kernel/README).
test_cache_lv_falls_back_to_lvm() {
	STACK_KERNELS=${STACK_KERNELS:-stock newest} for_each_stack_kernel cache_lv_falls_back_to_lvm
}
cache_lv_falls_back_to_lvm() {
	LVM_DISKS=make_lvm_cache_disks lvm_boot "root=/dev/cachevg/root" \
		virtio-blk:cache1 virtio-blk:cache2 || return 1
	expect_lvm_activates cachevg "LV root is a segment not striped or linear" &&
	expect_log "$T/console.log" "modprobe: loaded module dm_cache for dm-cache" \
		"dm-cache loaded from the image on lvm's request" &&
	expect_log "$T/console.log" "modprobe: loaded module dm_cache_smq for dm-cache-smq" \
		"dm-cache's smq policy loaded from the image on lvm's request" &&
	expect_log "$T/console.log" \
		"rescue: lvm: +WARNING: Check is skipped, please install recommended missing binary /usr/sbin/cache_check!" \
		"lvm skipping the pool's cache_check, which the image does not have" &&
	expect_lvm_now_active cachevg 1 "the cached LV" &&
	expect_lvs_activated cachevg 1 \
		"the cached LV counted (the devices of its origin and of the pool have suffixed dm UUIDs)" &&
	expect_lv_found /dev/cachevg/root "on the cached LV" &&
	expect_lv_booted lvm-cache
}

# ---- a VG over two disks, an incomplete one ---------------------------

# The VG spans a virtio and an NVMe disk, its LV both: activated only
# once the second PV is there, and never before.
test_vg_spanning_two_disks() {
	lvm_boot "root=UUID=$SPAN_UUID" virtio-blk:span1 nvme:span2 || return 1
	expect_log "$T/console.log" \
		"rescue: lvm: /dev/(vda|nvme0n1) is PV ($PV_SPAN1|$PV_SPAN2) of volume group span \(UUID [A-Za-z0-9-]+\), 1 of 2 PVs there" \
		"the first PV, the VG not complete" &&
	expect_log "$T/console.log" \
		"rescue: lvm: /dev/(vda|nvme0n1) is PV ($PV_SPAN1|$PV_SPAN2) of volume group span \(UUID [A-Za-z0-9-]+\), 2 of 2 PVs there" \
		"the second PV completing it" &&
	expect_no_log "$T/console.log" "incomplete" "an incomplete VG" &&
	expect_lv_root lvm-span
}

# One PV of the two absent: when the root wait ends, the VG is named
# with the missing PV's UUID, in the log and in the device table.  On
# the patched and the stock kernel, and through dracut.
test_incomplete_vg_names_the_missing_pv() {
	STACK_KERNELS=${STACK_KERNELS:-patched stock dracut} \
		for_each_stack_kernel incomplete_vg_names_the_missing_pv
}
incomplete_vg_names_the_missing_pv() {
	lvm_boot "root=UUID=$SPAN_UUID rootwait=2 rd.shell=0 rd.retry=1 panic=1" \
		virtio-blk:span1 || return 1
	expect_log "$T/console.log" \
		"rescue: lvm: volume group span \(UUID [A-Za-z0-9-]+\) is incomplete: 1 of 2 PVs, missing PV $PV_SPAN2" \
		"the incomplete VG and its missing PV" &&
	expect_log "$T/console.log" \
		"rescue: +lvm VG span \(UUID [A-Za-z0-9-]+\): 1 of 2 PVs vda, missing PV $PV_SPAN2; 0 LVs active" \
		"the VG in the device table" &&
	expect_no_root
}

# One PV of the two absent, the root LV wholly on the one there: when
# the root wait ends, the VG is named with the missing PV's UUID and
# activated by lvm in its degraded mode (what can run without the
# missing PV), and the root boots; the LV on the missing PV stays
# inactive, and not a byte is written.  On the patched and the stock
# kernel.
test_incomplete_vg_activated_degraded_boots_the_root() {
	for_each_stack_kernel incomplete_vg_activated_degraded_boots_the_root
}
incomplete_vg_activated_degraded_boots_the_root() {
	LVM_DISKS=make_lvm_half_disks lvm_boot \
		"root=UUID=$HALF_UUID rootwait=2 rd.shell=0 rd.retry=1 panic=1" virtio-blk:half1 || return 1
	expect_log "$T/console.log" \
		"rescue: lvm: /dev/vda is PV $PV_HALF1 of volume group halfvg \(UUID [A-Za-z0-9-]+\), 1 of 2 PVs there" \
		"the PV seen, the VG not complete" &&
	expect_no_log "$T/console.log" "rescue: lvm: activating the LVs of halfvg .*all its PVs there" \
		"an activation before the root wait ended" &&
	expect_lvm_degraded halfvg "$PV_HALF2" &&
	expect_log "$T/console.log" "rescue: lvm: +Refusing activation of partial LV halfvg/data\." \
		"lvm leaving the LV on the missing PV inactive" &&
	expect_lvm_now_active halfvg 1 "the root LV" &&
	expect_lvs_activated halfvg 1 "the root LV activated, the LV on the missing PV not" &&
	expect_log "$T/console.log" "rescue: found root UUID=$HALF_UUID on /dev/dm-0" \
		"the root found on the LV" &&
	expect_lv_root lvm-half
}

# The RAID1 LV's second PV absent: when the root wait ends, the VG is
# named with the missing PV and lvm's degraded mode runs the RAID1 LV
# on its one leg (settle(): "RAID LVs that can run without a leg"); the
# root boots.  The disk is not checked unchanged: dm-raid may record
# the missing leg in the rmeta LV it has (it did not in the runs made
# when the test was written).  On the patched and the stock kernel.
test_incomplete_vg_runs_the_raid1_lv_on_one_leg() {
	for_each_stack_kernel incomplete_vg_runs_the_raid1_lv_on_one_leg
}
incomplete_vg_runs_the_raid1_lv_on_one_leg() {
	LVM_DISKS=make_lvm_raid_disks lvm_boot \
		"root=/dev/raidvg/root rootwait=2 rd.shell=0 rd.retry=1 panic=1" virtio-blk:raid1 || return 1
	expect_lvm_degraded raidvg "$PV_RAID2" &&
	expect_lvm_now_active raidvg 1 "the RAID1 LV" &&
	expect_log "$T/console.log" "md/raid1:mdX: active with 1 out of 2 mirrors" \
		"the kernel's RAID1 running on one leg" &&
	expect_lv_found /dev/raidvg/root "on the RAID1 LV" &&
	expect_lv_booted lvm-raid
}

# ---- several VGs, parameters -----------------------------------------

# rd.lvm.vg= names the root's VG: the decoy VG, whose LV holds a clone
# of the root's filesystem (same UUID), stays inactive, so root=UUID=
# finds one device, not two.
test_rd_lvm_vg_leaves_the_decoy_vg_inactive() {
	lvm_boot "root=UUID=$ROOT_UUID rd.lvm.vg=rescue-vg" \
		virtio-blk:decoy virtio-blk:lvm-root || return 1
	expect_log "$T/console.log" \
		"rescue: lvm: /dev/vd[ab] left alone: its volume group decoyvg is not in rd.lvm.vg= or rd.lvm.lv=" \
		"the decoy VG left alone" &&
	expect_no_log "$T/console.log" "activating .*decoyvg" "the decoy VG activated" &&
	expect_lvs_activated rescue-vg 3 "the root's VG activated" &&
	expect_lv_root lvm-root
}

# rd.lvm=0: the PV is left alone, the root not found, and the device
# table shows the PV with its UUID.  On the patched and the stock kernel.
test_rd_lvm_0_leaves_the_pv_alone() {
	for_each_stack_kernel rd_lvm_0_leaves_the_pv_alone
}
rd_lvm_0_leaves_the_pv_alone() {
	lvm_boot "root=/dev/rescue-vg/root-lv rootwait=2 rd.lvm=0 rd.shell=0 rd.retry=1 panic=1" \
		virtio-blk:lvm-root || return 1
	expect_log "$T/console.log" "rescue: storage: lvm is off for this boot" \
		"the layer turned off" &&
	expect_log "$T/console.log" "rescue: storage: /dev/vda left alone: rd.lvm=0 turns lvm off" \
		"why the PV is not used" &&
	expect_log "$T/console.log" "rescue: unable to find root /dev/rescue-vg/root-lv" \
		"the root not found" &&
	expect_log "$T/console.log" "rescue: +vda .*LVM2_member.*$PV_ROOT" \
		"the PV in the device table" &&
	expect_no_log "$T/console.log" 'rescue: lvm: activating' "an activation" &&
	expect_no_root
}

# ---- read-only --------------------------------------------------------

# rescue.ro=strict: the LVs are activated read-only (lvm's own view:
# lv_attr R, at rd.break=pre-pivot in the rescue shell), lvm may write
# no metadata, and every disk is byte-identical after the boot.  lvm
# left nothing in /run (/run/lvm: hints, online files; /run/lock/lvm),
# which the real root gets.
test_strict_readonly_activates_read_only() {
	cat >"$T/steps" <<-'STEPS'
	want \(rescue\) # 
	send echo run-lvm-$(find /run -name '*lvm*' -o -name lock | wc -l)
	want run-lvm-0
	want \(rescue\) # 
	send lvm lvs --noheadings -o vg_name,lv_name,lv_attr
	want span +root +-Ri-a
	want \(rescue\) # 
	send lvm lvs --noheadings -o vg_name,lv_name,lv_attr rescue-vg/root-lv
	want rescue-vg +root-lv +-Ri-a
	send exit
	want TEST RESULT: root
	end
	STEPS
	lvm_steps "root=/dev/rescue-vg/root-lv rescue.ro=strict rd.break=pre-pivot" \
		virtio-blk:lvm-root virtio-blk:span1 nvme:span2 ||
		{ fail "the LVs are not active read-only (lv_attr R)"; return 1; }
	expect_log "$T/console.log" "rescue: lvm: volume group rescue-vg: 3 LVs activated read-only" \
		"the root's VG activated read-only" &&
	expect_log "$T/console.log" "rescue: lvm: volume group span: 1 LVs activated read-only" \
		"the other VG read-only too" &&
	expect_lv_root lvm-root
}

# ---- LUKS below LVM ---------------------------------------------------

# The Debian installer's "encrypted LVM": partition-less here, LUKS2 ->
# LVM -> ext4.  The passphrase is typed on the serial console at the
# LUKS layer's prompt; the PV inside appears as dm-0 and its VG is
# activated from there.  PBKDF2 at 1000 iterations, the cheapest, so
# that the key derivation does not dominate under TCG.  On the patched
# and the stock kernel.
test_luks2_then_lvm_then_ext4() {
	for_each_stack_kernel_and_newest luks2_then_lvm_then_ext4
}
luks2_then_lvm_then_ext4() {
	local luks_uuid
	luks_uuid=$(lvm_luks_uuid) || return 1
	cat >"$T/steps" <<-EOF
	want Passphrase for /dev/vda \\(LUKS UUID $luks_uuid\\):
	send $LUKS_PASS
	want TEST RESULT: root
	end
	EOF
	lvm_steps "root=/dev/cryptvg/root" virtio-blk:luks || return 1
	expect_log "$T/console.log" \
		"rescue: lvm: /dev/dm-0 is PV $PV_LUKS of volume group cryptvg \(UUID [A-Za-z0-9-]+\), 1 of 1 PVs there" \
		"the PV inside the LUKS container" &&
	expect_lvs_activated cryptvg 1 "its LV activated" &&
	expect_log "$T/console.log" "rescue: found root /dev/cryptvg/root on /dev/dm-1 " \
		"the root found on the LV above the container" &&
	expect_no_log "$T/console.log" "$LUKS_PASS" "the passphrase on the console" &&
	expect_lv_root luks-lvm
}

# The GRUB rescue entry (the rescue word) on the Debian "encrypted LVM":
# rescue-mount in its shell starts the storage layers as the boot does,
# asks the passphrase on the console, activates the VG inside, and
# mounts the LV (read-only, strict mode is implied); the boot then goes
# on from that mount.  On the patched and both stock kernels (6.12's
# aesni_intel refuses QEMU's CPU and must not stop the open).
test_rescue_mount_in_the_rescue_shell_opens_luks_then_lvm() {
	for_each_stack_kernel_and_newest rescue_mount_opens_luks_then_lvm
}
rescue_mount_opens_luks_then_lvm() {
	local luks_uuid
	luks_uuid=$(lvm_luks_uuid) || return 1
	cat >"$T/steps" <<-EOF
	want \\(rescue\\) # 
	send rescue-mount
	want Passphrase for /dev/vda \\(LUKS UUID $luks_uuid\\):
	send $LUKS_PASS
	want rescue-mount: mounted /dev/dm-1 \\(ext4, ro\\) on /newroot
	send exit
	want TEST RESULT: root
	end
	EOF
	lvm_steps "root=/dev/cryptvg/root rescue" virtio-blk:luks || return 1
	expect_no_log "$T/console.log" "turns luks off" "a layer said to be off" &&
	# PID 1's kernel line about the VG can land right after these, before
	# the newline: each ends at "read-only" or at a printk stamp.
	expect_log "$T/console.log" \
		"^rescue-mount: luks: opened /dev/vda \(LUKS2, UUID $luks_uuid\) as dm-0 \(/dev/mapper/luks-$luks_uuid\), read-only(\[ *[0-9]+\.[0-9]+\].*)?$" \
		"the container opened read-only by rescue-mount" &&
	expect_log "$T/console.log" "^rescue-mount: lvm: volume group cryptvg: 1 LVs activated read-only(\[ *[0-9]+\.[0-9]+\].*)?$" \
		"its VG activated by rescue-mount" &&
	expect_log "$T/console.log" "rescue: using the root already mounted on /newroot: /dev/dm-1 \(ext4, ro\)" \
		"the boot going on from rescue-mount's mount" &&
	expect_no_log "$T/console.log" "$LUKS_PASS" "the passphrase on the console" &&
	expect_lv_root luks-lvm
}

# A dd copy of the PV's disk (one PV UUID on two disks): the VG is not
# activated from either, one line names both, and nothing boots; which
# copy would be used must not depend on the probe order.
test_cloned_pv_activates_neither_copy() {
	make_lvm_disks || return 1
	cp --sparse=always "$T/lvm-root.img" "$T/lvm-copy.img"
	lvm_boot "root=/dev/rescue-vg/root-lv rootwait=3 rd.shell=0 rd.retry=1 panic=1" \
		virtio-blk:lvm-root virtio-blk:lvm-copy || return 1
	expect_log "$T/console.log" \
		"rescue: lvm: /dev/vda and /dev/vdb are one PV $PV_ROOT of volume group rescue-vg \(a copy of one disk\?\): the volume group is not activated" \
		"the clash naming both disks" &&
	expect_log "$T/console.log" "rescue: lvm VG rescue-vg \(UUID [A-Za-z0-9-]+\): .*; not activated: a PV UUID on two devices$" \
		"the VG's line in the device table" &&
	expect_no_log "$T/console.log" "rescue: lvm: volume group rescue-vg: [0-9]+ LVs activated" \
		"the VG activated from one of the copies" &&
	expect_log "$T/console.log" "rescue: unable to find root /dev/rescue-vg/root-lv" \
		"the root not found" &&
	expect_no_root
}

# ---- dracut -----------------------------------------------------------

# The dracut image of tests/lib/dracut-lib.sh (dracut --no-hostonly --add
# "devtmpfs-rescue crypt lvm mdraid btrfs", the modules rescue-init
# cannot stand in for omitted) on the stock kernel: the module accepts
# dracut's lvm, ships lvm with the lvm.conf of mkrescue (no udev, no
# hints, no AIO, no D-Bus), and rescue-init activates the VG of the root.
test_dracut_add_devtmpfs_rescue_lvm_boots_the_lv_root() {
	local img
	make_lvm_disks || return 1
	img=$(dracut_rescue_image) || return 1
	expect_log "${img%/*}/dracut.log" 'devtmpfs-rescue: storage layers rescue-init stands in for:[^(]* lvm ' \
		"the module saying rescue-init stands in for lvm" || return 1
	# the settings of mkrescue's lvm.conf, line for line (not its comment)
	"$BUILD/mkrescue" --init "$RESCUE_INIT" --storage -o "$T/mkrescue.img" 2>"$T/mkrescue.err" ||
		{ fail "mkrescue --storage failed:" "$(cat "$T/mkrescue.err")"; return 1; }
	lsinitrd -f etc/lvm/lvm.conf "$T/mkrescue.img" | grep -v '^#' >"$T/lvm.conf.mkrescue"
	lsinitrd -f etc/lvm/lvm.conf "$img" | grep -v '^#' >"$T/lvm.conf"
	grep -q 'udev_rules = 0' "$T/lvm.conf.mkrescue" ||
		{ fail "no lvm.conf in mkrescue's image:" "$(cat "$T/lvm.conf.mkrescue")"; return 1; }
	diff -u "$T/lvm.conf.mkrescue" "$T/lvm.conf" >"$T/lvm.conf.diff" ||
		{ fail "the dracut image's lvm.conf is not mkrescue's:" "$(cat "$T/lvm.conf.diff")"; return 1; }
	as_dracut lvm_boot "root=/dev/rescue-vg/root-lv" virtio-blk:lvm-root || return 1
	expect_lvs_activated rescue-vg 3 "the VG activated by rescue-init" &&
	expect_no_log "$T/console.log" 'udevd|udevadm|systemd\[1\]' "udev or systemd running" &&
	expect_lv_root lvm-root
}
