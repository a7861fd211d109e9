// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of daemon/core/tcore_ls.c: link state on small fabrics of
 * real core nodes (discovery included), run in synchronous rounds.
 * Nodes are cabled label = global direction, so the frame's axes are
 * the truth's and only a translation separates the two.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tcore.h"
#include "tcore_wire.h"
#include "troute.h"
#include "unit.h"

#define LX_MAX	64
#define LQ_MAX	(LX_MAX * 4 * 64)
#define LSETTLE	60	/* rounds to place every node; faults after */

struct lmsg {
	int dst;
	uint8_t port;
	uint16_t len;
	uint8_t data[TC_MSG_MAX];
};

struct lfab {
	int w, h, nn;
	bool wrap;
	struct tc_node *node[LX_MAX];
	bool dead[LX_MAX];	/* daemon gone, cables keep carrier */
	bool off[LX_MAX];	/* not started yet */
	bool cut[LX_MAX][4];
	int loss_permille;
	uint16_t refresh, max_age;	/* 0: 20 and 64 ticks */
	uint64_t rng;
	struct lmsg *q[2];
	int nq[2], cur, sender;
};

static struct lfab L;

static int lidx(const struct lfab *f, int x, int y)
{
	return ((y + f->h) % f->h) * f->w + (x + f->w) % f->w;
}

/* the node across global direction @g of @u, -1 off a mesh edge */
static int lpeer(const struct lfab *f, int u, uint8_t g)
{
	int x = u % f->w, y = u / f->w, d = (g & 1) ? -1 : 1;

	if (g >> 1)
		y += d;
	else
		x += d;
	if (!f->wrap && (x < 0 || x >= f->w || y < 0 || y >= f->h))
		return -1;
	return lidx(f, x, y);
}

static bool lcarrier(const struct lfab *f, int u, uint8_t g)
{
	int v = lpeer(f, u, g);

	return v >= 0 && !f->cut[u][g] && !f->off[u] && !f->off[v];
}

static void lsend(void *ctx, uint8_t port, const uint8_t *data, size_t len)
{
	struct lfab *f = ctx;
	int u = f->sender, v = lpeer(f, u, port);
	struct lmsg *m;

	if (v < 0 || !lcarrier(f, u, port) || f->nq[f->cur ^ 1] >= LQ_MAX)
		return;
	f->rng = f->rng * 6364136223846793005ULL + 1442695040888963407ULL;
	if (f->loss_permille && (int)((f->rng >> 33) % 1000) < f->loss_permille)
		return;
	m = &f->q[f->cur ^ 1][f->nq[f->cur ^ 1]++];
	m->dst = v;
	m->port = port ^ 1;
	m->len = (uint16_t)len;
	memcpy(m->data, data, len);
}

static struct tc_config lcfg(const struct lfab *f, int u, uint32_t records)
{
	struct tc_config c;
	uint8_t g;

	memset(&c, 0, sizeof(c));
	c.id = 1000 + (uint64_t)u;
	c.ndims = 2;
	/* a mesh's edge nodes have no connector outward */
	for (g = 0; g < 4; g++)
		if (lpeer(f, u, g) >= 0)
			c.ports |= (uint16_t)(1u << g);
	c.hello_ticks = 2;
	c.dead_ticks = 7;
	c.quiet_ticks = 12;
	c.ls_records = records;
	c.ls_refresh_ticks = f->refresh ? f->refresh : 20;
	c.ls_max_age_ticks = f->max_age ? f->max_age : 64;
	return c;
}

static void lstart(struct lfab *f, int u)
{
	struct tc_output out = { f, lsend };
	struct tc_config c = lcfg(f, u, 0);
	uint8_t g;

	f->off[u] = false;
	tc_node_init(f->node[u], &c, &out);
	for (g = 0; g < 4; g++) {
		int v = lpeer(f, u, g);

		if (!lcarrier(f, u, g))
			continue;
		tc_port_state(f->node[u], g, true);
		if (!f->dead[v])
			tc_port_state(f->node[v], g ^ 1, true);
	}
}

static void lsetup(struct lfab *f, int w, int h, bool wrap, uint32_t records)
{
	struct tc_config c;
	int u;

	memset(f, 0, sizeof(*f));
	f->w = w;
	f->h = h;
	f->nn = w * h;
	f->wrap = wrap;
	f->rng = 1;
	f->q[0] = calloc(LQ_MAX, sizeof(struct lmsg));
	f->q[1] = calloc(LQ_MAX, sizeof(struct lmsg));
	for (u = 0; u < f->nn; u++) {
		struct tc_output out = { f, lsend };

		c = lcfg(f, u, records);
		f->node[u] = calloc(1, tc_node_size(&c));
		tc_node_init(f->node[u], &c, &out);
	}
	for (u = 0; u < f->nn; u++) {
		uint8_t g;

		for (g = 0; g < 4; g++)
			if (lcarrier(f, u, g))
				tc_port_state(f->node[u], g, true);
	}
}

static void lfree(struct lfab *f)
{
	int u;

	for (u = 0; u < f->nn; u++)
		free(f->node[u]);
	free(f->q[0]);
	free(f->q[1]);
}

static void lfab_round(struct lfab *f)
{
	int i, u, c = f->cur;

	for (i = 0; i < f->nq[c]; i++) {
		struct lmsg *m = &f->q[c][i];

		if (f->dead[m->dst] || f->off[m->dst])
			continue;
		tc_receive(f->node[m->dst], m->port, m->data, m->len);
	}
	f->nq[c] = 0;
	for (u = 0; u < f->nn; u++) {
		if (f->dead[u] || f->off[u])
			continue;
		f->sender = u;
		tc_tick(f->node[u]);
	}
	/* the next round delivers what this one sent */
	f->cur = c ^ 1;
}

static void lrun(struct lfab *f, int rounds)
{
	while (rounds-- > 0)
		lfab_round(f);
}

static void lcut(struct lfab *f, int u, uint8_t g, bool cut)
{
	int v = lpeer(f, u, g);

	f->cut[u][g] = f->cut[v][g ^ 1] = cut;
	if (!f->dead[u])
		tc_port_state(f->node[u], g, !cut);
	if (!f->dead[v])
		tc_port_state(f->node[v], g ^ 1, !cut);
}

static bool lplaced(const struct lfab *f, int u)
{
	struct tc_view v;

	tc_view(f->node[u], &v);
	return v.state == TC_PLACED;
}

/* the frame coordinates of node @u: the truth's, translated */
static void lcoord(const struct lfab *f, int u, uint8_t *c)
{
	struct tc_view v;
	int r, dx = 0, dy = 0;

	for (r = 0; r < f->nn - 1; r++)
		if (!f->dead[r] && !f->off[r] && lplaced(f, r))
			break;
	tc_view(f->node[r], &v);
	dx = v.coord[0] - r % f->w;
	dy = v.coord[1] - r / f->w;
	c[0] = (uint8_t)(((u % f->w + dx) % f->w + f->w) % f->w);
	c[1] = (uint8_t)(((u / f->w + dy) % f->h + f->h) % f->h);
}

static int lkey(const struct lfab *f, int u)
{
	uint8_t c[2];

	lcoord(f, u, c);
	return c[0] + f->w * c[1];
}

/*
 * Every live placed node derives exactly the truth: a cable with a live
 * end is cut iff it is cut in the fabric or its other end is dead (a
 * cable between two dead nodes is nobody's to report); a node is dead
 * iff it is dead or cut off from the others.  Returns mismatching nodes.
 */
static int lcheck(const struct lfab *f, int expect_dead)
{
	uint16_t want_cut[LX_MAX], cut[LX_MAX];
	uint8_t want_dead[LX_MAX], dead[LX_MAX];
	int u, bad = 0, checked = 0;
	uint8_t g;

	memset(want_cut, 0, sizeof(want_cut));
	memset(want_dead, 0, sizeof(want_dead));
	for (u = 0; u < f->nn; u++) {
		want_dead[lkey(f, u)] = f->dead[u];
		for (g = 0; g < 4; g++) {
			int v = lpeer(f, u, g);

			/* a cable between two dead nodes has no reporter */
			if (v >= 0 && !(f->dead[u] && f->dead[v]) &&
			    (f->cut[u][g] || f->dead[u] || f->dead[v]))
				want_cut[lkey(f, u)] |= (uint16_t)(1u << g);
		}
	}
	for (u = 0; u < f->nn; u++) {
		struct tc_ls_info info;
		int nd;

		if (f->dead[u])
			continue;
		tc_ls_info(f->node[u], &info);
		if (!info.active || info.nodes != (uint32_t)f->nn) {
			bad++;
			continue;
		}
		nd = tc_ls_faults(f->node[u], dead, cut);
		checked++;
		if (nd != expect_dead || memcmp(dead, want_dead, f->nn) ||
		    memcmp(cut, want_cut, f->nn * sizeof(cut[0]))) {
			if (bad < 3)
				fprintf(stderr,
					"    node %d: %d dead, arrays %s\n", u, nd, memcmp(cut, want_cut,
						      f->nn * sizeof(cut[0])) ?
					"cut differ" : "dead differ");
			bad++;
		}
	}
	return checked ? bad : -1;
}

/* every live node holds the same digest; returns it (0: they differ) */
static uint64_t lsame_digest(const struct lfab *f)
{
	struct tc_ls_info info;
	uint64_t d = 0;
	bool first = true;
	int u;

	for (u = 0; u < f->nn; u++) {
		if (f->dead[u] || f->off[u])
			continue;
		tc_ls_info(f->node[u], &info);
		if (first)
			d = info.digest;
		else if (d != info.digest)
			return 0;
		first = false;
	}
	return d ? d : 1;
}

/* a dead cluster of three on a torus, a cut cable: all agree on truth */
UNIT_TEST(ls_agree_torus)
{
	lsetup(&L, 6, 5, true, 0);
	lrun(&L, LSETTLE);
	L.dead[lidx(&L, 1, 1)] = L.dead[lidx(&L, 2, 1)] = true;
	L.dead[lidx(&L, 3, 1)] = true;	/* (2,1) has no live reporter */
	lcut(&L, lidx(&L, 4, 3), TORUS_DIR(1, 0), true);
	lrun(&L, 80);
	UNIT_CHECK(lcheck(&L, 3) == 0);
	UNIT_CHECK(lsame_digest(&L) > 1);
	lfree(&L);
}

/*
 * The fault set feeds the route computation as it is (troute.h's
 * contract): a DOR path over the cut cable is not usable, one around
 * the faults is, and the survivors stay one component.
 */
UNIT_TEST(ls_faults_feed_routes)
{
	uint16_t cut[LX_MAX];
	uint8_t dead[LX_MAX], a[2], b[2];
	struct troute_faults f;
	struct troute_plan dor;
	struct troute_ctx c;
	struct tc_view v;

	lsetup(&L, 6, 5, true, 0);
	lrun(&L, LSETTLE);
	L.dead[lidx(&L, 1, 1)] = L.dead[lidx(&L, 2, 1)] = true;
	lcut(&L, lidx(&L, 4, 3), TORUS_DIR(1, 0), true);
	lrun(&L, 40);
	tc_view(L.node[0], &v);
	UNIT_CHECK(tc_ls_faults(L.node[0], dead, cut) == 2);
	memset(&f, 0, sizeof(f));
	f.ndims = 2;
	f.dims[0] = v.dims[0];
	f.dims[1] = v.dims[1];
	f.wrap = v.wrap;
	f.dead = dead;
	f.cut = cut;
	UNIT_CHECK(troute_ctx_init(&c, &f) == 0);
	troute_plan_dor(&f, &dor);
	/* one hop over the cut cable: not in one round */
	lcoord(&L, lidx(&L, 4, 3), a);
	lcoord(&L, lidx(&L, 4, 4), b);
	UNIT_CHECK(!troute_reach1(&c, &dor, a[0] + 6u * a[1],
				  b[0] + 6u * b[1]));
	/* along a column without faults: yes */
	lcoord(&L, lidx(&L, 0, 0), a);
	lcoord(&L, lidx(&L, 0, 2), b);
	UNIT_CHECK(troute_reach1(&c, &dor, a[0] + 6u * a[1],
				 b[0] + 6u * b[1]));
	UNIT_CHECK(troute_connected(&c, a[0] + 6u * a[1], b[0] + 6u * b[1]));
	troute_ctx_free(&c);
	lfree(&L);
}

/* a mesh: edge nodes have no cable outward, which is not a fault */
UNIT_TEST(ls_agree_mesh)
{
	lsetup(&L, 5, 4, false, 0);
	lrun(&L, LSETTLE);
	L.dead[lidx(&L, 0, 0)] = true;
	lcut(&L, lidx(&L, 2, 2), TORUS_DIR(0, 0), true);
	lrun(&L, 80);
	UNIT_CHECK(lcheck(&L, 1) == 0);
	lfree(&L);
}

/* a cable cut and restored: the records are withdrawn, then age out */
UNIT_TEST(ls_restore_withdraws)
{
	struct tc_ls_info info;
	uint32_t seq;
	uint16_t mask;
	uint8_t c[2];
	int u, a = lidx(&L, 0, 0);

	lsetup(&L, 4, 4, true, 0);
	lrun(&L, 50);
	lcut(&L, a, TORUS_DIR(0, 0), true);
	lrun(&L, 20);
	UNIT_CHECK(lcheck(&L, 0) == 0);
	tc_ls_info(L.node[lidx(&L, 2, 2)], &info);
	UNIT_CHECK(info.faults == 2);
	lcut(&L, a, TORUS_DIR(0, 0), false);
	lrun(&L, 20);
	lcoord(&L, a, c);
	for (u = 0; u < L.nn; u++) {
		tc_ls_info(L.node[u], &info);
		UNIT_CHECK(info.faults == 0 && info.digest == 0);
		/* a tombstone: the record is there, its mask empty */
		UNIT_CHECK(tc_ls_record(L.node[u], c, &seq, &mask) == 0 &&
			   mask == 0);
	}
	UNIT_CHECK(lcheck(&L, 0) == 0);
	lrun(&L, 64 + 64 / 16 + 2);
	for (u = 0; u < L.nn; u++) {
		tc_ls_info(L.node[u], &info);
		UNIT_CHECK(info.records == 0);
		UNIT_CHECK(tc_ls_record(L.node[u], c, &seq, &mask) == -ENOENT);
	}
	lfree(&L);
}

/* refresh raises the seq everywhere; a dead reporter's record ages out */
UNIT_TEST(ls_refresh_and_aging)
{
	uint32_t seq0, seq1;
	uint16_t mask;
	struct tc_node *far;
	struct tc_stats st;
	uint8_t c[2];
	int a = lidx(&L, 1, 1), b = lidx(&L, 2, 1);

	lsetup(&L, 5, 5, true, 0);
	lrun(&L, LSETTLE);
	far = L.node[lidx(&L, 4, 4)];
	lcut(&L, a, TORUS_DIR(0, 0), true);	/* a -- b */
	lrun(&L, 60);
	lcoord(&L, a, c);
	UNIT_CHECK(tc_ls_record(far, c, &seq0, &mask) == 0 &&
		   mask == 1u << TORUS_DIR(0, 0));
	lrun(&L, 20);		/* one refresh period */
	UNIT_CHECK(tc_ls_record(far, c, &seq1, &mask) == 0 &&
		   seq1 == seq0 + 1);
	/* a dies: its record stays until the maximum age, then goes */
	L.dead[a] = true;
	lrun(&L, 40);
	UNIT_CHECK(tc_ls_record(far, c, &seq1, &mask) == 0 &&
		   mask == 1u << TORUS_DIR(0, 0));
	lrun(&L, 64 + 64 / 16 + 2 - 40 + 20);
	UNIT_CHECK(tc_ls_record(far, c, &seq1, &mask) == -ENOENT);
	tc_get_stats(far, &st);
	UNIT_CHECK(st.ls_expired >= 1);
	/* its neighbours report it: dead, and b's record still has the cut */
	UNIT_CHECK(lcheck(&L, 1) == 0);
	lcoord(&L, b, c);
	UNIT_CHECK(tc_ls_record(far, c, &seq1, &mask) == 0 &&
		   (mask & (1u << TORUS_DIR(0, 1))));
	lfree(&L);
}

/* a node powered on late catches up on the whole database */
UNIT_TEST(ls_late_joiner_syncs)
{
	struct tc_ls_info info;
	int late = lidx(&L, 3, 3), u;

	lsetup(&L, 6, 6, true, 0);
	/* no refresh during the test: only the sync can bring the records */
	L.refresh = 1000;
	L.max_age = 4000;
	L.off[late] = true;
	for (u = 0; u < L.nn; u++)
		if (u != late)
			lstart(&L, u);
	lrun(&L, LSETTLE);
	lcut(&L, lidx(&L, 0, 0), TORUS_DIR(0, 0), true);
	lcut(&L, lidx(&L, 0, 3), TORUS_DIR(1, 0), true);
	lcut(&L, lidx(&L, 5, 1), TORUS_DIR(1, 1), true);
	lrun(&L, 60);
	lstart(&L, late);
	lrun(&L, 40);
	tc_ls_info(L.node[late], &info);
	UNIT_CHECK(info.active && info.faults == 6);
	UNIT_CHECK(lcheck(&L, 0) == 0);
	UNIT_CHECK(lsame_digest(&L) > 1);
	lfree(&L);
}

/*
 * lost messages: refresh and sync still bring everyone to the truth.
 * A 10% loss also makes a neighbour fall silent now and then (a report
 * and its withdrawal, flooded like any other): checked once the
 * records in flight when the loss stops have landed.
 */
UNIT_TEST(ls_agree_with_loss)
{
	lsetup(&L, 5, 5, true, 0);
	lrun(&L, LSETTLE);
	L.loss_permille = 100;
	L.dead[lidx(&L, 2, 2)] = true;
	lcut(&L, lidx(&L, 0, 0), TORUS_DIR(1, 1), true);
	lrun(&L, 200);
	L.loss_permille = 0;
	lrun(&L, 10);
	UNIT_CHECK(lcheck(&L, 1) == 0);
	lfree(&L);
}

/* a bound of 2 records: refused ones are counted, nothing grows past it */
UNIT_TEST(ls_overflow_bounded)
{
	struct tc_ls_info info;
	uint8_t dead[LX_MAX];
	uint16_t cut[LX_MAX];
	struct tc_stats st;
	int u, full = 0;

	lsetup(&L, 6, 6, true, 2);
	lrun(&L, LSETTLE);
	lcut(&L, lidx(&L, 0, 0), TORUS_DIR(0, 0), true);
	lcut(&L, lidx(&L, 0, 2), TORUS_DIR(0, 0), true);
	lcut(&L, lidx(&L, 0, 4), TORUS_DIR(0, 0), true);
	lrun(&L, 60);
	/* a full node refuses and does not forward: some never overflow */
	for (u = 0; u < L.nn; u++) {
		tc_ls_info(L.node[u], &info);
		tc_get_stats(L.node[u], &st);
		/* the table's slack holds a reporter's own record beyond */
		UNIT_CHECK(info.records <= 3 && info.capacity == 2);
		full += st.ls_overflow > 0;
		UNIT_CHECK(!st.ls_overflow || info.incomplete);
		UNIT_CHECK(!st.ls_overflow ||
			   tc_ls_faults(L.node[u], dead, cut) == -ENOSPC);
	}
	UNIT_CHECK(full >= L.nn / 2);
	lfree(&L);
}

/* a bound of one: the table stays probe-able with our own record in */
UNIT_TEST(ls_overflow_bound_one)
{
	struct tc_ls_info info;
	int u;

	lsetup(&L, 4, 4, true, 1);
	lrun(&L, LSETTLE);
	lcut(&L, lidx(&L, 0, 0), TORUS_DIR(0, 0), true);
	lrun(&L, 20);
	/* full already, these two reporters add their own records */
	lcut(&L, lidx(&L, 2, 2), TORUS_DIR(1, 0), true);
	lrun(&L, 30);
	for (u = 0; u < L.nn; u++) {
		tc_ls_info(L.node[u], &info);
		UNIT_CHECK(info.records <= 2);
	}
	lfree(&L);
}

/* a converged 4x4 torus with one cut, and a message builder */
/* the geometry tag of the frame lmsg_setup() converged to */
static uint32_t lgeom;

static struct tc_node *lmsg_setup(uint8_t *port, struct tc_view *v)
{
	struct tc_view nv;
	uint8_t g;

	lsetup(&L, 4, 4, true, 0);
	lrun(&L, LSETTLE);
	lcut(&L, lidx(&L, 0, 0), TORUS_DIR(0, 0), true);
	lrun(&L, 20);
	tc_view(L.node[5], v);
	g = TORUS_DIR(0, 0);
	*port = v->portmap[g];
	tc_view(L.node[lpeer(&L, 5, g)], &nv);
	lgeom = tw_ls_geom(2, v->dims, v->wrap);
	return L.node[5];
}

static size_t lbuild(uint8_t *buf, uint64_t id, uint64_t leader, int nrec,
		     const uint8_t *c, uint32_t seq, uint16_t mask)
{
	struct tw_ls_rec r;
	struct tw_buf b;
	int i;

	tw_ls_init(&b, buf, TC_MSG_MAX, 2, id, leader, lgeom);
	memset(&r, 0, sizeof(r));
	r.coord[0] = c[0];
	r.coord[1] = c[1];
	r.seq = seq;
	r.mask = mask;
	for (i = 0; i < nrec; i++)
		tw_ls_put(&b, 2, &r);
	return b.len;
}

struct lsnap {
	struct tc_ls_info info;
	struct tc_stats st;
};

static void lsnap(struct tc_node *n, struct lsnap *s)
{
	tc_ls_info(n, &s->info);
	tc_get_stats(n, &s->st);
}

/* refused whole, counted, nothing changes; the valid twin is taken */
UNIT_TEST(ls_malformed_refused)
{
	uint8_t buf[TC_MSG_MAX + 8], port, c[2], far[2] = { 4, 2 };
	struct lsnap s0, s1;
	struct tc_node *n;
	struct tc_view v;
	uint64_t nid;
	size_t len;

	n = lmsg_setup(&port, &v);
	lcoord(&L, lidx(&L, 2, 2), c);	/* no reporter there */
	nid = 1000 + (uint64_t)lpeer(&L, 5, TORUS_DIR(0, 0));
	lsnap(n, &s0);
	/* coordinates out of the frame's extents */
	len = lbuild(buf, nid, v.leader, 1, far, 100, 1);
	UNIT_CHECK(tc_receive(n, port, buf, len) == -EBADMSG);
	/* truncated */
	len = lbuild(buf, nid, v.leader, 3, c, 100, 1);
	UNIT_CHECK(tc_receive(n, port, buf, len - 1) == -EBADMSG);
	/* a record count beyond the largest message */
	buf[3] = 200;
	UNIT_CHECK(tc_receive(n, port, buf, TC_MSG_MAX) == -EBADMSG);
	/* a count that claims more than the bytes hold */
	len = lbuild(buf, nid, v.leader, 3, c, 100, 1);
	buf[3] = 4;
	UNIT_CHECK(tc_receive(n, port, buf, len) == -EBADMSG);
	/* trailing bytes that are not padding */
	len = lbuild(buf, nid, v.leader, 1, c, 100, 1);
	buf[len] = 7;
	UNIT_CHECK(tc_receive(n, port, buf, len + 1) == -EBADMSG);
	/* a direction beyond the axes */
	len = lbuild(buf, nid, v.leader, 1, c, 100, 1u << 5);
	UNIT_CHECK(tc_receive(n, port, buf, len) == -EBADMSG);
	/* a wrong version, a zero id */
	len = lbuild(buf, nid, v.leader, 1, c, 100, 1);
	buf[1] = 9;
	UNIT_CHECK(tc_receive(n, port, buf, len) == -EBADMSG);
	len = lbuild(buf, 0, v.leader, 1, c, 100, 1);
	UNIT_CHECK(tc_receive(n, port, buf, len) == -EBADMSG);
	lsnap(n, &s1);
	UNIT_CHECK(s1.st.ls_bad_rx == s0.st.ls_bad_rx + 8);
	UNIT_CHECK(s1.info.generation == s0.info.generation &&
		   s1.info.digest == s0.info.digest &&
		   s1.info.records == s0.info.records);
	/* the well-formed twin, padded like a short Ethernet frame, is taken */
	memset(buf, 0, sizeof(buf));
	len = lbuild(buf, nid, v.leader, 1, c, 100, 1);
	UNIT_CHECK(tc_receive(n, port, buf, len + 8) == 0);
	lsnap(n, &s1);
	UNIT_CHECK(s1.info.records == s0.info.records + 1 &&
		   s1.info.digest != s0.info.digest);
	lfree(&L);
}

/*
 * A full table drops a tombstone of a record it never held, uncounted:
 * it has nothing to cancel.  Before, every such tombstone (staggered
 * boots leave thousands) marked the fault set incomplete.
 */
UNIT_TEST(ls_full_drops_unknown_tombstone)
{
	uint8_t buf[TC_MSG_MAX], port, c[2], g = TORUS_DIR(0, 0);
	struct lsnap s0, s1;
	struct tc_node *n;
	struct tc_view v;
	uint64_t nid;
	size_t len;

	lsetup(&L, 4, 4, true, 2);
	lrun(&L, LSETTLE);
	lcut(&L, lidx(&L, 0, 0), TORUS_DIR(0, 0), true);
	lrun(&L, 30);
	n = L.node[5];
	tc_view(n, &v);
	port = v.portmap[g];
	lgeom = tw_ls_geom(2, v.dims, v.wrap);
	nid = 1000 + (uint64_t)lpeer(&L, 5, g);
	lcoord(&L, lidx(&L, 2, 2), c);	/* not a reporter */
	lsnap(n, &s0);
	UNIT_CHECK(s0.info.records == 2 && !s0.info.incomplete);
	len = lbuild(buf, nid, v.leader, 1, c, 100, 0);
	UNIT_CHECK(tc_receive(n, port, buf, len) == 0);
	lsnap(n, &s1);
	UNIT_CHECK(s1.st.ls_overflow == s0.st.ls_overflow);
	UNIT_CHECK(!s1.info.incomplete && s1.info.records == 2);
	/* a fault it cannot hold is refused and counted */
	len = lbuild(buf, nid, v.leader, 1, c, 100, 1);
	UNIT_CHECK(tc_receive(n, port, buf, len) == 0);
	lsnap(n, &s1);
	UNIT_CHECK(s1.st.ls_overflow == s0.st.ls_overflow + 1);
	UNIT_CHECK(s1.info.incomplete);
	lfree(&L);
}

/* records from a neighbor in another frame, or an impostor, are ignored */
UNIT_TEST(ls_foreign_ignored)
{
	uint8_t buf[TC_MSG_MAX], port, c[2];
	struct lsnap s0, s1;
	struct tc_node *n;
	struct tc_view v;
	uint64_t nid;
	size_t len;

	n = lmsg_setup(&port, &v);
	lcoord(&L, lidx(&L, 2, 2), c);	/* no reporter there */
	nid = 1000 + (uint64_t)lpeer(&L, 5, TORUS_DIR(0, 0));
	lsnap(n, &s0);
	len = lbuild(buf, nid, v.leader + 1, 1, c, 100, 1);
	UNIT_CHECK(tc_receive(n, port, buf, len) == 0);
	len = lbuild(buf, nid + 77, v.leader, 1, c, 100, 1);
	UNIT_CHECK(tc_receive(n, port, buf, len) == 0);
	/* our neighbor still numbered as before its ring grew */
	lgeom ^= 1;
	len = lbuild(buf, nid, v.leader, 1, c, 100, 1);
	lgeom ^= 1;
	UNIT_CHECK(tc_receive(n, port, buf, len) == 0);
	lsnap(n, &s1);
	UNIT_CHECK(s1.st.ls_foreign == s0.st.ls_foreign + 3);
	UNIT_CHECK(s1.info.generation == s0.info.generation &&
		   s1.info.records == s0.info.records);
	/* the same record from the real neighbor in our frame counts */
	len = lbuild(buf, nid, v.leader, 1, c, 100, 1);
	UNIT_CHECK(tc_receive(n, port, buf, len) == 0);
	lsnap(n, &s1);
	UNIT_CHECK(s1.info.records == s0.info.records + 1);
	lfree(&L);
}

/* a node that restarts outbids its own stale record */
UNIT_TEST(ls_restart_outbids_stale)
{
	int a = lidx(&L, 1, 1), u;
	struct tc_ls_info info;

	lsetup(&L, 5, 5, true, 0);
	lrun(&L, LSETTLE);
	lcut(&L, a, TORUS_DIR(1, 0), true);
	lrun(&L, 60);
	/* restarted daemon, cable mended meanwhile: seq starts over */
	lcut(&L, a, TORUS_DIR(1, 0), false);
	lstart(&L, a);
	lrun(&L, 60);
	for (u = 0; u < L.nn; u++) {
		tc_ls_info(L.node[u], &info);
		UNIT_CHECK(info.faults == 0);
	}
	UNIT_CHECK(lcheck(&L, 0) == 0);
	lfree(&L);
}

/* a message of @nrec records of the reporter at @c, seqs and masks given */
static size_t lbuild_seqs(uint8_t *buf, uint64_t id, uint64_t leader,
			  int nrec, const uint8_t *c, const uint32_t *seq,
			  const uint16_t *mask)
{
	struct tw_ls_rec r;
	struct tw_buf b;
	int i;

	tw_ls_init(&b, buf, TC_MSG_MAX, 2, id, leader, lgeom);
	memset(&r, 0, sizeof(r));
	r.coord[0] = c[0];
	r.coord[1] = c[1];
	for (i = 0; i < nrec; i++) {
		r.seq = seq[i];
		r.mask = mask[i];
		tw_ls_put(&b, 2, &r);
	}
	return b.len;
}

/* link-state messages the whole fabric sent so far */
static uint64_t lls_sent(const struct lfab *f)
{
	struct tc_stats st;
	uint64_t sum = 0;
	int u;

	for (u = 0; u < f->nn; u++) {
		tc_get_stats(f->node[u], &st);
		sum += st.ls_msgs_tx;
	}
	return sum;
}

/* a fault-free 4x4 torus; node 5 and its neighbor across +x */
static struct tc_node *lvictim(uint8_t *port, struct tc_view *v,
			       uint64_t *nid)
{
	uint8_t g = TORUS_DIR(0, 0);

	int u;

	lsetup(&L, 4, 4, true, 0);
	/* records outlive the test: what is flooded is the attack's */
	L.max_age = 1000;
	for (u = 0; u < L.nn; u++)
		lstart(&L, u);
	lrun(&L, LSETTLE);
	tc_view(L.node[5], v);
	*port = v->portmap[g];
	*nid = 1000 + (uint64_t)lpeer(&L, 5, g);
	lgeom = tw_ls_geom(2, v->dims, v->wrap);
	return L.node[5];
}

/*
 * A neighbor replays three versions of a far node's record, a third of
 * the sequence space apart, every tick.  In serial number arithmetic
 * each looked newer than the one before and the frame flooded them
 * forever; now the highest wins once, the far node outbids it with a
 * tombstone once, and then nothing more is flooded.
 */
UNIT_TEST(ls_three_versions_settle)
{
	uint32_t seq[3] = { 100, 100 + 0x55555555u, 100 + 0xaaaaaaaau };
	uint16_t mask[3] = { 1, 2, 4 };
	uint8_t buf[TC_MSG_MAX], port, c[2];
	struct tc_ls_info info;
	struct tc_node *n;
	struct tc_view v;
	uint64_t nid, sent;
	size_t len;
	int t, u;

	n = lvictim(&port, &v, &nid);
	lcoord(&L, lidx(&L, 2, 2), c);	/* not adjacent to node 5 */
	len = lbuild_seqs(buf, nid, v.leader, 3, c, seq, mask);
	sent = 0;
	for (t = 0; t < 120; t++) {
		UNIT_CHECK(tc_receive(n, port, buf, len) == 0);
		lfab_round(&L);
		if (t == 59)
			sent = lls_sent(&L);
	}
	/* the last 60 ticks of the attack flooded nothing */
	UNIT_CHECK(lls_sent(&L) == sent);
	/* the far node's own word (no cable down) holds everywhere */
	for (u = 0; u < L.nn; u++) {
		tc_ls_info(L.node[u], &info);
		UNIT_CHECK(info.faults == 0);
	}
	UNIT_CHECK(lcheck(&L, 0) == 0);
	lfree(&L);
}

/*
 * A neighbor replays our own record, three versions a third of the
 * sequence space apart, every tick: we jump past the newest once and
 * originate once, not at every tick.
 */
UNIT_TEST(ls_own_replay_originates_once)
{
	uint32_t seq[3], own, last;
	uint16_t mask[3] = { 1, 2, 4 }, m;
	uint8_t buf[TC_MSG_MAX], port;
	struct tc_ls_info info;
	struct tc_node *n;
	struct tc_view v;
	uint64_t nid;
	int t, u, changes = 0;
	size_t len;

	n = lvictim(&port, &v, &nid);
	/* nothing down: no record of ours yet, sequence number 0 */
	UNIT_CHECK(tc_ls_record(n, v.coord, &own, &m) == -ENOENT);
	own = 0;
	seq[0] = own + 1;
	seq[1] = own + 1 + 0x55555555u;
	seq[2] = own + 1 + 0xaaaaaaaau;
	len = lbuild_seqs(buf, nid, v.leader, 3, v.coord, seq, mask);
	last = own;
	for (t = 0; t < 100; t++) {
		UNIT_CHECK(tc_receive(n, port, buf, len) == 0);
		lfab_round(&L);
		if (tc_ls_record(n, v.coord, &own, &m))
			own = 0;
		if (own != last)
			changes++;
		last = own;
	}
	UNIT_CHECK(changes == 1);
	UNIT_CHECK(own == seq[2] + 1 && m == 0);
	/* and the frame holds our word, not the replayed claims */
	for (u = 0; u < L.nn; u++) {
		tc_ls_info(L.node[u], &info);
		UNIT_CHECK(info.faults == 0);
	}
	lfree(&L);
}

/*
 * A cable's state is believed from its ends only: a neighbor's claim
 * that another neighbor of ours has its cable to us down is ignored
 * (and counted; it is passed on to that neighbor alone), while the
 * neighbor's claim about its own cable is taken.
 */
UNIT_TEST(ls_third_party_claim_ignored)
{
	uint16_t mask = 1u << TORUS_DIR(0, 0);
	uint8_t buf[TC_MSG_MAX], port, c[2];
	struct lsnap s0, s1;
	struct tc_node *n;
	struct tc_view v;
	uint32_t seq = 1000;
	uint64_t nid;
	size_t len;

	n = lvictim(&port, &v, &nid);
	lsnap(n, &s0);
	/* node 6 (across +x) says node 4 (across -x) has its cable to
	 * node 5 down */
	lcoord(&L, 4, c);
	len = lbuild_seqs(buf, nid, v.leader, 1, c, &seq, &mask);
	UNIT_CHECK(tc_receive(n, port, buf, len) == 0);
	/* ... and that node 9 (across +y) has it down */
	mask = 1u << TORUS_DIR(1, 1);
	lcoord(&L, 9, c);
	len = lbuild_seqs(buf, nid, v.leader, 1, c, &seq, &mask);
	UNIT_CHECK(tc_receive(n, port, buf, len) == 0);
	lsnap(n, &s1);
	UNIT_CHECK(s1.st.ls_hearsay == s0.st.ls_hearsay + 2);
	UNIT_CHECK(s1.info.records == s0.info.records &&
		   s1.info.faults == 0 &&
		   s1.info.generation == s0.info.generation);
	lrun(&L, 10);
	UNIT_CHECK(lcheck(&L, 0) == 0);
	/* the claims reached nodes 4 and 9, which outbid them */
	lcoord(&L, 4, c);
	UNIT_CHECK(tc_ls_record(L.node[4], c, &seq, &mask) == 0 &&
		   seq == 1001 && mask == 0);
	/* node 6 about itself: its own word, taken */
	lsnap(n, &s0);
	seq = 2000;
	mask = 1u << TORUS_DIR(1, 1);
	lcoord(&L, 6, c);
	len = lbuild_seqs(buf, nid, v.leader, 1, c, &seq, &mask);
	UNIT_CHECK(tc_receive(n, port, buf, len) == 0);
	lsnap(n, &s1);
	UNIT_CHECK(s1.info.records == s0.info.records + 1 &&
		   s1.info.faults == 1);
	lfree(&L);
}

/* restart @u's daemon on a placed kernel: a fresh core that resumes */
static int lresume(struct lfab *f, int u)
{
	struct tc_view v;

	tc_view(f->node[u], &v);
	lstart(f, u);
	return tc_node_restore(f->node[u], &v);
}

/* nodes whose database holds a cable down (0: no fault anywhere) */
static int lfaulty(const struct lfab *f)
{
	struct tc_ls_info info;
	int u, bad = 0;

	for (u = 0; u < f->nn; u++) {
		if (f->dead[u] || f->off[u])
			continue;
		tc_ls_info(f->node[u], &info);
		bad += info.faults != 0;
	}
	return bad;
}

/*
 * Daemons restarted on placed kernels, one or all at once: until a
 * neighbor has had dead_ticks to speak, its silence is no fault, so no
 * node of the fault-free fabric ever holds a cable down (every record
 * said "all my cables down" at the restart's first tick, and the
 * neighbors routed around it).  A neighbor that stays silent is
 * reported once the settling is over.
 */
UNIT_TEST(ls_resume_reports_no_silence_while_settling)
{
	int a = lidx(&L, 2, 2), b, u, r, worst = 0, settling = 0, at = -1;
	struct tc_ls_info info;
	uint32_t seq;
	uint16_t mask;
	uint8_t c[2];

	lsetup(&L, 5, 5, true, 0);
	lrun(&L, LSETTLE);
	UNIT_CHECK(lcheck(&L, 0) == 0);
	UNIT_CHECK(lresume(&L, a) == 0);
	for (r = 0; r < 40; r++) {
		lfab_round(&L);
		tc_ls_info(L.node[a], &info);
		settling += info.settling;
		if (lfaulty(&L) > worst)
			worst = lfaulty(&L);
	}
	UNIT_CHECK(worst == 0);
	/* settling lasts the frame's first dead_ticks (7), then ends */
	UNIT_CHECK(settling >= 5 && settling <= 7 && !info.settling);
	for (u = 0; u < L.nn; u++)
		UNIT_CHECK(lresume(&L, u) == 0);
	for (r = 0; r < 60; r++) {
		lfab_round(&L);
		if (lfaulty(&L) > worst)
			worst = lfaulty(&L);
	}
	UNIT_CHECK(worst == 0);
	UNIT_CHECK(lcheck(&L, 0) == 0);
	/* its neighbor's daemon gone, cable alive: reported after settling */
	b = lpeer(&L, a, TORUS_DIR(0, 0));
	L.dead[b] = true;
	lrun(&L, 30);
	UNIT_CHECK(lresume(&L, a) == 0);
	lcoord(&L, a, c);
	for (r = 0; r < 20 && at < 0; r++) {
		lfab_round(&L);
		if (!tc_ls_record(L.node[a], c, &seq, &mask) &&
		    (mask & (1u << TORUS_DIR(0, 0))))
			at = r;
	}
	UNIT_CHECK(at >= 5 && at <= 9);
	lrun(&L, 60);
	UNIT_CHECK(lcheck(&L, 1) == 0);
	lfree(&L);
}

/*
 * Every daemon killed at once and started again over the next rounds,
 * as a host restarts them one after the other (CI saw 10% ping loss
 * over such a restart): all started within the settling time less a
 * hello, no node ever holds a cable down.
 */
UNIT_TEST(ls_resume_staggered_within_settling)
{
	int u, r, worst = 0;

	lsetup(&L, 5, 5, true, 0);
	lrun(&L, LSETTLE);
	UNIT_CHECK(lcheck(&L, 0) == 0);
	for (u = 0; u < L.nn; u++)
		L.dead[u] = true;
	lrun(&L, 2);
	for (r = 0; r < 60; r++) {
		/* node u starts at round u % 5: dead_ticks 7, hello 2 */
		for (u = 0; u < L.nn; u++)
			if (L.dead[u] && u % 5 == r) {
				L.dead[u] = false;
				UNIT_CHECK(lresume(&L, u) == 0);
			}
		lfab_round(&L);
		if (lfaulty(&L) > worst)
			worst = lfaulty(&L);
	}
	UNIT_CHECK(worst == 0);
	UNIT_CHECK(lcheck(&L, 0) == 0);
	lfree(&L);
}

static const struct unit_case cases[] = {
	UNIT_CASE(ls_agree_torus),
	UNIT_CASE(ls_faults_feed_routes),
	UNIT_CASE(ls_agree_mesh),
	UNIT_CASE(ls_restore_withdraws),
	UNIT_CASE(ls_refresh_and_aging),
	UNIT_CASE(ls_late_joiner_syncs),
	UNIT_CASE(ls_agree_with_loss),
	UNIT_CASE(ls_overflow_bounded),
	UNIT_CASE(ls_overflow_bound_one),
	UNIT_CASE(ls_full_drops_unknown_tombstone),
	UNIT_CASE(ls_malformed_refused),
	UNIT_CASE(ls_foreign_ignored),
	UNIT_CASE(ls_restart_outbids_stale),
	UNIT_CASE(ls_three_versions_settle),
	UNIT_CASE(ls_own_replay_originates_once),
	UNIT_CASE(ls_third_party_claim_ignored),
	UNIT_CASE(ls_resume_reports_no_silence_while_settling),
	UNIT_CASE(ls_resume_staggered_within_settling),
};

UNIT_MAIN(cases)
