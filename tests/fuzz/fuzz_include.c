// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_include.c: mkrescue's --include SRC:DST specs, run in a small
 * temporary tree (a file, a directory, a symlink).  Sources that leave
 * it (absolute, or with "..") are skipped: walking the host's / for each
 * input would fuzz nothing but the disk.
 */
#include <stdio.h>

#include "fuzz.h"
#include "mkrescue.h"

static char top[] = "/tmp/fuzz_include.XXXXXX";

static void setup(void)
{
	if (!mkdtemp(top))
		abort();
	fuzz_mkdir(top, "d", 0755);
	fuzz_mkdir(top, "d/e", 0700);
	fuzz_put(top, "d/f", "x\n");
	fuzz_symlink("f", top, "d/l");
	fuzz_symlink("/nowhere", top, "d/e/dangling");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool made;
	struct list l = { 0 };
	char *spec = fuzz_string(data, size, 4096), *abs = NULL;

	/* Not by looking at top: mkdtemp() may well put an X there. */
	if (!made)
		setup();
	made = true;
	/* The source, relative in the input, is taken inside the tree. */
	if (spec && spec[0] != '/' && !strstr(spec, "..") &&
	    asprintf(&abs, "%s/%s", top, spec) > 0 && include_add(&l, abs) == 0)
		list_finish(&l);
	free(abs);
	list_free(&l);
	free(spec);
	return 0;
}
