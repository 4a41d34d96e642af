# SPDX-License-Identifier: GPL-2.0
# tests/groups/tpm2.sh: a LUKS2 root enrolled with systemd-cryptenroll
# --tpm2-device=auto --tpm2-pcrs=4+15, opened by rescue-init through the
# image's cryptsetup and systemd's token plugin (mkrescue --tpm2), with
# swtpm as the VM's TPM 2.0, on the stock 6.1 and 6.12 kernels.
#
# What is measured: OVMF starts the kernel given with -kernel and
# measures it, and the initrd with it, into PCR 4 (seen in the guest: a
# new image, the same kernel, another PCR 4; the EFI stub measures the
# initrd into PCR 9 too; nothing measures the command line of a kernel
# started so: PCR 8 and 12 stay zero).  The token is sealed to PCR 4, so
# the enrolment is a boot of the image under test itself, into its
# rescue shell, with systemd-cryptenroll added to it (mkrescue
# --include, dracut --include) for that.  PCR 15 is zero until
# rescue-init extends it after the unlock: sealed to it too, the key
# does not unseal again in the same boot (the booted root, a shell).
# Enrolling from the host through swtpm's TCTI would seal against the
# host's view of the PCRs (all zero), which no firmware boot has.
#
# The enrolment is cached with the swtpm state it sealed against,
# keyed on the kernel, the image, OVMF and this file.
#
# Each boot has an swtpm of its own on a copy of that state (--terminate:
# it ends with QEMU's connection).

. "$TOP/tests/lib/rescue-lib.sh"
. "$TOP/tests/lib/dracut-lib.sh"

TPM2_PASS=tpm2-fallback-9
TPM2_UUID=5d2f3e4a-6b7c-4d8e-9fa0-1b2c3d4e5f60
TPM2_VM_TIMEOUT=${TPM2_VM_TIMEOUT:-300}
TPM2_OVMF=/usr/share/ovmf/OVMF.fd
TPM2_CACHE=$BUILD/tests/tpm2-cache
# PCR 15 after rescue-init's TPM2_PCR_Event of its fixed event
# (rescue/init/storage/lukstpm2.c) on a zero PCR:
# sha256(zeroes || sha256("devtmpfs-rescue: TPM2 unlock done")).
TPM2_PCR15_AFTER=178D486E0ACC22D29A18E29C0703A08D311BA111D86B16DBAC2964F333C72167
TPM2_PCR_ZERO=0000000000000000000000000000000000000000000000000000000000000000

tpm2_tools_there() {
	command -v swtpm >/dev/null && [ -r "$TPM2_OVMF" ] &&
		[ -x /usr/bin/systemd-cryptenroll ] ||
		{ fail "no swtpm, OVMF or systemd-cryptenroll (make deps)"; return 1; }
}

# tpm2_swtpm STATE: an swtpm for one boot on the state directory STATE,
# its control socket $T/swtpm.sock; the run-vm options that attach it
# as a TPM-TIS, and OVMF, in the array vm_tpm.
tpm2_swtpm() {
	rm -f "$T/swtpm.sock"
	swtpm socket --tpm2 --tpmstate "dir=$1" --terminate \
		--ctrl "type=unixio,path=$T/swtpm.sock" --flags startup-clear \
		--log "file=$T/swtpm.log" &
	swtpm_pid=$!
	local i
	for ((i = 0; i < 50; i++)); do
		[ -S "$T/swtpm.sock" ] && break
		sleep 0.1
	done
	[ -S "$T/swtpm.sock" ] || { fail "swtpm did not start:" "$(cat "$T/swtpm.log")"; return 1; }
	# shellcheck disable=SC2054 # the commas are QEMU's
	vm_tpm=(--mem 512M --qemu-arg -bios --qemu-arg "$TPM2_OVMF"
		--qemu-arg -chardev --qemu-arg "socket,id=chrtpm,path=$T/swtpm.sock"
		--qemu-arg -tpmdev --qemu-arg emulator,id=tpm0,chardev=chrtpm
		--qemu-arg -device --qemu-arg tpm-tis,tpmdev=tpm0)
}

tpm2_swtpm_done() {
	kill "$swtpm_pid" 2>/dev/null
	wait "$swtpm_pid" 2>/dev/null
	return 0
}

TPM2_ENROLL=/usr/local/bin/systemd-cryptenroll
# The image's rescue password (mkrescue --rescue-password-hash).
TPM2_RESCUE_PASS=tpm2-rescue-9Vh

# tpm2_image: $T/initrd, mkrescue -k --tpm2, with systemd-cryptenroll
# for the enrolment boot (its libraries are the plugin's).
tpm2_image() {
	stock_image "$T/initrd" --tpm2 --include "/usr/bin/systemd-cryptenroll:$TPM2_ENROLL" \
		--rescue-password-hash "$(openssl passwd -6 -salt tpm2Salt "$TPM2_RESCUE_PASS")"
}

# The root, report init printing PCR 15 as the root sees it.
tpm2_root_init() {
	make_root_dir "$T/root" tpm2
	sed -i '$i echo "TEST RESULT: tpm pcr15=$(cat /sys/class/tpm/tpm0/pcr-sha256/15)"' \
		"$T/root/sbin/init"
}

# tpm2_enrolled: $T/c.img (LUKS2 $TPM2_UUID, passphrase $TPM2_PASS, a
# TPM2 token sealed to PCR 4 of $STOCK_KVER and $T/initrd under OVMF,
# and to PCR 15 at zero, as before rescue-init extends it) and $T/tpm
# (the swtpm state it is sealed in), from the cache or made by a boot.
tpm2_enrolled() {
	local kver key dir
	kver=$(stock_kernel_version) || return 1
	key=$(cat "/boot/vmlinuz-$kver" "$T/initrd" "$TPM2_OVMF" "$TOP/tests/groups/tpm2.sh" |
		sha256sum | cut -c1-16)
	dir=$TPM2_CACHE/$kver-$key
	if [ ! -s "$dir/c.img" ]; then
		tpm2_root_init
		blank_disk "$T/c.img" 64
		mke2fs -q -F -t ext4 -U "$ROOT_UUID" -L tpm2-root -d "$T/root" "$T/c.img" 32M ||
			{ fail "mke2fs of $T/c.img failed"; return 1; }
		luks_encrypt "$T/c.img" "$TPM2_UUID" "$TPM2_PASS" || return 1
		rm -rf "$T/tpm" && mkdir -p "$T/tpm"
		printf '%s\n' \
			"PASSWORD=$TPM2_PASS $TPM2_ENROLL --tpm2-device=auto --tpm2-pcrs=4+15 /dev/vda && echo enrolled-\$((6 * 7))" \
			'cat /sys/class/tpm/tpm0/pcr-sha256/4' >"$T/enrol.cmds"
		tpm2_swtpm "$T/tpm" || return 1
		"$TOP/tests/tools/vm-shell.exp" "$T/enrol.log" "$TPM2_VM_TIMEOUT" "$SHELL_PROMPT" \
			"$T/enrol.cmds" --kernel "/boot/vmlinuz-$kver" --initrd "$T/initrd" \
			--append "root=LABEL=no-such-root rootwait=1 rd.luks=0" \
			--disk "virtio-blk:$T/c.img" "${vm_tpm[@]}"
		tpm2_swtpm_done
		grep -q 'enrolled-42' "$T/enrol.log" ||
			{ show_log "$T/enrol.log" 30; fail "systemd-cryptenroll in the VM failed"; return 1; }
		mkdir -p "$dir.tmp" && cp -a "$T/c.img" "$T/tpm" "$dir.tmp/" &&
			rm -rf "$dir" && mv "$dir.tmp" "$dir" || return 1
	fi
	rm -rf "$T/tpm" && cp -a "$dir/c.img" "$dir/tpm" "$T/"
}

# tpm2_boot KERNEL LOG STEPS [APPEND]: the root's boot with KERNEL, the
# swtpm on $T/tpm; STEPS for vm-steps.exp (the passphrase typed), or ""
# for none; APPEND after root=.
tpm2_boot() {
	local kernel=$1 log=$2 steps=$3 append="root=UUID=$ROOT_UUID${4:+ $4}" status
	tpm2_swtpm "$T/tpm" || return 1
	if [ -n "$steps" ]; then
		"$TOP/tests/tools/vm-steps.exp" "$log" "$TPM2_VM_TIMEOUT" "$steps" \
			--kernel "$kernel" --initrd "$T/initrd" --append "$append" \
			--disk "virtio-blk:$T/c.img" "${vm_tpm[@]}"
	else
		VM_TIMEOUT=$TPM2_VM_TIMEOUT boot_vm "$log" --kernel "$kernel" \
			--initrd "$T/initrd" --append "$append" \
			--disk "virtio-blk:$T/c.img" "${vm_tpm[@]}"
	fi
	status=$?
	tpm2_swtpm_done
	[ "$status" -eq 0 ] || { show_log "$log" 40; fail "the boot of $kernel failed"; return 1; }
}

# The enrolled kernel: opened by the token, no prompt, the root mounted
# ro, PCR 15 extended with rescue-init's event.
tpm2_opens() {
	local kver
	kver=$(stock_kernel_version) || return 1
	tpm2_boot "/boot/vmlinuz-$kver" "$T/console.log" "" || return 1
	expect_log "$T/console.log" \
		"rescue: luks: opened /dev/vda \(LUKS2, UUID $TPM2_UUID\) as dm-0" \
		"the container opened" &&
	expect_log "$T/console.log" \
		"rescue: luks: /dev/vda opened by its TPM2 token, no passphrase" \
		"the TPM2 unlock line" &&
	expect_no_log "$T/console.log" "Passphrase for" "a passphrase prompt" &&
	expect_log "$T/console.log" "rescue: luks: PCR 15 extended" "the PCR 15 line" &&
	expect_field "$T/console.log" root marker tpm2 &&
	expect_field "$T/console.log" root mode ro &&
	expect_field "$T/console.log" tpm pcr15 "$TPM2_PCR15_AFTER" &&
	expect_exec_line /sbin/init /dev/dm-0 ext4 ro
}

# Another kernel (the enrolled one with bytes appended: OVMF measures
# the whole file, and the kernel starts as before): PCR 4 differs, the
# token does not unseal, one line says so, the typed passphrase opens
# it, and PCR 15 is left alone.
tpm2_falls_back() {
	local kver
	kver=$(stock_kernel_version) || return 1
	{ cat "/boot/vmlinuz-$kver"; printf 'not the enrolled kernel'; } >"$T/vmlinuz-changed"
	passphrase_steps /dev/vda "$TPM2_UUID" "$TPM2_PASS"
	tpm2_boot "$T/vmlinuz-changed" "$T/fallback.log" "$T/steps" || return 1
	expect_log "$T/fallback.log" \
		"rescue: luks: /dev/vda: TPM2 token did not unseal \(PCRs changed\?\): asking for the passphrase" \
		"the fallback line" &&
	[ "$(tr -d '\r' <"$T/fallback.log" | grep -c 'TPM2 token did not unseal')" = 1 ] ||
		{ fail "not one fallback line"; return 1; }
	expect_log "$T/fallback.log" "rescue: luks: opened /dev/vda \(LUKS2, UUID $TPM2_UUID\)" \
		"the container opened by the passphrase" &&
	expect_no_log "$T/fallback.log" "opened by its TPM2 token" "a TPM2 unlock" &&
	expect_no_log "$T/fallback.log" "$TPM2_PASS" "the passphrase on the console" &&
	expect_field "$T/fallback.log" root marker tpm2 &&
	expect_field "$T/fallback.log" tpm pcr15 "$TPM2_PCR_ZERO"
}

# rd.break after the token opened the root (the command line is not
# measured under -kernel, so the same PCRs unseal): the shell is locked,
# the rescue password asked, three wrong ones reboot with no shell.
tpm2_locks_the_shell() {
	local kver
	kver=$(stock_kernel_version) || return 1
	{
		echo 'want rescue-init: shell locked: a disk was opened by TPM2 without a passphrase'
		for _ in 1 2 3; do echo 'want Rescue password: '; echo 'send not-the-password'; done
		echo 'want rescue-init: three wrong rescue passwords: rebooting'
		echo end
	} >"$T/lock.steps"
	tpm2_boot "/boot/vmlinuz-$kver" "$T/lock.log" "$T/lock.steps" rd.break || return 1
	expect_log "$T/lock.log" "rescue: luks: /dev/vda opened by its TPM2 token, no passphrase" \
		"the TPM2 unlock line" &&
	expect_no_log "$T/lock.log" 'starting the rescue shell|\(rescue\) |TEST RESULT' "a shell or the root"
}

tpm2_mkrescue() {
	tpm2_tools_there && tpm2_image && tpm2_enrolled && tpm2_opens && tpm2_falls_back &&
		tpm2_locks_the_shell
}

# mkrescue -k --tpm2 on 6.1 and 6.12: the token opens the root on the
# enrolled kernel, another kernel falls back to the passphrase, and
# rd.break after the unlock meets the shell lock.
test_tpm2_unlock_and_fallback_mkrescue() {
	for_each_stock_kernel tpm2_mkrescue
}

# The dracut image of this group: Debian's tpm2-tss module (the plugin,
# the TSS2 libraries and TCTIs), which dracut's crypt adds by itself on
# a hostonly host whose crypttab has tpm2-device=, named here as the
# image is not hostonly; cached as tests/lib/dracut-lib.sh caches its own.
tpm2_dracut() {
	# shellcheck disable=SC2034 # read by dracut_cache, dracut_rescue_image
	local DRACUT_IMAGE_MODULES="devtmpfs-rescue crypt tpm2-tss"
	# shellcheck disable=SC2034
	local DRACUT_CACHE_TOP=$TPM2_CACHE/dracut
	# shellcheck disable=SC2034
	local DRACUT_IMAGE_OPTIONS="--no-hostonly --include /usr/bin/systemd-cryptenroll $TPM2_ENROLL" m
	# what this host's dracut would add that the module refuses
	for m in $(dracut_refused_modules); do
		DRACUT_IMAGE_OPTIONS+=" --omit $m"
	done
	tpm2_tools_there && link_dracut_rescue_image "$T/initrd" &&
	tpm2_enrolled && tpm2_opens
}

# dracut --add devtmpfs-rescue with tpm2-tss on 6.1: the token opens it.
test_tpm2_unlock_dracut() {
	tpm2_dracut
}

# Which images get the plugin: with -k, those whose crypttab has
# tpm2-device= (--crypttab here; the host's under --hostonly), or
# --tpm2; not a crypttab without it, nor --no-tpm2.  No boot.
tpm2_listed() { # description mkrescue-options...
	local what=$1 out
	shift
	out=$T/list-$(echo "$what" | tr -c 'a-z0-9\n' -)
	stock_image "$out.img" --no-disk-tools "$@" && list_image_into "$out.img" "$out" || return 1
	echo "$out"
}
test_tpm2_shipped_when_crypttab_names_a_tpm() {
	local l p
	. "$TOP/tests/lib/mkrescue-lib.sh"
	printf 'root_crypt UUID=%s none luks,discard,tpm2-device=auto\n' "$TPM2_UUID" >"$T/crypttab-tpm2"
	printf 'root_crypt UUID=%s none luks,discard\n' "$TPM2_UUID" >"$T/crypttab-plain"
	l=$(tpm2_listed tpm2-crypttab --crypttab "$T/crypttab-tpm2") || return 1
	for p in 'cryptsetup/libcryptsetup-token-systemd-tpm2\.so' 'systemd/libsystemd-shared-[0-9]+\.so' \
		'libtss2-esys\.so\.0' 'libtss2-rc\.so\.0' 'libtss2-mu\.so\.0' 'libtss2-tcti-device\.so\.0'; do
		grep -Eq "/$p( |$)" "$l" || { fail "mkrescue -k with a tpm2-device= crypttab: no $p in the image"; return 1; }
	done
	l=$(tpm2_listed no-tpm2 --crypttab "$T/crypttab-tpm2" --no-tpm2) || return 1
	! grep -q 'libcryptsetup-token-systemd-tpm2' "$l" ||
		{ fail "--no-tpm2: the plugin is in the image"; return 1; }
	l=$(tpm2_listed plain-crypttab --crypttab "$T/crypttab-plain") || return 1
	! grep -q 'libcryptsetup-token-systemd-tpm2' "$l" ||
		{ fail "a crypttab without tpm2-device=: the plugin is in the image"; return 1; }
	l=$(tpm2_listed tpm2-option --crypttab "$T/crypttab-plain" --tpm2) || return 1
	grep -q 'libcryptsetup-token-systemd-tpm2' "$l" ||
		{ fail "--tpm2: no plugin in the image"; return 1; }
}
