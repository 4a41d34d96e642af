# SPDX-License-Identifier: GPL-2.0
# tests/lib/disks.sh: the disks of tests/disks/, one script a layout.
# A group asks for one with `disk NAME VAR...`; the script NAME.sh runs
# on its own (it sources this file too), writes its images into the
# directory it is given, and they are cached under
# $BUILD/tests/disks/NAME-KEY, KEY the hash of what made them: a test
# is then its disk, its command line and the lines it expects.

. "$TOP/tests/lib/helper-vm.sh"

# ---- for the groups ----------------------------------------------------

# disk NAME [VAR...]: the images of tests/disks/NAME.sh, copied into $T.
# The script runs with the caller's VARs (the ids its test expects,
# named once, in the group) and KVER, the oldest stock kernel, which its
# helper VM boots (set for the caller too).  KEY covers the script, the
# libraries it sources, the VARs, busybox, KVER and this machine's lvm.
disk() {
	local name=$1 script=$TOP/tests/disks/$1.sh key cache tmp var f env=()
	shift
	[ -x "$script" ] || { fail "no disk script $script"; return 1; }
	KVER=$(stock_kernel_version) || return 1
	for var in "$@"; do
		env+=("$var=${!var}")
	done
	key=$({ cat "$script" "$TOP/tests/lib/disk-script.sh" "$TOP/tests/lib/disks.sh" "$TOP/tests/lib/helper-vm.sh" \
			"$TOP/tests/lib/common.sh" "$TOP/tests/lib/lib.sh" "$TOP/tests/lib/rescue-lib.sh"
		printf '%s\n' "${env[@]}"; sha256sum <"$BUSYBOX"; echo "$KVER"
		lvm version 2>/dev/null | head -2; } | sha256sum | cut -c1-16)
	cache=$BUILD/tests/disks/$name-$key
	if [ ! -e "$cache/done" ]; then
		tmp=$cache.tmp.$$
		rm -rf "$tmp" && mkdir -p "$tmp/work" || return 1
		env -u FAIL_MARK -u SKIP_MARK "${env[@]}" KVER="$KVER" BUILD="$BUILD" \
			BUSYBOX="$BUSYBOX" T="$tmp/work" "$script" "$tmp" >"$tmp/log" 2>&1 ||
			{ fail "tests/disks/$name.sh failed (all of it in $tmp/log):" \
				"$(tail -n 40 "$tmp/log")"; return 1; }
		[ ! -e "$tmp/work/helper.log" ] || mv "$tmp/work/helper.log" "$tmp/"
		rm -rf "$tmp/work" "$cache" && touch "$tmp/done" && mv "$tmp" "$cache" || return 1
	fi
	for f in "$cache"/*.img; do
		cp --sparse=always "$f" "$T/${f##*/}" || return 1
	done
}

# ---- for the disk scripts ----------------------------------------------

# disk_ext4 IMG SIZE_MB UUID MARKER: an ext4 filesystem of SIZE_MB MiB
# holding a report root (tests/lib/rescue-lib.sh) marked MARKER.
disk_ext4() {
	make_root_dir "$T/tree-$4" "$4" &&
	make_ext4 "$T/tree-$4" "$1" "$2" "$3" "$4"
}

# disk_helper CMDS DISK...: the helper VM (tests/lib/helper-vm.sh), an
# image of mkrescue -k with its lvm and cryptsetup and dm_crypt, types
# CMDS; rescue-init's own LVM and LUKS are off.
disk_helper() {
	local cmds=$1
	shift
	[ -e "$T/helper.img" ] || helper_image "$T/helper.img" --add-module dm_crypt || return 1
	helper_vm "$T/helper.log" "${DISK_VM_TIMEOUT:-240}" "$T/helper.img" "$cmds" \
		"rd.lvm=0 rd.luks=0" "$@"
}

# disk_lvm VG MODULES SRC PV:IMG:MB... -- LINE...: the helper VM with
# the blank disk images OUT/IMG (MB MiB each) and SRC (an ext4 to copy),
# told apart by their sizes as the kernel may name them in any order:
# each IMG becomes the PV whose UUID is in the variable PV ($A, $B and
# $C for the guest, in that order) and VG is made over them; then the
# LINEs run (the LVs, the copy from $S, each echoing a word for
# disk_expect_lines), with MODULES loaded; then VG is deactivated and
# listed.  The LINEs are the guest's shell, not this one's.
disk_lvm() {
	local vg=$1 modules=$2 src=$3 var img mb m i=0 names=(A B C) vd=(vda vdb vdc vdd)
	local cases='' pvs='' devs='' imgs=()
	shift 3
	while [ "$1" != -- ]; do
		IFS=: read -r var img mb <<<"$1"
		blank_disk "$OUT/$img" "$mb" || return 1
		imgs+=("$OUT/$img")
		cases+="$((mb * 2048))) ${names[i]}=/dev/\$d;; "
		pvs+="lvm pvcreate -q --norestorefile -u ${!var} \$${names[i]} && "
		devs+=" \$${names[i]}"
		i=$((i + 1))
		shift
	done
	shift
	{
		printf 'modprobe dm_mod;'
		for m in $modules; do printf ' modprobe %s;' "$m"; done
		echo ' export LVM_SUPPRESS_FD_WARNINGS=1'
		echo "for d in ${vd[*]:0:i+1}; do case \$(cat /sys/block/\$d/size) in $cases$(($(stat -c %s "$src") / 512))) S=/dev/\$d;; esac; done; echo \"pvs$devs src \$S\""
		echo "${pvs}lvm vgcreate -q $vg$devs"
		printf '%s\n' "$@"
		echo "lvm vgchange -q -an $vg && sync"
		echo "lvm lvs -a -o lv_name,segtype,origin,pool_lv,devices $vg"
		echo "[ -e /dev/mapper/$vg-root ] || echo layout-done-\$((6 * 7))"
	} >"$T/helper.cmds"
	disk_helper "$T/helper.cmds" "${imgs[@]}" "$src"
}

# disk_expect_lines LINE...: the helper VM printed each LINE at the start
# of a line (the proof that a step of its commands worked).
disk_expect_lines() {
	local line
	for line in "$@"; do
		grep -q "^$line" <(tr -d '\r' <"$T/helper.log") ||
			{ show_log "$T/helper.log" 40; fail "the helper VM did not print $line"; return 1; }
	done
}
