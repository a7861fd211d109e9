// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * route_path.c - torus route path COORD: the whole path to COORD, hop by
 * hop, as the node's torusd computed it
 *
 * The kernel keeps only what each hop needs (the source's exception, the
 * plan in the header), so the whole path is known where it was computed:
 * torusd keeps the route set it installed (its fault set, plans, lambs,
 * table) and walks the route on request ("path COORD" on its socket
 * /run/torusd/ctl-NETNS-DEV, one per network namespace, as for "torus
 * neighbor show").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <net/if.h>

#include "json_print.h"
#include "tool.h"

#define OBJ		"route"
#define REPLY_MAX	65536

/* "1,2,3": a JSON array of numbers, the text as it is */
static void print_coord(const char *key, const char *fmt, const char *text)
{
	const char *p = text;

	if (!is_json_context() || !strcmp(text, "-")) {
		print_string(PRINT_ANY, key, fmt, text);
		return;
	}
	open_json_array(PRINT_JSON, key);
	while (*p) {
		char *end;
		unsigned long v = strtoul(p, &end, 10);

		if (end == p)
			break;
		print_uint(PRINT_JSON, NULL, NULL, (unsigned int)v);
		p = *end == ',' ? end + 1 : end;
	}
	close_json_array(PRINT_JSON, NULL);
}

static unsigned int num(const char *line, const char *key)
{
	char v[16];

	return (unsigned int)strtoul(torusd_word(line, key, v, sizeof(v)),
				     NULL, 10);
}

static void print_route(const char *line)
{
	char kind[16], src[64], dst[64], via[64], why[16];

	torusd_word(line, "kind", kind, sizeof(kind));
	torusd_word(line, "src", src, sizeof(src));
	torusd_word(line, "dst", dst, sizeof(dst));
	torusd_word(line, "via", via, sizeof(via));
	torusd_word(line, "why", why, sizeof(why));
	print_coord("src", "path from %s", src);
	print_coord("dst", " to %s:", dst);
	print_string(PRINT_ANY, "kind", " %s", kind);
	if (!strcmp(kind, "via")) {
		print_coord("via", " %s", via);
		print_uint(PRINT_ANY, "plan0", " (plan %u", num(line, "plan0"));
		print_uint(PRINT_ANY, "plan1", ", then plan %u)",
			   num(line, "plan1"));
	}
	if (!strcmp(kind, "unreachable"))
		print_string(PRINT_ANY, "why", " (%s)", why);
	print_uint(PRINT_ANY, "hop_count", ", %u hops", num(line, "hops"));
	print_uint(PRINT_ANY, "ls_generation", " (link state %u",
		   num(line, "ls_generation"));
	print_uint(PRINT_ANY, "generation", ", table generation %u)",
		   num(line, "generation"));
	print_nl();
}

static void print_hop(const char *line)
{
	char node[64], dir[8];

	torusd_word(line, "node", node, sizeof(node));
	torusd_word(line, "dir", dir, sizeof(dir));
	open_json_object(NULL);
	print_coord("node", "  %s", node);
	print_string(PRINT_ANY, "dir", " %s", dir);
	print_uint(PRINT_ANY, "round", " round %u", num(line, "round"));
	print_uint(PRINT_ANY, "plan", " plan %u", num(line, "plan"));
	print_uint(PRINT_ANY, "vc", " vc %u", num(line, "vc"));
	print_nl();
	close_json_object();
}

int route_path(int argc, char **argv)
{
	char name[IF_NAMESIZE], req[64], *buf, *line, *next;
	const char *dev = NULL, *dst = NULL;
	uint32_t coord[TORUS_MAX_AXES], ifindex;
	bool hops = false;

	for (; argc > 0; argc--, argv++) {
		if (kw(argv[0], "dev"))
			NEXT_IFNAME(OBJ, "dev", dev);
		else if (!dst && parse_coord(argv[0], coord) > 0)
			dst = argv[0];
		else if (!dst)
			return bad_value(OBJ, "coordinates", argv[0],
					 "C[,C...] with 0 <= C <= 255");
		else
			return unknown_keyword(OBJ, argv[0]);
	}
	if (!dst)
		return usage_error(OBJ, "missing COORD");
	if (node_ifindex(dev, &ifindex) || !if_indextoname(ifindex, name)) {
		if (!dev)
			return EXIT_ERR;
		snprintf(name, sizeof(name), "%s", dev);
	}
	snprintf(req, sizeof(req), "path %s", dst);
	buf = torusd_query(name, req, REPLY_MAX);
	if (!buf)
		return EXIT_ERR;
	new_json_obj(stdout, opts.json, opts.pretty);
	open_json_object(NULL);
	for (line = buf + 3; *line; line = next) {
		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		if (!strncmp(line, "route ", 6)) {
			print_route(line);
		} else if (!strncmp(line, "hop ", 4)) {
			if (!hops)
				open_json_array(PRINT_JSON, "hops");
			hops = true;
			print_hop(line);
		}
	}
	if (!hops)
		open_json_array(PRINT_JSON, "hops");
	close_json_array(PRINT_JSON, NULL);
	close_json_object();
	delete_json_obj();
	free(buf);
	return EXIT_OK;
}
