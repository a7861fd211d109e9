/* SPDX-License-Identifier: GPL-2.0 */
/* kernel <linux/netdevice.h> for the fuzz harnesses: see ../kshim.h */
#ifndef TORUS_KSHIM_LINUX_NETDEVICE_H
#define TORUS_KSHIM_LINUX_NETDEVICE_H
#include "../kshim.h"
#endif
