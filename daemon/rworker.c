// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rworker.c - route computations in a worker thread (rworker.h)
 *
 * The worker calls only the core's pure functions on its job: they
 * keep no static or global state (daemon/core/troute*.c), so they run
 * beside the loop without a lock.  The verdict the loop keeps per
 * geometry (routes.c, deadlock_check()) stays on the loop's side: a job
 * computes it only when asked, and the loop stores it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "rworker.h"

static double clock_ms(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

struct td_rjob *td_rjob_new(unsigned int nnodes)
{
	struct td_rjob *j = calloc(1, sizeof(*j));
	uint8_t *dead = calloc(nnodes ? nnodes : 1, 1);
	uint16_t *cut = calloc(nnodes ? nnodes : 1, sizeof(*cut));

	if (!j || !dead || !cut) {
		free(j);
		free(dead);
		free(cut);
		return NULL;
	}
	j->f.dead = dead;
	j->f.cut = cut;
	return j;
}

void td_rjob_free(struct td_rjob *j)
{
	if (!j)
		return;
	if (j->set) {
		troute_node_free(j->set);
		free(j->set);
	}
	free((void *)j->f.dead);
	free((void *)j->f.cut);
	free(j);
}

int td_rjob_run(struct td_rjob *j)
{
	/* torusd's test knob: all plans in class 0, a cyclic graph */
	static const struct troute_cdg_opts one_class;
	double t = clock_ms(CLOCK_MONOTONIC);
	double cpu = clock_ms(CLOCK_THREAD_CPUTIME_ID);
	int err;

	if (j->set) {
		troute_node_free(j->set);
		free(j->set);
	}
	memset(&j->cdg, 0, sizeof(j->cdg));
	j->set = calloc(1, sizeof(*j->set));
	err = j->set ? troute_node_routes(&j->f, j->self, j->set) : -ENOMEM;
	if (!err && j->want_cdg)
		err = troute_cdg_fault_free(&j->f,
					    j->one_class ? &one_class : NULL,
					    &j->cdg);
	j->ms = clock_ms(CLOCK_MONOTONIC) - t;
	j->cpu_ms = clock_ms(CLOCK_THREAD_CPUTIME_ID) - cpu;
	if (err && j->set) {
		troute_node_free(j->set);
		free(j->set);
		j->set = NULL;
	}
	j->err = err;
	return err;
}

static void *worker(void *arg)
{
	struct td_rworker *w = arg;
	struct td_rjob *j, *old;
	uint64_t one = 1;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!w->stop && !w->waiting)
			pthread_cond_wait(&w->cond, &w->lock);
		if (w->stop)
			break;
		j = w->waiting;
		w->waiting = NULL;
		w->running = true;
		pthread_mutex_unlock(&w->lock);

		td_rjob_run(j);

		pthread_mutex_lock(&w->lock);
		w->running = false;
		/* not collected yet: the newer result replaces it */
		old = w->done;
		w->done = j;
		pthread_mutex_unlock(&w->lock);
		td_rjob_free(old);
		/* only a full counter fails (EAGAIN): readable all the same */
		if (write(w->efd, &one, sizeof(one)) < 0) {
		}
		pthread_mutex_lock(&w->lock);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

int td_rworker_start(struct td_rworker *w)
{
	int err;

	memset(w, 0, sizeof(*w));
	w->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (w->efd < 0)
		return -errno;
	err = pthread_mutex_init(&w->lock, NULL);
	if (err)
		goto fail_fd;
	err = pthread_cond_init(&w->cond, NULL);
	if (err)
		goto fail_lock;
	err = pthread_create(&w->thread, NULL, worker, w);
	if (err)
		goto fail_cond;
	w->started = true;
	return 0;

fail_cond:
	pthread_cond_destroy(&w->cond);
fail_lock:
	pthread_mutex_destroy(&w->lock);
fail_fd:
	close(w->efd);
	w->efd = -1;
	return -err;
}

int td_rworker_fd(const struct td_rworker *w)
{
	return w->started ? w->efd : -1;
}

uint64_t td_rworker_submit(struct td_rworker *w, struct td_rjob *j)
{
	struct td_rjob *old;
	uint64_t seq;

	pthread_mutex_lock(&w->lock);
	seq = j->seq = ++w->seq;
	old = w->waiting;
	w->waiting = j;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	td_rjob_free(old);
	return seq;
}

struct td_rjob *td_rworker_collect(struct td_rworker *w)
{
	struct td_rjob *j;
	uint64_t n;

	if (!w->started)
		return NULL;
	/* drained first: a job done after this wakes the loop again */
	if (read(w->efd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		return NULL;
	pthread_mutex_lock(&w->lock);
	j = w->done;
	w->done = NULL;
	pthread_mutex_unlock(&w->lock);
	return j;
}

bool td_rworker_busy(struct td_rworker *w)
{
	bool busy;

	if (!w->started)
		return false;
	pthread_mutex_lock(&w->lock);
	busy = w->waiting || w->running || w->done;
	pthread_mutex_unlock(&w->lock);
	return busy;
}

void td_rworker_stop(struct td_rworker *w)
{
	if (!w->started)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	td_rjob_free(w->waiting);
	td_rjob_free(w->done);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
	close(w->efd);
	memset(w, 0, sizeof(*w));
	w->efd = -1;
}
