/* SPDX-License-Identifier: GPL-2.0 */
/* unpack.h: did the kernel unpack the whole image (unpack.c)? */
#ifndef RESCUE_UNPACK_H
#define RESCUE_UNPACK_H

#include <stdbool.h>
#include <stddef.h>

/* What an image's marker (rescue/lib/imagemark.h) says it holds. */
struct unpack_totals {
	unsigned long long entries;
	unsigned long long bytes;
};

/* A marker's text: 0, or -EINVAL when it is not IMAGEMARK_FORMAT. */
int unpack_parse_marker(const char *text, struct unpack_totals *t);
/*
 * The reason of the kernel's last "Initramfs unpacking failed: REASON"
 * in LOG (the kernel's ring buffer, LEN bytes, not NUL-terminated), cut
 * to SIZE - 1 printable bytes: true when there is one.
 */
bool unpack_kernel_reason(const char *log, size_t len, char *reason,
			  size_t size);
/* MemTotal of /proc/meminfo text in KiB, 0 when absent. */
unsigned long long unpack_memtotal_kb(const char *meminfo);
/* Whether the kernel's reason means that it ran out of memory. */
bool unpack_reason_is_memory(const char *reason);

/* What the boot knows about the unpacking. */
struct unpack_state {
	bool begin;			/* IMAGEMARK_BEGIN was unpacked */
	bool end;			/* IMAGEMARK_END was */
	struct unpack_totals totals;	/* from the one there (begin first) */
	char reason[160];		/* the kernel's, or "" */
	unsigned long long memtotal_kb;	/* 0: unknown */
};

/*
 * 0 when the image is whole, or not marked and the kernel said nothing;
 * 1 when it was not unpacked completely, with the one line that says so
 * (and what to do) in WHY.
 */
int unpack_verdict(const struct unpack_state *s, char *why, size_t size);
/* The markers under ROOT ("/" at boot) and ROOT/proc/meminfo into S,
 * the kernel's reason left empty. */
void unpack_state_read(const char *root, struct unpack_state *s);
/* At boot: the same, the kernel's ring buffer, the verdict. */
int unpack_check(const char *root, char *why, size_t size);

#endif
