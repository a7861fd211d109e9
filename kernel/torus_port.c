// SPDX-License-Identifier: GPL-2.0
/*
 * torport: one cable of the fabric, created as a pair like veth, each end
 * with the direction label printed on its connector.  The ends may live
 * in different network namespaces.  A cable can be cut and made lossy
 * for fault injection.
 */
#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <linux/random.h>
#include <linux/rtnetlink.h>
#include <net/net_namespace.h>
#include <net/rtnetlink.h>

#include "torus_priv.h"
#include "torus_coll.h"

#define TORPORT_FEATURES (NETIF_F_SG | NETIF_F_FRAGLIST | NETIF_F_HW_CSUM | \
			  NETIF_F_RXCSUM | NETIF_F_HIGHDMA | \
			  NETIF_F_GSO_SOFTWARE)

static const struct net_device_ops torport_netdev_ops;

bool netif_is_torport(const struct net_device *dev)
{
	return dev->netdev_ops == &torport_netdev_ops;
}

/* A change of carrier is told to the node at once, not by linkwatch. */
static void torport_set_carrier(struct net_device *dev, bool on)
{
	if (on == netif_carrier_ok(dev))
		return;
	if (on)
		netif_carrier_on(dev);
	else
		netif_carrier_off(dev);
	torus_node_port_changed(dev);
}

/*
 * Carrier is on when both ends are up, the cable is not cut and neither
 * end's namespace is being dismantled (check_net()).  RTNL.
 */
static void torport_update_carrier(struct net_device *dev)
{
	struct torport_priv *priv = netdev_priv(dev);
	struct net_device *peer = rtnl_dereference(priv->peer);
	bool on = peer && !priv->cut && netif_running(dev) &&
		  netif_running(peer) && check_net(dev_net(dev)) &&
		  check_net(dev_net(peer));

	torport_set_carrier(dev, on);
	if (peer)
		torport_set_carrier(peer, on);
}

/* A collective frame: the one kind the cable keeps beyond its buffer. */
static bool torport_frame_is_coll(struct sk_buff *skb)
{
	const struct torus_hdr *h;

	if (eth_hdr(skb)->h_proto != htons(ETH_P_TORUS) ||
	    !pskb_may_pull(skb, ETH_HLEN + offsetofend(struct torus_hdr, type)))
		return false;
	h = (const struct torus_hdr *)(skb->data + ETH_HLEN);
	return h->type == TORUS_T_COLL;
}

/*
 * Into the receiving end's own buffer; its NAPI hands it on.  Under RCU
 * with BH off (dev_queue_xmit()).  Return: 0 or why it was dropped.
 */
static int torport_enqueue(struct net_device *peer, struct sk_buff *skb,
			   bool coll)
{
	struct torport_priv *peer_priv = netdev_priv(peer);
	struct sk_buff_head *q = &peer_priv->rxq;
	unsigned long flags;
	int reason = 0;
	bool full;

	spin_lock_irqsave(&q->lock, flags);
	if (coll)
		full = skb_queue_len(q) >= TORPORT_RXQ_COLL_MAX ||
		       peer_priv->rxq_bytes >= TORPORT_RXQ_COLL_BYTES;
	else
		full = skb_queue_len(q) >= TORPORT_RXQ_LEN;
	if (unlikely(!peer_priv->rx_on)) {
		reason = TORUS_DROP_LINK_DOWN;
	} else if (unlikely(full)) {
		reason = TORUS_DROP_RX_FULL;
	} else {
		__skb_queue_tail(q, skb);
		peer_priv->rxq_bytes += skb->truesize;
	}
	spin_unlock_irqrestore(&q->lock, flags);
	if (!reason)
		napi_schedule(&peer_priv->napi);
	return reason;
}

static netdev_tx_t torport_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct torport_priv *priv = netdev_priv(dev);
	enum torus_drop_reason reason;
	unsigned int len = skb->len;
	struct net_device *peer;
	bool coll;
	u32 loss;

	rcu_read_lock();
	peer = rcu_dereference(priv->peer);
	if (unlikely(!peer)) {
		reason = TORUS_DROP_NO_PEER;
		goto drop;
	}
	/* a cut cable carries nothing, not even packet sockets' frames */
	if (unlikely(READ_ONCE(priv->cut))) {
		reason = TORUS_DROP_LINK_DOWN;
		goto drop;
	}
	loss = READ_ONCE(priv->loss_ppm);
	if (unlikely(loss) && get_random_u32_below(TORUS_LOSS_PPM_MAX) < loss) {
		reason = TORUS_DROP_LOSS;
		goto drop;
	}
	if (unlikely(!pskb_may_pull(skb, ETH_HLEN))) {
		reason = TORUS_DROP_MALFORMED;
		goto drop;
	}
	/* the checks __dev_forward_skb() makes, to count the real reason */
	if (unlikely(!(peer->flags & IFF_UP))) {
		reason = TORUS_DROP_LINK_DOWN;
		goto drop;
	}
	/* a collective frame may be larger than the MTU, as a GSO packet
	 * is: the module makes them so (torus_coll_frame.c), never larger than
	 * the engine takes; a packet socket cannot send one beyond the MTU
	 */
	coll = torport_frame_is_coll(skb);
	if (unlikely(coll ? skb->len > ETH_HLEN + TORUS_HDR_LEN +
				       TORUS_COLL_HDR_LEN + TORUS_COLL_FRAME_MAX :
			    !is_skb_forwardable(peer, skb))) {
		reason = TORUS_DROP_TOO_BIG;
		goto drop;
	}
	skb_tx_timestamp(skb);
	/* it frees the skb when it fails: what is left is memory */
	if (unlikely(____dev_forward_skb(peer, skb, !coll))) {
		torus_stats_drop(priv->stats, TORUS_DROP_NOMEM);
		goto out;
	}
	skb->protocol = eth_type_trans(skb, peer);
	skb_postpull_rcsum(skb, eth_hdr(skb), ETH_HLEN);
	reason = torport_enqueue(peer, skb, coll);
	if (unlikely(reason))
		goto drop;
	torus_stats_tx(priv->stats, len);
	torus_stats_rx(((struct torport_priv *)netdev_priv(peer))->stats,
		       len);
	goto out;

drop:
	torus_stats_drop(priv->stats, reason);
	kfree_skb_reason(skb, torus_skb_drop_reason(reason));
out:
	rcu_read_unlock();
	return NETDEV_TX_OK;
}

/* NAPI: the frames in this end's buffer, to the stack. */
static int torport_poll(struct napi_struct *napi, int budget)
{
	struct torport_priv *priv = container_of(napi, struct torport_priv,
						 napi);
	struct sk_buff_head batch;
	struct sk_buff *skb;
	int done = 0;

	__skb_queue_head_init(&batch);
	spin_lock_irq(&priv->rxq.lock);
	while (done < budget && (skb = __skb_dequeue(&priv->rxq))) {
		priv->rxq_bytes -= skb->truesize;
		__skb_queue_tail(&batch, skb);
		done++;
	}
	spin_unlock_irq(&priv->rxq.lock);
	while ((skb = __skb_dequeue(&batch)))
		netif_receive_skb(skb);
	if (done < budget)
		napi_complete_done(napi, done);
	return done;
}

static int torport_open(struct net_device *dev)
{
	struct torport_priv *priv = netdev_priv(dev);

	if (!rtnl_dereference(priv->peer))
		return -ENOTCONN;
	napi_enable(&priv->napi);
	spin_lock_irq(&priv->rxq.lock);
	priv->rx_on = true;
	spin_unlock_irq(&priv->rxq.lock);
	torport_update_carrier(dev);
	return 0;
}

static int torport_close(struct net_device *dev)
{
	struct torport_priv *priv = netdev_priv(dev);
	struct sk_buff_head gone;

	torport_update_carrier(dev);
	spin_lock_irq(&priv->rxq.lock);
	priv->rx_on = false;
	spin_unlock_irq(&priv->rxq.lock);
	napi_disable(&priv->napi);
	__skb_queue_head_init(&gone);
	spin_lock_irq(&priv->rxq.lock);
	skb_queue_splice_init(&priv->rxq, &gone);
	priv->rxq_bytes = 0;
	spin_unlock_irq(&priv->rxq.lock);
	__skb_queue_purge(&gone);
	return 0;
}

static int torport_init(struct net_device *dev)
{
	struct torport_priv *priv = netdev_priv(dev);

	priv->stats = torus_stats_alloc();
	if (!priv->stats)
		return -ENOMEM;
	skb_queue_head_init(&priv->rxq);
	netif_napi_add(dev, &priv->napi, torport_poll);
	return 0;
}

static void torport_free(struct net_device *dev)
{
	struct torport_priv *priv = netdev_priv(dev);

	skb_queue_purge(&priv->rxq);
	free_percpu(priv->stats);
}

static void torport_get_stats64(struct net_device *dev,
				struct rtnl_link_stats64 *tot)
{
	struct torport_priv *priv = netdev_priv(dev);
	struct torus_stats st;

	torus_stats_read(priv->stats, &st);
	tot->rx_packets = st.rx_packets;
	tot->rx_bytes = st.rx_bytes;
	tot->tx_packets = st.tx_packets;
	tot->tx_bytes = st.tx_bytes;
	tot->tx_dropped = st.drops;
}

static int torport_get_iflink(const struct net_device *dev)
{
	struct torport_priv *priv = netdev_priv(dev);
	struct net_device *peer;
	int iflink;

	rcu_read_lock();
	peer = rcu_dereference(priv->peer);
	iflink = peer ? peer->ifindex : 0;
	rcu_read_unlock();
	return iflink;
}

static const struct net_device_ops torport_netdev_ops = {
	.ndo_init		= torport_init,
	.ndo_open		= torport_open,
	.ndo_stop		= torport_close,
	.ndo_start_xmit		= torport_xmit,
	.ndo_get_stats64	= torport_get_stats64,
	.ndo_set_mac_address	= eth_mac_addr,
	.ndo_get_iflink		= torport_get_iflink,
	.ndo_features_check	= passthru_features_check,
};

static void torport_setup(struct net_device *dev)
{
	ether_setup(dev);
	dev->priv_flags &= ~IFF_TX_SKB_SHARING;
	dev->priv_flags |= IFF_LIVE_ADDR_CHANGE | IFF_NO_QUEUE;
	dev->netdev_ops = &torport_netdev_ops;
	dev->ethtool_ops = &torus_ethtool_ops;
	dev->features |= NETIF_F_LLTX | TORPORT_FEATURES;
	dev->hw_features = TORPORT_FEATURES;
	dev->needs_free_netdev = true;
	dev->priv_destructor = torport_free;
	dev->max_mtu = ETH_MAX_MTU;
}

static int torport_validate_label(struct nlattr *attr,
				  struct netlink_ext_ack *extack)
{
	u8 label;

	if (!attr)
		return 0;
	label = nla_get_u8(attr);
	if (label >= TORUS_MAX_DIRS && label != TORUS_DIR_NONE) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "torport: direction label out of range");
		return -ERANGE;
	}
	return 0;
}

static int torport_validate(struct nlattr *tb[], struct nlattr *data[],
			    struct netlink_ext_ack *extack)
{
	int err;

	if (tb[IFLA_ADDRESS]) {
		if (nla_len(tb[IFLA_ADDRESS]) != ETH_ALEN)
			return -EINVAL;
		if (!is_valid_ether_addr(nla_data(tb[IFLA_ADDRESS])))
			return -EADDRNOTAVAIL;
	}
	if (tb[IFLA_MTU] && nla_get_u32(tb[IFLA_MTU]) < ETH_MIN_MTU) {
		NL_SET_ERR_MSG_ATTR(extack, tb[IFLA_MTU], "torport: MTU too small");
		return -EINVAL;
	}
	if (!data)
		return 0;
	err = torport_validate_label(data[TORUS_LINK_A_LABEL], extack);
	if (!err)
		err = torport_validate_label(data[TORUS_LINK_A_PEER_LABEL],
					     extack);
	return err;
}

static u8 torport_label_attr(struct nlattr *data[], int type)
{
	if (data && data[type])
		return nla_get_u8(data[type]);
	return TORUS_DIR_NONE;
}

static int torport_newlink(struct net *src_net, struct net_device *dev,
			   struct nlattr *tb[], struct nlattr *data[],
			   struct netlink_ext_ack *extack)
{
	struct nlattr *peer_tb[IFLA_MAX + 1], **tbp = tb;
	struct torport_priv *priv, *peer_priv;
	unsigned char name_assign_type;
	struct ifinfomsg *ifmp = NULL;
	char ifname[IFNAMSIZ];
	struct net_device *peer;
	struct net *net;
	int err;

	if (data && data[TORUS_LINK_A_PEER]) {
		struct nlattr *nla_peer = data[TORUS_LINK_A_PEER];

		ifmp = nla_data(nla_peer);
		err = rtnl_nla_parse_ifinfomsg(peer_tb, nla_peer, extack);
		if (err < 0)
			return err;
		err = torport_validate(peer_tb, NULL, extack);
		if (err < 0)
			return err;
		tbp = peer_tb;
	}

	if (ifmp && tbp[IFLA_IFNAME]) {
		nla_strscpy(ifname, tbp[IFLA_IFNAME], IFNAMSIZ);
		name_assign_type = NET_NAME_USER;
	} else {
		snprintf(ifname, IFNAMSIZ, TORUS_PORT_KIND "%%d");
		name_assign_type = NET_NAME_ENUM;
	}

	net = rtnl_link_get_net(src_net, tbp);
	if (IS_ERR(net))
		return PTR_ERR(net);
	if (!ns_capable(net->user_ns, CAP_NET_ADMIN)) {
		NL_SET_ERR_MSG(extack, "torport: no CAP_NET_ADMIN in the peer's netns");
		put_net(net);
		return -EPERM;
	}

	peer = rtnl_create_link(net, ifname, name_assign_type,
				&torport_link_ops, tbp, extack);
	if (IS_ERR(peer)) {
		put_net(net);
		return PTR_ERR(peer);
	}
	if (!ifmp || !tbp[IFLA_ADDRESS])
		eth_hw_addr_random(peer);
	if (ifmp && dev->ifindex)
		peer->ifindex = ifmp->ifi_index;
	peer_priv = netdev_priv(peer);
	peer_priv->label = torport_label_attr(data, TORUS_LINK_A_PEER_LABEL);

	err = register_netdevice(peer);
	put_net(net);
	if (err < 0)
		goto err_register_peer;
	netif_carrier_off(peer);

	err = rtnl_configure_link(peer, ifmp, 0, NULL);
	if (err < 0)
		goto err_configure_peer;

	if (!tb[IFLA_ADDRESS])
		eth_hw_addr_random(dev);
	if (tb[IFLA_IFNAME])
		nla_strscpy(dev->name, tb[IFLA_IFNAME], IFNAMSIZ);
	else
		snprintf(dev->name, IFNAMSIZ, TORUS_PORT_KIND "%%d");
	priv = netdev_priv(dev);
	priv->label = torport_label_attr(data, TORUS_LINK_A_LABEL);

	err = register_netdevice(dev);
	if (err < 0)
		goto err_configure_peer;
	netif_carrier_off(dev);

	rcu_assign_pointer(priv->peer, peer);
	rcu_assign_pointer(peer_priv->peer, dev);
	return 0;

err_configure_peer:
	unregister_netdevice(peer);
	return err;

err_register_peer:
	free_netdev(peer);
	return err;
}

/* Deleting either end deletes the cable. */
static void torport_dellink(struct net_device *dev, struct list_head *head)
{
	struct torport_priv *priv = netdev_priv(dev);
	struct net_device *peer = rtnl_dereference(priv->peer);

	/* Both ends are freed only after an RCU grace period. */
	RCU_INIT_POINTER(priv->peer, NULL);
	unregister_netdevice_queue(dev, head);
	if (peer) {
		struct torport_priv *peer_priv = netdev_priv(peer);

		RCU_INIT_POINTER(peer_priv->peer, NULL);
		unregister_netdevice_queue(peer, head);
	}
}

static int torport_changelink(struct net_device *dev, struct nlattr *tb[],
			      struct nlattr *data[],
			      struct netlink_ext_ack *extack)
{
	if (data && (data[TORUS_LINK_A_LABEL] || data[TORUS_LINK_A_PEER] ||
		     data[TORUS_LINK_A_PEER_LABEL])) {
		NL_SET_ERR_MSG(extack, "torport: labels and peer are fixed at creation");
		return -EOPNOTSUPP;
	}
	return 0;
}

static size_t torport_get_size(const struct net_device *dev)
{
	return nla_total_size(sizeof(u8)) +	/* TORUS_LINK_A_LABEL */
	       nla_total_size(sizeof(u8));	/* TORUS_LINK_A_PEER_LABEL */
}

static int torport_fill_info(struct sk_buff *skb, const struct net_device *dev)
{
	struct torport_priv *priv = netdev_priv(dev);
	struct net_device *peer = rtnl_dereference(priv->peer);

	if (nla_put_u8(skb, TORUS_LINK_A_LABEL, priv->label))
		return -EMSGSIZE;
	if (peer) {
		struct torport_priv *peer_priv = netdev_priv(peer);

		if (nla_put_u8(skb, TORUS_LINK_A_PEER_LABEL, peer_priv->label))
			return -EMSGSIZE;
	}
	return 0;
}

static struct net *torport_get_link_net(const struct net_device *dev)
{
	struct torport_priv *priv = netdev_priv(dev);
	struct net_device *peer = rtnl_dereference(priv->peer);

	return peer ? dev_net(peer) : dev_net(dev);
}

static const struct nla_policy torport_policy[TORUS_LINK_A_MAX + 1] = {
	[TORUS_LINK_A_LABEL]		= { .type = NLA_U8 },
	[TORUS_LINK_A_PEER]		= { .len = sizeof(struct ifinfomsg) },
	[TORUS_LINK_A_PEER_LABEL]	= { .type = NLA_U8 },
};

struct rtnl_link_ops torport_link_ops = {
	.kind		= TORUS_PORT_KIND,
	.priv_size	= sizeof(struct torport_priv),
	.setup		= torport_setup,
	.validate	= torport_validate,
	.newlink	= torport_newlink,
	.changelink	= torport_changelink,
	.dellink	= torport_dellink,
	.get_size	= torport_get_size,
	.fill_info	= torport_fill_info,
	.policy		= torport_policy,
	.maxtype	= TORUS_LINK_A_MAX,
	.get_link_net	= torport_get_link_net,
};

/**
 * torport_set_cable - cut, restore or make lossy the cable of @dev
 * @dev: either end of a torport cable
 * @carrier: 1 restore, 0 cut, -1 leave as is
 * @loss_ppm: frames lost per million on both ends, -1 leave as is
 * @extack: error reporting
 *
 * Called under RTNL.
 */
int torport_set_cable(struct net_device *dev, int carrier, s64 loss_ppm,
		      struct netlink_ext_ack *extack)
{
	struct torport_priv *priv = netdev_priv(dev);
	struct net_device *peer = rtnl_dereference(priv->peer);
	struct torport_priv *peer_priv;

	if (!netif_is_torport(dev)) {
		NL_SET_ERR_MSG(extack, "torus: not a torport cable");
		return -EOPNOTSUPP;
	}
	if (!peer) {
		NL_SET_ERR_MSG(extack, "torus: cable has no peer");
		return -ENOTCONN;
	}
	peer_priv = netdev_priv(peer);
	if (loss_ppm >= 0) {
		WRITE_ONCE(priv->loss_ppm, loss_ppm);
		WRITE_ONCE(peer_priv->loss_ppm, loss_ppm);
	}
	if (carrier >= 0) {
		WRITE_ONCE(priv->cut, !carrier);
		WRITE_ONCE(peer_priv->cut, !carrier);
		torport_update_carrier(dev);
	}
	return 0;
}

/*
 * A namespace whose last reference is gone (a node that died): its
 * cables lose carrier now, at both ends.  cleanup_net() deletes its
 * devices only after an RCU grace period and the exit methods of every
 * pernet subsystem, a second or more on a loaded machine, while the
 * neighbours in other namespaces should reroute at once, as when a
 * machine loses power.
 */
static void __net_exit torport_net_pre_exit(struct net *net)
{
	struct net_device *dev;

	rtnl_lock();
	for_each_netdev(net, dev)
		if (netif_is_torport(dev))
			torport_update_carrier(dev);
	rtnl_unlock();
}

static struct pernet_operations torport_net_ops = {
	.pre_exit	= torport_net_pre_exit,
};

int torport_pernet_register(void)
{
	return register_pernet_device(&torport_net_ops);
}

void torport_pernet_unregister(void)
{
	unregister_pernet_device(&torport_net_ops);
}
