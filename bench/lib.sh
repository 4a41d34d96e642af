# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# bench/lib.sh: what the benchmarks share.  bench/run, debian, memory,
# network and stacked source it, having set ME (the prefix of their
# messages) and VM_TIMEOUT (s a boot): the paths, die, the statistics
# (spread, median) and the ratios with their verdicts, one boot through
# qemu/run-vm, the inputs they build (an ext4 root, a cpio archive,
# dracut with this tree's module), the readers of a guest's console
# log, and the writer of their block of bench/RESULTS.md.  Of tests/ it
# sources tests/lib/common.sh alone, what the tests' helpers share with
# it: the paths of the build (BUILD, BZIMAGE, KOBJ, BUSYBOX, RUN_VM),
# busybox's initramfs lists, QEMU's monitor, result_field and
# printk_time; nothing there fails a test or needs one.

TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
. "$TOP/tests/lib/common.sh"
CC=${CC:-gcc}
ME=${ME:-bench}

die() {
	printf '%s: error: %s\n' "$ME" "$*" >&2
	exit 1
}

warn() {
	printf '%s: %s\n' "$ME" "$*" >&2
}

# ---- statistics and ratios ---------------------------------------------

# spread FORMAT: "min median max" of the numbers on stdin, one a line
# (empty lines are no figure), each printed with FORMAT (%s: as they
# came); the median of an even count is the mean of the middle two;
# "- - -" when there are none.
spread() {
	sort -g | awk -v f="$1" 'NF { v[++n] = $1 } END {
		if (n == 0) { print "- - -"; exit }
		m = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
		printf f " " f " " f "\n", v[1], m, v[n] }'
}

# median FORMAT: the median of the numbers on stdin; "-" when none.
median() {
	spread "$1" | cut -d' ' -f2
}

# SHOWN: awk functions for printing a figure beside its verdict.
# shown(x, d, op, t): x with d decimals, or with more (up to 9) when d
# of them would put it on the other side of the target t (op <= or >=)
# than x itself is: 1.1004 against "<= 1.10" shows as 1.1004, not as
# 1.10 beside its "NOT met".  With op "" it is x with d decimals.
SHOWN='
function holds(x, op, t) { return (op == "<=") ? (x + 0 <= t + 0) : (x + 0 >= t + 0) }
function shown(x, d, op, t,   s) {
	for (; d <= 9; d++) {
		s = sprintf("%." d "f", x)
		if (op == "" || holds(s, op, t) == holds(x, op, t)) break
	}
	return s
}'

# figure X D [OP T]: X printed by shown(); "-" when X is missing.
figure() {
	awk -v x="$1" -v d="$2" -v op="${3-}" -v t="${4-}" "$SHOWN"'
	BEGIN { if (x == "-" || x == "") print "-"; else print shown(x, d, op, t) }'
}

# quotient A B: A / B unrounded (every digit of the double), for a
# verdict; "-" when either is missing or B is not above 0.
quotient() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a != "-" && a != "" && b != "-" && b > 0) printf "%.17g\n", a / b; else print "-" }'
}

# ratio A B [OP T]: A / B for the eye, 2 decimals, more when 2 would not
# show on which side of the target T it is (see shown()); "-" when
# either is missing.  Verdicts come from quotient, never from this.
ratio() {
	figure "$(quotient "$1" "$2")" 2 "${3-}" "${4-}"
}

# target A OP B: 1 when "A OP B" holds (OP is <= or >=), 0 when it does
# not, "-" when a figure is missing: no verdict without a figure.  A is
# never a rounded ratio: give it quotient's.
target() {
	awk -v a="$1" -v op="$2" -v b="$3" 'BEGIN {
		if (a == "-" || a == "" || b == "-" || b == "") { print "-"; exit }
		a += 0; b += 0
		print ((op == "<=") ? (a <= b) : (a >= b)) ? 1 : 0 }'
}

verdict() { # 1, 0 or - from target
	case $1 in 1) echo met ;; 0) echo "NOT met" ;; *) echo "no figure" ;; esac
}

# ---- one boot ----------------------------------------------------------

# bench_vm [--stdout] LOG [run-vm options]: one boot through
# qemu/run-vm, within $VM_TIMEOUT seconds, its serial console into LOG
# (with --stdout on stdout instead), run-vm's own messages into
# LOG.run-vm, stdin not the caller's.  Returns run-vm's status: whether
# a failed boot ends the run is the caller's to say, with
# vm_error LOG for the reason.
bench_vm() {
	local console=
	if [ "$1" = --stdout ]; then
		console=stdout
		shift
	fi
	local log=$1
	shift
	if [ -n "$console" ]; then
		"$RUN_VM" --timeout "$VM_TIMEOUT" "$@" </dev/null 2>"$log.run-vm"
	else
		"$RUN_VM" --timeout "$VM_TIMEOUT" --log "$log" "$@" </dev/null 2>"$log.run-vm"
	fi
}

vm_error() { # log: why its boot failed, as run-vm said it
	cat "$1.run-vm" 2>/dev/null
}

# ---- inputs ------------------------------------------------------------

# The stock kernel a benchmark boots: $STOCK_KVER, else the oldest
# Debian stock kernel installed (in /boot and /lib/modules).
stock_kernel_version() {
	local kver=${STOCK_KVER:-} k
	if [ -z "$kver" ]; then
		for k in $(find /lib/modules -mindepth 1 -maxdepth 1 -name '*-amd64' \
			-printf '%f\n' | sort -V); do
			[ -r "/boot/vmlinuz-$k" ] && { kver=$k; break; }
		done
	fi
	{ [ -n "$kver" ] && [ -r "/boot/vmlinuz-$kver" ]; } ||
		{ warn "no Debian stock kernel ${STOCK_KVER:-} in /boot and /lib/modules (make deps)"; return 1; }
	echo "$kver"
}

build_static() { # src out
	"$CC" -static -O2 -Wall -Wextra -Werror -o "$2" "$1" || die "unable to build $2"
}

# make_ext4 DIR IMG SIZE_MB UUID LABEL: unpartitioned ext4 from DIR.
make_ext4() {
	rm -f "$2"
	mke2fs -q -F -t ext4 -U "$4" -L "$5" -d "$1" "$2" "${3}M"
}

# make_real_init_root INIT IMG UUID: the root of the boot benchmarks, a
# 16 MB ext4 by UUID whose /sbin/init is INIT (bench/real-init, which
# stamps /dev/kmsg and reboots), made in $T/root.
make_real_init_root() {
	rm -rf "$T/root"
	mkdir -p "$T/root/sbin" "$T/root/dev" "$T/root/proc" "$T/root/sys" \
		"$T/root/run" "$T/root/tmp" "$T/root/etc"
	cp "$1" "$T/root/sbin/init"
	# systemd's switch-root refuses a root without os-release.
	printf 'ID=bench\nNAME="devtmpfs-rescue bench root"\n' >"$T/root/etc/os-release"
	make_ext4 "$T/root" "$2" 16 "$3" bench-root >/dev/null 2>&1 ||
		die "unable to make the root image $2"
}

# dracut_rescue DEST OUT LOG: `dracut --add devtmpfs-rescue
# --no-hostonly` for the stock kernel, with this tree installed by make
# install into DEST (once; never into the system) and a dracut base
# directory that holds its module, as a user of a build tree would run
# it; dracut compresses as it would for a user.  The dracut modules
# rescue-init cannot stand in for are left out, as the module asks (it
# refuses an image that has one).  dracut's output in LOG.
dracut_rescue() {
	local dest=$1 out=$2 log=$3 base=$1.dracutbase kver entry omit
	kver=$(stock_kernel_version) || return 1
	if [ ! -e "$dest/.installed" ]; then
		rm -rf "$dest"
		mkdir -p "$dest"
		make -s -C "$TOP" install DESTDIR="$dest" PREFIX=/usr >"$dest.install.log" 2>&1 ||
			{ warn "make install DESTDIR=$dest failed: $(tail -5 "$dest.install.log")"; return 1; }
		touch "$dest/.installed"
	fi
	rm -rf "$base"
	mkdir -p "$base/modules.d"
	for entry in /usr/lib/dracut/*; do
		[ "${entry##*/}" = modules.d ] || ln -s "$entry" "$base/"
	done
	ln -s /usr/lib/dracut/modules.d/* "$base/modules.d/"
	ln -s "$dest/usr/lib/dracut/modules.d/99devtmpfs-rescue" "$base/modules.d/"
	# The module's data (the storage layers, the module list) is read
	# from where make install put it, not from the system.
	export DEVTMPFS_RESCUE_DATADIR=$dest/usr/share/devtmpfs-rescue
	omit=$(bash -c '. "$1" && devtmpfs_rescue_modules_in missing' _ \
		"$TOP/dracut-module/99devtmpfs-rescue/module-setup.sh") ||
		{ warn "the dracut module's storage layers: unable to read them"; return 1; }
	dracutbasedir=$base \
		DEVTMPFS_RESCUE_INIT=$dest/usr/lib/devtmpfs-rescue/rescue-init \
		DEVTMPFS_RESCUE_SSH_HOST_KEY=${DEVTMPFS_RESCUE_SSH_HOST_KEY:-$T/ssh_host_ed25519_key} \
		dracut --force --kver "$kver" --no-hostonly --add devtmpfs-rescue \
		--omit "$omit" "$out" >"$log" 2>&1 ||
		{ warn "dracut --add devtmpfs-rescue failed: $(tail -5 "$log")"; return 1; }
}

# ---- bench/RESULTS.md --------------------------------------------------

# record_results NAME MD COMMAND: MD (the results.md bench/NAME wrote)
# into bench/RESULTS.md, as the block between the markers of bench/NAME
# (appended as a section of its own when there are none yet), after a
# line with the date, the machine and COMMAND; its headings two levels
# down, under the section's.  The rest of the file, the notes written
# by hand, is kept as it is.
record_results() {
	local name=$1 md=$2 command=$3 results=$TOP/bench/RESULTS.md block
	local begin="<!-- bench/$name: begin (make bench writes this block) -->"
	local end="<!-- bench/$name: end -->"
	block=$(mktemp) || return 1
	{
		echo "$begin"
		echo "Latest run: \`$command\`, $(date -u '+%Y-%m-%d %H:%M UTC'), on $(machine)."
		echo
		sed 's/^#/###/' "$md"
		echo
		echo "$end"
	} >"$block"
	[ -e "$results" ] || printf '# Benchmark results\n' >"$results"
	grep -qxF -- "$begin" "$results" ||
		printf '\n## bench/%s\n\n%s\n%s\n' "$name" "$begin" "$end" >>"$results"
	awk -v b="$begin" -v e="$end" -v f="$block" '
		$0 == b { while ((getline l < f) > 0) print l; skip = 1; next }
		$0 == e { skip = 0; next }
		!skip' "$results" >"$results.tmp" && mv "$results.tmp" "$results"
	rm -f "$block"
	warn "wrote its block of $results"
}

# The machine, in a line: its system, cores, CPU, QEMU, and its load.
machine() {
	local os cpu
	os=$(sed -n 's/^PRETTY_NAME="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' /etc/os-release 2>/dev/null)
	cpu=$(awk '/^model name/ { sub(/.*: /, ""); print; exit }' /proc/cpuinfo)
	printf '%s, %s cores, %s, QEMU %s under TCG, load average %s' "${os:-Linux}" \
		"$(nproc)" "$cpu" "$(qemu-system-x86_64 --version | head -n1 | awk '{ print $4 }')" \
		"$(cut -d' ' -f1-3 /proc/loadavg)"
}
