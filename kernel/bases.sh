# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034 # sourced: the tests use what it sets
# kernel/bases.sh: the kernel bases the series is kept for, and where the
# build of each is, for the tests (sourced; BUILD must be set).  6.1's
# paths carry no base suffix, so that what named them before the second
# base still works (docs/decisions.md); the Makefile and
# kernel/build-kernel.sh spell the same paths.
#
# KERNEL_BASES="6.1" tests one base only.  BZIMAGE, KERNEL_DIR and
# KERNEL_TARBALL, when set, name 6.1's kernel, build directory and
# tarball.

KERNEL_BASES=${KERNEL_BASES:-6.1 6.12}
KERNEL_DIR_6_1=${KERNEL_DIR:-$BUILD/kernel}
BZIMAGE_6_1=${BZIMAGE:-$BUILD/bzImage}
TARBALL_6_1=${KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}

# kernel_base BASE: set BASE, BZIMAGE, KDIR (src/ and obj/ of the build),
# TARBALL, SERIES_DIR and TEST_MODULE for one base.
kernel_base() {
	BASE=$1
	case $BASE in
	6.1)
		BZIMAGE=$BZIMAGE_6_1
		KDIR=$KERNEL_DIR_6_1
		TARBALL=$TARBALL_6_1
		;;
	*)
		BZIMAGE=$BUILD/bzImage-$BASE
		KDIR=$BUILD/kernel-$BASE
		TARBALL=/usr/src/linux-source-$BASE.tar.xz
		;;
	esac
	SERIES_DIR=$TOP/kernel/patches/$BASE
	TEST_MODULE=$KDIR/test-module/devtmpfs_test.ko
	[ -r "$SERIES_DIR/series" ] ||
		{ fail "no series for the kernel base $BASE ($SERIES_DIR/series)"; return 1; }
}

# for_each_kernel_base FUNC [ARGS]: FUNC once for each base, with the
# variables of kernel_base set, in a scratch directory $T/BASE of its
# own.  Fails when FUNC failed on any base, naming it.
for_each_kernel_base() {
	local base status=0 top=$T
	for base in $KERNEL_BASES; do
		mkdir -p "$top/$base"
		(
			kernel_base "$base" || exit 1
			T=$top/$base
			cd "$T" && "$@"
		) || { fail "failed on the $base kernel"; status=1; }
	done
	return "$status"
}
