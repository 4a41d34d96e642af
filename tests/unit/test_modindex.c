// SPDX-License-Identifier: GPL-2.0
/*
 * test_modindex.c: rescue/lib/modindex.c (modules.dep, .alias, .softdep,
 * .builtin, the parser of both programs) and rescue-init's load order
 * over it (modload_order() of rescue/init/modules/modload.c).
 */
#include "unit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rescue-init.h"

static const char dep[] =
	"kernel/drivers/virtio/virtio.ko:\n"
	"kernel/drivers/virtio/virtio_ring.ko:\n"
	"kernel/drivers/virtio/virtio_pci.ko: kernel/drivers/virtio/virtio_ring.ko kernel/drivers/virtio/virtio.ko\n"
	"kernel/drivers/block/virtio_blk.ko: kernel/drivers/virtio/virtio_ring.ko kernel/drivers/virtio/virtio.ko\n"
	"kernel/lib/crc16.ko:\n"
	"kernel/fs/jbd2/jbd2.ko:\n"
	"kernel/fs/mbcache.ko:\n"
	"kernel/fs/ext4/ext4.ko: kernel/lib/crc16.ko kernel/fs/mbcache.ko kernel/fs/jbd2/jbd2.ko\n"
	"kernel/crypto/crc32c_generic.ko:\n"
	"kernel/arch/x86/crypto/crc32c-intel.ko:\n"
	"kernel/drivers/nvme/host/nvme-core.ko.xz: kernel/lib/crc16.ko\n"
	"kernel/drivers/nvme/host/nvme.ko.xz: kernel/drivers/nvme/host/nvme-core.ko.xz\n"
	"kernel/a.ko: kernel/b.ko\n"
	"kernel/b.ko: kernel/a.ko\n"
	"kernel/broken.ko: kernel/missing.ko\n"
	"# a comment\n"
	"no colon here\n"
	"\n";

static const char alias[] =
	"# Aliases extracted from modules themselves.\n"
	"alias pci:v00001AF4d*sv*sd*bc*sc*i* virtio_pci\n"
	"alias virtio:d00000002v* virtio_blk\n"
	"alias fs-ext4 ext4\n"
	"alias fs-ext3 ext4\n"
	"alias crypto-crc32c crc32c_generic\n"
	"alias crypto-crc32c crc32c_intel\n"
	"alias cpu:type:x86,ven*fam*mod*:feature:*0094* crc32c_intel\n"
	"alias pci:v*d*sv*sd*bc01sc08i02* nvme\n"
	"alias pci:v0000106Bd0000200[13]sv*sd*bc*sc*i* nvme\n"
	"alias fs-builtinfs builtinfs\n"
	"alias broken-alias broken\n"
	"alias\n"
	"alias lonely\n";

static const char softdep[] =
	"# Soft dependencies extracted from modules themselves.\n"
	"softdep ext4 pre: crypto-crc32c\n"
	"softdep jbd2 pre: crypto-crc32c\n"
	"softdep virtio_blk post: crc16\n"
	"softdep cifs gcm\n"
	"softdep unknown pre: ext4\n";

static const char builtin[] =
	"kernel/drivers/ata/libata.ko\n"
	"kernel/fs/builtinfs.ko\n";

static struct modindex ix;
static char bufs[4][4096];
static char loaded[64][64];
static size_t nloaded;
static int fail_with;
static const char *fail_name;

static int fake_load(void *ctx, const struct module *m, const char *reason)
{
	(void)ctx;
	assert_non_null(reason);
	snprintf(loaded[nloaded++], sizeof(loaded[0]), "%s", m->name);
	if (fail_name && !strcmp(m->name, fail_name))
		return fail_with;
	return 0;
}

/* Where NAME stands in the load order, or -1: never loaded. */
static ssize_t load_index(const char *name)
{
	size_t i;

	for (i = 0; i < nloaded; i++)
		if (!strcmp(loaded[i], name))
			return (ssize_t)i;
	return -1;
}

static size_t position(const char *name)
{
	ssize_t i = load_index(name);

	if (i < 0)
		fail_msg("%s was not loaded", name);
	return (size_t)i;
}

/* modload_order() of NAME over ix, loading by fake_load(). */
static int order(const char *name)
{
	return modload_order(&ix, name, fake_load, NULL);
}

static bool was_loaded(const char *name)
{
	return load_index(name) >= 0;
}

static int setup(void **state)
{
	(void)state;
	memset(&ix, 0, sizeof(ix));
	nloaded = 0;
	fail_name = NULL;
	strcpy(bufs[0], dep);
	strcpy(bufs[1], alias);
	strcpy(bufs[2], softdep);
	strcpy(bufs[3], builtin);
	assert_int_equal(modindex_parse(&ix, MODINDEX_DEP, bufs[0]), 0);
	assert_int_equal(modindex_parse(&ix, MODINDEX_ALIAS, bufs[1]), 0);
	assert_int_equal(modindex_parse(&ix, MODINDEX_SOFTDEP, bufs[2]), 0);
	assert_int_equal(modindex_parse(&ix, MODINDEX_BUILTIN, bufs[3]), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	modindex_free(&ix);
	return 0;
}

static void names_from_paths(void **state)
{
	char n[64];

	(void)state;
	modindex_name("kernel/drivers/block/virtio_blk.ko", n, sizeof(n));
	assert_string_equal(n, "virtio_blk");
	modindex_name("kernel/drivers/nvme/host/nvme-core.ko.xz", n, sizeof(n));
	assert_string_equal(n, "nvme_core");
	modindex_name("foo.ko.zst", n, sizeof(n));
	assert_string_equal(n, "foo");
	/* As kmod's modname_normalize(): the name ends at the first '.'. */
	modindex_name("kernel/weird.kobj.ko", n, sizeof(n));
	assert_string_equal(n, "weird");
	modindex_name("a/very-long-name.ko", n, 5);
	assert_string_equal(n, "very");
}

static void parses_the_indexes(void **state)
{
	ssize_t i;

	(void)state;
	assert_int_equal(ix.nmods, 15);
	assert_int_equal(ix.naliases, 11);
	assert_int_equal(ix.nbuiltin, 2);
	i = modindex_find(&ix, "nvme-core");
	assert_true(i >= 0);
	assert_string_equal(ix.mods[i].path, "kernel/drivers/nvme/host/nvme-core.ko.xz");
	assert_int_equal(ix.nsoftdeps, 3);	/* cifs, unknown: no such module */
	assert_int_equal(ix.softdeps[0].mod, modindex_find(&ix, "ext4"));
	assert_int_equal(ix.softdeps[0].npre, 1);
	assert_string_equal(ix.softdeps[0].pre[0], "crypto-crc32c");
	assert_int_equal(ix.mods[modindex_find(&ix, "broken")].ndeps, 0);
	assert_string_equal(ix.mods[modindex_find(&ix, "broken")].missing,
			    "kernel/missing.ko");
	assert_int_equal(modindex_find(&ix, "cifs"), -1);
	assert_true(modindex_is_builtin(&ix, "libata"));
	assert_false(modindex_is_builtin(&ix, "ext4"));
}

static void dependencies_load_first(void **state)
{
	(void)state;
	assert_int_equal(order("virtio:d00000002v00001AF4"), 4);
	assert_int_equal(nloaded, 4);
	assert_true(position("virtio_ring") < position("virtio_blk"));
	assert_true(position("virtio") < position("virtio_blk"));
	assert_true(position("virtio_blk") < position("crc16"));	/* post: */
}

static void each_module_loads_once(void **state)
{
	(void)state;
	assert_int_equal(order("pci:v00001AF4d00001001sv00001AF4sd00000002bc01sc00i00"), 3);
	assert_int_equal(order("pci:v00001AF4d00001042sv00001AF4sd00001100bc01sc00i00"), 0);
	assert_int_equal(order("virtio:d00000002v00001AF4"), 2);
	assert_int_equal(nloaded, 5);	/* virtio, virtio_ring once */
	assert_int_equal(order("virtio_blk"), 0);
}

static void softdep_aliases_resolve_to_every_module(void **state)
{
	(void)state;
	assert_int_equal(order("fs-ext4"), 6);
	assert_true(position("crc32c_generic") < position("jbd2"));
	assert_true(position("crc32c_intel") < position("jbd2"));
	assert_true(position("jbd2") < position("ext4"));
	assert_true(position("mbcache") < position("ext4"));
	assert_true(position("crc16") < position("ext4"));
	assert_string_equal(loaded[nloaded - 1], "ext4");
	assert_int_equal(order("fs-ext3"), 0);
}

static void builtin_modules_are_skipped(void **state)
{
	(void)state;
	assert_int_equal(order("libata"), 0);
	assert_int_equal(order("fs-builtinfs"), 0);
	assert_int_equal(nloaded, 0);
}

static void fnmatch_patterns(void **state)
{
	(void)state;
	assert_int_equal(order("pci:v0000106Bd00002003sv00sd00bc00sc00i00"), 3);
	assert_true(was_loaded("nvme"));
	assert_true(position("nvme_core") < position("nvme"));
	nloaded = 0;
	assert_int_equal(order("pci:v0000106Bd00002002sv00sd00bc00sc00i00"), -ENOENT);
	assert_int_equal(order("cpu:type:x86,ven0000fam0006mod003F:feature:,0000,0094,00E9"), 1);
	assert_string_equal(loaded[0], "crc32c_intel");
}

static void unknown_names_are_enoent(void **state)
{
	(void)state;
	assert_int_equal(order("usb:v1234p5678"), -ENOENT);
	assert_int_equal(order("gcm"), -ENOENT);
	assert_int_equal(nloaded, 0);
}

static void failed_modules_are_not_retried(void **state)
{
	(void)state;
	fail_name = "virtio_blk";
	fail_with = -ENODEV;
	assert_int_equal(order("virtio:d00000002v00001AF4"), 3);
	assert_int_equal(order("virtio:d00000002v00001AF4"), 0);
	assert_int_equal(nloaded, 4);
	assert_int_equal(ix.mods[modindex_find(&ix, "virtio_blk")].state, MOD_FAILED);
}

static void cycles_and_missing_deps_end(void **state)
{
	(void)state;
	assert_int_equal(order("a"), 2);
	assert_int_equal(order("broken-alias"), 1);
	assert_int_equal(nloaded, 3);
}

static void empty_indexes(void **state)
{
	struct modindex empty = { 0 };
	char none[1] = "";

	(void)state;
	assert_int_equal(modindex_parse(&empty, MODINDEX_DEP, none), 0);
	assert_int_equal(modindex_parse(&empty, MODINDEX_ALIAS, none), 0);
	/* modules.dep once: the other files refer to its modules. */
	assert_int_equal(modindex_parse(&empty, MODINDEX_DEP, none), -EINVAL);
	assert_int_equal(modindex_find(&empty, "x"), -1);
	assert_false(modindex_is_builtin(&empty, "x"));
	assert_int_equal(modload_order(&empty, "x", fake_load, NULL), -ENOENT);
	modindex_free(&empty);
}

static int count_match(void *ctx, size_t mod)
{
	(*(size_t *)ctx)++;
	(void)mod;
	return 0;
}

/* The rules of modindex.c's opening comment, each as kmod has it. */
static void kmod_rules(void **state)
{
	char d[] = "kernel/x/dm-mod.ko:\r\n"
		   "kernel/x/dm-crypt.ko: kernel/x/dm-mod.ko\r\n"
		   "kernel/x/no-colon.ko kernel/x/dm-mod.ko\r\n"
		   "kernel/x/odd.name.ko:\r\n";
	char a[] = "alias dm-crypt-alias dm-crypt\r\n"
		   "alias pci:v[0-9]d* dm_mod\n"
		   "alias broken[-x dm_mod\n"
		   "notalias x dm_mod\n";
	char b[] = "kernel/y/in-kernel.ko\r\n ../z/skipped.ko\n#c.ko\n";
	struct modindex r = { 0 };
	size_t n = 0;
	ssize_t k;

	(void)state;
	assert_int_equal(modindex_parse(&r, MODINDEX_DEP, d), 0);
	assert_int_equal(modindex_parse(&r, MODINDEX_ALIAS, a), 0);
	assert_int_equal(modindex_parse(&r, MODINDEX_BUILTIN, b), 0);
	/* kmod_module_parse_depline(): no ':', no module; \r is a blank. */
	assert_int_equal(r.nmods, 3);
	assert_int_equal(modindex_find(&r, "no-colon"), -1);
	k = modindex_find(&r, "dm-crypt");
	assert_true(k >= 0);
	assert_int_equal(r.mods[k].ndeps, 1);
	assert_null(r.mods[k].missing);
	/* modname_normalize(): the name ends at the first '.'. */
	assert_true(modindex_find(&r, "odd") >= 0);
	/* alias_normalize() on both sides, [...] kept as written. */
	assert_int_equal(modindex_resolve(&r, "dm_crypt_alias", count_match, &n), 1);
	assert_int_equal(modindex_resolve(&r, "pci:v5d1", count_match, &n), 1);
	assert_int_equal(modindex_resolve(&r, "pci:v-d1", count_match, &n), 0);
	assert_int_equal(n, 2);
	/* An unmatched bracket matches nothing; other lines are skipped. */
	assert_int_equal(r.naliases, 3);
	assert_null(r.aliases[2].norm);
	assert_int_equal(modindex_resolve(&r, "broken[-x", NULL, NULL), 0);
	/* output_builtin_bin(): a builtin line starts with a letter. */
	assert_int_equal(r.nbuiltin, 1);
	assert_true(modindex_is_builtin(&r, "in_kernel"));
	modindex_free(&r);
}

/* Random index files: parsed without a crash, loads terminate. */
static void survives_random_indexes(void **state)
{
	static const char alphabet[] = "alias softdep pre: post: .ko/:*?[]\n\tab-_";
	struct modindex r;
	char d[512], a[512], sd[512], b[512];
	size_t i, len;
	int round;

	(void)state;
	srand(4);
	for (round = 0; round < 2000; round++) {
		char *bufs4[] = { d, a, sd, b };

		for (size_t k = 0; k < 4; k++) {
			len = (size_t)rand() % 511;
			for (i = 0; i < len; i++)
				bufs4[k][i] = alphabet[rand() % (sizeof(alphabet) - 1)];
			bufs4[k][len] = '\0';
		}
		memset(&r, 0, sizeof(r));
		assert_int_equal(modindex_parse(&r, MODINDEX_DEP, d), 0);
		assert_int_equal(modindex_parse(&r, MODINDEX_ALIAS, a), 0);
		assert_int_equal(modindex_parse(&r, MODINDEX_SOFTDEP, sd), 0);
		assert_int_equal(modindex_parse(&r, MODINDEX_BUILTIN, b), 0);
		nloaded = 0;
		for (i = 0; i < r.naliases && nloaded < 40; i++)
			modload_order(&r, r.aliases[i].module, fake_load, NULL);
		for (i = 0; i < r.nmods && nloaded < 40; i++)
			modload_order(&r, r.mods[i].name, fake_load, NULL);
		modindex_free(&r);
	}
}

/*
 * modcpu.c: crc32c_intel's one cpu: alias asks for feature 0094 (SSE4.2);
 * on a CPU without it the module is marked, on one with it not, and a
 * module without cpu: aliases never is.
 */
static void cpu_feature_modules_for_other_cpus(void **state)
{
	static const char lacking[] =
		"cpu:type:x86,ven0002fam000Fmod006B:feature:,0000,0001,0093,00C0";
	static const char having[] =
		"cpu:type:x86,ven0000fam0006mod003A:feature:,0000,0093,0094,00C0";
	bool unusable[64];
	ssize_t intel = modindex_find(&ix, "crc32c_intel");
	ssize_t generic = modindex_find(&ix, "crc32c_generic");
	ssize_t ext4 = modindex_find(&ix, "ext4");

	(void)state;
	assert_true(ix.nmods <= 64);
	assert_true(intel >= 0 && generic >= 0 && ext4 >= 0);
	modcpu_mark(&ix, lacking, unusable);
	assert_true(unusable[intel]);
	assert_false(unusable[generic]);
	assert_false(unusable[ext4]);
	modcpu_mark(&ix, having, unusable);
	assert_false(unusable[intel]);
	/* No CPU modalias to compare (not readable, another format). */
	modcpu_mark(&ix, NULL, unusable);
	assert_false(unusable[intel]);
	modcpu_mark(&ix, "acpi:PNP0A03:", unusable);
	assert_false(unusable[intel]);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
UNIT_MAIN(NULL, NULL,
	cmocka_unit_test(names_from_paths),
	T(parses_the_indexes),
	T(dependencies_load_first),
	T(each_module_loads_once),
	T(softdep_aliases_resolve_to_every_module),
	T(builtin_modules_are_skipped),
	T(fnmatch_patterns),
	T(unknown_names_are_enoent),
	T(failed_modules_are_not_retried),
	T(cycles_and_missing_deps_end),
	T(cpu_feature_modules_for_other_cpus),
	cmocka_unit_test(empty_indexes),
	cmocka_unit_test(kmod_rules),
	cmocka_unit_test(survives_random_indexes))
