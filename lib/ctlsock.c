// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ctlsock.c - torusd's control socket, both ends (ctlsock.h)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctlsock.h"

static void say(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!err || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

int torusd_ctl_path(const char *dir, const char *dev, bool lock, char *buf,
		    size_t len)
{
	struct stat st;
	int n;

	/* the namespace's own inode: unique while the namespace lives */
	if (stat("/proc/thread-self/ns/net", &st) &&
	    stat("/proc/self/ns/net", &st))
		return -errno;
	n = snprintf(buf, len, "%s/%s-%lu-%s", dir, lock ? "lock" : "ctl",
		     (unsigned long)st.st_ino, dev);
	if (n < 0 || (size_t)n >= len ||
	    (size_t)n >= sizeof(((struct sockaddr_un *)0)->sun_path))
		return -ENAMETOOLONG;
	return 0;
}

/* owned by root or by us, writable by no one else (@mask: the bits) */
static bool owned_safely(const struct stat *st, mode_t mask)
{
	return (st->st_uid == 0 || st->st_uid == geteuid()) &&
	       !(st->st_mode & mask);
}

/* the daemon's end: its directory is root's or its own */
static int check_dir(const char *dir, char *err, size_t errlen)
{
	struct stat st;

	if (lstat(dir, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode) || !owned_safely(&st, S_IWGRP | S_IWOTH)) {
		say(err, errlen,
		    "%s: not a directory owned by root and writable by root alone",
		    dir);
		return -EPERM;
	}
	return 0;
}

/* the directory @path is in ("/" for "/run", "." for "run") */
static int parent_of(const char *path, char *buf, size_t len)
{
	const char *slash = strrchr(path, '/');
	size_t n;

	if (!slash)
		return snprintf(buf, len, ".") >= (int)len ? -ENAMETOOLONG : 0;
	while (slash > path && slash[-1] == '/')
		slash--;
	n = slash > path ? (size_t)(slash - path) : 1;
	if (n >= len)
		return -ENAMETOOLONG;
	memcpy(buf, path, n);
	buf[n] = 0;
	return 0;
}

/*
 * A client's end: a directory writable by its owner alone, whoever that
 * is.  Under torusd@.service the daemon is a dynamic user and systemd
 * (root) gave it /run/torusd: no one but that user (and root) can put a
 * socket in it, so the owner, in *@owner, is trusted like root, where
 * only root could have made the directory.
 */
static int check_client_dir(const char *dir, uid_t *owner, char *err,
			    size_t errlen)
{
	char parent[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct stat st, pst;

	if (lstat(dir, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode) || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		say(err, errlen,
		    "%s: not a directory writable by its owner alone", dir);
		return -EPERM;
	}
	*owner = st.st_uid;
	if (st.st_uid == 0 || st.st_uid == geteuid())
		return 0;
	/*
	 * Another user's: trusted only as root's gift, in a parent no one
	 * else can write to (in /tmp, anyone could have made it first)
	 */
	if (parent_of(dir, parent, sizeof(parent)) || lstat(parent, &pst) ||
	    pst.st_uid != 0 || (pst.st_mode & (S_IWGRP | S_IWOTH))) {
		say(err, errlen,
		    "%s: owned by uid %u in a directory root does not keep to itself",
		    dir, (unsigned int)st.st_uid);
		return -EPERM;
	}
	return 0;
}

/* may @uid be torusd: root, ourselves, or the owner of its directory */
static bool trusted(uid_t uid, uid_t owner)
{
	return uid == 0 || uid == geteuid() || uid == owner;
}

int torusd_ctl_listen(const char *dir, const char *dev, int *lockfd,
		      char *err, size_t errlen)
{
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd, lfd, one = 1, e;
	mode_t old;

	*lockfd = -1;
	if (mkdir(dir, 0755) && errno != EEXIST) {
		e = -errno;
		say(err, errlen, "%s: %s", dir, strerror(-e));
		return e;
	}
	e = check_dir(dir, err, errlen);
	if (e == -EPERM)
		return e;
	if (!e)
		e = torusd_ctl_path(dir, dev, true, path, sizeof(path));
	if (e) {
		say(err, errlen, "%s: %s", dir, strerror(-e));
		return e;
	}
	lfd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (lfd < 0) {
		e = -errno;
		say(err, errlen, "%s: %s", path, strerror(-e));
		return e;
	}
	if (flock(lfd, LOCK_EX | LOCK_NB)) {
		e = errno == EWOULDBLOCK ? -EADDRINUSE : -errno;
		say(err, errlen, "%s: %s", path, e == -EADDRINUSE ?
		    "held by another torusd" : strerror(-e));
		close(lfd);
		return e;
	}
	e = torusd_ctl_path(dir, dev, false, path, sizeof(path));
	if (e)
		goto fail;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		e = -errno;
		goto fail;
	}
	/* the lock is ours: a socket there is a dead daemon's */
	if (unlink(path) && errno != ENOENT) {
		e = -errno;
		goto fail_sock;
	}
	memcpy(sun.sun_path, path, strlen(path) + 1);
	old = umask(0117);	/* never reachable by others, not even briefly */
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun))) {
		e = -errno;
		umask(old);
		goto fail_sock;
	}
	umask(old);
	if (chmod(path, 0660) ||
	    setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one))) {
		e = -errno;
		unlink(path);
		goto fail_sock;
	}
	*lockfd = lfd;
	return fd;

fail_sock:
	close(fd);
fail:
	say(err, errlen, "%s: %s", path, strerror(-e));
	close(lfd);
	return e;
}

ssize_t torusd_ctl_recv(int fd, char *buf, size_t size,
			struct sockaddr_un *from, socklen_t *flen,
			struct torusd_cred *cred)
{
	struct ucred uc;
	union {
		char buf[CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { .iov_base = buf, .iov_len = size - 1 };
	struct msghdr msg = {
		.msg_name = from, .msg_namelen = *flen,
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf),
	};
	struct cmsghdr *c;
	ssize_t n;

	cred->pid = 0;
	cred->uid = (uid_t)-1;
	cred->gid = (gid_t)-1;
	n = recvmsg(fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	*flen = msg.msg_namelen;
	for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
		if (c->cmsg_level == SOL_SOCKET &&
		    c->cmsg_type == SCM_CREDENTIALS &&
		    c->cmsg_len == CMSG_LEN(sizeof(uc))) {
			memcpy(&uc, CMSG_DATA(c), sizeof(uc));
			cred->pid = uc.pid;
			cred->uid = uc.uid;
			cred->gid = uc.gid;
		}
	return n;
}

bool torusd_ctl_privileged(const struct torusd_cred *cred)
{
	return cred->uid == 0 || cred->uid == geteuid();
}

int torusd_ctl_ask(const char *dir, const char *dev, const char *req,
		   char *buf, size_t size, int timeout_ms, char *err,
		   size_t errlen)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr align;
	} ctl;
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct iovec iov = { .iov_base = buf, .iov_len = size - 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf),
	};
	struct ucred cred = { .uid = (uid_t)-1 };
	char path[sizeof(sun.sun_path)];
	struct pollfd pfd;
	struct cmsghdr *c;
	struct stat st;
	int fd, one = 1, e;
	uid_t owner = 0;	/* root: trusted anyway */
	ssize_t n;

	e = torusd_ctl_path(dir, dev, false, path, sizeof(path));
	if (e) {
		say(err, errlen, "%s: %s", dir, strerror(-e));
		return e;
	}
	e = check_client_dir(dir, &owner, err, errlen);
	if (e == -ENOENT)
		say(err, errlen, "no torusd runs on %s in this network namespace (no %s)",
		    dev, dir);
	if (e)
		return e;
	if (lstat(path, &st)) {
		e = -errno;
		say(err, errlen, "no torusd runs on %s in this network namespace (%s: %s)",
		    dev, path, strerror(-e));
		return e;
	}
	if (!S_ISSOCK(st.st_mode) || !trusted(st.st_uid, owner) ||
	    (st.st_mode & S_IWOTH)) {
		say(err, errlen, "%s is not torusd's: not a socket owned by root or the directory's owner, or writable by others",
		    path);
		return -EPERM;
	}
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		e = -errno;
		say(err, errlen, "socket: %s", strerror(-e));
		return e;
	}
	/*
	 * An autobound address for the reply, the sender's credentials
	 * with every datagram, and connected: only the daemon's socket
	 * can send to this one
	 */
	memcpy(sun.sun_path, path, strlen(path) + 1);
	if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) ||
	    connect(fd, (struct sockaddr *)&sun, sizeof(sun))) {
		e = -errno;
		say(err, errlen, "no torusd runs on %s in this network namespace (%s)",
		    dev, strerror(-e));
		goto out;
	}
	if (send(fd, req, strlen(req), 0) < 0) {
		e = -errno;
		say(err, errlen, "no torusd runs on %s in this network namespace (%s)",
		    dev, strerror(-e));
		goto out;
	}
	pfd.fd = fd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, timeout_ms) != 1) {
		e = -ETIMEDOUT;
		say(err, errlen, "torusd on %s did not answer", dev);
		goto out;
	}
	n = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
	if (n < 0) {
		e = -errno;
		say(err, errlen, "receive: %s", strerror(-e));
		goto out;
	}
	buf[n] = '\0';
	for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
		if (c->cmsg_level == SOL_SOCKET &&
		    c->cmsg_type == SCM_CREDENTIALS &&
		    c->cmsg_len == CMSG_LEN(sizeof(cred)))
			memcpy(&cred, CMSG_DATA(c), sizeof(cred));
	if (!trusted(cred.uid, owner)) {
		buf[0] = '\0';
		e = -EPERM;
		say(err, errlen, "the reply on %s came from pid %d, uid %d: not torusd's (uid 0 or %d, the owner of %s)",
		    path, (int)cred.pid, (int)cred.uid, (int)owner, dir);
		goto out;
	}
	e = 0;
out:
	close(fd);
	return e;
}
