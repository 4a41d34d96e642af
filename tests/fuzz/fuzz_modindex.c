// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_modindex.c: the one parser of depmod's files (rescue/lib/
 * modindex.c: modules.dep, .alias, .softdep, .builtin, .builtin.alias)
 * and rescue-init's load order over it (modload_order()), by a name or
 * modalias from the input: six parts split by 0xff.
 */
#include <errno.h>

#include "fuzz.h"
#include "rescue-init.h"

static int load_nothing(void *ctx, const struct module *m, const char *reason)
{
	(void)ctx;
	(void)reason;
	return m->name[0] == 'f' ? -1 : 0;	/* some loads fail */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct modindex ix = { 0 };
	char *text[MODINDEX_FILES], *want;
	int err = 0;
	size_t i;

	for (i = 0; i < MODINDEX_FILES; i++)
		text[i] = fuzz_part(&data, &size, 1 << 16);
	want = fuzz_part(&data, &size, 512);
	for (i = 0; i < MODINDEX_FILES && !err; i++)
		err = text[i] ? modindex_parse(&ix, i, text[i]) : -ENOMEM;
	if (!err && want) {
		modindex_find(&ix, want);
		modindex_is_builtin(&ix, want);
		modindex_alias_is_builtin(&ix, want);
		modload_order(&ix, want, load_nothing, NULL);
	}
	modindex_free(&ix);
	for (i = 0; i < MODINDEX_FILES; i++)
		free(text[i]);
	free(want);
	return 0;
}
