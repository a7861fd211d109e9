/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The collectives engine's own declarations, shared by its files and
 * no others: slots, answers, apply, tree and join (torus_coll.c), the
 * reduction arithmetic (torus_coll_math.c), frames built and sent
 * (torus_coll_frame.c), the rendezvous broadcast (torus_coll_bcast.c)
 * and frames received (torus_coll_rx.c).
 */
#ifndef _TORUS_COLL_PRIV_H
#define _TORUS_COLL_PRIV_H

#include <linux/skbuff.h>

#include "torus_priv.h"
#include "torus_coll.h"

/**
 * struct coll_out - work found under the lock, done after it
 * @frames: frames to send, global direction in cb[0]
 * @replies: answers to requesters, allocated at their join, struct
 *	coll_answer_cb in cb: filled after the lock
 * @trash: arrays of finished operations, freed outside the lock (at most
 *	four an operation, and every slot may end under one lock)
 * @ntrash: entries in @trash
 */
struct coll_out {
	struct sk_buff_head frames;
	struct sk_buff_head replies;
	void *trash[4 * TORUS_COLL_SLOTS];
	unsigned int ntrash;
};

/*
 * skb->cb of a collective frame: on the way out the direction or edge it
 * leaves by, and whether it is routed (a node-list group's); on the way
 * in the direction it came from and its sender's rank
 */
struct coll_cb {
	u8 dir;
	bool routed;
	u32 rank;
};

#define COLL_CB(skb)	((struct coll_cb *)(skb)->cb)
static_assert(sizeof(struct coll_cb) <= sizeof_field(struct sk_buff, cb));

/* torus_coll_math.c */
bool torus_coll_kind_reduces(u8 kind);
bool torus_coll_uses_xacc(u8 kind, u8 type, u8 op);
bool torus_coll_uses_xprod(u8 kind, u8 type, u8 op);

/* torus_coll.c */
void torus_coll_out_init(struct coll_out *out);
void torus_coll_out_flush(struct torus_node *node, struct coll_out *out);
void torus_coll_finish(struct torus_coll_slot *s, int err,
		       struct coll_out *out);
struct torus_coll_slot *torus_coll_find(struct torus_coll *coll, u16 group,
					u32 seq);
struct torus_coll_slot *torus_coll_alloc(struct torus_coll *coll, u16 group,
					 u32 seq, unsigned int ms);
void torus_coll_apply_or_fail(struct torus_coll_slot *s,
			      const struct torus_geom *g,
			      struct torus_port *port,
			      struct sk_buff *skb, struct coll_out *out);

/* torus_coll_frame.c */
void torus_coll_neighbor(const struct torus_geom *g, u8 dir, u8 *out);
unsigned int torus_coll_frame_room(const struct torus_coll_slot *s, u8 dir);
struct sk_buff *torus_coll_frame_new(const struct torus_coll_slot *s,
				     const struct torus_geom *g, u8 phase,
				     u8 dir, u32 first, u8 flags,
				     unsigned int room);
void torus_coll_frame_close(struct sk_buff *skb, u32 n,
			    struct sk_buff_head *list);
void torus_coll_fail(struct torus_coll_slot *s, int err,
		     const struct torus_geom *g, u8 skip,
		     struct coll_out *out);
size_t torus_coll_decode_merge(struct torus_coll_slot *s, u32 i,
			       const u8 *p, size_t left);
unsigned int torus_coll_range_room(const struct torus_coll_slot *s,
				   bool up, u32 n, unsigned int max_room);
u32 torus_coll_encode_run(const struct torus_coll_slot *s, bool up,
			  u32 from, u32 to, u8 *p, unsigned int room,
			  unsigned int *used);
struct sk_buff *torus_coll_payload_alloc(unsigned int *room);
void torus_coll_frame_attach(struct sk_buff *skb, struct sk_buff *payload);
int torus_coll_send_range(struct torus_coll_slot *s,
			  const struct torus_geom *g, u8 phase, u32 dirs,
			  u32 from, u32 to, struct coll_out *out);
void torus_coll_progress(struct torus_coll_slot *s,
			 const struct torus_geom *g, struct coll_out *out);

/* torus_coll_bcast.c */
const u8 *torus_coll_frame_elems(const struct sk_buff *skb, size_t *len);
int torus_coll_forward_down(struct torus_coll_slot *s,
			    const struct torus_geom *g,
			    struct sk_buff *in, struct coll_out *out);
bool torus_coll_child_has_all(const struct torus_coll_slot *s, u8 dir);
void torus_coll_rendezvous_progress(struct torus_coll_slot *s,
				    const struct torus_geom *g,
				    struct coll_out *out);
int torus_coll_child_ready(struct torus_coll_slot *s,
			   const struct torus_geom *g, u8 dir, u32 first,
			   u32 n, struct coll_out *out);
int torus_coll_ready_send(struct torus_coll_slot *s,
			  const struct torus_geom *g, struct coll_out *out);
int torus_coll_rendezvous_take(struct torus_coll_slot *s,
			       const struct torus_geom *g, struct sk_buff *in,
			       struct coll_out *out);
u8 torus_coll_in_edge(const struct torus_coll_slot *s,
		      const struct sk_buff *skb);
void torus_coll_take_down(struct torus_coll_slot *s, u32 first, u32 n,
			  const u8 *p);
bool torus_coll_down_wanted(const struct torus_coll_slot *s, u8 in_dir,
			    u32 n);

#endif /* _TORUS_COLL_PRIV_H */
