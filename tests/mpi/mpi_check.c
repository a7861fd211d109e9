// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mpi_check - an MPI program that checks every collective result against
 * what it computes itself, for libtorus_mpi.so (tests/vm/mpi_test.py).
 *
 *	mpirun ... mpi_check [-d XxYxZ] [-q | -l] [-f] [-p]
 *
 * Every predefined type with every op MPI allows on it at 7 elements;
 * counts 0, 1 and 8,192 for one op per type and every op on int and
 * double; 131,072 elements (1 MiB of doubles) for int and double sums;
 * MPI_IN_PLACE; MPI_Reduce and MPI_Bcast to and from a rank other than
 * 0; value-index pairs; MPI_COMM_WORLD split into lines (ranks ordered
 * as the fabric's, x fastest; -d gives the extents, default 3x3x3),
 * planes and an irregular set; the nonblocking forms, several at once
 * beside point-to-point transfers; a user-defined op and a derived type
 * (which the shim leaves to the MPI library).  -l runs every type and op
 * at every count up to 131,072; -q a sample of each kind of call; -f
 * only the cases the fabric cannot serve; -p adds a communicator freed
 * while its nonblocking allreduce is pending.
 *
 * Floating sums are checked against the correctly rounded exact sum
 * (msum, as Python's math.fsum), products against exact ones.  Results
 * are gathered with MPI_Gather, which the shim does not intercept.
 * Rank 0 prints "ok NAME" or "not ok NAME: ..." per case, and
 * "N passed, M failed"; the exit status is 1 if a case failed.
 */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

enum cls { INTEGER, FLOATING, BYTE, LOGICAL };

struct type {
	const char *name;
	MPI_Datatype dt;
	enum cls cls;
	int width;		/* bytes */
	bool is_signed;
};

struct op {
	const char *name;
	MPI_Op op;
};

static int me, nranks, passed, failed;
static bool free_pending;	/* -p */
static double t_start;

#define NTYPES 25
/* entries of types[] that cases name */
enum { T_SHORT = 3, T_INT = 5, T_LONG = 7, T_INT64 = 14, T_FLOAT = 19,
       T_DOUBLE = 20 };
static struct type types[NTYPES];
static struct op ops[10];

static void setup_tables(void)
{
	const struct type t[NTYPES] = {
		{ "char", MPI_CHAR, INTEGER, 1, (char)-1 < 0 },
		{ "signed_char", MPI_SIGNED_CHAR, INTEGER, 1, true },
		{ "unsigned_char", MPI_UNSIGNED_CHAR, INTEGER, 1, false },
		{ "short", MPI_SHORT, INTEGER, sizeof(short), true },
		{ "unsigned_short", MPI_UNSIGNED_SHORT, INTEGER, sizeof(short),
		  false },
		{ "int", MPI_INT, INTEGER, sizeof(int), true },
		{ "unsigned", MPI_UNSIGNED, INTEGER, sizeof(int), false },
		{ "long", MPI_LONG, INTEGER, sizeof(long), true },
		{ "unsigned_long", MPI_UNSIGNED_LONG, INTEGER, sizeof(long),
		  false },
		{ "long_long", MPI_LONG_LONG, INTEGER, sizeof(long long), true },
		{ "unsigned_long_long", MPI_UNSIGNED_LONG_LONG, INTEGER,
		  sizeof(long long), false },
		{ "int8_t", MPI_INT8_T, INTEGER, 1, true },
		{ "int16_t", MPI_INT16_T, INTEGER, 2, true },
		{ "int32_t", MPI_INT32_T, INTEGER, 4, true },
		{ "int64_t", MPI_INT64_T, INTEGER, 8, true },
		{ "uint8_t", MPI_UINT8_T, INTEGER, 1, false },
		{ "uint16_t", MPI_UINT16_T, INTEGER, 2, false },
		{ "uint32_t", MPI_UINT32_T, INTEGER, 4, false },
		{ "uint64_t", MPI_UINT64_T, INTEGER, 8, false },
		{ "float", MPI_FLOAT, FLOATING, 4, true },
		{ "double", MPI_DOUBLE, FLOATING, 8, true },
		{ "byte", MPI_BYTE, BYTE, 1, false },
		{ "c_bool", MPI_C_BOOL, LOGICAL, sizeof(_Bool), false },
		{ "aint", MPI_AINT, INTEGER, sizeof(MPI_Aint), true },
		{ "offset", MPI_OFFSET, INTEGER, sizeof(MPI_Offset), true },
	};
	const struct op o[10] = {
		{ "sum", MPI_SUM }, { "prod", MPI_PROD }, { "min", MPI_MIN },
		{ "max", MPI_MAX }, { "band", MPI_BAND }, { "bor", MPI_BOR },
		{ "bxor", MPI_BXOR }, { "land", MPI_LAND }, { "lor", MPI_LOR },
		{ "lxor", MPI_LXOR },
	};

	memcpy(types, t, sizeof(t));
	memcpy(ops, o, sizeof(o));
}

static bool allowed(const struct type *t, int opi)
{
	if (opi < 4)
		return t->cls == INTEGER || t->cls == FLOATING;
	if (opi < 7)
		return t->cls == INTEGER || t->cls == BYTE;
	return t->cls == INTEGER || t->cls == LOGICAL;
}

static uint32_t mix(uint32_t a, uint32_t b)
{
	uint32_t h = a * 0x9e3779b1u ^ (b + 0x7f4a7c15u) * 0x85ebca6bu;

	h ^= h >> 15;
	h *= 0xc2b2ae35u;
	return h ^ (h >> 13);
}

/* rank r's element k for op opi, chosen so that nothing overflows */
static int64_t int_value(const struct type *t, int opi, int r, size_t k)
{
	uint32_t h = mix((uint32_t)r, (uint32_t)k);

	switch (opi) {
	case 0:	/* sum: |sum| <= 4 per rank */
		return t->is_signed ? (int64_t)(h % 9) - 4 : h % 9;
	case 1:	/* prod: a few 2s and -1s */
		if (h % 11 == 0)
			return 2;
		return t->is_signed && h % 7 == 0 ? -1 : 1;
	case 2:
	case 3:
		return t->is_signed ? (int64_t)(h % 201) - 100 : h % 201;
	case 4:
	case 5:
	case 6:
		return t->width == 8 ? (int64_t)((uint64_t)h << 32 | mix(h, 1)) :
			(int64_t)(h & (t->width == 4 ? 0xffffffffu :
				       (1u << (8 * t->width)) - 1));
	default:	/* logical: zero now and then */
		return h % 13 == 0 ? 0 : (int64_t)(h % 3 + 1);
	}
}

static double float_value(const struct type *t, int opi, int r, size_t k)
{
	uint32_t h = mix((uint32_t)r, (uint32_t)k);

	switch (opi) {
	case 0:
		if (t->width == 4)	/* the exact sum fits a double */
			return r % 3 == 0 ? 16777216.0 : r % 3 == 1 ?
				1.0 + (h % 8) * 0.125 : -16777216.0;
		/* cancellation over 100 binades: a naive sum loses it */
		return r % 3 == 0 ? 1e16 : r % 3 == 1 ?
			ldexp((double)(h % 1000) - 500, -(int)(h % 60)) : -1e16;
	case 1:
		return h % 5 == 0 ? 2.0 : h % 5 == 1 ? 0.5 :
			h % 5 == 2 ? -1.0 : 1.0;
	default:
		return ((double)(h % 20001) - 10000) / 64.0;
	}
}

static void store(const struct type *t, void *buf, size_t k, int64_t iv,
		  double fv)
{
	char *p = (char *)buf + k * t->width;

	if (t->cls == FLOATING) {
		if (t->width == 4) {
			float f = (float)fv;

			memcpy(p, &f, 4);
		} else {
			memcpy(p, &fv, 8);
		}
		return;
	}
	if (t->cls == LOGICAL) {
		_Bool b = iv != 0;

		memcpy(p, &b, sizeof(b));
		return;
	}
	/* little-endian truncation to the type's width */
	memcpy(p, &iv, t->width);
}

/* msum: the correctly rounded sum of @n doubles */
static double exact_sum(const double *x, int n)
{
	double part[64], hi = 0, lo = 0;
	int np = 0, i, j;

	for (i = 0; i < n; i++) {
		double v = x[i];
		int k = 0;

		for (j = 0; j < np; j++) {
			double y = part[j], h, l;

			if (fabs(v) < fabs(y)) {
				double tmp = v;

				v = y;
				y = tmp;
			}
			h = v + y;
			l = y - (h - v);
			if (l != 0)
				part[k++] = l;
			v = h;
		}
		part[k++] = v;
		np = k;
	}
	if (!np)
		return 0;
	hi = part[--np];
	while (np > 0) {
		double v = hi, y = part[--np];

		hi = v + y;
		lo = y - (hi - v);
		if (lo != 0)
			break;
	}
	if (np > 0 && ((lo < 0 && part[np - 1] < 0) ||
		       (lo > 0 && part[np - 1] > 0))) {
		double y = lo * 2, v = hi + y;

		if (y == v - hi)
			hi = v;
	}
	return hi;
}

/* the expected element k of op opi over ranks @rank[0..n) */
static void expect(const struct type *t, int opi, const int *rank, int n,
		   void *buf, size_t k)
{
	double fv[1024] = { 0 };
	int64_t iv = 0;
	double f = 0;
	int i;

	if (t->cls == FLOATING) {
		for (i = 0; i < n; i++)
			fv[i] = t->width == 4 ?
				(double)(float)float_value(t, opi, rank[i], k) :
				float_value(t, opi, rank[i], k);
		f = fv[0];
		for (i = 1; i < n; i++)
			f = opi == 1 ? f * fv[i] : opi == 2 ? fmin(f, fv[i]) :
				opi == 3 ? fmax(f, fv[i]) : f;
		if (opi == 0)
			f = exact_sum(fv, n);
		store(t, buf, k, 0, f);
		return;
	}
	for (i = 0; i < n; i++) {
		int64_t v = int_value(t, opi, rank[i], k);

		/* a single rank's data comes back as it is */
		if ((t->cls == LOGICAL || opi >= 7) && n > 1)
			v = v != 0;
		if (!i) {
			iv = v;
			continue;
		}
		switch (opi) {
		case 0: iv += v; break;
		case 1: iv *= v; break;
		case 2: iv = t->is_signed ? (v < iv ? v : iv) :
			((uint64_t)v < (uint64_t)iv ? v : iv); break;
		case 3: iv = t->is_signed ? (v > iv ? v : iv) :
			((uint64_t)v > (uint64_t)iv ? v : iv); break;
		case 4: iv &= v; break;
		case 5: iv |= v; break;
		case 6: iv ^= v; break;
		case 7: iv = iv && v; break;
		case 8: iv = iv || v; break;
		default: iv = !iv != !v; break;
		}
	}
	store(t, buf, k, iv, 0);
}

static void fill(const struct type *t, int opi, int r, void *buf,
		 size_t count)
{
	size_t k;

	for (k = 0; k < count; k++)
		store(t, buf, k, t->cls == FLOATING ? 0 :
		      int_value(t, opi, r, k),
		      t->cls == FLOATING ? float_value(t, opi, r, k) : 0);
}

#define MAX_CASES 4096

/* the cases in the order every rank runs them, and this rank's verdicts */
static char *case_name[MAX_CASES];
static int case_ok[MAX_CASES], ncases;

static void world_verdict(const char *name, bool ok, const char *why)
{
	if (ncases == MAX_CASES)
		abort();
	if (!ok)
		fprintf(stderr, "rank %d: %s: %s\n", me, name, why);
	if (!me) {	/* progress, for a run that hangs or is slow */
		printf("# %.3f %s\n", MPI_Wtime() - t_start, name);
		fflush(stdout);
	}
	case_name[ncases] = strdup(name);
	case_ok[ncases++] = ok;
}

/* every rank's verdicts, gathered once, without the shim */
static void report(void)
{
	int *all = NULL, i, r;

	if (!me)
		all = malloc((size_t)ncases * nranks * sizeof(*all));
	MPI_Gather(case_ok, ncases, MPI_INT, all, ncases, MPI_INT, 0,
		   MPI_COMM_WORLD);
	for (i = 0; i < ncases; i++) {
		int bad = -1;

		for (r = 0; !me && r < nranks && bad < 0; r++)
			if (!all[r * ncases + i])
				bad = r;
		if (!me && bad < 0) {
			passed++;
			printf("ok %s\n", case_name[i]);
		} else if (!me) {
			failed++;
			printf("not ok %s: rank %d (its stderr says why)\n",
			       case_name[i], bad);
		}
		free(case_name[i]);
	}
	free(all);
}

static void world_ranks(MPI_Comm comm, int *rank, int n)
{
	MPI_Group g, w;
	int i, *in = malloc(n * sizeof(*in));

	for (i = 0; i < n; i++)
		in[i] = i;
	MPI_Comm_group(comm, &g);
	MPI_Comm_group(MPI_COMM_WORLD, &w);
	MPI_Group_translate_ranks(g, n, in, w, rank);
	MPI_Group_free(&g);
	MPI_Group_free(&w);
	free(in);
}

/*
 * Whether @got holds op @opi of type @t over the ranks @rank[0..n): at
 * most 8,192 elements every one, beyond that each rank one in 16 (all
 * of them checked by some rank).
 */
static bool result_ok(const struct type *t, int opi, const int *rank, int n,
		      const void *got, size_t count, char *why, size_t whylen)
{
	char *want = malloc(count * t->width + 1);
	bool ok = true;
	size_t k;

	for (k = 0; k < count && ok; k++) {
		if (count > 8192 && (k + (size_t)me) % 16)
			continue;
		expect(t, opi, rank, n, want, k);
		if (memcmp(want + k * t->width, (const char *)got + k * t->width,
			   t->width)) {
			snprintf(why, whylen, "element %zu differs", k);
			ok = false;
		}
	}
	free(want);
	return ok;
}

/* MPI_Allreduce (and MPI_IN_PLACE, and MPI_Reduce to the last rank) */
static bool reduce_ok(MPI_Comm comm, const struct type *t, int opi,
			 size_t count, bool in_place, bool reduce,
			 char *why, size_t whylen)
{
	int n, r, *rank, root, rc;
	char *send, *recv;
	bool ok = true;

	MPI_Comm_size(comm, &n);
	MPI_Comm_rank(comm, &r);
	root = n - 1;
	rank = malloc(n * sizeof(*rank));
	world_ranks(comm, rank, n);
	send = malloc(count * t->width + 1);
	recv = malloc(count * t->width + 1);
	fill(t, opi, me, send, count);
	memset(recv, 0x5a, count * t->width);
	if (in_place)
		memcpy(recv, send, count * t->width);
	if (reduce)
		rc = MPI_Reduce(in_place && r == root ? MPI_IN_PLACE : send,
				recv, (int)count, t->dt, ops[opi].op, root,
				comm);
	else
		rc = MPI_Allreduce(in_place ? MPI_IN_PLACE : send, recv,
				   (int)count, t->dt, ops[opi].op, comm);
	if (rc != MPI_SUCCESS) {
		snprintf(why, whylen, "MPI error %d", rc);
		ok = false;
	} else if (!reduce || r == root) {
		ok = result_ok(t, opi, rank, n, recv, count, why, whylen);
	}
	free(send);
	free(recv);
	free(rank);
	return ok;
}

static bool bcast_ok(MPI_Comm comm, const struct type *t, size_t count,
			char *why, size_t whylen)
{
	int n, r, root, rc, rootw;
	char *buf, *want;
	bool ok = true;

	MPI_Comm_size(comm, &n);
	MPI_Comm_rank(comm, &r);
	root = 1 % n;
	{
		int *rank = malloc(n * sizeof(*rank));

		world_ranks(comm, rank, n);
		rootw = rank[root];
		free(rank);
	}
	buf = malloc(count * t->width + 1);
	want = malloc(count * t->width + 1);
	fill(t, 4, rootw, want, count);
	if (r == root)
		memcpy(buf, want, count * t->width);
	else
		memset(buf, 0x5a, count * t->width);
	rc = MPI_Bcast(buf, (int)count, t->dt, root, comm);
	if (rc != MPI_SUCCESS) {
		snprintf(why, whylen, "MPI error %d", rc);
		ok = false;
	} else if (memcmp(buf, want, count * t->width)) {
		snprintf(why, whylen, "the data differs from the root's");
		ok = false;
	}
	free(buf);
	free(want);
	return ok;
}

struct pair_type {
	const char *name;
	MPI_Datatype dt;
	size_t extent, idx_off;
	int vtype;	/* index into types[] of the value's type */
};

struct fi { float v; int i; };
struct di { double v; int i; };
struct li { long v; int i; };
struct ii { int v; int i; };
struct si { short v; int i; };

/* MINLOC/MAXLOC: value ties on purpose, indices unrelated to ranks */
static bool loc_ok(MPI_Comm comm, const struct pair_type *p, bool max,
		      size_t count, char *why, size_t whylen)
{
	int n, r, i, *rank;
	char *send, *recv;
	bool ok = true;
	size_t k;

	MPI_Comm_size(comm, &n);
	MPI_Comm_rank(comm, &r);
	rank = malloc(n * sizeof(*rank));
	world_ranks(comm, rank, n);
	send = calloc(count + 1, p->extent);
	recv = calloc(count + 1, p->extent);
	for (k = 0; k < count; k++) {
		uint32_t h = mix((uint32_t)me, (uint32_t)k);
		double v = (double)(h % 5) - 2;
		int idx = (int)(mix(h, 7) % 1000) - 500;
		char *e = send + k * p->extent;

		if (p->vtype == T_FLOAT) {
			float f = (float)v;

			memcpy(e, &f, sizeof(f));
		} else if (p->vtype == T_DOUBLE) {
			memcpy(e, &v, sizeof(v));
		} else {
			int64_t iv = (int64_t)v;

			memcpy(e, &iv, types[p->vtype].width);
		}
		memcpy(e + p->idx_off, &idx, sizeof(idx));
	}
	if (MPI_Allreduce(send, recv, (int)count, p->dt,
			  max ? MPI_MAXLOC : MPI_MINLOC, comm) != MPI_SUCCESS) {
		snprintf(why, whylen, "MPI error");
		ok = false;
	}
	for (k = 0; k < count && ok; k++) {
		double best = 0;
		int bidx = 0, got_idx;
		int64_t got_iv = 0;
		double got;

		for (i = 0; i < n; i++) {
			uint32_t h = mix((uint32_t)rank[i], (uint32_t)k);
			double v = (double)(h % 5) - 2;
			int idx = (int)(mix(h, 7) % 1000) - 500;

			if (!i || (max ? v > best : v < best) ||
			    (v == best && idx < bidx)) {
				best = v;
				bidx = idx;
			}
		}
		if (p->vtype == T_FLOAT) {
			float f;

			memcpy(&f, recv + k * p->extent, sizeof(f));
			got = f;
		} else if (p->vtype == T_DOUBLE) {
			memcpy(&got, recv + k * p->extent, sizeof(got));
		} else {
			memcpy(&got_iv, recv + k * p->extent,
			       types[p->vtype].width);
			if (types[p->vtype].width == 2)
				got_iv = (int16_t)got_iv;
			else if (types[p->vtype].width == 4)
				got_iv = (int32_t)got_iv;
			got = (double)got_iv;
		}
		memcpy(&got_idx, recv + k * p->extent + p->idx_off,
		       sizeof(got_idx));
		if (got != best || got_idx != bidx) {
			snprintf(why, whylen, "element %zu: (%g, %d), want (%g, %d)",
				 k, got, got_idx, best, bidx);
			ok = false;
		}
	}
	free(send);
	free(recv);
	free(rank);
	return ok;
}

/*
 * One case each, named after what it runs: [TAG](all)reduce[_in_place]
 * _TYPE_OP_COUNT, [TAG]bcast_TYPE_COUNT, allreduce_PAIR_minloc_COUNT.
 */
static void reduce_case(MPI_Comm comm, const char *tag, unsigned int ti,
			int opi, size_t count, bool in_place, bool reduce)
{
	char name[160], why[160] = "";
	bool ok = reduce_ok(comm, &types[ti], opi, count, in_place, reduce,
			    why, sizeof(why));

	snprintf(name, sizeof(name), "%s%sreduce%s_%s_%s_%zu", tag,
		 reduce ? "" : "all", in_place ? "_in_place" : "",
		 types[ti].name, ops[opi].name, count);
	world_verdict(name, ok, why);
}

static void bcast_case(MPI_Comm comm, const char *tag, unsigned int ti,
		       size_t count)
{
	char name[160], why[160] = "";
	bool ok = bcast_ok(comm, &types[ti], count, why, sizeof(why));

	snprintf(name, sizeof(name), "%sbcast_%s_%zu", tag, types[ti].name,
		 count);
	world_verdict(name, ok, why);
}

static void loc_case(const struct pair_type *p, bool max, size_t count)
{
	char name[160], why[160] = "";
	bool ok = loc_ok(MPI_COMM_WORLD, p, max, count, why, sizeof(why));

	snprintf(name, sizeof(name), "allreduce_%s_%s_%zu", p->name,
		 max ? "maxloc" : "minloc", count);
	world_verdict(name, ok, why);
}

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	int i;

	(void)dt;
	for (i = 0; i < *len; i++)
		((int *)inout)[i] += ((int *)in)[i];
}

/* what the fabric cannot serve: the MPI library must still be right */
static void fallback_cases(void)
{
	char name[128], why[160] = "";
	int pairs[16], got[16], i;
	MPI_Datatype two;
	MPI_Op op;
	bool ok;

	MPI_Op_create(user_sum, 1, &op);
	for (i = 0; i < 16; i++)
		pairs[i] = me + i;
	ok = MPI_Allreduce(pairs, got, 16, MPI_INT, op, MPI_COMM_WORLD) ==
		MPI_SUCCESS;
	for (i = 0; i < 16 && ok; i++)
		if (got[i] != nranks * (nranks - 1) / 2 + nranks * i) {
			snprintf(why, sizeof(why), "element %d", i);
			ok = false;
		}
	snprintf(name, sizeof(name), "fallback_user_op_allreduce");
	world_verdict(name, ok, why);
	MPI_Op_free(&op);

	MPI_Type_contiguous(2, MPI_INT, &two);
	MPI_Type_commit(&two);
	for (i = 0; i < 16; i++)
		pairs[i] = me == 1 % nranks ? 1000 + i : -1;
	ok = MPI_Bcast(pairs, 8, two, 1 % nranks, MPI_COMM_WORLD) ==
		MPI_SUCCESS;
	for (i = 0; i < 16 && ok; i++)
		if (pairs[i] != 1000 + i) {
			snprintf(why, sizeof(why), "element %d", i);
			ok = false;
		}
	world_verdict("fallback_derived_type_bcast", ok, why);
	MPI_Type_free(&two);
}

/* @got as op @opi of types[@ti] over every rank of MPI_COMM_WORLD */
static bool world_result_ok(unsigned int ti, int opi, const void *got,
			    size_t count, char *why, size_t whylen)
{
	int *rank = malloc(nranks * sizeof(*rank));
	bool ok;
	int i;

	for (i = 0; i < nranks; i++)
		rank[i] = i;
	ok = result_ok(&types[ti], opi, rank, nranks, got, count, why,
		       whylen);
	free(rank);
	return ok;
}

#define P2P_BYTES	(1 << 20)	/* beyond any MPI's eager limit */

/*
 * The nonblocking forms, several outstanding at once: completed by
 * MPI_Waitall together with a ring exchange of 1 MiB messages posted
 * first, by an MPI_Test loop, by MPI_Waitany and MPI_Waitsome; and a
 * collective that one rank joins only after a large message from
 * another, which that other sends while its collective is pending (the
 * shim's wait must keep the MPI library's progress going).
 */
static void nonblocking_cases(void)
{
	const int root = nranks - 1, broot = 1 % nranks;
	const size_t n = 8192;
	char why[160] = "";
	MPI_Request req[6];
	MPI_Status st[6];	/* not MPI_STATUSES_IGNORE: GCC takes MPICH's
				 * for an array of size 0 */
	char *sbuf, *rbuf;
	int32_t *ai, *ai_in, *mm[3], done;
	double *bd, *want_bd, *ad;
	int64_t *rl, *rl_in;
	size_t k;
	int i, idx, out, ids[3];
	bool ok;

	sbuf = malloc(P2P_BYTES);
	rbuf = malloc(P2P_BYTES);
	ai_in = malloc(n * sizeof(*ai_in));
	ai = malloc(n * sizeof(*ai));
	bd = malloc(n * sizeof(*bd));
	want_bd = malloc(n * sizeof(*want_bd));
	rl_in = malloc(7 * sizeof(*rl_in));
	rl = malloc(7 * sizeof(*rl));
	for (k = 0; k < P2P_BYTES; k++)
		sbuf[k] = (char)(me * 31 + k);
	memset(rbuf, 0, P2P_BYTES);
	fill(&types[T_INT], 0, me, ai_in, n);
	fill(&types[T_DOUBLE], 4, broot, want_bd, n);
	if (me == broot)
		memcpy(bd, want_bd, n * sizeof(*bd));
	else
		memset(bd, 0x5a, n * sizeof(*bd));
	fill(&types[T_INT64], 3, me, rl_in, 7);
	MPI_Irecv(rbuf, P2P_BYTES, MPI_CHAR, (me + nranks - 1) % nranks, 7,
		  MPI_COMM_WORLD, &req[0]);
	MPI_Isend(sbuf, P2P_BYTES, MPI_CHAR, (me + 1) % nranks, 7,
		  MPI_COMM_WORLD, &req[1]);
	MPI_Iallreduce(ai_in, ai, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
		       &req[2]);
	MPI_Ibcast(bd, (int)n, MPI_DOUBLE, broot, MPI_COMM_WORLD, &req[3]);
	MPI_Ireduce(rl_in, rl, 7, MPI_INT64_T, MPI_MAX, root, MPI_COMM_WORLD,
		    &req[4]);
	MPI_Ibarrier(MPI_COMM_WORLD, &req[5]);
	ok = MPI_Waitall(6, req, st) == MPI_SUCCESS;
	if (!ok)
		snprintf(why, sizeof(why), "MPI error");
	for (k = 0; k < P2P_BYTES && ok; k++)
		if (rbuf[k] != (char)(((me + nranks - 1) % nranks) * 31 + k)) {
			snprintf(why, sizeof(why), "message byte %zu", k);
			ok = false;
		}
	ok = ok && world_result_ok(T_INT, 0, ai, n, why, sizeof(why));
	if (ok && memcmp(bd, want_bd, n * sizeof(*bd))) {
		snprintf(why, sizeof(why), "ibcast: the data differs");
		ok = false;
	}
	ok = ok && (me != root ||
		    world_result_ok(T_INT64, 3, rl, 7, why, sizeof(why)));
	world_verdict("nonblocking_waitall_with_a_ring_exchange", ok, why);

	/* an MPI_Test loop: 1 MiB of doubles, summed exactly */
	ad = malloc(131072 * sizeof(*ad));
	fill(&types[T_DOUBLE], 0, me, ad, 131072);
	ok = MPI_Iallreduce(MPI_IN_PLACE, ad, 131072, MPI_DOUBLE, MPI_SUM,
			    MPI_COMM_WORLD, &req[0]) == MPI_SUCCESS;
	for (done = 0; ok && !done; )
		ok = MPI_Test(&req[0], &done, MPI_STATUS_IGNORE) ==
			MPI_SUCCESS;
	ok = ok && world_result_ok(T_DOUBLE, 0, ad, 131072, why, sizeof(why));
	world_verdict("nonblocking_test_loop_allreduce_double_sum_131072", ok,
		      why);
	free(ad);

	/*
	 * a long nonblocking allreduce on MPI_COMM_WORLD that rank 0 drives
	 * with MPI_Test for a while, and meanwhile a blocking one on a
	 * duplicate of it (the same nodes, so the same group of the
	 * module): every rank must join them in the same order
	 */
	{
		MPI_Comm dup;
		int32_t small[7];

		MPI_Comm_dup(MPI_COMM_WORLD, &dup);
		ok = MPI_Barrier(dup) == MPI_SUCCESS;
		ad = malloc(131072 * sizeof(*ad));
		fill(&types[T_DOUBLE], 0, me, ad, 131072);
		fill(&types[T_INT], 0, me, small, 7);
		ok = ok && MPI_Iallreduce(MPI_IN_PLACE, ad, 131072, MPI_DOUBLE,
					  MPI_SUM, MPI_COMM_WORLD, &req[0]) ==
			MPI_SUCCESS;
		for (i = 0, done = 0; ok && me == 0 && !done && i < 200; i++) {
			ok = MPI_Test(&req[0], &done, MPI_STATUS_IGNORE) ==
				MPI_SUCCESS;
			usleep(2000);
		}
		ok = ok && MPI_Allreduce(MPI_IN_PLACE, small, 7, MPI_INT,
					 MPI_SUM, dup) == MPI_SUCCESS;
		ok = ok && MPI_Wait(&req[0], MPI_STATUS_IGNORE) == MPI_SUCCESS;
		ok = ok && world_result_ok(T_INT, 0, small, 7, why,
					   sizeof(why));
		ok = ok && world_result_ok(T_DOUBLE, 0, ad, 131072, why,
					   sizeof(why));
		world_verdict("nonblocking_long_call_then_another_comm_same_nodes",
			      ok, why);
		free(ad);
		MPI_Comm_free(&dup);
	}

	/* MPI_Waitany over a sum, a product and a minimum, then
	 * MPI_Waitsome over the bitwise ops
	 */
	for (i = 0; i < 3; i++) {
		mm[i] = malloc(2 * 7 * sizeof(*mm[i]));
		fill(&types[T_INT], i, me, mm[i], 7);
		MPI_Iallreduce(mm[i], mm[i] + 7, 7, MPI_INT, ops[i].op,
			       MPI_COMM_WORLD, &req[i]);
	}
	ok = true;
	for (i = 0; i < 3 && ok; i++)
		ok = MPI_Waitany(3, req, &idx, MPI_STATUS_IGNORE) ==
			MPI_SUCCESS && idx >= 0 && idx < 3;
	for (i = 0; i < 3 && ok; i++)
		ok = world_result_ok(T_INT, i, mm[i] + 7, 7, why, sizeof(why));
	for (i = 0; i < 3 && ok; i++) {
		fill(&types[T_INT], i + 4, me, mm[i], 7);
		MPI_Iallreduce(mm[i], mm[i] + 7, 7, MPI_INT, ops[i + 4].op,
			       MPI_COMM_WORLD, &req[i]);
	}
	for (done = 0; ok && done < 3; done += out)
		ok = MPI_Waitsome(3, req, &out, ids, st) == MPI_SUCCESS &&
			out > 0;
	for (i = 0; i < 3 && ok; i++)
		ok = world_result_ok(T_INT, i + 4, mm[i] + 7, 7, why,
				     sizeof(why));
	if (!ok && !*why)
		snprintf(why, sizeof(why), "MPI error or wrong index");
	world_verdict("nonblocking_waitany_waitsome", ok, why);
	for (i = 0; i < 3; i++)
		free(mm[i]);

	/*
	 * rank 0 sends 1 MiB to rank 1 and waits for it together with its
	 * allreduce; rank 1 joins the allreduce only once it has the data
	 */
	fill(&types[T_INT], 0, me, ai_in, n);
	ok = true;
	if (nranks > 1 && me == 0) {
		MPI_Isend(sbuf, P2P_BYTES, MPI_CHAR, 1, 9, MPI_COMM_WORLD,
			  &req[0]);
		MPI_Iallreduce(ai_in, ai, (int)n, MPI_INT, MPI_SUM,
			       MPI_COMM_WORLD, &req[1]);
		ok = MPI_Waitall(2, req, st) == MPI_SUCCESS;
	} else {
		if (nranks > 1 && me == 1)
			ok = MPI_Recv(rbuf, P2P_BYTES, MPI_CHAR, 0, 9,
				      MPI_COMM_WORLD, MPI_STATUS_IGNORE) ==
				MPI_SUCCESS && rbuf[P2P_BYTES - 1] ==
				(char)(P2P_BYTES - 1);
		ok = MPI_Iallreduce(ai_in, ai, (int)n, MPI_INT, MPI_SUM,
				    MPI_COMM_WORLD, &req[1]) == MPI_SUCCESS &&
			MPI_Wait(&req[1], MPI_STATUS_IGNORE) == MPI_SUCCESS &&
			ok;
	}
	ok = ok && world_result_ok(T_INT, 0, ai, n, why, sizeof(why));
	world_verdict("nonblocking_wait_keeps_point_to_point_going", ok, why);

	/*
	 * the communicator freed while its allreduce is pending (-p: Open
	 * MPI 4.1's own nonblocking collectives crash on it, so only where
	 * the shim serves the call)
	 */
	if (free_pending) {
		MPI_Comm dup;

		MPI_Comm_dup(MPI_COMM_WORLD, &dup);
		ok = MPI_Barrier(dup) == MPI_SUCCESS &&
			MPI_Iallreduce(ai_in, ai, (int)n, MPI_INT, MPI_SUM,
				       dup, &req[0]) == MPI_SUCCESS;
		MPI_Comm_free(&dup);
		ok = ok && MPI_Wait(&req[0], MPI_STATUS_IGNORE) ==
			MPI_SUCCESS;
		ok = ok && world_result_ok(T_INT, 0, ai, n, why, sizeof(why));
		world_verdict("nonblocking_comm_freed_before_wait", ok, why);
	}

	free(sbuf);
	free(rbuf);
	free(ai_in);
	free(ai);
	free(bd);
	free(want_bd);
	free(rl_in);
	free(rl);
}

/*
 * How much to run: 0 (-q) a sample of every kind of call, 1 every type
 * and op at 7 elements and a sample at other counts, 2 (-l) everything.
 */
static int level = 1;

static bool key_type(unsigned int ti)
{
	return !strcmp(types[ti].name, "int") ||
		!strcmp(types[ti].name, "double");
}

static bool wanted(unsigned int ti, int opi, bool first, size_t count,
		   bool world)
{
	if (level == 2)
		return true;
	if (!world)	/* a sub-communicator: one op per type, 7 elements */
		return count == 7 && (level || key_type(ti)) && first;
	if (count > 8192)
		return opi == 0 && key_type(ti);
	if (level == 0)
		return count == 7 ? first || key_type(ti) :
			count == 8192 && opi == 0 && key_type(ti);
	/* every type and op at 7 elements, the rest on a sample */
	return count == 7 || first || key_type(ti);
}

static void reduce_cases(MPI_Comm comm, const char *tag, bool world)
{
	const size_t counts[] = { 0, 1, 7, 8192, 131072 };
	unsigned int c, ti, opi;
	int first;

	for (ti = 0; ti < NTYPES; ti++) {
		first = -1;
		for (opi = 0; opi < 10; opi++) {
			if (!allowed(&types[ti], opi))
				continue;
			if (first < 0)
				first = (int)opi;
			for (c = 0; c < 5; c++)
				if (wanted(ti, opi, (int)opi == first,
					   counts[c], world))
					reduce_case(comm, tag, ti, opi,
						    counts[c], false, false);
		}
	}
}

int main(int argc, char **argv)
{
	const struct pair_type pairs[] = {
		{ "float_int", MPI_FLOAT_INT, sizeof(struct fi),
		  offsetof(struct fi, i), T_FLOAT },
		{ "double_int", MPI_DOUBLE_INT, sizeof(struct di),
		  offsetof(struct di, i), T_DOUBLE },
		{ "long_int", MPI_LONG_INT, sizeof(struct li),
		  offsetof(struct li, i), T_LONG },
		{ "2int", MPI_2INT, sizeof(struct ii), offsetof(struct ii, i),
		  T_INT },
		{ "short_int", MPI_SHORT_INT, sizeof(struct si),
		  offsetof(struct si, i), T_SHORT },
	};
	bool only_fallback = false;
	int dx = 3, dy = 3, dz = 3;
	unsigned int ti, pi, c, opi;
	const size_t counts[] = { 0, 1, 7, 8192 };
	MPI_Comm line, plane, odd;
	size_t mid;
	int opt;
	bool ok;

	while ((opt = getopt(argc, argv, "d:lqfp")) != -1) {
		if (opt == 'd' && sscanf(optarg, "%dx%dx%d", &dx, &dy, &dz) == 3 &&
		    dx > 0 && dy > 0)
			continue;
		if (opt == 'l' || opt == 'q')
			level = opt == 'l' ? 2 : 0;
		else if (opt == 'f')
			only_fallback = true;
		else if (opt == 'p')
			free_pending = true;
		else
			return 2;
	}
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	t_start = MPI_Wtime();
	setup_tables();
	if (only_fallback) {
		fallback_cases();
		goto out;
	}

	ok = MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS;
	world_verdict("barrier", ok, "MPI error");
	reduce_cases(MPI_COMM_WORLD, "", true);
	/* in place: one segment of the module, or several with -l */
	mid = level == 2 ? 8192 : 1000;

	/* MPI_IN_PLACE and MPI_Reduce on a sample of types and ops */
	for (ti = 0; ti < NTYPES; ti++)
		for (opi = 0; opi < 10; opi += 3) {
			if (!allowed(&types[ti], opi) ||
			    (!level && !key_type(ti)))
				continue;
			reduce_case(MPI_COMM_WORLD, "", ti, opi, mid, true,
				    false);
			reduce_case(MPI_COMM_WORLD, "", ti, opi, 7, false, true);
			reduce_case(MPI_COMM_WORLD, "", ti, opi, mid, true, true);
		}
	for (pi = 0; pi < sizeof(pairs) / sizeof(pairs[0]); pi++)
		for (c = level ? 0 : 2; c < 4; c++) {
			loc_case(&pairs[pi], false, counts[c]);
			loc_case(&pairs[pi], true, counts[c]);
		}
	for (ti = 0; ti < NTYPES; ti++)
		for (c = level ? 0 : 2; c < 4; c++)
			bcast_case(MPI_COMM_WORLD, "", ti, counts[c]);
	bcast_case(MPI_COMM_WORLD, "", T_DOUBLE, 131072);

	/* lines along x, xy planes, an irregular set and the rest */
	MPI_Comm_split(MPI_COMM_WORLD, me / dx, me, &line);
	MPI_Comm_split(MPI_COMM_WORLD, me / (dx * dy), me, &plane);
	MPI_Comm_split(MPI_COMM_WORLD, me % 5 == 0 || me == 7, me, &odd);
	reduce_cases(line, "line_", false);
	reduce_case(plane, "plane_", T_DOUBLE, 0, 8192, false, false);
	bcast_case(plane, "plane_", T_INT, 8192);
	for (opi = 0; opi < 4; opi++) {
		reduce_case(odd, "irregular_", T_DOUBLE, opi, 8192, false,
			    false);
		reduce_case(odd, "irregular_", T_INT, opi, 7, false, true);
	}
	bcast_case(odd, "irregular_", T_INT64, 8192);
	ok = MPI_Barrier(odd) == MPI_SUCCESS;
	world_verdict("irregular_barrier", ok, "MPI error");
	MPI_Comm_free(&line);
	MPI_Comm_free(&plane);
	MPI_Comm_free(&odd);
	nonblocking_cases();
	fallback_cases();
out:
	report();
	if (!me) {
		printf("%d passed, %d failed\n", passed, failed);
		fflush(stdout);
	}
	MPI_Finalize();
	return failed ? 1 : 0;
}
