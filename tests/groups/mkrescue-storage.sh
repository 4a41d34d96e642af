# SPDX-License-Identifier: GPL-2.0
# tests/groups/mkrescue-storage.sh: the storage tools of mkrescue (--storage):
# mdadm, cryptsetup, lvm, dmsetup and btrfs with their loader and
# libraries at the host's paths, the no-udev /etc, the default with -k,
# and a boot of the Debian stock kernel whose rescue shell runs them.

. "$TOP/tests/lib/mkrescue-lib.sh"

STORAGE_TOOLS="usr/sbin/mdadm usr/sbin/cryptsetup usr/sbin/lvm usr/sbin/dmsetup usr/bin/btrfs"
MULTIARCH=usr/lib/x86_64-linux-gnu
STOCK_STORAGE_TIMEOUT=${STOCK_STORAGE_TIMEOUT:-300}

# PATH inside ROOT, following its links as the guest would (an absolute
# target is inside ROOT too); prints the file's path on the host.
in_root() { # root path
	local root=$1 path=$2 n=0 dir rest target head
	while [ $n -lt 40 ]; do
		n=$((n + 1))
		# The first component that is a link, if any.
		dir="" rest=${path#/}
		while [ -n "$rest" ]; do
			head=${rest%%/*}
			[ "$head" = "$rest" ] && rest="" || rest=${rest#*/}
			if [ -L "$root$dir/$head" ]; then
				target=$(readlink "$root$dir/$head")
				case $target in
				/*) path=$target${rest:+/$rest} ;;
				*) path=$dir/$target${rest:+/$rest} ;;
				esac
				continue 2
			fi
			dir=$dir/$head
		done
		[ -e "$root$dir" ] && { echo "$root$dir"; return 0; }
		return 1
	done
	return 1
}

test_storage_image_holds_tools_libraries_and_loader() {
	mk_setup || return 1
	mk --storage --compress none -o "$T/storage.img" || return 1
	list_image "$T/storage.img" >"$T/list"
	local tool name arg f needed lib missing="" interp
	for tool in $STORAGE_TOOLS; do
		expect_entry "$T/list" -rwxr-xr-x "$tool"
	done
	expect_entry "$T/list" lrwxrwxrwx sbin/mdadm ../usr/sbin/mdadm &&
	expect_entry "$T/list" lrwxrwxrwx sbin/lvm ../usr/sbin/lvm &&
	expect_entry "$T/list" lrwxrwxrwx bin/btrfs ../usr/bin/btrfs &&
	expect_entry "$T/list" lrwxrwxrwx sbin/vgchange ../usr/sbin/vgchange &&
	expect_entry "$T/list" lrwxrwxrwx usr/sbin/vgchange lvm &&
	expect_entry "$T/list" lrwxrwxrwx usr/sbin/pvscan lvm &&
	expect_entry "$T/list" lrwxrwxrwx lib64 usr/lib64 &&
	expect_entry "$T/list" lrwxrwxrwx lib/x86_64-linux-gnu ../$MULTIARCH &&
	expect_entry "$T/list" -rwxr-xr-x $MULTIARCH/ld-linux-x86-64.so.2 &&
	expect_entry "$T/list" -rw-r--r-- $MULTIARCH/libgcc_s.so.1 &&
	expect_entry "$T/list" lrwxrwxrwx $MULTIARCH/libcryptsetup.so.12 \
		"$(readlink /usr/lib/x86_64-linux-gnu/libcryptsetup.so.12)" || return 1
	# Every loader and every DT_NEEDED of every ELF file resolves inside.
	extract_image "$T/storage.img" "$T/root" || return 1
	while read -r f; do
		head -c4 "$f" | grep -q ELF || continue
		interp=$(readelf -lW "$f" | sed -n 's/.*Requesting program interpreter: \(.*\)]$/\1/p')
		if [ -n "$interp" ] && ! in_root "$T/root" "$interp" >/dev/null; then
			missing="$missing ${f#"$T/root/"}:$interp"
		fi
		for needed in $(readelf -dW "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
			lib=""
			for d in /lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu /lib64 /usr/lib64 /lib /usr/lib; do
				lib=$(in_root "$T/root" "$d/$needed") && break
			done
			[ -n "$lib" ] || missing="$missing ${f#"$T/root/"}:$needed"
		done
	done < <(find "$T/root" -type f | sort)
	[ -z "$missing" ] || { fail "not in the image:$missing"; return 1; }
	grep -qx $'\tobtain_device_list_from_udev = 0' "$T/root/etc/lvm/lvm.conf" &&
	grep -qx $'\tudev_sync = 0' "$T/root/etc/lvm/lvm.conf" &&
	grep -qx $'\tudev_rules = 0' "$T/root/etc/lvm/lvm.conf" ||
		fail "lvm.conf does not turn udev off:" "$(cat "$T/root/etc/lvm/lvm.conf")"
	grep -q '^HOMEHOST <ignore>$' "$T/root/etc/mdadm/mdadm.conf" ||
		fail "no mdadm.conf"
	# The host's kernel runs the image's loader and libraries (no
	# device is touched by --version); chroot needs root: without it,
	# a SKIP that says so, not a PASS.
	if [ "$(id -u)" -ne 0 ]; then
		skip "needs root for chroot: the image's mdadm, cryptsetup and btrfs were not run"
		return 0
	fi
	for tool in "mdadm --version" "cryptsetup --version" "btrfs --version"; do
		read -r name arg <<<"$tool"
		chroot "$T/root" "/sbin/$name" "$arg" >"$T/chroot.out" 2>&1 ||
		chroot "$T/root" "/bin/$name" "$arg" >"$T/chroot.out" 2>&1 ||
			fail "$tool fails in the extracted image:" "$(cat "$T/chroot.out")"
	done
}

test_storage_is_on_with_k_and_off_without() {
	mk_setup && for_each_stock_kernel storage_is_on_with_k_and_off_without
}

storage_is_on_with_k_and_off_without() {
	local kver sizes="" c
	kver=$(stock_kernel_version) || return 1
	mk -o "$T/plain.img" &&
	mk -k "$kver" -o "$T/stock.img" &&
	mk -k "$kver" --no-storage -o "$T/small.img" || return 1
	for c in plain stock small; do
		list_image_into "$T/$c.img" "$T/$c.list" || return 1
	done
	grep -q ' usr/sbin/lvm$' "$T/plain.list" &&
		fail "storage tools without -k or --storage"
	grep -q ' usr/sbin/lvm$' "$T/stock.list" ||
		fail "no storage tools with -k"
	grep -q ' usr/sbin/lvm$' "$T/small.list" &&
		fail "storage tools with --no-storage"
	for c in zstd gzip; do
		mk -k "$kver" --compress $c -o "$T/s.img" &&
		mk -k "$kver" --no-storage --compress $c -o "$T/n.img" || return 1
		sizes="$sizes $c $(stat -c %s "$T/n.img") -> $(stat -c %s "$T/s.img");"
	done
	note "stock kernel $kver, --no-storage -> storage:$sizes"
}

test_storage_image_is_byte_identical_across_runs() {
	mk_setup || return 1
	SOURCE_DATE_EPOCH=1700000000 mk --storage -o "$T/a.img" &&
	SOURCE_DATE_EPOCH=1700000000 mk --storage -o "$T/b.img" || return 1
	cmp -s "$T/a.img" "$T/b.img" || fail "two runs differ"
	newc_headers <(zstd -dc "$T/a.img") | awk '$6 != 1700000000 { print; exit 1 }' >"$T/bad" ||
		fail "an entry with a host time:" "$(cat "$T/bad")"
}

# The Debian stock kernel, mkrescue -k's image (the tools on by default),
# no root: the rescue shell runs each tool.
test_stock_kernel_rescue_shell_runs_storage_tools() {
	mk_setup && for_each_stock_kernel stock_kernel_rescue_shell_runs_storage_tools
}

stock_kernel_rescue_shell_runs_storage_tools() {
	local kver tool name
	kver=$(stock_kernel_version) || return 1
	[ -x "$MK_BUILD/rescue-init" ] || { fail "no $MK_BUILD/rescue-init"; return 1; }
	"$MKRESCUE" --init "$MK_BUILD/rescue-init" -k "$kver" -o "$T/rescue.img" || return 1
	{
		# dm_mod has no modalias: nothing loads it before lvm asks.
		printf '%s\n' "modprobe dm_mod; printf '%s %s: tool modprobe=%s\\n' TEST RESULT \$?"
		for tool in "cryptsetup --version" "lvm version" "mdadm --version" \
			"btrfs --version" "dmsetup --version"; do
			name=${tool%% *}
			printf '%s\n' "$tool; printf '%s %s: tool $name=%s\\n' TEST RESULT \$?"
		done
	} >"$T/commands"
	"$TOP/tests/tools/vm-shell.exp" "$T/console.log" "$STOCK_STORAGE_TIMEOUT" "$SHELL_PROMPT" \
		"$T/commands" --kernel "/boot/vmlinuz-$kver" --mem 1G --initrd "$T/rescue.img" \
		--append "root=LABEL=nowhere" || { show_log "$T/console.log" 40; return 1; }
	expect_log "$T/console.log" 'rescue: unable to find root LABEL=nowhere' "the failure" &&
	expect_log "$T/console.log" '^cryptsetup 2\.' "cryptsetup's version" &&
	expect_log "$T/console.log" 'LVM version: +2\.' "lvm's version" &&
	expect_log "$T/console.log" 'Driver version: +4\.' "the kernel's dm driver, through lvm" &&
	expect_log "$T/console.log" '^mdadm - v4\.' "mdadm's version" &&
	expect_log "$T/console.log" '^btrfs-progs v' "btrfs's version" || return 1
	for name in modprobe cryptsetup lvm mdadm btrfs dmsetup; do
		expect_field "$T/console.log" tool "$name" 0 || return 1
	done
	expect_no_log "$T/console.log" 'error while loading shared libraries|sh: [a-z]+: not found' \
		"a missing library or program"
}
