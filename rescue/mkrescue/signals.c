// SPDX-License-Identifier: GPL-2.0
/*
 * signals.c: the signals that end mkrescue (SIGINT, SIGTERM, SIGHUP),
 * held while a scratch file exists that main.c's handler could not
 * know of yet (the output's temporary, a private key's copy), so that
 * an interrupted run still removes it.
 */
#include <signal.h>

#include "mkrescue.h"

void signals_hold(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, old);
}

void signals_release(const sigset_t *old)
{
	sigprocmask(SIG_SETMASK, old, NULL);
}
