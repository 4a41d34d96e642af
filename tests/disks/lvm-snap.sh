#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/disks/lvm-snap.sh OUT: snap.img, PV $PV_SNAP of VG snapvg: LV
# root (ext4 $SNAP_UUID, marker lvm-snap) and snap, a snapshot of it: an
# origin and its snapshot, which rescue-init leaves to lvm.  Cached
# apart from make_lvm_disks.
# Made by the helper VM; run by `disk lvm-snap PV_SNAP SNAP_UUID`
# (tests/lib/disks.sh), which passes those ids in the environment and
# caches OUT.
. "$(dirname "$0")/../lib/disk-script.sh"

# shellcheck disable=SC2016 # the LINEs of disk_lvm are the guest's shell's
disk_ext4 "$T/src-snap.img" 24 "$SNAP_UUID" lvm-snap &&
disk_lvm snapvg dm_snapshot "$T/src-snap.img" PV_SNAP:snap.img:48 -- \
	'lvm lvcreate -q -y -n root -L 24M snapvg' \
	'dd if=$S of=/dev/snapvg/root bs=1M 2>/dev/null && echo snap-copied' \
	'lvm lvcreate -q -y -s -n snap -L 8M snapvg/root && echo snap-made' || exit 1
disk_expect_lines snap-copied snap-made
