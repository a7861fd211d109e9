// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * engine.c - run one world in synchronous rounds, then check the result
 *
 * Round t first applies the run's events due at t (power-on, daemon
 * restarts, cables cut and plugged, growth: timeline.c), then delivers
 * every message due at t, then ticks every running node once.  What the
 * nodes send goes into the arena of the round it is due: the next one,
 * or up to SIM_MAX_DELAY later with --reorder.  A node is one
 * tc_core_size() slot of one big array and its link-state database one
 * tc_ls_size() slot of another; the arenas hold headers and
 * payloads back to back and only grow, so steady state allocates
 * nothing.
 *
 * Besides the check at the end (check()), every node whose view changed
 * in a round is checked against the truth of that round (tick_check():
 * "wrong"), and every placed node's placement is remembered to see it
 * move ("moved").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include "sim.h"

#define NQ	(SIM_MAX_DELAY + 2)	/* arenas: this round's and later */

struct sim_msg {
	uint32_t dst;
	uint32_t src;			/* dropped if the cable changed */
	uint16_t len;
	uint8_t port;			/* receiver's label */
	uint8_t sport;			/* sender's label */
};

struct sim_queue {
	uint8_t *buf;
	size_t len, cap;
};

/* a frame (placed nodes of one leader) and its isometry to the truth */
struct frame {
	uint64_t leader;
	uint32_t comp;
	uint32_t nodes;
	uint8_t tdir[TC_MAX_PORTS];	/* frame direction -> true direction */
	uint8_t taxis[TC_MAX_AXES];	/* frame axis -> true axis or NONE */
	int8_t sign[TC_MAX_AXES];
	/* translation per frame axis, fixed by the first node checked; one
	 * set per truth epoch (before and after --grow) */
	uint16_t off[2][TC_MAX_AXES];
	uint8_t off_set[2];		/* bit per frame axis */
	/* frame axes whose sign is learnt again: a ring of two grew */
	uint8_t relearn;
	bool bad;
};

struct frames {
	struct frame *f;
	uint32_t n, cap, mask;
	uint32_t *slot;
};

/* where a node was placed, to see it move */
struct place {
	uint64_t leader;
	uint8_t coord[TC_MAX_AXES];
	uint8_t dir_of[TC_MAX_PORTS];	/* label -> frame direction */
	uint8_t have;
	uint8_t moved;
	/* where it was when the fabric grew, and its moves since */
	uint64_t pre_leader;
	uint8_t pre[TC_MAX_AXES];
	uint8_t moves_after_growth;
};

enum run_state { NODE_OFF, NODE_CORE, NODE_LIAR };

struct engine {
	const struct sim_world *w;
	const struct sim_opts *o;
	const struct sim_schedule *s;
	uint8_t *nodes;
	size_t nsize;
	uint8_t *lsmem;			/* the nodes' link-state databases */
	size_t lssize;
	struct sim_queue q[NQ];
	unsigned int nq;		/* arenas in use: 2 unless --reorder */
	uint32_t t;			/* current round */
	uint32_t cur;			/* node whose call is running */
	uint64_t sent;			/* messages queued, all rounds */
	uint64_t dropped;		/* no cable, cable cut, peer dead */
	uint64_t lost, duplicated, delayed;
	uint64_t rng;			/* --loss, --dup, --reorder */
	uint32_t oversize;
	bool nomem;
	/* the truth now */
	uint32_t *peer;			/* wiring now, as world.peer */
	uint8_t *wrongp;		/* per node and label: a wrong plug */
	uint16_t dims[TC_MAX_AXES];	/* true extents now */
	uint16_t prev_dims[TC_MAX_AXES];	/* before the growth */
	unsigned int epoch;		/* 1 once grown */
	uint32_t grace_until;		/* old extents still accepted */
	uint32_t *ever;			/* union-find: ever joined by a cable */
	/* node life */
	uint8_t *powered;		/* its ports can have carrier */
	uint8_t *run;			/* enum run_state */
	uint8_t *stops;			/* restarts under way */
	uint8_t *rewired;		/* one of its cables changed */
	uint8_t *started;		/* (re)started: its generation began anew */
	/* sleeping nodes: ticks owed (tc_skip()), tick due, input since */
	uint32_t *owed;
	uint32_t *due;
	uint8_t *input;
	uint16_t *stalled;		/* --stall: rounds its loop still waits */
	struct tc_view *saved;		/* view when its daemon stopped */
	struct sim_liar *liars;
	uint32_t *liar_of;		/* node -> index in liars */
	/* time checks */
	struct place *place;
	uint8_t *wrong_node;
	uint8_t *listed;		/* in this round's check list */
	struct frames fr;
	int64_t grown_at;
	uint32_t ls_records;		/* the cores' link-state bound */
};

#define NODE(e, u)	((struct tc_node *)((e)->nodes + (size_t)(u) * (e)->nsize))
#define LSMEM(e, u)	((e)->lsmem + (size_t)(u) * (e)->lssize)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static bool honest(const struct engine *e, uint32_t u)
{
	return e->w->alive[u] && !e->s->liar[u];
}

static bool carrier(const struct engine *e, uint32_t u, unsigned int l)
{
	uint32_t p = e->peer[(size_t)u * e->w->nports + l];

	return p != SIM_NO_PEER && e->powered[u] && e->powered[p >> 4];
}

static uint16_t carrier_mask(const struct engine *e, uint32_t u)
{
	uint16_t m = 0;
	unsigned int l;

	for (l = 0; l < e->w->nports; l++)
		if (carrier(e, u, l))
			m |= 1u << l;
	return m;
}

static void enqueue(struct engine *e, unsigned int delay, uint32_t dst,
		    uint8_t port, uint8_t sport, const uint8_t *msg,
		    size_t len)
{
	struct sim_queue *q = &e->q[(e->t + 1 + delay) % e->nq];
	struct sim_msg *h;
	size_t need = sizeof(*h) + ((len + 7) & ~(size_t)7);

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
	h->dst = dst;
	h->src = e->cur;
	h->port = port;
	h->sport = sport;
	h->len = (uint16_t)len;
	memcpy(h + 1, msg, len);
	q->len += need;
	e->sent++;
}

static void eng_send(void *ctx, uint8_t port, const uint8_t *msg, size_t len)
{
	struct engine *e = ctx;
	const struct sim_world *w = e->w;
	const struct sim_opts *o = e->o;
	unsigned int copies = 1, i;
	uint32_t p;

	if (port >= w->nports) {
		e->dropped++;
		return;
	}
	if ((len > TC_MSG_MAX || (o->mtu && len > o->mtu)) &&
	    e->run[e->cur] == NODE_CORE)
		e->oversize++;
	/* a port carries no frame above its MTU */
	if (o->mtu && len > o->mtu) {
		e->dropped++;
		return;
	}
	p = e->peer[(size_t)e->cur * w->nports + port];
	if (p == SIM_NO_PEER || !carrier(e, e->cur, port) ||
	    !w->alive[p >> 4] || len > UINT16_MAX) {
		e->dropped++;
		return;
	}
	if (o->loss > 0 && sim_unif(&e->rng) < o->loss) {
		e->lost++;
		return;
	}
	if (o->dup > 0 && sim_unif(&e->rng) < o->dup) {
		e->duplicated++;
		copies = 2;
	}
	for (i = 0; i < copies; i++) {
		unsigned int delay = 0;

		if (o->reorder > 0 && sim_unif(&e->rng) < o->reorder) {
			delay = 1 + sim_below(&e->rng, SIM_MAX_DELAY);
			e->delayed++;
		}
		enqueue(e, delay, p >> 4, p & 15, port, msg, len);
	}
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

/* ---- checking against the ground truth ---- */

static int frames_init(struct frames *fs, uint32_t cap)
{
	uint32_t mask;

	for (mask = 1; mask < 2 * cap; mask <<= 1)
		;
	memset(fs, 0, sizeof(*fs));
	fs->f = malloc(sizeof(*fs->f) * cap);
	fs->slot = malloc(sizeof(*fs->slot) * mask);
	if (!fs->f || !fs->slot) {
		free(fs->f);
		free(fs->slot);
		return -ENOMEM;
	}
	fs->cap = cap;
	fs->mask = mask - 1;
	memset(fs->slot, 0xff, sizeof(*fs->slot) * mask);
	return 0;
}

static void frames_free(struct frames *fs)
{
	free(fs->f);
	free(fs->slot);
	memset(fs, 0, sizeof(*fs));
}

static uint32_t frame_slot(const struct frames *fs, uint64_t leader)
{
	uint32_t i = (uint32_t)(leader * 0x9e3779b97f4a7c15ULL >> 32) &
		     fs->mask;

	while (fs->slot[i] != UINT32_MAX && fs->f[fs->slot[i]].leader != leader)
		i = (i + 1) & fs->mask;
	return i;
}

/* twice the room (liars can make frames up without end) */
static int frames_grow(struct frames *fs)
{
	struct frames big;
	uint32_t i;

	if (frames_init(&big, 2 * fs->cap))
		return -ENOMEM;
	memcpy(big.f, fs->f, sizeof(*fs->f) * fs->n);
	big.n = fs->n;
	for (i = 0; i < fs->n; i++)
		big.slot[frame_slot(&big, fs->f[i].leader)] = i;
	frames_free(fs);
	*fs = big;
	return 0;
}

/* the frame of @leader, added if new; NULL when out of memory */
static struct frame *frame_lookup(struct frames *fs, uint64_t leader)
{
	uint32_t i = frame_slot(fs, leader);
	struct frame *f;

	if (fs->slot[i] != UINT32_MAX)
		return &fs->f[fs->slot[i]];
	if (fs->n == fs->cap) {
		if (frames_grow(fs))
			return NULL;
		i = frame_slot(fs, leader);
	}
	f = &fs->f[fs->n];
	memset(f, 0, sizeof(*f));
	memset(f->tdir, TORUS_DIR_NONE, sizeof(f->tdir));
	memset(f->taxis, TORUS_DIR_NONE, sizeof(f->taxis));
	f->leader = leader;
	f->comp = UINT32_MAX;
	fs->slot[i] = fs->n++;
	return f;
}

/*
 * Derive a frame's signed axis permutation from its port maps.  With
 * @all, the frame must span every axis that has an extent (the end of
 * the run); during the run a frame may not know all its axes yet.
 */
static void frame_axes(const struct engine *e, struct frame *f, bool all)
{
	unsigned int fa, ta, used = 0, nd = e->o->ndims;

	for (fa = 0; fa < nd; fa++) {
		uint8_t tp = f->tdir[2 * fa], tm = f->tdir[2 * fa + 1], t;

		/*
		 * On a ring of two no wiring tells "+" from "-": nodes may
		 * map the frame's "+" to either true direction (checked per
		 * cable in node_check()), so only the axis must agree.
		 */
		if (tp != TORUS_DIR_NONE && tm != TORUS_DIR_NONE &&
		    tm != TORUS_DIR_OPPOSITE(tp) &&
		    !(tm == tp && e->dims[TORUS_DIR_AXIS(tp)] == 2 &&
		      (e->o->wrap & (1u << TORUS_DIR_AXIS(tp)))))
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
	for (ta = 0; all && ta < nd; ta++)
		if (e->dims[ta] > 1 && !(used & (1u << ta)))
			f->bad = true;
}

/* what a frame learns of its isometry from one placed node's port map
 * (a wrongly plugged cable says nothing about it) */
static void frame_learn(const struct engine *e, struct frame *f, uint32_t u,
			const struct tc_view *v)
{
	const struct sim_world *w = e->w;
	const struct sim_rot *rot = &w->rots[w->rot_of[u]];
	unsigned int i;

	f->nodes++;
	for (i = 0; i < 2u * e->o->ndims; i++) {
		uint8_t l = v->portmap[i];

		if (l == TORUS_DIR_NONE || l >= w->nports ||
		    e->wrongp[(size_t)u * w->nports + l])
			continue;
		/* a node still showing the ring of two knows no sign */
		if ((f->relearn & (1u << (i >> 1))) && v->dims[i >> 1] <= 2)
			continue;
		if (f->tdir[i] == TORUS_DIR_NONE)
			f->tdir[i] = rot->fwd[l];
	}
}

#define BAD_COORD	0x1
#define BAD_DIMS	0x2
#define BAD_PORTMAP	0x4
#define BAD_FRAME	0x8	/* one frame over two machines */

/*
 * One placed node against its frame's isometry and the true extents
 * @dims; the translation is kept in set @slot.  The first node with the
 * right extents fixes the translation (@commit: for real); a line
 * cannot be translated or wrapped, so fixing a wrong one marks the
 * frame bad.  On true axis @relax (-1: none) the extent may be anything
 * from the one before the growth to the true one, and the coordinate is
 * not checked.  Returns BAD_* bits.
 */
static unsigned int node_check(struct engine *e, struct frame *f,
			       uint32_t u, const struct tc_view *v,
			       const uint16_t *dims, unsigned int slot,
			       bool final, bool commit, int relax)
{
	const struct sim_world *w = e->w;
	const struct sim_opts *o = e->o;
	const struct sim_rot *rot = &w->rots[w->rot_of[u]];
	unsigned int nd = o->ndims, a, i, c[TC_MAX_AXES], bad = 0;
	uint16_t off[TC_MAX_AXES];
	uint8_t set = 0;

	sim_coords(w, e->s->truth_of ? e->s->truth_of[u] : u, c);
	if (v->ndims != nd)
		bad |= BAD_DIMS;
	for (a = 0; a < nd && !(bad & BAD_DIMS); a++) {
		unsigned int ta = f->taxis[a], E, want;

		if (ta == TORUS_DIR_NONE) {
			if (final && (v->dims[a] != 1 || v->coord[a] != 0))
				bad |= BAD_DIMS;
			continue;
		}
		E = dims[ta];
		if ((int)ta == relax) {
			if (v->dims[a] < e->prev_dims[ta] || v->dims[a] > E ||
			    v->coord[a] >= v->dims[a] ||
			    !!(v->wrap & (1u << a)) != !!(o->wrap & (1u << ta)))
				bad |= BAD_DIMS;
			continue;
		}
		/* the coordinate is checked on this axis all the same */
		if (v->dims[a] != E ||
		    !!(v->wrap & (1u << a)) != !!(o->wrap & (1u << ta)))
			bad |= BAD_DIMS;
		if (!(f->off_set[slot] & (1u << a))) {
			off[a] = f->sign[a] > 0 ? (v->coord[a] + E - c[ta]) % E :
				 (v->coord[a] + c[ta]) % E;
			set |= 1u << a;
			continue;
		}
		want = f->sign[a] > 0 ? (c[ta] + f->off[slot][a]) % E :
		       (f->off[slot][a] + E - c[ta]) % E;
		if (v->coord[a] != want)
			bad |= BAD_COORD;
	}
	if (commit && !(bad & BAD_DIMS)) {
		for (a = 0; a < nd; a++) {
			unsigned int ta = f->taxis[a];

			if (!(set & (1u << a)))
				continue;
			f->off[slot][a] = off[a];
			f->off_set[slot] |= 1u << a;
			if (!(o->wrap & (1u << ta)) &&
			    off[a] != (f->sign[a] > 0 ? 0 : dims[ta] - 1))
				f->bad = true;
		}
	}
	for (i = 0; i < 2 * nd; i++) {
		uint8_t l = v->portmap[i], t = f->tdir[i];

		if (l == TORUS_DIR_NONE)
			continue;
		/* traffic sent that way ends up at the wrong node */
		if (l < w->nports && e->wrongp[(size_t)u * w->nports + l]) {
			bad |= BAD_PORTMAP;
			continue;
		}
		if (t == TORUS_DIR_NONE) {
			if (final)
				bad |= BAD_PORTMAP;
			continue;
		}
		if (l == rot->inv[t])
			continue;
		/*
		 * A ring of two that grew: a node still showing it keeps
		 * the sign it had (no wiring told it), until its survey
		 * orients the axis again.
		 */
		if ((int)(t >> 1) == relax && e->prev_dims[t >> 1] == 2 &&
		    v->dims[i >> 1] == 2 && l == rot->inv[t ^ 1])
			continue;
		/*
		 * On a ring of two, both cables join the same pair and
		 * no wiring tells "+" from "-": accept either label if
		 * the cable is "+" at one end and "-" at the other.
		 */
		if (dims[t >> 1] == 2 && (o->wrap & (1u << (t >> 1))) &&
		    l == rot->inv[t ^ 1]) {
			uint32_t p = e->peer[(size_t)u * w->nports + l];
			struct tc_view pv;
			unsigned int j;

			if (p == SIM_NO_PEER || e->run[p >> 4] != NODE_CORE)
				continue;
			tc_view(NODE(e, p >> 4), &pv);
			for (j = 0; j < 2 * nd; j++)
				if (pv.portmap[j] == (p & 15))
					break;
			/* a peer that does not use the cable cannot
			 * disagree with us about its sign, nor can one
			 * in another frame, whose axes are its own */
			if (pv.state == TC_PLACED && pv.leader == v->leader &&
			    j < 2 * nd && j != (i ^ 1))
				bad |= BAD_PORTMAP;
			continue;
		}
		bad |= BAD_PORTMAP;
	}
	return bad;
}

/* the final check's frame: the missing-portmap count is informational */
static void count_missing(struct engine *e, const struct frame *f,
			  uint32_t u, const struct tc_view *v,
			  struct sim_result *r)
{
	const struct sim_world *w = e->w;
	const struct sim_rot *rot = &w->rots[w->rot_of[u]];
	unsigned int i;

	for (i = 0; i < 2u * e->o->ndims; i++) {
		uint8_t t = f->tdir[i];
		uint32_t p;

		if (t == TORUS_DIR_NONE || v->portmap[i] != TORUS_DIR_NONE)
			continue;
		p = e->peer[(size_t)u * w->nports + rot->inv[t]];
		if (p != SIM_NO_PEER && honest(e, p >> 4) &&
		    !e->wrongp[(size_t)u * w->nports + rot->inv[t]])
			r->missing_portmap++;
	}
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
	const struct sim_opts *o = e->o;
	uint32_t n = w->nnodes, u, i, *parent, *csize, *cframes, *cplaced;
	uint32_t main_root = UINT32_MAX, main_bad = 0, *fof;
	unsigned int nd = o->ndims, a, c[TC_MAX_AXES];
	struct frames fs;
	struct tc_view v;

	parent = malloc(sizeof(*parent) * n);
	csize = calloc(n, sizeof(*csize));
	cframes = calloc(n, sizeof(*cframes));
	cplaced = calloc(n, sizeof(*cplaced));
	fof = malloc(sizeof(*fof) * n);
	if (!parent || !csize || !cframes || !cplaced || !fof ||
	    /* a frame per placed node at most: it never grows here */
	    frames_init(&fs, w->live + 1)) {
		free(parent); free(csize); free(cframes); free(cplaced);
		free(fof);
		return -ENOMEM;
	}

	/* connected components of honest nodes over the right cables now */
	for (u = 0; u < n; u++)
		parent[u] = u;
	for (u = 0; u < n; u++) {
		if (!honest(e, u))
			continue;
		for (a = 0; a < w->nports; a++) {
			uint32_t p = e->peer[(size_t)u * w->nports + a], x, y;

			if (p == SIM_NO_PEER || !honest(e, p >> 4) ||
			    e->wrongp[(size_t)u * w->nports + a])
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

		if (!honest(e, u))
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
		fof[u] = UINT32_MAX;
		if (!honest(e, u) || e->run[u] != NODE_CORE)
			continue;
		tc_view(NODE(e, u), &v);
		if (v.state != TC_PLACED)
			continue;
		fof[u] = (uint32_t)(frame_lookup(&fs, v.leader) - fs.f);
		frame_learn(e, &fs.f[fof[u]], u, &v);
	}
	for (i = 0; i < fs.n; i++)
		frame_axes(e, &fs.f[i], true);

	/* pass 2: every placed node against its frame's isometry; a frame
	 * may not span two machines that were never joined by a cable */
	for (u = 0; u < n; u++) {
		unsigned int bad;
		uint32_t root;
		struct frame *f;

		if (fof[u] == UINT32_MAX)
			continue;
		f = &fs.f[fof[u]];
		tc_view(NODE(e, u), &v);
		root = uf_find(parent, u);
		cplaced[root]++;
		bad = node_check(e, f, u, &v, e->dims, e->epoch & 1, true,
				 true, -1);
		count_missing(e, f, u, &v, r);
		r->bad_coord += !!(bad & BAD_COORD);
		r->bad_dims += !!(bad & BAD_DIMS);
		r->bad_portmap += !!(bad & BAD_PORTMAP);
		if (root == main_root && (bad || f->bad))
			main_bad++;
		if (bad && o->verbose &&
		    r->bad_coord + r->bad_dims + r->bad_portmap <= 10)
			report_bad(w, u, &v, f);
	}
	/* frames per component: each frame counts in the component of
	 * its first node; one leader in two components is wrong unless a
	 * cable once joined them (a cut since does not make it wrong) */
	for (u = 0; u < n; u++) {
		struct frame *f;

		if (fof[u] == UINT32_MAX)
			continue;
		f = &fs.f[fof[u]];
		if (f->comp == UINT32_MAX) {
			f->comp = uf_find(parent, u);
			cframes[f->comp]++;
		} else if (f->comp != uf_find(parent, u) &&
			   uf_find(e->ever, u) !=
			   uf_find(e->ever, f->comp)) {
			f->bad = true;
		}
	}

	r->frames = fs.n;
	for (i = 0; i < fs.n; i++)
		r->bad_frame += fs.f[i].bad;
	r->split_components = 0;
	for (u = 0; u < n; u++) {
		if (!honest(e, u) || parent[u] != u)
			continue;
		if (cframes[u] > 1)
			r->split_components++;
	}
	for (i = 0; i < fs.n; i++)
		if (fs.f[i].bad && fs.f[i].comp == main_root)
			main_bad++;
	/* per block: the paper's unit of failure is a block's face, and a
	 * failed face leaves its whole block unplaced */
	if (o->blocks) {
		uint32_t *bl = calloc(2 * (size_t)w->nblocks, sizeof(*bl));

		if (!bl)
			goto nomem_blocks;
		for (u = 0; u < n; u++) {
			uint32_t b;

			if (!honest(e, u) || uf_find(parent, u) != main_root)
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
		if (!honest(e, u) || fof[u] != UINT32_MAX ||
		    uf_find(parent, u) != main_root ||
		    e->run[u] != NODE_CORE)
			continue;
		tc_view(NODE(e, u), &v);
		sim_coords(w, u, c);
		fprintf(stderr, "unplaced node %u (", u);
		for (a = 0; a < nd; a++)
			fprintf(stderr, "%s%u", a ? "," : "", c[a]);
		fprintf(stderr, ") in the main component, %s: %s;",
			state_name(v.state), v.reason);
		for (a = 0; a < w->nports; a++) {
			struct tc_nbr_info ni;

			tc_nbr_info(NODE(e, u), (uint8_t)a, &ni);
			fprintf(stderr, " %u:%c", a, "-urR"[ni.status]);
		}
		fputc('\n', stderr);
		i++;
	}
	for (u = 0, i = 0; o->verbose && u < n && i < 10; u++)
		if (e->run[u] == NODE_CORE && tc_surveying(NODE(e, u))) {
			fprintf(stderr, "node %u still surveys a ring\n", u);
			i++;
		} else if (e->run[u] == NODE_CORE) {
			tc_view(NODE(e, u), &v);
			if (v.state != TC_PLACED && v.state != TC_FAILED)
				fprintf(stderr, "node %u %s: %s\n", u, state_name(v.state), v.reason);
		}
	r->main_placed = main_root == UINT32_MAX ? 0 : cplaced[main_root];
	r->consistent = !r->bad_coord && !r->bad_dims && !r->bad_portmap &&
			!r->bad_frame && !r->split_components;
	/* fragments cut off from the machine do not count here */
	r->orientation_ok = !main_bad && main_root != UINT32_MAX &&
			    cframes[main_root] <= 1 &&
			    r->main_placed == r->main_component;

	free(parent); free(csize); free(cframes); free(cplaced);
	free(fof);
	frames_free(&fs);
	return 0;
}

/* ---- during the run: moves and wrong placements ---- */

/*
 * A placed node moved when its frame (leader), its coordinates or the
 * direction of one of its ports changed since it was last placed.
 * Extents may change (a ring found longer) and ports may come and go.
 */
static void place_update(struct engine *e, uint32_t u, const struct tc_view *v,
			 struct sim_result *r)
{
	struct place *pl = &e->place[u];
	unsigned int nd = e->o->ndims, g;
	bool moved = false;

	if (v->state != TC_PLACED)
		return;
	if (pl->have) {
		moved = pl->leader != v->leader ||
			memcmp(pl->coord, v->coord, nd);
		for (g = 0; g < 2 * nd; g++) {
			uint8_t l = v->portmap[g];

			if (l < TC_MAX_PORTS && pl->dir_of[l] != TORUS_DIR_NONE &&
			    pl->dir_of[l] != g)
				moved = true;
		}
	} else {
		memset(pl->dir_of, TORUS_DIR_NONE, sizeof(pl->dir_of));
		/* first placed after the growth: the move it may force is
		 * measured from here */
		if (e->grown_at >= 0) {
			pl->pre_leader = v->leader;
			memcpy(pl->pre, v->coord, sizeof(pl->pre));
		}
	}
	if (moved && e->grown_at >= 0 && !e->rewired[u] &&
	    pl->moves_after_growth < UINT8_MAX)
		pl->moves_after_growth++;
	if (moved && !pl->moved) {
		pl->moved = 1;
		if (e->rewired[u]) {
			r->moved_rewired++;
		} else {
			r->moved++;
			if (e->grown_at >= 0)
				r->moved_after_growth++;
		}
		if (e->o->verbose) {
			fprintf(stderr, "round %u: node %u moved%s:", e->t, u,
				e->rewired[u] ? " (rewired)" : "");
			for (g = 0; g < nd; g++)
				fprintf(stderr, " %u->%u", pl->coord[g],
					v->coord[g]);
			fprintf(stderr, "%s\n", pl->leader != v->leader ?
				" (new frame)" : "");
		}
	}
	pl->have = 1;
	pl->leader = v->leader;
	memcpy(pl->coord, v->coord, nd);
	for (g = 0; g < 2 * nd; g++)
		if (v->portmap[g] < TC_MAX_PORTS)
			pl->dir_of[v->portmap[g]] = (uint8_t)g;
}

/*
 * The nodes in @list changed their view this round and are placed:
 * check each against the truth of this round, in the frames kept since
 * the start (a frame's isometry is fixed by the first node seen in it).
 * For a while after the fabric grew, a node's extent along the grown
 * axis may lie between the old and the new one: the news takes a wave
 * across the fabric.
 */
static void tick_check(struct engine *e, const uint32_t *list, uint32_t n,
		       struct sim_result *r)
{
	const struct sim_world *w = e->w;
	bool grace = e->epoch && e->t < e->grace_until;
	struct tc_view v;
	uint32_t i;

	for (i = 0; i < n; i++) {
		struct frame *f;

		tc_view(NODE(e, list[i]), &v);
		f = frame_lookup(&e->fr, v.leader);
		if (!f)
			continue;
		frame_learn(e, f, list[i], &v);
		frame_axes(e, f, false);
	}
	for (i = 0; i < n; i++) {
		uint32_t u = list[i], ever = uf_find(e->ever, u);
		unsigned int bad, slot = e->epoch & 1;
		struct frame *f;

		tc_view(NODE(e, u), &v);
		f = frame_lookup(&e->fr, v.leader);
		if (!f)
			continue;
		r->wrong_checks++;
		bad = node_check(e, f, u, &v, e->dims, slot, false, false,
				 -1);
		bad = node_check(e, f, u, &v, e->dims, slot, false, true,
				 bad && grace ? e->o->grow_axis : -1);
		if (f->comp == UINT32_MAX)
			f->comp = ever;
		else if (uf_find(e->ever, f->comp) != ever)
			bad |= BAD_FRAME;
		if ((!bad && !f->bad) || e->wrong_node[u])
			continue;
		e->wrong_node[u] = 1;
		r->wrong++;
		r->wrong_coord += !!(bad & BAD_COORD);
		r->wrong_dims += !!(bad & BAD_DIMS);
		r->wrong_portmap += !!(bad & BAD_PORTMAP);
		r->wrong_frame += f->bad || (bad & BAD_FRAME);
		if (r->first_wrong < 0)
			r->first_wrong = e->t;
		if (e->o->verbose) {
			fprintf(stderr, "round %u: node %u placed wrongly%s\n",
				e->t, u, f->bad ? " (its frame is no isometry)" : "");
			report_bad(w, u, &v, f);
		}
	}
}

static bool view_placed(const struct engine *e, uint32_t u)
{
	struct tc_view v;

	tc_view(NODE(e, u), &v);
	return v.state == TC_PLACED;
}

/*
 * On a ring of two a node's port map is judged by its neighbour's (see
 * node_check()): when a node changed, its placed neighbours across such
 * rings are checked again too.  Returns the new length of @list.
 */
static uint32_t ring2_neighbours(struct engine *e, uint32_t *list, uint32_t n)
{
	const struct sim_world *w = e->w;
	const struct sim_opts *o = e->o;
	uint32_t i, m = n;
	unsigned int l;

	for (i = 0; i < n; i++)
		e->listed[list[i]] = 1;
	for (i = 0; i < n; i++) {
		const struct sim_rot *rot = &w->rots[w->rot_of[list[i]]];

		for (l = 0; l < w->nports; l++) {
			unsigned int ta = TORUS_DIR_AXIS(rot->fwd[l]);
			uint32_t p = e->peer[(size_t)list[i] * w->nports + l];

			if (p == SIM_NO_PEER || e->dims[ta] != 2 ||
			    !(o->wrap & (1u << ta)) || e->listed[p >> 4] ||
			    e->run[p >> 4] != NODE_CORE ||
			    !view_placed(e, p >> 4))
				continue;
			e->listed[p >> 4] = 1;
			list[m++] = p >> 4;
		}
	}
	for (i = 0; i < m; i++)
		e->listed[list[i]] = 0;
	return m;
}

/*
 * When the grace after a growth is over (or the run ends first), every
 * placed node is held to the grown fabric, changed or not: one that
 * kept the old extents is wrong now.
 */
static void recheck_all(struct engine *e, uint32_t *list,
			struct sim_result *r)
{
	uint32_t u, n = 0;

	e->grace_until = 0;
	for (u = 0; u < e->w->nnodes; u++)
		if (e->run[u] == NODE_CORE && view_placed(e, u))
			list[n++] = u;
	tick_check(e, list, n, r);
}

/* ---- the history: events of the timeline ---- */

static void uf_union(uint32_t *p, uint32_t a, uint32_t b)
{
	a = uf_find(p, a);
	b = uf_find(p, b);
	if (a != b)
		p[a < b ? b : a] = a < b ? a : b;
}

/* before any input: the node's clock catches up with the ticks it slept */
static void wake(struct engine *e, uint32_t u)
{
	if (e->owed[u])
		tc_skip(NODE(e, u), e->owed[u]);
	e->owed[u] = 0;
	e->input[u] = 1;
}

/* the cable on (u, l) got carrier at both ends */
static void carrier_up(struct engine *e, uint32_t u, uint8_t l)
{
	const struct sim_world *w = e->w;
	uint32_t p = e->peer[(size_t)u * w->nports + l];

	if (e->run[u] == NODE_CORE) {
		wake(e, u);
		tc_port_state(NODE(e, u), l, true);
	}
	if (!e->wrongp[(size_t)u * w->nports + l] && honest(e, u) &&
	    honest(e, p >> 4))
		uf_union(e->ever, u, p >> 4);
}

static void start_core(struct engine *e, uint32_t u, bool resume,
		       const struct tc_output *out)
{
	const struct sim_world *w = e->w;
	struct tc_node *tn = NODE(e, u);
	struct tc_config cfg;
	unsigned int l;

	sim_node_config(w, u, &cfg);
	cfg.ls_records = e->ls_records;
	e->cur = u;
	if (tc_node_init_ls(tn, &cfg, out, LSMEM(e, u))) {
		fprintf(stderr, "torus-sim: tc_node_init rejected node %u\n", u);
		return;
	}
	e->run[u] = NODE_CORE;
	e->started[u] = 1;
	e->owed[u] = 0;
	e->input[u] = 1;
	for (l = 0; l < w->nports; l++) {
		if (!carrier(e, u, l))
			continue;
		tc_port_state(tn, l, true);
	}
	/* as torusd does when the kernel kept the node's placement */
	if (resume && e->saved && e->saved[u].state == TC_PLACED)
		tc_node_restore(tn, &e->saved[u]);
}

static void apply(struct engine *e, const struct sim_event *ev,
		  const struct tc_output *out)
{
	const struct sim_world *w = e->w;
	size_t iu = (size_t)ev->u * w->nports + ev->lu;
	size_t iv = (size_t)ev->v * w->nports + ev->lv;
	unsigned int l;

	if (e->o->verbose > 1 || (e->o->verbose && ev->kind != SIM_EV_START))
		fprintf(stderr, "round %u: %s node %u%s", e->t,
			ev->kind == SIM_EV_CUT ? "cut" :
			ev->kind == SIM_EV_PLUG ? "plug" :
			ev->kind == SIM_EV_STOP ? "stop" : "start", ev->u,
			ev->kind <= SIM_EV_PLUG ? "" : "\n");
	if (e->o->verbose > 1 || (e->o->verbose && ev->kind <= SIM_EV_PLUG))
		if (ev->kind <= SIM_EV_PLUG)
			fprintf(stderr, " label %u - node %u label %u%s\n",
				ev->lu, ev->v, ev->lv,
				ev->wrong ? " (wrong)" : "");
	switch (ev->kind) {
	case SIM_EV_CUT:
		if (e->peer[iu] != (ev->v << 4 | ev->lv))
			break;
		e->peer[iu] = e->peer[iv] = SIM_NO_PEER;
		e->wrongp[iu] = e->wrongp[iv] = 0;
		e->rewired[ev->u] = e->rewired[ev->v] = 1;
		if (e->run[ev->u] == NODE_CORE) {
			wake(e, ev->u);
			tc_port_state(NODE(e, ev->u), ev->lu, false);
		}
		if (e->run[ev->v] == NODE_CORE) {
			wake(e, ev->v);
			tc_port_state(NODE(e, ev->v), ev->lv, false);
		}
		break;
	case SIM_EV_PLUG:
		e->peer[iu] = ev->v << 4 | ev->lv;
		e->peer[iv] = ev->u << 4 | ev->lu;
		e->wrongp[iu] = e->wrongp[iv] = ev->wrong;
		e->rewired[ev->u] = e->rewired[ev->v] = 1;
		if (carrier(e, ev->u, ev->lu)) {
			carrier_up(e, ev->u, ev->lu);
			carrier_up(e, ev->v, ev->lv);
		}
		break;
	case SIM_EV_STOP:
		if (e->stops[ev->u] < UINT8_MAX)
			e->stops[ev->u]++;
		if (e->run[ev->u] != NODE_CORE)
			break;
		tc_view(NODE(e, ev->u), &e->saved[ev->u]);
		e->run[ev->u] = NODE_OFF;
		break;
	case SIM_EV_START:
		if (e->powered[ev->u]) {
			/* a daemon restart: the ports stayed up */
			if (e->stops[ev->u] && --e->stops[ev->u])
				break;
			if (honest(e, ev->u) && e->run[ev->u] == NODE_OFF)
				start_core(e, ev->u, !e->o->restart_fresh, out);
			break;
		}
		e->powered[ev->u] = 1;
		for (l = 0; l < w->nports; l++) {
			uint32_t p = e->peer[(size_t)ev->u * w->nports + l];

			if (carrier(e, ev->u, l))
				carrier_up(e, p >> 4, p & 15);
		}
		if (!w->alive[ev->u])
			break;
		if (e->s->liar[ev->u]) {
			e->run[ev->u] = NODE_LIAR;
			sim_liar_init(&e->liars[e->liar_of[ev->u]],
				      w->ids[ev->u],
				      sim_stream(w->seed, SIM_STREAM_LIAR));
			break;
		}
		start_core(e, ev->u, false, out);
		break;
	}
}

/* ---- link state (linkstate.c): the engine's side ---- */

/*
 * The link-state bound when none is given: a record for every node, as
 * torusd's default holds up to TC_LS_RECORDS nodes (restarts make every
 * node report for a moment); in larger fabrics the live
 * nodes next to a dead node or a cut cable (the reporters the faults
 * make; a mesh's surface counts too), plus room for unplaced blocks and
 * later events.
 */
static uint32_t ls_records_auto(const struct sim_world *w)
{
	uint32_t u, l, est = 0;

	if (w->nnodes <= TC_LS_RECORDS)
		return w->nnodes;	/* 4,096^2 records: 190 MB in all */

	for (u = 0; u < w->nnodes; u++) {
		if (!w->alive[u])
			continue;
		for (l = 0; l < w->nports; l++) {
			uint32_t p = w->peer[(size_t)u * w->nports + l];

			if (p == SIM_NO_PEER || !w->alive[p >> 4]) {
				est++;
				break;
			}
		}
	}
	est += est / 8 + w->nnodes / 64 + 64;
	/* all databases together within SIM_LS_BUDGET: a run with heavy
	 * faults gets a counted overflow, not an out-of-memory */
	if ((double)est * w->nnodes > SIM_LS_BUDGET / 11.25)
		est = (uint32_t)(SIM_LS_BUDGET / 11.25 / w->nnodes);
	return est ? est : 1;
}

static struct tc_node *ls_node(void *ctx, uint32_t u)
{
	struct engine *e = ctx;

	return e->run[u] == NODE_CORE ? NODE(e, u) : NULL;
}

/* what linkstate.c asks for between two phases */
static void ls_act(struct engine *e, const struct sim_ls_action *a,
		   const struct tc_output *out)
{
	struct sim_event ev = { .tick = e->t, .u = a->u, .lu = a->lu,
				.v = a->v, .lv = a->lv };
	unsigned int l;

	switch (a->kind) {
	case SIM_LS_ACT_KILL:
		/* powered off: its neighbours lose carrier */
		e->powered[a->u] = 0;
		e->run[a->u] = NODE_OFF;
		for (l = 0; l < e->w->nports; l++) {
			uint32_t p = e->peer[(size_t)a->u * e->w->nports + l];

			if (p == SIM_NO_PEER || e->run[p >> 4] != NODE_CORE)
				continue;
			wake(e, p >> 4);
			tc_port_state(NODE(e, p >> 4), p & 15, false);
		}
		return;
	case SIM_LS_ACT_REVIVE:
		ev.kind = SIM_EV_START;
		break;
	case SIM_LS_ACT_CUT:
		ev.kind = SIM_EV_CUT;
		break;
	case SIM_LS_ACT_PLUG:
		ev.kind = SIM_EV_PLUG;
		break;
	default:
		return;
	}
	apply(e, &ev, out);
}

/* the fabric grows: its extents now, and the old ones for a while */
static void grow(struct engine *e, uint32_t settle)
{
	const struct sim_opts *o = e->o;
	uint32_t u;

	/* a node not placed yet takes its reference when it is */
	for (u = 0; u < e->w->nnodes; u++) {
		struct place *pl = &e->place[u];

		pl->pre_leader = pl->leader;
		memcpy(pl->pre, pl->coord, sizeof(pl->pre));
	}
	memcpy(e->prev_dims, e->dims, sizeof(e->dims));
	e->dims[o->grow_axis] = o->dims[o->grow_axis];
	/* a ring of two had no sign: its frames learn it again */
	if (e->prev_dims[o->grow_axis] == 2 &&
	    (o->wrap & (1u << o->grow_axis)))
		for (u = 0; u < e->fr.n; u++) {
			struct frame *f = &e->fr.f[u];
			unsigned int fa;

			for (fa = 0; fa < o->ndims; fa++) {
				if (f->taxis[fa] != o->grow_axis)
					continue;
				f->tdir[2 * fa] = TORUS_DIR_NONE;
				f->tdir[2 * fa + 1] = TORUS_DIR_NONE;
				f->relearn |= (uint8_t)(1u << fa);
			}
		}
	e->epoch++;
	e->grace_until = e->t + settle;
	e->grown_at = e->t;
}

/*
 * Is every move since the growth the one it forces?  A ring grown
 * anywhere but at its coordinate seam must renumber the arc behind the
 * new slab (ring coordinates are consecutive): such a node moves once,
 * in the same frame, along one axis (the grown one, whichever axis of
 * the frame that is), by the slab's width either way round, from where
 * it was when the fabric grew (or first placed, if that was later: it
 * may follow a neighbour not yet renumbered).  Anything else is
 * counted: a second move, a move back, a move on two axes or into
 * another frame.
 */
static uint32_t moved_beyond_growth(const struct engine *e)
{
	unsigned int nd = e->o->ndims, a, changed, shift, ext;
	unsigned int w = e->o->grow_slabs;
	uint32_t u, bad = 0;

	if (e->grown_at < 0)
		return 0;
	ext = e->dims[e->o->grow_axis];
	for (u = 0; u < e->w->nnodes; u++) {
		const struct place *pl = &e->place[u];
		bool forced;

		if (!pl->moves_after_growth)
			continue;
		forced = pl->moves_after_growth == 1 &&
			 pl->leader == pl->pre_leader;
		for (a = 0, changed = 0; a < nd && forced; a++) {
			if (pl->coord[a] == pl->pre[a])
				continue;
			shift = (pl->coord[a] + ext - pl->pre[a] % ext) % ext;
			if (changed++ || (shift != w && shift != ext - w))
				forced = false;
		}
		if (!forced && e->o->verbose)
			fprintf(stderr, "node %u moved beyond the growth: %u "
				"moves since%s\n", u, pl->moves_after_growth,
				pl->leader != pl->pre_leader ?
				", into another frame" : "");
		bad += !forced;
	}
	return bad;
}

/* ---- the round loop ---- */

static void engine_free(struct engine *e)
{
	unsigned int i;

	free(e->nodes);
	free(e->lsmem);
	for (i = 0; i < NQ; i++)
		free(e->q[i].buf);
	free(e->peer);
	free(e->wrongp);
	free(e->ever);
	free(e->powered);
	free(e->run);
	free(e->stops);
	free(e->rewired);
	free(e->started);
	free(e->owed);
	free(e->due);
	free(e->input);
	free(e->stalled);
	free(e->saved);
	free(e->liars);
	free(e->liar_of);
	free(e->place);
	free(e->wrong_node);
	free(e->listed);
	frames_free(&e->fr);
}

/*
 * The nodes' memory, on 2 MiB pages where the kernel has them: at
 * 65,536 nodes the link-state tables are 10 GB read at random, and with
 * 4 KiB pages nearly every read also walks the page tables.
 */
static void *sim_alloc_huge(size_t size)
{
	const size_t huge = 2u << 20;
	void *p;

	size = (size + huge - 1) & ~(huge - 1);
	p = aligned_alloc(huge, size);
	if (p)
		madvise(p, size, MADV_HUGEPAGE);	/* a hint: may fail */
	return p;
}

static int engine_init(struct engine *e, const struct sim_world *w,
		       const struct sim_schedule *s, struct sim_result *r)
{
	const struct sim_opts *o = w->o;
	uint32_t n = w->nnodes, u, np = w->nports, k = 0;
	struct tc_config cfg;

	memset(e, 0, sizeof(*e));
	e->w = w;
	e->o = o;
	e->s = s;
	e->grown_at = -1;
	e->nq = o->reorder > 0 ? NQ : 2;
	e->rng = sim_stream(w->seed, SIM_STREAM_NET);
	memcpy(e->dims, s->dims0, sizeof(e->dims));
	sim_node_config(w, 0, &cfg);
	e->ls_records = o->no_ls ? 1 : o->ls_records ? o->ls_records :
			ls_records_auto(w);
	cfg.ls_records = e->ls_records;
	if (!o->no_ls && !o->ls_records && !o->force_ls &&
	    (double)tc_ls_size(&cfg) * n > SIM_LS_FIT) {
		/* measured only where it fits: discovery runs with a
		 * database of one record, as with --no-ls */
		r->ls_skipped = true;
		r->ls_need = (double)tc_ls_size(&cfg) * n;
		e->ls_records = 1;
		cfg.ls_records = 1;
	}
	r->ls_records = e->ls_records;
	r->state_bytes = tc_core_size(&cfg);
	r->ls_bytes = tc_ls_size(&cfg);
	e->nsize = (r->state_bytes + 15) & ~(size_t)15;
	e->lssize = (r->ls_bytes + 7) & ~(size_t)7;
	e->nodes = sim_alloc_huge(e->nsize * n);
	e->lsmem = sim_alloc_huge(e->lssize * n);
	e->peer = malloc(sizeof(*e->peer) * n * np);
	e->wrongp = calloc((size_t)n * np, 1);
	e->ever = malloc(sizeof(*e->ever) * n);
	e->powered = calloc(n, 1);
	e->run = calloc(n, 1);
	e->stops = calloc(n, 1);
	e->rewired = calloc(n, 1);
	e->started = calloc(n, 1);
	e->owed = calloc(n, sizeof(*e->owed));
	e->due = calloc(n, sizeof(*e->due));
	e->input = calloc(n, 1);
	e->stalled = calloc(n, sizeof(*e->stalled));
	e->place = calloc(n, sizeof(*e->place));
	e->wrong_node = calloc(n, 1);
	e->listed = calloc(n, 1);
	if (o->restarts)
		e->saved = calloc(n, sizeof(*e->saved));
	if (s->nliars) {
		e->liars = calloc(s->nliars, sizeof(*e->liars));
		e->liar_of = calloc(n, sizeof(*e->liar_of));
	}
	if (!e->nodes || !e->lsmem || !e->peer || !e->wrongp || !e->ever ||
	    !e->powered ||
	    !e->run || !e->stops || !e->rewired || !e->started || !e->owed || !e->due ||
	    !e->input || !e->stalled || !e->place ||
	    !e->wrong_node || !e->listed || (o->restarts && !e->saved) ||
	    (s->nliars && (!e->liars || !e->liar_of)) ||
	    frames_init(&e->fr, 64))
		return -ENOMEM;
	memcpy(e->peer, s->peer0, sizeof(*e->peer) * n * np);
	for (u = 0; u < n; u++) {
		e->ever[u] = u;
		if (s->liar[u])
			e->liar_of[u] = k++;
	}
	return 0;
}

int sim_run(const struct sim_world *w, const struct sim_schedule *s,
	    struct sim_result *r)
{
	const struct sim_opts *o = w->o;
	struct tc_output out;
	struct engine e;
	struct tc_view v;
	struct tc_stats st;
	uint32_t n = w->nnodes, u, t, cap, quiet = 0, idle = 0, stall, base;
	uint32_t settle, ei = 0, gi = 0, nl, last_change_tick = 0;
	uint32_t *gen = NULL, *last_change = NULL, *last_state = NULL;
	uint32_t *last_offset = NULL, *list = NULL;
	uint64_t *hash = NULL, *ohash = NULL, tx_msgs = 0, tx_bytes = 0, sent0;
	int64_t grow_at = -1;
	bool grow_pending = o->grow_axis >= 0;
	uint8_t *state = NULL;
	double t0 = now(), t1;
	size_t qcap = 0;
	struct sim_ls_net lsnet = { .w = w, .node = ls_node, .ctx = &e };
	struct sim_ls_action lsa;
	struct sim_ls_state ls;
	uint32_t ls_cap;
	struct sim_final_node *final = r->final;	/* the caller's */
	int err = 0;
	unsigned int i;

	memset(r, 0, sizeof(*r));
	r->final = final;
	r->seed = w->seed;
	r->nodes = n;
	r->liars = s->nliars;
	r->live = w->live - s->nliars;
	r->rounds_to_placed = -1;
	r->first_wrong = -1;
	r->converged_at = -1;
	r->grown_at = -1;
	r->surveyed_at = -1;
	r->survey_from = -1;
	r->last_event = s->last_event;
	out.ctx = &e;
	out.send = eng_send;

	memset(&ls, 0, sizeof(ls));
	err = engine_init(&e, w, s, r);
	if (!err && sim_ls_init(&ls, w, o->ls_events, w->seed))
		err = -ENOMEM;
	lsnet.peer = e.peer;
	lsnet.wrongp = e.wrongp;
	gen = calloc(n, sizeof(*gen));
	last_change = calloc(n, sizeof(*last_change));
	last_offset = calloc(n, sizeof(*last_offset));
	ohash = calloc(n, sizeof(*ohash));
	last_state = calloc(n, sizeof(*last_state));
	hash = calloc(n, sizeof(*hash));
	state = calloc(n, 1);
	list = malloc(sizeof(*list) * n);
	if (err || !gen || !last_change || !last_state || !hash ||
	    !last_offset || !ohash || !state || !list) {
		fprintf(stderr, "torus-sim: out of memory for %u nodes\n", n);
		err = -ENOMEM;
		goto out;
	}

	/* how long after the last event a run may take, and how long the
	 * nodes must stay put to count as converged */
	base = 4 * w->diameter + 4 * o->quiet_ticks + 50;
	if (o->timed)
		base += o->dead_ticks + o->hello_ticks;
	settle = o->timed ? o->quiet_ticks + 2u : 2u;
	cap = o->max_rounds ? o->max_rounds : s->last_event + base;
	stall = o->quiet_ticks + 2 * w->block_diameter + 4 +
		(o->orient_ticks > o->quiet_ticks ? o->orient_ticks : 0);
	/* rounds a link-state phase may take to agree */
	ls_cap = 8 * w->diameter + 6 * o->quiet_ticks + 200 +
		 e.ls_records / 32;
	r->stop = "round cap";
	t1 = now();
	for (t = 0; t <= cap; t++) {
		struct sim_queue *rx = &e.q[t % e.nq];
		uint32_t changed = 0, nfinal = 0, nrun = 0;
		bool pending;
		size_t off;

		e.t = t;
		sent0 = e.sent;
		while (ei < s->nev && s->ev[ei].tick <= t)
			apply(&e, &s->ev[ei++], &out);
		if (grow_at == t) {
			/*
			 * The grace: newcomers are heard and oriented
			 * within dead_ticks; the survey spreads, derives
			 * and finds the turn within 3 diameters, the
			 * extent spreads in one more; held places are
			 * shown anew after quiet_ticks, and newcomers
			 * place after theirs.  All from the moment the last
			 * of the slab is on (it powers on spread too).
			 */
			grow(&e, (s->ngev ? s->gev[s->ngev - 1].tick : 0) +
			     o->dead_ticks + 2u * o->quiet_ticks +
			     4 * w->diameter);
			r->grown_at = t;
		}
		while (e.grown_at >= 0 && gi < s->ngev &&
		       e.grown_at + s->gev[gi].tick <= t)
			apply(&e, &s->gev[gi++], &out);

		for (off = 0; off < rx->len;) {
			struct sim_msg *h = (struct sim_msg *)(rx->buf + off);
			uint32_t d = h->dst;

			off += sizeof(*h) + ((h->len + 7u) & ~7u);
			/* the cable may have changed, the node stopped */
			if (e.run[d] == NODE_OFF ||
			    e.peer[(size_t)d * w->nports + h->port] !=
			    (h->src << 4 | h->sport) || !carrier(&e, d, h->port)) {
				e.dropped++;
				continue;
			}
			if (e.run[d] == NODE_CORE && e.stalled[d]) {
				/* read once its loop runs again */
				e.cur = h->src;
				enqueue(&e, 0, d, h->port, h->sport,
					(const uint8_t *)(h + 1), h->len);
				e.sent--;
				continue;
			}
			e.cur = d;
			if (e.run[d] == NODE_CORE) {
				wake(&e, d);
				tc_receive(NODE(&e, d), h->port,
					   (const uint8_t *)(h + 1), h->len);
			}
			else
				sim_liar_receive(&e.liars[e.liar_of[d]],
						 o->ndims, h->port,
						 (const uint8_t *)(h + 1),
						 h->len);
		}
		rx->len = 0;
		for (u = 0; t && u < n; u++) {
			e.cur = u;
			if (e.run[u] == NODE_CORE) {
				r->node_ticks++;
				/* a stalled loop: its ticks are forgiven */
				if (!e.stalled[u] && o->stall > 0 &&
				    sim_unif(&e.rng) < o->stall)
					e.stalled[u] = (uint16_t)(1 +
						sim_below(&e.rng, o->stall_max));
				if (e.stalled[u]) {
					e.stalled[u]--;
					continue;
				}
				/* asleep until its deadline, if nothing came */
				if (!o->no_sleep && !e.input[u] &&
				    t < e.due[u]) {
					e.owed[u]++;
					r->node_ticks_slept++;
					continue;
				}
				wake(&e, u);
				e.input[u] = 0;
				tc_tick(NODE(&e, u));
				e.due[u] = t + tc_next_deadline(NODE(&e, u));
			} else if (e.run[u] == NODE_LIAR) {
				sim_liar_tick(&e.liars[e.liar_of[u]], o,
					      carrier_mask(&e, u), &out);
			}
		}
		nl = 0;
		for (u = 0; u < n; u++) {
			uint64_t h;

			if (e.run[u] != NODE_CORE)
				continue;
			nrun++;
			/* the view (state included) moves with its generation */
			if (tc_surveying(NODE(&e, u))) {
				if (r->survey_from < 0)
					r->survey_from = t;
				r->surveyed_at = t;
			}
			if (tc_generation(NODE(&e, u)) == gen[u] &&
			    !e.started[u]) {
				nfinal += is_final(state[u]) &&
					  !tc_surveying(NODE(&e, u));
				continue;
			}
			tc_view(NODE(&e, u), &v);
			gen[u] = v.generation;
			e.started[u] = 0;
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
			if (v.state != state[u]) {
				state[u] = v.state;
				last_state[u] = t;
				changed++;
			}
			place_update(&e, u, &v, r);
			if (v.state == TC_PLACED)
				list[nl++] = u;
			nfinal += is_final(state[u]) &&
				  !tc_surveying(NODE(&e, u));
		}
		nl = ring2_neighbours(&e, list, nl);
		tick_check(&e, list, nl, r);
		if (e.epoch && t == e.grace_until)
			recheck_all(&e, list, r);
		if (t)
			r->node_steps += nrun;
		for (i = 0; i < NQ; i++)
			if (e.q[i].len > r->queue_peak)
				r->queue_peak = e.q[i].len;
		if (o->verbose > 1 || (o->verbose && t % 10 == 0))
			fprintf(stderr,
				"round %u: %u/%u final, %u changes, %llu msgs\n",
				t, nfinal, r->live, changed,
				(unsigned long long)(e.sent - sent0));
		if (!t)
			continue;
		if (changed)
			last_change_tick = t;
		quiet = changed ? 0 : quiet + 1;
		idle = changed || e.sent != sent0 ? 0 : idle + 1;
		/* --grow: once what is there settled (or took too long) */
		if (grow_pending && t >= s->initial_done &&
		    ((nfinal == nrun && quiet >= 2) ||
		     t >= s->initial_done + base)) {
			grow_pending = false;
			grow_at = t + 1;
			if (!o->max_rounds && s->ngev &&
			    grow_at + s->gev[s->ngev - 1].tick + base > cap)
				cap = grow_at + s->gev[s->ngev - 1].tick + base;
		}
		pending = t < s->last_event || grow_pending || grow_at > t ||
			  (e.grown_at >= 0 && gi < s->ngev);
		sim_ls_round(&ls, &lsnet, t,
			     !o->no_ls && !r->ls_skipped && !pending &&
			     nfinal == nrun, ls_cap,
			     &lsa);
		ls_act(&e, &lsa, &out);
		if (!sim_ls_done(&ls) && t == cap)
			cap++;	/* its phases have their own cap */
		if (pending || !sim_ls_done(&ls))
			continue;
		if (nfinal == r->live && nrun == r->live && quiet >= settle) {
			r->stop = "settled";
			break;
		}
		if (idle >= stall) {
			r->stop = "stalled";
			break;
		}
	}
	r->rounds_run = t > cap ? cap : t;
	r->ls = ls.res;
	if (e.epoch && e.grace_until)
		recheck_all(&e, list, r);
	r->loop_s = now() - t1;
	if (e.nomem)
		fprintf(stderr, "torus-sim: out of memory for messages "
			"(some were dropped)\n");

	r->converged = true;
	for (u = 0; u < n; u++) {
		if (!honest(&e, u))
			continue;
		if (e.run[u] != NODE_CORE) {
			r->converged = false;
			r->unplaced++;
			memset(&v, 0, sizeof(v));
			snprintf(v.reason, sizeof(v.reason), "(not running)");
			count_reason(r, &v);
			continue;
		}
		tc_view(NODE(&e, u), &v);
		if (r->final) {
			r->final[u].running = 1;
			r->final[u].state = v.state;
			memcpy(r->final[u].reason, v.reason, sizeof(v.reason));
		}
		tc_get_stats(NODE(&e, u), &st);
		tx_msgs += st.msgs_tx;
		tx_bytes += st.bytes_tx;
		r->bad_rx += st.bad_rx;
		r->queue_drops += st.queue_drops;
		/* messages the core did not send: above TC_MSG_MAX */
		r->oversize += st.oversize;
		r->refuted += st.refuted;
		r->resurveys += st.resurveys;
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
	/* with time, converged also means it stayed put (settled) */
	if (o->timed && strcmp(r->stop, "settled"))
		r->converged = false;
	if (!r->converged)
		r->rounds_to_placed = -1;
	else
		r->converged_at = last_change_tick;
	if (r->live) {
		r->msgs_per_node = (double)tx_msgs / r->live;
		r->bytes_per_node = (double)tx_bytes / r->live;
	}
	r->moved_beyond_growth = moved_beyond_growth(&e);
	r->dropped = e.dropped;
	r->oversize += e.oversize;
	r->lost = e.lost;
	r->duplicated = e.duplicated;
	r->delayed = e.delayed;
	for (i = 0; i < NQ; i++)
		qcap += e.q[i].cap;
	r->harness_bytes = (sim_world_bytes(w) + qcap +
			    (size_t)n * (sizeof(*gen) + sizeof(*last_change) +
					 sizeof(*last_state) + sizeof(*hash) +
					 sizeof(*ohash) + sizeof(*last_offset) +
					 sizeof(*state) + sizeof(*list) +
					 sizeof(*e.peer) * w->nports +
					 w->nports + sizeof(*e.ever) + 6 +
					 sizeof(*e.place)) +
			    (size_t)e.fr.cap * sizeof(*e.fr.f) +
			    (size_t)n * (e.nsize - r->state_bytes) +
			    (size_t)n * (e.lssize - r->ls_bytes)) / n;
	err = check(&e, r);
	if (err)
		fprintf(stderr, "torus-sim: out of memory for the check\n");
out:
	sim_ls_free(&ls);
	engine_free(&e);
	free(gen);
	free(last_change);
	free(last_offset);
	free(ohash);
	free(last_state);
	free(hash);
	free(state);
	free(list);
	r->wall_s = now() - t0;
	return err;
}
