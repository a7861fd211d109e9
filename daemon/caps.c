// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * caps.c - keep only CAP_NET_ADMIN (generic netlink updates) and
 * CAP_NET_RAW (packet sockets for ports that appear later), without
 * libcap: two raw system calls and the bounding set.
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

	f = fopen("/proc/sys/kernel/cap_last_cap", "re");
	if (f) {
		if (fscanf(f, "%d", &last) != 1)
			last = CAP_LAST_CAP;
		fclose(f);
	}
	return last;
}

int td_caps_drop(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	int cap, last = cap_last();

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	if (!data[0].permitted && !data[1].permitted)
		return 0;	/* nothing to drop */

	/* no child of ours (there are none) could regain them */
	for (cap = 0; cap <= last; cap++) {
		if (cap < 32 && (KEEP & (1u << cap)))
			continue;
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) && errno != EINVAL)
			return -errno;	/* EPERM without CAP_SETPCAP */
	}
	data[0].permitted &= KEEP;
	data[0].effective = data[0].permitted;
	data[0].inheritable = 0;
	data[1].permitted = data[1].effective = data[1].inheritable = 0;
	if (syscall(SYS_capset, &hdr, data))
		return -errno;
	return 0;
}
