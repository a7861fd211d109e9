// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Which MPI datatypes and ops the fabric can reduce, and how.
 *
 * Only predefined types go to the fabric, with the ops the MPI standard
 * allows on their class (integers: arithmetic, bitwise and logical;
 * floating: SUM, PROD, MIN, MAX; bytes: bitwise; booleans: logical;
 * value-index pairs: MINLOC, MAXLOC).  Any other combination is left to
 * the MPI library, which reports what it must.
 */
#include <limits.h>
#include <stddef.h>

#include "torus_mpi.h"

enum tm_class { TM_INTEGER, TM_FLOATING, TM_BYTE, TM_LOGICAL };

struct tm_type {
	MPI_Datatype dt;
	int type;
	enum tm_class cls;
};

/* the pair types' layouts, as C lays out the structs MPI describes */
struct tm_float_int { float v; int i; };
struct tm_double_int { double v; int i; };
struct tm_long_int { long v; int i; };
struct tm_2int { int v; int i; };
struct tm_short_int { short v; int i; };

#define TM_INT_OF(t) (sizeof(t) == 1 ? TORUS_INT8 : sizeof(t) == 2 ? \
	TORUS_INT16 : sizeof(t) == 4 ? TORUS_INT32 : TORUS_INT64)
#define TM_UINT_OF(t) (sizeof(t) == 1 ? TORUS_UINT8 : sizeof(t) == 2 ? \
	TORUS_UINT16 : sizeof(t) == 4 ? TORUS_UINT32 : TORUS_UINT64)

/* MPI handles are not constant expressions in every MPI: a function */
static int tm_lookup(MPI_Datatype dt, struct tm_type *out)
{
	const struct tm_type types[] = {
		{ MPI_CHAR, CHAR_MIN < 0 ? TORUS_INT8 : TORUS_UINT8,
		  TM_INTEGER },
		{ MPI_SIGNED_CHAR, TORUS_INT8, TM_INTEGER },
		{ MPI_UNSIGNED_CHAR, TORUS_UINT8, TM_INTEGER },
		{ MPI_SHORT, TM_INT_OF(short), TM_INTEGER },
		{ MPI_UNSIGNED_SHORT, TM_UINT_OF(short), TM_INTEGER },
		{ MPI_INT, TM_INT_OF(int), TM_INTEGER },
		{ MPI_UNSIGNED, TM_UINT_OF(int), TM_INTEGER },
		{ MPI_LONG, TM_INT_OF(long), TM_INTEGER },
		{ MPI_UNSIGNED_LONG, TM_UINT_OF(long), TM_INTEGER },
		{ MPI_LONG_LONG, TM_INT_OF(long long), TM_INTEGER },
		{ MPI_LONG_LONG_INT, TM_INT_OF(long long), TM_INTEGER },
		{ MPI_UNSIGNED_LONG_LONG, TM_UINT_OF(long long), TM_INTEGER },
		{ MPI_INT8_T, TORUS_INT8, TM_INTEGER },
		{ MPI_INT16_T, TORUS_INT16, TM_INTEGER },
		{ MPI_INT32_T, TORUS_INT32, TM_INTEGER },
		{ MPI_INT64_T, TORUS_INT64, TM_INTEGER },
		{ MPI_UINT8_T, TORUS_UINT8, TM_INTEGER },
		{ MPI_UINT16_T, TORUS_UINT16, TM_INTEGER },
		{ MPI_UINT32_T, TORUS_UINT32, TM_INTEGER },
		{ MPI_UINT64_T, TORUS_UINT64, TM_INTEGER },
		{ MPI_AINT, TM_INT_OF(MPI_Aint), TM_INTEGER },
		{ MPI_OFFSET, TM_INT_OF(MPI_Offset), TM_INTEGER },
		{ MPI_INTEGER, TM_INT_OF(MPI_Fint), TM_INTEGER },
		{ MPI_FLOAT, TORUS_FLOAT, TM_FLOATING },
		{ MPI_DOUBLE, TORUS_DOUBLE, TM_FLOATING },
		{ MPI_REAL, TORUS_FLOAT, TM_FLOATING },
		{ MPI_DOUBLE_PRECISION, TORUS_DOUBLE, TM_FLOATING },
		{ MPI_BYTE, TORUS_UINT8, TM_BYTE },
		{ MPI_C_BOOL, TM_UINT_OF(_Bool), TM_LOGICAL },
		{ MPI_LOGICAL, TM_INT_OF(MPI_Fint), TM_LOGICAL },
	};
	size_t i;

	if (dt == MPI_DATATYPE_NULL)
		return -1;
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (types[i].dt == dt) {
			*out = types[i];
			return 0;
		}
	return -1;
}

static int tm_pair(MPI_Datatype dt, struct tm_red *red)
{
	const struct {
		MPI_Datatype dt;
		int type;
		size_t size, extent, idx_off;
	} pairs[] = {
		{ MPI_FLOAT_INT, TORUS_FLOAT, sizeof(float),
		  sizeof(struct tm_float_int), offsetof(struct tm_float_int, i) },
		{ MPI_DOUBLE_INT, TORUS_DOUBLE, sizeof(double),
		  sizeof(struct tm_double_int),
		  offsetof(struct tm_double_int, i) },
		{ MPI_LONG_INT, TM_INT_OF(long), sizeof(long),
		  sizeof(struct tm_long_int), offsetof(struct tm_long_int, i) },
		{ MPI_2INT, TM_INT_OF(int), sizeof(int),
		  sizeof(struct tm_2int), offsetof(struct tm_2int, i) },
		{ MPI_SHORT_INT, TM_INT_OF(short), sizeof(short),
		  sizeof(struct tm_short_int), offsetof(struct tm_short_int, i) },
	};
	size_t i;

	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
		if (pairs[i].dt == dt) {
			red->type = pairs[i].type;
			red->size = pairs[i].size;
			red->extent = pairs[i].extent;
			red->idx_off = pairs[i].idx_off;
			red->pair = true;
			return 0;
		}
	return -1;
}

static int tm_op(MPI_Op op)
{
	const struct { MPI_Op op; int torus; } ops[] = {
		{ MPI_SUM, TORUS_SUM }, { MPI_PROD, TORUS_PROD },
		{ MPI_MIN, TORUS_MIN }, { MPI_MAX, TORUS_MAX },
		{ MPI_BAND, TORUS_BAND }, { MPI_BOR, TORUS_BOR },
		{ MPI_BXOR, TORUS_BXOR }, { MPI_LAND, TORUS_LAND },
		{ MPI_LOR, TORUS_LOR }, { MPI_LXOR, TORUS_LXOR },
		{ MPI_MINLOC, TORUS_MINLOC }, { MPI_MAXLOC, TORUS_MAXLOC },
	};
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (ops[i].op == op)
			return ops[i].torus;
	return -1;
}

static bool tm_allowed(enum tm_class cls, int op)
{
	switch (op) {
	case TORUS_SUM:
	case TORUS_PROD:
	case TORUS_MIN:
	case TORUS_MAX:
		return cls == TM_INTEGER || cls == TM_FLOATING;
	case TORUS_BAND:
	case TORUS_BOR:
	case TORUS_BXOR:
		return cls == TM_INTEGER || cls == TM_BYTE;
	case TORUS_LAND:
	case TORUS_LOR:
	case TORUS_LXOR:
		return cls == TM_INTEGER || cls == TM_LOGICAL;
	default:
		return false;
	}
}

/**
 * tm_reduction - how the fabric reduces @dt with @op
 * @red: filled when it can
 *
 * Return: NULL, or why the call falls back.
 */
const char *tm_reduction(MPI_Datatype dt, MPI_Op op, struct tm_red *red)
{
	struct tm_type t;
	int top = tm_op(op);

	*red = (struct tm_red){ 0 };
	if (top < 0)
		return "a user-defined op";
	if (top == TORUS_MINLOC || top == TORUS_MAXLOC) {
		if (tm_pair(dt, red))
			return "MINLOC/MAXLOC on a type that is not a value-index pair of the fabric";
		/* the values' MIN or MAX, then the lowest index holding it */
		red->op = top == TORUS_MINLOC ? TORUS_MIN : TORUS_MAX;
		return NULL;
	}
	if (tm_lookup(dt, &t))
		return "a derived or unsupported datatype";
	if (!tm_allowed(t.cls, top))
		return "an op the datatype does not take";
	red->type = t.type;
	red->op = top;
	red->size = torus_type_size(t.type);
	red->extent = red->size;
	return NULL;
}

/**
 * tm_plain - the bytes of one element of @dt, for a broadcast
 *
 * Any predefined type is bytes to move; a derived one may have holes.
 *
 * Return: NULL, or why the call falls back.
 */
const char *tm_plain(MPI_Datatype dt, size_t *size)
{
	int ni, na, nd, combiner, bytes;
	MPI_Aint lb, extent;

	if (dt == MPI_DATATYPE_NULL ||
	    PMPI_Type_get_envelope(dt, &ni, &na, &nd, &combiner) ||
	    combiner != MPI_COMBINER_NAMED ||
	    PMPI_Type_size(dt, &bytes) || PMPI_Type_get_extent(dt, &lb, &extent) ||
	    bytes <= 0 || lb != 0 || extent != bytes)
		return "a derived or unsupported datatype";
	*size = (size_t)bytes;
	return NULL;
}
