// SPDX-License-Identifier: GPL-2.0
/*
 * mklayout-script.c: build.sh, the exact commands that make the disk
 * images of a layout, as plain files, without root privileges or loop
 * devices: truncate, sfdisk, mke2fs -d (then debugfs, which sets the
 * times and owners mke2fs copies from the host), mkfs.vfat.  Every
 * identifier, hash seed and time is written out, so that a seed always
 * gives byte-identical images.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "mklayout.h"

#define FAKE_TIME	1262304000	/* 2010-01-01, for every timestamp */
#define SECTORS_PER_MIB	2048

#define GPT_LINUX_FS	"0FC63DAF-8483-4772-8E79-3D69D8477DE4"
#define GPT_BASIC_DATA	"EBD0A0A2-B9E5-4433-87C0-68B6B72699C7"

/* The init of every root tree, the real one's and the impostors'. */
static const char report_init[] =
	"#!/bin/sh\n"
	"# Report the root this init runs on in one line, then power off.\n"
	"[ -r /proc/mounts ] || mount -t proc proc /proc\n"
	"[ -d /sys/dev/block ] || mount -t sysfs sysfs /sys\n"
	"majmin=$(awk '$5 == \"/\" { m = $3 } END { print m }' /proc/self/mountinfo)\n"
	"dev=$(sed -n 's/^DEVNAME=//p' \"/sys/dev/block/$majmin/uevent\")\n"
	"set -- $(awk '$2 == \"/\" { s = $1; t = $3; split($4, o, \",\"); m = o[1] }"
	" END { print s, t, m }' /proc/mounts)\n"
	"# No kernel message (a USB disk arriving late) in the middle of the line.\n"
	"echo 1 >/proc/sys/kernel/printk\n"
	"echo \"TEST RESULT: root marker=$(cat /marker) dev=/dev/$dev majmin=$majmin"
	" source=$1 fstype=$2 mode=$3 init=$0\"\n"
	"reboot -f\n";

static const char prologue[] =
	"set -eu\n"
	"export LC_ALL=C TZ=UTC E2FSPROGS_FAKE_TIME=%d\n"
	"umask 022\n"
	"BUSYBOX=${BUSYBOX:-%s}\n"
	"\n"
	"cat >report-init <<'EOF'\n%sEOF\n"
	"\n"
	"# root_tree DIR MARKER: busybox, the init as /sbin/init and as\n"
	"# /sbin/seed-init (for init=), and /marker.\n"
	"root_tree() {\n"
	"\tmkdir \"$1\" \"$1/bin\" \"$1/sbin\" \"$1/dev\" \"$1/proc\" \"$1/sys\" \"$1/run\" \"$1/tmp\"\n"
	"\tcp \"$BUSYBOX\" \"$1/bin/busybox\"\n"
	"\tfor applet in sh mount awk sed cat reboot; do\n"
	"\t\tln -s busybox \"$1/bin/$applet\"\n"
	"\tdone\n"
	"\tcp report-init \"$1/sbin/init\"\n"
	"\tcp report-init \"$1/sbin/seed-init\"\n"
	"\tchmod 0755 \"$1/sbin/init\" \"$1/sbin/seed-init\"\n"
	"\techo \"$2\" >\"$1/marker\"\n"
	"}\n"
	"\n"
	"# data_tree DIR MARKER: files, but no init.\n"
	"data_tree() {\n"
	"\tmkdir \"$1\" \"$1/etc\"\n"
	"\techo \"$2\" >\"$1/marker\"\n"
	"}\n"
	"\n"
	"# make_ext TYPE IMAGE OFFSET SIZE_KIB UUID HASH_SEED LABEL TREE: mke2fs -d\n"
	"# copies each inode's ctime and owner from TREE; debugfs sets them.\n"
	"make_ext() {\n"
	"\tmke2fs -q -F -t \"$1\" -U \"$5\" -E \"offset=$3,hash_seed=$6\" -L \"$7\" -d \"$8\" \"$2\" \"${4}k\"\n"
	"\t(cd \"$8\" && find . | sort) | sed 's|^\\.||; s|^$|/|' | while read -r path; do\n"
	"\t\tfor field in atime mtime ctime crtime; do\n"
	"\t\t\techo \"sif $path $field $E2FSPROGS_FAKE_TIME\"\n"
	"\t\tdone\n"
	"\t\techo \"sif $path uid 0\"\n"
	"\t\techo \"sif $path gid 0\"\n"
	"\tdone >\"$8.debugfs\"\n"
	"\tdebugfs -w -f \"$8.debugfs\" \"$2?offset=$3\" >/dev/null 2>\"$8.log\"\n"
	"\tif grep -v '^debugfs [0-9]' \"$8.log\" >&2; then\n"
	"\t\techo \"debugfs failed on $2 at $3\" >&2\n"
	"\t\texit 1\n"
	"\tfi\n"
	"\trm -rf \"$8\" \"$8.debugfs\" \"$8.log\"\n"
	"}\n"
	"\n"
	"# make_vfat IMAGE OFFSET_SECTORS SIZE_KIB VOLUME_ID LABEL\n"
	"make_vfat() {\n"
	"\tif ! mkfs.vfat --invariant --mbr=n -i \"$4\" ${5:+-n \"$5\"} --offset \"$2\" \"$1\" \"$3\" \\\n"
	"\t\t>vfat.log 2>&1; then\n"
	"\t\tcat vfat.log >&2\n"
	"\t\texit 1\n"
	"\tfi\n"
	"\trm -f vfat.log\n"
	"}\n";

/* What every build.sh starts with: the shell functions of the trees and
 * filesystems (the stacked layouts' build.sh uses them too). */
void script_prologue(FILE *f, uint64_t seed, const char *busybox)
{
	fprintf(f, "#!/bin/sh\n# mklayout --seed %llu: the commands that make the disk images\n"
		"# of layout.txt; run in this directory.\n", (unsigned long long)seed);
	fprintf(f, prologue, FAKE_TIME, busybox, report_init);
}

void disk_file_name(unsigned int index, char *buf, size_t size)
{
	snprintf(buf, size, "disk%02u.img", index);
}

static void write_sfdisk(FILE *f, const struct disk *d, const char *file)
{
	const struct partition *part;
	unsigned int p;

	fprintf(f, "sfdisk -q --no-reread --no-tell-kernel %s <<'EOF'\n", file);
	fprintf(f, "label: %s\nlabel-id: %s\nunit: sectors\n",
		d->table == TABLE_GPT ? "gpt" : "dos", d->label_id);
	for (p = 0; p < d->nparts; p++) {
		part = &d->part[p];
		fprintf(f, "%s%u : start=%u, size=%u, type=", file, part->number,
			part->start_mib * SECTORS_PER_MIB, part->vol.size_mib * SECTORS_PER_MIB);
		if (d->table == TABLE_MBR) {
			fputs(part->extended ? "5" : part->vol.fs == FS_VFAT ? "c" : "83", f);
		} else {
			fprintf(f, "%s, uuid=%s", part->vol.fs == FS_VFAT ? GPT_BASIC_DATA :
				GPT_LINUX_FS, part->partuuid);
			if (part->partlabel[0])
				fprintf(f, ", name=\"%s\"", part->partlabel);
		}
		fputc('\n', f);
	}
	fputs("EOF\n", f);
}

/* The commands of one filesystem at START_MIB of FILE: partition NUMBER
 * of disk INDEX, or the whole disk when NUMBER is 0. */
static void write_volume(FILE *f, const struct layout *l, const struct volume *vol,
			 unsigned int index, unsigned int number, unsigned int start_mib)
{
	unsigned long long seed = (unsigned long long)l->seed;
	char file[32], tree[32];

	if (vol->fs == FS_NONE)
		return;
	disk_file_name(index, file, sizeof(file));
	if (number)
		snprintf(tree, sizeof(tree), "tree-%u-%u", index, number);
	else
		snprintf(tree, sizeof(tree), "tree-%u", index);
	if (number)
		fprintf(f, "# partition %u: %s\n", number, role_name(vol->role));
	else
		fprintf(f, "# the whole disk: %s\n", role_name(vol->role));
	if (vol->fs == FS_VFAT) {
		fprintf(f, "make_vfat %s %u %u %08X '%s'\n", file, start_mib * SECTORS_PER_MIB,
			vol->size_mib * 1024, vol->volume_id, vol->label);
		return;
	}
	if (vol->role == ROLE_ROOT)
		fprintf(f, "root_tree %s %llu\n", tree, seed);
	else if (vol->has_init)
		fprintf(f, "root_tree %s impostor-%llu\n", tree, seed);
	else
		fprintf(f, "data_tree %s decoy-%llu\n", tree, seed);
	fprintf(f, "make_ext %s %s %llu %u %s %s '%s' %s\n", fs_name(vol->fs), file,
		(unsigned long long)start_mib * MIB, vol->size_mib * 1024, vol->uuid,
		vol->hash_seed, vol->label, tree);
}

static void write_disk(FILE *f, const struct layout *l, unsigned int i)
{
	const struct disk *d = &l->disk[i];
	char file[32];
	unsigned int p;

	disk_file_name(i, file, sizeof(file));
	fprintf(f, "\n# disk %u: %s, table %s\n", i, bus_name(d->bus), table_name(d->table));
	fprintf(f, "rm -f %s\ntruncate -s %uM %s\n", file, d->size_mib, file);
	if (d->table == TABLE_NONE) {
		write_volume(f, l, &d->whole, i, 0, 0);
		return;
	}
	write_sfdisk(f, d, file);
	for (p = 0; p < d->nparts; p++)
		if (!d->part[p].extended)
			write_volume(f, l, &d->part[p].vol, i, d->part[p].number,
				     d->part[p].start_mib);
}

int script_write(const struct layout *l, const char *dir, const char *busybox)
{
	char path[4096];
	unsigned int i;
	FILE *f;

	snprintf(path, sizeof(path), "%s/build.sh", dir);
	f = fopen(path, "w");
	if (!f) {
		msg_error("unable to create %s: %s", path, strerror(errno));
		return -errno;
	}
	script_prologue(f, l->seed, busybox);
	for (i = 0; i < l->ndisks; i++)
		write_disk(f, l, i);
	fputs("\nrm -f report-init\n", f);
	if (ferror(f) | fclose(f)) {
		msg_error("unable to write %s: %s", path, strerror(errno));
		return -EIO;
	}
	return 0;
}
