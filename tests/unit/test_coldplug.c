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

static void storage_loads_now(void **state)
{
	(void)state;
	init_with("root=/dev/vda");
	assert_true(coldplug_now("kernel/drivers/ata/ahci.ko"));
	assert_true(coldplug_now("kernel/drivers/ata/sata_nv.ko.xz"));
	assert_true(coldplug_now("kernel/drivers/block/virtio_blk.ko.xz"));
	assert_true(coldplug_now("kernel/drivers/virtio/virtio_pci.ko"));
	assert_true(coldplug_now("kernel/drivers/nvme/host/nvme.ko"));
	assert_true(coldplug_now("kernel/drivers/scsi/mpt3sas/mpt3sas.ko"));
	assert_true(coldplug_now("kernel/drivers/usb/storage/uas.ko"));
	assert_true(coldplug_now("kernel/drivers/usb/host/xhci-pci.ko"));
	assert_true(coldplug_now("kernel/drivers/mmc/host/sdhci-pci.ko"));
	assert_true(coldplug_now("kernel/drivers/md/dm-mod.ko"));
}

static void others_wait(void **state)
{
	(void)state;
	init_with("root=/dev/vda");
	assert_false(coldplug_now("kernel/drivers/input/serio/serio_raw.ko"));
	assert_false(coldplug_now("kernel/drivers/hid/usbhid/usbhid.ko"));
	assert_false(coldplug_now("kernel/sound/pci/hda/snd-hda-intel.ko"));
	assert_false(coldplug_now("kernel/drivers/gpu/drm/bochs/bochs.ko"));
	assert_false(coldplug_now("kernel/arch/x86/crypto/aesni-intel.ko"));
	assert_false(coldplug_now("kernel/drivers/usb/serial/ftdi_sio.ko"));
	/* a prefix of a name is not its directory */
	assert_false(coldplug_now("kernel/drivers/atari/x.ko"));
	assert_false(coldplug_now("kernel/drivers/blockish/x.ko"));
	assert_false(coldplug_now("kernel/drivers/net/virtio_net.ko"));
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
	for (i = 0; i < sizeof(legacy) / sizeof(legacy[0]); i++) {
		assert_int_equal(coldplug_class(legacy[i]), MODCLASS_LEGACY);
		assert_false(coldplug_now(legacy[i]));
	}
	assert_int_equal(coldplug_class("kernel/drivers/ata/libata.ko"),
			 MODCLASS_BOOT);
	assert_int_equal(coldplug_class("kernel/drivers/ata/ahci.ko"),
			 MODCLASS_BOOT);
	coldplug_want_legacy();
	for (i = 0; i < sizeof(legacy) / sizeof(legacy[0]); i++)
		assert_true(coldplug_now(legacy[i]));
	assert_false(coldplug_now("kernel/drivers/input/serio/serio_raw.ko"));
	init_with("root=/dev/sda1");	/* a new boot starts without them */
	assert_false(coldplug_now("kernel/drivers/ata/ata_piix.ko"));
}

/* async_probe but where the probe order names the disks (vda, vdb). */
static void async_but_where_probes_name_disks(void **state)
{
	(void)state;
	assert_true(coldplug_async("kernel/drivers/ata/ata_piix.ko"));
	assert_true(coldplug_async("kernel/drivers/scsi/sd_mod.ko"));
	assert_true(coldplug_async("kernel/fs/ext4/ext4.ko.xz"));
	assert_true(coldplug_async("updates/dkms/zfs.ko"));
	assert_false(coldplug_async("kernel/drivers/virtio/virtio_pci.ko"));
	assert_false(coldplug_async("kernel/drivers/block/virtio_blk.ko.xz"));
	assert_false(coldplug_async("kernel/drivers/mmc/host/sdhci-pci.ko"));
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
