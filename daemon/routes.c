// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * routes.c - torusd installs fault-tolerant routes
 *
 * Once the node is placed and whenever the link state's fault set
 * changes (first placement and faults that clear included), the node's
 * route set is computed from the fault set every node of the frame
 * shares (troute_node_routes(): plans, lamb set, own table; the channel
 * dependency graph is checked once per geometry) and installed: the
 * plans (PLAN_SET), the exceptions (one ROUTE_BATCH that replaces the
 * table, so the kernel swaps it atomically) and the node's role (lamb,
 * or back to what discovery made it).  Plans whose channel graph has a
 * cycle are refused loudly and the kernel keeps the routes it has.
 *
 * Faults arrive one by one as the link state floods them: the first
 * change is computed at once, later ones after a holdoff that grows
 * while they keep coming and decays once they stop (holdoff.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "notify.h"
#include "routes.h"
#include "rpush.h"
#include "tcoll_tree.h"
#include "torusd.h"

static uint64_t unix_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

static void coord_of(const struct troute_node_set *s, unsigned int node,
		     uint8_t *coord)
{
	unsigned int v[TORUS_MAX_AXES], a;

	troute_coord(&s->c, node, v);
	memset(coord, 0, TC_MAX_AXES);
	for (a = 0; a < s->f.ndims; a++)
		coord[a] = (uint8_t)v[a];
}

/* the same fault set, geometry and node as the installed set */
static bool same_set(const struct td_routes *r, const struct td_rjob *j)
{
	return r->set && !r->info.refused && r->set->self == j->self &&
	       troute_same_faults(&r->set->f, &j->f);
}

static void plans_of(const struct troute_node_set *s, struct td_plans *p)
{
	unsigned int i;

	memset(p, 0, sizeof(*p));
	p->nplans = s->ps.nplans;
	p->ndims = s->f.ndims;
	for (i = 0; i < s->ps.nplans && i < TORUS_MAX_PLANS; i++) {
		memcpy(p->order[i], s->ps.plans[i].order, TC_MAX_AXES);
		memcpy(p->policy[i], s->ps.plans[i].policy, TC_MAX_AXES);
	}
}

static int push_plan_set(void *ctx, const struct td_plans *p)
{
	struct torusd *d = ctx;

	return td_nl_plan_set(&d->nl, d->ifindex, p->nplans,
			      (const uint8_t (*)[TC_MAX_AXES])p->order,
			      (const uint8_t (*)[TC_MAX_AXES])p->policy,
			      p->ndims);
}

static int push_route_replace(void *ctx, const struct td_route_exc *exc,
			      unsigned int n)
{
	struct torusd *d = ctx;

	return td_nl_route_replace(&d->nl, d->ifindex, exc, n);
}

static const struct td_rpush_ops push_ops = {
	.plan_set = push_plan_set,
	.route_replace = push_route_replace,
};

/*
 * Plans (when they differ from the installed set's: a plan set is also a
 * node event, which every daemon answers with an audit), then the
 * exception table in one batch, as one step (rpush.h): exceptions the
 * kernel refuses put the installed set's plans back.  0 or -errno, the
 * kernel's message in d->nl.err (-ENOSPC past TORUS_MAX_ROUTES, before
 * anything is sent).
 */
static int install_set(struct torusd *d, const struct troute_node_set *s)
{
	const struct troute_node_set *old = d->routes.set;
	struct td_plans oldp, newp;
	struct td_route_exc *exc;
	unsigned int n = 0, dst, k;
	int err, rerr;

	if (s->exceptions > TORUS_MAX_ROUTES) {
		snprintf(d->nl.err, sizeof(d->nl.err),
			 "%u exceptions, the kernel holds at most %u",
			 s->exceptions, TORUS_MAX_ROUTES);
		return -ENOSPC;
	}
	plans_of(s, &newp);
	/* what to put back: the installed set's, else the kernel's own */
	memset(&oldp, 0, sizeof(oldp));
	if (old) {
		plans_of(old, &oldp);
	} else if (td_nl_plans_get(&d->nl, d->ifindex, &oldp)) {
		memset(&oldp, 0, sizeof(oldp));
		log_debug("routes: the kernel's plans unread (%s): none put back if the exceptions are refused",
			  d->nl.err);
	}
	exc = calloc(s->exceptions ? s->exceptions : 1, sizeof(*exc));
	if (!exc)
		return -ENOMEM;
	/* in the kernel's order (coordinate bytes, x first): no sort there */
	for (k = 0; k < s->c.nnodes; k++) {
		unsigned int coord[TORUS_MAX_AXES], a, rest = k;
		const struct troute_route *rt;

		for (a = s->f.ndims; a-- > 0; rest /= s->f.dims[a])
			coord[a] = rest % s->f.dims[a];
		dst = troute_index(&s->c, coord);
		rt = &s->table[dst];

		if (rt->kind != TROUTE_VIA || n >= s->exceptions)
			continue;
		coord_of(s, dst, exc[n].dst);
		coord_of(s, rt->via, exc[n].via);
		exc[n].plan0 = rt->plan0;
		exc[n].plan1 = rt->plan1;
		n++;
	}
	err = td_rpush(&push_ops, d, old || oldp.nplans ? &oldp : NULL, &newp,
		       exc, n, &rerr);
	free(exc);
	if (err && rerr)
		log_err("routes: the installed set's plans could not be put back: %s",
			strerror(-rerr));
	return err;
}

/* Put torusd's tree (routes.info.coll) into the kernel. */
static int push_tree(struct torusd *d)
{
	struct td_state_coll *c = &d->routes.info.coll;
	int err;

	err = td_nl_coll_tree_set(&d->nl, d->ifindex, !c->fault_free,
				  c->parent, c->children);
	c->installed = !err;
	if (err)
		log_warn("collective tree: install failed: %s", d->nl.err);
	return err;
}

/*
 * The collectives' combining tree over the members the set leaves
 * (live, not lambs: a lamb cannot join), computed by every node alike
 * (tcoll_tree.h); without faults the kernel's default tree.  A failed
 * install is retried by the audit (routes_audit_tree()).
 */
static void install_tree(struct torusd *d, const struct troute_node_set *s)
{
	struct td_state_coll *c = &d->routes.info.coll;
	bool fault_free = !s->dead && !s->cuts && !s->lambs;
	struct tcoll_tree t;

	if (tcoll_tree_build(&s->f, s->lamb, &t)) {
		log_warn("collective tree: out of memory");
		return;
	}
	memset(c, 0, sizeof(*c));
	c->computed = true;
	c->fault_free = fault_free;
	c->parent = t.parent[s->self];
	c->children = t.children[s->self];
	c->depth = t.depth[s->self];
	c->members = t.members;
	c->roots = t.roots;
	c->max_depth = t.max_depth;
	c->max_fan_in = t.max_fan_in;
	tcoll_tree_free(&t);
	if (push_tree(d))
		return;
	log_info("collective tree: %s, parent %s, %d children, depth %u (%u members, %u trees, depth %u, fan-in %u at most)",
		 fault_free ? "the default one" : "around the faults",
		 c->parent == TORUS_DIR_NONE ? "none (a root)" :
		 td_dir_name(c->parent), __builtin_popcount(c->children),
		 c->depth, c->members, c->roots, c->max_depth, c->max_fan_in);
}

/*
 * At each audit of the kernel: the kernel's tree must be the one the
 * installed route set gives (a node device recreated, a tool that set
 * another, an install that failed).  Return: 0, or the netlink error.
 */
int routes_audit_tree(struct torusd *d)
{
	struct td_state_coll *c = &d->routes.info.coll;
	struct td_ktree kt;
	int err;

	if (!d->routes.set || !c->computed)
		return 0;
	err = td_nl_coll_tree_get(&d->nl, d->ifindex, &kt);
	if (err)
		return err;
	if (kt.set == !c->fault_free &&
	    (!kt.set || (kt.parent == c->parent && kt.children == c->children)))
		return 0;
	log_warn("collective tree: the kernel has %s, not %s: installing it again",
		 kt.set ? "another tree" : "its default tree",
		 c->fault_free ? "the default one" : "the tree around the faults");
	d->state_dirty = true;
	return push_tree(d);
}

static void refuse(struct torusd *d, const struct troute_node_set *s)
{
	struct td_routes *r = &d->routes;
	char msg[200];

	/* the search stops at the first cycle: what it had seen by then */
	log_err("routes refused: the channel dependency graph of the new route set has a cycle of %u channels (found after %" PRIu64 " channels and %" PRIu64 " dependencies): nothing installed, the kernel keeps its routes",
		s->cdg.cycle_len, s->cdg.channels, s->cdg.deps);
	snprintf(msg, sizeof(msg),
		 "STATUS=routes refused: channel dependency cycle (%u dead, %u cut cables); previous routes kept",
		 s->dead, s->cuts);
	td_notify(msg);
	snprintf(r->info.refused_why, sizeof(r->info.refused_why),
		 "channel dependency cycle");
	r->info.refused = true;
	r->info.refusals++;
}

/*
 * The kernel refused the set as it is (invalid, or more than it holds):
 * said at each retry, and the retries back off (retry()); the
 * kernel keeps the routes it had.
 */
static void kernel_refused(struct torusd *d, int err)
{
	struct td_routes *r = &d->routes;

	log_err("routes refused by the kernel: %s (%s): the kernel keeps its routes; retried later, each time after a longer wait",
		d->nl.err[0] ? d->nl.err : strerror(-err), strerror(-err));
	snprintf(r->info.refused_why, sizeof(r->info.refused_why),
		 "by the kernel: %s", strerror(-err));
	r->info.refused = true;
	r->info.refusals++;
	d->state_dirty = true;
	notify_status(d);
}

/* the role follows (install.c decides it with the rest of the node) */
static void set_lamb(struct torusd *d, bool lamb)
{
	d->routes.info.lamb = lamb;
	log_notice("%s: this node %s", d->opts.ifname,
		   lamb ? "is a lamb: it forwards, but sends and receives nothing" :
		   "is no lamb any more");
	d->need_sync = true;
	d->state_dirty = true;
	kernel_sync(d);
	notify_status(d);
}

static uint64_t lamb_tick(const struct torusd *d)
{
	return d->routes.set_tick +
	       (uint64_t)td_ms_to_ticks(TD_ROUTES_LAMB_DELAY_MS,
					d->opts.tick_ms);
}

/*
 * The channel dependency graph of any fault set is a subgraph of the
 * fault-free one (troute_cdg_fault_free()): checked once per geometry,
 * the verdict holds for every set (a third of the computation's cost
 * saved at every fault).  The verdict is kept here, on the loop's side:
 * a job computes it only when this has none for its geometry and knob
 * (cdg_wanted()), and the loop stores it when the job is done.
 */
static bool cdg_wanted(const struct torusd *d, const struct troute_faults *f)
{
	const struct td_routes *r = &d->routes;

	return !r->have_cdg ||
	       r->cdg_one_class != d->opts.test_one_channel_class ||
	       !troute_same_geom(&r->cdg_geom, f);
}

static void cdg_store(struct torusd *d, const struct td_rjob *j)
{
	struct td_routes *r = &d->routes;

	r->cdg = j->cdg;
	memset(&r->cdg_geom, 0, sizeof(r->cdg_geom));
	r->cdg_geom.ndims = j->f.ndims;
	r->cdg_geom.wrap = j->f.wrap;
	memcpy(r->cdg_geom.dims, j->f.dims, sizeof(j->f.dims));
	r->cdg_one_class = j->one_class;
	r->have_cdg = true;
	log_info("routes: channel dependency graph of the plans on the fault-free fabric: %" PRIu64 " channels, %" PRIu64 " dependencies, %s (every fault set's graph is a subgraph of it)",
		 r->cdg.channels, r->cdg.deps,
		 r->cdg.acyclic ? "acyclic" : "CYCLIC");
}

/*
 * What a computation needs, copied from the core: the placement's
 * geometry, the node's index and the link state's fault set.  0,
 * -EAGAIN (not placed) or -ENOMEM.  @warn: say it if the link-state
 * database is full.
 */
static int snapshot(struct torusd *d, struct td_rjob **out, bool warn)
{
	const struct tc_view *v = &d->view;
	unsigned int a, nnodes = 1, self = 0;
	struct td_rjob *j;
	int err;

	*out = NULL;
	for (a = v->ndims; a-- > 0;) {
		nnodes *= v->dims[a];
		self = self * v->dims[a] + v->coord[a];
	}
	j = td_rjob_new(nnodes);
	if (!j) {
		log_err("routes: out of memory for %u nodes", nnodes);
		return -ENOMEM;
	}
	j->f.ndims = v->ndims;
	j->f.wrap = v->wrap;
	for (a = 0; a < v->ndims; a++)
		j->f.dims[a] = v->dims[a];
	j->self = self;
	err = tc_ls_faults(d->node, (uint8_t *)j->f.dead, (uint16_t *)j->f.cut);
	if (err == -EAGAIN) {
		td_rjob_free(j);
		return err;
	}
	if (err == -ENOSPC && warn)
		log_warn("routes: the link-state database is full: the fault set may lack faults");
	*out = j;
	return 0;
}

/* the same geometry, node and fault set */
static bool same_input(const struct td_rjob *a, const struct td_rjob *b)
{
	return a->self == b->self && troute_same_faults(&a->f, &b->f);
}

static void retry(struct torusd *d)
{
	struct td_routes *r = &d->routes;

	/* failures in a row wait longer each time (a refusal counts) */
	td_holdoff_retry(&r->hold, d->ticks,
			 td_backoff_ticks(r->fails + r->info.refusals,
				(uint64_t)td_ms_to_ticks(TD_RETRY_MS,
							 d->opts.tick_ms),
				(uint64_t)td_ms_to_ticks(TD_RETRY_MAX_MS,
							 d->opts.tick_ms)));
}

/*
 * The loop's half of a computation: check, install, account.  The old
 * set stays unless the new one is in.  True when a retry was set.
 */
static bool finish(struct torusd *d, struct td_rjob *j)
{
	struct td_routes *r = &d->routes;
	unsigned int nnodes = troute_nnodes(&j->f), self = j->self;
	struct troute_node_set *s;
	struct td_knode kn;
	int err;

	if (j->err) {
		log_err("routes: computation failed: %s", strerror(-j->err));
		retry(d);
		return true;
	}
	if (j->want_cdg)
		cdg_store(d, j);
	s = j->set;
	s->cdg = r->cdg;
	r->info.compute_ms = j->ms;
	r->info.compute_cpu_ms = j->cpu_ms;
	r->info.computed_at_ms = unix_ms();
	r->info.computed = true;
	r->info.ls_generation = r->job_ls_gen;
	if (!s->cdg.acyclic) {
		refuse(d, s);
		d->state_dirty = true;
		return false;
	}
	err = install_set(d, s);
	if (err && td_rpush_refused(err)) {
		kernel_refused(d, err);
		retry(d);
		return true;
	}
	if (err) {
		log_warn("routes: install failed: %s", d->nl.err);
		node_gone(d, err);
		r->fails++;
		retry(d);
		return true;
	}
	routes_free(d);
	r->set = s;
	j->set = NULL;
	r->set_tick = d->ticks;
	if (r->info.refused) {
		log_notice("routes: the new set is installed (%u refusals before it)",
			   r->info.refusals);
		notify_status(d);
	}
	r->info.refused = false;
	r->info.refused_why[0] = '\0';
	r->info.refusals = 0;
	r->fails = 0;
	r->info.lambs = r->set->lambs;
	r->info.exceptions = r->set->exceptions;
	r->info.dead = r->set->dead;
	r->info.cuts = r->set->cuts;
	r->info.installs++;
	if (!td_nl_node_get(&d->nl, d->ifindex, &kn))
		r->info.generation = kn.routes_generation;
	log_info("routes: %u nodes, %u dead, %u cut cables, %u lambs, %u exceptions, %u unreachable, %.1f ms (%.1f ms CPU; link state %u, table generation %u)",
		 nnodes, r->info.dead, r->info.cuts, r->info.lambs,
		 r->info.exceptions, r->set->unreachable, j->ms, j->cpu_ms,
		 r->job_ls_gen, r->info.generation);
	if (r->info.lamb && !r->set->lamb[self])
		set_lamb(d, false);
	install_tree(d, r->set);
	d->state_dirty = true;
	return false;
}

/* a computation is done: the next holdoff starts, unless a retry waits */
static void done(struct torusd *d, struct td_rjob *j)
{
	struct td_routes *r = &d->routes;

	if (!finish(d, j))
		td_holdoff_ran(&r->hold, r->job_tick, r->quiet, d->opts.tick_ms);
	td_rjob_free(j);
}

/*
 * Snapshot the fault set and hand it to the worker (or, without one,
 * compute it here).  False when nothing was started: not placed, out of
 * memory (a retry is set), or the installed set's fault set.
 */
static bool start(struct torusd *d)
{
	struct td_routes *r = &d->routes;
	struct td_rjob *j;
	int err;

	err = snapshot(d, &j, true);
	if (err == -ENOMEM)
		retry(d);
	if (err)
		return false;
	if (same_set(r, j)) {
		log_debug("routes: link state generation %u, same fault set",
			  r->ls_gen);
		td_rjob_free(j);
		return false;
	}
	j->one_class = d->opts.test_one_channel_class;
	j->want_cdg = cdg_wanted(d, &j->f);
	r->job_ls_gen = r->ls_gen;
	if (!r->worker.started) {
		td_rjob_run(j);
		done(d, j);
		return true;
	}
	td_rworker_submit(&r->worker, j);
	r->computing = true;
	return true;
}

/*
 * The worker's result, taken by the loop: installed, or thrown away if
 * its input is no longer the link state's (computed again after the
 * holdoff, as a change that came during a computation is).  A fault set
 * that keeps changing faster than it is computed would throw every
 * result away: after TD_ROUTES_STALE_MAX in a row, one is installed all
 * the same (it is newer than the kernel's), as the loop did when it
 * computed inline.  A result for another placement is never installed.
 */
static void take_result(struct torusd *d, struct td_rjob *j)
{
	struct td_routes *r = &d->routes;
	struct td_rjob *now = NULL;
	bool same_place;

	if (!d->node || !d->have_view || d->view.state != TC_PLACED ||
	    !d->installed || snapshot(d, &now, false)) {
		log_debug("routes: the computed set is for a placement gone: discarded");
		td_holdoff_change(&r->hold, d->ticks);
		td_rjob_free(j);
		return;
	}
	/* ... and a verdict for its geometry, computed or kept */
	same_place = now->self == j->self &&
		     troute_same_geom(&now->f, &j->f) &&
		     (j->want_cdg || !cdg_wanted(d, &j->f));
	if (!same_place ||
	    (!same_input(now, j) && r->stale < TD_ROUTES_STALE_MAX)) {
		r->stale++;
		log_debug("routes: the fault set changed while its routes were computed (%.1f ms): discarded, computed again",
			  j->ms);
		td_holdoff_change(&r->hold, d->ticks);
		td_holdoff_ran(&r->hold, r->job_tick, r->quiet, d->opts.tick_ms);
		td_rjob_free(now);
		td_rjob_free(j);
		return;
	}
	r->stale = 0;
	td_rjob_free(now);
	done(d, j);
}

void routes_collect(struct torusd *d)
{
	struct td_routes *r = &d->routes;
	struct td_rjob *j = td_rworker_collect(&r->worker);

	if (!j)
		return;
	r->computing = false;
	td_rjob_free(r->result);
	r->result = j;
}

static bool busy(const struct td_routes *r)
{
	return r->computing || r->result;
}

void routes_service(struct torusd *d)
{
	struct td_routes *r = &d->routes;
	struct td_rjob *j;
	uint32_t gen;
	bool quiet;

	routes_collect(d);
	if (!d->node || !d->have_view || d->view.state != TC_PLACED ||
	    !d->installed) {
		if (r->result) {
			take_result(d, r->result);
			r->result = NULL;
		}
		return;
	}
	if (r->resumed) {
		struct tc_ls_info li;

		tc_ls_info(d->node, &li);
		if (li.settling)
			return;
		r->resumed = false;
	}
	/* a lamb set that held still long enough makes this node a lamb */
	if (r->set && r->set->lamb[r->set->self] && !r->info.lamb &&
	    d->ticks >= lamb_tick(d))
		set_lamb(d, true);
	gen = tc_ls_generation(d->node);
	/* (the first computation under way is no change) */
	if ((!r->info.computed && !busy(r)) || gen != r->ls_gen ||
	    d->view.generation != r->view_gen) {
		td_holdoff_change(&r->hold, d->ticks);
		r->ls_gen = gen;
		r->view_gen = d->view.generation;
	}
	if (r->result) {
		j = r->result;
		r->result = NULL;
		take_result(d, j);
	}
	/* one computation at a time: changes meanwhile wait for it */
	if (busy(r) || !td_holdoff_due(&r->hold, d->ticks))
		return;
	quiet = td_holdoff_start(&r->hold);
	r->quiet = quiet;
	r->job_tick = d->ticks;
	/* a retry sets its own time; an unchanged fault set costs nothing */
	start(d);
}

int routes_start(struct torusd *d)
{
	int err = td_rworker_start(&d->routes.worker);

	if (err)
		log_warn("routes: no worker thread (%s): routes are computed in the event loop",
			 strerror(-err));
	return err;
}

int routes_worker_fd(const struct torusd *d)
{
	return td_rworker_fd(&d->routes.worker);
}

void routes_stop(struct torusd *d)
{
	struct td_routes *r = &d->routes;
	bool was_busy = busy(r);

	td_rworker_stop(&r->worker);
	td_rjob_free(r->result);
	r->result = NULL;
	r->computing = false;
	/* a computation thrown away is made again */
	if (was_busy)
		td_holdoff_change(&r->hold, d->ticks);
}

uint64_t routes_next_tick(const struct torusd *d)
{
	const struct td_routes *r = &d->routes;
	uint64_t next = td_holdoff_next_tick(&r->hold);

	/* a computation under way: its eventfd wakes the loop */
	if (r->computing || r->result)
		next = UINT64_MAX;
	if (r->set && r->set->lamb[r->set->self] && !r->info.lamb &&
	    lamb_tick(d) < next)
		next = lamb_tick(d);
	return next;
}

void routes_free(struct torusd *d)
{
	if (d->routes.set) {
		troute_node_free(d->routes.set);
		free(d->routes.set);
	}
	d->routes.set = NULL;
}

static void put_coord(FILE *f, const char *key, const uint8_t *c,
		      unsigned int n)
{
	char buf[64];

	td_fmt_coord(buf, sizeof(buf), c, n);
	fprintf(f, " %s=%s", key, buf);
}

static const char *const kind_names[] = {
	[TROUTE_SELF] = "self",
	[TROUTE_DIRECT] = "direct",
	[TROUTE_VIA] = "via",
	[TROUTE_UNREACHABLE] = "unreachable",
};

void routes_path_reply(struct torusd *d, const char *text, FILE *f)
{
	const struct troute_node_set *s = d->routes.set;
	unsigned int coord[TORUS_MAX_AXES], a = 0, dst, i, nd;
	uint8_t c8[TC_MAX_AXES];
	const struct troute_route *rt;
	struct troute_hop *hops;
	const char *p = text;
	int n;

	if (!s) {
		fprintf(f, "error no routes computed yet (the node is not placed, or its link state is not complete)\n");
		return;
	}
	nd = s->f.ndims;
	while (*p && a < nd) {
		char *end;
		unsigned long val = strtoul(p, &end, 10);

		if (end == p || val >= s->f.dims[a])
			break;
		coord[a++] = (unsigned int)val;
		p = *end == ',' ? end + 1 : end;
	}
	if (a != nd || *p) {
		fprintf(f, "error '%s' is not %u coordinates inside the fabric\n",
			text, nd);
		return;
	}
	dst = troute_index(&s->c, coord);
	rt = &s->table[dst];
	hops = calloc(troute_path_max(&s->f), sizeof(*hops));
	if (!hops) {
		fprintf(f, "error out of memory\n");
		return;
	}
	n = troute_node_path(s, dst, hops, troute_path_max(&s->f));
	fprintf(f, "ok\nroute kind=%s", kind_names[rt->kind]);
	coord_of(s, s->self, c8);
	put_coord(f, "src", c8, nd);
	coord_of(s, dst, c8);
	put_coord(f, "dst", c8, nd);
	if (rt->kind == TROUTE_VIA) {
		coord_of(s, rt->via, c8);
		put_coord(f, "via", c8, nd);
		fprintf(f, " plan0=%u plan1=%u", rt->plan0, rt->plan1);
	}
	fprintf(f, " hops=%d why=%s ls_generation=%u generation=%u\n",
		n < 0 ? 0 : n,
		s->f.dead[dst] ? "dead" : s->lamb[dst] ? "lamb" :
		s->lamb[s->self] ? "self_lamb" :
		rt->kind == TROUTE_UNREACHABLE ? "disconnected" : "-",
		d->routes.info.ls_generation, d->routes.info.generation);
	for (i = 0; n > 0 && i < (unsigned int)n; i++) {
		coord_of(s, hops[i].node, c8);
		fprintf(f, "hop");
		put_coord(f, "node", c8, nd);
		fprintf(f, " dir=%s round=%u plan=%u vc=%u\n",
			td_dir_name(hops[i].dir), hops[i].round, hops[i].plan,
			hops[i].vc);
	}
	free(hops);
}
