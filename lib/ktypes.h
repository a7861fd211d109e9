/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktypes.h - the kernel's fixed-size integer names, for the pure files of
 * torus.ko that userspace builds too (kernel/torus_xacc.c,
 * kernel/torus_coll_tree.c).
 */
#ifndef TORUS_KTYPES_H
#define TORUS_KTYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;

#endif /* TORUS_KTYPES_H */
