// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_elfdeps.c: mkrescue's ELF reader (rescue/mkrescue/closure/elfdeps.c), the
 * input as a whole ELF file: PT_INTERP, PT_DYNAMIC and the string table
 * it points into through PT_LOAD.  The seeds are two stripped files made
 * with gcc -nostdlib -Wl,-z,max-page-size=0x200 -Wl,-z,noseparate-code:
 * a shared object with DT_RUNPATH $ORIGIN/../lib, and a PIE with
 * PT_INTERP and DT_RPATH /opt/lib (-Wl,--disable-new-dtags), both
 * needing libc.so.6.
 */
#include "fuzz.h"
#include "mkrescue.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elfdeps d;
	/* A copy of exactly SIZE bytes, so that ASan sees any overrun. */
	void *copy = malloc(size ? size : 1);

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	if (!elfdeps_read_mem(copy, size, &d))
		elfdeps_free(&d);
	free(copy);
	return 0;
}
