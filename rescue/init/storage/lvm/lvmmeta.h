/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lvmmeta.h: the LVM2 on-disk format as storage-lvm.c reads it, so that
 * a plain VG is activated without running lvm (lvm2's
 * lib/format_text/layout.h and format-text.c, GRUB's disk/lvm.c):
 *
 *  - the PV label: "LABELONE" in one of the first 4 sectors, type
 *    "LVM2 001", then the PV header (PV UUID, device size, the data
 *    areas and the metadata areas, each list ended by a zero entry);
 *  - the metadata area header at the start of each metadata area
 *    (magic " LVM2 x[5A%r0N*>"), whose first raw_locn says where the
 *    current metadata text is in the area's circular buffer;
 *  - that text, lvm's config syntax: `name { key = value ... }`,
 *    strings, integers, lists `[ ... ]`, '#' comments.
 *
 * Every length, offset and count comes from a disk: each is checked
 * against the buffer it points into and the limits below.
 */
#ifndef RESCUE_LVMMETA_H
#define RESCUE_LVMMETA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LVMMETA_SECTOR		512
#define LVMMETA_CRC_SEED	0xf597a6cfu	/* lvm2's INITIAL_CRC */
#define LVMMETA_LABEL_SCAN	(4 * LVMMETA_SECTOR)	/* label in these */
#define LVMMETA_MDA_HEADER	512
#define LVMMETA_MDAS_MAX	2	/* lvm writes at most two per PV */
#define LVMMETA_TEXT_MAX	(4u << 20)	/* bytes of metadata text */
#define LVMMETA_NAME_MAX	128	/* lvm's NAME_LEN */
#define LVMMETA_ID_MAX		40	/* 32 characters and 6 dashes */
#define LVMMETA_PVS_MAX		32
#define LVMMETA_LVS_MAX		64
#define LVMMETA_SEGS_MAX	256	/* over all LVs of the VG */
#define LVMMETA_AREAS_MAX	512	/* stripes over all segments */

/* The label and PV header: where this PV's metadata areas are. */
struct lvmmeta_label {
	char pv_uuid[33];		/* 32 characters, no dashes */
	uint64_t dev_size;		/* bytes, as lvm recorded it */
	size_t nmda;
	struct {
		uint64_t offset, size;	/* bytes from the device's start */
	} mda[LVMMETA_MDAS_MAX];
};

/* Where an area's current metadata text is (it may wrap). */
struct lvmmeta_text_locn {
	uint64_t offset, size;		/* from the device's start; bytes */
	uint64_t wrap_offset;		/* the rest, when it wraps */
	uint64_t first;			/* bytes before the wrap */
	uint32_t checksum;
};

struct lvmmeta_pv {
	char name[LVMMETA_NAME_MAX];	/* "pv0": the stripes name it */
	char id[LVMMETA_ID_MAX];
	uint64_t pe_start, pe_count;	/* sectors, extents */
	bool missing;			/* flags MISSING */
};

struct lvmmeta_area {
	char name[LVMMETA_NAME_MAX];	/* "pv0", or an LV for a layer */
	uint64_t extent;		/* first extent on it */
	int pv;				/* index of name in pv[], or -1 */
};

struct lvmmeta_seg {
	uint64_t start_extent, extent_count;
	char type[32];			/* "striped", "raid1", "thin", ... */
	uint32_t stripe_count;
	uint64_t stripe_size;		/* sectors; 0 for one stripe */
	size_t first_area, nareas;	/* in vg->area[] */
};

struct lvmmeta_lv {
	char name[LVMMETA_NAME_MAX];
	char id[LVMMETA_ID_MAX];
	bool visible, read, write;
	bool flagged;			/* any flag: ACTIVATION_SKIP, ... */
	bool used;			/* another LV's segment names it */
	size_t first_seg, nsegs;	/* in vg->seg[] */
};

struct lvmmeta_vg {
	char name[LVMMETA_NAME_MAX];
	char id[LVMMETA_ID_MAX];
	uint64_t seqno, extent_size;	/* extent_size in sectors */
	bool read, write, exported;
	bool foreign;			/* a system_id, lock_type or flag */
	size_t npvs, nlvs, nsegs, nareas;
	struct lvmmeta_pv pv[LVMMETA_PVS_MAX];
	struct lvmmeta_lv lv[LVMMETA_LVS_MAX];
	struct lvmmeta_seg seg[LVMMETA_SEGS_MAX];
	struct lvmmeta_area area[LVMMETA_AREAS_MAX];
};

/* lvm's checksum: CRC-32 (0xedb88320), seed 0xf597a6cf, no final xor. */
uint32_t lvmmeta_crc(uint32_t crc, const void *buf, size_t len);

/*
 * The label in buf (the device's first LVMMETA_LABEL_SCAN bytes, len
 * of them): 0 and *l, -ENOENT when there is none, -EINVAL when it is
 * damaged (checksum, type, an area out of the device).
 */
int lvmmeta_label(const uint8_t *buf, size_t len, struct lvmmeta_label *l);

/*
 * The metadata area header hdr (LVMMETA_MDA_HEADER bytes) of the area
 * at mda_offset, mda_size bytes long: 0 and *t, -ENOENT for an area
 * with no metadata (an orphan PV's, or one lvm ignores), -EINVAL when
 * damaged.
 */
int lvmmeta_mda_header(const uint8_t *hdr, uint64_t mda_offset,
		       uint64_t mda_size, struct lvmmeta_text_locn *t);

/*
 * The VG in the metadata text (len bytes, a NUL may end it before):
 * 0 and *vg, -EINVAL when it is not lvm's syntax or a field is
 * missing or out of range, -ENOSPC past the limits above.
 */
int lvmmeta_parse_vg(const char *text, size_t len, struct lvmmeta_vg *vg);

/* The LV called name in vg, or NULL. */
const struct lvmmeta_lv *lvmmeta_find_lv(const struct lvmmeta_vg *vg,
					 const char *name);

/*
 * Why lv cannot be activated by a plain dm table (NULL: it can): it is
 * hidden, flagged (ACTIVATION_SKIP, NOAUTOACTIVATE), used by another
 * LV (a snapshot's origin, a pool), not readable, or a segment is not
 * striped/linear over PVs of the VG, or out of its PV.
 */
const char *lvmmeta_not_plain(const struct lvmmeta_vg *vg,
			      const struct lvmmeta_lv *lv);

/*
 * lv's dm name ("VG-LV", each '-' doubled) and UUID ("LVM-" + VG id +
 * LV id, no dashes), as lvm2 makes them: 0, or -ENAMETOOLONG.
 */
int lvmmeta_dm_name(const struct lvmmeta_vg *vg, const struct lvmmeta_lv *lv,
		    char *name, size_t nsize, char *uuid, size_t usize);

/*
 * Target line i (0 .. lv->nsegs) of lv's table: *start and *len in
 * sectors, the target type ("linear", "striped") and its parameters,
 * with devs[p] the "MAJ:MIN" of vg->pv[p]: 0, or -EINVAL, -ERANGE.
 */
int lvmmeta_target(const struct lvmmeta_vg *vg, const struct lvmmeta_lv *lv,
		   size_t i, const char *const *devs, uint64_t *start,
		   uint64_t *len, char *type, size_t tsize, char *params,
		   size_t psize);

#endif
