# SPDX-License-Identifier: GPL-2.0
# tests/groups/package.sh: the Debian package as a user meets it.  make deb builds
# it and lintian finds nothing; in a copy of the Debian 12 root of the
# debian tests (tests/tools/debian-root's debootstrap tree) it is installed with
# dpkg in a chroot, then linux-image-amd64: the kernel hook writes
# /boot/rescue.img-KVER.  grub-mkconfig (update-grub) runs on that root
# booted in QEMU, where grub-probe sees a real /dev/vda and udev's
# /dev/disk/by-uuid, as on a machine; the rescue entry it wrote is booted
# with its kernel, initrd and command line: rescue shell, exit, the Debian
# root.  Removing the package removes the images, reinstalling it writes
# them again, a hook whose mkrescue fails says why in one line and exits
# 0, removing the kernel removes its image.

PACKAGE_UUID=5e1d0b7a-3c2f-4d8e-9b6a-0f1e2d3c4b5a
PACKAGE_BUILD=$BUILD/tests/package-build
PACKAGE_CACHE=${DEBIAN_ROOT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/devtmpfs-rescue}
PACKAGE_TIMEOUT=${PACKAGE_TIMEOUT:-300}
# What the root gets beside ours: GRUB's tools, and two kernels (the
# rescue entries then go in a submenu, newest first).
PACKAGE_EXTRA="grub-common grub2-common linux-image-amd64 linux-image-6.12-amd64"

# package_deb [--force]: the .deb of this tree, built by make deb into
# $PACKAGE_BUILD, again when what it is built from changed (or with
# --force); under a lock, since the group's tests may run side by side.
package_deb() {
	local deb key
	key=$(cd "$TOP" && tar -c --sort=name --mtime=@0 --owner=0 --group=0 \
		--exclude=debian/build Makefile rescue dracut-module debian packaging | sha256sum | cut -c1-16)
	mkdir -p "$PACKAGE_BUILD"
	(
		flock 9
		if [ "${1:-}" = --force ] || [ "$(cat "$PACKAGE_BUILD/key" 2>/dev/null)" != "$key" ]; then
			rm -rf "$PACKAGE_BUILD/deb" "$PACKAGE_BUILD/key"
			make -s -C "$TOP" BUILD="$PACKAGE_BUILD" deb >"$T/make-deb.log" 2>&1 ||
				{ fail "make deb failed:" "$(tail -n 15 "$T/make-deb.log")"; exit 1; }
			echo "$key" >"$PACKAGE_BUILD/key"
		fi
	) 9>"$PACKAGE_BUILD.lock" || return 1
	deb=$(compgen -G "$PACKAGE_BUILD/deb/devtmpfs-rescue_*_amd64.deb" | head -n1)
	[ -n "$deb" ] || { fail "make deb wrote no devtmpfs-rescue .deb in $PACKAGE_BUILD/deb"; return 1; }
	echo "$deb"
}

test_make_deb_builds_a_lintian_clean_package() {
	local deb
	deb=$(package_deb --force) || return 1
	note "make deb: $(basename "$deb"), $(stat -c %s "$deb") bytes"
	dpkg-deb -c "$deb" >"$T/contents" || { fail "dpkg-deb cannot read $deb"; return 1; }
	local f
	for f in ./usr/sbin/mkrescue ./usr/sbin/update-rescue-images \
		./usr/lib/devtmpfs-rescue/rescue-init ./usr/share/devtmpfs-rescue/modules.list \
		./etc/kernel/postinst.d/yy-devtmpfs-rescue ./etc/kernel/postrm.d/yy-devtmpfs-rescue \
		./etc/grub.d/42_devtmpfs-rescue ./etc/devtmpfs-rescue/rescue.conf \
		./usr/lib/kernel/install.d/60-devtmpfs-rescue.install \
		./usr/lib/dracut/modules.d/99devtmpfs-rescue/module-setup.sh \
		./usr/share/man/man8/update-rescue-images.8.gz \
		./usr/sbin/mkrescue-media ./usr/lib/devtmpfs-rescue/media/iso.sh \
		./usr/share/man/man8/mkrescue-media.8.gz; do
		grep -q " $f\$" "$T/contents" || fail "$f is not in $(basename "$deb")"
	done
	# lintian must run and say it is content: a missing or crashing
	# lintian, or one that exits non-zero (1: it found errors), fails,
	# and so does any E: or W: line it prints.
	command -v lintian >/dev/null || { fail "lintian is not installed (make deps)"; return 1; }
	local status=0
	lintian "$deb" >"$T/lintian.out" 2>&1 || status=$?
	if grep -Eq '^[EW]: ' "$T/lintian.out"; then
		fail "lintian reports errors or warnings:" "$(grep -E '^[EW]: ' "$T/lintian.out")"
		return 1
	fi
	if [ "$status" -ne 0 ]; then
		fail "lintian $(basename "$deb") exited $status:" "$(tail -n 20 "$T/lintian.out")"
		return 1
	fi
}

# The .debs of PACKAGES... not in the root whose dpkg status is STATUS,
# with their dependencies, as apt resolves them from this host's
# archives (the root's debootstrap mirror is one of them), downloaded
# once into the shared cache: their file names carry their versions.
# Prints their paths; a local .deb among PACKAGES is left out.
package_closure() { # status packages...
	local status=$1 dir=$PACKAGE_CACHE/package-debs name ver arch f
	shift
	set -- -q -y --no-install-recommends -o Dir::State::status="$status" \
		-o Dir::State::extended_states=/dev/null -o Dir::Cache::archives="$dir" \
		install "$@"
	mkdir -p "$dir/partial"
	(
		flock 9
		apt-get --download-only "$@" >"$T/apt.log" 2>&1
	) 9>"$dir.lock" || { fail "apt-get --download-only failed:" "$(tail -n5 "$T/apt.log")"; return 1; }
	apt-get -s "$@" >"$T/apt-s.log" 2>&1 ||
		{ fail "apt-get -s failed:" "$(tail -n5 "$T/apt-s.log")"; return 1; }
	sed -n 's/^Inst \([^ ]*\) (\([^ ]*\) .*\[\([^]]*\)\])$/\1 \2 \3/p' "$T/apt-s.log" >"$T/apt.inst"
	while read -r name ver arch; do
		[ "$name" != devtmpfs-rescue ] || continue
		f=$dir/${name}_${ver/:/%3a}_$arch.deb
		[ -e "$f" ] || { fail "apt downloaded no $f"; return 1; }
		echo "$f"
	done <"$T/apt.inst"
}

# The .deb of PACKAGE in this host's archives, downloaded once into the
# shared cache (it may be installed in the root already: package_closure
# would leave it out).
package_download() { # package
	local dir=$PACKAGE_CACHE/package-debs f
	mkdir -p "$dir"
	(
		flock 9
		cd "$dir" && apt-get download "$1" >"$T/apt-download.log" 2>&1
	) 9>"$dir.lock" || { fail "apt-get download $1 failed:" "$(tail -n5 "$T/apt-download.log")"; return 1; }
	# shellcheck disable=SC2012 # the newest by time; the names are Debian's, without blanks
	f=$(ls -t "$dir/$1"_*.deb 2>/dev/null | head -n1)
	[ -n "$f" ] || { fail "apt-get download $1 left no .deb in $dir"; return 1; }
	echo "$f"
}

# Mounts in the root for dpkg's scripts; chroot_umount always runs (the
# test's EXIT trap), so that nothing stays mounted under $T.
chroot_mount() { # tree
	mount -t proc proc "$1/proc" && mount -t sysfs -o ro sysfs "$1/sys" ||
		{ fail "unable to mount proc and sysfs in $1"; return 1; }
}

chroot_umount() { # tree
	local m
	awk -v t="$1/" 'index($2, t) == 1 { print $2 }' /proc/mounts | sort -r | while read -r m; do
		umount "$m" 2>/dev/null || umount -l "$m"
	done
}

# in_root TREE LOG COMMAND...: run in the chroot, output to LOG.
in_root() {
	local tree=$1 log=$2
	shift 2
	chroot "$tree" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8 "$@" >"$log" 2>&1
}

# dpkg -i FILES... in the root: the files are copied in, then removed.
root_dpkg_i() { # tree log files...
	local tree=$1 log=$2 f
	shift 2
	mkdir -p "$tree/tmp/debs"
	for f in "$@"; do cp "$f" "$tree/tmp/debs/" || return 1; done
	# A configuration file the test wrote stays, without a question.
	in_root "$tree" "$log" sh -c 'dpkg -i --force-confold /tmp/debs/*.deb'
	local status=$?
	rm -rf "$tree/tmp/debs"
	[ "$status" -eq 0 ] || { fail "dpkg -i in the root failed:" "$(tail -n 15 "$log")"; return 1; }
}

# package_ran_update_grub LOG WHAT: the maintainer script's log shows
# that update-grub ran: either its start and end, or the script's line
# naming its failure ("devtmpfs-rescue: update-grub failed: WHAT"),
# which the script prints only when update-grub ran and failed.
package_ran_update_grub() {
	grep -q '^Generating grub configuration file' "$1" && grep -q '^done$' "$1" && return 0
	grep -qF "devtmpfs-rescue: update-grub failed: $2" "$1" ||
		{ fail "the package's script ran no update-grub with a grub.cfg there, or did not name its failure:" \
			"$(cat "$1")"; return 1; }
}

# The menu entry titled TITLE in a grub.cfg: "KERNEL INITRD ARGS...".
grub_entry() { # cfg title
	awk -v t="$2" '
		index($0, "menuentry '\''" t "'\''") { inside = 1; next }
		inside && $1 == "linux" { k = $2; $1 = ""; $2 = ""; sub(/^ +/, ""); args = $0 }
		inside && $1 == "initrd" { i = $2 }
		inside && $1 == "}" { print k, i, args; exit }
	' "$1"
}

test_kernel_hooks_and_grub_entry_on_a_debian_root() {
	local deb img tree kver kver_new status debs_a debs_b cfg entry kernel initrd args
	deb=$(package_deb) || return 1
	img=$("$TOP/tests/tools/debian-root" 2>"$T/debian-root.log") ||
		{ fail "tests/tools/debian-root failed:" "$(tail -n5 "$T/debian-root.log")"; return 1; }
	# The cached tree the root image is made from; never written.
	[ -d "${img%-*}.tree" ] || { fail "no debootstrap tree ${img%-*}.tree beside $img"; return 1; }
	# Global: the EXIT trap runs after this function returned.
	PACKAGE_TREE=$T/tree
	tree=$PACKAGE_TREE
	cp -a "${img%-*}.tree" "$tree" || { fail "unable to copy ${img%-*}.tree"; return 1; }
	trap 'chroot_umount "$PACKAGE_TREE"' EXIT

	# What apt would install: ours with its Depends, then GRUB and the
	# kernel with theirs.
	debs_a=$(package_closure "$tree/var/lib/dpkg/status" "$deb") || return 1
	# shellcheck disable=SC2086 # PACKAGE_EXTRA is a list of package names
	debs_b=$(package_closure "$tree/var/lib/dpkg/status" "$deb" $PACKAGE_EXTRA) || return 1
	debs_b=$(comm -13 <(echo "$debs_a" | sort) <(echo "$debs_b" | sort))
	kver=$(echo "$debs_b" | sed -n 's|.*/linux-image-\([0-9][^_]*-amd64\)_.*|\1|p' | sort -V)
	kver_new=$(echo "$kver" | tail -n1)
	kver=$(echo "$kver" | head -n1)
	[ -n "$kver" ] && [ "$kver" != "$kver_new" ] ||
		{ fail "not two linux-image-KVER among the .debs of $PACKAGE_EXTRA: $kver"; return 1; }
	note "kernels $kver and $kver_new; $(echo "$debs_a" | wc -l) + $(echo "$debs_b" | wc -l) packages"

	chroot_mount "$tree" || return 1
	# shellcheck disable=SC2086 # the .deb paths have no blanks
	root_dpkg_i "$tree" "$T/dpkg-a.log" $debs_a "$deb" || return 1
	ls "$tree"/boot/rescue.img-* >/dev/null 2>&1 &&
		fail "rescue images before any kernel:" "$(ls "$tree"/boot/rescue.img-*)"
	# A serial console, as on a server: GRUB_CMDLINE_LINUX must reach
	# the rescue entry.  update-grub writes the menu in the booted root.
	mkdir -p "$tree/boot/grub"
	# GRUB's own menu on the serial line too, where the test picks it.
	printf '%s\n' 'GRUB_CMDLINE_LINUX="console=ttyS0"' 'GRUB_TERMINAL="console serial"' \
		'GRUB_SERIAL_COMMAND="serial --unit=0 --speed=115200"' >"$tree/etc/default/grub"
	# update-grub takes a minute under TCG: the generators that have
	# nothing to find here (Xen, other systems, firmware) are off below,
	# once GRUB is installed.  GRUB's recovery entries stay on: the
	# rescue entries follow GRUB_DISABLE_RECOVERY (review L5).
	# initramfs-tools comes with the kernel; its image is not under test
	# and takes minutes with every module: the modules listed (none),
	# and no second run from its dpkg trigger.
	mkdir -p "$tree/etc/initramfs-tools/conf.d"
	echo MODULES=list >"$tree/etc/initramfs-tools/conf.d/package-test.conf"
	mkdir -p "$tree/etc/initramfs-tools"
	echo update_initramfs=no >"$tree/etc/initramfs-tools/update-initramfs.conf"
	# The newer kernel apart: it pre-depends on linux-base, which a
	# single dpkg -i of everything would only have unpacked.
	# shellcheck disable=SC2046 # the .deb paths have no blanks
	root_dpkg_i "$tree" "$T/dpkg-b.log" $(echo "$debs_b" | grep -v "/linux-image-6\.12") &&
	root_dpkg_i "$tree" "$T/dpkg-b2.log" $(echo "$debs_b" | grep "/linux-image-6\.12") ||
		return 1
	cat "$T/dpkg-b2.log" >>"$T/dpkg-b.log"
	chmod -x "$tree"/etc/grub.d/{20_linux_xen,30_os-prober,30_uefi-firmware} 2>/dev/null
	local k
	for k in "$kver" "$kver_new"; do
		[ -s "$tree/boot/rescue.img-$k" ] ||
			{ fail "installing linux-image-$k wrote no /boot/rescue.img-$k:" \
				"$(grep -i rescue "$T/dpkg-b.log")"; return 1; }
		# 6.12's version has a "+": matched as text, not as a regex.
		grep -qxF "update-rescue-images: wrote /boot/rescue.img-$k" "$T/dpkg-b.log" ||
			{ fail "no 'update-rescue-images: wrote /boot/rescue.img-$k' from the hook"; return 1; }
	done
	bsdtar -tf "$tree/boot/rescue.img-$kver" | grep -q "^lib/modules/$kver/modules.dep$" ||
		{ fail "/boot/rescue.img-$kver holds no modules of $kver"; return 1; }

	# update-grub once, from the root's own systemd; rescue-report (the
	# debian root's) then says how the boot went and powers off.
	cat >"$tree/etc/systemd/system/package-update-grub.service" <<'EOF'
[Unit]
Description=update-grub for devtmpfs-rescue's package test
ConditionPathExists=!/boot/grub/grub.cfg
Before=rescue-report.service
[Service]
Type=oneshot
ExecStart=/usr/sbin/update-grub
StandardOutput=journal+console
StandardError=journal+console
[Install]
WantedBy=multi-user.target
EOF
	ln -s /etc/systemd/system/package-update-grub.service \
		"$tree/etc/systemd/system/multi-user.target.wants/"
	cp "$tree/boot/vmlinuz-$kver" "$tree/boot/rescue.img-$kver" "$T/" || return 1
	chroot_umount "$tree"
	local mb
	mb=$(du -sm "$tree" | cut -f1)
	mke2fs -q -F -t ext4 -U "$PACKAGE_UUID" -L debian-root -d "$tree" "$T/root.img" \
		"$((mb + mb / 4 + 64))M" || { fail "mke2fs of $T/root.img failed"; return 1; }

	# First boot: the hook's image as the initramfs of a normal boot.
	VM_TIMEOUT=$PACKAGE_TIMEOUT boot_vm "$T/boot1.log" --kernel "$T/vmlinuz-$kver" \
		--initrd "$T/rescue.img-$kver" --mem 1G --append "root=UUID=$PACKAGE_UUID" \
		--disk "virtio-blk:$T/root.img" || return 1
	expect_field "$T/boot1.log" debian state running &&
	expect_field "$T/boot1.log" debian failed none || return 1
	cfg=$T/grub.cfg
	debugfs -R "cat /boot/grub/grub.cfg" "$T/root.img" >"$cfg" 2>"$T/debugfs.err"
	grep -q '^menuentry ' "$cfg" ||
		{ fail "update-grub wrote no /boot/grub/grub.cfg in the booted root:" \
			"$(cat "$T/debugfs.err")"; show_log "$T/boot1.log"; return 1; }
	entry=$(grub_entry "$cfg" "Rescue shell (devtmpfs-rescue), Linux $kver")
	[ -n "$entry" ] ||
		{ fail "no 'Rescue shell (devtmpfs-rescue), Linux $kver' entry in grub.cfg:" \
			"$(grep -E "^ *(menuentry|submenu)" "$cfg")"; return 1; }
	read -r kernel initrd args <<<"$entry"
	note "grub entry: linux $kernel $args; initrd $initrd"
	# Two kernels with an image: a submenu, the newest kernel first.
	grep -q "^submenu 'Rescue shell (devtmpfs-rescue)' " "$cfg" ||
		{ fail "no 'Rescue shell (devtmpfs-rescue)' submenu for two kernels:" \
			"$(grep -E "^ *(menuentry|submenu)" "$cfg")"; return 1; }
	[ "$(sed -n "s/^\tmenuentry 'Rescue shell (devtmpfs-rescue), Linux \([^']*\)'.*/\1/p" "$cfg" |
		paste -sd' ')" = "$kver_new $kver" ] ||
		{ fail "the submenu does not hold $kver_new then $kver:" \
			"$(grep -E "^ *(menuentry|submenu)" "$cfg")"; return 1; }
	local want
	for want in "root=UUID=$PACKAGE_UUID" rescue console=ttyS0; do
		case " $args " in
		*" $want "*) ;;
		*) fail "no $want on the rescue entry's command line: $args"; return 1 ;;
		esac
	done

	# Second boot: that entry's files, read from the root image as GRUB
	# would, and its command line.
	debugfs -R "dump $kernel $T/entry-kernel" "$T/root.img" 2>/dev/null &&
	debugfs -R "dump $initrd $T/entry-initrd" "$T/root.img" 2>/dev/null
	[ -s "$T/entry-kernel" ] && [ -s "$T/entry-initrd" ] ||
		{ fail "the entry's $kernel or $initrd is not in the root image"; return 1; }
	# The entry's "rescue" reaches the root's systemd too: its rescue
	# target's sulogin is where this boot ends (the first boot showed the
	# root reaching multi-user with this same image).
	printf '%s\n' "want $RESCUE_PROMPT" "send exit" \
		'want Welcome to .*Debian GNU/Linux' \
		'want Press Enter to continue' 'stop' >"$T/steps"
	"$TOP/tests/tools/vm-steps.exp" "$T/boot2.log" "$PACKAGE_TIMEOUT" "$T/steps" \
		--kernel "$T/entry-kernel" --initrd "$T/entry-initrd" --mem 1G \
		--append "$args" --disk "virtio-blk:$T/root.img" 2>"$T/steps.err" ||
		{ fail "the rescue entry's boot: $(cat "$T/steps.err")"; show_log "$T/boot2.log" 40; return 1; }
	expect_log "$T/boot2.log" 'rescue: starting the rescue shell' "rescue-init's shell" &&
	expect_log "$T/boot2.log" 'rescue: exec /sbin/init on /dev/vda' "the boot going on after exit" ||
		return 1

	# Then GRUB itself: the rescue entry picked from the root's menu over
	# the serial line, under BIOS and under UEFI with Secure Boot.
	grub_menu_boots "$cfg" "$kver" bios &&
	grub_menu_boots "$cfg" "$kver" uefi-secure || return 1

	# The package's own scripts, then the kernel's removal.  With a
	# grub.cfg, removing and installing the package run update-grub: in
	# this chroot grub-probe finds no device for /, so update-grub
	# fails there, and the scripts must say so and go on (the menu it
	# writes on a machine is checked above, in the booted root).
	chroot_mount "$tree" || return 1
	mkdir -p "$tree/boot/grub" && echo '# the package test' >"$tree/boot/grub/grub.cfg"
	in_root "$tree" "$T/dpkg-r.log" dpkg -r devtmpfs-rescue ||
		{ fail "dpkg -r devtmpfs-rescue failed:" "$(tail -n5 "$T/dpkg-r.log")"; return 1; }
	package_ran_update_grub "$T/dpkg-r.log" "the boot menu may still list rescue entries" ||
		return 1
	[ ! -e "$tree/boot/rescue.img-$kver" ] ||
		{ fail "removing devtmpfs-rescue left /boot/rescue.img-$kver"; return 1; }
	root_dpkg_i "$tree" "$T/dpkg-reinstall.log" "$deb" || return 1
	package_ran_update_grub "$T/dpkg-reinstall.log" "no rescue entry in the boot menu yet" ||
		return 1
	rm -f "$tree/boot/grub/grub.cfg"
	[ -s "$tree/boot/rescue.img-$kver" ] ||
		{ fail "installing devtmpfs-rescue on a root with $kver wrote no image"; return 1; }
	# A hook that cannot write the image says so in one line and lets
	# the kernel's installation go on; the old image stays.
	echo COMPRESS=lz4 >>"$tree/etc/devtmpfs-rescue/rescue.conf"
	in_root "$tree" "$T/hook.log" env DEB_MAINT_PARAMS=configure \
		/etc/kernel/postinst.d/yy-devtmpfs-rescue "$kver" "/boot/vmlinuz-$kver" ||
		fail "the kernel hook failed when mkrescue did:" "$(cat "$T/hook.log")"
	[ "$(wc -l <"$T/hook.log")" -eq 1 ] &&
		grep -q "^update-rescue-images: no rescue image for Linux $kver: .*lz4" "$T/hook.log" ||
		fail "not one line naming the kernel and the reason:" "$(cat "$T/hook.log")"
	[ -s "$tree/boot/rescue.img-$kver" ] || fail "a failed hook removed /boot/rescue.img-$kver"
	in_root "$tree" "$T/dpkg-purge.log" dpkg --purge linux-image-amd64 "linux-image-$kver"
	status=$?
	[ "$status" -eq 0 ] ||
		{ fail "dpkg --purge linux-image-$kver failed:" "$(tail -n5 "$T/dpkg-purge.log")"; return 1; }
	[ ! -e "$tree/boot/rescue.img-$kver" ] ||
		{ fail "removing linux-image-$kver left /boot/rescue.img-$kver"; return 1; }
	chroot_umount "$tree"
	rm -rf "$tree" "$T/root.img"
}

# GRUB set up as grub-install sets it up, from Debian's packages, on a
# boot disk of its own in front of the root (GRUB never writes to it):
# grub_bios_disk UUID OUT: boot.img in the MBR, core.img from sector 1,
# its blocklist's length set as grub-bios-setup sets it (diskboot.img
# reads from sector 2 by default); the core finds the root by UUID and
# reads its /boot/grub/grub.cfg, as the core grub-install embeds does.
grub_bios_disk() {
	local core=$T/core.img sectors
	# shellcheck disable=SC2016 # $root and $prefix are GRUB's
	printf '%s\n' "search --no-floppy --fs-uuid --set=root $1" \
		'set prefix=($root)/boot/grub' 'configfile $prefix/grub.cfg' >"$T/core.cfg"
	grub-mkimage -O i386-pc -p /boot/grub -c "$T/core.cfg" -o "$core" biosdisk \
		part_msdos part_gpt ext2 search search_fs_uuid configfile normal linux \
		echo test serial terminal gzio loadenv ||
		{ fail "grub-mkimage failed"; return 1; }
	rm -f "$2" && truncate -s 1M "$2"
	dd if=/usr/lib/grub/i386-pc/boot.img of="$2" bs=440 count=1 conv=notrunc 2>/dev/null
	printf '\125\252' | dd of="$2" bs=1 seek=510 conv=notrunc 2>/dev/null
	dd if="$core" of="$2" bs=512 seek=1 conv=notrunc 2>/dev/null
	sectors=$((($(stat -c %s "$core") + 511) / 512 - 1))
	printf '%b' "$(printf '\\0%03o\\0%03o' $((sectors & 255)) $((sectors >> 8)))" |
		dd of="$2" bs=1 seek=$((512 + 0x1fc)) conv=notrunc 2>/dev/null
}

# grub_esp UUID OUT: an EFI System Partition as Debian's grub-install
# --removable writes it: shim as BOOTX64.EFI, the signed GRUB beside it,
# and in /EFI/debian the grub.cfg that finds the root by UUID.
grub_esp() {
	local esp=$T/esp
	mkdir -p "$esp/EFI/BOOT" "$esp/EFI/debian"
	cp /usr/lib/shim/shimx64.efi.signed "$esp/EFI/BOOT/BOOTX64.EFI" &&
	cp /usr/lib/grub/x86_64-efi-signed/grubx64.efi.signed "$esp/EFI/BOOT/grubx64.efi" ||
		{ fail "no shim-signed or grub-efi-amd64-signed (make deps)"; return 1; }
	# shellcheck disable=SC2016 # $prefix is GRUB's
	printf '%s\n' "search.fs_uuid $1 root" "set prefix=(\$root)'/boot/grub'" \
		'configfile $prefix/grub.cfg' >"$esp/EFI/debian/grub.cfg"
	rm -f "$2"
	mkfs.fat -C -n ESP "$2" 8192 >/dev/null && MTOOLS_SKIP_CHECK=1 mcopy -s -i "$2" "$esp/EFI" ::/ ||
		{ fail "unable to make the ESP image $2"; return 1; }
}

# grub_menu_boots CFG KVER FIRMWARE: GRUB on its boot disk shows the
# root's menu (CFG); the test goes down to the "Rescue shell
# (devtmpfs-rescue)" submenu, into it, down to KVER's entry (the
# submenu lists the newest kernel first), and boots it: rescue-init's
# shell, with the entry's command line.
grub_menu_boots() {
	local cfg=$1 kver=$2 fw=$3 disk=$T/grub-$3.img index down='' i pos
	case $fw in
	bios) grub_bios_disk "$PACKAGE_UUID" "$disk" ;;
	*) grub_esp "$PACKAGE_UUID" "$disk" ;;
	esac || return 1
	index=$(grep -E '^(menuentry|submenu) ' "$cfg" |
		grep -n "^submenu 'Rescue shell (devtmpfs-rescue)'" | cut -d: -f1)
	pos=$(sed -n "s/^\tmenuentry 'Rescue shell (devtmpfs-rescue), Linux \([^']*\)'.*/\1/p" "$cfg" |
		grep -nxF "$kver" | cut -d: -f1)
	[ -n "$index" ] && [ -n "$pos" ] ||
		{ fail "no rescue submenu with $kver in grub.cfg"; return 1; }
	for ((i = 1; i < index; i++)); do down+=$'\e[B'; done
	{
		echo 'want Rescue shell \(devtmpfs-rescue\)'
		echo "send $down"
		echo "want Rescue shell \\(devtmpfs-rescue\\), Linux $kver"
		down=''
		for ((i = 1; i < pos; i++)); do down+=$'\e[B'; done
		echo "send $down"
		echo "want $RESCUE_PROMPT"
		echo stop
	} >"$T/grub-steps"
	"$TOP/tests/tools/vm-steps.exp" "$T/grub-$fw.log" "$PACKAGE_TIMEOUT" "$T/grub-steps" \
		--firmware "$fw" --boot "disk:$disk" --mem 1G --disk "virtio-blk:$T/root.img" \
		2>"$T/grub-steps.err" ||
		{ fail "GRUB under $fw: $(cat "$T/grub-steps.err")"; show_log "$T/grub-$fw.log" 40; return 1; }
	expect_log "$T/grub-$fw.log" "Command line: BOOT_IMAGE=/boot/vmlinuz-$kver .*root=UUID=$PACKAGE_UUID .*rescue" \
		"the rescue entry's command line, from GRUB under $fw" &&
	expect_log "$T/grub-$fw.log" 'rescue: starting the rescue shell' "rescue-init's shell under $fw" ||
		return 1
	[ "$fw" = bios ] ||
		expect_log "$T/grub-$fw.log" 'Secure boot enabled' "the kernel seeing Secure Boot" ||
		return 1
	note "GRUB under $fw: the rescue entry of $kver chosen from the root's menu, the rescue shell"
}

# rescue_img_lists IMG REGEX: the image's file list has a match; an
# image that cannot be listed, or that has no /init, fails the test (a
# check that a file is absent must not pass on an unreadable image).
rescue_img_lists() {
	local list
	list=$(bsdtar -tf "$1" 2>&1) && grep -qx init <<<"$list" ||
		{ fail "unable to list $1:" "$(tail -n3 <<<"$list")"; return 2; }
	grep -Eq -- "$2" <<<"$list"
}

# What rescue.conf, update-rescue-images' options and the systemd
# kernel-install plugin do, in a chroot of the Debian root with the
# package and a kernel installed: no boot, every claim of
# update-rescue-images(8) and rescue.conf's comments checked on the
# image written.
test_rescue_conf_update_rescue_images_and_kernel_install() {
	local deb img tree kver debs conf update=/usr/sbin/update-rescue-images
	deb=$(package_deb) || return 1
	img=$("$TOP/tests/tools/debian-root" 2>"$T/debian-root.log") ||
		{ fail "tests/tools/debian-root failed:" "$(tail -n5 "$T/debian-root.log")"; return 1; }
	PACKAGE_TREE=$T/tree
	tree=$PACKAGE_TREE
	cp -a "${img%-*}.tree" "$tree" || { fail "unable to copy ${img%-*}.tree"; return 1; }
	trap 'chroot_umount "$PACKAGE_TREE"' EXIT
	debs=$(package_closure "$tree/var/lib/dpkg/status" "$deb" linux-image-amd64) || return 1
	kver=$(echo "$debs" | sed -n 's|.*/linux-image-\([0-9][^_]*-amd64\)_.*|\1|p')
	[ -n "$kver" ] || { fail "no linux-image-KVER among the .debs of linux-image-amd64"; return 1; }
	mkdir -p "$tree/etc/initramfs-tools/conf.d"
	echo MODULES=list >"$tree/etc/initramfs-tools/conf.d/package-test.conf"
	echo update_initramfs=no >"$tree/etc/initramfs-tools/update-initramfs.conf"
	chroot_mount "$tree" || return 1
	# shellcheck disable=SC2086 # the .deb paths have no blanks
	root_dpkg_i "$tree" "$T/dpkg.log" $debs "$deb" || return 1
	img=$tree/boot/rescue.img-$kver
	[ -s "$img" ] || { fail "installing the package and $kver wrote no $img"; return 1; }
	# The defaults: zstd, e2fsck in, isofs (a listed module) in.
	[ "$(od -An -tx1 -N4 "$img" | tr -d ' ')" = 28b52ffd ] ||
		fail "the default image is not zstd: $(od -An -tx1 -N4 "$img")"
	rescue_img_lists "$img" '^sbin/fsck\.ext4$' || fail "the default image has no sbin/fsck.ext4 (e2fsck)"
	rescue_img_lists "$img" "^lib/modules/$kver/.*/isofs\.ko" || fail "the default image has no isofs.ko"
	rescue_img_lists "$img" '^usr/sbin/badblocks$' ||
		fail "the default image has no badblocks (the disk tools installed)"

	# -q: the image written, nothing said; -d: removed, with its line.
	rm -f "$img"
	in_root "$tree" "$T/q.log" "$update" -q "$kver" || fail "update-rescue-images -q $kver failed:" "$(cat "$T/q.log")"
	[ -s "$img" ] || fail "update-rescue-images -q $kver wrote no image"
	[ ! -s "$T/q.log" ] || fail "update-rescue-images -q said:" "$(cat "$T/q.log")"
	in_root "$tree" "$T/d.log" "$update" -d "$kver" || fail "update-rescue-images -d $kver failed:" "$(cat "$T/d.log")"
	[ ! -e "$img" ] || fail "update-rescue-images -d $kver left $img"
	grep -qx "update-rescue-images: removed /boot/rescue.img-$kver" "$T/d.log" ||
		fail "update-rescue-images -d said:" "$(cat "$T/d.log")"
	in_root "$tree" "$T/q.log" "$update" "$kver" && in_root "$tree" "$T/dq.log" "$update" -d -q "$kver" ||
		fail "update-rescue-images, then -d -q, failed:" "$(cat "$T/q.log" "$T/dq.log")"
	[ ! -e "$img" ] && [ ! -s "$T/dq.log" ] || fail "update-rescue-images -d -q left $img or said:" "$(cat "$T/dq.log")"

	# rescue.conf: each option, on the image it writes.
	conf=$tree/etc/devtmpfs-rescue/rescue.conf
	echo 'rescue.conf of the package test' >"$tree/etc/package-test-include"
	cat >>"$conf" <<-'CONF'
	COMPRESS=gzip
	COMPRESS_LEVEL=1
	MODULES="udf nbd"
	INCLUDE="/etc/package-test-include:/etc/included-by-rescue-conf"
	DISK_TOOLS=no
	E2FSCK=no
	BOOTDIR=/boot/rescue-conf
	CONF
	mkdir -p "$tree/boot/rescue-conf"
	cp "$tree/boot/vmlinuz-$kver" "$tree/boot/rescue-conf/"
	in_root "$tree" "$T/conf.log" "$update" "$kver" ||
		{ fail "update-rescue-images with rescue.conf's options failed:" "$(cat "$T/conf.log")"; return 1; }
	img=$tree/boot/rescue-conf/rescue.img-$kver
	[ -s "$img" ] || { fail "BOOTDIR=/boot/rescue-conf: no $img:" "$(cat "$T/conf.log")"; return 1; }
	[ "$(od -An -tx1 -N2 "$img" | tr -d ' ')" = 1f8b ] || fail "COMPRESS=gzip: the image is not gzip"
	rescue_img_lists "$img" "^lib/modules/$kver/.*/udf\.ko" || fail "MODULES: no udf.ko in the image"
	rescue_img_lists "$img" "^lib/modules/$kver/.*/nbd\.ko" || fail "MODULES: no nbd.ko in the image"
	rescue_img_lists "$img" '^etc/included-by-rescue-conf$' || fail "INCLUDE: no etc/included-by-rescue-conf"
	rescue_img_lists "$img" '^sbin/fsck\.ext4$'
	[ $? -eq 1 ] || fail "E2FSCK=no: sbin/fsck.ext4 (e2fsck) is in the image"
	rescue_img_lists "$img" '^usr/sbin/badblocks$'
	[ $? -eq 1 ] || fail "DISK_TOOLS=no: usr/sbin/badblocks is in the image"
	# The level: gzip -9 of the same image is smaller than -1.
	local size1 size9
	size1=$(stat -c %s "$img")
	sed -i 's/^COMPRESS_LEVEL=1$/COMPRESS_LEVEL=9/' "$conf"
	in_root "$tree" "$T/conf9.log" "$update" -q "$kver" || fail "COMPRESS_LEVEL=9 failed:" "$(cat "$T/conf9.log")"
	size9=$(stat -c %s "$img")
	note "COMPRESS=gzip: level 1 $size1 B, level 9 $size9 B"
	[ "$size9" -lt "$size1" ] || fail "COMPRESS_LEVEL=9 ($size9 B) is not smaller than 1 ($size1 B)"
	# STORAGE=yes on a root without the storage tools: one line, why.
	echo STORAGE=yes >>"$conf"
	in_root "$tree" "$T/storage.log" "$update" "$kver" &&
		fail "STORAGE=yes without mdadm, cryptsetup, lvm installed succeeded"
	grep -q "^update-rescue-images: no rescue image for Linux $kver: " "$T/storage.log" ||
		fail "STORAGE=yes without the tools: not the line naming the kernel:" "$(cat "$T/storage.log")"
	# STORAGE=: yes, no and empty reach mkrescue as --storage,
	# --no-storage and neither (review M6: "no" used to be dropped).
	local wrapper=/usr/local/sbin/mkrescue-args
	cat >"$tree$wrapper" <<-'WRAP'
	#!/bin/sh
	echo "$*" >>/tmp/mkrescue-args
	exec /usr/sbin/mkrescue "$@"
	WRAP
	chmod 755 "$tree$wrapper"
	local storage
	for storage in yes no ''; do
		sed -i '/^STORAGE=/d' "$conf"
		echo "STORAGE=$storage" >>"$conf"
		rm -f "$tree/tmp/mkrescue-args"
		in_root "$tree" "$T/storage-args.log" env MKRESCUE=$wrapper "$update" "$kver"
		case $storage in
		yes) grep -q -- ' --storage' "$tree/tmp/mkrescue-args" ;;
		no) grep -q -- ' --no-storage' "$tree/tmp/mkrescue-args" ;;
		'') ! grep -q -- '-storage' "$tree/tmp/mkrescue-args" ;;
		esac || fail "STORAGE=$storage: mkrescue ran as:" "$(cat "$tree/tmp/mkrescue-args" 2>/dev/null)"
	done
	rm -f "$tree$wrapper" "$tree/tmp/mkrescue-args"
	# Back to the defaults for the plugin.
	sed -i '/^[A-Z_]*=/d' "$conf"

	# A /boot too small for the image (review M6): one line with the
	# figures, nothing written there, and the old image kept.
	mkdir -p "$tree/boot/small"
	mount -t tmpfs -o size=2m,mode=0755 package-test-small "$tree/boot/small" ||
		{ fail "unable to mount a 2 MB tmpfs on $tree/boot/small"; return 1; }
	echo 'the old image' >"$tree/boot/small/rescue.img-$kver"
	in_root "$tree" "$T/small.log" "$update" -b /boot/small "$kver" &&
		fail "update-rescue-images into a 2 MB /boot succeeded"
	grep -Eq "^update-rescue-images: no rescue image for Linux $kver: /boot/small has [0-9]+ KB free, the image needs [0-9]+ KB" "$T/small.log" ||
		fail "a /boot too small: not the line with the figures:" "$(cat "$T/small.log")"
	[ "$(cat "$tree/boot/small/rescue.img-$kver")" = 'the old image' ] &&
		[ "$(find "$tree/boot/small" -mindepth 1 -maxdepth 1 | wc -l)" -eq 1 ] ||
		fail "a /boot too small: its files changed:" "$(ls -la "$tree/boot/small")"
	note "a 2 MB /boot: $(sed -n 's/.*: \/boot\/small //p' "$T/small.log")"
	umount "$tree/boot/small"

	# GRUB_DISABLE_RECOVERY=true (the recovery entries off): no rescue
	# entry either, though /boot has images (review L5); the entries
	# themselves, with recovery on, are checked in the booted root.
	in_root "$tree" "$T/grub-norecovery.log" env GRUB_DISABLE_RECOVERY=true /etc/grub.d/42_devtmpfs-rescue ||
		fail "42_devtmpfs-rescue with GRUB_DISABLE_RECOVERY=true failed:" "$(cat "$T/grub-norecovery.log")"
	[ ! -s "$T/grub-norecovery.log" ] ||
		fail "42_devtmpfs-rescue wrote entries with GRUB_DISABLE_RECOVERY=true:" "$(cat "$T/grub-norecovery.log")"

	# The hooks' names order them after dkms and initramfs-tools and
	# before zz-update-grub (review M6), as run-parts runs them.
	local order
	order=$( (printf '%s\n' dkms zz-update-grub; ls "$tree/etc/kernel/postinst.d") | LC_ALL=C sort | tr '\n' ' ')
	case $order in
	"dkms initramfs-tools yy-devtmpfs-rescue zz-update-grub ") ;;
	*) fail "the kernel hooks run in the order: $order" ;;
	esac

	# The systemd kernel-install plugin: add writes the image, remove
	# removes it, and inside a Debian kernel hook it leaves them to the
	# hook (it would otherwise write the image twice).
	local plugin=/usr/lib/kernel/install.d/60-devtmpfs-rescue.install
	img=$tree/boot/rescue.img-$kver
	rm -f "$img"
	in_root "$tree" "$T/ki-add.log" "$plugin" add "$kver" /boot/entry "/boot/vmlinuz-$kver" ||
		fail "$plugin add failed:" "$(cat "$T/ki-add.log")"
	[ -s "$img" ] || fail "$plugin add $kver wrote no /boot/rescue.img-$kver:" "$(cat "$T/ki-add.log")"
	in_root "$tree" "$T/ki-remove.log" "$plugin" remove "$kver" /boot/entry ||
		fail "$plugin remove failed:" "$(cat "$T/ki-remove.log")"
	[ ! -e "$img" ] || fail "$plugin remove $kver left /boot/rescue.img-$kver"
	in_root "$tree" "$T/ki-deb.log" env DEB_MAINT_PARAMS=configure "$plugin" add "$kver" /boot/entry \
		"/boot/vmlinuz-$kver" || fail "$plugin add inside a Debian hook failed"
	[ ! -e "$img" ] || fail "$plugin wrote an image inside a Debian kernel hook (DEB_MAINT_PARAMS set)"

	# Who may read the images (review H1): the INCLUDE= image above is
	# root's only; so is any image update-rescue-images, the kernel hook
	# or the plugin writes, whatever the caller's umask (umask 077, as
	# under dracut), even one with no key in it.
	local mode
	mode=$(stat -c %a "$tree/boot/rescue-conf/rescue.img-$kver")
	[ "$mode" = 600 ] || fail "the INCLUDE= image is $mode, not 600"
	rm -f "$img"
	in_root "$tree" "$T/umask.log" sh -c "umask 022 && $update $kver" ||
		fail "update-rescue-images under umask 022 failed:" "$(cat "$T/umask.log")"
	mode=$(stat -c %a "$img")
	[ "$mode" = 600 ] || fail "update-rescue-images under umask 022 wrote $img $mode, not 600"
	rm -f "$img"
	in_root "$tree" "$T/hook.log" sh -c "umask 022 && /etc/kernel/postinst.d/yy-devtmpfs-rescue $kver /boot/vmlinuz-$kver" ||
		fail "the kernel hook failed:" "$(cat "$T/hook.log")"
	mode=$(stat -c %a "$img")
	[ "$mode" = 600 ] || fail "the kernel hook under umask 022 wrote $img $mode, not 600"
	rm -f "$img"
	in_root "$tree" "$T/ki-umask.log" sh -c "umask 022 && $plugin add $kver /boot/entry /boot/vmlinuz-$kver" ||
		fail "$plugin add failed:" "$(cat "$T/ki-umask.log")"
	mode=$(stat -c %a "$img")
	[ "$mode" = 600 ] || fail "$plugin under umask 022 wrote $img $mode, not 600"

	# SSH_AUTHORIZED_KEYS= (review H3): every kernel's image gets dropbear
	# and root's keys, with the rescue system's one host key, made in
	# /etc/devtmpfs-rescue the first time (0600, its fingerprint said)
	# and kept by the next run.
	local ssh_debs key=/etc/devtmpfs-rescue/ssh_host_ed25519_key fp n
	ssh_debs=$(package_closure "$tree/var/lib/dpkg/status" dropbear-bin) || return 1
	# shellcheck disable=SC2086 # the .deb paths have no blanks
	root_dpkg_i "$tree" "$T/dpkg-ssh.log" $ssh_debs || return 1
	ssh-keygen -q -t ed25519 -N '' -C package-test -f "$T/user" || { fail "ssh-keygen failed"; return 1; }
	cp "$T/user.pub" "$tree/etc/package-test-keys" &&
	echo 'SSH_AUTHORIZED_KEYS=/etc/package-test-keys' >>"$conf" || return 1
	[ ! -e "$tree$key" ] || { fail "$key exists before any image with SSH"; return 1; }
	for n in 1 2; do
		in_root "$tree" "$T/ssh$n.log" sh -c "umask 022 && $update $kver" ||
			{ fail "update-rescue-images with SSH_AUTHORIZED_KEYS= failed:" "$(cat "$T/ssh$n.log")"; return 1; }
		rescue_img_lists "$img" '^usr/sbin/dropbear$' || fail "SSH_AUTHORIZED_KEYS=: no dropbear in the image"
		rescue_img_lists "$img" '^root/\.ssh/authorized_keys$' || fail "SSH_AUTHORIZED_KEYS=: no authorized_keys"
		mode=$(stat -c %a "$img")
		[ "$mode" = 600 ] || fail "the image with SSH is $mode, not 600"
		bsdtar -xOf "$img" etc/dropbear/dropbear_ed25519_host_key >"$T/host_key$n" 2>/dev/null
		fp=$(dropbearkey -y -f "$tree$key" 2>/dev/null | sed -n 's/^Fingerprint: //p')
		[ -n "$fp" ] && [ "$(dropbearkey -y -f "$T/host_key$n" 2>/dev/null |
			sed -n 's/^Fingerprint: //p')" = "$fp" ] || fail "image $n does not hold $key"
	done
	mode=$(stat -c %a "$tree$key" 2>/dev/null)
	[ "$mode" = 600 ] || fail "$key is ${mode:-missing}, not 600"
	fp=$(dropbearkey -y -f "$tree$key" 2>/dev/null | sed -n 's/^Fingerprint: //p')
	grep -qF "mkrescue: SSH host key made: $key, ed25519 $fp" "$T/ssh1.log" ||
		fail "the first image with SSH did not say it made $key ($fp):" "$(cat "$T/ssh1.log")"
	! grep -q 'SSH host key made' "$T/ssh2.log" || fail "the second run made another key:" "$(cat "$T/ssh2.log")"
	note "SSH_AUTHORIZED_KEYS=: dropbear in $(basename "$img"), 0600, host key ed25519 $fp kept"

	# An update of a program the images copy rewrites them (review M7):
	# busybox-static installed again fires the package's dpkg trigger.
	local busybox_deb before
	busybox_deb=$(package_download busybox-static) || return 1
	before=$(stat -c %Y "$img")
	sleep 1
	root_dpkg_i "$tree" "$T/dpkg-busybox.log" "$busybox_deb" || return 1
	grep -q 'devtmpfs-rescue: /bin/busybox updated: rewriting the rescue images' "$T/dpkg-busybox.log" ||
		fail "installing busybox-static did not trigger update-rescue-images:" "$(tail -n 8 "$T/dpkg-busybox.log")"
	[ "$(stat -c %Y "$img")" -gt "$before" ] || fail "the busybox-static trigger left $img as it was"

	# Removing the package removes the images it wrote, and only those
	# (review L10): one made by hand under the same name stays.
	echo 'made by hand' >"$tree/boot/rescue.img-handmade"
	in_root "$tree" "$T/remove.log" dpkg -r devtmpfs-rescue ||
		{ fail "dpkg -r devtmpfs-rescue failed:" "$(tail -n5 "$T/remove.log")"; return 1; }
	[ ! -e "$img" ] || fail "removing the package left $img"
	[ -e "$tree/boot/rescue.img-handmade" ] || fail "removing the package removed /boot/rescue.img-handmade, made by hand"
	chroot_umount "$tree"
	rm -rf "$tree"
}
