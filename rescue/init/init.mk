# SPDX-License-Identifier: GPL-2.0
# rescue/init/init.mk: rescue-init, the static PID 1 of the image, and
# its test groups.  Builds every .c of rescue/init/ and of rescue/lib/.
# Included by the top Makefile, which sets BUILD, CC, CFLAGS, WARNINGS.

# ---- settings ---------------------------------------------------------
RESCUE_INIT     = $(BUILD)/rescue-init
RESCUE_OBJDIR   = $(BUILD)/obj/rescue-init
RESCUE_SRCS     = $(sort $(wildcard rescue/init/*.c))
RESCUE_OBJS     = $(RESCUE_SRCS:rescue/init/%.c=$(RESCUE_OBJDIR)/%.o) \
		  $(RESCUE_LIB_SRCS:rescue/lib/%.c=$(RESCUE_OBJDIR)/lib/%.o)
BLKID_CFLAGS   := $(shell pkg-config --cflags blkid)
BLKID_LIBS     := $(shell pkg-config --static --libs blkid)
# The toolkit's decompressor (toolkit.c): liblzma.a's decoder objects.
LZMA_LIBS      := $(shell pkg-config --static --libs liblzma)
DEPS_PACKAGES  += liblzma-dev
RESCUE_CFLAGS   = -std=gnu11 $(CFLAGS) $(WARNINGS) -Irescue/lib $(BLKID_CFLAGS)
RESCUE_LDFLAGS  = -static -s

# ---- targets ----------------------------------------------------------
.PHONY: rescue-init

all: $(RESCUE_INIT)
rescue-init: $(RESCUE_INIT)

TEST_GROUPS += rescue-init rescue-shell faults members pid1
TEST_GROUPS += readonly
# An image the kernel did not unpack to its end (unpack.c).
TEST_GROUPS += unpack
# ip=: DHCP and static addresses on the stock kernel (network.c).
TEST_GROUPS += network
# busybox and e2fsck unpacked on first need (toolkit.c).
TEST_GROUPS += toolkit
CHECK_DEPS  += $(RESCUE_INIT) $(BUILD)/bzImage

$(RESCUE_OBJDIR)/%.o: rescue/init/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(RESCUE_CFLAGS) -MMD -MP -c -o $@ $<

$(RESCUE_OBJDIR)/lib/%.o: rescue/lib/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(RESCUE_CFLAGS) -MMD -MP -c -o $@ $<

$(RESCUE_INIT): $(RESCUE_OBJS)
	$(CC) $(RESCUE_CFLAGS) $(LDFLAGS) $(RESCUE_LDFLAGS) -o $@.tmp $^ $(BLKID_LIBS) $(LZMA_LIBS)
	mv $@.tmp $@

-include $(RESCUE_OBJS:.o=.d)
