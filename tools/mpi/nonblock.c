// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * MPI_Ibarrier, MPI_Ibcast, MPI_Ireduce and MPI_Iallreduce on the fabric.
 *
 * The libtorus calls start in the call itself and then progress in the
 * module whatever the caller does.  The request handed back is an MPI
 * generalized request (MPI_Grequest_start) that the shim completes once
 * the module has answered: the calls that complete requests (MPI_Wait,
 * MPI_Test, their -all, -any and -some forms, MPI_Request_free) look
 * for the shim's among theirs and test them in libtorus, and while one
 * is pending they keep the MPI library's own progress going, so that a
 * transfer another rank must see before it joins the collective is
 * never held up by this one.
 *
 * A communicator the shim has not set up yet falls back: setting it up
 * takes a blocking collective, which a nonblocking call must not make
 * (MPI_COMM_WORLD is set up in MPI_Init).  So do MINLOC and MAXLOC: the
 * second of their two operations needs the first one's result.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "torus_mpi.h"

/* One nonblocking call on the fabric. */
struct tm_nb {
	MPI_Request handle;	/* the generalized request */
	enum tm_kind kind;
	struct tm_comm *comm;	/* held until answered */
	struct torus_req **req;	/* NULL once answered */
	size_t nreq, ndone;
	int err;		/* the first failure, an errno */
	void *work;		/* a reduce's copy at a rank not the root */
	bool answered;		/* MPI_Grequest_complete called */
	struct tm_nb *next;
};

/* the calls not freed yet; the lock also serialises libtorus tests */
static struct tm_nb *tm_nbs;
static pthread_mutex_t tm_nb_lock = PTHREAD_MUTEX_INITIALIZER;

static struct tm_nb *tm_nb_find(MPI_Request handle)
{
	struct tm_nb *nb;

	if (handle == MPI_REQUEST_NULL)
		return NULL;
	for (nb = tm_nbs; nb; nb = nb->next)
		if (nb->handle == handle)
			return nb;
	return NULL;
}

static bool tm_nb_any(void)
{
	return __atomic_load_n(&tm_nbs, __ATOMIC_ACQUIRE) != NULL;
}

/*
 * Test @nb's calls without waiting; once all are answered, complete the
 * generalized request.  Under tm_nb_lock.  Return: whether answered.
 */
static bool tm_nb_poll(struct tm_nb *nb)
{
	size_t i;
	int r;

	if (nb->answered)
		return true;
	for (i = 0; i < nb->nreq; i++) {
		if (!nb->req[i])
			continue;
		r = torus_test(nb->req[i]);
		if (!r)
			continue;
		if (r < 0 && !nb->err)
			nb->err = errno ? errno : EIO;
		nb->req[i] = NULL;	/* freed by libtorus */
		nb->ndone++;
	}
	if (nb->ndone < nb->nreq)
		return false;
	free(nb->work);
	nb->work = NULL;
	if (nb->err)
		fprintf(stderr, "torus-mpi: rank %d: nonblocking %s on the fabric failed: %s%s%s\n",
			tm.world_rank, tm_kind_str(nb->kind),
			strerror(nb->err),
			*torus_errmsg(nb->comm->ctx) ? ": " : "",
			torus_errmsg(nb->comm->ctx));
	nb->answered = true;
	tm_comm_put(nb->comm);
	nb->comm = NULL;
	PMPI_Grequest_complete(nb->handle);
	return true;
}

/* Poll the shim's requests among @reqs; return one still pending. */
static struct tm_nb *tm_nb_poll_all(int n, const MPI_Request *reqs)
{
	struct tm_nb *nb, *pending = NULL;
	int i;

	pthread_mutex_lock(&tm_nb_lock);
	for (i = 0; i < n; i++) {
		nb = tm_nb_find(reqs[i]);
		if (nb && !tm_nb_poll(nb) && !pending)
			pending = nb;
	}
	pthread_mutex_unlock(&tm_nb_lock);
	return pending;
}

/*
 * A short wait while @nb is pending: the MPI library's progress (a
 * probe: its engine runs, nothing is received), then the module's
 * answer or a millisecond.
 */
static void tm_nb_pause(struct tm_nb *nb)
{
	struct pollfd pfd = { .events = POLLIN };
	int flag;

	PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag,
		    MPI_STATUS_IGNORE);
	pthread_mutex_lock(&tm_nb_lock);
	pfd.fd = nb->answered ? -1 : torus_fd(nb->comm->ctx);
	pthread_mutex_unlock(&tm_nb_lock);
	poll(&pfd, 1, 1);
}

/* Until every shim request among @reqs is answered. */
static void tm_nb_wait_all(int n, const MPI_Request *reqs)
{
	struct tm_nb *nb;

	while ((nb = tm_nb_poll_all(n, reqs)))
		tm_nb_pause(nb);
}

static int tm_nb_query(void *extra, MPI_Status *status)
{
	struct tm_nb *nb = extra;

	MPI_Status_set_elements(status, MPI_BYTE, 0);
	MPI_Status_set_cancelled(status, 0);
	status->MPI_SOURCE = MPI_UNDEFINED;
	status->MPI_TAG = MPI_UNDEFINED;
	return nb->err ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static int tm_nb_free(void *extra)
{
	struct tm_nb *nb = extra, **p;

	pthread_mutex_lock(&tm_nb_lock);
	for (p = &tm_nbs; *p; p = &(*p)->next)
		if (*p == nb) {
			__atomic_store_n(p, nb->next, __ATOMIC_RELEASE);
			break;
		}
	pthread_mutex_unlock(&tm_nb_lock);
	free(nb->req);
	free(nb->work);
	free(nb);
	return MPI_SUCCESS;
}

/* a collective cannot be cancelled (MPI 5.12): it completes as usual */
static int tm_nb_cancel(void *extra, int complete)
{
	(void)extra;
	(void)complete;
	return MPI_SUCCESS;
}

/*
 * Start @n elements of @buf on the fabric and hand back the request;
 * @work is freed at the end.  With nothing to combine (@c alone or no
 * data) the request is complete at once.  Return: an MPI error code.
 */
static int tm_nb_start(MPI_Comm comm, struct tm_comm *c, enum tm_kind kind,
		       void *buf, size_t n, size_t size, int type, int op,
		       int root, void *work, MPI_Request *request)
{
	struct tm_nb *nb = calloc(1, sizeof(*nb));
	size_t i;
	int err = 0;

	if (!nb) {
		free(work);
		errno = ENOMEM;
		return tm_failed(comm, c, kind);
	}
	nb->kind = kind;
	nb->comm = c;
	tm_comm_hold(c);
	nb->work = work;
	if (!c->alone && (n || kind == TM_BARRIER)) {
		pthread_mutex_lock(&tm_nb_lock);
		err = tm_start(c->ctx, kind, buf, n, size, type, op,
			       root >= 0 ? c->frank[root] : 0, &nb->req,
			       &nb->nreq);
		pthread_mutex_unlock(&tm_nb_lock);
	}
	if (err) {
		/* every rank started it: the started calls end first */
		for (i = 0; i < nb->nreq; i++)
			torus_wait(nb->req[i]);
		free(nb->req);
		free(nb->work);
		free(nb);
		errno = err;
		err = tm_failed(comm, c, kind);
		tm_comm_put(c);
		return err;
	}
	PMPI_Grequest_start(tm_nb_query, tm_nb_free, tm_nb_cancel, nb,
			    &nb->handle);
	pthread_mutex_lock(&tm_nb_lock);
	nb->next = tm_nbs;
	__atomic_store_n(&tm_nbs, nb, __ATOMIC_RELEASE);
	tm_nb_poll(nb);		/* nothing started: complete now */
	pthread_mutex_unlock(&tm_nb_lock);
	*request = nb->handle;
	tm_count(kind, n * size, true);
	return MPI_SUCCESS;
}

/* the comm's state for a nonblocking call, or why it falls back */
static struct tm_comm *tm_nb_comm(MPI_Comm comm, const char **why)
{
	bool unset;
	struct tm_comm *c = tm_comm_peek(comm, &unset);

	if (unset)
		*why = "a communicator's first collective is nonblocking";
	else if (c && !*why)
		*why = c->why;
	return c;
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
	const char *why = NULL;
	struct tm_comm *c;

	if (tm.enable == TM_OFF)
		return PMPI_Ibarrier(comm, request);
	c = tm_nb_comm(comm, &why);
	if (!c && !why)
		return PMPI_Ibarrier(comm, request);
	if (why)
		return tm_fall_back(comm, TM_BARRIER, why) ?:
			PMPI_Ibarrier(comm, request);
	return tm_nb_start(comm, c, TM_BARRIER, NULL, 0, 0, 0, 0, -1, NULL,
			   request);
}

int MPI_Ibcast(void *buf, int count, MPI_Datatype dt, int root,
	       MPI_Comm comm, MPI_Request *request)
{
	const char *why;
	struct tm_comm *c;
	size_t size, bytes;
	int type;

	if (tm.enable == TM_OFF || count < 0)
		return PMPI_Ibcast(buf, count, dt, root, comm, request);
	why = tm_plain(dt, &size);
	c = tm_nb_comm(comm, &why);
	if (!c && !why)
		return PMPI_Ibcast(buf, count, dt, root, comm, request);
	if (!why && (root < 0 || root >= c->size))
		why = "a root outside the communicator";
	if (why)
		return tm_fall_back(comm, TM_BCAST, why) ?:
			PMPI_Ibcast(buf, count, dt, root, comm, request);
	bytes = (size_t)count * size;
	type = tm_bytes_type(bytes ? bytes : 1, &size);
	return tm_nb_start(comm, c, TM_BCAST, buf, bytes / size, size, type, 0,
			   root, NULL, request);
}

/* the call's reduction, or why it falls back */
static struct tm_comm *tm_nb_reduction(MPI_Datatype dt, MPI_Op op,
				       int count, struct tm_red *red,
				       MPI_Comm comm, const char **why)
{
	*why = count < 0 ? "a negative count" : tm_reduction(dt, op, red);
	if (!*why && red->pair)
		*why = "MINLOC or MAXLOC in a nonblocking call";
	return tm_nb_comm(comm, why);
}

int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count,
		   MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
		   MPI_Request *request)
{
	struct tm_comm *c;
	struct tm_red red;
	const char *why;

	if (tm.enable == TM_OFF)
		return PMPI_Iallreduce(sendbuf, recvbuf, count, dt, op, comm,
				       request);
	c = tm_nb_reduction(dt, op, count, &red, comm, &why);
	if (!c && !why)
		return PMPI_Iallreduce(sendbuf, recvbuf, count, dt, op, comm,
				       request);
	if (why)
		return tm_fall_back(comm, TM_ALLREDUCE, why) ?:
			PMPI_Iallreduce(sendbuf, recvbuf, count, dt, op, comm,
					request);
	/* memmove: an aliased buffer is erroneous, but must not corrupt */
	if (count && sendbuf != MPI_IN_PLACE)
		memmove(recvbuf, sendbuf, (size_t)count * red.extent);
	return tm_nb_start(comm, c, TM_ALLREDUCE, recvbuf, (size_t)count,
			   red.size, red.type, red.op, -1, NULL, request);
}

int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count,
		MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm,
		MPI_Request *request)
{
	struct tm_comm *c;
	struct tm_red red;
	const char *why;
	void *work, *copy;
	int err;

	if (tm.enable == TM_OFF)
		return PMPI_Ireduce(sendbuf, recvbuf, count, dt, op, root,
				    comm, request);
	c = tm_nb_reduction(dt, op, count, &red, comm, &why);
	if (!c && !why)
		return PMPI_Ireduce(sendbuf, recvbuf, count, dt, op, root,
				    comm, request);
	if (!why && (root < 0 || root >= c->size))
		why = "a root outside the communicator";
	if (why)
		return tm_fall_back(comm, TM_REDUCE, why) ?:
			PMPI_Ireduce(sendbuf, recvbuf, count, dt, op, root,
				     comm, request);
	err = tm_reduce_buffer(comm, c, sendbuf, recvbuf,
			       (size_t)count * red.extent, root, &work, &copy);
	if (err)
		return err;
	return tm_nb_start(comm, c, TM_REDUCE, work, (size_t)count, red.size,
			   red.type, red.op, root, copy, request);
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
	if (tm_nb_any())
		tm_nb_wait_all(1, request);
	return PMPI_Wait(request, status);
}

int MPI_Waitall(int count, MPI_Request reqs[], MPI_Status statuses[])
{
	if (tm_nb_any())
		tm_nb_wait_all(count, reqs);
	return PMPI_Waitall(count, reqs, statuses);
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
	if (tm_nb_any())
		tm_nb_poll_all(1, request);
	return PMPI_Test(request, flag, status);
}

int MPI_Testall(int count, MPI_Request reqs[], int *flag,
		MPI_Status statuses[])
{
	if (tm_nb_any())
		tm_nb_poll_all(count, reqs);
	return PMPI_Testall(count, reqs, flag, statuses);
}

int MPI_Testany(int count, MPI_Request reqs[], int *index, int *flag,
		MPI_Status *status)
{
	if (tm_nb_any())
		tm_nb_poll_all(count, reqs);
	return PMPI_Testany(count, reqs, index, flag, status);
}

int MPI_Testsome(int incount, MPI_Request reqs[], int *outcount,
		 int indices[], MPI_Status statuses[])
{
	if (tm_nb_any())
		tm_nb_poll_all(incount, reqs);
	return PMPI_Testsome(incount, reqs, outcount, indices, statuses);
}

/*
 * Waitany and Waitsome: while a shim request among @reqs is pending,
 * test the whole set (which completes nothing of the shim's before it
 * is answered) and pause.
 */
int MPI_Waitany(int count, MPI_Request reqs[], int *index,
		MPI_Status *status)
{
	struct tm_nb *nb;
	int flag, err;

	while (tm_nb_any() && (nb = tm_nb_poll_all(count, reqs))) {
		err = PMPI_Testany(count, reqs, index, &flag, status);
		if (err || flag)
			return err;
		tm_nb_pause(nb);
	}
	return PMPI_Waitany(count, reqs, index, status);
}

int MPI_Waitsome(int incount, MPI_Request reqs[], int *outcount,
		 int indices[], MPI_Status statuses[])
{
	struct tm_nb *nb;
	int err;

	while (tm_nb_any() && (nb = tm_nb_poll_all(incount, reqs))) {
		err = PMPI_Testsome(incount, reqs, outcount, indices,
				    statuses);
		if (err || *outcount)
			return err;
		tm_nb_pause(nb);
	}
	return PMPI_Waitsome(incount, reqs, outcount, indices, statuses);
}

/* a shim request freed while pending is answered first */
int MPI_Request_free(MPI_Request *request)
{
	if (tm_nb_any())
		tm_nb_wait_all(1, request);
	return PMPI_Request_free(request);
}
