# SPDX-License-Identifier: GPL-2.0
# tests/groups/mkrescue.sh: the generator on the host, no VM: what an image holds
# (layout, busybox applets, modules of the Debian stock kernel, pruned
# index files, --include, the SSH host key), that it is reproducible,
# its compressed formats, and what it costs in bytes.  Bad input:
# mkrescue-errors.sh.

. "$TOP/tests/lib/mkrescue-lib.sh"

# ---- what an image holds ----------------------------------------------

test_image_has_init_busybox_and_applet_links() {
	mk_setup || return 1
	mk -o "$T/rescue.img" || return 1
	list_image "$T/rescue.img" >"$T/list"
	expect_entry "$T/list" -rwxr-xr-x init &&
	expect_entry "$T/list" lrwxrwxrwx bin/rescue-mount ../init &&
	expect_entry "$T/list" lrwxrwxrwx bin/rescue-ls ../init &&
	expect_entry "$T/list" -rwxr-xr-x bin/busybox &&
	expect_entry "$T/list" lrwxrwxrwx bin/sh busybox &&
	expect_entry "$T/list" lrwxrwxrwx sbin/reboot ../bin/busybox &&
	expect_entry "$T/list" lrwxrwxrwx usr/bin/awk ../../bin/busybox || return 1
	# Every applet busybox lists, at its usual place.
	local applet missing=0 target
	for applet in $("$BUSYBOX" --list-full); do
		[ "$applet" = bin/busybox ] && continue
		target=$(grep -F " $applet -> " "$T/list" | sed 's/.* -> //')
		case $target in
		busybox | ../bin/busybox | ../../bin/busybox | bin/busybox) ;;
		*) fail "applet $applet: '${target:-missing}'"; missing=$((missing + 1)) ;;
		esac
	done
	[ "$missing" -eq 0 ] || return 1
	# (Debian's busybox-static has no blkid applet: findfs, and rescue-ls.)
	for applet in sh ls mount cat dmesg findfs fdisk vi; do
		grep -qE " (usr/)?s?bin/$applet -> " "$T/list" || fail "no applet $applet" || return 1
	done
	# /init is the file given, byte for byte.
	mkdir "$T/x" && (cd "$T/x" && bsdcpio -id --quiet <"$T/rescue.img" &&
		bsdcpio -idu --quiet <etc/rescue-toolkit.cpio.xz) &&
	cmp "$T/x/init" "$MK_INIT" && cmp "$T/x/bin/busybox" "$BUSYBOX" ||
		fail "the extracted /init or /bin/busybox differs from its source"
}

test_image_has_dev_console_etc_and_pid1_dirs() {
	mk_setup || return 1
	mk -o "$T/rescue.img" || return 1
	list_image "$T/rescue.img" >"$T/list"
	grep -qxF "crw------- 0 0 dev/console" <(bsdcpio -itvn <"$T/rescue.img" 2>/dev/null |
		awk '$5 == "5,1" { print $1, $3, $4, $9 }') ||
		fail "no /dev/console char 5:1 0600 root:root" || return 1
	local d
	for d in dev proc sys run newroot etc bin sbin usr/bin usr/sbin; do
		expect_entry "$T/list" drwxr-xr-x "$d" || return 1
	done
	expect_entry "$T/list" drwxrwxrwt tmp &&
	expect_entry "$T/list" drwx------ root &&
	expect_entry "$T/list" -rw-r--r-- etc/passwd &&
	expect_entry "$T/list" -rw-r--r-- etc/group &&
	expect_entry "$T/list" -rw-r--r-- etc/profile &&
	expect_entry "$T/list" -rw-r--r-- etc/fstab &&
	expect_entry "$T/list" -rw-r--r-- etc/hostname &&
	expect_entry "$T/list" lrwxrwxrwx etc/mtab /proc/mounts || return 1
	if grep -q ' lib/modules' "$T/list"; then
		fail "/lib/modules in an image built without -k"
		return 1
	fi
	awk '$2 != 0 || $3 != 0' "$T/list" | grep -q . &&
		{ fail "entries not owned by 0:0:" "$(awk '$2 != 0 || $3 != 0' "$T/list" | head -n3)"; return 1; }
	mkdir "$T/x" && (cd "$T/x" && bsdcpio -id --quiet <"$T/rescue.img") || return 1
	grep -qx 'root:x:0:0:root:/root:/bin/sh' "$T/x/etc/passwd" &&
	grep -qx 'root:x:0:' "$T/x/etc/group" &&
	grep -q '^export PATH=/bin:/sbin:/usr/bin:/usr/sbin' "$T/x/etc/profile" &&
	grep -q '^PS1=' "$T/x/etc/profile" &&
	[ "$(cat "$T/x/etc/hostname")" = rescue ] && [ ! -s "$T/x/etc/fstab" ] ||
		fail "/etc is not the rescue shell's minimum:" "$(head "$T/x"/etc/*)"
}

test_e2fsck_is_shipped_with_fsck_links() {
	mk_setup || return 1
	[ -x "$E2FSCK_STATIC" ] || { fail "no $E2FSCK_STATIC (apt-get install e2fsck-static)"; return 1; }
	mk -o "$T/with.img" && mk --no-e2fsck -o "$T/without.img" || return 1
	list_image "$T/with.img" >"$T/with"
	list_image "$T/without.img" >"$T/without"
	expect_entry "$T/with" -rwxr-xr-x sbin/e2fsck &&
	expect_entry "$T/with" lrwxrwxrwx sbin/fsck.ext2 e2fsck &&
	expect_entry "$T/with" lrwxrwxrwx sbin/fsck.ext3 e2fsck &&
	expect_entry "$T/with" lrwxrwxrwx sbin/fsck.ext4 e2fsck || return 1
	if grep -qE ' sbin/(e2fsck|fsck\.ext4)( |$)' "$T/without"; then
		fail "--no-e2fsck still ships e2fsck"
	fi
}

test_image_numbers_entries_sorted_and_host_free() {
	mk_setup || return 1
	mk --compress none -o "$T/rescue.cpio" || return 1
	newc_headers "$T/rescue.cpio" >"$T/headers" || { fail "not a newc archive"; return 1; }
	awk '{ print $11 }' "$T/headers" >"$T/all-names"
	# The end marker (rescue/lib/imagemark.h) is last, out of order.
	[ "$(tail -n1 "$T/all-names")" = etc/rescue-image.end ] ||
		{ fail "the last entry is $(tail -n1 "$T/all-names"), not etc/rescue-image.end"; return 1; }
	sed '$d' "$T/all-names" >"$T/names"
	LC_ALL=C sort -c "$T/names" 2>"$T/sort.err" ||
		{ fail "entries not sorted by path:" "$(cat "$T/sort.err")"; return 1; }
	[ "$(sort -u "$T/names" | wc -l)" -eq "$(wc -l <"$T/names")" ] ||
		{ fail "a path is in the image twice"; return 1; }
	# Parents before children: each entry's parent came earlier.
	awk '{ seen[$11] = 1; n = split($11, c, "/"); p = c[1]
	       for (i = 2; i < n; i++) p = p "/" c[i]
	       if (n > 1 && !(p in seen)) { print "parent of " $11 " missing or late"; exit 1 } }' \
		"$T/headers" || { fail "a parent does not precede its children"; return 1; }
	awk 'BEGIN { bad = 0 }
	     { dir = int($2 / 10000) == 4
	       if ($1 != NR) { print "ino " $1 " at entry " NR ": " $11; bad = 1 }
	       if ($5 != (dir ? 2 : 1)) { print "nlink " $5 ": " $11; bad = 1 }
	       if ($3 || $4) { print "owner " $3 ":" $4 ": " $11; bad = 1 }
	       if ($6) { print "mtime " $6 ": " $11; bad = 1 }
	       if ($7 || $8) { print "host device " $7 ":" $8 ": " $11; bad = 1 }
	       if (($9 || $10) && $11 != "dev/console") { print "rdev: " $11; bad = 1 } }
	     END { exit bad }' "$T/headers" >"$T/bad" ||
		{ fail "headers carry host data:" "$(head -n5 "$T/bad")"; return 1; }
	grep -qE '^[0-9]+ 20600 0 0 1 0 0 0 5 1 dev/console$' "$T/headers" ||
		fail "dev/console is not 5:1 0600 in the newc header"
}

test_image_is_byte_identical_across_runs() {
	mk_setup || return 1
	# The same content with other host metadata: new inodes and mtimes.
	cp "$MK_INIT" "$T/init-a"
	mk --init "$T/init-a" -o "$T/a.img" || return 1
	sleep 1
	cp "$MK_INIT" "$T/init-b" && touch -d '2001-02-03' "$T/init-b"
	mk --init "$T/init-b" -o "$T/b.img" || return 1
	cmp "$T/a.img" "$T/b.img" || { fail "two runs differ"; return 1; }
	SOURCE_DATE_EPOCH=1700000000 mk -o "$T/c.img" &&
	SOURCE_DATE_EPOCH=1700000000 mk -o "$T/d.img" &&
	SOURCE_DATE_EPOCH=1700000001 mk -o "$T/e.img" || return 1
	cmp "$T/c.img" "$T/d.img" ||
		{ fail "two runs with one SOURCE_DATE_EPOCH differ"; return 1; }
	if cmp -s "$T/c.img" "$T/e.img"; then
		fail "SOURCE_DATE_EPOCH does not reach the image"
		return 1
	fi
	mk --compress none -o "$T/c.cpio" &&
	SOURCE_DATE_EPOCH=1700000000 mk --compress none -o "$T/e.cpio" || return 1
	newc_headers "$T/e.cpio" >"$T/e.headers" || { fail "unreadable $T/e.cpio"; return 1; }
	awk '$6 != 1700000000 { bad = 1 } END { exit bad }' "$T/e.headers" ||
		{ fail "an mtime is not SOURCE_DATE_EPOCH"; return 1; }
	SOURCE_DATE_EPOCH=1700000000 mk --compress gzip -o "$T/f.img" && sleep 1 &&
	SOURCE_DATE_EPOCH=1700000000 mk --compress gzip -o "$T/g.img" || return 1
	cmp "$T/f.img" "$T/g.img" || fail "two gzip runs differ"
}

# zstd: the image is one frame, however large its files.  The kernel
# sets up a decompression workspace per frame: a frame begun once the
# unpacked files filled the memory made it panic out of memory, where
# one frame ends in "Initramfs unpacking failed: write error" and the
# rescue shell (tests/groups/unpack.sh, image_short_of_memory_...).
test_zstd_image_is_one_frame() {
	local frames
	mk_setup || return 1
	cp "$MK_INIT" "$T/init" && truncate -s 300K "$T/init" || return 1
	"$MKRESCUE" --init "$T/init" -o "$T/one.img" &&
	"$MKRESCUE" --init "$T/init" --compress none -o "$T/none.img" || return 1
	frames=$(zstd -lv "$T/one.img" 2>/dev/null | sed -n 's/^# Zstandard Frames: //p')
	[ "$frames" = 1 ] ||
		{ fail "not one zstd frame:" "$(zstd -lv "$T/one.img" 2>&1)"; return 1; }
	zstd -qdc "$T/one.img" | cmp - "$T/none.img" ||
		fail "the frame does not decompress to the image of --compress none"
}

test_compress_modes_write_standard_frames() {
	mk_setup || return 1
	mk --compress none -o "$T/none.img" &&
	mk --compress gzip -o "$T/gzip.img" &&
	mk --compress zstd -o "$T/zstd.img" &&
	mk -o "$T/default.img" || return 1
	[ "$(head -c 6 "$T/none.img")" = 070701 ] ||
		{ fail "--compress none is not newc: $(head -c 6 "$T/none.img" | od -An -c)"; return 1; }
	# gzip: magic, deflate, no flags (no name), mtime 0.
	[ "$(od -An -tx1 -N8 "$T/gzip.img" | tr -d ' ')" = 1f8b080000000000 ] ||
		{ fail "gzip header: $(od -An -tx1 -N10 "$T/gzip.img")"; return 1; }
	[ "$(od -An -tx1 -N4 "$T/zstd.img" | tr -d ' ')" = 28b52ffd ] ||
		{ fail "zstd magic: $(od -An -tx1 -N4 "$T/zstd.img")"; return 1; }
	cmp "$T/zstd.img" "$T/default.img" || { fail "the default is not zstd"; return 1; }
	# The reference tools read standard frames, and get the newc back.
	gzip -t "$T/gzip.img" && zstd -qt "$T/zstd.img" || { fail "not a valid frame"; return 1; }
	gzip -dc "$T/gzip.img" | cmp - "$T/none.img" &&
	zstd -qdc "$T/zstd.img" | cmp - "$T/none.img" ||
		{ fail "decompressed images differ from --compress none"; return 1; }
	mk --compress zstd --compress-level 19 -o "$T/z19.img" || return 1
	[ "$(stat -c %s "$T/z19.img")" -lt "$(stat -c %s "$T/zstd.img")" ] ||
		{ fail "--compress-level 19 is not smaller than the default"; return 1; }
	mk --compress gzip --compress-level 10 -o "$T/bad.img" 2>"$T/err"
	[ $? -eq 2 ] && [ ! -e "$T/bad.img" ] ||
		fail "gzip level 10 is not a usage error:" "$(cat "$T/err")"
}

# ---- modules ----------------------------------------------------------

# Shipped modules of an image, by normalized name, one a line, sorted;
# compressed as the kernel package has them (6.12: .ko.xz) or not.
shipped_modules() { # list kver
	local kv
	kv=$(printf '%s' "$2" | sed 's/[.+]/\\&/g')	# 6.12.118+deb12-amd64
	sed -nE "s#^-rw-r--r-- 0 0 lib/modules/$kv/(.*\\.ko(\\.xz|\\.zst|\\.gz)?)\$#\\1#p" "$1" |
		sed -E 's#.*/##; s#\.ko(\.xz|\.zst|\.gz)?$##; s#-#_#g' | LC_ALL=C sort
}

# A module the stock kernel has built in (6.12: virtio_pci, virtio_ring).
stock_builtin() { # name
	sed 's|.*/||; s|\.ko$||; s|-|_|g' "/lib/modules/$KVER/modules.builtin" | grep -qx "$1"
}

stock_image_listed() {
	KVER=$(stock_kernel_version) || return 1
	mk -k "$KVER" -o "$T/rescue.img" 2>"$T/stderr" ||
		{ fail "mkrescue -k $KVER failed:" "$(cat "$T/stderr")"; return 1; }
	list_image "$T/rescue.img" >"$T/list"
	shipped_modules "$T/list" "$KVER" >"$T/modules"
}

test_stock_kernel_image_ships_storage_and_fs_modules() {
	mk_setup && for_each_stock_kernel stock_image_ships_storage_and_fs_modules
}

stock_image_ships_storage_and_fs_modules() {
	stock_image_listed || return 1
	local m count kv
	# The list's drivers, and dependencies named by modules.dep (6.12
	# has virtio_pci and virtio_ring built in).
	for m in virtio_blk virtio_scsi virtio_pci ahci nvme sd_mod usb_storage uas \
		xhci_pci ext4 vfat xfs btrfs jbd2 mbcache crc16 libahci libata \
		scsi_mod nvme_core usb_common usbcore virtio_ring fat \
		virtio_net e1000e igb ixgbe tg3 r8169 vmxnet3 ena; do
		grep -qx "$m" "$T/modules" || stock_builtin "$m" ||
			{ fail "module $m is not in the image"; return 1; }
	done
	# ext4's softdep pre: crypto-crc32c, an alias in modules.alias.
	grep -qxE 'crc32c_generic|crc32c_intel' "$T/modules" ||
		{ fail "no crc32c module for ext4's softdep"; return 1; }
	kv=$(printf '%s' "$KVER" | sed 's/[.+]/\\&/g')
	# The wired NICs of the list (ip=, SSH) and what they need (PTP,
	# MDIO, failover for virtio_net, xfrm_algo for ixgbe's IPsec
	# offload); no wireless, sound or graphics.
	if grep -E '^(snd|drm|iwlwifi|i915|amdgpu|nouveau|bluetooth|cfg80211|mac80211|btusb|kvm)' \
		"$T/modules" >"$T/unrelated" ||
		grep -E " lib/modules/$kv/kernel/(sound|net|drivers/(net/wireless|gpu|media|bluetooth))/.*\.ko" \
		"$T/list" | grep -vE "/kernel/net/(core/failover|xfrm/xfrm_algo)\.ko" >>"$T/unrelated"; then
		fail "unrelated modules shipped:" "$(head "$T/unrelated")"
		return 1
	fi
	# rescue/share/modules.list names modules and directories; with
	# their dependencies and soft dependencies they are 285 on Debian's
	# 6.1 and 276 on 6.12.  400 leaves room for a kernel that adds
	# drivers there, while a sound, graphics or network stack pulled in
	# by mistake is caught above.
	local listed
	listed=$(grep -cvE '^[[:space:]]*(#|$)|/$' "$MK_MODULE_LIST")
	count=$(wc -l <"$T/modules")
	note "stock kernel $KVER: $count modules from $listed names and" \
		"$(grep -c '/$' "$MK_MODULE_LIST") directories listed, image $(stat -c %s "$T/rescue.img") bytes"
	[ "$count" -ge "$listed" ] && [ "$count" -le 400 ] ||
		fail "$count modules shipped, expected $listed to 400"
}

# The default set reaches a root on the storage of real machines, as
# dracut --no-hostonly does: directories of modules.list bring the SAS
# and RAID HBAs, Xen, UAS and SD card readers (issue 16).
test_stock_kernel_default_set_has_real_hardware_drivers() {
	mk_setup && for_each_stock_kernel stock_default_set_has_real_hardware_drivers
}

stock_default_set_has_real_hardware_drivers() {
	stock_image_listed || return 1
	local m
	for m in mpt3sas megaraid_sas aacraid hpsa smartpqi vmw_pvscsi hv_storvsc \
		virtio_scsi xen_blkfront nvme uas usb_storage sdhci_pci mmc_block \
		ahci ata_piix sata_nv pata_atiixp xhci_pci ehci_pci usbhid hid_generic \
		raid1 raid456 dm_crypt dm_mod ext4 xfs btrfs vfat; do
		grep -qx "$m" "$T/modules" || stock_builtin "$m" ||
			{ fail "module $m is not in the default image of $KVER"; return 1; }
	done
}

# --hostonly: the drivers of this host's block devices (a virtio disk:
# virtio_blk, and virtio_pci where it is a module) and its root
# filesystem's module, nothing of the list.
test_stock_kernel_hostonly_keeps_only_this_hosts_drivers() {
	mk_setup && for_each_stock_kernel stock_hostonly_keeps_only_this_hosts_drivers
}

stock_hostonly_keeps_only_this_hosts_drivers() {
	local m rootfs
	KVER=$(stock_kernel_version) || return 1
	compgen -G '/sys/class/block/*/device/driver' >/dev/null ||
		compgen -G '/sys/class/block/vd*' >/dev/null ||
		{ fail "this host has no block device with a driver in /sys"; return 1; }
	rootfs=$(awk '$2 == "/" { t = $3 } END { print t }' /proc/mounts)
	mk -k "$KVER" --hostonly -o "$T/host.img" 2>"$T/stderr" ||
		{ fail "mkrescue -k $KVER --hostonly failed:" "$(cat "$T/stderr")"; return 1; }
	list_image "$T/host.img" >"$T/list"
	shipped_modules "$T/list" "$KVER" >"$T/modules"
	note "$KVER --hostonly: $(wc -l <"$T/modules") modules ($(tr '\n' ' ' <"$T/modules")), image $(stat -c %s "$T/host.img") bytes"
	if compgen -G '/sys/class/block/vd*' >/dev/null; then
		grep -qx virtio_blk "$T/modules" ||
			{ fail "--hostonly dropped virtio_blk, this host's disk driver"; return 1; }
	fi
	grep -qx "$rootfs" "$T/modules" || stock_builtin "$rootfs" ||
		{ fail "--hostonly dropped $rootfs, the root filesystem's module"; return 1; }
	for m in mpt3sas xen_blkfront uas sdhci_pci ahci nvme usbhid; do
		grep -qx "$m" "$T/modules" &&
			{ fail "--hostonly kept $m, which this host does not use"; return 1; }
	done
	return 0
}

test_stock_kernel_indexes_cover_exactly_the_shipped_modules() {
	mk_setup && for_each_stock_kernel stock_indexes_cover_exactly_the_shipped_modules
}

stock_indexes_cover_exactly_the_shipped_modules() {
	stock_image_listed || return 1
	local dir=$T/x/lib/modules/$KVER host=/lib/modules/$KVER
	mkdir "$T/x" && (cd "$T/x" && bsdcpio -id --quiet <"$T/rescue.img") || return 1
	# modules.dep: one line for each shipped module, and for no other.
	sed 's/:.*//' "$dir/modules.dep" | sort >"$T/dep-keys"
	(cd "$dir" && find kernel -name '*.ko*' | sort) >"$T/ko-files"
	diff "$T/dep-keys" "$T/ko-files" >"$T/diff" ||
		{ fail "modules.dep and the shipped .ko differ:" "$(head "$T/diff")"; return 1; }
	# Every dependency named is shipped, and the lines are the host's.
	tr ' ' '\n' <"$dir/modules.dep" | sed -n 's/:$//; /\.ko/p' | sort -u >"$T/dep-all"
	comm -23 "$T/dep-all" "$T/ko-files" | grep . &&
		{ fail "modules.dep names modules not shipped"; return 1; }
	grep -vxFf "$host/modules.dep" "$dir/modules.dep" | grep . &&
		{ fail "modules.dep lines not as the host's"; return 1; }
	# modules.alias: exactly the host's lines whose module is shipped.
	awk '{ print $3 }' "$dir/modules.alias" | sort -u >"$T/alias-mods"
	comm -23 "$T/alias-mods" "$T/modules" | grep . &&
		{ fail "modules.alias names modules not shipped"; return 1; }
	awk 'NR == FNR { m[$1] = 1; next } $1 == "alias" && ($3 in m)' \
		"$T/modules" "$host/modules.alias" >"$T/alias-want"
	diff "$T/alias-want" "$dir/modules.alias" >"$T/diff" ||
		{ fail "modules.alias is not the host's, pruned:" "$(head "$T/diff")"; return 1; }
	grep -q '^alias virtio:d00000002v\* virtio_blk$' "$dir/modules.alias" ||
		{ fail "no modalias of virtio_blk"; return 1; }
	# modules.softdep: only shipped modules; built-in lists as they are.
	awk '{ print $2 }' "$dir/modules.softdep" | sort -u | comm -23 - "$T/modules" | grep . &&
		{ fail "modules.softdep names modules not shipped"; return 1; }
	grep -qx 'softdep ext4 pre: crypto-crc32c' "$dir/modules.softdep" ||
		{ fail "ext4's softdep is not kept"; return 1; }
	cmp "$dir/modules.builtin" "$host/modules.builtin" ||
		{ fail "modules.builtin is not the host's"; return 1; }
	if [ -e "$host/modules.builtin.alias" ]; then
		cmp "$dir/modules.builtin.alias" "$host/modules.builtin.alias" ||
			fail "modules.builtin.alias is not the host's"
	fi
}

test_add_module_ships_it_with_its_dependencies() {
	mk_setup && for_each_stock_kernel add_module_ships_it_with_its_dependencies
}

add_module_ships_it_with_its_dependencies() {
	KVER=$(stock_kernel_version) || return 1
	# vxlan: a module of no storage, with dependencies the list lacks.
	mk -k "$KVER" --no-storage -o "$T/plain.img" &&
	mk -k "$KVER" --no-storage --add-module vxlan --add-module nbd -o "$T/added.img" || return 1
	list_image "$T/plain.img" >"$T/plain"
	list_image "$T/added.img" >"$T/added"
	shipped_modules "$T/plain" "$KVER" >"$T/plain-mods"
	shipped_modules "$T/added" "$KVER" >"$T/added-mods"
	grep -qx vxlan "$T/plain-mods" && { fail "vxlan shipped without --add-module"; return 1; }
	comm -13 "$T/plain-mods" "$T/added-mods" >"$T/new"
	for m in vxlan udp_tunnel ip6_udp_tunnel nbd; do
		grep -qx "$m" "$T/new" ||
			{ fail "--add-module did not ship $m; new:" "$(cat "$T/new")"; return 1; }
	done
	grep -Eq '^kernel/drivers/net/vxlan/vxlan\.ko(\.xz|\.zst|\.gz)?: .*udp_tunnel\.ko' \
		<(bsdtar -xOf "$T/added.img" "lib/modules/$KVER/modules.dep") ||
		fail "modules.dep has no vxlan line with udp_tunnel"
}


test_modules_resolve_deps_softdeps_and_aliases() {
	mk_setup || return 1
	make_fake_kmoddir "$T/kmods/9.9.9-fake"
	mk --kmoddir "$T/kmods/9.9.9-fake" --module-list "$T/kmods/9.9.9-fake/list" \
		-v -o "$T/rescue.img" 2>"$T/verbose" || { cat "$T/verbose"; return 1; }
	list_image "$T/rescue.img" >"$T/list"
	shipped_modules "$T/list" 9.9.9-fake | tr '\n' ' ' >"$T/modules"
	[ "$(cat "$T/modules")" = "alpha beta gamma_x hash_impl " ] ||
		{ fail "shipped: $(cat "$T/modules"), expected alpha beta gamma_x hash_impl"; return 1; }
	mkdir "$T/x" && (cd "$T/x" && bsdcpio -id --quiet <"$T/rescue.img") || return 1
	local d=$T/x/lib/modules/9.9.9-fake
	[ "$(cat "$d/modules.softdep")" = 'softdep beta pre: crypto-hash post: gamma-x' ] &&
	! grep -q unused "$d/modules.alias" "$d/modules.dep" &&
	grep -qx 'alias crypto-hash hash_impl' "$d/modules.alias" ||
		{ fail "pruned indexes:" "$(cat "$d"/modules.*)"; return 1; }
	grep -q 'module builtin-one .*built into 9.9.9-fake' "$T/verbose" &&
	grep -q 'module not_in_kernel .*not in 9.9.9-fake, skipped' "$T/verbose" &&
	grep -q 'module beta (dependency of alpha)' "$T/verbose" &&
	grep -q 'module hash_impl (soft dependency crypto-hash of beta)' "$T/verbose" ||
		fail "--verbose does not say why:" "$(grep module "$T/verbose")"
}

# ---- --include ----------------------------------------------------------

# Files and trees at their place; modes normalized (0755 or 0644) less
# what the source withholds from group and others (0750 stays 0750,
# 0600 stays 0600: a key file stays private in the image).
test_include_adds_files_and_trees() {
	mk_setup || return 1
	mkdir -p "$T/tree/sub"
	echo "motd" >"$T/motd"
	printf '#!/bin/sh\necho tool\n' >"$T/tree/tool" && chmod 0750 "$T/tree/tool"
	echo data >"$T/tree/sub/data" && chmod 0600 "$T/tree/sub/data"
	ln -s sub/data "$T/tree/link"
	echo "PS1='custom# '" >"$T/profile"
	mk --include "$T/motd:/etc/motd" --include "$T/tree:/opt/kit" \
		--include "$T/profile:/etc/profile" -o "$T/rescue.img" || return 1
	list_image "$T/rescue.img" >"$T/list"
	expect_entry "$T/list" -rw-r--r-- etc/motd &&
	expect_entry "$T/list" drwxr-xr-x opt &&
	expect_entry "$T/list" drwxr-xr-x opt/kit &&
	expect_entry "$T/list" -rwxr-x--- opt/kit/tool &&
	expect_entry "$T/list" drwxr-xr-x opt/kit/sub &&
	expect_entry "$T/list" -rw------- opt/kit/sub/data &&
	expect_entry "$T/list" lrwxrwxrwx opt/kit/link sub/data || return 1
	mkdir "$T/x" && (cd "$T/x" && bsdcpio -id --quiet <"$T/rescue.img") || return 1
	cmp "$T/x/opt/kit/tool" "$T/tree/tool" && cmp "$T/x/etc/motd" "$T/motd" &&
	cmp "$T/x/etc/profile" "$T/profile" ||
		fail "included contents differ (or /etc/profile was not replaced)"
}

# ---- who may read the image ---------------------------------------------

# An image that may hold a private key, an SSH host key or any --include
# (a LUKS key file for rd.luks.key=), is its owner's only whatever the
# umask (mkrescue(8), "FILES"); any other is 0644 less the umask.  An
# included file keeps what its source withholds from group and others.
test_image_with_a_key_or_an_include_is_written_0600() {
	mk_setup || return 1
	local mode
	ssh_user_and_host_keys || return 1
	echo secret >"$T/luks.key" && chmod 0600 "$T/luks.key" &&
	echo shared >"$T/group.txt" && chmod 0640 "$T/group.txt" &&
	printf '#!/bin/sh\n' >"$T/tool" && chmod 0755 "$T/tool" || return 1
	(umask 022 && mk -o "$T/plain.img") || return 1
	mode=$(stat -c %a "$T/plain.img")
	[ "$mode" = 644 ] || { fail "an image with no key is $mode with umask 022, not 644"; return 1; }
	(umask 027 && mk -o "$T/plain027.img") || return 1
	mode=$(stat -c %a "$T/plain027.img")
	[ "$mode" = 640 ] || { fail "an image with no key is $mode with umask 027, not 640"; return 1; }
	(umask 022 && mk_with_host_key "$T/ssh.img") || return 1
	mode=$(stat -c %a "$T/ssh.img")
	[ "$mode" = 600 ] || { fail "an image with an SSH host key is $mode with umask 022, not 600"; return 1; }
	(umask 022 && mk --include "$T/luks.key:/etc/luks.key" --include "$T/group.txt:/etc/group.txt" \
		--include "$T/tool:/bin/tool" -o "$T/include.img") || return 1
	mode=$(stat -c %a "$T/include.img")
	[ "$mode" = 600 ] || { fail "an image with --include is $mode with umask 022, not 600"; return 1; }
	! grep -q warning "$T/stderr" || { fail "a warning for a 0600 image:" "$(cat "$T/stderr")"; return 1; }
	list_image "$T/include.img" >"$T/list"
	expect_entry "$T/list" -rw------- etc/luks.key &&
	expect_entry "$T/list" -rw-r----- etc/group.txt &&
	expect_entry "$T/list" -rwxr-xr-x bin/tool
}

# ---- SSH: the host key ---------------------------------------------------

# The host key the image gives dropbear (rescue/init/net/network.c: -r).
ssh_host_key_of() { # img out
	bsdtar -xOf "$1" etc/dropbear/dropbear_ed25519_host_key >"$2" 2>/dev/null &&
		[ -s "$2" ] || fail "no etc/dropbear/dropbear_ed25519_host_key in $1"
}

# The SHA256 fingerprint of a host key, as dropbear reads it (empty if
# dropbear cannot read it).
dropbear_fingerprint() { # key
	dropbearkey -y -f "$1" 2>/dev/null | sed -n 's/^Fingerprint: //p'
}

# --ssh-host-key FILE gives the rescue system that identity (README): the
# image's host key is that file, byte for byte, root's only; mkrescue
# does not claim to have made one.
test_ssh_host_key_is_the_file_given() {
	mk_setup || return 1
	local fp
	ssh_user_and_host_keys || return 1
	mk_with_host_key "$T/rescue.img" || return 1
	list_image "$T/rescue.img" >"$T/list"
	expect_entry "$T/list" -rw------- etc/dropbear/dropbear_ed25519_host_key &&
	ssh_host_key_of "$T/rescue.img" "$T/in-image" || return 1
	cmp -s "$T/in-image" "$T/host_key" ||
		{ fail "the image's host key is not the file given to --ssh-host-key"; return 1; }
	fp=$(dropbear_fingerprint "$T/host_key")
	[ -n "$fp" ] && [ "$(dropbear_fingerprint "$T/in-image")" = "$fp" ] ||
		{ fail "the image's host key is not $fp"; return 1; }
	! grep -q 'SSH host key made' "$T/stderr" ||
		fail "a key was given, yet mkrescue says it made one:" "$(cat "$T/stderr")"
	note "host key given and in the image: ed25519 $fp"
}

# Without --ssh-host-key, the rescue system has one persistent identity
# (H3 of the security review): the first build makes the key at the
# default path (MKRESCUE_SSH_HOST_KEY here; a development build's default
# is in its build directory, never /etc), 0600, and prints its
# fingerprint; the next build reuses it, so both images hold the key of
# that fingerprint, and known_hosts stays valid across builds.
test_ssh_host_key_made_once_and_kept() {
	mk_setup || return 1
	local n printed inside key=$MKRESCUE_SSH_HOST_KEY
	ssh-keygen -q -t ed25519 -N '' -f "$T/user" || { fail "ssh-keygen failed"; return 1; }
	env -u MKRESCUE_SSH_HOST_KEY "$MKRESCUE" --help | grep -qF "$MK_BUILD/ssh_host_ed25519_key" ||
		{ fail "the compiled-in default host key is not in the build directory:" \
			"$(env -u MKRESCUE_SSH_HOST_KEY "$MKRESCUE" --help | grep -A2 ssh-host-key)"; return 1; }
	for n in 1 2; do
		(umask 022 && mk --ssh-authorized-keys "$T/user.pub" -o "$T/rescue$n.img" 2>"$T/stderr$n") ||
			{ fail "mkrescue --ssh-authorized-keys failed:" "$(cat "$T/stderr$n")"; return 1; }
	done
	printed=$(sed -n "s|^mkrescue: SSH host key made: $key, ed25519 \(SHA256:[^ ]*\) .*|\1|p" "$T/stderr1")
	[ -n "$printed" ] || { fail "the first build printed no fingerprint of $key:" "$(cat "$T/stderr1")"; return 1; }
	[ ! -s "$T/stderr2" ] || { fail "the second build said:" "$(cat "$T/stderr2")"; return 1; }
	[ "$(stat -c %a "$key")" = 600 ] || { fail "$key is $(stat -c %a "$key"), not 600"; return 1; }
	[ "$(dropbear_fingerprint "$key")" = "$printed" ] ||
		{ fail "$key is not the key of $printed"; return 1; }
	for n in 1 2; do
		ssh_host_key_of "$T/rescue$n.img" "$T/in-image$n" || return 1
		inside=$(dropbear_fingerprint "$T/in-image$n")
		[ "$inside" = "$printed" ] ||
			{ fail "image $n holds ${inside:-no key dropbear reads}, not $printed"; return 1; }
		[ "$(stat -c %a "$T/rescue$n.img")" = 600 ] || { fail "image $n is not 600"; return 1; }
	done
	mk -v --ssh-authorized-keys "$T/user.pub" -o "$T/rescue3.img" 2>"$T/stderr3" &&
	grep -qxF "mkrescue: SSH host key $key: $printed" "$T/stderr3" ||
		fail "-v does not give the key's fingerprint:" "$(grep 'SSH host' "$T/stderr3")"
	# A key others can read is no secret any more: said, in one line.
	chmod 0644 "$key" &&
	mk --ssh-authorized-keys "$T/user.pub" -o "$T/rescue4.img" 2>"$T/stderr4" || return 1
	grep -qx "mkrescue: warning: the SSH host key $key is readable by others (mode 0644): .*" "$T/stderr4" &&
	[ "$(wc -l <"$T/stderr4")" -eq 1 ] ||
		fail "no one-line warning for a host key others can read:" "$(cat "$T/stderr4")"
	note "one host key for both builds: ed25519 $printed"
}

# An OpenSSH private key (ssh-keygen's, /etc/ssh's) is one dropbear
# cannot load (L4 of the review: "String too long" at boot, no SSH): it
# goes into the image converted to dropbear's format, the same key.
test_ssh_host_key_in_openssh_format_is_converted() {
	mk_setup || return 1
	local want got
	ssh-keygen -q -t ed25519 -N '' -f "$T/user" &&
	ssh-keygen -q -t ed25519 -N '' -f "$T/openssh_key" ||
		{ fail "ssh-keygen failed"; return 1; }
	want=$(ssh-keygen -lf "$T/openssh_key" | awk '{ print $2 }')
	mk --ssh-authorized-keys "$T/user.pub" --ssh-host-key "$T/openssh_key" \
		-o "$T/rescue.img" 2>"$T/stderr" ||
		{ fail "mkrescue took no OpenSSH host key:" "$(cat "$T/stderr")"; return 1; }
	ssh_host_key_of "$T/rescue.img" "$T/in-image" || return 1
	got=$(dropbear_fingerprint "$T/in-image")
	[ "$got" = "$want" ] ||
		{ fail "the image's host key is ${got:-not a key dropbear reads}, not $want"; return 1; }
	[ ! -e "$MKRESCUE_SSH_HOST_KEY" ] || fail "a persistent key was made though one was given"
	note "OpenSSH's format, converted: ed25519 $want"
}

# ---- the toolkit cache ----------------------------------------------------

# The cached toolkit becomes the image's busybox: a cache file is used
# only if it and its directory belong to the user running mkrescue and
# no group or other may write them, and never through a link.  A file
# planted in the cache (an xz stream of another toolkit) is first shown
# to be used where it is trusted, then refused in each other case.
test_toolkit_cache_others_can_write_is_not_used() {
	mk_setup || return 1
	local cache case
	export MKRESCUE_CACHE=$T/cache
	mkdir -m 0700 "$T/cache" "$T/planted" && mkdir "$T/planted/bin" &&
	echo planted >"$T/planted/bin/planted" &&
	(cd "$T/planted" && echo bin/planted | bsdcpio -o --quiet --format newc) |
		xz --check=crc32 >"$T/planted.xz" || { fail "unable to make the planted toolkit"; return 1; }
	mk --no-e2fsck -o "$T/first.img" || return 1
	cache=$(ls "$T"/cache/toolkit-*.cpio.xz)
	[ -f "$cache" ] || { fail "no toolkit cache file in $T/cache:" "$(ls -l "$T/cache")"; return 1; }
	for case in trusted dir-0777 file-0666 file-of-nobody file-a-link; do
		chmod 0700 "$T/cache" && rm -f "$cache" && cp "$T/planted.xz" "$cache" &&
			chmod 0644 "$cache" || return 1
		case $case in
		dir-0777) chmod 0777 "$T/cache" ;;
		file-0666) chmod 0666 "$cache" ;;
		file-of-nobody) chown 65534 "$cache" ;;
		file-a-link) rm "$cache" && ln -s "$T/planted.xz" "$cache" ;;
		esac
		mk -v --no-e2fsck -o "$T/$case.img" 2>"$T/$case.log" ||
			{ fail "mkrescue with a $case cache failed:" "$(tail -3 "$T/$case.log")"; return 1; }
		bsdtar -xOf "$T/$case.img" etc/rescue-toolkit.cpio.xz >"$T/$case.xz" ||
			{ fail "no toolkit in the $case image"; return 1; }
		if [ "$case" = trusted ]; then
			cmp -s "$T/$case.xz" "$T/planted.xz" ||
				{ fail "the planted file in a trusted cache was not used: the test proves nothing"; return 1; }
		else
			! cmp -s "$T/$case.xz" "$T/planted.xz" ||
				{ fail "$case: the planted toolkit is in the image"; return 1; }
			bsdtar -xOf "$T/$case.xz" bin/busybox | cmp -s - "$BUSYBOX" ||
				{ fail "$case: the image's busybox is not $BUSYBOX"; return 1; }
		fi
	done
	grep -q "cache $T/cache is not used: others may write it (mode 0777)" "$T/dir-0777.log" &&
	grep -q "cache $cache is not used: others may write it (mode 0666)" "$T/file-0666.log" &&
	grep -q "cache $cache is not used: it belongs to uid 65534" "$T/file-of-nobody.log" ||
		fail "--verbose does not say why the cache was not used:" \
			"$(grep -h cache "$T"/dir-0777.log "$T"/file-*.log)"
}

# ---- cost ---------------------------------------------------------------

test_image_without_e2fsck_is_under_1_5_mb() {
	mk_setup || return 1
	local start end size size_no_fsck ms=999999
	# The time is a figure, not a check (make bench compares it with
	# dracut); the best of three: the first may read inputs from disk.
	for _ in 1 2 3; do
		start=$(date +%s%N)
		mk -o "$T/rescue.img" || return 1
		end=$(date +%s%N)
		[ $(((end - start) / 1000000)) -lt "$ms" ] && ms=$(((end - start) / 1000000))
	done
	size=$(stat -c %s "$T/rescue.img")
	mk --no-e2fsck -o "$T/no-e2fsck.img" || return 1
	size_no_fsck=$(stat -c %s "$T/no-e2fsck.img")
	note "no modules, zstd default level: $ms ms, $size bytes" \
		"($([ -x "$E2FSCK_STATIC" ] && echo "with" || echo "without") e2fsck);" \
		"--no-e2fsck: $size_no_fsck bytes"
	# The default level meets 1.5 MB for busybox and /init; e2fsck.static
	# (1.9 MB) does not fit in it at a level fast enough (mkrescue(8)).
	[ "$size_no_fsck" -lt 1500000 ] ||
		fail "--no-e2fsck image is $size_no_fsck bytes, over 1.5 MB"
}
