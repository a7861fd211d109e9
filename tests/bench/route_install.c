// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * route_install.c - torusd's own install path, timed: a node's whole
 * exception table through td_nl_route_replace() (daemon/tnl.c, libnl:
 * the message built, sent, acknowledged), as torusd sends it after a
 * route computation.  tests/vm/route_install_bench.py runs it in the VM
 * beside "torus route batch" with the same table.
 *
 *	torusd-route-install DEV FILE ROUNDS
 *
 * FILE: one exception a line, "DST via VIA" with coordinates X,Y,Z (the
 * tool's batch format, via lines only), sent in torusd's order.  Prints one JSON object: the
 * exceptions, the best and the mean time per install in ms.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tnl.h"

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int parse_coord(const char *s, uint8_t *c, unsigned int *n)
{
	char *end;

	*n = 0;
	while (*s && *n < TC_MAX_AXES) {
		unsigned long v = strtoul(s, &end, 10);

		if (end == s || v > 255)
			return -1;
		c[(*n)++] = (uint8_t)v;
		s = *end == ',' ? end + 1 : end;
		if (end[0] && end[0] != ',')
			return -1;
	}
	return *n ? 0 : -1;
}

static int read_table(const char *path, struct td_route_exc **out,
		      unsigned int *n, unsigned int *ndims)
{
	char line[256], dst[64], via[64];
	unsigned int cap = 0, nd;
	struct td_route_exc *e = NULL, *grown;
	FILE *f = fopen(path, "r");

	if (!f)
		return -errno;
	*n = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s via %63s", dst, via) != 2)
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 1024;
			grown = realloc(e, cap * sizeof(*e));
			if (!grown) {
				free(e);
				fclose(f);
				return -ENOMEM;
			}
			e = grown;
		}
		memset(&e[*n], 0, sizeof(e[*n]));
		if (parse_coord(dst, e[*n].dst, ndims) ||
		    parse_coord(via, e[*n].via, &nd) || nd != *ndims) {
			free(e);
			fclose(f);
			return -EINVAL;
		}
		(*n)++;
	}
	fclose(f);
	*out = e;
	return 0;
}

static int exc_cmp(const void *a, const void *b)
{
	return memcmp(((const struct td_route_exc *)a)->dst,
		      ((const struct td_route_exc *)b)->dst, TC_MAX_AXES);
}

int main(int argc, char **argv)
{
	unsigned int n = 0, ndims = 0, rounds, i, ifindex;
	double best = 0, sum = 0, t;
	struct td_route_exc *exc = NULL;
	struct td_nl nl;
	int err;

	if (argc != 4) {
		fprintf(stderr, "usage: %s DEV FILE ROUNDS\n", argv[0]);
		return 2;
	}
	ifindex = if_nametoindex(argv[1]);
	rounds = (unsigned int)atoi(argv[3]);
	if (!ifindex || !rounds) {
		fprintf(stderr, "%s: no device %s, or no rounds\n", argv[0],
			argv[1]);
		return 2;
	}
	err = read_table(argv[2], &exc, &n, &ndims);
	if (err) {
		fprintf(stderr, "%s: %s: %s\n", argv[0], argv[2],
			strerror(-err));
		return 2;
	}
	/* torusd emits its table in this order as it walks it (routes.c) */
	qsort(exc, n, sizeof(*exc), exc_cmp);
	if (td_nl_open(&nl)) {
		fprintf(stderr, "%s: %s\n", argv[0], nl.err);
		return 1;
	}
	for (i = 0; i < rounds; i++) {
		t = now_ms();
		err = td_nl_route_replace(&nl, ifindex, exc, n);
		t = now_ms() - t;
		if (err) {
			fprintf(stderr, "%s: %s\n", argv[0], nl.err);
			return 1;
		}
		sum += t;
		if (!i || t < best)
			best = t;
	}
	printf("{\"exceptions\":%u,\"rounds\":%u,\"best_ms\":%.3f,"
	       "\"mean_ms\":%.3f}\n", n, rounds, best, sum / rounds);
	td_nl_close(&nl);
	free(exc);
	return 0;
}
