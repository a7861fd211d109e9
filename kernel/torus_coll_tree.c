// SPDX-License-Identifier: GPL-2.0
/*
 * The default combining tree: dimension-wise, as Blue Gene's and Tofu's
 * collectives reduce along lines.  A node whose x is not 0 sends to its
 * neighbour towards x = 0 (the shorter way round a ring, "-" on a tie);
 * a node on the x = 0 plane whose y is not 0 sends towards y = 0; and so
 * on; the node at the origin is the root.  Depth: the sum over the axes
 * of extent / 2 on rings, extent - 1 on lines.  The same tree rooted at
 * any node carries a broadcast from it (the _from variants).
 */
#include <linux/torus.h>

#include "torus_coll_tree.h"

/**
 * torus_coll_tree_parent_from - the direction to a node's parent in the
 *	dimension-wise tree rooted at @root
 * @ndims: number of axes
 * @dims: extent per axis
 * @wrap: bit per axis that is a ring
 * @coord: the node's coordinates
 * @root: the root's coordinates
 *
 * The first axis on which the node and the root differ, towards the
 * root: the shorter way round a ring ("-" on a tie).  A broadcast runs
 * down this tree from its root, along the root's line first, then along
 * the lines through it, as the patent pipelines it.
 *
 * Return: a global direction, TORUS_DIR_NONE at the root.
 */
u8 torus_coll_tree_parent_from(unsigned int ndims, const u16 *dims, u8 wrap,
			       const u8 *coord, const u8 *root)
{
	unsigned int axis;

	for (axis = 0; axis < ndims; axis++) {
		unsigned int c = coord[axis], r = root[axis], d = dims[axis];

		if (c == r)
			continue;
		if (!(wrap & (1U << axis)))
			return TORUS_DIR(axis, c > r);
		/* "+" only round a ring, when the wrap cable is closer */
		return TORUS_DIR(axis, (c + d - r) % d <= d / 2);
	}
	return TORUS_DIR_NONE;
}

static const u8 coll_tree_origin[TORUS_MAX_AXES];

/**
 * torus_coll_tree_parent - the direction to a node's parent
 * @ndims: number of axes
 * @dims: extent per axis
 * @wrap: bit per axis that is a ring
 * @coord: the node's coordinates
 *
 * The default tree, rooted at the origin.
 *
 * Return: a global direction, TORUS_DIR_NONE at the root.
 */
u8 torus_coll_tree_parent(unsigned int ndims, const u16 *dims, u8 wrap,
			  const u8 *coord)
{
	return torus_coll_tree_parent_from(ndims, dims, wrap, coord,
					   coll_tree_origin);
}

/* The neighbour in direction @dir: false if there is none (line end). */
static bool coll_tree_neighbor(unsigned int ndims, const u16 *dims, u8 wrap,
			       const u8 *coord, u8 dir, u8 *out)
{
	unsigned int axis = TORUS_DIR_AXIS(dir), i;
	int c = coord[axis] + (TORUS_DIR_NEG(dir) ? -1 : 1);

	if (dims[axis] < 2)
		return false;
	if (c < 0 || c >= dims[axis]) {
		if (!(wrap & (1U << axis)))
			return false;
		c = c < 0 ? dims[axis] - 1 : 0;
	}
	for (i = 0; i < ndims; i++)
		out[i] = coord[i];
	out[axis] = c;
	return true;
}

/**
 * torus_coll_tree_children_from - the directions of a node's children in
 *	the tree rooted at @root
 * @ndims: number of axes
 * @dims: extent per axis
 * @wrap: bit per axis that is a ring
 * @coord: the node's coordinates
 * @root: the root's coordinates
 *
 * A neighbour is a child when its parent direction leads back over the
 * same cable (on a ring of two, both cables join the same two nodes).
 *
 * Return: a bit per global direction.
 */
u32 torus_coll_tree_children_from(unsigned int ndims, const u16 *dims,
				  u8 wrap, const u8 *coord, const u8 *root)
{
	u8 nb[TORUS_MAX_AXES] = { 0 };
	u32 children = 0;
	u8 dir;

	for (dir = 0; dir < 2 * ndims; dir++) {
		if (!coll_tree_neighbor(ndims, dims, wrap, coord, dir, nb))
			continue;
		if (torus_coll_tree_parent_from(ndims, dims, wrap, nb, root) ==
		    TORUS_DIR_OPPOSITE(dir))
			children |= 1U << dir;
	}
	return children;
}

/**
 * torus_coll_tree_children - the directions of a node's children
 * @ndims: number of axes
 * @dims: extent per axis
 * @wrap: bit per axis that is a ring
 * @coord: the node's coordinates
 *
 * The default tree, rooted at the origin.
 *
 * Return: a bit per global direction.
 */
u32 torus_coll_tree_children(unsigned int ndims, const u16 *dims, u8 wrap,
			     const u8 *coord)
{
	return torus_coll_tree_children_from(ndims, dims, wrap, coord,
					     coll_tree_origin);
}
