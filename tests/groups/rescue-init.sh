# SPDX-License-Identifier: GPL-2.0
# tests/groups/rescue-init.sh: rescue-init as the /init of the image mkrescue makes, in
# QEMU: the root by every root= form on virtio-blk, NVMe, AHCI and USB
# disks among decoys, ro/rw, init= and its fallbacks, what the real init
# inherits, devtmpfs and the console when the kernel provided neither, the
# kernel log, modules on the Debian stock kernel, and 16 disks.  The
# failures and the rescue shell are tests/groups/rescue-shell.sh.

. "$TOP/tests/lib/rescue-lib.sh"

# ---- the root by each root= form ------------------------------------

test_root_by_dev_name_on_virtio() {
	make_image "$T/initrd" || return 1
	make_decoy "$T/decoy.img" "$DECOY_UUID" decoy
	make_root_dir "$T/root" dev-name
	make_gpt "$T/root.img" 24 "rootpart:$ROOT_PARTUUID:rest" &&
	put_ext4 "$T/root.img" 1 "$T/root" "$ROOT_UUID" root || return 1
	boot "$T/initrd" "root=/dev/vdb1" \
		--disk "virtio-blk:$T/decoy.img" --disk "virtio-blk:$T/root.img" || return 1
	expect_root dev-name /dev/vdb1 ro &&
	expect_field "$T/console.log" root init /sbin/init &&
	# A kernel with its drivers built in has no /lib/modules: not a
	# warning on every boot.
	expect_no_log "$T/console.log" 'rescue: unable to read /lib/modules' \
		"a warning about the module indexes of a kernel without modules"
}

# behind_a_decoy MARKER APPEND DECOY-BUS ROOT-BUS [DECOY-LABEL ROOT-LABEL]:
# an ext4 decoy (DECOY_UUID, DECOY-LABEL or decoy) on its bus, then the
# ext4 root (ROOT_UUID, ROOT-LABEL or root) marked MARKER on its own,
# booted with APPEND on the image.
behind_a_decoy() {
	make_image "$T/initrd" || return 1
	make_decoy "$T/decoy.img" "$DECOY_UUID" "${5:-decoy}"
	make_root_dir "$T/root" "$1"
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" "${6:-root}" || return 1
	boot "$T/initrd" "$2" --disk "$3:$T/decoy.img" --disk "$4:$T/root.img"
}

# Upper case: UUIDs compare without case.
test_root_by_uuid_on_nvme_mounted_rw() {
	behind_a_decoy by-uuid "root=UUID=${ROOT_UUID^^} rw" virtio-blk nvme || return 1
	expect_root by-uuid /dev/nvme0n1 rw
}

test_root_by_label_on_ahci() {
	behind_a_decoy by-label "root=LABEL=realroot" ahci ahci rootish realroot || return 1
	expect_root by-label /dev/sdb ro
}

test_root_by_partuuid_on_virtio() {
	make_image "$T/initrd" || return 1
	make_root_dir "$T/root" by-partuuid
	make_gpt "$T/decoy.img" 8 "decoy:$DECOY_PARTUUID:rest" || return 1
	make_gpt "$T/root.img" 24 "other:$BASE_PARTUUID:4" "root:$ROOT_PARTUUID:rest" &&
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
	make_gpt "$T/root.img" 32 "boot:$BASE_PARTUUID:8" "root:$ROOT_PARTUUID:rest" &&
	put_ext4 "$T/root.img" 1 "$T/boot" "$DECOY_UUID" boot &&
	put_ext4 "$T/root.img" 2 "$T/root" "$ROOT_UUID" root || return 1
	make_gpt "$T/decoy.img" 8 "decoy:$DECOY_PARTUUID:rest" || return 1
	boot "$T/initrd" "root=PARTUUID=$BASE_PARTUUID/PARTNROFF=1" \
		--disk "virtio-blk:$T/decoy.img" --disk "nvme:$T/root.img" || return 1
	expect_root partnroff /dev/nvme0n1p2 ro
}

test_root_by_partlabel_on_nvme() {
	make_image "$T/initrd" || return 1
	make_root_dir "$T/root" by-partlabel
	make_gpt "$T/root.img" 24 "esp:$BASE_PARTUUID:4" "rescue-root:$ROOT_PARTUUID:rest" &&
	put_ext4 "$T/root.img" 2 "$T/root" "$ROOT_UUID" root || return 1
	make_gpt "$T/decoy.img" 8 "rescue-roo:$DECOY_PARTUUID:rest" || return 1
	boot "$T/initrd" "root=PARTLABEL=rescue-root" \
		--disk "nvme:$T/decoy.img" --disk "nvme:$T/root.img" || return 1
	expect_root by-partlabel /dev/nvme1n1p2 ro
}

# vdb1 is MAJOR:17, MAJOR virtio-blk's (tests/lib/lib.sh virtio_blk_major:
# 254, or 253 with md built in), and in hex MMmm (fe11 or fd11).
test_root_by_maj_min_on_virtio() {
	make_image "$T/initrd" || return 1
	make_decoy "$T/decoy.img" "$DECOY_UUID" decoy
	make_root_dir "$T/root" maj-min
	make_gpt "$T/root.img" 24 "root:$ROOT_PARTUUID:rest" &&
	put_ext4 "$T/root.img" 1 "$T/root" "$ROOT_UUID" root || return 1
	local major
	major=$(virtio_blk_major) || { fail "unable to read virtio-blk's major"; return 1; }
	boot "$T/initrd" "root=$major:17" \
		--disk "virtio-blk:$T/decoy.img" --disk "virtio-blk:$T/root.img" || return 1
	expect_root maj-min /dev/vdb1 ro
}

test_root_by_hex_devnum_on_virtio() {
	make_image "$T/initrd" || return 1
	make_decoy "$T/decoy.img" "$DECOY_UUID" decoy
	make_root_dir "$T/root" hex
	make_gpt "$T/root.img" 24 "root:$ROOT_PARTUUID:rest" &&
	put_ext4 "$T/root.img" 1 "$T/root" "$ROOT_UUID" root || return 1
	local major
	major=$(virtio_blk_major) || { fail "unable to read virtio-blk's major"; return 1; }
	boot "$T/initrd" "root=$(printf '%02x11' "$major")" \
		--disk "virtio-blk:$T/decoy.img" --disk "virtio-blk:$T/root.img" || return 1
	expect_root hex /dev/vdb1 ro
}

test_root_by_disk_by_uuid_path_on_ahci() {
	behind_a_decoy by-uuid-path "root=/dev/disk/by-uuid/$ROOT_UUID" virtio-blk ahci || return 1
	expect_root by-uuid-path /dev/sda ro
}

# udev writes a blank in a label as \x20 in /dev/disk/by-label/.
test_root_by_disk_by_label_path_with_escape() {
	behind_a_decoy by-label-path 'root=/dev/disk/by-label/my\x20root' nvme virtio-blk my "my root" ||
		return 1
	expect_root by-label-path /dev/vda ro
}

test_root_by_disk_by_partlabel_path_on_virtio() {
	make_image "$T/initrd" || return 1
	make_root_dir "$T/root" by-partlabel-path
	make_gpt "$T/root.img" 24 "esp:$BASE_PARTUUID:4" "linux:$ROOT_PARTUUID:rest" &&
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
	# shellcheck disable=SC2016 # the sed replacement is shell text for the guest's init
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
	root_boot flags "root=/dev/vda rootflags=noatime,errors=remount-ro rootfstype=ext4" || return 1
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
	root_boot delay "root=/dev/vda rootdelay=1" || return 1
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
	root_boot passthrough "root=/dev/vda foo=bar single rootwait=3 rescue.debug -- rescue x=y" || return 1
	expect_field "$T/console.log" root argv single,rescue,x=y &&
	expect_field "$T/console.log" root foo bar &&
	expect_field "$T/console.log" root rootwait_env unset &&
	expect_no_log "$T/console.log" 'starting the rescue shell' "rescue shell"
}

# A hostonly dracut image carries root= in /etc/cmdline.d; the kernel's
# own line comes last and wins where both say the same word.
test_root_from_etc_cmdline_d() {
	make_root_dir "$T/root" cmdline-d
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" root || return 1
	make_decoy "$T/decoy.img" "$DECOY_UUID" decoy
	printf '# written by dracut --hostonly-cmdline\n root=UUID=%s\nrw\n' \
		"$DECOY_UUID" >"$T/10-root.conf"
	printf 'root=UUID=%s\n' "$ROOT_UUID" >"$T/20-root.conf"
	{
		echo "dir /etc/cmdline.d 0755 0 0"
		echo "file /etc/cmdline.d/10-root.conf $T/10-root.conf 0644 0 0"
		echo "file /etc/cmdline.d/20-root.conf $T/20-root.conf 0644 0 0"
	} >"$T/extra.list"
	EXTRA_LIST="$T/extra.list" make_image "$T/initrd" || return 1
	# No root= on the kernel's line: the files name it (the later one).
	boot "$T/initrd" "" --disk "virtio-blk:$T/decoy.img" \
		--disk "virtio-blk:$T/root.img" || return 1
	expect_root cmdline-d /dev/vdb rw || return 1
	# The kernel's ro wins over the file's rw.
	boot "$T/initrd" "ro" --disk "virtio-blk:$T/decoy.img" \
		--disk "virtio-blk:$T/root.img" || return 1
	expect_root cmdline-d /dev/vdb ro
}

# ---- the kernel log, devtmpfs and the console -------------------------

# tiny-initramfs wrote to /dev/ksmg and never logged: these lines come
# back through the kernel's printk, with its timestamps.
test_log_lines_reach_kernel_log() {
	make_image "$T/initrd" || return 1
	root_boot kmsg "root=UUID=$ROOT_UUID" || return 1
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
	root_boot own-devtmpfs "root=UUID=$ROOT_UUID devtmpfs.initramfs=0" || return 1
	expect_no_log "$T/console.log" 'devtmpfs: mounted on initramfs' "the kernel's mount" &&
	expect_log "$T/console.log" 'rescue: mounted /proc /sys /run and devtmpfs on /dev in [0-9]+ us' \
		"rescue-init's devtmpfs mount" &&
	expect_root own-devtmpfs /dev/vda ro
}

# No console for the kernel to open: the kernel's built-in archive has a
# /dev/console, so this one replaces it with a dangling link; with
# devtmpfs.initramfs=0 the kernel then starts /init with fds 0-2 closed, and
# rescue-init opens /dev/console after mounting devtmpfs itself.
test_console_opened_when_kernel_had_none() {
	printf 'dir /dev 0755 0 0\nslink /dev/console /nowhere 0777 0 0\n' >"$T/extra.list"
	EXTRA_LIST=$T/extra.list make_image "$T/initrd" || return 1
	root_boot no-console "root=/dev/vda devtmpfs.initramfs=0" || return 1
	expect_log "$T/console.log" 'unable to open an initial console' "the kernel's warning" &&
	expect_log "$T/console.log" 'rescue: opened /dev/console for stdin, stdout and stderr' \
		"rescue-init's console" &&
	expect_root no-console /dev/vda ro
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
		[ -f "$path" ] || continue	# (builtin): 6.12's virtio_pci
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
# devices (6.1; 6.12 has it built in), virtio_blk for the virtio devices
# that then appear (uevents), ext4 (and crc32c_generic, a softdep alias)
# for the filesystem.  6.12's modules are .ko.xz, decompressed by the
# kernel.
test_stock_kernel_loads_modules_and_finds_root() {
	for_each_stock_kernel stock_kernel_loads_modules_and_finds_root
}

stock_kernel_loads_modules_and_finds_root() {
	local kver pci_re='rescue: loaded module virtio_pci for pci:v00001AF4d0000100[01]'
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
	if [ -f "$(modinfo -k "$kver" -n virtio_pci)" ]; then
		expect_log "$T/console.log" "$pci_re" "virtio_pci by the PCI modalias"
	else
		expect_no_log "$T/console.log" "$pci_re" "a built-in virtio_pci loaded"
	fi &&
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

# The first stock kernel whose modules are compressed (.ko.xz: 6.12).
stock_kernel_compressed() {
	local kver
	for kver in $(stock_kernel_versions); do
		find "/lib/modules/$kver/kernel" -name '*.ko.[xgz]*' -print -quit | grep -q . &&
			{ echo "$kver"; return 0; }
	done
	fail "no stock kernel with compressed modules (linux-image-6.12-amd64, make deps)"
}

# The kernel runs /sbin/modprobe for request_module(): before /init
# (6.12 asks for crypto-aes) and for a filesystem a mount names.  In an
# image of mkrescue -k that is rescue-init, which loads the .ko.xz that
# busybox's modprobe handed the kernel undecompressed ("Invalid ELF
# header magic").  Only a kernel with compressed modules can tell the
# two apart: 6.1's .ko busybox loads as well.
test_stock_kernel_request_module_runs_rescue_init_as_modprobe() {
	local kver
	kver=$(stock_kernel_compressed) || return 1
	"$BUILD/mkrescue" --init "$RESCUE_INIT" -k "$kver" -o "$T/rescue.img" || return 1
	cat >"$T/commands" <<'EOF'
grep -qw vfat /proc/filesystems; echo "TEST RESULT: before vfat=$?"
mkdir -p /mnt; mount -t vfat none /mnt; grep -qw vfat /proc/filesystems; echo "TEST RESULT: after vfat=$?"
EOF
	"$TOP/tests/tools/vm-shell.exp" "$T/console.log" "${STOCK_VM_TIMEOUT:-240}" "$SHELL_PROMPT" \
		"$T/commands" --kernel "/boot/vmlinuz-$kver" --mem 1G --initrd "$T/rescue.img" \
		--append "root=LABEL=nowhere" || { show_log "$T/console.log" 40; return 1; }
	expect_no_log "$T/console.log" 'Invalid ELF header|modprobe: can.t' \
		"busybox's modprobe handing the kernel a compressed module" &&
	expect_log "$T/console.log" 'modprobe: loaded module [a-z_0-9]+ for crypto-aes' \
		"a module loaded for the kernel's request before /init" &&
	expect_field "$T/console.log" before vfat 1 &&
	expect_log "$T/console.log" 'modprobe: loaded module vfat for fs-vfat' \
		"vfat loaded for the kernel's request at mount -t vfat" &&
	expect_field "$T/console.log" after vfat 0
}

# ---- many disks ---------------------------------------------------------

# exec_us LOG: N of "rescue: exec ... after N us", rescue-init's own
# figure from main() to the exec of the real init.
exec_us() {
	tr -d '\r' <"$1" | sed -n 's/^.*rescue: exec .* after \([0-9]*\) us$/\1/p' | tail -n1
}

# mkrescue -k's default set (drivers by directory) and --hostonly both
# boot the stock kernel to a virtio root; rescue-init's own figure, main()
# to the exec of the real init, and the image size of each are notes.
test_stock_kernel_boots_default_and_hostonly_images() {
	for_each_stock_kernel stock_kernel_boots_default_and_hostonly_images
}

stock_kernel_boots_default_and_hostonly_images() {
	local kver mode hostonly
	kver=$(stock_kernel_version) || return 1
	make_root_dir "$T/root" stock
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" root || return 1
	for mode in default hostonly; do
		hostonly=; [ "$mode" = default ] || hostonly=1
		"$BUILD/mkrescue" --init "$RESCUE_INIT" -k "$kver" \
			${hostonly:+--hostonly} -o "$T/$mode.img" || return 1
		VM_TIMEOUT=${STOCK_VM_TIMEOUT:-180} boot_vm "$T/$mode.log" --kernel "/boot/vmlinuz-$kver" \
			--initrd "$T/$mode.img" --mem 1G --append "root=UUID=$ROOT_UUID" \
			--disk "virtio-blk:$T/root.img" || return 1
		expect_field "$T/$mode.log" root marker stock &&
		expect_field "$T/$mode.log" root dev /dev/vda || return 1
		note "$kver $mode: image $(stat -c %s "$T/$mode.img") bytes, exec after $(exec_us "$T/$mode.log") us"
	done
}

# mkrescue -k's default set matches far more devices than the boot
# needs: serio_raw (QEMU's PS/2 AUX port), virtio_net (a NIC, no ip=).
# Those wait until a person is asked something (rescue/init/modules/coldplug.c):
# the real root finds them not loaded, and a boot with "rescue" loads
# them before its shell opens.  ata_piix (the PC's IDE controller, no
# disk on it) waits too: the root was found without it.
test_stock_kernel_loads_only_what_the_boot_needs() {
	for_each_stock_kernel stock_kernel_loads_only_what_the_boot_needs
}

stock_kernel_loads_only_what_the_boot_needs() {
	# shellcheck disable=SC2054 # the commas are QEMU's, inside one argument
	local kver nic=(--qemu-arg -nic --qemu-arg user,model=virtio-net-pci)
	kver=$(stock_kernel_version) || return 1
	make_root_dir "$T/root" later
	mv "$T/root/sbin/init" "$T/root/sbin/report-init"
	cat >"$T/root/sbin/init" <<'EOF'
#!/bin/sh
n() { grep -c "^$1 " /proc/modules; }
echo "TEST RESULT: mods serio_raw=$(n serio_raw) virtio_net=$(n virtio_net) virtio_blk=$(n virtio_blk) ata_piix=$(n ata_piix)"
exec /sbin/report-init "$@"
EOF
	chmod 0755 "$T/root/sbin/init"
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" root || return 1
	"$BUILD/mkrescue" --init "$RESCUE_INIT" -k "$kver" -o "$T/rescue.img" \
		>"$T/mkrescue.log" 2>&1 || { fail "mkrescue -k $kver failed"; return 1; }
	VM_TIMEOUT=${STOCK_VM_TIMEOUT:-180} boot_vm "$T/boot.log" --kernel "/boot/vmlinuz-$kver" \
		--initrd "$T/rescue.img" --mem 1G --append "root=UUID=$ROOT_UUID" \
		--disk "virtio-blk:$T/root.img" "${nic[@]}" || return 1
	expect_field "$T/boot.log" root marker later &&
	expect_field "$T/boot.log" mods virtio_blk 1 &&
	expect_field "$T/boot.log" mods serio_raw 0 &&
	expect_field "$T/boot.log" mods virtio_net 0 &&
	expect_field "$T/boot.log" mods ata_piix 0 &&
	expect_log "$T/boot.log" 'rescue: loaded [0-9]+ modules for [0-9]+ devices in [0-9]+ us, [1-9][0-9]* put off until a shell or passphrase needs them, [1-9][0-9]* legacy disk drivers until the root is not found without them' \
		"the coldplug line counting the modules put off" &&
	expect_no_log "$T/boot.log" 'rescue: loaded [0-9]+ legacy disk driver modules' \
		"the legacy IDE drivers loaded though the root was found" || return 1
	note "$kver: $(tr -d '\r' <"$T/boot.log" | grep -o 'loaded [0-9]* modules for .*'), exec after $(exec_us "$T/boot.log") us"
	cat >"$T/commands" <<'EOF'
n() { grep -c "^$1 " /proc/modules; }
echo "TEST RESULT: shell serio_raw=$(n serio_raw) virtio_net=$(n virtio_net) ata_piix=$(n ata_piix)"
EOF
	"$TOP/tests/tools/vm-shell.exp" "$T/shell.log" "${STOCK_VM_TIMEOUT:-180}" "$SHELL_PROMPT" \
		"$T/commands" --kernel "/boot/vmlinuz-$kver" --mem 1G --initrd "$T/rescue.img" \
		--append "root=UUID=$ROOT_UUID rescue" --disk "virtio-blk:$T/root.img" "${nic[@]}" ||
		{ show_log "$T/shell.log" 40; return 1; }
	expect_log "$T/shell.log" 'rescue: loaded module serio_raw for the rescue shell' \
		"serio_raw loaded before the shell, for it" &&
	expect_field "$T/shell.log" shell serio_raw 1 &&
	expect_field "$T/shell.log" shell virtio_net 1 &&
	expect_field "$T/shell.log" shell ata_piix 1
}

# A root on the PC's own IDE controller (QEMU's PIIX, as an old PC or an
# ICH SATA port in IDE mode): its drivers were put off (coldplug.c), and
# load at once when the root is not among the devices the other drivers
# made, without a wait first.  A virtio decoy disk, another UUID, is
# what the boot drivers find.
test_stock_kernel_finds_a_root_on_legacy_ide() {
	for_each_stock_kernel stock_kernel_finds_a_root_on_legacy_ide
}

stock_kernel_finds_a_root_on_legacy_ide() {
	local kver
	kver=$(stock_kernel_version) || return 1
	make_root_dir "$T/root" ide
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" root || return 1
	make_decoy "$T/decoy.img" "$DECOY_UUID" decoy || return 1
	"$BUILD/mkrescue" --init "$RESCUE_INIT" -k "$kver" -o "$T/rescue.img" \
		>"$T/mkrescue.log" 2>&1 || { fail "mkrescue -k $kver failed"; return 1; }
	VM_TIMEOUT=${STOCK_VM_TIMEOUT:-180} boot_vm "$T/boot.log" --kernel "/boot/vmlinuz-$kver" \
		--initrd "$T/rescue.img" --mem 1G --append "root=UUID=$ROOT_UUID" \
		--disk "virtio-blk:$T/decoy.img" --disk "ide:$T/root.img" || return 1
	expect_log "$T/boot.log" 'rescue: loaded [1-9][0-9]* legacy disk driver modules put off until the root was not found without them' \
		"the legacy IDE drivers loaded once the root was missing" &&
	expect_log "$T/boot.log" 'rescue: loaded module ata_piix for the root was not found without them' \
		"ata_piix among them" &&
	expect_field "$T/boot.log" root marker ide &&
	expect_field "$T/boot.log" root dev /dev/sda || return 1
	note "$kver: $(tr -d '\r' <"$T/boot.log" | grep -o 'root UUID=[^ ]* appeared after [0-9]* us of waiting'), exec after $(exec_us "$T/boot.log") us"
}

# The root last among 16 virtio disks: rescue-init probes every one (a
# UUID must be unique) and boots the root.  How long that takes is a
# figure of make bench ("(a) with 16 disks", rescue-init start to exec),
# not of a test: a timed test on a shared machine fails on load.
test_root_last_among_sixteen_virtio_disks() {
	local i args=()
	make_image "$T/initrd" || return 1
	make_root_dir "$T/root" sixteen
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" root || return 1
	mkdir -p "$T/empty"
	for ((i = 1; i < 16; i++)); do
		make_ext4 "$T/empty" "$T/decoy$i.img" 8 \
			"$(printf '3c0d8a52-7e41-4f0b-9a6d-%012d' "$i")" "decoy$i" || return 1
		args+=(--disk "virtio-blk:$T/decoy$i.img")
	done
	boot "$T/initrd" "root=UUID=$ROOT_UUID" "${args[@]}" \
		--disk "virtio-blk:$T/root.img" || return 1
	expect_log "$T/console.log" \
		"rescue: found root UUID=$ROOT_UUID on /dev/vdp \(ext4\) in [0-9]+ us, 16 devices probed" \
		"the root found on the 16th disk, all 16 probed" &&
	expect_root sixteen /dev/vdp ro
}

# One disk on two paths (multipath): one image file behind two virtio-scsi
# HBAs with the same WWN, as a SAN LUN seen through two ports.  Its UUID
# matches twice, but it is one disk: named as such and booted once; a
# copy of it with another WWN is still two devices (rescue-shell's
# duplicate_uuid test).
test_root_on_one_disk_seen_on_two_paths_boots_once() {
	make_image "$T/initrd" || return 1
	make_root_dir "$T/root" twopaths
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" root || return 1
	two_paths "$T/root.img"
	boot "$T/initrd" "root=UUID=$ROOT_UUID" "${TWO_PATHS[@]}" || return 1
	expect_log "$T/console.log" "$TWO_PATHS_LINE" "the two paths named as one disk" &&
	expect_no_log "$T/console.log" "devices match" "two matches refused" &&
	expect_root twopaths /dev/sda ro
}
