// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * coll_mpi - the same collectives as coll_bench, through Open MPI, for
 * the side-by-side of make bench-coll.
 *
 *	mpirun ... coll_mpi [ -n ITERS ] [ -w WARMUP ] [ -c ] OP:BYTES[:ITERS]...
 *
 * OP is barrier, allreduce, reduce or bcast; several in one run (one
 * launch: under TCG starting the ranks takes longer than measuring).
 * Doubles, summed; bcast and reduce from and to rank 0.  Rank 0 prints
 * a JSON object per OP with the slowest rank's average.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

enum bench_op { OP_BARRIER, OP_ALLREDUCE, OP_REDUCE, OP_BCAST };

static int run_op(enum bench_op op, double *buf, double *out, int n)
{
	switch (op) {
	case OP_BARRIER:
		return MPI_Barrier(MPI_COMM_WORLD);
	case OP_ALLREDUCE:
		return MPI_Allreduce(buf, out, n, MPI_DOUBLE, MPI_SUM,
				     MPI_COMM_WORLD);
	case OP_REDUCE:
		return MPI_Reduce(buf, out, n, MPI_DOUBLE, MPI_SUM, 0,
				  MPI_COMM_WORLD);
	default:
		return MPI_Bcast(buf, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	}
}

/* One OP:BYTES[:ITERS] spec; rank 0 prints its JSON line. */
static int run_spec(const char *spec, unsigned int iters, unsigned int warmup,
		    bool checking, int rank, int size)
{
	const char *names[] = { "barrier", "allreduce", "reduce", "bcast" };
	char name[32] = "";
	unsigned long bytes = 0;
	unsigned int it = iters, i;
	int n, ok = 1, all_ok;
	double *buf, *out, t0, t, worst;
	enum bench_op op;

	if (sscanf(spec, "%31[a-z]:%lu:%u", name, &bytes, &it) < 2 || !it)
		return -1;
	for (op = OP_BARRIER; op <= OP_BCAST; op++)
		if (!strcmp(name, names[op]))
			break;
	if (op > OP_BCAST)
		return -1;
	n = (int)(bytes / sizeof(double));
	buf = calloc(n ? n : 1, sizeof(double));
	out = calloc(n ? n : 1, sizeof(double));
	if (!buf || !out)
		MPI_Abort(MPI_COMM_WORLD, 2);
	for (i = 0; i < (unsigned int)n; i++)
		buf[i] = op == OP_BCAST ? (rank ? -1.0 : 0.25 * i + 1) :
					  rank + (double)(i % 1000);
	for (i = 0; i < warmup; i++)
		run_op(op, buf, out, n);
	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	for (i = 0; i < it; i++)
		run_op(op, buf, out, n);
	t = (MPI_Wtime() - t0) * 1e6 / it;
	if (checking && n) {
		const double *r = op == OP_BCAST ? buf : out;
		double ranks = (double)size * (size - 1) / 2;

		for (i = 0; i < (unsigned int)n &&
		     (op != OP_REDUCE || !rank); i++)
			if (r[i] != (op == OP_BCAST ? 0.25 * i + 1 :
				     ranks + (double)size * (i % 1000)))
				ok = 0;
	}
	MPI_Reduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	MPI_Reduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, 0, MPI_COMM_WORLD);
	if (!rank)
		printf("{\"op\": \"%s\", \"bytes\": %lu, \"iters\": %u, "
		       "\"size\": %d, \"avg_us\": %.1f, \"ok\": %s}\n",
		       names[op], bytes, it, size, worst,
		       all_ok ? "true" : "false");
	fflush(stdout);
	free(buf);
	free(out);
	return all_ok || rank ? 0 : 1;
}

int main(int argc, char **argv)
{
	unsigned int iters = 100, warmup = 5;
	bool checking = false;
	int rank, size, c, i, ret = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	while ((c = getopt(argc, argv, "n:w:c")) != -1) {
		if (c == 'n')
			iters = (unsigned int)strtoul(optarg, NULL, 0);
		else if (c == 'w')
			warmup = (unsigned int)strtoul(optarg, NULL, 0);
		else if (c == 'c')
			checking = true;
	}
	if (optind >= argc || !iters) {
		if (!rank)
			fprintf(stderr, "Usage: coll_mpi [ -n ITERS ] [ -w WARMUP ] [ -c ] OP:BYTES[:ITERS]...\n");
		MPI_Finalize();
		return 2;
	}
	for (i = optind; i < argc && ret >= 0; i++)
		ret = run_spec(argv[i], iters, warmup, checking, rank, size) ?:
		      ret;
	if (ret < 0 && !rank)
		fprintf(stderr, "coll_mpi: bad spec \"%s\"\n", argv[i - 1]);
	MPI_Finalize();
	return ret ? 1 : 0;
}
