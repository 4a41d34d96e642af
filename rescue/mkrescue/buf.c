// SPDX-License-Identifier: GPL-2.0
/* mkrescue-buf.c: growable byte buffers and whole-file reads. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mkrescue.h"

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
	struct stat st;
	ssize_t n;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		err = -errno;
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		err = -EISDIR;
		goto out;
	}
	err = buf_reserve(b, st.st_size > 0 ? (size_t)st.st_size : 4096);
	while (!err) {
		n = read(fd, b->data + b->len, b->cap - b->len - 1);
		if (n < 0) {
			err = errno == EINTR ? 0 : -errno;
			continue;
		}
		if (n == 0)
			break;
		b->len += (size_t)n;
		err = buf_reserve(b, 4096);
	}
	if (!err)
		b->data[b->len] = '\0';
out:
	close(fd);
	return err;
}
