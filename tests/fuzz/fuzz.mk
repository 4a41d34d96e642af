# SPDX-License-Identifier: GPL-2.0
# tests/fuzz/fuzz.mk: libFuzzer harnesses (tests/fuzz/fuzz_*.c) for every
# parser of outside input in rescue-init and mkrescue, built with clang's
# -fsanitize=fuzzer,address,undefined, and `make fuzz`, which runs each
# for FUZZ_RUNS executions from its seed corpus (tests/fuzz/corpus/NAME).
# The test group "fuzz" runs the same, bounded, in make check.

include tests/parsers.mk

# ---- settings ---------------------------------------------------------
FUZZ_CC       ?= clang
FUZZ_RUNS     ?= 20000
FUZZ_DIR       = $(BUILD)/fuzz
FUZZ_CFLAGS    = -std=gnu11 -g -O1 -D_GNU_SOURCE -Irescue/init -Irescue/mkrescue \
		 -Irescue/lib -Itests/fuzz -I$(RESCUE_GEN) \
		 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		 -fno-omit-frame-pointer -Wall -Wextra -Werror \
		 $(BLKID_CFLAGS) $(MKRESCUE_CFLAGS)
FUZZ_TARGETS   = cmdline rootspec uevent modindex mountinfo devtable sysfs \
		 moddb include options modlist
# The sources of each parser: tests/parsers.mk, shared with unit.mk.
fuzz_cmdline_SRCS   = $(call parser_srcs,cmdline)
fuzz_rootspec_SRCS  = $(call parser_srcs,rootspec)
fuzz_uevent_SRCS    = $(call parser_srcs,uevent)
fuzz_modindex_SRCS  = $(call parser_srcs,modload)
fuzz_mountinfo_SRCS = $(call parser_srcs,mounts)
fuzz_devtable_SRCS  = $(call parser_srcs,devtable)
fuzz_sysfs_SRCS     = $(call parser_srcs,blkdev)
fuzz_moddb_SRCS     = $(call parser_srcs,moddb)
fuzz_include_SRCS   = $(call parser_srcs,include)
fuzz_options_SRCS   = $(call parser_srcs,options)
fuzz_modlist_SRCS   = $(call parser_srcs,modules)
FUZZ_TARGETS  += elfdeps
fuzz_elfdeps_SRCS   = $(call parser_srcs,elfdeps)
FUZZ_TARGETS  += mdsuper
fuzz_mdsuper_SRCS   = $(call parser_srcs,mdsuper)
FUZZ_TARGETS  += lukskey
fuzz_lukskey_SRCS   = $(call parser_srcs,lukskey)
FUZZ_TARGETS  += crypttab
fuzz_crypttab_SRCS  = $(call parser_srcs,crypttab)
FUZZ_TARGETS  += lvmreport
fuzz_lvmreport_SRCS = $(call parser_srcs,lvmreport)
FUZZ_TARGETS  += lvmmeta
fuzz_lvmmeta_SRCS   = $(call parser_srcs,lvmmeta)
FUZZ_TARGETS  += unpack
fuzz_unpack_SRCS    = $(call parser_srcs,unpack)
FUZZ_TARGETS  += newc
fuzz_newc_SRCS      = $(call parser_srcs,newc)
FUZZ_TARGETS  += ipconf
fuzz_ipconf_SRCS    = $(call parser_srcs,ipconf)
FUZZ_TARGETS  += ldconf
fuzz_ldconf_SRCS    = $(call parser_srcs,ldconf)
FUZZ_BINS      = $(addprefix $(FUZZ_DIR)/fuzz_,$(FUZZ_TARGETS))

DEPS_PACKAGES += clang libclang-rt-14-dev
TEST_GROUPS   += fuzz
CHECK_DEPS    += $(FUZZ_BINS)

# ---- targets ----------------------------------------------------------
.PHONY: fuzz fuzz-build

fuzz-build: $(FUZZ_BINS)

# Each target starts from a fresh copy of its seeds in build/, so that
# what a run finds never lands in the source tree; crashes are written
# to build/fuzz/crashes/.
fuzz: $(FUZZ_BINS)
	@set -e; for t in $(FUZZ_TARGETS); do \
		tests/fuzz/run-target $(FUZZ_DIR)/fuzz_$$t tests/fuzz/corpus/$$t \
			$(FUZZ_DIR)/corpus/$$t $(FUZZ_DIR)/crashes $(FUZZ_RUNS); \
	done

define fuzz_rule
$(FUZZ_DIR)/fuzz_$(1): tests/fuzz/fuzz_$(1).c tests/fuzz/fuzz.h \
		$(addprefix rescue/,$(fuzz_$(1)_SRCS)) $(wildcard rescue/*/*.h) \
		| $(RESCUE_GEN_HEADERS)
	@mkdir -p $$(@D)
	$$(FUZZ_CC) $$(FUZZ_CFLAGS) -o $$@.tmp $$< $$(addprefix rescue/,$$(fuzz_$(1)_SRCS))
	mv $$@.tmp $$@
endef
$(foreach t,$(FUZZ_TARGETS),$(eval $(call fuzz_rule,$(t))))
# libelf is a shared library: linked whatever the order of the line.
$(FUZZ_DIR)/fuzz_elfdeps: FUZZ_CFLAGS += -Wl,--no-as-needed -lelf
