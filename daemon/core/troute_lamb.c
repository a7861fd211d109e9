// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * troute_lamb.c - lamb selection
 *
 * Paper's model (one plan both rounds): the survivors of a source class
 * A and a destination class B that cannot meet are all bad pairs, so a
 * lamb set must hold all of A or all of B (or all but one node they
 * share: an x-segment and a z-segment meet in at most one node).  That
 * is a minimum-weight vertex cover of a bipartite graph, weight = class
 * size: exactly a minimum cut (König).  Chosen classes that share nodes
 * may make others redundant; those are dropped in index order.
 *
 * Several plans: bad pairs are rare node pairs, covered greedily by
 * degree (ties to the lower index), then redundant lambs dropped.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "troute_flow.h"
#include "troute_lamb.h"

struct cgraph {			/* the class conflict graph */
	const struct troute_ctx *c;
	struct troute_classes *src, *dst;
	uint32_t nedges, cap;
	uint32_t (*edge)[2];	/* (source class, destination class) */
	uint32_t *adj_first;	/* [src->n + dst->n + 1] */
	uint32_t *adj;		/* edge indices per class */
	uint8_t *chosen;	/* [src->n + dst->n] */
	uint8_t *cnt;		/* [nnodes] chosen classes holding the node */
	struct troute_lamb_stats *st;
};

static int add_edge(struct cgraph *g, uint32_t a, uint32_t b)
{
	if (g->nedges == g->cap) {
		uint32_t n = g->cap ? g->cap * 2 : 256;
		void *e = realloc(g->edge, sizeof(*g->edge) * n);

		if (!e)
			return -ENOMEM;
		g->edge = e;
		g->cap = n;
	}
	g->edge[g->nedges][0] = a;
	g->edge[g->nedges][1] = b;
	g->nedges++;
	return 0;
}

static const struct troute_classes *side(const struct cgraph *g,
					 uint32_t x, uint32_t *k)
{
	if (x < g->src->n) {
		*k = x;
		return g->src;
	}
	*k = x - g->src->n;
	return g->dst;
}

/* class x's members that are not lambs: count, and one of them */
static uint32_t unlambed(const struct cgraph *g, uint32_t x, uint32_t *one)
{
	uint32_t k, i, n = 0;
	const struct troute_classes *cl = side(g, x, &k);

	for (i = cl->first[k]; i < cl->first[k + 1]; i++)
		if (!g->cnt[cl->members[i]]) {
			*one = cl->members[i];
			n++;
		}
	return n;
}

static bool edge_covered(const struct cgraph *g, uint32_t e)
{
	uint32_t a = g->edge[e][0], b = g->src->n + g->edge[e][1];
	uint32_t oa = 0, ob = 0, na = unlambed(g, a, &oa);
	uint32_t nb = unlambed(g, b, &ob);

	return !na || !nb || (na == 1 && nb == 1 && oa == ob);
}

static void set_class(struct cgraph *g, uint32_t x, bool on)
{
	uint32_t k, i;
	const struct troute_classes *cl = side(g, x, &k);

	g->chosen[x] = on;
	for (i = cl->first[k]; i < cl->first[k + 1]; i++)
		g->cnt[cl->members[i]] += on ? 1 : -1;
}

/* every edge at class x or at a class sharing a node with x covered */
static bool still_covered(const struct cgraph *g, uint32_t x)
{
	const struct troute_classes *cl, *other;
	uint32_t k, i, j, y;

	cl = side(g, x, &k);
	other = cl == g->src ? g->dst : g->src;
	for (j = g->adj_first[x]; j < g->adj_first[x + 1]; j++)
		if (!edge_covered(g, g->adj[j]))
			return false;
	for (i = cl->first[k]; i < cl->first[k + 1]; i++) {
		y = other->of[cl->members[i]];
		if (other == g->dst)
			y += g->src->n;
		for (j = g->adj_first[y]; j < g->adj_first[y + 1]; j++)
			if (!edge_covered(g, g->adj[j]))
				return false;
	}
	return true;
}

static int build_adj(struct cgraph *g)
{
	uint32_t nx = g->src->n + g->dst->n, e, x;

	g->adj_first = calloc(nx + 2, sizeof(*g->adj_first));
	g->adj = malloc(sizeof(*g->adj) * (2 * g->nedges + 1));
	if (!g->adj_first || !g->adj)
		return -ENOMEM;
	for (e = 0; e < g->nedges; e++) {
		g->adj_first[g->edge[e][0] + 2]++;
		g->adj_first[g->src->n + g->edge[e][1] + 2]++;
	}
	for (x = 2; x < nx + 2; x++)
		g->adj_first[x] += g->adj_first[x - 1];
	for (e = 0; e < g->nedges; e++) {
		g->adj[g->adj_first[g->edge[e][0] + 1]++] = e;
		g->adj[g->adj_first[g->src->n + g->edge[e][1] + 1]++] = e;
	}
	return 0;
}

static uint32_t class_size(const struct troute_classes *cl, uint32_t k)
{
	return cl->first[k + 1] - cl->first[k];
}

/* the node both classes hold, if any */
static bool shared_node(const struct troute_classes *src, uint32_t a,
			const struct troute_classes *dst, uint32_t b)
{
	uint32_t i;

	for (i = src->first[a]; i < src->first[a + 1]; i++)
		if (dst->of[src->members[i]] == b)
			return true;
	return false;
}

/* source class a and destination class b cannot meet: an edge */
static int class_edge(void *arg, uint32_t a, uint32_t b)
{
	struct cgraph *g = arg;
	uint32_t pairs = class_size(g->src, a) * class_size(g->dst, b) -
			 shared_node(g->src, a, g->dst, b);

	/* a class lies on one segment: one component */
	if (!pairs || !troute_connected(g->c, g->src->members[g->src->first[a]],
					g->dst->members[g->dst->first[b]]))
		return 0;
	g->st->bad_pairs += pairs;
	return add_edge(g, a, b);
}

static int class_model(const struct troute_ctx *c, struct troute_sets *s,
		       uint8_t *lamb, struct troute_lamb_stats *st)
{
	struct cgraph g = { .c = c, .src = &s->src[0], .dst = &s->dst[0] };
	struct troute_flow fl = { 0 };
	uint32_t e, x, nx = g.src->n + g.dst->n;
	int err = -ENOMEM;
	int64_t w;

	g.st = st;
	if (troute_class_misses(c, g.src, g.dst, class_edge, &g))
		goto out;
	st->edges = g.nedges;
	g.chosen = calloc(nx + 1, 1);
	g.cnt = calloc(c->nnodes, 1);
	if (!g.chosen || !g.cnt || build_adj(&g) ||
	    troute_flow_init(&fl, nx + 2))
		goto out;
	/* vertices: 0 source, 1 sink, 2 + class */
	for (x = 0; x < nx; x++) {
		uint32_t k;
		const struct troute_classes *cl = side(&g, x, &k);

		if (g.adj_first[x] == g.adj_first[x + 1])
			continue;
		if (cl == g.src)
			err = troute_flow_edge(&fl, 0, 2 + x, class_size(cl, k));
		else
			err = troute_flow_edge(&fl, 2 + x, 1, class_size(cl, k));
		if (err)
			goto out;
	}
	for (e = 0; e < g.nedges; e++)
		if (troute_flow_edge(&fl, 2 + g.edge[e][0],
				     2 + g.src->n + g.edge[e][1], INT64_MAX / 4))
			goto out;
	w = troute_flow_max(&fl, 0, 1);
	st->cover_weight = w;
	for (x = 0; x < nx; x++) {
		bool src_side = troute_flow_source_side(&fl, 2 + x);

		if (g.adj_first[x] == g.adj_first[x + 1])
			continue;
		if (x < g.src->n ? !src_side : src_side)
			set_class(&g, x, true);
	}
	/* drop classes the shared nodes of others make redundant */
	for (x = 0; x < nx; x++) {
		if (!g.chosen[x])
			continue;
		set_class(&g, x, false);
		if (!still_covered(&g, x))
			set_class(&g, x, true);
	}
	st->lower_bound = st->cover_weight;
	for (x = 0; x < c->nnodes; x++) {
		lamb[x] = g.cnt[x] > 0;
		st->lambs += lamb[x];
	}
	err = 0;
out:
	troute_flow_free(&fl);
	free(g.edge);
	free(g.adj_first);
	free(g.adj);
	free(g.chosen);
	free(g.cnt);
	return err;
}

struct pairs {
	uint32_t n, cap;
	uint32_t (*p)[2];
	int err;
};

static void collect(void *arg, unsigned int u, unsigned int v)
{
	struct pairs *ps = arg;

	if (ps->n == ps->cap) {
		uint32_t n = ps->cap ? ps->cap * 2 : 64;
		void *p = realloc(ps->p, sizeof(*ps->p) * n);

		if (!p) {
			ps->err = -ENOMEM;
			return;
		}
		ps->p = p;
		ps->cap = n;
	}
	ps->p[ps->n][0] = u;
	ps->p[ps->n][1] = v;
	ps->n++;
}

static int node_model(const struct troute_ctx *c, struct troute_sets *s,
		      uint8_t *lamb, struct troute_lamb_stats *st)
{
	uint32_t *deg = NULL, *first = NULL, *adj = NULL, i, j, best;
	struct pairs ps = { 0 };
	struct troute_verdict v;
	uint8_t *matched = NULL;
	int err;

	err = troute_bad_pairs(c, s, NULL, collect, &ps, &v);
	if (!err)
		err = ps.err;
	deg = calloc(c->nnodes, sizeof(*deg));
	first = calloc(c->nnodes + 2, sizeof(*first));
	adj = malloc(sizeof(*adj) * (2 * (size_t)ps.n + 1));
	matched = calloc(c->nnodes, 1);
	if (!err && (!deg || !first || !adj || !matched))
		err = -ENOMEM;
	if (err)
		goto out;
	st->bad_pairs = v.bad;
	st->edges = ps.n;
	/* adjacency (both directions of a pair are one conflict) */
	for (i = 0; i < ps.n; i++) {
		first[ps.p[i][0] + 2]++;
		first[ps.p[i][1] + 2]++;
	}
	for (i = 2; i < c->nnodes + 2; i++)
		first[i] += first[i - 1];
	for (i = 0; i < ps.n; i++) {
		adj[first[ps.p[i][0] + 1]++] = ps.p[i][1];
		adj[first[ps.p[i][1] + 1]++] = ps.p[i][0];
	}
	for (i = 0; i < ps.n; i++) { /* a maximal matching bounds below */
		if (matched[ps.p[i][0]] || matched[ps.p[i][1]])
			continue;
		matched[ps.p[i][0]] = matched[ps.p[i][1]] = 1;
		st->lower_bound++;
	}
	for (i = 0; i < c->nnodes; i++)
		deg[i] = first[i + 1] - first[i];
	/* greedy: the node in most uncovered conflicts, lowest index */
	for (;;) {
		best = 0;
		for (i = 1; i < c->nnodes; i++)
			if (deg[i] > deg[best])
				best = i;
		if (!deg[best])
			break;
		lamb[best] = 1;
		deg[best] = 0;
		for (j = first[best]; j < first[best + 1]; j++)
			if (!lamb[adj[j]] && deg[adj[j]])
				deg[adj[j]]--;
	}
	for (i = 0; i < c->nnodes; i++) { /* drop lambs no conflict needs */
		bool need = false;

		if (!lamb[i])
			continue;
		for (j = first[i]; j < first[i + 1] && !need; j++)
			need = !lamb[adj[j]];
		lamb[i] = need;
	}
	for (i = 0; i < c->nnodes; i++)
		st->lambs += lamb[i];
	st->cover_weight = st->lambs;
out:
	free(ps.p);
	free(deg);
	free(first);
	free(adj);
	free(matched);
	return err;
}

int troute_lambs(const struct troute_ctx *c, struct troute_sets *s,
		 uint8_t *lamb, struct troute_lamb_stats *st)
{
	memset(st, 0, sizeof(*st));
	memset(lamb, 0, c->nnodes);
	if (s->ps.nplans == 1)
		return class_model(c, s, lamb, st);
	return node_model(c, s, lamb, st);
}
