# SPDX-License-Identifier: GPL-2.0
# tests/layouts/layouts.mk: builds $(BUILD)/mklayout, the seeded random
# disk-layout generator (main: mklayout-main.c), and runs random seeds
# through tests/tools/random-layouts:
#   make check-random SEEDS=200 FIRST=1000

# ---- settings ---------------------------------------------------------
SEEDS ?= 50
FIRST ?= 1
# RANDOM_ARGS="--jobs 2 --keep" passes options on to tests/tools/random-layouts.
RANDOM_ARGS ?=

MKLAYOUT_SRCS = $(addprefix tests/layouts/mklayout-,\
	main.c check.c ids.c msg.c names.c plan.c plan-files.c rng.c root.c \
	script.c stack.c stack-files.c)
MKLAYOUT_OBJDIR = $(BUILD)/obj/layouts
MKLAYOUT_OBJS   = $(MKLAYOUT_SRCS:tests/layouts/%.c=$(MKLAYOUT_OBJDIR)/%.o)

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

$(MKLAYOUT_OBJDIR)/%.o: tests/layouts/%.c
	@mkdir -p $(@D)
	$(CC) -std=c11 $(CPPFLAGS) $(CFLAGS) $(WARNINGS) \
		-MMD -MP -MF $(@:.o=.d) -MT $@ -c -o $@.tmp $<
	mv $@.tmp $@

check-random: $(BUILD)/mklayout $(BUILD)/bzImage $(BUILD)/rescue.img \
	      $(BUILD)/mkrescue $(BUILD)/rescue-init
	tests/tools/random-layouts --first $(FIRST) --count $(SEEDS) $(RANDOM_ARGS)

-include $(MKLAYOUT_OBJS:.o=.d)
