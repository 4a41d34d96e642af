// SPDX-License-Identifier: GPL-2.0
/* options.c: mkrescue's command line; each usage error one line. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mkrescue.h"
#include "options.h"

/* See mkrescue(8), "COMPRESSION", for how these were measured. */
#define MKRESCUE_ZSTD_LEVEL 4
#define MKRESCUE_GZIP_LEVEL 6

static void usage(FILE *f, const struct options *d)
{
	fprintf(f,
		"Usage: mkrescue [options] -o OUT\n"
		"Write the devtmpfs-rescue initramfs, a cpio newc archive.\n\n"
		"  -o, --output OUT         the image to write (atomically)\n"
		"      --init PATH          rescue-init, as /init (default %s)\n"
		"      --busybox PATH       static busybox (default %s)\n"
		"      --e2fsck PATH        static e2fsck (default %s, if there)\n"
		"      --no-e2fsck          leave e2fsck out\n"
		"  -k, --kver KVER          ship the modules of kernel KVER\n"
		"      --kmoddir DIR        where they are (default /lib/modules/KVER)\n"
		"      --module-list FILE   names of the modules to ship\n"
		"                           (default %s)\n"
		"      --hostonly           only the drivers of this host's block\n"
		"                           devices and its root filesystem's module\n"
		"      --add-module NAME    ship NAME too (repeatable)\n"
		"      --include SRC:DST    add a file or a tree at DST (repeatable)\n"
		"      --crypttab FILE      the root's crypttab, as /etc/crypttab, with\n"
		"                           its header= files (default with --hostonly:\n"
		"                           /etc/crypttab, if there)\n"
		"      --rescue-password-hash HASH\n"
		"                           the password every rescue shell asks for once\n"
		"                           a disk was opened without one (TPM2, tang)\n"
		"                           or with --lock-shell: a hash of\n"
		"                           mkpasswd -m sha-512 (the image is then 0600)\n"
		"      --rescue-password-file FILE\n"
		"                           the same, the hash read from FILE\n"
		"      --lock-shell         every shell asks for it, whatever opened\n"
		"                           the disks (none at all without a password)\n"
		"      --tpm2               ship systemd's TPM2 token plugin for\n"
		"                           cryptsetup (default with -k: when the\n"
		"                           crypttab has tpm2-device=)\n"
		"      --no-tpm2            leave it out\n"
		"      --firmware-dir DIR   the firmware the shipped modules declare\n"
		"                           is taken from DIR (default %s)\n"
		"      --microcode-dir DIR  start the image with the early microcode\n"
		"                           of DIR/intel-ucode/ and DIR/amd-ucode/\n"
		"                           (default with -k: the firmware directory's)\n"
		"      --no-microcode       no early microcode\n"
		"      --storage            ship mdadm, cryptsetup, lvm, dmsetup, btrfs\n"
		"                           with their libraries (default: with -k)\n"
		"      --no-storage         leave them out\n"
		"      --disk-tools         ship ddrescue, smartctl, badblocks for a\n"
		"                           failing disk (default: with -k)\n"
		"      --no-disk-tools      leave them out\n"
		"      --clevis             ship clevis (tang, sss pins), jose, curl,\n"
		"                           luksmeta: LUKS unlocked by a tang server\n"
		"                           (default: with -k when the host has\n"
		"                           clevis-initramfs or clevis-dracut)\n"
		"      --no-clevis          leave them out\n"
		"      --ssh-authorized-keys FILE\n"
		"                           dropbear, started once ip= configured the network,\n"
		"                           logins with these keys only\n"
		"      --ssh-host-key FILE  its host key, dropbear's or OpenSSH's format\n"
		"                           (default %s,\n"
		"                           an ed25519 key made there once)\n"
		"      --keymap NAME|FILE   the console keymap at the passphrase prompt\n"
		"                           and in the shell: a kbd keymap or an XKB\n"
		"                           layout (de, de:nodeadkeys), us for none\n"
		"                           (default with -k: the machine's)\n"
		"      --resume-conf DIR    RESUME= of initramfs-tools' conf.d DIR as the\n"
		"                           default resume= (default with -k:\n"
		"                           /etc/initramfs-tools/conf.d; \"\" for none)\n"
		"      --compress C         none, gzip or zstd (default zstd)\n"
		"      --compress-level N   gzip 1-9, zstd 1-19\n"
		"  -v, --verbose            say what is added and why\n"
		"  -h, --help               show this help\n"
		"      --version            show the version\n",
		d->init, d->busybox, d->e2fsck, d->module_list,
		d->firmware_dir, d->ssh_default_host_key);
}

static int usage_error(const char *what, const char *arg)
{
	msg_error("unable to parse the options: %s%s%s; see mkrescue --help",
		  what, arg ? " " : "", arg ? arg : "");
	return -EINVAL;
}

static int parse_int(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

static int push(const char ***array, size_t *count, const char *s)
{
	const char **n = realloc(*array, (*count + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	n[(*count)++] = s;
	*array = n;
	return 0;
}

/* Apart from the list below, which the other options extend. */
enum { OPT_CRYPTTAB = 512 };
/* The shell lock's (shelllock.c). */
enum { OPT_RESCUE_PW_HASH = 768, OPT_RESCUE_PW_FILE, OPT_LOCK_SHELL };
enum { OPT_TPM2 = 540, OPT_NO_TPM2 };

enum {
	OPT_INIT = 256, OPT_BUSYBOX, OPT_E2FSCK, OPT_NO_E2FSCK, OPT_KMODDIR,
	OPT_MODULE_LIST, OPT_ADD_MODULE, OPT_INCLUDE, OPT_COMPRESS,
	OPT_COMPRESS_LEVEL, OPT_VERSION, OPT_STORAGE, OPT_NO_STORAGE,
	OPT_HOSTONLY, OPT_SSH_KEYS, OPT_SSH_HOST_KEY, OPT_DISK_TOOLS,
	OPT_NO_DISK_TOOLS, OPT_FIRMWARE_DIR, OPT_MICROCODE_DIR,
	OPT_NO_MICROCODE,
	OPT_KEYMAP,
	OPT_RESUME_CONF,
	OPT_CLEVIS, OPT_NO_CLEVIS,
};

static const struct option long_options[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "init", required_argument, NULL, OPT_INIT },
	{ "busybox", required_argument, NULL, OPT_BUSYBOX },
	{ "e2fsck", required_argument, NULL, OPT_E2FSCK },
	{ "no-e2fsck", no_argument, NULL, OPT_NO_E2FSCK },
	{ "kver", required_argument, NULL, 'k' },
	{ "kmoddir", required_argument, NULL, OPT_KMODDIR },
	{ "module-list", required_argument, NULL, OPT_MODULE_LIST },
	{ "add-module", required_argument, NULL, OPT_ADD_MODULE },
	{ "hostonly", no_argument, NULL, OPT_HOSTONLY },
	{ "include", required_argument, NULL, OPT_INCLUDE },
	{ "crypttab", required_argument, NULL, OPT_CRYPTTAB },
	{ "rescue-password-hash", required_argument, NULL, OPT_RESCUE_PW_HASH },
	{ "rescue-password-file", required_argument, NULL, OPT_RESCUE_PW_FILE },
	{ "lock-shell", no_argument, NULL, OPT_LOCK_SHELL },
	{ "tpm2", no_argument, NULL, OPT_TPM2 },
	{ "no-tpm2", no_argument, NULL, OPT_NO_TPM2 },
	{ "storage", no_argument, NULL, OPT_STORAGE },
	{ "no-storage", no_argument, NULL, OPT_NO_STORAGE },
	{ "disk-tools", no_argument, NULL, OPT_DISK_TOOLS },
	{ "no-disk-tools", no_argument, NULL, OPT_NO_DISK_TOOLS },
	{ "clevis", no_argument, NULL, OPT_CLEVIS },
	{ "no-clevis", no_argument, NULL, OPT_NO_CLEVIS },
	{ "ssh-authorized-keys", required_argument, NULL, OPT_SSH_KEYS },
	{ "ssh-host-key", required_argument, NULL, OPT_SSH_HOST_KEY },
	{ "firmware-dir", required_argument, NULL, OPT_FIRMWARE_DIR },
	{ "microcode-dir", required_argument, NULL, OPT_MICROCODE_DIR },
	{ "no-microcode", no_argument, NULL, OPT_NO_MICROCODE },
	{ "keymap", required_argument, NULL, OPT_KEYMAP },
	{ "resume-conf", required_argument, NULL, OPT_RESUME_CONF },
	{ "compress", required_argument, NULL, OPT_COMPRESS },
	{ "compress-level", required_argument, NULL, OPT_COMPRESS_LEVEL },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

#define SHORT_OPTIONS	"okvh"

/*
 * What getopt_long() stopped at, named as the user wrote it.  optopt is
 * the bad letter of a cluster such as "-vx" (argv[optind - 1] may be the
 * word before it), 0 for an unknown long option, or the value of a long
 * option given "=ARG" it takes none of; a long option has moved optind
 * past its word.
 */
static int bad_option(char **argv, bool missing)
{
	const char *word = argv[optind - 1];
	bool is_long = !strncmp(word, "--", 2) &&
		       (missing || optopt == 0 || optopt >= 256 ||
			strchr(SHORT_OPTIONS, optopt));
	char name[128];
	size_t i, n = 0, len;

	if (!is_long) {
		snprintf(name, sizeof(name), "-%c", optopt);
		return usage_error(missing ? "missing argument of" :
				   "unknown option", name);
	}
	len = strcspn(word, "=");
	snprintf(name, sizeof(name), "%.*s", (int)len, word);
	if (missing)
		return usage_error("missing argument of", name);
	if (optopt)
		return usage_error("no argument taken by", name);
	/* "--in" is both --init and --include: say so, not "unknown". */
	for (i = 0; len > 2 && long_options[i].name; i++)
		n += !strncmp(long_options[i].name, name + 2, len - 2);
	return usage_error(n > 1 ? "ambiguous option" : "unknown option", name);
}

int parse_options(int argc, char **argv, struct options *o)
{
	const struct options defaults = *o;
	const char *level = NULL;
	long n;
	int c;

	opterr = 0;
	optind = 0;	/* glibc: start afresh, for a second call */
	while ((c = getopt_long(argc, argv, ":o:k:vh", long_options, NULL)) != -1) {
		switch (c) {
		case 'o': o->output = optarg; break;
		case OPT_INIT: o->init = optarg; break;
		case OPT_BUSYBOX: o->busybox = optarg; break;
		case OPT_E2FSCK: o->e2fsck = optarg; o->e2fsck_given = true; break;
		case OPT_NO_E2FSCK: o->e2fsck_off = true; break;
		case 'k': o->kver = optarg; break;
		case OPT_KMODDIR: o->kmoddir = optarg; break;
		case OPT_MODULE_LIST:
			o->module_list = optarg;
			o->module_list_given = true;
			break;
		case OPT_ADD_MODULE:
		case OPT_INCLUDE:
			if (c == OPT_ADD_MODULE ? push(&o->add, &o->nadd, optarg) :
			    push(&o->include, &o->ninclude, optarg)) {
				msg_error("unable to parse the options: out of memory");
				return -ENOMEM;
			}
			break;
		case OPT_COMPRESS:
			if (!strcmp(optarg, "none"))
				o->image.compress = IMAGE_NONE;
			else if (!strcmp(optarg, "gzip"))
				o->image.compress = IMAGE_GZIP;
			else if (!strcmp(optarg, "zstd"))
				o->image.compress = IMAGE_ZSTD;
			else
				return usage_error("unknown --compress", optarg);
			break;
		case OPT_COMPRESS_LEVEL: level = optarg; break;
		case OPT_STORAGE: o->storage = OPTIONS_STORAGE_ON; break;
		case OPT_NO_STORAGE: o->storage = OPTIONS_STORAGE_OFF; break;
		case OPT_DISK_TOOLS: o->disk_tools = OPTIONS_STORAGE_ON; break;
		case OPT_NO_DISK_TOOLS: o->disk_tools = OPTIONS_STORAGE_OFF; break;
		case OPT_CLEVIS: o->clevis = OPTIONS_STORAGE_ON; break;
		case OPT_NO_CLEVIS: o->clevis = OPTIONS_STORAGE_OFF; break;
		case OPT_HOSTONLY: o->hostonly = true; break;
		case OPT_CRYPTTAB: o->crypttab = optarg; break;
		case OPT_RESCUE_PW_HASH: o->rescue_pw_hash = optarg; break;
		case OPT_RESCUE_PW_FILE: o->rescue_pw_file = optarg; break;
		case OPT_LOCK_SHELL: o->lock_shell = true; break;
		case OPT_TPM2: o->tpm2 = OPTIONS_STORAGE_ON; break;
		case OPT_NO_TPM2: o->tpm2 = OPTIONS_STORAGE_OFF; break;
		case OPT_SSH_KEYS: o->ssh_keys = optarg; break;
		case OPT_SSH_HOST_KEY: o->ssh_host_key = optarg; break;
		case OPT_FIRMWARE_DIR: o->firmware_dir = optarg; break;
		case OPT_MICROCODE_DIR:
			o->microcode_dir = optarg;
			o->microcode = OPTIONS_STORAGE_ON;
			break;
		case OPT_NO_MICROCODE: o->microcode = OPTIONS_STORAGE_OFF; break;
		case OPT_KEYMAP: o->keymap = optarg; break;
		case OPT_RESUME_CONF: o->resume_conf = optarg; break;
		case 'v': msg_verbose_on = true; break;
		case 'h': usage(stdout, &defaults); return 1;
		case OPT_VERSION: printf("mkrescue %s\n", o->version); return 1;
		case ':': return bad_option(argv, true);
		default: return bad_option(argv, false);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument", argv[optind]);
	if (!o->output)
		return usage_error("no -o OUT given", NULL);
	if (level && o->image.compress == IMAGE_NONE)
		return usage_error("--compress-level with --compress none", NULL);
	if (level && parse_int(level, 1, o->image.compress == IMAGE_GZIP ? 9 : 19, &n))
		return usage_error("--compress-level out of range:", level);
	o->image.level = level ? (int)n :
			 o->image.compress == IMAGE_GZIP ? MKRESCUE_GZIP_LEVEL :
			 o->image.compress == IMAGE_ZSTD ? MKRESCUE_ZSTD_LEVEL : -1;
	if (!o->kver && !o->kmoddir && (o->nadd || o->module_list_given))
		return usage_error("--add-module and --module-list need -k or --kmoddir", NULL);
	if (o->hostonly && !o->kver && !o->kmoddir)
		return usage_error("--hostonly needs -k or --kmoddir", NULL);
	if (o->ssh_host_key && !o->ssh_keys)
		return usage_error("--ssh-host-key without --ssh-authorized-keys", NULL);
	if (o->rescue_pw_hash && o->rescue_pw_file)
		return usage_error("--rescue-password-hash and --rescue-password-file exclude each other", NULL);
	if (o->hostonly && o->module_list_given)
		return usage_error("--hostonly and --module-list exclude each other", NULL);
	return 0;
}

void options_free(struct options *o)
{
	free(o->add);
	free(o->include);
	o->add = o->include = NULL;
	o->nadd = o->ninclude = 0;
}
