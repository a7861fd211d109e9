/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rworker.h - torusd's route computations off its event loop: one
 * worker thread runs the core's pure route computation
 * (troute_node_routes(), and troute_cdg_fault_free() when the loop has
 * no verdict for the geometry yet) on a snapshot the loop hands it, and
 * says it is done through an eventfd the loop polls.  The loop keeps
 * everything else: the kernel, the daemon's state, the logs
 * (routes.c).  Unit-tested in tests/unit/daemon_rworker.c.
 *
 * One job at a time: a job submitted while another waits replaces it
 * (the waiting one is freed, never run); one submitted while another
 * runs waits for it.  The worker touches nothing but its job.
 */
#ifndef TORUSD_RWORKER_H
#define TORUSD_RWORKER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "troute_node.h"

/**
 * struct td_rjob - one route computation: its input and its result
 * @f: the fault set, its arrays the job's own (td_rjob_new())
 * @self: the node's index
 * @want_cdg: also check the fault-free channel graph of @f's geometry
 * @one_class: ... with every plan in class 0 (torusd's test knob)
 * @seq: the loop's number for the job (td_rworker_submit() sets it)
 * @err: 0 or -errno of the computation
 * @set: the node's route set (s->cdg zero), NULL if @err
 * @cdg: with @want_cdg, the fault-free verdict
 * @ms: the computation's wall-clock time
 * @cpu_ms: its CPU time (the computing thread's)
 */
struct td_rjob {
	struct troute_faults	f;
	unsigned int		self;
	bool			want_cdg;
	bool			one_class;
	uint64_t		seq;

	int			err;
	struct troute_node_set	*set;
	struct troute_cdg_result cdg;
	double			ms;
	double			cpu_ms;
};

/* a job for @nnodes nodes with zeroed fault arrays, or NULL (ENOMEM) */
struct td_rjob *td_rjob_new(unsigned int nnodes);
void td_rjob_free(struct td_rjob *j);
/* run @j here and now (what the worker does): j->err */
int td_rjob_run(struct td_rjob *j);

struct td_rworker {
	pthread_t	thread;
	pthread_mutex_t	lock;
	pthread_cond_t	cond;
	bool		started;	/* the thread runs (zeroed: not) */
	int		efd;		/* eventfd: a job is done */
	bool		stop;
	bool		running;	/* the worker holds a job */
	struct td_rjob	*waiting;	/* submitted, not yet taken */
	struct td_rjob	*done;		/* finished, not yet collected */
	uint64_t	seq;		/* the last job submitted */
};

/* start the thread; 0 or -errno (nothing to stop then) */
int td_rworker_start(struct td_rworker *w);
/* the eventfd to poll (readable when a job is done), -1 if stopped */
int td_rworker_fd(const struct td_rworker *w);
/* hand @j over (it is the worker's now); its sequence number */
uint64_t td_rworker_submit(struct td_rworker *w, struct td_rjob *j);
/*
 * The finished job, or NULL: yours to free.  Drains the eventfd; never
 * blocks.
 */
struct td_rjob *td_rworker_collect(struct td_rworker *w);
/* a job is waiting, running or done but not collected */
bool td_rworker_busy(struct td_rworker *w);
/*
 * Stop the thread and join it (a computation under way runs to its end
 * first: the core has no cancellation); the jobs not collected are
 * freed.  Harmless on a stopped worker.
 */
void td_rworker_stop(struct td_rworker *w);

#endif /* TORUSD_RWORKER_H */
