# SPDX-License-Identifier: GPL-2.0
# module-classes.awk: rescue/share/module-classes as the C header
# module-classes.h (rescue/init/init.mk makes it under $(BUILD)/gen):
#   MODULE_CLASSES  MODULE_CLASS(prefix, class, in_order, root_prefix)
#                   per row, in the table's order; prefix "" for '*',
#                   root_prefix NULL when the row has none
# A row it cannot turn into C stops the build with the line's number
# (fail() and str() are table.awk's).

BEGIN {
	class["boot"] = "MODCLASS_BOOT"
	class["net"] = "MODCLASS_NET"
	class["legacy"] = "MODCLASS_LEGACY"
	class["later"] = "MODCLASS_LATER"
	order["async"] = "false"
	order["in-order"] = "true"
}

/^[ \t]*(#|$)/ { next }

{
	if (NF != 3 && NF != 4)
		fail("3 or 4 columns expected: path class order [root=PREFIX]")
	path = $1 == "*" ? "" : $1
	if (path in seen)
		fail("\"" $1 "\" has a row already")
	seen[path] = 1
	if (!($2 in class))
		fail("class \"" $2 "\" is none of boot, net, legacy, later")
	if (!($3 in order))
		fail("order \"" $3 "\" is neither async nor in-order")
	root = "NULL"
	if (NF == 4) {
		if ($4 !~ /^root=./)
			fail("\"" $4 "\" is not root=PREFIX")
		if (length($4) - 5 > 31)
			fail("\"" $4 "\": coldplug.c keeps 31 bytes of root=")
		root = str(substr($4, 6))
	}
	rows[++nrows] = str(path) ", " class[$2] ", " order[$3] ", " root
}

END {
	if (failed)
		exit 1
	if (!("" in seen)) {
		FNR = 0
		fail("no row for '*', the modules no other row places")
	}
	print "/* Generated from rescue/share/module-classes by"
	print " * rescue/init/modules/module-classes.awk: edit the table. */"
	print "#ifndef RESCUE_MODULE_CLASSES_H"
	print "#define RESCUE_MODULE_CLASSES_H"
	print ""
	print "#define MODULE_CLASSES \\"
	for (i = 1; i <= nrows; i++)
		print "\tMODULE_CLASS(" rows[i] ") \\"
	print ""
	print "#endif"
}
