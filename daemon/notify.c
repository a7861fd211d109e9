// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * notify.c - sd_notify(3) without libsystemd: one datagram on an
 * AF_UNIX socket whose name systemd passes in $NOTIFY_SOCKET, the way
 * Type=notify services report READY=1, RELOADING=1, STOPPING=1 and a
 * STATUS= line.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "notify.h"

int td_notify(const char *msg)
{
	const char *name = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len;
	socklen_t salen;
	ssize_t n;
	int fd, err = 0;

	if (!name || !*name)
		return 1;
	len = strlen(name);
	/* a path, or an abstract name: '@' stands for the leading NUL */
	if ((name[0] != '/' && name[0] != '@') || len >= sizeof(sa.sun_path))
		return -EINVAL;
	memcpy(sa.sun_path, name, len);
	if (name[0] == '@')
		sa.sun_path[0] = '\0';
	salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len +
			    (name[0] == '@' ? 0 : 1));
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	n = sendto(fd, msg, strlen(msg), MSG_NOSIGNAL,
		   (const struct sockaddr *)&sa, salen);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != strlen(msg))
		err = -EMSGSIZE;
	close(fd);
	return err;
}
