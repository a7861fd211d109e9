/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * torus-sim: the discovery core (daemon/core) on a simulated machine.
 *
 * world.c builds one run's ground truth (cables, rotations, failures),
 * engine.c runs the nodes in synchronous rounds and checks what they
 * found against the truth, bound.c has the paper's lower bounds, sim.c
 * parses the command line and prints.
 */
#ifndef TORUS_SIM_H
#define TORUS_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "tcore.h"

#define SIM_MAX_NODES	(1u << 24)	/* node index fits in a peer entry */
#define SIM_NO_PEER	UINT32_MAX
#define SIM_MAX_REASONS	32		/* distinct reasons kept per run */

enum sim_miswire {
	SIM_MISWIRE_NONE,
	SIM_MISWIRE_BLOCKS,
	SIM_MISWIRE_NODES,
};

struct sim_opts {
	unsigned int ndims;
	uint16_t dims[TC_MAX_AXES];
	uint8_t wrap;			/* bit per axis: torus ring */
	bool blocks;
	uint16_t block[TC_MAX_AXES];
	double node_fail;		/* q */
	double link_fail;		/* 1 - r */
	enum sim_miswire miswire;
	uint64_t seed;
	unsigned int runs;
	uint32_t max_rounds;		/* 0: 4d + 4K + 50 */
	uint16_t hello_ticks;
	uint16_t dead_ticks;
	uint16_t quiet_ticks;		/* 0: diameter + 2 */
	uint16_t orient_ticks;		/* 0: the core's default */
	bool json;
	int verbose;
};

/* a signed permutation: local port label <-> global direction */
struct sim_rot {
	uint8_t fwd[TC_MAX_PORTS];	/* label -> global direction */
	uint8_t inv[TC_MAX_PORTS];	/* global direction -> label */
};

/* the ground truth of one run */
struct sim_world {
	const struct sim_opts *o;
	uint64_t seed;
	uint32_t nnodes;
	unsigned int nports;		/* 2 * ndims labels per node */
	uint32_t stride[TC_MAX_AXES];
	uint16_t bgrid[TC_MAX_AXES];	/* blocks per axis */
	uint32_t nblocks;
	unsigned int diameter;		/* fault-free */
	unsigned int block_diameter;
	uint32_t nfaces;		/* inter-block faces (Eq. 7's k) */
	uint32_t live;
	uint32_t cables, dead_cables;
	uint8_t *alive;			/* per node */
	uint64_t *ids;			/* per node, unique, nonzero */
	uint32_t *rot_of;		/* per node: index into rots */
	struct sim_rot *rots;
	uint32_t nrots;
	/* per node and label: (peer << 4) | peer label, SIM_NO_PEER if the
	 * port has no cable or its cable is cut (the peer may be dead) */
	uint32_t *peer;
	uint8_t *cut;			/* per node and label: cable cut */
};

struct sim_reason {
	char text[TC_REASON_LEN];
	uint32_t count;
};

struct sim_result {
	uint64_t seed;
	uint32_t nodes, live;
	uint32_t rounds;		/* last change of coord/dims/portmap */
	int64_t rounds_to_placed;	/* -1: not all final */
	uint32_t rounds_coords;	/* last change of a leader or an offset */
	uint32_t rounds_run;		/* rounds simulated */
	const char *stop;		/* why the loop stopped */
	bool converged;
	uint32_t placed, unplaced, failed;
	struct sim_reason reasons[SIM_MAX_REASONS + 1];	/* last: "other" */
	unsigned int nreasons;
	bool consistent;
	uint32_t frames;		/* distinct leaders among placed */
	uint32_t bad_coord, bad_dims, bad_portmap, bad_frame;
	uint32_t split_components;	/* components holding >1 frame */
	uint32_t missing_portmap;	/* live cable, direction unmapped */
	uint32_t components, main_component, main_placed;
	bool orientation_ok;
	uint32_t blocks_in_main;	/* blocks with live nodes in main */
	uint32_t blocks_failed;		/* ... none of them placed */
	bool blocks_ok;
	double msgs_per_node, bytes_per_node;
	uint64_t bad_rx, dropped;
	uint32_t oversize;		/* messages above TC_MSG_MAX */
	size_t state_bytes;		/* tc_node_size() */
	size_t harness_bytes;		/* simulator's own, per node */
	size_t queue_peak;		/* bytes in one round's queue, peak */
	uint64_t node_steps;
	double loop_s, wall_s;
};

/* world.c */
uint64_t sim_splitmix(uint64_t *s);
int sim_world_build(struct sim_world *w, const struct sim_opts *o,
		    uint64_t seed);
void sim_world_free(struct sim_world *w);
void sim_coords(const struct sim_world *w, uint32_t u, unsigned int *c);
uint32_t sim_block_of(const struct sim_world *w, uint32_t u);
size_t sim_world_bytes(const struct sim_world *w);
void sim_node_config(const struct sim_world *w, uint32_t u,
		     struct tc_config *cfg);
unsigned int sim_diameter(const struct sim_opts *o, const uint16_t *dims);

/* engine.c */
int sim_run(const struct sim_world *w, struct sim_result *res);

/* bound.c */
#define SIM_BOUND_MIN_N	5	/* smallest block edge Eq. 6 applies to */
struct sim_bound {
	bool have;		/* Eq. 6-7 apply (cubic 3-D blocks, k > 0) */
	unsigned int n;		/* block edge N */
	uint32_t k;		/* inter-block faces */
	double x;		/* 1 - r p^2 */
	double lb_face;		/* Eq. 6 */
	double lb;		/* Eq. 7: LB^k */
	double lb_fail;		/* 1 - LB^k, computed without cancellation */
	bool have_eq8;		/* 32x32x64 of 8x8x8 */
	double eq8;
	double eq8_fail;
};
void sim_bound(const struct sim_opts *o, uint32_t nfaces,
	       struct sim_bound *b);

#endif /* TORUS_SIM_H */
