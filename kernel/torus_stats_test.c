// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: per-CPU counters and their reset.
 */
#include <kunit/test.h>
#include <linux/rtnetlink.h>

#include "torus_priv.h"

/* As the data path counts: in softirq context, on this CPU. */
static void torus_count_rx(struct torus_pcpu_stats __percpu *p,
			   unsigned int frames, unsigned int len)
{
	local_bh_disable();
	while (frames--)
		torus_stats_rx(p, len);
	torus_stats_drop(p, TORUS_DROP_HOP_LIMIT);
	local_bh_enable();
}

/* The sum of every CPU's own rx_packets counter, baseline ignored. */
static u64 torus_raw_rx_packets(struct torus_pcpu_stats __percpu *p)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += u64_stats_read(&per_cpu_ptr(p, cpu)->rx_packets);
	return sum;
}

static void torus_stats_reset_keeps_counters(struct kunit *test)
{
	struct torus_pcpu_stats __percpu *p = torus_stats_alloc();
	struct torus_stats st;
	u64 raw;

	KUNIT_ASSERT_NOT_NULL(test, p);
	torus_count_rx(p, 3, 100);
	torus_stats_read(p, &st);
	KUNIT_EXPECT_EQ(test, st.rx_packets, 3ULL);
	KUNIT_EXPECT_EQ(test, st.rx_bytes, 300ULL);
	KUNIT_EXPECT_EQ(test, st.drop[TORUS_DROP_HOP_LIMIT], 1ULL);
	raw = torus_raw_rx_packets(p);

	rtnl_lock();
	torus_stats_reset(p);
	rtnl_unlock();

	/* readers see zero ... */
	torus_stats_read(p, &st);
	KUNIT_EXPECT_EQ(test, st.rx_packets, 0ULL);
	KUNIT_EXPECT_EQ(test, st.rx_bytes, 0ULL);
	KUNIT_EXPECT_EQ(test, st.drops, 0ULL);
	KUNIT_EXPECT_EQ(test, st.drop[TORUS_DROP_HOP_LIMIT], 0ULL);
	/* ... while the CPUs' counters, written by their CPU only, stay */
	KUNIT_EXPECT_EQ(test, torus_raw_rx_packets(p), raw);

	torus_count_rx(p, 2, 10);
	torus_stats_read(p, &st);
	KUNIT_EXPECT_EQ(test, st.rx_packets, 2ULL);
	KUNIT_EXPECT_EQ(test, st.rx_bytes, 20ULL);
	KUNIT_EXPECT_EQ(test, st.drops, 1ULL);

	rtnl_lock();
	torus_stats_reset(p);
	torus_stats_reset(p);
	rtnl_unlock();
	torus_stats_read(p, &st);
	KUNIT_EXPECT_EQ(test, st.rx_packets, 0ULL);
	free_percpu(p);
}

/*
 * What a reader caught between a reset's two steps may find: a baseline
 * above the counters.  It reads zero, never a counter wrapped to ~2^64.
 */
static void torus_stats_baseline_above_counters(struct kunit *test)
{
	struct torus_pcpu_stats __percpu *p = torus_stats_alloc();
	struct torus_pcpu_stats *s;
	struct torus_stats st;

	KUNIT_ASSERT_NOT_NULL(test, p);
	torus_count_rx(p, 3, 100);
	s = per_cpu_ptr(p, raw_smp_processor_id());
	s->base.rx_packets = u64_stats_read(&s->rx_packets) + 5;
	s->base.rx_bytes = u64_stats_read(&s->rx_bytes) + 500;
	s->base.drop[TORUS_DROP_HOP_LIMIT] =
		u64_stats_read(&s->drops[TORUS_DROP_HOP_LIMIT]) + 1;
	torus_stats_read(p, &st);
	KUNIT_EXPECT_EQ(test, st.rx_packets, 0ULL);
	KUNIT_EXPECT_EQ(test, st.rx_bytes, 0ULL);
	KUNIT_EXPECT_EQ(test, st.drop[TORUS_DROP_HOP_LIMIT], 0ULL);
	KUNIT_EXPECT_EQ(test, st.drops, 0ULL);
	free_percpu(p);
}

static struct kunit_case torus_stats_test_cases[] = {
	KUNIT_CASE(torus_stats_reset_keeps_counters),
	KUNIT_CASE(torus_stats_baseline_above_counters),
	{}
};

static struct kunit_suite torus_stats_test_suite = {
	.name = "torus_stats",
	.test_cases = torus_stats_test_cases,
};

kunit_test_suite(torus_stats_test_suite);
