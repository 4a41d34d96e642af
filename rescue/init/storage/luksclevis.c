// SPDX-License-Identifier: GPL-2.0
/*
 * luksclevis.c: network-bound unlock.  A LUKS container bound with
 * `clevis luks bind -d DEV tang '{"url":...}'` (or sss over tang) is
 * opened with the key that Debian's clevis gets back from the tang
 * server: `clevis luks list -d NODE` names the slots and their pins,
 * `clevis luks pass -d NODE -s SLOT` prints the slot's key, which goes
 * to the cryptsetup open of storage-luks.c like a typed passphrase
 * (docs/decisions.md, "clevis and tang": pass, not unlock).  The
 * protocol (JOSE, the McCallum-Relyea exchange) stays clevis's and
 * jose's: nothing of it is written here.
 *
 * The network: a binding to tang waits for an interface with an IPv4
 * address (ip= brings it up in a child, net/network.c); with no ip= on
 * the command line it asks for ip=dhcp (net_need()), as dracut's clevis
 * module asks for rd.neednet=1.  No answer: one line naming the server
 * and the reason (no address; the TCP connect's error; else clevis's
 * own last line), then the passphrase prompt, which asks again every
 * LUKSCLEVIS_RETRY_S while it waits (luksprompt.c).
 *
 * The key is read from clevis's stdout into the caller's buffer, never
 * logged; clevis's stderr is (it names servers, not keys).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "luksclevis.h"
#include "net/network.h"
#include "storage.h"

#define CLEVIS		"/usr/bin/clevis"
#define CLEVIS_MAX	16		/* containers remembered */
#define CLEVIS_SLOTS	8
#define CLEVIS_RUN_S	20		/* one clevis run, at most */
#define CLEVIS_NET_S	30		/* the wait for an address */
#define CLEVIS_CONNECT_MS 3000
#define CLEVIS_LIST_MAX	4096
#define STR(x)		#x
#define RETRY_TEXT	XSTR(LUKSCLEVIS_RETRY_S)
#define XSTR(x)		STR(x)

struct bound {
	char node[80];
	bool tang;
	int slot[CLEVIS_SLOTS];
	size_t nslots;
	char url[200];			/* the first tang URL, for messages */
};

static struct bound bound[CLEVIS_MAX];
static size_t nbound;

/*
 * argv (argv[0] a full path) with stdout into out (never logged) and
 * stderr into err, both cut at their size, within CLEVIS_RUN_S: its
 * exit status, or -errno (-ETIMEDOUT: killed, its process group too).
 */
static int run(char *const argv[], char *out, size_t osize, size_t *olen,
	       char *err, size_t esize)
{
	static char *const envp[] = {
		"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C", NULL,
	};
	int op[2], ep[2], status = 0, r = 0, open_fds = 2;
	uint64_t end = log_now_us() + CLEVIS_RUN_S * 1000000ULL;
	size_t elen = 0;
	struct pollfd p[2];
	pid_t pid;
	ssize_t n;

	*olen = 0;
	if (pipe2(op, O_CLOEXEC))
		return -errno;
	if (pipe2(ep, O_CLOEXEC)) {
		r = -errno;
		close(op[0]);
		close(op[1]);
		return r;
	}
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

		shell_restore_signals();
		setpgid(0, 0);	/* curl and the rest go with it */
		if (dup2(null, 0) < 0 || dup2(op[1], 1) < 0 ||
		    dup2(ep[1], 2) < 0)
			_exit(127);
		execve(argv[0], argv, envp);
		_exit(127);
	}
	close(op[1]);
	close(ep[1]);
	if (pid < 0) {
		r = -errno;
		close(op[0]);
		close(ep[0]);
		return r;
	}
	p[0] = (struct pollfd){ .fd = op[0], .events = POLLIN };
	p[1] = (struct pollfd){ .fd = ep[0], .events = POLLIN };
	while (open_fds) {
		uint64_t now = log_now_us();

		if (now >= end) {
			r = -ETIMEDOUT;
			kill(-pid, SIGKILL);
			break;
		}
		if (poll(p, 2, (int)((end - now) / 1000) + 1) < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			kill(-pid, SIGKILL);
			break;
		}
		if (p[0].revents) {
			n = read(op[0], out + *olen, osize - *olen);
			if (n > 0 && (*olen += (size_t)n) == osize)
				n = 0;	/* full: the rest is not a key */
			if (n <= 0) {
				p[0].fd = -1;
				open_fds--;
			}
		}
		if (p[1].revents) {
			char junk[256];
			size_t room = elen + 1 < esize ? esize - 1 - elen : 0;

			n = read(ep[0], room ? err + elen : junk,
				 room ? room : sizeof(junk));
			if (n > 0 && room)
				elen += (size_t)n;
			if (n <= 0) {
				p[1].fd = -1;
				open_fds--;
			}
		}
	}
	err[elen] = '\0';
	close(op[0]);
	close(ep[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (r)
		return r;
	return WIFEXITED(status) ? WEXITSTATUS(status) :
	       128 + WTERMSIG(status);
}

/* The last non-empty line of text, for a message. */
static const char *last_line(char *text)
{
	char *end = text + strlen(text), *start;

	while (end > text && (end[-1] == '\n' || end[-1] == ' '))
		*--end = '\0';
	start = strrchr(text, '\n');
	return start ? start + 1 : text;
}

/* The first "url":"..." of a pin's configuration, into url. */
static void first_url(const char *conf, char *url, size_t size)
{
	const char *u = strstr(conf, "\"url\"");
	size_t n;

	if (!u || !(u = strchr(u + 5, '"')))
		return;
	u++;
	n = strcspn(u, "\"");
	snprintf(url, size, "%.*s", (int)n, u);
}

/*
 * `clevis luks list -d NODE`: "SLOT: PIN CONFIG" a line, for each
 * slot bound (nothing for a container with none).
 */
static void list_slots(struct bound *b)
{
	char *argv[] = { CLEVIS, "luks", "list", "-d", b->node, NULL };
	char out[CLEVIS_LIST_MAX], err[512], *line, *save = NULL, *end;
	size_t len;
	long slot;
	int r;

	r = run(argv, out, sizeof(out) - 1, &len, err, sizeof(err));
	out[len] = '\0';
	if (r) {
		/* no binding: clevis says so on stderr, status 1 */
		for (line = strtok_r(err, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save))
			log_info("luks: clevis luks list -d %s: %s", b->node,
				 line);
		if (r < 0)
			log_info("luks: clevis luks list -d %s: %s", b->node,
				 errtext(-r));
		return;
	}
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		slot = strtol(line, &end, 10);
		if (end == line || *end != ':' || slot < 0 ||
		    b->nslots == CLEVIS_SLOTS)
			continue;
		b->slot[b->nslots++] = (int)slot;
		if (strstr(end, "tang")) {
			b->tang = true;
			if (!b->url[0])
				first_url(end, b->url, sizeof(b->url));
		}
		log_info("luks: %s has a clevis binding in slot %ld:%s",
			 b->node, slot, end + 1);
	}
}

/* The container's entry, its bindings read once. */
static struct bound *lookup(const char *node)
{
	struct bound *b;
	struct stat st;
	size_t i;

	for (i = 0; i < nbound; i++)
		if (!strcmp(bound[i].node, node))
			return &bound[i];
	if (nbound == CLEVIS_MAX || stat(CLEVIS, &st))
		return NULL;	/* no clevis in this image: no binding */
	/* clevis's scripts run sed, grep, cut...: busybox's applets */
	toolkit_unpack("clevis");
	b = &bound[nbound++];
	memset(b, 0, sizeof(*b));
	snprintf(b->node, sizeof(b->node), "%s", node);
	list_slots(b);
	return b;
}

bool luksclevis_bound(const char *node)
{
	struct bound *b = lookup(node);

	return b && b->nslots;
}

/* An interface other than lo with an IPv4 address. */
static bool have_address(void)
{
	struct ifaddrs *all, *a;
	bool found = false;

	if (getifaddrs(&all))
		return false;
	for (a = all; a && !found; a = a->ifa_next)
		found = a->ifa_addr && a->ifa_addr->sa_family == AF_INET &&
			!(a->ifa_flags & IFF_LOOPBACK) &&
			(a->ifa_flags & IFF_UP);
	freeifaddrs(all);
	return found;
}

/* The network's address, waited for up to CLEVIS_NET_S the first time. */
static bool network_up(const struct bound *b, bool quiet)
{
	static bool waited;
	uint64_t end;

	if (have_address())
		return true;
	if (waited || quiet)
		return false;
	waited = true;
	modload_rest("the network of a tang binding");	/* the NIC's */
	net_need("a LUKS container bound to tang");
	log_info("luks: %s is bound to tang %s: waiting up to %d s for the "
		 "network", b->node, b->url, CLEVIS_NET_S);
	end = log_now_us() + CLEVIS_NET_S * 1000000ULL;
	while (log_now_us() < end && !have_address())
		usleep(200000);
	return have_address();
}

/*
 * Why the server of url did not answer, as the TCP connect to it says
 * ("Connection refused"); 0 when it connects: clevis's reason then.
 */
static int connect_error(const char *url)
{
	char host[200], port[8] = "80";
	struct addrinfo hint = { .ai_socktype = SOCK_STREAM }, *ai;
	const char *h = strstr(url, "://");
	struct pollfd p;
	socklen_t len = sizeof(int);
	int fd, r = 0;
	size_t n;

	h = h ? h + 3 : url;
	n = strcspn(h, ":/");
	snprintf(host, sizeof(host), "%.*s", (int)n, h);
	if (h[n] == ':')
		snprintf(port, sizeof(port), "%.*s", (int)strcspn(h + n + 1, "/"),
			 h + n + 1);
	if (getaddrinfo(host, port, &hint, &ai))
		return -EHOSTUNREACH;
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    0);
	if (fd < 0) {
		freeaddrinfo(ai);
		return -errno;
	}
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) && errno != EINPROGRESS) {
		r = -errno;
	} else {
		p = (struct pollfd){ .fd = fd, .events = POLLOUT };
		if (poll(&p, 1, CLEVIS_CONNECT_MS) <= 0)
			r = -ETIMEDOUT;
		else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &r, &len) || r)
			r = r ? -r : -errno;
	}
	close(fd);
	freeaddrinfo(ai);
	return r;
}

/* One slot's key: its length, or -EIO with clevis's reason in why. */
static int slot_key(struct bound *b, int slot, char *key, size_t size,
		    char *why, size_t wsize)
{
	char s[12], err[1024];
	char *argv[] = { CLEVIS, "luks", "pass", "-d", b->node, "-s", s, NULL };
	size_t len;
	int r;

	snprintf(s, sizeof(s), "%d", slot);
	r = run(argv, key, size, &len, err, sizeof(err));
	if (r == 0 && len > 0 && len < size)
		return (int)len;
	explicit_bzero(key, size);
	if (r < 0)
		snprintf(why, wsize, "clevis luks pass: %s", errtext(-r));
	else
		snprintf(why, wsize, "%s", r ? last_line(err) :
			 "clevis luks pass gave no key");
	return -EIO;
}

int luksclevis_key(const char *node, char *key, size_t size, bool quiet)
{
	struct bound *b = lookup(node);
	char why[300] = "";
	size_t i;
	int n = -ENOENT, c;

	if (!b || !b->nslots)
		return -ENOENT;
	if (b->tang && !network_up(b, quiet)) {
		if (!quiet)
			log_warn("luks: tang %s did not open %s: no network (no "
				 "interface has an IPv4 address; ip=); asking for "
				 "the passphrase, and tang again every %d s",
				 b->url, node, LUKSCLEVIS_RETRY_S);
		return -ENETUNREACH;
	}
	for (i = 0; i < b->nslots; i++) {
		n = slot_key(b, b->slot[i], key, size, why, sizeof(why));
		if (n > 0)
			return n;
	}
	if (quiet)
		return n;
	c = b->tang ? connect_error(b->url) : 0;
	log_warn("luks: %s%s did not open %s: %s; asking for the passphrase%s",
		 b->tang ? "tang " : "clevis", b->tang ? b->url : "", node,
		 c ? errtext(-c) : why,
		 b->tang ? ", and tang again every " RETRY_TEXT " s" : "");
	return n;
}

void luksclevis_opened(const char *node)
{
	struct bound *b = lookup(node);
	bool tang = b && b->tang;

	log_info("luks: %s unlocked by clevis%s%s, no passphrase typed", node,
		 tang ? " with tang " : "", tang ? b->url : "");
	shell_lock_engage(tang ? "tang" : "clevis");
}
