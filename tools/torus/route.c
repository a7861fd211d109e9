// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * route.c - torus route: next-hop lookups and per-destination exceptions
 *
 *	torus route show [ dev DEV ]
 *	torus route get COORD [ dev DEV ]
 *	torus route add COORD { via COORD | dir DIR | plan N } [ plan N ]
 *		[ dev DEV ]
 *	torus route del [ COORD ] [ dev DEV ]
 *	torus route batch { FILE | - } [ replace ] [ dev DEV ]
 *	torus route plans [ show ] [ dev DEV ]
 *	torus route plans set PLAN [ PLAN ... ] [ dev DEV ]
 *	torus route plans flush [ dev DEV ]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/torus.h>

#include "json_print.h"
#include "parse.h"
#include "records.h"
#include "tool.h"

#define OBJ		"route"
#define MAX_NODES	1024

void route_usage(FILE *f)
{
	fprintf(f,
		"Usage: torus route show [ dev DEV ]\n"
		"       torus route get COORD [ dev DEV ]\n"
		"       torus route add COORD [ via COORD [ plan1 N ] | dir DIR ]\n"
		"                       [ plan N ] [ dev DEV ]\n"
		"       torus route del [ COORD ] [ dev DEV ]\n"
		"       torus route batch { FILE | - } [ replace ] [ dev DEV ]\n"
		"       torus route plans [ show ] [ dev DEV ]\n"
		"       torus route plans set PLAN [ PLAN ... ] [ dev DEV ]\n"
		"       torus route plans flush [ dev DEV ]\n"
		"       torus route path COORD [ dev DEV ]\n"
		"where  COORD := C[,C...]   0 <= C <= 255, one per axis\n"
		"       DIR   := { +x | -x | ... | +e | -e }, a global direction\n"
		"       N     := 0..7, the plan frames follow (0: dimension-ordered);\n"
		"                \"plan\" for the first round, \"plan1\" from the via\n"
		"                node on (default: the same)\n"
		"       PLAN  := ID:ORDER[:P,P...]   ID 1..7, ORDER the axes in the\n"
		"                order they are corrected (\"zyx\"), P per axis: s\n"
		"                (shortest, ties +), + or - (which way round a ring)\n"
		"       an exception needs via, dir or a plan other than 0\n"
		"       \"route del\" without COORD flushes all exceptions of the node\n"
		"       \"route batch\" reads one\n"
		"       \"COORD [ via COORD | dir DIR ] [ plan N ]\" per line\n"
		"       (# comments) and sets them all in one request; with\n"
		"       \"replace\" they become the whole table\n"
		"       \"route plans\" alone shows the node's plans 1..7;\n"
		"       \"route plans set\" replaces them all with those given,\n"
		"       \"route plans flush\" drops them (only plan 0 is left)\n"
		"       \"route path\" prints the whole path to COORD hop by hop as\n"
		"       the node's torusd computed it (it asks torusd)\n");
}

struct route_args {
	const char	*dev;
	int		n_dst;
	int		n_via;
	uint32_t	dst[TORUS_MAX_AXES];
	uint32_t	via[TORUS_MAX_AXES];
	bool		has_dir;
	uint8_t		dir;
	bool		has_plan;
	uint8_t		plan;
	bool		has_plan1;
	uint8_t		plan1;
};

/* COORD, dev DEV and, if @full, via COORD and dir DIR, in any order */
static int parse_route_args(int argc, char **argv, struct route_args *a,
			    bool full)
{
	while (argc > 0) {
		if (kw(argv[0], "dev")) {
			NEXT_IFNAME(OBJ, "dev", a->dev);
		} else if (full && kw(argv[0], "via")) {
			NEXT_ARG(OBJ);
			a->n_via = parse_coord(argv[0], a->via);
			if (a->n_via < 0)
				return bad_value(OBJ, "via", argv[0],
						 "C[,C...] with 0 <= C <= 255");
		} else if (full && kw(argv[0], "dir")) {
			NEXT_ARG(OBJ);
			if (parse_dir(argv[0], &a->dir))
				return bad_value(OBJ, "dir", argv[0],
						 "a direction +x .. -e");
			a->has_dir = true;
		} else if (full && kw(argv[0], "plan")) {
			uint32_t plan;

			NEXT_ARG(OBJ);
			if (parse_u32(argv[0], TORUS_MAX_PLANS - 1, &plan))
				return bad_value(OBJ, "plan", argv[0],
						 "a plan 0..7");
			a->plan = (uint8_t)plan;
			a->has_plan = true;
		} else if (full && kw(argv[0], "plan1")) {
			uint32_t plan;

			NEXT_ARG(OBJ);
			if (parse_u32(argv[0], TORUS_MAX_PLANS - 1, &plan))
				return bad_value(OBJ, "plan1", argv[0],
						 "a plan 0..7");
			a->plan1 = (uint8_t)plan;
			a->has_plan1 = true;
		} else if (!a->n_dst) {
			a->n_dst = parse_coord(argv[0], a->dst);
			if (a->n_dst < 0) {
				a->n_dst = 0;
				if (argv[0][0] < '0' || argv[0][0] > '9')
					return unknown_keyword(OBJ, argv[0]);
				return bad_value(OBJ, "coordinates", argv[0],
						 "C[,C...] with 0 <= C <= 255");
			}
		} else {
			return unknown_keyword(OBJ, argv[0]);
		}
		argc--;
		argv++;
	}
	return EXIT_OK;
}

static void put_route(struct nlmsghdr *nlh, uint16_t type,
		      const struct route_args *a)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, type);

	put_axes_u32(nlh, TORUS_ROUTE_A_DST, a->dst, a->n_dst);
	if (a->n_via)
		put_axes_u32(nlh, TORUS_ROUTE_A_VIA, a->via, a->n_via);
	if (a->has_dir)
		mnl_attr_put_u8(nlh, TORUS_ROUTE_A_DIR, a->dir);
	if (a->has_plan)
		mnl_attr_put_u8(nlh, TORUS_ROUTE_A_PLAN, a->plan);
	if (a->has_plan1)
		mnl_attr_put_u8(nlh, TORUS_ROUTE_A_PLAN1, a->plan1);
	mnl_attr_nest_end(nlh, nest);
}

/* an exception needs a destination and via, dir or a plan other than 0 */
static int check_exception(const struct route_args *a)
{
	if (!a->n_dst)
		return usage_error(OBJ, "missing COORD");
	if (!a->n_via && !a->has_dir && !a->plan)
		return usage_error(OBJ, "missing \"via COORD\", \"dir DIR\" or \"plan N\"");
	if (a->has_plan1 && !a->n_via)
		return usage_error(OBJ, "\"plan1\" is round 1's plan: it needs \"via COORD\"");
	if (a->n_via && a->has_dir)
		return usage_error(OBJ, "give \"via COORD\" or \"dir DIR\", not both");
	return EXIT_OK;
}

static int show_cb(const struct nlmsghdr *nlh, void *data)
{
	struct torus_route_rec *r = data;

	if (!route_rec_parse(nlh, r))
		route_rec_print(r);
	return MNL_CB_OK;
}

struct node_list {
	unsigned int	n;
	uint32_t	ifindex[MAX_NODES];
};

static int list_cb(const struct nlmsghdr *nlh, void *data)
{
	struct torus_node_rec *r = &(struct torus_node_rec){};
	struct node_list *l = data;

	if (!node_rec_parse(nlh, r) && l->n < MAX_NODES)
		l->ifindex[l->n++] = r->ifindex;
	return MNL_CB_OK;
}

static int route_show(int argc, char **argv)
{
	struct torus_route_rec r;
	struct node_list *l;
	struct nlsock *genl;
	struct nlmsghdr *nlh;
	const char *dev;
	unsigned int i;
	int ret;

	ret = parse_dev_arg(OBJ, argc, argv, &dev);
	if (ret)
		return ret;
	l = calloc(1, sizeof(*l));
	if (!l)
		return EXIT_ERR;
	ret = EXIT_ERR;
	genl = ns_genl();
	if (!genl)
		goto out;
	if (dev) {
		if (dev_ifindex(dev, &l->ifindex[0]))
			goto out;
		l->n = 1;
	} else {
		/* every node of the netns, one dump each */
		nlh = mnlg_msg(genl, TORUS_CMD_NODE_GET, NLM_F_DUMP);
		if (nlsock_talk(genl, nlh, list_cb, l))
			goto out;
	}

	ret = EXIT_OK;
	show_begin();
	for (i = 0; i < l->n; i++) {
		nlh = mnlg_msg(genl, TORUS_CMD_ROUTE_GET, NLM_F_DUMP);
		mnl_attr_put_u32(nlh, TORUS_A_IFINDEX, l->ifindex[i]);
		if (nlsock_talk(genl, nlh, show_cb, &r))
			ret = EXIT_ERR;
	}
	show_end();
out:
	free(l);
	return ret;
}

struct get_ctx {
	const struct route_args	*a;
	bool			got;
};

static int get_cb(const struct nlmsghdr *nlh, void *data)
{
	struct torus_route_rec *r = &(struct torus_route_rec){};
	struct get_ctx *g = data;

	if (route_rec_parse(nlh, r))
		return MNL_CB_OK;
	if (!r->n_dst) {
		r->n_dst = (unsigned int)g->a->n_dst;
		memcpy(r->dst, g->a->dst, sizeof(r->dst));
	}
	route_get_print(r);
	g->got = true;
	return MNL_CB_STOP;
}

static int route_get(int argc, char **argv)
{
	struct route_args a = {};
	struct get_ctx g = { .a = &a };
	struct nlsock *genl;
	struct nlmsghdr *nlh;
	int ret;

	ret = parse_route_args(argc, argv, &a, false);
	if (ret)
		return ret;
	if (!a.n_dst)
		return usage_error(OBJ, "missing COORD");
	nlh = node_msg(a.dev, TORUS_CMD_ROUTE_GET, &genl);
	if (!nlh)
		return EXIT_ERR;
	put_route(nlh, TORUS_A_ROUTE, &a);

	new_json_obj(stdout, opts.json, opts.pretty);
	ret = nlsock_talk(genl, nlh, get_cb, &g);
	delete_json_obj();
	if (!ret && !g.got) {
		fprintf(stderr, "Error: no route in the reply\n");
		return EXIT_ERR;
	}
	return ret ? EXIT_ERR : EXIT_OK;
}

static int route_modify(int argc, char **argv, uint8_t cmd)
{
	struct route_args a = {};
	struct nlsock *genl;
	struct nlmsghdr *nlh;
	int ret;

	ret = parse_route_args(argc, argv, &a, cmd == TORUS_CMD_ROUTE_SET);
	if (ret)
		return ret;
	if (cmd == TORUS_CMD_ROUTE_SET) {
		ret = check_exception(&a);
		if (ret)
			return ret;
	}
	nlh = node_msg(a.dev, cmd, &genl);
	if (!nlh)
		return EXIT_ERR;
	if (a.n_dst)
		put_route(nlh, TORUS_A_ROUTE, &a);
	return nlsock_talk(genl, nlh, NULL, NULL) ? EXIT_ERR : EXIT_OK;
}

static int route_add(int argc, char **argv)
{
	return route_modify(argc, argv, TORUS_CMD_ROUTE_SET);
}

static int route_del(int argc, char **argv)
{
	return route_modify(argc, argv, TORUS_CMD_ROUTE_DEL);
}

/* the most a route nest takes: dst and via of 8 axes, dir and plan */
#define ROUTE_MSG_MAX	(3 * MNL_ATTR_HDRLEN + \
			 2 * TORUS_MAX_AXES * (MNL_ATTR_HDRLEN + 4) + \
			 2 * (MNL_ATTR_HDRLEN + 4))
#define BATCH_WORDS	8

struct route_batch {
	struct route_args	*r;
	size_t			n, size;
};

/* one line of a batch file into @b; EXIT_OK for blank lines */
static int batch_line(char *line, struct route_batch *b)
{
	char *argv[BATCH_WORDS + 1], *save = NULL, *w;
	struct route_args *a;
	int argc = 0, ret;

	line[strcspn(line, "#\n")] = '\0';
	for (w = strtok_r(line, " \t\r", &save); w;
	     w = strtok_r(NULL, " \t\r", &save)) {
		if (argc == BATCH_WORDS)
			return usage_error(OBJ, "too many words");
		argv[argc++] = w;
	}
	if (!argc)
		return EXIT_OK;
	if (b->n == b->size) {
		size_t size = b->size ? 2 * b->size : 1024;
		struct route_args *r = realloc(b->r, size * sizeof(*r));

		if (!r) {
			fprintf(stderr, "Error: out of memory\n");
			return EXIT_ERR;
		}
		b->r = r;
		b->size = size;
	}
	a = memset(&b->r[b->n], 0, sizeof(*a));
	ret = parse_route_args(argc, argv, a, true);
	if (!ret && a->dev)
		ret = usage_error(OBJ, "\"dev\" belongs on the command line");
	if (!ret)
		ret = check_exception(a);
	if (!ret)
		b->n++;
	return ret;
}

static int batch_read(const char *path, struct route_batch *b)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	unsigned int lineno = 0;
	size_t cap = 0;
	char *line = NULL;
	int ret = EXIT_OK;

	if (!f) {
		fprintf(stderr, "Error: cannot open %s: %m\n", path);
		return EXIT_ERR;
	}
	while (!ret && getline(&line, &cap, f) >= 0) {
		lineno++;
		ret = batch_line(line, b);
		if (ret)
			fprintf(stderr, "Error: %s, line %u\n", path, lineno);
	}
	free(line);
	if (f != stdin)
		fclose(f);
	return ret;
}

static int route_batch(int argc, char **argv)
{
	struct route_batch b = {};
	const char *dev = NULL, *path = NULL;
	bool replace = false;
	struct nlsock *genl;
	struct nlmsghdr *nlh;
	int ret;
	size_t i;

	for (; argc > 0; argc--, argv++) {
		if (kw(argv[0], "dev"))
			NEXT_IFNAME(OBJ, "dev", dev);
		else if (kw(argv[0], "replace"))
			replace = true;
		else if (!path)
			path = argv[0];
		else
			return unknown_keyword(OBJ, argv[0]);
	}
	if (!path)
		return usage_error(OBJ, "missing FILE (or - for stdin)");
	ret = batch_read(path, &b);
	if (ret)
		goto out;
	ret = EXIT_ERR;
	genl = ns_genl();
	if (!genl || nlsock_reserve(genl, 4096 + b.n * ROUTE_MSG_MAX))
		goto out;
	nlh = node_msg(dev, TORUS_CMD_ROUTE_BATCH, &genl);
	if (!nlh)
		goto out;
	if (replace)
		mnl_attr_put(nlh, TORUS_A_ROUTES_REPLACE, 0, NULL);
	/* one TORUS_A_ROUTE each: a nest could not hold 64 KiB or more */
	for (i = 0; i < b.n; i++)
		put_route(nlh, TORUS_A_ROUTE, &b.r[i]);
	ret = nlsock_talk(genl, nlh, NULL, NULL) ? EXIT_ERR : EXIT_OK;
out:
	free(b.r);
	return ret;
}

static int plans_show_cb(const struct nlmsghdr *nlh, void *data)
{
	struct torus_node_rec *r = data;

	if (!node_rec_parse(nlh, r))
		node_plans_print(r);
	return MNL_CB_OK;
}

/* the node's plans 1..7 as the module holds them: read only */
static int route_plans_show(int argc, char **argv)
{
	struct torus_node_rec r;
	struct nlsock *genl;
	struct nlmsghdr *nlh;
	const char *dev;
	int ret;

	ret = parse_dev_arg(OBJ, argc, argv, &dev);
	if (ret)
		return ret;
	genl = ns_genl();
	if (!genl)
		return EXIT_ERR;
	nlh = mnlg_msg(genl, TORUS_CMD_NODE_GET, dev ? 0 : NLM_F_DUMP);
	if (dev)
		mnl_attr_put_strz(nlh, TORUS_A_IFNAME, dev);
	return show_talk(genl, nlh, plans_show_cb, &r);
}

/* the node's plans 1..7, replaced in one request (none: all dropped) */
static int plans_request(int argc, char **argv, bool flush)
{
	uint8_t order[TORUS_MAX_AXES], policy[TORUS_MAX_AXES], index;
	const char *dev = NULL;
	struct nlsock *genl;
	struct nlmsghdr *nlh;
	unsigned int n_policy, i, seen = 0;
	int n;

	for (i = 0; i < (unsigned int)argc; i++)
		if (kw(argv[i], "dev")) {
			if (i + 1 >= (unsigned int)argc ||
			    parse_ifname(argv[i + 1]))
				return usage_error(OBJ, "missing or bad device after \"dev\"");
			dev = argv[++i];
		} else if (parse_plan(argv[i], &index, order, policy,
				      &n_policy) < 0) {
			return bad_value(OBJ, "plan", argv[i],
					 "ID:ORDER[:P,P...] (1:zyx:+,s,-)");
		} else if (seen & (1u << index)) {
			return usage_error(OBJ, "plan %u given twice", index);
		} else {
			seen |= 1u << index;
		}
	if (!seen && !flush)
		return usage_error(OBJ, "missing PLAN (\"route plans flush\" drops them all)");
	if (seen && flush)
		return usage_error(OBJ, "\"route plans flush\" takes no PLAN");
	nlh = node_msg(dev, TORUS_CMD_PLAN_SET, &genl);
	if (!nlh)
		return EXIT_ERR;
	for (i = 0; i < (unsigned int)argc; i++) {
		unsigned int axis;
		struct nlattr *nest, *sub;

		if (kw(argv[i], "dev")) {
			i++;
			continue;
		}
		n = parse_plan(argv[i], &index, order, policy, &n_policy);
		nest = mnl_attr_nest_start(nlh, TORUS_A_PLAN);
		mnl_attr_put_u8(nlh, TORUS_PLAN_A_INDEX, index);
		sub = mnl_attr_nest_start(nlh, TORUS_PLAN_A_ORDER);
		for (axis = 0; axis < (unsigned int)n; axis++)
			mnl_attr_put_u8(nlh, axis + 1, order[axis]);
		mnl_attr_nest_end(nlh, sub);
		sub = mnl_attr_nest_start(nlh, TORUS_PLAN_A_POLICY);
		for (axis = 0; axis < n_policy; axis++)
			mnl_attr_put_u8(nlh, TORUS_AXIS_A(axis), policy[axis]);
		mnl_attr_nest_end(nlh, sub);
		mnl_attr_nest_end(nlh, nest);
	}
	return nlsock_talk(genl, nlh, NULL, NULL) ? EXIT_ERR : EXIT_OK;
}

static int route_plans_set(int argc, char **argv)
{
	return plans_request(argc, argv, false);
}

static int route_plans_flush(int argc, char **argv)
{
	return plans_request(argc, argv, true);
}

static const struct cmd plans_cmds[] = {
	{ "show",	route_plans_show },
	{ "set",	route_plans_set },
	{ "flush",	route_plans_flush },
	{}
};

/* iproute2's grammar: a bare "route plans" shows, changes are named */
static int route_plans(int argc, char **argv)
{
	return do_cmds(OBJ, plans_cmds, route_usage, argc, argv);
}

static const struct cmd route_cmds[] = {
	{ "show",	route_show },
	{ "get",	route_get },
	{ "add",	route_add },
	{ "del",	route_del },
	{ "batch",	route_batch },
	{ "plans",	route_plans },
	{ "path",	route_path },
	{ "delete",	route_del },
	{}
};

int do_route(int argc, char **argv)
{
	return do_cmds(OBJ, route_cmds, route_usage, argc, argv);
}
