/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * troute_table.h - one node's route to every destination
 */
#ifndef TORUS_TROUTE_TABLE_H
#define TORUS_TROUTE_TABLE_H

#include "troute_verify.h"

enum troute_kind {
	TROUTE_SELF,		/* the destination is the source */
	TROUTE_DIRECT,		/* plan 0 in one round: no exception */
	TROUTE_VIA,		/* plan0 to via, then plan1 to the destination */
	TROUTE_UNREACHABLE,	/* dead, a lamb, or not connected */
};

/**
 * struct troute_route - what torusd installs as an exception
 * @kind: enum troute_kind
 * @plan0: plan of round 0 (vc TROUTE_VC(plan0, 0, dateline))
 * @plan1: plan of round 1 (vc TROUTE_VC(plan1, 1, dateline))
 * @hops: total hops
 * @via: the round-0 intermediate (TROUTE_VIA)
 */
struct troute_route {
	uint8_t kind;
	uint8_t plan0;
	uint8_t plan1;
	uint16_t hops;
	uint32_t via;
};

/*
 * out[d] for every node d, from source src; lamb may be NULL.  One round
 * of plan 0 is preferred, then the fewest hops, then the lowest plan
 * pair (plan0 * nplans + plan1), then the lowest via index.
 */
int troute_table(const struct troute_ctx *c, const struct troute_planset *ps,
		 const uint8_t *lamb, unsigned int src,
		 struct troute_route *out);

#endif /* TORUS_TROUTE_TABLE_H */
