// SPDX-License-Identifier: GPL-2.0
/*
 * crash.c: PID 1 must not die, or the kernel panics on a machine that is
 * already in trouble.  A fault in rescue-init (SIGSEGV, SIGBUS, SIGILL,
 * SIGFPE, SIGSYS, SIGTRAP, and SIGABRT: abort() and assert() in a
 * library) execs /init again with its own argv and environment, told by
 * RESCUE_CRASHED=N to go straight to the rescue shell; after CRASH_MAX of
 * them, /init runs as "sh": the rescue shell only, started again as it
 * exits (shell_last_resort()), and a crash there waits for a reboot.
 * With rd.shell=0 the restart boots without a shell, and after the last
 * crash PID 1 waits for a reboot (panic= seconds, or a request).  A
 * child of PID 1 inherits the handler: it only exits.  The handler runs
 * on its own stack (a stack overflow is a SIGSEGV too) and calls only
 * async-signal-safe functions.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/reboot.h>
#include <sys/wait.h>

#include "rescue-init.h"

#define CRASH_ENV	"RESCUE_CRASHED="
#define CRASH_MAX	3

#define CRASH_ENVS_MAX	256

static const int crash_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGSYS,
				     SIGTRAP, SIGABRT };
/* What the restart execs: the first start's argv, envp less CRASH_ENV. */
static char *const *start_argv;
static char *restart_envp[CRASH_ENVS_MAX + 2];
static char crash_env[sizeof(CRASH_ENV) + 12];
static unsigned crashes;		/* from RESCUE_CRASHED at start */
/*
 * rd.shell (1, 0; -1 until the command line is read: the restart reads
 * it, but the last crash starts no shell then) and panic=.
 */
static volatile sig_atomic_t shell_allowed = -1, panic_s;
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

/*
 * rd.shell=0 after the last crash: what the kernel does after a panic,
 * with PID 1's duties kept (reaping, reboot and poweroff requests).
 */
static void wait_for_reboot(void)
{
	struct timespec ts = { .tv_sec = panic_s > 0 ? panic_s : 0 };
	sigset_t set;
	int sig, how;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, NULL);
	for (;;) {
		sig = panic_s ? sigtimedwait(&set, NULL, &ts) :
			sigwaitinfo(&set, NULL);
		if (sig == SIGCHLD) {
			while (waitpid(-1, NULL, WNOHANG) > 0)
				;
			continue;
		}
		how = sig == SIGUSR2 ? RB_POWER_OFF :
		      sig == SIGUSR1 ? RB_HALT_SYSTEM : RB_AUTOBOOT;
		if (sig < 0 && panic_s == 0)
			continue;
		sync();
		reboot(how);
	}
}

static void crashed(int sig)
{
	static char line[160];
	char *sh_argv[] = { RESCUE_SH, NULL };
	bool last = crashes + 1 >= CRASH_MAX;
	sigset_t none;
	char *p;

	if (getpid() != 1)	/* a child of PID 1 (network, watcher) */
		_exit(128 + sig);
	p = put_str(line, "<2>rescue: PID 1 crashed (signal ");
	p = put_uint(p, (unsigned)sig);
	if (crashes >= CRASH_MAX)
		p = put_str(p, ") in its last resort: waiting for a reboot\n");
	else if (last && shell_allowed != 1)
		p = put_str(p, "); no shell (rd.shell=0): waiting for a "
			    "reboot\n");
	else if (last)
		p = put_str(p, "); the rescue shell only, from now on\n");
	else if (shell_allowed == 0)
		p = put_str(p, "); restarting /init, without a shell\n");
	else
		p = put_str(p, "); restarting /init into the rescue shell\n");
	say(line, (size_t)(p - line));
	if (crashes >= CRASH_MAX || (last && shell_allowed != 1))
		wait_for_reboot();
	p = put_str(crash_env, CRASH_ENV);
	*put_uint(p, crashes + 1) = '\0';
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);	/* the mask survives exec */
	if (!last && start_argv)
		execve("/init", start_argv, restart_envp);
	execve("/init", sh_argv, restart_envp);	/* shell_last_resort() */
	wait_for_reboot();	/* nothing to exec: at least no panic */
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

/* What a crash may start: the shell (rd.shell), and panic= for the last. */
void crash_set_policy(bool shell, int panic)
{
	shell_allowed = shell;
	panic_s = panic;
}

/*
 * Catch the faults; returns how many crashes came before this start.
 * argv and envp are main()'s: a restart execs /init with them again.
 */
unsigned crash_install(char *const argv[], char *const envp[])
{
	stack_t ss = { .ss_sp = crash_stack, .ss_size = sizeof(crash_stack) };
	struct sigaction sa;
	size_t i, n = 0;

	crashes = crash_count(envp);
	start_argv = argv;
	restart_envp[n++] = crash_env;
	for (; envp && *envp && n < CRASH_ENVS_MAX; envp++)
		if (strncmp(*envp, CRASH_ENV, strlen(CRASH_ENV)))
			restart_envp[n++] = *envp;
	restart_envp[n] = NULL;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = crashed;
	sa.sa_flags = SA_ONSTACK;
	sigfillset(&sa.sa_mask);
	sigaltstack(&ss, NULL);
	for (i = 0; i < ARRAY_SIZE(crash_signals); i++)
		sigaction(crash_signals[i], &sa, NULL);
	return crashes;
}
