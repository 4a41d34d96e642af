# SPDX-License-Identifier: GPL-2.0
# tests/lib/lib.sh: helpers shared by the test groups: building small
# initramfs and disk images without root privileges, booting them
# through qemu/run-vm, and reading the guest's "TEST RESULT:" lines.
#
# A test is a shell function test_NAME in tests/groups/GROUP.sh; it returns 0 on
# success and prints why it failed otherwise (fail "...").  tests/run
# calls them.  Each test has its own scratch directory, $T.  A fail
# anywhere fails the test, whatever the test does with its status.

# shellcheck disable=SC2034,SC2030,SC2031 # its variables are for the files that source it; T is set per test, in the subshells on purpose
TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
# The paths (BUILD, BZIMAGE, KOBJ, BUSYBOX, RUN_VM), busybox's initramfs
# lists, QEMU's monitor, result_field and printk_time: shared with the
# benchmarks (bench/lib.sh).
. "$TOP/tests/lib/common.sh"
VM_TIMEOUT=${VM_TIMEOUT:-60}

# A busybox shell prompt on the serial console, as vm-shell.exp's Tcl
# regex: the prompt, the cursor-position query busybox sends right after
# it (ESC [6n), and any kernel lines the console printed after them (the
# tsc clocksource's registration at about 1.5 s once landed right after
# a prompt, and a prompt anchored at the very end was never seen).
# prompt_re PREFIX: the regex for a prompt whose text before "# " ends
# in PREFIX (a regex too).
PROMPT_TAIL='(\x1b\[6n)?(\[ *[0-9]+\.[0-9]+\][^\r\n]*\r?\n)*$'
prompt_re() {
	printf '%s# %s' "$1" "$PROMPT_TAIL"
}
SHELL_PROMPT=$(prompt_re '')
# rescue-init's rescue shell: "(rescue) PATH # ".
RESCUE_PROMPT=$(prompt_re '\(rescue\)[^\n]*')

# note "...": a figure worth printing even when the test passes.
note() {
	printf '  %s\n' "$*"
}

# fail "..."...: say why the test failed, and mark it failed in the file
# tests/run names in $FAIL_MARK: a status can be lost (a check that is
# not the last command, a subshell, a pipeline), a file cannot.
fail() {
	printf '    %s\n' "$@" >&2
	[ -z "${FAIL_MARK:-}" ] || : >>"$FAIL_MARK"
	return 1
}

# skip "REASON": the test could not check all it promises (a kernel it
# boots is not installed); tests/run prints SKIP with REASON, not PASS.
# A test calls it and goes on or returns: `skip "..."; return`.  The
# REASON goes to the file tests/run names in $SKIP_MARK, like fail's
# mark, so that a skip in a subshell counts.  A fail anywhere still
# fails the test.
skip() {
	printf '    skipped: %s\n' "$*" >&2
	[ -z "${SKIP_MARK:-}" ] || printf '%s\n' "$*" >>"$SKIP_MARK"
	return 0
}

# Print the last lines of a guest log, indented, after a failure.
show_log() { # log [lines]
	printf '    --- last %s lines of %s ---\n' "${2:-25}" "$1" >&2
	tr -d '\r' <"$1" | tail -n "${2:-25}" | sed 's/^/    | /' >&2
}

expect_field() { # log case key expected
	local got
	got=$(result_field "$1" "$2" "$3")
	if [ "$got" != "$4" ]; then
		fail "$2: expected $3=$4, got $3=${got:-<no TEST RESULT line>}"
		show_log "$1"
		return 1
	fi
}

# expect_fields CASE KEY=VALUE...: the guest's "TEST RESULT: CASE" line
# in $T/console.log has each KEY=VALUE (expect_field, one by one).
expect_fields() {
	local case=$1 kv
	shift
	for kv in "$@"; do
		expect_field "$T/console.log" "$case" "${kv%%=*}" "${kv#*=}" || return 1
	done
}

expect_log() { # log regex description
	if ! tr -d '\r' <"$1" | grep -Eq -- "$2"; then
		fail "expected $3 (/$2/) in the console log"
		show_log "$1"
		return 1
	fi
}

expect_no_log() { # log regex description
	if tr -d '\r' <"$1" | grep -Eq -- "$2"; then
		fail "unexpected $3 in the console log:" \
			"$(tr -d '\r' <"$1" | grep -E -m1 -- "$2")"
		return 1
	fi
}

# boot_vm LOG [run-vm options]: boot, and fail unless the guest finished.
boot_vm() {
	local log=$1 status
	shift
	"$RUN_VM" --log "$log" --timeout "$VM_TIMEOUT" "$@" 2>"$log.run-vm"
	status=$?
	if [ "$status" -ne 0 ]; then
		fail "$(cat "$log.run-vm")"
		show_log "$log"
		return 1
	fi
}

# virtio_blk_major: the virtio-blk major of $BZIMAGE.  It is dynamic:
# 254 on a kernel without md, 253 with md built in (md's mdp takes the
# first dynamic major at subsys_initcall, before virtio_blk).  Read from
# /proc/devices in a small VM, once per kernel, cached on its hash.
virtio_blk_major() {
	local dir=$BUILD/tests/.virtio-blk-major key
	key=$dir/$(sha256sum <"$BZIMAGE" | cut -c1-16)
	if [ ! -s "$key" ]; then
		local T=$dir/probe.$$
		rm -rf "$T" && mkdir -p "$T" || return 1
		cat >"$T/init" <<-'EOF'
		#!/bin/sh
		mount -t proc proc /proc
		echo "TEST RESULT: majors virtblk=$(awk '$2 == "virtblk" { print $1 }' /proc/devices)"
		reboot -f
		EOF
		busybox_initramfs "$T/probe.cpio" "dir /dev 0755 0 0" \
			"nod /dev/console 0600 0 0 c 5 1" "file /init $T/init 0755 0 0" &&
			"$RUN_VM" --kernel "$BZIMAGE" --initrd "$T/probe.cpio" --log "$T/console.log" \
				--timeout 60 </dev/null 2>"$T/run-vm.log" || return 1
		result_field "$T/console.log" majors virtblk >"$T/major"
		[ -s "$T/major" ] || { echo "no virtblk in the /proc/devices of $BZIMAGE" >&2; return 1; }
		mv "$T/major" "$key" && rm -rf "$T"
	fi
	cat "$key"
}

# A directory tree for an ext4 root: busybox, and /sbin/init from stdin.
make_root_tree() { # dir
	local dir=$1 applet
	mkdir -p "$dir/bin" "$dir/sbin" "$dir/dev" "$dir/proc" "$dir/sys" "$dir/run" "$dir/tmp"
	cp "$BUSYBOX" "$dir/bin/busybox"
	for applet in $("$BUSYBOX" --list); do
		[ "$applet" = busybox ] || ln -sf busybox "$dir/bin/$applet"
	done
	cat >"$dir/sbin/init"
	chmod 0755 "$dir/sbin/init"
}

# make_ext4 DIR IMG SIZE_MB UUID LABEL: unpartitioned ext4 from DIR.
make_ext4() {
	rm -f "$2"
	mke2fs -q -F -t ext4 -U "$4" -L "$5" -d "$1" "$2" "${3}M" ||
		fail "mke2fs of $2 failed"
}

# luks_encrypt IMG UUID PASS [1]: the filesystem at the start of IMG
# (within all but its last 32 MiB, which the header takes) encrypted in
# place into a LUKS2 container UUID, passphrase PASS (LUKS1 with 1),
# from userspace: cryptsetup reencrypt --force-offline-reencrypt, no dm,
# no loop.  PBKDF2 at its cheapest: the tests time boots, not key
# derivation.  blkid must see the container.
luks_encrypt() {
	local img=$1 uuid=$2 ver=${4:-2}
	printf '%s' "$3" >"$T/pass"
	# cryptsetup locks a reencryption by the LUKS UUID (in /run/cryptsetup),
	# and groups that run side by side encrypt with the same UUIDs: one at
	# a time, or the second fails with "Reencryption process is already
	# running".
	mkdir -p "$BUILD/tests"
	flock "$BUILD/tests/.luks-encrypt.lock" \
	cryptsetup reencrypt --encrypt --type luks2 --reduce-device-size 32M \
		--pbkdf pbkdf2 --pbkdf-force-iterations 1000 --uuid "$uuid" \
		--key-file "$T/pass" --batch-mode --force-offline-reencrypt \
		"$img" >"$T/cryptsetup.log" 2>&1 ||
		{ fail "cryptsetup reencrypt --encrypt of $img failed:" "$(cat "$T/cryptsetup.log")"; return 1; }
	if [ "$ver" = 1 ]; then
		cryptsetup convert --type luks1 --batch-mode "$img" >>"$T/cryptsetup.log" 2>&1 ||
			{ fail "cryptsetup convert of $img to LUKS1 failed:" "$(cat "$T/cryptsetup.log")"; return 1; }
	fi
	blkid -p "$img" | grep -q "VERSION=\"$ver\" UUID=\"$uuid\" TYPE=\"crypto_LUKS\"" ||
		{ fail "blkid does not see $img as LUKS$ver $uuid:" "$(blkid -p "$img")"; return 1; }
}

# make_gpt IMG SIZE_MB NAME:PARTUUID:SIZE_MB...: a GPT disk built without
# loop devices, Linux partitions from 1 MiB on in order; the last size may
# be "rest".  The one GPT builder of the tests; put_ext4 fills a partition.
make_gpt() {
	local img=$1 size=$2 spec name uuid psize start=2048
	shift 2
	rm -f "$img"
	truncate -s "${size}M" "$img"
	{
		echo "label: gpt"
		for spec in "$@"; do
			IFS=: read -r name uuid psize <<<"$spec"
			if [ "$psize" = rest ]; then
				echo "start=$start, type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, uuid=$uuid, name=$name"
			else
				echo "start=$start, size=$((psize * 2048)), type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, uuid=$uuid, name=$name"
				start=$((start + psize * 2048))
			fi
		done
	} | sfdisk -q "$img" >/dev/null || fail "sfdisk of $img failed"
}

# put_ext4 IMG PARTNO DIR UUID LABEL: an ext4 filesystem in partition N.
put_ext4() {
	local img=$1 n=$2 start sectors
	read -r start sectors < <(sfdisk -q -l -o Start,Sectors "$img" | awk 'NR > 1' | sed -n "${n}p")
	mke2fs -q -F -t ext4 -U "$4" -L "$5" -d "$3" -E offset=$((start * 512)) \
		"$img" "$((sectors / 2))k" || fail "mke2fs of $img partition $n failed"
}

# The Debian stock kernels installed (linux-image-amd64 and
# linux-image-6.12-amd64), oldest first, one a line.
stock_kernel_versions() {
	local kver
	for kver in $(find /lib/modules -mindepth 1 -maxdepth 1 -name '*-amd64' \
		-printf '%f\n' | sort -V); do
		[ -r "/boot/vmlinuz-$kver" ] && echo "$kver"
	done
}

# The stock kernel a test uses: $STOCK_KVER (set by for_each_stock_kernel,
# or by the caller for a whole group), else the oldest one installed.
stock_kernel_version() {
	local kver=${STOCK_KVER:-$(stock_kernel_versions | head -n1)}
	[ -n "$kver" ] && [ -r "/boot/vmlinuz-$kver" ] ||
		{ fail "no Debian stock kernel ${STOCK_KVER:-} in /boot and /lib/modules (make deps)"; return 1; }
	echo "$kver"
}

# skip_missing_stock_kernels [SERIES...]: skip, naming each series
# (default: 6.1 6.12, the two that make deps installs and the tests
# promise) of which no stock kernel is installed.  A test that ran on
# 6.1 alone had passed as if it had run on both.
skip_missing_stock_kernels() {
	local series kver kvers missing=
	[ $# -gt 0 ] || set -- 6.1 6.12
	kvers=$(stock_kernel_versions)
	for series in "$@"; do
		case " $missing " in *" $series "*) continue ;; esac
		for kver in $kvers; do
			[[ $kver == "$series".* ]] && continue 2
		done
		missing+=${missing:+ }$series
	done
	[ -z "$missing" ] ||
		skip "no Debian stock kernel ${missing// /, } in /boot and /lib/modules (make deps)"
}

# for_each_stock_kernel FUNC [ARGS]: FUNC once for each stock kernel, with
# STOCK_KVER set, in a scratch directory $T/KVER of its own.  Fails when
# FUNC failed for any of them, naming the kernel; skips (once FUNC has
# run on the others) when 6.1 or 6.12 is not installed.
for_each_stock_kernel() {
	local kver kvers status=0 top=$T
	kvers=$(stock_kernel_versions)
	[ -n "$kvers" ] || { fail "no Debian stock kernel in /boot and /lib/modules (make deps)"; return 1; }
	for kver in $kvers; do
		mkdir -p "$top/$kver"
		(
			T=$top/$kver STOCK_KVER=$kver
			cd "$T" && "$@"
		) || { fail "failed on the stock kernel $kver"; status=1; }
	done
	skip_missing_stock_kernels
	return "$status"
}

# A dracut base directory with the system's modules and the module that
# DEST holds (from make install DESTDIR=DEST).
dracut_overlay() { # dest overlay
	local dest=$1 overlay=$2 entry
	rm -rf "$overlay"
	mkdir -p "$overlay/modules.d"
	for entry in /usr/lib/dracut/*; do
		[ "$(basename "$entry")" = modules.d ] || ln -s "$entry" "$overlay/"
	done
	ln -s /usr/lib/dracut/modules.d/* "$overlay/modules.d/"
	ln -s "$dest/usr/lib/dracut/modules.d/99devtmpfs-rescue" "$overlay/modules.d/"
}

# The compressor of the tests' dracut images.  dracut picks gzip -9 on
# this host (its first choice, pigz, is not installed): that took 43 s of
# an 80 s build of the shared image, single-threaded, where zstd -3 takes
# under half a second and writes a smaller image (37.3 MB against 39.6
# MB, from 132 MB of cpio).  The guest's kernel unpacks zstd faster too.
# Compression is not what any test checks; bench/ sets it empty, which
# keeps dracut's own choice, so that its figures are those a user gets.
# A caller's --no-compress still wins (dracut prefers it to --compress).
DRACUT_TEST_COMPRESS="zstd -q -3 -T0"

# dracut_install_tree DEST: this tree installed once by make install into
# the scratch DEST (never into the system), and the dracut base
# directory DEST.dracutbase that holds its module.
dracut_install_tree() { # dest
	local dest=$1
	if [ ! -e "$dest/.installed" ]; then
		rm -rf "$dest"
		mkdir -p "$dest"
		make -s -C "$TOP" install DESTDIR="$dest" PREFIX=/usr >"$dest.install.log" 2>&1 ||
			{ fail "make install DESTDIR=$dest failed:" "$(tail -5 "$dest.install.log")"; return 1; }
		touch "$dest/.installed"
	fi
	dracut_overlay "$dest" "$dest.dracutbase"
}

# dracut_in_tree KVER DEST OUT LOG [dracut options]: dracut for KVER with
# the module, rescue-init and module list that DEST holds, as a user of a
# build tree would run it; its output in LOG, its status returned.  The
# persistent SSH host key is the test's own ($T), never the machine's.
dracut_in_tree() { # kver dest out log [dracut options]
	local kver=$1 dest=$2 out=$3 log=$4
	shift 4
	dracutbasedir=$dest.dracutbase \
		DEVTMPFS_RESCUE_INIT=$dest/usr/lib/devtmpfs-rescue/rescue-init \
		DEVTMPFS_RESCUE_DATADIR=$dest/usr/share/devtmpfs-rescue \
		DEVTMPFS_RESCUE_SSH_HOST_KEY=${DEVTMPFS_RESCUE_SSH_HOST_KEY:-$T/ssh_host_ed25519_key} \
		dracut --force --kver "$kver" \
		${DRACUT_TEST_COMPRESS:+--compress "$DRACUT_TEST_COMPRESS"} \
		"$@" "$out" >"$log" 2>&1
}

# dracut_from_tree DEST OUT LOG [dracut options]: dracut for the stock
# kernel with this tree installed into DEST; a failure fails the test.
dracut_from_tree() {
	local dest=$1 out=$2 log=$3 kver
	shift 3
	kver=$(stock_kernel_version) && dracut_install_tree "$dest" || return 1
	dracut_in_tree "$kver" "$dest" "$out" "$log" "$@" ||
		{ fail "dracut $* failed:" "$(tail -5 "$log")"; return 1; }
}

blank_disk() { # img size_mb
	rm -f "$1"
	truncate -s "${2}M" "$1"
}

# ---- disk images unchanged, VMs in the background with a monitor -------

# Disk images must be byte-identical after a boot: a rescue boot never
# writes to a disk it was not told to.
record_sums() { sha256sum "$@" >"$T/sums"; }
expect_disks_unchanged() {
	sha256sum -c --quiet "$T/sums" >"$T/sums.out" 2>&1 ||
		{ fail "a disk image changed during the boot:" "$(cat "$T/sums.out")"; return 1; }
}

# wait_log LOG REGEX SECONDS: until a console line matches, or fail.
wait_log() {
	local i
	for ((i = 0; i < $3 * 10; i++)); do
		tr -d '\r' 2>/dev/null <"$1" | grep -Eq -- "$2" && return 0
		sleep 0.1
	done
	fail "no console line /$2/ within $3 s"
	show_log "$1"
	return 1
}

# free_port: a TCP port of 127.0.0.1 that nothing listens on, for
# QEMU's hostfwd or a server a test starts there.
free_port() {
	local p
	command -v ss >/dev/null ||
		{ fail "no ss to find a free port with (iproute2: make deps)"; return 1; }
	for p in $(shuf -i 20000-60000 -n 50); do
		ss -Htln "sport = :$p" | grep -q . || { echo "$p"; return 0; }
	done
	fail "no free TCP port on 127.0.0.1"
}

# start_vm APPEND run-vm-args: boot in the background with a monitor.
start_vm() {
	local append=$1
	shift
	"$RUN_VM" --log "$T/console.log" --monitor "$T/mon.sock" --timeout "$VM_TIMEOUT" \
		--kernel "$BZIMAGE" --initrd "$T/initrd" --append "$append" "$@" \
		2>"$T/run-vm.err" &
	vm_pid=$!
}

stop_vm() {
	[ -S "$T/mon.sock" ] && monitor "$T/mon.sock" quit
	wait "$vm_pid" 2>/dev/null
}

# Hot-add IMG as a SCSI disk on the virtio-scsi controller the boot has:
# virtio-scsi reports it to the guest itself, no ACPI hotplug needed.
hot_add_disk() { # img
	monitor "$T/mon.sock" \
		"drive_add 0 if=none,file=$1,format=raw,id=hot" \
		"device_add scsi-hd,drive=hot,bus=virtio-scsi0.0,serial=hot" ||
		{ fail "the monitor refused the hot-add:" "$(cat "$T/monitor.log")"; return 1; }
}

# passphrase_steps DEV UUID PASS [WRONG]: $T/steps for
# tests/tools/vm-steps.exp: at rescue-init's prompt for the LUKS
# container UUID on DEV, PASS typed; first WRONG, if given, refused with
# two tries left and the prompt asked again.
passphrase_steps() {
	{
		printf 'want Passphrase for %s \\(LUKS UUID %s\\):\n' "$1" "$2"
		if [ -n "${4:-}" ]; then
			printf '%s\n' "send $4" "want Wrong passphrase for $1: 2 tries left"
			printf 'want Passphrase for %s \\(LUKS UUID %s\\), again:\n' "$1" "$2"
		fi
		printf '%s\n' "send $3" end
	} >"$T/steps"
}

# virtiofs_boot LOG INITRD APPEND [run-vm options]: the stock kernel
# ($STOCK_KVER) with INITRD, $T/root shared by the host's virtiofsd
# (qemu-system-common) under the virtio-fs tag "rootfs".  vhost-user
# needs the guest's memory shared with virtiofsd: a memfd backend.
virtiofs_boot() {
	local log=$1 initrd=$2 append=$3 kver sock=$T/virtiofs.sock pid status
	shift 3
	kver=$(stock_kernel_version) || return 1
	/usr/lib/qemu/virtiofsd --socket-path="$sock" -o source="$T/root" \
		-o cache=none -o sandbox=chroot >"$log.virtiofsd" 2>&1 &
	pid=$!
	VM_TIMEOUT=${STOCK_VM_TIMEOUT:-180} boot_vm "$log" --kernel "/boot/vmlinuz-$kver" \
		--initrd "$initrd" --mem 512M --append "$append" \
		--qemu-arg -object --qemu-arg memory-backend-memfd,id=mem,size=512M,share=on \
		--qemu-arg -numa --qemu-arg node,memdev=mem \
		--qemu-arg -chardev --qemu-arg "socket,id=vfs,path=$sock" \
		--qemu-arg -device --qemu-arg vhost-user-fs-pci,chardev=vfs,tag=rootfs "$@"
	status=$?
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	return "$status"
}

# two_paths IMG [rw]: TWO_PATHS, the run-vm options that attach the image
# file IMG twice, read-only, behind two virtio-scsi HBAs with one WWN and
# serial: one disk seen on two paths (multipath), as a SAN LUN through
# two ports.  It shows as sda and sdb.  With rw both paths are writable
# (share-rw: a LUN two ports write to), as a dm-multipath map needs.
two_paths() {
	local p mode=readonly=on, share=
	[ "${2:-}" = rw ] && { mode=; share='share-rw=on,'; }
	TWO_PATHS=()
	for p in 0 1; do
		TWO_PATHS+=(--qemu-arg -drive
			--qemu-arg "file=$1,format=raw,if=none,id=path$p,${mode}file.locking=off"
			--qemu-arg -device --qemu-arg "virtio-scsi-pci,id=hba$p"
			--qemu-arg -device
			--qemu-arg "scsi-hd,drive=path$p,${share}bus=hba$p.0,wwn=0x5000c50015ea71ac,serial=LUN7")
	done
}

# The line rescue-init says of a root on two_paths' disk.
TWO_PATHS_LINE='rescue: root on one disk seen on 2 paths \(multipath, wwid:naa.5000c50015ea71ac\): /dev/sda /dev/sdb; mounted through /dev/sda'
# ... and of the dm-multipath map it made of them (multipath-tools in
# the image); the map is named by its WWID, as Debian's default names it.
TWO_PATHS_MAP_LINE='rescue: root on one disk seen on 2 paths \(multipath, wwid:naa.5000c50015ea71ac\): /dev/sd[ab][0-9]* /dev/sd[ab][0-9]*; assembled as the multipath map 35000c50015ea71ac$'
