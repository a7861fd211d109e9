/* SPDX-License-Identifier: GPL-2.0 */
/* kernel <linux/u64_stats_sync.h> for the fuzz harnesses: see ../kshim.h */
#ifndef TORUS_KSHIM_LINUX_U64_STATS_SYNC_H
#define TORUS_KSHIM_LINUX_U64_STATS_SYNC_H
#include "../kshim.h"
#endif
