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
# US keys of the same passphrase do.  On 6.1 with mkrescue, two more:
# the US keys under the German map open it at the prompt's US retry;
# in the rescue shell, rescue-mount typed in German asks in German.

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
		else
			monitor "$T/mon.sock" quit	# no prompt: not 240 s more
		fi
		# shellcheck disable=SC2154 # start_vm sets it
		wait "$vm_pid"
		status=$?
		mv "$T/console.log" "$T/$case.log"
		exit "$status"
	) || { fail "$case: the VM failed:" "$(cat "$T/run-vm.err" 2>/dev/null)"; return 1; }
}

# The text of the VGA console (vgacon: a character and an attribute byte
# a cell from 0xb8000, its scrolling within the first 32 KiB) into
# $T/vga.txt, through the monitor's pmemsave (the file name relative to
# QEMU's directory, $T: HMP would read the / of a path as a division).
vga_text() {
	rm -f "$T/vga.bin"
	(cd "$T" && monitor "$T/mon.sock" "pmemsave 0xb8000 32768 vga.bin") && [ -s "$T/vga.bin" ] &&
	perl -0777 -ne 'my $t = join "", map { substr($_, 0, 1) } unpack("(a2)*", $_);
		$t =~ tr/\x00/ /; print $t' "$T/vga.bin" >"$T/vga.txt"
}

# wait_vga TEXT SECONDS: until the VGA console shows TEXT, or fail.
wait_vga() {
	local i
	for ((i = 0; i < $2 * 2; i++)); do
		vga_text && grep -qF -- "$1" "$T/vga.txt" && return 0
		sleep 0.5
	done
	fail "no \"$1\" on the VGA console within $2 s:" "$(tr -s ' ' <"$T/vga.txt" 2>/dev/null | tail -c 600)"
	return 1
}

# keymap_shell_boot: the same boot with rd.break=pre-mount: in the rescue
# shell on tty0, "rescue-mount" typed with the German keys (its - is
# where US has /), the passphrase at rescue-mount's own prompt, then
# "exit": the boot goes on with the root that rescue-mount mounted.
keymap_shell_boot() {
	local kver key steps status
	kver=$(stock_kernel_version) || return 1
	(
		# shellcheck disable=SC2034 # start_vm reads them
		BZIMAGE=/boot/vmlinuz-$kver VM_TIMEOUT=$KEYMAP_VM_TIMEOUT
		cd "$T" || exit 1	# QEMU's directory, pmemsave's
		start_vm "root=UUID=$KEYMAP_ROOT_UUID console=tty0 rd.break=pre-mount" \
			--mem 1G --disk "virtio-blk:$T/c.img" --qemu-arg -vga --qemu-arg std
		keys() { for key in "$@"; do monitor "$T/mon.sock" "sendkey $key"; done; }
		# the shell's line editor starts a moment after the line
		wait_log "$T/console.log" "rescue: starting the rescue shell" 200 && sleep 3 &&
			keys r e s c u e slash m o u n t ret &&
			wait_vga "Passphrase for /dev/vda (LUKS UUID $KEYMAP_LUKS_UUID):" 60 &&
			cp "$T/vga.txt" "$T/vga-prompt.txt" &&
			keys "${KEYS_DE[@]}" &&
			wait_vga "rescue-mount: mounted /dev/dm-0 on /newroot (ext4, ro)" 60 &&
			cp "$T/vga.txt" "$T/vga-mounted.txt" && sleep 1 &&
			keys e x i t ret
		steps=$?
		# a step failed: not 240 s more
		[ "$steps" -eq 0 ] || monitor "$T/mon.sock" quit
		# shellcheck disable=SC2154 # start_vm sets it
		wait "$vm_pid"
		status=$?
		[ "$steps" -eq 0 ] || status=1
		mv "$T/console.log" "$T/shell.log"
		exit "$status"
	) || { fail "shell: the VM failed:" "$(cat "$T/run-vm.err" 2>/dev/null)"; return 1; }
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
	expect_field "$T/retry.log" keymap marker keymap-root || return 1
	# The rescue shell types in German too, and rescue-mount knows it.
	keymap_shell_boot || return 1
	grep -qF "rescue-mount: luks: /dev/vda (UUID $KEYMAP_LUKS_UUID) waits for its passphrase on the console, keymap de (try 1 of 3)" "$T/vga-prompt.txt" ||
		{ fail "shell: rescue-mount's prompt line with keymap de not on the VGA console:" "$(tr -s ' ' <"$T/vga-prompt.txt" | tail -c 600)"; return 1; }
	expect_log "$T/shell.log" "rescue: using the root already mounted on /newroot: /dev/(dm-0|mapper/luks-$KEYMAP_LUKS_UUID) \(ext4, ro\)" \
		"shell: the boot on rescue-mount's root" &&
	expect_field "$T/shell.log" keymap marker keymap-root
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

# ---- mkrescue alone, no VM --------------------------------------------

# keymap_image OUT ARGS...: mkrescue with the stand-in init and ARGS,
# its messages in $T/stderr.
keymap_image() { # out args...
	local out=$1
	shift
	"$BUILD/mkrescue" --init "$BUILD/obj/mkrescue/test-init" -v "$@" -o "$out" \
		2>"$T/stderr" ||
		{ fail "mkrescue $* failed:" "$(grep -v ': module \|^mkrescue: /' "$T/stderr")"; return 1; }
}

# The keymap of the image IMG, extracted into $T/x: binary (loadkmap's
# magic, the size its flags give), named NAME.
expect_keymap_in() { # img name
	local size tables
	rm -rf "$T/x" && mkdir -p "$T/x" && (cd "$T/x" && bsdcpio -id --quiet <"$1") ||
		{ fail "unable to extract $1"; return 1; }
	[ -s "$T/x/etc/rescue-keymap.bmap" ] ||
		{ fail "no /etc/rescue-keymap.bmap in $1"; return 1; }
	[ "$(head -c7 "$T/x/etc/rescue-keymap.bmap")" = bkeymap ] ||
		{ fail "/etc/rescue-keymap.bmap of $1 is not a binary keymap"; return 1; }
	size=$(stat -c %s "$T/x/etc/rescue-keymap.bmap")
	tables=$(head -c 263 "$T/x/etc/rescue-keymap.bmap" | tail -c 256 | od -An -tu1 -v |
		tr -s ' ' '\n' | grep -c '^1$')
	[ "$size" -eq $((263 + tables * 256)) ] ||
		{ fail "/etc/rescue-keymap.bmap of $1: $size bytes for $tables tables"; return 1; }
	[ "$(cat "$T/x/etc/rescue-keymap.name")" = "$2" ] ||
		{ fail "/etc/rescue-keymap.name of $1: $(cat "$T/x/etc/rescue-keymap.name"), not $2"; return 1; }
}

# --keymap: an XKB layout and variant compiled, a binary map shipped as
# it is, a kbd text map compiled, us ships nothing, a name that is
# neither kbd's nor XKB's fails in one line that names it.
test_keymap_mkrescue_option() {
	command -v loadkeys >/dev/null && command -v ckbcomp >/dev/null ||
		{ fail "no loadkeys or ckbcomp (make deps: kbd, console-setup)"; return 1; }
	keymap_image "$T/de.img" --keymap de &&
	expect_keymap_in "$T/de.img" de &&
	cp "$T/x/etc/rescue-keymap.bmap" "$T/de.bmap" &&
	keymap_image "$T/nodead.img" --keymap de:nodeadkeys &&
	expect_keymap_in "$T/nodead.img" de:nodeadkeys &&
	keymap_image "$T/bin.img" --keymap "$T/de.bmap" &&
	expect_keymap_in "$T/bin.img" "$T/de.bmap" &&
	cmp -s "$T/de.bmap" "$T/x/etc/rescue-keymap.bmap" ||
		{ fail "a binary --keymap was not shipped as it is"; return 1; }
	ckbcomp fr >"$T/fr.kmap" 2>/dev/null &&
	keymap_image "$T/fr.img" --keymap "$T/fr.kmap" &&
	expect_keymap_in "$T/fr.img" "$T/fr.kmap" || return 1
	keymap_image "$T/us.img" --keymap us || return 1
	grep -q '^mkrescue: console keymap us (--keymap): the kernel.s own, none shipped$' "$T/stderr" ||
		{ fail "no line for --keymap us:" "$(grep keymap "$T/stderr")"; return 1; }
	bsdcpio -itn <"$T/us.img" 2>/dev/null | grep -q rescue-keymap &&
		{ fail "--keymap us shipped a keymap"; return 1; }
	"$BUILD/mkrescue" --init "$BUILD/obj/mkrescue/test-init" --keymap xx-nowhere \
		-o "$T/xx.img" 2>"$T/stderr" &&
		{ fail "--keymap xx-nowhere made an image"; return 1; }
	[ "$(wc -l <"$T/stderr")" -eq 1 ] &&
	grep -q '^mkrescue: unable to compile the console keymap xx-nowhere: .*ckbcomp.*; as a kbd keymap: ' "$T/stderr" ||
		{ fail "--keymap xx-nowhere: not one line naming it:" "$(cat "$T/stderr")"; return 1; }
	[ ! -e "$T/xx.img" ] || fail "--keymap xx-nowhere left $T/xx.img"
}

# With -k (here --kmoddir) and no --keymap, the machine's: XKBLAYOUT=
# and XKBVARIANT= of /etc/default/keyboard, seen through a private mount
# namespace where a file of the test's is bind-mounted on it (the host's
# own is never changed); "us" there ships nothing.
test_keymap_mkrescue_takes_the_machine_layout() {
	[ -e /etc/default/keyboard ] ||
		{ skip "no /etc/default/keyboard to mount over (make deps: console-setup)"; return 0; }
	[ ! -e /etc/vconsole.conf ] ||
		{ skip "/etc/vconsole.conf names this machine's keymap first"; return 0; }
	mkdir -p "$T/kmod/kernel" && : >"$T/kmod/modules.dep" || return 1
	printf 'XKBMODEL="pc105"\nXKBLAYOUT="%s"\nXKBVARIANT="%s"\n' de nodeadkeys >"$T/keyboard.de"
	printf 'XKBLAYOUT=us\nXKBVARIANT=\n' >"$T/keyboard.us"
	local k
	for k in de us; do
		# shellcheck disable=SC2016 # the script expands its own arguments
		unshare --mount --propagation private sh -c \
			'mount --bind "$1" /etc/default/keyboard && shift && exec "$@"' _ \
			"$T/keyboard.$k" "$BUILD/mkrescue" --init "$BUILD/obj/mkrescue/test-init" -v \
			--kmoddir "$T/kmod" --no-storage --no-disk-tools -o "$T/$k.img" 2>"$T/stderr.$k" ||
			{ fail "mkrescue --kmoddir with XKBLAYOUT=$k failed:" "$(tail -3 "$T/stderr.$k")"; return 1; }
	done
	expect_keymap_in "$T/de.img" de:nodeadkeys &&
	grep -q '^mkrescue: console keymap de:nodeadkeys (/etc/default/keyboard): 2823 bytes$' "$T/stderr.de" ||
		{ fail "no line for the machine's de:nodeadkeys:" "$(grep 'keymap [^/]' "$T/stderr.de")"; return 1; }
	grep -q '^mkrescue: console keymap us (/etc/default/keyboard): the kernel.s own, none shipped$' "$T/stderr.us" ||
		{ fail "no line for the machine's us:" "$(grep 'keymap [^/]' "$T/stderr.us")"; return 1; }
}

# The dracut module's keymap step alone (its dinfo and dwarn as lines):
# with no devtmpfs_rescue_keymap=, the layout of /etc/default/keyboard,
# bind-mounted as above; devtmpfs_rescue_keymap=us ships nothing.
test_keymap_dracut_module_takes_the_machine_layout() {
	[ -e /etc/default/keyboard ] ||
		{ skip "no /etc/default/keyboard to mount over (make deps: console-setup)"; return 0; }
	[ ! -e /etc/vconsole.conf ] ||
		{ skip "/etc/vconsole.conf names this machine's keymap first"; return 0; }
	printf 'XKBLAYOUT="de"\nXKBVARIANT=""\n' >"$T/keyboard"
	# shellcheck disable=SC2016 # the script expands its own arguments
	unshare --mount --propagation private bash -c '
		mount --bind "$1" /etc/default/keyboard || exit 1
		dinfo() { echo "I: $*"; }
		dwarn() { echo "W: $*"; }
		. "$2"
		initdir=$3/img devtmpfs_rescue_keymap_install
		initdir=$3/none devtmpfs_rescue_keymap=us devtmpfs_rescue_keymap_install
	' _ "$T/keyboard" "$TOP/dracut-module/99devtmpfs-rescue/module-setup.sh" "$T" \
		>"$T/lines" 2>&1 || { fail "the module's keymap step failed:" "$(cat "$T/lines")"; return 1; }
	grep -q '^I: devtmpfs-rescue: console keymap de (/etc/default/keyboard), loaded by rescue-init; rd.vconsole.keymap=us types in US$' "$T/lines" ||
		{ fail "no line for the machine's de:" "$(cat "$T/lines")"; return 1; }
	[ "$(head -c7 "$T/img/etc/rescue-keymap.bmap")" = bkeymap ] &&
	[ "$(cat "$T/img/etc/rescue-keymap.name")" = de ] ||
		{ fail "no binary keymap de in the image's /etc"; return 1; }
	[ ! -e "$T/none/etc/rescue-keymap.bmap" ] ||
		fail "devtmpfs_rescue_keymap=us shipped a keymap"
}
