// SPDX-License-Identifier: GPL-2.0
/*
 * floor-init: the least an initramfs /init can do, as the benchmarks'
 * floor: mount devtmpfs (a remount where the patched kernel did), mount
 * the root by device path read-only, move /dev, switch and exec init.
 * No probing, no waiting, no error recovery.  Usage: rdinit=/init
 * floor_root=/dev/vda, which the kernel passes in the environment
 * (a name without a dot: dotted parameters are kept for modules).
 */
#include <stdlib.h>
#include <sys/mount.h>
#include <unistd.h>

int main(void)
{
	const char *root = getenv("floor_root");

	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	if (!root || mount(root, "/newroot", "ext4", MS_RDONLY, NULL))
		return 1;
	mount("/dev", "/newroot/dev", NULL, MS_MOVE, NULL);
	if (chdir("/newroot") || mount(".", "/", NULL, MS_MOVE, NULL) || chroot("."))
		return 1;
	execl("/sbin/init", "/sbin/init", (char *)NULL);
	return 1;
}
