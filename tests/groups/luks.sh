# SPDX-License-Identifier: GPL-2.0
# tests/groups/luks.sh: roots in LUKS2 and LUKS1 containers opened by
# rescue-init's luks layer (the image's cryptsetup), on the Debian stock
# kernel with an image of mkrescue -k --storage, and LUKS2 by UUID, a
# wrong passphrase then the right one and rd.luks=0 on the patched
# kernel too (tests/lib/stacked-lib.sh).  The containers are
# written from userspace, never with this machine's dm or loop: an ext4
# made by mke2fs -d, encrypted in place by cryptsetup reencrypt
# --encrypt --force-offline-reencrypt (LUKS2; cryptsetup convert makes
# LUKS1 of it).  PBKDF at its minimum cost (pbkdf2, 1000 iterations):
# the tests time the boot, not the key derivation.

. "$TOP/tests/lib/rescue-lib.sh"
. "$TOP/tests/lib/stacked-lib.sh"

LUKS_UUID=4c1e2d3f-5a6b-4c7d-8e9f-0a1b2c3d4e5f
LUKS_PASS=correct-horse-7
LUKS_VM_TIMEOUT=${LUKS_VM_TIMEOUT:-240}
# shellcheck disable=SC2034 # stack_boot and stack_steps read it (tests/lib/stacked-lib.sh)
STACK_VM_TIMEOUT=$LUKS_VM_TIMEOUT

# make_luks_root VERSION IMG MARKER: a 64 MiB container (LUKS VERSION,
# UUID $LUKS_UUID, passphrase $LUKS_PASS) holding the ext4 root
# ($ROOT_UUID) whose init reports MARKER.
make_luks_root() {
	local ver=$1 img=$2
	make_root_dir "$T/root" "$3"
	blank_disk "$img" 64
	mke2fs -q -F -t ext4 -U "$ROOT_UUID" -L luks-root -d "$T/root" "$img" 32M ||
		{ fail "mke2fs in $img failed"; return 1; }
	luks_encrypt "$img" "$LUKS_UUID" "$LUKS_PASS" "$ver"
}

# luks_image OUT: mkrescue -k for the stock kernel with the storage tools
# (or --storage alone for the patched kernel).
luks_image() {
	KVER=$(stock_kernel_version) || return 1
	stack_image "$1" --storage
}

# The prompt, then the passphrase typed on the serial console.
typed_passphrase_steps() {
	passphrase_steps /dev/vda "$LUKS_UUID" "$LUKS_PASS"
}

# The container opened, the root mounted ro from it, and the passphrase
# nowhere in what the console showed (echo off, never logged).
expect_luks_root() { # version marker [", read-only"]
	expect_log "$T/console.log" \
		"rescue: luks: opened /dev/vda \(LUKS$1, UUID $LUKS_UUID\) as dm-0 \(/dev/mapper/luks-$LUKS_UUID\)${3:-}$" \
		"the container opened as luks-UUID" &&
	expect_field "$T/console.log" root marker "$2" &&
	expect_field "$T/console.log" root fs ext4 &&
	expect_field "$T/console.log" root mode ro &&
	expect_exec_line /sbin/init /dev/dm-0 ext4 ro &&
	expect_no_log "$T/console.log" "$LUKS_PASS" "the passphrase on the console"
}

# luks_no_root_boot MARKER PARAMS: luks_setup's LUKS2 root (MARKER),
# booted with PARAMS that keep it closed: the root is not waited for
# past 2 s, no shell, the guest ends.
luks_no_root_boot() {
	luks_setup 2 "$1" || return 1
	stack_boot "root=UUID=$ROOT_UUID rootwait=2 $2 rd.shell=0 rd.retry=1 panic=1" \
		--disk "virtio-blk:$T/c.img"
}

# No prompt, no boot, no byte written.
expect_nothing_asked_no_boot() {
	expect_no_log "$T/console.log" "Passphrase for" "a passphrase prompt" &&
	expect_no_log "$T/console.log" 'TEST RESULT: root' "a boot" &&
	expect_disks_unchanged
}

luks_setup() { # version marker
	luks_image "$T/initrd" &&
	make_luks_root "$1" "$T/c.img" "$2" &&
	record_sums "$T/c.img"
}

# LUKS2, root= the ext4's UUID, the passphrase typed at the prompt that
# names the device and the container's UUID; on the patched and the
# stock kernel.
test_luks2_root_by_uuid_passphrase_typed() {
	for_each_stack_kernel_and_newest luks2_root_by_uuid_passphrase_typed
}
luks2_root_by_uuid_passphrase_typed() {
	luks_setup 2 luks2-uuid || return 1
	typed_passphrase_steps
	stack_steps "root=UUID=$ROOT_UUID" --disk "virtio-blk:$T/c.img" || return 1
	expect_luks_root 2 luks2-uuid &&
	expect_disks_unchanged
}

# root=/dev/mapper/luks-UUID, the name dracut and systemd give it.
test_luks2_root_by_mapper_name() {
	luks_setup 2 luks2-mapper || return 1
	typed_passphrase_steps
	stack_steps "root=/dev/mapper/luks-$LUKS_UUID" --disk "virtio-blk:$T/c.img" || return 1
	expect_log "$T/console.log" "rescue: found root /dev/mapper/luks-$LUKS_UUID on /dev/dm-0" \
		"the root found by its /dev/mapper name" &&
	expect_luks_root 2 luks2-mapper &&
	expect_disks_unchanged
}

# The root's udev makes /dev/mapper/NAME a link to ../dm-N, and refuses
# to replace a block node there ("Failed to create/update device
# symlink ... File exists", which systemd shows): whichever of
# libdevmapper's node and rescue-init's link came first, the root finds
# the link.  The node is made by hand in the rescue shell, then the
# boot goes on to init=/bin/sh in the root.
test_luks_mapper_name_is_a_link_after_the_switch() {
	luks_setup 2 luks-link || return 1
	local node=/dev/mapper/luks-$LUKS_UUID
	{
		printf 'want Passphrase for /dev/vda \\(LUKS UUID %s\\):\n' "$LUKS_UUID"
		echo "send $LUKS_PASS"
		echo 'want \(rescue\) # '
		echo "send rm $node && mknod $node b \$(tr : ' ' </sys/block/dm-0/dev) && ls -l $node"
		echo "want brw.* $node"
		echo 'send exit'
		echo 'want rescue: exec /bin/sh on'
		echo "send ls -l $node"
		echo "want $node -> ../dm-0"
		echo 'send reboot -f'
		echo end
	} >"$T/steps"
	stack_steps "root=UUID=$ROOT_UUID rd.break=pre-pivot init=/bin/sh" \
		--disk "virtio-blk:$T/c.img" || return 1
	expect_disks_unchanged
}

test_luks1_root_by_uuid() {
	luks_setup 1 luks1 || return 1
	typed_passphrase_steps
	stack_steps "root=UUID=$ROOT_UUID" --disk "virtio-blk:$T/c.img" || return 1
	expect_luks_root 1 luks1 &&
	expect_disks_unchanged
}

# A wrong passphrase says so and asks again; the right one opens it; on
# the patched and the stock kernel.
test_luks_wrong_passphrase_then_right() {
	for_each_stack_kernel luks_wrong_passphrase_then_right
}
luks_wrong_passphrase_then_right() {
	luks_setup 2 luks-retry || return 1
	passphrase_steps /dev/vda "$LUKS_UUID" "$LUKS_PASS" not-the-passphrase
	stack_steps "root=UUID=$ROOT_UUID" --disk "virtio-blk:$T/c.img" || return 1
	expect_log "$T/console.log" \
		"rescue: luks: wrong passphrase for /dev/vda \(UUID $LUKS_UUID\), try 1 of 3" \
		"the wrong passphrase logged" &&
	expect_no_log "$T/console.log" "not-the-passphrase" "the wrong passphrase itself" &&
	expect_luks_root 2 luks-retry &&
	expect_disks_unchanged
}

# rd.luks.key=/root.key:LABEL=keys: the key file on a second disk, found
# by its label, mounted read-only; nothing typed (a prompt would hang
# the boot until the VM's timeout).  rd.luks.uuid= with dracut's luks-
# prefix names this container.
test_luks_key_file_on_a_key_device() {
	luks_setup 2 luks-keyfile || return 1
	mkdir -p "$T/keys"
	cp "$T/pass" "$T/keys/root.key"
	make_ext4 "$T/keys" "$T/keys.img" 8 "$DECOY_UUID" keys
	record_sums "$T/c.img" "$T/keys.img"
	STACK_VM_TIMEOUT=120 stack_boot "root=UUID=$ROOT_UUID rd.luks.key=/root.key:LABEL=keys rd.luks.uuid=luks-$LUKS_UUID" \
		--disk "virtio-blk:$T/c.img" --disk "virtio-blk:$T/keys.img" || return 1
	expect_no_log "$T/console.log" "Passphrase for" "a passphrase prompt" &&
	expect_luks_root 2 luks-keyfile &&
	expect_disks_unchanged
}

# rd.luks=0: the container stays closed, the root is not found, and the
# device table lists the container; on the patched and the stock kernel.
test_luks_off_leaves_the_container_closed() {
	for_each_stack_kernel luks_off_leaves_the_container_closed
}
luks_off_leaves_the_container_closed() {
	luks_no_root_boot luks-off rd.luks=0 || return 1
	expect_log "$T/console.log" "rescue: storage: luks is off for this boot" \
		"the layer turned off" &&
	expect_log "$T/console.log" "rescue: storage: /dev/vda left alone: rd.luks=0 turns luks off" \
		"why the container is not opened" &&
	expect_log "$T/console.log" "rescue: unable to find root UUID=$ROOT_UUID" \
		"the root not found" &&
	expect_log "$T/console.log" "rescue: +vda +[0-9]+:[0-9]+ +[0-9.]+M +crypto_LUKS +$LUKS_UUID" \
		"the container in the device table" &&
	expect_nothing_asked_no_boot
}

# rd.luks.uuid= naming another container: this one stays closed, with a
# line, and nothing is asked.
test_luks_uuid_leaves_other_containers_closed() {
	luks_no_root_boot luks-other rd.luks.uuid=luks-0badc0de-0000-4000-8000-000000000000 || return 1
	expect_log "$T/console.log" "rescue: luks: /dev/vda left closed: its UUID $LUKS_UUID is not in rd.luks.uuid" \
		"the container left closed, and why" &&
	expect_log "$T/console.log" "rescue: vda: LUKS2, UUID $LUKS_UUID: not opened: not in rd.luks.uuid" \
		"the container's line in the device table" &&
	expect_nothing_asked_no_boot
}

# Strict read-only: the mapping is made read-only, and the container is
# byte-identical after the boot.
test_luks_strict_readonly() {
	luks_setup 2 luks-strict || return 1
	typed_passphrase_steps
	stack_steps "root=UUID=$ROOT_UUID rescue.ro=strict" --disk "virtio-blk:$T/c.img" || return 1
	expect_luks_root 2 luks-strict ", read-only" &&
	expect_disks_unchanged
}

# An image without the storage tools: one line says how to make one that
# has cryptsetup, and the device table says why the container is closed.
test_luks_without_cryptsetup_says_so() {
	KVER=$(stock_kernel_version) || return 1
	"$BUILD/mkrescue" --init "$RESCUE_INIT" -k "$KVER" --no-storage -o "$T/initrd" \
		2>"$T/mkrescue.err" ||
		{ fail "mkrescue -k $KVER --no-storage failed:" "$(cat "$T/mkrescue.err")"; return 1; }
	make_luks_root 2 "$T/c.img" luks-no-tool || return 1
	record_sums "$T/c.img"
	stack_boot "root=UUID=$ROOT_UUID rootwait=2 rd.shell=0 rd.retry=1 panic=1" \
		--disk "virtio-blk:$T/c.img" || return 1
	expect_log "$T/console.log" "rescue: no cryptsetup in this image: make it with mkrescue --storage" \
		"the missing tool named, and how to get it" &&
	expect_log "$T/console.log" "rescue: vda: LUKS2, UUID $LUKS_UUID: not opened: no cryptsetup in this image" \
		"the container's line in the device table" &&
	expect_no_log "$T/console.log" 'TEST RESULT: root' "a boot" &&
	expect_disks_unchanged
}

# rd.luks.key=KEYPATH::LUKSDEV: a key file inside the initramfs (no key
# device), for the container named by its LUKS UUID; nothing typed.
test_luks_key_file_in_the_initramfs() {
	luks_setup 2 luks-initramfs-key || return 1
	"$BUILD/mkrescue" --init "$RESCUE_INIT" -k "$KVER" --storage \
		--include "$T/pass:/etc/luks/root.key" -o "$T/initrd" 2>"$T/mkrescue.err" ||
		{ fail "mkrescue --include of the key failed:" "$(cat "$T/mkrescue.err")"; return 1; }
	STACK_VM_TIMEOUT=120 stack_boot "root=UUID=$ROOT_UUID rd.luks.key=/etc/luks/root.key::UUID=$LUKS_UUID" \
		--disk "virtio-blk:$T/c.img" || return 1
	expect_no_log "$T/console.log" "Passphrase for" "a passphrase prompt" &&
	expect_luks_root 2 luks-initramfs-key &&
	expect_disks_unchanged
}

# A disk that was a LUKS2 container and was repartitioned without a
# wipe: the GPT overwrote the primary header, a secondary header (64 KiB
# metadata) is still at 64 KiB, and the root is a plain ext4 in its first
# partition.  libblkid 2.38's crypto_LUKS prober takes such a secondary
# header for the disk's own (host blkid -p says crypto_LUKS, checked
# below: the input is what the test says), so the luks layer would ask
# for a passphrase the disk no longer has.  rescue-init looks for LUKS
# at the primary header only: no prompt, and the root found in vda1.
test_luks_stale_secondary_header_is_not_a_container() {
	luks_image "$T/initrd" || return 1
	make_root_dir "$T/root" luks-stale
	make_gpt "$T/d.img" 64 root:"$ROOT_PARTUUID":rest || return 1
	put_ext4 "$T/d.img" 1 "$T/root" "$ROOT_UUID" stale-root || return 1
	printf '%s' "$LUKS_PASS" >"$T/pass"
	truncate -s 8M "$T/old.img"
	cryptsetup luksFormat --batch-mode --type luks2 --luks2-metadata-size 64k \
		--luks2-keyslots-size 1m --pbkdf pbkdf2 --pbkdf-force-iterations 1000 \
		--uuid "$LUKS_UUID" --key-file "$T/pass" "$T/old.img" >"$T/cryptsetup.log" 2>&1 ||
		{ fail "cryptsetup luksFormat failed:" "$(cat "$T/cryptsetup.log")"; return 1; }
	dd if="$T/old.img" of="$T/d.img" bs=64K skip=1 seek=1 count=1 conv=notrunc status=none
	blkid -p "$T/d.img" | grep -q "UUID=\"$LUKS_UUID\" TYPE=\"crypto_LUKS\"" ||
		{ fail "host blkid does not take the stale header for LUKS:" "$(blkid -p "$T/d.img")"; return 1; }
	record_sums "$T/d.img"
	STACK_VM_TIMEOUT=120 stack_boot "root=UUID=$ROOT_UUID" --disk "virtio-blk:$T/d.img" || return 1
	expect_no_log "$T/console.log" "Passphrase for" "a passphrase prompt" &&
	expect_no_log "$T/console.log" "$LUKS_UUID" "the stale header's UUID" &&
	expect_field "$T/console.log" root marker luks-stale &&
	expect_exec_line /sbin/init /dev/vda1 ext4 ro &&
	expect_disks_unchanged
}

# Three wrong passphrases end the prompt; the rescue shell's exit tries
# the boot again, and that attempt asks again: the right passphrase
# boots.  A failed prompt used to be final for the whole boot.
test_luks_failed_prompt_asks_again_after_the_shell() {
	luks_setup 2 luks-again || return 1
	cat >"$T/steps" <<-EOF
	want Passphrase for /dev/vda \\(LUKS UUID $LUKS_UUID\\):
	send wrong-one
	want Wrong passphrase for /dev/vda: 2 tries left
	want Passphrase for /dev/vda \\(LUKS UUID $LUKS_UUID\\), again:
	send wrong-two
	want Wrong passphrase for /dev/vda: 1 tries left
	want Passphrase for /dev/vda \\(LUKS UUID $LUKS_UUID\\), again:
	send wrong-three
	want Wrong passphrase for /dev/vda: 0 tries left
	want \\(rescue\\) # 
	send exit
	want Passphrase for /dev/vda \\(LUKS UUID $LUKS_UUID\\):
	send $LUKS_PASS
	end
	EOF
	stack_steps "root=UUID=$ROOT_UUID" --disk "virtio-blk:$T/c.img" || return 1
	expect_log "$T/console.log" \
		"rescue: luks: /dev/vda \(UUID $LUKS_UUID\) not opened: 3 wrong passphrases" \
		"the three wrong passphrases logged" &&
	expect_log "$T/console.log" "rescue: vda: LUKS2, UUID $LUKS_UUID: not opened: 3 wrong passphrases" \
		"the container's line in the device table" &&
	expect_no_log "$T/console.log" "wrong-(one|two|three)" "a wrong passphrase itself" &&
	expect_luks_root 2 luks-again &&
	expect_disks_unchanged
}

# rd.luks.timeout=5 with rd.shell=0, nobody at the console: the prompt
# gives up after 5 s, each attempt asks again, and once rd.retry= has
# run out the machine reboots as panic= says, instead of waiting at the
# prompt for ever.
test_luks_prompt_timeout_ends_an_unattended_boot() {
	luks_setup 2 luks-timeout || return 1
	STACK_VM_TIMEOUT=180 stack_boot "root=UUID=$ROOT_UUID rd.luks.timeout=5 rd.shell=0 rd.retry=8 panic=1" \
		--disk "virtio-blk:$T/c.img" || return 1
	expect_log "$T/console.log" "Passphrase for /dev/vda \(LUKS UUID $LUKS_UUID\):" \
		"the prompt" &&
	expect_log "$T/console.log" \
		"rescue: luks: /dev/vda \(UUID $LUKS_UUID\) not opened: no passphrase in 5 s \(rd.luks.timeout=5\)" \
		"the prompt giving up after rd.luks.timeout=" &&
	expect_log "$T/console.log" "rescue: giving up the boot after 8 s \(rd.retry=8\)" \
		"the boot given up after rd.retry=" &&
	expect_log "$T/console.log" "rescue: rebooting \(panic=1\)" "the reboot panic= asks for" &&
	expect_no_log "$T/console.log" 'TEST RESULT: root' "a boot" &&
	expect_disks_unchanged
}

# A dd copy of the container on a second disk (one LUKS UUID on two
# disks): neither is opened, nothing is asked, one line names both, and
# nothing boots; which copy opened used to depend on the probe order.
test_luks_cloned_container_opens_neither_copy() {
	luks_setup 2 luks-clone || return 1
	cp --sparse=always "$T/c.img" "$T/copy.img"
	record_sums "$T/c.img" "$T/copy.img"
	STACK_VM_TIMEOUT=120 stack_boot "root=UUID=$ROOT_UUID rootwait=2 rd.shell=0 rd.retry=1 panic=1" \
		--disk "virtio-blk:$T/c.img" --disk "virtio-blk:$T/copy.img" || return 1
	expect_log "$T/console.log" \
		"rescue: luks: /dev/vda and /dev/vdb have one LUKS UUID $LUKS_UUID \(a copy of one disk\?\): neither is opened" \
		"the clash naming both disks" &&
	expect_log "$T/console.log" "rescue: vdb: LUKS2, UUID $LUKS_UUID: not opened: /dev/vda has the same LUKS UUID" \
		"the copy's line in the device table" &&
	expect_nothing_asked_no_boot
}

# A passphrase typed ahead, once the container is seen but before its
# prompt shows (people type it when they know the prompt comes): not
# echoed, since echo went off as the container was claimed, and
# discarded at the prompt with a line saying so, as getpass() does;
# the passphrase typed at the prompt opens it.  On the stock kernel:
# typed as dm_mod has loaded, while dm_crypt and the keyboard's
# modules load.
test_luks_typeahead_is_neither_shown_nor_taken() {
	luks_setup 2 luks-typeahead || return 1
	cat >"$T/steps" <<-EOF
	want rescue: loaded module dm_mod for dm_mod
	send typed-ahead-secret
	want \\([0-9]+ characters typed before the passphrase prompt were discarded: type it after the prompt\\)
	want Passphrase for /dev/vda \\(LUKS UUID $LUKS_UUID\\):
	send $LUKS_PASS
	end
	EOF
	stack_steps "root=UUID=$ROOT_UUID" --disk "virtio-blk:$T/c.img" || return 1
	expect_no_log "$T/console.log" "typed-ahead-secret" "the passphrase typed ahead, shown" &&
	expect_no_log "$T/console.log" "wrong passphrase" "the typed-ahead line taken as a try" &&
	expect_luks_root 2 luks-typeahead &&
	expect_disks_unchanged
}

# A line longer than cryptsetup takes (600 characters) is refused whole,
# none of it left for the next try or a shell to read; the passphrase
# typed at the next prompt opens the container.
test_luks_overlong_passphrase_is_refused_whole() {
	local long
	luks_setup 2 luks-long || return 1
	long=$(printf 'x%.0s' $(seq 600))
	cat >"$T/steps" <<-EOF
	want Passphrase for /dev/vda \\(LUKS UUID $LUKS_UUID\\):
	send $long
	want Passphrase too long for /dev/vda \\(over 510 characters\\): refused, 2 tries left.
	want Passphrase for /dev/vda \\(LUKS UUID $LUKS_UUID\\), again:
	send $LUKS_PASS
	end
	EOF
	stack_steps "root=UUID=$ROOT_UUID" --disk "virtio-blk:$T/c.img" || return 1
	expect_log "$T/console.log" \
		"rescue: luks: refused a passphrase for /dev/vda longer than 510 characters, try 1 of 3" \
		"the refusal logged" &&
	expect_no_log "$T/console.log" "wrong passphrase" "a piece of the long line taken as a try" &&
	expect_no_log "$T/console.log" "xxxxxxxx" "the long line shown" &&
	expect_luks_root 2 luks-long &&
	expect_disks_unchanged
}

# A headless machine's prompt answered over SSH: rescue-unlock with no
# terminal (ssh without -t) is refused, since the terminal the
# passphrase is typed on would show it; --stdin takes it from a pipe;
# and busybox's reboot from the session reboots the machine while the
# prompt waits, where PID 1 used to ignore it until the prompt ended.
test_luks_prompt_over_ssh_refuses_no_tty_and_obeys_reboot() {
	. "$TOP/tests/groups/network.sh"
	luks_ssh_vm luks-reboot || return 1
	for _ in 1 2 3 4 5; do
		echo not-the-passphrase | rescue_ssh "$T/key" root@127.0.0.1 rescue-unlock \
			>"$T/notty.out" 2>&1
		grep -q 'rescue-unlock' "$T/notty.out" && break
		sleep 2
	done
	echo not-the-passphrase | rescue_ssh "$T/key" root@127.0.0.1 rescue-unlock --stdin \
		>"$T/wrong.out" 2>&1
	rescue_ssh "$T/key" root@127.0.0.1 reboot >"$T/reboot.out" 2>&1
	wait "$SSH_PID" || { fail "the VM did not end (reboot ignored?)"; return 1; }
	grep -qF "rescue-unlock: stdin is not a terminal, so the passphrase would be shown as it is typed: use ssh -t, or rescue-unlock --stdin to read it from a pipe" "$T/notty.out" ||
		{ fail "rescue-unlock without a terminal said:" "$(cat "$T/notty.out")"; return 1; }
	grep -qF "rescue-unlock: wrong passphrase for /dev/vda, try 1 of 3" "$T/wrong.out" ||
		{ fail "rescue-unlock --stdin said:" "$(cat "$T/wrong.out")"; return 1; }
	expect_log "$T/console.log" "rescue: rebooting \(signal " "the reboot asked for over SSH" &&
	expect_no_log "$T/console.log" 'TEST RESULT: root' "a boot" &&
	expect_no_log "$T/console.log" "not-the-passphrase" "the wrong passphrase itself" &&
	expect_disks_unchanged
}
