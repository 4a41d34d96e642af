#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/disks/btrfs-pair.sh OUT: b1.img and b2.img, a two-device btrfs,
# data and metadata raid1, UUID $BTRFS_UUID, an init marked btrfs-top
# at its top and one marked btrfs-subvol in the subvolume "root".
# Debian 12's mkfs.btrfs takes --rootdir for one device only and has no
# --subvol: the helper VM, with tests/fixtures/btrfs-subvol.c built in,
# fills it.  Run by `disk btrfs-pair BTRFS_UUID` (tests/lib/disks.sh).
. "$(dirname "$0")/../lib/disk-script.sh"

make_root_dir "$T/src" btrfs-top
truncate -s 64M "$T/src.img" &&
mkfs.btrfs -q -f -L src --rootdir "$T/src" "$T/src.img" >/dev/null &&
truncate -s 128M "$OUT/b1.img" "$OUT/b2.img" &&
mkfs.btrfs -q -f -U "$BTRFS_UUID" -L broot -d raid1 -m raid1 \
	"$OUT/b1.img" "$OUT/b2.img" >/dev/null ||
	{ fail "mkfs.btrfs failed"; exit 1; }
gcc -std=gnu11 -Wall -Wextra -Werror -static -s -o "$T/btrfs-subvol" \
	"$TOP/tests/fixtures/btrfs-subvol.c" || { fail "unable to build btrfs-subvol"; exit 1; }
helper_image "$T/helper.img" --add-module btrfs \
	--include "$T/btrfs-subvol:/bin/btrfs-subvol" || exit 1
cat >"$T/helper.cmds" <<'CMDS'
modprobe btrfs; mkdir -p /mnt /src
mount -t btrfs -o ro /dev/vdc /src
mount -t btrfs -o device=/dev/vdb /dev/vda /mnt
cp -a /src/. /mnt/
btrfs-subvol /mnt root
cp -a /src/. /mnt/root/
echo btrfs-subvol >/mnt/root/marker
umount /src && umount /mnt && echo layout-done-$((6 * 7))
CMDS
helper_vm "$T/helper.log" "${DISK_VM_TIMEOUT:-240}" "$T/helper.img" "$T/helper.cmds" "" \
	"$OUT/b1.img" "$OUT/b2.img" "$T/src.img"
