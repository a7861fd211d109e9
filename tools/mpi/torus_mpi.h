/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * torus_mpi - the fabric's collectives for unmodified MPI programs, by
 * PMPI interposition (see torus-mpi(7)).  Internal interfaces.
 */
#ifndef _TORUS_MPI_H
#define _TORUS_MPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include "libtorus.h"

/* TORUS_MPI_ENABLE */
enum tm_enable {
	TM_OFF,		/* every call goes to the MPI library */
	TM_ON,		/* the fabric where it can, silent fallback */
	TM_STRICT,	/* the fabric, or an error where it would fall back */
};

/* the intercepted collectives, for the counters */
enum tm_kind {
	TM_BARRIER,
	TM_BCAST,
	TM_REDUCE,
	TM_ALLREDUCE,
	TM_NKINDS,
};

/* What the fabric does for one communicator (an attribute on it). */
struct tm_comm {
	const char *why;	/* non-NULL: every call falls back, and why */
	struct torus_ctx *ctx;	/* the module's, unless alone or falling back */
	int axes;		/* the axis group whose shared context @ctx
				 * is (shim.c); -1: a node list's own */
	uint32_t *frank;	/* fabric rank of each rank of the comm */
	int size;
	bool alone;		/* a single rank: nothing to combine */
	int refs;		/* the attribute, and each pending
				 * nonblocking call (MPI_Comm_free may come
				 * before their end) */
};

/*
 * A reduction the fabric can run: the element type, the op, and for a
 * value-index pair type the layout of one pair.
 */
struct tm_red {
	int type;		/* TORUS_INT8 ... TORUS_DOUBLE */
	int op;			/* TORUS_SUM ... (MINLOC: the value's MIN) */
	size_t size;		/* bytes of one value */
	bool pair;		/* MINLOC/MAXLOC on a value-index pair */
	size_t extent;		/* bytes of one element of the buffer */
	size_t idx_off;		/* pair: offset of the int index */
};

struct tm_state {
	enum tm_enable enable;
	int log;		/* TORUS_MPI_LOG 0..3 */
	bool stats;		/* TORUS_MPI_STATS: counters at finalize */
	const char *dev;	/* TORUS_MPI_DEV, default tor0 */
	uint32_t timeout_ms;	/* TORUS_MPI_TIMEOUT_MS */
	bool up;		/* initialised by the shim */
	int keyval;
	int world_rank;
	uint32_t *world_frank;	/* NULL: no fabric for this job */
	const char *world_why;
	uint16_t next_list_id;
	unsigned long fabric[TM_NKINDS];
	unsigned long fallback[TM_NKINDS];
};

extern struct tm_state tm;

/* shim.c */
void tm_init_hook(void);
void tm_finalize_hook(void);
struct tm_comm *tm_comm_get(MPI_Comm comm);
struct tm_comm *tm_comm_peek(MPI_Comm comm, bool *unset);
void tm_comm_hold(struct tm_comm *c);
void tm_comm_put(struct tm_comm *c);
int tm_fall_back(MPI_Comm comm, enum tm_kind kind, const char *why);
int tm_failed(MPI_Comm comm, struct tm_comm *c, enum tm_kind kind);
void tm_count(enum tm_kind kind, size_t bytes, bool nonblocking);
const char *tm_kind_str(enum tm_kind kind);
void tm_log(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* types.c */
const char *tm_reduction(MPI_Datatype dt, MPI_Op op, struct tm_red *red);
const char *tm_plain(MPI_Datatype dt, size_t *size);

/* coll.c: the fabric's part of each call, 0 or an errno */
int tm_start(struct torus_ctx *ctx, enum tm_kind kind, char *buf, size_t n,
	     size_t size, int type, int op, uint32_t root,
	     struct torus_req ***reqs, size_t *nreqs);
int tm_reduce_run(struct tm_comm *c, const struct tm_red *red, void *buf,
		  size_t count, int root);
int tm_bytes_type(size_t bytes, size_t *size);
int tm_reduce_buffer(MPI_Comm comm, struct tm_comm *c, const void *sendbuf,
		     void *recvbuf, size_t bytes, int root, void **work,
		     void **copy);

#endif /* _TORUS_MPI_H */
