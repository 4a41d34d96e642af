/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ipconf.h: the ip= parameter, in the kernel's form
 * (Documentation/admin-guide/nfs/nfsroot.rst) and in dracut's
 * (dracut.cmdline(7)), parsed into what network.c configures.
 */
#ifndef RESCUE_IPCONF_H
#define RESCUE_IPCONF_H

#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>

enum ip_method {
	IP_OFF,		/* ip=off, ip=none: no network */
	IP_DHCP,	/* ip=dhcp, on, any, both; IFACE:dhcp */
	IP_STATIC,	/* a client address and no autoconf */
};

struct ip_conf {
	enum ip_method method;
	char iface[IFNAMSIZ];	/* "": the first Ethernet interface */
	struct in_addr addr, gateway, netmask, dns[2];
	unsigned ndns;
	char hostname[65];
	unsigned mtu;		/* 0: the driver's */
};

/*
 * Parse one ip= value.  0, or -EINVAL with a line in err that names the
 * field and why (an IPv6 or iBFT method, a bad address, a name too long).
 */
int ipconf_parse(const char *spec, struct ip_conf *out, char *err,
		 size_t errlen);

/* "dhcp on eth0", "10.0.2.15/24 via 10.0.2.2 on any": for the log. */
void ipconf_describe(const struct ip_conf *c, char *buf, size_t size);

#endif
