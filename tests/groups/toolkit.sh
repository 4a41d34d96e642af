# SPDX-License-Identifier: GPL-2.0
# tests/groups/toolkit.sh: the rescue toolkit (busybox, e2fsck) that mkrescue
# stores as one xz-compressed archive, /etc/rescue-toolkit.cpio.xz
# (rescue/lib/toolkit.h), out of the kernel's unpacking; rescue-init
# unpacks it when the rescue shell first needs it (rescue/init/image/toolkit.c).

. "$TOP/tests/lib/rescue-lib.sh"

BLOB=etc/rescue-toolkit.cpio.xz
TOOLKIT_LINE='rescue: toolkit: 3 files unpacked for the rescue shell in [0-9]+ ms'

toolkit_image() { # out [mkrescue args]
	local out=$1
	shift
	"$BUILD/mkrescue" --init "$RESCUE_INIT" "$@" -o "$out" 2>"$T/mkrescue.err" ||
		{ fail "mkrescue failed:" "$(cat "$T/mkrescue.err")"; return 1; }
}

# The default image: the kernel unpacks the blob, not busybox or e2fsck;
# the rescue shell has both, /bin/sh is busybox's link again (rescue-init
# until then), and the blob is gone (its RAM freed).
test_toolkit_is_unpacked_for_the_rescue_shell() {
	toolkit_image "$T/rescue.img" || return 1
	bsdcpio -it <"$T/rescue.img" >"$T/list" 2>/dev/null
	grep -qx "$BLOB" "$T/list" || { fail "no /$BLOB in the image"; return 1; }
	! grep -qxE 'bin/busybox|sbin/e2fsck' "$T/list" ||
		{ fail "busybox or e2fsck unpacked by the kernel:" "$(grep -xE 'bin/busybox|sbin/e2fsck' "$T/list")"; return 1; }
	{
		result_cmd tk blob "\$(ls /$BLOB 2>/dev/null | wc -l)" \
			e2fsck "\$(e2fsck -V 2>&1 | grep -c '^e2fsck ')" \
			fsck_link "\$(readlink /sbin/fsck.ext4)" \
			mode "\$(stat -c %a /bin/busybox)" sh "\$(readlink /bin/sh)"
	} >"$T/commands"
	vm_shell "$T/console.log" "$VM_TIMEOUT" "$T/commands" --initrd "$T/rescue.img" \
		--append rescue || return 1
	expect_log "$T/console.log" "$TOOLKIT_LINE" "the toolkit line" &&
	expect_field "$T/console.log" tk blob 0 &&
	expect_field "$T/console.log" tk e2fsck 1 &&
	expect_field "$T/console.log" tk fsck_link e2fsck &&
	expect_field "$T/console.log" tk mode 755 &&
	expect_field "$T/console.log" tk sh busybox || return 1
	note "$(tr -d '\r' <"$T/console.log" | grep -oE 'toolkit: .* in [0-9]+ ms')," \
		"image $(stat -c %s "$T/rescue.img") B"
}

# A damaged blob: one line naming it and why, no shell, no panic.
# (/bin/sh is rescue-init until the toolkit is out: it tries again.)
test_damaged_toolkit_is_named() {
	local off status
	toolkit_image "$T/whole.img" --compress none || return 1
	# Its entry comes before /init, whose strings hold the name too.
	off=$(grep -obUaP "$BLOB\\x00" "$T/whole.img" | head -n1 | cut -d: -f1)
	[ -n "$off" ] || { fail "no /$BLOB entry in $T/whole.img"; return 1; }
	cp "$T/whole.img" "$T/bad.img"
	printf 'XXXX' | dd of="$T/bad.img" bs=1 seek=$((off + 4096)) conv=notrunc 2>/dev/null
	"$RUN_VM" --log "$T/console.log" --timeout 20 --kernel "$BZIMAGE" --initrd "$T/bad.img" \
		--append rescue 2>"$T/run-vm.err"
	status=$?
	[ "$status" -eq 124 ] || { fail "run-vm ended with $status, not the timeout:" "$(cat "$T/run-vm.err")"; show_log "$T/console.log"; return 1; }
	expect_log "$T/console.log" "rescue: toolkit: unable to decompress /$BLOB: not a whole \\.xz stream" \
		"the toolkit's line" &&
	expect_log "$T/console.log" 'rescue: the rescue shell /bin/sh failed to start' "the shell's line" &&
	expect_no_log "$T/console.log" 'Kernel panic|Attempted to kill init' "panic"
}
