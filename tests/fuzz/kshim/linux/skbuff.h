/* SPDX-License-Identifier: GPL-2.0 */
/* kernel <linux/skbuff.h> for the fuzz harnesses: see ../kshim.h */
#ifndef TORUS_KSHIM_LINUX_SKBUFF_H
#define TORUS_KSHIM_LINUX_SKBUFF_H
#include "../kshim.h"
#endif
