// SPDX-License-Identifier: GPL-2.0
/*
 * Collective frames built, encoded and sent (torus_coll.c has the
 * engine's overview): to a neighbour, or routed to a node-list
 * member; one buffer each, or elements shared by several.
 */
#include <linux/netdevice.h>
#include <linux/rcupdate.h>
#include <linux/skbuff.h>
#include <asm/unaligned.h>

#include "torus_priv.h"
#include "torus_coll.h"
#include "torus_coll_priv.h"

/* The neighbour's coordinates in @dir (the frame's destination). */
void torus_coll_neighbor(const struct torus_geom *g, u8 dir, u8 *out)
{
	unsigned int axis = TORUS_DIR_AXIS(dir);

	memcpy(out, g->coord, TORUS_MAX_AXES);
	if (TORUS_DIR_NEG(dir))
		out[axis] = out[axis] ? out[axis] - 1 : g->dims[axis] - 1;
	else
		out[axis] = out[axis] + 1 < g->dims[axis] ? out[axis] + 1 : 0;
}

/*
 * Bytes of elements per frame to the neighbour in @dir.  A torport
 * cable carries a collective frame of up to TORUS_COLL_FRAME_MAX bytes
 * whatever its MTU, as it carries a GSO packet whole (torus_port.c):
 * the frames of a message are few, and so is the work per frame at each
 * hop.  Other ports get as many as their MTU allows, never less than a
 * standard frame's (a smaller MTU drops collective frames, see the
 * README).  Under rcu_read_lock().
 */
static unsigned int coll_port_room(const struct torus_coll *coll,
				   const struct torus_port *port)
{
	unsigned int mtu;

	if (port && netif_is_torport(port->dev))
		return TORUS_COLL_FRAME_MAX;
	mtu = READ_ONCE((port ? port->dev : coll->node->dev)->mtu);
	return clamp_t(unsigned int, mtu - TORUS_HDR_LEN - TORUS_COLL_HDR_LEN,
		       TORUS_COLL_FRAME_ROOM, TORUS_COLL_FRAME_MAX);
}

/*
 * A node-list group's frames are routed, over ports this node does not
 * know beyond its own: they get the room of the smallest of these (the
 * fabric's cables are taken to be alike).
 */
unsigned int torus_coll_frame_room(const struct torus_coll_slot *s, u8 dir)
{
	const struct torus_fib *fib = rcu_dereference(s->coll->node->fib);
	unsigned int room = TORUS_COLL_FRAME_MAX, d;

	if (!s->list)
		return coll_port_room(s->coll, fib && dir < TORUS_MAX_DIRS ?
					       fib->map[dir] : NULL);
	for (d = 0; fib && d < 2 * fib->geom.ndims; d++)
		if (fib->map[d])
			room = min(room, coll_port_room(s->coll, fib->map[d]));
	return room;
}

/*
 * A frame by @dir with its fabric header and room for @len bytes more:
 * to the neighbour there (one hop: the neighbour consumes it), or in a
 * node-list group to the member at that edge (routed).
 */
static struct sk_buff *coll_skb_to(const struct torus_coll_slot *s,
				   const struct torus_geom *g, u8 dir,
				   unsigned int len)
{
	u8 dst[TORUS_MAX_AXES], hops = 1;
	const struct torus_fib *fib;
	struct sk_buff *skb;

	/* a large frame that cannot be had now is no warning: see callers */
	skb = alloc_skb(LL_MAX_HEADER + TORUS_HDR_LEN + len, GFP_ATOMIC |
			(len > TORUS_COLL_HDR_LEN + TORUS_COLL_FRAME_ROOM ?
			 __GFP_NOWARN : 0));
	if (!skb)
		return NULL;
	skb_reserve(skb, LL_MAX_HEADER);
	if (s->list) {
		torus_coll_rank_coord(g, s->edge[dir], dst);
		fib = rcu_dereference(s->coll->node->fib);
		hops = fib && fib->hop_limit ? fib->hop_limit :
					       TORUS_HOP_LIMIT_DEFAULT;
	} else {
		torus_coll_neighbor(g, dir, dst);
	}
	torus_hdr_init(skb_put(skb, TORUS_HDR_LEN), TORUS_T_COLL, 0,
		       g->coord, dst, hops);
	COLL_CB(skb)->dir = dir;
	COLL_CB(skb)->routed = s->list;
	return skb;
}

struct sk_buff *torus_coll_frame_new(const struct torus_coll_slot *s,
				     const struct torus_geom *g, u8 phase,
				     u8 dir, u32 first, u8 flags,
				     unsigned int room)
{
	struct torus_coll_hdr *ch;
	struct sk_buff *skb;

	skb = coll_skb_to(s, g, dir, TORUS_COLL_HDR_LEN + room);
	if (!skb)
		return NULL;
	ch = skb_put_zero(skb, TORUS_COLL_HDR_LEN);
	ch->phase = phase;
	ch->kind = s->kind;
	ch->type = s->type;
	ch->op = s->op;
	ch->flags = flags;
	ch->group = htons(s->group);
	ch->seq = htonl(s->seq);
	ch->count = htonl(s->count);
	ch->first = htonl(first);
	return skb;
}

void torus_coll_frame_close(struct sk_buff *skb, u32 n,
			    struct sk_buff_head *list)
{
	struct torus_coll_hdr *ch;

	ch = (struct torus_coll_hdr *)(skb->data + TORUS_HDR_LEN);
	ch->n = htonl(n);
	__skb_queue_tail(list, skb);
}

/*
 * Fail the operation here and tell the neighbours on the tree (but the
 * one at @skip) so that they fail it too at once, not at their timeout;
 * on the whole fabric every neighbour, whatever tree it joined on (the
 * nodes change trees one after the other), and each passes it on once.
 * @g, the geometry of the node's fib, may be NULL (the node is going
 * away): nobody is told.  Under rcu_read_lock().
 */
void torus_coll_fail(struct torus_coll_slot *s, int err,
		     const struct torus_geom *g, u8 skip,
		     struct coll_out *out)
{
	const struct torus_fib *fib = rcu_dereference(s->coll->node->fib);
	struct sk_buff *skb;
	unsigned int dir;
	u32 tell;

	if (g && (s->state == TORUS_COLL_JOINED ||
		  s->state == TORUS_COLL_UP_SENT)) {
		tell = s->children;
		if (s->parent != TORUS_DIR_NONE)
			tell |= BIT(s->parent);
		/* the live cables of the fib @g is from, and no other's */
		if (!s->group && fib && &fib->geom == g)
			tell |= torus_fib_usable(fib);
		for (dir = 0; dir < TORUS_MAX_DIRS; dir++) {
			if (!(tell & BIT(dir)) || dir == skip)
				continue;
			skb = torus_coll_frame_new(s, g, TORUS_COLL_ABORT,
						   dir, 0, 0, 0);
			if (skb)
				torus_coll_frame_close(skb, 0, &out->frames);
		}
	}
	torus_coll_finish(s, err, out);
}

/*
 * One element on the wire: in UP frames of float sums and products the
 * exact partial result, else the big-endian value, followed by the
 * big-endian rank for minloc and maxloc.  Return: bytes, 0 if @room is
 * too small.
 */
static size_t coll_encode(const struct torus_coll_slot *s, bool up, u32 i,
			  u8 *p, unsigned int room)
{
	if (up && s->acc)
		return torus_xacc_encode(&s->acc[i], p, room);
	if (up && s->prod)
		return torus_xprod_encode(&s->prod[i], p, room);
	if (room < sizeof(__be64) + (s->locs ? sizeof(__be32) : 0))
		return 0;
	put_unaligned_be64(s->vals[i], p);
	if (!s->locs)
		return sizeof(__be64);
	put_unaligned_be32(s->locs[i], p + sizeof(__be64));
	return sizeof(__be64) + sizeof(__be32);
}

/* Combine one received UP element into element @i.  Return: bytes
 * used, 0 if malformed.
 */
size_t torus_coll_decode_merge(struct torus_coll_slot *s, u32 i,
			       const u8 *p, size_t left)
{
	u64 v;

	if (s->acc)
		return torus_xacc_decode_merge(&s->acc[i], p, left);
	if (s->prod)
		return torus_xprod_decode_merge(&s->prod[i], p, left);
	if (left < sizeof(__be64) + (s->locs ? sizeof(__be32) : 0))
		return 0;
	v = get_unaligned_be64(p);
	if (s->kind == TORUS_COLL_BCAST) {
		s->vals[i] = v;
		return sizeof(__be64);
	}
	if (!s->locs) {
		s->vals[i] = torus_coll_combine(s->type, s->op, s->vals[i],
						torus_coll_prepare(s->type,
								   s->op, v));
		return sizeof(__be64);
	}
	s->vals[i] = torus_coll_combine_loc(s->type, s->op, s->vals[i],
					    s->locs[i], v,
					    get_unaligned_be32(p + 8),
					    &s->locs[i]);
	return sizeof(__be64) + sizeof(__be32);
}

/*
 * A frame for elements from @first with room for *@room bytes of them;
 * if a large one cannot be had now, a standard one (*@room shrinks).
 */
static struct sk_buff *coll_frame_alloc(const struct torus_coll_slot *s,
					const struct torus_geom *g, u8 phase,
					u8 dir, u32 first, unsigned int *room)
{
	struct sk_buff *skb = torus_coll_frame_new(s, g, phase, dir, first, 0,
					     *room);

	if (!skb && *room > TORUS_COLL_FRAME_ROOM) {
		*room = TORUS_COLL_FRAME_ROOM;
		skb = torus_coll_frame_new(s, g, phase, dir, first, 0, *room);
	}
	return skb;
}

/*
 * Room for @n elements at most, within @max_room: a frame is allocated
 * no larger than its elements need (a barrier's or a short vector's
 * takes a small buffer, not a 16 KiB one that the kernel zeroes).
 */
unsigned int torus_coll_range_room(const struct torus_coll_slot *s,
				   bool up, u32 n, unsigned int max_room)
{
	size_t each = sizeof(__be64) + (s->locs ? sizeof(__be32) : 0);

	if (up && s->acc)
		each = TORUS_XACC_WIRE_MAX;
	else if (up && s->prod)
		each = TORUS_XPROD_WIRE_MAX;
	return min_t(size_t, max_room, (size_t)n * each);
}

/*
 * Elements from @from (before @to) encoded at @p, as many as @room
 * holds.  Return: how many; *@used: their bytes.
 */
u32 torus_coll_encode_run(const struct torus_coll_slot *s, bool up,
			  u32 from, u32 to, u8 *p, unsigned int room,
			  unsigned int *used)
{
	u32 i, n;

	*used = 0;
	if (!(up && (s->acc || s->prod)) && !s->locs) {
		/* plain 8-byte values: one tight loop, the broadcast's */
		n = min_t(u32, to - from, room / sizeof(__be64));
		for (i = 0; i < n; i++)
			put_unaligned_be64(s->vals[from + i],
					   p + i * sizeof(__be64));
		*used = n * sizeof(__be64);
		return n;
	}
	for (i = from; i < to; i++) {
		size_t len = coll_encode(s, up, i, p + *used, room - *used);

		if (!len)
			break;
		*used += len;
	}
	return i - from;
}

/*
 * A frame's elements alone, no headers: one buffer that the frames to
 * several children share (torus_coll_frame_attach()).  If a large one cannot
 * be had now, a standard one (*@room shrinks).
 */
struct sk_buff *torus_coll_payload_alloc(unsigned int *room)
{
	struct sk_buff *skb = alloc_skb(*room, GFP_ATOMIC | __GFP_NOWARN);

	if (!skb && *room > TORUS_COLL_FRAME_ROOM) {
		*room = TORUS_COLL_FRAME_ROOM;
		skb = alloc_skb(*room, GFP_ATOMIC);
	}
	return skb;
}

/*
 * @payload (elements only) becomes the rest of the frame @skb, which
 * holds the headers: a reference, not a copy (the frag list).
 */
void torus_coll_frame_attach(struct sk_buff *skb, struct sk_buff *payload)
{
	skb_shinfo(skb)->frag_list = payload;
	skb->len += payload->len;
	skb->data_len += payload->len;
	skb->truesize += payload->truesize;
}

/* Frames by @dirs, each with the headers its own and @payload shared. */
static int coll_frames_share(struct torus_coll_slot *s,
			     const struct torus_geom *g, u8 phase, u32 dirs,
			     u32 first, u32 n, struct sk_buff *payload,
			     struct coll_out *out)
{
	struct sk_buff *skb, *ref;
	unsigned int dir;

	for (dir = 0; dir < TORUS_MAX_DIRS; dir++) {
		if (!(dirs & BIT(dir)))
			continue;
		dirs &= ~BIT(dir);
		ref = dirs ? skb_clone(payload, GFP_ATOMIC) : payload;
		skb = ref ? torus_coll_frame_new(s, g, phase, dir, first, 0,
						 0) : NULL;
		if (!skb) {
			kfree_skb(ref);
			if (ref != payload)
				kfree_skb(payload);
			return -ENOMEM;
		}
		torus_coll_frame_attach(skb, ref);
		torus_coll_frame_close(skb, n, &out->frames);
	}
	return 0;
}

/*
 * The frames of elements [@from, @to) to the neighbours in @dirs, as
 * many per frame as fit in @max_room.  To one neighbour a frame is one
 * buffer; to several the elements are encoded once and the frames share
 * them.  Return: 0, -ENOMEM or -EMSGSIZE.
 */
static int coll_send_frames(struct torus_coll_slot *s,
			    const struct torus_geom *g, u8 phase, u32 dirs,
			    u32 from, u32 to, unsigned int max_room,
			    struct coll_out *out)
{
	bool up = phase == TORUS_COLL_UP, shared = hweight32(dirs) > 1;
	unsigned int cap, used;
	struct sk_buff *skb;
	u32 n;
	int err;

	do {	/* one frame at least: a barrier's has no elements */
		cap = torus_coll_range_room(s, up, to - from, max_room);
		if (shared)
			skb = torus_coll_payload_alloc(&cap);
		else
			skb = coll_frame_alloc(s, g, phase, __ffs(dirs), from,
					       &cap);
		if (!skb)
			return -ENOMEM;
		n = torus_coll_encode_run(s, up, from, to,
					  skb_tail_pointer(skb), cap, &used);
		if (!n && from < to) {
			kfree_skb(skb);	/* an element larger than a frame */
			return -EMSGSIZE;
		}
		skb_put(skb, used);
		if (shared) {
			err = coll_frames_share(s, g, phase, dirs, from, n, skb,
						out);
			if (err)
				return err;
		} else {
			torus_coll_frame_close(skb, n, &out->frames);
		}
		from += n;
	} while (from < to);
	return 0;
}

/*
 * Elements [@from, @to) to the neighbours in @dirs (none: nothing).  A
 * short message goes in a buffer per neighbour, cheaper than sharing.
 * Return: 0, -ENOMEM or -EMSGSIZE.
 */
int torus_coll_send_range(struct torus_coll_slot *s,
			  const struct torus_geom *g, u8 phase, u32 dirs,
			  u32 from, u32 to, struct coll_out *out)
{
	unsigned int max_room = TORUS_COLL_FRAME_MAX, dir;
	bool up = phase == TORUS_COLL_UP;
	int err;

	for (dir = 0; dir < TORUS_MAX_DIRS; dir++)
		if (dirs & BIT(dir))
			max_room = min(max_room, torus_coll_frame_room(s, dir));
	if (hweight32(dirs) < 2 ||
	    torus_coll_range_room(s, up, to - from, max_room) >=
	    TORUS_COLL_REF_MIN)
		return dirs ? coll_send_frames(s, g, phase, dirs, from, to,
					       max_room, out) : 0;
	for (dir = 0; dir < TORUS_MAX_DIRS; dir++) {
		if (!(dirs & BIT(dir)))
			continue;
		err = coll_send_frames(s, g, phase, BIT(dir), from, to,
				       max_room, out);
		if (err)
			return err;
	}
	return 0;
}

/* The whole message to the neighbours in @dirs.  Return: 0 or -errno. */
static int coll_send(struct torus_coll_slot *s, const struct torus_geom *g,
		     u8 phase, u32 dirs, struct coll_out *out)
{
	struct sk_buff *skb;

	if (phase == TORUS_COLL_UP && s->kind == TORUS_COLL_BCAST &&
	    !s->has_data) {
		/* nothing from this subtree: say so in one frame */
		skb = torus_coll_frame_new(s, g, phase, __ffs(dirs), 0,
					   TORUS_COLL_F_EMPTY, 0);
		if (!skb)
			return -ENOMEM;
		torus_coll_frame_close(skb, s->count, &out->frames);
		return 0;
	}
	return torus_coll_send_range(s, g, phase, dirs, 0, s->count, out);
}

/* The operation may move on: send up, or at the root turn around. */
void torus_coll_progress(struct torus_coll_slot *s,
			 const struct torus_geom *g, struct coll_out *out)
{
	u32 i;
	int err;

	if (s->state != TORUS_COLL_JOINED || s->pending)
		return;
	if (s->parent != TORUS_DIR_NONE) {
		err = coll_send(s, g, TORUS_COLL_UP, BIT(s->parent), out);
		if (err)
			torus_coll_fail(s, err, g, TORUS_DIR_NONE, out);
		else
			s->state = TORUS_COLL_UP_SENT;
		return;
	}
	/* the root: the result */
	if (s->kind == TORUS_COLL_BCAST && !s->has_data) {
		/* no root in the tree */
		torus_coll_fail(s, -EHOSTUNREACH, g, TORUS_DIR_NONE, out);
		return;
	}
	for (i = 0; i < s->count && torus_coll_kind_reduces(s->kind); i++) {
		err = torus_coll_finalize(s->type, s->op, s->vals[i],
					  s->acc ? &s->acc[i] : NULL,
					  s->prod ? &s->prod[i] : NULL,
					  &s->vals[i]);
		if (err) {
			torus_coll_fail(s, err, g, TORUS_DIR_NONE, out);
			return;
		}
	}
	err = coll_send(s, g, TORUS_COLL_DOWN, s->children, out);
	if (err) {
		torus_coll_fail(s, err, g, TORUS_DIR_NONE, out);
		return;
	}
	torus_coll_finish(s, 0, out);
}
