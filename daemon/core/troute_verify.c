// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * troute_verify.c - the exact verifier of a lamb set
 *
 * Proves, for every ordered pair of survivors (live, not lambs), that
 * the destination is reached in one or two rounds under a plan set, and
 * counts the pairs that are not.  No sampling: under plan 0 in both
 * rounds all pairs of a (source class, destination class) pair share
 * one answer (troute_class.h), so the classes are compared, not the
 * pairs; only the node pairs of class pairs that fail there are tried
 * with the other plans, each (plan pair, class pair) answered once.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "troute_verify.h"

int troute_sets_init(struct troute_sets *s, const struct troute_ctx *c,
		     const struct troute_planset *ps)
{
	unsigned int p;
	int err;

	memset(s, 0, sizeof(*s));
	s->ps = *ps;
	for (p = 0; p < ps->nplans; p++) {
		err = troute_classes_build(c, &ps->plans[p], false, &s->src[p]);
		if (!err)
			err = troute_classes_build(c, &ps->plans[p], true,
						   &s->dst[p]);
		if (err) {
			troute_sets_free(s);
			return err;
		}
	}
	return 0;
}

void troute_sets_free(struct troute_sets *s)
{
	unsigned int p;

	for (p = 0; p < TROUTE_MAX_PLANS; p++) {
		troute_classes_free(&s->src[p]);
		troute_classes_free(&s->dst[p]);
	}
	free(s->memo);
	s->memo = NULL;
}

/* memo of (plan pair, source class, destination class) -> meets + 1 */
static uint64_t memo_key(unsigned int p, unsigned int q, uint32_t a,
			 uint32_t b)
{
	return ((uint64_t)(p * TROUTE_MAX_PLANS + q) << 58) ^
	       ((uint64_t)a << 29) ^ b;
}

/* an entry is key << 1 | answer, with bit 63 set so it is never 0 */
static uint64_t memo_entry_key(uint64_t e)
{
	return (e >> 1) & ((1ULL << 62) - 1);
}

static int memo_get(struct troute_sets *s, uint64_t key)
{
	size_t i;

	if (!s->memo)
		return -1;
	for (i = (key * 0x9e3779b97f4a7c15ULL) >> 40 & (s->memo_cap - 1);
	     s->memo[i]; i = (i + 1) & (s->memo_cap - 1))
		if (memo_entry_key(s->memo[i]) == key)
			return s->memo[i] & 1;
	return -1;
}

static void memo_put(struct troute_sets *s, uint64_t key, bool meets)
{
	size_t i, cap;

	if (s->memo_used * 2 >= s->memo_cap) {
		uint64_t *old = s->memo;
		size_t oldcap = s->memo_cap;

		cap = oldcap ? oldcap * 2 : 4096;
		s->memo = calloc(cap, sizeof(*s->memo));
		if (!s->memo) { /* no memo: answers are recomputed */
			s->memo = old;
			return;
		}
		s->memo_cap = cap;
		s->memo_used = 0;
		for (i = 0; i < oldcap; i++)
			if (old[i])
				memo_put(s, memo_entry_key(old[i]), old[i] & 1);
		free(old);
	}
	for (i = (key * 0x9e3779b97f4a7c15ULL) >> 40 & (s->memo_cap - 1);
	     s->memo[i]; i = (i + 1) & (s->memo_cap - 1))
		;
	s->memo[i] = key << 1 | meets | (1ULL << 63);
	s->memo_used++;
}

bool troute_two_rounds(const struct troute_ctx *c, struct troute_sets *s,
		       unsigned int p, unsigned int q, unsigned int u,
		       unsigned int v)
{
	uint32_t a = s->src[p].of[u], b = s->dst[q].of[v];
	uint64_t key;
	int m;

	if (a == TROUTE_NOCLASS || b == TROUTE_NOCLASS)
		return false;
	if (!p && !q) /* compared class by class anyway: no memo */
		return troute_class_meet(c, &s->src[0], a, &s->dst[0], b);
	key = memo_key(p, q, a, b) & ~(1ULL << 62);
	m = memo_get(s, key);
	if (m >= 0)
		return m;
	m = troute_class_meet(c, &s->src[p], a, &s->dst[q], b);
	memo_put(s, key, m);
	return m;
}

bool troute_pair_ok(const struct troute_ctx *c, struct troute_sets *s,
		    unsigned int u, unsigned int v)
{
	unsigned int p, q;

	for (p = 0; p < s->ps.nplans; p++)
		for (q = 0; q < s->ps.nplans; q++) {
			if (p != q && !s->ps.any_pair)
				continue;
			if (troute_two_rounds(c, s, p, q, u, v))
				return true;
		}
	return false;
}

/*
 * Ordered pairs plan 0 connects in one round: the number of survivors
 * each node reaches with the plan's steps from level on, summed over
 * arcs from the last step backwards, O(nodes * extent * axes).
 */
static int one_round_pairs(const struct troute_ctx *c,
			   const struct troute_plan *p, const uint8_t *surv,
			   uint64_t *pairs)
{
	uint32_t *cur = malloc(sizeof(*cur) * c->nnodes);
	uint32_t *next = malloc(sizeof(*next) * c->nnodes), *t;
	unsigned int n, level;

	if (!cur || !next) {
		free(cur);
		free(next);
		return -ENOMEM;
	}
	for (n = 0; n < c->nnodes; n++)
		cur[n] = surv[n];
	for (level = c->f->ndims; level-- > 0;) {
		unsigned int a = p->order[level], e = c->f->dims[a];

		for (n = 0; n < c->nnodes; n++) {
			unsigned int back, ahead, pos = n / c->stride[a] % e;
			unsigned int line = n - pos * c->stride[a];
			int k;

			next[n] = 0;
			troute_arc(c, n, a, p->policy[a], false, &back, &ahead);
			if (back + ahead + 1 > e)
				ahead = e - 1 - back;
			for (k = -(int)back; k <= (int)ahead; k++)
				next[n] += cur[line + ((pos + e + k) % e) *
						     c->stride[a]];
		}
		t = cur;
		cur = next;
		next = t;
	}
	*pairs = 0;
	for (n = 0; n < c->nnodes; n++)
		if (surv[n])
			*pairs += cur[n] - 1; /* less the node itself */
	free(cur);
	free(next);
	return 0;
}

struct bad_walk {
	const struct troute_ctx *c;
	struct troute_sets *s;
	const uint8_t *surv;
	troute_bad_fn fn;
	void *arg;
	struct troute_verdict *v;
};

/* source class a and destination class b do not meet under plan 0 */
static int count_misses(void *arg, uint32_t a, uint32_t b)
{
	struct bad_walk *w = arg;
	struct troute_classes *src = &w->s->src[0], *dst = &w->s->dst[0];
	uint32_t i, j;

	for (i = src->first[a]; i < src->first[a + 1]; i++) {
		unsigned int u = src->members[i];

		if (!w->surv[u])
			continue;
		for (j = dst->first[b]; j < dst->first[b + 1]; j++) {
			unsigned int t = dst->members[j];

			if (t == u || !w->surv[t])
				continue;
			if (!troute_connected(w->c, u, t)) {
				w->v->disconnected++;
				continue;
			}
			if (w->s->ps.nplans > 1 &&
			    troute_pair_ok(w->c, w->s, u, t))
				continue;
			if (!w->v->bad) {
				w->v->bad_u = u;
				w->v->bad_v = t;
			}
			w->v->bad++;
			if (w->fn)
				w->fn(w->arg, u, t);
		}
	}
	return 0;
}

int troute_bad_pairs(const struct troute_ctx *c, struct troute_sets *s,
		     const uint8_t *lamb, troute_bad_fn fn, void *arg,
		     struct troute_verdict *v)
{
	struct bad_walk w = { c, s, NULL, fn, arg, v };
	uint8_t *surv = malloc(c->nnodes);
	unsigned int n;
	int err;

	memset(v, 0, sizeof(*v));
	if (!surv)
		return -ENOMEM;
	for (n = 0; n < c->nnodes; n++) {
		surv[n] = troute_live(c, n) && !(lamb && lamb[n]);
		v->survivors += surv[n];
	}
	v->pairs = v->survivors * (v->survivors ? v->survivors - 1 : 0);
	w.surv = surv;
	/* the lamb search (fn, no lambs yet) needs the bad pairs only */
	err = fn && !lamb ? 0 :
	      one_round_pairs(c, &s->ps.plans[0], surv, &v->one_round);
	if (!err)
		err = troute_class_misses(c, &s->src[0], &s->dst[0],
					  count_misses, &w);
	if (v->one_round || !fn || lamb)
		v->two_round = v->pairs - v->one_round - v->bad -
			       v->disconnected;
	free(surv);
	return err;
}

int troute_verify(const struct troute_ctx *c,
		  const struct troute_planset *ps, const uint8_t *lamb,
		  struct troute_verdict *v)
{
	struct troute_sets s;
	int err = troute_sets_init(&s, c, ps);

	if (err)
		return err;
	err = troute_bad_pairs(c, &s, lamb, NULL, NULL, v);
	troute_sets_free(&s);
	return err;
}
