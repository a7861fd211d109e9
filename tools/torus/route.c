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
			NEXT_ARG(OBJ);
			if (parse_ifname(argv[0]))
				return bad_value(OBJ, "dev", argv[0],
						 "a device name");
			a->dev = argv[0];
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

static void put_axes(struct nlmsghdr *nlh, uint16_t type,
		     const uint32_t *vals, int n)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, type);
	int i;

	for (i = 0; i < n; i++)
		mnl_attr_put_u32(nlh, TORUS_AXIS_A(i), vals[i]);
	mnl_attr_nest_end(nlh, nest);
}

static void put_route(struct nlmsghdr *nlh, const struct route_args *a)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, TORUS_A_ROUTE);

	put_axes(nlh, TORUS_ROUTE_A_DST, a->dst, a->n_dst);
	if (a->n_via)
		put_axes(nlh, TORUS_ROUTE_A_VIA, a->via, a->n_via);
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
	struct route_args a = {};
	struct torus_route_rec r;
	struct node_list *l;
	struct nlsock *genl;
	struct nlmsghdr *nlh;
	unsigned int i;
	int ret;

	while (argc > 0) {
		if (kw(argv[0], "dev")) {
			NEXT_ARG(OBJ);
			if (parse_ifname(argv[0]))
				return bad_value(OBJ, "dev", argv[0],
						 "a device name");
			a.dev = argv[0];
		} else {
			return unknown_keyword(OBJ, argv[0]);
		}
		argc--;
		argv++;
	}
	l = calloc(1, sizeof(*l));
	if (!l)
		return EXIT_ERR;
	ret = EXIT_ERR;
	genl = ns_genl();
	if (!genl)
		goto out;
	if (a.dev) {
		if (dev_ifindex(a.dev, &l->ifindex[0]))
			goto out;
		l->n = 1;
	} else {
		/* every node of the netns, one dump each */
		nlh = mnlg_msg(genl, TORUS_CMD_NODE_GET, NLM_F_DUMP);
		if (nlsock_talk(genl, nlh, list_cb, l))
			goto out;
	}

	ret = EXIT_OK;
	new_json_obj(stdout, opts.json, opts.pretty);
	open_json_array(PRINT_JSON, NULL);
	for (i = 0; i < l->n; i++) {
		nlh = mnlg_msg(genl, TORUS_CMD_ROUTE_GET, NLM_F_DUMP);
		mnl_attr_put_u32(nlh, TORUS_A_IFINDEX, l->ifindex[i]);
		if (nlsock_talk(genl, nlh, show_cb, &r))
			ret = EXIT_ERR;
	}
	close_json_array(PRINT_JSON, NULL);
	delete_json_obj();
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
	uint32_t ifindex;
	int ret;

	ret = parse_route_args(argc, argv, &a, false);
	if (ret)
		return ret;
	if (!a.n_dst)
		return usage_error(OBJ, "missing COORD");
	if (node_ifindex(a.dev, &ifindex))
		return EXIT_ERR;
	genl = ns_genl();
	if (!genl)
		return EXIT_ERR;
	nlh = mnlg_msg(genl, TORUS_CMD_ROUTE_GET, 0);
	mnl_attr_put_u32(nlh, TORUS_A_IFINDEX, ifindex);
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
	uint32_t ifindex;
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
	if (node_ifindex(a.dev, &ifindex))
		return EXIT_ERR;
	genl = ns_genl();
	if (!genl)
		return EXIT_ERR;
	nlh = mnlg_msg(genl, cmd, 0);
	mnl_attr_put_u32(nlh, TORUS_A_IFINDEX, ifindex);
	if (a.n_dst)
		put_route(nlh, &a);
	return nlsock_talk(genl, nlh, NULL, NULL) ? EXIT_ERR : EXIT_OK;
}

int do_route(int argc, char **argv)
{
	if (argc < 1 || kw(argv[0], "show"))
		return route_show(argc ? argc - 1 : 0, argv + (argc ? 1 : 0));
	if (kw(argv[0], "get"))
		return route_get(argc - 1, argv + 1);
	if (kw(argv[0], "add"))
		return route_modify(argc - 1, argv + 1, TORUS_CMD_ROUTE_SET);
	if (kw(argv[0], "del") || kw(argv[0], "delete"))
		return route_modify(argc - 1, argv + 1, TORUS_CMD_ROUTE_DEL);
	if (kw(argv[0], "help")) {
		route_usage(stdout);
		return EXIT_OK;
	}
	return unknown_keyword(OBJ, argv[0]);
}
