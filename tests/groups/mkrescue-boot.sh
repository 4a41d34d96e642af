# SPDX-License-Identifier: GPL-2.0
# tests/groups/mkrescue-boot.sh: images of mkrescue -k booted on Debian's stock
# kernels, for what only a modular kernel shows: how rescue-init loads
# the drivers of the devices there are.

. "$TOP/tests/lib/rescue-lib.sh"

# A device's driver and the root's filesystem load with the kernel's
# "async_probe" (modload.c): finit_module() returns before the probe
# ends (libata's resets sleep), and the next load overlaps it.  The root
# disk comes later as a uevent and is still found.  Not virtio's drivers:
# the order of their probes names vda and vdb.  MODULE.async_probe=0
# on the command line comes after it and turns it off.  ata_piix is the
# QEMU PC's IDE controller, a module on both kernels: the root is there,
# so that it loads (once the root is not on the virtio disk, coldplug.c).
test_stock_kernel_drivers_probe_asynchronously() {
	for_each_stock_kernel stock_kernel_drivers_probe_asynchronously
}

stock_kernel_drivers_probe_asynchronously() {
	local kver took='rescue: module %s took [0-9]+ us, options %s$'
	kver=$(stock_kernel_version) || return 1
	stock_image "$T/rescue.img" || return 1
	make_root_dir "$T/root" async
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" root || return 1
	make_decoy "$T/decoy.img" "$DECOY_UUID" decoy || return 1
	VM_TIMEOUT=${STOCK_VM_TIMEOUT:-180} boot_vm "$T/console.log" --kernel "/boot/vmlinuz-$kver" \
		--initrd "$T/rescue.img" --mem 512M \
		--append "root=UUID=$ROOT_UUID rescue.debug ata_generic.async_probe=0" \
		--disk "virtio-blk:$T/decoy.img" --disk "ide:$T/root.img" || return 1
	# shellcheck disable=SC2059 # took is the format, a regex with %s for the module and its option
	expect_log "$T/console.log" "$(printf "$took" ata_piix async_probe)" \
		"ata_piix loaded with async_probe" &&
	expect_log "$T/console.log" 'rescue: module virtio_blk took [0-9]+ us$' \
		"virtio_blk without async_probe (its probe order names vda, vdb)" &&
	expect_log "$T/console.log" "$(printf "$took" ext4 async_probe)" \
		"the root's filesystem with async_probe" &&
	expect_log "$T/console.log" "$(printf "$took" ata_generic 'async_probe async_probe=0')" \
		"ata_generic.async_probe=0 after rescue-init's async_probe" &&
	expect_no_log "$T/console.log" "unknown parameter 'async_probe'|Invalid argument" \
		"a module refusing the parameter" &&
	expect_cpu_module_skipped "$T/console.log" &&
	expect_field "$T/console.log" root marker async &&
	expect_exec_line /sbin/init /dev/sda ext4 ro || return 1
	note "$kver: $(tr -d '\r' <"$T/console.log" |
		sed -n 's/.*rescue: module \(ata_piix\|ext4\) took \([0-9]*\) us.*/\1 \2 us/p' |
		paste -sd' ')"
}

# A root on persistent memory: QEMU's nvdimm, which ACPI's NFIT table
# describes (nfit), made /dev/pmem0 by libnvdimm and nd_pmem, the
# drivers of kernel/drivers/nvdimm/ and acpi/nfit/ in modules.list.
# Without them the root never appears.
test_stock_kernel_root_on_an_nvdimm() {
	for_each_stock_kernel stock_kernel_root_on_an_nvdimm
}

stock_kernel_root_on_an_nvdimm() {
	local kver
	kver=$(stock_kernel_version) || return 1
	stock_image "$T/rescue.img" || return 1
	make_root_dir "$T/root" pmem
	# The nvdimm's size is its backing file's: 128 MiB, a memory section.
	make_ext4 "$T/root" "$T/root.img" 128 "$ROOT_UUID" root || return 1
	VM_TIMEOUT=${STOCK_VM_TIMEOUT:-180} boot_vm "$T/console.log" --kernel "/boot/vmlinuz-$kver" \
		--initrd "$T/rescue.img" --mem 512M,slots=2,maxmem=2G \
		--append "root=UUID=$ROOT_UUID" \
		--qemu-arg -machine --qemu-arg pc,nvdimm=on \
		--qemu-arg -object --qemu-arg "memory-backend-file,id=pm0,share=off,mem-path=$T/root.img,size=128M" \
		--qemu-arg -device --qemu-arg nvdimm,id=nv0,memdev=pm0 || return 1
	expect_log "$T/console.log" 'rescue: found root UUID=[-0-9a-f]+ on /dev/pmem0 \(ext4\)' \
		"the root found on /dev/pmem0" &&
	expect_field "$T/console.log" root marker pmem &&
	expect_field "$T/console.log" root dev /dev/pmem0 &&
	expect_exec_line /sbin/init /dev/pmem0 ext4 ro
}

# ext4's soft dependency on crypto-crc32c names crc32c_generic and
# crc32c_intel, which is for SSE4.2 (a cpu: alias) and fails with ENODEV
# on QEMU's default CPU (run-vm sets none), which lacks it
# (rescue/init/modules/modcpu.c): skipped, not loaded only to fail.
expect_cpu_module_skipped() { # log
	expect_log "$1" 'rescue: module crc32c_intel skipped for fs-ext4: made for CPU features this CPU lacks' \
		"crc32c_intel skipped on a CPU without SSE4.2" &&
	expect_no_log "$1" 'unable to load module crc32c_intel' \
		"crc32c_intel loaded and failed" &&
	expect_log "$1" 'rescue: loaded module crc32c_generic for' \
		"crc32c_generic loaded in its place"
}


# The rescue shell's modprobe, insmod and rmmod, typed by name as a user
# does: Debian's busybox sh runs its own applets before $PATH, and its
# modprobe handed the kernel the compressed bytes of 6.12's .ko.xz
# ("Invalid ELF header magic").  They are rescue-init's loader
# (/etc/rescue.shrc): udf loads with its dependencies, isofs by its
# file, rmmod removes it and refuses crc-itu-t, which udf uses.
test_shell_module_tools_load_the_kernels_modules() {
	for_each_stock_kernel shell_module_tools_load_the_kernels_modules
}

shell_module_tools_load_the_kernels_modules() {
	local kver
	kver=$(stock_kernel_version) || return 1
	"$BUILD/mkrescue" --init "$RESCUE_INIT" -k "$kver" --no-storage --add-module udf \
		-o "$T/rescue.img" 2>"$T/mkrescue.err" ||
		{ fail "mkrescue -k $kver:" "$(cat "$T/mkrescue.err")"; return 1; }
	cat >"$T/commands" <<-'CMDS'
	modprobe udf && echo "udf status $?"
	grep -o '^udf [^ ]* [^ ]* [a-z_,]*' /proc/modules | sed 's/^/loaded: /'
	insmod $(find /lib/modules -name 'isofs.ko*') && echo "insmod status $?"
	grep -q '^isofs ' /proc/modules && echo 'isofs: loaded'
	rmmod isofs && echo "rmmod status $?"
	grep -q '^isofs ' /proc/modules || echo 'isofs: removed'
	rmmod crc-itu-t; echo "rmmod in use status $?"
	rmmod isofs; echo "rmmod again status $?"
	CMDS
	"$TOP/tests/tools/vm-shell.exp" "$T/console.log" "${STOCK_VM_TIMEOUT:-180}" "$RESCUE_PROMPT" "$T/commands" \
		--kernel "/boot/vmlinuz-$kver" --initrd "$T/rescue.img" --mem 512M \
		--append "rescue" || { fail "the rescue shell's commands did not run"; show_log "$T/console.log" 30; return 1; }
	expect_log "$T/console.log" '^udf status 0' "modprobe udf" &&
	expect_log "$T/console.log" '^loaded: udf .*' "udf in /proc/modules" &&
	expect_log "$T/console.log" '^insmod status 0' "insmod of isofs's file" &&
	expect_log "$T/console.log" '^isofs: loaded' "isofs in /proc/modules" &&
	expect_log "$T/console.log" '^rmmod status 0' "rmmod isofs" &&
	expect_log "$T/console.log" '^isofs: removed' "isofs gone from /proc/modules" &&
	expect_log "$T/console.log" '^rmmod: unable to remove crc_itu_t: it is in use' \
		"rmmod of a module udf uses, named with the kernel's '_'" &&
	expect_log "$T/console.log" '^rmmod in use status 1' "rmmod's status" &&
	expect_log "$T/console.log" '^rmmod: unable to remove isofs: it is not loaded' \
		"rmmod of a module not loaded" &&
	expect_no_log "$T/console.log" 'Invalid ELF header|invalid module format' \
		"compressed bytes handed to the kernel" || return 1
	note "$kver: $(find "/lib/modules/$kver" -name 'udf.ko*' -printf '%f\n')"
}

# A root the host shares through virtio-fs (QEMU's vhost-user-fs and
# virtiofsd, from qemu-system-common), named by its tag as dracut's
# virtiofs module names it: root=virtiofs:TAG, or systemd's root=TAG
# rootfstype=virtiofs.  The tag exists only once virtiofs.ko has bound
# the device, after /init: rescue-init mounts it when it comes, read-only.
test_stock_kernel_root_on_virtiofs() {
	for_each_stock_kernel stock_kernel_root_on_virtiofs
}

stock_kernel_root_on_virtiofs() {
	local kver
	kver=$(stock_kernel_version) || return 1
	stock_image "$T/rescue.img" || return 1
	make_root_dir "$T/root" shared
	virtiofs_boot "$T/console.log" "$T/rescue.img" "root=virtiofs:rootfs" || return 1
	expect_log "$T/console.log" 'rescue: mounted the virtio-fs tag rootfs on /newroot \(virtiofs, ro\) in [0-9]+ us' \
		"the tag mounted read-only" &&
	expect_field "$T/console.log" root marker shared &&
	expect_field "$T/console.log" root fs virtiofs &&
	expect_exec_line /sbin/init rootfs virtiofs ro || return 1
	# systemd's form, and a tag that does not exist, named.
	virtiofs_boot "$T/systemd-form.log" "$T/rescue.img" "root=rootfs rootfstype=virtiofs" || return 1
	expect_field "$T/systemd-form.log" root marker shared || return 1
	virtiofs_boot "$T/nosuch.log" "$T/rescue.img" "root=virtiofs:nosuch rootwait=3" \
		--end-on 'rescue: unable to mount the virtio-fs tag' || return 1
	expect_log "$T/nosuch.log" 'rescue: unable to mount the virtio-fs tag nosuch on /newroot: no virtio-fs device has this tag \(waited 3 s\)' \
		"the missing tag named"
}

# One disk on two paths (tests/lib/lib.sh two_paths) on the stock
# kernels, the root in its first partition: the image's multipath-tools
# (mkrescue --storage ships them when the host has them) make one
# dm-multipath map of the two paths and kpartx its partition's map, and
# the root is mounted from that.  virtio_scsi scans both HBAs after
# /init, so the second path may come after the root was found by the
# first; rootdelay= lets both come.  A strict read-only boot makes no
# map (dm-multipath cannot open read-only paths) and says so.  Nothing
# is written to the disk.
test_stock_kernel_root_on_one_disk_seen_on_two_paths() {
	for_each_stock_kernel stock_kernel_root_on_two_paths
}

stock_kernel_root_on_two_paths() {
	local kver
	kver=$(stock_kernel_version) || return 1
	stock_image "$T/rescue.img" || return 1
	make_root_dir "$T/root" twopaths
	make_gpt "$T/lun.img" 24 "root:$BASE_PARTUUID:rest" || return 1
	put_ext4 "$T/lun.img" 1 "$T/root" "$ROOT_UUID" root || return 1
	record_sums "$T/lun.img"
	two_paths "$T/lun.img" rw
	VM_TIMEOUT=${STOCK_VM_TIMEOUT:-180} boot_vm "$T/console.log" --kernel "/boot/vmlinuz-$kver" \
		--initrd "$T/rescue.img" --mem 512M --append "root=UUID=$ROOT_UUID rootdelay=3" \
		"${TWO_PATHS[@]}" || return 1
	expect_log "$T/console.log" "$TWO_PATHS_MAP_LINE" "the two paths assembled as one map" &&
	expect_log "$T/console.log" "rescue: found root UUID=$ROOT_UUID on /dev/dm-1 \\(ext4\\)" \
		"the root found on the map's partition" &&
	expect_field "$T/console.log" root marker twopaths &&
	expect_exec_line /sbin/init /dev/dm-1 ext4 ro || return 1

	VM_TIMEOUT=${STOCK_VM_TIMEOUT:-180} boot_vm "$T/strict.log" --kernel "/boot/vmlinuz-$kver" \
		--initrd "$T/rescue.img" --mem 512M \
		--append "root=UUID=$ROOT_UUID rootdelay=3 rescue.ro=strict" "${TWO_PATHS[@]}" || return 1
	expect_log "$T/strict.log" 'rescue: root on one disk seen on 2 paths \(multipath, wwid:naa\.5000c50015ea71ac\): /dev/sd[ab]1 /dev/sd[ab]1; mounted through /dev/sd[ab]1, without a multipath map \(strict read-only' \
		"strict read-only: no map, one path, said" &&
	expect_field "$T/strict.log" root marker twopaths &&
	expect_disks_unchanged
}
