# SPDX-License-Identifier: GPL-2.0
# rescue/init/init.mk: rescue-init, the static PID 1 of the image, and
# its test groups.  Builds every .c of rescue/init/ and of rescue/lib/.
# Included by the top Makefile, which sets BUILD, CC, CFLAGS, WARNINGS.

# ---- settings ---------------------------------------------------------
RESCUE_INIT     = $(BUILD)/rescue-init
RESCUE_OBJDIR   = $(BUILD)/obj/rescue-init-$(RESCUE_LIBC)
RESCUE_SRCS     = $(sort $(wildcard rescue/init/*.c rescue/init/*/*.c rescue/init/*/*/*.c))
RESCUE_OBJS     = $(RESCUE_SRCS:rescue/init/%.c=$(RESCUE_OBJDIR)/%.o) \
		  $(RESCUE_LIB_SRCS:rescue/lib/%.c=$(RESCUE_OBJDIR)/lib/%.o)
DEPS_PACKAGES  += liblzma-dev
# crypt(3) for the glibc build of rescue-init (the package's; shelllock.c)
DEPS_PACKAGES  += libcrypt-dev
# The unit tests and fuzzers build rescue-init's sources with the host's
# glibc and libblkid, whichever libc rescue-init links.
BLKID_CFLAGS   := $(shell pkg-config --cflags blkid)
# The libc and where libblkid and liblzma (the toolkit's decompressor,
# toolkit.c) come from: rescue/musl/musl.mk.
ifeq ($(RESCUE_LIBC),musl)
RESCUE_CC       = $(MUSL_SYSROOT)/bin/musl-gcc
# musl-gcc sees musl's headers only: the kernel's uapi ones come from
# the sysroot, as system headers (their _IOC() is musl's, redefined).
RESCUE_LIBC_CFLAGS = -isystem $(MUSL_SYSROOT)/kernel-headers \
		  -I$(MUSL_SYSROOT)/include
RESCUE_LIBS     = $(MUSL_SYSROOT)/lib/libblkid.a $(MUSL_SYSROOT)/lib/liblzma.a
RESCUE_LIBC_DEPS = $(MUSL_SYSROOT)/stamp
else
RESCUE_CC       = $(CC)
RESCUE_LIBC_CFLAGS = $(BLKID_CFLAGS)
# crypt(3), for the rescue password (shelllock.c), is libxcrypt's in
# glibc's world; musl has it in its libc.
RESCUE_LIBS    := $(shell pkg-config --static --libs blkid liblzma libcrypt)
RESCUE_LIBC_DEPS =
endif
# Sections the link can drop, and no unwind tables: C without
# backtraces, and every KB is decompressed by the kernel at boot.
RESCUE_CFLAGS   = -std=gnu11 $(CFLAGS) $(WARNINGS) -Irescue/init -Irescue/lib \
		  -I$(RESCUE_GEN) \
		  -ffunction-sections -fdata-sections \
		  -fno-asynchronous-unwind-tables $(RESCUE_LIBC_CFLAGS)
RESCUE_LDFLAGS  = -static -s -Wl,--gc-sections
# Headers made from the data files of rescue/share/: the storage layers
# (storage.c, members.c, probe.c), one row each in the table, and when
# each module loads (coldplug.c).
RESCUE_GEN      = $(BUILD)/gen
STORAGE_LAYERS_H = $(RESCUE_GEN)/storage-layers.h
MODULE_CLASSES_H = $(RESCUE_GEN)/module-classes.h
RESCUE_GEN_HEADERS = $(STORAGE_LAYERS_H) $(MODULE_CLASSES_H)
# A generator, behind the helpers they share: $(TABLE_AWK) GEN.awk TABLE
TABLE_AWK       = awk -f rescue/init/table.awk -f

# ---- targets ----------------------------------------------------------
.PHONY: rescue-init

all: $(RESCUE_INIT)
rescue-init: $(RESCUE_INIT)

TEST_GROUPS += rescue-init rescue-shell faults members pid1
TEST_GROUPS += readonly
# Roots behind dying disks: QEMU's blkdebug and throttling, unplugs
# through its monitor (tests/groups/dying.sh).
TEST_GROUPS += dying
# readonly's f2fs root (mkfs.f2fs, sload.f2fs).
DEPS_PACKAGES  += f2fs-tools
# An image the kernel did not unpack to its end (unpack.c).
TEST_GROUPS += unpack
# ip=: DHCP and static addresses on the stock kernel (network.c).
TEST_GROUPS += network
# busybox and e2fsck unpacked on first need (toolkit.c).
TEST_GROUPS += toolkit
# resume= (storage/resume.c): a Debian root hibernated and resumed.
TEST_GROUPS += hibernate
# A LUKS root bound to tang with clevis (storage/luksclevis.c).
TEST_GROUPS += tang
# The shell lock: rescue password, --lock-shell (shelllock.c).
TEST_GROUPS += shelllock
# A LUKS2 root's systemd-tpm2 token (storage/lukstpm2.c), swtpm as the TPM.
TEST_GROUPS += tpm2
CHECK_DEPS  += $(RESCUE_INIT) $(BUILD)/bzImage

$(STORAGE_LAYERS_H): rescue/share/storage-layers \
		rescue/init/storage/storage-layers.awk rescue/init/table.awk
	@mkdir -p $(@D)
	$(TABLE_AWK) rescue/init/storage/storage-layers.awk $< >$@.tmp
	mv $@.tmp $@

$(MODULE_CLASSES_H): rescue/share/module-classes \
		rescue/init/modules/module-classes.awk rescue/init/table.awk
	@mkdir -p $(@D)
	$(TABLE_AWK) rescue/init/modules/module-classes.awk $< >$@.tmp
	mv $@.tmp $@

# Made before the first compile; after it, each .d names its includers.
$(RESCUE_OBJDIR)/%.o: rescue/init/%.c $(RESCUE_LIBC_DEPS) | $(RESCUE_GEN_HEADERS)
	@mkdir -p $(@D)
	$(RESCUE_CC) $(CPPFLAGS) $(RESCUE_CFLAGS) -MMD -MP -c -o $@ $<

$(RESCUE_OBJDIR)/lib/%.o: rescue/lib/%.c $(RESCUE_LIBC_DEPS)
	@mkdir -p $(@D)
	$(RESCUE_CC) $(CPPFLAGS) $(RESCUE_CFLAGS) -MMD -MP -c -o $@ $<

$(RESCUE_INIT): $(RESCUE_OBJS)
	$(RESCUE_CC) $(RESCUE_CFLAGS) $(LDFLAGS) $(RESCUE_LDFLAGS) -o $@.tmp $(RESCUE_OBJS) $(RESCUE_LIBS)
	mv $@.tmp $@

-include $(RESCUE_OBJS:.o=.d)
