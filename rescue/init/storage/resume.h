/* SPDX-License-Identifier: GPL-2.0 */
/* resume.h: resume from hibernation before the root is mounted (resume.c). */
#ifndef RESCUE_RESUME_H
#define RESCUE_RESUME_H

#include "rescue-init.h"

/*
 * resume=, resume_offset=, noresume: find the swap as the root is found
 * (in L, waiting on the uevent socket UFD), and hand it to the kernel
 * when it holds a hibernation image; then this boot is gone.  Returns
 * when there is nothing to resume, when the boot must not resume (the
 * rescue boot, noresume), or when the kernel did not resume: each said
 * in one line.
 */
void resume_boot(const struct cmdline *c, struct blklist *l, int ufd);

/* Whether the page of a swap header at BUF (PAGE bytes) is a hibernation
 * image's: the signature the kernel's swsusp writes at its end. */
bool resume_signature(const unsigned char *buf, size_t page);

#endif
