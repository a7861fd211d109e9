// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * coll_mpi - the same collectives as coll_bench, through Open MPI, for
 * the side-by-side of make bench-coll.
 *
 *	mpirun ... coll_mpi [ -n ITERS ] [ -w WARMUP ] [ -c ]
 *		   { barrier | allreduce | reduce | bcast } BYTES
 *
 * Doubles, summed; bcast and reduce from and to rank 0.  Rank 0 prints
 * one JSON object with the slowest rank's average.
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

int main(int argc, char **argv)
{
	const char *names[] = { "barrier", "allreduce", "reduce", "bcast" };
	unsigned int iters = 100, warmup = 5, i;
	int rank, size, n, c, ok = 1, all_ok;
	bool checking = false;
	double *buf, *out, t0, t, worst;
	enum bench_op op;
	size_t bytes;

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
	if (argc - optind != 2 || !iters) {
		if (!rank)
			fprintf(stderr, "Usage: coll_mpi [ -n ITERS ] [ -w WARMUP ] [ -c ] OP BYTES\n");
		MPI_Finalize();
		return 2;
	}
	for (op = OP_BARRIER; op <= OP_BCAST; op++)
		if (!strcmp(argv[optind], names[op]))
			break;
	bytes = strtoul(argv[optind + 1], NULL, 0);
	n = (int)(bytes / sizeof(double));
	buf = calloc(n ? n : 1, sizeof(double));
	out = calloc(n ? n : 1, sizeof(double));
	if (op > OP_BCAST || !buf || !out)
		MPI_Abort(MPI_COMM_WORLD, 2);
	for (i = 0; i < (unsigned int)n; i++)
		buf[i] = op == OP_BCAST ? (rank ? -1.0 : 0.25 * i + 1) :
					  rank + (double)(i % 1000);
	for (i = 0; i < warmup; i++)
		run_op(op, buf, out, n);
	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	for (i = 0; i < iters; i++)
		run_op(op, buf, out, n);
	t = (MPI_Wtime() - t0) * 1e6 / iters;
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
		printf("{\"op\": \"%s\", \"bytes\": %zu, \"iters\": %u, "
		       "\"size\": %d, \"avg_us\": %.1f, \"ok\": %s}\n",
		       names[op], bytes, iters, size, worst,
		       all_ok ? "true" : "false");
	free(buf);
	free(out);
	MPI_Finalize();
	return all_ok || rank ? 0 : 1;
}
