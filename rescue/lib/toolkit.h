/* SPDX-License-Identifier: GPL-2.0 */
/*
 * toolkit.h: where mkrescue puts the rescue toolkit and rescue-init finds
 * it.  The toolkit (busybox, e2fsck) is what the rescue shell, fsck and
 * the network need, and the boot to the root does not: mkrescue stores
 * its files as one xz-compressed cpio newc archive, which the kernel only
 * copies, and rescue-init unpacks it on first need (rescue/init/image/toolkit.c).
 */
#ifndef RESCUE_TOOLKIT_H
#define RESCUE_TOOLKIT_H

#define TOOLKIT_BLOB	"etc/rescue-toolkit.cpio.xz"	/* in the image */

#endif
