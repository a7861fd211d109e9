/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * holdoff.h - how long torusd's route computations wait for one another
 * while link-state changes keep coming (unit-tested in
 * tests/unit/daemon_holdoff.c)
 *
 * Bursts of faults are coalesced: after a computation the next waits a
 * holdoff.  One fault's records arrive over a few hundred ms (a killed
 * node's six cables, flooded one hop per tick), so the first
 * TD_HOLDOFF_FREE holdoffs with changes in them keep TD_HOLDOFF_MS;
 * after that it doubles each time changes came during it (a flapping
 * link state), up to TD_HOLDOFF_MAX_MS.  A holdoff that passes with no
 * change ends the burst: the next change is computed at once, and the
 * holdoff decays, halved for the quiet holdoff and again for every
 * (halved) holdoff of quiet after it, down to TD_HOLDOFF_MS.  So faults
 * that come a few hundred ms apart (a node killed after a cable cut)
 * each get their routes at once, while a link state that keeps
 * changing is computed at most every 3.2 s until it has been quiet for
 * some 6 s.
 */
#ifndef TORUSD_HOLDOFF_H
#define TORUSD_HOLDOFF_H

#include <stdbool.h>
#include <stdint.h>

#define TD_HOLDOFF_MS		100
#define TD_HOLDOFF_MAX_MS	3200
#define TD_HOLDOFF_FREE		3

struct td_holdoff {
	bool		pending;	/* a change waits for its computation */
	uint64_t	pending_tick;	/* ... since this tick */
	uint64_t	next_tick;	/* no computation before this tick */
	unsigned int	ms;		/* the holdoff running (0: none yet) */
	unsigned int	busy;		/* holdoffs in a row with changes */
};

/* a change was seen at tick @now */
void td_holdoff_change(struct td_holdoff *h, uint64_t now);
/* a change waits and its holdoff has run out at tick @now */
bool td_holdoff_due(const struct td_holdoff *h, uint64_t now);
/*
 * The computation of a due change is starting: clears
 * the change and returns whether the holdoff that ran out was quiet,
 * for td_holdoff_ran().
 */
bool td_holdoff_start(struct td_holdoff *h);
/* it is done: the next holdoff starts (@quiet from td_holdoff_start) */
void td_holdoff_ran(struct td_holdoff *h, uint64_t now, bool quiet,
		    unsigned int tick_ms);
/* it failed: try again @ticks later, the holdoff unchanged */
void td_holdoff_retry(struct td_holdoff *h, uint64_t now, uint64_t ticks);
/*
 * How long a retry waits after @fails failures in a row (1: the first):
 * @base ticks, doubled for each further failure, at most @max.  A
 * request the kernel keeps refusing is not sent again every tick.
 */
uint64_t td_backoff_ticks(unsigned int fails, uint64_t base, uint64_t max);
/* the tick a waiting change is due, or UINT64_MAX */
uint64_t td_holdoff_next_tick(const struct td_holdoff *h);

#endif /* TORUSD_HOLDOFF_H */
