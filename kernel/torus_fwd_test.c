// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the data path with real devices.  A node at (1) of a line of
 * three has two torport cables; frames sent into the far end of cable A
 * are received by the node and forwarded out of cable B, whose far end
 * captures them.  Checks what leaves and what is counted.
 */
#include <kunit/test.h>
#include <linux/bottom_half.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/completion.h>
#include <linux/rtnetlink.h>
#include <linux/sched.h>
#include <net/checksum.h>
#include <net/net_namespace.h>
#include <net/rtnetlink.h>

#include "torus_priv.h"
#include "torus_test.h"

struct torus_fwd_fixture {
	struct torus_test_line line;	/* frames enter at A, leave at B */
	struct packet_type capture;
	struct sk_buff_head captured;
};

static int torus_fwd_capture(struct sk_buff *skb, struct net_device *dev,
			     struct packet_type *pt,
			     struct net_device *orig_dev)
{
	struct torus_fwd_fixture *fx = pt->af_packet_priv;

	skb_queue_tail(&fx->captured, skb);
	return NET_RX_SUCCESS;
}

static int torus_fwd_init(struct kunit *test)
{
	struct torus_fwd_fixture *fx;
	int err;

	fx = kunit_kzalloc(test, sizeof(*fx), GFP_KERNEL);
	if (!fx)
		return -ENOMEM;
	skb_queue_head_init(&fx->captured);
	test->priv = fx;
	err = torus_test_line_new(&fx->line, "ktor%d");
	if (err)
		return err;
	fx->capture.type = htons(ETH_P_TORUS);
	fx->capture.dev = fx->line.b_far;
	fx->capture.func = torus_fwd_capture;
	fx->capture.af_packet_priv = fx;
	dev_add_pack(&fx->capture);
	return 0;
}

static void torus_fwd_exit(struct kunit *test)
{
	struct torus_fwd_fixture *fx = test->priv;

	if (fx->capture.func)
		dev_remove_pack(&fx->capture);
	skb_queue_purge(&fx->captured);
	torus_test_line_del(&fx->line);
}

/* A data frame from (0) to @dst, sent into cable A to @dmac. */
static struct sk_buff *torus_fwd_frame(struct torus_fwd_fixture *fx,
				       const u8 *dmac, u8 dst, __be32 saddr)
{
	static const u8 src[TORUS_MAX_AXES] = { 0 };
	u8 dcoord[TORUS_MAX_AXES] = { dst };
	struct torus_hdr *h;
	struct ethhdr *eth;
	struct iphdr *iph;
	struct sk_buff *skb;

	skb = alloc_skb(NET_SKB_PAD + ETH_HLEN + TORUS_HDR_LEN + 64,
			GFP_KERNEL);
	if (!skb)
		return NULL;
	skb_reserve(skb, NET_SKB_PAD);
	eth = skb_put(skb, ETH_HLEN);
	ether_addr_copy(eth->h_dest, dmac);
	ether_addr_copy(eth->h_source, fx->line.a_far->dev_addr);
	eth->h_proto = htons(ETH_P_TORUS);
	h = skb_put(skb, TORUS_HDR_LEN);
	torus_hdr_init(h, TORUS_T_DATA, htons(ETH_P_IP), src, dcoord, 8);
	iph = skb_put_zero(skb, 64);
	iph->version = 4;
	iph->ihl = 5;
	iph->ttl = 64;
	iph->protocol = IPPROTO_UDP;
	iph->tot_len = htons(64);
	iph->saddr = saddr;
	iph->daddr = torus_coord_to_addr4(dcoord);
	iph->check = ip_fast_csum(iph, iph->ihl);
	skb_reset_mac_header(skb);
	skb->dev = fx->line.a_far;
	skb->protocol = htons(ETH_P_TORUS);
	return skb;
}

static __be32 torus_fwd_addr(u8 x)
{
	const u8 coord[TORUS_MAX_AXES] = { x };

	return torus_coord_to_addr4(coord);
}

/* Wait for what comes out of cable B; returns the frames captured. */
static unsigned int torus_fwd_wait(struct torus_fwd_fixture *fx)
{
	int i;

	/* the backlog runs in softirq; give it a moment */
	for (i = 0; i < 50 && skb_queue_empty(&fx->captured); i++)
		usleep_range(1000, 2000);
	return skb_queue_len(&fx->captured);
}

/* Send into cable A through the queue, as the stack does. */
static unsigned int torus_fwd_send(struct kunit *test, struct sk_buff *skb)
{
	KUNIT_ASSERT_NOT_NULL(test, skb);
	dev_queue_xmit(skb);
	return torus_fwd_wait(test->priv);
}

/* Hand a frame straight to the driver, as netpoll does and as the
 * stack may until the link watcher stops the queue of a cut cable.
 */
static unsigned int torus_fwd_start_xmit(struct kunit *test,
					 struct sk_buff *skb)
{
	KUNIT_ASSERT_NOT_NULL(test, skb);
	local_bh_disable();
	netdev_start_xmit(skb, skb->dev, netdev_get_tx_queue(skb->dev, 0),
			  false);
	local_bh_enable();
	return torus_fwd_wait(test->priv);
}

static u64 torus_fwd_drops(struct net_device *dev, int reason)
{
	struct torus_pcpu_stats __percpu *pcpu;
	struct torus_stats st;

	if (netif_is_torport(dev))
		pcpu = ((struct torport_priv *)netdev_priv(dev))->stats;
	else
		pcpu = ((struct torus_node *)netdev_priv(dev))->stats;
	torus_stats_read(pcpu, &st);
	return st.drop[reason];
}

static void torus_fwd_forwards(struct kunit *test)
{
	struct torus_fwd_fixture *fx = test->priv;
	struct sk_buff *skb;

	skb = torus_fwd_frame(fx, fx->line.a_port->dev_addr, 2, torus_fwd_addr(0));
	KUNIT_EXPECT_EQ(test, torus_fwd_send(test, skb), 1U);
}

/* A NIC's checksum of the whole frame is stale once the hop limit
 * changes: what leaves must not claim it.
 */
static void torus_fwd_checksum_complete(struct kunit *test)
{
	struct torus_fwd_fixture *fx = test->priv;
	struct sk_buff *skb;

	skb = torus_fwd_frame(fx, fx->line.a_port->dev_addr, 2, torus_fwd_addr(0));
	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb->ip_summed = CHECKSUM_COMPLETE;
	skb->csum = skb_checksum(skb, 0, skb->len, 0);
	KUNIT_ASSERT_EQ(test, torus_fwd_send(test, skb), 1U);
	skb = skb_peek(&fx->captured);
	if (skb->ip_summed == CHECKSUM_COMPLETE)
		KUNIT_EXPECT_EQ(test,
				csum_fold(skb_checksum(skb, 0, skb->len, 0)),
				csum_fold(skb->csum));
}

static void torus_fwd_vlan_dropped(struct kunit *test)
{
	struct torus_fwd_fixture *fx = test->priv;
	struct sk_buff *skb;

	skb = torus_fwd_frame(fx, fx->line.a_port->dev_addr, 2, torus_fwd_addr(0));
	KUNIT_ASSERT_NOT_NULL(test, skb);
	__vlan_hwaccel_put_tag(skb, htons(ETH_P_8021Q), 5);
	KUNIT_EXPECT_EQ(test, torus_fwd_send(test, skb), 0U);
	KUNIT_EXPECT_EQ(test, torus_fwd_drops(fx->line.node, TORUS_DROP_VLAN), 1ULL);
}

static void torus_fwd_other_host_dropped(struct kunit *test)
{
	static const u8 other[ETH_ALEN] = { 0x02, 0, 0, 0, 0, 0x99 };
	struct torus_fwd_fixture *fx = test->priv;
	struct sk_buff *skb;

	skb = torus_fwd_frame(fx, other, 2, torus_fwd_addr(0));
	KUNIT_EXPECT_EQ(test, torus_fwd_send(test, skb), 0U);
	KUNIT_EXPECT_EQ(test, torus_fwd_drops(fx->line.node, TORUS_DROP_OTHER_HOST),
			1ULL);
}

static void torus_fwd_spoofed_dropped(struct kunit *test)
{
	struct torus_fwd_fixture *fx = test->priv;
	struct torus_node *node = netdev_priv(fx->line.node);
	struct torus_stats st;

	/* to the node itself, from (0), claiming to be (2) */
	torus_fwd_send(test, torus_fwd_frame(fx, fx->line.a_port->dev_addr, 1,
					     torus_fwd_addr(2)));
	torus_stats_read(node->stats, &st);
	KUNIT_EXPECT_EQ(test, st.rx_packets, 0ULL);
	KUNIT_EXPECT_EQ(test, st.drop[TORUS_DROP_SPOOFED], 1ULL);

	torus_fwd_send(test, torus_fwd_frame(fx, fx->line.a_port->dev_addr, 1,
					     torus_fwd_addr(0)));
	torus_stats_read(node->stats, &st);
	KUNIT_EXPECT_EQ(test, st.rx_packets, 1ULL);
}

/* Packet sockets transmit whatever the carrier says: the cable must
 * refuse.
 */
static void torus_fwd_cut_cable_carries_nothing(struct kunit *test)
{
	struct torus_fwd_fixture *fx = test->priv;
	struct sk_buff *skb;
	int err;

	rtnl_lock();
	err = torport_set_cable(fx->line.a_far, 0, -1, NULL);
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test, err, 0);
	skb = torus_fwd_frame(fx, fx->line.a_port->dev_addr, 2, torus_fwd_addr(0));
	KUNIT_EXPECT_EQ(test, torus_fwd_start_xmit(test, skb), 0U);
	KUNIT_EXPECT_EQ(test, torus_fwd_drops(fx->line.a_far, TORUS_DROP_LINK_DOWN),
			1ULL);
}

/*
 * A cut is told to the node (and so to torusd) at once, not when the
 * link watcher gets to it: that needs RTNL, held here throughout.
 */
static void torus_fwd_cut_tells_the_node_at_once(struct kunit *test)
{
	struct torus_fwd_fixture *fx = test->priv;
	struct torus_node *node = netdev_priv(fx->line.node);
	u32 gen;

	rtnl_lock();
	gen = node->generation;
	KUNIT_EXPECT_EQ(test, torport_set_cable(fx->line.a_far, 0, -1, NULL), 0);
	KUNIT_EXPECT_FALSE(test, netif_carrier_ok(fx->line.a_port));
	KUNIT_EXPECT_NE(test, node->generation, gen);
	gen = node->generation;
	KUNIT_EXPECT_EQ(test, torport_set_cable(fx->line.a_far, 1, -1, NULL), 0);
	KUNIT_EXPECT_TRUE(test, netif_carrier_ok(fx->line.a_port));
	KUNIT_EXPECT_NE(test, node->generation, gen);
	rtnl_unlock();
}

struct torus_fwd_netns_watch {
	struct notifier_block nb;
	struct net_device *near, *far;
	bool far_going_down;
	bool near_carrier_then;		/* when the far end went down */
	struct completion near_gone;
};

static int torus_fwd_netns_event(struct notifier_block *nb,
				 unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct torus_fwd_netns_watch *w =
		container_of(nb, struct torus_fwd_netns_watch, nb);

	if (event == NETDEV_GOING_DOWN && dev == w->far &&
	    !w->far_going_down) {
		w->far_going_down = true;
		w->near_carrier_then = netif_carrier_ok(w->near);
	}
	if (event == NETDEV_UNREGISTER && dev == w->near)
		complete(&w->near_gone);
	return NOTIFY_DONE;
}

/*
 * The far end's namespace loses its last reference (a node dies): the
 * near end has lost its carrier before the far end is even closed,
 * which cleanup_net() does only after a grace period and every pernet
 * exit method.  Both ends are gone in the end.
 */
static void torus_fwd_netns_exit_drops_carrier_first(struct kunit *test)
{
	struct torus_fwd_netns_watch *w;
	struct net *net;
	int err;

	w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	init_completion(&w->near_gone);
	w->nb.notifier_call = torus_fwd_netns_event;
	net = copy_net_ns(CLONE_NEWNET, &init_user_ns, &init_net);
	KUNIT_ASSERT_FALSE(test, IS_ERR(net));
	rtnl_lock();
	w->near = torus_test_cable(&w->far);
	err = w->near ? dev_change_net_namespace(w->far, net, "ktp%d") :
			-ENOMEM;
	if (!err)
		err = dev_open(w->near, NULL) ?: dev_open(w->far, NULL);
	if (!err && !netif_carrier_ok(w->near))
		err = -ENOLINK;
	if (err && w->near) {
		LIST_HEAD(list);

		torport_link_ops.dellink(w->near, &list);
		unregister_netdevice_many(&list);
	}
	rtnl_unlock();
	if (!err)
		err = register_netdevice_notifier(&w->nb);
	/* the last reference: cleanup_net() dismantles the namespace */
	put_net(net);
	KUNIT_ASSERT_EQ(test, err, 0);
	KUNIT_EXPECT_NE(test, wait_for_completion_timeout(&w->near_gone,
							  30 * HZ), 0UL);
	unregister_netdevice_notifier(&w->nb);
	KUNIT_EXPECT_TRUE(test, w->far_going_down);
	KUNIT_EXPECT_FALSE(test, w->near_carrier_then);
}

/* A frame the peer cannot take because it is down is link_down, not
 * too_big.
 */
static void torus_fwd_peer_down_reason(struct kunit *test)
{
	struct torus_fwd_fixture *fx = test->priv;
	struct sk_buff *skb;

	rtnl_lock();
	dev_close(fx->line.a_port);
	rtnl_unlock();
	skb = torus_fwd_frame(fx, fx->line.a_port->dev_addr, 2, torus_fwd_addr(0));
	KUNIT_EXPECT_EQ(test, torus_fwd_start_xmit(test, skb), 0U);
	KUNIT_EXPECT_EQ(test, torus_fwd_drops(fx->line.a_far, TORUS_DROP_LINK_DOWN),
			1ULL);
	KUNIT_EXPECT_EQ(test, torus_fwd_drops(fx->line.a_far, TORUS_DROP_TOO_BIG),
			0ULL);
}

/* A lamb forwards for others, but frames for it are dropped and
 * counted, and so is what its own stack sends.
 */
static void torus_fwd_lamb_is_no_endpoint(struct kunit *test)
{
	struct torus_fwd_fixture *fx = test->priv;
	struct torus_node *node = netdev_priv(fx->line.node);
	static const u8 far[TORUS_MAX_AXES] = { 2 };
	struct torus_stats st;
	struct sk_buff *skb;
	struct iphdr *iph;

	WRITE_ONCE(node->role, TORUS_ROLE_LAMB);
	/* transit: still forwarded */
	skb = torus_fwd_frame(fx, fx->line.a_port->dev_addr, 2, torus_fwd_addr(0));
	KUNIT_EXPECT_EQ(test, torus_fwd_send(test, skb), 1U);
	/* for the lamb itself: dropped */
	torus_fwd_send(test, torus_fwd_frame(fx, fx->line.a_port->dev_addr, 1,
					     torus_fwd_addr(0)));
	torus_stats_read(node->stats, &st);
	KUNIT_EXPECT_EQ(test, st.rx_packets, 0ULL);
	KUNIT_EXPECT_EQ(test, st.drop[TORUS_DROP_LAMB], 1ULL);

	/* from the lamb's own stack: dropped before it leaves */
	skb = alloc_skb(NET_SKB_PAD + TORUS_NEEDED_HEADROOM + 64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_reserve(skb, NET_SKB_PAD + TORUS_NEEDED_HEADROOM);
	iph = skb_put_zero(skb, 64);
	iph->version = 4;
	iph->ihl = 5;
	iph->ttl = 64;
	iph->tot_len = htons(64);
	iph->saddr = torus_fwd_addr(1);
	iph->daddr = torus_coord_to_addr4(far);
	skb_reset_network_header(skb);
	skb->protocol = htons(ETH_P_IP);
	skb->dev = fx->line.node;
	local_bh_disable();
	torus_node_xmit(skb, fx->line.node);
	local_bh_enable();
	KUNIT_EXPECT_EQ(test, torus_fwd_wait(fx), 1U);
	torus_stats_read(node->stats, &st);
	KUNIT_EXPECT_EQ(test, st.tx_packets, 0ULL);
	KUNIT_EXPECT_EQ(test, st.drop[TORUS_DROP_LAMB], 2ULL);
	WRITE_ONCE(node->role, TORUS_ROLE_STATIC);
}

/* A forwarded frame keeps its plan and round, and its dateline while
 * it stays on the axis it arrived on.
 */
static void torus_fwd_sets_vc(struct kunit *test)
{
	struct torus_fwd_fixture *fx = test->priv;
	struct torus_hdr *h;
	struct sk_buff *skb;

	/* round 1 of plan 0, past a dateline, going on along x */
	skb = torus_fwd_frame(fx, fx->line.a_port->dev_addr, 2, torus_fwd_addr(0));
	KUNIT_ASSERT_NOT_NULL(test, skb);
	h = (struct torus_hdr *)(skb->data + ETH_HLEN);
	h->vc = TORUS_VC(0, 1, 1);
	KUNIT_ASSERT_EQ(test, torus_fwd_send(test, skb), 1U);
	skb = skb_peek(&fx->captured);
	KUNIT_ASSERT_TRUE(test, pskb_may_pull(skb, TORUS_HDR_LEN));
	h = (struct torus_hdr *)skb->data;
	KUNIT_EXPECT_EQ(test, h->vc, TORUS_VC(0, 1, 1));
}

/* A frame whose plan this node does not hold is not guessed at. */
static void torus_fwd_plan_missing_dropped(struct kunit *test)
{
	struct torus_fwd_fixture *fx = test->priv;
	struct torus_hdr *h;
	struct sk_buff *skb;

	skb = torus_fwd_frame(fx, fx->line.a_port->dev_addr, 2, torus_fwd_addr(0));
	KUNIT_ASSERT_NOT_NULL(test, skb);
	h = (struct torus_hdr *)(skb->data + ETH_HLEN);
	h->vc = TORUS_VC(5, 1, 0);
	KUNIT_EXPECT_EQ(test, torus_fwd_send(test, skb), 0U);
	KUNIT_EXPECT_EQ(test, torus_fwd_drops(fx->line.node, TORUS_DROP_NO_PLAN),
			1ULL);
}

static struct kunit_case torus_fwd_test_cases[] = {
	KUNIT_CASE(torus_fwd_forwards),
	KUNIT_CASE(torus_fwd_checksum_complete),
	KUNIT_CASE(torus_fwd_vlan_dropped),
	KUNIT_CASE(torus_fwd_other_host_dropped),
	KUNIT_CASE(torus_fwd_spoofed_dropped),
	KUNIT_CASE(torus_fwd_cut_cable_carries_nothing),
	KUNIT_CASE(torus_fwd_peer_down_reason),
	KUNIT_CASE(torus_fwd_cut_tells_the_node_at_once),
	KUNIT_CASE(torus_fwd_netns_exit_drops_carrier_first),
	KUNIT_CASE(torus_fwd_lamb_is_no_endpoint),
	KUNIT_CASE(torus_fwd_sets_vc),
	KUNIT_CASE(torus_fwd_plan_missing_dropped),
	{}
};

static struct kunit_suite torus_fwd_test_suite = {
	.name = "torus_fwd",
	.init = torus_fwd_init,
	.exit = torus_fwd_exit,
	.test_cases = torus_fwd_test_cases,
};

kunit_test_suite(torus_fwd_test_suite);
