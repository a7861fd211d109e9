/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kshim.h - the few kernel types and helpers that kernel/torus_frame.c
 * and kernel/torus_route.c use, for compiling those files unmodified as
 * userspace code under libFuzzer (tests/fuzz/fuzz_kframe.c).  Every
 * <linux/...> header the two files include resolves here first; each
 * just includes this file.  Only what the files use, with the kernel's
 * semantics (pskb_may_pull fails past the end of the data, kvzalloc
 * zeroes, ERR_PTR encodes errnos in the top page).
 */
#ifndef TORUS_KSHIM_H
#define TORUS_KSHIM_H

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>	/* UINT_MAX */
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>	/* bsearch */
#include <string.h>

#include <linux/if_ether.h>
#include <linux/types.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s8 s8;
typedef __s16 s16;
typedef __s32 s32;
typedef __s64 s64;

#define __percpu
#define __rcu
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

/* linux/build_bug.h: the message is optional */
#define static_assert(expr, ...) __static_assert(expr, ##__VA_ARGS__, #expr)
#define __static_assert(expr, msg, ...) _Static_assert(expr, msg)

#define BIT(nr)		(1UL << (nr))
#define min(a, b)	((a) < (b) ? (a) : (b))
#define max(a, b)	((a) > (b) ? (a) : (b))
#define ALIGN(x, a)	(((x) + (a) - 1) & ~((__typeof__(x))(a) - 1))
#define struct_size(p, member, n) \
	(sizeof(*(p)) + (size_t)(n) * sizeof((p)->member[0]))

/* linux/log2.h */
static inline int ilog2(u64 n)
{
	return 63 - __builtin_clzll(n);
}

static inline unsigned long roundup_pow_of_two(unsigned long n)
{
	return n <= 1 ? 1 : 1UL << (64 - __builtin_clzl(n - 1));
}

/* linux/hash.h */
#define GOLDEN_RATIO_64 0x61C8864680B583EBull
static inline u32 hash_64(u64 val, unsigned int bits)
{
	return (u32)(val * GOLDEN_RATIO_64 >> (64 - bits));
}

/* linux/err.h */
#define MAX_ERRNO	4095
#define IS_ERR_VALUE(x)	((unsigned long)(x) >= (unsigned long)-MAX_ERRNO)
static inline void *ERR_PTR(long error)
{
	return (void *)error;
}

static inline long PTR_ERR(const void *ptr)
{
	return (long)ptr;
}

static inline bool IS_ERR(const void *ptr)
{
	return IS_ERR_VALUE((unsigned long)ptr);
}

/* linux/slab.h: the fuzzer's allocator is ASan's */
typedef unsigned int gfp_t;
#define GFP_KERNEL	0u
#define GFP_ATOMIC	1u
static inline void *kvzalloc(size_t size, gfp_t flags)
{
	(void)flags;
	return calloc(1, size);
}

static inline void kvfree(const void *p)
{
	free((void *)p);
}

/* the structures torus_priv.h names; only pointers to most of them */
struct list_head {
	struct list_head *next, *prev;
};

struct rcu_head {
	struct rcu_head *next;
	void (*func)(struct rcu_head *head);
};

typedef struct {
	u64 v;
} u64_stats_t;

struct u64_stats_sync {
	int unused;
};

typedef enum {
	NETDEV_TX_OK = 0,
	NETDEV_TX_BUSY = 0x10,
} netdev_tx_t;

typedef enum {
	RX_HANDLER_CONSUMED,
	RX_HANDLER_ANOTHER,
	RX_HANDLER_EXACT,
	RX_HANDLER_PASS,
} rx_handler_result_t;

struct net_device;
struct netlink_ext_ack;
struct rtnl_link_ops;

/* linux/skbuff.h: a linear buffer of @len bytes at @data */
struct sk_buff {
	unsigned char *data;
	unsigned int len;
};

/* members of torus_priv.h's structs the fuzzed code never touches */
struct sk_buff_head {
	struct sk_buff *next, *prev;
	unsigned int qlen;
};

struct napi_struct {
	int weight;
};

static inline bool pskb_may_pull(struct sk_buff *skb, unsigned int len)
{
	return len <= skb->len;
}

static inline void *skb_pull(struct sk_buff *skb, unsigned int len)
{
	if (len > skb->len)
		return NULL;
	skb->len -= len;
	skb->data += len;
	return skb->data;
}

#endif /* TORUS_KSHIM_H */
