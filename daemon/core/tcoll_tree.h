/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tcoll_tree - the combining tree of torus.ko's collectives over the
 * live nodes of a fault set (sans-I/O, shared by torusd and torus-sim)
 *
 * Every node computes the same tree from the same fault set, so the
 * parent and children it installs (TORUS_CMD_COLL_TREE_SET) agree with
 * its neighbours' without coordination.  Without faults the tree is the
 * kernel's default one (kernel/torus_coll_tree.c, built into the core
 * by tcoll_default.c: along x to x = 0, then along y to y = 0, ..., the
 * shorter way round rings); with faults
 * it is a shortest-path tree over live members and uncut cables, each
 * node's parent the default one when that neighbour is a member one hop
 * nearer the root, else the lowest such direction.
 */
#ifndef TORUS_TCOLL_TREE_H
#define TORUS_TCOLL_TREE_H

#include <stdbool.h>
#include <stdint.h>

#include "troute.h"

/**
 * struct tcoll_tree - the combining tree
 * @nnodes: nodes of the fabric (index as troute: x fastest)
 * @parent: per node, the global direction of its parent;
 *	TORUS_DIR_NONE at a root and at a node that is no member
 * @children: per node, a bit per global direction of a child
 * @depth: per node, hops to its root (0 at a root and at non-members)
 * @members: live nodes that take part (not dead, not skipped)
 * @roots: trees: one per part of the fabric the faults cut apart
 * @root: the first tree's root (the origin while it is a member, else
 *	the member with the lowest index)
 * @max_depth: the deepest member
 * @max_fan_in: the most children of one node
 */
struct tcoll_tree {
	unsigned int nnodes;
	uint8_t *parent;
	uint16_t *children;
	uint16_t *depth;
	unsigned int members, roots, root, max_depth, max_fan_in;
};

/*
 * The tree of @f's live nodes, less those with @skip[node] set (lambs,
 * which cannot join; NULL: none).  0 or -ENOMEM; free with
 * tcoll_tree_free() either way.
 */
int tcoll_tree_build(const struct troute_faults *f, const uint8_t *skip,
		     struct tcoll_tree *t);
void tcoll_tree_free(struct tcoll_tree *t);

#endif /* TORUS_TCOLL_TREE_H */
