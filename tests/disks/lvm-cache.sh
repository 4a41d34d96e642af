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

# shellcheck disable=SC2016 # the LINEs of disk_lvm are the guest's shell's
disk_ext4 "$T/src-cache.img" 24 "$CACHE_UUID" lvm-cache &&
disk_lvm cachevg "dm_cache dm_cache_smq" "$T/src-cache.img" PV_CACHE1:cache1.img:40 PV_CACHE2:cache2.img:32 -- \
	'lvm lvcreate -q -y -n root -L 24M cachevg $A && lvm lvcreate -q -y --type cache-pool -n cpool -L 8M cachevg $B' \
	'lvm lvconvert -q -y --type cache --cachemode writethrough --cachepool cachevg/cpool cachevg/root && echo cache-attached' \
	'dd if=$S of=/dev/cachevg/root bs=1M conv=fsync 2>/dev/null && echo cache-copied' || exit 1
disk_expect_lines cache-attached cache-copied
