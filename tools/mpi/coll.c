// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * MPI_Barrier, MPI_Bcast, MPI_Reduce and MPI_Allreduce on the fabric.
 *
 * Each call first decides from its own arguments whether the fabric can
 * serve it (every rank passes the same type, op, count and root, so
 * every rank decides alike), then asks the communicator's state, set up
 * on its first collective.  Vectors longer than one libtorus call are
 * cut into calls of at most TORUS_MAX_BYTES, all started before the
 * first is waited for so that libtorus pipelines them; each element is
 * still reduced whole, so floating sums stay exact and rounded once.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "torus_mpi.h"

/**
 * tm_start - start @n elements of @size bytes as libtorus calls
 * @reqs, @nreqs: the started calls (allocated), each at most
 *	TORUS_MAX_BYTES, all started before any is waited for so that
 *	libtorus pipelines them
 *
 * Return: 0, or an errno: then the calls started are in @reqs and must
 * still be waited for.
 */
int tm_start(struct torus_ctx *ctx, enum tm_kind kind, char *buf, size_t n,
	     size_t size, int type, int op, uint32_t root,
	     struct torus_req ***reqs, size_t *nreqs)
{
	size_t per = size ? TORUS_MAX_BYTES / size : 1;
	size_t ncalls = kind == TM_BARRIER ? 1 : (n + per - 1) / per;
	struct torus_req **req = calloc(ncalls ? ncalls : 1, sizeof(*req));
	int err = 0;
	size_t i;

	*reqs = req;
	*nreqs = 0;
	if (!req)
		return ENOMEM;
	for (i = 0; i < ncalls && !err; i++) {
		size_t k = n - i * per < per ? n - i * per : per;
		char *p = buf + i * per * size;

		if (kind == TM_BARRIER)
			req[i] = torus_barrier_start(ctx);
		else if (kind == TM_ALLREDUCE)
			req[i] = torus_allreduce_start(ctx, p, k, type, op);
		else if (kind == TM_REDUCE)
			req[i] = torus_reduce_start(ctx, p, k, type, op, root);
		else
			req[i] = torus_bcast_start(ctx, p, k, type, root);
		if (!req[i])
			err = errno ? errno : ENOMEM;
		else
			*nreqs = i + 1;
	}
	return err;
}

/* Start @n elements of @size bytes and wait for all of them. */
static int tm_run(struct torus_ctx *ctx, enum tm_kind kind, char *buf,
		  size_t n, size_t size, int type, int op, uint32_t root)
{
	struct torus_req **req;
	size_t i, nreq;
	int err;

	err = tm_start(ctx, kind, buf, n, size, type, op, root, &req, &nreq);
	/* every started call is waited for, even after an error */
	for (i = 0; i < nreq; i++)
		if (torus_wait(req[i]) && !err)
			err = errno ? errno : EIO;
	free(req);
	return err;
}

/*
 * MINLOC/MAXLOC as MPI defines them: the least (greatest) value, and the
 * lowest index among the elements that hold it.  The fabric reduces the
 * values, then the indices of the holders (MIN, others contributing
 * INT_MAX).
 */
static int tm_loc_run(struct tm_comm *c, const struct tm_red *red, char *buf,
		      size_t count)
{
	char *val = malloc(count * red->size);
	int32_t *idx = malloc(count * sizeof(*idx));
	size_t k;
	int err;

	if (!val || !idx) {
		err = ENOMEM;
		goto out;
	}
	for (k = 0; k < count; k++)
		memcpy(val + k * red->size, buf + k * red->extent, red->size);
	err = tm_run(c->ctx, TM_ALLREDUCE, val, count, red->size, red->type,
		     red->op, 0);
	if (err)
		goto out;
	for (k = 0; k < count; k++) {
		const char *mine = buf + k * red->extent;
		bool holds;

		if (red->type == TORUS_FLOAT)
			holds = *(const float *)mine == *(float *)(val + k * 4);
		else if (red->type == TORUS_DOUBLE)
			holds = *(const double *)mine == *(double *)(val + k * 8);
		else
			holds = !memcmp(mine, val + k * red->size, red->size);
		if (holds)
			memcpy(&idx[k], mine + red->idx_off, sizeof(idx[k]));
		else
			idx[k] = INT32_MAX;
	}
	err = tm_run(c->ctx, TM_ALLREDUCE, (char *)idx, count, sizeof(*idx),
		     TORUS_INT32, TORUS_MIN, 0);
	if (err)
		goto out;
	for (k = 0; k < count; k++) {
		memcpy(buf + k * red->extent, val + k * red->size, red->size);
		memcpy(buf + k * red->extent + red->idx_off, &idx[k],
		       sizeof(idx[k]));
	}
out:
	free(val);
	free(idx);
	return err;
}

/**
 * tm_reduce_run - reduce @count elements of @buf in place on the fabric
 * @root: the comm rank that gets the result, or -1 for all of them
 *
 * Return: 0 or an errno.
 */
int tm_reduce_run(struct tm_comm *c, const struct tm_red *red, void *buf,
		  size_t count, int root)
{
	if (red->pair)
		return tm_loc_run(c, red, buf, count);
	if (root < 0)
		return tm_run(c->ctx, TM_ALLREDUCE, buf, count, red->size,
			      red->type, red->op, 0);
	return tm_run(c->ctx, TM_REDUCE, buf, count, red->size, red->type,
		      red->op, c->frank[root]);
}

int MPI_Barrier(MPI_Comm comm)
{
	struct tm_comm *c = tm_comm_get(comm);

	if (!c)
		return PMPI_Barrier(comm);
	if (c->why)
		return tm_fall_back(comm, TM_BARRIER, c->why) ?:
			PMPI_Barrier(comm);
	if (!c->alone && torus_barrier(c->ctx))
		return tm_failed(comm, c, TM_BARRIER);
	tm_count(TM_BARRIER, 0, false);
	return MPI_SUCCESS;
}

/* the widest unsigned element (8, 4, 2, 1 bytes) that divides @bytes */
int tm_bytes_type(size_t bytes, size_t *size)
{
	*size = bytes % 8 == 0 ? 8 : bytes % 4 == 0 ? 4 : bytes % 2 == 0 ? 2 : 1;
	return *size == 8 ? TORUS_UINT64 : *size == 4 ? TORUS_UINT32 :
		*size == 2 ? TORUS_UINT16 : TORUS_UINT8;
}

int MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root,
	      MPI_Comm comm)
{
	const char *why;
	struct tm_comm *c;
	size_t size, bytes;
	int type, err;

	if (tm.enable == TM_OFF || count < 0)
		return PMPI_Bcast(buf, count, dt, root, comm);
	why = tm_plain(dt, &size);
	c = tm_comm_get(comm);
	if (!c)
		return PMPI_Bcast(buf, count, dt, root, comm);
	if (!why)
		why = c->why;
	if (!why && (root < 0 || root >= c->size))
		why = "a root outside the communicator";
	if (why)
		return tm_fall_back(comm, TM_BCAST, why) ?:
			PMPI_Bcast(buf, count, dt, root, comm);
	bytes = (size_t)count * size;
	if (bytes && !c->alone) {
		type = tm_bytes_type(bytes, &size);
		err = tm_run(c->ctx, TM_BCAST, buf, bytes / size, size, type, 0,
			     c->frank[root]);
		if (err) {
			errno = err;
			return tm_failed(comm, c, TM_BCAST);
		}
	}
	tm_count(TM_BCAST, bytes, false);
	return MPI_SUCCESS;
}

/* the call's reduction, or why it falls back */
static const char *tm_reduce_check(MPI_Datatype dt, MPI_Op op, int count,
				   struct tm_red *red, struct tm_comm **c,
				   MPI_Comm comm)
{
	const char *why = count < 0 ? "a negative count" :
		tm_reduction(dt, op, red);

	*c = tm_comm_get(comm);
	if (!why && *c)
		why = (*c)->why;
	return why;
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
		  MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
	struct tm_comm *c;
	struct tm_red red;
	const char *why;
	int err;

	if (tm.enable == TM_OFF)
		return PMPI_Allreduce(sendbuf, recvbuf, count, dt, op, comm);
	why = tm_reduce_check(dt, op, count, &red, &c, comm);
	if (!c)
		return PMPI_Allreduce(sendbuf, recvbuf, count, dt, op, comm);
	if (why)
		return tm_fall_back(comm, TM_ALLREDUCE, why) ?:
			PMPI_Allreduce(sendbuf, recvbuf, count, dt, op, comm);
	/* memmove: an aliased buffer is erroneous, but must not corrupt */
	if (count && sendbuf != MPI_IN_PLACE)
		memmove(recvbuf, sendbuf, (size_t)count * red.extent);
	if (count && !c->alone) {
		err = tm_reduce_run(c, &red, recvbuf, (size_t)count, -1);
		if (err) {
			errno = err;
			return tm_failed(comm, c, TM_ALLREDUCE);
		}
	}
	tm_count(TM_ALLREDUCE, (size_t)count * red.extent, false);
	return MPI_SUCCESS;
}

/**
 * tm_reduce_buffer - where a reduce of @bytes works
 * @work: the root's receive buffer (its data moved in unless in place),
 *	or at any other rank a copy of its data, *@copy, which the caller
 *	frees (the module only reads a non-root's data, but a pair
 *	reduction works on it)
 *
 * Return: MPI_SUCCESS, or an error the communicator's handler has seen.
 */
int tm_reduce_buffer(MPI_Comm comm, struct tm_comm *c, const void *sendbuf,
		     void *recvbuf, size_t bytes, int root, void **work,
		     void **copy)
{
	int me;

	*copy = NULL;
	*work = recvbuf;
	PMPI_Comm_rank(comm, &me);
	/* only the root may reduce in place (MPI 5.9.1) */
	if (me != root && sendbuf == MPI_IN_PLACE) {
		PMPI_Comm_call_errhandler(comm, MPI_ERR_BUFFER);
		return MPI_ERR_BUFFER;
	}
	if (me == root) {
		if (bytes && sendbuf != MPI_IN_PLACE)
			memmove(recvbuf, sendbuf, bytes);
		return MPI_SUCCESS;
	}
	if (!bytes)
		return MPI_SUCCESS;
	*copy = malloc(bytes);
	if (!*copy) {
		errno = ENOMEM;
		return tm_failed(comm, c, TM_REDUCE);
	}
	memcpy(*copy, sendbuf, bytes);
	*work = *copy;
	return MPI_SUCCESS;
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count,
	       MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm)
{
	struct tm_comm *c;
	struct tm_red red;
	const char *why;
	void *work, *copy;
	int err = 0;

	if (tm.enable == TM_OFF)
		return PMPI_Reduce(sendbuf, recvbuf, count, dt, op, root, comm);
	why = tm_reduce_check(dt, op, count, &red, &c, comm);
	if (!c)
		return PMPI_Reduce(sendbuf, recvbuf, count, dt, op, root, comm);
	if (!why && (root < 0 || root >= c->size))
		why = "a root outside the communicator";
	if (why)
		return tm_fall_back(comm, TM_REDUCE, why) ?:
			PMPI_Reduce(sendbuf, recvbuf, count, dt, op, root, comm);
	err = tm_reduce_buffer(comm, c, sendbuf, recvbuf,
			       (size_t)count * red.extent, root, &work, &copy);
	if (err)
		return err;
	if (!count) {
		tm_count(TM_REDUCE, 0, false);
		return MPI_SUCCESS;
	}
	if (!c->alone)
		err = tm_reduce_run(c, &red, work, (size_t)count, root);
	free(copy);
	if (err) {
		errno = err;
		return tm_failed(comm, c, TM_REDUCE);
	}
	tm_count(TM_REDUCE, (size_t)count * red.extent, false);
	return MPI_SUCCESS;
}
