// SPDX-License-Identifier: GPL-2.0
/*
 * keymap.c: the machine's console keyboard layout, loaded before the
 * first passphrase prompt and the rescue shell.  mkrescue and the dracut
 * module compile it at build time (loadkeys -b) into RESCUE_KEYMAP_PATH,
 * busybox loadkmap's format: "bkeymap", 256 flag bytes (1: the table of
 * that modifier combination follows), then each flagged table as 128
 * native-endian u16 values, in order.  Each value goes to the kernel by
 * KDSKBENT on /dev/tty0, as booster does: keymaps are global to the
 * virtual consoles, so whichever of them /dev/console is, it types in
 * the layout.  rd.vconsole.keymap=us (or vconsole.keymap=us) keeps the
 * kernel's own US map, for a passphrase set before the layout changed;
 * keymap_as_us() gives what the same keys type under US, for the
 * prompt's second try of a refused passphrase (storage-luks.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/kd.h>
#include <linux/keyboard.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rescue-init.h"
#include "readfile.h"

#define BKEYMAP_MAGIC	"bkeymap"
#define BKEYMAP_HEAD	(sizeof(BKEYMAP_MAGIC) - 1 + MAX_NR_KEYMAPS)
/* 128 keys a table, busybox's NR_KEYS: the kernel's is 256 now */
#define BKEYMAP_KEYS	128
#define BKEYMAP_TABLE	(BKEYMAP_KEYS * sizeof(uint16_t))
#define BKEYMAP_MAX	(BKEYMAP_HEAD + MAX_NR_KEYMAPS * BKEYMAP_TABLE)
#define KEYMAP_NAME_MAX	64

/* The kernel's US map (defkeymap), plain and shifted, up to the space. */
static const char us_plain[] = "\0\0" "1234567890-=" "\0\0" "qwertyuiop[]"
	"\0\0" "asdfghjkl;'`" "\0" "\\" "zxcvbnm,./" "\0\0\0" " ";
static const char us_shift[] = "\0\0" "!@#$%^&*()_+" "\0\0" "QWERTYUIOP{}"
	"\0\0" "ASDFGHJKL:\"~" "\0" "|" "ZXCVBNM<>?" "\0\0\0" " ";
#define US_KEYS		(sizeof(us_plain) - 1)
#define KEY_102ND	86	/* the key beside left shift: < > in US */

/* The image's map; one byte more: a longer file is cut, and refused. */
static unsigned char map[BKEYMAP_MAX + 2];

/* What was loaded: its name, and its plain and shifted tables. */
static struct {
	bool loaded;
	char name[KEYMAP_NAME_MAX];
	uint16_t table[2][BKEYMAP_KEYS];
	bool has[2];
} km;

/* The image's keymap name (RESCUE_KEYMAP_NAME_PATH), "?" if it has none. */
static void read_name(char *name, size_t size)
{
	char buf[KEYMAP_NAME_MAX];

	snprintf(name, size, "?");
	if (readfile_into(RESCUE_KEYMAP_NAME_PATH, buf, sizeof(buf), NULL))
		return;
	buf[strcspn(buf, "\n")] = '\0';
	if (buf[0])
		snprintf(name, size, "%s", buf);
}

/*
 * The tables of a binary keymap: their count, or -EINVAL when the size
 * does not match the flags (a text keymap, a truncated file).
 */
static int count_tables(const unsigned char *m, size_t len)
{
	size_t i, n = 0;

	if (len < BKEYMAP_HEAD ||
	    memcmp(m, BKEYMAP_MAGIC, sizeof(BKEYMAP_MAGIC) - 1))
		return -EINVAL;
	for (i = 0; i < MAX_NR_KEYMAPS; i++) {
		if (m[sizeof(BKEYMAP_MAGIC) - 1 + i] > 1)
			return -EINVAL;
		n += m[sizeof(BKEYMAP_MAGIC) - 1 + i];
	}
	return len == BKEYMAP_HEAD + n * BKEYMAP_TABLE ? (int)n : -EINVAL;
}

/*
 * Every entry of every table to the kernel (fd < 0: to nobody); keeps
 * the first two, plain and shifted, for keymap_as_us().
 */
static int send_tables(int fd, const unsigned char *m)
{
	const unsigned char *p = m + BKEYMAP_HEAD;
	struct kbentry ke;
	unsigned t, k;
	uint16_t v;

	for (t = 0; t < MAX_NR_KEYMAPS; t++) {
		if (!m[sizeof(BKEYMAP_MAGIC) - 1 + t])
			continue;
		for (k = 0; k < BKEYMAP_KEYS; k++, p += sizeof(v)) {
			memcpy(&v, p, sizeof(v));
			ke = (struct kbentry){ .kb_table = (unsigned char)t,
					       .kb_index = (unsigned char)k,
					       .kb_value = v };
			if (fd >= 0 && ioctl(fd, KDSKBENT, &ke))
				return -errno;
			if (t < 2)
				km.table[t][k] = v;
		}
		if (t < 2)
			km.has[t] = true;
	}
	return 0;
}

/* What rd.vconsole.keymap= (dracut's) or vconsole.keymap= asks, or NULL. */
static const char *asked(const struct cmdline *c, const char **key)
{
	const char *v;

	*key = "rd.vconsole.keymap";
	v = cmdline_get(c, *key);
	if (!v) {
		*key = "vconsole.keymap";
		v = cmdline_get(c, *key);
	}
	return v && *v ? v : NULL;
}

/*
 * For rescue-mount and rescue-unlock, rescue-init under another name in
 * the shell: which keymap PID 1 loaded, in RESCUE_KEYMAP_LOADED.
 */
static void note_loaded(void)
{
	int fd;

	mkdir(RESCUE_RUN_DIR, 0755);
	fd = open(RESCUE_KEYMAP_LOADED, O_WRONLY | O_CREAT | O_TRUNC |
		  O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (writefile_all(fd, km.name, strlen(km.name)))
		log_debug("keymap: unable to write %s", RESCUE_KEYMAP_LOADED);
	close(fd);
}

/* In a process other than PID 1: the tables PID 1 loaded, if it did. */
static void from_pid1(void)
{
	size_t len;

	if (km.loaded || getpid() == 1 || access(RESCUE_KEYMAP_LOADED, F_OK))
		return;
	if (readfile_into(RESCUE_KEYMAP_PATH, (char *)map, sizeof(map), &len) ||
	    count_tables(map, len) < 0 || send_tables(-1, map))
		return;
	read_name(km.name, sizeof(km.name));
	km.loaded = true;
}

/* The map's bytes to the console; one line says what came of it. */
static void load(size_t len)
{
	uint64_t t0 = log_now_us();
	int tables, fd, err;
	char type;

	tables = count_tables(map, len);
	if (tables < 0) {
		log_warn("keymap: %s not loaded: %s is not a binary keymap "
			 "(loadkeys -b) of %zu bytes; typing in US", km.name,
			 RESCUE_KEYMAP_PATH, len);
		return;
	}
	fd = open("/dev/tty0", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, KDGKBTYPE, &type)) {
		err = errno;
		log_info("keymap: %s not loaded: no virtual console to type on "
			 "(/dev/tty0: %s)", km.name, errtext(err));
		if (fd >= 0)
			close(fd);
		return;
	}
	err = send_tables(fd, map);
	close(fd);
	if (err) {
		log_warn("keymap: %s loaded in part: KDSKBENT: %s", km.name,
			 errtext(-err));
		return;
	}
	km.loaded = true;
	note_loaded();
	log_info("keymap: loaded %s (%d tables) in %llu us; "
		 "rd.vconsole.keymap=us types in US", km.name, tables,
		 (unsigned long long)(log_now_us() - t0));
}

/* The image's keymap to the console, unless the command line says us. */
void keymap_load(const struct cmdline *c)
{
	const char *want, *key;
	size_t len;
	int err;

	km.loaded = false;
	unlink(RESCUE_KEYMAP_LOADED);
	err = readfile_into(RESCUE_KEYMAP_PATH, (char *)map, sizeof(map), &len);
	want = asked(c, &key);
	if (err == -ENOENT) {
		if (want && strcmp(want, "us"))
			log_warn("keymap: unable to use %s=%s: this image has "
				 "no keymap (mkrescue --keymap); typing in US",
				 key, want);
		return;
	}
	read_name(km.name, sizeof(km.name));
	if (err) {
		log_warn("keymap: %s not loaded: unable to read %s: %s; typing "
			 "in US", km.name, RESCUE_KEYMAP_PATH, errtext(-err));
		return;
	}
	if (want && !strcmp(want, "us")) {
		log_info("keymap: the kernel's US map (%s=us), not the image's "
			 "%s", key, km.name);
		return;
	}
	if (want && strcmp(want, km.name))
		log_warn("keymap: unable to use %s=%s: this image has only %s "
			 "(and us); loading %s", key, want, km.name, km.name);
	load(len);
}

/* The loaded keymap's name, or "us" when the kernel's map is in use. */
const char *keymap_name(void)
{
	from_pid1();
	return km.loaded ? km.name : "us";
}

/*
 * A table value's character: a letter or a Latin-1 symbol (KT_LETTER,
 * KT_LATIN), or Unicode (kbd's U+ values, 0xf000 ^ code point); -1 for
 * the other key types (function keys, modifiers, dead keys).
 */
static long value_char(uint16_t v)
{
	unsigned type = v >> 8;

	if (type == KT_LATIN || type == KT_LETTER)
		return v & 0xff;
	if (type >= 0x10)
		return v ^ 0xf000;
	return -1;
}

/* One UTF-8 character of s (the console's Unicode mode), its length. */
static int utf8_next(const unsigned char *s, long *cp)
{
	int n, i;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc0 ? 2 : 0;
	if (!n)
		return -EILSEQ;
	*cp = s[0] & (0x3f >> (n - 1));
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return -EILSEQ;
		*cp = (*cp << 6) | (s[i] & 0x3f);
	}
	return n;
}

/* What the key that typed cp in the loaded map types in US, or 0. */
static char us_char(long cp)
{
	unsigned t, k;

	for (t = 0; t < 2; t++) {
		for (k = 0; km.has[t] && k < BKEYMAP_KEYS; k++) {
			if (value_char(km.table[t][k]) != cp)
				continue;
			if (k == KEY_102ND)
				return t ? '>' : '<';
			if (k < US_KEYS && (t ? us_shift : us_plain)[k])
				return (t ? us_shift : us_plain)[k];
		}
	}
	return 0;
}

/*
 * What the keys that typed IN (len bytes) under the loaded keymap type
 * under the kernel's US map, in OUT: its length; 0 when it is the same;
 * -ENOENT when no keymap was loaded; -EINVAL when a character was typed
 * with AltGr or a dead key, or is on no key of the map.
 */
int keymap_as_us(const char *in, size_t len, char *out, size_t size)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t i = 0, o = 0;
	long cp;
	int n;

	from_pid1();
	if (!km.loaded)
		return -ENOENT;
	while (i < len) {
		n = utf8_next(s + i, &cp);
		if (n < 0 || i + (size_t)n > len || o + 1 >= size)
			return -EINVAL;
		out[o] = us_char(cp);
		if (!out[o++])
			return -EINVAL;
		i += (size_t)n;
	}
	out[o] = '\0';
	return o == len && !memcmp(in, out, len) ? 0 : (int)o;
}
