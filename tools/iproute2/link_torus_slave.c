// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * link_torus_slave.c - stock iproute2 `ip` plugin for the ports of a
 * torus node ("torus_slave" in ip -d link show)
 *
 *	ip -d [-j] link show PORT	the port's label and the direction it
 *					serves in the node's port map
 *	ip link set PORT type torus_slave dir { LABEL | none }
 *					the label of a port that is not a
 *					torport (a torport's is its cable's)
 */
#include <string.h>

#include <linux/torus.h>

#include "ip_plugin.h"
#include "parse.h"
#include "plugin_print.h"

static void torus_slave_usage(FILE *f)
{
	fprintf(f,
		"Usage: ip link set PORT master NODE\n"
		"       ip link set PORT type torus_slave dir { LABEL | none }\n"
		"       ip -d [ -j ] link show PORT\n"
		"where  LABEL := { +x | -x | +y | -y | +z | -z | +a | -a | +b | -b |\n"
		"                  +c | -c | +d | -d | +e | -e }\n"
		"A torport's label is fixed at creation (ip link add ... type torport\n"
		"dir LABEL); any other Ethernet port gets its label with \"dir\", once it\n"
		"is enslaved; its global direction comes from the node's port map.\n");
}

static void torus_slave_print_help(struct link_util *lu, int argc,
				   char **argv, FILE *f)
{
	torus_slave_usage(f);
}

static int torus_slave_parse_opt(struct link_util *lu, int argc, char **argv,
				 struct nlmsghdr *n)
{
	int label = -1;
	uint8_t dir;

	while (argc > 0) {
		if (strcmp(*argv, "dir") == 0) {
			if (label >= 0)
				duparg("dir", argv[1] ? argv[1] : "");
			if (argc < 2)
				invarg("\"dir\" needs a direction label", "");
			if (strcmp(argv[1], "none") == 0)
				dir = TORUS_DIR_NONE;
			else if (parse_dir(argv[1], &dir))
				invarg("\"dir\" is a direction label, +x .. -e, or none",
				       argv[1]);
			label = dir;
			argc -= 2;
			argv += 2;
		} else if (strcmp(*argv, "help") == 0) {
			torus_slave_usage(stdout);
			return -1;
		} else {
			fprintf(stderr, "torus_slave: unknown option \"%s\"\n",
				*argv);
			torus_slave_usage(stderr);
			return -1;
		}
	}
	if (label >= 0)
		addattr8(n, IP_PLUGIN_REQ_MAX, TORUS_PORT_INFO_A_LABEL, label);
	return 0;
}

static void torus_slave_print_opt(struct link_util *lu, FILE *f,
				  struct rtattr *tb[])
{
	if (!tb)
		return;
	plugin_print_dir(tb[TORUS_PORT_INFO_A_LABEL], "dir");
	plugin_print_dir(tb[TORUS_PORT_INFO_A_GLOBAL_DIR], "global_dir");
}

PLUGIN_EXPORT struct link_util torus_slave_link_util = {
	.id		= "torus_slave",
	.maxattr	= TORUS_PORT_INFO_A_MAX,
	.parse_opt	= torus_slave_parse_opt,
	.print_opt	= torus_slave_print_opt,
	.print_help	= torus_slave_print_help,
};
