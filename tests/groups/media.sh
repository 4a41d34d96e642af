# SPDX-License-Identifier: GPL-2.0
# tests/groups/media.sh: mkrescue-media iso, the hybrid CD/USB image that
# boots a machine from outside its broken disk.  Booted by the firmware
# itself (run-vm --firmware, --boot), never by QEMU's -kernel: SeaBIOS
# and OVMF, as a CD and as a USB stick, with Secure Boot enforced through
# Debian's signed shim and GRUB, and driven at GRUB's own menu and
# prompt over the serial line.

. "$TOP/tests/lib/rescue-lib.sh"

MEDIA=$TOP/rescue/media/mkrescue-media
MEDIA_VM_TIMEOUT=${MEDIA_VM_TIMEOUT:-180}
MEDIA_LUKS_UUID=6d0c8a4e-2b1f-4e3a-9c5d-7f8e9a0b1c2d
MEDIA_LUKS_PASS=rescue-from-a-stick
# A stock kernel's boot under OVMF and TCG needs more than the default.
MEDIA_MEM=512M

# media_iso OUT KERNEL INITRD [mkrescue-media options]
media_iso() {
	local out=$1 kernel=$2 initrd=$3
	shift 3
	"$MEDIA" iso -q -k "$kernel" -i "$initrd" -o "$out" "$@" 2>"$T/media.err" ||
		{ fail "mkrescue-media iso failed:" "$(cat "$T/media.err")"; return 1; }
}

# firmware_boot LOG FIRMWARE MEDIUM: boot until rescue-init starts its
# shell, then end the VM.
firmware_boot() {
	VM_TIMEOUT=$MEDIA_VM_TIMEOUT boot_vm "$1" --firmware "$2" --boot "$3" \
		--mem "$MEDIA_MEM" --end-on 'rescue: starting the rescue shell'
}

test_iso_is_reproducible_and_names_what_is_missing() {
	local out
	SOURCE_DATE_EPOCH=1700000000 media_iso "$T/a.iso" "$BZIMAGE" "$BUILD/rescue.img" || return 1
	SOURCE_DATE_EPOCH=1700000000 media_iso "$T/b.iso" "$BZIMAGE" "$BUILD/rescue.img" || return 1
	cmp -s "$T/a.iso" "$T/b.iso" || { fail "two runs on the same inputs wrote different images"; return 1; }
	note "rescue.iso of the patched kernel: $(($(stat -c %s "$T/a.iso") / 1024)) KiB"
	# A missing input, a missing tool: one line each, and no output.
	out=$("$MEDIA" iso -k "$T/none" -i "$BUILD/rescue.img" -o "$T/c.iso" 2>&1) &&
		{ fail "a missing kernel was taken"; return 1; }
	[ "$out" = "mkrescue-media: unable to read the kernel $T/none" ] ||
		{ fail "the missing kernel's line:" "$out"; return 1; }
	mkdir -p "$T/bin"
	ln -s "$(command -v bash)" "$T/bin/bash"
	for tool in dirname readlink mktemp rm; do ln -s "$(command -v $tool)" "$T/bin/$tool"; done
	out=$(PATH=$T/bin "$MEDIA" iso -k "$BZIMAGE" -i "$BUILD/rescue.img" -o "$T/c.iso" 2>&1) &&
		{ fail "an image was written without xorriso"; return 1; }
	[ "$out" = "mkrescue-media: xorriso is missing: apt-get install xorriso" ] ||
		{ fail "the missing xorriso's line:" "$out"; return 1; }
	[ ! -e "$T/c.iso" ] && [ -z "$(find "$T" -maxdepth 1 -name '.mkrescue-media.*')" ] ||
		{ fail "a failed run left files:" "$(ls -A "$T")"; return 1; }
}

# The default entry, with no root=: GRUB's menu, the kernel's command
# line with both consoles, rescue-init's account and shell.
expect_rescue_shell_from_menu() { # log
	expect_log "$1" '\*devtmpfs-rescue ' "GRUB's menu with the rescue entry first" &&
	expect_log "$1" 'Command line: BOOT_IMAGE=/boot/vmlinuz console=tty0 console=ttyS0,115200' \
		"the entry's command line" &&
	expect_log "$1" 'rescue: starting the rescue shell' "the rescue shell"
}

test_iso_boots_the_rescue_shell_as_cd_and_usb_under_bios_and_uefi() {
	local fw kind status=0
	media_iso "$T/rescue.iso" "$BZIMAGE" "$BUILD/rescue.img" || return 1
	for fw in bios uefi; do
		for kind in cd usb; do
			firmware_boot "$T/$fw-$kind.log" "$fw" "$kind:$T/rescue.iso" &&
				expect_rescue_shell_from_menu "$T/$fw-$kind.log" ||
				{ fail "as a $kind under $fw"; status=1; continue; }
			note "$fw $kind: $(tail -n1 "$T/$fw-$kind.log.run-vm")"
		done
	done
	# Which firmware booted it: OVMF names the medium it starts.
	expect_log "$T/uefi-cd.log" 'BdsDxe: starting Boot[0-9A-F]+ "UEFI QEMU DVD-ROM' "OVMF booting the CD" &&
	expect_log "$T/uefi-usb.log" 'BdsDxe: starting Boot[0-9A-F]+ "UEFI QEMU QEMU USB HARDDRIVE' "OVMF booting the stick" &&
	return "$status"
}

# The second entry: rescue.ro=strict, chosen with the arrow key.
test_iso_strict_entry_chosen_at_the_menu() {
	media_iso "$T/rescue.iso" "$BZIMAGE" "$BUILD/rescue.img" --timeout 30 || return 1
	{
		echo 'want devtmpfs-rescue, strict read-only'
		printf 'send \033[B\n'
		echo "want $SHELL_PROMPT"
		echo 'send reboot -f'
		echo end
	} >"$T/steps"
	"$TOP/tests/tools/vm-steps.exp" "$T/console.log" "$MEDIA_VM_TIMEOUT" "$T/steps" \
		--firmware bios --boot "cd:$T/rescue.iso" ||
		{ show_log "$T/console.log" 40; return 1; }
	expect_log "$T/console.log" 'Command line: BOOT_IMAGE=/boot/vmlinuz console=tty0 console=ttyS0,115200 rescue.ro=strict' \
		"the strict entry's command line" &&
	expect_log "$T/console.log" 'rescue: strict read-only: ' "rescue-init in strict read-only"
}

# A root the medium does not name, typed at GRUB's prompt: a LUKS
# container on a stock kernel, whose passphrase rescue-init asks.
test_iso_luks_root_given_at_the_grub_prompt() {
	local kver
	kver=$(stock_kernel_version) || return 1
	stock_image "$T/rescue.img" || return 1
	media_iso "$T/rescue.iso" "/boot/vmlinuz-$kver" "$T/rescue.img" --timeout 30 || return 1
	make_root_dir "$T/root" from-the-stick
	blank_disk "$T/c.img" 64
	mke2fs -q -F -t ext4 -U "$ROOT_UUID" -L luks-root -d "$T/root" "$T/c.img" 32M ||
		{ fail "mke2fs failed"; return 1; }
	luks_encrypt "$T/c.img" "$MEDIA_LUKS_UUID" "$MEDIA_LUKS_PASS" || return 1
	record_sums "$T/c.img"
	passphrase_steps /dev/vda "$MEDIA_LUKS_UUID" "$MEDIA_LUKS_PASS"
	mv "$T/steps" "$T/unlock"
	{
		echo 'want devtmpfs-rescue, strict read-only'
		echo 'send c'
		echo 'want grub>'
		echo "send linux /boot/vmlinuz console=ttyS0,115200 root=UUID=$ROOT_UUID"
		echo 'want grub>'
		echo 'send initrd /boot/rescue.img'
		echo 'want grub>'
		echo 'send boot'
		cat "$T/unlock"
	} >"$T/steps"
	"$TOP/tests/tools/vm-steps.exp" "$T/console.log" "$MEDIA_VM_TIMEOUT" "$T/steps" \
		--firmware bios --boot "cd:$T/rescue.iso" --mem "$MEDIA_MEM" --disk "virtio-blk:$T/c.img" ||
		{ show_log "$T/console.log" 40; return 1; }
	expect_log "$T/console.log" "Command line: BOOT_IMAGE=/boot/vmlinuz console=ttyS0,115200 root=UUID=$ROOT_UUID" \
		"the command line typed at GRUB's prompt" &&
	expect_log "$T/console.log" "rescue: luks: opened /dev/vda \(LUKS2, UUID $MEDIA_LUKS_UUID\)" \
		"the container opened" &&
	expect_field "$T/console.log" root marker from-the-stick &&
	expect_field "$T/console.log" root mode ro &&
	expect_no_log "$T/console.log" "$MEDIA_LUKS_PASS" "the passphrase on the console" &&
	expect_disks_unchanged
}

# unsigned_module KO OUT: KO without the signature Debian appended
# (the module, then the PKCS#7 blob, a 12-byte struct module_signature
# whose last 4 bytes are the blob's length, big-endian, and the marker).
unsigned_module() {
	local size sig
	size=$(stat -c %s "$1")
	[ "$(tail -c 28 "$1")" = '~Module signature appended~' ] ||
		{ fail "$1 is not signed"; return 1; }
	sig=$(tail -c 32 "$1" | head -c 4 | od -An -tu1 | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 }')
	head -c $((size - 28 - 12 - sig)) "$1" >"$2"
}

# Secure Boot enforced by OVMF with Microsoft's keys: Debian's shim,
# signed GRUB and signed kernel start; the kernel locks itself down and
# rescue-init says so; Debian's modules, shipped as they are, load; one
# stripped of its signature is refused with a line that says why.
test_iso_secure_boot_stock_kernel_locked_down() {
	local kver ko
	kver=$(stock_kernel_version) || return 1
	ko=/lib/modules/$kver/kernel/lib/crc-itu-t.ko
	[ -r "$ko" ] || ko=$ko.xz
	[ "${ko%.xz}" = "$ko" ] || { fail "this test wants an uncompressed module, $ko"; return 1; }
	unsigned_module "$ko" "$T/unsigned.ko" || return 1
	stock_image "$T/rescue.img" --include "$T/unsigned.ko:/root/unsigned.ko" || return 1
	media_iso "$T/rescue.iso" "/boot/vmlinuz-$kver" "$T/rescue.img" || return 1
	cat >"$T/cmds" <<-'EOF'
	rescue-ls
	modprobe xor && grep -c '^xor ' /proc/modules
	insmod /root/unsigned.ko
	EOF
	"$TOP/tests/tools/vm-shell.exp" "$T/console.log" "$MEDIA_VM_TIMEOUT" "$SHELL_PROMPT" "$T/cmds" \
		--firmware uefi-secure --boot "usb:$T/rescue.iso" --mem "$MEDIA_MEM" ||
		{ show_log "$T/console.log" 40; return 1; }
	expect_log "$T/console.log" 'secureboot: Secure boot enabled' "the kernel seeing Secure Boot" &&
	expect_log "$T/console.log" 'Secure Boot: on; the kernel is locked down \(integrity\): it loads only modules signed by a key it trusts' \
		"rescue-ls's Secure Boot line" &&
	expect_log "$T/console.log" '^1.?$' "the signed module xor loaded" &&
	expect_log "$T/console.log" 'insmod: unable to load /root/unsigned.ko: the kernel is locked down \(Secure Boot\) and loads only modules signed by a key it trusts: this one is unsigned' \
		"the unsigned module refused, saying why"
}

# The same firmware refuses what Debian did not sign: the patched kernel.
test_iso_secure_boot_refuses_the_unsigned_patched_kernel() {
	media_iso "$T/rescue.iso" "$BZIMAGE" "$BUILD/rescue.img" --timeout 1 || return 1
	VM_TIMEOUT=$MEDIA_VM_TIMEOUT boot_vm "$T/console.log" --firmware uefi-secure \
		--boot "cd:$T/rescue.iso" --end-on 'shim signature|Press any key' || return 1
	expect_log "$T/console.log" 'bad shim signature' "GRUB refusing the kernel through shim" &&
	expect_no_log "$T/console.log" 'Linux version' "a kernel starting"
}
