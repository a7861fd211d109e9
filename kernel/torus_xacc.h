/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Exact, order-independent sums of IEEE-754 binary64 and binary32
 * values in integer arithmetic (the kernel has no free use of the FPU).
 * Pure C: the same file is built into torus.ko, its KUnit suite and the
 * userspace unit test that checks it against an exact reference.
 */
#ifndef _TORUS_XACC_H
#define _TORUS_XACC_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include "ktypes.h"	/* lib/ktypes.h */
#endif

/*
 * A fixed-point two's complement integer whose bit 0 weighs 2^-1074 (the
 * smallest binary64 subnormal) and whose top bit is the sign: every finite
 * double is an integer here (bits 0..2097), and 2240 bits leave 2^141
 * additions of the largest double before the sum could overflow.
 */
#define TORUS_XACC_WORDS	35

/* flags: what the integer cannot hold */
#define TORUS_XACC_F_INPUT	0x01	/* at least one value was added */
#define TORUS_XACC_F_NOT_NEGZERO 0x02	/* a value other than -0 was added */
#define TORUS_XACC_F_NAN	0x04	/* a nan was added */
#define TORUS_XACC_F_PINF	0x08	/* +inf was added */
#define TORUS_XACC_F_NINF	0x10	/* -inf was added */
#define TORUS_XACC_F_ALL	0x1f

#define TORUS_XACC_NAN64	0x7ff8000000000000ULL	/* the canonical nan */
#define TORUS_XACC_NAN32	0x7fc00000U

/* encoded size: a 4-byte head and at most every word */
#define TORUS_XACC_HEAD		4
#define TORUS_XACC_WIRE_MAX	(TORUS_XACC_HEAD + 8 * TORUS_XACC_WORDS)

/**
 * struct torus_xacc - an exact sum
 * @w: the integer, least significant word first
 * @flags: TORUS_XACC_F_*
 */
struct torus_xacc {
	u64 w[TORUS_XACC_WORDS];
	u32 flags;
};

void torus_xacc_init(struct torus_xacc *a);
void torus_xacc_add_f64(struct torus_xacc *a, u64 bits);
void torus_xacc_add_f32(struct torus_xacc *a, u32 bits);
void torus_xacc_merge(struct torus_xacc *a, const struct torus_xacc *b);
u64 torus_xacc_round_f64(const struct torus_xacc *a);
u32 torus_xacc_round_f32(const struct torus_xacc *a);
size_t torus_xacc_encode(const struct torus_xacc *a, u8 *buf, size_t room);
size_t torus_xacc_decode_merge(struct torus_xacc *a, const u8 *buf,
			       size_t len);

/*
 * An exact product of doubles or floats: odd integer @m times 2^@exp,
 * its sign, and what the integer cannot hold.  Every factor adds at most
 * 53 bits to @m (trailing zero bits are dropped), so TORUS_XPROD_WORDS
 * words hold the product of at least 77 doubles or 170 floats of full
 * precision; a longer one is refused (TORUS_XPROD_F_BIG), never rounded
 * early, because an early rounding would depend on the tree's shape.
 */
#define TORUS_XPROD_WORDS	64

#define TORUS_XPROD_F_NEG	0x01	/* an odd number of negative factors */
#define TORUS_XPROD_F_ZERO	0x02	/* a zero factor */
#define TORUS_XPROD_F_INF	0x04	/* an infinite factor */
#define TORUS_XPROD_F_NAN	0x08	/* a nan factor */
#define TORUS_XPROD_F_BIG	0x10	/* more than TORUS_XPROD_WORDS words */
#define TORUS_XPROD_F_ALL	0x1f

/* encoded: flags, words, two zero bytes, exponent (be32), then words */
#define TORUS_XPROD_HEAD	8
#define TORUS_XPROD_WIRE_MAX	(TORUS_XPROD_HEAD + 8 * TORUS_XPROD_WORDS)

/**
 * struct torus_xprod - an exact product
 * @m: the odd integer, least significant word first
 * @exp: the power of two it is scaled by
 * @words: words of @m in use (1 at least)
 * @flags: TORUS_XPROD_F_*
 */
struct torus_xprod {
	u64 m[TORUS_XPROD_WORDS];
	s32 exp;
	u8 words;
	u8 flags;
};

void torus_xprod_init(struct torus_xprod *p);
void torus_xprod_mul_f64(struct torus_xprod *p, u64 bits);
void torus_xprod_mul_f32(struct torus_xprod *p, u32 bits);
void torus_xprod_merge(struct torus_xprod *p, const struct torus_xprod *q);
u64 torus_xprod_round_f64(const struct torus_xprod *p);
u32 torus_xprod_round_f32(const struct torus_xprod *p);
size_t torus_xprod_encode(const struct torus_xprod *p, u8 *buf, size_t room);
bool torus_xprod_big(const struct torus_xprod *p);
size_t torus_xprod_decode_merge(struct torus_xprod *p, const u8 *buf,
				size_t len);

#endif /* _TORUS_XACC_H */
