// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_records.c - node/port/route records: parsed from fake generic
 * netlink messages, printed in text and JSON (tools/torus/records.c)
 */
#include <linux/genetlink.h>

#include "json_print.h"
#include "records.h"
#include "unit.h"

#define NO_SUCH_IFINDEX	0x7ffffff0u

static char buf[8192];

static struct nlmsghdr *msg_begin(uint8_t cmd)
{
	struct nlmsghdr *nlh;
	struct genlmsghdr *genl;

	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = 0x20;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = TORUS_GENL_VERSION;
	return nlh;
}

static void put_axes(struct nlmsghdr *nlh, uint16_t type, const uint32_t *v,
		     unsigned int n)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, type);
	unsigned int i;

	for (i = 0; i < n; i++)
		mnl_attr_put_u32(nlh, TORUS_AXIS_A(i), v[i]);
	mnl_attr_nest_end(nlh, nest);
}

static void put_stats(struct nlmsghdr *nlh, uint16_t type, bool drops)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, type);
	struct nlattr *drop;

	mnl_attr_put_u64(nlh, TORUS_STATS_A_RX_PACKETS, 10);
	mnl_attr_put_u64(nlh, TORUS_STATS_A_RX_BYTES, 1000);
	mnl_attr_put_u64(nlh, TORUS_STATS_A_TX_PACKETS, 5);
	mnl_attr_put_u64(nlh, TORUS_STATS_A_TX_BYTES, 500);
	mnl_attr_put_u64(nlh, TORUS_STATS_A_FWD_PACKETS, 3);
	mnl_attr_put_u64(nlh, TORUS_STATS_A_DROPS, 2);
	if (drops) {
		drop = mnl_attr_nest_start(nlh, TORUS_STATS_A_DROP);
		mnl_attr_put_u64(nlh, TORUS_DROP_MALFORMED + 1, 0);
		mnl_attr_put_u64(nlh, TORUS_DROP_LINK_DOWN + 1, 1);
		mnl_attr_put_u64(nlh, TORUS_DROP_LOSS + 1, 1);
		mnl_attr_nest_end(nlh, drop);
	}
	mnl_attr_nest_end(nlh, nest);
}

static const struct nlmsghdr *node_msg(void)
{
	static const uint32_t coord[] = { 1, 2, 3 }, dims[] = { 4, 4, 4 };
	struct nlmsghdr *nlh = msg_begin(TORUS_CMD_NODE_GET);
	struct nlattr *wrap;

	mnl_attr_put_u32(nlh, TORUS_A_IFINDEX, 5);
	mnl_attr_put_strz(nlh, TORUS_A_IFNAME, "tor0");
	mnl_attr_put_u64(nlh, TORUS_A_NODE_ID, 42);
	put_axes(nlh, TORUS_A_COORD, coord, 3);
	put_axes(nlh, TORUS_A_DIMS, dims, 3);
	wrap = mnl_attr_nest_start(nlh, TORUS_A_WRAP);
	mnl_attr_put_u8(nlh, TORUS_AXIS_A(0), 1);
	mnl_attr_put_u8(nlh, TORUS_AXIS_A(1), 1);
	mnl_attr_put_u8(nlh, TORUS_AXIS_A(2), 0);
	mnl_attr_nest_end(nlh, wrap);
	mnl_attr_put_u8(nlh, TORUS_A_STATE, TORUS_STATE_PLACED);
	mnl_attr_put_u8(nlh, TORUS_A_ROLE, TORUS_ROLE_LEADER);
	mnl_attr_put_strz(nlh, TORUS_A_REASON, "");
	mnl_attr_put_u8(nlh, TORUS_A_HOP_LIMIT, 0);
	mnl_attr_put_u32(nlh, TORUS_A_GENERATION, 7);
	put_stats(nlh, TORUS_A_STATS, true);
	return nlh;
}

static const struct nlmsghdr *port_msg(void)
{
	struct nlmsghdr *nlh = msg_begin(TORUS_CMD_PORT_GET);
	struct nlattr *port;

	mnl_attr_put_u32(nlh, TORUS_A_IFINDEX, 5);
	mnl_attr_put_strz(nlh, TORUS_A_IFNAME, "tor0");
	port = mnl_attr_nest_start(nlh, TORUS_A_PORT);
	mnl_attr_put_u32(nlh, TORUS_PORT_A_IFINDEX, 7);
	mnl_attr_put_strz(nlh, TORUS_PORT_A_IFNAME, "tp0");
	mnl_attr_put_u8(nlh, TORUS_PORT_A_LABEL, TORUS_DIR(0, 0));
	mnl_attr_put_u32(nlh, TORUS_PORT_A_PEER_IFINDEX, 8);
	mnl_attr_put_strz(nlh, TORUS_PORT_A_PEER_IFNAME, "tp1");
	mnl_attr_put_u32(nlh, TORUS_PORT_A_PEER_NETNSID, 1);
	mnl_attr_put_u8(nlh, TORUS_PORT_A_CARRIER, 1);
	mnl_attr_put_u8(nlh, TORUS_PORT_A_GLOBAL_DIR, TORUS_DIR(1, 1));
	mnl_attr_put_u32(nlh, TORUS_PORT_A_LOSS_PPM, 125000);
	mnl_attr_put_u32(nlh, TORUS_PORT_A_MASTER, 5);
	put_stats(nlh, TORUS_PORT_A_STATS, true);
	mnl_attr_nest_end(nlh, port);
	return nlh;
}

/* a plain Ethernet port: no label, no peer, not mapped, no master */
static const struct nlmsghdr *bare_port_msg(void)
{
	struct nlmsghdr *nlh = msg_begin(TORUS_CMD_PORT_GET);
	struct nlattr *port;

	port = mnl_attr_nest_start(nlh, TORUS_A_PORT);
	mnl_attr_put_u32(nlh, TORUS_PORT_A_IFINDEX, NO_SUCH_IFINDEX);
	mnl_attr_put_strz(nlh, TORUS_PORT_A_IFNAME, "eth0");
	mnl_attr_put_u8(nlh, TORUS_PORT_A_LABEL, TORUS_DIR_NONE);
	mnl_attr_put_u8(nlh, TORUS_PORT_A_CARRIER, 0);
	mnl_attr_put_u8(nlh, TORUS_PORT_A_GLOBAL_DIR, TORUS_DIR_NONE);
	mnl_attr_nest_end(nlh, port);
	return nlh;
}

#define CAPTURE(json, pretty, body)					\
	({								\
		struct unit_capture c_;					\
		new_json_obj(unit_capture_begin(&c_), json, pretty);	\
		body;							\
		delete_json_obj();					\
		unit_capture_end(&c_);					\
	})

UNIT_TEST(node_parse)
{
	struct torus_node_rec r;

	UNIT_CHECK(node_rec_parse(node_msg(), &r) == 0);
	UNIT_CHECK(r.ifindex == 5);
	UNIT_STREQ(r.ifname, "tor0");
	UNIT_CHECK(r.id == 42);
	UNIT_CHECK(r.n_coord == 3 && r.coord[2] == 3);
	UNIT_CHECK(r.n_dims == 3 && r.dims[0] == 4);
	UNIT_CHECK(r.n_wrap == 3 && r.wrap[0] == 1 && r.wrap[2] == 0);
	UNIT_CHECK(r.state == TORUS_STATE_PLACED);
	UNIT_CHECK(r.role == TORUS_ROLE_LEADER);
	UNIT_CHECK(r.generation == 7);
	UNIT_CHECK(r.stats.present && r.stats.rx_bytes == 1000);
	UNIT_CHECK(r.stats.drop_mask == ((1u << TORUS_DROP_MALFORMED) |
					 (1u << TORUS_DROP_LINK_DOWN) |
					 (1u << TORUS_DROP_LOSS)));
}

/*
 * found by tests/fuzz/fuzz_records: a message whose length is not a
 * multiple of 4 ends its datagram; its last attribute reaches into the
 * padding mnl_attr_parse() assumes, past the bytes received
 */
UNIT_TEST(node_parse_unpadded_end)
{
	struct nlmsghdr *nlh = msg_begin(TORUS_CMD_NODE_GET);
	struct torus_node_rec r;
	size_t len;
	char *exact;

	mnl_attr_put_u32(nlh, TORUS_A_IFINDEX, NO_SUCH_IFINDEX);
	mnl_attr_put_strz(nlh, TORUS_A_IFNAME, "tor0123456");
	/* the name's attribute claims 2 bytes more than the message has */
	nlh->nlmsg_len -= 2;
	len = nlh->nlmsg_len;
	/* exactly the bytes received, so ASan sees a read past them */
	exact = malloc(len);
	UNIT_CHECK(exact);
	if (!exact)
		return;
	memcpy(exact, nlh, len);
	/* the message is taken, the attribute past its end is not */
	UNIT_CHECK(node_rec_parse((struct nlmsghdr *)exact, &r) == 0);
	UNIT_CHECK(r.ifindex == NO_SUCH_IFINDEX);
	UNIT_STREQ(r.ifname, "");
	free(exact);
}

UNIT_TEST(node_print_text)
{
	struct torus_node_rec r;
	char *s;

	node_rec_parse(node_msg(), &r);
	s = CAPTURE(false, false, node_rec_print(&r, 0));
	UNIT_STREQ(s,
		   "5: tor0: state placed role leader id 42 generation 7\n"
		   "    coord 1,2,3 dims 4,4,4 wrap torus,torus,mesh hoplimit 0\n");
	free(s);
}

UNIT_TEST(node_print_text_stats)
{
	struct torus_node_rec r;
	char *s;

	node_rec_parse(node_msg(), &r);
	strcpy(r.reason, "no +x neighbor");
	s = CAPTURE(false, false, node_rec_print(&r, 1));
	UNIT_STREQ(s,
		   "5: tor0: state placed role leader id 42 generation 7\n"
		   "    coord 1,2,3 dims 4,4,4 wrap torus,torus,mesh hoplimit 0\n"
		   "    reason \"no +x neighbor\"\n"
		   "    rx_packets 10 rx_bytes 1000 tx_packets 5 tx_bytes 500 fwd_packets 3 detours 0 drops 2\n"
		   "    drop link_down 1 loss 1\n");
	free(s);
	/* -s -s: zero counters too */
	s = CAPTURE(false, false, node_rec_print(&r, 2));
	UNIT_CHECK(strstr(s, "    drop malformed 0 link_down 1 loss 1\n"));
	free(s);
}

UNIT_TEST(node_print_json)
{
	struct torus_node_rec r;
	char *s;

	node_rec_parse(node_msg(), &r);
	s = CAPTURE(true, false, node_rec_print(&r, 0));
	UNIT_STREQ(s,
		   "{\"ifindex\":5,\"ifname\":\"tor0\",\"state\":\"placed\","
		   "\"role\":\"leader\",\"id\":\"42\",\"generation\":7,"
		   "\"coord\":[1,2,3],\"dims\":[4,4,4],"
		   "\"wrap\":[true,true,false],\"hop_limit\":0,"
		   "\"routes\":0,\"routes_generation\":0,\"plans\":[],"
		   "\"reason\":\"\"}\n");
	free(s);
}

/* a 64-bit id above 2^53 stays exact; a name that is not UTF-8 is valid */
UNIT_TEST(node_print_json_big_id_raw_ifname)
{
	struct torus_node_rec r;
	char *s;

	node_rec_parse(node_msg(), &r);
	r.id = 13441520399186018479ull;
	r.leader = UINT64_MAX;
	strcpy(r.ifname, "t\xe9\x01\x80");
	s = CAPTURE(true, false, node_rec_print(&r, 0));
	UNIT_CHECK(strstr(s, "\"ifname\":\"t\\u00e9\\u0001\\u0080\","));
	UNIT_CHECK(strstr(s, "\"id\":\"13441520399186018479\","
			  "\"leader\":\"18446744073709551615\","));
	free(s);
	/* text keeps plain numbers */
	s = CAPTURE(false, false, node_rec_print(&r, 0));
	UNIT_CHECK(strstr(s, " id 13441520399186018479 leader "
			  "18446744073709551615 "));
	free(s);
}

UNIT_TEST(node_print_json_stats)
{
	struct torus_node_rec r;
	char *s;

	node_rec_parse(node_msg(), &r);
	s = CAPTURE(true, false, node_rec_print(&r, 1));
	UNIT_CHECK(strstr(s,
			  ",\"stats\":{\"rx_packets\":10,\"rx_bytes\":1000,"
			  "\"tx_packets\":5,\"tx_bytes\":500,"
			  "\"fwd_packets\":3,\"detours\":0,\"drops\":2,"
			  "\"drop\":{\"malformed\":0,\"link_down\":1,"
			  "\"loss\":1}}}\n") != NULL);
	free(s);
}

UNIT_TEST(node_unconfigured)
{
	struct nlmsghdr *nlh = msg_begin(TORUS_CMD_NODE_GET);
	struct torus_node_rec r;
	char *s;

	mnl_attr_put_u32(nlh, TORUS_A_IFINDEX, 3);
	mnl_attr_put_strz(nlh, TORUS_A_IFNAME, "tor9");
	UNIT_CHECK(node_rec_parse(nlh, &r) == 0);
	s = CAPTURE(true, false, node_rec_print(&r, 0));
	UNIT_CHECK(strstr(s, "\"coord\":[],\"dims\":[],\"wrap\":[]") != NULL);
	UNIT_CHECK(strstr(s, "\"state\":\"unconfigured\",\"role\":\"none\"") !=
		   NULL);
	free(s);
	s = CAPTURE(false, false, node_rec_print(&r, 0));
	UNIT_CHECK(strstr(s, "coord - dims - wrap -") != NULL);
	free(s);
}

UNIT_TEST(node_malformed)
{
	struct nlmsghdr *nlh = msg_begin(TORUS_CMD_NODE_GET);
	struct torus_node_rec r;

	/* no TORUS_A_IFINDEX */
	mnl_attr_put_strz(nlh, TORUS_A_IFNAME, "tor0");
	UNIT_CHECK(node_rec_parse(nlh, &r) == -1);
	/* an attribute running past the end of the message */
	nlh = msg_begin(TORUS_CMD_NODE_GET);
	mnl_attr_put_u32(nlh, TORUS_A_IFINDEX, 1);
	((struct nlattr *)((char *)nlh + MNL_NLMSG_HDRLEN + GENL_HDRLEN))
		->nla_len = 200;
	UNIT_CHECK(node_rec_parse(nlh, &r) == -1);
	/* a too long name is cut, not overflowed */
	nlh = msg_begin(TORUS_CMD_NODE_GET);
	mnl_attr_put_u32(nlh, TORUS_A_IFINDEX, 1);
	mnl_attr_put_strz(nlh, TORUS_A_IFNAME,
			  "a-very-long-interface-name-indeed");
	UNIT_CHECK(node_rec_parse(nlh, &r) == 0);
	UNIT_CHECK(strlen(r.ifname) == IF_NAMESIZE - 1);
}

UNIT_TEST(node_unknown_drop_reason)
{
	struct nlmsghdr *nlh = msg_begin(TORUS_CMD_NODE_GET);
	struct torus_node_rec r;
	struct nlattr *st, *drop;
	char *s;

	mnl_attr_put_u32(nlh, TORUS_A_IFINDEX, 1);
	mnl_attr_put_strz(nlh, TORUS_A_IFNAME, "tor0");
	st = mnl_attr_nest_start(nlh, TORUS_A_STATS);
	drop = mnl_attr_nest_start(nlh, TORUS_STATS_A_DROP);
	mnl_attr_put_u64(nlh, 20, 9);
	mnl_attr_nest_end(nlh, drop);
	mnl_attr_nest_end(nlh, st);
	UNIT_CHECK(node_rec_parse(nlh, &r) == 0);
	s = CAPTURE(true, false, node_rec_print(&r, 1));
	UNIT_CHECK(strstr(s, "\"drop\":{\"reason_19\":9}") != NULL);
	free(s);
}

UNIT_TEST(port_parse)
{
	struct torus_port_rec r;

	UNIT_CHECK(port_rec_parse(port_msg(), &r) == 0);
	UNIT_CHECK(r.ifindex == 7 && r.node_ifindex == 5);
	UNIT_STREQ(r.ifname, "tp0");
	UNIT_STREQ(r.master_name, "tor0");
	UNIT_STREQ(r.peer_name, "tp1");
	UNIT_CHECK(r.has_peer_netnsid && r.peer_netnsid == 1);
	UNIT_CHECK(r.carrier && r.loss_ppm == 125000);
	UNIT_CHECK(r.label == 0 && r.global_dir == 3);
}

UNIT_TEST(port_print_json)
{
	struct torus_port_rec r;
	char *s;

	port_rec_parse(port_msg(), &r);
	s = CAPTURE(true, false, port_rec_print(&r, 0));
	UNIT_STREQ(s,
		   "{\"ifindex\":7,\"ifname\":\"tp0\",\"master\":\"tor0\","
		   "\"dir\":\"+x\",\"global_dir\":\"-y\",\"peer\":\"tp1\","
		   "\"peer_ifindex\":8,\"peer_netnsid\":1,\"carrier\":true,"
		   "\"loss_pct\":12.5,\"rx_packets\":10,\"tx_packets\":5,"
		   "\"rx_bytes\":1000,\"tx_bytes\":500,\"drops\":2}\n");
	free(s);
	s = CAPTURE(true, false, port_rec_print(&r, 1));
	UNIT_CHECK(strstr(s, "\"drops\":2,\"drop\":{\"malformed\":0,"
			     "\"link_down\":1,\"loss\":1}}\n") != NULL);
	free(s);
}

UNIT_TEST(port_print_text)
{
	struct torus_port_rec r;
	char *s;

	port_rec_parse(port_msg(), &r);
	s = CAPTURE(false, false, port_rec_print(&r, 0));
	UNIT_STREQ(s,
		   "7: tp0: master tor0 dir +x global_dir -y peer tp1 "
		   "peer_ifindex 8 peer_netnsid 1 carrier up loss 12.5%\n");
	free(s);
	s = CAPTURE(false, false, port_rec_print(&r, 1));
	UNIT_CHECK(strstr(s, "\n    rx_packets 10 rx_bytes 1000 tx_packets 5 "
			     "tx_bytes 500 drops 2\n    drop link_down 1 "
			     "loss 1\n") != NULL);
	free(s);
}

UNIT_TEST(port_bare_nulls)
{
	struct torus_port_rec r;
	char *s;

	UNIT_CHECK(port_rec_parse(bare_port_msg(), &r) == 0);
	s = CAPTURE(true, false, port_rec_print(&r, 0));
	UNIT_STREQ(s,
		   "{\"ifindex\":2147483632,\"ifname\":\"eth0\","
		   "\"master\":null,\"dir\":null,\"global_dir\":null,"
		   "\"peer\":null,\"peer_ifindex\":null,\"carrier\":false,"
		   "\"loss_pct\":0,\"rx_packets\":0,\"tx_packets\":0,"
		   "\"rx_bytes\":0,\"tx_bytes\":0,\"drops\":0}\n");
	free(s);
	s = CAPTURE(false, false, port_rec_print(&r, 0));
	UNIT_STREQ(s, "2147483632: eth0: carrier down loss 0%\n");
	free(s);
}

UNIT_TEST(port_malformed)
{
	struct nlmsghdr *nlh = msg_begin(TORUS_CMD_PORT_GET);
	struct torus_port_rec r;
	struct nlattr *port;

	mnl_attr_put_u32(nlh, TORUS_A_IFINDEX, 5);
	UNIT_CHECK(port_rec_parse(nlh, &r) == -1);	/* no TORUS_A_PORT */
	port = mnl_attr_nest_start(nlh, TORUS_A_PORT);
	mnl_attr_put_strz(nlh, TORUS_PORT_A_IFNAME, "tp0");
	mnl_attr_nest_end(nlh, port);
	UNIT_CHECK(port_rec_parse(nlh, &r) == -1);	/* no port ifindex */
}

UNIT_TEST(port_array_json)
{
	struct torus_port_rec a, b;
	char *s;

	port_rec_parse(port_msg(), &a);
	port_rec_parse(bare_port_msg(), &b);
	s = CAPTURE(true, false, {
		open_json_array(PRINT_JSON, NULL);
		port_rec_print(&a, 0);
		port_rec_print(&b, 0);
		close_json_array(PRINT_JSON, NULL);
	});
	UNIT_CHECK(s[0] == '[' && strstr(s, "},{\"ifindex\":2147483632,"));
	UNIT_CHECK(strcmp(s + strlen(s) - 3, "}]\n") == 0);
	free(s);
}

static const struct nlmsghdr *route_msg(bool get, uint8_t next_dir)
{
	static const uint32_t dst[] = { 3, 1 }, via[] = { 0, 1 };
	struct nlmsghdr *nlh = msg_begin(TORUS_CMD_ROUTE_GET);
	struct nlattr *route;

	mnl_attr_put_u32(nlh, TORUS_A_IFINDEX, 5);
	mnl_attr_put_strz(nlh, TORUS_A_IFNAME, "tor0");
	route = mnl_attr_nest_start(nlh, TORUS_A_ROUTE);
	put_axes(nlh, TORUS_ROUTE_A_DST, dst, 2);
	if (!get) {
		put_axes(nlh, TORUS_ROUTE_A_VIA, via, 2);
	} else {
		mnl_attr_put_u8(nlh, TORUS_ROUTE_A_NEXT_DIR, next_dir);
		mnl_attr_put_u32(nlh, TORUS_ROUTE_A_NEXT_PORT,
				 NO_SUCH_IFINDEX);
		mnl_attr_put(nlh, TORUS_ROUTE_A_EXCEPTION, 0, NULL);
		mnl_attr_put_u32(nlh, TORUS_ROUTE_A_HOPS, 4);
	}
	mnl_attr_nest_end(nlh, route);
	return nlh;
}

UNIT_TEST(route_show)
{
	struct torus_route_rec r;
	char *s;

	UNIT_CHECK(route_rec_parse(route_msg(false, 0), &r) == 0);
	UNIT_CHECK(r.n_dst == 2 && r.n_via == 2 && !r.has_dir);
	s = CAPTURE(true, false, route_rec_print(&r));
	UNIT_STREQ(s, "{\"ifname\":\"tor0\",\"dst\":[3,1],\"via\":[0,1]}\n");
	free(s);
	s = CAPTURE(false, false, route_rec_print(&r));
	UNIT_STREQ(s, "dev tor0 dst 3,1 via 0,1\n");
	free(s);
	r.n_via = 0;
	r.has_dir = true;
	r.dir = TORUS_DIR(1, 0);
	s = CAPTURE(true, false, route_rec_print(&r));
	UNIT_STREQ(s, "{\"ifname\":\"tor0\",\"dst\":[3,1],\"dir\":\"+y\"}\n");
	free(s);
}

UNIT_TEST(route_get)
{
	struct torus_route_rec r;
	char *s;

	UNIT_CHECK(route_rec_parse(route_msg(true, TORUS_DIR(0, 1)), &r) == 0);
	strcpy(r.next_port_name, "tp1");
	s = CAPTURE(true, false, route_get_print(&r));
	UNIT_STREQ(s, "{\"ifname\":\"tor0\",\"dst\":[3,1],\"local\":false,"
		      "\"next_dir\":\"-x\",\"next_port\":\"tp1\","
		      "\"exception\":true,\"hops\":4}\n");
	free(s);
	s = CAPTURE(false, false, route_get_print(&r));
	UNIT_STREQ(s, "dev tor0 dst 3,1 next_dir -x next_port tp1 exception "
		      "hops 4\n");
	free(s);
}

UNIT_TEST(route_get_local)
{
	struct torus_route_rec r;
	char *s;

	UNIT_CHECK(route_rec_parse(route_msg(true, TORUS_DIR_NONE), &r) == 0);
	r.exception = false;
	r.hops = 0;
	s = CAPTURE(true, false, route_get_print(&r));
	UNIT_STREQ(s, "{\"ifname\":\"tor0\",\"dst\":[3,1],\"local\":true,"
		      "\"next_dir\":null,\"next_port\":null,"
		      "\"exception\":false,\"hops\":0}\n");
	free(s);
	s = CAPTURE(false, false, route_get_print(&r));
	UNIT_STREQ(s, "dev tor0 dst 3,1 local hops 0\n");
	free(s);
}

/* a lamb with exceptions and two plans, as NODE_GET reports it */
UNIT_TEST(node_print_routing)
{
	static const uint8_t order[] = { 2, 1, 0 };
	struct nlmsghdr *nlh = msg_begin(TORUS_CMD_NODE_GET);
	struct torus_node_rec r;
	struct nlattr *plan, *nest;
	unsigned int i;
	char *s;

	mnl_attr_put_u32(nlh, TORUS_A_IFINDEX, 3);
	mnl_attr_put_strz(nlh, TORUS_A_IFNAME, "tor0");
	mnl_attr_put_u8(nlh, TORUS_A_ROLE, TORUS_ROLE_LAMB);
	mnl_attr_put_u32(nlh, TORUS_A_ROUTES_GENERATION, 9);
	mnl_attr_put_u32(nlh, TORUS_A_ROUTES_COUNT, 40000);
	for (i = 1; i <= 2; i++) {
		plan = mnl_attr_nest_start(nlh, TORUS_A_PLAN);
		mnl_attr_put_u8(nlh, TORUS_PLAN_A_INDEX, (uint8_t)(i * 2));
		nest = mnl_attr_nest_start(nlh, TORUS_PLAN_A_ORDER);
		for (unsigned int a = 0; a < 3; a++)
			mnl_attr_put_u8(nlh, a + 1, order[a]);
		mnl_attr_nest_end(nlh, nest);
		nest = mnl_attr_nest_start(nlh, TORUS_PLAN_A_POLICY);
		mnl_attr_put_u8(nlh, TORUS_AXIS_A(0), TORUS_PLAN_PLUS);
		mnl_attr_put_u8(nlh, TORUS_AXIS_A(1), TORUS_PLAN_MINUS);
		mnl_attr_put_u8(nlh, TORUS_AXIS_A(2), TORUS_PLAN_SHORTEST);
		mnl_attr_nest_end(nlh, nest);
		mnl_attr_nest_end(nlh, plan);
	}
	UNIT_CHECK(node_rec_parse(nlh, &r) == 0);
	UNIT_CHECK(r.plans_present == ((1u << 2) | (1u << 4)));
	s = CAPTURE(true, false, node_rec_print(&r, 0));
	UNIT_CHECK(strstr(s, "\"role\":\"lamb\"") != NULL);
	UNIT_CHECK(strstr(s, "\"routes\":40000,\"routes_generation\":9,"
			  "\"plans\":[{\"index\":2,\"order\":\"zyx\","
			  "\"policy\":[\"+\",\"-\",\"shortest\"]},"
			  "{\"index\":4,") != NULL);
	free(s);
	s = CAPTURE(false, false, node_rec_print(&r, 0));
	UNIT_CHECK(strstr(s, " role lamb ") != NULL);
	UNIT_CHECK(strstr(s, "    routes 40000 routes_generation 9 plan 2 "
			  "order zyx policy +,-,shortest plan 4") != NULL);
	free(s);
}

/* route get: plan, round, vc and why; route show: plan, generation */
UNIT_TEST(route_plan_vc_why)
{
	struct torus_route_rec r;
	char *s;

	UNIT_CHECK(route_rec_parse(route_msg(true, TORUS_DIR(1, 0)), &r) == 0);
	r.has_vc = true;
	r.vc = TORUS_VC(3, 0, 1);
	r.has_why = true;
	r.why = TORUS_WHY_DETOUR;
	s = CAPTURE(true, false, route_get_print(&r));
	UNIT_CHECK(strstr(s, "\"hops\":4,\"plan\":3,\"round\":0,\"vc\":13,"
			  "\"why\":\"detour\"}") != NULL);
	free(s);
	s = CAPTURE(false, false, route_get_print(&r));
	UNIT_CHECK(strstr(s, " plan 3 round 0 vc 13 why detour\n") != NULL);
	free(s);
	r.why = 200;
	s = CAPTURE(false, false, route_get_print(&r));
	UNIT_CHECK(strstr(s, " why unknown\n") != NULL);
	free(s);

	UNIT_CHECK(route_rec_parse(route_msg(false, 0), &r) == 0);
	r.has_plan = true;
	r.plan = 2;
	r.has_generation = true;
	r.generation = 17;
	s = CAPTURE(true, false, route_rec_print(&r));
	UNIT_STREQ(s, "{\"ifname\":\"tor0\",\"dst\":[3,1],\"via\":[0,1],"
		      "\"plan\":2,\"generation\":17}\n");
	free(s);
}

static const struct unit_case cases[] = {
	UNIT_CASE(node_parse),
	UNIT_CASE(node_parse_unpadded_end),
	UNIT_CASE(node_print_text),
	UNIT_CASE(node_print_text_stats),
	UNIT_CASE(node_print_json),
	UNIT_CASE(node_print_json_big_id_raw_ifname),
	UNIT_CASE(node_print_json_stats),
	UNIT_CASE(node_unconfigured),
	UNIT_CASE(node_malformed),
	UNIT_CASE(node_unknown_drop_reason),
	UNIT_CASE(port_parse),
	UNIT_CASE(port_print_json),
	UNIT_CASE(port_print_text),
	UNIT_CASE(port_bare_nulls),
	UNIT_CASE(port_malformed),
	UNIT_CASE(port_array_json),
	UNIT_CASE(route_show),
	UNIT_CASE(route_get),
	UNIT_CASE(route_get_local),
	UNIT_CASE(node_print_routing),
	UNIT_CASE(route_plan_vc_why),
};

UNIT_MAIN(cases)
