// SPDX-License-Identifier: GPL-2.0
/*
 * lvmmeta.c: the LVM2 label, metadata area header and metadata text,
 * see lvmmeta.h.  The text is parsed into a bounded tree of nodes
 * (sections, values, lists) that point into the text, then the VG is
 * read from the tree as lvm2's import_vsn1.c does; every string is
 * copied out with its escapes undone and its length checked.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lvmmeta.h"
#include "lvmreport.h"

#define LABEL_ID	"LABELONE"
#define LABEL_TYPE	"LVM2 001"
#define MDA_MAGIC	" LVM2 x[5A%r0N*>"
#define INITIAL_CRC	LVMMETA_CRC_SEED
#define RAW_LOCN_IGNORED 1u
#define NODES_MAX	16384
#define DEPTH_MAX	16

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* lvm2's calc_crc(), a nibble at a time as lvm2 does it. */
uint32_t lvmmeta_crc(uint32_t crc, const void *buf, size_t len)
{
	static const uint32_t tab[16] = {
		0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac,
		0x76dc4190, 0x6b6b51f4, 0x4db26158, 0x5005713c,
		0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c,
		0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c,
	};
	const uint8_t *p = buf;
	size_t i;

	for (i = 0; i < len; i++) {
		crc ^= p[i];
		crc = (crc >> 4) ^ tab[crc & 0xf];
		crc = (crc >> 4) ^ tab[crc & 0xf];
	}
	return crc;
}

/* ---- label and metadata area header ---------------------------------- */

static bool valid_id_chars(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return false;
	return n > 0;
}

/* The PV header of the label in sector s (512 bytes) found at sector. */
static int pv_header(const uint8_t *s, uint64_t sector, struct lvmmeta_label *l)
{
	uint32_t off = le32(s + 20);
	const uint8_t *p, *end = s + LVMMETA_SECTOR;
	bool mdas = false;

	if (le64(s + 8) != sector ||
	    le32(s + 16) != lvmmeta_crc(INITIAL_CRC, s + 20,
					LVMMETA_SECTOR - 20) ||
	    memcmp(s + 24, LABEL_TYPE, 8) || off < 32 ||
	    off > LVMMETA_SECTOR - 40)
		return -EINVAL;
	p = s + off;
	memcpy(l->pv_uuid, p, 32);
	l->pv_uuid[32] = '\0';
	if (!valid_id_chars(l->pv_uuid, 32) || strchr(l->pv_uuid, '-'))
		return -EINVAL;
	l->dev_size = le64(p + 32);
	l->nmda = 0;
	/* data areas, a zero entry, metadata areas, a zero entry */
	for (p += 40; p + 16 <= end; p += 16) {
		uint64_t o = le64(p), n = le64(p + 8);

		if (!o) {
			if (mdas)
				return 0;
			mdas = true;
			continue;
		}
		if (!mdas)
			continue;
		if (n < LVMMETA_MDA_HEADER || o + n < o ||
		    (l->dev_size && o + n > l->dev_size))
			return -EINVAL;
		if (l->nmda < LVMMETA_MDAS_MAX) {
			l->mda[l->nmda].offset = o;
			l->mda[l->nmda].size = n;
			l->nmda++;
		}
	}
	return -EINVAL;		/* the lists run past the sector */
}

int lvmmeta_label(const uint8_t *buf, size_t len, struct lvmmeta_label *l)
{
	size_t i;

	for (i = 0; (i + 1) * LVMMETA_SECTOR <= len &&
	     i * LVMMETA_SECTOR < LVMMETA_LABEL_SCAN; i++) {
		const uint8_t *s = buf + i * LVMMETA_SECTOR;

		if (!memcmp(s, LABEL_ID, 8))
			return pv_header(s, i, l);
	}
	return -ENOENT;
}

int lvmmeta_mda_header(const uint8_t *hdr, uint64_t mda_offset,
		       uint64_t mda_size, struct lvmmeta_text_locn *t)
{
	const uint8_t *r = hdr + 40;	/* raw_locns[0] */
	uint64_t off, size;

	if (le32(hdr) != lvmmeta_crc(INITIAL_CRC, hdr + 4,
				     LVMMETA_MDA_HEADER - 4) ||
	    memcmp(hdr + 4, MDA_MAGIC, 16) || le32(hdr + 20) != 1 ||
	    le64(hdr + 24) != mda_offset || le64(hdr + 32) != mda_size ||
	    mda_size <= LVMMETA_MDA_HEADER)
		return -EINVAL;
	off = le64(r);
	size = le64(r + 8);
	if (!off || !size || (le32(r + 20) & RAW_LOCN_IGNORED))
		return -ENOENT;
	if (off < LVMMETA_MDA_HEADER || off >= mda_size ||
	    size > mda_size - LVMMETA_MDA_HEADER || size > LVMMETA_TEXT_MAX)
		return -EINVAL;
	t->offset = mda_offset + off;
	t->size = size;
	t->checksum = le32(r + 16);
	t->first = size < mda_size - off ? size : mda_size - off;
	t->wrap_offset = mda_offset + LVMMETA_MDA_HEADER;
	return 0;
}

/* ---- the config text --------------------------------------------------- */

enum node_type { N_SECTION, N_STRING, N_NUMBER, N_LIST };

struct node {
	const char *key;	/* NULL for a list element */
	size_t klen;
	enum node_type type;
	const char *s;		/* N_STRING: raw, escapes kept */
	size_t slen;
	int64_t num;
	bool integer;
	int first, last, next;	/* children of a section or list; -1 */
};

struct parser {
	const char *p, *end;
	struct node *n;
	int count, max;		/* nodes used, allocated */
};

static bool delim(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '=' ||
	       c == '{' || c == '}' || c == '[' || c == ']' || c == ',' ||
	       c == '"' || c == '#' || c == '\0';
}

static void skip_space(struct parser *ps)
{
	while (ps->p < ps->end) {
		char c = *ps->p;

		if (c == '#') {
			while (ps->p < ps->end && *ps->p != '\n')
				ps->p++;
		} else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			ps->p++;
		} else {
			return;
		}
	}
}

static int new_node(struct parser *ps, int parent, enum node_type type)
{
	struct node *n;
	int i;

	if (ps->count == ps->max)
		return ps->max == NODES_MAX ? -ENOSPC : -EINVAL;
	i = ps->count++;
	n = &ps->n[i];
	memset(n, 0, sizeof(*n));
	n->type = type;
	n->first = n->last = n->next = -1;
	if (parent >= 0) {
		if (ps->n[parent].last >= 0)
			ps->n[ps->n[parent].last].next = i;
		else
			ps->n[parent].first = i;
		ps->n[parent].last = i;
	}
	return i;
}

/* A string, a number or a list, as a child of parent. */
static int parse_value(struct parser *ps, int parent, int depth, bool in_list)
{
	const char *start;
	int i, r;

	skip_space(ps);
	if (ps->p >= ps->end)
		return -EINVAL;
	if (*ps->p == '"') {
		i = new_node(ps, parent, N_STRING);
		if (i < 0)
			return i;
		start = ++ps->p;
		while (ps->p < ps->end && *ps->p != '"') {
			if (*ps->p == '\\' && ps->p + 1 < ps->end)
				ps->p++;
			ps->p++;
		}
		if (ps->p >= ps->end)
			return -EINVAL;
		ps->n[i].s = start;
		ps->n[i].slen = (size_t)(ps->p - start);
		ps->p++;
		return i;
	}
	if (*ps->p == '[') {
		if (in_list || depth >= DEPTH_MAX)
			return -EINVAL;
		i = new_node(ps, parent, N_LIST);
		if (i < 0)
			return i;
		ps->p++;
		for (;;) {
			skip_space(ps);
			if (ps->p < ps->end && *ps->p == ']') {
				ps->p++;
				return i;
			}
			r = parse_value(ps, i, depth + 1, true);
			if (r < 0)
				return r;
			skip_space(ps);
			if (ps->p < ps->end && *ps->p == ',')
				ps->p++;
			else if (ps->p >= ps->end || *ps->p != ']')
				return -EINVAL;
		}
	}
	i = new_node(ps, parent, N_NUMBER);
	if (i < 0)
		return i;
	start = ps->p;
	if (ps->p < ps->end && *ps->p == '-')
		ps->p++;
	ps->n[i].integer = true;
	while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') {
		int d = *ps->p - '0';

		if (ps->n[i].num > (INT64_MAX - d) / 10)
			return -EINVAL;
		ps->n[i].num = ps->n[i].num * 10 + d;
		ps->p++;
	}
	if (ps->p == start || (*start == '-' && ps->p == start + 1))
		return -EINVAL;
	if (*start == '-')
		ps->n[i].num = -ps->n[i].num;
	if (ps->p < ps->end && *ps->p == '.') {	/* a float: kept, unused */
		ps->n[i].integer = false;
		ps->p++;
		while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
			ps->p++;
	}
	if (ps->p < ps->end && !delim(*ps->p))
		return -EINVAL;
	return i;
}

/* `key = value` and `key { ... }` until '}' (or the end at the top). */
static int parse_body(struct parser *ps, int parent, int depth)
{
	const char *key;
	size_t klen;
	int i, r;

	for (;;) {
		skip_space(ps);
		if (ps->p >= ps->end || !*ps->p)
			return depth ? -EINVAL : 0;
		if (*ps->p == '}') {
			if (!depth)
				return -EINVAL;
			ps->p++;
			return 0;
		}
		key = ps->p;
		while (ps->p < ps->end && !delim(*ps->p))
			ps->p++;
		klen = (size_t)(ps->p - key);
		if (!klen)
			return -EINVAL;
		skip_space(ps);
		if (ps->p >= ps->end)
			return -EINVAL;
		if (*ps->p == '{') {
			if (depth >= DEPTH_MAX)
				return -EINVAL;
			ps->p++;
			i = new_node(ps, parent, N_SECTION);
			if (i < 0)
				return i;
			ps->n[i].key = key;
			ps->n[i].klen = klen;
			r = parse_body(ps, i, depth + 1);
		} else if (*ps->p == '=') {
			ps->p++;
			r = i = parse_value(ps, parent, depth, false);
			if (i >= 0) {
				ps->n[i].key = key;
				ps->n[i].klen = klen;
			}
		} else {
			return -EINVAL;
		}
		if (r < 0)
			return r;
	}
}

/* ---- reading the tree -------------------------------------------------- */

static bool key_is(const struct node *n, const char *key)
{
	return n->key && n->klen == strlen(key) && !memcmp(n->key, key, n->klen);
}

static const struct node *child(const struct parser *ps, int parent,
				const char *key)
{
	int i;

	for (i = ps->n[parent].first; i >= 0; i = ps->n[i].next)
		if (key_is(&ps->n[i], key))
			return &ps->n[i];
	return NULL;
}

/* A string node's value, escapes undone, into buf: 0 or -EINVAL. */
static int node_str(const struct node *n, char *buf, size_t size)
{
	size_t i, o = 0;

	if (!n || n->type != N_STRING)
		return -EINVAL;
	for (i = 0; i < n->slen; i++) {
		if (n->s[i] == '\\' && i + 1 < n->slen)
			i++;
		if (o + 1 >= size || !n->s[i])
			return -EINVAL;
		buf[o++] = n->s[i];
	}
	buf[o] = '\0';
	return 0;
}

static int get_u64(const struct parser *ps, int parent, const char *key,
		   uint64_t *v)
{
	const struct node *n = child(ps, parent, key);

	if (!n || n->type != N_NUMBER || !n->integer || n->num < 0)
		return -EINVAL;
	*v = (uint64_t)n->num;
	return 0;
}

/* Whether the string list key of parent holds word. */
static bool list_has(const struct parser *ps, int parent, const char *key,
		     const char *word)
{
	const struct node *n = child(ps, parent, key);
	char buf[64];
	int i;

	if (!n || n->type != N_LIST)
		return false;
	for (i = n->first; i >= 0; i = ps->n[i].next)
		if (!node_str(&ps->n[i], buf, sizeof(buf)) &&
		    !strcmp(buf, word))
			return true;
	return false;
}

/* A list that is there and not empty ("flags = []" is the usual). */
static bool list_nonempty(const struct parser *ps, int parent, const char *key)
{
	const struct node *n = child(ps, parent, key);

	return n && (n->type != N_LIST || n->first >= 0);
}

/* A key as a name: section names are keys. */
static int key_str(const struct node *n, char *buf, size_t size)
{
	if (n->klen >= size)
		return -EINVAL;
	memcpy(buf, n->key, n->klen);
	buf[n->klen] = '\0';
	return lvmreport_valid_name(buf) ? 0 : -EINVAL;
}

/* An id: 32 characters of [A-Za-z0-9], dashes between. */
static int get_id(const struct parser *ps, int parent, char *buf, size_t size)
{
	size_t i, n = 0;

	if (node_str(child(ps, parent, "id"), buf, size) ||
	    !valid_id_chars(buf, strlen(buf)))
		return -EINVAL;
	for (i = 0; buf[i]; i++)
		n += buf[i] != '-';
	return n == 32 ? 0 : -EINVAL;
}

static int read_pvs(const struct parser *ps, int vgi, struct lvmmeta_vg *vg)
{
	const struct node *pvs = child(ps, vgi, "physical_volumes");
	int i;

	if (!pvs || pvs->type != N_SECTION)
		return -EINVAL;
	for (i = pvs->first; i >= 0; i = ps->n[i].next) {
		struct lvmmeta_pv *pv;

		if (ps->n[i].type != N_SECTION)
			continue;
		if (vg->npvs == LVMMETA_PVS_MAX)
			return -ENOSPC;
		pv = &vg->pv[vg->npvs++];
		if (key_str(&ps->n[i], pv->name, sizeof(pv->name)) ||
		    get_id(ps, i, pv->id, sizeof(pv->id)) ||
		    get_u64(ps, i, "pe_start", &pv->pe_start) ||
		    get_u64(ps, i, "pe_count", &pv->pe_count))
			return -EINVAL;
		pv->missing = list_has(ps, i, "flags", "MISSING");
	}
	return vg->npvs ? 0 : -EINVAL;
}

static int pv_index(const struct lvmmeta_vg *vg, const char *name)
{
	size_t i;

	for (i = 0; i < vg->npvs; i++)
		if (!strcmp(vg->pv[i].name, name))
			return (int)i;
	return -1;
}

/* A striped segment's stripes = [ "pv0", 0, "pv1", 0 ]. */
static int read_stripes(const struct parser *ps, int segi,
			struct lvmmeta_vg *vg, struct lvmmeta_seg *seg)
{
	const struct node *l = child(ps, segi, "stripes");
	int i;

	if (!l || l->type != N_LIST)
		return -EINVAL;
	seg->first_area = vg->nareas;
	for (i = l->first; i >= 0; i = ps->n[i].next) {
		struct lvmmeta_area *a;
		const struct node *e;

		if (vg->nareas == LVMMETA_AREAS_MAX)
			return -ENOSPC;
		a = &vg->area[vg->nareas++];
		e = &ps->n[i];
		if (node_str(e, a->name, sizeof(a->name)) || e->next < 0)
			return -EINVAL;
		i = e->next;
		e = &ps->n[i];
		if (e->type != N_NUMBER || !e->integer || e->num < 0)
			return -EINVAL;
		a->extent = (uint64_t)e->num;
		a->pv = pv_index(vg, a->name);
		seg->nareas++;
	}
	return 0;
}

static int read_segment(const struct parser *ps, int segi,
			struct lvmmeta_vg *vg)
{
	struct lvmmeta_seg *seg;
	uint64_t v;

	if (vg->nsegs == LVMMETA_SEGS_MAX)
		return -ENOSPC;
	seg = &vg->seg[vg->nsegs++];
	memset(seg, 0, sizeof(*seg));
	seg->first_area = vg->nareas;
	if (get_u64(ps, segi, "start_extent", &seg->start_extent) ||
	    get_u64(ps, segi, "extent_count", &seg->extent_count) ||
	    node_str(child(ps, segi, "type"), seg->type, sizeof(seg->type)))
		return -EINVAL;
	if (strcmp(seg->type, "striped"))
		return 0;	/* not ours to read: lvm activates it */
	if (get_u64(ps, segi, "stripe_count", &v) || !v || v > 128)
		return -EINVAL;
	seg->stripe_count = (uint32_t)v;
	if (get_u64(ps, segi, "stripe_size", &seg->stripe_size))
		seg->stripe_size = 0;
	return read_stripes(ps, segi, vg, seg);
}

static int read_lv(const struct parser *ps, int lvi, struct lvmmeta_vg *vg)
{
	struct lvmmeta_lv *lv;
	uint64_t count;
	int i, r;

	if (vg->nlvs == LVMMETA_LVS_MAX)
		return -ENOSPC;
	lv = &vg->lv[vg->nlvs++];
	memset(lv, 0, sizeof(*lv));
	if (key_str(&ps->n[lvi], lv->name, sizeof(lv->name)) ||
	    get_id(ps, lvi, lv->id, sizeof(lv->id)) ||
	    get_u64(ps, lvi, "segment_count", &count))
		return -EINVAL;
	lv->read = list_has(ps, lvi, "status", "READ");
	lv->write = list_has(ps, lvi, "status", "WRITE");
	lv->visible = list_has(ps, lvi, "status", "VISIBLE");
	lv->flagged = list_nonempty(ps, lvi, "flags") ||
		      list_has(ps, lvi, "status", "ACTIVATION_SKIP") ||
		      list_has(ps, lvi, "status", "LOCKED") ||
		      list_has(ps, lvi, "status", "PVMOVE");
	lv->first_seg = vg->nsegs;
	for (i = ps->n[lvi].first; i >= 0; i = ps->n[i].next) {
		if (ps->n[i].type != N_SECTION)
			continue;
		r = read_segment(ps, i, vg);
		if (r)
			return r;
		lv->nsegs++;
	}
	return lv->nsegs == count ? 0 : -EINVAL;
}

/* Every string below node i whose value is an LV's name marks it used. */
static void mark_used(const struct parser *ps, int i, struct lvmmeta_vg *vg,
		      const struct lvmmeta_lv *self)
{
	char buf[LVMMETA_NAME_MAX];
	size_t k;

	for (; i >= 0; i = ps->n[i].next) {
		if (ps->n[i].type == N_SECTION || ps->n[i].type == N_LIST)
			mark_used(ps, ps->n[i].first, vg, self);
		if (ps->n[i].type != N_STRING ||
		    node_str(&ps->n[i], buf, sizeof(buf)))
			continue;
		for (k = 0; k < vg->nlvs; k++)
			if (&vg->lv[k] != self && !strcmp(vg->lv[k].name, buf))
				vg->lv[k].used = true;
	}
}

static int read_lvs(const struct parser *ps, int vgi, struct lvmmeta_vg *vg)
{
	const struct node *lvs = child(ps, vgi, "logical_volumes");
	size_t k;
	int i, r;

	if (!lvs)
		return 0;
	if (lvs->type != N_SECTION)
		return -EINVAL;
	for (i = lvs->first; i >= 0; i = ps->n[i].next) {
		if (ps->n[i].type != N_SECTION)
			continue;
		r = read_lv(ps, i, vg);
		if (r)
			return r;
	}
	/* the sections of the LVs again, in the same order */
	for (k = 0, i = lvs->first; i >= 0; i = ps->n[i].next) {
		int s;

		if (ps->n[i].type != N_SECTION)
			continue;
		for (s = ps->n[i].first; s >= 0; s = ps->n[s].next)
			if (ps->n[s].type == N_SECTION)
				mark_used(ps, ps->n[s].first, vg, &vg->lv[k]);
		k++;
	}
	return 0;
}

static int read_vg(const struct parser *ps, struct lvmmeta_vg *vg)
{
	int vgi, r;

	for (vgi = ps->n[0].first; vgi >= 0; vgi = ps->n[vgi].next)
		if (ps->n[vgi].type == N_SECTION)
			break;
	if (vgi < 0 || key_str(&ps->n[vgi], vg->name, sizeof(vg->name)) ||
	    get_id(ps, vgi, vg->id, sizeof(vg->id)) ||
	    get_u64(ps, vgi, "seqno", &vg->seqno) ||
	    get_u64(ps, vgi, "extent_size", &vg->extent_size) ||
	    !vg->extent_size)
		return -EINVAL;
	vg->read = list_has(ps, vgi, "status", "READ");
	vg->write = list_has(ps, vgi, "status", "WRITE");
	vg->exported = list_has(ps, vgi, "status", "EXPORTED");
	vg->foreign = list_nonempty(ps, vgi, "flags") ||
		      child(ps, vgi, "lock_type") ||
		      (child(ps, vgi, "system_id") &&
		       child(ps, vgi, "system_id")->slen);
	r = read_pvs(ps, vgi, vg);
	return r ? r : read_lvs(ps, vgi, vg);
}

int lvmmeta_parse_vg(const char *text, size_t len, struct lvmmeta_vg *vg)
{
	struct parser ps = { .p = text, .end = text + len };
	const char *nul = memchr(text, '\0', len);
	int r;

	memset(vg, 0, sizeof(*vg));
	if (nul)
		ps.end = nul;
	/* each node takes a byte of text at least */
	ps.max = ps.end - text + 2 < NODES_MAX ? (int)(ps.end - text) + 2 :
		 NODES_MAX;
	ps.n = malloc((size_t)ps.max * sizeof(*ps.n));
	if (!ps.n)
		return -ENOMEM;
	r = new_node(&ps, -1, N_SECTION);
	if (r >= 0)
		r = parse_body(&ps, 0, 0);
	if (!r)
		r = read_vg(&ps, vg);
	free(ps.n);
	return r;
}

/* ---- what the activation needs ---------------------------------------- */

const struct lvmmeta_lv *lvmmeta_find_lv(const struct lvmmeta_vg *vg,
					 const char *name)
{
	size_t i;

	for (i = 0; i < vg->nlvs; i++)
		if (!strcmp(vg->lv[i].name, name))
			return &vg->lv[i];
	return NULL;
}

static const char *seg_not_plain(const struct lvmmeta_vg *vg,
				 const struct lvmmeta_seg *seg)
{
	uint64_t per;
	size_t i;

	if (strcmp(seg->type, "striped"))
		return "a segment not striped or linear";
	if (seg->nareas != seg->stripe_count ||
	    seg->extent_count % seg->stripe_count ||
	    (seg->stripe_count > 1 && !seg->stripe_size))
		return "a striped segment lvm would not write";
	per = seg->extent_count / seg->stripe_count;
	for (i = 0; i < seg->nareas; i++) {
		const struct lvmmeta_area *a = &vg->area[seg->first_area + i];

		if (a->pv < 0)
			return "a segment on another LV";
		if (a->extent > vg->pv[a->pv].pe_count ||
		    per > vg->pv[a->pv].pe_count - a->extent)
			return "a segment past the end of its PV";
		if (vg->pv[a->pv].missing)
			return "a segment on a missing PV";
	}
	return NULL;
}

const char *lvmmeta_not_plain(const struct lvmmeta_vg *vg,
			      const struct lvmmeta_lv *lv)
{
	uint64_t next = 0, max = UINT64_MAX / vg->extent_size;
	const char *why;
	size_t i;

	if (!lv->visible)
		return "hidden";
	if (lv->flagged)
		return "flagged (ACTIVATION_SKIP or another flag)";
	if (lv->used)
		return "used by another LV";
	if (!lv->read)
		return "not readable";
	if (!lv->nsegs)
		return "no segments";
	for (i = 0; i < lv->nsegs; i++) {
		const struct lvmmeta_seg *seg = &vg->seg[lv->first_seg + i];

		if (seg->start_extent != next || seg->extent_count > max ||
		    seg->start_extent > max - seg->extent_count)
			return "segments with holes";
		next += seg->extent_count;
		why = seg_not_plain(vg, seg);
		if (why)
			return why;
	}
	for (i = 0; i < vg->npvs; i++)
		if (vg->pv[i].pe_start > UINT64_MAX - max ||
		    vg->pv[i].pe_count > max)
			return "a PV larger than a device can be";
	return NULL;
}

/* s with every '-' doubled, appended at *n: false when it does not fit. */
static bool put_dashed(char *buf, size_t size, size_t *n, const char *s,
		       bool dashes)
{
	for (; *s; s++) {
		if (*s == '-' && !dashes)
			continue;
		if (*n + (*s == '-' ? 2 : 1) >= size)
			return false;
		buf[(*n)++] = *s;
		if (*s == '-')
			buf[(*n)++] = '-';
	}
	buf[*n] = '\0';
	return true;
}

int lvmmeta_dm_name(const struct lvmmeta_vg *vg, const struct lvmmeta_lv *lv,
		    char *name, size_t nsize, char *uuid, size_t usize)
{
	size_t n = 0, u;

	if (!nsize || usize < 5)
		return -ENAMETOOLONG;
	name[0] = '\0';
	if (!put_dashed(name, nsize, &n, vg->name, true) || n + 1 >= nsize)
		return -ENAMETOOLONG;
	name[n++] = '-';
	if (!put_dashed(name, nsize, &n, lv->name, true))
		return -ENAMETOOLONG;
	memcpy(uuid, "LVM-", 5);
	u = 4;
	if (!put_dashed(uuid, usize, &u, vg->id, false) ||
	    !put_dashed(uuid, usize, &u, lv->id, false))
		return -ENAMETOOLONG;
	return 0;
}

int lvmmeta_target(const struct lvmmeta_vg *vg, const struct lvmmeta_lv *lv,
		   size_t i, const char *const *devs, uint64_t *start,
		   uint64_t *len, char *type, size_t tsize, char *params,
		   size_t psize)
{
	const struct lvmmeta_seg *seg;
	size_t k, n;
	int w;

	if (i >= lv->nsegs || lvmmeta_not_plain(vg, lv))
		return -EINVAL;
	seg = &vg->seg[lv->first_seg + i];
	*start = seg->start_extent * vg->extent_size;
	*len = seg->extent_count * vg->extent_size;
	if (seg->stripe_count == 1) {
		const struct lvmmeta_area *a = &vg->area[seg->first_area];
		uint64_t off = vg->pv[a->pv].pe_start +
			       a->extent * vg->extent_size;

		w = snprintf(type, tsize, "linear");
		if (w < 0 || (size_t)w >= tsize)
			return -ERANGE;
		w = snprintf(params, psize, "%s %llu", devs[a->pv],
			     (unsigned long long)off);
		return w < 0 || (size_t)w >= psize ? -ERANGE : 0;
	}
	w = snprintf(type, tsize, "striped");
	if (w < 0 || (size_t)w >= tsize)
		return -ERANGE;
	w = snprintf(params, psize, "%u %llu", seg->stripe_count,
		     (unsigned long long)seg->stripe_size);
	if (w < 0 || (size_t)w >= psize)
		return -ERANGE;
	n = (size_t)w;
	for (k = 0; k < seg->nareas; k++) {
		const struct lvmmeta_area *a = &vg->area[seg->first_area + k];
		uint64_t off = vg->pv[a->pv].pe_start +
			       a->extent * vg->extent_size;

		w = snprintf(params + n, psize - n, " %s %llu", devs[a->pv],
			     (unsigned long long)off);
		if (w < 0 || (size_t)w >= psize - n)
			return -ERANGE;
		n += (size_t)w;
	}
	return 0;
}
