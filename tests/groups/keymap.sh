# SPDX-License-Identifier: GPL-2.0
# tests/groups/keymap.sh: the console keymap at the LUKS prompt, typed on
# the VGA console's keyboard.  The image has a German keymap (mkrescue
# -k --keymap de, or the dracut module's devtmpfs_rescue_keymap=de);
# the passphrase of the LUKS root has the characters that the US and
# German layouts put on other keys (z and y swapped, - where US has /,
# / on shift-7).  QEMU has a VGA card and no display; /dev/console is
# tty0 (console=tty0 after run-vm's console=ttyS0), the serial line
# carries the kernel log, on which the test waits for rescue-init's
# "waits for its passphrase" line, then types the keys through the
# monitor's sendkey, which sends the keyboard's scancodes, not
# characters.  Per stock kernel and generator, two boots of the same
# image: the German keys open the root; with rd.vconsole.keymap=us the
# US keys of the same passphrase do.  On 6.1 with mkrescue, a third: the
# US keys under the German map open it at the prompt's US retry.

. "$TOP/tests/lib/dracut-lib.sh"

KEYMAP_LUKS_UUID=6b0e4a1c-3d2f-4e5a-9b8c-7d6e5f4a3b2c
KEYMAP_ROOT_UUID=0f9e8d7c-6b5a-4c3d-8e2f-1a0b9c8d7e6f
# The passphrase, and the keys that type it in each layout (QEMU's key
# names are the US labels of the keys).
KEYMAP_PASS='zy-/9'
KEYS_DE=(y z slash shift-7 9 ret)
KEYS_US=(z y minus slash 9 ret)
KEYMAP_VM_TIMEOUT=${KEYMAP_VM_TIMEOUT:-240}

# The root: an ext4 whose init says on the serial line (its console is
# tty0) which root it is, in a LUKS2 container of $KEYMAP_PASS.
make_keymap_root() { # img
	make_root_tree "$T/root" <<'EOF' || return 1
#!/bin/sh
[ -e /proc/mounts ] || mount -t proc proc /proc
dev=$(awk '$2 == "/" { d = $1 } END { print d }' /proc/mounts)
echo "TEST RESULT: keymap marker=$(cat /marker) dev=$dev" >/dev/ttyS0
reboot -f
EOF
	echo keymap-root >"$T/root/marker"
	blank_disk "$1" 64
	mke2fs -q -F -t ext4 -U "$KEYMAP_ROOT_UUID" -L keymap-root -d "$T/root" "$1" 32M ||
		{ fail "mke2fs in $1 failed"; return 1; }
	luks_encrypt "$1" "$KEYMAP_LUKS_UUID" "$KEYMAP_PASS"
}

# keymap_boot CASE APPEND KEYS...: the stock kernel on $T/initrd with a
# VGA card, /dev/console on it; at the prompt's line on the serial log,
# KEYS pressed one by one; the guest's log in $T/CASE.log.
keymap_boot() {
	local case=$1 append=$2 kver key status
	shift 2
	kver=$(stock_kernel_version) || return 1
	(
		# shellcheck disable=SC2034 # start_vm reads them
		BZIMAGE=/boot/vmlinuz-$kver VM_TIMEOUT=$KEYMAP_VM_TIMEOUT
		start_vm "root=UUID=$KEYMAP_ROOT_UUID console=tty0 $append" \
			--mem 1G --disk "virtio-blk:$T/c.img" --qemu-arg -vga --qemu-arg std
		if wait_log "$T/console.log" "rescue: luks: /dev/vda \(UUID $KEYMAP_LUKS_UUID\) waits for its passphrase on the console" 200; then
			for key in "$@"; do
				monitor "$T/mon.sock" "sendkey $key"
			done
		fi
		# shellcheck disable=SC2154 # start_vm sets it
		wait "$vm_pid"
		status=$?
		mv "$T/console.log" "$T/$case.log"
		exit "$status"
	) || { fail "$case: the VM failed:" "$(cat "$T/run-vm.err" 2>/dev/null)"; return 1; }
}

# The case's boot opened the container at the prompt under KEYMAP and
# reached the root's init.
expect_opened() { # case keymap
	local log=$T/$1.log
	expect_log "$log" "rescue: luks: /dev/vda \(UUID $KEYMAP_LUKS_UUID\) waits for its passphrase on the console, keymap $2 \(try 1 of 3\)" \
		"$1: the prompt under the keymap $2" &&
	expect_log "$log" "rescue: luks: opened /dev/vda \(LUKS2, UUID $KEYMAP_LUKS_UUID\)" \
		"$1: the container opened" &&
	expect_field "$log" keymap marker keymap-root &&
	expect_field "$log" keymap dev /dev/dm-0 &&
	expect_no_log "$log" "wrong passphrase" "$1: a refused passphrase"
}

# The German image: the German keys open the root; under
# rd.vconsole.keymap=us, the US keys.
keymap_german_then_us() { # generator
	make_keymap_root "$T/c.img" || return 1
	keymap_boot de "" "${KEYS_DE[@]}" || return 1
	expect_log "$T/de.log" "rescue: keymap: loaded de \([0-9]+ tables\) in [0-9]+ us" \
		"de: the keymap loaded" &&
	expect_opened de de &&
	expect_no_log "$T/de.log" "opened with the keys typed read as the US" \
		"de: the US retry" || return 1
	keymap_boot us "rd.vconsole.keymap=us" "${KEYS_US[@]}" || return 1
	expect_log "$T/us.log" "rescue: keymap: the kernel's US map \(rd.vconsole.keymap=us\), not the image's de" \
		"us: the keymap left out" &&
	expect_opened us us || return 1
	[ "$1" = mkrescue ] && [[ $(stock_kernel_version) == 6.1.* ]] || return 0
	# The US keys under the German map: refused as typed, opened as US.
	keymap_boot retry "" "${KEYS_US[@]}" || return 1
	expect_log "$T/retry.log" "rescue: luks: /dev/vda opened with the keys typed read as the US layout types them, not as de" \
		"retry: the container opened at the US retry" &&
	expect_field "$T/retry.log" keymap marker keymap-root
}

keymap_mkrescue() {
	local kver
	kver=$(stock_kernel_version) || return 1
	"$BUILD/mkrescue" --init "$BUILD/rescue-init" -k "$kver" --keymap de \
		-o "$T/initrd" 2>"$T/mkrescue.err" ||
		{ fail "mkrescue -k $kver --keymap de failed:" "$(cat "$T/mkrescue.err")"; return 1; }
	keymap_german_then_us mkrescue
}

# mkrescue -k --keymap de; on each stock kernel.
test_keymap_mkrescue_german_passphrase_on_vga() {
	for_each_stock_kernel keymap_mkrescue
}

keymap_dracut() {
	DEVTMPFS_RESCUE_KEYMAP=de dracut_from_tree "$T/dest" "$T/initrd" "$T/dracut.log" \
		--no-hostonly --add "devtmpfs-rescue crypt" \
		--omit "$(dracut_refused_modules)" || return 1
	expect_log "$T/dracut.log" "devtmpfs-rescue: console keymap de \(dracut.conf\), loaded by rescue-init" \
		"dracut's line for the keymap" || return 1
	keymap_german_then_us dracut
}

# dracut --add devtmpfs-rescue with devtmpfs_rescue_keymap=de; on each
# stock kernel.
test_keymap_dracut_german_passphrase_on_vga() {
	for_each_stock_kernel keymap_dracut
}
