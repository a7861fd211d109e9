/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libtorus - collective operations run by torus.ko, for programs on the
 * nodes of a torus fabric.  See libtorus(3).
 *
 * Every node of the fabric calls the same operations in the same order
 * (as MPI requires); the module combines the data in its fabric path and
 * answers each node.  Blocking calls return 0, or -1 with errno set;
 * non-blocking ones return a request to complete with torus_test() or
 * torus_wait(), and torus_fd() can be polled for progress.
 */
#ifndef _LIBTORUS_H
#define _LIBTORUS_H

#include <stddef.h>
#include <stdint.h>
#include <linux/torus.h>

#ifdef __cplusplus
extern "C" {
#endif

/* element types (enum torus_coll_type) */
#define TORUS_INT8	TORUS_COLL_INT8
#define TORUS_INT16	TORUS_COLL_INT16
#define TORUS_INT32	TORUS_COLL_INT32
#define TORUS_INT64	TORUS_COLL_INT64
#define TORUS_UINT8	TORUS_COLL_UINT8
#define TORUS_UINT16	TORUS_COLL_UINT16
#define TORUS_UINT32	TORUS_COLL_UINT32
#define TORUS_UINT64	TORUS_COLL_UINT64
#define TORUS_FLOAT	TORUS_COLL_FLOAT
#define TORUS_DOUBLE	TORUS_COLL_DOUBLE

/* reductions (enum torus_coll_op) */
#define TORUS_SUM	TORUS_COLL_SUM
#define TORUS_PROD	TORUS_COLL_PROD
#define TORUS_MIN	TORUS_COLL_MIN
#define TORUS_MAX	TORUS_COLL_MAX
#define TORUS_BAND	TORUS_COLL_BAND
#define TORUS_BOR	TORUS_COLL_BOR
#define TORUS_BXOR	TORUS_COLL_BXOR
#define TORUS_LAND	TORUS_COLL_LAND
#define TORUS_LOR	TORUS_COLL_LOR
#define TORUS_LXOR	TORUS_COLL_LXOR
#define TORUS_MINLOC	TORUS_COLL_MINLOC
#define TORUS_MAXLOC	TORUS_COLL_MAXLOC

/* the largest vector of one call, in bytes (split into segments that
 * run pipelined, see libtorus(3))
 */
#define TORUS_MAX_BYTES	(1U << 20)

struct torus_ctx;
struct torus_req;

struct torus_ctx *torus_open(const char *ifname);
void torus_close(struct torus_ctx *ctx);
int torus_fd(const struct torus_ctx *ctx);
const char *torus_errmsg(const struct torus_ctx *ctx);

/* geometry of the fabric, read at torus_open() */
unsigned int torus_ndims(const struct torus_ctx *ctx);
unsigned int torus_dims(const struct torus_ctx *ctx, uint32_t *dims);
uint32_t torus_rank(const struct torus_ctx *ctx);
uint32_t torus_size(const struct torus_ctx *ctx);
int torus_rank_of(const struct torus_ctx *ctx, const uint32_t *coord,
		  unsigned int n, uint32_t *rank);
int torus_coord_of(const struct torus_ctx *ctx, uint32_t rank,
		   uint32_t *coord);
int torus_set_timeout(struct torus_ctx *ctx, uint32_t ms);
/* groups: a line, a plane, ... through this node (0: the whole fabric) */
#define TORUS_GROUP_AXIS(axis)	(1U << (axis))
int torus_set_group(struct torus_ctx *ctx, uint32_t axes);
/* or a node list: any nodes, by rank, under a number of the program's */
#define TORUS_LIST_ID_MAX	0x7fff
int torus_set_members(struct torus_ctx *ctx, uint16_t id,
		      const uint32_t *ranks, size_t n);

size_t torus_type_size(int type);
int torus_type_from_name(const char *name);
const char *torus_type_name(int type);
int torus_op_from_name(const char *name);
const char *torus_op_name(int op);

/* blocking */
int torus_barrier(struct torus_ctx *ctx);
int torus_allreduce(struct torus_ctx *ctx, void *buf, size_t n, int type,
		    int op);
int torus_allreduce_loc(struct torus_ctx *ctx, void *buf, uint32_t *loc,
			size_t n, int type, int op);
int torus_reduce(struct torus_ctx *ctx, void *buf, size_t n, int type,
		 int op, uint32_t root);
int torus_bcast(struct torus_ctx *ctx, void *buf, size_t n, int type,
		uint32_t root);

/* non-blocking: @buf (and @loc) must stay valid until completion */
struct torus_req *torus_barrier_start(struct torus_ctx *ctx);
struct torus_req *torus_allreduce_start(struct torus_ctx *ctx, void *buf,
					size_t n, int type, int op);
struct torus_req *torus_allreduce_loc_start(struct torus_ctx *ctx,
					    void *buf, uint32_t *loc,
					    size_t n, int type, int op);
struct torus_req *torus_reduce_start(struct torus_ctx *ctx, void *buf,
				     size_t n, int type, int op,
				     uint32_t root);
struct torus_req *torus_bcast_start(struct torus_ctx *ctx, void *buf,
				    size_t n, int type, uint32_t root);
int torus_test(struct torus_req *req);
int torus_wait(struct torus_req *req);
uint32_t torus_last_seq(const struct torus_ctx *ctx);

#ifdef __cplusplus
}
#endif

#endif /* _LIBTORUS_H */
