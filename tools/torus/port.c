// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * port.c - torus port: a node's ports and its port map
 *
 *	torus port show [ dev DEV ] [ port PORT ]
 *	torus port map [ show ] [ dev DEV ]
 *	torus port map set [ dev DEV ] DIR PORT [ DIR PORT ... ]
 *	torus port map flush [ dev DEV ]
 *	torus port set PORT dir { LABEL | none }
 */
#include <stdio.h>
#include <string.h>

#include <linux/rtnetlink.h>
#include <linux/torus.h>

#include "json_print.h"
#include "linkmsg.h"
#include "parse.h"
#include "records.h"
#include "tool.h"

#define OBJ	"port"

void port_usage(FILE *f)
{
	fprintf(f,
		"Usage: torus port show [ dev DEV ] [ port PORT ]\n"
		"       torus port map [ show ] [ dev DEV ]\n"
		"       torus port map set [ dev DEV ] DIR PORT [ DIR PORT ... ]\n"
		"       torus port map flush [ dev DEV ]\n"
		"       torus port set PORT dir { LABEL | none }\n"
		"where  DIR := { +x | -x | +y | -y | ... | +e | -e }, a global direction\n"
		"       LABEL := { +x | -x | ... | -e }, the direction printed on the port\n"
		"       \"port map\" alone shows the map; \"port map set\" replaces the\n"
		"       whole map with the pairs given, \"port map flush\" clears it\n"
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

struct map_show {
	uint32_t		node;	/* 0: any */
	struct torus_port_rec	r;
};

/* one line per port that serves a global direction: "+x tp0" */
static int map_show_cb(const struct nlmsghdr *nlh, void *data)
{
	struct map_show *ms = data;
	char dir[4];

	if (port_rec_parse(nlh, &ms->r))
		return MNL_CB_OK;
	if (ms->node && ms->r.node_ifindex && ms->r.node_ifindex != ms->node)
		return MNL_CB_OK;
	if (ms->r.global_dir >= TORUS_MAX_DIRS)
		return MNL_CB_OK;
	snprintf(dir, sizeof(dir), "%c%c", ms->r.global_dir & 1 ? '-' : '+',
		 TORUS_AXIS_NAMES[ms->r.global_dir >> 1]);
	open_json_object(NULL);
	print_string(PRINT_ANY, "dir", "%s", dir);
	print_string(PRINT_ANY, "port", " %s", ms->r.ifname);
	if (ms->r.node_ifname[0])
		print_string(PRINT_ANY, "dev", " dev %s", ms->r.node_ifname);
	print_nl();
	close_json_object();
	return MNL_CB_OK;
}

/* the map as the module holds it: read only */
static int port_map_show(int argc, char **argv)
{
	struct map_show ms = {};
	struct nlsock *genl;
	struct nlmsghdr *nlh;
	const char *dev;
	int ret;

	ret = parse_dev_arg(OBJ, argc, argv, &dev);
	if (ret)
		return ret;
	if (dev && dev_ifindex(dev, &ms.node))
		return EXIT_ERR;
	genl = ns_genl();
	if (!genl)
		return EXIT_ERR;
	nlh = mnlg_msg(genl, TORUS_CMD_PORT_GET, NLM_F_DUMP);
	if (ms.node)
		mnl_attr_put_u32(nlh, TORUS_A_IFINDEX, ms.node);
	return show_talk(genl, nlh, map_show_cb, &ms);
}

/* replace the whole map with @n pairs (none: clear it) */
static int map_request(const char *dev, unsigned int n, const uint8_t *dirs,
		       const uint32_t *ports)
{
	struct nlattr *map, *entry;
	struct nlsock *genl;
	struct nlmsghdr *nlh;
	unsigned int i;

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

static int port_map_set(int argc, char **argv)
{
	uint32_t ports[TORUS_MAX_DIRS];
	uint8_t dirs[TORUS_MAX_DIRS];
	const char *dev = NULL, *port;
	unsigned int n = 0;
	uint16_t seen = 0;

	while (argc > 0) {
		if (kw(argv[0], "dev")) {
			NEXT_IFNAME(OBJ, "dev", dev);
			argc--;
			argv++;
			continue;
		}
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
	if (!n)
		return usage_error(OBJ, "missing \"DIR PORT\" (\"port map flush\" clears the map)");
	return map_request(dev, n, dirs, ports);
}

static int port_map_flush(int argc, char **argv)
{
	const char *dev;
	int ret;

	ret = parse_dev_arg(OBJ, argc, argv, &dev);
	if (ret)
		return ret;
	return map_request(dev, 0, NULL, NULL);
}

static const struct cmd port_map_cmds[] = {
	{ "show",	port_map_show },
	{ "set",	port_map_set },
	{ "flush",	port_map_flush },
	{}
};

/* iproute2's grammar: a bare "port map" shows, changes are named */
static int port_map(int argc, char **argv)
{
	return do_cmds(OBJ, port_map_cmds, port_usage, argc, argv);
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
