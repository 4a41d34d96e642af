// SPDX-License-Identifier: GPL-2.0
/*
 * btrfs-subvol.c DIR NAME: create the btrfs subvolume DIR/NAME, for the
 * tests' helper VM (tests/stacked.sh), whose image has no btrfs-progs:
 * Debian 12's mkfs.btrfs (6.2) has no --subvol.  Built static.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/btrfs.h>

int main(int argc, char *argv[])
{
	struct btrfs_ioctl_vol_args args;
	int fd;

	if (argc != 3 || strlen(argv[2]) >= sizeof(args.name)) {
		fprintf(stderr, "usage: btrfs-subvol DIR NAME\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	memset(&args, 0, sizeof(args));
	snprintf(args.name, sizeof(args.name), "%s", argv[2]);
	if (ioctl(fd, BTRFS_IOC_SUBVOL_CREATE, &args)) {
		fprintf(stderr, "%s/%s: ", argv[1], argv[2]);
		perror("BTRFS_IOC_SUBVOL_CREATE");
		return 1;
	}
	close(fd);
	return 0;
}
