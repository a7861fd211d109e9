// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * When torusd recomputes routes after link-state changes (daemon/
 * backoff.c, RFC 8405), in ticks of 50 ms as torusd runs it: a burst is
 * followed closely, a flapping link state slowly, quiet resets it.
 */
#include <stdint.h>

#include "backoff.h"
#include "unit.h"

/* torusd's timings at the default 50 ms tick (routes.h) */
static const struct td_backoff_cfg cfg = {
	.initial = 1, .short_wait = 2, .long_wait = 40, .learn = 20,
	.holddown = 40,
};

/* run the computations due up to @now; the tick of the last one */
static uint64_t run_due(struct td_backoff *b, uint64_t now, uint64_t *last)
{
	if (b->due_set && b->due <= now) {
		*last = b->due;
		td_backoff_done(b);
	}
	return *last;
}

UNIT_TEST(backoff_coalesces_one_tick_of_reports)
{
	struct td_backoff b = { 0 };

	/* a node dies: three neighbours' reports in the same tick */
	UNIT_CHECK(td_backoff_change(&b, &cfg, 100) == 101);
	UNIT_CHECK(td_backoff_change(&b, &cfg, 100) == 101);
	UNIT_CHECK(td_backoff_change(&b, &cfg, 100) == 101);
	UNIT_CHECK(b.state == TD_BACKOFF_SHORT_WAIT);
}

UNIT_TEST(backoff_follows_a_burst_closely)
{
	struct td_backoff b = { 0 };
	uint64_t last = 0, t;

	/* a death's reports flood in over 8 ticks (a diameter of hops):
	 * the last of them is computed within the short wait */
	for (t = 100; t <= 108; t++) {
		td_backoff_change(&b, &cfg, t);
		run_due(&b, t, &last);
	}
	for (; t < 200; t++)
		run_due(&b, t, &last);
	UNIT_CHECK(last >= 108 && last <= 108 + cfg.short_wait);
	/* the old doubling holdoff (4, 8, 16 ticks) would have reached
	 * 100 + 4 + 8 = 112 only */
	UNIT_CHECK(last < 112);
}

UNIT_TEST(backoff_change_while_due_does_not_postpone)
{
	struct td_backoff b = { 0 };

	td_backoff_change(&b, &cfg, 100);
	td_backoff_done(&b);
	UNIT_CHECK(td_backoff_change(&b, &cfg, 103) == 105);
	UNIT_CHECK(td_backoff_change(&b, &cfg, 104) == 105);
}

UNIT_TEST(backoff_flapping_goes_long)
{
	struct td_backoff b = { 0 };
	uint64_t last = 0, t, computations = 0, prev = 0;

	/* a cable going up and down every 3 ticks for 200 ticks */
	for (t = 100; t < 300; t++) {
		if (t % 3 == 0)
			td_backoff_change(&b, &cfg, t);
		if (run_due(&b, t, &last) != prev) {
			computations++;
			prev = last;
		}
	}
	UNIT_CHECK(b.state == TD_BACKOFF_LONG_WAIT);
	/* about 20 / 3 short ones while learning, then one per 40 ticks */
	UNIT_CHECK(computations >= 6 && computations <= 12);
	/* once long, a change waits the long wait */
	td_backoff_done(&b);
	UNIT_CHECK(td_backoff_change(&b, &cfg, 300) == 340);
}

UNIT_TEST(backoff_quiet_again_after_holddown)
{
	struct td_backoff b = { 0 };
	uint64_t t;

	for (t = 100; t < 160; t += 2) {
		td_backoff_change(&b, &cfg, t);
		td_backoff_done(&b);
	}
	UNIT_CHECK(b.state == TD_BACKOFF_LONG_WAIT);
	/* a quiet holddown later, a change is computed at the initial wait */
	UNIT_CHECK(td_backoff_change(&b, &cfg, 158 + cfg.holddown) ==
		   158 + cfg.holddown + cfg.initial);
	UNIT_CHECK(b.state == TD_BACKOFF_SHORT_WAIT);
	UNIT_STREQ(td_backoff_state_name(b.state), "short-wait");
}

static const struct unit_case cases[] = {
	UNIT_CASE(backoff_coalesces_one_tick_of_reports),
	UNIT_CASE(backoff_follows_a_burst_closely),
	UNIT_CASE(backoff_change_while_due_does_not_postpone),
	UNIT_CASE(backoff_flapping_goes_long),
	UNIT_CASE(backoff_quiet_again_after_holddown),
};

UNIT_MAIN(cases)
