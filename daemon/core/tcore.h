/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tcore: the sans-I/O protocol core of torusd and torus-sim.
 *
 * A node is a struct (its size depends only on the number of axes, so
 * memory per node is O(1)); inputs are control messages received on a
 * port, port carrier changes and clock ticks; outputs are messages to
 * send (through a callback) and a view of the node's state.  No sockets,
 * clocks, allocation or globals: torusd wraps it in an event loop,
 * torus-sim runs 65,536 of them in one process.
 *
 * Ports are named by their physical direction label (enum in
 * <linux/torus.h>: (axis << 1) | sign), at most one port per label.
 * Messages are the payload of a TORUS_T_CTRL frame: the harness adds
 * and strips the Ethernet and torus headers.
 */
#ifndef TORUS_TCORE_H
#define TORUS_TCORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/torus.h>

#define TC_MAX_AXES	TORUS_MAX_AXES
#define TC_MAX_PORTS	TORUS_MAX_DIRS
#define TC_MSG_MAX	600		/* largest message tc_tick() sends */
#define TC_MSGS_PER_TICK 10		/* per port: discovery, link state */
#define TC_REASON_LEN	64

enum tc_state {
	TC_DISCOVERING = TORUS_STATE_DISCOVERING,
	TC_ORIENTED = TORUS_STATE_ORIENTED,	/* in a frame, not yet final */
	TC_PLACED = TORUS_STATE_PLACED,		/* coordinates final */
	TC_FAILED = TORUS_STATE_FAILED,		/* see reason */
};

enum tc_role {
	TC_ROLE_NONE = TORUS_ROLE_NONE,
	TC_ROLE_LEADER = TORUS_ROLE_LEADER,
	TC_ROLE_FOLLOWER = TORUS_ROLE_FOLLOWER,
};

/**
 * struct tc_config - what a node knows before discovery
 * @id: unique 64-bit node id (0 is invalid)
 * @ndims: number of axes of the node's board (its port labels' axes)
 * @ports: bit per port label present on the board (cabled or not)
 * @block_mode: the node belongs to a block ("midplane") wired in one
 *	frame: blocks may be rotated against each other, nodes inside not
 * @block_id: the block's id (nonzero in block mode)
 * @block_coord: the node's coordinates inside its block
 * @block_dims: the block's extents
 * @hello_ticks: keepalive period of hellos (ticks)
 * @dead_ticks: a neighbor silent this long is dead
 * @quiet_ticks: K: a node in a frame whose state has not changed for K
 *	ticks is placed (choose K >= diameter bound + 1)
 * @orient_ticks: block mode: a face whose orientation map has not
 *	arrived this many ticks after it was seen fails (0: 2d+2, d the
 *	block diameter, as in the paper)
 * @ls_records: link state: records the database holds at most (0:
 *	TC_LS_RECORDS); a record beyond is refused and counted, see
 *	tc_ls_faults()
 * @ls_refresh_ticks: link state: a node re-floods its record this often
 *	(0: 64 hello periods)
 * @ls_max_age_ticks: link state: a record not refreshed for this long is
 *	dropped (0: three refresh periods and dead_ticks)
 * @ls_settle_ticks: link state: for this long after the node is placed in
 *	a frame only cables without carrier are reported down: a neighbor
 *	alive speaks within it (0: dead_ticks)
 */
struct tc_config {
	uint64_t id;
	uint8_t ndims;
	uint16_t ports;
	bool block_mode;
	uint32_t block_id;
	uint8_t block_coord[TC_MAX_AXES];
	uint16_t block_dims[TC_MAX_AXES];
	uint16_t hello_ticks;
	uint16_t dead_ticks;
	uint16_t quiet_ticks;
	uint16_t orient_ticks;
	uint32_t ls_records;
	uint16_t ls_refresh_ticks;
	uint16_t ls_max_age_ticks;
	uint16_t ls_settle_ticks;
};

/**
 * struct tc_output - where a node's messages go
 * @ctx: passed back to @send
 * @send: send @len bytes of @msg out of port @port; the buffer is only
 *	valid during the call
 */
struct tc_output {
	void *ctx;
	void (*send)(void *ctx, uint8_t port, const uint8_t *msg, size_t len);
};

/**
 * struct tc_view - a node's discovery result
 * @state: enum tc_state
 * @role: enum tc_role
 * @reason: why the node is unplaced or failed ("" otherwise)
 * @leader: the frame's leader id (0 if none yet)
 * @ndims: axes of the frame
 * @coord: coordinates, valid when placed, non-negative
 * @dims: extents, valid when placed
 * @wrap: bit per axis: ring (torus) rather than line (mesh)
 * @portmap: global direction -> local port label, TORUS_DIR_NONE when
 *	unmapped; valid from TC_ORIENTED on
 * @offset: displacement from the leader in its frame, before extents
 *	are known (Lemma 2 of the paper: final after distance-many rounds)
 * @miswired: bit per local port label whose cable contradicts the frame
 *	(squares disagree, or the node across is in our frame somewhere
 *	else than that port leads): left out of @portmap, so traffic is
 *	not forwarded through it
 * @generation: bumped whenever anything above changes
 */
struct tc_view {
	uint8_t state;
	uint8_t role;
	char reason[TC_REASON_LEN];
	uint64_t leader;
	uint8_t ndims;
	uint8_t coord[TC_MAX_AXES];
	uint16_t dims[TC_MAX_AXES];
	uint8_t wrap;
	uint8_t portmap[TC_MAX_PORTS];
	int16_t offset[TC_MAX_AXES];
	uint16_t miswired;
	uint32_t generation;
};

/* counters for the simulator's per-node cost figures */
struct tc_stats {
	uint64_t msgs_tx;
	uint64_t bytes_tx;
	uint64_t msgs_rx;
	uint64_t bytes_rx;
	uint64_t bad_rx;	/* malformed or unexpected messages dropped */
	uint64_t queue_drops;	/* block face records not forwarded: queue full */
	uint64_t oversize;	/* messages not sent: above TC_MSG_MAX */
	uint64_t refuted;	/* ring extents claimed that we could refute */
	uint64_t resurveys;	/* ring epochs started here (ring grew) */
	/* link state: sent apart from the discovery figures above (the
	 * received ones count in msgs_rx and bytes_rx) */
	uint64_t ls_msgs_tx;
	uint64_t ls_bytes_tx;
	uint64_t ls_bad_rx;	/* malformed: refused whole (-EBADMSG), also
				 * counted in bad_rx */
	uint64_t ls_foreign;	/* from a port with no adjacency: ignored */
	uint64_t ls_hearsay;	/* records about a node we are adjacent to,
				 * not from it: ignored */
	uint64_t ls_overflow;	/* records refused: the database was full */
	uint64_t ls_expired;	/* records aged out */
};

struct tc_node;

/*
 * Memory of a node: the core's own state (tc_core_size(), O(1) in the
 * fabric's size) and its link-state database (tc_ls_size(), sized by
 * @cfg->ls_records).  tc_node_size() is both, for one allocation.
 */
size_t tc_core_size(const struct tc_config *cfg);
size_t tc_ls_size(const struct tc_config *cfg);
size_t tc_node_size(const struct tc_config *cfg);
/*
 * 0, or -EINVAL for a bad configuration.  @n has tc_node_size() bytes:
 * the link-state database follows the core's state.
 */
int tc_node_init(struct tc_node *n, const struct tc_config *cfg,
		 const struct tc_output *out);
/*
 * The same with the link-state database apart: @n has tc_core_size()
 * bytes, @ls_mem (8-aligned) tc_ls_size() bytes, both the node's until
 * it is initialized again (NULL: as tc_node_init())
 */
int tc_node_init_ls(struct tc_node *n, const struct tc_config *cfg,
		    const struct tc_output *out, void *ls_mem);
/*
 * Ports start down: the harness reports each port's carrier after init.
 * @send may be called from tc_tick() only, at most TC_MSGS_PER_TICK
 * times per port and tick.
 */
/*
 * Resume a placement installed before (torusd restarted while the kernel
 * kept forwarding): @v's leader, ndims, coord, dims, wrap and portmap.
 * The node starts placed in that frame, so neither it nor its neighbors
 * move.  0, or -EINVAL if the placement does not fit this node.
 */
int tc_node_restore(struct tc_node *n, const struct tc_view *v);
/* carrier of a port changed */
void tc_port_state(struct tc_node *n, uint8_t port, bool up);
/* a message arrived on @port: 0, or -EBADMSG (counted, state unchanged) */
int tc_receive(struct tc_node *n, uint8_t port, const uint8_t *msg,
	       size_t len);
/* one clock tick: run the protocol, send what is due */
void tc_tick(struct tc_node *n);
void tc_view(const struct tc_node *n, struct tc_view *v);
/* the view's generation, without building the view */
uint32_t tc_generation(const struct tc_node *n);
void tc_get_stats(const struct tc_node *n, struct tc_stats *st);

/* ---- tcore_query.c: read-only queries for the harness ---- */

enum tc_nbr_status {
	TC_NBR_NONE,		/* nobody heard on the port (or dead) */
	TC_NBR_UNRESOLVED,	/* heard; the cable's axis map is unknown */
	TC_NBR_CONFLICT,	/* heard; its evidence contradicts itself */
	TC_NBR_RESOLVED,	/* heard; the cable's axis map is known */
};

/**
 * struct tc_nbr_info - what a node knows of the node across one port
 * @status: enum tc_nbr_status
 * @carrier: the port has carrier
 * @id: the neighbor's id (0 if none)
 * @peer_port: its label where the cable lands (TORUS_DIR_NONE if none)
 * @silent: ticks since its last message
 * @has_frame: it told us its frame: @placed, @leader and @offset valid
 * @placed: it is placed in that frame
 * @leader: its frame's leader
 * @offset: its displacement from that leader (compare with the view's
 *	offset when the leaders agree)
 * @miswired: the cable contradicted our frame while both ends were
 *	placed: it stays out of the port map (and is reported down in link
 *	state) until the far end has checked out for a quiet period (longer
 *	each time the same neighbor is caught again)
 */
struct tc_nbr_info {
	uint8_t status;
	bool carrier;
	uint64_t id;
	uint8_t peer_port;
	uint16_t silent;
	bool has_frame;
	bool placed;
	uint64_t leader;
	int16_t offset[TC_MAX_AXES];
	bool miswired;
};

void tc_nbr_info(const struct tc_node *n, uint8_t port,
		 struct tc_nbr_info *info);
/*
 * Ticks until the node next acts on time alone: k >= 1 means ticks 1 to
 * k - 1 from now only count (no message, no view change) as long as no
 * input arrives.  After any input (tc_receive(), tc_port_state()) the
 * harness ticks at its next tick, since the input may have left work
 * that the following tick does.  The harness still calls tc_tick() once
 * per elapsed tick (it may do so late, all at once): the counters must
 * advance.
 */
uint32_t tc_next_deadline(const struct tc_node *n);
/*
 * @ticks ticks with no input, fewer than tc_next_deadline() announced
 * (so the node only counts): its counters advance as that many
 * tc_tick() calls would advance them, in O(1).  A harness that sleeps
 * through quiet ticks calls this before the next input (tc_receive(),
 * tc_port_state()) or tick, so the node meets it at the right time.
 */
void tc_skip(struct tc_node *n, uint32_t ticks);
/*
 * A ring of the node's frame is being surveyed again (it grew): its
 * view still shows the place decided before, and will change.
 */
bool tc_surveying(const struct tc_node *n);

/* ---- tcore_ls.c: link state ---- */

/*
 * Every placed node floods a record of its cables that are down (no
 * carrier, neighbor silent, unplaced, in another frame or miswired):
 * (its coordinates, a sequence number, a bit per global direction).
 * Only faults are stored, so the database grows with the faults, not
 * with the fabric.  From it every node of the frame derives the same
 * cut cables and dead nodes.
 */
#define TC_LS_RECORDS	4096	/* default bound of the database */

/**
 * struct tc_ls_info - a node's link-state database
 * @active: placed: the database belongs to the frame below
 * @incomplete: a record was refused for want of room less than one
 *	maximum age ago: the fault set may lack faults
 * @generation: changes whenever the derived fault set may change
 * @nodes: frame nodes (entries of tc_ls_faults()'s arrays)
 * @records: records held (tombstones included)
 * @faults: records with a cable down
 * @capacity: records the database holds at most
 * @digest: order-independent hash of the (reporter, mask) pairs with a
 *	cable down: equal digests, equal fault sets
 * @settling: the frame began less than ls_settle_ticks ago: cables whose
 *	neighbor was not heard yet are not reported down, and the
 *	neighbors' databases may not have arrived
 */
struct tc_ls_info {
	bool active;
	bool incomplete;
	bool settling;
	uint32_t generation;
	uint32_t nodes;
	uint32_t records;
	uint32_t faults;
	uint32_t capacity;
	uint64_t digest;
};

void tc_ls_info(const struct tc_node *n, struct tc_ls_info *info);
uint32_t tc_ls_generation(const struct tc_node *n);
/*
 * The fault set, in caller-allocated arrays of info.nodes entries,
 * indexed by x + dims0 * (y + dims1 * (z ...)) of the view's extents:
 * @cut has the bit per global direction (TORUS_DIR) of each down cable
 * set on both of its ends; @dead is 1 for nodes not connected to this
 * one over the full torus/mesh minus the cut cables.  Returns the dead
 * count, -EAGAIN if the node is not placed, -ENOSPC (arrays filled) if
 * the database is incomplete.
 */
int tc_ls_faults(const struct tc_node *n, uint8_t *dead, uint16_t *cut);
/*
 * The record of the reporter at @coord (frame coordinates): 0 with its
 * @seq and @mask (0: a tombstone), or -ENOENT.
 */
int tc_ls_record(const struct tc_node *n, const uint8_t *coord,
		 uint32_t *seq, uint16_t *mask);
/* one record's share of tc_ls_info.digest (a sum over records) */
uint64_t tc_ls_record_hash(uint32_t node, uint16_t mask);

#endif /* TORUS_TCORE_H */
