// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * routes.c - torus-sim --routes: fault-tolerant route computation
 * (daemon/core/troute*) on random or given fault sets, at any scale.
 *
 * Per run: the fault set (seeded), the lamb set of the paper's model or
 * of the fabric's freedom, the exact verifier's counts, optionally one
 * node's route table and the deadlock check, with the time of each
 * phase.  Fault and lamb files: one node per line, coordinates
 * separated by blanks, '#' starts a comment.  Times are CPU times of
 * the computing thread (the machine may be busy with other work).
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "json_print.h"
#include "sim.h"
#include "troute_cdg.h"
#include "troute_lamb.h"
#include "tcoll_tree.h"
#include "troute_table.h"

static const char axis_names[] = TORUS_AXIS_NAMES;

struct ropts {
	bool free_mode;
	struct troute_faults f;
	unsigned int dead_count, cut_count;
	double dead_frac;
	bool have_frac;
	uint64_t seed;
	unsigned int runs;
	const char *faults_in, *faults_out, *lambs_in, *lambs_out;
	bool verify, cdg, json;
	const char *table_node;
};

static void routes_usage(FILE *f)
{
	fprintf(f,
"Usage: torus-sim --routes paper|free [OPTIONS]\n"
"Compute fault-tolerant routes (lambs, two rounds of dimension-ordered\n"
"routing) for random or given faults, and verify them exactly.\n"
"\n"
"  --routes paper         the paper's model: plan 0 (DOR) in both rounds\n"
"  --routes free          the fabric's freedom: XYZ and ZYX, on rings also\n"
"                         always-+ and always-- (any plan per round)\n"
"  --dims AxBx...         extents (default 32x32x32)\n"
"  --mesh AXES            axes that are lines, e.g. xyz (default: rings)\n"
"  --wrap W,W,...         per axis 1 ring, 0 line\n"
"  --dead-count N         exactly N uniform random dead nodes\n"
"  --dead-frac F          round(F * nodes) dead nodes (e.g. 0.03)\n"
"  --cut-count N          N random cut cables (between live or dead nodes)\n"
"  --seed N               first seed (default 1)\n"
"  --runs K               runs with seeds N, N+1, ... (default 1)\n"
"  --faults FILE          dead nodes from FILE (added to random ones)\n"
"  --faults-out FILE      write the first run's dead nodes\n"
"  --lambs FILE           verify this lamb set instead of computing one\n"
"  --lambs-out FILE       write the first run's lambs\n"
"  --verify               run the exact verifier on the lamb set\n"
"  --table NODE           the route table of NODE (x,y,z or 'first': the\n"
"                         lowest survivor), timed\n"
"  --cdg                  check the channel dependency graph (deadlock)\n"
"  -j, --json             print one JSON object\n"
"  -h, --help             this text\n"
"\n"
"Files: one node per line, coordinates separated by blanks (3 17 0),\n"
"'#' starts a comment.  Exit status: 0, 1 if the verifier found a bad\n"
"pair or the deadlock check a cycle, 2 usage.\n");
}

static void __attribute__((noreturn, format(printf, 1, 2)))
rdie(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "torus-sim: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(2);
}

static unsigned long long num(const char *opt, const char *s,
			      unsigned long long max)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v > max)
		rdie("%s: '%s' is not an integer 0..%llu", opt, s, max);
	return v;
}

enum {
	OPT_ROUTES = 256, OPT_DIMS, OPT_MESH, OPT_WRAP, OPT_DEAD_COUNT,
	OPT_DEAD_FRAC, OPT_CUT_COUNT, OPT_SEED, OPT_RUNS, OPT_FAULTS,
	OPT_FAULTS_OUT, OPT_LAMBS, OPT_LAMBS_OUT, OPT_VERIFY, OPT_TABLE,
	OPT_CDG,
};

static const struct option ropts_long[] = {
	{ "routes", required_argument, NULL, OPT_ROUTES },
	{ "dims", required_argument, NULL, OPT_DIMS },
	{ "mesh", required_argument, NULL, OPT_MESH },
	{ "wrap", required_argument, NULL, OPT_WRAP },
	{ "dead-count", required_argument, NULL, OPT_DEAD_COUNT },
	{ "dead-frac", required_argument, NULL, OPT_DEAD_FRAC },
	{ "cut-count", required_argument, NULL, OPT_CUT_COUNT },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "runs", required_argument, NULL, OPT_RUNS },
	{ "faults", required_argument, NULL, OPT_FAULTS },
	{ "faults-out", required_argument, NULL, OPT_FAULTS_OUT },
	{ "lambs", required_argument, NULL, OPT_LAMBS },
	{ "lambs-out", required_argument, NULL, OPT_LAMBS_OUT },
	{ "verify", no_argument, NULL, OPT_VERIFY },
	{ "table", required_argument, NULL, OPT_TABLE },
	{ "cdg", no_argument, NULL, OPT_CDG },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void parse_dims(const char *s, struct troute_faults *f)
{
	const char *p = s;

	f->ndims = 0;
	while (*p) {
		char *end;
		unsigned long v = strtoul(p, &end, 10);

		if (end == p || v < 1 || v > 255 || f->ndims == TORUS_MAX_AXES)
			rdie("--dims: '%s' is not AxBx... of 1..255", s);
		f->dims[f->ndims++] = v;
		p = end;
		if (*p == 'x')
			p++;
		else if (*p)
			rdie("--dims: '%s' is not AxBx... of 1..255", s);
	}
	if (!f->ndims)
		rdie("--dims: empty");
}

static void parse_ropts(int argc, char **argv, struct ropts *o)
{
	const char *mesh = NULL, *wrap = NULL;
	unsigned int a;
	int c;

	memset(o, 0, sizeof(*o));
	o->f.ndims = 3;
	o->f.dims[0] = o->f.dims[1] = o->f.dims[2] = 32;
	o->seed = 1;
	o->runs = 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "jh", ropts_long, NULL)) != -1) {
		switch (c) {
		case OPT_ROUTES:
			if (!strcmp(optarg, "free"))
				o->free_mode = true;
			else if (strcmp(optarg, "paper"))
				rdie("--routes: '%s' is not paper or free",
				     optarg);
			break;
		case OPT_DIMS:
			parse_dims(optarg, &o->f);
			break;
		case OPT_MESH:
			mesh = optarg;
			break;
		case OPT_WRAP:
			wrap = optarg;
			break;
		case OPT_DEAD_COUNT:
			o->dead_count = num("--dead-count", optarg, 1u << 24);
			break;
		case OPT_DEAD_FRAC:
			o->dead_frac = strtod(optarg, NULL);
			if (o->dead_frac < 0 || o->dead_frac >= 1)
				rdie("--dead-frac: '%s' is not in [0, 1)",
				     optarg);
			o->have_frac = true;
			break;
		case OPT_CUT_COUNT:
			o->cut_count = num("--cut-count", optarg, 1u << 24);
			break;
		case OPT_SEED:
			o->seed = num("--seed", optarg, UINT64_MAX);
			break;
		case OPT_RUNS:
			o->runs = num("--runs", optarg, 1000000);
			if (!o->runs)
				rdie("--runs: at least 1");
			break;
		case OPT_FAULTS:
			o->faults_in = optarg;
			break;
		case OPT_FAULTS_OUT:
			o->faults_out = optarg;
			break;
		case OPT_LAMBS:
			o->lambs_in = optarg;
			break;
		case OPT_LAMBS_OUT:
			o->lambs_out = optarg;
			break;
		case OPT_VERIFY:
			o->verify = true;
			break;
		case OPT_TABLE:
			o->table_node = optarg;
			break;
		case OPT_CDG:
			o->cdg = true;
			break;
		case 'j':
			o->json = true;
			break;
		case 'h':
			routes_usage(stdout);
			exit(0);
		default:
			routes_usage(stderr);
			exit(2);
		}
	}
	if (optind < argc)
		rdie("unexpected argument '%s'", argv[optind]);
	if (mesh && wrap)
		rdie("--wrap and --mesh are exclusive");
	o->f.wrap = (1u << o->f.ndims) - 1;
	if (mesh) {
		for (; *mesh; mesh++) {
			const char *p = strchr(axis_names, *mesh);

			if (!p || p - axis_names >= (int)o->f.ndims)
				rdie("--mesh: '%c' is not an axis of --dims",
				     *mesh);
			o->f.wrap &= ~(1u << (p - axis_names));
		}
	}
	if (wrap) {
		o->f.wrap = 0;
		for (a = 0; a < o->f.ndims; a++) {
			if (wrap[0] != '0' && wrap[0] != '1')
				rdie("--wrap: '%s' is not one 0 or 1 per axis",
				     wrap);
			o->f.wrap |= (unsigned int)(wrap[0] - '0') << a;
			wrap++;
			if (a + 1 < o->f.ndims && *wrap++ != ',')
				rdie("--wrap: one 0 or 1 per axis, commas");
		}
		if (*wrap)
			rdie("--wrap: more values than axes");
	}
	if (o->have_frac)
		o->dead_count = (unsigned int)(o->dead_frac *
					       troute_nnodes(&o->f) + 0.5);
	if (o->dead_count >= troute_nnodes(&o->f))
		rdie("--dead-count: %u of %u nodes", o->dead_count,
		     troute_nnodes(&o->f));
}

static uint64_t rng;

static uint64_t rnd(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* read a node list; returns 0, or -1 with a message */
static int read_nodes(const char *path, const struct troute_ctx *c,
		      uint8_t *set)
{
	FILE *fp = fopen(path, "r");
	char line[512];
	unsigned int lineno = 0;

	if (!fp) {
		fprintf(stderr, "torus-sim: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), fp)) {
		unsigned int coord[TORUS_MAX_AXES], a = 0;
		char *p = strchr(line, '#'), *tok, *save;

		lineno++;
		if (p)
			*p = 0;
		for (tok = strtok_r(line, " \t\r\n", &save); tok;
		     tok = strtok_r(NULL, " \t\r\n", &save)) {
			char *end;
			unsigned long v = strtoul(tok, &end, 10);

			if (*end || a == c->f->ndims || v >= c->f->dims[a])
				goto bad;
			coord[a++] = v;
		}
		if (!a)
			continue;
		if (a != c->f->ndims)
			goto bad;
		set[troute_index(c, coord)] = 1;
	}
	fclose(fp);
	return 0;
bad:
	fprintf(stderr, "torus-sim: %s:%u: not %u coordinates inside --dims\n",
		path, lineno, c->f->ndims);
	fclose(fp);
	return -1;
}

static int write_nodes(const char *path, const struct troute_ctx *c,
		       const uint8_t *set, const char *what, uint64_t seed)
{
	FILE *fp = fopen(path, "w");
	unsigned int n, a, coord[TORUS_MAX_AXES];

	if (!fp) {
		fprintf(stderr, "torus-sim: %s: %s\n", path, strerror(errno));
		return -1;
	}
	fprintf(fp, "# torus-sim --routes: %s, seed %llu, dims", what,
		(unsigned long long)seed);
	for (a = 0; a < c->f->ndims; a++)
		fprintf(fp, "%s%u", a ? "x" : " ", c->f->dims[a]);
	fprintf(fp, "\n");
	for (n = 0; n < c->nnodes; n++) {
		if (!set[n])
			continue;
		troute_coord(c, n, coord);
		for (a = 0; a < c->f->ndims; a++)
			fprintf(fp, "%s%u", a ? " " : "", coord[a]);
		fprintf(fp, "\n");
	}
	return fclose(fp) ? -1 : 0;
}

static void random_faults(const struct ropts *o, const struct troute_ctx *c,
			  uint8_t *dead, uint16_t *cut, uint64_t seed)
{
	unsigned int k, n, a, m, e, pos;

	rng = seed;
	for (k = 0; k < o->dead_count;) {
		n = rnd() % c->nnodes;
		if (!dead[n]) {
			dead[n] = 1;
			k++;
		}
	}
	for (k = 0; k < o->cut_count;) {
		n = rnd() % c->nnodes;
		a = rnd() % c->f->ndims;
		e = c->f->dims[a];
		pos = n / c->stride[a] % e;
		if (e < 2 || (!(c->f->wrap & (1u << a)) && pos == e - 1))
			continue;
		if (cut[n] & (1u << TORUS_DIR(a, 0)))
			continue;
		m = n - pos * c->stride[a] + ((pos + 1) % e) * c->stride[a];
		cut[n] |= 1u << TORUS_DIR(a, 0);
		cut[m] |= 1u << TORUS_DIR(a, 1);
		k++;
	}
}

/*
 * CPU time of this thread: the computation is single-threaded, and the
 * figure must not depend on what else the machine runs meanwhile
 */
static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

struct run {
	uint64_t seed;
	unsigned int dead, cuts;
	struct troute_lamb_stats st;
	struct troute_verdict v;
	bool verified;
	unsigned int tab[4], tab_max_hops, tab_node;
	bool tabled;
	struct troute_cdg_result cdg;
	bool cdg_done;
	struct tcoll_tree tree;		/* stats only: arrays freed */
	unsigned int fan_in[2 * TORUS_MAX_AXES + 1];
	double t_sets, t_lambs, t_verify, t_table, t_cdg, t_tree;
};

/* the collectives' combining tree over the survivors, not lambs */
static int coll_tree(const struct troute_faults *f, const uint8_t *lamb,
		     struct run *r)
{
	double t = now_ms();
	unsigned int n;

	if (tcoll_tree_build(f, lamb, &r->tree))
		return -1;
	r->t_tree = now_ms() - t;
	for (n = 0; n < r->tree.nnodes; n++)
		if (!f->dead[n] && !lamb[n])
			r->fan_in[__builtin_popcount(r->tree.children[n])]++;
	tcoll_tree_free(&r->tree);
	return 0;
}

/* the default tree's depth: the fabric's without faults */
static unsigned int tree_depth0(const struct troute_faults *f)
{
	unsigned int a, d = 0;

	for (a = 0; a < f->ndims; a++)
		d += f->wrap & (1u << a) ? f->dims[a] / 2 : f->dims[a] - 1;
	return d;
}

static int table_node(const struct ropts *o, const struct troute_ctx *c,
		      const uint8_t *lamb, unsigned int *node)
{
	unsigned int coord[TORUS_MAX_AXES], a = 0, n;
	const char *p = o->table_node;

	if (!strcmp(p, "first")) {
		for (n = 0; n < c->nnodes; n++)
			if (troute_live(c, n) && !lamb[n]) {
				*node = n;
				return 0;
			}
		return -1;
	}
	while (*p && a < c->f->ndims) {
		char *end;

		coord[a] = strtoul(p, &end, 10);
		if (end == p || coord[a] >= c->f->dims[a])
			rdie("--table: '%s' is not x,y,... inside --dims",
			     o->table_node);
		a++;
		p = *end == ',' ? end + 1 : end;
	}
	if (a != c->f->ndims || *p)
		rdie("--table: '%s' is not x,y,... inside --dims",
		     o->table_node);
	*node = troute_index(c, coord);
	return 0;
}

static int one_run(const struct ropts *o, uint64_t seed, bool first,
		   struct run *r)
{
	struct troute_faults f = o->f;
	struct troute_planset ps;
	struct troute_sets s;
	struct troute_ctx c;
	uint8_t *dead, *lamb;
	uint16_t *cut;
	unsigned int n, nn = troute_nnodes(&f);
	double t;
	int err = -1;

	memset(r, 0, sizeof(*r));
	r->seed = seed;
	dead = calloc(nn, 1);
	lamb = calloc(nn, 1);
	cut = calloc(nn, sizeof(*cut));
	if (!dead || !lamb || !cut) {
		fprintf(stderr, "torus-sim: out of memory\n");
		goto out_free;
	}
	f.dead = dead;
	f.cut = cut;
	if (troute_ctx_init(&c, &f))
		goto out_free;
	random_faults(o, &c, dead, cut, seed);
	if (o->faults_in && read_nodes(o->faults_in, &c, dead))
		goto out_ctx;
	troute_ctx_free(&c); /* the faults changed: reach again */
	if (troute_ctx_init(&c, &f))
		goto out_free;
	for (n = 0; n < nn; n++) {
		r->dead += dead[n];
		r->cuts += __builtin_popcount(cut[n] & 0x5555);
	}
	if (first && o->faults_out &&
	    write_nodes(o->faults_out, &c, dead, "dead nodes", seed))
		goto out_ctx;
	if (o->free_mode)
		troute_planset_free(&f, &ps);
	else
		troute_planset_paper(&f, &ps);
	t = now_ms();
	if (troute_sets_init(&s, &c, &ps))
		goto out_ctx;
	r->t_sets = now_ms() - t;
	t = now_ms();
	if (o->lambs_in) {
		if (read_nodes(o->lambs_in, &c, lamb))
			goto out_sets;
		for (n = 0; n < nn; n++)
			r->st.lambs += lamb[n] && !dead[n];
	} else if (troute_lambs(&c, &s, lamb, &r->st)) {
		goto out_sets;
	}
	r->t_lambs = now_ms() - t;
	if (first && o->lambs_out &&
	    write_nodes(o->lambs_out, &c, lamb, "lambs", seed))
		goto out_sets;
	if (o->verify) {
		t = now_ms();
		if (troute_bad_pairs(&c, &s, lamb, NULL, NULL, &r->v))
			goto out_sets;
		r->t_verify = now_ms() - t;
		r->verified = true;
	}
	if (o->table_node && !table_node(o, &c, lamb, &r->tab_node)) {
		struct troute_route *tab = calloc(nn, sizeof(*tab));

		if (!tab)
			goto out_sets;
		t = now_ms();
		err = troute_table(&c, &ps, lamb, r->tab_node, tab);
		r->t_table = now_ms() - t;
		for (n = 0; n < nn && !err; n++) {
			r->tab[tab[n].kind]++;
			if (tab[n].hops > r->tab_max_hops)
				r->tab_max_hops = tab[n].hops;
		}
		free(tab);
		if (err)
			goto out_sets;
		err = -1;
		r->tabled = true;
	}
	if (coll_tree(&f, lamb, r))
		goto out_sets;
	if (o->cdg) {
		t = now_ms();
		if (troute_cdg_check(&c, &ps, NULL, &r->cdg))
			goto out_sets;
		r->t_cdg = now_ms() - t;
		r->cdg_done = true;
	}
	err = 0;
out_sets:
	troute_sets_free(&s);
out_ctx:
	troute_ctx_free(&c);
out_free:
	free(dead);
	free(lamb);
	free(cut);
	return err;
}

static void print_run_text(const struct run *r)
{
	printf("seed %llu: dead %u cut %u lambs %u (cover %u, %llu bad pairs "
	       "in %u edges)", (unsigned long long)r->seed, r->dead, r->cuts,
	       r->st.lambs, r->st.cover_weight,
	       (unsigned long long)r->st.bad_pairs, r->st.edges);
	if (r->verified)
		printf(" verify: bad %llu one-round %llu two-round %llu "
		       "disconnected %llu", (unsigned long long)r->v.bad,
		       (unsigned long long)r->v.one_round,
		       (unsigned long long)r->v.two_round,
		       (unsigned long long)r->v.disconnected);
	printf(" [sets %.1f ms, lambs %.1f ms", r->t_sets, r->t_lambs);
	if (r->verified)
		printf(", verify %.1f ms", r->t_verify);
	if (r->tabled)
		printf(", table %.1f ms", r->t_table);
	if (r->cdg_done)
		printf(", cdg %.1f ms", r->t_cdg);
	printf("]\n");
	if (r->tabled)
		printf("  table of node %u: %u direct, %u via, %u unreachable, "
		       "max %u hops\n", r->tab_node, r->tab[TROUTE_DIRECT],
		       r->tab[TROUTE_VIA], r->tab[TROUTE_UNREACHABLE],
		       r->tab_max_hops);
	printf("  collective tree: %u members, %u tree%s, depth %u, fan-in "
	       "at most %u [%.1f ms]\n", r->tree.members, r->tree.roots,
	       r->tree.roots == 1 ? "" : "s", r->tree.max_depth,
	       r->tree.max_fan_in, r->t_tree);
	if (r->cdg_done)
		printf("  cdg: %llu channels, %llu dependencies, %s\n",
		       (unsigned long long)r->cdg.channels,
		       (unsigned long long)r->cdg.deps,
		       r->cdg.acyclic ? "acyclic" : "CYCLE");
}

static void jnum(struct json_writer *jw, const char *name, uint64_t v)
{
	jsonw_name(jw, name);
	jsonw_u64(jw, v);
}

static void jflt(struct json_writer *jw, const char *name, double v)
{
	jsonw_name(jw, name);
	jsonw_float(jw, "%.3f", v);
}

static void print_run_json(struct json_writer *jw, const struct run *r)
{
	unsigned int i;

	jsonw_start_object(jw);
	jnum(jw, "seed", r->seed);
	jnum(jw, "dead", r->dead);
	jnum(jw, "cut", r->cuts);
	jnum(jw, "lambs", r->st.lambs);
	jnum(jw, "cover_weight", r->st.cover_weight);
	jnum(jw, "lower_bound", r->st.lower_bound);
	jnum(jw, "bad_pairs_before", r->st.bad_pairs);
	jnum(jw, "edges", r->st.edges);
	if (r->verified) {
		jsonw_name(jw, "verify");
		jsonw_start_object(jw);
		jnum(jw, "survivors", r->v.survivors);
		jnum(jw, "pairs", r->v.pairs);
		jnum(jw, "one_round", r->v.one_round);
		jnum(jw, "two_round", r->v.two_round);
		jnum(jw, "bad", r->v.bad);
		jnum(jw, "disconnected", r->v.disconnected);
		jsonw_end_object(jw);
	}
	if (r->tabled) {
		jsonw_name(jw, "table");
		jsonw_start_object(jw);
		jnum(jw, "node", r->tab_node);
		jnum(jw, "direct", r->tab[TROUTE_DIRECT]);
		jnum(jw, "via", r->tab[TROUTE_VIA]);
		jnum(jw, "unreachable", r->tab[TROUTE_UNREACHABLE]);
		jnum(jw, "max_hops", r->tab_max_hops);
		jsonw_end_object(jw);
	}
	if (r->cdg_done) {
		jsonw_name(jw, "cdg");
		jsonw_start_object(jw);
		jnum(jw, "channels", r->cdg.channels);
		jnum(jw, "dependencies", r->cdg.deps);
		jsonw_name(jw, "acyclic");
		jsonw_bool(jw, r->cdg.acyclic);
		jsonw_end_object(jw);
	}
	jsonw_name(jw, "coll_tree");
	jsonw_start_object(jw);
	jnum(jw, "members", r->tree.members);
	jnum(jw, "roots", r->tree.roots);
	jnum(jw, "max_depth", r->tree.max_depth);
	jnum(jw, "max_fan_in", r->tree.max_fan_in);
	jsonw_name(jw, "fan_in");
	jsonw_start_array(jw);
	for (i = 0; i <= r->tree.max_fan_in; i++)
		jsonw_u64(jw, r->fan_in[i]);
	jsonw_end_array(jw);
	jsonw_end_object(jw);
	jsonw_name(jw, "time_ms");
	jsonw_start_object(jw);
	jflt(jw, "sets", r->t_sets);
	jflt(jw, "lambs", r->t_lambs);
	jflt(jw, "verify", r->t_verify);
	jflt(jw, "table", r->t_table);
	jflt(jw, "cdg", r->t_cdg);
	jflt(jw, "coll_tree", r->t_tree);
	jsonw_end_object(jw);
	jsonw_end_object(jw);
}

bool sim_routes_requested(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (!strncmp(argv[i], "--routes", 8))
			return true;
	return false;
}

int sim_routes_main(int argc, char **argv)
{
	double lsum = 0, csum = 0, tsum = 0, tabsum = 0;
	unsigned int i, lmin = UINT32_MAX, lmax = 0, a;
	unsigned int dmax = 0, fmax = 0, rmax = 0;
	uint64_t bad_total = 0;
	bool cycle = false;
	struct json_writer *jw = NULL;
	struct run *runs;
	struct ropts o;

	parse_ropts(argc, argv, &o);
	runs = calloc(o.runs, sizeof(*runs));
	if (!runs)
		return 1;
	for (i = 0; i < o.runs; i++) {
		struct run *r = &runs[i];

		if (one_run(&o, o.seed + i, i == 0, r)) {
			fprintf(stderr, "torus-sim: run %u failed\n", i);
			return 1;
		}
		if (!o.json)
			print_run_text(r);
		lsum += r->st.lambs;
		csum += r->st.cover_weight;
		tsum += r->t_sets + r->t_lambs;
		tabsum += r->t_table;
		lmin = r->st.lambs < lmin ? r->st.lambs : lmin;
		lmax = r->st.lambs > lmax ? r->st.lambs : lmax;
		bad_total += r->v.bad;
		cycle |= r->cdg_done && !r->cdg.acyclic;
		dmax = r->tree.max_depth > dmax ? r->tree.max_depth : dmax;
		fmax = r->tree.max_fan_in > fmax ? r->tree.max_fan_in : fmax;
		rmax = r->tree.roots > rmax ? r->tree.roots : rmax;
	}
	if (!o.json) {
		printf("%s mode, %u runs: lambs mean %.3f min %u max %u; cover "
		       "(class-model optimum) mean %.3f; lamb set %.1f ms/run",
		       o.free_mode ? "free" : "paper", o.runs, lsum / o.runs,
		       lmin, lmax, csum / o.runs, tsum / o.runs);
		if (o.table_node)
			printf(", table %.1f ms/run", tabsum / o.runs);
		if (o.verify)
			printf("; verifier: %llu bad pairs",
			       (unsigned long long)bad_total);
		printf("; collective tree depth at most %u (%u without "
		       "faults), fan-in at most %u, %u tree%s at most\n", dmax,
		       tree_depth0(&o.f), fmax, rmax, rmax == 1 ? "" : "s");
	} else {
		jw = jsonw_new(stdout);
		jsonw_start_object(jw);
		jsonw_name(jw, "mode");
		jsonw_string(jw, o.free_mode ? "free" : "paper");
		jsonw_name(jw, "dims");
		jsonw_start_array(jw);
		for (a = 0; a < o.f.ndims; a++)
			jsonw_u64(jw, o.f.dims[a]);
		jsonw_end_array(jw);
		jsonw_name(jw, "wrap");
		jsonw_start_array(jw);
		for (a = 0; a < o.f.ndims; a++)
			jsonw_u64(jw, o.f.wrap >> a & 1);
		jsonw_end_array(jw);
		jnum(jw, "runs", o.runs);
		jnum(jw, "dead_count", runs[0].dead);
		jnum(jw, "cut_count", o.cut_count);
		jsonw_name(jw, "lambs");
		jsonw_start_object(jw);
		jflt(jw, "mean", lsum / o.runs);
		jnum(jw, "min", lmin);
		jnum(jw, "max", lmax);
		jsonw_end_object(jw);
		jflt(jw, "cover_weight_mean", csum / o.runs);
		jflt(jw, "lamb_ms_mean", tsum / o.runs);
		jflt(jw, "table_ms_mean", tabsum / o.runs);
		jnum(jw, "verify_bad_total", bad_total);
		jsonw_name(jw, "coll_tree");
		jsonw_start_object(jw);
		jnum(jw, "max_depth", dmax);
		jnum(jw, "fault_free_depth", tree_depth0(&o.f));
		jnum(jw, "max_fan_in", fmax);
		jnum(jw, "max_roots", rmax);
		jsonw_end_object(jw);
		jsonw_name(jw, "per_run");
		jsonw_start_array(jw);
		for (i = 0; i < o.runs; i++)
			print_run_json(jw, &runs[i]);
		jsonw_end_array(jw);
		jsonw_end_object(jw);
		jsonw_destroy(&jw);
		printf("\n");
	}
	free(runs);
	return bad_total || cycle ? 1 : 0;
}
