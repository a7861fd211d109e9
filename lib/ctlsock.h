/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ctlsock.h - torusd's control socket, both ends: the daemon's
 * (torusd_ctl_listen(), torusd_ctl_recv()) and its clients' (the torus
 * tool's torusd_ctl_ask()).
 *
 * A datagram socket at DIR/ctl-NETNS-DEV (DIR is /run/torusd; NETNS
 * the inode of the caller's network namespace, /proc/thread-self/ns/net, so
 * every namespace has its own even where they share /run), mode 0660,
 * beside a lock file DIR/lock-NETNS-DEV that the daemon holds (flock)
 * while it runs: one daemon per node device and namespace, and a
 * socket left by one that died is replaced, never one that runs.  DIR
 * is created 0755; it must belong to root (or the daemon's user) and
 * be writable by nobody else, so no other user can put a socket there.
 * Under torusd@.service the daemon is a dynamic user (DynamicUser=yes)
 * and systemd makes DIR that user's (RuntimeDirectory=).
 *
 * A client trusts a reply only from a socket in a directory writable by
 * its owner alone, the socket file owned by root, by itself or by the
 * directory's owner and writable by no others, and from a process
 * whose credentials (SCM_CREDENTIALS, the datagram form of
 * SO_PEERCRED) say uid 0, its own uid or the directory's owner: only
 * that owner and root can bind a socket there.  Its socket is
 * connected to the daemon's, so no other process can send it a
 * datagram.  The daemon takes requests that change its state only from
 * root and its own uid (torusd_ctl_privileged()).
 */
#ifndef TORUS_CTLSOCK_H
#define TORUS_CTLSOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>

#define TORUSD_RUN_DIR		"/run/torusd"

/* a sender's credentials, as SCM_CREDENTIALS gives them */
struct torusd_cred {
	pid_t	pid;
	uid_t	uid;		/* (uid_t)-1: none came */
	gid_t	gid;
};

/*
 * The socket's path for @dev in this network namespace under @dir
 * (@lock: the lock file's instead); 0, or -errno
 */
int torusd_ctl_path(const char *dir, const char *dev, bool lock, char *buf,
		    size_t len);

/*
 * The daemon's end: the directory made or checked, the lock taken, the
 * socket bound (SO_PASSCRED on).  The socket's fd, the lock's in
 * *@lockfd (kept open while the daemon runs); or -errno with a message
 * in @err: -EADDRINUSE when another daemon holds the lock.
 */
int torusd_ctl_listen(const char *dir, const char *dev, int *lockfd,
		      char *err, size_t errlen);

/*
 * One request on the daemon's end: its length (NUL-terminated in @buf),
 * where from, and the sender's credentials (uid -1 if none came);
 * -errno (-EAGAIN: none waiting)
 */
ssize_t torusd_ctl_recv(int fd, char *buf, size_t size,
			struct sockaddr_un *from, socklen_t *flen,
			struct torusd_cred *cred);

/* may the sender @cred change the daemon's state: root or our uid */
bool torusd_ctl_privileged(const struct torusd_cred *cred);

/*
 * A client's request: the reply, NUL-terminated, in @buf; 0, or -errno
 * with a message in @err (-ENOENT/-ECONNREFUSED: no daemon;
 * -ETIMEDOUT: no answer; -EPERM: the directory, the socket or the
 * process that answered is not the daemon's)
 */
int torusd_ctl_ask(const char *dir, const char *dev, const char *req,
		   char *buf, size_t size, int timeout_ms, char *err,
		   size_t errlen);

#endif /* TORUS_CTLSOCK_H */
