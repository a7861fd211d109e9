// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * daemon_rpush.c - unit tests of daemon/rpush.c: a route set goes into
 * a fake kernel that holds plans and an exception table and refuses
 * what it is told to; after a refusal it holds what it held before.
 */
#include <errno.h>

#include "rpush.h"
#include "unit.h"

struct fake_kernel {
	struct td_plans	plans;		/* what it holds */
	unsigned int	nexc;
	int		plan_err;	/* the next PLAN_SET fails so */
	int		exc_err;	/* every ROUTE_BATCH fails so */
	unsigned int	plan_sets, batches;
};

static int fake_plan_set(void *ctx, const struct td_plans *p)
{
	struct fake_kernel *k = ctx;
	int err = k->plan_err;

	k->plan_sets++;
	k->plan_err = 0;
	if (err)
		return err;
	k->plans = *p;
	return 0;
}

static int fake_route_replace(void *ctx, const struct td_route_exc *exc,
			      unsigned int n)
{
	struct fake_kernel *k = ctx;

	(void)exc;
	k->batches++;
	if (k->exc_err)
		return k->exc_err;
	if (n > TORUS_MAX_ROUTES)	/* would have been sent */
		return -E2BIG;
	k->nexc = n;
	return 0;
}

static const struct td_rpush_ops fake_ops = {
	.plan_set = fake_plan_set,
	.route_replace = fake_route_replace,
};

static void plans_init(struct td_plans *p, unsigned int nplans, uint8_t seed)
{
	unsigned int i, a;

	memset(p, 0, sizeof(*p));
	p->nplans = nplans;
	p->ndims = 3;
	for (i = 0; i < nplans; i++)
		for (a = 0; a < 3; a++) {
			p->order[i][a] = (uint8_t)((a + i + seed) % 3);
			p->policy[i][a] = (uint8_t)((i + seed) % 3);
		}
}

static struct td_route_exc excs[4];

/* new plans and exceptions go in; unchanged plans are not resent */
UNIT_TEST(rpush_installs_both)
{
	struct fake_kernel k = { 0 };
	struct td_plans old, neu;
	int rerr;

	plans_init(&old, 2, 0);
	plans_init(&neu, 3, 1);
	k.plans = old;
	UNIT_CHECK(td_rpush(&fake_ops, &k, &old, &neu, excs, 4, &rerr) == 0);
	UNIT_CHECK(!memcmp(&k.plans, &neu, sizeof(neu)) && k.nexc == 4);
	UNIT_CHECK(k.plan_sets == 1 && k.batches == 1 && rerr == 0);
	UNIT_CHECK(td_rpush(&fake_ops, &k, &neu, &neu, excs, 2, &rerr) == 0);
	UNIT_CHECK(k.plan_sets == 1 && k.batches == 2 && k.nexc == 2);
}

/*
 * The exceptions refused: the old plans are put back, so the kernel
 * holds its old plans under its old exceptions, not new plans under
 * old exceptions
 */
UNIT_TEST(rpush_exceptions_refused_restores_plans)
{
	struct fake_kernel k = { 0 };
	struct td_plans old, neu;
	int rerr;

	plans_init(&old, 2, 0);
	plans_init(&neu, 4, 2);
	k.plans = old;
	k.nexc = 3;
	k.exc_err = -EINVAL;
	UNIT_CHECK(td_rpush(&fake_ops, &k, &old, &neu, excs, 4, &rerr) ==
		   -EINVAL);
	UNIT_CHECK(rerr == 0 && k.plan_sets == 2 && k.batches == 1);
	UNIT_CHECK(!memcmp(&k.plans, &old, sizeof(old)) && k.nexc == 3);
	k.exc_err = -ENOSPC;
	UNIT_CHECK(td_rpush(&fake_ops, &k, &old, &neu, excs, 4, &rerr) ==
		   -ENOSPC);
	UNIT_CHECK(!memcmp(&k.plans, &old, sizeof(old)));
}

/* plans refused: no exceptions sent, nothing to put back */
UNIT_TEST(rpush_plans_refused_sends_nothing_else)
{
	struct fake_kernel k = { 0 };
	struct td_plans old, neu;
	int rerr;

	plans_init(&old, 2, 0);
	plans_init(&neu, 3, 1);
	k.plans = old;
	k.plan_err = -EINVAL;
	UNIT_CHECK(td_rpush(&fake_ops, &k, &old, &neu, excs, 4, &rerr) ==
		   -EINVAL);
	UNIT_CHECK(k.plan_sets == 1 && k.batches == 0 && rerr == 0);
	UNIT_CHECK(!memcmp(&k.plans, &old, sizeof(old)));
}

/* more exceptions than the kernel holds: refused before any request */
UNIT_TEST(rpush_caps_exceptions)
{
	struct fake_kernel k = { 0 };
	struct td_plans old, neu;
	int rerr;

	plans_init(&old, 2, 0);
	plans_init(&neu, 3, 1);
	k.plans = old;
	UNIT_CHECK(td_rpush(&fake_ops, &k, &old, &neu, excs,
			    TORUS_MAX_ROUTES + 1, &rerr) == -ENOSPC);
	UNIT_CHECK(k.plan_sets == 0 && k.batches == 0);
	UNIT_CHECK(!memcmp(&k.plans, &old, sizeof(old)));
}

/* which errors mean "refused as they are" */
UNIT_TEST(rpush_refused_errors)
{
	UNIT_CHECK(td_rpush_refused(-EINVAL));
	UNIT_CHECK(td_rpush_refused(-ENOSPC));
	UNIT_CHECK(td_rpush_refused(-E2BIG));
	UNIT_CHECK(!td_rpush_refused(-ENODEV));
	UNIT_CHECK(!td_rpush_refused(-ENOBUFS));
	UNIT_CHECK(!td_rpush_refused(0));
}

static const struct unit_case cases[] = {
	UNIT_CASE(rpush_installs_both),
	UNIT_CASE(rpush_exceptions_refused_restores_plans),
	UNIT_CASE(rpush_plans_refused_sends_nothing_else),
	UNIT_CASE(rpush_caps_exceptions),
	UNIT_CASE(rpush_refused_errors),
};

UNIT_MAIN(cases)
