# SPDX-License-Identifier: GPL-2.0
# rescue/lib/lib.mk: what rescue-init and mkrescue share.  No program of
# its own: each program's makefile compiles these sources with its own
# flags (rescue-init static with -O2, mkrescue dynamic, the unit tests
# and fuzzers with sanitizers).  Nothing here may need a library beyond
# libc, since rescue-init links statically.
RESCUE_LIB_SRCS = $(sort $(wildcard rescue/lib/*.c))
