#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/disks/integrity.sh OUT: d.img, a 48 MiB dm-integrity device
# (journal mode, crc32c tags: integritysetup's defaults) holding the
# 24 MiB ext4 root $ROOT_UUID, marked integrity-root.  dm-integrity
# interleaves its data with their tags, so only the kernel can write it:
# the helper VM formats it and copies the ext4 in.  Run by
# `disk integrity ROOT_UUID` (tests/lib/disks.sh).
. "$(dirname "$0")/../lib/disk-script.sh"

disk_ext4 "$T/src.img" 24 "$ROOT_UUID" integrity-root &&
blank_disk "$OUT/d.img" 48 || exit 1
helper_image "$T/helper.img" --add-module dm_integrity || exit 1
# vda the device, vdb the filesystem to copy into it
cat >"$T/helper.cmds" <<'CMDS'
modprobe dm_mod; modprobe dm_integrity
integritysetup format -q --batch-mode /dev/vda && integritysetup open /dev/vda i0
dd if=/dev/vdb of=/dev/mapper/i0 bs=1M 2>/dev/null && echo integrity-copied
integritysetup close i0 && sync
[ -e /dev/mapper/i0 ] || echo layout-done-$((6 * 7))
CMDS
helper_vm "$T/helper.log" "${DISK_VM_TIMEOUT:-240}" "$T/helper.img" "$T/helper.cmds" \
	"rd.integrity=0" "$OUT/d.img" "$T/src.img" &&
disk_expect_lines integrity-copied &&
blkid -p "$OUT/d.img" | grep -q 'TYPE="DM_integrity"' ||
	{ fail "blkid does not see d.img as dm-integrity: $(blkid -p "$OUT/d.img")"; exit 1; }
