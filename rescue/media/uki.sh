# SPDX-License-Identifier: GPL-2.0
# uki.sh: mkrescue-media uki.  One EFI binary, a Unified Kernel Image:
# systemd's EFI stub (systemd-stub(7), package systemd-boot-efi) with the
# kernel, its rescue image, the command line and an os-release added as
# PE sections, which the firmware starts as it is (copied to
# \EFI\BOOT\BOOTX64.EFI of an EFI System Partition, or to \EFI\Linux\ of
# one that systemd-boot runs, which lists it by itself).  Debian 12 has
# no ukify: the sections are added by objcopy as systemd's documentation
# of the stub does it, each after the stub's last section, aligned.
# Signed (--sign-key, --sign-cert), the whole binary is one image for
# Secure Boot: the command line cannot be changed, and the stub starts
# the kernel inside it.  Sourced by mkrescue-media.
# shellcheck shell=bash
# shellcheck disable=SC2154 # prog work kernel initrd append epoch output: mkrescue-media's

uki_usage() {
	cat <<'USAGE'
options of uki:
  --sign-key KEY       sign the image with sbsign: KEY, a PEM private key
  --sign-cert CERT     (with --sign-key) its PEM certificate
  --sign-pass-file FILE
                       the passphrase of an encrypted KEY (sbsign would
                       ask for it on the terminal); else the environment's
                       MKRESCUE_SIGN_PASS, else openssl asks
  --stub FILE          the EFI stub (default
                       /usr/lib/systemd/boot/efi/linuxx64.efi.stub)
The command line: console=tty0 console=ttyS0,115200 and that of -a.
USAGE
}

UKI_STUB=/usr/lib/systemd/boot/efi/linuxx64.efi.stub

# uki_kernel_version KERNEL: the version string of a bzImage's setup
# header (boot protocol 2.00+: "HdrS" at 0x202, the string's offset less
# 0x200 at 0x20e), as file(1) reads it; empty when there is none.
uki_kernel_version() {
	local magic off
	magic=$(dd if="$1" bs=1 skip=514 count=4 2>/dev/null)
	[ "$magic" = HdrS ] || return 0
	off=$(od -An -tu2 -j 526 -N 2 "$1" | tr -d ' ')
	dd if="$1" bs=1 skip=$((off + 512)) count=128 2>/dev/null |
		tr '\0' '\n' | head -n1 | cut -d' ' -f1
}

# uki_os_release KVER: the .osrel section, which systemd-boot shows as
# the entry's title (PRETTY_NAME) and version.
uki_os_release() {
	cat <<OSREL
NAME="devtmpfs-rescue"
ID=devtmpfs-rescue
PRETTY_NAME="devtmpfs-rescue${1:+ ($1)}"
VERSION_ID="${1:-unknown}"
OSREL
}

# uki_end STUB: the first address after the stub's last section (VMA +
# size, the ImageBase included as objdump -h prints it), in decimal.
uki_end() {
	local idx size addr rest max=0
	while read -r idx _ size addr rest; do
		case "$idx" in '' | *[!0-9]*) continue ;; esac
		[ $((0x$addr + 0x$size)) -le "$max" ] || max=$((0x$addr + 0x$size))
	done < <(objdump -h "$1")
	[ "$max" -gt 0 ] && echo "$max"
}

# uki_align STUB: the section alignment, at least a page: the kernel's
# section is then at a page boundary however the stub was linked.
uki_align() {
	local a
	a=$(objdump -p "$1" | sed -n 's/^SectionAlignment[[:space:]]*\([0-9a-fA-F]*\)$/\1/p')
	[ -n "$a" ] || return 1
	a=$((0x$a))
	echo $((a < 4096 ? 4096 : a))
}

# uki_u32 FILE OFFSET: a little-endian 32-bit field.
uki_u32() {
	od -An -tu4 -j "$2" -N 4 "$1" | tr -d ' '
}

# uki_put_u32 FILE OFFSET VALUE: write one, in place.
uki_put_u32() {
	local v=$3
	# shellcheck disable=SC2059 # the format is the bytes
	printf "$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $((v & 255)) $((v >> 8 & 255)) \
		$((v >> 16 & 255)) $((v >> 24 & 255)))" |
		dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# uki_set_time FILE EPOCH: objcopy stamps a PE file with the time of its
# run (binutils 2.40 ignores SOURCE_DATE_EPOCH there) and sums the file
# into its CheckSum; the stamp becomes EPOCH and the sum is mended: it
# is a one's complement sum of 16-bit words plus the file's size, so
# the old stamp's two words come out and the new one's go in.
uki_set_time() {
	local pe old sum size w
	pe=$(uki_u32 "$1" 60)
	old=$(uki_u32 "$1" $((pe + 8)))
	sum=$(uki_u32 "$1" $((pe + 88)))
	size=$(stat -c %s "$1")
	uki_put_u32 "$1" $((pe + 8)) $(($2 & 0xffffffff))
	[ "$sum" -gt "$size" ] || return 0 # no sum to mend
	sum=$((sum - size))
	for w in $((0xffff - (old & 0xffff))) $((0xffff - (old >> 16))) \
		$(($2 & 0xffff)) $(($2 >> 16 & 0xffff)); do
		sum=$((sum + w))
		sum=$(((sum & 0xffff) + (sum >> 16)))
	done
	uki_put_u32 "$1" $((pe + 88)) $((sum + size))
}

# uki_decrypt_key KEY PASSFILE OUT: KEY without its passphrase, in OUT
# (mode 0600, in $work): sbsign reads a PEM key through OpenSSL's
# terminal prompt and has no option for a passphrase.
uki_decrypt_key() {
	local pass=()
	if [ -n "$2" ]; then
		pass=(-passin "file:$2")
	elif [ -n "${MKRESCUE_SIGN_PASS+set}" ]; then
		pass=(-passin env:MKRESCUE_SIGN_PASS)
	fi
	(umask 077 && openssl pkey -in "$1" "${pass[@]}" -out "$3") 2>"$work/openssl.log" ||
		{ cat "$work/openssl.log" >&2; die "uki: unable to read the key $1 (a wrong passphrase?)"; }
}

media_uki() {
	local key='' cert='' passfile='' stub=$UKI_STUB kver align vma sec file
	local args=() clock
	while [ $# -gt 0 ]; do
		case "$1" in
		--sign-key) key=${2:?}; shift 2 ;;
		--sign-cert) cert=${2:?}; shift 2 ;;
		--sign-pass-file) passfile=${2:?}; shift 2 ;;
		--stub) stub=${2:?}; shift 2 ;;
		*) die "uki: unknown option '$1' (see $prog uki --help)" ;;
		esac
	done
	if [ -n "$key" ] && [ -z "$cert" ]; then die "uki: --sign-key needs --sign-cert"; fi
	if [ -z "$key" ] && [ -n "$cert" ]; then die "uki: --sign-cert needs --sign-key"; fi
	[ -z "$passfile" ] || [ -n "$key" ] || die "uki: --sign-pass-file without --sign-key"
	need objcopy binutils
	need objdump binutils
	need_file "$stub" systemd-boot-efi
	if [ -n "$key" ]; then
		need sbsign sbsigntool
		need openssl openssl
		[ -r "$key" ] || die "uki: unable to read the key $key"
		[ -r "$cert" ] || die "uki: unable to read the certificate $cert"
		[ -z "$passfile" ] || [ -r "$passfile" ] || die "uki: unable to read $passfile"
	fi

	kver=$(uki_kernel_version "$kernel")
	[ -n "$kver" ] || die "uki: $kernel is no bzImage (no setup header)"
	# The stub starts the kernel as an EFI program: a kernel without
	# CONFIG_EFI_STUB (the patched one of the source tree) is no PE
	# binary and would fail only at boot.
	[ "$(head -c 2 "$kernel")" = MZ ] ||
		die "uki: $kernel has no EFI stub (CONFIG_EFI_STUB): use a Debian kernel and an image of mkrescue -k"
	uki_os_release "$kver" >"$work/osrel"
	printf '%s' "console=tty0 console=ttyS0,115200${append:+ $append}" >"$work/cmdline"

	# Each section at the next aligned address after the one before: a
	# bigger rescue image moves nothing but its own end.
	align=$(uki_align "$stub") || die "uki: no SectionAlignment in $stub (objdump -p)"
	vma=$(uki_end "$stub") || die "uki: no sections in $stub (objdump -h)"
	for sec in osrel:"$work/osrel" cmdline:"$work/cmdline" linux:"$kernel" initrd:"$initrd"; do
		file=${sec#*:}
		vma=$(( (vma + align - 1) / align * align ))
		args+=(--add-section ".${sec%%:*}=$file" --change-section-vma ".${sec%%:*}=$(printf '0x%x' "$vma")")
		vma=$((vma + $(stat -L -c %s "$file")))
	done
	say "uki: $kver, the stub's sections then .osrel .cmdline .linux .initrd"
	objcopy "${args[@]}" "$stub" "$work/uki.efi" 2>"$work/objcopy.log" ||
		{ cat "$work/objcopy.log" >&2; die "uki: objcopy failed"; }
	uki_set_time "$work/uki.efi" "$epoch"

	if [ -n "$key" ]; then
		say "uki: signed with $cert"
		uki_decrypt_key "$key" "$passfile" "$work/key.pem"
		# sbsign puts the time of its run in the signature (PKCS#7
		# signingTime, which the firmware does not check): under
		# faketime it is the epoch's, and a signed image too has the
		# same bytes for the same inputs.
		clock=()
		command -v faketime >/dev/null 2>&1 &&
			clock=(faketime -f "@$(date -u -d "@$epoch" '+%Y-%m-%d %H:%M:%S')")
		"${clock[@]}" sbsign --key "$work/key.pem" --cert "$cert" --output "$work/uki.signed" \
			"$work/uki.efi" >"$work/sbsign.log" 2>&1 ||
			{ cat "$work/sbsign.log" >&2; die "uki: sbsign failed"; }
		rm -f "$work/key.pem"
		mv "$work/uki.signed" "$work/uki.efi"
		[ ${#clock[@]} -gt 0 ] ||
			say "uki: no faketime (apt-get install faketime): the signature holds the time of this run"
	fi
	touch -d "@$epoch" "$work/uki.efi"
	mv "$work/uki.efi" "$output"
	say "uki: $output, $(du -k "$output" | cut -f1) KiB; copy it to \\EFI\\BOOT\\BOOTX64.EFI of an EFI System Partition"
}
