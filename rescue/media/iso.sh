# SPDX-License-Identifier: GPL-2.0
# iso.sh: mkrescue-media iso.  One hybrid ISO 9660 image that boots as a
# CD and, written raw to a USB stick, as a disk; under legacy BIOS (GRUB
# for i386-pc, from an El Torito entry on a CD and from the MBR on a
# stick) and UEFI (Debian's shim and signed GRUB, in a FAT image that is
# both the El Torito EFI entry and, on a stick, the EFI System Partition
# of its GPT: one copy, appended after the ISO 9660 tree),
# so that Secure Boot takes the medium as it takes Debian's installer.
# The layout and the xorriso options are grub-mkrescue's and debian-cd's;
# they are spelled out here because grub-mkrescue cannot put the signed
# chain in its EFI image.  Sourced by mkrescue-media.
# shellcheck shell=bash
# shellcheck disable=SC2154 # prog work kernel initrd append epoch output: mkrescue-media's

iso_usage() {
	cat <<'USAGE'
options of iso:
  --timeout SECONDS    how long the menu waits for a key before it boots
                       its first entry (default 5)
  --volume-id NAME     the ISO's volume label (default DEVTMPFS_RESCUE)
The menu: the rescue boot (the command line of -a); the same with
rescue.ro=strict (no disk written, not even a journal replayed).  On a
BIOS machine it is on the serial port as well as the screen; the kernel
gets console=tty0 console=ttyS0 on both.
USAGE
}

# GRUB's modules for the BIOS core: everything the menu and the boot
# need is built in, as in Debian's signed EFI GRUB, so that the image
# needs no module folder.
ISO_BIOS_MODULES="biosdisk iso9660 part_msdos part_gpt normal configfile
	search search_label search_fs_file linux echo test true sleep read
	serial terminal regexp halt reboot ls cat"
ISO_SHIM=/usr/lib/shim/shimx64.efi.signed
ISO_MOK_MANAGER=/usr/lib/shim/mmx64.efi.signed
# The signed GRUB for CDs: it finds its medium by /.disk/info and
# reads /boot/grub/grub.cfg there (Debian's build-efi-images).
ISO_SIGNED_GRUB=/usr/lib/grub/x86_64-efi-signed/gcdx64.efi.signed

# iso_grub_cfg APPEND: the menu, for both firmwares.  EFI firmware
# carries its own console to the serial port; GRUB adds it on BIOS.
iso_grub_cfg() {
	local console="console=tty0 console=ttyS0,115200"
	cat <<CFG
# devtmpfs-rescue medium, written by mkrescue-media iso
if [ "\$grub_platform" = pc ]; then
	serial --unit=0 --speed=115200
	terminal_input console serial
	terminal_output console serial
fi
set timeout=$timeout
set default=0

menuentry "devtmpfs-rescue" --id rescue {
	linux /boot/vmlinuz $console $1
	initrd /boot/rescue.img
}
menuentry "devtmpfs-rescue, strict read-only (rescue.ro=strict)" --id strict {
	linux /boot/vmlinuz $console rescue.ro=strict $1
	initrd /boot/rescue.img
}
CFG
}

media_iso() {
	local timeout=5 volid=DEVTMPFS_RESCUE tree fat fat_kb fat_epoch
	while [ $# -gt 0 ]; do
		case "$1" in
		--timeout) timeout=${2:?}; shift 2 ;;
		--volume-id) volid=${2:?}; shift 2 ;;
		*) die "iso: unknown option '$1' (see $prog iso --help)" ;;
		esac
	done
	case "$timeout" in *[!0-9]* | '') die "iso: --timeout $timeout: not a number of seconds" ;; esac
	case "$volid" in *[!A-Z0-9_]* | '') die "iso: --volume-id $volid: want A-Z, 0-9 and _ (ISO 9660)" ;; esac
	need xorriso xorriso
	need grub-mkimage grub-common
	need mformat mtools
	need mkfs.fat dosfstools
	need_file /usr/lib/grub/i386-pc/boot_hybrid.img grub-pc-bin
	need_file "$ISO_SHIM" shim-signed
	need_file "$ISO_SIGNED_GRUB" grub-efi-amd64-signed

	tree=$work/tree
	mkdir -p "$tree/boot/grub" "$tree/.disk" "$work/efi/EFI/BOOT"
	cp "$kernel" "$tree/boot/vmlinuz"
	cp "$initrd" "$tree/boot/rescue.img"
	echo "devtmpfs-rescue" >"$tree/.disk/info"
	iso_grub_cfg "$append" >"$tree/boot/grub/grub.cfg"

	say "iso: GRUB for BIOS (El Torito and the stick's MBR)"
	# The core finds the medium by the file only it has, whatever the
	# firmware calls the drive (cd0 on a CD, hd0 on a stick).
	# shellcheck disable=SC2016 # $root is GRUB's
	printf '%s\n' 'search --no-floppy --file --set=root /.disk/info' \
		'set prefix=($root)/boot/grub' >"$work/early.cfg"
	# shellcheck disable=SC2086 # the module list is words
	grub-mkimage -O i386-pc-eltorito -p /boot/grub -c "$work/early.cfg" \
		-o "$tree/boot/grub/eltorito.img" $ISO_BIOS_MODULES ||
		die "iso: grub-mkimage failed"

	say "iso: the EFI image (shim, Debian's signed GRUB)"
	cp "$ISO_SHIM" "$work/efi/EFI/BOOT/BOOTX64.EFI"
	cp "$ISO_SIGNED_GRUB" "$work/efi/EFI/BOOT/grubx64.efi"
	[ -r "$ISO_MOK_MANAGER" ] && cp "$ISO_MOK_MANAGER" "$work/efi/EFI/BOOT/mmx64.efi"
	# FAT has no time before 1980; its serial number is fixed so that
	# the same inputs make the same bytes.
	fat_epoch=$((epoch < 315532800 ? 315532800 : epoch))
	find "$work/efi" -exec touch -h -d "@$fat_epoch" {} +
	fat_kb=$(($(du -sk "$work/efi" | cut -f1) + 512))
	fat=$work/efi.img
	mkfs.fat -C --invariant -i 0x52534355 -n RESCUE_EFI "$fat" "$fat_kb" >/dev/null ||
		die "iso: mkfs.fat failed"
	MTOOLS_SKIP_CHECK=1 mcopy -s -m -i "$fat" "$work/efi/EFI" ::/ || die "iso: mcopy failed"

	say "iso: $output"
	find "$tree" -exec touch -h -d "@$epoch" {} +
	SOURCE_DATE_EPOCH=$epoch xorriso -as mkisofs -quiet \
		-iso-level 3 -r -J -joliet-long -V "$volid" \
		--modification-date="$(date -u -d "@$epoch" +%Y%m%d%H%M%S00)" \
		-b boot/grub/eltorito.img -no-emul-boot -boot-load-size 4 \
		-boot-info-table --grub2-boot-info \
		--grub2-mbr /usr/lib/grub/i386-pc/boot_hybrid.img \
		-append_partition 2 0xef "$fat" -appended_part_as_gpt \
		-eltorito-alt-boot -e --interval:appended_partition_2:all:: -no-emul-boot \
		-o "$work/out.iso" "$tree" 2>"$work/xorriso.log" ||
		{ cat "$work/xorriso.log" >&2; die "iso: xorriso failed"; }
	mv "$work/out.iso" "$output"
	say "iso: $(du -k "$output" | cut -f1) KiB; dd it to a USB stick or boot it as a CD"
}
