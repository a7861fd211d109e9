// SPDX-License-Identifier: GPL-2.0
/*
 * Collectives executed by the fabric: barrier, allreduce and broadcast
 * over a combining tree (see the uapi header's DOC: collectives).
 *
 * A node joins an operation through generic netlink and gets its answer
 * later as a netlink message, so no handler ever sleeps waiting for the
 * fabric.  Everything else runs where frames arrive, in softirq: a
 * node's children send their contributions up (TORUS_COLL_UP), it
 * combines them with its own and sends the sum to its parent; the root
 * sends the result down (TORUS_COLL_DOWN) and every node passes it on
 * to its children and answers its caller.  Transit nodes need no user
 * process beyond the one that joined.  A broadcast that names its root
 * only comes down, from that root (see TORUS_COLL_EAGER_MAX for how).
 *
 * Operations are keyed by (group, sequence number); every node numbers
 * the operations it joins 0, 1, 2, ..., so all nodes must join the same
 * operations in the same order, as MPI requires.  Frames for an
 * operation this node has not joined yet are kept until it does.  Each
 * operation has a timer: when it fires, the caller gets ETIMEDOUT and
 * the operation is forgotten, so a dead member or a cut cable never
 * leaves anyone waiting, and the next operation starts clean.
 */
#include <linux/etherdevice.h>
#include <linux/jiffies.h>
#include <linux/netdevice.h>
#include <linux/rcupdate.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/rtnetlink.h>
#include <net/genetlink.h>

#include "torus_priv.h"
#include "torus_coll.h"
#include "torus_coll_tree.h"
#include "torus_coll_priv.h"

static_assert(sizeof(struct torus_coll_hdr) == TORUS_COLL_HDR_LEN);

/*
 * skb->cb of an answer on its way out: how the operation ended, and its
 * result arrays, which the answer now owns (a copy of up to 64 KiB is
 * made after the lock, not under it)
 */
struct coll_answer_cb {
	struct net *net;
	u64 *vals;
	u32 *locs;
	u32 portid;
	u32 nlseq;
	u32 seq;
	u32 count;
	s32 err;
	u8 type;
	bool placed;
};

#define COLL_ANSWER_CB(skb)	((struct coll_answer_cb *)(skb)->cb)
static_assert(sizeof(struct coll_answer_cb) <=
	      sizeof_field(struct sk_buff, cb));

void torus_coll_out_init(struct coll_out *out)
{
	__skb_queue_head_init(&out->frames);
	__skb_queue_head_init(&out->replies);
	out->ntrash = 0;
}

/* An array to free after the lock (a leak, never an overflow). */
static void coll_trash(struct coll_out *out, void *p)
{
	if (!p || WARN_ON_ONCE(out->ntrash >= ARRAY_SIZE(out->trash)))
		return;
	out->trash[out->ntrash++] = p;
}

/* Fill an answer and send it to its requester, then free its arrays. */
static void coll_answer_send(struct torus_coll *coll, struct sk_buff *skb)
{
	struct coll_answer_cb cb = *COLL_ANSWER_CB(skb);
	struct torus_coll_done done = {
		.net = cb.net,
		.portid = cb.portid,
		.nlseq = cb.nlseq,
		.seq = cb.seq,
		.err = cb.err,
		.type = cb.type,
		.count = cb.count,
		.vals = cb.vals,
		.placed = cb.placed,
		.locs = cb.locs,
	};

	skb = coll->reply(skb, &done);
	/* the requester may be gone: nothing to do then */
	if (skb)
		genlmsg_unicast(cb.net, skb, cb.portid);
	kvfree(cb.vals);
	kvfree(cb.locs);
}

/*
 * Send and free what the lock kept back.  Under rcu_read_lock(), in any
 * context: bottom halves are off while frames go out, as in softirq (the
 * ports' per-CPU counters need it).
 */
void torus_coll_out_flush(struct torus_node *node, struct coll_out *out)
{
	struct torus_coll *coll = rcu_dereference(node->coll);
	struct sk_buff *skb;
	unsigned int i;

	local_bh_disable();
	while ((skb = __skb_dequeue(&out->frames))) {
		if (COLL_CB(skb)->routed)
			torus_coll_route_xmit(node, skb);
		else
			torus_coll_xmit(node, skb, COLL_CB(skb)->dir);
	}
	local_bh_enable();
	while ((skb = __skb_dequeue(&out->replies))) {
		if (coll)
			coll_answer_send(coll, skb);
		else
			kfree_skb(skb);
	}
	for (i = 0; i < out->ntrash; i++)
		kvfree(out->trash[i]);
	out->ntrash = 0;
}

/* Frames kept ahead of a join leave the node's budget. */
static void coll_early_purge(struct torus_coll_slot *s)
{
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(&s->early))) {
		s->coll->early_bytes -= skb->truesize;
		kfree_skb(skb);
	}
}

static void coll_slot_free(struct torus_coll_slot *s, struct coll_out *out)
{
	if (s->place)
		torus_coll_place_done(s->place);
	else
		coll_trash(out, s->vals);
	s->place = NULL;
	coll_trash(out, s->acc);
	coll_trash(out, s->prod);
	coll_trash(out, s->locs);
	s->vals = NULL;
	s->acc = NULL;
	s->prod = NULL;
	s->locs = NULL;
	kfree_skb(s->answer);
	s->answer = NULL;
	coll_early_purge(s);
	__skb_queue_purge(&s->down_q);
	memset(s->down_last, 0, sizeof(s->down_last));
	s->state = TORUS_COLL_FREE;
	s->has_params = false;
	s->has_data = false;
	s->reduce_root = false;
	s->aborted = false;
	s->rendezvous = false;
	s->joining = false;
	s->list = false;
}

/*
 * Answer the requester and forget the operation.  The answer takes the
 * result arrays with it (they are copied into it after the lock); a
 * requester gone (its socket closed) has no answer left to send.
 */
void torus_coll_finish(struct torus_coll_slot *s, int err,
		       struct coll_out *out)
{
	struct sk_buff *skb = s->answer;
	struct coll_answer_cb *cb;
	bool result;

	if ((s->state == TORUS_COLL_JOINED || s->state == TORUS_COLL_UP_SENT) &&
	    skb) {
		s->answer = NULL;
		cb = COLL_ANSWER_CB(skb);
		memset(cb, 0, sizeof(*cb));
		cb->net = s->done.net;
		cb->portid = s->done.portid;
		cb->nlseq = s->done.nlseq;
		cb->seq = s->seq;
		cb->err = err;
		cb->type = s->type;
		cb->count = s->count;
		result = !err && !(s->kind == TORUS_COLL_REDUCE &&
				   !s->reduce_root);
		/* placed: the caller has it already, once the answer says so */
		cb->placed = result && s->place;
		if (result && !s->place) {
			cb->vals = s->vals;
			s->vals = NULL;
		}
		if (result) {
			cb->locs = s->locs;
			s->locs = NULL;
		}
		__skb_queue_tail(&out->replies, skb);
	}
	coll_slot_free(s, out);
}

struct torus_coll_slot *torus_coll_find(struct torus_coll *coll, u16 group,
					u32 seq)
{
	unsigned int i;

	for (i = 0; i < TORUS_COLL_SLOTS; i++) {
		struct torus_coll_slot *s = &coll->slot[i];

		if (s->state != TORUS_COLL_FREE && s->group == group &&
		    s->seq == seq)
			return s;
	}
	return NULL;
}

/*
 * For a join when every slot is taken: the slot of the operation only
 * neighbours have joined that was announced first, its frames dropped
 * (they come again as a timeout at worst); NULL if all are in flight.
 */
static struct torus_coll_slot *coll_evict_early(struct torus_coll *coll,
						struct coll_out *out)
{
	struct torus_coll_slot *oldest = NULL;
	unsigned int i;

	for (i = 0; i < TORUS_COLL_SLOTS; i++) {
		struct torus_coll_slot *s = &coll->slot[i];

		if (s->state == TORUS_COLL_EARLY &&
		    (!oldest || time_before(s->deadline, oldest->deadline)))
			oldest = s;
	}
	if (oldest)
		coll_slot_free(oldest, out);
	return oldest;
}

struct torus_coll_slot *torus_coll_alloc(struct torus_coll *coll, u16 group,
					 u32 seq, unsigned int ms)
{
	unsigned int i;

	for (i = 0; i < TORUS_COLL_SLOTS; i++) {
		struct torus_coll_slot *s = &coll->slot[i];

		if (s->state != TORUS_COLL_FREE)
			continue;
		s->group = group;
		s->seq = seq;
		s->state = TORUS_COLL_EARLY;
		s->deadline = jiffies + msecs_to_jiffies(ms);
		mod_timer(&s->timer, s->deadline);
		return s;
	}
	return NULL;
}

/*
 * Apply one frame to a joined operation: its elements are combined (UP)
 * or taken as the result (DOWN).  A frame the operation does not take
 * (from no edge of its tree, a range already had or out of order) is
 * left, *@drop saying why.  A node that has a broadcast's data (its
 * root's, perhaps read from its caller's buffer) takes no data for it.
 * Return: 0, or a negative errno that fails the operation.
 */
static int coll_apply(struct torus_coll_slot *s, const struct torus_geom *g,
		      struct sk_buff *skb, int *drop, struct coll_out *out)
{
	const struct torus_coll_hdr *ch = (const void *)skb->data;
	u8 in_dir = torus_coll_in_edge(s, skb);
	u32 first = ntohl(ch->first), n = ntohl(ch->n), i;
	size_t each = sizeof(__be64) + (s->locs ? sizeof(__be32) : 0);
	bool had_data = s->kind == TORUS_COLL_BCAST && s->has_data;
	size_t left;
	const u8 *p;
	int err;

	if (in_dir == TORUS_DIR_NONE) {
		/* from no member next to this one */
		*drop = TORUS_DROP_SPOOFED;
		return 0;
	}
	p = torus_coll_frame_elems(skb, &left);
	if (ch->kind != s->kind || ch->type != s->type || ch->op != s->op ||
	    ntohl(ch->count) != s->count)
		return -EPROTO;	/* the nodes disagree on the operation */

	if (ch->phase == TORUS_COLL_READY)
		return torus_coll_child_ready(s, g, in_dir, first, n, out);
	if (ch->phase == TORUS_COLL_DOWN) {
		if (!torus_coll_down_wanted(s, in_dir, n)) {
			*drop = TORUS_DROP_COLL_REFUSED;
			return 0;
		}
		if (left != (size_t)n * each)
			return -EPROTO;
		if (!had_data)
			torus_coll_take_down(s, first, n, p);
		s->down_got += n;
		if (s->rendezvous)
			return torus_coll_rendezvous_take(s, g, skb, out);
		err = torus_coll_forward_down(s, g, skb, out);
		if (err)
			return err;
		if (s->down_got >= s->count)
			torus_coll_finish(s, 0, out);
		return 0;
	}

	/* a child's ranges come in order, each once (one burst, one port) */
	if (!(s->pending & BIT(in_dir)) || first != s->got[in_dir] ||
	    n > s->count - first || (!n && s->count)) {
		*drop = TORUS_DROP_COLL_REFUSED;
		return 0;
	}
	if (ch->flags & TORUS_COLL_F_EMPTY) {
		if (s->kind != TORUS_COLL_BCAST || left)
			return -EPROTO;
	} else if (had_data) {
		if (left != (size_t)n * each)
			return -EPROTO;
	} else {
		for (i = 0; i < n; i++) {
			size_t used = torus_coll_decode_merge(s, first + i, p,
							      left);

			if (!used)
				return -EPROTO;
			p += used;
			left -= used;
		}
		if (left)
			return -EPROTO;
		if (s->kind == TORUS_COLL_BCAST)
			s->has_data = true;
	}
	s->got[in_dir] += n;
	if (s->got[in_dir] == s->count)
		s->pending &= ~BIT(in_dir);
	torus_coll_progress(s, g, out);
	return 0;
}

void torus_coll_apply_or_fail(struct torus_coll_slot *s,
			      const struct torus_geom *g,
			      struct torus_port *port,
			      struct sk_buff *skb, struct coll_out *out)
{
	int drop = -1, err = coll_apply(s, g, skb, &drop, out);

	if (drop >= 0)
		torus_coll_drop(s->coll->node, port, skb, drop);
	else
		consume_skb(skb);
	if (err)
		torus_coll_fail(s, err, g, TORUS_DIR_NONE, out);
}

/*
 * The node's tree now: for the whole fabric the installed one, or the
 * default over live cables; for a group (a bit per axis it spans) the
 * default tree of the sub-torus through this node: the other axes count
 * as extent 1, so the tree never leaves the group.  A broadcast that
 * knows its root's coordinates (@root, else NULL) runs on the default
 * tree rooted there instead, unless the installed tree serves (torusd
 * installs one around faults): *@rooted then says so.
 */
static void coll_tree(struct torus_coll *coll, const struct torus_fib *fib,
		      u16 group, const u8 *root, u8 *parent, u32 *children,
		      bool *rooted)
{
	const struct torus_geom *g = &fib->geom;
	u8 coord[TORUS_MAX_AXES] = { 0 }, from[TORUS_MAX_AXES] = { 0 };
	u16 dims[TORUS_MAX_AXES];
	unsigned int axis;

	*rooted = false;
	if (!group && coll->tree_set) {
		*parent = coll->tree_parent;
		*children = coll->tree_children;
		return;
	}
	for (axis = 0; axis < g->ndims; axis++) {
		bool member = !group || group & BIT(axis);

		dims[axis] = member ? g->dims[axis] : 1;
		coord[axis] = member ? g->coord[axis] : 0;
		from[axis] = member && root ? root[axis] : 0;
	}
	*rooted = !!root;
	*parent = torus_coll_tree_parent_from(g->ndims, dims, g->wrap, coord,
					      from);
	*children = torus_coll_tree_children_from(g->ndims, dims, g->wrap,
						  coord, from) &
		    torus_fib_usable(fib);
}

void torus_coll_tree_get(struct torus_node *node, bool *set, u8 *parent,
			 u32 *children)
{
	struct torus_coll *coll = rtnl_dereference(node->coll);
	const struct torus_fib *fib;
	bool rooted;

	rcu_read_lock();
	fib = rcu_dereference(node->fib);
	spin_lock_bh(&coll->lock);
	*set = coll->tree_set;
	coll_tree(coll, fib, 0, NULL, parent, children, &rooted);
	spin_unlock_bh(&coll->lock);
	rcu_read_unlock();
}

/**
 * torus_coll_tree_install - install the whole fabric's tree (RTNL)
 * @node: the node
 * @set: false for the default tree
 * @parent: the parent's direction
 * @children: a bit per child's direction
 *
 * The nodes install a new tree one after the other, so an operation on
 * the whole fabric that this node joined on its old tree cannot finish:
 * its neighbours may wait on the new one.  It fails now with ENETRESET
 * and tells its neighbours, rather than at its timeout; the next
 * operation runs on the new tree.  The same tree installed again
 * changes nothing.
 */
void torus_coll_tree_install(struct torus_node *node, bool set, u8 parent,
			     u32 children)
{
	struct torus_coll *coll = rtnl_dereference(node->coll);
	const struct torus_fib *fib;
	struct coll_out out;
	unsigned int i;

	torus_coll_out_init(&out);
	rcu_read_lock();
	fib = rcu_dereference(node->fib);
	spin_lock_bh(&coll->lock);
	if (coll->tree_set == set &&
	    (!set || (coll->tree_parent == parent &&
		      coll->tree_children == children)))
		goto unlock;
	coll->tree_set = set;
	coll->tree_parent = parent;
	coll->tree_children = children;
	for (i = 0; fib && i < TORUS_COLL_SLOTS; i++) {
		struct torus_coll_slot *s = &coll->slot[i];

		if (!s->group && (s->state == TORUS_COLL_JOINED ||
				  s->state == TORUS_COLL_UP_SENT))
			torus_coll_fail(s, -ENETRESET, &fib->geom,
					TORUS_DIR_NONE, &out);
	}
unlock:
	spin_unlock_bh(&coll->lock);
	torus_coll_out_flush(node, &out);
	rcu_read_unlock();
}

/*
 * The arrays of an operation, filled with the local contribution
 * (allocated here, before the lock; the ranks of minloc and maxloc are
 * filled in under it, from the node's coordinates).
 */
struct coll_arrays {
	u64 *vals;
	bool placed;
	struct torus_xacc *acc;
	struct torus_xprod *prod;
	u32 *locs;
};

static void coll_arrays_free(struct coll_arrays *a)
{
	if (!a->placed)
		kvfree(a->vals);
	kvfree(a->acc);
	kvfree(a->prod);
	kvfree(a->locs);
}

static int coll_contribution(const struct torus_coll_req *req,
			     struct coll_arrays *a)
{
	unsigned int size = torus_coll_type_size(req->type);
	u32 i;

	memset(a, 0, sizeof(*a));
	if (!req->count)
		return 0;
	/* the requester's to account: an exact sum takes up to 4.3 MB */
	a->placed = req->place;
	a->vals = a->placed ? req->place->vals :
		  kvcalloc(req->count, sizeof(*a->vals), GFP_KERNEL_ACCOUNT);
	if (torus_coll_uses_xacc(req->kind, req->type, req->op))
		a->acc = kvcalloc(req->count, sizeof(*a->acc),
				  GFP_KERNEL_ACCOUNT);
	if (torus_coll_uses_xprod(req->kind, req->type, req->op))
		a->prod = kvcalloc(req->count, sizeof(*a->prod),
				   GFP_KERNEL_ACCOUNT);
	if (torus_coll_kind_reduces(req->kind) &&
	    torus_coll_op_has_loc(req->op))
		a->locs = kvcalloc(req->count, sizeof(*a->locs),
				   GFP_KERNEL_ACCOUNT);
	if (!a->vals ||
	    (!a->acc && torus_coll_uses_xacc(req->kind, req->type, req->op)) ||
	    (!a->prod &&
	     torus_coll_uses_xprod(req->kind, req->type, req->op)) ||
	    (!a->locs && torus_coll_kind_reduces(req->kind) &&
	     torus_coll_op_has_loc(req->op))) {
		coll_arrays_free(a);
		return -ENOMEM;
	}
	/* the caller's buffer is written only once the operation starts
	 * (coll_place_fill()): a refused request leaves it as it was
	 */
	for (i = 0; req->data && i < req->count; i++) {
		u64 v = torus_coll_load(req->type,
					 (const u8 *)req->data + i * size);
		bool dbl = req->type == TORUS_COLL_DOUBLE;

		if (a->acc) {
			torus_xacc_init(&a->acc[i]);
			if (dbl)
				torus_xacc_add_f64(&a->acc[i], v);
			else
				torus_xacc_add_f32(&a->acc[i], v);
		} else if (a->prod) {
			torus_xprod_init(&a->prod[i]);
			if (dbl)
				torus_xprod_mul_f64(&a->prod[i], v);
			else
				torus_xprod_mul_f32(&a->prod[i], v);
		} else if (!a->placed) {
			a->vals[i] = torus_coll_prepare(req->type, req->op, v);
		}
	}
	return 0;
}

/*
 * A placed operation's result array, once it has started: zero under
 * exact sums and products (as kvcalloc() gives the others), else the
 * prepared contribution; below a broadcast's root it holds anything
 * until the data come.
 */
static void coll_place_fill(const struct torus_coll_req *req,
			    const struct coll_arrays *a)
{
	unsigned int size = torus_coll_type_size(req->type);
	u32 i;

	if (!req->place->written)
		return;		/* a root's data, only read */
	if (a->acc || a->prod) {
		memset(a->vals, 0, req->count * sizeof(*a->vals));
		return;
	}
	for (i = 0; req->data && i < req->count; i++)
		a->vals[i] = torus_coll_prepare(req->type, req->op,
						torus_coll_load(req->type,
								(const u8 *)req->data +
								i * size));
}

/**
 * torus_coll_join - this node joins the next operation
 * @node: the node (held by the caller)
 * @req: the validated request
 * @extack: for errors found now
 *
 * Return: 0 when the operation started: its answer comes through
 * coll->reply; or a negative errno (nothing started, no answer comes).
 */
int torus_coll_join(struct torus_node *node, const struct torus_coll_req *req,
		    struct netlink_ext_ack *extack)
{
	bool list = req->group & TORUS_COLL_GROUP_LIST;
	/* what the answer carries: the result, unless placed or none */
	bool result = req->kind != TORUS_COLL_BARRIER &&
		      (req->kind != TORUS_COLL_REDUCE || req->root);
	bool locs = torus_coll_kind_reduces(req->kind) &&
		    torus_coll_op_has_loc(req->op);
	struct torus_coll_list *numbering;
	struct sk_buff *skb, *answer;
	const struct torus_fib *fib;
	struct torus_coll_slot *s;
	struct torus_coll *coll;
	struct coll_arrays arr;
	struct coll_out out;
	u32 edge[TORUS_COLL_LIST_EDGES];
	u32 children, i, rank, *next_seq;
	bool rooted;
	u8 parent;
	int err;

	if (result && !req->place &&
	    (size_t)req->count * torus_coll_type_size(req->type) >
	    TORUS_COLL_RESULT_MAX) {
		NL_SET_ERR_MSG(extack,
			       "torus: a result of more than 65531 bytes must be placed (TORUS_A_COLL_PLACE)");
		return -EMSGSIZE;
	}
	answer = genlmsg_new(torus_coll_answer_size(req->type, req->count,
						    result && !req->place,
						    result && locs),
			     GFP_KERNEL);
	if (!answer)
		return -ENOMEM;
	err = coll_contribution(req, &arr);
	if (err) {
		kfree_skb(answer);
		return err;
	}
	torus_coll_out_init(&out);
	rcu_read_lock();
	coll = rcu_dereference(node->coll);
	if (!coll) {
		err = -ENODEV;	/* being unregistered */
		goto unlocked;
	}
	fib = rcu_dereference(node->fib);
	spin_lock_bh(&coll->lock);
	if (!fib || !fib->placed || coll->dead) {
		NL_SET_ERR_MSG(extack, "torus: the node is not placed");
		err = -ENETDOWN;
		goto unlock;
	}
	if (list) {
		err = torus_coll_list_tree(&fib->geom, req, edge, &parent,
					   &children, &rooted);
		if (err) {
			NL_SET_ERR_MSG(extack,
				       "torus: this node or the root is not in the node list");
			goto unlock;
		}
		numbering = torus_coll_list_enter(coll, req);
		if (!numbering) {
			NL_SET_ERR_MSG(extack,
				       "torus: operations in flight hold the node lists' numbering");
			err = -EBUSY;
			goto unlock;
		}
		next_seq = &numbering->next_seq;
	} else {
		coll_tree(coll, fib, req->group,
			  req->kind == TORUS_COLL_BCAST && req->has_root_coord ?
			  req->root_coord : NULL, &parent, &children, &rooted);
		next_seq = &coll->next_seq[req->group];
	}
	s = torus_coll_find(coll, req->group, *next_seq);
	if (s && s->state != TORUS_COLL_EARLY)
		s = NULL;	/* the numbers went round: still in flight */
	else if (!s)
		s = torus_coll_alloc(coll, req->group, *next_seq,
				     req->timeout_ms) ?:
		    (coll_evict_early(coll, &out) ?
		     torus_coll_alloc(coll, req->group, *next_seq,
				      req->timeout_ms) : NULL);
	if (!s) {
		NL_SET_ERR_MSG(extack,
			       "torus: too many collective operations in flight");
		err = -EBUSY;
		goto unlock;
	}
	(*next_seq)++;
	s->list = list;
	if (list)
		memcpy(s->edge, edge, sizeof(s->edge));
	s->kind = req->kind;
	s->type = req->type;
	s->op = req->op;
	s->count = req->count;
	s->has_params = true;
	s->has_data = req->kind == TORUS_COLL_BCAST && req->root;
	s->reduce_root = req->kind == TORUS_COLL_REDUCE && req->root;
	s->parent = parent;
	s->children = children;
	/* a rooted broadcast only comes down: nothing owed from below */
	s->pending = rooted ? 0 : children;
	s->rendezvous = rooted && req->count > TORUS_COLL_EAGER_MAX;
	s->ready = 0;
	memset(s->got, 0, sizeof(s->got));
	s->down_got = 0;
	memset(s->sent, 0, sizeof(s->sent));
	memset(s->credit, 0, sizeof(s->credit));
	s->encoded = 0;
	s->down_frames = 0;
	s->credited = 0;
	if (arr.placed)
		coll_place_fill(req, &arr);
	s->vals = arr.vals;
	s->place = req->place;
	s->acc = arr.acc;
	s->prod = arr.prod;
	s->locs = arr.locs;
	memset(&arr, 0, sizeof(arr));
	rank = torus_coll_rank(&fib->geom, fib->geom.coord);
	for (i = 0; s->locs && i < s->count; i++)
		s->locs[i] = rank;
	s->done.net = req->net;
	s->done.portid = req->portid;
	s->done.nlseq = req->nlseq;
	s->answer = answer;
	answer = NULL;
	/* below the root of a rooted broadcast: wait for it at once */
	s->state = rooted && parent != TORUS_DIR_NONE ? TORUS_COLL_UP_SENT :
		   TORUS_COLL_JOINED;
	s->deadline = jiffies + msecs_to_jiffies(req->timeout_ms);
	mod_timer(&s->timer, s->deadline);
	/* cut off from the root, or failed by a neighbour already: fail it
	 * now, and tell the others
	 */
	if (!list && parent != TORUS_DIR_NONE &&
	    !(torus_fib_usable(fib) & BIT(parent)))
		torus_coll_fail(s, -ENOLINK, &fib->geom, parent, &out);
	else if (s->aborted)
		torus_coll_fail(s, -ECONNABORTED, &fib->geom,
				TORUS_DIR_NONE, &out);
	else if (s->rendezvous && parent != TORUS_DIR_NONE &&
		 torus_coll_ready_send(s, &fib->geom, &out))
		torus_coll_fail(s, -ENOMEM, &fib->geom, TORUS_DIR_NONE, &out);
	/* what the neighbours sent before this node joined */
	s->joining = true;
	while ((s->state == TORUS_COLL_JOINED ||
		s->state == TORUS_COLL_UP_SENT) &&
	       (skb = __skb_dequeue(&s->early))) {
		coll->early_bytes -= skb->truesize;
		torus_coll_apply_or_fail(s, &fib->geom, NULL, skb, &out);
	}
	s->joining = false;
	if (s->state == TORUS_COLL_JOINED && s->rendezvous)
		torus_coll_rendezvous_progress(s, &fib->geom, &out);
	else if (s->state == TORUS_COLL_JOINED)
		torus_coll_progress(s, &fib->geom, &out);
unlock:
	spin_unlock_bh(&coll->lock);
	torus_coll_out_flush(node, &out);
unlocked:
	rcu_read_unlock();
	coll_arrays_free(&arr);
	kfree_skb(answer);
	return err;
}

static void coll_timer(struct timer_list *t)
{
	struct torus_coll_slot *s = from_timer(s, t, timer);
	struct torus_coll *coll = s->coll;
	const struct torus_fib *fib;
	struct coll_out out;

	torus_coll_out_init(&out);
	rcu_read_lock();
	fib = rcu_dereference(coll->node->fib);
	spin_lock_bh(&coll->lock);
	/* a slot reused since the timer was armed has a later deadline */
	if (s->state != TORUS_COLL_FREE && time_after_eq(jiffies, s->deadline))
		torus_coll_fail(s, -ETIMEDOUT, fib ? &fib->geom : NULL,
				TORUS_DIR_NONE, &out);
	spin_unlock_bh(&coll->lock);
	torus_coll_out_flush(coll->node, &out);
	rcu_read_unlock();
}

/**
 * torus_coll_port_down - a port lost its carrier or goes away (RTNL)
 * @node: its node
 * @port: the port
 *
 * Operations waiting for a child or the parent behind it fail now with
 * ENOLINK, and tell the rest of the tree.
 */
void torus_coll_port_down(struct torus_node *node, struct torus_port *port)
{
	struct torus_coll *coll = rtnl_dereference(node->coll);
	const struct torus_fib *fib;
	struct coll_out out;
	unsigned int i;
	u8 dir;

	if (!coll)
		return;
	torus_coll_out_init(&out);
	rcu_read_lock();
	fib = rcu_dereference(node->fib);
	dir = fib ? torus_port_global_dir(fib, port) : TORUS_DIR_NONE;
	spin_lock_bh(&coll->lock);
	for (i = 0; dir != TORUS_DIR_NONE && i < TORUS_COLL_SLOTS; i++) {
		struct torus_coll_slot *s = &coll->slot[i];

		/* a child that has not had the whole message (its READY,
		 * its credit) would be waited for in vain; a node-list
		 * group's edges are routes, not this port
		 */
		if (!s->list && (s->state == TORUS_COLL_JOINED ||
				 s->state == TORUS_COLL_UP_SENT) &&
		    (s->parent == dir || (s->pending & BIT(dir)) ||
		     (s->rendezvous && (s->children & BIT(dir)) &&
		      !torus_coll_child_has_all(s, dir))))
			torus_coll_fail(s, -ENOLINK, &fib->geom, dir, &out);
	}
	spin_unlock_bh(&coll->lock);
	torus_coll_out_flush(node, &out);
	rcu_read_unlock();
}

/**
 * torus_coll_requester_gone - a netlink socket was released (process)
 * @node: a node in the socket's netns
 * @net: the socket's netns
 * @portid: its port
 *
 * The operations it asked for die with it: they fail, and the tree is
 * told, as for any member gone; no answer is sent, so a later socket
 * given the same port never receives another's.
 */
void torus_coll_requester_gone(struct torus_node *node, struct net *net,
			       u32 portid)
{
	struct torus_coll *coll;
	const struct torus_fib *fib;
	struct coll_out out;
	unsigned int i;

	torus_coll_out_init(&out);
	rcu_read_lock();
	coll = rcu_dereference(node->coll);
	if (!coll)
		goto out;
	fib = rcu_dereference(node->fib);
	spin_lock_bh(&coll->lock);
	for (i = 0; i < TORUS_COLL_SLOTS; i++) {
		struct torus_coll_slot *s = &coll->slot[i];

		if ((s->state != TORUS_COLL_JOINED &&
		     s->state != TORUS_COLL_UP_SENT) ||
		    s->done.portid != portid || !net_eq(s->done.net, net))
			continue;
		kfree_skb(s->answer);
		s->answer = NULL;
		torus_coll_fail(s, -ECONNRESET, fib ? &fib->geom : NULL,
				TORUS_DIR_NONE, &out);
	}
	spin_unlock_bh(&coll->lock);
	torus_coll_out_flush(node, &out);
out:
	rcu_read_unlock();
}

int torus_coll_node_init(struct torus_node *node)
{
	struct torus_coll *coll;
	unsigned int i;

	coll = kzalloc(sizeof(*coll), GFP_KERNEL);
	if (!coll)
		return -ENOMEM;
	coll->node = node;
	spin_lock_init(&coll->lock);
	coll->reply = torus_coll_nl_reply;
	for (i = 0; i < TORUS_COLL_SLOTS; i++) {
		coll->slot[i].coll = coll;
		timer_setup(&coll->slot[i].timer, coll_timer, 0);
		skb_queue_head_init(&coll->slot[i].early);
		skb_queue_head_init(&coll->slot[i].down_q);
	}
	RCU_INIT_POINTER(node->coll, coll);
	return 0;
}

/* The node goes away: every caller gets ENODEV, nothing is left. */
void torus_coll_node_uninit(struct torus_node *node)
{
	struct torus_coll *coll = rtnl_dereference(node->coll);
	struct coll_out out;
	unsigned int i;

	if (!coll)
		return;
	torus_coll_out_init(&out);
	spin_lock_bh(&coll->lock);
	coll->dead = true;
	for (i = 0; i < TORUS_COLL_SLOTS; i++)
		if (coll->slot[i].state != TORUS_COLL_FREE)
			torus_coll_finish(&coll->slot[i], -ENODEV, &out);
	spin_unlock_bh(&coll->lock);
	__skb_queue_purge(&out.frames);
	rcu_read_lock();
	torus_coll_out_flush(node, &out);
	rcu_read_unlock();
	for (i = 0; i < TORUS_COLL_SLOTS; i++)
		del_timer_sync(&coll->slot[i].timer);
	/* a frame being received may still look at it: free after RCU */
	RCU_INIT_POINTER(node->coll, NULL);
	kfree_rcu(coll, rcu);
}
