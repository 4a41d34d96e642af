// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_lvmmeta.c: what a PV can hold, as storage-lvm.c reads it: the
 * bytes as the label sectors, as a metadata area header, then as the
 * metadata text, and every LV of a VG read from it through the checks
 * and tables of the fast path.
 */
#include "fuzz.h"
#include "storage/lvm/lvmmeta.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct lvmmeta_vg vg;
	static const char *const devs[LVMMETA_PVS_MAX] = { "254:0", "254:1" };
	uint8_t hdr[LVMMETA_MDA_HEADER] = { 0 };
	char name[600], uuid[100], type[16], params[1024], *text;
	struct lvmmeta_text_locn t;
	struct lvmmeta_label l;
	uint64_t start, len;
	size_t i, j;

	(void)lvmmeta_label(data, size, &l);
	memcpy(hdr, data, size < sizeof(hdr) ? size : sizeof(hdr));
	(void)lvmmeta_mda_header(hdr, 4096, 1044480, &t);
	/* a copy of exactly size bytes: ASan sees a read past the text */
	text = malloc(size ? size : 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	if (lvmmeta_parse_vg(text, size, &vg)) {
		free(text);
		return 0;
	}
	free(text);
	for (i = 0; i < vg.nlvs; i++) {
		const struct lvmmeta_lv *lv = &vg.lv[i];

		(void)lvmmeta_dm_name(&vg, lv, name, sizeof(name), uuid,
				      sizeof(uuid));
		if (lvmmeta_not_plain(&vg, lv) || vg.npvs > 2)
			continue;
		for (j = 0; j < lv->nsegs; j++)
			(void)lvmmeta_target(&vg, lv, j, (const char **)devs,
					     &start, &len, type, sizeof(type),
					     params, sizeof(params));
	}
	return 0;
}
