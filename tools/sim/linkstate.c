// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * torus-sim: link-state convergence against the truth.
 *
 * Once discovery has placed the nodes, every node of the main frame (the
 * leader most placed nodes follow) must hold the records the truth
 * gives: for each placed node, the directions of its frame whose cable
 * does not reach a running node placed in the same frame (cut, dead,
 * unplaced, miswired).  Agreement is checked on the database digests
 * every round, and once exactly with tc_ls_faults().  Then, with
 * --ls-events, a node is killed and revived, a cable cut and restored,
 * and each time the rounds to agree again are counted.
 */
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define NONE	UINT32_MAX

/* a node's index in its frame, x + dims0 * (y + dims1 * z ...) */
static uint32_t ls_own_index(const struct tc_view *v)
{
	uint32_t i = 0;
	unsigned int k;

	for (k = v->ndims; k-- > 0;)
		i = i * v->dims[k] + v->coord[k];
	return i;
}

/*
 * The frame index of every running node placed in the main frame, and
 * the port labels it forwards on (@mapped, its view's port map: a cable
 * either end leaves out carries nothing, and is down for link state).
 */
static uint64_t ls_frame_index(const struct sim_ls_net *net, uint32_t *idx,
			       uint16_t *mapped, struct tc_view *main_view)
{
	uint32_t n = net->w->nnodes, u, votes = 0;
	uint64_t leader = 0;
	struct tc_view v;
	unsigned int g;

	/* the main frame holds most placed nodes: a majority vote */
	for (u = 0; u < n; u++) {
		struct tc_node *tn = net->node(net->ctx, u);

		idx[u] = NONE;
		if (!tn)
			continue;
		tc_view(tn, &v);
		if (v.state != TC_PLACED)
			continue;
		if (!votes)
			leader = v.leader;
		votes += leader == v.leader ? 1 : -1;
	}
	memset(main_view, 0, sizeof(*main_view));
	for (u = 0; u < n; u++) {
		struct tc_node *tn = net->node(net->ctx, u);

		mapped[u] = 0;
		if (!tn)
			continue;
		tc_view(tn, &v);
		if (v.state != TC_PLACED || v.leader != leader)
			continue;
		idx[u] = ls_own_index(&v);
		for (g = 0; g < 2u * v.ndims; g++)
			if (v.portmap[g] != TORUS_DIR_NONE)
				mapped[u] |= (uint16_t)(1u << v.portmap[g]);
		if (!main_view->leader)
			*main_view = v;
	}
	return leader;
}

static bool ls_dir_exists(const struct tc_view *f, const unsigned int *c,
			  unsigned int g)
{
	unsigned int k = g >> 1;

	if (f->dims[k] <= 1)
		return false;
	if (f->wrap & (1u << k))
		return true;
	return (g & 1) ? c[k] > 0 : c[k] + 1 < f->dims[k];
}

static void ls_coord(const struct tc_view *f, uint32_t i, unsigned int *c)
{
	unsigned int k;

	for (k = 0; k < f->ndims; k++) {
		c[k] = i % f->dims[k];
		i /= f->dims[k];
	}
}

/* the frame direction from the node at @cu to its neighbour at @cv */
static int ls_dir_between(const struct tc_view *f, const unsigned int *cu,
			  const unsigned int *cv, uint16_t good)
{
	int g = -1;
	unsigned int k;

	for (k = 0; k < f->ndims; k++) {
		unsigned int d = (cv[k] + f->dims[k] - cu[k]) % f->dims[k];

		if (!d)
			continue;
		if (g >= 0)
			return -1;	/* not a neighbour */
		if (d == 1 && !(f->dims[k] == 2 && (good & (1u << (2 * k)))))
			g = TORUS_DIR(k, 0);
		else if (d == f->dims[k] - 1u)
			g = TORUS_DIR(k, 1);
		else
			return -1;
		if (!(f->wrap & (1u << k)) && (d != 1 ? cu[k] == 0 :
					       cu[k] + 1 == f->dims[k]))
			return -1;	/* a mesh does not wrap */
	}
	return g;
}

/* the cable on port @l of @u joins two nodes of the main frame, in use */
static bool ls_cable_up(const struct sim_ls_net *net, const uint32_t *idx,
			const uint16_t *mapped, uint32_t u, unsigned int l)
{
	size_t i = (size_t)u * net->w->nports + l;
	uint32_t p = net->peer[i];

	return p != SIM_NO_PEER && !net->wrongp[i] && idx[p >> 4] != NONE &&
	       (mapped[u] & (1u << l)) && (mapped[p >> 4] & (1u << (p & 15)));
}

int sim_ls_truth(const struct sim_ls_net *net, struct sim_ls_truth *t)
{
	const struct sim_world *w = net->w;
	uint32_t n = w->nnodes, u, *idx = malloc(sizeof(*idx) * n);
	uint16_t *mapped = malloc(sizeof(*mapped) * n);
	unsigned int l, g, cu[TC_MAX_AXES], cv[TC_MAX_AXES];

	memset(t, 0, sizeof(*t));
	if (!idx || !mapped) {
		free(idx);
		free(mapped);
		return -1;
	}
	t->leader = ls_frame_index(net, idx, mapped, &t->frame);
	for (u = 0; u < n; u++) {
		uint16_t good = 0, want = 0;

		if (idx[u] == NONE)
			continue;
		t->placed++;
		ls_coord(&t->frame, idx[u], cu);
		for (l = 0; l < w->nports; l++) {
			uint32_t p = net->peer[(size_t)u * w->nports + l];
			int d;

			if (!ls_cable_up(net, idx, mapped, u, l))
				continue;
			ls_coord(&t->frame, idx[p >> 4], cv);
			d = ls_dir_between(&t->frame, cu, cv, good);
			if (d >= 0)
				good |= (uint16_t)(1u << d);
		}
		for (g = 0; g < 2u * t->frame.ndims; g++)
			if (ls_dir_exists(&t->frame, cu, g))
				want |= (uint16_t)(1u << g);
		if (want & ~good) {
			t->reporters++;
			t->digest += tc_ls_record_hash(idx[u], want & ~good);
		}
	}
	free(idx);
	free(mapped);
	return 0;
}

uint32_t sim_ls_disagree(const struct sim_ls_net *net,
			 const struct sim_ls_truth *t)
{
	uint32_t u, bad = 0;
	struct tc_ls_info info;
	struct tc_view v;

	for (u = 0; u < net->w->nnodes; u++) {
		struct tc_node *tn = net->node(net->ctx, u);

		if (!tn)
			continue;
		tc_view(tn, &v);
		if (v.state != TC_PLACED || v.leader != t->leader)
			continue;
		tc_ls_info(tn, &info);
		bad += !info.active || info.digest != t->digest;
	}
	return bad;
}

/*
 * tc_ls_faults() of @samples placed nodes (all if 0) against the truth:
 * the cut cables the truth's records give, and dead = every index no
 * running node of the main frame holds.  Returns the nodes that differ.
 */
uint32_t sim_ls_exact(const struct sim_ls_net *net,
		      const struct sim_ls_truth *t, uint32_t samples,
		      uint64_t *rng)
{
	const struct sim_world *w = net->w;
	uint32_t n = w->nnodes, u, i, bad = 0, nodes = 1, tries;
	uint32_t *idx = malloc(sizeof(*idx) * n);
	uint16_t *mapped = malloc(sizeof(*mapped) * n);
	unsigned int k, g, cu[TC_MAX_AXES];
	uint16_t *cut = NULL, *want_cut = NULL;
	uint8_t *dead = NULL, *want_dead = NULL;
	struct tc_view f;

	for (k = 0; k < t->frame.ndims; k++)
		nodes *= t->frame.dims[k];
	if (idx) {
		cut = malloc(sizeof(*cut) * nodes);
		want_cut = calloc(nodes, sizeof(*want_cut));
		dead = malloc(nodes);
		want_dead = malloc(nodes);
	}
	if (!idx || !mapped || !cut || !want_cut || !dead || !want_dead) {
		bad = NONE;
		goto out;
	}
	ls_frame_index(net, idx, mapped, &f);
	memset(want_dead, 1, nodes);
	for (u = 0; u < n; u++)
		if (idx[u] != NONE)
			want_dead[idx[u]] = 0;
	/* a cable is cut where a placed end does not reach a placed node */
	for (i = 0; i < nodes; i++) {
		if (want_dead[i])
			continue;
		ls_coord(&f, i, cu);
		for (g = 0; g < 2u * f.ndims; g++)
			if (ls_dir_exists(&f, cu, g))
				want_cut[i] |= (uint16_t)(1u << g);
	}
	for (u = 0; u < n; u++) {
		unsigned int l, cv[TC_MAX_AXES];

		if (idx[u] == NONE)
			continue;
		ls_coord(&f, idx[u], cu);
		for (l = 0; l < w->nports; l++) {
			uint32_t p = net->peer[(size_t)u * w->nports + l];
			int d;

			if (!ls_cable_up(net, idx, mapped, u, l))
				continue;
			ls_coord(&f, idx[p >> 4], cv);
			/* both ends must see it: judged from u's side only */
			d = ls_dir_between(&f, cu, cv,
					   (uint16_t)~want_cut[idx[u]]);
			if (d >= 0)
				want_cut[idx[u]] &= (uint16_t)~(1u << d);
		}
	}
	/* ... and as a record nobody can withdraw says */
	if (t->stale_mask && t->stale_idx < nodes)
		want_cut[t->stale_idx] |= t->stale_mask;
	/* the far end of a cut cable from a placed node is marked too */
	for (i = 0; i < nodes; i++) {
		if (want_dead[i] && !(t->stale_mask && i == t->stale_idx))
			continue;
		ls_coord(&f, i, cu);
		for (g = 0; g < 2u * f.ndims; g++) {
			unsigned int cv[TC_MAX_AXES], j = 0;

			if (!(want_cut[i] & (1u << g)))
				continue;
			memcpy(cv, cu, sizeof(cv));
			k = g >> 1;
			cv[k] = (g & 1) ? (cv[k] + f.dims[k] - 1) % f.dims[k] :
					  (cv[k] + 1) % f.dims[k];
			for (k = f.ndims; k-- > 0;)
				j = j * f.dims[k] + cv[k];
			want_cut[j] |= (uint16_t)(1u << (g ^ 1));
		}
	}
	tries = samples ? samples : n;
	for (i = 0; i < tries; i++) {
		struct tc_ls_info info;
		struct tc_node *tn;

		u = samples ? sim_below(rng, n) : i;
		tn = net->node(net->ctx, u);
		if (idx[u] == NONE || !tn)
			continue;
		/* its arrays are the size of its own fabric: a wrong one
		 * is a wrong fault set, not a place to write */
		tc_ls_info(tn, &info);
		if (info.nodes != nodes || tc_ls_faults(tn, dead, cut) < 0 ||
		    memcmp(dead, want_dead, nodes) ||
		    memcmp(cut, want_cut, nodes * sizeof(*cut)))
			bad++;
	}
out:
	free(idx);
	free(mapped);
	free(cut);
	free(want_cut);
	free(dead);
	free(want_dead);
	return bad;
}

/* ---- the measurement, round by round ---- */

static const char *const ls_phase_names[SIM_LS_PHASES] = {
	"initial", "kill", "revive", "cut", "restore",
};

const char *sim_ls_phase_name(unsigned int phase)
{
	return phase < SIM_LS_PHASES ? ls_phase_names[phase] : "?";
}

int sim_ls_init(struct sim_ls_state *st, const struct sim_world *w,
		bool events, uint64_t seed)
{
	unsigned int i;

	memset(st, 0, sizeof(*st));
	st->events = events;
	st->rng = seed ^ 0x6c696e6b73746174ULL;	/* "linkstat" */
	st->base = calloc(w->nnodes, sizeof(*st->base));
	for (i = 0; i < SIM_LS_PHASES; i++)
		st->res.rounds[i] = SIM_LS_NOT_RUN;
	return st->base ? 0 : -1;
}

void sim_ls_free(struct sim_ls_state *st)
{
	free(st->base);
	st->base = NULL;
}

bool sim_ls_done(const struct sim_ls_state *st)
{
	return !st->measuring;
}

/* LS bytes each running node sent since the phase began */
static void ls_bytes(struct sim_ls_state *st, const struct sim_ls_net *net,
		     bool reset)
{
	struct sim_ls_result *r = &st->res;
	uint32_t u, nodes = 0;
	double sum = 0, max = 0;
	struct tc_stats s;

	for (u = 0; u < net->w->nnodes; u++) {
		struct tc_node *tn = net->node(net->ctx, u);
		double b;

		if (!tn)
			continue;
		tc_get_stats(tn, &s);
		if (reset) {
			st->base[u] = s.ls_bytes_tx;
			continue;
		}
		/* a node started since (revived) counts from zero */
		b = (double)(s.ls_bytes_tx >= st->base[u] ?
			     s.ls_bytes_tx - st->base[u] : s.ls_bytes_tx);
		sum += b;
		if (b > max)
			max = b;
		nodes++;
		if (st->phase == SIM_LS_INITIAL) {
			struct tc_ls_info info;

			tc_ls_info(tn, &info);
			r->msgs_mean += (double)s.ls_msgs_tx;
			r->overflow += s.ls_overflow;
			if (info.records > r->records_max)
				r->records_max = info.records;
			r->capacity = info.capacity;
		}
	}
	if (reset || !nodes)
		return;
	r->bytes_mean[st->phase] = sum / nodes;
	r->bytes_max[st->phase] = max;
	if (st->phase == SIM_LS_INITIAL)
		r->msgs_mean /= nodes;
}

/* a running node of the main frame, not its leader, at random */
static bool ls_pick_node(struct sim_ls_state *st, const struct sim_ls_net *net,
			 const struct sim_ls_truth *t, uint32_t *pick)
{
	uint32_t n = net->w->nnodes, tries;
	struct tc_view v;

	for (tries = 0; tries < 64 * n; tries++) {
		uint32_t u = sim_below(&st->rng, n);
		struct tc_node *tn = net->node(net->ctx, u);

		if (!tn)
			continue;
		tc_view(tn, &v);
		if (v.state == TC_PLACED && v.leader == t->leader &&
		    net->w->ids[u] != t->leader) {
			*pick = u;
			return true;
		}
	}
	return false;
}

/* a cable between two running nodes of the main frame, at random */
static bool ls_pick_cable(struct sim_ls_state *st, const struct sim_ls_net *net,
			  const struct sim_ls_truth *t,
			  struct sim_ls_action *a)
{
	const struct sim_world *w = net->w;
	unsigned int tries;
	uint32_t u, p;

	for (tries = 0; tries < 4096; tries++) {
		struct tc_view v;
		uint8_t l;

		if (!ls_pick_node(st, net, t, &u))
			return false;
		l = (uint8_t)sim_below(&st->rng, w->nports);
		p = net->peer[(size_t)u * w->nports + l];
		if (p == SIM_NO_PEER ||
		    net->wrongp[(size_t)u * w->nports + l] ||
		    !net->node(net->ctx, p >> 4))
			continue;
		tc_view(net->node(net->ctx, p >> 4), &v);
		if (v.state != TC_PLACED || v.leader != t->leader)
			continue;
		a->u = u;
		a->lu = l;
		a->v = p >> 4;
		a->lv = p & 15;
		return true;
	}
	return false;
}

/* what the victim's own record says as it dies (mask 0: none) */
static void ls_last_word(struct sim_ls_state *st,
			 const struct sim_ls_net *net)
{
	struct tc_node *tn = net->node(net->ctx, st->victim);
	struct tc_view v;
	uint32_t seq;

	tc_view(tn, &v);
	st->victim_idx = ls_own_index(&v);
	if (tc_ls_record(tn, v.coord, &seq, &st->victim_mask))
		st->victim_mask = 0;
}

/* the action that starts the phase after @phase, SIM_LS_ACT_NONE: done */
static void ls_next(struct sim_ls_state *st, const struct sim_ls_net *net,
		    const struct sim_ls_truth *t, struct sim_ls_action *a)
{
	a->kind = SIM_LS_ACT_NONE;
	if (!st->events || st->phase + 1 >= SIM_LS_PHASES)
		return;
	switch (st->phase + 1) {
	case SIM_LS_KILL:
		if (ls_pick_node(st, net, t, &st->victim)) {
			a->kind = SIM_LS_ACT_KILL;
			a->u = st->victim;
			ls_last_word(st, net);
		}
		break;
	case SIM_LS_REVIVE:
		a->kind = SIM_LS_ACT_REVIVE;
		a->u = st->victim;
		break;
	case SIM_LS_CUT:
		if (ls_pick_cable(st, net, t, &st->cable))
			*a = st->cable, a->kind = SIM_LS_ACT_CUT;
		break;
	case SIM_LS_RESTORE:
		*a = st->cable;
		a->kind = SIM_LS_ACT_PLUG;
		break;
	}
}

void sim_ls_round(struct sim_ls_state *st, const struct sim_ls_net *net,
		  uint32_t t, bool ready, uint32_t phase_cap,
		  struct sim_ls_action *act)
{
	struct sim_ls_result *r = &st->res;
	struct sim_ls_truth truth;
	uint32_t bad;

	act->kind = SIM_LS_ACT_NONE;
	if (!st->measuring) {
		if (st->started || !ready)
			return;
		/* discovery placed everybody: the measurement starts */
		st->started = st->measuring = true;
		st->phase = SIM_LS_INITIAL;
		st->t0 = t;
		r->measured = true;
		r->agree = r->exact = true;
		r->started_at = t;
	}
	/* a phase's event settles in discovery before we look */
	if (!ready && t - st->t0 <= phase_cap)
		return;
	if (sim_ls_truth(net, &truth)) {
		st->measuring = false;
		r->agree = false;
		return;
	}
	if (st->phase == SIM_LS_KILL && st->victim_mask) {
		truth.stale_idx = st->victim_idx;
		truth.stale_mask = st->victim_mask;
		truth.digest += tc_ls_record_hash(st->victim_idx,
						  st->victim_mask);
	}
	bad = sim_ls_disagree(net, &truth);
	if (bad && t - st->t0 <= phase_cap)
		return;
	if (bad) {
		ls_bytes(st, net, false);	/* what it cost meanwhile */
		r->rounds[st->phase] = SIM_LS_TIMEOUT;
		r->agree = false;
		r->disagree = bad;
		st->measuring = false;
		return;
	}
	r->rounds[st->phase] = t - st->t0;
	ls_bytes(st, net, false);
	if (st->phase == SIM_LS_INITIAL)
		r->reporters = truth.reporters;
	if (sim_ls_exact(net, &truth, net->w->nnodes > 4096 ? 8 : 0,
			 &st->rng))
		r->exact = false;
	ls_next(st, net, &truth, act);
	if (act->kind == SIM_LS_ACT_NONE) {
		st->measuring = false;
		return;
	}
	ls_bytes(st, net, true);
	st->phase++;
	st->t0 = t;
}
