// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * node.c - torus node: the node device's coordinates, state and counters
 *
 *	torus node show [ dev DEV ]
 *	torus node set [ dev DEV ] [ id ID ] [ coord C,.. ] [ dims D,.. ]
 *		[ wrap W,.. ] [ state STATE ] [ role ROLE ] [ reason TEXT ]
 *		[ hoplimit N ]
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/torus.h>

#include "parse.h"
#include "records.h"
#include "tool.h"

#define OBJ	"node"

void node_usage(FILE *f)
{
	fprintf(f,
		"Usage: torus node show [ dev DEV ]\n"
		"       torus node rediscover [ dev DEV ]\n"
		"       torus node set [ dev DEV ] [ id ID ] [ coord COORD ] [ dims DIMS ]\n"
		"                      [ wrap WRAP ] [ state STATE ] [ role ROLE ]\n"
		"                      [ reason TEXT ] [ hoplimit N ]\n"
		"where  COORD := C[,C...]   0 <= C <= 255, one per axis (x,y,z,a,b,c,d,e)\n"
		"       DIMS  := D[,D...]   1 <= D <= 256\n"
		"       WRAP  := W[,W...]   W := { 1 | 0 | torus | mesh }\n"
		"       STATE := { unconfigured | discovering | oriented | placed | failed }\n"
		"       ROLE  := { none | static | leader | follower }\n"
		"       ID    := a 64-bit number, decimal or 0x hexadecimal\n"
		"       N     := 0..255 (0: the default, %d)\n",
		TORUS_HOP_LIMIT_DEFAULT);
}

int dev_ifindex(const char *name, uint32_t *ifindex)
{
	unsigned int idx = if_nametoindex(name);

	if (!idx) {
		fprintf(stderr, "Error: cannot find device \"%s\"\n", name);
		return -1;
	}
	*ifindex = idx;
	return 0;
}

struct node_count {
	unsigned int	n;
	uint32_t	ifindex;
};

static int count_cb(const struct nlmsghdr *nlh, void *data)
{
	struct node_count *c = data;
	struct torus_node_rec *r = &(struct torus_node_rec){};

	if (node_rec_parse(nlh, r))
		return MNL_CB_OK;
	if (!c->n++)
		c->ifindex = r->ifindex;
	return MNL_CB_OK;
}

int node_ifindex(const char *name, uint32_t *ifindex)
{
	struct node_count c = {};
	struct nlsock *genl;
	struct nlmsghdr *nlh;

	if (name)
		return dev_ifindex(name, ifindex);
	genl = ns_genl();
	if (!genl)
		return -1;
	nlh = mnlg_msg(genl, TORUS_CMD_NODE_GET, NLM_F_DUMP);
	if (nlsock_talk(genl, nlh, count_cb, &c))
		return -1;
	if (!c.n) {
		fprintf(stderr, "Error: no torus node device in this network namespace\n");
		return -1;
	}
	if (c.n > 1) {
		fprintf(stderr, "Error: several node devices, use dev DEV\n");
		return -1;
	}
	*ifindex = c.ifindex;
	return 0;
}

struct nlmsghdr *node_msg(const char *dev, uint8_t cmd,
			  struct nlsock **genl)
{
	struct nlmsghdr *nlh;
	uint32_t ifindex;

	if (node_ifindex(dev, &ifindex))
		return NULL;
	*genl = ns_genl();
	if (!*genl)
		return NULL;
	nlh = mnlg_msg(*genl, cmd, 0);
	mnl_attr_put_u32(nlh, TORUS_A_IFINDEX, ifindex);
	return nlh;
}

void put_axes_u32(struct nlmsghdr *nlh, uint16_t type, const uint32_t *vals,
		  int n)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, type);
	int i;

	for (i = 0; i < n; i++)
		mnl_attr_put_u32(nlh, TORUS_AXIS_A(i), vals[i]);
	mnl_attr_nest_end(nlh, nest);
}

static int show_cb(const struct nlmsghdr *nlh, void *data)
{
	struct torus_node_rec *r = data;

	if (!node_rec_parse(nlh, r))
		node_rec_print(r, opts.stats);
	return MNL_CB_OK;
}

static int node_show(int argc, char **argv)
{
	struct torus_node_rec r;
	struct nlsock *genl;
	struct nlmsghdr *nlh;
	const char *dev;
	int ret;

	ret = parse_dev_arg(OBJ, argc, argv, &dev);
	if (ret)
		return ret;
	genl = ns_genl();
	if (!genl)
		return EXIT_ERR;
	nlh = mnlg_msg(genl, TORUS_CMD_NODE_GET, dev ? 0 : NLM_F_DUMP);
	if (dev)
		mnl_attr_put_strz(nlh, TORUS_A_IFNAME, dev);
	return show_talk(genl, nlh, show_cb, &r);
}

static int node_set(int argc, char **argv)
{
	uint32_t coord[TORUS_MAX_AXES], dims[TORUS_MAX_AXES];
	bool has_id = false, has_state = false, has_role = false;
	int n_coord = 0, n_dims = 0, n_wrap = 0;
	uint8_t wrap[TORUS_MAX_AXES];
	uint8_t state = 0, role = 0;
	const char *reason = NULL;
	const char *dev = NULL;
	struct nlsock *genl;
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	int64_t hop = -1;
	uint64_t id = 0;
	uint32_t v;
	int i;

	while (argc > 0) {
		if (kw(argv[0], "dev")) {
			NEXT_IFNAME(OBJ, "dev", dev);
		} else if (kw(argv[0], "id")) {
			NEXT_ARG(OBJ);
			if (parse_u64(argv[0], &id))
				return bad_value(OBJ, "id", argv[0],
						 "a 64-bit number");
			has_id = true;
		} else if (kw(argv[0], "coord")) {
			NEXT_ARG(OBJ);
			n_coord = parse_coord(argv[0], coord);
			if (n_coord < 0)
				return bad_value(OBJ, "coord", argv[0],
						 "C[,C...] with 0 <= C <= 255, at most 8 axes");
		} else if (kw(argv[0], "dims")) {
			NEXT_ARG(OBJ);
			n_dims = parse_dims(argv[0], dims);
			if (n_dims < 0)
				return bad_value(OBJ, "dims", argv[0],
						 "D[,D...] with 1 <= D <= 256, at most 8 axes");
		} else if (kw(argv[0], "wrap")) {
			NEXT_ARG(OBJ);
			n_wrap = parse_wrap(argv[0], wrap);
			if (n_wrap < 0)
				return bad_value(OBJ, "wrap", argv[0],
						 "W[,W...] with W one of 1, 0, torus, mesh");
		} else if (kw(argv[0], "state")) {
			NEXT_ARG(OBJ);
			if (parse_state(argv[0], &state))
				return bad_value(OBJ, "state", argv[0],
						 "unconfigured, discovering, oriented, placed or failed");
			has_state = true;
		} else if (kw(argv[0], "role")) {
			NEXT_ARG(OBJ);
			if (parse_role(argv[0], &role))
				return bad_value(OBJ, "role", argv[0],
						 "none, static, leader or follower");
			has_role = true;
		} else if (kw(argv[0], "reason")) {
			NEXT_ARG(OBJ);
			if (strlen(argv[0]) >= TORUS_REC_REASON_LEN)
				return bad_value(OBJ, "reason", argv[0],
						 "at most 255 characters");
			reason = argv[0];
		} else if (kw(argv[0], "hoplimit")) {
			NEXT_ARG(OBJ);
			if (parse_u32(argv[0], 255, &v))
				return bad_value(OBJ, "hoplimit", argv[0],
						 "0..255");
			hop = v;
		} else {
			return unknown_keyword(OBJ, argv[0]);
		}
		argc--;
		argv++;
	}
	if (!has_id && !n_coord && !n_dims && !n_wrap && !has_state &&
	    !has_role && !reason && hop < 0)
		return usage_error(OBJ, "nothing to set");

	nlh = node_msg(dev, TORUS_CMD_NODE_SET, &genl);
	if (!nlh)
		return EXIT_ERR;
	if (has_id)
		mnl_attr_put_u64(nlh, TORUS_A_NODE_ID, id);
	if (n_coord)
		put_axes_u32(nlh, TORUS_A_COORD, coord, n_coord);
	if (n_dims)
		put_axes_u32(nlh, TORUS_A_DIMS, dims, n_dims);
	if (n_wrap) {
		nest = mnl_attr_nest_start(nlh, TORUS_A_WRAP);
		for (i = 0; i < n_wrap; i++)
			mnl_attr_put_u8(nlh, TORUS_AXIS_A(i), wrap[i]);
		mnl_attr_nest_end(nlh, nest);
	}
	if (has_state)
		mnl_attr_put_u8(nlh, TORUS_A_STATE, state);
	if (has_role)
		mnl_attr_put_u8(nlh, TORUS_A_ROLE, role);
	if (reason)
		mnl_attr_put_strz(nlh, TORUS_A_REASON, reason);
	if (hop >= 0)
		mnl_attr_put_u8(nlh, TORUS_A_HOP_LIMIT, (uint8_t)hop);
	return nlsock_talk(genl, nlh, NULL, NULL) ? EXIT_ERR : EXIT_OK;
}

int node_request(const char *object, int argc, char **argv, uint8_t cmd)
{
	struct nlsock *genl;
	struct nlmsghdr *nlh;
	const char *dev;
	int ret;

	ret = parse_dev_arg(object, argc, argv, &dev);
	if (ret)
		return ret;
	nlh = node_msg(dev, cmd, &genl);
	if (!nlh)
		return EXIT_ERR;
	return nlsock_talk(genl, nlh, NULL, NULL) ? EXIT_ERR : EXIT_OK;
}

/* torusd discovers again from scratch: the module relays the request */
static int node_rediscover(int argc, char **argv)
{
	return node_request(OBJ, argc, argv, TORUS_CMD_NODE_REDISCOVER);
}

static const struct cmd node_cmds[] = {
	{ "show",	node_show },
	{ "set",	node_set },
	{ "rediscover",	node_rediscover },
	{}
};

int do_node(int argc, char **argv)
{
	return do_cmds(OBJ, node_cmds, node_usage, argc, argv);
}
