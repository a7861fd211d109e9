/* SPDX-License-Identifier: GPL-2.0 */
/* kernel <linux/sort.h> for the fuzz harnesses: see ../kshim.h */
#ifndef TORUS_KSHIM_LINUX_SORT_H
#define TORUS_KSHIM_LINUX_SORT_H
#include "../kshim.h"

/* the kernel's sort() with the default swap is qsort() */
static inline void sort(void *base, size_t num, size_t size,
			int (*cmp)(const void *, const void *),
			void (*swap)(void *, void *, int))
{
	(void)swap;
	qsort(base, num, size, cmp);
}
#endif
