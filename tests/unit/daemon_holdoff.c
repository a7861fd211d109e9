// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * daemon_holdoff.c - unit tests of daemon/holdoff.c: when torusd's route
 * computations run while link-state changes arrive
 */
#include "holdoff.h"
#include "unit.h"

#define TICK_MS	50

/*
 * Changes seen at the ticks @changes (ascending); a computation runs at
 * every tick where one is due, as routes_service() does.  Fills @ran
 * with the ticks computations ran at; returns how many.
 */
static int replay(struct td_holdoff *h, const uint64_t *changes, int n,
		  uint64_t from, uint64_t until, uint64_t *ran, int max)
{
	int c = 0, k = 0;
	uint64_t t;
	bool quiet;

	for (t = from; t <= until; t++) {
		while (c < n && changes[c] == t) {
			td_holdoff_change(h, t);
			c++;
		}
		if (!td_holdoff_due(h, t))
			continue;
		quiet = td_holdoff_start(h);
		td_holdoff_ran(h, t, quiet, TICK_MS);
		if (k < max)
			ran[k] = t;
		k++;
	}
	return k;
}

UNIT_TEST(holdoff_first_change_at_once)
{
	struct td_holdoff h = { 0 };
	const uint64_t ch[] = { 10 };
	uint64_t ran[4];

	UNIT_CHECK(td_holdoff_next_tick(&h) == UINT64_MAX);
	UNIT_CHECK(replay(&h, ch, 1, 0, 100, ran, 4) == 1 && ran[0] == 10);
	UNIT_CHECK(h.ms == TD_HOLDOFF_MS);
	UNIT_CHECK(td_holdoff_next_tick(&h) == UINT64_MAX);
}

/*
 * changes during a holdoff wait for it; after TD_HOLDOFF_FREE holdoffs
 * with changes the holdoff doubles
 */
UNIT_TEST(holdoff_burst_doubles)
{
	struct td_holdoff h = { 0 };
	const uint64_t ch[] = { 10, 11, 13, 15, 17, 19, 23 };
	uint64_t ran[10];
	int n = replay(&h, ch, 7, 0, 200, ran, 10);

	/* at once; three times 100 ms later; then 200 ms; then 400 ms */
	UNIT_CHECK(n == 7);
	UNIT_CHECK(ran[0] == 10 && ran[1] == 12 && ran[2] == 14 &&
		   ran[3] == 16 && ran[4] == 18 && ran[5] == 22 &&
		   ran[6] == 30);
}

/* a fault after a quiet holdoff is computed at once, even soon after */
UNIT_TEST(holdoff_separate_faults_at_once)
{
	struct td_holdoff h = { 0 };
	/* a kill's records over 150 ms, another kill 0.6 s later */
	const uint64_t ch[] = { 10, 11, 13, 25, 26, 28 };
	uint64_t ran[8];
	int n = replay(&h, ch, 6, 0, 200, ran, 8);

	/* 10, 12, 14 for the first; 25 at once, 27, 29 for the second */
	UNIT_CHECK(n == 6);
	UNIT_CHECK(ran[0] == 10 && ran[3] == 25);
	/* the second burst's last record waits 100 ms at most */
	UNIT_CHECK(ran[n - 1] <= 28 + TD_HOLDOFF_MS / TICK_MS);
}

/* a change every tick: computations at most every 3.2 s */
UNIT_TEST(holdoff_storm_is_bounded)
{
	static uint64_t ch[600];
	struct td_holdoff h = { 0 };
	uint64_t ran[64];
	int i, n;

	for (i = 0; i < 600; i++)
		ch[i] = 100 + (uint64_t)i;
	n = replay(&h, ch, 600, 0, 700, ran, 64);
	/* 30 s of storm: 100 ms 4 times, 200, ... 3200, then every 3.2 s */
	UNIT_CHECK(n > 9 && n <= 10 + 30000 / TD_HOLDOFF_MAX_MS + 1);
	UNIT_CHECK(h.ms == TD_HOLDOFF_MAX_MS);
	for (i = 10; i < n && i < 64; i++)
		UNIT_CHECK(ran[i] - ran[i - 1] >= TD_HOLDOFF_MAX_MS / TICK_MS);
}

/* after a storm, the holdoff comes down by halves as quiet goes on */
UNIT_TEST(holdoff_decays)
{
	static uint64_t ch[200];
	struct td_holdoff h = { 0 };
	uint64_t ran[64], end, late[1];
	int i;

	for (i = 0; i < 200; i++)
		ch[i] = 100 + (uint64_t)i;
	/* until the storm's last change is computed too */
	replay(&h, ch, 200, 0, 400, ran, 64);
	UNIT_CHECK(h.ms == TD_HOLDOFF_MAX_MS && !h.pending);
	end = h.next_tick;
	/* quiet for the holdoff only: at once, then 1.6 s */
	late[0] = end;
	UNIT_CHECK(replay(&h, late, 1, end, end, ran, 1) == 1 &&
		   ran[0] == end);
	UNIT_CHECK(h.ms == TD_HOLDOFF_MAX_MS / 2);
	/* quiet for 6.4 s more: back to the start */
	end = h.next_tick + 6400 / TICK_MS;
	late[0] = end;
	UNIT_CHECK(replay(&h, late, 1, end, end, ran, 1) == 1);
	UNIT_CHECK(h.ms == TD_HOLDOFF_MS);
}

/* a failed computation retries at its own time, holdoff unchanged */
UNIT_TEST(holdoff_retry)
{
	struct td_holdoff h = { 0 };

	td_holdoff_change(&h, 5);
	UNIT_CHECK(td_holdoff_due(&h, 5));
	UNIT_CHECK(td_holdoff_start(&h));
	td_holdoff_retry(&h, 5, 20);
	UNIT_CHECK(!td_holdoff_due(&h, 24) && td_holdoff_due(&h, 25));
	UNIT_CHECK(td_holdoff_next_tick(&h) == 25 && h.ms == 0);
}

/* retries after failures in a row double, up to the cap */
UNIT_TEST(backoff_doubles_to_cap)
{
	UNIT_CHECK(td_backoff_ticks(0, 20, 600) == 20);
	UNIT_CHECK(td_backoff_ticks(1, 20, 600) == 20);
	UNIT_CHECK(td_backoff_ticks(2, 20, 600) == 40);
	UNIT_CHECK(td_backoff_ticks(3, 20, 600) == 80);
	UNIT_CHECK(td_backoff_ticks(5, 20, 600) == 320);
	UNIT_CHECK(td_backoff_ticks(6, 20, 600) == 600);
	UNIT_CHECK(td_backoff_ticks(1000, 20, 600) == 600);
	UNIT_CHECK(td_backoff_ticks(UINT32_MAX, 20, 600) == 600);
}

static const struct unit_case cases[] = {
	UNIT_CASE(holdoff_first_change_at_once),
	UNIT_CASE(holdoff_burst_doubles),
	UNIT_CASE(holdoff_separate_faults_at_once),
	UNIT_CASE(holdoff_storm_is_bounded),
	UNIT_CASE(holdoff_decays),
	UNIT_CASE(holdoff_retry),
	UNIT_CASE(backoff_doubles_to_cap),
};

UNIT_MAIN(cases)
