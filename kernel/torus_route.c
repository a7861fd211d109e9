// SPDX-License-Identifier: GPL-2.0
/*
 * Routing logic with no device state: dimension-ordered routing, the
 * address plan and the route exception table.  Pure functions, so the
 * KUnit suites can drive them with tables.
 */
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <net/ipv6.h>

#include "torus_priv.h"

static const u8 torus_ipv6_prefix[8] = TORUS_IPV6_PREFIX;

/* Every used axis within its extent, every unused axis zero. */
bool torus_coord_valid(const struct torus_geom *g, const u8 *coord)
{
	unsigned int axis;

	for (axis = 0; axis < TORUS_MAX_AXES; axis++) {
		if (axis < g->ndims) {
			if (coord[axis] >= g->dims[axis])
				return false;
		} else if (coord[axis]) {
			return false;
		}
	}
	return true;
}

/* Plan 0: x first, the shortest way round, ties "+"; any geometry. */
static const struct torus_plan torus_plan_dor = {
	.order = { 0, 1, 2, 3, 4, 5, 6, 7 },
};

/**
 * torus_plan_get - plan @index of a node's table
 * @plans: the node's plans, may be NULL
 * @index: the plan index from a frame's vc
 *
 * Return: the plan, or NULL if the node has none by that index.
 */
const struct torus_plan *torus_plan_get(const struct torus_plans *plans,
					unsigned int index)
{
	if (!index)
		return &torus_plan_dor;
	if (!plans || index >= TORUS_MAX_PLANS ||
	    !(plans->present & BIT(index)))
		return NULL;
	return &plans->plan[index];
}

/*
 * Hops still to go on @axis from @c to @d the way plan @p goes round a
 * ring (meshes: the only way).
 */
static unsigned int torus_plan_axis_dist(const struct torus_geom *g,
					 const struct torus_plan *p,
					 unsigned int axis, unsigned int c,
					 unsigned int d)
{
	unsigned int ext = g->dims[axis], up = (d + ext - c) % ext;

	if (!(g->wrap & BIT(axis)))
		return c > d ? c - d : d - c;
	switch (p->policy[axis]) {
	case TORUS_PLAN_PLUS:
		return up;
	case TORUS_PLAN_MINUS:
		return (ext - up) % ext;
	default:
		return min(up, ext - up);
	}
}

/* The direction plan @p corrects @axis by, TORUS_DIR_NONE if equal. */
static u8 torus_plan_axis_dir(const struct torus_geom *g,
			      const struct torus_plan *p, unsigned int axis,
			      const u8 *cur, const u8 *dst)
{
	unsigned int ext = g->dims[axis], c = cur[axis], d = dst[axis], up;

	if (c == d)
		return TORUS_DIR_NONE;
	if (!(g->wrap & BIT(axis)))
		return TORUS_DIR(axis, d < c);
	switch (p->policy[axis]) {
	case TORUS_PLAN_PLUS:
		return TORUS_DIR(axis, 0);
	case TORUS_PLAN_MINUS:
		return TORUS_DIR(axis, 1);
	default:
		up = (d + ext - c) % ext;
		/* ties go "+", so every node breaks them alike */
		return TORUS_DIR(axis, up > ext - up);
	}
}

/**
 * torus_plan_next_dir - the direction plan @p leaves @cur by towards @dst
 * @g: the geometry
 * @p: the plan
 * @cur: where the frame is
 * @dst: where it goes
 * @skip_axes: axes corrected last, after the others in plan order (a
 *	detoured frame's non-minimal axes: correcting them first would lead
 *	it straight back to the fault)
 *
 * Return: a global direction, TORUS_DIR_NONE if @cur is @dst.
 */
u8 torus_plan_next_dir(const struct torus_geom *g, const struct torus_plan *p,
		       const u8 *cur, const u8 *dst, u8 skip_axes)
{
	unsigned int pass, i;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < g->ndims; i++) {
			unsigned int axis = p->order[i];
			u8 dir;

			if (!!(skip_axes & BIT(axis)) != pass)
				continue;
			dir = torus_plan_axis_dir(g, p, axis, cur, dst);
			if (dir != TORUS_DIR_NONE)
				return dir;
		}
	}
	return TORUS_DIR_NONE;
}

/*
 * The first axis (x first) on which @cur and @dst differ is corrected,
 * the shortest way around a ring; when both ways are equally long the
 * frame goes the "+" way, so every node breaks the tie alike.
 */
u8 torus_dor_next_dir(const struct torus_geom *g, const u8 *cur,
		      const u8 *dst)
{
	return torus_plan_next_dir(g, &torus_plan_dor, cur, dst, 0);
}

unsigned int torus_dor_hops(const struct torus_geom *g, const u8 *src,
			    const u8 *dst)
{
	unsigned int axis, hops = 0;

	for (axis = 0; axis < g->ndims; axis++) {
		unsigned int ext = g->dims[axis];
		unsigned int s = src[axis], d = dst[axis], up;

		if (!(g->wrap & BIT(axis))) {
			hops += s > d ? s - d : d - s;
			continue;
		}
		up = (d + ext - s) % ext;
		hops += min(up, ext - up);
	}
	return hops;
}

/* The longest dimension-ordered path between two nodes. */
unsigned int torus_diameter(const struct torus_geom *g)
{
	unsigned int axis, hops = 0;

	for (axis = 0; axis < g->ndims; axis++)
		hops += g->wrap & BIT(axis) ? g->dims[axis] / 2 :
					      g->dims[axis] - 1;
	return hops;
}

/**
 * torus_vc_next - a frame's vc on the hop it takes by @out_dir
 * @g: the geometry of the node sending it
 * @vc: the frame's vc (plan and round already current)
 * @in_dir: global direction of the port it came in by, TORUS_DIR_NONE
 *	at the source
 * @out_dir: global direction it leaves by
 *
 * The dateline bit stays set while the frame keeps to the axis it
 * arrived on and is set when this hop crosses the ring's wrap cable.
 *
 * Return: the new vc.
 */
u8 torus_vc_next(const struct torus_geom *g, u8 vc, u8 in_dir, u8 out_dir)
{
	unsigned int axis = TORUS_DIR_AXIS(out_dir), c = g->coord[axis];
	bool dateline = TORUS_VC_DATELINE(vc) && in_dir != TORUS_DIR_NONE &&
			TORUS_DIR_AXIS(in_dir) == axis;

	if (g->wrap & BIT(axis) && g->dims[axis] > 1 &&
	    (TORUS_DIR_NEG(out_dir) ? c == 0 : c == g->dims[axis] - 1))
		dateline = true;
	return TORUS_VC(TORUS_VC_PLAN(vc), TORUS_VC_ROUND(vc), dateline);
}

/**
 * torus_detour_dir - a way round a port that cannot send
 * @g: this node's geometry
 * @p: the frame's plan
 * @h: the frame's header; TORUS_F_DETOUR and @traversed are updated
 * @blocked: the direction the plan chose
 * @usable: bit per direction whose port can send
 *
 * FTROUTE-like, from header state only: first a productive direction on
 * another axis (one that brings the frame closer, in plan order), else a
 * non-minimal step on an axis not yet in @h->traversed, the one that is
 * cheapest to undo.  Each axis takes at most one non-minimal step, so a
 * detoured frame travels at most its distance + 2 * (ndims - 1) hops
 * while the faults stay put; the hop limit ends anything longer.
 *
 * Return: the direction to take, TORUS_DIR_NONE if there is none.
 */
u8 torus_detour_dir(const struct torus_geom *g, const struct torus_plan *p,
		    struct torus_hdr *h, u8 blocked, u16 usable)
{
	const u8 *target = h->flags & TORUS_F_VIA ? h->via : h->dst;
	unsigned int i, best_cost = UINT_MAX, bad = TORUS_DIR_AXIS(blocked);
	u8 best = TORUS_DIR_NONE;

	/* productive: a step that shortens this axis's way (on a ring
	 * with both ways equally long, either one)
	 */
	for (i = 0; i < g->ndims && best == TORUS_DIR_NONE; i++) {
		unsigned int axis = p->order[i], ext = g->dims[axis], neg;
		unsigned int togo = torus_plan_axis_dist(g, p, axis,
							 g->coord[axis],
							 target[axis]);

		if (axis == bad || !togo)
			continue;
		for (neg = 0; neg < 2 && best == TORUS_DIR_NONE; neg++) {
			u8 dir = TORUS_DIR(axis, neg);
			unsigned int next;

			if (!(usable & BIT(dir)))
				continue;
			next = (g->coord[axis] + (neg ? ext - 1 : 1)) % ext;
			if (torus_plan_axis_dist(g, p, axis, next,
						 target[axis]) < togo)
				best = dir;
		}
	}
	for (i = 0; i < g->ndims && best == TORUS_DIR_NONE; i++) {
		unsigned int axis = p->order[i], ext = g->dims[axis], neg;

		if (axis == bad || h->traversed & BIT(axis))
			continue;
		for (neg = 0; neg < 2; neg++) {
			u8 dir = TORUS_DIR(axis, neg);
			unsigned int next, cost;

			if (!(usable & BIT(dir)))
				continue;
			next = (g->coord[axis] + (neg ? ext - 1 : 1)) % ext;
			cost = torus_plan_axis_dist(g, p, axis, next,
						    target[axis]);
			if (cost < best_cost) {
				best_cost = cost;
				best = dir;
			}
		}
		if (best != TORUS_DIR_NONE)
			h->traversed |= BIT(axis);
	}
	if (best != TORUS_DIR_NONE)
		h->flags |= TORUS_F_DETOUR;
	return best;
}

/**
 * torus_route - the direction a frame leaves this node by
 * @ctx: what the node knows: geometry, tables, usable ports, where the
 *	frame came from
 * @h: the frame's header; via state, vc, detour state are updated
 * @why: set to enum torus_route_why
 *
 * At the source an exception picks the frame's plan and may start round
 * one towards an intermediate node; a node reached as the intermediate
 * starts round two.  A "dir" exception overrides the planned direction
 * at any node while the frame is not in round one.  When the chosen
 * port cannot send, a local detour is tried (torus_detour_dir()).
 *
 * Return: a global direction (possibly one whose port cannot send: the
 * caller drops and counts), TORUS_DIR_NONE when the frame is for this
 * node, or TORUS_ROUTE_NO_PLAN.
 */
u8 torus_route(const struct torus_route_ctx *ctx, struct torus_hdr *h,
	       u8 *why)
{
	const struct torus_geom *g = ctx->g;
	const struct torus_route_exc *exc = NULL;
	const struct torus_plan *p;
	u8 dir, detour;

	*why = TORUS_WHY_LOCAL;
	if (!memcmp(h->dst, g->coord, TORUS_MAX_AXES))
		return TORUS_DIR_NONE;
	*why = TORUS_WHY_DOR;

	if (ctx->rt && !(h->flags & TORUS_F_VIA))
		exc = torus_rtable_lookup(ctx->rt, h->dst);

	if (ctx->at_source) {
		h->vc = TORUS_VC(exc ? exc->plan : 0, 0, 0);
		if (exc)
			*why = TORUS_WHY_EXCEPTION;
		if (exc && exc->has_via &&
		    memcmp(exc->via, g->coord, TORUS_MAX_AXES)) {
			memcpy(h->via, exc->via, TORUS_MAX_AXES);
			h->flags |= TORUS_F_VIA |
				    exc->plan1 << TORUS_F_PLAN1_SHIFT;
		} else if (exc && exc->has_via) {
			/* the source is the intermediate: round 1 at once */
			h->vc = TORUS_VC(exc->plan1, 1, 0);
		}
	}

	if ((h->flags & TORUS_F_VIA) && !memcmp(h->via, g->coord,
						TORUS_MAX_AXES)) {
		/* round 1: its own plan and channels, no dateline crossed */
		h->vc = TORUS_VC(h->flags >> TORUS_F_PLAN1_SHIFT, 1, 0);
		h->flags &= ~(TORUS_F_VIA | TORUS_F_PLAN1_MASK);
		memset(h->via, 0, TORUS_MAX_AXES);
	} else if (h->flags & TORUS_F_VIA) {
		/* towards the intermediate is round 0, whatever was written */
		h->vc = TORUS_VC(TORUS_VC_PLAN(h->vc), 0,
				 TORUS_VC_DATELINE(h->vc));
	}

	p = torus_plan_get(ctx->plans, TORUS_VC_PLAN(h->vc));
	if (!p || (p->ndims && p->ndims != g->ndims))
		return TORUS_ROUTE_NO_PLAN;

	if (h->flags & TORUS_F_VIA) {
		dir = torus_plan_next_dir(g, p, g->coord, h->via,
					  h->traversed);
	} else if (exc && !exc->has_via && exc->dir != TORUS_DIR_NONE) {
		*why = TORUS_WHY_EXCEPTION;
		dir = exc->dir;
	} else {
		dir = torus_plan_next_dir(g, p, g->coord, h->dst,
					  h->traversed);
	}

	if (dir < TORUS_MAX_DIRS && !(ctx->usable & BIT(dir))) {
		detour = torus_detour_dir(g, p, h, dir, ctx->usable);
		if (detour != TORUS_DIR_NONE) {
			*why = TORUS_WHY_DETOUR;
			dir = detour;
		}
	}
	h->vc = torus_vc_next(g, h->vc, ctx->in_dir, dir);
	return dir;
}

/* IPv4: 10.X.Y.Z, up to three axes */
int torus_addr4_to_coord(const struct torus_geom *g, __be32 addr, u8 *coord)
{
	u32 a = ntohl(addr);

	memset(coord, 0, TORUS_MAX_AXES);
	if ((a >> 24) != (TORUS_IPV4_PREFIX >> 24))
		return -EADDRNOTAVAIL;
	coord[0] = (a >> 16) & 0xff;
	coord[1] = (a >> 8) & 0xff;
	coord[2] = a & 0xff;
	return torus_coord_valid(g, coord) ? 0 : -EADDRNOTAVAIL;
}

__be32 torus_coord_to_addr4(const u8 *coord)
{
	return htonl(TORUS_IPV4_PREFIX | coord[0] << 16 | coord[1] << 8 |
		     coord[2]);
}

/* IPv6: the /64 prefix, then one coordinate byte per axis */
int torus_addr6_to_coord(const struct torus_geom *g,
			 const struct in6_addr *addr, u8 *coord)
{
	memset(coord, 0, TORUS_MAX_AXES);
	if (memcmp(addr->s6_addr, torus_ipv6_prefix, 8))
		return -EADDRNOTAVAIL;
	memcpy(coord, &addr->s6_addr[8], TORUS_MAX_AXES);
	return torus_coord_valid(g, coord) ? 0 : -EADDRNOTAVAIL;
}

void torus_coord_to_addr6(const u8 *coord, struct in6_addr *addr)
{
	memcpy(addr->s6_addr, torus_ipv6_prefix, 8);
	memcpy(&addr->s6_addr[8], coord, TORUS_MAX_AXES);
}

/* All eight coordinate bytes as one hash key. */
static u32 torus_rtable_hash(const struct torus_rtable *rt, const u8 *dst)
{
	u64 key;

	memcpy(&key, dst, sizeof(key));
	return hash_64(key, ilog2(rt->hash_mask + 1)) & rt->hash_mask;
}

/**
 * torus_rtable_lookup - the exception for @dst, O(1) per frame
 * @rt: the table, may be NULL
 * @dst: destination coordinates
 *
 * Open addressing with linear probing at a load of at most 1/2: the
 * expected probes stay below two whatever the table's size, where a
 * binary search over 40,000 entries takes 16 dependent loads.
 *
 * Return: the exception, or NULL.
 */
const struct torus_route_exc *
torus_rtable_lookup(const struct torus_rtable *rt, const u8 *dst)
{
	u32 i, e;

	if (!rt || !rt->count)
		return NULL;
	for (i = torus_rtable_hash(rt, dst); (e = rt->slot[i]);
	     i = (i + 1) & rt->hash_mask)
		if (!memcmp(rt->exc[e - 1].dst, dst, TORUS_MAX_AXES))
			return &rt->exc[e - 1];
	return NULL;
}

/* Room for @count exceptions and a hash index of twice as many slots. */
static struct torus_rtable *torus_rtable_alloc(u32 count, gfp_t gfp)
{
	u32 slots = roundup_pow_of_two(max(2 * count, 2U));
	struct torus_rtable *rt;
	size_t off = ALIGN(struct_size(rt, exc, count), sizeof(u32));

	rt = kvzalloc(off + slots * sizeof(u32), gfp);
	if (!rt)
		return NULL;
	rt->count = count;
	rt->hash_mask = slots - 1;
	rt->slot = (u32 *)((u8 *)rt + off);
	return rt;
}

/* Index the @count entries of a table built by one of the builders. */
static struct torus_rtable *torus_rtable_index(struct torus_rtable *rt)
{
	u32 e, i;

	memset(rt->slot, 0, (rt->hash_mask + 1) * sizeof(u32));
	for (e = 0; e < rt->count; e++) {
		for (i = torus_rtable_hash(rt, rt->exc[e].dst); rt->slot[i];
		     i = (i + 1) & rt->hash_mask)
			;
		rt->slot[i] = e + 1;
	}
	return rt;
}

/* Index of the first entry not below @dst. */
static u32 torus_rtable_pos(const struct torus_rtable *rt, const u8 *dst)
{
	u32 lo = 0, hi = rt ? rt->count : 0;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (memcmp(rt->exc[mid].dst, dst, TORUS_MAX_AXES) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/**
 * torus_rtable_upsert - a copy of @old with @exc added or replaced
 * @old: current table, may be NULL
 * @exc: the exception
 *
 * Return: the new table, or an ERR_PTR.
 */
struct torus_rtable *torus_rtable_upsert(const struct torus_rtable *old,
					 const struct torus_route_exc *exc)
{
	u32 n = old ? old->count : 0, pos = torus_rtable_pos(old, exc->dst);
	bool replace = pos < n &&
		       !memcmp(old->exc[pos].dst, exc->dst, TORUS_MAX_AXES);
	struct torus_rtable *rt;

	if (!replace && n >= TORUS_MAX_ROUTES)
		return ERR_PTR(-ENOSPC);
	rt = torus_rtable_alloc(replace ? n : n + 1, GFP_KERNEL);
	if (!rt)
		return ERR_PTR(-ENOMEM);
	if (pos)
		memcpy(rt->exc, old->exc, pos * sizeof(*exc));
	rt->exc[pos] = *exc;
	if (replace)
		pos++;
	if (n > pos)
		memcpy(&rt->exc[replace ? pos : pos + 1], &old->exc[pos],
		       (n - pos) * sizeof(*exc));
	return torus_rtable_index(rt);
}

/**
 * torus_rtable_remove - a copy of @old without the entry for @dst
 * @old: current table, may be NULL
 * @dst: destination coordinates
 *
 * Return: the new table, or ERR_PTR(-ENOENT) if there is no such entry.
 */
struct torus_rtable *torus_rtable_remove(const struct torus_rtable *old,
					 const u8 *dst)
{
	u32 pos = torus_rtable_pos(old, dst);
	struct torus_rtable *rt;

	if (!old || pos >= old->count ||
	    memcmp(old->exc[pos].dst, dst, TORUS_MAX_AXES))
		return ERR_PTR(-ENOENT);
	rt = torus_rtable_alloc(old->count - 1, GFP_KERNEL);
	if (!rt)
		return ERR_PTR(-ENOMEM);
	memcpy(rt->exc, old->exc, pos * sizeof(rt->exc[0]));
	memcpy(&rt->exc[pos], &old->exc[pos + 1],
	       (old->count - pos - 1) * sizeof(rt->exc[0]));
	return torus_rtable_index(rt);
}

/* A plan an exception names still routes in @g: DOR, or a plan of the
 * node made for as many axes.
 */
static bool torus_exc_plan_valid(const struct torus_geom *g,
				 const struct torus_plans *plans, u8 index)
{
	const struct torus_plan *p = torus_plan_get(plans, index);

	return !index || (p && p->ndims == g->ndims);
}

/* An exception whose coordinates and direction make sense in @g. */
static bool torus_exc_valid(const struct torus_geom *g,
			    const struct torus_route_exc *exc)
{
	if (!torus_coord_valid(g, exc->dst))
		return false;
	if (exc->has_via)
		return torus_coord_valid(g, exc->via);
	return exc->dir == TORUS_DIR_NONE ||
	       TORUS_DIR_AXIS(exc->dir) < g->ndims;
}

/*
 * An exception that still routes in @g with the node's @plans: those of
 * another axis count no longer route (frames would be dropped for want
 * of a plan).
 */
static bool torus_exc_still_valid(const struct torus_geom *g,
				  const struct torus_plans *plans,
				  const struct torus_route_exc *exc)
{
	return torus_exc_valid(g, exc) &&
	       torus_exc_plan_valid(g, plans, exc->plan) &&
	       torus_exc_plan_valid(g, plans, exc->plan1);
}

/**
 * torus_rtable_revalidate - the exceptions of @old still valid in @g
 * @old: current table, may be NULL
 * @plans: the node's plans, may be NULL (DOR alone)
 * @g: the node's new geometry
 * @gfp: allocation flags
 * @out: the new table (NULL when it is empty), set only when entries
 *	were dropped
 *
 * Exceptions name coordinates of one geometry: after the node's extents
 * change, one towards a node that no longer exists would deliver or
 * blackhole traffic, so it goes.
 *
 * Return: the number of exceptions dropped, or -ENOMEM.
 */
int torus_rtable_revalidate(const struct torus_rtable *old,
			    const struct torus_plans *plans,
			    const struct torus_geom *g, gfp_t gfp,
			    struct torus_rtable **out)
{
	struct torus_rtable *rt;
	u32 i, n = 0;

	*out = NULL;
	if (!old)
		return 0;
	for (i = 0; i < old->count; i++)
		n += torus_exc_still_valid(g, plans, &old->exc[i]);
	if (n == old->count || !n)
		return old->count - n;
	rt = torus_rtable_alloc(n, gfp);
	if (!rt)
		return -ENOMEM;
	for (i = 0, n = 0; i < old->count; i++)
		if (torus_exc_still_valid(g, plans, &old->exc[i]))
			rt->exc[n++] = old->exc[i];
	*out = torus_rtable_index(rt);
	return old->count - n;
}

/**
 * torus_exc_from_rec - one packed record as an exception
 * @rec: the record (TORUS_A_ROUTES_PACKED)
 * @g: the node's geometry
 * @exc: the exception
 *
 * The rules of a TORUS_A_ROUTE nest (torus_nl_parse_exc()).
 *
 * Return: NULL, or why the record is refused.
 */
const char *torus_exc_from_rec(const struct torus_exc_rec *rec,
			       const struct torus_geom *g,
			       struct torus_route_exc *exc)
{
	bool via = rec->flags & TORUS_EXC_REC_VIA;

	if (rec->flags & ~TORUS_EXC_REC_VIA)
		return "torus: unknown flags in a packed exception";
	if (rec->plan >= TORUS_MAX_PLANS || rec->plan1 >= TORUS_MAX_PLANS)
		return "torus: plan out of range in a packed exception";
	if (rec->dir != TORUS_DIR_NONE && rec->dir >= TORUS_MAX_DIRS)
		return "torus: direction out of range in a packed exception";
	if ((via && rec->dir != TORUS_DIR_NONE) ||
	    (!via && rec->dir == TORUS_DIR_NONE && !rec->plan))
		return "torus: an exception needs one of via, dir or a plan other than 0";
	if (!via && rec->plan1)
		return "torus: a plan for round 1 needs an intermediate node (via)";
	memset(exc, 0, sizeof(*exc));
	memcpy(exc->dst, rec->dst, TORUS_MAX_AXES);
	exc->dir = rec->dir;
	exc->plan = rec->plan;
	exc->plan1 = via ? rec->plan1 : rec->plan;
	exc->has_via = via;
	if (via)
		memcpy(exc->via, rec->via, TORUS_MAX_AXES);
	if (!torus_exc_valid(g, exc))
		return "torus: a packed exception outside the node's geometry";
	return NULL;
}

static int torus_exc_sort_cmp(const void *a, const void *b)
{
	const struct torus_route_exc *x = a, *y = b;

	return memcmp(x->dst, y->dst, TORUS_MAX_AXES);
}

/**
 * torus_rtable_build - a table from a batch of exceptions
 * @old: current table, may be NULL
 * @batch: the exceptions, sorted in place
 * @n: how many
 * @replace: the batch is the whole new table; otherwise it is merged
 *	into @old, a batch entry replacing an old one for the same @dst
 * @gfp: allocation flags
 *
 * One sort (none for a batch in order) and one merge, so loading n
 * exceptions costs O(n log n) rather than a table copy per exception.
 *
 * Return: the new table, NULL if it is empty, ERR_PTR(-EEXIST) if the
 * batch names a destination twice, -ENOSPC beyond TORUS_MAX_ROUTES, or
 * -ENOMEM.
 */
struct torus_rtable *torus_rtable_build(const struct torus_rtable *old,
					struct torus_route_exc *batch, u32 n,
					bool replace, gfp_t gfp)
{
	u32 nold = replace || !old ? 0 : old->count, i = 0, j = 0, k = 0;
	struct torus_rtable *rt;

	/* torusd sends its tables in order: a check instead of a sort */
	for (i = 1; i < n; i++)
		if (torus_exc_sort_cmp(&batch[i - 1], &batch[i]) >= 0)
			break;
	if (i < n) {
		sort(batch, n, sizeof(*batch), torus_exc_sort_cmp, NULL);
		for (i = 1; i < n; i++)
			if (!torus_exc_sort_cmp(&batch[i - 1], &batch[i]))
				return ERR_PTR(-EEXIST);
	}
	if (n + nold == 0)
		return NULL;
	if (n > TORUS_MAX_ROUTES)
		return ERR_PTR(-ENOSPC);
	rt = torus_rtable_alloc(n + nold, gfp);
	if (!rt)
		return ERR_PTR(-ENOMEM);
	for (i = 0; i < nold || j < n; ) {
		int cmp = i >= nold ? 1 : j >= n ? -1 :
			  memcmp(old->exc[i].dst, batch[j].dst,
				 TORUS_MAX_AXES);

		if (cmp < 0) {
			rt->exc[k++] = old->exc[i++];
			continue;
		}
		if (!cmp)
			i++;
		rt->exc[k++] = batch[j++];
	}
	if (k > TORUS_MAX_ROUTES) {
		kvfree(rt);
		return ERR_PTR(-ENOSPC);
	}
	rt->count = k;
	return torus_rtable_index(rt);
}
