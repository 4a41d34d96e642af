#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/disks/lvm-mirror.sh OUT: mirror1.img and mirror2.img, PVs
# $PV_MIRROR1 and $PV_MIRROR2 of VG mirrorvg: LV root, an old-style
# lvcreate --type mirror -m1 --mirrorlog core over both (ext4
# $MIRROR_UUID, marker lvm-mirror), in sync, which rescue-init leaves to
# lvm.
# Made by the helper VM; run by `disk lvm-mirror PV_MIRROR1 PV_MIRROR2
# MIRROR_UUID` (tests/lib/disks.sh), which passes those ids in the
# environment and caches OUT.
. "$(dirname "$0")/../lib/disk-script.sh"

# shellcheck disable=SC2016 # the LINEs of disk_lvm are the guest's shell's
disk_ext4 "$T/src-mirror.img" 24 "$MIRROR_UUID" lvm-mirror &&
disk_lvm mirrorvg dm_mirror "$T/src-mirror.img" PV_MIRROR1:mirror1.img:40 PV_MIRROR2:mirror2.img:44 -- \
	'lvm lvcreate -q -y --type mirror -m1 --mirrorlog core -n root -L 24M mirrorvg' \
	"i=0; until lvm lvs --noheadings -o copy_percent mirrorvg/root | grep -q '100\.00' || [ \$i = 120 ]; do sleep 1; i=\$((i + 1)); done" \
	'dd if=$S of=/dev/mirrorvg/root bs=1M conv=fsync 2>/dev/null && echo mirror-copied' \
	"lvm lvs --noheadings -o copy_percent mirrorvg/root | grep -q '100\.00' && echo mirror-in-sync" || exit 1
disk_expect_lines mirror-copied mirror-in-sync
