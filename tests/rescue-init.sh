# SPDX-License-Identifier: GPL-2.0
# tests/rescue-init.sh: rescue-init as the /init of a minimal initramfs in
# QEMU: the root by every root= form on virtio-blk, NVMe, AHCI and USB
# disks among decoys, ro/rw, init= and its fallbacks, what the real init
# inherits, the failure report and the rescue shell, rd.shell=0, rd.break,
# devtmpfs and the console when the kernel provided neither, the kernel
# log, and modules on the Debian stock kernel.

. "$TOP/tests/rescue-lib.sh"

# ---- the root by each root= form ------------------------------------

test_root_by_dev_name_on_virtio() {
	make_image "$T/initrd" || return 1
	make_decoy "$T/decoy.img" "$DECOY_UUID" decoy
	make_root_dir "$T/root" dev-name
	make_gpt "$T/root.img" 24 rootpart:$ROOT_PARTUUID:rest &&
	put_ext4 "$T/root.img" 1 "$T/root" "$ROOT_UUID" root || return 1
	boot "$T/initrd" "root=/dev/vdb1" \
		--disk "virtio-blk:$T/decoy.img" --disk "virtio-blk:$T/root.img" || return 1
	expect_root dev-name /dev/vdb1 ro &&
	expect_field "$T/console.log" root init /sbin/init
}

test_root_by_uuid_on_nvme_mounted_rw() {
	make_image "$T/initrd" || return 1
	make_decoy "$T/decoy.img" "$DECOY_UUID" decoy
	make_root_dir "$T/root" by-uuid
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" root || return 1
	# Upper case: UUIDs compare without case.
	boot "$T/initrd" "root=UUID=${ROOT_UUID^^} rw" \
		--disk "virtio-blk:$T/decoy.img" --disk "nvme:$T/root.img" || return 1
	expect_root by-uuid /dev/nvme0n1 rw
}

test_root_by_label_on_ahci() {
	make_image "$T/initrd" || return 1
	make_decoy "$T/decoy.img" "$DECOY_UUID" rootish
	make_root_dir "$T/root" by-label
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" realroot || return 1
	boot "$T/initrd" "root=LABEL=realroot" \
		--disk "ahci:$T/decoy.img" --disk "ahci:$T/root.img" || return 1
	expect_root by-label /dev/sdb ro
}

test_root_by_partuuid_on_virtio() {
	make_image "$T/initrd" || return 1
	make_root_dir "$T/root" by-partuuid
	make_gpt "$T/decoy.img" 8 decoy:$DECOY_PARTUUID:rest || return 1
	make_gpt "$T/root.img" 24 other:$BASE_PARTUUID:4 root:$ROOT_PARTUUID:rest &&
	put_ext4 "$T/root.img" 2 "$T/root" "$ROOT_UUID" root || return 1
	boot "$T/initrd" "root=PARTUUID=$ROOT_PARTUUID" \
		--disk "virtio-blk:$T/decoy.img" --disk "virtio-blk:$T/root.img" || return 1
	expect_root by-partuuid /dev/vdb2 ro
}

# An MBR partition's PARTUUID is the disk signature and the number.
test_root_by_mbr_partuuid_on_ahci() {
	make_image "$T/initrd" || return 1
	make_root_dir "$T/root" mbr
	truncate -s 24M "$T/root.img"
	printf 'label: dos\nlabel-id: 0x5eedc0de\nstart=2048, size=4096, type=83\nstart=6144, type=83\n' |
		sfdisk -q "$T/root.img" >/dev/null || return 1
	put_ext4 "$T/root.img" 2 "$T/root" "$ROOT_UUID" mbr || return 1
	make_decoy "$T/decoy.img" "$DECOY_UUID" decoy
	boot "$T/initrd" "root=PARTUUID=5EEDC0DE-02" \
		--disk "ahci:$T/decoy.img" --disk "ahci:$T/root.img" || return 1
	expect_root mbr /dev/sdb2 ro
}

# PARTNROFF=1: the partition after the one with that PARTUUID.
test_root_by_partuuid_partnroff_on_nvme() {
	make_image "$T/initrd" || return 1
	make_root_dir "$T/root" partnroff
	mkdir -p "$T/boot" && echo boot >"$T/boot/marker"
	make_gpt "$T/root.img" 32 boot:$BASE_PARTUUID:8 root:$ROOT_PARTUUID:rest &&
	put_ext4 "$T/root.img" 1 "$T/boot" "$DECOY_UUID" boot &&
	put_ext4 "$T/root.img" 2 "$T/root" "$ROOT_UUID" root || return 1
	make_gpt "$T/decoy.img" 8 decoy:$DECOY_PARTUUID:rest || return 1
	boot "$T/initrd" "root=PARTUUID=$BASE_PARTUUID/PARTNROFF=1" \
		--disk "virtio-blk:$T/decoy.img" --disk "nvme:$T/root.img" || return 1
	expect_root partnroff /dev/nvme0n1p2 ro
}

test_root_by_partlabel_on_nvme() {
	make_image "$T/initrd" || return 1
	make_root_dir "$T/root" by-partlabel
	make_gpt "$T/root.img" 24 esp:$BASE_PARTUUID:4 rescue-root:$ROOT_PARTUUID:rest &&
	put_ext4 "$T/root.img" 2 "$T/root" "$ROOT_UUID" root || return 1
	make_gpt "$T/decoy.img" 8 rescue-roo:$DECOY_PARTUUID:rest || return 1
	boot "$T/initrd" "root=PARTLABEL=rescue-root" \
		--disk "nvme:$T/decoy.img" --disk "nvme:$T/root.img" || return 1
	expect_root by-partlabel /dev/nvme1n1p2 ro
}

# virtio-blk is major 254 on this kernel: vdb1 is 254:17, hex fe11.
test_root_by_maj_min_on_virtio() {
	make_image "$T/initrd" || return 1
	make_decoy "$T/decoy.img" "$DECOY_UUID" decoy
	make_root_dir "$T/root" maj-min
	make_gpt "$T/root.img" 24 root:$ROOT_PARTUUID:rest &&
	put_ext4 "$T/root.img" 1 "$T/root" "$ROOT_UUID" root || return 1
	boot "$T/initrd" "root=254:17" \
		--disk "virtio-blk:$T/decoy.img" --disk "virtio-blk:$T/root.img" || return 1
	expect_root maj-min /dev/vdb1 ro
}

test_root_by_hex_devnum_on_virtio() {
	make_image "$T/initrd" || return 1
	make_decoy "$T/decoy.img" "$DECOY_UUID" decoy
	make_root_dir "$T/root" hex
	make_gpt "$T/root.img" 24 root:$ROOT_PARTUUID:rest &&
	put_ext4 "$T/root.img" 1 "$T/root" "$ROOT_UUID" root || return 1
	boot "$T/initrd" "root=fe11" \
		--disk "virtio-blk:$T/decoy.img" --disk "virtio-blk:$T/root.img" || return 1
	expect_root hex /dev/vdb1 ro
}

test_root_by_disk_by_uuid_path_on_ahci() {
	make_image "$T/initrd" || return 1
	make_decoy "$T/decoy.img" "$DECOY_UUID" decoy
	make_root_dir "$T/root" by-uuid-path
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" root || return 1
	boot "$T/initrd" "root=/dev/disk/by-uuid/$ROOT_UUID" \
		--disk "virtio-blk:$T/decoy.img" --disk "ahci:$T/root.img" || return 1
	expect_root by-uuid-path /dev/sda ro
}

# udev writes a blank in a label as \x20 in /dev/disk/by-label/.
test_root_by_disk_by_label_path_with_escape() {
	make_image "$T/initrd" || return 1
	make_decoy "$T/decoy.img" "$DECOY_UUID" "my"
	make_root_dir "$T/root" by-label-path
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" "my root" || return 1
	boot "$T/initrd" 'root=/dev/disk/by-label/my\x20root' \
		--disk "nvme:$T/decoy.img" --disk "virtio-blk:$T/root.img" || return 1
	expect_root by-label-path /dev/vda ro
}

test_root_by_disk_by_partlabel_path_on_virtio() {
	make_image "$T/initrd" || return 1
	make_root_dir "$T/root" by-partlabel-path
	make_gpt "$T/root.img" 24 esp:$BASE_PARTUUID:4 linux:$ROOT_PARTUUID:rest &&
	put_ext4 "$T/root.img" 2 "$T/root" "$ROOT_UUID" root || return 1
	boot "$T/initrd" "root=/dev/disk/by-partlabel/linux rootfstype=vfat,ext4" \
		--disk "virtio-blk:$T/root.img" || return 1
	expect_root by-partlabel-path /dev/vda2 ro
}

# USB storage is probed after /init starts: rootwait finds it by uevent.
test_root_on_usb_found_with_rootwait() {
	make_image "$T/initrd" || return 1
	make_decoy "$T/decoy.img" "$DECOY_UUID" decoy
	make_root_dir "$T/root" usb
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" usbroot || return 1
	boot "$T/initrd" "root=LABEL=usbroot rootwait=20" \
		--disk "virtio-blk:$T/decoy.img" --disk "usb:$T/root.img" || return 1
	expect_root usb /dev/sda ro &&
	expect_log "$T/console.log" 'rescue: root LABEL=usbroot appeared after [0-9]+ us of waiting' \
		"the time the root took to appear"
}

# ---- ro/rw, init=, what the real init inherits ----------------------

test_rw_root_is_writable_and_ro_is_not() {
	make_image "$T/initrd" || return 1
	make_root_dir "$T/root" writable
	# Before the final reboot, try to write.
	sed -i 's|^reboot -f$|if touch /written 2>/dev/null; then w=yes; else w=no; fi; echo "TEST RESULT: write written=$w"; reboot -f|' "$T/root/sbin/init"
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" root || return 1
	cp "$T/root.img" "$T/root-rw.img"
	boot "$T/initrd" "root=/dev/vda" --disk "virtio-blk:$T/root.img" || return 1
	expect_field "$T/console.log" root mode ro &&
	expect_field "$T/console.log" write written no || return 1
	boot "$T/initrd" "root=/dev/vda rw" --disk "virtio-blk:$T/root-rw.img" || return 1
	expect_field "$T/console.log" root mode rw &&
	expect_field "$T/console.log" write written yes
}

# rootflags=: generic words become mount flags, the rest ext4's data.
test_rootflags_reach_the_mount() {
	make_image "$T/initrd" || return 1
	make_root_dir "$T/root" flags
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" root || return 1
	boot "$T/initrd" "root=/dev/vda rootflags=noatime,errors=remount-ro rootfstype=ext4" \
		--disk "virtio-blk:$T/root.img" || return 1
	local opts
	opts=$(result_field "$T/console.log" root opts)
	case ",$opts," in
	*,ro,*noatime*errors=remount-ro*) ;;
	*) fail "root mounted with $opts, not ro,noatime,...,errors=remount-ro"; show_log "$T/console.log"; return 1 ;;
	esac
}

# rootdelay=: a wait before looking, then the boot goes on.
test_rootdelay_waits_before_looking() {
	local us
	make_image "$T/initrd" || return 1
	make_root_dir "$T/root" delay
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" root || return 1
	boot "$T/initrd" "root=/dev/vda rootdelay=1" --disk "virtio-blk:$T/root.img" || return 1
	expect_log "$T/console.log" 'rescue: rootdelay: waiting 1 s' "the delay" &&
	expect_field "$T/console.log" root marker delay || return 1
	us=$(exec_us "$T/console.log")
	[ "${us:-0}" -ge 1000000 ] || { fail "exec after ${us:-?} us, less than the 1 s delay"; return 1; }
}

test_init_param_runs_alternative_init() {
	make_image "$T/initrd" || return 1
	make_root_dir "$T/root" alt
	cp "$T/root/sbin/init" "$T/root/sbin/alt-init"
	printf '#!/bin/sh\necho "TEST RESULT: wrong init"\nreboot -f\n' >"$T/root/sbin/init"
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" root || return 1
	boot "$T/initrd" "root=/dev/vda init=/sbin/alt-init" --disk "virtio-blk:$T/root.img" || return 1
	expect_field "$T/console.log" root init /sbin/alt-init &&
	expect_exec_line /sbin/alt-init /dev/vda ext4 ro
}

test_init_falls_back_to_etc_init() {
	make_image "$T/initrd" || return 1
	make_root_dir "$T/root" fallback
	mv "$T/root/sbin/init" "$T/root/etc-init"
	mkdir -p "$T/root/etc" && mv "$T/root/etc-init" "$T/root/etc/init"
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" root || return 1
	boot "$T/initrd" "root=/dev/vda" --disk "virtio-blk:$T/root.img" || return 1
	expect_field "$T/console.log" root init /etc/init &&
	expect_exec_line /etc/init /dev/vda ext4 ro
}

# /sbin/init as an absolute link into the root, as with systemd.
test_init_absolute_symlink_resolves_in_root() {
	make_image "$T/initrd" || return 1
	make_root_dir "$T/root" symlink
	mkdir -p "$T/root/lib/systemd"
	mv "$T/root/sbin/init" "$T/root/lib/systemd/systemd"
	ln -s /lib/systemd/systemd "$T/root/sbin/init"
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" root || return 1
	boot "$T/initrd" "root=/dev/vda" --disk "virtio-blk:$T/root.img" || return 1
	expect_field "$T/console.log" root marker symlink &&
	expect_exec_line /sbin/init /dev/vda ext4 ro
}

# The kernel gives /init unknown words as arguments and k=v as the
# environment; rescue-init passes them on without its own, and leaves
# what follows "--" alone ("rescue" there is the init's, not ours).
test_unknown_params_reach_real_init() {
	make_image "$T/initrd" || return 1
	make_root_dir "$T/root" passthrough
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" root || return 1
	boot "$T/initrd" "root=/dev/vda foo=bar single rootwait=3 rescue.debug -- rescue x=y" \
		--disk "virtio-blk:$T/root.img" || return 1
	expect_field "$T/console.log" root argv single,rescue,x=y &&
	expect_field "$T/console.log" root foo bar &&
	expect_field "$T/console.log" root rootwait_env unset &&
	expect_no_log "$T/console.log" 'starting the rescue shell' "rescue shell"
}

# ---- the kernel log, devtmpfs and the console -------------------------

# tiny-initramfs wrote to /dev/ksmg and never logged: these lines come
# back through the kernel's printk, with its timestamps.
test_log_lines_reach_kernel_log() {
	make_image "$T/initrd" || return 1
	make_root_dir "$T/root" kmsg
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" root || return 1
	boot "$T/initrd" "root=UUID=$ROOT_UUID" --disk "virtio-blk:$T/root.img" || return 1
	expect_log "$T/console.log" '^\[ *[0-9]+\.[0-9]+\] rescue: mounted /proc /sys /run in [0-9]+ us$' \
		"the first step's line with a kernel timestamp" &&
	expect_log "$T/console.log" "^\[ *[0-9]+\.[0-9]+\] rescue: found root UUID=$ROOT_UUID on /dev/vda \(ext4\) in [0-9]+ us, 1 devices probed$" \
		"the root's line" &&
	expect_log "$T/console.log" '^\[ *[0-9]+\.[0-9]+\] rescue: mounted /dev/vda on /newroot \(ext4, ro\) in [0-9]+ us$' \
		"the mount's line" &&
	expect_exec_line /sbin/init /dev/vda ext4 ro &&
	expect_no_log "$T/console.log" 'rescue: mounted /proc /sys /run and devtmpfs' \
		"a devtmpfs mount by rescue-init (the kernel did it)" &&
	note "$(tr -d '\r' <"$T/console.log" | grep -o 'rescue: exec .*')"
}

test_devtmpfs_mounted_when_kernel_did_not() {
	make_image "$T/initrd" with-console || return 1
	make_root_dir "$T/root" own-devtmpfs
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" root || return 1
	boot "$T/initrd" "root=UUID=$ROOT_UUID devtmpfs.mount=0" --disk "virtio-blk:$T/root.img" || return 1
	expect_no_log "$T/console.log" 'devtmpfs: mounted on initramfs' "the kernel's mount" &&
	expect_log "$T/console.log" 'rescue: mounted /proc /sys /run and devtmpfs on /dev in [0-9]+ us' \
		"rescue-init's devtmpfs mount" &&
	expect_root own-devtmpfs /dev/vda ro
}

# No console for the kernel to open: the kernel's built-in archive has a
# /dev/console, so this one replaces it with a dangling link; with
# devtmpfs.mount=0 the kernel then starts /init with fds 0-2 closed, and
# rescue-init opens /dev/console after mounting devtmpfs itself.
test_console_opened_when_kernel_had_none() {
	printf 'dir /dev 0755 0 0\nslink /dev/console /nowhere 0777 0 0\n' >"$T/extra.list"
	EXTRA_LIST=$T/extra.list make_image "$T/initrd" || return 1
	make_root_dir "$T/root" no-console
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" root || return 1
	boot "$T/initrd" "root=/dev/vda devtmpfs.mount=0" --disk "virtio-blk:$T/root.img" || return 1
	expect_log "$T/console.log" 'unable to open an initial console' "the kernel's warning" &&
	expect_log "$T/console.log" 'rescue: opened /dev/console for stdin, stdout and stderr' \
		"rescue-init's console" &&
	expect_root no-console /dev/vda ro
}

# ---- failures, the rescue shell, rd.shell=0, rd.break ----------------


test_missing_root_opens_shell() {
	make_image "$T/initrd" || return 1
	make_decoy "$T/decoy.img" "$DECOY_UUID" decoy
	make_gpt "$T/gpt.img" 16 esp:$BASE_PARTUUID:4 data:$DECOY_PARTUUID:rest || return 1
	{
		echo "rescue-ls"
		result_cmd shell pid '$$' tty '$(tty)' ps1_set '${PS1:+yes}' path '$PATH'
	} >"$T/commands"
	vm_shell "$T/console.log" "$VM_TIMEOUT" "$T/commands" --initrd "$T/initrd" \
		--append "root=LABEL=nowhere" \
		--disk "virtio-blk:$T/decoy.img" --disk "nvme:$T/gpt.img" || return 1
	local log=$T/console.log
	expect_log "$log" '^\[ *[0-9.]+\] rescue: unable to find root LABEL=nowhere: no block device has this LABEL \(4 devices probed, waited 0 s\)$' \
		"the failure line" &&
	expect_log "$log" '^\[ *[0-9.]+\] rescue: NAME +MAJ:MIN +SIZE +TYPE +UUID +LABEL +PARTUUID +PARTLABEL$' \
		"the table header in the kernel log" &&
	expect_log "$log" "rescue: vda +254:0 +8M +ext4 +$DECOY_UUID +decoy +- +-" \
		"the decoy's row" &&
	expect_log "$log" "rescue: nvme0n1p2 +259:2 +10M +- +- +- +$DECOY_PARTUUID +data" \
		"a partition's row" &&
	expect_log "$log" 'rescue: starting the rescue shell: rescue-ls lists block devices, rescue-mount mounts the root, exit retries the boot' \
		"the hint" &&
	expect_log "$log" '^NAME +MAJ:MIN +SIZE +TYPE +UUID +LABEL +PARTUUID +PARTLABEL' \
		"rescue-ls's header" &&
	expect_log "$log" "^nvme0n1 +259:0 +16M +gpt +- +- +- +-" "rescue-ls's disk row" &&
	expect_field "$log" shell tty /dev/ttyS0 &&
	expect_field "$log" shell ps1_set yes &&
	expect_field "$log" shell path /bin:/sbin:/usr/bin:/usr/sbin
}

# rd.shell=0: the same report, then no shell and no panic: PID 1 waits.
test_rd_shell_0_waits_without_shell() {
	local status
	make_image "$T/initrd" || return 1
	make_decoy "$T/decoy.img" "$DECOY_UUID" decoy
	"$RUN_VM" --log "$T/console.log" --timeout 10 --kernel "$BZIMAGE" --initrd "$T/initrd" \
		--append "root=UUID=$ROOT_UUID rd.shell=0" --disk "virtio-blk:$T/decoy.img" \
		2>"$T/run-vm.err"
	status=$?
	[ "$status" -eq 124 ] || { fail "run-vm ended with $status, not the timeout:" "$(cat "$T/run-vm.err")"; show_log "$T/console.log"; return 1; }
	expect_log "$T/console.log" "rescue: unable to find root UUID=$ROOT_UUID: no block device has this UUID \(1 devices probed, waited 0 s\)" \
		"the failure line" &&
	expect_log "$T/console.log" 'rescue: NAME +MAJ:MIN' "the table" &&
	expect_log "$T/console.log" 'rescue: no rescue shell \(rd.shell=0\)' "the wait" &&
	expect_no_log "$T/console.log" 'Kernel panic|Attempted to kill init' "panic" &&
	expect_no_log "$T/console.log" 'starting the rescue shell|\(rescue\) ' "rescue shell"
}

test_duplicate_uuid_names_both_devices() {
	make_image "$T/initrd" || return 1
	make_root_dir "$T/root" twin
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" twin || return 1
	cp "$T/root.img" "$T/twin.img"
	: >"$T/commands"
	vm_shell "$T/console.log" "$VM_TIMEOUT" "$T/commands" --initrd "$T/initrd" \
		--append "root=UUID=$ROOT_UUID" \
		--disk "virtio-blk:$T/root.img" --disk "ahci:$T/twin.img" || return 1
	expect_log "$T/console.log" "rescue: unable to use root UUID=$ROOT_UUID: 2 devices match: /dev/sda and /dev/vda\$" \
		"the error naming both" &&
	expect_no_log "$T/console.log" 'TEST RESULT: root' "a boot on one of them"
}

# rd.break: the shell comes before the root is looked for; rescue-mount
# there mounts it as the boot would, and exit boots from that mount.
test_rd_break_opens_shell_before_mounting() {
	make_image "$T/initrd" || return 1
	make_root_dir "$T/root" break shell
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" root || return 1
	{
		result_cmd break newroot_mounts '$(grep -c " /newroot " /proc/mounts)'
		echo "rescue-mount"
		echo "exit"
	} >"$T/commands"
	vm_shell "$T/console.log" "$VM_TIMEOUT" "$T/commands" --initrd "$T/initrd" \
		--append "root=LABEL=root rd.break" --disk "virtio-blk:$T/root.img" || return 1
	expect_field "$T/console.log" break newroot_mounts 0 &&
	expect_log "$T/console.log" 'rescue: starting the rescue shell: rescue-ls lists block devices, rescue-mount mounts the root, exit continues the boot' \
		"the rd.break hint" &&
	expect_log "$T/console.log" '^rescue-mount: mounted /dev/vda \(ext4, ro\) on /newroot' \
		"rescue-mount's report" &&
	expect_log "$T/console.log" 'rescue: using the root already mounted on /newroot: /dev/vda \(ext4, ro\)' \
		"the boot taking that mount" &&
	expect_field "$T/console.log" root marker break &&
	expect_field "$T/console.log" root argv none
}

# "rescue" is a word the kernel hands to /init: the shell, then the boot,
# and the real init does not get the word.
test_rescue_param_opens_shell_then_boots() {
	make_image "$T/initrd" || return 1
	make_root_dir "$T/root" rescue-word shell
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" root || return 1
	echo exit >"$T/commands"
	vm_shell "$T/console.log" "$VM_TIMEOUT" "$T/commands" --initrd "$T/initrd" \
		--append "root=/dev/vda rescue" --disk "virtio-blk:$T/root.img" || return 1
	expect_log "$T/console.log" 'rescue: starting the rescue shell' "the shell" &&
	expect_field "$T/console.log" root marker rescue-word &&
	expect_field "$T/console.log" root argv none
}

test_pre_pivot_break_shell_sees_mounted_root() {
	make_image "$T/initrd" || return 1
	make_root_dir "$T/root" pivot shell
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" root || return 1
	{
		result_cmd pivot newroot '$(awk '"'"'$2 == "/newroot" { print $1 }'"'"' /proc/mounts)' marker '$(cat /newroot/marker)'
		echo exit
	} >"$T/commands"
	vm_shell "$T/console.log" "$VM_TIMEOUT" "$T/commands" --initrd "$T/initrd" \
		--append "root=/dev/vda rd.break=pre-pivot" --disk "virtio-blk:$T/root.img" || return 1
	expect_field "$T/console.log" pivot newroot /dev/vda &&
	expect_field "$T/console.log" pivot marker pivot &&
	expect_log "$T/console.log" 'rescue: starting the rescue shell: the root is mounted on /newroot, exit switches to it' \
		"the pre-pivot hint" &&
	expect_field "$T/console.log" root marker pivot
}

test_missing_init_is_reported_and_shell_starts() {
	make_image "$T/initrd" || return 1
	make_root_dir "$T/root" no-init
	rm -f "$T/root/sbin/init" "$T/root/bin/init" "$T/root/bin/sh"
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" root || return 1
	result_cmd left init '$(test -x /init && echo yes)' >"$T/commands"
	vm_shell "$T/console.log" "$VM_TIMEOUT" "$T/commands" --initrd "$T/initrd" \
		--append "root=/dev/vda" --disk "virtio-blk:$T/root.img" || return 1
	expect_log "$T/console.log" 'rescue: unable to find an init in the root /dev/vda: tried /sbin/init /etc/init /bin/init /bin/sh$' \
		"the missing init" &&
	expect_field "$T/console.log" left init yes
}

test_unmountable_root_reports_mount_error() {
	make_image "$T/initrd" || return 1
	make_decoy "$T/root.img" "$ROOT_UUID" root
	: >"$T/commands"
	vm_shell "$T/console.log" "$VM_TIMEOUT" "$T/commands" --initrd "$T/initrd" \
		--append "root=/dev/vda rootfstype=vfat" --disk "virtio-blk:$T/root.img" || return 1
	expect_log "$T/console.log" 'rescue: unable to mount /dev/vda on /newroot as vfat: Invalid argument$' \
		"the mount error"
}

# Malformed root= values: a message naming the parameter, never a crash.
malformed_root() { # root= value, expected message regex
	make_image "$T/initrd" || return 1
	make_decoy "$T/decoy.img" "$DECOY_UUID" decoy
	: >"$T/commands"
	vm_shell "$T/console.log" "$VM_TIMEOUT" "$T/commands" --initrd "$T/initrd" \
		--append "root=$1" --disk "virtio-blk:$T/decoy.img" || return 1
	expect_log "$T/console.log" "rescue: $2" "the message"
}

test_malformed_uuid_is_reported() {
	malformed_root UUID=0f3c-12 'unable to parse root=UUID=0f3c-12: a UUID has 36 characters .*this one has 7$'
}

test_partnroff_out_of_range_is_reported() {
	malformed_root "PARTUUID=$ROOT_PARTUUID/PARTNROFF=999" \
		"unable to parse root=PARTUUID=$ROOT_PARTUUID/PARTNROFF=999: PARTNROFF must be between -256 and 256$"
}

# PARTNROFF past the last partition: the message names both ends.
test_partnroff_past_last_partition_is_reported() {
	make_image "$T/initrd" || return 1
	make_gpt "$T/disk.img" 16 a:$BASE_PARTUUID:4 b:$ROOT_PARTUUID:rest || return 1
	: >"$T/commands"
	vm_shell "$T/console.log" "$VM_TIMEOUT" "$T/commands" --initrd "$T/initrd" \
		--append "root=PARTUUID=$BASE_PARTUUID/PARTNROFF=2" --disk "virtio-blk:$T/disk.img" || return 1
	expect_log "$T/console.log" "rescue: unable to find root PARTUUID=$BASE_PARTUUID/PARTNROFF=2: /dev/vda1 has this PARTUUID, but /dev/vda has no partition 3\$" \
		"the PARTNROFF message"
}

test_empty_root_is_reported() {
	malformed_root "" 'unable to parse root=: the value is empty$'
}

# A 2047-byte value inside an unbalanced quote: cut, reported, no crash.
test_long_unterminated_root_is_reported() {
	local long
	long=$(head -c 1500 /dev/zero | tr '\0' a)
	malformed_root "\"LABEL=$long" "unable to parse root=LABEL=a+\\.\\.\\.: the value is 1506 bytes long, more than 1023$"
}

test_rootwait_gives_up_with_progress() {
	make_image "$T/initrd" || return 1
	make_decoy "$T/decoy.img" "$DECOY_UUID" decoy
	: >"$T/commands"
	vm_shell "$T/console.log" "$VM_TIMEOUT" "$T/commands" --initrd "$T/initrd" \
		--append "root=LABEL=never rootwait=6" --disk "virtio-blk:$T/decoy.img" || return 1
	expect_log "$T/console.log" 'rescue: waiting for root LABEL=never: 5 of 6 s$' "the progress line" &&
	expect_log "$T/console.log" 'rescue: unable to find root LABEL=never: no block device has this LABEL \(1 devices probed, waited 6 s\)$' \
		"the failure after the wait"
}

# Orphans of the rescue shell become PID 1's children: reaped, no zombie.
test_rescue_shell_orphans_are_reaped() {
	make_image "$T/initrd" || return 1
	{
		echo "sh -c 'sleep 0.2 & exit 0'; sleep 1"
		result_cmd reap zombies '$(cat /proc/[0-9]*/stat 2>/dev/null | awk '"'"'$3 == "Z"'"'"' | wc -l)'
	} >"$T/commands"
	vm_shell "$T/console.log" "$VM_TIMEOUT" "$T/commands" --initrd "$T/initrd" \
		--append "root=LABEL=nowhere" || return 1
	expect_field "$T/console.log" reap zombies 0
}

# busybox reboot (no -f) signals PID 1, which reboots: no panic.
test_reboot_from_rescue_shell_without_force() {
	make_image "$T/initrd" || return 1
	cat >"$T/reboot.exp" <<'EOF2'
set timeout [lindex $argv 0]
log_user 0
log_file -a -noappend [lindex $argv 1]
spawn -noecho {*}[lrange $argv 2 end]
expect {
	-re {\(rescue\)[^\n]*# } {}
	timeout { puts stderr "no rescue shell prompt"; exit 1 }
	eof { puts stderr "the VM ended before the prompt"; exit 1 }
}
send -- "reboot\r"
expect {
	eof {}
	timeout { puts stderr "the VM did not end after reboot"; exit 1 }
}
lassign [wait] pid spawnid os_error status
exit $status
EOF2
	expect -f "$T/reboot.exp" "$VM_TIMEOUT" "$T/console.log" "$RUN_VM" --timeout "$VM_TIMEOUT" \
		--kernel "$BZIMAGE" --initrd "$T/initrd" --append "root=LABEL=nowhere" ||
		{ show_log "$T/console.log"; return 1; }
	expect_log "$T/console.log" 'rescue: rebooting \(signal Terminated\)' "the reboot on SIGTERM" &&
	expect_no_log "$T/console.log" 'Kernel panic' "panic"
}

# ---- outside a boot ----------------------------------------------------

test_refuses_to_run_when_not_pid_1() {
	local out status
	out=$("$RESCUE_INIT" 2>&1)
	status=$?
	[ "$status" -eq 2 ] || { fail "exit status $status, expected 2"; return 1; }
	grep -q 'rescue-init: not running as PID 1' <<<"$out" ||
		{ fail "no refusal in: $out"; return 1; }
	"$RESCUE_INIT" --help | grep -q 'rescue-mount \[DIR\]' || { fail "no --help usage"; return 1; }
}

# ---- a modular kernel -------------------------------------------------

# The modules the stock kernel needs for a virtio-blk ext4 root, with
# their dependencies, and indexes made by depmod for just these, as
# dracut makes them for its image.  Prints a gen_init_cpio list.
stock_modules_list() { # kver
	local kver=$1 src=/lib/modules/$1 dst=$T/mods/lib/modules/$1 m path dep
	local -A want=()
	for m in virtio_pci virtio_blk ext4 crc32c_generic; do
		path=$(modinfo -k "$kver" -n "$m") || return 1
		want[${path#"$src"/}]=1
		# shellcheck disable=SC2013 # paths, one word each
		for dep in $(sed -n "s|^${path#"$src"/}: *||p" "$src/modules.dep"); do
			want[$dep]=1
		done
	done
	rm -rf "$T/mods"
	for path in "${!want[@]}"; do
		mkdir -p "$dst/$(dirname "$path")"
		cp "$src/$path" "$dst/$path"
	done
	cp "$src/modules.builtin" "$src/modules.builtin.modinfo" "$src/modules.order" "$dst/"
	depmod -b "$T/mods" "$kver" || return 1
	(cd "$T/mods" && find lib -type d | sort | sed 's|^\(.*\)$|dir /\1 0755 0 0|')
	(cd "$T/mods" && find lib -type f | sort | while read -r f; do
		echo "file /$f $T/mods/$f 0644 0 0"
	done)
}

# Debian's kernel has its drivers as modules and does not mount devtmpfs
# for an initramfs: rescue-init mounts it, loads virtio_pci for the PCI
# devices, virtio_blk for the virtio devices that then appear (uevents),
# ext4 (and crc32c_generic, a softdep alias) for the filesystem.
test_stock_kernel_loads_modules_and_finds_root() {
	local kver
	kver=$(stock_kernel_version) || return 1
	stock_modules_list "$kver" >"$T/modules.list" || { fail "unable to build the module list"; return 1; }
	EXTRA_LIST=$T/modules.list make_image "$T/initrd" || return 1
	make_decoy "$T/decoy.img" "$DECOY_UUID" decoy
	make_root_dir "$T/root" stock
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" root || return 1
	VM_TIMEOUT=${STOCK_VM_TIMEOUT:-180} boot_vm "$T/console.log" --kernel "/boot/vmlinuz-$kver" \
		--initrd "$T/initrd" --mem 512M --append "root=UUID=$ROOT_UUID" \
		--disk "virtio-blk:$T/decoy.img" --disk "virtio-blk:$T/root.img" || return 1
	expect_log "$T/console.log" 'rescue: mounted /proc /sys /run and devtmpfs on /dev in' \
		"rescue-init's own devtmpfs mount" &&
	expect_log "$T/console.log" 'rescue: loaded module virtio_pci for pci:v00001AF4d0000100[01]' \
		"virtio_pci by the PCI modalias" &&
	expect_log "$T/console.log" 'rescue: loaded module virtio_blk for virtio:d00000002v00001AF4$' \
		"virtio_blk by the uevent's MODALIAS" &&
	expect_log "$T/console.log" 'rescue: loaded module crc32c_generic for fs-ext4$' \
		"the softdep crypto-crc32c, an alias" &&
	expect_log "$T/console.log" 'rescue: loaded module ext4 for fs-ext4$' "ext4 by fs-ext4" &&
	expect_log "$T/console.log" "rescue: found root UUID=$ROOT_UUID on /dev/vdb \(ext4\)" \
		"the disk found after its driver loaded" &&
	expect_no_log "$T/console.log" 'rescue: unable to load' "a module failing" || return 1
	# Two virtio disks, two MODALIAS uevents: virtio_blk loaded once.
	[ "$(tr -d '\r' <"$T/console.log" | grep -c 'rescue: loaded module virtio_blk ')" = 1 ] ||
		{ fail "virtio_blk was not loaded exactly once"; return 1; }
	expect_field "$T/console.log" root marker stock &&
	expect_field "$T/console.log" root dev /dev/vdb &&
	expect_exec_line /sbin/init /dev/vdb ext4 ro &&
	note "stock kernel: $(tr -d '\r' <"$T/console.log" | grep -o 'rescue: exec .*')"
}

# ---- boot time ----------------------------------------------------------

# exec_us LOG: N of "rescue: exec ... after N us", rescue-init's own
# figure from main() to the exec of the real init.
exec_us() {
	tr -d '\r' <"$1" | sed -n 's/^.*rescue: exec .* after \([0-9]*\) us$/\1/p' | tail -n1
}

# boot_times RUNS DISKS: boot root=UUID= among DISKS virtio disks (the
# root last) RUNS times; prints "min median max" in microseconds.
boot_times() {
	local runs=$1 disks=$2 i args=() us times=()
	make_image "$T/initrd" >/dev/null || return 1
	make_root_dir "$T/root" timed
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" root >/dev/null || return 1
	mkdir -p "$T/empty"
	for ((i = 1; i < disks; i++)); do
		[ -e "$T/decoy$i.img" ] ||
			make_ext4 "$T/empty" "$T/decoy$i.img" 8 \
				"$(printf '3c0d8a52-7e41-4f0b-9a6d-%012d' "$i")" "decoy$i" >/dev/null ||
			return 1
		args+=(--disk "virtio-blk:$T/decoy$i.img")
	done
	args+=(--disk "virtio-blk:$T/root.img")
	for ((i = 0; i < runs; i++)); do
		boot_vm "$T/time.log" --kernel "$BZIMAGE" --initrd "$T/initrd" \
			--append "root=UUID=$ROOT_UUID ${BOOT_TIME_APPEND:-}" "${args[@]}" >&2 || return 1
		[ "$(result_field "$T/time.log" root marker)" = timed ] ||
			{ fail "run $i did not reach the root"; show_log "$T/time.log"; return 1; }
		us=$(exec_us "$T/time.log")
		[ -n "$us" ] || { fail "no exec line"; show_log "$T/time.log"; return 1; }
		times+=("$us")
	done
	printf '%s\n' "${times[@]}" | sort -n |
		awk '{ t[NR] = $1 } END { print t[1], t[int((NR + 1) / 2)], t[NR] }'
}

# The target is 50 ms for one disk and under twice that for 16, under
# TCG; other VMs on the machine make single runs noisy, so this fails
# only on a median above five times the target (a regression, not noise)
# and notes the figures.
test_boot_time_one_and_sixteen_virtio_disks() {
	local one sixteen
	one=$(boot_times "${BOOT_TIME_RUNS:-3}" 1) || return 1
	sixteen=$(boot_times "${BOOT_TIME_RUNS:-3}" 16) || return 1
	note "start to exec, us (min median max): 1 disk: $one; 16 disks: $sixteen"
	read -r _ m1 _ <<<"$one"
	read -r _ m16 _ <<<"$sixteen"
	[ "$m1" -lt 250000 ] || { fail "1 disk: median $m1 us"; return 1; }
	[ "$m16" -lt 500000 ] || { fail "16 disks: median $m16 us"; return 1; }
}
