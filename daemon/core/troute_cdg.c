// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * troute_cdg.c - the channel dependency graph of a plan set, searched
 * for a cycle by an iterative depth-first search (successors computed
 * on the fly: the graph is never stored).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "troute_cdg.h"

struct cdg {
	const struct troute_ctx *c;
	const struct troute_planset *ps;
	struct troute_cdg_opts o;
	unsigned int nclass, ndirs;
	uint32_t nch, maxsucc;
};

static uint32_t chan(const struct cdg *g, unsigned int cls, unsigned int dl,
		     unsigned int node, unsigned int dir)
{
	return ((cls * 2 + dl) * g->c->nnodes + node) * g->ndirs + dir;
}

void troute_cdg_channel(const struct troute_ctx *c, uint32_t ch,
			unsigned int *cls, unsigned int *dateline,
			unsigned int *node, unsigned int *dir)
{
	unsigned int ndirs = 2 * c->f->ndims;

	*dir = ch % ndirs;
	ch /= ndirs;
	*node = ch % c->nnodes;
	ch /= c->nnodes;
	*dateline = ch & 1;
	*cls = ch >> 1;
}

static bool usable(const struct troute_ctx *c, unsigned int n,
		   unsigned int dir)
{
	unsigned int a = TORUS_DIR_AXIS(dir);

	return (TORUS_DIR_NEG(dir) ? c->bwd : c->fwd)
		[(size_t)a * c->nnodes + n] > 0;
}

/* the plan may travel axis a in this direction; longest leg */
static unsigned int max_leg(const struct troute_ctx *c,
			    const struct troute_plan *p, unsigned int a,
			    bool neg)
{
	unsigned int e = c->f->dims[a];

	if (!(c->f->wrap & (1u << a)))
		return e - 1;
	switch (p->policy[a]) {
	case TROUTE_PLUS:
		return neg ? 0 : e - 1;
	case TROUTE_MINUS:
		return neg ? e - 1 : 0;
	default:
		return neg ? (e - 1) / 2 : e / 2;
	}
}

static unsigned int neighbour(const struct troute_ctx *c, unsigned int n,
			      unsigned int a, bool neg, bool *wrapped)
{
	unsigned int e = c->f->dims[a], s = c->stride[a], pos = n / s % e;
	unsigned int to = (pos + (neg ? e - 1 : 1)) % e;

	*wrapped = neg ? pos == 0 : pos == e - 1;
	return n - pos * s + to * s;
}

/* every channel the frame on channel ch may need next */
static uint32_t successors(const struct cdg *g, uint32_t ch, uint32_t *out)
{
	const struct troute_ctx *c = g->c;
	unsigned int k, dl, n, dir, a, p, q, r, i, j, d2, m, dl2;
	uint32_t cnt = 0;
	bool neg, wrapped, ring;

	troute_cdg_channel(c, ch, &k, &dl, &n, &dir);
	a = TORUS_DIR_AXIS(dir);
	neg = TORUS_DIR_NEG(dir);
	ring = c->f->wrap & (1u << a);
	m = neighbour(c, n, a, neg, &wrapped);
	dl2 = g->o.no_dateline ? 0 : dl || (ring && wrapped);
	for (p = 0; p < g->ps->nplans; p++)
		for (r = 0; r < 2; r++) {
			const struct troute_plan *pl = &g->ps->plans[p];
			bool w2;

			if (g->o.cls[p][r] != k || !max_leg(c, pl, a, neg))
				continue;
			/* straight on, never across the wrap a second time */
			neighbour(c, m, a, neg, &w2);
			if (max_leg(c, pl, a, neg) >= 2 && usable(c, m, dir) &&
			    !(dl2 && ring && w2))
				out[cnt++] = chan(g, k, dl2, m, dir);
			/* a turn onto a later axis of the plan */
			for (i = 0; i < c->f->ndims && pl->order[i] != a; i++)
				;
			for (j = i + 1; j < c->f->ndims; j++)
				for (d2 = 0; d2 < 2; d2++) {
					unsigned int a2 = pl->order[j];
					unsigned int nd = TORUS_DIR(a2, d2);

					if (max_leg(c, pl, a2, d2) &&
					    usable(c, m, nd))
						out[cnt++] = chan(g, k, 0, m, nd);
				}
			if (r)
				continue;
			/* round 0 ends: round 1 of an allowed plan begins */
			for (q = 0; q < g->ps->nplans; q++) {
				if (q != p && !g->ps->any_pair)
					continue;
				for (d2 = 0; d2 < g->ndirs; d2++)
					if (max_leg(c, &g->ps->plans[q],
						    TORUS_DIR_AXIS(d2),
						    TORUS_DIR_NEG(d2)) &&
					    usable(c, m, d2))
						out[cnt++] = chan(g, g->o.cls[q][1],
								  0, m, d2);
			}
		}
	return cnt;
}

struct frame {
	uint32_t ch, n, i;
};

int troute_cdg_check(const struct troute_ctx *c,
		     const struct troute_planset *ps,
		     const struct troute_cdg_opts *o,
		     struct troute_cdg_result *r)
{
	struct cdg g = { .c = c, .ps = ps };
	uint32_t ch, depth = 0, cap = 256, p, q, *succ = NULL;
	struct frame *st = NULL;
	uint8_t *color;
	int err = -ENOMEM;

	memset(r, 0, sizeof(*r));
	if (o) {
		g.o = *o;
	} else {
		for (p = 0; p < ps->nplans; p++)
			for (q = 0; q < 2; q++)
				g.o.cls[p][q] = p * 2 + q;
	}
	for (p = 0; p < ps->nplans; p++)
		for (q = 0; q < 2; q++)
			if (g.o.cls[p][q] + 1u > g.nclass)
				g.nclass = g.o.cls[p][q] + 1;
	g.ndirs = 2 * c->f->ndims;
	g.nch = g.nclass * 2 * c->nnodes * g.ndirs;
	/* straight + turns per (plan, round) sharing a class, + round 1 */
	g.maxsucc = ps->nplans * 2 * (1 + g.ndirs + ps->nplans * g.ndirs);
	color = calloc(g.nch, 1);
	st = malloc(sizeof(*st) * cap);
	succ = malloc(sizeof(*succ) * cap * g.maxsucc);
	if (!color || !st || !succ)
		goto out;
	r->acyclic = true;
	for (ch = 0; ch < g.nch; ch++) {
		unsigned int k, dl, n, dir;

		troute_cdg_channel(c, ch, &k, &dl, &n, &dir);
		if (!usable(c, n, dir))
			continue;
		r->channels++;
		if (color[ch])
			continue;
		color[ch] = 1;
		st[0].ch = ch;
		st[0].n = successors(&g, ch, succ);
		st[0].i = 0;
		r->deps += st[0].n;
		depth = 1;
		while (depth) {
			struct frame *f = &st[depth - 1];
			uint32_t next, *fs = succ + (size_t)(depth - 1) * g.maxsucc;

			if (f->i == f->n) {
				color[f->ch] = 2;
				depth--;
				continue;
			}
			next = fs[f->i++];
			if (color[next] == 2)
				continue;
			if (color[next] == 1) { /* a cycle: next .. top */
				uint32_t d = depth;

				while (d > 0 && st[d - 1].ch != next)
					d--;
				for (; d > 0 && d <= depth &&
				     r->cycle_len < TROUTE_CDG_CYCLE_MAX; d++)
					r->cycle[r->cycle_len++] = st[d - 1].ch;
				r->acyclic = false;
				err = 0;
				goto out;
			}
			if (depth == cap) {
				void *ns = realloc(st, sizeof(*st) * cap * 2);
				void *nx = ns ? realloc(succ, sizeof(*succ) *
							cap * 2 * g.maxsucc) : NULL;

				if (ns)
					st = ns;
				if (!nx)
					goto out;
				succ = nx;
				cap *= 2;
			}
			color[next] = 1;
			st[depth].ch = next;
			st[depth].n = successors(&g, next,
						 succ + (size_t)depth * g.maxsucc);
			st[depth].i = 0;
			r->deps += st[depth].n;
			depth++;
		}
	}
	err = 0;
out:
	free(color);
	free(st);
	free(succ);
	return err;
}
