// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of the route computation (daemon/core/troute*): everything
 * is checked against brute force on small fabrics: frames walked hop by
 * hop with the kernel's direction rule, every intermediate of every
 * pair tried with every plan pair.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "troute_cdg.h"
#include "troute_lamb.h"
#include "troute_table.h"
#include "unit.h"

#define MAXN	512


struct fab {
	struct troute_faults f;
	struct troute_ctx c;
	uint8_t dead[MAXN];
	uint16_t cut[MAXN];
	unsigned int n;
};

static unsigned int step(const struct fab *fb, unsigned int n,
			 unsigned int a, bool neg)
{
	unsigned int e = fb->f.dims[a], s = fb->c.stride[a];
	unsigned int pos = n / s % e;

	return n - pos * s + ((pos + (neg ? e - 1 : 1)) % e) * s;
}

/* dead_permille of the nodes dead, cut_permille of the cables cut */
static void make_fab(struct fab *fb, unsigned int d0, unsigned int d1,
		     unsigned int d2, unsigned int wrap, uint64_t seed,
		     unsigned int dead_permille, unsigned int cut_permille)
{
	unsigned int n, a;

	memset(fb, 0, sizeof(*fb));
	fb->f.ndims = 3;
	fb->f.dims[0] = d0;
	fb->f.dims[1] = d1;
	fb->f.dims[2] = d2;
	fb->f.wrap = wrap;
	fb->f.dead = fb->dead;
	fb->f.cut = fb->cut;
	fb->n = d0 * d1 * d2;
	rng_state = seed;
	troute_ctx_init(&fb->c, &fb->f); /* for the strides */
	for (n = 0; n < fb->n; n++) {
		fb->dead[n] = rnd() % 1000 < dead_permille;
		for (a = 0; a < 3; a++) {
			unsigned int m = step(fb, n, a, false);

			if (rnd() % 1000 >= cut_permille || m == n)
				continue;
			if (!(wrap & (1u << a)) && m < n)
				continue; /* no cable off the mesh's edge */
			fb->cut[n] |= 1u << TORUS_DIR(a, 0);
			fb->cut[m] |= 1u << TORUS_DIR(a, 1);
		}
	}
	troute_ctx_free(&fb->c);
	troute_ctx_init(&fb->c, &fb->f);
}

/* a frame walked hop by hop, direction as torus_dor_next_dir() */
static bool walk(const struct fab *fb, const struct troute_plan *p,
		 unsigned int u, unsigned int w)
{
	unsigned int i, cur = u;

	if (fb->dead[u] || fb->dead[w])
		return false;
	for (i = 0; i < fb->f.ndims; i++) {
		unsigned int a = p->order[i], e = fb->f.dims[a];
		unsigned int s = fb->c.stride[a];

		while (cur / s % e != w / s % e) {
			unsigned int c = cur / s % e, d = w / s % e, up, next;
			bool neg;

			if (!(fb->f.wrap & (1u << a))) {
				neg = d < c;
			} else if (p->policy[a] == TROUTE_PLUS) {
				neg = false;
			} else if (p->policy[a] == TROUTE_MINUS) {
				neg = true;
			} else {
				up = (d + e - c) % e;
				neg = up > e - up;
			}
			if (fb->cut[cur] & (1u << TORUS_DIR(a, neg)))
				return false;
			next = step(fb, cur, a, neg);
			if (fb->dead[next])
				return false;
			cur = next;
		}
	}
	return true;
}

/* components by flood fill over usable cables, hop by hop */
static void brute_comp(const struct fab *fb, unsigned int *comp)
{
	unsigned int n, changed = 1, a, neg;

	for (n = 0; n < fb->n; n++)
		comp[n] = n;
	while (changed) {
		changed = 0;
		for (n = 0; n < fb->n; n++)
			for (a = 0; a < fb->f.ndims && !fb->dead[n]; a++)
				for (neg = 0; neg < 2; neg++) {
					unsigned int m = step(fb, n, a, neg);

					if (m == n || fb->dead[m] ||
					    (fb->cut[n] & (1u << TORUS_DIR(a, neg))) ||
					    (!(fb->f.wrap & (1u << a)) &&
					     (neg ? m > n : m < n)))
						continue;
					if (comp[m] < comp[n]) {
						comp[n] = comp[m];
						changed = 1;
					}
				}
	}
}

/* brute force: reach[p][u] bitset of w */
struct brute {
	uint64_t reach[TROUTE_MAX_PLANS][MAXN][MAXN / 64];
};

static void brute_reach(const struct fab *fb, const struct troute_planset *ps,
			struct brute *b)
{
	unsigned int p, u, w;

	memset(b, 0, sizeof(*b));
	for (p = 0; p < ps->nplans; p++)
		for (u = 0; u < fb->n; u++)
			for (w = 0; w < fb->n; w++)
				if (walk(fb, &ps->plans[p], u, w))
					b->reach[p][u][w / 64] |= 1ULL << (w % 64);
}

static bool brute_two(const struct fab *fb, const struct troute_planset *ps,
		      const struct brute *b, unsigned int u, unsigned int v)
{
	unsigned int p, q, w;

	for (p = 0; p < ps->nplans; p++)
		for (q = 0; q < ps->nplans; q++) {
			if (p != q && !ps->any_pair)
				continue;
			for (w = 0; w < fb->n; w++)
				if ((b->reach[p][u][w / 64] >> (w % 64) & 1) &&
				    (b->reach[q][w][v / 64] >> (v % 64) & 1))
					return true;
		}
	return false;
}

static void brute_verdict(const struct fab *fb,
			  const struct troute_planset *ps,
			  const struct brute *b, const uint8_t *lamb,
			  struct troute_verdict *v)
{
	static unsigned int comp[MAXN];
	unsigned int u, w;

	brute_comp(fb, comp);
	memset(v, 0, sizeof(*v));
	for (u = 0; u < fb->n; u++) {
		if (fb->dead[u] || (lamb && lamb[u]))
			continue;
		v->survivors++;
		for (w = 0; w < fb->n; w++) {
			if (w == u || fb->dead[w] || (lamb && lamb[w]))
				continue;
			v->pairs++;
			if (b->reach[0][u][w / 64] >> (w % 64) & 1)
				v->one_round++;
			else if (brute_two(fb, ps, b, u, w))
				v->two_round++;
			else if (comp[u] != comp[w])
				v->disconnected++;
			else
				v->bad++;
		}
	}
}

static struct brute brute;

static unsigned int dead_count(const struct fab *fb)
{
	unsigned int n, k = 0;

	for (n = 0; n < fb->n; n++)
		k += fb->dead[n] != 0;
	return k;
}

struct shape {
	unsigned int d[3], wrap, dead, cut;
};

static const struct shape shapes[] = {
	{ { 6, 6, 6 }, 0, 80, 0 },	/* mesh, nodes only (paper) */
	{ { 6, 6, 6 }, 7, 80, 0 },	/* torus */
	{ { 6, 6, 6 }, 7, 50, 40 },	/* torus, cut cables too */
	{ { 5, 4, 6 }, 5, 60, 30 },	/* mixed rings and lines, odd */
	{ { 8, 1, 7 }, 1, 70, 20 },	/* a flat axis */
};

UNIT_TEST(troute_reach1_matches_walk)
{
	struct troute_planset ps;
	unsigned int i, p, u, w, bad = 0;
	struct fab fb;

	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		const struct shape *s = &shapes[i];

		make_fab(&fb, s->d[0], s->d[1], s->d[2], s->wrap, 100 + i,
			 s->dead, s->cut);
		troute_planset_free(&fb.f, &ps);
		for (p = 0; p < ps.nplans; p++)
			for (u = 0; u < fb.n; u++)
				for (w = 0; w < fb.n; w++)
					bad += walk(&fb, &ps.plans[p], u, w) !=
					       troute_reach1(&fb.c, &ps.plans[p],
							     u, w);
		troute_ctx_free(&fb.c);
	}
	UNIT_CHECK(bad == 0);
}

static bool same_verdict(const struct troute_verdict *a,
			 const struct troute_verdict *b)
{
	if (a->survivors == b->survivors && a->pairs == b->pairs &&
	    a->one_round == b->one_round && a->two_round == b->two_round &&
	    a->bad == b->bad && a->disconnected == b->disconnected)
		return true;
	fprintf(stderr, "    got %llu/%llu/%llu/%llu/%llu want %llu/%llu/%llu/%llu/%llu\n",
		(unsigned long long)a->survivors, (unsigned long long)a->pairs,
		(unsigned long long)a->one_round,
		(unsigned long long)a->two_round, (unsigned long long)a->bad,
		(unsigned long long)b->survivors, (unsigned long long)b->pairs,
		(unsigned long long)b->one_round,
		(unsigned long long)b->two_round, (unsigned long long)b->bad);
	return false;
}

/* verifier counts == brute force, paper and free, with and without lambs */
UNIT_TEST(troute_verify_matches_brute_force)
{
	struct troute_verdict got, want;
	struct troute_planset ps;
	uint8_t lamb[MAXN];
	unsigned int i, mode, n, bad = 0;
	struct fab fb;

	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		for (mode = 0; mode < 2; mode++) {
			const struct shape *s = &shapes[i];

			make_fab(&fb, s->d[0], s->d[1], s->d[2], s->wrap,
				 200 + i, s->dead * 2, s->cut * 2);
			if (mode)
				troute_planset_free(&fb.f, &ps);
			else
				troute_planset_paper(&fb.f, &ps);
			brute_reach(&fb, &ps, &brute);
			brute_verdict(&fb, &ps, &brute, NULL, &want);
			UNIT_CHECK(!troute_verify(&fb.c, &ps, NULL, &got));
			UNIT_CHECK(same_verdict(&got, &want));
			bad += want.bad;
			for (n = 0; n < fb.n; n++)
				lamb[n] = rnd() % 10 == 0;
			brute_verdict(&fb, &ps, &brute, lamb, &want);
			UNIT_CHECK(!troute_verify(&fb.c, &ps, lamb, &got));
			UNIT_CHECK(same_verdict(&got, &want));
			troute_ctx_free(&fb.c);
		}
	UNIT_CHECK(bad > 0); /* the cases can fail */
}

/* lambs leave no bad pair, are deterministic, and a missing one is seen */
UNIT_TEST(troute_lambs_cover_and_verifier_finds_planted_pair)
{
	struct troute_lamb_stats st, st2;
	struct troute_verdict got, want;
	uint8_t lamb[MAXN], lamb2[MAXN];
	struct troute_planset ps;
	struct troute_sets s;
	unsigned int i, n, planted = 0;
	struct fab fb;

	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		const struct shape *sh = &shapes[i];

		make_fab(&fb, sh->d[0], sh->d[1], sh->d[2], sh->wrap, 300 + i,
			 sh->dead * 2, sh->cut * 2);
		troute_planset_paper(&fb.f, &ps);
		UNIT_CHECK(!troute_sets_init(&s, &fb.c, &ps));
		UNIT_CHECK(!troute_lambs(&fb.c, &s, lamb, &st));
		troute_sets_free(&s);
		UNIT_CHECK(!troute_sets_init(&s, &fb.c, &ps));
		UNIT_CHECK(!troute_lambs(&fb.c, &s, lamb2, &st2));
		troute_sets_free(&s);
		UNIT_CHECK(!memcmp(lamb, lamb2, fb.n));
		UNIT_CHECK(st.lambs <= st.cover_weight);
		brute_reach(&fb, &ps, &brute);
		brute_verdict(&fb, &ps, &brute, lamb, &want);
		UNIT_CHECK(want.bad == 0);
		UNIT_CHECK(st.lambs == fb.n - want.survivors - dead_count(&fb));
		/* plant: release one lamb that some pair needed */
		for (n = 0; n < fb.n && st.lambs; n++) {
			if (!lamb[n])
				continue;
			lamb[n] = 0;
			brute_verdict(&fb, &ps, &brute, lamb, &want);
			UNIT_CHECK(!troute_verify(&fb.c, &ps, lamb, &got));
			UNIT_CHECK(same_verdict(&got, &want));
			if (want.bad) {
				UNIT_CHECK(got.bad_u == n || got.bad_v == n);
				UNIT_CHECK(!brute_two(&fb, &ps, &brute,
						      got.bad_u, got.bad_v));
				planted++;
				break;
			}
			lamb[n] = 1;
		}
		UNIT_CHECK(n < fb.n || !st.lambs);
		troute_ctx_free(&fb.c);
	}
	UNIT_CHECK(planted > 0);
}

/* the fabric's freedom needs fewer lambs than the paper's model */
UNIT_TEST(troute_free_beats_paper)
{
	struct troute_lamb_stats paper = { 0 }, fr = { 0 }, st;
	struct troute_planset ps;
	static uint8_t lamb[MAXN];
	struct troute_sets s;
	unsigned int seed, mode;
	struct fab fb;

	for (seed = 0; seed < 4; seed++)
		for (mode = 0; mode < 2; mode++) {
			make_fab(&fb, 8, 8, 8, 0, 400 + seed, 100, 0);
			if (mode)
				troute_planset_free(&fb.f, &ps);
			else
				troute_planset_paper(&fb.f, &ps);
			UNIT_CHECK(!troute_sets_init(&s, &fb.c, &ps));
			UNIT_CHECK(!troute_lambs(&fb.c, &s, lamb, &st));
			troute_sets_free(&s);
			if (mode)
				fr.lambs += st.lambs;
			else
				paper.lambs += st.lambs;
			troute_ctx_free(&fb.c);
		}
	fprintf(stderr, "    8^3 mesh 10%%, 4 seeds: paper %u lambs, free %u\n",
		paper.lambs, fr.lambs);
	UNIT_CHECK(fr.lambs < paper.lambs);
}

/* hops of the hop-by-hop walk (the path exists) */
static unsigned int walk_hops(const struct fab *fb,
			      const struct troute_plan *p, unsigned int u,
			      unsigned int w)
{
	return troute_hops(&fb->c, p, u, w);
}

/* every route of a table: the best by brute force, tie-breaks included */
UNIT_TEST(troute_table_matches_brute_force)
{
	static struct troute_route tab[MAXN];
	struct troute_planset ps;
	static uint8_t lamb[MAXN];
	unsigned int i, mode, src, d, p, q, w, wrong = 0, via = 0;
	struct fab fb;

	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		for (mode = 0; mode < 2; mode++) {
			const struct shape *sh = &shapes[i];

			make_fab(&fb, sh->d[0], sh->d[1], sh->d[2], sh->wrap,
				 500 + i, sh->dead * 2, sh->cut * 2);
			if (mode)
				troute_planset_free(&fb.f, &ps);
			else
				troute_planset_paper(&fb.f, &ps);
			for (d = 0; d < fb.n; d++)
				lamb[d] = rnd() % 20 == 0;
			for (src = 0; src < fb.n; src += 13) {
				UNIT_CHECK(!troute_table(&fb.c, &ps, lamb, src,
							 tab));
				for (d = 0; d < fb.n; d++) {
					unsigned int best = UINT32_MAX, bp = 0;
					unsigned int bw = 0, kind;
					bool ends = !fb.dead[src] && !lamb[src] &&
						    !fb.dead[d] && !lamb[d];

					if (d == src)
						kind = ends ? TROUTE_SELF :
						       TROUTE_UNREACHABLE;
					else if (!ends)
						kind = TROUTE_UNREACHABLE;
					else if (walk(&fb, &ps.plans[0], src, d))
						kind = TROUTE_DIRECT;
					else
						kind = TROUTE_VIA;
					for (p = 0; kind == TROUTE_VIA &&
					     p < ps.nplans; p++)
						for (q = 0; q < ps.nplans; q++)
							for (w = 0; w < fb.n; w++) {
								unsigned int h;

								if ((p != q && !ps.any_pair) ||
								    !walk(&fb, &ps.plans[p], src, w) ||
								    !walk(&fb, &ps.plans[q], w, d))
									continue;
								h = walk_hops(&fb, &ps.plans[p], src, w) +
								    walk_hops(&fb, &ps.plans[q], w, d);
								if (h < best) {
									best = h;
									bp = p * ps.nplans + q;
									bw = w;
								}
							}
					if (kind == TROUTE_VIA && best == UINT32_MAX)
						kind = TROUTE_UNREACHABLE;
					if (tab[d].kind != kind) {
						wrong++;
						continue;
					}
					if (kind != TROUTE_VIA)
						continue;
					via++;
					wrong += tab[d].hops != best ||
						 tab[d].via != bw ||
						 tab[d].plan0 * ps.nplans +
						 tab[d].plan1 != bp;
				}
			}
			troute_ctx_free(&fb.c);
		}
	fprintf(stderr, "    %u two-round routes checked\n", via);
	UNIT_CHECK(wrong == 0);
	UNIT_CHECK(via > 0);
}

static void one_ring(struct fab *fb, unsigned int e)
{
	memset(fb, 0, sizeof(*fb));
	fb->f.ndims = 1;
	fb->f.dims[0] = e;
	fb->f.wrap = 1;
	fb->f.dead = fb->dead;
	fb->f.cut = fb->cut;
	fb->n = e;
	troute_ctx_init(&fb->c, &fb->f);
}

/* a ring needs its dateline; datelines make it acyclic */
UNIT_TEST(troute_cdg_ring_needs_dateline)
{
	struct troute_cdg_opts o = { 0 };
	struct troute_cdg_result r;
	struct troute_planset ps;
	struct fab fb;

	one_ring(&fb, 8);
	troute_planset_paper(&fb.f, &ps);
	o.cls[0][1] = 1;
	UNIT_CHECK(!troute_cdg_check(&fb.c, &ps, &o, &r));
	UNIT_CHECK(r.acyclic && r.channels == 2 * 2 * 2 * 8);
	o.no_dateline = true;
	UNIT_CHECK(!troute_cdg_check(&fb.c, &ps, &o, &r));
	UNIT_CHECK(!r.acyclic && r.cycle_len >= 8);
	troute_ctx_free(&fb.c);
}

/* two plans in one virtual-channel class: refused */
UNIT_TEST(troute_cdg_plans_share_class_refused)
{
	struct troute_cdg_opts o = { 0 };
	unsigned int p;
	struct troute_cdg_result r;
	struct troute_planset ps;
	struct fab fb;

	make_fab(&fb, 4, 4, 1, 0, 600, 0, 0);
	troute_planset_free(&fb.f, &ps);
	UNIT_CHECK(ps.nplans >= 2);
	UNIT_CHECK(!troute_cdg_check(&fb.c, &ps, NULL, &r));
	UNIT_CHECK(r.acyclic);
	for (p = 0; p < ps.nplans; p++) { /* XYZ and ZYX share a class */
		o.cls[p][0] = 2 * p;
		o.cls[p][1] = 2 * p + 1;
	}
	o.cls[1][0] = o.cls[0][0];
	UNIT_CHECK(!troute_cdg_check(&fb.c, &ps, &o, &r));
	UNIT_CHECK(!r.acyclic && r.cycle_len >= 4);
	troute_ctx_free(&fb.c);
}

/* every shape, both modes, faults: the default classes are acyclic */
UNIT_TEST(troute_cdg_plan_sets_acyclic)
{
	struct troute_cdg_result r;
	struct troute_planset ps;
	unsigned int i, mode, bad = 0;
	struct fab fb;

	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		for (mode = 0; mode < 2; mode++) {
			const struct shape *sh = &shapes[i];

			make_fab(&fb, sh->d[0], sh->d[1], sh->d[2], sh->wrap,
				 700 + i, sh->dead, sh->cut);
			if (mode)
				troute_planset_free(&fb.f, &ps);
			else
				troute_planset_paper(&fb.f, &ps);
			UNIT_CHECK(!troute_cdg_check(&fb.c, &ps, NULL, &r));
			bad += !r.acyclic;
			troute_ctx_free(&fb.c);
		}
	UNIT_CHECK(bad == 0);
}

/* a fabric cut in two: the halves need no lambs for each other */
UNIT_TEST(troute_disconnected_pairs_need_no_lambs)
{
	struct troute_verdict got, want;
	struct troute_lamb_stats st;
	struct troute_planset ps;
	static uint8_t lamb[MAXN];
	struct troute_sets s;
	unsigned int n, mode;
	struct fab fb;

	for (mode = 0; mode < 2; mode++) {
		make_fab(&fb, 6, 6, 6, 0, 800, 0, 0);
		for (n = 0; n < fb.n; n++)
			fb.dead[n] = n % 6 == 3; /* the plane x = 3 */
		troute_ctx_free(&fb.c);
		troute_ctx_init(&fb.c, &fb.f);
		if (mode)
			troute_planset_free(&fb.f, &ps);
		else
			troute_planset_paper(&fb.f, &ps);
		UNIT_CHECK(!troute_sets_init(&s, &fb.c, &ps));
		UNIT_CHECK(!troute_lambs(&fb.c, &s, lamb, &st));
		troute_sets_free(&s);
		UNIT_CHECK(st.lambs == 0);
		brute_reach(&fb, &ps, &brute);
		brute_verdict(&fb, &ps, &brute, lamb, &want);
		UNIT_CHECK(!troute_verify(&fb.c, &ps, lamb, &got));
		UNIT_CHECK(same_verdict(&got, &want));
		UNIT_CHECK(got.bad == 0 && got.disconnected == 2 * 108 * 72);
		troute_ctx_free(&fb.c);
	}
}

static const struct unit_case cases[] = {
	UNIT_CASE(troute_reach1_matches_walk),
	UNIT_CASE(troute_verify_matches_brute_force),
	UNIT_CASE(troute_lambs_cover_and_verifier_finds_planted_pair),
	UNIT_CASE(troute_free_beats_paper),
	UNIT_CASE(troute_disconnected_pairs_need_no_lambs),
	UNIT_CASE(troute_table_matches_brute_force),
	UNIT_CASE(troute_cdg_ring_needs_dateline),
	UNIT_CASE(troute_cdg_plans_share_class_refused),
	UNIT_CASE(troute_cdg_plan_sets_acyclic),
};

UNIT_MAIN(cases)
