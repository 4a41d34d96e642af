# SPDX-License-Identifier: GPL-2.0
# devtmpfs-rescue: top-level Makefile.  Everything is built into $(BUILD).

# ---- settings ---------------------------------------------------------
BUILD          ?= build
KERNEL_TARBALL ?= /usr/src/linux-source-6.1.tar.xz
ACCEL          ?= tcg
JOBS           ?= $(shell nproc)

# Debian packages the build, the tests and the benchmarks need.
DEPS_PACKAGES = \
	linux-source-6.1 build-essential bc bison flex libelf-dev libssl-dev \
	patch perl cpio zstd xz-utils qemu-system-x86 busybox-static \
	e2fsprogs e2fsck-static fdisk dosfstools expect pkg-config \
	libblkid-dev libarchive-dev libarchive-tools libcmocka-dev \
	linux-image-amd64 initramfs-tools-core dracut-core gnuplot-nox
# The Debian 12 root of the debian tests (tests/tools/debian-root), and
# Debian's 6.12 kernel (bookworm-security) beside 6.1, and its source
# for the second base of the kernel series (kernel/patches/6.12).
DEPS_PACKAGES += debootstrap linux-image-6.12-amd64 linux-source-6.12
# XFS roots with a dirty log (tests/groups/readonly.sh).
DEPS_PACKAGES += xfsprogs
# Network-bound LUKS unlock (tests/groups/tang.sh): Debian's clevis and
# its luks commands and tools (jose, luksmeta, curl come with them) for
# mkrescue --clevis and the host-side bind, tang's tangd for the server,
# socat to run tangd inetd-style on 127.0.0.1.
DEPS_PACKAGES += clevis clevis-luks jose luksmeta curl tang socat
# mkrescue --ssh-authorized-keys ships dropbear (tests/groups/network.sh).
DEPS_PACKAGES += dropbear-bin
# The ssh client and ssh-keygen that the network tests log in with, and
# ss (iproute2), with which they pick a free port for QEMU's hostfwd.
DEPS_PACKAGES += openssh-client iproute2
# dracut builds its images from this machine's own files: its systemd
# and udev modules, which the dracut and debian tests expect (and
# Debian's default configuration has), need systemd and udev installed.
DEPS_PACKAGES += systemd udev
# make deb and its test (tests/groups/package.sh, which runs grub-mkconfig in a
# Debian root booted from a copy of tests/tools/debian-root).
DEPS_PACKAGES += debhelper dpkg-dev fakeroot lintian
# Rescue media that boot from outside the broken disk (rescue/media/,
# tests/groups/media.sh): GRUB for BIOS and Debian's signed EFI chain
# (shim, GRUB) on a hybrid ISO made by xorriso, its FAT EFI image by
# dosfstools and mtools; systemd's EFI stub and sbsign for Unified Kernel
# Images; OVMF, the UEFI firmware the tests boot them with (Secure Boot
# with Microsoft's keys, and with Debian's snakeoil test key).
DEPS_PACKAGES += grub-pc-bin grub-efi-amd64-bin grub-efi-amd64-signed shim-signed \
	xorriso mtools systemd-boot-efi sbsigntool ovmf
# The firmware test module (tests/fixtures/fwtest/, tests/groups/firmware.sh)
# is built against Debian's headers of each stock kernel: the metapackages
# that follow linux-image-amd64 (6.1) and linux-image-6.12-amd64.
DEPS_PACKAGES += linux-headers-amd64 linux-headers-6.12-amd64
# A signed Unified Kernel Image with the same bytes for the same inputs:
# mkrescue-media uki runs sbsign under faketime (tests/groups/uki.sh).
DEPS_PACKAGES += faketime
# mkrescue --tpm2 ships the TSS2 libraries systemd's token plugin dlopen()s;
# tests/groups/tpm2.sh runs swtpm as the VM's TPM 2.0 (tpm2-tools: tpm2_pcrread
# to look at the PCRs by hand).
DEPS_PACKAGES += swtpm swtpm-tools tpm2-tools libtss2-esys-3.0.2-0 libtss2-rc0 \
	libtss2-mu0 libtss2-tcti-device0

# Installation (make install DESTDIR=... PREFIX=...).  The dracut module
# always goes where dracut looks for modules.
DESTDIR        ?=
PREFIX         ?= /usr/local
SBINDIR        ?= $(PREFIX)/sbin
PKGLIBDIR      ?= $(PREFIX)/lib/devtmpfs-rescue
PKGDATADIR     ?= $(PREFIX)/share/devtmpfs-rescue
MANDIR         ?= $(PREFIX)/share/man
DRACUTMODDIR   ?= /usr/lib/dracut/modules.d
# The rescue system's persistent SSH host key, beside rescue.conf, as
# update-rescue-images and the dracut module expect it (mkrescue(8)).
RESCUE_SSH_HOST_KEY ?= /etc/devtmpfs-rescue/ssh_host_ed25519_key

# Compiler settings shared by the C parts (rescue/*/*.mk).
CC       ?= gcc
CFLAGS   ?= -O2 -g
WARNINGS  = -Wall -Wextra -Werror
CPPFLAGS += -D_GNU_SOURCE

export BUILD ACCEL JOBS KERNEL_TARBALL

# The series of each kernel base is in kernel/patches/BASE; `make kernel
# KVER=6.12` builds the second base.  6.1 keeps build/bzImage and
# build/kernel, the other bases get build/bzImage-BASE, build/kernel-BASE.
KVER          ?= 6.1
KERNEL_BASES   = 6.1 6.12
KERNEL_INPUTS  = kernel/build-kernel.sh kernel/rescue.config
kernel_inputs  = $(KERNEL_INPUTS) kernel/patches/$(1)/series \
	$(wildcard kernel/patches/$(1)/*.patch)
kernel_suffix  = $(if $(filter 6.1,$(1)),,-$(1))
kernel_image   = $(BUILD)/bzImage$(call kernel_suffix,$(1))
kernel_dir     = $(BUILD)/kernel$(call kernel_suffix,$(1))
kernel_tarball = $(if $(filter 6.1,$(1)),$(KERNEL_TARBALL),/usr/src/linux-source-$(1).tar.xz)
test_module    = $(call kernel_dir,$(1))/test-module/devtmpfs_test.ko
TEST_MODULE    = $(call test_module,6.1)

# Each part adds the test groups (tests/groups/GROUP.sh) it owns and what they
# need built; `make check` runs all groups in one tests/run, which ends
# with a single "N passed, N failed, N skipped" line.
TEST_GROUPS = kernel kernel-userspace image dracut
# A Debian 12 root with systemd on the stock kernels (tests/tools/debian-root).
TEST_GROUPS += debian
# Roots on md and btrfs that rescue-init assembles (tests/groups/stacked.sh).
TEST_GROUPS += stacked
# The Debian package: built, lintian-clean, its hooks and GRUB entry on a
# Debian root (tests/groups/package.sh).
TEST_GROUPS += package
# Roots in LUKS containers that rescue-init opens (tests/groups/luks.sh).
TEST_GROUPS += luks
# crypttab names, options, detached headers; a Debian root on LUKS
# (tests/groups/crypttab.sh).
TEST_GROUPS += crypttab
# Roots on dm-integrity devices that rescue-init opens
# (tests/groups/integrity.sh).
TEST_GROUPS += integrity
# Roots on LVM2 logical volumes that rescue-init activates (tests/groups/lvm.sh).
TEST_GROUPS += lvm
# Firmware of the shipped modules and early microcode in mkrescue -k and
# dracut images, on the stock kernels (tests/groups/firmware.sh).
TEST_GROUPS += firmware
# tests/run itself (tests/groups/runner.sh).
TEST_GROUPS += runner
# The data files of rescue/share/ and their generators (tests/groups/tables.sh).
TEST_GROUPS += tables
# The rescue system on media the firmware boots: a hybrid ISO as a CD and
# a USB stick, under SeaBIOS and OVMF, with Secure Boot (tests/groups/media.sh).
TEST_GROUPS += media
# The folder of mkrescue-media netboot booted by the firmware's iPXE, over
# TFTP and HTTP, under BIOS and UEFI (refused with Secure Boot), with SSH,
# per MAC, and by four machines at once (tests/groups/netboot.sh).
TEST_GROUPS += netboot
# mkrescue-media uki: Unified Kernel Images of the stock kernels booted by
# OVMF from an ESP, signed under Secure Boot, refused unsigned; the
# kernel-install plugin's systemd-boot entry (tests/groups/uki.sh).
TEST_GROUPS += uki
# The console keymap at the LUKS prompt, typed on the VGA console through
# QEMU's sendkey (tests/groups/keymap.sh): loadkeys -b (kbd) compiles it,
# ckbcomp (console-setup) makes the XKB layouts of /etc/default/keyboard
# and --keymap de into kbd's text format first.
TEST_GROUPS += keymap
DEPS_PACKAGES += kbd console-setup
CHECK_DEPS  = $(BUILD)/bzImage $(TEST_MODULE) $(BUILD)/rescue.img
# The kernel groups boot every base; the others need only 6.1.  The other
# bases build while the other groups run (tests/run, TESTS_BACKGROUND):
# on a fresh 2-core machine that takes the 6.12 build out of the time
# make check waits before its first test.
CHECK_KERNEL_GROUPS = $(filter kernel kernel-userspace,$(or $(CHECK_GROUPS),$(TEST_GROUPS)))
CHECK_LATER = $(if $(CHECK_KERNEL_GROUPS),\
	$(foreach b,$(filter-out 6.1,$(KERNEL_BASES)),$(call kernel_image,$(b)) $(call test_module,$(b))))

# ---- targets ----------------------------------------------------------
.PHONY: all deps kernel test-module image iso netboot run check bench install uninstall clean deb

all: kernel image

# The C parts: what both programs share first, then rescue-init,
# mkrescue, the layout generator, the unit tests, fuzzers and lint.
include rescue/lib/lib.mk rescue/musl/musl.mk rescue/init/init.mk \
	rescue/mkrescue/mkrescue.mk
include $(sort $(wildcard qemu/*.mk tests/*.mk tests/*/*.mk))

# Installs whatever of DEPS_PACKAGES is missing; a no-op otherwise.
# Without their Recommends: those came to 264 more packages (a mail
# server, ImageMagick, GStreamer, fonts) that nothing here runs, and to
# half the install time of a fresh machine.  apt-get keeps none of the
# .deb files it downloaded, two kernel source tarballs among them, so
# that the disk holds the kernel trees and test images instead.
deps:
	@missing=$$(for p in $(DEPS_PACKAGES); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | \
			grep -q '^install ok installed$$' || echo $$p; \
	done); \
	if [ -z "$$missing" ]; then \
		echo "deps: all $(words $(DEPS_PACKAGES)) packages are installed"; \
	else \
		echo "deps: installing" $$missing; \
		sudo=; [ "$$(id -u)" -eq 0 ] || sudo=sudo; \
		$$sudo apt-get update && \
		DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y --no-install-recommends \
			-o APT::Keep-Downloaded-Packages=false $$missing; \
	fi

kernel: $(call kernel_image,$(KVER))

# build-kernel.sh also checks its own content key, so a fresh checkout
# with new mtimes does not rebuild an unchanged kernel.  The test module
# is built out of tree against the objects of each kernel, in a copy
# under $(BUILD) so that no object file lands in the source tree.
define kernel_rules
$(call kernel_image,$(1)): $(call kernel_inputs,$(1)) $(call kernel_tarball,$(1))
	BUILD=$(abspath $(BUILD)) kernel/build-kernel.sh $(1)

$(call test_module,$(1)): kernel/test/devtmpfs_test.c kernel/test/Kbuild \
		$(call kernel_image,$(1))
	rm -rf $$(@D).tmp && mkdir -p $$(@D).tmp
	cp kernel/test/devtmpfs_test.c kernel/test/Kbuild $$(@D).tmp/
	$$(MAKE) -s -C $(call kernel_dir,$(1))/src \
		O=$(abspath $(call kernel_dir,$(1)))/obj \
		ARCH=x86_64 M=$$(abspath $$(@D)).tmp modules
	rm -rf $$(@D) && mv $$(@D).tmp $$(@D)
endef
$(foreach b,$(KERNEL_BASES),$(eval $(call kernel_rules,$(b))))

# A missing source tarball is named, with the package that has it,
# instead of make's "No rule to make target".
/usr/src/linux-source-%.tar.xz:
	@echo "make: $@ is missing: it comes with the Debian package linux-source-$*, which make deps installs" >&2
	@exit 1

# rescue.img for the patched kernel: no modules, everything is built in.
image: $(BUILD)/rescue.img

$(BUILD)/rescue.img: $(BUILD)/mkrescue $(BUILD)/rescue-init
	$(BUILD)/mkrescue --init $(BUILD)/rescue-init -o $@

# make iso: build/rescue.iso, the patched kernel and rescue.img on a hybrid
# CD/USB image for BIOS and UEFI (rescue/media/iso.sh, mkrescue-media(8));
# ISO_APPEND is the command line of its entries (root=...).
ISO_APPEND ?=
MEDIA_TOOL  = rescue/media/mkrescue-media
MEDIA_FILES = $(MEDIA_TOOL) $(wildcard rescue/media/*.sh)
iso: $(BUILD)/rescue.iso

$(BUILD)/rescue.iso: $(BUILD)/bzImage $(BUILD)/rescue.img $(MEDIA_FILES)
	$(MEDIA_TOOL) iso -k $(BUILD)/bzImage -i $(BUILD)/rescue.img -a "$(ISO_APPEND)" -o $@

# make netboot: build/netboot/, the folder a PXE or HTTP boot setup serves
# (boot.ipxe, vmlinuz, rescue.img: rescue/media/netboot.sh, docs/netboot.md);
# NETBOOT_APPEND is its command line, NETBOOT_OPTIONS netboot's own (--ip dhcp).
# Written on every call: its files carry SOURCE_DATE_EPOCH's time, which
# make cannot compare, and a copy of two files costs nothing.
NETBOOT_APPEND  ?=
NETBOOT_OPTIONS ?=
netboot: $(BUILD)/bzImage $(BUILD)/rescue.img
	$(MEDIA_TOOL) netboot -k $(BUILD)/bzImage -i $(BUILD)/rescue.img -a "$(NETBOOT_APPEND)" \
		-o $(BUILD)/netboot $(NETBOOT_OPTIONS)

# make run: boot build/bzImage + build/rescue.img on this terminal, on a
# demo disk unless DISK= names one (then ROOT= says which root, default
# the demo's label).  RESCUE=1 boots straight into the rescue shell.
DEMO_DISK = $(BUILD)/demo/disk.img
DISK     ?= $(DEMO_DISK)
ROOT     ?= LABEL=rescue-demo
RUN_APPEND = root=$(ROOT) $(if $(filter 1,$(RESCUE)),rescue) $(APPEND)

run: $(BUILD)/bzImage $(BUILD)/rescue.img $(DISK)
	@echo "run: booting with root=$(ROOT)$(if $(filter 1,$(RESCUE)), into the rescue shell); quit QEMU with ctrl-a x"
	qemu/run-vm --interactive --kernel $(BUILD)/bzImage --initrd $(BUILD)/rescue.img \
		--append "$(RUN_APPEND)" --disk virtio-blk:$(DISK)

$(DEMO_DISK): qemu/make-demo-disk
	@mkdir -p $(@D)
	qemu/make-demo-disk $@

test-module: $(call test_module,$(KVER))

# TESTS=REGEX selects tests by name; CHECK_GROUPS="kernel ..." selects groups.
# The Debian root (debootstrap: mostly waiting for the archive) starts
# first, in the background, so that it is made while the kernel builds;
# tests/tools/debian-root holds a lock while it works, and the tests that call it
# wait for that lock.
CHECK_DEBIAN_ROOT = $(filter debian package,$(or $(CHECK_GROUPS),$(TEST_GROUPS)))
.PHONY: check-debian-root
check-debian-root:
	$(if $(CHECK_DEBIAN_ROOT),@mkdir -p $(BUILD)/tests && \
		{ tests/tools/debian-root >$(BUILD)/tests/debian-root.log 2>&1 </dev/null & } && \
		echo "check: making the Debian root in the background (log: $(BUILD)/tests/debian-root.log)")

# The background make gets BUILD and its targets as absolute paths:
# tests/lib/lib.sh turns the exported BUILD into an absolute path, and a
# relative target would then match no rule ("No rule to make target
# build/bzImage-6.12" on a machine without that kernel yet).
CHECK_BACKGROUND = $(if $(CHECK_LATER),$(MAKE) --no-print-directory -C $(CURDIR) \
	BUILD=$(abspath $(BUILD)) $(abspath $(CHECK_LATER)))
check: check-debian-root $(CHECK_DEPS)
	$(if $(CHECK_LATER),TESTS_BACKGROUND='$(CHECK_BACKGROUND)' \
		TESTS_AFTER_BACKGROUND='$(CHECK_KERNEL_GROUPS)') \
		tests/run $(or $(CHECK_GROUPS),$(TEST_GROUPS))

# The packages make deps installs, for .ci/clean-root's key.
.PHONY: print-DEPS_PACKAGES
print-DEPS_PACKAGES:
	@echo '$(sort $(DEPS_PACKAGES))'

# The background command, for tests/groups/kernel.sh's check of it.
.PHONY: print-CHECK_BACKGROUND
print-CHECK_BACKGROUND:
	@echo '$(CHECK_BACKGROUND)'

# bench/run boots every configuration side by side under TCG and writes
# build/bench/results.{json,md} and boot-timeline.png.  BENCH_REPS=N.
# Then bench/debian (kernel start to multi-user.target on a Debian root
# with systemd, against initramfs-tools and stock dracut) and bench/memory
# (the smallest -m that boots, by bisection: the slowest, about 30 min),
# and bench/network (what ip=dhcp and SSH cost the initramfs phase), and
# bench/stacked (LVM, LUKS2 and LUKS2 -> LVM against plain ext4), and
# bench/dying (a disk that hangs in front of the root, against stock
# dracut and initramfs-tools), and bench/media (the size and build time
# of mkrescue-media's media, beside grml's and SystemRescue's published
# sizes, and firmware to shell), into build/bench/NAME/.  Each also writes
# its block of bench/RESULTS.md (the latest figures, the date, the
# machine, the command; the notes around the blocks are kept): commit it
# with what the figures measure.
# BENCH=run|debian|memory|network|stacked|dying|media runs one of them.
BENCH ?= run debian memory network stacked dying media
bench: $(BUILD)/bzImage $(TEST_MODULE) $(BUILD)/rescue.img $(BUILD)/mkrescue
	set -e; for b in $(BENCH); do bench/$$b; done

# What make install writes, relative to $(DESTDIR); uninstall removes
# exactly these, then the directories of ours that are left empty.
# The data files of rescue/share/ go to PKGDATADIR, where mkrescue
# (MKRESCUE_DATADIR) and the dracut module (@PKGDATADIR@) read them.
SHARE_FILES = modules.list module-classes lvm.conf mdadm.conf tool-confs storage-layers disk-tools multipath-tools clevis-tools
MEDIA_KINDS = $(notdir $(wildcard rescue/media/*.sh))
INSTALLED_FILES = $(PKGLIBDIR)/rescue-init $(SBINDIR)/mkrescue \
	$(SBINDIR)/mkrescue-media $(addprefix $(PKGLIBDIR)/media/,$(MEDIA_KINDS)) \
	$(MANDIR)/man8/mkrescue-media.8 \
	$(addprefix $(PKGDATADIR)/,$(SHARE_FILES)) $(MANDIR)/man8/rescue-init.8 \
	$(MANDIR)/man8/mkrescue.8 $(DRACUTMODDIR)/99devtmpfs-rescue/module-setup.sh

# The rescue shell's commands (links to rescue-init), for the dracut
# module: the names of rescue/lib/contract.h.
RESCUE_TOOL_NAMES = $(shell sed -n 's/^[#]define RESCUE_TOOL_[A-Z_]*[[:space:]]*"\([^"]*\)".*/\1/p' rescue/lib/contract.h)

# mkrescue is rebuilt for installation, with the installed paths of
# rescue-init and the data files as its defaults.
# The lock: tests of groups that run side by side install into their own
# DESTDIRs, but all through this one $(BUILD)/install.
install: $(BUILD)/rescue-init
	mkdir -p $(BUILD)/install
	flock $(BUILD)/install/.lock $(MAKE) --no-print-directory BUILD=$(BUILD)/install \
		MKRESCUE_INIT=$(PKGLIBDIR)/rescue-init \
		MKRESCUE_DATADIR=$(PKGDATADIR) \
		MKRESCUE_DEFAULT_SSH_HOST_KEY=$(RESCUE_SSH_HOST_KEY) $(BUILD)/install/mkrescue
	install -D -m 0755 $(BUILD)/rescue-init $(DESTDIR)$(PKGLIBDIR)/rescue-init
	install -D -m 0755 $(BUILD)/install/mkrescue $(DESTDIR)$(SBINDIR)/mkrescue
	install -d $(DESTDIR)$(PKGDATADIR)
	install -m 0644 $(addprefix rescue/share/,$(SHARE_FILES)) $(DESTDIR)$(PKGDATADIR)/
	install -D -m 0644 rescue/init/rescue-init.8 $(DESTDIR)$(MANDIR)/man8/rescue-init.8
	install -D -m 0644 rescue/mkrescue/mkrescue.8 $(DESTDIR)$(MANDIR)/man8/mkrescue.8
	install -D -m 0644 rescue/media/mkrescue-media.8 $(DESTDIR)$(MANDIR)/man8/mkrescue-media.8
	install -d $(DESTDIR)$(PKGLIBDIR)/media
	install -m 0644 $(addprefix rescue/media/,$(MEDIA_KINDS)) $(DESTDIR)$(PKGLIBDIR)/media/
	sed -e 's|@MEDIA_LIB@|$(PKGLIBDIR)/media|' $(MEDIA_TOOL) >$(DESTDIR)$(SBINDIR)/mkrescue-media.tmp
	chmod 0755 $(DESTDIR)$(SBINDIR)/mkrescue-media.tmp
	mv $(DESTDIR)$(SBINDIR)/mkrescue-media.tmp $(DESTDIR)$(SBINDIR)/mkrescue-media
	install -d $(DESTDIR)$(DRACUTMODDIR)/99devtmpfs-rescue
	sed -e 's|@RESCUE_INIT@|$(PKGLIBDIR)/rescue-init|' \
	    -e 's|@PKGDATADIR@|$(PKGDATADIR)|' \
	    -e 's|@SSH_HOST_KEY@|$(RESCUE_SSH_HOST_KEY)|' \
	    -e 's|@RESCUE_TOOLS@|$(RESCUE_TOOL_NAMES)|' \
	    dracut-module/99devtmpfs-rescue/module-setup.sh \
	    >$(DESTDIR)$(DRACUTMODDIR)/99devtmpfs-rescue/module-setup.sh.tmp
	chmod 0755 $(DESTDIR)$(DRACUTMODDIR)/99devtmpfs-rescue/module-setup.sh.tmp
	mv $(DESTDIR)$(DRACUTMODDIR)/99devtmpfs-rescue/module-setup.sh.tmp \
	   $(DESTDIR)$(DRACUTMODDIR)/99devtmpfs-rescue/module-setup.sh

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED_FILES))
	-rmdir $(DESTDIR)$(DRACUTMODDIR)/99devtmpfs-rescue $(DESTDIR)$(PKGLIBDIR)/media $(DESTDIR)$(PKGLIBDIR) \
	       $(DESTDIR)$(PKGDATADIR) 2>/dev/null

# make deb: the Debian package (debian/), $(BUILD)/deb/*.deb.
# dpkg-buildpackage writes into debian/ and the .deb into the parent of
# the source directory, so it runs in a copy of what the package is built
# from, $(BUILD)/deb/src: nothing is written outside $(BUILD).
DEB_DIR     = $(BUILD)/deb
DEB_SOURCES = Makefile rescue dracut-module debian packaging
deb:
	rm -rf $(DEB_DIR) && mkdir -p $(DEB_DIR)/src
	tar -c --exclude=debian/build --exclude=debian/devtmpfs-rescue $(DEB_SOURCES) | \
		tar -x -C $(DEB_DIR)/src
	cd $(DEB_DIR)/src && dpkg-buildpackage -us -uc -b >../build.log 2>&1 || \
		{ tail -n 20 ../build.log; exit 1; }
	@ls $(DEB_DIR)/*.deb

clean:
	rm -rf $(BUILD)
