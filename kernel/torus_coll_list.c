// SPDX-License-Identifier: GPL-2.0
/*
 * Node-list groups of collectives: any set of placed nodes, named by
 * their ranks (see the uapi header's DOC: collectives).  The engine
 * (torus_coll.c) runs their operations as any other; what differs is
 * here: their tree is 4-ary over the members' indices, its edges lead
 * to members anywhere in the fabric (the frames are routed, not sent to
 * a neighbour), and each list is numbered on its own.
 */
#include <linux/bsearch.h>
#include <linux/jhash.h>
#include <linux/jiffies.h>

#include "torus_priv.h"
#include "torus_coll.h"

/* rank = x + X * (y + Y * (z + ...)), as TORUS_A_COLL_LOC counts */
u32 torus_coll_rank(const struct torus_geom *g, const u8 *coord)
{
	unsigned int i = g->ndims;
	u32 r = 0;

	while (i-- > 0)
		r = r * g->dims[i] + coord[i];
	return r;
}

/* The coordinates of a rank (the caller checked it is below the size). */
void torus_coll_rank_coord(const struct torus_geom *g, u32 rank, u8 *coord)
{
	unsigned int i;

	memset(coord, 0, TORUS_MAX_AXES);
	for (i = 0; i < g->ndims; i++) {
		coord[i] = rank % g->dims[i];
		rank /= g->dims[i];
	}
}

struct torus_coll_list *torus_coll_list_find(struct torus_coll *coll,
					     u16 group)
{
	unsigned int i;

	for (i = 0; i < TORUS_COLL_LISTS; i++)
		if (coll->lists[i].group == group)
			return &coll->lists[i];
	return NULL;
}

/* An operation of @group is in flight here: its numbering must stay. */
static bool coll_group_busy(const struct torus_coll *coll, u16 group)
{
	unsigned int i;

	for (i = 0; i < TORUS_COLL_SLOTS; i++) {
		const struct torus_coll_slot *s = &coll->slot[i];

		if (s->group == group && (s->state == TORUS_COLL_JOINED ||
					  s->state == TORUS_COLL_UP_SENT))
			return true;
	}
	return false;
}

/*
 * An entry for a number new here: a free one, else the least recently
 * used list with nothing in flight (its numbering is lost), else NULL.
 */
static struct torus_coll_list *coll_list_free_entry(struct torus_coll *coll)
{
	struct torus_coll_list *lru = NULL;
	unsigned int i;

	for (i = 0; i < TORUS_COLL_LISTS; i++)
		if (!coll->lists[i].group)
			return &coll->lists[i];
	for (i = 0; i < TORUS_COLL_LISTS; i++) {
		struct torus_coll_list *c = &coll->lists[i];

		if (!coll_group_busy(coll, c->group) &&
		    (!lru || time_before(c->used, lru->used)))
			lru = c;
	}
	return lru;
}

/**
 * torus_coll_list_enter - the numbering of the node list a join names
 * @coll: the node's collective state (locked)
 * @req: the request, a node-list group's
 *
 * The list's numbering goes on; it restarts if the number now names
 * other members; a number new here takes a free entry, or that of the
 * least recently used list with nothing in flight.
 *
 * Return: the entry, or NULL when operations in flight hold it (or every
 * entry).
 */
struct torus_coll_list *torus_coll_list_enter(struct torus_coll *coll,
					      const struct torus_coll_req *req)
{
	struct torus_coll_list *l = torus_coll_list_find(coll, req->group);
	u32 hash = jhash2(req->members, req->nmembers, req->nmembers);

	if (l && l->hash == hash && l->count == req->nmembers)
		goto found;
	if (l && coll_group_busy(coll, l->group))
		return NULL;
	if (!l)
		l = coll_list_free_entry(coll);
	if (!l)
		return NULL;
	l->group = req->group;
	l->hash = hash;
	l->count = req->nmembers;
	l->next_seq = 0;
found:
	l->used = jiffies;
	return l;
}

static int coll_rank_cmp(const void *key, const void *elt)
{
	u32 a = *(const u32 *)key, b = *(const u32 *)elt;

	return a < b ? -1 : a > b;
}

/**
 * torus_coll_list_index - a rank's index among a list's members
 * @members: ranks, ascending
 * @n: entries in @members
 * @rank: the rank
 *
 * Return: its index, or @n if it is no member.
 */
u32 torus_coll_list_index(const u32 *members, u32 n, u32 rank)
{
	const u32 *p = bsearch(&rank, members, n, sizeof(*members),
			       coll_rank_cmp);

	return p ? p - members : n;
}

/**
 * torus_coll_list_tree - a node-list group's tree at this node
 * @g: the node's geometry
 * @req: the request
 * @edge: set to per edge the member's rank (TORUS_COLL_LIST_EDGES)
 * @parent: set to the parent's edge, TORUS_DIR_NONE at the root
 * @children: set to a bit per child's edge
 * @rooted: set if the tree is a rooted broadcast's
 *
 * The tree is 4-ary over the members' indices counted from its root's
 * (the first member's, or a broadcast's root): index i's parent is
 * (i - 1) / 4, its children are 4i + 1 to 4i + 4.  The depth is log4 of
 * the members, each edge a route through the fabric.
 *
 * Return: 0, or -EINVAL if this node or the root is no member.
 */
int torus_coll_list_tree(const struct torus_geom *g,
			 const struct torus_coll_req *req, u32 *edge,
			 u8 *parent, u32 *children, bool *rooted)
{
	u32 n = req->nmembers, root = 0, self, rel, i, c;

	self = torus_coll_list_index(req->members, n,
				     torus_coll_rank(g, g->coord));
	*rooted = req->kind == TORUS_COLL_BCAST && req->has_root_coord;
	if (*rooted)
		root = torus_coll_list_index(req->members, n,
					     torus_coll_rank(g,
							     req->root_coord));
	if (self >= n || root >= n)
		return -EINVAL;
	rel = (self + n - root) % n;
	*parent = TORUS_DIR_NONE;
	if (rel) {
		*parent = TORUS_COLL_LIST_PARENT;
		edge[*parent] = req->members[((rel - 1) /
						 TORUS_COLL_LIST_FANOUT +
						 root) % n];
	}
	*children = 0;
	for (i = 0; i < TORUS_COLL_LIST_FANOUT; i++) {
		c = rel * TORUS_COLL_LIST_FANOUT + 1 + i;
		if (c >= n)
			break;
		*children |= BIT(i);
		edge[i] = req->members[(c + root) % n];
	}
	return 0;
}

/**
 * torus_coll_list_edge - the edge of an operation a frame came by
 * @s: a node-list group's operation, joined
 * @rank: the frame's sender
 *
 * Return: the edge, or TORUS_DIR_NONE if the sender is neither the
 * parent nor a child here.
 */
u8 torus_coll_list_edge(const struct torus_coll_slot *s, u32 rank)
{
	unsigned int e;

	for (e = 0; e < TORUS_COLL_LIST_EDGES; e++)
		if ((e == s->parent || s->children & BIT(e)) &&
		    s->edge[e] == rank)
			return e;
	return TORUS_DIR_NONE;
}
