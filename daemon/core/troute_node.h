/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * troute_node.h - the route set one node installs, from a fault set:
 * the plans (the fabric's freedom), the lamb set, the node's own table
 * and the deadlock check of the whole set, in one pure call (what
 * torusd runs when the link state changes), and the hop-by-hop path of
 * one of its routes (what "torus route path" prints).
 */
#ifndef TORUS_TROUTE_NODE_H
#define TORUS_TROUTE_NODE_H

#include "troute_cdg.h"
#include "troute_lamb.h"
#include "troute_table.h"

/**
 * struct troute_node_set - one node's routes under one fault set
 * @f: the fault set (its arrays are the set's own copies)
 * @c: reach over @f, kept for paths
 * @ps: the plan set (plan 0 DOR)
 * @self: the node's index
 * @lamb: [nnodes] the lamb set, the same on every node
 * @table: [nnodes] the node's route to every destination
 * @lambs: lambs in @lamb
 * @exceptions: TROUTE_VIA entries of @table (what the kernel holds)
 * @unreachable: live non-lamb destinations without a route
 * @dead: dead nodes in the fault set
 * @cuts: cut cables
 * @lamb_stats: how the lamb set was found
 * @cdg: the deadlock verdict; when !cdg.acyclic the set must not be
 *	installed
 *
 * @c points at @f: a set is not to be copied or moved once built.
 */
struct troute_node_set {
	struct troute_faults f;
	struct troute_ctx c;
	struct troute_planset ps;
	unsigned int self;
	uint8_t *lamb;
	struct troute_route *table;
	unsigned int lambs, exceptions, unreachable, dead, cuts;
	struct troute_lamb_stats lamb_stats;
	struct troute_cdg_result cdg;
};

/*
 * Build the set of node @self under @f (copied): plans, lambs, table,
 * channel dependency graph (with @cdg_opts, NULL: the fabric's
 * classes).  0 (also for a cyclic set: see s->cdg.acyclic) or -errno;
 * free with troute_node_free() either way.
 */
int troute_node_build(const struct troute_faults *f, unsigned int self,
		      const struct troute_cdg_opts *cdg_opts,
		      struct troute_node_set *s);
void troute_node_free(struct troute_node_set *s);
/* the same without the deadlock check (s->cdg left zero) */
int troute_node_routes(const struct troute_faults *f, unsigned int self,
		       struct troute_node_set *s);
/*
 * The deadlock check of the fault-free fabric of @f's geometry under
 * the free plan set (@o as in troute_node_build(), NULL: the fabric's
 * classes).  The channel dependency graph of any fault set is a
 * subgraph of it (faults only remove channels and their dependencies,
 * troute_cdg.c), so an acyclic verdict here proves every fault set's
 * routes deadlock-free: a daemon checks once per geometry.
 */
int troute_cdg_fault_free(const struct troute_faults *f,
			  const struct troute_cdg_opts *o,
			  struct troute_cdg_result *r);

/**
 * struct troute_hop - one hop of a path: the frame leaves @node by @dir
 * @node: node index
 * @dir: global direction (TORUS_DIR(axis, neg))
 * @round: 0 towards the intermediate (or the only round), 1 after it
 * @plan: the plan of the round
 * @vc: the virtual channel of the hop, TROUTE_VC(plan, round, dateline)
 */
struct troute_hop {
	uint32_t node;
	uint8_t dir;
	uint8_t round;
	uint8_t plan;
	uint8_t vc;
};

/* the longest path a route can have: two rounds, each under one ring */
static inline unsigned int troute_path_max(const struct troute_faults *f)
{
	unsigned int a, n = 0;

	for (a = 0; a < f->ndims; a++)
		n += f->dims[a];
	return 2 * n;
}

/*
 * The hops from s->self to @dst as the kernel forwards the route of
 * s->table[dst] (troute_path_max() entries at most in @hops): their
 * number, 0 for the node itself, -EHOSTUNREACH if it has no route.
 */
int troute_node_path(const struct troute_node_set *s, unsigned int dst,
		     struct troute_hop *hops, unsigned int max);

#endif /* TORUS_TROUTE_NODE_H */
