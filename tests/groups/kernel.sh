# SPDX-License-Identifier: GPL-2.0
# tests/groups/kernel.sh: the patched kernels (build/bzImage on 6.1,
# build/bzImage-6.12) in QEMU: devtmpfs on the initramfs /dev before
# rdinit= runs, its entries and its off switch, init=/bin/sh without an
# initramfs, node lifetime through the test module, and each base's
# series itself.  Every test runs once per base (kernel/bases.sh).  What
# dracut, initramfs-tools and rescue-init do on top of the mount:
# tests/groups/kernel-userspace.sh.

. "$TOP/kernel/bases.sh"

# One disk on each bus the fragment supports, in this order.
EVERY_BUS=(virtio-blk virtio-scsi ahci nvme usb)

every_bus_disks() {
	local bus
	for bus in "${EVERY_BUS[@]}"; do
		blank_disk "$T/$bus.img" 4
		printf -- '--disk %s:%s ' "$bus" "$T/$bus.img"
	done
}

# The rdinit= program of the /dev tests: it mounts nothing, and reports
# which nodes were there when it started.  USB storage is probed by the
# hub thread after userspace starts (the kernel does not wait for it),
# so with wait_sd=N on the command line (the kernel passes it in the
# environment) it waits up to 10 s for N sd disks and reports them apart.
write_dev_report() {
	cat >"$T/report-dev" <<'EOF'
#!/bin/sh
# First, before any redirection to /dev/null can create a file there.
entries=$(ls /dev | wc -l)
yn() { if "$@"; then echo yes; else echo no; fi; }
sd_now=$(ls /dev | grep -c '^sd[a-z]$')
vda=$(yn test -b /dev/vda)
nvme=$(yn test -b /dev/nvme0n1)
fd=$(yn test -h /dev/fd)
stdin=$(readlink /dev/stdin)
stdout=$(readlink /dev/stdout)
stderr=$(readlink /dev/stderr)
pts=$(yn test -d /dev/pts)
shm=$(stat -c %a /dev/shm 2>/dev/null || echo none)
console=$(yn test -c /dev/console)
i=0
while [ "$(ls /dev | grep -c '^sd[a-z]$')" -lt "${wait_sd:-0}" ] && [ $i -lt 100 ]; do
	sleep 0.1; i=$((i + 1))
done
sd_later=$(ls /dev | grep -c '^sd[a-z]$')
mount -t proc proc /proc
opts=,$(awk '$2 == "/dev" { o = $4 } END { print o }' /proc/mounts),
case $opts in *,nosuid,*) nosuid=yes ;; *) nosuid=no ;; esac
case $opts in *,noexec,*) noexec=yes ;; *) noexec=no ;; esac
echo "TEST RESULT: dev vda=$vda nvme0n1=$nvme sd_at_start=$sd_now sd_after_usb=$sd_later console=$console fd=$fd stdin=$stdin stdout=$stdout stderr=$stderr pts=$pts shm=$shm entries=$entries dev_nosuid=$nosuid dev_noexec=$noexec"
ls /dev | tr '\n' ' '; echo
reboot -f
EOF
}

# An initramfs with busybox and the report as /report-dev.  Without
# /dev, unless "with-console" asks for /dev/console as in a classic
# initramfs (needed when nothing mounts devtmpfs, to see any output).
make_report_initramfs() { # out [with-console]
	local console=()
	write_dev_report
	[ "${2:-}" != with-console ] || console=("dir /dev 0755 0 0" "nod /dev/console 0600 0 0 c 5 1")
	busybox_initramfs "$1" "file /report-dev $T/report-dev 0755 0 0" "${console[@]}"
}

rdinit_sees_every_bus_at_once() {
	make_report_initramfs "$T/initramfs.cpio" || return 1
	# shellcheck disable=SC2046 # every_bus_disks: run-vm options, one word each
	boot_vm "$T/console.log" --kernel "$BZIMAGE" --initrd "$T/initramfs.cpio" \
		--append "rdinit=/report-dev wait_sd=3" $(every_bus_disks) || return 1
	expect_log "$T/console.log" 'devtmpfs: mounted on initramfs /dev' \
		"the kernel's mount message" &&
	expect_fields dev vda=yes nvme0n1=yes sd_at_start=2 sd_after_usb=3 console=yes \
		dev_nosuid=yes dev_noexec=no
}

# devtmpfs.mount= keeps its meaning, the mount on the real root: 0 does
# not turn the initramfs mount off (devtmpfs.initramfs= does).
rdinit_gets_common_entries() {
	make_report_initramfs "$T/initramfs.cpio" || return 1
	boot_vm "$T/console.log" --kernel "$BZIMAGE" --initrd "$T/initramfs.cpio" \
		--append "rdinit=/report-dev devtmpfs.mount=0" || return 1
	expect_log "$T/console.log" 'devtmpfs: mounted on initramfs /dev' \
		"the kernel's mount message with devtmpfs.mount=0" &&
	expect_fields dev fd=yes stdin=/proc/self/fd/0 stdout=/proc/self/fd/1 \
		stderr=/proc/self/fd/2 pts=yes shm=none
}

devtmpfs_entries_0_leaves_them_out() {
	make_report_initramfs "$T/initramfs.cpio" || return 1
	blank_disk "$T/vda.img" 4
	boot_vm "$T/console.log" --kernel "$BZIMAGE" --initrd "$T/initramfs.cpio" \
		--append "rdinit=/report-dev devtmpfs.entries=0" --disk "virtio-blk:$T/vda.img" || return 1
	expect_fields dev vda=yes fd=no pts=no shm=none
}

devtmpfs_initramfs_0_leaves_initramfs_dev_alone() {
	make_report_initramfs "$T/initramfs.cpio" with-console || return 1
	# shellcheck disable=SC2046 # every_bus_disks: run-vm options, one word each
	boot_vm "$T/console.log" --kernel "$BZIMAGE" --initrd "$T/initramfs.cpio" \
		--append "rdinit=/report-dev devtmpfs.initramfs=0" $(every_bus_disks) || return 1
	expect_no_log "$T/console.log" 'devtmpfs: mounted' "devtmpfs mount" &&
	expect_fields dev vda=no nvme0n1=no sd_at_start=0 entries=1
}

# The lines of the early boot log that concern /dev: devtmpfs's own,
# the initial console's and the start of the init, without timestamps.
dev_boot_lines() { # log
	tr -d '\r' <"$1" | sed -n 's/^\[ *[0-9.]*\] //p' |
		grep -E '^devtmpfs|initial console|as init process' | sort
}

# With devtmpfs.initramfs=0 the patched kernel's early boot, as far as
# /dev goes, is that of Debian's unpatched kernel of the same series on
# the same initramfs (a classic one, with /dev/console): the same
# devtmpfs and console lines, and the archive's /dev alone in it.
devtmpfs_initramfs_0_boots_as_unpatched() {
	local kver
	# shellcheck disable=SC2153 # BASE: set by for_each_kernel_base (kernel/bases.sh)
	kver=$(stock_kernel_versions | grep -m1 "^$BASE\.") ||
		{ fail "no Debian stock kernel $BASE.x in /boot (make deps)"; return 1; }
	make_report_initramfs "$T/initramfs.cpio" with-console || return 1
	boot_vm "$T/stock.log" --kernel "/boot/vmlinuz-$kver" --initrd "$T/initramfs.cpio" \
		--mem 512M --append "rdinit=/report-dev" || return 1
	boot_vm "$T/console.log" --kernel "$BZIMAGE" --initrd "$T/initramfs.cpio" \
		--append "rdinit=/report-dev devtmpfs.initramfs=0" || return 1
	local stock patched
	stock=$(dev_boot_lines "$T/stock.log")
	patched=$(dev_boot_lines "$T/console.log")
	[ -n "$stock" ] || { fail "no /dev lines in the log of $kver"; show_log "$T/stock.log"; return 1; }
	[ "$stock" = "$patched" ] ||
		{ fail "/dev lines differ, $kver:" "$stock" "patched, devtmpfs.initramfs=0:" "$patched"; return 1; }
	note "$BASE: as $kver: $(tr '\n' ';' <<<"$patched")"
	expect_fields dev console=yes entries="$(result_field "$T/stock.log" dev entries)" \
		dev_nosuid=no dev_noexec=no
}

# init=/bin/sh, no initramfs: type into the shell on the serial console.
# The commands print "TEST" and "RESULT" apart, so that the echo of the
# typed line never looks like a result.
write_shell_commands() {
	cat >"$T/commands" <<'EOF'
mount -t proc proc /proc
printf '%s %s: sh pid=%s root=%s dev_fs=%s vda=%s nodes=%s vdb1=%s\n' TEST RESULT $$ "$(awk '$2 == "/" { d = $1 } END { print d }' /proc/mounts)" "$(awk '$2 == "/dev" { print $3 }' /proc/mounts)" "$(test -b /dev/vda && echo yes || echo no)" "$(ls /dev | wc -l)" "$(awk '$4 == "vdb1" { print $1 ":" $2 }' /proc/partitions)"
EOF
}

init_sh_without_initramfs_by_dev_vda() {
	make_root_tree "$T/root" </dev/null
	make_ext4 "$T/root" "$T/root.img" 16 2f4ae0b6-5c1b-4b7f-9e21-4c1d6a7e0002 shroot || return 1
	write_shell_commands
	"$TOP/tests/tools/vm-shell.exp" "$T/console.log" "$VM_TIMEOUT" "$SHELL_PROMPT" "$T/commands" \
		--kernel "$BZIMAGE" --append "root=/dev/vda init=/bin/sh" \
		--disk "virtio-blk:$T/root.img" || { show_log "$T/console.log"; return 1; }
	expect_fields sh pid=1 root=/dev/root dev_fs=devtmpfs vda=yes
}

init_sh_without_initramfs_by_partuuid() {
	local partuuid=6a1f3b52-0d4e-4c3a-9b8f-1e2d3c4b5a69
	make_root_tree "$T/root" </dev/null
	make_gpt "$T/root.img" 16 "partroot:$partuuid:rest" && put_ext4 "$T/root.img" 1 \
		"$T/root" 2f4ae0b6-5c1b-4b7f-9e21-4c1d6a7e0003 partroot || return 1
	blank_disk "$T/decoy.img" 4
	write_shell_commands
	# The decoy comes first, so the root is vdb: found by PARTUUID only.
	"$TOP/tests/tools/vm-shell.exp" "$T/console.log" "$VM_TIMEOUT" "$SHELL_PROMPT" "$T/commands" \
		--kernel "$BZIMAGE" --append "root=PARTUUID=$partuuid init=/bin/sh" \
		--disk "virtio-blk:$T/decoy.img" --disk "virtio-blk:$T/root.img" ||
		{ show_log "$T/console.log"; return 1; }
	# virtio-blk's major is dynamic: 254, or 253 when md (built in)
	# took the first one; vdb1 is minor 17 either way.
	local vdb1
	vdb1=$(result_field "$T/console.log" sh vdb1)
	[[ $vdb1 =~ ^[0-9]+:17$ ]] || { fail "vdb1 is '$vdb1' in /proc/partitions, not MAJOR:17"; return 1; }
	expect_log "$T/console.log" "VFS: Mounted root \\(ext4 filesystem\\) readonly on device $vdb1" \
		"the root mounted from vdb1 ($vdb1)" &&
	expect_fields sh pid=1 dev_fs=devtmpfs vda=yes
}

# module_check_boot CHECK [LINE...]: the patched kernel on an initramfs
# of busybox, the test module and the script $T/CHECK, run as rdinit=
# (and the gen_init_cpio LINEs).
module_check_boot() {
	local check=$1
	shift
	busybox_initramfs "$T/initramfs.cpio" "file /$check $T/$check 0755 0 0" \
		"file /devtmpfs_test.ko $TEST_MODULE 0644 0 0" "$@" || return 1
	boot_vm "$T/console.log" --kernel "$BZIMAGE" --initrd "$T/initramfs.cpio" \
		--append "rdinit=/$check"
}

# The test module creates and removes devices on request; the guest
# checks each node right after the write that created or removed it.
# A node goes with its device even when userspace changed its mode or
# owner: devtmpfs cannot tell a device that comes back from another
# that gets its name and dev_t.
module_nodes_follow_devices() {
	# shellcheck disable=SC2153 # BASE: set by for_each_kernel_base (kernel/bases.sh)
	[ -r "$TEST_MODULE" ] || { fail "missing $TEST_MODULE (make test-module KVER=$BASE)"; return 1; }
	cat >"$T/check-nodes" <<'EOF'
#!/bin/sh
mount -t sysfs sysfs /sys
insmod /devtmpfs_test.ko || { echo "TEST RESULT: nodes insmod=failed"; reboot -f; }
C=/sys/class/devtmpfs_test
attrs() { stat -c '%F:%a:%u:%g' "$1" 2>/dev/null | tr ' ' _ || echo missing; }
there() { if [ -e "$1" ] || [ -h "$1" ]; then echo yes; else echo no; fi; }
echo 'rescue-test!sub!node' >$C/create
nested=$(attrs /dev/rescue-test/sub/node)
echo 'rescue-flat' >$C/create
flat=$(attrs /dev/rescue-flat)
echo 'rescue-test!sub!node' >$C/remove
nested_gone=$(there /dev/rescue-test/sub/node)
sub_gone=$(there /dev/rescue-test/sub)
top_gone=$(there /dev/rescue-test)
for n in plain mode owner; do echo "rescue-test!keep!$n" >$C/create; done
chmod 0640 /dev/rescue-test/keep/mode
chown 1:1 /dev/rescue-test/keep/owner
for n in plain mode owner; do echo "rescue-test!keep!$n" >$C/remove; done
plain=$(there /dev/rescue-test/keep/plain)
mode=$(there /dev/rescue-test/keep/mode)
owner=$(there /dev/rescue-test/keep/owner)
keep_dir=$(there /dev/rescue-test/keep)
rmmod devtmpfs_test
flat_after_rmmod=$(there /dev/rescue-flat)
echo "TEST RESULT: nodes nested=$nested flat=$flat nested_there=$nested_gone sub_there=$sub_gone top_there=$top_gone plain_there=$plain changed_mode_there=$mode changed_owner_there=$owner keep_dir_there=$keep_dir flat_after_rmmod=$flat_after_rmmod"
reboot -f
EOF
	module_check_boot check-nodes || return 1
	local chr=character_special_file
	expect_fields nodes nested="$chr:600:0:0" flat="$chr:600:0:0" nested_there=no \
		sub_there=no top_there=no plain_there=no changed_mode_there=no \
		changed_owner_there=no keep_dir_there=no flat_after_rmmod=no
}

# A node made world-readable for one device must not open the next
# device that gets its dev_t: create a, chmod 666 /dev/a, remove a,
# create b (the module gives it a's dev_t), and a user reads /dev/a.
# The module's nodes read back the name of the device they open, so
# root reading b through /dev/b shows that a read can reach b at all.
module_reused_devt_reaches_no_kept_node() {
	[ -r "$TEST_MODULE" ] || { fail "missing $TEST_MODULE (make test-module KVER=$BASE)"; return 1; }
	cat >"$T/check-reuse" <<'EOF'
#!/bin/sh
mount -t sysfs sysfs /sys
insmod /devtmpfs_test.ko || { echo "TEST RESULT: reuse insmod=failed"; reboot -f; }
C=/sys/class/devtmpfs_test
as_user() { su -s /bin/sh user -c "cat $1 2>/dev/null || echo none"; }
echo a >$C/create
chmod 666 /dev/a
a_devt=$(stat -c %t:%T /dev/a)
a_before=$(as_user /dev/a)
echo a >$C/remove
echo b >$C/create
b_devt=$(stat -c %t:%T /dev/b)
if [ -e /dev/a ]; then a_there=yes; else a_there=no; fi
a_after=$(as_user /dev/a)
b_root=$(cat /dev/b)
b_user=$(as_user /dev/b)
same=no
[ "$a_devt" = "$b_devt" ] && same=yes
echo "TEST RESULT: reuse same_devt=$same user_reads_a_before=$a_before a_there=$a_there user_reads_a_after=$a_after root_reads_b=$b_root user_reads_b=$b_user"
reboot -f
EOF
	printf 'root:x:0:0::/:/bin/sh\nuser:x:1000:1000::/:/bin/sh\n' >"$T/passwd"
	printf 'root:x:0:\nuser:x:1000:\n' >"$T/group"
	module_check_boot check-reuse "dir /etc 0755 0 0" "file /etc/passwd $T/passwd 0644 0 0" \
		"file /etc/group $T/group 0644 0 0" || return 1
	expect_fields reuse same_devt=yes user_reads_a_before=a root_reads_b=b \
		user_reads_b=none a_there=no user_reads_a_after=none
}

series_patches() {
	grep -v -e '^#' -e '^[[:space:]]*$' "$SERIES_DIR/series"
}

# The series carries no Signed-off-by of its own: the DCO asks for a
# person's, which the submitter adds where each patch marks the place
# (checkpatch's --no-signoff skips that check until then).
SOB_PLACE="[ Signed-off-by: goes here: the submitter's own, under the DCO ]"

patches_pass_checkpatch_strict() {
	local checkpatch=$KDIR/src/scripts/checkpatch.pl p out bad=0 nosob
	[ -x "$checkpatch" ] || { fail "missing $checkpatch (make kernel KVER=$BASE)"; return 1; }
	for p in $(series_patches); do
		nosob=()
		grep -qxF "$SOB_PLACE" "$SERIES_DIR/$p" && nosob=(--no-signoff)
		out=$(cd "$KDIR/src" && "$checkpatch" --strict --no-tree "${nosob[@]}" "$SERIES_DIR/$p" 2>&1)
		if ! grep -q '^total: 0 errors, 0 warnings, 0 checks' <<<"$out"; then
			fail "$p:" "$out"
			bad=1
		fi
		grep -q '^Signed-off-by: ' "$SERIES_DIR/$p" || [ ${#nosob[@]} -eq 1 ] ||
			{ fail "$p has neither a Signed-off-by nor the place for it"; bad=1; }
	done
	grep -qxF "$SOB_PLACE" "$SERIES_DIR/0000-cover-letter.patch" ||
		{ fail "$SERIES_DIR/0000-cover-letter.patch is missing or marks no place for the Signed-off-by"; bad=1; }
	[ "$bad" -eq 0 ] && note "$BASE: $(series_patches | wc -l) patches clean under checkpatch.pl --strict"
}

# Every patch applies to the pristine tarball of its base, in series
# order, with neither fuzz nor offset (patch --dry-run first, then for real so that
# the next patch sees its predecessors).
series_applies_cleanly() {
	local p out files
	files=$(for p in $(series_patches); do
		sed -n "s|^+++ b/\\([^[:space:]]*\\).*|linux-source-$BASE/\\1|p" "$SERIES_DIR/$p"
	done | sort -u)
	mkdir -p "$T/src"
	# shellcheck disable=SC2086 # files: paths of the kernel tree, one word each
	tar -xf "$TARBALL" -C "$T/src" --strip-components=1 $files ||
		{ fail "unable to extract the files the series touches from $TARBALL"; return 1; }
	for p in $(series_patches); do
		if ! out=$(patch -d "$T/src" -p1 --dry-run --batch <"$SERIES_DIR/$p" 2>&1); then
			fail "$p does not apply:" "$out"
			return 1
		fi
		if grep -Eq 'fuzz|offset|Reversed' <<<"$out"; then
			fail "$p applies, but not cleanly:" "$out"
			return 1
		fi
		patch -d "$T/src" -p1 --batch --quiet <"$SERIES_DIR/$p" || return 1
	done
}

# Each test on each kernel base.
test_rdinit_sees_every_bus_at_once() { for_each_kernel_base rdinit_sees_every_bus_at_once; }
test_rdinit_gets_common_entries() { for_each_kernel_base rdinit_gets_common_entries; }
test_devtmpfs_entries_0_leaves_them_out() { for_each_kernel_base devtmpfs_entries_0_leaves_them_out; }
test_devtmpfs_initramfs_0_leaves_initramfs_dev_alone() { for_each_kernel_base devtmpfs_initramfs_0_leaves_initramfs_dev_alone; }
test_devtmpfs_initramfs_0_boots_as_unpatched() { for_each_kernel_base devtmpfs_initramfs_0_boots_as_unpatched; }
test_init_sh_without_initramfs_by_dev_vda() { for_each_kernel_base init_sh_without_initramfs_by_dev_vda; }
test_init_sh_without_initramfs_by_partuuid() { for_each_kernel_base init_sh_without_initramfs_by_partuuid; }
test_module_nodes_follow_devices() { for_each_kernel_base module_nodes_follow_devices; }
test_module_reused_devt_reaches_no_kept_node() { for_each_kernel_base module_reused_devt_reaches_no_kept_node; }
test_patches_pass_checkpatch_strict() { for_each_kernel_base patches_pass_checkpatch_strict; }
test_series_applies_cleanly() { for_each_kernel_base series_applies_cleanly; }

# make check builds the other bases in the background, from tests/run,
# where BUILD has become absolute (tests/lib/lib.sh).  On a machine without
# those kernels yet, that make must find a rule for each target: a
# prebuilt kernel hides a wrong path (an existing file needs no rule),
# so the check is a dry run in an empty build directory, made relative
# to the top as make check gets it (MAKE=: as make -n still runs the
# recipe lines that call $(MAKE)).
test_check_background_build_finds_its_rules() {
	local rel cmd out base
	rel=$(realpath --relative-to="$TOP" "$T")/build
	cmd=$(cd "$TOP" && make -s --no-print-directory BUILD="$rel" print-CHECK_BACKGROUND) ||
		{ fail "make print-CHECK_BACKGROUND failed"; return 1; }
	[ -n "$cmd" ] || { fail "make check starts no background build for $KERNEL_BASES"; return 1; }
	if ! out=$(cd "$TOP" && BUILD=$T/build bash -c "$cmd -n MAKE=:" 2>&1); then
		fail "the background build of make check fails on a machine without its kernels:" "$cmd" "$out"
		return 1
	fi
	for base in $KERNEL_BASES; do
		[ "$base" = 6.1 ] && continue
		grep -q "kernel/build-kernel.sh $base\$" <<<"$out" ||
			{ fail "the background build does not build the $base kernel:" "$out"; return 1; }
	done
	note "background build: $cmd"
}
