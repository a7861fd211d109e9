// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: node configuration changes (NODE_SET) are all or nothing, prune
 * route exceptions the new geometry cannot reach and respect the hop
 * limit.  Allocation failures come from the real slab allocator through
 * failslab's per-task fail_nth.
 */
#include <kunit/test.h>
#include <linux/rtnetlink.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "torus_priv.h"

static void torus_test_geom(struct torus_geom *g, u8 ndims, u16 ext, u8 wrap)
{
	unsigned int axis;

	memset(g, 0, sizeof(*g));
	g->ndims = ndims;
	g->wrap = wrap;
	for (axis = 0; axis < ndims; axis++)
		g->dims[axis] = ext;
}

static struct torus_route_exc torus_test_exc(u8 x, u8 y, u8 dir)
{
	struct torus_route_exc exc = { .dst = { x, y }, .dir = dir };

	return exc;
}

/* A placed node on an 8x8 torus with exceptions near and far. */
static struct torus_node *torus_test_node(struct kunit *test)
{
	struct torus_route_exc batch[] = {
		torus_test_exc(1, 1, TORUS_DIR(1, 0)),
		torus_test_exc(6, 0, TORUS_DIR(0, 1)),
		{ .dst = { 2, 3 }, .via = { 3, 3 }, .has_via = true,
		  .dir = TORUS_DIR_NONE },
		{ .dst = { 3, 2 }, .via = { 7, 7 }, .has_via = true,
		  .dir = TORUS_DIR_NONE },
	};
	struct torus_node *node;
	struct torus_rtable *rt;
	struct torus_fib *fib;

	node = kunit_kzalloc(test, sizeof(*node), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, node);
	fib = kzalloc(sizeof(*fib), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fib);
	torus_test_geom(&fib->geom, 2, 8, 0x3);
	fib->placed = true;
	fib->hop_limit = TORUS_HOP_LIMIT_DEFAULT;
	RCU_INIT_POINTER(node->fib, fib);
	rt = torus_rtable_build(NULL, batch, ARRAY_SIZE(batch), true,
				GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(rt));
	RCU_INIT_POINTER(node->routes, rt);
	node->id = 7;
	node->leader = 9;
	node->state = TORUS_STATE_PLACED;
	node->role = TORUS_ROLE_STATIC;
	strscpy(node->reason, "before", sizeof(node->reason));
	return node;
}

static void torus_test_node_free(struct torus_node *node)
{
	kfree(rcu_dereference_protected(node->fib, true));
	kvfree(rcu_dereference_protected(node->routes, true));
}

static void torus_config_prunes_routes(struct kunit *test)
{
	struct torus_node *node = torus_test_node(test);
	const struct torus_rtable *rt;
	struct torus_node_change c;
	u8 dst[TORUS_MAX_AXES] = {};

	rtnl_lock();
	torus_node_change_init(node, &c);
	torus_test_geom(&c.geom, 2, 4, 0x3);
	c.has_geom = true;
	KUNIT_ASSERT_EQ(test, torus_node_change_prepare(node, &c, GFP_KERNEL,
							NULL), 0);
	torus_node_change_commit(node, &c);
	rt = rtnl_dereference(node->routes);
	KUNIT_ASSERT_NOT_NULL(test, rt);
	/* (6,0) and the detour via (7,7) are gone, the rest stays */
	KUNIT_EXPECT_EQ(test, rt->count, 2U);
	dst[0] = 6;
	KUNIT_EXPECT_NULL(test, torus_rtable_lookup(rt, dst));
	dst[0] = 3;
	dst[1] = 2;
	KUNIT_EXPECT_NULL(test, torus_rtable_lookup(rt, dst));
	dst[0] = 1;
	dst[1] = 1;
	KUNIT_EXPECT_NOT_NULL(test, torus_rtable_lookup(rt, dst));
	KUNIT_EXPECT_EQ(test, rtnl_dereference(node->fib)->geom.dims[0], 4);

	/* a change to 1D drops the exceptions on y */
	torus_node_change_init(node, &c);
	torus_test_geom(&c.geom, 1, 4, 0x1);
	c.has_geom = true;
	KUNIT_ASSERT_EQ(test, torus_node_change_prepare(node, &c, GFP_KERNEL,
							NULL), 0);
	torus_node_change_commit(node, &c);
	KUNIT_EXPECT_NULL(test, rtnl_dereference(node->routes));
	rtnl_unlock();
	torus_test_node_free(node);
}

static void torus_config_hop_limit(struct kunit *test)
{
	struct torus_node *node = torus_test_node(test);
	const struct torus_fib *fib;
	struct torus_node_change c;

	rtnl_lock();
	fib = rtnl_dereference(node->fib);
	/* 200x200x200 torus: 300 hops across, beyond any hop limit */
	torus_node_change_init(node, &c);
	torus_test_geom(&c.geom, 3, 200, 0x7);
	c.has_geom = true;
	KUNIT_EXPECT_EQ(test, torus_node_change_prepare(node, &c, GFP_KERNEL,
							NULL), -ERANGE);
	/* the 8x8 torus is 8 hops across */
	torus_node_change_init(node, &c);
	c.hop_limit = 7;
	KUNIT_EXPECT_EQ(test, torus_node_change_prepare(node, &c, GFP_KERNEL,
							NULL), -ERANGE);
	KUNIT_EXPECT_PTR_EQ(test, rtnl_dereference(node->fib), fib);
	KUNIT_EXPECT_EQ(test, node->hop_limit, 0);
	c.hop_limit = 8;
	KUNIT_ASSERT_EQ(test, torus_node_change_prepare(node, &c, GFP_KERNEL,
							NULL), 0);
	torus_node_change_commit(node, &c);
	KUNIT_EXPECT_EQ(test, rtnl_dereference(node->fib)->hop_limit, 8);
	rtnl_unlock();
	torus_test_node_free(node);
}

/* failslab ignores allocations that may reclaim unless told otherwise */
#define TORUS_TEST_GFP	((GFP_KERNEL & ~__GFP_DIRECT_RECLAIM) | __GFP_NOWARN)

/*
 * Fail each allocation of a NODE_SET change in turn: every failure
 * leaves the node exactly as it was; the first run that allocates
 * everything applies the whole change.
 */
static void torus_config_all_or_nothing(struct kunit *test)
{
	struct torus_node *node = torus_test_node(test);
	const struct torus_rtable *rt0;
	const struct torus_fib *fib0;
	struct torus_node_change c;
	unsigned int nth, failed = 0;
	int err = -ENOMEM;

	rtnl_lock();
	fib0 = rtnl_dereference(node->fib);
	rt0 = rtnl_dereference(node->routes);
	for (nth = 1; nth < 16 && err; nth++) {
		torus_node_change_init(node, &c);
		torus_test_geom(&c.geom, 2, 4, 0x3);
		c.has_geom = true;
		c.id = 70;
		c.leader = 90;
		c.hop_limit = 16;
		c.state = TORUS_STATE_FAILED;
		c.role = TORUS_ROLE_FOLLOWER;
		strscpy(c.reason, "after", sizeof(c.reason));

		current->fail_nth = nth;
		err = torus_node_change_prepare(node, &c, TORUS_TEST_GFP,
						NULL);
		current->fail_nth = 0;
		if (!err)
			break;
		failed++;
		KUNIT_EXPECT_EQ(test, err, -ENOMEM);
		KUNIT_EXPECT_EQ(test, node->id, 7ULL);
		KUNIT_EXPECT_EQ(test, node->leader, 9ULL);
		KUNIT_EXPECT_EQ(test, node->hop_limit, 0);
		KUNIT_EXPECT_EQ(test, node->state, TORUS_STATE_PLACED);
		KUNIT_EXPECT_EQ(test, node->role, TORUS_ROLE_STATIC);
		KUNIT_EXPECT_STREQ(test, node->reason, "before");
		KUNIT_EXPECT_PTR_EQ(test, rtnl_dereference(node->fib), fib0);
		KUNIT_EXPECT_PTR_EQ(test, rtnl_dereference(node->routes), rt0);
	}
	KUNIT_ASSERT_EQ(test, err, 0);
	/* the fib and the pruned route table: two allocations to fail */
	KUNIT_EXPECT_EQ(test, failed, 2U);
	torus_node_change_commit(node, &c);
	KUNIT_EXPECT_EQ(test, node->id, 70ULL);
	KUNIT_EXPECT_EQ(test, node->leader, 90ULL);
	KUNIT_EXPECT_EQ(test, node->state, TORUS_STATE_FAILED);
	KUNIT_EXPECT_STREQ(test, node->reason, "after");
	KUNIT_EXPECT_EQ(test, rtnl_dereference(node->fib)->geom.dims[0], 4);
	KUNIT_EXPECT_EQ(test, rtnl_dereference(node->routes)->count, 2U);
	rtnl_unlock();
	torus_test_node_free(node);
}

static struct kunit_case torus_config_test_cases[] = {
	KUNIT_CASE(torus_config_prunes_routes),
	KUNIT_CASE(torus_config_hop_limit),
	KUNIT_CASE(torus_config_all_or_nothing),
	{}
};

static struct kunit_suite torus_config_test_suite = {
	.name = "torus_config",
	.test_cases = torus_config_test_cases,
};

kunit_test_suite(torus_config_test_suite);
