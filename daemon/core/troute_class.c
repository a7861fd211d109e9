// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * troute_class.c - source and destination reach classes and their sets
 *
 * See troute_class.h.  A class's set is filled by following the plan
 * from the class's arc (forwards for a source, backwards from the
 * destination's arc for a destination): dimension-ordered paths are
 * unique, so every node of the set is visited once.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "troute_class.h"

struct keyed {
	uint64_t key;
	uint32_t node;
};

static int cmp_keyed(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

/* the axis a class is made along: first of the plan, or last for @in */
static unsigned int class_axis(const struct troute_ctx *c,
			       const struct troute_classes *cl)
{
	return cl->plan.order[cl->in ? c->f->ndims - 1 : 0];
}

/* (line, arc start, arc length) of node n, arc normalised */
static uint64_t class_key(const struct troute_ctx *c,
			  const struct troute_classes *cl, unsigned int n)
{
	unsigned int a = class_axis(c, cl), e = c->f->dims[a];
	unsigned int pos = n / c->stride[a] % e, back, ahead, start, len;
	uint64_t line = n - pos * c->stride[a];

	troute_arc(c, n, a, cl->plan.policy[a], cl->in, &back, &ahead);
	len = back + ahead + 1;
	if (len >= e) {
		start = 0;
		len = e;
	} else {
		start = (pos + e - back) % e;
	}
	return line << 16 | start << 8 | (len - 1);
}

static unsigned int raw(const uint8_t *v, const struct troute_ctx *c,
			unsigned int n, unsigned int a)
{
	return v[(size_t)a * c->nnodes + n];
}

/*
 * Group the classes by the fault-free segment of their line (key: line,
 * segment start) and find each group's core: the intersection of its
 * classes' arcs, in positions counted from the segment's start.
 * @k is scratch of at least n entries.
 */
static int build_groups(const struct troute_ctx *c, struct troute_classes *cl,
			struct keyed *k)
{
	unsigned int a = class_axis(c, cl), e = c->f->dims[a];
	uint32_t i, g, *off, *end;

	cl->group = malloc(sizeof(*cl->group) * (cl->n + 1));
	cl->gclass = malloc(sizeof(*cl->gclass) * (cl->n + 1));
	cl->gfirst = malloc(sizeof(*cl->gfirst) * (cl->n + 1));
	off = malloc(sizeof(*off) * (cl->n + 1));
	end = malloc(sizeof(*end) * (cl->n + 1));
	if (!cl->group || !cl->gclass || !cl->gfirst || !off || !end)
		goto fail;
	for (i = 0; i < cl->n; i++) {
		unsigned int n = cl->members[cl->first[i]];
		unsigned int pos = n / c->stride[a] % e, back, ahead;
		unsigned int f = raw(c->fwd, c, n, a), b = raw(c->bwd, c, n, a);
		uint64_t line = n - pos * c->stride[a], start;

		troute_arc(c, n, a, cl->plan.policy[a], cl->in, &back, &ahead);
		if (e > 1 && f + b > e - 1) { /* a whole ring: one class */
			start = 0;
			off[i] = 0;
			end[i] = e - 1;
		} else {
			start = (pos + e - b) % e;
			off[i] = b - back;
			end[i] = b + ahead;
		}
		k[i].key = line << 8 | start;
		k[i].node = i;
	}
	qsort(k, cl->n, sizeof(*k), cmp_keyed);
	cl->ngroups = 0;
	for (i = 0; i < cl->n; i++) {
		if (!i || k[i].key != k[i - 1].key)
			cl->gfirst[cl->ngroups++] = i;
		cl->gclass[i] = k[i].node;
		cl->group[k[i].node] = cl->ngroups - 1;
	}
	cl->gfirst[cl->ngroups] = cl->n;
	g = cl->ngroups ? cl->ngroups : 1;
	cl->core_node = calloc(g, sizeof(*cl->core_node));
	cl->core_len = calloc(g, sizeof(*cl->core_len));
	cl->core = calloc(g, sizeof(*cl->core));
	cl->clo = calloc(g, sizeof(*cl->clo));
	cl->chi = calloc(g, sizeof(*cl->chi));
	if (!cl->core_node || !cl->core_len || !cl->core || !cl->clo ||
	    !cl->chi)
		goto fail;
	for (g = 0; g < cl->ngroups; g++) {
		uint32_t lo = 0, hi = UINT32_MAX, first = cl->gclass[cl->gfirst[g]];
		unsigned int n = cl->members[cl->first[first]];
		unsigned int pos = n / c->stride[a] % e;
		uint64_t start = k[cl->gfirst[g]].key & 0xff;

		for (i = cl->gfirst[g]; i < cl->gfirst[g + 1]; i++) {
			uint32_t x = cl->gclass[i];

			lo = off[x] > lo ? off[x] : lo;
			hi = end[x] < hi ? end[x] : hi;
		}
		if (hi < lo)
			continue;
		cl->core_len[g] = hi - lo + 1;
		/* node at the segment's start, moved lo positions on */
		cl->core_node[g] = n - pos * c->stride[a] +
			((start + lo) % e) * c->stride[a];
	}
	free(off);
	free(end);
	return 0;
fail:
	free(off);
	free(end);
	return -ENOMEM;
}

int troute_classes_build(const struct troute_ctx *c,
			 const struct troute_plan *p, bool in,
			 struct troute_classes *cl)
{
	unsigned int n, live = 0, i;
	struct keyed *k;

	memset(cl, 0, sizeof(*cl));
	cl->in = in;
	cl->plan = *p;
	cl->nwords = (c->nnodes + 63) / 64;
	cl->of = malloc(sizeof(*cl->of) * c->nnodes);
	cl->members = malloc(sizeof(*cl->members) * c->nnodes);
	k = malloc(sizeof(*k) * c->nnodes);
	if (!cl->of || !cl->members || !k)
		goto fail;
	for (n = 0; n < c->nnodes; n++) {
		cl->of[n] = TROUTE_NOCLASS;
		if (!troute_live(c, n))
			continue;
		k[live].key = class_key(c, cl, n);
		k[live++].node = n;
	}
	qsort(k, live, sizeof(*k), cmp_keyed);
	cl->first = malloc(sizeof(*cl->first) * (live + 1));
	if (!cl->first)
		goto fail;
	for (i = 0; i < live; i++) {
		if (!i || k[i].key != k[i - 1].key)
			cl->first[cl->n++] = i;
		cl->members[i] = k[i].node;
		cl->of[k[i].node] = cl->n - 1;
	}
	cl->first[cl->n] = live;
	cl->bits = calloc(cl->n ? cl->n : 1, sizeof(*cl->bits));
	cl->lo = calloc(cl->n ? cl->n : 1, sizeof(*cl->lo));
	cl->hi = calloc(cl->n ? cl->n : 1, sizeof(*cl->hi));
	if (!cl->bits || !cl->lo || !cl->hi || build_groups(c, cl, k))
		goto fail;
	free(k);
	return 0;
fail:
	free(k);
	troute_classes_free(cl);
	return -ENOMEM;
}

void troute_classes_free(struct troute_classes *cl)
{
	uint32_t i;

	if (cl->bits)
		for (i = 0; i < cl->n; i++)
			free(cl->bits[i]);
	free(cl->bits);
	free(cl->of);
	free(cl->first);
	free(cl->members);
	free(cl->lo);
	free(cl->hi);
	if (cl->core)
		for (i = 0; i < cl->ngroups; i++)
			free(cl->core[i]);
	free(cl->core);
	free(cl->group);
	free(cl->gfirst);
	free(cl->gclass);
	free(cl->core_node);
	free(cl->core_len);
	free(cl->clo);
	free(cl->chi);
	memset(cl, 0, sizeof(*cl));
}

/* node n moved to offset k (signed) along axis a, modulo the extent */
static unsigned int moved(const struct troute_ctx *c, unsigned int n,
			  unsigned int a, int k)
{
	unsigned int e = c->f->dims[a], pos = n / c->stride[a] % e;
	unsigned int to = (unsigned int)((int)pos + k + (int)e) % e;

	return n - pos * c->stride[a] + to * c->stride[a];
}

/* every node reached from n with the plan's steps level.. (in: ..level) */
static void fill(const struct troute_ctx *c, const struct troute_plan *p,
		 bool in, int level, unsigned int n, uint64_t *bits)
{
	unsigned int a, e, s, pos, line, back, ahead, len, q, k, m;
	int next = in ? level - 1 : level + 1;
	bool last = next < 0 || next >= (int)c->f->ndims;

	if (level < 0 || level >= (int)c->f->ndims) {
		bits[n >> 6] |= 1ULL << (n & 63);
		return;
	}
	a = p->order[level];
	e = c->f->dims[a];
	s = c->stride[a];
	pos = n / s % e;
	line = n - pos * s;
	troute_arc(c, n, a, p->policy[a], in, &back, &ahead);
	len = back + ahead + 1 > e ? e : back + ahead + 1;
	q = (pos + e - back) % e;
	for (k = 0; k < len; k++) {
		m = line + q * s;
		if (last)
			bits[m >> 6] |= 1ULL << (m & 63);
		else
			fill(c, p, in, next, m, bits);
		if (++q == e)
			q = 0;
	}
}

/* the set of positions in the words that are set: [lo, hi) */
static void word_range(const uint64_t *b, size_t nwords, uint32_t *plo,
		       uint32_t *phi)
{
	size_t w, lo = nwords, hi = 0;

	for (w = 0; w < nwords; w++) {
		if (!b[w])
			continue;
		if (lo == nwords)
			lo = w;
		hi = w + 1;
	}
	*plo = lo;
	*phi = hi;
}

/* group g's core set: every node reached from (or reaching) the core */
static const uint64_t *core_bits(const struct troute_ctx *c,
				 struct troute_classes *cl, uint32_t g)
{
	unsigned int a = class_axis(c, cl), i;
	int next = cl->in ? (int)c->f->ndims - 2 : 1;
	uint64_t *b;

	if (cl->core[g])
		return cl->core[g];
	b = calloc(cl->nwords, sizeof(*b));
	if (!b)
		return NULL;
	for (i = 0; i < cl->core_len[g]; i++)
		fill(c, &cl->plan, cl->in, next,
		     moved(c, cl->core_node[g], a, i), b);
	word_range(b, cl->nwords, &cl->clo[g], &cl->chi[g]);
	cl->core[g] = b;
	return b;
}

static bool words_meet(const uint64_t *x, uint32_t xlo, uint32_t xhi,
		       const uint64_t *y, uint32_t ylo, uint32_t yhi)
{
	size_t w, lo = xlo > ylo ? xlo : ylo, hi = xhi < yhi ? xhi : yhi;

	for (w = lo; w < hi; w++)
		if (x[w] & y[w])
			return true;
	return false;
}

int troute_class_misses(const struct troute_ctx *c,
			struct troute_classes *src, struct troute_classes *dst,
			troute_miss_fn fn, void *arg)
{
	uint32_t g, h, i, j;
	int err;

	for (h = 0; h < dst->ngroups; h++)
		if (dst->core_len[h] && !core_bits(c, dst, h))
			return -ENOMEM;
	for (g = 0; g < src->ngroups; g++) {
		const uint64_t *x = NULL;

		if (src->core_len[g]) {
			x = core_bits(c, src, g);
			if (!x)
				return -ENOMEM;
		}
		for (h = 0; h < dst->ngroups; h++) {
			if (x && dst->core_len[h] &&
			    words_meet(x, src->clo[g], src->chi[g],
				       dst->core[h], dst->clo[h], dst->chi[h]))
				continue;
			for (i = src->gfirst[g]; i < src->gfirst[g + 1]; i++)
				for (j = dst->gfirst[h]; j < dst->gfirst[h + 1];
				     j++) {
					uint32_t a = src->gclass[i];
					uint32_t b = dst->gclass[j];

					if (troute_class_meet(c, src, a, dst, b))
						continue;
					if (!troute_class_bits(c, src, a) ||
					    !troute_class_bits(c, dst, b))
						return -ENOMEM;
					err = fn(arg, a, b);
					if (err)
						return err;
				}
		}
	}
	return 0;
}

const uint64_t *troute_class_bits(const struct troute_ctx *c,
				  struct troute_classes *cl, uint32_t k)
{
	uint64_t *b;

	if (cl->bits[k])
		return cl->bits[k];
	b = calloc(cl->nwords, sizeof(*b));
	if (!b)
		return NULL;
	/* the class's arc is the arc of any member: start from one */
	fill(c, &cl->plan, cl->in, cl->in ? (int)c->f->ndims - 1 : 0,
	     cl->members[cl->first[k]], b);
	word_range(b, cl->nwords, &cl->lo[k], &cl->hi[k]);
	cl->bits[k] = b;
	return b;
}

bool troute_class_meet(const struct troute_ctx *c, struct troute_classes *src,
		       uint32_t a, struct troute_classes *dst, uint32_t b)
{
	const uint64_t *x = troute_class_bits(c, src, a);
	const uint64_t *y = troute_class_bits(c, dst, b);

	if (!x || !y)
		return false;
	return words_meet(x, src->lo[a], src->hi[a], y, dst->lo[b], dst->hi[b]);
}
