// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of one node's route set (daemon/core/troute_node.c), what
 * torusd installs: on a 4x4x4 torus and mesh with dead nodes and cut
 * cables, the lamb set passes the exact verifier, every route's path is
 * walked hop by hop over live nodes and uncut cables to its destination,
 * and a set whose channel graph has a cycle is flagged (not installed).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "troute_node.h"
#include "unit.h"

#define DIM	4
#define NN	(DIM * DIM * DIM)

struct fab {
	struct troute_faults f;
	uint8_t dead[NN];
	uint16_t cut[NN];
};

static unsigned int idx(unsigned int x, unsigned int y, unsigned int z)
{
	return x + DIM * (y + DIM * z);
}

/* the neighbour of n along axis a, "+" or "-" (rings wrap) */
static unsigned int nbr(unsigned int n, unsigned int a, bool neg)
{
	unsigned int s = a == 0 ? 1 : a == 1 ? DIM : DIM * DIM;
	unsigned int pos = n / s % DIM;

	return n - pos * s + ((pos + (neg ? DIM - 1 : 1)) % DIM) * s;
}

static void cut_cable(struct fab *fb, unsigned int n, unsigned int a)
{
	fb->cut[n] |= 1u << TORUS_DIR(a, 0);
	fb->cut[nbr(n, a, false)] |= 1u << TORUS_DIR(a, 1);
}

/*
 * The reroute scenario's faults (tests/vm/reroute_test.py): two dead
 * nodes and three cut cables
 */
static void make_fab(struct fab *fb, unsigned int wrap)
{
	memset(fb, 0, sizeof(*fb));
	fb->f.ndims = 3;
	fb->f.dims[0] = fb->f.dims[1] = fb->f.dims[2] = DIM;
	fb->f.wrap = wrap;
	fb->f.dead = fb->dead;
	fb->f.cut = fb->cut;
	fb->dead[idx(1, 1, 1)] = 1;
	fb->dead[idx(2, 3, 0)] = 1;
	cut_cable(fb, idx(0, 0, 0), 0);
	cut_cable(fb, idx(1, 0, 0), 1);
	cut_cable(fb, idx(2, 2, 2), 2);
}

/* every hop leaves a live node over an uncut cable; the last one lands */
static bool path_ok(const struct fab *fb, const struct troute_node_set *s,
		    unsigned int dst)
{
	struct troute_hop hops[4 * 3 * DIM];
	unsigned int i, at = s->self;
	int n;

	n = troute_node_path(s, dst, hops, 4 * 3 * DIM);
	if (n < 0)
		return false;
	for (i = 0; i < (unsigned int)n; i++) {
		const struct troute_hop *h = &hops[i];
		unsigned int a = h->dir >> 1;

		if (h->node != at || fb->dead[at] ||
		    (fb->cut[at] & (1u << h->dir)))
			return false;
		if (!(fb->f.wrap & (1u << a)) &&
		    (at / (a == 0 ? 1 : a == 1 ? DIM : DIM * DIM) % DIM) ==
		    ((h->dir & 1) ? 0u : DIM - 1u))
			return false;	/* off a mesh's edge */
		at = nbr(at, a, h->dir & 1);
	}
	return at == dst && !fb->dead[at];
}

static void check_set(bool *unit_ok, unsigned int wrap)
{
	struct troute_node_set s;
	struct troute_verdict v;
	unsigned int self, d, routed;
	struct fab fb;

	make_fab(&fb, wrap);
	for (self = 0; self < NN; self++) {
		if (fb.dead[self])
			continue;
		UNIT_CHECK(!troute_node_build(&fb.f, self, NULL, &s));
		UNIT_CHECK(s.cdg.acyclic);
		UNIT_CHECK(s.dead == 2 && s.cuts == 3);
		UNIT_CHECK(s.ps.nplans == 4);
		if (self == 0) {
			UNIT_CHECK(!troute_verify(&s.c, &s.ps, s.lamb, &v));
			UNIT_CHECK(v.bad == 0);
			UNIT_CHECK(v.two_round > 0);
		}
		if (s.lamb[self]) {
			troute_node_free(&s);
			continue;
		}
		routed = 0;
		for (d = 0; d < NN; d++) {
			bool want = !fb.dead[d] && !s.lamb[d] && d != self;

			if (!want) {
				UNIT_CHECK(d == self ||
					   s.table[d].kind ==
					   TROUTE_UNREACHABLE);
				continue;
			}
			UNIT_CHECK(path_ok(&fb, &s, d));
			routed++;
		}
		UNIT_CHECK(routed == NN - 3 - s.lambs + s.lamb[self]);
		UNIT_CHECK(s.unreachable == 0);
		troute_node_free(&s);
	}
}

/* the faults block some DOR paths, and every one gets a detour route */
UNIT_TEST(troute_node_torus_routes_every_survivor)
{
	struct troute_node_set s;
	struct fab fb;

	check_set(unit_ok, 7);
	make_fab(&fb, 7);
	UNIT_CHECK(!troute_node_build(&fb.f, idx(0, 0, 0), NULL, &s));
	UNIT_CHECK(s.exceptions > 0 && s.lambs == 0);
	/* (1,0,0) is one hop away, but that cable is cut: a via route */
	UNIT_CHECK(s.table[idx(1, 0, 0)].kind == TROUTE_VIA);
	troute_node_free(&s);
}

UNIT_TEST(troute_node_mesh_routes_every_survivor)
{
	check_set(unit_ok, 0);
}

/* no faults: no exception, no lamb, the path is DOR */
UNIT_TEST(troute_node_fault_free_needs_nothing)
{
	struct troute_hop hops[4 * 3 * DIM];
	struct troute_node_set s;
	struct fab fb;

	memset(&fb, 0, sizeof(fb));
	fb.f.ndims = 3;
	fb.f.dims[0] = fb.f.dims[1] = fb.f.dims[2] = DIM;
	fb.f.wrap = 7;
	fb.f.dead = fb.dead;
	fb.f.cut = fb.cut;
	UNIT_CHECK(!troute_node_build(&fb.f, 0, NULL, &s));
	UNIT_CHECK(s.exceptions == 0 && s.lambs == 0 && s.cdg.acyclic);
	UNIT_CHECK(troute_node_path(&s, idx(2, 3, 1), hops, 4 * 3 * DIM) ==
		   2 + 1 + 1);
	/* x first, "+" on the tie; -y from 0 crosses the wrap cable */
	UNIT_CHECK(hops[0].dir == TORUS_DIR(0, 0) && hops[0].vc == 0);
	UNIT_CHECK(hops[2].dir == TORUS_DIR(1, 1) && hops[2].vc == 1);
	UNIT_CHECK(troute_node_path(&s, 0, hops, 4 * 3 * DIM) == 0);
	UNIT_CHECK(troute_node_path(&s, idx(2, 3, 1), hops, 2) == -E2BIG);
	troute_node_free(&s);
}

/* every plan in one channel class: the graph has a cycle, flagged */
UNIT_TEST(troute_node_cyclic_set_is_flagged)
{
	struct troute_cdg_opts o = { 0 };
	struct troute_cdg_result r;
	struct troute_node_set s;
	struct fab fb;

	make_fab(&fb, 7);
	UNIT_CHECK(!troute_node_build(&fb.f, 0, &o, &s));
	UNIT_CHECK(!s.cdg.acyclic && s.cdg.cycle_len > 0);
	troute_node_free(&s);
	/* torusd's knob (--test-one-channel-class) checks this graph */
	UNIT_CHECK(!troute_cdg_fault_free(&fb.f, &o, &r));
	UNIT_CHECK(!r.acyclic && r.cycle_len > 0);
	UNIT_CHECK(!troute_node_build(&fb.f, 0, NULL, &s));
	UNIT_CHECK(s.cdg.acyclic);
	troute_node_free(&s);
}

/*
 * The daemon checks the fault-free graph once: every faulted graph is a
 * subgraph of it, and the routes are the same without the check
 */
UNIT_TEST(troute_node_fault_free_graph_covers_faults)
{
	struct troute_cdg_result free_r;
	struct troute_node_set s, t;
	unsigned int d;
	struct fab fb;

	make_fab(&fb, 7);
	UNIT_CHECK(!troute_cdg_fault_free(&fb.f, NULL, &free_r));
	UNIT_CHECK(free_r.acyclic);
	UNIT_CHECK(!troute_node_build(&fb.f, 0, NULL, &s));
	UNIT_CHECK(!troute_node_routes(&fb.f, 0, &t));
	UNIT_CHECK(s.cdg.acyclic && s.cdg.channels < free_r.channels &&
		   s.cdg.deps < free_r.deps);
	UNIT_CHECK(t.cdg.channels == 0);
	for (d = 0; d < NN; d++)
		UNIT_CHECK(!memcmp(&s.table[d], &t.table[d], sizeof(t.table[d])) &&
			   s.lamb[d] == t.lamb[d]);
	troute_node_free(&s);
	troute_node_free(&t);
}

static const struct unit_case cases[] = {
	UNIT_CASE(troute_node_torus_routes_every_survivor),
	UNIT_CASE(troute_node_mesh_routes_every_survivor),
	UNIT_CASE(troute_node_fault_free_needs_nothing),
	UNIT_CASE(troute_node_cyclic_set_is_flagged),
	UNIT_CASE(troute_node_fault_free_graph_covers_faults),
};

UNIT_MAIN(cases)
