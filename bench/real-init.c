// SPDX-License-Identifier: GPL-2.0
/*
 * real-init: the /sbin/init of the benchmarks' root.  Its first act
 * stamps /dev/kmsg, so that the kernel's printk clock tells when the
 * initramfs phase ended; then it reboots (QEMU runs with -no-reboot).
 */
#include <fcntl.h>
#include <sys/reboot.h>
#include <unistd.h>

int main(void)
{
	static const char stamp[] = "bench: real init\n";
	int fd = open("/dev/kmsg", O_WRONLY);

	/* Nothing to do about a failed stamp but go on to the reboot. */
	if (fd >= 0 && write(fd, stamp, sizeof(stamp) - 1) < 0)
		close(fd);
	sync();
	reboot(RB_AUTOBOOT);
	return 1;
}
