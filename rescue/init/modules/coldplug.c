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
 * root.  Where depmod puts a module says which it is, for any kernel
 * and for the dracut image, which keeps /lib/modules' layout: the table
 * is rescue/share/module-classes (its rows and their reasons), made C
 * by module-classes.awk.  Here is only its rule: the longest prefix of
 * the module's path wins.
 *
 * Dependencies and softdeps of a module that loads now load with it,
 * wherever they live (usbcore, libata, crc32c): the rule only decides
 * what a device's own modalias pulls in.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "arraysize.h"
#include "module-classes.h"
#include "rescue-init.h"

struct module_class {
	const char *prefix;
	size_t prefix_len;	/* of the literal, counted by the compiler */
	enum modclass class;
	bool in_order;
	const char *root_prefix;	/* boot when root= begins with it */
};

static const struct module_class classes[] = {
#define MODULE_CLASS(prefix, class, in_order, root_prefix) \
	{ prefix, sizeof(prefix) - 1, class, in_order, root_prefix },
	MODULE_CLASSES
#undef MODULE_CLASS
};

/* root='s first bytes: enough for any row's root= prefix. */
static char root_param[32];
static bool net_wanted, legacy_wanted;

/* The row of the longest prefix of path; the table has one for "". */
static const struct module_class *class_of(const char *path)
{
	const struct module_class *best = NULL;
	size_t i, n;

	for (i = 0; i < ARRAY_SIZE(classes); i++) {
		n = classes[i].prefix_len;
		if ((!best || n > best->prefix_len) &&
		    !strncmp(path, classes[i].prefix, n))
			best = &classes[i];
	}
	return best;
}

void coldplug_init(const struct cmdline *c)
{
	const char *ip[16], *root = cmdline_get(c, "root");
	size_t i, n = cmdline_get_all(c, "ip", ip, 16);

	snprintf(root_param, sizeof(root_param), "%s", root ? root : "");
	legacy_wanted = false;
	net_wanted = cmdline_flag(c, "rd.neednet", false);
	for (i = 0; i < n && i < 16; i++)
		if (strcmp(ip[i], "off") && strcmp(ip[i], "none"))
			net_wanted = true;
}

enum modclass coldplug_class(const char *path)
{
	const struct module_class *c = class_of(path);

	if (c->root_prefix &&
	    !strncmp(root_param, c->root_prefix, strlen(c->root_prefix)))
		return MODCLASS_BOOT;
	return c->class;
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

/* Whether the order of its probes names the disks (module-classes). */
bool coldplug_async(const char *path)
{
	return !class_of(path)->in_order;
}
