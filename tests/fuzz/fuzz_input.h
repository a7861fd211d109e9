/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_input.h - reading a libFuzzer input as a stream of choices.
 * Past the end every read gives zeros, so any input is a valid program.
 */
#ifndef TORUS_FUZZ_INPUT_H
#define TORUS_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct fz {
	const uint8_t *p;
	size_t n;
};

static inline uint8_t fz_u8(struct fz *f)
{
	if (!f->n)
		return 0;
	f->n--;
	return *f->p++;
}

static inline uint16_t fz_u16(struct fz *f)
{
	uint16_t hi = fz_u8(f);

	return (uint16_t)(hi << 8 | fz_u8(f));
}

/* up to @want bytes of the input, in place; *@got says how many */
static inline const uint8_t *fz_bytes(struct fz *f, size_t want, size_t *got)
{
	const uint8_t *p = f->p;

	*got = want < f->n ? want : f->n;
	f->p += *got;
	f->n -= *got;
	return p;
}

/* a broken invariant: report it the way a sanitizer would, and stop */
#define FZ_ASSERT(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: invariant failed: %s\n",	\
				__FILE__, __LINE__, #cond);		\
			abort();					\
		}							\
	} while (0)

#endif /* TORUS_FUZZ_INPUT_H */
