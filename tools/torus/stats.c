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
	return node_request(OBJ, argc, argv, TORUS_CMD_STATS_RESET);
}

static const struct cmd stats_cmds[] = {
	{ "reset",	stats_reset },
	{}
};

int do_stats(int argc, char **argv)
{
	return do_cmds(OBJ, stats_cmds, stats_usage, argc, argv);
}
