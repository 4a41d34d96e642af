/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lvmreport.h: what storage-lvm.c reads from lvm: the lines of
 * `lvm pvs --noheadings --nameprefixes -o pv_name,pv_uuid,pv_missing,
 * vg_name,vg_uuid` (one PV each, the missing ones of a VG included,
 * mixed with lvm's warnings), and the device-mapper name lvm gives an
 * LV, "VG-LV" with each '-' of either name doubled.
 */
#ifndef RESCUE_LVMREPORT_H
#define RESCUE_LVMREPORT_H

#include <stdbool.h>
#include <stddef.h>

#define LVM_NAME_MAX	128	/* lvm's NAME_LEN */
#define LVM_UUID_MAX	40	/* 32 characters and 6 dashes */

struct lvm_pv_record {
	char pv_name[256];	/* "/dev/vdb", "[unknown]" when missing */
	char pv_uuid[LVM_UUID_MAX];
	bool missing;
	char vg_name[LVM_NAME_MAX];	/* "" for a PV in no VG */
	char vg_uuid[LVM_UUID_MAX];
};

/*
 * One line (len bytes, no newline needed): 0 and *r for a report line,
 * -ENOENT for any other line (a warning), -EINVAL for a report line
 * with a field missing, too long, or a name or UUID lvm would not make.
 */
int lvmreport_parse_line(const char *line, size_t len,
			 struct lvm_pv_record *r);
/* Every report line of buf (NUL-ended) into out[0..max): how many. */
size_t lvmreport_parse(const char *buf, struct lvm_pv_record *out,
		       size_t max);
/* Whether s is a VG or LV name lvm accepts: [A-Za-z0-9+_.-], no '-' first. */
bool lvmreport_valid_name(const char *s);
/*
 * dm's "VG-LV" (and "VG-LV-LAYER") split at the first single '-', the
 * doubled ones undone: 0, or -EINVAL when it is not an LV's name.
 */
int lvmreport_split_dm_name(const char *dm, char *vg, size_t vsize,
			    char *lv, size_t lsize);
/* Whether two PV or VG UUIDs are the same, dashes aside. */
bool lvmreport_same_uuid(const char *a, const char *b);

#endif
