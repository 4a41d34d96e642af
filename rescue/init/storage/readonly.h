/* SPDX-License-Identifier: GPL-2.0 */
/*
 * readonly.h: what readonly.c's watcher calls beside BLKROSET.
 */
#ifndef RESCUE_READONLY_H
#define RESCUE_READONLY_H

/* dmnodes.c: /dev/mapper/NAME for dm-N, as udev would make it */
void dmnodes_update(const char *dev);
void dmnodes_remove(const char *dev);
/* Before switch_root: /dev/mapper as the root's udev expects it. */
void dmnodes_hand_over(void);

/* lvmstrict.c: lvm in the shell activates the VGs seen read-only */
void lvmstrict_device(const char *name);
void lvmstrict_undo(void);

#endif
