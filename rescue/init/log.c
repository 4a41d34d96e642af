// SPDX-License-Identifier: GPL-2.0
/* log.c: the one logger: "<level>rescue: " records on /dev/kmsg, µs clock. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rescue-init.h"

/*
 * /dev/kmsg rate-limits every open file to 10 records in 5 s unless
 * printk.devkmsg=on; a failure report with its device table is longer
 * than that, so the logger reopens its own kmsg file before the limit.
 * A forked child (the network's, a module load) shares its parent's
 * open file, and so its budget: it opens its own at its first record.
 */
#define KMSG_RECORDS_PER_OPEN	8

static int log_fd = 2;
static bool log_kmsg;
static bool log_owns_kmsg;
static bool log_debug;
static bool log_quiet;
static unsigned log_records;
static pid_t log_pid;
static const char *log_prefix = "rescue: ";

void log_open(void)
{
	int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return;		/* keep the console (fd 2) */
	if (log_owns_kmsg)
		close(log_fd);
	log_fd = fd;
	log_kmsg = true;
	log_owns_kmsg = true;
	log_records = 0;
	log_pid = getpid();
}

void log_to_fd(int fd, const char *prefix, bool kmsg)
{
	if (log_owns_kmsg)
		close(log_fd);
	log_fd = fd;
	log_prefix = prefix;
	log_kmsg = kmsg;
	log_owns_kmsg = false;
}

void log_set_debug(bool on)
{
	log_debug = on;
}

/* quiet: the kernel hides kmsg info on the console; do so without kmsg. */
void log_set_quiet(bool on)
{
	log_quiet = on;
}

bool log_debug_enabled(void)
{
	return log_debug;
}

uint64_t log_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/*
 * The length of the first piece of s[0..len) that fits in max bytes,
 * cut before a UTF-8 continuation byte, so no character is split.
 */
size_t log_cut(const char *s, size_t len, size_t max)
{
	size_t n;

	if (len <= max)
		return len;
	n = max;
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	return n ? n : max;
}

static void log_write_record(int level, const char *s, size_t len)
{
	char rec[LOG_RECORD_MAX + 2];
	int head;
	ssize_t w;

	if (log_kmsg)
		head = snprintf(rec, sizeof(rec), "<%d>%s", level, log_prefix);
	else
		head = snprintf(rec, sizeof(rec), "%s", log_prefix);
	memcpy(rec + head, s, len);
	len += head;
	/*
	 * A kmsg record without its newline is not finalized: the console
	 * would show it only when the next message comes.
	 */
	rec[len++] = '\n';
	if (log_owns_kmsg && (++log_records > KMSG_RECORDS_PER_OPEN ||
			      getpid() != log_pid))
		log_open();
	do
		w = write(log_fd, rec, len);
	while (w < 0 && errno == EINTR);
	/*
	 * quiet makes the kernel show only errors (console_loglevel 4): a
	 * warning goes to the console as well, where it is not doubled.
	 */
	if (log_kmsg && log_quiet && level == LOG_WARNING)
		w = write(2, rec + 3, len - 3);
	(void)w;
}

void log_msg(int level, const char *fmt, ...)
{
	char buf[4096];
	size_t room, len, line, piece;
	const char *p, *nl;
	va_list ap;
	int n;

	if (level >= LOG_DEBUG) {
		if (!log_debug)
			return;
		level = LOG_INFO;	/* rescue.debug: shown like progress */
	}
	if (log_quiet && !log_kmsg && level > LOG_WARNING)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	len = (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1;
	room = LOG_RECORD_MAX - strlen(log_prefix) - 4;	/* "<N>" + '\n' */

	for (p = buf; p < buf + len; p = nl + 1) {
		nl = memchr(p, '\n', buf + len - p);
		if (!nl)
			nl = buf + len;
		line = nl - p;
		do {
			piece = log_cut(p, line, room);
			log_write_record(level, p, piece);
			p += piece;
			line -= piece;
		} while (line > 0);
	}
}
