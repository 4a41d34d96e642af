# SPDX-License-Identifier: GPL-2.0
# tests/groups/hibernate.sh: resume from hibernation (storage/resume.c).
# The quick tests boot a busybox root with a swap disk that holds a
# hibernation signature (the kernel's "S1SUSPEND" written at the end of
# mkswap's header page, which is all libblkid and the kernel look at
# first): noresume, the rescue boot and rescue.ro=strict do not resume
# and say why, without writing the swap; a resume= that matches nothing
# is named; a resume= that matches hands the swap to the kernel, which
# finds no loadable image behind the signature, puts the swap signature
# back, and the boot goes on.  The Debian tests hibernate a real root
# (systemctl hibernate) and resume it through our images, a marker
# process alive with its PID.

# shellcheck disable=SC2016 # single-quoted scripts expand in the guest
. "$TOP/tests/lib/rescue-lib.sh"

SWAP_UUID=5a7c0e11-93d4-4c2b-8f6e-1d2c3b4a5f60
HIB_TIMEOUT=${HIB_TIMEOUT:-180}

# signed_swap IMG: a 64 MiB swap (SWAP_UUID) with the kernel's
# hibernation header's signatures, as a hibernation leaves them: the
# swap's own ("SWAPSPACE2", orig_sig) 20 bytes before the page's end,
# "S1SUSPEND" after it; libblkid must call it swsuspend.
signed_swap() {
	rm -f "$1"
	truncate -s 64M "$1" &&
	mkswap -U "$SWAP_UUID" "$1" >/dev/null 2>&1 &&
	printf 'SWAPSPACE2S1SUSPEND\0' | dd of="$1" bs=1 seek=4076 conv=notrunc status=none ||
		{ fail "unable to make the swap $1"; return 1; }
	[ "$(blkid -p -o value -s TYPE "$1")" = swsuspend ] ||
		{ fail "blkid does not see a hibernation image in $1: $(blkid -p "$1")"; return 1; }
}

# quick_boot APPEND [shell]: the stock kernel's mkrescue -k image, the
# busybox root on vda and the signed swap on vdb; the root's report on
# the console, or with "shell" the rescue shell's (the swap read-only).
quick_boot() {
	local kver vm=(boot_vm "$T/console.log")
	kver=$(stock_kernel_version) || return 1
	if [ ! -e "$T/rescue.img" ]; then
		"$BUILD/mkrescue" --init "$RESCUE_INIT" -k "$kver" --resume-conf '' \
			--no-disk-tools -o "$T/rescue.img" 2>"$T/mkrescue.err" ||
			{ fail "mkrescue -k $kver:" "$(cat "$T/mkrescue.err")"; return 1; }
	fi
	make_root_dir "$T/root" hib
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" root &&
	signed_swap "$T/swap.img" || return 1
	record_sums "$T/swap.img"
	if [ "${2:-}" = shell ]; then
		result_cmd rescue swap_ro '$(cat /sys/class/block/vdb/ro)' >"$T/commands"
		vm=("$TOP/tests/tools/vm-shell.exp" "$T/console.log" "$HIB_TIMEOUT"
			"$SHELL_PROMPT" "$T/commands")
	fi
	VM_TIMEOUT=$HIB_TIMEOUT "${vm[@]}" --kernel "/boot/vmlinuz-$kver" \
		--initrd "$T/rescue.img" --mem 512M --append "root=UUID=$ROOT_UUID $1" \
		--disk "virtio-blk:$T/root.img" --disk "virtio-blk:$T/swap.img" ||
		{ show_log "$T/console.log" 30; fail "the boot failed"; return 1; }
	if [ "${2:-}" = shell ]; then
		expect_field "$T/console.log" rescue swap_ro 1
	else
		expect_field "$T/console.log" root marker hib
	fi
}

not_resuming() { # why-regex
	expect_log "$T/console.log" \
		"rescue: not resuming from the hibernation image on /dev/vdb( \\(resume=UUID=$SWAP_UUID\\))?: $1; the filesystems it had mounted are not clean" \
		"the line saying why it does not resume" &&
	expect_no_log "$T/console.log" 'rescue: resuming from' "a resume" &&
	expect_disks_unchanged
}

quick_noresume() {
	quick_boot "resume=UUID=$SWAP_UUID noresume" &&
	not_resuming 'noresume is given'
}

quick_rescue() {
	quick_boot "resume=UUID=$SWAP_UUID rescue" shell &&
	not_resuming 'the rescue boot never resumes: resuming writes to the disk'
}

# Without resume=, the strict boot still says which swap holds an image.
quick_strict() {
	quick_boot "rescue.ro=strict" &&
	not_resuming 'rescue.ro=strict writes to no disk, and resuming writes'
}

quick_wrong() {
	quick_boot "resume=UUID=0badc0de-0000-4000-8000-000000000000 rootwait=2" &&
	expect_log "$T/console.log" \
		'rescue: unable to find resume=UUID=0badc0de-0000-4000-8000-000000000000: no block device has this UUID \([0-9]+ devices probed, waited [0-9]+ s\); booting without resuming' \
		"the line naming the resume= that matches nothing" &&
	expect_disks_unchanged
}

# The kernel is handed the swap: it checks the image (and puts the swap
# signature back, the write a rescue boot must not make), finds none it
# can load, and rescue-init boots the root.
quick_handed_over() {
	quick_boot "resume=/dev/vdb" &&
	expect_log "$T/console.log" \
		'rescue: resuming from the hibernation image on /dev/vdb \(resume=/dev/vdb, [0-9]+:16\)' \
		"the resume line" &&
	expect_log "$T/console.log" \
		'rescue: the kernel did not resume from /dev/vdb: the image is dropped' \
		"the line saying the kernel did not resume" || return 1
	[ "$(blkid -p -o value -s TYPE "$T/swap.img")" = swap ] ||
		{ fail "the kernel did not put the swap signature back: $(blkid -p "$T/swap.img")"; return 1; }
}

# A swap file (/swapfile of the root, with the signature) named by the
# root's UUID and resume_offset=, its first block as debugfs maps it:
# handed over with the offset, and the kernel puts the file's swap
# signature back.
quick_swap_file() {
	local kver off
	kver=$(stock_kernel_version) || return 1
	make_root_dir "$T/root" hib
	signed_swap "$T/root/swapfile" || return 1
	# 4 KiB blocks, a page each: the offset is in pages
	rm -f "$T/root.img"
	mke2fs -q -F -t ext4 -b 4096 -U "$ROOT_UUID" -d "$T/root" "$T/root.img" 96M ||
		{ fail "mke2fs of $T/root.img failed"; return 1; }
	off=$(debugfs -R 'bmap /swapfile 0' "$T/root.img" 2>/dev/null)
	[ -n "$off" ] && [ "$off" -gt 0 ] || { fail "debugfs maps no block of /swapfile"; return 1; }
	VM_TIMEOUT=$HIB_TIMEOUT boot_vm "$T/console.log" --kernel "/boot/vmlinuz-$kver" \
		--initrd "$T/rescue.img" --mem 512M \
		--append "root=UUID=$ROOT_UUID resume=UUID=$ROOT_UUID resume_offset=$off" \
		--disk "virtio-blk:$T/root.img" || return 1
	expect_field "$T/console.log" root marker hib &&
	expect_log "$T/console.log" \
		"rescue: resuming from the hibernation image on /dev/vda \\(resume=UUID=$ROOT_UUID, [0-9]+:0, resume_offset=$off\\)" \
		"the resume line with the offset" || return 1
	debugfs -R 'dump /swapfile '"$T/swapfile.after" "$T/root.img" >/dev/null 2>&1
	[ "$(blkid -p -o value -s TYPE "$T/swapfile.after")" = swap ] ||
		{ fail "the kernel did not put the swap file's signature back: $(blkid -p "$T/swapfile.after")"; return 1; }
}

test_quick_noresume_and_rescue_boot_do_not_resume() {
	for_each_stock_kernel quick_noresume &&
	for_each_stock_kernel quick_rescue &&
	for_each_stock_kernel quick_strict
}

test_quick_resume_names_what_it_does() {
	for_each_stock_kernel quick_wrong &&
	for_each_stock_kernel quick_handed_over &&
	for_each_stock_kernel quick_swap_file
}

# ---- a Debian root hibernated and resumed -----------------------------

. "$TOP/tests/lib/dracut-lib.sh"

DEBIAN_ROOT_UUID=5e1d0b7a-3c2f-4d8e-9b6a-0f1e2d3c4b5a
DEBIAN_TIMEOUT=${DEBIAN_TIMEOUT:-600}
# debian.sh's: the root's udev must not load kvm under TCG.
DEBIAN_APPEND="modprobe.blacklist=kvm_amd,kvm_intel,kvm"

# The root's report service (tests/tools/debian-root), replaced: once
# the boot ended, a marker process, its PID said, then systemctl
# hibernate; after the resume (the sleep hook's /run/resumed) the same
# script says whether the marker is alive, and powers off.
write_hibernating_report() { # path
	cat >"$1" <<'EOF'
#!/bin/sh
exec >/dev/console 2>&1
i=0
while :; do
	state=$(systemctl is-system-running)
	case $state in initializing | starting) ;; *) break ;; esac
	i=$((i + 1))
	[ "$i" -lt 1200 ] || break
	sleep 0.1
done
sleep 86400 &
marker=$!
boot=$(cat /proc/sys/kernel/random/boot_id)
echo "TEST RESULT: hibernating marker=$marker script=$$ state=$state swaps=$(awk 'NR > 1 { print $1 }' /proc/swaps | paste -sd, -)"
if ! systemctl hibernate; then
	echo "TEST RESULT: hibernating failed=yes"
	systemctl poweroff -f
fi
i=0
while [ ! -e /run/resumed ] && [ "$i" -lt 6000 ]; do
	sleep 0.1
	i=$((i + 1))
done
echo "TEST RESULT: resumed marker=$marker comm=$(cat /proc/$marker/comm 2>/dev/null || echo gone) script=$$ same_boot=$([ "$(cat /proc/sys/kernel/random/boot_id)" = "$boot" ] && echo yes || echo no)"
systemctl poweroff -f
EOF
	chmod 0755 "$1"
}

# hib_root IMG: a copy of the cached Debian root whose report hibernates,
# with the swap in its fstab, and systemd's own resume from the root
# (systemd-hibernate-resume@, started by resume= on the command line)
# masked: a resume can only come from the initramfs.
hib_root() {
	local img dir=$T/hib-files
	img=$("$TOP/tests/tools/debian-root" 2>"$T/debian-root.log") ||
		{ fail "tests/tools/debian-root failed:" "$(tail -n5 "$T/debian-root.log")"; return 1; }
	cp --sparse=always "$img" "$1" || { fail "unable to copy $img"; return 1; }
	mkdir -p "$dir"
	write_hibernating_report "$dir/report"
	printf '#!/bin/sh\n[ "$1" = post ] && touch /run/resumed\nexit 0\n' >"$dir/hook"
	chmod 0755 "$dir/hook"
	printf 'UUID=%s / ext4 errors=remount-ro 0 1\nUUID=%s none swap sw 0 0\n' \
		"$DEBIAN_ROOT_UUID" "$SWAP_UUID" >"$dir/fstab"
	cat >"$dir/cmds" <<EOF
rm /usr/local/sbin/rescue-report
write $dir/report /usr/local/sbin/rescue-report
rm /etc/fstab
write $dir/fstab /etc/fstab
mkdir /usr/lib/systemd/system-sleep
write $dir/hook /usr/lib/systemd/system-sleep/resume-marker
symlink /etc/systemd/system/systemd-hibernate-resume@.service /dev/null
EOF
	debugfs -w -f "$dir/cmds" "$1" >"$dir/debugfs.log" 2>&1
	debugfs -R 'cat /usr/local/sbin/rescue-report' "$1" 2>/dev/null | grep -q 'systemctl hibernate' &&
	debugfs -R 'cat /usr/lib/systemd/system-sleep/resume-marker' "$1" 2>/dev/null | grep -q resumed ||
		{ fail "debugfs did not write the root's files:" "$(tail -n5 "$dir/debugfs.log")"; return 1; }
}

# hib_boot LOG INITRD APPEND: the stock kernel, 1 GiB, the root on vda and
# the swap on vdb; with $T/steps (a LUKS swap's passphrase), through
# tests/tools/vm-steps.exp.  LOG.txt without carriage returns and colours.
hib_boot() {
	local log=$1 kver status=0 vm=(boot_vm "$1")
	kver=$(stock_kernel_version) || return 1
	[ ! -e "$T/steps" ] ||
		vm=("$TOP/tests/tools/vm-steps.exp" "$log" "$DEBIAN_TIMEOUT" "$T/steps")
	VM_TIMEOUT=$DEBIAN_TIMEOUT "${vm[@]}" --kernel "/boot/vmlinuz-$kver" \
		--initrd "$2" --mem 1G --append "root=UUID=$DEBIAN_ROOT_UUID $DEBIAN_APPEND $3" \
		--disk "virtio-blk:$T/root.img" --disk "virtio-blk:$T/swap.img" ||
		{ show_log "$log" 30; fail "the boot failed"; status=1; }
	tr -d '\r' <"$log" | sed 's/\x1b\[[0-9;]*m//g' >"$log.txt"
	return "$status"
}

LUKS_SWAP_UUID=5a7c0e11-93d4-4c2b-8f6e-1d2c3b4a5f61
LUKS_SWAP_PASS=hibernate-swap-7

# hibernate_resume INITRD APPEND [luks]: boot, hibernate, boot again:
# resumed by rescue-init, the marker process alive with its PID.  The
# 512 MiB swap on vdb, or in a LUKS2 container there (its passphrase
# typed at rescue-init's prompt in both boots).
hibernate_resume() {
	local initrd=$1 append=$2 marker dev=/dev/vdb minor=16 type
	hib_root "$T/root.img" || return 1
	rm -f "$T/swap.img" "$T/steps"
	truncate -s 544M "$T/swap.img" &&
	mkswap -U "$SWAP_UUID" "$T/swap.img" $((512 * 1024)) >/dev/null 2>&1 ||
		{ fail "mkswap failed"; return 1; }
	if [ "${3:-}" = luks ]; then
		luks_encrypt "$T/swap.img" "$LUKS_SWAP_UUID" "$LUKS_SWAP_PASS" || return 1
		passphrase_steps /dev/vdb "$LUKS_SWAP_UUID" "$LUKS_SWAP_PASS"
		dev='/dev/dm-[0-9]+' minor='[0-9]+'
	fi
	hib_boot "$T/boot1.log" "$initrd" "$append" || return 1
	expect_log "$T/boot1.log.txt" "rescue: no hibernation image on $dev \\(resume=UUID=$SWAP_UUID\\): booting the root" \
		"rescue-init finding no image before the hibernation" || return 1
	case $(result_field "$T/boot1.log.txt" hibernating swaps) in
	/dev/vdb | /dev/dm-* | /dev/mapper/luks-*) ;;
	*) fail "the root hibernates with no swap of ours active:" "$(grep -a 'TEST RESULT: hib' "$T/boot1.log.txt")"; return 1 ;;
	esac
	marker=$(result_field "$T/boot1.log.txt" hibernating marker)
	expect_no_log "$T/boot1.log.txt" 'hibernating failed' "a failed systemctl hibernate" || return 1
	type=$(blkid -p -o value -s TYPE "$T/swap.img")
	[ "${3:-}" = luks ] || [ "$type" = swsuspend ] ||
		{ fail "no hibernation image on the swap after the first boot: $(blkid -p "$T/swap.img")"; return 1; }
	hib_boot "$T/boot2.log" "$initrd" "$append" || return 1
	expect_log "$T/boot2.log.txt" "rescue: resuming from the hibernation image on $dev \\(resume=UUID=$SWAP_UUID, [0-9]+:$minor\\)" \
		"rescue-init's resume line" &&
	expect_no_log "$T/boot2.log.txt" 'rescue: (mounted /dev/|exec )' "a root mounted in the resuming boot" &&
	expect_field "$T/boot2.log.txt" resumed marker "$marker" &&
	expect_field "$T/boot2.log.txt" resumed comm sleep &&
	expect_field "$T/boot2.log.txt" resumed same_boot yes || return 1
	note "$(stock_kernel_version): marker process $marker alive after the resume"
}

# mkrescue -k, the swap from initramfs-tools' conf.d/resume (no resume=
# on the command line).
mkrescue_hibernates_debian() {
	local kver
	kver=$(stock_kernel_version) || return 1
	mkdir -p "$T/conf.d"
	echo "RESUME=UUID=$SWAP_UUID" >"$T/conf.d/resume"
	"$BUILD/mkrescue" --init "$BUILD/rescue-init" -k "$kver" --resume-conf "$T/conf.d" \
		-o "$T/rescue.img" 2>"$T/mkrescue.err" ||
		{ fail "mkrescue -k $kver failed:" "$(cat "$T/mkrescue.err")"; return 1; }
	[ "$(bsdtar -xOf "$T/rescue.img" etc/cmdline.d/90-resume.conf)" = "resume=UUID=$SWAP_UUID" ] ||
		{ fail "no resume= from conf.d/resume in the image"; return 1; }
	hibernate_resume "$T/rescue.img" ""
}

# dracut --add devtmpfs-rescue (the shared image, dracut's resume module
# in it now), resume= on the command line.
dracut_hibernates_debian() {
	local img
	img=$(dracut_rescue_image) || return 1
	hibernate_resume "$img" "resume=UUID=$SWAP_UUID"
}

# A swap in a LUKS2 container: opened (the passphrase typed) before the
# resume, which reads the image through dm-crypt.
mkrescue_hibernates_debian_to_luks() {
	local kver
	kver=$(stock_kernel_version) || return 1
	"$BUILD/mkrescue" --init "$BUILD/rescue-init" -k "$kver" --resume-conf '' \
		-o "$T/rescue.img" 2>"$T/mkrescue.err" ||
		{ fail "mkrescue -k $kver failed:" "$(cat "$T/mkrescue.err")"; return 1; }
	hibernate_resume "$T/rescue.img" "resume=UUID=$SWAP_UUID" luks
}

test_debian_hibernates_to_luks_and_resumes_through_mkrescue() {
	for_each_stock_kernel mkrescue_hibernates_debian_to_luks
}

test_debian_hibernates_and_resumes_through_mkrescue() {
	for_each_stock_kernel mkrescue_hibernates_debian
}

test_debian_hibernates_and_resumes_through_dracut() {
	for_each_stock_kernel dracut_hibernates_debian
}
