# SPDX-License-Identifier: GPL-2.0
# tests/groups/members.sh: a member of an array or a volume is never mounted as
# the root on its own.  An md RAID1 member with metadata 0.90 keeps its
# superblock in the last 64 KiB, so the ext4 filesystem at its start
# looks whole; mounting one half of a mirror desynchronises it.

. "$TOP/tests/lib/rescue-lib.sh"

MD_UUID=deadbeef-0123-4567-89ab-cdef0badf00d

# write_md090_superblock IMG: the 0.90 superblock libblkid recognises
# (magic, version 0.90.0, RAID1 of 2 disks, set UUID $MD_UUID), where
# mdadm puts it: 64 KiB below the end rounded down to 64 KiB.
write_md090_superblock() {
	perl -e '
		my $img = shift;
		my $off = ((-s $img) & ~0xffff) - 0x10000;
		open(my $f, "+<", $img) or die "$img: $!\n";
		binmode $f;
		seek($f, $off, 0) or die "$img: $!\n";
		print $f pack("V16", 0xa92b4efc, 0, 90, 0, 0, 0xdeadbeef, 0, 1,
			      $off / 1024, 2, 2, 0, 0, 0x01234567, 0x89abcdef,
			      0x0badf00d) or die "$img: $!\n";
		close($f) or die "$img: $!\n";
	' "$1" || fail "unable to write an md superblock on $1"
}

# An ext4 root with a reporting init, inside an md 0.90 member.
make_member_disk() { # img
	make_root_dir "$T/root" member
	make_ext4 "$T/root" "$1" 24 "$ROOT_UUID" mirror-root &&
	write_md090_superblock "$1" &&
	blkid -p "$1" | grep -q 'TYPE="linux_raid_member"' ||
		fail "blkid does not see $1 as an md member"
}

# boot_to_shell APPEND: the member disk, booted until the rescue shell.
boot_to_shell() {
	make_image "$T/initrd" || return 1
	make_member_disk "$T/member.img" || return 1
	record_sums "$T/member.img"
	: >"$T/commands"
	vm_shell "$T/console.log" "$VM_TIMEOUT" "$T/commands" --initrd "$T/initrd" \
		--append "$1" --disk "virtio-blk:$T/member.img"
}

test_md_member_named_by_root_is_refused() {
	boot_to_shell "root=/dev/vda rw" || return 1
	expect_log "$T/console.log" "rescue: unable to mount /dev/vda as the root: it is a member of the md array $MD_UUID, not a whole filesystem" \
		"the refusal naming the array" &&
	expect_log "$T/console.log" "root=/dev/vda rescue.member=1" \
		"how to mount it anyway" &&
	expect_no_log "$T/console.log" 'TEST RESULT: root' "a boot on the member" &&
	expect_disks_unchanged
}

# The filesystem's own UUID does not reach the member either: the probe
# sees the md signature first, as blkid does.
test_md_member_is_not_matched_by_its_filesystem_uuid() {
	boot_to_shell "root=UUID=$ROOT_UUID" || return 1
	expect_log "$T/console.log" "rescue: unable to find root UUID=$ROOT_UUID" \
		"the root not found" &&
	expect_log "$T/console.log" "vda .*linux_raid_member +$MD_UUID" \
		"the member in the device table" &&
	expect_no_log "$T/console.log" 'TEST RESULT: root' "a boot on the member"
}

# Asked for by name and with rescue.member=1, it is mounted, read-only.
test_md_member_mounts_alone_when_asked() {
	make_image "$T/initrd" || return 1
	make_member_disk "$T/member.img" || return 1
	boot "$T/initrd" "root=/dev/vda rescue.member=1" \
		--disk "virtio-blk:$T/member.img" || return 1
	expect_log "$T/console.log" "rescue: mounting /dev/vda alone, as rescue.member=1 asks: it is a member of the md array $MD_UUID" \
		"the warning" &&
	expect_field "$T/console.log" root marker member &&
	expect_field "$T/console.log" root mode ro
}

# rescue.member=1 does not reach a member matched by UUID= or LABEL=.
test_rescue_member_needs_the_device_by_name() {
	boot_to_shell "root=UUID=$MD_UUID rescue.member=1" || return 1
	expect_log "$T/console.log" "rescue: unable to mount /dev/vda as the root: it is a member of the md array" \
		"the refusal" &&
	expect_no_log "$T/console.log" 'TEST RESULT: root' "a boot on the member"
}
