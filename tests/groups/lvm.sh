# SPDX-License-Identifier: GPL-2.0
# tests/groups/lvm.sh: roots on LVM2 logical volumes that rescue-init activates
# (storage-lvm.c), on the Debian stock kernel with an image of mkrescue
# -k, and the root on an LV and the Debian layout (LUKS2 -> LVM) on the
# patched kernel too (tests/lib/stacked-lib.sh).  The volume groups are
# made inside a helper VM (the stock kernel with mkrescue's image and
# its lvm), never with this machine's device-mapper; the filesystems
# are made here by mke2fs -d and copied into their LVs there.  Cached
# under $BUILD/tests/lvm.cache.

. "$TOP/tests/lib/rescue-lib.sh"
. "$TOP/tests/lib/stacked-lib.sh"
. "$TOP/tests/lib/dracut-lib.sh"
. "$TOP/tests/lib/helper-vm.sh"

LVM_VM_TIMEOUT=${LVM_VM_TIMEOUT:-240}
SPAN_UUID=3c0d8a52-7e41-4f0b-9a6d-2b1e5f7c9015
LUKS_LVM_UUID=3c0d8a52-7e41-4f0b-9a6d-2b1e5f7c9016
# PV UUIDs (lvm's 6-4-4-4-4-4-6), fixed so a test can name a missing one.
PV_ROOT=Rescue-PV00-0000-0000-0000-0000-rootpv
PV_SPAN1=Rescue-PV00-0000-0000-0000-0001-span01
PV_SPAN2=Rescue-PV00-0000-0000-0000-0002-span02
PV_DECOY=Rescue-PV00-0000-0000-0000-0003-decoy0
PV_LUKS=Rescue-PV00-0000-0000-0000-0004-luksp0
SNAP_UUID=3c0d8a52-7e41-4f0b-9a6d-2b1e5f7c9017
PV_SNAP=Rescue-PV00-0000-0000-0000-0005-snapp0
THIN_UUID=3c0d8a52-7e41-4f0b-9a6d-2b1e5f7c9018
PV_THIN=Rescue-PV00-0000-0000-0000-0006-thinp0
RAID_UUID=3c0d8a52-7e41-4f0b-9a6d-2b1e5f7c9019
PV_RAID1=Rescue-PV00-0000-0000-0000-0007-raid01
PV_RAID2=Rescue-PV00-0000-0000-0000-0008-raid02
HALF_UUID=3c0d8a52-7e41-4f0b-9a6d-2b1e5f7c9020
PV_HALF1=Rescue-PV00-0000-0000-0000-0009-half01
PV_HALF2=Rescue-PV00-0000-0000-0000-0010-half02
MIRROR_UUID=3c0d8a52-7e41-4f0b-9a6d-2b1e5f7c9021
PV_MIRROR1=Rescue-PV00-0000-0000-0000-0011-mirr01
PV_MIRROR2=Rescue-PV00-0000-0000-0000-0012-mirr02
CACHE_UUID=3c0d8a52-7e41-4f0b-9a6d-2b1e5f7c9022
PV_CACHE1=Rescue-PV00-0000-0000-0000-0013-cach01
PV_CACHE2=Rescue-PV00-0000-0000-0000-0014-cach02
LUKS_PASS=rescue-lvm-pass

# lvm_helper_vm LOG CMDS DISK...: the helper VM (tests/lib/helper-vm.sh)
# with its lvm, cryptsetup and dm_crypt; the image is made once a test.
lvm_helper_vm() {
	local log=$1 cmds=$2
	shift 2
	[ -e "$T/helper.img" ] || helper_image "$T/helper.img" --add-module dm_crypt || return 1
	helper_vm "$log" "$LVM_VM_TIMEOUT" "$T/helper.img" "$cmds" "rd.lvm=0 rd.luks=0" "$@"
}

# The ext4 roots copied into the LVs: report-init trees, by marker.
lvm_ext4() { # img size_mb uuid marker
	make_root_dir "$T/tree-$4" "$4"
	make_ext4 "$T/tree-$4" "$1" "$2" "$3" "$4"
}

# make_lvm_disks: the disks every test picks from, in $T:
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
# Made once per recipe by the helper VM, cached under $BUILD/tests.
make_lvm_disks() {
	local key cache f
	KVER=$(stock_kernel_version) || return 1
	key=$({ declare -f make_lvm_disks lvm_helper_vm helper_image helper_vm lvm_ext4 write_report_init
		cat "$BUSYBOX"; echo "$KVER"; lvm version 2>/dev/null | head -2
		echo "$PV_ROOT $PV_SPAN1 $PV_SPAN2 $PV_DECOY $PV_LUKS $LUKS_PASS"
		} | sha256sum | cut -c1-16)
	cache=$BUILD/tests/lvm.cache/$key
	if [ ! -e "$cache/done" ]; then
		lvm_ext4 "$T/src-root.img" 24 "$ROOT_UUID" lvm-root &&
		lvm_ext4 "$T/src-span.img" 40 "$SPAN_UUID" lvm-span &&
		lvm_ext4 "$T/src-decoy.img" 24 "$ROOT_UUID" decoy &&
		lvm_ext4 "$T/src-luks.img" 24 "$LUKS_LVM_UUID" luks-lvm || return 1
		for f in lvm-root:64 span1:32 span2:32 decoy:32 luks:48; do
			blank_disk "$T/${f%:*}.img" "${f#*:}"
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
		lvm_helper_vm "$T/helper.log" "$T/helper.cmds" "$T/lvm-root.img" \
			"$T/span1.img" "$T/span2.img" "$T/decoy.img" "$T/luks.img" \
			"$T/src-root.img" "$T/src-span.img" "$T/src-decoy.img" \
			"$T/src-luks.img" || return 1
		for f in root span decoy luks; do
			grep -q "^$f-copied" <(tr -d '\r' <"$T/helper.log") ||
				{ show_log "$T/helper.log" 40; fail "the helper VM did not fill the $f LV"; return 1; }
		done
		rm -rf "$cache" && mkdir -p "$cache" &&
		mv "$T/lvm-root.img" "$T/span1.img" "$T/span2.img" "$T/decoy.img" \
			"$T/luks.img" "$T/helper.log" "$cache/" &&
		touch "$cache/done" || return 1
	fi
	for f in lvm-root span1 span2 decoy luks; do
		cp --sparse=always "$cache/$f.img" "$T/$f.img" || return 1
	done
}

# make_lvm_snap_disk: snap.img in $T, PV $PV_SNAP of VG snapvg: LV
# root (ext4 $SNAP_UUID, marker lvm-snap) and snap, a snapshot of it:
# an origin and its snapshot, which rescue-init leaves to lvm.  Cached
# apart from make_lvm_disks.
make_lvm_snap_disk() {
	local key cache
	KVER=$(stock_kernel_version) || return 1
	key=$({ declare -f make_lvm_snap_disk lvm_helper_vm helper_image helper_vm lvm_ext4 write_report_init
		cat "$BUSYBOX"; echo "$KVER"; lvm version 2>/dev/null | head -2
		echo "$PV_SNAP $SNAP_UUID"; } | sha256sum | cut -c1-16)
	cache=$BUILD/tests/lvm.cache/snap-$key
	if [ ! -e "$cache/done" ]; then
		lvm_ext4 "$T/src-snap.img" 24 "$SNAP_UUID" lvm-snap &&
		blank_disk "$T/snap.img" 48 || return 1
		# the kernel may name the two disks either way: by their sizes
		cat >"$T/helper.cmds" <<-CMDS
		modprobe dm_mod; modprobe dm_snapshot; export LVM_SUPPRESS_FD_WARNINGS=1
		for d in vda vdb; do case \$(cat /sys/block/\$d/size) in 98304) P=/dev/\$d;; 49152) S=/dev/\$d;; esac; done; echo "pv \$P src \$S"
		lvm pvcreate -q --norestorefile -u $PV_SNAP \$P && lvm vgcreate -q snapvg \$P && lvm lvcreate -q -y -n root -L 24M snapvg
		dd if=\$S of=/dev/snapvg/root bs=1M 2>/dev/null && echo snap-copied
		lvm lvcreate -q -y -s -n snap -L 8M snapvg/root && lvm vgchange -q -an snapvg && sync
		lvm lvs -a -o lv_name,segtype,origin snapvg
		[ -e /dev/mapper/snapvg-root ] || echo layout-done-\$((6 * 7))
		CMDS
		lvm_helper_vm "$T/helper.log" "$T/helper.cmds" "$T/snap.img" \
			"$T/src-snap.img" || return 1
		grep -q "^snap-copied" <(tr -d '\r' <"$T/helper.log") ||
			{ show_log "$T/helper.log" 40; fail "the helper VM did not fill the origin LV"; return 1; }
		rm -rf "$cache" && mkdir -p "$cache" &&
		mv "$T/snap.img" "$T/helper.log" "$cache/" &&
		touch "$cache/done" || return 1
	fi
	cp --sparse=always "$cache/snap.img" "$T/snap.img"
}

# make_lvm_thin_disk: thin.img in $T, PV $PV_THIN of VG thinvg: a thin
# pool "pool" and in it the thin LV root (ext4 $THIN_UUID, marker
# lvm-thin), which rescue-init leaves to lvm.  Cached apart.
make_lvm_thin_disk() {
	local key cache
	KVER=$(stock_kernel_version) || return 1
	key=$({ declare -f make_lvm_thin_disk lvm_helper_vm helper_image helper_vm lvm_ext4 write_report_init
		cat "$BUSYBOX"; echo "$KVER"; lvm version 2>/dev/null | head -2
		echo "$PV_THIN $THIN_UUID"; } | sha256sum | cut -c1-16)
	cache=$BUILD/tests/lvm.cache/thin-$key
	if [ ! -e "$cache/done" ]; then
		lvm_ext4 "$T/src-thin.img" 24 "$THIN_UUID" lvm-thin &&
		blank_disk "$T/thin.img" 64 || return 1
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
		lvm_helper_vm "$T/helper.log" "$T/helper.cmds" "$T/thin.img" \
			"$T/src-thin.img" || return 1
		grep -q "^thin-copied" <(tr -d '\r' <"$T/helper.log") ||
			{ show_log "$T/helper.log" 40; fail "the helper VM did not fill the thin LV"; return 1; }
		rm -rf "$cache" && mkdir -p "$cache" &&
		mv "$T/thin.img" "$T/helper.log" "$cache/" &&
		touch "$cache/done" || return 1
	fi
	cp --sparse=always "$cache/thin.img" "$T/thin.img"
}

# make_lvm_raid_disks: raid1.img and raid2.img in $T, PVs $PV_RAID1 and
# $PV_RAID2 of VG raidvg: LV root, lvcreate --type raid1 -m1 over both
# (ext4 $RAID_UUID, marker lvm-raid), in sync, which rescue-init leaves
# to lvm.  Cached apart.
make_lvm_raid_disks() {
	local key cache
	KVER=$(stock_kernel_version) || return 1
	key=$({ declare -f make_lvm_raid_disks lvm_helper_vm helper_image helper_vm lvm_ext4 write_report_init
		cat "$BUSYBOX"; echo "$KVER"; lvm version 2>/dev/null | head -2
		echo "$PV_RAID1 $PV_RAID2 $RAID_UUID"; } | sha256sum | cut -c1-16)
	cache=$BUILD/tests/lvm.cache/raid-$key
	if [ ! -e "$cache/done" ]; then
		lvm_ext4 "$T/src-raid.img" 24 "$RAID_UUID" lvm-raid &&
		blank_disk "$T/raid1.img" 40 && blank_disk "$T/raid2.img" 44 || return 1
		# the kernel may name the disks in any order: by their sizes
		cat >"$T/helper.cmds" <<-CMDS
		modprobe dm_mod; modprobe dm_raid; modprobe raid1; export LVM_SUPPRESS_FD_WARNINGS=1
		for d in vda vdb vdc; do case \$(cat /sys/block/\$d/size) in 81920) A=/dev/\$d;; 90112) B=/dev/\$d;; 49152) S=/dev/\$d;; esac; done; echo "pvs \$A \$B src \$S"
		lvm pvcreate -q --norestorefile -u $PV_RAID1 \$A && lvm pvcreate -q --norestorefile -u $PV_RAID2 \$B && lvm vgcreate -q raidvg \$A \$B
		lvm lvcreate -q -y --type raid1 -m1 -n root -L 24M raidvg
		dd if=\$S of=/dev/raidvg/root bs=1M 2>/dev/null && echo raid-copied
		i=0; until lvm lvs --noheadings -o sync_percent raidvg/root | grep -q '100\.00' || [ \$i = 120 ]; do sleep 1; i=\$((i + 1)); done
		lvm lvs --noheadings -o sync_percent raidvg/root | grep -q '100\.00' && echo raid-in-sync
		lvm vgchange -q -an raidvg && sync
		lvm lvs -a -o lv_name,segtype,devices raidvg
		[ -e /dev/mapper/raidvg-root ] || echo layout-done-\$((6 * 7))
		CMDS
		lvm_helper_vm "$T/helper.log" "$T/helper.cmds" "$T/raid1.img" \
			"$T/raid2.img" "$T/src-raid.img" || return 1
		grep -q "^raid-copied" <(tr -d '\r' <"$T/helper.log") &&
		grep -q "^raid-in-sync" <(tr -d '\r' <"$T/helper.log") ||
			{ show_log "$T/helper.log" 40; fail "the helper VM did not fill the RAID1 LV or sync it"; return 1; }
		rm -rf "$cache" && mkdir -p "$cache" &&
		mv "$T/raid1.img" "$T/raid2.img" "$T/helper.log" "$cache/" &&
		touch "$cache/done" || return 1
	fi
	cp --sparse=always "$cache/raid1.img" "$T/raid1.img" &&
	cp --sparse=always "$cache/raid2.img" "$T/raid2.img"
}

# make_lvm_mirror_disks: mirror1.img and mirror2.img in $T, PVs
# $PV_MIRROR1 and $PV_MIRROR2 of VG mirrorvg: LV root, an old-style
# lvcreate --type mirror -m1 --mirrorlog core over both (ext4
# $MIRROR_UUID, marker lvm-mirror), in sync, which rescue-init leaves
# to lvm.  Cached apart.
make_lvm_mirror_disks() {
	local key cache
	KVER=$(stock_kernel_version) || return 1
	key=$({ declare -f make_lvm_mirror_disks lvm_helper_vm helper_image helper_vm lvm_ext4 write_report_init
		cat "$BUSYBOX"; echo "$KVER"; lvm version 2>/dev/null | head -2
		echo "$PV_MIRROR1 $PV_MIRROR2 $MIRROR_UUID"; } | sha256sum | cut -c1-16)
	cache=$BUILD/tests/lvm.cache/mirror-$key
	if [ ! -e "$cache/done" ]; then
		lvm_ext4 "$T/src-mirror.img" 24 "$MIRROR_UUID" lvm-mirror &&
		blank_disk "$T/mirror1.img" 40 && blank_disk "$T/mirror2.img" 44 || return 1
		# the kernel may name the disks in any order: by their sizes
		cat >"$T/helper.cmds" <<-CMDS
		modprobe dm_mod; modprobe dm_mirror; export LVM_SUPPRESS_FD_WARNINGS=1
		for d in vda vdb vdc; do case \$(cat /sys/block/\$d/size) in 81920) A=/dev/\$d;; 90112) B=/dev/\$d;; 49152) S=/dev/\$d;; esac; done; echo "pvs \$A \$B src \$S"
		lvm pvcreate -q --norestorefile -u $PV_MIRROR1 \$A && lvm pvcreate -q --norestorefile -u $PV_MIRROR2 \$B && lvm vgcreate -q mirrorvg \$A \$B
		lvm lvcreate -q -y --type mirror -m1 --mirrorlog core -n root -L 24M mirrorvg
		i=0; until lvm lvs --noheadings -o copy_percent mirrorvg/root | grep -q '100\.00' || [ \$i = 120 ]; do sleep 1; i=\$((i + 1)); done
		dd if=\$S of=/dev/mirrorvg/root bs=1M conv=fsync 2>/dev/null && echo mirror-copied
		lvm lvs --noheadings -o copy_percent mirrorvg/root | grep -q '100\.00' && echo mirror-in-sync
		lvm vgchange -q -an mirrorvg && sync
		lvm lvs -a -o lv_name,segtype,devices mirrorvg
		[ -e /dev/mapper/mirrorvg-root ] || echo layout-done-\$((6 * 7))
		CMDS
		lvm_helper_vm "$T/helper.log" "$T/helper.cmds" "$T/mirror1.img" \
			"$T/mirror2.img" "$T/src-mirror.img" || return 1
		grep -q "^mirror-copied" <(tr -d '\r' <"$T/helper.log") &&
		grep -q "^mirror-in-sync" <(tr -d '\r' <"$T/helper.log") ||
			{ show_log "$T/helper.log" 40; fail "the helper VM did not fill the mirror LV or sync it"; return 1; }
		rm -rf "$cache" && mkdir -p "$cache" &&
		mv "$T/mirror1.img" "$T/mirror2.img" "$T/helper.log" "$cache/" &&
		touch "$cache/done" || return 1
	fi
	cp --sparse=always "$cache/mirror1.img" "$T/mirror1.img" &&
	cp --sparse=always "$cache/mirror2.img" "$T/mirror2.img"
}

# make_lvm_cache_disks: cache1.img and cache2.img in $T, PVs $PV_CACHE1
# and $PV_CACHE2 of VG cachevg: LV root on cache1 (ext4 $CACHE_UUID,
# marker lvm-cache), cached (lvconvert --type cache --cachepool,
# writethrough) by the cache pool cpool on cache2, which rescue-init
# leaves to lvm.  Cached apart.
make_lvm_cache_disks() {
	local key cache
	KVER=$(stock_kernel_version) || return 1
	key=$({ declare -f make_lvm_cache_disks lvm_helper_vm helper_image helper_vm lvm_ext4 write_report_init
		cat "$BUSYBOX"; echo "$KVER"; lvm version 2>/dev/null | head -2
		echo "$PV_CACHE1 $PV_CACHE2 $CACHE_UUID"; } | sha256sum | cut -c1-16)
	cache=$BUILD/tests/lvm.cache/cache-$key
	if [ ! -e "$cache/done" ]; then
		lvm_ext4 "$T/src-cache.img" 24 "$CACHE_UUID" lvm-cache &&
		blank_disk "$T/cache1.img" 40 && blank_disk "$T/cache2.img" 32 || return 1
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
		lvm_helper_vm "$T/helper.log" "$T/helper.cmds" "$T/cache1.img" \
			"$T/cache2.img" "$T/src-cache.img" || return 1
		grep -q "^cache-attached" <(tr -d '\r' <"$T/helper.log") &&
		grep -q "^cache-copied" <(tr -d '\r' <"$T/helper.log") ||
			{ show_log "$T/helper.log" 40; fail "the helper VM did not cache the root LV or fill it"; return 1; }
		rm -rf "$cache" && mkdir -p "$cache" &&
		mv "$T/cache1.img" "$T/cache2.img" "$T/helper.log" "$cache/" &&
		touch "$cache/done" || return 1
	fi
	cp --sparse=always "$cache/cache1.img" "$T/cache1.img" &&
	cp --sparse=always "$cache/cache2.img" "$T/cache2.img"
}

# make_lvm_half_disks: half1.img and half2.img in $T, PVs $PV_HALF1 and
# $PV_HALF2 of VG halfvg: LV root on half1 alone (ext4 $HALF_UUID,
# marker lvm-half), LV data on half2 alone: a VG whose root can run
# without its second PV.  Cached apart.
make_lvm_half_disks() {
	local key cache
	KVER=$(stock_kernel_version) || return 1
	key=$({ declare -f make_lvm_half_disks lvm_helper_vm helper_image helper_vm lvm_ext4 write_report_init
		cat "$BUSYBOX"; echo "$KVER"; lvm version 2>/dev/null | head -2
		echo "$PV_HALF1 $PV_HALF2 $HALF_UUID"; } | sha256sum | cut -c1-16)
	cache=$BUILD/tests/lvm.cache/half-$key
	if [ ! -e "$cache/done" ]; then
		lvm_ext4 "$T/src-half.img" 24 "$HALF_UUID" lvm-half &&
		blank_disk "$T/half1.img" 48 && blank_disk "$T/half2.img" 32 || return 1
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
		lvm_helper_vm "$T/helper.log" "$T/helper.cmds" "$T/half1.img" \
			"$T/half2.img" "$T/src-half.img" || return 1
		grep -q "^half-copied" <(tr -d '\r' <"$T/helper.log") ||
			{ show_log "$T/helper.log" 40; fail "the helper VM did not fill the root LV"; return 1; }
		rm -rf "$cache" && mkdir -p "$cache" &&
		mv "$T/half1.img" "$T/half2.img" "$T/helper.log" "$cache/" &&
		touch "$cache/done" || return 1
	fi
	cp --sparse=always "$cache/half1.img" "$T/half1.img" &&
	cp --sparse=always "$cache/half2.img" "$T/half2.img"
}

# lvm_meta_id IMG NAME: the id of the section NAME (a VG or an LV) in
# the metadata text lvm wrote on IMG, dashes removed.
lvm_meta_id() {
	grep -a -m1 -A1 -P "(^|\\x00)\\Q$2\\E \\{\$" "$1" | sed -n 's/^id = "\(.*\)"$/\1/p' | tr -d -
}

# lvm_image: mkrescue -k for the stock kernel (its lvm, dm_mod), or
# --storage for the patched one, with this build's rescue-init, in
# $T/initrd.
lvm_image() {
	stack_image "$T/initrd"
}

# lvm_boot APPEND DISK...: the layouts, the image, sums of the DISKs
# (BUS:NAME of $T/NAME.img), then the stock kernel on them.
lvm_boot() {
	local append=$1 disk args=() imgs=()
	shift
	make_lvm_disks && lvm_image || return 1
	for disk in "$@"; do
		args+=(--disk "${disk%%:*}:$T/${disk#*:}.img")
		imgs+=("$T/${disk#*:}.img")
	done
	record_sums "${imgs[@]}"
	VM_TIMEOUT=$LVM_VM_TIMEOUT boot_vm "$T/console.log" \
		--kernel "$(stack_kernel)" --initrd "$T/initrd" --mem "$(stack_mem)" \
		--append "$append" "${args[@]}"
}

# The root booted from an LV (a dm-N): marker, ext4, read-only, the
# exec line, and not a byte written to any disk.
expect_lv_root() { # marker
	expect_field "$T/console.log" root marker "$1" &&
	expect_field "$T/console.log" root fs ext4 &&
	expect_field "$T/console.log" root mode ro &&
	expect_field "$T/console.log" root dev_fs devtmpfs &&
	expect_exec_line /sbin/init '/dev/dm-[0-9]+' ext4 ro &&
	expect_disks_unchanged
}

# A root that must not be found: no boot, and the disks as they were.
expect_no_root() {
	expect_no_log "$T/console.log" 'TEST RESULT: root' "a boot" &&
	expect_disks_unchanged
}

# ---- one VG, one PV ---------------------------------------------------

# root=/dev/VG/LV, a name lvm links itself: the VG is activated when its
# one PV appears, and the LV (a dm-N) answers to that name.  On the
# patched and the stock kernel.
test_root_on_lv_by_dev_vg_lv() {
	for_each_stack_kernel_and_newest root_on_lv_by_dev_vg_lv
}
root_on_lv_by_dev_vg_lv() {
	lvm_boot "root=/dev/rescue-vg/root-lv" virtio-blk:lvm-root || return 1
	expect_log "$T/console.log" \
		"rescue: lvm: /dev/vda is PV $PV_ROOT of volume group rescue-vg \(UUID [A-Za-z0-9-]+\), 1 of 1 PVs there" \
		"the PV seen, its VG complete" &&
	expect_log "$T/console.log" "rescue: lvm: volume group rescue-vg: 3 LVs activated$" \
		"the three LVs activated" &&
	expect_log "$T/console.log" "rescue: found root /dev/rescue-vg/root-lv on /dev/dm-[0-9]+" \
		"the root found by /dev/VG/LV" &&
	expect_lv_root lvm-root
}

# root=/dev/mapper/VG-LV, each '-' of either name doubled as lvm names
# the dm device; rd.lvm.lv= activates that LV alone.
test_root_on_lv_by_mapper_name_with_rd_lvm_lv() {
	lvm_boot "root=/dev/mapper/rescue--vg-root--lv rd.lvm.lv=rescue-vg/root-lv" \
		virtio-blk:lvm-root || return 1
	expect_log "$T/console.log" "rescue: lvm: activating rd.lvm.lv=rescue-vg/root-lv \(volume group rescue-vg," \
		"the named LV activated alone" &&
	expect_log "$T/console.log" "rescue: lvm: volume group rescue-vg: 1 LVs activated$" \
		"one LV activated, not three" &&
	expect_log "$T/console.log" "rescue: found root /dev/mapper/rescue--vg-root--lv on /dev/dm-0" \
		"the root found by its /dev/mapper name" &&
	expect_lv_root lvm-root
}

# root=UUID= of the filesystem on the LV, behind an SCSI disk.
test_root_on_lv_by_filesystem_uuid() {
	lvm_boot "root=UUID=$ROOT_UUID" virtio-scsi:lvm-root || return 1
	expect_log "$T/console.log" "rescue: found root UUID=$ROOT_UUID on /dev/dm-[0-9]+" \
		"the root found by the filesystem's UUID" &&
	expect_lv_root lvm-root
}

# ---- the fast path and what it leaves to lvm -------------------------

# A VG of plain linear LVs is activated with no lvm run, from its
# metadata by device-mapper ioctls, named as lvm names it: lvm itself
# (lvs in the rescue shell) sees the LVs active, /dev/VG/LV links to
# /dev/mapper/VG-LV as lvm links it without udev, and the root's shell after switch_root reads the
# dm UUID LVM-<VG id><LV id> of the metadata.  On the patched and the
# stock kernel.
test_plain_vg_activated_without_lvm_as_lvm_names_it() {
	for_each_stack_kernel plain_vg_activated_without_lvm
}
plain_vg_activated_without_lvm() {
	local vgid lvid
	make_lvm_disks && lvm_image || return 1
	vgid=$(lvm_meta_id "$T/lvm-root.img" rescue-vg) &&
	lvid=$(lvm_meta_id "$T/lvm-root.img" root-lv) &&
	[ ${#vgid} = 32 ] && [ ${#lvid} = 32 ] ||
		{ fail "no VG and LV ids in the metadata of $T/lvm-root.img"; return 1; }
	record_sums "$T/lvm-root.img"
	cat >"$T/steps" <<-STEPS
	want \\(rescue\\) # 
	send lvm lvs --noheadings -o lv_name,lv_attr rescue-vg
	want root-lv +-wi-a
	want \\(rescue\\) # 
	send readlink /dev/rescue-vg/root-lv
	want /dev/mapper/rescue--vg-root--lv
	want \\(rescue\\) # 
	send exit
	want rescue: exec /bin/sh on /dev/dm-
	send for d in /sys/block/dm-*; do echo "dm: \$(cat \$d/dm/name) \$(cat \$d/dm/uuid)"; done
	want dm: rescue--vg-root--lv LVM-$vgid$lvid
	send exec /sbin/init
	want TEST RESULT: root
	end
	STEPS
	"$TOP/tests/tools/vm-steps.exp" "$T/console.log" "$LVM_VM_TIMEOUT" "$T/steps" \
		--kernel "$(stack_kernel)" --initrd "$T/initrd" --mem 512M \
		--append "root=/dev/rescue-vg/root-lv rd.break=pre-pivot init=/bin/sh" \
		--disk "virtio-blk:$T/lvm-root.img" ||
		{ show_log "$T/console.log" 40; fail "the steps of $T/steps failed"; return 1; }
	expect_log "$T/console.log" \
		"rescue: lvm: activating the LVs of rescue-vg \(volume group rescue-vg, UUID [A-Za-z0-9-]+, all its PVs there\) with device-mapper ioctls, no lvm run" \
		"the fast path's line" &&
	expect_no_log "$T/console.log" "lvm activates it" "a fall-back to lvm" &&
	expect_log "$T/console.log" "rescue: lvm: volume group rescue-vg: 3 LVs activated$" \
		"the three LVs activated" &&
	expect_field "$T/console.log" root marker lvm-root &&
	expect_exec_line /bin/sh '/dev/dm-[0-9]+' ext4 ro &&
	expect_disks_unchanged
}

# An LV with a snapshot is not a plain table (lvm stacks the origin on a
# -real layer): its VG goes to lvm, with the line why, and the root on
# the origin boots.  On the patched and the stock kernel.
test_lv_with_a_snapshot_falls_back_to_lvm() {
	for_each_stack_kernel lv_with_a_snapshot_falls_back_to_lvm
}
lv_with_a_snapshot_falls_back_to_lvm() {
	make_lvm_snap_disk && lvm_image || return 1
	VM_TIMEOUT=$LVM_VM_TIMEOUT boot_vm "$T/console.log" \
		--kernel "$(stack_kernel)" --initrd "$T/initrd" --mem 512M \
		--append "root=/dev/snapvg/root" --disk "virtio-blk:$T/snap.img" || return 1
	expect_log "$T/console.log" \
		"rescue: lvm: volume group snapvg: lvm activates it: LV root is used by another LV$" \
		"the line saying why lvm activates the VG" &&
	expect_log "$T/console.log" \
		"rescue: lvm: activating the LVs of snapvg \(volume group snapvg, UUID [A-Za-z0-9-]+, all its PVs there\)$" \
		"lvm's activation" &&
	expect_log "$T/console.log" "rescue: lvm: volume group snapvg: 2 LVs activated$" \
		"the origin and its snapshot activated" &&
	expect_field "$T/console.log" root marker lvm-snap &&
	expect_field "$T/console.log" root fs ext4 &&
	expect_exec_line /sbin/init '/dev/dm-[0-9]+' ext4 ro
}

# A thin LV is not a plain table (a thin target in a thin pool): its VG
# goes to lvm, with the line why, and the root on the thin LV boots.
# The image has no thin_check (thin-provisioning-tools): lvm says it
# skips the pool's check and activates it.  On both stock kernels (the
# thin target and its persistent-data modules loaded on lvm's request),
# not the patched one, which leaves the thin target out (kernel/README).
test_thin_lv_falls_back_to_lvm() {
	STACK_KERNELS=${STACK_KERNELS:-stock newest} for_each_stack_kernel thin_lv_falls_back_to_lvm
}
thin_lv_falls_back_to_lvm() {
	make_lvm_thin_disk && lvm_image || return 1
	VM_TIMEOUT=$LVM_VM_TIMEOUT boot_vm "$T/console.log" \
		--kernel "$(stack_kernel)" --initrd "$T/initrd" --mem 512M \
		--append "root=/dev/thinvg/root" --disk "virtio-blk:$T/thin.img" || return 1
	expect_log "$T/console.log" \
		"rescue: lvm: volume group thinvg: lvm activates it: LV pool is used by another LV$" \
		"the line saying why lvm activates the VG" &&
	expect_log "$T/console.log" \
		"rescue: lvm: activating the LVs of thinvg \(volume group thinvg, UUID [A-Za-z0-9-]+, all its PVs there\)$" \
		"lvm's activation" &&
	expect_log "$T/console.log" \
		"rescue: lvm: +WARNING: Check is skipped, please install recommended missing binary /usr/sbin/thin_check!" \
		"lvm skipping the pool's thin_check, which the image does not have" &&
	expect_log "$T/console.log" "rescue: lvm: +2 logical volume\(s\) in volume group \"thinvg\" now active" \
		"lvm activating the pool and the thin LV" &&
	expect_log "$T/console.log" "rescue: lvm: volume group thinvg: 1 LVs activated$" \
		"the thin LV counted (the pool's devices have suffixed dm UUIDs)" &&
	expect_log "$T/console.log" "rescue: found root /dev/thinvg/root on /dev/dm-[0-9]+" \
		"the root found on the thin LV" &&
	expect_field "$T/console.log" root marker lvm-thin &&
	expect_field "$T/console.log" root fs ext4 &&
	expect_exec_line /sbin/init '/dev/dm-[0-9]+' ext4 ro
}

# A RAID1 LV (lvcreate --type raid1 -m1, over two PVs) is not a plain
# table (a raid target over its hidden rimage and rmeta LVs): its VG goes
# to lvm, with the line why, and the root on the RAID1 LV boots.  On the
# patched and the stock kernel.
test_raid1_lv_falls_back_to_lvm() {
	for_each_stack_kernel raid1_lv_falls_back_to_lvm
}
raid1_lv_falls_back_to_lvm() {
	make_lvm_raid_disks && lvm_image || return 1
	VM_TIMEOUT=$LVM_VM_TIMEOUT boot_vm "$T/console.log" \
		--kernel "$(stack_kernel)" --initrd "$T/initrd" --mem 512M \
		--append "root=/dev/raidvg/root" --disk "virtio-blk:$T/raid1.img" \
		--disk "virtio-blk:$T/raid2.img" || return 1
	expect_log "$T/console.log" \
		"rescue: lvm: volume group raidvg: lvm activates it: LV root is a segment not striped or linear$" \
		"the line saying why lvm activates the VG" &&
	expect_log "$T/console.log" \
		"rescue: lvm: activating the LVs of raidvg \(volume group raidvg, UUID [A-Za-z0-9-]+, all its PVs there\)$" \
		"lvm's activation" &&
	expect_log "$T/console.log" "rescue: lvm: +1 logical volume\(s\) in volume group \"raidvg\" now active" \
		"lvm activating the RAID1 LV" &&
	expect_log "$T/console.log" "md/raid1:mdX: active with 2 out of 2 mirrors" \
		"the kernel's RAID1 running on both legs" &&
	expect_log "$T/console.log" "rescue: lvm: volume group raidvg: 5 LVs activated$" \
		"the RAID1 LV and its hidden rimage and rmeta LVs activated" &&
	expect_log "$T/console.log" "rescue: found root /dev/raidvg/root on /dev/dm-[0-9]+" \
		"the root found on the RAID1 LV" &&
	expect_field "$T/console.log" root marker lvm-raid &&
	expect_field "$T/console.log" root fs ext4 &&
	expect_exec_line /sbin/init '/dev/dm-[0-9]+' ext4 ro
}

# An old-style mirror LV (lvcreate --type mirror -m1, its log in
# memory, over two PVs) is not a plain table (a mirror target over its
# hidden mimage LVs): its VG goes to lvm, with the line why, and the
# root on the mirror LV boots.  On both stock kernels (dm-mirror loaded
# on lvm's request), not the patched one, which leaves the mirror
# target out (kernel/README).
test_mirror_lv_falls_back_to_lvm() {
	STACK_KERNELS=${STACK_KERNELS:-stock newest} for_each_stack_kernel mirror_lv_falls_back_to_lvm
}
mirror_lv_falls_back_to_lvm() {
	make_lvm_mirror_disks && lvm_image || return 1
	VM_TIMEOUT=$LVM_VM_TIMEOUT boot_vm "$T/console.log" \
		--kernel "$(stack_kernel)" --initrd "$T/initrd" --mem 512M \
		--append "root=/dev/mirrorvg/root" --disk "virtio-blk:$T/mirror1.img" \
		--disk "virtio-blk:$T/mirror2.img" || return 1
	expect_log "$T/console.log" \
		"rescue: lvm: volume group mirrorvg: lvm activates it: LV root is a segment not striped or linear$" \
		"the line saying why lvm activates the VG" &&
	expect_log "$T/console.log" \
		"rescue: lvm: activating the LVs of mirrorvg \(volume group mirrorvg, UUID [A-Za-z0-9-]+, all its PVs there\)$" \
		"lvm's activation" &&
	expect_log "$T/console.log" "modprobe: loaded module dm_mirror for dm-mirror" \
		"dm-mirror loaded from the image on lvm's request" &&
	expect_log "$T/console.log" "rescue: lvm: +1 logical volume\(s\) in volume group \"mirrorvg\" now active" \
		"lvm activating the mirror LV" &&
	expect_log "$T/console.log" "rescue: lvm: volume group mirrorvg: 3 LVs activated$" \
		"the mirror LV and its two hidden mimage LVs activated" &&
	expect_log "$T/console.log" "rescue: found root /dev/mirrorvg/root on /dev/dm-[0-9]+" \
		"the root found on the mirror LV" &&
	expect_field "$T/console.log" root marker lvm-mirror &&
	expect_field "$T/console.log" root fs ext4 &&
	expect_exec_line /sbin/init '/dev/dm-[0-9]+' ext4 ro
}

# An LV cached by a cache pool (lvconvert --type cache --cachepool, the
# pool on another PV) is not a plain table (a cache target over the
# pool's cdata and cmeta and the origin's corig LV): its VG goes to
# lvm, with the line why, and the root on the cached LV boots.  The
# image has no cache_check (thin-provisioning-tools): lvm says it skips
# the check and activates.  On both stock kernels (dm-cache and its smq
# policy loaded on lvm's request), not the patched one, which leaves
# the cache target out (kernel/README).
test_cache_lv_falls_back_to_lvm() {
	STACK_KERNELS=${STACK_KERNELS:-stock newest} for_each_stack_kernel cache_lv_falls_back_to_lvm
}
cache_lv_falls_back_to_lvm() {
	make_lvm_cache_disks && lvm_image || return 1
	VM_TIMEOUT=$LVM_VM_TIMEOUT boot_vm "$T/console.log" \
		--kernel "$(stack_kernel)" --initrd "$T/initrd" --mem 512M \
		--append "root=/dev/cachevg/root" --disk "virtio-blk:$T/cache1.img" \
		--disk "virtio-blk:$T/cache2.img" || return 1
	expect_log "$T/console.log" \
		"rescue: lvm: volume group cachevg: lvm activates it: LV root is a segment not striped or linear$" \
		"the line saying why lvm activates the VG" &&
	expect_log "$T/console.log" \
		"rescue: lvm: activating the LVs of cachevg \(volume group cachevg, UUID [A-Za-z0-9-]+, all its PVs there\)$" \
		"lvm's activation" &&
	expect_log "$T/console.log" "modprobe: loaded module dm_cache for dm-cache" \
		"dm-cache loaded from the image on lvm's request" &&
	expect_log "$T/console.log" "modprobe: loaded module dm_cache_smq for dm-cache-smq" \
		"dm-cache's smq policy loaded from the image on lvm's request" &&
	expect_log "$T/console.log" \
		"rescue: lvm: +WARNING: Check is skipped, please install recommended missing binary /usr/sbin/cache_check!" \
		"lvm skipping the pool's cache_check, which the image does not have" &&
	expect_log "$T/console.log" "rescue: lvm: +1 logical volume\(s\) in volume group \"cachevg\" now active" \
		"lvm activating the cached LV" &&
	expect_log "$T/console.log" "rescue: lvm: volume group cachevg: 1 LVs activated$" \
		"the cached LV counted (the devices of its origin and of the pool have suffixed dm UUIDs)" &&
	expect_log "$T/console.log" "rescue: found root /dev/cachevg/root on /dev/dm-[0-9]+" \
		"the root found on the cached LV" &&
	expect_field "$T/console.log" root marker lvm-cache &&
	expect_field "$T/console.log" root fs ext4 &&
	expect_exec_line /sbin/init '/dev/dm-[0-9]+' ext4 ro
}

# ---- a VG over two disks, an incomplete one ---------------------------

# The VG spans a virtio and an NVMe disk, its LV both: activated only
# once the second PV is there, and never before.
test_vg_spanning_two_disks() {
	lvm_boot "root=UUID=$SPAN_UUID" virtio-blk:span1 nvme:span2 || return 1
	expect_log "$T/console.log" \
		"rescue: lvm: /dev/(vda|nvme0n1) is PV ($PV_SPAN1|$PV_SPAN2) of volume group span \(UUID [A-Za-z0-9-]+\), 1 of 2 PVs there" \
		"the first PV, the VG not complete" &&
	expect_log "$T/console.log" \
		"rescue: lvm: /dev/(vda|nvme0n1) is PV ($PV_SPAN1|$PV_SPAN2) of volume group span \(UUID [A-Za-z0-9-]+\), 2 of 2 PVs there" \
		"the second PV completing it" &&
	expect_no_log "$T/console.log" "incomplete" "an incomplete VG" &&
	expect_lv_root lvm-span
}

# One PV of the two absent: when the root wait ends, the VG is named
# with the missing PV's UUID, in the log and in the device table.  On
# the patched and the stock kernel, and through dracut.
test_incomplete_vg_names_the_missing_pv() {
	STACK_KERNELS=${STACK_KERNELS:-patched stock dracut} \
		for_each_stack_kernel incomplete_vg_names_the_missing_pv
}
incomplete_vg_names_the_missing_pv() {
	lvm_boot "root=UUID=$SPAN_UUID rootwait=2 rd.shell=0 rd.retry=1 panic=1" \
		virtio-blk:span1 || return 1
	expect_log "$T/console.log" \
		"rescue: lvm: volume group span \(UUID [A-Za-z0-9-]+\) is incomplete: 1 of 2 PVs, missing PV $PV_SPAN2" \
		"the incomplete VG and its missing PV" &&
	expect_log "$T/console.log" \
		"rescue: +lvm VG span \(UUID [A-Za-z0-9-]+\): 1 of 2 PVs vda, missing PV $PV_SPAN2; 0 LVs active" \
		"the VG in the device table" &&
	expect_no_root
}

# One PV of the two absent, the root LV wholly on the one there: when
# the root wait ends, the VG is named with the missing PV's UUID and
# activated by lvm in its degraded mode (what can run without the
# missing PV), and the root boots; the LV on the missing PV stays
# inactive, and not a byte is written.  On the patched and the stock
# kernel.
test_incomplete_vg_activated_degraded_boots_the_root() {
	for_each_stack_kernel incomplete_vg_activated_degraded_boots_the_root
}
incomplete_vg_activated_degraded_boots_the_root() {
	make_lvm_half_disks && lvm_image || return 1
	record_sums "$T/half1.img"
	VM_TIMEOUT=$LVM_VM_TIMEOUT boot_vm "$T/console.log" \
		--kernel "$(stack_kernel)" --initrd "$T/initrd" --mem 512M \
		--append "root=UUID=$HALF_UUID rootwait=2 rd.shell=0 rd.retry=1 panic=1" --disk "virtio-blk:$T/half1.img" || return 1
	expect_log "$T/console.log" \
		"rescue: lvm: /dev/vda is PV $PV_HALF1 of volume group halfvg \(UUID [A-Za-z0-9-]+\), 1 of 2 PVs there" \
		"the PV seen, the VG not complete" &&
	expect_no_log "$T/console.log" "rescue: lvm: activating the LVs of halfvg .*all its PVs there" \
		"an activation before the root wait ended" &&
	expect_log "$T/console.log" \
		"rescue: lvm: volume group halfvg \(UUID [A-Za-z0-9-]+\) is incomplete: 1 of 2 PVs, missing PV $PV_HALF2" \
		"the incomplete VG and its missing PV" &&
	expect_log "$T/console.log" "rescue: lvm: volume group halfvg: lvm activates it: PVs missing$" \
		"the line saying why lvm activates the VG" &&
	expect_log "$T/console.log" \
		"rescue: lvm: activating the LVs of halfvg \(volume group halfvg, UUID [A-Za-z0-9-]+, incomplete, what can run without the missing PVs\)$" \
		"lvm's degraded activation after the root wait" &&
	expect_log "$T/console.log" "rescue: lvm: +Refusing activation of partial LV halfvg/data\." \
		"lvm leaving the LV on the missing PV inactive" &&
	expect_log "$T/console.log" "rescue: lvm: +1 logical volume\(s\) in volume group \"halfvg\" now active" \
		"lvm activating the root LV" &&
	expect_log "$T/console.log" "rescue: lvm: volume group halfvg: 1 LVs activated$" \
		"the root LV activated, the LV on the missing PV not" &&
	expect_log "$T/console.log" "rescue: found root UUID=$HALF_UUID on /dev/dm-0" \
		"the root found on the LV" &&
	expect_lv_root lvm-half
}

# The RAID1 LV's second PV absent: when the root wait ends, the VG is
# named with the missing PV and lvm's degraded mode runs the RAID1 LV
# on its one leg (settle(): "RAID LVs that can run without a leg"); the
# root boots.  The disk is not checked unchanged: dm-raid may record
# the missing leg in the rmeta LV it has (it did not in the runs made
# when the test was written).  On the patched and the stock kernel.
test_incomplete_vg_runs_the_raid1_lv_on_one_leg() {
	for_each_stack_kernel incomplete_vg_runs_the_raid1_lv_on_one_leg
}
incomplete_vg_runs_the_raid1_lv_on_one_leg() {
	make_lvm_raid_disks && lvm_image || return 1
	VM_TIMEOUT=$LVM_VM_TIMEOUT boot_vm "$T/console.log" \
		--kernel "$(stack_kernel)" --initrd "$T/initrd" --mem 512M \
		--append "root=/dev/raidvg/root rootwait=2 rd.shell=0 rd.retry=1 panic=1" \
		--disk "virtio-blk:$T/raid1.img" || return 1
	expect_log "$T/console.log" \
		"rescue: lvm: volume group raidvg \(UUID [A-Za-z0-9-]+\) is incomplete: 1 of 2 PVs, missing PV $PV_RAID2" \
		"the incomplete VG and its missing PV" &&
	expect_log "$T/console.log" "rescue: lvm: volume group raidvg: lvm activates it: PVs missing$" \
		"the line saying why lvm activates the VG" &&
	expect_log "$T/console.log" \
		"rescue: lvm: activating the LVs of raidvg \(volume group raidvg, UUID [A-Za-z0-9-]+, incomplete, what can run without the missing PVs\)$" \
		"lvm's degraded activation after the root wait" &&
	expect_log "$T/console.log" "rescue: lvm: +1 logical volume\(s\) in volume group \"raidvg\" now active" \
		"lvm activating the RAID1 LV" &&
	expect_log "$T/console.log" "md/raid1:mdX: active with 1 out of 2 mirrors" \
		"the kernel's RAID1 running on one leg" &&
	expect_log "$T/console.log" "rescue: found root /dev/raidvg/root on /dev/dm-[0-9]+" \
		"the root found on the RAID1 LV" &&
	expect_field "$T/console.log" root marker lvm-raid &&
	expect_field "$T/console.log" root fs ext4 &&
	expect_exec_line /sbin/init '/dev/dm-[0-9]+' ext4 ro
}

# ---- several VGs, parameters -----------------------------------------

# rd.lvm.vg= names the root's VG: the decoy VG, whose LV holds a clone
# of the root's filesystem (same UUID), stays inactive, so root=UUID=
# finds one device, not two.
test_rd_lvm_vg_leaves_the_decoy_vg_inactive() {
	lvm_boot "root=UUID=$ROOT_UUID rd.lvm.vg=rescue-vg" \
		virtio-blk:decoy virtio-blk:lvm-root || return 1
	expect_log "$T/console.log" \
		"rescue: lvm: /dev/vd[ab] left alone: its volume group decoyvg is not in rd.lvm.vg= or rd.lvm.lv=" \
		"the decoy VG left alone" &&
	expect_no_log "$T/console.log" "activating .*decoyvg" "the decoy VG activated" &&
	expect_log "$T/console.log" "rescue: lvm: volume group rescue-vg: 3 LVs activated$" \
		"the root's VG activated" &&
	expect_lv_root lvm-root
}

# rd.lvm=0: the PV is left alone, the root not found, and the device
# table shows the PV with its UUID.  On the patched and the stock kernel.
test_rd_lvm_0_leaves_the_pv_alone() {
	for_each_stack_kernel rd_lvm_0_leaves_the_pv_alone
}
rd_lvm_0_leaves_the_pv_alone() {
	lvm_boot "root=/dev/rescue-vg/root-lv rootwait=2 rd.lvm=0 rd.shell=0 rd.retry=1 panic=1" \
		virtio-blk:lvm-root || return 1
	expect_log "$T/console.log" "rescue: storage: lvm is off for this boot" \
		"the layer turned off" &&
	expect_log "$T/console.log" "rescue: storage: /dev/vda left alone: rd.lvm=0 turns lvm off" \
		"why the PV is not used" &&
	expect_log "$T/console.log" "rescue: unable to find root /dev/rescue-vg/root-lv" \
		"the root not found" &&
	expect_log "$T/console.log" "rescue: +vda .*LVM2_member.*$PV_ROOT" \
		"the PV in the device table" &&
	expect_no_log "$T/console.log" 'rescue: lvm: activating' "an activation" &&
	expect_no_root
}

# ---- read-only --------------------------------------------------------

# rescue.ro=strict: the LVs are activated read-only (lvm's own view:
# lv_attr R, at rd.break=pre-pivot in the rescue shell), lvm may write
# no metadata, and every disk is byte-identical after the boot.  lvm
# left nothing in /run (/run/lvm: hints, online files; /run/lock/lvm),
# which the real root gets.
test_strict_readonly_activates_read_only() {
	make_lvm_disks && lvm_image || return 1
	record_sums "$T/lvm-root.img" "$T/span1.img" "$T/span2.img"
	cat >"$T/steps" <<-'STEPS'
	want \(rescue\) # 
	send echo run-lvm-$(find /run -name '*lvm*' -o -name lock | wc -l)
	want run-lvm-0
	want \(rescue\) # 
	send lvm lvs --noheadings -o vg_name,lv_name,lv_attr
	want span +root +-Ri-a
	want \(rescue\) # 
	send lvm lvs --noheadings -o vg_name,lv_name,lv_attr rescue-vg/root-lv
	want rescue-vg +root-lv +-Ri-a
	send exit
	want TEST RESULT: root
	end
	STEPS
	"$TOP/tests/tools/vm-steps.exp" "$T/console.log" "$LVM_VM_TIMEOUT" "$T/steps" \
		--kernel "/boot/vmlinuz-$KVER" --initrd "$T/initrd" --mem 512M \
		--append "root=/dev/rescue-vg/root-lv rescue.ro=strict rd.break=pre-pivot" \
		--disk "virtio-blk:$T/lvm-root.img" --disk "virtio-blk:$T/span1.img" \
		--disk "nvme:$T/span2.img" ||
		{ show_log "$T/console.log" 40; fail "the LVs are not active read-only (lv_attr R)"; return 1; }
	expect_log "$T/console.log" "rescue: lvm: volume group rescue-vg: 3 LVs activated read-only" \
		"the root's VG activated read-only" &&
	expect_log "$T/console.log" "rescue: lvm: volume group span: 1 LVs activated read-only" \
		"the other VG read-only too" &&
	expect_lv_root lvm-root
}

# ---- LUKS below LVM ---------------------------------------------------

# The Debian installer's "encrypted LVM": partition-less here, LUKS2 ->
# LVM -> ext4.  The passphrase is typed on the serial console at the
# LUKS layer's prompt; the PV inside appears as dm-0 and its VG is
# activated from there.  PBKDF2 at 1000 iterations, the cheapest, so
# that the key derivation does not dominate under TCG.  On the patched
# and the stock kernel.
test_luks2_then_lvm_then_ext4() {
	for_each_stack_kernel_and_newest luks2_then_lvm_then_ext4
}
luks2_then_lvm_then_ext4() {
	local luks_uuid
	make_lvm_disks && lvm_image || return 1
	luks_uuid=$(blkid -p -s UUID -o value "$T/luks.img") && [ -n "$luks_uuid" ] ||
		{ fail "no LUKS UUID on $T/luks.img"; return 1; }
	record_sums "$T/luks.img"
	cat >"$T/steps" <<-EOF
	want Passphrase for /dev/vda \\(LUKS UUID $luks_uuid\\):
	send $LUKS_PASS
	want TEST RESULT: root
	end
	EOF
	"$TOP/tests/tools/vm-steps.exp" "$T/console.log" "$LVM_VM_TIMEOUT" "$T/steps" \
		--kernel "$(stack_kernel)" --initrd "$T/initrd" --mem 512M \
		--append "root=/dev/cryptvg/root" --disk "virtio-blk:$T/luks.img" ||
		{ show_log "$T/console.log" 40; fail "the steps of $T/steps failed"; return 1; }
	expect_log "$T/console.log" \
		"rescue: lvm: /dev/dm-0 is PV $PV_LUKS of volume group cryptvg \(UUID [A-Za-z0-9-]+\), 1 of 1 PVs there" \
		"the PV inside the LUKS container" &&
	expect_log "$T/console.log" "rescue: lvm: volume group cryptvg: 1 LVs activated$" \
		"its LV activated" &&
	expect_log "$T/console.log" "rescue: found root /dev/cryptvg/root on /dev/dm-1 " \
		"the root found on the LV above the container" &&
	expect_no_log "$T/console.log" "$LUKS_PASS" "the passphrase on the console" &&
	expect_lv_root luks-lvm
}

# The GRUB rescue entry (the rescue word) on the Debian "encrypted LVM":
# rescue-mount in its shell starts the storage layers as the boot does,
# asks the passphrase on the console, activates the VG inside, and
# mounts the LV (read-only, strict mode is implied); the boot then goes
# on from that mount.  On the patched and both stock kernels (6.12's
# aesni_intel refuses QEMU's CPU and must not stop the open).
test_rescue_mount_in_the_rescue_shell_opens_luks_then_lvm() {
	for_each_stack_kernel_and_newest rescue_mount_opens_luks_then_lvm
}
rescue_mount_opens_luks_then_lvm() {
	local luks_uuid
	make_lvm_disks && lvm_image || return 1
	luks_uuid=$(blkid -p -s UUID -o value "$T/luks.img") && [ -n "$luks_uuid" ] ||
		{ fail "no LUKS UUID on $T/luks.img"; return 1; }
	record_sums "$T/luks.img"
	cat >"$T/steps" <<-EOF
	want \\(rescue\\) # 
	send rescue-mount
	want Passphrase for /dev/vda \\(LUKS UUID $luks_uuid\\):
	send $LUKS_PASS
	want rescue-mount: mounted /dev/dm-1 \\(ext4, ro\\) on /newroot
	send exit
	want TEST RESULT: root
	end
	EOF
	"$TOP/tests/tools/vm-steps.exp" "$T/console.log" "$LVM_VM_TIMEOUT" "$T/steps" \
		--kernel "$(stack_kernel)" --initrd "$T/initrd" --mem 512M \
		--append "root=/dev/cryptvg/root rescue" --disk "virtio-blk:$T/luks.img" ||
		{ show_log "$T/console.log" 40; fail "the steps of $T/steps failed"; return 1; }
	expect_no_log "$T/console.log" "turns luks off" "a layer said to be off" &&
	expect_log "$T/console.log" \
		"^rescue-mount: luks: opened /dev/vda \(LUKS2, UUID $luks_uuid\) as dm-0 \(/dev/mapper/luks-$luks_uuid\), read-only$" \
		"the container opened read-only by rescue-mount" &&
	expect_log "$T/console.log" "^rescue-mount: lvm: volume group cryptvg: 1 LVs activated read-only$" \
		"its VG activated by rescue-mount" &&
	expect_log "$T/console.log" "rescue: using the root already mounted on /newroot: /dev/dm-1 \(ext4, ro\)" \
		"the boot going on from rescue-mount's mount" &&
	expect_no_log "$T/console.log" "$LUKS_PASS" "the passphrase on the console" &&
	expect_lv_root luks-lvm
}

# A dd copy of the PV's disk (one PV UUID on two disks): the VG is not
# activated from either, one line names both, and nothing boots; which
# copy would be used must not depend on the probe order.
test_cloned_pv_activates_neither_copy() {
	make_lvm_disks || return 1
	cp --sparse=always "$T/lvm-root.img" "$T/lvm-copy.img"
	lvm_boot "root=/dev/rescue-vg/root-lv rootwait=3 rd.shell=0 rd.retry=1 panic=1" \
		virtio-blk:lvm-root virtio-blk:lvm-copy || return 1
	expect_log "$T/console.log" \
		"rescue: lvm: /dev/vda and /dev/vdb are one PV $PV_ROOT of volume group rescue-vg \(a copy of one disk\?\): the volume group is not activated" \
		"the clash naming both disks" &&
	expect_log "$T/console.log" "rescue: lvm VG rescue-vg \(UUID [A-Za-z0-9-]+\): .*; not activated: a PV UUID on two devices$" \
		"the VG's line in the device table" &&
	expect_no_log "$T/console.log" "rescue: lvm: volume group rescue-vg: [0-9]+ LVs activated" \
		"the VG activated from one of the copies" &&
	expect_log "$T/console.log" "rescue: unable to find root /dev/rescue-vg/root-lv" \
		"the root not found" &&
	expect_no_root
}

# ---- dracut -----------------------------------------------------------

# The dracut image of tests/lib/dracut-lib.sh (dracut --no-hostonly --add
# "devtmpfs-rescue crypt lvm mdraid btrfs", the modules rescue-init
# cannot stand in for omitted) on the stock kernel: the module accepts
# dracut's lvm, ships lvm with the lvm.conf of mkrescue (no udev, no
# hints, no AIO, no D-Bus), and rescue-init activates the VG of the root.
test_dracut_add_devtmpfs_rescue_lvm_boots_the_lv_root() {
	local img
	make_lvm_disks || return 1
	img=$(dracut_rescue_image) || return 1
	expect_log "${img%/*}/dracut.log" 'devtmpfs-rescue: storage layers rescue-init stands in for:[^(]* lvm ' \
		"the module saying rescue-init stands in for lvm" || return 1
	# the settings of mkrescue's lvm.conf, line for line (not its comment)
	"$BUILD/mkrescue" --init "$RESCUE_INIT" --storage -o "$T/mkrescue.img" 2>"$T/mkrescue.err" ||
		{ fail "mkrescue --storage failed:" "$(cat "$T/mkrescue.err")"; return 1; }
	lsinitrd -f etc/lvm/lvm.conf "$T/mkrescue.img" | grep -v '^#' >"$T/lvm.conf.mkrescue"
	lsinitrd -f etc/lvm/lvm.conf "$img" | grep -v '^#' >"$T/lvm.conf"
	grep -q 'udev_rules = 0' "$T/lvm.conf.mkrescue" ||
		{ fail "no lvm.conf in mkrescue's image:" "$(cat "$T/lvm.conf.mkrescue")"; return 1; }
	diff -u "$T/lvm.conf.mkrescue" "$T/lvm.conf" >"$T/lvm.conf.diff" ||
		{ fail "the dracut image's lvm.conf is not mkrescue's:" "$(cat "$T/lvm.conf.diff")"; return 1; }
	record_sums "$T/lvm-root.img"
	VM_TIMEOUT=$LVM_VM_TIMEOUT boot_vm "$T/console.log" \
		--kernel "/boot/vmlinuz-$KVER" --initrd "$img" --mem 1G \
		--append "root=/dev/rescue-vg/root-lv" --disk "virtio-blk:$T/lvm-root.img" || return 1
	expect_log "$T/console.log" "rescue: lvm: volume group rescue-vg: 3 LVs activated$" \
		"the VG activated by rescue-init" &&
	expect_no_log "$T/console.log" 'udevd|udevadm|systemd\[1\]' "udev or systemd running" &&
	expect_lv_root lvm-root
}
