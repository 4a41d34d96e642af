// SPDX-License-Identifier: GPL-2.0
/*
 * modprobe.c: rescue-init called as /sbin/modprobe, insmod or rmmod.  The
 * kernel runs /sbin/modprobe for request_module() (kernel/module/kmod.c:
 * "modprobe -q -- NAME"), before /init and during it, and the rescue
 * shell runs all three; busybox's cannot read the .ko.xz of Debian's
 * 6.12 and hand the kernel compressed bytes.  modprobe loads NAME
 * through modload.c as rescue-init itself does: aliases, dependencies,
 * softdeps, and finit_module() decompressing in the kernel; insmod loads
 * one file the same way, rmmod is delete_module(2).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/module.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "contract.h"
#include "rescue-init.h"

static const char modprobe_usage[] =
	"usage: modprobe [-q] [-v] [-b] [-s] [--] MODULE\n"
	"       modprobe [-q] [-v] [-b] [-s] -a [--] MODULE...\n"
	"MODULE is a module name or an alias of the running kernel's "
	"modules.alias;\nits options come from MODULE.PARAM= on the "
	"kernel command line (rescue-init(8)).\n";

static const char *tool_name(const char *argv0)
{
	const char *base = strrchr(argv0, '/');

	return base ? base + 1 : argv0;
}

/*
 * Someone at a terminal (the rescue shell) reads the lines there.
 * Otherwise /dev/kmsg, where rescue-init's own lines go; before /init
 * has mounted /dev on a stock kernel there is only the image's
 * /dev/console, and a kernel helper has no fd 2.
 */
static void modprobe_log_open(void)
{
	int fd;

	if (isatty(2)) {
		log_to_fd(2, "modprobe: ", false);
		return;
	}
	fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC | O_NOCTTY);

	if (fd >= 0) {
		log_to_fd(fd, "modprobe: ", true);
		return;
	}
	fd = open("/dev/console", O_WRONLY | O_CLOEXEC | O_NOCTTY);
	log_to_fd(fd >= 0 ? fd : 2, "modprobe: ", false);
}

static const char insmod_usage[] =
	"usage: insmod FILE [PARAM=VALUE]...\n"
	"FILE may be compressed (.ko.xz, .ko.zst, .ko.gz) as the kernel's "
	"own modules are.\n";

static const char rmmod_usage[] = "usage: rmmod [-f] MODULE...\n";

/* insmod FILE [PARAM=VALUE]...: the kernel reads (and decompresses) it. */
static int insmod_main(int argc, char *argv[])
{
	char opts[1024] = "";
	const char *ko;
	int fd, i, flags = 0;
	size_t n = 0;

	if (argc < 2 || argv[1][0] == '-') {
		fputs(insmod_usage, stderr);
		return 2;
	}
	for (i = 2; i < argc; i++) {
		n += (size_t)snprintf(opts + n, sizeof(opts) - n, "%s%s",
				      n ? " " : "", argv[i]);
		if (n >= sizeof(opts)) {
			fprintf(stderr, "insmod: the parameters of %s are "
				"longer than %zu bytes\n", argv[1],
				sizeof(opts) - 1);
			return 1;
		}
	}
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "insmod: unable to open %s: %s\n", argv[1],
			errtext(errno));
		return 1;
	}
	ko = strstr(argv[1], ".ko.");
#ifdef MODULE_INIT_COMPRESSED_FILE
	if (ko && ko[4])
		flags |= MODULE_INIT_COMPRESSED_FILE;
#else
	(void)ko;
#endif
	if (syscall(SYS_finit_module, fd, opts, flags)) {
		/* The kernel's ENOENT here is kmod's wording, not a file. */
		fprintf(stderr, "insmod: unable to load %s: %s\n", argv[1],
			errno == ENOENT ? "unknown symbol in the module, or "
			"unknown parameter (see dmesg); modprobe loads its "
			"dependencies first" : errno == EEXIST ?
			"it is loaded already" : secureboot_module_error(errno));
		close(fd);
		return 1;
	}
	close(fd);
	return 0;
}

/*
 * rmmod [-f] MODULE...: a file name or a path names its module, and the
 * kernel's names have '_' where file names may have '-', as kmod's
 * rmmod takes them.
 */
static int rmmod_main(int argc, char *argv[])
{
	unsigned flags = O_NONBLOCK;
	char name[64], *p;
	int i = 1, status = 0;

	if (i < argc && !strcmp(argv[i], "-f")) {
		flags |= O_TRUNC;
		i++;
	}
	if (i >= argc || argv[i][0] == '-') {
		fputs(rmmod_usage, stderr);
		return 2;
	}
	for (; i < argc; i++) {
		snprintf(name, sizeof(name), "%s", tool_name(argv[i]));
		if ((p = strstr(name, ".ko")))
			*p = '\0';
		for (p = name; *p; p++)
			if (*p == '-')
				*p = '_';
		if (syscall(SYS_delete_module, name, flags)) {
			fprintf(stderr, "rmmod: unable to remove %s: %s\n",
				name, errno == EWOULDBLOCK ? "it is in use" :
				errno == ENOENT ? "it is not loaded" :
				errtext(errno));
			status = 1;
		}
	}
	return status;
}

int modprobe_main(int argc, char *argv[])
{
	static struct cmdline cmd;
	static char buf[CMDLINE_SIZE];
	bool quiet = false, all = false;
	int i, err, status = 0;

	if (!strcmp(tool_name(argv[0]), RESCUE_INSMOD))
		return insmod_main(argc, argv);
	if (!strcmp(tool_name(argv[0]), RESCUE_RMMOD))
		return rmmod_main(argc, argv);
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *f = argv[i] + 1;

		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		/* -b (blacklist) and -s (syslog): this one has neither. */
		for (; *f && strchr("qvbsa", *f); f++) {
			if (*f == 'q')
				quiet = true;
			else if (*f == 'a')
				all = true;
		}
		if (*f || !argv[i][1]) {
			fprintf(stderr, "modprobe: unsupported option %s "
				"(rescue-init's modprobe only loads)\n%s",
				argv[i], modprobe_usage);
			return 2;
		}
	}
	if (i >= argc) {
		fputs(modprobe_usage, stderr);
		return 2;
	}
	if (!all && i + 1 < argc) {
		fprintf(stderr, "modprobe: module parameters are not supported: "
			"give them as MODULE.PARAM= on the kernel command line\n"
			"%s", modprobe_usage);
		return 2;
	}
	modprobe_log_open();
	/* No /proc yet before /init: no options then, as for the kernel. */
	if (cmdline_read_all(CMDLINE_CONF_DIR, "/proc/cmdline", buf,
			     sizeof(buf)))
		buf[0] = '\0';
	cmdline_parse(buf, &cmd);
	err = modload_init(&cmd);
	if (err) {
		log_error("unable to load %s: no module indexes for the "
			  "running kernel: %s", argv[i], errtext(-err));
		return 1;
	}
	for (; i < argc; i++) {
		err = modload_request(argv[i]);
		if (err == -ENOENT) {
			if (!quiet)
				log_error("unable to load %s: the running "
					  "kernel has no module or alias of "
					  "that name", argv[i]);
			status = 1;
		} else if (err) {
			status = 1;	/* load_one() said which and why */
		}
	}
	return status;
}
