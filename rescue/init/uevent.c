// SPDX-License-Identifier: GPL-2.0
/* uevent.c: kernel uevents from NETLINK_KOBJECT_UEVENT, parsed and checked. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/netlink.h>

#include "rescue-init.h"

#define UEVENT_KERNEL_GROUP	1	/* the kernel's; udev uses group 2 */

/* Open and bind the socket; open it before the first enumeration. */
int uevent_open(void)
{
	struct sockaddr_nl sa = {
		.nl_family = AF_NETLINK,
		.nl_groups = UEVENT_KERNEL_GROUP,
	};
	int fd, on = 1, size = 8 << 20;

	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
		    NETLINK_KOBJECT_UEVENT);
	if (fd < 0)
		return -errno;
	/* A burst of module loads must not overflow it; root may force. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)) ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/*
 * Whether a message comes from the kernel: sent by netlink port 0 to
 * the kernel's multicast group, with credentials of uid 0, and whole.
 */
bool uevent_accept(const struct sockaddr_nl *from, socklen_t fromlen,
		   const struct ucred *cred, int msg_flags)
{
	if (msg_flags & (MSG_TRUNC | MSG_CTRUNC))
		return false;
	if (!from || fromlen < sizeof(*from) || from->nl_family != AF_NETLINK)
		return false;
	if (from->nl_pid != 0 || from->nl_groups != UEVENT_KERNEL_GROUP)
		return false;
	return cred && cred->uid == 0;
}

static const char *key(const char *kv, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(kv, name, n) && kv[n] == '=' ? kv + n + 1 : NULL;
}

/*
 * Parse "ACTION@DEVPATH\0KEY=VALUE\0...": pointers into buf, which
 * must hold only NUL-terminated strings.  ACTION= and DEVPATH= must
 * agree with the header.  -EINVAL for anything else (libudev's
 * "libudev\0" messages included).
 */
int uevent_parse(const char *buf, size_t len, struct uevent *ev)
{
	const char *p, *end, *at, *v, *major = NULL, *minor = NULL;
	const char *action = NULL, *devpath = NULL;
	size_t hlen;

	memset(ev, 0, sizeof(*ev));
	if (!buf || len < 4 || len > UEVENT_BUFFER_SIZE || buf[len - 1] != '\0')
		return -EINVAL;
	end = buf + len;
	hlen = strlen(buf);
	at = memchr(buf, '@', hlen);
	if (!at || at == buf || at[1] != '/')
		return -EINVAL;
	for (p = buf + hlen + 1; p < end; p += strlen(p) + 1) {
		if (!*p || !strchr(p, '='))
			return -EINVAL;
		if ((v = key(p, "ACTION")))
			action = v;
		else if ((v = key(p, "DEVPATH")))
			devpath = v;
		else if ((v = key(p, "SUBSYSTEM")))
			ev->subsystem = v;
		else if ((v = key(p, "DEVTYPE")))
			ev->devtype = v;
		else if ((v = key(p, "DEVNAME")))
			ev->devname = v;
		else if ((v = key(p, "MODALIAS")))
			ev->modalias = v;
		else if ((v = key(p, "MAJOR")))
			major = v;
		else if ((v = key(p, "MINOR")))
			minor = v;
	}
	if (!action || !devpath || strlen(action) != (size_t)(at - buf) ||
	    strncmp(action, buf, at - buf) || strcmp(devpath, at + 1))
		return -EINVAL;
	ev->action = action;
	ev->devpath = devpath;
	if (major && minor) {
		char *e1, *e2;

		ev->major = (unsigned)strtoul(major, &e1, 10);
		ev->minor = (unsigned)strtoul(minor, &e2, 10);
		ev->has_devnum = !*e1 && !*e2 && *major && *minor;
	}
	return 0;
}

/*
 * One event: 0, -EAGAIN when none is queued, -ENOBUFS when events were
 * lost (the caller rescans), -EPERM or -EINVAL for one that was dropped.
 */
int uevent_receive(int fd, char *buf, size_t size, struct uevent *ev)
{
	char control[CMSG_SPACE(sizeof(struct ucred))];
	struct sockaddr_nl from;
	struct iovec iov = { .iov_base = buf, .iov_len = size };
	struct msghdr msg = {
		.msg_name = &from,
		.msg_namelen = sizeof(from),
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = control,
		.msg_controllen = sizeof(control),
	};
	const struct ucred *cred = NULL;
	struct cmsghdr *cm;
	ssize_t n;

	do
		n = recvmsg(fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm))
		if (cm->cmsg_level == SOL_SOCKET &&
		    cm->cmsg_type == SCM_CREDENTIALS &&
		    cm->cmsg_len == CMSG_LEN(sizeof(struct ucred)))
			cred = (const struct ucred *)CMSG_DATA(cm);
	if (!uevent_accept(&from, msg.msg_namelen, cred, msg.msg_flags))
		return -EPERM;
	return uevent_parse(buf, (size_t)n, ev);
}
