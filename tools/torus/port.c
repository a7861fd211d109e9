// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * port.c - torus port: a node's ports and its port map
 *
 *	torus port show [ dev DEV ] [ port PORT ]
 *	torus port map [ dev DEV ] [ DIR PORT ... ]
 */
#include <stdio.h>
#include <string.h>

#include <linux/torus.h>

#include "json_print.h"
#include "parse.h"
#include "records.h"
#include "tool.h"

#define OBJ	"port"

void port_usage(FILE *f)
{
	fprintf(f,
		"Usage: torus port show [ dev DEV ] [ port PORT ]\n"
		"       torus port map [ dev DEV ] [ DIR PORT ... ]\n"
		"where  DIR := { +x | -x | +y | -y | ... | +e | -e }, a global direction\n"
		"       \"port map\" replaces the whole map; without pairs it clears it\n");
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
	int ret;

	while (argc > 0) {
		if (kw(argv[0], "dev")) {
			NEXT_ARG(OBJ);
			if (parse_ifname(argv[0]))
				return bad_value(OBJ, "dev", argv[0],
						 "a device name");
			dev = argv[0];
		} else if (kw(argv[0], "port")) {
			NEXT_ARG(OBJ);
			if (parse_ifname(argv[0]))
				return bad_value(OBJ, "port", argv[0],
						 "a device name");
			port = argv[0];
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

	new_json_obj(stdout, opts.json, opts.pretty);
	open_json_array(PRINT_JSON, NULL);
	ret = nlsock_talk(genl, nlh, show_cb, &ps);
	close_json_array(PRINT_JSON, NULL);
	delete_json_obj();
	return ret ? EXIT_ERR : EXIT_OK;
}

static int port_map(int argc, char **argv)
{
	uint32_t ports[TORUS_MAX_DIRS];
	uint8_t dirs[TORUS_MAX_DIRS];
	struct nlattr *map, *entry;
	const char *dev = NULL;
	unsigned int n = 0, i;
	uint16_t seen = 0;
	struct nlsock *genl;
	struct nlmsghdr *nlh;
	uint32_t ifindex;

	if (argc > 0 && kw(argv[0], "dev")) {
		NEXT_ARG(OBJ);
		if (parse_ifname(argv[0]))
			return bad_value(OBJ, "dev", argv[0], "a device name");
		dev = argv[0];
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
		NEXT_ARG(OBJ);
		if (parse_ifname(argv[0]))
			return bad_value(OBJ, "port", argv[0], "a device name");
		if (dev_ifindex(argv[0], &ports[n]))
			return EXIT_ERR;
		n++;
		argc--;
		argv++;
	}

	if (node_ifindex(dev, &ifindex))
		return EXIT_ERR;
	genl = ns_genl();
	if (!genl)
		return EXIT_ERR;
	nlh = mnlg_msg(genl, TORUS_CMD_PORTMAP_SET, 0);
	mnl_attr_put_u32(nlh, TORUS_A_IFINDEX, ifindex);
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

int do_port(int argc, char **argv)
{
	if (argc < 1 || kw(argv[0], "show"))
		return port_show(argc ? argc - 1 : 0, argv + (argc ? 1 : 0));
	if (kw(argv[0], "map"))
		return port_map(argc - 1, argv + 1);
	if (kw(argv[0], "help")) {
		port_usage(stdout);
		return EXIT_OK;
	}
	return unknown_keyword(OBJ, argv[0]);
}
