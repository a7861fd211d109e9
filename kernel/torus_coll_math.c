// SPDX-License-Identifier: GPL-2.0
/*
 * The reduction arithmetic of collectives: element types, operations,
 * and how two elements combine (see the uapi header's DOC: collectives).
 */
#include <asm/unaligned.h>

#include "torus_priv.h"
#include "torus_coll.h"
#include "torus_coll_priv.h"

unsigned int torus_coll_type_size(u8 type)
{
	static const u8 size[] = {
		[TORUS_COLL_INT8] = 1, [TORUS_COLL_INT16] = 2,
		[TORUS_COLL_INT32] = 4, [TORUS_COLL_INT64] = 8,
		[TORUS_COLL_UINT8] = 1, [TORUS_COLL_UINT16] = 2,
		[TORUS_COLL_UINT32] = 4, [TORUS_COLL_UINT64] = 8,
		[TORUS_COLL_FLOAT] = 4, [TORUS_COLL_DOUBLE] = 8,
	};

	return type <= TORUS_COLL_TYPE_MAX ? size[type] : 0;
}

static bool coll_type_float(u8 type)
{
	return type == TORUS_COLL_FLOAT || type == TORUS_COLL_DOUBLE;
}

static bool coll_type_signed(u8 type)
{
	return type <= TORUS_COLL_INT64;
}

/* floats: every op but the bitwise ones; integers: every op */
bool torus_coll_op_valid(u8 type, u8 op)
{
	if (type > TORUS_COLL_TYPE_MAX || op > TORUS_COLL_OP_MAX)
		return false;
	if (coll_type_float(type))
		return op != TORUS_COLL_BAND && op != TORUS_COLL_BOR &&
		       op != TORUS_COLL_BXOR;
	return true;
}

static bool coll_op_logical(u8 op)
{
	return op == TORUS_COLL_LAND || op == TORUS_COLL_LOR ||
	       op == TORUS_COLL_LXOR;
}

/* minloc and maxloc carry a rank beside each value */
bool torus_coll_op_has_loc(u8 op)
{
	return op == TORUS_COLL_MINLOC || op == TORUS_COLL_MAXLOC;
}

bool torus_coll_kind_reduces(u8 kind)
{
	return kind == TORUS_COLL_ALLREDUCE || kind == TORUS_COLL_REDUCE;
}

/* an element in host order -> u64 (integers sign-extended) */
u64 torus_coll_load(u8 type, const void *p)
{
	switch (torus_coll_type_size(type)) {
	case 1:
		return coll_type_signed(type) ? (u64)(s64)*(const s8 *)p :
						*(const u8 *)p;
	case 2:
		return coll_type_signed(type) ?
		       (u64)(s64)get_unaligned((const s16 *)p) :
		       get_unaligned((const u16 *)p);
	case 4:
		return coll_type_signed(type) ?
		       (u64)(s64)get_unaligned((const s32 *)p) :
		       get_unaligned((const u32 *)p);
	default:
		return get_unaligned((const u64 *)p);
	}
}

void torus_coll_store(u8 type, u64 v, void *p)
{
	switch (torus_coll_type_size(type)) {
	case 1:
		*(u8 *)p = v;
		break;
	case 2:
		put_unaligned((u16)v, (u16 *)p);
		break;
	case 4:
		put_unaligned((u32)v, (u32 *)p);
		break;
	default:
		put_unaligned(v, (u64 *)p);
	}
}

/* Floats in a total order: -nan < -inf < ... < -0 < +0 < ... < +nan. */
static u64 coll_float_key(u64 bits, unsigned int width)
{
	u64 sign = 1ULL << (width - 1);
	u64 mask = width == 64 ? ~0ULL : (1ULL << width) - 1;

	return bits & sign ? ~bits & mask : bits | sign;
}

static bool coll_float_nan(u64 bits, unsigned int width)
{
	u64 sign = 1ULL << (width - 1);

	/* magnitude above inf's */
	return (bits & (sign - 1)) >
	       (width == 64 ? 0x7ff0000000000000ULL : 0x7f800000ULL);
}

/* min or max of two floats: any nan gives the canonical one */
static u64 coll_float_minmax(u8 type, bool max, u64 a, u64 b)
{
	unsigned int width = 8 * torus_coll_type_size(type);
	u64 ka, kb;

	if (coll_float_nan(a, width) || coll_float_nan(b, width))
		return width == 64 ? TORUS_XACC_NAN64 : TORUS_XACC_NAN32;
	ka = coll_float_key(a, width);
	kb = coll_float_key(b, width);
	return (max ? ka >= kb : ka <= kb) ? a : b;
}

/**
 * torus_coll_combine - reduce two elements
 * @type: enum torus_coll_type
 * @op: enum torus_coll_op, valid for @type (float sums go through
 *	struct torus_xacc instead)
 * @a: one element, as torus_coll_load() gives it
 * @b: the other
 *
 * Commutative and associative for every valid pair, so the tree's shape
 * and the order of arrival do not change the result.
 *
 * Return: the reduction, sign-extended for signed integer types.
 */
u64 torus_coll_combine(u8 type, u8 op, u64 a, u64 b)
{
	bool sgn = coll_type_signed(type);
	unsigned int bits = 8 * torus_coll_type_size(type);
	u64 r;

	if (coll_type_float(type) && !coll_op_logical(op))
		return coll_float_minmax(type, op == TORUS_COLL_MAX ||
					 op == TORUS_COLL_MAXLOC, a, b);
	switch (op) {
	case TORUS_COLL_SUM:
		r = a + b;
		break;
	case TORUS_COLL_PROD:
		r = a * b;
		break;
	case TORUS_COLL_MIN:
	case TORUS_COLL_MINLOC:
		return sgn ? ((s64)a < (s64)b ? a : b) : min(a, b);
	case TORUS_COLL_MAX:
	case TORUS_COLL_MAXLOC:
		return sgn ? ((s64)a > (s64)b ? a : b) : max(a, b);
	case TORUS_COLL_BAND:
		return a & b;
	case TORUS_COLL_BOR:
		return a | b;
	case TORUS_COLL_BXOR:
		return a ^ b;
	case TORUS_COLL_LAND:
		return a && b;
	case TORUS_COLL_LOR:
		return a || b;
	default:
		return !a != !b;
	}
	/* wrap to the type's width, as C does for unsigned arithmetic */
	if (bits < 64) {
		r &= (1ULL << bits) - 1;
		if (sgn && r >> (bits - 1))
			r |= ~0ULL << bits;
	}
	return r;
}

/**
 * torus_coll_combine_loc - reduce two (value, rank) pairs: minloc, maxloc
 * @type: enum torus_coll_type
 * @op: TORUS_COLL_MINLOC or TORUS_COLL_MAXLOC
 * @a: one value
 * @la: its rank
 * @b: the other value
 * @lb: its rank
 * @loc: the result's rank: the lowest rank holding the result (a nan
 *	result: the lowest rank holding a nan)
 *
 * Return: the value, as torus_coll_combine() gives it.
 */
u64 torus_coll_combine_loc(u8 type, u8 op, u64 a, u32 la, u64 b, u32 lb,
			   u32 *loc)
{
	u64 r = torus_coll_combine(type, op, a, b);

	if (coll_type_float(type)) {
		unsigned int width = 8 * torus_coll_type_size(type);
		bool na = coll_float_nan(a, width), nb = coll_float_nan(b, width);

		if (na || nb) {
			*loc = na && nb ? min(la, lb) : na ? la : lb;
			return r;
		}
	}
	if (r == a && r == b)
		*loc = min(la, lb);
	else
		*loc = r == a ? la : lb;
	return r;
}

/*
 * A node's own value as it enters the reduction: the logical ops see
 * zero or not (a float is zero when it is +0 or -0; a nan is not), so
 * their result is 0 or 1 even for one node.
 */
u64 torus_coll_prepare(u8 type, u8 op, u64 v)
{
	if (!coll_op_logical(op))
		return v;
	if (coll_type_float(type))
		return !!(v & ((1ULL << (8 * torus_coll_type_size(type) - 1)) -
			       1));
	return !!v;
}

bool torus_coll_uses_xacc(u8 kind, u8 type, u8 op)
{
	return torus_coll_kind_reduces(kind) && coll_type_float(type) &&
	       op == TORUS_COLL_SUM;
}

bool torus_coll_uses_xprod(u8 kind, u8 type, u8 op)
{
	return torus_coll_kind_reduces(kind) && coll_type_float(type) &&
	       op == TORUS_COLL_PROD;
}

/**
 * torus_coll_finalize - the root turns one element's reduction into the
 * result every node gets
 * @type: enum torus_coll_type
 * @op: enum torus_coll_op
 * @v: the reduced value (ignored when @acc or @prod is given)
 * @acc: the exact sum (float and double sums), or NULL
 * @prod: the exact product (float and double products), or NULL
 * @out: the result bits
 *
 * Return: 0, or -EOVERFLOW for a product too long to hold exactly.
 */
int torus_coll_finalize(u8 type, u8 op, u64 v, const struct torus_xacc *acc,
			const struct torus_xprod *prod, u64 *out)
{
	bool dbl = type == TORUS_COLL_DOUBLE;

	if (acc) {
		*out = dbl ? torus_xacc_round_f64(acc) :
			     torus_xacc_round_f32(acc);
	} else if (prod) {
		if (torus_xprod_big(prod))
			return -EOVERFLOW;
		*out = dbl ? torus_xprod_round_f64(prod) :
			     torus_xprod_round_f32(prod);
	} else if (coll_type_float(type) && coll_op_logical(op)) {
		/* true and false as the type's 1.0 and +0 */
		*out = !v ? 0 : dbl ? 0x3ff0000000000000ULL : 0x3f800000ULL;
	} else {
		*out = v;
	}
	return 0;
}
