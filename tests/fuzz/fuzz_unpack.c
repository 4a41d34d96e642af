// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_unpack.c: what unpack.c reads at boot: a marker file, the kernel's
 * ring buffer and /proc/meminfo, then the line it would print.
 */
#include "fuzz.h"
#include "image/unpack.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct unpack_state s;
	char *text, why[1024];

	/* The ring buffer as it comes: bytes of their own size, no NUL. */
	text = malloc(size ? size : 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	memset(&s, 0, sizeof(s));
	(void)unpack_kernel_reason(text, size, s.reason, sizeof(s.reason));
	free(text);
	/* Files as strings. */
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	s.begin = unpack_parse_marker(text, &s.totals) == 0;
	s.memtotal_kb = unpack_memtotal_kb(text);
	(void)unpack_reason_is_memory(s.reason);
	(void)unpack_verdict(&s, why, sizeof(why));
	free(text);
	return 0;
}
