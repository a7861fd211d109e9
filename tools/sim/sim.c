// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * torus-sim - run the discovery core on a simulated torus/mesh
 *
 *	torus-sim --dims 32x32x64 --block 8x8x8 --miswire blocks \
 *		--node-fail 0.15 --link-fail 0.15 --seed 1 --runs 5 -j
 *
 * See man/torus-sim.8.  Exit status: 0 when every run converged and was
 * consistent with the ground truth, 1 otherwise, 2 for usage errors.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json_print.h"
#include "sim.h"

#define AXES	TORUS_AXIS_NAMES

static const char *miswire_names[] = { "none", "blocks", "nodes" };
static const char *order_names[] = { "random", "ids", "coords", "axes" };
static const char *liar_names[] = { "random", "lying" };

static void usage(FILE *f)
{
	fprintf(f,
"Usage: torus-sim [OPTIONS]\n"
"Run the torusd discovery core on a simulated torus or mesh.\n"
"\n"
"  --dims AxBx...         extents per axis, 1-8 axes of 1-256 (default 8x8x8)\n"
"  --block AxBx...        blocks (midplanes) of this shape; must divide --dims\n"
"  --wrap W,W,...         per axis 1 torus ring, 0 mesh line (default all 1)\n"
"  --mesh AXES            axes that are lines, e.g. z or xy (" AXES ")\n"
"  --node-fail Q          probability a node is dead (default 0)\n"
"  --link-fail P          probability a cable is cut, 1 - r (default 0)\n"
"  --miswire MODE         none | blocks | nodes (default none)\n"
"  --seed N               first seed (default 1)\n"
"  --runs K               runs with seeds N, N+1, ... (default 1)\n"
"  --max-rounds N         round cap (default 4d + 4K + 50)\n"
"  --quiet-ticks K        the core's quiet_ticks (default d + 2, see man)\n"
"  --orient-ticks N       the core's orient_ticks (default 0: core's 2d+2)\n"
"  --hello-ticks N        the core's hello_ticks (default 1000; with time: 10)\n"
"  --dead-ticks N         the core's dead_ticks (default 3000; with time: 40)\n"
"  --ls-settle-ticks N    the core's ls_settle_ticks (default 2; with time:\n"
"                         dead_ticks)\n"
"\n"
"Time (any of these sets torusd's timer ratios: hello 10, dead 40, quiet 30\n"
"ticks of 50 ms, unless given):\n"
"  --start-spread T       power nodes on over T ticks (default 0)\n"
"  --start-order ORDER    random | ids (highest id last) | coords (row-major)\n"
"                         | axes (origin, x line, xy plane, ... in turn)\n"
"  --loss P               probability a message is lost\n"
"  --dup P                probability a message is delivered twice\n"
"  --reorder P            probability a message is 1-%d rounds late\n"
"  --stall P[:T]          probability a node's loop stalls in a round (a\n"
"                         starved daemon): it runs no tick and reads no\n"
"                         message for 1-T rounds (default 60), its ticks\n"
"                         forgiven, its messages kept until it runs again\n"
"  --restart N[:MODE]     N daemon restarts at random ticks; MODE resume\n"
"                         (default: the kernel's placement is restored) or\n"
"                         fresh\n"
"  --recable N            N cables unplugged and plugged back later\n"
"  --wrong-plug N         N pairs of cables unplugged and plugged back\n"
"                         crossed (each into a wrong node and port)\n"
"  --grow AXIS:K          the last K slabs along AXIS are added once the\n"
"                         rest settled (a ring is closed before it grows)\n"
"  --liar N[:KIND]        N nodes send random bytes (random) or lying\n"
"                         records (lying, default) instead of running the\n"
"                         core\n"
"  --mtu BYTES            cables drop control messages longer than this\n"
"                         (counted as oversize_msgs)\n"
"  --no-sleep             tick every node every round (by default a node\n"
"                         sleeps until its next deadline: tc_skip())\n"
"  --truth-swap N         test knob: the checks take N pairs of nodes for\n"
"                         each other (proves they can fail)\n"
"\n"
"Link state (measured once discovery placed everybody, by default only\n"
"where all databases take at most %.0f GB: otherwise a note says so):\n"
"  --ls                   measure it however large the databases\n"
"  --ls-events            then kill and revive a node, cut and restore a\n"
"                         cable, each once link state agreed again\n"
"  --ls-records N         the core's link-state bound, measured (default:\n"
"                         the reporters the faults make, plus room)\n"
"  --no-ls                no measurement, a bound of one record\n"
"  --svg FILE             draw the first run's fabric (as torus topo; at\n"
"                         most 4096 nodes)\n"
"  -j, --json             print one JSON object\n"
"  -v, --verbose          progress on stderr (twice: every round)\n"
"  -h, --help             this text\n"
"\n"
"Routes (lambs, verifier, route tables): torus-sim --routes paper --help\n"
"\n"
"Exit status: 0 all runs converged, consistent and never wrong, 1\n"
"otherwise, 2 usage.\n", SIM_MAX_DELAY, SIM_LS_FIT / 1e9);
}

static void __attribute__((format(printf, 1, 2), noreturn))
die_usage(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "torus-sim: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'torus-sim --help'.\n");
	exit(2);
}

static unsigned long long parse_uint(const char *opt, const char *s,
				     unsigned long long min,
				     unsigned long long max)
{
	unsigned long long v;
	char *end;

	errno = 0;
	if (!*s || *s == '-')
		die_usage("%s: '%s' is not a non-negative integer", opt, s);
	v = strtoull(s, &end, 0);
	if (errno || *end)
		die_usage("%s: '%s' is not a non-negative integer", opt, s);
	if (v < min || v > max)
		die_usage("%s: %s is out of range %llu..%llu", opt, s, min, max);
	return v;
}

static double parse_prob(const char *opt, const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= 0.0 && v < 1.0))
		die_usage("%s: '%s' is not a probability in [0, 1)", opt, s);
	return v;
}

/* "32x32x64" -> ext[], returns the number of axes */
static unsigned int parse_shape(const char *opt, const char *s,
				uint16_t *ext)
{
	unsigned int n = 0;
	const char *p = s;

	for (;;) {
		unsigned long v;
		char *end;

		if (n == TC_MAX_AXES)
			die_usage("%s: '%s' has more than %d axes", opt, s,
				  TC_MAX_AXES);
		if (*p < '0' || *p > '9')
			die_usage("%s: '%s' is not AxBx... (e.g. 8x8x8)", opt, s);
		errno = 0;
		v = strtoul(p, &end, 10);
		if (errno || v < 1 || v > TORUS_MAX_EXTENT)
			die_usage("%s: extent in '%s' is not 1..%d", opt, s,
				  TORUS_MAX_EXTENT);
		ext[n++] = (uint16_t)v;
		if (!*end)
			return n;
		if (*end != 'x' && *end != 'X')
			die_usage("%s: '%s' is not AxBx... (e.g. 8x8x8)", opt, s);
		p = end + 1;
	}
}

static void shape_str(char *buf, size_t len, unsigned int nd,
		      const uint16_t *ext)
{
	size_t o = 0;
	unsigned int a;

	buf[0] = 0;
	for (a = 0; a < nd && o < len; a++)
		o += snprintf(buf + o, len - o, "%s%u", a ? "x" : "",
			      (unsigned int)ext[a]);
}

enum {
	OPT_DIMS = 256, OPT_BLOCK, OPT_WRAP, OPT_MESH, OPT_NODE_FAIL,
	OPT_LINK_FAIL, OPT_MISWIRE, OPT_SEED, OPT_RUNS, OPT_MAX_ROUNDS,
	OPT_QUIET, OPT_ORIENT, OPT_HELLO, OPT_DEAD, OPT_SPREAD, OPT_ORDER,
	OPT_LOSS, OPT_DUP, OPT_REORDER, OPT_RESTART, OPT_RECABLE,
	OPT_WRONG_PLUG, OPT_GROW, OPT_LIAR, OPT_MTU, OPT_TRUTH_SWAP,
	OPT_NO_SLEEP, OPT_LS_EVENTS, OPT_LS_RECORDS, OPT_NO_LS, OPT_LS, OPT_SVG,
	OPT_LS_SETTLE, OPT_STALL,
};

static const struct option longopts[] = {
	{ "dims",	  required_argument, NULL, OPT_DIMS },
	{ "block",	  required_argument, NULL, OPT_BLOCK },
	{ "wrap",	  required_argument, NULL, OPT_WRAP },
	{ "mesh",	  required_argument, NULL, OPT_MESH },
	{ "node-fail",	  required_argument, NULL, OPT_NODE_FAIL },
	{ "link-fail",	  required_argument, NULL, OPT_LINK_FAIL },
	{ "miswire",	  required_argument, NULL, OPT_MISWIRE },
	{ "seed",	  required_argument, NULL, OPT_SEED },
	{ "runs",	  required_argument, NULL, OPT_RUNS },
	{ "max-rounds",	  required_argument, NULL, OPT_MAX_ROUNDS },
	{ "quiet-ticks",  required_argument, NULL, OPT_QUIET },
	{ "orient-ticks", required_argument, NULL, OPT_ORIENT },
	{ "hello-ticks",  required_argument, NULL, OPT_HELLO },
	{ "dead-ticks",	  required_argument, NULL, OPT_DEAD },
	{ "ls-settle-ticks", required_argument, NULL, OPT_LS_SETTLE },
	{ "start-spread", required_argument, NULL, OPT_SPREAD },
	{ "start-order",  required_argument, NULL, OPT_ORDER },
	{ "loss",	  required_argument, NULL, OPT_LOSS },
	{ "dup",	  required_argument, NULL, OPT_DUP },
	{ "reorder",	  required_argument, NULL, OPT_REORDER },
	{ "stall",	  required_argument, NULL, OPT_STALL },
	{ "restart",	  required_argument, NULL, OPT_RESTART },
	{ "recable",	  required_argument, NULL, OPT_RECABLE },
	{ "wrong-plug",	  required_argument, NULL, OPT_WRONG_PLUG },
	{ "grow",	  required_argument, NULL, OPT_GROW },
	{ "liar",	  required_argument, NULL, OPT_LIAR },
	{ "mtu",	  required_argument, NULL, OPT_MTU },
	{ "truth-swap",	  required_argument, NULL, OPT_TRUTH_SWAP },
	{ "no-sleep",	  no_argument,	     NULL, OPT_NO_SLEEP },
	{ "ls-events",	  no_argument,	     NULL, OPT_LS_EVENTS },
	{ "ls-records",	  required_argument, NULL, OPT_LS_RECORDS },
	{ "no-ls",	  no_argument,	     NULL, OPT_NO_LS },
	{ "ls",		  no_argument,	     NULL, OPT_LS },
	{ "svg",	  required_argument, NULL, OPT_SVG },
	{ "json",	  no_argument,	     NULL, 'j' },
	{ "verbose",	  no_argument,	     NULL, 'v' },
	{ "help",	  no_argument,	     NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

/* "N" or "N:WORD" with WORD one of @names: N, and the word's index */
static unsigned long long parse_count_kind(const char *opt, const char *s,
					   const char *const *names,
					   unsigned int nnames,
					   unsigned int *kind)
{
	char num[32];
	const char *colon = strchr(s, ':');
	unsigned int i;

	if (!colon)
		return parse_uint(opt, s, 0, SIM_MAX_NODES);
	if ((size_t)(colon - s) >= sizeof(num))
		die_usage("%s: '%s' is not N[:KIND]", opt, s);
	memcpy(num, s, colon - s);
	num[colon - s] = 0;
	for (i = 0; i < nnames; i++)
		if (!strcmp(colon + 1, names[i]))
			break;
	if (i == nnames)
		die_usage("%s: '%s' is not %s or %s", opt, colon + 1, names[0],
			  names[1]);
	*kind = i;
	return parse_uint(opt, num, 0, SIM_MAX_NODES);
}

static const char *const restart_names[] = { "resume", "fresh" };

static void parse_args(int argc, char **argv, struct sim_opts *o)
{
	const char *wrap_arg = NULL, *mesh_arg = NULL, *grow_arg = NULL;
	bool hello_set = false, dead_set = false, settle_set = false;
	unsigned int nblock = 0, a, kind;
	uint64_t n = 1;
	int c;

	memset(o, 0, sizeof(*o));
	o->ndims = 3;
	o->dims[0] = o->dims[1] = o->dims[2] = 8;
	o->seed = 1;
	o->runs = 1;
	o->hello_ticks = 1000;
	o->dead_ticks = 3000;
	/* rounds: a neighbor started with this node speaks in its first */
	o->ls_settle_ticks = 2;
	o->grow_axis = -1;
	o->liar_kind = SIM_LIAR_LYING;

	while ((c = getopt_long(argc, argv, "jvh", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_DIMS:
			o->ndims = parse_shape("--dims", optarg, o->dims);
			break;
		case OPT_BLOCK:
			nblock = parse_shape("--block", optarg, o->block);
			o->blocks = true;
			break;
		case OPT_WRAP:
			wrap_arg = optarg;
			break;
		case OPT_MESH:
			mesh_arg = optarg;
			break;
		case OPT_NODE_FAIL:
			o->node_fail = parse_prob("--node-fail", optarg);
			break;
		case OPT_LINK_FAIL:
			o->link_fail = parse_prob("--link-fail", optarg);
			break;
		case OPT_MISWIRE:
			for (a = 0; a < 3; a++)
				if (!strcmp(optarg, miswire_names[a]))
					break;
			if (a == 3)
				die_usage("--miswire: '%s' is not none, blocks "
					  "or nodes", optarg);
			o->miswire = a;
			break;
		case OPT_SEED:
			o->seed = parse_uint("--seed", optarg, 0, ULLONG_MAX);
			break;
		case OPT_RUNS:
			o->runs = parse_uint("--runs", optarg, 1, 1000000);
			break;
		case OPT_MAX_ROUNDS:
			o->max_rounds = parse_uint("--max-rounds", optarg, 1,
						   10000000);
			break;
		case OPT_QUIET:
			o->quiet_ticks = parse_uint("--quiet-ticks", optarg,
						    1, UINT16_MAX);
			break;
		case OPT_ORIENT:
			o->orient_ticks = parse_uint("--orient-ticks", optarg,
						     0, UINT16_MAX);
			break;
		case OPT_HELLO:
			o->hello_ticks = parse_uint("--hello-ticks", optarg,
						    1, UINT16_MAX);
			hello_set = true;
			break;
		case OPT_DEAD:
			o->dead_ticks = parse_uint("--dead-ticks", optarg,
						   1, UINT16_MAX);
			dead_set = true;
			break;
		case OPT_LS_SETTLE:
			o->ls_settle_ticks = parse_uint("--ls-settle-ticks",
							optarg, 1, UINT16_MAX);
			settle_set = true;
			break;
		case OPT_SPREAD:
			o->start_spread = parse_uint("--start-spread", optarg,
						     0, 1000000);
			o->timed = true;
			break;
		case OPT_ORDER:
			for (a = 0; a < 4; a++)
				if (!strcmp(optarg, order_names[a]))
					break;
			if (a == 4)
				die_usage("--start-order: '%s' is not random, "
					  "ids, coords or axes", optarg);
			o->start_order = a;
			o->timed = true;
			break;
		case OPT_LOSS:
			o->loss = parse_prob("--loss", optarg);
			o->timed = true;
			break;
		case OPT_DUP:
			o->dup = parse_prob("--dup", optarg);
			o->timed = true;
			break;
		case OPT_REORDER:
			o->reorder = parse_prob("--reorder", optarg);
			o->timed = true;
			break;
		case OPT_STALL: {
			char *colon = strchr(optarg, ':');

			o->stall_max = 60;
			if (colon) {
				*colon = '\0';
				o->stall_max = (uint16_t)parse_uint("--stall",
								    colon + 1,
								    1, 60000);
			}
			o->stall = parse_prob("--stall", optarg);
			o->timed = true;
			break;
		}
		case OPT_RESTART:
			kind = 0;
			o->restarts = parse_count_kind("--restart", optarg,
						       restart_names, 2, &kind);
			o->restart_fresh = kind == 1;
			o->timed = true;
			break;
		case OPT_RECABLE:
			o->recables = parse_uint("--recable", optarg, 0,
						 SIM_MAX_NODES);
			o->timed = true;
			break;
		case OPT_WRONG_PLUG:
			o->wrong_plugs = parse_uint("--wrong-plug", optarg, 0,
						    SIM_MAX_NODES);
			o->timed = true;
			break;
		case OPT_GROW:
			grow_arg = optarg;
			o->timed = true;
			break;
		case OPT_TRUTH_SWAP:
			o->truth_swaps = parse_uint("--truth-swap", optarg, 0,
						    SIM_MAX_NODES);
			break;
		case OPT_NO_SLEEP:
			o->no_sleep = true;
			break;
		case OPT_MTU:
			o->mtu = parse_uint("--mtu", optarg, 1, UINT16_MAX);
			break;
		case OPT_LIAR:
			kind = SIM_LIAR_LYING;
			o->liars = parse_count_kind("--liar", optarg,
						    liar_names, 2, &kind);
			o->liar_kind = kind;
			o->timed = true;
			break;
		case OPT_LS_EVENTS:
			o->ls_events = true;
			break;
		case OPT_NO_LS:
			o->no_ls = true;
			break;
		case OPT_LS:
			o->force_ls = true;
			break;
		case OPT_SVG:
			o->svg = optarg;
			break;
		case OPT_LS_RECORDS:
			o->ls_records = parse_uint("--ls-records", optarg, 1,
						   1u << 24);
			break;
		case 'j':
			o->json = true;
			break;
		case 'v':
			o->verbose++;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			fprintf(stderr, "Try 'torus-sim --help'.\n");
			exit(2);
		}
	}
	if (optind < argc)
		die_usage("unexpected argument '%s'", argv[optind]);
	if (o->no_ls && (o->ls_events || o->ls_records || o->force_ls))
		die_usage("--no-ls excludes --ls, --ls-events and --ls-records");

	for (a = 0; a < o->ndims; a++)
		n *= o->dims[a];
	if (n > SIM_MAX_NODES)
		die_usage("--dims: %llu nodes, at most %u",
			  (unsigned long long)n, SIM_MAX_NODES);

	o->wrap = (uint8_t)((1u << o->ndims) - 1);
	if (wrap_arg && mesh_arg)
		die_usage("--wrap and --mesh are exclusive");
	if (wrap_arg) {
		const char *p = wrap_arg;

		o->wrap = 0;
		for (a = 0; ; a++) {
			if (a == o->ndims || (*p != '0' && *p != '1'))
				die_usage("--wrap: '%s' is not one 0 or 1 per "
					  "axis of --dims", wrap_arg);
			if (*p == '1')
				o->wrap |= 1u << a;
			p++;
			if (!*p)
				break;
			if (*p++ != ',')
				die_usage("--wrap: '%s' is not one 0 or 1 per "
					  "axis of --dims", wrap_arg);
		}
		if (a + 1 != o->ndims)
			die_usage("--wrap: '%s' is not one 0 or 1 per axis of "
				  "--dims", wrap_arg);
	}
	if (mesh_arg) {
		const char *p;

		for (p = mesh_arg; *p; p++) {
			const char *q = strchr(AXES, *p);

			if (!q || (unsigned int)(q - AXES) >= o->ndims)
				die_usage("--mesh: '%c' is not an axis of "
					  "--dims (%.*s)", *p, (int)o->ndims,
					  AXES);
			o->wrap &= ~(1u << (q - AXES));
		}
	}

	if (o->blocks) {
		if (nblock != o->ndims)
			die_usage("--block: %u axes, --dims has %u", nblock,
				  o->ndims);
		for (a = 0; a < o->ndims; a++)
			if (o->dims[a] % o->block[a])
				die_usage("--block: %u does not divide %u "
					  "(axis %c)", o->block[a], o->dims[a],
					  AXES[a]);
	}
	if (o->miswire == SIM_MISWIRE_BLOCKS && !o->blocks)
		die_usage("--miswire blocks needs --block");

	if (grow_arg) {
		const char *q = strchr(AXES, grow_arg[0]);
		unsigned long k;
		char *end;

		if (!grow_arg[0] || !q || (unsigned int)(q - AXES) >= o->ndims ||
		    grow_arg[1] != ':')
			die_usage("--grow: '%s' is not AXIS:K with AXIS an axis "
				  "of --dims (%.*s)", grow_arg, (int)o->ndims,
				  AXES);
		o->grow_axis = (int)(q - AXES);
		errno = 0;
		k = strtoul(grow_arg + 2, &end, 10);
		if (errno || *end || end == grow_arg + 2 || k < 1 ||
		    k + 2 > o->dims[o->grow_axis])
			die_usage("--grow: K in '%s' must leave at least 2 "
				  "slabs (1..%d)", grow_arg,
				  o->dims[o->grow_axis] - 2);
		if (o->blocks && k % o->block[o->grow_axis])
			die_usage("--grow: K must be whole blocks (a multiple "
				  "of %u)", o->block[o->grow_axis]);
		o->grow_slabs = (uint16_t)k;
	}
	/* torusd's defaults: tick 50 ms, hello 500, dead 2000, quiet 1500 */
	if (o->timed) {
		if (!hello_set)
			o->hello_ticks = 10;
		if (!dead_set)
			o->dead_ticks = 40;
		if (!settle_set)
			o->ls_settle_ticks = 0;	/* the core's: dead_ticks */
		if (!o->quiet_ticks)
			o->quiet_ticks = 30;
	}
}

/* ---- one run: the world, the quiet window, the engine ---- */

/* distance from @s to every node of its component; the farthest */
static uint32_t bfs(const struct sim_world *w, uint32_t s, uint32_t *dist,
		    uint32_t *queue, uint32_t *ecc)
{
	uint32_t head = 0, tail = 0, far = s, u;
	unsigned int l;

	memset(dist, 0xff, sizeof(*dist) * w->nnodes);
	dist[s] = 0;
	queue[tail++] = s;
	while (head < tail) {
		u = queue[head++];
		if (dist[u] > dist[far])
			far = u;
		for (l = 0; l < w->nports; l++) {
			uint32_t p = w->peer[(size_t)u * w->nports + l];

			if (p == SIM_NO_PEER || !w->alive[p >> 4] ||
			    dist[p >> 4] != UINT32_MAX)
				continue;
			dist[p >> 4] = dist[u] + 1;
			queue[tail++] = p >> 4;
		}
	}
	*ecc = dist[far];
	return far;
}

/*
 * The diameter that K must exceed is the faulty network's.  A double
 * sweep from the node that will lead (highest id) estimates it; K is
 * the larger of that and the fault-free diameter, plus 2.
 */
static unsigned int faulty_diameter(const struct sim_world *w)
{
	uint32_t *dist, *queue, s = UINT32_MAX, u, e1 = 0, e2 = 0;

	dist = malloc(sizeof(*dist) * w->nnodes);
	queue = malloc(sizeof(*queue) * w->nnodes);
	if (!dist || !queue) {
		free(dist);
		free(queue);
		return w->diameter;
	}
	for (u = 0; u < w->nnodes; u++)
		if (w->alive[u] && (s == UINT32_MAX || w->ids[u] > w->ids[s]))
			s = u;
	if (s != UINT32_MAX) {
		s = bfs(w, s, dist, queue, &e1);
		bfs(w, s, dist, queue, &e2);
	}
	free(dist);
	free(queue);
	return e1 > e2 ? e1 : e2;
}

struct run_info {
	unsigned int diameter, faulty_diameter, quiet;
	uint32_t cables, dead_cables, nblocks, nfaces;
};

static int one_run(const struct sim_opts *o, uint64_t seed,
		   struct sim_result *r, struct run_info *ri)
{
	struct sim_opts oo = *o;
	struct sim_schedule sch;
	struct sim_world w;
	int err;

	if (sim_world_build(&w, o, seed)) {
		fprintf(stderr, "torus-sim: out of memory\n");
		return -ENOMEM;
	}
	ri->diameter = w.diameter;
	ri->faulty_diameter = w.diameter;
	if (o->node_fail > 0 || o->link_fail > 0)
		ri->faulty_diameter = faulty_diameter(&w);
	if (!oo.quiet_ticks) {
		unsigned int d = ri->faulty_diameter > w.diameter ?
				 ri->faulty_diameter : w.diameter;

		oo.quiet_ticks = d + 2 > UINT16_MAX ? UINT16_MAX : d + 2;
	}
	ri->quiet = oo.quiet_ticks;
	ri->cables = w.cables;
	ri->dead_cables = w.dead_cables;
	ri->nblocks = w.nblocks;
	ri->nfaces = w.nfaces;
	w.o = &oo;
	if (sim_schedule_build(&sch, &w, oo.quiet_ticks)) {
		fprintf(stderr, "torus-sim: out of memory\n");
		sim_world_free(&w);
		return -ENOMEM;
	}
	if (o->svg && seed == o->seed) {
		r->final = calloc(w.nnodes, sizeof(*r->final));
		if (!r->final) {
			fprintf(stderr, "torus-sim: out of memory\n");
			sim_schedule_free(&sch);
			sim_world_free(&w);
			return -ENOMEM;
		}
	}
	err = sim_run(&w, &sch, r);
	if (!err && r->final && sim_write_svg(&w, r, o->svg))
		err = -EIO;
	free(r->final);
	r->final = NULL;
	sim_schedule_free(&sch);
	sim_world_free(&w);
	return err;
}

/* ---- output ---- */

static void merge_reasons(struct sim_result *tot, const struct sim_result *r)
{
	unsigned int i, j;

	for (i = 0; i <= SIM_MAX_REASONS; i++) {
		const struct sim_reason *s = &r->reasons[i];

		if (!s->count)
			continue;
		for (j = 0; j < tot->nreasons; j++)
			if (!strcmp(tot->reasons[j].text, s->text))
				break;
		if (j == tot->nreasons) {
			if (j == SIM_MAX_REASONS) {
				strcpy(tot->reasons[j].text, "(other reasons)");
			} else {
				strcpy(tot->reasons[j].text, s->text);
				tot->nreasons++;
			}
		}
		tot->reasons[j].count += s->count;
	}
}

/* members of the one JSON object, through the shared printer */
static void json_uint(struct json_writer *jw, const char *name, uint64_t v)
{
	jsonw_name(jw, name);
	jsonw_u64(jw, v);
}

static void json_float(struct json_writer *jw, const char *name,
		       const char *fmt, double v)
{
	jsonw_name(jw, name);
	jsonw_float(jw, fmt, v);
}

static void json_bool(struct json_writer *jw, const char *name, bool v)
{
	jsonw_name(jw, name);
	jsonw_bool(jw, v);
}

static void json_string(struct json_writer *jw, const char *name,
			const char *v)
{
	jsonw_name(jw, name);
	if (v)
		jsonw_string(jw, v);
	else
		jsonw_null(jw);
}

/* rounds to placed: null when some run never placed everything */
static void json_rounds_to_placed(struct json_writer *jw, int64_t rtp)
{
	jsonw_name(jw, "rounds_to_placed");
	if (rtp < 0)
		jsonw_null(jw);
	else
		jsonw_s64(jw, rtp);
}

/* a tick, or null for "never" */
static void json_tick(struct json_writer *jw, const char *name, int64_t t)
{
	jsonw_name(jw, name);
	if (t < 0)
		jsonw_null(jw);
	else
		jsonw_s64(jw, t);
}

static void json_reasons(struct json_writer *jw, const struct sim_result *r)
{
	unsigned int i;

	jsonw_name(jw, "unplaced_reasons");
	jsonw_start_object(jw);
	for (i = 0; i <= SIM_MAX_REASONS; i++) {
		if (!r->reasons[i].count)
			continue;
		json_uint(jw, r->reasons[i].text, r->reasons[i].count);
	}
	jsonw_end_object(jw);
}

/* rounds to agree, null when the phase did not run or timed out */
static void json_ls_rounds(struct json_writer *jw, const char *name,
			   int64_t rounds)
{
	jsonw_name(jw, name);
	if (rounds < 0)
		jsonw_null(jw);
	else
		jsonw_s64(jw, rounds);
}

static void json_ls_run(struct json_writer *jw, const struct sim_ls_result *l)
{
	unsigned int i;

	json_bool(jw, "ls_measured", l->measured);
	json_bool(jw, "ls_agree", l->measured && l->agree);
	json_bool(jw, "ls_exact", l->measured && l->exact);
	json_ls_rounds(jw, "ls_rounds", l->rounds[SIM_LS_INITIAL]);
	json_uint(jw, "ls_started_at", l->started_at);
	json_float(jw, "ls_bytes_per_node_mean", "%.1f",
		   l->bytes_mean[SIM_LS_INITIAL]);
	json_float(jw, "ls_bytes_per_node_max", "%.0f",
		   l->bytes_max[SIM_LS_INITIAL]);
	json_float(jw, "ls_msgs_per_node", "%.2f", l->msgs_mean);
	json_uint(jw, "ls_reporters", l->reporters);
	json_uint(jw, "ls_records_max", l->records_max);
	json_uint(jw, "ls_capacity", l->capacity);
	json_uint(jw, "ls_overflow", l->overflow);
	json_uint(jw, "ls_disagree", l->disagree);
	jsonw_name(jw, "ls_events");
	jsonw_start_object(jw);
	for (i = SIM_LS_KILL; i < SIM_LS_PHASES; i++) {
		if (l->rounds[i] == SIM_LS_NOT_RUN)
			continue;
		jsonw_name(jw, sim_ls_phase_name(i));
		jsonw_start_object(jw);
		json_ls_rounds(jw, "rounds", l->rounds[i]);
		json_float(jw, "bytes_per_node_mean", "%.1f",
			   l->bytes_mean[i]);
		json_float(jw, "bytes_per_node_max", "%.0f", l->bytes_max[i]);
		jsonw_end_object(jw);
	}
	jsonw_end_object(jw);
}

static void json_run(struct json_writer *jw, const struct sim_result *r,
		     const struct run_info *ri)
{
	jsonw_start_object(jw);
	json_uint(jw, "seed", r->seed);
	json_uint(jw, "live", r->live);
	json_uint(jw, "faulty_diameter", ri->faulty_diameter);
	json_uint(jw, "quiet_ticks", ri->quiet);
	json_uint(jw, "rounds", r->rounds);
	json_uint(jw, "rounds_coords", r->rounds_coords);
	json_rounds_to_placed(jw, r->rounds_to_placed);
	json_uint(jw, "rounds_run", r->rounds_run);
	json_string(jw, "stop", r->stop);
	json_bool(jw, "converged", r->converged);
	json_uint(jw, "placed", r->placed);
	json_uint(jw, "unplaced", r->unplaced);
	json_uint(jw, "failed", r->failed);
	json_reasons(jw, r);
	json_bool(jw, "consistent", r->consistent);
	json_uint(jw, "frames", r->frames);
	json_uint(jw, "components", r->components);
	json_uint(jw, "main_component", r->main_component);
	json_uint(jw, "main_placed", r->main_placed);
	json_bool(jw, "orientation_ok", r->orientation_ok);
	json_uint(jw, "blocks_in_main", r->blocks_in_main);
	json_uint(jw, "blocks_failed", r->blocks_failed);
	json_bool(jw, "blocks_ok", r->blocks_ok);
	json_uint(jw, "bad_coord", r->bad_coord);
	json_uint(jw, "bad_dims", r->bad_dims);
	json_uint(jw, "bad_portmap", r->bad_portmap);
	json_uint(jw, "bad_frames", r->bad_frame);
	json_uint(jw, "split_components", r->split_components);
	json_uint(jw, "missing_portmap", r->missing_portmap);
	json_float(jw, "msgs_per_node", "%.3f", r->msgs_per_node);
	json_float(jw, "bytes_per_node", "%.1f", r->bytes_per_node);
	json_uint(jw, "bad_rx", r->bad_rx);
	json_uint(jw, "oversize_msgs", r->oversize);
	json_uint(jw, "queue_drops", r->queue_drops);
	json_uint(jw, "refuted", r->refuted);
	json_uint(jw, "resurveys", r->resurveys);
	json_uint(jw, "node_ticks", r->node_ticks);
	json_uint(jw, "node_ticks_slept", r->node_ticks_slept);
	json_uint(jw, "moved", r->moved);
	json_uint(jw, "moved_rewired", r->moved_rewired);
	json_uint(jw, "moved_after_growth", r->moved_after_growth);
	json_uint(jw, "moved_beyond_growth", r->moved_beyond_growth);
	json_uint(jw, "wrong", r->wrong);
	json_uint(jw, "wrong_coord", r->wrong_coord);
	json_uint(jw, "wrong_dims", r->wrong_dims);
	json_uint(jw, "wrong_portmap", r->wrong_portmap);
	json_uint(jw, "wrong_frame", r->wrong_frame);
	json_tick(jw, "first_wrong", r->first_wrong);
	json_uint(jw, "wrong_checks", r->wrong_checks);
	json_tick(jw, "converged_at", r->converged_at);
	json_uint(jw, "last_event", r->last_event);
	json_tick(jw, "grown_at", r->grown_at);
	json_tick(jw, "survey_from", r->survey_from);
	json_tick(jw, "surveyed_at", r->surveyed_at);
	json_uint(jw, "liars", r->liars);
	json_uint(jw, "msgs_lost", r->lost);
	json_uint(jw, "msgs_duplicated", r->duplicated);
	json_uint(jw, "msgs_delayed", r->delayed);
	json_float(jw, "main_placed_fraction", "%.6g",
		   r->main_component ?
		   (double)r->main_placed / r->main_component : 1.0);
	json_float(jw, "wall_s", "%.3f", r->wall_s);
	json_float(jw, "node_steps_per_s", "%.0f",
		   r->loop_s > 0 ? r->node_steps / r->loop_s : 0.0);
	json_ls_run(jw, &r->ls);
	json_bool(jw, "ls_too_large", r->ls_skipped);
	jsonw_end_object(jw);
}

/* link state over the runs */
struct ls_total {
	unsigned int measured, ok;	/* runs measured; ... all exact */
	int64_t rounds_max[SIM_LS_PHASES];	/* -1: a run timed out */
	double rounds_sum[SIM_LS_PHASES];
	unsigned int nrounds[SIM_LS_PHASES];
	double bytes_sum[SIM_LS_PHASES], bytes_max[SIM_LS_PHASES];
	double msgs_sum;
	uint32_t reporters_max, records_max, capacity;
	uint64_t overflow;
	unsigned int skipped;		/* runs not measured: too large */
	double need;			/* ... bytes they would take, max */
};

static void ls_add(struct ls_total *t, const struct sim_ls_result *l)
{
	unsigned int i;

	if (!l->measured)
		return;
	t->measured++;
	t->ok += l->agree && l->exact;
	for (i = 0; i < SIM_LS_PHASES; i++) {
		if (l->rounds[i] == SIM_LS_NOT_RUN)
			continue;
		if (l->rounds[i] < 0 || t->rounds_max[i] < 0) {
			t->rounds_max[i] = -1;
			continue;
		}
		if (l->rounds[i] > t->rounds_max[i])
			t->rounds_max[i] = l->rounds[i];
		t->rounds_sum[i] += (double)l->rounds[i];
		t->nrounds[i]++;
		t->bytes_sum[i] += l->bytes_mean[i];
		if (l->bytes_max[i] > t->bytes_max[i])
			t->bytes_max[i] = l->bytes_max[i];
	}
	t->msgs_sum += l->msgs_mean;
	if (l->reporters > t->reporters_max)
		t->reporters_max = l->reporters;
	if (l->records_max > t->records_max)
		t->records_max = l->records_max;
	t->capacity = l->capacity;
	t->overflow += l->overflow;
}

static double ls_mean(const struct ls_total *t, const double *sum,
		      unsigned int i)
{
	return t->nrounds[i] ? sum[i] / t->nrounds[i] : 0.0;
}

static void json_ls_total(struct json_writer *jw, const struct ls_total *t)
{
	unsigned int i;

	json_uint(jw, "ls_runs_measured", t->measured);
	json_uint(jw, "ls_runs_too_large", t->skipped);
	json_float(jw, "ls_bytes_needed", "%.0f", t->need);
	json_bool(jw, "ls_agree", t->measured && t->ok == t->measured);
	json_ls_rounds(jw, "ls_rounds", t->nrounds[SIM_LS_INITIAL] ?
		       t->rounds_max[SIM_LS_INITIAL] : -1);
	json_float(jw, "ls_rounds_mean", "%.2f",
		   ls_mean(t, t->rounds_sum, SIM_LS_INITIAL));
	json_float(jw, "ls_bytes_per_node_mean", "%.1f",
		   ls_mean(t, t->bytes_sum, SIM_LS_INITIAL));
	json_float(jw, "ls_bytes_per_node_max", "%.0f",
		   t->bytes_max[SIM_LS_INITIAL]);
	json_float(jw, "ls_msgs_per_node", "%.2f",
		   t->measured ? t->msgs_sum / t->measured : 0.0);
	json_uint(jw, "ls_reporters_max", t->reporters_max);
	json_uint(jw, "ls_records_max", t->records_max);
	json_uint(jw, "ls_capacity", t->capacity);
	json_uint(jw, "ls_overflow", t->overflow);
	jsonw_name(jw, "ls_events");
	jsonw_start_object(jw);
	for (i = SIM_LS_KILL; i < SIM_LS_PHASES; i++) {
		if (!t->nrounds[i] && t->rounds_max[i] >= 0)
			continue;
		jsonw_name(jw, sim_ls_phase_name(i));
		jsonw_start_object(jw);
		json_ls_rounds(jw, "rounds_max", t->rounds_max[i] < 0 ? -1 :
			       t->rounds_max[i]);
		json_float(jw, "rounds_mean", "%.2f",
			   ls_mean(t, t->rounds_sum, i));
		json_float(jw, "bytes_per_node_mean", "%.1f",
			   ls_mean(t, t->bytes_sum, i));
		json_float(jw, "bytes_per_node_max", "%.0f", t->bytes_max[i]);
		jsonw_end_object(jw);
	}
	jsonw_end_object(jw);
}

static void print_ls_total(const struct ls_total *t, unsigned int runs)
{
	unsigned int i;

	if (t->skipped)
		printf("link state       not measured in %u of %u runs: the "
		       "databases would take %.2f GB (over %.0f GB; --ls "
		       "measures them)\n", t->skipped, runs, t->need / 1e9,
		       SIM_LS_FIT / 1e9);
	if (t->skipped == runs)
		return;
	printf("link state       agree %u of %u runs measured (of %u); "
	       "rounds after placed max %lld mean %.2f\n", t->ok,
	       t->measured, runs,
	       (long long)(t->nrounds[SIM_LS_INITIAL] ?
			   t->rounds_max[SIM_LS_INITIAL] : -1),
	       ls_mean(t, t->rounds_sum, SIM_LS_INITIAL));
	printf("  per node       bytes mean %.1f max %.0f, messages %.2f; "
	       "records max %u (truth %u) of %u, overflow %llu\n",
	       ls_mean(t, t->bytes_sum, SIM_LS_INITIAL),
	       t->bytes_max[SIM_LS_INITIAL],
	       t->measured ? t->msgs_sum / t->measured : 0.0,
	       t->records_max, t->reporters_max, t->capacity,
	       (unsigned long long)t->overflow);
	for (i = SIM_LS_KILL; i < SIM_LS_PHASES; i++) {
		if (!t->nrounds[i] && t->rounds_max[i] >= 0)
			continue;
		printf("  %-14s rounds max %lld mean %.2f, bytes/node mean "
		       "%.1f max %.0f\n", sim_ls_phase_name(i),
		       (long long)t->rounds_max[i],
		       ls_mean(t, t->rounds_sum, i),
		       ls_mean(t, t->bytes_sum, i), t->bytes_max[i]);
	}
}

int main(int argc, char **argv)
{
	struct sim_result *res, tot;
	struct run_info *ri;
	struct sim_bound b;
	struct sim_opts o;
	char shape[64], bshape[64];
	double msgs = 0, bytes = 0, loop_s = 0;
	uint64_t steps = 0;
	unsigned int i, ok_runs = 0, conv_runs = 0, cons_runs = 0, bok = 0;
	unsigned int wrong_runs = 0, moved_runs = 0;
	double frac_sum = 0, frac_min = 1;
	int64_t rtp = 0;
	bool all_ok;
	size_t harness = 0;
	struct ls_total lt;

	if (sim_routes_requested(argc, argv)) /* routes.c */
		return sim_routes_main(argc, argv);
	parse_args(argc, argv, &o);
	res = calloc(o.runs, sizeof(*res));
	ri = calloc(o.runs, sizeof(*ri));
	if (!res || !ri) {
		fprintf(stderr, "torus-sim: out of memory\n");
		return 1;
	}
	memset(&tot, 0, sizeof(tot));
	memset(&lt, 0, sizeof(lt));
	for (i = 0; i < o.runs; i++) {
		struct sim_result *r = &res[i];

		if (one_run(&o, o.seed + i, r, &ri[i]))
			return 1;
		if (o.verbose || (!o.json && o.runs > 1))
			fprintf(o.json ? stderr : stdout,
				"run %u seed %llu: live %u placed %u "
				"unplaced %u rounds %u to-placed %lld "
				"consistent %s orientation %s wrong %u "
				"moved %u (%.2f s)\n",
				i + 1, (unsigned long long)r->seed, r->live,
				r->placed, r->unplaced, r->rounds,
				(long long)r->rounds_to_placed,
				r->consistent ? "yes" : "NO",
				r->orientation_ok ? "ok" : "failed",
				r->wrong, r->moved, r->wall_s);
		tot.live += r->live;
		tot.placed += r->placed;
		tot.unplaced += r->unplaced;
		tot.failed += r->failed;
		tot.dropped += r->dropped;
		tot.bad_rx += r->bad_rx;
		tot.oversize += r->oversize;
		tot.queue_drops += r->queue_drops;
		tot.refuted += r->refuted;
		tot.resurveys += r->resurveys;
		tot.node_ticks += r->node_ticks;
		tot.node_ticks_slept += r->node_ticks_slept;
		tot.moved += r->moved;
		tot.moved_rewired += r->moved_rewired;
		tot.moved_after_growth += r->moved_after_growth;
		tot.moved_beyond_growth += r->moved_beyond_growth;
		tot.wrong += r->wrong;
		tot.wrong_coord += r->wrong_coord;
		tot.wrong_dims += r->wrong_dims;
		tot.wrong_portmap += r->wrong_portmap;
		tot.wrong_frame += r->wrong_frame;
		tot.lost += r->lost;
		tot.duplicated += r->duplicated;
		tot.delayed += r->delayed;
		wrong_runs += r->wrong > 0;
		moved_runs += r->moved > 0;
		{
			double f = r->main_component ?
				   (double)r->main_placed / r->main_component :
				   1.0;

			frac_sum += f;
			if (f < frac_min)
				frac_min = f;
		}
		tot.wall_s += r->wall_s;
		if (r->rounds > tot.rounds)
			tot.rounds = r->rounds;
		if (r->rounds_coords > tot.rounds_coords)
			tot.rounds_coords = r->rounds_coords;
		if (r->rounds_run > tot.rounds_run)
			tot.rounds_run = r->rounds_run;
		if (rtp >= 0)
			rtp = r->rounds_to_placed < 0 ? -1 :
			      r->rounds_to_placed > rtp ? r->rounds_to_placed :
			      rtp;
		if (r->state_bytes > tot.state_bytes)
			tot.state_bytes = r->state_bytes;
		if (r->ls_bytes > tot.ls_bytes) {
			tot.ls_bytes = r->ls_bytes;
			tot.ls_records = r->ls_records;
		}
		if (r->ls_skipped) {
			lt.skipped++;
			if (r->ls_need > lt.need)
				lt.need = r->ls_need;
		}
		if (r->harness_bytes > harness)
			harness = r->harness_bytes;
		msgs += r->msgs_per_node;
		bytes += r->bytes_per_node;
		steps += r->node_steps;
		loop_s += r->loop_s;
		ok_runs += r->orientation_ok;
		bok += r->blocks_ok;
		conv_runs += r->converged;
		cons_runs += r->consistent;
		merge_reasons(&tot, r);
		ls_add(&lt, &r->ls);
	}
	all_ok = conv_runs == o.runs && cons_runs == o.runs && !wrong_runs &&
		 lt.ok == lt.measured;
	sim_bound(&o, ri[0].nfaces, &b);
	shape_str(shape, sizeof(shape), o.ndims, o.dims);
	shape_str(bshape, sizeof(bshape), o.ndims, o.block);

	if (o.json) {
		struct json_writer *jw = jsonw_new(stdout);
		char wrap[2 * TC_MAX_AXES + 1];
		size_t wl = 0;

		if (!jw) {
			fprintf(stderr, "torus-sim: out of memory\n");
			return 1;
		}
		for (i = 0; i < o.ndims; i++)
			wl += snprintf(wrap + wl, sizeof(wrap) - wl, "%s%d",
				       i ? "," : "", !!(o.wrap & (1u << i)));
		jsonw_start_object(jw);
		json_string(jw, "dims", shape);
		json_string(jw, "wrap", wrap);
		json_string(jw, "block", o.blocks ? bshape : NULL);
		json_string(jw, "miswire", miswire_names[o.miswire]);
		json_float(jw, "node_fail", "%g", o.node_fail);
		json_float(jw, "link_fail", "%g", o.link_fail);
		json_uint(jw, "seed", o.seed);
		json_uint(jw, "runs", o.runs);
		json_uint(jw, "nodes", res[0].nodes);
		json_uint(jw, "live", tot.live);
		json_uint(jw, "diameter", ri[0].diameter);
		json_uint(jw, "quiet_ticks", ri[0].quiet);
		json_uint(jw, "rounds", tot.rounds);
		json_uint(jw, "rounds_coords", tot.rounds_coords);
		json_rounds_to_placed(jw, rtp);
		json_uint(jw, "rounds_run", tot.rounds_run);
		json_bool(jw, "converged", conv_runs == o.runs);
		json_uint(jw, "placed", tot.placed);
		json_uint(jw, "unplaced", tot.unplaced);
		json_uint(jw, "failed", tot.failed);
		json_reasons(jw, &tot);
		json_bool(jw, "consistent", cons_runs == o.runs);
		json_float(jw, "msgs_per_node", "%.3f", msgs / o.runs);
		json_float(jw, "bytes_per_node", "%.1f", bytes / o.runs);
		/* the core's own state, its link-state database (of
		 * ls_bound records), and both */
		json_uint(jw, "core_bytes_per_node", tot.state_bytes);
		json_uint(jw, "ls_state_bytes_per_node", tot.ls_bytes);
		json_uint(jw, "ls_bound", tot.ls_records);
		json_uint(jw, "state_bytes_per_node",
			  tot.state_bytes + tot.ls_bytes);
		json_uint(jw, "harness_bytes_per_node", harness);
		json_float(jw, "wall_s", "%.3f", tot.wall_s);
		json_uint(jw, "node_steps", steps);
		json_float(jw, "node_steps_per_s", "%.0f",
			   loop_s > 0 ? steps / loop_s : 0.0);
		json_float(jw, "orientation_success", "%.6g",
			   (double)ok_runs / o.runs);
		json_uint(jw, "runs_inconsistent", o.runs - cons_runs);
		json_uint(jw, "runs_not_converged", o.runs - conv_runs);
		json_uint(jw, "runs_wrong", wrong_runs);
		json_uint(jw, "runs_moved", moved_runs);
		json_uint(jw, "moved", tot.moved);
		json_uint(jw, "moved_rewired", tot.moved_rewired);
		json_uint(jw, "moved_after_growth", tot.moved_after_growth);
		json_uint(jw, "moved_beyond_growth",
			  tot.moved_beyond_growth);
		json_uint(jw, "wrong", tot.wrong);
		json_uint(jw, "wrong_coord", tot.wrong_coord);
		json_uint(jw, "wrong_dims", tot.wrong_dims);
		json_uint(jw, "wrong_portmap", tot.wrong_portmap);
		json_uint(jw, "wrong_frame", tot.wrong_frame);
		json_float(jw, "main_placed_fraction_mean", "%.6g",
			   frac_sum / o.runs);
		json_float(jw, "main_placed_fraction_min", "%.6g", frac_min);
		json_uint(jw, "oversize_msgs", tot.oversize);
		json_uint(jw, "queue_drops", tot.queue_drops);
		json_uint(jw, "refuted", tot.refuted);
		json_uint(jw, "resurveys", tot.resurveys);
		json_uint(jw, "node_ticks", tot.node_ticks);
		json_uint(jw, "node_ticks_slept", tot.node_ticks_slept);
		json_uint(jw, "msgs_lost", tot.lost);
		json_uint(jw, "msgs_duplicated", tot.duplicated);
		json_uint(jw, "msgs_delayed", tot.delayed);
		jsonw_name(jw, "time");
		if (o.timed) {
			jsonw_start_object(jw);
			json_uint(jw, "start_spread", o.start_spread);
			json_string(jw, "start_order",
				    order_names[o.start_order]);
			json_float(jw, "loss", "%g", o.loss);
			json_float(jw, "dup", "%g", o.dup);
			json_float(jw, "reorder", "%g", o.reorder);
			json_float(jw, "stall", "%g", o.stall);
			json_uint(jw, "stall_max", o.stall_max);
			json_uint(jw, "restarts", o.restarts);
			json_string(jw, "restart_mode",
				    restart_names[o.restart_fresh]);
			json_uint(jw, "recables", o.recables);
			json_uint(jw, "wrong_plugs", o.wrong_plugs);
			jsonw_name(jw, "grow");
			if (o.grow_axis >= 0) {
				char g[16];

				snprintf(g, sizeof(g), "%c:%u",
					 AXES[o.grow_axis], o.grow_slabs);
				jsonw_string(jw, g);
			} else {
				jsonw_null(jw);
			}
			json_uint(jw, "liars", o.liars);
			json_string(jw, "liar_kind", liar_names[o.liar_kind]);
			json_uint(jw, "hello_ticks", o.hello_ticks);
			json_uint(jw, "dead_ticks", o.dead_ticks);
			jsonw_end_object(jw);
		} else {
			jsonw_null(jw);
		}
		if (o.blocks)
			json_float(jw, "block_orientation_success", "%.6g",
				   (double)bok / o.runs);
		/* null where Eq. 6-7 do not apply (see bound.c) */
		json_float(jw, "lower_bound", "%.17g", b.have ? b.lb : NAN);
		json_float(jw, "lower_bound_fail", "%.6g",
			   b.have ? b.lb_fail : NAN);
		jsonw_name(jw, "lower_bound_faces");
		if (b.have)
			jsonw_u64(jw, b.k);
		else
			jsonw_null(jw);
		if (b.have_eq8) {
			json_float(jw, "lower_bound_eq8", "%.17g", b.eq8);
			json_float(jw, "lower_bound_eq8_fail", "%.6g",
				   b.eq8_fail);
		}
		json_ls_total(jw, &lt);
		jsonw_name(jw, "per_run");
		jsonw_start_array(jw);
		for (i = 0; i < o.runs; i++)
			json_run(jw, &res[i], &ri[i]);
		jsonw_end_array(jw);
		jsonw_end_object(jw);
		/* ends the line */
		jsonw_destroy(&jw);
	} else {
		printf("torus-sim: %s %s, ", shape,
		       o.wrap == (1u << o.ndims) - 1 ? "torus" :
		       o.wrap ? "torus/mesh" : "mesh");
		if (o.blocks)
			printf("blocks %s (%u blocks, %u faces), ", bshape,
			       ri[0].nblocks, ri[0].nfaces);
		printf("miswire %s, q %g, link-fail %g, seed %llu, %u run%s\n",
		       miswire_names[o.miswire], o.node_fail, o.link_fail,
		       (unsigned long long)o.seed, o.runs,
		       o.runs > 1 ? "s" : "");
		printf("nodes            %u, live %.1f per run, cables %u "
		       "(cut %u in run 1)\n", res[0].nodes,
		       (double)tot.live / o.runs, ri[0].cables,
		       ri[0].dead_cables);
		printf("diameter         %u (faulty network %u in run 1), "
		       "quiet ticks K %u\n", ri[0].diameter,
		       ri[0].faulty_diameter, ri[0].quiet);
		printf("rounds           %u = diameter %+d (%.2f x diameter); "
		       "to placed %lld; simulated %u\n",
		       tot.rounds, (int)tot.rounds - (int)ri[0].diameter,
		       ri[0].diameter ? (double)tot.rounds / ri[0].diameter :
		       0.0, (long long)rtp, tot.rounds_run);
		printf("  coordinates    final at round %u = diameter %+d "
		       "(frame and offset from the leader); extents after\n",
		       tot.rounds_coords,
		       (int)tot.rounds_coords - (int)ri[0].diameter);
		printf("messages/node    %.2f, bytes/node %.1f\n",
		       msgs / o.runs, bytes / o.runs);
		printf("memory/node      %zu bytes core state (tc_core_size) "
		       "+ %zu bytes link state (tc_ls_size, bound %u) "
		       "+ %zu bytes simulator\n", tot.state_bytes,
		       tot.ls_bytes, tot.ls_records, harness);
		printf("wall             %.3f s, %.3g node-steps/s\n",
		       tot.wall_s, loop_s > 0 ? steps / loop_s : 0.0);
		printf("placed           %u, unplaced %u (failed %u)%s\n",
		       tot.placed, tot.unplaced, tot.failed,
		       o.runs > 1 ? ", all runs" : "");
		for (i = 0; i <= SIM_MAX_REASONS; i++)
			if (tot.reasons[i].count)
				printf("  %8u  %s\n", tot.reasons[i].count,
				       tot.reasons[i].text);
		printf("converged        %u of %u runs\n", conv_runs, o.runs);
		printf("consistent       %u of %u runs", cons_runs, o.runs);
		if (o.runs == 1)
			printf(" (%u frame%s; bad coord %u dims %u portmap %u "
			       "frames %u split %u; unmapped live ports %u)",
			       res[0].frames, res[0].frames == 1 ? "" : "s",
			       res[0].bad_coord, res[0].bad_dims,
			       res[0].bad_portmap, res[0].bad_frame,
			       res[0].split_components,
			       res[0].missing_portmap);
		printf("\n");
		printf("orientation      %u of %u runs succeeded (%.4g)",
		       ok_runs, o.runs, (double)ok_runs / o.runs);
		if (b.have)
			printf("; lower bound Eq. 6-7 (N=%u, k=%u, x=%.6g): "
			       "%.10g = 1 - %.3g", b.n, b.k, b.x, b.lb,
			       b.lb_fail);
		printf("\n");
		if (o.blocks)
			printf("                 %u of %u runs with every block "
			       "oriented (no block left wholly unplaced)\n",
			       bok, o.runs);
		if (b.have_eq8)
			printf("                 Eq. 8 (BG/L as printed): "
			       "%.10g = 1 - %.3g\n", b.eq8, b.eq8_fail);
		printf("in time          wrong %u nodes (%u of %u runs), moved "
		       "%u (%u runs; %u after growth, %u of them beyond "
		       "what it forces), moved rewired %u\n",
		       tot.wrong, wrong_runs, o.runs, tot.moved, moved_runs,
		       tot.moved_after_growth, tot.moved_beyond_growth,
		       tot.moved_rewired);
		if (tot.wrong)
			printf("  wrong by       coordinates %u, extents %u, "
			       "port map %u, frame %u\n", tot.wrong_coord,
			       tot.wrong_dims, tot.wrong_portmap,
			       tot.wrong_frame);
		printf("main component   placed fraction mean %.4f, min %.4f\n",
		       frac_sum / o.runs, frac_min);
		if (o.timed)
			printf("messages         lost %llu, duplicated %llu, "
			       "delayed %llu\n",
			       (unsigned long long)tot.lost,
			       (unsigned long long)tot.duplicated,
			       (unsigned long long)tot.delayed);
		if (tot.queue_drops)
			printf("queue drops      %llu face records not forwarded "
			       "(the core's queue was full)\n",
			       (unsigned long long)tot.queue_drops);
		print_ls_total(&lt, o.runs);
		if (tot.oversize)
			printf("warning: %u messages above TC_MSG_MAX (%d) or "
			       "not sent for it\n", tot.oversize, TC_MSG_MAX);
	}
	free(res);
	free(ri);
	return all_ok ? 0 : 1;
}
