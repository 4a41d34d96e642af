#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dracut module devtmpfs-rescue: make rescue-init the image's /init, so the
# image boots with no udevd and no coldplug.  A thin adapter: the boot
# logic is rescue-init's; this only installs what rescue/ built.
#
# 99devtmpfs-rescue sorts after 99base (and 00systemd), so it runs after
# them and replaces the /init they installed.

# dracut sets initdir, kernel, srcmods, hostonly, host_fs_types, udevdir
# and the systemd directories before it calls the functions below.
# shellcheck disable=SC2154

# make install replaces these with the installed paths.
rescue_init_installed=@RESCUE_INIT@
datadir_installed=@PKGDATADIR@
ssh_host_key_installed=@SSH_HOST_KEY@
# The rescue shell's commands, links to rescue-init: their names are
# rescue-init's (rescue/lib/contract.h, RESCUE_TOOL_*).
rescue_tools_installed="@RESCUE_TOOLS@"

rescue_init_path() {
    echo "${DEVTMPFS_RESCUE_INIT:-$rescue_init_installed}"
}

# The data files of rescue/share/, as make install puts them: the
# module list, the storage tools' configuration.
datadir_path() {
    echo "${DEVTMPFS_RESCUE_DATADIR:-$datadir_installed}"
}

module_list_path() {
    echo "${DEVTMPFS_RESCUE_MODULE_LIST:-$(datadir_path)/modules.list}"
}

# The rescue system's persistent SSH host key, mkrescue's (mkrescue(8)).
ssh_host_key_path() {
    echo "${DEVTMPFS_RESCUE_SSH_HOST_KEY:-$ssh_host_key_installed}"
}

# The dracut modules that reach a root through hooks, which do not run
# under rescue-init, and whether rescue-init does their work itself:
# those it stands in for are the dracut column of rescue-init's storage
# layers (rescue/share/storage-layers, installed in the data directory),
# with the blkid TYPEs their members have and the tools to install.
# The modules below it cannot replace: the build fails when one of them
# is in the image.  When a layer lands in rescue-init, its row in
# storage-layers names its dracut module: remove that module here.
# resume is not among them: rescue-init resumes itself (resume=, its
# storage/resume.c), and the module's hostonly resume= reaches it in
# /etc/cmdline.d/95resume.conf.  Nor is multipath: rescue-init makes
# the map of a root seen on several paths with the multipath and kpartx
# that dracut's multipath module installs (its storage/multipath.c).
devtmpfs_rescue_missing() {
    cat <<'EOF'
dmraid
crypt-gpg
crypt-loop
nfs
cifs
iscsi
nbd
fcoe
fcoe-uefi
nvmf
dmsquash-live
livenet
zfs
EOF
}

devtmpfs_rescue_layers_path() {
    echo "$(datadir_path)/storage-layers"
}

# The programs of a list of rescue/share/ (NAME), as mkrescue ships
# them: those the host has, with their libraries; a missing one is no
# error.
devtmpfs_rescue_install_listed() {
    local list tool
    list="$(datadir_path)/$1"
    [[ -r $list ]] || return 0
    while read -r tool _; do
        [[ -z $tool || $tool == \#* ]] && continue
        inst_multiple -o "$tool"
    done <"$list"
}

# The tools for a failing disk (rescue/share/disk-tools: ddrescue,
# smartctl, badblocks), as mkrescue --disk-tools ships them.
devtmpfs_rescue_disk_tools_install() {
    devtmpfs_rescue_install_listed disk-tools
}

# multipath-tools' plugins, when dracut's multipath module is in the
# image: Debian's installs them by inst_libdir_file "multipath/*", which
# looks in the multiarch directories and misses /lib/multipath, where
# multipath dlopen()s its path checkers ("Checker 'tur' not found").
devtmpfs_rescue_multipath_install() {
    local plugin
    dracut_module_included multipath || return 0
    for plugin in /lib/multipath/*.so; do
        [[ -e $plugin ]] && inst_library "$plugin"
    done
    return 0
}

# clevis (rescue/share/clevis-tools), as mkrescue --clevis ships it, when
# dracut's clevis module (Debian's clevis-dracut) is in the image: its
# own list serves its systemd askpass units, which do not run under
# rescue-init, and lacks clevis-luks-pass, which rescue-init runs.
devtmpfs_rescue_clevis_install() {
    dracut_module_included clevis || return 0
    devtmpfs_rescue_install_listed clevis-tools
}

# One line a module: module, state (rescue-init or missing), the blkid
# TYPEs of its members and its tools (comma-separated, "-" for none).
devtmpfs_rescue_layers() {
    local table
    table=$(devtmpfs_rescue_layers_path)
    if [[ -r $table ]]; then
        awk '$1 !~ /^#/ && NF >= 4 && $4 != "-" { print $4, "rescue-init", $2, $3 }' "$table"
    fi
    devtmpfs_rescue_missing | awk '{ print $1, "missing", "-", "-" }'
}

# The modules of the list in state $1, on one line.
devtmpfs_rescue_modules_in() {
    devtmpfs_rescue_layers |
        awk -v s="$1" '$2 == s { printf "%s%s", n++ ? " " : "", $1 }'
}

# No udev under rescue-init: the tools' configuration says so, mkrescue's
# files (the rows of rescue/share/tool-confs, mkrescue(8)).
devtmpfs_rescue_conf() { # tool
    local confs tool file dest
    confs="$(datadir_path)/tool-confs"
    if [[ ! -r $confs ]]; then
        dfatal "devtmpfs-rescue: unable to read $confs: set DEVTMPFS_RESCUE_DATADIR or run make install"
        return 1
    fi
    while read -r tool file dest _; do
        [[ $tool == "$1" ]] || continue
        inst_simple "$(datadir_path)/$file" "$dest" || {
            dfatal "devtmpfs-rescue: unable to install $(datadir_path)/$file: set DEVTMPFS_RESCUE_DATADIR or run make install"
            return 1
        }
    done < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$confs")
}

# Fails, in one line naming them, for the modules of the image whose
# work rescue-init does not do; installs the tools of the layers it does,
# and says which layers the host's root uses (hostonly) or it has.
devtmpfs_rescue_layers_install() {
    local mod state types tools tool refused="" supported="" seen="" dev
    if [[ ! -r $(devtmpfs_rescue_layers_path) ]]; then
        dfatal "devtmpfs-rescue: unable to read the storage layers $(devtmpfs_rescue_layers_path): set DEVTMPFS_RESCUE_DATADIR or run make install"
        return 1
    fi
    while read -r mod state types tools; do
        if [[ $state == missing ]]; then
            dracut_module_included "$mod" && refused+=" $mod"
            continue
        fi
        supported+=" $mod"
        [[ $tools == - ]] && continue
        for tool in ${tools//,/ }; do
            inst_multiple "$tool" || return 1
            devtmpfs_rescue_conf "$tool" || return 1
        done
    done < <(devtmpfs_rescue_layers)
    if [[ $refused ]]; then
        dfatal "devtmpfs-rescue: rescue-init cannot stand in for the dracut modules${refused} of this image (their hooks would not run): --omit \"${refused# }\", or leave out devtmpfs-rescue (the list: devtmpfs_rescue_missing in module-setup.sh)"
        return 1
    fi
    if [[ $hostonly ]]; then
        for dev in "${!host_fs_types[@]}"; do
            while read -r mod state types tools; do
                [[ $state != missing && ,$types, == *",${host_fs_types[$dev]},"* ]] &&
                    seen+=" $mod($dev)"
            done < <(devtmpfs_rescue_layers)
        done
        dinfo "devtmpfs-rescue: storage layers of the host's root:${seen:- none}; rescue-init stands in for:${supported:- none}"
    else
        dinfo "devtmpfs-rescue: storage layers rescue-init stands in for:${supported:- none} (not yet: $(devtmpfs_rescue_modules_in missing))"
    fi
}

# Rescue over SSH, with dracut-crypt-ssh's settings in dracut.conf:
# dropbear_acl= root's authorized_keys (public keys only), and
# dropbear_ed25519_key= the host key.  By default the rescue system's
# persistent key, the one mkrescue and update-rescue-images use
# (/etc/devtmpfs-rescue/ssh_host_ed25519_key), made here if there is
# none, its fingerprint said once: a key made per image would change at
# every rebuild, and users would learn to accept a changed host key at
# the moment they type a LUKS passphrase.  GENERATE still makes one for
# this image only.  A key in dropbear's format goes in as it is; one in
# OpenSSH's (dracut-crypt-ssh's default, as ssh-keygen writes it) is
# converted, since dropbear reads no other.  rescue-init starts dropbear
# once ip= has configured the network; udhcpc is busybox's.
devtmpfs_rescue_ssh_make_key() { # path: made once, atomically, 0600
    local path=$1 tmp out fp
    [[ -e $path || -L $path ]] && return 0
    if ! mkdir -p "${path%/*}" || ! tmp=$(mktemp -d "${path%/*}/.ssh_host_key.XXXXXX"); then
        dfatal "devtmpfs-rescue: unable to make the SSH host key $path: its directory is not writable (set dropbear_ed25519_key=)"
        return 1
    fi
    if ! out=$(umask 077 && dropbearkey -t ed25519 -f "$tmp/key" 2>&1); then
        rm -rf "$tmp"
        dfatal "devtmpfs-rescue: unable to make the SSH host key $path: dropbearkey: $out"
        return 1
    fi
    # Another build that made one meanwhile wins: one key either way.
    if ln "$tmp/key" "$path" 2>/dev/null; then
        fp=$(grep -o 'SHA256:[^ ]*' <<<"$out")
        dinfo "devtmpfs-rescue: SSH host key made: $path, ed25519 ${fp:-?} (the rescue system's identity from now on; an image holding it must stay private)"
    fi
    rm -rf "$tmp"
    [[ -e $path ]]
}

devtmpfs_rescue_ssh_install() {
    local key=${dropbear_ed25519_key:-} label out fp how
    local host_key=$initdir/etc/dropbear/dropbear_ed25519_host_key
    if [[ ! -r $dropbear_acl ]] || grep -q -e 'PRIVATE KEY' -e 'PuTTY-User-Key-File-' "$dropbear_acl"; then
        dfatal "devtmpfs-rescue: dropbear_acl=$dropbear_acl is not a readable file of public keys"
        return 1
    fi
    if ! inst_multiple /usr/sbin/dropbear || ! inst_simple /bin/busybox /bin/busybox; then
        dfatal "devtmpfs-rescue: dropbear_acl= needs /usr/sbin/dropbear (dropbear-bin) and /bin/busybox (busybox-static, for udhcpc)"
        return 1
    fi
    mkdir -p "$initdir/root/.ssh" && chmod 0700 "$initdir/root/.ssh"
    # (command install: install() here is this module's dracut hook)
    command install -m 0600 "$dropbear_acl" "$initdir/root/.ssh/authorized_keys"
    mkdir -p "$initdir/etc/dropbear"
    if [[ $key == GENERATE ]]; then
        out=$(dropbearkey -t ed25519 -f "$host_key" 2>&1) || {
            dfatal "devtmpfs-rescue: dropbearkey failed: $out"
            return 1
        }
        fp=$(grep -o 'SHA256:[^ ]*' <<<"$out")
        dinfo "devtmpfs-rescue: SSH host key made for this image: ed25519 ${fp:-?} (the image holds it: keep the image private)"
    else
        if [[ $key ]]; then
            label="dropbear_ed25519_key=$key"
        else
            key=$(ssh_host_key_path)
            label="$key (the persistent one)"
            if [[ $key == @*@ ]]; then
                dfatal "devtmpfs-rescue: no SSH host key path: set dropbear_ed25519_key= or DEVTMPFS_RESCUE_SSH_HOST_KEY, or run make install"
                return 1
            fi
            devtmpfs_rescue_ssh_make_key "$key" || return 1
        fi
        rm -f "$host_key"
        if dropbearkey -y -f "$key" >/dev/null 2>&1; then
            command install -m 0600 "$key" "$host_key" || return 1
            how="dropbear's format"
        elif (umask 077 && dropbearconvert openssh dropbear "$key" "$host_key") >/dev/null 2>&1; then
            how="converted from OpenSSH's format"
        else
            rm -f "$host_key"
            dfatal "devtmpfs-rescue: $label is not a host key in dropbear's or OpenSSH's format (neither dropbearkey -y nor dropbearconvert reads it)"
            return 1
        fi
        chmod 0600 "$host_key"
        fp=$(dropbearkey -y -f "$host_key" 2>/dev/null | grep -o 'SHA256:[^ ]*')
        dinfo "devtmpfs-rescue: SSH host key from $label ($how): ${fp:-?}"
    fi
    # dropbear finds the keys through root's home directory.
    grep -q '^root:' "$initdir/etc/passwd" 2>/dev/null ||
        echo 'root:x:0:0:root:/root:/bin/sh' >>"$initdir/etc/passwd"
}

# The console keymap rescue-init loads before the passphrase prompt
# (dracut's i18n hooks do not run under it): devtmpfs_rescue_keymap= in
# dracut.conf (or DEVTMPFS_RESCUE_KEYMAP): a kbd keymap, or an XKB
# layout as LAYOUT[:VARIANT], "us" for none; else the host's: KEYMAP= of
# /etc/vconsole.conf, which dracut's i18n takes, or XKBLAYOUT= of
# /etc/default/keyboard (Debian's console-setup).  Compiled by loadkeys
# -b, as mkrescue --keymap does, into the files rescue-init reads
# (rescue/lib/contract.h: RESCUE_KEYMAP_PATH, RESCUE_KEYMAP_NAME_PATH).
devtmpfs_rescue_keymap_install() {
    local name=${devtmpfs_rescue_keymap:-${DEVTMPFS_RESCUE_KEYMAP:-}} from=dracut.conf
    local map=$initdir/etc/rescue-keymap.bmap layout variant options out
    if [[ ! $name && -r /etc/vconsole.conf ]]; then
        name=$(. /etc/vconsole.conf && echo "${KEYMAP:-}") from=/etc/vconsole.conf
    fi
    if [[ ! $name && -r /etc/default/keyboard ]]; then
        IFS=$'\t' read -r layout variant options < <(. /etc/default/keyboard &&
            printf '%s\t%s\t%s\n' "${XKBLAYOUT:-}" "${XKBVARIANT:-}" "${XKBOPTIONS:-}")
        name=$layout${variant:+:$variant} from=/etc/default/keyboard
    fi
    [[ $name && $name != us ]] || return 0
    layout=${name%%:*} variant=
    [[ $name == *:* ]] && variant=${name#*:}
    mkdir -p "$initdir/etc"
    # loadkeys looks for a name in its working directory first: from /
    if ! out=$(cd / && loadkeys -q -u -b "$name" 2>&1 >"$map") &&
        ! out=$(cd / && ckbcomp -compact -layout "$layout" -variant "$variant" \
            ${options:+-option "$options"} 2>&1 >"$map.kmap" &&
            loadkeys -q -u -b - <"$map.kmap" 2>&1 >"$map"); then
        rm -f "$map" "$map.kmap"
        dwarn "devtmpfs-rescue: the console keymap $name ($from) is not in the image, which types in US: $(grep -v -m1 '^WARNING' <<<"$out")"
        return 0
    fi
    rm -f "$map.kmap"
    echo "$name" >"$initdir/etc/rescue-keymap.name"
    dinfo "devtmpfs-rescue: console keymap $name ($from), loaded by rescue-init; rd.vconsole.keymap=us types in US"
}

# What only dracut's own /init, systemd, udevd and plymouth run, relative
# to $initdir: rescue-init runs none of it.  The libraries that only
# these need go with them: dracut resolves the libraries of what is
# left at the end (DRACUT_RESOLVE_LAZY).  99fs-lib and 99shutdown sort
# after this module and add their few kilobytes afterwards.
devtmpfs_rescue_unused() {
    local d
    for d in "$systemdutildir" "$systemdsystemunitdir" "$systemdsystemconfdir" \
        "$udevdir" /etc/systemd /etc/udev /etc/initrd-release \
        /usr/lib/initrd-release /etc/conf.d/systemd.conf \
        /usr/lib/tmpfiles.d /usr/lib/sysctl.d /usr/lib/modprobe.d/systemd.conf \
        /lib/dracut/hooks /usr/lib/dracut/hooks /lib/dracut/need-initqueue \
        /usr/lib/dracut/need-initqueue /usr/lib/dracut/dracut-util \
        /usr/lib/dracut-lib.sh /usr/lib/dracut-dev-lib.sh /lib/dracut-lib.sh \
        /lib/dracut-dev-lib.sh /lib/dracut-crypt-lib.sh /etc/plymouth \
        /usr/share/plymouth /init.dracut /sbin/init /usr/sbin/init; do
        [[ $d ]] && echo "$d"
    done
    # their programs, wherever the modules put them
    for d in systemctl journalctl loginctl udevadm 'systemd-*' \
        'dracut-*' initqueue loginit rdsosreport insmodpost.sh lvm_scan \
        mdraid_start mdraid-cleanup cryptroot-ask probe-keydev \
        crypt-run-generator plymouth plymouthd; do
        echo "/usr/bin/$d"
        echo "/usr/sbin/$d"
        echo "/bin/$d"
        echo "/sbin/$d"
    done
    # the systemd libraries that only systemd's programs link or load;
    # but systemd's TPM2 token plugin for cryptsetup (dracut's tpm2-tss,
    # which crypt adds for a crypttab with tpm2-device=) links
    # libsystemd-shared, there: rescue-init's cryptsetup loads it
    if ! compgen -G "$initdir/*lib/*/cryptsetup/libcryptsetup-token-systemd-tpm2.so" >/dev/null &&
        ! compgen -G "$initdir/usr/lib/*/cryptsetup/libcryptsetup-token-systemd-tpm2.so" >/dev/null; then
        echo '/usr/lib/*/systemd'
    fi
    echo '/usr/lib/*/libnss_systemd.so*'
    echo '/usr/lib/*/plymouth'
}

# Removes what devtmpfs_rescue_unused names.  reboot, poweroff and halt
# are links to systemctl on a systemd host: busybox's (busybox-static,
# which the package depends on) signal PID 1, which rescue-init honours.
# vi is busybox's too: vim.basic and its libraries are 4 MB.
devtmpfs_rescue_prune() {
    local before after p cmd
    before=$(find "$initdir" | wc -l)
    while read -r p; do
        # shellcheck disable=SC2086 # the paths are glob patterns
        rm -rf "$initdir"$p
    done < <(devtmpfs_rescue_unused)
    if [[ -x /bin/busybox ]]; then
        inst_simple /bin/busybox /usr/bin/busybox
        for cmd in reboot poweroff halt; do
            rm -f "$initdir/usr/sbin/$cmd" "$initdir/sbin/$cmd"
            ln_r /usr/bin/busybox "/usr/sbin/$cmd"
        done
        rm -rf "$initdir/usr/bin/vi" "$initdir/usr/bin/vim.basic" "$initdir/etc/alternatives/vi"
        ln_r /usr/bin/busybox /usr/bin/vi
    fi
    after=$(find "$initdir" | wc -l)
    dinfo "devtmpfs-rescue: left out what rescue-init never runs (systemd, udevd and its rules, dracut's hooks and /init, plymouth): $((before - after)) files; devtmpfs_rescue_keep_dracut=yes in dracut.conf keeps them"
}

# The detached LUKS headers (header=) of the crypttab that dracut's
# crypt module put in the image (hostonly), at their own paths:
# rescue-init opens those containers with them.
devtmpfs_rescue_crypttab_headers() {
    local opts opt
    [[ -r $initdir/etc/crypttab ]] || return 0
    while read -r _ _ _ opts _; do
        for opt in ${opts//,/ }; do
            [[ $opt == header=/* ]] && inst_simple "${opt#header=}"
        done
    done < <(grep -v '^[[:space:]]*#' "$initdir/etc/crypttab")
    return 0
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
# rescue/share/modules.list; instmods applies dracut's hostonly rules, so a
# hostonly image only gets those the host uses.
installkernel() {
    local list mods
    list=$(module_list_path)
    if [[ ! -r $list ]]; then
        dfatal "devtmpfs-rescue: unable to read the module list $list: set DEVTMPFS_RESCUE_MODULE_LIST or run make install"
        return 1
    fi
    mods=$(devtmpfs_rescue_kmods "$list") || return 1
    # shellcheck disable=SC2086 # one module or =directory a word
    instmods $mods
    # Network filesystems (of dracut's =fs): no root on them under
    # rescue-init (nfs and cifs are not layers yet), and without
    # dropbear_acl= the image has no network.  Nothing else needs them.
    if [[ ! ${dropbear_acl:-} && ${devtmpfs_rescue_keep_dracut:-} != yes ]]; then
        rm -rf "$initdir/lib/modules/$kernel/kernel/fs/"{smb,ceph,9p}
    fi
}

# The list's entries as instmods takes them: a directory of the list
# (kernel/drivers/ata/) is =drivers/ata.  The network drivers (class
# "net" in rescue/share/module-classes, a name placed by its path in
# modules.dep) only for rescue over SSH (dropbear_acl=): ip= is useless
# to a dracut image without it, and the NICs are 8 MB of modules.
devtmpfs_rescue_kmods() { # list
    local classes
    classes="$(datadir_path)/module-classes"
    if [[ ! -r $classes ]]; then
        dfatal "devtmpfs-rescue: unable to read the module classes $classes: set DEVTMPFS_RESCUE_DATADIR or run make install"
        return 1
    fi
    sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$1" |
        awk -v net="${dropbear_acl:+yes}" -v dep="$srcmods/modules.dep" \
            -v classes="$classes" '
            # The class of the longest prefix, as coldplug.c reads it.
            function class_of(p,    i, best, n, c) {
                best = -1
                for (i = 1; i <= nclass; i++) {
                    n = length(prefix[i])
                    if (n > best && substr(p, 1, n) == prefix[i]) {
                        best = n
                        c = class[i]
                    }
                }
                return c
            }
            BEGIN {
                while ((getline line < classes) > 0) {
                    if (line ~ /^[[:space:]]*(#|$)/)
                        continue
                    split(line, f)
                    prefix[++nclass] = f[1] == "*" ? "" : f[1]
                    class[nclass] = f[2]
                }
                while ((getline line < dep) > 0) {
                    p = substr(line, 1, index(line, ":") - 1)
                    n = p
                    sub(/.*\//, "", n)
                    sub(/\..*/, "", n)
                    gsub(/-/, "_", n)
                    path[n] = p
                }
            }
            {
                e = $1
                if (e ~ /\/$/) {
                    if (net == "" && class_of(e) == "net")
                        next
                    sub(/^kernel\//, "=", e)
                    sub(/\/$/, "", e)
                    print e
                    next
                }
                n = e
                gsub(/-/, "_", n)
                if (net == "" && (n in path) && class_of(path[n]) == "net")
                    next
                print e
            }'
}

# called by dracut
# The shell lock (rescue-init(8), "SHELL LOCK"), as mkrescue's options,
# in dracut.conf: devtmpfs_rescue_password_hash='$6$...' (single quotes:
# a hash has $ in it) or devtmpfs_rescue_password_file=FILE (the hash on
# its first line), as /etc/rescue-shadow, 0600 (dracut writes the image
# 0600: its umask 077); devtmpfs_rescue_lock_shell=yes asks for it
# whatever opened the disks.  musl's crypt() verifies $6$, $5$ and $2b$
# hashes, not Debian's default yescrypt ($y$): refused here.
devtmpfs_rescue_shelllock_install() {
    local hash=${devtmpfs_rescue_password_hash:-${DEVTMPFS_RESCUE_PASSWORD_HASH:-}}
    local file=${devtmpfs_rescue_password_file:-${DEVTMPFS_RESCUE_PASSWORD_FILE:-}}
    local lock=${devtmpfs_rescue_lock_shell:-${DEVTMPFS_RESCUE_LOCK_SHELL:-}}
    mkdir -p "$initdir/etc"
    [[ $lock != yes ]] || echo --lock-shell >"$initdir/etc/rescue-lock-shell"
    if [[ $hash && $file ]]; then
        dfatal "devtmpfs-rescue: devtmpfs_rescue_password_hash and devtmpfs_rescue_password_file exclude each other"
        return 1
    fi
    if [[ $file ]] && ! IFS= read -r hash <"$file"; then
        dfatal "devtmpfs-rescue: unable to read the rescue password file $file"
        return 1
    fi
    [[ $hash ]] || return 0
    # shellcheck disable=SC2016 # crypt(3) prefixes, not expansions
    case $hash in
    '$y$'* | '$7$'* | '$gy$'*)
        dfatal "devtmpfs-rescue: the rescue password hash is yescrypt or scrypt, which rescue-init (musl's crypt) cannot verify: make one with: mkpasswd -m sha-512 (whois) or openssl passwd -6"
        return 1 ;;
    '$6$'?* | '$5$'?* | '$2'[aby]'$'?*) ;;
    *)
        dfatal "devtmpfs-rescue: the rescue password hash is not a SHA-512, SHA-256 or bcrypt crypt(3) hash: make one with: mkpasswd -m sha-512 (whois) or openssl passwd -6"
        return 1 ;;
    esac
    (umask 077 && printf '%s\n' "$hash" >"$initdir/etc/rescue-shadow") || return 1
    dinfo "devtmpfs-rescue: the rescue password's hash is in the image${lock:+ (the shell always locked)}"
}

install() {
    local rescue_init previous tool
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

    # dracut goes on after a failed install(): stop it here.
    devtmpfs_rescue_layers_install || exit 1

    # The rescue shell's commands are modes of rescue-init, and its
    # shell is the image's /bin/sh, with the usual tools beside it.
    if [[ $rescue_tools_installed == @*@ ]]; then
        dfatal "devtmpfs-rescue: the names of rescue-init's commands are unknown: run make install"
        exit 1
    fi
    for tool in $rescue_tools_installed; do
        ln_r /init "/usr/bin/$tool"
    done
    if [[ ${dropbear_acl:-} ]]; then
        devtmpfs_rescue_ssh_install || exit 1
    fi
    devtmpfs_rescue_shelllock_install || exit 1
    inst_multiple -o sh ls cat mount umount dmesg blkid lsblk fdisk sfdisk \
        e2fsck fsck less vi grep sed reboot poweroff
    devtmpfs_rescue_disk_tools_install
    devtmpfs_rescue_clevis_install
    devtmpfs_rescue_multipath_install
    devtmpfs_rescue_crypttab_headers
    devtmpfs_rescue_keymap_install

    if [[ ${devtmpfs_rescue_keep_dracut:-} == yes ]]; then
        dinfo "devtmpfs-rescue: /init is rescue-init from $rescue_init${previous:+; the previous /init ($previous) is kept as /init.dracut}"
    else
        dinfo "devtmpfs-rescue: /init is rescue-init from $rescue_init"
        devtmpfs_rescue_prune
        return 0
    fi
    if dracut_module_included systemd; then
        dinfo "devtmpfs-rescue: systemd is in the image but does not run in the initramfs: no systemd-udevd, no udevadm trigger, no initrd units; rescue-init loads drivers by modalias and execs the root's init itself"
    else
        dinfo "devtmpfs-rescue: dracut's hooks (cmdline, pre-udev, initqueue, pre-mount, pre-pivot) do not run: rescue-init does not source them"
    fi
}
