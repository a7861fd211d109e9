// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * xacc_driver - runs kernel/torus_xacc.c (the very file torus.ko is built
 * from) on sums read from stdin, for tests/unit/test_xacc.py, which
 * checks the results against an exact rational reference.
 *
 * Input, one sum a line: "d" or "f", a seed, then the values as hex
 * bits (u64 for d, u32 for f); "p" and "q" lines are exact products of
 * doubles and floats, checked the same way.  Output, a line per sum: the rounded
 * result in hex, or "MISMATCH <what>" when the three ways of computing
 * it disagree: values added in order; the values cut at random into
 * parts, each part summed alone, sent through the wire form and merged
 * in reverse order; and added in reverse order into a sum merged with
 * an empty one.  They must agree bit for bit, as nodes of a combining
 * tree of any shape must.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "torus_xacc.h"
#include "unit.h"

#define MAX_VALUES 200000
#define MAX_PARTS 16

static uint64_t values[MAX_VALUES];

static uint64_t round_sum(const struct torus_xacc *a, int dbl)
{
	return dbl ? torus_xacc_round_f64(a) : torus_xacc_round_f32(a);
}

static void add(struct torus_xacc *a, uint64_t v, int dbl)
{
	if (dbl)
		torus_xacc_add_f64(a, v);
	else
		torus_xacc_add_f32(a, (uint32_t)v);
}

static int one_sum(int dbl, size_t n)
{
	static struct torus_xacc seq, parts[MAX_PARTS], merged, rev, empty;
	static uint8_t wire[TORUS_XACC_WIRE_MAX];
	size_t cut[MAX_PARTS + 1], i, len, got;
	unsigned int nparts = 1 + rnd() % MAX_PARTS, p;
	uint64_t r_seq, r_merged, r_rev;

	torus_xacc_init(&seq);
	for (i = 0; i < n; i++)
		add(&seq, values[i], dbl);

	cut[0] = 0;
	cut[nparts] = n;
	for (p = 1; p < nparts; p++)
		cut[p] = n ? rnd() % (n + 1) : 0;
	/* sorted cut points: parts may be empty */
	for (p = 1; p < nparts; p++)
		for (i = p + 1; i < nparts; i++)
			if (cut[i] < cut[p]) {
				size_t t = cut[i];

				cut[i] = cut[p];
				cut[p] = t;
			}
	torus_xacc_init(&merged);
	for (p = 0; p < nparts; p++) {
		torus_xacc_init(&parts[p]);
		for (i = cut[p]; i < cut[p + 1]; i++)
			add(&parts[p], values[i], dbl);
	}
	for (p = nparts; p-- > 0;) {
		len = torus_xacc_encode(&parts[p], wire, sizeof(wire));
		if (!len || torus_xacc_encode(&parts[p], wire, len - 1)) {
			printf("MISMATCH encode\n");
			return 1;
		}
		got = torus_xacc_decode_merge(&merged, wire, len);
		if (got != len || torus_xacc_decode_merge(&merged, wire,
							  len - 1)) {
			printf("MISMATCH decode\n");
			return 1;
		}
	}

	torus_xacc_init(&rev);
	torus_xacc_init(&empty);
	for (i = n; i-- > 0;)
		add(&rev, values[i], dbl);
	torus_xacc_merge(&rev, &empty);

	r_seq = round_sum(&seq, dbl);
	r_merged = round_sum(&merged, dbl);
	r_rev = round_sum(&rev, dbl);
	if (r_seq != r_merged || r_seq != r_rev ||
	    memcmp(seq.w, merged.w, sizeof(seq.w)) ||
	    seq.flags != merged.flags) {
		printf("MISMATCH %" PRIx64 " %" PRIx64 " %" PRIx64 "\n",
		       r_seq, r_merged, r_rev);
		return 1;
	}
	printf("%" PRIx64 "\n", r_seq);
	return 0;
}

static void mul(struct torus_xprod *p, uint64_t v, int dbl)
{
	if (dbl)
		torus_xprod_mul_f64(p, v);
	else
		torus_xprod_mul_f32(p, (uint32_t)v);
}

static uint64_t round_prod(const struct torus_xprod *p, int dbl)
{
	return dbl ? torus_xprod_round_f64(p) : torus_xprod_round_f32(p);
}

/* The same three ways for an exact product (struct torus_xprod). */
static int one_prod(int dbl, size_t n)
{
	static struct torus_xprod seq, part, merged, rev, empty;
	static uint8_t wire[TORUS_XPROD_WIRE_MAX];
	unsigned int nparts = 1 + rnd() % MAX_PARTS, p;
	size_t i, len, from = 0, to;
	uint64_t r_seq, r_merged, r_rev;

	torus_xprod_init(&seq);
	for (i = 0; i < n; i++)
		mul(&seq, values[i], dbl);
	/* consecutive parts of random length, each through the wire form */
	torus_xprod_init(&merged);
	for (p = 0; p < nparts; p++) {
		to = p + 1 == nparts ? n : from + (n ? rnd() % (n - from + 1) : 0);
		torus_xprod_init(&part);
		for (i = from; i < to; i++)
			mul(&part, values[i], dbl);
		from = to;
		len = torus_xprod_encode(&part, wire, sizeof(wire));
		if (!len || torus_xprod_encode(&part, wire, len - 1) ||
		    torus_xprod_decode_merge(&merged, wire, len) != len) {
			printf("MISMATCH wire\n");
			return 1;
		}
	}
	torus_xprod_init(&rev);
	torus_xprod_init(&empty);
	for (i = n; i-- > 0;)
		mul(&rev, values[i], dbl);
	torus_xprod_merge(&rev, &empty);
	r_seq = round_prod(&seq, dbl);
	r_merged = round_prod(&merged, dbl);
	r_rev = round_prod(&rev, dbl);
	if (r_seq != r_merged || r_seq != r_rev) {
		printf("MISMATCH %" PRIx64 " %" PRIx64 " %" PRIx64 "\n",
		       r_seq, r_merged, r_rev);
		return 1;
	}
	printf("%" PRIx64 "\n", r_seq);
	return 0;
}

int main(void)
{
	char kind[2];
	int bad = 0;

	while (scanf("%1s %" SCNu64, kind, &rng_state) == 2) {
		size_t n = 0;
		int c;

		for (;;) {
			while ((c = getchar()) == ' ')
				;
			if (c == '\n' || c == EOF)
				break;
			ungetc(c, stdin);
			if (n == MAX_VALUES ||
			    scanf("%" SCNx64, &values[n]) != 1) {
				fprintf(stderr, "xacc_driver: bad input\n");
				return 2;
			}
			n++;
		}
		if (kind[0] == 'p' || kind[0] == 'q')
			bad |= one_prod(kind[0] == 'p', n);
		else
			bad |= one_sum(kind[0] == 'd', n);
		fflush(stdout);
	}
	return bad;
}
