// SPDX-License-Identifier: GPL-2.0
/*
 * Node configuration changes (NODE_SET), applied all or nothing: every
 * check and every allocation happens in torus_node_change_prepare(),
 * which leaves the node untouched when it fails; the commit cannot fail.
 */
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/netlink.h>

#include "torus_priv.h"

/* Start from the node's current configuration.  Under RTNL. */
void torus_node_change_init(const struct torus_node *node,
			    struct torus_node_change *c)
{
	memset(c, 0, sizeof(*c));
	c->id = node->id;
	c->leader = node->leader;
	c->state = node->state;
	c->role = node->role;
	c->hop_limit = node->hop_limit;
	strscpy(c->reason, node->reason, sizeof(c->reason));
}

/**
 * torus_node_change_prepare - check a change and allocate what it needs
 * @node: the node
 * @c: the change, from torus_node_change_init() and the request
 * @gfp: allocation flags
 * @extack: where to say why it is refused
 *
 * Under RTNL.  On success @c holds the new forwarding state and, if the
 * geometry changes, the route exceptions still valid in it; pass it to
 * torus_node_change_commit().  On failure nothing was changed or kept.
 *
 * Return: 0 or a negative error.
 */
int torus_node_change_prepare(struct torus_node *node,
			      struct torus_node_change *c, gfp_t gfp,
			      struct netlink_ext_ack *extack)
{
	const struct torus_fib *fib = rtnl_dereference(node->fib);
	const struct torus_geom *g = c->has_geom ? &c->geom : &fib->geom;
	unsigned int hop_limit = c->hop_limit ?: TORUS_HOP_LIMIT_DEFAULT;
	int dropped;

	if (c->state == TORUS_STATE_PLACED && !g->ndims) {
		NL_SET_ERR_MSG(extack,
			       "torus: a placed node needs coordinates and extents");
		return -EINVAL;
	}
	/* a frame must be able to reach the farthest node */
	if (torus_diameter(g) > hop_limit) {
		NL_SET_ERR_MSG(extack,
			       "torus: the fabric's diameter exceeds the hop limit");
		return -ERANGE;
	}

	c->fib = torus_fib_build(node, c->has_geom ? &c->geom : NULL,
				 c->state == TORUS_STATE_PLACED, NULL,
				 c->hop_limit, gfp);
	if (!c->fib)
		return -ENOMEM;
	if (c->has_geom) {
		dropped = torus_rtable_revalidate(rtnl_dereference(node->routes),
						  rtnl_dereference(node->plans),
						  &c->geom, gfp, &c->routes);
		if (dropped < 0) {
			kfree(c->fib);
			c->fib = NULL;
			return dropped;
		}
		c->new_routes = dropped > 0;
	}
	return 0;
}

/* Apply a prepared change.  Under RTNL; cannot fail. */
void torus_node_change_commit(struct torus_node *node,
			      struct torus_node_change *c)
{
	node->id = c->id;
	node->leader = c->leader;
	node->state = c->state;
	WRITE_ONCE(node->role, c->role);
	node->hop_limit = c->hop_limit;
	strscpy(node->reason, c->reason, sizeof(node->reason));
	/*
	 * The pruned table holds only exceptions valid in both geometries:
	 * publish it before the geometry it was pruned for.
	 */
	if (c->new_routes) {
		struct torus_rtable *old = rtnl_dereference(node->routes);

		rcu_assign_pointer(node->routes, c->routes);
		if (old)
			kvfree_rcu(old, rcu);
		node->routes_generation++;
	}
	torus_node_publish_fib(node, c->fib);
	c->fib = NULL;
	c->routes = NULL;
}
