// SPDX-License-Identifier: GPL-2.0
/*
 * sshd.c: dropbear, the rescue shell over SSH, started by the network's
 * child (network.c) once ip= configured an interface, when the image
 * has it and root's keys (mkrescue --ssh-authorized-keys).
 *
 * A rescue system answers only where it was asked to: dropbear listens
 * on the IPv4 addresses that ip= configured, not on every address
 * (dropbear's default), which would include an IPv6 address that router
 * advertisements give an interface by themselves (network.c turns
 * autoconfiguration off on the interfaces it brings up).  Key logins
 * only (-s), no port forwarding (-j -k): a rescue shell, not a tunnel.
 *
 * dropbear's log goes to the kernel log at debug level, through a relay
 * process, never to the console: a scanner's connections must not
 * scroll over a passphrase prompt.  `dmesg` shows it.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "network.h"

/* mkrescue --ssh-authorized-keys puts these in the image. */
#define SSHD			"/usr/sbin/dropbear"
#define SSH_KEYS		"/root/.ssh/authorized_keys"
#define SSH_HOST_KEY		"/etc/dropbear/dropbear_ed25519_host_key"
#define SSH_PORT		"22"
/* dropbear takes at most 10 -p. */
#define SSH_MAX_ADDRS		10
/* How long dropbear's sessions get to end before SIGKILL. */
#define SSH_END_MS		500
/* Client keepalives: a dead client's session ends after 3 unanswered. */
#define SSH_KEEPALIVE_S		"30"

/*
 * dropbear's log lines, one kernel record each at debug level.  The
 * lines hold what clients sent (user names): control characters become
 * '?'.  /dev/kmsg's rate limit for one open file (10 records in 5 s)
 * is kept on purpose: a flood of connections does not flood the log.
 */
static void relay_log(int in)
{
	char line[512], rec[600];
	FILE *f = fdopen(in, "r");
	int kmsg = open("/dev/kmsg", O_WRONLY | O_CLOEXEC | O_NOCTTY);
	size_t i, n;
	ssize_t w;

	if (!f || kmsg < 0)
		_exit(1);
	while (fgets(line, sizeof(line), f)) {
		n = strcspn(line, "\n");
		line[n] = '\0';
		for (i = 0; i < n; i++)
			if ((unsigned char)line[i] < 0x20 || line[i] == 0x7f)
				line[i] = '?';
		n = (size_t)snprintf(rec, sizeof(rec), "<7>rescue: ssh: %s\n",
				     line);
		w = write(kmsg, rec, n < sizeof(rec) ? n : sizeof(rec) - 1);
		(void)w;
	}
	_exit(0);
}

void sshd_start(const char *const addrs[], size_t n)
{
	static char listen[SSH_MAX_ADDRS][INET_ADDRSTRLEN + 4];
	const char *argv[16 + 2 * SSH_MAX_ADDRS];
	char shown[SSH_MAX_ADDRS * (INET_ADDRSTRLEN + 2)] = "";
	size_t i, naddr = 0, argc = 0;
	int p[2];

	if (access(SSHD, X_OK) || access(SSH_KEYS, R_OK))
		return;		/* not an image for SSH */
	for (i = 0; i < n && naddr < SSH_MAX_ADDRS; i++) {
		snprintf(listen[naddr++], sizeof(listen[0]), "%s:" SSH_PORT,
			 addrs[i]);
		snprintf(shown + strlen(shown), sizeof(shown) - strlen(shown),
			 "%s%s", *shown ? ", " : "", addrs[i]);
	}
	if (!naddr) {
		log_warn("ssh: no interface has an IPv4 address: dropbear "
			 "not started");
		return;
	}
	mkdir("/dev/pts", 0755);
	if (mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC,
		  "gid=5,mode=620,ptmxmode=666") && errno != EBUSY)
		log_warn("ssh: unable to mount /dev/pts: %s; sessions get "
			 "no terminal", errtext(errno));
	if (pipe2(p, O_CLOEXEC)) {
		log_error("ssh: unable to start dropbear: %s", errtext(errno));
		return;
	}
	log_info("ssh: dropbear listening on %s port " SSH_PORT ", logins "
		 "with the keys of %s only; its log is in dmesg", shown,
		 SSH_KEYS);
	/* net_end() looks for this to end dropbear's sessions too. */
	close(open(RESCUE_SSH_STARTED, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
	/* Processes of their own, so that the child's end still says done. */
	if (fork() == 0) {
		close(p[1]);
		relay_log(p[0]);
	}
	if (fork() != 0) {
		close(p[0]);
		close(p[1]);
		return;
	}
	dup2(p[1], 2);		/* dup2 clears close-on-exec */
	argv[argc++] = "dropbear";
	argv[argc++] = "-F";	/* in the foreground: ours to end */
	argv[argc++] = "-E";	/* the log on stderr: the relay */
	argv[argc++] = "-s";
	argv[argc++] = "-j";
	argv[argc++] = "-k";
	argv[argc++] = "-K";
	argv[argc++] = SSH_KEEPALIVE_S;
	for (i = 0; i < naddr; i++) {
		argv[argc++] = "-p";
		argv[argc++] = listen[i];
	}
	argv[argc++] = "-r";
	argv[argc++] = SSH_HOST_KEY;
	argv[argc++] = "-P";
	argv[argc++] = RESCUE_DROPBEAR_PID;
	argv[argc] = NULL;
	execv(SSHD, (char *const *)argv);
	log_error("ssh: unable to start %s: %s", SSHD, errtext(errno));
	_exit(127);
}

void sshd_end(void)
{
	unsigned waited;
	pid_t r;

	if (access(RESCUE_SSH_STARTED, F_OK))
		return;
	/*
	 * dropbear's sessions are sessions of their own, out of the
	 * network child's group: end every process but PID 1.  SIGTERM
	 * first, so that a session sends what it still holds (the line
	 * of a rescue-unlock that just opened the root) and closes; what
	 * is left after SSH_END_MS is killed.
	 */
	kill(-1, SIGTERM);
	for (waited = 0; waited < SSH_END_MS; waited += 10) {
		while ((r = waitpid(-1, NULL, WNOHANG)) > 0)
			;
		if (r < 0 && errno == ECHILD)
			break;		/* every process has ended */
		usleep(10000);
	}
	kill(-1, SIGKILL);
	unlink(RESCUE_SSH_STARTED);
	/* The sessions' terminals: the real root mounts its own. */
	umount2("/dev/pts", MNT_DETACH);
	log_info("ssh: dropbear and its sessions ended before switching "
		 "root");
}
