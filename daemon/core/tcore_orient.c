// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Orientation resolution: the axis map of each cable, that is which of
 * the neighbor's local directions each of ours corresponds to.
 *
 * Flat mode (beyond the paper): every node may be cabled in its own
 * rotation or reflection.  The cable's own axis comes from the increment
 * along it; every other axis B from a square u -B-> x -> w <- v <-A- u:
 * the port by which v reaches w is parallel to u's B port.  Squares are
 * found in the neighbors' neighbor tables (ids hashed).  The axis pairs
 * of each board are what make squares meaningful: without them a 4-ring
 * (C4 = K2 x K2) would look like a square.  Squares that disagree mark
 * the cable as conflicting: it is never used, rather than guessed.
 * A cable plugged back crossed into a node three steps away closes a
 * square with three honest cables, one that orients our honest cable
 * on the crossed cable's axis with the wrong sign: while neighbors are
 * still powering on, it may be the only square there is.  So a square
 * seen from one side of an axis only, where the board has both, counts
 * when our cable to its other corner is on a square of its own too, or
 * once the node has been quiet for quiet_ticks (a neighbor may be dead).
 *
 * Block mode (the paper, section 3): nodes inside a block share its
 * frame; across a face, OrientAdjacent compares the displacement of two
 * cables (a,a'), (b,b') in both blocks' coordinates.  Every face node
 * broadcasts its pair inside its block (reverse path forwarding along
 * the block's dimension-ordered tree, so no duplicate suppression state
 * is needed); a face node that resolves the map broadcasts it to the
 * whole block; a face that is not resolved within 2d+2 ticks of being
 * seen fails, and the failure is broadcast.  Beyond the paper, only a
 * contradiction fails a face for good: one that timed out is tried
 * again when a cable more comes up on it (boots are staggered), and a
 * map resolved by a block mate replaces it.  Beyond the paper's
 * satisfying quadruples (all face displacements non-zero and of
 * distinct magnitude), a pair whose displacement pins down one axis
 * contributes that axis, so 2x2 faces resolve too.
 */
#include <stdlib.h>
#include <string.h>

#include "tcore_int.h"

static uint8_t tc_axis_mask(const struct tc_node *n)
{
	return (uint8_t)((1u << n->cfg.ndims) - 1);
}

/* The map sends distinct axes to distinct axes. */
bool tc_map_injective(const struct tc_node *n, const uint8_t *map)
{
	uint16_t seen = 0;
	unsigned int a;

	for (a = 0; a < n->cfg.ndims; a++) {
		if (map[a] == TC_NONE)
			continue;
		if (seen & (1u << (map[a] >> 1)))
			return false;
		seen |= 1u << (map[a] >> 1);
	}
	return true;
}

/* The image of our +axis(p) across the cable on port p. */
static uint8_t tc_increment_map(uint8_t p, uint8_t peer_port)
{
	return (uint8_t)((peer_port ^ 1) ^ (p & 1));
}

/* axes on which the board has a port */
static unsigned int tc_board_axes(const struct tc_node *n)
{
	unsigned int a, k = 0;

	for (a = 0; a < n->cfg.ndims; a++)
		k += !!(n->cfg.ports & (3u << (2 * a)));
	return k;
}

bool tc_square_backed(const struct tc_node *n, uint8_t p)
{
	unsigned int a;

	for (a = 0; a < n->cfg.ndims; a++)
		if (a != (p >> 1u) &&
		    tc_nb_map(n, &tn_nbr(n)[p])[a] != TC_NONE)
			return true;
	return false;
}

/*
 * Whether a square backs our cable on port @p through a neighbor other
 * than the one on @skip.
 */
static bool tc_square_besides(struct tc_node *n, uint8_t p, uint8_t skip)
{
	const uint32_t *vrow = tc_hop2(n, p);
	uint32_t me = tw_id_hash(n->cfg.id);
	uint8_t q = tn_nbr(n)[p].peer_port, np = tc_nports(n);
	unsigned int beta, d, e;

	for (beta = 0; beta < np; beta++) {
		const struct tc_nbr *x = &tn_nbr(n)[beta];
		const uint32_t *xrow = tc_hop2(n, beta);

		if (beta == skip || (beta >> 1) == (p >> 1u) || !x->id)
			continue;
		for (d = 0; d < np; d++) {
			uint32_t w = vrow[d];

			if (!w || w == me || (d >> 1) == (q >> 1u))
				continue;
			for (e = 0; e < np; e++)
				if (xrow[e] == w &&
				    (e >> 1) != (x->peer_port >> 1u))
					return true;
		}
	}
	return false;
}

void tc_resolve_flat(struct tc_node *n, uint8_t p)
{
	struct tc_nbr *nb = &tn_nbr(n)[p];
	uint8_t *map = tc_nb_map(n, nb);
	const uint32_t *vrow = tc_hop2(n, p);
	uint32_t me = tw_id_hash(n->cfg.id);
	uint8_t q = nb->peer_port, np = tc_nports(n);
	bool quiet = n->quiet >= n->cfg.quiet_ticks;
	unsigned int axis, s, d, e;

	/* from today's squares: one seen before may have been refuted */
	memset(map, TC_NONE, n->cfg.ndims);
	map[p >> 1] = tc_increment_map(p, q);
	for (axis = 0; axis < n->cfg.ndims; axis++) {
		uint8_t found = TC_NONE, sides = 0;
		uint8_t board = (n->cfg.ports >> (2 * axis)) & 3;
		bool corner_backed = false;
		uint64_t found_x = 0;
		uint32_t found_w = 0;

		if (axis == (p >> 1u))
			continue;
		for (s = 0; s < 2; s++) {
			uint8_t beta = TORUS_DIR(axis, s);
			const struct tc_nbr *x = &tn_nbr(n)[beta];
			const uint32_t *xrow = tc_hop2(n, beta);

			/* a cable marked miswired is no square's side */
			if (!x->id || (x->flags & NB_MISWIRED))
				continue;
			for (d = 0; d < np; d++) {
				uint32_t w = vrow[d];

				if (!w || w == me || (d >> 1) == (q >> 1u))
					continue;
				for (e = 0; e < np; e++) {
					uint8_t cand;

					if (xrow[e] != w ||
					    (e >> 1) == (x->peer_port >> 1u))
						continue;
					/* u.beta is parallel to v.d */
					cand = (uint8_t)(d ^ s);
					sides |= 1u << s;
					if (found == TC_NONE) {
						found = cand;
						found_x = x->id;
						found_w = w;
						continue;
					}
					/*
					 * Opposite signs are a ring of two's
					 * (one corner x and w reached both
					 * ways), else a crossed cable's.
					 */
					if ((found >> 1) != (cand >> 1) ||
					    (found != cand &&
					     (found_x != x->id || found_w != w)))
						goto conflict;
				}
			}
			if ((sides & (1u << s)) &&
			    tc_square_besides(n, beta, p))
				corner_backed = true;
		}
		if (found != TC_NONE && (sides & board) != board &&
		    !corner_backed && !quiet)
			continue;	/* one side's square alone: wait */
		map[axis] = found;
	}
	if (!tc_map_injective(n, map))
		goto conflict;
	/*
	 * Resolved: every live axis mapped, and at least one square behind
	 * it unless the board has a single axis (a node that sees one live
	 * axis, early in a staggered boot, must not trust a neighbor whose
	 * neighbor table could be made up: the squares check it).
	 */
	if (tc_map_complete(n, map, tc_live_axes(n)) &&
	    (tc_square_backed(n, p) || tc_board_axes(n) < 2))
		nb->flags |= NB_RESOLVED;
	return;

conflict:
	nb->flags |= NB_CONFLICT;
	memset(map, TC_NONE, n->cfg.ndims);
}

/* ---- block mode ---- */

static bool tc_same_block(const struct tc_node *n, const struct tc_nbr *nb)
{
	return nb->id && (nb->flags & NB_BLOCK) && nb->block == n->cfg.block_id;
}

/* Ports leading to neighbors inside our block. */
static uint16_t tc_block_ports(const struct tc_node *n)
{
	uint16_t ports = 0;
	unsigned int p;

	for (p = 0; p < tc_nports(n); p++)
		if ((n->up & (1u << p)) && tc_same_block(n, &tn_nbr(n)[p]))
			ports |= 1u << p;
	return ports;
}

/*
 * Reverse path forwarding: the block neighbor on port p gets a record
 * from origin @a through us iff we are its first hop towards @a in
 * dimension order (block coordinates, no wrap inside a block).
 */
static bool tc_rpf_child(const struct tc_node *n, uint8_t p, const uint8_t *a)
{
	int c[TC_MAX_AXES];
	unsigned int k;

	for (k = 0; k < n->cfg.ndims; k++)
		c[k] = tn_block_coord(n)[k];
	c[p >> 1] += (p & 1) ? -1 : 1;
	if (c[p >> 1] < 0 || c[p >> 1] >= tn_block_dims(n)[p >> 1])
		return false;
	for (k = 0; k < n->cfg.ndims; k++) {
		if (c[k] == a[k])
			continue;
		/* the child steps along axis k towards a: is that us? */
		return k == (p >> 1u) &&
		       (c[k] > a[k] ? c[k] - 1 : c[k] + 1) ==
		       tn_block_coord(n)[k];
	}
	return false;
}

/* queue entry @q (TC_QENT() bytes, see there) <- @rec, @ports */
static void tc_qent_put(uint8_t *q, unsigned int nd, const struct tw_face *rec,
			uint16_t ports)
{
	/* directions are below 2 * TC_MAX_AXES = 16: 4 bits each */
	uint32_t head = ports | (uint32_t)(rec->normal & 15) << (2 * nd) |
			(uint32_t)(rec->peer_label & 15) << (2 * nd + 4);
	unsigned int i;

	memcpy(q, &rec->block, 4);
	for (i = 0; i < TC_QHEAD(nd); i++)
		q[4 + i] = (uint8_t)(head >> (8 * i));
	q += 4 + TC_QHEAD(nd);
	memcpy(q, rec->a, nd);
	memcpy(q + nd, rec->b, nd);
}

/* @rec <- queue entry @q; returns the ports it goes out of */
static uint16_t tc_qent_get(const uint8_t *q, unsigned int nd,
			    struct tw_face *rec)
{
	uint32_t head = 0;
	unsigned int i;

	for (i = 0; i < TC_QHEAD(nd); i++)
		head |= (uint32_t)q[4 + i] << (8 * i);
	memset(rec, 0, sizeof(*rec));
	memcpy(&rec->block, q, 4);
	rec->normal = (head >> (2 * nd)) & 15;
	rec->peer_label = (head >> (2 * nd + 4)) & 15;
	q += 4 + TC_QHEAD(nd);
	memcpy(rec->a, q, nd);
	memcpy(rec->b, q + nd, nd);
	return (uint16_t)(head & ((1u << (2 * nd)) - 1));
}

static void tc_enqueue(struct tc_node *n, const struct tw_face *rec,
		       uint16_t ports)
{
	unsigned int nd = n->cfg.ndims;

	if (!ports)
		return;
	if (n->nq >= TC_QUEUE) {
		n->stats.queue_drops++;
		return;
	}
	tc_qent_put(tn_queue(n) + n->nq * TC_QENT(nd), nd, rec, ports);
	n->nq++;
	n->flags |= TN_DIRTY;
}

static void tc_face_resolved(struct tc_node *n, struct tc_face *f)
{
	f->status = FACE_RESOLVED;
	f->fwd_ports = tc_block_ports(n);
	n->flags |= TN_DIRTY | TN_CHANGED;
}

/*
 * @final: our own cables on the face contradict each other, and no later
 * record changes that.  A face that timed out, or that a block mate
 * reported failed, is tried again when a cable more comes up on it, and
 * a map resolved elsewhere in the block replaces the failure.
 */
static void tc_face_failed(struct tc_node *n, struct tc_face *f, bool final)
{
	f->status = FACE_FAILED;
	f->final = final;
	f->seen_at = n->now;	/* a retry counts from here */
	memset(tc_face_map(n, f), TC_NONE, n->cfg.ndims);
	f->fwd_ports = tc_block_ports(n);
	n->flags |= TN_DIRTY | TN_CHANGED;
}

static struct tc_face *tc_face_seen(struct tc_node *n, uint8_t normal,
				    uint32_t block)
{
	struct tc_face *f = &tn_face(n)[normal];

	if (f->status == FACE_NONE) {
		f->status = FACE_SEEN;
		f->block = block;
		f->seen_at = n->now;
	}
	return f->block == block ? f : NULL;
}

/* The magnitude |v| appears exactly once among the face axes of @d. */
static int tc_unique_axis(const int *d, unsigned int ndims, unsigned int skip,
			  int mag)
{
	int axis = -1;
	unsigned int k;

	for (k = 0; k < ndims; k++) {
		if (k == skip || abs(d[k]) != mag)
			continue;
		if (axis >= 0)
			return -2;
		axis = (int)k;
	}
	return axis;
}

/*
 * OrientAdjacent over our own cable (mine) and another on the same face
 * (rec): every face axis whose displacement magnitude is unique in both
 * blocks is mapped.
 */
static void tc_orient_adjacent(struct tc_node *n, struct tc_face *f,
			       const struct tw_face *mine,
			       const struct tw_face *rec)
{
	unsigned int k, nd = n->cfg.ndims, na = mine->normal >> 1;
	unsigned int nb_axis = mine->peer_label >> 1;
	int d1[TC_MAX_AXES] = { 0 }, d2[TC_MAX_AXES] = { 0 };
	uint8_t *map = tc_face_map(n, f);

	for (k = 0; k < nd; k++) {
		d1[k] = rec->a[k] - mine->a[k];
		d2[k] = rec->b[k] - mine->b[k];
	}
	if (d1[na] || d2[nb_axis] || rec->peer_label != mine->peer_label)
		return;		/* not on the same face */

	map[na] = tc_increment_map(mine->normal, mine->peer_label);
	for (k = 0; k < nd; k++) {
		int j;
		uint8_t img;

		if (k == na || !d1[k] || tc_unique_axis(d1, nd, na, abs(d1[k])) !=
					 (int)k)
			continue;
		j = tc_unique_axis(d2, nd, nb_axis, abs(d1[k]));
		if (j < 0)
			continue;
		img = TORUS_DIR(j, (d2[j] < 0) != (d1[k] < 0));
		if (map[k] != TC_NONE && map[k] != img) {
			tc_face_failed(n, f, true);	/* contradicting cables */
			return;
		}
		if (map[k] == TC_NONE)
			f->seen_at = n->now;	/* progress: the deadline restarts */
		map[k] = img;
	}
	if (!tc_map_injective(n, map)) {
		tc_face_failed(n, f, true);
		return;
	}
	if (tc_map_complete(n, map, tc_axis_mask(n)))
		tc_face_resolved(n, f);
}

/*
 * A face that timed out (not one whose cables contradict each other) is
 * tried again once it has been failed for this long: a block mate too
 * slow to answer within orient_ticks (a starved machine) must not leave
 * the face failed for good once every cable on it was heard of.  Long
 * enough that a node that places despite the failure places first
 * (quiet_ticks after it), so a face that cannot be oriented does not
 * keep its block from placing.
 */
static uint32_t tc_face_retry_ticks(const struct tc_node *n)
{
	return 2u * n->cfg.quiet_ticks + n->cfg.orient_ticks;
}

static bool tc_face_retry_due(const struct tc_node *n, const struct tc_face *f)
{
	return f->status == FACE_FAILED && !f->final &&
	       n->now - f->seen_at > tc_face_retry_ticks(n);
}

/* orient the face afresh: every cable on it is heard of again */
static void tc_face_reopen(struct tc_node *n, struct tc_face *f)
{
	f->status = FACE_SEEN;
	f->announced = 0;
	memset(f->cables, 0, sizeof(f->cables));
	f->seen_at = n->now;
	memset(tc_face_map(n, f), TC_NONE, n->cfg.ndims);
	n->flags |= TN_DIRTY | TN_CHANGED;
}

/* Our own record for the cable on port p, if it crosses a face. */
static bool tc_own_record(const struct tc_node *n, uint8_t p,
			  struct tw_face *rec)
{
	const struct tc_nbr *nb = &tn_nbr(n)[p];

	if (!nb->id || !(nb->flags & NB_BLOCK) || tc_same_block(n, nb))
		return false;
	memset(rec, 0, sizeof(*rec));
	rec->block = nb->block;
	rec->normal = p;
	rec->peer_label = nb->peer_port;
	memcpy(rec->a, tn_block_coord(n), n->cfg.ndims);
	memcpy(rec->b, tc_nb_block_coord(n, nb), n->cfg.ndims);
	return true;
}

/*
 * Ticks until the face on our port @p is tried again on our own clock
 * (not placed, our cable on it, timed out), 0 if it is not.
 */
uint32_t tc_face_retry_in(const struct tc_node *n, uint8_t p)
{
	const struct tc_face *f = &tn_face(n)[p];
	struct tw_face mine;
	uint32_t age = n->now - f->seen_at;

	if ((n->flags & TN_PLACED) || f->status != FACE_FAILED || f->final ||
	    !tc_own_record(n, p, &mine))
		return 0;
	return age > tc_face_retry_ticks(n) ? 1 :
					      tc_face_retry_ticks(n) - age + 1;
}

/*
 * Beyond the paper: a node whose own block cannot reach it (its block
 * neighbors are dead) learns the face map from across the cable, as the
 * inverse of the other block's map.
 */
static void tc_block_rx_across(struct tc_node *n, uint8_t port,
			       const struct tw_msg *m)
{
	const struct tc_nbr *from = &tn_nbr(n)[port];
	struct tc_face *f;
	unsigned int i, b;

	for (i = 0; i < m->norient; i++) {
		const struct tw_orient *o = &m->orient[i];
		uint8_t inv[TC_MAX_AXES];

		if (o->fail || o->block != n->cfg.block_id ||
		    o->normal != from->peer_port)
			continue;
		f = tc_face_seen(n, port, from->block);
		if (!f || f->status == FACE_RESOLVED)
			continue;
		memset(inv, TC_NONE, sizeof(inv));
		for (b = 0; b < n->cfg.ndims; b++)
			inv[o->map[b] >> 1] = TORUS_DIR(b, o->map[b] & 1);
		memcpy(tc_face_map(n, f), inv, n->cfg.ndims);
		if (tc_map_injective(n, tc_face_map(n, f)) &&
		    tc_map_complete(n, tc_face_map(n, f), tc_axis_mask(n)))
			tc_face_resolved(n, f);
		else
			memset(tc_face_map(n, f), TC_NONE, n->cfg.ndims);
	}
}

/*
 * Beyond the paper: its 2d+2 steps assume every node starts at once.
 * Machines power on over minutes, so a face's deadline restarts each
 * time a cable more on it is heard of (a block mate's record, or our
 * own): a face fails only when no cable came up for orient_ticks and
 * the ones there cannot orient it.  @a is the block-side end's block
 * coordinates; positions beyond 64 share bits, which only makes a
 * restart rarer.
 */
static void tc_face_cable(struct tc_node *n, struct tc_face *f,
			  const uint8_t *a)
{
	unsigned int k, pos = 0;
	uint32_t *word, bit;

	for (k = 0; k < n->cfg.ndims; k++)
		pos = pos * tn_block_dims(n)[k] + a[k];
	word = &f->cables[pos % 64 / 32];
	bit = 1u << (pos % 32);
	if (*word & bit)
		return;
	if (f->status == FACE_FAILED && !f->final) {
		/* timed out before this cable came up: try again */
		f->status = FACE_SEEN;
		f->announced = 0;
		n->flags |= TN_DIRTY | TN_CHANGED;
	}
	if (f->status == FACE_SEEN) {
		*word |= bit;
		f->seen_at = n->now;
	}
}

void tc_block_rx(struct tc_node *n, uint8_t port, const struct tw_msg *m)
{
	const struct tc_nbr *from = &tn_nbr(n)[port];
	unsigned int i;

	if (!(from->flags & NB_BLOCK))
		return;
	if (!tc_same_block(n, from)) {
		tc_block_rx_across(n, port, m);
		return;		/* face records never leave their block */
	}

	for (i = 0; i < m->nface; i++) {
		const struct tw_face *rec = &m->face[i];
		struct tw_face mine;
		struct tc_face *f;
		uint16_t fwd = 0;
		unsigned int p;

		f = tc_face_seen(n, rec->normal, rec->block);
		/* a block mate tries the face again: so do we */
		if (f && tc_face_retry_due(n, f))
			tc_face_reopen(n, f);
		if (f)
			tc_face_cable(n, f, rec->a);
		if (f && f->status == FACE_SEEN &&
		    tc_own_record(n, rec->normal, &mine) &&
		    mine.block == rec->block)
			tc_orient_adjacent(n, f, &mine, rec);
		for (p = 0; p < tc_nports(n); p++)
			if (p != port && (tc_block_ports(n) & (1u << p)) &&
			    tc_rpf_child(n, p, rec->a))
				fwd |= 1u << p;
		tc_enqueue(n, rec, fwd);
	}

	for (i = 0; i < m->norient; i++) {
		const struct tw_orient *o = &m->orient[i];
		struct tc_face *f = tc_face_seen(n, o->normal, o->block);

		/* known already: the flood stops (a map beats a failure
		 * that is not ours for good) */
		if (!f || f->status == FACE_RESOLVED ||
		    (f->status == FACE_FAILED && (o->fail || f->final)))
			continue;
		/*
		 * A mate's failure, maybe one from before we tried the face
		 * again, does not fail it here: it times out on our clock.
		 */
		if (o->fail && f->status == FACE_SEEN)
			continue;
		if (o->fail) {
			tc_face_failed(n, f, false);
		} else {
			memcpy(tc_face_map(n, f), o->map, n->cfg.ndims);
			if (!tc_map_injective(n, tc_face_map(n, f))) {
				tc_face_failed(n, f, false);
				continue;
			}
			tc_face_resolved(n, f);
		}
		f->fwd_ports &= ~(1u << port);
	}
}

void tc_block_tick(struct tc_node *n)
{
	unsigned int p;

	for (p = 0; p < tc_nports(n); p++) {
		struct tc_face *f;
		struct tw_face mine;

		if (!tc_own_record(n, p, &mine))
			continue;
		f = &tn_face(n)[p];
		/*
		 * Our cable on this face leads to another block than the
		 * face was seen with: the face was recabled (a fabric grown
		 * by a slab of blocks).  It is oriented afresh.
		 */
		if (f->status != FACE_NONE && f->block != mine.block) {
			memset(f, 0, sizeof(*f));
			memset(tc_face_map(n, f), TC_NONE, n->cfg.ndims);
			n->flags |= TN_DIRTY | TN_CHANGED;
		}
		f = tc_face_seen(n, p, mine.block);
		if (f)
			tc_face_cable(n, f, mine.a);
		/*
		 * Announce our pair, and again with every hello while the
		 * face is unresolved: block mates that were not up yet, or
		 * had no pair of their own then, hear it later.
		 */
		if (f && (!f->announced ||
			  (f->status == FACE_SEEN && !n->hello_in))) {
			f->announced = 1;
			tc_enqueue(n, &mine, tc_block_ports(n));
		}
	}
	for (p = 0; p < tc_nports(n); p++) {
		struct tc_face *f = &tn_face(n)[p];

		/* not placed: a face that timed out long ago is tried again */
		if (tc_face_retry_in(n, (uint8_t)p) == 1 &&
		    tc_face_retry_due(n, f))
			tc_face_reopen(n, f);
		if (f->status == FACE_SEEN &&
		    n->now - f->seen_at > n->cfg.orient_ticks)
			tc_face_failed(n, f, false);
		/* known maps and failures go out again with the hellos */
		if ((f->status == FACE_RESOLVED || f->status == FACE_FAILED) &&
		    !n->hello_in && tc_block_ports(n))
			f->fwd_ports = tc_block_ports(n);
	}
}

void tc_resolve_block(struct tc_node *n, uint8_t p)
{
	struct tc_nbr *nb = &tn_nbr(n)[p];
	const struct tc_face *f = &tn_face(n)[p];
	unsigned int a;

	if (!(nb->flags & NB_BLOCK))
		return;
	if (tc_same_block(n, nb)) {
		for (a = 0; a < n->cfg.ndims; a++)
			tc_nb_map(n, nb)[a] = TORUS_DIR(a, 0);
		nb->flags |= NB_RESOLVED;
		return;
	}
	if (f->status == FACE_RESOLVED && f->block == nb->block) {
		memcpy(tc_nb_map(n, nb), tc_face_map(n, f), n->cfg.ndims);
		/* the increment along this very cable must agree */
		if (tc_nb_map(n, nb)[p >> 1] !=
		    tc_increment_map(p, nb->peer_port)) {
			nb->flags |= NB_CONFLICT;
			return;
		}
		nb->flags |= NB_RESOLVED;
	}
}

void tc_put_block_tlvs(struct tc_node *n, struct tw_buf *b, uint8_t port)
{
	unsigned int i, nd = n->cfg.ndims;

	tw_put_block(b, n->cfg.block_id, n->cfg.ndims, tn_block_coord(n));
	if (!tc_same_block(n, &tn_nbr(n)[port]) &&
	    tn_face(n)[port].status == FACE_RESOLVED) {
		struct tw_orient o = {
			.block = tn_face(n)[port].block,
			.normal = port,
		};

		memcpy(o.map, tc_face_map(n, &tn_face(n)[port]), n->cfg.ndims);
		tw_put_orient(b, n->cfg.ndims, &o);
	}
	for (i = 0; i < n->nq; i++) {
		struct tw_face rec;

		if (tc_qent_get(tn_queue(n) + i * TC_QENT(nd), nd, &rec) &
		    (1u << port))
			tw_put_face(b, nd, &rec);
	}
	for (i = 0; i < tc_nports(n); i++) {
		const struct tc_face *f = &tn_face(n)[i];
		struct tw_orient o;

		if (!(f->fwd_ports & (1u << port)))
			continue;
		memset(&o, 0, sizeof(o));
		o.block = f->block;
		o.normal = i;
		o.fail = f->status == FACE_FAILED;
		memcpy(o.map, tc_face_map(n, f), n->cfg.ndims);
		tw_put_orient(b, n->cfg.ndims, &o);
	}
}

void tc_block_sent(struct tc_node *n)
{
	unsigned int i;

	n->nq = 0;
	for (i = 0; i < tc_nports(n); i++)
		tn_face(n)[i].fwd_ports = 0;
}

/* A face is still being oriented: the block's frame is not final. */
bool tc_block_pending(const struct tc_node *n)
{
	unsigned int i;

	for (i = 0; i < tc_nports(n); i++)
		if (tn_face(n)[i].status == FACE_SEEN)
			return true;
	return false;
}

/* Every face of our block that was seen failed: we cannot join. */
bool tc_block_cut_off(const struct tc_node *n)
{
	bool failed = false;
	unsigned int i;

	for (i = 0; i < tc_nports(n); i++) {
		if (tn_face(n)[i].status == FACE_RESOLVED)
			return false;
		if (tn_face(n)[i].status == FACE_FAILED)
			failed = true;
	}
	return failed;
}
