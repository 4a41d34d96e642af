# SPDX-License-Identifier: GPL-2.0
# tests/groups/tables.sh: the data files of rescue/share/ that the build
# turns into C, and the dracut module reads as they are: a row the
# generator cannot take stops the build naming its line, and the two
# readers of module-classes agree.

TABLE_AWK=$TOP/rescue/init/table.awk
CLASSES_AWK=$TOP/rescue/init/modules/module-classes.awk
LAYERS_AWK=$TOP/rescue/init/storage/storage-layers.awk

# refused AWK TABLE LINE: the generator refuses TABLE ($T/NAME, from
# stdin) and says why on one line naming TABLE:LINE.
refused() { # awk table-name regex
	local out
	cat >"$T/$2"
	if out=$(awk -f "$TABLE_AWK" -f "$1" "$T/$2" 2>&1 >/dev/null); then
		fail "${1##*/} took $2:" "$(cat "$T/$2")"
		return 1
	fi
	printf '%s\n' "$out" | grep -Eq "^$T/$2:$3" ||
		{ fail "${1##*/} said no /$2:$3/ but:" "$out"; return 1; }
}

test_module_classes_header_has_every_row() {
	local rows made
	awk -f "$TABLE_AWK" -f "$CLASSES_AWK" "$TOP/rescue/share/module-classes" >"$T/h" ||
		{ fail "module-classes.awk refused rescue/share/module-classes"; return 1; }
	rows=$(grep -Ecv '^[[:space:]]*(#|$)' "$TOP/rescue/share/module-classes")
	made=$(grep -c '^	MODULE_CLASS(' "$T/h")
	[ "$rows" -eq "$made" ] ||
		{ fail "$rows rows in the table, $made in the header"; return 1; }
	grep -Fq 'MODULE_CLASS("kernel/drivers/block/floppy.ko", MODCLASS_LATER, true, "/dev/fd")' "$T/h" ||
		{ fail "the floppy row is not in the header:" "$(cat "$T/h")"; return 1; }
	grep -Fq 'MODULE_CLASS("", MODCLASS_BOOT, false, NULL)' "$T/h" ||
		{ fail "the '*' row is not the empty prefix:" "$(cat "$T/h")"; return 1; }
	note "module-classes: $rows rows"
}

test_module_classes_bad_rows_are_refused_by_line() {
	refused "$CLASSES_AWK" bad-class '3: class "soon" is none of boot, net, legacy, later' <<-'EOF' &&
	*                    boot   async
	kernel/              later  async
	kernel/drivers/foo/  soon   async
	EOF
	refused "$CLASSES_AWK" bad-order '2: order "sync" is neither async nor in-order' <<-'EOF' &&
	*                    boot   async
	kernel/drivers/foo/  boot   sync
	EOF
	refused "$CLASSES_AWK" twice '3: "kernel/" has a row already' <<-'EOF' &&
	*        boot   async
	kernel/  later  async
	kernel/  boot   async
	EOF
	refused "$CLASSES_AWK" bad-root '2: "rootfs=/dev/fd" is not root=PREFIX' <<-'EOF' &&
	*                               boot   async
	kernel/drivers/block/floppy.ko  later  in-order  rootfs=/dev/fd
	EOF
	refused "$CLASSES_AWK" no-star "0: no row for '\\*'" <<-'EOF'
	kernel/  later  async
	EOF
}

test_storage_layers_bad_rows_are_refused_by_line() {
	refused "$LAYERS_AWK" short '2: 6 columns expected' <<-'EOF' &&
	# layer types tools dracut off member
	md linux_raid_member mdadm mdraid rd.md
	EOF
	refused "$LAYERS_AWK" bad-name '1: layer name "Md-1" is not a C name' <<-'EOF'
	Md-1 linux_raid_member mdadm mdraid rd.md whole
	EOF
}

# The dracut module's instmods list: a network driver, by directory or
# by name, only with dropbear_acl= (rescue over SSH), as module-classes
# says; the others always.  A fake module tree: modules.dep alone.
test_dracut_module_leaves_net_class_drivers_out_without_ssh() {
	local setup=$TOP/dracut-module/99devtmpfs-rescue/module-setup.sh out
	mkdir -p "$T/mods" &&
	cat >"$T/mods/modules.dep" <<-'EOF' &&
	kernel/drivers/ata/ahci.ko.xz: kernel/drivers/ata/libahci.ko.xz
	kernel/drivers/net/ethernet/intel/e1000/e1000.ko.xz:
	kernel/drivers/block/virtio_blk.ko.xz:
	EOF
	printf '%s\n' '# a comment' kernel/drivers/ata/ e1000 virtio-blk \
		kernel/drivers/net/ethernet/ unknown_mod >"$T/list" || return 1
	out=$(DEVTMPFS_RESCUE_DATADIR=$TOP/rescue/share bash -c '
		dfatal() { echo "dfatal: $*" >&2; }
		. "$1"; srcmods=$2; devtmpfs_rescue_kmods "$3"' _ "$setup" "$T/mods" "$T/list" 2>&1) ||
		{ fail "devtmpfs_rescue_kmods failed:" "$out"; return 1; }
	[ "$out" = "$(printf '%s\n' =drivers/ata virtio-blk unknown_mod)" ] ||
		{ fail "without dropbear_acl, the list is:" "$out"; return 1; }
	out=$(DEVTMPFS_RESCUE_DATADIR=$TOP/rescue/share bash -c '
		dfatal() { echo "dfatal: $*" >&2; }
		. "$1"; srcmods=$2; dropbear_acl=yes; devtmpfs_rescue_kmods "$3"' _ "$setup" "$T/mods" "$T/list" 2>&1) ||
		{ fail "devtmpfs_rescue_kmods failed:" "$out"; return 1; }
	[ "$out" = "$(printf '%s\n' =drivers/ata e1000 virtio-blk =drivers/net/ethernet unknown_mod)" ] ||
		{ fail "with dropbear_acl, the list is:" "$out"; return 1; }
	out=$(DEVTMPFS_RESCUE_DATADIR=$T/nowhere bash -c '
		dfatal() { echo "dfatal: $*" >&2; }
		. "$1"; srcmods=$2; devtmpfs_rescue_kmods "$3"' _ "$setup" "$T/mods" "$T/list" 2>&1) &&
		{ fail "devtmpfs_rescue_kmods took a missing module-classes"; return 1; }
	printf '%s\n' "$out" | grep -q "^dfatal: devtmpfs-rescue: unable to read the module classes $T/nowhere/module-classes" ||
		{ fail "no line naming the missing module-classes:" "$out"; return 1; }
}

# A group file that TEST_GROUPS does not name never runs in make check.
test_every_group_file_is_in_test_groups() {
	local groups name missing=""
	# shellcheck disable=SC2016 # $(TEST_GROUPS) is make's, not the shell's
	groups=" $(printf 'print-test-groups:\n\t@echo $(TEST_GROUPS)\n' |
		make -s -C "$TOP" -f Makefile -f /dev/stdin print-test-groups) " ||
		{ fail "unable to read TEST_GROUPS from the makefiles"; return 1; }
	for name in "$TOP"/tests/groups/*.sh; do
		name=${name##*/}
		name=${name%.sh}
		case $groups in *" $name "*) ;; *) missing="$missing $name" ;; esac
	done
	[ -z "$missing" ] ||
		{ fail "tests/groups/ files not in TEST_GROUPS:$missing"; return 1; }
	note "$(echo "$groups" | wc -w) groups, each registered"
}
