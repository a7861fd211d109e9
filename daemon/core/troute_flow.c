// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * troute_flow.c - Dinic's max flow.  The nodes reached from the source
 * in the final residual graph are the minimal minimum cut: the same for
 * every maximum flow, so the lamb set does not depend on the order in
 * which augmenting paths happen to be found.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "troute_flow.h"

#define NONE	UINT32_MAX

int troute_flow_init(struct troute_flow *g, uint32_t nv)
{
	memset(g, 0, sizeof(*g));
	g->nv = nv;
	g->head = malloc(sizeof(*g->head) * nv);
	g->level = malloc(sizeof(*g->level) * nv);
	g->it = malloc(sizeof(*g->it) * nv);
	g->queue = malloc(sizeof(*g->queue) * nv);
	if (!g->head || !g->level || !g->it || !g->queue) {
		troute_flow_free(g);
		return -ENOMEM;
	}
	memset(g->head, 0xff, sizeof(*g->head) * nv);
	return 0;
}

void troute_flow_free(struct troute_flow *g)
{
	free(g->head);
	free(g->next);
	free(g->to);
	free(g->cap);
	free(g->level);
	free(g->it);
	free(g->queue);
	memset(g, 0, sizeof(*g));
}

static int add_arc(struct troute_flow *g, uint32_t u, uint32_t v,
		   int64_t cap)
{
	if (g->ne == g->cap_e) {
		uint32_t n = g->cap_e ? g->cap_e * 2 : 1024;
		uint32_t *next = realloc(g->next, sizeof(*next) * n);
		uint32_t *to = next ? realloc(g->to, sizeof(*to) * n) : NULL;
		int64_t *c = to ? realloc(g->cap, sizeof(*c) * n) : NULL;

		if (next)
			g->next = next;
		if (to)
			g->to = to;
		if (!c)
			return -ENOMEM;
		g->cap = c;
		g->cap_e = n;
	}
	g->to[g->ne] = v;
	g->cap[g->ne] = cap;
	g->next[g->ne] = g->head[u];
	g->head[u] = g->ne++;
	return 0;
}

int troute_flow_edge(struct troute_flow *g, uint32_t u, uint32_t v,
		     int64_t cap)
{
	int err = add_arc(g, u, v, cap);

	return err ? err : add_arc(g, v, u, 0);
}

/* levels by BFS in the residual graph; true if t is reached */
static bool bfs(struct troute_flow *g, uint32_t s, uint32_t t)
{
	uint32_t qh = 0, qt = 0, e;

	memset(g->level, 0xff, sizeof(*g->level) * g->nv);
	g->level[s] = 0;
	g->queue[qt++] = s;
	while (qh < qt) {
		uint32_t u = g->queue[qh++];

		for (e = g->head[u]; e != NONE; e = g->next[e])
			if (g->cap[e] > 0 && g->level[g->to[e]] == NONE) {
				g->level[g->to[e]] = g->level[u] + 1;
				g->queue[qt++] = g->to[e];
			}
	}
	return g->level[t] != NONE;
}

/* one blocking-flow path, iteratively (graphs can be deep) */
static int64_t augment(struct troute_flow *g, uint32_t s, uint32_t t)
{
	uint32_t depth = 0, u = s, *path = g->queue;
	int64_t f;

	for (;;) {
		if (u == t) {
			uint32_t i;

			f = INT64_MAX;
			for (i = 0; i < depth; i++)
				if (g->cap[path[i]] < f)
					f = g->cap[path[i]];
			for (i = 0; i < depth; i++) {
				g->cap[path[i]] -= f;
				g->cap[path[i] ^ 1] += f;
			}
			return f;
		}
		for (; g->it[u] != NONE; g->it[u] = g->next[g->it[u]]) {
			uint32_t e = g->it[u];

			if (g->cap[e] > 0 && g->level[g->to[e]] == g->level[u] + 1)
				break;
		}
		if (g->it[u] == NONE) { /* dead end: retreat */
			if (!depth)
				return 0;
			g->level[u] = NONE;
			u = g->to[path[--depth] ^ 1];
			g->it[u] = g->next[g->it[u]];
			continue;
		}
		path[depth++] = g->it[u];
		u = g->to[g->it[u]];
	}
}

int64_t troute_flow_max(struct troute_flow *g, uint32_t s, uint32_t t)
{
	int64_t total = 0, f;

	while (bfs(g, s, t)) {
		memcpy(g->it, g->head, sizeof(*g->it) * g->nv);
		while ((f = augment(g, s, t)) > 0)
			total += f;
	}
	bfs(g, s, t); /* leaves the levels of the final residual graph */
	return total;
}

bool troute_flow_source_side(const struct troute_flow *g, uint32_t v)
{
	return g->level[v] != NONE;
}
