// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * daemon_routes.c - unit tests of daemon/routes.c with its worker thread,
 * without a kernel: the link state's fault set and the kernel's netlink
 * requests are stubs, the route computation and the worker are
 * torusd's own.  routes_service() hands a changed fault set to the
 * worker and returns at once; the result comes through the worker's
 * eventfd and is installed (plans, exceptions, tree, info); a result
 * whose fault set changed while it was computed is thrown away and the
 * new set computed and installed instead; a reload (routes_stop(),
 * routes_start()) throws away a computation under way and makes it
 * again; and nothing is leaked.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "torusd.h"
#include "unit.h"

#define DX	16
#define DY	16
#define DZ	8
#define NN	(DX * DY * DZ)
#define TICK_MS	50

/* ---- the stubs: the link state and the kernel ---- */

static uint8_t g_dead[NN];
static uint16_t g_cut[NN];
static uint32_t g_gen = 1;
static unsigned int g_plan_sets, g_replaces, g_replaced_n, g_trees;

int tc_ls_faults(const struct tc_node *n, uint8_t *dead, uint16_t *cut)
{
	(void)n;
	memcpy(dead, g_dead, sizeof(g_dead));
	memcpy(cut, g_cut, sizeof(g_cut));
	return 0;
}

uint32_t tc_ls_generation(const struct tc_node *n)
{
	(void)n;
	return g_gen;
}

void tc_ls_info(const struct tc_node *n, struct tc_ls_info *li)
{
	(void)n;
	memset(li, 0, sizeof(*li));
	li->generation = g_gen;
}

int td_nl_plan_set(struct td_nl *nl, uint32_t ifindex, unsigned int nplans,
		   const uint8_t (*order)[TC_MAX_AXES],
		   const uint8_t (*policy)[TC_MAX_AXES], unsigned int ndims)
{
	(void)nl, (void)ifindex, (void)nplans, (void)order, (void)policy;
	(void)ndims;
	g_plan_sets++;
	return 0;
}

int td_nl_route_replace(struct td_nl *nl, uint32_t ifindex,
			const struct td_route_exc *exc, unsigned int n)
{
	(void)nl, (void)ifindex, (void)exc;
	g_replaces++;
	g_replaced_n = n;
	return 0;
}

int td_nl_plans_get(struct td_nl *nl, uint32_t ifindex, struct td_plans *p)
{
	(void)nl, (void)ifindex;
	memset(p, 0, sizeof(*p));
	return 0;
}

int td_nl_node_get(struct td_nl *nl, uint32_t ifindex, struct td_knode *kn)
{
	(void)nl, (void)ifindex;
	memset(kn, 0, sizeof(*kn));
	kn->routes_generation = g_replaces;
	return 0;
}

int td_nl_coll_tree_set(struct td_nl *nl, uint32_t ifindex, bool set,
			uint8_t parent, uint32_t children)
{
	(void)nl, (void)ifindex, (void)set, (void)parent, (void)children;
	g_trees++;
	return 0;
}

int td_nl_coll_tree_get(struct td_nl *nl, uint32_t ifindex,
			struct td_ktree *t)
{
	(void)nl, (void)ifindex;
	memset(t, 0, sizeof(*t));
	return 0;
}

void kernel_sync(struct torusd *d)
{
	(void)d;
}

void node_gone(struct torusd *d, int err)
{
	(void)d, (void)err;
}

void notify_status(struct torusd *d)
{
	(void)d;
}

/* ---- the fabric ---- */

static unsigned int idx(unsigned int x, unsigned int y, unsigned int z)
{
	return x + DX * (y + DY * z);
}

static void faults_reset(void)
{
	memset(g_dead, 0, sizeof(g_dead));
	memset(g_cut, 0, sizeof(g_cut));
	g_dead[idx(3, 4, 5)] = 1;
	g_dead[idx(9, 1, 2)] = 1;
	/* the x+ cable of (5,5,5) */
	g_cut[idx(5, 5, 5)] |= 1u << TORUS_DIR(0, 0);
	g_cut[idx(6, 5, 5)] |= 1u << TORUS_DIR(0, 1);
	g_gen++;
}

static struct torusd daemon_state;

static struct torusd *placed(void)
{
	struct torusd *d = &daemon_state;

	memset(d, 0, sizeof(*d));
	d->node = (struct tc_node *)&daemon_state;	/* never read */
	d->have_view = true;
	d->installed = true;
	d->opts.tick_ms = TICK_MS;
	d->view.state = TC_PLACED;
	d->view.ndims = 3;
	d->view.dims[0] = DX;
	d->view.dims[1] = DY;
	d->view.dims[2] = DZ;
	d->view.wrap = 7;
	d->view.coord[0] = 1;
	d->view.coord[1] = 2;
	d->view.coord[2] = 3;
	d->view.generation = 1;
	g_plan_sets = g_replaces = g_replaced_n = g_trees = 0;
	faults_reset();
	return d;
}

/*
 * The loop, as torusd's run(): a tick runs routes_service(), the
 * worker's eventfd routes_collect() then routes_service().  Until
 * @until() or @max ticks; the ticks run.
 */
static unsigned int run_loop(struct torusd *d, bool (*until)(struct torusd *),
			     unsigned int max)
{
	struct itimerspec its = {
		.it_interval = { 0, TICK_MS * 1000000L },
		.it_value = { 0, TICK_MS * 1000000L },
	};
	struct epoll_event ev = { .events = EPOLLIN }, evs[2];
	int ep = epoll_create1(EPOLL_CLOEXEC);
	int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	unsigned int ticks = 0;
	uint64_t exp;
	int n, i;

	ev.data.u32 = 1;
	epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev);
	ev.data.u32 = 2;
	if (routes_worker_fd(d) >= 0)
		epoll_ctl(ep, EPOLL_CTL_ADD, routes_worker_fd(d), &ev);
	timerfd_settime(tfd, 0, &its, NULL);
	while (!until(d) && ticks < max) {
		n = epoll_wait(ep, evs, 2, 5000);
		for (i = 0; i < n; i++) {
			if (evs[i].data.u32 == 1) {
				if (read(tfd, &exp, sizeof(exp)) > 0) {
					d->ticks++;
					ticks++;
				}
			} else {
				routes_collect(d);
			}
		}
		routes_service(d);
	}
	close(tfd);
	close(ep);
	return ticks;
}

static bool installed_once(struct torusd *d)
{
	return d->routes.info.installs >= 1;
}

static bool idle(struct torusd *d)
{
	return !d->routes.computing && !d->routes.result &&
	       !d->routes.hold.pending;
}

static void finish_test(struct torusd *d)
{
	routes_stop(d);
	routes_free(d);
}

/* a fault set is computed in the worker and installed by the loop */
UNIT_TEST(routes_worker_installs)
{
	struct torusd *d = placed();
	struct td_routes *r = &d->routes;

	UNIT_CHECK(!routes_start(d) && routes_worker_fd(d) >= 0);
	routes_service(d);
	/* handed over: routes_service() does not wait for it */
	UNIT_CHECK(r->computing && !r->set && !r->info.computed);
	UNIT_CHECK(routes_next_tick(d) == UINT64_MAX);
	run_loop(d, installed_once, 200);
	UNIT_CHECK(r->set && r->info.installs == 1 && !r->computing);
	UNIT_CHECK(r->info.computed && r->have_cdg && r->cdg.acyclic);
	UNIT_CHECK(r->set && r->set->dead == 2 && r->set->cuts == 1);
	UNIT_CHECK(r->set && r->set->self == idx(1, 2, 3));
	UNIT_CHECK(r->set && g_replaces == 1 &&
		   g_replaced_n == r->set->exceptions);
	UNIT_CHECK(g_plan_sets == 1 && g_trees == 1);
	UNIT_CHECK(r->info.ls_generation == g_gen && r->info.dead == 2);
	UNIT_CHECK(d->state_dirty);
	/* the same fault set again: nothing computed, nothing sent */
	g_gen++;
	run_loop(d, idle, 40);
	UNIT_CHECK(idle(d) && r->info.installs == 1 && g_replaces == 1);
	finish_test(d);
}

static bool three_dead(struct torusd *d)
{
	return d->routes.set && d->routes.set->dead == 3;
}

/*
 * The fault set changes while the worker computes: that result is
 * thrown away, the new set is computed and installed
 */
UNIT_TEST(routes_worker_stale_result_discarded)
{
	struct torusd *d = placed();
	struct td_routes *r = &d->routes;

	UNIT_CHECK(!routes_start(d));
	routes_service(d);
	UNIT_CHECK(r->computing);
	g_dead[idx(7, 7, 7)] = 1;
	g_gen++;
	run_loop(d, three_dead, 200);
	UNIT_CHECK(r->set && r->set->dead == 3);
	/* the first result never reached the kernel */
	UNIT_CHECK(r->info.installs == 1 && g_replaces == 1);
	UNIT_CHECK(r->stale == 0 && r->info.ls_generation == g_gen);
	finish_test(d);
}

/*
 * A reload during a computation: joined, thrown away, made again by the
 * new worker
 */
UNIT_TEST(routes_worker_reload_mid_computation)
{
	struct torusd *d = placed();
	struct td_routes *r = &d->routes;

	UNIT_CHECK(!routes_start(d));
	routes_service(d);
	UNIT_CHECK(r->computing);
	routes_stop(d);
	UNIT_CHECK(!r->computing && !r->result && r->hold.pending);
	UNIT_CHECK(!routes_start(d));
	run_loop(d, installed_once, 200);
	UNIT_CHECK(r->set && r->info.installs == 1 && g_replaces == 1);
	finish_test(d);
}

/* without a worker, computed in the loop as before */
UNIT_TEST(routes_inline_without_worker)
{
	struct torusd *d = placed();
	struct td_routes *r = &d->routes;

	UNIT_CHECK(routes_worker_fd(d) == -1);
	routes_service(d);
	UNIT_CHECK(!r->computing && r->set && r->info.installs == 1);
	UNIT_CHECK(r->set && g_replaced_n == r->set->exceptions);
	finish_test(d);
}

static const struct unit_case cases[] = {
	UNIT_CASE(routes_worker_installs),
	UNIT_CASE(routes_worker_stale_result_discarded),
	UNIT_CASE(routes_worker_reload_mid_computation),
	UNIT_CASE(routes_inline_without_worker),
};

UNIT_MAIN(cases)
