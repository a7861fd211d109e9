// SPDX-License-Identifier: GPL-2.0
/*
 * Collective frames received (torus_coll.c has the engine's overview):
 * the checks that need no operation state, frames kept for an
 * operation this node has not joined yet, the rest applied.
 */
#include <linux/rcupdate.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>

#include "torus_priv.h"
#include "torus_coll.h"
#include "torus_coll_priv.h"

/*
 * The number of the next operation this node joins in @group: NULL for a
 * node list it has not joined yet (or no longer numbers).
 */
static u32 *coll_next_seq(struct torus_coll *coll, u16 group)
{
	struct torus_coll_list *l;

	if (!(group & TORUS_COLL_GROUP_LIST))
		return &coll->next_seq[group];
	l = torus_coll_list_find(coll, group);
	return l ? &l->next_seq : NULL;
}

/* Checks of a received collective frame that need no operation state. */
static bool coll_frame_ok(const struct torus_hdr *h,
			  const struct torus_coll_hdr *ch,
			  const struct torus_geom *g)
{
	u32 count = ntohl(ch->count), first = ntohl(ch->first);
	u32 n = ntohl(ch->n);
	u16 group = ntohs(ch->group);

	if (h->version != TORUS_HDR_VERSION ||
	    memcmp(h->dst, g->coord, TORUS_MAX_AXES))
		return false;
	if (ch->phase < TORUS_COLL_UP || ch->phase > TORUS_COLL_READY ||
	    ch->kind > TORUS_COLL_KIND_MAX || ch->type > TORUS_COLL_TYPE_MAX ||
	    ch->op > TORUS_COLL_OP_MAX || ch->flags & ~TORUS_COLL_F_EMPTY ||
	    ch->reserved ||
	    (!(group & TORUS_COLL_GROUP_LIST) && group >> g->ndims))
		return false;
	if (count > (ch->kind == TORUS_COLL_BCAST ?
		     TORUS_COLL_PLACED_MAX_COUNT : TORUS_COLL_MAX_COUNT))
		return false;
	return first <= count && n <= count - first;
}

/*
 * The bytes of elements a frame may carry for what its header says, as
 * the sender encodes them: none in an abort, a READY or an empty UP; 8
 * per element (and a 4-byte rank for minloc and maxloc); an exact sum's
 * or product's partial results between their smallest and largest
 * encoding (the exact length is checked as they are decoded).
 */
static bool coll_frame_len_ok(const struct torus_coll_hdr *ch, size_t len)
{
	size_t n = ntohl(ch->n), each = sizeof(__be64);

	if (ch->phase == TORUS_COLL_ABORT || ch->phase == TORUS_COLL_READY ||
	    ch->flags & TORUS_COLL_F_EMPTY)
		return !len;
	if (torus_coll_kind_reduces(ch->kind) && torus_coll_op_has_loc(ch->op))
		each += sizeof(__be32);
	if (ch->phase == TORUS_COLL_UP &&
	    torus_coll_uses_xacc(ch->kind, ch->type, ch->op))
		return len >= n * TORUS_XACC_HEAD &&
		       len <= n * TORUS_XACC_WIRE_MAX;
	if (ch->phase == TORUS_COLL_UP &&
	    torus_coll_uses_xprod(ch->kind, ch->type, ch->op))
		return len >= n * TORUS_XPROD_HEAD &&
		       len <= n * TORUS_XPROD_WIRE_MAX;
	return len == n * each;
}

/*
 * A frame comes from whom it says: on the whole fabric and its axis
 * groups from the neighbour at the port it came by, in one hop; in a
 * node-list group (routed) from a member, whose edge of the tree is
 * checked when the frame is applied.
 */
static bool coll_frame_from_neighbor(const struct torus_hdr *h,
				     const struct torus_geom *g, u8 in_dir)
{
	u8 neighbor[TORUS_MAX_AXES];

	torus_coll_neighbor(g, in_dir, neighbor);
	return h->hop_limit == 1 &&
	       !memcmp(h->src, neighbor, TORUS_MAX_AXES);
}

/*
 * An operation this node has not joined may hold a slot only within the
 * window of those it can have in flight: the next TORUS_COLL_SLOTS of
 * its group (of a node list not numbered here, the first ones).
 */
static bool coll_seq_in_window(const u32 *next_seq, u32 seq)
{
	return seq - (next_seq ? *next_seq : 0) < TORUS_COLL_SLOTS;
}

/*
 * A frame (data at its torus header) the engine reads as it is: one
 * buffer, or its headers and one buffer of elements in its frag list,
 * as torus_coll_frame_attach() makes it.  Anything else is made one buffer.
 */
static bool coll_frame_shaped(const struct sk_buff *skb)
{
	const struct sk_buff *elems = skb_shinfo(skb)->frag_list;

	if (!skb_is_nonlinear(skb))
		return true;
	return skb_headlen(skb) == TORUS_HDR_LEN + TORUS_COLL_HDR_LEN &&
	       !skb_shinfo(skb)->nr_frags && elems && !elems->next &&
	       !skb_is_nonlinear(elems);
}

/**
 * torus_coll_rx - a collective frame arrived on a port (softirq, RCU)
 * @node: the port's node
 * @port: the port
 * @skb: the frame, data at the torus header; consumed
 */
void torus_coll_rx(struct torus_node *node, struct torus_port *port,
		   struct sk_buff *skb)
{
	struct torus_coll *coll = rcu_dereference(node->coll);
	const struct torus_coll_hdr *ch;
	const struct torus_fib *fib;
	struct torus_coll_slot *s;
	struct coll_out out;
	u8 in_dir, edge;
	u32 seq, *next_seq;
	u16 group;

	fib = rcu_dereference(node->fib);
	if (!coll || !fib || !fib->placed) {
		torus_coll_drop(node, port, skb, TORUS_DROP_NOT_PLACED);
		return;
	}
	if (skb->len < TORUS_HDR_LEN + TORUS_COLL_HDR_LEN ||
	    skb->len > TORUS_HDR_LEN + TORUS_COLL_HDR_LEN +
		       TORUS_COLL_FRAME_MAX ||
	    (!coll_frame_shaped(skb) && skb_linearize(skb)) ||
	    !coll_frame_ok((const void *)skb->data,
			   (const void *)(skb->data + TORUS_HDR_LEN),
			   &fib->geom) ||
	    !coll_frame_len_ok((const void *)(skb->data + TORUS_HDR_LEN),
			       skb->len - TORUS_HDR_LEN - TORUS_COLL_HDR_LEN)) {
		torus_coll_drop(node, port, skb, TORUS_DROP_MALFORMED);
		return;
	}
	in_dir = torus_port_global_dir(fib, port);
	if (in_dir == TORUS_DIR_NONE) {
		torus_coll_drop(node, port, skb, TORUS_DROP_NO_PORT);
		return;
	}
	ch = (const struct torus_coll_hdr *)(skb->data + TORUS_HDR_LEN);
	group = ntohs(ch->group);
	if (!(group & TORUS_COLL_GROUP_LIST) &&
	    !coll_frame_from_neighbor((const void *)skb->data, &fib->geom,
				      in_dir)) {
		torus_coll_drop(node, port, skb, TORUS_DROP_SPOOFED);
		return;
	}
	/* a node list's edges are known by the sender's rank */
	if (group & TORUS_COLL_GROUP_LIST)
		COLL_CB(skb)->rank =
			torus_coll_rank(&fib->geom,
					((struct torus_hdr *)skb->data)->src);
	__skb_pull(skb, TORUS_HDR_LEN);
	ch = (const struct torus_coll_hdr *)skb->data;
	seq = ntohl(ch->seq);
	COLL_CB(skb)->dir = in_dir;

	torus_coll_out_init(&out);
	spin_lock(&coll->lock);
	if (coll->dead)
		goto drop;
	s = torus_coll_find(coll, group, seq);
	if (!s) {
		/* a contribution, an abort or a rooted broadcast's data
		 * ahead of this node's own join (a DOWN frame of another
		 * kind is ignored at the join); a number behind is for an
		 * operation this node has finished or failed
		 */
		next_seq = coll_next_seq(coll, group);
		if (next_seq && (s32)(seq - *next_seq) < 0) {
			/* an abort of it: on the whole fabric, the echo
			 * of this node's own, or one that came round
			 */
			if (ch->phase == TORUS_COLL_ABORT)
				goto consume;
			goto drop;
		}
		if (!coll_seq_in_window(next_seq, seq))
			goto refuse;
		s = torus_coll_alloc(coll, group, seq, TORUS_COLL_EARLY_MS);
		if (!s)
			goto refuse;
	}
	if (ch->phase == TORUS_COLL_ABORT) {
		edge = s->state == TORUS_COLL_EARLY ?
		       TORUS_DIR_NONE : torus_coll_in_edge(s, skb);
		/* on the whole fabric, from any neighbour: it may have
		 * joined on another tree (a tree installed in between),
		 * and every member's failure fails the operation
		 */
		if (s->state == TORUS_COLL_EARLY) {
			s->aborted = true;
		} else if (edge != TORUS_DIR_NONE &&
			   (!s->group || edge == s->parent ||
			    s->children & BIT(edge))) {
			torus_coll_fail(s, -ECONNABORTED, &fib->geom, edge,
					&out);
		} else {
			goto drop;
		}
		consume_skb(skb);
	} else if (s->state == TORUS_COLL_EARLY) {
		if (skb_queue_len(&s->early) >= TORUS_COLL_EARLY_MAX ||
		    coll->early_bytes + skb->truesize > TORUS_COLL_EARLY_BYTES)
			goto refuse;
		coll->early_bytes += skb->truesize;
		__skb_queue_tail(&s->early, skb);
	} else {
		torus_coll_apply_or_fail(s, &fib->geom, port, skb, &out);
	}
	spin_unlock(&coll->lock);
	torus_coll_out_flush(node, &out);
	return;
consume:
	spin_unlock(&coll->lock);
	consume_skb(skb);
	return;
refuse:
	spin_unlock(&coll->lock);
	torus_coll_drop(node, port, skb, TORUS_DROP_COLL_REFUSED);
	return;
drop:
	spin_unlock(&coll->lock);
	torus_coll_drop(node, port, skb, TORUS_DROP_MALFORMED);
}
