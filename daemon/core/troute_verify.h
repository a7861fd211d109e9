/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * troute_verify.h - exact two-round reachability of every survivor pair
 */
#ifndef TORUS_TROUTE_VERIFY_H
#define TORUS_TROUTE_VERIFY_H

#include "troute_class.h"

/**
 * struct troute_sets - the reach classes of every plan of a plan set
 * @ps: the plan set
 * @src, @dst: source and destination classes per plan
 * @memo: answers of plan pairs other than (0, 0) per class pair
 */
struct troute_sets {
	struct troute_planset ps;
	struct troute_classes src[TROUTE_MAX_PLANS];
	struct troute_classes dst[TROUTE_MAX_PLANS];
	uint64_t *memo;
	size_t memo_cap, memo_used;
};

int troute_sets_init(struct troute_sets *s, const struct troute_ctx *c,
		     const struct troute_planset *ps);
void troute_sets_free(struct troute_sets *s);
/* u reaches v with plan p then plan q (through any live node) */
bool troute_two_rounds(const struct troute_ctx *c, struct troute_sets *s,
		       unsigned int p, unsigned int q, unsigned int u,
		       unsigned int v);
/* u reaches v with some plan pair of the set */
bool troute_pair_ok(const struct troute_ctx *c, struct troute_sets *s,
		    unsigned int u, unsigned int v);

/**
 * struct troute_verdict - the verifier's counts over ordered pairs
 * @survivors: live nodes that are not lambs
 * @pairs: ordered survivor pairs, survivors * (survivors - 1)
 * @one_round: pairs plan 0 connects in one round (no exception needed)
 * @two_round: the other pairs some plan pair connects in two rounds
 * @bad: pairs the wiring connects but no plan pair does
 * @disconnected: pairs the wiring does not connect at all (not bad: no
 *	lamb set helps them; the routes say unreachable)
 * @bad_u, @bad_v: the first bad pair found (when @bad)
 */
struct troute_verdict {
	uint64_t survivors, pairs, one_round, two_round, bad, disconnected;
	unsigned int bad_u, bad_v;
};

typedef void (*troute_bad_fn)(void *arg, unsigned int u, unsigned int v);

/*
 * the counts, and fn(arg, u, v) for every bad pair (fn may be NULL); with
 * fn and no lamb set only @bad is counted (the lamb search's question)
 */
int troute_bad_pairs(const struct troute_ctx *c, struct troute_sets *s,
		     const uint8_t *lamb, troute_bad_fn fn, void *arg,
		     struct troute_verdict *v);
/* the same with the sets built and freed inside */
int troute_verify(const struct troute_ctx *c,
		  const struct troute_planset *ps, const uint8_t *lamb,
		  struct troute_verdict *v);

#endif /* TORUS_TROUTE_VERIFY_H */
