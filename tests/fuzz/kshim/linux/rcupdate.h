/* SPDX-License-Identifier: GPL-2.0 */
/* kernel <linux/rcupdate.h> for the fuzz harnesses: see ../kshim.h */
#ifndef TORUS_KSHIM_LINUX_RCUPDATE_H
#define TORUS_KSHIM_LINUX_RCUPDATE_H
#include "../kshim.h"
#endif
