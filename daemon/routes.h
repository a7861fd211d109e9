/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * routes.h - torusd's fault-tolerant routes: when the link state's fault
 * set changes, compute this node's route set (daemon/core/troute_node.c)
 * and install plans, exceptions and the lamb role in torus.ko
 */
#ifndef TORUSD_ROUTES_H
#define TORUSD_ROUTES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "holdoff.h"
#include "statefile.h"
#include "troute_node.h"

/*
 * A node becomes a lamb only once its set has held this long: a lamb
 * drops its own traffic, and a link state that flaps (a starved
 * machine, a cable going up and down) would make lambs come and go.
 * Others lose nothing meanwhile (a lamb forwards like any node); a set
 * that releases the node releases it at once.
 */
#define TD_ROUTES_LAMB_DELAY_MS		2000

struct td_routes {
	/* the set the kernel holds (NULL: none yet); not movable */
	struct troute_node_set	*set;
	struct td_holdoff hold;		/* the fault set may have changed */
	uint32_t	ls_gen;		/* tc_ls_generation() last seen */
	uint32_t	view_gen;	/* the placement last seen */
	uint64_t	set_tick;	/* tick the installed set came in */
	/*
	 * the daemon resumed a placed kernel: the routes it holds stay
	 * until the link state settles (tc_ls_info.settling), instead of
	 * being replaced by ones computed from a database still empty
	 */
	bool		resumed;
	/* computations or installs that failed in a row (not refusals) */
	unsigned int	fails;
	struct td_state_routes info;	/* for the state file */
	/* the deadlock verdict of the geometry's fault-free graph */
	struct troute_faults	cdg_geom;	/* its geometry (no arrays) */
	struct troute_cdg_result cdg;
	bool		have_cdg;
};

struct torusd;

/* the loop's hook: compute and install when the fault set changed */
void routes_service(struct torusd *d);
/* the tick a pending computation waits for, or UINT64_MAX */
uint64_t routes_next_tick(const struct torusd *d);
void routes_free(struct torusd *d);
/* the kernel's combining tree is the installed set's, or is put back */
int routes_audit_tree(struct torusd *d);
/*
 * Answer "path COORD" on the control socket: "ok", a "route" line, then
 * one "hop" line per hop (see torus(8), route path), or "error ...".
 */
void routes_path_reply(struct torusd *d, const char *coord, FILE *f);

#endif /* TORUSD_ROUTES_H */
