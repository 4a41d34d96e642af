# SPDX-License-Identifier: GPL-2.0
# tests/groups/firmware.sh: firmware and early microcode in the images of
# mkrescue -k and of dracut --add devtmpfs-rescue, on Debian's stock
# kernels.  A test module (tests/fixtures/fwtest/) declares two firmware
# files and asks for them when it loads, in the rescue shell, before any
# root: the first is in the test's firmware directory, the second never
# is.  The kernel's own loader reads /lib/firmware of the initramfs: what
# the module got is its "fwtest:" lines in the guest's kernel log.

. "$TOP/tests/lib/rescue-lib.sh"
. "$TOP/tests/lib/mkrescue-lib.sh"
. "$TOP/tests/lib/dracut-lib.sh"

FW_NAME=devtmpfs-rescue/fwtest.bin
FW_MISSING=devtmpfs-rescue/fwtest-missing.bin
# The firmware's first 8 bytes ("FWTEST" 01 02) and its size.
FW_HEAD=4657544553540102
FW_SIZE=4099
FWTEST_TIMEOUT=${STOCK_VM_TIMEOUT:-180}

# fwtest_ko: the test module for the stock kernel, built once in
# $BUILD/fwtest/ against Debian's headers of that kernel (DEPS_PACKAGES:
# linux-headers-amd64, linux-headers-6.12-amd64), keyed on its source
# and the headers' version; never loaded on this host.
fwtest_ko() {
	local kver hdr key dir
	kver=$(stock_kernel_version) || return 1
	hdr=/usr/src/linux-headers-$kver
	[ -d "$hdr" ] || { fail "no $hdr to build the test module with (make deps)"; return 1; }
	key=$({
		cat "$TOP/tests/fixtures/fwtest/fwtest.c" "$TOP/tests/fixtures/fwtest/Kbuild"
		dpkg-query -W -f '${Version}\n' "linux-headers-$kver" 2>/dev/null
	} | sha256sum | cut -c1-16)
	dir=$BUILD/fwtest/$kver-$key
	mkdir -p "$BUILD/fwtest" || return 1
	(
		flock 9 || exit 1
		[ ! -e "$dir/fwtest.ko" ] || exit 0
		rm -rf "$dir" && mkdir -p "$dir" &&
		cp "$TOP/tests/fixtures/fwtest/fwtest.c" "$TOP/tests/fixtures/fwtest/Kbuild" "$dir/" &&
		make -s -C "$hdr" M="$dir" modules >"$dir/build.log" 2>&1
	) 9>"$BUILD/fwtest/.lock" && [ -e "$dir/fwtest.ko" ] ||
		{ fail "the test module did not build for $kver:" "$(tail -5 "$dir/build.log" 2>/dev/null)"; return 1; }
	echo "$dir/fwtest.ko"
}

# fwtest_kmoddir DIR: the stock kernel's module tree in DIR/lib/modules/KVER
# (hard links, its index files copied) with fwtest.ko in extra/, indexed
# by depmod -b: the --kmoddir of mkrescue and dracut.
fwtest_kmoddir() {
	local kver ko f dir
	kver=$(stock_kernel_version) && ko=$(fwtest_ko) || return 1
	dir=$1/lib/modules/$kver
	# Hard links where the build directory shares /lib's filesystem,
	# else a copy (400 MB for 6.1).
	mkdir -p "$1/lib/modules" &&
	{ cp -al "/lib/modules/$kver" "$dir" 2>/dev/null ||
		{ rm -rf "$dir" && cp -a "/lib/modules/$kver" "$dir"; }; } ||
		{ fail "unable to copy /lib/modules/$kver"; return 1; }
	# depmod replaces them by rename, but never write through a link.
	for f in "$dir"/modules.*; do
		cp --remove-destination "/lib/modules/$kver/${f##*/}" "$f" || return 1
	done
	mkdir -p "$dir/extra" && cp "$ko" "$dir/extra/" &&
	depmod -b "$1" "$kver" 2>"$T/depmod.err" ||
		{ fail "depmod -b $1 $kver failed:" "$(cat "$T/depmod.err")"; return 1; }
}

# fwtest_firmware DIR [xz|zst]: the present firmware in DIR, plain or
# compressed as the kernel's loader reads it (xz with CRC32 only).
fwtest_firmware() {
	local f=$1/$FW_NAME
	mkdir -p "${f%/*}" &&
	{ printf 'FWTEST\001\002'; head -c $((FW_SIZE - 8)) /dev/zero | tr '\0' 'f'; } >"$f" ||
		return 1
	case ${2:-} in
	xz) xz -C crc32 "$f" ;;
	zst) zstd -q --rm "$f" ;;
	esac
}

# fwtest_boot IMG [FWDIR [APPEND]]: the rescue shell of IMG on the stock
# kernel, where modprobe loads fwtest (rescue-init's loader) and the
# kernel log, the firmware in the guest's FWDIR (default /lib/firmware)
# and the unpacked early microcode are printed.
fwtest_boot() {
	local kver fwdir=${2:-/lib/firmware}
	kver=$(stock_kernel_version) || return 1
	cat >"$T/commands" <<-CMDS
	modprobe fwtest; echo "modprobe status \$?"
	dmesg | grep -o 'fwtest: .*' | sed 's/^/guest: /'
	ls $fwdir/devtmpfs-rescue | sed 's/^/firmware file: /'
	ls /kernel/x86/microcode 2>/dev/null | sed 's/^/microcode file: /'
	CMDS
	"$TOP/tests/tools/vm-shell.exp" "$T/console.log" "$FWTEST_TIMEOUT" "$RESCUE_PROMPT" "$T/commands" \
		--kernel "/boot/vmlinuz-$kver" --initrd "$1" --mem 512M --append "rescue${3:+ $3}" ||
		{ fail "the rescue shell's commands did not run"; show_log "$T/console.log" 30; return 1; }
}

# What the module's loads print: the size and first bytes of the present
# file, ENOENT (-2) for the missing one, at once: the kernel's direct
# loader reads /lib/firmware itself (CONFIG_FW_LOADER_USER_HELPER is on
# in Debian's kernels, its fallback is not: no helper is waited for).
expect_fwtest_loaded() { # log
	expect_log "$1" '^modprobe status 0' "modprobe fwtest" &&
	expect_log "$1" "^guest: fwtest: $FW_NAME: loaded, $FW_SIZE bytes, first bytes $FW_HEAD" \
		"the firmware loaded with its size and first bytes" &&
	expect_log "$1" "^guest: fwtest: $FW_MISSING: error -2" \
		"the missing firmware refused with ENOENT" &&
	expect_no_log "$1" 'Kernel panic' "a kernel panic"
}

# mkrescue -k with the test module (--add-module) and the firmware
# compressed as the kernel's loader reads it (xz on 6.1, whose loader has
# no zstd; zstd on 6.12): the present file is shipped as it is, the
# missing one named, the image written; the guest's module gets the file.
# The image also starts with early microcode from a fixture: it still
# boots, and the kernel unpacks that archive too (TCG's CPU takes no
# microcode: the files are only carried).
test_mkrescue_ships_the_declared_firmware() {
	for_each_stock_kernel mkrescue_ships_the_declared_firmware
}

mkrescue_ships_the_declared_firmware() {
	local kver form=xz
	kver=$(stock_kernel_version) || return 1
	case $kver in 6.1.*) ;; *) form=zst ;; esac
	fwtest_kmoddir "$T/kmod" && fwtest_firmware "$T/fw" "$form" &&
	microcode_fixture "$T/ucode" || return 1
	MKRESCUE_CACHE=$T/cache "$BUILD/mkrescue" --init "$RESCUE_INIT" -k "$kver" \
		--kmoddir "$T/kmod/lib/modules/$kver" --no-storage --no-disk-tools \
		--add-module fwtest --firmware-dir "$T/fw" --microcode-dir "$T/ucode" \
		-o "$T/rescue.img" 2>"$T/mkrescue.err" ||
		{ fail "mkrescue -k $kver --add-module fwtest failed:" "$(cat "$T/mkrescue.err")"; return 1; }
	grep -qxF "mkrescue: possible missing firmware $FW_MISSING for module fwtest (not in $T/fw)" "$T/mkrescue.err" ||
		{ fail "mkrescue did not name the missing firmware:" "$(cat "$T/mkrescue.err")"; return 1; }
	tail -c +"$(($(newc_walk end "$T/rescue.img") + 1))" "$T/rescue.img" | zstdcat | bsdcpio -it 2>/dev/null >"$T/list"
	grep -qx "lib/firmware/$FW_NAME.$form" "$T/list" ||
		{ fail "no lib/firmware/$FW_NAME.$form in the image:" "$(grep firmware "$T/list")"; return 1; }
	fwtest_boot "$T/rescue.img" || return 1
	expect_fwtest_loaded "$T/console.log" &&
	expect_log "$T/console.log" "^firmware file: fwtest.bin.$form" "the firmware in the guest's /lib/firmware" &&
	expect_log "$T/console.log" '^microcode file: AuthenticAMD.bin' "the early microcode unpacked too" &&
	expect_log "$T/console.log" '^microcode file: GenuineIntel.bin' "the early microcode unpacked too" || return 1
	note "$kver: $(tr -d '\r' <"$T/console.log" | grep -o 'fwtest: devtmpfs-rescue/fwtest.bin: .*' | head -n1) (.$form)"
}

# The same module through dracut --add devtmpfs-rescue, dracut's default
# modules less those rescue-init refuses (as the shared image): dracut's
# own firmware install (--fwdir) puts the file in; rescue-init's loader
# loads the module and the kernel finds the file.  dracut installs a
# firmware file at its host path, the test's directory here, not
# /lib/firmware: the kernel looks there with firmware_class.path=, the
# first of the loader's paths (and the first of dracut's default ones).
test_dracut_installs_the_declared_firmware() {
	for_each_stock_kernel dracut_installs_the_declared_firmware
}

dracut_installs_the_declared_firmware() {
	local kver fw
	kver=$(stock_kernel_version) || return 1
	fwtest_kmoddir "$T/kmod" && fwtest_firmware "$T/fw" || return 1
	fw=$(cd "$T/fw" && pwd)
	dracut_from_tree "$T/dest" "$T/dracut.img" "$T/dracut.log" \
		--no-hostonly --add devtmpfs-rescue --omit "$(dracut_refused_modules)" \
		--kmoddir "$T/kmod/lib/modules/$kver" --fwdir "$fw" --add-drivers fwtest || return 1
	fwtest_boot "$T/dracut.img" "$fw" "firmware_class.path=$fw" || return 1
	expect_fwtest_loaded "$T/console.log" &&
	expect_log "$T/console.log" '^firmware file: fwtest.bin' "the firmware in the guest's $fw" || return 1
	note "$kver: $(tr -d '\r' <"$T/console.log" | grep -o 'fwtest: devtmpfs-rescue/fwtest.bin: .*' | head -n1)"
}

# After switch_root the kernel's loader reads the root's /lib/firmware:
# it looks up paths from the root of PID 1's filesystem context, which
# the kernel's own threads share with it (CLONE_FS), and rescue-init
# chroots in PID 1 itself (switchroot.c).  The image carries one
# fwtest.bin, the root another of another size; the module loads only in
# the root (its init's insmod): it gets the root's.
test_after_switch_root_the_roots_firmware() {
	for_each_stock_kernel after_switch_root_the_roots_firmware
}

after_switch_root_the_roots_firmware() {
	local kver
	kver=$(stock_kernel_version) || return 1
	fwtest_kmoddir "$T/kmod" && fwtest_firmware "$T/fw" || return 1
	MKRESCUE_CACHE=$T/cache "$BUILD/mkrescue" --init "$RESCUE_INIT" -k "$kver" \
		--kmoddir "$T/kmod/lib/modules/$kver" --no-storage --no-disk-tools \
		--add-module fwtest --firmware-dir "$T/fw" -o "$T/rescue.img" 2>"$T/mkrescue.err" ||
		{ fail "mkrescue -k $kver failed:" "$(cat "$T/mkrescue.err")"; return 1; }
	make_root_tree "$T/root" <<-'INIT'
	#!/bin/sh
	mount -t proc proc /proc
	insmod /lib/fwtest.ko
	dmesg | grep -o 'fwtest: .*' | sed 's/^/root: /'
	reboot -f
	INIT
	mkdir -p "$T/root/lib/firmware/devtmpfs-rescue" &&
	cp "$T/kmod/lib/modules/$kver/extra/fwtest.ko" "$T/root/lib/" &&
	{ printf 'ROOTFW\001\002'; head -c 4992 /dev/zero | tr '\0' 'r'; } >"$T/root/lib/firmware/$FW_NAME" &&
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" root || return 1
	VM_TIMEOUT=$FWTEST_TIMEOUT boot_vm "$T/console.log" --kernel "/boot/vmlinuz-$kver" \
		--initrd "$T/rescue.img" --mem 512M --append "root=UUID=$ROOT_UUID" \
		--disk "virtio-blk:$T/root.img" || return 1
	expect_exec_line /sbin/init /dev/vda ext4 ro &&
	expect_log "$T/console.log" "^root: fwtest: $FW_NAME: loaded, 5000 bytes, first bytes 524f4f5446570102" \
		"the root's firmware (5000 bytes, ROOTFW), not the image's" &&
	expect_log "$T/console.log" "^root: fwtest: $FW_MISSING: error -2" "the missing one refused at once"
}

# ---- early microcode, no boot ---------------------------------------------

# microcode_fixture DIR: what intel-microcode and amd64-microcode install
# in /lib/firmware (neither is installable here: non-free-firmware is not
# in apt's sources), made up: two Intel files, a signature to leave out,
# two AMD .bin files and a file that is not one.
microcode_fixture() {
	mkdir -p "$1/intel-ucode" "$1/amd-ucode" || return 1
	printf 'intel 06-8e-09 %0100d\n' 1 >"$1/intel-ucode/06-8e-09"
	printf 'intel 06-55-04 %0200d\n' 2 >"$1/intel-ucode/06-55-04"
	printf 'signature\n' >"$1/intel-ucode/06-55-04.asc"
	printf 'amd fam17h %0300d\n' 3 >"$1/amd-ucode/microcode_amd_fam17h.bin"
	printf 'amd fam15h %0050d\n' 4 >"$1/amd-ucode/microcode_amd_fam15h.bin"
	printf 'not microcode\n' >"$1/amd-ucode/README"
}

# A -k image with --microcode-dir starts with an uncompressed newc archive
# of kernel/x86/microcode/GenuineIntel.bin and AuthenticAMD.bin, the
# concatenations (in name order) of the fixture's Intel files and AMD .bin
# files, byte for byte; the rest is the image without microcode, byte
# for byte; two builds are the same bytes.
test_microcode_starts_the_image() {
	mk_setup || return 1
	local kver size
	kver=$(stock_kernel_version) || return 1
	microcode_fixture "$T/ucode"
	export SOURCE_DATE_EPOCH=1700000000 MKRESCUE_CACHE=$T/cache
	mk -k "$kver" --microcode-dir "$T/ucode" -o "$T/a.img" 2>"$T/a.err" &&
	mk -k "$kver" --microcode-dir "$T/ucode" -o "$T/b.img" 2>"$T/b.err" &&
	mk -k "$kver" --no-microcode -o "$T/plain.img" 2>"$T/plain.err" ||
		{ fail "mkrescue -k $kver --microcode-dir failed:" "$(cat "$T"/*.err)"; return 1; }
	cmp -s "$T/a.img" "$T/b.img" || { fail "two builds with microcode differ"; return 1; }
	[ "$(head -c 6 "$T/a.img")" = 070701 ] ||
		{ fail "the image does not start with a newc header: $(head -c 6 "$T/a.img" | od -An -c)"; return 1; }
	newc_headers "$T/a.img" >"$T/headers" || { fail "the early archive is not newc"; return 1; }
	awk '{ print $2, $3, $4, $6, $NF }' "$T/headers" >"$T/entries"
	printf '%s\n' '40755 0 0 1700000000 kernel' '40755 0 0 1700000000 kernel/x86' \
		'40755 0 0 1700000000 kernel/x86/microcode' \
		'100644 0 0 1700000000 kernel/x86/microcode/GenuineIntel.bin' \
		'100644 0 0 1700000000 kernel/x86/microcode/AuthenticAMD.bin' >"$T/want"
	cmp -s "$T/entries" "$T/want" ||
		{ fail "the early archive's entries (mode uid gid mtime name):" "$(diff "$T/want" "$T/entries")"; return 1; }
	mkdir -p "$T/x" && (cd "$T/x" && bsdcpio -id --quiet <"$T/a.img") || { fail "unable to extract the early archive"; return 1; }
	cat "$T/ucode/intel-ucode/06-55-04" "$T/ucode/intel-ucode/06-8e-09" >"$T/intel.want"
	cat "$T/ucode/amd-ucode/microcode_amd_fam15h.bin" "$T/ucode/amd-ucode/microcode_amd_fam17h.bin" >"$T/amd.want"
	cmp "$T/intel.want" "$T/x/kernel/x86/microcode/GenuineIntel.bin" &&
	cmp "$T/amd.want" "$T/x/kernel/x86/microcode/AuthenticAMD.bin" ||
		{ fail "the microcode files are not the concatenations of the fixture's"; return 1; }
	size=$(newc_walk end "$T/a.img") || { fail "the early archive has no trailer"; return 1; }
	tail -c +"$((size + 1))" "$T/a.img" | cmp -s - "$T/plain.img" ||
		{ fail "after the early archive ($size bytes) the image is not the one without microcode"; return 1; }
	note "early archive: $size bytes before $(stat -c %s "$T/plain.img") of image"
}

# With neither vendor's files, -k writes no early archive (the default
# firmware directory of a host without the packages); --microcode-dir
# naming such a directory is one error line.
test_microcode_absent() {
	mk_setup || return 1
	local kver
	kver=$(stock_kernel_version) || return 1
	mkdir -p "$T/empty"
	MKRESCUE_CACHE=$T/cache mk -k "$kver" --firmware-dir "$T/empty" -o "$T/a.img" 2>"$T/a.err" ||
		{ fail "mkrescue -k failed:" "$(cat "$T/a.err")"; return 1; }
	[ "$(od -An -tx1 -N4 "$T/a.img" | tr -d ' ')" = 28b52ffd ] ||
		{ fail "an image without microcode does not start with zstd: $(od -An -tx1 -N4 "$T/a.img")"; return 1; }
	MKRESCUE_CACHE=$T/cache expect_failure "has no intel-ucode/ or amd-ucode/\*.bin" "$T/b.img" \
		mk -k "$kver" --microcode-dir "$T/empty"
}

# Where a declared file is looked for, as the kernel does: plain before
# .zst before .xz, updates/ before the directory; a form the kernel's
# loader cannot read (/boot/config-KVER: 6.1 has no zstd) is passed over.
test_firmware_lookup_order() {
	for_each_stock_kernel firmware_lookup_order
}

firmware_lookup_order() {
	mk_setup || return 1
	local kver form=zst
	kver=$(stock_kernel_version) || return 1
	case $kver in 6.1.*) form=xz ;; esac
	fwtest_kmoddir "$T/kmod" || return 1
	fwtest_firmware "$T/fw" xz && fwtest_firmware "$T/fw" zst &&
	mkdir -p "$T/fw/updates/devtmpfs-rescue" &&
	printf 'newer\n' >"$T/fw/updates/$FW_MISSING" || return 1
	MKRESCUE_CACHE=$T/cache mk -k "$kver" --kmoddir "$T/kmod/lib/modules/$kver" --no-storage \
		--no-disk-tools --add-module fwtest --firmware-dir "$T/fw" --compress none \
		-o "$T/a.img" 2>"$T/a.err" || { fail "mkrescue failed:" "$(cat "$T/a.err")"; return 1; }
	list_image_into "$T/a.img" "$T/list" || return 1
	awk '$1 ~ /^-/ && $4 ~ /^lib\/firmware\// { print $4 }' "$T/list" | sort >"$T/fw.list"
	printf '%s\n' "lib/firmware/devtmpfs-rescue/fwtest.bin.$form" \
		lib/firmware/updates/devtmpfs-rescue/fwtest-missing.bin >"$T/want"
	cmp -s "$T/fw.list" "$T/want" ||
		{ fail "the firmware files shipped:" "$(diff "$T/want" "$T/fw.list")"; return 1; }
	[ ! -s "$T/a.err" ] || { fail "mkrescue said, with every file there:" "$(cat "$T/a.err")"; return 1; }
}
