// SPDX-License-Identifier: GPL-2.0
/* elf.c: tell a statically linked ELF executable from others. */
#include <elf.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mkrescue.h"

/*
 * The image holds no shared libraries and no dynamic loader, so every
 * program in it must be static: an ELF executable (ET_EXEC, or ET_DYN for
 * static-pie) without a PT_INTERP program header.  Only the headers are
 * read; <elf.h> describes them, no library is needed for that.
 */

#if __BYTE_ORDER == __LITTLE_ENDIAN
#define ELF_HOST_DATA ELFDATA2LSB
#else
#define ELF_HOST_DATA ELFDATA2MSB
#endif

struct elf_info {
	uint16_t type;
	uint64_t phoff;
	uint16_t phentsize, phnum;
	bool is64;
};

static int elf_read_header(int fd, struct elf_info *info)
{
	unsigned char ident[EI_NIDENT];
	Elf64_Ehdr e64;
	Elf32_Ehdr e32;

	if (pread(fd, ident, sizeof(ident), 0) != (ssize_t)sizeof(ident) ||
	    memcmp(ident, ELFMAG, SELFMAG) || ident[EI_DATA] != ELF_HOST_DATA)
		return -ENOEXEC;
	if (ident[EI_CLASS] == ELFCLASS64) {
		if (pread(fd, &e64, sizeof(e64), 0) != (ssize_t)sizeof(e64))
			return -ENOEXEC;
		*info = (struct elf_info){ e64.e_type, e64.e_phoff,
					   e64.e_phentsize, e64.e_phnum, true };
		if (info->phentsize != sizeof(Elf64_Phdr))
			return -ENOEXEC;
	} else if (ident[EI_CLASS] == ELFCLASS32) {
		if (pread(fd, &e32, sizeof(e32), 0) != (ssize_t)sizeof(e32))
			return -ENOEXEC;
		*info = (struct elf_info){ e32.e_type, e32.e_phoff,
					   e32.e_phentsize, e32.e_phnum, false };
		if (info->phentsize != sizeof(Elf32_Phdr))
			return -ENOEXEC;
	} else {
		return -ENOEXEC;
	}
	if (info->type != ET_EXEC && info->type != ET_DYN)
		return -ENOEXEC;
	return 0;
}

/* 1 when a PT_INTERP header is there, 0 when not, -ENOEXEC if unreadable. */
static int elf_has_interp(int fd, const struct elf_info *info)
{
	uint16_t i;

	for (i = 0; i < info->phnum; i++) {
		off_t at = (off_t)(info->phoff + (uint64_t)i * info->phentsize);
		uint32_t type;

		if (info->is64) {
			Elf64_Phdr ph;

			if (pread(fd, &ph, sizeof(ph), at) != (ssize_t)sizeof(ph))
				return -ENOEXEC;
			type = ph.p_type;
		} else {
			Elf32_Phdr ph;

			if (pread(fd, &ph, sizeof(ph), at) != (ssize_t)sizeof(ph))
				return -ENOEXEC;
			type = ph.p_type;
		}
		if (type == PT_INTERP)
			return 1;
	}
	return 0;
}

int elf_check_static(const char *path, const char *role, uint64_t *size)
{
	struct elf_info info;
	struct stat st;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		msg_error("unable to use %s as %s: %s", path, role, strerror(-err));
		return err;
	}
	if (fstat(fd, &st) < 0) {
		err = -errno;
		msg_error("unable to use %s as %s: %s", path, role, strerror(-err));
		goto out;
	}
	if (!S_ISREG(st.st_mode) || !(st.st_mode & 0111)) {
		err = -EACCES;
		msg_error("unable to use %s as %s: not an executable file", path, role);
		goto out;
	}
	err = elf_read_header(fd, &info);
	if (!err)
		err = elf_has_interp(fd, &info);
	if (err < 0) {
		msg_error("unable to use %s as %s: not an ELF executable", path, role);
		goto out;
	}
	if (err > 0) {
		err = -ENOEXEC;
		msg_error("unable to use %s as %s: not a static executable (it needs a dynamic loader)",
			  path, role);
		goto out;
	}
	*size = (uint64_t)st.st_size;
out:
	close(fd);
	return err;
}
