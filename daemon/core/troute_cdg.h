/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * troute_cdg.h - deadlock freedom: the channel dependency graph of a
 * plan set must be acyclic (Dally & Seitz), else the routes are refused
 */
#ifndef TORUS_TROUTE_CDG_H
#define TORUS_TROUTE_CDG_H

#include "troute.h"

#define TROUTE_CDG_CYCLE_MAX	64

/**
 * struct troute_cdg_opts - how frames are put on virtual channels
 * @cls: virtual-channel class of (plan, round); the default (NULL
 *	options) is plan * 2 + round, i.e. TROUTE_VC() without dateline
 * @no_dateline: test knob: the dateline bit is never set (a ring then
 *	has a cycle, which the check must find)
 */
struct troute_cdg_opts {
	uint8_t cls[TROUTE_MAX_PLANS][2];
	bool no_dateline;
};

/**
 * struct troute_cdg_result - the verdict
 * @acyclic: no cycle: the route set is deadlock-free
 * @channels: channels (node, direction, class, dateline) on usable cables
 * @deps: dependencies (a frame holding one channel may wait for the next)
 * @cycle_len, @cycle: a cycle found, as channel ids (troute_cdg_channel)
 */
struct troute_cdg_result {
	bool acyclic;
	uint64_t channels, deps;
	uint32_t cycle_len;
	uint32_t cycle[TROUTE_CDG_CYCLE_MAX];
};

/*
 * Build the graph from the routing function's possible turns (not from
 * enumerated paths): within a class, straight on in the same direction
 * (dateline set by the wrap cable, never crossed twice: a leg is
 * shorter than its ring) and turns onto later axes of the plan; from a
 * round-0 class into any round-1 class the plan set allows.  Every route
 * troute_table() gives is a path of this graph, so an acyclic graph
 * proves the routes deadlock-free.
 */
int troute_cdg_check(const struct troute_ctx *c,
		     const struct troute_planset *ps,
		     const struct troute_cdg_opts *o,
		     struct troute_cdg_result *r);

/* what channel id ch is: class, dateline, node, global direction */
void troute_cdg_channel(const struct troute_ctx *c, uint32_t ch,
			unsigned int *cls, unsigned int *dateline,
			unsigned int *node, unsigned int *dir);

#endif /* TORUS_TROUTE_CDG_H */
