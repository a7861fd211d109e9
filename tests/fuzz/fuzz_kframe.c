// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_kframe.c - the kernel's frame parser, header check, routing and
 * address plan (kernel/torus_frame.c, kernel/torus_route.c), compiled
 * unmodified as userspace code against kshim/, driven the way
 * torus_handle_frame() drives them.
 *
 * Input: the node's geometry and route exceptions (made valid the way
 * the netlink policy makes them valid), then the received frame:
 *   u8 ndims, u8 wrap, u8 dims[8] (extent - 1), u8 coord[8] (mod extent),
 *   u8 nroutes (mod 8), per route: u8 dst[8], u8 kind, u8 via_or_dir[8],
 *   u16 usable ports (bit per direction), u8 arrival direction,
 *   then the frame from the torus header on (any length).
 * Invariants checked beyond the sanitizers: a frame that passes
 * torus_hdr_check() is routed out on an axis the node has or delivered
 * only at its destination, and dimension-ordered routing walks from
 * here to the destination in exactly torus_dor_hops() hops, never off
 * the end of a mesh line.
 */
#include "../../kernel/torus_frame.c"
#include "../../kernel/torus_route.c"

#include "fuzz_input.h"

#define KF_MAX_ROUTES	8

static void kf_read_coord(struct fz *f, const struct torus_geom *g, u8 *c)
{
	unsigned int axis;

	for (axis = 0; axis < TORUS_MAX_AXES; axis++) {
		u8 b = fz_u8(f);

		c[axis] = axis < g->ndims ? b % g->dims[axis] : 0;
	}
}

static void kf_read_geom(struct fz *f, struct torus_geom *g)
{
	unsigned int axis;

	memset(g, 0, sizeof(*g));
	g->ndims = 1 + fz_u8(f) % TORUS_MAX_AXES;
	g->wrap = fz_u8(f) & (BIT(g->ndims) - 1);
	for (axis = 0; axis < TORUS_MAX_AXES; axis++) {
		u16 ext = 1 + fz_u8(f);

		if (axis < g->ndims)
			g->dims[axis] = ext;
	}
	kf_read_coord(f, g, g->coord);
}

/* the route table as route add would build it, through upsert */
static struct torus_rtable *kf_read_routes(struct fz *f,
					   const struct torus_geom *g)
{
	unsigned int i, n = fz_u8(f) % (KF_MAX_ROUTES + 1);
	struct torus_rtable *rt = NULL, *next;

	for (i = 0; i < n; i++) {
		struct torus_route_exc exc = { .dir = TORUS_DIR_NONE };
		u8 kind;

		kf_read_coord(f, g, exc.dst);
		kind = fz_u8(f);
		if (kind & 0x80) {
			exc.has_via = true;
			kf_read_coord(f, g, exc.via);
		} else {
			exc.dir = kind % (2 * g->ndims);
		}
		next = torus_rtable_upsert(rt, &exc);
		FZ_ASSERT(!IS_ERR(next));
		kvfree(rt);
		rt = next;
		FZ_ASSERT(torus_rtable_lookup(rt, exc.dst));
	}
	return rt;
}

/* one hop along global direction @dir */
static void kf_step(const struct torus_geom *g, u8 *c, u8 dir)
{
	unsigned int axis = TORUS_DIR_AXIS(dir), ext = g->dims[axis];

	FZ_ASSERT(axis < g->ndims);
	if (TORUS_DIR_NEG(dir)) {
		FZ_ASSERT((g->wrap & BIT(axis)) || c[axis] > 0);
		c[axis] = (c[axis] + ext - 1) % ext;
	} else {
		FZ_ASSERT((g->wrap & BIT(axis)) || c[axis] + 1u < ext);
		c[axis] = (c[axis] + 1) % ext;
	}
}

static void kf_check_dor(const struct torus_geom *g, const u8 *dst)
{
	unsigned int hops = torus_dor_hops(g, g->coord, dst), walked = 0;
	u8 cur[TORUS_MAX_AXES];
	u8 dir;

	memcpy(cur, g->coord, sizeof(cur));
	while ((dir = torus_dor_next_dir(g, cur, dst)) != TORUS_DIR_NONE) {
		kf_step(g, cur, dir);
		FZ_ASSERT(++walked <= hops);
	}
	FZ_ASSERT(walked == hops);
	FZ_ASSERT(!memcmp(cur, dst, TORUS_MAX_AXES));
}

static void kf_route(const struct torus_geom *g,
		     const struct torus_rtable *rt, const struct torus_hdr *h,
		     bool at_source, u16 usable, u8 in_dir)
{
	struct torus_route_ctx ctx = {
		.g = g, .rt = rt, .usable = usable, .in_dir = in_dir,
		.at_source = at_source,
	};
	struct torus_hdr copy = *h;
	u8 dir, why;

	dir = torus_route(&ctx, &copy, &why);
	if (dir == TORUS_DIR_NONE) {
		FZ_ASSERT(!memcmp(copy.dst, g->coord, TORUS_MAX_AXES));
		return;
	}
	/* no plan table here: only plan 0 exists */
	if (dir == TORUS_ROUTE_NO_PLAN) {
		FZ_ASSERT(TORUS_VC_PLAN(copy.vc) != 0);
		return;
	}
	FZ_ASSERT(TORUS_DIR_AXIS(dir) < g->ndims);
	/* a detour only ever takes a port that can send */
	if (why == TORUS_WHY_DETOUR)
		FZ_ASSERT(usable & BIT(dir));
	/* what leaves here still passes the next node's check */
	FZ_ASSERT(torus_hdr_check(&copy, g) == TORUS_PASS);
}

/* the address plan: what a data frame's destination address maps to */
static void kf_addresses(const struct torus_geom *g, const u8 *p, size_t n)
{
	u8 coord[TORUS_MAX_AXES];
	struct in6_addr a6;
	__be32 a4;

	if (n >= sizeof(a4)) {
		memcpy(&a4, p, sizeof(a4));
		if (!torus_addr4_to_coord(g, a4, coord)) {
			FZ_ASSERT(torus_coord_valid(g, coord));
			FZ_ASSERT(torus_coord_to_addr4(coord) == a4);
		}
	}
	if (n >= sizeof(a6)) {
		memcpy(&a6, p, sizeof(a6));
		if (!torus_addr6_to_coord(g, &a6, coord)) {
			struct in6_addr back;

			FZ_ASSERT(torus_coord_valid(g, coord));
			torus_coord_to_addr6(coord, &back);
			FZ_ASSERT(!memcmp(&back, &a6, sizeof(a6)));
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = { .p = data, .n = size };
	struct torus_rtable *rt, *rest;
	struct torus_geom g;
	u8 in_dir;
	u16 usable;
	struct torus_hdr *h;
	struct sk_buff skb;
	unsigned char *frame;
	size_t len;

	kf_read_geom(&f, &g);
	FZ_ASSERT(torus_coord_valid(&g, g.coord));
	rt = kf_read_routes(&f, &g);
	usable = fz_u16(&f);
	in_dir = fz_u8(&f) % (TORUS_MAX_DIRS + 1);
	in_dir = in_dir == TORUS_MAX_DIRS ? TORUS_DIR_NONE : in_dir;

	/* exactly the frame's bytes, so ASan sees any read past them */
	len = f.n;
	frame = malloc(len ? len : 1);
	if (!frame)
		return 0;
	memcpy(frame, f.p, len);
	skb.data = frame;
	skb.len = (unsigned int)len;

	if (torus_frame_pull(&skb, &h)) {
		kf_addresses(&g, skb.data + TORUS_HDR_LEN,
			     skb.len - TORUS_HDR_LEN);
		if (torus_hdr_check(h, &g) == TORUS_PASS) {
			kf_check_dor(&g, h->dst);
			kf_route(&g, rt, h, false, usable, in_dir);
			kf_route(&g, rt, h, true, usable, TORUS_DIR_NONE);
			rest = torus_rtable_remove(rt, h->dst);
			if (!IS_ERR(rest)) {
				FZ_ASSERT(!torus_rtable_lookup(rest, h->dst));
				kvfree(rest);
			}
		}
	} else {
		FZ_ASSERT(len < TORUS_HDR_LEN);
	}
	free(frame);
	kvfree(rt);
	return 0;
}
