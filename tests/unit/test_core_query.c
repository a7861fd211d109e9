// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of daemon/core/tcore_query.c: the neighbor table and the
 * node's next deadline.  The deadline is checked against the core
 * itself: a small torus runs tick by tick with torusd's timers, and a
 * node must never act (send, or change its view) on a tick before the
 * deadline it announced unless a message reached it meanwhile; nodes
 * die midway so that neighbor time-outs are crossed too.
 */
#include <stdlib.h>
#include <string.h>

#include "tcore.h"
#include "unit.h"

#define QX	4
#define QY	3
#define QN	(QX * QY)
#define QMSGS	(QN * 4 * 4)

struct qmsg {
	int dst;
	uint8_t port;
	uint16_t len;
	uint8_t data[TC_MSG_MAX];
};

struct qfab {
	struct tc_node *node[QN];
	bool lazy;		/* sleep through quiet ticks with tc_skip() */
	uint32_t owed[QN];	/* ticks slept, not yet counted */
	bool dead[QN];
	int sender;
	bool sent[QN];
	struct qmsg q[2][QMSGS];
	int nq[2], cur;
	/* per node: the tick it said it acts next, and input since */
	uint64_t due[QN];
	bool input[QN];
	uint64_t now, acted_early, slept, ticks;
};

static int qidx(int x, int y)
{
	return ((y + QY) % QY) * QX + (x + QX) % QX;
}

/* the node across port @p of node @u, identity wiring */
static int qpeer(int u, uint8_t p)
{
	int x = u % QX, y = u / QX, d = (p & 1) ? -1 : 1;

	return (p >> 1) == 0 ? qidx(x + d, y) : qidx(x, y + d);
}

static void qsend(void *ctx, uint8_t port, const uint8_t *data, size_t len)
{
	struct qfab *f = ctx;
	int u = f->sender, v = qpeer(u, port);
	struct qmsg *m;

	f->sent[u] = true;
	if (f->dead[v] || f->nq[!f->cur] >= QMSGS)
		return;
	m = &f->q[!f->cur][f->nq[!f->cur]++];
	m->dst = v;
	m->port = port ^ 1;
	m->len = (uint16_t)len;
	memcpy(m->data, data, len);
}

static void qfab_init(struct qfab *f)
{
	struct tc_output out = { .ctx = f, .send = qsend };
	int u;
	uint8_t p;

	memset(f, 0, sizeof(*f));
	for (u = 0; u < QN; u++) {
		struct tc_config cfg = {
			.id = 100 + (uint64_t)u * 7,
			.ndims = 2,
			.ports = 0xf,
			/* torusd's defaults at a 50 ms tick */
			.hello_ticks = 10,
			.dead_ticks = 40,
			.quiet_ticks = 30,
		};

		f->node[u] = calloc(1, tc_node_size(&cfg));
		tc_node_init(f->node[u], &cfg, &out);
		for (p = 0; p < 4; p++)
			tc_port_state(f->node[u], p, true);
		f->input[u] = true;
	}
}

static void qfab_free(struct qfab *f)
{
	for (int u = 0; u < QN; u++)
		free(f->node[u]);
}

/* one round: deliver, tick every live node, check each against its due */
static void qfab_round(struct qfab *f)
{
	int i, u, cur = f->cur;

	f->now++;
	for (i = 0; i < f->nq[cur]; i++) {
		struct qmsg *m = &f->q[cur][i];

		if (f->dead[m->dst])
			continue;
		/* the clock catches up before any input */
		if (f->owed[m->dst])
			tc_skip(f->node[m->dst], f->owed[m->dst]);
		f->owed[m->dst] = 0;
		tc_receive(f->node[m->dst], m->port, m->data, m->len);
		f->input[m->dst] = true;
	}
	f->nq[cur] = 0;
	f->cur = !cur;
	for (u = 0; u < QN; u++) {
		uint32_t gen;

		if (f->dead[u])
			continue;
		if (f->lazy && !f->input[u] && f->now < f->due[u]) {
			f->owed[u]++;
			continue;
		}
		if (f->owed[u])
			tc_skip(f->node[u], f->owed[u]);
		f->owed[u] = 0;
		gen = tc_generation(f->node[u]);
		f->sender = u;
		f->sent[u] = false;
		tc_tick(f->node[u]);
		f->ticks++;
		if (!f->input[u] && f->now < f->due[u]) {
			f->slept++;
			if (f->sent[u] || tc_generation(f->node[u]) != gen)
				f->acted_early++;
		}
		f->input[u] = false;
		f->due[u] = f->now + tc_next_deadline(f->node[u]);
	}
}

UNIT_TEST(core_deadline_never_late)
{
	struct qfab *f = malloc(sizeof(*f));
	struct tc_view v;
	int r, placed = 0;

	qfab_init(f);
	for (r = 0; r < 400; r++) {
		/* two nodes die: their neighbors time them out */
		if (r == 150)
			f->dead[qidx(1, 1)] = true;
		if (r == 220)
			f->dead[qidx(3, 0)] = true;
		qfab_round(f);
	}
	for (int u = 0; u < QN; u++) {
		if (f->dead[u])
			continue;
		tc_view(f->node[u], &v);
		placed += v.state == TC_PLACED;
	}
	fprintf(stderr, "    %lu of %lu ticks could sleep, %lu acted early, "
		"%d placed\n", (unsigned long)f->slept,
		(unsigned long)f->ticks, (unsigned long)f->acted_early, placed);
	UNIT_CHECK(placed == QN - 2);
	UNIT_CHECK(f->acted_early == 0);
	/* steady state sleeps through most ticks */
	UNIT_CHECK(f->slept * 2 > f->ticks);
	qfab_free(f);
	free(f);
}

UNIT_TEST(core_deadline_rules)
{
	struct qfab *f = malloc(sizeof(*f));
	struct tc_node *n;
	int r;

	qfab_init(f);
	n = f->node[0];
	/* fresh: something to say at once */
	UNIT_CHECK(tc_next_deadline(n) == 1);
	for (r = 0; r < 200; r++)
		qfab_round(f);
	/* placed and quiet: the next hello (10) or a time-out bounds it */
	UNIT_CHECK(tc_next_deadline(n) >= 1 && tc_next_deadline(n) <= 11);
	/*
	 * Every other node dies: with no input at all, node 0 may sleep to
	 * each deadline it announces and act only then (its hellos, then
	 * its neighbors timing out), and it does act when it said.
	 */
	for (int u = 1; u < QN; u++)
		f->dead[u] = true;
	{
		int acted_early = 0, acted_on_time = 0, t = 0;
		uint32_t gen;

		f->sender = 0;
		while (t < 120) {
			uint32_t d = tc_next_deadline(n), i;

			for (i = 1; i <= d; i++, t++) {
				f->sent[0] = false;
				gen = tc_generation(n);
				tc_tick(n);
				if (f->sent[0] || tc_generation(n) != gen)
					i < d ? acted_early++ : acted_on_time++;
			}
		}
		UNIT_CHECK(acted_early == 0);
		UNIT_CHECK(acted_on_time >= 5);
	}
	/* all dropped: only the hello remains */
	UNIT_CHECK(tc_next_deadline(n) <= 11);
	qfab_free(f);
	free(f);
}

/*
 * Two copies of one history, one ticked every tick, one sleeping
 * through each quiet stretch and skipping it in one call: every time
 * the sleeper acts, it must be exactly where the other one is (view,
 * deadline, what it sent), and at the end too.
 */
UNIT_TEST(core_skip_equals_ticks)
{
	struct qfab *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	struct tc_stats sa, sb;
	struct tc_view va, vb;
	uint64_t skipped = 0, diffs = 0;
	int r, u;

	qfab_init(a);
	qfab_init(b);
	b->lazy = true;
	for (r = 0; r < 400; r++) {
		if (r == 150)
			a->dead[qidx(1, 1)] = b->dead[qidx(1, 1)] = true;
		if (r == 220)
			a->dead[qidx(3, 0)] = b->dead[qidx(3, 0)] = true;
		qfab_round(a);
		qfab_round(b);
		for (u = 0; u < QN; u++) {
			if (b->dead[u])
				continue;
			if (b->owed[u]) {
				skipped++;
				continue;
			}
			tc_view(a->node[u], &va);
			tc_view(b->node[u], &vb);
			tc_get_stats(a->node[u], &sa);
			tc_get_stats(b->node[u], &sb);
			diffs += memcmp(&va, &vb, sizeof(va)) != 0 ||
				 tc_next_deadline(a->node[u]) !=
				 tc_next_deadline(b->node[u]) ||
				 memcmp(&sa, &sb, sizeof(sa)) != 0;
		}
	}
	fprintf(stderr, "    %lu node ticks skipped, %lu differences\n",
		(unsigned long)skipped, (unsigned long)diffs);
	UNIT_CHECK(diffs == 0);
	UNIT_CHECK(skipped * 2 > (uint64_t)r * (QN - 2));
	qfab_free(a);
	qfab_free(b);
	free(a);
	free(b);
}

UNIT_TEST(core_nbr_info)
{
	struct qfab *f = malloc(sizeof(*f));
	struct tc_nbr_info nb;
	struct tc_view v;
	int r;

	qfab_init(f);
	tc_nbr_info(f->node[0], 0, &nb);
	UNIT_CHECK(nb.status == TC_NBR_NONE && nb.carrier && !nb.id);
	for (r = 0; r < 200; r++)
		qfab_round(f);
	tc_view(f->node[0], &v);
	tc_nbr_info(f->node[0], TORUS_DIR(0, 0), &nb);
	UNIT_CHECK(nb.status == TC_NBR_RESOLVED);
	UNIT_CHECK(nb.id == 100 + 1 * 7);
	UNIT_CHECK(nb.peer_port == TORUS_DIR(0, 1));
	UNIT_CHECK(nb.has_frame && nb.placed && nb.leader == v.leader);
	/* its offset is ours plus one step in the frame */
	UNIT_CHECK(nb.offset[0] != v.offset[0] || nb.offset[1] != v.offset[1]);
	/* a port the board lacks */
	tc_nbr_info(f->node[0], TORUS_DIR(2, 0), &nb);
	UNIT_CHECK(nb.status == TC_NBR_NONE && !nb.carrier &&
		   nb.peer_port == TORUS_DIR_NONE);
	qfab_free(f);
	free(f);
}

static const struct unit_case cases[] = {
	UNIT_CASE(core_deadline_never_late),
	UNIT_CASE(core_deadline_rules),
	UNIT_CASE(core_skip_equals_ticks),
	UNIT_CASE(core_nbr_info),
};

UNIT_MAIN(cases)
