// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: frame header build, pull and validation, including truncated
 * and hostile frames.
 */
#include <kunit/test.h>
#include <linux/if_ether.h>
#include <linux/skbuff.h>

#include "torus_priv.h"

static const struct torus_geom torus_test_geom = {
	.ndims = 3, .wrap = 0x7, .dims = { 4, 4, 4 }, .coord = { 1, 1, 1 },
};

static const u8 torus_test_src[TORUS_MAX_AXES] = { 0, 0, 0 };
static const u8 torus_test_dst[TORUS_MAX_AXES] = { 3, 2, 1 };

static void torus_good_hdr(struct torus_hdr *h)
{
	torus_hdr_init(h, TORUS_T_DATA, htons(ETH_P_IP), torus_test_src,
		       torus_test_dst, 16);
}

static void torus_hdr_init_layout(struct kunit *test)
{
	struct torus_hdr h;
	const u8 *raw = (const u8 *)&h;

	torus_good_hdr(&h);
	KUNIT_EXPECT_EQ(test, sizeof(h), (size_t)TORUS_HDR_LEN);
	KUNIT_EXPECT_EQ(test, raw[0], TORUS_HDR_VERSION);
	KUNIT_EXPECT_EQ(test, raw[1], TORUS_T_DATA);
	KUNIT_EXPECT_EQ(test, raw[2], 16);
	KUNIT_EXPECT_EQ(test, raw[4], 0x08);	/* proto, big endian */
	KUNIT_EXPECT_EQ(test, raw[5], 0x00);
	KUNIT_EXPECT_EQ(test, raw[8], 3);	/* dst x */
	KUNIT_EXPECT_EQ(test, raw[10], 1);	/* dst z */
	KUNIT_EXPECT_EQ(test, raw[24], 0);	/* via empty */
	KUNIT_EXPECT_EQ(test, torus_hdr_check(&h, &torus_test_geom), TORUS_PASS);
}

struct torus_hostile_case {
	const char *name;
	unsigned int offset;	/* byte of the header to overwrite */
	u8 value;
	int reason;
};

static const struct torus_hostile_case torus_hostile_cases[] = {
	{ "version0", 0, 0, TORUS_DROP_VERSION },
	{ "version2", 0, 2, TORUS_DROP_VERSION },
	{ "type_ctrl", 1, TORUS_T_CTRL, TORUS_DROP_MALFORMED },
	{ "type_unknown", 1, 0xee, TORUS_DROP_MALFORMED },
	{ "type_coll_with_proto", 1, TORUS_T_COLL, TORUS_DROP_MALFORMED },
	{ "hop_limit0", 2, 0, TORUS_DROP_HOP_LIMIT },
	{ "unknown_flag", 3, 0x80, TORUS_DROP_MALFORMED },
	{ "proto_arp", 5, 0x06, TORUS_DROP_PROTO },
	{ "dst_x_outside", 8, 4, TORUS_DROP_BAD_ADDR },
	{ "dst_x_255", 8, 255, TORUS_DROP_BAD_ADDR },
	{ "dst_unused_axis", 11, 1, TORUS_DROP_BAD_ADDR },
	{ "dst_axis_e", 15, 1, TORUS_DROP_BAD_ADDR },
	{ "src_outside", 17, 9, TORUS_DROP_BAD_ADDR },
	{ "via_flag_bad_via", 3, TORUS_F_VIA, -1 },
};

static void torus_hostile_case_desc(const struct torus_hostile_case *c,
				    char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(torus_hostile, torus_hostile_cases, torus_hostile_case_desc);

static void torus_hdr_check_hostile(struct kunit *test)
{
	const struct torus_hostile_case *c = test->param_value;
	struct torus_hdr h;

	torus_good_hdr(&h);
	((u8 *)&h)[c->offset] = c->value;
	if (c->reason >= 0) {
		KUNIT_EXPECT_EQ(test, torus_hdr_check(&h, &torus_test_geom),
				c->reason);
		return;
	}
	/* via flagged: valid via passes, via outside the extents fails */
	h.via[0] = 2;
	KUNIT_EXPECT_EQ(test, torus_hdr_check(&h, &torus_test_geom), TORUS_PASS);
	h.via[2] = 4;
	KUNIT_EXPECT_EQ(test, torus_hdr_check(&h, &torus_test_geom),
			TORUS_DROP_BAD_ADDR);
}

static struct sk_buff *torus_test_skb(struct kunit *test, unsigned int len)
{
	struct sk_buff *skb = alloc_skb(len + 64, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_reserve(skb, 64);
	return skb;
}

static void torus_frame_pull_truncated(struct kunit *test)
{
	struct torus_hdr h, *hp = NULL;
	unsigned int len;

	torus_good_hdr(&h);
	for (len = 0; len < TORUS_HDR_LEN; len++) {
		struct sk_buff *skb = torus_test_skb(test, len);

		skb_put_data(skb, &h, len);
		KUNIT_EXPECT_FALSE(test, torus_frame_pull(skb, &hp));
		kfree_skb(skb);
	}
}

static void torus_frame_pull_ok(struct kunit *test)
{
	struct sk_buff *skb = torus_test_skb(test, TORUS_HDR_LEN + 20);
	struct torus_hdr h, *hp = NULL;

	torus_good_hdr(&h);
	skb_put_data(skb, &h, sizeof(h));
	skb_put_zero(skb, 20);
	KUNIT_ASSERT_TRUE(test, torus_frame_pull(skb, &hp));
	KUNIT_EXPECT_PTR_EQ(test, (void *)hp, (void *)skb->data);
	KUNIT_EXPECT_EQ(test, torus_hdr_check(hp, &torus_test_geom),
			TORUS_PASS);
	kfree_skb(skb);
}

/* A header split between the linear area and a page fragment. */
static void torus_frame_pull_nonlinear(struct kunit *test)
{
	struct sk_buff *skb = torus_test_skb(test, 8);
	struct torus_hdr h, *hp = NULL;
	struct page *page;

	torus_good_hdr(&h);
	skb_put_data(skb, &h, 8);
	page = alloc_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, page);
	memcpy(page_address(page), (u8 *)&h + 8, TORUS_HDR_LEN - 8);
	skb_add_rx_frag(skb, 0, page, 0, TORUS_HDR_LEN - 8, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, skb_headlen(skb), 8U);
	KUNIT_ASSERT_TRUE(test, torus_frame_pull(skb, &hp));
	KUNIT_EXPECT_GE(test, skb_headlen(skb), (unsigned int)TORUS_HDR_LEN);
	KUNIT_EXPECT_EQ(test, memcmp(hp, &h, sizeof(h)), 0);
	kfree_skb(skb);
}

static struct kunit_case torus_frame_test_cases[] = {
	KUNIT_CASE(torus_hdr_init_layout),
	KUNIT_CASE_PARAM(torus_hdr_check_hostile, torus_hostile_gen_params),
	KUNIT_CASE(torus_frame_pull_truncated),
	KUNIT_CASE(torus_frame_pull_ok),
	KUNIT_CASE(torus_frame_pull_nonlinear),
	{}
};

static struct kunit_suite torus_frame_test_suite = {
	.name = "torus_frame",
	.test_cases = torus_frame_test_cases,
};

kunit_test_suite(torus_frame_test_suite);
