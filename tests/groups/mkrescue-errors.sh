# SPDX-License-Identifier: GPL-2.0
# tests/groups/mkrescue-errors.sh: mkrescue's bad input, on the host: each gives
# one error line naming the culprit, a non-zero exit and no file at -o;
# a failed or interrupted run keeps the previous image and leaves no
# temporary; --help and the man page name every option.

. "$TOP/tests/lib/mkrescue-lib.sh"

# ---- bad input: one line, non-zero, nothing written ---------------------

test_missing_busybox_is_one_error() {
	mk_setup || return 1
	expect_failure "$T/no-busybox" "$T/rescue.img" mk --busybox "$T/no-busybox"
}

test_dynamic_busybox_is_one_error() {
	mk_setup || return 1
	expect_failure "/bin/ls .*not a static executable" "$T/rescue.img" \
		mk --busybox /bin/ls || return 1
	printf '#!/bin/sh\n' >"$T/script" && chmod +x "$T/script"
	expect_failure "$T/script .*not an ELF executable" "$T/rescue.img" \
		mk --busybox "$T/script"
}

test_missing_init_is_one_error() {
	mk_setup || return 1
	expect_failure "$T/no-init" "$T/rescue.img" mk --init "$T/no-init"
}

test_unknown_kernel_version_is_one_error() {
	mk_setup || return 1
	expect_failure "0\\.0\\.0-nokernel" "$T/rescue.img" mk -k 0.0.0-nokernel
}

test_module_without_its_ko_is_one_error() {
	mk_setup || return 1
	make_fake_kmoddir "$T/kmods/9.9.9-fake"
	rm "$T/kmods/9.9.9-fake/kernel/drivers/beta.ko"
	expect_failure "module beta .*beta\\.ko" "$T/rescue.img" \
		mk --kmoddir "$T/kmods/9.9.9-fake" --module-list "$T/kmods/9.9.9-fake/list" || return 1
	rm "$T/kmods/9.9.9-fake/kernel/drivers/gamma-x.ko"
	printf 'gamma_x\n' >"$T/kmods/list2"
	expect_failure "module gamma_x .*gamma-x\\.ko" "$T/rescue.img" \
		mk --kmoddir "$T/kmods/9.9.9-fake" --module-list "$T/kmods/list2"
}

test_unknown_add_module_is_one_error() {
	mk_setup && for_each_stock_kernel unknown_add_module_is_one_error
}

unknown_add_module_is_one_error() {
	KVER=$(stock_kernel_version) || return 1
	expect_failure "module no_such_mod.*${KVER//+/\\+}" "$T/rescue.img" \
		mk -k "$KVER" --add-module no_such_mod
}

test_missing_include_is_one_error() {
	mk_setup || return 1
	expect_failure "$T/no-such-file" "$T/rescue.img" \
		mk --include "$T/no-such-file:/etc/x" || return 1
	echo x >"$T/file"
	expect_failure "add /init \(--include" "$T/rescue.img" mk --include "$T/file:/init"
}

test_unwritable_output_is_one_error() {
	mk_setup || return 1
	expect_failure "$T/no-dir" "$T/no-dir/rescue.img" mk || return 1
	mkdir "$T/ro" && chmod 0555 "$T/ro"
	# root writes anywhere: check as nobody when running as root.
	if [ "$(id -u)" -eq 0 ]; then
		chmod o+x "$T"
		expect_failure "$T/ro" "$T/ro/rescue.img" \
			setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$MKRESCUE" --init "$MK_INIT"
	else
		expect_failure "$T/ro" "$T/ro/rescue.img" mk
	fi
}

# --ssh-authorized-keys takes public keys only: "a private key is
# refused" (README), in one line that names the file and says why, even
# with a public key beside it in the file.  Its .pub is accepted.
test_private_key_as_ssh_authorized_keys_is_refused() {
	mk_setup || return 1
	local keys status
	ssh-keygen -q -t ed25519 -N '' -C rescue-test -f "$T/id_ed25519" ||
		{ fail "ssh-keygen failed"; return 1; }
	cat "$T/id_ed25519.pub" "$T/id_ed25519" >"$T/both"
	# A PuTTY private key (.ppk, the shape puttygen writes): its public
	# part looks like an authorized_keys line, its private part follows.
	printf '%s\n' 'PuTTY-User-Key-File-3: ecdsa-sha2-nistp256' 'Encryption: none' \
		'Comment: rescue-test' 'Public-Lines: 1' \
		'AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBExample' \
		'Private-Lines: 1' 'AAAAIQDExamplePrivatePart' 'Private-MAC: 00' >"$T/key.ppk"
	for keys in "$T/id_ed25519" "$T/both" "$T/key.ppk"; do
		mk --ssh-authorized-keys "$keys" -o "$T/rescue.img" >"$T/stdout" 2>"$T/stderr"
		status=$?
		[ "$status" -ne 0 ] ||
			{ fail "mkrescue took the private key $keys as authorized_keys"; return 1; }
		[ "$(wc -l <"$T/stderr")" -eq 1 ] ||
			{ fail "expected one error line for $keys, got:" "$(cat "$T/stderr")"; return 1; }
		grep -qE "^mkrescue: .*--ssh-authorized-keys $keys: .*private key" "$T/stderr" ||
			{ fail "the error does not name $keys and say it is a private key:" \
				"$(cat "$T/stderr")"; return 1; }
		expect_no_file_left "$T/rescue.img" || return 1
	done
	mk --ssh-authorized-keys "$T/id_ed25519.pub" -o "$T/rescue.img" 2>"$T/stderr" ||
		fail "the public key was refused too:" "$(cat "$T/stderr")"
}

# --ssh-host-key FILE that is missing, a directory or unreadable: one
# line naming it, no image, rather than an image with no host key.
test_missing_or_unreadable_ssh_host_key_is_one_error() {
	mk_setup || return 1
	ssh_user_and_host_keys || return 1
	expect_failure "--ssh-host-key $T/no-key: No such file" "$T/rescue.img" \
		mk --ssh-authorized-keys "$T/user.pub" --ssh-host-key "$T/no-key" || return 1
	mkdir "$T/key-dir"
	expect_failure "$T/key-dir: Is a directory" "$T/rescue.img" \
		mk --ssh-authorized-keys "$T/user.pub" --ssh-host-key "$T/key-dir" || return 1
	chmod 0600 "$T/host_key"
	# root reads anything: check as nobody when running as root.
	if [ "$(id -u)" -eq 0 ]; then
		chmod o+x "$T" && chmod o+r "$T/user.pub" && mkdir -m 0777 "$T/out" ||
			return 1
		expect_failure "$T/host_key: Permission denied" "$T/out/rescue.img" \
			setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$MKRESCUE" --init "$MK_INIT" --ssh-authorized-keys "$T/user.pub" \
			--ssh-host-key "$T/host_key"
	else
		chmod 0 "$T/host_key"
		expect_failure "$T/host_key: Permission denied" "$T/rescue.img" \
			mk --ssh-authorized-keys "$T/user.pub" --ssh-host-key "$T/host_key"
	fi
}

# A --ssh-host-key that dropbear could not load at boot is refused now,
# in one line naming it (L4 of the review): a file that is no key, and
# an OpenSSH key with a passphrase, which dropbearconvert cannot read.
test_ssh_host_key_dropbear_cannot_load_is_refused() {
	mk_setup || return 1
	ssh-keygen -q -t ed25519 -N '' -f "$T/user" &&
	ssh-keygen -q -t ed25519 -N 'secret' -f "$T/with_passphrase" ||
		{ fail "ssh-keygen failed"; return 1; }
	echo "not a key" >"$T/not_a_key"
	expect_failure "--ssh-host-key $T/not_a_key: not a host key" "$T/rescue.img" \
		mk --ssh-authorized-keys "$T/user.pub" --ssh-host-key "$T/not_a_key" || return 1
	expect_failure "--ssh-host-key $T/with_passphrase: .*passphrase" "$T/rescue.img" \
		mk --ssh-authorized-keys "$T/user.pub" --ssh-host-key "$T/with_passphrase"
}

# The persistent host key cannot be made where it goes: one line naming
# it and saying how to give one, no image (not a throwaway key whose
# fingerprint would change at every build).
test_unwritable_default_ssh_host_key_is_one_error() {
	mk_setup || return 1
	ssh-keygen -q -t ed25519 -N '' -f "$T/user" || { fail "ssh-keygen failed"; return 1; }
	mkdir -m 0555 "$T/ro" && chmod o+x "$T" && chmod o+r "$T/user.pub" &&
		mkdir -m 0777 "$T/out" || return 1
	# root writes anywhere: as nobody when running as root.
	local as=()
	[ "$(id -u)" -ne 0 ] || as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	expect_failure "make the SSH host key $T/ro/key: Permission denied .*--ssh-host-key" \
		"$T/out/rescue.img" env MKRESCUE_SSH_HOST_KEY="$T/ro/key" "${as[@]}" \
		"$MKRESCUE" --init "$MK_INIT" --ssh-authorized-keys "$T/user.pub" || return 1
	[ ! -e "$T/ro/key" ] || fail "a key was left in $T/ro"
}

test_failed_run_keeps_the_previous_image() {
	mk_setup || return 1
	mk -o "$T/rescue.img" && cp "$T/rescue.img" "$T/before" || return 1
	mk --busybox "$T/no-busybox" -o "$T/rescue.img" 2>/dev/null &&
		{ fail "a run with a missing busybox succeeded"; return 1; }
	cmp "$T/rescue.img" "$T/before" || { fail "the previous image changed"; return 1; }
	! compgen -G "$T/.rescue.img.*" >/dev/null || { fail "a temporary is left"; return 1; }
	mkdir "$T/dir.img"
	mk -o "$T/dir.img" 2>"$T/stderr" && { fail "-o DIRECTORY succeeded"; return 1; }
	[ "$(wc -l <"$T/stderr")" -eq 1 ] && grep -q "unable to write $T/dir.img" "$T/stderr" ||
		{ fail "-o DIRECTORY:" "$(cat "$T/stderr")"; return 1; }
	[ -z "$(ls -A "$T/dir.img")" ] || fail "something was written into $T/dir.img"
}

test_write_error_removes_the_temporary() {
	mk_setup || return 1
	mk -o "$T/rescue.img" && cp "$T/rescue.img" "$T/before" || return 1
	# A file size limit of 256 KiB: the write fails with EFBIG midway.
	(
		ulimit -f 256
		trap '' XFSZ
		expect_failure "$T/new.img: .*File too large" "$T/new.img" mk
	) || return 1
	[ ! -e "$T/new.img" ] || { fail "a partial image is left"; return 1; }
	(
		ulimit -f 256
		trap '' XFSZ
		mk -o "$T/rescue.img" 2>/dev/null
	) && { fail "a write past the file size limit succeeded"; return 1; }
	cmp "$T/rescue.img" "$T/before" || { fail "the previous image changed"; return 1; }
	expect_no_file_left "$T/new.img"
}

test_sigterm_removes_the_temporary() {
	mk_setup || return 1
	# zstd -19 takes about a second: long enough to be caught writing.
	"$MKRESCUE" --init "$MK_INIT" --compress-level 19 -o "$T/rescue.img" &
	local pid=$! i=0
	while ! compgen -G "$T/.rescue.img.*" >/dev/null && [ $i -lt 200 ]; do
		sleep 0.01; i=$((i + 1))
	done
	kill -TERM "$pid"
	wait "$pid"
	[ $? -eq 143 ] || { fail "mkrescue did not die of SIGTERM"; return 1; }
	expect_no_file_left "$T/rescue.img"
}

test_help_and_man_page_name_every_option() {
	mk_setup || return 1
	"$MKRESCUE" --help >"$T/help" || { fail "--help failed"; return 1; }
	"$MKRESCUE" --version | grep -q '^mkrescue ' || { fail "--version"; return 1; }
	local opt
	while read -r opt; do
		grep -qF -- "${opt//-/\\-}" "$TOP/rescue/mkrescue/mkrescue.8" ||
			{ fail "$opt is not in rescue/mkrescue/mkrescue.8"; return 1; }
	done < <(grep -oE -- '--[a-z][a-z0-9-]+' "$T/help" | sort -u)
	[ "$(grep -cE -- '^ +(-[a-z], )?--' "$T/help")" -ge 15 ] ||
		fail "--help lists fewer than 15 options"
}
