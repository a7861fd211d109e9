/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers the KUnit suites share (torus_port_test.c defines them).
 */
#ifndef _TORUS_TEST_H
#define _TORUS_TEST_H

struct net_device;

/*
 * A torport cable in init_net, both ends down.  Under RTNL.  Return: the
 * end to use, @far the other; NULL on failure.  Deleting either end
 * (torport_link_ops.dellink) deletes both.
 */
struct net_device *torus_test_cable(struct net_device **far);

#endif
