// SPDX-License-Identifier: GPL-2.0
/*
 * ipconf.c: the ip= parameter.  Three spellings are in use, and all are
 * taken here:
 *
 *   ip=dhcp | on | any | both | off | none        the kernel's and dracut's
 *   ip=IFACE:dhcp[:MTU]                           dracut's
 *   ip=CLIENT:SERVER:GW:NETMASK:HOSTNAME:DEVICE:AUTOCONF[:DNS0[:DNS1[:NTP]]]
 *                                                 the kernel's (nfsroot.rst),
 *      with dracut's [:MTU] in place of DNS0
 *
 * Like the kernel's ipconfig.c, a client address with no AUTOCONF is a
 * static configuration, the netmask defaults to the address's class,
 * and SERVER and NTP are not used (there is no NFS root here).  What we
 * cannot do (IPv6, iBFT, RARP and BOOTP without DHCP, a new MAC address)
 * is an error that names the field, not a silent guess.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arraysize.h"
#include "ipconf.h"

#define IPCONF_FIELDS	10

static int bad(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* A method word: 1 and *m set, 0 not one, -EINVAL one we cannot do. */
static int method_word(const char *w, enum ip_method *m, char *err,
		       size_t errlen)
{
	static const char *const dhcp[] = { "dhcp", "on", "any", "both" };
	static const char *const v6[] = { "dhcp6", "auto6", "either6",
					  "link6", "ibft" };
	size_t i;

	if (!strcmp(w, "off") || !strcmp(w, "none")) {
		*m = IP_OFF;
		return 1;
	}
	for (i = 0; i < ARRAY_SIZE(dhcp); i++)
		if (!strcmp(w, dhcp[i])) {
			*m = IP_DHCP;
			return 1;
		}
	for (i = 0; i < ARRAY_SIZE(v6); i++)
		if (!strcmp(w, v6[i]))
			return bad(err, errlen, "ip=...%s: IPv6 and iBFT "
				   "configuration is not supported, only "
				   "DHCP and static IPv4", w);
	if (!strcmp(w, "bootp") || !strcmp(w, "rarp"))
		return bad(err, errlen, "ip=...%s: only DHCP is supported "
			   "(ip=dhcp)", w);
	return 0;
}

static int address(const char *what, const char *s, struct in_addr *a,
		   char *err, size_t errlen)
{
	if (inet_pton(AF_INET, s, a) != 1)
		return bad(err, errlen, "ip=: %s \"%s\" is not an IPv4 "
			   "address", what, s);
	return 0;
}

/* The netmask of the address's class, as the kernel's ic_defaults(). */
static struct in_addr class_netmask(struct in_addr a)
{
	uint32_t h = ntohl(a.s_addr);
	struct in_addr m;

	if ((h & 0x80000000u) == 0)
		m.s_addr = htonl(0xff000000u);
	else if ((h & 0xc0000000u) == 0x80000000u)
		m.s_addr = htonl(0xffff0000u);
	else
		m.s_addr = htonl(0xffffff00u);
	return m;
}

static int interface(const char *s, struct ip_conf *out, char *err,
		     size_t errlen)
{
	if (strlen(s) >= sizeof(out->iface) || strchr(s, '/') ||
	    !strcmp(s, ".") || !strcmp(s, ".."))
		return bad(err, errlen, "ip=: \"%s\" is not an interface "
			   "name", s);
	memcpy(out->iface, s, strlen(s) + 1);	/* length checked above */
	return 0;
}

static int mtu(const char *s, struct ip_conf *out, char *err, size_t errlen)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (!*s || *end || v < 68 || v > 65535)
		return bad(err, errlen, "ip=: MTU \"%s\" is not a number from "
			   "68 to 65535", s);
	out->mtu = (unsigned)v;
	return 0;
}

static bool is_number(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s);
}

/* dracut's IFACE:METHOD[:MTU[:MAC]]. */
static int parse_iface_form(char **f, size_t n, enum ip_method m,
			    struct ip_conf *out, char *err, size_t errlen)
{
	int r = interface(f[0], out, err, errlen);

	if (r)
		return r;
	out->method = m;
	if (n > 2 && *f[2] && (r = mtu(f[2], out, err, errlen)))
		return r;
	if (n > 3)
		return bad(err, errlen, "ip=%s:...: setting the MAC address "
			   "is not supported", f[0]);
	return 0;
}

/* The kernel's and dracut's long form, fields f[0..n-1]. */
static int parse_long_form(char **f, size_t n, struct ip_conf *out,
			   char *err, size_t errlen)
{
	const char *auto_word = n > 6 ? f[6] : "";
	bool client = *f[0] != '\0';
	enum ip_method m;
	size_t i;
	int r;

	if (client && (r = address("client address", f[0], &out->addr,
				   err, errlen)))
		return r;
	/* f[1], the NFS server, is of no use here. */
	if (n > 2 && *f[2] && (r = address("gateway", f[2], &out->gateway,
					   err, errlen)))
		return r;
	if (n > 3 && *f[3] && (r = address("netmask", f[3], &out->netmask,
					   err, errlen)))
		return r;
	if (n > 4 && *f[4]) {
		if (strlen(f[4]) >= sizeof(out->hostname))
			return bad(err, errlen, "ip=: the host name is longer "
				   "than %zu characters",
				   sizeof(out->hostname) - 1);
		memcpy(out->hostname, f[4], strlen(f[4]) + 1);
	}
	if (n > 5 && *f[5] && (r = interface(f[5], out, err, errlen)))
		return r;

	if (!*auto_word) {
		m = client ? IP_STATIC : IP_DHCP;
	} else if (!strcmp(auto_word, "static")) {
		m = IP_STATIC;
	} else {
		r = method_word(auto_word, &m, err, errlen);
		if (r < 0)
			return r;
		if (!r)
			return bad(err, errlen, "ip=: autoconf \"%s\" is not "
				   "one of off, none, static, dhcp, on, any",
				   auto_word);
		if (m == IP_OFF && client)
			m = IP_STATIC;	/* the kernel's: no autoconf */
	}
	if (m == IP_STATIC && !client)
		return bad(err, errlen, "ip=: a static configuration needs "
			   "the client address (the first field)");
	out->method = m;

	/* f[7]: the kernel's DNS0, or dracut's MTU (then f[8..] a MAC). */
	if (n > 7 && is_number(f[7])) {
		if ((r = mtu(f[7], out, err, errlen)))
			return r;
		if (n > 8)
			return bad(err, errlen, "ip=: setting the MAC address "
				   "is not supported");
		return 0;
	}
	for (i = 7; i < n && i < 9; i++) {
		if (!*f[i])
			continue;
		if ((r = address("DNS server", f[i], &out->dns[out->ndns],
				 err, errlen)))
			return r;
		out->ndns++;
	}
	/* f[9], an NTP server, is of no use here either. */
	return 0;
}

int ipconf_parse(const char *spec, struct ip_conf *out, char *err,
		 size_t errlen)
{
	char buf[256], *f[IPCONF_FIELDS], *p;
	enum ip_method m;
	size_t n = 0;
	int r;

	memset(out, 0, sizeof(*out));
	if (!spec || !*spec)
		return bad(err, errlen, "ip= is empty");
	if (strlen(spec) >= sizeof(buf))
		return bad(err, errlen, "ip= is longer than %zu characters",
			   sizeof(buf) - 1);
	memcpy(buf, spec, strlen(spec) + 1);
	for (p = buf; n < IPCONF_FIELDS; n++) {
		f[n] = p;
		p = strchr(p, ':');
		if (!p) {
			n++;
			break;
		}
		*p++ = '\0';
	}
	if (p)	/* more fields than any form has: a MAC, or garbage */
		return bad(err, errlen, "ip=%s: too many fields", spec);

	if (n == 1) {
		r = method_word(f[0], &m, err, errlen);
		if (r < 0)
			return r;
		if (r) {
			out->method = m;
			return 0;
		}
		/* ip=CLIENT: the kernel takes the short form too. */
	} else if (*f[0] && inet_pton(AF_INET, f[0], &out->addr) != 1) {
		r = method_word(f[1], &m, err, errlen);
		if (r < 0)
			return r;
		if (r)
			return parse_iface_form(f, n, m, out, err, errlen);
	}
	r = parse_long_form(f, n, out, err, errlen);
	if (!r && out->method == IP_STATIC && !out->netmask.s_addr)
		out->netmask = class_netmask(out->addr);
	return r;
}

void ipconf_describe(const struct ip_conf *c, char *buf, size_t size)
{
	char a[INET_ADDRSTRLEN], g[INET_ADDRSTRLEN];
	const char *on = *c->iface ? c->iface : "the first Ethernet interface";
	int bits = __builtin_popcount(c->netmask.s_addr);

	switch (c->method) {
	case IP_OFF:
		snprintf(buf, size, "off");
		break;
	case IP_DHCP:
		snprintf(buf, size, "DHCP on %s", on);
		break;
	case IP_STATIC:
		inet_ntop(AF_INET, &c->addr, a, sizeof(a));
		inet_ntop(AF_INET, &c->gateway, g, sizeof(g));
		snprintf(buf, size, "%s/%d%s%s on %s", a, bits,
			 c->gateway.s_addr ? " via " : "",
			 c->gateway.s_addr ? g : "", on);
		break;
	}
}
