// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tnl.c - libnl glue for the "torus" generic netlink family
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <netlink/attr.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include <linux/if_addr.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "tnl.h"

#define TD_NL_EVBUF	65536
#define TD_NL_EVRCVBUF	(1 << 20)

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK	11
#endif
#ifndef NETLINK_CAP_ACK
#define NETLINK_CAP_ACK	10
#endif

static struct nla_policy torus_policy[TORUS_A_MAX + 1] = {
	[TORUS_A_IFINDEX]	= { .type = NLA_U32 },
	[TORUS_A_IFNAME]	= { .type = NLA_STRING },
	[TORUS_A_NODE_ID]	= { .type = NLA_U64 },
	[TORUS_A_LEADER]	= { .type = NLA_U64 },
	[TORUS_A_COORD]		= { .type = NLA_NESTED },
	[TORUS_A_DIMS]		= { .type = NLA_NESTED },
	[TORUS_A_WRAP]		= { .type = NLA_NESTED },
	[TORUS_A_STATE]		= { .type = NLA_U8 },
	[TORUS_A_ROLE]		= { .type = NLA_U8 },
	[TORUS_A_REASON]	= { .type = NLA_STRING },
	[TORUS_A_PORT]		= { .type = NLA_NESTED },
	[TORUS_A_GENERATION]	= { .type = NLA_U32 },
	[TORUS_A_ROUTES_GENERATION] = { .type = NLA_U32 },
	[TORUS_A_ROUTES_COUNT]	= { .type = NLA_U32 },
	[TORUS_A_COLL_TREE]	= { .type = NLA_NESTED },
	[TORUS_A_COLL_TREE_SET]	= { .type = NLA_U8 },
};

static struct nla_policy coll_tree_policy[TORUS_COLL_TREE_A_MAX + 1] = {
	[TORUS_COLL_TREE_A_PARENT]	= { .type = NLA_U8 },
	[TORUS_COLL_TREE_A_CHILDREN]	= { .type = NLA_U32 },
};

static struct nla_policy plan_policy[TORUS_PLAN_A_MAX + 1] = {
	[TORUS_PLAN_A_INDEX]	= { .type = NLA_U8 },
	[TORUS_PLAN_A_ORDER]	= { .type = NLA_NESTED },
	[TORUS_PLAN_A_POLICY]	= { .type = NLA_NESTED },
};

static struct nla_policy port_policy[TORUS_PORT_A_MAX + 1] = {
	[TORUS_PORT_A_IFINDEX]	= { .type = NLA_U32 },
	[TORUS_PORT_A_IFNAME]	= { .type = NLA_STRING },
	[TORUS_PORT_A_LABEL]	= { .type = NLA_U8 },
	[TORUS_PORT_A_CARRIER]	= { .type = NLA_U8 },
	[TORUS_PORT_A_GLOBAL_DIR] = { .type = NLA_U8 },
	[TORUS_PORT_A_MASTER]	= { .type = NLA_U32 },
};

static const char *cmd_name(uint8_t cmd)
{
	switch (cmd) {
	case TORUS_CMD_NODE_GET:
		return "node get";
	case TORUS_CMD_NODE_SET:
		return "node set";
	case TORUS_CMD_PORT_GET:
		return "port dump";
	case TORUS_CMD_PORTMAP_SET:
		return "port map set";
	case TORUS_CMD_PLAN_SET:
		return "plan set";
	case TORUS_CMD_ROUTE_BATCH:
		return "route batch";
	case TORUS_CMD_COLL_TREE_SET:
		return "coll tree set";
	case TORUS_CMD_COLL_TREE_GET:
		return "coll tree get";
	}
	return "request";
}

/* ---- one request, its replies and its ACK ---- */

struct talk {
	struct td_nl	*nl;
	int		(*parse)(struct nlmsghdr *nlh, void *arg);
	void		*arg;
	bool		done;
	int		error;		/* negative errno */
	char		msg[200];	/* extended ACK message */
};

static int talk_valid(struct nl_msg *msg, void *arg)
{
	struct talk *t = arg;
	int err;

	if (!t->parse)
		return NL_OK;
	err = t->parse(nlmsg_hdr(msg), t->arg);
	if (err < 0 && !t->error)
		t->error = err;
	return NL_OK;
}

static int talk_finish(struct nl_msg *msg, void *arg)
{
	struct talk *t = arg;

	(void)msg;
	t->done = true;
	return NL_STOP;
}

static int talk_ack(struct nl_msg *msg, void *arg)
{
	return talk_finish(msg, arg);
}

/* the extended ACK's message, if the kernel attached one */
static void ext_ack_msg(const struct nlmsgerr *e, char *buf, size_t len)
{
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)
				     ((const char *)e - NLMSG_HDRLEN);
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t plen, off = sizeof(*e);

	buf[0] = '\0';
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) ||
	    nlh->nlmsg_len < NLMSG_HDRLEN)
		return;
	plen = nlh->nlmsg_len - NLMSG_HDRLEN;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
		if (e->msg.nlmsg_len < NLMSG_HDRLEN)
			return;
		off += e->msg.nlmsg_len - NLMSG_HDRLEN;
	}
	off = NLMSG_ALIGN(off);
	if (off >= plen)
		return;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX,
		      (struct nlattr *)((char *)e + off), (int)(plen - off),
		      NULL))
		return;
	if (tb[NLMSGERR_ATTR_MSG] && nla_len(tb[NLMSGERR_ATTR_MSG]) > 0)
		snprintf(buf, len, "%.*s", nla_len(tb[NLMSGERR_ATTR_MSG]),
			 (const char *)nla_data(tb[NLMSGERR_ATTR_MSG]));
	/* nla_len counts the NUL: strip a trailing one */
	while (*buf && buf[strlen(buf) - 1] == '\0')
		buf[strlen(buf) - 1] = '\0';
}

static int talk_err(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct talk *t = arg;

	(void)nla;
	t->error = e->error < 0 ? e->error : -e->error;
	ext_ack_msg(e, t->msg, sizeof(t->msg));
	t->done = true;
	return NL_STOP;
}

/* send @msg on @sk, feed replies to @parse, wait for the ACK or DONE */
static int talk_on(struct td_nl *nl, struct nl_sock *sk, const char *what,
		   struct nl_msg *msg,
		   int (*parse)(struct nlmsghdr *, void *), void *arg)
{
	struct talk t = { .nl = nl, .parse = parse, .arg = arg };
	struct nl_cb *cb;
	int err;

	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb) {
		snprintf(nl->err, sizeof(nl->err), "%s: out of memory",
			 what);
		return -ENOMEM;
	}
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, talk_valid, &t);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, talk_finish, &t);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, talk_ack, &t);
	nl_cb_err(cb, NL_CB_CUSTOM, talk_err, &t);

	err = nl_send_auto(sk, msg);
	if (err < 0) {
		snprintf(nl->err, sizeof(nl->err), "%s: send: %s",
			 what, nl_geterror(err));
		nl_cb_put(cb);
		return -EIO;
	}
	while (!t.done) {
		err = nl_recvmsgs(sk, cb);
		if (err < 0 && !t.done) {
			snprintf(nl->err, sizeof(nl->err), "%s: receive: %s",
				 what, nl_geterror(err));
			nl_cb_put(cb);
			return -EIO;
		}
	}
	nl_cb_put(cb);
	if (t.error) {
		snprintf(nl->err, sizeof(nl->err), "%s: %s", what,
			 t.msg[0] ? t.msg : strerror(-t.error));
		return t.error;
	}
	return 0;
}

static int talk(struct td_nl *nl, struct nl_msg *msg, uint8_t cmd,
		int (*parse)(struct nlmsghdr *, void *), void *arg)
{
	return talk_on(nl, nl->req, cmd_name(cmd), msg, parse, arg);
}

static struct nl_msg *request_sized(struct td_nl *nl, uint8_t cmd,
				    int flags, uint32_t ifindex, size_t size)
{
	struct nl_msg *msg = size ? nlmsg_alloc_size(size) : nlmsg_alloc();

	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0,
			 flags, cmd, TORUS_GENL_VERSION) ||
	    nla_put_u32(msg, TORUS_A_IFINDEX, ifindex)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

static struct nl_msg *request(struct td_nl *nl, uint8_t cmd, int flags,
			      uint32_t ifindex)
{
	return request_sized(nl, cmd, flags, ifindex, 0);
}

static int no_msg(struct td_nl *nl, uint8_t cmd)
{
	snprintf(nl->err, sizeof(nl->err), "%s: cannot build the message",
		 cmd_name(cmd));
	return -ENOMEM;
}

/* ---- open/close ---- */

static struct nl_sock *sock_open(struct td_nl *nl, const char *what)
{
	struct nl_sock *sk = nl_socket_alloc();
	int one = 1, err;

	if (!sk) {
		snprintf(nl->err, sizeof(nl->err), "%s socket: out of memory",
			 what);
		return NULL;
	}
	err = genl_connect(sk);
	if (err < 0) {
		snprintf(nl->err, sizeof(nl->err),
			 "%s socket: generic netlink: %s", what,
			 nl_geterror(err));
		nl_socket_free(sk);
		return NULL;
	}
	/* best effort: plain errno strings without them */
	setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_EXT_ACK, &one,
		   sizeof(one));
	setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_CAP_ACK, &one,
		   sizeof(one));
	return sk;
}

int td_nl_open(struct td_nl *nl)
{
	int err;

	memset(nl, 0, sizeof(*nl));
	nl->evbuf = malloc(TD_NL_EVBUF);
	if (!nl->evbuf) {
		snprintf(nl->err, sizeof(nl->err), "out of memory");
		return -ENOMEM;
	}
	nl->req = sock_open(nl, "request");
	if (!nl->req)
		goto fail;
	nl->family = genl_ctrl_resolve(nl->req, TORUS_GENL_NAME);
	if (nl->family < 0) {
		snprintf(nl->err, sizeof(nl->err),
			 "generic netlink family \"%s\" not found (is torus.ko loaded?): %s",
			 TORUS_GENL_NAME, nl_geterror(nl->family));
		goto fail;
	}
	nl->grp = genl_ctrl_resolve_grp(nl->req, TORUS_GENL_NAME,
					TORUS_GENL_MCGRP_EVENTS);
	if (nl->grp < 0) {
		snprintf(nl->err, sizeof(nl->err),
			 "multicast group \"%s\" of \"%s\" not found: %s",
			 TORUS_GENL_MCGRP_EVENTS, TORUS_GENL_NAME,
			 nl_geterror(nl->grp));
		goto fail;
	}

	nl->ev = sock_open(nl, "event");
	if (!nl->ev)
		goto fail;
	nl_socket_disable_seq_check(nl->ev);
	err = nl_socket_add_membership(nl->ev, nl->grp);
	if (err < 0) {
		snprintf(nl->err, sizeof(nl->err),
			 "cannot join multicast group \"%s\": %s",
			 TORUS_GENL_MCGRP_EVENTS, nl_geterror(err));
		goto fail;
	}
	nl->rt = nl_socket_alloc();
	if (!nl->rt || nl_connect(nl->rt, NETLINK_ROUTE) < 0) {
		snprintf(nl->err, sizeof(nl->err), "rtnetlink socket failed");
		goto fail;
	}
	setsockopt(nl_socket_get_fd(nl->rt), SOL_NETLINK, NETLINK_EXT_ACK,
		   &(int){ 1 }, sizeof(int));
	/* a burst of carrier events must not overrun us; resync if it does */
	nl_socket_set_buffer_size(nl->ev, TD_NL_EVRCVBUF, 0);
	nl_socket_set_nonblocking(nl->ev);
	return 0;

fail:
	td_nl_close(nl);
	return -ENOENT;
}

void td_nl_close(struct td_nl *nl)
{
	if (nl->ev)
		nl_socket_free(nl->ev);
	if (nl->req)
		nl_socket_free(nl->req);
	if (nl->rt)
		nl_socket_free(nl->rt);
	nl->rt = NULL;
	free(nl->evbuf);
	nl->ev = NULL;
	nl->req = NULL;
	nl->evbuf = NULL;
}

bool td_nl_family_gone(struct td_nl *nl)
{
	return genl_ctrl_resolve(nl->req, TORUS_GENL_NAME) < 0;
}

int td_nl_event_fd(const struct td_nl *nl)
{
	return nl_socket_get_fd(nl->ev);
}

/* ---- parsing ---- */

/* a per-axis nest: attribute type axis + 1; the number of axes or -1 */
static int parse_axes(struct nlattr *nest, uint32_t *vals)
{
	struct nlattr *a;
	unsigned int seen = 0;
	int rem, n = 0, axis;

	memset(vals, 0, TC_MAX_AXES * sizeof(*vals));
	nla_for_each_nested(a, nest, rem) {
		axis = nla_type(a) - 1;
		if (axis < 0 || axis >= TC_MAX_AXES)
			return -1;
		if (nla_len(a) == 1)
			vals[axis] = nla_get_u8(a);
		else if (nla_len(a) == 4)
			vals[axis] = nla_get_u32(a);
		else
			return -1;
		seen |= 1u << axis;
	}
	while (n < TC_MAX_AXES && (seen & (1u << n)))
		n++;
	return seen == (1u << n) - 1 ? n : -1;
}

static void copy_str(char *dst, size_t size, struct nlattr *a)
{
	snprintf(dst, size, "%.*s", nla_len(a), (const char *)nla_data(a));
}

static int parse_port(struct nlattr *nest, struct td_kport *p)
{
	struct nlattr *tb[TORUS_PORT_A_MAX + 1];

	memset(p, 0, sizeof(*p));
	p->label = TORUS_DIR_NONE;
	p->global_dir = TORUS_DIR_NONE;
	if (nla_parse_nested(tb, TORUS_PORT_A_MAX, nest, port_policy) ||
	    !tb[TORUS_PORT_A_IFINDEX])
		return -EPROTO;
	p->ifindex = nla_get_u32(tb[TORUS_PORT_A_IFINDEX]);
	if (tb[TORUS_PORT_A_IFNAME])
		copy_str(p->ifname, sizeof(p->ifname), tb[TORUS_PORT_A_IFNAME]);
	if (tb[TORUS_PORT_A_LABEL])
		p->label = nla_get_u8(tb[TORUS_PORT_A_LABEL]);
	if (tb[TORUS_PORT_A_CARRIER])
		p->carrier = nla_get_u8(tb[TORUS_PORT_A_CARRIER]);
	if (tb[TORUS_PORT_A_GLOBAL_DIR])
		p->global_dir = nla_get_u8(tb[TORUS_PORT_A_GLOBAL_DIR]);
	if (tb[TORUS_PORT_A_MASTER])
		p->master = nla_get_u32(tb[TORUS_PORT_A_MASTER]);
	return 0;
}

static int parse_node(struct nlattr **tb, struct td_knode *kn)
{
	uint32_t coord[TC_MAX_AXES], dims[TC_MAX_AXES], wrap[TC_MAX_AXES];
	int n, nd, nw, i;

	memset(kn, 0, sizeof(*kn));
	if (!tb[TORUS_A_IFINDEX])
		return -EPROTO;
	kn->ifindex = nla_get_u32(tb[TORUS_A_IFINDEX]);
	if (tb[TORUS_A_NODE_ID])
		kn->id = nla_get_u64(tb[TORUS_A_NODE_ID]);
	if (tb[TORUS_A_LEADER])
		kn->leader = nla_get_u64(tb[TORUS_A_LEADER]);
	if (tb[TORUS_A_STATE])
		kn->state = nla_get_u8(tb[TORUS_A_STATE]);
	if (tb[TORUS_A_ROLE])
		kn->role = nla_get_u8(tb[TORUS_A_ROLE]);
	if (tb[TORUS_A_REASON])
		copy_str(kn->reason, sizeof(kn->reason), tb[TORUS_A_REASON]);
	if (tb[TORUS_A_GENERATION])
		kn->generation = nla_get_u32(tb[TORUS_A_GENERATION]);
	if (tb[TORUS_A_ROUTES_GENERATION])
		kn->routes_generation =
			nla_get_u32(tb[TORUS_A_ROUTES_GENERATION]);
	if (tb[TORUS_A_ROUTES_COUNT])
		kn->routes_count = nla_get_u32(tb[TORUS_A_ROUTES_COUNT]);
	if (!tb[TORUS_A_COORD] || !tb[TORUS_A_DIMS])
		return 0;
	n = parse_axes(tb[TORUS_A_COORD], coord);
	nd = parse_axes(tb[TORUS_A_DIMS], dims);
	nw = tb[TORUS_A_WRAP] ? parse_axes(tb[TORUS_A_WRAP], wrap) : 0;
	if (n <= 0 || n != nd || (tb[TORUS_A_WRAP] && nw != n))
		return -EPROTO;
	kn->ndims = (uint8_t)n;
	for (i = 0; i < n; i++) {
		kn->coord[i] = (uint8_t)coord[i];
		kn->dims[i] = (uint16_t)dims[i];
		if (!tb[TORUS_A_WRAP] || wrap[i])
			kn->wrap |= 1u << i;
	}
	return 0;
}

/* ---- requests ---- */

static int node_get_parse(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[TORUS_A_MAX + 1];

	if (genlmsg_parse(nlh, 0, tb, TORUS_A_MAX, torus_policy))
		return -EPROTO;
	return parse_node(tb, arg);
}

int td_nl_node_get(struct td_nl *nl, uint32_t ifindex, struct td_knode *kn)
{
	struct nl_msg *msg = request(nl, TORUS_CMD_NODE_GET, 0, ifindex);
	int err;

	if (!msg)
		return no_msg(nl, TORUS_CMD_NODE_GET);
	memset(kn, 0, sizeof(*kn));
	err = talk(nl, msg, TORUS_CMD_NODE_GET, node_get_parse, kn);
	nlmsg_free(msg);
	if (!err && kn->ifindex != ifindex) {
		snprintf(nl->err, sizeof(nl->err), "node get: no reply");
		err = -EPROTO;
	}
	return err;
}

/* NODE_GET's TORUS_A_PLAN nests, repeated: walked, not parsed into tb */
static int plans_get_parse(struct nlmsghdr *nlh, void *arg)
{
	uint32_t ord[TC_MAX_AXES], pol[TC_MAX_AXES];
	struct genlmsghdr *gh = nlmsg_data(nlh);
	struct nlattr *tb[TORUS_PLAN_A_MAX + 1];
	struct td_plans *p = arg;
	unsigned int seen = 0, idx;
	struct nlattr *a;
	int rem, n, k, i;

	nla_for_each_attr(a, genlmsg_attrdata(gh, 0), genlmsg_attrlen(gh, 0),
			  rem) {
		if (nla_type(a) != TORUS_A_PLAN)
			continue;
		if (nla_parse_nested(tb, TORUS_PLAN_A_MAX, a, plan_policy) ||
		    !tb[TORUS_PLAN_A_INDEX] || !tb[TORUS_PLAN_A_ORDER] ||
		    !tb[TORUS_PLAN_A_POLICY])
			return -EPROTO;
		idx = nla_get_u8(tb[TORUS_PLAN_A_INDEX]);
		n = parse_axes(tb[TORUS_PLAN_A_ORDER], ord);
		k = parse_axes(tb[TORUS_PLAN_A_POLICY], pol);
		if (idx < 1 || idx >= TORUS_MAX_PLANS || n <= 0 || n != k ||
		    (p->ndims && p->ndims != (unsigned int)n))
			return -EPROTO;
		p->ndims = (unsigned int)n;
		for (i = 0; i < n; i++) {
			p->order[idx][i] = (uint8_t)ord[i];
			p->policy[idx][i] = (uint8_t)pol[i];
		}
		seen |= 1u << idx;
	}
	for (p->nplans = 1; seen & (1u << p->nplans); p->nplans++)
		;
	return seen == (1u << p->nplans) - 2 ? 0 : -EPROTO;
}

int td_nl_plans_get(struct td_nl *nl, uint32_t ifindex, struct td_plans *p)
{
	struct nl_msg *msg = request(nl, TORUS_CMD_NODE_GET, 0, ifindex);
	int err;

	if (!msg)
		return no_msg(nl, TORUS_CMD_NODE_GET);
	memset(p, 0, sizeof(*p));
	err = talk(nl, msg, TORUS_CMD_NODE_GET, plans_get_parse, p);
	nlmsg_free(msg);
	return err;
}

struct port_dump {
	struct td_kport	*ports;
	unsigned int	max;
	unsigned int	n;
	bool		overflow;
};

static int port_dump_parse(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[TORUS_A_MAX + 1];
	struct port_dump *d = arg;
	struct td_kport p;

	if (genlmsg_parse(nlh, 0, tb, TORUS_A_MAX, torus_policy) ||
	    !tb[TORUS_A_PORT] || parse_port(tb[TORUS_A_PORT], &p))
		return -EPROTO;
	if (d->n >= d->max) {
		d->overflow = true;
		return 0;
	}
	d->ports[d->n++] = p;
	return 0;
}

int td_nl_port_dump(struct td_nl *nl, uint32_t ifindex,
		    struct td_kport *ports, unsigned int max,
		    unsigned int *n)
{
	struct port_dump d = { .ports = ports, .max = max };
	struct nl_msg *msg;
	int err;

	msg = request(nl, TORUS_CMD_PORT_GET, NLM_F_DUMP, ifindex);
	if (!msg)
		return no_msg(nl, TORUS_CMD_PORT_GET);
	err = talk(nl, msg, TORUS_CMD_PORT_GET, port_dump_parse, &d);
	nlmsg_free(msg);
	*n = d.n;
	if (!err && d.overflow) {
		snprintf(nl->err, sizeof(nl->err),
			 "port dump: more than %u ports", max);
		err = -E2BIG;
	}
	return err;
}

static int put_axes(struct nl_msg *msg, int type, unsigned int n,
		    const uint32_t *vals, bool u8)
{
	struct nlattr *nest = nla_nest_start(msg, type | NLA_F_NESTED);
	unsigned int i;

	if (!nest)
		return -1;
	for (i = 0; i < n; i++) {
		if (u8 ? nla_put_u8(msg, TORUS_AXIS_A(i), (uint8_t)vals[i]) :
			 nla_put_u32(msg, TORUS_AXIS_A(i), vals[i]))
			return -1;
	}
	return nla_nest_end(msg, nest);
}

int td_nl_node_set(struct td_nl *nl, uint32_t ifindex,
		   const struct td_node_req *r)
{
	uint32_t coord[TC_MAX_AXES], dims[TC_MAX_AXES], wrap[TC_MAX_AXES];
	struct nl_msg *msg;
	unsigned int i;
	int err;

	msg = request(nl, TORUS_CMD_NODE_SET, 0, ifindex);
	if (!msg)
		return no_msg(nl, TORUS_CMD_NODE_SET);
	if ((r->id && nla_put_u64(msg, TORUS_A_NODE_ID, r->id)) ||
	    (r->leader && nla_put_u64(msg, TORUS_A_LEADER, r->leader)) ||
	    nla_put_u8(msg, TORUS_A_STATE, r->state) ||
	    nla_put_u8(msg, TORUS_A_ROLE, r->role) ||
	    (r->reason && nla_put_string(msg, TORUS_A_REASON, r->reason)))
		goto nomsg;
	if (r->geom) {
		for (i = 0; i < r->ndims && i < TC_MAX_AXES; i++) {
			coord[i] = r->coord[i];
			dims[i] = r->dims[i];
			wrap[i] = !!(r->wrap & (1u << i));
		}
		if (put_axes(msg, TORUS_A_COORD, i, coord, false) ||
		    put_axes(msg, TORUS_A_DIMS, i, dims, false) ||
		    put_axes(msg, TORUS_A_WRAP, i, wrap, true))
			goto nomsg;
	}
	err = talk(nl, msg, TORUS_CMD_NODE_SET, NULL, NULL);
	nlmsg_free(msg);
	return err;

nomsg:
	nlmsg_free(msg);
	return no_msg(nl, TORUS_CMD_NODE_SET);
}

int td_nl_portmap_set(struct td_nl *nl, uint32_t ifindex,
		      const uint32_t map[TORUS_MAX_DIRS])
{
	struct nlattr *nest, *entry;
	struct nl_msg *msg;
	unsigned int dir;
	int err;

	msg = request(nl, TORUS_CMD_PORTMAP_SET, 0, ifindex);
	if (!msg)
		return no_msg(nl, TORUS_CMD_PORTMAP_SET);
	nest = nla_nest_start(msg, TORUS_A_PORTMAP | NLA_F_NESTED);
	if (!nest)
		goto nomsg;
	for (dir = 0; dir < TORUS_MAX_DIRS; dir++) {
		if (!map[dir])
			continue;
		entry = nla_nest_start(msg, TORUS_A_PORTMAP_ENTRY | NLA_F_NESTED);
		if (!entry ||
		    nla_put_u8(msg, TORUS_PME_A_DIR, (uint8_t)dir) ||
		    nla_put_u32(msg, TORUS_PME_A_IFINDEX, map[dir]) ||
		    nla_nest_end(msg, entry))
			goto nomsg;
	}
	if (nla_nest_end(msg, nest))
		goto nomsg;
	err = talk(nl, msg, TORUS_CMD_PORTMAP_SET, NULL, NULL);
	nlmsg_free(msg);
	return err;

nomsg:
	nlmsg_free(msg);
	return no_msg(nl, TORUS_CMD_PORTMAP_SET);
}

int td_nl_plan_set(struct td_nl *nl, uint32_t ifindex, unsigned int nplans,
		   const uint8_t (*order)[TC_MAX_AXES],
		   const uint8_t (*policy)[TC_MAX_AXES], unsigned int ndims)
{
	uint32_t ord[TC_MAX_AXES], pol[TC_MAX_AXES];
	struct nlattr *plan;
	struct nl_msg *msg;
	unsigned int p, a;
	int err;

	msg = request(nl, TORUS_CMD_PLAN_SET, 0, ifindex);
	if (!msg)
		return no_msg(nl, TORUS_CMD_PLAN_SET);
	for (p = 1; p < nplans; p++) {
		plan = nla_nest_start(msg, TORUS_A_PLAN | NLA_F_NESTED);
		if (!plan || nla_put_u8(msg, TORUS_PLAN_A_INDEX, (uint8_t)p))
			goto nomsg;
		for (a = 0; a < ndims; a++) {
			ord[a] = order[p][a];
			pol[a] = policy[p][a];
		}
		if (put_axes(msg, TORUS_PLAN_A_ORDER, ndims, ord, true) ||
		    put_axes(msg, TORUS_PLAN_A_POLICY, ndims, pol, true) ||
		    nla_nest_end(msg, plan))
			goto nomsg;
	}
	err = talk(nl, msg, TORUS_CMD_PLAN_SET, NULL, NULL);
	nlmsg_free(msg);
	return err;

nomsg:
	nlmsg_free(msg);
	return no_msg(nl, TORUS_CMD_PLAN_SET);
}

int td_nl_coll_tree_set(struct td_nl *nl, uint32_t ifindex, bool set,
			uint8_t parent, uint32_t children)
{
	struct nlattr *nest;
	struct nl_msg *msg;
	int err;

	msg = request(nl, TORUS_CMD_COLL_TREE_SET, 0, ifindex);
	if (!msg)
		return no_msg(nl, TORUS_CMD_COLL_TREE_SET);
	if (set) {
		nest = nla_nest_start(msg, TORUS_A_COLL_TREE | NLA_F_NESTED);
		if (!nest ||
		    nla_put_u8(msg, TORUS_COLL_TREE_A_PARENT, parent) ||
		    nla_put_u32(msg, TORUS_COLL_TREE_A_CHILDREN, children) ||
		    nla_nest_end(msg, nest)) {
			nlmsg_free(msg);
			return no_msg(nl, TORUS_CMD_COLL_TREE_SET);
		}
	}
	err = talk(nl, msg, TORUS_CMD_COLL_TREE_SET, NULL, NULL);
	nlmsg_free(msg);
	return err;
}

static int coll_tree_get_parse(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[TORUS_A_MAX + 1], *tt[TORUS_COLL_TREE_A_MAX + 1];
	struct td_ktree *t = arg;

	if (genlmsg_parse(nlh, 0, tb, TORUS_A_MAX, torus_policy) ||
	    !tb[TORUS_A_COLL_TREE] || !tb[TORUS_A_COLL_TREE_SET] ||
	    nla_parse_nested(tt, TORUS_COLL_TREE_A_MAX, tb[TORUS_A_COLL_TREE],
			     coll_tree_policy) ||
	    !tt[TORUS_COLL_TREE_A_PARENT] || !tt[TORUS_COLL_TREE_A_CHILDREN])
		return -EPROTO;
	t->set = nla_get_u8(tb[TORUS_A_COLL_TREE_SET]);
	t->parent = nla_get_u8(tt[TORUS_COLL_TREE_A_PARENT]);
	t->children = nla_get_u32(tt[TORUS_COLL_TREE_A_CHILDREN]);
	t->valid = true;
	return 0;
}

int td_nl_coll_tree_get(struct td_nl *nl, uint32_t ifindex,
			struct td_ktree *t)
{
	struct nl_msg *msg = request(nl, TORUS_CMD_COLL_TREE_GET, 0, ifindex);
	int err;

	if (!msg)
		return no_msg(nl, TORUS_CMD_COLL_TREE_GET);
	memset(t, 0, sizeof(*t));
	err = talk(nl, msg, TORUS_CMD_COLL_TREE_GET, coll_tree_get_parse, t);
	nlmsg_free(msg);
	if (!err && !t->valid) {
		snprintf(nl->err, sizeof(nl->err), "coll tree get: no reply");
		err = -EPROTO;
	}
	return err;
}

/*
 * The exceptions as struct torus_exc_rec records, packed into as few
 * TORUS_A_ROUTES_PACKED attributes as their 16-bit lengths allow: a
 * tenth of the kernel's parsing of one TORUS_A_ROUTE nest each, and
 * less than half the bytes (make bench-routes).
 */
int td_nl_route_replace(struct td_nl *nl, uint32_t ifindex,
			const struct td_route_exc *exc, unsigned int n)
{
	const unsigned int per = TORUS_EXC_RECS_PER_ATTR;
	size_t size = 4096 + (size_t)n * sizeof(struct torus_exc_rec) +
		      (n / per + 1) * NLA_HDRLEN;
	struct torus_exc_rec *rec;
	unsigned int i, k, chunk;
	struct nl_msg *msg;
	int err, buf;

	msg = request_sized(nl, TORUS_CMD_ROUTE_BATCH, 0, ifindex, size);
	if (!msg)
		return no_msg(nl, TORUS_CMD_ROUTE_BATCH);
	if (nla_put_flag(msg, TORUS_A_ROUTES_REPLACE))
		goto nomsg;
	for (i = 0; i < n; i += chunk) {
		struct nlattr *attr;

		chunk = n - i < per ? n - i : per;
		attr = nla_reserve(msg, TORUS_A_ROUTES_PACKED,
				   (int)(chunk * sizeof(*rec)));
		if (!attr)
			goto nomsg;
		rec = nla_data(attr);
		memset(rec, 0, chunk * sizeof(*rec));
		for (k = 0; k < chunk; k++) {
			memcpy(rec[k].dst, exc[i + k].dst, TC_MAX_AXES);
			memcpy(rec[k].via, exc[i + k].via, TC_MAX_AXES);
			rec[k].plan = exc[i + k].plan0;
			rec[k].plan1 = exc[i + k].plan1;
			rec[k].dir = TORUS_DIR_NONE;
			rec[k].flags = TORUS_EXC_REC_VIA;
		}
	}
	/* a big table is one big message: the socket must take it whole */
	buf = (int)nlmsg_hdr(msg)->nlmsg_len + 65536;
	if (buf > 200000 &&
	    setsockopt(nl_socket_get_fd(nl->req), SOL_SOCKET, SO_SNDBUFFORCE,
		       &buf, sizeof(buf)))
		setsockopt(nl_socket_get_fd(nl->req), SOL_SOCKET, SO_SNDBUF,
			   &buf, sizeof(buf));
	err = talk(nl, msg, TORUS_CMD_ROUTE_BATCH, NULL, NULL);
	nlmsg_free(msg);
	return err;

nomsg:
	nlmsg_free(msg);
	return no_msg(nl, TORUS_CMD_ROUTE_BATCH);
}

/* ---- rtnetlink: the node device's addresses ---- */

struct addr_dump {
	uint32_t	ifindex;
	struct td_addr	*addrs;
	unsigned int	max;
	unsigned int	n;
	bool		overflow;
};

static int addr_dump_parse(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[IFA_MAX + 1];
	struct addr_dump *d = arg;
	struct ifaddrmsg *ifa;
	struct nlattr *at;
	struct td_addr a;
	int len;

	if (nlh->nlmsg_type != RTM_NEWADDR ||
	    nlmsg_parse(nlh, sizeof(*ifa), tb, IFA_MAX, NULL))
		return 0;
	ifa = nlmsg_data(nlh);
	if (ifa->ifa_index != d->ifindex ||
	    (ifa->ifa_family != AF_INET && ifa->ifa_family != AF_INET6))
		return 0;
	/* IFA_LOCAL is the address itself for IPv4 (IFA_ADDRESS the peer) */
	at = tb[IFA_LOCAL] ? tb[IFA_LOCAL] : tb[IFA_ADDRESS];
	len = ifa->ifa_family == AF_INET ? 4 : 16;
	if (!at || nla_len(at) != len)
		return 0;
	memset(&a, 0, sizeof(a));
	a.family = ifa->ifa_family;
	a.prefixlen = ifa->ifa_prefixlen;
	memcpy(a.addr, nla_data(at), (size_t)len);
	if (d->n >= d->max) {
		d->overflow = true;
		return 0;
	}
	d->addrs[d->n++] = a;
	return 0;
}

int td_nl_addr_dump(struct td_nl *nl, uint32_t ifindex,
		    struct td_addr *addrs, unsigned int max, unsigned int *n)
{
	struct addr_dump d = { .ifindex = ifindex, .addrs = addrs,
			       .max = max };
	struct ifaddrmsg ifa = { .ifa_family = AF_UNSPEC };
	struct nl_msg *msg;
	int err;

	*n = 0;
	msg = nlmsg_alloc_simple(RTM_GETADDR, NLM_F_REQUEST | NLM_F_DUMP);
	if (!msg || nlmsg_append(msg, &ifa, sizeof(ifa), NLMSG_ALIGNTO)) {
		nlmsg_free(msg);
		snprintf(nl->err, sizeof(nl->err),
			 "address dump: cannot build the message");
		return -ENOMEM;
	}
	err = talk_on(nl, nl->rt, "address dump", msg, addr_dump_parse, &d);
	nlmsg_free(msg);
	*n = d.n;
	if (!err && d.overflow) {
		snprintf(nl->err, sizeof(nl->err),
			 "address dump: more than %u addresses", max);
		err = -E2BIG;
	}
	return err;
}

int td_nl_addr_change(struct td_nl *nl, uint32_t ifindex,
		      const struct td_addr *a, bool add)
{
	struct ifaddrmsg ifa = {
		.ifa_family = a->family,
		.ifa_prefixlen = a->prefixlen,
		.ifa_index = ifindex,
	};
	int len = a->family == AF_INET ? 4 : 16, err;
	const char *what = add ? "address add" : "address delete";
	struct nl_msg *msg;

	/* IPv6: usable at once, the plan gives every node its own address */
	if (a->family == AF_INET6)
		ifa.ifa_flags = IFA_F_NODAD;
	msg = nlmsg_alloc_simple(add ? RTM_NEWADDR : RTM_DELADDR,
				 NLM_F_REQUEST | NLM_F_ACK |
				 (add ? NLM_F_CREATE | NLM_F_REPLACE : 0));
	if (!msg || nlmsg_append(msg, &ifa, sizeof(ifa), NLMSG_ALIGNTO) ||
	    nla_put(msg, IFA_LOCAL, len, a->addr) ||
	    nla_put(msg, IFA_ADDRESS, len, a->addr) ||
	    (a->family == AF_INET6 &&
	     nla_put_u32(msg, IFA_FLAGS, IFA_F_NODAD))) {
		nlmsg_free(msg);
		snprintf(nl->err, sizeof(nl->err), "%s: cannot build the message",
			 what);
		return -ENOMEM;
	}
	err = talk_on(nl, nl->rt, what, msg, NULL, NULL);
	nlmsg_free(msg);
	return err;
}

/* ---- events ---- */

static void event_one(struct td_nl *nl, struct nlmsghdr *nlh,
		      td_event_cb cb, void *arg)
{
	struct nlattr *tb[TORUS_A_MAX + 1];
	struct genlmsghdr *gh;
	struct td_event ev;

	if (nlh->nlmsg_type != nl->family ||
	    nlh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
		return;
	gh = nlmsg_data(nlh);
	if (gh->cmd != TORUS_CMD_NODE_EVENT && gh->cmd != TORUS_CMD_PORT_EVENT &&
	    gh->cmd != TORUS_CMD_NODE_REDISCOVER)
		return;
	if (genlmsg_parse(nlh, 0, tb, TORUS_A_MAX, torus_policy))
		return;
	memset(&ev, 0, sizeof(ev));
	ev.cmd = gh->cmd;
	if (tb[TORUS_A_IFINDEX])
		ev.ifindex = nla_get_u32(tb[TORUS_A_IFINDEX]);
	if (tb[TORUS_A_PORT] && !parse_port(tb[TORUS_A_PORT], &ev.port))
		ev.has_port = true;
	cb(arg, &ev);
}

int td_nl_events(struct td_nl *nl, td_event_cb cb, void *arg)
{
	int fd = nl_socket_get_fd(nl->ev);
	struct nlmsghdr *nlh;
	ssize_t len;
	int rem;

	for (;;) {
		len = recv(fd, nl->evbuf, TD_NL_EVBUF, MSG_DONTWAIT);
		if (len < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			snprintf(nl->err, sizeof(nl->err), "events: %s",
				 strerror(errno));
			return -errno;
		}
		if (len == 0)
			return 0;
		rem = (int)len;
		for (nlh = (struct nlmsghdr *)nl->evbuf; nlmsg_ok(nlh, rem);
		     nlh = nlmsg_next(nlh, &rem))
			event_one(nl, nlh, cb, arg);
	}
}
