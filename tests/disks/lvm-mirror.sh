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

disk_ext4 "$T/src-mirror.img" 24 "$MIRROR_UUID" lvm-mirror &&
blank_disk "$OUT/mirror1.img" 40 && blank_disk "$OUT/mirror2.img" 44 || exit 1
# the kernel may name the disks in any order: by their sizes
cat >"$T/helper.cmds" <<-CMDS
modprobe dm_mod; modprobe dm_mirror; export LVM_SUPPRESS_FD_WARNINGS=1
for d in vda vdb vdc; do case \$(cat /sys/block/\$d/size) in 81920) A=/dev/\$d;; 90112) B=/dev/\$d;; 49152) S=/dev/\$d;; esac; done; echo "pvs \$A \$B src \$S"
lvm pvcreate -q --norestorefile -u $PV_MIRROR1 \$A && lvm pvcreate -q --norestorefile -u $PV_MIRROR2 \$B && lvm vgcreate -q mirrorvg \$A \$B
lvm lvcreate -q -y --type mirror -m1 --mirrorlog core -n root -L 24M mirrorvg
i=0; until lvm lvs --noheadings -o copy_percent mirrorvg/root | grep -q '100\.00' || [ \$i = 120 ]; do sleep 1; i=\$((i + 1)); done
dd if=\$S of=/dev/mirrorvg/root bs=1M conv=fsync 2>/dev/null && echo mirror-copied
lvm lvs --noheadings -o copy_percent mirrorvg/root | grep -q '100\.00' && echo mirror-in-sync
lvm vgchange -q -an mirrorvg && sync
lvm lvs -a -o lv_name,segtype,devices mirrorvg
[ -e /dev/mapper/mirrorvg-root ] || echo layout-done-\$((6 * 7))
CMDS
disk_helper "$T/helper.cmds" "$OUT/mirror1.img" \
	"$OUT/mirror2.img" "$T/src-mirror.img" || exit 1
disk_expect_lines mirror-copied mirror-in-sync
