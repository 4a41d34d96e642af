// SPDX-License-Identifier: GPL-2.0
/*
 * ssh.c: --ssh-authorized-keys: the rescue shell over SSH for a machine
 * nobody sits in front of.  dropbear (Debian's dropbear-bin: small, one
 * binary, its host key in its own format) with the closure of its
 * libraries, root's authorized_keys, and an ed25519 host key: taken from
 * --ssh-host-key, else made now by dropbearkey.  A made key is in the
 * image, so whoever can read the image can pose as the rescue system:
 * its fingerprint is printed, for the user's known_hosts.
 * rescue-init starts dropbear once ip= configured an interface
 * (rescue/init/network.c), with password logins off.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mkrescue.h"

#define SSH_DROPBEAR	"/usr/sbin/dropbear"
#define SSH_KEYGEN	"/usr/bin/dropbearkey"

/* At least one line that looks like a public key, and no private key. */
static int ssh_check_keys(const char *path, const char *text)
{
	static const char *const types[] = {
		"ssh-ed25519 ", "ssh-rsa ", "ecdsa-sha2-", "sk-ssh-ed25519",
		"sk-ecdsa-sha2-",
	};
	const char *line;
	size_t i;

	if (strstr(text, "PRIVATE KEY")) {
		msg_error("--ssh-authorized-keys %s: this is a private key; "
			  "give the public one (.pub)", path);
		return -EINVAL;
	}
	for (line = text; line && *line; line = strchr(line, '\n'),
	     line = line ? line + 1 : NULL)
		for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
			if (strstr(line, types[i]) &&
			    (size_t)(strstr(line, types[i]) - line) <
			    strcspn(line, "\n"))
				return 0;
	msg_error("--ssh-authorized-keys %s: no public key in it (ssh-ed25519, "
		  "ssh-rsa, ecdsa-sha2-... lines)", path);
	return -EINVAL;
}

/* Run argv, its stdout into out (may be NULL); 0 when it exited 0. */
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

/* A new ed25519 host key into the image; its fingerprint said. */
static int ssh_make_host_key(struct list *l, const char *image_path)
{
	char dir[] = "/tmp/mkrescue-ssh.XXXXXX", key[64];
	struct buf out = { 0 }, data = { 0 };
	const char *fp;
	int err;

	if (!mkdtemp(dir)) {
		msg_error("unable to make a directory for the SSH host key: %s",
			  strerror(errno));
		return -errno;
	}
	snprintf(key, sizeof(key), "%s/key", dir);
	err = ssh_run((char *const[]){ SSH_KEYGEN, "-t", "ed25519", "-f", key,
				      NULL }, &out);
	if (err) {
		msg_error("%s -t ed25519 failed: %s", SSH_KEYGEN,
			  out.len ? out.data : strerror(-err));
		goto out;
	}
	err = buf_read_file(&data, key);
	if (err) {
		msg_error("unable to read the host key %s: %s", key,
			  strerror(-err));
		goto out;
	}
	err = list_add_data(l, image_path, 0600, data.data, data.len,
			    LIST_OWN, "SSH host key (made now)");
	fp = out.data ? strstr(out.data, "SHA256:") : NULL;
	if (!err)
		fprintf(stderr, "mkrescue: SSH host key made for this image: "
			"ed25519 %.*s (the image holds it: keep the image "
			"private)\n", fp ? (int)strcspn(fp, " \n") : 7,
			fp ? fp : "unknown");
out:
	unlink(key);
	rmdir(dir);
	buf_free(&out);
	buf_free(&data);
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
	    const char *host_key)
{
	const char *key_path = "etc/dropbear/dropbear_ed25519_host_key";
	struct buf keys = { 0 };
	struct stat st;
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
	if (!err && host_key) {
		if (stat(host_key, &st)) {
			msg_error("unable to read --ssh-host-key %s: %s",
				  host_key, strerror(errno));
			err = -errno;
		} else {
			err = list_add_file(l, key_path, 0600, host_key,
					    (uint64_t)st.st_size, LIST_OWN,
					    "--ssh-host-key");
		}
	} else if (!err) {
		err = ssh_make_host_key(l, key_path);
	}
	buf_free(&keys);
	return err;
}
