// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * link_torus_slave.c - stock iproute2 `ip` plugin for the ports of a
 * torus node ("torus_slave" in ip -d link show)
 *
 *	ip -d [-j] link show PORT	the port's label and the direction it
 *					serves in the node's port map
 */
#include <string.h>

#include <linux/torus.h>

#include "ip_plugin.h"
#include "plugin_print.h"

static void torus_slave_print_help(struct link_util *lu, int argc,
				   char **argv, FILE *f)
{
	fprintf(f,
		"Usage: ip link set PORT master NODE\n"
		"       ip -d [ -j ] link show PORT\n"
		"A port's label is fixed at creation (ip link add ... type torport\n"
		"dir LABEL); its global direction comes from the node's port map.\n");
}

static int torus_slave_parse_opt(struct link_util *lu, int argc, char **argv,
				 struct nlmsghdr *n)
{
	if (strcmp(*argv, "help") != 0)
		fprintf(stderr, "torus_slave: unknown option \"%s\"\n", *argv);
	torus_slave_print_help(lu, 0, NULL, stderr);
	return -1;
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
