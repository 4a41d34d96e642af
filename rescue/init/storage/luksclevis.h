/* SPDX-License-Identifier: GPL-2.0 */
/*
 * luksclevis.h: a LUKS container bound with clevis (tang, sss) opened
 * with the key its binding gives, no passphrase typed (luksclevis.c).
 *
 * luksclevis_key(NODE, KEY, SIZE, QUIET): the key of NODE's first
 * clevis binding that gives one, into KEY: its length.  -ENOENT when
 * NODE has no binding or the image no clevis; else -errno, after one
 * line naming the server and the reason unless QUIET (the retries made
 * while the passphrase prompt waits say nothing).
 * luksclevis_bound(NODE): whether NODE has a binding (asked before).
 * luksclevis_opened(NODE): NODE opened with that key: the line that
 * says so, and the shell lock (shelllock.c) engaged.
 */
#ifndef RESCUE_LUKSCLEVIS_H
#define RESCUE_LUKSCLEVIS_H

#include <stdbool.h>
#include <stddef.h>

/* How often the prompt asks tang again while it waits (dracut: 5 s). */
#define LUKSCLEVIS_RETRY_S	5

int luksclevis_key(const char *node, char *key, size_t size, bool quiet);
bool luksclevis_bound(const char *node);
void luksclevis_opened(const char *node);

#endif
