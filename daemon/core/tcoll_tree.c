// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tcoll_tree.c - the collectives' combining tree over live nodes
 * (tcoll_tree.h)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tcoll_tree.h"
#include "../../kernel/torus_coll_tree.h"

#define NO_DEPTH	UINT32_MAX

struct geo {
	const struct troute_faults *f;
	unsigned int stride[TORUS_MAX_AXES];
	u16 dims[TORUS_MAX_AXES];
	const uint8_t *skip;
};

static bool member(const struct geo *g, unsigned int n)
{
	return !g->f->dead[n] && !(g->skip && g->skip[n]);
}

static unsigned int coord_on(const struct geo *g, unsigned int n,
			     unsigned int axis)
{
	return n / g->stride[axis] % g->f->dims[axis];
}

/*
 * The member over the uncut cable leaving @n in direction @dir, or -1.
 * On a ring of two both cables join the same two nodes: each is a
 * cable of its own, cut or not.
 */
static long step(const struct geo *g, unsigned int n, unsigned int dir)
{
	unsigned int axis = TORUS_DIR_AXIS(dir), d = g->f->dims[axis];
	unsigned int c = coord_on(g, n, axis), to;

	if (d < 2 || (g->f->cut[n] & (1u << dir)))
		return -1;
	if (TORUS_DIR_NEG(dir))
		to = c ? c - 1 : d - 1;
	else
		to = c + 1 < d ? c + 1 : 0;
	if (!(g->f->wrap & (1u << axis)) &&
	    (TORUS_DIR_NEG(dir) ? !c : c + 1 == d))
		return -1;
	n = n - c * g->stride[axis] + to * g->stride[axis];
	return member(g, n) ? (long)n : -1;
}

static void coord_of(const struct geo *g, unsigned int n, uint8_t *c)
{
	unsigned int axis;

	memset(c, 0, TORUS_MAX_AXES);
	for (axis = 0; axis < g->f->ndims; axis++)
		c[axis] = (uint8_t)coord_on(g, n, axis);
}

/* breadth first from @root over members not reached yet */
static void spread(const struct geo *g, unsigned int root, uint32_t *dist,
		   uint32_t *queue, struct tcoll_tree *t)
{
	unsigned int head = 0, tail = 0, n, dir, ndirs = 2 * g->f->ndims;
	uint8_t rc[TORUS_MAX_AXES], nc[TORUS_MAX_AXES];
	long m;

	dist[root] = 0;
	queue[tail++] = root;
	while (head < tail) {
		n = queue[head++];
		for (dir = 0; dir < ndirs; dir++) {
			m = step(g, n, dir);
			if (m < 0 || dist[m] != NO_DEPTH)
				continue;
			dist[m] = dist[n] + 1;
			queue[tail++] = (uint32_t)m;
		}
	}
	/* each reached node's parent: the default one when it is nearer */
	coord_of(g, root, rc);
	for (head = 1; head < tail; head++) {
		unsigned int best;

		n = queue[head];
		coord_of(g, n, nc);
		best = torus_coll_tree_parent_from(g->f->ndims, g->dims,
						   (u8)g->f->wrap, nc, rc);
		m = best == TORUS_DIR_NONE ? -1 : step(g, n, best);
		if (m < 0 || dist[m] + 1 != dist[n]) {
			for (best = 0; best < ndirs; best++) {
				m = step(g, n, best);
				if (m >= 0 && dist[m] + 1 == dist[n])
					break;
			}
		}
		t->parent[n] = (uint8_t)best;
		t->children[m] |= (uint16_t)(1u << TORUS_DIR_OPPOSITE(best));
		t->depth[n] = (uint16_t)(dist[n] < UINT16_MAX ? dist[n] :
					 UINT16_MAX);
		if (dist[n] > t->max_depth)
			t->max_depth = dist[n];
	}
}

int tcoll_tree_build(const struct troute_faults *f, const uint8_t *skip,
		     struct tcoll_tree *t)
{
	struct geo g = { .f = f, .skip = skip };
	uint32_t *dist = NULL, *queue = NULL;
	unsigned int a, n, stride = 1, fan;

	memset(t, 0, sizeof(*t));
	for (a = 0; a < f->ndims; a++) {
		g.stride[a] = stride;
		g.dims[a] = (u16)f->dims[a];
		stride *= f->dims[a];
	}
	t->nnodes = stride;
	t->parent = malloc(stride);
	t->children = calloc(stride, sizeof(*t->children));
	t->depth = calloc(stride, sizeof(*t->depth));
	dist = malloc((size_t)stride * sizeof(*dist));
	queue = malloc((size_t)stride * sizeof(*queue));
	if (!t->parent || !t->children || !t->depth || !dist || !queue) {
		free(dist);
		free(queue);
		tcoll_tree_free(t);
		return -ENOMEM;
	}
	memset(t->parent, TORUS_DIR_NONE, stride);
	for (n = 0; n < stride; n++)
		dist[n] = NO_DEPTH;
	/* the origin first, then what the faults cut off from it */
	for (n = 0; n < stride; n++) {
		if (!member(&g, n))
			continue;
		t->members++;
		if (dist[n] != NO_DEPTH)
			continue;
		if (!t->roots)
			t->root = n;
		t->roots++;
		spread(&g, n, dist, queue, t);
	}
	for (n = 0; n < stride; n++) {
		fan = (unsigned int)__builtin_popcount(t->children[n]);
		if (fan > t->max_fan_in)
			t->max_fan_in = fan;
	}
	free(dist);
	free(queue);
	return 0;
}

void tcoll_tree_free(struct tcoll_tree *t)
{
	free(t->parent);
	free(t->children);
	free(t->depth);
	t->parent = NULL;
	t->children = NULL;
	t->depth = NULL;
}
