/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers the KUnit suites share (torus_port_test.c defines them).
 */
#ifndef _TORUS_TEST_H
#define _TORUS_TEST_H

struct list_head;
struct net_device;

/*
 * A torport cable in init_net, both ends down.  Under RTNL.  Return: the
 * end to use, @far the other; NULL on failure.  Deleting either end
 * (torport_link_ops.dellink) deletes both.
 */
struct net_device *torus_test_cable(struct net_device **far);

/*
 * A node at (1) of a line of three in init_net: cable A on its -x port
 * leads to (0), cable B on its +x port to (2).  A test sends frames in
 * at the neighbours' ends, a_far and b_far, and captures there what the
 * node sends.
 */
struct torus_test_line {
	struct net_device *node;
	struct net_device *a_far, *a_port;	/* cable A, to (0) */
	struct net_device *b_port, *b_far;	/* cable B, to (2) */
};

/*
 * @l made and up, the node named after @name ("ktor%d"), and its cables
 * ready to send on.  Takes RTNL.  Return: 0 or an error; either way,
 * torus_test_line_del() deletes what was made.
 */
int torus_test_line_new(struct torus_test_line *l, const char *name);
/* Delete @l's devices.  Takes RTNL. */
void torus_test_line_del(struct torus_test_line *l);

#endif
