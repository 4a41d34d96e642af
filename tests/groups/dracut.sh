# SPDX-License-Identifier: GPL-2.0
# tests/groups/dracut.sh: the dracut module on Debian's stock modular kernel.
# `make install DESTDIR=...` puts the module in a scratch tree (never into
# the system); dracut sees it through a dracutbasedir made of links to
# the system's dracut plus that module.  One image per stock kernel,
# with every storage layer rescue-init stands in for (tests/lib/dracut-lib.sh,
# shared with stacked.sh and lvm.sh), serves every boot test.

STOCK_MEM=1G
STOCK_TIMEOUT=${STOCK_TIMEOUT:-180}
DRACUT_ROOT_UUID=7d1c3e55-2b6a-4f0e-8c4d-9a1b2c3d4e51

. "$TOP/tests/lib/dracut-lib.sh"

# dracut_build OUT LOG [dracut options]: dracut with this tree's module,
# installed into the test's own scratch tree.
dracut_build() {
	dracut_from_tree "$T/dest" "$@"
}

# $T/root: a root whose init reports what it found, with MARKER.
make_dracut_root_tree() { # marker
	make_root_tree "$T/root" <<'EOF'
#!/bin/sh
[ -e /proc/mounts ] || mount -t proc proc /proc
root_dev=$(awk '$2 == "/" { d = $1 } END { print d }' /proc/mounts)
mode=$(awk '$2 == "/" { split($4, o, ","); m = o[1] } END { print m }' /proc/mounts)
echo "TEST RESULT: root marker=$(cat /marker) dev=$root_dev mode=$mode"
reboot -f
EOF
	echo "$1" >"$T/root/marker"
}

# That root on ext4, for root=UUID= boots.
make_dracut_root() { # img
	make_dracut_root_tree dracut-root &&
	make_ext4 "$T/root" "$1" 16 "$DRACUT_ROOT_UUID" dracut-root
}

boot_stock() { # log run-vm-args...
	local log=$1 kver
	shift
	kver=$(stock_kernel_version) || return 1
	VM_TIMEOUT=$STOCK_TIMEOUT boot_vm "$log" --kernel "/boot/vmlinuz-$kver" \
		--mem "$STOCK_MEM" "$@"
}

# What the log of every stock boot must show: modules loaded by
# rescue-init from modaliases, and no udev at all.
expect_modalias_boot() { # log driver
	expect_log "$1" "rescue: loaded module $2 for " "$2 loaded by modalias" &&
	expect_no_log "$1" 'udevd|udevadm|systemd\[1\]' "udev or systemd running"
}

test_dracut_add_makes_rescue_init_the_init() {
	for_each_stock_kernel dracut_add_makes_rescue_init_the_init
}

dracut_add_makes_rescue_init_the_init() {
	local img log
	img=$(dracut_rescue_image) || return 1
	log=${img%/*}/dracut.log
	lsinitrd -f init "$img" >"$T/init" 2>/dev/null ||
		{ fail "lsinitrd could not extract /init from $img"; return 1; }
	cmp -s "$T/init" "$BUILD/rescue-init" ||
		{ fail "/init of the dracut image is not build/rescue-init"; return 1; }
	lsinitrd "$img" >"$T/listing" 2>&1
	grep -Eq 'lib/modules/[^ ]*/modules\.alias$' "$T/listing" ||
		{ fail "no modules.alias in the image"; return 1; }
	expect_left_out "$T/listing" &&
	expect_disk_tools "$T/listing" &&
	expect_log "$log" 'devtmpfs-rescue: /init is rescue-init' \
		"the module saying what it replaced" &&
	expect_log "$log" 'devtmpfs-rescue: left out what rescue-init never runs \(systemd, udevd and its rules, dracut.s hooks and /init, plymouth\): [0-9]+ files' \
		"the module saying what it left out" &&
	expect_log "$log" "devtmpfs-rescue: storage layers rescue-init stands in for: $(dracut_modules_in rescue-init) \\(not yet: $(dracut_modules_in missing)\\)" \
		"the module saying which storage layers rescue-init has"
}

# The tools for a failing disk (rescue/share/disk-tools) are in the image.
expect_disk_tools() { # listing
	local tool
	for tool in ddrescue smartctl badblocks; do
		grep -Eq " (usr/)?s?bin/$tool( |\$)" "$1" ||
			{ fail "no $tool in the image (rescue/share/disk-tools)"; return 1; }
	done
}

# What rescue-init never runs is not in the image (lsinitrd LISTING):
# systemd, udevd and its rules, dracut's hooks and its own /init; the
# rescue shell's reboot is busybox's, not a link to systemctl.
expect_left_out() { # listing
	local re
	for re in ' init\.dracut( |$)' ' (usr/)?lib/systemd/systemd( |$)' \
		'systemd-udevd( |$)' ' (usr/)?bin/(systemctl|udevadm)( |$)' \
		' (usr/)?lib/udev/rules\.d/[^ ]+\.rules$' ' (usr/)?lib/dracut/hooks/[^ ]+\.sh$' \
		'libsystemd-shared[^ ]*\.so( |$)' ' (usr/)?bin/vim\.basic( |$)'; do
		! grep -Eq -- "$re" "$1" ||
			{ fail "in the image: $(grep -E -m1 -- "$re" "$1")"; return 1; }
	done
	grep -Eq ' (usr/)?s?bin/reboot -> [^ ]*busybox$' "$1" ||
		{ fail "reboot is not busybox's:" "$(grep -E ' (usr/)?s?bin/reboot( |$)' "$1")"; return 1; }
}

# devtmpfs_rescue_keep_dracut=yes in a dracut.conf keeps all of it, and
# dracut's /init as /init.dracut, to be booted by hand (init=/init.dracut).
test_keep_dracut_keeps_systemd_and_dracut_init() {
	local status
	mkdir -p "$T/conf.d"
	echo 'devtmpfs_rescue_keep_dracut=yes' >"$T/conf.d/keep.conf"
	status=$(dracut_status "$T/dest" "$T/img" "$T/dracut.log" --no-hostonly \
		--confdir "$T/conf.d" --no-kernel --no-compress --add devtmpfs-rescue \
		--omit "$(dracut_refused_modules)") || return 1
	[ "$status" -eq 0 ] || { fail "dracut failed:" "$(tail -5 "$T/dracut.log")"; return 1; }
	lsinitrd "$T/img" >"$T/listing" 2>&1
	grep -Eq ' init\.dracut( |$)' "$T/listing" ||
		{ fail "dracut's own /init was not kept as /init.dracut"; return 1; }
	grep -Eq ' (usr/)?lib/systemd/systemd( |$)' "$T/listing" ||
		{ fail "systemd was not kept"; return 1; }
	expect_log "$T/dracut.log" 'devtmpfs-rescue: systemd is in the image but does not run' \
		"the module saying what it leaves unused" &&
	expect_no_log "$T/dracut.log" 'devtmpfs-rescue: left out' "a left-out line"
}

# dracut with the module, installed into DEST, not failing the test on
# dracut's failure: prints dracut's status.
dracut_status() { # dest out log [dracut options]
	local dest=$1 out=$2 log=$3 kver
	shift 3
	kver=$(stock_kernel_version) && dracut_install_tree "$dest" || return 1
	dracut_in_tree "$kver" "$dest" "$out" "$log" "$@"
	echo $?
}

# A module of the list still "missing" whose tools this host has
# (crypt-loop: losetup), added to the image: with devtmpfs-rescue its
# hooks would not run, and the build fails in one line naming it.
test_build_fails_naming_modules_rescue_init_cannot_stand_in_for() {
	local status m line mods
	mods=$(dracut_refused_modules | tr ' ' '\n' | grep -xE 'crypt-loop' | tr '\n' ' ')
	[ -n "$mods" ] || { fail "no module of the list is missing any more: pick others"; return 1; }
	status=$(dracut_status "$T/dest" "$T/img" "$T/dracut.log" --no-hostonly \
		--no-kernel --no-compress --add devtmpfs-rescue --add "$mods") ||
		return 1
	[ "$status" -ne 0 ] || { fail "dracut succeeded with $mods"; return 1; }
	[ ! -e "$T/img" ] || fail "dracut left an image behind"
	line=$(grep 'rescue-init cannot stand in for' "$T/dracut.log")
	[ "$(grep -c 'rescue-init cannot stand in for' "$T/dracut.log")" -eq 1 ] ||
		{ fail "expected one line, got:" "$line" "$(tail -5 "$T/dracut.log")"; return 1; }
	for m in $mods; do
		[[ " ${line#*for the dracut modules} " == *" $m "* ]] ||
			fail "the line does not name $m: $line"
	done
	note "$line"
}

# The layers rescue-init stands in for (the dracut column of
# rescue/share/storage-layers: mdraid and btrfs among them) are accepted, with their
# tools and mdadm's no-udev config.
test_layer_marked_supported_installs_its_tool() {
	local status omit
	omit=$(dracut_refused_modules)
	status=$(dracut_status "$T/dest" "$T/img" "$T/dracut.log" --no-hostonly \
		--no-kernel --no-compress --add "devtmpfs-rescue mdraid btrfs" --omit "$omit") ||
		return 1
	[ "$status" -eq 0 ] || { fail "dracut failed:" "$(tail -5 "$T/dracut.log")"; return 1; }
	expect_log "$T/dracut.log" 'devtmpfs-rescue: storage layers rescue-init stands in for:[^(]* mdraid [^(]*btrfs' \
		"the layers said" || return 1
	lsinitrd "$T/img" >"$T/listing" 2>&1
	grep -Eq ' usr/sbin/mdadm$' "$T/listing" || fail "no mdadm in the image"
	grep -Eq ' (usr/)?s?bin/btrfs$' "$T/listing" || fail "no btrfs in the image"
	lsinitrd -f etc/mdadm/mdadm.conf "$T/img" | grep -q '^HOMEHOST <ignore>$' ||
		fail "not the module's mdadm.conf"
}

test_check_returns_255_so_the_module_is_opt_in() {
	local img=$T/default.img
	# Without kernel modules and compression: only /init matters here.
	dracut_build "$img" "$T/dracut.log" --no-hostonly --no-kernel --no-compress || return 1
	lsinitrd -f init "$img" >"$T/init" 2>/dev/null
	if cmp -s "$T/init" "$BUILD/rescue-init"; then
		fail "without --add devtmpfs-rescue, /init is rescue-init anyway"
		return 1
	fi
	expect_no_log "$T/dracut.log" 'devtmpfs-rescue' "the module without --add"
}

# dracut_root_by_uuid BUS DRIVER DEV: the root by UUID on a disk on BUS,
# with dracut's image on the stock kernel: DRIVER loaded by its
# modalias, the root DEV mounted read-only.
dracut_root_by_uuid() {
	local img
	img=$(dracut_rescue_image) || return 1
	make_dracut_root "$T/root.img" || return 1
	boot_stock "$T/console.log" --initrd "$img" --append "root=UUID=$DRACUT_ROOT_UUID" \
		--disk "$1:$T/root.img" || return 1
	expect_modalias_boot "$T/console.log" "$2" &&
	expect_field "$T/console.log" root marker dracut-root &&
	expect_field "$T/console.log" root dev "$3" &&
	expect_field "$T/console.log" root mode ro
}

test_stock_kernel_reaches_root_by_uuid_on_virtio_blk() {
	for_each_stock_kernel dracut_root_by_uuid virtio-blk virtio_blk /dev/vda
}

test_stock_kernel_reaches_root_by_uuid_on_nvme() {
	for_each_stock_kernel dracut_root_by_uuid nvme nvme /dev/nvme0n1
}

test_stock_kernel_reaches_root_by_uuid_on_ahci() {
	for_each_stock_kernel dracut_root_by_uuid ahci ahci /dev/sda
}

# A root shared by the host through virtio-fs: dracut's virtiofs module,
# in its default image, no longer refused; its hooks do not run,
# rescue-init mounts root=virtiofs:TAG (virtiofs is a module on 6.1,
# which dracut's module installs, and built into 6.12).
test_stock_kernel_reaches_a_virtiofs_root() {
	for_each_stock_kernel dracut_virtiofs_root
}

dracut_virtiofs_root() {
	local img
	img=$(dracut_rescue_image) || return 1
	make_dracut_root_tree dracut-virtiofs
	virtiofs_boot "$T/console.log" "$img" "root=virtiofs:rootfs" || return 1
	expect_log "$T/console.log" 'rescue: mounted the virtio-fs tag rootfs on /newroot \(virtiofs, ro\)' \
		"the tag mounted read-only" &&
	expect_field "$T/console.log" root marker dracut-virtiofs &&
	expect_field "$T/console.log" root mode ro
}

# One disk on two paths (tests/lib/lib.sh two_paths), the root in its
# first partition: Debian's dracut takes its multipath module in when
# multipath-tools is installed, and rescue-init makes the map with the
# multipath and kpartx it installed (mkrescue-boot has the same boot
# through mkrescue -k, on both kernels).
test_stock_kernel_root_on_a_multipath_map() {
	local img
	img=$(dracut_rescue_image) || return 1
	make_dracut_root_tree dracut-twopaths
	make_gpt "$T/lun.img" 24 "root:$(cat /proc/sys/kernel/random/uuid):rest" || return 1
	put_ext4 "$T/lun.img" 1 "$T/root" "$DRACUT_ROOT_UUID" root || return 1
	two_paths "$T/lun.img" rw
	boot_stock "$T/console.log" --initrd "$img" \
		--append "root=UUID=$DRACUT_ROOT_UUID rootdelay=3" "${TWO_PATHS[@]}" || return 1
	expect_log "$T/console.log" "$TWO_PATHS_MAP_LINE" "the two paths assembled as one map" &&
	expect_field "$T/console.log" root marker dracut-twopaths &&
	expect_field "$T/console.log" root dev /dev/dm-1
}

# The rescue shell is driven over the serial console (RESCUE_PROMPT,
# tests/lib/lib.sh).
BRACKETED_PASTE_END=$'\e\\[\\?2004l'

# The shell and rd.break are rescue-init's, the same on every kernel:
# one stock kernel is enough for them (the boots above load each
# kernel's modules).
test_stock_kernel_without_root_disk_opens_shell() {
	local img
	img=$(dracut_rescue_image) || return 1
	blank_disk "$T/other.img" 8
	printf '%s\n' 'rescue-ls' >"$T/commands"
	"$TOP/tests/tools/vm-shell.exp" "$T/console.log" "$STOCK_TIMEOUT" "$RESCUE_PROMPT" "$T/commands" \
		--kernel "/boot/vmlinuz-$(stock_kernel_version)" --mem "$STOCK_MEM" --initrd "$img" \
		--append "root=UUID=$DRACUT_ROOT_UUID" --disk "virtio-blk:$T/other.img" ||
		{ show_log "$T/console.log"; return 1; }
	expect_log "$T/console.log" "rescue: unable to find root UUID=$DRACUT_ROOT_UUID" \
		"the error line naming the missing UUID" &&
	# bash 5.2 as /bin/sh (99base's, when no module asks for a shell)
	# ends bracketed paste before a command's output: ESC [?2004l.
	expect_log "$T/console.log" "^($BRACKETED_PASTE_END)?NAME +MAJ:MIN +SIZE +TYPE +UUID +LABEL +PARTUUID +PARTLABEL" \
		"the device table" &&
	expect_log "$T/console.log" '^vda +' "the blank disk in the table" &&
	expect_no_log "$T/console.log" 'Kernel panic' "a kernel panic"
}

# rd.break=mount: dracut's stop before the root is mounted (a bare
# rd.break stops after it, with the root on /sysroot).
test_stock_kernel_rd_break_mount_opens_shell_before_mounting() {
	local img
	img=$(dracut_rescue_image) || return 1
	make_dracut_root "$T/root.img" || return 1
	printf '%s\n' 'cat /proc/mounts' >"$T/commands"
	"$TOP/tests/tools/vm-shell.exp" "$T/console.log" "$STOCK_TIMEOUT" "$RESCUE_PROMPT" "$T/commands" \
		--kernel "/boot/vmlinuz-$(stock_kernel_version)" --mem "$STOCK_MEM" --initrd "$img" \
		--append "root=UUID=$DRACUT_ROOT_UUID rd.break=mount" --disk "virtio-blk:$T/root.img" ||
		{ show_log "$T/console.log"; return 1; }
	expect_no_log "$T/console.log" '/dev/vda /newroot' "the root mounted before the shell" &&
	expect_no_log "$T/console.log" 'TEST RESULT: root' "the boot going on to the root"
}

# The image of the oldest stock kernel; the patched kernel needs none of
# its modules, so one is enough.
test_same_image_boots_the_patched_kernel() {
	local img
	img=$(dracut_rescue_image) || return 1
	make_dracut_root "$T/root.img" || return 1
	boot_vm "$T/console.log" --kernel "$BZIMAGE" --initrd "$img" --mem 512M \
		--append "root=UUID=$DRACUT_ROOT_UUID" --disk "virtio-blk:$T/root.img" || return 1
	expect_log "$T/console.log" 'devtmpfs: mounted on initramfs /dev' \
		"the patched kernel's mount" &&
	expect_no_log "$T/console.log" 'rescue: loaded module' "modules loaded on a built-in kernel" &&
	expect_field "$T/console.log" root marker dracut-root &&
	expect_field "$T/console.log" root dev /dev/vda
}

test_install_puts_files_in_place_and_uninstall_removes_them() {
	local dest=$T/dest files
	make -s -C "$TOP" install DESTDIR="$dest" PREFIX=/usr >"$T/install.log" 2>&1 ||
		{ fail "make install failed:" "$(tail -5 "$T/install.log")"; return 1; }
	files=$(cd "$dest" && find . -type f | sort | tr '\n' ' ')
	[ "$files" = "./usr/lib/devtmpfs-rescue/media/iso.sh ./usr/lib/devtmpfs-rescue/media/netboot.sh ./usr/lib/devtmpfs-rescue/media/uki.sh ./usr/lib/devtmpfs-rescue/rescue-init ./usr/lib/dracut/modules.d/99devtmpfs-rescue/module-setup.sh ./usr/sbin/mkrescue ./usr/sbin/mkrescue-media ./usr/share/devtmpfs-rescue/clevis-tools ./usr/share/devtmpfs-rescue/disk-tools ./usr/share/devtmpfs-rescue/lvm.conf ./usr/share/devtmpfs-rescue/mdadm.conf ./usr/share/devtmpfs-rescue/module-classes ./usr/share/devtmpfs-rescue/modules.list ./usr/share/devtmpfs-rescue/multipath-tools ./usr/share/devtmpfs-rescue/storage-layers ./usr/share/devtmpfs-rescue/tool-confs ./usr/share/man/man8/mkrescue-media.8 ./usr/share/man/man8/mkrescue.8 ./usr/share/man/man8/rescue-init.8 " ] ||
		{ fail "make install wrote: $files"; return 1; }
	# The installed mkrescue-media reads its kinds where they were installed.
	grep -qx 'media_lib=/usr/lib/devtmpfs-rescue/media' "$dest/usr/sbin/mkrescue-media" ||
		{ fail "the installed mkrescue-media does not name the installed kinds"; return 1; }
	grep -q '^rescue_init_installed=/usr/lib/devtmpfs-rescue/rescue-init$' \
		"$dest/usr/lib/dracut/modules.d/99devtmpfs-rescue/module-setup.sh" ||
		{ fail "module-setup.sh does not name the installed rescue-init"; return 1; }
	"$dest/usr/sbin/mkrescue" --help | grep -q '(default /usr/lib/devtmpfs-rescue/rescue-init)' ||
		{ fail "the installed mkrescue does not default to the installed rescue-init"; return 1; }
	make -s -C "$TOP" uninstall DESTDIR="$dest" PREFIX=/usr >"$T/uninstall.log" 2>&1 ||
		{ fail "make uninstall failed:" "$(tail -5 "$T/uninstall.log")"; return 1; }
	files=$(cd "$dest" && find . -type f -o -type l | tr '\n' ' ')
	[ -z "$files" ] || { fail "make uninstall left: $files"; return 1; }
	for d in usr/lib/devtmpfs-rescue usr/share/devtmpfs-rescue usr/lib/dracut/modules.d/99devtmpfs-rescue \
		usr/lib/devtmpfs-rescue/media; do
		[ ! -e "$dest/$d" ] || { fail "make uninstall left the directory /$d"; return 1; }
	done
}

# ---- crypt: a root on LUKS2 (issue 15) ---------------------------------

DRACUT_LUKS_UUID=5e2a7c19-3d4b-4f6a-9b8c-1d2e3f4a5b6c
DRACUT_LUKS_PASS=correct-horse-7

# A LUKS2 container holding the report root of make_dracut_root, written
# from userspace (no dm, no loop): ext4 by mke2fs -d, encrypted in place.
# PBKDF2 at its cheapest: the test times the boot, not key derivation.
make_dracut_luks_root() { # img
	local img=$1
	make_dracut_root "$T/fs.img" || return 1
	blank_disk "$img" 64
	dd if="$T/fs.img" of="$img" conv=notrunc status=none || return 1
	luks_encrypt "$img" "$DRACUT_LUKS_UUID" "$DRACUT_LUKS_PASS"
}

# dracut's crypt in the image (tests/lib/dracut-lib.sh): it carries
# cryptsetup with its libraries and dm_crypt; rescue-init asks for the
# passphrase on the console, a wrong one first, and mounts the ext4
# inside read-only.
test_stock_kernel_dracut_crypt_luks2_root_passphrase_typed() {
	local img kver
	img=$(dracut_rescue_image) || return 1
	kver=$(stock_kernel_version) || return 1
	lsinitrd "$img" >"$T/listing" 2>&1
	grep -Eq ' (usr/)?s?bin/cryptsetup$' "$T/listing" || fail "no cryptsetup in the image"
	grep -Eq ' (usr/)?lib/[^ ]*libcryptsetup\.so\.[0-9.]+( |$)' "$T/listing" ||
		fail "no libcryptsetup in the image"
	grep -Eq "/dm-crypt\.ko(\.xz)?$" "$T/listing" || fail "no dm-crypt.ko in the image"
	make_dracut_luks_root "$T/c.img" || return 1
	record_sums "$T/c.img"
	passphrase_steps /dev/vda "$DRACUT_LUKS_UUID" "$DRACUT_LUKS_PASS" not-the-passphrase
	"$TOP/tests/tools/vm-steps.exp" "$T/console.log" "$STOCK_TIMEOUT" "$T/steps" \
		--kernel "/boot/vmlinuz-$kver" --mem "$STOCK_MEM" --initrd "$img" \
		--append "root=UUID=$DRACUT_ROOT_UUID" --disk "virtio-blk:$T/c.img" ||
		{ show_log "$T/console.log" 40; fail "the steps of $T/steps failed"; return 1; }
	expect_log "$T/console.log" \
		"rescue: luks: opened /dev/vda \(LUKS2, UUID $DRACUT_LUKS_UUID\) as dm-0 \(/dev/mapper/luks-$DRACUT_LUKS_UUID\)$" \
		"the container opened as luks-UUID" &&
	expect_log "$T/console.log" \
		"rescue: luks: wrong passphrase for /dev/vda \(UUID $DRACUT_LUKS_UUID\), try 1 of 3" \
		"the wrong passphrase logged" &&
	expect_no_log "$T/console.log" "not-the-passphrase|$DRACUT_LUKS_PASS" "a passphrase on the console" &&
	expect_no_log "$T/console.log" 'udevd|udevadm|systemd\[1\]|systemd-cryptsetup' \
		"udev or systemd running" &&
	expect_field "$T/console.log" root marker dracut-root &&
	expect_field "$T/console.log" root dev /dev/dm-0 &&
	expect_field "$T/console.log" root mode ro &&
	expect_disks_unchanged
}
