# SPDX-License-Identifier: GPL-2.0
# tests/lib/mkrescue-lib.sh: what the mkrescue groups share (mkrescue.sh and
# mkrescue-errors.sh): running it, listing an image, and the checks of a
# failed run.

# One collation for sort, comm and the image's byte order.
# shellcheck disable=SC2034 # its variables are for the files that source it
export LC_ALL=C

MK_BUILD=$(cd "$BUILD" && pwd)
MKRESCUE=$MK_BUILD/mkrescue
# A static stand-in for rescue-init (tests/fixtures/test-init.c).
MK_INIT=$MK_BUILD/obj/mkrescue/test-init
MK_MODULE_LIST=$TOP/rescue/share/modules.list
E2FSCK_STATIC=/sbin/e2fsck.static

# tests/run may pass a relative $T; the tests run inside it.
mk_setup() {
	T=$PWD
	# The persistent SSH host key of --ssh-authorized-keys: the test's own.
	export MKRESCUE_SSH_HOST_KEY=$T/ssh_host_ed25519_key
	[ -x "$MKRESCUE" ] || { fail "no $MKRESCUE (make $MKRESCUE)"; return 1; }
	[ -x "$MK_INIT" ] || { fail "no $MK_INIT (make $MK_INIT)"; return 1; }
}

mk() {
	"$MKRESCUE" --init "$MK_INIT" "$@"
}

# "MODE UID GID PATH[ -> TARGET]" for each entry of an image, any format,
# as it is once the toolkit (rescue/lib/toolkit.h) is unpacked: its
# entries among the others, its /bin/sh in place of the image's.
list_image() {
	{
		bsdcpio -itvn <"$1" 2>/dev/null
		bsdtar -xOf "$1" etc/rescue-toolkit.cpio.xz 2>/dev/null |
			bsdcpio -itvn 2>/dev/null
	} |
		awk '{ p = $9; for (i = 10; i <= NF; i++) p = p " " $i
		       if (!($9 in line)) order[++n] = $9
		       line[$9] = $1 " " $3 " " $4 " " p }
		     END { for (i = 1; i <= n; i++) print line[order[i]] }'
}

# The entries of IMG (list_image) in OUT.  Fails when /init is not among
# them: a check that a file is not in the image must not pass because
# the image could not be read.
list_image_into() { # img out
	list_image "$1" >"$2"
	grep -q ' init$' "$2" ||
		{ fail "no /init listed in $1: unreadable?" "$(head -n3 "$2")"; return 1; }
}

# The image extracted into DIR.
extract_image() { # img dir
	mkdir -p "$2" && (cd "$2" && bsdcpio -id --quiet <"$1") ||
		{ fail "unable to extract $1"; return 1; }
}

# ssh_user_and_host_keys: $T/user, an SSH user key, and $T/host_key, a
# host key in dropbear's format, made now.
ssh_user_and_host_keys() {
	ssh-keygen -q -t ed25519 -N '' -f "$T/user" &&
	dropbearkey -t ed25519 -f "$T/host_key" >/dev/null 2>&1 ||
		{ fail "ssh-keygen or dropbearkey failed"; return 1; }
}

# mk_with_host_key OUT: mk with those keys (--ssh-authorized-keys,
# --ssh-host-key) into OUT, its messages in $T/stderr.
mk_with_host_key() {
	mk --ssh-authorized-keys "$T/user.pub" --ssh-host-key "$T/host_key" -o "$1" 2>"$T/stderr" ||
		{ fail "mkrescue --ssh-host-key failed:" "$(cat "$T/stderr")"; return 1; }
}

# newc_walk headers|end IMG: the entries of the uncompressed newc archive
# at the start of IMG, through its TRAILER!!! entry: "headers", one line
# per entry, "ino mode(octal) uid gid nlink mtime devmajor devminor
# rdevmajor rdevminor name"; "end", the archive's size in bytes (what
# follows it: the rest of an image that starts with an early cpio).
newc_walk() {
	perl -e '
		my ($what, $img) = @ARGV;
		open(my $f, "<", $img) or die "$img: $!\n";
		binmode $f; local $/; my $d = <$f>; my $o = 0;
		while (1) {
			my $h = substr($d, $o, 110);
			die "no newc magic at offset $o\n" unless substr($h, 0, 6) eq "070701";
			my @x = map { hex(substr($h, 6 + 8 * $_, 8)) } 0 .. 12;
			my $name = substr($d, $o + 110, $x[11] - 1);
			$o = ($o + 110 + $x[11] + 3) & ~3;
			$o = ($o + $x[6] + 3) & ~3;
			last if $name eq "TRAILER!!!";
			printf "%d %o %d %d %d %d %d %d %d %d %s\n", @x[0 .. 5],
				@x[7 .. 10], $name if $what eq "headers";
		}
		print "$o\n" if $what eq "end";' "$1" "$2"
}

newc_headers() { newc_walk headers "$1"; }

expect_entry() { # list mode path [target]
	local want="$2 0 0 $3${4:+ -> $4}"
	grep -qxF -- "$want" "$1" ||
		fail "expected '$want' in the image, got:" \
			"$(grep -F -- " $3" "$1" | head -n3)"
}

expect_no_file_left() { # out
	local dir=${1%/*} base=${1##*/}
	[ ! -e "$1" ] || { fail "$1 exists after a failure"; return 1; }
	[ -d "$dir" ] || return 0
	if compgen -G "$dir/.$base.*" >/dev/null; then
		fail "a temporary is left in $dir:" "$(cd "$dir" && compgen -G ".$base.*")"
		return 1
	fi
}

# expect_failure CULPRIT OUT CMD...: CMD -o OUT fails with one error line
# that names CULPRIT, and leaves neither OUT nor a temporary.
expect_failure() {
	local culprit=$1 out=$2 status lines
	shift 2
	"$@" -o "$out" >"$T/stdout" 2>"$T/stderr"
	status=$?
	lines=$(wc -l <"$T/stderr")
	[ "$status" -ne 0 ] || { fail "exit status 0 for: $*"; return 1; }
	[ "$lines" -eq 1 ] ||
		{ fail "expected one error line, got $lines:" "$(cat "$T/stderr")"; return 1; }
	grep -qE "^mkrescue: unable to .*$culprit" "$T/stderr" ||
		{ fail "the error does not name $culprit:" "$(cat "$T/stderr")"; return 1; }
	expect_no_file_left "$out"
}


# A made-up module tree: every resolution rule on a few lines.
make_fake_kmoddir() { # dir
	mkdir -p "$1/kernel/drivers" "$1/kernel/crypto"
	local m
	for m in drivers/alpha drivers/beta drivers/gamma-x drivers/unused crypto/hash_impl; do
		printf 'fake module %s\n' "$m" >"$1/kernel/$m.ko"
	done
	cat >"$1/modules.dep" <<'EOF'
kernel/drivers/alpha.ko: kernel/drivers/beta.ko
kernel/drivers/beta.ko:
kernel/drivers/gamma-x.ko:
kernel/drivers/unused.ko:
kernel/crypto/hash_impl.ko:
EOF
	cat >"$1/modules.alias" <<'EOF'
# Aliases extracted from modules themselves.
alias pci:v00001234d*sv*sd*bc*sc*i* alpha
alias crypto-hash hash_impl
alias pci:v00005678d*sv*sd*bc*sc*i* unused
EOF
	echo 'softdep beta pre: crypto-hash post: gamma-x' >"$1/modules.softdep"
	echo 'kernel/drivers/builtin_one.ko' >"$1/modules.builtin"
	printf '%s\n' alpha builtin-one not_in_kernel >"$1/list"
}
