// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * port.c - torus port: a node's ports and its port map
 *
 *	torus port show [ dev DEV ] [ port PORT ]
 *	torus port map [ dev DEV ] [ DIR PORT ... ]
 *	torus port set PORT dir { LABEL | none }
 */
#include <stdio.h>
#include <string.h>

#include <linux/rtnetlink.h>
#include <linux/torus.h>

#include "linkmsg.h"
#include "parse.h"
#include "records.h"
#include "tool.h"

#define OBJ	"port"

void port_usage(FILE *f)
{
	fprintf(f,
		"Usage: torus port show [ dev DEV ] [ port PORT ]\n"
		"       torus port map [ dev DEV ] [ DIR PORT ... ]\n"
		"       torus port set PORT dir { LABEL | none }\n"
		"where  DIR := { +x | -x | +y | -y | ... | +e | -e }, a global direction\n"
		"       LABEL := { +x | -x | ... | -e }, the direction printed on the port\n"
		"       \"port map\" replaces the whole map; without pairs it clears it\n"
		"       \"port set\" labels an enslaved port that is not a torport (any\n"
		"       Ethernet device); a torport's label is fixed at its cable\n");
}

struct port_show {
	uint32_t		node;	/* 0: any */
	struct torus_port_rec	r;
};

static int show_cb(const struct nlmsghdr *nlh, void *data)
{
	struct port_show *ps = data;

	if (port_rec_parse(nlh, &ps->r))
		return MNL_CB_OK;
	if (ps->node && ps->r.node_ifindex && ps->r.node_ifindex != ps->node)
		return MNL_CB_OK;
	port_rec_print(&ps->r, opts.stats);
	return MNL_CB_OK;
}

static int port_show(int argc, char **argv)
{
	const char *dev = NULL, *port = NULL;
	struct port_show ps = {};
	uint32_t port_ifindex = 0;
	struct nlsock *genl;
	struct nlmsghdr *nlh;

	while (argc > 0) {
		if (kw(argv[0], "dev")) {
			NEXT_IFNAME(OBJ, "dev", dev);
		} else if (kw(argv[0], "port")) {
			NEXT_IFNAME(OBJ, "port", port);
		} else {
			return unknown_keyword(OBJ, argv[0]);
		}
		argc--;
		argv++;
	}
	if (dev && dev_ifindex(dev, &ps.node))
		return EXIT_ERR;
	if (port && dev_ifindex(port, &port_ifindex))
		return EXIT_ERR;
	genl = ns_genl();
	if (!genl)
		return EXIT_ERR;
	if (port) {
		nlh = mnlg_msg(genl, TORUS_CMD_PORT_GET, 0);
		mnl_attr_put_u32(nlh, TORUS_A_PORT_IFINDEX, port_ifindex);
	} else {
		nlh = mnlg_msg(genl, TORUS_CMD_PORT_GET, NLM_F_DUMP);
		if (ps.node)
			mnl_attr_put_u32(nlh, TORUS_A_IFINDEX, ps.node);
	}
	return show_talk(genl, nlh, show_cb, &ps);
}

static int port_map(int argc, char **argv)
{
	uint32_t ports[TORUS_MAX_DIRS];
	uint8_t dirs[TORUS_MAX_DIRS];
	const char *dev = NULL, *port;
	struct nlattr *map, *entry;
	unsigned int n = 0, i;
	uint16_t seen = 0;
	struct nlsock *genl;
	struct nlmsghdr *nlh;

	if (argc > 0 && kw(argv[0], "dev")) {
		NEXT_IFNAME(OBJ, "dev", dev);
		argc--;
		argv++;
	}
	while (argc > 0) {
		if (parse_dir(argv[0], &dirs[n]))
			return usage_error(OBJ,
					   "invalid direction \"%s\": expected +x .. -e",
					   argv[0]);
		if (seen & (1u << dirs[n]))
			return usage_error(OBJ, "direction \"%s\" given twice",
					   argv[0]);
		seen |= (uint16_t)(1u << dirs[n]);
		NEXT_IFNAME(OBJ, "port", port);
		if (dev_ifindex(port, &ports[n]))
			return EXIT_ERR;
		n++;
		argc--;
		argv++;
	}

	nlh = node_msg(dev, TORUS_CMD_PORTMAP_SET, &genl);
	if (!nlh)
		return EXIT_ERR;
	map = mnl_attr_nest_start(nlh, TORUS_A_PORTMAP);
	for (i = 0; i < n; i++) {
		entry = mnl_attr_nest_start(nlh, TORUS_A_PORTMAP_ENTRY);
		mnl_attr_put_u8(nlh, TORUS_PME_A_DIR, dirs[i]);
		mnl_attr_put_u32(nlh, TORUS_PME_A_IFINDEX, ports[i]);
		mnl_attr_nest_end(nlh, entry);
	}
	mnl_attr_nest_end(nlh, map);
	return nlsock_talk(genl, nlh, NULL, NULL) ? EXIT_ERR : EXIT_OK;
}

static int port_set(int argc, char **argv)
{
	const char *name;
	struct nlsock *rtnl;
	struct nlmsghdr *nlh;
	bool have = false;
	uint32_t ifindex;
	uint8_t label;
	int ret;

	ret = parse_name_arg(OBJ, "PORT", "port", &argc, &argv, &name);
	if (ret)
		return ret;
	while (argc > 0) {
		if (kw(argv[0], "dir")) {
			NEXT_ARG(OBJ);
			if (kw(argv[0], "none"))
				label = TORUS_DIR_NONE;
			else if (parse_dir(argv[0], &label))
				return bad_value(OBJ, "dir", argv[0],
						 "a label +x .. -e, or none");
			have = true;
		} else {
			return unknown_keyword(OBJ, argv[0]);
		}
		argc--;
		argv++;
	}
	if (!have)
		return usage_error(OBJ, "missing \"dir LABEL\"");
	if (dev_ifindex(name, &ifindex))
		return EXIT_ERR;
	rtnl = ns_rtnl();
	if (!rtnl)
		return EXIT_ERR;
	nlh = nlsock_msg(rtnl, RTM_NEWLINK, 0);
	port_label_build(nlh, ifindex, label);
	return nlsock_talk(rtnl, nlh, NULL, NULL) ? EXIT_ERR : EXIT_OK;
}

static const struct cmd port_cmds[] = {
	{ "show",	port_show },
	{ "map",	port_map },
	{ "set",	port_set },
	{}
};

int do_port(int argc, char **argv)
{
	return do_cmds(OBJ, port_cmds, port_usage, argc, argv);
}
