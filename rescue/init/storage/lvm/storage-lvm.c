// SPDX-License-Identifier: GPL-2.0
/*
 * storage-lvm.c: LVM2 volume groups, activated once every one of their
 * physical volumes is there, per uevent, as lvm2's udev rule
 * (69-dm-lvm.rules: pvscan --cache --checkcomplete, then vgchange -aay)
 * does it, but with no state left in /run.
 *
 * The fast path runs no lvm: the first PV of a VG seen has its label
 * and metadata read in-process (lvmmeta.c), which list every PV of its
 * VG, the missing ones included; the others are known by their PV UUID
 * (blkid's), their metadata read too and the newest (seqno) kept.  A
 * complete VG whose wanted LVs are all plain (visible, no flag such as
 * ACTIVATION_SKIP, linear or striped segments over its PVs, used by no
 * other LV: no thin, raid, mirror, cache or snapshot) gets each LV made
 * by dm ioctls (dmtable.c), named as lvm2 names it ("VG-LV", UUID
 * "LVM-" + VG id + LV id), read-only in strict mode or when the LV has
 * no WRITE, so that the real root's lvm and systemd take them as their
 * own.  /dev/VG/LV links to /dev/mapper/VG-LV as lvm makes it.
 *
 * Anything else goes to lvm, with one line saying why: a PV whose
 * metadata rescue-init cannot read (none on it, damaged, not lvm's
 * syntax) is learned by `lvm pvs --devices DEV`, which reads that
 * device only; a VG that is not plain, or whose table the kernel
 * refused, gets one `lvm vgchange -aay` (or `lvchange -ay` of the
 * rd.lvm.lv= LVs in it); an incomplete one is named and run by lvm in
 * root_wait_over().  The LVs come as dm-N devices with their uevents.
 *
 * lvm runs with --nolocking (rescue-init runs one lvm at a time, and
 * the lock files would stay in /run, which the real root gets) and
 * --sysinit (no polling of an interrupted pvmove, which would write, no
 * monitoring).  In strict read-only mode the LVs are activated
 * read-only and lvm may not write metadata (read_only_volume_list,
 * metadata_read_only).  Without it the LVs are activated read-write,
 * as by any initramfs; activation writes no metadata.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "storage/dmtable.h"
#include "lvmdisk.h"
#include "lvmmeta.h"
#include "lvmreport.h"
#include "storage/storage.h"

#define LVM_VGS_MAX	16
#define LVM_PVS_MAX	32
#define LVM_SEL_MAX	16
#define LVM_OUT_MAX	8192

struct lvm_pv {
	char uuid[LVM_UUID_MAX];
	char dev[64];		/* sysfs name once seen, else "" */
	char devno[24];		/* "MAJ:MIN" once seen */
};

struct lvm_vg {
	char name[LVM_NAME_MAX], uuid[LVM_UUID_MAX];
	size_t npv;
	struct lvm_pv pv[LVM_PVS_MAX];
	bool activated;		/* lvm ran for it, complete or not */
	bool complete;		/* lvm ran for it with every PV there */
	bool clash;		/* a PV UUID on two devices: not activated */
	bool recheck;		/* the clash, at the next attempt of the boot */
	struct lvmmeta_vg *meta;	/* the newest metadata read, or NULL */
};

static struct lvm_vg vgs[LVM_VGS_MAX];
static size_t nvgs;
static const char *only_vg[LVM_SEL_MAX], *only_lv[LVM_SEL_MAX];
static size_t nonly_vg, nonly_lv;

static bool lvm_setup(const struct cmdline *c)
{
	if (!cmdline_flag(c, "rd.lvm", true))
		return false;
	nonly_vg = cmdline_get_all(c, "rd.lvm.vg", only_vg,
				   ARRAY_SIZE(only_vg));
	nonly_lv = cmdline_get_all(c, "rd.lvm.lv", only_lv,
				   ARRAY_SIZE(only_lv));
	return true;
}

/* rd.lvm.lv= names an LV of vg: "VG/LV". */
static bool lv_of(const char *sel, const char *vg)
{
	size_t n = strlen(vg);

	return !strncmp(sel, vg, n) && sel[n] == '/' && sel[n + 1];
}

/* The whole VG is wanted: no rd.lvm.vg=/lv= at all, or named. */
static bool whole_vg(const struct lvm_vg *vg)
{
	size_t i;

	if (!nonly_vg && !nonly_lv)
		return true;
	for (i = 0; i < nonly_vg; i++)
		if (!strcmp(only_vg[i], vg->name))
			return true;
	return false;
}

static size_t wanted_lvs(const struct lvm_vg *vg)
{
	size_t i, n = 0;

	for (i = 0; i < nonly_lv; i++)
		n += lv_of(only_lv[i], vg->name);
	return n;
}

static bool wanted(const struct lvm_vg *vg)
{
	return whole_vg(vg) || wanted_lvs(vg) > 0;
}

static size_t seen(const struct lvm_vg *vg)
{
	size_t i, n = 0;

	for (i = 0; i < vg->npv; i++)
		n += vg->pv[i].dev[0] != '\0';
	return n;
}

/* The PV of uuid in a VG we know, if any. */
static struct lvm_pv *find_pv(const char *uuid, struct lvm_vg **vgp)
{
	size_t i, j;

	for (i = 0; i < nvgs; i++)
		for (j = 0; j < vgs[i].npv; j++)
			if (lvmreport_same_uuid(vgs[i].pv[j].uuid, uuid)) {
				*vgp = &vgs[i];
				return &vgs[i].pv[j];
			}
	return NULL;
}

static struct lvm_vg *find_vg(const char *name, const char *uuid)
{
	size_t i;

	for (i = 0; i < nvgs; i++)
		if (lvmreport_same_uuid(vgs[i].uuid, uuid))
			return &vgs[i];
	if (nvgs == LVM_VGS_MAX)
		return NULL;
	memset(&vgs[nvgs], 0, sizeof(vgs[0]));
	snprintf(vgs[nvgs].name, sizeof(vgs[0].name), "%s", name);
	snprintf(vgs[nvgs].uuid, sizeof(vgs[0].uuid), "%s", uuid);
	return &vgs[nvgs++];
}

/* The PV of uuid in vg, added if new: NULL when the table is full. */
static struct lvm_pv *vg_pv(struct lvm_vg *vg, const char *uuid)
{
	size_t j;

	for (j = 0; j < vg->npv; j++)
		if (lvmreport_same_uuid(vg->pv[j].uuid, uuid))
			return &vg->pv[j];
	if (vg->npv == LVM_PVS_MAX)
		return NULL;
	snprintf(vg->pv[vg->npv].uuid, LVM_UUID_MAX, "%s", uuid);
	return &vg->pv[vg->npv++];
}

/* The LVs of vg that are active: dm-N whose dm UUID is LVM-<VG UUID>. */
static size_t active_lvs(const struct lvm_vg *vg)
{
	char prefix[64], name[128], uuid[160];
	size_t n = 0, i, len;
	struct dirent *e;
	DIR *dir;

	len = (size_t)snprintf(prefix, sizeof(prefix), "LVM-");
	for (i = 0; vg->uuid[i] && len + 1 < sizeof(prefix); i++)
		if (vg->uuid[i] != '-')
			prefix[len++] = vg->uuid[i];
	prefix[len] = '\0';
	dir = opendir("/sys/block");
	if (!dir)
		return 0;
	while ((e = readdir(dir)))
		if (!strncmp(e->d_name, "dm-", 3) &&
		    !dm_info(e->d_name, name, sizeof(name), uuid,
			     sizeof(uuid)) &&
		    !strncmp(uuid, prefix, len) && strlen(uuid) == len + 32)
			n++;	/* an LV, not one of its layers (-real) */
	closedir(dir);
	return n;
}

/*
 * Run lvm with the options every call takes: no locks, no polling,
 * and in strict mode nothing written and every LV read-only.
 */
static int run_lvm(const char *cmd, const char *const *args, size_t nargs,
		   const char *vgname, char *out, size_t outsize)
{
	char conf[256];
	char *argv[16 + LVM_SEL_MAX];
	size_t n = 0, i;

	argv[n++] = (char *)"lvm";
	argv[n++] = (char *)cmd;
	argv[n++] = (char *)"--nolocking";
	if (readonly_strict()) {
		i = (size_t)snprintf(conf, sizeof(conf), "global { "
				     "metadata_read_only = 1 }");
		if (vgname)
			snprintf(conf + i, sizeof(conf) - i, " activation { "
				 "read_only_volume_list = [ \"%s\" ] }",
				 vgname);
		argv[n++] = (char *)"--config";
		argv[n++] = conf;
	}
	for (i = 0; i < nargs && n + 1 < ARRAY_SIZE(argv); i++)
		argv[n++] = (char *)args[i];
	argv[n] = NULL;
	return dm_run("lvm", argv, NULL, 0, out, outsize);
}

/*
 * "/dev/vda,/dev/dm-0": the PVs of vg seen, for --devices, so that lvm
 * reads these and no other device (a scan of every disk costs a read
 * of each).
 */
static void pv_nodes(const struct lvm_vg *vg, char *buf, size_t size)
{
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < vg->npv && n < size; i++)
		if (vg->pv[i].dev[0])
			n += (size_t)snprintf(buf + n, size - n, "%s/dev/%s",
					      n ? "," : "", vg->pv[i].dev);
}

/* ---- the fast path: the metadata read in-process, dm ioctls ---------- */


/*
 * The VG metadata of PV d, from its label and first readable metadata
 * area: a new lvmmeta_vg, or NULL with *why (no metadata area: a PV
 * made with --pvmetadatacopies 0; *orphan: a PV in no VG).
 */
static struct lvmmeta_vg *read_meta(const struct blkdev *d, const char **why,
				    bool *orphan)
{
	uint8_t buf[LVMMETA_LABEL_SCAN];
	struct lvmmeta_label l;
	struct lvmmeta_vg *vg;
	size_t i;
	int fd, err = -ENOENT;

	*orphan = false;
	fd = open(d->node, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		*why = "unable to open it";
		return NULL;
	}
	vg = malloc(sizeof(*vg));
	if (!vg || lvmdisk_read_at(fd, buf, sizeof(buf), 0)) {
		*why = vg ? "unable to read its label" : "out of memory";
		goto fail;
	}
	err = lvmmeta_label(buf, sizeof(buf), &l);
	if (err || !lvmreport_same_uuid(l.pv_uuid, d->uuid)) {
		*why = err ? "its LVM2 label is damaged" :
		       "its label's PV UUID is not blkid's";
		goto fail;
	}
	*why = "no metadata area on it";
	for (i = 0, err = -ENOENT; i < l.nmda && err; i++)
		err = lvmdisk_read_area(fd, l.mda[i].offset, l.mda[i].size, vg, why);
	*orphan = l.nmda && err == -ENOENT;
	if (err)
		goto fail;
	close(fd);
	return vg;
fail:
	free(vg);
	close(fd);
	return NULL;
}

/*
 * What PV d is, from its own metadata: *pvp in *vgp (every PV of the
 * VG known from it), or NULL for a PV in no VG.  -EAGAIN when the
 * metadata cannot say (lvm is asked then), after the line why.
 */
static int learn_meta(const struct blkdev *d, struct lvm_vg **vgp,
		      struct lvm_pv **pvp)
{
	struct lvmmeta_vg *m;
	const char *why;
	struct lvm_vg *vg;
	bool orphan;
	size_t i;

	*pvp = NULL;
	m = read_meta(d, &why, &orphan);
	if (!m) {
		if (orphan) {
			log_info("lvm: %s is a physical volume of no volume "
				 "group", d->node);
			return 0;
		}
		log_info("lvm: %s: %s, lvm reads it", d->node, why);
		return -EAGAIN;
	}
	vg = find_vg(m->name, m->id);
	if (!vg) {
		free(m);
		return -ENOSPC;
	}
	for (i = 0; i < m->npvs; i++)
		if (!vg_pv(vg, m->pv[i].id))
			break;
	if (!vg->meta || m->seqno > vg->meta->seqno) {
		free(vg->meta);
		vg->meta = m;
	} else {
		free(m);
	}
	*vgp = vg;
	*pvp = vg_pv(vg, d->uuid);
	if (*pvp && (*pvp)->dev[0])
		*pvp = NULL;
	return 0;
}

/* A PV of a VG known: its metadata, kept if newer (quietly: optional). */
static void newer_meta(const struct blkdev *d, struct lvm_vg *vg)
{
	struct lvmmeta_vg *m;
	const char *why;
	bool orphan;

	if (!vg->meta)
		return;
	m = read_meta(d, &why, &orphan);
	if (m && lvmreport_same_uuid(m->id, vg->uuid) &&
	    m->seqno > vg->meta->seqno) {
		size_t i;

		for (i = 0; i < m->npvs; i++)	/* a PV added since */
			if (!vg_pv(vg, m->pv[i].id))
				break;
		free(vg->meta);
		vg->meta = m;
		return;
	}
	free(m);
}

/* Whether rescue-init may activate lv of vg (rd.lvm.vg=, rd.lvm.lv=). */
static bool lv_wanted(const struct lvm_vg *vg, const struct lvmmeta_lv *lv)
{
	size_t i, n = strlen(vg->name);

	if (whole_vg(vg))
		return lv->visible;
	for (i = 0; i < nonly_lv; i++)
		if (lv_of(only_lv[i], vg->name) &&
		    !strcmp(only_lv[i] + n + 1, lv->name))
			return true;
	return false;
}

/*
 * Why the fast path cannot activate vg (NULL: it can), with devs[] the
 * MAJ:MIN of each of the metadata's PVs.
 */
static const char *plain_plan(const struct lvm_vg *vg, const char **devs,
			      char *why, size_t size)
{
	const struct lvmmeta_vg *m = vg->meta;
	const struct lvmmeta_lv *lv;
	const char *r;
	size_t i, j;

	if (!m)
		return "its PVs were read by lvm";
	if (seen(vg) != vg->npv)
		return "PVs missing";
	if (!m->read || m->exported || m->foreign)
		return "the VG is exported, foreign, shared or flagged";
	for (i = 0; i < m->npvs; i++) {
		devs[i] = NULL;
		for (j = 0; j < vg->npv; j++)
			if (lvmreport_same_uuid(vg->pv[j].uuid, m->pv[i].id))
				devs[i] = vg->pv[j].devno;
		if (!devs[i] || !devs[i][0])
			return "a PV of its metadata not seen";
	}
	for (i = 0; i < nonly_lv; i++)
		if (lv_of(only_lv[i], vg->name) && !whole_vg(vg) &&
		    !lvmmeta_find_lv(m, only_lv[i] + strlen(vg->name) + 1)) {
			snprintf(why, size, "no LV %s in its metadata",
				 only_lv[i]);
			return why;
		}
	for (i = 0; i < m->nlvs; i++) {
		lv = &m->lv[i];
		if (!lv_wanted(vg, lv))
			continue;
		r = lvmmeta_not_plain(m, lv);
		if (r) {
			snprintf(why, size, "LV %s is %s", lv->name, r);
			return why;
		}
	}
	return NULL;
}

/* One LV's dm device: 0, 1 when it was active already, or -errno. */
static int dm_activate_lv(const struct lvmmeta_vg *m,
			  const struct lvmmeta_lv *lv, const char **devs)
{
	char name[LVM_NAME_MAX * 4 + 2], uuid[80], dev[32];
	struct dmtable_target *t;
	unsigned minor;
	size_t i;
	int err;

	err = lvmmeta_dm_name(m, lv, name, sizeof(name), uuid, sizeof(uuid));
	if (err)
		return err;
	if (!dm_find(name, dev, sizeof(dev)))
		return 1;
	t = calloc(lv->nsegs, sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (i = 0; i < lv->nsegs && !err; i++)
		err = lvmmeta_target(m, lv, i, devs, &t[i].start, &t[i].len,
				     t[i].type, sizeof(t[i].type),
				     t[i].params, sizeof(t[i].params));
	if (!err)
		err = dmtable_create(name, uuid, readonly_strict() ||
				     !lv->write, t, lv->nsegs, &minor);
	free(t);
	return err;
}

/* The planned LVs of vg: 0, or -errno after the line which failed. */
static int dm_activate(const struct lvm_vg *vg, const char **devs)
{
	const struct lvmmeta_vg *m = vg->meta;
	size_t i;
	int err;

	for (i = 0; i < m->nlvs; i++) {
		if (!lv_wanted(vg, &m->lv[i]))
			continue;
		err = dm_activate_lv(m, &m->lv[i], devs);
		if (err < 0) {
			log_warn("lvm: LV %s/%s: its device-mapper table was "
				 "refused (%s), lvm activates the VG",
				 vg->name, m->lv[i].name, errtext(-err));
			return err;
		}
	}
	return 0;
}

/*
 * The LVs of vg (rd.lvm.lv=: those named): by dm ioctls from its
 * metadata when every wanted LV is plain, else by lvm, vgchange -aay VG
 * or lvchange -ay of its LVs rd.lvm.lv= names, with the line why.
 */
static int activate(struct lvm_vg *vg, const char *why)
{
	const char *args[8 + LVM_SEL_MAX], *devs[LVMMETA_PVS_MAX];
	char devlist[LVM_PVS_MAX * 72], whynot[LVM_NAME_MAX + 80];
	size_t n = 0, i, before, len = 0;
	const char *slow;
	char what[256] = "";
	int r;

	vg->activated = true;
	vg->complete = seen(vg) == vg->npv;
	before = active_lvs(vg);
	slow = plain_plan(vg, devs, whynot, sizeof(whynot));
	if (slow && vg->meta)
		log_info("lvm: volume group %s: lvm activates it: %s",
			 vg->name, slow);
	for (i = 0; !whole_vg(vg) && i < nonly_lv; i++)
		if (lv_of(only_lv[i], vg->name) && len < sizeof(what))
			len += (size_t)snprintf(what + len, sizeof(what) - len,
						" %s", only_lv[i]);
	log_info("lvm: activating %s%s (volume group %s, UUID %s, %s)%s%s",
		 whole_vg(vg) ? "the LVs of " : "rd.lvm.lv=",
		 whole_vg(vg) ? vg->name : what + 1, vg->name, vg->uuid, why,
		 readonly_strict() ? ", read-only" : "",
		 slow ? "" : " with device-mapper ioctls, no lvm run");
	if (!slow && !dm_activate(vg, devs))
		goto done;
	pv_nodes(vg, devlist, sizeof(devlist));
	args[n++] = "--devices";
	args[n++] = devlist;
	args[n++] = "--sysinit";
	args[n++] = whole_vg(vg) ? "-aay" : "-ay";
	if (whole_vg(vg))
		args[n++] = vg->name;
	for (i = 0; !whole_vg(vg) && i < nonly_lv && n + 1 < ARRAY_SIZE(args);
	     i++)
		if (lv_of(only_lv[i], vg->name))
			args[n++] = only_lv[i];
	r = run_lvm(whole_vg(vg) ? "vgchange" : "lvchange", args, n, vg->name,
		    NULL, 0);
	if (r < 0)
		return r;
	if (r > 0)
		log_warn("lvm: activating volume group %s failed (lvm exit "
			 "status %d): its lines above say why", vg->name, r);
done:
	r = (int)(active_lvs(vg) - before);
	log_info("lvm: volume group %s: %d LVs activated%s", vg->name, r,
		 readonly_strict() ? " read-only" : "");
	return r;
}

/*
 * What the PV d is, from lvm, which reads this device only and lists
 * every PV of its VG: *pvp in *vgp, or NULL for a PV in no VG.
 */
static int learn(const struct blkdev *d, struct lvm_vg **vgp,
		 struct lvm_pv **pvp)
{
	static struct lvm_pv_record recs[LVM_PVS_MAX * 2];
	static char out[LVM_OUT_MAX];
	const char *args[] = {
		"--devices", d->node, "--noheadings", "--nameprefixes",
		"-o", "pv_name,pv_uuid,pv_missing,vg_name,vg_uuid",
	};
	struct lvm_vg *vg;
	size_t n, i, j;
	int r;

	*pvp = NULL;
	r = run_lvm("pvs", args, ARRAY_SIZE(args), NULL, out, sizeof(out));
	if (r < 0)
		return r;
	n = lvmreport_parse(out, recs, ARRAY_SIZE(recs));
	for (i = 0; i < n; i++) {
		if (!recs[i].vg_name[0])
			continue;
		vg = find_vg(recs[i].vg_name, recs[i].vg_uuid);
		if (!vg)
			return -ENOSPC;
		for (j = 0; j < vg->npv; j++)
			if (lvmreport_same_uuid(vg->pv[j].uuid,
						recs[i].pv_uuid))
				break;
		if (j == vg->npv && vg->npv < LVM_PVS_MAX)
			snprintf(vg->pv[vg->npv++].uuid, LVM_UUID_MAX, "%s",
				 recs[i].pv_uuid);
		if (j < vg->npv && !recs[i].missing && !vg->pv[j].dev[0]) {
			*vgp = vg;
			*pvp = &vg->pv[j];
		}
	}
	if (!*pvp)
		log_info("lvm: %s is a physical volume of no volume group%s",
			 d->node, r ? " lvm could read" : "");
	return *pvp || !r ? 0 : -EIO;
}

/*
 * One PV UUID on two devices, d and the one at twin: a copy of one disk
 * (dd, a USB backup).  Which one the VG is made of must not depend on
 * the probe order: the VG is not activated, with one line, as for two
 * filesystems matching root=.  A copy that comes after the VG was
 * activated is said, and not used.
 */
static int pv_clash(const struct blkdev *d, struct lvm_vg *vg,
		    const struct lvm_pv *pv, const char *twin)
{
	if (vg->activated) {
		log_error("lvm: %s has the PV UUID %s of %s, in volume group "
			  "%s, active already: not used (a copy of one disk?)",
			  d->node, pv->uuid, twin, vg->name);
		return -ENOTUNIQ;
	}
	if (vg->clash)
		return -ENOTUNIQ;	/* said once */
	vg->clash = true;
	log_error("lvm: %s and %s are one PV %s of volume group %s (a copy "
		  "of one disk?): the volume group is not activated; detach "
		  "the copy, or give it UUIDs of its own (vgimportclone)",
		  d->node, twin, pv->uuid, vg->name);
	return -ENOTUNIQ;
}

static int lvm_device_added(const struct blkdev *d)
{
	struct lvm_vg *vg = NULL;
	struct lvm_pv *pv;
	char twin[80];
	int err;

	pv = find_pv(d->uuid, &vg);
	if (pv && vg->recheck)		/* the copy may be gone */
		vg->clash = vg->recheck = false;
	if (pv && pv->dev[0] && !strcmp(pv->dev, d->name))
		return 0;		/* taken already */
	if (pv && pv->dev[0]) {
		snprintf(twin, sizeof(twin), "/dev/%s", pv->dev);
		return pv_clash(d, vg, pv, twin);
	}
	if (pv && vg->clash)
		return -ENOTUNIQ;	/* its twin said it */
	if (dm_ready())
		return -ENODEV;
	if (pv) {
		newer_meta(d, vg);
	} else {
		err = learn_meta(d, &vg, &pv);
		if (err == -EAGAIN)
			err = learn(d, &vg, &pv);
		if (err || !pv)
			return err;
	}
	if (storage_find_twin(d, twin, sizeof(twin)) == 0)
		return pv_clash(d, vg, pv, twin);
	snprintf(pv->dev, sizeof(pv->dev), "%s", d->name);
	snprintf(pv->devno, sizeof(pv->devno), "%u:%u", d->major, d->minor);
	if (!wanted(vg)) {
		log_info("lvm: %s left alone: its volume group %s is not in "
			 "rd.lvm.vg= or rd.lvm.lv=", d->node, vg->name);
		return 0;
	}
	log_info("lvm: %s is PV %s of volume group %s (UUID %s), %zu of %zu "
		 "PVs there", d->node, pv->uuid, vg->name, vg->uuid, seen(vg),
		 vg->npv);
	if (seen(vg) == vg->npv && !vg->complete) {
		/* after root_wait_over(): what its missing PVs held can run */
		err = activate(vg, vg->activated ? "its last PV came late" :
			       "all its PVs there");
		return err < 0 ? err : 0;
	}
	return 0;
}

static void lvm_device_removed(const char *name)
{
	size_t i, j;

	for (i = 0; i < nvgs; i++)
		for (j = 0; j < vgs[i].npv; j++)
			if (!strcmp(vgs[i].pv[j].dev, name) &&
			    !vgs[i].activated)
				vgs[i].pv[j].dev[0] = '\0';
}

/* "Rescue-...-span02, ..." of the PVs not seen. */
static void missing_pvs(const struct lvm_vg *vg, char *buf, size_t size)
{
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < vg->npv && n < size; i++)
		if (!vg->pv[i].dev[0])
			n += (size_t)snprintf(buf + n, size - n, "%s%s",
					      n ? ", " : "", vg->pv[i].uuid);
}

/*
 * The root wait ended: a wanted VG still missing PVs is named with the
 * UUIDs of those, then activated in lvm's default activation mode
 * ("degraded"): the LVs whose PVs are all there, and RAID LVs that can
 * run without a leg; never a linear LV with a hole (that takes
 * --activationmode partial, by hand in the rescue shell).
 */
static int lvm_root_wait_over(void)
{
	char missing[512];
	int started = 0, r;
	size_t i;

	for (i = 0; i < nvgs; i++) {
		struct lvm_vg *vg = &vgs[i];

		if (vg->clash) {	/* looked at again at the next attempt */
			vg->recheck = true;
			continue;
		}
		if (vg->activated || !wanted(vg))
			continue;
		missing_pvs(vg, missing, sizeof(missing));
		log_warn("lvm: volume group %s (UUID %s) is incomplete: %zu of "
			 "%zu PVs, missing PV %s", vg->name, vg->uuid, seen(vg),
			 vg->npv, missing);
		r = activate(vg, "incomplete, what can run without the "
			     "missing PVs");
		if (r > 0)
			started += r;
	}
	return started;
}

/*
 * /dev/VG/LV -> /dev/mapper/VG-LV, as lvm links it without udev,
 * unless lvm did: the fast path runs no lvm, and the rescue shell's
 * user types these names.
 */
static void vg_link(const char *vg, const char *lv, const char *dmname)
{
	char path[2 * LVM_NAME_MAX + 8], target[LVM_NAME_MAX * 4 + 16];

	if (!lvmreport_valid_name(vg) || !lvmreport_valid_name(lv))
		return;
	snprintf(path, sizeof(path), "/dev/%s", vg);
	if (mkdir(path, 0755) && errno != EEXIST)
		return;
	snprintf(path, sizeof(path), "/dev/%s/%s", vg, lv);
	snprintf(target, sizeof(target), "/dev/mapper/%s", dmname);
	if (symlink(target, path) && errno != EEXIST)
		log_warn("lvm: unable to link %s to %s: %s", path, target,
			 errtext(errno));
}

/* An LV's dm-N: /dev/mapper/VG-LV (dm.c) and /dev/VG/LV as aliases. */
static void lvm_device_seen(struct blkdev *d)
{
	char dmname[128], uuid[160], vg[LVM_NAME_MAX], lv[LVM_NAME_MAX];
	char alias[sizeof(d->alias[0]) + LVM_NAME_MAX * 2];

	dm_annotate(d);
	if (strncmp(d->name, "dm-", 3) ||
	    dm_info(d->name, dmname, sizeof(dmname), uuid, sizeof(uuid)) ||
	    strncmp(uuid, "LVM-", 4) ||
	    strlen(uuid) != 4 + 64 ||	/* a layer: LVM-...-real, -cow */
	    lvmreport_split_dm_name(dmname, vg, sizeof(vg), lv, sizeof(lv)))
		return;
	snprintf(alias, sizeof(alias), "%s!%s", vg, lv);
	storage_add_alias(d, alias);
	vg_link(vg, lv, dmname);
}

/* "lvm VG span (UUID ...): 1 of 2 PVs vdb, missing PV ...; 0 LVs active" */
static void lvm_report(devtable_line_fn *fn, void *ctx)
{
	char line[900], missing[512], state[64];
	size_t i, j, n;

	for (i = 0; i < nvgs; i++) {
		const struct lvm_vg *vg = &vgs[i];

		if (vg->clash)
			snprintf(state, sizeof(state), "not activated: a PV "
				 "UUID on two devices");
		else if (wanted(vg))
			snprintf(state, sizeof(state), "%zu LVs active",
				 active_lvs(vg));
		else
			snprintf(state, sizeof(state), "left alone "
				 "(rd.lvm.vg=, rd.lvm.lv=)");
		n = (size_t)snprintf(line, sizeof(line), "lvm VG %s (UUID %s)"
				     ": %zu of %zu PVs", vg->name, vg->uuid,
				     seen(vg), vg->npv);
		for (j = 0; j < vg->npv && n < sizeof(line); j++)
			if (vg->pv[j].dev[0])
				n += (size_t)snprintf(line + n, sizeof(line) - n,
						      " %s", vg->pv[j].dev);
		missing_pvs(vg, missing, sizeof(missing));
		if (missing[0] && n < sizeof(line))
			n += (size_t)snprintf(line + n, sizeof(line) - n,
					      ", missing PV %s", missing);
		if (n < sizeof(line))
			snprintf(line + n, sizeof(line) - n, "; %s", state);
		fn(ctx, line);
	}
}

const struct storage_layer storage_lvm = {
	.setup = lvm_setup,
	.device_added = lvm_device_added,
	.device_removed = lvm_device_removed,
	.root_wait_over = lvm_root_wait_over,
	.device_seen = lvm_device_seen,
	.report = lvm_report,
};
