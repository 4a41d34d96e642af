# SPDX-License-Identifier: GPL-2.0
# tests/groups/network.sh: ip= on the stock kernel with an image of mkrescue -k:
# the NIC's driver loaded by its modalias, DHCP from QEMU's user-mode
# network (10.0.2.15, gateway 10.0.2.2, DNS 10.0.2.3), a static address,
# the interfaces taken down before the real root unless rd.neednet=1,
# and a boot whose network is missing still reaching its root.  The
# guests have user-mode networking only, with no port forwarded.

. "$TOP/tests/lib/rescue-lib.sh"

NET_VM_TIMEOUT=${NET_VM_TIMEOUT:-180}
# shellcheck disable=SC2054 # the commas are QEMU's, inside one argument
NIC=(--qemu-arg -nic --qemu-arg user,model=virtio-net-pci,mac=52:54:00:12:34:56)

# net_image KVER OUT: mkrescue -k, whose default set has the NIC drivers.
net_image() {
	"$BUILD/mkrescue" -k "$1" --init "$RESCUE_INIT" --no-storage \
		-o "$2" >"$T/mkrescue.log" 2>&1 ||
		{ fail "mkrescue -k $1 failed:" "$(tail -5 "$T/mkrescue.log")"; return 1; }
}

# The real root's init says what it inherited of the network, then
# hands over to the usual report-init.
net_root() { # img
	make_root_dir "$T/root" net
	mv "$T/root/sbin/init" "$T/root/sbin/report-init"
	cat >"$T/root/sbin/init" <<'EOF'
#!/bin/sh
addr=$(ip -4 -o addr show dev eth0 2>/dev/null | awk '{ print $4 }')
# Up as rescue-init left it (IFF_UP), not the carrier, which may lag.
flags=$(cat /sys/class/net/eth0/flags 2>/dev/null || echo 0)	# no eth0: down
if [ $((flags & 1)) -ne 0 ]; then state=up; else state=down; fi
# What rescue-init must give back (review L6, M5): the hostname that
# ip= or a lease set, IPv6 on eth0, the SSH sessions' /dev/pts.
v6=$(cat /proc/sys/net/ipv6/conf/eth0/disable_ipv6 2>/dev/null || echo none)
pts=$(grep -c ' /dev/pts ' /proc/mounts)
echo "TEST RESULT: net state=$state addr=${addr:-none} host=$(hostname) v6off=$v6 pts=$pts"
exec /sbin/report-init "$@"
EOF
	chmod 0755 "$T/root/sbin/init"
	make_ext4 "$T/root" "$1" 16 "$ROOT_UUID" root
}

# net_setup: KVER, the image and the root of a test.
net_setup() {
	KVER=$(stock_kernel_version) && net_image "$KVER" "$T/initrd" && net_root "$T/root.img"
}

net_boot() { # append [run-vm options]
	local append=$1
	shift
	VM_TIMEOUT=$NET_VM_TIMEOUT boot_vm "$T/console.log" --kernel "/boot/vmlinuz-$KVER" \
		--initrd "$T/initrd" --mem 512M --append "root=UUID=$ROOT_UUID $append" \
		--disk "virtio-blk:$T/root.img" "$@"
}

# ip=dhcp rd.neednet=1: the boot waits for the lease, and the real root
# gets the interface configured.
test_dhcp_lease_kept_for_the_root_with_rd_neednet() {
	for_each_stock_kernel dhcp_lease_kept_for_the_root_with_rd_neednet
}

dhcp_lease_kept_for_the_root_with_rd_neednet() {
	net_setup || return 1
	net_boot "ip=dhcp rd.neednet=1" "${NIC[@]}" || return 1
	expect_log "$T/console.log" 'rescue: loaded module virtio_net for virtio:d00000001v00001AF4$' \
		"virtio_net loaded by the NIC's modalias" &&
	expect_log "$T/console.log" 'rescue: network: 10\.0\.2\.15/24 via 10\.0\.2\.2 on eth0, DNS 10\.0\.2\.3 \(DHCP\)$' \
		"the DHCP lease line" &&
	expect_log "$T/console.log" 'rescue: network: rd.neednet=1: the interfaces stay configured' \
		"the interfaces kept" &&
	expect_field "$T/console.log" net addr 10.0.2.15/24 &&
	expect_field "$T/console.log" net state up &&
	expect_field "$T/console.log" net v6off 0 &&
	expect_field "$T/console.log" root marker net
}

# A static ip= in the kernel's form, configured while the root waits
# (rootdelay), then taken down: the real root finds eth0 down and bare.
test_static_address_taken_down_before_the_root() {
	net_setup || return 1
	net_boot "ip=10.0.2.20::10.0.2.2:255.255.255.0:rescuehost:eth0:off:10.0.2.3 rootdelay=3" \
		"${NIC[@]}" || return 1
	expect_log "$T/console.log" 'rescue: network: 10\.0\.2\.20/24 via 10\.0\.2\.2 on eth0, DNS 10\.0\.2\.3 \(static\)$' \
		"the static configuration line" &&
	expect_log "$T/console.log" 'rescue: network: interfaces taken down before switching root' \
		"the teardown line" &&
	expect_field "$T/console.log" net addr none &&
	expect_field "$T/console.log" net state down &&
	expect_field "$T/console.log" net host '(none)' &&
	expect_field "$T/console.log" net v6off 0 &&
	expect_field "$T/console.log" root marker net
}

# ip=dhcp on a machine without a NIC: said, and the root still reached
# once the interface wait (rd.net.timeout.ifup=) is over.
test_missing_interface_does_not_stop_the_boot() {
	net_setup || return 1
	net_boot "ip=dhcp rd.neednet=1 rd.net.timeout.ifup=2" || return 1
	expect_log "$T/console.log" 'rescue: network: no Ethernet interface after 2 s \(is its driver in the image\?\); the boot goes on without the network' \
		"the missing interface line" &&
	expect_field "$T/console.log" root marker net
}

# A NIC on a network without a DHCP server (a QEMU hub with no other
# port): udhcpc gives up after its tries, and the boot that waited for
# it (rd.neednet=1) goes on to the root.
test_no_dhcp_server_does_not_stop_the_boot() {
	net_setup || return 1
	net_boot "ip=dhcp rd.neednet=1" --qemu-arg -netdev --qemu-arg hubport,id=n0,hubid=0 \
		--qemu-arg -device --qemu-arg virtio-net-pci,netdev=n0 || return 1
	expect_log "$T/console.log" 'rescue: network: no DHCP lease on eth0 after [0-9.]+ s; the boot goes on without the network' \
		"the line of the missing lease" &&
	expect_field "$T/console.log" net addr none &&
	expect_field "$T/console.log" root marker net
}

# A wrong ip= is named with its field, and changes nothing else.
test_bad_ip_parameter_is_named_and_ignored() {
	net_setup || return 1
	net_boot "ip=10.0.2.20::gw:255.255.255.0::eth0:off" "${NIC[@]}" || return 1
	expect_log "$T/console.log" 'rescue: network: ip=: gateway "gw" is not an IPv4 address; ignoring ip=10\.0\.2\.20::gw:255\.255\.255\.0::eth0:off$' \
		"the error line naming the gateway" &&
	expect_no_log "$T/console.log" 'rescue: network: 10\.0\.2\.20' "a configuration from a bad ip=" &&
	expect_field "$T/console.log" net addr none &&
	expect_field "$T/console.log" root marker net
}

# The rescue shell's device table lists the interface with its MAC,
# link state, address and driver.
test_device_table_lists_the_interface() {
	net_setup || return 1
	cat >"$T/steps" <<'EOF'
want starting the rescue shell
send for i in 1 2 3 4 5 6 7 8 9 10; do rescue-ls | grep -q 'link up, 10.0.2.15' && break; sleep 1; done; rescue-ls | grep '^net '
want net eth0:
send reboot -f
end
EOF
	"$TOP/tests/tools/vm-steps.exp" "$T/console.log" "$NET_VM_TIMEOUT" "$T/steps" \
		--kernel "/boot/vmlinuz-$KVER" --initrd "$T/initrd" --mem 512M \
		--append "root=UUID=$ROOT_UUID ip=dhcp rescue" --disk "virtio-blk:$T/root.img" \
		"${NIC[@]}" || { fail "vm-steps failed"; show_log "$T/console.log" 40; return 1; }
	expect_log "$T/console.log" '^net eth0: 52:54:00:12:34:56, link up, 10\.0\.2\.15/24, driver virtio_net' \
		"the interface's line in rescue-ls"
}

# ---- SSH (mkrescue --ssh-authorized-keys) -------------------------------

# ssh_vm KVER APPEND DISK [MEM]: the guest in the background (SSH_PID)
# with its port 22 forwarded from 127.0.0.1:SSH_PORT only; back once
# dropbear listens, else the guest is stopped and the test fails.
ssh_vm() {
	local kver=$1 append=$2 disk=$3 mem=${4:-512M}
	SSH_PORT=$(free_port) || return 1
	VM_TIMEOUT=$NET_VM_TIMEOUT boot_vm "$T/console.log" --kernel "/boot/vmlinuz-$kver" \
		--initrd "$T/initrd" --mem "$mem" --append "$append" --disk "virtio-blk:$disk" \
		--qemu-arg -nic --qemu-arg \
		"user,model=virtio-net-pci,mac=52:54:00:12:34:56,hostfwd=tcp:127.0.0.1:$SSH_PORT-:22" &
	SSH_PID=$!
	wait_log "$T/console.log" 'rescue: ssh: dropbear listening on .*port 22' 180 && return 0
	kill "$SSH_PID"
	wait "$SSH_PID"
	fail "dropbear did not start"
	show_log "$T/console.log" 30
	return 1
}

# ssh_image KVER OUT MKRESCUE-OPTION...: OUT, an image of mkrescue -k
# KVER (and the OPTIONs) that lets in the test's key $T/key, made now,
# with the persistent host key (mkrescue(8)) $T/ssh_host_ed25519_key,
# the test's own, made now too; mkrescue's messages in $T/mkrescue.log.
ssh_image() {
	local kver=$1 out=$2
	shift 2
	ssh-keygen -q -t ed25519 -N '' -C rescue-test -f "$T/key" || { fail "ssh-keygen failed"; return 1; }
	MKRESCUE_SSH_HOST_KEY=$T/ssh_host_ed25519_key \
		"$BUILD/mkrescue" -k "$kver" --init "$RESCUE_INIT" "$@" \
		--ssh-authorized-keys "$T/key.pub" -o "$out" 2>"$T/mkrescue.log" ||
		{ fail "mkrescue $* --ssh-authorized-keys failed:" "$(tail -5 "$T/mkrescue.log")"; return 1; }
}

# luks_ssh_vm MARKER: a LUKS2 root (make_luks_root of
# tests/groups/luks.sh, which the caller sources) marked MARKER,
# recorded, behind an image of mkrescue -k --storage with SSH, booted
# with ip=dhcp (ssh_vm); back once its passphrase prompt waits.
luks_ssh_vm() {
	KVER=$(stock_kernel_version) || return 1
	ssh_image "$KVER" "$T/initrd" --storage &&
	make_luks_root 2 "$T/c.img" "$1" && record_sums "$T/c.img" &&
	ssh_vm "$KVER" "root=UUID=$ROOT_UUID ip=dhcp" "$T/c.img" || return 1
	wait_log "$T/console.log" "Passphrase for /dev/vda \(LUKS UUID $LUKS_UUID\)" 60 ||
		{ kill "$SSH_PID"; wait "$SSH_PID"; fail "no passphrase prompt"; show_log "$T/console.log" 30; return 1; }
}

# rescue_ssh KEY [ssh options] -- COMMAND: root@ the guest, the host key
# remembered in $T/known_hosts.
rescue_ssh() {
	local key=$1
	shift
	ssh -p "$SSH_PORT" -o BatchMode=yes -o ConnectTimeout=30 \
		-o StrictHostKeyChecking=accept-new -o UserKnownHostsFile="$T/known_hosts" \
		-o IdentitiesOnly=yes -o LogLevel=ERROR -i "$key" "$@"
}

# ssh_listens_where_asked OUT CONSOLE: in OUT (the guest's /proc/net/tcp,
# tcp6, if_inet6 and dmesg, in that order), dropbear listens on
# 10.0.2.15:22 (0F02000A:0016) only, not on 0.0.0.0 nor on any IPv6
# address; eth0 has no global IPv6 address although QEMU's network
# advertises a prefix (fec0::/64); dropbear's log lines are in dmesg and
# not on the console, where they would scroll over a passphrase prompt.
ssh_listens_where_asked() {
	local out=$1 console=$2 listeners
	listeners=$(sed '/^tcp6:/q' "$out" | awk '$4 == "0A" { print $2 }' | sort -u | tr '\n' ' ')
	[ "$listeners" = "0F02000A:0016 " ] ||
		{ fail "dropbear listens on (/proc/net/tcp) $listeners, not 10.0.2.15:22 only:" "$(cat "$out")"; return 1; }
	sed -n '/^tcp6:/,/^inet6:/p' "$out" | awk '$4 == "0A"' | grep -q . &&
		{ fail "something listens on IPv6:" "$(sed -n '/^tcp6:/,/^inet6:/p' "$out")"; return 1; }
	sed -n '/^inet6:/,/^dmesg:/p' "$out" | awk '$6 == "eth0" && $4 == "00"' | grep -q . &&
		{ fail "eth0 has a global IPv6 address:" "$(sed -n '/^inet6:/,/^dmesg:/p' "$out")"; return 1; }
	sed -n '/^dmesg:/,$p' "$out" | grep -q 'rescue: ssh: \[[0-9]*\] .*Child connection from' ||
		{ fail "no dropbear log line in dmesg:" "$(sed -n '/^dmesg:/,$p' "$out" | grep ssh)"; return 1; }
	grep -q 'Child connection from' "$console" &&
		{ fail "dropbear's log is on the console:" "$(grep 'Child connection from' "$console" | head -3)"; return 1; }
	return 0
}

# The rescue shell of a headless machine: the test logs in with its key
# through a port forwarded on 127.0.0.1 only, sees and mounts the root
# disk, checks that a password and a wrong key are refused, and lets the
# boot go on to the real root with rescue-continue.
test_ssh_rescue_shell_then_the_root() {
	for_each_stock_kernel ssh_rescue_shell_then_the_root
}

ssh_rescue_shell_then_the_root() {
	local kver fp i
	kver=$(stock_kernel_version) || return 1
	ssh-keygen -q -t ed25519 -N '' -C wrong -f "$T/wrong" || { fail "ssh-keygen failed"; return 1; }
	ssh_image "$kver" "$T/initrd" --no-storage || return 1
	fp=$(sed -n 's/^mkrescue: SSH host key made: [^ ]*, ed25519 \(SHA256:[^ ]*\) .*/\1/p' "$T/mkrescue.log")
	[ -n "$fp" ] || { fail "mkrescue did not print the host key's fingerprint:" "$(cat "$T/mkrescue.log")"; return 1; }
	net_root "$T/root.img" &&
	ssh_vm "$kver" "root=UUID=$ROOT_UUID ip=dhcp rescue" "$T/root.img" || return 1
	for i in 1 2 3 4 5; do
		rescue_ssh "$T/key" root@127.0.0.1 rescue-ls >"$T/ls.out" 2>"$T/ls.err" && break
		sleep 2
	done
	rescue_ssh "$T/key" root@127.0.0.1 'rescue-mount >/dev/null 2>&1; cat /newroot/marker' \
		>"$T/marker.out" 2>&1
	rescue_ssh "$T/wrong" root@127.0.0.1 true >"$T/wrong.out" 2>&1 &&
		echo "the wrong key logged in" >>"$T/refusals"
	# The server must not even offer passwords: "(publickey)" alone.
	rescue_ssh "$T/key" -o BatchMode=no -o PubkeyAuthentication=no \
		-o PreferredAuthentications=password,keyboard-interactive -o NumberOfPasswordPrompts=1 \
		root@127.0.0.1 true </dev/null >"$T/password.out" 2>&1 &&
		echo "a password login succeeded" >>"$T/refusals"
	# Where it listens and logs (review M5): what the guest's kernel says.
	rescue_ssh "$T/key" root@127.0.0.1 'cat /proc/net/tcp; echo tcp6:; cat /proc/net/tcp6;
		echo inet6:; cat /proc/net/if_inet6; echo dmesg:; dmesg' >"$T/listen.out" 2>&1
	rescue_ssh "$T/key" root@127.0.0.1 rescue-continue >"$T/continue.out" 2>&1
	wait "$SSH_PID" || { fail "the VM failed"; return 1; }
	grep -q "^vda .*$ROOT_UUID" "$T/ls.out" ||
		{ fail "rescue-ls over SSH does not list the root disk:" "$(cat "$T/ls.out" "$T/ls.err")"; return 1; }
	grep -qx net "$T/marker.out" ||
		{ fail "the root mounted over SSH does not hold its marker:" "$(cat "$T/marker.out")"; return 1; }
	[ ! -s "$T/refusals" ] || { fail "$(cat "$T/refusals")"; return 1; }
	grep -q 'Permission denied' "$T/wrong.out" ||
		{ fail "the wrong key was not refused as expected:" "$(cat "$T/wrong.out")"; return 1; }
	grep -qF 'Permission denied (publickey)' "$T/password.out" ||
		{ fail "the password login was not refused as expected:" "$(cat "$T/password.out")"; return 1; }
	ssh-keygen -lf "$T/known_hosts" | grep -qF "$fp" ||
		{ fail "the host key seen ($(ssh-keygen -lf "$T/known_hosts")) is not the one mkrescue printed ($fp)"; return 1; }
	ssh_listens_where_asked "$T/listen.out" "$T/console.log" || return 1
	grep -q '^rescue-continue: ended the console' "$T/continue.out" ||
		{ fail "rescue-continue said:" "$(cat "$T/continue.out")"; return 1; }
	expect_log "$T/console.log" 'rescue: ssh: dropbear and its sessions ended before switching root' \
		"the end of dropbear" &&
	expect_field "$T/console.log" root marker net &&
	expect_field "$T/console.log" net addr none &&
	expect_field "$T/console.log" net pts 0 &&
	expect_field "$T/console.log" root run_left none
}

# A machine reached only over SSH whose real init cannot start (review
# M10): rescue-init comes back to the initramfs, and with it the
# network and dropbear, which the switch had ended; the operator logs
# in again and finds the root still mounted.
test_ssh_comes_back_after_a_failed_exec() {
	local kver n i
	kver=$(stock_kernel_version) || return 1
	ssh_image "$kver" "$T/initrd" --no-storage || return 1
	make_root_dir "$T/root" net
	printf '#!/nonexistent/sh\n' >"$T/root/sbin/init"
	make_ext4 "$T/root" "$T/root.img" 16 "$ROOT_UUID" root || return 1
	ssh_vm "$kver" "root=UUID=$ROOT_UUID ip=dhcp" "$T/root.img" || return 1
	wait_log "$T/console.log" 'rescue: unable to start /sbin/init on /dev/vda' 120 ||
		{ kill "$SSH_PID"; wait "$SSH_PID"; return 1; }
	# A listening line after the failure's (the first one may not have
	# come: the root can be found before the DHCP lease).
	for ((i = 0; i < 600; i++)); do
		n=$(tr -d '\r' <"$T/console.log" | sed -n '/rescue: unable to start \/sbin\/init/,$p' |
			grep -c 'rescue: ssh: dropbear listening on 10\.0\.2\.15 port 22')
		[ "$n" -ge 1 ] && break
		sleep 0.1
	done
	for i in 1 2 3 4 5; do
		rescue_ssh "$T/key" root@127.0.0.1 'cat /newroot/marker' >"$T/marker.out" 2>&1 && break
		sleep 2
	done
	rescue_ssh "$T/key" root@127.0.0.1 'reboot -f' >/dev/null 2>&1
	wait "$SSH_PID"
	[ "$n" -ge 1 ] || { fail "dropbear did not start again after the failed exec"; show_log "$T/console.log" 30; return 1; }
	grep -qx net "$T/marker.out" ||
		{ fail "no SSH login after the failed exec:" "$(cat "$T/marker.out")"; return 1; }
}

# With the storage tools (on by default with -k) and SSH in one image,
# both share the loader and libraries; root's keys are private to root.
test_ssh_image_with_the_storage_tools() {
	local kver
	. "$TOP/tests/lib/mkrescue-lib.sh"
	kver=$(stock_kernel_version) || return 1
	ssh_image "$kver" "$T/img" --storage --compress none || return 1
	list_image "$T/img" >"$T/list"
	expect_entry "$T/list" -rwxr-xr-x usr/sbin/dropbear &&
	expect_entry "$T/list" -rwxr-xr-x usr/sbin/cryptsetup &&
	expect_entry "$T/list" -rw------- root/.ssh/authorized_keys &&
	expect_entry "$T/list" -rw------- etc/dropbear/dropbear_ed25519_host_key &&
	expect_entry "$T/list" drwx------ root/.ssh
}

# A LUKS root on a headless machine: the prompt waits on the console, and
# an SSH session answers it with rescue-unlock, a wrong passphrase first.
test_luks_passphrase_given_over_ssh() {
	local i
	. "$TOP/tests/groups/luks.sh"
	luks_ssh_vm luks-ssh || return 1
	for i in 1 2 3 4 5; do
		echo not-the-passphrase | rescue_ssh "$T/key" root@127.0.0.1 rescue-unlock --stdin \
			>"$T/wrong.out" 2>&1
		grep -q 'waits for its passphrase' "$T/wrong.out" && break
		sleep 2
	done
	printf '%s\n' "$LUKS_PASS" | rescue_ssh "$T/key" root@127.0.0.1 rescue-unlock --stdin \
		>"$T/right.out" 2>&1
	wait "$SSH_PID" || { fail "the VM failed"; return 1; }
	grep -qF "rescue-unlock: /dev/vda (LUKS UUID $LUKS_UUID) waits for its passphrase (try 1 of 3)" "$T/wrong.out" &&
	grep -qF "rescue-unlock: wrong passphrase for /dev/vda, try 1 of 3" "$T/wrong.out" ||
		{ fail "rescue-unlock with a wrong passphrase said:" "$(cat "$T/wrong.out")"; return 1; }
	grep -qF "rescue-unlock: /dev/vda opened" "$T/right.out" ||
		{ fail "rescue-unlock with the passphrase said:" "$(cat "$T/right.out")"; return 1; }
	expect_log "$T/console.log" '^\(given by rescue-unlock\)$' \
		"the console prompt answered over SSH" &&
	expect_luks_root 2 luks-ssh &&
	expect_no_log "$T/console.log" "not-the-passphrase" "the wrong passphrase itself" &&
	expect_disks_unchanged
}

# dracut_ssh_image CONF OUT LOG: a dracut image with the module and the
# dracut.conf lines CONF, without kernel modules or compression: only
# what install() puts in it is looked at.  No boot.  dracut's status is
# returned, and a failure is the caller's to judge.
dracut_ssh_image() {
	local kver
	kver=$(stock_kernel_version) && dracut_install_tree "$T/dest" || return 1
	rm -rf "$T/conf.d" && mkdir -p "$T/conf.d" && printf '%s\n' "$1" >"$T/conf.d/ssh.conf" &&
	dracut_in_tree "$kver" "$T/dest" "$2" "$3" --no-hostonly --no-kernel --no-compress \
		--confdir "$T/conf.d" --add devtmpfs-rescue \
		--omit "$(bash -c '. "$1" && devtmpfs_rescue_modules_in missing' _ \
			"$TOP/dracut-module/99devtmpfs-rescue/module-setup.sh")"
}

# expect_dracut_host_key IMG LOG KEY FINGERPRINT: the image's host key,
# root's only, is one dropbear reads with that fingerprint, the one the
# build printed for KEY; the build did not say it made one.  With LABEL,
# the key is the persistent one the build says it took as LABEL, and may
# have made.
expect_dracut_host_key() { # img log key fingerprint [label]
	local img=$1 log=$2 key=$3 want=$4 label=${5:-dropbear_ed25519_key=$3} got line
	lsinitrd "$img" >"$img.list" 2>&1
	grep -Eq '^-rw------- .* etc/dropbear/dropbear_ed25519_host_key$' "$img.list" ||
		{ fail "no root-only etc/dropbear/dropbear_ed25519_host_key in $img:" \
			"$(grep dropbear_ed25519 "$img.list")"; return 1; }
	lsinitrd -f etc/dropbear/dropbear_ed25519_host_key "$img" >"$img.key" 2>/dev/null
	got=$(dropbearkey -y -f "$img.key" 2>/dev/null | sed -n 's/^Fingerprint: //p')
	[ "$got" = "$want" ] ||
		{ fail "the image's host key is ${got:-not a key dropbear reads}, not $want"; return 1; }
	line=$(grep -F "devtmpfs-rescue: SSH host key from $label (" "$log")
	[[ $line == *": $want" ]] ||
		{ fail "the build did not print $want for $key:" \
			"$(grep -F 'SSH host key' "$log")"; return 1; }
	[ -n "${5:-}" ] || expect_no_log "$log" 'SSH host key made' "a key made though one was given"
}

# dracut-crypt-ssh's dropbear_ed25519_key=PATH (README): the image holds
# that host key, whose fingerprint the build prints.  A key in dropbear's format goes in byte for byte; one
# in OpenSSH's format (dracut-crypt-ssh's default, as ssh-keygen writes
# it) in dropbear's, since rescue-init's dropbear reads no other.  A
# file that is neither fails the build, naming it.
test_dracut_image_with_the_given_host_key() {
	local fp
	ssh-keygen -q -t ed25519 -N '' -f "$T/user" &&
	dropbearkey -t ed25519 -f "$T/dropbear_key" >/dev/null 2>&1 &&
	ssh-keygen -q -t ed25519 -N '' -f "$T/openssh_key" ||
		{ fail "ssh-keygen or dropbearkey failed"; return 1; }
	fp=$(dropbearkey -y -f "$T/dropbear_key" | sed -n 's/^Fingerprint: //p')
	dracut_ssh_image "dropbear_acl=\"$T/user.pub\"
dropbear_ed25519_key=\"$T/dropbear_key\"" "$T/dropbear.img" "$T/dropbear.log" ||
		{ fail "dracut failed:" "$(tail -5 "$T/dropbear.log")"; return 1; }
	expect_dracut_host_key "$T/dropbear.img" "$T/dropbear.log" "$T/dropbear_key" "$fp" || return 1
	cmp -s "$T/dropbear.img.key" "$T/dropbear_key" ||
		{ fail "the image's host key is not the file given, byte for byte"; return 1; }
	note "dropbear's format: ed25519 $fp"
	fp=$(ssh-keygen -lf "$T/openssh_key" | awk '{ print $2 }')
	dracut_ssh_image "dropbear_acl=\"$T/user.pub\"
dropbear_ed25519_key=\"$T/openssh_key\"" "$T/openssh.img" "$T/openssh.log" ||
		{ fail "dracut failed:" "$(tail -5 "$T/openssh.log")"; return 1; }
	expect_dracut_host_key "$T/openssh.img" "$T/openssh.log" "$T/openssh_key" "$fp" || return 1
	note "OpenSSH's format: ed25519 $fp"
	echo "not a key" >"$T/not_a_key"
	dracut_ssh_image "dropbear_acl=\"$T/user.pub\"
dropbear_ed25519_key=\"$T/not_a_key\"" "$T/bad.img" "$T/bad.log" &&
		{ fail "dracut took $T/not_a_key as a host key"; return 1; }
	[ ! -e "$T/bad.img" ] || { fail "dracut left an image behind"; return 1; }
	grep -q "devtmpfs-rescue: .*dropbear_ed25519_key=$T/not_a_key" "$T/bad.log" ||
		fail "the build's error does not name dropbear_ed25519_key=$T/not_a_key:" \
			"$(tail -3 "$T/bad.log")"
}

# Without dropbear_ed25519_key=, the image gets the rescue system's
# persistent key, mkrescue's (H3 of the review): the first build makes
# it, 0600, and says its fingerprint; a second build reuses it, so both
# images have one identity.  No boot.
test_dracut_image_keeps_the_persistent_host_key() {
	local key=$T/ssh_host_ed25519_key fp n
	ssh-keygen -q -t ed25519 -N '' -f "$T/user" || { fail "ssh-keygen failed"; return 1; }
	for n in 1 2; do
		dracut_ssh_image "dropbear_acl=\"$T/user.pub\"" "$T/image$n.img" "$T/image$n.log" ||
			{ fail "dracut failed:" "$(tail -5 "$T/image$n.log")"; return 1; }
	done
	[ "$(stat -c %a "$key" 2>/dev/null)" = 600 ] || { fail "no 0600 $key"; return 1; }
	fp=$(dropbearkey -y -f "$key" | sed -n 's/^Fingerprint: //p')
	grep -qF "devtmpfs-rescue: SSH host key made: $key, ed25519 $fp" "$T/image1.log" ||
		{ fail "the first build did not say it made $key ($fp):" \
			"$(grep -F 'SSH host key' "$T/image1.log")"; return 1; }
	expect_no_log "$T/image2.log" 'SSH host key made' "a second key made" || return 1
	for n in 1 2; do
		expect_dracut_host_key "$T/image$n.img" "$T/image$n.log" "$key" "$fp" \
			"$key (the persistent one)" || return 1
	done
	note "one host key for both dracut images: ed25519 $fp"
}

# dracut --add devtmpfs-rescue with dracut-crypt-ssh's dropbear_acl= in a
# dracut.conf: the same SSH rescue shell, on the stock kernel.
test_dracut_image_with_ssh() {
	local out
	KVER=$(stock_kernel_version) || return 1
	ssh-keygen -q -t ed25519 -N '' -f "$T/key" || { fail "ssh-keygen failed"; return 1; }
	mkdir -p "$T/conf.d"
	printf 'dropbear_acl="%s"\n' "$T/key.pub" >"$T/conf.d/ssh.conf"
	dracut_from_tree "$T/dest" "$T/initrd" "$T/dracut.log" --no-hostonly \
		--confdir "$T/conf.d" --add devtmpfs-rescue --add-drivers virtio_net \
		--omit "$(bash -c '. "$1" && devtmpfs_rescue_modules_in missing' _ \
			"$TOP/dracut-module/99devtmpfs-rescue/module-setup.sh")" || return 1
	expect_log "$T/dracut.log" "devtmpfs-rescue: SSH host key made: $T/ssh_host_ed25519_key, ed25519 SHA256:" \
		"the host key's fingerprint at build time" || return 1
	net_root "$T/root.img" &&
	ssh_vm "$KVER" "root=UUID=$ROOT_UUID ip=dhcp rescue" "$T/root.img" 1024M || return 1
	for _ in 1 2 3 4 5; do
		out=$(rescue_ssh "$T/key" root@127.0.0.1 'rescue-ls; rescue-continue' 2>&1) && break
		sleep 2
	done
	wait "$SSH_PID" || { fail "the VM failed"; return 1; }
	grep -q "^vda .*$ROOT_UUID" <<<"$out" ||
		{ fail "rescue-ls over SSH into the dracut image said:" "$out"; return 1; }
	expect_field "$T/console.log" root marker net
}
