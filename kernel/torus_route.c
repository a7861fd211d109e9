// SPDX-License-Identifier: GPL-2.0
/*
 * Routing logic with no device state: dimension-ordered routing, the
 * address plan and the route exception table.  Pure functions, so the
 * KUnit suites can drive them with tables.
 */
#include <linux/bsearch.h>
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

/*
 * The first axis (x first) on which @cur and @dst differ is corrected,
 * the shortest way around a ring; when both ways are equally long the
 * frame goes the "+" way, so every node breaks the tie alike.
 */
u8 torus_dor_next_dir(const struct torus_geom *g, const u8 *cur,
		      const u8 *dst)
{
	unsigned int axis;

	for (axis = 0; axis < g->ndims; axis++) {
		unsigned int ext = g->dims[axis];
		unsigned int c = cur[axis], d = dst[axis], up;

		if (c == d)
			continue;
		if (!(g->wrap & BIT(axis)))
			return TORUS_DIR(axis, d < c);
		up = (d + ext - c) % ext;
		return TORUS_DIR(axis, up > ext - up);
	}
	return TORUS_DIR_NONE;
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
 * torus_next_dir - the direction a frame leaves this node by
 * @g: this node's geometry
 * @rt: route exceptions, may be NULL
 * @h: the frame's header; its via state is updated
 * @at_source: the frame is being originated here
 * @exception: set when an exception decided the route
 *
 * At the source a "via" exception starts round one towards the
 * intermediate node; a node reached as the intermediate starts round
 * two.  A "dir" exception overrides the dimension-ordered direction at
 * any node while the frame is not in round one.
 *
 * Return: a global direction, or TORUS_DIR_NONE when the frame is for
 * this node.
 */
u8 torus_next_dir(const struct torus_geom *g, const struct torus_rtable *rt,
		  struct torus_hdr *h, bool at_source, bool *exception)
{
	const struct torus_route_exc *exc = NULL;

	*exception = false;
	if (!memcmp(h->dst, g->coord, TORUS_MAX_AXES))
		return TORUS_DIR_NONE;

	if (rt && !(h->flags & TORUS_F_VIA))
		exc = torus_rtable_lookup(rt, h->dst);

	if (exc && exc->has_via && at_source &&
	    memcmp(exc->via, g->coord, TORUS_MAX_AXES)) {
		memcpy(h->via, exc->via, TORUS_MAX_AXES);
		h->flags |= TORUS_F_VIA;
		*exception = true;
	}

	if (h->flags & TORUS_F_VIA) {
		if (memcmp(h->via, g->coord, TORUS_MAX_AXES))
			return torus_dor_next_dir(g, g->coord, h->via);
		h->flags &= ~TORUS_F_VIA;
		memset(h->via, 0, TORUS_MAX_AXES);
	}

	if (exc && !exc->has_via && exc->dir != TORUS_DIR_NONE) {
		*exception = true;
		return exc->dir;
	}
	return torus_dor_next_dir(g, g->coord, h->dst);
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

static int torus_exc_cmp(const void *key, const void *elt)
{
	const struct torus_route_exc *exc = elt;

	return memcmp(key, exc->dst, TORUS_MAX_AXES);
}

const struct torus_route_exc *
torus_rtable_lookup(const struct torus_rtable *rt, const u8 *dst)
{
	if (!rt || !rt->count)
		return NULL;
	return bsearch(dst, rt->exc, rt->count, sizeof(rt->exc[0]),
		       torus_exc_cmp);
}

static struct torus_rtable *torus_rtable_alloc(u32 count, gfp_t gfp)
{
	struct torus_rtable *rt;

	rt = kvzalloc(struct_size(rt, exc, count), gfp);
	if (rt)
		rt->count = count;
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
	return rt;
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
	return rt;
}

/* An exception that still makes sense in geometry @g. */
static bool torus_exc_valid(const struct torus_geom *g,
			    const struct torus_route_exc *exc)
{
	if (!torus_coord_valid(g, exc->dst))
		return false;
	if (exc->has_via)
		return torus_coord_valid(g, exc->via);
	return TORUS_DIR_AXIS(exc->dir) < g->ndims;
}

/**
 * torus_rtable_revalidate - the exceptions of @old still valid in @g
 * @old: current table, may be NULL
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
			    const struct torus_geom *g, gfp_t gfp,
			    struct torus_rtable **out)
{
	struct torus_rtable *rt;
	u32 i, n = 0;

	*out = NULL;
	if (!old)
		return 0;
	for (i = 0; i < old->count; i++)
		n += torus_exc_valid(g, &old->exc[i]);
	if (n == old->count || !n)
		return old->count - n;
	rt = torus_rtable_alloc(n, gfp);
	if (!rt)
		return -ENOMEM;
	for (i = 0, n = 0; i < old->count; i++)
		if (torus_exc_valid(g, &old->exc[i]))
			rt->exc[n++] = old->exc[i];
	*out = rt;
	return old->count - n;
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
 * One sort and one merge, so loading n exceptions costs O(n log n)
 * rather than a table copy per exception.
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

	sort(batch, n, sizeof(*batch), torus_exc_sort_cmp, NULL);
	for (i = 1; i < n; i++)
		if (!torus_exc_sort_cmp(&batch[i - 1], &batch[i]))
			return ERR_PTR(-EEXIST);
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
	return rt;
}
