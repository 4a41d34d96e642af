// SPDX-License-Identifier: GPL-2.0
/* mklayout-msg.c: the one error line a failure prints, on stderr. */
#include <stdarg.h>
#include <stdio.h>

#include "mklayout.h"

void msg_error(const char *fmt, ...)
{
	va_list ap;

	fputs("mklayout: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
