# SPDX-License-Identifier: GPL-2.0
# tests/groups/tang.sh: a LUKS2 root bound to a tang server with Debian's
# clevis (clevis luks bind ... tang), opened by rescue-init with the key
# `clevis luks pass` gets back, no passphrase typed (luksclevis.c), on
# the stock 6.1 and 6.12 with mkrescue -k --clevis.  tang (Debian's
# tangd, inetd-style under socat) listens on 127.0.0.1 only, started by
# each test; the guest reaches it as 10.0.2.2 through QEMU's user-mode
# network.  The binding is made on the host against the disk image file
# (cryptsetup and clevis do header work on a file: no loop, no dm),
# with the advertisement fetched from 127.0.0.1 and the URL the guest
# uses.  One disk (cached with tang's keys) and one image per kernel
# serve every test: a boot gets a copy of the disk.
#   tang up: root mounted, no prompt, the line naming the tang unlock;
#   tang down: the fallback line naming the server and the reason, the
#     prompt, the passphrase typed (no ip=: the binding asks for DHCP);
#   tang started while the prompt waits: the boot goes on untyped.

. "$TOP/tests/lib/rescue-lib.sh"

TANG_UUID=5d2e3f40-6b7c-4d8e-9fa0-1b2c3d4e5f61
TANG_PASS=correct-horse-7
TANG_PORT=${TANG_PORT:-17380}
TANG_URL=http://10.0.2.2:$TANG_PORT
TANG_VM_TIMEOUT=${TANG_VM_TIMEOUT:-240}
TANG_CACHE=$BUILD/tests/tang-cache
TANG_SHARED=$BUILD/tests/tang-shared
# shellcheck disable=SC2054 # the commas are QEMU's, inside one argument
TANG_NIC=(--qemu-arg -nic --qemu-arg user,model=virtio-net-pci)

# tang_start DB: tangd under socat on 127.0.0.1:$TANG_PORT, its pid in
# $T/tang.pid; tang_stop ends it (and only it).
tang_start() {
	socat "TCP-LISTEN:$TANG_PORT,bind=127.0.0.1,reuseaddr,fork" \
		EXEC:"/usr/libexec/tangd $1" >"$T/tang.log" 2>&1 &
	echo $! >"$T/tang.pid"
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		curl -sf "http://127.0.0.1:$TANG_PORT/adv" -o /dev/null && return 0
		sleep 0.2
	done
	fail "tang did not answer on 127.0.0.1:$TANG_PORT:" "$(cat "$T/tang.log")"
}
tang_stop() {
	[ -s "$T/tang.pid" ] && kill "$(cat "$T/tang.pid")" 2>/dev/null
	rm -f "$T/tang.pid"
}

# The disk: a 64 MiB LUKS2 container (passphrase $TANG_PASS) holding
# the ext4 root whose init reports "tang", bound to $TANG_URL, with the
# tang keys that answer for it; cached on the port and this file.
tang_disk() {
	local key dir
	key=$(sha256sum <"$TOP/tests/groups/tang.sh" | cut -c1-16)-$TANG_PORT
	dir=$TANG_CACHE/$key
	if [ ! -e "$dir/disk.img" ]; then
		rm -rf "$dir" && mkdir -p "$dir/db" || return 1
		/usr/libexec/tangd-keygen "$dir/db" ||
			{ fail "tangd-keygen failed"; return 1; }
		make_root_dir "$T/root" tang
		blank_disk "$T/disk.img" 64
		mke2fs -q -F -t ext4 -U "$ROOT_UUID" -L tang-root -d "$T/root" "$T/disk.img" 32M ||
			{ fail "mke2fs failed"; return 1; }
		luks_encrypt "$T/disk.img" "$TANG_UUID" "$TANG_PASS" || return 1
		tang_start "$dir/db" || return 1
		curl -sf "http://127.0.0.1:$TANG_PORT/adv" -o "$T/adv.jws" &&
		printf '%s' "$TANG_PASS" >"$T/pass" &&
		clevis luks bind -y -k "$T/pass" -d "$T/disk.img" tang \
			"{\"url\":\"$TANG_URL\",\"adv\":\"$T/adv.jws\"}" >"$T/bind.log" 2>&1
		local status=$?
		tang_stop
		[ "$status" -eq 0 ] ||
			{ fail "clevis luks bind failed:" "$(cat "$T/bind.log")"; return 1; }
		mv "$T/disk.img" "$dir/disk.img"
	fi
	TANG_DB=$dir/db
	cp --sparse=always "$dir/disk.img" "$T/c.img"
}

# tang_image: the image of this kernel ($STOCK_KVER), made once a run
# (again when rescue-init or mkrescue is newer).
tang_image() {
	local img
	KVER=$(stock_kernel_version) || return 1
	img=$TANG_SHARED/initrd-$KVER
	mkdir -p "$TANG_SHARED"
	if [ ! -e "$img" ] || [ "$RESCUE_INIT" -nt "$img" ] || [ "$BUILD/mkrescue" -nt "$img" ]; then
		"$BUILD/mkrescue" --init "$RESCUE_INIT" -k "$KVER" --clevis -o "$img.tmp" \
			2>"$T/mkrescue.err" && mv "$img.tmp" "$img" ||
			{ fail "mkrescue -k $KVER --clevis failed:" "$(cat "$T/mkrescue.err")"; return 1; }
	fi
	ln -sf "$img" "$T/initrd"
}

tang_setup() { tang_image && tang_disk; }

tang_args() { # append
	printf '%s\n' --kernel "/boot/vmlinuz-$KVER" --initrd "$T/initrd" --mem 512M \
		--append "root=UUID=$ROOT_UUID rd.shell=0 $1" --disk "virtio-blk:$T/c.img" "${TANG_NIC[@]}"
}

# The root mounted read-only from the container, the passphrase not on
# the console.
expect_tang_root() {
	expect_log "$T/console.log" \
		"rescue: luks: opened /dev/vda \(LUKS2, UUID $TANG_UUID\) as dm-0" \
		"the container opened" &&
	expect_field "$T/console.log" root marker tang &&
	expect_field "$T/console.log" root mode ro &&
	expect_no_log "$T/console.log" "$TANG_PASS" "the passphrase on the console"
}

expect_tang_unlock_line() {
	expect_log "$T/console.log" \
		"rescue: luks: /dev/vda unlocked by clevis with tang $TANG_URL, no passphrase typed" \
		"the line naming the tang unlock"
}

# tang up, ip=dhcp: no prompt at all.
test_tang_up_opens_the_root_without_a_prompt() {
	for_each_stock_kernel tang_up
}
tang_up() {
	local args status
	tang_setup && tang_start "$TANG_DB" || { tang_stop; return 1; }
	mapfile -t args < <(tang_args "ip=dhcp")
	VM_TIMEOUT=$TANG_VM_TIMEOUT boot_vm "$T/console.log" "${args[@]}"
	status=$?
	tang_stop
	[ "$status" -eq 0 ] &&
	expect_tang_unlock_line &&
	expect_tang_root &&
	expect_no_log "$T/console.log" "Passphrase for" "a passphrase prompt"
}

# tang down, no ip= (the binding brings up DHCP): the fallback line,
# then the prompt, which the typed passphrase answers.
test_tang_down_says_why_and_asks_for_the_passphrase() {
	for_each_stock_kernel tang_down
}
tang_down() {
	local args
	tang_setup || return 1
	passphrase_steps /dev/vda "$TANG_UUID" "$TANG_PASS"
	mapfile -t args < <(tang_args "")
	"$TOP/tests/tools/vm-steps.exp" "$T/console.log" "$TANG_VM_TIMEOUT" "$T/steps" "${args[@]}" ||
		{ show_log "$T/console.log" 40; fail "the steps of $T/steps failed"; return 1; }
	expect_log "$T/console.log" \
		"rescue: network: ip=dhcp for a LUKS container bound to tang \(no ip= on the command line\)" \
		"DHCP started for the binding" &&
	expect_log "$T/console.log" \
		"rescue: luks: tang $TANG_URL did not open /dev/vda: Connection refused; asking for the passphrase, and tang again every 5 s" \
		"the fallback line naming the server and the reason" &&
	expect_tang_root &&
	expect_no_log "$T/console.log" "unlocked by clevis" "a clevis unlock"
}

# tang started once the prompt shows: the prompt's retry opens the
# container, nobody types.
test_tang_started_while_the_prompt_waits_boots_untyped() {
	for_each_stock_kernel tang_late
}
tang_late() {
	local args status waiter
	tang_setup || return 1
	mapfile -t args < <(tang_args "ip=dhcp")
	: >"$T/console.log"
	(
		for _ in $(seq 1 900); do
			grep -q "Passphrase for /dev/vda" "$T/console.log" 2>/dev/null && break
			sleep 0.2
		done
		tang_start "$TANG_DB"
	) &
	waiter=$!
	VM_TIMEOUT=$TANG_VM_TIMEOUT boot_vm "$T/console.log" "${args[@]}"
	status=$?
	wait "$waiter"
	tang_stop
	[ "$status" -eq 0 ] &&
	expect_log "$T/console.log" "Passphrase for /dev/vda" "the prompt first" &&
	expect_log "$T/console.log" "rescue: luks: tang $TANG_URL did not open /dev/vda" \
		"the fallback line" &&
	expect_tang_unlock_line &&
	expect_tang_root
}
