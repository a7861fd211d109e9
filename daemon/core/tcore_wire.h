/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tcore wire format: control messages between neighbors.
 *
 * A message is a 2-byte header (magic 'T', version) followed by TLVs
 * (u8 type, u8 length, value; multi-byte fields big endian).  Unknown
 * TLV types are skipped, so later versions can add fields; a TLV of a
 * known type with a bad length makes the whole message invalid.
 */
#ifndef TORUS_TCORE_WIRE_H
#define TORUS_TCORE_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tcore.h"

#define TW_MAGIC	0x54	/* 'T' */
#define TW_VERSION	1
#define TW_MAX_FACE	16	/* face records or maps in one message */

enum tw_type {
	TW_ID = 1,	/* u64 sender id */
	TW_PORT,	/* u8 sender's port label */
	TW_NBRS,	/* n x {u8 label, u32 id hash}: sender's neighbors */
	TW_BLOCK,	/* u32 block id, u8 n, u8 coord[n] */
	TW_FRAME,	/* u64 leader, u8 flags, u8 n, u8 R[n], s16 coord[n] */
	TW_EXTENT,	/* u8 n, n x {u16 gcd, s16 min, s16 max} */
	TW_FACE,	/* block face record, see struct tw_face */
	TW_ORIENT,	/* u32 block, u8 normal, u8 n, u8 map[n] */
	TW_FAIL,	/* u32 block, u8 normal: face orientation failed */
	TW_OPEN,	/* u8 n, n x {s16 omin, omax, cmin, cmax}: open and
			 * closed ends, see struct tc_node */
	TW_EPOCH,	/* u8 n, n x u16 ring epoch, u8 current axes: see
			 * struct tc_node; absent means epoch 0, all current */
	TW_KVIEW,	/* u8 n, u8 lines counted from their start (struct
			 * tc_node's kview); absent means none */
	TW_TRUSTED,	/* u16 port labels whose cable the sender trusts
			 * (resolved, or square-backed, and not miswired);
			 * absent means all of TW_NBRS */
};

#define TW_FRAME_PLACED	0x01
#define TW_FRAME_JOINED	0x02	/* the sender has a resolved cable */
/* not placed, in a placed frame (a newcomer waiting for a survey) */
#define TW_FRAME_MEMBER	0x04

/* a cable on a block face: a (sender's block) -- a' (other block) */
struct tw_face {
	uint32_t block;			/* the other block's id */
	uint8_t normal;			/* a's port label */
	uint8_t peer_label;		/* a''s port label */
	uint8_t a[TC_MAX_AXES];		/* a's block coordinates (origin) */
	uint8_t b[TC_MAX_AXES];		/* a''s block coordinates */
};

struct tw_orient {
	uint32_t block;
	uint8_t normal;
	uint8_t fail;
	uint8_t map[TC_MAX_AXES];	/* local +axis -> other block's dir */
};

/* a decoded message; absent parts have their has_ flag clear */
struct tw_msg {
	uint64_t id;
	uint8_t port;
	bool has_id, has_port, has_nbrs, has_block, has_frame, has_extent;
	bool has_open, has_epoch, has_trusted;
	uint8_t nnbrs;
	uint8_t nbr_label[TC_MAX_PORTS];
	uint32_t nbr_hash[TC_MAX_PORTS];
	uint16_t trusted;	/* TW_TRUSTED */
	uint32_t block;
	uint8_t block_coord[TC_MAX_AXES];
	uint64_t leader;
	uint8_t frame_flags;
	uint8_t R[TC_MAX_AXES];
	int16_t coord[TC_MAX_AXES];
	uint16_t gcd[TC_MAX_AXES];
	int16_t cmin[TC_MAX_AXES];
	int16_t cmax[TC_MAX_AXES];
	int16_t omin[TC_MAX_AXES];
	int16_t omax[TC_MAX_AXES];
	int16_t clmin[TC_MAX_AXES];
	int16_t clmax[TC_MAX_AXES];
	uint16_t epoch[TC_MAX_AXES];
	uint8_t cur;
	uint8_t kview;
	uint8_t nface;
	struct tw_face face[TW_MAX_FACE];
	uint8_t norient;
	struct tw_orient orient[TW_MAX_FACE];
};

/* encoder state over a caller's buffer; overflow is sticky */
struct tw_buf {
	uint8_t *p;
	size_t len, cap;
	bool overflow;
};

void tw_init(struct tw_buf *b, uint8_t *mem, size_t cap);
void tw_put_id(struct tw_buf *b, uint64_t id);
void tw_put_port(struct tw_buf *b, uint8_t port);
void tw_put_nbrs(struct tw_buf *b, uint8_t n, const uint8_t *label,
		 const uint32_t *hash);
void tw_put_block(struct tw_buf *b, uint32_t block, uint8_t ndims,
		  const uint8_t *coord);
void tw_put_frame(struct tw_buf *b, uint64_t leader, uint8_t flags,
		  uint8_t ndims, const uint8_t *R, const int16_t *coord);
void tw_put_extent(struct tw_buf *b, uint8_t ndims, const uint16_t *gcd,
		   const int16_t *cmin, const int16_t *cmax);
void tw_put_open(struct tw_buf *b, uint8_t ndims, const int16_t *omin,
		 const int16_t *omax, const int16_t *clmin,
		 const int16_t *clmax);
void tw_put_epoch(struct tw_buf *b, uint8_t ndims, const uint16_t *epoch,
		  uint8_t cur);
void tw_put_trusted(struct tw_buf *b, uint16_t labels);
void tw_put_kview(struct tw_buf *b, uint8_t ndims, uint8_t kview);
void tw_put_face(struct tw_buf *b, uint8_t ndims, const struct tw_face *f);
void tw_put_orient(struct tw_buf *b, uint8_t ndims,
		   const struct tw_orient *o);

/* 0, or -EBADMSG; @ndims is the receiver's, per-axis TLVs must match */
int tw_decode(const uint8_t *msg, size_t len, uint8_t ndims,
	      struct tw_msg *m);

/*
 * Link-state message: its own first byte, so neither decoder mistakes
 * the other's messages.  Header: u8 magic 'L', u8 version, u8 ndims,
 * u8 nrec, u64 sender id, u64 sender's leader, u32 geometry (a hash of
 * the extents and wrap its coordinates are in: after a ring grew, a
 * node still in the old numbering must not feed one in the new); then
 * nrec records of {u8 coord[ndims], u32 seq, u16 mask}.  Sequence
 * numbers are compared as plain integers (no wrap-around): of two
 * versions of a record the higher number is the newer, always.  Zero
 * bytes may follow (Ethernet padding); anything else makes the message
 * invalid.  A message without records asks the receiver for its whole
 * database (a new adjacency).
 */
#define TW_LS_MAGIC	0x4c	/* 'L' */
#define TW_LS_VERSION	3
#define TW_LS_HDR	24
#define TW_LS_REC(nd)	((size_t)(nd) + 6)
/* records in the largest message: the most a decoder accepts */
#define TW_LS_MAX_RECS	((TC_MSG_MAX - TW_LS_HDR) / TW_LS_REC(1))

struct tw_ls_rec {
	uint8_t coord[TC_MAX_AXES];
	uint32_t seq;
	uint16_t mask;		/* bit per global direction: cable down */
};

struct tw_ls_msg {
	uint64_t id;
	uint64_t leader;
	uint32_t geom;
	uint16_t nrec;
	struct tw_ls_rec rec[TW_LS_MAX_RECS];
};

/* start a message in @b; false if @cap cannot hold the header */
bool tw_ls_init(struct tw_buf *b, uint8_t *mem, size_t cap, uint8_t ndims,
		uint64_t id, uint64_t leader, uint32_t geom);
/* the geometry tag of a frame's extents and wrap bits */
uint32_t tw_ls_geom(uint8_t ndims, const uint16_t *dims, uint8_t wrap);
/* append a record; false (and nothing written) when it does not fit */
bool tw_ls_put(struct tw_buf *b, uint8_t ndims, const struct tw_ls_rec *r);
/* records in the message being built */
unsigned int tw_ls_count(const struct tw_buf *b);
/*
 * 0, or -EBADMSG: wrong magic, version or ndims (the receiver's), more
 * than TW_LS_MAX_RECS records, a length that is not the
 * records', a zero id or leader, a coordinate not below @dims (NULL:
 * not checked) or a mask bit beyond 2 * ndims directions.
 */
int tw_ls_decode(const uint8_t *msg, size_t len, uint8_t ndims,
		 const uint16_t *dims, struct tw_ls_msg *m);

/* 32-bit mix of a node id, for neighbor-of-neighbor tables */
uint32_t tw_id_hash(uint64_t id);

#endif /* TORUS_TCORE_WIRE_H */
