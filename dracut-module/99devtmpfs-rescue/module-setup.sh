#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dracut module devtmpfs-rescue: make rescue-init the image's /init, so the
# image boots with no udevd and no coldplug.  A thin adapter: the boot
# logic is rescue-init's; this only installs what rescue/ built.
#
# 99devtmpfs-rescue sorts after 99base (and 00systemd), so it runs after
# them and replaces the /init they installed.

# make install replaces these with the installed paths.
rescue_init_installed=@RESCUE_INIT@
module_list_installed=@MODULE_LIST@

rescue_init_path() {
    echo "${DEVTMPFS_RESCUE_INIT:-$rescue_init_installed}"
}

module_list_path() {
    echo "${DEVTMPFS_RESCUE_MODULE_LIST:-$module_list_installed}"
}

# called by dracut: only used when asked for (--add devtmpfs-rescue)
check() {
    return 255
}

# called by dracut: base brings the /bin/sh and tools of the rescue shell
depends() {
    echo base
    return 0
}

# called by dracut: the block, bus and filesystem drivers of
# rescue/mkrescue/modules.list; instmods applies dracut's hostonly rules, so a
# hostonly image only gets those the host uses.
installkernel() {
    local list mods
    list=$(module_list_path)
    if [[ ! -r $list ]]; then
        dfatal "devtmpfs-rescue: unable to read the module list $list: set DEVTMPFS_RESCUE_MODULE_LIST or run make install"
        return 1
    fi
    mods=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$list")
    # shellcheck disable=SC2086
    instmods $mods
}

# called by dracut
install() {
    local rescue_init previous
    rescue_init=$(rescue_init_path)
    if [[ ! -x $rescue_init ]]; then
        dfatal "devtmpfs-rescue: unable to find rescue-init at $rescue_init: set DEVTMPFS_RESCUE_INIT or run make install"
        return 1
    fi

    # Keep dracut's own /init (its init.sh, or a link to systemd) beside
    # ours, so that an administrator can still boot it by hand.
    if [[ -L $initdir/init ]]; then
        previous="a link to $(readlink "$initdir/init")"
    elif [[ -e $initdir/init ]]; then
        previous="dracut's init.sh"
    fi
    if [[ $previous ]]; then
        mv -f "$initdir/init" "$initdir/init.dracut"
    fi
    inst_simple "$rescue_init" /init || {
        dfatal "devtmpfs-rescue: unable to install $rescue_init as /init"
        return 1
    }
    chmod 0755 "$initdir/init"

    # The rescue shell's commands are modes of rescue-init, and its
    # shell is the image's /bin/sh, with the usual tools beside it.
    ln_r /init /usr/bin/rescue-mount
    ln_r /init /usr/bin/rescue-ls
    inst_multiple -o sh ls cat mount umount dmesg blkid lsblk fdisk sfdisk \
        e2fsck fsck less vi grep sed reboot poweroff

    dinfo "devtmpfs-rescue: /init is rescue-init from $rescue_init${previous:+; the previous /init ($previous) is kept as /init.dracut}"
    if dracut_module_included systemd; then
        dinfo "devtmpfs-rescue: systemd is in the image but does not run in the initramfs: no systemd-udevd, no udevadm trigger, no initrd units; rescue-init loads drivers by modalias and execs the root's init itself"
    else
        dinfo "devtmpfs-rescue: dracut's hooks (cmdline, pre-udev, initqueue, pre-mount, pre-pivot) do not run: rescue-init does not source them"
    fi
}
