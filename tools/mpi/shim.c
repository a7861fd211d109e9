// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * torus_mpi - the fabric's collectives for unmodified MPI programs.
 *
 * Loaded with LD_PRELOAD, it defines MPI_Init, MPI_Init_thread,
 * MPI_Finalize and the collectives of coll.c, and calls the MPI library
 * through its PMPI_ names.  At init every rank opens its node device
 * (TORUS_MPI_DEV, default tor0, in the rank's own network namespace) and
 * one PMPI_Allgather gives every rank the fabric rank of each rank of
 * MPI_COMM_WORLD.  A communicator is mapped on its first collective,
 * once, and the mapping kept as an attribute whose delete callback
 * closes it: a line, plane or sub-torus of the fabric becomes an axis
 * group, the whole fabric the default group, any other set of nodes a
 * node list under a number its members agree on.  A communicator with
 * two ranks on one node, or one the fabric cannot serve, falls back to
 * the MPI library for good.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "torus_mpi.h"

struct tm_state tm = { .keyval = MPI_KEYVAL_INVALID };

/* communicator setup may run on several threads (MPI_THREAD_MULTIPLE) */
static pthread_mutex_t tm_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *const tm_kind_name[TM_NKINDS] = {
	[TM_BARRIER] = "barrier", [TM_BCAST] = "bcast",
	[TM_REDUCE] = "reduce", [TM_ALLREDUCE] = "allreduce",
};

const char *tm_kind_str(enum tm_kind kind)
{
	return tm_kind_name[kind];
}

void tm_log(int level, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	if (tm.log < level)
		return;
	/* one write: ranks share the launcher's stderr */
	n = snprintf(line, sizeof(line), "torus-mpi: rank %d: ", tm.world_rank);
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	va_end(ap);
	strcat(line, "\n");
	fputs(line, stderr);
}

static long tm_env(const char *name, long dflt, long min, long max)
{
	const char *s = getenv(name);
	char *end;
	long v;

	if (!s || !*s)
		return dflt;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max) {
		fprintf(stderr, "torus-mpi: %s=%s: not a number from %ld to %ld, using %ld\n",
			name, s, min, max, dflt);
		return dflt;
	}
	return v;
}

/* a call served on the fabric: counted, and at TORUS_MPI_LOG=3 shown */
void tm_count(enum tm_kind kind, size_t bytes, bool nonblocking)
{
	__atomic_fetch_add(&tm.fabric[kind], 1, __ATOMIC_RELAXED);
	tm_log(3, "%s%s of %zu bytes on the fabric",
	       nonblocking ? "nonblocking " : "", tm_kind_name[kind], bytes);
}

/**
 * tm_fall_back - a call the fabric does not serve
 *
 * Return: 0 to go on with the MPI library, or an MPI error (strict mode,
 * after the communicator's error handler).
 */
int tm_fall_back(MPI_Comm comm, enum tm_kind kind, const char *why)
{
	__atomic_fetch_add(&tm.fallback[kind], 1, __ATOMIC_RELAXED);
	if (tm.enable != TM_STRICT) {
		tm_log(2, "%s falls back: %s", tm_kind_name[kind], why);
		return 0;
	}
	fprintf(stderr, "torus-mpi: rank %d: %s not on the fabric (TORUS_MPI_ENABLE=2): %s\n",
		tm.world_rank, tm_kind_name[kind], why);
	PMPI_Comm_call_errhandler(comm, MPI_ERR_UNSUPPORTED_OPERATION);
	return MPI_ERR_UNSUPPORTED_OPERATION;
}

/* The fabric failed a call that every rank started: no fallback now. */
int tm_failed(MPI_Comm comm, struct tm_comm *c, enum tm_kind kind)
{
	int err = errno;

	fprintf(stderr, "torus-mpi: rank %d: %s on the fabric failed: %s%s%s\n",
		tm.world_rank, tm_kind_name[kind], strerror(err),
		c->ctx && *torus_errmsg(c->ctx) ? ": " : "",
		c->ctx ? torus_errmsg(c->ctx) : "");
	PMPI_Comm_call_errhandler(comm, MPI_ERR_OTHER);
	return MPI_ERR_OTHER;
}

/*
 * One libtorus context per axis group (0: the whole fabric), shared by
 * every communicator that maps to it.  The module matches a group's
 * operations by the order the nodes join them, and libtorus sends a
 * context's segments strictly in start order; two contexts on one group
 * could each hold back segments of a long nonblocking call (its window)
 * and join in different orders on different nodes.  A node list is a
 * group of its own, with a context of its own.
 */
struct tm_group_ctx {
	struct torus_ctx *ctx;
	int refs;
};

static struct tm_group_ctx tm_group_ctx[1u << TORUS_MAX_AXES];
static pthread_mutex_t tm_group_lock = PTHREAD_MUTEX_INITIALIZER;

/* the group's context, opened on first use and held; NULL on failure */
static struct torus_ctx *tm_group_get(uint32_t axes)
{
	struct tm_group_ctx *g = &tm_group_ctx[axes];
	struct torus_ctx *ctx;

	pthread_mutex_lock(&tm_group_lock);
	if (!g->ctx) {
		g->ctx = torus_open(tm.dev);
		if (g->ctx) {
			torus_set_timeout(g->ctx, tm.timeout_ms);
			if (axes && torus_set_group(g->ctx, axes)) {
				torus_close(g->ctx);
				g->ctx = NULL;
			}
		}
	}
	if (g->ctx)
		g->refs++;
	ctx = g->ctx;
	pthread_mutex_unlock(&tm_group_lock);
	return ctx;
}

static void tm_group_put(uint32_t axes)
{
	struct tm_group_ctx *g = &tm_group_ctx[axes];

	pthread_mutex_lock(&tm_group_lock);
	if (g->ctx && !--g->refs) {
		torus_close(g->ctx);
		g->ctx = NULL;
	}
	pthread_mutex_unlock(&tm_group_lock);
}

/* let go of @c's context: an axis group's shared one, or a list's own */
static void tm_comm_close(struct tm_comm *c)
{
	if (c->ctx && c->axes >= 0)
		tm_group_put((uint32_t)c->axes);
	else if (c->ctx)
		torus_close(c->ctx);
	c->ctx = NULL;
}

static void tm_comm_free(struct tm_comm *c)
{
	if (!c)
		return;
	tm_comm_close(c);
	free(c->frank);
	free(c);
}

/* a nonblocking call still pending holds the state too (nonblock.c) */
void tm_comm_hold(struct tm_comm *c)
{
	__atomic_add_fetch(&c->refs, 1, __ATOMIC_RELAXED);
}

void tm_comm_put(struct tm_comm *c)
{
	if (c && !__atomic_sub_fetch(&c->refs, 1, __ATOMIC_ACQ_REL))
		tm_comm_free(c);
}

static int tm_comm_delete(MPI_Comm comm, int keyval, void *attr, void *extra)
{
	(void)comm;
	(void)keyval;
	(void)extra;
	tm_comm_put(attr);
	return MPI_SUCCESS;
}

static int tm_rank_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* the comm's fabric ranks, or why it cannot have them */
static const char *tm_comm_ranks(MPI_Comm comm, struct tm_comm *c)
{
	MPI_Group group, world;
	int *in, *out, i, inter;
	const char *why = NULL;

	PMPI_Comm_size(comm, &c->size);
	if (!tm.world_frank)
		return tm.world_why;
	if (PMPI_Comm_test_inter(comm, &inter) || inter)
		return "an intercommunicator";
	in = malloc(c->size * sizeof(*in));
	out = malloc(c->size * sizeof(*out));
	c->frank = malloc(c->size * sizeof(*c->frank));
	if (!in || !out || !c->frank) {
		why = "out of memory";
		goto out;
	}
	for (i = 0; i < c->size; i++)
		in[i] = i;
	PMPI_Comm_group(comm, &group);
	PMPI_Comm_group(MPI_COMM_WORLD, &world);
	PMPI_Group_translate_ranks(group, c->size, in, world, out);
	PMPI_Group_free(&group);
	PMPI_Group_free(&world);
	for (i = 0; i < c->size && !why; i++) {
		if (out[i] == MPI_UNDEFINED)
			why = "a rank from outside MPI_COMM_WORLD";
		else
			c->frank[i] = tm.world_frank[out[i]];
	}
out:
	free(in);
	free(out);
	return why;
}

/*
 * The axes along which @sorted (the comm's distinct fabric ranks) is a
 * whole line, plane or sub-torus of the fabric through its first node;
 * -1 if it is not one.
 */
static int tm_axis_group(struct torus_ctx *ctx, const uint32_t *sorted,
			 int n)
{
	uint32_t c0[TORUS_MAX_AXES], ci[TORUS_MAX_AXES], dims[TORUS_MAX_AXES];
	unsigned int nd = torus_dims(ctx, dims), a;
	uint32_t axes = 0;
	long want = 1;
	int i;

	torus_coord_of(ctx, sorted[0], c0);
	for (i = 1; i < n; i++) {
		torus_coord_of(ctx, sorted[i], ci);
		for (a = 0; a < nd; a++)
			if (ci[a] != c0[a])
				axes |= 1u << a;
	}
	for (a = 0; a < nd; a++)
		if (axes & 1u << a)
			want *= dims[a];
	return want == n ? (int)axes : -1;
}

/* what the fabric does for @c: an axis group, the fabric or a node list */
static const char *tm_comm_map(struct tm_comm *c, MPI_Comm comm,
			       char *how, size_t howlen)
{
	uint32_t *sorted = malloc(c->size * sizeof(*sorted));
	int i, axes = -1, agree[2];
	struct torus_ctx *fabric = NULL;
	const char *why = NULL;

	if (!sorted)
		return "out of memory";
	memcpy(sorted, c->frank, c->size * sizeof(*sorted));
	qsort(sorted, c->size, sizeof(*sorted), tm_rank_cmp);
	for (i = 1; i < c->size && !why; i++)
		if (sorted[i] == sorted[i - 1])
			why = "more than one rank on a node";
	/* the whole fabric's shared context knows the coordinates */
	if (!why) {
		fabric = tm_group_get(0);
		if (!fabric)
			why = "the node device could not be opened";
	}
	if (!why) {
		axes = tm_axis_group(fabric, sorted, c->size);
		if (axes == (1 << torus_ndims(fabric)) - 1)
			axes = 0;
		if (axes < 0 && c->size > TORUS_COLL_LIST_MAX)
			why = "a node list longer than the fabric takes";
	}
	/* every member must agree, and on the list's number */
	agree[0] = !!why;
	agree[1] = tm.next_list_id;
	PMPI_Allreduce(MPI_IN_PLACE, agree, 2, MPI_INT, MPI_MAX, comm);
	if (!why && agree[0])
		why = "another rank cannot use the fabric";
	if (!why && axes < 0 && agree[1] > TORUS_LIST_ID_MAX)
		why = "no node list number left";
	if (!why && axes < 0) {
		/* a node list: a group, and a context, of its own */
		tm.next_list_id = (uint16_t)(agree[1] + 1);
		c->ctx = torus_open(tm.dev);
		if (!c->ctx)
			why = "the node device could not be opened";
		else if (torus_set_timeout(c->ctx, tm.timeout_ms) ||
			 torus_set_members(c->ctx, (uint16_t)agree[1], sorted,
					   c->size))
			why = "the node list was refused";
		snprintf(how, howlen, "node list %d of %d nodes", agree[1],
			 c->size);
	} else if (!why) {
		c->ctx = tm_group_get((uint32_t)axes);
		c->axes = axes;
		if (!c->ctx)
			why = "the node device could not be opened";
		snprintf(how, howlen, axes ? "axis group 0x%x of %d nodes" :
			 "the whole fabric", axes, c->size);
	}
	if (fabric)
		tm_group_put(0);
	free(sorted);
	return why;
}

/* The state of a comm seen for the first time (every member calls it). */
static struct tm_comm *tm_comm_setup(MPI_Comm comm)
{
	struct tm_comm *c = calloc(1, sizeof(*c));
	char how[64] = "";
	int me;

	if (!c)
		return NULL;
	c->refs = 1;	/* the attribute's */
	c->axes = -1;
	c->why = tm_comm_ranks(comm, c);
	if (!c->why && c->size == 1) {
		/* nothing to combine: served without the module */
		c->alone = true;
		snprintf(how, sizeof(how), "a single rank");
	} else if (!c->why) {
		c->why = tm_comm_map(c, comm, how, sizeof(how));
	}
	if (c->why)
		tm_comm_close(c);
	PMPI_Comm_rank(comm, &me);
	if (!me) {
		if (c->why)
			tm_log(1, "communicator of %d ranks: MPI library (%s)",
			       c->size, c->why);
		else
			tm_log(1, "communicator of %d ranks: fabric, %s",
			       c->size, how);
	}
	if (PMPI_Comm_set_attr(comm, tm.keyval, c)) {
		tm_comm_free(c);
		return NULL;
	}
	return c;
}

/**
 * tm_comm_get - the fabric's state for @comm, set up on first use
 *
 * Every rank of @comm calls it at the same collective.
 *
 * Return: the state, or NULL when the shim is off (the MPI library
 * does everything).
 */
struct tm_comm *tm_comm_get(MPI_Comm comm)
{
	struct tm_comm *c;
	int found;

	if (!tm.up || comm == MPI_COMM_NULL)
		return NULL;
	if (PMPI_Comm_get_attr(comm, tm.keyval, &c, &found))
		return NULL;
	if (found)
		return c;
	pthread_mutex_lock(&tm_lock);
	c = tm_comm_setup(comm);
	pthread_mutex_unlock(&tm_lock);
	return c;
}

/**
 * tm_comm_peek - the fabric's state for @comm if it is set up already
 * @unset: set when it is not (setting it up takes a blocking collective,
 *	which a nonblocking call must not make)
 *
 * Return: the state, or NULL (the shim is off, or @unset).
 */
struct tm_comm *tm_comm_peek(MPI_Comm comm, bool *unset)
{
	struct tm_comm *c;
	int found = 0;

	*unset = false;
	if (!tm.up || comm == MPI_COMM_NULL ||
	    PMPI_Comm_get_attr(comm, tm.keyval, &c, &found))
		return NULL;
	*unset = !found;
	return found ? c : NULL;
}

static void tm_comm_forget(MPI_Comm comm)
{
	struct tm_comm *c;
	int found = 0;

	PMPI_Comm_get_attr(comm, tm.keyval, &c, &found);
	if (found)
		PMPI_Comm_delete_attr(comm, tm.keyval);
}

/* After PMPI_Init: the fabric rank of every rank of MPI_COMM_WORLD. */
void tm_init_hook(void)
{
	struct torus_ctx *ctx;
	uint32_t mine = UINT32_MAX;
	int n, i, fabric;

	if (tm.up)	/* MPICH's Fortran MPI_Init calls the C one */
		return;
	tm.enable = (enum tm_enable)tm_env("TORUS_MPI_ENABLE", TM_ON, TM_OFF,
					   TM_STRICT);
	tm.log = (int)tm_env("TORUS_MPI_LOG", 0, 0, 3);
	tm.stats = tm_env("TORUS_MPI_STATS", 0, 0, 1);
	tm.timeout_ms = (uint32_t)tm_env("TORUS_MPI_TIMEOUT_MS",
					 TORUS_COLL_TIMEOUT_MS_MAX, 1,
					 TORUS_COLL_TIMEOUT_MS_MAX);
	tm.dev = getenv("TORUS_MPI_DEV");
	if (!tm.dev || !*tm.dev)
		tm.dev = "tor0";
	PMPI_Comm_rank(MPI_COMM_WORLD, &tm.world_rank);
	if (tm.enable == TM_OFF)
		return;
	if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, tm_comm_delete,
				    &tm.keyval, NULL))
		return;
	PMPI_Comm_size(MPI_COMM_WORLD, &n);
	/* held until MPI_COMM_WORLD holds it too */
	ctx = tm_group_get(0);
	if (ctx)
		mine = torus_rank(ctx);
	else
		tm_log(1, "%s: %s", tm.dev, strerror(errno));
	tm.world_frank = malloc(n * sizeof(*tm.world_frank));
	if (!tm.world_frank) {
		fprintf(stderr, "torus-mpi: out of memory\n");
		PMPI_Abort(MPI_COMM_WORLD, 1);
	}
	/* one allgather for every rank, so every rank decides alike */
	PMPI_Allgather(&mine, 1, MPI_UINT32_T, tm.world_frank, 1, MPI_UINT32_T,
		       MPI_COMM_WORLD);
	for (i = 0; i < n; i++)
		if (tm.world_frank[i] == UINT32_MAX)
			break;
	fabric = i == n;
	if (!fabric) {
		free(tm.world_frank);
		tm.world_frank = NULL;
		tm.world_why = "a rank has no placed node device";
		if (!tm.world_rank)
			tm_log(1, "no fabric for this job: %s", tm.world_why);
	}
	tm.up = true;
	/* set up now, so that a first nonblocking call can use the fabric */
	if (fabric)
		tm_comm_get(MPI_COMM_WORLD);
	if (ctx)
		tm_group_put(0);
}

static void tm_print_stats(void)
{
	char line[256];
	size_t len = 0;
	int k;

	for (k = 0; k < TM_NKINDS; k++)
		len += snprintf(line + len, sizeof(line) - len,
				" %s %lu/%lu", tm_kind_name[k], tm.fabric[k],
				tm.fallback[k]);
	fprintf(stderr, "torus-mpi: rank %d: fabric/fallback:%s\n",
		tm.world_rank, line);
}

/* Before PMPI_Finalize: counters, and the world's state closed. */
void tm_finalize_hook(void)
{
	if (!tm.up)
		return;
	if (tm.stats)
		tm_print_stats();
	/* the delete callbacks close what is left */
	tm_comm_forget(MPI_COMM_WORLD);
	tm_comm_forget(MPI_COMM_SELF);
	PMPI_Comm_free_keyval(&tm.keyval);
	free(tm.world_frank);
	tm.world_frank = NULL;
	tm.up = false;
}

int MPI_Init(int *argc, char ***argv)
{
	int err = PMPI_Init(argc, argv);

	if (err == MPI_SUCCESS)
		tm_init_hook();
	return err;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	int err = PMPI_Init_thread(argc, argv, required, provided);

	if (err == MPI_SUCCESS)
		tm_init_hook();
	return err;
}

int MPI_Finalize(void)
{
	tm_finalize_hook();
	return PMPI_Finalize();
}
