// SPDX-License-Identifier: GPL-2.0
/*
 * coldplug.c: which device drivers load before the root is found, and
 * which are put off.
 *
 * The boot needs the root's block device to appear; nothing else.  On a
 * distribution kernel a device modalias matches far more: serio_raw,
 * the sound, graphics and input drivers, every CPU feature's crypto
 * module.  Each finit_module() costs PID 1 its time (a .ko.xz is
 * decompressed by the kernel too), and none of them helps to find the
 * root.  The rule, by the directory depmod names for the module (where
 * the kernel tree puts it, so it holds for any kernel and for the
 * dracut image, which keeps /lib/modules' layout):
 *
 *  - now: the buses and controllers that block devices hang off, and
 *    the block drivers themselves (BOOT_DIRS below), the directories
 *    that dracut --no-hostonly takes for storage;
 *  - but later the legacy floppy driver (block/floppy): its init probes
 *    the controller with delays (68 ms of the module loads of dracut's
 *    image under QEMU, whose PC has one), and no root is on a floppy
 *    unless root= names /dev/fd*;
 *  - and last resort the legacy IDE/PATA drivers (ata_piix, ata_generic,
 *    pata_*; LEGACY_FILES below): they load only when the root is not
 *    among the devices the others made (rootfind.c), see there;
 *  - now too: modules outside kernel/ (updates/, extra/: DKMS and
 *    vendor drivers), which we cannot place: better a load too many
 *    than a root that never appears;
 *  - now when the network is wanted (ip= other than off/none, or
 *    rd.neednet=1): drivers/net, for network.c's interface;
 *  - else later: before the rescue shell opens or a passphrase is asked
 *    (a USB keyboard needs usbhid, a framebuffer console its driver),
 *    and never on a boot that goes well: then the root's udev loads
 *    them, as it would have anyway.
 *
 * Dependencies and softdeps of a module that loads now load with it,
 * wherever they live (usbcore, libata, crc32c): the rule only decides
 * what a device's own modalias pulls in.
 */
#include <stdbool.h>
#include <string.h>

#include "arraysize.h"
#include "rescue-init.h"

/* Below kernel/drivers/: where block devices and their buses come from. */
static const char *const boot_dirs[] = {
	"acpi/nfit", "ata", "block", "cdrom", "firewire", "hv", "md",
	"memstick", "message", "mmc", "nvdimm", "nvme", "pci", "scsi",
	"thunderbolt", "ufs", "usb/c67x00", "usb/cdns3", "usb/chipidea",
	"usb/common", "usb/core", "usb/dwc2", "usb/dwc3", "usb/host",
	"usb/isp1760", "usb/musb", "usb/storage", "virtio", "xen",
};

/* Below kernel/drivers/ too, but no root is there (see above). */
static const char *const later_files[] = {
	"block/floppy.ko",
};

/*
 * Below kernel/drivers/ too: the legacy IDE and PATA controllers.  Every
 * PC chipset before AHCI has one, and so has QEMU's i440fx PC, always.
 * ata_piix's probe resets each port (libata sleeps 100 ms and more per
 * reset) and, probed asynchronously, takes the one CPU from the loads
 * after it (docs/decisions.md, "mkrescue").  A root behind them (a
 * PATA disk, an ICH SATA port in IDE mode, QEMU's -hda) is still found:
 * rootfind.c loads them as soon as the root is not among the devices of
 * the queued uevents, before it waits for more.
 */
static const char *const legacy_files[] = {
	"ata/ata_generic.ko", "ata/ata_piix.ko", "ata/pata_",
};

static bool net_wanted, floppy_root, legacy_wanted;

static bool below(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(path, dir, n) && path[n] == '/';
}

void coldplug_init(const struct cmdline *c)
{
	const char *ip[16], *root = cmdline_get(c, "root");
	size_t i, n = cmdline_get_all(c, "ip", ip, 16);

	floppy_root = root && !strncmp(root, "/dev/fd", 7);
	legacy_wanted = false;
	net_wanted = cmdline_flag(c, "rd.neednet", false);
	for (i = 0; i < n && i < 16; i++)
		if (strcmp(ip[i], "off") && strcmp(ip[i], "none"))
			net_wanted = true;
}

enum modclass coldplug_class(const char *path)
{
	static const char drivers[] = "kernel/drivers/";
	size_t i;

	if (strncmp(path, "kernel/", 7))
		return MODCLASS_BOOT;
	if (strncmp(path, drivers, sizeof(drivers) - 1))
		return MODCLASS_LATER;
	path += sizeof(drivers) - 1;
	for (i = 0; !floppy_root &&
		    i < ARRAY_SIZE(later_files); i++)
		if (!strncmp(path, later_files[i], strlen(later_files[i])))
			return MODCLASS_LATER;
	for (i = 0; i < ARRAY_SIZE(legacy_files); i++)
		if (!strncmp(path, legacy_files[i], strlen(legacy_files[i])))
			return MODCLASS_LEGACY;
	for (i = 0; i < ARRAY_SIZE(boot_dirs); i++)
		if (below(path, boot_dirs[i]))
			return MODCLASS_BOOT;
	if (below(path, "net"))
		return MODCLASS_NET;
	return MODCLASS_LATER;
}

bool coldplug_now(const char *path)
{
	switch (coldplug_class(path)) {
	case MODCLASS_BOOT:
		return true;
	case MODCLASS_NET:
		return net_wanted;
	case MODCLASS_LEGACY:
		return legacy_wanted;
	default:
		return false;
	}
}

/* From now on the legacy IDE/PATA drivers load as their devices come. */
void coldplug_want_legacy(void)
{
	legacy_wanted = true;
}

/*
 * Below these the order of the probes names the disks: virtio_pci
 * registers virtio0, virtio1 in the order its probes end, virtio_blk
 * takes vda, vdb in the order of its own, as mmc hosts and block drivers
 * do.  Probed asynchronously, two disks swapped names between boots
 * (tests/groups/rescue-init.sh, root on the second of two virtio disks), and
 * root=/dev/vda must stay the disk it was.  sd and nvme probe
 * asynchronously whatever we ask; libata keeps its own ports in order.
 */
static const char *const sync_dirs[] = {
	"block", "memstick", "mmc", "virtio",
};

bool coldplug_async(const char *path)
{
	static const char drivers[] = "kernel/drivers/";
	size_t i;

	if (strncmp(path, drivers, sizeof(drivers) - 1))
		return true;
	path += sizeof(drivers) - 1;
	for (i = 0; i < ARRAY_SIZE(sync_dirs); i++)
		if (below(path, sync_dirs[i]))
			return false;
	return true;
}
