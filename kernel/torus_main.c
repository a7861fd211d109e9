// SPDX-License-Identifier: GPL-2.0
/*
 * torus.ko: a self-configuring torus/mesh fabric.  Module init and exit:
 * segmentation of fabric frames, the cables' namespace hook, the netdev
 * notifier, the two link types, the netlink release notifier (an
 * operation dies with the socket that asked for it), then the generic
 * netlink family last, so userspace never sees a half-ready module.
 */
#include <linux/module.h>
#include <net/genetlink.h>
#include <net/rtnetlink.h>

#include "torus_priv.h"
#include "torus_coll.h"

static int __init torus_init(void)
{
	int err;

	torus_gso_init();
	err = torus_coll_place_init();
	if (err)
		goto err_gso;
	err = torport_pernet_register();
	if (err)
		goto err_place;
	err = torus_node_notifier_init();
	if (err)
		goto err_pernet;
	err = rtnl_link_register(&torus_node_link_ops);
	if (err)
		goto err_notifier;
	err = rtnl_link_register(&torport_link_ops);
	if (err)
		goto err_node_link;
	err = torus_coll_nl_init();
	if (err)
		goto err_port_link;
	err = torus_netlink_init();
	if (err)
		goto err_coll_nl;
	return 0;

err_coll_nl:
	torus_coll_nl_exit();
err_port_link:
	rtnl_link_unregister(&torport_link_ops);
err_node_link:
	rtnl_link_unregister(&torus_node_link_ops);
err_notifier:
	torus_node_notifier_exit();
err_pernet:
	torport_pernet_unregister();
err_place:
	torus_coll_place_exit();
err_gso:
	torus_gso_exit();
	return err;
}

static void __exit torus_exit(void)
{
	torus_netlink_exit();
	torus_coll_nl_exit();
	rtnl_link_unregister(&torport_link_ops);
	rtnl_link_unregister(&torus_node_link_ops);
	torus_node_notifier_exit();
	torport_pernet_unregister();
	/* after the nodes: the placements they left are released first */
	torus_coll_place_exit();
	torus_gso_exit();
	/* ports and tables are freed by RCU callbacks in this module */
	rcu_barrier();
}

module_init(torus_init);
module_exit(torus_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Self-configuring torus/mesh fabric: node device and torport cables");
MODULE_ALIAS_RTNL_LINK(TORUS_NODE_KIND);
MODULE_ALIAS_RTNL_LINK(TORUS_PORT_KIND);
MODULE_ALIAS_GENL_FAMILY(TORUS_GENL_NAME);
