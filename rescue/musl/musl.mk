# SPDX-License-Identifier: GPL-2.0
# rescue/musl/musl.mk: the C library rescue-init links statically.
#
# musl by default: glibc's static libc is 0.8 MB of rescue-init's 1.3 MB
# (stdio, locale and NSS code it never runs), musl's is 87 KB, and
# rescue-init's size is what the kernel decompresses before /init.
# musl itself (with its oldmalloc allocator), libblkid and liblzma come
# from Debian's sources, built by build-libs; gcc is the compiler.
# RESCUE_LIBC=glibc links Debian's glibc, libblkid.a and liblzma.a
# instead: the Debian package does, since a package build may not
# download anything; the code builds with both.
RESCUE_LIBC   ?= musl
MUSL_SYSROOT   = $(BUILD)/musl
DEPS_PACKAGES += curl dpkg-dev

ifneq ($(filter-out musl glibc,$(RESCUE_LIBC)),)
$(error RESCUE_LIBC must be musl or glibc, not $(RESCUE_LIBC))
endif

$(MUSL_SYSROOT)/stamp: rescue/musl/build-libs rescue/musl/sources
	rescue/musl/build-libs $(MUSL_SYSROOT)
	touch $@
