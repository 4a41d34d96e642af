#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/disks/lvm-thin.sh OUT: thin.img, PV $PV_THIN of VG thinvg: a
# thin pool "pool" and in it the thin LV root (ext4 $THIN_UUID, marker
# lvm-thin), which rescue-init leaves to lvm.
# Made by the helper VM; run by `disk lvm-thin PV_THIN THIN_UUID`
# (tests/lib/disks.sh), which passes those ids in the environment and
# caches OUT.
. "$(dirname "$0")/../lib/disk-script.sh"

disk_ext4 "$T/src-thin.img" 24 "$THIN_UUID" lvm-thin &&
blank_disk "$OUT/thin.img" 64 || exit 1
# the kernel may name the two disks either way: by their sizes
cat >"$T/helper.cmds" <<-CMDS
modprobe dm_mod; modprobe dm_thin_pool; export LVM_SUPPRESS_FD_WARNINGS=1
for d in vda vdb; do case \$(cat /sys/block/\$d/size) in 131072) P=/dev/\$d;; 49152) S=/dev/\$d;; esac; done; echo "pv \$P src \$S"
lvm pvcreate -q --norestorefile -u $PV_THIN \$P && lvm vgcreate -q thinvg \$P && lvm lvcreate -q -y --type thin-pool -n pool -L 32M thinvg
lvm lvcreate -q -y --type thin -n root -V 24M --thinpool pool thinvg
dd if=\$S of=/dev/thinvg/root bs=1M 2>/dev/null && echo thin-copied
lvm vgchange -q -an thinvg && sync
lvm lvs -a -o lv_name,segtype,pool_lv thinvg
[ -e /dev/mapper/thinvg-root ] || echo layout-done-\$((6 * 7))
CMDS
disk_helper "$T/helper.cmds" "$OUT/thin.img" \
	"$T/src-thin.img" || exit 1
disk_expect_lines thin-copied
