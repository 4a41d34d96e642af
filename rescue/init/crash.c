// SPDX-License-Identifier: GPL-2.0
/*
 * crash.c: PID 1 must not die, or the kernel panics on a machine that is
 * already in trouble.  A fault in rescue-init (SIGSEGV, SIGBUS, SIGILL,
 * SIGFPE) execs /init again, told by RESCUE_CRASHED=N to go straight to
 * the rescue shell; after CRASH_MAX of them, busybox sh replaces it.  The
 * handler runs on its own stack (a stack overflow is a SIGSEGV too) and
 * calls only async-signal-safe functions.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rescue-init.h"

#define CRASH_ENV	"RESCUE_CRASHED="
#define CRASH_MAX	3

static const int crash_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE };
static unsigned crashes;		/* from RESCUE_CRASHED at start */
static char crash_stack[64 * 1024];

/* Append the decimal n to p (async-signal-safe): the end. */
static char *put_uint(char *p, unsigned n)
{
	char digits[12];
	int i = 0;

	do
		digits[i++] = (char)('0' + n % 10);
	while ((n /= 10) && i < (int)sizeof(digits));
	while (i)
		*p++ = digits[--i];
	return p;
}

/* Append s without its NUL (the caller ends the string): the end. */
static char *put_str(char *p, const char *s)
{
	while (*s)
		*p++ = *s++;
	return p;
}

static void say(const char *line, size_t len)
{
	int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC | O_NOCTTY);

	if (fd >= 0) {
		if (write(fd, line, len) < 0) {
			/* the console below still tells */
		}
		close(fd);
	}
	if (write(STDERR_FILENO, line + 3, len - 3) < 0) {
		/* nothing left to tell it with */
	}
}

static void crashed(int sig)
{
	static char env[sizeof(CRASH_ENV) + 12];
	static char line[160];
	char *init_argv[] = { "/init", NULL };
	char *sh_argv[] = { "sh", NULL };
	char *envp[] = { env, "PATH=/bin:/sbin:/usr/bin:/usr/sbin", "TERM=linux",
			 "HOME=/", NULL };
	bool last = crashes + 1 >= CRASH_MAX;
	sigset_t none;
	char *p;

	p = put_str(line, "<2>rescue: PID 1 crashed (signal ");
	p = put_uint(p, (unsigned)sig);
	p = put_str(p, last ? "); starting /bin/sh as PID 1\n" :
		    "); restarting /init into the rescue shell\n");
	say(line, (size_t)(p - line));
	p = put_str(env, CRASH_ENV);
	*put_uint(p, crashes + 1) = '\0';
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);	/* the mask survives exec */
	if (!last)
		execve("/init", init_argv, envp);
	execve("/bin/sh", sh_argv, envp);
	for (;;)		/* nothing to exec: at least no panic */
		pause();
}

/* How many times PID 1 crashed before this start; 0 normally. */
static unsigned crash_count(char *const envp[])
{
	for (; envp && *envp; envp++)
		if (!strncmp(*envp, CRASH_ENV, strlen(CRASH_ENV)))
			return (unsigned)strtoul(*envp + strlen(CRASH_ENV), NULL, 10);
	return 0;
}

/* The fault signals PID 1 must leave unblocked for crashed() to run. */
void crash_unblock_set(sigset_t *set)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(crash_signals); i++)
		sigdelset(set, crash_signals[i]);
}

/* Catch the faults; returns how many crashes came before this start. */
unsigned crash_install(char *const envp[])
{
	stack_t ss = { .ss_sp = crash_stack, .ss_size = sizeof(crash_stack) };
	struct sigaction sa;
	size_t i;

	crashes = crash_count(envp);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = crashed;
	sa.sa_flags = SA_ONSTACK;
	sigfillset(&sa.sa_mask);
	sigaltstack(&ss, NULL);
	for (i = 0; i < ARRAY_SIZE(crash_signals); i++)
		sigaction(crash_signals[i], &sa, NULL);
	return crashes;
}
