// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bound.c - the paper's lower bound on orientation success (section 3.1)
 *
 * Nodes fail with probability q (p = 1 - q alive), face cables work with
 * probability r, x = 1 - r p^2 (Eq. 9).  For two N x N x N blocks sharing
 * an N x N face:
 *
 *	LB(N) = (1 - x^(N^2 - 6N + 7)) (1 - x^(3N - 2))	(Eq. 6)
 *	FTLB  = LB^k, k inter-block faces			(Eq. 7)
 *
 * and for Blue Gene/L (32x32x64 of 8x8x8 midplanes, applied "hierarchically")
 *
 *	LB = ((1 - x^23)(1 - x^23))^12 ((1 - x^167)(1 - x^46))^20	(Eq. 8)
 *
 * as printed (Eq. 6 for N = 8 gives exponents 23 and 22, for N = 16
 * 167 and 46).  The bounds are within 1e-8 or so of 1, so 1 - bound is
 * computed as -expm1(sum of log1p(-x^e)) to keep its digits.
 */
#include <math.h>
#include <string.h>
#include "sim.h"

static double log_face(double x, unsigned int n)
{
	double e1 = (double)n * n - 6.0 * n + 7.0, e2 = 3.0 * n - 2.0;

	return log1p(-pow(x, e1)) + log1p(-pow(x, e2));
}

void sim_bound(const struct sim_opts *o, uint32_t nfaces, struct sim_bound *b)
{
	double p = 1.0 - o->node_fail, r = 1.0 - o->link_fail, l;
	unsigned int a;

	memset(b, 0, sizeof(*b));
	b->x = 1.0 - r * p * p;
	b->k = nfaces;
	if (!o->blocks || o->ndims != 3 || !nfaces)
		return;
	for (a = 1; a < 3; a++)
		if (o->block[a] != o->block[0])
			return;
	b->n = o->block[0];
	/*
	 * Eq. 6 counts satisfying quadruples on a face: its first exponent,
	 * N^2 - 6N + 7, is positive only from N = 5 on (-1, -2, -1 for
	 * N = 2, 3, 4, where x^e > 1 and the log is NaN).  Smaller blocks
	 * have no bound: it is null in the JSON.
	 */
	if (b->n < SIM_BOUND_MIN_N)
		return;
	b->have = true;
	l = log_face(b->x, b->n);
	b->lb_face = exp(l);
	b->lb = exp(l * b->k);
	b->lb_fail = -expm1(l * b->k);

	if (o->dims[0] == 32 && o->dims[1] == 32 && o->dims[2] == 64 &&
	    b->n == 8) {
		l = 12 * 2 * log1p(-pow(b->x, 23)) +
		    20 * (log1p(-pow(b->x, 167)) + log1p(-pow(b->x, 46)));
		b->have_eq8 = true;
		b->eq8 = exp(l);
		b->eq8_fail = -expm1(l);
	}
}
