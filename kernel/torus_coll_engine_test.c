// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the collectives engine.  torus_coll_engine: a real node at (1)
 * of a line of three, its parent (0) behind cable A and its child (2)
 * behind cable B; frames are sent into the far ends and captured there,
 * answers to the requester are captured through the engine's reply hook.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/rtnetlink.h>
#include <net/genetlink.h>
#include <net/rtnetlink.h>
#include <asm/unaligned.h>

#include "torus_priv.h"
#include "torus_test.h"
#include "torus_coll.h"

/* ---- the engine on a real node ---- */

#define COLL_FX_ANSWERS	8

struct coll_fx_answer {
	u32 seq;
	int err;
	bool placed;
	u64 val;
};

struct coll_fixture {
	struct torus_test_line line;	/* parent (0) at A, child (2) at B */
	struct packet_type cap_a, cap_b;
	struct sk_buff_head to_parent, to_child;
	struct coll_fx_answer answer[COLL_FX_ANSWERS];
	unsigned int answers;
	u16 send_group;		/* the group of the frames sent in */
	u32 send_first;		/* ... and their first element */
	bool send_bcast;	/* ... and a broadcast's, not a sum's */
	bool send_ramp;		/* ... and element i is v + first + i */
	bool send_barrier;	/* ... and a barrier's */
	bool send_routed;	/* ... and a node list's, routed: */
	u8 send_src, send_dst;	/* from and to these x */
	bool send_forged;	/* ... and one-hop frames say they come from
				 * send_src with a hop limit of send_hops
				 */
	u8 send_hops;
};

/* the reply hook is global to the node; one fixture at a time */
static struct coll_fixture *coll_fx;

static struct sk_buff *coll_fx_reply(struct sk_buff *answer,
				     const struct torus_coll_done *done)
{
	struct coll_fx_answer *a;

	kfree_skb(answer);
	if (!coll_fx || coll_fx->answers >= COLL_FX_ANSWERS)
		return NULL;
	a = &coll_fx->answer[coll_fx->answers];
	a->seq = done->seq;
	a->err = done->err;
	a->val = done->vals && done->count ? done->vals[0] : 0;
	a->placed = done->placed;
	/* the answer is written before the test sees it counted */
	smp_store_release(&coll_fx->answers, coll_fx->answers + 1);
	return NULL;
}

/* a captured frame came with its elements by reference (a frag list) */
#define COLL_FX_BY_REF(skb)	((skb)->cb[0])

/* The tests read a frame as one buffer: a copy, which says how it came. */
static int coll_fx_capture(struct sk_buff *skb, struct net_device *dev,
			   struct packet_type *pt, struct net_device *orig)
{
	struct sk_buff *copy = skb_copy(skb, GFP_ATOMIC);

	if (copy) {
		COLL_FX_BY_REF(copy) = skb_has_frag_list(skb);
		skb_queue_tail(pt->af_packet_priv, copy);
	}
	consume_skb(skb);
	return NET_RX_SUCCESS;
}

static void coll_fx_listen(struct packet_type *pt, struct net_device *dev,
			   struct sk_buff_head *q)
{
	skb_queue_head_init(q);
	pt->type = htons(ETH_P_TORUS);
	pt->dev = dev;
	pt->func = coll_fx_capture;
	pt->af_packet_priv = q;
	dev_add_pack(pt);
}

static int torus_coll_engine_init(struct kunit *test)
{
	struct coll_fixture *fx;
	int err;

	fx = kunit_kzalloc(test, sizeof(*fx), GFP_KERNEL);
	if (!fx)
		return -ENOMEM;
	test->priv = fx;
	coll_fx = fx;
	err = torus_test_line_new(&fx->line, "kcoll%d");
	if (err)
		return err;
	rtnl_lock();
	rtnl_dereference(((struct torus_node *)netdev_priv(fx->line.node))->coll)
		->reply = coll_fx_reply;
	rtnl_unlock();
	coll_fx_listen(&fx->cap_a, fx->line.a_far, &fx->to_parent);
	coll_fx_listen(&fx->cap_b, fx->line.b_far, &fx->to_child);
	return 0;
}

static void torus_coll_engine_exit(struct kunit *test)
{
	struct coll_fixture *fx = test->priv;

	if (fx->cap_a.func)
		dev_remove_pack(&fx->cap_a);
	if (fx->cap_b.func)
		dev_remove_pack(&fx->cap_b);
	skb_queue_purge(&fx->to_parent);
	skb_queue_purge(&fx->to_child);
	torus_test_line_del(&fx->line);
	coll_fx = NULL;
}

/* This node joins the operation @req asks for. */
static int coll_fx_join_req(struct coll_fixture *fx,
			    const struct torus_coll_req *req)
{
	int err;

	rtnl_lock();
	err = torus_coll_join(netdev_priv(fx->line.node), req, NULL);
	rtnl_unlock();
	return err;
}

/* This node joins an int64 sum of one element. */
static int coll_fx_join(struct coll_fixture *fx, s64 v, u32 timeout_ms)
{
	struct torus_coll_req req = {
		.kind = TORUS_COLL_ALLREDUCE,
		.type = TORUS_COLL_INT64,
		.op = TORUS_COLL_SUM,
		.count = 1,
		.timeout_ms = timeout_ms,
		.data = &v,
		.net = &init_net,
	};

	return coll_fx_join_req(fx, &req);
}

#define COLL_FX_HOPS	9	/* hop limit of the routed frames sent in */

/* A collective frame's header fields, as a test writes them. */
struct coll_fx_hdr {
	u8 phase, kind, type, op, flags;
	u16 group;
	u32 seq, count, first, n;
};

/* The torus and collective headers of a frame from @src to @dst. */
static void coll_fx_put_hdrs(struct sk_buff *skb, const u8 *src,
			     const u8 *dst, u8 hops,
			     const struct coll_fx_hdr *f)
{
	struct torus_coll_hdr *ch;

	torus_hdr_init(skb_put(skb, TORUS_HDR_LEN), TORUS_T_COLL, 0, src, dst,
		       hops);
	ch = skb_put_zero(skb, TORUS_COLL_HDR_LEN);
	ch->phase = f->phase;
	ch->kind = f->kind;
	ch->type = f->type;
	ch->op = f->op;
	ch->flags = f->flags;
	ch->group = htons(f->group);
	ch->seq = htonl(f->seq);
	ch->count = htonl(f->count);
	ch->first = htonl(f->first);
	ch->n = htonl(f->n);
}

/*
 * An int64 sum frame from the neighbour behind @far: @count elements in
 * the operation, @n said to be in the frame, @have really there (each
 * @v).
 */
static void coll_fx_send_raw(struct coll_fixture *fx, struct net_device *far,
			     u8 phase, u32 seq, u32 count, u32 n,
			     unsigned int have, s64 v)
{
	u8 src[TORUS_MAX_AXES] = { far == fx->line.a_far ? 0 : 2 };
	u8 dst[TORUS_MAX_AXES] = { 1 };
	struct coll_fx_hdr f = {
		.phase = phase,
		.kind = fx->send_barrier ? TORUS_COLL_BARRIER :
			fx->send_bcast ? TORUS_COLL_BCAST :
					 TORUS_COLL_ALLREDUCE,
		.type = fx->send_barrier ? 0 : TORUS_COLL_INT64,
		.op = fx->send_barrier || fx->send_bcast ? 0 : TORUS_COLL_SUM,
		.group = fx->send_group,
		.seq = seq,
		.count = count,
		.first = fx->send_first,
		.n = n,
	};
	u8 hops = 1;
	struct ethhdr *eth;
	struct sk_buff *skb;
	unsigned int i;

	skb = alloc_skb(NET_SKB_PAD + ETH_HLEN + TORUS_HDR_LEN +
			TORUS_COLL_HDR_LEN + 8 * have, GFP_KERNEL);
	if (!skb)
		return;
	skb_reserve(skb, NET_SKB_PAD);
	eth = skb_put(skb, ETH_HLEN);
	eth_broadcast_addr(eth->h_dest);
	ether_addr_copy(eth->h_source, far->dev_addr);
	eth->h_proto = htons(ETH_P_TORUS);
	if (fx->send_routed) {
		src[0] = fx->send_src;
		dst[0] = fx->send_dst;
		hops = COLL_FX_HOPS;
	}
	if (fx->send_forged) {
		src[0] = fx->send_src;
		hops = fx->send_hops;
	}
	coll_fx_put_hdrs(skb, src, dst, hops, &f);
	for (i = 0; i < have; i++)
		put_unaligned_be64(fx->send_ramp ? v + fx->send_first + i : v,
				   skb_put(skb, 8));
	skb_reset_mac_header(skb);
	skb->dev = far;
	skb->protocol = htons(ETH_P_TORUS);
	dev_queue_xmit(skb);
}

/* A one-element int64 sum frame from the neighbour behind @far. */
static void coll_fx_send(struct coll_fixture *fx, struct net_device *far,
			 u8 phase, u32 seq, s64 v)
{
	coll_fx_send_raw(fx, far, phase, seq, 1, 1, 1, v);
}

/* Wait for @q to hold a frame (or @fx to have @answers answers). */
static void coll_fx_wait(struct coll_fixture *fx, struct sk_buff_head *q,
			 unsigned int answers, unsigned int ms)
{
	unsigned int i;

	for (i = 0; i < ms; i++) {
		if (q && !skb_queue_empty(q))
			return;
		/* pairs with the release in coll_fx_reply() */
		if (!q && smp_load_acquire(&fx->answers) >= answers)
			return;
		usleep_range(1000, 1100);
	}
}

/* The element of a captured frame; -1 if it is not a coll frame. */
static s64 coll_fx_value(struct kunit *test, struct sk_buff_head *q,
			 u8 phase, u32 seq)
{
	struct sk_buff *skb = skb_dequeue(q);
	const struct torus_coll_hdr *ch;
	s64 v = -1;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	if (skb->len >= TORUS_HDR_LEN + TORUS_COLL_HDR_LEN + 8 &&
	    skb->data[1] == TORUS_T_COLL) {
		ch = (const void *)(skb->data + TORUS_HDR_LEN);
		KUNIT_EXPECT_EQ(test, ch->phase, phase);
		KUNIT_EXPECT_EQ(test, ntohl(ch->seq), seq);
		v = get_unaligned_be64(skb->data + TORUS_HDR_LEN +
				       TORUS_COLL_HDR_LEN);
	}
	kfree_skb(skb);
	return v;
}

/* The next frame into @q is phase @phase of operation @seq, with @v. */
static void coll_fx_expect_value(struct kunit *test, struct coll_fixture *fx,
				 struct sk_buff_head *q, u8 phase, u32 seq,
				 s64 v)
{
	coll_fx_wait(fx, q, 0, 1000);
	KUNIT_EXPECT_EQ(test, coll_fx_value(test, q, phase, seq), v);
}

/* The child sends @v up for operation @seq; this node sends @sum up. */
static void coll_fx_expect_up(struct kunit *test, struct coll_fixture *fx,
			      u32 seq, s64 v, s64 sum)
{
	coll_fx_send(fx, fx->line.b_far, TORUS_COLL_UP, seq, v);
	coll_fx_expect_value(test, fx, &fx->to_parent, TORUS_COLL_UP, seq, sum);
}

/* The phase of the next captured frame, 0 if it is no coll frame. */
static u8 coll_fx_phase(struct kunit *test, struct sk_buff_head *q)
{
	struct sk_buff *skb = skb_dequeue(q);
	u8 phase = 0;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	if (skb->len >= TORUS_HDR_LEN + TORUS_COLL_HDR_LEN &&
	    skb->data[1] == TORUS_T_COLL)
		phase = skb->data[TORUS_HDR_LEN];
	kfree_skb(skb);
	return phase;
}

/* The operation answered @n-th (from 0) succeeded with @val. */
static void coll_fx_expect_answer(struct kunit *test, struct coll_fixture *fx,
				  unsigned int n, u64 val)
{
	coll_fx_wait(fx, NULL, n + 1, 1000);
	KUNIT_ASSERT_EQ(test, fx->answers, n + 1);
	KUNIT_EXPECT_EQ(test, fx->answer[n].err, 0);
	KUNIT_EXPECT_EQ(test, fx->answer[n].val, val);
}

/* The operation answered @n-th (from 0) failed with @err. */
static void coll_fx_expect_error(struct kunit *test, struct coll_fixture *fx,
				 unsigned int n, int err)
{
	coll_fx_wait(fx, NULL, n + 1, 2000);
	KUNIT_ASSERT_EQ(test, fx->answers, n + 1);
	KUNIT_EXPECT_EQ(test, fx->answer[n].err, err);
}

/* The next frame into @q is an abort. */
static void coll_fx_expect_abort(struct kunit *test, struct coll_fixture *fx,
				 struct sk_buff_head *q)
{
	coll_fx_wait(fx, q, 0, 1000);
	KUNIT_EXPECT_EQ(test, coll_fx_phase(test, q), TORUS_COLL_ABORT);
}

/*
 * This node (1 on a line of 3) joins an int64 broadcast of @count
 * elements from the node at @root, each @v if it is the root.
 */
static int coll_fx_bcast_n(struct coll_fixture *fx, u8 root, u32 count,
			   s64 v)
{
	struct torus_coll_req req = {
		.kind = TORUS_COLL_BCAST,
		.type = TORUS_COLL_INT64,
		.root = root == 1,
		.has_root_coord = true,
		.root_coord = { root },
		.count = count,
		.timeout_ms = 5000,
		.net = &init_net,
	};
	s64 *data = NULL;
	u32 i;
	int err;

	if (root == 1) {
		data = kcalloc(count, sizeof(*data), GFP_KERNEL);
		if (!data)
			return -ENOMEM;
		for (i = 0; i < count; i++)
			data[i] = fx->send_ramp ? v + i : v;
	}
	req.data = data;
	err = coll_fx_join_req(fx, &req);
	kfree(data);
	return err;
}

/*
 * This node (1 on a line of 3) joins an int64 broadcast of one element
 * from the node at @root, giving @v if it is the root.
 */
static int coll_fx_bcast(struct coll_fixture *fx, u8 root, s64 v)
{
	return coll_fx_bcast_n(fx, root, 1, v);
}

/*
 * A broadcast runs down the tree rooted at its root, with no phase up:
 * below the root (at 0) this node sends nothing up and passes the data
 * down as it comes, also when it came before the join (a late node
 * delays only what is below it); at the root it sends down at once.
 */
static void torus_coll_rooted_bcast_test(struct kunit *test)
{
	struct coll_fixture *fx = test->priv;

	fx->send_bcast = true;
	KUNIT_ASSERT_EQ(test, coll_fx_bcast(fx, 0, 0), 0);
	coll_fx_wait(fx, &fx->to_parent, 0, 100);
	KUNIT_EXPECT_TRUE(test, skb_queue_empty(&fx->to_parent));
	coll_fx_send(fx, fx->line.a_far, TORUS_COLL_DOWN, 0, 77);
	coll_fx_expect_value(test, fx, &fx->to_child, TORUS_COLL_DOWN, 0, 77);
	coll_fx_expect_answer(test, fx, 0, 77);

	/* the data came first: passed on and answered at the join */
	coll_fx_send(fx, fx->line.a_far, TORUS_COLL_DOWN, 1, 78);
	msleep(50);
	KUNIT_EXPECT_TRUE(test, skb_queue_empty(&fx->to_child));
	KUNIT_ASSERT_EQ(test, coll_fx_bcast(fx, 0, 0), 0);
	coll_fx_expect_value(test, fx, &fx->to_child, TORUS_COLL_DOWN, 1, 78);
	coll_fx_expect_answer(test, fx, 1, 78);

	/* the root: both neighbours are its children, nothing to wait for */
	KUNIT_ASSERT_EQ(test, coll_fx_bcast(fx, 1, 79), 0);
	coll_fx_expect_value(test, fx, &fx->to_parent, TORUS_COLL_DOWN, 2, 79);
	coll_fx_expect_value(test, fx, &fx->to_child, TORUS_COLL_DOWN, 2, 79);
	coll_fx_expect_answer(test, fx, 2, 79);
}

/* The next captured frame: its phase, first element and element count. */
static void coll_fx_expect_frame(struct kunit *test, struct sk_buff_head *q,
				 u8 phase, u32 first, u32 n)
{
	struct sk_buff *skb = skb_dequeue(q);
	const struct torus_coll_hdr *ch;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_ASSERT_GE(test, skb->len, TORUS_HDR_LEN + TORUS_COLL_HDR_LEN);
	ch = (const void *)(skb->data + TORUS_HDR_LEN);
	KUNIT_EXPECT_EQ(test, ch->phase, phase);
	KUNIT_EXPECT_EQ(test, ntohl(ch->first), first);
	KUNIT_EXPECT_EQ(test, ntohl(ch->n), n);
	kfree_skb(skb);
}

#define COLL_FX_LARGE	(TORUS_COLL_EAGER_MAX + 1)

/*
 * A broadcast too large to buffer ahead of a join (the patent's
 * pre-allreduce picks the protocol): below the root this node says READY
 * to its parent at its join, and sends its child nothing, though it
 * holds the whole message, until the child says READY; then the child
 * gets it all at once, and only then is this node done.
 */
static void torus_coll_rendezvous_test(struct kunit *test)
{
	struct coll_fixture *fx = test->priv;

	fx->send_bcast = true;
	KUNIT_ASSERT_EQ(test, coll_fx_bcast_n(fx, 0, COLL_FX_LARGE, 0), 0);
	coll_fx_wait(fx, &fx->to_parent, 0, 1000);
	KUNIT_EXPECT_EQ(test, coll_fx_phase(test, &fx->to_parent),
			TORUS_COLL_READY);
	coll_fx_send_raw(fx, fx->line.a_far, TORUS_COLL_DOWN, 0, COLL_FX_LARGE,
			 COLL_FX_LARGE, COLL_FX_LARGE, 5);
	msleep(50);
	KUNIT_EXPECT_TRUE(test, skb_queue_empty(&fx->to_child));
	KUNIT_EXPECT_EQ(test, fx->answers, 0U);
	coll_fx_send_raw(fx, fx->line.b_far, TORUS_COLL_READY, 0, COLL_FX_LARGE,
			 0, 0, 0);
	coll_fx_wait(fx, &fx->to_child, 0, 1000);
	coll_fx_expect_frame(test, &fx->to_child, TORUS_COLL_DOWN, 0,
			     COLL_FX_LARGE);
	coll_fx_expect_answer(test, fx, 0, 5);
	KUNIT_EXPECT_TRUE(test, skb_queue_empty(&fx->to_parent));

	/* the root: each child is sent the data at its own READY */
	KUNIT_ASSERT_EQ(test, coll_fx_bcast_n(fx, 1, COLL_FX_LARGE, 6), 0);
	msleep(50);
	KUNIT_EXPECT_TRUE(test, skb_queue_empty(&fx->to_parent));
	KUNIT_EXPECT_TRUE(test, skb_queue_empty(&fx->to_child));
	coll_fx_send_raw(fx, fx->line.b_far, TORUS_COLL_READY, 1, COLL_FX_LARGE,
			 0, 0, 0);
	coll_fx_expect_value(test, fx, &fx->to_child, TORUS_COLL_DOWN, 1, 6);
	msleep(50);
	KUNIT_EXPECT_EQ(test, fx->answers, 1U);
	coll_fx_send_raw(fx, fx->line.a_far, TORUS_COLL_READY, 1, COLL_FX_LARGE,
			 0, 0, 0);
	coll_fx_expect_value(test, fx, &fx->to_parent, TORUS_COLL_DOWN, 1, 6);
	coll_fx_expect_answer(test, fx, 1, 6);
}

/*
 * The first operation, a rendezvous broadcast of @count elements from
 * the root at 0, with the child ahead of this node: its READY waits for
 * the join, and the join says READY to the parent.
 */
static void coll_fx_join_child_ahead(struct kunit *test,
				     struct coll_fixture *fx, u32 count)
{
	fx->send_bcast = true;
	coll_fx_send_raw(fx, fx->line.b_far, TORUS_COLL_READY, 0, count, 0, 0, 0);
	msleep(20);
	KUNIT_ASSERT_EQ(test, coll_fx_bcast_n(fx, 0, count, 0), 0);
	coll_fx_wait(fx, &fx->to_parent, 0, 1000);
	KUNIT_EXPECT_EQ(test, coll_fx_phase(test, &fx->to_parent),
			TORUS_COLL_READY);
}

/*
 * The next captured frame carries elements [@first, @first + @n), each
 * @v + its index, and came by reference (@by_ref) or as one buffer.
 */
static void coll_fx_expect_ramp(struct kunit *test, struct sk_buff_head *q,
				u32 first, u32 n, s64 v, bool by_ref)
{
	struct sk_buff *skb = skb_dequeue(q);
	const struct torus_coll_hdr *ch;
	const u8 *p;
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_EXPECT_EQ(test, (bool)COLL_FX_BY_REF(skb), by_ref);
	KUNIT_ASSERT_EQ(test, skb->len,
			TORUS_HDR_LEN + TORUS_COLL_HDR_LEN + 8 * n);
	ch = (const void *)(skb->data + TORUS_HDR_LEN);
	KUNIT_EXPECT_EQ(test, ch->phase, TORUS_COLL_DOWN);
	KUNIT_EXPECT_EQ(test, ntohl(ch->first), first);
	KUNIT_EXPECT_EQ(test, ntohl(ch->n), n);
	p = (const u8 *)(ch + 1);
	for (i = 0; i < n; i++)
		if ((s64)get_unaligned_be64(p + 8 * i) != v + first + i)
			break;
	KUNIT_EXPECT_EQ(test, i, n);
	kfree_skb(skb);
}

#define COLL_FX_REF_COUNT	(TORUS_COLL_REF_MIN / 8 + 10)

/*
 * A large frame goes on to the child by reference, no copy, and comes
 * out whole; a short one is copied.  A root sends its children's frames
 * by reference to one buffer, encoded once.
 */
static void torus_coll_by_reference_test(struct kunit *test)
{
	struct coll_fixture *fx = test->priv;

	fx->send_ramp = true;
	coll_fx_join_child_ahead(test, fx, COLL_FX_REF_COUNT);
	fx->send_first = 3;
	coll_fx_send_raw(fx, fx->line.a_far, TORUS_COLL_DOWN, 0, COLL_FX_REF_COUNT,
			 COLL_FX_REF_COUNT - 3, COLL_FX_REF_COUNT - 3, 100);
	coll_fx_wait(fx, &fx->to_child, 0, 1000);
	coll_fx_expect_ramp(test, &fx->to_child, 3, COLL_FX_REF_COUNT - 3, 100,
			    true);
	/* the rest, short: copied */
	fx->send_first = 0;
	coll_fx_send_raw(fx, fx->line.a_far, TORUS_COLL_DOWN, 0, COLL_FX_REF_COUNT,
			 3, 3, 100);
	coll_fx_wait(fx, &fx->to_child, 0, 1000);
	coll_fx_expect_ramp(test, &fx->to_child, 0, 3, 100, false);
	coll_fx_expect_answer(test, fx, 0, 100);

	/* the root, both children posted before it joins */
	coll_fx_send_raw(fx, fx->line.a_far, TORUS_COLL_READY, 1, COLL_FX_REF_COUNT,
			 0, 0, 0);
	coll_fx_send_raw(fx, fx->line.b_far, TORUS_COLL_READY, 1, COLL_FX_REF_COUNT,
			 0, 0, 0);
	msleep(20);
	KUNIT_ASSERT_EQ(test, coll_fx_bcast_n(fx, 1, COLL_FX_REF_COUNT, 40), 0);
	coll_fx_wait(fx, &fx->to_parent, 0, 1000);
	coll_fx_wait(fx, &fx->to_child, 0, 1000);
	coll_fx_expect_ramp(test, &fx->to_parent, 0, COLL_FX_REF_COUNT, 40,
			    true);
	coll_fx_expect_ramp(test, &fx->to_child, 0, COLL_FX_REF_COUNT, 40,
			    true);
	coll_fx_expect_answer(test, fx, 1, 40);
}

/*
 * A READY child before the data gets each frame as it comes
 * (cut-through); one whose READY comes in the middle of the message gets
 * what this node holds at once, in the order it came, then the rest as
 * it comes; a READY for another size is the patent's NACK: the buffers
 * do not match.
 */
static void torus_coll_rendezvous_cut_through_test(struct kunit *test)
{
	struct coll_fixture *fx = test->priv;

	coll_fx_join_child_ahead(test, fx, COLL_FX_LARGE);
	coll_fx_send_raw(fx, fx->line.a_far, TORUS_COLL_DOWN, 0, COLL_FX_LARGE,
			 40, 40, 8);
	coll_fx_wait(fx, &fx->to_child, 0, 1000);
	coll_fx_expect_frame(test, &fx->to_child, TORUS_COLL_DOWN, 0, 40);
	KUNIT_EXPECT_EQ(test, fx->answers, 0U);
	fx->send_first = 40;
	coll_fx_send_raw(fx, fx->line.a_far, TORUS_COLL_DOWN, 0, COLL_FX_LARGE,
			 COLL_FX_LARGE - 40, COLL_FX_LARGE - 40, 8);
	coll_fx_wait(fx, &fx->to_child, 0, 1000);
	coll_fx_expect_frame(test, &fx->to_child, TORUS_COLL_DOWN, 40,
			     COLL_FX_LARGE - 40);
	coll_fx_expect_answer(test, fx, 0, 8);

	/* the second half first, then the child's READY, then the first */
	KUNIT_ASSERT_EQ(test, coll_fx_bcast_n(fx, 0, COLL_FX_LARGE, 0), 0);
	coll_fx_send_raw(fx, fx->line.a_far, TORUS_COLL_DOWN, 1, COLL_FX_LARGE,
			 COLL_FX_LARGE - 40, COLL_FX_LARGE - 40, 9);
	fx->send_first = 0;
	msleep(20);
	KUNIT_EXPECT_TRUE(test, skb_queue_empty(&fx->to_child));
	coll_fx_send_raw(fx, fx->line.b_far, TORUS_COLL_READY, 1, COLL_FX_LARGE,
			 0, 0, 0);
	coll_fx_wait(fx, &fx->to_child, 0, 1000);
	coll_fx_expect_frame(test, &fx->to_child, TORUS_COLL_DOWN, 40,
			     COLL_FX_LARGE - 40);
	KUNIT_EXPECT_EQ(test, fx->answers, 1U);
	coll_fx_send_raw(fx, fx->line.a_far, TORUS_COLL_DOWN, 1, COLL_FX_LARGE,
			 40, 40, 9);
	coll_fx_wait(fx, &fx->to_child, 0, 1000);
	coll_fx_expect_frame(test, &fx->to_child, TORUS_COLL_DOWN, 0, 40);
	coll_fx_expect_answer(test, fx, 1, 9);

	/* a child posted for another size fails the operation */
	skb_queue_purge(&fx->to_parent);
	skb_queue_purge(&fx->to_child);
	KUNIT_ASSERT_EQ(test, coll_fx_bcast_n(fx, 0, COLL_FX_LARGE, 0), 0);
	coll_fx_send_raw(fx, fx->line.b_far, TORUS_COLL_READY, 2,
			 COLL_FX_LARGE + 1, 0, 0, 0);
	coll_fx_expect_error(test, fx, 2, -EPROTO);
}

#define COLL_FX_CREDIT_FRAMES	(TORUS_COLL_CREDITS * 3 / 2)

/*
 * Credits: a child is sent no more DOWN frames than its READYs allowed,
 * the rest when it gives more, and this node is done only once the child
 * has had everything.  This node gives its parent more credit each time
 * half of it has come.
 */
static void torus_coll_rendezvous_credit_test(struct kunit *test)
{
	u32 count = COLL_FX_CREDIT_FRAMES * 10, i;
	struct coll_fixture *fx = test->priv;
	struct sk_buff *skb;

	fx->send_bcast = true;
	fx->send_ramp = true;
	/* the child may have 3 frames */
	coll_fx_send_raw(fx, fx->line.b_far, TORUS_COLL_READY, 0, count, 3, 0, 0);
	msleep(20);
	KUNIT_ASSERT_EQ(test, coll_fx_bcast_n(fx, 0, count, 0), 0);
	coll_fx_wait(fx, &fx->to_parent, 0, 1000);
	coll_fx_expect_frame(test, &fx->to_parent, TORUS_COLL_READY, 0,
			     TORUS_COLL_CREDITS);
	for (i = 0; i < COLL_FX_CREDIT_FRAMES; i++) {
		fx->send_first = i * 10;
		coll_fx_send_raw(fx, fx->line.a_far, TORUS_COLL_DOWN, 0, count, 10,
				 10, 500);
		if ((i + 1) % (TORUS_COLL_CREDITS / 2) == 0 &&
		    i + 1 < COLL_FX_CREDIT_FRAMES) {
			/* half the credit used: more of it */
			coll_fx_wait(fx, &fx->to_parent, 0, 1000);
			coll_fx_expect_frame(test, &fx->to_parent,
					     TORUS_COLL_READY, i + 1,
					     TORUS_COLL_CREDITS);
		}
	}
	msleep(50);
	KUNIT_EXPECT_EQ(test, skb_queue_len(&fx->to_child), 3U);
	for (i = 0; i < 3; i++)
		coll_fx_expect_ramp(test, &fx->to_child, i * 10, 10, 500,
				    false);
	KUNIT_EXPECT_EQ(test, fx->answers, 0U);
	/* the rest in two grants; the last one ends the operation */
	fx->send_first = 3;
	coll_fx_send_raw(fx, fx->line.b_far, TORUS_COLL_READY, 0, count,
			 COLL_FX_CREDIT_FRAMES - 4, 0, 0);
	msleep(50);
	KUNIT_EXPECT_EQ(test, skb_queue_len(&fx->to_child),
			COLL_FX_CREDIT_FRAMES - 4);
	KUNIT_EXPECT_EQ(test, fx->answers, 0U);
	fx->send_first = COLL_FX_CREDIT_FRAMES - 1;
	coll_fx_send_raw(fx, fx->line.b_far, TORUS_COLL_READY, 0, count, 1, 0, 0);
	coll_fx_wait(fx, NULL, 1, 1000);
	KUNIT_EXPECT_EQ(test, skb_queue_len(&fx->to_child),
			COLL_FX_CREDIT_FRAMES - 3);
	for (i = 3; i < COLL_FX_CREDIT_FRAMES; i++)
		coll_fx_expect_ramp(test, &fx->to_child, i * 10, 10, 500,
				    false);
	coll_fx_expect_answer(test, fx, 0, 500);
	/* the parent's credit is not renewed once the message is whole */
	while ((skb = skb_dequeue(&fx->to_parent))) {
		KUNIT_EXPECT_TRUE(test, false);
		kfree_skb(skb);
	}
}

/*
 * The cable to the child goes down while the first operation waits for
 * the child: it fails at once with ENOLINK, not at its timeout.
 */
static void coll_fx_cut_child(struct kunit *test, struct coll_fixture *fx)
{
	int err;

	rtnl_lock();
	err = torport_set_cable(fx->line.b_port, 0, -1, NULL);
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test, err, 0);
	coll_fx_expect_error(test, fx, 0, -ENOLINK);
}

/*
 * A child that said READY but has not had the whole message (its credit
 * ran out): its cable goes down, ENOLINK at once, not at the timeout.
 */
static void torus_coll_rendezvous_starved_child_down_test(struct kunit *test)
{
	struct coll_fixture *fx = test->priv;

	fx->send_bcast = true;
	coll_fx_send_raw(fx, fx->line.b_far, TORUS_COLL_READY, 0, COLL_FX_LARGE,
			 1, 0, 0);
	msleep(20);
	KUNIT_ASSERT_EQ(test, coll_fx_bcast_n(fx, 0, COLL_FX_LARGE, 0), 0);
	coll_fx_send_raw(fx, fx->line.a_far, TORUS_COLL_DOWN, 0, COLL_FX_LARGE,
			 40, 40, 4);
	fx->send_first = 40;
	coll_fx_send_raw(fx, fx->line.a_far, TORUS_COLL_DOWN, 0, COLL_FX_LARGE,
			 COLL_FX_LARGE - 40, COLL_FX_LARGE - 40, 4);
	coll_fx_wait(fx, &fx->to_child, 0, 1000);
	msleep(50);
	KUNIT_EXPECT_EQ(test, skb_queue_len(&fx->to_child), 1U);
	KUNIT_EXPECT_EQ(test, fx->answers, 0U);
	coll_fx_cut_child(test, fx);
}

/* A child that never says READY: its cable goes down, ENOLINK at once. */
static void torus_coll_rendezvous_child_down_test(struct kunit *test)
{
	struct coll_fixture *fx = test->priv;

	fx->send_bcast = true;
	KUNIT_ASSERT_EQ(test, coll_fx_bcast_n(fx, 1, COLL_FX_LARGE, 3), 0);
	coll_fx_send_raw(fx, fx->line.a_far, TORUS_COLL_READY, 0, COLL_FX_LARGE,
			 0, 0, 0);
	coll_fx_expect_value(test, fx, &fx->to_parent, TORUS_COLL_DOWN, 0, 3);
	coll_fx_cut_child(test, fx);
}

/* A barrier's frames carry no elements, but they are sent. */
static void torus_coll_barrier_test(struct kunit *test)
{
	struct coll_fixture *fx = test->priv;
	struct torus_coll_req req = {
		.kind = TORUS_COLL_BARRIER,
		.timeout_ms = 5000,
		.net = &init_net,
	};

	fx->send_barrier = true;
	KUNIT_ASSERT_EQ(test, coll_fx_join_req(fx, &req), 0);
	coll_fx_wait(fx, &fx->to_parent, 0, 100);
	KUNIT_EXPECT_TRUE(test, skb_queue_empty(&fx->to_parent));
	coll_fx_send_raw(fx, fx->line.b_far, TORUS_COLL_UP, 0, 0, 0, 0, 0);
	coll_fx_wait(fx, &fx->to_parent, 0, 1000);
	coll_fx_expect_frame(test, &fx->to_parent, TORUS_COLL_UP, 0, 0);
	KUNIT_EXPECT_EQ(test, fx->answers, 0U);
	coll_fx_send_raw(fx, fx->line.a_far, TORUS_COLL_DOWN, 0, 0, 0, 0, 0);
	coll_fx_wait(fx, &fx->to_child, 0, 1000);
	coll_fx_expect_frame(test, &fx->to_child, TORUS_COLL_DOWN, 0, 0);
	coll_fx_wait(fx, NULL, 1, 1000);
	KUNIT_ASSERT_EQ(test, fx->answers, 1U);
	KUNIT_EXPECT_EQ(test, fx->answer[0].err, 0);
}

/* Up from the child, combined, to the parent; down again to both. */
static void torus_coll_updown_test(struct kunit *test)
{
	struct coll_fixture *fx = test->priv;

	KUNIT_ASSERT_EQ(test, coll_fx_join(fx, 5, 5000), 0);
	coll_fx_wait(fx, &fx->to_parent, 0, 100);
	/* nothing goes up before the child's part */
	KUNIT_EXPECT_TRUE(test, skb_queue_empty(&fx->to_parent));
	coll_fx_expect_up(test, fx, 0, 37, 42);
	coll_fx_send(fx, fx->line.a_far, TORUS_COLL_DOWN, 0, 100);
	coll_fx_expect_value(test, fx, &fx->to_child, TORUS_COLL_DOWN, 0, 100);
	coll_fx_expect_answer(test, fx, 0, 100);
}

/*
 * Cut-through: each DOWN frame goes on to the child as it comes, before
 * the rest of the message; the answer comes with the last.
 */
static void torus_coll_cut_through_test(struct kunit *test)
{
	struct coll_fixture *fx = test->priv;
	struct torus_coll_req req = {
		.kind = TORUS_COLL_ALLREDUCE,
		.type = TORUS_COLL_INT64,
		.op = TORUS_COLL_SUM,
		.count = 4,
		.timeout_ms = 5000,
		.net = &init_net,
	};
	s64 v[4] = { 1, 1, 1, 1 };
	const struct torus_coll_hdr *ch;
	struct sk_buff *skb;

	req.data = v;
	KUNIT_ASSERT_EQ(test, coll_fx_join_req(fx, &req), 0);
	coll_fx_send_raw(fx, fx->line.b_far, TORUS_COLL_UP, 0, 4, 4, 4, 2);
	coll_fx_expect_value(test, fx, &fx->to_parent, TORUS_COLL_UP, 0, 3);
	/* the first half of the result */
	coll_fx_send_raw(fx, fx->line.a_far, TORUS_COLL_DOWN, 0, 4, 2, 2, 9);
	coll_fx_wait(fx, &fx->to_child, 0, 1000);
	skb = skb_dequeue(&fx->to_child);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	ch = (const void *)(skb->data + TORUS_HDR_LEN);
	KUNIT_EXPECT_EQ(test, ch->phase, TORUS_COLL_DOWN);
	KUNIT_EXPECT_EQ(test, ntohl(ch->first), 0U);
	KUNIT_EXPECT_EQ(test, ntohl(ch->n), 2U);
	KUNIT_EXPECT_EQ(test, ntohl(ch->count), 4U);
	kfree_skb(skb);
	KUNIT_EXPECT_EQ(test, fx->answers, 0U);
	/* the second half: passed on too, and the answer is whole */
	fx->send_first = 2;
	coll_fx_send_raw(fx, fx->line.a_far, TORUS_COLL_DOWN, 0, 4, 2, 2, 9);
	fx->send_first = 0;
	coll_fx_wait(fx, &fx->to_child, 0, 1000);
	skb = skb_dequeue(&fx->to_child);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	ch = (const void *)(skb->data + TORUS_HDR_LEN);
	KUNIT_EXPECT_EQ(test, ntohl(ch->first), 2U);
	KUNIT_EXPECT_EQ(test, ntohl(ch->n), 2U);
	kfree_skb(skb);
	coll_fx_expect_answer(test, fx, 0, 9);
}

/* A child's part that comes before this node joins is kept. */
static void torus_coll_early_test(struct kunit *test)
{
	struct coll_fixture *fx = test->priv;

	coll_fx_send(fx, fx->line.b_far, TORUS_COLL_UP, 0, 10);
	msleep(50);
	KUNIT_ASSERT_EQ(test, coll_fx_join(fx, 1, 5000), 0);
	coll_fx_expect_value(test, fx, &fx->to_parent, TORUS_COLL_UP, 0, 11);
}

/* No child: the caller gets ETIMEDOUT in time and the tree an abort; a
 * late part of the dead operation is ignored and the next one works.
 */
static void torus_coll_timeout_test(struct kunit *test)
{
	struct coll_fixture *fx = test->priv;

	KUNIT_ASSERT_EQ(test, coll_fx_join(fx, 1, 30), 0);
	coll_fx_expect_error(test, fx, 0, -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, fx->answer[0].seq, 0U);
	/* and the tree is told */
	coll_fx_expect_abort(test, fx, &fx->to_parent);
	coll_fx_expect_abort(test, fx, &fx->to_child);

	coll_fx_send(fx, fx->line.b_far, TORUS_COLL_UP, 0, 1000);	/* stale */
	KUNIT_ASSERT_EQ(test, coll_fx_join(fx, 2, 5000), 0);
	coll_fx_expect_up(test, fx, 1, 3, 5);
}

static u64 coll_fx_drops(struct coll_fixture *fx, int reason)
{
	struct torus_node *node = netdev_priv(fx->line.node);
	struct torus_stats st;

	torus_stats_read(node->stats, &st);
	return st.drop[reason];
}

/*
 * Frames a neighbour gets wrong: more elements than the operation has,
 * or a frame shorter or longer than it says, is dropped and counted
 * (the operation waits on for the right one); an operation that
 * disagrees with this node's fails (EPROTO, and an abort to the tree)
 * rather than corrupting it; the next one works.
 */
static void torus_coll_malformed_test(struct kunit *test)
{
	struct coll_fixture *fx = test->priv;
	u64 before = coll_fx_drops(fx, TORUS_DROP_MALFORMED);

	coll_fx_send_raw(fx, fx->line.b_far, TORUS_COLL_UP, 0, 1, 2, 2, 1);
	coll_fx_send_raw(fx, fx->line.b_far, 7, 0, 1, 1, 1, 1);
	msleep(50);
	KUNIT_EXPECT_EQ(test, coll_fx_drops(fx, TORUS_DROP_MALFORMED),
			before + 2);

	KUNIT_ASSERT_EQ(test, coll_fx_join(fx, 1, 5000), 0);
	coll_fx_send_raw(fx, fx->line.b_far, TORUS_COLL_UP, 0, 1, 1, 0, 1);
	coll_fx_send_raw(fx, fx->line.b_far, TORUS_COLL_UP, 0, 1, 1, 2, 1);
	msleep(50);
	KUNIT_EXPECT_EQ(test, coll_fx_drops(fx, TORUS_DROP_MALFORMED),
			before + 4);
	KUNIT_EXPECT_TRUE(test, skb_queue_empty(&fx->to_parent));
	coll_fx_expect_up(test, fx, 0, 2, 3);
	coll_fx_send_raw(fx, fx->line.a_far, TORUS_COLL_ABORT, 0, 1, 0, 0, 0);
	coll_fx_expect_error(test, fx, 0, -ECONNABORTED);

	KUNIT_ASSERT_EQ(test, coll_fx_join(fx, 1, 5000), 0);
	coll_fx_send_raw(fx, fx->line.b_far, TORUS_COLL_UP, 1, 2, 1, 1, 1);
	coll_fx_expect_error(test, fx, 1, -EPROTO);
	coll_fx_expect_abort(test, fx, &fx->to_parent);

	KUNIT_ASSERT_EQ(test, coll_fx_join(fx, 4, 5000), 0);
	coll_fx_expect_up(test, fx, 2, 5, 9);
}

/*
 * A failure travels the tree: an abort from the parent fails the
 * operation at once and goes on to the child; a cut cable to a child
 * that still owes its part fails it and tells the parent.
 */
static void torus_coll_abort_test(struct kunit *test)
{
	struct coll_fixture *fx = test->priv;
	int err;

	KUNIT_ASSERT_EQ(test, coll_fx_join(fx, 1, 30000), 0);
	coll_fx_send_raw(fx, fx->line.a_far, TORUS_COLL_ABORT, 0, 1, 0, 0, 0);
	coll_fx_expect_error(test, fx, 0, -ECONNABORTED);
	coll_fx_expect_abort(test, fx, &fx->to_child);
	KUNIT_EXPECT_TRUE(test, skb_queue_empty(&fx->to_parent));

	KUNIT_ASSERT_EQ(test, coll_fx_join(fx, 1, 30000), 0);
	rtnl_lock();
	err = torport_set_cable(fx->line.b_port, 0, -1, NULL);
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test, err, 0);
	coll_fx_expect_error(test, fx, 1, -ENOLINK);
	coll_fx_expect_abort(test, fx, &fx->to_parent);
}

/* With the cable to the parent cut, joining fails at once (ENOLINK)
 * and the child is told.
 */
static void torus_coll_no_parent_test(struct kunit *test)
{
	struct coll_fixture *fx = test->priv;
	int err;

	rtnl_lock();
	err = torport_set_cable(fx->line.a_port, 0, -1, NULL);
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test, err, 0);
	msleep(50);	/* the link watcher turns the carrier off */
	KUNIT_ASSERT_EQ(test, coll_fx_join(fx, 1, 30000), 0);
	coll_fx_expect_error(test, fx, 0, -ENOLINK);
	coll_fx_expect_abort(test, fx, &fx->to_child);
}

/* Four operations in flight complete in any order. */
static void torus_coll_in_flight_test(struct kunit *test)
{
	struct coll_fixture *fx = test->priv;
	unsigned int i;
	u32 seq;

	for (i = 0; i < 4; i++)
		KUNIT_ASSERT_EQ(test, coll_fx_join(fx, i, 5000), 0);
	for (seq = 4; seq-- > 0;)
		coll_fx_send(fx, fx->line.b_far, TORUS_COLL_UP, seq, 10);
	for (i = 0; i < 4; i++) {
		coll_fx_wait(fx, &fx->to_parent, 0, 1000);
		KUNIT_ASSERT_FALSE(test, skb_queue_empty(&fx->to_parent));
		kfree_skb(skb_dequeue(&fx->to_parent));
	}
	for (seq = 4; seq-- > 0;)
		coll_fx_send(fx, fx->line.a_far, TORUS_COLL_DOWN, seq, 1000 + seq);
	coll_fx_wait(fx, NULL, 4, 2000);
	KUNIT_ASSERT_EQ(test, fx->answers, 4U);
	for (i = 0; i < 4; i++) {
		KUNIT_EXPECT_EQ(test, fx->answer[i].err, 0);
		KUNIT_EXPECT_EQ(test, fx->answer[i].val,
				1000ULL + fx->answer[i].seq);
	}
	KUNIT_EXPECT_EQ(test, fx->answer[0].seq, 3U);
}

/*
 * A group (here the node's x line) numbers its operations on its own:
 * the whole fabric's operation 0 does not take the line's frames, the
 * line's frames carry its group, and a group spanning an axis the
 * fabric does not have is refused.
 */
static void torus_coll_group_test(struct kunit *test)
{
	struct coll_fixture *fx = test->priv;
	s64 v = 5;
	struct torus_coll_req req = {
		.group = 1,
		.kind = TORUS_COLL_ALLREDUCE,
		.type = TORUS_COLL_INT64,
		.op = TORUS_COLL_SUM,
		.count = 1,
		.timeout_ms = 5000,
		.data = &v,
		.net = &init_net,
	};
	const struct torus_coll_hdr *ch;
	struct sk_buff *skb;
	int err;

	KUNIT_ASSERT_EQ(test, coll_fx_join(fx, 1, 5000), 0);
	rtnl_lock();
	err = torus_coll_join(netdev_priv(fx->line.node), &req, NULL);
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test, err, 0);
	/* y does not exist here: dropped, nothing goes up */
	fx->send_group = 2;
	coll_fx_send(fx, fx->line.b_far, TORUS_COLL_UP, 0, 100);
	fx->send_group = 1;
	coll_fx_send(fx, fx->line.b_far, TORUS_COLL_UP, 0, 37);
	coll_fx_wait(fx, &fx->to_parent, 0, 1000);
	skb = skb_dequeue(&fx->to_parent);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	ch = (const void *)(skb->data + TORUS_HDR_LEN);
	KUNIT_EXPECT_EQ(test, ntohs(ch->group), 1);
	KUNIT_EXPECT_EQ(test, ntohl(ch->seq), 0U);
	KUNIT_EXPECT_EQ(test, (s64)get_unaligned_be64(skb->data +
						      TORUS_HDR_LEN +
						      TORUS_COLL_HDR_LEN), 42);
	kfree_skb(skb);
	/* the whole fabric's operation 0 still waits for its child */
	KUNIT_EXPECT_TRUE(test, skb_queue_empty(&fx->to_parent));
	fx->send_group = 0;
}

/* one frame's worth of int64 on a torport, and one more */
#define COLL_MTU_COUNT	(TORUS_COLL_FRAME_MAX / 8 + 1)

/*
 * A torport carries a collective frame beyond its MTU, as it carries a
 * GSO packet whole: at the standard MTU a frame takes TORUS_COLL_FRAME_MAX
 * bytes of int64 up, where eleven frames of 1500 bytes would be needed,
 * and the next frame takes the rest.  A full frame's buffer stays within
 * 16 KiB: one byte more doubles what the kernel allocates (and zeroes);
 * the last one's is as small as its one element allows.
 */
static void torus_coll_mtu_frames_test(struct kunit *test)
{
	struct torus_coll_req req = {
		.kind = TORUS_COLL_ALLREDUCE,
		.type = TORUS_COLL_INT64,
		.op = TORUS_COLL_SUM,
		.count = COLL_MTU_COUNT,
		.timeout_ms = 5000,
		.net = &init_net,
	};
	struct coll_fixture *fx = test->priv;
	const struct torus_coll_hdr *ch;
	struct sk_buff *skb;
	s64 *v;

	v = kunit_kcalloc(test, COLL_MTU_COUNT, sizeof(*v), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, v);
	req.data = v;
	KUNIT_ASSERT_EQ(test, fx->line.a_port->mtu, (unsigned int)ETH_DATA_LEN);
	KUNIT_ASSERT_EQ(test, coll_fx_join_req(fx, &req), 0);
	/* the child's part as it sends it: a full frame and the rest */
	coll_fx_send_raw(fx, fx->line.b_far, TORUS_COLL_UP, 0, COLL_MTU_COUNT,
			 COLL_MTU_COUNT - 1, COLL_MTU_COUNT - 1, 1);
	fx->send_first = COLL_MTU_COUNT - 1;
	coll_fx_send_raw(fx, fx->line.b_far, TORUS_COLL_UP, 0, COLL_MTU_COUNT,
			 1, 1, 1);
	fx->send_first = 0;
	coll_fx_wait(fx, &fx->to_parent, 0, 1000);
	skb = skb_dequeue(&fx->to_parent);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	ch = (const void *)(skb->data + TORUS_HDR_LEN);
	KUNIT_EXPECT_EQ(test, ch->phase, TORUS_COLL_UP);
	KUNIT_EXPECT_EQ(test, ntohl(ch->n), (u32)COLL_MTU_COUNT - 1);
	KUNIT_EXPECT_EQ(test, skb->len, TORUS_HDR_LEN + TORUS_COLL_HDR_LEN +
			TORUS_COLL_FRAME_MAX);
	KUNIT_EXPECT_LE(test, ksize(skb->head), (size_t)SZ_16K);
	kfree_skb(skb);
	coll_fx_wait(fx, &fx->to_parent, 0, 1000);
	skb = skb_dequeue(&fx->to_parent);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	ch = (const void *)(skb->data + TORUS_HDR_LEN);
	KUNIT_EXPECT_EQ(test, ntohl(ch->first), (u32)COLL_MTU_COUNT - 1);
	KUNIT_EXPECT_EQ(test, ntohl(ch->n), 1U);
	/* sized by what it carries, not by what a frame may */
	KUNIT_EXPECT_LE(test, ksize(skb->head), (size_t)SZ_1K);
	kfree_skb(skb);
	KUNIT_EXPECT_TRUE(test, skb_queue_empty(&fx->to_parent));
}

#define COLL_FX_LIST	(TORUS_COLL_GROUP_LIST | 7)

/*
 * The frames sent in from now on are node list @group's, routed from
 * @src to this node (1); group 0: one-hop frames of the fabric again.
 */
static void coll_fx_route_in(struct coll_fixture *fx, u16 group, u8 src)
{
	fx->send_group = group;
	fx->send_routed = !!group;
	fx->send_src = src;
	fx->send_dst = 1;
}

/*
 * This node (1 on a line of 3) joins an int64 sum in a node list, under
 * the group of the frames sent in.
 */
static int coll_fx_join_list(struct coll_fixture *fx, const u32 *members,
			     u32 n, s64 v)
{
	struct torus_coll_req req = {
		.group = fx->send_group,
		.members = members,
		.nmembers = n,
		.kind = TORUS_COLL_ALLREDUCE,
		.type = TORUS_COLL_INT64,
		.op = TORUS_COLL_SUM,
		.count = 1,
		.timeout_ms = 5000,
		.data = &v,
		.net = &init_net,
	};

	return coll_fx_join_req(fx, &req);
}

/*
 * The next frame into @q is a node list's (the group of the frames sent
 * in), routed from @src to @dst.
 */
static void coll_fx_expect_routed(struct kunit *test, struct coll_fixture *fx,
				  struct sk_buff_head *q, u8 src, u8 dst,
				  u8 hops, u8 phase, u32 seq, s64 v)
{
	const struct torus_coll_hdr *ch;
	const struct torus_hdr *h;
	struct sk_buff *skb;

	coll_fx_wait(fx, q, 0, 1000);
	skb = skb_dequeue(q);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_ASSERT_GE(test, skb->len,
			TORUS_HDR_LEN + TORUS_COLL_HDR_LEN + 8U);
	h = (const void *)skb->data;
	ch = (const void *)(skb->data + TORUS_HDR_LEN);
	KUNIT_EXPECT_EQ(test, h->type, TORUS_T_COLL);
	KUNIT_EXPECT_EQ(test, h->src[0], src);
	KUNIT_EXPECT_EQ(test, h->dst[0], dst);
	KUNIT_EXPECT_EQ(test, h->hop_limit, hops);
	KUNIT_EXPECT_EQ(test, ntohs(ch->group), fx->send_group);
	KUNIT_EXPECT_EQ(test, ch->phase, phase);
	KUNIT_EXPECT_EQ(test, ntohl(ch->seq), seq);
	KUNIT_EXPECT_EQ(test, (s64)get_unaligned_be64(skb->data +
						      TORUS_HDR_LEN +
						      TORUS_COLL_HDR_LEN), v);
	kfree_skb(skb);
}

/*
 * A node list's tree is over its members, its frames routed: in
 * {0, 1, 2} this node is a leaf below 0; it takes the result only from
 * its parent (a member that is none of its edges is stray), and a frame
 * of the list between 0 and 2 passes through it in the data path, the
 * engine untouched.
 */
static void torus_coll_list_test(struct kunit *test)
{
	static const u32 all[] = { 0, 1, 2 };
	struct coll_fixture *fx = test->priv;

	coll_fx_route_in(fx, COLL_FX_LIST, 0);
	KUNIT_ASSERT_EQ(test, coll_fx_join_list(fx, all, 3, 5), 0);
	coll_fx_expect_routed(test, fx, &fx->to_parent, 1, 0,
			      TORUS_HOP_LIMIT_DEFAULT, TORUS_COLL_UP, 0, 5);
	/* 0 -> 2 through this node: relayed with one hop less */
	fx->send_dst = 2;
	coll_fx_send(fx, fx->line.a_far, TORUS_COLL_DOWN, 0, 77);
	coll_fx_expect_routed(test, fx, &fx->to_child, 0, 2, COLL_FX_HOPS - 1,
			      TORUS_COLL_DOWN, 0, 77);
	/* the result from 2, no edge of this node, is stray */
	coll_fx_route_in(fx, COLL_FX_LIST, 2);
	coll_fx_send(fx, fx->line.b_far, TORUS_COLL_DOWN, 0, 66);
	coll_fx_wait(fx, NULL, 1, 100);
	KUNIT_EXPECT_EQ(test, fx->answers, 0U);
	coll_fx_route_in(fx, COLL_FX_LIST, 0);
	coll_fx_send(fx, fx->line.a_far, TORUS_COLL_DOWN, 0, 42);
	coll_fx_expect_answer(test, fx, 0, 42);
	KUNIT_EXPECT_TRUE(test, skb_queue_empty(&fx->to_child));
	coll_fx_route_in(fx, 0, 0);
}

/*
 * In {1, 2} this node is the root, 2 its child; the list is numbered on
 * its own (the fabric's operation 0 is not disturbed), and the same
 * number given to other members restarts the numbering.
 */
static void torus_coll_list_root_test(struct kunit *test)
{
	static const u32 pair[] = { 1, 2 }, other[] = { 0, 1 };
	struct coll_fixture *fx = test->priv;

	KUNIT_ASSERT_EQ(test, coll_fx_join(fx, 1, 5000), 0);
	coll_fx_route_in(fx, COLL_FX_LIST, 2);
	KUNIT_ASSERT_EQ(test, coll_fx_join_list(fx, pair, 2, 5), 0);
	coll_fx_send(fx, fx->line.b_far, TORUS_COLL_UP, 0, 37);
	coll_fx_expect_routed(test, fx, &fx->to_child, 1, 2,
			      TORUS_HOP_LIMIT_DEFAULT, TORUS_COLL_DOWN, 0, 42);
	coll_fx_expect_answer(test, fx, 0, 42);
	/* its next operation is 1 */
	KUNIT_ASSERT_EQ(test, coll_fx_join_list(fx, pair, 2, 1), 0);
	coll_fx_send(fx, fx->line.b_far, TORUS_COLL_UP, 1, 2);
	coll_fx_expect_routed(test, fx, &fx->to_child, 1, 2,
			      TORUS_HOP_LIMIT_DEFAULT, TORUS_COLL_DOWN, 1, 3);
	coll_fx_expect_answer(test, fx, 1, 3);
	/* other members under the number: operation 0 again, below 0 */
	KUNIT_ASSERT_EQ(test, coll_fx_join_list(fx, other, 2, 4), 0);
	coll_fx_expect_routed(test, fx, &fx->to_parent, 1, 0,
			      TORUS_HOP_LIMIT_DEFAULT, TORUS_COLL_UP, 0, 4);
	/* the fabric's operation 0 still waits for its child */
	KUNIT_EXPECT_TRUE(test, skb_queue_empty(&fx->to_parent));
	coll_fx_route_in(fx, 0, 0);
}

/*
 * Each list keeps its numbering while another is used: a second list
 * new here takes a free entry, not the first's (idle) one.
 */
static void torus_coll_list_numbering_test(struct kunit *test)
{
	static const u32 pair[] = { 1, 2 }, other[] = { 0, 1 };
	struct coll_fixture *fx = test->priv;

	coll_fx_route_in(fx, COLL_FX_LIST, 2);
	KUNIT_ASSERT_EQ(test, coll_fx_join_list(fx, pair, 2, 5), 0);
	coll_fx_send(fx, fx->line.b_far, TORUS_COLL_UP, 0, 1);
	coll_fx_expect_answer(test, fx, 0, 6);
	coll_fx_route_in(fx, COLL_FX_LIST + 1, 2);
	KUNIT_ASSERT_EQ(test, coll_fx_join_list(fx, other, 2, 4), 0);
	coll_fx_expect_routed(test, fx, &fx->to_parent, 1, 0,
			      TORUS_HOP_LIMIT_DEFAULT, TORUS_COLL_UP, 0, 4);
	/* the first list's next operation is its 1 */
	coll_fx_route_in(fx, COLL_FX_LIST, 2);
	KUNIT_ASSERT_EQ(test, coll_fx_join_list(fx, pair, 2, 5), 0);
	coll_fx_send(fx, fx->line.b_far, TORUS_COLL_UP, 1, 2);
	coll_fx_expect_answer(test, fx, 1, 7);
	coll_fx_route_in(fx, 0, 0);
}

#define COLL_PLACE_COUNT	3

/*
 * A placement of @buf, its COLL_PLACE_COUNT elements, as the kernel's own
 * memory: freed by torus_coll_place_done() or _release().
 */
static struct torus_coll_place *coll_fx_place(struct kunit *test, s64 *buf)
{
	struct torus_coll_place *place = kzalloc(sizeof(*place), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, place);
	place->vals = (u64 *)buf;
	place->len = COLL_PLACE_COUNT * sizeof(*buf);
	place->written = true;
	return place;
}

/*
 * A result placed in the caller's buffer (TORUS_A_COLL_PLACE; here the
 * kernel's own memory stands for the pinned pages): the data coming down
 * land in it whatever it held, and the answer says so instead of
 * carrying a copy; the netlink answer has the flag and no result.  A
 * failed operation places nothing, and a refused one (no operation
 * starts) leaves the buffer as it was, an exact sum's too.
 */
static void torus_coll_place_test(struct kunit *test)
{
	struct torus_coll_req req = {
		.kind = TORUS_COLL_BCAST,
		.type = TORUS_COLL_INT64,
		.has_root_coord = true,
		.root_coord = { 0 },
		.count = COLL_PLACE_COUNT,
		.timeout_ms = 5000,
		.net = &init_net,
	};
	struct torus_coll_done done = {
		.net = &init_net,
		.type = TORUS_COLL_INT64,
		.count = COLL_PLACE_COUNT,
		.placed = true,
	};
	static const u32 others[] = { 0, 2 };
	u64 data[COLL_PLACE_COUNT] = { 1, 2, 3 };
	struct torus_coll_req refused = {
		.kind = TORUS_COLL_ALLREDUCE,
		.type = TORUS_COLL_DOUBLE,
		.op = TORUS_COLL_SUM,
		.group = COLL_FX_LIST,
		.members = others,
		.nmembers = ARRAY_SIZE(others),
		.count = COLL_PLACE_COUNT,
		.timeout_ms = 5000,
		.data = data,
		.net = &init_net,
	};
	struct coll_fixture *fx = test->priv;
	struct torus_coll_place *place;
	struct sk_buff *skb;
	s64 *buf;
	u32 i;

	buf = kunit_kmalloc_array(test, COLL_PLACE_COUNT, sizeof(*buf),
				  GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	memset(buf, 0x55, COLL_PLACE_COUNT * sizeof(*buf));

	/* refused: this node is no member of the list; the caller keeps
	 * the placement
	 */
	place = coll_fx_place(test, buf);
	refused.place = place;
	KUNIT_EXPECT_LT(test, coll_fx_join_req(fx, &refused), 0);
	torus_coll_place_release(place);
	for (i = 0; i < COLL_PLACE_COUNT; i++)
		KUNIT_EXPECT_EQ(test, (u64)buf[i], 0x5555555555555555ULL);
	/* the engine's to release (torus_coll_place_done) once it joined */
	place = coll_fx_place(test, buf);
	req.place = place;
	fx->send_bcast = true;
	KUNIT_ASSERT_EQ(test, coll_fx_join_req(fx, &req), 0);
	coll_fx_send_raw(fx, fx->line.a_far, TORUS_COLL_DOWN, 0, COLL_PLACE_COUNT,
			 COLL_PLACE_COUNT, COLL_PLACE_COUNT, -77);
	coll_fx_wait(fx, NULL, 1, 1000);
	KUNIT_ASSERT_EQ(test, fx->answers, 1U);
	KUNIT_EXPECT_EQ(test, fx->answer[0].err, 0);
	KUNIT_EXPECT_TRUE(test, fx->answer[0].placed);
	for (i = 0; i < COLL_PLACE_COUNT; i++)
		KUNIT_EXPECT_EQ(test, buf[i], -77);
	/* passed on to the child from the placed buffer */
	coll_fx_expect_value(test, fx, &fx->to_child, TORUS_COLL_DOWN, 0, -77);

	/* a failed one: its answer is the error, no placement */
	place = coll_fx_place(test, buf);
	req.place = place;
	KUNIT_ASSERT_EQ(test, coll_fx_join_req(fx, &req), 0);
	coll_fx_send_raw(fx, fx->line.a_far, TORUS_COLL_ABORT, 1, COLL_PLACE_COUNT,
			 0, 0, 0);
	coll_fx_expect_error(test, fx, 1, -ECONNABORTED);
	KUNIT_EXPECT_FALSE(test, fx->answer[1].placed);

	/* what the requester is sent: the flag, no copy of the result */
	skb = genlmsg_new(torus_coll_answer_size(done.type, done.count,
						 false, false), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb = torus_coll_nl_reply(skb, &done);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_EXPECT_NOT_NULL(test, nlmsg_find_attr(nlmsg_hdr(skb),
						    GENL_HDRLEN,
						    TORUS_A_COLL_PLACED));
	KUNIT_EXPECT_NULL(test, nlmsg_find_attr(nlmsg_hdr(skb), GENL_HDRLEN,
						TORUS_A_COLL_RESULT));
	kfree_skb(skb);
}

/* torusd installs a tree, as a tool does: RTNL held */
static void coll_fx_tree(struct coll_fixture *fx, bool set, u8 parent,
			 u32 children)
{
	rtnl_lock();
	torus_coll_tree_install(netdev_priv(fx->line.node), set, parent, children);
	rtnl_unlock();
}

/*
 * Another tree, installed while an operation on the whole fabric is in
 * flight, fails it at once and tells both neighbours; the same tree
 * installed again changes nothing; an abort from a neighbour that is no
 * edge of this node's tree (it joined on another one) fails it, and
 * every abort on the whole fabric goes on to every neighbour.
 */
static void torus_coll_tree_change_test(struct kunit *test)
{
	struct coll_fixture *fx = test->priv;
	u8 parent = TORUS_DIR(0, 1), child = TORUS_DIR(0, 0);
	u64 drops;

	KUNIT_ASSERT_EQ(test, coll_fx_join(fx, 1, 30000), 0);
	coll_fx_tree(fx, true, parent, BIT(child));
	coll_fx_expect_error(test, fx, 0, -ENETRESET);
	coll_fx_expect_abort(test, fx, &fx->to_parent);
	coll_fx_expect_abort(test, fx, &fx->to_child);
	/* a neighbour's abort of it, come round: no drop, no answer */
	drops = coll_fx_drops(fx, TORUS_DROP_MALFORMED);
	coll_fx_send_raw(fx, fx->line.a_far, TORUS_COLL_ABORT, 0, 1, 0, 0, 0);
	msleep(50);
	KUNIT_EXPECT_EQ(test, coll_fx_drops(fx, TORUS_DROP_MALFORMED), drops);
	KUNIT_EXPECT_EQ(test, fx->answers, 1U);

	KUNIT_ASSERT_EQ(test, coll_fx_join(fx, 1, 30000), 0);
	coll_fx_tree(fx, true, parent, BIT(child));
	coll_fx_expect_up(test, fx, 1, 2, 3);
	coll_fx_send(fx, fx->line.a_far, TORUS_COLL_DOWN, 1, 9);
	coll_fx_expect_answer(test, fx, 1, 9);
	coll_fx_expect_value(test, fx, &fx->to_child, TORUS_COLL_DOWN, 1, 9);

	/* a leaf now: the neighbour at +x is no child */
	coll_fx_tree(fx, true, parent, 0);
	KUNIT_ASSERT_EQ(test, coll_fx_join(fx, 1, 30000), 0);
	coll_fx_expect_value(test, fx, &fx->to_parent, TORUS_COLL_UP, 2, 1);
	coll_fx_send_raw(fx, fx->line.b_far, TORUS_COLL_ABORT, 2, 1, 0, 0, 0);
	coll_fx_expect_error(test, fx, 2, -ECONNABORTED);
	coll_fx_expect_abort(test, fx, &fx->to_parent);
	KUNIT_EXPECT_TRUE(test, skb_queue_empty(&fx->to_child));

	/* and the parent's abort goes on to every neighbour, tree or not */
	KUNIT_ASSERT_EQ(test, coll_fx_join(fx, 1, 30000), 0);
	coll_fx_expect_value(test, fx, &fx->to_parent, TORUS_COLL_UP, 3, 1);
	coll_fx_send_raw(fx, fx->line.a_far, TORUS_COLL_ABORT, 3, 1, 0, 0, 0);
	coll_fx_expect_error(test, fx, 3, -ECONNABORTED);
	coll_fx_expect_abort(test, fx, &fx->to_child);
	KUNIT_EXPECT_TRUE(test, skb_queue_empty(&fx->to_parent));
}

/* ---- a hostile neighbour ---- */

/* The node's operation in flight (the only one), or NULL. */
static struct torus_coll_slot *coll_fx_slot(struct coll_fixture *fx)
{
	struct torus_node *node = netdev_priv(fx->line.node);
	struct torus_coll *coll = rtnl_dereference(node->coll);
	unsigned int i;

	for (i = 0; i < TORUS_COLL_SLOTS; i++)
		if (coll->slot[i].state == TORUS_COLL_JOINED ||
		    coll->slot[i].state == TORUS_COLL_UP_SENT)
			return &coll->slot[i];
	return NULL;
}

/* @skb (data at its torus header) into the engine, as @port delivers it */
static void coll_fx_rx_skb(struct coll_fixture *fx, struct net_device *port,
			   struct sk_buff *skb)
{
	rcu_read_lock();
	local_bh_disable();
	torus_coll_rx(netdev_priv(fx->line.node), torus_port_from_dev(port), skb);
	local_bh_enable();
	rcu_read_unlock();
}

/*
 * A collective frame straight into the engine, as the child's port
 * delivers it (the frames of the floods below, many and fast):
 * @n int64 elements of an allreduce of @count, or of a broadcast's.
 */
static void coll_fx_rx(struct coll_fixture *fx, struct net_device *port,
		       u8 phase, u16 group, u32 seq, u32 count, u32 first,
		       u32 n)
{
	u8 src[TORUS_MAX_AXES] = { port == fx->line.a_port ? 0 : 2 };
	u8 dst[TORUS_MAX_AXES] = { 1 };
	struct coll_fx_hdr f = {
		.phase = phase,
		.kind = fx->send_bcast ? TORUS_COLL_BCAST : TORUS_COLL_ALLREDUCE,
		.type = TORUS_COLL_INT64,
		.op = fx->send_bcast ? 0 : TORUS_COLL_SUM,
		.group = group,
		.seq = seq,
		.count = count,
		.first = first,
		.n = n,
	};
	struct sk_buff *skb;

	skb = alloc_skb(TORUS_HDR_LEN + TORUS_COLL_HDR_LEN + 8 * n,
			GFP_KERNEL);
	if (!skb)
		return;
	coll_fx_put_hdrs(skb, src, dst, 1, &f);
	memset(skb_put(skb, 8 * n), 0x11, 8 * n);
	coll_fx_rx_skb(fx, port, skb);
}

/*
 * A broadcast's root whose data are in its caller's buffer, pinned for
 * reading only, on an installed tree where it has a parent: a child's
 * UP frame with other values and a DOWN frame from the parent write
 * nothing there, and the operation still ends.
 */
static void torus_coll_readonly_place_test(struct kunit *test)
{
	struct torus_coll_req req = {
		.kind = TORUS_COLL_BCAST,
		.type = TORUS_COLL_INT64,
		.root = true,
		.has_root_coord = true,
		.root_coord = { 1 },
		.count = COLL_PLACE_COUNT,
		.timeout_ms = 5000,
		.net = &init_net,
	};
	struct coll_fixture *fx = test->priv;
	struct torus_coll_place *place;
	s64 *buf;
	u32 i;

	buf = kunit_kmalloc_array(test, COLL_PLACE_COUNT, sizeof(*buf),
				  GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < COLL_PLACE_COUNT; i++)
		buf[i] = 100 + i;
	coll_fx_tree(fx, true, TORUS_DIR(0, 1), BIT(TORUS_DIR(0, 0)));
	place = coll_fx_place(test, buf);
	place->written = false;		/* the root's data, read only */
	req.place = place;
	fx->send_bcast = true;
	KUNIT_ASSERT_EQ(test, coll_fx_join_req(fx, &req), 0);
	coll_fx_send_raw(fx, fx->line.b_far, TORUS_COLL_UP, 0, COLL_PLACE_COUNT,
			 COLL_PLACE_COUNT, COLL_PLACE_COUNT, -5);
	/* its own data go up, not the child's */
	coll_fx_expect_value(test, fx, &fx->to_parent, TORUS_COLL_UP, 0, 100);
	coll_fx_send_raw(fx, fx->line.a_far, TORUS_COLL_DOWN, 0, COLL_PLACE_COUNT,
			 COLL_PLACE_COUNT, COLL_PLACE_COUNT, -9);
	coll_fx_expect_answer(test, fx, 0, 0);
	KUNIT_EXPECT_TRUE(test, fx->answer[0].placed);
	for (i = 0; i < COLL_PLACE_COUNT; i++)
		KUNIT_EXPECT_EQ(test, buf[i], (s64)(100 + i));
}

/*
 * Frames for operations nobody here joined cannot take what joins need:
 * sixteen of them on as many groups (the slots there are) leave a join
 * its slot, one beyond the window of sequence numbers is refused, and
 * the joined operation runs.
 */
static void torus_coll_early_slots_test(struct kunit *test)
{
	struct coll_fixture *fx = test->priv;
	u64 refused = coll_fx_drops(fx, TORUS_DROP_COLL_REFUSED);
	u32 seq;

	for (seq = 1; seq <= TORUS_COLL_SLOTS; seq++)
		coll_fx_rx(fx, fx->line.b_port, TORUS_COLL_UP, 0, seq, 1, 0, 1);
	for (seq = 0; seq < TORUS_COLL_SLOTS; seq++)
		coll_fx_rx(fx, fx->line.b_port, TORUS_COLL_UP,
			   TORUS_COLL_GROUP_LIST | seq, seq, 1, 0, 1);
	/* seq 16 of group 0 is beyond the window, and no slot was left */
	KUNIT_EXPECT_GE(test, coll_fx_drops(fx, TORUS_DROP_COLL_REFUSED),
			refused + 1);
	KUNIT_ASSERT_EQ(test, coll_fx_join(fx, 1, 5000), 0);
	coll_fx_expect_up(test, fx, 0, 2, 3);
	coll_fx_send(fx, fx->line.a_far, TORUS_COLL_DOWN, 0, 7);
	coll_fx_expect_answer(test, fx, 0, 7);
}

#define COLL_FX_FLOOD	100000

/*
 * Bytes kept in every slot's frames ahead of a join, and (@counted) what
 * the node counts of them.
 */
static size_t coll_fx_early_bytes(struct coll_fixture *fx, size_t *counted)
{
	struct torus_node *node = netdev_priv(fx->line.node);
	struct torus_coll *coll;
	struct sk_buff *skb;
	size_t bytes = 0;
	unsigned int i;

	rtnl_lock();
	coll = rtnl_dereference(node->coll);
	spin_lock_bh(&coll->lock);
	for (i = 0; i < TORUS_COLL_SLOTS; i++)
		skb_queue_walk(&coll->slot[i].early, skb)
			bytes += skb->truesize;
	if (counted)
		*counted = coll->early_bytes;
	spin_unlock_bh(&coll->lock);
	rtnl_unlock();
	return bytes;
}

/*
 * 10^5 frames of the largest size, for every operation a neighbour may
 * announce, leave what the node keeps under its budget.
 */
static void torus_coll_early_budget_test(struct kunit *test)
{
	u32 n = TORUS_COLL_FRAME_MAX / 8, i;
	struct coll_fixture *fx = test->priv;

	for (i = 0; i < COLL_FX_FLOOD; i++)
		coll_fx_rx(fx, fx->line.b_port, TORUS_COLL_UP,
			   i % 2 ? TORUS_COLL_GROUP_LIST | (i / 2 % 8) : 0,
			   i / 16 % TORUS_COLL_SLOTS, TORUS_COLL_MAX_COUNT,
			   0, n);
	KUNIT_EXPECT_LE(test, coll_fx_early_bytes(fx, NULL),
			(size_t)TORUS_COLL_EARLY_BYTES);
	KUNIT_EXPECT_GT(test, coll_fx_early_bytes(fx, NULL), (size_t)0);
}

/*
 * A rendezvous broadcast keeps for its child only what the message
 * needs: 10^5 DOWN frames of no elements from the parent are refused,
 * and so is a range beyond what is left of the message.
 */
static void torus_coll_down_q_bounded_test(struct kunit *test)
{
	struct coll_fixture *fx = test->priv;
	struct torus_coll_slot *s;
	u64 refused;
	u32 i;

	fx->send_bcast = true;
	coll_fx_join_child_ahead(test, fx, COLL_FX_LARGE);
	refused = coll_fx_drops(fx, TORUS_DROP_COLL_REFUSED);
	for (i = 0; i < COLL_FX_FLOOD; i++)
		coll_fx_rx(fx, fx->line.a_port, TORUS_COLL_DOWN, 0, 0,
			   COLL_FX_LARGE, 0, 0);
	rtnl_lock();
	s = coll_fx_slot(fx);
	KUNIT_EXPECT_NOT_NULL(test, s);
	if (s)
		KUNIT_EXPECT_EQ(test, skb_queue_len(&s->down_q), 0U);
	rtnl_unlock();
	KUNIT_EXPECT_EQ(test, coll_fx_drops(fx, TORUS_DROP_COLL_REFUSED),
			refused + COLL_FX_FLOOD);
	/* 40 of the message's 65, then 40 again: more than is left */
	for (i = 0; i < 2; i++)
		coll_fx_rx(fx, fx->line.a_port, TORUS_COLL_DOWN, 0, 0,
			   COLL_FX_LARGE, 0, 40);
	rtnl_lock();
	s = coll_fx_slot(fx);
	if (s)
		KUNIT_EXPECT_EQ(test, skb_queue_len(&s->down_q), 1U);
	rtnl_unlock();
	KUNIT_EXPECT_EQ(test, coll_fx_drops(fx, TORUS_DROP_COLL_REFUSED),
			refused + COLL_FX_FLOOD + 1);
}

/*
 * A child's range comes once, in order: the same element again is
 * refused and counted, not merged twice; the next range is taken.
 */
static void torus_coll_up_repeat_test(struct kunit *test)
{
	struct coll_fixture *fx = test->priv;
	s64 v[2] = { 1, 1 };
	struct torus_coll_req req = {
		.kind = TORUS_COLL_ALLREDUCE,
		.type = TORUS_COLL_INT64,
		.op = TORUS_COLL_SUM,
		.count = 2,
		.timeout_ms = 5000,
		.data = v,
		.net = &init_net,
	};
	u64 refused = coll_fx_drops(fx, TORUS_DROP_COLL_REFUSED);

	KUNIT_ASSERT_EQ(test, coll_fx_join_req(fx, &req), 0);
	coll_fx_send_raw(fx, fx->line.b_far, TORUS_COLL_UP, 0, 2, 1, 1, 10);
	coll_fx_send_raw(fx, fx->line.b_far, TORUS_COLL_UP, 0, 2, 1, 1, 10);
	msleep(50);
	KUNIT_EXPECT_EQ(test, coll_fx_drops(fx, TORUS_DROP_COLL_REFUSED),
			refused + 1);
	KUNIT_EXPECT_TRUE(test, skb_queue_empty(&fx->to_parent));
	fx->send_first = 1;
	coll_fx_send_raw(fx, fx->line.b_far, TORUS_COLL_UP, 0, 2, 1, 1, 20);
	fx->send_first = 0;
	coll_fx_expect_value(test, fx, &fx->to_parent, TORUS_COLL_UP, 0, 11);
}

/*
 * A one-hop frame comes from the neighbour at its port: one that names
 * another source, or that took two hops, is dropped as spoofed and the
 * operation waits on; the neighbour's own is taken.
 */
static void torus_coll_spoofed_test(struct kunit *test)
{
	struct coll_fixture *fx = test->priv;
	u64 spoofed = coll_fx_drops(fx, TORUS_DROP_SPOOFED);

	KUNIT_ASSERT_EQ(test, coll_fx_join(fx, 1, 5000), 0);
	fx->send_forged = true;
	fx->send_src = 0;	/* the parent's coordinates, on the child's */
	fx->send_hops = 1;
	coll_fx_send(fx, fx->line.b_far, TORUS_COLL_UP, 0, 50);
	fx->send_src = 2;	/* the child's, but from two hops away */
	fx->send_hops = 2;
	coll_fx_send(fx, fx->line.b_far, TORUS_COLL_UP, 0, 60);
	fx->send_forged = false;
	msleep(50);
	KUNIT_EXPECT_EQ(test, coll_fx_drops(fx, TORUS_DROP_SPOOFED),
			spoofed + 2);
	KUNIT_EXPECT_TRUE(test, skb_queue_empty(&fx->to_parent));
	coll_fx_expect_up(test, fx, 0, 2, 3);
}

/*
 * An operation dies with the socket that asked for it: it fails, the
 * tree is told, and nothing is sent to the port (a later socket may
 * have it).  Another port's operation is left alone.
 */
static void torus_coll_requester_gone_test(struct kunit *test)
{
	struct coll_fixture *fx = test->priv;
	s64 v = 1;
	struct torus_coll_req req = {
		.kind = TORUS_COLL_ALLREDUCE,
		.type = TORUS_COLL_INT64,
		.op = TORUS_COLL_SUM,
		.count = 1,
		.timeout_ms = 5000,
		.data = &v,
		.net = &init_net,
		.portid = 4242,
	};

	KUNIT_ASSERT_EQ(test, coll_fx_join_req(fx, &req), 0);
	torus_coll_requester_gone(netdev_priv(fx->line.node), &init_net, 4243);
	msleep(20);
	KUNIT_EXPECT_TRUE(test, skb_queue_empty(&fx->to_parent));
	torus_coll_requester_gone(netdev_priv(fx->line.node), &init_net, 4242);
	coll_fx_expect_abort(test, fx, &fx->to_parent);
	coll_fx_expect_abort(test, fx, &fx->to_child);
	msleep(20);
	KUNIT_EXPECT_EQ(test, fx->answers, 0U);
}

/*
 * An answer that could not carry its result is refused at the join
 * (nla_len is 16 bits): 8192 int64 elements unplaced; 8191 fit.
 */
static void torus_coll_answer_room_test(struct kunit *test)
{
	struct coll_fixture *fx = test->priv;

	KUNIT_EXPECT_EQ(test, coll_fx_bcast_n(fx, 0, TORUS_COLL_MAX_COUNT, 0),
			-EMSGSIZE);
	KUNIT_EXPECT_EQ(test, fx->answers, 0U);
	KUNIT_EXPECT_EQ(test, coll_fx_bcast_n(fx, 0, TORUS_COLL_MAX_COUNT - 1,
					      0), 0);
	rtnl_lock();
	KUNIT_EXPECT_NOT_NULL(test, coll_fx_slot(fx));
	if (coll_fx_slot(fx))
		KUNIT_EXPECT_GE(test,
				(size_t)skb_tailroom(coll_fx_slot(fx)->answer),
				(size_t)(TORUS_COLL_MAX_COUNT - 1) * 8);
	rtnl_unlock();
}

/*
 * Random frames into the engine, as a hostile neighbour may send them,
 * with operations joined and timing out among them: no sanitizer report
 * (make check runs it under KASAN too), the node keeps within its
 * budget, and a plain operation runs afterwards.  make fuzz runs it
 * with torus.coll_fuzz_frames=10000000: in runs of COLL_FUZZ_RUN frames
 * (a parameter each, on a node of its own, seeds one apart), as a case
 * has 300 s.
 */
#define COLL_FUZZ_RUN	200000
static unsigned int coll_fuzz_frames = 20000;
module_param(coll_fuzz_frames, uint, 0444);
MODULE_PARM_DESC(coll_fuzz_frames, "KUnit: frames of the collectives fuzz case");
static unsigned long coll_fuzz_seed = 1;
module_param(coll_fuzz_seed, ulong, 0444);
MODULE_PARM_DESC(coll_fuzz_seed, "KUnit: seed of the collectives fuzz case");

/* xorshift64*: the same frames for the same seed */
static u32 coll_fz(u64 *state, u32 below)
{
	u64 x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	x *= 0x2545f4914f6cdd1dULL;
	return below ? (u32)((x >> 32) % below) : (u32)(x >> 32);
}

static void coll_fx_fuzz_frame(struct coll_fixture *fx, u64 *r)
{
	static const u32 counts[] = { 0, 1, 2, 3, 64, 65, 1000, 8192,
				      131072 };
	static const u16 groups[] = { 0, 0, 0, 1, 2, TORUS_COLL_GROUP_LIST,
				      TORUS_COLL_GROUP_LIST | 3 };
	bool from_a = coll_fz(r, 2);
	u8 src[TORUS_MAX_AXES] = { from_a ? 0 : 2 };
	u8 dst[TORUS_MAX_AXES] = { 1 };
	struct coll_fx_hdr f;
	struct sk_buff *skb;
	u32 len, i;
	u8 hops = 1;

	f.count = coll_fz(r, 8) ? counts[coll_fz(r, ARRAY_SIZE(counts))] :
				  coll_fz(r, 0);
	f.first = coll_fz(r, 4) ? 0 : coll_fz(r, 0) % ((u64)f.count + 1);
	f.n = coll_fz(r, 4) ? min_t(u32, f.count - min(f.first, f.count),
				    coll_fz(r, 3000)) : coll_fz(r, 0);
	switch (coll_fz(r, 6)) {
	case 0:
		len = coll_fz(r, TORUS_COLL_FRAME_MAX + 64);
		break;
	case 1:
		len = min_t(u64, (u64)f.n * 12, TORUS_COLL_FRAME_MAX + 8);
		break;
	case 2:
		len = min_t(u64, (u64)f.n * TORUS_XACC_HEAD + coll_fz(r, 64),
			    TORUS_COLL_FRAME_MAX);
		break;
	default:
		len = min_t(u64, (u64)f.n * 8, TORUS_COLL_FRAME_MAX + 8);
	}
	if (!coll_fz(r, 16))
		src[0] = coll_fz(r, 3);
	if (!coll_fz(r, 16))
		hops = coll_fz(r, 4);
	if (!coll_fz(r, 32))
		dst[0] = coll_fz(r, 3);
	f.phase = coll_fz(r, 6);
	f.kind = coll_fz(r, TORUS_COLL_KIND_MAX + 2);
	f.type = coll_fz(r, TORUS_COLL_TYPE_MAX + 2);
	f.op = coll_fz(r, TORUS_COLL_OP_MAX + 2);
	f.flags = coll_fz(r, 8) ? 0 : coll_fz(r, 4);
	i = coll_fz(r, ARRAY_SIZE(groups));
	f.group = coll_fz(r, 16) ? groups[i] : coll_fz(r, 0);
	f.seq = coll_fz(r, 8) ? coll_fz(r, 20) : coll_fz(r, 0);
	skb = alloc_skb(TORUS_HDR_LEN + TORUS_COLL_HDR_LEN + len, GFP_KERNEL);
	if (!skb)
		return;
	coll_fx_put_hdrs(skb, src, dst, hops, &f);
	for (i = 0; i < len; i++)
		((u8 *)skb_put(skb, 1))[0] = coll_fz(r, 0);
	coll_fx_rx_skb(fx, from_a ? fx->line.a_port : fx->line.b_port, skb);
}

/* An operation joined among the random frames, soon timed out. */
static void coll_fx_fuzz_join(struct coll_fixture *fx, u64 *r)
{
	static const u32 counts[] = { 1, 2, 65, 300 };
	static const u64 data[300];
	struct torus_coll_req req = {
		.kind = coll_fz(r, TORUS_COLL_KIND_MAX + 1),
		.type = coll_fz(r, 2) ? TORUS_COLL_INT64 : TORUS_COLL_DOUBLE,
		.op = TORUS_COLL_SUM,
		.count = counts[coll_fz(r, ARRAY_SIZE(counts))],
		.timeout_ms = 1 + coll_fz(r, 5),
		.has_root_coord = true,
		.root_coord = { coll_fz(r, 3) },
		.data = data,
		.net = &init_net,
	};

	req.root = req.root_coord[0] == 1;
	if (req.kind == TORUS_COLL_BARRIER)
		req.count = 0;
	if (req.kind == TORUS_COLL_BCAST && !req.root)
		req.data = NULL;
	coll_fx_join_req(fx, &req);
}

/* the runs of the fuzz case: 10^8 frames at most */
static const u16 coll_fuzz_runs[500];

static const void *coll_fuzz_run_gen(const void *prev, char *desc)
{
	const u16 *run = prev ? (const u16 *)prev + 1 : coll_fuzz_runs;
	unsigned int n = DIV_ROUND_UP(coll_fuzz_frames, COLL_FUZZ_RUN);

	n = min_t(unsigned int, n, ARRAY_SIZE(coll_fuzz_runs));
	if (run - coll_fuzz_runs >= n)
		return NULL;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "run %td",
		 run - coll_fuzz_runs);
	return run;
}

static void torus_coll_fuzz_test(struct kunit *test)
{
	unsigned int run = (const u16 *)test->param_value - coll_fuzz_runs;
	unsigned int frames = min_t(unsigned int, COLL_FUZZ_RUN,
				    coll_fuzz_frames - run * COLL_FUZZ_RUN);
	struct coll_fixture *fx = test->priv;
	struct torus_node *node = netdev_priv(fx->line.node);
	u64 r = (coll_fuzz_seed + run) | 1;
	struct torus_coll *coll;
	size_t counted;
	unsigned int i;
	u32 seq;

	for (i = 0; i < frames; i++) {
		coll_fx_fuzz_frame(fx, &r);
		if (!(i % 64))
			coll_fx_fuzz_join(fx, &r);
		if (!(i % 4096))
			cond_resched();
	}
	KUNIT_EXPECT_LE(test, coll_fx_early_bytes(fx, &counted),
			(size_t)TORUS_COLL_EARLY_BYTES);
	KUNIT_EXPECT_EQ(test, coll_fx_early_bytes(fx, NULL), counted);
	rtnl_lock();
	coll = rtnl_dereference(node->coll);
	spin_lock_bh(&coll->lock);
	for (i = 0; i < TORUS_COLL_SLOTS; i++)
		KUNIT_EXPECT_LE(test, skb_queue_len(&coll->slot[i].down_q),
				max_t(u32, coll->slot[i].count, 1));
	seq = coll->next_seq[0];
	spin_unlock_bh(&coll->lock);
	rtnl_unlock();

	/* the operations joined have timed out: a plain one runs */
	msleep(100);
	skb_queue_purge(&fx->to_parent);
	skb_queue_purge(&fx->to_child);
	fx->answers = 0;
	KUNIT_ASSERT_EQ(test, coll_fx_join(fx, 1, 5000), 0);
	coll_fx_expect_up(test, fx, seq, 2, 3);
	coll_fx_send(fx, fx->line.a_far, TORUS_COLL_DOWN, seq, 7);
	coll_fx_expect_answer(test, fx, 0, 7);
}

static struct kunit_case torus_coll_engine_cases[] = {
	KUNIT_CASE(torus_coll_barrier_test),
	KUNIT_CASE(torus_coll_updown_test),
	KUNIT_CASE(torus_coll_cut_through_test),
	KUNIT_CASE(torus_coll_early_test),
	KUNIT_CASE(torus_coll_rooted_bcast_test),
	KUNIT_CASE(torus_coll_rendezvous_test),
	KUNIT_CASE(torus_coll_by_reference_test),
	KUNIT_CASE(torus_coll_rendezvous_cut_through_test),
	KUNIT_CASE(torus_coll_rendezvous_credit_test),
	KUNIT_CASE(torus_coll_rendezvous_child_down_test),
	KUNIT_CASE(torus_coll_rendezvous_starved_child_down_test),
	KUNIT_CASE(torus_coll_timeout_test),
	KUNIT_CASE(torus_coll_tree_change_test),
	KUNIT_CASE(torus_coll_in_flight_test),
	KUNIT_CASE(torus_coll_malformed_test),
	KUNIT_CASE(torus_coll_abort_test),
	KUNIT_CASE(torus_coll_no_parent_test),
	KUNIT_CASE(torus_coll_mtu_frames_test),
	KUNIT_CASE(torus_coll_group_test),
	KUNIT_CASE(torus_coll_list_test),
	KUNIT_CASE(torus_coll_list_root_test),
	KUNIT_CASE(torus_coll_list_numbering_test),
	KUNIT_CASE(torus_coll_place_test),
	KUNIT_CASE(torus_coll_readonly_place_test),
	KUNIT_CASE(torus_coll_early_slots_test),
	KUNIT_CASE(torus_coll_early_budget_test),
	KUNIT_CASE(torus_coll_down_q_bounded_test),
	KUNIT_CASE(torus_coll_up_repeat_test),
	KUNIT_CASE(torus_coll_spoofed_test),
	KUNIT_CASE(torus_coll_requester_gone_test),
	KUNIT_CASE(torus_coll_answer_room_test),
	KUNIT_CASE_PARAM(torus_coll_fuzz_test, coll_fuzz_run_gen),
	{}
};

static struct kunit_suite torus_coll_engine_suite = {
	.name = "torus_coll_engine",
	.init = torus_coll_engine_init,
	.exit = torus_coll_engine_exit,
	.test_cases = torus_coll_engine_cases,
};

kunit_test_suite(torus_coll_engine_suite);
