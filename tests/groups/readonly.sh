# SPDX-License-Identifier: GPL-2.0
# tests/groups/readonly.sh: rescue.ro=strict, a boot that writes to no disk.
# A dirty ext4 (a journal a VM committed and never checkpointed) is the
# root: strict mode leaves it byte-identical on virtio and NVMe, a boot
# without it replays the journal and so writes it; in the rescue shell
# every disk is read-only and rescue-mount --rw writes to one only.

# shellcheck disable=SC2016 # the result_cmd expressions are single-quoted: they expand in the guest
. "$TOP/tests/lib/rescue-lib.sh"

# dirty_ext4 OUT MARKER: a 16 MiB ext4 root (report-init, MARKER) with an
# unreplayed journal, made once per recipe by rescue-lib's maker.
dirty_ext4() {
	local out=$1 marker=$2 recipe
	make_root_dir "$T/dirty-root" "$marker"
	# What the real init inherits: "1" when every block device is
	# read-only, "0" when none is, "01" when some are.
	mv "$T/dirty-root/sbin/init" "$T/dirty-root/sbin/report-init"
	cat >"$T/dirty-root/sbin/init" <<'EOF2'
#!/bin/sh
mount -t sysfs sysfs /sys 2>/dev/null
echo "TEST RESULT: inherit ro=$(cat /sys/class/block/*/ro | sort -u | tr -d '\n') "
exec /sbin/report-init "$@"
EOF2
	chmod 0755 "$T/dirty-root/sbin/init"
	recipe=$( {
		(cd "$T/dirty-root" && find . -printf '%p %l %s %m\n' | sort)
		sha256sum "$T/dirty-root/sbin/init" "$T/dirty-root/sbin/report-init" | cut -d' ' -f1
		echo "$marker $ROOT_UUID 16 MiB"
	})
	dirty_ext4_disk "$out" /dev/vda 0 "$recipe" \
		make_ext4 "$T/dirty-root" "$out" 16 "$ROOT_UUID" root
}

# strict_boot BUS DEVICE: the dirty root on BUS, booted with
# rescue.ro=strict: the report-init runs, and no byte of it changed.
strict_boot() {
	make_image "$T/initrd" || return 1
	dirty_ext4 "$T/root.img" strict || return 1
	record_sums "$T/root.img"
	boot "$T/initrd" "root=$2 rescue.ro=strict" --disk "$1:$T/root.img" || return 1
	expect_disks_unchanged &&
	expect_log "$T/console.log" 'rescue: strict read-only: [1-9][0-9]* devices set read-only \(rescue.ro=strict\)' \
		"the strict line" &&
	expect_log "$T/console.log" "rescue: strict read-only: $2 mounted with noload" \
		"the no-replay option" &&
	expect_field "$T/console.log" root marker strict &&
	expect_field "$T/console.log" root mode ro &&
	expect_field "$T/console.log" inherit ro 1
}

# expect_disks_written WHY: every disk of $T/sums (record_sums) changed
# during the boot: the control of a strict test, WHY what it means when
# one did not.
expect_disks_written() {
	local n
	n=$(wc -l <"$T/sums")
	sha256sum -c "$T/sums" >"$T/sums.out" 2>&1
	[ "$n" -gt 0 ] && [ "$(grep -c ': FAILED$' "$T/sums.out")" -eq "$n" ] ||
		{ fail "$1:" "$(cat "$T/sums.out")"; return 1; }
}

test_strict_leaves_dirty_ext4_root_unchanged_on_virtio() {
	strict_boot virtio-blk /dev/vda
}

test_strict_leaves_dirty_ext4_root_unchanged_on_nvme() {
	strict_boot nvme /dev/nvme0n1
}

# The same root without strict mode: the ro mount replays the journal,
# which is what this mode is for, and proves the layout dirty.
test_without_strict_the_dirty_root_is_written() {
	make_image "$T/initrd" || return 1
	dirty_ext4 "$T/root.img" strict || return 1
	record_sums "$T/root.img"
	boot "$T/initrd" "root=/dev/vda" --disk "virtio-blk:$T/root.img" || return 1
	expect_field "$T/console.log" root marker strict &&
	expect_field "$T/console.log" root mode ro &&
	expect_no_log "$T/console.log" 'strict read-only' "strict mode" &&
	expect_field "$T/console.log" inherit ro 0 &&
	expect_disks_written "the dirty root is unchanged without strict mode: the layout is not dirty" || return 1
	# needs_recovery is silent about a dumpe2fs that fails: read it here.
	dumpe2fs -h "$T/root.img" >"$T/dumpe2fs.out" 2>&1 ||
		{ fail "dumpe2fs cannot read $T/root.img:" "$(tail -n3 "$T/dumpe2fs.out")"; return 1; }
	grep -q '^Filesystem features:.*needs_recovery' "$T/dumpe2fs.out" &&
		fail "needs_recovery is still set after a boot without strict mode"
	return 0
}

# The sha256 of partition N of a disk image.
part_sum() { # img n
	local start sectors
	read -r start sectors < <(sfdisk -q -l -o Start,Sectors "$1" | awk 'NR > 1' | sed -n "${2}p")
	dd if="$1" bs=512 skip="$start" count="$sectors" status=none | sha256sum | cut -d' ' -f1
}

# The rescue word implies strict mode: in its shell every block device
# reads read-only, and rescue-mount --rw on one partition writes there:
# not on its sibling, not on the dirty root.
test_rescue_shell_is_read_only_but_for_rescue_mount_rw() {
	local p1 p2
	make_image "$T/initrd" || return 1
	dirty_ext4 "$T/root.img" strict || return 1
	mkdir -p "$T/data"
	echo data >"$T/data/marker"
	make_gpt "$T/data.img" 24 "one:$BASE_PARTUUID:10" "two:$DECOY_PARTUUID:rest" || return 1
	put_ext4 "$T/data.img" 1 "$T/data" "$DECOY_UUID" one || return 1
	put_ext4 "$T/data.img" 2 "$T/data" "$ROOT_UUID" two || return 1
	record_sums "$T/root.img"
	p1=$(part_sum "$T/data.img" 1)
	p2=$(part_sum "$T/data.img" 2)
	{
		result_cmd ro total '$(ls /sys/class/block | wc -l)' \
			ro '$(for d in $(ls /sys/class/block); do blockdev --getro /dev/$d; done | grep -cx 1)'
		echo "rescue-mount"
		echo "rescue-mount --rw /dev/vda"
		echo "rescue-mount --rw /dev/nvme0n1p1 /mnt"
		echo "echo written >/mnt/written && umount /mnt"
		result_cmd rw p1 '$(blockdev --getro /dev/nvme0n1p1)' \
			p2 '$(blockdev --getro /dev/nvme0n1p2)' \
			vda '$(blockdev --getro /dev/vda)'
	} >"$T/commands"
	vm_shell "$T/console.log" "$VM_TIMEOUT" "$T/commands" --initrd "$T/initrd" \
		--append "root=/dev/vda rescue" --disk "virtio-blk:$T/root.img" \
		--disk "nvme:$T/data.img" || return 1
	local total
	total=$(result_field "$T/console.log" ro total)
	[ "${total:-0}" -ge 4 ] || fail "only ${total:-no} block devices in the shell"
	expect_field "$T/console.log" ro ro "$total" &&
	expect_disks_unchanged &&
	expect_log "$T/console.log" 'rescue: strict read-only: [0-9]+ devices set read-only \(implied by rescue; rescue.ro=0 turns it off\)' \
		"the implied strict line" &&
	expect_log "$T/console.log" '^rescue-mount: mounted /dev/vda \(ext4, ro\) on /newroot' \
		"the root mounted as the boot would" &&
	expect_log "$T/console.log" '^rescue-mount: unable to remount /dev/vda on /newroot read-write: it was mounted without replaying its journal \(norecovery\)' \
		"the refusal to remount a noload mount" &&
	expect_log "$T/console.log" '^rescue-mount: /dev/nvme0n1p1 was read-only, now writable' \
		"what rescue-mount --rw changed" &&
	expect_log "$T/console.log" '^rescue-mount: /dev/nvme0n1 \(the disk of /dev/nvme0n1p1\) was read-only, now writable' \
		"the disk made writable" &&
	expect_log "$T/console.log" '^rescue-mount: mounted /dev/nvme0n1p1 \(ext4, rw\) on /mnt' \
		"the read-write mount" &&
	expect_field "$T/console.log" rw p1 0 &&
	expect_field "$T/console.log" rw p2 1 &&
	expect_field "$T/console.log" rw vda 1 || return 1
	[ "$(part_sum "$T/data.img" 1)" != "$p1" ] ||
		fail "nothing was written to nvme0n1p1 after rescue-mount --rw"
	[ "$(part_sum "$T/data.img" 2)" = "$p2" ] ||
		fail "nvme0n1p2 changed, but only nvme0n1p1 was made writable"
	return 0
}

# A disk hot-added while PID 1 waits for the rescue shell is read-only
# too: the watcher, not PID 1's root search, sets it.
test_disk_hot_added_during_the_rescue_shell_is_read_only() {
	local pid
	make_image "$T/initrd" || return 1
	make_decoy "$T/decoy.img" "$DECOY_UUID" decoy
	make_decoy "$T/hot.img" "$ROOT_UUID" hot
	cat >"$T/steps" <<'EOF2'
want starting the rescue shell
want \[sdb\] Attached SCSI
send sleep 1; printf '%s %s: hot getro=%s\n' TEST RESULT $(blockdev --getro /dev/sdb)
want TEST RESULT: hot
send reboot -f
end
EOF2
	"$TOP/tests/tools/vm-steps.exp" "$T/console.log" "$VM_TIMEOUT" "$T/steps" \
		--kernel "$BZIMAGE" --initrd "$T/initrd" --monitor "$T/mon.sock" \
		--append "root=/dev/sda rescue" --disk "virtio-scsi:$T/decoy.img" &
	pid=$!
	wait_log "$T/console.log" 'starting the rescue shell' 60 &&
		hot_add_disk "$T/hot.img" || { kill "$pid"; wait "$pid"; return 1; }
	wait "$pid" || { fail "vm-steps failed"; show_log "$T/console.log" 40; return 1; }
	expect_field "$T/console.log" hot getro 1 &&
	expect_log "$T/console.log" 'rescue: strict read-only: /dev/sdb set read-only as it appeared' \
		"the watcher's line"
}

# A change event (a dm table resumed, a loop device attached) sets a
# device read-only again, here one made writable behind strict mode's
# back; one that rescue-mount --rw made writable stays so.
test_strict_shell_sets_a_changed_device_read_only_again() {
	make_image "$T/initrd" || return 1
	make_decoy "$T/a.img" "$ROOT_UUID" a
	make_decoy "$T/b.img" "$DECOY_UUID" b
	record_sums "$T/a.img"
	{
		echo 'blockdev --setrw /dev/vda; echo change >/sys/class/block/vda/uevent'
		echo 'rescue-mount --rw /dev/vdb /mnt && umount /mnt; echo change >/sys/class/block/vdb/uevent; sleep 1'
		result_cmd change vda '$(blockdev --getro /dev/vda)' vdb '$(blockdev --getro /dev/vdb)'
	} >"$T/commands"
	vm_shell "$T/console.log" "$VM_TIMEOUT" "$T/commands" --initrd "$T/initrd" \
		--append "root=/dev/vda rescue" --disk "virtio-blk:$T/a.img" \
		--disk "virtio-blk:$T/b.img" || return 1
	expect_field "$T/console.log" change vda 1 &&
	expect_field "$T/console.log" change vdb 0 &&
	expect_log "$T/console.log" 'rescue: strict read-only: /dev/vda set read-only again as it changed' \
		"the watcher's line" &&
	expect_disks_unchanged
}

# ---- XFS with a dirty log, on the stock kernel (mkrescue -k) ----------

DIRTY_XFS_MB=320	# mkfs.xfs 6.1 makes nothing smaller than 300 MiB

# A mkfs.xfs -p proto file for the tree DIR: busybox's applets as links.
xfs_proto() { # dir
	local dir=$1
	walk() { # path indent
		local e name
		for e in "$1"/*; do
			[ -e "$e" ] || [ -L "$e" ] || continue	# an empty directory
			name=${e##*/}
			if [ -L "$e" ]; then
				echo "$2$name l--777 0 0 $(readlink "$e")"
			elif [ -d "$e" ]; then
				echo "$2$name d--755 0 0"
				walk "$e" "$2 "
				echo "$2\$"
			else
				echo "$2$name ---$(stat -c %a "$e") 0 0 $e"
			fi
		done
	}
	echo /dev/null
	echo 0 0
	echo "d--755 0 0"
	walk "$dir" " "
	echo "\$"
}

# stock_dirty_root NAME OUT MARKER MB VERSION APPEND: a root with a log
# to replay in OUT, made once per recipe by rescue-init itself on the
# stock kernel: the tree $T/NAME-root (make_root_dir, MARKER, the
# caller's /sbin/maker) made into a MB MiB filesystem by NAME_mkfs TREE
# IMG (of mkfs VERSION), booted with root= rw, APPEND and
# init=/sbin/maker, which writes and reboots without unmounting; then
# NAME_left_dirty IMG checks the log is there.
stock_dirty_root() {
	local name=$1 out=$2 marker=$3 mb=$4 version=$5 append=$6 tree=$T/$1-root key cached kver
	kver=$(stock_kernel_version) || return 1
	chmod 0755 "$tree/sbin/maker"
	key=$( {
		(cd "$tree" && find . -printf '%p %l %s %m\n' | sort)
		sha256sum "$tree/sbin/maker" "$tree/sbin/init" "$BUSYBOX" \
			"$BUILD/rescue-init" "/boot/vmlinuz-$kver" | cut -d' ' -f1
		echo "$marker $ROOT_UUID $mb $version"
	} | sha256sum | cut -c1-16)
	cached=$DIRTY_CACHE/$name-$key.img
	if [ ! -e "$cached" ]; then
		stock_image "$T/maker.img" || return 1
		blank_disk "$T/dirty.img" "$mb"
		"${name}_mkfs" "$tree" "$T/dirty.img" >"$T/mkfs.log" 2>&1 ||
			{ fail "the $name mkfs failed:" "$(cat "$T/mkfs.log")"; return 1; }
		boot_vm "$T/maker.log" --kernel "/boot/vmlinuz-$kver" --initrd "$T/maker.img" \
			--append "root=/dev/vda rw $append init=/sbin/maker" \
			--disk "virtio-blk:$T/dirty.img" || return 1
		expect_field "$T/maker.log" maker written yes || return 1
		"${name}_left_dirty" "$T/dirty.img" || { show_log "$T/maker.log"; return 1; }
		mkdir -p "$DIRTY_CACHE"
		mv "$T/dirty.img" "$cached.tmp" && mv "$cached.tmp" "$cached"
	fi
	cp --sparse=always "$cached" "$out"
}

# stock_root_boot APPEND: $T/root.img on virtio, booted on the stock
# kernel with the image of mkrescue -k.
stock_root_boot() {
	local kver
	kver=$(stock_kernel_version) && stock_image "$T/rescue.img" || return 1
	boot_vm "$T/console.log" --kernel "/boot/vmlinuz-$kver" --initrd "$T/rescue.img" \
		--append "$1" --disk "virtio-blk:$T/root.img"
}

# stock_strict_boot FS MARKER OPTION: $T/root.img, an FS root marked
# MARKER, booted on the stock kernel with rescue.ro=strict: mounted
# read-only (the first of its mount options: f2fs's own hold a "mode="
# that result_field would take for the report's) with OPTION (no replay
# of its log), and left byte-identical.
stock_strict_boot() {
	local opts
	record_sums "$T/root.img"
	stock_root_boot "root=/dev/vda rescue.ro=strict" || return 1
	expect_disks_unchanged &&
	expect_log "$T/console.log" "rescue: strict read-only: /dev/vda mounted with $3" \
		"the no-replay option" &&
	expect_field "$T/console.log" root marker "$2" &&
	expect_field "$T/console.log" root fs "$1" || return 1
	opts=$(result_field "$T/console.log" root opts)
	[[ $opts == ro,* ]] || { fail "the root's mount options are ${opts:-none}, not ro"; return 1; }
}

# stock_unstrict_boot FS MARKER WHY: the same root booted without strict
# mode: mounted read-only, yet written (its log replayed); WHY, what it
# means when it is not.
stock_unstrict_boot() {
	record_sums "$T/root.img"
	stock_root_boot "root=/dev/vda" || return 1
	expect_field "$T/console.log" root marker "$2" &&
	expect_field "$T/console.log" root fs "$1" &&
	expect_field "$T/console.log" root mode ro &&
	expect_no_log "$T/console.log" 'strict read-only' "strict mode" &&
	expect_disks_written "$3"
}

xfs_mkfs() { # tree img
	xfs_proto "$1" >"$T/xfs.proto" &&
	mkfs.xfs -q -m "uuid=$ROOT_UUID" -L root -p "$T/xfs.proto" "$2"
}

xfs_left_dirty() { # img
	xfs_repair -n "$1" 2>&1 | grep -q 'metadata changes in a log' ||
		{ fail "the maker VM left $1 with a clean log"; return 1; }
}

# dirty_xfs OUT MARKER: an XFS root with a log to replay
# (stock_dirty_root).
dirty_xfs() {
	command -v mkfs.xfs >/dev/null || { fail "no mkfs.xfs (make deps installs xfsprogs)"; return 1; }
	make_root_dir "$T/xfs-root" "$2"
	cat >"$T/xfs-root/sbin/maker" <<'EOF2'
#!/bin/sh
mkdir -p /dirty
i=0
while [ $i -lt 50 ]; do
	echo "written in the log $i" >/dirty/f$i
	i=$((i + 1))
done
sync
echo "TEST RESULT: maker written=yes"
reboot -f -n
EOF2
	stock_dirty_root xfs "$1" "$2" "$DIRTY_XFS_MB" "$(mkfs.xfs -V)" ""
}

test_strict_leaves_dirty_xfs_root_unchanged_on_the_stock_kernel() {
	dirty_xfs "$T/root.img" xfs-strict || return 1
	stock_strict_boot xfs xfs-strict norecovery
}

test_without_strict_the_dirty_xfs_root_is_written() {
	dirty_xfs "$T/root.img" xfs-strict || return 1
	stock_unstrict_boot xfs xfs-strict \
		"the dirty XFS root is unchanged without strict mode: its log was clean"
}

# ---- f2fs, on the stock kernel ----------------------------------------

# An f2fs root (mkfs.f2fs, then sload.f2fs of a report-init tree) under
# rescue.ro=strict: mounted with norecovery, as XFS (f2fs replays its
# fsync'd data on a read-only mount otherwise), and left unchanged.
test_strict_mounts_an_f2fs_root_with_norecovery_on_the_stock_kernel() {
	local opts
	command -v sload.f2fs >/dev/null || { fail "no sload.f2fs (make deps installs f2fs-tools)"; return 1; }
	make_root_dir "$T/f2fs-root" f2fs-strict
	blank_disk "$T/root.img" 64
	{ mkfs.f2fs -q -l root "$T/root.img" && sload.f2fs -f "$T/f2fs-root" "$T/root.img"; } \
		>"$T/mkfs.log" 2>&1 || { fail "mkfs.f2fs or sload.f2fs failed:" "$(cat "$T/mkfs.log")"; return 1; }
	# f2fs asks the crypto API for "crc32": mkrescue's list has
	# crc32_generic for it ("F2FS-fs (vda): Cannot load crc32 driver"
	# without it).
	stock_strict_boot f2fs f2fs-strict norecovery || return 1
	# f2fs's own options hold a "mode=": the mount options say ro.
	opts=$(result_field "$T/console.log" root opts)
	[[ $opts == ro,* && ,$opts, == *,norecovery,* ]] ||
		{ fail "the root's mount options are ${opts:-none}, not ro with norecovery"; return 1; }
}

# ---- btrfs with a tree log to replay, on the stock kernel -------------

DIRTY_BTRFS_MB=128

# btrfs_log_root IMG: the superblock's log_root, 0 when no tree log
# waits for replay; nothing when dump-super cannot read IMG.
btrfs_log_root() {
	btrfs inspect-internal dump-super "$1" 2>/dev/null |
		awk '$1 == "log_root" { print $2 }'
}

# expect_log_root IMG dirty|clean WHY: IMG's log_root is non-zero (a tree
# log to replay) or 0.
expect_log_root() {
	local root
	root=$(btrfs_log_root "$1")
	case $2:$root in
	*:) fail "btrfs inspect-internal dump-super cannot read the log_root of $1" ;;
	dirty:0 | clean:[1-9]*) fail "log_root=$root in $1: $3" ;;
	*) return 0 ;;
	esac
	return 1
}

btrfs_mkfs() { # tree img
	mkfs.btrfs -q -f -U "$ROOT_UUID" -L root --rootdir "$1" "$2" &&
	expect_log_root "$2" clean "mkfs.btrfs left a tree log"
}

btrfs_left_dirty() { # img
	expect_log_root "$1" dirty "the maker VM left no tree log to replay"
}

# dirty_btrfs OUT MARKER: a btrfs root (mkfs.btrfs --rootdir) whose tree
# log needs replay (stock_dirty_root): root= rw with commit=600 (no
# transaction commits), and an init= that writes a file, fsyncs it (the
# tree log, not a commit) and crashes the VM with sysrq b, so the log
# stays in log_root.
dirty_btrfs() {
	command -v mkfs.btrfs >/dev/null || { fail "no mkfs.btrfs (make deps installs btrfs-progs)"; return 1; }
	make_root_dir "$T/btrfs-root" "$2"
	cat >"$T/btrfs-root/sbin/maker" <<'EOF2'
#!/bin/sh
grep -q ' /proc ' /proc/mounts 2>/dev/null || mount -t proc proc /proc
sleep 2		# what the rw mount started commits first
mkdir -p /dirty
echo "written in the tree log" >/dirty/logged
dd if=/dev/zero of=/dirty/logged bs=4096 count=4 seek=1 conv=notrunc,fsync 2>/dev/null &&
	echo "TEST RESULT: maker written=yes"
sleep 1		# the serial console drains; commit=600 commits nothing
echo 1 >/proc/sys/kernel/sysrq
echo b >/proc/sysrq-trigger
EOF2
	stock_dirty_root btrfs "$1" "$2" "$DIRTY_BTRFS_MB" "$(mkfs.btrfs --version)" rootflags=commit=600 &&
	# The cached layout is checked at each use, not only when made.
	expect_log_root "$1" dirty "the cached layout has no tree log to replay"
}

test_strict_leaves_dirty_btrfs_root_unchanged_on_the_stock_kernel() {
	local opts
	dirty_btrfs "$T/root.img" btrfs-strict || return 1
	stock_strict_boot btrfs btrfs-strict rescue=nologreplay || return 1
	# /proc/mounts: rescue=nologreplay (with others after a colon), or
	# nologreplay on kernels before 5.9.
	opts=$(result_field "$T/console.log" root opts)
	[[ ,$opts, =~ ,(rescue=([a-z]+:)*)?nologreplay[:,] ]] ||
		{ fail "the root's mount options are ${opts:-none}, without nologreplay"; show_log "$T/console.log"; return 1; }
	expect_log_root "$T/root.img" dirty "the tree log is gone after a strict boot"
}

# The same layout without strict mode: even the ro mount replays the tree
# log, which writes the disk and clears log_root; the layout is dirty.
test_without_strict_the_dirty_btrfs_root_is_written() {
	dirty_btrfs "$T/root.img" btrfs-strict || return 1
	stock_unstrict_boot btrfs btrfs-strict \
		"the dirty btrfs root is unchanged without strict mode: its tree log was not replayed" &&
	expect_log_root "$T/root.img" clean "the tree log is still there after a boot without strict mode"
}

# ---- md RAID1 under a dirty ext4, on the stock kernel ----------------

MD_UUID=5a1f3c2e-0b4d-4e5f-8a9b-0c1d2e3f4a5b
MD_NAME=rescue:root

# dirty_md_raid1 M0 M1: a clean RAID1 (metadata 1.2, data at 1 MiB) of
# two 32 MiB members holding the dirty ext4; the superblocks are written
# by tests/groups/stacked.sh's writer, in a subshell so that its tests stay out.
dirty_md_raid1() {
	local img slot=0
	dirty_ext4 "$T/dirty.ext4" md-strict || return 1
	for img in "$1" "$2"; do
		blank_disk "$img" 32
		dd if="$T/dirty.ext4" of="$img" bs=1M seek=1 conv=notrunc status=none ||
			{ fail "unable to put the ext4 into $img"; return 1; }
		(. "$TOP/tests/groups/stacked.sh" &&
			write_md_superblock "$img" 1.2 "$slot" 2 "$MD_UUID" "$MD_NAME" 0) ||
			{ fail "unable to write the md superblock of $img"; return 1; }
		slot=$((slot + 1))
	done
}

# md_boot APPEND: the RAID1 on a virtio and an NVMe disk, stock kernel.
md_boot() {
	local kver
	kver=$(stock_kernel_version) || return 1
	stock_image "$T/rescue.img" --add-module raid1 || return 1
	dirty_md_raid1 "$T/m0.img" "$T/m1.img" || return 1
	record_sums "$T/m0.img" "$T/m1.img"
	VM_TIMEOUT=240 boot_vm "$T/console.log" --kernel "/boot/vmlinuz-$kver" \
		--initrd "$T/rescue.img" --mem 512M --append "$1" \
		--disk "virtio-blk:$T/m0.img" --disk "nvme:$T/m1.img"
}

test_strict_leaves_a_raid1_under_a_dirty_ext4_unchanged() {
	md_boot "root=UUID=$ROOT_UUID rescue.ro=strict" || return 1
	expect_disks_unchanged &&
	expect_log "$T/console.log" 'rescue: md: started md127 .*, readonly' \
		"the array started readonly" &&
	expect_log "$T/console.log" 'rescue: strict read-only: /dev/md127 mounted with noload' \
		"the no-replay option" &&
	expect_field "$T/console.log" root marker md-strict &&
	expect_field "$T/console.log" root dev /dev/md127
}

# Without strict mode the journal replay writes through the array: both
# members change (the layout is dirty, the array runs read-auto).  Each
# member's sum is checked against the one recorded before the boot.
test_without_strict_a_raid1_under_a_dirty_ext4_is_written() {
	md_boot "root=UUID=$ROOT_UUID" || return 1
	expect_field "$T/console.log" root marker md-strict &&
	expect_field "$T/console.log" root dev /dev/md127 || return 1
	[ "$(wc -l <"$T/sums")" -eq 2 ] ||
		{ fail "$(wc -l <"$T/sums") sums recorded in $T/sums, not the two members'"; return 1; }
	expect_disks_written "a member is unchanged without strict mode: the replay did not write through the array"
}

# The rescue word's strict mode ends with its shell: exit continues a
# boot as without the word, whose mount replays the journal; the real
# init gets writable devices.
test_rescue_word_strict_ends_when_its_shell_exits() {
	make_image "$T/initrd" || return 1
	dirty_ext4 "$T/root.img" strict || return 1
	record_sums "$T/root.img"
	printf '%s\n' 'want \(rescue\)[^\n]*#\s' 'send exit' end >"$T/steps"
	"$TOP/tests/tools/vm-steps.exp" "$T/console.log" "$VM_TIMEOUT" "$T/steps" \
		--kernel "$BZIMAGE" --initrd "$T/initrd" --append "root=/dev/vda rescue" \
		--disk "virtio-blk:$T/root.img" || { show_log "$T/console.log" 40; return 1; }
	expect_log "$T/console.log" 'rescue: strict read-only ends with the rescue shell: [0-9]+ devices writable again' \
		"the end of strict mode" &&
	expect_no_log "$T/console.log" 'mounted with noload' "a noload mount" &&
	expect_field "$T/console.log" root marker strict &&
	expect_field "$T/console.log" inherit ro 0 &&
	expect_disks_written "the dirty root is unchanged: the boot after the shell did not replay it"
}

# ---- device-mapper made in the strict shell --------------------------

# storage_image OUT: mkrescue --storage for the patched kernel (dm, md,
# ext4 built in; dmsetup, lvm, mdadm in the image).
storage_image() {
	"$BUILD/mkrescue" --init "$RESCUE_INIT" --storage -o "$1" 2>"$T/mkrescue.err" ||
		{ fail "mkrescue --storage failed:" "$(cat "$T/mkrescue.err")"; return 1; }
}

# strict_shell APPEND RUN-VM-OPTION...: the commands of $T/commands
# typed in the rescue shell (root=/dev/vda APPEND) of the patched kernel
# with the image of mkrescue --storage.
strict_shell() {
	local append=$1
	shift
	storage_image "$T/initrd" &&
	vm_shell "$T/console.log" "$VM_TIMEOUT" "$T/commands" --initrd "$T/initrd" \
		--append "root=/dev/vda $append" "$@"
}

# dm_linear_shell APPEND: the dirty ext4 as vda; in the rescue shell a
# user makes a linear mapping of it by hand, mounts it as mount would
# (rw first, then ro), then with noload, and reads its marker; then a
# plain dm-crypt mapping of it (cryptsetup open), which is only opened.
dm_linear_shell() {
	dirty_ext4 "$T/root.img" strict || return 1
	record_sums "$T/root.img"
	{
		echo 'dmsetup create rlin --table "0 $(blockdev --getsz /dev/vda) linear /dev/vda 0"'
		result_cmd dm node '$(test -b /dev/mapper/rlin && echo yes || echo no)' \
			ro '$(blockdev --getro /dev/dm-0)'
		echo 'mkdir -p /mnt; mount /dev/mapper/rlin /mnt || mount -o ro,noload /dev/mapper/rlin /mnt'
		result_cmd mnt marker '$(cat /mnt/marker)'
		echo 'umount /mnt; dmsetup remove rlin'
		echo 'echo -n k | cryptsetup open --type plain --cipher aes-xts-plain64 --key-size 256 --key-file - /dev/vda rplain'
		result_cmd crypt node '$(test -b /dev/mapper/rplain && echo yes || echo no)'
		echo 'cryptsetup close rplain; sync'
	} >"$T/commands"
	strict_shell "$1" --disk "virtio-blk:$T/root.img" || return 1
	expect_field "$T/console.log" dm node yes &&
	expect_field "$T/console.log" mnt marker strict &&
	expect_field "$T/console.log" crypt node yes
}

# The rescue word's strict mode holds for a mapping made in its shell:
# the mapping is read-only, mount cannot replay the journal through it,
# the disk stays byte-identical.
test_strict_shell_dmsetup_linear_over_a_dirty_ext4_leaves_it_unchanged() {
	dm_linear_shell rescue || return 1
	expect_field "$T/console.log" dm ro 1 &&
	expect_disks_unchanged
}

# The control: rescue.ro=0, the same commands replay the journal.
test_without_strict_dmsetup_linear_over_a_dirty_ext4_writes_it() {
	dm_linear_shell "rescue rescue.ro=0" || return 1
	expect_field "$T/console.log" dm ro 0 &&
	expect_disks_written "the dirty ext4 is unchanged without strict mode: the layout is not dirty"
}

STRICT_PV=Rescue-PV00-0000-0000-0000-0020-strict

# dirty_lvm OUT: a 40 MiB PV $STRICT_PV of VG strictvg whose LV root holds
# the dirty ext4 byte for byte, made once per recipe by lvm in the rescue
# shell of a helper VM (the patched kernel, mkrescue --storage), never
# with this machine's device-mapper.
dirty_lvm() {
	local out=$1 key cached
	dirty_ext4 "$T/dirty.ext4" strict || return 1
	key=$( {
		sha256sum "$DIRTY_CACHED" "$BZIMAGE" | cut -d" " -f1
		lvm version 2>/dev/null | head -2
		echo "$STRICT_PV strictvg root 40"
	} | sha256sum | cut -c1-16)
	cached=$DIRTY_CACHE/lvm-$key.img
	if [ ! -e "$cached" ]; then
		storage_image "$T/helper.img" || return 1
		blank_disk "$T/pv.img" 40
		cat >"$T/helper.cmds" <<-CMDS
		lvm pvcreate -q --norestorefile -u $STRICT_PV /dev/vda && lvm vgcreate -q strictvg /dev/vda
		lvm lvcreate -q -y -Zn -n root -L 16M strictvg && dd if=/dev/vdb of=/dev/strictvg/root bs=1M 2>/dev/null && echo root-copied
		lvm vgchange -q -an strictvg && sync && echo layout-done-\$((6 * 7))
		CMDS
		vm_shell "$T/helper.log" "$VM_TIMEOUT" "$T/helper.cmds" --initrd "$T/helper.img" \
			--append "root=LABEL=no-such-root rootwait=1 rd.lvm=0" \
			--disk "virtio-blk:$T/pv.img" --disk "virtio-blk:$T/dirty.ext4" || return 1
		grep -q '^root-copied' <(tr -d '\r' <"$T/helper.log") &&
		grep -q '^layout-done-42' <(tr -d '\r' <"$T/helper.log") ||
			{ show_log "$T/helper.log" 40; fail "the helper VM did not make the LVM layout"; return 1; }
		mkdir -p "$DIRTY_CACHE"
		cp --sparse=always "$T/pv.img" "$cached.tmp.$$" && mv "$cached.tmp.$$" "$cached"
	fi
	cp --sparse=always "$cached" "$out"
}

# lvm_shell APPEND: the PV as vda; in the rescue shell a user activates
# the VG with vgchange -ay and mounts the LV by its /dev/VG/LV name as
# mount would, then with noload; lvm is also asked to write metadata.
lvm_shell() {
	dirty_lvm "$T/pv.img" || return 1
	record_sums "$T/pv.img"
	{
		echo 'vgchange -ay strictvg'
		result_cmd lv node '$(test -b /dev/strictvg/root && echo yes || echo no)' \
			mapper '$(test -b /dev/mapper/strictvg-root && echo yes || echo no)' \
			ro '$(blockdev --getro /dev/strictvg/root)' \
			attr '$(lvs --noheadings -o lv_attr strictvg/root | tr -d " ")'
		echo 'mkdir -p /mnt; mount /dev/strictvg/root /mnt || mount -o ro,noload /dev/strictvg/root /mnt'
		result_cmd mnt marker '$(cat /mnt/marker)'
		echo 'umount /mnt; vgchange --addtag touched strictvg; vgchange -an strictvg; sync'
	} >"$T/commands"
	strict_shell "$1" --disk "virtio-blk:$T/pv.img" || return 1
	expect_field "$T/console.log" lv node yes &&
	expect_field "$T/console.log" lv mapper yes &&
	expect_field "$T/console.log" mnt marker strict
}

# vgchange -ay in the strict shell: lvm activates the LV read-only
# (lv_attr R: its VG is in the read_only_volume_list of the shell's
# lvm.conf), mount cannot replay its journal, lvm's metadata write
# fails on the read-only PV, the PV stays byte-identical.
test_strict_shell_vgchange_then_mount_leaves_a_dirty_ext4_on_lvm_unchanged() {
	lvm_shell rescue || return 1
	expect_log "$T/console.log" 'rescue: strict read-only: volume group strictvg \(PV /dev/vda\) is activated read-only by lvm in the shell' \
		"the VG named read-only for lvm" &&
	expect_field "$T/console.log" lv attr -Ri-a----- &&
	expect_field "$T/console.log" lv ro 1 &&
	expect_disks_unchanged
}

# The control: rescue.ro=0, the same commands replay the journal.
test_without_strict_vgchange_then_mount_writes_a_dirty_ext4_on_lvm() {
	lvm_shell "rescue rescue.ro=0" || return 1
	expect_field "$T/console.log" lv attr -wi-a----- &&
	expect_field "$T/console.log" lv ro 0 &&
	expect_disks_written "the PV is unchanged without strict mode: the layout is not dirty"
}

# md_shell APPEND: the RAID1 of dirty_md_raid1 on two virtio disks; in
# the rescue shell a user assembles it with mdadm --assemble --scan and
# mounts it as mount would, then with noload.
md_shell() {
	dirty_md_raid1 "$T/m0.img" "$T/m1.img" || return 1
	record_sums "$T/m0.img" "$T/m1.img"
	{
		echo 'mdadm --assemble --scan; md=$(cd /sys/block && ls -d md* | head -n1)'
		result_cmd md dev '$md' state '$(cat /sys/block/$md/md/array_state)' \
			ro '$(blockdev --getro /dev/$md)'
		echo 'mkdir -p /mnt; mount /dev/$md /mnt || mount -o ro,noload /dev/$md /mnt'
		result_cmd mnt marker '$(cat /mnt/marker)'
		echo 'umount /mnt; mdadm --stop --scan; sync'
	} >"$T/commands"
	VM_TIMEOUT=120 strict_shell "$1" --mem 512M \
		--disk "virtio-blk:$T/m0.img" --disk "virtio-blk:$T/m1.img" || return 1
	expect_field "$T/console.log" mnt marker md-strict
}

# mdadm --assemble --scan in the strict shell: the array starts
# read-only, mount cannot replay the journal, both members stay
# byte-identical.
test_strict_shell_mdadm_assemble_then_mount_leaves_a_raid1_unchanged() {
	md_shell rescue || return 1
	expect_field "$T/console.log" md ro 1 &&
	expect_disks_unchanged
}

# The control: rescue.ro=0, the same commands replay the journal
# through the array.
test_without_strict_mdadm_assemble_then_mount_writes_a_raid1() {
	md_shell "rescue rescue.ro=0" || return 1
	expect_field "$T/console.log" md ro 0 &&
	expect_disks_written "the members are unchanged without strict mode: the layout is not dirty"
}
