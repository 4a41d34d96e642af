// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_lvmreport.c: lvm's output as rescue-init reads it (any bytes a
 * PV's metadata can put there), then the same bytes as a dm name.
 */
#include "fuzz.h"
#include "storage/lvm/lvmreport.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct lvm_pv_record recs[8];
	char vg[LVM_NAME_MAX], lv[LVM_NAME_MAX];
	char *s = fuzz_string(data, size, 16384);
	size_t n, i;

	if (!s)
		return 0;
	n = lvmreport_parse(s, recs, 8);
	for (i = 0; i < n; i++) {
		(void)strlen(recs[i].pv_name);
		(void)lvmreport_same_uuid(recs[i].pv_uuid, recs[i].vg_uuid);
		(void)lvmreport_valid_name(recs[i].vg_name);
	}
	(void)lvmreport_split_dm_name(s, vg, sizeof(vg), lv, sizeof(lv));
	free(s);
	return 0;
}
