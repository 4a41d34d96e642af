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

# shellcheck disable=SC2016 # the LINEs of disk_lvm are the guest's shell's
disk_ext4 "$T/src-half.img" 24 "$HALF_UUID" lvm-half &&
disk_lvm halfvg "" "$T/src-half.img" PV_HALF1:half1.img:48 PV_HALF2:half2.img:32 -- \
	'lvm lvcreate -q -y -n root -L 24M halfvg $A && lvm lvcreate -q -y -n data -L 8M halfvg $B' \
	'dd if=$S of=/dev/halfvg/root bs=1M 2>/dev/null && echo half-copied' || exit 1
disk_expect_lines half-copied
