/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz.h: what the libFuzzer harnesses share.  Each harness feeds one
 * parser of outside input; a crash, a leak or undefined behaviour is a
 * finding (-fsanitize=fuzzer,address,undefined).
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A NUL-terminated copy of at most max bytes: the parsers take C strings. */
static inline char *fuzz_string(const uint8_t *data, size_t size, size_t max)
{
	char *s;

	if (size > max)
		size = max;
	s = malloc(size + 1);
	if (s) {
		memcpy(s, data, size);
		s[size] = '\0';
	}
	return s;
}

/*
 * The next part of a multi-part input, parts separated by a 0xff byte
 * (which no text index holds): *data and *size move past it.
 */
static inline char *fuzz_part(const uint8_t **data, size_t *size, size_t max)
{
	const uint8_t *sep = memchr(*data, 0xff, *size);
	size_t len = sep ? (size_t)(sep - *data) : *size;
	char *s = fuzz_string(*data, len, max);

	*data += sep ? len + 1 : len;
	*size -= sep ? len + 1 : len;
	return s;
}

/* The next part of the input, as the whole content of the file PATH. */
static inline void fuzz_write_part(const char *path, const uint8_t **data,
				   size_t *size, size_t max)
{
	char *value = fuzz_part(data, size, max);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		abort();
	if (value && write(fd, value, strlen(value)) < 0)
		abort();
	close(fd);
	free(value);
}

/*
 * The fixed trees some harnesses run in: TOP/REL made as a folder, a
 * file holding TEXT, or a symlink to TARGET.  A tree that cannot be made
 * aborts the harness: fuzzing without it would find nothing.
 */
static inline void fuzz_path(char *path, size_t len, const char *top,
			     const char *rel)
{
	if ((size_t)snprintf(path, len, "%s/%s", top, rel) >= len)
		abort();
}

static inline void fuzz_mkdir(const char *top, const char *rel, mode_t mode)
{
	char path[256];

	fuzz_path(path, sizeof(path), top, rel);
	if (mkdir(path, mode))
		abort();
}

static inline void fuzz_put(const char *top, const char *rel, const char *text)
{
	char path[256];
	FILE *f;

	fuzz_path(path, sizeof(path), top, rel);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f))
		abort();
}

static inline void fuzz_symlink(const char *target, const char *top,
				const char *rel)
{
	char path[256];

	fuzz_path(path, sizeof(path), top, rel);
	if (symlink(target, path))
		abort();
}

#endif
