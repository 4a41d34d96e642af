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

disk_ext4 "$T/src-snap.img" 24 "$SNAP_UUID" lvm-snap &&
blank_disk "$OUT/snap.img" 48 || exit 1
# the kernel may name the two disks either way: by their sizes
cat >"$T/helper.cmds" <<-CMDS
modprobe dm_mod; modprobe dm_snapshot; export LVM_SUPPRESS_FD_WARNINGS=1
for d in vda vdb; do case \$(cat /sys/block/\$d/size) in 98304) P=/dev/\$d;; 49152) S=/dev/\$d;; esac; done; echo "pv \$P src \$S"
lvm pvcreate -q --norestorefile -u $PV_SNAP \$P && lvm vgcreate -q snapvg \$P && lvm lvcreate -q -y -n root -L 24M snapvg
dd if=\$S of=/dev/snapvg/root bs=1M 2>/dev/null && echo snap-copied
lvm lvcreate -q -y -s -n snap -L 8M snapvg/root && lvm vgchange -q -an snapvg && sync
lvm lvs -a -o lv_name,segtype,origin snapvg
[ -e /dev/mapper/snapvg-root ] || echo layout-done-\$((6 * 7))
CMDS
disk_helper "$T/helper.cmds" "$OUT/snap.img" \
	"$T/src-snap.img" || exit 1
disk_expect_lines snap-copied
