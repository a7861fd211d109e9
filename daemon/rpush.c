// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rpush.c - plans and exceptions into torus.ko as one step (rpush.h)
 */
#include <errno.h>
#include <string.h>

#include "rpush.h"

static bool plans_eq(const struct td_plans *a, const struct td_plans *b)
{
	unsigned int p;

	if (a->nplans != b->nplans || a->ndims != b->ndims)
		return false;
	for (p = 0; p < a->nplans && p < TORUS_MAX_PLANS; p++)
		if (memcmp(a->order[p], b->order[p], TC_MAX_AXES) ||
		    memcmp(a->policy[p], b->policy[p], TC_MAX_AXES))
			return false;
	return true;
}

int td_rpush(const struct td_rpush_ops *ops, void *ctx,
	     const struct td_plans *old, const struct td_plans *plans,
	     const struct td_route_exc *exc, unsigned int n,
	     int *restore_err)
{
	bool sent = false;
	int err;

	*restore_err = 0;
	if (n > TORUS_MAX_ROUTES || plans->nplans > TORUS_MAX_PLANS)
		return -ENOSPC;
	if (!old || !plans_eq(old, plans)) {
		err = ops->plan_set(ctx, plans);
		if (err)
			return err;
		sent = true;
	}
	err = ops->route_replace(ctx, exc, n);
	if (err && sent && old)
		*restore_err = ops->plan_set(ctx, old);
	return err;
}

bool td_rpush_refused(int err)
{
	return err == -EINVAL || err == -ENOSPC || err == -E2BIG ||
	       err == -ERANGE || err == -EMSGSIZE || err == -EOPNOTSUPP;
}
