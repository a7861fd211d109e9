// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * daemon_rworker.c - unit tests of daemon/rworker.c, torusd's route
 * computations off its event loop: while the worker computes the routes
 * of a 65,536-node fabric (64x32x32, as torus-sim's) an epoll loop with
 * a 50 ms timerfd keeps its period, the result arrives through the
 * eventfd and is the one troute_node_routes() gives on the same
 * snapshot; the same computation run inline in the loop (what torusd
 * did before the worker) is measured as the baseline.  A job submitted
 * while another waits replaces it, and a worker stopped mid-computation
 * is joined with nothing leaked.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "rworker.h"
#include "unit.h"

#define PERIOD_MS	50
#define MAX_GAP_MS	150
#define MIN_COMPUTE_MS	300

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* the neighbour of @n along axis @a, "+" (every ring wraps) */
static unsigned int nbr_plus(const struct troute_faults *f, unsigned int n,
			     unsigned int a)
{
	unsigned int s = 1, b, pos;

	for (b = 0; b < a; b++)
		s *= f->dims[b];
	pos = n / s % f->dims[a];
	return n - pos * s + ((pos + 1) % f->dims[a]) * s;
}

/*
 * A job for an X x Y x Z torus with @ndead dead nodes and @ncut cut
 * cables drawn from @seed, computed for node @self
 */
static struct td_rjob *make_job(unsigned int x, unsigned int y,
				unsigned int z, unsigned int ndead,
				unsigned int ncut, uint64_t seed,
				unsigned int self)
{
	struct td_rjob *j = td_rjob_new(x * y * z);
	uint8_t *dead;
	uint16_t *cut;
	unsigned int n, nn = x * y * z, i, a;

	if (!j)
		return NULL;
	j->f.ndims = 3;
	j->f.dims[0] = x;
	j->f.dims[1] = y;
	j->f.dims[2] = z;
	j->f.wrap = 7;
	j->self = self;
	j->want_cdg = true;
	dead = (uint8_t *)j->f.dead;
	cut = (uint16_t *)j->f.cut;
	rng_state = seed;
	for (i = 0; i < ndead;) {
		n = (unsigned int)(rnd() % nn);
		if (n == self || dead[n])
			continue;
		dead[n] = 1;
		i++;
	}
	for (i = 0; i < ncut; i++) {
		n = (unsigned int)(rnd() % nn);
		a = (unsigned int)(rnd() % 3);
		cut[n] |= (uint16_t)(1u << TORUS_DIR(a, 0));
		cut[nbr_plus(&j->f, n, a)] |= (uint16_t)(1u << TORUS_DIR(a, 1));
	}
	return j;
}

/* the same routes, lambs and plans */
static bool same_routes(const struct troute_node_set *a,
			const struct troute_node_set *b)
{
	unsigned int n, nn = troute_nnodes(&a->f), p;

	if (a->self != b->self || a->ps.nplans != b->ps.nplans ||
	    a->lambs != b->lambs || a->exceptions != b->exceptions ||
	    a->unreachable != b->unreachable || a->dead != b->dead ||
	    a->cuts != b->cuts || nn != troute_nnodes(&b->f) ||
	    memcmp(a->lamb, b->lamb, nn))
		return false;
	for (p = 0; p < a->ps.nplans; p++)
		if (memcmp(a->ps.plans[p].order, b->ps.plans[p].order,
			   sizeof(a->ps.plans[p].order)) ||
		    memcmp(a->ps.plans[p].policy, b->ps.plans[p].policy,
			   sizeof(a->ps.plans[p].policy)))
			return false;
	for (n = 0; n < nn; n++) {
		const struct troute_route *x = &a->table[n], *y = &b->table[n];

		if (x->kind != y->kind || x->plan0 != y->plan0 ||
		    x->plan1 != y->plan1 || x->hops != y->hops ||
		    x->via != y->via)
			return false;
	}
	return true;
}

struct loop {
	int epfd, tfd;
	double last, max_gap;
	unsigned int ticks;
};

static int loop_open(struct loop *l, int efd)
{
	struct itimerspec its = {
		.it_interval = { 0, PERIOD_MS * 1000000L },
		.it_value = { 0, PERIOD_MS * 1000000L },
	};
	struct epoll_event ev = { .events = EPOLLIN };

	memset(l, 0, sizeof(*l));
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	l->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (l->epfd < 0 || l->tfd < 0)
		return -1;
	ev.data.u32 = 1;
	if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, l->tfd, &ev))
		return -1;
	ev.data.u32 = 2;
	if (efd >= 0 && epoll_ctl(l->epfd, EPOLL_CTL_ADD, efd, &ev))
		return -1;
	if (timerfd_settime(l->tfd, 0, &its, NULL))
		return -1;
	l->last = now_ms();
	return 0;
}

static void loop_close(struct loop *l)
{
	close(l->tfd);
	close(l->epfd);
}

/* one wait: 1 a tick (its gap measured), 2 the worker's eventfd */
static int loop_wait(struct loop *l)
{
	struct epoll_event evs[2];
	uint64_t exp;
	double t;
	int n, i, what = 0;

	n = epoll_wait(l->epfd, evs, 2, 5000);
	for (i = 0; i < n; i++) {
		if (evs[i].data.u32 != 1) {
			what |= 2;
			continue;
		}
		if (read(l->tfd, &exp, sizeof(exp)) < 0)
			continue;
		t = now_ms();
		if (t - l->last > l->max_gap)
			l->max_gap = t - l->last;
		l->last = t;
		l->ticks++;
		what |= 1;
	}
	return what;
}

/*
 * The worker computes @j while the loop ticks; the loop's longest tick
 * gap in *gap.  The job back, or NULL.
 */
static struct td_rjob *tick_while_computing(struct td_rjob *j, double *gap)
{
	struct td_rjob *got = NULL;
	struct td_rworker w;
	struct loop l;
	unsigned int after = 0;

	*gap = -1;
	if (td_rworker_start(&w)) {
		td_rjob_free(j);
		return NULL;
	}
	if (loop_open(&l, td_rworker_fd(&w))) {
		td_rworker_stop(&w);
		td_rjob_free(j);
		return NULL;
	}
	while (after < 2 && l.ticks < 400) {
		int what = loop_wait(&l);

		if ((what & 1) && l.ticks == 1)
			td_rworker_submit(&w, j);
		if ((what & 2) && !got)
			got = td_rworker_collect(&w);
		if ((what & 1) && got)
			after++;
	}
	loop_close(&l);
	if (l.ticks < 1)
		td_rjob_free(j);	/* never submitted */
	/* a job still with the worker (no result in 20 s) goes with it */
	td_rworker_stop(&w);
	*gap = l.max_gap;
	return got;
}

/*
 * The loop's period while 64x32x32 is computed: in the worker (asserted)
 * and inline, in the loop, as before the worker (reported).  A host
 * busy enough to starve the loop by itself gets three tries: computed
 * inline, no try could pass (the gap is at least the computation).
 */
UNIT_TEST(rworker_loop_keeps_period)
{
	struct td_rjob *inl = make_job(64, 32, 32, 8, 8, 7, 12345), *got = NULL;
	struct troute_node_set sync;
	struct troute_cdg_result cdg;
	struct loop l;
	double inline_gap, inline_ms, gap = -1;
	int try;

	UNIT_CHECK(inl != NULL);
	if (!inl)
		return;

	/* the baseline: computed in the loop at its first tick */
	UNIT_CHECK(!loop_open(&l, -1));
	while (l.ticks < 4) {
		if ((loop_wait(&l) & 1) && l.ticks == 1)
			UNIT_CHECK(!td_rjob_run(inl));
	}
	loop_close(&l);
	inline_gap = l.max_gap;
	inline_ms = inl->ms;

	/* the worker: the loop ticks on while it computes */
	for (try = 1; try <= 3; try++) {
		td_rjob_free(got);
		got = tick_while_computing(make_job(64, 32, 32, 8, 8, 7,
						   12345), &gap);
		if (!got)
			break;
		fprintf(stderr, "    64x32x32, 8 dead, 8 cut (try %d): computed in %.0f ms (%.0f ms CPU) in the worker, %.0f ms inline; the loop's longest tick gap (period %d ms): %.1f ms with the worker, %.1f ms inline\n",
			try, got->ms, got->cpu_ms, inline_ms, PERIOD_MS, gap,
			inline_gap);
		if (gap < MAX_GAP_MS)
			break;
	}
	UNIT_CHECK(got != NULL);
	if (!got) {
		td_rjob_free(inl);
		return;
	}
	UNIT_CHECK(!got->err && got->set);
	UNIT_CHECK(got->ms > MIN_COMPUTE_MS);
	UNIT_CHECK(gap >= 0 && gap < MAX_GAP_MS);
	/* the baseline shows what the worker spares the loop */
	UNIT_CHECK(inline_gap > inline_ms);

	/* the result is the synchronous one on the same snapshot */
	UNIT_CHECK(!troute_node_routes(&got->f, got->self, &sync));
	UNIT_CHECK(got->set && same_routes(got->set, &sync));
	UNIT_CHECK(inl->set && same_routes(inl->set, &sync));
	UNIT_CHECK(sync.exceptions > 0 && sync.dead == 8);
	troute_node_free(&sync);
	UNIT_CHECK(!troute_cdg_fault_free(&got->f, NULL, &cdg));
	UNIT_CHECK(cdg.acyclic && got->cdg.acyclic &&
		   cdg.channels == got->cdg.channels &&
		   cdg.deps == got->cdg.deps);
	td_rjob_free(got);
	td_rjob_free(inl);
}

static bool worker_running(struct td_rworker *w)
{
	bool r;

	pthread_mutex_lock(&w->lock);
	r = w->running;
	pthread_mutex_unlock(&w->lock);
	return r;
}

static void wait_running(struct td_rworker *w)
{
	int i;

	for (i = 0; i < 5000 && !worker_running(w); i++)
		usleep(1000);
}

/*
 * Jobs submitted while one runs: the newer replaces the one waiting,
 * which never runs; each result comes once
 */
UNIT_TEST(rworker_newer_job_supersedes)
{
	struct td_rjob *a = make_job(32, 32, 16, 4, 4, 1, 0);
	struct td_rjob *b = make_job(4, 4, 4, 1, 1, 2, 0);
	struct td_rjob *c = make_job(4, 4, 4, 1, 1, 3, 5), *got;
	uint64_t sa, sb, sc;
	struct td_rworker w;
	bool seen_a = false, seen_b = false, seen_c = false;
	int i;

	UNIT_CHECK(a && b && c);
	if (!a || !b || !c)
		return;
	UNIT_CHECK(!td_rworker_start(&w));
	UNIT_CHECK(td_rworker_collect(&w) == NULL && !td_rworker_busy(&w));
	sa = td_rworker_submit(&w, a);
	wait_running(&w);
	UNIT_CHECK(worker_running(&w));
	sb = td_rworker_submit(&w, b);
	sc = td_rworker_submit(&w, c);
	UNIT_CHECK(sa < sb && sb < sc);
	for (i = 0; i < 30000 && !seen_c; i++) {
		got = td_rworker_collect(&w);
		if (!got) {
			usleep(1000);
			continue;
		}
		seen_a |= got->seq == sa;
		seen_b |= got->seq == sb;
		seen_c |= got->seq == sc;
		if (got->seq == sc)
			UNIT_CHECK(!got->err && got->set &&
				   got->set->self == 5);
		td_rjob_free(got);
	}
	UNIT_CHECK(seen_c && !seen_b);
	(void)seen_a;	/* collected, or replaced by c's before it was */
	UNIT_CHECK(!td_rworker_busy(&w));
	td_rworker_stop(&w);
	td_rworker_stop(&w);	/* harmless twice */
}

/* stopped during a computation: joined, its job freed (ASan: no leak) */
UNIT_TEST(rworker_stop_while_computing)
{
	struct td_rjob *a = make_job(32, 32, 16, 4, 4, 1, 0);
	struct td_rjob *b = make_job(4, 4, 4, 1, 1, 2, 0);
	struct td_rworker w;

	UNIT_CHECK(a && b);
	if (!a || !b)
		return;
	UNIT_CHECK(!td_rworker_start(&w));
	td_rworker_submit(&w, a);
	wait_running(&w);
	td_rworker_submit(&w, b);
	td_rworker_stop(&w);
	UNIT_CHECK(td_rworker_fd(&w) == -1 && !td_rworker_busy(&w));
	UNIT_CHECK(td_rworker_collect(&w) == NULL);
	/* and started again, as at a reload */
	UNIT_CHECK(!td_rworker_start(&w));
	td_rworker_stop(&w);
}

/* a job that cannot be computed says why */
UNIT_TEST(rworker_job_error)
{
	struct td_rjob *j = make_job(4, 4, 4, 0, 0, 1, 0);

	UNIT_CHECK(j);
	if (!j)
		return;
	j->self = 64;
	UNIT_CHECK(td_rjob_run(j) == -EINVAL && j->err == -EINVAL &&
		   !j->set);
	td_rjob_free(j);
}

static const struct unit_case cases[] = {
	UNIT_CASE(rworker_loop_keeps_period),
	UNIT_CASE(rworker_newer_job_supersedes),
	UNIT_CASE(rworker_stop_while_computing),
	UNIT_CASE(rworker_job_error),
};

UNIT_MAIN(cases)
