# SPDX-License-Identifier: GPL-2.0
# tests/groups/debian.sh: a real Debian 12 root (tests/tools/debian-root: debootstrap,
# systemd, udev) booted to multi-user.target on Debian's stock kernels,
# through `mkrescue -k` and through `dracut --add devtmpfs-rescue` with and
# without dracut's systemd modules: the handoff from rescue-init to the
# root's systemd.  Also what rescue-init says of a compressed module that
# the kernel cannot decompress.

DEBIAN_ROOT_UUID=5e1d0b7a-3c2f-4d8e-9b6a-0f1e2d3c4b5a
DEBIAN_MEM=1G
DEBIAN_TIMEOUT=${DEBIAN_TIMEOUT:-300}
DEBIAN_CACHE_TOP=$BUILD/tests/debian-cache
. "$TOP/tests/lib/dracut-lib.sh"

# debian_root OUT: a copy of the cached root, which the boot writes to.
debian_root() {
	local img
	img=$("$TOP/tests/tools/debian-root" 2>"$T/debian-root.log") ||
		{ fail "tests/tools/debian-root failed:" "$(tail -n5 "$T/debian-root.log")"; return 1; }
	cp --sparse=always "$img" "$1" || fail "unable to copy $img to $1"
}

# debian_dracut NAME [dracut options]: the path of a dracut image for the
# stock kernel with this tree's module, cached under a key of what goes
# into it (dracut takes a minute or more under load).  The dracut modules
# that the module refuses (those rescue-init cannot stand in for, which
# this host's dracut includes by default) are omitted, from its own list.
debian_dracut() {
	local name=$1 kver key dir img refused
	shift
	kver=$(stock_kernel_version) || return 1
	refused=$(bash -c '. "$1" && devtmpfs_rescue_modules_in missing' _ \
		"$TOP/dracut-module/99devtmpfs-rescue/module-setup.sh")
	[ -z "$refused" ] || set -- "$@" --omit "$refused"
	key=$({
		echo "$kver $*"
		cat "$BUILD/rescue-init" "$TOP/dracut-module/99devtmpfs-rescue/module-setup.sh" \
			"$TOP"/rescue/share/* "$TOP/Makefile"
	} | sha256sum | cut -c1-16)
	dir=$DEBIAN_CACHE_TOP/$name-$kver
	img=$dir/$key.img
	if [ ! -e "$img" ]; then
		rm -rf "$dir"
		mkdir -p "$dir"
		dracut_from_tree "$dir/dest" "$img.tmp" "$dir/dracut.log" "$@" || return 1
		mv "$img.tmp" "$img"
	fi
	echo "$img"
}

# The root's udev loads kvm_amd for the SVM flag of QEMU's CPU; under
# TCG that load once panicked the 6.12 guest 15 s after multi-user
# (general protection fault in the slab, "Modules linked in:
# kvm_amd(+)"), which no initramfs can change: the root's kmod leaves
# it out.
DEBIAN_APPEND="modprobe.blacklist=kvm_amd,kvm_intel,kvm"

# boot_debian LOG INITRD: the stock kernel, that initramfs, a fresh copy
# of the root on virtio-blk.  $LOG.txt is the log without colours.
boot_debian() {
	local log=$1 initrd=$2 kver status=0
	kver=$(stock_kernel_version) && debian_root "$T/root.img" || return 1
	VM_TIMEOUT=$DEBIAN_TIMEOUT boot_vm "$log" --kernel "/boot/vmlinuz-$kver" \
		--initrd "$initrd" --mem "$DEBIAN_MEM" \
		--append "root=UUID=$DEBIAN_ROOT_UUID $DEBIAN_APPEND" --disk "virtio-blk:$T/root.img" || status=1
	rm -f "$T/root.img"
	tr -d '\r' <"$log" | sed 's/\x1b\[[0-9;]*m//g' >"$log.txt"
	note "$kver: multi-user.target at $(result_field "$log" debian multi_user_us) us"
	return "$status"
}

# What every boot of the Debian root must show.
expect_debian_boot() { # log
	local log=$1 opts
	expect_field "$log" debian state running &&
	expect_field "$log" debian failed none &&
	expect_field "$log" debian source /dev/vda &&
	expect_field "$log" debian run tmpfs &&
	expect_field "$log" debian initrd_release no || return 1
	# Mounted ro by rescue-init, checked by systemd-fsck-root (which
	# runs only on a read-only root), rw after systemd-remount-fs.
	expect_log "$log.txt" 'rescue: mounted /dev/vda on /newroot \(ext4, ro\)' \
		"rescue-init mounting the root read-only" &&
	expect_log "$log.txt" 'Finished systemd-fsck-root.*File System Check on Root' \
		"systemd checking the read-only root" &&
	expect_log "$log.txt" 'Finished systemd-remount-f' "systemd remounting the root" ||
		return 1
	opts=$(result_field "$log" debian root)
	case $opts in
	rw,*) ;;
	*) fail "the root is mounted $opts after the boot, not rw"; return 1 ;;
	esac
	# rescue-init's kmsg lines, read back from the root's journal.
	expect_log "$log.txt" '^ROOT JOURNAL: rescue: exec /sbin/init on /dev/vda' \
		"rescue-init's lines in the root's journal" &&
	expect_no_log "$log.txt" '(systemd\[1\]|ROOT WARNING).*[Ii]nit(rd|ramfs)' \
		"a complaint about the initrd" &&
	expect_no_log "$log.txt" 'FAILED|systemd\[1\]: Failed|ROOT WARNING: .*[Ff]ailed' \
		"a failure reported by systemd"
}

mkrescue_boots_debian() {
	local kver
	kver=$(stock_kernel_version) || return 1
	"$BUILD/mkrescue" --init "$BUILD/rescue-init" -k "$kver" -o "$T/rescue.img" \
		2>"$T/mkrescue.err" ||
		{ fail "mkrescue -k $kver failed:" "$(cat "$T/mkrescue.err")"; return 1; }
	boot_debian "$T/console.log" "$T/rescue.img" &&
	expect_debian_boot "$T/console.log"
}

test_mkrescue_k_boots_debian_to_multi_user() {
	for_each_stock_kernel mkrescue_boots_debian
}

# initrd_listing IMG OUT: lsinitrd's listing of IMG in OUT.  Fails when
# lsinitrd fails or lists no /init: a check that something is not in the
# listing must not pass because there is no listing.
initrd_listing() { # img out
	lsinitrd "$1" >"$2" 2>"$2.err" ||
		{ fail "lsinitrd $1 failed:" "$(tail -n5 "$2.err")"; return 1; }
	grep -Eq ' init( |$)' "$2" ||
		{ fail "lsinitrd lists no /init in $1:" "$(head -n5 "$2")" "$(tail -n5 "$2.err")"; return 1; }
}

# Debian's default dracut configuration, `dracut --add devtmpfs-rescue`
# with no --omit: dracut's systemd modules included, and what they
# install left out, as rescue-init never runs it.
# That is the image of tests/lib/dracut-lib.sh, which the dracut, lvm and
# stacked groups boot: Debian's dracut sets no hostonly, and includes the
# storage layers' modules that image names wherever their tools are
# installed (the two builds listed the same modules).  One dracut run per
# kernel instead of two: each takes two to three minutes of CI.
dracut_boots_debian() {
	local img m
	img=$(dracut_rescue_image) || return 1
	grep -q 'Including module: systemd \*\*\*' "${img%/*}/dracut.log" ||
		{ fail "dracut did not include its systemd module in $img"; return 1; }
	# No --omit: the modules Debian's default image has, which the
	# devtmpfs-rescue module once refused, are in.
	for m in resume virtiofs; do
		grep -q "Including module: $m \*\*\*" "${img%/*}/dracut.log" ||
			{ fail "dracut's default module $m is not in $img"; return 1; }
	done
	systemd_less_image_boots_debian "$img"
}

# systemd_less_image_boots_debian IMG: dracut's image IMG holds no
# systemd, and boots the Debian root to multi-user.target.
systemd_less_image_boots_debian() {
	initrd_listing "$1" "$T/listing" || return 1
	if grep -Eq ' (usr/)?lib/systemd/systemd( |$)' "$T/listing"; then
		fail "systemd was not left out of $1"
		return 1
	fi
	boot_debian "$T/console.log" "$1" &&
	expect_debian_boot "$T/console.log"
}

test_dracut_add_boots_debian_to_multi_user() {
	for_each_stock_kernel dracut_boots_debian
}

# Without dracut's systemd modules (systemd-initrd and dracut-systemd
# depend on systemd and go with it): the image dracut builds on a host
# without systemd.  One kernel: the image is otherwise the same.
test_dracut_add_without_systemd_boots_debian_to_multi_user() {
	local img
	img=$(debian_dracut nosystemd --add devtmpfs-rescue -o systemd) || return 1
	systemd_less_image_boots_debian "$img"
}

# A .ko.xz on a kernel without CONFIG_MODULE_DECOMPRESS (the patched one):
# rescue-init names the module and says why, and boots on.
test_compressed_module_on_a_kernel_that_cannot_decompress() {
	local krel kdir
	krel=$(cat "$KOBJ/include/config/kernel.release") || return 1
	grep -q '^CONFIG_MODULE_DECOMPRESS=y' "$KOBJ/.config" &&
		{ fail "the patched kernel decompresses modules: nothing to test"; return 1; }
	kdir=$T/kmods/$krel
	mkdir -p "$kdir/kernel/drivers/ata"
	xz -C crc32 -c "$BUILD/kernel/test-module/devtmpfs_test.ko" \
		>"$kdir/kernel/drivers/ata/devtmpfs_test.ko.xz" || return 1
	echo 'kernel/drivers/ata/devtmpfs_test.ko.xz:' >"$kdir/modules.dep"
	# Matched by the IDE controller every pc machine has, and under
	# drivers/ata, where a driver of it lives: coldplug loads it at
	# once (coldplug.c), it is not put off until a shell.
	echo 'alias pci:v00008086d00007010sv*sd*bc*sc*i* devtmpfs_test' >"$kdir/modules.alias"
	: >"$kdir/modules.softdep"
	: >"$kdir/modules.builtin"
	echo devtmpfs_test >"$T/list"
	"$BUILD/mkrescue" --init "$BUILD/rescue-init" --kmoddir "$kdir" \
		--module-list "$T/list" -o "$T/rescue.img" 2>"$T/mkrescue.err" ||
		{ fail "mkrescue --kmoddir failed:" "$(cat "$T/mkrescue.err")"; return 1; }
	bsdtar -tf "$T/rescue.img" | grep -qx "lib/modules/$krel/kernel/drivers/ata/devtmpfs_test.ko.xz" ||
		{ fail "mkrescue did not ship devtmpfs_test.ko.xz as it is"; return 1; }
	make_root_tree "$T/root" <<'EOF'
#!/bin/sh
echo "TEST RESULT: xz root=reached"
reboot -f
EOF
	make_ext4 "$T/root" "$T/root.img" 8 "$DEBIAN_ROOT_UUID" xz-root || return 1
	boot_vm "$T/console.log" --kernel "$BZIMAGE" --initrd "$T/rescue.img" \
		--append "root=UUID=$DEBIAN_ROOT_UUID" --disk "virtio-blk:$T/root.img" || return 1
	expect_log "$T/console.log" \
		'rescue: unable to load module devtmpfs_test \(kernel/drivers/ata/devtmpfs_test\.ko\.xz\): this kernel cannot decompress modules \(no CONFIG_MODULE_DECOMPRESS\)' \
		"the line saying the kernel cannot decompress" &&
	expect_field "$T/console.log" xz root reached
}
