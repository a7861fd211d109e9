// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * troute_table.c - one node's route to every destination
 *
 * A two-round route can never be shorter than the fabric distance, and
 * reaches it exactly when the intermediate lies on a shortest arc
 * between source and destination on every axis (the box).  The box is
 * searched first, in index order per plan pair; only destinations with
 * no route through the box are searched over every intermediate.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "troute_table.h"

struct search {
	const struct troute_ctx *c;
	const struct troute_planset *ps;
	uint8_t *r0[TROUTE_MAX_PLANS];	/* round 0 from src reaches w */
	unsigned int src, dst;
	unsigned int best_cost, best_pair, best_via;
};

static bool pair_allowed(const struct troute_planset *ps, unsigned int p,
			 unsigned int q)
{
	return p == q || ps->any_pair;
}

/* consider via w for every plan pair, keeping (cost, pair, via) least */
static void consider(struct search *s, unsigned int pair, unsigned int w)
{
	unsigned int n = s->ps->nplans, p = pair / n, q = pair % n, cost;

	if (!s->r0[p][w] || !troute_reach1(s->c, &s->ps->plans[q], w, s->dst))
		return;
	cost = troute_hops(s->c, &s->ps->plans[p], s->src, w) +
	       troute_hops(s->c, &s->ps->plans[q], w, s->dst);
	if (cost < s->best_cost) {
		s->best_cost = cost;
		s->best_pair = pair;
		s->best_via = w;
	}
}

/* per axis: which coordinates lie on a shortest arc from s to d */
static unsigned int make_box(const struct troute_ctx *c, unsigned int s,
			     unsigned int d,
			     uint8_t box[TORUS_MAX_AXES][256])
{
	unsigned int cs[TORUS_MAX_AXES], cd[TORUS_MAX_AXES];
	unsigned int a, k, dist = 0;

	troute_coord(c, s, cs);
	troute_coord(c, d, cd);
	for (a = 0; a < c->f->ndims; a++) {
		unsigned int e = c->f->dims[a], up = (cd[a] + e - cs[a]) % e;

		memset(box[a], 0, e);
		if (!(c->f->wrap & (1u << a))) {
			unsigned int lo = cs[a] < cd[a] ? cs[a] : cd[a];
			unsigned int hi = cs[a] ^ cd[a] ^ lo;

			for (k = lo; k <= hi; k++)
				box[a][k] = 1;
			dist += hi - lo;
			continue;
		}
		if (up <= e - up) /* ties: both arcs are shortest */
			for (k = 0; k <= up; k++)
				box[a][(cs[a] + k) % e] = 1;
		if (e - up <= up)
			for (k = 0; k <= e - up; k++)
				box[a][(cs[a] + e - k) % e] = 1;
		dist += up < e - up ? up : e - up;
	}
	return dist;
}

/*
 * Keep only the positions on axis a that node n reaches (out) or is
 * reached from (in) along a: the first leg of round 0 starts at the
 * source, the last leg of round 1 ends at the destination.  False if
 * none is left.
 */
static bool clip_box(const struct troute_ctx *c, uint8_t *box,
		     unsigned int n, unsigned int a, unsigned int policy,
		     bool in)
{
	unsigned int e = c->f->dims[a], back, ahead, k, pos;
	uint8_t arc[256];
	bool any = false;

	troute_arc(c, n, a, policy, in, &back, &ahead);
	memset(arc, 0, e);
	pos = c->coords[(size_t)n * c->f->ndims + a];
	for (k = 0; k <= back + ahead && k < e; k++)
		arc[(pos + e - back + k) % e] = 1;
	for (k = 0; k < e; k++) {
		box[k] &= arc[k];
		any |= box[k];
	}
	return any;
}

/*
 * The box in index order: rows along axis 0 (the innermost), other axes
 * by odometer.  When round 1 starts along axis 0, a whole row shares the
 * rest of its round-1 path (from the row's point at the destination's
 * coordinate), tested once per row.
 */
static void search_box(struct search *s, unsigned int dist,
		       uint8_t full[TORUS_MAX_AXES][256])
{
	const struct troute_ctx *c = s->c;
	unsigned int pos[TORUS_MAX_AXES], n = s->ps->nplans, pair, a, k;
	unsigned int row[256], nrow, dx;
	uint8_t box[TORUS_MAX_AXES][256];

	dx = c->coords[(size_t)s->dst * c->f->ndims];
	for (pair = 0; pair < n * n; pair++) {
		const struct troute_plan *p0 = &s->ps->plans[pair / n];
		const struct troute_plan *p1 = &s->ps->plans[pair % n];
		unsigned int a0 = p0->order[0];
		unsigned int a1 = p1->order[c->f->ndims - 1];
		bool row_test = p1->order[0] == 0;

		if (!pair_allowed(s->ps, pair / n, pair % n))
			continue;
		for (a = 0; a < c->f->ndims; a++)
			memcpy(box[a], full[a], c->f->dims[a]);
		if (!clip_box(c, box[a0], s->src, a0, p0->policy[a0], false) ||
		    !clip_box(c, box[a1], s->dst, a1, p1->policy[a1], true))
			continue;
		for (nrow = 0, k = 0; k < c->f->dims[0]; k++)
			if (box[0][k])
				row[nrow++] = k;
		for (a = 1; a < c->f->ndims; a++) {
			pos[a] = 0;
			while (!box[a][pos[a]])
				pos[a]++;
		}
		pos[0] = 0;
		for (;;) {
			unsigned int base = troute_index(c, pos);

			if (!row_test ||
			    troute_reach1(c, p1, base + dx, s->dst)) {
				const uint8_t *r0 = s->r0[pair / n] + base;

				for (k = 0; k < nrow; k++) {
					if (!r0[row[k]])
						continue;
					consider(s, pair, base + row[k]);
					if (s->best_cost == dist)
						return;
				}
			}
			for (a = 1; a < c->f->ndims; a++) {
				do
					pos[a]++;
				while (pos[a] < c->f->dims[a] && !box[a][pos[a]]);
				if (pos[a] < c->f->dims[a])
					break;
				pos[a] = 0;
				while (!box[a][pos[a]])
					pos[a]++;
			}
			if (a >= c->f->ndims)
				break;
		}
	}
}

static void search_all(struct search *s)
{
	unsigned int n = s->ps->nplans, pair, w;

	for (pair = 0; pair < n * n; pair++) {
		if (!pair_allowed(s->ps, pair / n, pair % n))
			continue;
		for (w = 0; w < s->c->nnodes; w++) /* lambs forward too */
			consider(s, pair, w);
	}
}

int troute_table(const struct troute_ctx *c, const struct troute_planset *ps,
		 const uint8_t *lamb, unsigned int src,
		 struct troute_route *out)
{
	struct search s = { .c = c, .ps = ps };
	uint8_t box[TORUS_MAX_AXES][256];
	unsigned int p, d, w;
	bool src_ok = troute_live(c, src) && !(lamb && lamb[src]);

	for (p = 0; p < ps->nplans; p++) {
		s.r0[p] = malloc(c->nnodes);
		if (!s.r0[p]) {
			while (p--)
				free(s.r0[p]);
			return -ENOMEM;
		}
		for (w = 0; w < c->nnodes; w++)
			s.r0[p][w] = troute_reach1(c, &ps->plans[p], src, w);
	}
	s.src = src;
	for (d = 0; d < c->nnodes; d++) {
		struct troute_route *r = &out[d];
		unsigned int dist;

		memset(r, 0, sizeof(*r));
		if (d == src) {
			r->kind = src_ok ? TROUTE_SELF : TROUTE_UNREACHABLE;
			continue;
		}
		r->kind = TROUTE_UNREACHABLE;
		if (!src_ok || !troute_live(c, d) || (lamb && lamb[d]))
			continue;
		if (s.r0[0][d]) {
			r->kind = TROUTE_DIRECT;
			r->hops = troute_hops(c, &ps->plans[0], src, d);
			continue;
		}
		s.dst = d;
		s.best_cost = UINT32_MAX;
		dist = make_box(c, src, d, box);
		search_box(&s, dist, box);
		if (s.best_cost != dist) { /* ties: the scan's own order */
			s.best_cost = UINT32_MAX;
			search_all(&s);
		}
		if (s.best_cost == UINT32_MAX)
			continue;
		r->kind = TROUTE_VIA;
		r->plan0 = s.best_pair / ps->nplans;
		r->plan1 = s.best_pair % ps->nplans;
		r->hops = s.best_cost;
		r->via = s.best_via;
	}
	for (p = 0; p < ps->nplans; p++)
		free(s.r0[p]);
	return 0;
}
