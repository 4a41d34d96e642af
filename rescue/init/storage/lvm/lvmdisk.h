/* SPDX-License-Identifier: GPL-2.0 */
/* lvmdisk.h: a PV's metadata read from its disk (lvmdisk.c). */
#ifndef RESCUE_LVMDISK_H
#define RESCUE_LVMDISK_H

#include <stddef.h>
#include <stdint.h>

struct lvmmeta_vg;

/* len bytes at off of fd into buf: 0 or -errno (-EIO when short). */
int lvmdisk_read_at(int fd, void *buf, size_t len, uint64_t off);
/*
 * The VG text of the metadata area at off (size bytes) parsed into vg:
 * 0, or -errno with *why saying what was wrong with it.
 */
int lvmdisk_read_area(int fd, uint64_t off, uint64_t size,
		      struct lvmmeta_vg *vg, const char **why);

#endif
