/* SPDX-License-Identifier: GPL-2.0 */
/* kernel <linux/bsearch.h> for the fuzz harnesses: see ../kshim.h */
#ifndef TORUS_KSHIM_LINUX_BSEARCH_H
#define TORUS_KSHIM_LINUX_BSEARCH_H
#include "../kshim.h"
#endif
