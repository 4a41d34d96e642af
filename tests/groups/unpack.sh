# SPDX-License-Identifier: GPL-2.0
# tests/groups/unpack.sh: an image the kernel did not unpack to its end.  The
# kernel prints "Initramfs unpacking failed: ..." (or nothing, when the
# archive just ends) and runs /init from what it got; rescue-init says
# so in one line, before anything else fails in an odd way, and opens
# the rescue shell.  mkrescue marks its images at both ends
# (rescue/lib/imagemark.h).

. "$TOP/tests/lib/rescue-lib.sh"

LINE='rescue: the initramfs was not unpacked completely: '
FIGURES='MemTotal [0-9]+ MiB, the image unpacks to [0-9]+ KiB in [0-9]+ entries'

# An uncompressed rescue.img of this build.
whole_image() { # out [mkrescue args]
	local out=$1
	shift
	"$BUILD/mkrescue" --init "$RESCUE_INIT" --compress none "$@" -o "$out" \
		2>"$T/mkrescue.err" || { fail "mkrescue failed:" "$(cat "$T/mkrescue.err")"; return 1; }
}

# shell_boot IMG APPEND [run-vm args]: to the rescue shell, then off.
shell_boot() {
	local img=$1 append=$2
	shift 2
	printf '%s\n' 'want \(rescue\)[^\n]*#\s' 'send reboot -f' end >"$T/steps"
	"$TOP/tests/tools/vm-steps.exp" "$T/console.log" "$VM_TIMEOUT" "$T/steps" \
		--kernel "$BZIMAGE" --initrd "$img" --append "$append" "$@" ||
		{ show_log "$T/console.log" 40; return 1; }
}

# The archive cut just before its last entry: the kernel unpacks every
# other entry and says nothing, since the archive ends between two
# entries; the missing end marker is all that tells.
test_image_cut_before_its_last_entry_is_reported() {
	local off
	whole_image "$T/whole.img" || return 1
	# The last one: rescue-init holds the name among its strings too.
	off=$(grep -obUaP 'etc/rescue-image\.end\x00' "$T/whole.img" | tail -n1 | cut -d: -f1)
	[ -n "$off" ] || { fail "no etc/rescue-image.end entry in $T/whole.img"; return 1; }
	head -c $((off - 110)) "$T/whole.img" >"$T/cut.img"
	shell_boot "$T/cut.img" rescue || return 1
	expect_log "$T/console.log" "${LINE}its last entry /etc/rescue-image.end is missing, the image is cut short \($FIGURES\); write the image again" \
		"the unpack line" &&
	expect_log "$T/console.log" 'rescue: starting the rescue shell: what the image holds is incomplete' \
		"the rescue shell" &&
	expect_no_log "$T/console.log" 'Kernel panic' "a panic" || return 1
	# The whole image: no such line.
	shell_boot "$T/whole.img" rescue || return 1
	expect_no_log "$T/console.log" "$LINE" "the unpack line for a whole image"
}

# Short of memory, on the stock kernel with mkrescue -k (70 MB unpacked
# with the default module set and the storage and disk tools): without
# root= the initramfs is a tmpfs of half the RAM, and at 144 MiB (93 MiB
# MemTotal) the kernel stops with "write error" at the tmpfs's limit and
# runs /init anyway.  At 128 MiB the compressed image, the kernel and
# that half left so little that the kernel's OOM killer panicked first,
# once the image had grown by 0.7 MB (the nvdimm drivers).  (The
# patched kernel with rescue.img panics before /init at 32 MiB and
# below, and boots from 33: there is no size between for a line.)
test_image_short_of_memory_is_reported_on_the_stock_kernel() {
	local kver
	kver=$(stock_kernel_version) || return 1
	"$BUILD/mkrescue" --init "$RESCUE_INIT" -k "$kver" -o "$T/rescue.img" \
		2>"$T/mkrescue.err" || { fail "mkrescue -k $kver failed:" "$(cat "$T/mkrescue.err")"; return 1; }
	printf '%s\n' 'want \(rescue\)[^\n]*#\s' 'send reboot -f' end >"$T/steps"
	VM_TIMEOUT=120 "$TOP/tests/tools/vm-steps.exp" "$T/console.log" 120 "$T/steps" \
		--kernel "/boot/vmlinuz-$kver" --initrd "$T/rescue.img" --mem 144M \
		--append rescue || { show_log "$T/console.log" 40; return 1; }
	expect_log "$T/console.log" 'Initramfs unpacking failed: write error' \
		"the kernel's own line (the image did not outgrow the tmpfs?)" &&
	expect_log "$T/console.log" "${LINE}the kernel ran out of memory \(\"Initramfs unpacking failed: write error\"; $FIGURES\); boot with more memory" \
		"the unpack line" &&
	expect_log "$T/console.log" 'rescue: starting the rescue shell: what the image holds is incomplete' \
		"the rescue shell" || return 1
	note "$(tr -d '\r' <"$T/console.log" | grep -o 'MemTotal [0-9]* MiB, the image unpacks to [0-9]* KiB')"
}
