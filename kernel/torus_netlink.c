// SPDX-License-Identifier: GPL-2.0
/*
 * Generic netlink family "torus": node configuration, ports, the port
 * map, cable control, route lookup and exceptions, and events.  Every
 * request is validated by the policy; changes need CAP_NET_ADMIN in the
 * user namespace owning the device's netns (torus_nl_pre_doit()).  Replies, dumps and
 * notifications share one fill function per object.
 */
#include <linux/if.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "torus_priv.h"
#include "torus_coll.h"

static struct genl_family torus_genl_family;
static bool torus_genl_ready;

/* genl_ops.internal_flags: the command changes state */
#define TORUS_NL_ADMIN	BIT(0)

static struct netlink_range_validation torus_loss_range = {
	.max = TORUS_LOSS_PPM_MAX,
};

static struct netlink_range_validation torus_coll_timeout_range = {
	.min = 1,
	.max = TORUS_COLL_TIMEOUT_MS_MAX,
};

/* beyond TORUS_COLL_MAX_COUNT only placed (torus_coll_nl.c) */
static struct netlink_range_validation torus_coll_count_range = {
	.min = 1,
	.max = TORUS_COLL_PLACED_MAX_COUNT,
};

static const struct nla_policy torus_coord_policy[TORUS_MAX_AXES + 1] = {
	[1 ... TORUS_MAX_AXES] = NLA_POLICY_MAX(NLA_U32, TORUS_MAX_EXTENT - 1),
};

static const struct nla_policy torus_dims_policy[TORUS_MAX_AXES + 1] = {
	[1 ... TORUS_MAX_AXES] = NLA_POLICY_RANGE(NLA_U32, 1, TORUS_MAX_EXTENT),
};

static const struct nla_policy torus_wrap_policy[TORUS_MAX_AXES + 1] = {
	[1 ... TORUS_MAX_AXES] = NLA_POLICY_MAX(NLA_U8, 1),
};

static const struct nla_policy torus_pme_policy[TORUS_PME_A_MAX + 1] = {
	[TORUS_PME_A_DIR]	= NLA_POLICY_MAX(NLA_U8, TORUS_MAX_DIRS - 1),
	[TORUS_PME_A_IFINDEX]	= { .type = NLA_U32 },
};

static const struct nla_policy torus_portmap_policy[TORUS_A_PORTMAP_ENTRY + 1] = {
	[TORUS_A_PORTMAP_ENTRY]	= NLA_POLICY_NESTED(torus_pme_policy),
};

static const struct nla_policy torus_route_policy[TORUS_ROUTE_A_MAX + 1] = {
	[TORUS_ROUTE_A_DST]	= NLA_POLICY_NESTED(torus_coord_policy),
	[TORUS_ROUTE_A_VIA]	= NLA_POLICY_NESTED(torus_coord_policy),
	[TORUS_ROUTE_A_DIR]	= NLA_POLICY_MAX(NLA_U8, TORUS_MAX_DIRS - 1),
	[TORUS_ROUTE_A_NEXT_DIR]	= { .type = NLA_REJECT },
	[TORUS_ROUTE_A_NEXT_PORT]	= { .type = NLA_REJECT },
	[TORUS_ROUTE_A_EXCEPTION]	= { .type = NLA_REJECT },
	[TORUS_ROUTE_A_HOPS]		= { .type = NLA_REJECT },
	[TORUS_ROUTE_A_PLAN]	= NLA_POLICY_MAX(NLA_U8, TORUS_MAX_PLANS - 1),
	[TORUS_ROUTE_A_VC]		= { .type = NLA_REJECT },
	[TORUS_ROUTE_A_WHY]		= { .type = NLA_REJECT },
	[TORUS_ROUTE_A_PLAN1]	= NLA_POLICY_MAX(NLA_U8, TORUS_MAX_PLANS - 1),
};

static const struct nla_policy torus_plan_order_policy[TORUS_MAX_AXES + 1] = {
	[1 ... TORUS_MAX_AXES] = NLA_POLICY_MAX(NLA_U8, TORUS_MAX_AXES - 1),
};

static const struct nla_policy torus_plan_dirs_policy[TORUS_MAX_AXES + 1] = {
	[1 ... TORUS_MAX_AXES] = NLA_POLICY_MAX(NLA_U8, TORUS_PLAN_POLICY_MAX),
};

static const struct nla_policy torus_plan_policy[TORUS_PLAN_A_MAX + 1] = {
	[TORUS_PLAN_A_INDEX]	= NLA_POLICY_RANGE(NLA_U8, 1,
						   TORUS_MAX_PLANS - 1),
	[TORUS_PLAN_A_ORDER]	= NLA_POLICY_NESTED(torus_plan_order_policy),
	[TORUS_PLAN_A_POLICY]	= NLA_POLICY_NESTED(torus_plan_dirs_policy),
};

/* Whole struct torus_exc_rec records, at least one. */
static int torus_nl_validate_recs(const struct nlattr *attr,
				  struct netlink_ext_ack *extack)
{
	if (!nla_len(attr) || nla_len(attr) % sizeof(struct torus_exc_rec)) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "torus: packed exceptions are whole 20-byte records");
		return -EINVAL;
	}
	return 0;
}

static int torus_nl_validate_group(const struct nlattr *attr,
				   struct netlink_ext_ack *extack)
{
	u16 group = nla_get_u16(attr);

	if (!(group & TORUS_COLL_GROUP_LIST) && group >= TORUS_COLL_GROUPS) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "torus: a group is axes (a bit each) or TORUS_COLL_GROUP_LIST and a number");
		return -EINVAL;
	}
	return 0;
}

static int torus_nl_validate_members(const struct nlattr *attr,
				     struct netlink_ext_ack *extack)
{
	const u32 *rank = nla_data(attr);
	unsigned int i, n = nla_len(attr) / sizeof(*rank);

	if (!n || n > TORUS_COLL_LIST_MAX || nla_len(attr) % sizeof(*rank)) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "torus: members are 1 to TORUS_COLL_LIST_MAX u32 ranks");
		return -EINVAL;
	}
	for (i = 1; i < n; i++)
		if (rank[i] <= rank[i - 1]) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "torus: members are ranks in ascending order, each once");
			return -EINVAL;
		}
	return 0;
}

static const struct nla_policy torus_policy[TORUS_A_MAX + 1] = {
	[TORUS_A_IFINDEX]	= { .type = NLA_U32 },
	[TORUS_A_IFNAME]	= { .type = NLA_STRING, .len = IFNAMSIZ - 1 },
	[TORUS_A_NODE_ID]	= { .type = NLA_U64 },
	[TORUS_A_COORD]		= NLA_POLICY_NESTED(torus_coord_policy),
	[TORUS_A_DIMS]		= NLA_POLICY_NESTED(torus_dims_policy),
	[TORUS_A_WRAP]		= NLA_POLICY_NESTED(torus_wrap_policy),
	[TORUS_A_STATE]		= NLA_POLICY_MAX(NLA_U8, TORUS_STATE_MAX),
	[TORUS_A_ROLE]		= NLA_POLICY_MAX(NLA_U8, TORUS_ROLE_MAX),
	[TORUS_A_REASON]	= { .type = NLA_STRING,
				    .len = TORUS_REASON_LEN - 1 },
	[TORUS_A_HOP_LIMIT]	= { .type = NLA_U8 },
	[TORUS_A_STATS]		= { .type = NLA_REJECT },
	[TORUS_A_PORT]		= { .type = NLA_REJECT },
	[TORUS_A_PORTMAP]	= NLA_POLICY_NESTED(torus_portmap_policy),
	[TORUS_A_PORT_IFINDEX]	= { .type = NLA_U32 },
	[TORUS_A_CARRIER]	= NLA_POLICY_MAX(NLA_U8, 1),
	[TORUS_A_LOSS_PPM]	= NLA_POLICY_FULL_RANGE(NLA_U32,
							&torus_loss_range),
	[TORUS_A_ROUTE]		= NLA_POLICY_NESTED(torus_route_policy),
	[TORUS_A_GENERATION]	= { .type = NLA_REJECT },
	[TORUS_A_LEADER]	= { .type = NLA_U64 },
	[TORUS_A_ROUTES_REPLACE]	= { .type = NLA_FLAG },
	[TORUS_A_PLAN]		= NLA_POLICY_NESTED(torus_plan_policy),
	[TORUS_A_ROUTES_GENERATION]	= { .type = NLA_REJECT },
	[TORUS_A_ROUTES_COUNT]	= { .type = NLA_REJECT },
	[TORUS_A_COLL_TREE]	= NLA_POLICY_NESTED(torus_coll_tree_policy),
	[TORUS_A_COLL_TREE_SET]	= { .type = NLA_REJECT },
	[TORUS_A_COLL_KIND]	= NLA_POLICY_MAX(NLA_U8, TORUS_COLL_KIND_MAX),
	[TORUS_A_COLL_TYPE]	= NLA_POLICY_MAX(NLA_U8, TORUS_COLL_TYPE_MAX),
	[TORUS_A_COLL_OP]	= NLA_POLICY_MAX(NLA_U8, TORUS_COLL_OP_MAX),
	[TORUS_A_COLL_DATA]	= { .type = NLA_BINARY },
	[TORUS_A_COLL_COUNT]	= NLA_POLICY_FULL_RANGE(NLA_U32,
							&torus_coll_count_range),
	[TORUS_A_COLL_ROOT]	= NLA_POLICY_NESTED(torus_coord_policy),
	[TORUS_A_COLL_TIMEOUT_MS]	= NLA_POLICY_FULL_RANGE(NLA_U32,
							&torus_coll_timeout_range),
	[TORUS_A_COLL_SEQ]	= { .type = NLA_REJECT },
	[TORUS_A_COLL_RESULT]	= { .type = NLA_REJECT },
	[TORUS_A_COLL_ERROR]	= { .type = NLA_REJECT },
	[TORUS_A_ROUTES_PACKED]	= NLA_POLICY_VALIDATE_FN(NLA_BINARY,
						 torus_nl_validate_recs),
	[TORUS_A_COLL_LOC]	= { .type = NLA_REJECT },
	[TORUS_A_COLL_GROUP]	= NLA_POLICY_VALIDATE_FN(NLA_U16,
						 torus_nl_validate_group),
	[TORUS_A_COLL_MEMBERS]	= NLA_POLICY_VALIDATE_FN(NLA_BINARY,
						 torus_nl_validate_members),
	[TORUS_A_COLL_PLACE]	= { .type = NLA_U64 },
	[TORUS_A_COLL_PLACED]	= { .type = NLA_REJECT },
};

/* ---- parsing helpers ---- */

/*
 * A per-axis array: attribute type axis + 1, each axis once, from x on
 * without gaps.  Return: the number of axes, or a negative error.
 */
static int torus_nl_parse_axes(struct nlattr *nest, u32 *vals,
			       struct netlink_ext_ack *extack)
{
	struct nlattr *attr;
	u32 seen = 0;
	int rem, n;

	memset(vals, 0, TORUS_MAX_AXES * sizeof(*vals));
	nla_for_each_nested(attr, nest, rem) {
		int axis = nla_type(attr) - 1;

		if (axis < 0 || axis >= TORUS_MAX_AXES || seen & BIT(axis)) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "torus: axis given twice or out of range");
			return -EINVAL;
		}
		seen |= BIT(axis);
		vals[axis] = nla_len(attr) == sizeof(u8) ? nla_get_u8(attr) :
							   nla_get_u32(attr);
	}
	n = hweight32(seen);
	if (seen != BIT(n) - 1) {
		NL_SET_ERR_MSG_ATTR(extack, nest,
				    "torus: axes must be given from x on without gaps");
		return -EINVAL;
	}
	return n;
}

int torus_nl_parse_coord(struct nlattr *nest, const struct torus_geom *g,
			 u8 *coord, struct netlink_ext_ack *extack)
{
	u32 vals[TORUS_MAX_AXES];
	int n, axis;

	n = torus_nl_parse_axes(nest, vals, extack);
	if (n < 0)
		return n;
	for (axis = 0; axis < TORUS_MAX_AXES; axis++)
		coord[axis] = vals[axis];
	if (n != g->ndims || !torus_coord_valid(g, coord)) {
		NL_SET_ERR_MSG_ATTR(extack, nest,
				    "torus: coordinates outside the node's extents");
		return -ERANGE;
	}
	return 0;
}

/* The node device named by TORUS_A_IFINDEX or TORUS_A_IFNAME.  RTNL. */
struct torus_node *torus_nl_get_node(struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct net_device *dev = NULL;
	struct nlattr *attr;

	attr = info->attrs[TORUS_A_IFINDEX];
	if (attr) {
		dev = __dev_get_by_index(net, nla_get_u32(attr));
	} else if (info->attrs[TORUS_A_IFNAME]) {
		char name[IFNAMSIZ];

		attr = info->attrs[TORUS_A_IFNAME];
		nla_strscpy(name, attr, IFNAMSIZ);
		dev = __dev_get_by_name(net, name);
	} else {
		NL_SET_ERR_MSG(info->extack,
			       "torus: missing node device (ifindex or ifname)");
		return ERR_PTR(-EINVAL);
	}
	if (!dev) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr, "torus: no such device");
		return ERR_PTR(-ENODEV);
	}
	if (!netif_is_torus_node(dev)) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "torus: not a torus node device");
		return ERR_PTR(-EOPNOTSUPP);
	}
	return netdev_priv(dev);
}

/* ---- fill functions, one per object ---- */

int torus_nl_put_axes(struct sk_buff *skb, int type,
		      const struct torus_geom *g, int what)
{
	struct nlattr *nest;
	int axis, err = 0;

	nest = nla_nest_start(skb, type);
	if (!nest)
		return -EMSGSIZE;
	for (axis = 0; axis < g->ndims && !err; axis++) {
		if (what == TORUS_A_WRAP)
			err = nla_put_u8(skb, TORUS_AXIS_A(axis),
					 !!(g->wrap & BIT(axis)));
		else if (what == TORUS_A_DIMS)
			err = nla_put_u32(skb, TORUS_AXIS_A(axis),
					  g->dims[axis]);
		else
			err = nla_put_u32(skb, TORUS_AXIS_A(axis),
					  g->coord[axis]);
	}
	if (err) {
		nla_nest_cancel(skb, nest);
		return err;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int torus_nl_put_coord(struct sk_buff *skb, int type, const u8 *coord,
			      u8 ndims)
{
	struct torus_geom g = { .ndims = ndims };

	memcpy(g.coord, coord, TORUS_MAX_AXES);
	return torus_nl_put_axes(skb, type, &g, 0);
}

static int torus_nl_put_stats(struct sk_buff *skb, int type,
			      const struct torus_stats *st)
{
	struct nlattr *nest, *drop;
	int i;

	nest = nla_nest_start(skb, type);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, TORUS_STATS_A_RX_PACKETS, st->rx_packets,
			      TORUS_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, TORUS_STATS_A_RX_BYTES, st->rx_bytes,
			      TORUS_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, TORUS_STATS_A_TX_PACKETS, st->tx_packets,
			      TORUS_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, TORUS_STATS_A_TX_BYTES, st->tx_bytes,
			      TORUS_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, TORUS_STATS_A_FWD_PACKETS, st->fwd_packets,
			      TORUS_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, TORUS_STATS_A_DETOURS, st->detours,
			      TORUS_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, TORUS_STATS_A_DROPS, st->drops,
			      TORUS_STATS_A_PAD))
		goto cancel;
	drop = nla_nest_start(skb, TORUS_STATS_A_DROP);
	if (!drop)
		goto cancel;
	for (i = 0; i < __TORUS_DROP_MAX; i++)
		if (nla_put_u64_64bit(skb, i + 1, st->drop[i],
				      TORUS_STATS_A_PAD))
			goto cancel;
	nla_nest_end(skb, drop);
	nla_nest_end(skb, nest);
	return 0;

cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/* One plan as a TORUS_A_PLAN nest. */
static int torus_nl_put_plan(struct sk_buff *skb, unsigned int index,
			     const struct torus_plan *p)
{
	struct nlattr *nest, *order, *dirs;
	unsigned int i;

	nest = nla_nest_start(skb, TORUS_A_PLAN);
	if (!nest || nla_put_u8(skb, TORUS_PLAN_A_INDEX, index))
		goto cancel;
	order = nla_nest_start(skb, TORUS_PLAN_A_ORDER);
	if (!order)
		goto cancel;
	for (i = 0; i < p->ndims; i++)
		if (nla_put_u8(skb, i + 1, p->order[i]))
			goto cancel;
	nla_nest_end(skb, order);
	dirs = nla_nest_start(skb, TORUS_PLAN_A_POLICY);
	if (!dirs)
		goto cancel;
	for (i = 0; i < p->ndims; i++)
		if (nla_put_u8(skb, TORUS_AXIS_A(i), p->policy[i]))
			goto cancel;
	nla_nest_end(skb, dirs);
	nla_nest_end(skb, nest);
	return 0;

cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/* The node's routing state: table generation and size, its plans. */
static int torus_nl_put_routing(struct sk_buff *skb, struct torus_node *node)
{
	const struct torus_rtable *rt = rtnl_dereference(node->routes);
	const struct torus_plans *plans = rtnl_dereference(node->plans);
	unsigned int i;

	if (nla_put_u32(skb, TORUS_A_ROUTES_GENERATION,
			node->routes_generation) ||
	    nla_put_u32(skb, TORUS_A_ROUTES_COUNT, rt ? rt->count : 0))
		return -EMSGSIZE;
	for (i = 1; plans && i < TORUS_MAX_PLANS; i++)
		if (plans->present & BIT(i) &&
		    torus_nl_put_plan(skb, i, &plans->plan[i]))
			return -EMSGSIZE;
	return 0;
}

static int torus_nl_fill_node(struct sk_buff *skb, struct torus_node *node,
			      u8 cmd, u32 portid, u32 seq, int flags)
{
	const struct torus_fib *fib = rtnl_dereference(node->fib);
	struct torus_stats st;
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &torus_genl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	torus_stats_read(node->stats, &st);
	if (nla_put_u32(skb, TORUS_A_IFINDEX, node->dev->ifindex) ||
	    nla_put_string(skb, TORUS_A_IFNAME, node->dev->name) ||
	    nla_put_u64_64bit(skb, TORUS_A_NODE_ID, node->id, TORUS_A_PAD) ||
	    nla_put_u64_64bit(skb, TORUS_A_LEADER, node->leader, TORUS_A_PAD) ||
	    nla_put_u8(skb, TORUS_A_STATE, node->state) ||
	    nla_put_u8(skb, TORUS_A_ROLE, node->role) ||
	    nla_put_string(skb, TORUS_A_REASON, node->reason) ||
	    nla_put_u8(skb, TORUS_A_HOP_LIMIT, fib->hop_limit) ||
	    nla_put_u32(skb, TORUS_A_GENERATION, node->generation))
		goto cancel;
	if (fib->geom.ndims &&
	    (torus_nl_put_axes(skb, TORUS_A_COORD, &fib->geom, 0) ||
	     torus_nl_put_axes(skb, TORUS_A_DIMS, &fib->geom, TORUS_A_DIMS) ||
	     torus_nl_put_axes(skb, TORUS_A_WRAP, &fib->geom, TORUS_A_WRAP)))
		goto cancel;
	if (torus_nl_put_stats(skb, TORUS_A_STATS, &st) ||
	    torus_nl_put_routing(skb, node))
		goto cancel;
	genlmsg_end(skb, hdr);
	return 0;

cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/* Counters of a port: fabric frames if enslaved, plus cable drops. */
static void torus_nl_port_stats(struct net_device *dev,
				struct torus_port *port, struct torus_stats *st)
{
	struct torus_stats cable;
	int i;

	memset(st, 0, sizeof(*st));
	if (port)
		torus_stats_read(port->stats, st);
	if (!netif_is_torport(dev))
		return;
	torus_stats_read(((struct torport_priv *)netdev_priv(dev))->stats,
			 &cable);
	if (!port) {
		*st = cable;
		return;
	}
	for (i = 0; i < __TORUS_DROP_MAX; i++)
		st->drop[i] += cable.drop[i];
	st->drops += cable.drops;
}

static int torus_nl_fill_port(struct sk_buff *skb, struct net_device *dev,
			      u8 cmd, u32 portid, u32 seq, int flags)
{
	struct torus_port *port = torus_port_from_dev(dev);
	struct net_device *peer = NULL;
	u8 label = TORUS_DIR_NONE, gdir = TORUS_DIR_NONE;
	struct torus_stats st;
	struct nlattr *nest;
	u32 loss = 0;
	void *hdr;

	if (netif_is_torport(dev)) {
		struct torport_priv *priv = netdev_priv(dev);

		peer = rtnl_dereference(priv->peer);
		label = priv->label;
		loss = READ_ONCE(priv->loss_ppm);
	} else if (port) {
		label = port->label;
	}
	if (port)
		gdir = torus_port_global_dir(rtnl_dereference(port->node->fib),
					     port);
	torus_nl_port_stats(dev, port, &st);

	hdr = genlmsg_put(skb, portid, seq, &torus_genl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (port && nla_put_u32(skb, TORUS_A_IFINDEX, port->node->dev->ifindex))
		goto cancel;
	nest = nla_nest_start(skb, TORUS_A_PORT);
	if (!nest)
		goto cancel;
	if (nla_put_u32(skb, TORUS_PORT_A_IFINDEX, dev->ifindex) ||
	    nla_put_string(skb, TORUS_PORT_A_IFNAME, dev->name) ||
	    nla_put_u8(skb, TORUS_PORT_A_LABEL, label) ||
	    nla_put_u8(skb, TORUS_PORT_A_CARRIER,
		       netif_running(dev) && netif_carrier_ok(dev)) ||
	    nla_put_u8(skb, TORUS_PORT_A_GLOBAL_DIR, gdir) ||
	    nla_put_u32(skb, TORUS_PORT_A_LOSS_PPM, loss))
		goto cancel;
	if (port && nla_put_u32(skb, TORUS_PORT_A_MASTER,
				port->node->dev->ifindex))
		goto cancel;
	if (peer) {
		if (nla_put_u32(skb, TORUS_PORT_A_PEER_IFINDEX, peer->ifindex) ||
		    nla_put_string(skb, TORUS_PORT_A_PEER_IFNAME, peer->name))
			goto cancel;
		if (!net_eq(dev_net(dev), dev_net(peer)) &&
		    nla_put_s32(skb, TORUS_PORT_A_PEER_NETNSID,
				peernet2id_alloc(dev_net(dev), dev_net(peer),
						 GFP_KERNEL)))
			goto cancel;
	}
	if (torus_nl_put_stats(skb, TORUS_PORT_A_STATS, &st))
		goto cancel;
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return 0;

cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/* ---- notifications ---- */

static void torus_nl_multicast(struct net *net, struct sk_buff *skb)
{
	genlmsg_multicast_netns(&torus_genl_family, net, skb, 0, 0,
				GFP_KERNEL);
}

/*
 * Rediscovery is the daemon's business: the request is relayed to the
 * events group of the node's namespace, where torusd listens.
 */
static int torus_nl_node_rediscover_doit(struct sk_buff *skb,
					 struct genl_info *info)
{
	struct torus_node *node;
	struct sk_buff *msg;
	int err;

	rtnl_lock();
	node = torus_nl_get_node(info);
	if (IS_ERR(node)) {
		err = PTR_ERR(node);
		goto out;
	}
	if (!genl_has_listeners(&torus_genl_family, dev_net(node->dev), 0)) {
		NL_SET_ERR_MSG(info->extack,
			       "torus: no daemon listens for events in this namespace");
		err = -ESRCH;
		goto out;
	}
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg) {
		err = -ENOMEM;
		goto out;
	}
	err = torus_nl_fill_node(msg, node, TORUS_CMD_NODE_REDISCOVER, 0, 0,
				 0);
	if (err) {
		nlmsg_free(msg);
		goto out;
	}
	torus_nl_multicast(dev_net(node->dev), msg);
out:
	rtnl_unlock();
	return err;
}

void torus_notify_node(struct torus_node *node)
{
	struct net *net = dev_net(node->dev);
	struct sk_buff *skb;

	if (!READ_ONCE(torus_genl_ready) ||
	    !genl_has_listeners(&torus_genl_family, net, 0))
		return;
	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!skb)
		return;
	if (torus_nl_fill_node(skb, node, TORUS_CMD_NODE_EVENT, 0, 0, 0)) {
		nlmsg_free(skb);
		return;
	}
	torus_nl_multicast(net, skb);
}

void torus_notify_port(struct torus_port *port)
{
	struct net *net = dev_net(port->dev);
	struct sk_buff *skb;

	if (!READ_ONCE(torus_genl_ready) ||
	    !genl_has_listeners(&torus_genl_family, net, 0))
		return;
	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!skb)
		return;
	if (torus_nl_fill_port(skb, port->dev, TORUS_CMD_PORT_EVENT, 0, 0, 0)) {
		nlmsg_free(skb);
		return;
	}
	torus_nl_multicast(net, skb);
}

/* ---- node ---- */

static int torus_nl_node_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct torus_node *node;
	struct sk_buff *msg;
	int err;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	rtnl_lock();
	node = torus_nl_get_node(info);
	if (IS_ERR(node)) {
		err = PTR_ERR(node);
		goto err_unlock;
	}
	err = torus_nl_fill_node(msg, node, TORUS_CMD_NODE_GET,
				 info->snd_portid, info->snd_seq, 0);
	if (err)
		goto err_unlock;
	rtnl_unlock();
	return genlmsg_reply(msg, info);

err_unlock:
	rtnl_unlock();
	nlmsg_free(msg);
	return err;
}

static int torus_nl_node_get_dumpit(struct sk_buff *skb,
				    struct netlink_callback *cb)
{
	struct net *net = sock_net(skb->sk);
	struct net_device *dev;
	long idx = 0;

	rtnl_lock();
	for_each_netdev(net, dev) {
		if (!netif_is_torus_node(dev))
			continue;
		if (idx++ < cb->args[0])
			continue;
		if (torus_nl_fill_node(skb, netdev_priv(dev),
				       TORUS_CMD_NODE_GET,
				       NETLINK_CB(cb->skb).portid,
				       cb->nlh->nlmsg_seq, NLM_F_MULTI)) {
			idx--;
			break;
		}
	}
	rtnl_unlock();
	cb->args[0] = idx;
	return skb->len;
}

static int torus_nl_parse_geom(struct genl_info *info, struct torus_geom *g)
{
	struct netlink_ext_ack *extack = info->extack;
	u32 coord[TORUS_MAX_AXES], dims[TORUS_MAX_AXES], wrap[TORUS_MAX_AXES];
	int n, nd, nw, axis;
	u64 size;

	if (!info->attrs[TORUS_A_COORD] || !info->attrs[TORUS_A_DIMS]) {
		NL_SET_ERR_MSG(extack,
			       "torus: coordinates and extents go together");
		return -EINVAL;
	}
	n = torus_nl_parse_axes(info->attrs[TORUS_A_COORD], coord, extack);
	if (n < 0)
		return n;
	nd = torus_nl_parse_axes(info->attrs[TORUS_A_DIMS], dims, extack);
	if (nd < 0)
		return nd;
	if (!n || n != nd) {
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[TORUS_A_DIMS],
				    "torus: coordinates and extents need the same, non-zero number of axes");
		return -EINVAL;
	}
	nw = n;
	if (info->attrs[TORUS_A_WRAP]) {
		nw = torus_nl_parse_axes(info->attrs[TORUS_A_WRAP], wrap,
					 extack);
		if (nw < 0)
			return nw;
	} else {
		for (axis = 0; axis < n; axis++)
			wrap[axis] = 1;
	}
	if (nw != n) {
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[TORUS_A_WRAP],
				    "torus: wrap needs one flag per axis");
		return -EINVAL;
	}

	memset(g, 0, sizeof(*g));
	g->ndims = n;
	for (axis = 0, size = 1; axis < n; axis++) {
		/* a node's rank (collectives' node lists) is a u32 */
		if (check_mul_overflow(size, (u64)dims[axis], &size) ||
		    size > (u64)U32_MAX + 1) {
			NL_SET_ERR_MSG_ATTR(extack, info->attrs[TORUS_A_DIMS],
					    "torus: a fabric has at most 2^32 nodes");
			return -ERANGE;
		}
	}
	for (axis = 0; axis < n; axis++) {
		if (coord[axis] >= dims[axis]) {
			NL_SET_ERR_MSG_ATTR(extack, info->attrs[TORUS_A_COORD],
					    "torus: coordinate outside its extent");
			return -ERANGE;
		}
		g->coord[axis] = coord[axis];
		g->dims[axis] = dims[axis];
		if (wrap[axis])
			g->wrap |= BIT(axis);
	}
	return 0;
}

static int torus_nl_node_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **attrs = info->attrs;
	struct torus_node_change c;
	struct torus_geom geom;
	struct torus_node *node;
	bool has_geom = false;
	int err;

	if (attrs[TORUS_A_COORD] || attrs[TORUS_A_DIMS] || attrs[TORUS_A_WRAP]) {
		err = torus_nl_parse_geom(info, &geom);
		if (err)
			return err;
		has_geom = true;
	}

	rtnl_lock();
	node = torus_nl_get_node(info);
	if (IS_ERR(node)) {
		err = PTR_ERR(node);
		goto out;
	}
	torus_node_change_init(node, &c);
	if (has_geom) {
		c.geom = geom;
		c.has_geom = true;
		c.state = TORUS_STATE_PLACED;
		c.role = TORUS_ROLE_STATIC;
	}
	if (attrs[TORUS_A_STATE])
		c.state = nla_get_u8(attrs[TORUS_A_STATE]);
	if (attrs[TORUS_A_ROLE])
		c.role = nla_get_u8(attrs[TORUS_A_ROLE]);
	if (attrs[TORUS_A_NODE_ID])
		c.id = nla_get_u64(attrs[TORUS_A_NODE_ID]);
	if (attrs[TORUS_A_LEADER])
		c.leader = nla_get_u64(attrs[TORUS_A_LEADER]);
	if (attrs[TORUS_A_HOP_LIMIT])
		c.hop_limit = nla_get_u8(attrs[TORUS_A_HOP_LIMIT]);
	if (attrs[TORUS_A_REASON])
		nla_strscpy(c.reason, attrs[TORUS_A_REASON], sizeof(c.reason));
	else if (c.state != node->state && c.state != TORUS_STATE_FAILED)
		c.reason[0] = '\0';

	err = torus_node_change_prepare(node, &c, GFP_KERNEL, info->extack);
	if (err)
		goto out;
	torus_node_change_commit(node, &c);
	torus_notify_node(node);
out:
	rtnl_unlock();
	return err;
}

static int torus_nl_stats_reset_doit(struct sk_buff *skb,
				     struct genl_info *info)
{
	struct torus_node *node;
	struct torus_port *port;
	int err = 0;

	rtnl_lock();
	node = torus_nl_get_node(info);
	if (IS_ERR(node)) {
		err = PTR_ERR(node);
		goto out;
	}
	torus_stats_reset(node->stats);
	list_for_each_entry(port, &node->ports, list) {
		torus_stats_reset(port->stats);
		if (netif_is_torport(port->dev))
			torus_stats_reset(((struct torport_priv *)
					   netdev_priv(port->dev))->stats);
	}
out:
	rtnl_unlock();
	return err;
}

/* ---- ports ---- */

static bool torus_nl_is_port(struct net_device *dev, int node_ifindex)
{
	struct torus_port *port = torus_port_from_dev(dev);

	if (node_ifindex)
		return port && port->node->dev->ifindex == node_ifindex;
	return port || netif_is_torport(dev);
}

static int torus_nl_port_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *attr = info->attrs[TORUS_A_PORT_IFINDEX];
	struct net_device *dev;
	struct sk_buff *msg;
	int err;

	if (!attr) {
		NL_SET_ERR_MSG(info->extack, "torus: missing port ifindex");
		return -EINVAL;
	}
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	rtnl_lock();
	dev = __dev_get_by_index(genl_info_net(info), nla_get_u32(attr));
	if (!dev || !torus_nl_is_port(dev, 0)) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "torus: not a port or torport");
		err = -ENODEV;
		goto err_unlock;
	}
	err = torus_nl_fill_port(msg, dev, TORUS_CMD_PORT_GET,
				 info->snd_portid, info->snd_seq, 0);
	if (err)
		goto err_unlock;
	rtnl_unlock();
	return genlmsg_reply(msg, info);

err_unlock:
	rtnl_unlock();
	nlmsg_free(msg);
	return err;
}

static int torus_nl_port_get_dumpit(struct sk_buff *skb,
				    struct netlink_callback *cb)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);
	struct net *net = sock_net(skb->sk);
	struct nlattr *attr = info->attrs[TORUS_A_IFINDEX];
	int node_ifindex = attr ? nla_get_u32(attr) : 0;
	struct net_device *dev;
	long idx = 0;

	rtnl_lock();
	for_each_netdev(net, dev) {
		if (!torus_nl_is_port(dev, node_ifindex))
			continue;
		if (idx++ < cb->args[0])
			continue;
		if (torus_nl_fill_port(skb, dev, TORUS_CMD_PORT_GET,
				       NETLINK_CB(cb->skb).portid,
				       cb->nlh->nlmsg_seq, NLM_F_MULTI)) {
			idx--;
			break;
		}
	}
	rtnl_unlock();
	cb->args[0] = idx;
	return skb->len;
}

static int torus_nl_portmap_set_doit(struct sk_buff *skb,
				     struct genl_info *info)
{
	struct torus_port *map[TORUS_MAX_DIRS] = {};
	struct netlink_ext_ack *extack = info->extack;
	struct net *net = genl_info_net(info);
	struct torus_node *node;
	struct nlattr *entry;
	int err = 0, rem;

	rtnl_lock();
	node = torus_nl_get_node(info);
	if (IS_ERR(node)) {
		err = PTR_ERR(node);
		goto out;
	}
	if (info->attrs[TORUS_A_PORTMAP]) {
		nla_for_each_nested(entry, info->attrs[TORUS_A_PORTMAP], rem) {
			struct nlattr *tb[TORUS_PME_A_MAX + 1];
			struct torus_port *port = NULL;
			struct net_device *dev;
			u8 dir;

			err = nla_parse_nested(tb, TORUS_PME_A_MAX, entry,
					       torus_pme_policy, extack);
			if (err)
				goto out;
			if (!tb[TORUS_PME_A_DIR] || !tb[TORUS_PME_A_IFINDEX]) {
				NL_SET_ERR_MSG_ATTR(extack, entry,
						    "torus: a map entry needs a direction and a port");
				err = -EINVAL;
				goto out;
			}
			dir = nla_get_u8(tb[TORUS_PME_A_DIR]);
			dev = __dev_get_by_index(net,
						 nla_get_u32(tb[TORUS_PME_A_IFINDEX]));
			if (dev)
				port = torus_port_from_dev(dev);
			if (!port || port->node != node) {
				NL_SET_ERR_MSG_ATTR(extack, tb[TORUS_PME_A_IFINDEX],
						    "torus: not a port of this node");
				err = -ENODEV;
				goto out;
			}
			if (map[dir]) {
				NL_SET_ERR_MSG_ATTR(extack, tb[TORUS_PME_A_DIR],
						    "torus: direction mapped twice");
				err = -EEXIST;
				goto out;
			}
			map[dir] = port;
		}
	}
	err = torus_node_set_fib(node, NULL,
				 rtnl_dereference(node->fib)->placed, map);
	if (!err)
		torus_notify_node(node);
out:
	rtnl_unlock();
	return err;
}

static int torus_nl_cable_set_doit(struct sk_buff *skb,
				   struct genl_info *info)
{
	struct nlattr **attrs = info->attrs;
	struct net_device *dev;
	s64 loss = -1;
	int carrier = -1;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, TORUS_A_PORT_IFINDEX))
		return -EINVAL;
	if (!attrs[TORUS_A_CARRIER] && !attrs[TORUS_A_LOSS_PPM]) {
		NL_SET_ERR_MSG(info->extack,
			       "torus: give a carrier state or a loss rate");
		return -EINVAL;
	}
	if (attrs[TORUS_A_CARRIER])
		carrier = nla_get_u8(attrs[TORUS_A_CARRIER]);
	if (attrs[TORUS_A_LOSS_PPM])
		loss = nla_get_u32(attrs[TORUS_A_LOSS_PPM]);

	rtnl_lock();
	dev = __dev_get_by_index(genl_info_net(info),
				 nla_get_u32(attrs[TORUS_A_PORT_IFINDEX]));
	if (!dev) {
		NL_SET_ERR_MSG_ATTR(info->extack, attrs[TORUS_A_PORT_IFINDEX],
				    "torus: no such device");
		err = -ENODEV;
	} else {
		err = torport_set_cable(dev, carrier, loss, info->extack);
	}
	rtnl_unlock();
	return err;
}

/* ---- routes ---- */

static int torus_nl_route_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[TORUS_ROUTE_A_MAX + 1];
	struct netlink_ext_ack *extack = info->extack;
	const struct torus_fib *fib;
	u8 dst[TORUS_MAX_AXES], dir;
	struct torus_node *node;
	struct torus_port *out;
	struct torus_route_ctx ctx;
	struct torus_hdr h;
	struct sk_buff *msg;
	struct nlattr *nest;
	void *hdr;
	u8 why;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, TORUS_A_ROUTE))
		return -EINVAL;
	err = nla_parse_nested(tb, TORUS_ROUTE_A_MAX, info->attrs[TORUS_A_ROUTE],
			       torus_route_policy, extack);
	if (err)
		return err;
	if (!tb[TORUS_ROUTE_A_DST]) {
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[TORUS_A_ROUTE],
				    "torus: missing destination");
		return -EINVAL;
	}
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;

	rtnl_lock();
	node = torus_nl_get_node(info);
	if (IS_ERR(node)) {
		err = PTR_ERR(node);
		goto err_unlock;
	}
	fib = rtnl_dereference(node->fib);
	if (!fib->geom.ndims) {
		NL_SET_ERR_MSG(extack, "torus: node has no coordinates");
		err = -ENETUNREACH;
		goto err_unlock;
	}
	err = torus_nl_parse_coord(tb[TORUS_ROUTE_A_DST], &fib->geom, dst,
				   extack);
	if (err)
		goto err_unlock;

	/* the same decision the data path makes for a frame sent here */
	torus_hdr_init(&h, TORUS_T_DATA, 0, fib->geom.coord, dst,
		       fib->hop_limit);
	ctx = (struct torus_route_ctx) {
		.g = &fib->geom,
		.rt = rtnl_dereference(node->routes),
		.plans = rtnl_dereference(node->plans),
		.usable = torus_fib_usable(fib),
		.in_dir = TORUS_DIR_NONE,
		.at_source = true,
	};
	dir = torus_route(&ctx, &h, &why);
	if (dir == TORUS_ROUTE_NO_PLAN) {
		NL_SET_ERR_MSG(extack,
			       "torus: the exception names a plan the node does not have");
		err = -ENOENT;
		goto err_unlock;
	}
	out = dir < TORUS_MAX_DIRS ? fib->map[dir] : NULL;

	err = -EMSGSIZE;
	hdr = genlmsg_put(msg, info->snd_portid, info->snd_seq,
			  &torus_genl_family, 0, TORUS_CMD_ROUTE_GET);
	if (!hdr)
		goto err_unlock;
	if (nla_put_u32(msg, TORUS_A_IFINDEX, node->dev->ifindex))
		goto err_unlock;
	nest = nla_nest_start(msg, TORUS_A_ROUTE);
	if (!nest ||
	    torus_nl_put_coord(msg, TORUS_ROUTE_A_DST, dst, fib->geom.ndims) ||
	    nla_put_u8(msg, TORUS_ROUTE_A_NEXT_DIR, dir) ||
	    nla_put_u32(msg, TORUS_ROUTE_A_HOPS,
			torus_dor_hops(&fib->geom, fib->geom.coord, dst)) ||
	    (out && nla_put_u32(msg, TORUS_ROUTE_A_NEXT_PORT,
				out->dev->ifindex)) ||
	    (why == TORUS_WHY_EXCEPTION &&
	     nla_put_flag(msg, TORUS_ROUTE_A_EXCEPTION)) ||
	    nla_put_u8(msg, TORUS_ROUTE_A_PLAN, TORUS_VC_PLAN(h.vc)) ||
	    ((h.flags & TORUS_F_VIA) &&
	     nla_put_u8(msg, TORUS_ROUTE_A_PLAN1,
			h.flags >> TORUS_F_PLAN1_SHIFT)) ||
	    nla_put_u8(msg, TORUS_ROUTE_A_VC, h.vc) ||
	    nla_put_u8(msg, TORUS_ROUTE_A_WHY, why) ||
	    ((h.flags & TORUS_F_VIA) &&
	     torus_nl_put_coord(msg, TORUS_ROUTE_A_VIA, h.via,
				fib->geom.ndims)))
		goto err_unlock;
	nla_nest_end(msg, nest);
	genlmsg_end(msg, hdr);
	rtnl_unlock();
	return genlmsg_reply(msg, info);

err_unlock:
	rtnl_unlock();
	nlmsg_free(msg);
	return err;
}

static int torus_nl_fill_route(struct sk_buff *skb, struct torus_node *node,
			       const struct torus_route_exc *exc, u8 ndims,
			       u32 portid, u32 seq, int flags)
{
	struct nlattr *nest;
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &torus_genl_family, flags,
			  TORUS_CMD_ROUTE_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, TORUS_A_IFINDEX, node->dev->ifindex) ||
	    nla_put_u32(skb, TORUS_A_GENERATION, node->generation) ||
	    nla_put_u32(skb, TORUS_A_ROUTES_GENERATION,
			node->routes_generation))
		goto cancel;
	nest = nla_nest_start(skb, TORUS_A_ROUTE);
	if (!nest ||
	    torus_nl_put_coord(skb, TORUS_ROUTE_A_DST, exc->dst, ndims) ||
	    (exc->has_via &&
	     torus_nl_put_coord(skb, TORUS_ROUTE_A_VIA, exc->via, ndims)) ||
	    (exc->dir != TORUS_DIR_NONE &&
	     nla_put_u8(skb, TORUS_ROUTE_A_DIR, exc->dir)) ||
	    nla_put_u8(skb, TORUS_ROUTE_A_PLAN, exc->plan) ||
	    (exc->has_via &&
	     nla_put_u8(skb, TORUS_ROUTE_A_PLAN1, exc->plan1)))
		goto cancel;
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return 0;

cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

static int torus_nl_route_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);
	struct nlattr *attr = info->attrs[TORUS_A_IFINDEX];
	int node_ifindex = attr ? nla_get_u32(attr) : 0;
	struct net *net = sock_net(skb->sk);
	struct net_device *dev;
	long idx = 0, i;

	rtnl_lock();
	for_each_netdev(net, dev) {
		const struct torus_rtable *rt;
		struct torus_node *node;
		u8 ndims;

		if (!netif_is_torus_node(dev) ||
		    (node_ifindex && dev->ifindex != node_ifindex))
			continue;
		if (idx++ < cb->args[0])
			continue;
		node = netdev_priv(dev);
		rt = rtnl_dereference(node->routes);
		ndims = rtnl_dereference(node->fib)->geom.ndims;
		for (i = cb->args[1]; rt && i < rt->count; i++) {
			if (torus_nl_fill_route(skb, node, &rt->exc[i], ndims,
						NETLINK_CB(cb->skb).portid,
						cb->nlh->nlmsg_seq,
						NLM_F_MULTI)) {
				cb->args[1] = i;
				idx--;
				goto out;
			}
		}
		cb->args[1] = 0;
	}
out:
	rtnl_unlock();
	cb->args[0] = idx;
	return skb->len;
}

/*
 * One exception from a TORUS_A_ROUTE-style nest: a destination and at
 * most one of via or dir, and a plan, in the node's geometry @g; an
 * exception that changes nothing (neither via, dir nor a plan) is
 * refused.
 */
static int torus_nl_parse_exc(const struct nlattr *nest,
			      const struct torus_geom *g,
			      struct torus_route_exc *exc,
			      struct netlink_ext_ack *extack)
{
	struct nlattr *tb[TORUS_ROUTE_A_MAX + 1];
	int err;

	err = nla_parse_nested(tb, TORUS_ROUTE_A_MAX, nest, torus_route_policy,
			       extack);
	if (err)
		return err;
	if (!tb[TORUS_ROUTE_A_DST] ||
	    (tb[TORUS_ROUTE_A_VIA] && tb[TORUS_ROUTE_A_DIR]) ||
	    (!tb[TORUS_ROUTE_A_VIA] && !tb[TORUS_ROUTE_A_DIR] &&
	     (!tb[TORUS_ROUTE_A_PLAN] || !nla_get_u8(tb[TORUS_ROUTE_A_PLAN])))) {
		NL_SET_ERR_MSG_ATTR(extack, nest,
				    "torus: an exception needs a destination and one of via, dir or a plan other than 0");
		return -EINVAL;
	}
	memset(exc, 0, sizeof(*exc));
	if (tb[TORUS_ROUTE_A_PLAN])
		exc->plan = nla_get_u8(tb[TORUS_ROUTE_A_PLAN]);
	exc->plan1 = exc->plan;
	if (tb[TORUS_ROUTE_A_PLAN1]) {
		if (!tb[TORUS_ROUTE_A_VIA]) {
			NL_SET_ERR_MSG_ATTR(extack, tb[TORUS_ROUTE_A_PLAN1],
					    "torus: a plan for round 1 needs an intermediate node (via)");
			return -EINVAL;
		}
		exc->plan1 = nla_get_u8(tb[TORUS_ROUTE_A_PLAN1]);
	}
	err = torus_nl_parse_coord(tb[TORUS_ROUTE_A_DST], g, exc->dst, extack);
	if (err)
		return err;
	exc->dir = TORUS_DIR_NONE;
	if (tb[TORUS_ROUTE_A_VIA]) {
		err = torus_nl_parse_coord(tb[TORUS_ROUTE_A_VIA], g, exc->via,
					   extack);
		if (err)
			return err;
		exc->has_via = true;
		return 0;
	}
	if (!tb[TORUS_ROUTE_A_DIR])
		return 0;
	exc->dir = nla_get_u8(tb[TORUS_ROUTE_A_DIR]);
	if (TORUS_DIR_AXIS(exc->dir) >= g->ndims) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TORUS_ROUTE_A_DIR],
				    "torus: direction on an axis the node does not have");
		return -ERANGE;
	}
	return 0;
}

/* The records of one TORUS_A_ROUTES_PACKED into @batch at *@n. */
static int torus_nl_parse_recs(const struct nlattr *attr,
			       const struct torus_geom *g,
			       struct torus_route_exc *batch, u32 *n,
			       struct netlink_ext_ack *extack)
{
	const struct torus_exc_rec *rec = nla_data(attr);
	u32 i, count = nla_len(attr) / sizeof(*rec);

	BUILD_BUG_ON(sizeof(*rec) != 20);
	for (i = 0; i < count; i++) {
		const char *why = torus_exc_from_rec(&rec[i], g,
							 &batch[(*n)++]);

		if (why) {
			/* why is a string literal of torus_route.c's */
			NL_SET_BAD_ATTR(extack, attr);
			if (extack)
				extack->_msg = why;
			return -EINVAL;
		}
	}
	return 0;
}

/* Exceptions are for a node with coordinates.  Under RTNL. */
static const struct torus_geom *
torus_nl_route_geom(struct torus_node *node, struct netlink_ext_ack *extack)
{
	const struct torus_fib *fib = rtnl_dereference(node->fib);

	if (!fib->geom.ndims) {
		NL_SET_ERR_MSG(extack, "torus: node has no coordinates");
		return NULL;
	}
	return &fib->geom;
}

/* Replace the node's exception table by @rt (NULL: empty).  RTNL. */
static void torus_nl_publish_routes(struct torus_node *node,
				    struct torus_rtable *rt)
{
	struct torus_rtable *old = rtnl_dereference(node->routes);

	rcu_assign_pointer(node->routes, rt);
	if (old)
		kvfree_rcu(old, rcu);
	node->generation++;
	node->routes_generation++;
}

static int torus_nl_route_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct netlink_ext_ack *extack = info->extack;
	const struct torus_geom *g;
	struct torus_route_exc exc;
	struct torus_node *node;
	struct torus_rtable *rt;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, TORUS_A_ROUTE))
		return -EINVAL;

	rtnl_lock();
	node = torus_nl_get_node(info);
	if (IS_ERR(node)) {
		err = PTR_ERR(node);
		goto out;
	}
	g = torus_nl_route_geom(node, extack);
	if (!g) {
		err = -ENETUNREACH;
		goto out;
	}
	err = torus_nl_parse_exc(info->attrs[TORUS_A_ROUTE], g, &exc, extack);
	if (err)
		goto out;
	rt = torus_rtable_upsert(rtnl_dereference(node->routes), &exc);
	if (IS_ERR(rt)) {
		err = PTR_ERR(rt);
		if (err == -ENOSPC)
			NL_SET_ERR_MSG(extack, "torus: route exception table full");
		goto out;
	}
	torus_nl_publish_routes(node, rt);
out:
	rtnl_unlock();
	return err;
}

/**
 * torus_nl_route_batch_parse - the exceptions of a ROUTE_BATCH request
 * @head: its first attribute (the policy already checked them)
 * @len: the attributes' length
 * @g: the node's geometry
 * @batch: set to the exceptions (kvfree() it), NULL when an error is returned
 * @n: set to their number
 * @extack: error reporting
 *
 * TORUS_A_ROUTE nests and TORUS_A_ROUTES_PACKED records, each repeated.
 *
 * Return: 0 or -errno.
 */
int torus_nl_route_batch_parse(const struct nlattr *head, int len,
			       const struct torus_geom *g,
			       struct torus_route_exc **batch, u32 *n,
			       struct netlink_ext_ack *extack)
{
	const struct nlattr *attr;
	int err = 0, rem;
	u32 count = 0;

	nla_for_each_attr(attr, head, len, rem) {
		if (nla_type(attr) == TORUS_A_ROUTE)
			count++;
		else if (nla_type(attr) == TORUS_A_ROUTES_PACKED)
			count += nla_len(attr) / sizeof(struct torus_exc_rec);
	}
	if (count > TORUS_MAX_ROUTES) {
		NL_SET_ERR_MSG(extack,
			       "torus: more exceptions than a table holds");
		return -ENOSPC;
	}
	*batch = kvmalloc_array(max(count, 1U), sizeof(**batch), GFP_KERNEL);
	if (!*batch)
		return -ENOMEM;
	*n = 0;
	nla_for_each_attr(attr, head, len, rem) {
		if (nla_type(attr) == TORUS_A_ROUTE)
			err = torus_nl_parse_exc(attr, g,
						 &(*batch)[(*n)++], extack);
		else if (nla_type(attr) == TORUS_A_ROUTES_PACKED)
			err = torus_nl_parse_recs(attr, g, *batch, n, extack);
		if (err) {
			kvfree(*batch);
			*batch = NULL;	/* the caller frees what it is given */
			return err;
		}
	}
	return 0;
}

/* What genetlink checks before a handler runs (KUnit benchmarks it). */
int torus_nl_validate_request(const struct nlattr *head, int len,
			      struct netlink_ext_ack *extack)
{
	return nla_validate(head, len, TORUS_A_MAX, torus_policy, extack);
}

/*
 * Many exceptions in one request: a batch of n costs one sort and one
 * table copy, where n single ROUTE_SETs copy the table n times.
 */
static int torus_nl_route_batch_doit(struct sk_buff *skb,
				     struct genl_info *info)
{
	struct netlink_ext_ack *extack = info->extack;
	struct torus_route_exc *batch = NULL;
	const struct torus_geom *g;
	struct torus_node *node;
	struct torus_rtable *rt;
	u32 n = 0;
	int err;

	rtnl_lock();
	node = torus_nl_get_node(info);
	if (IS_ERR(node)) {
		err = PTR_ERR(node);
		goto out;
	}
	g = torus_nl_route_geom(node, extack);
	if (!g) {
		err = -ENETUNREACH;
		goto out;
	}
	err = torus_nl_route_batch_parse(genlmsg_data(info->genlhdr),
					 genlmsg_len(info->genlhdr), g, &batch,
					 &n, extack);
	if (err)
		goto out;
	rt = torus_rtable_build(rtnl_dereference(node->routes), batch, n,
				nla_get_flag(info->attrs[TORUS_A_ROUTES_REPLACE]),
				GFP_KERNEL);
	if (IS_ERR(rt)) {
		err = PTR_ERR(rt);
		if (err == -EEXIST)
			NL_SET_ERR_MSG(extack,
				       "torus: a destination appears twice in the batch");
		else if (err == -ENOSPC)
			NL_SET_ERR_MSG(extack,
				       "torus: route exception table full");
		goto out;
	}
	torus_nl_publish_routes(node, rt);
	err = 0;
out:
	rtnl_unlock();
	kvfree(batch);
	return err;
}

static int torus_nl_route_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[TORUS_ROUTE_A_MAX + 1];
	struct netlink_ext_ack *extack = info->extack;
	struct torus_rtable *old, *rt = NULL;
	const struct torus_fib *fib;
	u8 dst[TORUS_MAX_AXES];
	struct torus_node *node;
	int err = 0;

	if (info->attrs[TORUS_A_ROUTE]) {
		err = nla_parse_nested(tb, TORUS_ROUTE_A_MAX,
				       info->attrs[TORUS_A_ROUTE],
				       torus_route_policy, extack);
		if (err)
			return err;
	}

	rtnl_lock();
	node = torus_nl_get_node(info);
	if (IS_ERR(node)) {
		err = PTR_ERR(node);
		goto out;
	}
	old = rtnl_dereference(node->routes);
	if (info->attrs[TORUS_A_ROUTE] && tb[TORUS_ROUTE_A_DST]) {
		fib = rtnl_dereference(node->fib);
		err = torus_nl_parse_coord(tb[TORUS_ROUTE_A_DST], &fib->geom,
					   dst, extack);
		if (err)
			goto out;
		rt = torus_rtable_remove(old, dst);
		if (IS_ERR(rt)) {
			err = PTR_ERR(rt);
			if (err == -ENOENT)
				NL_SET_ERR_MSG(extack, "torus: no such exception");
			goto out;
		}
	}
	torus_nl_publish_routes(node, rt);
out:
	rtnl_unlock();
	return err;
}

/* ---- plans ---- */

/* One TORUS_A_PLAN nest into @plans, for a node of @ndims axes. */
static int torus_nl_parse_plan(struct nlattr *nest, u8 ndims,
			       struct torus_plans *plans,
			       struct netlink_ext_ack *extack)
{
	struct nlattr *tb[TORUS_PLAN_A_MAX + 1];
	u32 order[TORUS_MAX_AXES], dirs[TORUS_MAX_AXES];
	struct torus_plan *p;
	unsigned int i, index;
	u32 seen = 0;
	int n, err;

	err = nla_parse_nested(tb, TORUS_PLAN_A_MAX, nest, torus_plan_policy,
			       extack);
	if (err)
		return err;
	if (!tb[TORUS_PLAN_A_INDEX] || !tb[TORUS_PLAN_A_ORDER]) {
		NL_SET_ERR_MSG_ATTR(extack, nest,
				    "torus: a plan needs an index and an axis order");
		return -EINVAL;
	}
	index = nla_get_u8(tb[TORUS_PLAN_A_INDEX]);
	if (plans->present & BIT(index)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TORUS_PLAN_A_INDEX],
				    "torus: plan given twice");
		return -EEXIST;
	}
	n = torus_nl_parse_axes(tb[TORUS_PLAN_A_ORDER], order, extack);
	if (n < 0)
		return n;
	for (i = 0; i < n; i++)
		seen |= order[i] < ndims ? BIT(order[i]) : 0;
	if (n != ndims || seen != BIT(ndims) - 1) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TORUS_PLAN_A_ORDER],
				    "torus: the order must name each of the node's axes once");
		return -EINVAL;
	}
	memset(dirs, 0, sizeof(dirs));
	if (tb[TORUS_PLAN_A_POLICY]) {
		n = torus_nl_parse_axes(tb[TORUS_PLAN_A_POLICY], dirs, extack);
		if (n < 0)
			return n;
		if (n > ndims) {
			NL_SET_ERR_MSG_ATTR(extack, tb[TORUS_PLAN_A_POLICY],
					    "torus: policy on an axis the node does not have");
			return -ERANGE;
		}
	}
	p = &plans->plan[index];
	p->ndims = ndims;
	for (i = 0; i < TORUS_MAX_AXES; i++) {
		p->order[i] = i < ndims ? order[i] : i;
		p->policy[i] = dirs[i];
	}
	plans->present |= BIT(index);
	return 0;
}

static int torus_nl_plan_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct netlink_ext_ack *extack = info->extack;
	struct torus_plans *plans, *old;
	const struct torus_geom *g;
	struct torus_node *node;
	struct nlattr *attr;
	int err = 0, rem;

	plans = kzalloc(sizeof(*plans), GFP_KERNEL);
	if (!plans)
		return -ENOMEM;
	rtnl_lock();
	node = torus_nl_get_node(info);
	if (IS_ERR(node)) {
		err = PTR_ERR(node);
		goto out;
	}
	g = torus_nl_route_geom(node, extack);
	if (!g) {
		err = -ENETUNREACH;
		goto out;
	}
	/* TORUS_A_PLAN repeated: info->attrs[] holds only the last */
	nla_for_each_attr(attr, genlmsg_data(info->genlhdr),
			  genlmsg_len(info->genlhdr), rem) {
		if (nla_type(attr) != TORUS_A_PLAN)
			continue;
		err = torus_nl_parse_plan(attr, g->ndims, plans, extack);
		if (err)
			goto out;
	}
	old = rtnl_dereference(node->plans);
	rcu_assign_pointer(node->plans, plans->present ? plans : NULL);
	if (!plans->present)
		kfree(plans);
	plans = NULL;
	if (old)
		kfree_rcu(old, rcu);
	node->generation++;
	torus_notify_node(node);
out:
	rtnl_unlock();
	kfree(plans);
	return err;
}

/*
 * Changes need CAP_NET_ADMIN in the user namespace owning the netns the
 * request acts in, as for ip link (GENL_UNS_ADMIN_PERM): a user
 * namespace manages the devices of its own netns, never those of the
 * init netns.  Checked here rather than by that flag so the refusal
 * says why.
 */
static int torus_nl_pre_doit(const struct genl_ops *ops, struct sk_buff *skb,
			     struct genl_info *info)
{
	if (!(ops->internal_flags & TORUS_NL_ADMIN) ||
	    netlink_ns_capable(skb, genl_info_net(info)->user_ns,
			       CAP_NET_ADMIN))
		return 0;
	NL_SET_ERR_MSG(info->extack,
		       "torus: changes need CAP_NET_ADMIN in the network namespace's user namespace");
	return -EPERM;
}

static const struct genl_ops torus_genl_ops[] = {
	{
		.cmd	= TORUS_CMD_NODE_GET,
		.doit	= torus_nl_node_get_doit,
		.dumpit	= torus_nl_node_get_dumpit,
	},
	{
		.cmd	= TORUS_CMD_NODE_SET,
		.doit	= torus_nl_node_set_doit,
		.internal_flags	= TORUS_NL_ADMIN,
	},
	{
		.cmd	= TORUS_CMD_PORT_GET,
		.doit	= torus_nl_port_get_doit,
		.dumpit	= torus_nl_port_get_dumpit,
	},
	{
		.cmd	= TORUS_CMD_PORTMAP_SET,
		.doit	= torus_nl_portmap_set_doit,
		.internal_flags	= TORUS_NL_ADMIN,
	},
	{
		.cmd	= TORUS_CMD_CABLE_SET,
		.doit	= torus_nl_cable_set_doit,
		.internal_flags	= TORUS_NL_ADMIN,
	},
	{
		.cmd	= TORUS_CMD_ROUTE_GET,
		.doit	= torus_nl_route_get_doit,
		.dumpit	= torus_nl_route_dumpit,
	},
	{
		.cmd	= TORUS_CMD_ROUTE_SET,
		.doit	= torus_nl_route_set_doit,
		.internal_flags	= TORUS_NL_ADMIN,
	},
	{
		.cmd	= TORUS_CMD_ROUTE_DEL,
		.doit	= torus_nl_route_del_doit,
		.internal_flags	= TORUS_NL_ADMIN,
	},
	{
		.cmd	= TORUS_CMD_STATS_RESET,
		.doit	= torus_nl_stats_reset_doit,
		.internal_flags	= TORUS_NL_ADMIN,
	},
	{
		.cmd	= TORUS_CMD_ROUTE_BATCH,
		.doit	= torus_nl_route_batch_doit,
		.internal_flags	= TORUS_NL_ADMIN,
	},
	{
		.cmd	= TORUS_CMD_PLAN_SET,
		.doit	= torus_nl_plan_set_doit,
		.internal_flags	= TORUS_NL_ADMIN,
	},
	{
		.cmd	= TORUS_CMD_NODE_REDISCOVER,
		.doit	= torus_nl_node_rediscover_doit,
		.internal_flags	= TORUS_NL_ADMIN,
	},
	{
		.cmd	= TORUS_CMD_COLL_TREE_SET,
		.doit	= torus_nl_coll_tree_set_doit,
		.internal_flags	= TORUS_NL_ADMIN,
	},
	{
		.cmd	= TORUS_CMD_COLL_TREE_GET,
		.doit	= torus_nl_coll_tree_get_doit,
	},
	{
		.cmd	= TORUS_CMD_COLL,
		.doit	= torus_nl_coll_doit,
		.internal_flags	= TORUS_NL_ADMIN,
	},
};

static const struct genl_multicast_group torus_genl_mcgrps[] = {
	{ .name = TORUS_GENL_MCGRP_EVENTS },
};

static struct genl_family torus_genl_family __ro_after_init = {
	.name		= TORUS_GENL_NAME,
	.version	= TORUS_GENL_VERSION,
	.maxattr	= TORUS_A_MAX,
	.policy		= torus_policy,
	.netnsok	= true,
	.pre_doit	= torus_nl_pre_doit,
	.module		= THIS_MODULE,
	.ops		= torus_genl_ops,
	.n_ops		= ARRAY_SIZE(torus_genl_ops),
	.mcgrps		= torus_genl_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(torus_genl_mcgrps),
};

/* A message header of the family, for answers built elsewhere. */
void *torus_nl_put_header(struct sk_buff *skb, u32 portid, u32 seq, u8 cmd)
{
	return genlmsg_put(skb, portid, seq, &torus_genl_family, 0, cmd);
}

int torus_netlink_init(void)
{
	int err = genl_register_family(&torus_genl_family);

	if (!err)
		WRITE_ONCE(torus_genl_ready, true);
	return err;
}

void torus_netlink_exit(void)
{
	WRITE_ONCE(torus_genl_ready, false);
	genl_unregister_family(&torus_genl_family);
}
