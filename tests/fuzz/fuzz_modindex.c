// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_modindex.c: rescue-init's modules.dep, modules.alias,
 * modules.softdep and modules.builtin parsers, then a load by a name
 * or modalias from the input: four or five parts split by 0xff.
 */
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
	char *dep = fuzz_part(&data, &size, 1 << 16);
	char *alias = fuzz_part(&data, &size, 1 << 16);
	char *soft = fuzz_part(&data, &size, 1 << 16);
	char *builtin = fuzz_part(&data, &size, 1 << 16);
	char *want = fuzz_part(&data, &size, 512);

	if (dep && alias && soft && builtin && want &&
	    !modindex_parse_dep(&ix, dep) && !modindex_parse_alias(&ix, alias) &&
	    !modindex_parse_softdep(&ix, soft) && !modindex_parse_builtin(&ix, builtin)) {
		modindex_find(&ix, want);
		modindex_is_builtin(&ix, want);
		modindex_load(&ix, want, load_nothing, NULL);
	}
	modindex_free(&ix);
	free(dep);
	free(alias);
	free(soft);
	free(builtin);
	free(want);
	return 0;
}
