// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * troute.c - geometry, per-axis reach and the one-round test
 *
 * Everything else is built on two numbers per node and axis: how far a
 * frame leaving the node can travel in the "+" and in the "-" direction
 * through live nodes and uncut cables.  One round of a plan is then
 * checked in O(axes), and the arc of coordinates a node reaches (or is
 * reached from) along one axis is a clipped interval.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "troute.h"

unsigned int troute_nnodes(const struct troute_faults *f)
{
	unsigned int a, n = 1;

	for (a = 0; a < f->ndims; a++)
		n *= f->dims[a];
	return n;
}

bool troute_same_geom(const struct troute_faults *a,
		      const struct troute_faults *b)
{
	return a->ndims == b->ndims && a->wrap == b->wrap &&
	       !memcmp(a->dims, b->dims, sizeof(a->dims));
}

bool troute_same_faults(const struct troute_faults *a,
			const struct troute_faults *b)
{
	unsigned int nnodes = troute_nnodes(a);

	return troute_same_geom(a, b) &&
	       !memcmp(a->dead, b->dead, nnodes) &&
	       !memcmp(a->cut, b->cut, nnodes * sizeof(*a->cut));
}

void troute_plan_dor(const struct troute_faults *f, struct troute_plan *p)
{
	unsigned int a;

	memset(p, 0, sizeof(*p));
	for (a = 0; a < f->ndims; a++) {
		p->order[a] = a;
		p->policy[a] = TROUTE_SHORTEST;
	}
}

void troute_planset_paper(const struct troute_faults *f,
			  struct troute_planset *ps)
{
	memset(ps, 0, sizeof(*ps));
	ps->nplans = 1;
	troute_plan_dor(f, &ps->plans[0]);
}

/*
 * The fabric's freedom.  Plan 0 is DOR (XYZ, shortest); plan 1 corrects
 * the axes in the reverse order (ZYX): a source class of one is a
 * destination class of the other, so a fault that blocks the first leg
 * of one blocks only the last leg of the other.  With rings, plans 2 and
 * 3 are XYZ always "+" and ZYX always "-": the other way around each
 * ring, which is what a fault on the short arc leaves (0 lambs on the
 * 32^3 torus at 3%).  A mesh has no other way round; there plans 2 and
 * 3 are the rotations YZX and ZXY, so that every axis is the first of
 * some plan and the last of another: a source boxed in along x and z
 * leaves along y (XYZ+ZYX alone left 0.14 lambs per 32^3 mesh at 3%).
 * Four plans are 16 virtual channels (TROUTE_VC); any round-0 plan may
 * be combined with any round-1 plan, round classes being ordered
 * (troute_cdg.c proves the graph acyclic).
 */
void troute_planset_free(const struct troute_faults *f,
			 struct troute_planset *ps)
{
	unsigned int a, n = f->ndims;

	memset(ps, 0, sizeof(*ps));
	ps->any_pair = true;
	troute_plan_dor(f, &ps->plans[0]);
	ps->nplans = 1;
	if (n < 2 && !f->wrap)
		return;
	for (a = 0; a < n; a++)
		ps->plans[1].order[a] = n - 1 - a;
	ps->nplans = 2;
	if (f->wrap) {
		ps->plans[2] = ps->plans[0];
		ps->plans[3] = ps->plans[1];
		for (a = 0; a < n; a++) {
			ps->plans[2].policy[a] = TROUTE_PLUS;
			ps->plans[3].policy[a] = TROUTE_MINUS;
		}
		ps->nplans = 4;
		return;
	}
	if (n < 3)
		return;
	/* a mesh of 3+ axes: the other rotations (YZX, ZXY) */
	for (a = 0; a < n; a++) {
		ps->plans[2].order[a] = (a + 1) % n;
		ps->plans[3].order[a] = (a + 2) % n;
	}
	ps->nplans = 4;
}

void troute_coord(const struct troute_ctx *c, unsigned int node,
		  unsigned int *coord)
{
	unsigned int a;

	if (c->coords) {
		const uint8_t *p = c->coords + (size_t)node * c->f->ndims;

		for (a = 0; a < c->f->ndims; a++)
			coord[a] = p[a];
		return;
	}
	for (a = 0; a < c->f->ndims; a++) {
		coord[a] = node % c->f->dims[a];
		node /= c->f->dims[a];
	}
}

unsigned int troute_index(const struct troute_ctx *c,
			  const unsigned int *coord)
{
	unsigned int a, n = 0;

	for (a = 0; a < c->f->ndims; a++)
		n += coord[a] * c->stride[a];
	return n;
}

/* the cable from node n one step along axis a ("+") is usable */
static bool step_ok(const struct troute_ctx *c, unsigned int n,
		    unsigned int a, unsigned int next)
{
	const struct troute_faults *f = c->f;

	return !f->dead[n] && !f->dead[next] &&
	       !(f->cut[n] & (1u << TORUS_DIR(a, 0))) &&
	       !(f->cut[next] & (1u << TORUS_DIR(a, 1)));
}

/* fwd/bwd along one line: base node, axis a */
static void line_reach(struct troute_ctx *c, unsigned int base,
		       unsigned int a, uint8_t *ok)
{
	unsigned int e = c->f->dims[a], s = c->stride[a];
	bool ring = c->f->wrap & (1u << a);
	unsigned int i, k, nsteps = ring ? e : e - 1, start = e - 1;
	uint8_t run;

	for (i = 0; i < nsteps; i++) {
		ok[i] = step_ok(c, base + i * s, a, base + ((i + 1) % e) * s);
		if (!ok[i])
			start = i;
	}
	if (ring && e > 1 && start == e - 1 && ok[e - 1]) {
		for (i = 0; i < e; i++) /* a whole ring */
			c->fwd[base + i * s] = c->bwd[base + i * s] = e - 1;
		return;
	}
	/* fwd: walk backwards from a broken step (or the line's end) */
	run = 0;
	for (k = 0; k < e; k++) {
		i = (start + e - k) % e;
		if (k > 0 && (i < nsteps && ok[i]))
			run++;
		else
			run = 0;
		c->fwd[base + i * s] = run;
	}
	/* bwd: walk forwards from the node after a broken step */
	run = 0;
	for (k = 0; k < e; k++) {
		unsigned int prev;

		i = (start + 1 + k) % e;
		prev = (i + e - 1) % e;
		if (k > 0 && (ring || i > 0) && ok[prev])
			run++;
		else
			run = 0;
		c->bwd[base + i * s] = run;
	}
}

static inline unsigned int fwd_of(const struct troute_ctx *c,
				  unsigned int n, unsigned int a);
static inline unsigned int bwd_of(const struct troute_ctx *c,
				  unsigned int n, unsigned int a);

/* components by breadth-first search over usable cables */
static int components(struct troute_ctx *c)
{
	unsigned int n, head, tail, a, *queue;

	c->comp = malloc(sizeof(*c->comp) * c->nnodes);
	queue = malloc(sizeof(*queue) * c->nnodes);
	if (!c->comp || !queue) {
		free(queue);
		return -ENOMEM;
	}
	memset(c->comp, 0xff, sizeof(*c->comp) * c->nnodes);
	for (n = 0; n < c->nnodes; n++) {
		if (c->f->dead[n] || c->comp[n] != UINT32_MAX)
			continue;
		c->comp[n] = n;
		head = tail = 0;
		queue[tail++] = n;
		while (head < tail) {
			unsigned int u = queue[head++];

			for (a = 0; a < c->f->ndims; a++) {
				unsigned int e = c->f->dims[a];
				unsigned int pos = c->coords[(size_t)u *
							     c->f->ndims + a];
				unsigned int line = u - pos * c->stride[a], m;

				if (fwd_of(c, u, a)) {
					m = line + (pos + 1) % e * c->stride[a];
					if (c->comp[m] == UINT32_MAX) {
						c->comp[m] = n;
						queue[tail++] = m;
					}
				}
				if (bwd_of(c, u, a)) {
					m = line + (pos + e - 1) % e * c->stride[a];
					if (c->comp[m] == UINT32_MAX) {
						c->comp[m] = n;
						queue[tail++] = m;
					}
				}
			}
		}
	}
	free(queue);
	return 0;
}

int troute_ctx_init(struct troute_ctx *c, const struct troute_faults *f)
{
	unsigned int a, n, coord[TORUS_MAX_AXES];
	uint8_t ok[256];

	memset(c, 0, sizeof(*c));
	if (!f->ndims || f->ndims > TORUS_MAX_AXES)
		return -EINVAL;
	c->f = f;
	c->nnodes = 1;
	for (a = 0; a < f->ndims; a++) {
		if (f->dims[a] < 1 || f->dims[a] > 255)
			return -EINVAL;
		c->stride[a] = c->nnodes;
		c->nnodes *= f->dims[a];
	}
	c->fwd = calloc((size_t)c->nnodes * f->ndims, 1);
	c->bwd = calloc((size_t)c->nnodes * f->ndims, 1);
	c->coords = malloc((size_t)c->nnodes * f->ndims);
	if (!c->fwd || !c->bwd || !c->coords) {
		troute_ctx_free(c);
		return -ENOMEM;
	}
	for (n = 0; n < c->nnodes; n++) {
		unsigned int m = n;

		for (a = 0; a < f->ndims; a++) {
			c->coords[(size_t)n * f->ndims + a] = m % f->dims[a];
			m /= f->dims[a];
		}
	}
	/* the arrays are [axis][node]: one line per axis at a time */
	for (a = 0; a < f->ndims; a++) {
		struct troute_ctx line = *c;

		line.fwd = c->fwd + (size_t)a * c->nnodes;
		line.bwd = c->bwd + (size_t)a * c->nnodes;
		for (n = 0; n < c->nnodes; n++) {
			troute_coord(c, n, coord);
			if (coord[a] == 0)
				line_reach(&line, n, a, ok);
		}
	}
	if (components(c)) {
		troute_ctx_free(c);
		return -ENOMEM;
	}
	return 0;
}

void troute_ctx_free(struct troute_ctx *c)
{
	free(c->fwd);
	free(c->bwd);
	free(c->coords);
	free(c->comp);
	c->fwd = c->bwd = NULL;
	c->coords = NULL;
	c->comp = NULL;
}

static inline unsigned int fwd_of(const struct troute_ctx *c,
				  unsigned int n, unsigned int a)
{
	return c->fwd[(size_t)a * c->nnodes + n];
}

static inline unsigned int bwd_of(const struct troute_ctx *c,
				  unsigned int n, unsigned int a)
{
	return c->bwd[(size_t)a * c->nnodes + n];
}

/* the longest leg "+" and "-" a policy allows on axis a */
static void policy_reach(const struct troute_ctx *c, unsigned int a,
			 unsigned int policy, unsigned int *plus,
			 unsigned int *minus)
{
	unsigned int e = c->f->dims[a];

	*plus = *minus = e - 1;
	if (!(c->f->wrap & (1u << a)))
		return;
	switch (policy) {
	case TROUTE_PLUS:
		*minus = 0;
		break;
	case TROUTE_MINUS:
		*plus = 0;
		break;
	default: /* ties go "+", as torus_dor_next_dir() */
		*plus = e / 2;
		*minus = (e - 1) / 2;
	}
}

void troute_arc(const struct troute_ctx *c, unsigned int n,
		unsigned int axis, unsigned int policy, bool in,
		unsigned int *back, unsigned int *ahead)
{
	unsigned int plus, minus;

	policy_reach(c, axis, policy, &plus, &minus);
	if (in) { /* from n - k going "+": k <= plus */
		*back = bwd_of(c, n, axis) < plus ? bwd_of(c, n, axis) : plus;
		*ahead = fwd_of(c, n, axis) < minus ? fwd_of(c, n, axis) : minus;
	} else {
		*back = bwd_of(c, n, axis) < minus ? bwd_of(c, n, axis) : minus;
		*ahead = fwd_of(c, n, axis) < plus ? fwd_of(c, n, axis) : plus;
	}
}

/* the leg from coordinate s to d on axis a: signed steps, + or - */
static int leg(const struct troute_ctx *c, unsigned int a,
	       unsigned int policy, unsigned int s, unsigned int d)
{
	unsigned int e = c->f->dims[a], up;

	if (!(c->f->wrap & (1u << a)))
		return (int)d - (int)s;
	up = (d + e - s) % e;
	if (!up)
		return 0;
	switch (policy) {
	case TROUTE_PLUS:
		return up;
	case TROUTE_MINUS:
		return -(int)(e - up);
	default:
		return up > e - up ? -(int)(e - up) : (int)up;
	}
}

int troute_leg(const struct troute_ctx *c, unsigned int a,
	       unsigned int policy, unsigned int s, unsigned int d)
{
	return leg(c, a, policy, s, d);
}

bool troute_reach1(const struct troute_ctx *c, const struct troute_plan *p,
		   unsigned int u, unsigned int w)
{
	const uint8_t *cu = c->coords + (size_t)u * c->f->ndims;
	const uint8_t *cw = c->coords + (size_t)w * c->f->ndims;
	unsigned int i, cur = u;

	if (c->f->dead[u] || c->f->dead[w])
		return false;
	for (i = 0; i < c->f->ndims; i++) {
		unsigned int a = p->order[i];
		int k = leg(c, a, p->policy[a], cu[a], cw[a]);

		if (k > 0 && fwd_of(c, cur, a) < (unsigned int)k)
			return false;
		if (k < 0 && bwd_of(c, cur, a) < (unsigned int)-k)
			return false;
		cur = cur - cu[a] * c->stride[a] + cw[a] * c->stride[a];
	}
	return true;
}

unsigned int troute_hops(const struct troute_ctx *c,
			 const struct troute_plan *p, unsigned int u,
			 unsigned int w)
{
	const uint8_t *cu = c->coords + (size_t)u * c->f->ndims;
	const uint8_t *cw = c->coords + (size_t)w * c->f->ndims;
	unsigned int a, hops = 0;

	for (a = 0; a < c->f->ndims; a++) {
		int k = leg(c, a, p->policy[a], cu[a], cw[a]);

		hops += k < 0 ? -k : k;
	}
	return hops;
}
