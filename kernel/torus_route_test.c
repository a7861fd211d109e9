// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: dimension-ordered routing, the address plan and route
 * exceptions.
 */
#include <kunit/test.h>
#include <linux/slab.h>

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
	KUNIT_EXPECT_EQ(test, torus_rtable_revalidate(rt, &big, GFP_KERNEL,
						      &out), 0);
	KUNIT_EXPECT_NULL(test, out);
	KUNIT_EXPECT_EQ(test, torus_rtable_revalidate(rt, &small, GFP_KERNEL,
						      &out), 2);
	KUNIT_ASSERT_NOT_NULL(test, out);
	KUNIT_EXPECT_EQ(test, out->count, 1U);
	KUNIT_EXPECT_EQ(test, out->exc[0].dst[1], 1);
	kvfree(out);
	/* (1,1) leaves a line; so do the y direction and the via (0,6) */
	KUNIT_EXPECT_EQ(test, torus_rtable_revalidate(rt, &line, GFP_KERNEL,
						      &out), 2);
	KUNIT_ASSERT_NOT_NULL(test, out);
	KUNIT_EXPECT_EQ(test, out->count, 1U);
	KUNIT_EXPECT_EQ(test, out->exc[0].dst[0], 5);
	kvfree(out);
	KUNIT_EXPECT_EQ(test, torus_rtable_revalidate(NULL, &line, GFP_KERNEL,
						      &out), 0);
	kvfree(rt);
}

/* Lambs' two rounds: to the intermediate node first, then on. */
static void torus_next_dir_exceptions(struct kunit *test)
{
	struct torus_geom g = { .ndims = 2, .dims = { 4, 4 }, .wrap = 0x3 };
	struct torus_route_exc e = { .dst = { 2, 0 }, .via = { 0, 1 },
				     .has_via = true,
				     .dir = TORUS_DIR_NONE };
	static const u8 origin[TORUS_MAX_AXES];
	struct torus_rtable *rt;
	struct torus_hdr h;
	bool exc;
	u8 dir;

	rt = torus_rtable_upsert(NULL, &e);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rt));

	/* at the source (0,0): towards via (0,1), +y */
	torus_hdr_init(&h, TORUS_T_DATA, 0, g.coord, e.dst, 8);
	dir = torus_next_dir(&g, rt, &h, true, &exc);
	KUNIT_EXPECT_EQ(test, dir, TORUS_DIR(1, 0));
	KUNIT_EXPECT_TRUE(test, exc);
	KUNIT_EXPECT_TRUE(test, h.flags & TORUS_F_VIA);

	/* at the intermediate node: round two, x first */
	g.coord[1] = 1;
	dir = torus_next_dir(&g, rt, &h, false, &exc);
	KUNIT_EXPECT_EQ(test, dir, TORUS_DIR(0, 0));
	KUNIT_EXPECT_FALSE(test, h.flags & TORUS_F_VIA);

	/* a transit node does not start a via round of its own */
	g.coord[0] = 1;
	g.coord[1] = 3;
	torus_hdr_init(&h, TORUS_T_DATA, 0, origin, e.dst, 8);
	dir = torus_next_dir(&g, rt, &h, false, &exc);
	KUNIT_EXPECT_FALSE(test, exc);
	KUNIT_EXPECT_EQ(test, dir, TORUS_DIR(0, 0));
	kvfree(rt);

	/* a dir exception overrides DOR at any node */
	e.has_via = false;
	e.dir = TORUS_DIR(1, 1);
	rt = torus_rtable_upsert(NULL, &e);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rt));
	dir = torus_next_dir(&g, rt, &h, false, &exc);
	KUNIT_EXPECT_TRUE(test, exc);
	KUNIT_EXPECT_EQ(test, dir, TORUS_DIR(1, 1));
	/* ...but not at the destination itself */
	memcpy(g.coord, e.dst, TORUS_MAX_AXES);
	KUNIT_EXPECT_EQ(test, torus_next_dir(&g, rt, &h, false, &exc),
			TORUS_DIR_NONE);
	kvfree(rt);
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
	KUNIT_CASE(torus_next_dir_exceptions),
	{}
};

static struct kunit_suite torus_route_test_suite = {
	.name = "torus_route",
	.test_cases = torus_route_test_cases,
};

kunit_test_suite(torus_route_test_suite);

