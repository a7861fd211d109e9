/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * troute_lamb.h - the lamb set: a deterministic function of the faults
 */
#ifndef TORUS_TROUTE_LAMB_H
#define TORUS_TROUTE_LAMB_H

#include "troute_verify.h"

/**
 * struct troute_lamb_stats - how the lamb set was found
 * @lambs: nodes made lambs
 * @bad_pairs: ordered live pairs no plan pair connects (before lambs)
 * @edges: the conflict graph's edges (class pairs in the paper's model,
 *	node pairs otherwise)
 * @cover_weight: weight of the minimum vertex cover of the class graph
 *	(the max flow; equal to the LP bound, the graph being bipartite);
 *	node model: the greedy cover's size
 * @lower_bound: class model: the LP bound of the class cover (equal to
 *	@cover_weight; a lamb set can be smaller only by nodes two chosen
 *	classes share); node model: a maximal matching's size
 */
struct troute_lamb_stats {
	uint32_t lambs;
	uint64_t bad_pairs;
	uint32_t edges;
	uint32_t cover_weight;
	uint32_t lower_bound;
};

/*
 * lamb[n] = 1 for the lambs of the fault set under the plan set (lamb
 * has c->nnodes entries).  One plan: the paper's model, solved as a
 * minimum-weight vertex cover of the bipartite graph of source and
 * destination classes that cannot meet (max flow, min cut), then
 * classes made redundant by the nodes they share are dropped.  More
 * plans: the few node pairs left are covered node by node.
 */
int troute_lambs(const struct troute_ctx *c, struct troute_sets *s,
		 uint8_t *lamb, struct troute_lamb_stats *st);

#endif /* TORUS_TROUTE_LAMB_H */
