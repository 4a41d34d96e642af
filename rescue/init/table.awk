# SPDX-License-Identifier: GPL-2.0
# table.awk: what the generators of C headers from the tables of
# rescue/share/ share (storage/storage-layers.awk,
# modules/module-classes.awk); run before them: awk -f table.awk -f ...

# fail WHY: the row's line and why, and no header.
function fail(why) {
	printf "%s:%d: %s\n", FILENAME, FNR, why > "/dev/stderr"
	failed = 1
	exit 1
}

# str S: S as a C string literal; a row cannot smuggle C through it.
function str(s) {
	if (s ~ /["\\]/)
		fail("\" or \\ in \"" s "\"")
	return "\"" s "\""
}
