#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/disks/lvm.sh OUT: the disks most lvm tests pick from, in OUT:
#   lvm-root.img  PV $PV_ROOT of VG rescue-vg: LVs root-lv (ext4
#                 $ROOT_UUID, marker lvm-root), home, var
#   span1.img, span2.img  PVs $PV_SPAN1, $PV_SPAN2 of VG span: LV root
#                 over both (ext4 $SPAN_UUID, marker lvm-span)
#   decoy.img     PV $PV_DECOY of VG decoyvg: LV root, a clone of the
#                 root's filesystem (ext4 $ROOT_UUID, marker decoy)
#   luks.img      LUKS2 (passphrase $LUKS_PASS, minimum PBKDF cost), in
#                 it PV $PV_LUKS of VG cryptvg: LV root (ext4
#                 $LUKS_LVM_UUID, marker luks-lvm), as the Debian
#                 installer's "encrypted LVM"
# Made by the helper VM; run by `disk lvm ROOT_UUID SPAN_UUID
# LUKS_LVM_UUID PV_ROOT PV_SPAN1 PV_SPAN2 PV_DECOY PV_LUKS LUKS_PASS`
# (tests/lib/disks.sh), which passes those ids in the environment and
# caches OUT.
. "$(dirname "$0")/../lib/disk-script.sh"

disk_ext4 "$T/src-root.img" 24 "$ROOT_UUID" lvm-root &&
disk_ext4 "$T/src-span.img" 40 "$SPAN_UUID" lvm-span &&
disk_ext4 "$T/src-decoy.img" 24 "$ROOT_UUID" decoy &&
disk_ext4 "$T/src-luks.img" 24 "$LUKS_LVM_UUID" luks-lvm || exit 1
for f in lvm-root:64 span1:32 span2:32 decoy:32 luks:48; do
	blank_disk "$OUT/${f%:*}.img" "${f#*:}"
done
# vda..vde the disks, vdf..vdi the filesystems to copy
cat >"$T/helper.cmds" <<-CMDS
modprobe dm_mod; modprobe dm_crypt; export LVM_SUPPRESS_FD_WARNINGS=1
lvm pvcreate -q --norestorefile -u $PV_ROOT /dev/vda && lvm vgcreate -q rescue-vg /dev/vda
lvm lvcreate -q -y -n root-lv -L 24M rescue-vg && lvm lvcreate -q -y -n home -L 8M rescue-vg && lvm lvcreate -q -y -n var -L 8M rescue-vg
dd if=/dev/vdf of=/dev/rescue-vg/root-lv bs=1M 2>/dev/null && echo root-copied
lvm pvcreate -q --norestorefile -u $PV_SPAN1 /dev/vdb && lvm pvcreate -q --norestorefile -u $PV_SPAN2 /dev/vdc
lvm vgcreate -q span /dev/vdb /dev/vdc && lvm lvcreate -q -y -n root -L 40M span
dd if=/dev/vdg of=/dev/span/root bs=1M 2>/dev/null && echo span-copied
lvm pvcreate -q --norestorefile -u $PV_DECOY /dev/vdd && lvm vgcreate -q decoyvg /dev/vdd
lvm lvcreate -q -y -n root -L 24M decoyvg && dd if=/dev/vdh of=/dev/decoyvg/root bs=1M 2>/dev/null && echo decoy-copied
echo -n $LUKS_PASS | cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 --key-file - /dev/vde
echo -n $LUKS_PASS | cryptsetup open --key-file - /dev/vde crypt && lvm pvcreate -q --norestorefile -u $PV_LUKS /dev/mapper/crypt
lvm vgcreate -q cryptvg /dev/mapper/crypt && lvm lvcreate -q -y -n root -L 24M cryptvg
dd if=/dev/vdi of=/dev/cryptvg/root bs=1M 2>/dev/null && echo luks-copied
lvm vgchange -q -an rescue-vg span decoyvg cryptvg && cryptsetup close crypt && sync
lvm pvs -o pv_name,pv_uuid,vg_name; lvm lvs
[ -e /dev/mapper/crypt ] || echo layout-done-\$((6 * 7))
CMDS
disk_helper "$T/helper.cmds" "$OUT/lvm-root.img" \
	"$OUT/span1.img" "$OUT/span2.img" "$OUT/decoy.img" "$OUT/luks.img" \
	"$T/src-root.img" "$T/src-span.img" "$T/src-decoy.img" \
	"$T/src-luks.img" || exit 1
disk_expect_lines root-copied span-copied decoy-copied luks-copied
