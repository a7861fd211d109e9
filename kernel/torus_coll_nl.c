// SPDX-License-Identifier: GPL-2.0
/*
 * Generic netlink side of collectives: joining an operation (answered
 * later, see torus_coll.c) and the combining tree.
 *
 * Why a netlink request answered by a later message, not a blocking
 * handler or a character device: generic netlink handlers run under the
 * family's mutex and must not wait for the fabric; a later unicast to
 * the requesting port needs no new kernel interface, works in every
 * netns the family does, is checked by the same policy, and a program
 * waits on its socket with poll() like on any other event.  Joining
 * needs CAP_NET_ADMIN for now: an operation holds kernel memory and
 * slots every node shares, so who may start them is the admin's call.
 */
#include <linux/rtnetlink.h>
#include <net/genetlink.h>

#include "torus_priv.h"
#include "torus_coll.h"

/**
 * torus_coll_answer_size - the payload of an answer, for genlmsg_new()
 * @type: enum torus_coll_type
 * @count: elements
 * @vals: the answer carries the result
 * @locs: ... and the ranks of minloc and maxloc
 *
 * An answer is allocated when its operation is joined, this large, so
 * that it is never lost for want of memory when the operation ends.
 */
size_t torus_coll_answer_size(u8 type, u32 count, bool vals, bool locs)
{
	size_t len = vals ? (size_t)count * torus_coll_type_size(type) : 0;

	return nla_total_size(len) +
	       nla_total_size(locs ? (size_t)count * sizeof(u32) : 0) +
	       2 * nla_total_size(sizeof(u32)) + nla_total_size(0);
}

/*
 * Fill the answer to a requester, allocated at its join with the room
 * torus_coll_answer_size() gives (any context).  Return: @skb, or NULL
 * (freed) if it was too small.
 */
struct sk_buff *torus_coll_nl_reply(struct sk_buff *skb,
				    const struct torus_coll_done *done)
{
	unsigned int size = torus_coll_type_size(done->type);
	size_t len = done->vals ? (size_t)done->count * size : 0;
	size_t loc_len = done->locs ? (size_t)done->count * sizeof(u32) : 0;
	struct nlattr *attr;
	void *hdr;
	u32 i;

	hdr = torus_nl_put_header(skb, done->portid, done->nlseq,
				  TORUS_CMD_COLL);
	if (!hdr || nla_put_u32(skb, TORUS_A_COLL_SEQ, done->seq))
		goto fail;
	if (done->err) {
		if (nla_put_u32(skb, TORUS_A_COLL_ERROR, -done->err))
			goto fail;
	} else if (done->placed) {
		if (nla_put_flag(skb, TORUS_A_COLL_PLACED))
			goto fail;
	} else if (done->vals) {
		attr = nla_reserve(skb, TORUS_A_COLL_RESULT, len);
		if (!attr)
			goto fail;
		/* 64-bit elements are the values as kept: one copy */
		if (size == sizeof(*done->vals))
			memcpy(nla_data(attr), done->vals, len);
		else
			for (i = 0; i < done->count; i++)
				torus_coll_store(done->type, done->vals[i],
						 (u8 *)nla_data(attr) +
						 i * size);
	}
	/* with the result, placed or not (no result, no locs) */
	if (done->locs &&
	    nla_put(skb, TORUS_A_COLL_LOC, loc_len, done->locs))
		goto fail;
	genlmsg_end(skb, hdr);
	return skb;
fail:
	WARN_ONCE(1, "torus: a collective's answer did not fit its room");
	nlmsg_free(skb);
	return NULL;
}

/*
 * A netlink socket released: the operations its port asked for die with
 * it, on the nodes of its netns (the only ones it could join on).
 */
static int coll_nl_release(struct notifier_block *nb, unsigned long event,
			   void *ptr)
{
	struct netlink_notify *n = ptr;
	struct net_device *dev;

	if (event != NETLINK_URELEASE || n->protocol != NETLINK_GENERIC ||
	    !n->portid)
		return NOTIFY_DONE;
	rcu_read_lock();
	for_each_netdev_rcu(n->net, dev)
		if (netif_is_torus_node(dev))
			torus_coll_requester_gone(netdev_priv(dev), n->net,
						  n->portid);
	rcu_read_unlock();
	return NOTIFY_DONE;
}

static struct notifier_block coll_nl_notifier = {
	.notifier_call = coll_nl_release,
};

int torus_coll_nl_init(void)
{
	return netlink_register_notifier(&coll_nl_notifier);
}

void torus_coll_nl_exit(void)
{
	netlink_unregister_notifier(&coll_nl_notifier);
}

/*
 * The node device of a request, held.  Not under RTNL: every node of a
 * fabric joins every operation, and RTNL is one lock for all netns.
 */
static struct net_device *coll_nl_get_dev(struct genl_info *info,
					  netdevice_tracker *tracker)
{
	struct net *net = genl_info_net(info);
	struct net_device *dev = NULL;
	struct nlattr *attr;

	rcu_read_lock();
	attr = info->attrs[TORUS_A_IFINDEX];
	if (attr) {
		dev = dev_get_by_index_rcu(net, nla_get_u32(attr));
	} else if (info->attrs[TORUS_A_IFNAME]) {
		char name[IFNAMSIZ];

		attr = info->attrs[TORUS_A_IFNAME];
		nla_strscpy(name, attr, IFNAMSIZ);
		dev = dev_get_by_name_rcu(net, name);
	}
	if (dev && netif_is_torus_node(dev))
		netdev_hold(dev, tracker, GFP_ATOMIC);
	else
		dev = NULL;
	rcu_read_unlock();
	if (!dev)
		NL_SET_ERR_MSG(info->extack,
			       "torus: no such node device (ifindex or ifname)");
	return dev;
}

/* The number of nodes in the fabric, as ranks count them. */
static u32 coll_nl_size(const struct torus_geom *g)
{
	u32 size = 1;
	unsigned int i;

	for (i = 0; i < g->ndims; i++)
		size *= g->dims[i];
	return size;
}

/*
 * The caller's buffer that the result goes into: 8-byte elements only,
 * as the engine keeps them, and only where the result comes back (a
 * reduce's other nodes give their buffer as input only).  A broadcast's
 * root that gives no data gives them there: that buffer is only read.
 */
static int coll_nl_place(struct genl_info *info, struct torus_coll_req *req)
{
	struct nlattr *attr = info->attrs[TORUS_A_COLL_PLACE];
	struct torus_coll_place *place;

	if (req->kind == TORUS_COLL_BARRIER ||
	    (req->kind == TORUS_COLL_REDUCE && !req->root)) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "torus: this node gets no result to place");
		return -EINVAL;
	}
	if (torus_coll_type_size(req->type) != sizeof(u64)) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "torus: only 8-byte elements are placed");
		return -EINVAL;
	}
	place = torus_coll_place_get(nla_get_u64(attr),
				     (size_t)req->count * sizeof(u64),
				     !(req->kind == TORUS_COLL_BCAST &&
				       req->root && !req->data),
				     info->extack);
	if (IS_ERR(place))
		return PTR_ERR(place);
	req->place = place;
	return 0;
}

/*
 * The elements of a broadcast, at a node that gives no data: any but
 * the root, and a root whose data are in its placed buffer.  Placed, a
 * broadcast may be larger than a request's data could be.
 */
static int coll_nl_bcast_count(struct genl_info *info,
			       struct torus_coll_req *req)
{
	struct nlattr *count = info->attrs[TORUS_A_COLL_COUNT];
	bool placed = info->attrs[TORUS_A_COLL_PLACE];

	if (req->root && !placed) {
		NL_SET_ERR_MSG(info->extack,
			       "torus: the broadcast's root gives the data or places them");
		return -EINVAL;
	}
	if (GENL_REQ_ATTR_CHECK(info, TORUS_A_COLL_COUNT))
		return -EINVAL;
	req->count = nla_get_u32(count);
	if (!placed && req->count > TORUS_COLL_MAX_COUNT) {
		NL_SET_ERR_MSG_ATTR(info->extack, count,
				    "torus: more than TORUS_COLL_MAX_COUNT elements need a placed broadcast");
		return -EINVAL;
	}
	return 0;
}

/*
 * The parts of a request that depend on the node: the group's axes
 * exist; a node list names nodes of the fabric, this one among them.
 */
static int coll_nl_group(struct genl_info *info, struct torus_node *node,
			 struct torus_coll_req *req)
{
	struct nlattr *members = info->attrs[TORUS_A_COLL_MEMBERS];
	const struct torus_fib *fib;
	struct torus_geom g = {};

	rcu_read_lock();
	fib = rcu_dereference(node->fib);
	if (fib && fib->placed)
		g = fib->geom;
	rcu_read_unlock();
	if (!(req->group & TORUS_COLL_GROUP_LIST)) {
		if (members) {
			NL_SET_ERR_MSG_ATTR(info->extack, members,
					    "torus: members make a node-list group (TORUS_COLL_GROUP_LIST)");
			return -EINVAL;
		}
		if (g.ndims && req->group >> g.ndims) {
			NL_SET_ERR_MSG_ATTR(info->extack,
					    info->attrs[TORUS_A_COLL_GROUP],
					    "torus: the group spans an axis the fabric does not have");
			return -EINVAL;
		}
		return 0;
	}
	if (!members) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[TORUS_A_COLL_GROUP],
				    "torus: a node-list group needs its members");
		return -EINVAL;
	}
	req->members = nla_data(members);
	req->nmembers = nla_len(members) / sizeof(u32);
	if (!g.ndims)
		return 0;	/* the join says the node is not placed */
	/* ascending (policy): the last is the largest */
	if (req->members[req->nmembers - 1] >= coll_nl_size(&g)) {
		NL_SET_ERR_MSG_ATTR(info->extack, members,
				    "torus: a member's rank is beyond the fabric");
		return -EINVAL;
	}
	if (torus_coll_list_index(req->members, req->nmembers,
				  torus_coll_rank(&g, g.coord)) ==
	    req->nmembers) {
		NL_SET_ERR_MSG_ATTR(info->extack, members,
				    "torus: this node is not among the members");
		return -EINVAL;
	}
	return 0;
}

static int coll_nl_root(struct genl_info *info, struct torus_node *node,
			u16 group, struct torus_coll_req *req)
{
	u8 coord[TORUS_MAX_AXES], own[TORUS_MAX_AXES];
	const struct torus_fib *fib;
	struct torus_geom g = {};
	unsigned int i;
	int err;

	if (!info->attrs[TORUS_A_COLL_ROOT]) {
		NL_SET_ERR_MSG(info->extack,
			       "torus: a broadcast or reduce needs a root");
		return -EINVAL;
	}
	rcu_read_lock();
	fib = rcu_dereference(node->fib);
	if (fib && fib->placed)
		g = fib->geom;
	rcu_read_unlock();
	if (!g.ndims) {
		NL_SET_ERR_MSG(info->extack, "torus: the node is not placed");
		return -ENETDOWN;
	}
	memcpy(own, g.coord, sizeof(own));
	err = torus_nl_parse_coord(info->attrs[TORUS_A_COLL_ROOT], &g, coord,
				   info->extack);
	if (err)
		return err;
	if (req->members &&
	    torus_coll_list_index(req->members, req->nmembers,
				  torus_coll_rank(&g, coord)) ==
	    req->nmembers) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[TORUS_A_COLL_ROOT],
				    "torus: the root is not among the members");
		return -EINVAL;
	}
	for (i = 0; !req->members && group && i < g.ndims; i++)
		if (!(group & BIT(i)) && coord[i] != own[i]) {
			NL_SET_ERR_MSG_ATTR(info->extack,
					    info->attrs[TORUS_A_COLL_ROOT],
					    "torus: the root is not in this node's group");
			return -EINVAL;
		}
	req->root = !memcmp(coord, own, TORUS_MAX_AXES);
	memcpy(req->root_coord, coord, TORUS_MAX_AXES);
	req->has_root_coord = true;
	return 0;
}

int torus_nl_coll_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **attrs = info->attrs, *data = attrs[TORUS_A_COLL_DATA];
	struct torus_coll_req req = {
		.net = genl_info_net(info),
		.portid = info->snd_portid,
		.nlseq = info->snd_seq,
		.timeout_ms = TORUS_COLL_TIMEOUT_MS,
	};
	netdevice_tracker tracker;
	struct torus_node *node;
	struct net_device *dev;
	unsigned int size;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, TORUS_A_COLL_KIND))
		return -EINVAL;
	req.kind = nla_get_u8(attrs[TORUS_A_COLL_KIND]);
	if (attrs[TORUS_A_COLL_TIMEOUT_MS])
		req.timeout_ms = nla_get_u32(attrs[TORUS_A_COLL_TIMEOUT_MS]);
	if (attrs[TORUS_A_COLL_GROUP])
		req.group = nla_get_u16(attrs[TORUS_A_COLL_GROUP]);
	if (req.kind != TORUS_COLL_BARRIER) {
		if (GENL_REQ_ATTR_CHECK(info, TORUS_A_COLL_TYPE))
			return -EINVAL;
		req.type = nla_get_u8(attrs[TORUS_A_COLL_TYPE]);
	}
	if (req.kind == TORUS_COLL_ALLREDUCE || req.kind == TORUS_COLL_REDUCE) {
		if (GENL_REQ_ATTR_CHECK(info, TORUS_A_COLL_OP) ||
		    GENL_REQ_ATTR_CHECK(info, TORUS_A_COLL_DATA))
			return -EINVAL;
		req.op = nla_get_u8(attrs[TORUS_A_COLL_OP]);
		if (!torus_coll_op_valid(req.type, req.op)) {
			NL_SET_ERR_MSG_ATTR(info->extack, attrs[TORUS_A_COLL_OP],
					    "torus: this reduction does not apply to this type");
			return -EOPNOTSUPP;
		}
	}
	size = torus_coll_type_size(req.type);
	if (req.kind != TORUS_COLL_BARRIER && data) {
		if (!nla_len(data) || nla_len(data) % size ||
		    nla_len(data) / size > TORUS_COLL_MAX_COUNT) {
			NL_SET_ERR_MSG_ATTR(info->extack, data,
					    "torus: data must be 1 to TORUS_COLL_MAX_COUNT whole elements");
			return -EINVAL;
		}
		req.count = nla_len(data) / size;
	}

	dev = coll_nl_get_dev(info, &tracker);
	if (!dev)
		return -ENODEV;
	node = netdev_priv(dev);
	err = coll_nl_group(info, node, &req);
	if (err)
		goto out;
	if (req.kind == TORUS_COLL_BCAST || req.kind == TORUS_COLL_REDUCE) {
		err = coll_nl_root(info, node, req.group, &req);
		if (err)
			goto out;
	}
	if (req.kind == TORUS_COLL_BCAST) {
		if (!req.root)
			data = NULL;	/* only the root's data counts */
		if (!data) {
			err = coll_nl_bcast_count(info, &req);
			if (err)
				goto out;
		}
	}
	req.data = data ? nla_data(data) : NULL;
	if (READ_ONCE(node->role) == TORUS_ROLE_LAMB) {
		NL_SET_ERR_MSG(info->extack,
			       "torus: a lamb is no endpoint of collectives");
		err = -EHOSTUNREACH;
		goto out;
	}
	if (attrs[TORUS_A_COLL_PLACE]) {
		err = coll_nl_place(info, &req);
		if (err)
			goto out;
	}
	err = torus_coll_join(node, &req, info->extack);
	if (err && req.place)
		torus_coll_place_release(req.place);
out:
	netdev_put(dev, &tracker);
	return err;
}

/* TORUS_A_COLL_TREE: the request's policy checks it too */
const struct nla_policy torus_coll_tree_policy[TORUS_COLL_TREE_A_MAX + 1] = {
	[TORUS_COLL_TREE_A_PARENT]	= { .type = NLA_U8 },
	[TORUS_COLL_TREE_A_CHILDREN]	= NLA_POLICY_MASK(NLA_U32,
						GENMASK(TORUS_MAX_DIRS - 1, 0)),
};

int torus_nl_coll_tree_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[TORUS_COLL_TREE_A_MAX + 1];
	struct nlattr *nest = info->attrs[TORUS_A_COLL_TREE];
	struct torus_node *node;
	u8 parent = TORUS_DIR_NONE;
	u32 children = 0;
	int err;

	if (nest) {
		err = nla_parse_nested(tb, TORUS_COLL_TREE_A_MAX, nest,
				       torus_coll_tree_policy, info->extack);
		if (err)
			return err;
		if (tb[TORUS_COLL_TREE_A_PARENT])
			parent = nla_get_u8(tb[TORUS_COLL_TREE_A_PARENT]);
		if (tb[TORUS_COLL_TREE_A_CHILDREN])
			children = nla_get_u32(tb[TORUS_COLL_TREE_A_CHILDREN]);
		if ((parent != TORUS_DIR_NONE && parent >= TORUS_MAX_DIRS) ||
		    (parent != TORUS_DIR_NONE && children & BIT(parent))) {
			NL_SET_ERR_MSG_ATTR(info->extack, nest,
					    "torus: the parent is a direction, and no child");
			return -EINVAL;
		}
	}
	rtnl_lock();
	node = torus_nl_get_node(info);
	if (IS_ERR(node)) {
		err = PTR_ERR(node);
	} else {
		torus_coll_tree_install(node, !!nest, parent, children);
		err = 0;
	}
	rtnl_unlock();
	return err;
}

int torus_nl_coll_tree_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct torus_node *node;
	struct nlattr *nest;
	struct sk_buff *msg;
	u32 children;
	u8 parent;
	void *hdr;
	bool set;
	int err;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	rtnl_lock();
	node = torus_nl_get_node(info);
	if (IS_ERR(node)) {
		err = PTR_ERR(node);
		goto fail;
	}
	torus_coll_tree_get(node, &set, &parent, &children);
	err = -EMSGSIZE;
	hdr = torus_nl_put_header(msg, info->snd_portid, info->snd_seq,
				  TORUS_CMD_COLL_TREE_GET);
	if (!hdr || nla_put_u32(msg, TORUS_A_IFINDEX, node->dev->ifindex) ||
	    nla_put_u8(msg, TORUS_A_COLL_TREE_SET, set))
		goto fail;
	nest = nla_nest_start(msg, TORUS_A_COLL_TREE);
	if (!nest || nla_put_u8(msg, TORUS_COLL_TREE_A_PARENT, parent) ||
	    nla_put_u32(msg, TORUS_COLL_TREE_A_CHILDREN, children))
		goto fail;
	nla_nest_end(msg, nest);
	genlmsg_end(msg, hdr);
	rtnl_unlock();
	return genlmsg_reply(msg, info);
fail:
	rtnl_unlock();
	nlmsg_free(msg);
	return err;
}
