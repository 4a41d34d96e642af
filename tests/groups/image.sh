# SPDX-License-Identifier: GPL-2.0
# tests/groups/image.sh: build/bzImage + build/rescue.img as a user meets them:
# make run on the demo disk, RESCUE=1, and the rescue session the project
# exists for, rdinit=/bin/sh with a /dev the kernel already filled.

RESCUE_IMG=$BUILD/rescue.img

demo_disk() {
	"$TOP/qemu/make-demo-disk" "$T/demo.img" >/dev/null || { fail "make-demo-disk failed"; return 1; }
}

# The demo root's init ends in an interactive shell on the console:
# vm-shell.exp waits for it, then types reboot -f.
test_rescue_img_reaches_demo_root_by_label() {
	demo_disk || return 1
	echo true >"$T/commands"
	"$TOP/tests/tools/vm-shell.exp" "$T/console.log" "$VM_TIMEOUT" "$(prompt_re demo:/)" "$T/commands" \
		--kernel "$BZIMAGE" --initrd "$RESCUE_IMG" --append "root=LABEL=rescue-demo" \
		--disk "virtio-blk:$T/demo.img" || { show_log "$T/console.log"; return 1; }
	expect_log "$T/console.log" 'rescue: exec /sbin/init on /dev/vda2 \(ext4, ro\) after [0-9]+ us' \
		"rescue-init switching to the demo root" &&
	expect_log "$T/console.log" 'init: reached the demo root' "the demo root's init" &&
	expect_log "$T/console.log" '/dev/vda2 on / type ext4 \(ro,' "the demo root mounted read-only"
}

# `make run` itself, driven like a user at the terminal: the demo root
# greets and gives a shell, and exit ends the VM.
test_make_run_boots_demo_root_on_the_terminal() {
	local status
	# busybox asks for the cursor position (ESC [6n) after its prompt and
	# takes what comes next for the answer: type only after that.  The
	# typed line computes what is awaited, so its echo cannot match.
	cat >"$T/make-run.exp" <<'EOF'
lassign $argv log timeout top build
log_user 0
log_file -a -noappend $log
spawn make -s -C $top run BUILD=$build
# On the way out with an error, take make, run-vm and QEMU down with us.
proc bail {code} { catch {exec kill -TERM -- -[exp_pid]}; exit $code }
expect {
	-re {demo:/# \x1b\[6n} {}
	timeout { bail 1 }
	eof { bail 2 }
}
send "echo demo-shell-\$((40 + 2))\r"
expect {
	-re {demo-shell-42\r*\n} {}
	timeout { bail 3 }
	eof { bail 4 }
}
send "exit\r"
expect {
	eof {}
	timeout { bail 5 }
}
EOF
	expect -f "$T/make-run.exp" "$T/console.log" "$VM_TIMEOUT" "$TOP" "$BUILD"
	status=$?
	[ "$status" -eq 0 ] || { fail "make run did not reach the demo shell and end (expect status $status)"; show_log "$T/console.log"; return 1; }
	expect_log "$T/console.log" 'Welcome to the devtmpfs-rescue demo root' "the demo greeting" &&
	expect_log "$T/console.log" 'reboot: ' "the VM ending after exit"
}

test_rescue_parameter_opens_shell_before_the_root() {
	demo_disk || return 1
	printf '%s\n' 'rescue-ls' 'exit' >"$T/commands"
	# After exit the boot goes on to the demo root, whose shell gets
	# "reboot -f" from vm-shell.exp.
	"$TOP/tests/tools/vm-shell.exp" "$T/console.log" "$VM_TIMEOUT" "$SHELL_PROMPT" "$T/commands" \
		--kernel "$BZIMAGE" --initrd "$RESCUE_IMG" --append "root=LABEL=rescue-demo rescue" \
		--disk "virtio-blk:$T/demo.img" || { show_log "$T/console.log"; return 1; }
	expect_log "$T/console.log" 'rescue: starting the rescue shell' "the rescue shell" &&
	expect_log "$T/console.log" "^vda2 +$(virtio_blk_major):2 .* ext4 .* rescue-demo " "vda2 in rescue-ls's table" &&
	expect_log "$T/console.log" 'init: reached the demo root' "the boot going on after exit"
}

# The scenario the project exists for: a shell as the initramfs init,
# nobody mounts anything, and every disk is already in /dev.
test_rdinit_sh_sees_disks_and_rescues_the_root() {
	demo_disk || return 1
	blank_disk "$T/nvme.img" 8
	blank_disk "$T/ahci.img" 8
	cat >"$T/commands" <<'EOF'
printf '%s %s: rdinit dev=%s\n' TEST RESULT "$(ls /dev | grep -E '^(vd[a-z]+|sd[a-z]+|nvme[0-9]+n[0-9]+)[0-9p]*$' | tr '\n' ,)"
rescue-ls
rescue-mount
printf '%s %s: mounted newroot=%s\n' TEST RESULT "$(awk '$2 == "/newroot" { print $1 ":" $3 ":" substr($4, 1, 2) }' /proc/mounts)"
EOF
	"$TOP/tests/tools/vm-shell.exp" "$T/console.log" "$VM_TIMEOUT" "$SHELL_PROMPT" "$T/commands" \
		--kernel "$BZIMAGE" --initrd "$RESCUE_IMG" --append "root=LABEL=rescue-demo rdinit=/bin/sh" \
		--disk "virtio-blk:$T/demo.img" --disk "nvme:$T/nvme.img" --disk "ahci:$T/ahci.img" ||
		{ show_log "$T/console.log"; return 1; }
	expect_no_log "$T/console.log" 'rescue: mounted /proc /sys' "rescue-init running as init" &&
	expect_field "$T/console.log" rdinit dev nvme0n1,sda,vda,vda1,vda2, &&
	expect_log "$T/console.log" '^NAME +MAJ:MIN +SIZE +TYPE +UUID +LABEL +PARTUUID +PARTLABEL' \
		"rescue-ls's table" &&
	expect_log "$T/console.log" "^vda1 +$(virtio_blk_major):1 .* vfat .* DATA " "the decoy in the table" &&
	expect_field "$T/console.log" mounted newroot /dev/vda2:ext4:ro
}
