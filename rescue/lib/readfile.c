// SPDX-License-Identifier: GPL-2.0
/*
 * readfile.c: the one read-until-EOF loop, for fixed and growing buffers,
 * and its twin for writes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "readfile.h"

/* read() into buf until EOF or room is 0; EINTR is not an error. */
static int read_all(int fd, char *buf, size_t room, size_t *got)
{
	ssize_t n;

	*got = 0;
	while (*got < room) {
		n = read(fd, buf + *got, room - *got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		*got += (size_t)n;
	}
	return 0;
}

int readfile_into(const char *path, char *buf, size_t size, size_t *len)
{
	size_t got = 0;
	int fd, err;

	if (len)
		*len = 0;
	if (!buf || size == 0)
		return -EINVAL;
	buf[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = read_all(fd, buf, size - 1, &got);
	close(fd);
	buf[got] = '\0';
	if (len)
		*len = got;
	return err;
}

int readfile_alloc(const char *path, size_t max, char **out, size_t *len)
{
	size_t cap = max < 4096 ? max : 4096, used = 0, got;
	char *buf = NULL, *bigger;
	int fd, err = 0;

	*out = NULL;
	if (len)
		*len = 0;
	if (max == 0)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		bigger = realloc(buf, cap + 1);
		if (!bigger) {
			err = -ENOMEM;
			break;
		}
		buf = bigger;
		err = read_all(fd, buf + used, cap - used, &got);
		used += got;
		if (err || used < cap)
			break;		/* an error, or EOF before the end */
		if (cap >= max) {
			err = -EFBIG;
			break;
		}
		cap = cap * 2 < max ? cap * 2 : max;
	}
	close(fd);
	if (err) {
		free(buf);
		return err;
	}
	buf[used] = '\0';
	*out = buf;
	if (len)
		*len = used;
	return 0;
}

int writefile_all(int fd, const void *data, size_t len)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = write(fd, (const char *)data + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;	/* no progress: never spin */
		done += (size_t)n;
	}
	return 0;
}
