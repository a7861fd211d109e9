// SPDX-License-Identifier: GPL-2.0
/*
 * The node device (ip link add tor0 type torus): the node's face to the
 * fabric.  It carries IP for local programs, owns the forwarding state
 * and has the ports enslaved to it, as bonding and team have theirs.
 */
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/rtnetlink.h>

#include "torus_priv.h"
#include "torus_coll.h"

#define TORUS_NODE_FEATURES (NETIF_F_SG | NETIF_F_FRAGLIST | NETIF_F_HW_CSUM | \
			     NETIF_F_RXCSUM | NETIF_F_HIGHDMA | \
			     NETIF_F_GSO_SOFTWARE)

static const struct net_device_ops torus_node_netdev_ops;

#define TORUS_NODE_MAX_MTU	(ETH_MAX_MTU - TORUS_HDR_LEN - ETH_HLEN)

bool netif_is_torus_node(const struct net_device *dev)
{
	return dev->netdev_ops == &torus_node_netdev_ops;
}

/* The enslaved port behind @dev, or NULL.  Under RTNL or RCU. */
struct torus_port *torus_port_from_dev(const struct net_device *dev)
{
	if (rcu_access_pointer(dev->rx_handler) != torus_handle_frame)
		return NULL;
	return rcu_dereference_rtnl(dev->rx_handler_data);
}

u8 torus_port_global_dir(const struct torus_fib *fib,
			 const struct torus_port *port)
{
	u8 dir;

	for (dir = 0; dir < TORUS_MAX_DIRS; dir++)
		if (fib->map[dir] == port)
			return dir;
	return TORUS_DIR_NONE;
}

/**
 * torus_fib_build - new forwarding state, not yet published
 * @node: the node
 * @g: geometry, NULL to keep the current one
 * @placed: whether the node forwards
 * @map: new port map, NULL to keep the current one
 * @hop_limit: configured hop limit, 0 for the default
 * @gfp: allocation flags
 *
 * Called under RTNL.  Return: the state, or NULL without memory.
 */
struct torus_fib *torus_fib_build(const struct torus_node *node,
				  const struct torus_geom *g, bool placed,
				  struct torus_port *const *map, u8 hop_limit,
				  gfp_t gfp)
{
	const struct torus_fib *old = rtnl_dereference(node->fib);
	struct torus_fib *fib;

	fib = kmalloc(sizeof(*fib), gfp);
	if (!fib)
		return NULL;
	*fib = *old;
	if (g)
		fib->geom = *g;
	if (map)
		memcpy(fib->map, map, sizeof(fib->map));
	fib->placed = placed && fib->geom.ndims;
	fib->hop_limit = hop_limit ?: TORUS_HOP_LIMIT_DEFAULT;
	return fib;
}

/* Publish @fib from torus_fib_build(); cannot fail.  Under RTNL. */
void torus_node_publish_fib(struct torus_node *node, struct torus_fib *fib)
{
	struct torus_fib *old = rtnl_dereference(node->fib);

	rcu_assign_pointer(node->fib, fib);
	kfree_rcu(old, rcu);
	node->generation++;
}

/**
 * torus_node_set_fib - publish new forwarding state
 * @node: the node
 * @g: geometry, NULL to keep the current one
 * @placed: whether the node forwards
 * @map: new port map, NULL to keep the current one
 *
 * Called under RTNL.  The old state is freed after a grace period.
 */
int torus_node_set_fib(struct torus_node *node, const struct torus_geom *g,
		       bool placed, struct torus_port *const *map)
{
	struct torus_fib *fib;

	fib = torus_fib_build(node, g, placed, map, node->hop_limit,
			      GFP_KERNEL);
	if (!fib)
		return -ENOMEM;
	torus_node_publish_fib(node, fib);
	return 0;
}

/* The ports' features the node can offer: what every port has, except
 * segmentation, which the data path does for ports that cannot.
 */
static netdev_features_t torus_node_fix_features(struct net_device *dev,
						 netdev_features_t features)
{
	struct torus_node *node = netdev_priv(dev);
	netdev_features_t mask = TORUS_NODE_FEATURES;
	struct torus_port *port;

	list_for_each_entry(port, &node->ports, list)
		mask &= port->dev->features | NETIF_F_GSO_SOFTWARE;
	return features & (mask | ~TORUS_NODE_FEATURES);
}

/* Follow the ports: MTU is the smallest port MTU less the torus header,
 * features and GSO limits what all ports can take.  Under RTNL.
 */
static void torus_node_sync_ports(struct torus_node *node)
{
	unsigned int mtu = UINT_MAX, tso_size = TSO_LEGACY_MAX_SIZE;
	struct net_device *dev = node->dev;
	u16 tso_segs = TSO_MAX_SEGS;
	struct torus_port *port;

	if (dev->reg_state != NETREG_REGISTERED)
		return;
	list_for_each_entry(port, &node->ports, list) {
		mtu = min(mtu, port->dev->mtu);
		tso_size = min(tso_size, port->dev->tso_max_size);
		tso_segs = min(tso_segs, port->dev->tso_max_segs);
	}
	netif_set_tso_max_size(dev, tso_size);
	netif_set_tso_max_segs(dev, tso_segs);
	netdev_update_features(dev);
	if (mtu == UINT_MAX) {
		dev->max_mtu = TORUS_NODE_MAX_MTU;
		return;
	}
	mtu = max_t(int, (int)mtu - TORUS_HDR_LEN, ETH_MIN_MTU);
	dev->max_mtu = mtu;
	if (dev->mtu != mtu && dev_set_mtu(dev, mtu))
		netdev_warn(dev, "cannot follow its ports to MTU %u\n", mtu);
}

static void torus_port_free_rcu(struct rcu_head *head)
{
	struct torus_port *port = container_of(head, struct torus_port, rcu);

	free_percpu(port->stats);
	kfree(port);
}

/* Unmap, unlink and free a port.  Under RTNL. */
void torus_node_release_port(struct torus_port *port)
{
	struct torus_node *node = port->node;
	struct torus_fib *fib = rtnl_dereference(node->fib);
	struct torus_port *map[TORUS_MAX_DIRS];
	bool mapped = false;
	u8 dir;

	memcpy(map, fib->map, sizeof(map));
	for (dir = 0; dir < TORUS_MAX_DIRS; dir++) {
		if (map[dir] == port) {
			map[dir] = NULL;
			mapped = true;
		}
	}
	/* Without memory the port stays mapped: unmap it in place. */
	if (mapped && torus_node_set_fib(node, NULL, fib->placed, map)) {
		for (dir = 0; dir < TORUS_MAX_DIRS; dir++)
			if (fib->map[dir] == port)
				WRITE_ONCE(fib->map[dir], NULL);
		synchronize_net();
	}

	list_del_rcu(&port->list);
	netdev_upper_dev_unlink(port->dev, node->dev);
	netdev_rx_handler_unregister(port->dev);
	torus_notify_port(port);
	netdev_info(node->dev, "released port %s\n", port->dev->name);
	call_rcu(&port->rcu, torus_port_free_rcu);
	torus_node_sync_ports(node);
}

static int torus_node_add_slave(struct net_device *dev,
				struct net_device *slave_dev,
				struct netlink_ext_ack *extack)
{
	struct torus_node *node = netdev_priv(dev);
	struct torus_port *port;
	int err;

	if (slave_dev->type != ARPHRD_ETHER || slave_dev->addr_len != ETH_ALEN) {
		NL_SET_ERR_MSG(extack, "torus: a port must be an Ethernet device");
		return -EINVAL;
	}
	if (netif_is_torus_node(slave_dev) || slave_dev->flags & IFF_LOOPBACK) {
		NL_SET_ERR_MSG(extack, "torus: device cannot be a port");
		return -EINVAL;
	}
	if (netdev_is_rx_handler_busy(slave_dev)) {
		NL_SET_ERR_MSG(extack, "torus: device already has a master or rx handler");
		return -EBUSY;
	}

	port = kzalloc(sizeof(*port), GFP_KERNEL);
	if (!port)
		return -ENOMEM;
	port->stats = torus_stats_alloc();
	if (!port->stats) {
		kfree(port);
		return -ENOMEM;
	}
	port->dev = slave_dev;
	port->node = node;
	port->label = TORUS_DIR_NONE;
	if (netif_is_torport(slave_dev)) {
		struct torport_priv *tp = netdev_priv(slave_dev);

		port->label = tp->label;
	}

	err = netdev_rx_handler_register(slave_dev, torus_handle_frame, port);
	if (err)
		goto err_free;
	err = netdev_master_upper_dev_link(slave_dev, dev, NULL, NULL, extack);
	if (err)
		goto err_unregister;

	list_add_tail_rcu(&port->list, &node->ports);
	torus_node_sync_ports(node);
	node->generation++;
	torus_notify_port(port);
	netdev_info(dev, "enslaved port %s\n", slave_dev->name);
	return 0;

err_unregister:
	netdev_rx_handler_unregister(slave_dev);
err_free:
	free_percpu(port->stats);
	kfree(port);
	return err;
}

static int torus_node_del_slave(struct net_device *dev,
				struct net_device *slave_dev)
{
	struct torus_port *port = torus_port_from_dev(slave_dev);

	if (!port || port->node != netdev_priv(dev))
		return -EINVAL;
	torus_node_release_port(port);
	return 0;
}

static int torus_node_init(struct net_device *dev)
{
	struct torus_node *node = netdev_priv(dev);
	struct torus_fib *fib;

	node->dev = dev;
	INIT_LIST_HEAD(&node->ports);
	node->stats = torus_stats_alloc();
	if (!node->stats)
		return -ENOMEM;
	fib = kzalloc(sizeof(*fib), GFP_KERNEL);
	if (!fib) {
		free_percpu(node->stats);
		node->stats = NULL;
		return -ENOMEM;
	}
	fib->hop_limit = TORUS_HOP_LIMIT_DEFAULT;
	RCU_INIT_POINTER(node->fib, fib);
	RCU_INIT_POINTER(node->routes, NULL);
	RCU_INIT_POINTER(node->plans, NULL);
	if (torus_coll_node_init(node)) {
		RCU_INIT_POINTER(node->fib, NULL);
		kfree(fib);
		free_percpu(node->stats);
		node->stats = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* Runs on unregister, before the device is freed: drop every port. */
static void torus_node_uninit(struct net_device *dev)
{
	struct torus_node *node = netdev_priv(dev);
	struct torus_port *port, *tmp;
	struct torus_plans *plans;
	struct torus_rtable *rt;
	struct torus_fib *fib;

	torus_coll_node_uninit(node);
	list_for_each_entry_safe(port, tmp, &node->ports, list)
		torus_node_release_port(port);

	fib = rtnl_dereference(node->fib);
	RCU_INIT_POINTER(node->fib, NULL);
	kfree_rcu(fib, rcu);
	rt = rtnl_dereference(node->routes);
	RCU_INIT_POINTER(node->routes, NULL);
	if (rt)
		kvfree_rcu(rt, rcu);
	plans = rtnl_dereference(node->plans);
	RCU_INIT_POINTER(node->plans, NULL);
	if (plans)
		kfree_rcu(plans, rcu);
}

static void torus_node_free(struct net_device *dev)
{
	struct torus_node *node = netdev_priv(dev);

	free_percpu(node->stats);
}

static int torus_node_open(struct net_device *dev)
{
	netif_carrier_on(dev);
	return 0;
}

static int torus_node_stop(struct net_device *dev)
{
	netif_carrier_off(dev);
	return 0;
}

static void torus_node_get_stats64(struct net_device *dev,
				   struct rtnl_link_stats64 *tot)
{
	struct torus_node *node = netdev_priv(dev);
	struct torus_stats st;

	torus_stats_read(node->stats, &st);
	tot->rx_packets = st.rx_packets;
	tot->rx_bytes = st.rx_bytes;
	tot->tx_packets = st.tx_packets;
	tot->tx_bytes = st.tx_bytes;
	tot->tx_dropped = st.drops;
}

static const struct net_device_ops torus_node_netdev_ops = {
	.ndo_init		= torus_node_init,
	.ndo_uninit		= torus_node_uninit,
	.ndo_open		= torus_node_open,
	.ndo_stop		= torus_node_stop,
	.ndo_start_xmit		= torus_node_xmit,
	.ndo_get_stats64	= torus_node_get_stats64,
	.ndo_add_slave		= torus_node_add_slave,
	.ndo_del_slave		= torus_node_del_slave,
	.ndo_features_check	= passthru_features_check,
	.ndo_fix_features	= torus_node_fix_features,
};

static void torus_node_setup(struct net_device *dev)
{
	dev->netdev_ops = &torus_node_netdev_ops;
	dev->type = ARPHRD_NONE;
	dev->flags = IFF_POINTOPOINT | IFF_NOARP | IFF_MULTICAST;
	dev->priv_flags |= IFF_NO_QUEUE;
	dev->hard_header_len = 0;
	dev->addr_len = 0;
	dev->needed_headroom = TORUS_NEEDED_HEADROOM;
	dev->tx_queue_len = 0;
	dev->mtu = ETH_DATA_LEN - TORUS_HDR_LEN;
	dev->min_mtu = ETH_MIN_MTU;
	dev->max_mtu = TORUS_NODE_MAX_MTU;
	dev->ethtool_ops = &torus_ethtool_ops;
	/* its ports stay where they are: the node cannot change netns */
	dev->features |= NETIF_F_LLTX | NETIF_F_NETNS_LOCAL |
			 TORUS_NODE_FEATURES;
	dev->hw_features |= TORUS_NODE_FEATURES;
	dev->needs_free_netdev = true;
	dev->priv_destructor = torus_node_free;
}

static int torus_node_validate(struct nlattr *tb[], struct nlattr *data[],
			       struct netlink_ext_ack *extack)
{
	if (tb[IFLA_ADDRESS]) {
		NL_SET_ERR_MSG_ATTR(extack, tb[IFLA_ADDRESS],
				    "torus: a node device has no link-layer address");
		return -EINVAL;
	}
	if (data) {
		NL_SET_ERR_MSG(extack, "torus: the node is set with 'torus node set', not ip link");
		return -EOPNOTSUPP;
	}
	return 0;
}

static size_t torus_node_get_size(const struct net_device *dev)
{
	size_t axes = TORUS_MAX_AXES * nla_total_size(sizeof(u32));

	return nla_total_size_64bit(sizeof(u64)) +	/* NODE_ID */
	       2 * nla_total_size(sizeof(u8)) +		/* STATE, ROLE */
	       3 * nla_total_size(axes) +		/* COORD, DIMS, WRAP */
	       nla_total_size(sizeof(u32));		/* PORTS */
}

static int torus_node_fill_info(struct sk_buff *skb,
				const struct net_device *dev)
{
	const struct torus_node *node = netdev_priv(dev);
	const struct torus_fib *fib = rtnl_dereference(node->fib);
	const struct torus_port *port;
	u32 ports = 0;

	list_for_each_entry(port, &node->ports, list)
		ports++;
	if (nla_put_u64_64bit(skb, TORUS_NODE_INFO_A_NODE_ID, node->id,
			      TORUS_NODE_INFO_A_PAD) ||
	    nla_put_u8(skb, TORUS_NODE_INFO_A_STATE, node->state) ||
	    nla_put_u8(skb, TORUS_NODE_INFO_A_ROLE, node->role) ||
	    nla_put_u32(skb, TORUS_NODE_INFO_A_PORTS, ports))
		return -EMSGSIZE;
	if (!fib->geom.ndims)
		return 0;
	if (torus_nl_put_axes(skb, TORUS_NODE_INFO_A_COORD, &fib->geom, 0) ||
	    torus_nl_put_axes(skb, TORUS_NODE_INFO_A_DIMS, &fib->geom,
			      TORUS_A_DIMS) ||
	    torus_nl_put_axes(skb, TORUS_NODE_INFO_A_WRAP, &fib->geom,
			      TORUS_A_WRAP))
		return -EMSGSIZE;
	return 0;
}

static size_t torus_node_get_slave_size(const struct net_device *dev,
					const struct net_device *slave_dev)
{
	return 2 * nla_total_size(sizeof(u8));	/* LABEL, GLOBAL_DIR */
}

static int torus_node_fill_slave_info(struct sk_buff *skb,
				      const struct net_device *dev,
				      const struct net_device *slave_dev)
{
	const struct torus_node *node = netdev_priv(dev);
	const struct torus_fib *fib = rtnl_dereference(node->fib);
	const struct torus_port *port = torus_port_from_dev(slave_dev);

	if (!port)
		return 0;
	if (nla_put_u8(skb, TORUS_PORT_INFO_A_LABEL, port->label) ||
	    nla_put_u8(skb, TORUS_PORT_INFO_A_GLOBAL_DIR,
		       torus_port_global_dir(fib, port)))
		return -EMSGSIZE;
	return 0;
}

/**
 * torus_port_label_check - whether @port may carry @label
 * @port: a port of a node
 * @label: a direction, or TORUS_DIR_NONE to clear the label
 * @attr: the attribute @label came from, for the error message
 * @extack: error reporting
 *
 * A torport's label is printed on its cable and stays fixed; any other
 * port takes one of the eight axes a node can have (the node's current
 * geometry is not the limit: a port on a new axis is how a fabric grows
 * one, torusd then discovers it again), and no two ports of a node carry
 * the same label, since discovery tells its ports apart by them.  RTNL.
 *
 * Return: 0 or a negative errno, @extack says why.
 */
int torus_port_label_check(const struct torus_port *port, u8 label,
			   const struct nlattr *attr,
			   struct netlink_ext_ack *extack)
{
	const struct torus_port *other;

	if (netif_is_torport(port->dev)) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "torus: a torport's label is fixed at its cable (torus link add ... dir)");
		return -EOPNOTSUPP;
	}
	if (label == TORUS_DIR_NONE)
		return 0;
	if (label >= TORUS_MAX_DIRS) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "torus: direction label out of range (+x .. -e, or none)");
		return -ERANGE;
	}
	list_for_each_entry(other, &port->node->ports, list) {
		if (other != port && other->label == label) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "torus: another port of the node has this label");
			return -EEXIST;
		}
	}
	return 0;
}

/*
 * ip link set PORT type torus_slave dir LABEL: the label of a port that
 * is not a torport.  The port map is left alone (the cable behind the
 * port is the same; torusd installs a new map once it has discovered
 * again); the change is announced as an enslaved port is.
 */
static int torus_node_slave_changelink(struct net_device *dev,
				       struct net_device *slave_dev,
				       struct nlattr *tb[],
				       struct nlattr *data[],
				       struct netlink_ext_ack *extack)
{
	struct torus_port *port = torus_port_from_dev(slave_dev);
	struct torus_node *node = netdev_priv(dev);
	struct nlattr *attr;
	int err;
	u8 label;

	if (!data)
		return 0;
	if (data[TORUS_PORT_INFO_A_GLOBAL_DIR]) {
		NL_SET_ERR_MSG_ATTR(extack, data[TORUS_PORT_INFO_A_GLOBAL_DIR],
				    "torus: the global direction comes from the port map (torus port map)");
		return -EOPNOTSUPP;
	}
	attr = data[TORUS_PORT_INFO_A_LABEL];
	if (!attr)
		return 0;
	if (!port || port->node != node) {
		NL_SET_ERR_MSG(extack, "torus: device is not a port of this node");
		return -EINVAL;
	}
	label = nla_get_u8(attr);
	err = torus_port_label_check(port, label, attr, extack);
	if (err || label == port->label)
		return err;

	WRITE_ONCE(port->label, label);
	torus_node_sync_ports(node);
	node->generation++;
	torus_notify_port(port);
	if (label == TORUS_DIR_NONE)
		netdev_info(dev, "port %s has no label now\n", slave_dev->name);
	else
		netdev_info(dev, "port %s labelled %c%c\n", slave_dev->name,
			    TORUS_DIR_NEG(label) ? '-' : '+',
			    TORUS_AXIS_NAMES[TORUS_DIR_AXIS(label)]);
	return 0;
}

/* What the node reports; nothing of it is set through rtnetlink. */
static const struct nla_policy torus_node_policy[TORUS_NODE_INFO_A_MAX + 1] = {
	[TORUS_NODE_INFO_A_NODE_ID]	= { .type = NLA_U64 },
	[TORUS_NODE_INFO_A_STATE]	= { .type = NLA_U8 },
	[TORUS_NODE_INFO_A_ROLE]	= { .type = NLA_U8 },
	[TORUS_NODE_INFO_A_COORD]	= { .type = NLA_NESTED },
	[TORUS_NODE_INFO_A_DIMS]	= { .type = NLA_NESTED },
	[TORUS_NODE_INFO_A_WRAP]	= { .type = NLA_NESTED },
	[TORUS_NODE_INFO_A_PORTS]	= { .type = NLA_U32 },
};

/* A port's label is set (torus_node_slave_changelink()), the rest read. */
static const struct nla_policy
torus_port_info_policy[TORUS_PORT_INFO_A_MAX + 1] = {
	[TORUS_PORT_INFO_A_LABEL]	= { .type = NLA_U8 },
	[TORUS_PORT_INFO_A_GLOBAL_DIR]	= { .type = NLA_U8 },
};

struct rtnl_link_ops torus_node_link_ops = {
	.kind		= TORUS_NODE_KIND,
	.priv_size	= sizeof(struct torus_node),
	.setup		= torus_node_setup,
	.validate	= torus_node_validate,
	.maxtype	= TORUS_NODE_INFO_A_MAX,
	.policy		= torus_node_policy,
	.get_size	= torus_node_get_size,
	.fill_info	= torus_node_fill_info,
	.slave_maxtype	= TORUS_PORT_INFO_A_MAX,
	.slave_policy	= torus_port_info_policy,
	.get_slave_size	= torus_node_get_slave_size,
	.fill_slave_info = torus_node_fill_slave_info,
	.slave_changelink = torus_node_slave_changelink,
};

/**
 * torus_node_port_changed - announce a port's new state or carrier
 * @dev: the port's device; nothing happens if it is no node's port
 *
 * Called from the netdev notifier, and by torport cables as soon as
 * their carrier changes: the link watcher's NETDEV_CHANGE may come a
 * second later (it holds back events it deems not urgent, such as a
 * port whose peer has the same ifindex in another namespace).  RTNL.
 */
void torus_node_port_changed(struct net_device *dev)
{
	struct torus_port *port = torus_port_from_dev(dev);

	if (!port)
		return;
	/* collectives waiting across a dead cable fail now */
	if (!netif_running(dev) || !netif_carrier_ok(dev))
		torus_coll_port_down(port->node, port);
	port->node->generation++;
	torus_notify_port(port);
}

/* A port going away leaves its node; carrier changes are announced. */
static int torus_node_netdev_event(struct notifier_block *nb,
				   unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct torus_port *port = torus_port_from_dev(dev);

	if (!port)
		return NOTIFY_DONE;

	switch (event) {
	case NETDEV_UNREGISTER:
		torus_coll_port_down(port->node, port);
		torus_node_release_port(port);
		break;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		torus_node_port_changed(dev);
		break;
	case NETDEV_CHANGEMTU:
	case NETDEV_FEAT_CHANGE:
		torus_node_sync_ports(port->node);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block torus_node_notifier = {
	.notifier_call = torus_node_netdev_event,
};

int torus_node_notifier_init(void)
{
	return register_netdevice_notifier(&torus_node_notifier);
}

void torus_node_notifier_exit(void)
{
	unregister_netdevice_notifier(&torus_node_notifier);
}
