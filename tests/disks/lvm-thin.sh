#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/disks/lvm-thin.sh OUT: thin.img, PV $PV_THIN of VG thinvg: a
# thin pool "pool" and in it the thin LV root (ext4 $THIN_UUID, marker
# lvm-thin), which rescue-init leaves to lvm.
# Made by the helper VM; run by `disk lvm-thin PV_THIN THIN_UUID`
# (tests/lib/disks.sh), which passes those ids in the environment and
# caches OUT.
. "$(dirname "$0")/../lib/disk-script.sh"

# shellcheck disable=SC2016 # the LINEs of disk_lvm are the guest's shell's
disk_ext4 "$T/src-thin.img" 24 "$THIN_UUID" lvm-thin &&
disk_lvm thinvg dm_thin_pool "$T/src-thin.img" PV_THIN:thin.img:64 -- \
	'lvm lvcreate -q -y --type thin-pool -n pool -L 32M thinvg' \
	'lvm lvcreate -q -y --type thin -n root -V 24M --thinpool pool thinvg' \
	'dd if=$S of=/dev/thinvg/root bs=1M 2>/dev/null && echo thin-copied' || exit 1
disk_expect_lines thin-copied
