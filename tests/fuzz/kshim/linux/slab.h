/* SPDX-License-Identifier: GPL-2.0 */
/* kernel <linux/slab.h> for the fuzz harnesses: see ../kshim.h */
#ifndef TORUS_KSHIM_LINUX_SLAB_H
#define TORUS_KSHIM_LINUX_SLAB_H
#include "../kshim.h"
#endif
