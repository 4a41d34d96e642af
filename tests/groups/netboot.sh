# SPDX-License-Identifier: GPL-2.0
# tests/groups/netboot.sh: the folder of mkrescue-media netboot, booted
# as a site would serve it.  The guests have no --kernel: their firmware
# boots the network (run-vm --firmware without --boot), where the iPXE
# of QEMU's NIC ROM (ipxe-qemu, with qemu-system-x86) asks QEMU's
# user-mode network for an address and a boot file, and runs boot.ipxe.
# The folder is served from a subfolder, rescue/, so that the script's
# paths relative to its own URL are what finds the kernel and the image:
# by QEMU's own TFTP server (tftp=), and by a busybox httpd that the
# test starts on 127.0.0.1, which the guest reaches as 10.0.2.2.  Each
# guest proves it booted its own root disk with the root's marker.

. "$TOP/tests/lib/rescue-lib.sh"

MEDIA=$TOP/rescue/media/mkrescue-media
# iPXE's DHCP and downloads under TCG come before the kernel's boot.
NETBOOT_VM_TIMEOUT=${NETBOOT_VM_TIMEOUT:-240}
# What run-vm adds to a --kernel boot's command line, for a TCG guest on
# a loaded host (see qemu/run-vm); here the folder's command line.
TCG_APPEND="panic=-1 no_timer_check tsc=nowatchdog"

# netboot_folder KERNEL IMAGE APPEND [netboot options]: the folder
# $T/srv/rescue, as mkrescue-media netboot writes it.
netboot_folder() {
	local kernel=$1 image=$2 append=$3
	shift 3
	mkdir -p "$T/srv"
	"$MEDIA" netboot -k "$kernel" -i "$image" -a "$TCG_APPEND $append" \
		-o "$T/srv/rescue" "$@" 2>"$T/media.log" ||
		{ fail "mkrescue-media netboot failed:" "$(cat "$T/media.log")"; return 1; }
}

# netboot_root IMG UUID LABEL MARKER: an ext4 root whose init reports MARKER.
netboot_root() {
	make_root_dir "$T/root.$4" "$4"
	make_ext4 "$T/root.$4" "$1" 16 "$2" "$3"
}

# nic MAC BOOTFILE [more]: NIC, run-vm's options for a NIC on QEMU's
# user network that hands out BOOTFILE.
nic() {
	NIC=(--qemu-arg -nic --qemu-arg "user,model=virtio-net-pci,mac=$1,bootfile=$2${3:+,$3}")
}

# http_start DIR: busybox httpd serving DIR on 127.0.0.1:HTTP_PORT only,
# logging each request to $T/httpd.log; back once it listens.  It is
# stopped by http_stop, or when the test's shell exits.
http_start() {
	local _
	HTTP_PORT=$(free_port) || return 1
	"$BUSYBOX" httpd -f -vv -p "127.0.0.1:$HTTP_PORT" -h "$1" 2>"$T/httpd.log" &
	HTTP_PID=$!
	trap http_stop EXIT
	for _ in $(seq 50); do
		ss -Htln "sport = :$HTTP_PORT" | grep -q . && return 0
		sleep 0.1
	done
	fail "busybox httpd does not listen on 127.0.0.1:$HTTP_PORT:" "$(cat "$T/httpd.log")"
	return 1
}

http_stop() {
	[ -n "${HTTP_PID:-}" ] || return 0
	kill "$HTTP_PID" 2>/dev/null
	wait "$HTTP_PID" 2>/dev/null
	HTTP_PID=
}

# expect_served PATH...: the server's log has a 200 for each PATH.
expect_served() {
	local path
	for path in "$@"; do
		grep -A1 -F "url:$path" "$T/httpd.log" | grep -q 'response:200' ||
			{ fail "the HTTP server did not serve $path:" "$(cat "$T/httpd.log")"; return 1; }
	done
}

# netboot_vm LOG FIRMWARE DISK NIC-OPTIONS...: a network boot on a root
# disk.  SeaBIOS prints on the serial port too, and with it iPXE, when
# the machine has no graphics (graphics=off, as -nographic sets); OVMF
# always does.
netboot_vm() {
	local log=$1 firmware=$2 disk=$3 serial=()
	shift 3
	[ "$firmware" != bios ] || serial=(--qemu-arg -machine --qemu-arg graphics=off)
	VM_TIMEOUT=$NETBOOT_VM_TIMEOUT boot_vm "$log" --firmware "$firmware" \
		--disk "virtio-blk:$disk" "${serial[@]}" "$@"
}

# expect_ipxe LOG URL: iPXE fetched boot.ipxe from URL, ran it, and
# fetched the two files it names.  The last "ok" may be cut: the kernel
# resets the serial port while SeaBIOS still writes iPXE's last line.
expect_ipxe() {
	expect_log "$1" "${2//./\\.}\.\.\. ok" "iPXE fetching $2" &&
	expect_log "$1" 'devtmpfs-rescue: loading vmlinuz and rescue\.img' "boot.ipxe's line" &&
	expect_log "$1" 'vmlinuz\.\.\. ok' "iPXE fetching vmlinuz beside boot.ipxe" &&
	expect_log "$1" 'rescue\.img\.\.\.' "iPXE fetching rescue.img beside boot.ipxe"
}

# The kernel line that boot.ipxe gave (iPXE under UEFI puts the image's
# name first, as an EFI command line begins).
expect_netboot_line() { # log
	expect_log "$1" "Command line: (vmlinuz )?initrd=rescue\.img console=tty0 console=ttyS0,115200 $TCG_APPEND" \
		"the kernel command line of boot.ipxe"
}

# That line, the root rescue-init found, and the root's marker.
expect_netboot_root() { # log marker
	expect_netboot_line "$1" &&
	expect_log "$1" "rescue: found root [^ ]+ on /dev/vda \(ext4\)" "the root found on /dev/vda" &&
	expect_field "$1" root marker "$2"
}

# The folder without a VM: the same inputs give the same bytes and
# times (SOURCE_DATE_EPOCH), the script names its files by relative
# paths, a second run replaces the folder, and a folder that holds
# anything else (a TFTP root given by mistake) is refused and left.
test_folder_is_reproducible_and_replaces_only_its_own() {
	local out
	for out in a b; do
		SOURCE_DATE_EPOCH=1700000000 "$MEDIA" netboot -q -k "$BZIMAGE" -i "$BUILD/rescue.img" \
			-a "root=LABEL=x" --ip dhcp -o "$T/$out" 2>"$T/media.log" ||
			{ fail "mkrescue-media netboot failed:" "$(cat "$T/media.log")"; return 1; }
		(cd "$T/$out" && find . -printf '%p %m %T@\n' | sort && sha256sum -- *) >"$T/$out.list"
	done
	cmp -s "$T/a.list" "$T/b.list" ||
		{ fail "two runs differ:" "$(diff "$T/a.list" "$T/b.list")"; return 1; }
	[ "$(sed -n 's/^\. \([0-9]*\) \([0-9]*\).*/\1 \2/p' "$T/a.list")" = "755 1700000000" ] ||
		{ fail "the folder's mode and time are not 755 and SOURCE_DATE_EPOCH:" "$(cat "$T/a.list")"; return 1; }
	[ "$(grep -c '^\./[a-zA-Z.]* 644 1700000000\.0*$' "$T/a.list")" -eq 4 ] ||
		{ fail "not four files of mode 644 at SOURCE_DATE_EPOCH:" "$(cat "$T/a.list")"; return 1; }
	grep -qx 'kernel vmlinuz initrd=rescue\.img console=tty0 console=ttyS0,115200 root=LABEL=x ip=dhcp rd\.neednet=1 || goto failed' \
		"$T/a/boot.ipxe" && grep -qx 'initrd rescue\.img || goto failed' "$T/a/boot.ipxe" ||
		{ fail "boot.ipxe does not load vmlinuz and rescue.img by relative paths:" "$(cat "$T/a/boot.ipxe")"; return 1; }
	"$MEDIA" netboot -q -k "$BZIMAGE" -i "$BUILD/rescue.img" -a "root=LABEL=y" -o "$T/a" 2>"$T/media.log" &&
		grep -q 'root=LABEL=y' "$T/a/boot.ipxe" ||
		{ fail "a second run did not replace the folder:" "$(cat "$T/media.log" "$T/a/boot.ipxe")"; return 1; }
	mkdir -p "$T/tftproot/pxelinux.cfg"
	cp "$T/a/boot.ipxe" "$T/tftproot/"
	"$MEDIA" netboot -k "$BZIMAGE" -i "$BUILD/rescue.img" -o "$T/tftproot" 2>"$T/media.log" &&
		{ fail "mkrescue-media netboot replaced a folder it did not write"; return 1; }
	grep -qx "mkrescue-media: netboot: $T/tftproot holds pxelinux.cfg, which mkrescue-media did not write; not replacing it" \
		"$T/media.log" && [ -d "$T/tftproot/pxelinux.cfg" ] && [ ! -e "$T/tftproot/vmlinuz" ] ||
		{ fail "the refusal to replace $T/tftproot is not as expected:" "$(cat "$T/media.log")" "$(ls -A "$T/tftproot")"; return 1; }
	[ -z "$(find "$T" -maxdepth 1 -name '.mkrescue-media.*')" ] ||
		{ fail "a work folder was left behind:" "$(ls -A "$T")"; return 1; }
}

# By TFTP, QEMU's own server (tftp=, the boot file as a path in it):
# the folder's script fetches vmlinuz and rescue.img beside it, and the
# rescue image boots the root of root=UUID=.
test_tftp_boots_the_root_under_bios() {
	netboot_folder "$BZIMAGE" "$BUILD/rescue.img" "root=UUID=$ROOT_UUID" &&
	netboot_root "$T/root.img" "$ROOT_UUID" root tftp || return 1
	nic 52:54:00:12:34:56 rescue/boot.ipxe "tftp=$T/srv"
	netboot_vm "$T/console.log" bios "$T/root.img" "${NIC[@]}" || return 1
	expect_ipxe "$T/console.log" tftp://10.0.2.2/rescue/boot.ipxe &&
	expect_netboot_root "$T/console.log" tftp
}

# By HTTP: the boot file is the script's URL on the test's server, and
# the server's log shows the three files fetched from it.
test_http_boots_the_root_under_bios() {
	local status
	netboot_folder "$BZIMAGE" "$BUILD/rescue.img" "root=UUID=$ROOT_UUID" &&
	netboot_root "$T/root.img" "$ROOT_UUID" root http &&
	http_start "$T/srv" || return 1
	nic 52:54:00:12:34:56 "http://10.0.2.2:$HTTP_PORT/rescue/boot.ipxe"
	netboot_vm "$T/console.log" bios "$T/root.img" "${NIC[@]}"
	status=$?
	http_stop
	[ "$status" -eq 0 ] || return 1
	expect_served /rescue/boot.ipxe /rescue/vmlinuz /rescue/rescue.img &&
	expect_ipxe "$T/console.log" "http://10.0.2.2:$HTTP_PORT/rescue/boot.ipxe" &&
	expect_netboot_root "$T/console.log" http
}

# Under UEFI (OVMF, Secure Boot off), the iPXE of the NIC's EFI ROM:
# it starts the kernel through its EFI stub, which reads the image by
# the initrd=rescue.img that boot.ipxe gives (the patched kernel has no
# stub: a Debian kernel, with an image of mkrescue -k).  With --ip dhcp
# the rescue system takes its own lease, as the script's line asks.
test_http_boots_the_root_under_uefi_with_ip_dhcp() {
	local kver status
	kver=$(stock_kernel_version) && stock_image "$T/rescue.img" --no-storage || return 1
	netboot_folder "/boot/vmlinuz-$kver" "$T/rescue.img" "root=UUID=$ROOT_UUID" --ip dhcp &&
	netboot_root "$T/root.img" "$ROOT_UUID" root uefi &&
	http_start "$T/srv" || return 1
	nic 52:54:00:12:34:56 "http://10.0.2.2:$HTTP_PORT/rescue/boot.ipxe"
	netboot_vm "$T/console.log" uefi "$T/root.img" --mem 512M "${NIC[@]}"
	status=$?
	http_stop
	[ "$status" -eq 0 ] || return 1
	expect_served /rescue/boot.ipxe /rescue/vmlinuz /rescue/rescue.img &&
	expect_ipxe "$T/console.log" "http://10.0.2.2:$HTTP_PORT/rescue/boot.ipxe" &&
	expect_log "$T/console.log" 'EFI stub: Loaded initrd from command line option' \
		"the EFI stub reading initrd=rescue.img through iPXE" &&
	expect_log "$T/console.log" 'rescue: network: 10\.0\.2\.15/24 via 10\.0\.2\.2 on eth0, DNS 10\.0\.2\.3 \(DHCP\)$' \
		"the rescue system's DHCP lease" &&
	expect_log "$T/console.log" "Command line: .*root=UUID=$ROOT_UUID ip=dhcp rd\.neednet=1" \
		"--ip dhcp's words on the kernel line" &&
	expect_netboot_root "$T/console.log" uefi
}

# Under Secure Boot (OVMF with Microsoft's keys enforced) the folder
# does not boot, and the user sees why: QEMU's iPXE ROM starts and
# fetches the script and the kernel, but the firmware refuses to start
# even a Debian kernel, which Secure Boot trusts only through shim; the
# script's failure line and iPXE's shell follow.  docs/netboot.md sends
# such machines to mkrescue-media iso.
test_secure_boot_refuses_the_kernel_and_says_so() {
	local kver status
	kver=$(stock_kernel_version) && stock_image "$T/rescue.img" --no-storage || return 1
	netboot_folder "/boot/vmlinuz-$kver" "$T/rescue.img" "" && http_start "$T/srv" || return 1
	nic 52:54:00:12:34:56 "http://10.0.2.2:$HTTP_PORT/rescue/boot.ipxe"
	VM_TIMEOUT=$NETBOOT_VM_TIMEOUT boot_vm "$T/console.log" --firmware uefi-secure --mem 512M \
		--end-on 'devtmpfs-rescue: the boot failed' "${NIC[@]}"
	status=$?
	http_stop
	[ "$status" -eq 0 ] || return 1
	expect_log "$T/console.log" 'vmlinuz\.\.\. ok' "iPXE fetching the kernel" &&
	expect_log "$T/console.log" 'Could not select: Exec format error' "the firmware refusing the kernel" &&
	expect_log "$T/console.log" 'devtmpfs-rescue: the boot failed \(with Secure Boot on, the firmware refuses the kernel: boot the iso of mkrescue-media instead\)' \
		"boot.ipxe's failure line, naming Secure Boot" &&
	expect_no_log "$T/console.log" 'Linux version' "a kernel started under Secure Boot"
}

# ---- the fleet ------------------------------------------------------------

# Four machines netboot the one folder from one HTTP server at once, as
# a rack does after a bad update.  Each has its own disk: a root of its
# own UUID, all with the same label, which the one command line names
# (root=LABEL=): a fleet installed from one image shares its labels, and
# nothing per machine (a file per MAC, an inventory of UUIDs) is needed.
# Each guest must come up on its own disk: its marker is its UUID.
# Each QEMU has its own user network (10.0.2.15 in all four); the server
# on 127.0.0.1 is the one they share.
FLEET_LABEL=rescue-fleet
FLEET_VM_TIMEOUT=${FLEET_VM_TIMEOUT:-600}

test_fleet_of_four_boots_each_its_own_root_over_http() {
	local n uuid start secs status=0 pids=() uuids=()
	netboot_folder "$BZIMAGE" "$BUILD/rescue.img" "root=LABEL=$FLEET_LABEL" || return 1
	for n in 1 2 3 4; do
		uuid=${ROOT_UUID%????}a00$n
		uuids[n]=$uuid
		netboot_root "$T/root$n.img" "$uuid" "$FLEET_LABEL" "$uuid" || return 1
	done
	http_start "$T/srv" || return 1
	start=$(date +%s.%N)
	for n in 1 2 3 4; do
		nic "52:54:00:12:34:0$n" "http://10.0.2.2:$HTTP_PORT/rescue/boot.ipxe"
		NETBOOT_VM_TIMEOUT=$FLEET_VM_TIMEOUT netboot_vm "$T/console$n.log" bios \
			"$T/root$n.img" "${NIC[@]}" &
		pids+=($!)
	done
	for n in "${pids[@]}"; do
		wait "$n" || status=1
	done
	secs=$(printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc)")
	http_stop
	[ "$status" -eq 0 ] || { fail "not every machine of the fleet finished its boot"; return 1; }
	[ "$(grep -c 'url:/rescue/rescue.img' "$T/httpd.log")" -eq 4 ] ||
		{ fail "the server did not serve rescue.img four times:" "$(cat "$T/httpd.log")"; return 1; }
	for n in 1 2 3 4; do
		expect_log "$T/console$n.log" "rescue: found root LABEL=$FLEET_LABEL on /dev/vda \(ext4\)" \
			"machine $n's root found by its label" &&
		expect_ipxe "$T/console$n.log" "http://10.0.2.2:$HTTP_PORT/rescue/boot.ipxe" &&
		expect_netboot_root "$T/console$n.log" "${uuids[n]}" || return 1
	done
	note "4 machines netbooted from one server in $secs s (wall time, all four started at once)"
}

# ---- a command line per machine ---------------------------------------------

# docs/netboot.md's per-MAC scripts: beside the folder (not in it, which
# the next run of mkrescue-media would refuse to replace), naming its
# files by rescue/vmlinuz; the boot file a script that chains the one of
# the machine's MAC, or the folder's own boot.ipxe.  Two machines at
# once: one has its script (root=UUID=), the other falls back to the
# folder's command line (root=LABEL=).
test_per_mac_script_beside_the_folder_and_the_fallback() {
	local status=0 pid1 pid2 other=${ROOT_UUID%????}b002
	netboot_folder "$BZIMAGE" "$BUILD/rescue.img" "root=LABEL=fallback" &&
	netboot_root "$T/root1.img" "$ROOT_UUID" root permac &&
	netboot_root "$T/root2.img" "$other" fallback fallback || return 1
	cat >"$T/srv/52-54-00-12-34-01.ipxe" <<-EOF
	#!ipxe
	kernel rescue/vmlinuz initrd=rescue.img console=tty0 console=ttyS0,115200 $TCG_APPEND root=UUID=$ROOT_UUID
	initrd rescue/rescue.img
	boot
	EOF
	# shellcheck disable=SC2016 # ${mac:hexhyp} is iPXE's
	printf '%s\n' '#!ipxe' 'chain ${mac:hexhyp}.ipxe || chain rescue/boot.ipxe' >"$T/srv/pick.ipxe"
	http_start "$T/srv" || return 1
	nic 52:54:00:12:34:01 "http://10.0.2.2:$HTTP_PORT/pick.ipxe"
	netboot_vm "$T/console1.log" bios "$T/root1.img" "${NIC[@]}" &
	pid1=$!
	nic 52:54:00:12:34:02 "http://10.0.2.2:$HTTP_PORT/pick.ipxe"
	netboot_vm "$T/console2.log" bios "$T/root2.img" "${NIC[@]}" &
	pid2=$!
	wait "$pid1" || status=1
	wait "$pid2" || status=1
	http_stop
	[ "$status" -eq 0 ] || return 1
	expect_served /pick.ipxe /52-54-00-12-34-01.ipxe /rescue/boot.ipxe &&
	expect_log "$T/console1.log" "Command line: initrd=rescue\.img .* root=UUID=$ROOT_UUID\$" \
		"the per-MAC script's command line" &&
	expect_field "$T/console1.log" root marker permac &&
	expect_log "$T/console2.log" '52-54-00-12-34-02\.ipxe\.\.\. No such file or directory' \
		"iPXE missing the second machine's script" &&
	expect_ipxe "$T/console2.log" rescue/boot.ipxe &&
	expect_log "$T/console2.log" "rescue: found root LABEL=fallback on /dev/vda \(ext4\)" \
		"the fallback's root found by the folder's command line" &&
	expect_netboot_root "$T/console2.log" fallback
}

# ---- a headless machine: the rescue shell over SSH -----------------------

# A machine with no one at its console: the folder of a Debian kernel
# and an image of mkrescue --ssh-authorized-keys, with --ip dhcp and
# "rescue" on the command line.  The test logs in with its key through a
# port forwarded on 127.0.0.1 only, mounts the root from there, and lets
# the boot go on to it with rescue-continue.
test_ssh_into_the_rescue_shell_of_a_netbooted_machine() {
	local kver status _
	kver=$(stock_kernel_version) || return 1
	ssh-keygen -q -t ed25519 -N '' -C netboot-test -f "$T/key" || { fail "ssh-keygen failed"; return 1; }
	MKRESCUE_SSH_HOST_KEY=$T/ssh_host_ed25519_key \
		"$BUILD/mkrescue" -k "$kver" --init "$RESCUE_INIT" --no-storage \
		--ssh-authorized-keys "$T/key.pub" -o "$T/rescue.img" 2>"$T/mkrescue.log" ||
		{ fail "mkrescue -k $kver --ssh-authorized-keys failed:" "$(tail -5 "$T/mkrescue.log")"; return 1; }
	netboot_folder "/boot/vmlinuz-$kver" "$T/rescue.img" "root=UUID=$ROOT_UUID rescue" --ip dhcp &&
	netboot_root "$T/root.img" "$ROOT_UUID" root ssh &&
	http_start "$T/srv" || return 1
	SSH_PORT=$(free_port) || return 1
	nic 52:54:00:12:34:56 "http://10.0.2.2:$HTTP_PORT/rescue/boot.ipxe" \
		"hostfwd=tcp:127.0.0.1:$SSH_PORT-:22"
	netboot_vm "$T/console.log" bios "$T/root.img" --mem 512M "${NIC[@]}" &
	vm_pid=$!
	if wait_log "$T/console.log" 'rescue: ssh: dropbear listening on .*port 22' "$NETBOOT_VM_TIMEOUT"; then
		for _ in 1 2 3 4 5; do
			netboot_ssh 'rescue-mount >/dev/null 2>&1; cat /newroot/marker' >"$T/marker.out" 2>&1 &&
				break
			sleep 2
		done
		netboot_ssh rescue-continue >"$T/continue.out" 2>&1
	fi
	wait "$vm_pid"
	status=$?
	http_stop
	[ "$status" -eq 0 ] || return 1
	grep -qx ssh "$T/marker.out" ||
		{ fail "the root mounted over SSH does not hold its marker:" "$(cat "$T/marker.out")"; return 1; }
	grep -q '^rescue-continue: ended the console' "$T/continue.out" ||
		{ fail "rescue-continue said:" "$(cat "$T/continue.out")"; return 1; }
	expect_ipxe "$T/console.log" "http://10.0.2.2:$HTTP_PORT/rescue/boot.ipxe" &&
	expect_log "$T/console.log" 'rescue: network: 10\.0\.2\.15/24 via 10\.0\.2\.2 on eth0, DNS 10\.0\.2\.3 \(DHCP\)$' \
		"the rescue system's DHCP lease" &&
	expect_netboot_line "$T/console.log" &&
	expect_log "$T/console.log" 'rescue: using the root already mounted on /newroot: /dev/vda \(ext4, ro\)' \
		"the boot going on with the root mounted over SSH" &&
	expect_field "$T/console.log" root marker ssh
}

# netboot_ssh COMMAND: root@ the guest with the test's key, through
# 127.0.0.1:SSH_PORT; the host key remembered in $T/known_hosts.
netboot_ssh() {
	ssh -p "$SSH_PORT" -o BatchMode=yes -o ConnectTimeout=30 \
		-o StrictHostKeyChecking=accept-new -o UserKnownHostsFile="$T/known_hosts" \
		-o IdentitiesOnly=yes -o LogLevel=ERROR -i "$T/key" root@127.0.0.1 "$@"
}
