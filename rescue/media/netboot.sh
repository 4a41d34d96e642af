# SPDX-License-Identifier: GPL-2.0
# netboot.sh: mkrescue-media netboot.  A folder that a PXE or HTTP boot
# setup already in place serves as it is: an iPXE script, boot.ipxe,
# that names the kernel and the rescue image by paths relative to its
# own URL, so that the same folder boots over TFTP and over HTTP from
# wherever it is put; the two files it names; a README on how to plug
# it in (docs/netboot.md says more).  No server of its own: the DHCP
# and TFTP or HTTP servers are the site's.  Sourced by mkrescue-media.
# shellcheck shell=bash
# shellcheck disable=SC2154 # prog work kernel initrd append epoch output: mkrescue-media's

netboot_usage() {
	cat <<'USAGE'
options of netboot:
  --ip SPEC            bring up the rescue system's network: adds
                       "ip=SPEC rd.neednet=1" to the command line
                       (SPEC as rescue-init(8) takes it: dhcp, or
                       client::gateway:netmask:hostname:device:off);
                       with an image of mkrescue --ssh-authorized-keys,
                       dropbear then listens on the address
The folder OUTPUT holds boot.ipxe, vmlinuz, rescue.img and a README.
Point DHCP's boot file (or an iPXE menu's chain) at the URL of
boot.ipxe, over TFTP or HTTP: the script fetches the other two from
beside itself.  The kernel gets console=tty0 console=ttyS0,115200.
USAGE
}

# The files of the folder, and no others: an OUTPUT that holds anything
# else was not written here, and is not replaced.
NETBOOT_FILES="boot.ipxe vmlinuz rescue.img README"

# netboot_script APPEND: boot.ipxe.  "initrd=rescue.img" is for a
# kernel started by iPXE under UEFI: its EFI stub reads the image
# through iPXE's file system by that name (a BIOS boot passes it by the
# Linux boot protocol and the kernel ignores the word).
netboot_script() {
	local console="console=tty0 console=ttyS0,115200"
	cat <<SCRIPT
#!ipxe
# devtmpfs-rescue, written by mkrescue-media netboot.  vmlinuz and
# rescue.img are fetched from beside this script, by the protocol and
# from the server it came by (TFTP or HTTP).
echo devtmpfs-rescue: loading vmlinuz and rescue.img
kernel vmlinuz initrd=rescue.img $console${1:+ $1} || goto failed
initrd rescue.img || goto failed
boot || goto failed
:failed
echo devtmpfs-rescue: the boot failed (with Secure Boot on, the firmware refuses the kernel: boot the iso of mkrescue-media instead)
echo devtmpfs-rescue: here is the iPXE shell
shell
SCRIPT
}

# netboot_readme APPEND
netboot_readme() {
	cat <<README
devtmpfs-rescue network boot folder (mkrescue-media netboot)

  boot.ipxe   the iPXE script to boot: it loads the two files below by
              paths relative to its own URL, over TFTP or HTTP alike
  vmlinuz     the kernel
  rescue.img  its rescue image (mkrescue)

Kernel command line: console=tty0 console=ttyS0,115200${1:+ $1}

Serve this folder as it is, from a TFTP root or an HTTP server, and
make the machines' iPXE run boot.ipxe:
  - iPXE already running (QEMU and most virtual NICs, netboot.xyz,
    an iPXE USB stick): give it the script's URL, e.g.
      chain http://SERVER/rescue/boot.ipxe
  - DHCP (dnsmasq) that chains a vendor PXE ROM into iPXE first:
      dhcp-match=set:ipxe,175
      dhcp-boot=tag:!ipxe,undionly.kpxe
      dhcp-boot=tag:ipxe,http://SERVER/rescue/boot.ipxe
    (ipxe.efi instead of undionly.kpxe for UEFI machines).
Without root= on the command line, the rescue system opens its rescue
shell with an account of the disks it sees; root=UUID=... or
root=LABEL=... boots that root through rescue-init.
More: mkrescue-media(8) and docs/netboot.md of devtmpfs-rescue.
README
}

# netboot_replace_old: move an OUTPUT of an earlier run out of the way
# (into the work folder, removed at exit).  Anything else there stays.
netboot_replace_old() {
	local f
	[ -e "$output" ] || [ -L "$output" ] || return 0
	[ -d "$output" ] && [ ! -L "$output" ] ||
		die "netboot: $output exists and is not a folder; not replacing it"
	for f in "$output"/* "$output"/.[!.]*; do
		[ -e "$f" ] || [ -L "$f" ] || continue
		case " $NETBOOT_FILES " in
		*" ${f##*/} "*) [ -f "$f" ] && [ ! -L "$f" ] && continue ;;
		esac
		die "netboot: $output holds ${f##*/}, which $prog did not write; not replacing it"
	done
	mv "$output" "$work/old" || die "netboot: unable to move the old $output away"
}

media_netboot() {
	local ip='' cmdline dir
	while [ $# -gt 0 ]; do
		case "$1" in
		--ip) ip=${2:?}; shift 2 ;;
		*) die "netboot: unknown option '$1' (see $prog netboot --help)" ;;
		esac
	done
	case "$ip" in *[[:space:]]*) die "netboot: --ip '$ip': one word, without spaces" ;; esac
	# The line goes into the script as it is: a second line would be a
	# command of its own there.
	case "$append" in *$'\n'*) die "netboot: -a: one line, without a newline" ;; esac
	cmdline=$append
	[ -z "$ip" ] || cmdline="${cmdline:+$cmdline }ip=$ip rd.neednet=1"

	dir=$work/netboot
	mkdir "$dir" || die "netboot: unable to write in $work"
	cp "$kernel" "$dir/vmlinuz" && cp "$initrd" "$dir/rescue.img" ||
		die "netboot: unable to copy the kernel and the rescue image"
	netboot_script "$cmdline" >"$dir/boot.ipxe"
	netboot_readme "$cmdline" >"$dir/README"
	# A TFTP or HTTP server reads them as a user of its own.
	chmod 0644 "$dir"/*
	chmod 0755 "$dir"
	touch -h -d "@$epoch" "$dir"/*

	netboot_replace_old
	mv "$dir" "$output" || die "netboot: unable to rename the folder into $output"
	# After the rename, which rewrote its "..".
	touch -h -d "@$epoch" "$output"
	say "netboot: $output: point the boot file at its boot.ipxe (TFTP or HTTP)"
}
