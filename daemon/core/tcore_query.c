// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Queries on a node for its harness: what it knows of each neighbor (for
 * torusd's install decision and its neighbor table) and when the node
 * next needs its clock (so torusd can sleep instead of ticking).
 * Read-only: nothing here changes the node.
 */
#include <string.h>

#include "tcore_int.h"

void tc_nbr_info(const struct tc_node *n, uint8_t port,
		 struct tc_nbr_info *info)
{
	const struct tc_nbr *nb;

	memset(info, 0, sizeof(*info));
	info->peer_port = TC_NONE;
	if (port >= tc_nports(n) || !(n->cfg.ports & (1u << port)))
		return;
	info->carrier = !!(n->up & (1u << port));
	nb = &tn_nbr(n)[port];
	if (!nb->id) {
		info->status = TC_NBR_NONE;
		return;
	}
	info->id = nb->id;
	info->peer_port = nb->peer_port;
	info->silent = nb->silent;
	info->miswired = !!(nb->flags & NB_MISWIRED);
	if (nb->flags & NB_CONFLICT)
		info->status = TC_NBR_CONFLICT;
	else if (nb->flags & NB_RESOLVED)
		info->status = TC_NBR_RESOLVED;
	else
		info->status = TC_NBR_UNRESOLVED;
	/* a frame whose coordinates we can compare with ours */
	if ((nb->flags & NB_FRAME) &&
	    (nb->leader != n->leader || !(nb->kview ^ n->kview))) {
		info->has_frame = true;
		info->placed = !!(nb->flags & NB_PLACED);
		info->leader = nb->leader;
		memset(info->offset, 0, sizeof(info->offset));
		memcpy(info->offset, tc_nb_coord(n, nb),
		       n->cfg.ndims * sizeof(*info->offset));
	}
}

static uint32_t tc_min(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/*
 * Every rule of tc_tick() that acts on time alone, as "the k-th tick
 * from now acts"; see tcore.h.  The rest of tc_tick() acts on what
 * inputs changed, which the flags and the harness's rule cover.
 */
uint32_t tc_next_deadline(const struct tc_node *n)
{
	uint32_t next = UINT32_MAX;
	unsigned int p;

	/* something changed since the last tick: it goes out at once */
	if (n->flags & (TN_DIRTY | TN_CHANGED | TN_RX))
		return 1;
	/* a hello goes out on the tick that finds hello_in at 0 */
	next = tc_min(next, (uint32_t)n->hello_in + 1);
	/* a neighbor is dropped on the tick its silence exceeds dead_ticks */
	for (p = 0; p < tc_nports(n); p++) {
		const struct tc_nbr *nb = &tn_nbr(n)[p];

		if (!nb->id)
			continue;
		if (nb->silent >= n->cfg.dead_ticks)
			return 1;
		next = tc_min(next, (uint32_t)(n->cfg.dead_ticks -
					       nb->silent) + 1);
		/* a miswired mark goes once the cable checked out long enough */
		if ((nb->flags & NB_MISWIRED) && nb->ok_ticks) {
			uint32_t hold = tc_miswired_hold(n, nb);

			if (nb->ok_ticks >= hold)
				return 1;
			next = tc_min(next, hold - nb->ok_ticks + 1u);
		}
	}
	/* the quiet counter reaching K places the node or fails it */
	if (n->quiet < n->cfg.quiet_ticks)
		next = tc_min(next, (uint32_t)(n->cfg.quiet_ticks - n->quiet));
	/* a ring surveyed again shows its new extent once it held K ticks */
	for (p = 0; p < n->cfg.ndims; p++) {
		if (!tn_hold_dims(n)[p])
			continue;
		/* no extent yet: only a message brings it */
		if (!tn_gcd(n)[p] || !(n->cur & (1u << p)))
			continue;
		if (tn_ring_quiet(n)[p] >= n->cfg.quiet_ticks)
			return 1;
		next = tc_min(next, (uint32_t)(n->cfg.quiet_ticks -
					       tn_ring_quiet(n)[p]));
	}
	if (n->cfg.block_mode) {
		/* face records waiting to be forwarded */
		if (n->nq)
			return 1;
		for (p = 0; p < tc_nports(n); p++) {
			const struct tc_face *f = &tn_face(n)[p];
			uint32_t age = n->now - f->seen_at;

			/* a face that timed out: tried again */
			if (tc_face_retry_in(n, (uint8_t)p))
				next = tc_min(next, tc_face_retry_in(n,
								     (uint8_t)p));
			if (f->status != FACE_SEEN)
				continue;
			if (!f->announced || age >= n->cfg.orient_ticks)
				return 1;
			/* it fails on the tick its age exceeds orient_ticks */
			next = tc_min(next, n->cfg.orient_ticks - age + 1);
		}
	}
	next = tc_min(next, tc_ls_next_deadline(n));
	return next ? next : 1;
}

bool tc_surveying(const struct tc_node *n)
{
	unsigned int k;

	if (n->cur != (uint8_t)((1u << n->cfg.ndims) - 1))
		return true;
	for (k = 0; k < n->cfg.ndims; k++)
		if (tn_hold_dims(n)[k])
			return true;
	return false;
}
