/* SPDX-License-Identifier: GPL-2.0 */
/*
 * imagemark.h: how mkrescue marks an image whole, and rescue-init tells.
 * The kernel unpacks the archive in order and, short of memory or on a
 * damaged image, stops with "Initramfs unpacking failed: ..." and runs
 * /init anyway.  mkrescue writes IMAGEMARK_BEGIN at its sorted place
 * (before /init) and IMAGEMARK_END as the very last entry, both holding
 * IMAGEMARK_FORMAT: an image with the first and without the last was not
 * unpacked to its end.
 */
#ifndef RESCUE_IMAGEMARK_H
#define RESCUE_IMAGEMARK_H

#define IMAGEMARK_BEGIN		"etc/rescue-image"	/* in the archive */
#define IMAGEMARK_END		"etc/rescue-image.end"
/* The entries of the archive (both markers included) and the bytes of
 * its other regular files: what the image unpacks to. */
#define IMAGEMARK_FORMAT	"entries=%llu bytes=%llu\n"

#endif
