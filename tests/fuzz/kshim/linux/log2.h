/* SPDX-License-Identifier: GPL-2.0 */
/* kernel <linux/log2.h> for the fuzz harnesses: see ../kshim.h */
#ifndef TORUS_KSHIM_LINUX_LOG2_H
#define TORUS_KSHIM_LINUX_LOG2_H
#include "../kshim.h"
#endif
