// SPDX-License-Identifier: GPL-2.0
/* programs.c: /init, busybox with its applet links, e2fsck. */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mkrescue.h"

/* The programs rescue-init also is, by the name it is called with. */
static const char *const programs_init_links[] = {
	"bin/" RESCUE_TOOL_LS,
	"bin/" RESCUE_TOOL_MOUNT,
	"bin/" RESCUE_TOOL_CONTINUE,
	"bin/" RESCUE_TOOL_UNLOCK,
	"bin/" RESCUE_TOOL_RW,
};

static const char *const programs_fsck_links[] = {
	"sbin/fsck.ext2",
	"sbin/fsck.ext3",
	"sbin/fsck.ext4",
};


char *programs_link_target(const char *path, const char *target)
{
	const char *path_slash = strrchr(path, '/');
	const char *target_slash = strrchr(target, '/');
	size_t path_dir = path_slash ? (size_t)(path_slash - path) : 0;
	size_t target_dir = target_slash ? (size_t)(target_slash - target) : 0;
	struct buf b = { 0 };
	const char *p;

	if (path_dir == target_dir && !strncmp(path, target, path_dir))
		return strdup(target_slash ? target_slash + 1 : target);
	for (p = path; *p; p++) {
		if (*p == '/' && buf_append(&b, "../", 3))
			goto fail;
	}
	if (buf_append(&b, target, strlen(target)))
		goto fail;
	return b.data;
fail:
	buf_free(&b);
	return NULL;
}

static int programs_add_links(struct list *l, const char *const *links,
			      size_t count, const char *target,
			      enum list_rank rank, const char *why)
{
	size_t i;
	int err = 0;

	for (i = 0; !err && i < count; i++) {
		char *to = programs_link_target(links[i], target);

		if (!to) {
			msg_error("unable to add /%s: out of memory", links[i]);
			return -ENOMEM;
		}
		err = list_add_symlink(l, links[i], to, rank, why);
		free(to);
	}
	return err;
}

int programs_add_init(struct list *l, const char *init)
{
	uint64_t size;
	int err;

	err = elf_check_static(init, "/init", &size);
	if (!err)
		err = list_add_file(l, "init", 0755, init, size, LIST_OWN, "--init");
	if (!err)
		err = programs_add_links(l, programs_init_links,
					 ARRAY_SIZE(programs_init_links),
					 "init", LIST_OWN, "rescue-init program");
	return err;
}

/* The output of `BUSYBOX --list-full`: one applet path a line. */
static int programs_list_applets(const char *busybox, struct buf *out)
{
	char *const argv[] = { (char *)busybox, (char *)"--list-full", NULL };
	char *const envp[] = { NULL };
	posix_spawn_file_actions_t actions;
	int pipefd[2], status, err;
	char chunk[4096];
	ssize_t n;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		err = -errno;
		msg_error("unable to run %s --list-full: %s", busybox, strerror(-err));
		return err;
	}
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&actions, pipefd[1], 1);
	err = -posix_spawn(&pid, busybox, &actions, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&actions);
	close(pipefd[1]);
	if (err) {
		close(pipefd[0]);
		msg_error("unable to run %s --list-full: %s", busybox, strerror(-err));
		return err;
	}
	while ((n = read(pipefd[0], chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		if (!err)
			err = buf_append(out, chunk, (size_t)n);
	}
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			status = -1;
			break;
		}
	}
	if (err) {
		msg_error("unable to read the applets of %s: %s", busybox, strerror(-err));
		return err;
	}
	if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) || !out->len) {
		msg_error("unable to list the applets of %s: `%s --list-full` failed",
			  busybox, busybox);
		return -EINVAL;
	}
	return 0;
}

/* The applet list from the cache (toolkitcache.c), else from busybox. */
static int programs_applets(const char *busybox, struct buf *out)
{
	char *cached = NULL;
	int err;

	if (!applets_cache_path(busybox, &cached) &&
	    !applets_cache_get(cached, out)) {
		free(cached);
		return 0;
	}
	err = programs_list_applets(busybox, out);
	if (!err && cached)
		cache_put(cached, out);
	free(cached);
	return err;
}

int programs_add_busybox(struct list *l, const char *busybox)
{
	struct buf applets = { 0 };
	char *line, *next;
	size_t count = 0;
	uint64_t size;
	int err;

	err = elf_check_static(busybox, "busybox", &size);
	if (!err)
		err = programs_applets(busybox, &applets);
	if (!err)
		err = list_add_file(l, "bin/busybox", 0755, busybox, size,
				    LIST_OWN, "--busybox");
	for (line = applets.data; !err && line && *line; line = next) {
		char *target;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!*line || !strcmp(line, "bin/busybox"))
			continue;
		target = programs_link_target(line, "bin/busybox");
		if (!target) {
			msg_error("unable to add /%s: out of memory", line);
			err = -ENOMEM;
			break;
		}
		err = list_add_symlink(l, line, target, LIST_WEAK, "busybox applet");
		free(target);
		count++;
	}
	if (!err)
		msg_verbose("busybox %s: %zu applet links", busybox, count);
	buf_free(&applets);
	return err;
}

int programs_add_e2fsck(struct list *l, const char *e2fsck, bool required)
{
	uint64_t size;
	int err;

	if (!required && access(e2fsck, F_OK) < 0 && errno == ENOENT) {
		msg_verbose("no /sbin/e2fsck: %s does not exist", e2fsck);
		return 0;
	}
	err = elf_check_static(e2fsck, "e2fsck", &size);
	if (!err)
		err = list_add_file(l, "sbin/e2fsck", 0755, e2fsck, size,
				    LIST_OWN, "--e2fsck");
	if (!err)
		err = programs_add_links(l, programs_fsck_links,
					 ARRAY_SIZE(programs_fsck_links),
					 "sbin/e2fsck", LIST_OWN, "e2fsck link");
	return err;
}
