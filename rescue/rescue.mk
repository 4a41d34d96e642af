# SPDX-License-Identifier: GPL-2.0
# rescue/rescue.mk: rescue-init, the static PID 1 of the image, its cmocka
# unit tests (ASan + UBSan) and the test groups "unit" and "rescue-init".
# Included by the top Makefile, which sets BUILD, CC, CFLAGS, WARNINGS.

# ---- settings ---------------------------------------------------------
RESCUE_INIT     = $(BUILD)/rescue-init
RESCUE_OBJDIR   = $(BUILD)/obj/rescue-init
# Listed one by one: mkrescue*.c in this directory are not ours.
RESCUE_SRCS     = main.c crash.c log.c cmdline.c rootspec.c blkdev.c probe.c \
		  devtable.c uevent.c modindex.c modload.c mounts.c \
		  rootfind.c rootmount.c switchroot.c shell.c tools.c
RESCUE_OBJS     = $(addprefix $(RESCUE_OBJDIR)/,$(RESCUE_SRCS:.c=.o))
BLKID_CFLAGS   := $(shell pkg-config --cflags blkid)
BLKID_LIBS     := $(shell pkg-config --static --libs blkid)
RESCUE_CFLAGS   = -std=gnu11 $(CFLAGS) $(WARNINGS) $(BLKID_CFLAGS)
RESCUE_LDFLAGS  = -static -s

# Unit tests: each binary is its test file plus the real sources it
# tests, all built with the sanitizers, dynamically linked.
UNIT_DIR        = $(BUILD)/tests/unit
UNIT_OBJDIR     = $(BUILD)/obj/unit
CMOCKA_CFLAGS  := $(shell pkg-config --cflags cmocka)
CMOCKA_LIBS    := $(shell pkg-config --libs cmocka)
UNIT_SANITIZE   = -fsanitize=address,undefined -fno-omit-frame-pointer \
		  -fno-sanitize-recover=all
UNIT_CFLAGS     = -std=gnu11 -O1 -g $(WARNINGS) $(UNIT_SANITIZE) \
		  -Irescue $(CMOCKA_CFLAGS)
UNIT_TESTS      = test_cmdline test_rootspec test_uevent test_modindex \
		  test_log test_devtable test_mounts test_blkdev test_moddb
test_cmdline_SRCS   = cmdline.c
test_rootspec_SRCS  = rootspec.c
test_uevent_SRCS    = uevent.c
test_modindex_SRCS  = modindex.c
test_log_SRCS       = log.c
test_devtable_SRCS  = devtable.c
test_mounts_SRCS    = mounts.c log.c
test_blkdev_SRCS    = blkdev.c
# mkrescue's parsers, for the regressions its fuzzing found.
test_moddb_SRCS     = mkrescue-moddb.c mkrescue-list.c mkrescue-buf.c mkrescue-msg.c
UNIT_MKRESCUE_SRCS  = $(test_moddb_SRCS)
UNIT_BINS       = $(addprefix $(UNIT_DIR)/,$(UNIT_TESTS))
UNIT_OBJS       = $(sort $(foreach t,$(UNIT_TESTS),$(UNIT_OBJDIR)/$(t).o \
		  $(addprefix $(UNIT_OBJDIR)/,$($(t)_SRCS:.c=.o))))

# ---- targets ----------------------------------------------------------
.PHONY: rescue-init unit-tests

all: $(RESCUE_INIT)
rescue-init: $(RESCUE_INIT)
unit-tests: $(UNIT_BINS)

TEST_GROUPS += unit rescue-init rescue-shell faults
CHECK_DEPS  += $(RESCUE_INIT) $(UNIT_BINS) $(BUILD)/bzImage

$(RESCUE_OBJS): $(RESCUE_OBJDIR)/%.o: rescue/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(RESCUE_CFLAGS) -MMD -MP -c -o $@ $<

$(RESCUE_INIT): $(RESCUE_OBJS)
	$(CC) $(RESCUE_CFLAGS) $(LDFLAGS) $(RESCUE_LDFLAGS) -o $@.tmp $^ $(BLKID_LIBS)
	mv $@.tmp $@

$(UNIT_OBJDIR)/test_%.o: tests/unit/test_%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(UNIT_CFLAGS) -MMD -MP -c -o $@ $<

$(addprefix $(UNIT_OBJDIR)/,$(RESCUE_SRCS:.c=.o) $(UNIT_MKRESCUE_SRCS:.c=.o)): $(UNIT_OBJDIR)/%.o: rescue/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(UNIT_CFLAGS) -MMD -MP -c -o $@ $<

define unit_test_rule
$(UNIT_DIR)/$(1): $(UNIT_OBJDIR)/$(1).o $(addprefix $(UNIT_OBJDIR)/,$($(1)_SRCS:.c=.o))
	@mkdir -p $$(@D)
	$$(CC) $$(UNIT_CFLAGS) $$(LDFLAGS) -o $$@.tmp $$^ $$(CMOCKA_LIBS)
	mv $$@.tmp $$@
endef
$(foreach t,$(UNIT_TESTS),$(eval $(call unit_test_rule,$(t))))

-include $(RESCUE_OBJS:.o=.d) $(UNIT_OBJS:.o=.d)
