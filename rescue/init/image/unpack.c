// SPDX-License-Identifier: GPL-2.0
/*
 * unpack.c: did the kernel unpack the whole image?  Short of memory (the
 * rootfs is a tmpfs of half the RAM without root=, and ramfs pages are
 * RAM) or on a damaged image, the kernel prints "Initramfs unpacking
 * failed: ..." and runs /init from what it got, which then fails in odd
 * ways (a module, a library, a directory missing).  mkrescue marks its
 * images at both ends (rescue/lib/imagemark.h); the kernel's own line
 * covers images of other makers (dracut).  Checked before anything else.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>

#include "imagemark.h"
#include "readfile.h"
#include "unpack.h"

#define KERNEL_LINE	"Initramfs unpacking failed: "
#define SYSLOG_ACTION_READ_ALL		3
#define SYSLOG_ACTION_SIZE_BUFFER	10
#define KLOG_MAX	(4 << 20)	/* a ring buffer bigger than this is cut */

/* "KEY=DIGITS" at *P, then SEP: the number, P after SEP. */
static int field(const char **p, const char *key, char sep,
		 unsigned long long *v)
{
	size_t n = strlen(key);
	char *end;

	if (strncmp(*p, key, n) || !isdigit((unsigned char)(*p)[n]))
		return -EINVAL;
	errno = 0;
	*v = strtoull(*p + n, &end, 10);
	if (errno || *end != sep)
		return -EINVAL;
	*p = end + 1;
	return 0;
}

int unpack_parse_marker(const char *text, struct unpack_totals *t)
{
	if (field(&text, "entries=", ' ', &t->entries) ||
	    field(&text, "bytes=", '\n', &t->bytes) || *text)
		return -EINVAL;
	return 0;
}

bool unpack_kernel_reason(const char *log, size_t len, char *reason,
			  size_t size)
{
	size_t klen = strlen(KERNEL_LINE), n;
	const char *found = NULL, *p = log, *hit;

	if (!size)
		return false;
	while ((hit = memmem(p, len - (size_t)(p - log), KERNEL_LINE, klen))) {
		found = hit + klen;
		p = found;
	}
	if (!found)
		return false;
	len -= (size_t)(found - log);
	for (n = 0; n < len && n + 1 < size && found[n] != '\n'; n++)
		reason[n] = found[n] >= ' ' && found[n] < 0x7f ? found[n] : '?';
	reason[n] = '\0';
	return true;
}

unsigned long long unpack_memtotal_kb(const char *meminfo)
{
	const char *p = strstr(meminfo, "MemTotal:");

	if (!p || (p != meminfo && p[-1] != '\n'))
		return 0;
	return strtoull(p + strlen("MemTotal:"), NULL, 10);
}

/* What the kernel says when its rootfs or an allocation ran out. */
bool unpack_reason_is_memory(const char *reason)
{
	return !strcmp(reason, "write error") || strstr(reason, "memory") ||
	       strstr(reason, "Memory") || strstr(reason, "alloc");
}

/* " (MemTotal N MiB, the image unpacks to N MiB in N entries)" */
static void figures(const struct unpack_state *s, char *buf, size_t size)
{
	int n = snprintf(buf, size, "MemTotal %llu MiB", s->memtotal_kb / 1024);

	if ((s->begin || s->end) && n > 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n,
			 ", the image unpacks to %llu KiB in %llu entries",
			 (s->totals.bytes + 1023) / 1024, s->totals.entries);
}

int unpack_verdict(const struct unpack_state *s, char *why, size_t size)
{
	char fig[160];

	if (s->end || (!s->begin && !s->reason[0]))
		return 0;
	figures(s, fig, sizeof(fig));
	if (s->reason[0] && unpack_reason_is_memory(s->reason))
		snprintf(why, size, "the initramfs was not unpacked completely: "
			 "the kernel ran out of memory (\"" KERNEL_LINE "%s\"; "
			 "%s); boot with more memory", s->reason, fig);
	else if (s->reason[0])
		snprintf(why, size, "the initramfs was not unpacked completely: "
			 "the kernel stopped on a damaged image (\"" KERNEL_LINE
			 "%s\"; %s); write the image again", s->reason, fig);
	else
		snprintf(why, size, "the initramfs was not unpacked completely: "
			 "its last entry /" IMAGEMARK_END " is missing, the "
			 "image is cut short (%s); write the image again", fig);
	return 1;
}

/* A marker file under ROOT: true when it is there, with its totals. */
static bool read_marker(const char *root, const char *path,
			struct unpack_totals *t)
{
	char file[4096], text[128];

	snprintf(file, sizeof(file), "%s/%s", root, path);
	if (readfile_into(file, text, sizeof(text), NULL))
		return false;
	if (unpack_parse_marker(text, t))
		memset(t, 0, sizeof(*t));	/* there, but not ours */
	return true;
}

/* The kernel's ring buffer: its reason, if it said one. */
static void kernel_reason(char *reason, size_t size)
{
	int len = klogctl(SYSLOG_ACTION_SIZE_BUFFER, NULL, 0);
	char *log;

	reason[0] = '\0';
	if (len <= 0)
		return;
	if (len > KLOG_MAX)
		len = KLOG_MAX;
	log = malloc((size_t)len);
	if (!log)
		return;
	len = klogctl(SYSLOG_ACTION_READ_ALL, log, len);
	if (len > 0)
		unpack_kernel_reason(log, (size_t)len, reason, size);
	free(log);
}

void unpack_state_read(const char *root, struct unpack_state *s)
{
	struct unpack_totals end;
	char path[4096], meminfo[4096];

	memset(s, 0, sizeof(*s));
	s->begin = read_marker(root, IMAGEMARK_BEGIN, &s->totals);
	s->end = read_marker(root, IMAGEMARK_END, &end);
	if (!s->begin)
		s->totals = end;
	snprintf(path, sizeof(path), "%s/proc/meminfo", root);
	if (!readfile_into(path, meminfo, sizeof(meminfo), NULL))
		s->memtotal_kb = unpack_memtotal_kb(meminfo);
}

int unpack_check(const char *root, char *why, size_t size)
{
	struct unpack_state s;

	unpack_state_read(root, &s);
	if (s.end)	/* whole: the usual boot reads no kernel log */
		return 0;
	kernel_reason(s.reason, sizeof(s.reason));
	return unpack_verdict(&s, why, size);
}
