/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lukstpm2.h: a LUKS2 container's systemd-tpm2 token (systemd-cryptenroll
 * --tpm2-device=), opened by the image's cryptsetup through systemd's
 * token plugin before any passphrase is asked (lukstpm2.c).
 */
#ifndef RESCUE_LUKSTPM2_H
#define RESCUE_LUKSTPM2_H

#include "rescue-init.h"

/* rd.luks.tpm2-measure-pcr=: the PCR extended after an unlock. */
void lukstpm2_setup(const struct cmdline *c);
/*
 * Whether NODE's LUKS2 header has a systemd-tpm2 token and a TPM 2.0
 * is there to unseal it; a token without a TPM is said in one line.
 */
bool lukstpm2_wanted(const char *node);
/*
 * After cryptsetup --token-only on NODE exited with R: true when the
 * token opened it (the shell lock engaged, the PCR extended), else the
 * one line that says the passphrase is asked instead.
 */
bool lukstpm2_opened(const char *node, int r);

#endif
