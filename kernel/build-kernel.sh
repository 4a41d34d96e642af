#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernel/build-kernel.sh [BASE]: build a patched kernel from Debian's
# linux-source-BASE tarball, the patch series in kernel/patches/BASE and
# the fragment kernel/rescue.config.  BASE is 6.1 (the default) or 6.12.
# 6.1 builds build/bzImage in build/kernel; any other base builds
# build/bzImage-BASE in build/kernel-BASE.
#
# The build is keyed on the contents of the series, the patches, the
# fragment, this script and the tarball: when the key is unchanged,
# nothing is done.  Objects live in $BUILD/kernel*/obj (O=) and survive a
# key change, so a new patch recompiles only what it touches.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build}
base=${1:-6.1}
JOBS=${JOBS:-$(nproc)}

# 6.1 keeps the paths, and KERNEL_TARBALL (which make exports) the
# meaning, they had before there was a second base.
if [ "$base" = 6.1 ]; then
	TARBALL=${KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
	kdir=$BUILD/kernel
	image=$BUILD/bzImage
else
	TARBALL=/usr/src/linux-source-$base.tar.xz
	kdir=$BUILD/kernel-$base
	image=$BUILD/bzImage-$base
fi
src=$kdir/src
obj=$kdir/obj
patches=$top/kernel/patches/$base
fragment=$top/kernel/rescue.config
kmake=(make -C "$src" O="$obj" ARCH=x86_64 -j"$JOBS")

# What an x86_64 tinyconfig + fragment build never reads: the sources of
# other architectures, perf and the selftests, the prose of Documentation
# (not kernel-parameters.txt, which the series changes), and the C of
# subsystems the fragment leaves off (DRM, sound, media, staging,
# InfiniBand, accelerators, wireless).  Their Kconfig files and Makefiles
# stay, since Kconfig sources them all (crypto/Kconfig reads every
# architecture's crypto/Kconfig).  Leaving them out more than
# halves each source tree (kernel/README): both trees side by side
# filled the disk of a CI machine.
source_not_built=(
	--exclude='Documentation/*.rst' --exclude='Documentation/*.yaml'
	--exclude='Documentation/devicetree' --exclude='Documentation/translations'
	--exclude='tools/perf' --exclude='tools/testing'
)
for a in alpha arc arm arm64 csky hexagon loongarch m68k microblaze mips \
	nios2 openrisc parisc powerpc riscv s390 sh sparc um xtensa; do
	for x in '*.c' '*.h' '*.S' '*.dts' '*.dtsi'; do
		source_not_built+=(--exclude="arch/$a/$x")
	done
	source_not_built+=(--exclude="arch/$a/configs")
done
for d in drivers/gpu/drm drivers/media drivers/staging drivers/infiniband \
	drivers/accel drivers/net/wireless sound; do
	source_not_built+=(--exclude="$d/*.c" --exclude="$d/*.h")
done

say() { printf 'kernel: %s\n' "$*"; }
die() { printf 'kernel: error: %s\n' "$*" >&2; exit 1; }

[ -r "$TARBALL" ] || die "unable to read $TARBALL: install linux-source-$base (make deps)"
[ -r "$patches/series" ] || die "unable to read $patches/series"

series_files() {
	grep -v -e '^#' -e '^[[:space:]]*$' "$patches/series"
}

compute_key() {
	{
		cat "$patches/series"
		local p
		for p in $(series_files); do
			cat "$patches/$p"
		done
		cat "$fragment" "$0"
		sha256sum <"$TARBALL"
	} | sha256sum | cut -d' ' -f1
}

# Files a series modifies, from the "+++ b/path" lines of its patches.
files_of_series() {
	local p
	for p in $(series_files); do
		sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$patches/$p"
	done
}

key=$(compute_key)
if [ -f "$image" ] && [ "$(cat "$kdir/key" 2>/dev/null)" = "$key" ]; then
	say "$image is up to date (key ${key:0:12})"
	exit 0
fi

mkdir -p "$kdir" "$obj"
start=$(date +%s)

say "extracting $(basename "$TARBALL")"
rm -rf "$src"
mkdir -p "$src"
tar -xf "$TARBALL" -C "$src" --strip-components=1 "${source_not_built[@]}"

# A file the series changes must not be one of those left out.
for f in $(files_of_series | sort -u); do
	[ -e "$src/$f" ] || ! grep -qxF -- "--- a/$f" "$patches"/*.patch ||
		die "the series changes $f, which the extraction leaves out (source_not_built)"
done

say "applying $(series_files | wc -l) patches"
for p in $(series_files); do
	patch -d "$src" -p1 --batch --forward --quiet <"$patches/$p" ||
		die "unable to apply $p"
done

# tar restores the tarball's mtimes, and patch gives every file it
# changes the current time.  Give each file this or the previous series
# changed the mtime it had in the previous build if its content is the
# same, and the current time otherwise, so that make recompiles exactly
# what the new series changed.
files_of_series | sort -u >"$kdir/patched-files.new"
touch "$kdir/patched-files.sums"
sort -u "$kdir/patched-files.new" <(cut -d' ' -f3 "$kdir/patched-files.sums") |
	while read -r f; do
		[ -e "$src/$f" ] || continue
		sum=$(sha256sum <"$src/$f" | cut -d' ' -f1)
		old=$(awk -v f="$f" '$3 == f { print $1, $2 }' "$kdir/patched-files.sums")
		if [ -n "$old" ] && [ "${old%% *}" = "$sum" ]; then
			touch -d "@${old#* }" "$src/$f"
		else
			touch "$src/$f"
		fi
		printf '%s %s %s\n' "$sum" "$(stat -c %Y "$src/$f")" "$f"
	done >"$kdir/patched-files.sums.new"
mv "$kdir/patched-files.sums.new" "$kdir/patched-files.sums"
rm -f "$kdir/patched-files.new" "$kdir/patched-files"

say "configuring: tinyconfig + $(basename "$fragment")"
"${kmake[@]}" -s tinyconfig >"$kdir/config.log" 2>&1 ||
	die "tinyconfig failed, see $kdir/config.log"
"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$fragment" \
	>>"$kdir/config.log" 2>&1 || die "merge_config.sh failed, see $kdir/config.log"
"${kmake[@]}" -s olddefconfig >>"$kdir/config.log" 2>&1 ||
	die "olddefconfig failed, see $kdir/config.log"

# Every option of the fragment must come through olddefconfig intact.
missing=0
# shellcheck disable=SC2094 # the loop only reads the fragment; basename writes nothing
while read -r line; do
	case "$line" in
	CONFIG_*=* | "# CONFIG_"*" is not set") ;;
	*) continue ;;
	esac
	if ! grep -qxF "$line" "$obj/.config"; then
		printf 'kernel: error: "%s" from %s is not in the final .config\n' \
			"$line" "$(basename "$fragment")" >&2
		missing=$((missing + 1))
	fi
done <"$fragment"
[ "$missing" -eq 0 ] || die "$missing fragment options lost (unmet dependencies?)"

# Progress: one line per 200 compiled objects, against the last count.
expected=$(cat "$kdir/objects" 2>/dev/null || echo "?")
say "building bzImage with -j$JOBS (log: $kdir/build.log)"
set +e
"${kmake[@]}" all 2>&1 | tee "$kdir/build.log" |
	awk -v expected="$expected" -v start="$start" '
		/^  (CC|AS|AR|LD|HOSTCC)/ {
			n++
			if (n % 200 == 0)
				printf "kernel: %d objects built (last full build: %s), %ds\n",
					n, expected, systime() - start
			fflush()
		}
		END { print n > "/dev/stderr" }' 2>"$kdir/objects.new"
status=${PIPESTATUS[0]}
set -e
if [ "$status" -ne 0 ]; then
	grep -E 'error|Error' "$kdir/build.log" | head -20 >&2
	die "make failed with status $status, see $kdir/build.log"
fi
built=$(cat "$kdir/objects.new")
# Keep the count of a full build only, for the progress estimate.
if [ "$expected" = "?" ] || [ "${built:-0}" -gt "$expected" ]; then
	mv "$kdir/objects.new" "$kdir/objects"
fi

cp "$obj/arch/x86/boot/bzImage" "$image.tmp"
mv "$image.tmp" "$image"
echo "$key" >"$kdir/key"
say "built $image ($(stat -c %s "$image") bytes) in $(($(date +%s) - start)) s"
