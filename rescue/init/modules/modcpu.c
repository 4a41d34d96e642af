// SPDX-License-Identifier: GPL-2.0
/*
 * modcpu.c: the modules made for CPU features that this CPU lacks.
 *
 * A module with an x86cpu device table (an alias "cpu:type:x86,...",
 * crc32c_intel's for SSE4.2, aesni_intel's for AES-NI) fails its init
 * with ENODEV on a CPU without the feature, and the kernel frees it after
 * an RCU grace period: crc32c_intel cost 40 ms of every boot under QEMU's
 * default CPU, named beside crc32c_generic by ext4's soft dependency on
 * crc32c.  When an alias names several modules, modload.c skips those
 * whose cpu: aliases all miss this CPU's modalias; a module asked for by
 * its own name still loads.
 */
#include <stdint.h>
#include <string.h>

#include "rescue-init.h"

#define CPU_ALIAS	"cpu:"

void modcpu_mark(const struct modindex *ix, const char *cpu_modalias,
		 bool *unusable)
{
	char norm[4096];
	size_t i;

	memset(unusable, 0, ix->nmods * sizeof(*unusable));
	if (!cpu_modalias || strncmp(cpu_modalias, CPU_ALIAS,
				     strlen(CPU_ALIAS)) ||
	    !modindex_normalize_alias(cpu_modalias, norm, sizeof(norm)))
		return;		/* no CPU to compare: skip nothing */
	/* Made for some CPU, until one of its aliases matches this one. */
	for (i = 0; i < ix->naliases; i++)
		if (ix->aliases[i].mod != SIZE_MAX &&
		    !strncmp(ix->aliases[i].pattern, CPU_ALIAS,
			     strlen(CPU_ALIAS)))
			unusable[ix->aliases[i].mod] = true;
	for (i = 0; i < ix->naliases; i++)
		if (ix->aliases[i].mod != SIZE_MAX &&
		    unusable[ix->aliases[i].mod] &&
		    modindex_alias_matches(&ix->aliases[i], norm))
			unusable[ix->aliases[i].mod] = false;
}
