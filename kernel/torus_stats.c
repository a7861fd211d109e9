// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU 64-bit counters shared by node devices, ports and torports.
 */
#include <linux/percpu.h>

#include "torus_priv.h"

struct torus_pcpu_stats __percpu *torus_stats_alloc(void)
{
	struct torus_pcpu_stats __percpu *p;
	int cpu;

	p = alloc_percpu_gfp(struct torus_pcpu_stats, GFP_KERNEL);
	if (!p)
		return NULL;
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(p, cpu)->syncp);
	return p;
}

void torus_stats_read(struct torus_pcpu_stats __percpu *p,
		      struct torus_stats *out)
{
	int cpu, i;

	memset(out, 0, sizeof(*out));
	for_each_possible_cpu(cpu) {
		const struct torus_pcpu_stats *s = per_cpu_ptr(p, cpu);
		u64 rxp, rxb, txp, txb, fwd, drop[__TORUS_DROP_MAX];
		unsigned int start;

		do {
			start = u64_stats_fetch_begin(&s->syncp);
			rxp = u64_stats_read(&s->rx_packets);
			rxb = u64_stats_read(&s->rx_bytes);
			txp = u64_stats_read(&s->tx_packets);
			txb = u64_stats_read(&s->tx_bytes);
			fwd = u64_stats_read(&s->fwd_packets);
			for (i = 0; i < __TORUS_DROP_MAX; i++)
				drop[i] = u64_stats_read(&s->drops[i]);
		} while (u64_stats_fetch_retry(&s->syncp, start));

		out->rx_packets += rxp;
		out->rx_bytes += rxb;
		out->tx_packets += txp;
		out->tx_bytes += txb;
		out->fwd_packets += fwd;
		for (i = 0; i < __TORUS_DROP_MAX; i++) {
			out->drop[i] += drop[i];
			out->drops += drop[i];
		}
	}
}

/* Counts racing with a reset may survive it; a reset is for humans. */
void torus_stats_reset(struct torus_pcpu_stats __percpu *p)
{
	int cpu, i;

	for_each_possible_cpu(cpu) {
		struct torus_pcpu_stats *s = per_cpu_ptr(p, cpu);

		local_bh_disable();
		u64_stats_update_begin(&s->syncp);
		u64_stats_set(&s->rx_packets, 0);
		u64_stats_set(&s->rx_bytes, 0);
		u64_stats_set(&s->tx_packets, 0);
		u64_stats_set(&s->tx_bytes, 0);
		u64_stats_set(&s->fwd_packets, 0);
		for (i = 0; i < __TORUS_DROP_MAX; i++)
			u64_stats_set(&s->drops[i], 0);
		u64_stats_update_end(&s->syncp);
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
