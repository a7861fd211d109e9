// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stats.c - torus stats: counters of a node and its ports
 *
 *	torus stats reset [ dev DEV ]
 *
 * The counters themselves are shown by "torus -s node show" and
 * "torus -s port show".
 */
#include <stdio.h>

#include <linux/torus.h>

#include "parse.h"
#include "tool.h"

#define OBJ	"stats"

void stats_usage(FILE *f)
{
	fprintf(f,
		"Usage: torus stats reset [ dev DEV ]\n"
		"       (counters are shown by \"torus -s node show\" and \"torus -s port show\")\n");
}

static int stats_reset(int argc, char **argv)
{
	const char *dev = NULL;
	struct nlsock *genl;
	struct nlmsghdr *nlh;
	uint32_t ifindex;

	while (argc > 0) {
		if (kw(argv[0], "dev")) {
			NEXT_ARG(OBJ);
			if (parse_ifname(argv[0]))
				return bad_value(OBJ, "dev", argv[0],
						 "a device name");
			dev = argv[0];
		} else {
			return unknown_keyword(OBJ, argv[0]);
		}
		argc--;
		argv++;
	}
	if (node_ifindex(dev, &ifindex))
		return EXIT_ERR;
	genl = ns_genl();
	if (!genl)
		return EXIT_ERR;
	nlh = mnlg_msg(genl, TORUS_CMD_STATS_RESET, 0);
	mnl_attr_put_u32(nlh, TORUS_A_IFINDEX, ifindex);
	return nlsock_talk(genl, nlh, NULL, NULL) ? EXIT_ERR : EXIT_OK;
}

int do_stats(int argc, char **argv)
{
	if (argc < 1)
		return usage_error(OBJ, "missing command");
	if (kw(argv[0], "reset"))
		return stats_reset(argc - 1, argv + 1);
	if (kw(argv[0], "help")) {
		stats_usage(stdout);
		return EXIT_OK;
	}
	return unknown_keyword(OBJ, argv[0]);
}
