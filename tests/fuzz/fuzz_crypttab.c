// SPDX-License-Identifier: GPL-2.0
/* fuzz_crypttab.c: /etc/crypttab files, rd.luks.name= and rd.luks.options=. */
#include <stdio.h>

#include "crypttab.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size, 65536), uuid[64], name[128], why[200];
	struct crypttab_entry t[4];

	if (!s)
		return 0;
	crypttab_parse(s, t, 4, NULL, NULL);
	crypttab_luks_name(s, uuid, sizeof(uuid), name, sizeof(name), why,
			   sizeof(why));
	crypttab_luks_options(s, uuid, sizeof(uuid), &t[0], why, sizeof(why));
	free(s);
	return 0;
}
