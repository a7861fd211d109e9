// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * backoff.c - RFC 8405's back-off for route computations (backoff.h)
 */
#include "backoff.h"

uint64_t td_backoff_change(struct td_backoff *b,
			   const struct td_backoff_cfg *cfg, uint64_t now)
{
	uint64_t wait;

	/* the timers of the RFC, run lazily: nothing happens between
	 * changes but their expiry */
	if (b->state != TD_BACKOFF_QUIET &&
	    now - b->last_change >= cfg->holddown)
		b->state = TD_BACKOFF_QUIET;
	if (b->state == TD_BACKOFF_SHORT_WAIT && now >= b->learn_end)
		b->state = TD_BACKOFF_LONG_WAIT;
	b->last_change = now;

	switch (b->state) {
	case TD_BACKOFF_QUIET:
		wait = cfg->initial;
		b->state = TD_BACKOFF_SHORT_WAIT;
		b->learn_end = now + cfg->learn;
		break;
	case TD_BACKOFF_SHORT_WAIT:
		wait = cfg->short_wait;
		break;
	default:
		wait = cfg->long_wait;
		break;
	}
	if (!b->due_set) {
		b->due_set = true;
		b->due = now + wait;
	}
	return b->due;
}

void td_backoff_done(struct td_backoff *b)
{
	b->due_set = false;
}

const char *td_backoff_state_name(enum td_backoff_state s)
{
	switch (s) {
	case TD_BACKOFF_QUIET:
		return "quiet";
	case TD_BACKOFF_SHORT_WAIT:
		return "short-wait";
	case TD_BACKOFF_LONG_WAIT:
		return "long-wait";
	}
	return "?";
}
