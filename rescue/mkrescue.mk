# SPDX-License-Identifier: GPL-2.0
# rescue/mkrescue.mk: builds $(BUILD)/mkrescue, the generator of rescue.img,
# and the static stand-in for rescue-init that its tests put in images.

# ---- settings ---------------------------------------------------------
MKRESCUE_VERSION     ?= 0.1
# Compiled-in defaults of --init and --module-list: this build's, until
# `make install` builds them with the installed paths.
MKRESCUE_INIT        ?= $(abspath $(BUILD))/rescue-init
MKRESCUE_MODULE_LIST ?= $(abspath rescue/modules.list)

MKRESCUE_SRCS = \
	rescue/mkrescue.c rescue/mkrescue-buf.c rescue/mkrescue-elf.c \
	rescue/mkrescue-image.c rescue/mkrescue-include.c \
	rescue/mkrescue-layout.c rescue/mkrescue-list.c \
	rescue/mkrescue-moddb.c rescue/mkrescue-modules.c \
	rescue/mkrescue-msg.c rescue/mkrescue-programs.c \
	rescue/mkrescue-prune.c
MKRESCUE_OBJDIR    = $(BUILD)/obj/mkrescue
MKRESCUE_OBJS      = $(MKRESCUE_SRCS:rescue/%.c=$(MKRESCUE_OBJDIR)/%.o)
MKRESCUE_TEST_INIT = $(MKRESCUE_OBJDIR)/test-init
MKRESCUE_CFLAGS   := $(shell pkg-config --cflags libarchive)
MKRESCUE_LIBS     := $(shell pkg-config --libs libarchive)
MKRESCUE_DEFINES   = -DMKRESCUE_VERSION='"$(MKRESCUE_VERSION)"' \
	-DMKRESCUE_DEFAULT_INIT='"$(MKRESCUE_INIT)"' \
	-DMKRESCUE_DEFAULT_MODULE_LIST='"$(MKRESCUE_MODULE_LIST)"'

TEST_GROUPS += mkrescue mkrescue-errors
CHECK_DEPS  += $(BUILD)/mkrescue $(MKRESCUE_TEST_INIT)

# ---- targets ----------------------------------------------------------
.PHONY: mkrescue mkrescue-defines-check

all: $(BUILD)/mkrescue

mkrescue: $(BUILD)/mkrescue

# `make $(pwd)/build/mkrescue` names the same file as build/mkrescue.
ifneq ($(abspath $(BUILD)),$(BUILD))
$(abspath $(BUILD))/mkrescue: $(BUILD)/mkrescue
endif

$(BUILD)/mkrescue: $(MKRESCUE_OBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@.tmp $(MKRESCUE_OBJS) $(MKRESCUE_LIBS)
	mv $@.tmp $@

$(MKRESCUE_OBJDIR)/%.o: rescue/%.c
	@mkdir -p $(@D)
	$(CC) -std=c11 $(CPPFLAGS) $(MKRESCUE_CFLAGS) $(CFLAGS) $(WARNINGS) \
		-MMD -MP -MF $(@:.o=.d) -MT $@ -c -o $@.tmp $<
	mv $@.tmp $@

# Only mkrescue.o uses the defaults; it is rebuilt when they change,
# through a file rewritten only when its content would differ.
$(MKRESCUE_OBJDIR)/mkrescue.o: CPPFLAGS += $(MKRESCUE_DEFINES)
$(MKRESCUE_OBJDIR)/mkrescue.o: $(MKRESCUE_OBJDIR)/defaults

$(MKRESCUE_OBJDIR)/defaults: mkrescue-defines-check
	@mkdir -p $(@D)
	@printf '%s\n' '$(MKRESCUE_VERSION)' '$(MKRESCUE_INIT)' \
		'$(MKRESCUE_MODULE_LIST)' >$@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

# Static like rescue-init; not with $(CFLAGS), which may hold sanitizers.
$(MKRESCUE_TEST_INIT): rescue/mkrescue-test-init.c
	@mkdir -p $(@D)
	$(CC) -std=c11 $(CPPFLAGS) -O2 $(WARNINGS) -static -o $@.tmp $<
	mv $@.tmp $@

-include $(MKRESCUE_OBJS:.o=.d)
