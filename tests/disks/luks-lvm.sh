#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/disks/luks-lvm.sh OUT: two 48 MiB LUKS2 containers (passphrase
# $STACK_PASS, PBKDF2 at 1000 iterations: the boot is timed, not the key
# derivation), each holding a PV, its VG and an LV "root" with an ext4
# report root, as the Debian installer's "encrypted LVM":
#   deb.img  LUKS $DEB_LUKS_UUID, PV $PV_DEB, VG debvg (LVs root, swap),
#            ext4 $DEB_ROOT_UUID, marker luks-lvm
#   mdl.img  LUKS $MDL_LUKS_UUID, PV $PV_MDL, VG mdvg (LV root), ext4
#            $MDL_ROOT_UUID, marker md-luks-lvm: the data area of the
#            RAID1 of tests/groups/stacked.sh's make_md_luks_lvm
# LVM needs the kernel's dm: the helper VM makes them.  Run by `disk
# luks-lvm DEB_LUKS_UUID DEB_ROOT_UUID MDL_LUKS_UUID MDL_ROOT_UUID PV_DEB
# PV_MDL STACK_PASS` (tests/lib/disks.sh).
. "$(dirname "$0")/../lib/disk-script.sh"

make_root_dir "$T/tree-deb" luks-lvm
make_ext4 "$T/tree-deb" "$T/src-deb.img" 24 "$DEB_ROOT_UUID" deb-root &&
make_root_dir "$T/tree-mdl" md-luks-lvm
make_ext4 "$T/tree-mdl" "$T/src-mdl.img" 24 "$MDL_ROOT_UUID" mdl-root || exit 1
blank_disk "$OUT/deb.img" 48
blank_disk "$OUT/mdl.img" 48
# vda, vdb the containers; vdc, vdd the filesystems to copy
cat >"$T/helper.cmds" <<CMDS
modprobe dm_mod; modprobe dm_crypt; export LVM_SUPPRESS_FD_WARNINGS=1
echo -n $STACK_PASS | cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 --uuid $DEB_LUKS_UUID --key-file - /dev/vda
echo -n $STACK_PASS | cryptsetup open --key-file - /dev/vda c0 && lvm pvcreate -q --norestorefile -u $PV_DEB /dev/mapper/c0
lvm vgcreate -q debvg /dev/mapper/c0 && lvm lvcreate -q -y -n root -L 24M debvg && lvm lvcreate -q -y -n swap -L 4M debvg
dd if=/dev/vdc of=/dev/debvg/root bs=1M 2>/dev/null && echo deb-copied
echo -n $STACK_PASS | cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 --uuid $MDL_LUKS_UUID --key-file - /dev/vdb
echo -n $STACK_PASS | cryptsetup open --key-file - /dev/vdb c1 && lvm pvcreate -q --norestorefile -u $PV_MDL /dev/mapper/c1
lvm vgcreate -q mdvg /dev/mapper/c1 && lvm lvcreate -q -y -n root -L 24M mdvg
dd if=/dev/vdd of=/dev/mdvg/root bs=1M 2>/dev/null && echo mdl-copied
lvm vgchange -q -an debvg mdvg && cryptsetup close c0 && cryptsetup close c1 && sync
lvm pvs -o pv_name,pv_uuid,vg_name; lvm lvs
[ -e /dev/mapper/c0 ] || [ -e /dev/mapper/c1 ] || echo layout-done-\$((6 * 7))
CMDS
helper_image "$T/helper.img" --add-module dm_crypt || exit 1
helper_vm "$T/helper.log" "${DISK_VM_TIMEOUT:-240}" "$T/helper.img" "$T/helper.cmds" \
	"rd.lvm=0 rd.luks=0 rd.md=0" "$OUT/deb.img" "$OUT/mdl.img" \
	"$T/src-deb.img" "$T/src-mdl.img" || exit 1
disk_expect_lines deb-copied mdl-copied
