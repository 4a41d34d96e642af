/* SPDX-License-Identifier: GPL-2.0 */
/*
 * network.h: the network of a boot with ip= (network.c): brought up by
 * a child process that never holds up the boot, taken down before
 * switch_root unless rd.neednet=1.
 */
#ifndef RESCUE_NETWORK_H
#define RESCUE_NETWORK_H

#include <stdbool.h>

#include "rescue-init.h"

/* udhcpc's script: rescue-init under this name (network.c). */
#define NET_EVENT_NAME	"rescue-dhcp-event"

void net_init(const struct cmdline *c);
void net_end(void);
/* ip=dhcp when no ip= was given and a layer needs the network. */
void net_need(const char *why);
void net_report(devtable_line_fn *fn, void *ctx);

/* dropbear (sshd.c): started by the network's child on the IPv4
 * addresses of the interfaces configured (none: it says so), ended by
 * net_end(). */
void sshd_start(const char *const addrs[], size_t n);
void sshd_end(void);
int net_event_main(int argc, char *argv[]);

#endif
