/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tcore link state: internals shared by tcore.c and tcore_ls.c only.
 *
 * The database is an open-addressed table (linear probing) keyed by the
 * reporter's node index in the frame; a slot is 14 bytes (the record,
 * its aging epoch, its flooding state and a filter bit) so that 65,536
 * simulated nodes each holding some 12,000 records fit in memory.  The
 * slot order is the order records are flooded in: a layout other than
 * this one (hash, size, probing) changes what the simulator measures.
 */
#ifndef TORUS_TCORE_LS_H
#define TORUS_TCORE_LS_H

#include <stddef.h>
#include <stdint.h>

#include "tcore.h"

#define LS_EMPTY	UINT32_MAX	/* key of a free slot */
#define LS_PEND		0x80	/* meta: to flood at the next tick */
#define LS_SEEN		0x60	/* meta: a held key has its home here */
#define LS_FROM		0x1f	/* meta: port it arrived on ... */
#define LS_LOCAL	0x1f	/* ... or this node's own record */
#define LS_EPOCHS	16	/* aging epochs in one maximum age */
#define LS_BURST	8	/* link-state messages per port and tick */
#define LS_AHEAD	8	/* records fetched ahead of their use */

struct tc_ls_rec {
	uint32_t key;		/* reporter's node index, LS_EMPTY: free */
	uint32_t seq;		/* higher is newer: no wrap-around */
	uint16_t mask;		/* bit per global direction: cable down */
};

struct tc_ls {
	/* the frame the database belongs to: leader 0 while not placed */
	uint64_t leader;
	uint64_t digest;
	/*
	 * slots records, then per slot a u8 aging epoch of its update and a
	 * u8 LS_PEND | source port, then per port the u32 sync positions,
	 * u32 adjacency ids and u16 unready counts (accessors below)
	 */
	struct tc_ls_rec *rec;
	uint32_t slots;		/* table size: the bound plus slack */
	uint32_t count;		/* records held */
	uint32_t nfaults;	/* ... with a nonzero mask */
	uint32_t npend;		/* records with LS_PEND */
	uint32_t self;		/* this node's index */
	uint32_t sig;		/* ls_signature() when now_mask was made */
	uint32_t full_at;	/* tick a record was last refused */
	uint32_t generation;
	uint16_t dims[TC_MAX_AXES];
	uint32_t seq;		/* this node's last sequence number */
	uint16_t mask;		/* ... and the mask it last flooded */
	uint16_t now_mask;	/* the mask it sees now */
	uint16_t refresh_in;	/* ticks to the next refresh */
	uint16_t epoch_in;	/* ticks to the next aging epoch */
	uint16_t settle_in;	/* ticks left of the frame's ls_settle_ticks */
	uint16_t adj;		/* ports with an adjacency (same frame) */
	uint16_t sync;		/* ports owed the whole database */
	uint32_t geom;		/* tw_ls_geom() of dims and wrap */
	uint8_t wrap;
	uint8_t now_epoch;
	uint8_t nports;
	bool holding;		/* an unready neighbor is being held */
	bool unknown;		/* a cable's state waits for settling's end */
	bool force;		/* originate at the next tick, whatever */
	bool reassert;		/* flood our record again, as it is */
	bool was_full;
	uint32_t pend_from;	/* no slot below it has LS_PEND */
	/*
	 * A record about an adjacent node that a third party sent, newer
	 * than ours: not believed, but passed on to that node alone (at
	 * the next tick, out of @relay_port), which outbids it if it is
	 * made up.  The newest such claim waits; LS_LOCAL: none.
	 */
	uint32_t relay_seq;
	uint16_t relay_mask;
	uint8_t relay_port;
	/* struct tc_stats' ls_* counters */
	struct {
		uint64_t msgs_tx, bytes_tx, bad_rx, foreign, hearsay;
		uint64_t overflow, expired;
	} st;
};

static inline uint8_t *ls_epoch(const struct tc_ls *ls)
{
	return (uint8_t *)(ls->rec + ls->slots);
}

static inline uint8_t *ls_meta(const struct tc_ls *ls)
{
	return ls_epoch(ls) + ls->slots;
}

/* per port: the next slot of the database it is owed */
static inline uint32_t *ls_sync_pos(const struct tc_ls *ls)
{
	return (uint32_t *)(ls_epoch(ls) + ((2 * ls->slots + 3) & ~3u));
}

/* per port: tw_id_hash() of the neighbor of its adjacency */
static inline uint32_t *ls_adj_id(const struct tc_ls *ls)
{
	return ls_sync_pos(ls) + ls->nports;
}

/* per port: ticks its neighbor is alive but not placed with us */
static inline uint16_t *ls_unready(const struct tc_ls *ls)
{
	return (uint16_t *)(ls_adj_id(ls) + ls->nports);
}

struct tc_node;

/* the header and the table in @mem (tc_ls_size() bytes, 8-aligned);
 * cfg defaults set */
void tc_ls_init(struct tc_node *n, uint8_t *mem);
/* a link-state message (first byte TW_LS_MAGIC) arrived on @port */
int tc_ls_receive(struct tc_node *n, uint8_t port, const uint8_t *msg,
		  size_t len);
/* once per tick, after discovery: originate, age, flood */
void tc_ls_tick(struct tc_node *n);
uint32_t tc_ls_next_deadline(const struct tc_node *n);
/* tc_skip(): @ticks ticks before tc_ls_next_deadline() only count */
void tc_ls_skip(struct tc_node *n, uint32_t ticks);

#endif /* TORUS_TCORE_LS_H */
