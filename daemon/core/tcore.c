// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tcore: neighbor discovery, leader election and "follow" coordinate
 * assignment (Castanos et al., Figure 5), extent discovery by GCD, and
 * termination after K quiet ticks.
 *
 * Every node starts as the leader of its own frame: coordinates 0 and
 * its local axes as the global ones.  A node follows a neighbor whose
 * frame ranks higher, over a cable whose axis map is resolved: it takes
 * the neighbor's leader, composes the neighbor's frame map with the
 * cable's map, and sets its coordinates one step from the neighbor's.
 * Frames rank by (placed, leader id), so once a fabric is placed a new
 * or restarted node with a higher id joins the existing frame instead
 * of moving everybody: coordinates survive the leader's death.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tcore_int.h"

static const char *const tc_reasons[] = {
	[R_NONE] = "",
	[R_NO_NEIGHBOR] = "no live neighbor",
	[R_UNRESOLVED] = "no cable orientation could be resolved",
	[R_FACE_FAILED] = "block face orientation failed (no satisfying quadruple)",
	[R_WAITING] = "waiting for a frame",
	[R_BAD_CONFIG] = "bad configuration",
	[R_FRAGMENT] = "cut off: the frame is smaller than my block",
	[R_ISLAND] = "cut off: a larger frame next door cannot be joined",
	[R_UNDECIDED] = "extent undecided",
	[R_CONTRADICTION] = "neighbors disagree on my coordinates",
};

/* no open end seen yet on an axis */
void tc_open_reset(struct tc_node *n)
{
	unsigned int k;

	for (k = 0; k < n->cfg.ndims; k++) {
		tn_omin(n)[k] = INT16_MAX;
		tn_omax(n)[k] = INT16_MIN;
		tn_clmin(n)[k] = INT16_MAX;
		tn_clmax(n)[k] = INT16_MIN;
	}
}

static size_t tc_align(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

size_t tc_core_size(const struct tc_config *cfg)
{
	size_t np = 2 * (size_t)(cfg->ndims ? cfg->ndims : 1);
	size_t size = tc_align(sizeof(struct tc_node));

	size += tc_align(TC_NODE_AX(np / 2));
	size += tc_align(np * (sizeof(struct tc_nbr) + TC_NAX(np / 2)));
	if (cfg->block_mode)
		size += tc_align(np * sizeof(struct tc_face) + np * (np / 2) +
				 TC_QUEUE * TC_QENT(np / 2));
	else
		size += tc_align(np * np * sizeof(uint32_t));
	return size;
}

size_t tc_node_size(const struct tc_config *cfg)
{
	return tc_core_size(cfg) + tc_align(tc_ls_size(cfg));
}

static uint16_t tc_block_diameter(const struct tc_config *cfg)
{
	unsigned int axis, d = 0;

	for (axis = 0; axis < cfg->ndims; axis++)
		d += cfg->block_dims[axis] - 1;
	return (uint16_t)d;
}

static int tc_config_check(const struct tc_config *cfg)
{
	unsigned int axis;

	if (!cfg->id || !cfg->ndims || cfg->ndims > TC_MAX_AXES)
		return -EINVAL;
	if (cfg->ports & ~((1u << (2 * cfg->ndims)) - 1))
		return -EINVAL;
	if (!cfg->block_mode)
		return 0;
	if (!cfg->block_id)
		return -EINVAL;
	for (axis = 0; axis < cfg->ndims; axis++)
		if (!cfg->block_dims[axis] ||
		    cfg->block_dims[axis] > TORUS_MAX_EXTENT ||
		    cfg->block_coord[axis] >= cfg->block_dims[axis])
			return -EINVAL;
	return 0;
}

static void tc_nbr_clear(struct tc_node *n, uint8_t port)
{
	struct tc_nbr *nb = &tn_nbr(n)[port];

	memset(nb, 0, sizeof(*nb));
	memset(tc_nax(n, nb), 0, TC_NAX(n->cfg.ndims));
	memset(tc_nb_map(n, nb), TC_NONE, n->cfg.ndims);
	tc_hop2_forget(n, port);
}

int tc_node_init(struct tc_node *n, const struct tc_config *cfg,
		 const struct tc_output *out)
{
	return tc_node_init_ls(n, cfg, out, NULL);
}

int tc_node_init_ls(struct tc_node *n, const struct tc_config *cfg,
		    const struct tc_output *out, void *ls_mem)
{
	unsigned int axis, np;
	int err = tc_config_check(cfg);

	if (err)
		return err;
	if (!ls_mem)
		ls_mem = (uint8_t *)n + tc_core_size(cfg);
	memset(n, 0, tc_core_size(cfg));
	n->cfg.id = cfg->id;
	n->cfg.ndims = cfg->ndims;
	n->cfg.ports = cfg->ports;
	n->cfg.block_mode = cfg->block_mode;
	n->cfg.block_id = cfg->block_id;
	n->cfg.hello_ticks = cfg->hello_ticks;
	n->cfg.dead_ticks = cfg->dead_ticks;
	n->cfg.quiet_ticks = cfg->quiet_ticks;
	n->cfg.orient_ticks = cfg->orient_ticks;
	n->cfg.ls_records = cfg->ls_records;
	n->cfg.ls_refresh_ticks = cfg->ls_refresh_ticks;
	n->cfg.ls_max_age_ticks = cfg->ls_max_age_ticks;
	n->cfg.ls_settle_ticks = cfg->ls_settle_ticks;
	memcpy(tn_block_coord(n), cfg->block_coord, cfg->ndims);
	memcpy(tn_block_dims(n), cfg->block_dims,
	       cfg->ndims * sizeof(uint16_t));
	if (!n->cfg.hello_ticks)
		n->cfg.hello_ticks = 10;
	if (!n->cfg.dead_ticks)
		n->cfg.dead_ticks = 3 * n->cfg.hello_ticks + 1;
	if (!n->cfg.quiet_ticks)
		n->cfg.quiet_ticks = 20;
	if (cfg->block_mode && !n->cfg.orient_ticks)
		n->cfg.orient_ticks = 2 * tc_block_diameter(cfg) + 2;
	n->out = *out;
	np = tc_nports(n);

	if (cfg->block_mode)
		memset(tn_face_maps(n), TC_NONE, np * cfg->ndims);
	tc_ls_init(n, ls_mem);
	for (axis = 0; axis < np; axis++)
		tc_nbr_clear(n, axis);

	n->leader = cfg->id;
	for (axis = 0; axis < cfg->ndims; axis++)
		tn_R(n)[axis] = TORUS_DIR(axis, 0);
	tc_open_reset(n);
	n->cur = (uint8_t)((1u << cfg->ndims) - 1);
	n->flags = TN_DIRTY | TN_CHANGED;
	n->generation = 1;
	return 0;
}

static void tc_nbr_drop(struct tc_node *n, uint8_t port)
{
	if (tn_nbr(n)[port].id)
		tc_changed(n);
	tc_nbr_clear(n, port);
}

void tc_port_state(struct tc_node *n, uint8_t port, bool up)
{
	if (!tc_port_ok(n, port))
		return;
	if (up) {
		if (!(n->up & (1u << port)))
			n->flags |= TN_DIRTY;
		n->up |= 1u << port;
	} else {
		n->up &= ~(1u << port);
		n->vports &= ~(1u << port);
		tc_nbr_drop(n, port);
	}
}

uint16_t tc_gcd(uint16_t a, uint16_t b)
{
	while (b) {
		uint16_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/*
 * A ring's extent @g on global axis @k is refuted when two different
 * nodes we know sit a multiple of @g apart along it: ourselves, our
 * neighbors on the axis and theirs straight on (from their neighbor
 * tables).  Honest evidence is a multiple of the extent and is never
 * refuted; a neighbor claiming a GCD of 1 to 4 where we see a longer
 * ring is.  Only neighbors we trust count: a node making up its
 * neighbor table must not refute an honest ring either.
 */
bool tc_ring_refuted(struct tc_node *n, unsigned int k, uint16_t g)
{
	uint32_t at[5] = { 0 };		/* id hashes at -2..2 along k */
	unsigned int p, i, j;

	if (!g)
		return false;
	at[2] = tw_id_hash(n->cfg.id);
	for (p = 0; p < tc_nports(n); p++) {
		const struct tc_nbr *nb = &tn_nbr(n)[p];
		uint8_t gd;
		int s;

		if (!nb->id || tn_R(n)[p >> 1] == TC_NONE ||
		    !tc_trusted(n, (uint8_t)p))
			continue;
		gd = tc_dir_apply(tn_R(n), (uint8_t)p);
		if ((gd >> 1) != k)
			continue;
		s = (gd & 1) ? -1 : 1;
		at[2 + s] = tw_id_hash(nb->id);
		/*
		 * The port opposite its end of our cable goes straight on,
		 * if our neighbour trusts that cable: one plugged into the
		 * wrong node, which it cannot resolve, would refute an
		 * honest ring (and start a survey that never ends).
		 */
		if (tn_hop2(n) && (n->straight & (1u << p)) &&
		    tc_hop2(n, (uint8_t)p)[nb->peer_port ^ 1])
			at[2 + 2 * s] = tc_hop2(n, (uint8_t)p)[nb->peer_port ^ 1];
	}
	for (i = 0; i < 5; i++)
		for (j = i + 1; j < 5; j++)
			if (at[i] && at[j] && at[i] != at[j] && !((j - i) % g))
				return true;
	return false;
}

/*
 * Fold extent knowledge of the same frame into ours, unless what it
 * would make of a ring is refuted by what we see ourselves.
 */
void tc_merge_extent(struct tc_node *n, const struct tc_nbr *nb)
{
	unsigned int k;

	/* a later epoch of a ring replaces what we knew of it */
	for (k = 0; k < n->cfg.ndims; k++) {
		if (tc_nb_epoch(n, nb)[k] > tn_epoch(n)[k])
			tc_epoch_follow(n, k, nb);
	}
	for (k = 0; k < n->cfg.ndims; k++) {
		uint16_t g = tc_gcd(tn_gcd(n)[k], tc_nb_gcd(n, nb)[k]);

		if (tc_nb_epoch(n, nb)[k] != tn_epoch(n)[k] ||
		    g == tn_gcd(n)[k])
			continue;
		/* a ring we decided and show does not shrink: it grew */
		if (tc_epoch_settled(n, k))
			tc_epoch_start(n, k);
		else if (tc_ring_refuted(n, k, g)) {
			n->stats.refuted++;
			return;
		}
	}
	for (k = 0; k < n->cfg.ndims; k++) {
		uint16_t g = tc_gcd(tn_gcd(n)[k], tc_nb_gcd(n, nb)[k]);

		/* a line counted from elsewhere (tcore_resume.c) */
		if ((nb->kview ^ n->kview) & (1u << k))
			continue;
		if (tc_nb_epoch(n, nb)[k] != tn_epoch(n)[k])
			g = tn_gcd(n)[k];

		if (g != tn_gcd(n)[k] || tc_nb_cmin(n, nb)[k] < tn_cmin(n)[k] ||
		    tc_nb_cmax(n, nb)[k] > tn_cmax(n)[k] ||
		    tc_nb_omin(n, nb)[k] < tn_omin(n)[k] ||
		    tc_nb_omax(n, nb)[k] > tn_omax(n)[k] ||
		    tc_nb_clmin(n, nb)[k] < tn_clmin(n)[k] ||
		    tc_nb_clmax(n, nb)[k] > tn_clmax(n)[k])
			tc_changed(n);
		tn_gcd(n)[k] = g;
		if (tc_nb_cmin(n, nb)[k] < tn_cmin(n)[k])
			tn_cmin(n)[k] = tc_nb_cmin(n, nb)[k];
		if (tc_nb_cmax(n, nb)[k] > tn_cmax(n)[k])
			tn_cmax(n)[k] = tc_nb_cmax(n, nb)[k];
		if (tc_nb_omin(n, nb)[k] < tn_omin(n)[k])
			tn_omin(n)[k] = tc_nb_omin(n, nb)[k];
		if (tc_nb_omax(n, nb)[k] > tn_omax(n)[k])
			tn_omax(n)[k] = tc_nb_omax(n, nb)[k];
		if (tc_nb_clmin(n, nb)[k] < tn_clmin(n)[k])
			tn_clmin(n)[k] = tc_nb_clmin(n, nb)[k];
		if (tc_nb_clmax(n, nb)[k] > tn_clmax(n)[k])
			tn_clmax(n)[k] = tc_nb_clmax(n, nb)[k];
	}
}

/* Extent of an axis: the ring's GCD, else the line's span. */
static int tc_axis_extent(uint16_t gcd, int16_t cmin, int16_t cmax)
{
	return gcd ? gcd : cmax - cmin + 1;
}

/* How many nodes a frame spans, by its extent knowledge (saturating). */
static uint32_t tc_frame_size(uint8_t ndims, const uint16_t *gcd,
			      const int16_t *cmin, const int16_t *cmax)
{
	uint64_t size = 1;
	unsigned int k;

	for (k = 0; k < ndims; k++) {
		size *= (uint64_t)tc_axis_extent(gcd[k], cmin[k], cmax[k]);
		if (size > UINT32_MAX)
			return UINT32_MAX;
	}
	return (uint32_t)size;
}

/*
 * Keep a neighbor's extent record: a frame it leads us into starts from
 * it.  True if what we may take a place from it changed (its rings,
 * epochs, the axes it is current on): at the end of a survey nothing
 * else changes, and we must elect again then too.
 */
static bool tc_nbr_extent(const struct tc_node *n, struct tc_nbr *nb,
			  const struct tw_msg *m)
{
	uint16_t gcd[TC_MAX_AXES], epoch[TC_MAX_AXES];
	uint8_t cur = nb->cur, kview = nb->kview;
	unsigned int k;

	memcpy(gcd, tc_nb_gcd(n, nb), n->cfg.ndims * sizeof(*gcd));
	memcpy(epoch, tc_nb_epoch(n, nb), n->cfg.ndims * sizeof(*epoch));
	for (k = 0; k < n->cfg.ndims; k++) {
		tc_nb_gcd(n, nb)[k] = m->gcd[k];
		tc_nb_cmin(n, nb)[k] = m->cmin[k];
		tc_nb_cmax(n, nb)[k] = m->cmax[k];
		/* a sender that says nothing of open ends is open everywhere */
		tc_nb_omin(n, nb)[k] = m->has_open ? m->omin[k] : INT16_MIN;
		tc_nb_omax(n, nb)[k] = m->has_open ? m->omax[k] : INT16_MAX;
		tc_nb_clmin(n, nb)[k] = m->has_open ? m->clmin[k] : INT16_MAX;
		tc_nb_clmax(n, nb)[k] = m->has_open ? m->clmax[k] : INT16_MIN;
	}
	if (m->has_epoch) {
		memcpy(tc_nb_epoch(n, nb), m->epoch,
		       n->cfg.ndims * sizeof(*m->epoch));
		nb->cur = m->cur;
	} else {
		memset(tc_nb_epoch(n, nb), 0,
		       n->cfg.ndims * sizeof(*m->epoch));
		nb->cur = (uint8_t)((1u << n->cfg.ndims) - 1);
	}
	nb->kview = m->kview;
	nb->flags |= NB_EXTENT;
	return nb->cur != cur || nb->kview != kview ||
	       memcmp(gcd, tc_nb_gcd(n, nb), n->cfg.ndims * sizeof(*gcd)) ||
	       memcmp(epoch, tc_nb_epoch(n, nb),
		      n->cfg.ndims * sizeof(*epoch));
}

static bool tc_usable(const struct tc_nbr *nb);
static int tc_undecided_axis(const struct tc_node *n);

/*
 * Placed by a placed neighbor's frame: only once our copy of its extent
 * record decides every axis (a record lost on the way must not place us
 * with the extents of our first step).
 */
static void tc_place_decided(struct tc_node *n)
{
	if (!(n->flags & TN_PLACED) && tc_undecided_axis(n) < 0) {
		n->flags |= TN_PLACED | TN_DIRTY | TN_JOINER;
		n->placed_at = n->now;
	}
}

/*
 * A neighbor whose claims about our frame we take: our cable to it is
 * resolved, or at least one square backs it (its neighbor table fits
 * ours: a node sending made-up tables never gets one) and both ends
 * agree on the cable's direction.
 */
bool tc_trusted(const struct tc_node *n, uint8_t p)
{
	const struct tc_nbr *nb = &tn_nbr(n)[p];

	if (tc_usable(nb))
		return true;
	if ((nb->flags & NB_CONFLICT) || !(nb->flags & NB_FRAME) ||
	    tn_R(n)[p >> 1] == TC_NONE ||
	    tc_nb_R(n, nb)[nb->peer_port >> 1] == TC_NONE ||
	    tc_dir_apply(tn_R(n), p) !=
	    (tc_dir_apply(tc_nb_R(n, nb), nb->peer_port) ^ 1))
		return false;
	return tc_square_backed(n, p);
}

int tc_receive(struct tc_node *n, uint8_t port, const uint8_t *msg,
	       size_t len)
{
	struct tc_nbr *nb;
	struct tw_msg m;
	bool had_extent;
	unsigned int i;

	if (msg && len && msg[0] == TW_LS_MAGIC && tc_port_ok(n, port) &&
	    (n->up & (1u << port)))
		return tc_ls_receive(n, port, msg, len);
	n->stats.msgs_rx++;
	n->stats.bytes_rx += len;
	if (!tc_port_ok(n, port) || !(n->up & (1u << port)) ||
	    tw_decode(msg, len, n->cfg.ndims, &m) || m.id == n->cfg.id) {
		n->stats.bad_rx++;
		return -EBADMSG;
	}

	nb = &tn_nbr(n)[port];
	if (nb->id != m.id || nb->peer_port != m.port) {
		n->vports &= ~(1u << port);
		tc_nbr_clear(n, port);
		nb->id = m.id;
		nb->peer_port = m.port;
		tc_changed(n);
	}
	nb->silent = 0;

	if (tn_hop2(n) && m.has_nbrs) {
		uint32_t *row = tc_hop2(n, port);

		memset(row, 0, tc_nports(n) * sizeof(uint32_t));
		for (i = 0; i < m.nnbrs; i++)
			if (m.nbr_label[i] < tc_nports(n))
				row[m.nbr_label[i]] = m.nbr_hash[i];
		if (!m.has_trusted || (m.trusted & (1u << (m.port ^ 1))))
			n->straight |= (uint16_t)(1u << port);
		else
			n->straight &= (uint16_t)~(1u << port);
	}
	if (m.has_block) {
		nb->block = m.block;
		memcpy(tc_nb_block_coord(n, nb), m.block_coord, n->cfg.ndims);
		nb->flags |= NB_BLOCK;
	}
	if (m.has_frame) {
		uint8_t placed = (m.frame_flags & TW_FRAME_PLACED) ? NB_PLACED : 0;
		bool member = m.frame_flags & TW_FRAME_MEMBER;

		if (m.frame_flags & TW_FRAME_JOINED)
			placed |= NB_JOINED;

		if (!(nb->flags & NB_FRAME) || nb->leader != m.leader ||
		    (nb->flags & (NB_PLACED | NB_JOINED)) != placed ||
		    nb->member != member ||
		    memcmp(tc_nb_R(n, nb), m.R, n->cfg.ndims) ||
		    memcmp(tc_nb_coord(n, nb), m.coord,
			   n->cfg.ndims * sizeof(int16_t)))
			n->flags |= TN_RX;
		nb->leader = m.leader;
		memcpy(tc_nb_R(n, nb), m.R, n->cfg.ndims);
		memcpy(tc_nb_coord(n, nb), m.coord,
		       n->cfg.ndims * sizeof(int16_t));
		nb->flags = (nb->flags & ~(NB_PLACED | NB_JOINED)) | NB_FRAME |
			    placed;
		nb->member = member;
		had_extent = nb->flags & NB_EXTENT;
		nb->flags &= ~NB_EXTENT;
		if (m.has_extent) {
			if (tc_nbr_extent(n, nb, &m) || !had_extent)
				n->flags |= TN_RX;
			if (m.leader == n->leader && tc_trusted(n, port))
				tc_merge_extent(n, nb);
		}
	}
	if (n->cfg.block_mode)
		tc_block_rx(n, port, &m);
	return 0;
}

/*
 * Frames rank by (placed, size if placed, leader id): an unplaced frame
 * never renumbers a placed one, and of two placed frames that meet the
 * larger wins whatever the ids, so a small slab cabled onto a placed
 * fabric joins it instead of taking it over.
 */
struct tc_rank {
	bool placed;
	uint32_t size;
	uint64_t leader;
};

static bool tc_rank_above(const struct tc_rank *a, const struct tc_rank *b)
{
	if (a->placed != b->placed)
		return a->placed;
	if (a->placed && a->leader != b->leader && a->size != b->size)
		return a->size > b->size;
	return a->leader > b->leader;
}

/*
 * A node not placed yet but in a placed frame (a newcomer waiting for a
 * ring's survey) ranks as its frame: newcomers cabled only to newcomers
 * follow it into the placed frame instead of holding a frame of their
 * own that outranks it by id, which would keep the grown ring from ever
 * closing.
 */
static void tc_nbr_rank(const struct tc_node *n, const struct tc_nbr *nb,
			struct tc_rank *r)
{
	r->placed = (nb->flags & NB_PLACED) || nb->member;
	r->size = tc_frame_size(n->cfg.ndims, tc_nb_gcd(n, nb),
				tc_nb_cmin(n, nb), tc_nb_cmax(n, nb));
	r->leader = nb->leader;
}

static void tc_my_rank(const struct tc_node *n, struct tc_rank *r)
{
	r->placed = n->flags & (TN_PLACED | TN_MEMBER);
	r->size = tc_frame_size(n->cfg.ndims, tn_gcd(n), tn_cmin(n),
				tn_cmax(n));
	r->leader = n->leader;
}

static bool tc_frame_complete(const struct tc_node *n, const uint8_t *R)
{
	return tc_map_complete(n, R, tc_live_axes(n));
}

/*
 * The frame this node would have by following the neighbor on @port:
 * false if it would leave an axis with a live port unoriented.
 */
static bool tc_frame_via(const struct tc_node *n, uint8_t port, uint8_t *R,
			 int16_t *coord)
{
	const struct tc_nbr *nb = &tn_nbr(n)[port];
	unsigned int a;

	for (a = 0; a < n->cfg.ndims; a++) {
		uint8_t d = tc_nb_map(n, nb)[a];

		R[a] = TC_NONE;
		if (d != TC_NONE && tc_nb_R(n, nb)[d >> 1] != TC_NONE)
			R[a] = tc_dir_apply(tc_nb_R(n, nb), d);
	}
	if (tc_nb_R(n, nb)[nb->peer_port >> 1] == TC_NONE)
		return false;
	tc_nbr_places_us(n, nb, coord);
	return tc_frame_complete(n, R);
}

/*
 * Two neighbors' images of one of our axes agree: equal, or opposite on
 * a ring of two, whose sign no wiring fixes (tc_ring2_dir()): each node
 * derived it along its own path.
 */
static bool tc_same_image(const uint16_t *gcd, uint8_t a, uint8_t b)
{
	return a == b || ((a ^ b) == 1 && gcd[a >> 1] == 2);
}

/*
 * Our place in the frame of @leader, from every neighbor in it that
 * knows the global direction of its cable to us.  Beyond the paper: the
 * cable's own axis needs no square, so a node whose squares were lost
 * to faults can still take its coordinates from its neighbors.  Returns
 * how many neighbors vouch (0: none), -1 if they disagree.  @confirmed:
 * two neighbors agree, or a square backs the cable, so a cable plugged
 * into the wrong node cannot place us alone.
 */
static int tc_frame_union(const struct tc_node *n, uint64_t leader,
			  uint8_t *R, int16_t *coord, bool *confirmed,
			  int *src)
{
	unsigned int p, a, k;
	int found = 0;

	memset(R, TC_NONE, TC_MAX_AXES);
	*confirmed = false;
	for (p = 0; p < tc_nports(n); p++) {
		const struct tc_nbr *nb = &tn_nbr(n)[p];
		int16_t c[TC_MAX_AXES];
		uint8_t g, img;

		if (!nb->id || (nb->flags & (NB_CONFLICT | NB_MISWIRED)) ||
		    !(nb->flags & NB_FRAME) || !(nb->flags & NB_EXTENT) ||
		    nb->leader != leader ||
		    tc_nb_R(n, nb)[nb->peer_port >> 1] == TC_NONE ||
		    !tc_epoch_source(n, nb))
			continue;
		g = tc_dir_apply(tc_nb_R(n, nb), nb->peer_port);
		img = (uint8_t)(g ^ 1 ^ (p & 1));
		if (R[p >> 1] != TC_NONE &&
		    !tc_same_image(tc_nb_gcd(n, nb), R[p >> 1], img))
			return -1;
		if (R[p >> 1] == TC_NONE)
			R[p >> 1] = img;
		for (a = 0; a < n->cfg.ndims; a++) {
			uint8_t d = tc_nb_map(n, nb)[a], r;

			if (a == (p >> 1) || d == TC_NONE ||
			    tc_nb_R(n, nb)[d >> 1] == TC_NONE)
				continue;
			r = tc_dir_apply(tc_nb_R(n, nb), d);
			if (R[a] != TC_NONE &&
			    !tc_same_image(tc_nb_gcd(n, nb), R[a], r))
				return -1;
			if (R[a] == TC_NONE)
				R[a] = r;
			*confirmed = true;
		}
		tc_nbr_places_us(n, nb, c);
		/* they must agree on the frame's rings, and our place on
		 * them up to whole turns (a made-up record rarely does) */
		if (found && (memcmp(tc_nb_gcd(n, nb),
				     tc_nb_gcd(n, &tn_nbr(n)[*src]),
				     n->cfg.ndims * sizeof(uint16_t)) ||
			      memcmp(tc_nb_epoch(n, nb),
				     tc_nb_epoch(n, &tn_nbr(n)[*src]),
				     n->cfg.ndims * sizeof(uint16_t))))
			return -1;
		for (k = 0; found && k < n->cfg.ndims; k++) {
			int gap = c[k] - coord[k];

			if (gap && (!tc_nb_gcd(n, nb)[k] ||
				    gap % tc_nb_gcd(n, nb)[k]))
				return -1;
		}
		if (!found++) {
			memcpy(coord, c, sizeof(c));
			*src = (int)p;
		}
	}
	if (!tc_map_injective(n, R))
		return -1;
	if (found >= 2)
		*confirmed = true;
	return found;
}

/* @nd entries of a neighbor's per-axis state */
static void tc_take(void *dst, const void *src, unsigned int nd)
{
	memcpy(dst, src, nd * sizeof(uint16_t));
}

/* Take the frame of the neighbor on @src with map @R and @coord. */
static void tc_adopt(struct tc_node *n, uint8_t src, const uint8_t *R,
		     const int16_t *coord)
{
	const struct tc_nbr *nb = &tn_nbr(n)[src];
	unsigned int k, nd = n->cfg.ndims;
	struct tc_node old;
	uint8_t old_ax[TC_NODE_AX(TC_MAX_AXES)];

	if (nb->leader != n->leader) {
		/* its extent record is the frame's: start from it */
		memcpy(&old, n, sizeof(old));
		memcpy(old_ax, tc_node_ax(n), TC_NODE_AX(nd));
		if (nb->flags & NB_EXTENT) {
			tc_take(tn_gcd(n), tc_nb_gcd(n, nb), nd);
			tc_take(tn_cmin(n), tc_nb_cmin(n, nb), nd);
			tc_take(tn_cmax(n), tc_nb_cmax(n, nb), nd);
			tc_take(tn_omin(n), tc_nb_omin(n, nb), nd);
			tc_take(tn_omax(n), tc_nb_omax(n, nb), nd);
			tc_take(tn_clmin(n), tc_nb_clmin(n, nb), nd);
			tc_take(tn_clmax(n), tc_nb_clmax(n, nb), nd);
			tc_take(tn_epoch(n), tc_nb_epoch(n, nb), nd);
			n->kview = nb->kview;
		} else {
			memset(tn_gcd(n), 0, nd * sizeof(uint16_t));
			memset(tn_epoch(n), 0, nd * sizeof(uint16_t));
			n->kview = 0;
			memcpy(tn_cmin(n), coord, nd * sizeof(int16_t));
			memcpy(tn_cmax(n), coord, nd * sizeof(int16_t));
			tc_open_reset(n);
		}
		memcpy(tn_R(n), R, nd);
		/* a frame whose rings we can refute is not joined at all */
		for (k = 0; k < nd; k++)
			if (tc_ring_refuted(n, k, tn_gcd(n)[k])) {
				old.stats.refuted++;
				memcpy(n, &old, sizeof(old));
				memcpy(tc_node_ax(n), old_ax, TC_NODE_AX(nd));
				return;
			}
		/* placed again only in the new frame, once it decides */
		n->flags &= ~TN_PLACED;
		memset(tn_hold_dims(n), 0, nd * sizeof(uint16_t));
	}
	/*
	 * The leader is its frame's origin: a neighbor that places it
	 * elsewhere holds a stale place (a newcomer placed before a ring's
	 * growth was seen), and following it would renumber the frame.
	 */
	if (nb->leader == n->leader && n->leader == n->cfg.id)
		coord = tn_coord(n);
	/* a placed frame's, through a node placed in it or a member */
	if ((nb->flags & NB_PLACED) || nb->member)
		n->flags |= TN_MEMBER;
	else if (nb->leader != n->leader)
		n->flags &= ~TN_MEMBER;
	/* our place comes from a neighbor current on every axis */
	n->cur = (uint8_t)((1u << nd) - 1);
	if (nb->leader != n->leader || memcmp(R, tn_R(n), nd) ||
	    memcmp(coord, tn_coord(n), nd * sizeof(int16_t)))
		tc_changed(n);
	n->leader = nb->leader;
	memcpy(tn_R(n), R, nd);
	memcpy(tn_coord(n), coord, nd * sizeof(int16_t));
	for (k = 0; k < nd; k++) {
		if (coord[k] < tn_cmin(n)[k])
			tn_cmin(n)[k] = coord[k];
		if (coord[k] > tn_cmax(n)[k])
			tn_cmax(n)[k] = coord[k];
	}
	if (nb->flags & NB_PLACED)
		tc_place_decided(n);
}

static void tc_follow(struct tc_node *n, uint8_t port)
{
	int16_t coord[TC_MAX_AXES];
	uint8_t R[TC_MAX_AXES];

	memset(R, TC_NONE, sizeof(R));
	if (tc_frame_via(n, port, R, coord))
		tc_adopt(n, port, R, coord);
}

/*
 * Keep the cable on @p out of the port map, the squares we show and the
 * turns we count, until it checks out (tc_note_miswired()).
 */
static void tc_mark_miswired(struct tc_node *n, uint8_t p)
{
	struct tc_nbr *nb = &tn_nbr(n)[p];

	if (nb->flags & NB_MISWIRED)
		return;
	nb->flags |= NB_MISWIRED;
	nb->ok_ticks = 0;
	if (nb->strikes < UINT8_MAX)
		nb->strikes++;
	n->vports &= (uint16_t)~(1u << p);
	tc_changed(n);
}

/*
 * A line has no turns: a gap along an axis where the frame has seen a
 * closed end (a board without the port) is no ring's evidence, it is a
 * cable into the wrong node (plugged back crossed, say).  Only where
 * both ends count the line alike (tcore_resume.c).
 */
static bool tc_line_gap(const struct tc_node *n, const struct tc_nbr *nb,
			const int16_t *pred)
{
	unsigned int k;

	for (k = 0; k < n->cfg.ndims; k++)
		if (pred[k] != tn_coord(n)[k] && tc_epoch_current(n, nb, k) &&
		    !((nb->kview ^ n->kview) & (1u << k)) &&
		    (tn_clmin(n)[k] != INT16_MAX ||
		     tn_clmax(n)[k] != INT16_MIN))
			return true;
	return false;
}

/*
 * Turns on two rings at once: gaps that the rings of our epoch do not
 * divide, on two axes.  A grown ring shows its new turn on its own axis
 * alone (the cables at the seam, or a cable across the ring between two
 * nodes that took their places from either side of it); a cable into
 * the wrong node (plugged back crossed, say) lands anywhere.  Proof,
 * placed or not, like a gap along a line: while nobody is placed, such
 * a cable would refute the rings' extents again and again (surveys
 * without end) or lend its far node's coordinates.
 */
static bool tc_gap_two_rings(const struct tc_node *n, const struct tc_nbr *nb,
			     const int16_t *pred)
{
	unsigned int k, rings = 0;

	for (k = 0; k < n->cfg.ndims; k++) {
		int gap = pred[k] - tn_coord(n)[k];

		if (gap && tn_gcd(n)[k] && gap % tn_gcd(n)[k] &&
		    tc_epoch_current(n, nb, k))
			rings++;
	}
	return rings >= 2;
}

/*
 * The cable on @port shows a turn off its own axis: a gap that a ring
 * decided in our epoch does not divide, on an axis other than the one
 * the cable runs along.  A ring grown at a seam shows its new turn on
 * the cables along it; a cable plugged into the wrong node lands
 * anywhere, most often off its axis too.
 */
static bool tc_gap_off_axis(const struct tc_node *n, uint8_t port,
			    const int16_t *pred)
{
	const struct tc_nbr *nb = &tn_nbr(n)[port];
	unsigned int k, axis;

	if (tn_R(n)[port >> 1] == TC_NONE)
		return false;
	axis = tc_dir_apply(tn_R(n), port) >> 1;
	for (k = 0; k < n->cfg.ndims; k++) {
		int gap = pred[k] - tn_coord(n)[k];

		if (k != axis && gap && tn_gcd(n)[k] && gap % tn_gcd(n)[k] &&
		    tc_epoch_current(n, nb, k))
			return true;
	}
	return false;
}

/*
 * Seen from a neighbor of the same frame, our coordinates may differ by
 * a whole number of turns around a ring: the extent divides the gap
 * (section 4.1 of the paper).
 */
static void tc_check_extent(struct tc_node *n, uint8_t port)
{
	struct tc_nbr *nb = &tn_nbr(n)[port];
	int16_t pred[TC_MAX_AXES];
	unsigned int k;

	if (tc_nb_R(n, nb)[nb->peer_port >> 1] == TC_NONE)
		return;
	tc_nbr_places_us(n, nb, pred);
	/*
	 * A cable only a square backs (not resolved on every axis) with a
	 * turn off its axis is one plugged into the wrong node that closes
	 * a square with three honest cables: its gap is no ring's turn.
	 */
	if (tc_line_gap(n, nb, pred) || tc_gap_two_rings(n, nb, pred) ||
	    (!tc_usable(nb) && tc_gap_off_axis(n, port, pred))) {
		tc_mark_miswired(n, port);
		return;
	}
	for (k = 0; k < n->cfg.ndims; k++) {
		int gap = pred[k] - tn_coord(n)[k];
		uint16_t g;

		if (!gap || !tc_epoch_current(n, nb, k))
			continue;
		g = tc_gcd(tn_gcd(n)[k], (uint16_t)abs(gap));
		if (g == tn_gcd(n)[k])
			continue;
		/*
		 * A ring we decided and show: a newcomer's turn that does
		 * not divide it (or ours, if we only just joined) proves
		 * the ring longer now; between nodes placed long since, it
		 * is a miswired cable (tc_miswired()).
		 */
		if (tc_epoch_settled(n, k)) {
			if (!(nb->flags & NB_PLACED) ||
			    (tc_epoch_newcomer(n) &&
			     !tc_gap_off_axis(n, port, pred)))
				tc_epoch_start(n, k);
			else
				n->stats.refuted++;
			continue;
		}
		if (tc_ring_refuted(n, k, g)) {
			/*
			 * Honest turns are multiples of the extent: one
			 * refuting the frame's ring on a trusted cable
			 * means the ring changed since it was decided.
			 */
			if (tn_gcd(n)[k] && !tn_hold_dims(n)[k])
				tc_epoch_start(n, k);
			else
				n->stats.refuted++;
			continue;
		}
		if (g != tn_gcd(n)[k]) {
			tn_gcd(n)[k] = g;
			tc_changed(n);
		}
	}
}

/*
 * A neighbor we can follow: our cable to it is resolved, and it has a
 * resolved cable itself, so its frame is not one it is stuck in alone.
 */
static bool tc_usable(const struct tc_nbr *nb)
{
	uint8_t want = NB_RESOLVED | NB_FRAME | NB_JOINED;

	return nb->id && (nb->flags & want) == want;
}

/*
 * A cable whose gap between two nodes of our frame counts as turns
 * around a ring: one to a neighbor we trust (resolved, or backed by a
 * square with both ends agreeing on its direction).
 */
static bool tc_turn_evidence(const struct tc_node *n, uint8_t p)
{
	const struct tc_nbr *nb = &tn_nbr(n)[p];

	if (!nb->id || !(nb->flags & NB_FRAME) || nb->leader != n->leader ||
	    (nb->flags & NB_MISWIRED))
		return false;
	return tc_trusted(n, p);
}

/*
 * Join a placed frame that ranks above ours through the neighbors that
 * know their cable's direction in it, or fill axes of our own frame's
 * map that a neighbor can vouch for.
 */
static void tc_join_placed(struct tc_node *n, const struct tc_rank *mine)
{
	int16_t coord[TC_MAX_AXES], bcoord[TC_MAX_AXES];
	uint8_t R[TC_MAX_AXES], bR[TC_MAX_AXES];
	struct tc_rank best = { 0 }, r;
	int p, src = -1, bsrc = -1;
	unsigned int a;
	bool confirmed;

	for (p = 0; p < tc_nports(n); p++) {
		const struct tc_nbr *nb = &tn_nbr(n)[p];

		if (!nb->id || !(nb->flags & NB_PLACED) ||
		    !(nb->flags & NB_FRAME))
			continue;
		tc_nbr_rank(n, nb, &r);
		if (nb->leader != n->leader && !tc_rank_above(&r, mine))
			continue;
		if (bsrc >= 0 && !tc_rank_above(&r, &best))
			continue;
		if (tc_frame_union(n, nb->leader, R, coord, &confirmed,
				   &src) <= 0 || !confirmed)
			continue;
		best = r;
		bsrc = src;
		memcpy(bR, R, sizeof(bR));
		memcpy(bcoord, coord, sizeof(bcoord));
	}
	if (bsrc < 0)
		return;
	if (tn_nbr(n)[bsrc].leader != n->leader) {
		tc_adopt(n, (uint8_t)bsrc, bR, bcoord);
		return;
	}
	/*
	 * Our own frame, placed: our placed neighbors vouch for our place
	 * (we may have followed it before a new port left our cable
	 * unresolved).  Where they disagree with us, they are right, unless
	 * we lead it (tc_adopt()).
	 */
	for (a = 0; n->leader != n->cfg.id && a < n->cfg.ndims; a++)
		if ((tn_R(n)[a] != TC_NONE &&
		     !tc_same_image(tn_gcd(n), tn_R(n)[a], bR[a])) ||
		    (tn_coord(n)[a] != bcoord[a] && (n->cur & (1u << a)) &&
		     (!tn_gcd(n)[a] ||
		      (tn_coord(n)[a] - bcoord[a]) % tn_gcd(n)[a]))) {
			tc_adopt(n, (uint8_t)bsrc, bR, bcoord);
			return;
		}
	for (a = 0; a < n->cfg.ndims; a++)
		if (tn_R(n)[a] == TC_NONE && bR[a] != TC_NONE) {
			tn_R(n)[a] = bR[a];
			tc_changed(n);
		}
	tc_place_decided(n);
}

static void tc_elect(struct tc_node *n)
{
	struct tc_rank mine, best_rank = { 0 }, r;
	int best = -1, p;
	int16_t coord[TC_MAX_AXES];
	uint8_t R[TC_MAX_AXES];

	tc_my_rank(n, &mine);
	for (p = 0; p < tc_nports(n); p++) {
		const struct tc_nbr *nb = &tn_nbr(n)[p];

		/* a ring surveyed again: not through a stale coordinate */
		if (!tc_usable(nb) || !tc_frame_via(n, p, R, coord) ||
		    !tc_epoch_source(n, nb))
			continue;
		tc_nbr_rank(n, nb, &r);
		if (best < 0 || tc_rank_above(&r, &best_rank)) {
			best = p;
			best_rank = r;
		}
	}
	if (best >= 0 && tn_nbr(n)[best].leader != n->leader &&
	    tc_rank_above(&best_rank, &mine)) {
		tc_follow(n, best);
		return;
	}
	if (best >= 0 && tn_nbr(n)[best].leader == n->leader) {
		/*
		 * A port that came (back) up needs an orientation, placed
		 * or not: followed while its cable was silent, a placed
		 * node would keep that axis out of its port map for good.
		 */
		if (!tc_frame_complete(n, tn_R(n)))
			tc_follow(n, best);
		if (best_rank.placed)
			/* our frame got placed: keep our place in it */
			tc_place_decided(n);
	}
	tc_join_placed(n, &mine);
}

static bool tc_in_frame(const struct tc_node *n)
{
	unsigned int p;

	for (p = 0; p < tc_nports(n); p++)
		if (tc_usable(&tn_nbr(n)[p]) &&
		    tn_nbr(n)[p].leader == n->leader)
			return true;
	return false;
}

/*
 * Next to a larger frame we cannot join (every cable to it unresolved):
 * ours is an island of orientation, not the fabric.
 */
static bool tc_island(const struct tc_node *n)
{
	uint32_t mine = tc_frame_size(n->cfg.ndims, tn_gcd(n), tn_cmin(n),
				      tn_cmax(n));
	unsigned int p;

	for (p = 0; p < tc_nports(n); p++) {
		const struct tc_nbr *nb = &tn_nbr(n)[p];

		if (nb->id && (nb->flags & NB_FRAME) &&
		    nb->leader != n->leader &&
		    tc_frame_size(n->cfg.ndims, tc_nb_gcd(n, nb),
				  tc_nb_cmin(n, nb), tc_nb_cmax(n, nb)) > mine)
			return true;
	}
	return false;
}

static bool tc_has_nbr(const struct tc_node *n)
{
	unsigned int p;

	for (p = 0; p < tc_nports(n); p++)
		if (tn_nbr(n)[p].id)
			return true;
	return false;
}

static void tc_send_all(struct tc_node *n)
{
	uint8_t buf[TC_MSG_MAX], labels[TC_MAX_PORTS], flags = 0;
	uint32_t hashes[TC_MAX_PORTS];
	uint16_t trusted = 0;
	unsigned int p, nn = 0;

	/*
	 * A cable we marked miswired is no square's side: its far end in
	 * our table would show our neighbours a line going straight on
	 * into a wrong node, five distinct nodes that refute an honest ring
	 */
	for (p = 0; p < tc_nports(n); p++) {
		if (!tn_nbr(n)[p].id || (tn_nbr(n)[p].flags & NB_MISWIRED))
			continue;
		labels[nn] = p;
		hashes[nn++] = tw_id_hash(tn_nbr(n)[p].id);
		if (tc_trusted(n, (uint8_t)p))
			trusted |= (uint16_t)(1u << p);
	}
	if (n->flags & TN_PLACED)
		flags |= TW_FRAME_PLACED;
	else if (n->flags & TN_MEMBER)
		flags |= TW_FRAME_MEMBER;
	/* joined: in a frame with other nodes, one a neighbor may follow */
	if (n->leader != n->cfg.id)
		flags |= TW_FRAME_JOINED;
	for (p = 0; p < tc_nports(n); p++)
		if (tn_nbr(n)[p].id && (tn_nbr(n)[p].flags & NB_RESOLVED))
			flags |= TW_FRAME_JOINED;

	for (p = 0; p < tc_nports(n); p++) {
		struct tw_buf b;

		if (!(n->up & (1u << p)))
			continue;
		tw_init(&b, buf, sizeof(buf));
		tw_put_id(&b, n->cfg.id);
		tw_put_port(&b, p);
		if (!n->cfg.block_mode) {
			tw_put_nbrs(&b, nn, labels, hashes);
			tw_put_trusted(&b, trusted);
		}
		tw_put_frame(&b, n->leader, flags, n->cfg.ndims, tn_R(n),
			     tn_coord(n));
		tw_put_extent(&b, n->cfg.ndims, tn_gcd(n), tn_cmin(n),
			      tn_cmax(n));
		tw_put_open(&b, n->cfg.ndims, tn_omin(n), tn_omax(n),
			    tn_clmin(n),
			    tn_clmax(n));
		tw_put_epoch(&b, n->cfg.ndims, tn_epoch(n), n->cur);
		if (n->kview)
			tw_put_kview(&b, n->cfg.ndims, n->kview);
		if (n->cfg.block_mode)
			tc_put_block_tlvs(n, &b, p);
		if (b.overflow) {
			n->stats.oversize++;
			continue;
		}
		n->stats.msgs_tx++;
		n->stats.bytes_tx += b.len;
		n->out.send(n->out.ctx, p, buf, b.len);
	}
	if (n->cfg.block_mode)
		tc_block_sent(n);
}

/* Extent of global axis k as the view reports it (0: not yet known). */
static int tc_extent(const struct tc_node *n, unsigned int k)
{
	return tc_axis_extent(tn_gcd(n)[k], tn_cmin(n)[k], tn_cmax(n)[k]);
}

/*
 * A node that cannot orient a live axis (its neighbors there are in a
 * frame it cannot join) still has its coordinates: it places with that
 * axis's ports unmapped, so nothing is forwarded through them.
 */
static bool tc_R_any(const struct tc_node *n)
{
	unsigned int a;

	for (a = 0; a < n->cfg.ndims; a++)
		if (tn_R(n)[a] != TC_NONE)
			return true;
	return false;
}

/*
 * Our ports mark the frame's line ends: a port we have is open (with
 * or without carrier: the node beyond may be dead, powered off, in
 * another frame, or its cable cut, and any of them can come back), a
 * port the board does not have is closed (nothing can ever be beyond).
 * A port on an axis we cannot orient (no live neighbor on it) says
 * nothing: we do not know its sign.
 */
static void tc_note_end(struct tc_node *n, uint8_t g, bool open)
{
	unsigned int k = g >> 1;
	int16_t c = tn_coord(n)[k];
	int16_t *lo = open ? tn_omin(n) : tn_clmin(n);
	int16_t *hi = open ? tn_omax(n) : tn_clmax(n);

	if ((g & 1) && c < lo[k]) {
		lo[k] = c;
		tc_changed(n);
	} else if (!(g & 1) && c > hi[k]) {
		hi[k] = c;
		tc_changed(n);
	}
}

static void tc_note_ends(struct tc_node *n)
{
	unsigned int p;

	for (p = 0; p < tc_nports(n); p++)
		if (tn_R(n)[p >> 1] != TC_NONE)
			tc_note_end(n, tc_dir_apply(tn_R(n), (uint8_t)p),
				    n->cfg.ports & (1u << p));
}

/*
 * An extent is believed only when no missing node can contradict it: a
 * ring's GCD of turns, or a line with a closed node and no open one at
 * each end.  Returns the first axis that is undecided, or -1.
 */
static int tc_undecided_axis(const struct tc_node *n)
{
	unsigned int k;

	for (k = 0; k < n->cfg.ndims; k++)
		if (!(n->cur & (1u << k)) ||
		    (!tn_gcd(n)[k] &&
		     (tn_omin(n)[k] <= tn_cmin(n)[k] ||
		      tn_omax(n)[k] >= tn_cmax(n)[k] ||
		      tn_clmin(n)[k] > tn_cmin(n)[k] ||
		      tn_clmax(n)[k] < tn_cmax(n)[k])))
			return (int)k;
	return -1;
}

/*
 * A fabric is at least one block in every direction: a frame smaller
 * than our block is a fragment cut off by faults, not the machine.
 */
static bool tc_smaller_than_block(const struct tc_node *n)
{
	unsigned int a;

	for (a = 0; a < n->cfg.ndims; a++)
		if (tn_R(n)[a] != TC_NONE &&
		    tc_extent(n, tn_R(n)[a] >> 1) < tn_block_dims(n)[a])
			return true;
	return false;
}

/*
 * On a ring of two both cables join the same two nodes, and no wiring
 * tells "+" from "-": the sign of a cable follows its labels instead of
 * the frame map (whose sign on such an axis depends on the path it was
 * derived along).  At coordinate 0 a port's own label sign is the
 * cable's; at 1, the opposite of the label it lands on at the node at 0.
 * Both ends agree, and neither changes while the cable stays.
 */
static uint8_t tc_ring2_dir(const struct tc_node *n, const uint8_t *coord,
			    uint8_t p, uint8_t g)
{
	uint8_t k = g >> 1, far;

	if (!coord[k])
		return TORUS_DIR(k, p & 1);
	far = (n->vports & (1u << p)) ? tn_vpeer(n)[p] : tn_nbr(n)[p].peer_port;
	return TORUS_DIR(k, !(far & 1));
}

/*
 * The cable on @p contradicts our frame: its squares disagree, or the
 * node across is in our frame but not where the port leads (a cable
 * plugged into the wrong node).  A neighbor in another frame, or silent,
 * cannot be checked.
 */
static bool tc_miswired(const struct tc_node *n, uint8_t p)
{
	const struct tc_nbr *nb = &tn_nbr(n)[p];
	int16_t pred[TC_MAX_AXES];
	unsigned int k;
	uint8_t g;

	if (nb->flags & NB_CONFLICT)
		return true;
	if (!nb->id || !(nb->flags & NB_FRAME) || nb->leader != n->leader ||
	    tc_nb_R(n, nb)[nb->peer_port >> 1] == TC_NONE)
		return false;
	g = tc_dir_apply(tn_R(n), p);
	/*
	 * On a ring of two both cables join the same pair: no sign.  Nor
	 * while either end surveys the cable's ring: a grown ring of two
	 * is oriented again, one node after the other.
	 */
	if (tn_gcd(n)[g >> 1] != 2 && tc_ring_settled_both(n, nb, g >> 1) &&
	    g != (tc_dir_apply(tc_nb_R(n, nb), nb->peer_port) ^ 1))
		return true;
	memcpy(pred, tn_coord(n), n->cfg.ndims * sizeof(*pred));
	tc_step(pred, g);
	for (k = 0; k < n->cfg.ndims; k++) {
		int gap = pred[k] - tc_nb_coord(n, nb)[k];

		/*
		 * A ring surveyed again has no extent yet: its closing
		 * cable shows a turn, the evidence tc_check_extent() wants.
		 */
		if (gap && tc_ring_settled_both(n, nb, k) &&
		    (!tn_gcd(n)[k] || gap % tn_gcd(n)[k]))
			return true;
	}
	return false;
}

/* the node across @p is one of our frame that knows where the cable lands */
static bool tc_far_end_known(const struct tc_node *n, unsigned int p)
{
	const struct tc_nbr *nb = &tn_nbr(n)[p];

	return nb->id && (nb->flags & NB_FRAME) && nb->leader == n->leader &&
	       tc_nb_R(n, nb)[nb->peer_port >> 1] != TC_NONE;
}

/* the most a mark's hold doubles: quiet_ticks << TC_MISWIRED_BACKOFF */
#define TC_MISWIRED_BACKOFF	4

/*
 * How long a marked cable must check out before it is trusted again: one
 * quiet period, doubled for every further mark of the same neighbor (up
 * to TC_MISWIRED_BACKOFF times), so a neighbor that lies now and then
 * cannot flap our port map at the quiet period.
 */
uint32_t tc_miswired_hold(const struct tc_node *n, const struct tc_nbr *nb)
{
	unsigned int shift = nb->strikes ? nb->strikes - 1u : 0;
	uint32_t hold;

	if (shift > TC_MISWIRED_BACKOFF)
		shift = TC_MISWIRED_BACKOFF;
	hold = (uint32_t)n->cfg.quiet_ticks << shift;
	/* counted in struct tc_nbr's ok_ticks */
	return hold < UINT16_MAX ? hold : UINT16_MAX - 1;
}

/*
 * A cable that contradicted our frame while both ends were placed is
 * marked and kept out of the port map (and reported down in link
 * state): a neighbor making up records must not flap our port map.  The
 * mark goes when the far end has checked out (a node of our frame, where
 * the port leads) for tc_miswired_hold() ticks without a break, or with
 * the neighbor (silence, another node answering, carrier lost).
 */
static void tc_note_miswired(struct tc_node *n)
{
	unsigned int p;

	for (p = 0; p < tc_nports(n); p++) {
		struct tc_nbr *nb = &tn_nbr(n)[p];

		if (!(nb->flags & NB_MISWIRED))
			continue;
		if (!(n->up & (1u << p)) || tn_R(n)[p >> 1] == TC_NONE ||
		    !tc_far_end_known(n, p) || tc_miswired(n, (uint8_t)p)) {
			nb->ok_ticks = 0;
			continue;
		}
		if (++nb->ok_ticks <= tc_miswired_hold(n, nb))
			continue;
		nb->flags &= (uint8_t)~NB_MISWIRED;
		nb->ok_ticks = 0;
		tc_changed(n);
	}
	for (p = 0; p < tc_nports(n); p++)
		if ((n->up & (1u << p)) &&
		    !(tn_nbr(n)[p].flags & NB_MISWIRED) &&
		    tn_R(n)[p >> 1] != TC_NONE && tc_far_end_known(n, p) &&
		    !tc_miswired(n, (uint8_t)p)) {
			n->vports |= (uint16_t)(1u << p);
			tn_vpeer(n)[p] = tn_nbr(n)[p].peer_port;
		}
	if (!(n->flags & TN_PLACED))
		return;
	for (p = 0; p < tc_nports(n); p++) {
		struct tc_nbr *nb = &tn_nbr(n)[p];

		if ((nb->flags & (NB_MISWIRED | NB_PLACED)) != NB_PLACED ||
		    tn_R(n)[p >> 1] == TC_NONE || !tc_miswired(n, (uint8_t)p))
			continue;
		tc_mark_miswired(n, (uint8_t)p);
	}
}

static uint32_t tc_view_sum(const struct tc_view *v)
{
	const uint8_t *p = (const uint8_t *)v;
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < offsetof(struct tc_view, generation); i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

void tc_tick(struct tc_node *n)
{
	struct tc_view v;
	bool changed, rx;
	unsigned int p;
	uint32_t sum;

	n->now++;
	for (p = 0; p < tc_nports(n); p++)
		if (tn_nbr(n)[p].id &&
		    ++tn_nbr(n)[p].silent > n->cfg.dead_ticks)
			tc_nbr_drop(n, p);

	if (n->cfg.block_mode)
		tc_block_tick(n);

	for (p = 0; p < tc_nports(n); p++) {
		struct tc_nbr *nb = &tn_nbr(n)[p];

		if (!nb->id || (nb->flags & NB_CONFLICT))
			continue;
		/* a new live port may leave a resolved map short of an axis */
		if ((nb->flags & NB_RESOLVED) &&
		    tc_frame_complete(n, tc_nb_map(n, nb)))
			continue;
		nb->flags &= ~NB_RESOLVED;
		if (n->cfg.block_mode)
			tc_resolve_block(n, p);
		else
			tc_resolve_flat(n, p);
		if (nb->flags & NB_RESOLVED)
			n->flags |= TN_RX | TN_DIRTY;	/* we may have joined */
	}

	/* a resumed line learns how the frame counts it, before any check */
	tc_kview_tick(n);

	/* election and extent checks only look at what changed */
	if (n->flags & (TN_RX | TN_CHANGED)) {
		/* turns first: a contradiction must be seen before we place */
		for (p = 0; p < tc_nports(n); p++)
			if (tc_turn_evidence(n, p))
				tc_check_extent(n, p);
		tc_elect(n);
		for (p = 0; p < tc_nports(n); p++)
			if (tc_turn_evidence(n, p))
				tc_check_extent(n, p);
	}
	tc_epoch_tick(n);
	tc_note_ends(n);
	tc_note_miswired(n);

	changed = n->flags & TN_CHANGED;
	rx = n->flags & TN_RX;
	n->flags &= ~(TN_CHANGED | TN_RX);
	if (changed)
		n->quiet = 0;
	else if (n->quiet < UINT16_MAX)
		n->quiet++;

	n->reason = R_NONE;
	if (!(n->flags & TN_PLACED)) {
		if (!tc_has_nbr(n))
			n->reason = R_NO_NEIGHBOR;
		else if (n->cfg.block_mode && tc_block_cut_off(n))
			n->reason = R_FACE_FAILED;
		else if (!tc_in_frame(n))
			n->reason = R_UNRESOLVED;
		else if (tc_undecided_axis(n) >= 0) {
			n->reason = R_UNDECIDED;
			n->reason_axis = (uint8_t)tc_undecided_axis(n);
		}
		else if (n->cfg.block_mode && n->quiet >= n->cfg.quiet_ticks &&
			 tc_smaller_than_block(n))
			n->reason = R_FRAGMENT;
		else if (n->quiet >= n->cfg.quiet_ticks && tc_island(n))
			n->reason = R_ISLAND;
		/* a block whose faces are still being oriented waits */
		if (n->quiet >= n->cfg.quiet_ticks && n->reason == R_NONE &&
		    tc_R_any(n) &&
		    !(n->cfg.block_mode && tc_block_pending(n))) {
			n->flags |= TN_PLACED | TN_DIRTY;
			n->flags &= ~TN_JOINER;
			n->placed_at = n->now;
		}
	}

	if ((n->flags & TN_DIRTY) || !n->hello_in) {
		tc_send_all(n);
		n->flags &= ~TN_DIRTY;
		n->hello_in = n->cfg.hello_ticks;
	} else {
		n->hello_in--;
	}

	if (!changed && !rx && n->quiet != n->cfg.quiet_ticks &&
	    (n->flags & TN_PLACED) == (n->flags & TN_WAS_PLACED))
		goto link_state;
	n->flags = (n->flags & ~TN_WAS_PLACED) |
		   ((n->flags & TN_PLACED) ? TN_WAS_PLACED : 0);
	tc_view(n, &v);
	sum = tc_view_sum(&v);
	if (sum != n->view_sum) {
		n->view_sum = sum;
		n->generation++;
	}
link_state:
	/* after the view's generation: link state reads the view */
	tc_ls_tick(n);
}

void tc_view(const struct tc_node *n, struct tc_view *v)
{
	unsigned int k, p;

	memset(v, 0, sizeof(*v));
	v->ndims = n->cfg.ndims;
	v->leader = n->leader;
	v->generation = n->generation;
	v->role = n->leader == n->cfg.id ? TC_ROLE_LEADER : TC_ROLE_FOLLOWER;
	memset(v->portmap, TC_NONE, sizeof(v->portmap));

	if (n->flags & TN_PLACED) {
		v->state = TC_PLACED;
	} else if (n->reason != R_NONE && n->reason != R_WAITING &&
		   n->quiet >= n->cfg.quiet_ticks) {
		v->state = TC_FAILED;
		v->role = TC_ROLE_NONE;
	} else if (tc_in_frame(n)) {
		v->state = TC_ORIENTED;
	} else {
		v->state = TC_DISCOVERING;
		v->role = TC_ROLE_NONE;
	}
	if ((v->state == TC_FAILED || v->state == TC_DISCOVERING) &&
	    n->reason == R_UNDECIDED && !(n->cur & (1u << n->reason_axis)))
		snprintf(v->reason, sizeof(v->reason),
			 "ring of axis %c surveyed again: it grew",
			 TORUS_AXIS_NAMES[n->reason_axis]);
	else if ((v->state == TC_FAILED || v->state == TC_DISCOVERING) &&
	    n->reason == R_UNDECIDED)
		snprintf(v->reason, sizeof(v->reason),
			 "extent of axis %c undecided: no ring closed, an end open",
			 TORUS_AXIS_NAMES[n->reason_axis]);
	else if (v->state == TC_FAILED || v->state == TC_DISCOVERING)
		snprintf(v->reason, sizeof(v->reason), "%s",
			 tc_reasons[n->reason == R_NONE ? R_WAITING :
							n->reason]);
	if (v->state == TC_FAILED || v->state == TC_DISCOVERING)
		return;

	memcpy(v->offset, tn_coord(n), n->cfg.ndims * sizeof(int16_t));
	for (k = 0; k < n->cfg.ndims; k++) {
		int ext = tc_extent(n, k), c;

		if (tn_hold_dims(n)[k]) {
			/* surveyed again: the place it was decided on */
			v->dims[k] = tn_hold_dims(n)[k];
			v->coord[k] = tn_hold_coord(n)[k];
			v->wrap |= 1u << k;
			continue;
		}
		if (tn_gcd(n)[k]) {
			c = ((tn_coord(n)[k] % ext) + ext) % ext;
			v->wrap |= 1u << k;
		} else {
			c = tn_coord(n)[k] - tn_cmin(n)[k];
		}
		if (ext > TORUS_MAX_EXTENT || c < 0 || c >= ext)
			ext = c = 0;	/* not yet consistent */
		v->dims[k] = (uint16_t)ext;
		v->coord[k] = (uint8_t)c;
	}
	for (p = 0; p < tc_nports(n); p++) {
		uint8_t g;

		if (!(n->up & (1u << p)) || tn_R(n)[p >> 1] == TC_NONE)
			continue;
		if ((tn_nbr(n)[p].flags & NB_MISWIRED) ||
		    tc_miswired(n, (uint8_t)p)) {
			v->miswired |= 1u << p;
			continue;
		}
		/*
		 * Only a cable whose far end we know to be where it leads:
		 * a node of our frame, heard since the cable came up (a
		 * cable just plugged in may lead anywhere); a few lost
		 * hellos do not take it out again.
		 */
		if (!(n->vports & (1u << p)) && !tc_far_end_known(n, p))
			continue;
		g = tc_dir_apply(tn_R(n), p);
		/* shown as a ring of two: also while it is surveyed again,
		 * its sign taken anew from the path it is reached along */
		if (v->dims[g >> 1] == 2 && (v->wrap & (1u << (g >> 1))))
			g = tc_ring2_dir(n, v->coord, (uint8_t)p, g);
		v->portmap[g] = p;
	}
}

void tc_skip(struct tc_node *n, uint32_t ticks)
{
	unsigned int p, k;

	n->now += ticks;
	for (p = 0; p < tc_nports(n); p++) {
		struct tc_nbr *nb = &tn_nbr(n)[p];

		if (nb->id)
			nb->silent += ticks;
		/* fewer than the deadline: the count stays below its hold */
		if ((nb->flags & NB_MISWIRED) && nb->ok_ticks)
			nb->ok_ticks = (uint16_t)(nb->ok_ticks + ticks);
	}
	n->hello_in = (uint16_t)(n->hello_in - ticks);
	n->quiet = (uint16_t)(n->quiet + ticks > UINT16_MAX ? UINT16_MAX :
			      n->quiet + ticks);
	for (k = 0; k < n->cfg.ndims; k++)
		if (tn_gcd(n)[k] == tn_ring_seen(n)[k] && (n->cur & (1u << k)))
			tn_ring_quiet(n)[k] = (uint16_t)
				(tn_ring_quiet(n)[k] + ticks > UINT16_MAX ?
				 UINT16_MAX : tn_ring_quiet(n)[k] + ticks);
	tc_ls_skip(n, ticks);
}

uint32_t tc_generation(const struct tc_node *n)
{
	return n->generation;
}

void tc_get_stats(const struct tc_node *n, struct tc_stats *st)
{
	const struct tc_core_stats *c = &n->stats;

	memset(st, 0, sizeof(*st));
	st->msgs_tx = c->msgs_tx;
	st->bytes_tx = c->bytes_tx;
	st->msgs_rx = c->msgs_rx;
	st->bytes_rx = c->bytes_rx;
	st->bad_rx = c->bad_rx;
	st->queue_drops = c->queue_drops;
	st->oversize = c->oversize;
	st->refuted = c->refuted;
	st->resurveys = c->resurveys;
	st->ls_msgs_tx = n->ls->st.msgs_tx;
	st->ls_bytes_tx = n->ls->st.bytes_tx;
	st->ls_bad_rx = n->ls->st.bad_rx;
	st->ls_foreign = n->ls->st.foreign;
	st->ls_hearsay = n->ls->st.hearsay;
	st->ls_overflow = n->ls->st.overflow;
	st->ls_expired = n->ls->st.expired;
}
