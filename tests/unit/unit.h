/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit.h - a tiny test harness for the torus tool's unit tests
 *
 * Each case prints exactly one line, "PASS: unit/<case>" or
 * "FAIL: unit/<case>" (the test aggregator parses these); the details of
 * a failure go to stderr.  The binary exits 1 if any case failed.
 *
 *	UNIT_TEST(name) { UNIT_CHECK(cond); UNIT_STREQ(a, b); }
 *	static const struct unit_case cases[] = { UNIT_CASE(name), ... };
 *	UNIT_MAIN(cases)
 */
#ifndef TORUS_UNIT_H
#define TORUS_UNIT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct unit_case {
	const char	*name;
	void		(*fn)(bool *ok);
};

#define UNIT_TEST(name)	static void unit_##name(bool *unit_ok)
#define UNIT_CASE(name)	{ #name, unit_##name }

#define UNIT_CHECK(cond)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "    %s:%d: check failed: %s\n",\
				__FILE__, __LINE__, #cond);		\
			*unit_ok = false;				\
		}							\
	} while (0)

#define UNIT_STREQ(got, want)						\
	do {								\
		const char *g_ = (got), *w_ = (want);			\
		if (!g_ || !w_ || strcmp(g_, w_)) {			\
			fprintf(stderr,					\
				"    %s:%d: %s\n      got:  \"%s\"\n      want: \"%s\"\n", \
				__FILE__, __LINE__, #got,		\
				g_ ? g_ : "(null)", w_ ? w_ : "(null)");\
			*unit_ok = false;				\
		}							\
	} while (0)


/*
 * The tests' random numbers (splitmix64): each case starts from a seed
 * of its name's, or seeds by assigning rng_state, so that a failing case
 * can be replayed.
 */
static uint64_t rng_state;

static inline uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}
/* a case's own first seed: its random numbers do not depend on the
 * cases run before it (UNIT_SHARD) */
static inline uint64_t unit_seed(const char *name)
{
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a */

	while (*name)
		h = (h ^ (unsigned char)*name++) * 0x100000001b3ULL;
	return h;
}

/*
 * UNIT_SHARD=i/k runs cases i, i + k, i + 2k, ... only, so that k
 * processes share the cases (tests/unit/par.sh)
 */
static inline void unit_shard(size_t *first, size_t *step)
{
	const char *s = getenv("UNIT_SHARD");
	unsigned long i, k;

	*first = 0;
	*step = 1;
	if (s && sscanf(s, "%lu/%lu", &i, &k) == 2 && k > 0 && i < k) {
		*first = i;
		*step = k;
	}
}

/*
 * UNIT_ONLY=SUBSTRING runs only the cases whose name contains it (to
 * rerun one case while working on it)
 */
static inline int unit_run(const struct unit_case *cases, size_t n)
{
	const char *only = getenv("UNIT_ONLY");
	size_t i, step;
	int failed = 0;
	bool ok;

	unit_shard(&i, &step);
	for (; i < n; i += step) {
		if (only && !strstr(cases[i].name, only))
			continue;
		ok = true;
		rng_state = unit_seed(cases[i].name);
		cases[i].fn(&ok);
		fflush(stderr);
		printf("%s: unit/%s\n", ok ? "PASS" : "FAIL", cases[i].name);
		fflush(stdout);
		if (!ok)
			failed++;
	}
	return failed ? 1 : 0;
}

#define UNIT_MAIN(cases)						\
	int main(void)							\
	{								\
		return unit_run(cases, sizeof(cases) / sizeof(cases[0]));\
	}

/* capture what a block of code writes to a FILE * */
struct unit_capture {
	FILE	*f;
	char	*buf;
	size_t	len;
};

static inline FILE *unit_capture_begin(struct unit_capture *c)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
	return c->f;
}

/* the text written; free() it */
static inline char *unit_capture_end(struct unit_capture *c)
{
	fclose(c->f);
	return c->buf;
}

#endif /* TORUS_UNIT_H */
