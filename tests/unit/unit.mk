# SPDX-License-Identifier: GPL-2.0
# tests/unit/unit.mk: the cmocka unit tests (test group "unit").  Each
# binary is its test file plus the real sources it tests (paths below
# rescue/), all built with ASan and UBSan, dynamically linked.

# ---- settings ---------------------------------------------------------
UNIT_DIR        = $(BUILD)/tests/unit
UNIT_OBJDIR     = $(BUILD)/obj/unit
CMOCKA_CFLAGS  := $(shell pkg-config --cflags cmocka)
CMOCKA_LIBS    := $(shell pkg-config --libs cmocka)
UNIT_SANITIZE   = -fsanitize=address,undefined -fno-omit-frame-pointer \
		  -fno-sanitize-recover=all
UNIT_CFLAGS     = -std=gnu11 -O1 -g $(WARNINGS) $(UNIT_SANITIZE) \
		  -Irescue/init -Irescue/mkrescue -Irescue/lib $(CMOCKA_CFLAGS)
UNIT_TESTS      = test_cmdline test_rootspec test_uevent test_modindex \
		  test_log test_devtable test_mounts test_blkdev test_moddb \
		  test_readfile
test_cmdline_SRCS   = init/cmdline.c lib/readfile.c
test_rootspec_SRCS  = init/rootspec.c
test_uevent_SRCS    = init/uevent.c
test_modindex_SRCS  = init/modindex.c
test_log_SRCS       = init/log.c
test_devtable_SRCS  = init/devtable.c
test_mounts_SRCS    = init/mounts.c init/log.c lib/readfile.c
test_blkdev_SRCS    = init/blkdev.c
test_readfile_SRCS  = lib/readfile.c
test_moddb_SRCS     = mkrescue/moddb.c mkrescue/list.c mkrescue/buf.c \
		      mkrescue/msg.c
UNIT_BINS       = $(addprefix $(UNIT_DIR)/,$(UNIT_TESTS))
UNIT_OBJS       = $(sort $(foreach t,$(UNIT_TESTS),$(UNIT_OBJDIR)/$(t).o \
		  $(addprefix $(UNIT_OBJDIR)/,$($(t)_SRCS:.c=.o))))

# ---- targets ----------------------------------------------------------
.PHONY: unit-tests

unit-tests: $(UNIT_BINS)

TEST_GROUPS += unit
CHECK_DEPS  += $(UNIT_BINS)

$(UNIT_OBJDIR)/test_%.o: tests/unit/test_%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(UNIT_CFLAGS) -MMD -MP -c -o $@ $<

# A source below rescue/ keeps its folder: init/log.o, mkrescue/list.o.
$(UNIT_OBJDIR)/%.o: rescue/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(UNIT_CFLAGS) -MMD -MP -c -o $@ $<

define unit_test_rule
$(UNIT_DIR)/$(1): $(UNIT_OBJDIR)/$(1).o $(addprefix $(UNIT_OBJDIR)/,$($(1)_SRCS:.c=.o))
	@mkdir -p $$(@D)
	$$(CC) $$(UNIT_CFLAGS) $$(LDFLAGS) -o $$@.tmp $$^ $$(CMOCKA_LIBS)
	mv $$@.tmp $$@
endef
$(foreach t,$(UNIT_TESTS),$(eval $(call unit_test_rule,$(t))))

-include $(UNIT_OBJS:.o=.d)
