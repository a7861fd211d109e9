// SPDX-License-Identifier: GPL-2.0
/*
 * Collectives executed by the fabric: barrier, allreduce and broadcast
 * over a combining tree (see the uapi header's DOC: collectives).
 *
 * A node joins an operation through generic netlink and gets its answer
 * later as a netlink message, so no handler ever sleeps waiting for the
 * fabric.  Everything else runs where frames arrive, in softirq: a
 * node's children send their contributions up (TORUS_COLL_UP), it
 * combines them with its own and sends the sum to its parent; the root
 * sends the result down (TORUS_COLL_DOWN) and every node passes it on
 * to its children and answers its caller.  Transit nodes need no user
 * process beyond the one that joined.  A broadcast that names its root
 * only comes down, from that root (see TORUS_COLL_EAGER_MAX for how).
 *
 * Operations are keyed by (group, sequence number); every node numbers
 * the operations it joins 0, 1, 2, ..., so all nodes must join the same
 * operations in the same order, as MPI requires.  Frames for an
 * operation this node has not joined yet are kept until it does.  Each
 * operation has a timer: when it fires, the caller gets ETIMEDOUT and
 * the operation is forgotten, so a dead member or a cut cable never
 * leaves anyone waiting, and the next operation starts clean.
 */
#include <linux/etherdevice.h>
#include <linux/jiffies.h>
#include <linux/netdevice.h>
#include <linux/rcupdate.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/rtnetlink.h>
#include <asm/unaligned.h>
#include <net/genetlink.h>

#include "torus_priv.h"
#include "torus_coll.h"
#include "torus_coll_tree.h"

static_assert(sizeof(struct torus_coll_hdr) == TORUS_COLL_HDR_LEN);

/* ---- reduction arithmetic ---- */

unsigned int torus_coll_type_size(u8 type)
{
	static const u8 size[] = {
		[TORUS_COLL_INT8] = 1, [TORUS_COLL_INT16] = 2,
		[TORUS_COLL_INT32] = 4, [TORUS_COLL_INT64] = 8,
		[TORUS_COLL_UINT8] = 1, [TORUS_COLL_UINT16] = 2,
		[TORUS_COLL_UINT32] = 4, [TORUS_COLL_UINT64] = 8,
		[TORUS_COLL_FLOAT] = 4, [TORUS_COLL_DOUBLE] = 8,
	};

	return type <= TORUS_COLL_TYPE_MAX ? size[type] : 0;
}

static bool coll_type_float(u8 type)
{
	return type == TORUS_COLL_FLOAT || type == TORUS_COLL_DOUBLE;
}

static bool coll_type_signed(u8 type)
{
	return type <= TORUS_COLL_INT64;
}

/* floats: every op but the bitwise ones; integers: every op */
bool torus_coll_op_valid(u8 type, u8 op)
{
	if (type > TORUS_COLL_TYPE_MAX || op > TORUS_COLL_OP_MAX)
		return false;
	if (coll_type_float(type))
		return op != TORUS_COLL_BAND && op != TORUS_COLL_BOR &&
		       op != TORUS_COLL_BXOR;
	return true;
}

static bool coll_op_logical(u8 op)
{
	return op == TORUS_COLL_LAND || op == TORUS_COLL_LOR ||
	       op == TORUS_COLL_LXOR;
}

/* minloc and maxloc carry a rank beside each value */
bool torus_coll_op_has_loc(u8 op)
{
	return op == TORUS_COLL_MINLOC || op == TORUS_COLL_MAXLOC;
}

static bool coll_kind_reduces(u8 kind)
{
	return kind == TORUS_COLL_ALLREDUCE || kind == TORUS_COLL_REDUCE;
}

/* an element in host order -> u64 (integers sign-extended) */
u64 torus_coll_load(u8 type, const void *p)
{
	switch (torus_coll_type_size(type)) {
	case 1:
		return coll_type_signed(type) ? (u64)(s64)*(const s8 *)p :
						*(const u8 *)p;
	case 2:
		return coll_type_signed(type) ?
		       (u64)(s64)get_unaligned((const s16 *)p) :
		       get_unaligned((const u16 *)p);
	case 4:
		return coll_type_signed(type) ?
		       (u64)(s64)get_unaligned((const s32 *)p) :
		       get_unaligned((const u32 *)p);
	default:
		return get_unaligned((const u64 *)p);
	}
}

void torus_coll_store(u8 type, u64 v, void *p)
{
	switch (torus_coll_type_size(type)) {
	case 1:
		*(u8 *)p = v;
		break;
	case 2:
		put_unaligned((u16)v, (u16 *)p);
		break;
	case 4:
		put_unaligned((u32)v, (u32 *)p);
		break;
	default:
		put_unaligned(v, (u64 *)p);
	}
}

/* Floats in a total order: -nan < -inf < ... < -0 < +0 < ... < +nan. */
static u64 coll_float_key(u64 bits, unsigned int width)
{
	u64 sign = 1ULL << (width - 1);
	u64 mask = width == 64 ? ~0ULL : (1ULL << width) - 1;

	return bits & sign ? ~bits & mask : bits | sign;
}

static bool coll_float_nan(u64 bits, unsigned int width)
{
	u64 sign = 1ULL << (width - 1);

	/* magnitude above inf's */
	return (bits & (sign - 1)) >
	       (width == 64 ? 0x7ff0000000000000ULL : 0x7f800000ULL);
}

/* min or max of two floats: any nan gives the canonical one */
static u64 coll_float_minmax(u8 type, bool max, u64 a, u64 b)
{
	unsigned int width = 8 * torus_coll_type_size(type);
	u64 ka, kb;

	if (coll_float_nan(a, width) || coll_float_nan(b, width))
		return width == 64 ? TORUS_XACC_NAN64 : TORUS_XACC_NAN32;
	ka = coll_float_key(a, width);
	kb = coll_float_key(b, width);
	return (max ? ka >= kb : ka <= kb) ? a : b;
}

/**
 * torus_coll_combine - reduce two elements
 * @type: enum torus_coll_type
 * @op: enum torus_coll_op, valid for @type (float sums go through
 *	struct torus_xacc instead)
 * @a: one element, as torus_coll_load() gives it
 * @b: the other
 *
 * Commutative and associative for every valid pair, so the tree's shape
 * and the order of arrival do not change the result.
 *
 * Return: the reduction, sign-extended for signed integer types.
 */
u64 torus_coll_combine(u8 type, u8 op, u64 a, u64 b)
{
	bool sgn = coll_type_signed(type);
	unsigned int bits = 8 * torus_coll_type_size(type);
	u64 r;

	if (coll_type_float(type) && !coll_op_logical(op))
		return coll_float_minmax(type, op == TORUS_COLL_MAX ||
					 op == TORUS_COLL_MAXLOC, a, b);
	switch (op) {
	case TORUS_COLL_SUM:
		r = a + b;
		break;
	case TORUS_COLL_PROD:
		r = a * b;
		break;
	case TORUS_COLL_MIN:
	case TORUS_COLL_MINLOC:
		return sgn ? ((s64)a < (s64)b ? a : b) : min(a, b);
	case TORUS_COLL_MAX:
	case TORUS_COLL_MAXLOC:
		return sgn ? ((s64)a > (s64)b ? a : b) : max(a, b);
	case TORUS_COLL_BAND:
		return a & b;
	case TORUS_COLL_BOR:
		return a | b;
	case TORUS_COLL_BXOR:
		return a ^ b;
	case TORUS_COLL_LAND:
		return a && b;
	case TORUS_COLL_LOR:
		return a || b;
	default:
		return !a != !b;
	}
	/* wrap to the type's width, as C does for unsigned arithmetic */
	if (bits < 64) {
		r &= (1ULL << bits) - 1;
		if (sgn && r >> (bits - 1))
			r |= ~0ULL << bits;
	}
	return r;
}

/**
 * torus_coll_combine_loc - reduce two (value, rank) pairs: minloc, maxloc
 * @type: enum torus_coll_type
 * @op: TORUS_COLL_MINLOC or TORUS_COLL_MAXLOC
 * @a: one value
 * @la: its rank
 * @b: the other value
 * @lb: its rank
 * @loc: the result's rank: the lowest rank holding the result (a nan
 *	result: the lowest rank holding a nan)
 *
 * Return: the value, as torus_coll_combine() gives it.
 */
u64 torus_coll_combine_loc(u8 type, u8 op, u64 a, u32 la, u64 b, u32 lb,
			   u32 *loc)
{
	u64 r = torus_coll_combine(type, op, a, b);

	if (coll_type_float(type)) {
		unsigned int width = 8 * torus_coll_type_size(type);
		bool na = coll_float_nan(a, width), nb = coll_float_nan(b, width);

		if (na || nb) {
			*loc = na && nb ? min(la, lb) : na ? la : lb;
			return r;
		}
	}
	if (r == a && r == b)
		*loc = min(la, lb);
	else
		*loc = r == a ? la : lb;
	return r;
}

/*
 * A node's own value as it enters the reduction: the logical ops see
 * zero or not (a float is zero when it is +0 or -0; a nan is not), so
 * their result is 0 or 1 even for one node.
 */
u64 torus_coll_prepare(u8 type, u8 op, u64 v)
{
	if (!coll_op_logical(op))
		return v;
	if (coll_type_float(type))
		return !!(v & ((1ULL << (8 * torus_coll_type_size(type) - 1)) -
			       1));
	return !!v;
}

static bool coll_uses_xacc(u8 kind, u8 type, u8 op)
{
	return coll_kind_reduces(kind) && coll_type_float(type) &&
	       op == TORUS_COLL_SUM;
}

static bool coll_uses_xprod(u8 kind, u8 type, u8 op)
{
	return coll_kind_reduces(kind) && coll_type_float(type) &&
	       op == TORUS_COLL_PROD;
}

/**
 * torus_coll_finalize - the root turns one element's reduction into the
 * result every node gets
 * @type: enum torus_coll_type
 * @op: enum torus_coll_op
 * @v: the reduced value (ignored when @acc or @prod is given)
 * @acc: the exact sum (float and double sums), or NULL
 * @prod: the exact product (float and double products), or NULL
 * @out: the result bits
 *
 * Return: 0, or -EOVERFLOW for a product too long to hold exactly.
 */
int torus_coll_finalize(u8 type, u8 op, u64 v, const struct torus_xacc *acc,
			const struct torus_xprod *prod, u64 *out)
{
	bool dbl = type == TORUS_COLL_DOUBLE;

	if (acc) {
		*out = dbl ? torus_xacc_round_f64(acc) :
			     torus_xacc_round_f32(acc);
	} else if (prod) {
		if (torus_xprod_big(prod))
			return -EOVERFLOW;
		*out = dbl ? torus_xprod_round_f64(prod) :
			     torus_xprod_round_f32(prod);
	} else if (coll_type_float(type) && coll_op_logical(op)) {
		/* true and false as the type's 1.0 and +0 */
		*out = !v ? 0 : dbl ? 0x3ff0000000000000ULL : 0x3f800000ULL;
	} else {
		*out = v;
	}
	return 0;
}

/* ---- the engine ---- */

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
 * skb->cb of an answer on its way out: how the operation ended, and its
 * result arrays, which the answer now owns (a copy of up to 64 KiB is
 * made after the lock, not under it)
 */
struct coll_answer_cb {
	struct net *net;
	u64 *vals;
	u32 *locs;
	u32 portid;
	u32 nlseq;
	u32 seq;
	u32 count;
	s32 err;
	u8 type;
	bool placed;
};

#define COLL_ANSWER_CB(skb)	((struct coll_answer_cb *)(skb)->cb)
static_assert(sizeof(struct coll_answer_cb) <=
	      sizeof_field(struct sk_buff, cb));

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

/* skb->cb of a chunk of a rendezvous broadcast (slot @down_q) */
struct coll_chunk {
	u32 first;
	u32 n;
};

#define COLL_CHUNK(skb)	((struct coll_chunk *)(skb)->cb)
static_assert(sizeof(struct coll_chunk) <= sizeof_field(struct sk_buff, cb));

static void coll_out_init(struct coll_out *out)
{
	__skb_queue_head_init(&out->frames);
	__skb_queue_head_init(&out->replies);
	out->ntrash = 0;
}

/* An array to free after the lock (a leak, never an overflow). */
static void coll_trash(struct coll_out *out, void *p)
{
	if (!p || WARN_ON_ONCE(out->ntrash >= ARRAY_SIZE(out->trash)))
		return;
	out->trash[out->ntrash++] = p;
}

/* Fill an answer and send it to its requester, then free its arrays. */
static void coll_answer_send(struct torus_coll *coll, struct sk_buff *skb)
{
	struct coll_answer_cb cb = *COLL_ANSWER_CB(skb);
	struct torus_coll_done done = {
		.net = cb.net,
		.portid = cb.portid,
		.nlseq = cb.nlseq,
		.seq = cb.seq,
		.err = cb.err,
		.type = cb.type,
		.count = cb.count,
		.vals = cb.vals,
		.placed = cb.placed,
		.locs = cb.locs,
	};

	skb = coll->reply(skb, &done);
	/* the requester may be gone: nothing to do then */
	if (skb)
		genlmsg_unicast(cb.net, skb, cb.portid);
	kvfree(cb.vals);
	kvfree(cb.locs);
}

/*
 * Send and free what the lock kept back.  Under rcu_read_lock(), in any
 * context: bottom halves are off while frames go out, as in softirq (the
 * ports' per-CPU counters need it).
 */
static void coll_out_flush(struct torus_node *node, struct coll_out *out)
{
	struct torus_coll *coll = rcu_dereference(node->coll);
	struct sk_buff *skb;
	unsigned int i;

	local_bh_disable();
	while ((skb = __skb_dequeue(&out->frames))) {
		if (COLL_CB(skb)->routed)
			torus_coll_route_xmit(node, skb);
		else
			torus_coll_xmit(node, skb, COLL_CB(skb)->dir);
	}
	local_bh_enable();
	while ((skb = __skb_dequeue(&out->replies))) {
		if (coll)
			coll_answer_send(coll, skb);
		else
			kfree_skb(skb);
	}
	for (i = 0; i < out->ntrash; i++)
		kvfree(out->trash[i]);
	out->ntrash = 0;
}

/* Frames kept ahead of a join leave the node's budget. */
static void coll_early_purge(struct torus_coll_slot *s)
{
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(&s->early))) {
		s->coll->early_bytes -= skb->truesize;
		kfree_skb(skb);
	}
}

static void coll_slot_free(struct torus_coll_slot *s, struct coll_out *out)
{
	if (s->place)
		torus_coll_place_done(s->place);
	else
		coll_trash(out, s->vals);
	s->place = NULL;
	coll_trash(out, s->acc);
	coll_trash(out, s->prod);
	coll_trash(out, s->locs);
	s->vals = NULL;
	s->acc = NULL;
	s->prod = NULL;
	s->locs = NULL;
	kfree_skb(s->answer);
	s->answer = NULL;
	coll_early_purge(s);
	__skb_queue_purge(&s->down_q);
	memset(s->down_last, 0, sizeof(s->down_last));
	s->state = TORUS_COLL_FREE;
	s->has_params = false;
	s->has_data = false;
	s->reduce_root = false;
	s->aborted = false;
	s->rendezvous = false;
	s->joining = false;
	s->list = false;
}

/*
 * Answer the requester and forget the operation.  The answer takes the
 * result arrays with it (they are copied into it after the lock); a
 * requester gone (its socket closed) has no answer left to send.
 */
static void coll_finish(struct torus_coll_slot *s, int err,
			struct coll_out *out)
{
	struct sk_buff *skb = s->answer;
	struct coll_answer_cb *cb;
	bool result;

	if ((s->state == TORUS_COLL_JOINED || s->state == TORUS_COLL_UP_SENT) &&
	    skb) {
		s->answer = NULL;
		cb = COLL_ANSWER_CB(skb);
		memset(cb, 0, sizeof(*cb));
		cb->net = s->done.net;
		cb->portid = s->done.portid;
		cb->nlseq = s->done.nlseq;
		cb->seq = s->seq;
		cb->err = err;
		cb->type = s->type;
		cb->count = s->count;
		result = !err && !(s->kind == TORUS_COLL_REDUCE &&
				   !s->reduce_root);
		/* placed: the caller has it already, once the answer says so */
		cb->placed = result && s->place;
		if (result && !s->place) {
			cb->vals = s->vals;
			s->vals = NULL;
		}
		if (result) {
			cb->locs = s->locs;
			s->locs = NULL;
		}
		__skb_queue_tail(&out->replies, skb);
	}
	coll_slot_free(s, out);
}

static struct torus_coll_slot *coll_find(struct torus_coll *coll, u16 group,
					 u32 seq)
{
	unsigned int i;

	for (i = 0; i < TORUS_COLL_SLOTS; i++) {
		struct torus_coll_slot *s = &coll->slot[i];

		if (s->state != TORUS_COLL_FREE && s->group == group &&
		    s->seq == seq)
			return s;
	}
	return NULL;
}

/*
 * For a join when every slot is taken: the slot of the operation only
 * neighbours have joined that was announced first, its frames dropped
 * (they come again as a timeout at worst); NULL if all are in flight.
 */
static struct torus_coll_slot *coll_evict_early(struct torus_coll *coll,
						struct coll_out *out)
{
	struct torus_coll_slot *oldest = NULL;
	unsigned int i;

	for (i = 0; i < TORUS_COLL_SLOTS; i++) {
		struct torus_coll_slot *s = &coll->slot[i];

		if (s->state == TORUS_COLL_EARLY &&
		    (!oldest || time_before(s->deadline, oldest->deadline)))
			oldest = s;
	}
	if (oldest)
		coll_slot_free(oldest, out);
	return oldest;
}

static struct torus_coll_slot *coll_alloc(struct torus_coll *coll, u16 group,
					  u32 seq, unsigned int ms)
{
	unsigned int i;

	for (i = 0; i < TORUS_COLL_SLOTS; i++) {
		struct torus_coll_slot *s = &coll->slot[i];

		if (s->state != TORUS_COLL_FREE)
			continue;
		s->group = group;
		s->seq = seq;
		s->state = TORUS_COLL_EARLY;
		s->deadline = jiffies + msecs_to_jiffies(ms);
		mod_timer(&s->timer, s->deadline);
		return s;
	}
	return NULL;
}

/* The neighbour's coordinates in @dir (the frame's destination). */
static void coll_neighbor(const struct torus_geom *g, u8 dir, u8 *out)
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
static unsigned int coll_frame_room(const struct torus_coll_slot *s, u8 dir)
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
		coll_neighbor(g, dir, dst);
	}
	torus_hdr_init(skb_put(skb, TORUS_HDR_LEN), TORUS_T_COLL, 0,
		       g->coord, dst, hops);
	COLL_CB(skb)->dir = dir;
	COLL_CB(skb)->routed = s->list;
	return skb;
}

static struct sk_buff *coll_frame_new(const struct torus_coll_slot *s,
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

static void coll_frame_close(struct sk_buff *skb, u32 n,
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
static void coll_fail(struct torus_coll_slot *s, int err,
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
			skb = coll_frame_new(s, g, TORUS_COLL_ABORT, dir, 0, 0,
					     0);
			if (skb)
				coll_frame_close(skb, 0, &out->frames);
		}
	}
	coll_finish(s, err, out);
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
static size_t coll_decode_merge(struct torus_coll_slot *s, u32 i,
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
	struct sk_buff *skb = coll_frame_new(s, g, phase, dir, first, 0,
					     *room);

	if (!skb && *room > TORUS_COLL_FRAME_ROOM) {
		*room = TORUS_COLL_FRAME_ROOM;
		skb = coll_frame_new(s, g, phase, dir, first, 0, *room);
	}
	return skb;
}

/*
 * Room for @n elements at most, within @max_room: a frame is allocated
 * no larger than its elements need (a barrier's or a short vector's
 * takes a small buffer, not a 16 KiB one that the kernel zeroes).
 */
static unsigned int coll_range_room(const struct torus_coll_slot *s,
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
static u32 coll_encode_run(const struct torus_coll_slot *s, bool up,
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
 * several children share (coll_frame_attach()).  If a large one cannot
 * be had now, a standard one (*@room shrinks).
 */
static struct sk_buff *coll_payload_alloc(unsigned int *room)
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
static void coll_frame_attach(struct sk_buff *skb, struct sk_buff *payload)
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
		skb = ref ? coll_frame_new(s, g, phase, dir, first, 0, 0) :
			    NULL;
		if (!skb) {
			kfree_skb(ref);
			if (ref != payload)
				kfree_skb(payload);
			return -ENOMEM;
		}
		coll_frame_attach(skb, ref);
		coll_frame_close(skb, n, &out->frames);
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
		cap = coll_range_room(s, up, to - from, max_room);
		if (shared)
			skb = coll_payload_alloc(&cap);
		else
			skb = coll_frame_alloc(s, g, phase, __ffs(dirs), from,
					       &cap);
		if (!skb)
			return -ENOMEM;
		n = coll_encode_run(s, up, from, to, skb_tail_pointer(skb),
				    cap, &used);
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
			coll_frame_close(skb, n, &out->frames);
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
static int coll_send_range(struct torus_coll_slot *s,
			   const struct torus_geom *g, u8 phase, u32 dirs,
			   u32 from, u32 to, struct coll_out *out)
{
	unsigned int max_room = TORUS_COLL_FRAME_MAX, dir;
	bool up = phase == TORUS_COLL_UP;
	int err;

	for (dir = 0; dir < TORUS_MAX_DIRS; dir++)
		if (dirs & BIT(dir))
			max_room = min(max_room, coll_frame_room(s, dir));
	if (hweight32(dirs) < 2 ||
	    coll_range_room(s, up, to - from, max_room) >= TORUS_COLL_REF_MIN)
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
		skb = coll_frame_new(s, g, phase, __ffs(dirs), 0,
				     TORUS_COLL_F_EMPTY, 0);
		if (!skb)
			return -ENOMEM;
		coll_frame_close(skb, s->count, &out->frames);
		return 0;
	}
	return coll_send_range(s, g, phase, dirs, 0, s->count, out);
}

/* The operation may move on: send up, or at the root turn around. */
static void coll_progress(struct torus_coll_slot *s,
			  const struct torus_geom *g, struct coll_out *out)
{
	u32 i;
	int err;

	if (s->state != TORUS_COLL_JOINED || s->pending)
		return;
	if (s->parent != TORUS_DIR_NONE) {
		err = coll_send(s, g, TORUS_COLL_UP, BIT(s->parent), out);
		if (err)
			coll_fail(s, err, g, TORUS_DIR_NONE, out);
		else
			s->state = TORUS_COLL_UP_SENT;
		return;
	}
	/* the root: the result */
	if (s->kind == TORUS_COLL_BCAST && !s->has_data) {
		/* no root in the tree */
		coll_fail(s, -EHOSTUNREACH, g, TORUS_DIR_NONE, out);
		return;
	}
	for (i = 0; i < s->count && coll_kind_reduces(s->kind); i++) {
		err = torus_coll_finalize(s->type, s->op, s->vals[i],
					  s->acc ? &s->acc[i] : NULL,
					  s->prod ? &s->prod[i] : NULL,
					  &s->vals[i]);
		if (err) {
			coll_fail(s, err, g, TORUS_DIR_NONE, out);
			return;
		}
	}
	err = coll_send(s, g, TORUS_COLL_DOWN, s->children, out);
	if (err) {
		coll_fail(s, err, g, TORUS_DIR_NONE, out);
		return;
	}
	coll_finish(s, 0, out);
}

/*
 * The elements of a frame (data at its collective header): in its own
 * buffer, or in the one buffer of its frag list that it shares with the
 * frames to the sender's other children (torus_coll_rx() takes no other
 * shape).
 */
static const u8 *coll_frame_elems(const struct sk_buff *skb, size_t *len)
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

	if (len > coll_frame_room(s, dir)) {
		before = skb_queue_len(&out->frames);
		err = coll_send_range(s, g, TORUS_COLL_DOWN, BIT(dir), first,
				      first + n, out);
		return err ?: skb_queue_len(&out->frames) - before;
	}
	if (len < TORUS_COLL_REF_MIN) {
		skb = coll_frame_new(s, g, TORUS_COLL_DOWN, dir, first, 0, len);
		if (!skb)
			return -ENOMEM;
		skb_put_data(skb, src->data + off, len);
	} else {
		ref = skb_clone(src, GFP_ATOMIC);
		skb = ref ? coll_frame_new(s, g, TORUS_COLL_DOWN, dir, first,
					   0, 0) : NULL;
		if (!skb) {
			kfree_skb(ref);
			return -ENOMEM;
		}
		__skb_pull(ref, off);
		coll_frame_attach(skb, ref);
	}
	coll_frame_close(skb, n, &out->frames);
	return 1;
}

/*
 * Cut-through, as the patent pipelines a broadcast: a DOWN frame goes on
 * to every child as soon as it arrives, one hop further; nothing is
 * encoded again and a child need not wait for the whole message.  Large
 * elements go by reference, not copied: every frame of a broadcast's
 * tree shares the buffer its root filled (see coll_send_range()).
 * @in: the frame, data at its collective header, its elements in its
 * own buffer or in the one buffer of its frag list (torus_coll_rx()
 * takes no other shape).  Return: 0 or -ENOMEM.
 */
static int coll_forward_down(struct torus_coll_slot *s,
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
			room = min(room, coll_frame_room(s, dir));
	room = coll_range_room(s, false, s->count - s->encoded, room);
	e = coll_payload_alloc(&room);
	if (!e)
		return NULL;
	n = coll_encode_run(s, false, s->encoded, s->count,
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
static bool coll_child_has_all(const struct torus_coll_slot *s, u8 dir)
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
 * Fails the operation itself, as coll_progress() does.
 */
static void coll_rendezvous_progress(struct torus_coll_slot *s,
				     const struct torus_geom *g,
				     struct coll_out *out)
{
	unsigned int dir;
	int err;

	if (s->parent == TORUS_DIR_NONE && !s->has_data) {
		/* no root in the tree */
		coll_fail(s, -EHOSTUNREACH, g, TORUS_DIR_NONE, out);
		return;
	}
	for (dir = 0; dir < TORUS_MAX_DIRS; dir++) {
		if (!(s->ready & BIT(dir)))
			continue;
		err = coll_rendezvous_push(s, g, dir, out);
		if (err) {
			coll_fail(s, err, g, TORUS_DIR_NONE, out);
			return;
		}
	}
	if (s->ready != s->children || coll_rendezvous_have(s) < s->count)
		return;
	for (dir = 0; dir < TORUS_MAX_DIRS; dir++)
		if (s->children & BIT(dir) && !coll_child_has_all(s, dir))
			return;
	coll_finish(s, 0, out);
}

/*
 * A child said READY: its result is posted, and it may be sent @n DOWN
 * frames beyond the @first it has received (0: no limit).  It gets what
 * this node holds, in the order this node got it (which elements it
 * holds is not tracked: frames may be reordered on some ports), then the
 * rest as it comes.  A READY from no child is stray; an old one gives no
 * credit.
 */
static int coll_child_ready(struct torus_coll_slot *s,
			    const struct torus_geom *g, u8 dir, u32 first,
			    u32 n, struct coll_out *out)
{
	u32 credit = n ? first + n : U32_MAX;

	if (!s->rendezvous || !(s->children & BIT(dir)))
		return 0;
	s->ready |= BIT(dir);
	s->credit[dir] = max(s->credit[dir], credit);
	if (!s->joining)
		coll_rendezvous_progress(s, g, out);
	return 0;
}

/*
 * This node's result array is posted, or half its credit has come: tell
 * the parent, which sends a rendezvous broadcast's data only so far.
 * Return: 0 or -ENOMEM (the parent would never know: fail now rather
 * than at the timeout).
 */
static int coll_ready_send(struct torus_coll_slot *s,
			   const struct torus_geom *g, struct coll_out *out)
{
	struct sk_buff *skb;

	skb = coll_frame_new(s, g, TORUS_COLL_READY, s->parent,
			     s->down_frames, 0, 0);
	if (!skb)
		return -ENOMEM;
	/* no more than are left: each frame has an element at least */
	coll_frame_close(skb, min_t(u32, TORUS_COLL_CREDITS,
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
static int coll_rendezvous_take(struct torus_coll_slot *s,
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
		err = coll_ready_send(s, g, out);
		if (err)
			return err;
	}
	coll_rendezvous_progress(s, g, out);
	return 0;
}

/* The direction, or a node-list group's edge, a frame came by. */
static u8 coll_in_edge(const struct torus_coll_slot *s,
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
static void coll_take_down(struct torus_coll_slot *s, u32 first, u32 n,
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
static bool coll_down_wanted(const struct torus_coll_slot *s, u8 in_dir,
			     u32 n)
{
	if (s->state != TORUS_COLL_UP_SENT || in_dir != s->parent)
		return false;
	if (!s->count)
		return !n && !s->down_got;
	return n && n <= s->count - s->down_got;
}

/*
 * Apply one frame to a joined operation: its elements are combined (UP)
 * or taken as the result (DOWN).  A frame the operation does not take
 * (from no edge of its tree, a range already had or out of order) is
 * left, *@drop saying why.  A node that has a broadcast's data (its
 * root's, perhaps read from its caller's buffer) takes no data for it.
 * Return: 0, or a negative errno that fails the operation.
 */
static int coll_apply(struct torus_coll_slot *s, const struct torus_geom *g,
		      struct sk_buff *skb, int *drop, struct coll_out *out)
{
	const struct torus_coll_hdr *ch = (const void *)skb->data;
	u8 in_dir = coll_in_edge(s, skb);
	u32 first = ntohl(ch->first), n = ntohl(ch->n), i;
	size_t each = sizeof(__be64) + (s->locs ? sizeof(__be32) : 0);
	bool had_data = s->kind == TORUS_COLL_BCAST && s->has_data;
	size_t left;
	const u8 *p;
	int err;

	if (in_dir == TORUS_DIR_NONE) {
		/* from no member next to this one */
		*drop = TORUS_DROP_SPOOFED;
		return 0;
	}
	p = coll_frame_elems(skb, &left);
	if (ch->kind != s->kind || ch->type != s->type || ch->op != s->op ||
	    ntohl(ch->count) != s->count)
		return -EPROTO;	/* the nodes disagree on the operation */

	if (ch->phase == TORUS_COLL_READY)
		return coll_child_ready(s, g, in_dir, first, n, out);
	if (ch->phase == TORUS_COLL_DOWN) {
		if (!coll_down_wanted(s, in_dir, n)) {
			*drop = TORUS_DROP_COLL_REFUSED;
			return 0;
		}
		if (left != (size_t)n * each)
			return -EPROTO;
		if (!had_data)
			coll_take_down(s, first, n, p);
		s->down_got += n;
		if (s->rendezvous)
			return coll_rendezvous_take(s, g, skb, out);
		err = coll_forward_down(s, g, skb, out);
		if (err)
			return err;
		if (s->down_got >= s->count)
			coll_finish(s, 0, out);
		return 0;
	}

	/* a child's ranges come in order, each once (one burst, one port) */
	if (!(s->pending & BIT(in_dir)) || first != s->got[in_dir] ||
	    n > s->count - first || (!n && s->count)) {
		*drop = TORUS_DROP_COLL_REFUSED;
		return 0;
	}
	if (ch->flags & TORUS_COLL_F_EMPTY) {
		if (s->kind != TORUS_COLL_BCAST || left)
			return -EPROTO;
	} else if (had_data) {
		if (left != (size_t)n * each)
			return -EPROTO;
	} else {
		for (i = 0; i < n; i++) {
			size_t used = coll_decode_merge(s, first + i, p, left);

			if (!used)
				return -EPROTO;
			p += used;
			left -= used;
		}
		if (left)
			return -EPROTO;
		if (s->kind == TORUS_COLL_BCAST)
			s->has_data = true;
	}
	s->got[in_dir] += n;
	if (s->got[in_dir] == s->count)
		s->pending &= ~BIT(in_dir);
	coll_progress(s, g, out);
	return 0;
}

static void coll_apply_or_fail(struct torus_coll_slot *s,
			       const struct torus_geom *g,
			       struct torus_port *port,
			       struct sk_buff *skb, struct coll_out *out)
{
	int drop = -1, err = coll_apply(s, g, skb, &drop, out);

	if (drop >= 0)
		torus_coll_drop(s->coll->node, port, skb, drop);
	else
		consume_skb(skb);
	if (err)
		coll_fail(s, err, g, TORUS_DIR_NONE, out);
}

/*
 * The node's tree now: for the whole fabric the installed one, or the
 * default over live cables; for a group (a bit per axis it spans) the
 * default tree of the sub-torus through this node: the other axes count
 * as extent 1, so the tree never leaves the group.  A broadcast that
 * knows its root's coordinates (@root, else NULL) runs on the default
 * tree rooted there instead, unless the installed tree serves (torusd
 * installs one around faults): *@rooted then says so.
 */
static void coll_tree(struct torus_coll *coll, const struct torus_fib *fib,
		      u16 group, const u8 *root, u8 *parent, u32 *children,
		      bool *rooted)
{
	const struct torus_geom *g = &fib->geom;
	u8 coord[TORUS_MAX_AXES] = { 0 }, from[TORUS_MAX_AXES] = { 0 };
	u16 dims[TORUS_MAX_AXES];
	unsigned int axis;

	*rooted = false;
	if (!group && coll->tree_set) {
		*parent = coll->tree_parent;
		*children = coll->tree_children;
		return;
	}
	for (axis = 0; axis < g->ndims; axis++) {
		bool member = !group || group & BIT(axis);

		dims[axis] = member ? g->dims[axis] : 1;
		coord[axis] = member ? g->coord[axis] : 0;
		from[axis] = member && root ? root[axis] : 0;
	}
	*rooted = !!root;
	*parent = torus_coll_tree_parent_from(g->ndims, dims, g->wrap, coord,
					      from);
	*children = torus_coll_tree_children_from(g->ndims, dims, g->wrap,
						  coord, from) &
		    torus_fib_usable(fib);
}

void torus_coll_tree_get(struct torus_node *node, bool *set, u8 *parent,
			 u32 *children)
{
	struct torus_coll *coll = rtnl_dereference(node->coll);
	const struct torus_fib *fib;
	bool rooted;

	rcu_read_lock();
	fib = rcu_dereference(node->fib);
	spin_lock_bh(&coll->lock);
	*set = coll->tree_set;
	coll_tree(coll, fib, 0, NULL, parent, children, &rooted);
	spin_unlock_bh(&coll->lock);
	rcu_read_unlock();
}

/**
 * torus_coll_tree_install - install the whole fabric's tree (RTNL)
 * @node: the node
 * @set: false for the default tree
 * @parent: the parent's direction
 * @children: a bit per child's direction
 *
 * The nodes install a new tree one after the other, so an operation on
 * the whole fabric that this node joined on its old tree cannot finish:
 * its neighbours may wait on the new one.  It fails now with ENETRESET
 * and tells its neighbours, rather than at its timeout; the next
 * operation runs on the new tree.  The same tree installed again
 * changes nothing.
 */
void torus_coll_tree_install(struct torus_node *node, bool set, u8 parent,
			     u32 children)
{
	struct torus_coll *coll = rtnl_dereference(node->coll);
	const struct torus_fib *fib;
	struct coll_out out;
	unsigned int i;

	coll_out_init(&out);
	rcu_read_lock();
	fib = rcu_dereference(node->fib);
	spin_lock_bh(&coll->lock);
	if (coll->tree_set == set &&
	    (!set || (coll->tree_parent == parent &&
		      coll->tree_children == children)))
		goto unlock;
	coll->tree_set = set;
	coll->tree_parent = parent;
	coll->tree_children = children;
	for (i = 0; fib && i < TORUS_COLL_SLOTS; i++) {
		struct torus_coll_slot *s = &coll->slot[i];

		if (!s->group && (s->state == TORUS_COLL_JOINED ||
				  s->state == TORUS_COLL_UP_SENT))
			coll_fail(s, -ENETRESET, &fib->geom, TORUS_DIR_NONE,
				  &out);
	}
unlock:
	spin_unlock_bh(&coll->lock);
	coll_out_flush(node, &out);
	rcu_read_unlock();
}

/*
 * The arrays of an operation, filled with the local contribution
 * (allocated here, before the lock; the ranks of minloc and maxloc are
 * filled in under it, from the node's coordinates).
 */
struct coll_arrays {
	u64 *vals;
	bool placed;
	struct torus_xacc *acc;
	struct torus_xprod *prod;
	u32 *locs;
};

static void coll_arrays_free(struct coll_arrays *a)
{
	if (!a->placed)
		kvfree(a->vals);
	kvfree(a->acc);
	kvfree(a->prod);
	kvfree(a->locs);
}

static int coll_contribution(const struct torus_coll_req *req,
			     struct coll_arrays *a)
{
	unsigned int size = torus_coll_type_size(req->type);
	u32 i;

	memset(a, 0, sizeof(*a));
	if (!req->count)
		return 0;
	/* the requester's to account: an exact sum takes up to 4.3 MB */
	a->placed = req->place;
	a->vals = a->placed ? req->place->vals :
		  kvcalloc(req->count, sizeof(*a->vals), GFP_KERNEL_ACCOUNT);
	if (coll_uses_xacc(req->kind, req->type, req->op))
		a->acc = kvcalloc(req->count, sizeof(*a->acc),
				  GFP_KERNEL_ACCOUNT);
	if (coll_uses_xprod(req->kind, req->type, req->op))
		a->prod = kvcalloc(req->count, sizeof(*a->prod),
				   GFP_KERNEL_ACCOUNT);
	if (coll_kind_reduces(req->kind) && torus_coll_op_has_loc(req->op))
		a->locs = kvcalloc(req->count, sizeof(*a->locs),
				   GFP_KERNEL_ACCOUNT);
	if (!a->vals ||
	    (!a->acc && coll_uses_xacc(req->kind, req->type, req->op)) ||
	    (!a->prod && coll_uses_xprod(req->kind, req->type, req->op)) ||
	    (!a->locs && coll_kind_reduces(req->kind) &&
	     torus_coll_op_has_loc(req->op))) {
		coll_arrays_free(a);
		return -ENOMEM;
	}
	/* the caller's buffer is written only once the operation starts
	 * (coll_place_fill()): a refused request leaves it as it was
	 */
	for (i = 0; req->data && i < req->count; i++) {
		u64 v = torus_coll_load(req->type,
					 (const u8 *)req->data + i * size);
		bool dbl = req->type == TORUS_COLL_DOUBLE;

		if (a->acc) {
			torus_xacc_init(&a->acc[i]);
			if (dbl)
				torus_xacc_add_f64(&a->acc[i], v);
			else
				torus_xacc_add_f32(&a->acc[i], v);
		} else if (a->prod) {
			torus_xprod_init(&a->prod[i]);
			if (dbl)
				torus_xprod_mul_f64(&a->prod[i], v);
			else
				torus_xprod_mul_f32(&a->prod[i], v);
		} else if (!a->placed) {
			a->vals[i] = torus_coll_prepare(req->type, req->op, v);
		}
	}
	return 0;
}

/*
 * A placed operation's result array, once it has started: zero under
 * exact sums and products (as kvcalloc() gives the others), else the
 * prepared contribution; below a broadcast's root it holds anything
 * until the data come.
 */
static void coll_place_fill(const struct torus_coll_req *req,
			    const struct coll_arrays *a)
{
	unsigned int size = torus_coll_type_size(req->type);
	u32 i;

	if (!req->place->written)
		return;		/* a root's data, only read */
	if (a->acc || a->prod) {
		memset(a->vals, 0, req->count * sizeof(*a->vals));
		return;
	}
	for (i = 0; req->data && i < req->count; i++)
		a->vals[i] = torus_coll_prepare(req->type, req->op,
						torus_coll_load(req->type,
								(const u8 *)req->data +
								i * size));
}

/**
 * torus_coll_join - this node joins the next operation
 * @node: the node (held by the caller)
 * @req: the validated request
 * @extack: for errors found now
 *
 * Return: 0 when the operation started: its answer comes through
 * coll->reply; or a negative errno (nothing started, no answer comes).
 */
int torus_coll_join(struct torus_node *node, const struct torus_coll_req *req,
		    struct netlink_ext_ack *extack)
{
	bool list = req->group & TORUS_COLL_GROUP_LIST;
	/* what the answer carries: the result, unless placed or none */
	bool result = req->kind != TORUS_COLL_BARRIER &&
		      (req->kind != TORUS_COLL_REDUCE || req->root);
	bool locs = coll_kind_reduces(req->kind) &&
		    torus_coll_op_has_loc(req->op);
	struct torus_coll_list *numbering;
	struct sk_buff *skb, *answer;
	const struct torus_fib *fib;
	struct torus_coll_slot *s;
	struct torus_coll *coll;
	struct coll_arrays arr;
	struct coll_out out;
	u32 edge[TORUS_COLL_LIST_EDGES];
	u32 children, i, rank, *next_seq;
	bool rooted;
	u8 parent;
	int err;

	if (result && !req->place &&
	    (size_t)req->count * torus_coll_type_size(req->type) >
	    TORUS_COLL_RESULT_MAX) {
		NL_SET_ERR_MSG(extack,
			       "torus: a result of more than 65531 bytes must be placed (TORUS_A_COLL_PLACE)");
		return -EMSGSIZE;
	}
	answer = genlmsg_new(torus_coll_answer_size(req->type, req->count,
						    result && !req->place,
						    result && locs),
			     GFP_KERNEL);
	if (!answer)
		return -ENOMEM;
	err = coll_contribution(req, &arr);
	if (err) {
		kfree_skb(answer);
		return err;
	}
	coll_out_init(&out);
	rcu_read_lock();
	coll = rcu_dereference(node->coll);
	if (!coll) {
		err = -ENODEV;	/* being unregistered */
		goto unlocked;
	}
	fib = rcu_dereference(node->fib);
	spin_lock_bh(&coll->lock);
	if (!fib || !fib->placed || coll->dead) {
		NL_SET_ERR_MSG(extack, "torus: the node is not placed");
		err = -ENETDOWN;
		goto unlock;
	}
	if (list) {
		err = torus_coll_list_tree(&fib->geom, req, edge, &parent,
					   &children, &rooted);
		if (err) {
			NL_SET_ERR_MSG(extack,
				       "torus: this node or the root is not in the node list");
			goto unlock;
		}
		numbering = torus_coll_list_enter(coll, req);
		if (!numbering) {
			NL_SET_ERR_MSG(extack,
				       "torus: operations in flight hold the node lists' numbering");
			err = -EBUSY;
			goto unlock;
		}
		next_seq = &numbering->next_seq;
	} else {
		coll_tree(coll, fib, req->group,
			  req->kind == TORUS_COLL_BCAST && req->has_root_coord ?
			  req->root_coord : NULL, &parent, &children, &rooted);
		next_seq = &coll->next_seq[req->group];
	}
	s = coll_find(coll, req->group, *next_seq);
	if (s && s->state != TORUS_COLL_EARLY)
		s = NULL;	/* the numbers went round: still in flight */
	else if (!s)
		s = coll_alloc(coll, req->group, *next_seq, req->timeout_ms) ?:
		    (coll_evict_early(coll, &out) ?
		     coll_alloc(coll, req->group, *next_seq,
				req->timeout_ms) : NULL);
	if (!s) {
		NL_SET_ERR_MSG(extack,
			       "torus: too many collective operations in flight");
		err = -EBUSY;
		goto unlock;
	}
	(*next_seq)++;
	s->list = list;
	if (list)
		memcpy(s->edge, edge, sizeof(s->edge));
	s->kind = req->kind;
	s->type = req->type;
	s->op = req->op;
	s->count = req->count;
	s->has_params = true;
	s->has_data = req->kind == TORUS_COLL_BCAST && req->root;
	s->reduce_root = req->kind == TORUS_COLL_REDUCE && req->root;
	s->parent = parent;
	s->children = children;
	/* a rooted broadcast only comes down: nothing owed from below */
	s->pending = rooted ? 0 : children;
	s->rendezvous = rooted && req->count > TORUS_COLL_EAGER_MAX;
	s->ready = 0;
	memset(s->got, 0, sizeof(s->got));
	s->down_got = 0;
	memset(s->sent, 0, sizeof(s->sent));
	memset(s->credit, 0, sizeof(s->credit));
	s->encoded = 0;
	s->down_frames = 0;
	s->credited = 0;
	if (arr.placed)
		coll_place_fill(req, &arr);
	s->vals = arr.vals;
	s->place = req->place;
	s->acc = arr.acc;
	s->prod = arr.prod;
	s->locs = arr.locs;
	memset(&arr, 0, sizeof(arr));
	rank = torus_coll_rank(&fib->geom, fib->geom.coord);
	for (i = 0; s->locs && i < s->count; i++)
		s->locs[i] = rank;
	s->done.net = req->net;
	s->done.portid = req->portid;
	s->done.nlseq = req->nlseq;
	s->answer = answer;
	answer = NULL;
	/* below the root of a rooted broadcast: wait for it at once */
	s->state = rooted && parent != TORUS_DIR_NONE ? TORUS_COLL_UP_SENT :
		   TORUS_COLL_JOINED;
	s->deadline = jiffies + msecs_to_jiffies(req->timeout_ms);
	mod_timer(&s->timer, s->deadline);
	/* cut off from the root, or failed by a neighbour already: fail it
	 * now, and tell the others
	 */
	if (!list && parent != TORUS_DIR_NONE &&
	    !(torus_fib_usable(fib) & BIT(parent)))
		coll_fail(s, -ENOLINK, &fib->geom, parent, &out);
	else if (s->aborted)
		coll_fail(s, -ECONNABORTED, &fib->geom, TORUS_DIR_NONE, &out);
	else if (s->rendezvous && parent != TORUS_DIR_NONE &&
		 coll_ready_send(s, &fib->geom, &out))
		coll_fail(s, -ENOMEM, &fib->geom, TORUS_DIR_NONE, &out);
	/* what the neighbours sent before this node joined */
	s->joining = true;
	while ((s->state == TORUS_COLL_JOINED ||
		s->state == TORUS_COLL_UP_SENT) &&
	       (skb = __skb_dequeue(&s->early))) {
		coll->early_bytes -= skb->truesize;
		coll_apply_or_fail(s, &fib->geom, NULL, skb, &out);
	}
	s->joining = false;
	if (s->state == TORUS_COLL_JOINED && s->rendezvous)
		coll_rendezvous_progress(s, &fib->geom, &out);
	else if (s->state == TORUS_COLL_JOINED)
		coll_progress(s, &fib->geom, &out);
unlock:
	spin_unlock_bh(&coll->lock);
	coll_out_flush(node, &out);
unlocked:
	rcu_read_unlock();
	coll_arrays_free(&arr);
	kfree_skb(answer);
	return err;
}

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
	if (coll_kind_reduces(ch->kind) && torus_coll_op_has_loc(ch->op))
		each += sizeof(__be32);
	if (ch->phase == TORUS_COLL_UP &&
	    coll_uses_xacc(ch->kind, ch->type, ch->op))
		return len >= n * TORUS_XACC_HEAD &&
		       len <= n * TORUS_XACC_WIRE_MAX;
	if (ch->phase == TORUS_COLL_UP &&
	    coll_uses_xprod(ch->kind, ch->type, ch->op))
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

	coll_neighbor(g, in_dir, neighbor);
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
 * as coll_frame_attach() makes it.  Anything else is made one buffer.
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

	coll_out_init(&out);
	spin_lock(&coll->lock);
	if (coll->dead)
		goto drop;
	s = coll_find(coll, group, seq);
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
		s = coll_alloc(coll, group, seq, TORUS_COLL_EARLY_MS);
		if (!s)
			goto refuse;
	}
	if (ch->phase == TORUS_COLL_ABORT) {
		edge = s->state == TORUS_COLL_EARLY ? TORUS_DIR_NONE :
						       coll_in_edge(s, skb);
		/* on the whole fabric, from any neighbour: it may have
		 * joined on another tree (a tree installed in between),
		 * and every member's failure fails the operation
		 */
		if (s->state == TORUS_COLL_EARLY) {
			s->aborted = true;
		} else if (edge != TORUS_DIR_NONE &&
			   (!s->group || edge == s->parent ||
			    s->children & BIT(edge))) {
			coll_fail(s, -ECONNABORTED, &fib->geom, edge, &out);
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
		coll_apply_or_fail(s, &fib->geom, port, skb, &out);
	}
	spin_unlock(&coll->lock);
	coll_out_flush(node, &out);
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

static void coll_timer(struct timer_list *t)
{
	struct torus_coll_slot *s = from_timer(s, t, timer);
	struct torus_coll *coll = s->coll;
	const struct torus_fib *fib;
	struct coll_out out;

	coll_out_init(&out);
	rcu_read_lock();
	fib = rcu_dereference(coll->node->fib);
	spin_lock_bh(&coll->lock);
	/* a slot reused since the timer was armed has a later deadline */
	if (s->state != TORUS_COLL_FREE && time_after_eq(jiffies, s->deadline))
		coll_fail(s, -ETIMEDOUT, fib ? &fib->geom : NULL,
			  TORUS_DIR_NONE, &out);
	spin_unlock_bh(&coll->lock);
	coll_out_flush(coll->node, &out);
	rcu_read_unlock();
}

/**
 * torus_coll_port_down - a port lost its carrier or goes away (RTNL)
 * @node: its node
 * @port: the port
 *
 * Operations waiting for a child or the parent behind it fail now with
 * ENOLINK, and tell the rest of the tree.
 */
void torus_coll_port_down(struct torus_node *node, struct torus_port *port)
{
	struct torus_coll *coll = rtnl_dereference(node->coll);
	const struct torus_fib *fib;
	struct coll_out out;
	unsigned int i;
	u8 dir;

	if (!coll)
		return;
	coll_out_init(&out);
	rcu_read_lock();
	fib = rcu_dereference(node->fib);
	dir = fib ? torus_port_global_dir(fib, port) : TORUS_DIR_NONE;
	spin_lock_bh(&coll->lock);
	for (i = 0; dir != TORUS_DIR_NONE && i < TORUS_COLL_SLOTS; i++) {
		struct torus_coll_slot *s = &coll->slot[i];

		/* a child that has not had the whole message (its READY,
		 * its credit) would be waited for in vain; a node-list
		 * group's edges are routes, not this port
		 */
		if (!s->list && (s->state == TORUS_COLL_JOINED ||
				 s->state == TORUS_COLL_UP_SENT) &&
		    (s->parent == dir || (s->pending & BIT(dir)) ||
		     (s->rendezvous && (s->children & BIT(dir)) &&
		      !coll_child_has_all(s, dir))))
			coll_fail(s, -ENOLINK, &fib->geom, dir, &out);
	}
	spin_unlock_bh(&coll->lock);
	coll_out_flush(node, &out);
	rcu_read_unlock();
}

/**
 * torus_coll_requester_gone - a netlink socket was released (process)
 * @node: a node in the socket's netns
 * @net: the socket's netns
 * @portid: its port
 *
 * The operations it asked for die with it: they fail, and the tree is
 * told, as for any member gone; no answer is sent, so a later socket
 * given the same port never receives another's.
 */
void torus_coll_requester_gone(struct torus_node *node, struct net *net,
			       u32 portid)
{
	struct torus_coll *coll;
	const struct torus_fib *fib;
	struct coll_out out;
	unsigned int i;

	coll_out_init(&out);
	rcu_read_lock();
	coll = rcu_dereference(node->coll);
	if (!coll)
		goto out;
	fib = rcu_dereference(node->fib);
	spin_lock_bh(&coll->lock);
	for (i = 0; i < TORUS_COLL_SLOTS; i++) {
		struct torus_coll_slot *s = &coll->slot[i];

		if ((s->state != TORUS_COLL_JOINED &&
		     s->state != TORUS_COLL_UP_SENT) ||
		    s->done.portid != portid || !net_eq(s->done.net, net))
			continue;
		kfree_skb(s->answer);
		s->answer = NULL;
		coll_fail(s, -ECONNRESET, fib ? &fib->geom : NULL,
			  TORUS_DIR_NONE, &out);
	}
	spin_unlock_bh(&coll->lock);
	coll_out_flush(node, &out);
out:
	rcu_read_unlock();
}

int torus_coll_node_init(struct torus_node *node)
{
	struct torus_coll *coll;
	unsigned int i;

	coll = kzalloc(sizeof(*coll), GFP_KERNEL);
	if (!coll)
		return -ENOMEM;
	coll->node = node;
	spin_lock_init(&coll->lock);
	coll->reply = torus_coll_nl_reply;
	for (i = 0; i < TORUS_COLL_SLOTS; i++) {
		coll->slot[i].coll = coll;
		timer_setup(&coll->slot[i].timer, coll_timer, 0);
		skb_queue_head_init(&coll->slot[i].early);
		skb_queue_head_init(&coll->slot[i].down_q);
	}
	RCU_INIT_POINTER(node->coll, coll);
	return 0;
}

/* The node goes away: every caller gets ENODEV, nothing is left. */
void torus_coll_node_uninit(struct torus_node *node)
{
	struct torus_coll *coll = rtnl_dereference(node->coll);
	struct coll_out out;
	unsigned int i;

	if (!coll)
		return;
	coll_out_init(&out);
	spin_lock_bh(&coll->lock);
	coll->dead = true;
	for (i = 0; i < TORUS_COLL_SLOTS; i++)
		if (coll->slot[i].state != TORUS_COLL_FREE)
			coll_finish(&coll->slot[i], -ENODEV, &out);
	spin_unlock_bh(&coll->lock);
	__skb_queue_purge(&out.frames);
	rcu_read_lock();
	coll_out_flush(node, &out);
	rcu_read_unlock();
	for (i = 0; i < TORUS_COLL_SLOTS; i++)
		del_timer_sync(&coll->slot[i].timer);
	/* a frame being received may still look at it: free after RCU */
	RCU_INIT_POINTER(node->coll, NULL);
	kfree_rcu(coll, rcu);
}
