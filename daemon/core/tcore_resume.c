// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A placement resumed from the kernel after a daemon restart.
 *
 * The kernel keeps what the view showed: the leader, the port map, and
 * per axis an extent and a coordinate.  On a ring that coordinate is
 * the frame's up to whole turns.  On a line it is not: a frame counts
 * from its leader (a line's first node may be at -3), the kernel from
 * the line's first node.  A resumed node therefore counts its lines
 * from their start (@kview) and says so on the wire; nobody compares a
 * coordinate along such a line with one counted from the leader, and
 * extent records of the two kinds are never folded together (folding
 * 0..4 into -3..1 would make a line of 8).  The first trusted neighbour
 * of its frame that counts the line from the leader and is current on
 * it gives the difference: the node shifts its coordinate and its
 * extent record by it and counts from the leader again.  Nodes that
 * all resumed (every daemon reloaded) agree with each other as they
 * are, and the frame simply keeps counting its lines from their start.
 */
#include <errno.h>
#include <string.h>

#include "tcore_int.h"

int tc_node_restore(struct tc_node *n, const struct tc_view *v)
{
	uint8_t R[TC_MAX_AXES];
	unsigned int g, k;

	if (!v->leader || v->ndims != n->cfg.ndims)
		return -EINVAL;
	memset(R, TC_NONE, sizeof(R));
	for (g = 0; g < tc_nports(n); g++) {
		uint8_t p = v->portmap[g], img = (uint8_t)(g ^ (p & 1));

		if (p == TC_NONE)
			continue;
		if (!tc_port_ok(n, p) ||
		    (R[p >> 1] != TC_NONE && R[p >> 1] != img))
			return -EINVAL;
		R[p >> 1] = img;
	}
	for (k = 0; k < n->cfg.ndims; k++) {
		if (!v->dims[k] || v->coord[k] >= v->dims[k])
			return -EINVAL;
		for (g = 0; g < k; g++)
			if (R[k] != TC_NONE && R[g] != TC_NONE &&
			    (R[g] >> 1) == (R[k] >> 1))
				return -EINVAL;	/* two axes onto one */
	}
	n->leader = v->leader;
	memcpy(tn_R(n), R, n->cfg.ndims);
	tc_open_reset(n);	/* the kernel's placement was decided */
	/*
	 * The cables the kernel forwards on were verified before.  On a
	 * ring of two the map's sign at coordinate 1 came from the label
	 * the cable lands on (tc_ring2_dir()): its parity is all that is
	 * kept of it, until the neighbor speaks again.
	 */
	for (g = 0; g < tc_nports(n); g++) {
		uint8_t p = v->portmap[g];

		if (p == TC_NONE)
			continue;
		n->vports |= (uint16_t)(1u << p);
		tn_vpeer(n)[p] = (uint8_t)!(g & 1);
	}
	n->kview = 0;
	for (k = 0; k < n->cfg.ndims; k++) {
		tn_coord(n)[k] = v->coord[k];
		tn_gcd(n)[k] = (v->wrap & (1u << k)) ? v->dims[k] : 0;
		tn_cmin(n)[k] = 0;
		tn_cmax(n)[k] = (int16_t)(v->dims[k] - 1);
		if (!(v->wrap & (1u << k)) && v->dims[k] > 1)
			n->kview |= (uint8_t)(1u << k);
	}
	/* the kernel does not keep ring epochs: neighbors bring them */
	memset(tn_epoch(n), 0, n->cfg.ndims * sizeof(uint16_t));
	memset(tn_hold_dims(n), 0, n->cfg.ndims * sizeof(uint16_t));
	n->cur = (uint8_t)((1u << n->cfg.ndims) - 1);
	n->flags &= ~TN_JOINER;
	n->flags |= TN_PLACED | TN_DIRTY | TN_CHANGED;
	return 0;
}

static void tc_shift(int16_t *c, int delta)
{
	/* INT16_MIN/MAX stand for "no end seen": they stay */
	if (*c != INT16_MIN && *c != INT16_MAX)
		*c = (int16_t)(*c + delta);
}

/* count the line on @k from the leader: @delta more than from its start */
static void tc_kview_shift(struct tc_node *n, unsigned int k, int delta)
{
	tc_shift(&tn_coord(n)[k], delta);
	tc_shift(&tn_cmin(n)[k], delta);
	tc_shift(&tn_cmax(n)[k], delta);
	tc_shift(&tn_omin(n)[k], delta);
	tc_shift(&tn_omax(n)[k], delta);
	tc_shift(&tn_clmin(n)[k], delta);
	tc_shift(&tn_clmax(n)[k], delta);
	n->kview &= (uint8_t)~(1u << k);
	tc_changed(n);
}

void tc_kview_tick(struct tc_node *n)
{
	unsigned int k, p;

	for (k = 0; n->kview && k < n->cfg.ndims; k++) {
		if (!(n->kview & (1u << k)))
			continue;
		for (p = 0; p < tc_nports(n); p++) {
			const struct tc_nbr *nb = &tn_nbr(n)[p];
			int16_t c[TC_MAX_AXES];

			/* one that counts the line from the leader */
			if (!tc_nbr_vouches(n, p, k) ||
			    !(nb->flags & NB_EXTENT) || (nb->kview & (1u << k)))
				continue;
			tc_nbr_places_us(n, nb, c);
			tc_kview_shift(n, k, c[k] - tn_coord(n)[k]);
			/* its record of the line, now comparable with ours */
			tc_merge_extent(n, nb);
			break;
		}
	}
}
