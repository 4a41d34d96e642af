// SPDX-License-Identifier: GPL-2.0
/*
 * storage-md.c: md RAID arrays (metadata 0.90 and 1.x) assembled as
 * their members appear, with the kernel's own interface, as mdadm
 * --incremental does it but without mdadm (rescue-init is static, and
 * not every image has mdadm): new_array makes /dev/mdN, SET_ARRAY_INFO
 * says which superblock version to load, ADD_NEW_DISK binds each
 * member, and writing array_state starts it once every slot is there.
 *
 * An array starts "read-auto": the kernel writes no superblock until
 * the first write to the array, so a read-only boot leaves the members
 * as they were; "readonly" in strict read-only mode, where even a write
 * fails.  A member missing when the root wait ends: root_wait_over()
 * starts what can run degraded, saying which slot is missing.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/major.h>
#include <linux/raid/md_u.h>

#include "mdsuper.h"
#include "storage.h"

#define MD_NEW_ARRAY	"/sys/module/md_mod/parameters/new_array"
#define MD_ARRAYS_MAX	16
#define MD_MEMBERS_MAX	32
#define MD_UUIDS_MAX	16
#define MD_AUTO_MINOR	127	/* mdadm's first for arrays it names */

struct md_member {
	char name[64], node[80];
	unsigned major, minor;
	int role;
	uint64_t events;
};

struct md_array {
	char uuid[64];		/* blkid's, as the device table shows it */
	struct mdsuper sb;	/* the first member's */
	char dev[16];		/* md127 */
	char link[2][48];	/* md!root and md!host:root, or "" */
	bool created, started;
	size_t n;
	struct md_member m[MD_MEMBERS_MAX];
};

static struct md_array arrays[MD_ARRAYS_MAX];
static size_t narrays;
static const char *only[MD_UUIDS_MAX];	/* rd.md.uuid= */
static size_t nonly;
static bool no_driver;

static bool md_setup(const struct cmdline *c)
{
	if (!cmdline_flag(c, "rd.md", true))
		return false;
	nonly = cmdline_get_all(c, "rd.md.uuid", only, ARRAY_SIZE(only));
	return true;
}

/* Hex digits only, lower case: mdadm's 8:8:8:8 and blkid's 8-4-4-4-12. */
static void hex_only(const char *s, char *out, size_t size)
{
	size_t n = 0;

	for (; *s && n + 1 < size; s++)
		if (*s != ':' && *s != '-')
			out[n++] = (char)(*s | 0x20);
	out[n] = '\0';
}

static bool wanted(const char *uuid)
{
	char a[64], b[64];
	size_t i;

	if (!nonly)
		return true;
	hex_only(uuid, a, sizeof(a));
	for (i = 0; i < nonly; i++) {
		hex_only(only[i], b, sizeof(b));
		if (!strcmp(a, b))
			return true;
	}
	return false;
}

/* The member's superblock, of whichever kind the kernel would find. */
static int read_super(const struct blkdev *d, struct mdsuper *sb)
{
	unsigned char buf[MDSUPER_READ];
	uint64_t size = d->sectors * 512, off;
	int fd, k, err = -ENOENT, r;

	fd = open(d->node, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	for (k = 0; k < MDSB_KINDS; k++) {
		off = mdsuper_offset(k, size);
		if (off == UINT64_MAX ||
		    pread(fd, buf, sizeof(buf), (off_t)off) != sizeof(buf))
			continue;
		r = mdsuper_parse(buf, sizeof(buf), k, off, sb);
		if (r == 0) {
			err = 0;
			break;
		}
		if (r != -ENOENT)
			err = r;	/* a damaged one says more than none */
	}
	close(fd);
	return err;
}

static struct md_array *find_array(const struct mdsuper *sb)
{
	size_t i;

	for (i = 0; i < narrays; i++)
		if (!memcmp(arrays[i].sb.uuid, sb->uuid, 16))
			return &arrays[i];
	return NULL;
}

/* md_mod loaded, if it is a module; false (said once) without md. */
static bool md_ready(void)
{
	if (access(MD_NEW_ARRAY, W_OK) == 0)
		return true;
	modload_alias("md_mod");
	if (access(MD_NEW_ARRAY, W_OK) == 0)
		return true;
	if (!no_driver)
		log_warn("md: the kernel has no md driver (md_mod): its "
			 "arrays stay unassembled");
	no_driver = true;
	return false;
}

static int write_file(const char *path, const char *s)
{
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	if (n < 0)
		err = -errno;
	else if ((size_t)n != strlen(s))
		err = -EIO;
	close(fd);
	return err;
}

static bool minor_taken(unsigned minor)
{
	char path[64];
	size_t i;

	snprintf(path, sizeof(path), "/sys/block/md%u", minor);
	if (access(path, F_OK) == 0)
		return true;
	snprintf(path, sizeof(path), "md%u", minor);
	for (i = 0; i < narrays; i++)
		if (!strcmp(arrays[i].dev, path))
			return true;
	return false;
}

/* mdadm's choice: the 0.90 preferred minor, a numeric 1.x name, else 127 down. */
static int preferred_minor(const struct mdsuper *sb)
{
	const char *name = strchr(sb->name, ':');
	unsigned long v;
	char *end;

	name = name ? name + 1 : sb->name;
	if (sb->major == 0)
		return sb->preferred_minor;
	if (*name < '0' || *name > '9')
		return -1;
	v = strtoul(name, &end, 10);
	return *end || v >= 512 ? -1 : (int)v;
}

/* /dev/md/NAME (and /dev/md/HOST:NAME) for a 1.x array with a name. */
static void make_links(struct md_array *a)
{
	const char *names[2] = { strchr(a->sb.name, ':'), a->sb.name };
	char path[96], target[32], shown[400];
	size_t i, n = 0;

	if (!a->sb.name[0])
		return;
	names[0] = names[0] ? names[0] + 1 : a->sb.name;
	if (mkdir("/dev/md", 0755) && errno != EEXIST)
		return;
	snprintf(target, sizeof(target), "../%s", a->dev);
	for (i = 0; i < 2; i++) {
		if ((i == 1 && names[1] == names[0]) || !names[i][0] ||
		    strchr(names[i], '/') || !strcmp(names[i], ".") ||
		    !strcmp(names[i], ".."))
			continue;
		snprintf(path, sizeof(path), "/dev/md/%s", names[i]);
		if (symlink(target, path) && errno != EEXIST) {
			devtable_escape(path, shown, sizeof(shown));
			log_warn("md: unable to link %s to %s: %s", shown,
				 a->dev, errtext(errno));
			continue;
		}
		snprintf(a->link[n++], sizeof(a->link[0]), "md!%s", names[i]);
	}
}

/* Write "mdN" to new_array: devtmpfs makes /dev/mdN before it returns. */
static int new_array(int minor)
{
	char buf[16];

	if (minor < 0 || minor_taken((unsigned)minor))
		return -EEXIST;
	snprintf(buf, sizeof(buf), "md%d", minor);
	return write_file(MD_NEW_ARRAY, buf);
}

/* new_array, then SET_ARRAY_INFO with only the superblock version. */
static int create_array(struct md_array *a)
{
	mdu_array_info_t info = { 0 };
	int minor = preferred_minor(&a->sb), err, fd;
	char node[32];

	err = new_array(minor);
	for (minor = err ? MD_AUTO_MINOR : minor; err == -EEXIST && minor >= 0;
	     minor -= err ? 1 : 0)
		err = new_array(minor);
	if (err) {
		log_warn("md: unable to create an array device for %s: %s",
			 a->uuid, errtext(err == -EEXIST ? ENOSPC : -err));
		return err;
	}
	snprintf(a->dev, sizeof(a->dev), "md%d", minor);
	snprintf(node, sizeof(node), "/dev/%s", a->dev);
	fd = open(node, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		err = -errno;
		log_warn("md: unable to open %s: %s", node, errtext(-err));
		return err;
	}
	info.major_version = (int)a->sb.major;
	info.minor_version = (int)a->sb.minor;
	if (ioctl(fd, SET_ARRAY_INFO, &info))
		err = -errno;
	close(fd);
	if (err) {
		log_warn("md: unable to set up %s for metadata %s: %s", node,
			 mdsuper_version(&a->sb), errtext(-err));
		return err;
	}
	a->created = true;
	make_links(a);
	return 0;
}

static int add_member(struct md_array *a, const struct blkdev *d,
		      const struct mdsuper *sb)
{
	mdu_disk_info_t disk = { 0 };
	struct md_member *m;
	char node[32];
	int fd, err = 0;

	snprintf(node, sizeof(node), "/dev/%s", a->dev);
	fd = open(node, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	disk.major = (int)d->major;
	disk.minor = (int)d->minor;
	if (ioctl(fd, ADD_NEW_DISK, &disk))
		err = -errno;
	close(fd);
	if (err) {
		log_warn("md: unable to add %s to %s (UUID %s): %s", d->node,
			 a->dev, a->uuid, errtext(-err));
		return err;
	}
	m = &a->m[a->n++];
	snprintf(m->name, sizeof(m->name), "%s", d->name);
	snprintf(m->node, sizeof(m->node), "%s", d->node);
	m->major = d->major;
	m->minor = d->minor;
	m->role = sb->role;
	m->events = sb->events;
	return 0;
}

/* Slots filled by a member, as a bit mask (raid_disks is small). */
static uint64_t newest(const struct md_array *a)
{
	uint64_t ev = 0;
	size_t i;

	for (i = 0; i < a->n; i++)
		if (a->m[i].events > ev)
			ev = a->m[i].events;
	return ev;
}

/*
 * A member whose event count is behind the others' by more than one
 * missed writes: the kernel leaves it out when the array starts, so it
 * fills no slot.  One behind is fresh, for the kernel (super_1_validate)
 * and mdadm (event_margin) alike: a clean/dirty switch skips members.
 */
static unsigned present(const struct md_array *a, uint64_t *mask)
{
	uint64_t ev = newest(a);
	unsigned n = 0;
	size_t i;

	*mask = 0;
	for (i = 0; i < a->n; i++) {
		int r = a->m[i].role;

		if (a->m[i].events + 1 >= ev && r >= 0 && r < 64 &&
		    !(*mask & 1ULL << r)) {
			*mask |= 1ULL << r;
			n++;
		}
	}
	return n;
}

static const char *level_name(int level, char *buf, size_t size)
{
	if (level == -1)
		return "linear";
	snprintf(buf, size, "raid%d", level);
	return buf;
}

/* Load the personality, then run it: read-auto, or readonly if strict. */
static int start_array(struct md_array *a)
{
	const char *mode = readonly_strict() ? "readonly" : "read-auto";
	char path[96], alias[32], lvl[16], members[256], name[140];
	size_t i, n = 0;
	int err;

	if (a->sb.level == -1)
		snprintf(alias, sizeof(alias), "md-linear");
	else
		snprintf(alias, sizeof(alias), "md-level-%d", a->sb.level);
	modload_alias(alias);
	snprintf(path, sizeof(path), "/sys/block/%s/md/array_state", a->dev);
	err = write_file(path, mode);
	if (err) {
		log_warn("md: unable to start %s (%s, UUID %s): %s", a->dev,
			 level_name(a->sb.level, lvl, sizeof(lvl)), a->uuid,
			 errtext(-err));
		return err;
	}
	a->started = true;
	members[0] = '\0';
	for (i = 0; i < a->n && n < sizeof(members); i++)
		if (a->m[i].events + 1 >= newest(a))	/* not the stale */
			n += snprintf(members + n, sizeof(members) - n, "%s%s",
				      n ? " " : "", a->m[i].name);
	/* The disk's own bytes, escaped; "-" would stand for none. */
	name[0] = '\0';
	if (a->sb.name[0])
		devtable_escape(a->sb.name, name, sizeof(name));
	log_info("md: started %s (%s, metadata %s%s%s, UUID %s) from %s, %s",
		 a->dev, level_name(a->sb.level, lvl, sizeof(lvl)),
		 mdsuper_version(&a->sb), name[0] ? ", name " : "", name,
		 a->uuid, members, mode);
	return 0;
}

/*
 * A member held by a running array: started before this process was
 * (by PID 1, when rescue-mount runs in the shell after a failed boot,
 * or before a restart).  Assembling it again would make a second,
 * empty array.
 */
static bool held(const struct blkdev *d)
{
	char path[128];
	struct dirent *e;
	bool found = false;
	DIR *dir;

	snprintf(path, sizeof(path), "/sys/class/block/%s/holders", d->name);
	dir = opendir(path);
	if (!dir)
		return false;
	while (!found && (e = readdir(dir)))
		found = e->d_name[0] != '.';
	closedir(dir);
	return found;
}

static int md_device_added(const struct blkdev *d)
{
	struct mdsuper sb = { 0 };
	struct md_array *a;
	uint64_t mask;
	size_t i;
	int err;

	if (!wanted(d->uuid)) {
		log_info("md: %s left alone: its array %s is not in rd.md.uuid",
			 d->node, d->uuid);
		return 0;
	}
	if (held(d)) {
		log_debug("md: %s is in a running array already", d->node);
		return 0;
	}
	err = read_super(d, &sb);
	if (err) {
		log_warn("md: %s: no md superblock the kernel would take: %s",
			 d->node, err == -EBADMSG ? "bad checksum" :
			 err == -ENOENT ? "none found" : errtext(-err));
		return err;
	}
	a = find_array(&sb);
	if (a) {
		for (i = 0; i < a->n; i++)
			if (a->m[i].major == d->major &&
			    a->m[i].minor == d->minor)
				return 0;	/* taken already */
	} else {
		if (narrays == MD_ARRAYS_MAX)
			return -ENOSPC;
		a = &arrays[narrays++];
		memset(a, 0, sizeof(*a));
		a->sb = sb;
		snprintf(a->uuid, sizeof(a->uuid), "%s", d->uuid);
	}
	if (a->started) {
		/* Adding to a running array writes (a resync): not here. */
		log_warn("md: %s came after %s started without it: not added "
			 "(mdadm %s --re-add %s does it, and writes)", d->node,
			 a->dev, a->dev, d->node);
		return 0;
	}
	if (a->n == MD_MEMBERS_MAX || !md_ready())
		return -ENOSPC;
	if (!a->created && (err = create_array(a)))
		return err;
	err = add_member(a, d, &sb);
	if (err)
		return err;
	log_info("md: %s is slot %d of %s (UUID %s), %u of %u there",
		 d->node, sb.role, a->dev, a->uuid, present(a, &mask),
		 a->sb.raid_disks);
	if (present(a, &mask) == a->sb.raid_disks)
		return start_array(a);
	return 0;
}

static void md_device_removed(const char *name)
{
	size_t i;

	for (i = 0; i < narrays; i++)
		if (!strcmp(arrays[i].dev, name))
			arrays[i].started = false;	/* stopped */
}

/* The slots no member fills, "1" or "1, 2", for the warning line. */
static void missing_slots(const struct md_array *a, char *buf, size_t size)
{
	uint64_t mask;
	size_t n = 0;
	unsigned s;

	buf[0] = '\0';
	present(a, &mask);
	for (s = 0; s < a->sb.raid_disks && s < 64 && n < size; s++)
		if (!(mask & 1ULL << s))
			n += snprintf(buf + n, size - n, "%s%u", n ? ", " : "",
				      s);
}

static int md_root_wait_over(void)
{
	char lvl[16], slots[128], name[140];
	unsigned have, need;
	uint64_t mask;
	int started = 0;
	size_t i, j;

	for (i = 0; i < narrays; i++) {
		struct md_array *a = &arrays[i];

		if (!a->created || a->started)
			continue;
		have = present(a, &mask);
		need = a->sb.raid_disks - mdsuper_redundancy(&a->sb);
		missing_slots(a, slots, sizeof(slots));
		if (have < need) {
			log_warn("md: %s (%s, UUID %s) cannot start: %u of %u "
				 "members, it needs %u; missing slot %s",
				 a->dev, level_name(a->sb.level, lvl,
						    sizeof(lvl)),
				 a->uuid, have, a->sb.raid_disks, need, slots);
			continue;
		}
		name[0] = '\0';
		if (a->sb.name[0])
			devtable_escape(a->sb.name, name, sizeof(name));
		log_warn("md: %s (%s, UUID %s%s%s) starts degraded: %u of %u "
			 "members, missing slot %s", a->dev,
			 level_name(a->sb.level, lvl, sizeof(lvl)), a->uuid,
			 name[0] ? ", name " : "", name, have,
			 a->sb.raid_disks, slots);
		for (j = 0; j < a->n; j++)
			if (a->m[j].events + 1 < newest(a))
				log_warn("md: %s of %s is stale (events %llu, "
					 "the others %llu): left out",
					 a->m[j].node, a->dev,
					 (unsigned long long)a->m[j].events,
					 (unsigned long long)newest(a));
		if (start_array(a) == 0)
			started++;
	}
	return started;
}

static void md_device_seen(struct blkdev *d)
{
	size_t i, j;

	/*
	 * Only once it runs: root= must not match an empty device.  The
	 * node of an array still gathering its members exists already
	 * (mdN, made when its first member came): root=/dev/mdN named it,
	 * the mount failed on it and the degraded start after the root
	 * wait never came.  Until it starts, it is incomplete.
	 */
	for (i = 0; i < narrays; i++) {
		if (strcmp(arrays[i].dev, d->name))
			continue;
		if (!arrays[i].started) {
			d->incomplete = true;
			return;
		}
		d->incomplete = false;
		for (j = 0; j < ARRAY_SIZE(d->alias); j++)
			snprintf(d->alias[j], sizeof(d->alias[j]), "%s",
				 j < ARRAY_SIZE(arrays[i].link) ?
				 arrays[i].link[j] : "");
		return;
	}
}

static void read_state(const struct md_array *a, char *buf, size_t size)
{
	char path[96];
	ssize_t n;
	int fd;

	snprintf(buf, size, "unknown");
	snprintf(path, sizeof(path), "/sys/block/%s/md/array_state", a->dev);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/* "md127 raid1 1.2 root UUID: vda[0] nvme0n1[1], read-auto". */
static void md_report(devtable_line_fn *fn, void *ctx)
{
	char line[512], lvl[16], state[32], slots[128], name[100];
	size_t i, j, n;

	for (i = 0; i < narrays; i++) {
		const struct md_array *a = &arrays[i];

		if (!a->created)
			continue;
		devtable_escape(a->sb.name, name, sizeof(name));
		read_state(a, state, sizeof(state));
		n = (size_t)snprintf(line, sizeof(line),
				     "%s: md %s, metadata %s, name %s, UUID "
				     "%s, %s:", a->dev,
				     level_name(a->sb.level, lvl, sizeof(lvl)),
				     mdsuper_version(&a->sb), name, a->uuid,
				     state);
		for (j = 0; j < a->n && n < sizeof(line); j++)
			n += (size_t)snprintf(line + n, sizeof(line) - n,
					      " %s[%d]", a->m[j].name,
					      a->m[j].role);
		missing_slots(a, slots, sizeof(slots));
		if (slots[0] && n < sizeof(line))
			snprintf(line + n, sizeof(line) - n,
				 ", missing slot %s", slots);
		fn(ctx, line);
	}
}

const struct storage_layer storage_md = {
	.setup = md_setup,
	.device_added = md_device_added,
	.device_removed = md_device_removed,
	.root_wait_over = md_root_wait_over,
	.device_seen = md_device_seen,
	.report = md_report,
};
