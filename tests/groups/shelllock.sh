# SPDX-License-Identifier: GPL-2.0
# tests/groups/shelllock.sh: the shell lock (rescue/init/shelllock.c,
# mkrescue --lock-shell, --rescue-password-hash).  On a locked boot every
# path to a shell asks for the rescue password on the console, echo off:
# rd.break, a crash restart, an init= that is not the root's own; a
# wrong one is said, the third reboots; an image without a password
# gives no shell at all and boots the root's own init.  The lock comes
# from --lock-shell here (a TPM2 or tang unlock engages the same gate,
# tested in their groups); one boot is the stock kernel's (mkrescue -k).
# mkrescue refuses a yescrypt hash, which musl's crypt() cannot verify,
# and writes an image that holds a hash 0600.

. "$TOP/tests/lib/rescue-lib.sh"

SL_PASS=lock-pw-7Qx
SL_WRONG=wrong-guess-4Kd
SL_SALT=shLockSalt
SL_LOCKED="rescue-init: shell locked by this image's --lock-shell"
SL_PROMPT='want Rescue password: '
SL_SHELL='want \(rescue\)[^\n]*#\s'

# The SHA-512 crypt(3) hash of $SL_PASS, as mkpasswd -m sha-512 prints.
sl_hash() {
	openssl passwd -6 -salt "$SL_SALT" "$SL_PASS"
}

# sl_image OUT [mkrescue options]: make_image's options, and OPTIONS.
sl_image() {
	local out=$1
	shift
	"$BUILD/mkrescue" --init "$RESCUE_INIT" --busybox "$BUSYBOX" --no-storage \
		--no-disk-tools --no-e2fsck --compress none "$@" -o "$out" \
		2>"$T/mkrescue.err" || { fail "mkrescue $* failed:" "$(cat "$T/mkrescue.err")"; return 1; }
}

# A root whose own init reports "own", and /sbin/other-init "other".
sl_root() {
	make_root_dir "$T/root" own
	write_report_init "$T/root/sbin/other-init"
	# shellcheck disable=SC2016 # the init's own words, replaced
	sed -i 's|marker=$(cat /marker)|marker=other|' "$T/root/sbin/other-init"
	chmod 0755 "$T/root/sbin/other-init"
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" root
}

# sl_steps APPEND [run-vm options]: the steps of $T/steps on $T/initrd.
sl_steps() {
	local append=$1
	shift
	"$TOP/tests/tools/vm-steps.exp" "$T/console.log" "$VM_TIMEOUT" "$T/steps" \
		--kernel "${SL_KERNEL:-$BZIMAGE}" --initrd "$T/initrd" --append "$append" \
		--disk "virtio-blk:$T/root.img" "$@" ||
		{ show_log "$T/console.log" 40; return 1; }
}

# Neither the password nor the wrong guess echoed on the console.
expect_no_echo() {
	expect_no_log "$T/console.log" "$SL_PASS" "the rescue password on the console" &&
	expect_no_log "$T/console.log" "$SL_WRONG" "the wrong password on the console"
}

# ---- mkrescue ------------------------------------------------------------

# A yescrypt hash (Debian's default) is refused with how to make one
# musl verifies; a SHA-512 one lands 0600 in an image written 0600; an
# image with --lock-shell alone is not secret.
test_mkrescue_refuses_yescrypt_and_keeps_the_hash_private() {
	# shellcheck disable=SC2016 # a hash, not an expansion
	local y='$y$j9T$PaFw3Ej1G0Y4fGlBy7Q1e/$6bYb3mQ8QK9Zy0h4x4ZTqQJ0m0bOa2qJq7rPpA1P0ZB'
	if "$BUILD/mkrescue" --rescue-password-hash "$y" -o "$T/y.img" 2>"$T/y.err"; then
		fail "mkrescue took a yescrypt hash"; return 1
	fi
	grep -q 'mkrescue: the rescue password hash .* is yescrypt or scrypt, which rescue-init (musl.s crypt) cannot verify: make one with: mkpasswd -m sha-512' "$T/y.err" ||
		{ fail "no yescrypt line:" "$(cat "$T/y.err")"; return 1; }
	[ ! -e "$T/y.img" ] || { fail "an image was written"; return 1; }
	sl_hash >"$T/hash" && chmod 0600 "$T/hash"
	sl_image "$T/pw.img" --rescue-password-file "$T/hash" || return 1
	[ "$(stat -c %a "$T/pw.img")" = 600 ] || { fail "the image with a hash is $(stat -c %a "$T/pw.img"), not 600"; return 1; }
	cpio -itv <"$T/pw.img" 2>/dev/null | grep -Eq '^-rw------- .* etc/rescue-shadow$' ||
		{ fail "no 0600 /etc/rescue-shadow in the image"; return 1; }
	sl_image "$T/lock.img" --lock-shell || return 1
	[ "$(stat -c %a "$T/lock.img")" = 644 ] || { fail "the --lock-shell image is $(stat -c %a "$T/lock.img")"; return 1; }
	cpio -it <"$T/lock.img" 2>/dev/null | grep -qx etc/rescue-lock-shell ||
		{ fail "no /etc/rescue-lock-shell in the image"; return 1; }
}

# ---- boots ---------------------------------------------------------------

# rd.break asks, says a wrong password, takes the right one and gives
# the shell; a crash of PID 1 there restarts into the same question, not
# a shell; after the shell, init=/sbin/other-init (not the root's own)
# asks too, and boots with the right password.
test_rd_break_crash_and_init_ask_for_the_password() {
	sl_root || return 1
	sl_image "$T/initrd" --lock-shell --rescue-password-hash "$(sl_hash)" || return 1
	cat >"$T/steps" <<-EOF
	want $SL_LOCKED
	$SL_PROMPT
	send $SL_WRONG
	want rescue-init: wrong rescue password
	$SL_PROMPT
	send $SL_PASS
	$SL_SHELL
	send kill -SEGV 1
	want restarted after 1 crash of PID 1
	want $SL_LOCKED
	$SL_PROMPT
	send $SL_PASS
	$SL_SHELL
	send exit
	want rescue-init: init=/sbin/other-init locked by this image's --lock-shell
	$SL_PROMPT
	send $SL_PASS
	want TEST RESULT: root
	end
	EOF
	sl_steps "root=/dev/vda rd.break init=/sbin/other-init" || return 1
	expect_log "$T/console.log" 'rescue: PID 1 crashed \(signal 11\); restarting /init into the rescue shell' \
		"the crash" &&
	expect_exec_line /sbin/other-init /dev/vda ext4 ro &&
	expect_field "$T/console.log" root marker other &&
	expect_no_echo
}

# Three wrong passwords reboot, and no shell ever started.
test_three_wrong_passwords_reboot() {
	sl_root || return 1
	sl_image "$T/initrd" --lock-shell --rescue-password-hash "$(sl_hash)" || return 1
	{
		echo "want $SL_LOCKED"
		for _ in 1 2 3; do echo "$SL_PROMPT"; echo "send $SL_WRONG"; done
		echo 'want rescue-init: three wrong rescue passwords: rebooting'
		echo end
	} >"$T/steps"
	sl_steps "root=/dev/vda rd.break" || return 1
	[ "$(tr -d '\r' <"$T/console.log" | grep -c 'rescue-init: wrong rescue password$')" -eq 2 ] ||
		{ fail "expected two 'wrong rescue password' lines"; show_log "$T/console.log"; return 1; }
	expect_log "$T/console.log" 'rescue: syncing the disks$' "the reboot's sync" &&
	expect_no_log "$T/console.log" 'starting the rescue shell|\(rescue\) |TEST RESULT' "a shell or the root" &&
	expect_no_echo
}

# Locked with no password in the image: rd.break gets the refusal line
# and no shell, init=/bin/sh is refused, the root's own init boots.
test_no_password_refuses_the_shell_and_init_sh() {
	sl_root || return 1
	sl_image "$T/initrd" --lock-shell || return 1
	boot "$T/initrd" "root=/dev/vda rd.break init=/bin/sh" --disk "virtio-blk:$T/root.img" || return 1
	expect_log "$T/console.log" "^rescue-init: shell refused by this image's --lock-shell: this image has no rescue password$" \
		"the shell's refusal" &&
	expect_log "$T/console.log" "^rescue-init: init=/bin/sh refused by this image's --lock-shell: this image has no rescue password$" \
		"init=/bin/sh refused" &&
	expect_log "$T/console.log" 'rescue: booting the root.s own init /sbin/init instead' "the own init" &&
	expect_exec_line /sbin/init /dev/vda ext4 ro &&
	expect_field "$T/console.log" root marker own &&
	expect_no_log "$T/console.log" 'starting the rescue shell|\(rescue\) |Rescue password' "a shell or a prompt"
}

# The stock kernel, mkrescue -k: rd.break asks, the shell comes with
# the right password, the root boots after it.
test_stock_kernel_rd_break_asks() {
	local kver
	kver=$(stock_kernel_version) || return 1
	sl_root || return 1
	stock_image "$T/initrd" --lock-shell --rescue-password-hash "$(sl_hash)" || return 1
	cat >"$T/steps" <<-EOF
	want $SL_LOCKED
	$SL_PROMPT
	send $SL_PASS
	$SL_SHELL
	send exit
	want TEST RESULT: root
	end
	EOF
	SL_KERNEL=/boot/vmlinuz-$kver sl_steps "root=/dev/vda rd.break" --mem 512M || return 1
	expect_field "$T/console.log" root marker own &&
	expect_no_echo
}

# dracut --add devtmpfs-rescue with the lock in its settings (the
# module reads devtmpfs_rescue_password_hash= and devtmpfs_rescue_lock_shell=
# of dracut.conf, or these variables): the hash lands 0600 in an image
# dracut writes 0600, and the image's rd.break asks for the password.
test_dracut_image_carries_the_lock() {
	local kver
	kver=$(stock_kernel_version) || return 1
	sl_root || return 1
	DEVTMPFS_RESCUE_PASSWORD_HASH=$(sl_hash) DEVTMPFS_RESCUE_LOCK_SHELL=yes \
		dracut_from_tree "$T/dest" "$T/initrd" "$T/dracut.log" --no-hostonly \
		--omit "multipath nfs iscsi nbd" --add devtmpfs-rescue || return 1
	[ "$(stat -c %a "$T/initrd")" = 600 ] || { fail "the dracut image is $(stat -c %a "$T/initrd"), not 600"; return 1; }
	lsinitrd "$T/initrd" >"$T/lsinitrd" 2>&1
	grep -Eq '^-rw------- .* etc/rescue-shadow$' "$T/lsinitrd" &&
		grep -Eq ' etc/rescue-lock-shell$' "$T/lsinitrd" ||
		{ fail "no 0600 /etc/rescue-shadow and /etc/rescue-lock-shell in the dracut image:" "$(grep rescue- "$T/lsinitrd")"; return 1; }
	cat >"$T/steps" <<-EOF2
	want $SL_LOCKED
	$SL_PROMPT
	send $SL_PASS
	$SL_SHELL
	send exit
	want TEST RESULT: root
	end
	EOF2
	SL_KERNEL=/boot/vmlinuz-$kver sl_steps "root=/dev/vda rd.break" --mem 1G || return 1
	expect_field "$T/console.log" root marker own &&
	expect_no_echo
}
