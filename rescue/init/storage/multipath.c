// SPDX-License-Identifier: GPL-2.0
/*
 * multipath.c: one disk seen on several paths (two HBAs or ports to one
 * LUN, blk_same_disk()) is named as such, so that a root on it is one
 * match and not "2 devices match".  Without multipath-tools in the image
 * the root is mounted through its first path: read-only, that is what
 * any one path gives; the paths' failover is multipathd's work.
 */
#include <stdio.h>
#include <string.h>

#include "rescue-init.h"
#include "storage.h"

/* The other paths of l->dev[i], as " /dev/sdb1 /dev/sdc1": how many. */
static size_t other_paths(const struct blklist *l, size_t i, char *buf,
			  size_t size)
{
	size_t j, n = 0, used = 0;
	int w;

	buf[0] = '\0';
	for (j = 0; j < l->n; j++) {
		if (j == i || !blk_same_disk(&l->dev[i], &l->dev[j]))
			continue;
		n++;
		w = snprintf(buf + used, size - used, " %s", l->dev[j].node);
		if (w > 0 && (size_t)w < size - used)
			used += (size_t)w;
	}
	return n;
}

void multipath_note_root(const struct blklist *l, size_t i)
{
	char paths[256], id[128];
	size_t n;

	n = other_paths(l, i, paths, sizeof(paths));
	if (!n)
		return;
	devtable_escape(l->dev[i].path_id, id, sizeof(id));
	log_info("root on one disk seen on %zu paths (multipath, %s): %s%s; "
		 "mounted through %s, without a multipath map "
		 "(multipath-tools are not in the image)",
		 n + 1, id, l->dev[i].node, paths, l->dev[i].node);
}
