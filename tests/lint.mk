# SPDX-License-Identifier: GPL-2.0
# tests/lint.mk: `make lint`: cppcheck and clang-tidy over the C of
# rescue/, tests/layouts/, tests/fixtures/ and tests/fuzz/, and
# shellcheck over every shell file, with zero findings
# (tests/groups/lint.sh, the test group "lint" of make check; the levels
# are chosen and argued there and in .clang-tidy), and checkpatch.pl
# --strict over the kernel series (the kernel group's test, which needs
# the unpacked tree).

DEPS_PACKAGES += cppcheck clang-tidy shellcheck
TEST_GROUPS   += lint

.PHONY: lint

# checkpatch reads the unpacked tree of every base.
lint: $(foreach b,$(KERNEL_BASES),$(call kernel_image,$(b)))
	tests/run lint
	TESTS='^patches_pass_checkpatch_strict$$' tests/run kernel
