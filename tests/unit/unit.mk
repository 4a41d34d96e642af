# SPDX-License-Identifier: GPL-2.0
# tests/unit/unit.mk: the cmocka unit tests (test group "unit").  Each
# binary is its test file, tests/unit/unit.c (what the tests share, said
# in unit.h) and the real sources it tests (paths below rescue/), all
# built with ASan and UBSan, dynamically linked.

include tests/parsers.mk

# ---- settings ---------------------------------------------------------
UNIT_DIR        = $(BUILD)/tests/unit
UNIT_OBJDIR     = $(BUILD)/obj/unit
CMOCKA_CFLAGS   = $(shell pkg-config --cflags cmocka)
CMOCKA_LIBS     = $(shell pkg-config --libs cmocka)
UNIT_SANITIZE   = -fsanitize=address,undefined -fno-omit-frame-pointer \
		  -fno-sanitize-recover=all
UNIT_CFLAGS     = -std=gnu11 -O1 -g $(WARNINGS) $(UNIT_SANITIZE) \
		  -Irescue/init -Irescue/mkrescue -Irescue/lib -I$(RESCUE_GEN) \
		  -Itests/unit $(CMOCKA_CFLAGS)
UNIT_TESTS      = test_cmdline test_rootspec test_uevent test_modindex \
		  test_log test_devtable test_mounts test_blkdev test_moddb \
		  test_readfile test_modsame test_members
# The sources of each parser: tests/parsers.mk, shared with fuzz.mk.
test_cmdline_SRCS   = $(call parser_srcs,cmdline)
test_rootspec_SRCS  = $(call parser_srcs,rootspec)
test_uevent_SRCS    = $(call parser_srcs,uevent)
test_modindex_SRCS  = $(call parser_srcs,modload)
test_log_SRCS       = init/log.c
test_devtable_SRCS  = $(call parser_srcs,devtable)
test_mounts_SRCS    = $(call parser_srcs,mounts)
test_blkdev_SRCS    = $(call parser_srcs,blkdev)
test_readfile_SRCS  = lib/readfile.c
test_members_SRCS   = init/storage/members.c $(call parser_srcs,devtable)
# members.c's table is generated from rescue/share/storage-layers.
$(UNIT_OBJDIR)/init/storage/members.o: $(STORAGE_LAYERS_H)
test_moddb_SRCS     = $(call parser_srcs,moddb include)
# What mkrescue ships and what rescue-init loads, from the same files.
test_modsame_SRCS   = $(call parser_srcs,modules modload)
# Which device drivers load before the root (rescue/init/modules/coldplug.c).
UNIT_TESTS     += test_coldplug
test_coldplug_SRCS  = init/modules/coldplug.c $(call parser_srcs,cmdline)
# coldplug.c's table is generated from rescue/share/module-classes.
$(UNIT_OBJDIR)/init/modules/coldplug.o: $(MODULE_CLASSES_H)
UNIT_TESTS     += test_elfdeps
test_elfdeps_SRCS   = $(call parser_srcs,ldpath)
UNIT_TESTS     += test_mdsuper
test_mdsuper_SRCS   = $(call parser_srcs,mdsuper)
UNIT_TESTS     += test_lukskey
test_lukskey_SRCS   = $(call parser_srcs,lukskey)
UNIT_TESTS     += test_crypttab
test_crypttab_SRCS  = $(call parser_srcs,crypttab)
UNIT_TESTS     += test_lvmreport
test_lvmreport_SRCS = $(call parser_srcs,lvmreport)
UNIT_TESTS     += test_lvmmeta
test_lvmmeta_SRCS   = $(call parser_srcs,lvmmeta)
UNIT_TESTS     += test_unpack
test_unpack_SRCS    = $(call parser_srcs,unpack)
UNIT_TESTS     += test_newc
test_newc_SRCS      = $(call parser_srcs,newc)
UNIT_TESTS     += test_ipconf
test_ipconf_SRCS    = $(call parser_srcs,ipconf)
UNIT_TESTS     += test_hostonly
test_hostonly_SRCS  = mkrescue/hostonly.c mkrescue/msg.c
UNIT_TESTS     += test_resumeconf
test_resumeconf_SRCS = mkrescue/resume.c mkrescue/msg.c mkrescue/buf.c \
		       mkrescue/list.c lib/readfile.c
UNIT_BINS       = $(addprefix $(UNIT_DIR)/,$(UNIT_TESTS))
# What every test links: the helpers of tests/unit/unit.h.
UNIT_COMMON     = $(UNIT_OBJDIR)/unit.o
UNIT_OBJS       = $(UNIT_COMMON) $(sort $(foreach t,$(UNIT_TESTS),$(UNIT_OBJDIR)/$(t).o \
		  $(addprefix $(UNIT_OBJDIR)/,$($(t)_SRCS:.c=.o))))

# ---- targets ----------------------------------------------------------
.PHONY: unit-tests

unit-tests: $(UNIT_BINS)

TEST_GROUPS += unit
CHECK_DEPS  += $(UNIT_BINS)

# The tests and unit.c.
$(UNIT_OBJDIR)/%.o: tests/unit/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(UNIT_CFLAGS) -MMD -MP -c -o $@ $<

# A source below rescue/ keeps its folder: init/log.o, mkrescue/list.o.
$(UNIT_OBJDIR)/%.o: rescue/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(UNIT_CFLAGS) -MMD -MP -c -o $@ $<

define unit_test_rule
$(UNIT_DIR)/$(1): $(UNIT_OBJDIR)/$(1).o $(UNIT_COMMON) $(addprefix $(UNIT_OBJDIR)/,$($(1)_SRCS:.c=.o))
	@mkdir -p $$(@D)
	$$(CC) $$(UNIT_CFLAGS) $$(LDFLAGS) -o $$@.tmp $$^ $$(CMOCKA_LIBS)
	mv $$@.tmp $$@
endef
$(foreach t,$(UNIT_TESTS),$(eval $(call unit_test_rule,$(t))))
$(UNIT_DIR)/test_elfdeps: CMOCKA_LIBS += $(shell pkg-config --libs libelf)
$(UNIT_OBJDIR)/test_elfdeps.o: CPPFLAGS += -DELFDEPS_SEEDS='"$(abspath tests/fuzz/corpus/elfdeps)"'


-include $(UNIT_OBJS:.o=.d)
