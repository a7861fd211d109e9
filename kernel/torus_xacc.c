// SPDX-License-Identifier: GPL-2.0
/*
 * Exact sums of doubles and floats, correctly rounded once at the end.
 *
 * Every finite binary64 value is an integer multiple of 2^-1074, so a
 * long fixed-point integer (struct torus_xacc) holds any sum exactly:
 * adding a value is exact, merging two sums is exact integer addition,
 * so the result does not depend on order, grouping or node count.  The
 * result is rounded once, to nearest with ties to even.
 *
 * Special values (IEEE 754 where it has an answer, and one answer
 * everywhere else so every node gets the same bits):
 *  - any nan gives the canonical quiet nan (sign and payload dropped);
 *  - +inf and -inf together give the canonical nan, one of them alone
 *    gives that infinity;
 *  - an exact sum of zero is -0 only when every value added was -0,
 *    otherwise +0 (as x + -x = +0 when rounding to nearest); no value
 *    at all gives +0;
 *  - a finite sum too large for the format rounds to that infinity.
 *
 * Wire form (torus_xacc_encode): flags, index of the lowest word sent,
 * number of words sent, a zero byte, then the words big-endian.  Words
 * below are zero, words above repeat the sign bit of the last one sent,
 * so sums of values of similar magnitude take a few words, whatever
 * their sign.
 */
#include "torus_xacc.h"

#define XACC_BITS	(64 * TORUS_XACC_WORDS)

struct xacc_format {
	unsigned int mant_bits;	/* precision, the hidden bit included */
	int lsb;		/* accumulator bit of the smallest subnormal */
	unsigned int exp_max;	/* biased exponent of inf and nan */
	unsigned int sign_shift;
};

static const struct xacc_format xacc_f64 = { 53, 0, 2047, 63 };
static const struct xacc_format xacc_f32 = { 24, 925, 255, 31 };

void torus_xacc_init(struct torus_xacc *a)
{
	unsigned int i;

	for (i = 0; i < TORUS_XACC_WORDS; i++)
		a->w[i] = 0;
	a->flags = 0;
}

/* w += x + carry for one word; returns the carry out. */
static u64 xacc_add_word(u64 *w, u64 x, u64 carry)
{
	u64 t = *w + x, c = t < x;

	t += carry;
	c |= t < carry;
	*w = t;
	return c;
}

/* Add, modulo 2^XACC_BITS, the integer whose words from @from up are
 * @add[0..@n - 1] and then @fill (0, or ~0 for a negative one).
 */
static void xacc_add_words(struct torus_xacc *a, unsigned int from,
			   const u64 *add, unsigned int n, u64 fill)
{
	unsigned int j;
	u64 carry = 0;

	for (j = from; j < TORUS_XACC_WORDS; j++) {
		if (j - from >= n && !fill && !carry)
			break;
		carry = xacc_add_word(&a->w[j],
				      j - from < n ? add[j - from] : fill,
				      carry);
	}
}

/* Add (or subtract, if @neg) @mant << @pos: @mant < 2^53, @pos < 2098,
 * so the addend spans two words at most.
 */
static void xacc_add_shifted(struct torus_xacc *a, bool neg, u64 mant,
			     unsigned int pos)
{
	unsigned int off = pos % 64;
	u64 part[2];

	part[0] = mant << off;
	part[1] = off ? mant >> (64 - off) : 0;
	if (!neg) {
		xacc_add_words(a, pos / 64, part, 2, 0);
		return;
	}
	/* two's complement of the addend: ~x + 1, the +1 rippling up
	 * through the zero words below and through part[0] if it is 0
	 */
	part[1] = ~part[1] + (part[0] == 0);
	part[0] = -part[0];
	xacc_add_words(a, pos / 64, part, 2, ~0ULL);
}

void torus_xacc_add_f64(struct torus_xacc *a, u64 bits)
{
	unsigned int e = (bits >> 52) & 0x7ff;
	u64 frac = bits & ((1ULL << 52) - 1);
	bool neg = bits >> 63;

	a->flags |= TORUS_XACC_F_INPUT;
	if (bits != 1ULL << 63)
		a->flags |= TORUS_XACC_F_NOT_NEGZERO;
	if (e == 0x7ff) {
		if (frac)
			a->flags |= TORUS_XACC_F_NAN;
		else
			a->flags |= neg ? TORUS_XACC_F_NINF : TORUS_XACC_F_PINF;
		return;
	}
	if (e)
		xacc_add_shifted(a, neg, frac | 1ULL << 52, e - 1);
	else if (frac)
		xacc_add_shifted(a, neg, frac, 0);
}

void torus_xacc_add_f32(struct torus_xacc *a, u32 bits)
{
	unsigned int e = (bits >> 23) & 0xff;
	u32 frac = bits & ((1U << 23) - 1);
	bool neg = bits >> 31;

	a->flags |= TORUS_XACC_F_INPUT;
	if (bits != 1U << 31)
		a->flags |= TORUS_XACC_F_NOT_NEGZERO;
	if (e == 0xff) {
		if (frac)
			a->flags |= TORUS_XACC_F_NAN;
		else
			a->flags |= neg ? TORUS_XACC_F_NINF : TORUS_XACC_F_PINF;
		return;
	}
	/* a float's smallest subnormal is 2^-149 = 2^925 here */
	if (e)
		xacc_add_shifted(a, neg, frac | 1U << 23, e + 924);
	else if (frac)
		xacc_add_shifted(a, neg, frac, xacc_f32.lsb);
}

void torus_xacc_merge(struct torus_xacc *a, const struct torus_xacc *b)
{
	xacc_add_words(a, 0, b->w, TORUS_XACC_WORDS, 0);
	a->flags |= b->flags;
}

/* 64 bits of @mag from bit @pos up (bits past the top read as 0) */
static u64 xacc_bits_at(const u64 *mag, unsigned int pos)
{
	unsigned int i = pos / 64, off = pos % 64;
	u64 v = mag[i] >> off;

	if (off && i + 1 < TORUS_XACC_WORDS)
		v |= mag[i + 1] << (64 - off);
	return v;
}

/* any bit of @mag below bit @pos set */
static bool xacc_any_below(const u64 *mag, unsigned int pos)
{
	unsigned int i;

	for (i = 0; i < pos / 64; i++)
		if (mag[i])
			return true;
	return pos % 64 && (mag[pos / 64] & ((1ULL << (pos % 64)) - 1));
}

/* index of the highest bit set in @x (not 0) */
static unsigned int xacc_fls64(u64 x)
{
	return 63 - __builtin_clzll(x);
}

/* Round the sum to @fmt, to nearest, ties to even: the format's bits. */
static u64 xacc_round(const struct torus_xacc *a,
		      const struct xacc_format *fmt, u64 nan)
{
	u64 one = 1, q, mag[TORUS_XACC_WORDS], carry = 1;
	u64 sign = a->w[TORUS_XACC_WORDS - 1] >> 63;
	u64 inf = (u64)fmt->exp_max << (fmt->mant_bits - 1);
	unsigned int i, msb;
	int shift;

	if ((a->flags & TORUS_XACC_F_NAN) ||
	    (a->flags & TORUS_XACC_F_PINF && a->flags & TORUS_XACC_F_NINF))
		return nan;
	if (a->flags & TORUS_XACC_F_PINF)
		return inf;
	if (a->flags & TORUS_XACC_F_NINF)
		return one << fmt->sign_shift | inf;

	for (i = 0; i < TORUS_XACC_WORDS; i++) {
		/* the magnitude: the sum itself, or ~sum + 1 */
		mag[i] = sign ? ~a->w[i] + carry : a->w[i];
		carry = sign && carry && mag[i] == 0;
	}
	for (i = TORUS_XACC_WORDS; i > 0 && !mag[i - 1]; i--)
		;
	if (!i) {
		bool negzero = (a->flags & TORUS_XACC_F_INPUT) &&
			       !(a->flags & TORUS_XACC_F_NOT_NEGZERO);

		return negzero ? one << fmt->sign_shift : 0;
	}
	msb = (i - 1) * 64 + xacc_fls64(mag[i - 1]);

	/* keep mant_bits bits, but none below the smallest subnormal */
	shift = (int)msb - (int)(fmt->mant_bits - 1);
	if (shift < fmt->lsb)
		shift = fmt->lsb;
	q = xacc_bits_at(mag, shift) & ((one << fmt->mant_bits) - 1);
	if (shift > 0 && (xacc_bits_at(mag, shift - 1) & 1) &&
	    ((q & 1) || xacc_any_below(mag, shift - 1)))
		q++;
	if (q >> fmt->mant_bits) {
		q >>= 1;
		shift++;
	}
	sign <<= fmt->sign_shift;
	if (q >> (fmt->mant_bits - 1)) {
		u64 e = shift - fmt->lsb + 1;

		if (e >= fmt->exp_max)
			return sign | inf;
		return sign | e << (fmt->mant_bits - 1) |
		       (q & ((one << (fmt->mant_bits - 1)) - 1));
	}
	return sign | q;	/* subnormal */
}

u64 torus_xacc_round_f64(const struct torus_xacc *a)
{
	return xacc_round(a, &xacc_f64, TORUS_XACC_NAN64);
}

u32 torus_xacc_round_f32(const struct torus_xacc *a)
{
	return (u32)xacc_round(a, &xacc_f32, TORUS_XACC_NAN32);
}

static void xacc_put_be64(u8 *p, u64 v)
{
	unsigned int i;

	for (i = 0; i < 8; i++)
		p[i] = v >> (56 - 8 * i);
}

static u64 xacc_get_be64(const u8 *p)
{
	unsigned int i;
	u64 v = 0;

	for (i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/**
 * torus_xacc_encode - the wire form of a sum
 * @a: the sum
 * @buf: where to write it
 * @room: bytes available at @buf
 *
 * Return: bytes written, 0 if they do not fit in @room.
 */
size_t torus_xacc_encode(const struct torus_xacc *a, u8 *buf, size_t room)
{
	u64 sign = a->w[TORUS_XACC_WORDS - 1] >> 63;
	u64 fill = sign ? ~0ULL : 0;
	unsigned int hi = TORUS_XACC_WORDS - 1, lo = 0, n = 0, i;

	/* drop the top words that only repeat the sign */
	while (hi > 0 && a->w[hi] == fill && a->w[hi - 1] >> 63 == sign)
		hi--;
	while (lo < hi && !a->w[lo])
		lo++;
	if (a->w[lo])
		n = hi - lo + 1;
	else
		lo = 0;
	if (room < TORUS_XACC_HEAD + 8 * (size_t)n)
		return 0;
	buf[0] = a->flags;
	buf[1] = lo;
	buf[2] = n;
	buf[3] = 0;
	for (i = 0; i < n; i++)
		xacc_put_be64(buf + TORUS_XACC_HEAD + 8 * i, a->w[lo + i]);
	return TORUS_XACC_HEAD + 8 * n;
}

/**
 * torus_xacc_decode_merge - add a sum in wire form to another
 * @a: the sum added to
 * @buf: the wire form (untrusted)
 * @len: bytes available at @buf
 *
 * Return: bytes consumed, 0 for a malformed or truncated form (@a is
 * then unchanged).
 */
size_t torus_xacc_decode_merge(struct torus_xacc *a, const u8 *buf,
			       size_t len)
{
	unsigned int lo, n, j;
	u64 fill, carry = 0;
	size_t need;

	if (len < TORUS_XACC_HEAD)
		return 0;
	lo = buf[1];
	n = buf[2];
	need = TORUS_XACC_HEAD + 8 * (size_t)n;
	if (buf[0] & ~TORUS_XACC_F_ALL || buf[3] || lo + n > TORUS_XACC_WORDS ||
	    len < need)
		return 0;
	buf += TORUS_XACC_HEAD;
	fill = n && buf[8 * (n - 1)] >> 7 ? ~0ULL : 0;
	for (j = lo; j < TORUS_XACC_WORDS; j++) {
		if (j - lo >= n && !fill && !carry)
			break;
		carry = xacc_add_word(&a->w[j], j - lo < n ?
				      xacc_get_be64(buf + 8 * (j - lo)) : fill,
				      carry);
	}
	a->flags |= buf[-TORUS_XACC_HEAD];
	return need;
}
