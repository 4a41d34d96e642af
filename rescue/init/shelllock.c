// SPDX-License-Identifier: GPL-2.0
/*
 * shelllock.c: whether this boot opened a disk without a person.
 *
 * A root that a TPM2 token or a tang server unlocked is open to
 * whoever sits at the console the moment a shell starts: rd.break, the
 * rescue entry, a crash restart.  The unlocker that opened it says so
 * here, once; every path that would hand out a shell asks.  The flag
 * lives in PID 1's memory and in /run (for a restarted PID 1, whose
 * memory is new but whose /run is the same tmpfs).
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rescue-init.h"

#define SHELL_LOCK_FLAG	"/run/rescue-unattended-unlock"

static char unlocked_by[64];

void shell_lock_engage(const char *how)
{
	int fd;

	if (!unlocked_by[0])
		snprintf(unlocked_by, sizeof(unlocked_by), "%s", how);
	fd = open(SHELL_LOCK_FLAG, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd >= 0) {
		if (write(fd, how, strlen(how)) < 0)
			log_warn("shell lock: %s: %m", SHELL_LOCK_FLAG);
		close(fd);
	}
}

/* The unlocker's name ("TPM2", "tang") when this boot used one, else NULL. */
const char *shell_lock_engaged(void)
{
	int fd;
	ssize_t n;

	if (unlocked_by[0])
		return unlocked_by;
	fd = open(SHELL_LOCK_FLAG, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	n = read(fd, unlocked_by, sizeof(unlocked_by) - 1);
	close(fd);
	if (n <= 0) {
		/* a flag we cannot read still says a disk was opened */
		snprintf(unlocked_by, sizeof(unlocked_by), "an unattended unlock");
	}
	return unlocked_by;
}
