// SPDX-License-Identifier: GPL-2.0
/*
 * test_hostonly.c: what mkrescue --hostonly keeps, read from a made-up
 * /sys and /proc/mounts: the driver, module and modalias of each block
 * device and of every parent up to /sys/devices, the md and dm layers,
 * the root filesystem's module; and nothing of a device that holds no
 * block device.
 */
#include "unit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mkrescue.h"

static char top[] = "/tmp/test_hostonly.XXXXXX";
static char sysfs[256], mounts[256];

/* What hostonly_walk() asked for, "name|why" a line. */
static char seen[8192];

static int collect(void *ctx, const char *name, const char *why)
{
	(void)ctx;
	snprintf(seen + strlen(seen), sizeof(seen) - strlen(seen), "%s|%s\n",
		 name, why);
	return 0;
}

static bool asked(const char *name, const char *why)
{
	char line[512];

	snprintf(line, sizeof(line), "%s|%s\n", name, why);
	return strstr(seen, line) != NULL;
}

/* Whether NAME was asked for, for any reason. */
static bool asked_name(const char *name)
{
	char line[256];
	const char *p;

	snprintf(line, sizeof(line), "%s|", name);
	for (p = seen; (p = strstr(p, line)); p++)
		if (p == seen || p[-1] == '\n')
			return true;
	return false;
}

static void mkdirs(const char *rel)
{
	char path[512], *p;

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	for (p = path + strlen(top) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	mkdir(path, 0755);
}

static void put(const char *rel, const char *text)
{
	unit_put(top, rel, text);
}

static void link_to(const char *target, const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	assert_int_equal(symlink(target, path), 0);
}

#define PCI	"sys/devices/pci0000:00/0000:00:04.0"
#define SOUND	"sys/devices/pci0000:00/0000:00:05.0"

/*
 * A virtio disk vda (virtio_blk on virtio_pci) with a partition vda1, an
 * md RAID5 md0, a dm-crypt dm-0, and a sound card that holds no disk.
 */
static int setup(void **state)
{
	(void)state;
	assert_non_null(mkdtemp(top));
	snprintf(sysfs, sizeof(sysfs), "%s/sys", top);
	snprintf(mounts, sizeof(mounts), "%s/mounts", top);
	mkdirs("sys/module/virtio_pci");
	mkdirs("sys/module/virtio_blk");
	mkdirs("sys/module/snd_hda_intel");
	mkdirs("sys/bus/pci/drivers/virtio-pci");
	mkdirs("sys/bus/pci/drivers/snd_hda_intel");
	mkdirs("sys/bus/virtio/drivers/virtio_blk");
	link_to("../../../../module/virtio_pci",
		"sys/bus/pci/drivers/virtio-pci/module");
	link_to("../../../../module/virtio_blk",
		"sys/bus/virtio/drivers/virtio_blk/module");
	link_to("../../../../module/snd_hda_intel",
		"sys/bus/pci/drivers/snd_hda_intel/module");

	mkdirs(PCI "/virtio1/block/vda");
	put(PCI "/modalias", "pci:v00001AF4d00001001sv00001AF4sd00000002bc01sc00i00\n");
	link_to("../../../bus/pci/drivers/virtio-pci", PCI "/driver");
	put(PCI "/virtio1/modalias", "virtio:d00000002v00001AF4\n");
	link_to("../../../../bus/virtio/drivers/virtio_blk", PCI "/virtio1/driver");

	mkdirs(SOUND);
	put(SOUND "/modalias", "pci:v00008086d00002668sv00001AF4sd00001100bc04sc03i00\n");
	link_to("../../../bus/pci/drivers/snd_hda_intel", SOUND "/driver");

	mkdirs("sys/class/block/vda");
	link_to("../../../devices/pci0000:00/0000:00:04.0/virtio1",
		"sys/class/block/vda/device");
	mkdirs("sys/class/block/vda1");		/* a partition: no device */
	mkdirs("sys/class/block/md0/md");
	put("sys/class/block/md0/md/level", "raid5\n");
	mkdirs("sys/class/block/dm-0/dm");
	put("sys/class/block/dm-0/dm/uuid", "CRYPT-LUKS2-0123456789abcdef-luks\n");

	put("mounts", "proc /proc proc rw 0 0\n"
		      "rootfs / rootfs rw 0 0\n"
		      "/dev/vda1 / ext4 ro,relatime 0 0\n");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return unit_rm_rf(top);
}

static void test_drivers_of_the_disk_and_its_parents(void **state)
{
	(void)state;
	seen[0] = '\0';
	assert_int_equal(hostonly_walk(sysfs, mounts, collect, NULL), 0);
	/* The disk's own device: its module, its driver, its modalias. */
	assert_true(asked("virtio_blk", "--hostonly, block device vda"));
	assert_true(asked("virtio:d00000002v00001AF4",
			  "--hostonly, block device vda"));
	/* Its parent, the PCI function. */
	assert_true(asked("virtio_pci", "--hostonly, block device vda"));
	assert_true(asked("virtio-pci", "--hostonly, block device vda"));
	assert_true(asked("pci:v00001AF4d00001001sv00001AF4sd00000002bc01sc00i00",
			  "--hostonly, block device vda"));
}

static void test_layers_and_root_filesystem(void **state)
{
	(void)state;
	seen[0] = '\0';
	assert_int_equal(hostonly_walk(sysfs, mounts, collect, NULL), 0);
	assert_true(asked("md_mod", "--hostonly, block device md0"));
	assert_true(asked("raid456", "--hostonly, block device md0"));
	assert_false(asked_name("raid5"));	/* a level, not a module */
	assert_true(asked("dm_mod", "--hostonly, block device dm-0"));
	assert_true(asked("dm_crypt", "--hostonly, block device dm-0"));
	/* The last mount on / that is not the rootfs. */
	assert_true(asked("fs-ext4", "--hostonly, the root filesystem"));
	assert_true(asked("ext4", "--hostonly, the root filesystem"));
	assert_false(asked_name("rootfs"));
	assert_false(asked_name("fs-rootfs"));
}

static void test_device_without_disk_is_left_out(void **state)
{
	(void)state;
	seen[0] = '\0';
	assert_int_equal(hostonly_walk(sysfs, mounts, collect, NULL), 0);
	assert_false(asked_name("snd_hda_intel"));
	assert_null(strstr(seen, "pci:v00008086d00002668"));
}

static int refuse(void *ctx, const char *name, const char *why)
{
	(void)ctx;
	(void)why;
	return strcmp(name, "virtio_pci") ? 0 : -ENOENT;
}

static void test_errors_are_returned(void **state)
{
	char nosys[300];

	(void)state;
	/* The first error of the callback ends the walk with it. */
	assert_int_equal(hostonly_walk(sysfs, mounts, refuse, NULL), -ENOENT);
	/* No /sys/class/block, no /proc/mounts: named errors. */
	snprintf(nosys, sizeof(nosys), "%s/nothing", top);
	assert_int_equal(hostonly_walk(nosys, mounts, collect, NULL), -ENOENT);
	assert_int_equal(hostonly_walk(sysfs, nosys, collect, NULL), -ENOENT);
}

UNIT_MAIN(setup, teardown,
	cmocka_unit_test(test_drivers_of_the_disk_and_its_parents),
	cmocka_unit_test(test_layers_and_root_filesystem),
	cmocka_unit_test(test_device_without_disk_is_left_out),
	cmocka_unit_test(test_errors_are_returned))
