/* SPDX-License-Identifier: GPL-2.0 */
/* kernel <linux/string.h> for the fuzz harnesses: see ../kshim.h */
#ifndef TORUS_KSHIM_LINUX_STRING_H
#define TORUS_KSHIM_LINUX_STRING_H
#include "../kshim.h"
#endif
