# SPDX-License-Identifier: GPL-2.0
# tests/groups/dying.sh: a root behind a disk that is dying.  The faults
# are QEMU's own block layer (qemu/run-vm --fault-disk): blkdebug
# failing every read with EIO, a disk throttled so that each read takes
# about a minute, a disk removed through the monitor in the middle of
# its probe.  Each boot must find the root, name the faulty disk and
# what it did, and spend in the initramfs at most the probe deadline
# (rd.probe.timeout=, 2 s) more than the same layout without the faulty
# disk (rescue-init's own "exec ... after N us", the guest clock).  On
# the patched kernel and the stock 6.1 kernel through mkrescue -k.

. "$TOP/tests/lib/rescue-lib.sh"
. "$TOP/tests/lib/stacked-lib.sh"

DYING_VM_TIMEOUT=${DYING_VM_TIMEOUT:-240}
# shellcheck disable=SC2034 # stack_boot and stack_steps read it (tests/lib/stacked-lib.sh)
STACK_VM_TIMEOUT=$DYING_VM_TIMEOUT
# The issue's bound: the default deadline (2 s) is below it, so that
# the guest's own scheduling noise under TCG does not decide a pass.
DYING_MAX_EXTRA_US=3000000

# The guest ends once its root's init reported: a disk that hangs would
# hold the kernel's device shutdown at the reboot for minutes.
dying_boot() { # log append run-vm-args
	local log=$1 append=$2
	shift 2
	VM_TIMEOUT=$DYING_VM_TIMEOUT boot_vm "$log" --kernel "$(stack_kernel)" \
		--initrd "$T/initrd" --mem 512M --append "$append" \
		--end-on 'TEST RESULT: root ' "$@"
}

# dying_vm APPEND RUN-VM-OPTION...: the same boot in the background,
# with a monitor (start_vm); dying_vm_wait waits for its end.
dying_vm() {
	local append=$1
	shift
	VM_TIMEOUT=$DYING_VM_TIMEOUT start_vm "$append" --kernel "$(stack_kernel)" --mem 512M \
		--end-on 'TEST RESULT: root ' "$@"
}
dying_vm_wait() {
	# shellcheck disable=SC2154 # vm_pid: set by start_vm (tests/lib/lib.sh)
	wait "$vm_pid" || { fail "run-vm: $(cat "$T/run-vm.err")"; show_log "$T/console.log"; return 1; }
}

# on_patched_and_stock FUNC: FUNC on the patched kernel and the stock
# 6.1 kernel (mkrescue -k), which must be there.
on_patched_and_stock() {
	STACK_KERNELS="patched stock" for_each_stack_kernel "$1"
	skip_missing_stock_kernels 6.1
}

# The root found by its UUID once it came (WHAT) after the root wait
# began, on DEV, and booted; no disk written.
expect_root_came() { # dev what
	expect_log "$T/console.log" "rescue: root UUID=$ROOT_UUID appeared after [0-9]+ us of waiting" \
		"$2" &&
	expect_field "$T/console.log" root marker survivor &&
	expect_exec_line /sbin/init "$1" ext4 ro &&
	expect_disks_unchanged
}

# The one line for the SCSI disk sda that went (WHAT).
expect_sda_went_away() { # what
	expect_log "$T/console.log" \
		'rescue: /dev/sda went away \(unplugged, or its bus reset\); dropped from the device table$' \
		"$1"
}

# The initramfs phase of a boot: rescue-init's start to its exec.
exec_us() { # log
	tr -d '\r' <"$1" | sed -n 's/.*rescue: exec .* after \([0-9]*\) us$/\1/p' | tail -n 1
}

# $T/steps for tests/tools/vm-steps.exp: in the rescue shell, after the
# shell command BEFORE (with its "; "), time rescue-ls on the guest's
# clock.
rescue_ls_steps() { # [before]
	{
		printf '%s\n' 'want \(rescue\)[^\n]*#\s'
		# shellcheck disable=SC2016 # expanded by the guest's shell
		printf '%s\n' "send ${1:-}"'a=$(cut -d'"' '"' -f1 /proc/uptime); rescue-ls; b=$(cut -d'"' '"' -f1 /proc/uptime); printf '"'%s %s: ls secs=%s\n'"' TEST RESULT "$(awk -v a="$a" -v b="$b" '"'BEGIN { printf \"%.1f\", b - a }'"')"'
		printf '%s\n' 'want TEST RESULT: ls secs=[0-9]+\.[0-9]'
		echo stop
	} >"$T/steps"
}

# rescue-ls's time of rescue_ls_steps, noted with WHAT: under 5 s.
expect_rescue_ls_within_5_s() { # what
	local secs
	secs=$(tr -d '\r' <"$T/console.log" | sed -n 's/.*TEST RESULT: ls secs=\([0-9.]*\).*/\1/p' | tail -n 1)
	note "$1: $secs s"
	awk -v s="$secs" 'BEGIN { exit !(s != "" && s < 5) }' ||
		{ fail "rescue-ls took ${secs:-?} s, $1 (want < 5 s)"; return 1; }
}

# An ext4 decoy in front of the root (the decoy first on its bus).
dying_disks() {
	# shellcheck disable=SC2034 # stack_image reads it
	KVER=$(stock_kernel_version) || return 1
	stack_image "$T/initrd" &&
	make_decoy "$T/decoy.img" "$DECOY_UUID" decoy &&
	make_root_dir "$T/root" survivor &&
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" root &&
	record_sums "$T/decoy.img" "$T/root.img"
}

# The same root booted without, then with the faulty decoy: both boot
# it, and the second's initramfs phase is at most DYING_MAX_EXTRA_US
# longer.  The root's device is $2 in both; more run-vm options for the
# faulty boot after the buses.
faulty_decoy_boot() { # fault root-node [decoy-bus root-bus [run-vm-args]]
	local base faulty fault=$1 node=$2 decoy_bus=${3:-virtio-blk} root_bus=${4:-virtio-blk}
	shift $(($# < 4 ? $# : 4))
	dying_disks || return 1
	dying_boot "$T/base.log" "root=UUID=$ROOT_UUID" \
		--disk "$root_bus:$T/root.img" || return 1
	dying_boot "$T/console.log" "root=UUID=$ROOT_UUID" \
		--fault-disk "$decoy_bus:$fault:$T/decoy.img" \
		--disk "$root_bus:$T/root.img" "$@" || return 1
	expect_field "$T/console.log" root marker survivor &&
	expect_field "$T/console.log" root mode ro &&
	expect_exec_line /sbin/init "$node" ext4 ro &&
	expect_disks_unchanged || return 1
	base=$(exec_us "$T/base.log") faulty=$(exec_us "$T/console.log")
	[ -n "$base" ] && [ -n "$faulty" ] ||
		{ fail "no exec line to time (base '$base', faulty '$faulty')"; return 1; }
	note "$STACK_KERNEL kernel, $fault decoy${*:+ ($*)}: initramfs phase $faulty us, $base us without it:" \
		"+$(((faulty - base) / 1000)) ms (bound $((DYING_MAX_EXTRA_US / 1000)) ms)"
	[ $((faulty - base)) -le "$DYING_MAX_EXTRA_US" ] ||
		{ fail "the faulty decoy cost $(((faulty - base) / 1000)) ms, more than $((DYING_MAX_EXTRA_US / 1000)) ms"; return 1; }
}

# A decoy that fails every read: named with the sector, passed over.
test_eio_decoy_in_front_of_the_root_is_named_and_passed() {
	on_patched_and_stock eio_decoy
}
eio_decoy() {
	faulty_decoy_boot eio /dev/vdb || return 1
	expect_log "$T/console.log" \
		'rescue: /dev/vda: I/O error at sector 0; the root search goes on without it$' \
		"the line naming the failing disk and its sector"
}

# A decoy that takes a minute per read: the boot waits for it for the
# deadline, says so, and goes on.  Its first 24 KiB come at full speed:
# the kernel's own partition scan reads them before it announces the
# disk, inside virtio_blk's load on a stock kernel, where nothing but a
# faster disk helps (docs/decisions.md, rescue-init).
test_slow_decoy_in_front_of_the_root_is_waited_for_2_s() {
	on_patched_and_stock slow_decoy
}
slow_decoy() {
	faulty_decoy_boot slow /dev/vdb || return 1
	expect_log "$T/console.log" \
		'rescue: /dev/vda: not answering after 2 s, still waiting \(rd.probe.timeout=\); the root search goes on without it$' \
		"the line naming the disk that does not answer"
}

# A SCSI decoy that hangs and is unplugged in the middle of its probe,
# the root on the same controller: it boots, no more than the deadline
# later.  The monitor acts once rescue-init can see the disk: at its
# first line on the patched kernel (built-in drivers announced both
# disks before /init), at the kernel's line for the decoy (its size, 8
# MiB) on a stock one, where the disks come with the modules rescue-init
# loads.  What the log says of the decoy depends on the race the unplug
# is: QEMU completes its pending read as it unplugs it (the probe then
# answers, or fails with EIO), and the root may match first; the line
# for a disk that went is the test below's, where the root wait is on.
test_decoy_unplugged_in_front_of_the_root_costs_at_most_the_deadline() {
	on_patched_and_stock unplugged_decoy
}
unplugged_decoy() {
	local when='rescue: mounted /proc /sys /run'
	stack_patched || when='\[sd[a-z]\] 16384 512-byte logical blocks'
	faulty_decoy_boot slow '/dev/sd[ab]' virtio-scsi virtio-scsi \
		--monitor-on "$when" "device_del fault0"
}

# The decoy is a SCSI disk that hangs, removed through the monitor while
# rescue-init's worker waits for it, during the root wait (rootwait: the
# root comes later, hot-added on the same controller): the disk that went
# is one line, the root that came is found and booted.
test_decoy_removed_during_its_probe_is_dropped() {
	on_patched_and_stock removed_decoy
}
removed_decoy() {
	dying_disks || return 1
	dying_vm "root=UUID=$ROOT_UUID rootwait=60 rescue.debug rd.probe.timeout=30" \
		--fault-disk "virtio-scsi:slow:$T/decoy.img"
	wait_log "$T/console.log" 'rescue: probing /dev/sda in worker' 60 &&
		monitor "$T/mon.sock" "device_del fault0" &&
		wait_log "$T/console.log" 'rescue: /dev/sda went away' 60 &&
		hot_add_disk "$T/root.img" ||
		{ stop_vm; return 1; }
	dying_vm_wait || return 1
	expect_sda_went_away "the one line for the disk that went" &&
	expect_no_log "$T/console.log" 'Kernel panic|Attempted to kill init' "panic" &&
	expect_root_came /dev/sda "the root that came after it"
}

# Faulty disks on the other buses at once, each driver failing its own
# way (libata's error handling, usb-storage's resets, an NVMe queue):
# an AHCI and a USB disk that fail every read, an NVMe namespace that
# hangs.  In the rescue shell (USB disks come late: a boot that found
# its root does not wait for them), rescue-ls names each with what it
# did, within 5 s.
test_faulty_disks_on_ahci_nvme_and_usb_are_named() {
	on_patched_and_stock faulty_on_every_bus
}
faulty_on_every_bus() {
	local bus
	dying_disks || return 1
	for bus in ahci nvme usb; do
		cp "$T/decoy.img" "$T/$bus.img" || return 1
	done
	record_sums "$T/root.img" "$T/ahci.img" "$T/nvme.img" "$T/usb.img"
	# the USB disk is the second sd disk once it is there
	rescue_ls_steps 'while [ ! -e /sys/block/sdb ]; do sleep 0.2; done; '
	stack_steps "root=UUID=$ROOT_UUID rescue" \
		--fault-disk "ahci:eio:$T/ahci.img" --fault-disk "nvme:slow:$T/nvme.img" \
		--fault-disk "usb:eio:$T/usb.img" --disk "virtio-blk:$T/root.img" || return 1
	expect_log "$T/console.log" '^nvme0n1: not answering after [0-9]+ s, still waiting' \
		"rescue-ls's line for the NVMe namespace that hangs" &&
	# A disk that fails every read is named with its I/O error, or, while
	# the kernel's own partition scan still retries it (libata's error
	# handling, a few hundred ms a retry under TCG, seconds on a loaded
	# host), as not answering: both name the disk and why.
	expect_log "$T/console.log" '^sda: (I/O error at sector 0|not answering after [0-9]+ s, still waiting)$' \
		"rescue-ls's line for one of the disks that fail (AHCI, USB)" &&
	expect_log "$T/console.log" '^sdb: (I/O error at sector 0|not answering after [0-9]+ s, still waiting)$' \
		"rescue-ls's line for the other" &&
	expect_log "$T/console.log" '^sd[ab]: I/O error at sector 0$' \
		"an I/O error named for at least one of them" &&
	expect_log "$T/console.log" '^vda +[0-9]+:[0-9]+ +16M +ext4 +'"$ROOT_UUID" \
		"rescue-ls's row of the root" &&
	expect_rescue_ls_within_5_s "$STACK_KERNEL kernel, faulty AHCI, NVMe and USB disks" &&
	expect_disks_unchanged
}

# The root's SCSI disk hangs and drops off the bus before it answered
# (a USB reset), and comes back under a new name: a blank disk took its
# old one in between.  The disk that went is one line; the root is
# found again by its UUID on the new name and booted.
test_root_that_comes_back_under_a_new_name_is_found() {
	on_patched_and_stock root_comes_back
}
root_comes_back() {
	dying_disks || return 1
	truncate -s 8M "$T/blank.img" || return 1
	record_sums "$T/root.img" "$T/blank.img"
	dying_vm "root=UUID=$ROOT_UUID rootwait=60" --fault-disk "virtio-scsi:slow:$T/root.img"
	wait_log "$T/console.log" 'rescue: /dev/sda: not answering after 2 s' 60 &&
		monitor "$T/mon.sock" "device_del fault0" &&
		wait_log "$T/console.log" 'rescue: /dev/sda went away' 60 &&
		monitor "$T/mon.sock" \
			"drive_add 0 if=none,file=$T/blank.img,format=raw,id=blank" \
			"device_add scsi-hd,drive=blank,bus=virtio-scsi0.0,serial=blank" \
			"drive_add 0 if=none,file=$T/root.img,format=raw,id=back" \
			"device_add scsi-hd,drive=back,bus=virtio-scsi0.0,serial=back" ||
		{ fail "the monitor: $(cat "$T/monitor.log" 2>/dev/null)"; stop_vm; return 1; }
	dying_vm_wait || return 1
	expect_sda_went_away "the one line for the root's disk that went" &&
	expect_root_came /dev/sdb "the root found again"
}

# The root's own disk hangs past the deadline, then recovers (its
# throttle lifted through the monitor, as a drive whose retries end):
# the late answer is taken when it comes, and the root is booted.
test_root_that_answers_late_is_booted() {
	on_patched_and_stock late_root
}
late_root() {
	dying_disks || return 1
	dying_vm "root=UUID=$ROOT_UUID rootwait=60 rd.probe.timeout=1" --fault-disk "virtio-blk:slow:$T/root.img"
	# run-vm's drive d0 is its first disk, the root
	wait_log "$T/console.log" 'rescue: /dev/vda: not answering after 1 s' 60 && sleep 1 &&
		monitor "$T/mon.sock" "block_set_io_throttle d0 0 0 0 0 0 0" ||
		{ fail "the monitor: $(cat "$T/monitor.log" 2>/dev/null)"; stop_vm; return 1; }
	dying_vm_wait || return 1
	expect_log "$T/console.log" 'rescue: /dev/vda answered after [0-9]+ ms: ext4$' \
		"the line for the late answer" &&
	expect_root_came /dev/vda "the root found once it answered"
}

# The root's own disk stops answering once its probe is done, in the
# middle of its mount: the mount waits (the kernel's behaviour: a hung
# root is a hung root), PID 1 does not.  After 10 s it says so and opens
# the rescue shell, which answers; when the disk comes back (run-vm
# lifts the throttle through the monitor once the shell has answered),
# the mount returns, the shell is ended and the root boots.  The disk
# reads its first bytes at full speed: enough for the kernel's scan and
# the probe, not for the mount.  Measured with this root (KiB read
# before each step ends, bisected): patched kernel, probe <= 64 and
# mount in 96..104; stock 6.1, probe in 64..88 and mount in 104..128.
test_root_whose_mount_hangs_leaves_the_shell_answering() {
	on_patched_and_stock mount_hangs
}
mount_hangs() {
	local burst=$((80 * 1024))
	stack_patched || burst=$((96 * 1024))
	dying_disks || return 1
	# the guest's shell computes 42: the typed line itself does not match
	cat >"$T/steps" <<'EOF2'
want its mount has not returned after 10 s
want \(rescue\)[^\n]*#\s
send echo shell answered $((6 * 7))
want shell answered 42
want TEST RESULT: root marker=
end
EOF2
	stack_steps "root=UUID=$ROOT_UUID" \
		--fault-disk "virtio-blk:slow@$burst:$T/root.img" \
		--monitor-on 'shell answered 42' 'block_set_io_throttle d0 0 0 0 0 0 0' || return 1
	expect_log "$T/console.log" 'rescue: /dev/vda: its mount has not returned after 10 s: the disk does not answer$' \
		"the line for the mount that hangs (if the root was mounted at once, its $burst bytes at full speed were enough: the kernel reads more than it did)" &&
	expect_log "$T/console.log" "rescue: starting the rescue shell: the root's mount has not returned" \
		"the shell opened meanwhile" &&
	expect_log "$T/console.log" 'rescue: /dev/vda: its mount returned after [0-9]+ s$' \
		"the line for the mount that returned" &&
	expect_field "$T/console.log" root marker survivor &&
	expect_exec_line /sbin/init /dev/vda ext4 ro &&
	expect_disks_unchanged
}

# The rescue shell with a disk that hangs: it opens, and rescue-ls
# answers within 5 s (the deadline, 2 s), naming the disk.
test_rescue_shell_and_rescue_ls_answer_with_a_hung_disk() {
	local STACK_KERNEL=patched
	dying_disks || return 1
	rescue_ls_steps
	stack_steps "root=UUID=$ROOT_UUID rescue" \
		--fault-disk "virtio-blk:slow:$T/decoy.img" --disk "virtio-blk:$T/root.img" || return 1
	expect_log "$T/console.log" '^vda: not answering after [0-9]+ s, still waiting' \
		"rescue-ls's line for the hung disk" &&
	expect_log "$T/console.log" '^vdb +[0-9]+:[0-9]+ +16M +ext4 +'"$ROOT_UUID" \
		"rescue-ls's row of the root" &&
	expect_rescue_ls_within_5_s "with a hung disk attached" &&
	expect_disks_unchanged
}

# rd.probe.timeout= that is not a number: said, and the default kept.
test_bad_probe_timeout_is_reported_and_the_default_kept() {
	local STACK_KERNEL=patched
	dying_disks || return 1
	dying_boot "$T/console.log" "root=UUID=$ROOT_UUID rd.probe.timeout=soon" \
		--fault-disk "virtio-blk:slow:$T/decoy.img" --disk "virtio-blk:$T/root.img" || return 1
	expect_log "$T/console.log" \
		'rescue: rd.probe.timeout=soon is not a number of seconds; keeping 2000 ms$' \
		"the line about the bad value" &&
	expect_log "$T/console.log" 'rescue: /dev/vda: not answering after 2 s' \
		"the default deadline at work" &&
	expect_field "$T/console.log" root marker survivor
}
