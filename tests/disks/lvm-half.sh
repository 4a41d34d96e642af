#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/disks/lvm-half.sh OUT: half1.img and half2.img, PVs $PV_HALF1
# and $PV_HALF2 of VG halfvg: LV root on half1 alone (ext4 $HALF_UUID,
# marker lvm-half), LV data on half2 alone: a VG whose root can run
# without its second PV.
# Made by the helper VM; run by `disk lvm-half PV_HALF1 PV_HALF2
# HALF_UUID` (tests/lib/disks.sh), which passes those ids in the
# environment and caches OUT.
. "$(dirname "$0")/../lib/disk-script.sh"

disk_ext4 "$T/src-half.img" 24 "$HALF_UUID" lvm-half &&
blank_disk "$OUT/half1.img" 48 && blank_disk "$OUT/half2.img" 32 || exit 1
# the kernel may name the disks in any order: by their sizes
cat >"$T/helper.cmds" <<-CMDS
modprobe dm_mod; export LVM_SUPPRESS_FD_WARNINGS=1
for d in vda vdb vdc; do case \$(cat /sys/block/\$d/size) in 98304) A=/dev/\$d;; 65536) B=/dev/\$d;; 49152) S=/dev/\$d;; esac; done; echo "pvs \$A \$B src \$S"
lvm pvcreate -q --norestorefile -u $PV_HALF1 \$A && lvm pvcreate -q --norestorefile -u $PV_HALF2 \$B && lvm vgcreate -q halfvg \$A \$B
lvm lvcreate -q -y -n root -L 24M halfvg \$A && lvm lvcreate -q -y -n data -L 8M halfvg \$B
dd if=\$S of=/dev/halfvg/root bs=1M 2>/dev/null && echo half-copied
lvm vgchange -q -an halfvg && sync
lvm lvs -a -o lv_name,devices halfvg
[ -e /dev/mapper/halfvg-root ] || echo layout-done-\$((6 * 7))
CMDS
disk_helper "$T/helper.cmds" "$OUT/half1.img" \
	"$OUT/half2.img" "$T/src-half.img" || exit 1
disk_expect_lines half-copied
