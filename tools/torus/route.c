// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * route.c - torus route: next-hop lookups and per-destination exceptions
 *
 *	torus route show [ dev DEV ]
 *	torus route get COORD [ dev DEV ]
 *	torus route add COORD { via COORD | dir DIR } [ dev DEV ]
 *	torus route del [ COORD ] [ dev DEV ]
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
		"       torus route add COORD { via COORD | dir DIR } [ dev DEV ]\n"
		"       torus route del [ COORD ] [ dev DEV ]\n"
		"where  COORD := C[,C...]   0 <= C <= 255, one per axis\n"
		"       DIR   := { +x | -x | ... | +e | -e }, a global direction\n"
		"       \"route del\" without COORD flushes all exceptions of the node\n");
}

struct route_args {
	const char	*dev;
	int		n_dst;
	int		n_via;
	uint32_t	dst[TORUS_MAX_AXES];
	uint32_t	via[TORUS_MAX_AXES];
	bool		has_dir;
	uint8_t		dir;
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

static void put_route(struct nlmsghdr *nlh, const struct route_args *a)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, TORUS_A_ROUTE);

	put_axes_u32(nlh, TORUS_ROUTE_A_DST, a->dst, a->n_dst);
	if (a->n_via)
		put_axes_u32(nlh, TORUS_ROUTE_A_VIA, a->via, a->n_via);
	if (a->has_dir)
		mnl_attr_put_u8(nlh, TORUS_ROUTE_A_DIR, a->dir);
	mnl_attr_nest_end(nlh, nest);
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
	put_route(nlh, &a);

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
		if (!a.n_dst)
			return usage_error(OBJ, "missing COORD");
		if (!a.n_via && !a.has_dir)
			return usage_error(OBJ, "missing \"via COORD\" or \"dir DIR\"");
	}
	nlh = node_msg(a.dev, cmd, &genl);
	if (!nlh)
		return EXIT_ERR;
	if (a.n_dst)
		put_route(nlh, &a);
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

static const struct cmd route_cmds[] = {
	{ "show",	route_show },
	{ "get",	route_get },
	{ "add",	route_add },
	{ "del",	route_del },
	{ "delete",	route_del },
	{}
};

int do_route(int argc, char **argv)
{
	return do_cmds(OBJ, route_cmds, route_usage, argc, argv);
}
