// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_ctlsock.c - unit tests of lib/ctlsock.c, torusd's control socket:
 * the daemon's end holds its path against a second daemon or any other
 * process, and the tool's end refuses a socket or a reply that is not
 * the daemon's, but trusts the owner of the socket's directory, as
 * torusd@.service's dynamic user owns /run/torusd.  Each case works in
 * a directory of its own; the cases that need another uid run as root
 * only (SKIP otherwise).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctlsock.h"
#include "unit.h"

#define DEV		"tor0"
#define NOBODY		65534
/* a uid as DynamicUser= allocates one (61184-65519) */
#define DYNUID		61999

/* @dir in @top, which stands for /run: root's, 0755 */
static char top[64], dir[80];

static void dir_make(void)
{
	snprintf(top, sizeof(top), "/tmp/torus-ctl-XXXXXX");
	if (!mkdtemp(top))
		abort();
	chmod(top, 0755);
	snprintf(dir, sizeof(dir), "%s/torusd", top);
	if (mkdir(dir, 0755))
		abort();
}

static void dir_remove(void)
{
	char path[128];

	torusd_ctl_path(dir, DEV, false, path, sizeof(path));
	unlink(path);
	torusd_ctl_path(dir, DEV, true, path, sizeof(path));
	unlink(path);
	rmdir(dir);
	rmdir(top);
}

/*
 * The daemon's socket in a new directory (dir_make()): its fd, @lfd the
 * lock's.
 */
static int listen_new(bool *unit_ok, int *lfd)
{
	char err[256];
	int fd;

	dir_make();
	fd = torusd_ctl_listen(dir, DEV, lfd, err, sizeof(err));
	if (fd < 0)
		fprintf(stderr, "    %s\n", err);
	UNIT_CHECK(fd >= 0 && *lfd >= 0);
	return fd;
}

/* The socket of listen_new() closed, and its directory removed. */
static void listen_end(int fd, int lfd)
{
	close(fd);
	close(lfd);
	dir_remove();
}

/* In a server process: answer one request on @fd with @reply, and exit. */
static void __attribute__((noreturn)) answer_one(int fd, const char *reply)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct torusd_cred cred;
	struct sockaddr_un from;
	socklen_t flen = sizeof(from);
	char req[64];

	if (poll(&p, 1, 5000) != 1)
		_exit(5);
	if (torusd_ctl_recv(fd, req, sizeof(req), &from, &flen, &cred) < 0)
		_exit(6);
	sendto(fd, reply, strlen(reply), 0, (struct sockaddr *)&from, flen);
	_exit(0);
}

/*
 * A server process on @fd: answers one request with @reply, as uid @uid
 * (0: as we are).  Its pid.
 */
static pid_t serve_one(int fd, const char *reply, uid_t uid)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	if (uid && (setgid(uid) || setuid(uid)))
		_exit(2);
	answer_one(fd, reply);
}

/*
 * torusd as the unit runs it: a process of uid @uid (the owner of the
 * directory) binds the socket itself and answers one request with
 * @reply.  Its pid, once the socket is there.
 */
static pid_t serve_as_owner(uid_t uid, const char *reply)
{
	char err[256], c = 1;
	int ready[2], fd, lfd;
	pid_t pid;

	if (pipe(ready))
		abort();
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid) {
		close(ready[1]);
		/* nothing read: the child failed and said why */
		if (read(ready[0], &c, 1) != 1)
			fprintf(stderr, "    the daemon's stand-in did not start\n");
		close(ready[0]);
		return pid;
	}
	close(ready[0]);
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
	    setresuid(uid, uid, uid))
		_exit(2);
	fd = torusd_ctl_listen(dir, DEV, &lfd, err, sizeof(err));
	if (fd < 0) {
		fprintf(stderr, "    as uid %d: %s\n", (int)uid, err);
		_exit(3);
	}
	if (write(ready[1], &c, 1) != 1)
		_exit(4);
	close(ready[1]);
	answer_one(fd, reply);
}

static void reap(pid_t pid)
{
	int st;

	kill(pid, SIGTERM);
	waitpid(pid, &st, 0);
}

/*
 * A process of uid NOBODY answers on the daemon's socket @fd: the tool
 * refuses its reply and hands nothing over.
 */
static void ask_forged(bool *unit_ok, int fd)
{
	char buf[256], err[256];
	pid_t pid = serve_one(fd, "ok\nforged", NOBODY);

	UNIT_CHECK(torusd_ctl_ask(dir, DEV, "neighbors", buf, sizeof(buf),
				  5000, err, sizeof(err)) == -EPERM);
	UNIT_CHECK(buf[0] == '\0');
	UNIT_CHECK(strstr(err, "uid 65534: not torusd's") != NULL);
	reap(pid);
}

/* the daemon's socket: 0660 in its directory, and it answers the tool */
UNIT_TEST(ctl_listen_and_ask)
{
	char path[128], buf[256], err[256];
	struct stat st;
	int fd, lfd;
	pid_t pid;

	fd = listen_new(unit_ok, &lfd);
	UNIT_CHECK(!torusd_ctl_path(dir, DEV, false, path, sizeof(path)));
	UNIT_CHECK(!lstat(path, &st) && S_ISSOCK(st.st_mode) &&
		   (st.st_mode & 0777) == 0660);
	pid = serve_one(fd, "ok\nhello", 0);
	UNIT_CHECK(torusd_ctl_ask(dir, DEV, "stats", buf, sizeof(buf), 5000,
				  err, sizeof(err)) == 0);
	UNIT_STREQ(buf, "ok\nhello");
	reap(pid);
	listen_end(fd, lfd);
}

/*
 * A second daemon (or any process binding the path) cannot take the
 * socket from a running one, which keeps answering; once it is gone,
 * its socket file is replaced.
 */
UNIT_TEST(ctl_path_cannot_be_taken)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char path[108], buf[256], err[256];
	int fd, lfd, fd2, lfd2, s;
	pid_t pid;

	fd = listen_new(unit_ok, &lfd);
	UNIT_CHECK(torusd_ctl_listen(dir, DEV, &lfd2, err, sizeof(err)) ==
		   -EADDRINUSE && lfd2 == -1);
	UNIT_CHECK(strstr(err, "held by another torusd") != NULL);
	/* a plain bind() at the path: in use */
	torusd_ctl_path(dir, DEV, false, path, sizeof(path));
	memcpy(sun.sun_path, path, strlen(path) + 1);
	s = socket(AF_UNIX, SOCK_DGRAM, 0);
	UNIT_CHECK(bind(s, (struct sockaddr *)&sun, sizeof(sun)) == -1 &&
		   errno == EADDRINUSE);
	close(s);
	/* the first still answers */
	pid = serve_one(fd, "ok\nfirst", 0);
	UNIT_CHECK(torusd_ctl_ask(dir, DEV, "stats", buf, sizeof(buf), 5000,
				  err, sizeof(err)) == 0);
	UNIT_STREQ(buf, "ok\nfirst");
	reap(pid);
	/* it dies without removing its socket: the next one starts */
	close(fd);
	close(lfd);
	fd2 = torusd_ctl_listen(dir, DEV, &lfd2, err, sizeof(err));
	UNIT_CHECK(fd2 >= 0);
	close(fd2);
	close(lfd2);
	dir_remove();
}

/* a socket file or directory others may write to is not torusd's */
UNIT_TEST(ctl_ask_refuses_unsafe_paths)
{
	char path[128], buf[256], err[256];
	int fd, lfd;

	fd = listen_new(unit_ok, &lfd);
	torusd_ctl_path(dir, DEV, false, path, sizeof(path));
	chmod(path, 0666);
	UNIT_CHECK(torusd_ctl_ask(dir, DEV, "stats", buf, sizeof(buf), 500,
				  err, sizeof(err)) == -EPERM);
	UNIT_CHECK(strstr(err, "is not torusd's") != NULL);
	chmod(path, 0660);
	chmod(dir, 0777);
	UNIT_CHECK(torusd_ctl_ask(dir, DEV, "stats", buf, sizeof(buf), 500,
				  err, sizeof(err)) == -EPERM);
	/* and the daemon will not start there either */
	close(fd);
	close(lfd);
	UNIT_CHECK(torusd_ctl_listen(dir, DEV, &lfd, err, sizeof(err)) ==
		   -EPERM);
	chmod(dir, 0755);
	/* a regular file in the socket's place */
	unlink(path);
	close(open(path, O_CREAT | O_WRONLY, 0600));
	UNIT_CHECK(torusd_ctl_ask(dir, DEV, "stats", buf, sizeof(buf), 500,
				  err, sizeof(err)) == -EPERM);
	/* no socket at all */
	unlink(path);
	UNIT_CHECK(torusd_ctl_ask(dir, DEV, "stats", buf, sizeof(buf), 500,
				  err, sizeof(err)) == -ENOENT);
	UNIT_CHECK(strstr(err, "no torusd runs on tor0") != NULL);
	dir_remove();
}

/* root only: a socket owned by another uid is refused before asking */
UNIT_TEST(ctl_ask_refuses_socket_of_other_uid)
{
	char path[128], buf[256], err[256];
	int fd, lfd;

	fd = listen_new(unit_ok, &lfd);
	torusd_ctl_path(dir, DEV, false, path, sizeof(path));
	UNIT_CHECK(!chown(path, NOBODY, NOBODY));
	UNIT_CHECK(torusd_ctl_ask(dir, DEV, "stats", buf, sizeof(buf), 500,
				  err, sizeof(err)) == -EPERM);
	listen_end(fd, lfd);
}

/*
 * root only: a process of another uid answering on torusd's socket (in
 * torusd's place) is refused, its reply not handed over
 */
UNIT_TEST(ctl_ask_refuses_reply_of_other_uid)
{
	int fd, lfd;

	fd = listen_new(unit_ok, &lfd);
	ask_forged(unit_ok, fd);
	listen_end(fd, lfd);
}

/*
 * root only: torusd as a dynamic user, in /run/torusd made its own
 * (0755): root's tool takes its answer.  Were the directory writable by
 * others, anyone could have put the socket there: refused.
 */
UNIT_TEST(ctl_ask_trusts_owner_of_dir)
{
	char path[128], buf[256], err[256];
	struct stat st;
	pid_t pid;

	dir_make();
	UNIT_CHECK(!chown(dir, DYNUID, DYNUID));
	pid = serve_as_owner(DYNUID, "ok\nas the unit's user");
	UNIT_CHECK(!torusd_ctl_path(dir, DEV, false, path, sizeof(path)));
	UNIT_CHECK(!lstat(path, &st) && st.st_uid == DYNUID);
	UNIT_CHECK(torusd_ctl_ask(dir, DEV, "neighbors", buf, sizeof(buf),
				  5000, err, sizeof(err)) == 0);
	UNIT_STREQ(buf, "ok\nas the unit's user");
	reap(pid);
	dir_remove();

	dir_make();
	UNIT_CHECK(!chown(dir, DYNUID, DYNUID));
	pid = serve_as_owner(DYNUID, "ok\nin a directory for all");
	chmod(dir, 0777);
	UNIT_CHECK(torusd_ctl_ask(dir, DEV, "neighbors", buf, sizeof(buf),
				  500, err, sizeof(err)) == -EPERM);
	UNIT_CHECK(strstr(err, "writable by its owner alone") != NULL);
	reap(pid);
	dir_remove();

	/* made by its owner in a directory anyone can write to, as /tmp */
	dir_make();
	UNIT_CHECK(!chown(dir, DYNUID, DYNUID));
	pid = serve_as_owner(DYNUID, "ok\nfrom a directory it made itself");
	chmod(top, 01777);
	UNIT_CHECK(torusd_ctl_ask(dir, DEV, "neighbors", buf, sizeof(buf),
				  500, err, sizeof(err)) == -EPERM);
	UNIT_CHECK(strstr(err, "root does not keep to itself") != NULL);
	reap(pid);
	dir_remove();
}

/*
 * root only: in a directory of the daemon's user, a process of a third
 * uid answering on the daemon's socket is still refused
 */
UNIT_TEST(ctl_ask_refuses_reply_of_third_uid)
{
	char path[128];
	int fd, lfd;

	fd = listen_new(unit_ok, &lfd);
	torusd_ctl_path(dir, DEV, false, path, sizeof(path));
	UNIT_CHECK(!chown(dir, DYNUID, DYNUID) &&
		   !chown(path, DYNUID, DYNUID));
	ask_forged(unit_ok, fd);
	listen_end(fd, lfd);
}

/* the daemon's view of its senders: root and its own uid are privileged */
UNIT_TEST(ctl_privileged)
{
	struct torusd_cred c = { .pid = 1, .uid = 0 };

	UNIT_CHECK(torusd_ctl_privileged(&c));
	c.uid = geteuid();
	UNIT_CHECK(torusd_ctl_privileged(&c));
	c.uid = geteuid() + 1;
	UNIT_CHECK(!torusd_ctl_privileged(&c) || geteuid() + 1 == 0);
	c.uid = (uid_t)-1;
	UNIT_CHECK(!torusd_ctl_privileged(&c));
}

static const struct unit_case cases[] = {
	UNIT_CASE(ctl_listen_and_ask),
	UNIT_CASE(ctl_path_cannot_be_taken),
	UNIT_CASE(ctl_ask_refuses_unsafe_paths),
	UNIT_CASE(ctl_privileged),
};

static const struct unit_case root_cases[] = {
	UNIT_CASE(ctl_ask_refuses_socket_of_other_uid),
	UNIT_CASE(ctl_ask_refuses_reply_of_other_uid),
	UNIT_CASE(ctl_ask_trusts_owner_of_dir),
	UNIT_CASE(ctl_ask_refuses_reply_of_third_uid),
};

int main(void)
{
	int ret = unit_run(cases, sizeof(cases) / sizeof(cases[0]));
	size_t i;

	if (geteuid() == 0)
		return unit_run(root_cases, sizeof(root_cases) /
				sizeof(root_cases[0])) | ret;
	for (i = 0; i < sizeof(root_cases) / sizeof(root_cases[0]); i++)
		printf("SKIP: unit/%s: needs root (a process of another uid)\n",
		       root_cases[i].name);
	return ret;
}
