# SPDX-License-Identifier: GPL-2.0
# tests/groups/crypttab.sh: the root's /etc/crypttab in the image (mkrescue
# --crypttab; dracut's crypt module under hostonly) and rd.luks.name=,
# rd.luks.options=: rescue-init names the containers as crypttab does
# (the booted system's fstab and systemd-cryptsetup expect that name),
# passes discard to dm-crypt, refuses keyscript= with a line, opens the
# entries marked initramfs with the passphrase typed once, and opens a
# container whose LUKS header is detached.  On the stock kernel (mkrescue
# -k): the image must carry the crypttab.  Then a Debian 12 root on LUKS,
# with crypttab and fstab as Debian's installer writes them, booted to
# multi-user.target with no failed unit on the stock 6.1 and 6.12
# through mkrescue -k and dracut --add devtmpfs-rescue.  Containers are
# written from userspace (tests/lib/lib.sh luks_encrypt), never with
# this machine's dm or loop.

. "$TOP/tests/lib/rescue-lib.sh"
. "$TOP/tests/lib/stacked-lib.sh"

CT_UUID=4c1e2d3f-5a6b-4c7d-8e9f-0a1b2c3d4e5f
CT_DATA_UUID=7d2e3f40-6b7c-4d8e-9fa0-1b2c3d4e5f60
CT_PASS=correct-horse-7
CT_VM_TIMEOUT=${CT_VM_TIMEOUT:-240}
# shellcheck disable=SC2034 # stack_steps reads it (tests/lib/stacked-lib.sh)
STACK_VM_TIMEOUT=$CT_VM_TIMEOUT

# ct_root IMG MARKER [UUID]: a 64 MiB LUKS2 container (UUID, default
# $CT_UUID; passphrase $CT_PASS) holding the ext4 root whose init
# reports MARKER.
ct_root() {
	make_root_dir "$T/root" "$2"
	blank_disk "$1" 64
	mke2fs -q -F -t ext4 -U "$ROOT_UUID" -L ct-root -d "$T/root" "$1" 32M ||
		{ fail "mke2fs in $1 failed"; return 1; }
	luks_encrypt "$1" "${3:-$CT_UUID}" "$CT_PASS"
}

# ct_image [MKRESCUE-OPTIONS]: $T/initrd, mkrescue -k for the stock
# kernel with the storage tools and the OPTIONS (--crypttab FILE).
ct_image() {
	KVER=$(stock_kernel_version) || return 1
	"$BUILD/mkrescue" --init "$RESCUE_INIT" -k "$KVER" --storage "$@" \
		-o "$T/initrd" 2>"$T/mkrescue.err" ||
		{ fail "mkrescue -k $KVER $* failed:" "$(cat "$T/mkrescue.err")"; return 1; }
}

# The passphrase nowhere in what the console showed, the root booted
# read-only from dm-0.
expect_ct_root() { # marker
	expect_field "$T/console.log" root marker "$1" &&
	expect_field "$T/console.log" root mode ro &&
	expect_no_log "$T/console.log" "$CT_PASS" "the passphrase on the console"
}

# Debian's installer's crypttab: the container named vda_crypt-style
# from its LUKS UUID, with discard.  root= names it by that name; in
# the rescue shell at rd.break=pre-pivot, /dev/mapper has it and its dm
# table ends with allow_discards.
test_crypttab_names_the_container_and_allows_discards() {
	ct_root "$T/c.img" ct-name || return 1
	printf '# <target name> <source device> <key file> <options>\nroot_crypt UUID=%s none luks,discard\n' \
		"$CT_UUID" >"$T/crypttab"
	ct_image --crypttab "$T/crypttab" || return 1
	cat >"$T/steps" <<-EOF
	want Passphrase for /dev/vda \\(LUKS UUID $CT_UUID\\):
	send $CT_PASS
	want \\(rescue\\) # 
	send ls /dev/mapper; dmsetup table
	want root_crypt: 0 [0-9]+ crypt aes-xts-plain64 .* 1 allow_discards
	want \\(rescue\\) # 
	send exit
	want TEST RESULT: root
	end
	EOF
	stack_steps "root=/dev/mapper/root_crypt rd.break=pre-pivot" --disk "virtio-blk:$T/c.img" || return 1
	expect_log "$T/console.log" \
		"rescue: luks: opened /dev/vda \(LUKS2, UUID $CT_UUID\) as dm-0 \(/dev/mapper/root_crypt\), named by /etc/crypttab line 2, discards allowed$" \
		"the container opened under its crypttab name, with discards" &&
	expect_log "$T/console.log" "^(control +)?root_crypt( +control)?.?$" "root_crypt in /dev/mapper" &&
	expect_log "$T/console.log" "rescue: found root /dev/mapper/root_crypt on /dev/dm-0" \
		"the root found by its crypttab name" &&
	expect_ct_root ct-name
}

# rd.luks.name=UUID=NAME and rd.luks.options=UUID=discard, no crypttab:
# systemd's parameters name the container and give its options.
test_rd_luks_name_and_options() {
	ct_root "$T/c.img" ct-cmdline || return 1
	ct_image || return 1
	passphrase_steps /dev/vda "$CT_UUID" "$CT_PASS"
	stack_steps "root=/dev/mapper/cmd_crypt rd.luks.name=$CT_UUID=cmd_crypt rd.luks.options=$CT_UUID=discard" \
		--disk "virtio-blk:$T/c.img" || return 1
	expect_log "$T/console.log" \
		"rescue: luks: opened /dev/vda \(LUKS2, UUID $CT_UUID\) as dm-0 \(/dev/mapper/cmd_crypt\), named by rd.luks.name=, discards allowed$" \
		"the container named by rd.luks.name=, with rd.luks.options='s discard" &&
	expect_ct_root ct-cmdline
}

# keyscript=: one line naming the entry and saying why (mkrescue at
# build time, rescue-init at boot); the passphrase is asked instead and
# opens it.
test_crypttab_keyscript_is_refused_with_a_line() {
	ct_root "$T/c.img" ct-keyscript || return 1
	printf 'root_crypt UUID=%s none luks,keyscript=decrypt_keyctl\n' "$CT_UUID" >"$T/crypttab"
	ct_image --crypttab "$T/crypttab" || return 1
	grep -qF "mkrescue: $T/crypttab line 1 (root_crypt): keyscript=decrypt_keyctl is not run by rescue-init, which asks for the passphrase" \
		"$T/mkrescue.err" ||
		{ fail "mkrescue did not name the keyscript= entry:" "$(cat "$T/mkrescue.err")"; return 1; }
	passphrase_steps /dev/vda "$CT_UUID" "$CT_PASS"
	stack_steps "root=/dev/mapper/root_crypt" --disk "virtio-blk:$T/c.img" || return 1
	expect_log "$T/console.log" \
		"rescue: luks: keyscript=decrypt_keyctl of /dev/vda \(/etc/crypttab line 1\) refused: rescue-init runs no keyscript; asking for the passphrase instead" \
		"the keyscript= line naming the entry" &&
	expect_log "$T/console.log" "as dm-0 \(/dev/mapper/root_crypt\), named by /etc/crypttab line 1$" \
		"the container opened with the passphrase" &&
	expect_ct_root ct-keyscript
}

# Two containers with one passphrase: the root's and a data container
# marked initramfs; rd.luks.uuid= names only the root's (as dracut's
# hostonly command line does), the initramfs entry opens anyway.  The
# passphrase is typed once: the second container is opened with it.
test_crypttab_initramfs_entry_opened_with_one_passphrase() {
	ct_root "$T/c.img" ct-two || return 1
	mkdir -p "$T/data"
	echo data >"$T/data/marker"
	blank_disk "$T/d.img" 48
	mke2fs -q -F -t ext4 -L ct-data -d "$T/data" "$T/d.img" 16M ||
		{ fail "mke2fs of the data disk failed"; return 1; }
	luks_encrypt "$T/d.img" "$CT_DATA_UUID" "$CT_PASS" || return 1
	printf 'root_crypt UUID=%s none luks\ndata_crypt UUID=%s none luks,initramfs\n' \
		"$CT_UUID" "$CT_DATA_UUID" >"$T/crypttab"
	ct_image --crypttab "$T/crypttab" || return 1
	cat >"$T/steps" <<-EOF
	want Passphrase for /dev/vd[ab] \\(LUKS UUID [-0-9a-f]+\\):
	send $CT_PASS
	want TEST RESULT: root
	end
	EOF
	stack_steps "root=/dev/mapper/root_crypt rd.luks.uuid=luks-$CT_UUID" \
		--disk "virtio-blk:$T/c.img" --disk "virtio-blk:$T/d.img" || return 1
	expect_log "$T/console.log" "rescue: luks: opened /dev/vda \(LUKS2, UUID $CT_UUID\) as dm-[01] \(/dev/mapper/root_crypt\)" \
		"the root's container opened" &&
	expect_log "$T/console.log" "rescue: luks: opened /dev/vdb \(LUKS2, UUID $CT_DATA_UUID\) as dm-[01] \(/dev/mapper/data_crypt\), named by /etc/crypttab line 2$" \
		"the initramfs entry opened under its name" &&
	expect_log "$T/console.log" "rescue: luks: /dev/vd[ab] opened with the passphrase typed for another container" \
		"the second container opened with the passphrase typed for the first" || return 1
	[ "$(grep -c 'Passphrase for' "$T/console.log")" = 1 ] ||
		{ fail "the passphrase was asked $(grep -c 'Passphrase for' "$T/console.log") times, not once"; return 1; }
	expect_ct_root ct-two
}

# A detached LUKS header (header= in crypttab): the disk holds only the
# encrypted data, no LUKS signature; mkrescue ships the header file at
# its path and rescue-init opens the disk with it.
test_crypttab_detached_header() {
	local hdr=$T/hdr/root.luks
	make_root_dir "$T/root" ct-header
	mkdir -p "$T/hdr"
	rm -f "$T/c.img"
	mke2fs -q -F -t ext4 -U "$ROOT_UUID" -L ct-root -d "$T/root" "$T/c.img" 32M ||
		{ fail "mke2fs of the root failed"; return 1; }
	printf '%s' "$CT_PASS" >"$T/pass"
	# one reencryption at a time: luks_encrypt (tests/lib/lib.sh) says why
	flock "$BUILD/tests/.luks-encrypt.lock" \
	cryptsetup reencrypt --encrypt --type luks2 --header "$hdr" --pbkdf pbkdf2 \
		--pbkdf-force-iterations 1000 --uuid "$CT_UUID" --key-file "$T/pass" \
		--batch-mode --force-offline-reencrypt "$T/c.img" >"$T/cryptsetup.log" 2>&1 ||
		{ fail "cryptsetup reencrypt with a detached header failed:" "$(cat "$T/cryptsetup.log")"; return 1; }
	[ -z "$(blkid -p -o value -s TYPE "$T/c.img")" ] ||
		{ fail "the data disk still has a signature: $(blkid -p "$T/c.img")"; return 1; }
	printf 'root_crypt /dev/vda none luks,header=%s\n' "$hdr" >"$T/crypttab"
	ct_image --crypttab "$T/crypttab" || return 1
	passphrase_steps /dev/vda "$CT_UUID" "$CT_PASS"
	stack_steps "root=/dev/mapper/root_crypt" --disk "virtio-blk:$T/c.img" || return 1
	expect_log "$T/console.log" \
		"rescue: luks: opened /dev/vda \(LUKS2, UUID $CT_UUID\) as dm-0 \(/dev/mapper/root_crypt\), named by /etc/crypttab line 1, header $hdr$" \
		"the container opened with its detached header" &&
	expect_ct_root ct-header
}

# mkrescue --crypttab: the file at /etc/crypttab and the detached header
# at its path, 0600 like the image; a header= file that is missing
# stops the build with one line naming the entry.  No boot.
test_mkrescue_crypttab_ships_the_file_and_its_headers() {
	local list
	KVER=$(stock_kernel_version) || return 1
	mkdir -p "$T/hdr"
	truncate -s 1M "$T/hdr/data.luks"
	printf 'root_crypt UUID=%s none luks,discard
data_crypt /dev/vdb none luks,header=%s
' \
		"$CT_UUID" "$T/hdr/data.luks" >"$T/crypttab"
	"$BUILD/mkrescue" --init "$RESCUE_INIT" --crypttab "$T/crypttab" -o "$T/ok.img" \
		2>"$T/mkrescue.err" ||
		{ fail "mkrescue --crypttab failed:" "$(cat "$T/mkrescue.err")"; return 1; }
	list=$(bsdtar -tvf "$T/ok.img") || { fail "bsdtar could not list $T/ok.img"; return 1; }
	grep -Eq "^-rw-r--r-- .* etc/crypttab$" <<<"$list" &&
		grep -Eq "^-rw------- .* ${T#/}/hdr/data\.luks$" <<<"$list" ||
		{ fail "the crypttab or its header is not in the image:" "$list"; return 1; }
	[ "$(stat -c %a "$T/ok.img")" = 600 ] ||
		{ fail "the image with a LUKS header is mode $(stat -c %a "$T/ok.img"), not 600"; return 1; }
	rm "$T/hdr/data.luks"
	if "$BUILD/mkrescue" --init "$RESCUE_INIT" --crypttab "$T/crypttab" -o "$T/bad.img" \
		2>"$T/mkrescue.err"; then
		fail "mkrescue took a crypttab whose header is missing"
		return 1
	fi
	grep -qxF "mkrescue: unable to ship the LUKS header $T/hdr/data.luks of $T/crypttab line 2 (data_crypt): No such file or directory" \
		"$T/mkrescue.err" ||
		{ fail "mkrescue did not name the missing header:" "$(cat "$T/mkrescue.err")"; return 1; }
}

# ---- a Debian root on LUKS ---------------------------------------------

. "$TOP/tests/lib/dracut-lib.sh"

# The Debian root of tests/tools/debian-root in a LUKS2 container in the
# second partition of a GPT disk, as Debian's installer lays out an
# encrypted root (its first partition here a 1 MiB stand-in for /boot):
# the container vda2_crypt, its crypttab and fstab the installer's.
CT_DEBIAN_LUKS_UUID=9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d
CT_DEBIAN_NAME=vda2_crypt
CT_DEBIAN_CACHE=$BUILD/tests/crypttab-cache
CT_DEBIAN_TIMEOUT=${CT_DEBIAN_TIMEOUT:-420}
# As tests/groups/debian.sh: kvm_amd under TCG once panicked 6.12.
CT_DEBIAN_APPEND="modprobe.blacklist=kvm_amd,kvm_intel,kvm"

# The crypttab and fstab the installer writes for it.
ct_debian_crypttab() {
	printf '%s UUID=%s none luks,discard\n' "$CT_DEBIAN_NAME" "$CT_DEBIAN_LUKS_UUID"
}
ct_debian_fstab() {
	cat <<-EOF
	# /etc/fstab: static file system information.
	#
	# <file system> <mount point>   <type>  <options>       <dump>  <pass>
	# / was on /dev/mapper/$CT_DEBIAN_NAME during installation
	/dev/mapper/$CT_DEBIAN_NAME /               ext4    errors=remount-ro 0       1
	EOF
}

# ct_debian_build BASE OUT: the disk OUT from the root image BASE, all
# from userspace: debugfs writes the two files, cryptsetup encrypts the
# filesystem in place, dd puts it in the partition.
ct_debian_build() {
	local base=$1 out=$2 fs=$T/debian-fs.img mb
	cp --sparse=always "$base" "$fs" || { fail "unable to copy $base"; return 1; }
	ct_debian_crypttab >"$T/debian-crypttab"
	ct_debian_fstab >"$T/debian-fstab"
	chmod 0644 "$T/debian-crypttab" "$T/debian-fstab"
	printf '%s\n' "rm /etc/fstab" "write $T/debian-fstab /etc/fstab" \
		"write $T/debian-crypttab /etc/crypttab" >"$T/debugfs.cmds"
	debugfs -w -f "$T/debugfs.cmds" "$fs" >"$T/debugfs.log" 2>&1 &&
		[ "$(debugfs -R 'cat /etc/crypttab' "$fs" 2>/dev/null)" = "$(cat "$T/debian-crypttab")" ] ||
		{ fail "debugfs did not write the root's crypttab:" "$(tail -n5 "$T/debugfs.log")"; return 1; }
	mb=$(($(stat -c %s "$fs") / 1048576))
	truncate -s "$((mb + 32))M" "$fs"
	luks_encrypt "$fs" "$CT_DEBIAN_LUKS_UUID" "$CT_PASS" || return 1
	make_gpt "$out" "$((mb + 32 + 4))" \
		boot:1b2c3d4e-0000-4000-8000-00000000b001:1 \
		crypt:1b2c3d4e-0000-4000-8000-00000000c002:rest || return 1
	dd if="$fs" of="$out" bs=1M seek=2 conv=notrunc,sparse status=none ||
		{ fail "dd of the container into $out failed"; return 1; }
	rm -f "$fs"
	blkid -p -o value -s UUID --offset $((2 * 1048576)) "$out" | grep -qx "$CT_DEBIAN_LUKS_UUID" ||
		{ fail "no LUKS container $CT_DEBIAN_LUKS_UUID in $out's second partition"; return 1; }
}

# ct_debian_disk OUT: a copy of the cached disk (the boot writes to it),
# built once per input: the Debian root image (its path names its
# recipe and kernels) and the recipe above.
ct_debian_disk() {
	local base key img
	base=$("$TOP/tests/tools/debian-root" 2>"$T/debian-root.log") ||
		{ fail "tests/tools/debian-root failed:" "$(tail -n5 "$T/debian-root.log")"; return 1; }
	key=$({
		echo "$base $CT_DEBIAN_LUKS_UUID $CT_PASS"
		declare -f ct_debian_crypttab ct_debian_fstab ct_debian_build luks_encrypt make_gpt
	} | sha256sum | cut -c1-16)
	img=$CT_DEBIAN_CACHE/debian-luks-$key.img
	if [ ! -e "$img" ]; then
		mkdir -p "$CT_DEBIAN_CACHE"
		rm -f "$CT_DEBIAN_CACHE"/debian-luks-*.img
		ct_debian_build "$base" "$img.tmp" || return 1
		mv "$img.tmp" "$img"
	fi
	cp --sparse=always "$img" "$1" || { fail "unable to copy $img to $1"; return 1; }
}

# ct_debian_dracut: dracut's image for the stock kernel, with the
# crypttab where dracut's crypt module puts the host's under hostonly
# (--include here: this host's own /etc/crypttab is not the root's);
# cached on its inputs.
ct_debian_dracut() {
	local kver key dir img
	kver=$(stock_kernel_version) || return 1
	ct_debian_crypttab >"$T/crypttab"
	key=$({
		echo "$kver $DRACUT_IMAGE_MODULES"
		cat "$T/crypttab" "$BUILD/rescue-init" \
			"$TOP/dracut-module/99devtmpfs-rescue/module-setup.sh" \
			"$TOP"/rescue/share/* "$TOP/Makefile"
	} | sha256sum | cut -c1-16)
	dir=$CT_DEBIAN_CACHE/dracut-$kver
	img=$dir/$key.img
	if [ ! -e "$img" ]; then
		rm -rf "$dir"
		mkdir -p "$dir"
		dracut_from_tree "$dir/dest" "$img.tmp" "$dir/dracut.log" \
			--no-hostonly --add "$DRACUT_IMAGE_MODULES" \
			--include "$T/crypttab" /etc/crypttab || return 1
		mv "$img.tmp" "$img"
	fi
	echo "$img"
}

# ct_debian_boot INITRD: the stock kernel, root=/dev/mapper/vda2_crypt as
# Debian's GRUB writes it, the passphrase typed at rescue-init's prompt
# for the second partition; $T/console.log.txt without colours.
ct_debian_boot() {
	local kver
	kver=$(stock_kernel_version) && ct_debian_disk "$T/debian.img" || return 1
	passphrase_steps /dev/vda2 "$CT_DEBIAN_LUKS_UUID" "$CT_PASS"
	"$TOP/tests/tools/vm-steps.exp" "$T/console.log" "$CT_DEBIAN_TIMEOUT" "$T/steps" \
		--kernel "/boot/vmlinuz-$kver" --initrd "$1" --mem 1G \
		--append "root=/dev/mapper/$CT_DEBIAN_NAME ro $CT_DEBIAN_APPEND" \
		--disk "virtio-blk:$T/debian.img" ||
		{ show_log "$T/console.log" 40; fail "the Debian boot's steps failed"; rm -f "$T/debian.img"; return 1; }
	rm -f "$T/debian.img"
	tr -d '\r' <"$T/console.log" | sed 's/\x1b\[[0-9;]*m//g' >"$T/console.log.txt"
	note "$kver: multi-user.target at $(result_field "$T/console.log" debian multi_user_us) us"
}

# The container opened under the crypttab's name with discards, the
# root mounted from it, and systemd's own boot: multi-user.target with
# no failed unit, its cryptsetup unit for vda2_crypt content with the
# open container (console status lines are cut to its width), the
# fstab's /dev/mapper/vda2_crypt remounted rw.  findmnt names the root
# /dev/dm-0, the node rescue-init mounted (initramfs-tools mounts the
# /dev/mapper link, which findmnt shows).
expect_ct_debian_boot() {
	local log=$T/console.log.txt opts
	expect_log "$log" \
		"rescue: luks: opened /dev/vda2 \(LUKS2, UUID $CT_DEBIAN_LUKS_UUID\) as dm-0 \(/dev/mapper/$CT_DEBIAN_NAME\), named by /etc/crypttab line 1, discards allowed$" \
		"the container opened as the crypttab names it" &&
	expect_log "$log" "rescue: found root /dev/mapper/$CT_DEBIAN_NAME on /dev/dm-0" \
		"root= found by the crypttab's name" &&
	expect_field "$log" debian state running &&
	expect_field "$log" debian failed none &&
	expect_field "$log" debian source /dev/dm-0 &&
	expect_field "$log" debian run tmpfs &&
	expect_field "$log" debian initrd_release no &&
	expect_log "$log" "Finished systemd-cryptsetu.*Cryptography Setup for $CT_DEBIAN_NAME" \
		"systemd's cryptsetup unit of the container, finished" &&
	expect_log "$log" "^ROOT JOURNAL: rescue: exec /sbin/init on /dev/dm-0" \
		"rescue-init's lines in the root's journal" &&
	expect_log "$log" 'Finished systemd-fsck-root' "systemd checking the read-only root" &&
	expect_log "$log" 'Finished systemd-remount-f' "systemd remounting the root" &&
	expect_no_log "$log" 'FAILED|systemd\[1\]: Failed|ROOT WARNING: .*[Ff]ailed' \
		"a failure reported by systemd" &&
	expect_no_log "$log" "$CT_PASS" "the passphrase on the console" || return 1
	opts=$(result_field "$T/console.log" debian root)
	case $opts in
	rw,*) ;;
	*) fail "the root is mounted $opts after the boot, not rw"; return 1 ;;
	esac
}

ct_mkrescue_boots_debian() {
	ct_debian_crypttab >"$T/crypttab"
	ct_image --crypttab "$T/crypttab" && ct_debian_boot "$T/initrd" &&
	expect_ct_debian_boot
}

test_debian_on_luks_mkrescue_k_boots_to_multi_user() {
	for_each_stock_kernel ct_mkrescue_boots_debian
}

ct_dracut_boots_debian() {
	local img
	img=$(ct_debian_dracut) || return 1
	ct_debian_boot "$img" && expect_ct_debian_boot
}

test_debian_on_luks_dracut_add_boots_to_multi_user() {
	for_each_stock_kernel ct_dracut_boots_debian
}
