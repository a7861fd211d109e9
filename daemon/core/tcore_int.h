/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tcore internals, shared by its files only.
 *
 * Directions are (axis << 1) | neg.  A frame map R sends a local
 * direction to a global one; it is stored per axis (the image of the
 * local "+" direction), the "-" image being its opposite.
 */
#ifndef TORUS_TCORE_INT_H
#define TORUS_TCORE_INT_H

#include <string.h>

#include "tcore.h"
#include "tcore_wire.h"
#include "tcore_ls.h"

#define TC_NONE		TORUS_DIR_NONE
#define TC_QUEUE	32	/* block mode: face records awaiting forwarding */

/* per-neighbor flags */
#define NB_RESOLVED	0x01	/* the cable's axis map is complete */
#define NB_FRAME	0x02	/* the neighbor told us its frame */
#define NB_PLACED	0x04	/* ...and it is placed */
#define NB_BLOCK	0x08	/* the neighbor told us its block */
#define NB_CONFLICT	0x10	/* squares disagree: never resolved */
#define NB_JOINED	0x20	/* it is in a frame with other nodes */
#define NB_EXTENT	0x40	/* it told us its frame's extent record */
#define NB_MISWIRED	0x80	/* placed, it contradicted our placed frame */

/*
 * What we know of the node across one port.  Its per-axis state (see
 * tc_nb_coord() and the like) follows the node's array of these, sized
 * by the node's axes: most of a node's memory, TC_MAX_AXES entries each
 * would be most of it wasted.
 */
struct tc_nbr {
	uint64_t id;		/* 0: nobody (dead or never heard) */
	uint64_t leader;
	uint32_t block;
	uint32_t silent;	/* ticks since its last message */
	uint8_t peer_port;	/* its label where the cable lands */
	uint8_t flags;
	/* miswired (NB_MISWIRED): ticks the cable has checked out since,
	 * without a break (0: it does not now), see tc_note_miswired() */
	uint16_t ok_ticks;
	uint8_t cur;		/* axes its coordinate is current on */
	uint8_t kview;		/* lines it counts from their start */
	bool member;		/* not placed, in a placed frame */
	uint8_t strikes;	/* times it was marked miswired */
};

/*
 * A neighbor's per-axis state, ndims entries of each, in this order:
 * int16_t coord, its frame's extent record as of its last message
 * (uint16_t gcd, int16_t cmin, cmax, omin, omax, clmin, clmax), its
 * ring epochs (uint16_t epoch); then uint8_t map (my local +axis ->
 * its local dir), R (its frame map) and block_coord.
 */
#define TC_NAX(ndims)	((21 * (size_t)(ndims) + 1) & ~(size_t)1)

/*
 * block mode: one face of my block, named by its normal (local dir).
 * Its map (my +axis -> its dir, TC_NONE unknown, ndims entries) is
 * apart, sized by the axes: tc_face_map().
 */
struct tc_face {
	uint32_t block;		/* the block across the face, 0: not seen */
	uint32_t seen_at;	/* tick it was seen, or a cable more came up */
	/* face positions whose cable was heard of, 64 bits in two words:
	 * a uint64_t would align the faces to 8 and pad each by 4 bytes */
	uint32_t cables[2];
	uint16_t fwd_ports;	/* map or failure still to be forwarded */
	uint8_t status;		/* enum tc_face_status */
	uint8_t announced:1;	/* our own record went out */
	uint8_t final:1;	/* failed on contradicting cables: for good */
};

enum tc_face_status {
	FACE_NONE,
	FACE_SEEN,
	FACE_RESOLVED,
	FACE_FAILED,
};

/*
 * A queued face record, packed by the node's axes (the queue holds
 * TC_QUEUE of them, a large share of a block node's memory): u32 block,
 * then TC_QHEAD() bytes, little-endian, of the ports to forward it out
 * of (2 * ndims bits), its normal and its peer_label (4 bits each),
 * then u8 a[n], u8 b[n], as struct tw_face.  Two bytes hold the head up
 * to 4 axes, where a u16 of ports and a byte each took four.
 */
#define TC_QHEAD(ndims)	((2 * (size_t)(ndims) + 8 + 7) / 8)
#define TC_QENT(ndims)	(4 + TC_QHEAD(ndims) + 2 * (size_t)(ndims))

/* node flags */
#define TN_PLACED	0x01
#define TN_DIRTY	0x02	/* something neighbors should hear changed */
#define TN_CHANGED	0x04	/* the frame, map or extents changed */
#define TN_RX		0x08	/* a neighbor's frame changed: re-elect */
#define TN_WAS_PLACED	0x10	/* placed at the last view */
#define TN_JOINER	0x20	/* placed by joining a frame already placed */
#define TN_MEMBER	0x40	/* joined a placed frame (TN_PLACED or not) */

enum tc_reason {
	R_NONE,
	R_NO_NEIGHBOR,
	R_UNRESOLVED,
	R_FACE_FAILED,
	R_WAITING,
	R_BAD_CONFIG,
	R_FRAGMENT,
	R_ISLAND,
	R_UNDECIDED,
	R_CONTRADICTION,
};

/* struct tc_stats but link state's, which struct tc_ls keeps */
struct tc_core_stats {
	uint64_t msgs_tx;
	uint64_t bytes_tx;
	uint64_t msgs_rx;
	uint64_t bytes_rx;
	uint64_t bad_rx;
	uint64_t queue_drops;
	uint64_t oversize;
	uint64_t refuted;
	uint64_t resurveys;
};

/*
 * struct tc_config as a node keeps it, the defaults filled in, but for
 * the block's coordinates and extents: they are per axis, with the
 * node's other per-axis state (tn_block_coord(), tn_block_dims()).
 */
struct tc_node_config {
	uint64_t id;
	uint8_t ndims;
	uint16_t ports;
	bool block_mode;
	uint32_t block_id;
	uint16_t hello_ticks;
	uint16_t dead_ticks;
	uint16_t quiet_ticks;
	uint16_t orient_ticks;
	uint32_t ls_records;
	uint16_t ls_refresh_ticks;
	uint16_t ls_max_age_ticks;
	uint16_t ls_settle_ticks;
};

struct tc_node {
	struct tc_node_config cfg;
	struct tc_output out;
	struct tc_core_stats stats;
	uint32_t now;
	uint32_t generation;
	uint16_t quiet;		/* ticks without a change */
	uint16_t hello_in;	/* ticks to the next keepalive */
	uint16_t up;		/* ports with carrier */
	uint16_t vports;	/* ports whose far end was verified since up */
	uint8_t flags;
	uint8_t reason;		/* enum tc_reason */
	uint8_t nq;		/* queued face records */
	uint8_t reason_axis;	/* the undecided axis, for the reason */
	uint32_t view_sum;	/* checksum of the last view, for generation */
	/* the frame this node is in (its own until it follows) */
	uint64_t leader;
	/* axes our coordinate is current on in its epoch (tcore_epoch.c) */
	uint8_t cur;
	/*
	 * Lines counted from their start (tcore_resume.c): a frame counts
	 * coordinates from its leader, the kernel from each line's first
	 * node.  A node that resumed the kernel's placement counts its
	 * lines so until a neighbour of its frame that counts from the
	 * leader shows it the difference.
	 */
	uint8_t kview;
	/*
	 * Ports whose neighbour trusts its cable straight on from ours (the
	 * one opposite where ours lands: TW_TRUSTED), so that the node two
	 * hops along the axis in our neighbour table is one we may count.
	 */
	uint16_t straight;
	uint32_t placed_at;	/* tick we were last placed */
	/* link state (tcore_ls.c): its own memory, tc_ls_size() bytes */
	struct tc_ls *ls;
};

#define TC_ALIGN8(size)	(((size) + 7) & ~(size_t)7)

/*
 * The node's per-axis state follows the struct, sized by its axes as a
 * neighbor's is (TC_MAX_AXES entries each would be a fifth of a node's
 * memory, mostly unused), ndims entries of each, in this order:
 *
 * int16_t coord;
 * extent discovery, in the frame's (global) axes: uint16_t gcd,
 *	int16_t cmin, cmax;
 * ends of lines: the lowest coordinate of a frame node with carrier on
 *	its "-" port, the highest with carrier on its "+" port (open: a
 *	node may be missing beyond), and the same for nodes with no
 *	carrier there (closed): int16_t omin, omax, clmin, clmax.  A
 *	line's span is believed when each end has a closed node and no
 *	open one;
 * rings surveyed again (tcore_epoch.c): a ring's extent holds for an
 *	epoch of its axis (uint16_t epoch); the wiring proving it longer
 *	starts the next, in which coordinates along the axis are derived
 *	again from the nodes that were at 0 (the anchors).  While a
 *	placed node's ring is surveyed again, its view keeps hold_dims
 *	and hold_coord;
 * uint16_t hold_dims, ring_seen (extent seen at the last tick),
 *	ring_quiet (ticks it has not changed);
 * uint16_t block_dims, the configuration's (struct tc_config);
 * uint8_t R (the frame map), hold_coord;
 * uint8_t block_coord, the configuration's;
 * then per port (2 * ndims): uint8_t vpeer, the label a port's far end
 *	was verified to land on (vports).
 *
 * Then the neighbors (tn_nbr(): per port, indexed by label) and their
 * per-axis state, and either the table of neighbors' neighbors (flat)
 * or the faces and the queue of face records (block), at offsets the
 * axes give.
 */
#define TC_NODE_AX(ndims)	(31 * (size_t)(ndims))

static inline uint8_t *tc_node_ax(const struct tc_node *n)
{
	return (uint8_t *)n + TC_ALIGN8(sizeof(*n));
}

#define TC_NODE_AXES(type, name, at)					\
static inline type *tn_##name(const struct tc_node *n)			\
{									\
	return (type *)(void *)(tc_node_ax(n) + (at) * n->cfg.ndims);	\
}
TC_NODE_AXES(int16_t, coord, 0)
TC_NODE_AXES(uint16_t, gcd, 2)
TC_NODE_AXES(int16_t, cmin, 4)
TC_NODE_AXES(int16_t, cmax, 6)
TC_NODE_AXES(int16_t, omin, 8)
TC_NODE_AXES(int16_t, omax, 10)
TC_NODE_AXES(int16_t, clmin, 12)
TC_NODE_AXES(int16_t, clmax, 14)
TC_NODE_AXES(uint16_t, epoch, 16)
TC_NODE_AXES(uint16_t, hold_dims, 18)
TC_NODE_AXES(uint16_t, ring_seen, 20)
TC_NODE_AXES(uint16_t, ring_quiet, 22)
TC_NODE_AXES(uint16_t, block_dims, 24)
TC_NODE_AXES(uint8_t, R, 26)
TC_NODE_AXES(uint8_t, hold_coord, 27)
TC_NODE_AXES(uint8_t, block_coord, 28)
TC_NODE_AXES(uint8_t, vpeer, 29)
#undef TC_NODE_AXES

static inline struct tc_nbr *tn_nbr(const struct tc_node *n)
{
	return (struct tc_nbr *)(void *)(tc_node_ax(n) +
					 TC_ALIGN8(TC_NODE_AX(n->cfg.ndims)));
}

/* where the neighbors' records end: the table or the faces start */
static inline uint8_t *tc_node_rest(const struct tc_node *n)
{
	size_t nd = n->cfg.ndims;

	return tc_node_ax(n) + TC_ALIGN8(TC_NODE_AX(nd)) +
	       TC_ALIGN8(2 * nd * (sizeof(struct tc_nbr) + TC_NAX(nd)));
}

/* flat: [port][its label] neighbor hashes; NULL in block mode */
static inline uint32_t *tn_hop2(const struct tc_node *n)
{
	if (n->cfg.block_mode)
		return NULL;
	return (uint32_t *)(void *)tc_node_rest(n);
}

/* block: the faces of my block, indexed by normal */
static inline struct tc_face *tn_face(const struct tc_node *n)
{
	return (struct tc_face *)(void *)tc_node_rest(n);
}

/*
 * block: the faces' maps, ndims entries each, right after the faces
 * (bytes: no padding between them, nor before the queue)
 */
static inline uint8_t *tn_face_maps(const struct tc_node *n)
{
	return tc_node_rest(n) +
	       2 * (size_t)n->cfg.ndims * sizeof(struct tc_face);
}

static inline uint8_t *tc_face_map(const struct tc_node *n,
				   const struct tc_face *f)
{
	return tn_face_maps(n) + (f - tn_face(n)) * n->cfg.ndims;
}

/* block: TC_QUEUE of TC_QENT() bytes, after the faces' maps */
static inline uint8_t *tn_queue(const struct tc_node *n)
{
	size_t nd = n->cfg.ndims;

	return tn_face_maps(n) + 2 * nd * nd;
}

static inline uint8_t tc_dir_apply(const uint8_t *R, uint8_t dir)
{
	return R[dir >> 1] ^ (dir & 1);
}

static inline uint8_t tc_nports(const struct tc_node *n)
{
	return 2 * n->cfg.ndims;
}

static inline bool tc_port_ok(const struct tc_node *n, uint8_t port)
{
	return port < tc_nports(n) && (n->cfg.ports & (1u << port));
}

static inline uint8_t *tc_nax(const struct tc_node *n,
			      const struct tc_nbr *nb)
{
	size_t nd = n->cfg.ndims;

	return (uint8_t *)(tn_nbr(n) + 2 * nd) + (nb - tn_nbr(n)) * TC_NAX(nd);
}

#define TC_NB_AXES(type, name, at)					\
static inline type *tc_nb_##name(const struct tc_node *n,		\
				 const struct tc_nbr *nb)		\
{									\
	return (type *)(void *)(tc_nax(n, nb) + (at) * n->cfg.ndims);	\
}
TC_NB_AXES(int16_t, coord, 0)
TC_NB_AXES(uint16_t, gcd, 2)
TC_NB_AXES(int16_t, cmin, 4)
TC_NB_AXES(int16_t, cmax, 6)
TC_NB_AXES(int16_t, omin, 8)
TC_NB_AXES(int16_t, omax, 10)
TC_NB_AXES(int16_t, clmin, 12)
TC_NB_AXES(int16_t, clmax, 14)
TC_NB_AXES(uint16_t, epoch, 16)
TC_NB_AXES(uint8_t, map, 18)
TC_NB_AXES(uint8_t, R, 19)
TC_NB_AXES(uint8_t, block_coord, 20)
#undef TC_NB_AXES

/*
 * The axes a neighbor's coordinate is current on, as we can compare it:
 * in our frame, not on a line it counts otherwise than we do.
 */
static inline uint8_t tc_nbr_cur(const struct tc_node *n,
				 const struct tc_nbr *nb)
{
	if (nb->leader != n->leader)
		return nb->cur;
	return nb->cur & (uint8_t)~(nb->kview ^ n->kview);
}

static inline uint32_t *tc_hop2(struct tc_node *n, uint8_t port)
{
	return tn_hop2(n) + (size_t)port * tc_nports(n);
}

/* forget the neighbor table the node on @port sent */
static inline void tc_hop2_forget(struct tc_node *n, uint8_t port)
{
	if (tn_hop2(n))
		memset(tc_hop2(n, port), 0, tc_nports(n) * sizeof(uint32_t));
}

/* Axes on which this node has a live neighbor: those it must orient. */
static inline uint8_t tc_live_axes(const struct tc_node *n)
{
	uint8_t axes = 0;
	unsigned int p;

	for (p = 0; p < tc_nports(n); p++)
		if (tn_nbr(n)[p].id)
			axes |= 1u << (p >> 1);
	return axes;
}

/* @map (per local axis) is known on every axis of @axes. */
static inline bool tc_map_complete(const struct tc_node *n,
				   const uint8_t *map, uint8_t axes)
{
	unsigned int a;

	for (a = 0; a < n->cfg.ndims; a++)
		if ((axes & (1u << a)) && map[a] == TC_NONE)
			return false;
	return true;
}

static inline void tc_changed(struct tc_node *n)
{
	n->flags |= TN_CHANGED | TN_DIRTY;
}

static inline void tc_step(int16_t *coord, uint8_t gdir)
{
	coord[gdir >> 1] += (gdir & 1) ? -1 : 1;
}

/*
 * Where the neighbor places us in its frame (@c, TC_MAX_AXES entries,
 * zero beyond our axes):
 * its coordinates, one step along its cable to us.  Its map must give
 * that cable's direction.
 */
static inline void tc_nbr_places_us(const struct tc_node *n,
				    const struct tc_nbr *nb, int16_t *c)
{
	memset(c, 0, TC_MAX_AXES * sizeof(*c));
	memcpy(c, tc_nb_coord(n, nb), n->cfg.ndims * sizeof(*c));
	tc_step(c, tc_dir_apply(tc_nb_R(n, nb), nb->peer_port));
}

/* tcore.c */
uint16_t tc_gcd(uint16_t a, uint16_t b);
void tc_open_reset(struct tc_node *n);
void tc_merge_extent(struct tc_node *n, const struct tc_nbr *nb);
bool tc_trusted(const struct tc_node *n, uint8_t p);
bool tc_ring_refuted(struct tc_node *n, unsigned int k, uint16_t g);
uint32_t tc_miswired_hold(const struct tc_node *n, const struct tc_nbr *nb);

/* tcore_epoch.c */
bool tc_epoch_current(const struct tc_node *n, const struct tc_nbr *nb,
		      unsigned int k);
bool tc_ring_settled_both(const struct tc_node *n, const struct tc_nbr *nb,
			  unsigned int k);
bool tc_epoch_source(const struct tc_node *n, const struct tc_nbr *nb);
bool tc_nbr_vouches(const struct tc_node *n, unsigned int p, unsigned int k);
void tc_epoch_start(struct tc_node *n, unsigned int k);
void tc_epoch_follow(struct tc_node *n, unsigned int k,
		     const struct tc_nbr *nb);
void tc_epoch_enter(struct tc_node *n, unsigned int k, uint16_t epoch,
		    uint16_t gcd);
void tc_epoch_tick(struct tc_node *n);
bool tc_epoch_settled(const struct tc_node *n, unsigned int k);
bool tc_epoch_newcomer(const struct tc_node *n);

/* tcore_resume.c */
void tc_kview_tick(struct tc_node *n);

/* tcore_orient.c */
void tc_resolve_flat(struct tc_node *n, uint8_t port);
bool tc_square_backed(const struct tc_node *n, uint8_t port);
bool tc_map_injective(const struct tc_node *n, const uint8_t *map);
void tc_block_rx(struct tc_node *n, uint8_t port, const struct tw_msg *m);
void tc_block_tick(struct tc_node *n);
void tc_resolve_block(struct tc_node *n, uint8_t port);
void tc_put_block_tlvs(struct tc_node *n, struct tw_buf *b, uint8_t port);
void tc_block_sent(struct tc_node *n);
bool tc_block_cut_off(const struct tc_node *n);
bool tc_block_pending(const struct tc_node *n);
uint32_t tc_face_retry_in(const struct tc_node *n, uint8_t p);

#endif /* TORUS_TCORE_INT_H */
