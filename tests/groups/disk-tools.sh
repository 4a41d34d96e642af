# SPDX-License-Identifier: GPL-2.0
# tests/groups/disk-tools.sh: a rescue that a dying disk cannot stop.
# mkrescue --disk-tools (ddrescue, smartctl, badblocks; on by default
# with -k), and in the strict read-only shell rescue-rw DEV, which makes
# one copy target writable: ddrescue copies a root disk whose sectors
# QEMU's blkdebug fails with EIO, the source and a third disk stay
# byte-identical, the target holds what was readable and the map names
# the bad sectors; smartctl reads QEMU's NVMe health log; rescue-rw's
# refusals.  On the patched kernel and the stock 6.1 kernel (mkrescue -k).

# shellcheck disable=SC2016 # the result_cmd expressions are single-quoted: they expand in the guest
. "$TOP/tests/lib/rescue-lib.sh"
. "$TOP/tests/lib/mkrescue-lib.sh"

DISK_TOOLS="usr/bin/ddrescue usr/sbin/smartctl usr/sbin/badblocks"
DISK_TOOLS_STOCK_TIMEOUT=${DISK_TOOLS_STOCK_TIMEOUT:-300}
BAD_MB=16	# the root with bad sectors, and the copy's target

# disk_image OUT KVER [OPTIONS]: the real rescue-init with the disk
# tools, for the patched kernel (KVER "": no modules, --disk-tools) or
# stock kernel KVER (-k: the tools by default).
disk_image() {
	local out=$1 kver=$2
	shift 2
	[ -x "$MK_BUILD/rescue-init" ] || { fail "no $MK_BUILD/rescue-init"; return 1; }
	if [ -n "$kver" ]; then
		"$MKRESCUE" --init "$MK_BUILD/rescue-init" -k "$kver" "$@" -o "$out"
	else
		"$MKRESCUE" --init "$MK_BUILD/rescue-init" --disk-tools "$@" -o "$out"
	fi || { fail "mkrescue failed"; return 1; }
}

# shell_on KERNEL TIMEOUT APPEND [run-vm args]: the rescue shell of
# $T/rescue.img types $T/commands.
shell_on() {
	local kernel=$1 timeout=$2 append=$3
	shift 3
	"$TOP/tests/tools/vm-shell.exp" "$T/console.log" "$timeout" "$SHELL_PROMPT" \
		"$T/commands" --kernel "$kernel" --initrd "$T/rescue.img" \
		--append "$append" "$@" || { show_log "$T/console.log" 40; return 1; }
}

# The kernel, its timeout and memory for KVER ("" the patched kernel).
kernel_args() { # kver
	if [ -n "$1" ]; then
		echo "/boot/vmlinuz-$1 $DISK_TOOLS_STOCK_TIMEOUT 1G"
	else
		echo "$BZIMAGE $VM_TIMEOUT 256M"
	fi
}

# ---- the image ------------------------------------------------------------

test_disk_tools_are_on_with_k_and_off_without() {
	local kver tool missing="" name
	mk_setup || return 1
	kver=$(STOCK_KVER='' stock_kernel_version) || return 1
	mk -o "$T/plain.img" &&
	mk --disk-tools --compress none -o "$T/tools.img" &&
	mk -k "$kver" -o "$T/stock.img" &&
	mk -k "$kver" --no-disk-tools -o "$T/small.img" || return 1
	for name in plain tools stock small; do
		list_image_into "$T/$name.img" "$T/$name.list" || return 1
	done
	for tool in $DISK_TOOLS; do
		expect_entry "$T/tools.list" -rwxr-xr-x "$tool" || return 1
		grep -q " $tool\$" "$T/stock.list" || missing="$missing $tool"
		grep -q " $tool\$" "$T/plain.list" && fail "$tool without -k or --disk-tools"
		grep -q " $tool\$" "$T/small.list" && fail "$tool with --no-disk-tools"
	done
	[ -z "$missing" ] || fail "not shipped with -k:$missing"
	expect_entry "$T/tools.list" lrwxrwxrwx bin/ddrescue ../usr/bin/ddrescue &&
	expect_entry "$T/tools.list" lrwxrwxrwx sbin/smartctl ../usr/sbin/smartctl &&
	expect_entry "$T/plain.list" lrwxrwxrwx bin/rescue-rw ../init || return 1
	note "stock kernel $kver, zstd: --no-disk-tools $(stat -c %s "$T/small.img") -> $(stat -c %s "$T/stock.img") bytes"
	# The host's kernel runs the image's loader and libraries (chroot
	# needs root: a SKIP without it, not a PASS).
	if [ "$(id -u)" -ne 0 ]; then
		skip "needs root for chroot: the image's ddrescue, smartctl, badblocks were not run"
		return 0
	fi
	extract_image "$T/tools.img" "$T/root" || return 1
	# /bin/sh is rescue-init's until the toolkit is unpacked: no shell.
	for tool in "/bin/ddrescue --version" "/sbin/smartctl --version" "/sbin/badblocks -v"; do
		# shellcheck disable=SC2086 # the tool and its argument
		chroot "$T/root" $tool >"$T/chroot.out" 2>&1
		grep -qE 'GNU ddrescue|smartctl [0-9]|Usage: [^ ]*badblocks' "$T/chroot.out" &&
		! grep -q 'error while loading shared libraries' "$T/chroot.out" ||
			fail "$tool does not run in the extracted image:" "$(cat "$T/chroot.out")"
	done
}

# ---- ddrescue off a disk with bad sectors, in the strict shell -------------

# bad_root IMG CONF: a 16 MiB ext4 root (4 KiB blocks) whose file /data
# has unreadable sectors, injected by blkdebug's CONF: one sector inside
# its 3rd block, two inside its 101st.  BAD_SECTORS lists them.
bad_root() {
	local img=$1 conf=$2 blocks s
	make_root_dir "$T/tree" disk-tools
	head -c 1M /dev/urandom >"$T/tree/data"
	rm -f "$img"
	mke2fs -q -F -t ext4 -b 4096 -U "$ROOT_UUID" -L root -d "$T/tree" "$img" "${BAD_MB}M" ||
		{ fail "mke2fs of $img failed"; return 1; }
	read -ra blocks <<<"$(debugfs -R 'blocks /data' "$img" 2>/dev/null)"
	[ "${#blocks[@]}" -eq 256 ] ||
		{ fail "debugfs lists ${#blocks[@]} blocks of /data, not 256"; return 1; }
	BAD_SECTORS="$((blocks[2] * 8 + 3)) $((blocks[100] * 8 + 5)) $((blocks[100] * 8 + 6))"
	: >"$conf"
	for s in $BAD_SECTORS; do
		printf '[inject-error]\nevent = "read_aio"\nerrno = "5"\nsector = "%s"\n\n' "$s" >>"$conf"
	done
}

# What the target must hold: the source with the bad sectors zeroed
# (ddrescue leaves them as they were: the blank disk's zeros).
expected_copy() { # src out
	local s
	cp "$1" "$2"
	for s in $BAD_SECTORS; do
		dd if=/dev/zero of="$2" bs=512 seek="$s" count=1 conv=notrunc status=none
	done
}

# The three disks, in this PCI order whatever the bus code of run-vm:
# vda the root with bad sectors (blkdebug), vdb the blank target, vdc a
# third disk that must stay untouched.
bad_disk_args() {
	local d
	printf '%s\n' --qemu-arg -drive --qemu-arg \
		"file=blkdebug:$T/blkdebug.conf:$T/root.img,format=raw,if=none,id=bad"
	printf '%s\n' --qemu-arg -device --qemu-arg "virtio-blk-pci,drive=bad,serial=bad"
	for d in target third; do
		printf '%s\n' --qemu-arg -drive --qemu-arg \
			"file=$T/$d.img,format=raw,if=none,id=$d"
		printf '%s\n' --qemu-arg -device --qemu-arg "virtio-blk-pci,drive=$d,serial=$d"
	done
}

ddrescue_in_strict_shell() {
	local kver=$1 kernel timeout mem s hex n=0
	local -a vmargs
	mk_setup || return 1
	read -r kernel timeout mem <<<"$(kernel_args "$kver")"
	disk_image "$T/rescue.img" "$kver" || return 1
	bad_root "$T/root.img" "$T/blkdebug.conf" || return 1
	blank_disk "$T/target.img" "$BAD_MB"
	make_decoy "$T/third.img" "$DECOY_UUID" third
	record_sums "$T/root.img" "$T/third.img"
	mapfile -t vmargs < <(bad_disk_args)
	{
		result_cmd serial vda '$(cat /sys/block/vda/serial)' \
			vdb '$(cat /sys/block/vdb/serial)' vdc '$(cat /sys/block/vdc/serial)'
		echo 'rescue-rw /dev/vdb'
		# The watcher keeps the mark across a change event.
		echo 'echo change >/sys/class/block/vdb/uevent; sleep 1'
		result_cmd ro vda '$(blockdev --getro /dev/vda)' \
			vdb '$(blockdev --getro /dev/vdb)' vdc '$(blockdev --getro /dev/vdc)'
		printf '%s; %s\n' 'ddrescue -q -d -f /dev/vda /dev/vdb /tmp/map' \
			"$(result_cmd ddrescue status '$?')"
		result_cmd ioerr vda '$(dmesg | grep -c "I/O error, dev vda, sector")'
		echo 'sync; cat /tmp/map'
		# badblocks in 4 KiB blocks: it retries a failed range block by
		# block with O_DIRECT only for page-sized blocks (buffered
		# below, where the page cache fails whole pages anyway).
		echo 'badblocks -b 4096 -o /tmp/bb /dev/vda; r=$?; sed "s/^/bad block /" /tmp/bb'
		result_cmd badblocks status '$r' count '$(wc -l </tmp/bb)'
		echo 'echo x | dd of=/dev/vdc 2>/dev/null; r=$?'
		result_cmd write vdc '$r'
		echo 'rescue-rw --ro /dev/vdb'
		result_cmd back vdb '$(blockdev --getro /dev/vdb)'
	} >"$T/commands"
	shell_on "$kernel" "$timeout" "root=/dev/vda rescue.ro=strict rd.break" \
		--mem "$mem" "${vmargs[@]}" || return 1
	expect_disks_unchanged &&
	expect_fields serial vda=bad vdb=target vdc=third &&
	expect_log "$T/console.log" 'rescue: strict read-only: /dev/vda mounted with noload' \
		"the root mounted read-only, no replay" &&
	expect_log "$T/console.log" 'rescue: strict read-only: every disk stays read-only; rescue-rw DEV makes one writable$' \
		"the shell's line on the way out of strict mode" &&
	expect_log "$T/console.log" '^rescue-rw: /dev/vdb was read-only, now writable' \
		"what rescue-rw changed" &&
	expect_fields ro vda=1 vdb=0 vdc=1 &&
	expect_field "$T/console.log" ddrescue status 0 &&
	expect_field "$T/console.log" back vdb 1 &&
	expect_log "$T/console.log" '^rescue-rw: /dev/vdb was writable, now read-only' \
		"rescue-rw --ro" || return 1
	[ "$(result_field "$T/console.log" write vdc)" != 0 ] ||
		fail "a write to /dev/vdc, never made writable, succeeded"
	[ "$(result_field "$T/console.log" ioerr vda)" -gt 0 ] ||
		fail "no read error of vda in the kernel's log: was blkdebug's fault injected?"
	# The map: each bad sector a '-' area at its byte offset (the two
	# adjacent ones as one area of 1024 bytes).
	for s in $BAD_SECTORS; do
		n=$((n + 1))
		[ "$n" -eq 3 ] && continue
		hex=$(printf '%X' $((s * 512)))
		if [ "$n" -eq 1 ]; then
			expect_log "$T/console.log" "^0x0*$hex +0x0*200 +-" \
				"sector $s (byte 0x$hex) a bad area of 512 bytes in the map" || return 1
		else
			expect_log "$T/console.log" "^0x0*$hex +0x0*400 +-" \
				"sectors $s-$((s + 1)) (byte 0x$hex) a bad area of 1024 bytes in the map" || return 1
		fi
	done
	[ "$(grep -cE '^0x[0-9A-Fa-f]+ +0x[0-9A-Fa-f]+ +-' "$T/console.log")" -eq 2 ] ||
		fail "the map has other bad areas than the injected ones:" \
			"$(grep -E '^0x[0-9A-Fa-f]+ +0x[0-9A-Fa-f]+ +[-*/]' "$T/console.log")"
	expect_field "$T/console.log" badblocks status 0 &&
	expect_field "$T/console.log" badblocks count 2 || return 1
	for s in $BAD_SECTORS; do
		expect_log "$T/console.log" "^bad block $((s / 8))" \
			"badblocks naming block $((s / 8)) (sector $s)" || return 1
	done
	expected_copy "$T/root.img" "$T/expected.img"
	cmp -s "$T/expected.img" "$T/target.img" ||
		fail "the target does not hold the readable data:" "$(cmp "$T/expected.img" "$T/target.img" | head -n3)"
}

test_ddrescue_copies_a_disk_with_bad_sectors_in_the_strict_shell() {
	ddrescue_in_strict_shell ""
}

test_ddrescue_copies_a_disk_with_bad_sectors_on_the_stock_kernel() {
	local kver
	kver=$(STOCK_KVER='' stock_kernel_version) || return 1
	ddrescue_in_strict_shell "$kver"
}

# ---- smartctl on QEMU's NVMe ----------------------------------------------

smartctl_reads_nvme_health() {
	local kver=$1 kernel timeout mem
	mk_setup || return 1
	read -r kernel timeout mem <<<"$(kernel_args "$kver")"
	disk_image "$T/rescue.img" "$kver" || return 1
	blank_disk "$T/nvme.img" 8
	record_sums "$T/nvme.img"
	{
		echo 'smartctl -a /dev/nvme0; r=$?'
		result_cmd smartctl status '$r'
	} >"$T/commands"
	shell_on "$kernel" "$timeout" "root=LABEL=nowhere rescue.ro=strict" \
		--mem "$mem" --disk "nvme:$T/nvme.img" || return 1
	expect_log "$T/console.log" 'Model Number: +QEMU NVMe Ctrl' "the controller's identity" &&
	expect_log "$T/console.log" 'SMART overall-health self-assessment test result: PASSED' \
		"the health verdict" &&
	expect_log "$T/console.log" 'Critical Warning: +0x00' "the health log's critical warning" &&
	expect_log "$T/console.log" 'Temperature: +[0-9]+ Celsius' "the health log's temperature" &&
	expect_no_log "$T/console.log" 'error while loading shared libraries|sh: smartctl: not found' \
		"a missing library or program" &&
	expect_disks_unchanged
}

test_smartctl_reads_the_nvme_health_log() {
	smartctl_reads_nvme_health ""
}

test_smartctl_reads_the_nvme_health_log_on_the_stock_kernel() {
	local kver
	kver=$(STOCK_KVER='' stock_kernel_version) || return 1
	smartctl_reads_nvme_health "$kver"
}

# ---- rescue-rw on a partition --------------------------------------------

# The sha256 of partition N of IMG.
part_sum() { # img n
	local start sectors
	read -r start sectors < <(sfdisk -q -l -o Start,Sectors "$1" | awk 'NR > 1' | sed -n "${2}p")
	dd if="$1" bs=512 skip="$start" count="$sectors" status=none | sha256sum | cut -d' ' -f1
}

# rescue_rw_shell APPEND DISK: $T/commands typed in the rescue shell of
# the patched kernel on $T/rescue.img, the root $T/root.img as vda and
# DISK as vdb.
rescue_rw_shell() {
	vm_shell "$T/console.log" "$VM_TIMEOUT" "$T/commands" --initrd "$T/rescue.img" \
		--append "$1" --disk "virtio-blk:$T/root.img" --disk "virtio-blk:$2"
}

# A partition is read-only while its disk is: rescue-rw lifts both, the
# sibling keeps its flag; --ro puts both back, the disk with its last
# writable partition.
test_rescue_rw_on_a_partition_lifts_its_disk_not_its_sibling() {
	local p2
	mk_setup || return 1
	disk_image "$T/rescue.img" "" || return 1
	make_decoy "$T/root.img" "$ROOT_UUID" root
	make_gpt "$T/parts.img" 24 "one:$BASE_PARTUUID:10" "two:$DECOY_PARTUUID:rest" || return 1
	record_sums "$T/root.img"
	p2=$(part_sum "$T/parts.img" 2)
	{
		echo 'rescue-rw /dev/vdb1'
		echo 'echo written | dd of=/dev/vdb1 2>/dev/null; r1=$?; echo x | dd of=/dev/vdb2 2>/dev/null; r2=$?'
		result_cmd rw vdb '$(blockdev --getro /dev/vdb)' vdb1 '$(blockdev --getro /dev/vdb1)' \
			vdb2 '$(blockdev --getro /dev/vdb2)' vda '$(blockdev --getro /dev/vda)' \
			write1 '$r1' write2 '$r2'
		echo 'sync; rescue-rw --ro /dev/vdb1'
		result_cmd back vdb '$(blockdev --getro /dev/vdb)' vdb1 '$(blockdev --getro /dev/vdb1)'
	} >"$T/commands"
	rescue_rw_shell "root=/dev/vda rescue" "$T/parts.img" || return 1
	expect_log "$T/console.log" '^rescue-rw: /dev/vdb1 was read-only, now writable' \
		"the partition made writable" &&
	expect_log "$T/console.log" '^rescue-rw: /dev/vdb \(the disk of /dev/vdb1\) was read-only, now writable' \
		"its disk made writable" &&
	expect_fields rw vdb1=0 vdb=0 vdb2=1 vda=1 write1=0 &&
	expect_log "$T/console.log" '^rescue-rw: /dev/vdb \(the disk of /dev/vdb1\) was writable, now read-only' \
		"its disk read-only again" &&
	expect_field "$T/console.log" back vdb 1 &&
	expect_field "$T/console.log" back vdb1 1 &&
	expect_disks_unchanged || return 1
	[ "$(result_field "$T/console.log" rw write2)" != 0 ] ||
		fail "a write to /dev/vdb2, the sibling, succeeded"
	[ "$(part_sum "$T/parts.img" 2)" = "$p2" ] ||
		fail "vdb2 changed, but only vdb1 was made writable"
	[ "$(dd if="$T/parts.img" bs=1M skip=1 count=1 status=none | head -c 7)" = written ] ||
		fail "nothing was written to vdb1 after rescue-rw"
}

# ---- rescue-rw's refusals -----------------------------------------------

# A missing device, the mounted root, a device under a dm device, and
# bad usage: one line each, naming the device and the reason; nothing
# becomes writable.
test_rescue_rw_refuses_with_one_line_each() {
	mk_setup || return 1
	# dmsetup, to stack a device on one (dm is built in).
	disk_image "$T/rescue.img" "" --storage || return 1
	make_decoy "$T/root.img" "$ROOT_UUID" root
	make_decoy "$T/held.img" "$DECOY_UUID" held
	record_sums "$T/root.img" "$T/held.img"
	{
		echo 'rescue-rw /dev/vdz; r=$?'
		result_cmd refuse missing '$r'
		echo 'rescue-rw /dev/vda; r=$?'
		result_cmd refuse mounted '$r'
		echo 'echo "0 $(blockdev --getsz /dev/vdb) linear /dev/vdb 0" | dmsetup create --readonly held'
		echo 'rescue-rw /dev/vdb; r=$?'
		result_cmd refuse held '$r'
		echo 'rescue-rw; r=$?'
		result_cmd refuse usage '$r'
		result_cmd ro vda '$(blockdev --getro /dev/vda)' vdb '$(blockdev --getro /dev/vdb)'
	} >"$T/commands"
	rescue_rw_shell "root=/dev/vda rescue.ro=strict rd.break" "$T/held.img" || return 1
	expect_log "$T/console.log" '^rescue-rw: unable to use /dev/vdz: no such block device in /sys/class/block' \
		"the missing device's line" &&
	expect_log "$T/console.log" '^rescue-rw: unable to make /dev/vda writable: /dev/vda is mounted on /newroot' \
		"the mounted root's line" &&
	expect_log "$T/console.log" '^rescue-rw: unable to make /dev/vdb writable: /dev/vdb is in use by /dev/dm-0, stacked on it' \
		"the held device's line" &&
	expect_log "$T/console.log" '^usage: rescue-rw DEV' "the usage" &&
	expect_fields refuse missing=1 mounted=1 held=1 usage=2 &&
	expect_field "$T/console.log" ro vda 1 &&
	expect_field "$T/console.log" ro vdb 1 &&
	expect_no_log "$T/console.log" '^rescue-rw: .*now writable' "a device made writable" &&
	expect_disks_unchanged
}
