# SPDX-License-Identifier: GPL-2.0
# storage-layers.awk: rescue/share/storage-layers as the C header
# storage-layers.h (rescue/init/init.mk makes it under $(BUILD)/gen), a
# list of X-macros for storage.c, members.c and probe.c:
#   STORAGE_LAYERS   STORAGE_LAYER(name, off_param, type, ...) per layer,
#                    in the table's order, lowest first; off_param NULL
#                    when nothing turns the layer off
#   STORAGE_MEMBERS  STORAGE_MEMBER(type, words) per signature refused
#                    as the root, with the words that name its whole
#   STORAGE_TYPES    STORAGE_TYPE(type) per signature of the table
# A row it cannot turn into C stops the build with the line's number
# (fail() and str() are table.awk's).

/^[ \t]*(#|$)/ { next }

{
	if (NF < 6)
		fail("6 columns expected: layer types tools dracut off member")
	layer = $1; off = $5
	member = $6
	for (i = 7; i <= NF; i++)
		member = member " " $i
	if ($2 == "-")
		fail("a row without types")
	nt = split($2, t, ",")
	quoted = ""
	for (i = 1; i <= nt; i++) {
		if (t[i] == "")
			fail("an empty type in \"" $2 "\"")
		quoted = quoted ", " str(t[i])
		types[++ntypes] = t[i]
		if (member != "-")
			members[++nmembers] = str(t[i]) ", " str(member)
	}
	if (layer != "-") {
		if (layer !~ /^[a-z][a-z0-9_]*$/)
			fail("layer name \"" layer "\" is not a C name")
		layers[++nlayers] = layer ", " \
			(off == "-" ? "NULL" : str(off)) quoted
	}
}

END {
	if (failed)
		exit 1
	print "/* Generated from rescue/share/storage-layers by"
	print " * rescue/init/storage/storage-layers.awk: edit the table. */"
	print "#ifndef RESCUE_STORAGE_LAYERS_H"
	print "#define RESCUE_STORAGE_LAYERS_H"
	print ""
	print "#define STORAGE_LAYERS \\"
	for (i = 1; i <= nlayers; i++)
		print "\tSTORAGE_LAYER(" layers[i] ") \\"
	print ""
	print "#define STORAGE_MEMBERS \\"
	for (i = 1; i <= nmembers; i++)
		print "\tSTORAGE_MEMBER(" members[i] ") \\"
	print ""
	print "#define STORAGE_TYPES \\"
	for (i = 1; i <= ntypes; i++)
		print "\tSTORAGE_TYPE(" str(types[i]) ") \\"
	print ""
	print "#endif"
}
