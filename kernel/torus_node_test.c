// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the labels of a node's ports set through rtnetlink
 * (ip link set PORT type torus_slave dir LABEL).  A node device gets two
 * plain Ethernet ports (a small fake netdev that drops what it is given)
 * and one end of a torport cable; requests go through the slave policy
 * as rtnetlink parses them, then to slave_changelink.
 */
#include <kunit/test.h>
#include <linux/etherdevice.h>
#include <linux/rtnetlink.h>
#include <net/netlink.h>
#include <net/rtnetlink.h>

#include "torus_priv.h"
#include "torus_test.h"

struct torus_node_fixture {
	struct net_device *node;
	struct net_device *eth[2];
	struct net_device *tp, *tp_far;
};

static netdev_tx_t torus_node_test_xmit(struct sk_buff *skb,
					struct net_device *dev)
{
	kfree_skb(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops torus_node_test_eth_ops = {
	.ndo_start_xmit = torus_node_test_xmit,
};

static struct net_device *torus_node_test_eth(void)
{
	struct net_device *dev = alloc_etherdev(0);

	if (!dev)
		return NULL;
	dev->netdev_ops = &torus_node_test_eth_ops;
	eth_hw_addr_random(dev);
	if (register_netdevice(dev)) {
		free_netdev(dev);
		return NULL;
	}
	return dev;
}

static int torus_node_test_setup(struct torus_node_fixture *fx)
{
	struct nlattr *tb[IFLA_MAX + 1] = {};
	const struct net_device_ops *ops;
	int err, i;

	fx->node = rtnl_create_link(&init_net, "ktor%d", NET_NAME_ENUM,
				    &torus_node_link_ops, tb, NULL);
	if (IS_ERR(fx->node)) {
		err = PTR_ERR(fx->node);
		fx->node = NULL;
		return err;
	}
	err = register_netdevice(fx->node);
	if (err) {
		free_netdev(fx->node);
		fx->node = NULL;
		return err;
	}
	for (i = 0; i < 2; i++) {
		fx->eth[i] = torus_node_test_eth();
		if (!fx->eth[i])
			return -ENOMEM;
	}
	fx->tp = torus_test_cable(&fx->tp_far);
	if (!fx->tp)
		return -ENOMEM;
	ops = fx->node->netdev_ops;
	return ops->ndo_add_slave(fx->node, fx->eth[0], NULL) ?:
	       ops->ndo_add_slave(fx->node, fx->eth[1], NULL) ?:
	       ops->ndo_add_slave(fx->node, fx->tp, NULL);
}

static int torus_node_test_init(struct kunit *test)
{
	struct torus_node_fixture *fx;
	int err;

	fx = kunit_kzalloc(test, sizeof(*fx), GFP_KERNEL);
	if (!fx)
		return -ENOMEM;
	test->priv = fx;
	rtnl_lock();
	err = torus_node_test_setup(fx);
	rtnl_unlock();
	return err;
}

static void torus_node_test_exit(struct kunit *test)
{
	struct torus_node_fixture *fx = test->priv;
	LIST_HEAD(list);
	int i;

	rtnl_lock();
	if (fx->node)
		unregister_netdevice_queue(fx->node, &list);
	for (i = 0; i < 2; i++)
		if (fx->eth[i])
			unregister_netdevice_queue(fx->eth[i], &list);
	if (fx->tp)
		torport_link_ops.dellink(fx->tp, &list);
	unregister_netdevice_many(&list);
	rtnl_unlock();
}

/*
 * IFLA_INFO_SLAVE_DATA { @type: u8 @value } through the slave policy and
 * slave_changelink of the node, as rtnetlink does it.  Under RTNL.
 */
static int torus_node_test_set(struct kunit *test, struct net_device *slave,
			       int type, u8 value,
			       struct netlink_ext_ack *extack)
{
	struct torus_node_fixture *fx = test->priv;
	struct nlattr *data[TORUS_PORT_INFO_A_MAX + 1];
	struct nlattr *tb[IFLA_MAX + 1] = {};
	struct nlattr *attr;
	int err;

	attr = kunit_kzalloc(test, nla_total_size(sizeof(u8)), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, attr);
	attr->nla_type = type;
	attr->nla_len = nla_attr_size(sizeof(u8));
	*(u8 *)nla_data(attr) = value;
	err = nla_parse_deprecated(data, torus_node_link_ops.slave_maxtype,
				   attr, nla_total_size(sizeof(u8)),
				   torus_node_link_ops.slave_policy, extack);
	if (err)
		return err;
	/* rtnetlink's answer when the master cannot change its slaves */
	if (!torus_node_link_ops.slave_changelink)
		return -EOPNOTSUPP;
	return torus_node_link_ops.slave_changelink(fx->node, slave, tb, data,
						    extack);
}

static u8 torus_node_test_label(struct net_device *slave)
{
	return torus_port_from_dev(slave)->label;
}

struct torus_node_label_case {
	const char *name;
	u8 label;
	int err;
};

static const struct torus_node_label_case torus_node_label_cases[] = {
	{ "+x", TORUS_DIR(0, 0), 0 },
	{ "-e", TORUS_DIR(7, 1), 0 },
	{ "none", TORUS_DIR_NONE, 0 },
	{ "16", TORUS_MAX_DIRS, -ERANGE },
	{ "0xfe", 0xfe, -ERANGE },
};

static void torus_node_label_desc(const struct torus_node_label_case *c,
				  char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(torus_node_label, torus_node_label_cases,
		  torus_node_label_desc);

/* A plain Ethernet port takes any of the 16 labels or none, nothing else. */
static void torus_node_slave_label_range(struct kunit *test)
{
	const struct torus_node_label_case *c = test->param_value;
	struct torus_node_fixture *fx = test->priv;
	struct netlink_ext_ack extack = {};
	struct torus_node *node = netdev_priv(fx->node);
	u32 generation;
	int err;

	rtnl_lock();
	/* start from a label, so that clearing it is a change */
	KUNIT_EXPECT_EQ(test, torus_node_test_set(test, fx->eth[0],
						  TORUS_PORT_INFO_A_LABEL,
						  TORUS_DIR(1, 0), &extack), 0);
	generation = node->generation;
	err = torus_node_test_set(test, fx->eth[0], TORUS_PORT_INFO_A_LABEL,
				  c->label, &extack);
	KUNIT_EXPECT_EQ(test, err, c->err);
	if (c->err) {
		KUNIT_EXPECT_EQ(test, torus_node_test_label(fx->eth[0]),
				TORUS_DIR(1, 0));
		KUNIT_EXPECT_EQ(test, node->generation, generation);
		KUNIT_EXPECT_NOT_NULL(test, extack._msg);
		KUNIT_EXPECT_NOT_NULL(test, extack.bad_attr);
	} else {
		KUNIT_EXPECT_EQ(test, torus_node_test_label(fx->eth[0]),
				c->label);
		/* torusd resyncs its ports on the generation it is told */
		KUNIT_EXPECT_EQ(test, node->generation, generation + 1);
	}
	rtnl_unlock();
}

/* Two ports of one node never carry one label: discovery could not tell
 * them apart.  Moving a label takes clearing it first.
 */
static void torus_node_slave_label_unique(struct kunit *test)
{
	struct torus_node_fixture *fx = test->priv;
	struct netlink_ext_ack extack = {};
	const u8 plus_y = TORUS_DIR(1, 0);

	rtnl_lock();
	KUNIT_EXPECT_EQ(test, torus_node_test_set(test, fx->eth[0],
						  TORUS_PORT_INFO_A_LABEL,
						  plus_y, &extack), 0);
	KUNIT_EXPECT_EQ(test, torus_node_test_set(test, fx->eth[1],
						  TORUS_PORT_INFO_A_LABEL,
						  plus_y, &extack), -EEXIST);
	KUNIT_EXPECT_NOT_NULL(test, extack._msg);
	KUNIT_EXPECT_EQ(test, torus_node_test_label(fx->eth[1]),
			TORUS_DIR_NONE);
	/* the same label again on the same port is no conflict */
	KUNIT_EXPECT_EQ(test, torus_node_test_set(test, fx->eth[0],
						  TORUS_PORT_INFO_A_LABEL,
						  plus_y, &extack), 0);
	KUNIT_EXPECT_EQ(test, torus_node_test_set(test, fx->eth[0],
						  TORUS_PORT_INFO_A_LABEL,
						  TORUS_DIR_NONE, &extack), 0);
	KUNIT_EXPECT_EQ(test, torus_node_test_set(test, fx->eth[1],
						  TORUS_PORT_INFO_A_LABEL,
						  plus_y, &extack), 0);
	KUNIT_EXPECT_EQ(test, torus_node_test_label(fx->eth[1]), plus_y);
	rtnl_unlock();
}

/* A torport's label is its cable's: refused, unchanged. */
static void torus_node_slave_label_torport_fixed(struct kunit *test)
{
	struct torus_node_fixture *fx = test->priv;
	struct netlink_ext_ack extack = {};
	struct torport_priv *priv = netdev_priv(fx->tp);
	u8 label = priv->label;

	rtnl_lock();
	KUNIT_EXPECT_EQ(test, torus_node_test_set(test, fx->tp,
						  TORUS_PORT_INFO_A_LABEL,
						  TORUS_DIR(2, 1), &extack),
			-EOPNOTSUPP);
	KUNIT_EXPECT_NOT_NULL(test, extack._msg);
	if (extack._msg)
		KUNIT_EXPECT_NOT_NULL(test, strstr(extack._msg, "torport"));
	KUNIT_EXPECT_EQ(test, torus_node_test_label(fx->tp), label);
	KUNIT_EXPECT_EQ(test, priv->label, label);
	rtnl_unlock();
}

/* The global direction is the port map's, not a setting of the port. */
static void torus_node_slave_global_dir_refused(struct kunit *test)
{
	struct torus_node_fixture *fx = test->priv;
	struct netlink_ext_ack extack = {};

	rtnl_lock();
	KUNIT_EXPECT_EQ(test, torus_node_test_set(test, fx->eth[0],
						  TORUS_PORT_INFO_A_GLOBAL_DIR,
						  TORUS_DIR(0, 0), &extack),
			-EOPNOTSUPP);
	KUNIT_EXPECT_NOT_NULL(test, extack._msg);
	rtnl_unlock();
}

/* A device that is no port of this node is refused, not dereferenced. */
static void torus_node_slave_not_a_port(struct kunit *test)
{
	struct torus_node_fixture *fx = test->priv;
	struct netlink_ext_ack extack = {};

	rtnl_lock();
	KUNIT_EXPECT_EQ(test, torus_node_test_set(test, fx->tp_far,
						  TORUS_PORT_INFO_A_LABEL,
						  TORUS_DIR(0, 0), &extack),
			-EINVAL);
	KUNIT_EXPECT_NOT_NULL(test, extack._msg);
	rtnl_unlock();
}

static struct kunit_case torus_node_test_cases[] = {
	KUNIT_CASE_PARAM(torus_node_slave_label_range,
			 torus_node_label_gen_params),
	KUNIT_CASE(torus_node_slave_label_unique),
	KUNIT_CASE(torus_node_slave_label_torport_fixed),
	KUNIT_CASE(torus_node_slave_global_dir_refused),
	KUNIT_CASE(torus_node_slave_not_a_port),
	{}
};

static struct kunit_suite torus_node_test_suite = {
	.name = "torus_node",
	.init = torus_node_test_init,
	.exit = torus_node_test_exit,
	.test_cases = torus_node_test_cases,
};

kunit_test_suite(torus_node_test_suite);
