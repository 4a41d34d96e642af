// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_uevent.c: netlink uevent messages, as received: any bytes of any
 * length, and the sender checks on a forged address taken from them.
 */
#include <sys/socket.h>
#include <linux/netlink.h>

#include "fuzz.h"
#include "rescue-init.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sockaddr_nl from = { .nl_family = AF_NETLINK };
	struct ucred cred = { 0 };
	struct uevent ev;
	char *copy;

	if (size >= 9) {		/* the first bytes forge the sender */
		memcpy(&from.nl_pid, data, 4);
		memcpy(&from.nl_groups, data + 4, 4);
		cred.uid = data[8] & 1;
		uevent_accept(&from, data[8] & 2 ? 2 : sizeof(from), &cred, data[8] & 4);
	}
	/* An exact-size copy, so that ASan sees any read past the end. */
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	if (uevent_parse(copy, size, &ev) == 0 && ev.action && ev.devpath)
		(void)strlen(ev.action);
	free(copy);
	return 0;
}
