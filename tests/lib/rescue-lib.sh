# SPDX-License-Identifier: GPL-2.0
# tests/lib/rescue-lib.sh: what the groups that boot rescue-init share (and
# tests/tools/random-layouts, for its dirty roots): the image of the
# rescue-init, pid1, rescue-shell, readonly, faults and members groups
# (mkrescue's, without -k), report-init roots, decoys, boots, the
# rescue shell driver and the dirty ext4 maker.

# shellcheck disable=SC2034 # its variables are for the files that source it
RESCUE_INIT=$BUILD/rescue-init

ROOT_UUID=3c0d8a52-7e41-4f0b-9a6d-2b1e5f7c9001
DECOY_UUID=3c0d8a52-7e41-4f0b-9a6d-2b1e5f7c9002
ROOT_PARTUUID=8e2a61c4-53b7-4d2e-b1f0-6c9d4a3e7001
DECOY_PARTUUID=8e2a61c4-53b7-4d2e-b1f0-6c9d4a3e7002
BASE_PARTUUID=8e2a61c4-53b7-4d2e-b1f0-6c9d4a3e7003

# The image: build/mkrescue's, so that these groups boot what the product
# ships: rescue-init as /init with its tool links, the layout (/etc,
# /root, /newroot, /dev/console) and busybox in the toolkit blob that
# rescue-init unpacks on first need; no e2fsck, storage or disk tools,
# uncompressed.  "with-console" is kept for the callers: mkrescue's
# layout always has the /dev/console node it stood for.  $EXTRA_LIST
# holds the test's cpio-list lines (gen_init_cpio's format):
#  - file /sbin/e2fsck SRC: --e2fsck SRC, in the toolkit, as mkrescue
#    ships it (with the fsck.ext* links);
#  - a file whose mode mkrescue keeps (0755 or 0644 less what the source
#    withholds), a 0755 dir, owned by root: --include, which is exact;
#  - the rest (slink, nod, other modes or owners): a second archive after
#    mkrescue's, which the kernel unpacks over it (a later entry replaces
#    an earlier one).  Never /bin/sh or /bin/busybox: the toolkit puts its
#    own back before the shell starts (make_image_by_hand has no toolkit).
make_image() { # out [with-console]
	local e2fsck=(--no-e2fsck) opts=() rest=$1.rest.list empty=$1.empty-dir
	local kind path f3 f4 f5 f6 more perm
	[ -x "$BUILD/mkrescue" ] || { fail "no $BUILD/mkrescue (make build/mkrescue)"; return 1; }
	rm -f "$rest"
	if [ -n "${EXTRA_LIST:-}" ]; then
		while read -r kind path f3 f4 f5 f6 more; do
			case $kind in '' | '#'*) continue ;; esac
			case $path in /bin/sh | /bin/busybox)
				fail "make_image: the toolkit replaces $path of $EXTRA_LIST (make_image_by_hand)"
				return 1 ;;
			esac
			if [ "$kind $path" = "file /sbin/e2fsck" ] && [ "$f4 $f5 $f6" = "0755 0 0" ]; then
				e2fsck=(--e2fsck "$f3")
				continue
			fi
			if [ "$kind" = file ] && [ -f "$f3" ] && [ "$f5 $f6" = "0 0" ] && [ -z "$more" ]; then
				perm=$((8#$(stat -c %a "$f3")))
				perm=$(( (perm & 8#111 ? 8#755 : 8#644) & (perm | 8#700) ))
				if [ "$perm" -eq $((8#$f4)) ]; then
					opts+=(--include "$f3:$path")
					continue
				fi
			fi
			if [ "$kind" = dir ] && [ "$f3 $f4 $f5" = "0755 0 0" ] && [ -z "$f6" ]; then
				mkdir -p "$empty" && chmod 0755 "$empty" || return 1
				opts+=(--include "$empty:$path")
				continue
			fi
			echo "$kind $path $f3 $f4 $f5 $f6 $more" >>"$rest"
		done <"$EXTRA_LIST"
	fi
	"$BUILD/mkrescue" --init "$RESCUE_INIT" --busybox "$BUSYBOX" --no-storage \
		--no-disk-tools --compress none "${e2fsck[@]}" "${opts[@]}" -o "$1.tmp" \
		2>"$1.err" || { fail "mkrescue failed:" "$(cat "$1.err")"; return 1; }
	rm -f "$1.err"
	if [ -s "$rest" ]; then
		cpio_from_list "$rest" "$1.rest.cpio" || return 1
		# The kernel looks for the next archive on a 4-byte boundary.
		truncate -s %4 "$1.tmp" && cat "$1.rest.cpio" >>"$1.tmp" || return 1
	fi
	mv "$1.tmp" "$1"
}

# The hand-built image mkrescue's replaced: rescue-init as /init, busybox
# as files, rescue-ls and rescue-mount links, a minimal /etc, /newroot,
# and no /dev unless "with-console".  Only for a test whose /bin/sh is its
# own (mkrescue's toolkit would put busybox's back).
make_image_by_hand() { # out [with-console]
	echo "root:x:0:0:root:/root:/bin/sh" >"$T/passwd"
	{
		busybox_cpio_list
		echo "file /init $RESCUE_INIT 0755 0 0"
		echo "slink /bin/rescue-mount /init 0777 0 0"
		echo "slink /bin/rescue-ls /init 0777 0 0"
		echo "dir /etc 0755 0 0"
		echo "file /etc/passwd $T/passwd 0644 0 0"
		echo "dir /root 0700 0 0"
		echo "dir /newroot 0755 0 0"
		if [ "${2:-}" = with-console ]; then
			echo "dir /dev 0755 0 0"
			echo "nod /dev/console 0600 0 0 c 5 1"
		fi
		[ -z "${EXTRA_LIST:-}" ] || cat "$EXTRA_LIST"
	} >"$T/initramfs.list"
	cpio_from_list "$T/initramfs.list" "$1"
}

# The real root's init reports what it got: the marker, the device, type
# and mode of /, its PID, argv and $foo, /dev and /run (and what is left
# in /run: rescue-init leaves nothing there), whether the initramfs is
# gone, then powers off (or starts a shell with "shell").
#
# Whether the initramfs is gone is read from the memory its files held:
# the real root cannot reach the old rootfs (it is overmounted, and no
# process is left in it), and a file of the real root says nothing about
# it.  The rootfs is ramfs when root= is given, whose pages count as
# Unevictable, and tmpfs otherwise (Shmem).  make_image's files hold
# more than half of BUSYBOX_KB before the toolkit is unpacked (/init and
# the blob, Debian 12's busybox: about 1200 of 1935 KiB), and all of it
# after (busybox itself); once they are deleted, 0 to 24 KiB are left.
# rescue-init deletes them in a child once init runs, so the check waits
# up to 10 s for the memory to come back.  rootfs_kb says what was left.
write_report_init() { # path [shell]
	local busybox_kb
	busybox_kb=$(($(stat -c %s "$BUSYBOX") / 1024))
	cat >"$1" <<'EOF'
#!/bin/sh
mnt() { awk -v m="$1" -v f="$2" '$2 == m { v = $f } END { print v }' /proc/mounts; }
held_kb() { awk '$1 == "Unevictable:" || $1 == "Shmem:" { kb += $2 } END { print kb }' /proc/meminfo; }
root_mode=$(mnt / 4 | cut -d, -f1)
args=$(echo "$*" | tr ' ' ,)
i=0
while [ "$(held_kb)" -ge $((BUSYBOX_KB / 2)) ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
rootfs_kb=$(held_kb)
if [ "$rootfs_kb" -ge $((BUSYBOX_KB / 2)) ]; then initramfs=left; else initramfs=gone; fi
leaked=$(ls -l /proc/1/fd/ | grep -c -e 'socket:' -e kmsg -e /newroot -e /sys/)
run_left=$(ls -A /run | tr '\n' , | sed 's/,$//')
echo "TEST RESULT: root marker=$(cat /marker) dev=$(mnt / 1) fs=$(mnt / 3) mode=$root_mode opts=$(mnt / 4) pid=$$ init=$0 argv=${args:-none} foo=${foo:-unset} rootwait_env=${rootwait:-unset} dev_fs=$(mnt /dev 3) run_fs=$(mnt /run 3) sys_fs=$(mnt /sys 3) initramfs=$initramfs rootfs_kb=$rootfs_kb leaked_fds=$leaked run_left=${run_left:-none}"
EOF
	sed -i "s/BUSYBOX_KB/$busybox_kb/g" "$1"
	if [ "${2:-}" = shell ]; then
		echo 'exec /bin/sh' >>"$1"
	else
		echo 'reboot -f' >>"$1"
	fi
	chmod 0755 "$1"
}

# make_root_dir DIR MARKER [shell]: a root tree whose /sbin/init reports.
make_root_dir() {
	make_root_tree "$1" </dev/null
	write_report_init "$1/sbin/init" "${3:-}"
	echo "$2" >"$1/marker"
}

# stock_image OUT [mkrescue options]: mkrescue -k's image of the stock
# kernel under test (stock_kernel_version), with this tree's rescue-init;
# a failure fails the test with mkrescue's words.
stock_image() {
	local kver out=$1
	shift
	kver=$(stock_kernel_version) || return 1
	"$BUILD/mkrescue" --init "$RESCUE_INIT" -k "$kver" "$@" -o "$out" 2>"$T/mkrescue.err" ||
		{ fail "mkrescue -k $kver $* failed:" "$(cat "$T/mkrescue.err")"; return 1; }
}

# A disk with an ext4 filesystem and nothing else (a decoy).
make_decoy() { # img uuid label
	mkdir -p "$T/decoy"
	echo decoy >"$T/decoy/marker"
	make_ext4 "$T/decoy" "$1" 8 "$2" "$3"
}

# boot IMG ARGS [run-vm options]: boot the image on build/bzImage.
boot() {
	local img=$1 append=$2
	shift 2
	boot_vm "$T/console.log" --kernel "$BZIMAGE" --initrd "$img" \
		--append "$append" "$@"
}

# root_boot MARKER APPEND [run-vm options]: a root ($T/root.img: ext4,
# $ROOT_UUID) whose init reports MARKER, on virtio (vda), booted with
# APPEND on the image $T/initrd the caller made.
root_boot() {
	local marker=$1 append=$2
	shift 2
	make_root_dir "$T/root" "$marker"
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" root || return 1
	boot "$T/initrd" "$append" --disk "virtio-blk:$T/root.img" "$@"
}

# The line rescue-init logs last, and the benchmarks parse.
expect_exec_line() { # init device fstype ro|rw
	expect_log "$T/console.log" \
		"^\[ *[0-9]+\.[0-9]+\] rescue: exec $1 on $2 \($3, $4\) after [0-9]+ us$" \
		"the exec line for $1 on $2"
}

# A root found by root= among decoys: the guest reports marker and mode.
expect_root() { # marker device mode
	expect_field "$T/console.log" root marker "$1" &&
	expect_field "$T/console.log" root fs ext4 &&
	expect_field "$T/console.log" root mode "$3" &&
	expect_field "$T/console.log" root pid 1 &&
	expect_field "$T/console.log" root initramfs gone &&
	expect_field "$T/console.log" root leaked_fds 0 &&
	expect_field "$T/console.log" root dev_fs devtmpfs &&
	expect_field "$T/console.log" root run_fs tmpfs &&
	expect_field "$T/console.log" root sys_fs sysfs &&
	expect_exec_line /sbin/init "$2" ext4 "$3"
}

# vm_shell LOG TIMEOUT CMDFILE run-vm-args: tests/tools/vm-shell.exp on the
# rescue shell's prompt.
vm_shell() {
	local log=$1 timeout=$2 cmds=$3
	shift 3
	"$TOP/tests/tools/vm-shell.exp" "$log" "$timeout" "$SHELL_PROMPT" "$cmds" \
		--kernel "$BZIMAGE" "$@" || { show_log "$log" 40; return 1; }
}

# vm_steps APPEND: tests/tools/vm-steps.exp with $T/steps, booting the image
# $T/initrd on build/bzImage.
vm_steps() {
	"$TOP/tests/tools/vm-steps.exp" "$T/console.log" "$VM_TIMEOUT" "$T/steps" \
		--kernel "$BZIMAGE" --initrd "$T/initrd" --append "$1" ||
		{ show_log "$T/console.log" 40; return 1; }
}

# The guest types "TEST" and "RESULT" apart, so the echo of the typed
# line never looks like a result.
result_cmd() { # case key expression [key expression]...
	local c=$1 fmt="" args=""
	shift
	while [ $# -gt 1 ]; do
		fmt="$fmt $1=%s"
		args="$args \"$2\""
		shift 2
	done
	printf "printf '%%s %%s: %s%s\\\\n' TEST RESULT%s\n" "$c" "$fmt" "$args"
}

# ---- an ext3/ext4 with an unreplayed journal ------------------------------

DIRTY_CACHE=$BUILD/dirty-ext4

# The maker's /init: mount DEV read-write, write files into the journal,
# sync (the transaction is committed, not checkpointed), then reboot
# without unmounting: needs_recovery stays set on the disk.
write_dirty_maker_init() { # path dev
	cat >"$1" <<'EOF'
#!/bin/sh
mount -t proc proc /proc
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /mnt
mount -t ext4 -o rw,commit=600 DEV /mnt || { echo "TEST RESULT: maker mounted=no"; reboot -f; }
mkdir -p /mnt/dirty
i=0
while [ $i -lt 50 ]; do
	echo "written in the journal $i" >/mnt/dirty/f$i
	i=$((i + 1))
done
echo dirty >/mnt/dirty/marker
sync
echo "TEST RESULT: maker mounted=yes"
reboot -f -n
EOF
	sed -i "s|DEV|$2|" "$1"
	chmod 0755 "$1"
}

# needs_recovery IMG [OFFSET]: the ext3/ext4 at byte OFFSET of IMG has a
# journal to replay.
needs_recovery() {
	dumpe2fs -h "$1?offset=${2:-0}" 2>/dev/null |
		grep -q '^Filesystem features:.*needs_recovery'
}

# dirty_ext4_disk OUT DEV OFFSET RECIPE [MAKE...]: OUT with the ext3/ext4
# at byte OFFSET (DEV in a VM with OUT as its only disk, on virtio) left
# with an unreplayed journal by a VM on the patched kernel.  The maker's
# bytes differ from run to run (inode generations, times), so the result
# is made once per RECIPE (what OUT is made of), maker, kernel and
# busybox, in $DIRTY_CACHE ($DIRTY_CACHED names it), and copied to OUT;
# MAKE... (a command that writes the clean OUT) runs only when it is not
# there yet.
dirty_ext4_disk() {
	local out=$1 dev=$2 offset=$3 recipe=$4 key cached
	shift 4
	write_dirty_maker_init "$T/maker-init" "$dev"
	key=$( {
		echo "$recipe"
		sha256sum "$T/maker-init" "$BZIMAGE" "$BUSYBOX" | cut -d' ' -f1
		echo "$dev $offset"
	} | sha256sum | cut -c1-16)
	cached=$DIRTY_CACHE/$key.img
	DIRTY_CACHED=$cached
	if [ ! -e "$cached" ]; then
		[ $# -eq 0 ] || "$@" || return 1
		busybox_initramfs "$T/maker.cpio" "dir /dev 0755 0 0" \
			"nod /dev/console 0600 0 0 c 5 1" "file /init $T/maker-init 0755 0 0" || return 1
		boot_vm "$T/maker.log" --kernel "$BZIMAGE" --initrd "$T/maker.cpio" \
			--disk "virtio-blk:$out" || return 1
		expect_field "$T/maker.log" maker mounted yes || return 1
		needs_recovery "$out" "$offset" ||
			{ fail "the maker VM left $out without needs_recovery"; return 1; }
		mkdir -p "$DIRTY_CACHE"
		cp --sparse=always "$out" "$cached.tmp.$$" && mv "$cached.tmp.$$" "$cached"
	fi
	cp --sparse=always "$cached" "$out"
}
