// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: dimension-ordered routing, the address plan and route
 * exceptions.
 */
#include <kunit/test.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <net/netlink.h>
#include <linux/timekeeping.h>

#include "torus_priv.h"

struct torus_geom_case {
	const char *name;
	u8 ndims;
	u16 dims[TORUS_MAX_AXES];
	u8 wrap;
};

static const struct torus_geom_case torus_geom_cases[] = {
	{ "ring1", 1, { 1 }, 0x1 },
	{ "ring2", 1, { 2 }, 0x1 },
	{ "ring3", 1, { 3 }, 0x1 },
	{ "ring4", 1, { 4 }, 0x1 },
	{ "ring7", 1, { 7 }, 0x1 },
	{ "line1", 1, { 1 }, 0x0 },
	{ "line2", 1, { 2 }, 0x0 },
	{ "line5", 1, { 5 }, 0x0 },
	{ "mesh3x3", 2, { 3, 3 }, 0x0 },
	{ "torus4x4x4", 3, { 4, 4, 4 }, 0x7 },
	{ "torus2x1x3", 3, { 2, 1, 3 }, 0x7 },
	{ "mixed4x3x5", 3, { 4, 3, 5 }, 0x5 },
	{ "torus2x2x2x2", 4, { 2, 2, 2, 2 }, 0xf },
	{ "tofu6", 6, { 3, 2, 3, 2, 3, 2 }, 0x2d },
	{ "axes8", 8, { 2, 3, 2, 1, 2, 3, 2, 2 }, 0xa5 },
};

static void torus_geom_case_desc(const struct torus_geom_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(torus_geom, torus_geom_cases, torus_geom_case_desc);

static void torus_geom_from_case(const struct torus_geom_case *c,
				 struct torus_geom *g)
{
	memset(g, 0, sizeof(*g));
	g->ndims = c->ndims;
	g->wrap = c->wrap;
	memcpy(g->dims, c->dims, sizeof(g->dims));
}

static unsigned int torus_geom_nodes(const struct torus_geom *g)
{
	unsigned int n = 1, axis;

	for (axis = 0; axis < g->ndims; axis++)
		n *= g->dims[axis];
	return n;
}

static void torus_index_to_coord(const struct torus_geom *g, unsigned int i,
				 u8 *coord)
{
	unsigned int axis;

	memset(coord, 0, TORUS_MAX_AXES);
	for (axis = 0; axis < g->ndims; axis++) {
		coord[axis] = i % g->dims[axis];
		i /= g->dims[axis];
	}
}

/* Take one hop; false if the hop leaves a mesh. */
static bool torus_step(const struct torus_geom *g, u8 *coord, u8 dir)
{
	unsigned int axis = TORUS_DIR_AXIS(dir), ext = g->dims[axis];

	if (!(g->wrap & BIT(axis))) {
		if (TORUS_DIR_NEG(dir) ? coord[axis] == 0 :
					 coord[axis] + 1 >= ext)
			return false;
		coord[axis] += TORUS_DIR_NEG(dir) ? -1 : 1;
		return true;
	}
	coord[axis] = (coord[axis] + (TORUS_DIR_NEG(dir) ? ext - 1 : 1)) % ext;
	return true;
}

/*
 * From every node to every node: the walk arrives in exactly the
 * minimal hop count, never leaves a mesh, and corrects the axes in
 * order (it never returns to an axis once it moved on).
 */
static void torus_dor_all_pairs(struct kunit *test)
{
	const struct torus_geom_case *c = test->param_value;
	u8 src[TORUS_MAX_AXES], dst[TORUS_MAX_AXES], cur[TORUS_MAX_AXES];
	unsigned int n, s, d;
	struct torus_geom g;

	torus_geom_from_case(c, &g);
	n = torus_geom_nodes(&g);
	for (s = 0; s < n; s++) {
		torus_index_to_coord(&g, s, src);
		for (d = 0; d < n; d++) {
			unsigned int hops = 0, want, last_axis = 0;
			u8 dir;

			torus_index_to_coord(&g, d, dst);
			want = torus_dor_hops(&g, src, dst);
			memcpy(cur, src, TORUS_MAX_AXES);
			memcpy(g.coord, cur, TORUS_MAX_AXES);
			while ((dir = torus_dor_next_dir(&g, cur, dst)) !=
			       TORUS_DIR_NONE) {
				KUNIT_ASSERT_LT(test, TORUS_DIR_AXIS(dir),
						(unsigned int)g.ndims);
				KUNIT_ASSERT_GE(test, TORUS_DIR_AXIS(dir),
						last_axis);
				last_axis = TORUS_DIR_AXIS(dir);
				KUNIT_ASSERT_TRUE(test, torus_step(&g, cur, dir));
				KUNIT_ASSERT_LE(test, ++hops, want);
			}
			KUNIT_EXPECT_EQ(test, hops, want);
			KUNIT_EXPECT_EQ(test, memcmp(cur, dst, TORUS_MAX_AXES), 0);
			KUNIT_EXPECT_EQ(test, want == 0, s == d);
		}
	}
}

struct torus_dor_case {
	const char *name;
	u8 ndims;
	u16 dims[TORUS_MAX_AXES];
	u8 wrap;
	u8 cur[TORUS_MAX_AXES];
	u8 dst[TORUS_MAX_AXES];
	u8 dir;
	unsigned int hops;
};

static const struct torus_dor_case torus_dor_cases[] = {
	{ "here", 3, { 4, 4, 4 }, 0x7, { 1, 2, 3 }, { 1, 2, 3 },
	  TORUS_DIR_NONE, 0 },
	{ "x_first", 3, { 4, 4, 4 }, 0x7, { 0, 0, 0 }, { 1, 1, 1 },
	  TORUS_DIR(0, 0), 3 },
	{ "wrap_shorter", 1, { 8 }, 0x1, { 1 }, { 7 }, TORUS_DIR(0, 1), 2 },
	{ "tie_goes_plus", 1, { 4 }, 0x1, { 3 }, { 1 }, TORUS_DIR(0, 0), 2 },
	{ "extent2_plus", 1, { 2 }, 0x1, { 1 }, { 0 }, TORUS_DIR(0, 0), 1 },
	{ "mesh_no_wrap", 1, { 8 }, 0x0, { 1 }, { 7 }, TORUS_DIR(0, 0), 6 },
	{ "mesh_minus", 2, { 3, 3 }, 0x0, { 2, 2 }, { 2, 0 },
	  TORUS_DIR(1, 1), 2 },
	{ "axis_e", 8, { 1, 1, 1, 1, 1, 1, 1, 5 }, 0x80, { 0 },
	  { 0, 0, 0, 0, 0, 0, 0, 3 }, TORUS_DIR(7, 1), 2 },
};

static void torus_dor_case_desc(const struct torus_dor_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(torus_dor, torus_dor_cases, torus_dor_case_desc);

static void torus_dor_table(struct kunit *test)
{
	const struct torus_dor_case *c = test->param_value;
	struct torus_geom g = { .ndims = c->ndims, .wrap = c->wrap };

	memcpy(g.dims, c->dims, sizeof(g.dims));
	memcpy(g.coord, c->cur, TORUS_MAX_AXES);
	KUNIT_EXPECT_EQ(test, torus_dor_next_dir(&g, c->cur, c->dst), c->dir);
	KUNIT_EXPECT_EQ(test, torus_dor_hops(&g, c->cur, c->dst), c->hops);
}

static void torus_coord_validity(struct kunit *test)
{
	struct torus_geom g = { .ndims = 2, .dims = { 3, 4 } };
	u8 ok[TORUS_MAX_AXES] = { 2, 3 };
	u8 big[TORUS_MAX_AXES] = { 3, 0 };
	u8 extra[TORUS_MAX_AXES] = { 0, 0, 1 };

	KUNIT_EXPECT_TRUE(test, torus_coord_valid(&g, ok));
	KUNIT_EXPECT_FALSE(test, torus_coord_valid(&g, big));
	KUNIT_EXPECT_FALSE(test, torus_coord_valid(&g, extra));
}

static void torus_addr4_plan(struct kunit *test)
{
	struct torus_geom g = { .ndims = 3, .dims = { 4, 4, 256 } };
	static const u8 node123[TORUS_MAX_AXES] = { 1, 2, 3 };
	u8 coord[TORUS_MAX_AXES], c = 0;
	unsigned int x, y;

	KUNIT_EXPECT_EQ(test, torus_coord_to_addr4(node123),
			htonl(0x0a010203));
	for (x = 0; x < 4; x++) {
		for (y = 0; y < 4; y++, c += 37) {
			u8 want[TORUS_MAX_AXES] = { x, y, c };

			KUNIT_ASSERT_EQ(test,
					torus_addr4_to_coord(&g,
							     torus_coord_to_addr4(want),
							     coord), 0);
			KUNIT_EXPECT_EQ(test, memcmp(coord, want, 8), 0);
		}
	}
	/* outside 10/8, outside the extents */
	KUNIT_EXPECT_EQ(test, torus_addr4_to_coord(&g, htonl(0x0b010203), coord),
			-EADDRNOTAVAIL);
	KUNIT_EXPECT_EQ(test, torus_addr4_to_coord(&g, htonl(0x0a040000), coord),
			-EADDRNOTAVAIL);
	/* a 2-axis fabric has no z */
	g.ndims = 2;
	KUNIT_EXPECT_EQ(test, torus_addr4_to_coord(&g, htonl(0x0a010101), coord),
			-EADDRNOTAVAIL);
	KUNIT_EXPECT_EQ(test, torus_addr4_to_coord(&g, htonl(0x0a010100), coord),
			0);
}

static void torus_addr6_plan(struct kunit *test)
{
	struct torus_geom g = { .ndims = 8,
				.dims = { 2, 3, 4, 5, 6, 7, 8, 256 } };
	static const u8 stray[TORUS_MAX_AXES] = { 1, 2, 0, 0, 0, 0, 0, 1 };
	u8 want[TORUS_MAX_AXES] = { 1, 2, 3, 4, 5, 6, 7, 255 };
	u8 coord[TORUS_MAX_AXES];
	struct in6_addr a;

	torus_coord_to_addr6(want, &a);
	KUNIT_EXPECT_EQ(test, a.s6_addr[0], 0xfd);
	KUNIT_EXPECT_EQ(test, a.s6_addr[5], 0x73);
	KUNIT_EXPECT_EQ(test, a.s6_addr[8], 1);
	KUNIT_EXPECT_EQ(test, a.s6_addr[15], 255);
	KUNIT_ASSERT_EQ(test, torus_addr6_to_coord(&g, &a, coord), 0);
	KUNIT_EXPECT_EQ(test, memcmp(coord, want, 8), 0);

	a.s6_addr[9] = 3;	/* y = 3 on an extent of 3 */
	KUNIT_EXPECT_EQ(test, torus_addr6_to_coord(&g, &a, coord),
			-EADDRNOTAVAIL);
	a.s6_addr[9] = 2;
	a.s6_addr[6] = 1;	/* another /64 */
	KUNIT_EXPECT_EQ(test, torus_addr6_to_coord(&g, &a, coord),
			-EADDRNOTAVAIL);
	g.ndims = 2;		/* unused axes must be zero */
	torus_coord_to_addr6(stray, &a);
	KUNIT_EXPECT_EQ(test, torus_addr6_to_coord(&g, &a, coord),
			-EADDRNOTAVAIL);
}

static struct torus_rtable *torus_test_upsert(struct kunit *test,
					      struct torus_rtable *old,
					      const struct torus_route_exc *exc)
{
	struct torus_rtable *rt = torus_rtable_upsert(old, exc);

	KUNIT_ASSERT_FALSE(test, IS_ERR(rt));
	kvfree(old);
	return rt;
}

static void torus_rtable_ops(struct kunit *test)
{
	struct torus_route_exc e = { .dir = TORUS_DIR_NONE };
	const struct torus_route_exc *hit;
	struct torus_rtable *rt = NULL, *nrt;
	static const u8 keys[][TORUS_MAX_AXES] = {
		{ 3, 1 }, { 0, 2 }, { 3, 0 }, { 1, 1 }, { 0, 0, 1 },
	};
	static const u8 absent[TORUS_MAX_AXES] = { 2, 2 };
	unsigned int i;

	KUNIT_EXPECT_NULL(test, torus_rtable_lookup(NULL, keys[0]));
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		memcpy(e.dst, keys[i], TORUS_MAX_AXES);
		e.dir = i;
		rt = torus_test_upsert(test, rt, &e);
	}
	KUNIT_ASSERT_EQ(test, rt->count, (u32)ARRAY_SIZE(keys));
	for (i = 1; i < rt->count; i++)
		KUNIT_EXPECT_LT(test, memcmp(rt->exc[i - 1].dst, rt->exc[i].dst,
					     TORUS_MAX_AXES), 0);
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		hit = torus_rtable_lookup(rt, keys[i]);
		KUNIT_ASSERT_NOT_NULL(test, hit);
		KUNIT_EXPECT_EQ(test, hit->dir, (u8)i);
	}
	KUNIT_EXPECT_NULL(test, torus_rtable_lookup(rt, absent));

	/* replace keeps the count */
	memcpy(e.dst, keys[2], TORUS_MAX_AXES);
	e.dir = 9;
	rt = torus_test_upsert(test, rt, &e);
	KUNIT_EXPECT_EQ(test, rt->count, (u32)ARRAY_SIZE(keys));
	KUNIT_EXPECT_EQ(test, torus_rtable_lookup(rt, keys[2])->dir, 9);

	/* remove */
	nrt = torus_rtable_remove(rt, keys[3]);
	KUNIT_ASSERT_FALSE(test, IS_ERR(nrt));
	kvfree(rt);
	rt = nrt;
	KUNIT_EXPECT_EQ(test, rt->count, (u32)ARRAY_SIZE(keys) - 1);
	KUNIT_EXPECT_NULL(test, torus_rtable_lookup(rt, keys[3]));
	KUNIT_EXPECT_NOT_NULL(test, torus_rtable_lookup(rt, keys[4]));
	KUNIT_EXPECT_EQ(test, PTR_ERR(torus_rtable_remove(rt, keys[3])),
			(long)-ENOENT);
	kvfree(rt);
}

/* The diameter is the longest of all dimension-ordered paths. */
static void torus_diameter_is_longest_path(struct kunit *test)
{
	const struct torus_geom_case *c = test->param_value;
	u8 src[TORUS_MAX_AXES], dst[TORUS_MAX_AXES];
	unsigned int n, d, longest = 0;
	struct torus_geom g;

	torus_geom_from_case(c, &g);
	n = torus_geom_nodes(&g);
	torus_index_to_coord(&g, 0, src);
	for (d = 0; d < n; d++) {
		torus_index_to_coord(&g, d, dst);
		longest = max(longest, torus_dor_hops(&g, src, dst));
	}
	KUNIT_EXPECT_EQ(test, torus_diameter(&g), longest);
}

/*
 * A batch of n exceptions in one table build: sorted, merged with the
 * old table (the batch wins), or replacing it; duplicates refused.
 */
static void torus_rtable_batch(struct kunit *test)
{
	const unsigned int n = 1000;
	struct torus_route_exc *batch, dup[2] = {};
	struct torus_rtable *rt, *merged;
	const struct torus_route_exc *hit;
	u8 key[TORUS_MAX_AXES] = {};
	unsigned int i;

	batch = kunit_kcalloc(test, n, sizeof(*batch), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, batch);
	/* descending order, so the build has to sort */
	for (i = 0; i < n; i++) {
		batch[i].dst[0] = (n - 1 - i) % 32;
		batch[i].dst[1] = (n - 1 - i) / 32;
		batch[i].dir = TORUS_DIR(i % 2, 0);
	}
	rt = torus_rtable_build(NULL, batch, n, false, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(rt));
	KUNIT_EXPECT_EQ(test, rt->count, n);
	for (i = 1; i < rt->count; i++)
		KUNIT_ASSERT_LT(test, memcmp(rt->exc[i - 1].dst, rt->exc[i].dst,
					     TORUS_MAX_AXES), 0);
	key[0] = 5;
	key[1] = 3;
	hit = torus_rtable_lookup(rt, key);
	KUNIT_ASSERT_NOT_NULL(test, hit);

	/* merge: one old entry replaced, one added */
	batch[0] = *hit;
	batch[0].dir = TORUS_DIR(2, 1);
	memset(&batch[1], 0, sizeof(batch[1]));
	batch[1].dst[1] = 200;
	batch[1].dir = TORUS_DIR(1, 1);
	merged = torus_rtable_build(rt, batch, 2, false, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(merged));
	KUNIT_EXPECT_EQ(test, merged->count, n + 1);
	KUNIT_EXPECT_EQ(test, torus_rtable_lookup(merged, key)->dir,
			TORUS_DIR(2, 1));
	for (i = 1; i < merged->count; i++)
		KUNIT_ASSERT_LT(test, memcmp(merged->exc[i - 1].dst,
					     merged->exc[i].dst,
					     TORUS_MAX_AXES), 0);
	kvfree(merged);

	/* replace: only the batch is left */
	merged = torus_rtable_build(rt, batch, 2, true, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(merged));
	KUNIT_EXPECT_EQ(test, merged->count, 2U);
	kvfree(merged);
	KUNIT_EXPECT_NULL(test, torus_rtable_build(rt, batch, 0, true,
						   GFP_KERNEL));

	/* one destination twice */
	dup[0].dir = TORUS_DIR(0, 0);
	dup[1].dir = TORUS_DIR(0, 1);
	KUNIT_EXPECT_EQ(test, PTR_ERR(torus_rtable_build(rt, dup, 2, false,
							 GFP_KERNEL)),
			(long)-EEXIST);
	kvfree(rt);
}

/* After a geometry change only exceptions valid in it remain. */
static void torus_rtable_revalidate_geom(struct kunit *test)
{
	struct torus_route_exc batch[3] = {
		{ .dst = { 1, 1 }, .dir = TORUS_DIR(1, 0) },
		{ .dst = { 5, 0 }, .dir = TORUS_DIR(0, 0) },
		{ .dst = { 2, 0 }, .via = { 0, 6 }, .has_via = true,
		  .dir = TORUS_DIR_NONE },
	};
	struct torus_geom big = { .ndims = 2, .dims = { 8, 8 }, .wrap = 3 };
	struct torus_geom small = { .ndims = 2, .dims = { 4, 4 }, .wrap = 3 };
	struct torus_geom line = { .ndims = 1, .dims = { 8 }, .wrap = 1 };
	struct torus_rtable *rt, *out;

	rt = torus_rtable_build(NULL, batch, 3, true, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(rt));
	KUNIT_EXPECT_EQ(test, torus_rtable_revalidate(rt, NULL, &big, GFP_KERNEL,
						      &out), 0);
	KUNIT_EXPECT_NULL(test, out);
	KUNIT_EXPECT_EQ(test, torus_rtable_revalidate(rt, NULL, &small, GFP_KERNEL,
						      &out), 2);
	KUNIT_ASSERT_NOT_NULL(test, out);
	KUNIT_EXPECT_EQ(test, out->count, 1U);
	KUNIT_EXPECT_EQ(test, out->exc[0].dst[1], 1);
	kvfree(out);
	/* (1,1) leaves a line; so do the y direction and the via (0,6) */
	KUNIT_EXPECT_EQ(test, torus_rtable_revalidate(rt, NULL, &line, GFP_KERNEL,
						      &out), 2);
	KUNIT_ASSERT_NOT_NULL(test, out);
	KUNIT_EXPECT_EQ(test, out->count, 1U);
	KUNIT_EXPECT_EQ(test, out->exc[0].dst[0], 5);
	kvfree(out);
	KUNIT_EXPECT_EQ(test, torus_rtable_revalidate(NULL, NULL, &line,
						      GFP_KERNEL, &out), 0);
	kvfree(rt);
}

/*
 * An exception that names a plan keeps it only while the plan is made
 * for the node's axis count: after the extents change from 2 axes to 3,
 * the 2-axis plan no longer routes and its exception goes; DOR's stay.
 */
static void torus_rtable_revalidate_plans(struct kunit *test)
{
	struct torus_route_exc batch[2] = {
		{ .dst = { 1, 1 }, .dir = TORUS_DIR_NONE, .plan = 1,
		  .plan1 = 1 },
		{ .dst = { 2, 0 }, .dir = TORUS_DIR(0, 0) },
	};
	struct torus_geom flat = { .ndims = 2, .dims = { 4, 4 }, .wrap = 3 };
	struct torus_geom cube = { .ndims = 3, .dims = { 4, 4, 4 },
				   .wrap = 7 };
	struct torus_plans plans = { .present = BIT(0) | BIT(1) };
	struct torus_rtable *rt, *out = NULL;

	plans.plan[1].ndims = 2;
	plans.plan[1].order[0] = 1;
	rt = torus_rtable_build(NULL, batch, 2, true, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(rt));
	KUNIT_EXPECT_EQ(test, torus_rtable_revalidate(rt, &plans, &flat,
						      GFP_KERNEL, &out), 0);
	KUNIT_EXPECT_NULL(test, out);
	KUNIT_EXPECT_EQ(test, torus_rtable_revalidate(rt, &plans, &cube,
						      GFP_KERNEL, &out), 1);
	KUNIT_ASSERT_NOT_NULL(test, out);
	KUNIT_EXPECT_EQ(test, out->count, 1U);
	KUNIT_EXPECT_EQ(test, out->exc[0].plan, 0);
	kvfree(out);
	/* no plan 1 at all: the same */
	out = NULL;
	KUNIT_EXPECT_EQ(test, torus_rtable_revalidate(rt, NULL, &flat,
						      GFP_KERNEL, &out), 1);
	kvfree(out);
	kvfree(rt);
}

/* Every port of a fabric without faults: both ways on each axis that
 * has a neighbour that way (meshes end, rings of one have none).
 */
static u16 torus_test_usable(const struct torus_geom *g, const u8 *cur)
{
	unsigned int axis;
	u16 usable = 0;

	for (axis = 0; axis < g->ndims; axis++) {
		if (g->dims[axis] < 2)
			continue;
		if ((g->wrap & BIT(axis)) || cur[axis] + 1 < g->dims[axis])
			usable |= BIT(TORUS_DIR(axis, 0));
		if ((g->wrap & BIT(axis)) || cur[axis] > 0)
			usable |= BIT(TORUS_DIR(axis, 1));
	}
	return usable;
}

/* One routing decision at @g->coord, every port up. */
static u8 torus_test_route(const struct torus_geom *g,
			   const struct torus_rtable *rt,
			   const struct torus_plans *plans,
			   struct torus_hdr *h, bool at_source, u8 in_dir,
			   u8 *why)
{
	struct torus_route_ctx ctx = {
		.g = g, .rt = rt, .plans = plans,
		.usable = torus_test_usable(g, g->coord),
		.in_dir = in_dir, .at_source = at_source,
	};

	return torus_route(&ctx, h, why);
}

/* Lambs' two rounds: to the intermediate node first, then on. */
static void torus_route_exceptions(struct kunit *test)
{
	struct torus_geom g = { .ndims = 2, .dims = { 4, 4 }, .wrap = 0x3 };
	struct torus_route_exc e = { .dst = { 2, 0 }, .via = { 0, 1 },
				     .has_via = true,
				     .dir = TORUS_DIR_NONE };
	static const u8 origin[TORUS_MAX_AXES];
	struct torus_rtable *rt;
	struct torus_hdr h;
	u8 dir, why;

	rt = torus_rtable_upsert(NULL, &e);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rt));

	/* at the source (0,0): towards via (0,1), +y, round 0 */
	torus_hdr_init(&h, TORUS_T_DATA, 0, g.coord, e.dst, 8);
	dir = torus_test_route(&g, rt, NULL, &h, true, TORUS_DIR_NONE, &why);
	KUNIT_EXPECT_EQ(test, dir, TORUS_DIR(1, 0));
	KUNIT_EXPECT_EQ(test, why, TORUS_WHY_EXCEPTION);
	KUNIT_EXPECT_TRUE(test, h.flags & TORUS_F_VIA);
	KUNIT_EXPECT_EQ(test, h.vc, TORUS_VC(0, 0, 0));

	/* at the intermediate node: round two, x first */
	g.coord[1] = 1;
	dir = torus_test_route(&g, rt, NULL, &h, false, TORUS_DIR(1, 1),
			       &why);
	KUNIT_EXPECT_EQ(test, dir, TORUS_DIR(0, 0));
	KUNIT_EXPECT_FALSE(test, h.flags & TORUS_F_VIA);
	KUNIT_EXPECT_EQ(test, h.vc, TORUS_VC(0, 1, 0));

	/* a transit node does not start a via round of its own */
	g.coord[0] = 1;
	g.coord[1] = 3;
	torus_hdr_init(&h, TORUS_T_DATA, 0, origin, e.dst, 8);
	dir = torus_test_route(&g, rt, NULL, &h, false, TORUS_DIR(0, 1),
			       &why);
	KUNIT_EXPECT_EQ(test, why, TORUS_WHY_DOR);
	KUNIT_EXPECT_EQ(test, dir, TORUS_DIR(0, 0));
	kvfree(rt);

	/* a dir exception overrides DOR at any node */
	e.has_via = false;
	e.dir = TORUS_DIR(1, 1);
	rt = torus_rtable_upsert(NULL, &e);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rt));
	dir = torus_test_route(&g, rt, NULL, &h, false, TORUS_DIR(0, 1),
			       &why);
	KUNIT_EXPECT_EQ(test, why, TORUS_WHY_EXCEPTION);
	KUNIT_EXPECT_EQ(test, dir, TORUS_DIR(1, 1));
	/* ...but not at the destination itself */
	memcpy(g.coord, e.dst, TORUS_MAX_AXES);
	KUNIT_EXPECT_EQ(test, torus_test_route(&g, rt, NULL, &h, false,
					       TORUS_DIR(0, 1), &why),
			TORUS_DIR_NONE);
	KUNIT_EXPECT_EQ(test, why, TORUS_WHY_LOCAL);
	kvfree(rt);
}

/* Each round its own plan: round 1's rides in the flags to the via. */
static void torus_route_plan_per_round(struct kunit *test)
{
	struct torus_geom g = { .ndims = 2, .dims = { 4, 4 } };
	struct torus_route_exc e = { .dst = { 2, 2 }, .via = { 2, 0 },
				     .has_via = true, .dir = TORUS_DIR_NONE,
				     .plan = 1, .plan1 = 2 };
	struct torus_plans plans = { .present = BIT(1) | BIT(2) };
	struct torus_rtable *rt;
	struct torus_hdr h;
	u8 why;

	plans.plan[1] = (struct torus_plan){ .ndims = 2, .order = { 0, 1 } };
	plans.plan[2] = (struct torus_plan){ .ndims = 2, .order = { 1, 0 } };
	rt = torus_rtable_upsert(NULL, &e);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rt));
	torus_hdr_init(&h, TORUS_T_DATA, htons(ETH_P_IP), g.coord, e.dst,
		       8);
	KUNIT_EXPECT_EQ(test, torus_test_route(&g, rt, &plans, &h, true,
					       TORUS_DIR_NONE, &why),
			TORUS_DIR(0, 0));
	KUNIT_EXPECT_EQ(test, h.vc, TORUS_VC(1, 0, 0));
	KUNIT_EXPECT_EQ(test, h.flags >> TORUS_F_PLAN1_SHIFT, 2);
	KUNIT_EXPECT_EQ(test, torus_hdr_check(&h, &g), TORUS_PASS);
	/* at the intermediate (2,0): plan 2, round 1, flags clean */
	g.coord[0] = 2;
	KUNIT_EXPECT_EQ(test, torus_test_route(&g, NULL, &plans, &h, false,
					       TORUS_DIR(0, 1), &why),
			TORUS_DIR(1, 0));
	KUNIT_EXPECT_EQ(test, h.vc, TORUS_VC(2, 1, 0));
	KUNIT_EXPECT_EQ(test, h.flags, 0);
	/* a round-1 plan without a via round is malformed */
	h.flags = 2 << TORUS_F_PLAN1_SHIFT;
	KUNIT_EXPECT_EQ(test, torus_hdr_check(&h, &g), TORUS_DROP_MALFORMED);
	kvfree(rt);
}

/* An exception's plan is set at the source; a missing plan is refused. */
static void torus_route_exception_plan(struct kunit *test)
{
	struct torus_geom g = { .ndims = 2, .dims = { 4, 4 }, .wrap = 0x3 };
	struct torus_route_exc e = { .dst = { 1, 1 }, .dir = TORUS_DIR_NONE,
				     .plan = 3 };
	struct torus_plans plans = { .present = BIT(3) };
	struct torus_rtable *rt;
	struct torus_hdr h;
	u8 why;

	plans.plan[3] = (struct torus_plan){ .ndims = 2, .order = { 1, 0 } };
	rt = torus_rtable_upsert(NULL, &e);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rt));
	torus_hdr_init(&h, TORUS_T_DATA, 0, g.coord, e.dst, 8);
	/* plan 3: y first */
	KUNIT_EXPECT_EQ(test, torus_test_route(&g, rt, &plans, &h, true,
					       TORUS_DIR_NONE, &why),
			TORUS_DIR(1, 0));
	KUNIT_EXPECT_EQ(test, why, TORUS_WHY_EXCEPTION);
	KUNIT_EXPECT_EQ(test, TORUS_VC_PLAN(h.vc), 3);
	/* a transit node without plan 3 cannot route the frame */
	g.coord[1] = 1;
	KUNIT_EXPECT_EQ(test, torus_test_route(&g, NULL, NULL, &h, false,
					       TORUS_DIR(1, 1), &why),
			TORUS_ROUTE_NO_PLAN);
	/* nor one whose plan 3 was made for another geometry */
	plans.plan[3].ndims = 3;
	KUNIT_EXPECT_EQ(test, torus_test_route(&g, NULL, &plans, &h, false,
					       TORUS_DIR(1, 1), &why),
			TORUS_ROUTE_NO_PLAN);
	kvfree(rt);
}

/* The hops plan @p takes on @axis from @s to @d, computed apart. */
static unsigned int torus_test_plan_axis_hops(const struct torus_geom *g,
					      const struct torus_plan *p,
					      unsigned int axis, int s, int d)
{
	int ext = g->dims[axis];
	int up = ((d - s) % ext + ext) % ext;

	if (!(g->wrap & BIT(axis)))
		return abs(d - s);
	if (p->policy[axis] == TORUS_PLAN_PLUS)
		return up;
	if (p->policy[axis] == TORUS_PLAN_MINUS)
		return (ext - up) % ext;
	return min(up, ext - up);
}

/* Plans to walk: reversed order, fixed ring directions, mixed. */
static void torus_test_plans(const struct torus_geom *g,
			     struct torus_plans *plans)
{
	unsigned int i, axis;

	memset(plans, 0, sizeof(*plans));
	plans->present = BIT(1) | BIT(2) | BIT(3);
	for (i = 1; i <= 3; i++) {
		struct torus_plan *p = &plans->plan[i];

		p->ndims = g->ndims;
		for (axis = 0; axis < g->ndims; axis++) {
			p->order[axis] = i == 2 ? axis : g->ndims - 1 - axis;
			p->policy[axis] = i == 1 ? TORUS_PLAN_PLUS :
					  i == 2 ? TORUS_PLAN_MINUS :
					  axis % 3;
		}
	}
}

/*
 * Every plan, every pair: the walk arrives in exactly the plan's hop
 * count, never leaves a mesh, corrects the axes in the plan's order and
 * keeps the plan in its vc.
 */
static void torus_plan_all_pairs(struct kunit *test)
{
	const struct torus_geom_case *c = test->param_value;
	u8 src[TORUS_MAX_AXES], dst[TORUS_MAX_AXES];
	struct torus_plans plans;
	unsigned int n, s, d, pi;
	struct torus_geom g;

	torus_geom_from_case(c, &g);
	torus_test_plans(&g, &plans);
	n = torus_geom_nodes(&g);
	for (pi = 0; pi <= 3; pi++) {
		const struct torus_plan *p = torus_plan_get(&plans, pi);
		struct torus_route_exc e = { .dir = TORUS_DIR_NONE,
					     .plan = pi };

		for (s = 0; s < n; s++) {
			torus_index_to_coord(&g, s, src);
			for (d = 0; d < n; d++) {
				unsigned int hops = 0, want = 0, pos = 0, i;
				struct torus_rtable *rt = NULL;
				struct torus_hdr h;
				u8 dir, why, in = TORUS_DIR_NONE;

				torus_index_to_coord(&g, d, dst);
				for (i = 0; i < g.ndims; i++)
					want += torus_test_plan_axis_hops(&g, p, i,
									  src[i],
									  dst[i]);
				memcpy(e.dst, dst, TORUS_MAX_AXES);
				if (pi && s != d) {
					rt = torus_rtable_upsert(NULL, &e);
					KUNIT_ASSERT_FALSE(test, IS_ERR(rt));
				}
				memcpy(g.coord, src, TORUS_MAX_AXES);
				torus_hdr_init(&h, TORUS_T_DATA, 0, src, dst,
					       255);
				while ((dir = torus_test_route(&g, rt, &plans,
							       &h, !hops, in,
							       &why)) !=
				       TORUS_DIR_NONE) {
					KUNIT_ASSERT_LT(test, dir,
							(u8)TORUS_MAX_DIRS);
					while (pos < g.ndims &&
					       p->order[pos] != TORUS_DIR_AXIS(dir))
						pos++;
					KUNIT_ASSERT_LT(test, pos,
							(unsigned int)g.ndims);
					KUNIT_ASSERT_EQ(test,
							TORUS_VC_PLAN(h.vc), pi);
					KUNIT_ASSERT_TRUE(test,
							  torus_step(&g, g.coord,
								     dir));
					in = TORUS_DIR_OPPOSITE(dir);
					KUNIT_ASSERT_LE(test, ++hops, want);
				}
				kvfree(rt);
				KUNIT_EXPECT_EQ(test, hops, want);
				KUNIT_EXPECT_FALSE(test, h.flags & TORUS_F_DETOUR);
			}
		}
	}
}

struct torus_vc_case {
	const char *name;
	u8 ndims;
	u16 dims[TORUS_MAX_AXES];
	u8 wrap;
	u8 policy;		/* on every axis */
	u8 src[TORUS_MAX_AXES];
	u8 dst[TORUS_MAX_AXES];
	bool has_via;
	u8 via[TORUS_MAX_AXES];
	u8 vc[8];		/* on each hop, in order */
	unsigned int hops;
};

#define VC TORUS_VC
static const struct torus_vc_case torus_vc_cases[] = {
	/* 5 6 7 | 0 1 2: the wrap cable 7-0 sets the dateline */
	{ "plus_crosses_wrap", 1, { 8 }, 0x1, TORUS_PLAN_PLUS, { 5 }, { 2 },
	  false, {}, { VC(1, 0, 0), VC(1, 0, 0), VC(1, 0, 1), VC(1, 0, 1),
		       VC(1, 0, 1) }, 5 },
	{ "minus_crosses_wrap", 1, { 8 }, 0x1, TORUS_PLAN_MINUS, { 1 }, { 6 },
	  false, {}, { VC(1, 0, 0), VC(1, 0, 1), VC(1, 0, 1) }, 3 },
	{ "no_wrap_no_dateline", 1, { 8 }, 0x1, TORUS_PLAN_PLUS, { 1 }, { 4 },
	  false, {}, { VC(1, 0, 0), VC(1, 0, 0), VC(1, 0, 0) }, 3 },
	/* x: 2 3 | 0 crosses; turning to y clears it */
	{ "axis_change_clears", 2, { 4, 4 }, 0x3, TORUS_PLAN_SHORTEST,
	  { 2, 0 }, { 0, 1 }, false, {},
	  { VC(1, 0, 0), VC(1, 0, 1), VC(1, 0, 0) }, 3 },
	/* a mesh has no wrap cable */
	{ "mesh_never", 2, { 4, 4 }, 0x0, TORUS_PLAN_SHORTEST,
	  { 3, 0 }, { 0, 3 }, false, {},
	  { VC(1, 0, 0), VC(1, 0, 0), VC(1, 0, 0), VC(1, 0, 0),
	    VC(1, 0, 0), VC(1, 0, 0) }, 6 },
	/* round 0 to via 6 across 0-7, round 1 starts clean, crosses again */
	{ "via_rounds", 1, { 8 }, 0x1, TORUS_PLAN_SHORTEST, { 0 }, { 2 },
	  true, { 6 }, { VC(1, 0, 1), VC(1, 0, 1), VC(1, 1, 0), VC(1, 1, 1),
			 VC(1, 1, 1), VC(1, 1, 1) }, 6 },
};

#undef VC

static void torus_vc_case_desc(const struct torus_vc_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(torus_vc, torus_vc_cases, torus_vc_case_desc);

/* vc = plan * 4 + round * 2 + dateline, hop by hop. */
static void torus_vc_dateline(struct kunit *test)
{
	const struct torus_vc_case *c = test->param_value;
	struct torus_geom g = { .ndims = c->ndims, .wrap = c->wrap };
	struct torus_route_exc e = { .dir = TORUS_DIR_NONE, .plan = 1,
				     .plan1 = 1, .has_via = c->has_via };
	struct torus_plans plans = { .present = BIT(1) };
	u8 dir, why, in = TORUS_DIR_NONE;
	struct torus_rtable *rt;
	unsigned int hops = 0, axis;
	struct torus_hdr h;

	memcpy(g.dims, c->dims, sizeof(g.dims));
	memcpy(g.coord, c->src, TORUS_MAX_AXES);
	plans.plan[1].ndims = c->ndims;
	for (axis = 0; axis < c->ndims; axis++) {
		plans.plan[1].order[axis] = axis;
		plans.plan[1].policy[axis] = c->policy;
	}
	memcpy(e.dst, c->dst, TORUS_MAX_AXES);
	memcpy(e.via, c->via, TORUS_MAX_AXES);
	rt = torus_rtable_upsert(NULL, &e);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rt));
	torus_hdr_init(&h, TORUS_T_DATA, 0, c->src, c->dst, 255);
	while ((dir = torus_test_route(&g, rt, &plans, &h, !hops, in,
				       &why)) != TORUS_DIR_NONE) {
		KUNIT_ASSERT_LT(test, hops, c->hops);
		KUNIT_EXPECT_EQ_MSG(test, h.vc, c->vc[hops], "hop %u", hops);
		KUNIT_ASSERT_TRUE(test, torus_step(&g, g.coord, dir));
		in = TORUS_DIR_OPPOSITE(dir);
		hops++;
	}
	KUNIT_EXPECT_EQ(test, hops, c->hops);
	kvfree(rt);
}

/* Is the cable leaving @cur by @dir the cut one (either end)? */
static bool torus_test_is_cut(const struct torus_geom *g, const u8 *cur,
			      u8 dir, const u8 *cut_at, u8 cut_dir)
{
	u8 far[TORUS_MAX_AXES];

	if (dir == cut_dir && !memcmp(cur, cut_at, TORUS_MAX_AXES))
		return true;
	if (dir != TORUS_DIR_OPPOSITE(cut_dir))
		return false;
	memcpy(far, cut_at, TORUS_MAX_AXES);
	return torus_step(g, far, cut_dir) &&
	       !memcmp(far, cur, TORUS_MAX_AXES);
}

/*
 * Walk from @src to @dst with the cable at @cut_at, @cut_dir cut.
 * Return: hops taken, or -1 if a node had no way on (the frame would be
 * dropped as link_down).
 */
static int torus_test_walk_cut(struct kunit *test, struct torus_geom *g,
			       const u8 *src, const u8 *dst, const u8 *cut_at,
			       u8 cut_dir, struct torus_hdr *h)
{
	u8 dir, why, in = TORUS_DIR_NONE;
	int hops = 0;

	memcpy(g->coord, src, TORUS_MAX_AXES);
	torus_hdr_init(h, TORUS_T_DATA, 0, src, dst, 255);
	for (;;) {
		struct torus_route_ctx ctx = {
			.g = g, .in_dir = in, .at_source = !hops,
			.usable = torus_test_usable(g, g->coord),
		};
		unsigned int d;

		for (d = 0; d < 2 * g->ndims; d++)
			if (torus_test_is_cut(g, g->coord, d, cut_at, cut_dir))
				ctx.usable &= ~BIT(d);
		dir = torus_route(&ctx, h, &why);
		if (dir == TORUS_DIR_NONE)
			return hops;
		if (!(ctx.usable & BIT(dir)))
			return -1;
		if (!torus_step(g, g->coord, dir) || ++hops > 255)
			return -2;
		in = TORUS_DIR_OPPOSITE(dir);
	}
}

static const struct torus_geom_case torus_detour_geoms[] = {
	{ "mesh4x4", 2, { 4, 4 }, 0x0 },
	{ "torus4x4", 2, { 4, 4 }, 0x3 },
	{ "mesh3x3x3", 3, { 3, 3, 3 }, 0x0 },
	{ "torus4x4x4", 3, { 4, 4, 4 }, 0x7 },
	{ "mixed4x3x5", 3, { 4, 3, 5 }, 0x5 },
	{ "torus2x2x2", 3, { 2, 2, 2 }, 0x7 },
	{ "mesh2x3x2x2", 4, { 2, 3, 2, 2 }, 0x0 },
};

KUNIT_ARRAY_PARAM(torus_detour_geom, torus_detour_geoms, torus_geom_case_desc);

/*
 * One cable cut, before any route is installed: every pair still
 * arrives, pairs whose DOR path avoids the cable take it unchanged, and
 * a detoured frame takes at most its distance + 2 * (ndims - 1) hops.
 */
static void torus_detour_one_cut(struct kunit *test)
{
	const struct torus_geom_case *c = test->param_value;
	u8 src[TORUS_MAX_AXES], dst[TORUS_MAX_AXES], cut[TORUS_MAX_AXES];
	unsigned int n, s, d, k, detoured = 0;
	struct torus_geom g;
	struct torus_hdr h;

	torus_geom_from_case(c, &g);
	n = torus_geom_nodes(&g);
	/* a spread of cables: node k * 5, axis k % ndims, both signs */
	for (k = 0; k < 12; k++) {
		u8 cut_dir = TORUS_DIR(k % g.ndims, (k / g.ndims) & 1);

		torus_index_to_coord(&g, (k * 5) % n, cut);
		memcpy(g.coord, cut, TORUS_MAX_AXES);
		if (!(torus_test_usable(&g, cut) & BIT(cut_dir)))
			continue;
		for (s = 0; s < n; s++) {
			torus_index_to_coord(&g, s, src);
			for (d = 0; d < n; d++) {
				unsigned int want;
				int hops;

				torus_index_to_coord(&g, d, dst);
				want = torus_dor_hops(&g, src, dst);
				hops = torus_test_walk_cut(test, &g, src, dst,
							   cut, cut_dir, &h);
				KUNIT_ASSERT_GE_MSG(test, hops, 0,
						    "cut %u dir %u pair %u->%u",
						    k, cut_dir, s, d);
				KUNIT_EXPECT_LE(test, hops,
						(int)(want + 2 * (g.ndims - 1)));
				if (!(h.flags & TORUS_F_DETOUR))
					KUNIT_EXPECT_EQ(test, hops, (int)want);
				detoured += !!(h.flags & TORUS_F_DETOUR);
			}
		}
	}
	KUNIT_EXPECT_GT(test, detoured, 0U);
}

/* Which way a detour goes, step by step. */
static void torus_detour_choices(struct kunit *test)
{
	struct torus_geom g = { .ndims = 2, .dims = { 3, 3 } };
	static const u8 dst_diag[TORUS_MAX_AXES] = { 2, 2 };
	static const u8 dst_row[TORUS_MAX_AXES] = { 2, 0 };
	static const u8 top[TORUS_MAX_AXES] = { 2, 2 };
	const struct torus_plan *dor = torus_plan_get(NULL, 0);
	struct torus_hdr h;
	u16 usable;

	/* +x cut at (0,0), to (2,2): +y is productive, no axis spent */
	torus_hdr_init(&h, TORUS_T_DATA, 0, g.coord, dst_diag, 8);
	usable = torus_test_usable(&g, g.coord) & ~BIT(TORUS_DIR(0, 0));
	KUNIT_EXPECT_EQ(test, torus_detour_dir(&g, dor, &h, TORUS_DIR(0, 0),
					       usable), TORUS_DIR(1, 0));
	KUNIT_EXPECT_EQ(test, h.traversed, 0);
	KUNIT_EXPECT_TRUE(test, h.flags & TORUS_F_DETOUR);

	/* to (2,0): nothing productive; a non-minimal +y spends y */
	torus_hdr_init(&h, TORUS_T_DATA, 0, g.coord, dst_row, 8);
	KUNIT_EXPECT_EQ(test, torus_detour_dir(&g, dor, &h, TORUS_DIR(0, 0),
					       usable), TORUS_DIR(1, 0));
	KUNIT_EXPECT_EQ(test, h.traversed, BIT(1));
	/* y spent: no second non-minimal step on it */
	KUNIT_EXPECT_EQ(test, torus_detour_dir(&g, dor, &h, TORUS_DIR(0, 0),
					       usable), TORUS_DIR_NONE);

	/* at the mesh's corner (2,2) going -x to (0,2): only -y is there */
	memcpy(g.coord, top, TORUS_MAX_AXES);
	torus_hdr_init(&h, TORUS_T_DATA, 0, g.coord, g.coord, 8);
	h.dst[0] = 0;
	usable = torus_test_usable(&g, g.coord) & ~BIT(TORUS_DIR(0, 1));
	KUNIT_EXPECT_EQ(test, torus_detour_dir(&g, dor, &h, TORUS_DIR(0, 1),
					       usable), TORUS_DIR(1, 1));

	/* a ring where both ways are as long: either is productive */
	g.wrap = 0x3;
	g.dims[0] = 4;
	g.dims[1] = 4;
	memset(g.coord, 0, TORUS_MAX_AXES);
	torus_hdr_init(&h, TORUS_T_DATA, 0, g.coord, g.coord, 8);
	h.dst[0] = 1;
	h.dst[1] = 2;
	usable = torus_test_usable(&g, g.coord) &
		 ~(BIT(TORUS_DIR(0, 0)) | BIT(TORUS_DIR(1, 0)));
	KUNIT_EXPECT_EQ(test, torus_detour_dir(&g, dor, &h, TORUS_DIR(0, 0),
					       usable), TORUS_DIR(1, 1));
	KUNIT_EXPECT_EQ(test, h.traversed, 0);

	/* a line has no other axis: no detour, the caller drops */
	g.ndims = 1;
	memset(g.coord, 0, TORUS_MAX_AXES);
	torus_hdr_init(&h, TORUS_T_DATA, 0, g.coord, dst_row, 8);
	KUNIT_EXPECT_EQ(test, torus_detour_dir(&g, dor, &h, TORUS_DIR(0, 0),
					       0), TORUS_DIR_NONE);
	KUNIT_EXPECT_FALSE(test, h.flags & TORUS_F_DETOUR);
}

/* Time @rounds lookups of every key; ns per lookup. */
static u64 torus_test_time_lookups(const struct torus_rtable *rt,
				   const struct torus_route_exc *keys,
				   u32 nkeys, unsigned int rounds,
				   unsigned int *found)
{
	unsigned int r, i;
	u64 t0 = ktime_get_ns();

	*found = 0;
	for (r = 0; r < rounds; r++)
		for (i = 0; i < nkeys; i++)
			*found += !!torus_rtable_lookup(rt, keys[i].dst);
	return div_u64(ktime_get_ns() - t0, rounds * nkeys);
}

#define TORUS_TEST_BIG 40000

/*
 * The table of a node in a 256x256 fabric with 40,000 exceptions (3%
 * dead nodes): every one is found, nothing else is, and a lookup costs
 * about what it costs in a table of 64 (hashing is O(1)).
 */
static void torus_rtable_large(struct kunit *test)
{
	struct torus_route_exc *batch, *keys;
	struct torus_rtable *big, *small;
	unsigned int i, found, absent = 0;
	u64 t0, build_ns, ns_small, ns_big;
	u8 missing[TORUS_MAX_AXES] = {};

	batch = kvcalloc(TORUS_TEST_BIG, sizeof(*batch), GFP_KERNEL);
	keys = kvcalloc(TORUS_TEST_BIG, sizeof(*keys), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, batch);
	KUNIT_ASSERT_NOT_NULL(test, keys);
	for (i = 0; i < TORUS_TEST_BIG; i++) {
		/* a scattered, duplicate-free set of destinations */
		u32 node = (i * 40503u) & 0xffff;

		batch[i].dst[0] = node & 0xff;
		batch[i].dst[1] = node >> 8;
		batch[i].dir = TORUS_DIR(i & 1, 0);
		batch[i].plan = i & 7;
	}
	memcpy(keys, batch, TORUS_TEST_BIG * sizeof(*keys));
	t0 = ktime_get_ns();
	big = torus_rtable_build(NULL, batch, TORUS_TEST_BIG, true,
				 GFP_KERNEL);
	build_ns = ktime_get_ns() - t0;
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(big));
	small = torus_rtable_build(NULL, batch, 64, true, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(small));

	for (i = 0; i < TORUS_TEST_BIG; i++) {
		const struct torus_route_exc *e;

		e = torus_rtable_lookup(big, keys[i].dst);
		KUNIT_ASSERT_NOT_NULL(test, e);
		KUNIT_ASSERT_EQ(test, e->plan, keys[i].plan);
		KUNIT_ASSERT_EQ(test, e->dir, keys[i].dir);
	}
	for (i = 0; i < 0x10000; i++) {
		missing[0] = i & 0xff;
		missing[1] = i >> 8;
		absent += !torus_rtable_lookup(big, missing);
	}
	KUNIT_EXPECT_EQ(test, absent, 0x10000U - TORUS_TEST_BIG);

	ns_small = torus_test_time_lookups(small, small->exc, 64, 2000,
					   &found);
	KUNIT_EXPECT_EQ(test, found, 64U * 2000);
	ns_big = torus_test_time_lookups(big, keys, TORUS_TEST_BIG, 3, &found);
	KUNIT_EXPECT_EQ(test, found, 3U * TORUS_TEST_BIG);
	kunit_info(test,
		   "build of %u exceptions: %llu us; lookup: %llu ns in a table of 64, %llu ns in one of %u\n",
		   TORUS_TEST_BIG, div_u64(build_ns, 1000), ns_small, ns_big,
		   TORUS_TEST_BIG);
	kvfree(small);
	kvfree(big);
	kvfree(keys);
	kvfree(batch);
}

/* Packed records follow the rules of TORUS_A_ROUTE nests. */
static void torus_exc_rec_rules(struct kunit *test)
{
	const struct torus_geom g = { .ndims = 2, .dims = { 4, 4 },
				      .wrap = 0x3 };
	const struct torus_exc_rec ok_via = {
		.dst = { 3, 2 }, .via = { 1, 1 }, .plan = 1, .plan1 = 2,
		.dir = TORUS_DIR_NONE, .flags = TORUS_EXC_REC_VIA,
	};
	const struct torus_exc_rec bad[] = {
		{ .dst = { 3, 2 }, .dir = TORUS_DIR_NONE },	/* no change */
		{ .dst = { 3, 2 }, .dir = TORUS_DIR(0, 0), .flags = 0x2 },
		{ .dst = { 3, 2 }, .dir = TORUS_DIR(0, 0),
		  .flags = TORUS_EXC_REC_VIA },		/* via and dir */
		{ .dst = { 3, 2 }, .dir = TORUS_DIR(0, 0), .plan1 = 1 },
		{ .dst = { 3, 2 }, .dir = TORUS_DIR(2, 0) },	/* no axis z */
		{ .dst = { 4, 2 }, .dir = TORUS_DIR(0, 0) },	/* outside */
		{ .dst = { 3, 2 }, .via = { 0, 9 }, .dir = TORUS_DIR_NONE,
		  .flags = TORUS_EXC_REC_VIA },
		{ .dst = { 3, 2 }, .dir = TORUS_DIR_NONE,
		  .plan = TORUS_MAX_PLANS },
	};
	struct torus_exc_rec dir_only = {
		.dst = { 0, 3 }, .dir = TORUS_DIR(1, 1),
	};
	struct torus_route_exc exc;
	unsigned int i;

	KUNIT_EXPECT_NULL(test, torus_exc_from_rec(&ok_via, &g, &exc));
	KUNIT_EXPECT_TRUE(test, exc.has_via);
	KUNIT_EXPECT_EQ(test, exc.via[1], 1);
	KUNIT_EXPECT_EQ(test, exc.plan, 1);
	KUNIT_EXPECT_EQ(test, exc.plan1, 2);
	KUNIT_EXPECT_NULL(test, torus_exc_from_rec(&dir_only, &g, &exc));
	KUNIT_EXPECT_FALSE(test, exc.has_via);
	KUNIT_EXPECT_EQ(test, exc.dir, TORUS_DIR(1, 1));
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_NOT_NULL_MSG(test,
					  torus_exc_from_rec(&bad[i], &g, &exc),
					  "record %u accepted", i);
}

static void torus_rtable_free_build(struct torus_rtable *rt)
{
	if (!IS_ERR_OR_NULL(rt))
		kvfree(rt);
}

/* Append an attribute at *@p; returns it (a nest's length is fixed later). */
static struct nlattr *torus_test_put(u8 **p, u16 type, const void *data,
				     int len)
{
	struct nlattr *nla = (struct nlattr *)*p;

	nla->nla_type = type;
	nla->nla_len = nla_attr_size(len);
	if (data)
		memcpy(nla_data(nla), data, len);
	memset((u8 *)nla + nla->nla_len, 0, nla_total_size(len) - nla->nla_len);
	*p += nla_total_size(len);
	return nla;
}

static void torus_test_put_coord(u8 **p, u16 type, const u8 *c)
{
	struct nlattr *nest = torus_test_put(p, type | NLA_F_NESTED, NULL, 0);
	u32 v;
	int a;

	for (a = 0; a < 2; a++) {
		v = c[a];
		torus_test_put(p, a + 1, &v, sizeof(v));
	}
	nest->nla_len = *p - (u8 *)nest;
}

/* The request of @n via exceptions, as nests or as packed records. */
static int torus_test_request(u8 *buf, const struct torus_route_exc *exc,
			      u32 n, bool packed)
{
	u8 *p = buf;
	u32 i, k;

	for (i = 0; i < n && packed; i += k) {
		u32 chunk = min_t(u32, n - i, TORUS_EXC_RECS_PER_ATTR);
		struct torus_exc_rec *rec;
		struct nlattr *nla;

		nla = torus_test_put(&p, TORUS_A_ROUTES_PACKED, NULL,
				     chunk * sizeof(*rec));
		rec = nla_data(nla);
		memset(rec, 0, chunk * sizeof(*rec));
		for (k = 0; k < chunk; k++) {
			memcpy(rec[k].dst, exc[i + k].dst, TORUS_MAX_AXES);
			memcpy(rec[k].via, exc[i + k].via, TORUS_MAX_AXES);
			rec[k].plan = exc[i + k].plan;
			rec[k].plan1 = exc[i + k].plan1;
			rec[k].dir = TORUS_DIR_NONE;
			rec[k].flags = TORUS_EXC_REC_VIA;
		}
	}
	for (i = 0; i < n && !packed; i++) {
		struct nlattr *nest;

		nest = torus_test_put(&p, TORUS_A_ROUTE | NLA_F_NESTED, NULL, 0);
		torus_test_put_coord(&p, TORUS_ROUTE_A_DST, exc[i].dst);
		torus_test_put_coord(&p, TORUS_ROUTE_A_VIA, exc[i].via);
		torus_test_put(&p, TORUS_ROUTE_A_PLAN, &exc[i].plan, 1);
		torus_test_put(&p, TORUS_ROUTE_A_PLAN1, &exc[i].plan1, 1);
		nest->nla_len = p - (u8 *)nest;
	}
	return p - buf;
}

/*
 * A batch refused while it is parsed leaves nothing for the caller to
 * free: the handler frees what it is given, so a freed array handed
 * back was freed twice (a panic in the VM's route batch error cases).
 */
static void torus_route_batch_parse_error_frees_once(struct kunit *test)
{
	const struct torus_geom g = { .ndims = 2, .dims = { 4, 4 },
				      .wrap = 0x3 };
	struct torus_route_exc exc[3] = { };
	struct torus_route_exc *batch = (void *)1;
	struct torus_exc_rec *rec;
	u8 buf[512];
	int len, form, err;
	u32 i, n = 0;

	for (i = 0; i < 3; i++) {
		exc[i].dst[0] = i;
		exc[i].has_via = true;
		exc[i].dir = TORUS_DIR_NONE;
	}
	for (form = 0; form < 2; form++) {
		len = torus_test_request(buf, exc, 3, form);
		if (form) {
			/* the last packed record has an unknown flag */
			rec = nla_data((struct nlattr *)buf);
			rec[2].flags |= 0x80;
		} else {
			/* the last nest names a node beyond the extents */
			exc[2].dst[0] = 9;
			len = torus_test_request(buf, exc, 3, form);
			exc[2].dst[0] = 2;
		}
		batch = (void *)1;
		err = torus_nl_route_batch_parse((void *)buf, len, &g, &batch,
						 &n, NULL);
		KUNIT_EXPECT_LT(test, err, 0);
		KUNIT_EXPECT_PTR_EQ(test, batch, NULL);
	}
}

/*
 * What a ROUTE_BATCH of 40,000 via exceptions costs the kernel once it
 * has the message: the policy check genetlink makes, parsing, and the
 * table's build (hash; no sort: the batch is in order, as torusd sends
 * it) and swap; TORUS_A_ROUTE nests (the tool's request) beside packed
 * records (torusd's), best of three each, alternated.  The tables built
 * are the same.
 */
static void torus_route_batch_install_bench(struct kunit *test)
{
	const struct torus_geom g = { .ndims = 2, .dims = { 256, 256 },
				      .wrap = 0x3 };
	u64 best_parse[2] = { U64_MAX, U64_MAX };
	u64 best_build[2] = { U64_MAX, U64_MAX };
	struct torus_rtable __rcu *live = NULL;
	struct torus_route_exc *exc, *batch;
	int len[2], round, form;
	struct torus_rtable *rt;
	u8 *req[2];
	u32 i, n;

	exc = kvcalloc(TORUS_TEST_BIG, sizeof(*exc), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, exc);
	for (i = 0; i < TORUS_TEST_BIG; i++) {
		u32 node = (i * 40503u) & 0xffff;

		exc[i].dst[0] = node & 0xff;
		exc[i].dst[1] = node >> 8;
		exc[i].via[0] = exc[i].dst[0];
		exc[i].has_via = true;
		exc[i].dir = TORUS_DIR_NONE;
		exc[i].plan = i & 3;
		exc[i].plan1 = (i >> 2) & 3;
	}
	/* in order, as torusd sends them */
	torus_rtable_free_build(torus_rtable_build(NULL, exc, TORUS_TEST_BIG,
						   true, GFP_KERNEL));
	for (form = 0; form < 2; form++) {
		req[form] = kvmalloc(TORUS_TEST_BIG * 96, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, req[form]);
		len[form] = torus_test_request(req[form], exc, TORUS_TEST_BIG,
					       form);
	}
	for (round = 0; round < 3; round++) {
		for (form = 0; form < 2; form++) {
			const struct nlattr *head = (void *)req[form];
			u64 t0 = ktime_get_ns(), t1;
			int err;

			err = torus_nl_validate_request(head, len[form], NULL);
			KUNIT_ASSERT_EQ(test, err, 0);
			err = torus_nl_route_batch_parse(head, len[form], &g,
							 &batch, &n, NULL);
			KUNIT_ASSERT_EQ(test, err, 0);
			KUNIT_ASSERT_EQ(test, n, TORUS_TEST_BIG);
			t1 = ktime_get_ns();
			rt = torus_rtable_build(NULL, batch, n, true,
						GFP_KERNEL);
			KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(rt));
			/* the swap torus_nl_publish_routes() makes */
			rt = rcu_replace_pointer(live, rt, true);
			if (rt)
				kvfree_rcu(rt, rcu);
			best_parse[form] = min(best_parse[form], t1 - t0);
			best_build[form] = min(best_build[form],
					       ktime_get_ns() - t1);
			kvfree(batch);
		}
		rt = rcu_dereference_protected(live, true);
		for (i = 0; i < TORUS_TEST_BIG; i += 997) {
			const struct torus_route_exc *e;

			e = torus_rtable_lookup(rt, exc[i].dst);
			KUNIT_ASSERT_NOT_NULL(test, e);
			KUNIT_EXPECT_EQ(test, e->plan1, exc[i].plan1);
			KUNIT_EXPECT_EQ(test, e->via[0], exc[i].via[0]);
		}
	}
	kunit_info(test,
		   "%u via exceptions: nests %d bytes, check+parse %llu us, build+swap %llu us; packed %d bytes, check+parse %llu us, build+swap %llu us (best of 3)\n",
		   TORUS_TEST_BIG, len[0], div_u64(best_parse[0], 1000),
		   div_u64(best_build[0], 1000), len[1],
		   div_u64(best_parse[1], 1000), div_u64(best_build[1], 1000));
	kvfree(rcu_dereference_protected(live, true));
	kvfree(req[0]);
	kvfree(req[1]);
	kvfree(exc);
}

static struct kunit_case torus_route_test_cases[] = {
	KUNIT_CASE_PARAM(torus_dor_all_pairs, torus_geom_gen_params),
	KUNIT_CASE_PARAM(torus_dor_table, torus_dor_gen_params),
	KUNIT_CASE(torus_coord_validity),
	KUNIT_CASE(torus_addr4_plan),
	KUNIT_CASE(torus_addr6_plan),
	KUNIT_CASE(torus_rtable_ops),
	KUNIT_CASE_PARAM(torus_diameter_is_longest_path, torus_geom_gen_params),
	KUNIT_CASE(torus_rtable_batch),
	KUNIT_CASE(torus_rtable_revalidate_geom),
	KUNIT_CASE(torus_rtable_revalidate_plans),
	KUNIT_CASE(torus_route_exceptions),
	KUNIT_CASE(torus_route_exception_plan),
	KUNIT_CASE(torus_route_plan_per_round),
	KUNIT_CASE_PARAM(torus_plan_all_pairs, torus_geom_gen_params),
	KUNIT_CASE_PARAM(torus_vc_dateline, torus_vc_gen_params),
	KUNIT_CASE_PARAM(torus_detour_one_cut, torus_detour_geom_gen_params),
	KUNIT_CASE(torus_detour_choices),
	KUNIT_CASE(torus_rtable_large),
	KUNIT_CASE(torus_exc_rec_rules),
	KUNIT_CASE(torus_route_batch_parse_error_frees_once),
	KUNIT_CASE(torus_route_batch_install_bench),
	{}
};

static struct kunit_suite torus_route_test_suite = {
	.name = "torus_route",
	.test_cases = torus_route_test_cases,
};

kunit_test_suite(torus_route_test_suite);

