// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The readiness protocol of Type=notify services (daemon/notify.c),
 * against a socket of our own standing in for systemd's: a path and an
 * abstract name, no $NOTIFY_SOCKET, and names that cannot be sockets.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "notify.h"
#include "unit.h"

/* a datagram socket bound to @name ('@' for an abstract one) */
static int listener(const char *name)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len = strlen(name);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	memcpy(sa.sun_path, name, len);
	if (name[0] == '@')
		sa.sun_path[0] = '\0';
	if (bind(fd, (struct sockaddr *)&sa,
		 (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len +
			     (name[0] == '@' ? 0 : 1))) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int received(int fd, char *buf, size_t size)
{
	ssize_t n = recv(fd, buf, size - 1, MSG_DONTWAIT);

	if (n < 0)
		return -1;
	buf[n] = '\0';
	return (int)n;
}

UNIT_TEST(notify_path_socket)
{
	char path[64], buf[256];
	int fd;

	snprintf(path, sizeof(path), "/tmp/torusd-notify-%d", (int)getpid());
	unlink(path);
	fd = listener(path);
	UNIT_CHECK(fd >= 0);
	setenv("NOTIFY_SOCKET", path, 1);
	UNIT_CHECK(td_notify("READY=1\nSTATUS=placed at (1,2,3)") == 0);
	UNIT_CHECK(received(fd, buf, sizeof(buf)) > 0 &&
		   !strcmp(buf, "READY=1\nSTATUS=placed at (1,2,3)"));
	UNIT_CHECK(td_notify("STOPPING=1") == 0);
	UNIT_CHECK(received(fd, buf, sizeof(buf)) > 0 &&
		   !strcmp(buf, "STOPPING=1"));
	close(fd);
	unlink(path);
	/* nobody listens any more: an error, not a crash or a hang */
	UNIT_CHECK(td_notify("READY=1") < 0);
	unsetenv("NOTIFY_SOCKET");
}

UNIT_TEST(notify_abstract_socket)
{
	char name[64], buf[256];
	int fd;

	snprintf(name, sizeof(name), "@torusd-notify-%d", (int)getpid());
	fd = listener(name);
	UNIT_CHECK(fd >= 0);
	setenv("NOTIFY_SOCKET", name, 1);
	UNIT_CHECK(td_notify("RELOADING=1") == 0);
	UNIT_CHECK(received(fd, buf, sizeof(buf)) > 0 &&
		   !strcmp(buf, "RELOADING=1"));
	close(fd);
	unsetenv("NOTIFY_SOCKET");
}

UNIT_TEST(notify_without_manager)
{
	char longname[200];

	unsetenv("NOTIFY_SOCKET");
	UNIT_CHECK(td_notify("READY=1") == 1);
	setenv("NOTIFY_SOCKET", "", 1);
	UNIT_CHECK(td_notify("READY=1") == 1);
	setenv("NOTIFY_SOCKET", "relative/name", 1);
	UNIT_CHECK(td_notify("READY=1") == -EINVAL);
	memset(longname, 'x', sizeof(longname) - 1);
	longname[0] = '/';
	longname[sizeof(longname) - 1] = '\0';
	setenv("NOTIFY_SOCKET", longname, 1);
	UNIT_CHECK(td_notify("READY=1") == -EINVAL);
	unsetenv("NOTIFY_SOCKET");
}

static const struct unit_case cases[] = {
	UNIT_CASE(notify_path_socket),
	UNIT_CASE(notify_abstract_socket),
	UNIT_CASE(notify_without_manager),
};

UNIT_MAIN(cases)
