// SPDX-License-Identifier: GPL-2.0
/*
 * mklayout-stack-files.c: a stacked layout in DIR, for tests/tools/random-layouts:
 * layout.txt, disks (the disks booted, as for a plain layout), cmdline,
 * expect (what the guest reports, plus the log lines each layer must
 * say: log=REGEX), steps (tests/tools/vm-steps.exp: the passphrase typed),
 * build.sh (what userspace can make: the filesystems by mke2fs -d, LUKS2
 * by cryptsetup reencrypt --encrypt on a file, btrfs by mkfs.btrfs on
 * files) and, for md, LVM and the filling of btrfs, helper.cmds and
 * helper.disks: what tests/tools/random-layouts types into a helper VM (Debian's
 * kernel, an image of mkrescue -k) with those disks on virtio-blk.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "mklayout.h"

#define ROOT_MIB	12u	/* the root's ext4 and the impostor's; the LVs */
#define LUKS_FS_MIB	24u	/* a LUKS2 container's ext4, before reencrypt */

static bool kind_has(const struct stack *s, const char *layer)
{
	return strstr(stack_kind_name(s->kind), layer) != NULL;
}

static void format_cmdline(const struct stack *s, char *buf, size_t size)
{
	int n = snprintf(buf, size, "root=%s", s->root_arg);

	/* a degraded array starts when the root wait ends */
	if (s->absent >= 0)
		n += snprintf(buf + n, size - (size_t)n, " rootwait=3");
	if (s->kind == STACK_BTRFS)
		snprintf(buf + n, size - (size_t)n, " rootflags=subvol=%s", s->subvol);
}

static const char *form_text(enum stack_form f)
{
	static const char *const names[SFORM_COUNT] = {
		"/dev/mapper/NAME", "/dev/VG/LV", "/dev/md/NAME", "/dev/mdN", "UUID", "LABEL",
	};

	return names[f];
}

static void write_layout_txt(FILE *f, const struct stack *s)
{
	char cmdline[512], file[32];
	unsigned int i;

	format_cmdline(s, cmdline, sizeof(cmdline));
	fprintf(f, "mklayout --seed %llu --stacked: %s, %u disk%s, root= %s, on the %s kernel\n",
		(unsigned long long)s->seed, stack_kind_name(s->kind), s->ndisks,
		s->ndisks == 1 ? "" : "s", form_text(s->form), s->kernel);
	fprintf(f, "kernel command line: %s\n", cmdline);
	for (i = 0; i < s->ndisks; i++) {
		disk_file_name(i, file, sizeof(file));
		fprintf(f, "disk %u: %s, %u MiB, %s%s%s\n", i, bus_name(s->bus[i]),
			s->size_mib[i], file, (int)i == s->absent ? ", left out of the boot" : "",
			(int)i == s->decoy_disk ? ", the decoy VG's PV" : "");
	}
	if (kind_has(s, "md"))
		fprintf(f, "md RAID1 %s, metadata %s, UUID %s\n", s->md_name,
			s->md_090 ? "0.90" : "1.2", s->md_uuid);
	if (kind_has(s, "luks"))
		fprintf(f, "LUKS2 UUID %s, passphrase %s%s\n", s->luks_uuid, s->pass,
			s->wrong_try ? ", a wrong one typed first" : "");
	if (kind_has(s, "lvm"))
		fprintf(f, "VG %s (LVs %s%s%s%s%s%s%s), decoy VG %s (LV %s: an impostor)\n",
			s->vg, s->lv[0], s->nlvs > 1 ? " " : "", s->lv[1],
			s->nlvs > 2 ? " " : "", s->lv[2], s->nlvs > 3 ? " " : "", s->lv[3],
			s->decoy_vg, s->lv[0]);
	if (s->kind == STACK_BTRFS)
		fprintf(f, "btrfs over two devices, an impostor at the top, the root in subvolume %s\n",
			s->subvol);
	fprintf(f, "root: %s UUID=%s LABEL=%s\n", s->kind == STACK_BTRFS ? "btrfs" : "ext4",
		s->fs_uuid, s->fs_label);
}

static void write_disks(FILE *f, const struct stack *s)
{
	char file[32], ctrl[12];
	unsigned int i;

	for (i = 0; i < s->ndisks; i++) {
		if ((int)i == s->absent)
			continue;
		disk_file_name(i, file, sizeof(file));
		fprintf(f, "%u %s %s %s %llu none\n", i, bus_name(s->bus[i]),
			bus_controller_text(s->bus[i], 0, ctrl, sizeof(ctrl)), file,
			(unsigned long long)s->size_mib[i] * MIB);
	}
}

static void write_expect(FILE *f, const struct stack *s)
{
	const char *sep = "";
	unsigned int i, k, attached = 0;
	char arg[200];
	bool any;

	fprintf(f, "marker=%llu\n", (unsigned long long)s->seed);
	fprintf(f, "fstype=%s\n", s->kind == STACK_BTRFS ? "btrfs" : "ext4");
	fputs("mode=ro\ninit=/sbin/init\n", f);
	fprintf(f, "form=%s\n", form_text(s->form));
	fprintf(f, "root_bus=%s\nroot_table=none\n", bus_name(s->bus[s->absent == 0 ? 1 : 0]));
	fprintf(f, "rootwait=%s\n", s->absent >= 0 ? "yes" : "no");
	for (i = 0; i < s->ndisks; i++)
		attached += (int)i != s->absent;
	fprintf(f, "disks=%u\ndirty=no\n", attached);
	fprintf(f, "stack=%s\nkernel=%s\n", stack_kind_name(s->kind), s->kernel);
	fputs("buses=", f);
	for (k = 0; k < BUS_COUNT; k++) {
		for (any = false, i = 0; i < s->ndisks; i++)
			any |= (int)i != s->absent && s->bus[i] == (enum bus)k;
		if (any)
			write_list_item(f, &sep, bus_name((enum bus)k));
	}
	fprintf(f, "\ntables=none\ndecoys=%s\n", s->impostor ? "impostor" : "");
	if (kind_has(s, "md")) {
		fprintf(f, "md=%s\ndegraded=%s\n", s->md_090 ? "0.90" : "1.2",
			s->absent >= 0 ? "yes" : "no");
		fprintf(f, "log=rescue: md: started md[0-9]+ \\(raid1, metadata %s\n",
			s->md_090 ? "0\\.90" : "1\\.2");
		if (s->absent >= 0)
			fprintf(f, "log=rescue: md: md[0-9]+ \\(raid1, UUID [^)]*\\) starts degraded: "
				"1 of 2 members, missing slot %d\n", s->absent);
	}
	if (kind_has(s, "luks")) {
		fprintf(f, "passphrase=%s\nwrong_try=%s\n", s->pass, s->wrong_try ? "yes" : "no");
		fprintf(f, "log=rescue: luks: opened /dev/[a-z0-9]+ \\(LUKS2, UUID %s\\)\n",
			s->luks_uuid);
		if (s->wrong_try)
			fprintf(f, "log=rescue: luks: wrong passphrase for /dev/[a-z0-9]+ "
				"\\(UUID %s\\), try 1 of 3\n", s->luks_uuid);
	}
	if (kind_has(s, "lvm")) {
		/* not the decoy VG's: the root may be found before its disk */
		fprintf(f, "log=rescue: lvm: volume group %s: %u LVs activated$\n", s->vg, s->nlvs);
	}
	if (s->kind == STACK_BTRFS)
		fprintf(f, "log=rescue: btrfs: registered /dev/[a-z0-9]+, 2 of 2 devices of %s, all there\n",
			s->fs_uuid);
	snprintf(arg, sizeof(arg), "%s", s->root_arg);
	fprintf(f, "log=rescue: found root %s on /dev/\n", arg);
}

/* tests/tools/vm-steps.exp: the prompt, a wrong try, the passphrase. */
static void write_steps(FILE *f, const struct stack *s)
{
	fprintf(f, "want Passphrase for /dev/[a-z0-9]+ \\(LUKS UUID %s\\):\n", s->luks_uuid);
	if (s->wrong_try) {
		fprintf(f, "send wrong-%s\n", s->pass);
		fputs("want Wrong passphrase for /dev/[a-z0-9]+: 2 tries left\n", f);
		fprintf(f, "want Passphrase for /dev/[a-z0-9]+ \\(LUKS UUID %s\\), again:\n",
			s->luks_uuid);
	}
	fprintf(f, "send %s\nend\n", s->pass);
}

/* The helper VM's disks: the stack's, then the filesystems to copy. */
static unsigned int helper_disks(const struct stack *s, char names[][32])
{
	unsigned int i, n = 0;

	for (i = 0; i < s->ndisks; i++)
		disk_file_name(i, names[n++], 32);
	snprintf(names[n++], 32, "src-root.img");
	if (s->impostor)
		snprintf(names[n++], 32, "src-impostor.img");
	return n;
}

static char vd(unsigned int index)
{
	return (char)('a' + index);
}

/*
 * Typed into the helper's rescue shell, one line at a time: every step
 * that fails clears ok, and layout-done-42 comes only when none did.
 */
static void write_helper_cmds(FILE *f, const struct stack *s)
{
	unsigned int src = s->ndisks, i;
	char top[64];

	fputs("ok=1; export LVM_SUPPRESS_FD_WARNINGS=1; mkdir -p /mnt /src\n", f);
	fputs("for m in dm_mod dm_crypt raid1 btrfs ext4; do modprobe $m; done\n", f);
	snprintf(top, sizeof(top), "/dev/vda");
	if (kind_has(s, "md")) {
		if (s->md_090)
			fprintf(f, "mdadm --create /dev/md0 --run --assume-clean --metadata=0.90 "
				"--level=1 --raid-devices=2 --uuid=%s /dev/vda /dev/vdb || ok=0\n",
				s->md_uuid);
		else
			fprintf(f, "mdadm --create /dev/md127 --run --assume-clean --metadata=1.2 "
				"--level=1 --raid-devices=2 --homehost=rescue --name=%s --uuid=%s "
				"/dev/vda /dev/vdb || ok=0\n", s->md_name, s->md_uuid);
		snprintf(top, sizeof(top), "%s", s->md_090 ? "/dev/md0" : "/dev/md127");
	}
	if (kind_has(s, "luks")) {
		fprintf(f, "echo -n %s | cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 "
			"--pbkdf-force-iterations 1000 --uuid %s --key-file - %s || ok=0\n",
			s->pass, s->luks_uuid, top);
		fprintf(f, "echo -n %s | cryptsetup open --key-file - %s crypt || ok=0\n",
			s->pass, top);
		snprintf(top, sizeof(top), "/dev/mapper/crypt");
	}
	if (kind_has(s, "lvm")) {
		fprintf(f, "lvm pvcreate -q %s && lvm vgcreate -q %s %s || ok=0\n",
			top, s->vg, top);
		fprintf(f, "lvm lvcreate -q -y -n %s -L %uM %s || ok=0\n",
			s->lv[0], ROOT_MIB, s->vg);
		for (i = 1; i < s->nlvs; i++)
			fprintf(f, "lvm lvcreate -q -y -n %s -L 4M %s || ok=0\n", s->lv[i], s->vg);
		fprintf(f, "dd if=/dev/vd%c of=/dev/%s/%s bs=1M 2>/dev/null || ok=0\n",
			vd(src), s->vg, s->lv[0]);
		fprintf(f, "lvm pvcreate -q /dev/vd%c && lvm vgcreate -q %s /dev/vd%c || ok=0\n",
			vd((unsigned int)s->decoy_disk), s->decoy_vg,
			vd((unsigned int)s->decoy_disk));
		fprintf(f, "lvm lvcreate -q -y -n %s -L %uM %s || ok=0\n", s->lv[0], ROOT_MIB,
			s->decoy_vg);
		fprintf(f, "dd if=/dev/vd%c of=/dev/%s/%s bs=1M 2>/dev/null || ok=0\n",
			vd(src + 1), s->decoy_vg, s->lv[0]);
		fprintf(f, "lvm vgchange -q -an %s %s || ok=0\n", s->vg, s->decoy_vg);
	} else if (s->kind == STACK_MD) {
		fprintf(f, "dd if=/dev/vd%c of=%s bs=1M 2>/dev/null || ok=0\n", vd(src), top);
	}
	if (s->kind == STACK_BTRFS) {
		fputs("mount -t btrfs -o device=/dev/vdb /dev/vda /mnt || ok=0\n", f);
		fprintf(f, "mount -t ext4 -o ro /dev/vd%c /src && cp -a /src/. /mnt/ && umount /src || ok=0\n",
			vd(src + 1));
		fprintf(f, "btrfs subvolume create /mnt/%s || ok=0\n", s->subvol);
		fprintf(f, "mount -t ext4 -o ro /dev/vd%c /src && cp -a /src/. /mnt/%s/ && umount /src || ok=0\n",
			vd(src), s->subvol);
		fputs("umount /mnt || ok=0\n", f);
	}
	if (kind_has(s, "luks"))
		fputs("cryptsetup close crypt || ok=0\n", f);
	if (kind_has(s, "md"))
		fprintf(f, "mdadm --stop %s || ok=0\n", s->md_090 ? "/dev/md0" : "/dev/md127");
	fputs("sync; [ $ok = 1 ] && echo layout-done-$((6 * 7))\n", f);
}

static void write_build(FILE *f, const struct stack *s, const char *busybox)
{
	unsigned long long seed = (unsigned long long)s->seed;
	char file[32];
	unsigned int i;

	script_prologue(f, s->seed, busybox);
	fputs("\n# the disks\n", f);
	for (i = 0; i < s->ndisks; i++) {
		disk_file_name(i, file, sizeof(file));
		fprintf(f, "rm -f %s\ntruncate -s %uM %s\n", file, s->size_mib[i], file);
	}
	fprintf(f, "\n# the root\nroot_tree tree-root %llu\n", seed);
	if (s->kind == STACK_LUKS) {
		/* tests/groups/luks.sh's container: encrypted in place, PBKDF at its minimum */
		fprintf(f, "make_ext ext4 disk00.img 0 %u %s %s '%s' tree-root\n",
			LUKS_FS_MIB * 1024, s->fs_uuid, s->hash_seed, s->fs_label);
		fprintf(f, "printf '%%s' '%s' >luks.key\n", s->pass);
		fprintf(f, "if ! cryptsetup reencrypt --encrypt --type luks2 --reduce-device-size 32M \\\n"
			"\t--pbkdf pbkdf2 --pbkdf-force-iterations 1000 --uuid %s \\\n"
			"\t--key-file luks.key --batch-mode --force-offline-reencrypt disk00.img \\\n"
			"\t>luks.log 2>&1; then\n\tcat luks.log >&2\n\texit 1\nfi\n"
			"rm -f luks.key luks.log\n", s->luks_uuid);
	} else {
		fprintf(f, "make_ext ext4 src-root.img 0 %u %s %s '%s' tree-root\n", ROOT_MIB * 1024,
			s->kind == STACK_BTRFS ? s->hash_seed : s->fs_uuid, s->hash_seed,
			s->kind == STACK_BTRFS ? "src-root" : s->fs_label);
	}
	if (s->impostor) {
		fprintf(f, "root_tree tree-impostor impostor-%llu\n", seed);
		fprintf(f, "make_ext ext4 src-impostor.img 0 %u %s %s '%s' tree-impostor\n",
			ROOT_MIB * 1024, s->imp_uuid, s->imp_hash_seed, s->imp_label);
	}
	if (s->kind == STACK_BTRFS)
		fprintf(f, "\n# two devices, data and metadata raid1; the helper VM fills them\n"
			"mkfs.btrfs -q -f -U %s -L '%s' -d raid1 -m raid1 disk00.img disk01.img >/dev/null\n",
			s->fs_uuid, s->fs_label);
	fputs("\nrm -f report-init\n", f);
}

typedef void (*writer)(FILE *f, const struct stack *s);

static int write_one(const char *dir, const char *name, writer w, const struct stack *s)
{
	FILE *f = open_plan_file(dir, name);

	if (!f)
		return -EIO;
	w(f, s);
	return close_plan_file(f, dir, name);
}

static void write_cmdline(FILE *f, const struct stack *s)
{
	char cmdline[512];

	format_cmdline(s, cmdline, sizeof(cmdline));
	fprintf(f, "%s\n", cmdline);
}

static void write_helper_disks(FILE *f, const struct stack *s)
{
	char names[STACK_MAX_DISKS + 2][32];
	unsigned int i, n = helper_disks(s, names);

	for (i = 0; i < n; i++)
		fprintf(f, "%s\n", names[i]);
}

int stack_files_write(const struct stack *s, const char *dir, const char *busybox)
{
	FILE *f;
	int err;

	if ((err = write_one(dir, "layout.txt", write_layout_txt, s)) ||
	    (err = write_one(dir, "disks", write_disks, s)) ||
	    (err = write_one(dir, "cmdline", write_cmdline, s)) ||
	    (err = write_one(dir, "expect", write_expect, s)))
		return err;
	if (kind_has(s, "luks") && (err = write_one(dir, "steps", write_steps, s)))
		return err;
	if (s->kind != STACK_LUKS &&
	    ((err = write_one(dir, "helper.cmds", write_helper_cmds, s)) ||
	     (err = write_one(dir, "helper.disks", write_helper_disks, s))))
		return err;
	if (!(f = open_plan_file(dir, "build.sh")))
		return -EIO;
	write_build(f, s, busybox);
	return close_plan_file(f, dir, "build.sh");
}
