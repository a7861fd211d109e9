/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * troute_class.h - reach classes: the structure behind exact two-round
 * reachability (internal to the troute files and their tests)
 *
 * One round of plan P first corrects axis order[0].  What a source u
 * reaches depends only on the line of u along that axis and the arc of
 * it that u reaches: nodes with the same (line, arc) form a *source
 * class* with one reach set R.  Symmetrically what reaches a destination
 * v depends only on v's line along the last axis and the arc reaching v:
 * a *destination class* with one set S.  On a mesh these are the
 * paper's fault-free segments.  u reaches v in two rounds (P, P') iff
 * R_P(class u) and S_P'(class v) intersect (the intermediate is any
 * live node, lambs included).  Sets are bitsets over node indices.
 */
#ifndef TORUS_TROUTE_CLASS_H
#define TORUS_TROUTE_CLASS_H

#include "troute.h"

#define TROUTE_NOCLASS	UINT32_MAX

/**
 * struct troute_classes - the classes of one plan, one end
 * @in: destination classes (else source classes)
 * @plan: the plan (copied)
 * @n: number of classes
 * @of: [nnodes] class of each live node, TROUTE_NOCLASS if dead
 * @first: [n + 1] class k's members are members[first[k]..first[k+1])
 * @members: live nodes sorted by class, then index
 * @nwords: 64-bit words per bitset
 * @bits: [n] the class's reach set, NULL until troute_class_bits()
 * @lo, @hi: [n] the words of bits[k] that may be nonzero
 * @ngroups: classes grouped by fault-free segment of their line
 * @group: [n] group of each class
 * @gfirst, @gclass: group g's classes are gclass[gfirst[g]..gfirst[g+1])
 * @core_node, @core_len: the arc every class of the group holds
 *	(core_len 0: none); its set is a subset of every class's set, so
 *	two groups whose cores meet have all their class pairs meet
 * @core, @clo, @chi: [ngroups] the cores' sets, as @bits, @lo, @hi
 */
struct troute_classes {
	bool in;
	struct troute_plan plan;
	uint32_t n;
	uint32_t *of;
	uint32_t *first;
	uint32_t *members;
	size_t nwords;
	uint64_t **bits;
	uint32_t *lo, *hi;
	uint32_t ngroups;
	uint32_t *group, *gfirst, *gclass;
	uint32_t *core_node, *core_len;
	uint64_t **core;
	uint32_t *clo, *chi;
};

int troute_classes_build(const struct troute_ctx *c,
			 const struct troute_plan *p, bool in,
			 struct troute_classes *cl);
void troute_classes_free(struct troute_classes *cl);
/* class k's bitset, computed on first use; NULL if out of memory */
const uint64_t *troute_class_bits(const struct troute_ctx *c,
				  struct troute_classes *cl, uint32_t k);
/* the sets of source class a and destination class b intersect */
bool troute_class_meet(const struct troute_ctx *c, struct troute_classes *src,
		       uint32_t a, struct troute_classes *dst, uint32_t b);

/*
 * fn(arg, a, b) for every pair of source class a and destination class
 * b whose sets do not meet; groups whose cores meet are skipped whole
 */
typedef int (*troute_miss_fn)(void *arg, uint32_t a, uint32_t b);
int troute_class_misses(const struct troute_ctx *c,
			struct troute_classes *src, struct troute_classes *dst,
			troute_miss_fn fn, void *arg);

static inline bool troute_bit(const uint64_t *bits, unsigned int n)
{
	return bits[n >> 6] >> (n & 63) & 1;
}

#endif /* TORUS_TROUTE_CLASS_H */
