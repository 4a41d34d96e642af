// SPDX-License-Identifier: GPL-2.0
/*
 * network.c: the network, when the command line asks for it (ip=).
 *
 * Nothing here may hold up a boot that does not need the network, so
 * the work is done by a child process of rescue-init: it waits for the
 * interface (by uevent, as the disks are waited for), brings it up and
 * configures it, statically with ioctls or by DHCP with busybox's
 * udhcpc.  udhcpc is the one DHCP client that is in every image
 * already (the rescue shell is busybox); it calls a script on each
 * lease, and that script is rescue-init itself under the name
 * NET_EVENT_NAME, so that the address, route and resolv.conf are set by
 * the same code for a lease as for ip=CLIENT:...: no shell script, no
 * ifconfig parsing.
 *
 * Before switch_root the child and udhcpc are ended and the interfaces
 * taken down, so that nothing of the rescue system lives on in the real
 * root; rd.neednet=1 keeps their configuration for the real root (a
 * network root, or a systemd-networkd that takes over), as dracut does.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <net/if.h>
#include <net/route.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ipconf.h"
#include "network.h"
#include "rescue-init.h"
#include "readfile.h"

#define NET_MAX_CONFS		4
#define NET_IFACE_WAIT_S	10	/* rd.net.timeout.ifup= */
#define NET_DHCP_TRIES		4	/* udhcpc -t: discovers, 3 s apart */
#define NET_EVENT_LINK		RESCUE_RUN_DIR "/" NET_EVENT_NAME
#define UDHCPC			"/bin/busybox"

static struct ip_conf confs[NET_MAX_CONFS];
static size_t nconfs;
static bool keep;		/* rd.neednet=1: configured for the real root */
static int iface_wait_s = NET_IFACE_WAIT_S;
static pid_t child = -1;
/* The kernel's hostname before ip= or a lease set one: the real root's. */
static struct utsname before;

/* A positive decimal number (sysfs, the command line, udhcpc's env), or 0. */
static unsigned positive(const char *s)
{
	char *end;
	unsigned long v;

	if (!s)
		return 0;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || (*end && *end != '\n') || v > 65535)
		return 0;
	return (unsigned)v;
}

/* An interface name into a buffer of IFNAMSIZ or more, cut if longer. */
static void name_copy(char *dst, size_t size, const char *src)
{
	size_t n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* ioctl() on an AF_INET datagram socket, for one interface. */
static int if_ioctl(unsigned long req, struct ifreq *ifr)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), r;

	if (fd < 0)
		return -errno;
	r = ioctl(fd, req, ifr) < 0 ? -errno : 0;
	close(fd);
	return r;
}

static void ifr_init(struct ifreq *ifr, const char *iface)
{
	memset(ifr, 0, sizeof(*ifr));
	name_copy(ifr->ifr_name, sizeof(ifr->ifr_name), iface);
}

/* An interface's IPv4 address as text: 0, or -errno (none: -EADDRNOTAVAIL). */
static int if_addr_text(const char *iface, char *buf, size_t size)
{
	struct ifreq ifr;
	int r;

	ifr_init(&ifr, iface);
	r = if_ioctl(SIOCGIFADDR, &ifr);
	if (r)
		return r;
	if (!inet_ntop(AF_INET, &((struct sockaddr_in *)&ifr.ifr_addr)->sin_addr,
		       buf, (socklen_t)size))
		return -errno;
	return 0;
}

static int if_set_addr(const char *iface, unsigned long req,
		       struct in_addr a)
{
	struct ifreq ifr;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ifr.ifr_addr;

	ifr_init(&ifr, iface);
	sin->sin_family = AF_INET;
	sin->sin_addr = a;
	return if_ioctl(req, &ifr);
}

static int if_up_down(const char *iface, bool up)
{
	struct ifreq ifr;
	int r;

	ifr_init(&ifr, iface);
	r = if_ioctl(SIOCGIFFLAGS, &ifr);
	if (r)
		return r;
	if (up)
		ifr.ifr_flags |= IFF_UP;
	else
		ifr.ifr_flags &= ~IFF_UP;
	return if_ioctl(SIOCSIFFLAGS, &ifr);
}

static int add_default_route(const char *iface, struct in_addr gw)
{
	struct rtentry rt;
	struct sockaddr_in *sin;
	char dev[IFNAMSIZ];
	int fd, r;

	memset(&rt, 0, sizeof(rt));
	name_copy(dev, sizeof(dev), iface);
	sin = (struct sockaddr_in *)&rt.rt_dst;
	sin->sin_family = AF_INET;
	sin = (struct sockaddr_in *)&rt.rt_genmask;
	sin->sin_family = AF_INET;
	sin = (struct sockaddr_in *)&rt.rt_gateway;
	sin->sin_family = AF_INET;
	sin->sin_addr = gw;
	rt.rt_flags = RTF_UP | RTF_GATEWAY;
	rt.rt_dev = dev;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	r = ioctl(fd, SIOCADDRT, &rt) < 0 && errno != EEXIST ? -errno : 0;
	close(fd);
	return r;
}

static void write_resolv_conf(const struct ip_conf *c)
{
	char a[INET_ADDRSTRLEN];
	unsigned i;
	FILE *f;

	if (!c->ndns)
		return;
	mkdir("/etc", 0755);
	f = fopen("/etc/resolv.conf", "we");
	if (!f) {
		log_warn("network: unable to write /etc/resolv.conf: %s",
			 errtext(errno));
		return;
	}
	for (i = 0; i < c->ndns; i++)
		fprintf(f, "nameserver %s\n",
			inet_ntop(AF_INET, &c->dns[i], a, sizeof(a)));
	fclose(f);
}

/* Address, netmask, MTU, route, DNS and host name of c on its iface. */
static int configure(const struct ip_conf *c, const char *how)
{
	char desc[200], a[INET_ADDRSTRLEN];
	unsigned i;
	struct ifreq ifr;
	int r;

	r = if_set_addr(c->iface, SIOCSIFADDR, c->addr);
	if (!r)
		r = if_set_addr(c->iface, SIOCSIFNETMASK, c->netmask);
	if (r) {
		log_error("network: unable to set the address of %s: %s",
			  c->iface, errtext(-r));
		return r;
	}
	if (c->mtu) {
		ifr_init(&ifr, c->iface);
		ifr.ifr_mtu = (int)c->mtu;
		r = if_ioctl(SIOCSIFMTU, &ifr);
		if (r)
			log_warn("network: unable to set the MTU of %s to %u: "
				 "%s", c->iface, c->mtu, errtext(-r));
	}
	if (c->gateway.s_addr) {
		r = add_default_route(c->iface, c->gateway);
		if (r)
			log_warn("network: unable to add the default route "
				 "via %s: %s", inet_ntoa(c->gateway),
				 errtext(-r));
	}
	write_resolv_conf(c);
	if (*c->hostname && sethostname(c->hostname, strlen(c->hostname)))
		log_warn("network: unable to set the host name %s: %s",
			 c->hostname, errtext(errno));
	ipconf_describe(c, desc, sizeof(desc));
	for (i = 0; i < c->ndns; i++)
		snprintf(desc + strlen(desc), sizeof(desc) - strlen(desc),
			 "%s%s", i ? " " : ", DNS ",
			 inet_ntop(AF_INET, &c->dns[i], a, sizeof(a)));
	log_info("network: %s (%s)", desc, how);
	return 0;
}

/* An Ethernet interface of a device (not lo, not a virtual one). */
static bool is_ethernet(const char *iface)
{
	char path[300], type[16];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/class/net/%s/type", iface);
	if (readfile_into(path, type, sizeof(type), NULL) ||
	    positive(type) != 1 /* ARPHRD_ETHER */)
		return false;
	snprintf(path, sizeof(path), "/sys/class/net/%s/device", iface);
	return stat(path, &st) == 0;
}

/* c's interface if it is there (the first Ethernet one for "any"). */
static bool find_iface(const struct ip_conf *c, char *out, size_t size)
{
	char path[300];
	struct dirent *e;
	struct stat st;
	bool found = false;
	DIR *d;

	if (*c->iface) {
		snprintf(path, sizeof(path), "/sys/class/net/%s", c->iface);
		if (stat(path, &st))
			return false;
		name_copy(out, size, c->iface);
		return true;
	}
	d = opendir("/sys/class/net");
	if (!d)
		return false;
	/* The lowest name: eth0 before eth1, as the kernel numbers them. */
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && is_ethernet(e->d_name) &&
		    (!found || strcmp(e->d_name, out) < 0)) {
			name_copy(out, size, e->d_name);
			found = true;
		}
	closedir(d);
	return found;
}

/* Wait for c's interface, by uevent, at most iface_wait_s. */
static bool wait_iface(const struct ip_conf *c, int ufd, char *out,
		       size_t size)
{
	uint64_t end = log_now_us() + iface_wait_s * 1000000ULL, now;
	char buf[UEVENT_BUFFER_SIZE];
	struct pollfd p = { .fd = ufd, .events = POLLIN };
	struct uevent ev;

	while (!find_iface(c, out, size)) {
		now = log_now_us();
		if (ufd < 0 || now >= end)
			return false;
		if (poll(&p, 1, (int)((end - now) / 1000) + 1) > 0)
			while (uevent_receive(ufd, buf, sizeof(buf), &ev) >= 0)
				;	/* any event: look again */
	}
	return true;
}

/* udhcpc on iface, in the foreground; its events come to net_event_main. */
static int run_dhcp(const struct ip_conf *c, const char *iface)
{
	char tries[16], host[80];
	const char *argv[16];
	int n = 0, status;
	pid_t pid;

	toolkit_unpack("DHCP");
	if (access(UDHCPC, X_OK)) {
		log_error("network: no DHCP client in this image (%s udhcpc "
			  "is missing): ip=dhcp cannot be done", UDHCPC);
		return -ENOENT;
	}
	mkdir(RESCUE_RUN_DIR, 0755);
	unlink(NET_EVENT_LINK);
	if (symlink("/init", NET_EVENT_LINK)) {
		log_error("network: unable to make %s: %s", NET_EVENT_LINK,
			  errtext(errno));
		return -errno;
	}
	snprintf(tries, sizeof(tries), "%d", NET_DHCP_TRIES);
	argv[n++] = "udhcpc";
	argv[n++] = "-i";
	argv[n++] = iface;
	argv[n++] = "-f";	/* foreground: our child, ended with us */
	argv[n++] = "-q";	/* done once bound */
	argv[n++] = "-n";	/* no lease after the tries: exit 1 */
	argv[n++] = "-t";
	argv[n++] = tries;
	argv[n++] = "-T";
	argv[n++] = "3";
	argv[n++] = "-s";
	argv[n++] = NET_EVENT_LINK;
	if (*c->hostname) {
		snprintf(host, sizeof(host), "hostname:%s", c->hostname);
		argv[n++] = "-x";
		argv[n++] = host;
	}
	argv[n] = NULL;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		setenv("RESCUE_NET_MTU", "", 1);
		if (c->mtu) {
			snprintf(tries, sizeof(tries), "%u", c->mtu);
			setenv("RESCUE_NET_MTU", tries, 1);
		}
		execv(UDHCPC, (char *const *)argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EIO;
}

/*
 * IPv6 on an interface we bring up: off.  ip= configures IPv4 only, and
 * with IPv6 on, the first router advertisement would give the rescue
 * system a global address that nobody asked for (and that a listening
 * dropbear would answer on).  The real root gets the kernel's default
 * back: restore_ipv6().  A kernel without IPv6 has no such file.
 */
static void ipv6_set_disabled(const char *iface, const char *value)
{
	char path[96];
	int fd;
	ssize_t w;

	snprintf(path, sizeof(path), "/proc/sys/net/ipv6/conf/%s/disable_ipv6",
		 iface);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	w = write(fd, value, strlen(value));
	(void)w;
	close(fd);
}

static void restore_ipv6(const char *iface, void *ctx)
{
	char def[4] = "0";
	int fd = open("/proc/sys/net/ipv6/conf/default/disable_ipv6",
		      O_RDONLY | O_CLOEXEC);

	(void)ctx;
	if (fd < 0)
		return;		/* no IPv6 in this kernel */
	if (read(fd, def, 1) != 1)
		def[0] = '0';
	close(fd);
	def[1] = '\0';
	ipv6_set_disabled(iface, def);
}

/* dropbear, if the image has it, on the addresses of the interfaces up. */
static void start_sshd(const char *const ifaces[], size_t n)
{
	static char text[NET_MAX_CONFS][INET_ADDRSTRLEN];
	const char *addrs[NET_MAX_CONFS];
	size_t i, naddr = 0;

	for (i = 0; i < n && i < NET_MAX_CONFS; i++) {
		if (if_addr_text(ifaces[i], text[naddr], sizeof(text[0])))
			continue;
		addrs[naddr] = text[naddr];
		naddr++;
	}
	sshd_start(addrs, naddr);
}

/* The child: each ip= in turn, then SSH if the image has it. */
static int net_child(void)
{
	char iface[IFNAMSIZ];
	static char up[NET_MAX_CONFS][IFNAMSIZ];
	const char *configured[NET_MAX_CONFS];
	struct ip_conf c;
	uint64_t start;
	size_t i, nup = 0;
	int ufd = uevent_open(), r, failed = 0;

	if_up_down("lo", true);
	for (i = 0; i < nconfs; i++) {
		c = confs[i];
		if (c.method == IP_OFF)
			continue;
		start = log_now_us();
		if (!wait_iface(&c, ufd, iface, sizeof(iface))) {
			log_warn("network: no %s%s after %d s (is its driver "
				 "in the image?); the boot goes on without "
				 "the network",
				 *c.iface ? "interface " : "Ethernet interface",
				 c.iface, iface_wait_s);
			failed++;
			continue;
		}
		name_copy(c.iface, sizeof(c.iface), iface);
		ipv6_set_disabled(c.iface, "1");
		r = if_up_down(c.iface, true);
		if (r) {
			log_error("network: unable to bring %s up: %s",
				  c.iface, errtext(-r));
			failed++;
			continue;
		}
		if (c.method == IP_STATIC) {
			if (configure(&c, "static")) {
				failed++;
				continue;
			}
			name_copy(up[nup], sizeof(up[0]), c.iface);
			configured[nup] = up[nup];
			nup++;
			continue;
		}
		r = run_dhcp(&c, c.iface);
		if (r == -EIO) {
			log_warn("network: no DHCP lease on %s after %.1f s; "
				 "the boot goes on without the network",
				 c.iface, (log_now_us() - start) / 1e6);
		}
		if (r) {
			failed++;
			continue;
		}
		name_copy(up[nup], sizeof(up[0]), c.iface);
		configured[nup] = up[nup];
		nup++;
	}
	if (nup)
		start_sshd(configured, nup);
	return failed ? 1 : 0;
}

static void net_start(void);

void net_init(const struct cmdline *c)
{
	const char *specs[NET_MAX_CONFS];
	unsigned wait_s;
	char err[256];
	size_t i, n;

	/* Again after a failed exec of the real init: from scratch. */
	nconfs = 0;
	n = cmdline_get_all(c, "ip", specs, NET_MAX_CONFS);
	keep = cmdline_flag(c, "rd.neednet", false);
	if ((wait_s = positive(cmdline_get(c, "rd.net.timeout.ifup"))))
		iface_wait_s = (int)wait_s;
	for (i = 0; i < n; i++) {
		if (ipconf_parse(specs[i], &confs[nconfs], err, sizeof(err))) {
			log_error("network: %s; ignoring ip=%s", err, specs[i]);
			continue;
		}
		if (confs[nconfs].method != IP_OFF)
			nconfs++;
	}
	if (nconfs)
		net_start();
}

/* The child that brings the network up (net_child()). */
static void net_start(void)
{
	uname(&before);
	child = fork();
	if (child < 0) {
		log_error("network: unable to start: %s", errtext(errno));
		return;
	}
	if (child == 0) {
		sigset_t all;

		/* PID 1 blocks signals; net_end() ends us with SIGTERM. */
		sigfillset(&all);
		sigprocmask(SIG_UNBLOCK, &all, NULL);
		signal(SIGTERM, SIG_DFL);
		setpgid(0, 0);	/* udhcpc goes with us: see net_end() */
		_exit(net_child());
	}
}

/*
 * A layer needs the network (a LUKS container bound to tang) and the
 * command line gave no ip=: ip=dhcp, as dracut's clevis module asks for
 * the network (rd.neednet=1).  Nothing when ip= started it already, nor
 * in rescue-mount (a shell's network is its user's).
 */
void net_need(const char *why)
{
	char err[256];

	if (getpid() != 1 || nconfs || child > 0 ||
	    ipconf_parse("dhcp", &confs[0], err, sizeof(err)))
		return;
	nconfs = 1;
	log_info("network: ip=dhcp for %s (no ip= on the command line)", why);
	net_start();
}

/* fn(name, ctx) for each interface but lo, in /sys/class/net order. */
static void for_each_interface(void (*fn)(const char *name, void *ctx),
			       void *ctx)
{
	struct dirent *e;
	DIR *d = opendir("/sys/class/net");

	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && strcmp(e->d_name, "lo"))
			fn(e->d_name, ctx);
	closedir(d);
}

/* An interface down, its address gone (and its routes with it). */
static void take_down(const char *iface, void *ctx)
{
	struct in_addr none = { 0 };

	(void)ctx;
	if_set_addr(iface, SIOCSIFADDR, none);
	if_up_down(iface, false);
}

void net_end(void)
{
	int status;

	if (child > 0) {
		if (keep) {
			/*
			 * The real root needs the network: wait for the
			 * child, whose waits are bounded (the interface
			 * wait, then udhcpc's tries).
			 */
			log_info("network: rd.neednet=1: waiting for the "
				 "network before switching root");
		} else {
			/* The group: udhcpc too, if it still waits. */
			kill(-child, SIGTERM);
			kill(child, SIGTERM);
		}
		while (waitpid(child, &status, 0) < 0 && errno == EINTR)
			;
		child = -1;
	}
	sshd_end();
	if (!nconfs)
		return;
	for_each_interface(restore_ipv6, NULL);
	if (keep) {
		log_info("network: rd.neednet=1: the interfaces stay "
			 "configured for the real root");
		return;
	}
	for_each_interface(take_down, NULL);
	unlink("/etc/resolv.conf");
	/* A hostname from ip= or untrusted DHCP must not outlive us. */
	if (*before.nodename &&
	    sethostname(before.nodename, strlen(before.nodename)))
		log_warn("network: unable to give the hostname back: %s",
			 errtext(errno));
	log_info("network: interfaces taken down before switching root "
		 "(rd.neednet=1 keeps them)");
}

/*
 * udhcpc's script: argv[1] is the event, the lease is in the
 * environment (ip, subnet, router, dns, hostname, interface).
 */
int net_event_main(int argc, char *argv[])
{
	const char *ev = argc > 1 ? argv[1] : "", *v;
	struct ip_conf c = { .method = IP_STATIC };
	char list[256], *tok, *save;
	struct in_addr none = { 0 };

	log_open();
	v = getenv("interface");
	if (!v || strlen(v) >= sizeof(c.iface))
		return 1;
	memcpy(c.iface, v, strlen(v) + 1);	/* length checked above */
	if (!strcmp(ev, "deconfig")) {
		if_set_addr(c.iface, SIOCSIFADDR, none);
		return 0;
	}
	if (strcmp(ev, "bound") && strcmp(ev, "renew"))
		return 0;	/* leasefail, nak: udhcpc tries again */
	if (!(v = getenv("ip")) || inet_pton(AF_INET, v, &c.addr) != 1)
		return 1;
	if ((v = getenv("subnet")))
		inet_pton(AF_INET, v, &c.netmask);
	if ((v = getenv("router"))) {
		snprintf(list, sizeof(list), "%s", v);
		if ((tok = strtok_r(list, " ", &save)))
			inet_pton(AF_INET, tok, &c.gateway);
	}
	if ((v = getenv("dns"))) {
		snprintf(list, sizeof(list), "%s", v);
		for (tok = strtok_r(list, " ", &save); tok && c.ndns < 2;
		     tok = strtok_r(NULL, " ", &save))
			if (inet_pton(AF_INET, tok, &c.dns[c.ndns]) == 1)
				c.ndns++;
	}
	if ((v = getenv("hostname")))
		snprintf(c.hostname, sizeof(c.hostname), "%s", v);
	c.mtu = positive(getenv("RESCUE_NET_MTU"));
	return configure(&c, "DHCP") ? 1 : 0;
}

struct report_ctx {
	devtable_line_fn *fn;
	void *ctx;
};

/* One interface's line: MAC, link, IPv4 address, driver. */
static void report_interface(const char *name, void *arg)
{
	const struct report_ctx *r = arg;
	char path[300], mac[32], state[32], line[300], drv[300], *base;
	char a[INET_ADDRSTRLEN];
	struct ifreq ifr;
	ssize_t len;
	int bits = -1;

	snprintf(path, sizeof(path), "/sys/class/net/%s/address", name);
	if (readfile_into(path, mac, sizeof(mac), NULL))
		strcpy(mac, "?");
	mac[strcspn(mac, "\n")] = '\0';
	snprintf(path, sizeof(path), "/sys/class/net/%s/operstate", name);
	if (readfile_into(path, state, sizeof(state), NULL))
		strcpy(state, "?");
	state[strcspn(state, "\n")] = '\0';
	snprintf(path, sizeof(path), "/sys/class/net/%s/device/driver", name);
	len = readlink(path, drv, sizeof(drv) - 1);
	drv[len > 0 ? len : 0] = '\0';
	base = strrchr(drv, '/');
	strcpy(a, "no address");
	if (!if_addr_text(name, a, sizeof(a))) {
		ifr_init(&ifr, name);
		if (!if_ioctl(SIOCGIFNETMASK, &ifr))
			bits = __builtin_popcount(((struct sockaddr_in *)
				&ifr.ifr_netmask)->sin_addr.s_addr);
	}
	snprintf(line, sizeof(line), "net %s: %s, link %s, %s", name, mac,
		 state, a);
	if (bits >= 0)
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
			 "/%d", bits);
	if (base)
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
			 ", driver %s", base + 1);
	r->fn(r->ctx, line);
}

/* One line per interface for the device table. */
void net_report(devtable_line_fn *fn, void *ctx)
{
	struct report_ctx r = { fn, ctx };

	for_each_interface(report_interface, &r);
}
