/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Collectives in torus.ko: the engine (torus_coll.c and the files it
 * names in torus_coll_priv.h), its reduction arithmetic
 * (torus_coll_math.c) and its netlink side (torus_coll_nl.c).
 */
#ifndef _TORUS_COLL_H
#define _TORUS_COLL_H

#include <linux/netdevice.h>
#include <linux/sizes.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <linux/torus.h>
#include <net/netlink.h>

#include "torus_xacc.h"

struct genl_info;
struct torus_geom;
struct torus_node;
struct torus_port;

/* operations a node tracks at once: in flight, or announced by a
 * neighbour before this node joined them
 */
#define TORUS_COLL_SLOTS	16
/* groups: 0, the whole fabric, or a bit per axis (a line, a plane, ...) */
#define TORUS_COLL_GROUPS	BIT(TORUS_MAX_AXES)
/*
 * A node-list group's tree is 4-ary over the members' indices: a child's
 * edge is its number among its parent's children, the parent's edge is
 * the one after them (struct torus_coll_slot @edge).
 */
#define TORUS_COLL_LIST_FANOUT	4
#define TORUS_COLL_LIST_PARENT	TORUS_COLL_LIST_FANOUT
#define TORUS_COLL_LIST_EDGES	(TORUS_COLL_LIST_FANOUT + 1)
/* frames kept per operation until this node joins it */
#define TORUS_COLL_EARLY_MAX	256
/*
 * Bytes (truesize) of the frames a node keeps for operations it has not
 * joined, all together: what its children send up ahead of its join for
 * the largest exact sum, with room to spare.  A neighbour cannot make a
 * node hold more.
 */
#define TORUS_COLL_EARLY_BYTES	SZ_4M
/*
 * A broadcast that names its root runs down the tree rooted there, with
 * no phase up, and each node picks per child how the data goes, as the
 * patent's pre-allreduce picks a protocol per neighbourhood: up to this
 * many elements it is sent at once, into the child's result if the child
 * has joined, else into its early queue (buffered, the patent's memory
 * FIFO); a larger one waits for the child's READY, which says that its
 * result array is posted, and then goes straight into it (direct
 * placement).  So a node never holds a large message ahead of its own
 * join, and a late node delays only its parent and the nodes below it.
 */
#define TORUS_COLL_EAGER_MAX	64
/*
 * Flow control of a rendezvous broadcast, as a real fabric's credits: a
 * child's READY lets its parent send it this many DOWN frames beyond
 * those it has received, and the child renews it each time half of them
 * have come.  So a node has a bounded number of frames in flight towards
 * each child, on any port, whatever the message's size (a placed
 * broadcast is one operation of up to 1 MiB).
 */
#define TORUS_COLL_CREDITS	16
/*
 * An operation only neighbours have joined is forgotten after this (the
 * default timeout: by then its members have failed it, unless they asked
 * for longer), and a join takes the slot of such an operation when no
 * slot is free.
 */
#define TORUS_COLL_EARLY_MS	TORUS_COLL_TIMEOUT_MS
/* bytes of result a netlink answer carries (nla_len is 16 bits) */
#define TORUS_COLL_RESULT_MAX	(U16_MAX - NLA_HDRLEN)
/* bytes of elements in a frame: at least what a standard Ethernet frame
 * holds, more when the ports' MTU allows (torus_coll_frame.c)
 */
#define TORUS_COLL_FRAME_ROOM	(ETH_DATA_LEN - TORUS_HDR_LEN - \
				 TORUS_COLL_HDR_LEN)
/*
 * Elements of at least this many bytes are passed on to children by
 * reference (the frames share one buffer); fewer are copied, as cheap
 * as taking a reference
 */
#define TORUS_COLL_REF_MIN	1024
/*
 * Bytes of elements in a frame on a torport cable: as many as keep the
 * frame, its link-layer headroom and its skb_shared_info in a 16 KiB
 * allocation.  One byte more takes a 32 KiB one, and the kernel may
 * zero every page it allocates (init_on_alloc, Debian's default): that
 * doubled the broadcast's cost of zeroing.
 */
#define TORUS_COLL_FRAME_MAX	ALIGN_DOWN(SKB_WITH_OVERHEAD(SZ_16K) -	\
					   LL_MAX_HEADER - TORUS_HDR_LEN - \
					   TORUS_COLL_HDR_LEN, sizeof(u64))

/**
 * struct torus_coll_place - a caller's buffer the result goes into
 * @work: releases it in process context
 * @pages: the buffer's pages, pinned
 * @npages: entries in @pages
 * @map: the kernel's mapping of @pages (NULL: @vals is the kernel's own
 *	memory, as KUnit gives it)
 * @vals: the buffer in @map: the operation's result array
 * @len: the buffer's bytes
 * @written: the result goes there (else it holds a broadcast root's data,
 *	pinned and mapped read-only: nothing is ever written there)
 * @mm: the requester's memory, charged with the pinned pages
 *	(RLIMIT_MEMLOCK) until they are released; NULL in KUnit
 */
struct torus_coll_place {
	struct work_struct work;
	struct page **pages;
	unsigned int npages;
	struct mm_struct *mm;
	void *map;
	u64 *vals;
	size_t len;
	bool written;
};

/**
 * struct torus_coll_done - how an operation ended, for the one who asked
 * @net: the requester's netns
 * @portid: the requester's netlink port
 * @nlseq: the request's netlink sequence number
 * @seq: the operation's sequence number
 * @err: 0 or a negative errno
 * @type: enum torus_coll_type
 * @count: elements in @vals
 * @vals: the result, one u64 per element (sign-extended integers, float
 *	bits); NULL on error, for a reduce at every node but the root, and
 *	when @placed
 * @placed: the result is in the caller's buffer (struct torus_coll_place)
 * @locs: minloc and maxloc: per element the rank holding the result
 */
struct torus_coll_done {
	struct net *net;
	u32 portid;
	u32 nlseq;
	u32 seq;
	int err;
	u8 type;
	u32 count;
	const u64 *vals;
	bool placed;
	const u32 *locs;
};

enum torus_coll_state {
	TORUS_COLL_FREE,
	TORUS_COLL_EARLY,	/* frames came, this node has not joined */
	TORUS_COLL_JOINED,	/* waiting for the children */
	TORUS_COLL_UP_SENT,	/* waiting for the result from the parent */
};

struct torus_coll;

/**
 * struct torus_coll_slot - one operation
 * @coll: the node's collective state
 * @timer: fires at @deadline
 * @deadline: jiffies at which the operation fails (or, early, is forgotten)
 * @early: frames received before this node joined
 * @vals: per element: the partial reduction, then the result
 * @acc: per element exact sums (float and double sums), else NULL
 * @prod: per element exact products (float and double products), else NULL
 * @locs: per element the rank beside the value (minloc, maxloc), else NULL
 * @done: who to answer and how (set at join)
 * @got: per child direction, elements received
 * @down_got: result elements received from the parent
 * @seq: sequence number in the group
 * @count: elements
 * @group: 0, the whole fabric, or a bit per axis of the sub-torus
 * @children: bit per child direction
 * @pending: children whose contribution is incomplete
 * @ready: rendezvous broadcast: children that said READY
 * @down_q: rendezvous broadcast: the message's elements as this node got
 *	them, by reference, for its children (at the root: encoded as the
 *	children take them), each a buffer of elements with struct
 *	coll_chunk in its cb
 * @down_last: per child, the last of @down_q it was sent, or NULL
 * @sent: per child, DOWN frames it was sent
 * @credit: per child, DOWN frames it may be sent in all (its last READY)
 * @encoded: at the root of a rendezvous broadcast, elements in @down_q
 * @down_frames: DOWN frames received from the parent
 * @credited: @down_frames when this node last said READY
 * @parent: direction of the parent, TORUS_DIR_NONE at the root
 * @kind: enum torus_coll_kind
 * @type: enum torus_coll_type
 * @op: enum torus_coll_op
 * @state: enum torus_coll_state
 * @has_data: broadcast: the root's data is in @vals
 * @reduce_root: reduce: this node is the root, the one answered with data
 * @has_params: @kind, @type, @op, @count are known
 * @aborted: a neighbour failed the operation before this node joined
 * @rendezvous: a rooted broadcast of more than TORUS_COLL_EAGER_MAX
 *	elements: children get data only after their READY
 * @joining: the frames kept before the join are being applied: the
 *	children's READYs are gathered, so that they share one encoding
 * @list: of a node-list group: @parent and @children are edges, not
 *	directions, and @edge has the rank at the end of each
 * @edge: node-list group: per edge the member's rank
 * @place: @vals is the caller's buffer, pinned and mapped, or NULL
 * @answer: the answer to the requester, allocated at the join (an answer
 *	is never lost for want of memory), filled when the operation ends
 */
struct torus_coll_slot {
	struct torus_coll *coll;
	struct timer_list timer;
	unsigned long deadline;
	struct sk_buff_head early;
	u64 *vals;
	struct torus_xacc *acc;
	struct torus_xprod *prod;
	u32 *locs;
	struct torus_coll_done done;
	u32 got[TORUS_MAX_DIRS];
	u32 down_got;
	u32 seq;
	u32 count;
	u16 group;
	u16 children;
	u16 pending;
	u16 ready;
	struct sk_buff_head down_q;
	struct sk_buff *down_last[TORUS_MAX_DIRS];
	u32 sent[TORUS_MAX_DIRS];
	u32 credit[TORUS_MAX_DIRS];
	u32 encoded;
	u32 down_frames;
	u32 credited;
	u8 parent;
	u8 kind;
	u8 type;
	u8 op;
	u8 state;
	bool has_data;
	bool reduce_root;
	bool has_params;
	bool aborted;
	bool rendezvous;
	bool joining;
	bool list;
	u32 edge[TORUS_COLL_LIST_EDGES];
	struct torus_coll_place *place;
	struct sk_buff *answer;
};

/**
 * struct torus_coll_list - the numbering of a node-list group
 * @group: TORUS_COLL_GROUP_LIST and the list's number; 0 if unused
 * @hash: of the members, to see the number given to another list
 * @count: members
 * @next_seq: the sequence number of the next operation this node joins
 * @used: jiffies of the last join
 */
struct torus_coll_list {
	u16 group;
	u32 hash;
	u32 count;
	u32 next_seq;
	unsigned long used;
};

/**
 * struct torus_coll - a node's collective state
 * @node: the node
 * @lock: guards everything here (softirq, timers, netlink)
 * @next_seq: per group, the sequence number of the next operation this
 *	node joins
 * @dead: the node is going away: nothing new starts
 * @tree_set: @tree_parent and @tree_children were installed
 * @tree_parent: installed parent direction
 * @tree_children: installed child directions
 * @lists: the node-list groups this node has joined
 * @early_bytes: truesize of the frames in every slot's @early
 * @reply: fills the answer to a requester, allocated at the join, and
 *	returns it to be sent (netlink), or NULL (KUnit captures)
 * @rcu: deferred free
 * @slot: the operations
 */
struct torus_coll {
	struct torus_node *node;
	spinlock_t lock;	/* see above */
	u32 next_seq[TORUS_COLL_GROUPS];
	bool dead;
	bool tree_set;
	u8 tree_parent;
	u16 tree_children;
	struct torus_coll_list lists[TORUS_COLL_LISTS];
	unsigned int early_bytes;
	struct sk_buff *(*reply)(struct sk_buff *answer,
				 const struct torus_coll_done *done);
	struct rcu_head rcu;
	struct torus_coll_slot slot[TORUS_COLL_SLOTS];
};

/**
 * struct torus_coll_req - a validated request to join an operation
 * @kind: enum torus_coll_kind
 * @type: enum torus_coll_type
 * @op: enum torus_coll_op
 * @group: 0 (the whole fabric), a bit per axis the group spans, or
 *	TORUS_COLL_GROUP_LIST and a list's number
 * @members: node-list group: the members' ranks, ascending, this node's
 *	among them (checked by the caller)
 * @nmembers: entries in @members
 * @root: broadcast and reduce: this node is the root
 * @has_root_coord: @root_coord holds the root's coordinates
 * @root_coord: broadcast and reduce: the root's coordinates
 * @count: elements
 * @timeout_ms: fail after this long
 * @data: @count elements in host order (allreduce, broadcast root)
 * @place: the result goes into this caller's buffer of @count 8-byte
 *	elements, which the operation owns if it starts, or NULL
 * @net: the requester's netns
 * @portid: the requester's netlink port
 * @nlseq: the request's sequence number
 */
struct torus_coll_req {
	u16 group;
	const u32 *members;
	u32 nmembers;
	u8 kind;
	u8 type;
	u8 op;
	bool root;
	bool has_root_coord;
	u8 root_coord[TORUS_MAX_AXES];
	u32 count;
	u32 timeout_ms;
	const void *data;
	struct torus_coll_place *place;
	struct net *net;
	u32 portid;
	u32 nlseq;
};

/* torus_coll_math.c: reduction arithmetic */
unsigned int torus_coll_type_size(u8 type);
bool torus_coll_op_valid(u8 type, u8 op);
u64 torus_coll_load(u8 type, const void *p);
void torus_coll_store(u8 type, u64 v, void *p);
u64 torus_coll_combine(u8 type, u8 op, u64 a, u64 b);
bool torus_coll_op_has_loc(u8 op);
u64 torus_coll_combine_loc(u8 type, u8 op, u64 a, u32 la, u64 b, u32 lb,
			   u32 *loc);
u64 torus_coll_prepare(u8 type, u8 op, u64 v);
int torus_coll_finalize(u8 type, u8 op, u64 v, const struct torus_xacc *acc,
			const struct torus_xprod *prod, u64 *out);

/* torus_coll.c, torus_coll_rx.c: the engine */
int torus_coll_node_init(struct torus_node *node);
void torus_coll_node_uninit(struct torus_node *node);
int torus_coll_join(struct torus_node *node, const struct torus_coll_req *req,
		    struct netlink_ext_ack *extack);
void torus_coll_rx(struct torus_node *node, struct torus_port *port,
		   struct sk_buff *skb);
void torus_coll_port_down(struct torus_node *node, struct torus_port *port);
void torus_coll_requester_gone(struct torus_node *node, struct net *net,
			       u32 portid);
void torus_coll_tree_get(struct torus_node *node, bool *set, u8 *parent,
			 u32 *children);
void torus_coll_tree_install(struct torus_node *node, bool set, u8 parent,
			     u32 children);

/* torus_coll_list.c: node-list groups */
u32 torus_coll_rank(const struct torus_geom *g, const u8 *coord);
void torus_coll_rank_coord(const struct torus_geom *g, u32 rank, u8 *coord);
struct torus_coll_list *torus_coll_list_find(struct torus_coll *coll,
					     u16 group);
struct torus_coll_list *torus_coll_list_enter(struct torus_coll *coll,
					      const struct torus_coll_req *req);
u32 torus_coll_list_index(const u32 *members, u32 n, u32 rank);
int torus_coll_list_tree(const struct torus_geom *g,
			 const struct torus_coll_req *req, u32 *edge,
			 u8 *parent, u32 *children, bool *rooted);
u8 torus_coll_list_edge(const struct torus_coll_slot *s, u32 rank);

/* torus_coll_place.c: results placed in the caller's memory */
struct torus_coll_place *torus_coll_place_get(u64 addr, size_t len,
					      bool write,
					      struct netlink_ext_ack *extack);
void torus_coll_place_release(struct torus_coll_place *p);
void torus_coll_place_done(struct torus_coll_place *p);
int torus_coll_place_init(void);
void torus_coll_place_exit(void);

/* torus_coll_nl.c */
extern const struct nla_policy
torus_coll_tree_policy[TORUS_COLL_TREE_A_MAX + 1];
size_t torus_coll_answer_size(u8 type, u32 count, bool vals, bool locs);
struct sk_buff *torus_coll_nl_reply(struct sk_buff *answer,
				    const struct torus_coll_done *done);
int torus_coll_nl_init(void);
void torus_coll_nl_exit(void);
int torus_nl_coll_doit(struct sk_buff *skb, struct genl_info *info);
int torus_nl_coll_tree_set_doit(struct sk_buff *skb, struct genl_info *info);
int torus_nl_coll_tree_get_doit(struct sk_buff *skb, struct genl_info *info);

#endif /* _TORUS_COLL_H */
