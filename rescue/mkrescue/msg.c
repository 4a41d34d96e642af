// SPDX-License-Identifier: GPL-2.0
/* msg.c: the error line and the --verbose lines, on stderr. */
#include <stdarg.h>
#include <stdio.h>

#include "mkrescue.h"

bool msg_verbose_on;

static void msg_print(const char *fmt, va_list ap)
{
	fputs("mkrescue: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void msg_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	msg_print(fmt, ap);
	va_end(ap);
}

void msg_verbose(const char *fmt, ...)
{
	va_list ap;

	if (!msg_verbose_on)
		return;
	va_start(ap, fmt);
	msg_print(fmt, ap);
	va_end(ap);
}
