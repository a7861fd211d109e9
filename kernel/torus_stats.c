// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU 64-bit counters shared by node devices, ports and torports.
 */
#include <linux/percpu.h>
#include <linux/rtnetlink.h>

#include "torus_priv.h"

struct torus_pcpu_stats __percpu *torus_stats_alloc(void)
{
	struct torus_pcpu_stats __percpu *p;
	int cpu;

	p = alloc_percpu_gfp(struct torus_pcpu_stats, GFP_KERNEL);
	if (!p)
		return NULL;
	for_each_possible_cpu(cpu) {
		u64_stats_init(&per_cpu_ptr(p, cpu)->syncp);
		u64_stats_init(&per_cpu_ptr(p, cpu)->base_syncp);
	}
	return p;
}

/* One CPU's counters since it started, without the reset baseline. */
static void torus_stats_fetch(const struct torus_pcpu_stats *s,
			      struct torus_stats *c)
{
	unsigned int start;
	int i;

	do {
		start = u64_stats_fetch_begin(&s->syncp);
		c->rx_packets = u64_stats_read(&s->rx_packets);
		c->rx_bytes = u64_stats_read(&s->rx_bytes);
		c->tx_packets = u64_stats_read(&s->tx_packets);
		c->tx_bytes = u64_stats_read(&s->tx_bytes);
		c->fwd_packets = u64_stats_read(&s->fwd_packets);
		c->detours = u64_stats_read(&s->detours);
		for (i = 0; i < __TORUS_DROP_MAX; i++)
			c->drop[i] = u64_stats_read(&s->drops[i]);
	} while (u64_stats_fetch_retry(&s->syncp, start));
}

static void torus_stats_fetch_base(const struct torus_pcpu_stats *s,
				   struct torus_stats *b)
{
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(&s->base_syncp);
		*b = s->base;
	} while (u64_stats_fetch_retry(&s->base_syncp, start));
}

/* A counter since the baseline: never "negative", whatever the race. */
static u64 torus_stats_since(u64 counter, u64 base)
{
	return counter > base ? counter - base : 0;
}

void torus_stats_read(struct torus_pcpu_stats __percpu *p,
		      struct torus_stats *out)
{
	int cpu, i;

	memset(out, 0, sizeof(*out));
	for_each_possible_cpu(cpu) {
		const struct torus_pcpu_stats *s = per_cpu_ptr(p, cpu);
		struct torus_stats c, b;

		torus_stats_fetch_base(s, &b);
		/* the baseline before the counters: it is a snapshot of
		 * counters that only grow, so counters read after it are
		 * never below it, even when a reset moves it up in between
		 * (and torus_stats_since() holds the line if they were)
		 */
		smp_rmb();
		torus_stats_fetch(s, &c);
		out->rx_packets += torus_stats_since(c.rx_packets,
						     b.rx_packets);
		out->rx_bytes += torus_stats_since(c.rx_bytes, b.rx_bytes);
		out->tx_packets += torus_stats_since(c.tx_packets,
						     b.tx_packets);
		out->tx_bytes += torus_stats_since(c.tx_bytes, b.tx_bytes);
		out->fwd_packets += torus_stats_since(c.fwd_packets,
						      b.fwd_packets);
		out->detours += torus_stats_since(c.detours, b.detours);
		for (i = 0; i < __TORUS_DROP_MAX; i++) {
			u64 d = torus_stats_since(c.drop[i], b.drop[i]);

			out->drop[i] += d;
			out->drops += d;
		}
	}
}

/*
 * Zero what readers see by moving the baseline up to the counters: the
 * counters themselves belong to their CPUs (u64_stats' single writer),
 * so a reset never writes them.  Resets are serialized by RTNL.
 */
void torus_stats_reset(struct torus_pcpu_stats __percpu *p)
{
	int cpu;

	ASSERT_RTNL();
	for_each_possible_cpu(cpu) {
		struct torus_pcpu_stats *s = per_cpu_ptr(p, cpu);
		struct torus_stats c;

		torus_stats_fetch(s, &c);
		local_bh_disable();
		u64_stats_update_begin(&s->base_syncp);
		s->base = c;
		u64_stats_update_end(&s->base_syncp);
		local_bh_enable();
	}
}

void torus_stats_rx(struct torus_pcpu_stats __percpu *p, unsigned int len)
{
	struct torus_pcpu_stats *s = this_cpu_ptr(p);

	u64_stats_update_begin(&s->syncp);
	u64_stats_inc(&s->rx_packets);
	u64_stats_add(&s->rx_bytes, len);
	u64_stats_update_end(&s->syncp);
}

void torus_stats_tx(struct torus_pcpu_stats __percpu *p, unsigned int len)
{
	struct torus_pcpu_stats *s = this_cpu_ptr(p);

	u64_stats_update_begin(&s->syncp);
	u64_stats_inc(&s->tx_packets);
	u64_stats_add(&s->tx_bytes, len);
	u64_stats_update_end(&s->syncp);
}

void torus_stats_fwd(struct torus_pcpu_stats __percpu *p)
{
	struct torus_pcpu_stats *s = this_cpu_ptr(p);

	u64_stats_update_begin(&s->syncp);
	u64_stats_inc(&s->fwd_packets);
	u64_stats_update_end(&s->syncp);
}

void torus_stats_drop(struct torus_pcpu_stats __percpu *p,
		      enum torus_drop_reason reason)
{
	struct torus_pcpu_stats *s = this_cpu_ptr(p);

	if (WARN_ON_ONCE(reason >= __TORUS_DROP_MAX))
		reason = TORUS_DROP_MALFORMED;
	u64_stats_update_begin(&s->syncp);
	u64_stats_inc(&s->drops[reason]);
	u64_stats_update_end(&s->syncp);
}

void torus_stats_detour(struct torus_pcpu_stats __percpu *p)
{
	struct torus_pcpu_stats *s = this_cpu_ptr(p);

	u64_stats_update_begin(&s->syncp);
	u64_stats_inc(&s->detours);
	u64_stats_update_end(&s->syncp);
}
