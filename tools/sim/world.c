// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * world.c - the ground truth of one simulated run
 *
 * Nodes are numbered in row-major order of their true coordinates (axis
 * 0 fastest).  Every node owns the cable leaving its global +axis
 * connector; the cable lands on the neighbour's global -axis connector.
 * Which local port label that is on either end depends on the end's
 * rotation: label = rot.inv[global direction].
 *
 * Random draws come from independent splitmix64 streams per purpose
 * (ids, rotations, node failures, cable failures), so that for one seed
 * changing q does not change the rotations, and so on.
 */
#include <stdlib.h>
#include <string.h>
#include "sim.h"

uint64_t sim_splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t sim_stream(uint64_t seed, unsigned int k)
{
	uint64_t s = seed ^ (0xd1b54a32d192ed03ULL * k);

	sim_splitmix(&s);
	return s;
}

/* uniform in [0, 1) */
double sim_unif(uint64_t *s)
{
	return (sim_splitmix(s) >> 11) * (1.0 / 9007199254740992.0);
}

uint32_t sim_below(uint64_t *s, uint32_t n)
{
	return (uint32_t)(((sim_splitmix(s) >> 32) * n) >> 32);
}

unsigned int sim_diameter(const struct sim_opts *o, const uint16_t *dims)
{
	unsigned int a, d = 0;

	for (a = 0; a < o->ndims; a++)
		d += (o->wrap & (1u << a)) ? dims[a] / 2 : dims[a] - 1u;
	return d;
}

void sim_coords(const struct sim_world *w, uint32_t u, unsigned int *c)
{
	unsigned int a;

	for (a = 0; a < w->o->ndims; a++)
		c[a] = (u / w->stride[a]) % w->o->dims[a];
}

static uint32_t block_of(const struct sim_world *w, const unsigned int *c)
{
	uint32_t b = 0, bs = 1;
	unsigned int a;

	for (a = 0; a < w->o->ndims; a++) {
		b += c[a] / w->o->block[a] * bs;
		bs *= w->bgrid[a];
	}
	return b;
}

/*
 * A random signed permutation.  @ext, if not NULL, restricts local axis
 * i to global axes of the same extent (a block can only be mounted
 * turned onto a slot of its own shape).
 */
static void random_rot(struct sim_rot *r, unsigned int nd,
		       const uint16_t *ext, uint64_t *s)
{
	unsigned int perm[TC_MAX_AXES], i, j;

	for (i = 0; i < nd; i++)
		perm[i] = i;
	/* Fisher-Yates within each class of axes of equal extent (one class
	 * of all axes without @ext) */
	for (i = 0; i < nd; i++) {
		unsigned int cls[TC_MAX_AXES], n = 0, k, t;

		for (j = 0; j < nd; j++)
			if (!ext || ext[j] == ext[i])
				cls[n++] = j;
		if (cls[0] != i)
			continue;		/* class done from its first member */
		for (j = n; j > 1; j--) {
			k = sim_below(s, j);
			t = perm[cls[j - 1]];
			perm[cls[j - 1]] = perm[cls[k]];
			perm[cls[k]] = t;
		}
	}
	memset(r, TORUS_DIR_NONE, sizeof(*r));
	for (i = 0; i < nd; i++) {
		unsigned int flip = sim_splitmix(s) & 1;

		r->fwd[2 * i] = TORUS_DIR(perm[i], flip);
		r->fwd[2 * i + 1] = TORUS_DIR(perm[i], !flip);
	}
	for (i = 0; i < 2 * nd; i++)
		r->inv[r->fwd[i]] = i;
}

void sim_random_rot(struct sim_rot *r, unsigned int nd, uint64_t *s)
{
	random_rot(r, nd, NULL, s);
}

static void identity_rot(struct sim_rot *r, unsigned int nd)
{
	unsigned int i;

	memset(r, TORUS_DIR_NONE, sizeof(*r));
	for (i = 0; i < 2 * nd; i++)
		r->fwd[i] = r->inv[i] = i;
}

uint32_t sim_block_of(const struct sim_world *w, uint32_t u)
{
	unsigned int c[TC_MAX_AXES];

	sim_coords(w, u, c);
	return block_of(w, c);
}

int sim_world_build(struct sim_world *w, const struct sim_opts *o,
		    uint64_t seed)
{
	uint64_t sid = sim_stream(seed, SIM_STREAM_IDS);
	uint64_t srot = sim_stream(seed, SIM_STREAM_ROT);
	uint64_t snode = sim_stream(seed, SIM_STREAM_NODE);
	uint64_t scab = sim_stream(seed, SIM_STREAM_CABLE);
	unsigned int a, nd = o->ndims, c[TC_MAX_AXES];
	uint32_t u, n = 1;

	memset(w, 0, sizeof(*w));
	w->o = o;
	w->seed = seed;
	w->nports = 2 * nd;
	for (a = 0; a < nd; a++) {
		w->stride[a] = n;
		n *= o->dims[a];
	}
	w->nnodes = n;
	w->nblocks = 1;
	for (a = 0; a < nd; a++) {
		w->bgrid[a] = o->blocks ? o->dims[a] / o->block[a] : 1;
		w->nblocks *= w->bgrid[a];
	}
	w->diameter = sim_diameter(o, o->dims);
	if (o->blocks) {
		for (a = 0; a < nd; a++) {
			unsigned int b = o->block[a];

			if (b == o->dims[a] && (o->wrap & (1u << a)))
				w->block_diameter += b / 2;
			else
				w->block_diameter += b - 1;
			if (w->bgrid[a] < 2)
				continue;
			w->nfaces += (o->wrap & (1u << a)) ? w->nblocks :
				w->nblocks / w->bgrid[a] * (w->bgrid[a] - 1);
		}
	}

	w->alive = malloc(n);
	w->ids = malloc(sizeof(*w->ids) * n);
	w->rot_of = malloc(sizeof(*w->rot_of) * n);
	w->peer = malloc(sizeof(*w->peer) * n * w->nports);
	w->nrots = o->miswire == SIM_MISWIRE_NODES ? n :
		   o->miswire == SIM_MISWIRE_BLOCKS ? w->nblocks : 1;
	w->rots = malloc(sizeof(*w->rots) * w->nrots);
	if (!w->alive || !w->ids || !w->rot_of || !w->peer || !w->rots) {
		sim_world_free(w);
		return -1;
	}

	for (u = 0; u < w->nrots; u++) {
		if (o->miswire == SIM_MISWIRE_NONE)
			identity_rot(&w->rots[u], nd);
		else
			random_rot(&w->rots[u], nd,
				   o->miswire == SIM_MISWIRE_BLOCKS ?
				   o->block : NULL, &srot);
	}

	for (u = 0; u < n; u++) {
		/* low 24 bits make ids unique, high bits order them */
		w->ids[u] = (sim_splitmix(&sid) << 24 | 1ULL << 24) | u;
		w->alive[u] = !(o->node_fail > 0 && sim_unif(&snode) < o->node_fail);
		w->live += w->alive[u];
		if (o->miswire == SIM_MISWIRE_BLOCKS) {
			sim_coords(w, u, c);
			w->rot_of[u] = block_of(w, c);
		} else {
			w->rot_of[u] = o->miswire == SIM_MISWIRE_NODES ? u : 0;
		}
	}

	memset(w->peer, 0xff, sizeof(*w->peer) * n * w->nports);
	for (u = 0; u < n; u++) {
		const struct sim_rot *ru = &w->rots[w->rot_of[u]];

		sim_coords(w, u, c);
		for (a = 0; a < nd; a++) {
			const struct sim_rot *rv;
			uint8_t lu, lv;
			uint32_t v;

			if (o->dims[a] < 2)
				continue;
			if (c[a] + 1 < o->dims[a])
				v = u + w->stride[a];
			else if (o->wrap & (1u << a))
				v = u - c[a] * w->stride[a];
			else
				continue;
			w->cables++;
			if (o->link_fail > 0 && sim_unif(&scab) < o->link_fail) {
				w->dead_cables++;
				continue;
			}
			rv = &w->rots[w->rot_of[v]];
			lu = ru->inv[TORUS_DIR(a, 0)];
			lv = rv->inv[TORUS_DIR(a, 1)];
			w->peer[u * w->nports + lu] = v << 4 | lv;
			w->peer[v * w->nports + lv] = u << 4 | lu;
		}
	}
	return 0;
}

void sim_world_free(struct sim_world *w)
{
	free(w->alive);
	free(w->ids);
	free(w->rot_of);
	free(w->peer);
	free(w->rots);
	memset(w, 0, sizeof(*w));
}

size_t sim_world_bytes(const struct sim_world *w)
{
	return (size_t)w->nnodes * (sizeof(*w->alive) + sizeof(*w->ids) +
				     sizeof(*w->rot_of) +
				     sizeof(*w->peer) * w->nports) +
	       sizeof(*w->rots) * w->nrots;
}

void sim_node_config(const struct sim_world *w, uint32_t u,
		     struct tc_config *cfg)
{
	const struct sim_opts *o = w->o;
	unsigned int i, c[TC_MAX_AXES];

	memset(cfg, 0, sizeof(*cfg));
	cfg->id = w->ids[u];
	cfg->ndims = o->ndims;
	/* a port exists where the machine has a cable (cut or not): the
	 * end of a mesh line has none */
	sim_coords(w, u, c);
	cfg->ports = 0;
	for (i = 0; i < o->ndims; i++) {
		const struct sim_rot *r = &w->rots[w->rot_of[u]];
		bool ring = o->wrap & (1u << i);

		if (o->dims[i] < 2)
			continue;
		if (ring || c[i] + 1u < o->dims[i])
			cfg->ports |= (uint16_t)(1u << r->inv[TORUS_DIR(i, 0)]);
		if (ring || c[i] > 0)
			cfg->ports |= (uint16_t)(1u << r->inv[TORUS_DIR(i, 1)]);
	}
	cfg->hello_ticks = o->hello_ticks;
	cfg->dead_ticks = o->dead_ticks;
	cfg->ls_settle_ticks = o->ls_settle_ticks;
	cfg->quiet_ticks = o->quiet_ticks;
	cfg->orient_ticks = o->orient_ticks;
	if (!o->blocks || o->miswire == SIM_MISWIRE_NODES)
		return;

	/* the block's position and the node's place in it, in the block's
	 * own (rotated) frame: local axis i runs along global rot.fwd[+i] */
	const struct sim_rot *r = &w->rots[w->rot_of[u]];

	sim_coords(w, u, c);
	cfg->block_mode = true;
	cfg->block_id = block_of(w, c) + 1;
	for (i = 0; i < o->ndims; i++) {
		unsigned int g = r->fwd[TORUS_DIR(i, 0)];
		unsigned int ga = TORUS_DIR_AXIS(g), b = o->block[ga];
		unsigned int off = c[ga] % b;

		cfg->block_coord[i] = TORUS_DIR_NEG(g) ? b - 1 - off : off;
		cfg->block_dims[i] = b;
	}
}
