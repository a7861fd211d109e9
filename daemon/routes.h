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
#include "rworker.h"
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
/*
 * Results whose fault set changed while they were computed are thrown
 * away (and computed again), at most this many in a row: then one is
 * installed all the same, newer than what the kernel holds.
 */
#define TD_ROUTES_STALE_MAX		3

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
	bool		cdg_one_class;	/* ... under --test-one-channel-class */
	bool		have_cdg;
	/*
	 * the computation (rworker.h): the worker (not started: computed
	 * in the loop), a job under way, its result not yet taken, and
	 * what the loop knew when it started the job
	 */
	struct td_rworker worker;
	bool		computing;
	struct td_rjob	*result;
	uint64_t	job_tick;	/* the tick it started */
	uint32_t	job_ls_gen;	/* the link state's generation then */
	bool		quiet;		/* td_holdoff_start() said */
	unsigned int	stale;		/* results thrown away in a row */
};

struct torusd;

/*
 * The loop's hook: take a finished computation's result and install it,
 * start one when the fault set changed
 */
void routes_service(struct torusd *d);
/* the worker's eventfd is readable: take its result (for routes_service) */
void routes_collect(struct torusd *d);
/* start the worker thread (failing that, routes are computed inline) */
int routes_start(struct torusd *d);
/* its eventfd for the loop's epoll set, or -1 */
int routes_worker_fd(const struct torusd *d);
/* stop and join it; a computation under way is thrown away, made again */
void routes_stop(struct torusd *d);
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
