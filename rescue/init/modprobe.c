// SPDX-License-Identifier: GPL-2.0
/*
 * modprobe.c: rescue-init called as /sbin/modprobe.  The kernel runs that
 * path for request_module() (kernel/module/kmod.c: "modprobe -q --
 * NAME"), before /init and during it; busybox's modprobe cannot read the
 * .ko.xz of Debian's 6.12 and hands the kernel compressed bytes.  This
 * loads NAME through modload.c as rescue-init itself does: aliases,
 * dependencies, softdeps, and finit_module() decompressing in the kernel.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rescue-init.h"

static const char modprobe_usage[] =
	"usage: modprobe [-q] [-v] [-b] [-s] [--] MODULE\n"
	"       modprobe [-q] [-v] [-b] [-s] -a [--] MODULE...\n"
	"MODULE is a module name or an alias of the running kernel's "
	"modules.alias;\nits options come from MODULE.PARAM= on the "
	"kernel command line (rescue-init(8)).\n";

bool modprobe_called(const char *argv0)
{
	const char *base = strrchr(argv0, '/');

	return !strcmp(base ? base + 1 : argv0, "modprobe");
}

/*
 * /dev/kmsg, where rescue-init's own lines go; before /init has mounted
 * /dev on a stock kernel there is only the image's /dev/console, and a
 * kernel helper has no fd 2.
 */
static void modprobe_log_open(void)
{
	int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC | O_NOCTTY);

	if (fd >= 0) {
		log_to_fd(fd, "modprobe: ", true);
		return;
	}
	fd = open("/dev/console", O_WRONLY | O_CLOEXEC | O_NOCTTY);
	log_to_fd(fd >= 0 ? fd : 2, "modprobe: ", false);
}

int modprobe_main(int argc, char *argv[])
{
	static struct cmdline cmd;
	static char buf[CMDLINE_SIZE];
	bool quiet = false, all = false;
	int i, err, status = 0;

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
