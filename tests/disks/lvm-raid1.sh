#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/disks/lvm-raid1.sh OUT: raid1.img and raid2.img, PVs $PV_RAID1
# and $PV_RAID2 of VG raidvg: LV root, lvcreate --type raid1 -m1 over
# both (ext4 $RAID_UUID, marker lvm-raid), in sync, which rescue-init
# leaves to lvm.
# Made by the helper VM; run by `disk lvm-raid1 PV_RAID1 PV_RAID2
# RAID_UUID` (tests/lib/disks.sh), which passes those ids in the
# environment and caches OUT.
. "$(dirname "$0")/../lib/disk-script.sh"

# shellcheck disable=SC2016 # the LINEs of disk_lvm are the guest's shell's
disk_ext4 "$T/src-raid.img" 24 "$RAID_UUID" lvm-raid &&
disk_lvm raidvg "dm_raid raid1" "$T/src-raid.img" PV_RAID1:raid1.img:40 PV_RAID2:raid2.img:44 -- \
	'lvm lvcreate -q -y --type raid1 -m1 -n root -L 24M raidvg' \
	'dd if=$S of=/dev/raidvg/root bs=1M 2>/dev/null && echo raid-copied' \
	"i=0; until lvm lvs --noheadings -o sync_percent raidvg/root | grep -q '100\.00' || [ \$i = 120 ]; do sleep 1; i=\$((i + 1)); done" \
	"lvm lvs --noheadings -o sync_percent raidvg/root | grep -q '100\.00' && echo raid-in-sync" || exit 1
disk_expect_lines raid-copied raid-in-sync
