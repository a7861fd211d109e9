// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gen_corpus.c - writes the seed corpus of the fuzz harnesses:
 *
 *   gen_corpus DIR    DIR/<harness>/<name> for every harness
 *
 * Every seed is made by the real encoders: the core's messages are the
 * ones real core nodes send while they discover small tori (and node 0's
 * whole life, as fuzz_core replays it); frames come from td_frame_build;
 * netlink replies are built with libmnl the way torus.ko fills them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/torus.h>

#include "frame.h"
#include "gen_corpus.h"
#include "tcore.h"
#include "tcore_wire.h"

void seed_put(struct seed *s, const void *p, size_t n)
{
	if (s->len + n > sizeof(s->buf)) {
		fprintf(stderr, "gen_corpus: seed too long\n");
		exit(1);
	}
	memcpy(s->buf + s->len, p, n);
	s->len += n;
}

void seed_u8(struct seed *s, uint8_t v)
{
	seed_put(s, &v, 1);
}

static void seed_u16(struct seed *s, uint16_t v)
{
	seed_u8(s, (uint8_t)(v >> 8));
	seed_u8(s, (uint8_t)v);
}

void seed_save(const char *dir, const char *harness, const char *name,
	       const struct seed *s)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, harness);
	if (mkdir(path, 0755) && errno != EEXIST) {
		perror(path);
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/%s/%s", dir, harness, name);
	f = fopen(path, "wb");
	if (!f || fwrite(s->buf, 1, s->len, f) != s->len || fclose(f)) {
		perror(path);
		exit(1);
	}
}

/* ---- the core: small tori discovering themselves ---- */

#define FAB_MAX_NODES	27
#define FAB_MAX_MSGS	(FAB_MAX_NODES * TC_MAX_PORTS * TC_MSGS_PER_TICK)
#define FAB_HELLO	4
#define FAB_DEAD	13
#define FAB_QUIET	12
#define FAB_ROUNDS	80
#define CORE_ID		0x7000	/* fuzz_core's node id */

struct fab_msg {
	int dst;
	uint8_t port;
	uint16_t len;
	uint8_t data[TC_MSG_MAX];
};

struct fab {
	int ndims, nn;
	int dims[TC_MAX_AXES];
	bool block_mode;
	struct tc_node *node[FAB_MAX_NODES];
	struct tc_config cfg[FAB_MAX_NODES];
	int sender;
	struct fab_msg q[2][FAB_MAX_MSGS];
	int nq[2], cur;
	struct seed life;	/* node 0's inputs, fuzz_core's format */
	const char *dir, *name;
	unsigned int nwire, nsent;
};

static void fab_coord(const struct fab *f, int u, int *c)
{
	int a;

	for (a = 0; a < f->ndims; a++) {
		c[a] = u % f->dims[a];
		u /= f->dims[a];
	}
}

static int fab_index(const struct fab *f, const int *c)
{
	int a, u = 0;

	for (a = f->ndims - 1; a >= 0; a--)
		u = u * f->dims[a] + c[a];
	return u;
}

/* a torus cabled straight: port +a goes to the next node's port -a */
static int fab_peer(const struct fab *f, int u, int port)
{
	int c[TC_MAX_AXES], a = port >> 1;

	fab_coord(f, u, c);
	c[a] = (c[a] + ((port & 1) ? f->dims[a] - 1 : 1)) % f->dims[a];
	return fab_index(f, c);
}

static void fab_send(void *ctx, uint8_t port, const uint8_t *msg, size_t len)
{
	struct fab *f = ctx;
	int nxt = !f->cur;
	struct fab_msg *m = &f->q[nxt][f->nq[nxt]++];
	struct seed s = { .len = 0 };
	char name[128];

	m->dst = fab_peer(f, f->sender, port);
	m->port = port ^ 1;
	m->len = (uint16_t)len;
	memcpy(m->data, msg, len);
	/* a sample of what goes over the cables, for fuzz_wire/fuzz_frame */
	if (f->nwire < 8 && f->nsent++ % 53 == 0) {
		static const uint8_t mac[TD_ETH_ALEN] = { 2, 0, 0, 0, 0, 1 };
		struct seed fr = { .len = 0 };

		seed_u8(&s, (uint8_t)(f->ndims - 1));
		seed_put(&s, msg, len);
		snprintf(name, sizeof(name), "%s-%02u", f->name, f->nwire);
		seed_save(f->dir, "wire", name, &s);
		fr.len = td_frame_build(fr.buf, sizeof(fr.buf), mac, msg, len);
		seed_save(f->dir, "frame", name, &fr);
		f->nwire++;
	}
}

static void fab_run(struct fab *f)
{
	struct tc_output out = { .ctx = f, .send = fab_send };
	struct seed *life = &f->life;
	struct tc_view view;
	int u, a, p, r, i;

	f->nn = 1;
	for (a = 0; a < f->ndims; a++)
		f->nn *= f->dims[a];
	for (u = 0; u < f->nn; u++) {
		struct tc_config *cfg = &f->cfg[u];
		int c[TC_MAX_AXES];

		memset(cfg, 0, sizeof(*cfg));
		cfg->id = u ? 0x100 + (uint64_t)u * 7919 : CORE_ID;
		cfg->ndims = (uint8_t)f->ndims;
		cfg->ports = (uint16_t)((1u << (2 * f->ndims)) - 1);
		cfg->hello_ticks = FAB_HELLO;
		cfg->dead_ticks = FAB_DEAD;
		cfg->quiet_ticks = FAB_QUIET;
		if (f->block_mode) {	/* one block: the whole torus */
			fab_coord(f, u, c);
			cfg->block_mode = true;
			cfg->block_id = 1;
			for (a = 0; a < f->ndims; a++) {
				cfg->block_dims[a] = (uint16_t)f->dims[a];
				cfg->block_coord[a] = (uint8_t)c[a];
			}
		}
		f->node[u] = calloc(1, tc_node_size(cfg));
		if (!f->node[u] || tc_node_init(f->node[u], cfg, &out)) {
			fprintf(stderr, "gen_corpus: node init failed\n");
			exit(1);
		}
	}

	/* node 0's configuration, as fuzz_core reads it */
	life->len = 0;
	seed_u8(life, (uint8_t)(f->ndims - 1));
	seed_u8(life, f->block_mode ? 1 : 0);
	seed_u16(life, f->cfg[0].ports);
	seed_u8(life, FAB_HELLO);
	seed_u8(life, FAB_DEAD);
	seed_u8(life, FAB_QUIET);
	seed_u8(life, 0);		/* orient ticks: the default */
	seed_u8(life, 0);		/* block id 1 */
	for (a = 0; a < f->ndims; a++) {
		seed_u8(life, (uint8_t)(f->dims[a] - 1));
		seed_u8(life, 0);	/* node 0 is at the block's origin */
	}

	for (u = 0; u < f->nn; u++)
		for (p = 0; p < 2 * f->ndims; p++)
			tc_port_state(f->node[u], (uint8_t)p, true);
	for (p = 0; p < 2 * f->ndims; p++) {
		seed_u8(life, (uint8_t)(1 | p << 2));
		seed_u8(life, 1);
	}
	for (r = 0; r < FAB_ROUNDS; r++) {
		int c = f->cur;

		for (i = 0; i < f->nq[c]; i++) {
			struct fab_msg *m = &f->q[c][i];

			tc_receive(f->node[m->dst], m->port, m->data, m->len);
			if (m->dst)
				continue;
			seed_u8(life, (uint8_t)(2 | m->port << 2));
			seed_u16(life, m->len);
			seed_put(life, m->data, m->len);
		}
		f->nq[c] = 0;
		for (u = 0; u < f->nn; u++) {
			f->sender = u;
			tc_tick(f->node[u]);
		}
		seed_u8(life, 0);	/* one tick */
		if (r % 10 == 9)
			seed_u8(life, 3);	/* read the view */
		f->cur = !c;
	}
	seed_save(f->dir, "core", f->name, life);
	tc_view(f->node[0], &view);
	if (view.state != TC_PLACED) {
		fprintf(stderr, "gen_corpus: %s: node 0 not placed\n", f->name);
		exit(1);
	}
	for (u = 0; u < f->nn; u++)
		free(f->node[u]);
}

static void gen_core(const char *dir)
{
	static const struct {
		const char *name;
		int ndims, dims[3];
		bool block_mode;
	} tori[] = {
		{ "ring-4", 1, { 4 }, false },
		{ "torus-3x3", 2, { 3, 3 }, false },
		{ "torus-2x2x2", 3, { 2, 2, 2 }, false },
		{ "block-3x3", 2, { 3, 3 }, true },
		{ "block-3x2x2", 3, { 3, 2, 2 }, true },
	};
	static struct fab f;
	unsigned int i;

	for (i = 0; i < sizeof(tori) / sizeof(tori[0]); i++) {
		memset(&f, 0, sizeof(f));
		f.dir = dir;
		f.name = tori[i].name;
		f.ndims = tori[i].ndims;
		f.block_mode = tori[i].block_mode;
		memcpy(f.dims, tori[i].dims, sizeof(tori[i].dims));
		fab_run(&f);
	}
}

/* one message with every TLV the wire format has */
static void gen_wire_all(const char *dir)
{
	static const uint8_t label[2] = { 0, 3 };
	static const uint32_t hash[2] = { 0x1234567, 0x89abcdef };
	static const uint8_t bc[3] = { 1, 0, 2 }, R[3] = { 0, 3, 0xff };
	static const int16_t coord[3] = { -1, 2, 300 };
	static const uint16_t gcd[3] = { 4, 0, 2 };
	static const int16_t cmin[3] = { -2, 0, 0 }, cmax[3] = { 1, 3, 5 };
	struct tw_face face = { .block = 9, .normal = 1, .peer_label = 4,
				.a = { 0, 1, 2 }, .b = { 2, 1, 0 } };
	struct tw_orient orient = { .block = 9, .normal = 1,
				    .map = { 1, 2, 5 } };
	struct tw_orient fail = { .block = 10, .normal = 2, .fail = 1 };
	struct seed s = { .len = 0 };
	struct tw_buf b;

	seed_u8(&s, 2);		/* ndims 3 */
	tw_init(&b, s.buf + 1, sizeof(s.buf) - 1);
	tw_put_id(&b, 0x1122334455667788ULL);
	tw_put_port(&b, 5);
	tw_put_nbrs(&b, 2, label, hash);
	tw_put_trusted(&b, 1u << 5);
	tw_put_block(&b, 7, 3, bc);
	tw_put_frame(&b, 42, TW_FRAME_PLACED | TW_FRAME_JOINED, 3, R, coord);
	tw_put_extent(&b, 3, gcd, cmin, cmax);
	tw_put_face(&b, 3, &face);
	tw_put_orient(&b, 3, &orient);
	tw_put_orient(&b, 3, &fail);
	s.len = 1 + b.len;
	seed_save(dir, "wire", "all-tlvs", &s);
}

/* a link-state message: two records, one a tombstone */
static void gen_wire_ls(const char *dir)
{
	struct tw_ls_rec r = { .coord = { 3, 1, 7 }, .seq = 9,
			       .mask = 1u << TORUS_DIR(2, 1) };
	struct seed s = { .len = 0 };
	struct tw_buf b;

	seed_u8(&s, 2);		/* ndims 3 */
	tw_ls_init(&b, s.buf + 1, sizeof(s.buf) - 1, 3, 0x1122334455667788ULL,
		   42, 0x5eed);
	tw_ls_put(&b, 3, &r);
	r.coord[0] = 0;
	r.seq = 65535;
	r.mask = 0;
	tw_ls_put(&b, 3, &r);
	s.len = 1 + b.len;
	seed_save(dir, "wire", "ls-records", &s);
}

/* ---- netlink replies, as torus.ko fills them ---- */

static struct nlmsghdr *nl_genl(struct seed *s, uint16_t type, uint8_t cmd,
				uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(s->buf + s->len);
	struct genlmsghdr *genl;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = 7;
	nlh->nlmsg_pid = 0;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = TORUS_GENL_VERSION;
	return nlh;
}

static void nl_done(struct seed *s, struct nlmsghdr *nlh)
{
	s->len += MNL_ALIGN(nlh->nlmsg_len);
}

static void nl_axes(struct nlmsghdr *nlh, uint16_t type, const uint32_t *v,
		    unsigned int n)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, type);
	unsigned int i;

	for (i = 0; i < n; i++)
		mnl_attr_put_u32(nlh, TORUS_AXIS_A(i), v[i]);
	mnl_attr_nest_end(nlh, nest);
}

static void nl_stats(struct nlmsghdr *nlh, uint16_t type)
{
	struct nlattr *st = mnl_attr_nest_start(nlh, type), *drop;

	mnl_attr_put_u64(nlh, TORUS_STATS_A_RX_PACKETS, 10);
	mnl_attr_put_u64(nlh, TORUS_STATS_A_RX_BYTES, 1160);
	mnl_attr_put_u64(nlh, TORUS_STATS_A_TX_PACKETS, 35);
	mnl_attr_put_u64(nlh, TORUS_STATS_A_TX_BYTES, 4550);
	mnl_attr_put_u64(nlh, TORUS_STATS_A_FWD_PACKETS, 3);
	mnl_attr_put_u64(nlh, TORUS_STATS_A_DROPS, 2);
	drop = mnl_attr_nest_start(nlh, TORUS_STATS_A_DROP);
	mnl_attr_put_u64(nlh, 1, 1);
	mnl_attr_put_u64(nlh, 4, 1);
	mnl_attr_nest_end(nlh, drop);
	mnl_attr_nest_end(nlh, st);
}

static void nl_node(struct seed *s, uint8_t cmd)
{
	static const uint32_t coord[3] = { 1, 2, 3 }, dims[3] = { 4, 4, 4 };
	struct nlmsghdr *nlh = nl_genl(s, 0x20, cmd, NLM_F_MULTI);
	struct nlattr *wrap;
	unsigned int i;

	mnl_attr_put_u32(nlh, TORUS_A_IFINDEX, 2);
	mnl_attr_put_strz(nlh, TORUS_A_IFNAME, "tor0");
	mnl_attr_put_u64(nlh, TORUS_A_NODE_ID, 0x1122334455667788ULL);
	mnl_attr_put_u64(nlh, TORUS_A_LEADER, 0x99);
	nl_axes(nlh, TORUS_A_COORD, coord, 3);
	nl_axes(nlh, TORUS_A_DIMS, dims, 3);
	wrap = mnl_attr_nest_start(nlh, TORUS_A_WRAP);
	for (i = 0; i < 3; i++)
		mnl_attr_put_u8(nlh, TORUS_AXIS_A(i), 1);
	mnl_attr_nest_end(nlh, wrap);
	mnl_attr_put_u8(nlh, TORUS_A_STATE, TORUS_STATE_PLACED);
	mnl_attr_put_u8(nlh, TORUS_A_ROLE, TORUS_ROLE_LEADER);
	mnl_attr_put_strz(nlh, TORUS_A_REASON, "converged");
	mnl_attr_put_u8(nlh, TORUS_A_HOP_LIMIT, 64);
	mnl_attr_put_u32(nlh, TORUS_A_GENERATION, 12);
	nl_stats(nlh, TORUS_A_STATS);
	nl_done(s, nlh);
}

static void nl_port(struct seed *s, uint8_t cmd)
{
	struct nlmsghdr *nlh = nl_genl(s, 0x20, cmd, NLM_F_MULTI);
	struct nlattr *port;

	mnl_attr_put_u32(nlh, TORUS_A_IFINDEX, 2);
	mnl_attr_put_strz(nlh, TORUS_A_IFNAME, "tor0");
	port = mnl_attr_nest_start(nlh, TORUS_A_PORT);
	mnl_attr_put_u32(nlh, TORUS_PORT_A_IFINDEX, 3);
	mnl_attr_put_strz(nlh, TORUS_PORT_A_IFNAME, "px");
	mnl_attr_put_u32(nlh, TORUS_PORT_A_MASTER, 2);
	mnl_attr_put_u8(nlh, TORUS_PORT_A_LABEL, 0);
	mnl_attr_put_u32(nlh, TORUS_PORT_A_PEER_IFINDEX, 3);
	mnl_attr_put_strz(nlh, TORUS_PORT_A_PEER_IFNAME, "mx");
	mnl_attr_put_u32(nlh, TORUS_PORT_A_PEER_NETNSID, 0);
	mnl_attr_put_u8(nlh, TORUS_PORT_A_CARRIER, 1);
	mnl_attr_put_u8(nlh, TORUS_PORT_A_GLOBAL_DIR, 2);
	mnl_attr_put_u32(nlh, TORUS_PORT_A_LOSS_PPM, 50000);
	nl_stats(nlh, TORUS_PORT_A_STATS);
	mnl_attr_nest_end(nlh, port);
	nl_done(s, nlh);
}

static void nl_route(struct seed *s, bool get)
{
	static const uint32_t dst[3] = { 2, 2, 2 }, via[3] = { 0, 2, 0 };
	struct nlmsghdr *nlh = nl_genl(s, 0x20, TORUS_CMD_ROUTE_GET,
				       get ? 0 : NLM_F_MULTI);
	struct nlattr *route;

	mnl_attr_put_u32(nlh, TORUS_A_IFINDEX, 2);
	mnl_attr_put_strz(nlh, TORUS_A_IFNAME, "tor0");
	route = mnl_attr_nest_start(nlh, TORUS_A_ROUTE);
	nl_axes(nlh, TORUS_ROUTE_A_DST, dst, 3);
	if (get) {
		mnl_attr_put_u8(nlh, TORUS_ROUTE_A_NEXT_DIR, 2);
		mnl_attr_put_u32(nlh, TORUS_ROUTE_A_NEXT_PORT, 4);
		mnl_attr_put(nlh, TORUS_ROUTE_A_EXCEPTION, 0, NULL);
		mnl_attr_put_u32(nlh, TORUS_ROUTE_A_HOPS, 6);
	} else {
		nl_axes(nlh, TORUS_ROUTE_A_VIA, via, 3);
		mnl_attr_put_u8(nlh, TORUS_ROUTE_A_DIR, 3);
	}
	mnl_attr_nest_end(nlh, route);
	nl_done(s, nlh);
}

/* NLMSG_ERROR (@error 0: an ACK) echoing a request, with extack TLVs */
static void nl_error(struct seed *s, int error, const char *msg)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(s->buf + s->len);
	struct nlmsghdr *req;
	struct nlmsgerr *err;
	struct seed r = { .len = 0 };
	static const uint32_t dst[2] = { 1, 300 };
	struct nlattr *route;
	size_t plen;

	req = nl_genl(&r, 0x20, TORUS_CMD_ROUTE_SET, NLM_F_REQUEST);
	mnl_attr_put_u32(req, TORUS_A_IFINDEX, 5);
	route = mnl_attr_nest_start(req, TORUS_A_ROUTE);
	nl_axes(req, TORUS_ROUTE_A_DST, dst, 2);
	mnl_attr_nest_end(req, route);
	plen = req->nlmsg_len - MNL_NLMSG_HDRLEN;

	nlh->nlmsg_type = NLMSG_ERROR;
	nlh->nlmsg_flags = NLM_F_ACK_TLVS;
	nlh->nlmsg_seq = 7;
	err = mnl_nlmsg_put_extra_header(nlh, sizeof(*err));
	err->error = -error;
	err->msg = *req;
	memcpy(mnl_nlmsg_put_extra_header(nlh, plen),
	       mnl_nlmsg_get_payload(req), plen);
	mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, msg);
	/* the offending attribute: DST/y of the echoed request */
	mnl_attr_put_u32(nlh, NLMSGERR_ATTR_OFFS,
			 (uint32_t)(req->nlmsg_len - MNL_ATTR_HDRLEN - 4));
	mnl_attr_put_u32(nlh, NLMSGERR_ATTR_MISS_TYPE, TORUS_ROUTE_A_DST);
	nl_done(s, nlh);
}

static void nl_end(struct seed *s)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(s->buf + s->len);
	int zero = 0;

	nlh->nlmsg_type = NLMSG_DONE;
	nlh->nlmsg_flags = NLM_F_MULTI;
	nlh->nlmsg_seq = 7;
	memcpy(mnl_nlmsg_put_extra_header(nlh, sizeof(zero)), &zero,
	       sizeof(zero));
	nl_done(s, nlh);
}

static void nl_family(struct seed *s)
{
	struct nlmsghdr *nlh = nl_genl(s, GENL_ID_CTRL, CTRL_CMD_NEWFAMILY, 0);
	struct nlattr *groups, *grp;

	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, TORUS_GENL_NAME);
	mnl_attr_put_u16(nlh, CTRL_ATTR_FAMILY_ID, 0x20);
	groups = mnl_attr_nest_start(nlh, CTRL_ATTR_MCAST_GROUPS);
	grp = mnl_attr_nest_start(nlh, 1);
	mnl_attr_put_strz(nlh, CTRL_ATTR_MCAST_GRP_NAME,
			  TORUS_GENL_MCGRP_EVENTS);
	mnl_attr_put_u32(nlh, CTRL_ATTR_MCAST_GRP_ID, 9);
	mnl_attr_nest_end(nlh, grp);
	mnl_attr_nest_end(nlh, groups);
	nl_done(s, nlh);
}

/* the messages are built aligned, then put after the selector byte */
static void mnlg_save(const char *dir, const char *name, uint8_t sel,
		      const struct seed *msgs)
{
	static struct seed s;

	s.len = 0;
	seed_u8(&s, sel);
	seed_put(&s, msgs->buf, msgs->len);
	seed_save(dir, "mnlg", name, &s);
}

static void gen_netlink(const char *dir)
{
	struct seed s;

	s.len = 0;
	nl_node(&s, TORUS_CMD_NODE_GET);
	seed_save(dir, "records", "node", &s);
	s.len = 0;
	nl_port(&s, TORUS_CMD_PORT_GET);
	seed_save(dir, "records", "port", &s);
	s.len = 0;
	nl_route(&s, true);
	seed_save(dir, "records", "route-get", &s);
	s.len = 0;
	nl_node(&s, TORUS_CMD_NODE_GET);
	nl_port(&s, TORUS_CMD_PORT_GET);
	nl_route(&s, false);
	nl_port(&s, TORUS_CMD_PORT_EVENT);
	nl_end(&s);
	seed_save(dir, "records", "dump", &s);

	/* fuzz_mnlg: selector (dump, family header length), then replies */
	s.len = 0;
	nl_error(&s, 34, "torus: coordinate outside its extent");
	mnlg_save(dir, "extack-error", GENL_HDRLEN << 1, &s);
	s.len = 0;
	nl_error(&s, 0, "deprecated attribute");
	mnlg_save(dir, "ack-warning", GENL_HDRLEN << 1, &s);
	s.len = 0;
	nl_node(&s, TORUS_CMD_NODE_GET);
	nl_port(&s, TORUS_CMD_PORT_GET);
	nl_end(&s);
	mnlg_save(dir, "dump", GENL_HDRLEN << 1 | 1, &s);
	s.len = 0;
	nl_family(&s);
	nl_error(&s, 0, "");
	mnlg_save(dir, "family", GENL_HDRLEN << 1, &s);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: gen_corpus DIR\n");
		return 2;
	}
	if (mkdir(argv[1], 0755) && errno != EEXIST) {
		perror(argv[1]);
		return 1;
	}
	gen_core(argv[1]);
	gen_wire_all(argv[1]);
	gen_wire_ls(argv[1]);
	gen_netlink(argv[1]);
	gen_kframe(argv[1]);
	return 0;
}
