// SPDX-License-Identifier: GPL-2.0
/*
 * probe.c: identify one block device with libblkid, read-only.  It runs
 * in a worker process (probework.c), never in PID 1 itself: a disk that
 * errors is named with the sector it failed at, one that hangs holds
 * only its worker.
 */
#include <blkid/blkid.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/fs.h>

#include "rescue-init.h"
#include "probe.h"
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
	/* resume= names a swap by UUID or LABEL (storage/resume.c) */
	add_fs("swap");
	add_fs("swsuspend");
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

/* Its filesystem or layer signature; -errno when reading failed. */
static int probe_superblock(blkid_probe pr, struct probe_answer *a, bool full)
{
	int rc;

	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE |
					  BLKID_SUBLKS_UUID |
					  BLKID_SUBLKS_LABEL |
					  BLKID_SUBLKS_USAGE);
	blkid_probe_enable_partitions(pr, 0);
	if (full || probe_fs_count || luks_wanted)
		filter_types(pr, full);
	errno = 0;
	rc = blkid_do_safeprobe(pr);
	if (rc == 0) {
		copy_value(pr, "TYPE", a->type, sizeof(a->type));
		copy_value(pr, "UUID", a->uuid, sizeof(a->uuid));
		copy_value(pr, "LABEL", a->label, sizeof(a->label));
		copy_value(pr, "USAGE", a->usage, sizeof(a->usage));
	} else if (rc == -2) {
		a->ambiguous = true;
	} else if (rc < 0) {
		return errno ? -errno : -EIO;
	}
	a->done |= PROBE_SB | (full ? PROBE_FULL : 0);
	return 0;
}

/* A disk's partition table, its entries for its partitions. */
static int probe_table(blkid_probe pr, struct probe_answer *a)
{
	blkid_partlist ls;
	blkid_parttable tab;
	blkid_partition par;
	const char *s;
	int i, n;

	errno = 0;
	ls = blkid_probe_get_partitions(pr);
	if (!ls)
		return errno == EIO ? -EIO : 0;
	a->done |= PROBE_PT;
	tab = blkid_partlist_get_table(ls);
	if (tab && (s = blkid_parttable_get_type(tab)))
		snprintf(a->pttype, sizeof(a->pttype), "%s", s);
	n = blkid_partlist_numof_partitions(ls);
	for (i = 0; i < n && a->nparts < PROBE_PARTS_MAX; i++) {
		struct ptentry *e = &a->parts[a->nparts];

		par = blkid_partlist_get_partition(ls, i);
		if (!par)
			continue;
		e->partno = blkid_partition_get_partno(par);
		if ((s = blkid_partition_get_uuid(par)))
			snprintf(e->uuid, sizeof(e->uuid), "%s", s);
		if ((s = blkid_partition_get_name(par)))
			snprintf(e->name, sizeof(e->name), "%s", s);
		a->nparts++;
	}
	return 0;
}

/* Whether LEN bytes at OFF of the O_DIRECT fd read. */
static bool reads(int fd, void *buf, size_t len, uint64_t off)
{
	return pread(fd, buf, len, (off_t)off) == (ssize_t)len;
}

/*
 * The first sector (of 512 bytes) of NODE that does not read, among
 * its first PROBE_SCAN_BYTES, where every signature libblkid looks for
 * at the start sits: read in chunks with O_DIRECT (no page cache, no
 * readahead between us and the disk), the failing chunk halved down to
 * one logical block.  UINT64_MAX when all of them read.
 */
#define PROBE_SCAN_BYTES	(1024 * 1024)
#define PROBE_SCAN_CHUNK	(64 * 1024)
static uint64_t first_bad_sector(const char *node, uint64_t sectors)
{
	static char buf[PROBE_SCAN_CHUNK] __attribute__((aligned(4096)));
	uint64_t end = sectors * 512, off, lo, len;
	int fd, bsize = 512;

	fd = open(node, O_RDONLY | O_DIRECT | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return UINT64_MAX;
	if (ioctl(fd, BLKSSZGET, &bsize) || bsize < 512 || bsize > PROBE_SCAN_CHUNK)
		bsize = 512;
	if (end > PROBE_SCAN_BYTES)
		end = PROBE_SCAN_BYTES;
	for (off = 0; off + (uint64_t)bsize <= end; off += PROBE_SCAN_CHUNK) {
		len = end - off < PROBE_SCAN_CHUNK ? end - off : PROBE_SCAN_CHUNK;
		len -= len % (uint64_t)bsize;
		if (reads(fd, buf, len, off))
			continue;
		lo = off;	/* [lo, lo + len) holds a bad block: halve it */
		while (len > (uint64_t)bsize) {
			uint64_t half = len / 2 - (len / 2) % (uint64_t)bsize;

			if (reads(fd, buf, half, lo)) {
				lo += half;
				len -= half;
			} else {
				len = half;
			}
		}
		close(fd);
		return lo / 512;
	}
	close(fd);
	return UINT64_MAX;
}

/*
 * Identify NODE (SECTORS long) for WHAT (PROBE_SB, PROBE_PT, PROBE_FULL)
 * into a, whose name and device number the caller set: 0, or -errno in
 * a->err too, with a->bad_sector for an I/O error.  The first 4 KiB
 * are read once before libblkid: a disk that errors there is named so
 * without libblkid's dozens of reads, each of which a failing disk may
 * take seconds to refuse.
 */
int probe_identify(const char *node, uint64_t sectors, unsigned what,
		   struct probe_answer *a)
{
	char first[4096];
	blkid_probe pr;
	int fd, err = 0;

	a->bad_sector = UINT64_MAX;
	fd = open(node, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return a->err = -errno;
	if (pread(fd, first, sizeof(first) < sectors * 512 ? sizeof(first) :
		  sectors * 512, 0) < 0)
		err = -errno;
	pr = err ? NULL : blkid_new_probe();
	if (!err && !pr)
		err = -ENOMEM;
	if (!err && blkid_probe_set_device(pr, fd, 0, 0))
		err = -EIO;
	if (!err && (what & PROBE_SB))
		err = probe_superblock(pr, a, what & PROBE_FULL);
	if (!err && (what & PROBE_PT))
		err = probe_table(pr, a);
	if (pr)
		blkid_free_probe(pr);
	close(fd);
	if (err == -EIO)
		a->bad_sector = first_bad_sector(node, sectors);
	return a->err = err;
}
