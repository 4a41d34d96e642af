# SPDX-License-Identifier: GPL-2.0
# tests/lib/helper-vm.sh: the helper VM that makes the layers this
# machine cannot make without root (md arrays, LUKS, LVM, a btrfs
# subvolume): Debian's stock kernel $KVER boots an image of mkrescue -k
# into its rescue shell, with the disks to fill on virtio-blk, and a
# script types the commands.  Used by the lvm and stacked groups,
# tests/disks/ and tests/tools/random-layouts.

# helper_image OUT [MKRESCUE-OPTION...]: OUT, mkrescue -k $KVER with
# $RESCUE_INIT and the OPTIONs (--add-module dm_crypt, --include ...).
helper_image() {
	local out=$1
	shift
	"$BUILD/mkrescue" --init "$RESCUE_INIT" -k "$KVER" "$@" -o "$out" 2>"$out.err" ||
		{ fail "mkrescue for the helper VM failed:" "$(cat "$out.err")"; return 1; }
}

# helper_vm LOG TIMEOUT IMAGE CMDS APPEND DISK...: IMAGE (helper_image)
# on the stock kernel, "root=LABEL=no-such-root rootwait=1 APPEND" (the
# rd.*=0 that keep its rescue-init off the layers being made), the
# DISKs on virtio-blk in that order (vda, vdb, ...); CMDS is typed into
# its shell, and ends with `echo layout-done-$((6 * 7))` after the
# commands that must all have worked (the echoed command line itself
# cannot match).  Fails, with the end of LOG, when the VM failed or
# that line is missing.
helper_vm() {
	local log=$1 timeout=$2 img=$3 cmds=$4 append=$5 disk args=()
	shift 5
	for disk in "$@"; do
		args+=(--disk "virtio-blk:$disk")
	done
	"$TOP/tests/tools/vm-shell.exp" "$log" "$timeout" "$SHELL_PROMPT" "$cmds" \
		--kernel "/boot/vmlinuz-$KVER" --initrd "$img" --mem 512M \
		--append "root=LABEL=no-such-root rootwait=1${append:+ $append}" "${args[@]}" ||
		{ show_log "$log" 40; fail "the helper VM failed"; return 1; }
	grep -q 'layout-done-42' "$log" ||
		{ show_log "$log" 40; fail "the helper VM did not make the layout"; return 1; }
}
