// SPDX-License-Identifier: GPL-2.0
/*
 * gen_corpus_kernel.c - fuzz_kframe seeds: node geometries, route
 * exceptions and frames whose headers torus_hdr_init() builds, from the
 * same kernel sources the harness runs.
 */
#include "../../kernel/torus_frame.c"
#include "../../kernel/torus_route.c"

#include "gen_corpus.h"

struct kf_seed {
	const char *name;
	u8 ndims, wrap;
	u8 dims[TORUS_MAX_AXES];
	u8 coord[TORUS_MAX_AXES];
	u8 src[TORUS_MAX_AXES];
	u8 dst[TORUS_MAX_AXES];
	u16 proto;	/* host order */
	bool via;
	u8 via_at[TORUS_MAX_AXES];
	u8 nroutes;
	bool route_via;
	bool v6;
	u16 down;	/* directions whose port cannot send */
	u8 in_dir;	/* 0: at the source, else direction + 1 */
};

static void kf_geom(struct seed *s, const struct kf_seed *k)
{
	unsigned int axis;

	seed_u8(s, k->ndims - 1);
	seed_u8(s, k->wrap);
	for (axis = 0; axis < TORUS_MAX_AXES; axis++)
		seed_u8(s, k->dims[axis] ? k->dims[axis] - 1 : 0);
	seed_put(s, k->coord, TORUS_MAX_AXES);
}

static void kf_one(const char *dir, const struct kf_seed *k)
{
	static const u8 v6_prefix[8] = TORUS_IPV6_PREFIX;
	struct seed s = { .len = 0 };
	struct torus_hdr h;
	unsigned int i;

	kf_geom(&s, k);
	seed_u8(&s, k->nroutes);
	for (i = 0; i < k->nroutes; i++) {
		seed_put(&s, k->dst, TORUS_MAX_AXES);
		if (k->route_via) {
			seed_u8(&s, 0x80);
			seed_put(&s, k->via_at, TORUS_MAX_AXES);
		} else {
			seed_u8(&s, (u8)(i + 1));	/* a direction */
		}
	}
	/* usable ports, big-endian, then the arrival direction */
	seed_u8(&s, (u8)(~k->down >> 8));
	seed_u8(&s, (u8)~k->down);
	seed_u8(&s, k->in_dir ? k->in_dir - 1 : TORUS_MAX_DIRS);
	torus_hdr_init(&h, TORUS_T_DATA, htons(k->proto), k->src, k->dst, 64);
	if (k->via) {
		h.flags |= TORUS_F_VIA;
		memcpy(h.via, k->via_at, TORUS_MAX_AXES);
	}
	seed_put(&s, &h, sizeof(h));
	/* the payload starts with the destination address */
	if (k->v6) {
		seed_put(&s, v6_prefix, sizeof(v6_prefix));
		seed_put(&s, k->dst, TORUS_MAX_AXES);
	} else {
		seed_u8(&s, 10);
		seed_put(&s, k->dst, 3);
	}
	seed_save(dir, "kframe", k->name, &s);
}

void gen_kframe(const char *dir)
{
	static const struct kf_seed seeds[] = {
		{ .name = "torus-4x4x4-ipv4", .ndims = 3, .wrap = 7,
		  .dims = { 4, 4, 4 }, .coord = { 1, 2, 3 },
		  .src = { 0, 0, 0 }, .dst = { 3, 1, 0 },
		  .proto = ETH_P_IP },
		{ .name = "mesh-3x5-ipv6", .ndims = 2, .wrap = 0,
		  .dims = { 3, 5 }, .coord = { 2, 0 },
		  .src = { 0, 4 }, .dst = { 1, 3 },
		  .proto = ETH_P_IPV6, .v6 = true },
		{ .name = "torus-via", .ndims = 3, .wrap = 7,
		  .dims = { 4, 4, 4 }, .coord = { 1, 0, 0 },
		  .src = { 0, 0, 0 }, .dst = { 2, 2, 2 },
		  .proto = ETH_P_IP, .via = true,
		  .via_at = { 1, 0, 0 } },
		{ .name = "route-via-exception", .ndims = 2, .wrap = 3,
		  .dims = { 8, 8 }, .coord = { 0, 0 },
		  .src = { 0, 0 }, .dst = { 5, 5 },
		  .proto = ETH_P_IP, .nroutes = 1, .route_via = true,
		  .via_at = { 0, 5 } },
		{ .name = "route-dir-exceptions", .ndims = 2, .wrap = 1,
		  .dims = { 8, 8 }, .coord = { 3, 3 },
		  .src = { 0, 0 }, .dst = { 3, 7 },
		  .proto = ETH_P_IP, .nroutes = 3 },
		{ .name = "delivered-here", .ndims = 1, .wrap = 1,
		  .dims = { 16 }, .coord = { 9 },
		  .src = { 2 }, .dst = { 9 }, .proto = ETH_P_IP },
		{ .name = "8-axes", .ndims = 8, .wrap = 0xaa,
		  .dims = { 2, 3, 4, 5, 2, 3, 4, 5 },
		  .coord = { 1, 2, 3, 4, 0, 1, 2, 3 },
		  .src = { 0, 0, 0, 0, 1, 1, 1, 1 },
		  .dst = { 1, 1, 1, 1, 1, 1, 1, 1 },
		  .proto = ETH_P_IPV6, .v6 = true },
		/* +x cut: a productive +y detour, then a non-minimal one */
		{ .name = "detour-productive", .ndims = 2, .wrap = 0,
		  .dims = { 4, 4 }, .coord = { 1, 1 },
		  .src = { 0, 1 }, .dst = { 3, 3 }, .proto = ETH_P_IP,
		  .down = 1 << TORUS_DIR(0, 0), .in_dir = 1 + TORUS_DIR(0, 1) },
		{ .name = "detour-nonminimal", .ndims = 3, .wrap = 7,
		  .dims = { 4, 4, 4 }, .coord = { 1, 0, 0 },
		  .src = { 0, 0, 0 }, .dst = { 2, 0, 0 }, .proto = ETH_P_IP,
		  .down = 1 << TORUS_DIR(0, 0), .in_dir = 1 + TORUS_DIR(0, 1) },
	};
	unsigned int i;

	for (i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++)
		kf_one(dir, &seeds[i]);
}
