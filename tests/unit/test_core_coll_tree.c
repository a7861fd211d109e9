// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of the collectives' combining tree over live nodes
 * (daemon/core/tcoll_tree.c): without faults it is the kernel's default
 * tree (kernel/torus_coll_tree.c, in the core: tcoll_default.c); with
 * a root elsewhere the kernel's broadcast tree; with dead nodes,
 * cut cables and lambs every member's parent is a member over an uncut
 * cable one hop nearer the root, children mirror parents, and the
 * faults' parts each get a root.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tcoll_tree.h"
#include "unit.h"
#include "../../kernel/torus_coll_tree.h"

#define MAXN	512

struct fab {
	struct troute_faults f;
	uint8_t dead[MAXN];
	uint16_t cut[MAXN];
	uint8_t skip[MAXN];
	unsigned int nn;
};

static void make(struct fab *fb, unsigned int ndims, const unsigned int *dims,
		 unsigned int wrap)
{
	unsigned int a;

	memset(fb, 0, sizeof(*fb));
	fb->f.ndims = ndims;
	fb->f.wrap = wrap;
	fb->nn = 1;
	for (a = 0; a < ndims; a++) {
		fb->f.dims[a] = dims[a];
		fb->nn *= dims[a];
	}
	fb->f.dead = fb->dead;
	fb->f.cut = fb->cut;
}

static void coord(const struct fab *fb, unsigned int n, uint8_t *c)
{
	unsigned int a;

	memset(c, 0, TORUS_MAX_AXES);
	for (a = 0; a < fb->f.ndims; a++) {
		c[a] = (uint8_t)(n % fb->f.dims[a]);
		n /= fb->f.dims[a];
	}
}

/* the node over direction @dir of @n, or -1 off a line's end */
static long nbr(const struct fab *fb, unsigned int n, unsigned int dir)
{
	unsigned int a = TORUS_DIR_AXIS(dir), s = 1, k, c, d;

	for (k = 0; k < a; k++)
		s *= fb->f.dims[k];
	d = fb->f.dims[a];
	c = n / s % d;
	if (d < 2)
		return -1;
	if (TORUS_DIR_NEG(dir)) {
		if (!c && !(fb->f.wrap & (1u << a)))
			return -1;
		return (long)(n - c * s + ((c + d - 1) % d) * s);
	}
	if (c + 1 == d && !(fb->f.wrap & (1u << a)))
		return -1;
	return (long)(n - c * s + ((c + 1) % d) * s);
}

static void cut(struct fab *fb, unsigned int n, unsigned int dir)
{
	long m = nbr(fb, n, dir);

	fb->cut[n] |= (uint16_t)(1u << dir);
	if (m >= 0)
		fb->cut[m] |= (uint16_t)(1u << TORUS_DIR_OPPOSITE(dir));
}

/*
 * Every member's parent is a member over an uncut cable, one hop nearer
 * the root; children are exactly the neighbours whose parent leads back
 * over the same cable; non-members have neither.  Returns the number of
 * members that reach a root.
 */
static unsigned int check_tree(bool *unit_ok, const struct fab *fb,
			       const struct tcoll_tree *t)
{
	unsigned int n, dir, reached = 0, hops;
	long m;

	for (n = 0; n < fb->nn; n++) {
		bool mem = !fb->dead[n] && !fb->skip[n];
		uint16_t kids = 0;

		if (!mem) {
			UNIT_CHECK(t->parent[n] == TORUS_DIR_NONE &&
				   !t->children[n]);
			continue;
		}
		for (dir = 0; dir < 2 * fb->f.ndims; dir++) {
			m = nbr(fb, n, dir);
			if (m >= 0 && !(fb->cut[n] & (1u << dir)) &&
			    t->parent[m] == TORUS_DIR_OPPOSITE(dir))
				kids |= (uint16_t)(1u << dir);
		}
		/* a ring of two: both cables join the same pair */
		UNIT_CHECK(t->children[n] == kids);
		if (t->parent[n] == TORUS_DIR_NONE) {
			UNIT_CHECK(t->depth[n] == 0);
			reached++;
			continue;
		}
		m = nbr(fb, n, t->parent[n]);
		UNIT_CHECK(m >= 0 && !fb->dead[m] && !fb->skip[m] &&
			   !(fb->cut[n] & (1u << t->parent[n])));
		if (m < 0)
			continue;
		UNIT_CHECK(t->depth[m] + 1 == t->depth[n]);
		/* up to a root within depth hops */
		for (hops = 0, m = n; hops <= t->depth[n] &&
		     t->parent[m] != TORUS_DIR_NONE; hops++)
			m = nbr(fb, (unsigned int)m, t->parent[m]);
		if (t->parent[m] == TORUS_DIR_NONE)
			reached++;
	}
	return reached;
}

/* without faults: the kernel's default tree, node by node */
UNIT_TEST(coll_tree_default_without_faults)
{
	static const struct {
		unsigned int ndims, dims[3], wrap, depth;
	} shapes[] = {
		{ 3, { 4, 4, 4 }, 7, 6 },
		{ 3, { 4, 4, 4 }, 0, 9 },
		{ 2, { 3, 3 }, 0, 4 },
		{ 3, { 2, 2, 2 }, 7, 3 },
		{ 3, { 5, 1, 3 }, 1, 4 },
		{ 3, { 8, 6, 5 }, 5, 4 + 5 + 2 },
	};
	unsigned int i, n;

	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		struct fab fb;
		struct tcoll_tree t;
		u16 dims[TORUS_MAX_AXES] = { 0 };
		uint8_t c[TORUS_MAX_AXES];
		unsigned int a;

		make(&fb, shapes[i].ndims, shapes[i].dims, shapes[i].wrap);
		for (a = 0; a < shapes[i].ndims; a++)
			dims[a] = (u16)shapes[i].dims[a];
		UNIT_CHECK(!tcoll_tree_build(&fb.f, NULL, &t));
		UNIT_CHECK(t.members == fb.nn && t.roots == 1 && t.root == 0);
		UNIT_CHECK(t.max_depth == shapes[i].depth);
		for (n = 0; n < fb.nn; n++) {
			coord(&fb, n, c);
			UNIT_CHECK(t.parent[n] ==
				   torus_coll_tree_parent(fb.f.ndims, dims,
							  (u8)fb.f.wrap, c));
			UNIT_CHECK(t.children[n] ==
				   torus_coll_tree_children(fb.f.ndims, dims,
							    (u8)fb.f.wrap, c));
		}
		UNIT_CHECK(check_tree(unit_ok, &fb, &t) == fb.nn);
		tcoll_tree_free(&t);
	}
}

/* the reroute scenario: 2 dead, 3 cut, and the origin dead too */
UNIT_TEST(coll_tree_around_dead_nodes_and_cuts)
{
	const unsigned int dims[3] = { 4, 4, 4 };
	struct tcoll_tree t;
	struct fab fb;
	unsigned int wrap;

	for (wrap = 0; wrap <= 7; wrap += 7) {
		make(&fb, 3, dims, wrap);
		fb.dead[1 + 4 * (1 + 4 * 1)] = 1;
		fb.dead[2 + 4 * (3 + 4 * 0)] = 1;
		cut(&fb, 0, TORUS_DIR(0, 0));
		cut(&fb, 1, TORUS_DIR(1, 0));
		cut(&fb, 2 + 4 * (2 + 4 * 2), TORUS_DIR(2, 0));
		UNIT_CHECK(!tcoll_tree_build(&fb.f, NULL, &t));
		UNIT_CHECK(t.members == 62 && t.roots == 1 && t.root == 0);
		UNIT_CHECK(check_tree(unit_ok, &fb, &t) == 62);
		/* the origin's +x cable is cut: 1,0,0 hangs elsewhere */
		UNIT_CHECK(t.parent[1] != TORUS_DIR(0, 1));
		tcoll_tree_free(&t);

		fb.dead[0] = 1;
		UNIT_CHECK(!tcoll_tree_build(&fb.f, NULL, &t));
		UNIT_CHECK(t.members == 61 && t.roots == 1 && t.root == 1);
		UNIT_CHECK(check_tree(unit_ok, &fb, &t) == 61);
		tcoll_tree_free(&t);
	}
}

/* lambs are left out like dead nodes; a cut line makes two trees */
UNIT_TEST(coll_tree_lambs_and_parts)
{
	const unsigned int line[1] = { 6 }, sq[2] = { 3, 3 };
	struct tcoll_tree t;
	struct fab fb;

	make(&fb, 1, line, 0);
	cut(&fb, 2, TORUS_DIR(0, 0));
	UNIT_CHECK(!tcoll_tree_build(&fb.f, NULL, &t));
	UNIT_CHECK(t.roots == 2 && t.root == 0 && t.members == 6);
	UNIT_CHECK(t.parent[3] == TORUS_DIR_NONE && t.parent[5] == 1);
	UNIT_CHECK(check_tree(unit_ok, &fb, &t) == 6);
	tcoll_tree_free(&t);

	make(&fb, 2, sq, 0);
	fb.skip[1] = 1;		/* a lamb at 1,0 */
	UNIT_CHECK(!tcoll_tree_build(&fb.f, fb.skip, &t));
	UNIT_CHECK(t.members == 8 && t.roots == 1);
	UNIT_CHECK(t.parent[2] == TORUS_DIR(1, 0) &&
		   t.depth[2] == 4);	/* 2,0 via 2,1 1,1 0,1 0,0 */
	UNIT_CHECK(check_tree(unit_ok, &fb, &t) == 8);
	tcoll_tree_free(&t);
}

/* random faults on tori and meshes: always a valid forest */
UNIT_TEST(coll_tree_random_faults)
{
	const unsigned int dims[3] = { 8, 8, 8 };
	unsigned int seed, n, k, wrap;
	struct tcoll_tree t;
	struct fab fb;

	srand(7);
	for (seed = 0; seed < 40; seed++) {
		wrap = seed & 1 ? 7 : seed & 2 ? 5 : 0;
		make(&fb, 3, dims, wrap);
		for (k = 0; k < 20 + seed; k++) {
			n = (unsigned int)rand() % fb.nn;
			if (k % 3 == 0)
				fb.dead[n] = 1;
			else if (k % 3 == 1)
				cut(&fb, n, (unsigned int)rand() % 6);
			else
				fb.skip[n] = 1;
		}
		UNIT_CHECK(!tcoll_tree_build(&fb.f, fb.skip, &t));
		UNIT_CHECK(check_tree(unit_ok, &fb, &t) == t.members);
		UNIT_CHECK(t.roots >= 1 && t.max_fan_in <= 6);
		tcoll_tree_free(&t);
	}
}

/*
 * The kernel's broadcast tree from any root (torus_coll_tree_parent_from):
 * every node reaches the root in its distance, children mirror parents
 */
UNIT_TEST(coll_tree_from_any_root)
{
	const unsigned int d3[3] = { 5, 4, 3 };
	u16 dims[TORUS_MAX_AXES] = { 5, 4, 3 };
	unsigned int wrap, root, n, hops, dir, want;
	uint8_t rc[TORUS_MAX_AXES], c[TORUS_MAX_AXES];
	struct fab fb;
	long m;

	for (wrap = 0; wrap < 8; wrap += 3) {
		make(&fb, 3, d3, wrap);
		for (root = 0; root < fb.nn; root += 7) {
			coord(&fb, root, rc);
			for (n = 0; n < fb.nn; n++) {
				uint16_t kids = 0;

				coord(&fb, n, c);
				for (dir = 0; dir < 6; dir++) {
					m = nbr(&fb, n, dir);
					if (m >= 0) {
						uint8_t mc[TORUS_MAX_AXES];

						coord(&fb, (unsigned int)m, mc);
						if (torus_coll_tree_parent_from(
							3, dims, (u8)wrap, mc,
							rc) ==
						    TORUS_DIR_OPPOSITE(dir))
							kids |= 1u << dir;
					}
				}
				UNIT_CHECK(torus_coll_tree_children_from(
					3, dims, (u8)wrap, c, rc) == kids);
				/* the hops to the root: the distance */
				want = 0;
				for (dir = 0; dir < 3; dir++) {
					unsigned int k = (c[dir] + d3[dir] -
							  rc[dir]) % d3[dir];

					if (wrap & (1u << dir))
						want += k < d3[dir] - k ? k :
							d3[dir] - k;
					else
						want += c[dir] > rc[dir] ?
							c[dir] - rc[dir] :
							rc[dir] - c[dir];
				}
				for (hops = 0, m = n; hops < 20 && m != root;
				     hops++) {
					coord(&fb, (unsigned int)m, c);
					m = nbr(&fb, (unsigned int)m,
						torus_coll_tree_parent_from(
							3, dims, (u8)wrap, c,
							rc));
					if (m < 0)
						break;
				}
				UNIT_CHECK(m == root && hops == want);
			}
		}
	}
}

static const struct unit_case cases[] = {
	UNIT_CASE(coll_tree_from_any_root),
	UNIT_CASE(coll_tree_default_without_faults),
	UNIT_CASE(coll_tree_around_dead_nodes_and_cuts),
	UNIT_CASE(coll_tree_lambs_and_parts),
	UNIT_CASE(coll_tree_random_faults),
};

UNIT_MAIN(cases)
