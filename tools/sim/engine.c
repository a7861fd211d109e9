// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * engine.c - run one world in synchronous rounds, then check the result
 *
 * Round t delivers every message sent in round t-1 (in the order they
 * were sent), then ticks every live node once; what the nodes send
 * during round t goes into the other of two message arenas.  A node is
 * one tc_node_size() slot of one big array; the arenas hold headers and
 * payloads back to back and only grow, so steady state allocates
 * nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "sim.h"

struct sim_msg {
	uint32_t dst;
	uint16_t len;
	uint8_t port;
	uint8_t pad;
};

struct sim_queue {
	uint8_t *buf;
	size_t len, cap;
};

struct engine {
	const struct sim_world *w;
	uint8_t *nodes;
	size_t nsize;
	struct sim_queue q[2];
	struct sim_queue *tx;
	uint32_t cur;			/* node whose call is running */
	uint64_t sent;			/* messages queued, all rounds */
	uint64_t dropped;		/* no cable, cable cut, peer dead */
	uint32_t oversize;
	bool nomem;
};

#define NODE(e, u)	((struct tc_node *)((e)->nodes + (size_t)(u) * (e)->nsize))

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void eng_send(void *ctx, uint8_t port, const uint8_t *msg, size_t len)
{
	struct engine *e = ctx;
	const struct sim_world *w = e->w;
	struct sim_queue *q = e->tx;
	struct sim_msg *h;
	size_t need;
	uint32_t p;

	if (port >= w->nports) {
		e->dropped++;
		return;
	}
	p = w->peer[(size_t)e->cur * w->nports + port];
	if (p == SIM_NO_PEER || !w->alive[p >> 4] || len > UINT16_MAX) {
		e->dropped++;
		return;
	}
	if (len > TC_MSG_MAX)
		e->oversize++;
	need = sizeof(*h) + ((len + 7) & ~(size_t)7);
	if (q->len + need > q->cap) {
		size_t cap = q->cap ? q->cap : 1 << 16;
		uint8_t *b;

		while (cap < q->len + need)
			cap *= 2;
		b = realloc(q->buf, cap);
		if (!b) {
			e->nomem = true;
			e->dropped++;
			return;
		}
		q->buf = b;
		q->cap = cap;
	}
	h = (struct sim_msg *)(q->buf + q->len);
	h->dst = p >> 4;
	h->port = p & 15;
	h->len = (uint16_t)len;
	h->pad = 0;
	memcpy(h + 1, msg, len);
	q->len += need;
	e->sent++;
}

/* what "rounds_coords" tracks: the frame and the place in it */
static uint64_t offset_hash(const struct tc_view *v)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ v->leader;
	unsigned int i;

	for (i = 0; i < TC_MAX_AXES && i < v->ndims; i++)
		h = (h ^ (uint16_t)v->offset[i]) * 0x100000001b3ULL;
	return h;
}

/* what "rounds" tracks: where the node is and how it is oriented */
static uint64_t view_hash(const struct tc_view *v)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	unsigned int i;

#define MIX(x)	(h = (h ^ (uint64_t)(x)) * 0x100000001b3ULL)
	MIX(v->ndims);
	MIX(v->wrap);
	for (i = 0; i < TC_MAX_AXES && i < v->ndims; i++) {
		MIX(v->coord[i]);
		MIX(v->dims[i]);
	}
	for (i = 0; i < TC_MAX_PORTS; i++)
		MIX(v->portmap[i]);
#undef MIX
	return h;
}

static bool is_final(uint8_t state)
{
	return state == TC_PLACED || state == TC_FAILED;
}

static const char *state_name(uint8_t s)
{
	switch (s) {
	case TC_DISCOVERING:	return "discovering";
	case TC_ORIENTED:	return "oriented";
	case TC_PLACED:		return "placed";
	case TC_FAILED:		return "failed";
	}
	return "unknown";
}

static void count_reason(struct sim_result *r, const struct tc_view *v)
{
	char text[TC_REASON_LEN];
	unsigned int i;

	if (v->reason[0])
		snprintf(text, sizeof(text), "%.*s", TC_REASON_LEN - 1,
			 v->reason);
	else
		snprintf(text, sizeof(text), "(%s, no reason)",
			 state_name(v->state));
	for (i = 0; i < r->nreasons; i++)
		if (!strcmp(r->reasons[i].text, text))
			break;
	if (i == r->nreasons) {
		if (r->nreasons == SIM_MAX_REASONS) {
			i = SIM_MAX_REASONS;
			strcpy(r->reasons[i].text, "(other reasons)");
		} else {
			strcpy(r->reasons[i].text, text);
			r->nreasons++;
		}
	}
	r->reasons[i].count++;
}

/* ---- checking against the ground truth ---- */

static uint32_t uf_find(uint32_t *p, uint32_t x)
{
	while (p[x] != x) {
		p[x] = p[p[x]];
		x = p[x];
	}
	return x;
}

struct frame {
	uint64_t leader;
	uint32_t comp;
	uint32_t nodes;
	uint8_t tdir[TC_MAX_PORTS];	/* frame direction -> true direction */
	uint8_t taxis[TC_MAX_AXES];	/* frame axis -> true axis or NONE */
	int8_t sign[TC_MAX_AXES];
	uint16_t off[TC_MAX_AXES];
	bool off_set;
	bool bad;
};

static uint32_t frame_lookup(uint32_t *slot, uint32_t mask,
			     struct frame *f, uint32_t *nf, uint64_t leader)
{
	uint32_t i = (uint32_t)(leader * 0x9e3779b97f4a7c15ULL >> 32) & mask;

	for (;; i = (i + 1) & mask) {
		if (slot[i] == UINT32_MAX) {
			memset(&f[*nf], 0, sizeof(f[*nf]));
			memset(f[*nf].tdir, TORUS_DIR_NONE, sizeof(f->tdir));
			memset(f[*nf].taxis, TORUS_DIR_NONE, sizeof(f->taxis));
			f[*nf].leader = leader;
			f[*nf].comp = UINT32_MAX;
			slot[i] = (*nf)++;
			return slot[i];
		}
		if (f[slot[i]].leader == leader)
			return slot[i];
	}
}

/* derive each frame's signed axis permutation from its port maps */
static void frame_axes(const struct sim_opts *o, struct frame *f)
{
	unsigned int fa, ta, used = 0, nd = o->ndims;

	for (fa = 0; fa < nd; fa++) {
		uint8_t tp = f->tdir[2 * fa], tm = f->tdir[2 * fa + 1], t;

		/*
		 * On a ring of two no wiring tells "+" from "-": nodes may
		 * map the frame's "+" to either true direction (checked per
		 * cable in pass 2), so only the axis must agree.
		 */
		if (tp != TORUS_DIR_NONE && tm != TORUS_DIR_NONE &&
		    tm != TORUS_DIR_OPPOSITE(tp) &&
		    !(tm == tp && o->dims[TORUS_DIR_AXIS(tp)] == 2 &&
		      (o->wrap & (1u << TORUS_DIR_AXIS(tp)))))
			f->bad = true;
		t = tp != TORUS_DIR_NONE ? tp :
		    tm != TORUS_DIR_NONE ? TORUS_DIR_OPPOSITE(tm) : TORUS_DIR_NONE;
		if (t == TORUS_DIR_NONE)
			continue;
		ta = TORUS_DIR_AXIS(t);
		if (used & (1u << ta))
			f->bad = true;
		used |= 1u << ta;
		f->taxis[fa] = ta;
		f->sign[fa] = TORUS_DIR_NEG(t) ? -1 : 1;
		f->tdir[2 * fa] = t;
		f->tdir[2 * fa + 1] = TORUS_DIR_OPPOSITE(t);
	}
	/* a frame must span every axis that has an extent */
	for (ta = 0; ta < nd; ta++)
		if (o->dims[ta] > 1 && !(used & (1u << ta)))
			f->bad = true;
}

static void print_dir(uint8_t d)
{
	if (d == TORUS_DIR_NONE)
		fprintf(stderr, " --");
	else
		fprintf(stderr, " %c%c", TORUS_DIR_NEG(d) ? '-' : '+',
			TORUS_AXIS_NAMES[TORUS_DIR_AXIS(d)]);
}

/* -v: what a node got wrong, for whoever debugs the core */
static void report_bad(const struct sim_world *w, uint32_t u,
		       const struct tc_view *v, const struct frame *f)
{
	const struct sim_rot *rot = &w->rots[w->rot_of[u]];
	unsigned int a, c[TC_MAX_AXES], nd = w->o->ndims;

	sim_coords(w, u, c);
	fprintf(stderr, "bad node %u id %016llx: true (", u,
		(unsigned long long)w->ids[u]);
	for (a = 0; a < nd; a++)
		fprintf(stderr, "%s%u", a ? "," : "", c[a]);
	fprintf(stderr, ") found (");
	for (a = 0; a < v->ndims && a < TC_MAX_AXES; a++)
		fprintf(stderr, "%s%u", a ? "," : "", v->coord[a]);
	fprintf(stderr, ") dims (");
	for (a = 0; a < v->ndims && a < TC_MAX_AXES; a++)
		fprintf(stderr, "%s%u", a ? "," : "", v->dims[a]);
	fprintf(stderr, ") wrap %#x\n  portmap (frame dir: label):", v->wrap);
	for (a = 0; a < 2 * nd; a++)
		print_dir(v->portmap[a]);
	fprintf(stderr, "\n  expected                  :");
	for (a = 0; a < 2 * nd; a++)
		print_dir(f->tdir[a] == TORUS_DIR_NONE ? TORUS_DIR_NONE :
			  rot->inv[f->tdir[a]]);
	fprintf(stderr, "\n  frame axis -> true:");
	for (a = 0; a < nd; a++)
		print_dir(f->tdir[2 * a]);
	fprintf(stderr, "\n");
}

static int check(struct engine *e, struct sim_result *r)
{
	const struct sim_world *w = e->w;
	const struct sim_opts *o = w->o;
	uint32_t n = w->nnodes, u, i, nf = 0, mask, *parent, *slot;
	uint32_t *csize, *cframes, *cplaced, *fof;
	uint32_t main_root = UINT32_MAX, main_bad = 0;
	unsigned int nd = o->ndims, a, c[TC_MAX_AXES];
	struct frame *fr;
	struct tc_view v;

	for (mask = 1; mask < 2 * (w->live + 1); mask <<= 1)
		;
	parent = malloc(sizeof(*parent) * n);
	csize = calloc(n, sizeof(*csize));
	cframes = calloc(n, sizeof(*cframes));
	cplaced = calloc(n, sizeof(*cplaced));
	fof = malloc(sizeof(*fof) * n);
	slot = malloc(sizeof(*slot) * mask);
	fr = malloc(sizeof(*fr) * (w->live + 1));
	if (!parent || !csize || !cframes || !cplaced || !fof || !slot ||
	    !fr) {
		free(parent); free(csize); free(cframes); free(cplaced);
		free(fof); free(slot); free(fr);
		return -ENOMEM;
	}
	mask--;
	memset(slot, 0xff, sizeof(*slot) * (mask + 1));

	/* connected components of live nodes over live cables */
	for (u = 0; u < n; u++)
		parent[u] = u;
	for (u = 0; u < n; u++) {
		if (!w->alive[u])
			continue;
		for (a = 0; a < w->nports; a++) {
			uint32_t p = w->peer[(size_t)u * w->nports + a], x, y;

			if (p == SIM_NO_PEER || !w->alive[p >> 4])
				continue;
			x = uf_find(parent, u);
			y = uf_find(parent, p >> 4);
			if (x != y)
				parent[x < y ? y : x] = x < y ? x : y;
		}
	}
	r->components = 0;
	r->main_component = 0;
	for (u = 0; u < n; u++) {
		uint32_t root;

		if (!w->alive[u])
			continue;
		root = uf_find(parent, u);
		if (!csize[root]++)
			r->components++;
		if (csize[root] > r->main_component) {
			r->main_component = csize[root];
			main_root = root;
		}
	}

	/* pass 1: frames and what their port maps say */
	for (u = 0; u < n; u++) {
		const struct sim_rot *rot = &w->rots[w->rot_of[u]];
		struct frame *f;

		fof[u] = UINT32_MAX;
		if (!w->alive[u])
			continue;
		tc_view(NODE(e, u), &v);
		if (v.state != TC_PLACED)
			continue;
		fof[u] = frame_lookup(slot, mask, fr, &nf, v.leader);
		f = &fr[fof[u]];
		f->nodes++;
		for (i = 0; i < TC_MAX_PORTS; i++) {
			uint8_t l = v.portmap[i];

			if (l == TORUS_DIR_NONE || l >= w->nports ||
			    i >= 2 * nd)
				continue;
			if (f->tdir[i] == TORUS_DIR_NONE)
				f->tdir[i] = rot->fwd[l];
		}
	}
	for (i = 0; i < nf; i++)
		frame_axes(o, &fr[i]);

	/* pass 2: every placed node against its frame's isometry */
	for (u = 0; u < n; u++) {
		const struct sim_rot *rot = &w->rots[w->rot_of[u]];
		bool bad_c = false, bad_d = false, bad_p = false;
		uint32_t root;
		struct frame *f;

		if (fof[u] == UINT32_MAX)
			continue;
		f = &fr[fof[u]];
		tc_view(NODE(e, u), &v);
		sim_coords(w, u, c);
		root = uf_find(parent, u);
		cplaced[root]++;
		if (f->comp == UINT32_MAX) {
			f->comp = root;
			cframes[root]++;
		} else if (f->comp != root) {
			f->bad = true;	/* one leader, two components? */
		}
		if (v.ndims != nd)
			bad_d = true;
		for (a = 0; a < nd && !bad_d; a++) {
			unsigned int ta = f->taxis[a], E, want;

			if (ta == TORUS_DIR_NONE) {
				if (v.dims[a] != 1 || v.coord[a] != 0)
					bad_d = true;
				continue;
			}
			E = o->dims[ta];
			if (v.dims[a] != E ||
			    !!(v.wrap & (1u << a)) != !!(o->wrap & (1u << ta)))
				bad_d = true;
			if (!f->off_set)
				continue;
			want = f->sign[a] > 0 ? (c[ta] + f->off[a]) % E :
			       (f->off[a] + E - c[ta]) % E;
			if (v.coord[a] != want)
				bad_c = true;
		}
		if (!f->off_set && !bad_d) {
			/* the first node fixes the translation */
			for (a = 0; a < nd; a++) {
				unsigned int ta = f->taxis[a], E;

				if (ta == TORUS_DIR_NONE)
					continue;
				E = o->dims[ta];
				f->off[a] = f->sign[a] > 0 ?
					(v.coord[a] + E - c[ta]) % E :
					(v.coord[a] + c[ta]) % E;
				/* a line cannot be translated or wrapped */
				if (!(o->wrap & (1u << ta)) &&
				    f->off[a] != (f->sign[a] > 0 ? 0 : E - 1))
					f->bad = true;
			}
			f->off_set = true;
		}
		for (i = 0; i < 2 * nd; i++) {
			uint8_t l = v.portmap[i], t = f->tdir[i];

			if (t == TORUS_DIR_NONE) {
				if (l != TORUS_DIR_NONE)
					bad_p = true;
				continue;
			}
			if (l == TORUS_DIR_NONE) {
				uint32_t p = w->peer[(size_t)u * w->nports +
						     rot->inv[t]];

				if (p != SIM_NO_PEER && w->alive[p >> 4])
					r->missing_portmap++;
				continue;
			}
			if (l == rot->inv[t])
				continue;
			/*
			 * On a ring of two, both cables join the same pair and
			 * no wiring tells "+" from "-": accept either label if
			 * the cable is "+" at one end and "-" at the other.
			 */
			if (o->dims[t >> 1] == 2 && (o->wrap & (1u << (t >> 1))) &&
			    l == rot->inv[t ^ 1]) {
				uint32_t p = w->peer[(size_t)u * w->nports + l];
				struct tc_view pv;
				unsigned int j;

				if (p == SIM_NO_PEER || !w->alive[p >> 4])
					continue;
				tc_view(NODE(e, p >> 4), &pv);
				for (j = 0; j < 2 * nd; j++)
					if (pv.portmap[j] == (p & 15))
						break;
				/* a peer that does not use the cable cannot
				 * disagree with us about its sign */
				if (pv.state == TC_PLACED && j < 2 * nd &&
				    j != (i ^ 1))
					bad_p = true;
				continue;
			}
			bad_p = true;
		}
		r->bad_coord += bad_c;
		r->bad_dims += bad_d;
		r->bad_portmap += bad_p;
		if (root == main_root && (bad_c || bad_d || bad_p || f->bad))
			main_bad++;
		if ((bad_c || bad_d || bad_p) && o->verbose &&
		    r->bad_coord + r->bad_dims + r->bad_portmap <= 10)
			report_bad(w, u, &v, f);
	}

	r->frames = nf;
	for (i = 0; i < nf; i++)
		r->bad_frame += fr[i].bad;
	r->split_components = 0;
	for (u = 0; u < n; u++) {
		if (!w->alive[u] || parent[u] != u)
			continue;
		if (cframes[u] > 1)
			r->split_components++;
	}
	for (i = 0; i < nf; i++)
		if (fr[i].bad && fr[i].comp == main_root)
			main_bad++;
	/* per block: the paper's unit of failure is a block's face, and a
	 * failed face leaves its whole block unplaced */
	if (o->blocks) {
		uint32_t *bl = calloc(2 * (size_t)w->nblocks, sizeof(*bl));

		if (!bl)
			goto nomem_blocks;
		for (u = 0; u < n; u++) {
			uint32_t b;

			if (!w->alive[u] || uf_find(parent, u) != main_root)
				continue;
			b = sim_block_of(w, u);
			bl[2 * b]++;
			bl[2 * b + 1] += fof[u] != UINT32_MAX;
		}
		for (i = 0; i < w->nblocks; i++) {
			r->blocks_in_main += bl[2 * i] > 0;
			r->blocks_failed += bl[2 * i] && !bl[2 * i + 1];
		}
		free(bl);
	}
nomem_blocks:
	r->blocks_ok = main_root != UINT32_MAX && !r->blocks_failed &&
		       !main_bad && cframes[main_root] <= 1;
	/* -v: who in the machine was left out, and why */
	for (u = 0, i = 0; o->verbose && u < n && i < 10; u++) {
		if (!w->alive[u] || fof[u] != UINT32_MAX ||
		    uf_find(parent, u) != main_root)
			continue;
		tc_view(NODE(e, u), &v);
		sim_coords(w, u, c);
		fprintf(stderr, "unplaced node %u (", u);
		for (a = 0; a < nd; a++)
			fprintf(stderr, "%s%u", a ? "," : "", c[a]);
		fprintf(stderr, ") in the main component, %s: %s\n",
			state_name(v.state), v.reason);
		i++;
	}
	r->main_placed = main_root == UINT32_MAX ? 0 : cplaced[main_root];
	r->consistent = !r->bad_coord && !r->bad_dims && !r->bad_portmap &&
			!r->bad_frame && !r->split_components;
	/* fragments cut off from the machine do not count here */
	r->orientation_ok = !main_bad && main_root != UINT32_MAX &&
			    cframes[main_root] <= 1 &&
			    r->main_placed == r->main_component;

	free(parent); free(csize); free(cframes); free(cplaced);
	free(fof); free(slot); free(fr);
	return 0;
}

/* ---- the round loop ---- */

int sim_run(const struct sim_world *w, struct sim_result *r)
{
	const struct sim_opts *o = w->o;
	struct tc_output out;
	struct engine e;
	struct tc_config cfg;
	struct tc_view v;
	struct tc_stats st;
	uint32_t n = w->nnodes, u, t, cap, quiet = 0, idle = 0, stall;
	uint32_t *gen = NULL, *last_change = NULL, *last_state = NULL;
	uint32_t *last_offset = NULL;
	uint64_t *hash = NULL, *ohash = NULL, tx_msgs = 0, tx_bytes = 0, sent0;
	uint8_t *state = NULL;
	double t0 = now(), t1;
	int err = 0;

	memset(&e, 0, sizeof(e));
	memset(r, 0, sizeof(*r));
	r->seed = w->seed;
	r->nodes = n;
	r->live = w->live;
	r->rounds_to_placed = -1;
	e.w = w;
	e.tx = &e.q[0];
	out.ctx = &e;
	out.send = eng_send;

	sim_node_config(w, 0, &cfg);
	r->state_bytes = tc_node_size(&cfg);
	e.nsize = (r->state_bytes + 15) & ~(size_t)15;
	e.nodes = aligned_alloc(64, ((e.nsize * n) + 63) & ~(size_t)63);
	gen = malloc(sizeof(*gen) * n);
	last_change = calloc(n, sizeof(*last_change));
	last_offset = calloc(n, sizeof(*last_offset));
	ohash = calloc(n, sizeof(*ohash));
	last_state = calloc(n, sizeof(*last_state));
	hash = malloc(sizeof(*hash) * n);
	state = malloc(n);
	if (!e.nodes || !gen || !last_change || !last_state || !hash ||
	    !last_offset || !ohash ||
	    !state) {
		fprintf(stderr, "torus-sim: out of memory for %u nodes\n", n);
		err = -ENOMEM;
		goto out;
	}

	/* round 0: boards come up, carriers are seen */
	for (u = 0; u < n; u++) {
		struct tc_node *tn = NODE(&e, u);
		unsigned int l;

		if (!w->alive[u])
			continue;
		sim_node_config(w, u, &cfg);
		if (tc_node_size(&cfg) > e.nsize) {
			fprintf(stderr,
				"torus-sim: node %u needs %zu bytes, not %zu\n",
				u, tc_node_size(&cfg), e.nsize);
			err = -EINVAL;
			goto out;
		}
		e.cur = u;
		err = tc_node_init(tn, &cfg, &out);
		if (err) {
			fprintf(stderr,
				"torus-sim: tc_node_init rejected node %u: %s\n",
				u, strerror(-err));
			goto out;
		}
		for (l = 0; l < w->nports; l++)
			tc_port_state(tn, l, w->peer[(size_t)u * w->nports + l] !=
					     SIM_NO_PEER);
		tc_view(tn, &v);
		gen[u] = v.generation;
		hash[u] = view_hash(&v);
		state[u] = v.state;
	}

	cap = o->max_rounds ? o->max_rounds :
	      4 * w->diameter + 4 * o->quiet_ticks + 50;
	stall = o->quiet_ticks + 2 * w->block_diameter + 4 +
		(o->orient_ticks > o->quiet_ticks ? o->orient_ticks : 0);
	r->stop = "round cap";
	t1 = now();
	for (t = 1; t <= cap; t++) {
		struct sim_queue *rx = e.tx;
		uint32_t changed = 0, nfinal = 0;
		size_t off;

		e.tx = rx == &e.q[0] ? &e.q[1] : &e.q[0];
		e.tx->len = 0;
		sent0 = e.sent;
		for (off = 0; off < rx->len;) {
			struct sim_msg *h = (struct sim_msg *)(rx->buf + off);

			e.cur = h->dst;
			tc_receive(NODE(&e, h->dst), h->port,
				   (const uint8_t *)(h + 1), h->len);
			off += sizeof(*h) + ((h->len + 7u) & ~7u);
		}
		rx->len = 0;
		for (u = 0; u < n; u++) {
			if (!w->alive[u])
				continue;
			e.cur = u;
			tc_tick(NODE(&e, u));
		}
		for (u = 0; u < n; u++) {
			uint64_t h;

			if (!w->alive[u])
				continue;
			/* the view (state included) moves with its generation */
			if (tc_generation(NODE(&e, u)) == gen[u]) {
				nfinal += is_final(state[u]);
				continue;
			}
			tc_view(NODE(&e, u), &v);
			if (v.generation != gen[u]) {
				gen[u] = v.generation;
				changed++;
				h = view_hash(&v);
				if (h != hash[u]) {
					hash[u] = h;
					last_change[u] = t;
				}
				h = offset_hash(&v);
				if (h != ohash[u]) {
					ohash[u] = h;
					last_offset[u] = t;
				}
			}
			if (v.state != state[u]) {
				state[u] = v.state;
				last_state[u] = t;
				changed++;
			}
			nfinal += is_final(state[u]);
		}
		r->node_steps += w->live;
		if (e.tx->len > r->queue_peak)
			r->queue_peak = e.tx->len;
		if (o->verbose > 1 || (o->verbose && t % 10 == 0))
			fprintf(stderr,
				"round %u: %u/%u final, %u changes, %llu msgs\n",
				t, nfinal, w->live, changed,
				(unsigned long long)(e.sent - sent0));
		quiet = changed ? 0 : quiet + 1;
		idle = changed || e.sent != sent0 ? 0 : idle + 1;
		if (nfinal == w->live && quiet >= 2) {
			r->stop = "settled";
			break;
		}
		if (idle >= stall) {
			r->stop = "stalled";
			break;
		}
	}
	r->rounds_run = t > cap ? cap : t;
	r->loop_s = now() - t1;
	if (e.nomem)
		fprintf(stderr, "torus-sim: out of memory for messages "
			"(some were dropped)\n");

	r->converged = true;
	for (u = 0; u < n; u++) {
		if (!w->alive[u])
			continue;
		tc_view(NODE(&e, u), &v);
		tc_get_stats(NODE(&e, u), &st);
		tx_msgs += st.msgs_tx;
		tx_bytes += st.bytes_tx;
		r->bad_rx += st.bad_rx;
		if (last_change[u] > r->rounds)
			r->rounds = last_change[u];
		if (last_offset[u] > r->rounds_coords)
			r->rounds_coords = last_offset[u];
		if (!is_final(v.state))
			r->converged = false;
		if (v.state == TC_PLACED) {
			r->placed++;
		} else {
			r->unplaced++;
			r->failed += v.state == TC_FAILED;
			count_reason(r, &v);
		}
		if ((int64_t)last_state[u] > r->rounds_to_placed)
			r->rounds_to_placed = last_state[u];
	}
	if (!r->converged)
		r->rounds_to_placed = -1;
	if (w->live) {
		r->msgs_per_node = (double)tx_msgs / w->live;
		r->bytes_per_node = (double)tx_bytes / w->live;
	}
	r->dropped = e.dropped;
	r->oversize = e.oversize;
	r->harness_bytes = (sim_world_bytes(w) + e.q[0].cap + e.q[1].cap +
			    (size_t)n * (sizeof(*gen) + sizeof(*last_change) +
					 sizeof(*last_state) + sizeof(*hash) +
					 sizeof(*state)) +
			    (size_t)n * (e.nsize - r->state_bytes)) / n;
	err = check(&e, r);
	if (err)
		fprintf(stderr, "torus-sim: out of memory for the check\n");
out:
	free(e.nodes);
	free(e.q[0].buf);
	free(e.q[1].buf);
	free(gen);
	free(last_change);
	free(last_offset);
	free(ohash);
	free(last_state);
	free(hash);
	free(state);
	r->wall_s = now() - t0;
	return err;
}
