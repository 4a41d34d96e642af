// SPDX-License-Identifier: GPL-2.0
/*
 * mklayout-plan-files.c: the plan of a layout in DIR: layout.txt for
 * people; disks (one line per disk: index bus controller file bytes
 * table), cmdline (what goes after the kernel's own arguments) and
 * expect (key=value lines the runner compares with the guest's TEST
 * RESULT line, and where the root is, for the runner to make it dirty)
 * for tests/tools/random-layouts.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "mklayout.h"

FILE *open_plan_file(const char *dir, const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		msg_error("unable to create %s: %s", path, strerror(errno));
	return f;
}

int close_plan_file(FILE *f, const char *dir, const char *name)
{
	if (ferror(f) | fclose(f)) {
		msg_error("unable to write %s/%s: %s", dir, name, strerror(errno));
		return -EIO;
	}
	return 0;
}

static void describe_volume(FILE *f, const struct volume *vol)
{
	fprintf(f, "%s", role_name(vol->role));
	if (vol->fs == FS_NONE) {
		fputs(", no filesystem", f);
		return;
	}
	fprintf(f, ", %s UUID=%s", fs_name(vol->fs), vol->uuid);
	if (vol->label[0])
		fprintf(f, " LABEL=%s", vol->label);
	if (vol->has_init)
		fputs(", with an init", f);
}

static void write_layout_txt(FILE *f, const struct layout *l)
{
	const struct partition *part;
	const struct disk *d;
	char name[32], cmdline[512], file[32];
	unsigned int i, p;

	cmdline_format(l, cmdline, sizeof(cmdline));
	kernel_name(l, l->root, name, sizeof(name));
	fprintf(f, "mklayout --seed %llu: %u disk%s; the root is %s on disk %d, named by %s\n",
		(unsigned long long)l->seed, l->ndisks, l->ndisks == 1 ? "" : "s",
		name, l->root.disk, form_name(l->form));
	fprintf(f, "kernel command line: %s\n", cmdline);
	if (l->dirty != DIRTY_NO)
		fprintf(f, "dirty root: tests/tools/random-layouts leaves its journal unreplayed; booted %s\n",
			l->dirty == DIRTY_STRICT ?
			"with rescue.ro=strict, every disk stays byte-identical" :
			"without rescue.ro=strict, the replay writes the root's disk");
	fputs("(sd? names: several SCSI-type disks are named in scan order)\n", f);
	for (i = 0; i < l->ndisks; i++) {
		d = &l->disk[i];
		disk_file_name(i, file, sizeof(file));
		kernel_name(l, (struct location){ (int)i, -1 }, name, sizeof(name));
		fprintf(f, "\ndisk %u: %s", i, bus_name(d->bus));
		if (bus_is_scsi(d->bus))
			fprintf(f, "/%u", d->controller);
		fprintf(f, ", %s, %u MiB, %s, table %s", name, d->size_mib, file,
			table_name(d->table));
		if (d->table != TABLE_NONE)
			fprintf(f, " %s", d->label_id);
		fputc('\n', f);
		if (d->table == TABLE_NONE) {
			fputs("  whole disk: ", f);
			describe_volume(f, &d->whole);
			fputc('\n', f);
		}
		for (p = 0; p < d->nparts; p++) {
			part = &d->part[p];
			kernel_name(l, (struct location){ (int)i, (int)p }, name, sizeof(name));
			fprintf(f, "  %-2u %-10s at %2u MiB, %u MiB, PARTUUID=%s", part->number,
				name, part->start_mib, part->vol.size_mib, part->partuuid);
			if (part->partlabel[0])
				fprintf(f, " PARTLABEL=%s", part->partlabel);
			fputs(": ", f);
			if (part->extended)
				fputs("extended container", f);
			else
				describe_volume(f, &part->vol);
			fputc('\n', f);
		}
	}
}

static void write_disks(FILE *f, const struct layout *l)
{
	char file[32], ctrl[12];
	unsigned int i;

	for (i = 0; i < l->ndisks; i++) {
		disk_file_name(i, file, sizeof(file));
		fprintf(f, "%u %s %s %s %llu %s\n", i, bus_name(l->disk[i].bus),
			bus_controller_text(l->disk[i].bus, l->disk[i].controller,
					    ctrl, sizeof(ctrl)), file,
			(unsigned long long)l->disk[i].size_mib * MIB,
			table_name(l->disk[i].table));
	}
}

/* The decoy kinds of the layout, for the coverage test of the seed list. */
static void write_decoys(FILE *f, const struct layout *l)
{
	static const char *const kinds[] = {
		"blank-disk", "empty-partition", "vfat", "ext-without-init",
		"impostor", "label-near", "uuid-near", "partlabel-is-root-label",
		"partuuid-near",
	};
	bool seen[sizeof(kinds) / sizeof(*kinds)] = { false };
	const struct volume *vol;
	const char *sep = "";
	unsigned int i, p, k;

	for (i = 0; i < l->ndisks; i++)
		for (p = 0; p <= l->disk[i].nparts; p++) {
			vol = location_volume(l, (struct location){ (int)i, p ? (int)p - 1 : -1 });
			if (!vol || vol->role == ROLE_ROOT)
				continue;
			seen[0] |= p == 0 && vol->fs == FS_NONE;
			seen[1] |= p > 0 && vol->fs == FS_NONE;
			seen[2] |= vol->fs == FS_VFAT;
			seen[3] |= vol->fs != FS_NONE && vol->fs != FS_VFAT && !vol->has_init;
			seen[4] |= vol->has_init;
			seen[5] |= vol->role == ROLE_LABEL_NEAR;
			seen[6] |= vol->role == ROLE_UUID_NEAR;
			seen[7] |= vol->role == ROLE_PARTLABEL_ROOT_LABEL;
			seen[8] |= vol->role == ROLE_PARTUUID_NEAR;
		}
	fputs("decoys=", f);
	for (k = 0; k < sizeof(kinds) / sizeof(*kinds); k++)
		if (seen[k])
			write_list_item(f, &sep, kinds[k]);
	fputc('\n', f);
}

void write_list_item(FILE *f, const char **sep, const char *name)
{
	fprintf(f, "%s%s", *sep, name);
	*sep = ",";
}

/* Distinct buses and tables, in their enum order. */
static void write_kinds(FILE *f, const struct layout *l)
{
	unsigned int buses = 0, tables = 0, i, k;
	const char *sep = "";

	for (i = 0; i < l->ndisks; i++) {
		buses |= 1u << l->disk[i].bus;
		tables |= 1u << l->disk[i].table;
	}
	fputs("buses=", f);
	for (k = 0; k < BUS_COUNT; k++)
		if (buses & 1u << k)
			write_list_item(f, &sep, bus_name((enum bus)k));
	fputs("\ntables=", f);
	for (sep = "", k = 0; k < TABLE_COUNT; k++)
		if (tables & 1u << k)
			write_list_item(f, &sep, table_name((enum table)k));
	fputc('\n', f);
}

static void write_expect(FILE *f, const struct layout *l)
{
	const struct volume *root = location_volume(l, l->root);
	const struct disk *d = &l->disk[l->root.disk];
	unsigned int major, minor;
	char name[32];

	fprintf(f, "marker=%llu\n", (unsigned long long)l->seed);
	fprintf(f, "fstype=%s\n", fs_name(root->fs));
	fputs("mode=ro\n", f);
	fprintf(f, "init=%s\n", l->init ? l->init : "/sbin/init");
	if (kernel_name(l, l->root, name, sizeof(name)))
		fprintf(f, "dev=/dev/%s\n", name);
	if (kernel_devt(l, l->root, &major, &minor))
		fprintf(f, "majmin=%u:%u\n", major, minor);
	fprintf(f, "form=%s\n", form_name(l->form));
	fprintf(f, "root_bus=%s\n", bus_name(d->bus));
	fprintf(f, "root_table=%s\n", table_name(d->table));
	fprintf(f, "rootwait=%s\n", l->rootwait ? "yes" : "no");
	fprintf(f, "disks=%u\n", l->ndisks);
	fprintf(f, "dirty=%s\n", dirty_name(l->dirty));
	/* Where the root is: partition 0 is the whole disk. */
	disk_file_name((unsigned int)l->root.disk, name, sizeof(name));
	fprintf(f, "root_file=%s\n", name);
	fprintf(f, "root_part=%u\n", l->root.part >= 0 ? d->part[l->root.part].number : 0);
	fprintf(f, "root_offset=%llu\n", l->root.part >= 0 ?
		(unsigned long long)d->part[l->root.part].start_mib * MIB : 0ULL);
	write_kinds(f, l);
	write_decoys(f, l);
}

int plan_files_write(const struct layout *l, const char *dir)
{
	char cmdline[512];
	FILE *f;
	int err;

	if (!(f = open_plan_file(dir, "layout.txt")))
		return -EIO;
	write_layout_txt(f, l);
	if ((err = close_plan_file(f, dir, "layout.txt")))
		return err;

	if (!(f = open_plan_file(dir, "disks")))
		return -EIO;
	write_disks(f, l);
	if ((err = close_plan_file(f, dir, "disks")))
		return err;

	if (!(f = open_plan_file(dir, "cmdline")))
		return -EIO;
	cmdline_format(l, cmdline, sizeof(cmdline));
	fprintf(f, "%s\n", cmdline);
	if ((err = close_plan_file(f, dir, "cmdline")))
		return err;

	if (!(f = open_plan_file(dir, "expect")))
		return -EIO;
	write_expect(f, l);
	return close_plan_file(f, dir, "expect");
}
