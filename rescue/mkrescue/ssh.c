// SPDX-License-Identifier: GPL-2.0
/*
 * ssh.c: --ssh-authorized-keys: the rescue shell over SSH for a machine
 * nobody sits in front of.  dropbear (Debian's dropbear-bin: small, one
 * binary, its host key in its own format) with the closure of its
 * libraries, root's authorized_keys, and a host key: --ssh-host-key, else
 * the rescue system's persistent one (/etc/devtmpfs-rescue/
 * ssh_host_ed25519_key when installed), made by dropbearkey the first
 * time and its fingerprint said, so that every image, for every kernel,
 * has one identity and known_hosts never learns to accept a changed key.
 * It is a key of its own, not the machine's: the image sits unencrypted
 * in /boot.  A key in OpenSSH's format is converted; whatever dropbear
 * cannot load is refused here rather than at boot.  Whoever reads the
 * image can pose as the rescue system: the image is written 0600.
 * rescue-init starts dropbear once ip= configured an interface
 * (rescue/init/net/network.c), with password logins off.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mkrescue.h"
#include "readfile.h"

#define SSH_DROPBEAR	"/usr/sbin/dropbear"
#define SSH_KEYGEN	"/usr/bin/dropbearkey"
#define SSH_CONVERT	"/usr/bin/dropbearconvert"

/* At least one line that looks like a public key, and no private key. */
static int ssh_check_keys(const char *path, const char *text)
{
	static const char *const types[] = {
		"ssh-ed25519 ", "ssh-rsa ", "ecdsa-sha2-", "sk-ssh-ed25519",
		"sk-ecdsa-sha2-",
	};
	const char *line;
	size_t i;

	/* PEM and OpenSSH private keys, and PuTTY's .ppk (whose
	 * "Public-Lines" hold an ecdsa-sha2-... key the check below takes). */
	if (strstr(text, "PRIVATE KEY") || strstr(text, "PuTTY-User-Key-File-")) {
		msg_error("--ssh-authorized-keys %s: this is a private key; "
			  "give the public one (.pub)", path);
		return -EINVAL;
	}
	for (line = text; line && *line; line = strchr(line, '\n'),
	     line = line ? line + 1 : NULL)
		for (i = 0; i < ARRAY_SIZE(types); i++)
			if (strstr(line, types[i]) &&
			    (size_t)(strstr(line, types[i]) - line) <
			    strcspn(line, "\n"))
				return 0;
	msg_error("--ssh-authorized-keys %s: no public key in it (ssh-ed25519, "
		  "ssh-rsa, ecdsa-sha2-... lines)", path);
	return -EINVAL;
}

/*
 * Run argv, its stdout into out (may be NULL); 0 when it exited 0.
 * Scratch copies of a private key (the key checked or converted, a key
 * being made) exist only with the signals held (signals_hold()), so
 * that an interrupted run still removes them: main.c's handler runs
 * once they are gone.  The tools run with the signals free.
 */
static int ssh_run(char *const argv[], struct buf *out)
{
	int fds[2], status;
	char chunk[512];
	ssize_t n;
	pid_t pid;

	if (pipe(fds))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		close(fds[0]);
		close(fds[1]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	while ((n = read(fds[0], chunk, sizeof(chunk))) > 0)
		if (out && buf_append(out, chunk, (size_t)n))
			break;
	close(fds[0]);
	/* NUL-terminated for strstr(); a failed append leaves it unread. */
	if (out && buf_append(out, "", 1))
		buf_free(out);
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EIO;
}

/* The "SHA256:..." of dropbearkey's output, or "unknown". */
static const char *ssh_fingerprint(const struct buf *out, int *len)
{
	const char *fp = out->data ? strstr(out->data, "SHA256:") : NULL;

	*len = fp ? (int)strcspn(fp, " \n") : 7;
	return fp ? fp : "unknown";
}

/* DATA into a new file PATH, its owner's only. */
static int ssh_write_file(const char *path, const struct buf *data)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	int err;

	if (fd < 0)
		return -errno;
	err = writefile_all(fd, data->data, data->len);
	if (close(fd) < 0 && !err)
		err = -errno;
	return err;
}

/*
 * KEY, the content of WHAT NAME (for messages: "--ssh-host-key FILE"),
 * made a host key dropbear loads: as it is if `dropbearkey -y` reads
 * it, else converted from OpenSSH's format by dropbearconvert, since
 * dropbear reads no other (an OpenSSH key would leave the box without
 * SSH at boot).  Anything else is refused in one line naming it.  The
 * dropbearkey -y output, with the fingerprint, goes into OUT.
 */
static int ssh_check_host_key(const char *what, const char *name,
			      struct buf *key, struct buf *out)
{
	char dir[] = "/tmp/mkrescue-ssh.XXXXXX", in[64], conv[64];
	struct buf converted = { 0 }, ignored = { 0 };
	sigset_t old;
	int err;

	signals_hold(&old);
	if (!mkdtemp(dir)) {
		err = -errno;
		signals_release(&old);
		msg_error("unable to check %s %s: a scratch directory: %s", what,
			  name, strerror(-err));
		return err;
	}
	snprintf(in, sizeof(in), "%s/key", dir);
	snprintf(conv, sizeof(conv), "%s/converted", dir);
	err = ssh_write_file(in, key);
	if (err) {
		msg_error("unable to check %s %s: %s: %s", what, name, in,
			  strerror(-err));
		goto out;
	}
	if (!ssh_run((char *const[]){ SSH_KEYGEN, "-y", "-f", in, NULL }, out))
		goto out;
	buf_free(out);
	err = ssh_run((char *const[]){ SSH_CONVERT, "openssh", "dropbear", in,
				      conv, NULL }, &ignored);
	if (!err)
		err = ssh_run((char *const[]){ SSH_KEYGEN, "-y", "-f", conv, NULL },
			      out);
	if (!err)
		err = buf_read_file(&converted, conv);
	if (err) {
		if (key->data && strstr(key->data, "-----BEGIN ") &&
		    strstr(key->data, "PRIVATE KEY-----"))
			msg_error("unable to use %s %s: dropbearconvert cannot "
				  "convert this OpenSSH key (a passphrase on it?)",
				  what, name);
		else
			msg_error("unable to use %s %s: not a host key in "
				  "dropbear's or OpenSSH's format (neither "
				  "dropbearkey -y nor dropbearconvert reads it)",
				  what, name);
		err = -EINVAL;
		goto out;
	}
	msg_verbose("%s %s: converted from OpenSSH's format", what, name);
	buf_free(key);
	*key = converted;
	converted = (struct buf){ 0 };
out:
	unlink(conv);
	unlink(in);
	rmdir(dir);
	signals_release(&old);
	buf_free(&converted);
	buf_free(&ignored);
	return err;
}

/*
 * The persistent host key PATH, made now if there is none: dropbearkey
 * writes it into a scratch directory beside PATH, and link() puts it in
 * place only if no other run made one meanwhile, so two runs at once
 * agree on one key.  Its parent directory is made if missing (one
 * level: /etc/devtmpfs-rescue).  Not writable: a failure, not a
 * throwaway key whose fingerprint would change at the next build.
 */
static int ssh_make_default_key(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *parent = slash && slash != path ? strndup(path, (size_t)(slash - path)) :
		       strdup(slash ? "/" : ".");
	struct buf dir = { 0 }, key = { 0 }, out = { 0 };
	sigset_t old;
	int len, err;
	const char *fp;

	if (!parent || buf_printf(&dir, "%s/.ssh_host_key.XXXXXX", parent)) {
		err = -ENOMEM;
		msg_error("unable to make the SSH host key %s: out of memory", path);
		goto out;
	}
	if (mkdir(parent, 0755) < 0 && errno != EEXIST) {
		err = -errno;
		goto fail;
	}
	signals_hold(&old);
	if (!mkdtemp(dir.data)) {
		err = -errno;
		signals_release(&old);
		goto fail;
	}
	err = buf_printf(&key, "%s/key", dir.data);
	if (!err)
		err = ssh_run((char *const[]){ SSH_KEYGEN, "-t", "ed25519", "-f",
					      key.data, NULL }, &out);
	if (err) {
		msg_error("unable to make the SSH host key %s: %s -t ed25519: %.*s",
			  path, SSH_KEYGEN,
			  out.len ? (int)strcspn(out.data, "\n") : 64,
			  out.len ? out.data : strerror(-err));
		if (key.data)
			unlink(key.data);
		rmdir(dir.data);
		signals_release(&old);
		goto out;
	}
	if (link(key.data, path) == 0) {
		fp = ssh_fingerprint(&out, &len);
		fprintf(stderr, "mkrescue: SSH host key made: %s, ed25519 %.*s "
			"(the rescue system's identity from now on; an image "
			"holding it must stay private)\n", path, len, fp);
	} else if (errno != EEXIST) {
		err = -errno;
	}
	unlink(key.data);
	rmdir(dir.data);
	signals_release(&old);
	if (!err)
		goto out;
fail:
	msg_error("unable to make the SSH host key %s: %s (give --ssh-host-key "
		  "FILE, or set MKRESCUE_SSH_HOST_KEY)", path, strerror(-err));
out:
	free(parent);
	buf_free(&dir);
	buf_free(&key);
	buf_free(&out);
	return err;
}

/*
 * The host key into the image: FILE given to --ssh-host-key, else the
 * persistent DEFAULT_KEY, made if it does not exist.  Checked (and
 * converted) by ssh_check_host_key().
 */
static int ssh_add_host_key(struct list *l, const char *given,
			    const char *default_key)
{
	const char *image_path = "etc/dropbear/dropbear_ed25519_host_key";
	const char *what = given ? "--ssh-host-key" : "the SSH host key";
	const char *path = given ? given : default_key;
	struct buf key = { 0 }, out = { 0 };
	struct stat st;
	int len, err;
	const char *fp;

	if (!given && lstat(path, &st) < 0 && errno == ENOENT) {
		err = ssh_make_default_key(path);
		if (err)
			return err;
	}
	if (stat(path, &st) < 0) {
		err = -errno;
	} else if (S_ISDIR(st.st_mode)) {
		err = -EISDIR;
	} else {
		err = buf_read_file(&key, path);
	}
	if (err) {
		msg_error("unable to read %s %s: %s", what, path, strerror(-err));
		return err;
	}
	err = ssh_check_host_key(what, path, &key, &out);
	if (!err && S_ISREG(st.st_mode) && (st.st_mode & 0044))
		fprintf(stderr, "mkrescue: warning: %s %s is readable by others "
			"(mode %04o): it is the rescue system's private key\n",
			what, path, (unsigned)(st.st_mode & 07777));
	if (!err) {
		fp = ssh_fingerprint(&out, &len);
		msg_verbose("SSH host key %s: %.*s", path, len, fp);
		err = list_add_data(l, image_path, 0600, key.data, key.len,
				    LIST_OWN, given ? "--ssh-host-key" :
				    "SSH host key (the persistent one)");
	}
	buf_free(&key);
	buf_free(&out);
	return err;
}

static int ssh_add_dropbear(struct list *l, struct hostpath *hp)
{
	struct ldconf conf = { 0 };
	struct ldpath lp;
	size_t i;
	int err;

	if (access(SSH_DROPBEAR, X_OK)) {
		msg_error("--ssh-authorized-keys: no %s on this host (apt-get "
			  "install dropbear-bin)", SSH_DROPBEAR);
		return -ENOENT;
	}
	ldpath_init(&lp, NULL);
	err = ldconf_read_depth(&conf, "/etc/ld.so.conf", 0);
	lp.conf = &conf;
	if (!err)
		err = ldpath_add_program(&lp, SSH_DROPBEAR);
	if (!err)
		err = hostpath_add(hp, l, SSH_DROPBEAR, "SSH server");
	for (i = 0; !err && i < lp.nfiles; i++)
		err = hostpath_add(hp, l, lp.files[i].path, lp.files[i].why);
	ldpath_free(&lp);
	ldconf_free(&conf);
	return err;
}

int ssh_add(struct list *l, struct hostpath *hp, const char *authorized_keys,
	    const char *host_key, const char *default_key)
{
	struct buf keys = { 0 };
	int err;

	err = buf_read_file(&keys, authorized_keys);
	if (err) {
		msg_error("unable to read --ssh-authorized-keys %s: %s",
			  authorized_keys, strerror(-err));
		return err;
	}
	err = ssh_check_keys(authorized_keys, keys.data ? keys.data : "");
	if (!err)
		err = ssh_add_dropbear(l, hp);
	if (!err)
		err = list_add_dir(l, "root/.ssh", 0700, LIST_OWN, "SSH keys");
	if (!err)
		err = list_add_data(l, "root/.ssh/authorized_keys", 0600,
				    keys.data, keys.len, LIST_OWN,
				    "--ssh-authorized-keys");
	if (!err)
		err = list_add_dir(l, "etc/dropbear", 0755, LIST_OWN,
				   "SSH host key");
	/* The host key is a private key: the image is written 0600. */
	l->secret = true;
	if (!err)
		err = ssh_add_host_key(l, host_key, default_key);
	buf_free(&keys);
	return err;
}
