/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * troute: fault-tolerant route computation of the sans-I/O core,
 * after Ho & Stockmeyer's lambs: every survivor reaches every survivor in
 * at most two rounds of dimension-ordered routing through an intermediate;
 * lambs are live nodes that forward but are never endpoints.
 *
 * Pure functions of (geometry, fault set): no sockets, clocks or globals,
 * so every node computes the same lamb set and torus-sim reproduces it.
 * Working memory is allocated and freed inside each call.
 *
 * Files, by concern:
 *	troute.c	geometry, per-axis reach, one-round test, plans
 *	troute_class.c	reach classes and their node bitsets (two rounds)
 *	troute_verify.c	exact all-pairs verifier of a lamb set
 *	troute_lamb.c	lamb selection (min cut + overlap correction)
 *	troute_flow.c	max flow (Dinic) for the min cut
 *	troute_table.c	one node's route to every destination
 *	troute_cdg.c	channel dependency graph: deadlock freedom
 */
#ifndef TORUS_TROUTE_H
#define TORUS_TROUTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/torus.h>

/**
 * struct troute_faults - the input: geometry and fault set
 * @ndims: number of axes
 * @dims: extent per axis (1..255)
 * @wrap: bit per axis: the axis is a ring (torus), else a line (mesh)
 * @dead: one byte per node, nonzero: the node is dead.  Node index =
 *	x + dims[0] * (y + dims[1] * (z + ...)).
 * @cut: one u16 per node, bit TORUS_DIR(axis, neg) set when the cable
 *	leaving the node in that global direction is cut; set on both ends
 *
 * Filled by the link-state database (tcore_ls) or by torus-sim; this
 * shape is a contract: do not change it.
 */
struct troute_faults {
	unsigned int ndims;
	unsigned int dims[TORUS_MAX_AXES];
	unsigned int wrap;
	const uint8_t *dead;
	const uint16_t *cut;
};

/* the number of nodes: the product of the dims */
unsigned int troute_nnodes(const struct troute_faults *f);
/* the same ndims, dims and wrap (the arrays not compared) */
bool troute_same_geom(const struct troute_faults *a,
		      const struct troute_faults *b);
/* the same geometry and the same dead nodes and cut cables */
bool troute_same_faults(const struct troute_faults *a,
			const struct troute_faults *b);

/* direction policy of a plan on a ring axis (a line has only one way) */
enum troute_policy {
	TROUTE_SHORTEST,	/* as torus_dor_next_dir(): ties go "+" */
	TROUTE_PLUS,		/* always "+" around the ring */
	TROUTE_MINUS,		/* always "-" around the ring */
};

/**
 * struct troute_plan - one round of dimension-ordered routing
 * @order: the axes in the order they are corrected
 * @policy: enum troute_policy per axis (indexed by axis, not by step)
 */
struct troute_plan {
	uint8_t order[TORUS_MAX_AXES];
	uint8_t policy[TORUS_MAX_AXES];
};

#define TROUTE_MAX_PLANS	4

/**
 * DOC: virtual-channel classes
 *
 * A frame travels in round 0 (source to intermediate, or the only round)
 * and round 1 (intermediate to destination), each round with one plan.
 * Its virtual channel on every cable is
 *
 *	vc = plan * 4 + round * 2 + dateline
 *
 * where plan is the index of the round's plan in the plan set (0 is the
 * fabric's DOR, ascending axes, shortest way), round is 0 or 1, and
 * dateline is 1 once the frame has crossed the wrap cable (from
 * coordinate dims-1 to 0 or back) of the ring it is travelling on in
 * this round; it is reset to 0 when the frame turns onto another axis
 * and at the start of round 1.  Each (plan, round) class is plain DOR,
 * acyclic with the dateline; classes are ordered by round, so any pair
 * of plans may be combined (troute_cdg.c proves it per route set).
 */
#define TROUTE_VC(plan, round, dateline) \
	((uint8_t)((plan) * 4 + (round) * 2 + ((dateline) ? 1 : 0)))
#define TROUTE_NVC(nplans)	((nplans) * 4)

/**
 * struct troute_planset - the plans a pair may use
 * @nplans: 1 in the paper's model (plan 0 both rounds)
 * @plans: plan 0 must be the fabric's DOR
 * @any_pair: a pair may take any plan in round 0 and any in round 1;
 *	false: the same plan both rounds
 */
struct troute_planset {
	unsigned int nplans;
	struct troute_plan plans[TROUTE_MAX_PLANS];
	bool any_pair;
};

/* the fabric's DOR: ascending axes, shortest way */
void troute_plan_dor(const struct troute_faults *f, struct troute_plan *p);
/* the paper's model: one plan (DOR) both rounds */
void troute_planset_paper(const struct troute_faults *f,
			  struct troute_planset *ps);
/* the fabric's freedom: see the comment in troute.c for the choice */
void troute_planset_free(const struct troute_faults *f,
			 struct troute_planset *ps);

/**
 * struct troute_ctx - precomputed per-node, per-axis reach
 * @f: the input (arrays not copied: keep them alive)
 * @nnodes: product of dims
 * @stride: index step per axis
 * @fwd: steps a frame can make from the node in the "+" direction of
 *	each axis through live nodes and uncut cables (dims-1 at most)
 * @bwd: the same in the "-" direction
 * @coords: [nnodes][ndims] coordinates of every node (no divisions in
 *	the inner loops)
 * @comp: [nnodes] connected component of each live node over usable
 *	cables (the lowest index in it); pairs the wiring does not connect
 *	are not the lambs' business
 */
struct troute_ctx {
	const struct troute_faults *f;
	unsigned int nnodes;
	unsigned int stride[TORUS_MAX_AXES];
	uint8_t *fwd;
	uint8_t *bwd;
	uint8_t *coords;
	uint32_t *comp;
};

int troute_ctx_init(struct troute_ctx *c, const struct troute_faults *f);
void troute_ctx_free(struct troute_ctx *c);
void troute_coord(const struct troute_ctx *c, unsigned int node,
		  unsigned int *coord);
unsigned int troute_index(const struct troute_ctx *c,
			  const unsigned int *coord);
/* the wiring connects u and v (both live) */
static inline bool troute_connected(const struct troute_ctx *c,
				    unsigned int u, unsigned int v)
{
	return c->comp[u] == c->comp[v];
}

static inline bool troute_live(const struct troute_ctx *c, unsigned int n)
{
	return !c->f->dead[n];
}

/*
 * signed steps from coordinate s to d on axis a under @policy (+: the
 * "+" direction), whether the cables are usable or not
 */
int troute_leg(const struct troute_ctx *c, unsigned int a,
	       unsigned int policy, unsigned int s, unsigned int d);
/* u reaches w in one round of plan p (both live) */
bool troute_reach1(const struct troute_ctx *c, const struct troute_plan *p,
		   unsigned int u, unsigned int w);
/* hops of plan p's path from u to w (whether usable or not) */
unsigned int troute_hops(const struct troute_ctx *c,
			 const struct troute_plan *p, unsigned int u,
			 unsigned int w);

/*
 * The arc of coordinates on node n's line along @axis that a frame
 * reaches leaving n (out) or that reach n (in) under @policy: positions
 * coord - back .. coord + ahead (mod dims on a ring).
 */
void troute_arc(const struct troute_ctx *c, unsigned int n,
		unsigned int axis, unsigned int policy, bool in,
		unsigned int *back, unsigned int *ahead);

#endif /* TORUS_TROUTE_H */
