// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: a torport cable's receive buffer.  One cable, both ends up, a
 * packet handler counting what reaches the far end.  Bursts are sent with
 * BH off, so the far end's NAPI cannot drain them before the burst ends:
 * what fits in the buffer arrives, the rest is counted as rx_full on the
 * sending end, and collective frames get their larger allowance.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/rtnetlink.h>
#include <net/rtnetlink.h>
#include <net/sch_generic.h>

#include "torus_priv.h"
#include "torus_test.h"

struct torport_fixture {
	struct net_device *near, *far;
	struct packet_type cap;
	atomic_t got;
};

static int torport_fx_count(struct sk_buff *skb, struct net_device *dev,
			    struct packet_type *pt, struct net_device *orig)
{
	struct torport_fixture *fx = pt->af_packet_priv;

	atomic_inc(&fx->got);
	consume_skb(skb);
	return NET_RX_SUCCESS;
}

struct net_device *torus_test_cable(struct net_device **far)
{
	struct nlattr *tb[IFLA_MAX + 1] = {};
	struct torport_priv *priv;
	struct net_device *dev;

	dev = rtnl_create_link(&init_net, "ktp%d", NET_NAME_ENUM,
			       &torport_link_ops, tb, NULL);
	if (IS_ERR(dev))
		return NULL;
	if (torport_link_ops.newlink(&init_net, dev, tb, NULL, NULL)) {
		free_netdev(dev);
		return NULL;
	}
	priv = netdev_priv(dev);
	*far = rtnl_dereference(priv->peer);
	return dev;
}

static int torus_test_line_make(struct torus_test_line *l, const char *name)
{
	struct torus_geom g = { .ndims = 1, .dims = { 3 }, .coord = { 1 } };
	struct torus_port *map[TORUS_MAX_DIRS] = {};
	struct nlattr *tb[IFLA_MAX + 1] = {};
	const struct net_device_ops *ops;
	struct net_device *node;
	int err;

	node = rtnl_create_link(&init_net, name, NET_NAME_ENUM,
				&torus_node_link_ops, tb, NULL);
	if (IS_ERR(node))
		return PTR_ERR(node);
	err = register_netdevice(node);
	if (err) {
		free_netdev(node);
		return err;
	}
	l->node = node;
	l->a_port = torus_test_cable(&l->a_far);
	l->b_port = torus_test_cable(&l->b_far);
	if (!l->a_port || !l->b_port)
		return -ENOMEM;
	ops = node->netdev_ops;
	err = ops->ndo_add_slave(node, l->a_port, NULL) ?:
	      ops->ndo_add_slave(node, l->b_port, NULL) ?:
	      dev_open(node, NULL) ?: dev_open(l->a_port, NULL) ?:
	      dev_open(l->a_far, NULL) ?: dev_open(l->b_port, NULL) ?:
	      dev_open(l->b_far, NULL);
	if (err)
		return err;
	map[TORUS_DIR(0, 1)] = torus_port_from_dev(l->a_port);
	map[TORUS_DIR(0, 0)] = torus_port_from_dev(l->b_port);
	return torus_node_set_fib(netdev_priv(node), &g, true, map);
}

int torus_test_line_new(struct torus_test_line *l, const char *name)
{
	int err, i;

	rtnl_lock();
	err = torus_test_line_make(l, name);
	rtnl_unlock();
	if (err)
		return err;
	/* the link watcher gives the cables their queues once the carrier
	 * is on; until then everything sent is dropped
	 */
	for (i = 0; i < 500 && (qdisc_tx_is_noop(l->a_port) ||
				qdisc_tx_is_noop(l->b_port) ||
				qdisc_tx_is_noop(l->a_far) ||
				qdisc_tx_is_noop(l->b_far)); i++)
		usleep_range(1000, 2000);
	return 0;
}

void torus_test_line_del(struct torus_test_line *l)
{
	LIST_HEAD(list);

	rtnl_lock();
	if (l->node)
		unregister_netdevice_queue(l->node, &list);
	if (l->a_port)
		torport_link_ops.dellink(l->a_port, &list);
	if (l->b_port)
		torport_link_ops.dellink(l->b_port, &list);
	unregister_netdevice_many(&list);
	rtnl_unlock();
}

static int torport_test_init(struct kunit *test)
{
	struct torport_fixture *fx;
	int err;

	fx = kunit_kzalloc(test, sizeof(*fx), GFP_KERNEL);
	if (!fx)
		return -ENOMEM;
	test->priv = fx;
	rtnl_lock();
	fx->near = torus_test_cable(&fx->far);
	if (!fx->near) {
		err = -ENOMEM;
		goto out;
	}
	/* below IPv6's minimum MTU: no neighbour discovery in the counts */
	err = dev_set_mtu(fx->near, 1000) ?: dev_set_mtu(fx->far, 1000) ?:
	      dev_open(fx->near, NULL) ?: dev_open(fx->far, NULL);
out:
	rtnl_unlock();
	if (err)
		return err;
	fx->cap.type = htons(ETH_P_TORUS);
	fx->cap.dev = fx->far;
	fx->cap.func = torport_fx_count;
	fx->cap.af_packet_priv = fx;
	dev_add_pack(&fx->cap);
	return 0;
}

static void torport_test_exit(struct kunit *test)
{
	struct torport_fixture *fx = test->priv;
	LIST_HEAD(list);

	if (fx->cap.func)
		dev_remove_pack(&fx->cap);
	rtnl_lock();
	if (fx->near)
		torport_link_ops.dellink(fx->near, &list);
	unregister_netdevice_many(&list);
	rtnl_unlock();
}

/* A fabric frame of @type with @pad bytes after its header, sent. */
static void torport_fx_send_pad(struct torport_fixture *fx, u8 type,
				unsigned int pad)
{
	u8 coord[TORUS_MAX_AXES] = {};
	struct ethhdr *eth;
	struct sk_buff *skb;

	skb = alloc_skb(NET_SKB_PAD + ETH_HLEN + TORUS_HDR_LEN + pad,
			GFP_ATOMIC);
	if (!skb)
		return;
	skb_reserve(skb, NET_SKB_PAD);
	eth = skb_put(skb, ETH_HLEN);
	eth_broadcast_addr(eth->h_dest);
	ether_addr_copy(eth->h_source, fx->near->dev_addr);
	eth->h_proto = htons(ETH_P_TORUS);
	torus_hdr_init(skb_put(skb, TORUS_HDR_LEN), type, 0, coord, coord, 1);
	skb_put_zero(skb, pad);
	skb_reset_mac_header(skb);
	skb->dev = fx->near;
	skb->protocol = htons(ETH_P_TORUS);
	fx->near->netdev_ops->ndo_start_xmit(skb, fx->near);
}

/* A minimal fabric frame of @type, into the near end's transmit. */
static void torport_fx_send(struct torport_fixture *fx, u8 type)
{
	torport_fx_send_pad(fx, type, 0);
}

/* @n frames of @type at once: the far end's NAPI runs after them. */
static void torport_fx_send_many_pad(struct torport_fixture *fx, u8 type,
				     unsigned int pad, unsigned int n)
{
	unsigned int i;

	local_bh_disable();
	for (i = 0; i < n; i++)
		torport_fx_send_pad(fx, type, pad);
	local_bh_enable();
}

static void torport_fx_send_many(struct torport_fixture *fx, u8 type,
				 unsigned int n)
{
	torport_fx_send_many_pad(fx, type, 0, n);
}

static struct sk_buff_head *torport_fx_rxq(struct net_device *dev)
{
	return &((struct torport_priv *)netdev_priv(dev))->rxq;
}

/* Wait until the far end's buffer is empty and nothing more arrives. */
static void torport_fx_drain(struct torport_fixture *fx)
{
	int i, last = -1;

	for (i = 0; i < 400; i++) {
		if (atomic_read(&fx->got) == last &&
		    skb_queue_empty_lockless(torport_fx_rxq(fx->far)))
			break;
		last = atomic_read(&fx->got);
		usleep_range(5000, 10000);
	}
}

static u64 torport_fx_drops(struct net_device *dev,
			    enum torus_drop_reason reason)
{
	struct torport_priv *priv = netdev_priv(dev);
	struct torus_stats st;

	torus_stats_read(priv->stats, &st);
	return st.drop[reason];
}

/* A burst of ordinary frames beyond the buffer loses what does not fit. */
static void torport_rxq_bounds_a_burst(struct kunit *test)
{
	struct torport_fixture *fx = test->priv;
	unsigned int extra = 300;

	torport_fx_send_many(fx, TORUS_T_DATA, TORPORT_RXQ_LEN + extra);
	torport_fx_drain(fx);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->got), TORPORT_RXQ_LEN);
	KUNIT_EXPECT_EQ(test, torport_fx_drops(fx->near, TORUS_DROP_RX_FULL),
			(u64)extra);
}

/*
 * Collective frames are not retransmitted: a burst several times the
 * ordinary buffer arrives whole, with ordinary frames mixed in.
 */
static void torport_rxq_keeps_collective_frames(struct kunit *test)
{
	struct torport_fixture *fx = test->priv;
	unsigned int n = 4 * TORPORT_RXQ_LEN, i;

	local_bh_disable();
	for (i = 0; i < n; i++)
		torport_fx_send(fx, TORUS_T_COLL);
	/* the buffer is past its ordinary size: an ordinary frame is lost */
	torport_fx_send(fx, TORUS_T_DATA);
	local_bh_enable();
	torport_fx_drain(fx);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->got), n);
	KUNIT_EXPECT_EQ(test, torport_fx_drops(fx->near, TORUS_DROP_RX_FULL),
			1ULL);
}

/* ... and beyond their own allowance they are lost too: memory is bounded. */
static void torport_rxq_bounds_collective_frames(struct kunit *test)
{
	struct torport_fixture *fx = test->priv;

	torport_fx_send_many(fx, TORUS_T_COLL, TORPORT_RXQ_COLL_MAX + 10);
	torport_fx_drain(fx);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->got), TORPORT_RXQ_COLL_MAX);
	KUNIT_EXPECT_EQ(test, torport_fx_drops(fx->near, TORUS_DROP_RX_FULL),
			10ULL);
}

/* Large collective frames are bounded by the memory they hold too. */
static void torport_rxq_bounds_collective_bytes(struct kunit *test)
{
	struct torport_fixture *fx = test->priv;
	unsigned int n = 1500, got;

	/* 8000 bytes each: some 16 KiB of memory, so about 1000 fit */
	torport_fx_send_many_pad(fx, TORUS_T_COLL, 8000, n);
	torport_fx_drain(fx);
	got = atomic_read(&fx->got);
	KUNIT_EXPECT_GT(test, got, 500U);
	KUNIT_EXPECT_LT(test, got, 1200U);
	KUNIT_EXPECT_EQ(test, torport_fx_drops(fx->near, TORUS_DROP_RX_FULL),
			(u64)(n - got));
	/* the memory came back with the frames */
	KUNIT_EXPECT_EQ(test, ((struct torport_priv *)
			       netdev_priv(fx->far))->rxq_bytes, 0U);
}

/* An end taken down drops what waited in its buffer, and takes no more. */
static void torport_rxq_purged_when_down(struct kunit *test)
{
	struct torport_fixture *fx = test->priv;
	struct torport_priv *far = netdev_priv(fx->far);

	/* hold the far end's NAPI so that the frames stay in its buffer */
	napi_disable(&far->napi);
	torport_fx_send_many(fx, TORUS_T_DATA, 100);
	napi_enable(&far->napi);
	KUNIT_EXPECT_EQ(test, skb_queue_len(torport_fx_rxq(fx->far)), 100U);
	rtnl_lock();
	dev_close(fx->far);
	rtnl_unlock();
	KUNIT_EXPECT_TRUE(test, skb_queue_empty(torport_fx_rxq(fx->far)));
	KUNIT_EXPECT_EQ(test, far->rxq_bytes, 0U);
	torport_fx_send_many(fx, TORUS_T_DATA, 5);
	torport_fx_drain(fx);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->got), 0);
	KUNIT_EXPECT_EQ(test, torport_fx_drops(fx->near, TORUS_DROP_LINK_DOWN),
			5ULL);
}

/*
 * Beyond the MTU (1000 here): a collective frame passes, as a GSO packet
 * would (the module makes them so); any other is too big.
 */
static void torport_collective_frames_beyond_mtu(struct kunit *test)
{
	struct torport_fixture *fx = test->priv;

	torport_fx_send_pad(fx, TORUS_T_COLL, 8000);
	torport_fx_send_pad(fx, TORUS_T_DATA, 8000);
	torport_fx_send_pad(fx, TORUS_T_DATA, 900);
	torport_fx_drain(fx);
	KUNIT_EXPECT_EQ(test, atomic_read(&fx->got), 2);
	KUNIT_EXPECT_EQ(test, torport_fx_drops(fx->near, TORUS_DROP_TOO_BIG),
			1ULL);
}

static struct kunit_case torport_test_cases[] = {
	KUNIT_CASE(torport_collective_frames_beyond_mtu),
	KUNIT_CASE(torport_rxq_bounds_a_burst),
	KUNIT_CASE(torport_rxq_keeps_collective_frames),
	KUNIT_CASE(torport_rxq_bounds_collective_frames),
	KUNIT_CASE(torport_rxq_bounds_collective_bytes),
	KUNIT_CASE(torport_rxq_purged_when_down),
	{}
};

static struct kunit_suite torport_test_suite = {
	.name = "torport",
	.init = torport_test_init,
	.exit = torport_test_exit,
	.test_cases = torport_test_cases,
};

kunit_test_suite(torport_test_suite);
