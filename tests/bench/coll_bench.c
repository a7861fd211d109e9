// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * coll_bench - one node's side of a collective benchmark over torus.ko,
 * through libtorus (every node of the fabric runs it at once).
 *
 *	coll_bench [ -d DEV ] [ -n ITERS ] [ -w WARMUP ] [ -t MS ] [ -b ] [ -c ]
 *		   [ -m ] { barrier | allreduce | reduce | bcast } BYTES
 *
 * The data are doubles; allreduce and reduce sum them, bcast comes from
 * rank 0 (reduce goes to it).  -b uses the non-blocking calls (start,
 * poll on torus_fd(), torus_test()); -c checks every result against
 * what it must be (sums of small integers are exact in any order); -m
 * gives libtorus a buffer 4 bytes off 8-byte alignment (copied to and
 * from the aligned one the data are made and checked in).
 * Prints one JSON object: {"op", "bytes", "iters", "rank", "size",
 * "avg_us", "ok"}.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "libtorus.h"

enum bench_op { OP_BARRIER, OP_ALLREDUCE, OP_REDUCE, OP_BCAST };

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: coll_bench [ -d DEV ] [ -n ITERS ] [ -w WARMUP ] [ -t MS ] [ -b ] [ -c ]\n"
		   "                  [ -m ] { barrier | allreduce | reduce | bcast } BYTES\n");
}

/* one operation, blocking or through the non-blocking calls */
static int run_op(struct torus_ctx *ctx, enum bench_op op, void *buf,
		  size_t n, bool nonblocking)
{
	struct pollfd pfd = { .fd = torus_fd(ctx), .events = POLLIN };
	struct torus_req *req;
	int ret;

	if (!nonblocking) {
		switch (op) {
		case OP_BARRIER:
			return torus_barrier(ctx);
		case OP_ALLREDUCE:
			return torus_allreduce(ctx, buf, n, TORUS_DOUBLE,
					       TORUS_SUM);
		case OP_REDUCE:
			return torus_reduce(ctx, buf, n, TORUS_DOUBLE,
					    TORUS_SUM, 0);
		default:
			return torus_bcast(ctx, buf, n, TORUS_DOUBLE, 0);
		}
	}
	switch (op) {
	case OP_BARRIER:
		req = torus_barrier_start(ctx);
		break;
	case OP_ALLREDUCE:
		req = torus_allreduce_start(ctx, buf, n, TORUS_DOUBLE,
					    TORUS_SUM);
		break;
	case OP_REDUCE:
		req = torus_reduce_start(ctx, buf, n, TORUS_DOUBLE, TORUS_SUM,
					 0);
		break;
	default:
		req = torus_bcast_start(ctx, buf, n, TORUS_DOUBLE, 0);
	}
	if (!req)
		return -1;
	while (!(ret = torus_test(req)))
		if (poll(&pfd, 1, 60000) < 0 && errno != EINTR)
			return -1;
	return ret < 0 ? -1 : 0;
}

static void fill(enum bench_op op, double *buf, size_t n, uint32_t rank)
{
	size_t i;

	for (i = 0; i < n; i++)
		buf[i] = op == OP_BCAST ? (rank ? -1.0 : 0.25 * (double)i + 1) :
					  (double)rank + (double)(i % 1000);
}

static bool check(enum bench_op op, const double *buf, size_t n,
		  uint32_t rank, uint32_t size)
{
	double ranks = (double)size * (size - 1) / 2;
	size_t i;

	if (op == OP_BARRIER || (op == OP_REDUCE && rank))
		return true;
	for (i = 0; i < n; i++) {
		double want = op == OP_BCAST ? 0.25 * (double)i + 1 :
			      ranks + (double)size * (double)(i % 1000);

		if (buf[i] != want) {
			fprintf(stderr, "coll_bench: element %zu is %.17g, not %.17g\n",
				i, buf[i], want);
			return false;
		}
	}
	return true;
}

/* one operation on @buf, through @data when that is a misaligned copy */
static int step(struct torus_ctx *ctx, enum bench_op op, double *buf,
		void *data, size_t n, bool nonblocking)
{
	int ret;

	if (data == buf)
		return run_op(ctx, op, buf, n, nonblocking);
	memcpy(data, buf, n * sizeof(*buf));
	ret = run_op(ctx, op, data, n, nonblocking);
	memcpy(buf, data, n * sizeof(*buf));
	return ret;
}

int main(int argc, char **argv)
{
	const char *dev = "tor0", *names[] = { "barrier", "allreduce",
					       "reduce", "bcast" };
	unsigned int iters = 100, warmup = 5, timeout_ms = 0, i;
	bool nonblocking = false, checking = false, misaligned = false;
	bool ok = true;
	char *mem = NULL;
	void *data;
	struct torus_ctx *ctx;
	enum bench_op op;
	size_t bytes, n;
	double *buf, t0;
	int c;

	while ((c = getopt(argc, argv, "d:n:w:t:bcmh")) != -1) {
		switch (c) {
		case 'd':
			dev = optarg;
			break;
		case 'n':
			iters = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'w':
			warmup = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 't':
			timeout_ms = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'b':
			nonblocking = true;
			break;
		case 'c':
			checking = true;
			break;
		case 'm':
			misaligned = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (argc - optind != 2 || !iters) {
		usage(stderr);
		return 2;
	}
	for (op = OP_BARRIER; op <= OP_BCAST; op++)
		if (!strcmp(argv[optind], names[op]))
			break;
	bytes = strtoul(argv[optind + 1], NULL, 0);
	n = bytes / sizeof(double);
	if (op > OP_BCAST || (op != OP_BARRIER && !n)) {
		usage(stderr);
		return 2;
	}
	ctx = torus_open(dev);
	if (!ctx) {
		fprintf(stderr, "coll_bench: %s: %s\n", dev, strerror(errno));
		return 1;
	}
	if (timeout_ms && torus_set_timeout(ctx, timeout_ms)) {
		fprintf(stderr, "coll_bench: -t: %s\n", strerror(errno));
		return 2;
	}
	buf = calloc(n ? n : 1, sizeof(*buf));
	if (misaligned)
		mem = calloc(n + 1, sizeof(*buf));
	if (!buf || (misaligned && !mem))
		return 1;
	data = misaligned ? mem + 4 : (void *)buf;
	/* warm up, then start the clock together */
	for (i = 0; i < warmup; i++) {
		fill(op, buf, n, torus_rank(ctx));
		if (step(ctx, op, buf, data, n, nonblocking))
			goto fail;
	}
	if (torus_barrier(ctx))
		goto fail;
	t0 = now_us();
	for (i = 0; i < iters; i++) {
		/* in place: sums would grow without bound otherwise */
		if (checking || op == OP_ALLREDUCE || op == OP_REDUCE)
			fill(op, buf, n, torus_rank(ctx));
		if (step(ctx, op, buf, data, n, nonblocking))
			goto fail;
		if (checking)
			ok &= check(op, buf, n, torus_rank(ctx),
				    torus_size(ctx));
	}
	t0 = now_us() - t0;
	printf("{\"op\": \"%s\", \"bytes\": %zu, \"iters\": %u, \"rank\": %u, "
	       "\"size\": %u, \"nonblocking\": %s, \"avg_us\": %.1f, "
	       "\"ok\": %s}\n", names[op], bytes, iters, torus_rank(ctx),
	       torus_size(ctx), nonblocking ? "true" : "false", t0 / iters,
	       ok ? "true" : "false");
	free(buf);
	free(mem);
	torus_close(ctx);
	return ok ? 0 : 1;
fail:
	fprintf(stderr, "coll_bench: %s: %s%s%s\n", names[op], strerror(errno),
		*torus_errmsg(ctx) ? ": " : "", torus_errmsg(ctx));
	free(buf);
	free(mem);
	torus_close(ctx);
	return 1;
}
