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

/* in which order nodes are powered on over --start-spread */
enum sim_start_order {
	SIM_START_RANDOM,	/* uniform random start ticks */
	SIM_START_IDS,		/* ascending id: the would-be leader last */
	SIM_START_COORDS,	/* row-major, x fastest (the lab's order) */
	SIM_START_AXES,		/* origin, x line, xy plane, ...: one axis
				 * at a time, each group later */
};

enum sim_liar_kind {
	SIM_LIAR_RANDOM,	/* random bytes, half behind a valid header */
	SIM_LIAR_LYING,		/* well-formed records that lie */
};

#define SIM_MAX_DELAY	3	/* --reorder: up to this many rounds late */

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
	uint16_t ls_settle_ticks;	/* 0: dead_ticks */
	uint16_t quiet_ticks;		/* 0: diameter + 2 */
	uint16_t orient_ticks;		/* 0: the core's default */
	/* time: see man torus-sim(8), "Time" */
	bool timed;			/* any option below given */
	bool no_sleep;			/* tick every node every round */
	uint32_t start_spread;		/* ticks */
	enum sim_start_order start_order;
	double loss, dup, reorder;	/* per message */
	double stall;			/* per node and round: a stall starts */
	uint16_t stall_max;		/* rounds a stall lasts at most */
	uint32_t restarts;
	bool restart_fresh;		/* no placement to resume */
	uint32_t recables;
	uint32_t wrong_plugs;
	int grow_axis;			/* -1: no growth */
	uint16_t grow_slabs;
	uint32_t liars;
	enum sim_liar_kind liar_kind;
	uint16_t mtu;			/* 0: messages of any length pass */
	uint32_t truth_swaps;		/* test knob: a false truth */
	bool ls_events;			/* kill/revive a node, cut/plug a
					 * cable once link state agreed */
	uint32_t ls_records;		/* the core's ls_records, 0: auto */
	bool no_ls;			/* no measurement, one record */
	bool force_ls;			/* --ls: measured beyond SIM_LS_FIT */
	bool json;
	const char *svg;		/* --svg FILE: first run's picture */
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

/* link state (linkstate.c): one run's figures */
enum sim_ls_phase {
	SIM_LS_INITIAL,			/* after discovery */
	SIM_LS_KILL,			/* a node powered off */
	SIM_LS_REVIVE,			/* ... and on again */
	SIM_LS_CUT,			/* a cable cut */
	SIM_LS_RESTORE,			/* ... and plugged back */
	SIM_LS_PHASES,
};

#define SIM_LS_NOT_RUN	(-2)
#define SIM_LS_TIMEOUT	(-1)

struct sim_ls_result {
	bool measured;			/* discovery placed everybody */
	bool agree;			/* every phase run agreed with truth */
	bool exact;			/* ... and tc_ls_faults() matched it */
	uint32_t started_at;		/* tick discovery was final */
	int64_t rounds[SIM_LS_PHASES];	/* to agree; SIM_LS_NOT_RUN/TIMEOUT */
	double bytes_mean[SIM_LS_PHASES];	/* LS bytes sent per node */
	double bytes_max[SIM_LS_PHASES];
	double msgs_mean;		/* LS messages per node, initial */
	uint32_t reporters;		/* truth's records, initial */
	uint32_t records_max;		/* largest database, initial */
	uint32_t capacity;		/* records a database holds */
	uint64_t overflow;		/* records refused, summed */
	uint32_t disagree;		/* nodes off the truth at a timeout */
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
	uint32_t oversize;		/* messages above TC_MSG_MAX or
					 * --mtu; the core's unsent ones */
	uint64_t queue_drops;		/* tc_stats.queue_drops, summed */
	uint64_t refuted;		/* tc_stats.refuted, summed */
	uint64_t resurveys;		/* tc_stats.resurveys, summed */
	uint64_t node_ticks;		/* ticks of running nodes */
	uint64_t node_ticks_slept;	/* ... skipped by tc_skip() */
	/* time */
	uint32_t moved;			/* placed nodes that moved later */
	uint32_t moved_rewired;		/* ... whose own cables changed */
	uint32_t moved_after_growth;	/* moved, after the fabric grew */
	uint32_t moved_beyond_growth;	/* ... otherwise than the growth
					 * forces (engine.c) */
	/* when not NULL (--svg), filled with each node's final state */
	struct sim_final_node *final;
	uint32_t wrong;			/* nodes placed wrongly at some tick */
	uint32_t wrong_coord, wrong_dims, wrong_portmap, wrong_frame;
					/* ... by what was wrong the first
					 * time (a node may count in several) */
	int64_t first_wrong;		/* tick, -1: never */
	uint32_t wrong_checks;		/* node views checked during the run */
	int64_t converged_at;		/* tick, -1: not converged */
	uint32_t last_event;		/* tick of the last scheduled event */
	int64_t grown_at;		/* tick, -1: no growth */
	int64_t survey_from;		/* first tick a ring was surveyed, -1 */
	int64_t surveyed_at;		/* last tick a ring was surveyed, -1 */
	uint32_t liars;
	uint64_t lost, duplicated, delayed;
	size_t state_bytes;		/* tc_core_size(): the core's own */
	size_t ls_bytes;		/* tc_ls_size(): its link state */
	uint32_t ls_records;		/* ... of this bound */
	/* link state not measured: the default bound's databases would
	 * take ls_need bytes, over SIM_LS_FIT */
	bool ls_skipped;
	double ls_need;
	size_t harness_bytes;		/* simulator's own, per node */
	size_t queue_peak;		/* bytes in one round's queue, peak */
	struct sim_ls_result ls;
	uint64_t node_steps;
	double loop_s, wall_s;
};

/*
 * The history of one run (timeline.c): when each node is powered on,
 * restarted, which cables are cut and plugged (right or wrong), the
 * slabs added by --grow.  Within a tick events apply in the order of
 * enum sim_ev_kind.
 */
enum sim_ev_kind {
	SIM_EV_CUT,		/* cable (u, lu) - (v, lv) unplugged */
	SIM_EV_PLUG,		/* plugged; @wrong: not the fabric's cable */
	SIM_EV_STOP,		/* the daemon of u stops (restart) */
	SIM_EV_START,		/* u is powered on, or its daemon restarts */
};

struct sim_event {
	uint32_t tick;
	uint8_t kind;
	uint8_t lu, lv;
	uint8_t wrong;
	uint32_t u, v;
};

struct sim_schedule {
	uint32_t *peer0;		/* wiring at tick 0, as world.peer */
	struct sim_event *ev;		/* absolute ticks, sorted */
	uint32_t nev;
	struct sim_event *gev;		/* --grow: ticks after the growth */
	uint32_t ngev;
	uint8_t *liar;			/* per node: runs no core, lies */
	uint8_t *grown;			/* per node: in the added slabs */
	uint16_t dims0[TC_MAX_AXES];	/* true extents before growth */
	uint32_t last_event;		/* tick of the last absolute event */
	uint32_t initial_done;		/* every node not grown has started */
	uint32_t nliars;
	uint32_t *truth_of;		/* --truth-swap: whose true position
					 * the checks take for a node */
};

/* world.c */
uint64_t sim_splitmix(uint64_t *s);
uint64_t sim_stream(uint64_t seed, unsigned int k);
double sim_unif(uint64_t *s);
uint32_t sim_below(uint64_t *s, uint32_t n);
void sim_random_rot(struct sim_rot *r, unsigned int nd, uint64_t *s);
int sim_world_build(struct sim_world *w, const struct sim_opts *o,
		    uint64_t seed);
void sim_world_free(struct sim_world *w);
void sim_coords(const struct sim_world *w, uint32_t u, unsigned int *c);
uint32_t sim_block_of(const struct sim_world *w, uint32_t u);
size_t sim_world_bytes(const struct sim_world *w);
void sim_node_config(const struct sim_world *w, uint32_t u,
		     struct tc_config *cfg);
unsigned int sim_diameter(const struct sim_opts *o, const uint16_t *dims);

/* random streams of a seed, one per purpose (world.c, timeline.c) */
enum sim_stream_id {
	SIM_STREAM_IDS = 1, SIM_STREAM_ROT, SIM_STREAM_NODE, SIM_STREAM_CABLE,
	SIM_STREAM_START, SIM_STREAM_FAULT, SIM_STREAM_NET, SIM_STREAM_LIAR,
};

/* timeline.c */
int sim_schedule_build(struct sim_schedule *s, const struct sim_world *w,
		       unsigned int quiet);
void sim_schedule_free(struct sim_schedule *s);
bool sim_in_slab(const struct sim_world *w, uint32_t u, unsigned int slab);

/* engine.c */
int sim_run(const struct sim_world *w, const struct sim_schedule *s,
	    struct sim_result *res);

/* liar.c: a node that runs no core and sends random or lying records */
struct sim_liar {
	uint64_t id;
	uint64_t rng;
	uint64_t heard[TC_MAX_PORTS];	/* leader each neighbour claims */
};
void sim_liar_init(struct sim_liar *l, uint64_t id, uint64_t seed);
void sim_liar_receive(struct sim_liar *l, uint8_t ndims, uint8_t port,
		      const uint8_t *msg, size_t len);
/* one tick: send on every port of @up through @out */
void sim_liar_tick(struct sim_liar *l, const struct sim_opts *o,
		   uint16_t up, const struct tc_output *out);

/* linkstate.c: link-state convergence against the truth */
#define SIM_LS_BUDGET	10e9	/* bytes of link-state databases, all nodes */
/* ... measured by default up to this many (--ls: up to SIM_LS_BUDGET) */
#define SIM_LS_FIT	2e9
struct sim_ls_net {			/* what it reads of the engine */
	const struct sim_world *w;
	const uint32_t *peer;		/* wiring now */
	const uint8_t *wrongp;
	struct tc_node *(*node)(void *ctx, uint32_t u);	/* NULL: no core */
	void *ctx;
};

struct sim_ls_truth {
	uint64_t leader;		/* the main frame's */
	struct tc_view frame;		/* one of its nodes' view */
	uint32_t placed;		/* running nodes placed in it */
	uint32_t reporters;		/* records with a cable down */
	uint64_t digest;		/* as tc_ls_info.digest */
	/* a record nobody can withdraw (the last one of a node powered
	 * off): kept to its maximum age in every database */
	uint32_t stale_idx;
	uint16_t stale_mask;		/* 0: none */
};

enum sim_ls_act_kind {
	SIM_LS_ACT_NONE, SIM_LS_ACT_KILL, SIM_LS_ACT_REVIVE, SIM_LS_ACT_CUT,
	SIM_LS_ACT_PLUG,
};

struct sim_ls_action {
	uint8_t kind;
	uint8_t lu, lv;
	uint32_t u, v;
};

struct sim_ls_state {
	bool events, started, measuring;
	unsigned int phase;
	uint32_t t0;
	uint32_t victim;
	/* the victim's own record when it died: every database keeps it
	 * to its maximum age (nobody can withdraw it), so the truth does */
	uint32_t victim_idx;
	uint16_t victim_mask;
	struct sim_ls_action cable;
	uint64_t rng;
	uint64_t *base;			/* per node: LS bytes at phase start */
	struct sim_ls_result res;
};

int sim_ls_truth(const struct sim_ls_net *net, struct sim_ls_truth *t);
uint32_t sim_ls_disagree(const struct sim_ls_net *net,
			 const struct sim_ls_truth *t);
uint32_t sim_ls_exact(const struct sim_ls_net *net,
		      const struct sim_ls_truth *t, uint32_t samples,
		      uint64_t *rng);
int sim_ls_init(struct sim_ls_state *st, const struct sim_world *w,
		bool events, uint64_t seed);
void sim_ls_free(struct sim_ls_state *st);
bool sim_ls_done(const struct sim_ls_state *st);
/*
 * Once per round after the ticks; @ready: discovery is final on every
 * running node and no scheduled event is pending.  @act: what the
 * engine does next (kill, revive, cut, plug), to start the next phase.
 */
void sim_ls_round(struct sim_ls_state *st, const struct sim_ls_net *net,
		  uint32_t t, bool ready, uint32_t phase_cap,
		  struct sim_ls_action *act);
const char *sim_ls_phase_name(unsigned int phase);

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

/* routes.c: torus-sim --routes (fault-tolerant route computation) */
bool sim_routes_requested(int argc, char **argv);
int sim_routes_main(int argc, char **argv);

/* a node's view at the end of a run, for the picture */
struct sim_final_node {
	uint8_t running;		/* its daemon ran the core */
	uint8_t state;			/* TC_PLACED, ... */
	char reason[TC_REASON_LEN];
};

/* svg.c: torus-sim --svg, drawn by lib/topology.c */
int sim_write_svg(const struct sim_world *w, const struct sim_result *r,
		  const char *file);

#endif /* TORUS_SIM_H */
