// SPDX-License-Identifier: GPL-2.0
/*
 * DOWN frames of collectives (torus_coll.c has the engine's overview):
 * passed on to the children as they come, and a rendezvous broadcast's
 * chunks sent as far as the children's READY credits go.
 */
#include <linux/err.h>
#include <linux/skbuff.h>
#include <asm/unaligned.h>

#include "torus_priv.h"
#include "torus_coll.h"
#include "torus_coll_priv.h"

/* skb->cb of a chunk of a rendezvous broadcast (slot @down_q) */
struct coll_chunk {
	u32 first;
	u32 n;
};

#define COLL_CHUNK(skb)	((struct coll_chunk *)(skb)->cb)
static_assert(sizeof(struct coll_chunk) <= sizeof_field(struct sk_buff, cb));

/*
 * The elements of a frame (data at its collective header): in its own
 * buffer, or in the one buffer of its frag list that it shares with the
 * frames to the sender's other children (torus_coll_rx() takes no other
 * shape).
 */
const u8 *torus_coll_frame_elems(const struct sk_buff *skb, size_t *len)
{
	const struct sk_buff *elems = skb_shinfo(skb)->frag_list;

	if (!elems) {
		*len = skb->len - TORUS_COLL_HDR_LEN;
		return skb->data + TORUS_COLL_HDR_LEN;
	}
	*len = elems->len;
	return elems->data;
}

/* A reference to the elements of @in (data at its collective header). */
static struct sk_buff *coll_elems_ref(struct sk_buff *in)
{
	struct sk_buff *ref;

	if (skb_has_frag_list(in))
		return skb_clone(skb_shinfo(in)->frag_list, GFP_ATOMIC);
	ref = skb_clone(in, GFP_ATOMIC);
	if (ref)
		__skb_pull(ref, TORUS_COLL_HDR_LEN);
	return ref;
}

/*
 * One DOWN frame of elements [@first, @first + @n) to the child at @dir,
 * their encoding in @src's linear data from @off on: split when too
 * large for the child's port (it came by a port with larger frames),
 * copied when short, otherwise a reference to @src's buffer (a clone:
 * @src's own list pointers may be a queue's).
 * Return: the frames queued (1 or more), -ENOMEM or -EMSGSIZE.
 */
static int coll_down_frame(struct torus_coll_slot *s,
			   const struct torus_geom *g, u8 dir, u32 first,
			   u32 n, struct sk_buff *src, unsigned int off,
			   struct coll_out *out)
{
	unsigned int len = src->len - off, before;
	struct sk_buff *skb, *ref;
	int err;

	if (len > torus_coll_frame_room(s, dir)) {
		before = skb_queue_len(&out->frames);
		err = torus_coll_send_range(s, g, TORUS_COLL_DOWN, BIT(dir),
					    first, first + n, out);
		return err ?: skb_queue_len(&out->frames) - before;
	}
	if (len < TORUS_COLL_REF_MIN) {
		skb = torus_coll_frame_new(s, g, TORUS_COLL_DOWN, dir, first,
					   0, len);
		if (!skb)
			return -ENOMEM;
		skb_put_data(skb, src->data + off, len);
	} else {
		ref = skb_clone(src, GFP_ATOMIC);
		skb = ref ? torus_coll_frame_new(s, g, TORUS_COLL_DOWN, dir,
						 first, 0, 0) : NULL;
		if (!skb) {
			kfree_skb(ref);
			return -ENOMEM;
		}
		__skb_pull(ref, off);
		torus_coll_frame_attach(skb, ref);
	}
	torus_coll_frame_close(skb, n, &out->frames);
	return 1;
}

/*
 * Cut-through, as the patent pipelines a broadcast: a DOWN frame goes on
 * to every child as soon as it arrives, one hop further; nothing is
 * encoded again and a child need not wait for the whole message.  Large
 * elements go by reference, not copied: every frame of a broadcast's
 * tree shares the buffer its root filled (see torus_coll_send_range()).
 * @in: the frame, data at its collective header, its elements in its
 * own buffer or in the one buffer of its frag list (torus_coll_rx()
 * takes no other shape).  Return: 0 or -ENOMEM.
 */
int torus_coll_forward_down(struct torus_coll_slot *s,
			    const struct torus_geom *g,
			    struct sk_buff *in, struct coll_out *out)
{
	const struct torus_coll_hdr *ch = (const void *)in->data;
	struct sk_buff *src = skb_shinfo(in)->frag_list ?: in;
	unsigned int off = src == in ? TORUS_COLL_HDR_LEN : 0;
	u32 first = ntohl(ch->first), n = ntohl(ch->n);
	unsigned int dir;
	int err;

	for (dir = 0; dir < TORUS_MAX_DIRS; dir++) {
		if (!(s->children & BIT(dir)))
			continue;
		err = coll_down_frame(s, g, dir, first, n, src, off, out);
		if (err < 0)
			return err;
	}
	return 0;
}

/* Elements of a rendezvous broadcast this node holds: its root all. */
static u32 coll_rendezvous_have(const struct torus_coll_slot *s)
{
	return s->parent == TORUS_DIR_NONE ? s->count : s->down_got;
}

/*
 * The root's next chunk of the message: as many elements as a frame to
 * any of its children holds, encoded once for all of them.
 * Return: the chunk, queued, or NULL.
 */
static struct sk_buff *coll_root_chunk(struct torus_coll_slot *s)
{
	unsigned int room = TORUS_COLL_FRAME_MAX, used, dir;
	struct sk_buff *e;
	u32 n;

	for (dir = 0; dir < TORUS_MAX_DIRS; dir++)
		if (s->children & BIT(dir))
			room = min(room, torus_coll_frame_room(s, dir));
	room = torus_coll_range_room(s, false, s->count - s->encoded, room);
	e = torus_coll_payload_alloc(&room);
	if (!e)
		return NULL;
	n = torus_coll_encode_run(s, false, s->encoded, s->count,
				  skb_tail_pointer(e), room, &used);
	if (!n) {	/* cannot be: a broadcast's elements are 8 bytes */
		kfree_skb(e);
		return NULL;
	}
	skb_put(e, used);
	COLL_CHUNK(e)->first = s->encoded;
	COLL_CHUNK(e)->n = n;
	s->encoded += n;
	__skb_queue_tail(&s->down_q, e);
	return e;
}

/*
 * The chunk the child at @dir gets next: NULL when it has had all this
 * node holds, or an ERR_PTR when the root cannot encode the next one.
 */
static struct sk_buff *coll_next_chunk(struct torus_coll_slot *s, u8 dir)
{
	struct sk_buff *last = s->down_last[dir], *e;

	if (!last && !skb_queue_empty(&s->down_q))
		return skb_peek(&s->down_q);
	if (last && !skb_queue_is_last(&s->down_q, last))
		return last->next;
	if (s->parent != TORUS_DIR_NONE || s->encoded >= s->count)
		return NULL;
	e = coll_root_chunk(s);
	return e ?: ERR_PTR(-ENOMEM);
}

/* The child at @dir has been sent the whole message. */
bool torus_coll_child_has_all(const struct torus_coll_slot *s, u8 dir)
{
	const struct sk_buff *last = s->down_last[dir];

	if (coll_rendezvous_have(s) < s->count ||
	    (s->parent == TORUS_DIR_NONE && s->encoded < s->count))
		return false;
	return last && skb_queue_is_last(&s->down_q, last);
}

/*
 * The child at @dir is sent the chunks it has not had, as far as its
 * credit goes (each as coll_down_frame() sends it).
 * Return: 0, -ENOMEM or -EMSGSIZE.
 */
static int coll_rendezvous_push(struct torus_coll_slot *s,
				const struct torus_geom *g, u8 dir,
				struct coll_out *out)
{
	const struct coll_chunk *c;
	struct sk_buff *e;
	int sent;

	while (s->sent[dir] < s->credit[dir]) {
		e = coll_next_chunk(s, dir);
		if (IS_ERR_OR_NULL(e))
			return PTR_ERR_OR_ZERO(e);
		c = COLL_CHUNK(e);
		sent = coll_down_frame(s, g, dir, c->first, c->n, e, 0, out);
		if (sent < 0)
			return sent;
		s->sent[dir] += sent;
		s->down_last[dir] = e;
	}
	return 0;
}

/*
 * Every child that said READY is sent what it may have; the operation is
 * done when every child has said it and has been sent the whole message.
 * Fails the operation itself, as torus_coll_progress() does.
 */
void torus_coll_rendezvous_progress(struct torus_coll_slot *s,
				    const struct torus_geom *g,
				    struct coll_out *out)
{
	unsigned int dir;
	int err;

	if (s->parent == TORUS_DIR_NONE && !s->has_data) {
		/* no root in the tree */
		torus_coll_fail(s, -EHOSTUNREACH, g, TORUS_DIR_NONE, out);
		return;
	}
	for (dir = 0; dir < TORUS_MAX_DIRS; dir++) {
		if (!(s->ready & BIT(dir)))
			continue;
		err = coll_rendezvous_push(s, g, dir, out);
		if (err) {
			torus_coll_fail(s, err, g, TORUS_DIR_NONE, out);
			return;
		}
	}
	if (s->ready != s->children || coll_rendezvous_have(s) < s->count)
		return;
	for (dir = 0; dir < TORUS_MAX_DIRS; dir++)
		if (s->children & BIT(dir) && !torus_coll_child_has_all(s, dir))
			return;
	torus_coll_finish(s, 0, out);
}

/*
 * A child said READY: its result is posted, and it may be sent @n DOWN
 * frames beyond the @first it has received (0: no limit).  It gets what
 * this node holds, in the order this node got it (which elements it
 * holds is not tracked: frames may be reordered on some ports), then the
 * rest as it comes.  A READY from no child is stray; an old one gives no
 * credit.
 */
int torus_coll_child_ready(struct torus_coll_slot *s,
			   const struct torus_geom *g, u8 dir, u32 first,
			   u32 n, struct coll_out *out)
{
	u32 credit = n ? first + n : U32_MAX;

	if (!s->rendezvous || !(s->children & BIT(dir)))
		return 0;
	s->ready |= BIT(dir);
	s->credit[dir] = max(s->credit[dir], credit);
	if (!s->joining)
		torus_coll_rendezvous_progress(s, g, out);
	return 0;
}

/*
 * This node's result array is posted, or half its credit has come: tell
 * the parent, which sends a rendezvous broadcast's data only so far.
 * Return: 0 or -ENOMEM (the parent would never know: fail now rather
 * than at the timeout).
 */
int torus_coll_ready_send(struct torus_coll_slot *s,
			  const struct torus_geom *g, struct coll_out *out)
{
	struct sk_buff *skb;

	skb = torus_coll_frame_new(s, g, TORUS_COLL_READY, s->parent,
				   s->down_frames, 0, 0);
	if (!skb)
		return -ENOMEM;
	/* no more than are left: each frame has an element at least */
	torus_coll_frame_close(skb, min_t(u32, TORUS_COLL_CREDITS,
					  s->count - s->down_frames),
			       &out->frames);
	s->credited = s->down_frames;
	return 0;
}

/*
 * A DOWN frame of a rendezvous broadcast, its elements taken: kept by
 * reference for the children, who are sent it as their credit allows;
 * the parent is given more credit once half of the last came.
 * Return: 0 or -ENOMEM.
 */
int torus_coll_rendezvous_take(struct torus_coll_slot *s,
			       const struct torus_geom *g, struct sk_buff *in,
			       struct coll_out *out)
{
	const struct torus_coll_hdr *ch = (const void *)in->data;
	struct sk_buff *e;
	int err;

	s->down_frames++;
	if (s->children) {
		e = coll_elems_ref(in);
		if (!e)
			return -ENOMEM;
		COLL_CHUNK(e)->first = ntohl(ch->first);
		COLL_CHUNK(e)->n = ntohl(ch->n);
		__skb_queue_tail(&s->down_q, e);
	}
	if (s->down_got < s->count &&
	    s->down_frames - s->credited >= TORUS_COLL_CREDITS / 2) {
		err = torus_coll_ready_send(s, g, out);
		if (err)
			return err;
	}
	torus_coll_rendezvous_progress(s, g, out);
	return 0;
}

/* The direction, or a node-list group's edge, a frame came by. */
u8 torus_coll_in_edge(const struct torus_coll_slot *s,
		      const struct sk_buff *skb)
{
	if (s->list)
		return torus_coll_list_edge(s, COLL_CB(skb)->rank);
	return COLL_CB(skb)->dir;
}

/*
 * The result's elements [@first, @first + @n) from a DOWN frame's @p
 * (checked to hold them): into the result array, which may be the
 * caller's own pages (placement; never those of a root's data, which are
 * only read: a node that has a broadcast's data takes none).  The loop
 * without ranks is the broadcast's, so it is kept apart and tight.
 */
void torus_coll_take_down(struct torus_coll_slot *s, u32 first, u32 n,
			  const u8 *p)
{
	u64 *vals = s->vals + first;
	u32 *locs = s->locs;
	u32 i;

	if (!locs) {
		for (i = 0; i < n; i++)
			vals[i] = get_unaligned_be64(p + i * sizeof(__be64));
		return;
	}
	for (i = 0; i < n; i++, p += sizeof(__be64) + sizeof(__be32)) {
		vals[i] = get_unaligned_be64(p);
		locs[first + i] = get_unaligned_be32(p + sizeof(__be64));
	}
}

/*
 * A DOWN frame a joined operation takes: from its parent once it waits
 * for the result, and a range it has not had in full (a frame of no
 * elements only for an operation of none, as a barrier's).  Frames may
 * come out of order, so what is counted is how many elements came: a
 * parent can never make a node keep or pass on more than the message.
 */
bool torus_coll_down_wanted(const struct torus_coll_slot *s, u8 in_dir,
			    u32 n)
{
	if (s->state != TORUS_COLL_UP_SENT || in_dir != s->parent)
		return false;
	if (!s->count)
		return !n && !s->down_got;
	return n && n <= s->count - s->down_got;
}
