// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * holdoff.c - the wait between route computations (holdoff.h)
 */
#include "holdoff.h"
#include "options.h"

/* @since_ticks: how long after the last holdoff ran out */
static unsigned int next_ms(struct td_holdoff *h, bool quiet,
			    uint64_t since_ticks, unsigned int tick_ms)
{
	unsigned int ms = h->ms;
	uint64_t step;

	if (!ms)
		return TD_HOLDOFF_MS;
	if (!quiet) {
		if (ms <= TD_HOLDOFF_MS && h->busy < TD_HOLDOFF_FREE) {
			h->busy++;
			return TD_HOLDOFF_MS;
		}
		return ms < TD_HOLDOFF_MAX_MS ? 2 * ms : TD_HOLDOFF_MAX_MS;
	}
	h->busy = 0;
	ms /= 2;
	while (ms > TD_HOLDOFF_MS) {
		step = (uint64_t)td_ms_to_ticks(ms, tick_ms);
		if (since_ticks < step)
			break;
		since_ticks -= step;
		ms /= 2;
	}
	return ms > TD_HOLDOFF_MS ? ms : TD_HOLDOFF_MS;
}

void td_holdoff_change(struct td_holdoff *h, uint64_t now)
{
	if (!h->pending)
		h->pending_tick = now;
	h->pending = true;
}

bool td_holdoff_due(const struct td_holdoff *h, uint64_t now)
{
	return h->pending && now >= h->next_tick;
}

bool td_holdoff_start(struct td_holdoff *h)
{
	h->pending = false;
	return h->pending_tick >= h->next_tick;
}

void td_holdoff_ran(struct td_holdoff *h, uint64_t now, bool quiet,
		    unsigned int tick_ms)
{
	h->ms = next_ms(h, quiet, now - h->next_tick, tick_ms);
	h->next_tick = now + (uint64_t)td_ms_to_ticks(h->ms, tick_ms);
}

void td_holdoff_retry(struct td_holdoff *h, uint64_t now, uint64_t ticks)
{
	h->pending = true;
	h->pending_tick = now;
	h->next_tick = now + ticks;
}

uint64_t td_backoff_ticks(unsigned int fails, uint64_t base, uint64_t max)
{
	uint64_t t = base ? base : 1;

	while (fails-- > 1 && t < max)
		t *= 2;
	return t < max ? t : max;
}

uint64_t td_holdoff_next_tick(const struct td_holdoff *h)
{
	return h->pending ? h->next_tick : UINT64_MAX;
}
