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

disk_ext4 "$T/src-raid.img" 24 "$RAID_UUID" lvm-raid &&
blank_disk "$OUT/raid1.img" 40 && blank_disk "$OUT/raid2.img" 44 || exit 1
# the kernel may name the disks in any order: by their sizes
cat >"$T/helper.cmds" <<-CMDS
modprobe dm_mod; modprobe dm_raid; modprobe raid1; export LVM_SUPPRESS_FD_WARNINGS=1
for d in vda vdb vdc; do case \$(cat /sys/block/\$d/size) in 81920) A=/dev/\$d;; 90112) B=/dev/\$d;; 49152) S=/dev/\$d;; esac; done; echo "pvs \$A \$B src \$S"
lvm pvcreate -q --norestorefile -u $PV_RAID1 \$A && lvm pvcreate -q --norestorefile -u $PV_RAID2 \$B && lvm vgcreate -q raidvg \$A \$B
lvm lvcreate -q -y --type raid1 -m1 -n root -L 24M raidvg
dd if=\$S of=/dev/raidvg/root bs=1M 2>/dev/null && echo raid-copied
i=0; until lvm lvs --noheadings -o sync_percent raidvg/root | grep -q '100\.00' || [ \$i = 120 ]; do sleep 1; i=\$((i + 1)); done
lvm lvs --noheadings -o sync_percent raidvg/root | grep -q '100\.00' && echo raid-in-sync
lvm vgchange -q -an raidvg && sync
lvm lvs -a -o lv_name,segtype,devices raidvg
[ -e /dev/mapper/raidvg-root ] || echo layout-done-\$((6 * 7))
CMDS
disk_helper "$T/helper.cmds" "$OUT/raid1.img" \
	"$OUT/raid2.img" "$T/src-raid.img" || exit 1
disk_expect_lines raid-copied raid-in-sync
