// SPDX-License-Identifier: GPL-2.0
/*
 * lvmdisk.c: a PV's metadata read from its disk (the metadata area
 * header, then the VG text, checked and parsed by lvmmeta.c), for the
 * LVM layer's fast path and for lvmstrict.c, which names each VG it
 * sees read-only.  Its own file, so that the strict-mode watcher does
 * not reach into the layer that asks it whether strict mode is on.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "lvmdisk.h"
#include "lvmmeta.h"

/* len bytes at off of fd into buf: 0 or -errno (-EIO when short). */
int lvmdisk_read_at(int fd, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = pread(fd, (char *)buf + done, len - done,
			  (off_t)(off + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += (size_t)n;
	}
	return 0;
}

/* The VG of one metadata area of fd, checksum checked: 0 or -errno. */
int lvmdisk_read_area(int fd, uint64_t off, uint64_t size,
		  struct lvmmeta_vg *vg, const char **why)
{
	uint8_t hdr[LVMMETA_MDA_HEADER];
	struct lvmmeta_text_locn t;
	char *text;
	int err;

	err = lvmdisk_read_at(fd, hdr, sizeof(hdr), off);
	if (err) {
		*why = "unable to read its metadata area";
		return err;
	}
	err = lvmmeta_mda_header(hdr, off, size, &t);
	if (err) {
		*why = err == -ENOENT ? "no metadata in its metadata area" :
		       "its metadata area header is damaged";
		return err;
	}
	text = malloc(t.size);
	if (!text)
		return -ENOMEM;
	err = lvmdisk_read_at(fd, text, t.first, t.offset);
	if (!err && t.first < t.size)
		err = lvmdisk_read_at(fd, text + t.first, t.size - t.first,
			      t.wrap_offset);
	if (err)
		*why = "unable to read its metadata";
	else if (lvmmeta_crc(LVMMETA_CRC_SEED, text, t.size) != t.checksum)
		*why = "its metadata checksum is wrong", err = -EINVAL;
	else if ((err = lvmmeta_parse_vg(text, t.size, vg)))
		*why = "its metadata is not what lvm writes";
	free(text);
	return err;
}
