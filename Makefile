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
	linux-image-amd64 initramfs-tools-core dracut-core

# Compiler settings shared by the C parts (rescue/*.mk).
CC       ?= gcc
CFLAGS   ?= -O2 -g
WARNINGS  = -Wall -Wextra -Werror
CPPFLAGS += -D_GNU_SOURCE

export BUILD ACCEL JOBS KERNEL_TARBALL

KERNEL_INPUTS = kernel/build-kernel.sh kernel/rescue.config \
	kernel/patches/series $(wildcard kernel/patches/*.patch)
TEST_MODULE   = $(BUILD)/kernel/test-module/devtmpfs_test.ko

# Each part adds the test groups (tests/GROUP.sh) it owns and what they
# need built; `make check` runs all groups in one tests/run, which ends
# with a single "N passed, N failed" line.
TEST_GROUPS = kernel
CHECK_DEPS  = $(BUILD)/bzImage $(TEST_MODULE)

# ---- targets ----------------------------------------------------------
.PHONY: all deps kernel test-module check clean

all: kernel

# The C parts: rescue-init, mkrescue, their unit tests, the layout generator.
include $(sort $(wildcard rescue/*.mk qemu/*.mk))

# Installs whatever of DEPS_PACKAGES is missing; a no-op otherwise.
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
		DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y $$missing; \
	fi

kernel: $(BUILD)/bzImage

# build-kernel.sh also checks its own content key, so a fresh checkout
# with new mtimes does not rebuild an unchanged kernel.
$(BUILD)/bzImage: $(KERNEL_INPUTS) $(KERNEL_TARBALL)
	BUILD=$(abspath $(BUILD)) kernel/build-kernel.sh

test-module: $(TEST_MODULE)

# Built out of tree against the kernel objects, in a copy under $(BUILD)
# so that no object file lands in the source tree.
$(TEST_MODULE): kernel/test/devtmpfs_test.c kernel/test/Kbuild $(BUILD)/bzImage
	rm -rf $(@D).tmp && mkdir -p $(@D).tmp
	cp kernel/test/devtmpfs_test.c kernel/test/Kbuild $(@D).tmp/
	$(MAKE) -s -C $(BUILD)/kernel/src O=$(abspath $(BUILD))/kernel/obj \
		ARCH=x86_64 M=$(abspath $(@D)).tmp modules
	rm -rf $(@D) && mv $(@D).tmp $(@D)

# TESTS=REGEX selects tests by name; CHECK_GROUPS="kernel ..." selects groups.
check: $(CHECK_DEPS)
	tests/run $(or $(CHECK_GROUPS),$(TEST_GROUPS))

clean:
	rm -rf $(BUILD)
