/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gen_corpus.h - the seed corpus generator (tests/fuzz/gen_corpus.c,
 * gen_corpus_kernel.c): small valid inputs made by the real encoders.
 */
#ifndef TORUS_GEN_CORPUS_H
#define TORUS_GEN_CORPUS_H

#include <stddef.h>
#include <stdint.h>

/* a growable input being written */
struct seed {
	uint8_t buf[32768];
	size_t len;
};

void seed_put(struct seed *s, const void *p, size_t n);
void seed_u8(struct seed *s, uint8_t v);
/* write @s as <dir>/<harness>/<name> */
void seed_save(const char *dir, const char *harness, const char *name,
	       const struct seed *s);

/* gen_corpus_kernel.c: seeds of fuzz_kframe */
void gen_kframe(const char *dir);

#endif /* TORUS_GEN_CORPUS_H */
