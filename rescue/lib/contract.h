/* SPDX-License-Identifier: GPL-2.0 */
/*
 * contract.h: the names and paths rescue-init answers to, which mkrescue
 * and the dracut module give it in the image, and the files it leaves in
 * /run for the rescue shell and SSH logins.  One fact each: rescue-init
 * acts by the name it is called with (tools.c, modules/modprobe.c,
 * image/toolkit.c), mkrescue makes the links (programs.c, modules.c,
 * image.c, layout.c), and make install gives the dracut module the
 * shell tools' names (RESCUE_TOOLS_SH below, @RESCUE_TOOLS@).
 */
#ifndef RESCUE_CONTRACT_H
#define RESCUE_CONTRACT_H

/*
 * The rescue shell's commands: links to rescue-init, in /bin (mkrescue)
 * or /usr/bin (the dracut module).  The Makefile reads the names of the
 * RESCUE_TOOL_* lines for the dracut module: one name a line, quoted.
 */
#define RESCUE_TOOL_LS		"rescue-ls"
#define RESCUE_TOOL_MOUNT	"rescue-mount"
#define RESCUE_TOOL_CONTINUE	"rescue-continue"
#define RESCUE_TOOL_UNLOCK	"rescue-unlock"
#define RESCUE_TOOL_RW		"rescue-rw"

/*
 * The module tools rescue-init also is, in /sbin: the kernel's
 * request_module() runs /sbin/modprobe (CONFIG_MODPROBE_PATH).
 */
#define RESCUE_MODTOOL_DIR	"sbin"
#define RESCUE_MODPROBE		"modprobe"
#define RESCUE_INSMOD		"insmod"
#define RESCUE_RMMOD		"rmmod"

/* /bin/sh is rescue-init until the toolkit is unpacked (rescue/lib/toolkit.h). */
#define RESCUE_SH		"sh"
#define RESCUE_SH_PATH		"bin/" RESCUE_SH	/* in the image */

/*
 * The console keymap that mkrescue --keymap and the dracut module
 * compile (loadkeys -b) and rescue-init loads (keymap.c), and its name.
 */
#define RESCUE_KEYMAP_PATH	"/etc/rescue-keymap.bmap"
#define RESCUE_KEYMAP_NAME_PATH	"/etc/rescue-keymap.name"

/* What rescue-init leaves for the rescue shell, rescue-* and SSH logins. */
#define RESCUE_RUN_DIR		"/run/rescue"
#define RESCUE_LUKS_WAITING	RESCUE_RUN_DIR "/luks-waiting"
#define RESCUE_LUKS_PASS_FIFO	RESCUE_RUN_DIR "/luks-passphrase"
#define RESCUE_LUKS_STATUS	RESCUE_RUN_DIR "/luks-status"
/* The name of the keymap PID 1 loaded (rescue/init/keymap.c). */
#define RESCUE_KEYMAP_LOADED	RESCUE_RUN_DIR "/keymap-loaded"
#define RESCUE_SHELL_PID_FILE	RESCUE_RUN_DIR "/shell.pid"
#define RESCUE_SSH_STARTED	RESCUE_RUN_DIR "/sshd-started"
#define RESCUE_DROPBEAR_PID	RESCUE_RUN_DIR "/dropbear.pid"
/* Strict read-only mode is on (readonly.c; rescue-mount reads it). */
#define RESCUE_STRICT_FLAG	"/run/rescue-ro-strict"
/* One empty file per device rescue-mount --rw or rescue-rw made writable. */
#define RESCUE_WRITABLE_DIR	"/run/rescue-ro-writable"

#endif
