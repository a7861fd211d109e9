// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Rings surveyed again: a fabric grown by a slab, or any wiring that
 * proves a decided ring longer.
 *
 * A ring's extent is the GCD of the turns seen around it, and the GCD
 * only ever shrinks: evidence from a ring that has since grown would
 * fold 4 and 6 into 2.  So a ring's extent holds for an epoch of its
 * axis.  A placed node that sees its ring contradicted by the wiring it
 * can check itself (its own window of five distinct nodes refuting the
 * extent, or a trusted cable to a newcomer whose turn does not divide
 * it) starts the next epoch; the epoch spreads through the frame with
 * the extent records, and in it:
 *
 *  - the nodes that were placed at coordinate 0 on the axis (a plane
 *    across the ring, the anchors) keep 0; every other node derives its
 *    coordinate on the axis again from a neighbour that already has,
 *    one cable at a time, like the first discovery did from the leader.
 *    Any path from the anchor plane in today's wiring gives a position
 *    up to whole turns, so the turns seen between current nodes are
 *    multiples of the new extent and the GCD finds it;
 *  - a placed node keeps showing its old place and extent (they were
 *    right for the wiring it was decided on) until the new extent is
 *    known and nothing changed for quiet_ticks; a node not placed
 *    places only once it is current on every axis.
 *
 * A ring grown at its coordinate seam (after its highest coordinate)
 * keeps every old node where it was; grown anywhere else, the arc
 * behind the new slab moves up by the slab's width, because a ring's
 * coordinates are consecutive.  Only trusted neighbours (resolved, or
 * square-backed) start or spread an epoch: a made-up record cannot.
 */
#include <string.h>

#include "tcore_int.h"

static int tc_norm(int c, unsigned int g)
{
	return ((c % (int)g) + (int)g) % (int)g;
}

/*
 * Who keeps its coordinate: the leader, the frame's origin.  No other
 * node can be sure that it is not a newcomer placed where the ring grew
 * before the growth was seen.
 */
static bool tc_epoch_anchor(const struct tc_node *n)
{
	return n->leader == n->cfg.id;
}

/*
 * A neighbor we may take a place from: current on every axis, and in
 * our epochs if it is of our frame (a ring surveyed again must not get
 * a coordinate from before the survey).
 */
bool tc_epoch_source(const struct tc_node *n, const struct tc_nbr *nb)
{
	if (tc_nbr_cur(n, nb) != (uint8_t)((1u << n->cfg.ndims) - 1))
		return false;
	return nb->leader != n->leader ||
	       !memcmp(tc_nb_epoch(n, nb), tn_epoch(n),
		       n->cfg.ndims * sizeof(uint16_t));
}

/* both we and the neighbour hold a coordinate of the same epoch on @k */
bool tc_epoch_current(const struct tc_node *n, const struct tc_nbr *nb,
		      unsigned int k)
{
	return (n->cur & tc_nbr_cur(n, nb) & (1u << k)) &&
	       tn_epoch(n)[k] == tc_nb_epoch(n, nb)[k];
}

/* ...and we show the ring on @k: a cable along it can be judged */
bool tc_ring_settled_both(const struct tc_node *n, const struct tc_nbr *nb,
			  unsigned int k)
{
	return tc_epoch_current(n, nb, k) && !tn_hold_dims(n)[k];
}

/*
 * A cable that contradicted the ring of the epoch we leave (its turn
 * did not divide the old extent: the growth itself) is judged again
 * against the new one once the survey is done.
 */
static void tc_epoch_forgive(struct tc_node *n)
{
	unsigned int p;

	for (p = 0; p < tc_nports(n); p++)
		tn_nbr(n)[p].flags &= (uint8_t)~NB_MISWIRED;
}

/*
 * A ring of two fixed no sign (tc_ring2_dir()): each node took "+" from
 * the path it was reached along, and its neighbours' maps of the axis
 * from squares that could not tell the two cables apart.  Grown, the
 * ring's cables lead to different nodes: the axis is oriented again,
 * from the leader outwards, through maps resolved on today's wiring
 * (the neighbors' tables are dropped too: each brings its own again
 * with its next message).
 */
static void tc_epoch_reorient(struct tc_node *n, unsigned int k)
{
	unsigned int a, p;

	for (a = 0; a < n->cfg.ndims; a++)
		if (tn_R(n)[a] != TC_NONE && (tn_R(n)[a] >> 1) == k)
			break;
	if (a == n->cfg.ndims)
		return;
	tn_R(n)[a] = TC_NONE;
	for (p = 0; p < tc_nports(n); p++) {
		tc_nb_map(n, &tn_nbr(n)[p])[a] = TC_NONE;
		tn_nbr(n)[p].flags &= (uint8_t)~NB_RESOLVED;
		/* squares from tables of before the growth lie */
		tc_hop2_forget(n, (uint8_t)p);
	}
}

/*
 * Enter epoch @epoch of axis @k, in which the frame knows the extent
 * @gcd so far (0: not yet).
 */
void tc_epoch_enter(struct tc_node *n, unsigned int k, uint16_t epoch,
		    uint16_t gcd)
{
	uint16_t old = tn_gcd(n)[k];
	bool anchor = false;

	if (n->flags & TN_PLACED) {
		/* a place shown before is one the view could show */
		if (!tn_hold_dims(n)[k] && old && old <= TORUS_MAX_EXTENT) {
			tn_hold_dims(n)[k] = old;
			tn_hold_coord(n)[k] =
				(uint8_t)tc_norm(tn_coord(n)[k], old);
		}
		anchor = tn_hold_dims(n)[k] && !tn_hold_coord(n)[k] &&
			 tc_epoch_anchor(n);
	} else {
		/*
		 * A leader restarted before it placed is still the origin
		 * of its frame: without it no survey could ever finish.
		 */
		anchor = tc_epoch_anchor(n) && !tn_coord(n)[k];
	}
	if (!anchor && old == 2)
		tc_epoch_reorient(n, k);
	if (anchor)
		tn_coord(n)[k] = 0;
	else if (old)
		tn_coord(n)[k] = (int16_t)tc_norm(tn_coord(n)[k], old);
	if (anchor)
		n->cur |= (uint8_t)(1u << k);
	else
		n->cur &= (uint8_t)~(1u << k);
	tn_epoch(n)[k] = epoch;
	tn_gcd(n)[k] = gcd;
	tc_epoch_forgive(n);
	tc_changed(n);
}

/* a trusted neighbor of our frame is in a later epoch of @k: join it */
void tc_epoch_follow(struct tc_node *n, unsigned int k,
		     const struct tc_nbr *nb)
{
	if (tn_gcd(n)[k] && tc_nb_gcd(n, nb)[k] == tn_gcd(n)[k] &&
	    (n->cur & (1u << k))) {
		/* resumed after the survey: nothing to derive */
		tn_epoch(n)[k] = tc_nb_epoch(n, nb)[k];
		tc_epoch_forgive(n);
		tc_changed(n);
	} else {
		tc_epoch_enter(n, k, tc_nb_epoch(n, nb)[k],
			       tc_nb_gcd(n, nb)[k]);
	}
}

/* the wiring proved our decided ring on @k wrong: survey it again */
void tc_epoch_start(struct tc_node *n, unsigned int k)
{
	n->stats.resurveys++;
	tc_epoch_enter(n, k, (uint16_t)(tn_epoch(n)[k] + 1), 0);
}

/* joined a placed frame so recently that its wiring may prove us wrong */
bool tc_epoch_newcomer(const struct tc_node *n)
{
	return (n->flags & (TN_PLACED | TN_JOINER)) ==
	       (TN_PLACED | TN_JOINER) &&
	       n->now - n->placed_at < n->cfg.quiet_ticks;
}

/*
 * Our ring on @k is decided in its epoch and shown in our view: only
 * then may new evidence start the next epoch (a survey under way is
 * not interrupted by its own transients).
 */
bool tc_epoch_settled(const struct tc_node *n, unsigned int k)
{
	return (n->flags & TN_PLACED) && tn_gcd(n)[k] && !tn_hold_dims(n)[k] &&
	       (n->cur & (1u << k));
}

/* a trusted neighbour on @k that is not placed yet: a newcomer */
static bool tc_newcomer_on_axis(const struct tc_node *n, unsigned int k)
{
	unsigned int p;

	for (p = 0; p < tc_nports(n); p++) {
		const struct tc_nbr *nb = &tn_nbr(n)[p];

		if (nb->id && !(nb->flags & NB_PLACED) &&
		    tn_R(n)[p >> 1] != TC_NONE &&
		    (tc_dir_apply(tn_R(n), (uint8_t)p) >> 1) == k &&
		    tc_trusted(n, (uint8_t)p))
			return true;
	}
	return false;
}

/*
 * The neighbor on @p may give us our coordinate on @k: trusted, of our
 * frame and epoch, holding a coordinate on @k and knowing where its
 * cable to us leads (as it counts the axis: a caller compares that with
 * how we do, see tc_nbr_cur()).
 */
bool tc_nbr_vouches(const struct tc_node *n, unsigned int p, unsigned int k)
{
	const struct tc_nbr *nb = &tn_nbr(n)[p];

	return nb->id && (nb->flags & NB_FRAME) &&
	       !(nb->flags & NB_MISWIRED) && nb->leader == n->leader &&
	       tc_nb_epoch(n, nb)[k] == tn_epoch(n)[k] &&
	       (nb->cur & (1u << k)) &&
	       tc_nb_R(n, nb)[nb->peer_port >> 1] != TC_NONE &&
	       tc_trusted(n, (uint8_t)p);
}

/* derive our coordinate on @k from a neighbour current on it */
static void tc_epoch_derive(struct tc_node *n, unsigned int k)
{
	unsigned int p;

	for (p = 0; p < tc_nports(n); p++) {
		int16_t c[TC_MAX_AXES];

		if (!tc_nbr_vouches(n, p, k) ||
		    !(tc_nbr_cur(n, &tn_nbr(n)[p]) & (1u << k)))
			continue;
		tc_nbr_places_us(n, &tn_nbr(n)[p], c);
		tn_coord(n)[k] = c[k];
		if (c[k] < tn_cmin(n)[k])
			tn_cmin(n)[k] = c[k];
		if (c[k] > tn_cmax(n)[k])
			tn_cmax(n)[k] = c[k];
		n->cur |= (uint8_t)(1u << k);
		tc_changed(n);
		return;
	}
}

/*
 * A neighbor's later epoch, kept from a message that arrived before we
 * trusted it (tc_merge_extent() takes it at once otherwise).
 */
static void tc_epoch_catch_up(struct tc_node *n, unsigned int k)
{
	unsigned int p;

	for (p = 0; p < tc_nports(n); p++) {
		const struct tc_nbr *nb = &tn_nbr(n)[p];

		if (nb->id && (nb->flags & NB_EXTENT) &&
		    nb->leader == n->leader &&
		    tc_nb_epoch(n, nb)[k] > tn_epoch(n)[k] &&
		    tc_trusted(n, (uint8_t)p))
			tc_epoch_follow(n, k, nb);
	}
}

/*
 * Only the leader is at the frame's origin.  A ring grown by a multiple
 * of its extent (6 to 12) shows no turn that the old extent does not
 * divide, and no window of five refutes a ring longer than 4; but its
 * newcomers repeat the old places, one of them the leader's.  A placed
 * node other than the leader at the origin of an all-ring frame proves
 * some ring longer than decided: every ring is surveyed again (one that
 * did not grow keeps every place).
 */
static bool tc_epoch_at_origin(const struct tc_node *n)
{
	unsigned int k;

	if (!(n->flags & TN_PLACED) || tc_epoch_anchor(n))
		return false;
	for (k = 0; k < n->cfg.ndims; k++) {
		if (!tc_epoch_settled(n, k) ||
		    tc_norm(tn_coord(n)[k], tn_gcd(n)[k]))
			return false;
	}
	return true;
}

void tc_epoch_tick(struct tc_node *n)
{
	unsigned int k;

	if (tc_epoch_at_origin(n))
		for (k = 0; k < n->cfg.ndims; k++)
			if (tn_gcd(n)[k] > 1)
				tc_epoch_start(n, k);
	for (k = 0; k < n->cfg.ndims; k++) {
		tc_epoch_catch_up(n, k);
		/*
		 * Five distinct nodes in a row refute a ring of 4 or less,
		 * next to a newcomer or seen by one (a block that joined
		 * placed at once)
		 */
		if (tc_epoch_settled(n, k) &&
		    (tc_newcomer_on_axis(n, k) || tc_epoch_newcomer(n)) &&
		    tc_ring_refuted(n, k, tn_gcd(n)[k]))
			tc_epoch_start(n, k);
		if (!(n->cur & (1u << k)))
			tc_epoch_derive(n, k);
		/* the extent found in this epoch, unchanged for K ticks */
		if (tn_gcd(n)[k] != tn_ring_seen(n)[k] ||
		    !(n->cur & (1u << k))) {
			tn_ring_seen(n)[k] = tn_gcd(n)[k];
			tn_ring_quiet(n)[k] = 0;
		} else if (tn_ring_quiet(n)[k] < UINT16_MAX) {
			tn_ring_quiet(n)[k]++;
		}
		if (tn_hold_dims(n)[k] && tn_gcd(n)[k] &&
		    (n->cur & (1u << k)) &&
		    tn_ring_quiet(n)[k] >= n->cfg.quiet_ticks) {
			tn_hold_dims(n)[k] = 0;
			/* marks of the survey's transients: judged again */
			tc_epoch_forgive(n);
			tc_changed(n);
		}
	}
}
