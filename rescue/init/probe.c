// SPDX-License-Identifier: GPL-2.0
/* probe.c: identify block devices with libblkid, read-only, once each. */
#include <blkid/blkid.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rescue-init.h"
#include "storage-layers.h"

/*
 * The filesystems this kernel can mount, by libblkid's names: the boot
 * probes only for these, which on TCG takes a quarter of the time of
 * trying every signature.  Empty: no filter.  crypto_LUKS is not
 * among them: luks_wanted says it was asked for (below).
 */
static char *probe_fs[96];
static size_t probe_fs_count;

/*
 * LUKS is looked for at its primary header, offset 0, only.  Where that
 * is not, libblkid 2.38's crypto_LUKS prober looks for a LUKS2 secondary
 * header at nine offsets from 16 KiB to 4 MiB, and takes one for the
 * device's own: a disk once LUKS2 and repartitioned without a wipe (the
 * GPT overwrote the primary) then asked for a passphrase at boot, and a
 * filesystem holding a LUKS image as a file hid behind it (util-linux
 * issue 4170; its safeprobe no longer looks there since).  It also cost
 * seven reads of every other disk.  So the magic at 0 decides: probe
 * for crypto_LUKS alone where it is, for everything else where it is not.
 * A container whose primary header is lost is cryptsetup's to repair,
 * from the rescue shell.  LUKS_TYPE is the name of that prober, whose
 * magic luks_magic is: libblkid's fact, which the table of storage
 * layers names too (the luks layer claims it), not one of its own.
 */
#define LUKS_TYPE	"crypto_LUKS"
static const unsigned char luks_magic[] = { 'L', 'U', 'K', 'S', 0xba, 0xbe };
static char *luks_type[] = { LUKS_TYPE, NULL };
static bool luks_wanted;

static void add_fs(const char *name)
{
	size_t i;

	if (!strcmp(name, LUKS_TYPE)) {
		luks_wanted = true;
		return;
	}
	if (!strcmp(name, "msdos") || !strcmp(name, "fat"))
		name = "vfat";
	else if (!strcmp(name, "ntfs3"))
		name = "ntfs";
	for (i = 0; i < probe_fs_count; i++)
		if (!strcmp(probe_fs[i], name))
			return;
	if (probe_fs_count + 1 < ARRAY_SIZE(probe_fs) &&
	    (probe_fs[probe_fs_count] = strdup(name)))
		probe_fs_count++;
	if (!strcmp(name, "ext4")) {	/* ext4 mounts ext2 and ext3 too */
		add_fs("ext3");
		add_fs("ext2");
	}
}

/*
 * From /proc/filesystems, fs-* aliases when there are modules, and the
 * signatures of rescue/share/storage-layers: those the storage layers
 * claim, and those of members of arrays and volumes (members.c: they
 * must be seen to be refused, whether their layer is on or not).
 */
void probe_init_filesystems(void)
{
	char fs[4096], *line, *nl;

	if (mounts_read_proc("/proc/filesystems", fs, sizeof(fs)))
		return;
	for (line = fs; *line; line = nl) {
		nl = line + strcspn(line, "\n");
		if (*nl)
			*nl++ = '\0';
		if (strncmp(line, "nodev", 5) && line[strspn(line, " \t")])
			add_fs(line + strspn(line, " \t"));
	}
	modload_filesystems(add_fs);
#define STORAGE_TYPE(type) add_fs(type);
	STORAGE_TYPES
#undef STORAGE_TYPE
	probe_fs[probe_fs_count] = NULL;
}

static bool has_luks_magic(blkid_probe pr)
{
	unsigned char buf[sizeof(luks_magic)];

	return pread(blkid_probe_get_fd(pr), buf, sizeof(buf), 0) ==
		(ssize_t)sizeof(buf) && !memcmp(buf, luks_magic, sizeof(buf));
}

/*
 * Which signatures to look for: those of the kernel's filesystems and
 * the storage layers (none: every one when asked for the full account),
 * and crypto_LUKS only where its primary header is (above).
 */
static void filter_types(blkid_probe pr, bool full)
{
	bool luks = (full || luks_wanted) && has_luks_magic(pr);

	if (luks)
		blkid_probe_filter_superblocks_type(pr, BLKID_FLTR_ONLYIN,
						    luks_type);
	else if (full)
		blkid_probe_filter_superblocks_type(pr, BLKID_FLTR_NOTIN,
						    luks_type);
	else
		blkid_probe_filter_superblocks_type(pr, BLKID_FLTR_ONLYIN,
						    probe_fs);
}

static void copy_value(blkid_probe pr, const char *name, char *buf, size_t size)
{
	const char *v;

	if (blkid_probe_lookup_value(pr, name, &v, NULL) == 0)
		snprintf(buf, size, "%s", v);
}

static int probe_open(const struct blkdev *d, int *fd, blkid_probe *pr)
{
	*fd = open(d->node, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (*fd < 0)
		return -errno;
	*pr = blkid_new_probe();
	if (!*pr) {
		close(*fd);
		return -ENOMEM;
	}
	if (blkid_probe_set_device(*pr, *fd, 0, 0)) {
		blkid_free_probe(*pr);
		close(*fd);
		return -EIO;
	}
	return 0;
}

static void probe_superblock(blkid_probe pr, struct blkdev *d, bool full)
{
	int rc;

	d->type[0] = d->uuid[0] = d->label[0] = d->usage[0] = '\0';
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE |
					  BLKID_SUBLKS_UUID |
					  BLKID_SUBLKS_LABEL |
					  BLKID_SUBLKS_USAGE);
	blkid_probe_enable_partitions(pr, 0);
	if (full || probe_fs_count || luks_wanted)
		filter_types(pr, full);
	rc = blkid_do_safeprobe(pr);
	if (rc == 0) {
		copy_value(pr, "TYPE", d->type, sizeof(d->type));
		copy_value(pr, "UUID", d->uuid, sizeof(d->uuid));
		copy_value(pr, "LABEL", d->label, sizeof(d->label));
		copy_value(pr, "USAGE", d->usage, sizeof(d->usage));
	} else if (rc == -2) {
		log_warn("unable to identify %s: more than one filesystem "
			 "signature (wipefs shows them)", d->node);
	}
	d->sb_probed = true;
	d->sb_full = full;
}

/* A disk's partition table, kept in d->parts for its partitions. */
static int probe_table(blkid_probe pr, struct blkdev *d)
{
	blkid_partlist ls;
	blkid_parttable tab;
	blkid_partition par;
	const char *s;
	int i, n;

	d->pt_probed = true;
	ls = blkid_probe_get_partitions(pr);
	if (!ls)
		return 0;
	tab = blkid_partlist_get_table(ls);
	if (tab && (s = blkid_parttable_get_type(tab)))
		snprintf(d->pttype, sizeof(d->pttype), "%s", s);
	n = blkid_partlist_numof_partitions(ls);
	if (n <= 0)
		return 0;
	d->parts = calloc(n, sizeof(*d->parts));
	if (!d->parts)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct ptentry *e = &d->parts[d->nparts];

		par = blkid_partlist_get_partition(ls, i);
		if (!par)
			continue;
		e->partno = blkid_partition_get_partno(par);
		if ((s = blkid_partition_get_uuid(par)))
			snprintf(e->uuid, sizeof(e->uuid), "%s", s);
		if ((s = blkid_partition_get_name(par)))
			snprintf(e->name, sizeof(e->name), "%s", s);
		d->nparts++;
	}
	return 0;
}

static void fill_partition(struct blkdev *p, const struct blkdev *disk)
{
	size_t i;

	p->pt_probed = true;
	for (i = 0; i < disk->nparts; i++) {
		if (disk->parts[i].partno != p->partno)
			continue;
		snprintf(p->partuuid, sizeof(p->partuuid), "%s",
			 disk->parts[i].uuid);
		snprintf(p->partlabel, sizeof(p->partlabel), "%s",
			 disk->parts[i].name);
	}
}

/*
 * Probe l->dev[i] for what is asked and not known yet: its filesystem
 * (PROBE_SB), and its partition table entry (PROBE_PT), which for a
 * partition comes from probing its disk's table once.  PROBE_FULL asks
 * for every signature libblkid knows, not only the kernel's filesystems.
 */
int probe_device(struct blklist *l, size_t i, unsigned what)
{
	struct blkdev *d = &l->dev[i];
	bool full = what & PROBE_FULL, want_sb, want_pt;
	blkid_probe pr = NULL;
	uint64_t t0;
	ssize_t disk;
	int fd, err;

	if (d->sectors == 0)
		return 0;	/* empty drive: nothing to read */
	if ((what & PROBE_PT) && d->partno && !d->pt_probed) {
		disk = blk_find(l, d->disk);
		if (disk >= 0) {
			err = probe_device(l, (size_t)disk, PROBE_PT);
			if (err)
				return err;
			fill_partition(&l->dev[i], &l->dev[disk]);
		}
		d = &l->dev[i];
		d->pt_probed = true;
	}
	want_sb = (what & PROBE_SB) && (!d->sb_probed || (full && !d->sb_full));
	want_pt = (what & PROBE_PT) && !d->partno && !d->pt_probed;
	if (!want_sb && !want_pt)
		return 0;
	t0 = log_now_us();
	err = probe_open(d, &fd, &pr);
	if (err || !pr) {
		log_debug("unable to open %s: %s", d->node, errtext(-err));
		d->sb_probed = d->sb_full = d->pt_probed = true;
		return 0;
	}
	if (want_sb)
		probe_superblock(pr, d, full);
	if (want_pt)
		err = probe_table(pr, d);
	blkid_free_probe(pr);
	close(fd);
	log_debug("probed %s in %llu us", d->node,
		  (unsigned long long)(log_now_us() - t0));
	return err;
}

/* Probe every device; the number of devices there are to look at. */
size_t probe_all(struct blklist *l, unsigned what)
{
	size_t i, n = 0;

	for (i = 0; i < l->n; i++) {
		if (l->dev[i].sectors == 0)
			continue;
		probe_device(l, i, what);
		n++;
	}
	return n;
}
