// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_modlist.c: mkrescue's module list (the format of
 * rescue/share/modules.list) and its --add-module names, resolved by
 * modules_add() against a small fixed module tree: the first 0xff-
 * separated part of the input is the list file, the next ones (up to
 * 16) are --add-module names.
 */
#include <stdio.h>

#include "fuzz.h"
#include "mkrescue.h"

#define ADD_MAX	16

static char dir[] = "/tmp/fuzz_modlist.XXXXXX";
static char list_path[64];

static const char *const tree[][2] = {
	{ "modules.dep",
	  "kernel/drivers/alpha.ko: kernel/drivers/beta.ko\n"
	  "kernel/drivers/beta.ko:\n"
	  "kernel/drivers/gamma-x.ko:\n"
	  "kernel/drivers/unused.ko:\n"
	  "kernel/crypto/hash_impl.ko:\n" },
	{ "modules.alias",
	  "alias crypto-hash hash_impl\n"
	  "alias pci:v0000ABCDd* alpha\n"
	  "alias fs-gamma gamma_x\n" },
	{ "modules.softdep", "softdep beta pre: crypto-hash post: gamma-x\n" },
	{ "modules.builtin", "kernel/drivers/builtin_one.ko\n" },
	{ "kernel/drivers/alpha.ko", "" },
	{ "kernel/drivers/beta.ko", "" },
	{ "kernel/drivers/gamma-x.ko", "" },
	{ "kernel/drivers/unused.ko", "" },
	{ "kernel/crypto/hash_impl.ko", "" },
};

static void make_tree(void)
{
	size_t i;

	if (!mkdtemp(dir))
		abort();
	fuzz_mkdir(dir, "kernel", 0755);
	fuzz_mkdir(dir, "kernel/drivers", 0755);
	fuzz_mkdir(dir, "kernel/crypto", 0755);
	for (i = 0; i < sizeof(tree) / sizeof(tree[0]); i++)
		fuzz_put(dir, tree[i][0], tree[i][1]);
	snprintf(list_path, sizeof(list_path), "%s/list", dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool made;
	const char *add[ADD_MAX];
	char *names[ADD_MAX];
	struct modules_request req = { .kver = "9.9.9-fuzz", .add = add };
	struct list l = { 0 };
	size_t i;

	if (!made)
		make_tree();
	made = true;
	req.kmoddir = dir;
	req.module_list = list_path;
	fuzz_write_part(list_path, &data, &size, 1 << 16);
	for (i = 0; i < ADD_MAX && size; i++) {
		names[i] = fuzz_part(&data, &size, 256);
		if (!names[i])
			break;
		add[req.nadd++] = names[i];
	}
	modules_add(&l, &req);
	list_free(&l);
	for (i = 0; i < req.nadd; i++)
		free(names[i]);
	return 0;
}
