/* SPDX-License-Identifier: GPL-2.0 */
/*
 * probe.h: what a probe worker (probework.c) learns about one block
 * device with libblkid (probe.c) and sends back to the process that
 * asked, one message each.
 */
#ifndef PROBE_H
#define PROBE_H

#include <stdbool.h>
#include <stdint.h>

#include "rescue-init.h"

#define PROBE_PARTS_MAX	128	/* a GPT's usual number of entries */

struct probe_answer {
	uint32_t seq;		/* the probe's number: which one answers */
	unsigned major, minor;
	char name[64];
	unsigned done;		/* PROBE_SB, PROBE_PT, PROBE_FULL: what it read */
	int err;		/* 0, or -errno: the device did not read */
	uint64_t bad_sector;	/* with -EIO: the first that fails, or UINT64_MAX */
	bool ambiguous;		/* more than one filesystem signature */
	char type[32], usage[16], uuid[64], label[256];
	char pttype[16];
	unsigned nparts;
	struct ptentry parts[PROBE_PARTS_MAX];	/* nparts of them are sent */
};

int probe_identify(const char *node, uint64_t sectors, unsigned what,
		   struct probe_answer *a);

#endif
