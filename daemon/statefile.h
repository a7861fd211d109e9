/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * statefile.h - the daemon's view as a small JSON object (--state-file)
 */
#ifndef TORUSD_STATEFILE_H
#define TORUSD_STATEFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tcore.h"

/* one port of the node and the node across it */
struct td_state_nbr {
	bool			present;
	const char		*ifname;
	struct tc_nbr_info	nbr;
	uint8_t			dir;	 /* it serves in the kernel, or NONE */
	uint8_t			want;	 /* discovery gives it, or NONE */
	uint8_t			refused; /* enum td_refusal: why not */
};

/* the fault-tolerant routes torusd computed and installed (routes.c) */
/* the collectives' combining tree torusd installed (tcoll_tree.h) */
struct td_state_coll {
	bool			computed;	/* from the installed route set */
	bool			installed;	/* TORUS_CMD_COLL_TREE_SET'd */
	bool			fault_free;	/* the kernel's default tree */
	uint8_t			parent;		/* direction, or none: a root */
	uint16_t		children;	/* bit per direction */
	uint32_t		depth;		/* this node's hops to its root */
	uint32_t		members, roots, max_depth, max_fan_in;
};

struct td_state_routes {
	bool			computed;	/* a set was computed */
	bool			lamb;		/* this node is a lamb */
	/* the last set was refused (a cycle, or by the kernel) ... */
	bool			refused;
	char			refused_why[96];	/* ... why */
	uint32_t		refusals;	/* ... so many times in a row */
	uint32_t		generation;	/* kernel's exception table */
	uint32_t		ls_generation;	/* link state computed from */
	uint32_t		installs;	/* sets installed */
	uint32_t		lambs, exceptions, dead, cuts;
	double			compute_ms;	/* the last computation */
	double			compute_cpu_ms;	/* ... its CPU time */
	uint64_t		computed_at_ms;	/* ... at (Unix time, ms) */
	struct td_state_coll	coll;		/* the combining tree */
};

struct td_state_info {
	const char		*ifname;
	uint64_t		id;
	const struct tc_view	*view;
	/* port name by label, NULL where the node has no such port */
	const char		*port_names[TC_MAX_PORTS];
	/* the kernel holds the placed view (coordinates and port map) */
	bool			installed;
	/* by label; NULL: no neighbor table */
	const struct td_state_nbr *nbrs;
	/* NULL: no routes key */
	const struct td_state_routes *routes;
};

const char *td_state_name(uint8_t state);
/*
 * The service's status in one phrase: the state's name, or "routes
 * refused" for a placed node whose last route set was refused (the
 * kernel keeps the routes it had)
 */
const char *td_state_status(const struct td_state_info *si);
const char *td_role_name(uint8_t role);
/* "+x" .. "-e", "?" for anything else */
const char *td_dir_name(uint8_t dir);

/* "1,2,3" and "4x4x2(mesh)" for logs */
void td_fmt_coord(char *buf, size_t len, const uint8_t *v, unsigned int n);
void td_fmt_dims(char *buf, size_t len, const uint16_t *v, uint8_t wrap,
		 unsigned int n);

void td_state_json(FILE *f, const struct td_state_info *si);
/*
 * The neighbor table as lines of "key=value" words, one per port (what
 * torusd answers "torus neighbor show" with):
 *   port= label= carrier=up|down status=none|unresolved|conflict|resolved
 *   id= peer_port= leader= placed=yes|no silent= miswired=yes|no serves=
 *   want= refused=
 * Ids in decimal, directions like +x, "-" for none.
 */
void td_state_nbr_text(FILE *f, const struct td_state_info *si);
const char *td_nbr_status_name(uint8_t status);
/* write @path atomically (temporary file + rename): 0 or -errno */
int td_state_write(const char *path, const struct td_state_info *si);

#endif /* TORUSD_STATEFILE_H */
