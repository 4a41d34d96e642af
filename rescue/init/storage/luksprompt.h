/* SPDX-License-Identifier: GPL-2.0 */
/*
 * luksprompt.h: the terminal of the LUKS passphrase prompt
 * (storage-luks.c): rescue-mount's own when it asks from a shell, else
 * /dev/console.
 *
 * luksprompt_echo_off(), luksprompt_echo_on(): echo off from the
 * moment a container is claimed (people type the passphrase ahead when
 * they know the prompt comes) until it is opened or its prompt ended.
 * luksprompt_open(), luksprompt_close(): the prompt's own hold of the
 * terminal; what was typed before it is discarded, with a line.
 * luksprompt_ask(): the question, then one line from the terminal or
 * from rescue-unlock through RESCUE_LUKS_PASS_FIFO (storage.h).
 */
#ifndef RESCUE_LUKSPROMPT_H
#define RESCUE_LUKSPROMPT_H

#include <stdbool.h>
#include <stddef.h>
#include <termios.h>

struct lukscon {
	int fd;
	bool tty;
	struct termios saved;
};

void luksprompt_echo_off(void);
void luksprompt_echo_on(void);
int luksprompt_open(struct lukscon *c);
void luksprompt_close(struct lukscon *c);
/*
 * luksprompt_retry(FN, ARG): while set, luksprompt_ask() calls FN(ARG)
 * every RETRY_S seconds as it waits (a tang server asked again), and
 * returns -EALREADY once FN returned 0 (the container opened meanwhile).
 * NULL: no more.
 */
void luksprompt_retry(int (*fn)(void *arg), void *arg, unsigned retry_s);
int luksprompt_ask(struct lukscon *c, const char *question,
		   unsigned timeout_s, char *buf, size_t size);

#endif
