// SPDX-License-Identifier: GPL-2.0
/* test_uevent.c: uevent parsing and the rules for accepting a message. */
#include "unit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rescue-init.h"

#define PATH "/devices/pci0000:00/0000:00:02.0/virtio0/block/vda"

/* A message as the kernel sends it: NUL-separated, NUL-terminated. */
static const char disk_add[] =
	"add@" PATH "\0ACTION=add\0DEVPATH=" PATH "\0SUBSYSTEM=block\0"
	"MAJOR=254\0MINOR=0\0DEVNAME=vda\0DEVTYPE=disk\0DISKSEQ=2\0SEQNUM=812";

static const char virtio_add[] =
	"add@/devices/pci0000:00/0000:00:03.0/virtio1\0ACTION=add\0"
	"DEVPATH=/devices/pci0000:00/0000:00:03.0/virtio1\0SUBSYSTEM=virtio\0"
	"MODALIAS=virtio:d00000002v00001AF4\0SEQNUM=813";

static void parses_a_block_add(void **state)
{
	struct uevent ev;

	(void)state;
	assert_int_equal(uevent_parse(disk_add, sizeof(disk_add), &ev), 0);
	assert_string_equal(ev.action, "add");
	assert_string_equal(ev.devpath, PATH);
	assert_string_equal(ev.subsystem, "block");
	assert_string_equal(ev.devname, "vda");
	assert_string_equal(ev.devtype, "disk");
	assert_true(ev.has_devnum);
	assert_int_equal(ev.major, 254);
	assert_int_equal(ev.minor, 0);
	assert_null(ev.modalias);
}

static void parses_a_modalias(void **state)
{
	struct uevent ev;

	(void)state;
	assert_int_equal(uevent_parse(virtio_add, sizeof(virtio_add), &ev), 0);
	assert_string_equal(ev.modalias, "virtio:d00000002v00001AF4");
	assert_string_equal(ev.subsystem, "virtio");
	assert_false(ev.has_devnum);
}

static void rejects_malformed_messages(void **state)
{
	static const char no_at[] = "add\0ACTION=add\0DEVPATH=/x";
	static const char at_first[] = "@/x\0ACTION=\0DEVPATH=/x";
	static const char no_slash[] = "add@x\0ACTION=add\0DEVPATH=x";
	static const char other_action[] = "add@/x\0ACTION=remove\0DEVPATH=/x";
	static const char other_path[] = "add@/x\0ACTION=add\0DEVPATH=/y";
	static const char no_action[] = "add@/x\0DEVPATH=/x";
	static const char empty_field[] = "add@/x\0ACTION=add\0\0DEVPATH=/x";
	static const char no_equals[] = "add@/x\0ACTION=add\0DEVPATH=/x\0JUNK";
	static const char prefix_action[] = "ad@/x\0ACTION=add\0DEVPATH=/x";
	struct uevent ev;

	(void)state;
	assert_int_equal(uevent_parse(no_at, sizeof(no_at), &ev), -EINVAL);
	assert_int_equal(uevent_parse(at_first, sizeof(at_first), &ev), -EINVAL);
	assert_int_equal(uevent_parse(no_slash, sizeof(no_slash), &ev), -EINVAL);
	assert_int_equal(uevent_parse(other_action, sizeof(other_action), &ev), -EINVAL);
	assert_int_equal(uevent_parse(other_path, sizeof(other_path), &ev), -EINVAL);
	assert_int_equal(uevent_parse(no_action, sizeof(no_action), &ev), -EINVAL);
	assert_int_equal(uevent_parse(empty_field, sizeof(empty_field), &ev), -EINVAL);
	assert_int_equal(uevent_parse(no_equals, sizeof(no_equals), &ev), -EINVAL);
	assert_int_equal(uevent_parse(prefix_action, sizeof(prefix_action), &ev), -EINVAL);
	assert_int_equal(uevent_parse(disk_add, 0, &ev), -EINVAL);
	assert_int_equal(uevent_parse(NULL, 10, &ev), -EINVAL);
}

static void rejects_truncated_and_unterminated(void **state)
{
	struct uevent ev;
	size_t cut;

	(void)state;
	/* Cut anywhere but after a NUL: the last byte is not a NUL. */
	for (cut = 1; cut < sizeof(disk_add) - 1; cut++)
		if (disk_add[cut - 1] != '\0')
			assert_int_equal(uevent_parse(disk_add, cut, &ev), -EINVAL);
	assert_int_equal(uevent_parse(disk_add, sizeof(disk_add) - 1, &ev), -EINVAL);
}

static void rejects_oversized(void **state)
{
	char *big = calloc(1, UEVENT_BUFFER_SIZE + 2);
	struct uevent ev;

	(void)state;
	assert_non_null(big);
	memcpy(big, disk_add, sizeof(disk_add));
	assert_int_equal(uevent_parse(big, UEVENT_BUFFER_SIZE + 1, &ev), -EINVAL);
	free(big);
}

/* libudev's messages start "libudev\0" and a binary header. */
static void rejects_libudev_messages(void **state)
{
	char msg[128] = "libudev";
	struct uevent ev;

	(void)state;
	msg[8] = (char)0xfe;
	msg[9] = (char)0xed;
	memcpy(msg + 40, "ACTION=add", 11);
	memcpy(msg + 51, "DEVPATH=/x", 11);
	assert_int_equal(uevent_parse(msg, 62, &ev), -EINVAL);
}

static void bad_numbers_are_no_devnum(void **state)
{
	static const char msg[] = "add@/x\0ACTION=add\0DEVPATH=/x\0MAJOR=8a\0MINOR=1";
	struct uevent ev;

	(void)state;
	assert_int_equal(uevent_parse(msg, sizeof(msg), &ev), 0);
	assert_false(ev.has_devnum);
}

/* Random bytes: never a crash or an overread (ASan watches). */
static void survives_random_input(void **state)
{
	char buf[300];
	struct uevent ev;
	size_t i, len;
	int round;

	(void)state;
	srand(1);
	for (round = 0; round < 20000; round++) {
		len = 1 + (size_t)rand() % sizeof(buf);
		for (i = 0; i < len; i++)
			buf[i] = "a@/=\0AC"[rand() % 7];
		if (round % 3 == 0)
			memcpy(buf, "add@/x\0ACTION=add\0DEVPATH=/x\0", len < 30 ? len : 30);
		uevent_parse(buf, len, &ev);
	}
}

static void accepts_only_the_kernel(void **state)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	struct sockaddr_nl forged = kernel;
	struct ucred root = { .pid = 0, .uid = 0, .gid = 0 };
	struct ucred user = { .pid = 1234, .uid = 1000, .gid = 1000 };

	(void)state;
	assert_true(uevent_accept(&kernel, sizeof(kernel), &root, 0));
	forged.nl_pid = 4321;			/* a process sent it */
	assert_false(uevent_accept(&forged, sizeof(forged), &root, 0));
	forged = kernel;
	forged.nl_groups = 2;			/* udev's group */
	assert_false(uevent_accept(&forged, sizeof(forged), &root, 0));
	forged.nl_groups = 0;			/* unicast */
	assert_false(uevent_accept(&forged, sizeof(forged), &root, 0));
	forged = kernel;
	forged.nl_family = AF_UNIX;
	assert_false(uevent_accept(&forged, sizeof(forged), &root, 0));
	assert_false(uevent_accept(&kernel, sizeof(kernel), &user, 0));
	assert_false(uevent_accept(&kernel, sizeof(kernel), NULL, 0));
	assert_false(uevent_accept(&kernel, sizeof(kernel), &root, MSG_TRUNC));
	assert_false(uevent_accept(&kernel, sizeof(kernel), &root, MSG_CTRUNC));
	assert_false(uevent_accept(&kernel, 4, &root, 0));
	assert_false(uevent_accept(NULL, 0, &root, 0));
}

/* Through recvmsg(): a well-formed message from a process is dropped. */
static void receive_drops_messages_from_processes(void **state)
{
	char buf[UEVENT_BUFFER_SIZE];
	struct uevent ev;
	int sv[2], on = 1;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
	setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &on, sizeof(on));
	assert_int_equal(uevent_receive(sv[0], buf, sizeof(buf), &ev), -EAGAIN);
	assert_int_equal(send(sv[1], disk_add, sizeof(disk_add), 0),
			 (ssize_t)sizeof(disk_add));
	assert_int_equal(uevent_receive(sv[0], buf, sizeof(buf), &ev), -EPERM);
	/* Bigger than the buffer: truncated, dropped. */
	assert_int_equal(send(sv[1], disk_add, sizeof(disk_add), 0),
			 (ssize_t)sizeof(disk_add));
	assert_int_equal(uevent_receive(sv[0], buf, 16, &ev), -EPERM);
	close(sv[0]);
	close(sv[1]);
}

UNIT_MAIN(NULL, NULL,
	cmocka_unit_test(parses_a_block_add),
	cmocka_unit_test(parses_a_modalias),
	cmocka_unit_test(rejects_malformed_messages),
	cmocka_unit_test(rejects_truncated_and_unterminated),
	cmocka_unit_test(rejects_oversized),
	cmocka_unit_test(rejects_libudev_messages),
	cmocka_unit_test(bad_numbers_are_no_devnum),
	cmocka_unit_test(survives_random_input),
	cmocka_unit_test(accepts_only_the_kernel),
	cmocka_unit_test(receive_drops_messages_from_processes))
