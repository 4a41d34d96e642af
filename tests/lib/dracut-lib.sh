# SPDX-License-Identifier: GPL-2.0
# tests/lib/dracut-lib.sh: the one dracut image of the groups that boot
# through `dracut --add devtmpfs-rescue` (dracut.sh, stacked.sh, lvm.sh).
# A dracut build takes one to two minutes on a 2-core machine; one image
# per stock kernel with every storage layer rescue-init stands in for
# serves them all, instead of one image per group.

DRACUT_CACHE_TOP=$BUILD/tests/dracut-cache
# The dracut modules of the image: dracut's of every storage layer
# rescue-init stands in for, as on an encrypted LVM host with md RAID
# and btrfs; their hooks never run, rescue-init assembles.
DRACUT_IMAGE_MODULES="devtmpfs-rescue crypt lvm mdraid btrfs"
# Its options besides: no --omit (Debian's default configuration).
DRACUT_IMAGE_OPTIONS="--no-hostonly"

# The dracut modules of the module's own list in state STATE
# ("missing", "rescue-init"), on one line.
dracut_modules_in() { # state
	DEVTMPFS_RESCUE_DATADIR=$TOP/rescue/share \
		bash -c '. "$1" && devtmpfs_rescue_modules_in "$2"' _ \
		"$TOP/dracut-module/99devtmpfs-rescue/module-setup.sh" "$1"
}

# The dracut modules rescue-init cannot stand in for: this host's dracut
# includes crypt, resume, virtiofs... by default (their tools are
# installed), and the module refuses them.
dracut_refused_modules() {
	dracut_modules_in missing
}

# The cache of each stock kernel ($STOCK_KVER, for_each_stock_kernel) is
# keyed on what goes into the image, so that a new rescue-init or
# module-setup.sh gives a new image; computed when used, not when this
# file is sourced, as the kernel is chosen per test.
dracut_cache() {
	local kver key
	kver=$(stock_kernel_version) || return 1
	key=$({
		echo "$kver $DRACUT_IMAGE_MODULES $DRACUT_IMAGE_OPTIONS"
		cat "$BUILD/rescue-init" "$TOP/dracut-module/99devtmpfs-rescue/module-setup.sh" \
			"$TOP"/rescue/share/* "$TOP/Makefile"
	} | sha256sum | cut -c1-16)
	echo "$DRACUT_CACHE_TOP/$kver/$key"
}

# dracut_rescue_image: the path of the image, built once per stock
# kernel (dracut --no-hostonly --add "$DRACUT_IMAGE_MODULES", with no
# --omit: Debian's default dracut configuration, whose image has every
# module this host can install, resume and virtiofs among them) and kept
# until its inputs change.  Two groups run at a time and may both want it: the
# first builds it under the kernel's lock, the second waits for it.
dracut_rescue_image() {
	local cache img kver
	kver=$(stock_kernel_version) || return 1
	cache=$(dracut_cache) || return 1
	img=$cache/devtmpfs-rescue.img
	mkdir -p "$DRACUT_CACHE_TOP" || return 1
	(
		flock 9 || { fail "unable to lock $DRACUT_CACHE_TOP/$kver.lock"; exit 1; }
		[ ! -e "$img" ] || exit 0
		# The images of other inputs go once an hour old, not at
		# once: a run from another tree may still be booting one.
		find "${cache%/*}" -mindepth 1 -maxdepth 1 -type d -mmin +60 \
			-exec rm -rf {} + 2>/dev/null
		rm -rf "$cache" && mkdir -p "$cache" || exit 1
		dracut_from_tree "$cache/dest" "$img.tmp" "$cache/dracut.log" \
			$DRACUT_IMAGE_OPTIONS --add "$DRACUT_IMAGE_MODULES" || exit 1
		mv "$img.tmp" "$img"
	) 9>"$DRACUT_CACHE_TOP/$kver.lock" || return 1
	echo "$img"
}

# link_dracut_rescue_image OUT: the image linked as OUT, with $KVER set
# to its stock kernel (the boot's kernel is /boot/vmlinuz-$KVER).
link_dracut_rescue_image() {
	local img
	# shellcheck disable=SC2034 # KVER: for the caller's boot (see above)
	KVER=$(stock_kernel_version) || return 1
	img=$(dracut_rescue_image) || return 1
	ln -sf "$img" "$1"
}

# The log of the image's dracut run.
dracut_rescue_image_log() {
	local img
	img=$(dracut_rescue_image) || return 1
	echo "${img%/*}/dracut.log"
}
