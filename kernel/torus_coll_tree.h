/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The default combining tree of collectives, from a node's coordinates
 * and the fabric's extents.  Pure C: built into torus.ko and into the
 * torus tool (torus coll tree set ... auto), so both compute one tree.
 */
#ifndef _TORUS_COLL_TREE_H
#define _TORUS_COLL_TREE_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include "ktypes.h"	/* lib/ktypes.h */
#endif

u8 torus_coll_tree_parent(unsigned int ndims, const u16 *dims, u8 wrap,
			  const u8 *coord);
u32 torus_coll_tree_children(unsigned int ndims, const u16 *dims, u8 wrap,
			     const u8 *coord);
u8 torus_coll_tree_parent_from(unsigned int ndims, const u16 *dims, u8 wrap,
			       const u8 *coord, const u8 *root);
u32 torus_coll_tree_children_from(unsigned int ndims, const u16 *dims,
				  u8 wrap, const u8 *coord, const u8 *root);

#endif /* _TORUS_COLL_TREE_H */
