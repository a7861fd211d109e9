// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: collectives' arithmetic.  torus_coll_math: exact float sums,
 * the reduction table and the default combining tree over whole
 * fabrics.
 */
#include <kunit/test.h>

#include "torus_priv.h"
#include "torus_coll.h"
#include "torus_coll_tree.h"

/* ---- exact sums ---- */

static u64 xacc_sum(const u64 *v, unsigned int n)
{
	struct torus_xacc a;
	unsigned int i;

	torus_xacc_init(&a);
	for (i = 0; i < n; i++)
		torus_xacc_add_f64(&a, v[i]);
	return torus_xacc_round_f64(&a);
}

#define D_ONE		0x3ff0000000000000ULL	/* 1.0 */
#define D_MAX		0x7fefffffffffffffULL
#define D_2_53		0x4340000000000000ULL	/* 2^53 */
#define D_NEG		BIT_ULL(63)
#define D_INF		0x7ff0000000000000ULL

static void torus_xacc_exact_test(struct kunit *test)
{
	const u64 cancel[] = { D_MAX, D_ONE, D_MAX | D_NEG };
	const u64 tie_even[] = { D_2_53, D_ONE };	/* 2^53 + 1: tie */
	const u64 tie_up[] = { D_2_53 + 1, D_ONE };	/* 2^53 + 3: up */
	const u64 overflow[] = { D_MAX, D_MAX };
	const u64 subnormal[] = { 1, 1, 1 };

	KUNIT_EXPECT_EQ(test, xacc_sum(cancel, 3), D_ONE);
	KUNIT_EXPECT_EQ(test, xacc_sum(tie_even, 2), D_2_53);
	KUNIT_EXPECT_EQ(test, xacc_sum(tie_up, 2), D_2_53 + 2);
	KUNIT_EXPECT_EQ(test, xacc_sum(overflow, 2), D_INF);
	KUNIT_EXPECT_EQ(test, xacc_sum(subnormal, 3), 3ULL);
}

static void torus_xacc_specials_test(struct kunit *test)
{
	const u64 negzeros[] = { D_NEG, D_NEG };
	const u64 mixed_zero[] = { D_NEG, 0 };
	const u64 cancel_zero[] = { D_ONE, D_ONE | D_NEG };
	const u64 infs[] = { D_INF, D_INF | D_NEG };
	const u64 nan[] = { 0xfff0000000000001ULL, D_ONE };
	const u64 ninf[] = { D_INF | D_NEG, D_MAX };

	KUNIT_EXPECT_EQ(test, xacc_sum(negzeros, 2), D_NEG);
	KUNIT_EXPECT_EQ(test, xacc_sum(mixed_zero, 2), 0ULL);
	KUNIT_EXPECT_EQ(test, xacc_sum(cancel_zero, 2), 0ULL);
	KUNIT_EXPECT_EQ(test, xacc_sum(infs, 2), TORUS_XACC_NAN64);
	KUNIT_EXPECT_EQ(test, xacc_sum(nan, 2), TORUS_XACC_NAN64);
	KUNIT_EXPECT_EQ(test, xacc_sum(ninf, 2), D_INF | D_NEG);
	KUNIT_EXPECT_EQ(test, xacc_sum(NULL, 0), 0ULL);
}

/* Sums sent through the wire form and merged in any order agree. */
static void torus_xacc_wire_test(struct kunit *test)
{
	static const u64 v[] = { D_MAX, 1, D_ONE | D_NEG, D_MAX | D_NEG,
				 0x3fb999999999999aULL, D_2_53 };
	struct torus_xacc *a, *b, *all;
	u8 *wire;
	size_t len;
	unsigned int i;

	a = kunit_kzalloc(test, 3 * sizeof(*a), GFP_KERNEL);
	wire = kunit_kzalloc(test, TORUS_XACC_WIRE_MAX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, wire);
	b = a + 1;
	all = a + 2;
	torus_xacc_init(a);
	torus_xacc_init(b);
	torus_xacc_init(all);
	for (i = 0; i < ARRAY_SIZE(v); i++) {
		torus_xacc_add_f64(i % 2 ? a : b, v[i]);
		torus_xacc_add_f64(all, v[ARRAY_SIZE(v) - 1 - i]);
	}
	len = torus_xacc_encode(a, wire, TORUS_XACC_WIRE_MAX);
	KUNIT_ASSERT_GT(test, len, (size_t)0);
	KUNIT_EXPECT_EQ(test, torus_xacc_encode(a, wire, len - 1), (size_t)0);
	KUNIT_EXPECT_EQ(test, torus_xacc_decode_merge(b, wire, len - 1),
			(size_t)0);
	KUNIT_EXPECT_EQ(test, torus_xacc_decode_merge(b, wire, len), len);
	KUNIT_EXPECT_EQ(test, torus_xacc_round_f64(b),
			torus_xacc_round_f64(all));
	KUNIT_EXPECT_EQ(test, torus_xacc_round_f64(b),
			xacc_sum(v, ARRAY_SIZE(v)));
	/* 2^53 - 0.9 + 2^-1074 (the rest cancels) rounds to 2^53 - 1 */
	KUNIT_EXPECT_EQ(test, torus_xacc_round_f64(all), D_2_53 - 1);
	/* a malformed head is refused and changes nothing */
	wire[3] = 1;
	KUNIT_EXPECT_EQ(test, torus_xacc_decode_merge(b, wire, len), (size_t)0);
}

static void torus_xacc_float_test(struct kunit *test)
{
	struct torus_xacc a;

	torus_xacc_init(&a);
	torus_xacc_add_f32(&a, 0x4b800000);	/* 2^24 */
	torus_xacc_add_f32(&a, 0x3f800000);	/* 1: a tie, to even */
	KUNIT_EXPECT_EQ(test, torus_xacc_round_f32(&a), 0x4b800000U);
	torus_xacc_add_f32(&a, 0x3f800000);	/* 2^24 + 2 */
	KUNIT_EXPECT_EQ(test, torus_xacc_round_f32(&a), 0x4b800001U);
	torus_xacc_init(&a);
	torus_xacc_add_f32(&a, 1);		/* subnormals */
	torus_xacc_add_f32(&a, 0x807fffff);
	KUNIT_EXPECT_EQ(test, torus_xacc_round_f32(&a), 0x807ffffeU);
	torus_xacc_init(&a);
	torus_xacc_add_f32(&a, 0x7f7fffff);
	torus_xacc_add_f32(&a, 0x7f7fffff);
	KUNIT_EXPECT_EQ(test, torus_xacc_round_f32(&a), 0x7f800000U);
}

/* ---- reductions ---- */

struct coll_combine_case {
	const char *name;
	u8 type, op;
	u64 a, b, want;
};

static const struct coll_combine_case coll_combine_cases[] = {
	{ "int8 sum wraps", TORUS_COLL_INT8, TORUS_COLL_SUM, 127, 1,
	  (u64)-128 },
	{ "uint16 sum wraps", TORUS_COLL_UINT16, TORUS_COLL_SUM, 65535, 2, 1 },
	{ "int64 min signed", TORUS_COLL_INT64, TORUS_COLL_MIN, (u64)-5, 3,
	  (u64)-5 },
	{ "uint64 min unsigned", TORUS_COLL_UINT64, TORUS_COLL_MIN, (u64)-5,
	  3, 3 },
	{ "int32 max", TORUS_COLL_INT32, TORUS_COLL_MAX, (u64)-1, (u64)-7,
	  (u64)-1 },
	{ "int32 prod wraps", TORUS_COLL_INT32, TORUS_COLL_PROD, 65536, 65536,
	  0 },
	{ "band", TORUS_COLL_UINT8, TORUS_COLL_BAND, 0xf0, 0x3c, 0x30 },
	{ "bor", TORUS_COLL_UINT8, TORUS_COLL_BOR, 0xf0, 0x0c, 0xfc },
	{ "bxor", TORUS_COLL_UINT64, TORUS_COLL_BXOR, 0xff, 0x0f, 0xf0 },
	{ "land", TORUS_COLL_INT64, TORUS_COLL_LAND, 1, 0, 0 },
	{ "lor", TORUS_COLL_INT64, TORUS_COLL_LOR, 0, 1, 1 },
	{ "lxor", TORUS_COLL_INT64, TORUS_COLL_LXOR, 1, 1, 0 },
	{ "double min -0 < +0", TORUS_COLL_DOUBLE, TORUS_COLL_MIN, 0, D_NEG,
	  D_NEG },
	{ "double max -2 < 1", TORUS_COLL_DOUBLE, TORUS_COLL_MAX,
	  0xc000000000000000ULL, D_ONE, D_ONE },
	{ "double min nan", TORUS_COLL_DOUBLE, TORUS_COLL_MIN, D_ONE,
	  0x7ff0000000000005ULL, TORUS_XACC_NAN64 },
	{ "float max -inf", TORUS_COLL_FLOAT, TORUS_COLL_MAX, 0xff800000,
	  0xbf800000, 0xbf800000 },
};

static void coll_combine_desc(const struct coll_combine_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(coll_combine, coll_combine_cases, coll_combine_desc);

static void torus_coll_combine_test(struct kunit *test)
{
	const struct coll_combine_case *c = test->param_value;

	KUNIT_EXPECT_TRUE(test, torus_coll_op_valid(c->type, c->op));
	KUNIT_EXPECT_EQ(test, torus_coll_combine(c->type, c->op, c->a, c->b),
			c->want);
	KUNIT_EXPECT_EQ(test, torus_coll_combine(c->type, c->op, c->b, c->a),
			c->want);
}

static void torus_coll_op_valid_test(struct kunit *test)
{
	KUNIT_EXPECT_FALSE(test, torus_coll_op_valid(TORUS_COLL_DOUBLE,
						     TORUS_COLL_BXOR));
	KUNIT_EXPECT_FALSE(test, torus_coll_op_valid(TORUS_COLL_FLOAT,
						     TORUS_COLL_BAND));
	KUNIT_EXPECT_TRUE(test, torus_coll_op_valid(TORUS_COLL_FLOAT,
						    TORUS_COLL_PROD));
	KUNIT_EXPECT_TRUE(test, torus_coll_op_valid(TORUS_COLL_DOUBLE,
						    TORUS_COLL_MAXLOC));
	KUNIT_EXPECT_FALSE(test, torus_coll_op_valid(TORUS_COLL_TYPE_MAX + 1,
						     TORUS_COLL_SUM));
	KUNIT_EXPECT_TRUE(test, torus_coll_op_valid(TORUS_COLL_INT8,
						    TORUS_COLL_LXOR));
}

/* ---- every op on every type, through three tree shapes ---- */

#define COLL_MATRIX_NODES	5

/*
 * Five nodes' values per type (as torus_coll_load() gives them): set 0
 * wraps sums and products and has ties at the minimum; set 1 has zeros
 * for the logical ops, and for floats a sum whose naive order loses it
 * (2^53 + 1 + -0 + 1 - 2^53: exactly 2, naively 0).
 */
static const u64 coll_matrix_inputs[][2][COLL_MATRIX_NODES] = {
	[TORUS_COLL_INT8] = {
		{ 0x3ULL, 0xffffffffffffff80ULL, 0xfffffffffffffffbULL,
		  0x7fULL, 0xffffffffffffff80ULL },
		{ 0x0ULL, 0xffffffffffffffffULL, 0x2ULL, 0x0ULL, 0x7ULL },
	},
	[TORUS_COLL_INT16] = {
		{ 0x3ULL, 0xffffffffffff8000ULL, 0xfffffffffffffffbULL,
		  0x7fffULL, 0xffffffffffff8000ULL },
		{ 0x0ULL, 0xffffffffffffffffULL, 0x2ULL, 0x0ULL, 0x7ULL },
	},
	[TORUS_COLL_INT32] = {
		{ 0x3ULL, 0xffffffff80000000ULL, 0xfffffffffffffffbULL,
		  0x7fffffffULL, 0xffffffff80000000ULL },
		{ 0x0ULL, 0xffffffffffffffffULL, 0x2ULL, 0x0ULL, 0x7ULL },
	},
	[TORUS_COLL_INT64] = {
		{ 0x3ULL, 0x8000000000000000ULL, 0xfffffffffffffffbULL,
		  0x7fffffffffffffffULL, 0x8000000000000000ULL },
		{ 0x0ULL, 0xffffffffffffffffULL, 0x2ULL, 0x0ULL, 0x7ULL },
	},
	[TORUS_COLL_UINT8] = {
		{ 0x3ULL, 0xffULL, 0x5ULL, 0x80ULL, 0x3ULL },
		{ 0x0ULL, 0x1ULL, 0x0ULL, 0x6ULL, 0x0ULL },
	},
	[TORUS_COLL_UINT16] = {
		{ 0x3ULL, 0xffffULL, 0x5ULL, 0x8000ULL, 0x3ULL },
		{ 0x0ULL, 0x1ULL, 0x0ULL, 0x6ULL, 0x0ULL },
	},
	[TORUS_COLL_UINT32] = {
		{ 0x3ULL, 0xffffffffULL, 0x5ULL, 0x80000000ULL, 0x3ULL },
		{ 0x0ULL, 0x1ULL, 0x0ULL, 0x6ULL, 0x0ULL },
	},
	[TORUS_COLL_UINT64] = {
		{ 0x3ULL, 0xffffffffffffffffULL, 0x5ULL, 0x8000000000000000ULL,
		  0x3ULL },
		{ 0x0ULL, 0x1ULL, 0x0ULL, 0x6ULL, 0x0ULL },
	},
	[TORUS_COLL_FLOAT] = {
		{ 0x40400000ULL, 0xbf000000ULL, 0x3fa00000ULL, 0x40000000ULL,
		  0xc0800000ULL },
		{ 0x4b800000ULL, 0x3f800000ULL, 0x80000000ULL, 0x3f800000ULL,
		  0xcb800000ULL },
	},
	[TORUS_COLL_DOUBLE] = {
		{ 0x4008000000000000ULL, 0xbfe0000000000000ULL,
		  0x3ff4000000000000ULL, 0x4000000000000000ULL,
		  0xc010000000000000ULL },
		{ 0x4340000000000000ULL, 0x3ff0000000000000ULL,
		  0x8000000000000000ULL, 0x3ff0000000000000ULL,
		  0xc340000000000000ULL },
	},
};

struct coll_matrix_case {
	u8 type, op, set;
	u64 want;
	u32 loc;
};

/* expected results from an exact rational reference (Python) */
static const struct coll_matrix_case coll_matrix_cases[] = {
	{ TORUS_COLL_INT8, TORUS_COLL_SUM, 0, 0x7dULL, 0 },
	{ TORUS_COLL_INT8, TORUS_COLL_PROD, 0, 0x0ULL, 0 },
	{ TORUS_COLL_INT8, TORUS_COLL_MIN, 0, 0xffffffffffffff80ULL, 0 },
	{ TORUS_COLL_INT8, TORUS_COLL_MAX, 0, 0x7fULL, 0 },
	{ TORUS_COLL_INT8, TORUS_COLL_BAND, 0, 0x0ULL, 0 },
	{ TORUS_COLL_INT8, TORUS_COLL_BOR, 0, 0xffffffffffffffffULL, 0 },
	{ TORUS_COLL_INT8, TORUS_COLL_BXOR, 0, 0xffffffffffffff87ULL, 0 },
	{ TORUS_COLL_INT8, TORUS_COLL_LAND, 0, 0x1ULL, 0 },
	{ TORUS_COLL_INT8, TORUS_COLL_LOR, 0, 0x1ULL, 0 },
	{ TORUS_COLL_INT8, TORUS_COLL_LXOR, 0, 0x1ULL, 0 },
	{ TORUS_COLL_INT8, TORUS_COLL_MINLOC, 0, 0xffffffffffffff80ULL, 1 },
	{ TORUS_COLL_INT8, TORUS_COLL_MAXLOC, 0, 0x7fULL, 3 },
	{ TORUS_COLL_INT8, TORUS_COLL_SUM, 1, 0x8ULL, 0 },
	{ TORUS_COLL_INT8, TORUS_COLL_PROD, 1, 0x0ULL, 0 },
	{ TORUS_COLL_INT8, TORUS_COLL_MIN, 1, 0xffffffffffffffffULL, 0 },
	{ TORUS_COLL_INT8, TORUS_COLL_MAX, 1, 0x7ULL, 0 },
	{ TORUS_COLL_INT8, TORUS_COLL_BAND, 1, 0x0ULL, 0 },
	{ TORUS_COLL_INT8, TORUS_COLL_BOR, 1, 0xffffffffffffffffULL, 0 },
	{ TORUS_COLL_INT8, TORUS_COLL_BXOR, 1, 0xfffffffffffffffaULL, 0 },
	{ TORUS_COLL_INT8, TORUS_COLL_LAND, 1, 0x0ULL, 0 },
	{ TORUS_COLL_INT8, TORUS_COLL_LOR, 1, 0x1ULL, 0 },
	{ TORUS_COLL_INT8, TORUS_COLL_LXOR, 1, 0x1ULL, 0 },
	{ TORUS_COLL_INT8, TORUS_COLL_MINLOC, 1, 0xffffffffffffffffULL, 1 },
	{ TORUS_COLL_INT8, TORUS_COLL_MAXLOC, 1, 0x7ULL, 4 },
	{ TORUS_COLL_INT16, TORUS_COLL_SUM, 0, 0x7ffdULL, 0 },
	{ TORUS_COLL_INT16, TORUS_COLL_PROD, 0, 0x0ULL, 0 },
	{ TORUS_COLL_INT16, TORUS_COLL_MIN, 0, 0xffffffffffff8000ULL, 0 },
	{ TORUS_COLL_INT16, TORUS_COLL_MAX, 0, 0x7fffULL, 0 },
	{ TORUS_COLL_INT16, TORUS_COLL_BAND, 0, 0x0ULL, 0 },
	{ TORUS_COLL_INT16, TORUS_COLL_BOR, 0, 0xffffffffffffffffULL, 0 },
	{ TORUS_COLL_INT16, TORUS_COLL_BXOR, 0, 0xffffffffffff8007ULL, 0 },
	{ TORUS_COLL_INT16, TORUS_COLL_LAND, 0, 0x1ULL, 0 },
	{ TORUS_COLL_INT16, TORUS_COLL_LOR, 0, 0x1ULL, 0 },
	{ TORUS_COLL_INT16, TORUS_COLL_LXOR, 0, 0x1ULL, 0 },
	{ TORUS_COLL_INT16, TORUS_COLL_MINLOC, 0, 0xffffffffffff8000ULL, 1 },
	{ TORUS_COLL_INT16, TORUS_COLL_MAXLOC, 0, 0x7fffULL, 3 },
	{ TORUS_COLL_INT16, TORUS_COLL_SUM, 1, 0x8ULL, 0 },
	{ TORUS_COLL_INT16, TORUS_COLL_PROD, 1, 0x0ULL, 0 },
	{ TORUS_COLL_INT16, TORUS_COLL_MIN, 1, 0xffffffffffffffffULL, 0 },
	{ TORUS_COLL_INT16, TORUS_COLL_MAX, 1, 0x7ULL, 0 },
	{ TORUS_COLL_INT16, TORUS_COLL_BAND, 1, 0x0ULL, 0 },
	{ TORUS_COLL_INT16, TORUS_COLL_BOR, 1, 0xffffffffffffffffULL, 0 },
	{ TORUS_COLL_INT16, TORUS_COLL_BXOR, 1, 0xfffffffffffffffaULL, 0 },
	{ TORUS_COLL_INT16, TORUS_COLL_LAND, 1, 0x0ULL, 0 },
	{ TORUS_COLL_INT16, TORUS_COLL_LOR, 1, 0x1ULL, 0 },
	{ TORUS_COLL_INT16, TORUS_COLL_LXOR, 1, 0x1ULL, 0 },
	{ TORUS_COLL_INT16, TORUS_COLL_MINLOC, 1, 0xffffffffffffffffULL, 1 },
	{ TORUS_COLL_INT16, TORUS_COLL_MAXLOC, 1, 0x7ULL, 4 },
	{ TORUS_COLL_INT32, TORUS_COLL_SUM, 0, 0x7ffffffdULL, 0 },
	{ TORUS_COLL_INT32, TORUS_COLL_PROD, 0, 0x0ULL, 0 },
	{ TORUS_COLL_INT32, TORUS_COLL_MIN, 0, 0xffffffff80000000ULL, 0 },
	{ TORUS_COLL_INT32, TORUS_COLL_MAX, 0, 0x7fffffffULL, 0 },
	{ TORUS_COLL_INT32, TORUS_COLL_BAND, 0, 0x0ULL, 0 },
	{ TORUS_COLL_INT32, TORUS_COLL_BOR, 0, 0xffffffffffffffffULL, 0 },
	{ TORUS_COLL_INT32, TORUS_COLL_BXOR, 0, 0xffffffff80000007ULL, 0 },
	{ TORUS_COLL_INT32, TORUS_COLL_LAND, 0, 0x1ULL, 0 },
	{ TORUS_COLL_INT32, TORUS_COLL_LOR, 0, 0x1ULL, 0 },
	{ TORUS_COLL_INT32, TORUS_COLL_LXOR, 0, 0x1ULL, 0 },
	{ TORUS_COLL_INT32, TORUS_COLL_MINLOC, 0, 0xffffffff80000000ULL, 1 },
	{ TORUS_COLL_INT32, TORUS_COLL_MAXLOC, 0, 0x7fffffffULL, 3 },
	{ TORUS_COLL_INT32, TORUS_COLL_SUM, 1, 0x8ULL, 0 },
	{ TORUS_COLL_INT32, TORUS_COLL_PROD, 1, 0x0ULL, 0 },
	{ TORUS_COLL_INT32, TORUS_COLL_MIN, 1, 0xffffffffffffffffULL, 0 },
	{ TORUS_COLL_INT32, TORUS_COLL_MAX, 1, 0x7ULL, 0 },
	{ TORUS_COLL_INT32, TORUS_COLL_BAND, 1, 0x0ULL, 0 },
	{ TORUS_COLL_INT32, TORUS_COLL_BOR, 1, 0xffffffffffffffffULL, 0 },
	{ TORUS_COLL_INT32, TORUS_COLL_BXOR, 1, 0xfffffffffffffffaULL, 0 },
	{ TORUS_COLL_INT32, TORUS_COLL_LAND, 1, 0x0ULL, 0 },
	{ TORUS_COLL_INT32, TORUS_COLL_LOR, 1, 0x1ULL, 0 },
	{ TORUS_COLL_INT32, TORUS_COLL_LXOR, 1, 0x1ULL, 0 },
	{ TORUS_COLL_INT32, TORUS_COLL_MINLOC, 1, 0xffffffffffffffffULL, 1 },
	{ TORUS_COLL_INT32, TORUS_COLL_MAXLOC, 1, 0x7ULL, 4 },
	{ TORUS_COLL_INT64, TORUS_COLL_SUM, 0, 0x7ffffffffffffffdULL, 0 },
	{ TORUS_COLL_INT64, TORUS_COLL_PROD, 0, 0x0ULL, 0 },
	{ TORUS_COLL_INT64, TORUS_COLL_MIN, 0, 0x8000000000000000ULL, 0 },
	{ TORUS_COLL_INT64, TORUS_COLL_MAX, 0, 0x7fffffffffffffffULL, 0 },
	{ TORUS_COLL_INT64, TORUS_COLL_BAND, 0, 0x0ULL, 0 },
	{ TORUS_COLL_INT64, TORUS_COLL_BOR, 0, 0xffffffffffffffffULL, 0 },
	{ TORUS_COLL_INT64, TORUS_COLL_BXOR, 0, 0x8000000000000007ULL, 0 },
	{ TORUS_COLL_INT64, TORUS_COLL_LAND, 0, 0x1ULL, 0 },
	{ TORUS_COLL_INT64, TORUS_COLL_LOR, 0, 0x1ULL, 0 },
	{ TORUS_COLL_INT64, TORUS_COLL_LXOR, 0, 0x1ULL, 0 },
	{ TORUS_COLL_INT64, TORUS_COLL_MINLOC, 0, 0x8000000000000000ULL, 1 },
	{ TORUS_COLL_INT64, TORUS_COLL_MAXLOC, 0, 0x7fffffffffffffffULL, 3 },
	{ TORUS_COLL_INT64, TORUS_COLL_SUM, 1, 0x8ULL, 0 },
	{ TORUS_COLL_INT64, TORUS_COLL_PROD, 1, 0x0ULL, 0 },
	{ TORUS_COLL_INT64, TORUS_COLL_MIN, 1, 0xffffffffffffffffULL, 0 },
	{ TORUS_COLL_INT64, TORUS_COLL_MAX, 1, 0x7ULL, 0 },
	{ TORUS_COLL_INT64, TORUS_COLL_BAND, 1, 0x0ULL, 0 },
	{ TORUS_COLL_INT64, TORUS_COLL_BOR, 1, 0xffffffffffffffffULL, 0 },
	{ TORUS_COLL_INT64, TORUS_COLL_BXOR, 1, 0xfffffffffffffffaULL, 0 },
	{ TORUS_COLL_INT64, TORUS_COLL_LAND, 1, 0x0ULL, 0 },
	{ TORUS_COLL_INT64, TORUS_COLL_LOR, 1, 0x1ULL, 0 },
	{ TORUS_COLL_INT64, TORUS_COLL_LXOR, 1, 0x1ULL, 0 },
	{ TORUS_COLL_INT64, TORUS_COLL_MINLOC, 1, 0xffffffffffffffffULL, 1 },
	{ TORUS_COLL_INT64, TORUS_COLL_MAXLOC, 1, 0x7ULL, 4 },
	{ TORUS_COLL_UINT8, TORUS_COLL_SUM, 0, 0x8aULL, 0 },
	{ TORUS_COLL_UINT8, TORUS_COLL_PROD, 0, 0x80ULL, 0 },
	{ TORUS_COLL_UINT8, TORUS_COLL_MIN, 0, 0x3ULL, 0 },
	{ TORUS_COLL_UINT8, TORUS_COLL_MAX, 0, 0xffULL, 0 },
	{ TORUS_COLL_UINT8, TORUS_COLL_BAND, 0, 0x0ULL, 0 },
	{ TORUS_COLL_UINT8, TORUS_COLL_BOR, 0, 0xffULL, 0 },
	{ TORUS_COLL_UINT8, TORUS_COLL_BXOR, 0, 0x7aULL, 0 },
	{ TORUS_COLL_UINT8, TORUS_COLL_LAND, 0, 0x1ULL, 0 },
	{ TORUS_COLL_UINT8, TORUS_COLL_LOR, 0, 0x1ULL, 0 },
	{ TORUS_COLL_UINT8, TORUS_COLL_LXOR, 0, 0x1ULL, 0 },
	{ TORUS_COLL_UINT8, TORUS_COLL_MINLOC, 0, 0x3ULL, 0 },
	{ TORUS_COLL_UINT8, TORUS_COLL_MAXLOC, 0, 0xffULL, 1 },
	{ TORUS_COLL_UINT8, TORUS_COLL_SUM, 1, 0x7ULL, 0 },
	{ TORUS_COLL_UINT8, TORUS_COLL_PROD, 1, 0x0ULL, 0 },
	{ TORUS_COLL_UINT8, TORUS_COLL_MIN, 1, 0x0ULL, 0 },
	{ TORUS_COLL_UINT8, TORUS_COLL_MAX, 1, 0x6ULL, 0 },
	{ TORUS_COLL_UINT8, TORUS_COLL_BAND, 1, 0x0ULL, 0 },
	{ TORUS_COLL_UINT8, TORUS_COLL_BOR, 1, 0x7ULL, 0 },
	{ TORUS_COLL_UINT8, TORUS_COLL_BXOR, 1, 0x7ULL, 0 },
	{ TORUS_COLL_UINT8, TORUS_COLL_LAND, 1, 0x0ULL, 0 },
	{ TORUS_COLL_UINT8, TORUS_COLL_LOR, 1, 0x1ULL, 0 },
	{ TORUS_COLL_UINT8, TORUS_COLL_LXOR, 1, 0x0ULL, 0 },
	{ TORUS_COLL_UINT8, TORUS_COLL_MINLOC, 1, 0x0ULL, 0 },
	{ TORUS_COLL_UINT8, TORUS_COLL_MAXLOC, 1, 0x6ULL, 3 },
	{ TORUS_COLL_UINT16, TORUS_COLL_SUM, 0, 0x800aULL, 0 },
	{ TORUS_COLL_UINT16, TORUS_COLL_PROD, 0, 0x8000ULL, 0 },
	{ TORUS_COLL_UINT16, TORUS_COLL_MIN, 0, 0x3ULL, 0 },
	{ TORUS_COLL_UINT16, TORUS_COLL_MAX, 0, 0xffffULL, 0 },
	{ TORUS_COLL_UINT16, TORUS_COLL_BAND, 0, 0x0ULL, 0 },
	{ TORUS_COLL_UINT16, TORUS_COLL_BOR, 0, 0xffffULL, 0 },
	{ TORUS_COLL_UINT16, TORUS_COLL_BXOR, 0, 0x7ffaULL, 0 },
	{ TORUS_COLL_UINT16, TORUS_COLL_LAND, 0, 0x1ULL, 0 },
	{ TORUS_COLL_UINT16, TORUS_COLL_LOR, 0, 0x1ULL, 0 },
	{ TORUS_COLL_UINT16, TORUS_COLL_LXOR, 0, 0x1ULL, 0 },
	{ TORUS_COLL_UINT16, TORUS_COLL_MINLOC, 0, 0x3ULL, 0 },
	{ TORUS_COLL_UINT16, TORUS_COLL_MAXLOC, 0, 0xffffULL, 1 },
	{ TORUS_COLL_UINT16, TORUS_COLL_SUM, 1, 0x7ULL, 0 },
	{ TORUS_COLL_UINT16, TORUS_COLL_PROD, 1, 0x0ULL, 0 },
	{ TORUS_COLL_UINT16, TORUS_COLL_MIN, 1, 0x0ULL, 0 },
	{ TORUS_COLL_UINT16, TORUS_COLL_MAX, 1, 0x6ULL, 0 },
	{ TORUS_COLL_UINT16, TORUS_COLL_BAND, 1, 0x0ULL, 0 },
	{ TORUS_COLL_UINT16, TORUS_COLL_BOR, 1, 0x7ULL, 0 },
	{ TORUS_COLL_UINT16, TORUS_COLL_BXOR, 1, 0x7ULL, 0 },
	{ TORUS_COLL_UINT16, TORUS_COLL_LAND, 1, 0x0ULL, 0 },
	{ TORUS_COLL_UINT16, TORUS_COLL_LOR, 1, 0x1ULL, 0 },
	{ TORUS_COLL_UINT16, TORUS_COLL_LXOR, 1, 0x0ULL, 0 },
	{ TORUS_COLL_UINT16, TORUS_COLL_MINLOC, 1, 0x0ULL, 0 },
	{ TORUS_COLL_UINT16, TORUS_COLL_MAXLOC, 1, 0x6ULL, 3 },
	{ TORUS_COLL_UINT32, TORUS_COLL_SUM, 0, 0x8000000aULL, 0 },
	{ TORUS_COLL_UINT32, TORUS_COLL_PROD, 0, 0x80000000ULL, 0 },
	{ TORUS_COLL_UINT32, TORUS_COLL_MIN, 0, 0x3ULL, 0 },
	{ TORUS_COLL_UINT32, TORUS_COLL_MAX, 0, 0xffffffffULL, 0 },
	{ TORUS_COLL_UINT32, TORUS_COLL_BAND, 0, 0x0ULL, 0 },
	{ TORUS_COLL_UINT32, TORUS_COLL_BOR, 0, 0xffffffffULL, 0 },
	{ TORUS_COLL_UINT32, TORUS_COLL_BXOR, 0, 0x7ffffffaULL, 0 },
	{ TORUS_COLL_UINT32, TORUS_COLL_LAND, 0, 0x1ULL, 0 },
	{ TORUS_COLL_UINT32, TORUS_COLL_LOR, 0, 0x1ULL, 0 },
	{ TORUS_COLL_UINT32, TORUS_COLL_LXOR, 0, 0x1ULL, 0 },
	{ TORUS_COLL_UINT32, TORUS_COLL_MINLOC, 0, 0x3ULL, 0 },
	{ TORUS_COLL_UINT32, TORUS_COLL_MAXLOC, 0, 0xffffffffULL, 1 },
	{ TORUS_COLL_UINT32, TORUS_COLL_SUM, 1, 0x7ULL, 0 },
	{ TORUS_COLL_UINT32, TORUS_COLL_PROD, 1, 0x0ULL, 0 },
	{ TORUS_COLL_UINT32, TORUS_COLL_MIN, 1, 0x0ULL, 0 },
	{ TORUS_COLL_UINT32, TORUS_COLL_MAX, 1, 0x6ULL, 0 },
	{ TORUS_COLL_UINT32, TORUS_COLL_BAND, 1, 0x0ULL, 0 },
	{ TORUS_COLL_UINT32, TORUS_COLL_BOR, 1, 0x7ULL, 0 },
	{ TORUS_COLL_UINT32, TORUS_COLL_BXOR, 1, 0x7ULL, 0 },
	{ TORUS_COLL_UINT32, TORUS_COLL_LAND, 1, 0x0ULL, 0 },
	{ TORUS_COLL_UINT32, TORUS_COLL_LOR, 1, 0x1ULL, 0 },
	{ TORUS_COLL_UINT32, TORUS_COLL_LXOR, 1, 0x0ULL, 0 },
	{ TORUS_COLL_UINT32, TORUS_COLL_MINLOC, 1, 0x0ULL, 0 },
	{ TORUS_COLL_UINT32, TORUS_COLL_MAXLOC, 1, 0x6ULL, 3 },
	{ TORUS_COLL_UINT64, TORUS_COLL_SUM, 0, 0x800000000000000aULL, 0 },
	{ TORUS_COLL_UINT64, TORUS_COLL_PROD, 0, 0x8000000000000000ULL, 0 },
	{ TORUS_COLL_UINT64, TORUS_COLL_MIN, 0, 0x3ULL, 0 },
	{ TORUS_COLL_UINT64, TORUS_COLL_MAX, 0, 0xffffffffffffffffULL, 0 },
	{ TORUS_COLL_UINT64, TORUS_COLL_BAND, 0, 0x0ULL, 0 },
	{ TORUS_COLL_UINT64, TORUS_COLL_BOR, 0, 0xffffffffffffffffULL, 0 },
	{ TORUS_COLL_UINT64, TORUS_COLL_BXOR, 0, 0x7ffffffffffffffaULL, 0 },
	{ TORUS_COLL_UINT64, TORUS_COLL_LAND, 0, 0x1ULL, 0 },
	{ TORUS_COLL_UINT64, TORUS_COLL_LOR, 0, 0x1ULL, 0 },
	{ TORUS_COLL_UINT64, TORUS_COLL_LXOR, 0, 0x1ULL, 0 },
	{ TORUS_COLL_UINT64, TORUS_COLL_MINLOC, 0, 0x3ULL, 0 },
	{ TORUS_COLL_UINT64, TORUS_COLL_MAXLOC, 0, 0xffffffffffffffffULL, 1 },
	{ TORUS_COLL_UINT64, TORUS_COLL_SUM, 1, 0x7ULL, 0 },
	{ TORUS_COLL_UINT64, TORUS_COLL_PROD, 1, 0x0ULL, 0 },
	{ TORUS_COLL_UINT64, TORUS_COLL_MIN, 1, 0x0ULL, 0 },
	{ TORUS_COLL_UINT64, TORUS_COLL_MAX, 1, 0x6ULL, 0 },
	{ TORUS_COLL_UINT64, TORUS_COLL_BAND, 1, 0x0ULL, 0 },
	{ TORUS_COLL_UINT64, TORUS_COLL_BOR, 1, 0x7ULL, 0 },
	{ TORUS_COLL_UINT64, TORUS_COLL_BXOR, 1, 0x7ULL, 0 },
	{ TORUS_COLL_UINT64, TORUS_COLL_LAND, 1, 0x0ULL, 0 },
	{ TORUS_COLL_UINT64, TORUS_COLL_LOR, 1, 0x1ULL, 0 },
	{ TORUS_COLL_UINT64, TORUS_COLL_LXOR, 1, 0x0ULL, 0 },
	{ TORUS_COLL_UINT64, TORUS_COLL_MINLOC, 1, 0x0ULL, 0 },
	{ TORUS_COLL_UINT64, TORUS_COLL_MAXLOC, 1, 0x6ULL, 3 },
	{ TORUS_COLL_FLOAT, TORUS_COLL_SUM, 0, 0x3fe00000ULL, 0 },
	{ TORUS_COLL_FLOAT, TORUS_COLL_PROD, 0, 0x41700000ULL, 0 },
	{ TORUS_COLL_FLOAT, TORUS_COLL_MIN, 0, 0xc0800000ULL, 4 },
	{ TORUS_COLL_FLOAT, TORUS_COLL_MAX, 0, 0x40400000ULL, 0 },
	{ TORUS_COLL_FLOAT, TORUS_COLL_LAND, 0, 0x3f800000ULL, 0 },
	{ TORUS_COLL_FLOAT, TORUS_COLL_LOR, 0, 0x3f800000ULL, 0 },
	{ TORUS_COLL_FLOAT, TORUS_COLL_LXOR, 0, 0x3f800000ULL, 0 },
	{ TORUS_COLL_FLOAT, TORUS_COLL_MINLOC, 0, 0xc0800000ULL, 4 },
	{ TORUS_COLL_FLOAT, TORUS_COLL_MAXLOC, 0, 0x40400000ULL, 0 },
	{ TORUS_COLL_FLOAT, TORUS_COLL_SUM, 1, 0x40000000ULL, 0 },
	{ TORUS_COLL_FLOAT, TORUS_COLL_PROD, 1, 0x0ULL, 0 },
	{ TORUS_COLL_FLOAT, TORUS_COLL_MIN, 1, 0xcb800000ULL, 4 },
	{ TORUS_COLL_FLOAT, TORUS_COLL_MAX, 1, 0x4b800000ULL, 0 },
	{ TORUS_COLL_FLOAT, TORUS_COLL_LAND, 1, 0x0ULL, 0 },
	{ TORUS_COLL_FLOAT, TORUS_COLL_LOR, 1, 0x3f800000ULL, 0 },
	{ TORUS_COLL_FLOAT, TORUS_COLL_LXOR, 1, 0x0ULL, 0 },
	{ TORUS_COLL_FLOAT, TORUS_COLL_MINLOC, 1, 0xcb800000ULL, 4 },
	{ TORUS_COLL_FLOAT, TORUS_COLL_MAXLOC, 1, 0x4b800000ULL, 0 },
	{ TORUS_COLL_DOUBLE, TORUS_COLL_SUM, 0, 0x3ffc000000000000ULL, 0 },
	{ TORUS_COLL_DOUBLE, TORUS_COLL_PROD, 0, 0x402e000000000000ULL, 0 },
	{ TORUS_COLL_DOUBLE, TORUS_COLL_MIN, 0, 0xc010000000000000ULL, 4 },
	{ TORUS_COLL_DOUBLE, TORUS_COLL_MAX, 0, 0x4008000000000000ULL, 0 },
	{ TORUS_COLL_DOUBLE, TORUS_COLL_LAND, 0, 0x3ff0000000000000ULL, 0 },
	{ TORUS_COLL_DOUBLE, TORUS_COLL_LOR, 0, 0x3ff0000000000000ULL, 0 },
	{ TORUS_COLL_DOUBLE, TORUS_COLL_LXOR, 0, 0x3ff0000000000000ULL, 0 },
	{ TORUS_COLL_DOUBLE, TORUS_COLL_MINLOC, 0, 0xc010000000000000ULL, 4 },
	{ TORUS_COLL_DOUBLE, TORUS_COLL_MAXLOC, 0, 0x4008000000000000ULL, 0 },
	{ TORUS_COLL_DOUBLE, TORUS_COLL_SUM, 1, 0x4000000000000000ULL, 0 },
	{ TORUS_COLL_DOUBLE, TORUS_COLL_PROD, 1, 0x0ULL, 0 },
	{ TORUS_COLL_DOUBLE, TORUS_COLL_MIN, 1, 0xc340000000000000ULL, 4 },
	{ TORUS_COLL_DOUBLE, TORUS_COLL_MAX, 1, 0x4340000000000000ULL, 0 },
	{ TORUS_COLL_DOUBLE, TORUS_COLL_LAND, 1, 0x0ULL, 0 },
	{ TORUS_COLL_DOUBLE, TORUS_COLL_LOR, 1, 0x3ff0000000000000ULL, 0 },
	{ TORUS_COLL_DOUBLE, TORUS_COLL_LXOR, 1, 0x0ULL, 0 },
	{ TORUS_COLL_DOUBLE, TORUS_COLL_MINLOC, 1, 0xc340000000000000ULL, 4 },
	{ TORUS_COLL_DOUBLE, TORUS_COLL_MAXLOC, 1, 0x4340000000000000ULL, 0 },

};

static void coll_matrix_desc(const struct coll_matrix_case *c, char *desc)
{
	static const char *const types[] = TORUS_COLL_TYPE_NAMES;
	static const char *const ops[] = TORUS_COLL_OP_NAMES;

	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s %s set %u", types[c->type],
		 ops[c->op], c->set);
}

KUNIT_ARRAY_PARAM(coll_matrix, coll_matrix_cases, coll_matrix_desc);

/* one subtree's partial reduction, as the engine keeps it per element */
struct coll_part {
	u64 v;
	u32 loc;
	struct torus_xacc acc;
	struct torus_xprod prod;
};

static bool coll_float(u8 type)
{
	return type == TORUS_COLL_FLOAT || type == TORUS_COLL_DOUBLE;
}

static void coll_part_init(struct coll_part *p, u8 type, u8 op, u64 v,
			   u32 rank)
{
	p->v = torus_coll_prepare(type, op, v);
	p->loc = rank;
	torus_xacc_init(&p->acc);
	torus_xprod_init(&p->prod);
	if (type == TORUS_COLL_DOUBLE) {
		torus_xacc_add_f64(&p->acc, v);
		torus_xprod_mul_f64(&p->prod, v);
	} else if (type == TORUS_COLL_FLOAT) {
		torus_xacc_add_f32(&p->acc, v);
		torus_xprod_mul_f32(&p->prod, v);
	}
}

/* @a takes in @b, through the wire forms for the exact ones */
static void coll_part_merge(struct kunit *test, struct coll_part *a,
			    const struct coll_part *b, u8 type, u8 op, u8 *wire)
{
	size_t len;

	if (coll_float(type) && op == TORUS_COLL_SUM) {
		len = torus_xacc_encode(&b->acc, wire, TORUS_XPROD_WIRE_MAX);
		KUNIT_EXPECT_EQ(test, torus_xacc_decode_merge(&a->acc, wire, len),
				len);
	} else if (coll_float(type) && op == TORUS_COLL_PROD) {
		len = torus_xprod_encode(&b->prod, wire, TORUS_XPROD_WIRE_MAX);
		KUNIT_EXPECT_EQ(test,
				torus_xprod_decode_merge(&a->prod, wire, len),
				len);
	} else if (torus_coll_op_has_loc(op)) {
		a->v = torus_coll_combine_loc(type, op, a->v, a->loc, b->v,
					      b->loc, &a->loc);
	} else {
		a->v = torus_coll_combine(type, op, a->v, b->v);
	}
}

static u64 coll_part_result(struct kunit *test, const struct coll_part *p,
			    u8 type, u8 op)
{
	bool sum = coll_float(type) && op == TORUS_COLL_SUM;
	bool prod = coll_float(type) && op == TORUS_COLL_PROD;
	u64 out = 0;
	int err;

	err = torus_coll_finalize(type, op, p->v, sum ? &p->acc : NULL,
				  prod ? &p->prod : NULL, &out);
	KUNIT_EXPECT_EQ(test, err, 0);
	return out;
}

/*
 * The five values reduced along a chain 0 <- 1 <- ... <- 4, the chain
 * the other way, and a tree ((0 1) (2 (3 4))): the same bits each way,
 * the reference's, and the lowest rank holding them.
 */
static void torus_coll_matrix_test(struct kunit *test)
{
	static const u8 tree[][2] = { { 0, 1 }, { 3, 4 }, { 2, 3 }, { 0, 2 } };
	const struct coll_matrix_case *c = test->param_value;
	const u64 *in = coll_matrix_inputs[c->type][c->set];
	struct coll_part *p;
	unsigned int shape, i;
	u8 *wire;

	KUNIT_ASSERT_TRUE(test, torus_coll_op_valid(c->type, c->op));
	p = kunit_kcalloc(test, COLL_MATRIX_NODES, sizeof(*p), GFP_KERNEL);
	wire = kunit_kzalloc(test, TORUS_XPROD_WIRE_MAX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_NOT_NULL(test, wire);
	for (shape = 0; shape < 3; shape++) {
		for (i = 0; i < COLL_MATRIX_NODES; i++)
			coll_part_init(&p[i], c->type, c->op, in[i], i);
		for (i = 0; i + 1 < COLL_MATRIX_NODES && shape < 2; i++) {
			unsigned int hi = COLL_MATRIX_NODES - 1 - i;

			if (shape == 0)	/* 3 takes 4, 2 takes 3, ... */
				coll_part_merge(test, &p[hi - 1], &p[hi],
						c->type, c->op, wire);
			else		/* 1 takes 0, 2 takes 1, ... */
				coll_part_merge(test, &p[i + 1], &p[i],
						c->type, c->op, wire);
		}
		for (i = 0; i < ARRAY_SIZE(tree) && shape == 2; i++)
			coll_part_merge(test, &p[tree[i][0]], &p[tree[i][1]],
					c->type, c->op, wire);
		i = shape == 1 ? COLL_MATRIX_NODES - 1 : 0;
		KUNIT_EXPECT_EQ_MSG(test, coll_part_result(test, &p[i], c->type,
							   c->op),
				    c->want, "tree shape %u", shape);
		if (torus_coll_op_has_loc(c->op))
			KUNIT_EXPECT_EQ_MSG(test, p[i].loc, c->loc,
					    "tree shape %u", shape);
	}
}

/* A product too long to hold exactly is refused, not rounded early. */
static void torus_coll_prod_overflow_test(struct kunit *test)
{
	struct torus_xprod *a;
	unsigned int i;
	u64 out;

	a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	torus_xprod_init(a);
	/* 1 + 2^-52: 53 significant bits each; 77 fit, 80 do not */
	for (i = 0; i < 77; i++)
		torus_xprod_mul_f64(a, 0x3ff0000000000001ULL);
	KUNIT_EXPECT_EQ(test, torus_coll_finalize(TORUS_COLL_DOUBLE,
						  TORUS_COLL_PROD, 0, NULL, a,
						  &out), 0);
	for (i = 0; i < 3; i++)
		torus_xprod_mul_f64(a, 0x3ff0000000000001ULL);
	KUNIT_EXPECT_EQ(test, torus_coll_finalize(TORUS_COLL_DOUBLE,
						  TORUS_COLL_PROD, 0, NULL, a,
						  &out), -EOVERFLOW);
}

/* ---- the default tree ---- */

struct coll_tree_case {
	const char *name;
	u8 ndims, wrap;
	u16 dims[TORUS_MAX_AXES];
	unsigned int depth;	/* hops from the farthest node to the root */
};

static const struct coll_tree_case coll_tree_cases[] = {
	{ "3x3x3 torus", 3, 7, { 3, 3, 3 }, 3 },
	{ "4x4x4 torus", 3, 7, { 4, 4, 4 }, 6 },
	{ "4x4 mesh", 2, 0, { 4, 4 }, 6 },
	{ "ring of 2", 1, 1, { 2 }, 1 },
	{ "5x1x3 mixed", 3, 4, { 5, 1, 3 }, 5 },
	{ "8x8x8 torus", 3, 7, { 8, 8, 8 }, 12 },
};

static void coll_tree_desc(const struct coll_tree_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(coll_tree, coll_tree_cases, coll_tree_desc);

static bool coll_tree_next(const struct coll_tree_case *c, u8 *coord)
{
	unsigned int axis;

	for (axis = 0; axis < c->ndims; axis++) {
		if (++coord[axis] < c->dims[axis])
			return true;
		coord[axis] = 0;
	}
	return false;
}

/* Every node reaches the root by its parents within the depth, and a
 * node's children are exactly the neighbours whose parent it is.
 */
static void torus_coll_tree_test(struct kunit *test)
{
	const struct coll_tree_case *c = test->param_value;
	u8 coord[TORUS_MAX_AXES] = { 0 }, cur[TORUS_MAX_AXES];
	unsigned int nodes = 0, edges = 0, deepest = 0;

	do {
		unsigned int hops = 0;
		u32 children;
		u8 dir;

		nodes++;
		edges += hweight32(torus_coll_tree_children(c->ndims, c->dims,
							    c->wrap, coord));
		memcpy(cur, coord, sizeof(cur));
		while ((dir = torus_coll_tree_parent(c->ndims, c->dims,
						     c->wrap, cur)) !=
		       TORUS_DIR_NONE && hops <= c->depth) {
			unsigned int axis = TORUS_DIR_AXIS(dir);
			int next = cur[axis] + (TORUS_DIR_NEG(dir) ? -1 : 1);

			cur[axis] = (next + c->dims[axis]) % c->dims[axis];
			KUNIT_ASSERT_TRUE(test, TORUS_DIR_NEG(dir) ||
					  (c->wrap & BIT(axis)));
			children = torus_coll_tree_children(c->ndims, c->dims,
							    c->wrap, cur);
			KUNIT_ASSERT_TRUE(test, children &
					  BIT(TORUS_DIR_OPPOSITE(dir)));
			hops++;
		}
		KUNIT_EXPECT_LE(test, hops, c->depth);
		deepest = max(deepest, hops);
	} while (coll_tree_next(c, coord));
	KUNIT_EXPECT_EQ(test, edges, nodes - 1);
	KUNIT_EXPECT_EQ(test, deepest, c->depth);
}

static struct kunit_case torus_coll_math_cases[] = {
	KUNIT_CASE(torus_xacc_exact_test),
	KUNIT_CASE(torus_xacc_specials_test),
	KUNIT_CASE(torus_xacc_wire_test),
	KUNIT_CASE(torus_xacc_float_test),
	KUNIT_CASE_PARAM(torus_coll_combine_test, coll_combine_gen_params),
	KUNIT_CASE(torus_coll_op_valid_test),
	KUNIT_CASE_PARAM(torus_coll_matrix_test, coll_matrix_gen_params),
	KUNIT_CASE(torus_coll_prod_overflow_test),
	KUNIT_CASE_PARAM(torus_coll_tree_test, coll_tree_gen_params),
	{}
};

static struct kunit_suite torus_coll_math_suite = {
	.name = "torus_coll_math",
	.test_cases = torus_coll_math_cases,
};

kunit_test_suite(torus_coll_math_suite);
