/* SPDX-License-Identifier: GPL-2.0 */
/* kernel <linux/hash.h> for the fuzz harnesses: see ../kshim.h */
#ifndef TORUS_KSHIM_LINUX_HASH_H
#define TORUS_KSHIM_LINUX_HASH_H
#include "../kshim.h"
#endif
