// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * link_torus.c - stock iproute2 `ip` plugin for torus node devices
 *
 *	ip link add NAME type torus
 *	ip -d [-j] link show NAME	node id, state, role, coordinates,
 *					extents, wrap flags, ports
 *
 * The node takes no options through rtnetlink: coordinates and the port
 * map are set with `torus node set` (or found by torusd).
 */
#include <inttypes.h>
#include <string.h>

#include <linux/torus.h>

#include "ip_plugin.h"
#include "parse.h"
#include "plugin_print.h"

static void torus_usage(FILE *f)
{
	fprintf(f,
		"Usage: ip link add NAME type torus\n"
		"       ip -d [ -j ] link show NAME\n"
		"The node's coordinates, extents and port map are set with\n"
		"\"torus node set\" (man 8 torus) or found by torusd.\n");
}

static void torus_print_help(struct link_util *lu, int argc, char **argv,
			     FILE *f)
{
	torus_usage(f);
}

static int torus_parse_opt(struct link_util *lu, int argc, char **argv,
			   struct nlmsghdr *n)
{
	if (strcmp(*argv, "help") == 0) {
		torus_usage(stdout);
		return -1;
	}
	fprintf(stderr, "torus: unknown option \"%s\"\n", *argv);
	torus_usage(stderr);
	return -1;
}

static void torus_print_u8_name(const struct rtattr *attr, const char *key,
				const char *(*name)(uint8_t))
{
	char fmt[32];

	if (!attr || RTA_PAYLOAD(attr) < sizeof(uint8_t))
		return;
	snprintf(fmt, sizeof(fmt), "%s %%s ", key);
	print_color_string(PRINT_ANY, COLOR_NONE, key, fmt,
			   name(*(const uint8_t *)RTA_DATA(attr)));
}

static void torus_print_opt(struct link_util *lu, FILE *f,
			    struct rtattr *tb[])
{
	const struct rtattr *id, *ports;

	if (!tb)
		return;
	id = tb[TORUS_NODE_INFO_A_NODE_ID];
	if (id && RTA_PAYLOAD(id) == sizeof(uint64_t)) {
		char buf[24];
		uint64_t v;

		/* 64-bit ids are strings in JSON, as the torus tool has them */
		memcpy(&v, RTA_DATA(id), sizeof(v));
		snprintf(buf, sizeof(buf), "%" PRIu64, v);
		print_color_string(PRINT_ANY, COLOR_NONE, "node_id",
				   "node_id %s ", buf);
	}
	torus_print_u8_name(tb[TORUS_NODE_INFO_A_STATE], "state",
			    format_state);
	torus_print_u8_name(tb[TORUS_NODE_INFO_A_ROLE], "role", format_role);
	plugin_print_axes(tb[TORUS_NODE_INFO_A_COORD], "coord");
	plugin_print_axes(tb[TORUS_NODE_INFO_A_DIMS], "dims");
	plugin_print_axes(tb[TORUS_NODE_INFO_A_WRAP], "wrap");
	ports = tb[TORUS_NODE_INFO_A_PORTS];
	if (ports && RTA_PAYLOAD(ports) == sizeof(uint32_t))
		print_color_uint(PRINT_ANY, COLOR_NONE, "ports", "ports %u ",
				 *(const uint32_t *)RTA_DATA(ports));
}

PLUGIN_EXPORT struct link_util torus_link_util = {
	.id		= TORUS_NODE_KIND,
	.maxattr	= TORUS_NODE_INFO_A_MAX,
	.parse_opt	= torus_parse_opt,
	.print_opt	= torus_print_opt,
	.print_help	= torus_print_help,
};
