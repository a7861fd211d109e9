/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rpush.h - how a route set goes into torus.ko: plans, then the
 * exception table, as one step.  The kernel has no request that carries
 * both, so when it refuses the exceptions the plans it held before are
 * put back: the kernel never holds new plans under old exceptions.  The
 * requests themselves are the caller's (@ops), so the sequence is
 * unit-tested without the module (tests/unit/daemon_rpush.c).
 */
#ifndef TORUSD_RPUSH_H
#define TORUSD_RPUSH_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/torus.h>

#include "tnl.h"

struct td_rpush_ops {
	int (*plan_set)(void *ctx, const struct td_plans *p);
	int (*route_replace)(void *ctx, const struct td_route_exc *exc,
			     unsigned int n);
};

/*
 * Install @plans (unless they are @old's) and @n exceptions.  @old: the
 * plans the kernel holds, NULL if unknown (nothing to put back then).
 * More than TORUS_MAX_ROUTES exceptions are refused before anything is
 * sent (-ENOSPC).  Return 0 or the first failure's -errno; on failure
 * the kernel holds @old's plans again if they had been replaced (a
 * failure to put them back is reported in *@restore_err, else 0).
 */
int td_rpush(const struct td_rpush_ops *ops, void *ctx,
	     const struct td_plans *old, const struct td_plans *plans,
	     const struct td_route_exc *exc, unsigned int n,
	     int *restore_err);

/*
 * The kernel refused the routes as they are (invalid or too many):
 * sending them again unchanged will not help
 */
bool td_rpush_refused(int err);

#endif /* TORUSD_RPUSH_H */
