# SPDX-License-Identifier: GPL-2.0
# tests/groups/kernel-userspace.sh: what userspace does on top of the patched
# kernel's devtmpfs mount on the initramfs /dev: the patterns of dracut
# and initramfs-tools (mount only if not mounted; mount and fall back to
# a tmpfs, move /dev, rm -rf the old one), Alpine's (mount with a size
# and fall back to a tmpfs), mkinitcpio's (a plain mount), booster's
# (stop the boot when the mount fails), Debian 12's real dracut and
# update-initramfs images, and rescue-init's own /dev/shm.  Each boots
# on every kernel base (kernel/bases.sh).  The kernel itself is
# tests/groups/kernel.sh.

. "$TOP/kernel/bases.sh"

# The real root of the pattern tests: its init reports what it sees.
make_reporting_root() { # img
	make_root_tree "$T/root" <<'EOF'
#!/bin/sh
[ -e /proc/mounts ] || mount -t proc proc /proc
root_dev=$(awk '$2 == "/" { d = $1 } END { print d }' /proc/mounts)
dev_fs=$(awk '$2 == "/dev" { f = $3 } END { print f }' /proc/mounts)
dev_mounts=$(awk '$2 == "/dev" { n++ } END { print n + 0 }' /proc/mounts)
has_opt() { # mountpoint option
	case ",$(awk -v m="$1" '$2 == m { o = $4 } END { print o }' /proc/mounts)," in
	*,"$2",*) echo yes ;;
	*) echo no ;;
	esac
}
dev_nosuid=$(has_opt /dev nosuid)
dev_noexec=$(has_opt /dev noexec)
# What SGX's runtime does with /dev/sgx_enclave: map a node executable.
dev_mmap_exec=$(/bin/mmap-exec /dev/zero)
shm_fs=$(awk '$2 == "/dev/shm" { f = $3 } END { print f }' /proc/mounts)
shm_mode=$(stat -c %a /dev/shm 2>/dev/null || echo none)
if [ -b /dev/vda ]; then vda=yes; else vda=no; fi
if [ -c /dev/console ]; then console=yes; else console=no; fi
# Out of the initramfs, a devtmpfs mount on /dev fails with EBUSY again
# instead of changing the flags of the mount there.
if mount -t devtmpfs devtmpfs /dev 2>/dev/null; then late=mounted; else late=refused; fi
echo "TEST RESULT: root marker=$(cat /marker) root=$root_dev dev_fs=$dev_fs dev_mounts=$dev_mounts dev_nosuid=$dev_nosuid dev_noexec=$dev_noexec dev_mmap_exec=$dev_mmap_exec shm_fs=${shm_fs:-none} shm_mode=$shm_mode late_mount=$late dev_nosuid_after=$(has_opt /dev nosuid) vda=$vda console=$console nodes=$(ls /dev | wc -l)"
reboot -f
EOF
	echo "pattern-root" >"$T/root/marker"
	gcc -std=gnu11 -Wall -Wextra -Werror -static -s -o "$T/root/bin/mmap-exec" \
		"$TOP/tests/fixtures/mmap-exec.c" || { fail "unable to build mmap-exec"; return 1; }
	make_ext4 "$T/root" "$1" 16 2f4ae0b6-5c1b-4b7f-9e21-4c1d6a7e0001 pattern-root
}

# make_pattern_initramfs OUT: an initramfs whose /init is stdin, with
# /report-dev to report /dev in the initramfs ($DEV_MOUNT: the status of
# the init's own devtmpfs mount; needs /proc), and /to-sysroot, the end
# of a plain init (util-linux switch_root moves /dev, /proc, /sys and
# /run; busybox's does not: done by hand here).
make_pattern_initramfs() {
	cat >"$T/init"
	cat >"$T/to-sysroot" <<'EOF'
#!/bin/sh
i=0
while [ ! -b /dev/vda ] && [ $i -lt 30 ]; do sleep 0.1; i=$((i + 1)); done
mount -o ro /dev/vda /sysroot || { echo "mount of /dev/vda failed"; exec sh; }
for d in dev proc sys run; do mount --move /$d /sysroot/$d; done
exec switch_root /sysroot /sbin/init
EOF
	cat >"$T/report-dev" <<'EOF'
#!/bin/sh
dev_fs=$(awk '$2 == "/dev" { f = $3 } END { print f }' /proc/mounts)
dev_mounts=$(awk '$2 == "/dev" { n++ } END { print n + 0 }' /proc/mounts)
if [ -b /dev/vda ]; then vda=yes; else vda=no; fi
echo "TEST RESULT: initramfs dev_mount_status=${DEV_MOUNT:-none} dev_fs=$dev_fs dev_mounts=$dev_mounts vda=$vda"
EOF
	busybox_initramfs "$1" "dir /dev 0755 0 0" "nod /dev/console 0600 0 0 c 5 1" \
		"dir /run 0755 0 0" "dir /sysroot 0755 0 0" "file /init $T/init 0755 0 0" \
		"file /report-dev $T/report-dev 0755 0 0" "file /to-sysroot $T/to-sysroot 0755 0 0"
}

# dracut's 99base/init.sh: mount devtmpfs only if /dev is not mounted.
# The real root then has the kernel's mount as it is: nosuid, not
# noexec, so that a node maps executable there (SGX's /dev/sgx_enclave).
dracut_pattern_reaches_root() {
	make_reporting_root "$T/root.img" || return 1
	make_pattern_initramfs "$T/initramfs.cpio" <<'EOF' || return 1
#!/bin/sh
mount -t proc -o nosuid,noexec,nodev proc /proc
mount -t sysfs -o nosuid,noexec,nodev sysfs /sys
ismounted() { while read -r _ m _; do [ "$m" = "$1" ] && return 0; done </proc/mounts; return 1; }
if ! ismounted /dev; then
	mount -t devtmpfs -o mode=0755,noexec,nosuid,strictatime devtmpfs /dev
fi
if ! ismounted /dev; then
	echo "Cannot mount devtmpfs on /dev! Compile the kernel with CONFIG_DEVTMPFS!"
	exit 1
fi
[ ! -h /dev/fd ] && ln -s /proc/self/fd /dev/fd
mount -t tmpfs -o mode=0755,noexec,nosuid,nodev,strictatime tmpfs /run
mount -o ro /dev/vda /sysroot || { echo "mount of /dev/vda failed"; exec sh; }
for fs in /dev /proc /sys /run; do mount --move $fs /sysroot$fs; done
exec switch_root /sysroot /sbin/init
EOF
	boot_vm "$T/console.log" --kernel "$BZIMAGE" --initrd "$T/initramfs.cpio" \
		--disk "virtio-blk:$T/root.img" || return 1
	expect_log "$T/console.log" 'devtmpfs: mounted on initramfs /dev' \
		"the kernel's mount message" &&
	expect_fields root marker=pattern-root root=/dev/vda dev_fs=devtmpfs \
		dev_mounts=1 dev_nosuid=yes dev_noexec=no dev_mmap_exec=yes \
		late_mount=refused dev_nosuid_after=yes vda=yes
}

# Debian 12's own dracut image (its init.sh, udevd and switch_root), the
# non-systemd flavour: the tiny kernel has no cgroups for systemd.
# Without kernel modules, as the patched kernel has its drivers built in.
# Made once, booted on each base.  One stock kernel is enough: its
# version only names the (unused) module directory, as --no-kernel puts
# none of it in the image, and no stock kernel boots here.
test_debian_dracut_image_reaches_root() {
	local kver
	kver=$(stock_kernel_version) || return 1
	# ifcfg: dracut-network's conf.d adds it, and it needs a network
	# module this host may lack (no dhclient): the boot here has no network.
	dracut -q --no-hostonly --no-kernel --kver "$kver" \
		-o "systemd systemd-initrd dracut-systemd plymouth ifcfg" \
		-f "$T/initrd.img" >"$T/dracut.log" 2>&1 ||
		{ fail "dracut failed:" "$(tail -5 "$T/dracut.log")"; return 1; }
	for_each_kernel_base debian_dracut_image_boots "$T/initrd.img"
}

# debian_image_boots INITRD [KEY=VALUE...]: Debian's image INITRD on
# this base's kernel, the reporting root on virtio: the kernel's mount,
# and /dev in the root one devtmpfs mount with the disk and the console
# (and each KEY=VALUE).
debian_image_boots() {
	local initrd=$1
	shift
	make_reporting_root "$T/root.img" || return 1
	boot_vm "$T/console.log" --kernel "$BZIMAGE" --initrd "$initrd" --mem 512M \
		--append "root=/dev/vda ro" --disk "virtio-blk:$T/root.img" || return 1
	expect_log "$T/console.log" 'devtmpfs: mounted on initramfs /dev' \
		"the kernel's mount message" &&
	expect_fields root marker=pattern-root dev_fs=devtmpfs dev_mounts=1 vda=yes \
		console=yes "$@"
}

debian_dracut_image_boots() { # initrd
	debian_image_boots "$1" dev_nosuid=yes dev_noexec=no dev_mmap_exec=yes \
		late_mount=refused &&
	expect_log "$T/console.log" 'dracut: Mounted root filesystem /dev/vda' \
		"dracut's own root mount"
}

# initramfs-tools' init as Debian and Ubuntu shipped it until 2017: mount
# devtmpfs unconditionally, and on failure hide /dev under a tmpfs.  With
# the kernel's mount in place that mount must succeed (as a remount with
# the script's flags), or the root below is never found.  After moving
# /dev, udev's init-bottom removes the initramfs /dev: that must not
# take the nodes of the real root's /dev with it.
initramfs_tools_pattern_reaches_root() {
	make_reporting_root "$T/root.img" || return 1
	make_pattern_initramfs "$T/initramfs.cpio" <<'EOF' || return 1
#!/bin/sh
[ -d /dev ] || mkdir -m 0755 /dev
mkdir -p /root /tmp
mount -t sysfs -o nodev,noexec,nosuid sysfs /sys
mount -t proc -o nodev,noexec,nosuid proc /proc
if ! mount -t devtmpfs -o nosuid,mode=0755 udev /dev; then
	echo "W: devtmpfs not available, falling back to tmpfs for /dev"
	mount -t tmpfs -o nosuid,mode=0755 udev /dev
	[ -e /dev/console ] || mknod -m 0600 /dev/console c 5 1
	[ -e /dev/null ] || mknod /dev/null c 1 3
fi
mkdir /dev/pts
mount -t devpts -o noexec,nosuid,gid=5,mode=0620 devpts /dev/pts || true
mount -t tmpfs -o "nodev,noexec,nosuid,size=10%,mode=0755" tmpfs /run
i=0
while [ ! -b /dev/vda ] && [ $i -lt 30 ]; do sleep 0.1; i=$((i + 1)); done
[ -b /dev/vda ] || { echo "Gave up waiting for root file system device /dev/vda"; exec sh; }
mount -r /dev/vda /root || { echo "mount of /dev/vda failed"; exec sh; }
mount -n -o move /dev /root/dev
rm -rf /dev
ln -s /root/dev /dev
mount -n -o move /run /root/run
mount -n -o move /sys /root/sys
mount -n -o move /proc /root/proc
exec switch_root /root /sbin/init
EOF
	boot_vm "$T/console.log" --kernel "$BZIMAGE" --initrd "$T/initramfs.cpio" \
		--disk "virtio-blk:$T/root.img" || return 1
	expect_log "$T/console.log" 'devtmpfs: mounted on initramfs /dev' \
		"the kernel's mount message" &&
	expect_no_log "$T/console.log" 'falling back to tmpfs' "tmpfs fallback" &&
	expect_fields root marker=pattern-root dev_fs=devtmpfs dev_mounts=1 \
		dev_nosuid=yes dev_noexec=no dev_mmap_exec=yes late_mount=refused \
		dev_nosuid_after=yes vda=yes console=yes
}

# Debian 12's own initramfs-tools image (mkinitramfs, its real /init,
# klibc run-init and systemd-udevd), without modules, as the patched
# kernel has its drivers built in.  Made once, booted on each base; one
# stock kernel is enough, for the reason above.
test_debian_initramfs_tools_image_reaches_root() {
	local kver
	kver=$(stock_kernel_version) || return 1
	cp -r /etc/initramfs-tools "$T/conf"
	sed -i 's/^MODULES=.*/MODULES=list/' "$T/conf/initramfs.conf"
	: >"$T/conf/modules"
	mkinitramfs -d "$T/conf" -o "$T/initrd.img" "$kver" >"$T/mkinitramfs.log" 2>&1 ||
		{ fail "mkinitramfs failed:" "$(tail -5 "$T/mkinitramfs.log")"; return 1; }
	for_each_kernel_base debian_image_boots "$T/initrd.img"
}


# Boot the pattern initramfs of the three tests below on the root image
# and check what they share: the kernel's mount, a populated devtmpfs in
# the initramfs and in the root (one mount, not noexec, nosuid as the
# pattern asked: $1 yes|no), a second devtmpfs mount in the root
# refused, the disk and the console there.
boot_dev_pattern() { # nosuid
	boot_vm "$T/console.log" --kernel "$BZIMAGE" --initrd "$T/initramfs.cpio" \
		--disk "virtio-blk:$T/root.img" || return 1
	expect_log "$T/console.log" 'devtmpfs: mounted on initramfs /dev' \
		"the kernel's mount message" &&
	expect_fields initramfs dev_fs=devtmpfs dev_mounts=1 vda=yes &&
	expect_fields root marker=pattern-root dev_fs=devtmpfs dev_mounts=1 \
		dev_nosuid="$1" dev_noexec=no dev_mmap_exec=yes late_mount=refused \
		vda=yes console=yes
}

# Alpine's mkinitfs init: devtmpfs with a size limit, or a tmpfs on
# /dev when that mount fails, then every mount moved into the new root.
# The mount must keep the kernel's populated devtmpfs (a remount with
# exec,nosuid; the size applies to the one devtmpfs superblock, as on a
# stock kernel), not hide it under an empty tmpfs as in 2017.
alpine_pattern_reaches_root() {
	make_reporting_root "$T/root.img" || return 1
	make_pattern_initramfs "$T/initramfs.cpio" <<'EOF' || return 1
#!/bin/sh
mount -t proc -o noexec,nosuid,nodev proc /proc
mount -t sysfs -o noexec,nosuid,nodev sysfs /sys
mount -t devtmpfs -o exec,nosuid,mode=0755,size=2M devtmpfs /dev 2>/dev/null || {
	echo "devtmpfs mount failed, falling back to tmpfs"
	mount -t tmpfs -o exec,nosuid,mode=0755,size=2M tmpfs /dev
}
/report-dev
i=0
while [ ! -b /dev/vda ] && [ $i -lt 30 ]; do sleep 0.1; i=$((i + 1)); done
mount -o ro /dev/vda /sysroot || { echo "mount of /dev/vda failed"; exec sh; }
cat /proc/mounts | while read -r DEV DIR TYPE OPTS; do
	if [ "$DIR" != "/" ] && [ "$DIR" != /sysroot ] && [ -d "$DIR" ]; then
		mkdir -p "/sysroot$DIR"
		mount -o move "$DIR" "/sysroot$DIR"
	fi
done
exec switch_root /sysroot /sbin/init
EOF
	boot_dev_pattern yes &&
	expect_no_log "$T/console.log" 'falling back to tmpfs' "tmpfs fallback"
}

# mkinitcpio's init: a plain devtmpfs mount on /dev whose status nobody
# checks, then util-linux switch_root (/to-sysroot).  The mount succeeds, as
# a remount with no flags: /dev ends up as a stock kernel's plain mount
# would be, neither nosuid nor noexec.
mkinitcpio_pattern_reaches_root() {
	make_reporting_root "$T/root.img" || return 1
	make_pattern_initramfs "$T/initramfs.cpio" <<'EOF' || return 1
#!/bin/sh
mount -t proc proc /proc -o nosuid,noexec,nodev
mount -t sysfs sys /sys -o nosuid,noexec,nodev
mount -t devtmpfs dev /dev
DEV_MOUNT=$? /report-dev
mount -t tmpfs run /run -o nosuid,nodev,mode=0755
exec /to-sysroot
EOF
	boot_dev_pattern no &&
	expect_field "$T/console.log" initramfs dev_mount_status 0
}

# booster's init (Go) mounts devtmpfs on /dev first, nosuid with
# mode=0755, and stops the boot when that mount fails: here it says so
# and powers off, where booster waits at an emergency prompt.
booster_pattern_reaches_root() {
	make_reporting_root "$T/root.img" || return 1
	make_pattern_initramfs "$T/initramfs.cpio" <<'EOF' || return 1
#!/bin/sh
if ! mount -t devtmpfs -o nosuid,mode=0755 dev /dev; then
	echo "booster: unable to mount devtmpfs on /dev, boot stopped"
	reboot -f
fi
mount -t proc -o nosuid,noexec,nodev proc /proc
mount -t sysfs -o nosuid,noexec,nodev sys /sys
mount -t tmpfs -o nosuid,nodev,mode=0755 run /run
DEV_MOUNT=0 /report-dev
exec /to-sysroot
EOF
	boot_dev_pattern yes &&
	expect_no_log "$T/console.log" 'boot stopped' "booster's stop"
}

# rescue-init mounts a tmpfs on /dev/shm, as the kernel leaves it out of
# devtmpfs, and it reaches the real root with /dev.
rescue_init_mounts_tmpfs_on_dev_shm() {
	local img=$BUILD/rescue.img
	[ -r "$img" ] || { fail "missing $img (make image)"; return 1; }
	make_reporting_root "$T/root.img" || return 1
	boot_vm "$T/console.log" --kernel "$BZIMAGE" --initrd "$img" \
		--append "root=/dev/vda" --disk "virtio-blk:$T/root.img" || return 1
	expect_fields root marker=pattern-root dev_fs=devtmpfs dev_nosuid=yes \
		shm_fs=tmpfs shm_mode=1777
}

# Each of these on each kernel base.
test_dracut_pattern_reaches_root() { for_each_kernel_base dracut_pattern_reaches_root; }
test_initramfs_tools_pattern_reaches_root() { for_each_kernel_base initramfs_tools_pattern_reaches_root; }
test_alpine_pattern_reaches_root() { for_each_kernel_base alpine_pattern_reaches_root; }
test_mkinitcpio_pattern_reaches_root() { for_each_kernel_base mkinitcpio_pattern_reaches_root; }
test_booster_pattern_reaches_root() { for_each_kernel_base booster_pattern_reaches_root; }
test_rescue_init_mounts_tmpfs_on_dev_shm() { for_each_kernel_base rescue_init_mounts_tmpfs_on_dev_shm; }
