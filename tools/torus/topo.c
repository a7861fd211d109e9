// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topo.c - torus topo: the picture of the fabric
 *
 *	torus topo [ show ] [ from FILE ] [ netns GLOB ] [ path SRC DST ]
 *		   [ svg FILE | dot ]
 *
 * The keywords are those of every other object; their earlier spelling
 * as options (--from, --netns, --path, --svg, --dot) is still taken.
 * Without from it reads the kernel state of every network namespace it
 * can see (/run/netns, and the one it runs in): each node device, its
 * ports and their carrier.  A node device that is down is dead, one that
 * is not placed is unplaced with its reason; a placed node's mapped
 * ports are its cables, cut when they have no carrier.  path asks each
 * hop's kernel for the next direction (torus route get), as a frame
 * would be forwarded.  The drawing itself is lib/topology.c's, shared with
 * torus-sim and torus-lab.
 */
#include <dirent.h>
#include <fnmatch.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "json_print.h"
#include "records.h"
#include "tool.h"
#include "topology.h"

#define OBJ		"topo"
#define NETNS_DIR	"/run/netns"
#define DOC_MAX		(64u << 20)

void topo_usage(FILE *f)
{
	fprintf(f,
		"Usage: torus topo [ show ] [ from FILE ] [ netns GLOB ] [ path SRC DST ]\n"
		"                  [ svg FILE | dot ]\n"
		"       the fabric as a picture: nodes at their coordinates (axes past\n"
		"       the second as a grid of slices), dead and unplaced nodes, cut\n"
		"       cables, lambs, one path.  From the kernel state of every network\n"
		"       namespace (GLOB filters /run/netns names), or from a topology\n"
		"       document (torus -j topo, torus-lab run --svg -j; - is stdin).\n"
		"       Without svg or dot: a summary, or the document with -j.\n"
		"       (--from, --netns, --path, --svg and --dot, the earlier\n"
		"       spelling, are still taken.)\n");
}

struct collect {
	struct torus_node_rec	*nodes;
	size_t			n_nodes, cap_nodes;
	struct torus_port_rec	*ports;
	size_t			n_ports, cap_ports;
};

static int node_cb(const struct nlmsghdr *nlh, void *data)
{
	struct collect *c = data;
	void *p = topo_grow(c->nodes, &c->cap_nodes, c->n_nodes,
			    sizeof(*c->nodes));

	if (!p)
		return MNL_CB_ERROR;
	c->nodes = p;
	memset(&c->nodes[c->n_nodes], 0, sizeof(c->nodes[0]));
	if (!node_rec_parse(nlh, &c->nodes[c->n_nodes]))
		c->n_nodes++;
	return MNL_CB_OK;
}

static int port_cb(const struct nlmsghdr *nlh, void *data)
{
	struct collect *c = data;
	void *p = topo_grow(c->ports, &c->cap_ports, c->n_ports,
			    sizeof(*c->ports));

	if (!p)
		return MNL_CB_ERROR;
	c->ports = p;
	memset(&c->ports[c->n_ports], 0, sizeof(c->ports[0]));
	if (!port_rec_parse(nlh, &c->ports[c->n_ports]))
		c->n_ports++;
	return MNL_CB_OK;
}

/* where each placed node lives, for path */
struct where {
	char		ns[NAME_MAX + 1];	/* "" : the tool's own netns */
	char		dev[IF_NAMESIZE];
	uint32_t	coord[TOPO_MAX_AXES];
};

struct kstate {
	struct topo	*t;
	struct where	*where;
	size_t		n_where, cap_where;
	bool		have_dims;
};

static bool dev_is_up(const char *ifname)
{
	struct ifreq ifr = { 0 };
	bool up = false;
	int fd;

	/* a socket belongs to the netns it is made in: the current one */
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return true;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (!ioctl(fd, SIOCGIFFLAGS, &ifr))
		up = ifr.ifr_flags & IFF_UP;
	close(fd);
	return up;
}

/* the cable of @p's global direction, merged with the other end's */
static int add_cable(struct topo *t, const struct torus_node_rec *n,
		     const struct torus_port_rec *p)
{
	unsigned int axis = TORUS_DIR_AXIS(p->global_dir);
	uint32_t from[TOPO_MAX_AXES] = { 0 };
	struct topo_cable *cb;
	size_t k;

	if (axis >= t->n_axes || n->n_coord < t->n_axes ||
	    t->dims[axis] < 2)
		return 0;
	memcpy(from, n->coord, t->n_axes * sizeof(from[0]));
	if (TORUS_DIR_NEG(p->global_dir)) {
		if (!from[axis] && !t->wrap[axis])
			return 0;
		from[axis] = (from[axis] + t->dims[axis] - 1) % t->dims[axis];
	}
	for (k = 0; k < t->n_cables; k++) {
		cb = &t->cables[k];
		if (cb->axis == axis && !memcmp(cb->from, from, sizeof(from))) {
			cb->cut |= !p->carrier;
			return 0;
		}
	}
	cb = topo_add_cable(t);
	if (!cb)
		return -1;
	memcpy(cb->from, from, sizeof(from));
	cb->axis = (uint8_t)axis;
	cb->cut = !p->carrier;
	return 0;
}

static int add_node(struct kstate *ks, const char *ns, bool only,
		    const struct torus_node_rec *n)
{
	struct topo *t = ks->t;
	struct topo_node *nd = topo_add_node(t);
	struct where *where;

	if (!nd)
		return -1;
	if (ns[0] && only)
		snprintf(nd->name, sizeof(nd->name), "%s", ns);
	else
		snprintf(nd->name, sizeof(nd->name), "%s%s%s", ns,
			 ns[0] ? "/" : "", n->ifname);
	snprintf(nd->role, sizeof(nd->role), "%s", format_role(n->role));
	snprintf(nd->reason, sizeof(nd->reason), "%s", n->reason);
	if (!dev_is_up(n->ifname)) {
		nd->state = TOPO_DEAD;
		snprintf(nd->reason, sizeof(nd->reason), "%s is down",
			 n->ifname);
		return 0;
	}
	if (n->state != TORUS_STATE_PLACED || !n->n_coord) {
		nd->state = TOPO_UNPLACED;
		if (!nd->reason[0])
			snprintf(nd->reason, sizeof(nd->reason), "%s",
				 format_state(n->state));
		return 0;
	}
	nd->state = TOPO_PLACED;
	nd->n_coord = n->n_coord;
	memcpy(nd->coord, n->coord, sizeof(nd->coord));
	/* the first placed node gives the extents; the others agree with
	 * it once discovery has converged */
	if (!ks->have_dims && n->n_dims) {
		unsigned int a;

		ks->have_dims = true;
		t->n_axes = n->n_dims;
		for (a = 0; a < n->n_dims; a++) {
			t->dims[a] = n->dims[a];
			t->wrap[a] = a < n->n_wrap && n->wrap[a];
		}
	}
	where = topo_grow(ks->where, &ks->cap_where, ks->n_where,
			  sizeof(*ks->where));
	if (!where)
		return -1;
	ks->where = where;
	snprintf(ks->where[ks->n_where].ns, sizeof(ks->where[0].ns), "%s", ns);
	snprintf(ks->where[ks->n_where].dev, IF_NAMESIZE, "%s", n->ifname);
	memcpy(ks->where[ks->n_where].coord, n->coord, sizeof(n->coord));
	ks->n_where++;
	return 0;
}

/* the nodes and ports of the current netns; cables once extents known */
static int read_netns(struct kstate *ks, const char *ns,
		      struct collect *c)
{
	struct nlsock *genl = ns_genl();
	struct nlmsghdr *nlh;
	size_t k;

	c->n_nodes = c->n_ports = 0;
	if (!genl)
		return -1;
	nlh = mnlg_msg(genl, TORUS_CMD_NODE_GET, NLM_F_DUMP);
	if (nlsock_talk(genl, nlh, node_cb, c))
		return -1;
	if (!c->n_nodes)
		return 0;
	nlh = mnlg_msg(genl, TORUS_CMD_PORT_GET, NLM_F_DUMP);
	if (nlsock_talk(genl, nlh, port_cb, c))
		return -1;
	for (k = 0; k < c->n_nodes; k++)
		if (add_node(ks, ns, c->n_nodes == 1, &c->nodes[k]))
			return -1;
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the names in /run/netns matching @glob, sorted; NULL-terminated */
static char **netns_names(const char *glob)
{
	size_t n = 0, cap = 16;
	char **names = calloc(cap + 1, sizeof(*names));
	struct dirent *de;
	DIR *d;

	if (!names)
		return NULL;
	d = opendir(NETNS_DIR);
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.' ||
		    (glob && fnmatch(glob, de->d_name, 0)))
			continue;
		if (n == cap) {
			char **p = realloc(names, (2 * cap + 1) * sizeof(*p));

			if (!p)
				break;
			names = p;
			cap *= 2;
		}
		names[n] = strdup(de->d_name);
		if (names[n])
			n++;
		names[n] = NULL;
	}
	if (d)
		closedir(d);
	qsort(names, n, sizeof(*names), cmp_names);
	return names;
}

/*
 * Cables need the extents, which the first placed node gives: a second
 * pass over what was collected.  The records are kept per netns in
 * @saved.
 */
struct saved_ns {
	char			name[NAME_MAX + 1];
	struct collect		c;
};

static void add_cables(struct kstate *ks, struct saved_ns *s, size_t n)
{
	size_t i, k, j;

	for (i = 0; i < n; i++) {
		struct collect *c = &s[i].c;

		for (k = 0; k < c->n_nodes; k++) {
			const struct torus_node_rec *nr = &c->nodes[k];

			if (nr->state != TORUS_STATE_PLACED)
				continue;
			for (j = 0; j < c->n_ports; j++) {
				const struct torus_port_rec *p = &c->ports[j];

				if (p->master != nr->ifindex ||
				    p->global_dir == TORUS_DIR_NONE)
					continue;
				add_cable(ks->t, nr, p);
			}
		}
	}
}

static int read_kernel(struct kstate *ks, const char *glob)
{
	char **names = netns_names(glob);
	struct saved_ns *saved;
	size_t n = 0, i;
	int ret = 0;

	if (!names) {
		fprintf(stderr, "Error: out of memory\n");
		return -1;
	}
	while (names[n])
		n++;
	saved = calloc(n + 1, sizeof(*saved));
	if (!saved) {
		free(names);
		return -1;
	}
	/* the tool's own netns first, unless a glob picks names */
	if (!glob && read_netns(ks, "", &saved[n].c))
		ret = -1;
	for (i = 0; i < n && !ret; i++) {
		snprintf(saved[i].name, sizeof(saved[i].name), "%s", names[i]);
		if (ns_switch(names[i]) ||
		    read_netns(ks, names[i], &saved[i].c))
			ret = -1;
	}
	if (ns_switch(NULL))
		ret = -1;
	if (!ret)
		add_cables(ks, saved, n + 1);
	for (i = 0; i <= n; i++) {
		free(saved[i].c.nodes);
		free(saved[i].c.ports);
		free(names[i]);
	}
	free(saved);
	free(names);
	return ret;
}

struct next_ctx {
	bool	got;
	uint8_t	dir;
};

static int next_cb(const struct nlmsghdr *nlh, void *data)
{
	struct torus_route_rec *r = &(struct torus_route_rec){};
	struct next_ctx *nx = data;

	if (route_rec_parse(nlh, r))
		return MNL_CB_OK;
	nx->got = true;
	nx->dir = r->has_next_dir ? r->next_dir : TORUS_DIR_NONE;
	return MNL_CB_STOP;
}

static const struct where *where_at(const struct kstate *ks,
				    const uint32_t *coord)
{
	size_t k;

	for (k = 0; k < ks->n_where; k++)
		if (!memcmp(ks->where[k].coord, coord,
			    ks->t->n_axes * sizeof(coord[0])))
			return &ks->where[k];
	return NULL;
}

/* hop by hop, each hop's kernel's next direction towards @dst */
static int walk_path(struct kstate *ks, const uint32_t *src,
		     const uint32_t *dst)
{
	struct topo *t = ks->t;
	uint32_t cur[TOPO_MAX_AXES] = { 0 };
	unsigned int a, limit = 8;
	int ret = EXIT_OK;

	for (a = 0; a < t->n_axes; a++)
		limit += 2 * t->dims[a];
	memcpy(cur, src, t->n_axes * sizeof(cur[0]));
	while (1) {
		const struct where *w = where_at(ks, cur);
		struct next_ctx nx = { 0 };
		struct nlsock *genl;
		struct nlmsghdr *nlh;
		struct nlattr *nest;
		unsigned int axis;

		if (topo_add_hop(t, cur))
			return EXIT_ERR;
		if (!memcmp(cur, dst, t->n_axes * sizeof(cur[0])))
			break;
		if (!w || t->n_path > limit) {
			fprintf(stderr, "Error: the path ends at a node %s\n",
				w ? "past the hop limit" : "that is not placed");
			ret = EXIT_ERR;
			break;
		}
		if (ns_switch(w->ns[0] ? w->ns : NULL))
			return EXIT_ERR;
		genl = ns_genl();
		if (!genl)
			return EXIT_ERR;
		nlh = mnlg_msg(genl, TORUS_CMD_ROUTE_GET, 0);
		mnl_attr_put_strz(nlh, TORUS_A_IFNAME, w->dev);
		nest = mnl_attr_nest_start(nlh, TORUS_A_ROUTE);
		put_axes_u32(nlh, TORUS_ROUTE_A_DST, dst, (int)t->n_axes);
		mnl_attr_nest_end(nlh, nest);
		if (nlsock_talk(genl, nlh, next_cb, &nx) || !nx.got ||
		    nx.dir == TORUS_DIR_NONE) {
			fprintf(stderr, "Error: no next hop from a node on the path\n");
			ret = EXIT_ERR;
			break;
		}
		axis = TORUS_DIR_AXIS(nx.dir);
		if (axis >= t->n_axes)
			break;
		if (TORUS_DIR_NEG(nx.dir))
			cur[axis] = (cur[axis] + t->dims[axis] - 1) %
				    t->dims[axis];
		else
			cur[axis] = (cur[axis] + 1) % t->dims[axis];
	}
	if (ns_switch(NULL))
		return EXIT_ERR;
	return ret;
}

static char *read_all(const char *file)
{
	FILE *f = strcmp(file, "-") ? fopen(file, "r") : stdin;
	size_t len = 0, cap = 65536;
	char *buf;

	if (!f) {
		fprintf(stderr, "Error: cannot open \"%s\": %m\n", file);
		return NULL;
	}
	buf = malloc(cap);
	while (buf) {
		size_t got = fread(buf + len, 1, cap - len - 1, f);

		len += got;
		if (len < cap - 1)
			break;
		if (cap >= DOC_MAX) {
			fprintf(stderr, "Error: \"%s\" is too large\n", file);
			free(buf);
			buf = NULL;
			break;
		}
		cap *= 2;
		buf = realloc(buf, cap);
	}
	if (buf)
		buf[len] = '\0';
	if (f != stdin)
		fclose(f);
	return buf;
}

static void print_summary(const struct topo *t)
{
	size_t k, n[3] = { 0 }, cut = 0;
	unsigned int a;

	for (k = 0; k < t->n_nodes; k++)
		n[t->nodes[k].state <= TOPO_DEAD ? t->nodes[k].state :
		  TOPO_UNPLACED]++;
	for (k = 0; k < t->n_cables; k++)
		cut += t->cables[k].cut;
	printf("fabric");
	for (a = 0; a < t->n_axes; a++)
		printf("%s%u", a ? "x" : " ", t->dims[a]);
	printf(": %zu placed, %zu unplaced, %zu dead, %zu cables, %zu cut\n",
	       n[TOPO_PLACED], n[TOPO_UNPLACED], n[TOPO_DEAD], t->n_cables,
	       cut);
	for (k = 0; k < t->n_nodes; k++)
		if (t->nodes[k].state != TOPO_PLACED)
			printf("  %s %s: %s\n", t->nodes[k].name,
			       topo_state_name(t->nodes[k].state),
			       t->nodes[k].reason);
	if (t->n_path)
		printf("  path: %zu hops\n", t->n_path - 1);
}

/* keyword @name, or its earlier spelling as an option, "--name" */
static bool topo_kw(const char *arg, const char *name)
{
	return kw(arg, name) ||
	       (!strncmp(arg, "--", 2) && kw(arg + 2, name));
}

int do_topo(int argc, char **argv)
{
	uint32_t src[TORUS_MAX_AXES] = { 0 }, dst[TORUS_MAX_AXES] = { 0 };
	const char *from = NULL, *glob = NULL, *svg = NULL;
	struct kstate ks = { 0 };
	bool dot = false, path = false;
	int n_src = 0, n_dst = 0;
	struct topo t;
	int ret = EXIT_OK;

	/* "topo" is read only: "show" is its one command, and the default */
	if (argc > 0 && kw(argv[0], "show")) {
		argc--;
		argv++;
	}
	for (; argc > 0; argc--, argv++) {
		if (topo_kw(argv[0], "from")) {
			NEXT_ARG(OBJ);
			from = argv[0];
		} else if (topo_kw(argv[0], "netns")) {
			NEXT_ARG(OBJ);
			glob = argv[0];
		} else if (topo_kw(argv[0], "svg")) {
			NEXT_ARG(OBJ);
			svg = argv[0];
		} else if (topo_kw(argv[0], "dot")) {
			dot = true;
		} else if (topo_kw(argv[0], "path")) {
			NEXT_ARG(OBJ);
			n_src = parse_coord(argv[0], src);
			if (n_src <= 0)
				return bad_value(OBJ, "path", argv[0],
						 "coordinates C[,C...]");
			NEXT_ARG(OBJ);
			n_dst = parse_coord(argv[0], dst);
			if (n_dst <= 0)
				return bad_value(OBJ, "path", argv[0],
						 "coordinates C[,C...]");
			path = true;
		} else if (topo_kw(argv[0], "help") || kw(argv[0], "-h")) {
			topo_usage(stdout);
			return EXIT_OK;
		} else {
			return unknown_keyword(OBJ, argv[0]);
		}
	}
	if (svg && dot)
		return usage_error(OBJ, "svg and dot draw the same: pick one");
	if (from && (glob || path))
		return usage_error(OBJ, "netns and path read the kernel: not with from");

	topo_init(&t);
	ks.t = &t;
	if (from) {
		char err[256], *text = read_all(from);

		if (!text)
			return EXIT_ERR;
		if (topo_parse(&t, text, err, sizeof(err))) {
			fprintf(stderr, "Error: %s: %s\n", from, err);
			ret = EXIT_ERR;
		}
		free(text);
	} else if (read_kernel(&ks, glob)) {
		ret = EXIT_ERR;
	}
	if (!ret && path) {
		if (n_src != (int)t.n_axes || n_dst != (int)t.n_axes)
			ret = usage_error(OBJ, "path needs %u coordinates per node",
					  t.n_axes);
		else
			ret = walk_path(&ks, src, dst);
	}
	if (ret == EXIT_USAGE || (ret && !path))
		goto out;
	if (svg) {
		FILE *f = strcmp(svg, "-") ? fopen(svg, "w") : stdout;

		if (!f) {
			fprintf(stderr, "Error: cannot write \"%s\": %m\n", svg);
			ret = EXIT_ERR;
		} else {
			if (topo_write_svg(&t, f))
				ret = EXIT_ERR;
			if (f != stdout && fclose(f))
				ret = EXIT_ERR;
		}
	} else if (dot) {
		if (topo_write_dot(&t, stdout))
			ret = EXIT_ERR;
	} else if (opts.json) {
		new_json_obj(stdout, true, opts.pretty);
		topo_print_json(&t);
		delete_json_obj();
	} else {
		print_summary(&t);
	}
out:
	free(ks.where);
	topo_free(&t);
	return ret;
}
