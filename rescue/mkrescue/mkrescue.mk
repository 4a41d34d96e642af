# SPDX-License-Identifier: GPL-2.0
# rescue/mkrescue/mkrescue.mk: builds $(BUILD)/mkrescue, the generator of
# rescue.img, from every .c of rescue/mkrescue/ and rescue/lib/, and the
# static stand-in for rescue-init that its tests put in images.

# ---- settings ---------------------------------------------------------
# The version is the package's: the first line of debian/changelog.
MKRESCUE_VERSION     ?= $(shell sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' debian/changelog)
# Compiled-in defaults of --init and of the data directory (the files
# of rescue/share/: modules.list, the default of --module-list, and the
# storage tools' configuration): this build's, until `make install`
# builds them with the installed paths (PKGLIBDIR, PKGDATADIR).
MKRESCUE_INIT        ?= $(abspath $(BUILD))/rescue-init
MKRESCUE_DATADIR     ?= $(abspath rescue/share)
# The rescue system's persistent SSH host key (--ssh-authorized-keys
# without --ssh-host-key), made there on first use: in the build
# directory for a development build, so that no test writes the
# machine's /etc; `make install` builds it with /etc/devtmpfs-rescue/.
MKRESCUE_DEFAULT_SSH_HOST_KEY ?= $(abspath $(BUILD))/ssh_host_ed25519_key

MKRESCUE_SRCS      = $(sort $(wildcard rescue/mkrescue/*.c rescue/mkrescue/*/*.c))
MKRESCUE_OBJDIR    = $(BUILD)/obj/mkrescue
MKRESCUE_OBJS      = $(MKRESCUE_SRCS:rescue/mkrescue/%.c=$(MKRESCUE_OBJDIR)/%.o) \
		     $(RESCUE_LIB_SRCS:rescue/lib/%.c=$(MKRESCUE_OBJDIR)/lib/%.o)
MKRESCUE_TEST_INIT = $(MKRESCUE_OBJDIR)/test-init
MKRESCUE_CFLAGS   := -Irescue/mkrescue -Irescue/lib $(shell pkg-config --cflags libarchive libelf liblzma)
# libarchive static by default: the shared one loads 12 libraries
# (libxml2, ICU and libstdc++ among them) for formats mkrescue never
# writes, a tenth of its run time (docs/decisions.md); the static archive
# brings the cpio writer and the gzip and zstd filters, which still link
# libz and libzstd.  MKRESCUE_LIBARCHIVE=shared links the shared one, as
# the Debian package does (debian/rules): a libarchive security update
# then reaches it without a rebuild.
MKRESCUE_LIBARCHIVE ?= static
ifeq ($(MKRESCUE_LIBARCHIVE),static)
MKRESCUE_LIBS     := -Wl,-Bstatic -larchive -Wl,-Bdynamic -lzstd -lz \
		     $(shell pkg-config --libs libelf liblzma)
else ifeq ($(MKRESCUE_LIBARCHIVE),shared)
MKRESCUE_LIBS     := $(shell pkg-config --libs libarchive libelf liblzma)
else
$(error MKRESCUE_LIBARCHIVE must be static or shared, not $(MKRESCUE_LIBARCHIVE))
endif
MKRESCUE_DEFINES   = -DMKRESCUE_VERSION='"$(MKRESCUE_VERSION)"' \
	-DMKRESCUE_DEFAULT_INIT='"$(MKRESCUE_INIT)"' \
	-DMKRESCUE_DATADIR='"$(MKRESCUE_DATADIR)"' \
	-DMKRESCUE_DEFAULT_SSH_HOST_KEY='"$(MKRESCUE_DEFAULT_SSH_HOST_KEY)"'

# The storage tools (--storage) and the libelf mkrescue reads them with;
# the static libarchive's own libraries (libarchive-dev does not bring
# libzstd-dev, and the link names -lzstd and -lz itself).
DEPS_PACKAGES += libelf-dev mdadm cryptsetup-bin lvm2 dmsetup btrfs-progs
DEPS_PACKAGES += libzstd-dev zlib1g-dev
# The tools for a failing disk (--disk-tools, rescue/share/disk-tools;
# badblocks is e2fsprogs'): tests/groups/disk-tools.sh boots them.
DEPS_PACKAGES += gddrescue smartmontools
# A root on one disk seen on two paths is assembled as a dm-multipath map
# (rescue/share/multipath-tools; tests/groups/mkrescue-boot.sh).  Its
# daemon maps nothing on a machine with one path per disk: Debian's
# find_multipaths "strict" maps only the WWIDs of /etc/multipath/wwids.
DEPS_PACKAGES += multipath-tools

TEST_GROUPS += mkrescue mkrescue-errors
TEST_GROUPS += mkrescue-options mkrescue-storage
# The tools for a failing disk and rescue-rw (tests/groups/disk-tools.sh).
TEST_GROUPS += disk-tools
# mkrescue -k images booted on the stock kernels (module loads).
TEST_GROUPS += mkrescue-boot
CHECK_DEPS  += $(BUILD)/mkrescue $(MKRESCUE_TEST_INIT)

# ---- targets ----------------------------------------------------------
.PHONY: mkrescue mkrescue-defines-check

all: $(BUILD)/mkrescue

mkrescue: $(BUILD)/mkrescue

# `make $(pwd)/build/mkrescue` names the same file as build/mkrescue.
ifneq ($(abspath $(BUILD)),$(BUILD))
$(abspath $(BUILD))/mkrescue: $(BUILD)/mkrescue
endif

# Relinked when this file changes: MKRESCUE_LIBS lives here.
$(BUILD)/mkrescue: $(MKRESCUE_OBJS) rescue/mkrescue/mkrescue.mk
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@.tmp $(MKRESCUE_OBJS) $(MKRESCUE_LIBS)
	mv $@.tmp $@

$(MKRESCUE_OBJDIR)/%.o: rescue/mkrescue/%.c
	@mkdir -p $(@D)
	$(CC) -std=c11 $(CPPFLAGS) $(MKRESCUE_CFLAGS) $(CFLAGS) $(WARNINGS) \
		-MMD -MP -MF $(@:.o=.d) -MT $@ -c -o $@.tmp $<
	mv $@.tmp $@

$(MKRESCUE_OBJDIR)/lib/%.o: rescue/lib/%.c
	@mkdir -p $(@D)
	$(CC) -std=c11 $(CPPFLAGS) $(MKRESCUE_CFLAGS) $(CFLAGS) $(WARNINGS) \
		-MMD -MP -MF $(@:.o=.d) -MT $@ -c -o $@.tmp $<
	mv $@.tmp $@

# Only main.o uses the defaults; it is rebuilt when they change,
# through a file rewritten only when its content would differ.
$(MKRESCUE_OBJDIR)/main.o: CPPFLAGS += $(MKRESCUE_DEFINES)
$(MKRESCUE_OBJDIR)/main.o: $(MKRESCUE_OBJDIR)/defaults

$(MKRESCUE_OBJDIR)/defaults: mkrescue-defines-check
	@mkdir -p $(@D)
	@printf '%s\n' '$(MKRESCUE_VERSION)' '$(MKRESCUE_INIT)' \
		'$(MKRESCUE_DATADIR)' '$(MKRESCUE_DEFAULT_SSH_HOST_KEY)' >$@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

# Static like rescue-init; not with $(CFLAGS), which may hold sanitizers.
$(MKRESCUE_TEST_INIT): tests/fixtures/test-init.c
	@mkdir -p $(@D)
	$(CC) -std=c11 $(CPPFLAGS) -O2 $(WARNINGS) -static -o $@.tmp $<
	mv $@.tmp $@

-include $(MKRESCUE_OBJS:.o=.d)
