# SPDX-License-Identifier: GPL-2.0
# tests/groups/uki.sh: mkrescue-media uki, a Unified Kernel Image of a
# Debian stock kernel and its image of mkrescue -k, booted by OVMF from
# the EFI System Partition of a GPT disk (\EFI\BOOT\BOOTX64.EFI, made
# from userspace by sfdisk, mkfs.fat and mtools), no boot loader between:
# to a root given by the image's own command line; signed with Debian's
# snakeoil test key, under Secure Boot with only that key trusted (the
# kernel locked down), and refused there unsigned.  systemd-boot (as
# BOOTX64.EFI) boots the kernel-install plugin's entry, and the UKI from
# \EFI\Linux\.  On the host: the same inputs give the same bytes, the
# sections follow the stub's own; the plugin's BLS entry.

. "$TOP/tests/lib/rescue-lib.sh"

MEDIA=$TOP/rescue/media/mkrescue-media
SNAKEOIL_KEY=/usr/share/ovmf/PkKek-1-snakeoil.key
SNAKEOIL_CERT=/usr/share/ovmf/PkKek-1-snakeoil.pem
ESP_TYPE=C12A7328-F81F-11D2-BA4B-00A0C93EC93B
# A stock kernel under OVMF and TCG: the firmware, then a kernel that
# probes ACPI and every PCI device.
UKI_VM_TIMEOUT=${UKI_VM_TIMEOUT:-${STOCK_VM_TIMEOUT:-240}}

# uki_make KVER OUT [mkrescue-media options]: the UKI of KVER's kernel and
# image ($T/rescue.img, made once).
uki_make() {
	local kver=$1 out=$2
	shift 2
	[ -s "$T/rescue.img" ] || stock_image "$T/rescue.img" || return 1
	"$MEDIA" uki -q -k "/boot/vmlinuz-$kver" -i "$T/rescue.img" -o "$out" "$@" \
		2>"$out.err" || { fail "mkrescue-media uki:" "$(cat "$out.err")"; return 1; }
}

# uki_esp IMG DIR: a GPT disk whose one partition, an EFI System
# Partition from 1 MiB on, is a FAT filesystem holding DIR's tree.
uki_esp() {
	local img=$1 dir=$2 kb
	kb=$(($(du -sk "$dir" | cut -f1) * 11 / 10 + 8192))
	rm -f "$img"
	truncate -s $((1024 + kb + 1024))K "$img"
	echo "start=2048, size=$((kb * 2)), type=$ESP_TYPE, name=ESP" |
		sfdisk -q --label gpt "$img" >/dev/null || { fail "sfdisk of $img failed"; return 1; }
	mkfs.fat --offset 2048 -n ESP "$img" "$kb" >/dev/null ||
		{ fail "mkfs.fat of $img failed"; return 1; }
	MTOOLS_SKIP_CHECK=1 mcopy -s -i "$img@@1M" "$dir"/* ::/ ||
		{ fail "mcopy into $img failed"; return 1; }
}

# uki_boot_esp EFI: $T/esp.img with EFI as the removable media path.
uki_boot_esp() {
	mkdir -p "$T/esp/EFI/BOOT" && cp "$1" "$T/esp/EFI/BOOT/BOOTX64.EFI" &&
		uki_esp "$T/esp.img" "$T/esp"
}

# uki_root: $T/root.img, ext4 $ROOT_UUID, whose init reports marker uki.
uki_root() {
	make_root_dir "$T/root" uki
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" root
}

# ---- boots -------------------------------------------------------------

# OVMF, Secure Boot off, starts the UKI from the ESP; the stub hands the
# kernel its own command line and image, whose rescue-init mounts the
# root that command line names.
test_uki_boots_a_root_from_an_esp() {
	for_each_stock_kernel uki_boots_a_root_from_an_esp
}

uki_boots_a_root_from_an_esp() {
	local kver start
	kver=$(stock_kernel_version) || return 1
	uki_make "$kver" "$T/rescue.efi" -a "root=UUID=$ROOT_UUID rescue.debug" &&
		uki_boot_esp "$T/rescue.efi" && uki_root || return 1
	start=$(date +%s)
	VM_TIMEOUT=$UKI_VM_TIMEOUT boot_vm "$T/console.log" --firmware uefi \
		--boot "disk:$T/esp.img" --mem 512M --disk "virtio-blk:$T/root.img" || return 1
	expect_log "$T/console.log" "Command line: console=tty0 console=ttyS0,115200 root=UUID=$ROOT_UUID rescue.debug\$" \
		"the UKI's own command line" &&
	expect_log "$T/console.log" "rescue: found root UUID=$ROOT_UUID on /dev/vd[a-z] \\(ext4\\)" \
		"the root found" &&
	expect_field "$T/console.log" root marker uki &&
	expect_field "$T/console.log" root pid 1 || return 1
	note "$kver: $(du -k "$T/rescue.efi" | cut -f1) KiB UKI, firmware to the root's init in $(($(date +%s) - start)) s"
}

# Signed with the snakeoil key, under OVMF with only that key in db and
# Secure Boot enforced: the firmware starts the UKI, the stub the kernel
# inside it (Debian's, with Debian's own signature, which this db does
# not trust: the stub vouches for what the signed image holds), which
# says that Secure Boot is on and locks itself down; Debian's signed
# modules load all the same (virtio_blk, ext4), and the root boots.
test_uki_signed_boots_under_secure_boot() {
	for_each_stock_kernel uki_signed_boots_under_secure_boot
}

uki_signed_boots_under_secure_boot() {
	local kver
	kver=$(stock_kernel_version) || return 1
	printf snakeoil >"$T/pass"
	uki_make "$kver" "$T/rescue.efi" -a "root=UUID=$ROOT_UUID" --sign-key "$SNAKEOIL_KEY" \
		--sign-cert "$SNAKEOIL_CERT" --sign-pass-file "$T/pass" &&
		uki_boot_esp "$T/rescue.efi" && uki_root || return 1
	sbverify --cert "$SNAKEOIL_CERT" "$T/rescue.efi" >"$T/sbverify.log" 2>&1 ||
		{ fail "sbverify of the signed UKI:" "$(cat "$T/sbverify.log")"; return 1; }
	VM_TIMEOUT=$UKI_VM_TIMEOUT boot_vm "$T/console.log" --firmware uefi-snakeoil \
		--boot "disk:$T/esp.img" --mem 512M --disk "virtio-blk:$T/root.img" || return 1
	expect_log "$T/console.log" '^EFI stub: UEFI Secure Boot is enabled' "the EFI stub seeing Secure Boot on" &&
	expect_log "$T/console.log" 'secureboot: Secure boot enabled' "the kernel seeing Secure Boot on" &&
	expect_log "$T/console.log" 'Kernel is locked down from EFI Secure Boot' \
		"the kernel locked down" &&
	expect_no_log "$T/console.log" 'rescue: .*EKEYREJECTED|Key was rejected' \
		"a module the locked-down kernel refused" &&
	expect_log "$T/console.log" 'rescue: loaded module virtio_blk for ' "virtio_blk loaded" &&
	expect_log "$T/console.log" 'rescue: loaded module ext4 for fs-ext4' "ext4 loaded" &&
	expect_field "$T/console.log" root marker uki &&
	expect_field "$T/console.log" root pid 1
}

# The same UKI unsigned, under the same firmware: refused, and no kernel
# starts.  OVMF names the refusal and goes on to its next boot option:
# the run ends at that line.
test_uki_unsigned_is_refused_under_secure_boot() {
	local kver
	kver=$(stock_kernel_version) || return 1
	uki_make "$kver" "$T/rescue.efi" -a "root=UUID=$ROOT_UUID" &&
		uki_boot_esp "$T/rescue.efi" || return 1
	VM_TIMEOUT=120 boot_vm "$T/console.log" --firmware uefi-snakeoil \
		--boot "disk:$T/esp.img" --mem 512M --end-on 'Access Denied' || return 1
	expect_log "$T/console.log" 'failed to load Boot[0-9A-F]+ .*: Access Denied' \
		"the firmware refusing the unsigned UKI" &&
	expect_no_log "$T/console.log" 'Linux version|Command line:|EFI stub' \
		"a kernel started"
}

# ---- on the host ---------------------------------------------------------

# The sections: the stub's, then .osrel .cmdline .linux .initrd, each at
# a page boundary after the end of the one before, in the file as given
# (the kernel and image byte for byte); a bigger image moves none of the
# others.  The command line is the consoles and -a's.
test_uki_sections_follow_the_stubs_own() {
	local kver stub=/usr/lib/systemd/boot/efi/linuxx64.efi.stub
	kver=$(stock_kernel_version) || return 1
	uki_make "$kver" "$T/rescue.efi" -a "root=UUID=$ROOT_UUID rw" || return 1
	objdump -h "$T/rescue.efi" | awk '$1 ~ /^[0-9]+$/ { print $2, $3, $4 }' >"$T/sections"
	objdump -h "$stub" | awk '$1 ~ /^[0-9]+$/ { print $2, $3, $4 }' >"$T/stub.sections"
	local n end=0 name size vma order=''
	n=$(wc -l <"$T/stub.sections")
	head -n "$n" "$T/sections" | cmp -s - "$T/stub.sections" ||
		{ fail "the stub's sections moved:" "$(cat "$T/sections")"; return 1; }
	while read -r name size vma; do
		order+=" $name"
		[ $((0x$vma)) -ge "$end" ] && [ $((0x$vma % 4096)) -eq 0 ] ||
			{ fail "$name at 0x$vma: not page-aligned after 0x$(printf %x "$end")"; return 1; }
		end=$((0x$vma + 0x$size))
	done < <(tail -n +"$((n + 1))" "$T/sections")
	[ "$order" = " .osrel .cmdline .linux .initrd" ] ||
		{ fail "the added sections:$order"; return 1; }
	objcopy -O binary --only-section=.cmdline "$T/rescue.efi" "$T/cmdline" &&
	objcopy -O binary --only-section=.linux "$T/rescue.efi" "$T/linux" &&
	objcopy -O binary --only-section=.initrd "$T/rescue.efi" "$T/initrd" &&
	objcopy -O binary --only-section=.osrel "$T/rescue.efi" "$T/osrel" || return 1
	[ "$(cat "$T/cmdline")" = "console=tty0 console=ttyS0,115200 root=UUID=$ROOT_UUID rw" ] ||
		{ fail "the .cmdline: $(cat "$T/cmdline")"; return 1; }
	cmp -s "$T/linux" "/boot/vmlinuz-$kver" || { fail ".linux is not /boot/vmlinuz-$kver"; return 1; }
	cmp -s "$T/initrd" "$T/rescue.img" || { fail ".initrd is not the rescue image"; return 1; }
	grep -qx "VERSION_ID=\"$kver\"" "$T/osrel" ||
		{ fail "the .osrel has no VERSION_ID $kver:" "$(cat "$T/osrel")"; return 1; }
	# A rescue image 8 MiB bigger: only .initrd grows.
	cp "$T/rescue.img" "$T/big.img" && head -c 8M /dev/urandom >>"$T/big.img" &&
		"$MEDIA" uki -q -k "/boot/vmlinuz-$kver" -i "$T/big.img" -o "$T/big.efi" -a "root=UUID=$ROOT_UUID rw" || return 1
	objdump -h "$T/big.efi" | awk '$1 ~ /^[0-9]+$/ { print $2, $3, $4 }' >"$T/big.sections"
	diff <(grep -v '^\.initrd ' "$T/sections") <(grep -v '^\.initrd ' "$T/big.sections") >/dev/null ||
		{ fail "a bigger image moved other sections:" "$(cat "$T/big.sections")"; return 1; }
	note "$kver: $(tail -n 4 "$T/sections" | awk '{ printf "%s%s@0x%s", sep, $1, $3; sep = " " }')"
}

# Same inputs, same bytes: a second run a second later, signed too (the
# PE stamp of objcopy's run and sbsign's signing time are the epoch's);
# another SOURCE_DATE_EPOCH is another stamp.
test_uki_is_reproducible() {
	local kver sign
	kver=$(stock_kernel_version) || return 1
	printf snakeoil >"$T/pass"
	sign=(--sign-key "$SNAKEOIL_KEY" --sign-cert "$SNAKEOIL_CERT" --sign-pass-file "$T/pass")
	uki_make "$kver" "$T/a.efi" -a rescue && uki_make "$kver" "$T/s1.efi" -a rescue "${sign[@]}" &&
		sleep 1 &&
		uki_make "$kver" "$T/b.efi" -a rescue &&
		MKRESCUE_SIGN_PASS=snakeoil uki_make "$kver" "$T/s2.efi" -a rescue \
			--sign-key "$SNAKEOIL_KEY" --sign-cert "$SNAKEOIL_CERT" || return 1
	cmp "$T/a.efi" "$T/b.efi" >"$T/cmp" 2>&1 || { fail "unsigned:" "$(cat "$T/cmp")"; return 1; }
	cmp "$T/s1.efi" "$T/s2.efi" >"$T/cmp" 2>&1 || { fail "signed:" "$(cat "$T/cmp")"; return 1; }
	SOURCE_DATE_EPOCH=1765000000 uki_make "$kver" "$T/c.efi" -a rescue || return 1
	objdump -p "$T/c.efi" | grep -q '^Time/Date.*Dec  6 05:46:40 2025' ||
		{ fail "the PE stamp of SOURCE_DATE_EPOCH=1765000000:" "$(objdump -p "$T/c.efi" | grep '^Time/Date')"; return 1; }
	note "$kver: $(sha256sum <"$T/a.efi" | cut -c1-16) unsigned, $(sha256sum <"$T/s1.efi" | cut -c1-16) signed"
}

# A key whose passphrase is wrong, a key without its certificate, the
# patched kernel (no EFI stub, so no UKI): one line each, nothing written.
test_uki_bad_signing_options_are_one_error() {
	local kver
	kver=$(stock_kernel_version) || return 1
	stock_image "$T/rescue.img" || return 1
	printf wrong >"$T/pass"
	if "$MEDIA" uki -q -k "/boot/vmlinuz-$kver" -i "$T/rescue.img" -o "$T/x.efi" \
		--sign-key "$SNAKEOIL_KEY" --sign-cert "$SNAKEOIL_CERT" --sign-pass-file "$T/pass" \
		</dev/null 2>"$T/err"; then
		fail "a wrong passphrase was taken"; return 1
	fi
	grep -q "mkrescue-media: uki: unable to read the key $SNAKEOIL_KEY" "$T/err" ||
		{ fail "the wrong passphrase's message:" "$(cat "$T/err")"; return 1; }
	if "$MEDIA" uki -q -k "/boot/vmlinuz-$kver" -i "$T/rescue.img" -o "$T/x.efi" \
		--sign-key "$SNAKEOIL_KEY" 2>"$T/err"; then
		fail "--sign-key without --sign-cert was taken"; return 1
	fi
	grep -qx "mkrescue-media: uki: --sign-key needs --sign-cert" "$T/err" ||
		{ fail "the missing certificate's message:" "$(cat "$T/err")"; return 1; }
	if "$MEDIA" uki -q -k "$BZIMAGE" -i "$T/rescue.img" -o "$T/x.efi" 2>"$T/err"; then
		fail "the patched kernel, which has no EFI stub, was taken"; return 1
	fi
	grep -qx "mkrescue-media: uki: $BZIMAGE has no EFI stub (CONFIG_EFI_STUB): use a Debian kernel and an image of mkrescue -k" "$T/err" ||
		{ fail "the patched kernel's message:" "$(cat "$T/err")"; return 1; }
	[ ! -e "$T/x.efi" ] || { fail "a UKI was written"; return 1; }
}

# ---- systemd-boot: the kernel-install plugin's entry ----------------------

PLUGIN=$TOP/packaging/60-devtmpfs-rescue.install
KI_TOKEN=0123456789abcdef0123456789abcdef

# ki_run LOG ENV... -- ARGS...: the plugin as kernel-install 252 runs it,
# with $T/boot over /boot (the image it copies) in a mount namespace of
# its own, so that the host's /boot is never read or written.
ki_run() {
	local log=$1 envs=()
	shift
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	# shellcheck disable=SC2016 # the inner sh expands its own arguments
	unshare -m sh -c 'mount --bind "$1" /boot && shift && exec "$@"' sh "$T/boot" \
		env "${envs[@]}" "$PLUGIN" "$@" >"$log" 2>&1
}

# On add, with the BLS layout kernel-install chose (an ESP at $T/efi),
# the plugin copies the rescue image beside the kernel in the entry's
# folder and writes loader/entries/devtmpfs-rescue-KVER.conf: the
# machine's command line (/etc/kernel/cmdline, here
# KERNEL_INSTALL_CONF_ROOT's) with `rescue`.  Without the layout
# variable, loader/entries says it; with another layout, no entry; on
# remove, both go; a boot root it cannot write fails nothing.
test_kernel_install_writes_a_systemd_boot_entry() {
	local kver=6.1.0-99-amd64 esp=$T/efi dir entry
	command -v unshare >/dev/null || { fail "no unshare (util-linux)"; return 1; }
	dir=$esp/$KI_TOKEN/$kver
	entry=$esp/loader/entries/devtmpfs-rescue-$kver.conf
	mkdir -p "$T/boot" "$T/conf" "$dir" "$esp/loader/entries"
	head -c 4096 /dev/urandom >"$T/boot/rescue.img-$kver"
	echo "root=UUID=$ROOT_UUID  ro quiet" >"$T/conf/cmdline"
	local bls=(KERNEL_INSTALL_LAYOUT=bls KERNEL_INSTALL_BOOT_ROOT="$esp"
		"KERNEL_INSTALL_MACHINE_ID=$KI_TOKEN" "KERNEL_INSTALL_ENTRY_TOKEN=$KI_TOKEN"
		KERNEL_INSTALL_CONF_ROOT="$T/conf" DEB_MAINT_PARAMS=configure)
	ki_run "$T/add.log" "${bls[@]}" -- add "$kver" "$dir" "/boot/vmlinuz-$kver" ||
		{ fail "the plugin's add failed:" "$(cat "$T/add.log")"; return 1; }
	[ -f "$entry" ] || { fail "no $entry:" "$(cat "$T/add.log")"; return 1; }
	cat >"$T/want" <<-WANT
	title      Rescue shell (devtmpfs-rescue)
	version    $kver
	machine-id $KI_TOKEN
	linux      /$KI_TOKEN/$kver/linux
	initrd     /$KI_TOKEN/$kver/rescue.img
	options    root=UUID=$ROOT_UUID ro quiet rescue
	WANT
	grep -v '^#' "$entry" | diff -u "$T/want" - >"$T/diff" ||
		{ fail "the entry differs from what was expected:" "$(cat "$T/diff")"; return 1; }
	cmp -s "$dir/rescue.img" "$T/boot/rescue.img-$kver" ||
		{ fail "the image is not in the entry's folder"; return 1; }
	[ "$(stat -c %a "$dir/rescue.img")" = 600 ] ||
		{ fail "the copied image is $(stat -c %a "$dir/rescue.img"), not 600"; return 1; }

	ki_run "$T/rm.log" "${bls[@]}" -- remove "$kver" "$dir" ||
		{ fail "the plugin's remove failed:" "$(cat "$T/rm.log")"; return 1; }
	[ ! -e "$entry" ] && [ ! -e "$dir/rescue.img" ] ||
		{ fail "remove left the entry or the image:" "$(ls -R "$esp")"; return 1; }

	# No KERNEL_INSTALL_LAYOUT (an older kernel-install): loader/entries
	# on the entry folder's boot root tells.
	ki_run "$T/old.log" KERNEL_INSTALL_CONF_ROOT="$T/conf" DEB_MAINT_PARAMS=configure -- \
		add "$kver" "$dir" "/boot/vmlinuz-$kver" && [ -f "$entry" ] ||
		{ fail "no entry without KERNEL_INSTALL_LAYOUT beside loader/entries:" "$(cat "$T/old.log")"; return 1; }
	rm -f "$entry" "$dir/rescue.img"

	# A machine that boots through GRUB: kernel-install's layout "other".
	ki_run "$T/other.log" KERNEL_INSTALL_LAYOUT=other KERNEL_INSTALL_BOOT_ROOT="$esp" \
		DEB_MAINT_PARAMS=configure -- add "$kver" "$dir" "/boot/vmlinuz-$kver" || return 1
	[ ! -e "$entry" ] && [ ! -e "$dir/rescue.img" ] ||
		{ fail "an entry for the layout 'other'"; return 1; }

	# A boot root it cannot write (a file where loader/ should be): a
	# line, and the kernel's installation goes on.
	mkdir -p "$T/bad/$KI_TOKEN" && : >"$T/bad/loader"
	ki_run "$T/bad.log" KERNEL_INSTALL_LAYOUT=bls KERNEL_INSTALL_BOOT_ROOT="$T/bad" \
		DEB_MAINT_PARAMS=configure -- add "$kver" "$T/bad/$KI_TOKEN/$kver" "/boot/vmlinuz-$kver" ||
		{ fail "the plugin failed the kernel's installation:" "$(cat "$T/bad.log")"; return 1; }
	grep -q "devtmpfs-rescue: unable to write $T/bad/loader/entries/devtmpfs-rescue-$kver.conf" "$T/bad.log" ||
		{ fail "no line for the unwritable boot root:" "$(cat "$T/bad.log")"; return 1; }
}

# The entry works: an ESP laid out as kernel-install's BLS layout leaves
# it (the stock kernel at /TOKEN/KVER/linux), systemd-boot as the
# removable media path, loader.conf choosing the rescue entry, the
# entry and the image in their place by the plugin itself.  OVMF starts
# systemd-boot, which boots the entry: the kernel gets its options with
# `rescue` and the rescue image, whose rescue-init opens its shell.
test_systemd_boot_boots_the_plugins_entry() {
	local kver esp=$T/esp dir
	kver=$(stock_kernel_version) || return 1
	command -v unshare >/dev/null || { fail "no unshare (util-linux)"; return 1; }
	dir=$esp/$KI_TOKEN/$kver
	mkdir -p "$T/boot" "$T/conf" "$dir" "$esp/loader/entries" "$esp/EFI/BOOT" || return 1
	stock_image "$T/boot/rescue.img-$kver" &&
		cp "/boot/vmlinuz-$kver" "$dir/linux" &&
		cp /usr/lib/systemd/boot/efi/systemd-bootx64.efi "$esp/EFI/BOOT/BOOTX64.EFI" || return 1
	printf '%s\n' 'timeout 0' "default devtmpfs-rescue-$kver.conf" >"$esp/loader/loader.conf"
	echo "console=ttyS0,115200 root=UUID=$ROOT_UUID ro" >"$T/conf/cmdline"
	ki_run "$T/add.log" KERNEL_INSTALL_LAYOUT=bls KERNEL_INSTALL_BOOT_ROOT="$esp" \
		"KERNEL_INSTALL_MACHINE_ID=$KI_TOKEN" KERNEL_INSTALL_CONF_ROOT="$T/conf" \
		DEB_MAINT_PARAMS=configure -- add "$kver" "$dir" "/boot/vmlinuz-$kver" &&
		[ -f "$esp/loader/entries/devtmpfs-rescue-$kver.conf" ] ||
		{ fail "the plugin wrote no entry:" "$(cat "$T/add.log")"; return 1; }
	uki_esp "$T/esp.img" "$esp" && uki_root || return 1
	VM_TIMEOUT=$UKI_VM_TIMEOUT boot_vm "$T/console.log" --firmware uefi \
		--boot "disk:$T/esp.img" --mem 512M --disk "virtio-blk:$T/root.img" \
		--end-on 'rescue: starting the rescue shell' || return 1
	# systemd-boot puts the entry's initrd first, as a path of the ESP.
	expect_log "$T/console.log" "Command line: initrd=[^ ]*$KI_TOKEN.$kver.rescue\\.img console=ttyS0,115200 root=UUID=$ROOT_UUID ro rescue\$" \
		"the entry's image and options, with rescue" &&
	expect_log "$T/console.log" "Linux version ${kver%%-*}" "the entry's kernel" &&
	expect_log "$T/console.log" 'rescue: starting the rescue shell: ' "rescue-init's shell, from the entry's image"
}

# systemd-boot finds a UKI in \EFI\Linux\ by itself (a type #2 entry,
# named by its .osrel) and boots it with its own command line: the
# place mkrescue-media(8) gives for a machine that boots through it.
test_systemd_boot_lists_the_uki_in_efi_linux() {
	local kver esp=$T/esp
	kver=$(stock_kernel_version) || return 1
	mkdir -p "$esp/EFI/BOOT" "$esp/EFI/Linux" "$esp/loader" || return 1
	cp /usr/lib/systemd/boot/efi/systemd-bootx64.efi "$esp/EFI/BOOT/BOOTX64.EFI" &&
		uki_make "$kver" "$esp/EFI/Linux/devtmpfs-rescue.efi" -a "root=UUID=$ROOT_UUID" || return 1
	echo 'timeout 0' >"$esp/loader/loader.conf"
	uki_esp "$T/esp.img" "$esp" && uki_root || return 1
	VM_TIMEOUT=$UKI_VM_TIMEOUT boot_vm "$T/console.log" --firmware uefi \
		--boot "disk:$T/esp.img" --mem 512M --disk "virtio-blk:$T/root.img" || return 1
	expect_log "$T/console.log" "Command line: console=tty0 console=ttyS0,115200 root=UUID=$ROOT_UUID\$" \
		"the UKI's own command line, through systemd-boot" &&
	expect_field "$T/console.log" root marker uki
}
