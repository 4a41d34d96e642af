// SPDX-License-Identifier: GPL-2.0
/*
 * lukstpm2.c: a LUKS2 container enrolled with systemd-cryptenroll
 * --tpm2-device=auto is opened without a prompt when the TPM's PCRs
 * match the policy sealed into its systemd-tpm2 token.  The unsealing
 * is not done here: the image's cryptsetup does it, through systemd's
 * token plugin (libcryptsetup-token-systemd-tpm2.so, shipped by
 * mkrescue --tpm2 with the TSS2 libraries it dlopen()s).  What is
 * here: whether to try (a token in the header, a TPM 2.0 in
 * /sys/class/tpm), the one line when it did not work, and what an
 * unlock that nobody typed for leaves behind:
 *
 *  - the shell lock (shelllock.c): the console is not a root shell on
 *    a disk nobody unlocked;
 *  - PCR 15 (rd.luks.tpm2-measure-pcr=N, "no" for none) extended with
 *    a fixed event, so that whatever runs after this initramfs (the
 *    root's init, a shell) can no longer unseal the same key: the
 *    policy was sealed against PCR 15 at its initial value (zeroes),
 *    or against PCRs that do not include it, in which case this
 *    still marks the boot as past its unlock.  The command is
 *    TPM2_PCR_Event, a few bytes written to /dev/tpmrm0: the TPM hashes
 *    the event into every active bank itself (docs/decisions.md, TPM2).
 *
 * The TPM is built into Debian's kernels (tpm_tis, tpm_crb): probed
 * before /init runs, so it is looked for, not waited for.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lukstpm2.h"

#define TPM2_TOKEN		"\"systemd-tpm2\""
#define LUKS2_HDR_MAX		(4u << 20)	/* cryptsetup's limit */
#define LUKS2_JSON_AT		4096
#define TPM_ST_SESSIONS		0x8002
#define TPM_CC_PCR_EVENT	0x0000013c
#define TPM_RS_PW		0x40000009
#define TPM2_PCR_DEFAULT	15
/* the event: the same bytes on every boot, a known value to predict */
#define TPM2_EVENT		"devtmpfs-rescue: TPM2 unlock done"

static int measure_pcr = TPM2_PCR_DEFAULT;	/* -1: none */
static bool measured;

void lukstpm2_setup(const struct cmdline *c)
{
	const char *v = cmdline_get(c, "rd.luks.tpm2-measure-pcr");
	char *end;
	long n;

	measure_pcr = TPM2_PCR_DEFAULT;
	if (!v)
		return;
	if (!strcmp(v, "no")) {
		measure_pcr = -1;
		return;
	}
	n = strtol(v, &end, 10);
	if (*v && !*end && n >= 0 && n <= 23)
		measure_pcr = (int)n;
	else
		log_warn("luks: rd.luks.tpm2-measure-pcr=%s ignored: not a "
			 "PCR number (0-23) or no", v);
}

/* The first TPM 2.0 (tpmN with a tpmrmN) as /dev/tpmrmN, or -ENODEV. */
static int tpm2_device(char *dev, size_t size)
{
	struct dirent *e;
	char p[80];
	DIR *d;
	int err = -ENODEV;

	d = opendir("/sys/class/tpm");
	if (!d)
		return -ENODEV;
	while (err && (e = readdir(d))) {
		if (strncmp(e->d_name, "tpm", 3) || strlen(e->d_name) > 8)
			continue;
		snprintf(p, sizeof(p), "/sys/class/tpmrm/tpmrm%s",
			 e->d_name + 3);
		if (access(p, F_OK) == 0) {
			snprintf(dev, size, "/dev/tpmrm%s", e->d_name + 3);
			err = 0;
		}
	}
	closedir(d);
	return err;
}

static uint64_t be64(const unsigned char *p)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/* Whether NODE's LUKS2 JSON area names a systemd-tpm2 token. */
static bool has_token(const char *node)
{
	unsigned char h[16];
	uint64_t size;
	char *json;
	ssize_t n;
	bool found = false;
	int fd;

	fd = open(node, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (pread(fd, h, sizeof(h), 0) != sizeof(h) ||
	    memcmp(h, "LUKS\xba\xbe\0\2", 8))
		goto out;
	size = be64(h + 8);
	if (size <= LUKS2_JSON_AT || size > LUKS2_HDR_MAX)
		goto out;
	json = malloc(size - LUKS2_JSON_AT + 1);
	if (!json)
		goto out;
	n = pread(fd, json, size - LUKS2_JSON_AT, LUKS2_JSON_AT);
	if (n > 0) {
		json[n] = '\0';
		found = strstr(json, TPM2_TOKEN) != NULL;
	}
	free(json);
out:
	close(fd);
	return found;
}

bool lukstpm2_wanted(const char *node)
{
	char dev[32];

	if (!has_token(node))
		return false;
	if (tpm2_device(dev, sizeof(dev)) == 0)
		return true;
	log_warn("luks: %s: a TPM2 token but no TPM 2.0 in /sys/class/tpm: "
		 "asking for the passphrase", node);
	return false;
}

static void put16(unsigned char **p, unsigned v)
{
	*(*p)++ = (unsigned char)(v >> 8);
	*(*p)++ = (unsigned char)v;
}

static void put32(unsigned char **p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p, v & 0xffff);
}

/*
 * TPM2_PCR_Event(pcr, TPM2_EVENT) with the empty password session
 * (PCRs 0-15 have no auth value); 0, or the TPM's response code, or
 * -errno.
 */
static int pcr_event(const char *dev, int pcr)
{
	unsigned char cmd[128], rsp[64], *p = cmd;
	size_t len = sizeof(TPM2_EVENT) - 1;
	ssize_t n;
	int fd, err = 0;

	put16(&p, TPM_ST_SESSIONS);
	put32(&p, 0);				/* the size, below */
	put32(&p, TPM_CC_PCR_EVENT);
	put32(&p, (uint32_t)pcr);
	put32(&p, 9);				/* the authorization area */
	put32(&p, TPM_RS_PW);
	put16(&p, 0);				/* nonce */
	*p++ = 0;				/* session attributes */
	put16(&p, 0);				/* password: empty */
	put16(&p, (unsigned)len);
	memcpy(p, TPM2_EVENT, len);
	p += len;
	n = p - cmd;
	p = cmd + 2;
	put32(&p, (uint32_t)n);
	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, cmd, (size_t)n) != n)
		err = -EIO;
	else if ((n = read(fd, rsp, sizeof(rsp))) < 10)
		err = n < 0 ? -errno : -EIO;
	else
		err = (int)((uint32_t)rsp[6] << 24 | rsp[7] << 16 |
			    rsp[8] << 8 | rsp[9]);
	close(fd);
	return err;
}

/* Once per boot: a second container opened by TPM2 measures nothing new. */
static void measure(void)
{
	char dev[32];
	int r;

	if (measured || measure_pcr < 0)
		return;
	measured = true;
	r = tpm2_device(dev, sizeof(dev));
	if (!r)
		r = pcr_event(dev, measure_pcr);
	if (r < 0)
		log_error("luks: PCR %d not extended after the TPM2 unlock: %s",
			  measure_pcr, errtext(-r));
	else if (r)
		log_error("luks: PCR %d not extended after the TPM2 unlock: "
			  "the TPM answered 0x%x", measure_pcr, r);
	else
		log_info("luks: PCR %d extended: the TPM2 key no longer "
			 "unseals in this boot", measure_pcr);
}

bool lukstpm2_opened(const char *node, int r)
{
	if (r) {
		log_warn("luks: %s: TPM2 token did not unseal (PCRs "
			 "changed?): asking for the passphrase", node);
		return false;
	}
	log_info("luks: %s opened by its TPM2 token, no passphrase", node);
	shell_lock_engage("TPM2");
	measure();
	return true;
}
