// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_devtable.c: the device table of the failure report, from values
 * as blkid and sysfs give them (any bytes, any length within the fields).
 */
#include <stdio.h>

#include "fuzz.h"
#include "rescue-init.h"

static void discard(void *ctx, const char *line)
{
	(void)ctx;
	(void)strlen(line);
}

static void fill(char *field, size_t fsize, const uint8_t **data, size_t *size)
{
	char *s = fuzz_part(data, size, fsize - 1);

	if (s)
		snprintf(field, fsize, "%s", s);
	free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct blkdev devs[4];
	size_t n = 0;
	char human[16];

	memset(devs, 0, sizeof(devs));
	while (size && n < 4) {
		struct blkdev *d = &devs[n++];

		fill(d->name, sizeof(d->name), &data, &size);
		snprintf(d->node, sizeof(d->node), "/dev/%.60s", d->name);
		fill(d->type, sizeof(d->type), &data, &size);
		fill(d->uuid, sizeof(d->uuid), &data, &size);
		fill(d->label, sizeof(d->label), &data, &size);
		fill(d->partuuid, sizeof(d->partuuid), &data, &size);
		fill(d->partlabel, sizeof(d->partlabel), &data, &size);
		if (size >= 8) {
			memcpy(&d->sectors, data, 8);
			data += 8;
			size -= 8;
		}
		d->major = n * 7;
		d->partno = d->sectors & 3;
		devtable_human_size(d->sectors, human, sizeof(human));
	}
	devtable_format(devs, n, discard, NULL);
	return 0;
}
