// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * coll.c - torus coll: collective operations run by the fabric
 *
 *	torus coll barrier [ dev DEV ] [ timeout MS ] [ repeat N ]
 *	torus coll allreduce [ dev DEV ] [ type TYPE ] [ op OP ]
 *			     [ timeout MS ] VALUE...
 *	torus coll reduce [ dev DEV ] [ type TYPE ] [ op OP ] root COORD
 *			  [ timeout MS ] VALUE...
 *	torus coll broadcast [ dev DEV ] [ type TYPE ] root COORD
 *			     [ count N ] [ timeout MS ] [ VALUE... ]
 *	torus coll tree show [ dev DEV ]
 *	torus coll tree set [ dev DEV ] { auto | default |
 *			     parent DIR children DIR[,DIR...] }
 *
 * The operations go through libtorus (tools/libtorus), the one builder
 * of collective requests; the tool parses, repeats and prints.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/genetlink.h>
#include <linux/torus.h>

#include "json_print.h"
#include "libtorus.h"
#include "records.h"
#include "torus_coll_tree.h"
#include "tool.h"

#define OBJ		"coll"
/* the largest vector libtorus takes */
#define COLL_MAX_BYTES	TORUS_MAX_BYTES

static const char *const type_names[] = TORUS_COLL_TYPE_NAMES;
static const char *const op_names[] = TORUS_COLL_OP_NAMES;

void coll_usage(FILE *f)
{
	fprintf(f,
		"Usage: torus coll barrier [ dev DEV ] [ group GROUP ] [ timeout MS ] [ repeat N ]\n"
		"       torus coll allreduce [ dev DEV ] [ type TYPE ] [ op OP ] [ timeout MS ]\n"
		"                            [ repeat N ] VALUE...\n"
		"       torus coll reduce [ dev DEV ] [ type TYPE ] [ op OP ] root COORD [ timeout MS ]\n"
		"                         [ repeat N ] VALUE...\n"
		"       torus coll broadcast [ dev DEV ] [ type TYPE ] root COORD [ count N ]\n"
		"                            [ timeout MS ] [ VALUE... ]\n"
		"       torus coll tree show [ dev DEV ]\n"
		"       torus coll tree set [ dev DEV ] { auto | default |\n"
		"                            parent { DIR | none } children { DIR[,DIR...] | none } }\n"
		"where  TYPE := { int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 |\n"
		"                 uint64 | float | double }   (default double)\n"
		"       OP := { sum | prod | min | max | band | bor | bxor | land | lor | lxor |\n"
		"               minloc | maxloc }   (default sum; float and double: not band,\n"
		"             bor, bxor; minloc and maxloc also print the lowest rank holding\n"
		"             the result, rank = x + X * (y + Y * z))\n"
		"       GROUP := { fabric | AXES | RANKS }   (default fabric; AXES such as x: the\n"
		"             node's x line, xy: its xy plane; RANKS such as 0,5,9-12: those\n"
		"             nodes, a node list numbered by its members; every option list\n"
		"             takes group GROUP)\n"
		"Every node of the group runs the same operations in the same order.\n"
		"repeat N runs N + 1 operations back to back and prints the average time\n"
		"of the last N.\n"
		"Float and double sums and products are exact, rounded once: the same bits\n"
		"on every node.  reduce prints the result at the root only.  broadcast is\n"
		"also bcast.  Vectors up to 1 MiB, in pipelined segments of 32 KiB\n"
		"(a broadcast of 8-byte values in one operation).\n");
}

static int lookup(const char *const *names, unsigned int n, const char *s)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (kw(s, names[i]))
			return (int)i;
	return -1;
}

static unsigned int type_size(uint8_t type)
{
	return (unsigned int)torus_type_size(type);
}

/* One value of @type from text into @p (host order); -1 if invalid. */
static int parse_value(uint8_t type, const char *s, void *p)
{
	unsigned int size = type_size(type);
	char *end;

	errno = 0;
	if (type == TORUS_COLL_DOUBLE || type == TORUS_COLL_FLOAT) {
		double d = strtod(s, &end);

		if (*end || end == s)
			return -1;
		if (type == TORUS_COLL_FLOAT) {
			float f = (float)d;

			memcpy(p, &f, sizeof(f));
		} else {
			memcpy(p, &d, sizeof(d));
		}
		return 0;
	}
	if (type <= TORUS_COLL_INT64) {
		long long v = strtoll(s, &end, 0);
		int64_t lim = size == 8 ? INT64_MAX :
			      (int64_t)((1ULL << (8 * size - 1)) - 1);

		if (*end || end == s || errno || v > lim || v < -lim - 1)
			return -1;
		switch (size) {
		case 1: *(int8_t *)p = (int8_t)v; break;
		case 2: { int16_t x = (int16_t)v; memcpy(p, &x, 2); break; }
		case 4: { int32_t x = (int32_t)v; memcpy(p, &x, 4); break; }
		default: { int64_t x = v; memcpy(p, &x, 8); }
		}
		return 0;
	}
	if (*s == '-')
		return -1;
	{
		unsigned long long v = strtoull(s, &end, 0);
		uint64_t lim = size == 8 ? UINT64_MAX : (1ULL << (8 * size)) - 1;

		if (*end || end == s || errno || v > lim)
			return -1;
		switch (size) {
		case 1: *(uint8_t *)p = (uint8_t)v; break;
		case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
		case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
		default: { uint64_t x = v; memcpy(p, &x, 8); }
		}
	}
	return 0;
}

/* One result element: text and JSON, plus its bits for exact checks. */
static void print_value(uint8_t type, const void *p)
{
	char num[64];

	if (type == TORUS_COLL_DOUBLE || type == TORUS_COLL_FLOAT) {
		double d;

		if (type == TORUS_COLL_FLOAT) {
			float f;

			memcpy(&f, p, sizeof(f));
			d = f;
			snprintf(num, sizeof(num), "%.9g", d);
		} else {
			memcpy(&d, p, sizeof(d));
			snprintf(num, sizeof(num), "%.17g", d);
		}
		if (isfinite(d))
			print_number(PRINT_ANY, NULL, " %s", num);
		else
			print_string(PRINT_ANY, NULL, " %s", num);
		return;
	}
	if (type <= TORUS_COLL_INT64) {
		int64_t v = 0;

		switch (type_size(type)) {
		case 1: v = *(const int8_t *)p; break;
		case 2: { int16_t x; memcpy(&x, p, 2); v = x; break; }
		case 4: { int32_t x; memcpy(&x, p, 4); v = x; break; }
		default: memcpy(&v, p, 8);
		}
		snprintf(num, sizeof(num), "%" PRId64, v);
	} else {
		uint64_t v = 0;

		memcpy(&v, p, type_size(type));	/* little-endian */
		snprintf(num, sizeof(num), "%" PRIu64, v);
	}
	print_number(PRINT_ANY, NULL, " %s", num);
}

struct coll_args {
	const char *dev;
	uint8_t kind;
	uint8_t type;
	uint8_t op;
	bool has_root;
	uint32_t root[TORUS_MAX_AXES];
	int n_root;
	const char *root_text;
	uint32_t group;
	uint32_t nmembers;	/* group RANKS: a node list */
	uint32_t members[TORUS_COLL_LIST_MAX];
	uint32_t count;
	uint32_t timeout_ms;
	uint32_t repeat;
	size_t len;
	unsigned char data[COLL_MAX_BYTES];
};

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Report a failed call: the module's own words when it gave some. */
static void coll_error(struct torus_ctx *ctx, const char *what)
{
	if (*torus_errmsg(ctx))
		fprintf(stderr, "Error: %s\n", torus_errmsg(ctx));
	else
		fprintf(stderr, "Error: %s (%s %u)\n", strerror(errno), what,
			torus_last_seq(ctx));
}

/* One operation through libtorus, in place in @buf (and @loc). */
static int coll_once(struct torus_ctx *ctx, const struct coll_args *a,
		     void *buf, uint32_t *loc, size_t n, uint32_t root)
{
	switch (a->kind) {
	case TORUS_COLL_BARRIER:
		return torus_barrier(ctx);
	case TORUS_COLL_ALLREDUCE:
		return loc ? torus_allreduce_loc(ctx, buf, loc, n, a->type,
						 a->op) :
			     torus_allreduce(ctx, buf, n, a->type, a->op);
	case TORUS_COLL_REDUCE:
		return torus_reduce(ctx, buf, n, a->type, a->op, root);
	default:
		return torus_bcast(ctx, buf, n, a->type, root);
	}
}

static void print_result(const struct coll_args *a, const void *buf,
			 const uint32_t *loc, size_t n)
{
	size_t i, size = type_size(a->type);

	print_string(PRINT_JSON, "type", NULL, type_names[a->type]);
	if (a->kind == TORUS_COLL_ALLREDUCE || a->kind == TORUS_COLL_REDUCE)
		print_string(PRINT_JSON, "op", NULL, op_names[a->op]);
	print_string(PRINT_FP, NULL, "%s", ":");
	open_json_array(PRINT_JSON, "result");
	for (i = 0; i < n; i++)
		print_value(a->type, (const char *)buf + i * size);
	close_json_array(PRINT_JSON, NULL);
	/* the exact bits, for checks across nodes */
	open_json_array(PRINT_JSON, "bits");
	for (i = 0; i < n; i++) {
		uint64_t bits = 0;
		char hex[24];

		memcpy(&bits, (const char *)buf + i * size, size);
		snprintf(hex, sizeof(hex), "0x%0*" PRIx64, (int)(2 * size),
			 bits);
		print_string(PRINT_JSON, NULL, NULL, hex);
	}
	close_json_array(PRINT_JSON, NULL);
	if (!loc)
		return;
	/* minloc, maxloc: the lowest rank holding each result */
	print_string(PRINT_FP, NULL, "%s", " at ranks");
	open_json_array(PRINT_JSON, "loc");
	for (i = 0; i < n; i++)
		print_uint(PRINT_ANY, NULL, " %u", loc[i]);
	close_json_array(PRINT_JSON, NULL);
}

/*
 * The number of a node list given by its ranks: FNV-1a of them, so that
 * each invocation on each member names the same list the same way, and
 * other lists (almost always) otherwise.
 */
static uint16_t list_id(const uint32_t *ranks, uint32_t n)
{
	uint32_t h = 2166136261u, i;
	unsigned int b;

	for (i = 0; i < n; i++)
		for (b = 0; b < 32; b += 8)
			h = (h ^ ((ranks[i] >> b) & 0xff)) * 16777619u;
	return (uint16_t)((h ^ h >> 16) & TORUS_LIST_ID_MAX);
}

static int coll_run(struct coll_args *a)
{
	size_t size = type_size(a->type), n = a->count;
	char ifname[IF_NAMESIZE];
	struct torus_ctx *ctx;
	uint32_t i, ifindex, root = 0, *loc = NULL;
	int ret = EXIT_ERR, err = 0;
	bool has_result;
	void *buf;
	double t0;

	if (node_ifindex(a->dev, &ifindex))
		return EXIT_ERR;
	if (!if_indextoname(ifindex, ifname)) {
		fprintf(stderr, "Error: node device: %s\n", strerror(errno));
		return EXIT_ERR;
	}
	ctx = torus_open(ifname);
	if (!ctx) {
		fprintf(stderr, "Error: %s\n", strerror(errno));
		return EXIT_ERR;
	}
	torus_set_timeout(ctx, a->timeout_ms);
	if (a->nmembers &&
	    torus_set_members(ctx, list_id(a->members, a->nmembers),
			      a->members, a->nmembers)) {
		coll_error(ctx, "group");
		goto close;
	}
	if (!a->nmembers && torus_set_group(ctx, a->group)) {
		fprintf(stderr, "Error: the group spans an axis this fabric does not have\n");
		goto close;
	}
	if (a->has_root &&
	    torus_rank_of(ctx, a->root, (unsigned int)a->n_root, &root)) {
		fprintf(stderr, "Error: root %s is not a node of this fabric\n",
			a->root_text);
		goto close;
	}
	has_result = a->kind != TORUS_COLL_BARRIER &&
		     (a->kind != TORUS_COLL_REDUCE || root == torus_rank(ctx));
	buf = calloc(n ? n : 1, size);
	if (a->op == TORUS_COLL_MINLOC || a->op == TORUS_COLL_MAXLOC)
		loc = calloc(n ? n : 1, sizeof(*loc));
	if (!buf || (!loc && (a->op == TORUS_COLL_MINLOC ||
			      a->op == TORUS_COLL_MAXLOC))) {
		fprintf(stderr, "Error: out of memory\n");
		goto out;
	}
	/*
	 * repeat: back-to-back operations, for their latency; one more
	 * first, untimed, so every node starts timing at the same moment
	 */
	t0 = now_us();
	for (i = a->repeat > 1 ? 0 : 1; i <= a->repeat; i++) {
		if (i == 1)
			t0 = now_us();
		memcpy(buf, a->data, a->len);	/* the call works in place */
		err = coll_once(ctx, a, buf, loc, n, root);
		if (err)
			break;
	}
	t0 = now_us() - t0;
	if (err) {
		coll_error(ctx, "operation");
		goto out;
	}
	new_json_obj(stdout, opts.json, opts.pretty);
	open_json_object(NULL);
	print_uint(PRINT_ANY, "seq", "seq %u", torus_last_seq(ctx));
	if (a->repeat > 1) {
		char avg[32];

		print_uint(PRINT_ANY, "repeat", " repeat %u", a->repeat);
		snprintf(avg, sizeof(avg), "%.1f", t0 / a->repeat);
		print_number(PRINT_ANY, "avg_us", " avg %s us", avg);
	}
	if (has_result)
		print_result(a, buf, loc, n);
	else if (a->kind == TORUS_COLL_REDUCE)
		print_string(PRINT_FP, NULL, "%s", ": given to the root");
	else
		print_string(PRINT_FP, NULL, "%s", ": all joined");
	print_nl();
	close_json_object();
	delete_json_obj();
	ret = EXIT_OK;
out:
	free(buf);
	free(loc);
close:
	torus_close(ctx);
	return ret;
}

/*
 * "fabric" (0), the axes a group spans through this node ("x", "xy"), or
 * a node list ("0,5,9-12", into @a's members).
 */
static int parse_group(const char *s, struct coll_args *a)
{
	static const char axes[] = "xyzabcde";
	uint32_t *group = &a->group;
	const char *p;

	*group = 0;
	a->nmembers = 0;
	if (kw(s, "fabric"))
		return 0;
	if (*s >= '0' && *s <= '9')
		return parse_rank_list(s, a->members, TORUS_COLL_LIST_MAX,
				       &a->nmembers);
	for (; *s; s++) {
		p = strchr(axes, *s);
		if (!p || *group & 1U << (p - axes))
			return -1;
		*group |= 1U << (p - axes);
	}
	return *group ? 0 : -1;
}

/* the options every operation takes; returns -1 for "not mine" */
static int coll_common(struct coll_args *a, int *pargc, char ***pargv)
{
	int argc = *pargc;
	char **argv = *pargv;
	int i;

	if (kw(argv[0], "dev")) {
		NEXT_IFNAME(OBJ, "dev", a->dev);
	} else if (kw(argv[0], "timeout")) {
		NEXT_ARG(OBJ);
		if (parse_u32(argv[0], TORUS_COLL_TIMEOUT_MS_MAX,
			      &a->timeout_ms) || !a->timeout_ms)
			return bad_value(OBJ, "timeout", argv[0],
					 "milliseconds, 1 to 600000");
	} else if (kw(argv[0], "repeat")) {
		NEXT_ARG(OBJ);
		if (parse_u32(argv[0], 1000000, &a->repeat) || !a->repeat)
			return bad_value(OBJ, "repeat", argv[0],
					 "1 to 1000000 operations");
	} else if (kw(argv[0], "group")) {
		NEXT_ARG(OBJ);
		if (parse_group(argv[0], a))
			return bad_value(OBJ, "group", argv[0],
					 "fabric, axes such as x or xy, or ranks such as 0,5,9-12");
	} else if (kw(argv[0], "type")) {
		NEXT_ARG(OBJ);
		i = lookup(type_names, TORUS_COLL_TYPE_MAX + 1, argv[0]);
		if (i < 0)
			return bad_value(OBJ, "type", argv[0], "a type");
		a->type = (uint8_t)i;
	} else {
		return -1;
	}
	*pargc = argc - 1;
	*pargv = argv + 1;
	return EXIT_OK;
}

static int coll_values(struct coll_args *a, int argc, char **argv)
{
	size_t size = type_size(a->type);

	for (; argc > 0; argc--, argv++) {
		if (a->len + size > COLL_MAX_BYTES)
			return usage_error(OBJ, "more than %u bytes of values",
					   COLL_MAX_BYTES);
		if (parse_value(a->type, argv[0], a->data + a->len))
			return bad_value(OBJ, "value", argv[0],
					 type_names[a->type]);
		a->len += size;
	}
	return EXIT_OK;
}

static struct coll_args *coll_args_new(uint8_t kind)
{
	struct coll_args *a = calloc(1, sizeof(*a));

	if (!a) {
		fprintf(stderr, "Error: out of memory\n");
		return NULL;
	}
	a->kind = kind;
	a->type = TORUS_COLL_DOUBLE;
	a->op = TORUS_COLL_SUM;
	a->timeout_ms = TORUS_COLL_TIMEOUT_MS;
	a->repeat = 1;
	return a;
}

static int coll_barrier(int argc, char **argv)
{
	struct coll_args *a = coll_args_new(TORUS_COLL_BARRIER);
	int ret = EXIT_ERR;

	if (!a)
		return EXIT_ERR;
	while (argc > 0) {
		ret = coll_common(a, &argc, &argv);
		if (ret < 0)
			ret = unknown_keyword(OBJ, argv[0]);
		if (ret)
			goto out;
	}
	ret = coll_run(a);
out:
	free(a);
	return ret;
}

/* allreduce, reduce and broadcast: op, root and count, then the values */
static int coll_data_cmd(uint8_t kind, int argc, char **argv)
{
	struct coll_args *a = coll_args_new(kind);
	bool reduces = kind != TORUS_COLL_BCAST;
	int ret = EXIT_ERR, i;

	if (!a)
		return EXIT_ERR;
	while (argc > 0) {
		ret = coll_common(a, &argc, &argv);
		if (ret > 0)
			goto out;
		if (!ret)
			continue;
		if (!(reduces && kw(argv[0], "op")) &&
		    !(kind != TORUS_COLL_ALLREDUCE && kw(argv[0], "root")) &&
		    !(kind == TORUS_COLL_BCAST && kw(argv[0], "count")))
			break;	/* the values */
		if (argc < 2) {
			ret = usage_error(OBJ, "missing argument after \"%s\"",
					  argv[0]);
			goto out;
		}
		if (kw(argv[0], "op")) {
			i = lookup(op_names, TORUS_COLL_OP_MAX + 1, argv[1]);
			if (i < 0) {
				ret = bad_value(OBJ, "op", argv[1],
						"a reduction");
				goto out;
			}
			a->op = (uint8_t)i;
		} else if (kw(argv[0], "root")) {
			a->n_root = parse_coord(argv[1], a->root);
			if (a->n_root < 0) {
				ret = bad_value(OBJ, "root", argv[1],
						"coordinates");
				goto out;
			}
			a->root_text = argv[1];
			a->has_root = true;
		} else if (parse_u32(argv[1], COLL_MAX_BYTES, &a->count) ||
			   !a->count) {
			ret = bad_value(OBJ, "count", argv[1],
					"1 to 1048576 elements");
			goto out;
		}
		argc -= 2;
		argv += 2;
	}
	ret = coll_values(a, argc, argv);
	if (!ret && kind != TORUS_COLL_ALLREDUCE && !a->has_root)
		ret = usage_error(OBJ, "missing root");
	if (!ret && kind == TORUS_COLL_BCAST && !a->count && !a->len)
		ret = usage_error(OBJ, "missing count or VALUE");
	if (!ret && kind != TORUS_COLL_BCAST && !a->len)
		ret = usage_error(OBJ, "missing VALUE");
	if (!ret && a->len)
		a->count = (uint32_t)(a->len / type_size(a->type));
	if (!ret && (uint64_t)a->count * type_size(a->type) > COLL_MAX_BYTES)
		ret = usage_error(OBJ, "more than %u bytes", COLL_MAX_BYTES);
	if (!ret)
		ret = coll_run(a);
out:
	free(a);
	return ret;
}

static int coll_allreduce(int argc, char **argv)
{
	return coll_data_cmd(TORUS_COLL_ALLREDUCE, argc, argv);
}

static int coll_reduce(int argc, char **argv)
{
	return coll_data_cmd(TORUS_COLL_REDUCE, argc, argv);
}

static int coll_broadcast(int argc, char **argv)
{
	return coll_data_cmd(TORUS_COLL_BCAST, argc, argv);
}

/* ---- the combining tree ---- */

static void print_dirs(const char *key, uint32_t mask)
{
	char buf[DIR_STR_LEN];
	uint8_t dir;

	open_json_array(PRINT_JSON, key);
	if (!mask)
		print_string(PRINT_FP, NULL, " %s", "none");
	for (dir = 0; dir < TORUS_MAX_DIRS; dir++)
		if (mask & (1U << dir))
			print_string(PRINT_ANY, NULL, " %s",
				     format_dir(dir, buf));
	close_json_array(PRINT_JSON, NULL);
}

struct tree_rec {
	bool set;
	uint8_t parent;
	uint32_t children;
};

static int tree_nest_cb(const struct nlattr *attr, void *data)
{
	struct tree_rec *t = data;

	if (mnl_attr_get_type(attr) == TORUS_COLL_TREE_A_PARENT &&
	    mnl_attr_validate(attr, MNL_TYPE_U8) >= 0)
		t->parent = mnl_attr_get_u8(attr);
	if (mnl_attr_get_type(attr) == TORUS_COLL_TREE_A_CHILDREN &&
	    mnl_attr_validate(attr, MNL_TYPE_U32) >= 0)
		t->children = mnl_attr_get_u32(attr);
	return MNL_CB_OK;
}

static int tree_attr_cb(const struct nlattr *attr, void *data)
{
	struct tree_rec *t = data;

	if (mnl_attr_get_type(attr) == TORUS_A_COLL_TREE_SET &&
	    mnl_attr_validate(attr, MNL_TYPE_U8) >= 0)
		t->set = mnl_attr_get_u8(attr);
	if (mnl_attr_get_type(attr) == TORUS_A_COLL_TREE)
		mnl_attr_parse_nested(attr, tree_nest_cb, t);
	return MNL_CB_OK;
}

static int tree_show_cb(const struct nlmsghdr *nlh, void *data)
{
	struct tree_rec t = { .parent = TORUS_DIR_NONE };
	char buf[DIR_STR_LEN];
	const char *parent;

	(void)data;
	mnl_attr_parse(nlh, sizeof(struct genlmsghdr), tree_attr_cb, &t);
	parent = format_dir(t.parent, buf);
	open_json_object(NULL);
	print_string(PRINT_ANY, "tree", "tree %s",
		     t.set ? "installed" : "default");
	print_string_or_null(PRINT_ANY, "parent", " parent %s", parent);
	if (!parent)
		print_string(PRINT_FP, NULL, "%s", " parent none (root)");
	print_string(PRINT_FP, NULL, "%s", " children");
	print_dirs("children", t.children);
	print_nl();
	close_json_object();
	return MNL_CB_OK;
}

static int tree_show(int argc, char **argv)
{
	struct nlsock *genl;
	struct nlmsghdr *nlh;
	const char *dev;
	int ret;

	ret = parse_dev_arg(OBJ, argc, argv, &dev);
	if (ret)
		return ret;
	nlh = node_msg(dev, TORUS_CMD_COLL_TREE_GET, &genl);
	if (!nlh)
		return EXIT_ERR;
	return show_talk(genl, nlh, tree_show_cb, NULL);
}

static int node_cb(const struct nlmsghdr *nlh, void *data)
{
	return node_rec_parse(nlh, data) ? MNL_CB_ERROR : MNL_CB_OK;
}

/* The default tree from the node's coordinates (torus_coll_tree.c). */
static int tree_auto(const char *dev, uint8_t *parent, uint32_t *children)
{
	struct torus_node_rec r;
	struct nlsock *genl;
	struct nlmsghdr *nlh;
	uint16_t dims[TORUS_MAX_AXES] = { 0 };
	uint8_t coord[TORUS_MAX_AXES] = { 0 }, wrap = 0;
	unsigned int i;

	nlh = node_msg(dev, TORUS_CMD_NODE_GET, &genl);
	if (!nlh)
		return -1;
	memset(&r, 0, sizeof(r));
	if (nlsock_talk(genl, nlh, node_cb, &r))
		return -1;
	if (r.state != TORUS_STATE_PLACED || !r.n_coord) {
		fprintf(stderr, "Error: the node is not placed\n");
		return -1;
	}
	for (i = 0; i < r.n_dims; i++) {
		dims[i] = (uint16_t)r.dims[i];
		coord[i] = (uint8_t)r.coord[i];
		if (i < r.n_wrap && r.wrap[i])
			wrap |= 1U << i;
	}
	*parent = torus_coll_tree_parent(r.n_dims, dims, wrap, coord);
	*children = torus_coll_tree_children(r.n_dims, dims, wrap, coord);
	return 0;
}

static int parse_dir_list(const char *s, uint32_t *mask)
{
	char buf[128], *tok, *save = NULL;
	uint8_t dir;

	*mask = 0;
	if (kw(s, "none"))
		return 0;
	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (parse_dir(tok, &dir))
			return -1;
		*mask |= 1U << dir;
	}
	return 0;
}

static int tree_set(int argc, char **argv)
{
	uint8_t parent = TORUS_DIR_NONE;
	bool tree = false, is_auto = false, has_parent = false;
	const char *dev = NULL;
	uint32_t children = 0;
	struct nlsock *genl;
	struct nlmsghdr *nlh;
	struct nlattr *nest;

	for (; argc > 0; argc--, argv++) {
		if (kw(argv[0], "dev")) {
			NEXT_IFNAME(OBJ, "dev", dev);
		} else if (kw(argv[0], "auto")) {
			is_auto = tree = true;
		} else if (kw(argv[0], "default")) {
			tree = false;
		} else if (kw(argv[0], "parent")) {
			NEXT_ARG(OBJ);
			if (!kw(argv[0], "none") && parse_dir(argv[0], &parent))
				return bad_value(OBJ, "parent", argv[0],
						 "a direction or none");
			tree = has_parent = true;
		} else if (kw(argv[0], "children")) {
			NEXT_ARG(OBJ);
			if (parse_dir_list(argv[0], &children))
				return bad_value(OBJ, "children", argv[0],
						 "directions or none");
			tree = true;
		} else {
			return unknown_keyword(OBJ, argv[0]);
		}
	}
	if (tree && !is_auto && !has_parent)
		return usage_error(OBJ, "missing parent");
	if (is_auto && tree_auto(dev, &parent, &children))
		return EXIT_ERR;
	nlh = node_msg(dev, TORUS_CMD_COLL_TREE_SET, &genl);
	if (!nlh)
		return EXIT_ERR;
	if (tree) {
		nest = mnl_attr_nest_start(nlh, TORUS_A_COLL_TREE);
		mnl_attr_put_u8(nlh, TORUS_COLL_TREE_A_PARENT, parent);
		mnl_attr_put_u32(nlh, TORUS_COLL_TREE_A_CHILDREN, children);
		mnl_attr_nest_end(nlh, nest);
	}
	return nlsock_talk(genl, nlh, NULL, NULL) ? EXIT_ERR : EXIT_OK;
}

static const struct cmd tree_cmds[] = {
	{ "show",	tree_show },
	{ "set",	tree_set },
	{}
};

static int coll_tree_cmd(int argc, char **argv)
{
	return do_cmds(OBJ, tree_cmds, coll_usage, argc, argv);
}

static const struct cmd coll_cmds[] = {
	{ "barrier",	coll_barrier },
	{ "allreduce",	coll_allreduce },
	{ "reduce",	coll_reduce },
	{ "broadcast",	coll_broadcast },
	{ "bcast",	coll_broadcast },
	{ "tree",	coll_tree_cmd },
	{}
};

int do_coll(int argc, char **argv)
{
	if (argc < 1)
		return usage_error(OBJ, "missing command");
	return do_cmds(OBJ, coll_cmds, coll_usage, argc, argv);
}
