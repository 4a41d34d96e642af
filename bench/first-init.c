// SPDX-License-Identifier: GPL-2.0
/*
 * first-init: an initramfs /init whose first act stamps /dev/kmsg, to
 * time the kernel up to the first userspace instruction with and without
 * devtmpfs on the initramfs /dev (devtmpfs.mount=0); then it reboots.
 */
#include <fcntl.h>
#include <sys/reboot.h>
#include <unistd.h>

int main(void)
{
	static const char stamp[] = "bench: first instruction\n";
	int fd = open("/dev/kmsg", O_WRONLY);

	/* Nothing to do about a failed stamp but go on to the reboot. */
	if (fd >= 0 && write(fd, stamp, sizeof(stamp) - 1) < 0)
		close(fd);
	reboot(RB_AUTOBOOT);
	return 1;
}
