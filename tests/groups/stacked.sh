# SPDX-License-Identifier: GPL-2.0
# tests/groups/stacked.sh: roots on storage layers rescue-init assembles itself
# (md RAID1 and RAID5, multi-device btrfs, md RAID1 -> LUKS2 -> LVM), on
# the Debian stock kernel with an image of mkrescue -k, and a degraded
# RAID1, a two-device btrfs in a subvolume and md RAID1 -> LUKS2 -> LVM
# on the patched kernel too (tests/lib/stacked-lib.sh); through the dracut
# image of tests/lib/dracut-lib.sh too.  The md superblocks are written from
# userspace by perl (checksums as mdadm's super1.c and super0.c), the
# filesystem at the data offset by mke2fs -E offset=, btrfs by
# mkfs.btrfs on files; what needs the kernel (filling a btrfs, LVM in
# LUKS2) a helper VM makes; never with this machine's md, loop or dm.

. "$TOP/tests/lib/rescue-lib.sh"
. "$TOP/tests/lib/stacked-lib.sh"
. "$TOP/tests/lib/dracut-lib.sh"
. "$TOP/tests/lib/disks.sh"

MD_UUID=5a1f3c2e-0b4d-4e5f-8a9b-0c1d2e3f4a5b
MD_NAME=rescue:root
BTRFS_UUID=6b2e4d3f-1c5e-4f60-9bac-1d2e3f4a5b6c
STACKED_VM_TIMEOUT=${STACKED_VM_TIMEOUT:-240}
# shellcheck disable=SC2034 # stack_boot and stack_steps read it (tests/lib/stacked-lib.sh)
STACK_VM_TIMEOUT=$STACKED_VM_TIMEOUT
# The LUKS2 -> LVM payloads (make_luks_lvm_payloads): the Debian layout
# alone, and the one inside the md RAID1.
DEB_LUKS_UUID=6b2e4d3f-1c5e-4f60-9bac-1d2e3f4a5b01
DEB_ROOT_UUID=6b2e4d3f-1c5e-4f60-9bac-1d2e3f4a5b02
MDL_LUKS_UUID=6b2e4d3f-1c5e-4f60-9bac-1d2e3f4a5b03
MDL_ROOT_UUID=6b2e4d3f-1c5e-4f60-9bac-1d2e3f4a5b04
PV_DEB=Rescue-PV00-0000-0000-0000-0010-debpv0
PV_MDL=Rescue-PV00-0000-0000-0000-0011-mdlpv0
STACK_PASS=stacked-pass-7
# The disk scripts read the ids from their environment (tests/lib/disks.sh).
export BTRFS_UUID DEB_LUKS_UUID DEB_ROOT_UUID MDL_LUKS_UUID MDL_ROOT_UUID PV_DEB PV_MDL STACK_PASS

# write_md_superblock IMG VERSION SLOT NDISKS UUID NAME MINOR [LEVEL
# [EVENTS]]: a clean member superblock the kernel loads (1.2: events
# EVENTS, default 10), RAID1 unless LEVEL is 5
# (left-symmetric, 64 KiB chunks): 1.2 at 4 KiB with the data at 1 MiB,
# or 0.90 64 KiB below the end rounded down to 64 KiB.
write_md_superblock() {
	perl -e '
		use strict; use warnings;
		my ($img, $ver, $slot, $n, $uuid, $name, $mdminor, $level, $events) = @ARGV;
		$level //= 1;
		$events //= 10;
		my ($layout, $chunk) = $level == 5 ? (2, 128) : (0, 0);
		my $size = -s $img or die "$img: $!\n";
		(my $hex = $uuid) =~ s/[-:]//g;
		my $uuidb = pack("H32", $hex);
		my ($off, $sb);
		if ($ver eq "1.2") {
			# struct mdp_superblock_1, then dev_roles[max_dev]
			$off = 4096;
			my $doff = 2048;
			my $dsize = int($size / 512) - $doff;
			my $devuuid = pack("H32", sprintf("%08x", $slot + 1) . substr($hex, 8));
			$sb = pack("V4 a16 a32 Q< V2 Q< V4 Q< V4 Q<4 V2 a16 C2 v V Q<3 V2 x32",
				0xa92b4efc, 1, 0, 0, $uuidb, $name, 1700000000, $level,
				$layout, $chunk ? $dsize - $dsize % $chunk : $dsize & ~7,
				$chunk, $n, 0, 0, 0, 0, 0, 0, 0,
				$doff, $dsize, $off / 512, 0, $slot, 0, $devuuid,
				0, 0, 0, 0, 1700000000, $events, ~0, 0, $n);
			$sb .= pack("v*", 0 .. $n - 1);
			# calc_sb_1_csum: 32-bit words, a last 16-bit one, folded
			my ($sum, $len) = (0, length($sb));
			$sum += $_ for unpack("V" . int($len / 4), $sb);
			$sum += unpack("v", substr($sb, $len - 2)) if $len % 4;
			substr($sb, 216, 4) = pack("V", (($sum & 0xffffffff) + ($sum >> 32)) & 0xffffffff);
		} else {
			# mdp_super_t: 1024 native-endian words
			$off = ($size & ~0xffff) - 0x10000;
			my @u = unpack("N4", $uuidb);
			my @w = (0) x 1024;
			@w[64, 65] = ($layout, $chunk * 512);
			@w[0 .. 15] = (0xa92b4efc, 0, 90, 0, 0, $u[0], 1700000000, $level,
				       $off / 1024, $n, $n, $mdminor, 0, @u[1 .. 3]);
			@w[32 .. 43] = (1700000000, 1, $n, $n, 0, 0, 0, 10, 0, 10, 0, 0);
			@w[128 + 32 * $_ .. 132 + 32 * $_] = ($_, 0, 0, $_, 6) for 0 .. $n - 1;
			@w[992 .. 996] = @w[128 + 32 * $slot .. 132 + 32 * $slot];
			my $sum = 0;
			$sum += $_ for @w;
			$w[38] = (($sum & 0xffffffff) + ($sum >> 32)) & 0xffffffff;
			$sb = pack("V1024", @w);
		}
		open(my $f, "+<", $img) or die "$img: $!\n";
		binmode $f;
		seek($f, $off, 0) or die "$img: $!\n";
		print $f $sb or die "$img: $!\n";
		close($f) or die "$img: $!\n";
	' "$@" || fail "unable to write an md $2 superblock on $1"
}

# make_md_raid1 VERSION DIR IMG...: a RAID1 of the IMGs (32 MiB each),
# the ext4 root from DIR (UUID $ROOT_UUID) in its data area on each.
make_md_raid1() {
	local ver=$1 dir=$2 slot=0 img offset size
	shift 2
	if [ "$ver" = 1.2 ]; then
		offset=$((1024 * 1024)) size=31744k
	else
		offset=0 size=32704k
	fi
	blank_disk "$1" 32
	mke2fs -q -F -t ext4 -U "$ROOT_UUID" -L md-root -d "$dir" \
		-E offset=$offset "$1" "$size" || { fail "mke2fs in $1 failed"; return 1; }
	for img in "${@:2}"; do
		cp "$1" "$img" || return 1
	done
	for img in "$@"; do
		write_md_superblock "$img" "$ver" "$slot" "$#" "$MD_UUID" "$MD_NAME" 0 || return 1
		blkid -p "$img" | grep -q 'TYPE="linux_raid_member"' ||
			{ fail "blkid does not see $img as an md member"; return 1; }
		slot=$((slot + 1))
	done
}

# make_md_raid5 DIR IMG...: a RAID5 (metadata 1.2, left-symmetric, 64 KiB
# chunks) of the IMGs (32 MiB each), the ext4 root from DIR striped over
# them with its parity, as the kernel's raid5 lays it out.
make_md_raid5() {
	local dir=$1 n slot=0 img
	shift
	n=$#
	rm -f "$T/raid5.ext4"
	mke2fs -q -F -t ext4 -U "$ROOT_UUID" -L md-root -d "$dir" "$T/raid5.ext4" \
		"$((31744 * (n - 1)))k" || { fail "mke2fs of the RAID5 data failed"; return 1; }
	for img in "$@"; do
		blank_disk "$img" 32
	done
	perl -e '
		use strict; use warnings;
		my ($data, @imgs) = @ARGV;
		my $n = @imgs;
		my ($chunk, $doff) = (65536, 1 << 20);
		open(my $in, "<", $data) or die "$data: $!\n";
		binmode $in;
		my @out = map { open(my $f, "+<", $_) or die "$_: $!\n"; binmode $f; $f } @imgs;
		for (my $s = 0; ; $s++) {
			# left-symmetric: parity walks down from the last disk,
			# the data of a stripe starts on the disk after it
			my $pd = $n - 1 - $s % $n;
			my $parity = "\0" x $chunk;
			my $got = 0;
			for my $i (0 .. $n - 2) {
				my $c = "";
				$got += read($in, $c, $chunk) // die "$data: $!\n";
				$c .= "\0" x ($chunk - length($c));
				$parity ^= $c;
				my $f = $out[($pd + 1 + $i) % $n];
				seek($f, $doff + $s * $chunk, 0) or die "seek: $!\n";
				print $f $c or die "write: $!\n";
			}
			seek($out[$pd], $doff + $s * $chunk, 0) or die "seek: $!\n";
			print {$out[$pd]} $parity or die "write: $!\n";
			last if $got == 0 || eof($in);
		}
		close($_) or die "close: $!\n" for @out;
	' "$T/raid5.ext4" "$@" || { fail "unable to stripe the RAID5"; return 1; }
	for img in "$@"; do
		write_md_superblock "$img" 1.2 "$slot" "$n" "$MD_UUID" "$MD_NAME" 0 5 || return 1
		slot=$((slot + 1))
	done
}

# stacked_image OUT: mkrescue -k for the stock kernel, with raid1, raid456 and
# btrfs (or --storage for the patched kernel), and this build's rescue-init.
stacked_image() {
	# shellcheck disable=SC2034 # stack_image and stack_kernel read it
	KVER=$(stock_kernel_version) || return 1
	stack_image "$1" --add-module raid1 --add-module raid456 --add-module btrfs
}

# The root booted from DEV: marker, ext4, read-only, the exec line.
expect_stacked_root() { # marker dev [fstype]
	expect_field "$T/console.log" root marker "$1" &&
	expect_field "$T/console.log" root dev "$2" &&
	expect_field "$T/console.log" root fs "${3:-ext4}" &&
	expect_field "$T/console.log" root mode ro &&
	expect_exec_line /sbin/init "$2" "${3:-ext4}" ro
}

# md_raid1_boot VERSION APPEND: the RAID1 on a virtio and an NVMe disk.
md_raid1_boot() {
	stacked_image "$T/initrd" || return 1
	make_root_dir "$T/root" "md-$1"
	make_md_raid1 "$1" "$T/root" "$T/m0.img" "$T/m1.img" || return 1
	record_sums "$T/m0.img" "$T/m1.img"
	stack_boot "$2" --disk "virtio-blk:$T/m0.img" --disk "nvme:$T/m1.img"
}

# ---- md ---------------------------------------------------------------

# Metadata 1.2, by the filesystem's UUID: both members, no degradation,
# and not a byte written to either (the array runs read-auto).
# Through dracut too (test_dracut_md_raid1_root_by_uuid): rescue-init
# assembles, neither udev nor mdadm runs.
test_md_raid1_12_root_by_uuid() {
	md_raid1_12_root_by_uuid
}
md_raid1_12_root_by_uuid() {
	md_raid1_boot 1.2 "root=UUID=$ROOT_UUID" || return 1
	expect_log "$T/console.log" \
		"rescue: md: started md127 \(raid1, metadata 1.2, name $MD_NAME, UUID $MD_UUID\) from (vda nvme0n1|nvme0n1 vda), read-auto" \
		"the array started from both members" &&
	expect_stacked_root md-1.2 /dev/md127 &&
	expect_no_log "$T/console.log" 'degraded' "a degraded start" &&
	expect_no_log "$T/console.log" 'udevd|mdadm:' "udev or mdadm running" &&
	expect_disks_unchanged
}

# root=/dev/md/NAME, the name after the host, as mdadm links it.
test_md_raid1_12_root_by_md_name() {
	md_raid1_boot 1.2 "root=/dev/md/root" || return 1
	expect_log "$T/console.log" "rescue: found root /dev/md/root on /dev/md127" \
		"the root found by its /dev/md name" &&
	expect_stacked_root md-1.2 /dev/md127 &&
	expect_disks_unchanged
}

# Strict read-only (rescue.ro=strict): the array starts "readonly", not
# read-auto, so that not even a write to it reaches the members.
test_md_raid1_strict_readonly_starts_readonly() {
	md_raid1_boot 1.2 "root=UUID=$ROOT_UUID rescue.ro=strict" || return 1
	expect_log "$T/console.log" \
		"rescue: md: started md127 \(raid1, metadata 1.2, name $MD_NAME, UUID $MD_UUID\) from [a-z0-9]+ [a-z0-9]+, readonly" \
		"the array started readonly" &&
	expect_stacked_root md-1.2 /dev/md127 &&
	expect_disks_unchanged
}

# Metadata 0.90 (superblock at the end): md0, its preferred minor.
test_md_raid1_090_root_by_uuid() {
	md_raid1_boot 0.90 "root=UUID=$ROOT_UUID" || return 1
	expect_log "$T/console.log" \
		"rescue: md: started md0 \(raid1, metadata 0.90, UUID $MD_UUID\) from" \
		"the 0.90 array started as md0" &&
	expect_stacked_root md-0.90 /dev/md0 &&
	expect_disks_unchanged
}

# One member missing: when the root wait ends, the array starts degraded
# with a warning naming the array and the missing slot; on the patched
# and the stock kernel, and through dracut (no mdadm runs).
test_md_raid1_degraded_starts_with_a_warning() {
	for_each_stack_kernel_and_newest md_raid1_degraded_starts_with_a_warning
}
md_raid1_degraded_starts_with_a_warning() {
	stacked_image "$T/initrd" || return 1
	make_root_dir "$T/root" md-degraded
	make_md_raid1 1.2 "$T/root" "$T/m0.img" "$T/m1.img" || return 1
	record_sums "$T/m1.img"
	stack_boot "root=UUID=$ROOT_UUID rootwait=3" --disk "nvme:$T/m1.img" || return 1
	expect_log "$T/console.log" \
		"rescue: md: md127 \(raid1, UUID $MD_UUID, name $MD_NAME\) starts degraded: 1 of 2 members, missing slot 0" \
		"the warning naming the array and the missing slot" &&
	expect_stacked_root md-degraded /dev/md127 &&
	expect_no_log "$T/console.log" 'udevd|mdadm:' "udev or mdadm running" &&
	expect_disks_unchanged
}

# A member whose event count is two behind (it missed writes) fills no
# slot: the array waits for the root wait, then starts degraded without
# it.  One behind is fresh, as for the kernel and mdadm.
test_md_raid1_stale_member_is_left_out() {
	stacked_image "$T/initrd" || return 1
	make_root_dir "$T/root" md-stale
	make_md_raid1 1.2 "$T/root" "$T/m0.img" "$T/m1.img" || return 1
	write_md_superblock "$T/m1.img" 1.2 1 2 "$MD_UUID" "$MD_NAME" 0 1 8 || return 1
	record_sums "$T/m0.img" "$T/m1.img"
	stack_boot "root=UUID=$ROOT_UUID rootwait=3" --disk "virtio-blk:$T/m0.img" \
		--disk "nvme:$T/m1.img" || return 1
	expect_log "$T/console.log" \
		"rescue: md: md127 \(raid1, UUID $MD_UUID, name $MD_NAME\) starts degraded: 1 of 2 members, missing slot 1" \
		"the degraded start" &&
	expect_log "$T/console.log" "rescue: md: /dev/nvme0n1 of md127 is stale \(events 8, the others 10\): left out" \
		"the stale member named" &&
	expect_log "$T/console.log" "rescue: md: started md127 \(raid1, .*\) from vda, read-auto" \
		"the array started from the fresh member alone" &&
	expect_stacked_root md-stale /dev/md127 &&
	expect_disks_unchanged
}

# RAID5 of three members; then with one missing, started degraded.
test_md_raid5_root_by_uuid() {
	stacked_image "$T/initrd" || return 1
	make_root_dir "$T/root" md-raid5
	make_md_raid5 "$T/root" "$T/m0.img" "$T/m1.img" "$T/m2.img" || return 1
	record_sums "$T/m0.img" "$T/m1.img" "$T/m2.img"
	stack_boot "root=UUID=$ROOT_UUID" --disk "virtio-blk:$T/m0.img" \
		--disk "nvme:$T/m1.img" --disk "virtio-blk:$T/m2.img" || return 1
	expect_log "$T/console.log" \
		"rescue: md: started md127 \(raid5, metadata 1.2, name $MD_NAME, UUID $MD_UUID\) from [a-z0-9]+ [a-z0-9]+ [a-z0-9]+, read-auto" \
		"the RAID5 started from its three members" &&
	expect_stacked_root md-raid5 /dev/md127 &&
	expect_disks_unchanged
}

test_md_raid5_degraded_starts_with_a_warning() {
	stacked_image "$T/initrd" || return 1
	make_root_dir "$T/root" md-raid5-degraded
	make_md_raid5 "$T/root" "$T/m0.img" "$T/m1.img" "$T/m2.img" || return 1
	record_sums "$T/m0.img" "$T/m2.img"
	stack_boot "root=UUID=$ROOT_UUID rootwait=3" --disk "virtio-blk:$T/m0.img" \
		--disk "virtio-blk:$T/m2.img" || return 1
	expect_log "$T/console.log" \
		"rescue: md: md127 \(raid5, UUID $MD_UUID, name $MD_NAME\) starts degraded: 2 of 3 members, missing slot 1" \
		"the warning naming the missing slot" &&
	expect_stacked_root md-raid5-degraded /dev/md127 &&
	expect_disks_unchanged
}

# One member of three: too few to run.  The line says so, and the device
# table shows the array with its member and the missing slots.
test_md_raid5_too_few_members_is_reported() {
	stacked_image "$T/initrd" || return 1
	make_root_dir "$T/root" md-raid5-short
	make_md_raid5 "$T/root" "$T/m0.img" "$T/m1.img" "$T/m2.img" || return 1
	record_sums "$T/m1.img"
	stack_boot "root=UUID=$ROOT_UUID rootwait=2 rd.shell=0 rd.retry=1 panic=1" \
		--disk "nvme:$T/m1.img" || return 1
	expect_log "$T/console.log" \
		"rescue: md: md127 \(raid5, UUID $MD_UUID\) cannot start: 1 of 3 members, it needs 2; missing slot 0, 2" \
		"the array that cannot start, and why" &&
	expect_log "$T/console.log" \
		"rescue: md127: md raid5, metadata 1.2, name $MD_NAME, UUID $MD_UUID, inactive: nvme0n1\[1\], missing slot 0, 2" \
		"the array in the device table" &&
	expect_no_log "$T/console.log" 'TEST RESULT: root' "a boot" &&
	expect_disks_unchanged
}

# rd.md=0: the members are left alone and the root is not found; on the
# patched and the stock kernel.
test_md_off_leaves_the_members_alone() {
	for_each_stack_kernel md_off_leaves_the_members_alone
}
md_off_leaves_the_members_alone() {
	md_raid1_boot 1.2 "root=UUID=$ROOT_UUID rootwait=2 rd.md=0 rd.shell=0 rd.retry=1 panic=1" || return 1
	expect_log "$T/console.log" "rescue: storage: md is off for this boot" \
		"the layer turned off" &&
	expect_log "$T/console.log" "rescue: storage: /dev/vda left alone: rd.md=0 turns md off" \
		"why the member is not used" &&
	expect_log "$T/console.log" "rescue: unable to find root UUID=$ROOT_UUID" \
		"the root not found" &&
	expect_no_log "$T/console.log" 'rescue: md: started' "an array started" &&
	expect_no_log "$T/console.log" 'TEST RESULT: root' "a boot" &&
	expect_disks_unchanged
}

# rd.md.uuid= names another array: this one is not assembled.
test_md_uuid_limits_the_arrays() {
	md_raid1_boot 1.2 "root=UUID=$ROOT_UUID rootwait=2 rd.md.uuid=00000000:00000000:00000000:00000001 rd.shell=0 rd.retry=1 panic=1" || return 1
	expect_log "$T/console.log" "rescue: md: /dev/vda left alone: its array $MD_UUID is not in rd.md.uuid" \
		"the member left alone" &&
	expect_no_log "$T/console.log" 'TEST RESULT: root' "a boot" &&
	expect_disks_unchanged
}

# ---- btrfs ------------------------------------------------------------

# make_btrfs_pair: $T/b1.img and $T/b2.img, the two-device btrfs of
# tests/disks/btrfs-pair.sh.
make_btrfs_pair() {
	disk btrfs-pair BTRFS_UUID
}

# btrfs_boot APPEND: the two devices on virtio and NVMe.
btrfs_boot() {
	stacked_image "$T/initrd" || return 1
	make_btrfs_pair || return 1
	record_sums "$T/b1.img" "$T/b2.img"
	stack_boot "$1" --disk "virtio-blk:$T/b1.img" --disk "nvme:$T/b2.img"
}

expect_btrfs_root() { # marker
	expect_log "$T/console.log" \
		"rescue: btrfs: registered /dev/(vda|nvme0n1), 2 of 2 devices of $BTRFS_UUID, all there" \
		"both devices registered" &&
	expect_log "$T/console.log" "rescue: found root UUID=$BTRFS_UUID on /dev/(vda|nvme0n1) \(btrfs\)" \
		"the root found on one device, not refused as ambiguous" &&
	expect_field "$T/console.log" root marker "$1" &&
	expect_field "$T/console.log" root fs btrfs &&
	expect_field "$T/console.log" root mode ro &&
	expect_log "$T/console.log" "rescue: exec /sbin/init on /dev/(vda|nvme0n1) \(btrfs, ro\)" \
		"the exec line"
}

test_btrfs_two_devices_root_by_uuid() {
	btrfs_boot "root=UUID=$BTRFS_UUID" || return 1
	expect_btrfs_root btrfs-top &&
	expect_disks_unchanged
}

# rootflags=subvol= reaches the mount: the subvolume's init runs; on the
# patched and the stock kernel, and through dracut (no udev runs).
test_btrfs_two_devices_root_in_a_subvolume() {
	for_each_stack_kernel_and_newest btrfs_two_devices_root_in_a_subvolume
}
btrfs_two_devices_root_in_a_subvolume() {
	btrfs_boot "root=UUID=$BTRFS_UUID rootflags=subvol=root" || return 1
	expect_btrfs_root btrfs-subvol &&
	expect_log "$T/console.log" 'TEST RESULT: root .*opts=[^ ]*subvol=/root' \
		"subvol=/root in the mount options" &&
	expect_no_log "$T/console.log" 'udevd' "udev running" &&
	expect_disks_unchanged
}

# btrfs_one_boot APPEND: the raid1 pair of make_btrfs_pair with its
# second device absent, the first on virtio.
btrfs_one_boot() {
	stacked_image "$T/initrd" || return 1
	make_btrfs_pair || return 1
	record_sums "$T/b1.img"
	stack_boot "$1" --disk "virtio-blk:$T/b1.img"
}

# One device of the two absent, no rootflags=degraded: the device is
# registered, not matched while its filesystem is incomplete, and when
# the root wait ends rescue-init says that rootflags=degraded mounts it;
# no root.  On the patched and the stock kernel.
test_btrfs_device_missing_says_rootflags_degraded() {
	for_each_stack_kernel btrfs_device_missing_says_rootflags_degraded
}
btrfs_device_missing_says_rootflags_degraded() {
	btrfs_one_boot "root=UUID=$BTRFS_UUID rootwait=2 rd.shell=0 rd.retry=1 panic=1" || return 1
	expect_log "$T/console.log" \
		"rescue: btrfs: registered /dev/vda, 1 of 2 devices of $BTRFS_UUID$" \
		"the device registered, its filesystem not complete" &&
	expect_log "$T/console.log" \
		"rescue: btrfs: filesystem $BTRFS_UUID has 1 of its 2 devices; rootflags=degraded mounts it without the others" \
		"the line naming rootflags=degraded" &&
	expect_log "$T/console.log" "rescue: unable to find root UUID=$BTRFS_UUID" \
		"the root not found" &&
	expect_log "$T/console.log" "rescue: +btrfs $BTRFS_UUID: 1 of 2 devices, incomplete: vda$" \
		"the filesystem in the device table" &&
	expect_no_log "$T/console.log" 'TEST RESULT: root' "a boot" &&
	expect_disks_unchanged
}

# The same with rootflags=degraded: the data and metadata are raid1, so
# the one device holds all of it; rescue-init matches the incomplete
# filesystem at once and mounts it with -o degraded (the guest's mount
# options say so); not a byte is written.  On the patched and the stock
# kernel.
test_btrfs_device_missing_mounts_with_rootflags_degraded() {
	for_each_stack_kernel btrfs_device_missing_mounts_with_rootflags_degraded
}
btrfs_device_missing_mounts_with_rootflags_degraded() {
	btrfs_one_boot "root=UUID=$BTRFS_UUID rootflags=degraded rootwait=2 rd.shell=0 rd.retry=1 panic=1" || return 1
	expect_log "$T/console.log" \
		"rescue: btrfs: registered /dev/vda, 1 of 2 devices of $BTRFS_UUID$" \
		"the device registered, its filesystem not complete" &&
	expect_no_log "$T/console.log" "rescue: btrfs: filesystem $BTRFS_UUID has 1 of its 2 devices" \
		"a root wait for the missing device" &&
	expect_log "$T/console.log" "rescue: found root UUID=$BTRFS_UUID on /dev/vda \(btrfs\)" \
		"the root found on the one device" &&
	expect_field "$T/console.log" root marker btrfs-top &&
	expect_field "$T/console.log" root fs btrfs &&
	expect_field "$T/console.log" root mode ro &&
	expect_log "$T/console.log" 'TEST RESULT: root .*opts=([^ ]*,)?degraded[, ]' \
		"degraded in the mount options" &&
	expect_log "$T/console.log" "rescue: exec /sbin/init on /dev/vda \(btrfs, ro\)" \
		"the exec line" &&
	expect_disks_unchanged
}

# ---- md RAID1 -> LUKS2 -> LVM ------------------------------------------

# make_luks_lvm_payloads: $T/deb.img and $T/mdl.img, the LUKS2 -> LVM
# payloads of tests/disks/luks-lvm.sh.
make_luks_lvm_payloads() {
	disk luks-lvm DEB_LUKS_UUID DEB_ROOT_UUID MDL_LUKS_UUID MDL_ROOT_UUID PV_DEB PV_MDL STACK_PASS
}

# make_md_luks_lvm M0 M1: a RAID1 (metadata 1.2, UUID $MD_UUID) of two
# 49 MiB members whose data area (at 1 MiB) is $T/mdl.img: md RAID1 ->
# LUKS2 -> LVM -> ext4.
make_md_luks_lvm() {
	local img slot=0
	make_luks_lvm_payloads || return 1
	for img in "$@"; do
		blank_disk "$img" 49
		dd if="$T/mdl.img" of="$img" bs=1M seek=1 conv=notrunc,sparse status=none &&
		write_md_superblock "$img" 1.2 "$slot" 2 "$MD_UUID" "$MD_NAME" 0 || return 1
		blkid -p "$img" | grep -q 'TYPE="linux_raid_member"' ||
			{ fail "blkid does not see $img as an md member"; return 1; }
		slot=$((slot + 1))
	done
}

# What md RAID1 -> LUKS2 -> LVM shows: the array from both members, the
# container on it opened, the PV inside, its VG, the root on the LV.
expect_md_luks_lvm_root() {
	expect_log "$T/console.log" \
		"rescue: md: started md127 \(raid1, metadata 1.2, name $MD_NAME, UUID $MD_UUID\) from (vda nvme0n1|nvme0n1 vda), read-auto" \
		"the array started from both members" &&
	expect_log "$T/console.log" \
		"rescue: luks: opened /dev/md127 \(LUKS2, UUID $MDL_LUKS_UUID\) as dm-0 \(/dev/mapper/luks-$MDL_LUKS_UUID\)$" \
		"the container on the array opened" &&
	expect_log "$T/console.log" \
		"rescue: lvm: /dev/dm-0 is PV $PV_MDL of volume group mdvg \(UUID [A-Za-z0-9-]+\), 1 of 1 PVs there" \
		"the PV inside the container" &&
	expect_log "$T/console.log" "rescue: lvm: volume group mdvg: 1 LVs activated$" \
		"its LV activated" &&
	expect_log "$T/console.log" "rescue: found root /dev/mdvg/root on /dev/dm-1" \
		"the root found on the LV" &&
	expect_no_log "$T/console.log" "$STACK_PASS" "the passphrase on the console" &&
	expect_stacked_root md-luks-lvm /dev/dm-1
}

# md RAID1 -> LUKS2 -> LVM -> ext4, the layers each rescue-init's, on
# the patched kernel (md, dm, dm-crypt built in) and the stock kernel
# (mkrescue -k), and through dracut (its mdraid, crypt and lvm hooks
# never run); the members on virtio and NVMe, the passphrase typed.
test_md_raid1_luks2_lvm_root() {
	for_each_stack_kernel_and_newest md_raid1_luks2_lvm_root
}
md_raid1_luks2_lvm_root() {
	stacked_image "$T/initrd" &&
	make_md_luks_lvm "$T/m0.img" "$T/m1.img" || return 1
	record_sums "$T/m0.img" "$T/m1.img"
	passphrase_steps /dev/md127 "$MDL_LUKS_UUID" "$STACK_PASS"
	stack_steps "root=/dev/mdvg/root" \
		--disk "virtio-blk:$T/m0.img" --disk "nvme:$T/m1.img" || return 1
	expect_md_luks_lvm_root &&
	expect_no_log "$T/console.log" 'udevd|udevadm|systemd\[1\]|mdadm:|systemd-cryptsetup' \
		"udev, systemd or mdadm running" &&
	expect_disks_unchanged
}

# ---- the dracut path (issue 15) -----------------------------------------

# The tests below boot the dracut image of tests/lib/dracut-lib.sh (dracut
# --no-hostonly --add "devtmpfs-rescue crypt lvm mdraid btrfs", this
# tree's module: their hooks never run, rescue-init assembles), as_dracut
# (tests/lib/stacked-lib.sh) for the stock kernel of the run, most of
# them the tests above.  The tests of the layers boot every stock kernel
# (6.12's modules are .ko.xz); the rd.*=0 test, rescue-init's own
# choice, the oldest only.

test_dracut_md_raid1_root_by_uuid() { as_dracut md_raid1_12_root_by_uuid; }
test_dracut_md_raid1_degraded_starts_with_a_warning() {
	for_each_stock_kernel as_dracut md_raid1_degraded_starts_with_a_warning
}
test_dracut_btrfs_two_devices_root_in_a_subvolume() {
	for_each_stock_kernel as_dracut btrfs_two_devices_root_in_a_subvolume
}
test_dracut_md_raid1_luks2_lvm_root() { for_each_stock_kernel as_dracut md_raid1_luks2_lvm_root; }

# The Debian layout through dracut: LUKS2 -> LVM -> ext4, root= the
# /dev/mapper name Debian's installer writes, the passphrase typed at
# rescue-init's prompt (dracut's crypt and lvm hooks never run).
dracut_luks2_lvm_root_passphrase_typed() {
	stacked_image "$T/initrd" &&
	make_luks_lvm_payloads || return 1
	record_sums "$T/deb.img"
	passphrase_steps /dev/vda "$DEB_LUKS_UUID" "$STACK_PASS"
	stack_steps "root=/dev/mapper/debvg-root" --disk "virtio-blk:$T/deb.img" || return 1
	expect_log "$T/console.log" \
		"rescue: luks: opened /dev/vda \(LUKS2, UUID $DEB_LUKS_UUID\) as dm-0 \(/dev/mapper/luks-$DEB_LUKS_UUID\)$" \
		"the container opened" &&
	expect_log "$T/console.log" \
		"rescue: lvm: /dev/dm-0 is PV $PV_DEB of volume group debvg \(UUID [A-Za-z0-9-]+\), 1 of 1 PVs there" \
		"the PV inside the container" &&
	expect_log "$T/console.log" "rescue: lvm: volume group debvg: 2 LVs activated$" \
		"both LVs activated" &&
	expect_log "$T/console.log" "rescue: found root /dev/mapper/debvg-root on /dev/dm-1" \
		"the root found by its /dev/mapper name" &&
	expect_no_log "$T/console.log" "$STACK_PASS" "the passphrase on the console" &&
	expect_no_log "$T/console.log" 'udevd|udevadm|systemd\[1\]|systemd-cryptsetup|lvm_scan' \
		"udev, systemd or dracut's hooks running" &&
	expect_stacked_root luks-lvm /dev/dm-1 &&
	expect_disks_unchanged
}
test_dracut_luks2_lvm_root_passphrase_typed() {
	for_each_stock_kernel as_dracut dracut_luks2_lvm_root_passphrase_typed
}

# rd.md=0, rd.luks=0 and rd.lvm=0 through dracut (its modules' own
# parameters, honoured by rescue-init): each layer off leaves its
# members alone, says so, and the root is not found.  rd.lvm=0 on md
# RAID1 -> LUKS2 -> LVM: the array starts, the container opens (the
# passphrase typed), the PV inside is left alone.
test_dracut_rd_md_luks_lvm_0_leave_the_members_alone() {
	as_dracut dracut_rd_md_luks_lvm_0_leave_the_members_alone
}
dracut_rd_md_luks_lvm_0_leave_the_members_alone() {
	local fail_args="rootwait=2 rd.shell=0 rd.retry=1 panic=1"
	stacked_image "$T/initrd" &&
	make_md_luks_lvm "$T/m0.img" "$T/m1.img" || return 1
	record_sums "$T/m0.img" "$T/m1.img" "$T/deb.img"
	stack_boot "root=/dev/mdvg/root rd.md=0 $fail_args" \
		--disk "virtio-blk:$T/m0.img" --disk "nvme:$T/m1.img" || return 1
	expect_log "$T/console.log" "rescue: storage: /dev/vda left alone: rd.md=0 turns md off" \
		"rd.md=0: the member left alone" &&
	expect_no_log "$T/console.log" 'TEST RESULT: root|rescue: md: started' "rd.md=0: an array or a boot" || return 1
	mv "$T/console.log" "$T/console-md.log"
	stack_boot "root=/dev/mapper/debvg-root rd.luks=0 $fail_args" \
		--disk "virtio-blk:$T/deb.img" || return 1
	expect_log "$T/console.log" "rescue: storage: /dev/vda left alone: rd.luks=0 turns luks off" \
		"rd.luks=0: the container left alone" &&
	expect_no_log "$T/console.log" 'TEST RESULT: root|Passphrase for' "rd.luks=0: a prompt or a boot" || return 1
	mv "$T/console.log" "$T/console-luks.log"
	cat >"$T/steps" <<-EOF
	want Passphrase for /dev/md127 \\(LUKS UUID $MDL_LUKS_UUID\\):
	send $STACK_PASS
	want rescue: storage: /dev/dm-0 left alone: rd.lvm=0 turns lvm off
	end
	EOF
	stack_steps "root=/dev/mdvg/root rd.lvm=0 $fail_args" \
		--disk "virtio-blk:$T/m0.img" --disk "nvme:$T/m1.img" || return 1
	expect_log "$T/console.log" "rescue: luks: opened /dev/md127 " "rd.lvm=0: the container opened" &&
	expect_no_log "$T/console.log" 'TEST RESULT: root|rescue: lvm: volume group' \
		"rd.lvm=0: an activation or a boot" &&
	expect_disks_unchanged
}
