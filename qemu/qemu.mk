# SPDX-License-Identifier: GPL-2.0
# qemu/qemu.mk: builds $(BUILD)/mklayout, the seeded random disk-layout
# generator, and runs random seeds through tests/random:
#   make check-random SEEDS=200 FIRST=1000

# ---- settings ---------------------------------------------------------
SEEDS ?= 50
FIRST ?= 1
# RANDOM_ARGS="--jobs 2 --keep" passes options on to tests/random.
RANDOM_ARGS ?=

MKLAYOUT_SRCS = \
	qemu/mklayout.c qemu/mklayout-check.c qemu/mklayout-ids.c \
	qemu/mklayout-msg.c qemu/mklayout-names.c qemu/mklayout-plan.c \
	qemu/mklayout-plan-files.c qemu/mklayout-rng.c qemu/mklayout-root.c \
	qemu/mklayout-script.c qemu/mklayout-stack.c qemu/mklayout-stack-files.c
MKLAYOUT_OBJDIR = $(BUILD)/obj/qemu
MKLAYOUT_OBJS   = $(MKLAYOUT_SRCS:qemu/%.c=$(MKLAYOUT_OBJDIR)/%.o)

# The random group boots $(BUILD)/rescue.img (its rule: the Makefile).
TEST_GROUPS += random
# Its stacked seeds boot Debian's kernel with an image of mkrescue -k.
CHECK_DEPS  += $(BUILD)/mklayout $(BUILD)/bzImage $(BUILD)/rescue.img \
	       $(BUILD)/mkrescue $(BUILD)/rescue-init

# ---- targets ----------------------------------------------------------
.PHONY: mklayout check-random

all: $(BUILD)/mklayout

mklayout: $(BUILD)/mklayout

$(BUILD)/mklayout: $(MKLAYOUT_OBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@.tmp $(MKLAYOUT_OBJS)
	mv $@.tmp $@

$(MKLAYOUT_OBJDIR)/%.o: qemu/%.c
	@mkdir -p $(@D)
	$(CC) -std=c11 $(CPPFLAGS) $(CFLAGS) $(WARNINGS) \
		-MMD -MP -MF $(@:.o=.d) -MT $@ -c -o $@.tmp $<
	mv $@.tmp $@

check-random: $(BUILD)/mklayout $(BUILD)/bzImage $(BUILD)/rescue.img \
	      $(BUILD)/mkrescue $(BUILD)/rescue-init
	tests/random --first $(FIRST) --count $(SEEDS) $(RANDOM_ARGS)

-include $(MKLAYOUT_OBJS:.o=.d)
