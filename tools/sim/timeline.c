// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * timeline.c - the history of one run: power-on times, daemon restarts,
 * cables cut and replugged (into the right or a wrong port), slabs added
 * to the fabric, and which nodes lie
 *
 * Everything is drawn from the seed's own streams (SIM_STREAM_START for
 * power-on order, SIM_STREAM_FAULT for the rest), so that adding, say,
 * --loss does not change when nodes start.  The engine replays the
 * events; the ground truth it checks against follows them (a replugged
 * cable is what it now is; after --grow the fabric is the grown one).
 */
#include <stdlib.h>
#include <string.h>
#include "sim.h"

struct builder {
	struct sim_schedule *s;
	uint32_t cap, gcap;
	uint32_t *start;		/* per node: power-on tick */
	bool nomem;
};

static void add(struct builder *b, bool grow, uint32_t tick, uint8_t kind,
		uint32_t u, uint8_t lu, uint32_t v, uint8_t lv, bool wrong)
{
	struct sim_schedule *s = b->s;
	struct sim_event **ev = grow ? &s->gev : &s->ev;
	uint32_t *n = grow ? &s->ngev : &s->nev, *cap = grow ? &b->gcap : &b->cap;
	struct sim_event *e;

	if (*n == *cap) {
		uint32_t nc = *cap ? 2 * *cap : 256;

		e = realloc(*ev, sizeof(**ev) * nc);
		if (!e) {
			b->nomem = true;
			return;
		}
		*ev = e;
		*cap = nc;
	}
	e = &(*ev)[(*n)++];
	memset(e, 0, sizeof(*e));
	e->tick = tick;
	e->kind = kind;
	e->u = u;
	e->lu = lu;
	e->v = v;
	e->lv = lv;
	e->wrong = wrong;
	if (!grow && tick > s->last_event)
		s->last_event = tick;
}

static int ev_cmp(const void *a, const void *b)
{
	const struct sim_event *x = a, *y = b;

	if (x->tick != y->tick)
		return x->tick < y->tick ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->u != y->u)
		return x->u < y->u ? -1 : 1;
	return (int)x->lu - (int)y->lu;
}

/* the node is in slab @slab (counted from 0) along the --grow axis */
bool sim_in_slab(const struct sim_world *w, uint32_t u, unsigned int slab)
{
	const struct sim_opts *o = w->o;
	unsigned int a = (unsigned int)o->grow_axis;

	return (u / w->stride[a]) % o->dims[a] == slab;
}

static bool is_grown(const struct sim_world *w, uint32_t u)
{
	const struct sim_opts *o = w->o;
	unsigned int a = (unsigned int)o->grow_axis;

	return o->grow_axis >= 0 &&
	       (u / w->stride[a]) % o->dims[a] >=
	       (uint32_t)(o->dims[a] - o->grow_slabs);
}

struct order_key {
	uint64_t key;
	uint32_t u;
};

static int key_cmp(const void *a, const void *b)
{
	const struct order_key *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->u < y->u ? -1 : x->u > y->u;
}

/*
 * Power-on ticks of the nodes in @set (the fabric, or the added slabs),
 * spread over [base, base + T] in the chosen order.
 */
static int starts(struct builder *b, const struct sim_world *w, bool grow,
		  uint64_t *rng)
{
	const struct sim_opts *o = w->o;
	uint32_t T = o->start_spread, n = 0, i, u;
	struct order_key *k = malloc(sizeof(*k) * w->nnodes);
	unsigned int a, c[TC_MAX_AXES];

	if (!k)
		return -1;
	for (u = 0; u < w->nnodes; u++) {
		if (is_grown(w, u) != grow)
			continue;
		k[n].u = u;
		switch (o->start_order) {
		case SIM_START_RANDOM:
			k[n].key = sim_below(rng, T + 1);
			break;
		case SIM_START_IDS:
			k[n].key = w->ids[u];
			break;
		case SIM_START_COORDS:
			k[n].key = u;
			break;
		case SIM_START_AXES:
			/* the group: 0 for the origin, a + 1 for nodes whose
			 * last nonzero coordinate is on axis a */
			sim_coords(w, u, c);
			k[n].key = 0;
			for (a = 0; a < o->ndims; a++)
				if (c[a])
					k[n].key = a + 1;
			k[n].key = k[n].key << 32 | sim_below(rng, UINT32_MAX);
			break;
		}
		n++;
	}
	if (o->start_order != SIM_START_RANDOM)
		qsort(k, n, sizeof(*k), key_cmp);
	for (i = 0; i < n; i++) {
		uint64_t t;

		if (o->start_order == SIM_START_RANDOM)
			t = k[i].key;
		else if (o->start_order == SIM_START_AXES)
			t = (uint64_t)T * (k[i].key >> 32) / o->ndims;
		else
			t = n > 1 ? (uint64_t)T * i / (n - 1) : 0;
		add(b, grow, (uint32_t)t, SIM_EV_START, k[i].u, 0, 0, 0,
		    false);
		b->start[k[i].u] = (uint32_t)t;
		if (!grow && t > b->s->initial_done)
			b->s->initial_done = (uint32_t)t;
	}
	free(k);
	return 0;
}

/* a random cable of the tick-0 wiring, both ends in the fabric from the
 * start and away from the seam --grow rewires; false if none found */
static bool pick_cable(const struct sim_world *w, const uint32_t *peer,
		       const uint8_t *used, uint64_t *rng, uint32_t *u,
		       uint8_t *lu)
{
	const struct sim_opts *o = w->o;
	unsigned int tries;

	for (tries = 0; tries < 1000; tries++) {
		uint32_t x = sim_below(rng, w->nnodes), p;
		uint8_t l = (uint8_t)sim_below(rng, w->nports);

		p = peer[(size_t)x * w->nports + l];
		if (p == SIM_NO_PEER || used[x] || used[p >> 4])
			continue;
		if (o->grow_axis >= 0 &&
		    (sim_in_slab(w, x, 0) || sim_in_slab(w, p >> 4, 0) ||
		     sim_in_slab(w, x, o->dims[o->grow_axis] - o->grow_slabs - 1) ||
		     sim_in_slab(w, p >> 4,
				 o->dims[o->grow_axis] - o->grow_slabs - 1)))
			continue;
		*u = x;
		*lu = l;
		return true;
	}
	return false;
}

static uint32_t honest_node(const struct sim_world *w,
			    const struct sim_schedule *s, uint64_t *rng)
{
	unsigned int tries;

	for (tries = 0; tries < 1000; tries++) {
		uint32_t u = sim_below(rng, w->nnodes);

		if (w->alive[u] && !s->liar[u] && !s->grown[u])
			return u;
	}
	return SIM_NO_PEER;
}

int sim_schedule_build(struct sim_schedule *s, const struct sim_world *w,
		       unsigned int quiet)
{
	const struct sim_opts *o = w->o;
	uint64_t rs = sim_stream(w->seed, SIM_STREAM_START);
	uint64_t rf = sim_stream(w->seed, SIM_STREAM_FAULT);
	uint32_t n = w->nnodes, u, i, np = w->nports, horizon;
	uint8_t *used = NULL;
	struct builder b;

	memset(s, 0, sizeof(*s));
	memset(&b, 0, sizeof(b));
	b.s = s;
	s->peer0 = malloc(sizeof(*s->peer0) * n * np);
	s->liar = calloc(n, 1);
	s->grown = calloc(n, 1);
	used = calloc(n, 1);
	b.start = calloc(n, sizeof(*b.start));
	if (!s->peer0 || !s->liar || !s->grown || !used || !b.start)
		goto nomem;
	memcpy(s->peer0, w->peer, sizeof(*s->peer0) * n * np);
	memcpy(s->dims0, o->dims, sizeof(s->dims0));

	/* liars first: restarts and the like pick honest nodes */
	for (i = 0; i < o->liars && i < w->live; i++) {
		do
			u = sim_below(&rf, n);
		while (!w->alive[u] || s->liar[u]);
		s->liar[u] = 1;
		s->nliars++;
	}

	if (o->grow_axis >= 0) {
		unsigned int a = (unsigned int)o->grow_axis;
		unsigned int last = o->dims[a] - o->grow_slabs - 1;
		uint32_t *gp = malloc(sizeof(*gp) * n * np);

		if (!gp)
			goto nomem;
		s->dims0[a] = o->dims[a] - o->grow_slabs;
		for (u = 0; u < n; u++)
			s->grown[u] = is_grown(w, u);
		/* cables to the added slabs come with them */
		memcpy(gp, s->peer0, sizeof(*gp) * n * np);
		for (u = 0; u < n; u++) {
			for (i = 0; i < np; i++) {
				uint32_t p = s->peer0[(size_t)u * np + i];

				if (p == SIM_NO_PEER ||
				    (!s->grown[u] && !s->grown[p >> 4]))
					continue;
				s->peer0[(size_t)u * np + i] = SIM_NO_PEER;
				if (u < (p >> 4) || (u == (p >> 4) && i < (p & 15)))
					add(&b, true, 0, SIM_EV_PLUG, u, i,
					    p >> 4, p & 15, false);
			}
		}
		/*
		 * A ring is closed before it grows: slab @last's +axis
		 * cable goes back to slab 0, on the connectors the grown
		 * ring uses; growing cuts it.
		 */
		if (o->wrap & (1u << a)) {
			for (u = 0; u < n; u++) {
				const struct sim_rot *ru, *rv;
				uint32_t v;
				uint8_t lu, lv;

				if (!sim_in_slab(w, u, last))
					continue;
				v = u - last * w->stride[a];
				ru = &w->rots[w->rot_of[u]];
				rv = &w->rots[w->rot_of[v]];
				lu = ru->inv[TORUS_DIR(a, 0)];
				lv = rv->inv[TORUS_DIR(a, 1)];
				/* the cable exists if the grown ring's
				 * wrap cable into slab 0 does */
				if (gp[(size_t)v * np + lv] == SIM_NO_PEER)
					continue;
				s->peer0[(size_t)u * np + lu] = v << 4 | lv;
				s->peer0[(size_t)v * np + lv] = u << 4 | lu;
				add(&b, true, 0, SIM_EV_CUT, u, lu, v, lv,
				    false);
			}
		}
		free(gp);
		if (starts(&b, w, true, &rs))
			goto nomem;
	}
	if (starts(&b, w, false, &rs))
		goto nomem;

	/* faults land while the fabric comes up and after it settled */
	horizon = o->start_spread + 2 * (quiet + w->diameter) + 1;
	for (i = 0; i < o->restarts; i++) {
		uint32_t t = 1 + sim_below(&rf, horizon), down;

		u = honest_node(w, s, &rf);
		if (u == SIM_NO_PEER)
			break;
		/* a daemon restarts once its node is on */
		if (t <= b.start[u])
			t = b.start[u] + 1;
		down = 1 + sim_below(&rf, 2u * (o->hello_ticks ? o->hello_ticks : 10));
		add(&b, false, t, SIM_EV_STOP, u, 0, 0, 0, false);
		add(&b, false, t + down, SIM_EV_START, u, 0, 0, 0, false);
	}
	for (i = 0; i < o->recables; i++) {
		uint32_t t = 1 + sim_below(&rf, horizon), p;
		uint32_t later = 1 + sim_below(&rf, 2u * o->dead_ticks);
		uint8_t lu;

		if (!pick_cable(w, s->peer0, used, &rf, &u, &lu))
			break;
		p = s->peer0[(size_t)u * np + lu];
		used[u] = used[p >> 4] = 1;
		add(&b, false, t, SIM_EV_CUT, u, lu, p >> 4, p & 15, false);
		add(&b, false, t + later, SIM_EV_PLUG, u, lu, p >> 4, p & 15,
		    false);
	}
	/* a wrong plug: two cables swapped at one end each */
	for (i = 0; i < o->wrong_plugs; i++) {
		uint32_t t = 1 + sim_below(&rf, horizon), p, q, x;
		uint32_t later = 1 + sim_below(&rf, 2u * o->dead_ticks);
		uint8_t lu, lx;

		if (!pick_cable(w, s->peer0, used, &rf, &u, &lu))
			break;
		p = s->peer0[(size_t)u * np + lu];
		used[u] = used[p >> 4] = 1;
		if (!pick_cable(w, s->peer0, used, &rf, &x, &lx))
			break;
		q = s->peer0[(size_t)x * np + lx];
		used[x] = used[q >> 4] = 1;
		add(&b, false, t, SIM_EV_CUT, u, lu, p >> 4, p & 15, false);
		add(&b, false, t, SIM_EV_CUT, x, lx, q >> 4, q & 15, false);
		add(&b, false, t + later, SIM_EV_PLUG, u, lu, q >> 4, q & 15,
		    true);
		add(&b, false, t + later, SIM_EV_PLUG, x, lx, p >> 4, p & 15,
		    true);
	}
	/* the test knob: the checks believe pairs of nodes swapped places */
	if (o->truth_swaps) {
		s->truth_of = malloc(sizeof(*s->truth_of) * n);
		if (!s->truth_of)
			goto nomem;
		for (u = 0; u < n; u++)
			s->truth_of[u] = u;
		for (i = 0; i < o->truth_swaps; i++) {
			uint32_t x = honest_node(w, s, &rf);
			uint32_t y = honest_node(w, s, &rf);

			if (x == SIM_NO_PEER || y == SIM_NO_PEER || x == y)
				continue;
			s->truth_of[x] = y;
			s->truth_of[y] = x;
		}
	}
	if (b.nomem)
		goto nomem;
	qsort(s->ev, s->nev, sizeof(*s->ev), ev_cmp);
	if (s->ngev)
		qsort(s->gev, s->ngev, sizeof(*s->gev), ev_cmp);
	free(used);
	free(b.start);
	return 0;
nomem:
	free(used);
	free(b.start);
	sim_schedule_free(s);
	return -1;
}

void sim_schedule_free(struct sim_schedule *s)
{
	free(s->peer0);
	free(s->ev);
	free(s->gev);
	free(s->liar);
	free(s->grown);
	free(s->truth_of);
	memset(s, 0, sizeof(*s));
}
