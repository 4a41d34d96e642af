# SPDX-License-Identifier: GPL-2.0
# tests/groups/random.sh: random disk layouts from build/mklayout booted with
# rescue.img by tests/tools/random-layouts: the committed seeds (tests/layouts/random-seeds)
# boot their root, together they cover every bus, partition table, root=
# form and decoy, and a dirty root (an unreplayed journal) with and
# without rescue.ro=strict, and a seed always builds the same bytes.
# Lines "Ns" are stacked layouts (mklayout --stacked, on the stock
# kernel): together they cover md (one degraded; metadata 1.2 and
# 0.90), LUKS2 (a wrong passphrase first; alone too), LVM and btrfs,
# and the nesting md -> LUKS -> LVM.
# RANDOM_BOOT=kernel boots without rescue.img (the kernel's own root
# mounting); RANDOM_JOBS=N boots N seeds at a time (default 2).

SEED_LIST=$TOP/tests/layouts/random-seeds
MKLAYOUT=${MKLAYOUT:-$BUILD/mklayout}
MIN_FIXED_SEEDS=20

fixed_seeds() {
	sed 's/#.*//' "$SEED_LIST" | tr -s ' \t' '\n' | grep -E '^[0-9]+s?$'
}

# mklayout's arguments for a seed of the list: N, or Ns (stacked).
seed_args() { # seed
	printf '%s\n' --seed "${1%s}"
	[ "$1" = "${1%s}" ] || echo --stacked
}

test_fixed_seeds_boot_their_root() {
	local status line
	"$TOP/tests/tools/random-layouts" --seeds-file "$SEED_LIST" --work "$T/work" \
		--jobs "${RANDOM_JOBS:-2}" >"$T/random.out" 2>&1
	status=$?
	while IFS= read -r line; do
		note "$line"
	done < <(grep -E '^(seed |tests/tools/random-layouts: |[0-9]+ passed)' "$T/random.out")
	if [ "$status" -ne 0 ]; then
		fail "tests/tools/random-layouts failed (status $status); how to reproduce each failure:" \
			"$(grep -Ev '^(seed |tests/tools/random-layouts: |[0-9]+ passed)' "$T/random.out")"
		return 1
	fi
}

# The coverage is read from the plans (mklayout --plan-only), so that the
# list cannot rot silently when the generator changes.
test_fixed_seeds_cover_every_bus_table_and_root_form() {
	local seed n=0 want missing=() dir args=()
	local -A have=()
	for seed in $(fixed_seeds); do
		dir=$T/plan-$seed
		mapfile -t args < <(seed_args "$seed")
		"$MKLAYOUT" "${args[@]}" --out "$dir" --plan-only ||
			{ fail "mklayout $(seed_args "$seed" | paste -sd' ') --plan-only failed"; return 1; }
		for want in $(sed -n 's/^\(buses\|tables\|decoys\)=//p' "$dir/expect" | tr ',' ' '); do
			have[has:$want]=1
		done
		while IFS= read -r want; do
			have[$want]=1
		done < <(sed -n 's/^\(form\|root_bus\|root_table\|rootwait\|dirty\|stack\|md\|degraded\|wrong_try\)=\(.*\)$/\1:\2/p' "$dir/expect")
		# the layers of a stacked layout: md-luks-lvm is md, luks, lvm
		for want in $(sed -n 's/^stack=//p' "$dir/expect" | tr '-' ' '); do
			have[layer:$want]=1
			have[stackform:$(sed -n 's/^form=//p' "$dir/expect")]=1
		done
		n=$((n + 1))
	done
	[ "$n" -ge "$MIN_FIXED_SEEDS" ] ||
		{ fail "tests/layouts/random-seeds has $n seeds, fewer than $MIN_FIXED_SEEDS"; return 1; }
	for want in has:{virtio-blk,virtio-scsi,ahci,nvme,usb} \
		root_bus:{virtio-blk,virtio-scsi,ahci,nvme,usb} \
		has:{none,mbr,gpt} root_table:{none,mbr,gpt} \
		form:{/dev/NAME,UUID,LABEL,PARTUUID,PARTUUID/PARTNROFF,PARTLABEL,MAJ:MIN,hex} \
		has:{blank-disk,empty-partition,vfat,ext-without-init,impostor} \
		has:{label-near,uuid-near,partlabel-is-root-label,partuuid-near} \
		rootwait:{yes,no} dirty:{strict,written} \
		layer:{md,luks,lvm,btrfs} stack:{md-luks-lvm,luks} md:{1.2,0.90} \
		stackform:{/dev/mapper/NAME,/dev/md/NAME,/dev/mdN,UUID} \
		degraded:yes wrong_try:yes; do
		[ -n "${have[$want]:-}" ] || missing+=("$want")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		fail "the $n seeds of tests/layouts/random-seeds miss: ${missing[*]}" \
			"(tests/tools/random-layouts --pick K --first N --count M proposes a covering list)"
		return 1
	fi
	note "$n seeds: every bus (and the root on each), table (and the root on each)," \
		"root= form, decoy kind, with and without rootwait, a dirty root with and" \
		"without rescue.ro=strict; stacked: md (degraded; metadata 1.2 and 0.90)," \
		"LUKS2 (a wrong try), LUKS2 alone, LVM, btrfs, md -> LUKS -> LVM, by" \
		"/dev/mapper/NAME, /dev/md/NAME, /dev/mdN and UUID="
}

# Two runs a second apart in different directories (host ctimes and
# paths differ), and one with --kernel-root: the same bytes.  The seed
# is the fixed one with the most disks of those --kernel-root builds:
# for some (exit 3) no root= form the kernel mounts itself names the
# root, and the --kernel-root comparison would be left out.
test_same_seed_gives_identical_images() {
	local seed='' best=0 disks f differ=0 images status
	for f in $(fixed_seeds | grep -v 's$'); do
		"$MKLAYOUT" --seed "$f" --out "$T/p$f" --plan-only ||
			{ fail "mklayout --seed $f --plan-only failed"; return 1; }
		status=0
		"$MKLAYOUT" --seed "$f" --out "$T/pk$f" --plan-only --kernel-root 2>"$T/pk$f.err" ||
			status=$?
		case $status in
		0) ;;
		3) continue ;;
		*) fail "mklayout --seed $f --plan-only --kernel-root failed (status $status):" \
			"$(cat "$T/pk$f.err")"
			return 1 ;;
		esac
		disks=$(sed -n 's/^disks=//p' "$T/p$f/expect")
		[ "$disks" -gt "$best" ] && { best=$disks; seed=$f; }
	done
	[ -n "$seed" ] || { fail "no seed of tests/layouts/random-seeds that mklayout --kernel-root builds"; return 1; }
	"$MKLAYOUT" --seed "$seed" --out "$T/a" || { fail "mklayout --seed $seed failed"; return 1; }
	sleep 1.1
	mkdir -p "$T/again"
	(cd / && "$MKLAYOUT" --seed "$seed" --out "$T/again/b") ||
		{ fail "mklayout --seed $seed failed the second time"; return 1; }
	if ! diff -r "$T/a" "$T/again/b" >"$T/diff" 2>&1; then
		fail "seed $seed built twice differs:" "$(head -n 20 "$T/diff")"
		return 1
	fi
	images=$(compgen -G "$T/a/disk*.img" | wc -l)
	"$MKLAYOUT" --seed "$seed" --out "$T/k" --kernel-root 2>"$T/k.err" ||
		{ fail "mklayout --seed $seed --kernel-root failed:" "$(cat "$T/k.err")"; return 1; }
	for f in "$T"/a/disk*.img; do
		cmp -s "$f" "$T/k/${f##*/}" ||
			{ fail "--kernel-root changed ${f##*/} of seed $seed"; return 1; }
	done
	"$MKLAYOUT" --seed $((seed + 1)) --out "$T/c" ||
		{ fail "mklayout --seed $((seed + 1)) failed"; return 1; }
	cmp -s "$T/a/layout.txt" "$T/c/layout.txt" &&
		{ fail "seeds $seed and $((seed + 1)) give the same layout"; return 1; }
	for f in "$T"/c/disk*.img; do
		cmp -s "$f" "$T/a/${f##*/}" || differ=$((differ + 1))
	done
	[ "$differ" -gt 0 ] ||
		{ fail "seeds $seed and $((seed + 1)) give the same images"; return 1; }
	note "seed $seed: $images images, $(du -cm --apparent-size "$T"/a/disk*.img | tail -n1 | cut -f1) MiB," \
		"byte-identical when built again and with --kernel-root; seed $((seed + 1)) differs"
}
