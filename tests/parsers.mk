# SPDX-License-Identifier: GPL-2.0
# tests/parsers.mk: the sources (below rescue/) of each parser of outside
# input, named once for the cmocka tests (tests/unit/unit.mk) and the
# libFuzzer harnesses (tests/fuzz/fuzz.mk), which both include it.
ifndef PARSERS_MK
PARSERS_MK := 1

# cmdline_get_all() says in a line (log.c) what it leaves out.
PARSER_cmdline   = init/cmdline.c init/log.c lib/readfile.c
PARSER_rootspec  = init/rootspec.c
PARSER_uevent    = init/uevent.c
PARSER_mounts    = init/mounts.c init/log.c init/errtext.c lib/readfile.c
PARSER_devtable  = init/devtable.c
PARSER_blkdev    = init/blkdev.c
# md member superblocks (storage-md.c reads them).
PARSER_mdsuper   = init/storage/mdsuper.c
# rd.luks.key= specs (storage-luks.c), their devices in root= forms.
PARSER_lukskey   = init/storage/lukskey.c init/rootspec.c
# /etc/crypttab, rd.luks.name=, rd.luks.options= (storage-luks.c; mkrescue's
# header= files).
PARSER_crypttab  = lib/crypttab.c
# lvm pvs output and the dm names of LVs (storage-lvm.c reads them).
PARSER_lvmreport = init/storage/lvm/lvmreport.c
# The LVM2 label, metadata area header and VG text (storage-lvm.c's
# fast path reads them from the PVs); names are checked as lvmreport.c's.
PARSER_lvmmeta   = init/storage/lvm/lvmmeta.c init/storage/lvm/lvmreport.c
# An image's markers, the kernel log and MemTotal (unpack.c reads them).
PARSER_unpack    = init/image/unpack.c lib/readfile.c
# The ip= parameter (network.c configures what it says).
PARSER_ipconf    = init/net/ipconf.c
# The toolkit's cpio newc archive (toolkit.c unpacks it).
PARSER_newc      = init/image/newc.c
# depmod's files: one parser (rescue/lib/modindex.c) for both programs.
PARSER_modindex  = lib/modindex.c lib/readfile.c
# rescue-init's load order over it.
PARSER_modload   = init/modules/modload.c init/modules/coldplug.c init/modules/modcpu.c init/log.c \
		   init/errtext.c init/secureboot.c \
		   $(PARSER_cmdline) \
		   $(PARSER_modindex)
# mkrescue's layer over it: shipping, pruning, the module list.
PARSER_moddb     = mkrescue/moddb.c mkrescue/prune.c mkrescue/buf.c \
		   mkrescue/msg.c $(PARSER_modindex)
PARSER_modules   = mkrescue/modules.c mkrescue/hostonly.c mkrescue/list.c \
		   $(PARSER_moddb)
PARSER_include   = mkrescue/include.c mkrescue/list.c mkrescue/buf.c \
		   mkrescue/msg.c lib/readfile.c
PARSER_options   = mkrescue/options.c mkrescue/msg.c
# ELF files (libelf) and the library closure of a program.
PARSER_elfdeps   = mkrescue/closure/elfdeps.c mkrescue/buf.c lib/readfile.c
PARSER_ldconf    = mkrescue/closure/ldconf.c mkrescue/buf.c mkrescue/msg.c lib/readfile.c
PARSER_ldpath    = mkrescue/closure/ldpath.c $(PARSER_ldconf) $(PARSER_elfdeps)

# $(call parser_srcs,NAME ...): their sources, each once.
parser_srcs = $(sort $(foreach p,$(1),$(PARSER_$(p))))

endif
