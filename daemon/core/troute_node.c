// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * troute_node.c - one node's route set from a fault set, and the paths
 * of its routes
 *
 * Every node runs the same computation on the same fault set (the link
 * state floods it), so the lamb set and the plans agree without any
 * coordination; each node keeps only its own table.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "troute_node.h"

static int copy_faults(const struct troute_faults *f,
		       struct troute_node_set *s, unsigned int nnodes)
{
	uint8_t *dead = malloc(nnodes);
	uint16_t *cut = malloc(nnodes * sizeof(*cut));
	unsigned int n;

	if (!dead || !cut) {
		free(dead);
		free(cut);
		return -ENOMEM;
	}
	memcpy(dead, f->dead, nnodes);
	memcpy(cut, f->cut, nnodes * sizeof(*cut));
	s->f = *f;
	s->f.dead = dead;
	s->f.cut = cut;
	for (n = 0; n < nnodes; n++) {
		s->dead += !!dead[n];
		/* each cut cable is set on both ends: count its "+" end */
		s->cuts += (unsigned int)__builtin_popcount(cut[n] & 0x5555);
	}
	return 0;
}

int troute_node_build(const struct troute_faults *f, unsigned int self,
		      const struct troute_cdg_opts *cdg_opts,
		      struct troute_node_set *s)
{
	int err = troute_node_routes(f, self, s);

	if (err)
		return err;
	return troute_cdg_check(&s->c, &s->ps, cdg_opts, &s->cdg);
}

int troute_cdg_fault_free(const struct troute_faults *f,
			  const struct troute_cdg_opts *o,
			  struct troute_cdg_result *r)
{
	unsigned int nnodes = troute_nnodes(f);
	struct troute_faults none = *f;
	struct troute_planset ps;
	struct troute_ctx c;
	uint8_t *dead;
	uint16_t *cut;
	int err = -ENOMEM;

	dead = calloc(nnodes, 1);
	cut = calloc(nnodes, sizeof(*cut));
	if (!dead || !cut)
		goto out;
	none.dead = dead;
	none.cut = cut;
	err = troute_ctx_init(&c, &none);
	if (!err) {
		troute_planset_free(&none, &ps);
		err = troute_cdg_check(&c, &ps, o, r);
	}
	troute_ctx_free(&c);
out:
	free(dead);
	free(cut);
	return err;
}

int troute_node_routes(const struct troute_faults *f, unsigned int self,
		       struct troute_node_set *s)
{
	unsigned int d, nnodes = troute_nnodes(f);
	struct troute_sets sets;
	int err;

	memset(s, 0, sizeof(*s));
	if (!f->ndims || self >= nnodes)
		return -EINVAL;
	s->self = self;
	err = copy_faults(f, s, nnodes);
	if (err)
		return err;
	err = troute_ctx_init(&s->c, &s->f);
	if (err)
		return err;
	troute_planset_free(&s->f, &s->ps);
	s->lamb = calloc(nnodes, 1);
	s->table = calloc(nnodes, sizeof(*s->table));
	if (!s->lamb || !s->table)
		return -ENOMEM;
	err = troute_sets_init(&sets, &s->c, &s->ps);
	if (err)
		return err;
	err = troute_lambs(&s->c, &sets, s->lamb, &s->lamb_stats);
	troute_sets_free(&sets);
	if (err)
		return err;
	err = troute_table(&s->c, &s->ps, s->lamb, self, s->table);
	if (err)
		return err;
	for (d = 0; d < nnodes; d++) {
		s->lambs += s->lamb[d] && !s->f.dead[d];
		s->exceptions += s->table[d].kind == TROUTE_VIA;
		s->unreachable += s->table[d].kind == TROUTE_UNREACHABLE &&
				  !s->f.dead[d] && !s->lamb[d];
	}
	return 0;
}

void troute_node_free(struct troute_node_set *s)
{
	troute_ctx_free(&s->c);
	free((void *)s->f.dead);
	free((void *)s->f.cut);
	free(s->lamb);
	free(s->table);
	memset(s, 0, sizeof(*s));
}

/*
 * One round of @plan from @from to @to, appended at hops[*n].  The
 * dateline bit is set by the hop over a ring's wrap cable and kept while
 * the frame stays on that axis (as torus.ko's torus_vc_next()).
 */
static int walk_round(const struct troute_node_set *s, unsigned int plan,
		      unsigned int round, unsigned int from, unsigned int to,
		      struct troute_hop *hops, unsigned int max,
		      unsigned int *n)
{
	const struct troute_ctx *c = &s->c;
	const struct troute_plan *p = &s->ps.plans[plan];
	unsigned int cur = from, i;

	for (i = 0; i < s->f.ndims; i++) {
		unsigned int a = p->order[i], e = s->f.dims[a];
		unsigned int pos = c->coords[(size_t)cur * s->f.ndims + a];
		int k = troute_leg(c, a, p->policy[a], pos,
				   c->coords[(size_t)to * s->f.ndims + a]);
		bool neg = k < 0, dateline = false;

		for (; k; k += neg ? 1 : -1) {
			unsigned int next = neg ? (pos + e - 1) % e :
					    (pos + 1) % e;

			if (*n == max)
				return -E2BIG;
			if (neg ? pos == 0 : pos == e - 1)
				dateline = true;
			hops[*n].node = cur;
			hops[*n].dir = (uint8_t)TORUS_DIR(a, neg);
			hops[*n].round = (uint8_t)round;
			hops[*n].plan = (uint8_t)plan;
			hops[*n].vc = TROUTE_VC(plan, round, dateline);
			(*n)++;
			cur = cur - pos * c->stride[a] + next * c->stride[a];
			pos = next;
		}
	}
	return 0;
}

int troute_node_path(const struct troute_node_set *s, unsigned int dst,
		     struct troute_hop *hops, unsigned int max)
{
	const struct troute_route *r;
	unsigned int n = 0;
	int err;

	if (dst >= s->c.nnodes)
		return -EINVAL;
	r = &s->table[dst];
	switch (r->kind) {
	case TROUTE_SELF:
		return 0;
	case TROUTE_DIRECT:
		err = walk_round(s, 0, 0, s->self, dst, hops, max, &n);
		break;
	case TROUTE_VIA:
		err = walk_round(s, r->plan0, 0, s->self, r->via, hops, max,
				 &n);
		if (!err)
			err = walk_round(s, r->plan1, 1, r->via, dst, hops,
					 max, &n);
		break;
	default:
		return -EHOSTUNREACH;
	}
	return err ? err : (int)n;
}
