// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_ldconf.c: mkrescue's reader of /etc/ld.so.conf
 * (rescue/mkrescue/closure/ldconf.c), the input as the file's text; includes are
 * parsed to their patterns, not globbed on the host.
 */
#include <errno.h>

#include "fuzz.h"
#include "mkrescue.h"

static int no_include(struct ldconf *c, const char *pattern, int depth)
{
	(void)c;
	(void)depth;
	return pattern[0] == '/' ? 0 : -EINVAL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ldconf c = { .include = no_include };
	char *text = fuzz_string(data, size, 8192);

	if (!text)
		return 0;
	ldconf_parse(&c, text, "/etc", 0);
	ldconf_free(&c);
	free(text);
	return 0;
}
