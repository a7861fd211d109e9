// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * caps.c - keep only CAP_NET_ADMIN (generic netlink updates) and
 * CAP_NET_RAW (packet sockets for ports that appear later), without
 * libcap: two raw system calls, the bounding set and the ambient set.
 *
 * Under torusd@.service the daemon runs as a dynamic user with just
 * those two, ambient, and no CAP_SETPCAP: the bounding set is already
 * the unit's and cannot be touched, and nothing is left to warn about.
 * Started by root by hand, it has them all and gives the rest up.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/capability.h>

#include "caps.h"

#define KEEP	((1u << CAP_NET_ADMIN) | (1u << CAP_NET_RAW))

static int cap_last(void)
{
	int last = CAP_LAST_CAP;
	FILE *f;

	/* only read: fine under ProtectKernelTunables= */
	f = fopen("/proc/sys/kernel/cap_last_cap", "re");
	if (f) {
		if (fscanf(f, "%d", &last) != 1)
			last = CAP_LAST_CAP;
		fclose(f);
	}
	return last;
}

/*
 * No child of ours (there are none) could regain the others.  Needs
 * CAP_SETPCAP, which the unit does not give: without it the bounding
 * set stays as whoever started us left it, and that is no failure.
 */
static void bounding_drop(const struct __user_cap_data_struct *data)
{
	int cap, last = cap_last();

	if (!(data[0].effective & (1u << CAP_SETPCAP)))
		return;
	for (cap = 0; cap <= last; cap++) {
		if (cap < 32 && (KEEP & (1u << cap)))
			continue;
		/* EINVAL: a capability this kernel does not know */
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) && errno == EPERM)
			return;
	}
}

int td_caps_drop(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	if (!data[0].permitted && !data[1].permitted)
		return 0;	/* nothing to drop: no ambient set either */

	bounding_drop(data);
	data[0].permitted &= KEEP;
	data[0].effective = data[0].permitted;
	data[0].inheritable = 0;
	data[1].permitted = data[1].effective = data[1].inheritable = 0;
	if (syscall(SYS_capset, &hdr, data))
		return -errno;
	/*
	 * An empty inheritable set already empties the ambient one (it
	 * is never more than permitted and inheritable); said outright,
	 * so that nothing we exec gets a capability.  EINVAL: a kernel
	 * older than ambient capabilities.
	 */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) &&
	    errno != EINVAL)
		return -errno;
	return 0;
}
