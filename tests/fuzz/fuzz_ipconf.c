// SPDX-License-Identifier: GPL-2.0
/* fuzz_ipconf.c: ip= values, parsed and described for the log. */
#include "fuzz.h"
#include "net/ipconf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size, 4096), err[256], line[160];
	struct ip_conf c;

	if (!s)
		return 0;
	if (ipconf_parse(s, &c, err, sizeof(err)) == 0)
		ipconf_describe(&c, line, sizeof(line));
	free(s);
	return 0;
}
