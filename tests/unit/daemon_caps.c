// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * daemon_caps.c - td_caps_drop() (daemon/caps.c), each case in a forked
 * child whose capabilities it changes for good: started as
 * torusd@.service starts torusd (a user of its own, CAP_NET_ADMIN and
 * CAP_NET_RAW ambient, the bounding set those two, no CAP_SETPCAP), as
 * root with every capability, and with none.  Each must succeed and
 * leave exactly the two effective.  Root only (SKIP otherwise): only
 * root can set a child up so.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/capability.h>

#include "caps.h"
#include "unit.h"

#define KEEP	((1u << CAP_NET_ADMIN) | (1u << CAP_NET_RAW))
/* a uid as DynamicUser= allocates one (61184-65519) */
#define DYNUID	61999

static struct __user_cap_header_struct hdr = {
	.version = _LINUX_CAPABILITY_VERSION_3,
};

/* in the child: say what went wrong and end it */
static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "    child: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	fflush(stderr);
	_exit(1);
}

static int cap_last(void)
{
	int last = CAP_LAST_CAP;
	FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "re");

	if (f) {
		if (fscanf(f, "%d", &last) != 1)
			last = CAP_LAST_CAP;
		fclose(f);
	}
	return last;
}

/* is the bounding set exactly @mask (of the first 32), nothing above */
static bool bounding_is(uint32_t mask)
{
	int cap, last = cap_last();

	for (cap = 0; cap <= last; cap++) {
		bool want = cap < 32 && (mask & (1u << cap));

		if ((prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == 1) != want)
			return false;
	}
	return true;
}

/* what torusd must be left with: the two, effective, nothing else */
static void check_kept(uint32_t bounding)
{
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = { 0 };

	if (syscall(SYS_capget, &hdr, d))
		die("capget: %s", strerror(errno));
	if (d[0].effective != KEEP || d[0].permitted != KEEP ||
	    d[0].inheritable || d[1].effective || d[1].permitted ||
	    d[1].inheritable)
		die("left with eff %#x prm %#x inh %#x (high %#x %#x %#x), want eff = prm = %#x",
		    d[0].effective, d[0].permitted, d[0].inheritable,
		    d[1].effective, d[1].permitted, d[1].inheritable, KEEP);
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, CAP_NET_ADMIN, 0, 0) ||
	    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, CAP_NET_RAW, 0, 0))
		die("an ambient capability is left for what we exec");
	if (!bounding_is(bounding))
		die("the bounding set is not %#x alone", bounding);
}

/* run @fn in a child; did it exit 0 */
static bool in_child(void (*fn)(void))
{
	pid_t pid;
	int st;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return false;
	if (!pid) {
		fn();
		_exit(0);
	}
	return waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	       !WEXITSTATUS(st);
}

/* become a user of our own, keeping the capabilities we have */
static void become_user(bool keep)
{
	if (keep && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0))
		die("PR_SET_KEEPCAPS: %s", strerror(errno));
	if (setgroups(0, NULL) || setresgid(DYNUID, DYNUID, DYNUID) ||
	    setresuid(DYNUID, DYNUID, DYNUID))
		die("to uid %d: %s", DYNUID, strerror(errno));
}

/*
 * What systemd (or setpriv) makes of the unit: bounding set and
 * ambient set CAP_NET_ADMIN CAP_NET_RAW, DynamicUser=yes.  There is no
 * CAP_SETPCAP to change the bounding set with, and no need to.
 */
static void as_unit(void)
{
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = { 0 };
	int cap, last = cap_last(), ret;

	for (cap = 0; cap <= last; cap++)
		if ((cap >= 32 || !(KEEP & (1u << cap))) &&
		    prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) && errno != EINVAL)
			die("PR_CAPBSET_DROP %d: %s", cap, strerror(errno));
	become_user(true);
	d[0].permitted = d[0].effective = d[0].inheritable = KEEP;
	if (syscall(SYS_capset, &hdr, d))
		die("capset: %s", strerror(errno));
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_NET_ADMIN, 0, 0) ||
	    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_NET_RAW, 0, 0))
		die("PR_CAP_AMBIENT_RAISE: %s", strerror(errno));
	/* the set-up is what the case claims */
	if (prctl(PR_CAPBSET_DROP, CAP_SYS_ADMIN, 0, 0, 0) != -1 ||
	    errno != EPERM)
		die("CAP_SETPCAP is still there");
	ret = td_caps_drop();
	if (ret)
		die("td_caps_drop: %s", strerror(-ret));
	check_kept(KEEP);
}

/* root with every capability: the rest go, from the bounding set too */
static void as_root(void)
{
	int ret;

	if (bounding_is(KEEP))
		die("the bounding set is already reduced: nothing to show");
	ret = td_caps_drop();
	if (ret)
		die("td_caps_drop: %s", strerror(-ret));
	check_kept(KEEP);
}

/* a user without any capability: nothing to do, and no failure */
static void as_nobody(void)
{
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = { 0 };
	int ret;

	become_user(false);
	ret = td_caps_drop();
	if (ret)
		die("td_caps_drop: %s", strerror(-ret));
	if (syscall(SYS_capget, &hdr, d) || d[0].permitted || d[0].effective)
		die("capabilities out of nothing: prm %#x", d[0].permitted);
}

UNIT_TEST(caps_drop_under_the_unit)
{
	UNIT_CHECK(in_child(as_unit));
}

UNIT_TEST(caps_drop_as_root)
{
	UNIT_CHECK(in_child(as_root));
}

UNIT_TEST(caps_drop_without_caps)
{
	UNIT_CHECK(in_child(as_nobody));
}

static const struct unit_case cases[] = {
	UNIT_CASE(caps_drop_under_the_unit),
	UNIT_CASE(caps_drop_as_root),
	UNIT_CASE(caps_drop_without_caps),
};

int main(void)
{
	size_t i;

	/* CAP_SETPCAP to shape the children's bounding sets with */
	if (geteuid() == 0 && prctl(PR_CAPBSET_READ, CAP_SETPCAP, 0, 0, 0) == 1)
		return unit_run(cases, sizeof(cases) / sizeof(cases[0]));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		printf("SKIP: unit/%s: needs root with CAP_SETPCAP (a child set up with chosen capabilities)\n",
		       cases[i].name);
	return 0;
}
