/* SPDX-License-Identifier: GPL-2.0 */
/*
 * readfile.h: whole-file reads (and the write loop) for rescue-init and
 * mkrescue.  /proc and
 * /sys files report a size of 0 and may be read in several pieces, so
 * both readers loop until end of file, retrying on EINTR, and never
 * trust st_size.  libc only: rescue-init links statically.
 */
#ifndef RESCUE_READFILE_H
#define RESCUE_READFILE_H

#include <stddef.h>

/*
 * PATH into BUF, NUL-terminated, at most SIZE - 1 bytes (a longer file
 * is cut there).  0 with the length in *LEN (may be NULL), else -errno:
 * -EINVAL when SIZE is 0, so that no caller writes before BUF.
 */
int readfile_into(const char *path, char *buf, size_t size, size_t *len);

/*
 * All of PATH into a malloc()ed NUL-terminated buffer in *OUT (freed by
 * the caller); a file of MAX bytes or more is -EFBIG, MAX 0 is -EINVAL.
 * 0 with the length in *LEN (may be NULL), else -errno and *OUT is NULL.
 */
int readfile_alloc(const char *path, size_t max, char **out, size_t *len);

/* All LEN bytes of DATA to FD, retrying on EINTR: 0 or -errno. */
int writefile_all(int fd, const void *data, size_t len);

#endif
