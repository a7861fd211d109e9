/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * backoff.h - when to recompute routes after link-state changes
 *
 * The back-off of RFC 8405 ("SPF Back-Off Delay Algorithm for Link-State
 * IGPs"), in the daemon's own time unit (ticks):
 *
 *   QUIET       a change is computed after @initial (a kill's reports
 *               from its neighbours come together in one computation),
 *               and the node starts learning: -> SHORT_WAIT;
 *   SHORT_WAIT  for @learn after that first change, a change is computed
 *               @short_wait after it: a burst (a node's death flooding in
 *               from every neighbour) is followed closely;
 *   LONG_WAIT   changes still coming after @learn are a flapping link
 *               state: computed @long_wait after;
 *   back to QUIET once no change came for @holddown.
 *
 * A change while a computation is already due does not postpone it.
 * Pure: the caller keeps the clock and says when it computed.
 */
#ifndef TORUSD_BACKOFF_H
#define TORUSD_BACKOFF_H

#include <stdbool.h>
#include <stdint.h>

enum td_backoff_state {
	TD_BACKOFF_QUIET,
	TD_BACKOFF_SHORT_WAIT,
	TD_BACKOFF_LONG_WAIT,
};

struct td_backoff_cfg {
	uint64_t	initial;
	uint64_t	short_wait;
	uint64_t	long_wait;
	uint64_t	learn;
	uint64_t	holddown;
};

struct td_backoff {
	enum td_backoff_state state;
	bool		due_set;	/* a computation is due at @due */
	uint64_t	due;
	uint64_t	learn_end;	/* SHORT_WAIT until then */
	uint64_t	last_change;
};

/* a change at @now; the time its computation is due */
uint64_t td_backoff_change(struct td_backoff *b,
			   const struct td_backoff_cfg *cfg, uint64_t now);
/* the computation that was due ran (or was given up) */
void td_backoff_done(struct td_backoff *b);
const char *td_backoff_state_name(enum td_backoff_state s);

#endif /* TORUSD_BACKOFF_H */
