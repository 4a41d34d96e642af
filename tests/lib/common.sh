# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# tests/lib/common.sh: what the tests (tests/lib/lib.sh) and the
# benchmarks (bench/lib.sh) share, and only that: the paths of the
# build, the initramfs lists of busybox, QEMU's monitor, and the readers
# of a guest's console log.  Nothing here fails a test or ends a
# benchmark: each caller says what a failure means to it.

# shellcheck disable=SC2034 # its variables are for the files that source it
TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
BUILD=${BUILD:-$TOP/build}
# Tests and benchmarks cd into their own directories: make BUILD (make
# passes a relative one) absolute while the working directory is still
# the caller's.
case $BUILD in /*) ;; *) BUILD=$PWD/$BUILD ;; esac
BZIMAGE=${BZIMAGE:-$BUILD/bzImage}
KOBJ=${KOBJ:-$BUILD/kernel/obj}
BUSYBOX=${BUSYBOX:-/bin/busybox}
RUN_VM=$TOP/qemu/run-vm

# ---- initramfs images ----------------------------------------------------

# A gen_init_cpio(1) list with busybox and a link for each of its
# applets in /bin, for the kernel's usr/gen_init_cpio, which writes
# device nodes without root privileges.
busybox_cpio_list() {
	local applet
	echo "dir /bin 0755 0 0"
	echo "file /bin/busybox $BUSYBOX 0755 0 0"
	for applet in $("$BUSYBOX" --list); do
		[ "$applet" = busybox ] || echo "slink /bin/$applet busybox 0777 0 0"
	done
	echo "dir /sbin 0755 0 0"
	echo "dir /proc 0755 0 0"
	echo "dir /sys 0755 0 0"
}

# cpio_from_list LIST OUT: write a newc archive from a gen_init_cpio list.
cpio_from_list() {
	"$KOBJ/usr/gen_init_cpio" "$1" >"$2.tmp" && mv "$2.tmp" "$2"
}

# busybox_initramfs OUT [LINE...]: OUT, a newc archive of busybox
# (busybox_cpio_list) and the gen_init_cpio LINEs; its list in OUT.list.
busybox_initramfs() {
	local out=$1
	shift
	{
		busybox_cpio_list
		[ $# -eq 0 ] || printf '%s\n' "$@"
	} >"$out.list" &&
	cpio_from_list "$out.list" "$out"
}

# ---- a guest ---------------------------------------------------------------

# monitor SOCK CMD...: send HMP commands to QEMU's monitor one by one,
# each after the previous prompt; the replies go to $T/monitor.log.
monitor() {
	perl -MIO::Socket::UNIX -e '
		my $s = IO::Socket::UNIX->new(Peer => shift) or die "monitor: $!\n";
		my $buf = "";
		sub prompt { local $SIG{ALRM} = sub { die "monitor: no prompt\n" };
			alarm 10; while ($buf !~ /\(qemu\) $/) { my $n = sysread($s, my $c, 4096);
				die "monitor: closed\n" unless $n; $buf .= $c; } alarm 0;
			print $buf; $buf = ""; }
		prompt();
		for my $cmd (@ARGV) { print $s "$cmd\n"; prompt(); }
	' "$@" >>"$T/monitor.log" 2>&1
}

# The value of key K in the guest's "TEST RESULT: CASE k=v ..." line.
# A kernel line printed while the guest wrote its result can land on the
# same console line ("mounted=yes[    1.32] clocksource: ..."): from the
# first printk stamp after "TEST RESULT:" on, the line is the kernel's.
result_field() { # log case key
	tr -d '\r' <"$1" | sed -n "/TEST RESULT: $2 /{s/\(TEST RESULT: [^[]*\)\[ *[0-9][0-9]*\.[0-9][0-9]*\].*$/\\1/; s/^.*TEST RESULT: $2 .*\\b$3=\\([^ ]*\\).*$/\\1/p}" | tail -n1
}

# printk time (s) of the first console line matching REGEX, or empty.
printk_time() { # log regex
	tr -d '\r' <"$1" | grep -E -m1 -- "$2" |
		sed -n 's/^[^[]*\[ *\([0-9]*\.[0-9]*\)\].*/\1/p'
}
