#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/disks/lvm-cache.sh OUT: cache1.img and cache2.img, PVs
# $PV_CACHE1 and $PV_CACHE2 of VG cachevg: LV root on cache1 (ext4
# $CACHE_UUID, marker lvm-cache), cached (lvconvert --type cache
# --cachepool, writethrough) by the cache pool cpool on cache2, which
# rescue-init leaves to lvm.
# Made by the helper VM; run by `disk lvm-cache PV_CACHE1 PV_CACHE2
# CACHE_UUID` (tests/lib/disks.sh), which passes those ids in the
# environment and caches OUT.
. "$(dirname "$0")/../lib/disk-script.sh"

disk_ext4 "$T/src-cache.img" 24 "$CACHE_UUID" lvm-cache &&
blank_disk "$OUT/cache1.img" 40 && blank_disk "$OUT/cache2.img" 32 || exit 1
# the kernel may name the disks in any order: by their sizes
cat >"$T/helper.cmds" <<-CMDS
modprobe dm_mod; modprobe dm_cache; modprobe dm_cache_smq; export LVM_SUPPRESS_FD_WARNINGS=1
for d in vda vdb vdc; do case \$(cat /sys/block/\$d/size) in 81920) A=/dev/\$d;; 65536) B=/dev/\$d;; 49152) S=/dev/\$d;; esac; done; echo "pvs \$A \$B src \$S"
lvm pvcreate -q --norestorefile -u $PV_CACHE1 \$A && lvm pvcreate -q --norestorefile -u $PV_CACHE2 \$B && lvm vgcreate -q cachevg \$A \$B
lvm lvcreate -q -y -n root -L 24M cachevg \$A && lvm lvcreate -q -y --type cache-pool -n cpool -L 8M cachevg \$B
lvm lvconvert -q -y --type cache --cachemode writethrough --cachepool cachevg/cpool cachevg/root && echo cache-attached
dd if=\$S of=/dev/cachevg/root bs=1M conv=fsync 2>/dev/null && echo cache-copied
lvm vgchange -q -an cachevg && sync
lvm lvs -a -o lv_name,segtype,pool_lv,devices cachevg
[ -e /dev/mapper/cachevg-root ] || echo layout-done-\$((6 * 7))
CMDS
disk_helper "$T/helper.cmds" "$OUT/cache1.img" \
	"$OUT/cache2.img" "$T/src-cache.img" || exit 1
disk_expect_lines cache-attached cache-copied
