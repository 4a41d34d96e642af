// SPDX-License-Identifier: GPL-2.0
/* test_coldplug.c: which device drivers load before the root is found. */
#include "unit.h"

#include <stdio.h>
#include <string.h>

#include "rescue-init.h"

static void init_with(const char *line)
{
	static char buf[512];
	static struct cmdline c;

	snprintf(buf, sizeof(buf), "%s", line);
	memset(&c, 0, sizeof(c));
	cmdline_parse(buf, &c);
	coldplug_init(&c);
}

/* Whether each of the N PATHS loads now is NOW, for the last init_with(). */
static void each_now(const char *const *paths, size_t n, bool now)
{
	size_t i;

	for (i = 0; i < n; i++)
		unit_case_int(paths[i], coldplug_now(paths[i]), now);
}

static void storage_loads_now(void **state)
{
	static const char *const storage[] = {
		"kernel/drivers/ata/ahci.ko",
		"kernel/drivers/ata/sata_nv.ko.xz",
		"kernel/drivers/block/virtio_blk.ko.xz",
		"kernel/drivers/virtio/virtio_pci.ko",
		"kernel/drivers/nvme/host/nvme.ko",
		"kernel/drivers/scsi/mpt3sas/mpt3sas.ko",
		"kernel/drivers/usb/storage/uas.ko",
		"kernel/drivers/usb/host/xhci-pci.ko",
		"kernel/drivers/mmc/host/sdhci-pci.ko",
		"kernel/drivers/md/dm-mod.ko",
	};

	(void)state;
	init_with("root=/dev/vda");
	each_now(storage, UNIT_COUNT(storage), true);
}

static void others_wait(void **state)
{
	static const char *const others[] = {
		"kernel/drivers/input/serio/serio_raw.ko",
		"kernel/drivers/hid/usbhid/usbhid.ko",
		"kernel/sound/pci/hda/snd-hda-intel.ko",
		"kernel/drivers/gpu/drm/bochs/bochs.ko",
		"kernel/arch/x86/crypto/aesni-intel.ko",
		"kernel/drivers/usb/serial/ftdi_sio.ko",
		/* a prefix of a name is not its directory */
		"kernel/drivers/atari/x.ko",
		"kernel/drivers/blockish/x.ko",
		"kernel/drivers/net/virtio_net.ko",
	};

	(void)state;
	init_with("root=/dev/vda");
	each_now(others, UNIT_COUNT(others), false);
}

/* No root on a floppy, but for root=/dev/fd0: its driver waits. */
static void floppy_waits(void **state)
{
	(void)state;
	init_with("root=/dev/vda");
	assert_false(coldplug_now("kernel/drivers/block/floppy.ko"));
	assert_false(coldplug_now("kernel/drivers/block/floppy.ko.xz"));
	assert_true(coldplug_now("kernel/drivers/block/loop.ko"));
	init_with("root=/dev/fd0");
	assert_true(coldplug_now("kernel/drivers/block/floppy.ko"));
}

/*
 * The legacy IDE/PATA drivers wait until the root is not found without
 * them; AHCI and the SATA controllers' drivers do not.
 */
static void legacy_ide_waits_for_a_missing_root(void **state)
{
	static const char *const legacy[] = {
		"kernel/drivers/ata/ata_piix.ko",
		"kernel/drivers/ata/ata_generic.ko.xz",
		"kernel/drivers/ata/pata_acpi.ko",
		"kernel/drivers/ata/pata_jmicron.ko.zst",
	};
	size_t i;

	(void)state;
	init_with("root=/dev/sda1");
	for (i = 0; i < UNIT_COUNT(legacy); i++) {
		assert_int_equal(coldplug_class(legacy[i]), MODCLASS_LEGACY);
		assert_false(coldplug_now(legacy[i]));
	}
	assert_int_equal(coldplug_class("kernel/drivers/ata/libata.ko"),
			 MODCLASS_BOOT);
	assert_int_equal(coldplug_class("kernel/drivers/ata/ahci.ko"),
			 MODCLASS_BOOT);
	coldplug_want_legacy();
	each_now(legacy, UNIT_COUNT(legacy), true);
	assert_false(coldplug_now("kernel/drivers/input/serio/serio_raw.ko"));
	init_with("root=/dev/sda1");	/* a new boot starts without them */
	assert_false(coldplug_now("kernel/drivers/ata/ata_piix.ko"));
}

/* async_probe but where the probe order names the disks (vda, vdb). */
static void async_but_where_probes_name_disks(void **state)
{
	static const struct {
		const char *path;
		bool async;
	} cases[] = {
		{ "kernel/drivers/ata/ata_piix.ko", true },
		{ "kernel/drivers/scsi/sd_mod.ko", true },
		{ "kernel/fs/ext4/ext4.ko.xz", true },
		{ "updates/dkms/zfs.ko", true },
		{ "kernel/drivers/virtio/virtio_pci.ko", false },
		{ "kernel/drivers/block/virtio_blk.ko.xz", false },
		{ "kernel/drivers/mmc/host/sdhci-pci.ko", false },
	};
	size_t i;

	(void)state;
	for (i = 0; i < UNIT_COUNT(cases); i++)
		unit_case_int(cases[i].path, coldplug_async(cases[i].path),
			      cases[i].async);
}

static void outside_kernel_loads_now(void **state)
{
	(void)state;
	init_with("");
	assert_true(coldplug_now("updates/dkms/zfs.ko"));
	assert_true(coldplug_now("extra/vendor_hba.ko.zst"));
	assert_int_equal(coldplug_class("kernel/drivers/net/e1000/e1000.ko"),
			 MODCLASS_NET);
}

static void nics_with_ip(void **state)
{
	(void)state;
	init_with("root=/dev/vda ip=dhcp");
	assert_true(coldplug_now("kernel/drivers/net/virtio_net.ko"));
	assert_true(coldplug_now("kernel/drivers/net/ethernet/intel/e1000e/e1000e.ko"));
	assert_false(coldplug_now("kernel/drivers/input/serio/serio_raw.ko"));
	init_with("ip=off");
	assert_false(coldplug_now("kernel/drivers/net/virtio_net.ko"));
	init_with("ip=none ip=10.0.2.15::10.0.2.2:255.255.255.0::eth0:off");
	assert_true(coldplug_now("kernel/drivers/net/virtio_net.ko"));
	init_with("rd.neednet=1");
	assert_true(coldplug_now("kernel/drivers/net/virtio_net.ko"));
}

UNIT_MAIN(NULL, NULL,
	cmocka_unit_test(storage_loads_now),
	cmocka_unit_test(others_wait),
	cmocka_unit_test(floppy_waits),
	cmocka_unit_test(legacy_ide_waits_for_a_missing_root),
	cmocka_unit_test(async_but_where_probes_name_disks),
	cmocka_unit_test(outside_kernel_loads_now),
	cmocka_unit_test(nics_with_ip))
