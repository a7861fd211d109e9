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

/*
 * Exact products, rounded once at the end.  A product of binary64 (or
 * binary32) values is an odd integer times a power of two; multiplying
 * integers is exact, commutative and associative, so the result depends
 * on neither order nor grouping.  Rounding: to nearest, ties to even,
 * subnormal results rounded at 2^-1074 (2^-149), beyond the format's
 * range an infinity.  Specials: any nan, or zero times infinity, gives
 * the canonical nan; otherwise an infinity or a zero factor gives an
 * infinity or a zero; the sign is the product of the signs, zeros and
 * infinities included.  A product whose integer outgrows
 * TORUS_XPROD_WORDS words gives the canonical nan: the caller refuses
 * it (see torus_xprod_big()).
 */

void torus_xprod_init(struct torus_xprod *p)
{
	p->m[0] = 1;
	p->exp = 0;
	p->words = 1;
	p->flags = 0;
}

/* hi:lo = a * b, in 32-bit halves (no 128-bit type needed) */
static u64 xprod_mul64(u64 a, u64 b, u64 *hi)
{
	u64 al = (u32)a, ah = a >> 32, bl = (u32)b, bh = b >> 32;
	u64 ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
	u64 mid = (ll >> 32) + (u32)lh + (u32)hl;

	*hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
	return (mid << 32) | (u32)ll;
}

/*
 * p->m *= q (words of q: qn); sets F_BIG and stops when it outgrows.
 * Both top words are nonzero, so the product has at least
 * p->words + qn - 1 words: that many is refused before multiplying.
 */
static void xprod_mul_words(struct torus_xprod *p, const u64 *q,
			    unsigned int qn)
{
	u64 r[TORUS_XPROD_WORDS + 1] = { 0 };
	unsigned int i, j, n = p->words + qn;

	if (p->flags & TORUS_XPROD_F_BIG)
		return;
	if (n - 1 > TORUS_XPROD_WORDS) {
		p->flags |= TORUS_XPROD_F_BIG;
		return;
	}
	for (i = 0; i < p->words; i++) {
		u64 carry = 0;

		for (j = 0; j < qn; j++) {
			u64 hi, lo = xprod_mul64(p->m[i], q[j], &hi);

			lo += carry;
			hi += lo < carry;
			r[i + j] += lo;
			hi += r[i + j] < lo;
			carry = hi;
		}
		r[i + qn] += carry;
	}
	while (n > 1 && !r[n - 1])
		n--;
	if (n > TORUS_XPROD_WORDS) {
		p->flags |= TORUS_XPROD_F_BIG;
		return;
	}
	for (i = 0; i < n; i++)
		p->m[i] = r[i];
	p->words = n;
}

static void xprod_mul_value(struct torus_xprod *p, const struct xacc_format *f,
			    u64 bits)
{
	unsigned int frac_bits = f->mant_bits - 1;
	u64 frac = bits & ((1ULL << frac_bits) - 1);
	unsigned int e = (bits >> frac_bits) & f->exp_max;
	/* the exponent of the smallest subnormal: -1074 or -149 */
	int emin = 1 - (int)(f->exp_max >> 1) - (int)frac_bits;
	int exp;

	if (bits >> f->sign_shift & 1)
		p->flags ^= TORUS_XPROD_F_NEG;
	if (e == f->exp_max) {
		p->flags |= frac ? TORUS_XPROD_F_NAN : TORUS_XPROD_F_INF;
		return;
	}
	if (!e && !frac) {
		p->flags |= TORUS_XPROD_F_ZERO;
		return;
	}
	exp = e ? emin + (int)e - 1 : emin;
	if (e)
		frac |= 1ULL << frac_bits;
	while (!(frac & 1)) {	/* keep the integer odd */
		frac >>= 1;
		exp++;
	}
	p->exp += exp;
	xprod_mul_words(p, &frac, 1);
}

void torus_xprod_mul_f64(struct torus_xprod *p, u64 bits)
{
	xprod_mul_value(p, &xacc_f64, bits);
}

void torus_xprod_mul_f32(struct torus_xprod *p, u32 bits)
{
	xprod_mul_value(p, &xacc_f32, bits);
}

void torus_xprod_merge(struct torus_xprod *p, const struct torus_xprod *q)
{
	p->flags = (p->flags | (q->flags & ~TORUS_XPROD_F_NEG)) ^
		   (q->flags & TORUS_XPROD_F_NEG);
	p->exp += q->exp;
	xprod_mul_words(p, q->m, q->words);
}

static unsigned int xprod_bit(const struct torus_xprod *p, long pos)
{
	if (pos < 0 || pos >= 64L * p->words)
		return 0;
	return p->m[pos / 64] >> (pos % 64) & 1;
}

/* any bit of m below @pos set? */
static bool xprod_sticky(const struct torus_xprod *p, long pos)
{
	long w;

	for (w = 0; w < p->words && 64 * w < pos; w++) {
		u64 mask = pos - 64 * w >= 64 ? ~0ULL :
			   (1ULL << (pos - 64 * w)) - 1;

		if (p->m[w] & mask)
			return true;
	}
	return false;
}

static u64 xprod_round(const struct torus_xprod *p,
		       const struct xacc_format *f, u64 nan)
{
	unsigned int frac_bits = f->mant_bits - 1;
	int emin = 1 - (int)(f->exp_max >> 1) - (int)frac_bits;
	u64 sign = (u64)(p->flags & TORUS_XPROD_F_NEG) << f->sign_shift;
	u64 inf = (u64)f->exp_max << frac_bits;
	long len, top, q, shift, i;
	u64 sig = 0;

	if (p->flags & (TORUS_XPROD_F_NAN | TORUS_XPROD_F_BIG) ||
	    (p->flags & TORUS_XPROD_F_ZERO && p->flags & TORUS_XPROD_F_INF))
		return nan;
	if (p->flags & TORUS_XPROD_F_INF)
		return sign | inf;
	if (p->flags & TORUS_XPROD_F_ZERO)
		return sign;
	len = 64L * (p->words - 1) + 64 - __builtin_clzll(p->m[p->words - 1]);
	top = p->exp + len - 1;		/* exponent of the leading bit */
	/* the weight of the result's last bit: normal, or subnormal */
	q = top - (long)frac_bits >= emin ? top - (long)frac_bits : emin;
	shift = q - p->exp;
	if (shift <= 0) {
		sig = p->m[0] << -shift;	/* len - shift <= mant_bits */
	} else {
		for (i = f->mant_bits - 1; i >= 0; i--)
			sig = sig << 1 | xprod_bit(p, shift + i);
		if (xprod_bit(p, shift - 1) &&
		    (xprod_sticky(p, shift - 1) || (sig & 1)))
			sig++;
		if (sig >> f->mant_bits) {	/* rounded up to 2^mant_bits */
			sig >>= 1;
			q++;
		}
	}
	if (q - emin + 1 >= (long)f->exp_max)
		return sign | inf;
	/* normal: the hidden bit carries into the exponent field */
	return sign | (((u64)(q - emin) << frac_bits) + sig);
}

u64 torus_xprod_round_f64(const struct torus_xprod *p)
{
	return xprod_round(p, &xacc_f64, TORUS_XACC_NAN64);
}

u32 torus_xprod_round_f32(const struct torus_xprod *p)
{
	return xprod_round(p, &xacc_f32, TORUS_XACC_NAN32);
}

/**
 * torus_xprod_encode - the wire form of a product
 * @p: the product
 * @buf: where to write it
 * @room: bytes available at @buf
 *
 * Return: bytes written, 0 if they do not fit in @room.
 */
size_t torus_xprod_encode(const struct torus_xprod *p, u8 *buf, size_t room)
{
	size_t need = TORUS_XPROD_HEAD + 8 * (size_t)p->words;
	unsigned int i;

	if (room < need)
		return 0;
	buf[0] = p->flags;
	buf[1] = p->words;
	buf[2] = 0;
	buf[3] = 0;
	buf[4] = (u32)p->exp >> 24;
	buf[5] = (u32)p->exp >> 16;
	buf[6] = (u32)p->exp >> 8;
	buf[7] = (u32)p->exp;
	for (i = 0; i < p->words; i++)
		xacc_put_be64(buf + TORUS_XPROD_HEAD + 8 * i, p->m[i]);
	return need;
}

/**
 * torus_xprod_decode_merge - multiply a product by one in wire form
 * @p: the product multiplied
 * @buf: the wire form (untrusted)
 * @len: bytes available at @buf
 *
 * Return: bytes consumed, 0 for a malformed or truncated form (@p is
 * then unchanged).
 */
size_t torus_xprod_decode_merge(struct torus_xprod *p, const u8 *buf,
				size_t len)
{
	struct torus_xprod q;
	unsigned int i;
	size_t need;

	if (len < TORUS_XPROD_HEAD)
		return 0;
	q.flags = buf[0];
	q.words = buf[1];
	need = TORUS_XPROD_HEAD + 8 * (size_t)q.words;
	if (q.flags & ~TORUS_XPROD_F_ALL || buf[2] || buf[3] || !q.words ||
	    q.words > TORUS_XPROD_WORDS || len < need)
		return 0;
	q.exp = (s32)((u32)buf[4] << 24 | (u32)buf[5] << 16 |
		      (u32)buf[6] << 8 | buf[7]);
	for (i = 0; i < q.words; i++)
		q.m[i] = xacc_get_be64(buf + TORUS_XPROD_HEAD + 8 * i);
	/* odd, with no zero top word: the form every product has */
	if (!(q.m[0] & 1) || !q.m[q.words - 1] ||
	    q.exp > 1 << 24 || q.exp < -(1 << 24))
		return 0;
	torus_xprod_merge(p, &q);
	return need;
}

/* the product outgrew TORUS_XPROD_WORDS: its result is refused */
bool torus_xprod_big(const struct torus_xprod *p)
{
	return p->flags & TORUS_XPROD_F_BIG;
}
