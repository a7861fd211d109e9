/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * troute_flow.h - max flow (Dinic) for the lamb cover
 */
#ifndef TORUS_TROUTE_FLOW_H
#define TORUS_TROUTE_FLOW_H

#include <stdbool.h>
#include <stdint.h>

struct troute_flow {
	uint32_t nv, ne, cap_e;
	uint32_t *head;		/* [nv] first edge, UINT32_MAX: none */
	uint32_t *next, *to;	/* [ne] */
	int64_t *cap;		/* [ne] residual capacity; edge ^ 1 reverse */
	uint32_t *level, *it, *queue;
};

int troute_flow_init(struct troute_flow *g, uint32_t nv);
void troute_flow_free(struct troute_flow *g);
int troute_flow_edge(struct troute_flow *g, uint32_t u, uint32_t v,
		     int64_t cap);
int64_t troute_flow_max(struct troute_flow *g, uint32_t s, uint32_t t);
/* after troute_flow_max(): v is on the source side of the minimal cut */
bool troute_flow_source_side(const struct troute_flow *g, uint32_t v);

#endif /* TORUS_TROUTE_FLOW_H */
