# SPDX-License-Identifier: GPL-2.0
# tests/lib/stacked-lib.sh: the kernel dimension of the stacked-root groups
# (luks.sh, lvm.sh, stacked.sh).  A test wrapped in for_each_stack_kernel
# boots the patched kernel ($BZIMAGE: md, dm, dm-crypt and btrfs built
# in, kernel/rescue.config) with an image of mkrescue --storage, no -k,
# then the oldest stock kernel with an image of mkrescue -k, and, for
# the tests of a layer itself, the newest stock kernel too.  A test
# that is not wrapped boots the oldest stock kernel alone.  The
# disk images are the same for both: made once, cached by the groups.

# for_each_stack_kernel FUNC [ARGS]: FUNC once per kernel of
# $STACK_KERNELS (default "patched stock"), with STACK_KERNEL set, in a
# scratch directory $T/KERNEL of its own; the seconds each took are
# printed.  Fails when FUNC failed for any of them, naming the kernel.
# "stock" is the oldest stock kernel, "newest" the newest (Debian's
# 6.12, whose modules are .ko.xz), left out with a note when there is
# only one; "dracut" the oldest stock kernel with the image of
# `dracut --add devtmpfs-rescue` (tests/lib/dracut-lib.sh, which the group
# sources) instead of mkrescue -k's.
# shellcheck disable=SC2034,SC2030,SC2031,SC2153 # T, STACK_KERNEL and STOCK_KVER are set in each kernel's subshell on purpose, for the test it runs; KVER is the caller's
for_each_stack_kernel() {
	local k status=0 top=$T start kver kvers oldest newest
	kvers=$(stock_kernel_versions)
	oldest=${kvers%%$'\n'*} newest=${kvers##*$'\n'}
	for k in ${STACK_KERNELS:-patched stock}; do
		case $k in
		stock|dracut) kver=$oldest ;;
		newest)
			kver=$newest
			if [ "$newest" = "$oldest" ]; then
				note "newest kernel: the same as the oldest ($oldest), not booted twice"
				continue
			fi ;;
		*) kver= ;;
		esac
		mkdir -p "$top/$k"
		start=$(date +%s.%N)
		(
			T=$top/$k STACK_KERNEL=$k
			[ -z "$kver" ] || STOCK_KVER=$kver
			cd "$T" && "$@"
		) || { fail "failed on the $k kernel${kver:+ $kver}"; status=1; }
		note "$k kernel${kver:+ $kver}: $(printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc)") s"
	done
	return "$status"
}

# for_each_stack_kernel_and_newest FUNC [ARGS]: also on the newest stock
# kernel.  For the tests of a layer itself (its modules loaded, its
# kernel driver at work); the tests of rescue-init's own choices
# (parameters, prompts, fallbacks) are the same code on every kernel.
# STACK_KERNELS set by hand (STACK_KERNELS=newest tests/run lvm) wins.
# The oldest stock kernel is to be 6.1 and the newest 6.12: with either
# missing the test booted less than it promises (the newest one not at
# all), and it skips, where it used to pass with a note.
for_each_stack_kernel_and_newest() {
	local kernels=${STACK_KERNELS:-patched stock newest} k status series=()
	STACK_KERNELS=$kernels for_each_stack_kernel "$@"
	status=$?
	for k in $kernels; do
		case $k in
		stock|dracut) series+=(6.1) ;;
		newest) series+=(6.12) ;;
		esac
	done
	[ "${#series[@]}" -eq 0 ] || skip_missing_stock_kernels "${series[@]}"
	return "$status"
}

# stack_patched: is this run on the patched kernel?
stack_patched() { [ "${STACK_KERNEL:-stock}" = patched ]; }

# stack_mem: the guest's memory; dracut's image is about three times
# the size of mkrescue's.
stack_mem() {
	if [ "${STACK_KERNEL:-}" = dracut ]; then echo 1G; else echo 512M; fi
}

# stack_kernel: the kernel this run boots (the stock one needs $KVER).
stack_kernel() {
	if stack_patched; then
		echo "$BZIMAGE"
	else
		echo "/boot/vmlinuz-$KVER"
	fi
}

# stack_boot APPEND RUN-VM-OPTION...: this run's kernel (stack_kernel)
# on the image $T/initrd with stack_mem's memory, the console in
# $T/console.log, within $STACK_VM_TIMEOUT s (240 unless the group sets
# it from its own knob).
stack_boot() {
	local append=$1
	shift
	VM_TIMEOUT=${STACK_VM_TIMEOUT:-240} boot_vm "$T/console.log" \
		--kernel "$(stack_kernel)" --initrd "$T/initrd" --mem "$(stack_mem)" \
		--append "$append" "$@"
}

# stack_steps APPEND RUN-VM-OPTION...: the same boot following $T/steps
# (tests/tools/vm-steps.exp: typing); the log shown when a step failed.
stack_steps() {
	local append=$1
	shift
	"$TOP/tests/tools/vm-steps.exp" "$T/console.log" "${STACK_VM_TIMEOUT:-240}" "$T/steps" \
		--kernel "$(stack_kernel)" --initrd "$T/initrd" --mem "$(stack_mem)" \
		--append "$append" "$@" ||
		{ show_log "$T/console.log" 40; fail "the steps of $T/steps failed"; return 1; }
}

# as_dracut FUNC [ARGS]: FUNC on the dracut image (STACK_KERNEL=dracut:
# stack_image links it, stack_mem gives it 1 GiB) and the stock kernel
# of the run (the oldest, or for_each_stock_kernel's).
as_dracut() {
	STACK_KERNEL=dracut "$@"
}

# stack_image OUT [MKRESCUE-OPTIONS]: the image for this run's kernel,
# with this build's rescue-init.  The patched kernel has every layer
# built in: mkrescue --storage (the tools), no -k, no module options.
# The stock kernel: mkrescue -k $KVER with the OPTIONS.  dracut: the
# dracut image, the OPTIONS unused (it has every layer's modules).
stack_image() {
	local out=$1
	shift
	if [ "${STACK_KERNEL:-}" = dracut ]; then
		link_dracut_rescue_image "$out"
	elif stack_patched; then
		[ -r "$BZIMAGE" ] ||
			{ fail "no patched kernel $BZIMAGE (make kernel)"; return 1; }
		"$BUILD/mkrescue" --init "$RESCUE_INIT" --storage -o "$out" \
			2>"$T/mkrescue.err" ||
			{ fail "mkrescue --storage failed:" "$(cat "$T/mkrescue.err")"; return 1; }
	else
		"$BUILD/mkrescue" --init "$RESCUE_INIT" -k "$KVER" "$@" -o "$out" \
			2>"$T/mkrescue.err" ||
			{ fail "mkrescue -k $KVER $* failed:" "$(cat "$T/mkrescue.err")"; return 1; }
	fi
}
