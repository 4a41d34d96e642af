// SPDX-License-Identifier: GPL-2.0
/* elfdeps.c: what a dynamically linked ELF file asks of the loader. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mkrescue.h"

/*
 * Read with elfutils' libelf, from the program headers as ld.so reads
 * them (section headers may be stripped): PT_INTERP, and PT_DYNAMIC's
 * DT_NEEDED, DT_RUNPATH and DT_RPATH, whose strings are in DT_STRTAB, an
 * address that a PT_LOAD segment maps to the file.  The file is outside
 * input: every offset and size is checked against the file
 * (tests/fuzz/fuzz_elfdeps.c).
 */

static int elfdeps_lib_init(void)
{
	static int ok = -1;

	if (ok < 0)
		ok = elf_version(EV_CURRENT) != EV_NONE;
	return ok ? 0 : -ENOSYS;
}

static int elfdeps_strdup(char **out, const char *s)
{
	*out = strdup(s);
	return *out ? 0 : -ENOMEM;
}

/* The file offset of LEN bytes at address VADDR, or -1. */
static int64_t elfdeps_offset(Elf *elf, size_t phnum, uint64_t vaddr,
			      uint64_t len)
{
	size_t i;

	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr < ph.p_vaddr || vaddr - ph.p_vaddr > ph.p_filesz ||
		    len > ph.p_filesz - (vaddr - ph.p_vaddr))
			continue;
		if (ph.p_offset + (vaddr - ph.p_vaddr) > INT64_MAX)
			return -1;
		return (int64_t)(ph.p_offset + (vaddr - ph.p_vaddr));
	}
	return -1;
}

/* A NUL-terminated string at OFF of TAB, or NULL. */
static const char *elfdeps_str(const Elf_Data *tab, uint64_t off)
{
	const char *s = tab->d_buf;

	if (off >= tab->d_size || !memchr(s + off, '\0', tab->d_size - off))
		return NULL;
	return s + off;
}

static int elfdeps_interp(Elf *elf, const GElf_Phdr *ph, struct elfdeps *d)
{
	size_t size;
	const char *raw = elf_rawfile(elf, &size);

	if (!raw || ph->p_offset > size || ph->p_filesz > size - ph->p_offset ||
	    !ph->p_filesz || !memchr(raw + ph->p_offset, '\0', ph->p_filesz) ||
	    !raw[ph->p_offset] || d->interp)
		return -ENOEXEC;
	return elfdeps_strdup(&d->interp, raw + ph->p_offset);
}

static int elfdeps_push(struct elfdeps *d, const char *name)
{
	if (!*name)
		return -ENOEXEC;
	return strv_push(&d->needed, &d->nneeded, name, strlen(name));
}

static int elfdeps_dynamic(Elf *elf, size_t phnum, const GElf_Phdr *ph,
			   struct elfdeps *d)
{
	size_t i, count, entsize = gelf_fsize(elf, ELF_T_DYN, 1, EV_CURRENT);
	uint64_t strtab = 0, strsz = 0;
	bool has_strtab = false;
	Elf_Data *dyn, *tab;
	int64_t off;
	int err = 0;

	if (!entsize)
		return -ENOEXEC;
	dyn = elf_getdata_rawchunk(elf, (int64_t)ph->p_offset, ph->p_filesz,
				   ELF_T_DYN);
	if (!dyn)
		return -ENOEXEC;
	count = dyn->d_size / entsize;
	for (i = 0; i < count; i++) {
		GElf_Dyn e;

		if (!gelf_getdyn(dyn, (int)i, &e) || e.d_tag == DT_NULL)
			break;
		if (e.d_tag == DT_STRTAB) {
			strtab = e.d_un.d_ptr;
			has_strtab = true;
		} else if (e.d_tag == DT_STRSZ) {
			strsz = e.d_un.d_val;
		}
	}
	if (!has_strtab || !strsz)
		return count ? -ENOEXEC : 0;
	off = elfdeps_offset(elf, phnum, strtab, strsz);
	tab = off < 0 ? NULL : elf_getdata_rawchunk(elf, off, strsz, ELF_T_BYTE);
	if (!tab)
		return -ENOEXEC;
	for (i = 0; !err && i < count; i++) {
		const char *s;
		GElf_Dyn e;

		if (!gelf_getdyn(dyn, (int)i, &e) || e.d_tag == DT_NULL)
			break;
		if (e.d_tag != DT_NEEDED && e.d_tag != DT_RUNPATH &&
		    e.d_tag != DT_RPATH)
			continue;
		s = elfdeps_str(tab, e.d_un.d_val);
		if (!s)
			return -ENOEXEC;
		if (e.d_tag == DT_NEEDED)
			err = elfdeps_push(d, s);
		else if (e.d_tag == DT_RUNPATH && !d->runpath)
			err = elfdeps_strdup(&d->runpath, s);
		else if (e.d_tag == DT_RPATH && !d->rpath)
			err = elfdeps_strdup(&d->rpath, s);
	}
	return err;
}

static int elfdeps_read_elf(Elf *elf, struct elfdeps *d)
{
	bool seen_dynamic = false;
	GElf_Ehdr eh;
	size_t i, phnum;
	int err = 0;

	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
	    elf_getphdrnum(elf, &phnum) < 0)
		return -ENOEXEC;
	d->class = eh.e_ident[EI_CLASS];
	d->machine = eh.e_machine;
	d->type = eh.e_type;
	for (i = 0; !err && i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph))
			return -ENOEXEC;
		if (ph.p_type == PT_INTERP) {
			err = elfdeps_interp(elf, &ph, d);
		} else if (ph.p_type == PT_DYNAMIC) {
			if (seen_dynamic)
				return -ENOEXEC;
			seen_dynamic = true;
			err = elfdeps_dynamic(elf, phnum, &ph, d);
		}
	}
	return err;
}

int elfdeps_read_mem(const void *image, size_t size, struct elfdeps *d)
{
	Elf *elf;
	int err;

	*d = (struct elfdeps){ 0 };
	err = elfdeps_lib_init();
	if (err)
		return err;
	elf = elf_memory((char *)image, size);
	if (!elf)
		return -ENOEXEC;
	err = elfdeps_read_elf(elf, d);
	elf_end(elf);
	if (err)
		elfdeps_free(d);
	return err;
}

int elfdeps_read(const char *path, struct elfdeps *d)
{
	Elf *elf;
	int fd, err;

	*d = (struct elfdeps){ 0 };
	err = elfdeps_lib_init();
	if (err)
		return err;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf) {
		close(fd);
		return -ENOEXEC;
	}
	err = elfdeps_read_elf(elf, d);
	elf_end(elf);
	close(fd);
	if (err)
		elfdeps_free(d);
	return err;
}

void elfdeps_free(struct elfdeps *d)
{
	strv_free(&d->needed, &d->nneeded);
	free(d->interp);
	free(d->runpath);
	free(d->rpath);
	*d = (struct elfdeps){ 0 };
}
