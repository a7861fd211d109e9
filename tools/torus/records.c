// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * records.c - parse node/port/route messages into structs and print them
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <linux/genetlink.h>

#include "json_print.h"
#include "parse.h"
#include "records.h"

#define LIST_STR_LEN	(TORUS_MAX_AXES * 4 + 1)

struct tb_ctx {
	const struct nlattr	**tb;
	unsigned int		max;
};

static int tb_cb(const struct nlattr *attr, void *data)
{
	struct tb_ctx *ctx = data;
	uint16_t type = mnl_attr_get_type(attr);

	if (type <= ctx->max)
		ctx->tb[type] = attr;
	return MNL_CB_OK;
}

static int parse_msg(const struct nlmsghdr *nlh, const struct nlattr **tb,
		     unsigned int max)
{
	struct tb_ctx ctx = { .tb = tb, .max = max };

	if (mnl_nlmsg_get_payload_len(nlh) < GENL_HDRLEN)
		return -1;
	/* up to nlmsg_len, not mnl_attr_parse()'s aligned end: the last
	 * message of a datagram need not be padded
	 */
	return mnl_attr_parse_payload((const char *)mnl_nlmsg_get_payload(nlh) +
				      GENL_HDRLEN,
				      mnl_nlmsg_get_payload_len(nlh) -
				      GENL_HDRLEN, tb_cb, &ctx) == MNL_CB_OK ?
		0 : -1;
}

static int parse_nest(const struct nlattr *nest, const struct nlattr **tb,
		      unsigned int max)
{
	struct tb_ctx ctx = { .tb = tb, .max = max };

	return mnl_attr_parse_nested(nest, tb_cb, &ctx) == MNL_CB_OK ? 0 : -1;
}

static bool get_u8(const struct nlattr *a, uint8_t *v)
{
	if (!a || mnl_attr_get_payload_len(a) < sizeof(*v))
		return false;
	*v = mnl_attr_get_u8(a);
	return true;
}

static bool get_u32(const struct nlattr *a, uint32_t *v)
{
	if (!a || mnl_attr_get_payload_len(a) < sizeof(*v))
		return false;
	*v = mnl_attr_get_u32(a);
	return true;
}

static bool get_u64(const struct nlattr *a, uint64_t *v)
{
	if (!a || mnl_attr_get_payload_len(a) < sizeof(*v))
		return false;
	*v = mnl_attr_get_u64(a);
	return true;
}

static void get_str(const struct nlattr *a, char *buf, size_t len)
{
	size_t n;

	if (!a)
		return;
	n = mnl_attr_get_payload_len(a);
	if (n >= len)
		n = len - 1;
	memcpy(buf, mnl_attr_get_payload(a), n);
	buf[n] = '\0';
	buf[strnlen(buf, n)] = '\0';
}

/*
 * per-axis nest (type = axis + 1) of u32 into @v32, or of u8 into @v8
 * when @v32 is NULL; returns the number of axes
 */
static unsigned int get_axes(const struct nlattr *nest, uint32_t *v32,
			     uint8_t *v8)
{
	const struct nlattr *a;
	unsigned int n = 0, axis;
	bool ok;

	if (!nest)
		return 0;
	mnl_attr_for_each_nested(a, nest) {
		axis = mnl_attr_get_type(a);
		if (axis < 1 || axis > TORUS_MAX_AXES)
			continue;
		ok = v32 ? get_u32(a, &v32[axis - 1]) :
			   get_u8(a, &v8[axis - 1]);
		if (ok && axis > n)
			n = axis;
	}
	return n;
}

static void get_stats(const struct nlattr *nest, struct torus_stats_rec *s)
{
	const struct nlattr *tb[TORUS_STATS_A_MAX + 1] = {};
	const struct nlattr *a;
	unsigned int reason;

	if (!nest || parse_nest(nest, tb, TORUS_STATS_A_MAX))
		return;
	s->present = true;
	get_u64(tb[TORUS_STATS_A_RX_PACKETS], &s->rx_packets);
	get_u64(tb[TORUS_STATS_A_RX_BYTES], &s->rx_bytes);
	get_u64(tb[TORUS_STATS_A_TX_PACKETS], &s->tx_packets);
	get_u64(tb[TORUS_STATS_A_TX_BYTES], &s->tx_bytes);
	get_u64(tb[TORUS_STATS_A_FWD_PACKETS], &s->fwd_packets);
	get_u64(tb[TORUS_STATS_A_DETOURS], &s->detours);
	get_u64(tb[TORUS_STATS_A_DROPS], &s->drops);
	if (!tb[TORUS_STATS_A_DROP])
		return;
	mnl_attr_for_each_nested(a, tb[TORUS_STATS_A_DROP]) {
		reason = mnl_attr_get_type(a);
		if (reason < 1 || reason > TORUS_REC_MAX_DROPS ||
		    !get_u64(a, &s->drop[reason - 1]))
			continue;
		s->drop_mask |= 1u << (reason - 1);
	}
}

/* every TORUS_A_PLAN of a node message (the attribute repeats) */
static void get_plans(const struct nlmsghdr *nlh, struct torus_node_rec *r)
{
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, GENL_HDRLEN) {
		const struct nlattr *pb[TORUS_PLAN_A_MAX + 1] = {};
		struct torus_plan_rec *p;
		uint8_t index;

		if (mnl_attr_get_type(a) != TORUS_A_PLAN ||
		    parse_nest(a, pb, TORUS_PLAN_A_MAX) ||
		    !get_u8(pb[TORUS_PLAN_A_INDEX], &index) ||
		    index >= TORUS_MAX_PLANS)
			continue;
		p = &r->plans[index];
		p->n_order = get_axes(pb[TORUS_PLAN_A_ORDER], NULL, p->order);
		p->n_policy = get_axes(pb[TORUS_PLAN_A_POLICY], NULL,
				       p->policy);
		r->plans_present |= 1u << index;
	}
}

static void ifname_of(uint32_t ifindex, char *buf)
{
	char tmp[IF_NAMESIZE];

	if (ifindex && if_indextoname(ifindex, tmp))
		memcpy(buf, tmp, IF_NAMESIZE);
}

/* the name in @a, else the name @ifindex has in this netns */
static void get_ifname(const struct nlattr *a, uint32_t ifindex, char *buf)
{
	get_str(a, buf, IF_NAMESIZE);
	if (!buf[0])
		ifname_of(ifindex, buf);
}

int node_rec_parse(const struct nlmsghdr *nlh, struct torus_node_rec *r)
{
	const struct nlattr *tb[TORUS_A_MAX + 1] = {};

	memset(r, 0, sizeof(*r));
	if (parse_msg(nlh, tb, TORUS_A_MAX) || !get_u32(tb[TORUS_A_IFINDEX],
							&r->ifindex))
		return -1;
	get_ifname(tb[TORUS_A_IFNAME], r->ifindex, r->ifname);
	get_u64(tb[TORUS_A_NODE_ID], &r->id);
	get_u64(tb[TORUS_A_LEADER], &r->leader);
	r->n_coord = get_axes(tb[TORUS_A_COORD], r->coord, NULL);
	r->n_dims = get_axes(tb[TORUS_A_DIMS], r->dims, NULL);
	r->n_wrap = get_axes(tb[TORUS_A_WRAP], NULL, r->wrap);
	get_u8(tb[TORUS_A_STATE], &r->state);
	get_u8(tb[TORUS_A_ROLE], &r->role);
	get_str(tb[TORUS_A_REASON], r->reason, sizeof(r->reason));
	get_u8(tb[TORUS_A_HOP_LIMIT], &r->hop_limit);
	get_u32(tb[TORUS_A_GENERATION], &r->generation);
	get_u32(tb[TORUS_A_ROUTES_GENERATION], &r->routes_generation);
	get_u32(tb[TORUS_A_ROUTES_COUNT], &r->routes_count);
	get_stats(tb[TORUS_A_STATS], &r->stats);
	get_plans(nlh, r);
	return 0;
}

int port_rec_parse(const struct nlmsghdr *nlh, struct torus_port_rec *r)
{
	const struct nlattr *tb[TORUS_A_MAX + 1] = {};
	const struct nlattr *pb[TORUS_PORT_A_MAX + 1] = {};
	uint32_t netnsid;
	uint8_t carrier;

	memset(r, 0, sizeof(*r));
	r->label = TORUS_DIR_NONE;
	r->global_dir = TORUS_DIR_NONE;
	if (parse_msg(nlh, tb, TORUS_A_MAX) || !tb[TORUS_A_PORT] ||
	    parse_nest(tb[TORUS_A_PORT], pb, TORUS_PORT_A_MAX) ||
	    !get_u32(pb[TORUS_PORT_A_IFINDEX], &r->ifindex))
		return -1;
	get_u32(tb[TORUS_A_IFINDEX], &r->node_ifindex);
	get_str(tb[TORUS_A_IFNAME], r->node_ifname, sizeof(r->node_ifname));
	get_ifname(pb[TORUS_PORT_A_IFNAME], r->ifindex, r->ifname);
	if (get_u32(pb[TORUS_PORT_A_MASTER], &r->master) && r->master) {
		if (r->master == r->node_ifindex && r->node_ifname[0])
			memcpy(r->master_name, r->node_ifname, IF_NAMESIZE);
		else
			ifname_of(r->master, r->master_name);
	}
	get_u8(pb[TORUS_PORT_A_LABEL], &r->label);
	get_u32(pb[TORUS_PORT_A_PEER_IFINDEX], &r->peer_ifindex);
	get_str(pb[TORUS_PORT_A_PEER_IFNAME], r->peer_name,
		sizeof(r->peer_name));
	if (get_u32(pb[TORUS_PORT_A_PEER_NETNSID], &netnsid)) {
		r->has_peer_netnsid = true;
		r->peer_netnsid = (int32_t)netnsid;
	}
	if (get_u8(pb[TORUS_PORT_A_CARRIER], &carrier))
		r->carrier = carrier;
	get_u8(pb[TORUS_PORT_A_GLOBAL_DIR], &r->global_dir);
	get_u32(pb[TORUS_PORT_A_LOSS_PPM], &r->loss_ppm);
	get_stats(pb[TORUS_PORT_A_STATS], &r->stats);
	return 0;
}

int route_rec_parse(const struct nlmsghdr *nlh, struct torus_route_rec *r)
{
	const struct nlattr *tb[TORUS_A_MAX + 1] = {};
	const struct nlattr *rb[TORUS_ROUTE_A_MAX + 1] = {};

	memset(r, 0, sizeof(*r));
	if (parse_msg(nlh, tb, TORUS_A_MAX) || !tb[TORUS_A_ROUTE] ||
	    parse_nest(tb[TORUS_A_ROUTE], rb, TORUS_ROUTE_A_MAX))
		return -1;
	get_u32(tb[TORUS_A_IFINDEX], &r->ifindex);
	get_ifname(tb[TORUS_A_IFNAME], r->ifindex, r->ifname);
	r->n_dst = get_axes(rb[TORUS_ROUTE_A_DST], r->dst, NULL);
	r->n_via = get_axes(rb[TORUS_ROUTE_A_VIA], r->via, NULL);
	r->has_dir = get_u8(rb[TORUS_ROUTE_A_DIR], &r->dir);
	r->has_plan = get_u8(rb[TORUS_ROUTE_A_PLAN], &r->plan);
	r->has_plan1 = get_u8(rb[TORUS_ROUTE_A_PLAN1], &r->plan1);
	r->has_generation = get_u32(tb[TORUS_A_ROUTES_GENERATION],
				    &r->generation);
	r->has_vc = get_u8(rb[TORUS_ROUTE_A_VC], &r->vc);
	r->has_why = get_u8(rb[TORUS_ROUTE_A_WHY], &r->why);
	r->has_next_dir = get_u8(rb[TORUS_ROUTE_A_NEXT_DIR], &r->next_dir);
	if (get_u32(rb[TORUS_ROUTE_A_NEXT_PORT], &r->next_port))
		ifname_of(r->next_port, r->next_port_name);
	r->exception = rb[TORUS_ROUTE_A_EXCEPTION] != NULL;
	get_u32(rb[TORUS_ROUTE_A_HOPS], &r->hops);
	return 0;
}

/* printing */

static void print_u32_array(const char *key, const char *text,
			    const uint32_t *vals, unsigned int n)
{
	char buf[LIST_STR_LEN];
	unsigned int i;

	open_json_array(PRINT_JSON, key);
	for (i = 0; i < n; i++)
		print_uint(PRINT_JSON, NULL, NULL, vals[i]);
	close_json_array(PRINT_JSON, NULL);
	if (text && !is_json_context())
		print_string(PRINT_FP, NULL, text,
			     n ? format_u32_list(vals, n, buf, sizeof(buf)) :
				 "-");
}

static void print_dir(const char *key, const char *text, uint8_t dir)
{
	char buf[DIR_STR_LEN];

	print_string_or_null(PRINT_ANY, key, text, format_dir(dir, buf));
}

/* the counters line: @type PRINT_ANY for members too, PRINT_FP text only */
static void print_counters(enum output_type type,
			   const struct torus_stats_rec *s, bool fwd)
{
	print_u64(type, "rx_packets", "    rx_packets %" PRIu64, s->rx_packets);
	print_u64(type, "rx_bytes", " rx_bytes %" PRIu64, s->rx_bytes);
	print_u64(type, "tx_packets", " tx_packets %" PRIu64, s->tx_packets);
	print_u64(type, "tx_bytes", " tx_bytes %" PRIu64, s->tx_bytes);
	if (fwd) {
		print_u64(type, "fwd_packets", " fwd_packets %" PRIu64,
			  s->fwd_packets);
		print_u64(type, "detours", " detours %" PRIu64, s->detours);
	}
	print_u64(type, "drops", " drops %" PRIu64, s->drops);
	print_nl();
}

/* a record's "ifindex: ifname:" */
static void print_ifname(uint32_t ifindex, const char *ifname)
{
	print_uint(PRINT_ANY, "ifindex", "%u: ", ifindex);
	print_string(PRINT_ANY, "ifname", "%s:", ifname);
}

static void print_drops(const struct torus_stats_rec *s, int stats)
{
	char name[24];
	const char *n;
	unsigned int i;
	bool any = false;

	open_json_object("drop");
	for (i = 0; i < TORUS_REC_MAX_DROPS; i++) {
		if (!(s->drop_mask & (1u << i)))
			continue;
		/* text: -s shows the reasons that counted, -s -s all */
		if (!is_json_context() && !s->drop[i] && stats < 2)
			continue;
		n = format_drop_reason(i);
		if (!n) {
			snprintf(name, sizeof(name), "reason_%u", i);
			n = name;
		}
		if (!any)
			print_string(PRINT_FP, NULL, "%s", "    drop");
		any = true;
		if (is_json_context()) {
			print_u64(PRINT_JSON, n, NULL, s->drop[i]);
		} else {
			print_string(PRINT_FP, NULL, " %s", n);
			print_u64(PRINT_FP, NULL, " %" PRIu64, s->drop[i]);
		}
	}
	close_json_object();
	if (any)
		print_nl();
}

/* "plans": [{"index": 1, "order": "zyx", "policy": ["+", ...]}, ...] */
static void print_plans(const struct torus_node_rec *r)
{
	static const char *const policy_names[] = { "shortest", "+", "-" };
	unsigned int i, axis;

	open_json_array(PRINT_JSON, "plans");
	for (i = 1; i < TORUS_MAX_PLANS; i++) {
		const struct torus_plan_rec *p = &r->plans[i];
		char order[TORUS_MAX_AXES + 1] = "";

		if (!(r->plans_present & (1u << i)))
			continue;
		for (axis = 0; axis < p->n_order && p->order[axis] <
		     TORUS_MAX_AXES; axis++)
			order[axis] = TORUS_AXIS_NAMES[p->order[axis]];
		open_json_object(NULL);
		print_uint(PRINT_ANY, "index", " plan %u", i);
		print_string(PRINT_ANY, "order", " order %s", order);
		open_json_array(PRINT_ANY, "policy");
		print_string(PRINT_FP, NULL, "%s", " policy ");
		for (axis = 0; axis < p->n_policy; axis++) {
			uint8_t v = p->policy[axis];

			print_string(PRINT_ANY, NULL, axis ? ",%s" : "%s",
				     v <= TORUS_PLAN_POLICY_MAX ?
				     policy_names[v] : "?");
		}
		close_json_array(PRINT_ANY, NULL);
		close_json_object();
	}
	close_json_array(PRINT_JSON, NULL);
}

void node_rec_print_fields(const struct torus_node_rec *r, int stats)
{
	const struct torus_stats_rec *s = &r->stats;
	char buf[LIST_STR_LEN * 2];
	unsigned int i;
	int off = 0;

	print_ifname(r->ifindex, r->ifname);
	print_string(PRINT_ANY, "state", " state %s", format_state(r->state));
	print_string(PRINT_ANY, "role", " role %s", format_role(r->role));
	print_u64_as_string(PRINT_ANY, "id", " id %" PRIu64, r->id);
	if (r->leader)
		print_u64_as_string(PRINT_ANY, "leader", " leader %" PRIu64,
				    r->leader);
	print_uint(PRINT_ANY, "generation", " generation %u", r->generation);
	print_nl();

	print_u32_array("coord", "    coord %s", r->coord, r->n_coord);
	print_u32_array("dims", " dims %s", r->dims, r->n_dims);
	open_json_array(PRINT_JSON, "wrap");
	for (i = 0; i < r->n_wrap; i++) {
		print_bool(PRINT_JSON, NULL, NULL, r->wrap[i]);
		off += snprintf(buf + off, sizeof(buf) - (size_t)off, "%s%s",
				i ? "," : "", r->wrap[i] ? "torus" : "mesh");
	}
	close_json_array(PRINT_JSON, NULL);
	print_string(PRINT_FP, NULL, " wrap %s", r->n_wrap ? buf : "-");
	print_uint(PRINT_ANY, "hop_limit", " hoplimit %u", r->hop_limit);
	print_nl();

	/* text: only for a node that has had routing state */
	if (is_json_context() || r->routes_count || r->routes_generation ||
	    r->plans_present) {
		print_uint(PRINT_ANY, "routes", "    routes %u",
			   r->routes_count);
		print_uint(PRINT_ANY, "routes_generation",
			   " routes_generation %u", r->routes_generation);
		print_plans(r);
		print_nl();
	}

	print_string(PRINT_JSON, "reason", NULL, r->reason);
	if (r->reason[0]) {
		print_string(PRINT_FP, NULL, "    reason \"%s\"", r->reason);
		print_nl();
	}

	if (!stats)
		return;
	open_json_object("stats");
	print_counters(PRINT_ANY, s, true);
	print_drops(s, stats);
	close_json_object();
}

void node_plans_print(const struct torus_node_rec *r)
{
	open_json_object(NULL);
	print_string(PRINT_ANY, "ifname", "%s:", r->ifname);
	print_plans(r);
	if (!r->plans_present)
		print_string(PRINT_FP, NULL, "%s", " plan 0 only");
	print_nl();
	close_json_object();
}

void node_rec_print(const struct torus_node_rec *r, int stats)
{
	open_json_object(NULL);
	node_rec_print_fields(r, stats);
	close_json_object();
}

void port_rec_print_fields(const struct torus_port_rec *r, int stats)
{
	const struct torus_stats_rec *s = &r->stats;
	char pct[PCT_STR_LEN];

	print_ifname(r->ifindex, r->ifname);
	print_string_or_null(PRINT_ANY, "master", " master %s",
			     r->master_name[0] ? r->master_name : NULL);
	print_dir("dir", " dir %s", r->label);
	print_dir("global_dir", " global_dir %s", r->global_dir);
	print_string_or_null(PRINT_ANY, "peer", " peer %s",
			     r->peer_name[0] ? r->peer_name : NULL);
	if (r->peer_ifindex)
		print_uint(PRINT_ANY, "peer_ifindex", " peer_ifindex %u",
			   r->peer_ifindex);
	else
		print_null(PRINT_JSON, "peer_ifindex", NULL, NULL);
	if (r->has_peer_netnsid)
		print_int(PRINT_ANY, "peer_netnsid", " peer_netnsid %d",
			  r->peer_netnsid);
	print_bool(PRINT_JSON, "carrier", NULL, r->carrier);
	print_string(PRINT_FP, NULL, " carrier %s", r->carrier ? "up" : "down");
	print_number(PRINT_ANY, "loss_pct", " loss %s%%",
		     format_ppm_pct(r->loss_ppm, pct));
	print_nl();

	print_u64(PRINT_JSON, "rx_packets", NULL, s->rx_packets);
	print_u64(PRINT_JSON, "tx_packets", NULL, s->tx_packets);
	print_u64(PRINT_JSON, "rx_bytes", NULL, s->rx_bytes);
	print_u64(PRINT_JSON, "tx_bytes", NULL, s->tx_bytes);
	print_u64(PRINT_JSON, "drops", NULL, s->drops);
	if (!stats)
		return;
	/* JSON has the counters above, in any case */
	print_counters(PRINT_FP, s, false);
	print_drops(s, stats);
}

void port_rec_print(const struct torus_port_rec *r, int stats)
{
	open_json_object(NULL);
	port_rec_print_fields(r, stats);
	close_json_object();
}

static void route_common(const struct torus_route_rec *r)
{
	if (r->ifname[0])
		print_string(PRINT_ANY, "ifname", "dev %s ", r->ifname);
	print_u32_array("dst", "dst %s", r->dst, r->n_dst);
	if (r->n_via)
		print_u32_array("via", " via %s", r->via, r->n_via);
}

void route_rec_print(const struct torus_route_rec *r)
{
	open_json_object(NULL);
	route_common(r);
	if (r->has_dir)
		print_dir("dir", " dir %s", r->dir);
	if (r->has_plan)
		print_uint(PRINT_ANY, "plan", " plan %u", r->plan);
	if (r->has_plan1)
		print_uint(PRINT_ANY, "plan1", " plan1 %u", r->plan1);
	if (r->has_generation)
		print_uint(PRINT_ANY, "generation", " generation %u",
			   r->generation);
	print_nl();
	close_json_object();
}

void route_get_print(const struct torus_route_rec *r)
{
	bool local = !r->has_next_dir || r->next_dir == TORUS_DIR_NONE;

	open_json_object(NULL);
	route_common(r);
	print_bool(PRINT_JSON, "local", NULL, local);
	if (local)
		print_string(PRINT_FP, NULL, "%s", " local");
	print_dir("next_dir", " next_dir %s",
		  local ? TORUS_DIR_NONE : r->next_dir);
	print_string_or_null(PRINT_ANY, "next_port", " next_port %s",
			     !local && r->next_port_name[0] ?
			     r->next_port_name : NULL);
	print_bool(PRINT_JSON, "exception", NULL, r->exception);
	if (r->exception)
		print_string(PRINT_FP, NULL, "%s", " exception");
	print_uint(PRINT_ANY, "hops", " hops %u", r->hops);
	if (r->has_vc) {
		print_uint(PRINT_ANY, "plan", " plan %u", TORUS_VC_PLAN(r->vc));
		print_uint(PRINT_ANY, "round", " round %u",
			   TORUS_VC_ROUND(r->vc));
		print_uint(PRINT_ANY, "vc", " vc %u", r->vc);
		if (r->has_plan1)
			print_uint(PRINT_ANY, "plan1", " plan1 %u", r->plan1);
	}
	if (r->has_why)
		print_string(PRINT_ANY, "why", " why %s",
			     format_route_why(r->why));
	print_nl();
	close_json_object();
}
