// SPDX-License-Identifier: GPL-2.0
/* buf.c: growable byte buffers, string lists and whole-file reads. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mkrescue.h"
#include "readfile.h"

/* Makes room for LEN more bytes and a terminating NUL. */
static int buf_reserve(struct buf *b, size_t len)
{
	size_t cap;
	char *data;

	if (b->len + len + 1 <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 256;
	while (cap < b->len + len + 1)
		cap *= 2;
	data = realloc(b->data, cap);
	if (!data)
		return -ENOMEM;
	b->data = data;
	b->cap = cap;
	return 0;
}

int buf_append(struct buf *b, const void *data, size_t len)
{
	int err = buf_reserve(b, len);

	if (err)
		return err;
	memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = '\0';
	return 0;
}

int buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n, err;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	err = buf_reserve(b, (size_t)n);
	if (err)
		return err;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

void buf_free(struct buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

int buf_read_file(struct buf *b, const char *path)
{
	size_t len;
	char *data;
	int err;

	/* The one read-until-EOF loop, shared with rescue-init. */
	err = readfile_alloc(path, SSIZE_MAX, &data, &len);
	if (err)
		return err;
	err = buf_append(b, data, len);
	free(data);
	return err;
}

int strv_push(char ***v, size_t *n, const char *s, size_t len)
{
	char **grown = realloc(*v, (*n + 1) * sizeof(*grown));

	if (!grown)
		return -ENOMEM;
	*v = grown;
	grown[*n] = strndup(s, len);
	if (!grown[*n])
		return -ENOMEM;
	(*n)++;
	return 0;
}

void strv_free(char ***v, size_t *n)
{
	size_t i;

	for (i = 0; i < *n; i++)
		free((*v)[i]);
	free(*v);
	*v = NULL;
	*n = 0;
}
