// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libtorus - collective operations run by torus.ko (see libtorus(3)).
 *
 * One generic netlink socket per context.  Each operation is one
 * TORUS_CMD_COLL request per segment (the module takes at most
 * LT_SEG_BYTES per request); the module answers each one with a message
 * of its own when the operation completes, so a call never blocks in
 * the kernel and the socket is the pollable descriptor.  Segments are
 * sent strictly in the order the operations were started, a window of
 * LT_WINDOW at a time, so every node joins the same operations in the
 * same order while the segments of a long vector overlap in the fabric
 * (the next segment goes up the tree while the previous one comes down).
 * A broadcast of 8-byte elements is placed (results written by the
 * module into the callers' buffers, the root's data read from its own)
 * and is one operation of up to 1 MiB: the module pipelines its frames
 * down the tree, with no process involved until the end.  Every node
 * cuts a call into the same operations, so a misaligned buffer goes
 * through an aligned copy rather than in segments.
 */
#include <errno.h>
#include <net/if.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "libtorus.h"

/*
 * bytes of one request's data (a netlink attribute holds < 64 KiB): the
 * module's answer to it, its headers (< 64 bytes) and the kernel's
 * skb_shared_info (320) fit in a 32 KiB allocation, as 32 KiB of data
 * would not: the kernel may zero every page it allocates
 * (init_on_alloc), and a 64 KiB answer per segment doubled that cost
 */
#define LT_SEG_BYTES	(32768U - 512U)
/*
 * segments in flight per context: every node holds TORUS_COLL_SLOTS (16)
 * operations, its own and those its neighbours have started early.
 * TORUS_COLL_WINDOW (1 to LT_WINDOW_MAX) overrides it, to measure.
 */
#define LT_WINDOW	4
#define LT_WINDOW_MAX	6
/* room for LT_WINDOW answers queued in the socket */
#define LT_RCVBUF	(4U << 20)
/* the module always answers by its own timeout; this guards only
 * against an answer lost for want of memory
 */
#define LT_GRACE_MS	5000
/*
 * smallest allreduce or reduce result worth placing: below it, pinning,
 * mapping and a work item to unpin cost more per node than copying the
 * result through the answer (8 bytes on 64 nodes: copied 1.09x faster,
 * median of 17 A/B rounds; 8 KiB: even)
 */
#define LT_PLACE_MIN_BYTES	4096U

struct lt_seg {
	uint32_t nlseq;
	uint32_t first;		/* element index */
	uint32_t count;
	bool sent;
	bool done;
};

/* a node list, shared by the context and the requests started in it */
struct lt_members {
	unsigned int refs;
	uint32_t n;
	uint32_t rank[];	/* ascending */
};

struct torus_req {
	struct torus_ctx *ctx;
	struct lt_members *members;	/* of a node-list group, or NULL */
	struct torus_req *next;	/* the context's queue, in start order */
	uint16_t group;
	uint8_t kind;
	uint8_t type;
	uint8_t op;
	bool root;		/* this node is the root */
	bool place;		/* the module writes the result into buf */
	uint32_t root_rank;
	void *buf;
	void *user_buf;		/* the caller's, when buf is a copy */
	uint32_t *loc;
	size_t n;
	uint32_t nseg;
	uint32_t ndone;
	uint32_t last_seq;
	int err;		/* the first segment's error, positive */
	struct lt_seg seg[];
};

struct torus_ctx {
	struct mnl_socket *nl;
	uint16_t family;
	uint32_t ifindex;
	uint32_t nlseq;
	uint32_t timeout_ms;
	uint16_t group;		/* of the operations started from now on */
	struct lt_members *members;	/* ... and its node list */
	unsigned int ndims;
	uint32_t dims[TORUS_MAX_AXES];
	uint32_t coord[TORUS_MAX_AXES];
	uint32_t inflight;	/* segments sent, not answered */
	uint32_t window;	/* at most this many */
	bool place;		/* results placed in the caller's buffer */
	uint32_t last_seq;
	struct torus_req *head, *tail;
	char errmsg[256];
	char *sendbuf;
	char *recvbuf;
};

#define LT_SENDBUF	(LT_SEG_BYTES + TORUS_COLL_LIST_MAX * 4 + 1024)
#define LT_RECVBUF	(LT_SEG_BYTES * 2 + 8192)

static const char *const type_names[] = TORUS_COLL_TYPE_NAMES;
static const char *const op_names[] = TORUS_COLL_OP_NAMES;

size_t torus_type_size(int type)
{
	static const uint8_t size[] = { 1, 2, 4, 8, 1, 2, 4, 8, 4, 8 };

	_Static_assert(sizeof(size) == TORUS_COLL_TYPE_MAX + 1,
		       "a size per type");
	return type >= 0 && type <= TORUS_COLL_TYPE_MAX ? size[type] : 0;
}

static int lookup(const char *const *names, int n, const char *s)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	errno = EINVAL;
	return -1;
}

int torus_type_from_name(const char *name)
{
	return lookup(type_names, TORUS_COLL_TYPE_MAX + 1, name);
}

const char *torus_type_name(int type)
{
	return type >= 0 && type <= TORUS_COLL_TYPE_MAX ? type_names[type] :
							  NULL;
}

int torus_op_from_name(const char *name)
{
	return lookup(op_names, TORUS_COLL_OP_MAX + 1, name);
}

const char *torus_op_name(int op)
{
	return op >= 0 && op <= TORUS_COLL_OP_MAX ? op_names[op] : NULL;
}

static void set_msg(struct torus_ctx *ctx, const char *msg)
{
	snprintf(ctx->errmsg, sizeof(ctx->errmsg), "%s", msg);
}

/* ---- synchronous requests (open) ---- */

struct lt_talk {
	struct torus_ctx *ctx;
	mnl_cb_t cb;
	void *data;
};

/* the extack message of an error, if any, into ctx->errmsg */
static void extack_msg(struct torus_ctx *ctx, const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *attr;
	size_t off = sizeof(*e);

	ctx->errmsg[0] = 0;
	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*e) ||
	    !(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - MNL_NLMSG_HDRLEN;
	mnl_attr_for_each(attr, nlh, off)
		if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG &&
		    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) >= 0)
			set_msg(ctx, mnl_attr_get_str(attr));
}

static struct nlmsghdr *msg_new(struct torus_ctx *ctx, uint16_t type,
				uint8_t cmd, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(ctx->sendbuf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++ctx->nlseq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = type == GENL_ID_CTRL ? 1 : TORUS_GENL_VERSION;
	return nlh;
}

/* A request answered at once (nothing else may be in flight). */
static int talk(struct torus_ctx *ctx, struct nlmsghdr *nlh, mnl_cb_t cb,
		void *data)
{
	uint32_t portid = mnl_socket_get_portid(ctx->nl);
	ssize_t n;
	int ret;

	if (mnl_socket_sendto(ctx->nl, nlh, nlh->nlmsg_len) < 0)
		return -1;
	do {
		n = mnl_socket_recvfrom(ctx->nl, ctx->recvbuf, LT_RECVBUF);
		if (n < 0)
			return -1;
		ret = mnl_cb_run(ctx->recvbuf, (size_t)n, nlh->nlmsg_seq,
				 portid, cb, data);
		if (ret < 0 && errno) {
			const struct nlmsghdr *e = (void *)ctx->recvbuf;

			if (e->nlmsg_type == NLMSG_ERROR)
				extack_msg(ctx, e);
			return -1;
		}
	} while (ret > 0);
	return 0;
}

static int family_attr_cb(const struct nlattr *attr, void *data)
{
	if (mnl_attr_get_type(attr) == CTRL_ATTR_FAMILY_ID &&
	    mnl_attr_validate(attr, MNL_TYPE_U16) >= 0)
		*(uint16_t *)data = mnl_attr_get_u16(attr);
	return MNL_CB_OK;
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	mnl_attr_parse(nlh, sizeof(struct genlmsghdr), family_attr_cb, data);
	return MNL_CB_OK;
}

struct lt_node {
	struct torus_ctx *ctx;
	uint8_t state;
	unsigned int ncoord;
};

static int axes_cb(const struct nlattr *attr, void *data)
{
	uint32_t *axes = data;
	uint16_t a = mnl_attr_get_type(attr);

	if (a >= 1 && a <= TORUS_MAX_AXES &&
	    mnl_attr_validate(attr, MNL_TYPE_U32) >= 0)
		axes[a - 1] = mnl_attr_get_u32(attr);
	return MNL_CB_OK;
}

static unsigned int nest_count(const struct nlattr *nest)
{
	const struct nlattr *attr;
	unsigned int n = 0;

	mnl_attr_for_each_nested(attr, nest)
		n++;
	return n;
}

static int node_attr_cb(const struct nlattr *attr, void *data)
{
	struct lt_node *nd = data;

	switch (mnl_attr_get_type(attr)) {
	case TORUS_A_STATE:
		if (mnl_attr_validate(attr, MNL_TYPE_U8) >= 0)
			nd->state = mnl_attr_get_u8(attr);
		break;
	case TORUS_A_DIMS:
		nd->ctx->ndims = nest_count(attr);
		mnl_attr_parse_nested(attr, axes_cb, nd->ctx->dims);
		break;
	case TORUS_A_COORD:
		nd->ncoord = nest_count(attr);
		mnl_attr_parse_nested(attr, axes_cb, nd->ctx->coord);
		break;
	}
	return MNL_CB_OK;
}

static int node_cb(const struct nlmsghdr *nlh, void *data)
{
	mnl_attr_parse(nlh, sizeof(struct genlmsghdr), node_attr_cb, data);
	return MNL_CB_OK;
}

static int ctx_setup(struct torus_ctx *ctx, const char *ifname)
{
	struct lt_node nd = { .ctx = ctx };
	struct nlmsghdr *nlh;
	int one = 1, rcv = (int)LT_RCVBUF;
	unsigned int i;

	ctx->nl = mnl_socket_open(NETLINK_GENERIC);
	if (!ctx->nl || mnl_socket_bind(ctx->nl, 0, MNL_SOCKET_AUTOPID) < 0)
		return -1;
	mnl_socket_setsockopt(ctx->nl, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(ctx->nl, NETLINK_CAP_ACK, &one, sizeof(one));
	/* past rmem_max with CAP_NET_ADMIN, which collectives need anyway */
	if (setsockopt(mnl_socket_get_fd(ctx->nl), SOL_SOCKET, SO_RCVBUFFORCE,
		       &rcv, sizeof(rcv)) < 0)
		setsockopt(mnl_socket_get_fd(ctx->nl), SOL_SOCKET, SO_RCVBUF,
			   &rcv, sizeof(rcv));

	nlh = msg_new(ctx, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, NLM_F_ACK);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, TORUS_GENL_NAME);
	if (talk(ctx, nlh, family_cb, &ctx->family) || !ctx->family) {
		set_msg(ctx, "no torus generic netlink family (is torus.ko loaded?)");
		if (!errno || errno == ENOENT)
			errno = ENOENT;
		return -1;
	}
	ctx->ifindex = if_nametoindex(ifname);
	if (!ctx->ifindex) {
		set_msg(ctx, "no such node device");
		errno = ENODEV;
		return -1;
	}
	nlh = msg_new(ctx, ctx->family, TORUS_CMD_NODE_GET, NLM_F_ACK);
	mnl_attr_put_u32(nlh, TORUS_A_IFINDEX, ctx->ifindex);
	if (talk(ctx, nlh, node_cb, &nd))
		return -1;
	if (nd.state != TORUS_STATE_PLACED || !ctx->ndims ||
	    nd.ncoord != ctx->ndims) {
		set_msg(ctx, "the node is not placed");
		errno = ENETDOWN;
		return -1;
	}
	for (i = 0; i < ctx->ndims; i++)
		if (!ctx->dims[i] || ctx->coord[i] >= ctx->dims[i]) {
			set_msg(ctx, "the node's geometry is inconsistent");
			errno = EPROTO;
			return -1;
		}
	return 0;
}

/**
 * torus_open - a context for the collectives of node device @ifname
 * @ifname: the node device (e.g. "tor0") in the caller's netns
 *
 * Return: the context, or NULL with errno set (torus_errmsg() is not
 * available then; ENOENT: no module, ENODEV: no such device, ENETDOWN:
 * the node is not placed yet).
 */
struct torus_ctx *torus_open(const char *ifname)
{
	const char *window = getenv("TORUS_COLL_WINDOW");
	const char *place = getenv("TORUS_COLL_PLACE");
	struct torus_ctx *ctx = calloc(1, sizeof(*ctx));
	int err;

	if (!ctx)
		return NULL;
	ctx->timeout_ms = TORUS_COLL_TIMEOUT_MS;
	ctx->window = LT_WINDOW;
	if (window && atoi(window) >= 1 && atoi(window) <= LT_WINDOW_MAX)
		ctx->window = (uint32_t)atoi(window);
	ctx->place = !place || strcmp(place, "0");
	ctx->sendbuf = malloc(LT_SENDBUF);
	ctx->recvbuf = malloc(LT_RECVBUF);
	if (ctx->sendbuf && ctx->recvbuf && !ctx_setup(ctx, ifname))
		return ctx;
	err = errno ? errno : ENOMEM;
	torus_close(ctx);
	errno = err;
	return NULL;
}

static void members_put(struct lt_members *m)
{
	if (m && !--m->refs)
		free(m);
}

static void req_free(struct torus_req *r)
{
	members_put(r->members);
	if (r->user_buf)
		free(r->buf);
	free(r);
}

static bool placed_in_flight(const struct torus_ctx *ctx)
{
	const struct torus_req *r;
	uint32_t i;

	for (r = ctx->head; r; r = r->next)
		for (i = 0; r->place && i < r->nseg; i++)
			if (r->seg[i].sent && !r->seg[i].done)
				return true;
	return false;
}

static int64_t now_ms(void);
static int progress(struct torus_ctx *ctx);

/*
 * The module writes a placed result into the caller's buffer until it
 * answers: wait for the answers (each comes by the module's timeout),
 * starting nothing more, so that no buffer is written after close.
 */
static void drain_placed(struct torus_ctx *ctx)
{
	struct pollfd pfd = { .fd = mnl_socket_get_fd(ctx->nl),
			      .events = POLLIN };
	int64_t limit = now_ms() + ctx->timeout_ms + LT_GRACE_MS;

	ctx->window = 0;
	while (placed_in_flight(ctx) && now_ms() < limit) {
		if (poll(&pfd, 1, (int)(limit - now_ms())) < 0 &&
		    errno != EINTR)
			return;
		if (progress(ctx))
			return;
	}
}

void torus_close(struct torus_ctx *ctx)
{
	struct torus_req *r, *next;

	if (!ctx)
		return;
	if (ctx->nl)
		drain_placed(ctx);
	for (r = ctx->head; r; r = next) {
		next = r->next;
		req_free(r);
	}
	members_put(ctx->members);
	if (ctx->nl)
		mnl_socket_close(ctx->nl);
	free(ctx->sendbuf);
	free(ctx->recvbuf);
	free(ctx);
}

int torus_fd(const struct torus_ctx *ctx)
{
	return mnl_socket_get_fd(ctx->nl);
}

const char *torus_errmsg(const struct torus_ctx *ctx)
{
	return ctx->errmsg;
}

unsigned int torus_ndims(const struct torus_ctx *ctx)
{
	return ctx->ndims;
}

/* the extent of each axis into @dims (TORUS_MAX_AXES entries) */
unsigned int torus_dims(const struct torus_ctx *ctx, uint32_t *dims)
{
	memcpy(dims, ctx->dims, ctx->ndims * sizeof(*dims));
	return ctx->ndims;
}

static void rank_coord(const struct torus_ctx *ctx, uint32_t rank,
		       uint32_t *coord);

/* the coordinates of @rank, the inverse of torus_rank_of() */
int torus_coord_of(const struct torus_ctx *ctx, uint32_t rank,
		   uint32_t *coord)
{
	if (rank >= torus_size(ctx)) {
		errno = EINVAL;
		return -1;
	}
	rank_coord(ctx, rank, coord);
	return 0;
}

/* rank = x + X * (y + Y * (z + ...)), as TORUS_A_COLL_LOC counts */
int torus_rank_of(const struct torus_ctx *ctx, const uint32_t *coord,
		  unsigned int n, uint32_t *rank)
{
	uint32_t r = 0;
	unsigned int i;

	if (n != ctx->ndims) {
		errno = EINVAL;
		return -1;
	}
	for (i = n; i-- > 0;) {
		if (coord[i] >= ctx->dims[i]) {
			errno = EINVAL;
			return -1;
		}
		r = r * ctx->dims[i] + coord[i];
	}
	*rank = r;
	return 0;
}

uint32_t torus_rank(const struct torus_ctx *ctx)
{
	uint32_t r = 0;

	torus_rank_of(ctx, ctx->coord, ctx->ndims, &r);
	return r;
}

uint32_t torus_size(const struct torus_ctx *ctx)
{
	uint32_t n = 1;
	unsigned int i;

	for (i = 0; i < ctx->ndims; i++)
		n *= ctx->dims[i];
	return n;
}

int torus_set_timeout(struct torus_ctx *ctx, uint32_t ms)
{
	if (!ms || ms > TORUS_COLL_TIMEOUT_MS_MAX) {
		errno = EINVAL;
		return -1;
	}
	ctx->timeout_ms = ms;
	return 0;
}

/**
 * torus_set_group - the group of the operations started from now on
 * @ctx: the context
 * @axes: 0, the whole fabric; else a bit per axis the group spans
 *	through this node (TORUS_GROUP_AXIS(0): its x line;
 *	TORUS_GROUP_AXIS(0) | TORUS_GROUP_AXIS(1): its xy plane)
 *
 * Every member sets the same group; ranks and roots stay the fabric's.
 *
 * Return: 0, or -1 with errno EINVAL for an axis the fabric lacks.
 */
int torus_set_group(struct torus_ctx *ctx, uint32_t axes)
{
	if (axes >> ctx->ndims) {
		errno = EINVAL;
		return -1;
	}
	ctx->group = (uint16_t)axes;
	members_put(ctx->members);
	ctx->members = NULL;
	return 0;
}

static int rank_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static bool is_member(const struct lt_members *m, uint32_t rank)
{
	return bsearch(&rank, m->rank, m->n, sizeof(rank), rank_cmp);
}

/**
 * torus_set_members - a node-list group for the operations started from
 * now on
 * @ctx: the context
 * @id: the list's number, 0 to TORUS_LIST_ID_MAX, the same on every
 *	member; two lists a node uses at once need two numbers
 * @ranks: the members' ranks, in any order (repeats count once), this
 *	node's among them
 * @n: entries in @ranks, at most TORUS_COLL_LIST_MAX
 *
 * Every member calls it with the same number and nodes; its operations
 * are numbered on their own.  torus_set_group() goes back to a line,
 * a plane or the fabric.
 *
 * Return: 0, or -1 with errno EINVAL (a rank beyond the fabric, this
 * node missing, too many, a number too large) or ENOMEM.
 */
int torus_set_members(struct torus_ctx *ctx, uint16_t id,
		      const uint32_t *ranks, size_t n)
{
	struct lt_members *m;
	uint32_t i, k;

	ctx->errmsg[0] = 0;
	if (id > TORUS_LIST_ID_MAX || !n || !ranks ||
	    n > TORUS_COLL_LIST_MAX) {
		set_msg(ctx, "a node list is 1 to 4096 ranks, its number 0 to 32767");
		errno = EINVAL;
		return -1;
	}
	m = malloc(sizeof(*m) + n * sizeof(m->rank[0]));
	if (!m)
		return -1;
	memcpy(m->rank, ranks, n * sizeof(m->rank[0]));
	qsort(m->rank, n, sizeof(m->rank[0]), rank_cmp);
	for (i = 0, k = 0; i < n; i++)
		if (!k || m->rank[i] != m->rank[k - 1])
			m->rank[k++] = m->rank[i];
	m->n = k;
	m->refs = 1;
	if (m->rank[k - 1] >= torus_size(ctx) ||
	    !is_member(m, torus_rank(ctx))) {
		set_msg(ctx, m->rank[k - 1] >= torus_size(ctx) ?
			"a member's rank is beyond the fabric" :
			"this node is not among the members");
		free(m);
		errno = EINVAL;
		return -1;
	}
	members_put(ctx->members);
	ctx->members = m;
	ctx->group = TORUS_COLL_GROUP_LIST | id;
	return 0;
}

uint32_t torus_last_seq(const struct torus_ctx *ctx)
{
	return ctx->last_seq;
}

/* ---- operations ---- */

static void rank_coord(const struct torus_ctx *ctx, uint32_t rank,
		       uint32_t *coord)
{
	unsigned int i;

	for (i = 0; i < ctx->ndims; i++) {
		coord[i] = rank % ctx->dims[i];
		rank /= ctx->dims[i];
	}
}

static struct torus_req *req_new(struct torus_ctx *ctx, uint8_t kind,
				 void *buf, uint32_t *loc, size_t n, int type,
				 int op, uint32_t root)
{
	size_t size = kind == TORUS_COLL_BARRIER ? 1 : torus_type_size(type);
	uint32_t per, nseg, i;
	struct torus_req *r;
	bool whole;

	ctx->errmsg[0] = 0;
	if (!size || (kind != TORUS_COLL_BARRIER && (!n || !buf)) ||
	    n * size > TORUS_MAX_BYTES ||
	    ((op == TORUS_COLL_MINLOC || op == TORUS_COLL_MAXLOC) != !!loc) ||
	    ((kind == TORUS_COLL_BCAST || kind == TORUS_COLL_REDUCE) &&
	     root >= torus_size(ctx))) {
		set_msg(ctx, "invalid arguments");
		errno = EINVAL;
		return NULL;
	}
	if ((kind == TORUS_COLL_BCAST || kind == TORUS_COLL_REDUCE) &&
	    ctx->members && !is_member(ctx->members, root)) {
		set_msg(ctx, "the root is not among the members");
		errno = EINVAL;
		return NULL;
	}
	if ((kind == TORUS_COLL_BCAST || kind == TORUS_COLL_REDUCE) &&
	    ctx->group && !ctx->members) {
		uint32_t coord[TORUS_MAX_AXES];
		unsigned int i;

		rank_coord(ctx, root, coord);
		for (i = 0; i < ctx->ndims; i++)
			if (!(ctx->group & 1U << i) && coord[i] != ctx->coord[i]) {
				set_msg(ctx, "the root is not in this node's group");
				errno = EINVAL;
				return NULL;
			}
	}
	per = LT_SEG_BYTES / (uint32_t)size;
	if (per > TORUS_COLL_MAX_COUNT)
		per = TORUS_COLL_MAX_COUNT;
	whole = kind == TORUS_COLL_BCAST && size == 8 && ctx->place;
	if (whole)
		per = TORUS_COLL_PLACED_MAX_COUNT;
	nseg = kind == TORUS_COLL_BARRIER ? 1 : (uint32_t)((n + per - 1) / per);
	r = calloc(1, sizeof(*r) + nseg * sizeof(r->seg[0]));
	if (!r)
		return NULL;
	r->ctx = ctx;
	r->group = ctx->group;
	r->members = ctx->members;
	if (r->members)
		r->members->refs++;
	r->kind = kind;
	r->type = (uint8_t)type;
	r->op = (uint8_t)op;
	r->buf = buf;
	r->loc = loc;
	r->n = n;
	r->root_rank = root;
	r->root = root == torus_rank(ctx);
	if (whole && (uintptr_t)buf % 8) {
		r->buf = malloc(n * size);
		if (!r->buf) {
			req_free(r);
			return NULL;
		}
		if (r->root)
			memcpy(r->buf, buf, n * size);
		r->user_buf = buf;
	}
	r->place = whole || (ctx->place && size == 8 &&
			     !((uintptr_t)buf % 8) &&
			     n * size >= LT_PLACE_MIN_BYTES &&
			     kind != TORUS_COLL_BARRIER &&
			     (kind != TORUS_COLL_REDUCE || r->root));
	r->nseg = nseg;
	for (i = 0; i < nseg; i++) {
		r->seg[i].first = i * per;
		r->seg[i].count = (uint32_t)(n - i * per < per ? n - i * per : per);
	}
	if (ctx->tail)
		ctx->tail->next = r;
	else
		ctx->head = r;
	ctx->tail = r;
	return r;
}

static int seg_send(struct torus_req *r, struct lt_seg *s)
{
	struct torus_ctx *ctx = r->ctx;
	size_t size = torus_type_size(r->type);
	uint32_t coord[TORUS_MAX_AXES];
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	unsigned int i;

	/* no ACK: the answer is the module's message, or an error */
	nlh = msg_new(ctx, ctx->family, TORUS_CMD_COLL, 0);
	mnl_attr_put_u32(nlh, TORUS_A_IFINDEX, ctx->ifindex);
	mnl_attr_put_u8(nlh, TORUS_A_COLL_KIND, r->kind);
	mnl_attr_put_u32(nlh, TORUS_A_COLL_TIMEOUT_MS, ctx->timeout_ms);
	if (r->group)
		mnl_attr_put_u16(nlh, TORUS_A_COLL_GROUP, r->group);
	if (r->members)
		mnl_attr_put(nlh, TORUS_A_COLL_MEMBERS,
			     r->members->n * sizeof(r->members->rank[0]),
			     r->members->rank);
	if (r->kind != TORUS_COLL_BARRIER)
		mnl_attr_put_u8(nlh, TORUS_A_COLL_TYPE, r->type);
	if (r->kind == TORUS_COLL_ALLREDUCE || r->kind == TORUS_COLL_REDUCE)
		mnl_attr_put_u8(nlh, TORUS_A_COLL_OP, r->op);
	if (r->kind == TORUS_COLL_BCAST || r->kind == TORUS_COLL_REDUCE) {
		rank_coord(ctx, r->root_rank, coord);
		nest = mnl_attr_nest_start(nlh, TORUS_A_COLL_ROOT);
		for (i = 0; i < ctx->ndims; i++)
			mnl_attr_put_u32(nlh, TORUS_AXIS_A(i), coord[i]);
		mnl_attr_nest_end(nlh, nest);
	}
	if (r->kind == TORUS_COLL_BCAST && (!r->root || r->place))
		mnl_attr_put_u32(nlh, TORUS_A_COLL_COUNT, s->count);
	else if (r->kind != TORUS_COLL_BARRIER)
		mnl_attr_put(nlh, TORUS_A_COLL_DATA, s->count * size,
			     (const char *)r->buf + (size_t)s->first * size);
	if (r->place)
		mnl_attr_put_u64(nlh, TORUS_A_COLL_PLACE, (uintptr_t)r->buf +
				 (uint64_t)s->first * size);
	s->nlseq = nlh->nlmsg_seq;
	if (mnl_socket_sendto(ctx->nl, nlh, nlh->nlmsg_len) < 0)
		return -1;
	s->sent = true;
	ctx->inflight++;
	return 0;
}

static void seg_done(struct torus_req *r, struct lt_seg *s, int err)
{
	s->done = true;
	r->ndone++;
	if (err && !r->err)
		r->err = err;
}

/* Send what the window allows, strictly in start order. */
static int issue(struct torus_ctx *ctx)
{
	struct torus_req *r;
	uint32_t i;

	for (r = ctx->head; r; r = r->next)
		for (i = 0; i < r->nseg; i++) {
			if (r->seg[i].sent)
				continue;
			if (ctx->inflight >= ctx->window)
				return 0;
			if (seg_send(r, &r->seg[i])) {
				/* never sent: fail it here, keep the order */
				r->seg[i].sent = true;
				seg_done(r, &r->seg[i], errno);
			}
		}
	return 0;
}

static struct torus_req *find_seg(struct torus_ctx *ctx, uint32_t nlseq,
				  struct lt_seg **sp)
{
	struct torus_req *r;
	uint32_t i;

	for (r = ctx->head; r; r = r->next)
		for (i = 0; i < r->nseg; i++)
			if (r->seg[i].sent && !r->seg[i].done &&
			    r->seg[i].nlseq == nlseq) {
				*sp = &r->seg[i];
				return r;
			}
	return NULL;
}

struct lt_answer {
	uint32_t seq;
	uint32_t error;
	const void *result;
	size_t len;
	const void *loc;
	size_t loc_len;
	bool placed;
};

static int answer_attr_cb(const struct nlattr *attr, void *data)
{
	struct lt_answer *a = data;

	switch (mnl_attr_get_type(attr)) {
	case TORUS_A_COLL_SEQ:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) >= 0)
			a->seq = mnl_attr_get_u32(attr);
		break;
	case TORUS_A_COLL_ERROR:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) >= 0)
			a->error = mnl_attr_get_u32(attr);
		break;
	case TORUS_A_COLL_RESULT:
		a->result = mnl_attr_get_payload(attr);
		a->len = mnl_attr_get_payload_len(attr);
		break;
	case TORUS_A_COLL_LOC:
		a->loc = mnl_attr_get_payload(attr);
		a->loc_len = mnl_attr_get_payload_len(attr);
		break;
	case TORUS_A_COLL_PLACED:
		a->placed = true;
		break;
	}
	return MNL_CB_OK;
}

/* One message from the module: a segment's answer or refusal. */
static void dispatch(struct torus_ctx *ctx, const struct nlmsghdr *nlh)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);
	size_t size, want;
	struct lt_answer a = { 0 };
	struct torus_req *r;
	struct lt_seg *s;
	int err;

	r = find_seg(ctx, nlh->nlmsg_seq, &s);
	if (!r)
		return;	/* not ours, or late */
	if (nlh->nlmsg_type == NLMSG_ERROR) {
		if (mnl_nlmsg_get_payload_len(nlh) < sizeof(int))
			return;
		memcpy(&err, g, sizeof(err));
		if (!err)
			return;	/* an ACK */
		extack_msg(ctx, nlh);
		ctx->inflight--;
		seg_done(r, s, -err);
		return;
	}
	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*g) ||
	    g->cmd != TORUS_CMD_COLL)
		return;
	mnl_attr_parse(nlh, sizeof(*g), answer_attr_cb, &a);
	ctx->inflight--;
	r->last_seq = a.seq;
	if (a.error) {
		seg_done(r, s, (int)a.error);
		return;
	}
	size = torus_type_size(r->type);
	want = (size_t)s->count * size;
	if (r->kind == TORUS_COLL_BARRIER ||
	    (r->kind == TORUS_COLL_REDUCE && !r->root)) {
		seg_done(r, s, a.len ? EPROTO : 0);
		return;
	}
	if (a.placed != r->place || a.len != (r->place ? 0 : want) ||
	    (r->loc && a.loc_len != s->count * 4u)) {
		seg_done(r, s, EPROTO);
		return;
	}
	if (!r->place)
		memcpy((char *)r->buf + (size_t)s->first * size, a.result,
		       want);
	if (r->loc)
		memcpy(r->loc + s->first, a.loc, a.loc_len);
	seg_done(r, s, 0);
}

/* Read what has arrived, without waiting, and send what may go. */
static int progress(struct torus_ctx *ctx)
{
	int fd = mnl_socket_get_fd(ctx->nl);

	for (;;) {
		const struct nlmsghdr *nlh;
		ssize_t n = recv(fd, ctx->recvbuf, LT_RECVBUF, MSG_DONTWAIT);
		int rem;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n < 0)
			return -1;	/* ENOBUFS: answers were lost */
		rem = (int)n;
		for (nlh = (const void *)ctx->recvbuf; mnl_nlmsg_ok(nlh, rem);
		     nlh = mnl_nlmsg_next(nlh, &rem))
			dispatch(ctx, nlh);
	}
	return issue(ctx);
}

static void unlink_req(struct torus_ctx *ctx, struct torus_req *r)
{
	struct torus_req **pp, *prev = NULL;

	for (pp = &ctx->head; *pp; prev = *pp, pp = &(*pp)->next)
		if (*pp == r) {
			*pp = r->next;
			if (ctx->tail == r)
				ctx->tail = prev;
			return;
		}
}

/* A finished request: its result, and it is freed. */
static int req_end(struct torus_req *r)
{
	struct torus_ctx *ctx = r->ctx;
	int err = r->err;

	ctx->last_seq = r->last_seq;
	unlink_req(ctx, r);
	if (r->user_buf && !err && !r->root)
		memcpy(r->user_buf, r->buf, r->n * torus_type_size(r->type));
	req_free(r);
	if (err) {
		errno = err;
		return -1;
	}
	return 1;
}

/**
 * torus_test - has a request completed?
 * @req: from a *_start call
 *
 * Reads the answers that have arrived (never waits) and sends the
 * segments that may go.
 *
 * Return: 0 not yet; 1 done (@req is freed, the result is in the
 * buffer); -1 failed, errno set (@req is freed).
 */
int torus_test(struct torus_req *req)
{
	struct torus_ctx *ctx = req->ctx;
	uint32_t i;

	if (progress(ctx)) {
		/* answers lost: this request can no longer complete */
		for (i = 0; i < req->nseg; i++)
			if (!req->seg[i].done) {
				if (req->seg[i].sent)
					ctx->inflight--;
				req->seg[i].sent = true;
				seg_done(req, &req->seg[i], errno);
			}
	}
	if (req->ndone < req->nseg)
		return 0;
	return req_end(req);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/**
 * torus_wait - wait until a request completes
 * @req: from a *_start call; freed
 *
 * Return: 0, or -1 with errno set (the module's error, e.g. ETIMEDOUT,
 * ENOLINK, ECONNABORTED, ENETRESET; torus_errmsg() says more for a
 * refused one).
 */
int torus_wait(struct torus_req *req)
{
	struct torus_ctx *ctx = req->ctx;
	struct pollfd pfd = { .fd = torus_fd(ctx), .events = POLLIN };
	int64_t limit = now_ms() + ctx->timeout_ms + LT_GRACE_MS;
	uint32_t i, done = req->ndone;
	int ret;

	while (!(ret = torus_test(req))) {
		int64_t left;

		/* each segment is answered within the timeout of its own
		 * start, and segments start as others finish: the guard
		 * runs from the last answer
		 */
		if (req->ndone != done) {
			done = req->ndone;
			limit = now_ms() + ctx->timeout_ms + LT_GRACE_MS;
		}
		left = limit - now_ms();

		if (left <= 0) {
			for (i = 0; i < req->nseg; i++)
				if (!req->seg[i].done) {
					if (req->seg[i].sent)
						ctx->inflight--;
					req->seg[i].sent = true;
					seg_done(req, &req->seg[i], ETIMEDOUT);
				}
			set_msg(ctx, "no answer from the module");
			continue;
		}
		if (poll(&pfd, 1, (int)left) < 0 && errno != EINTR)
			return -1;
	}
	return ret < 0 ? -1 : 0;
}

static struct torus_req *start(struct torus_ctx *ctx, uint8_t kind,
			       void *buf, uint32_t *loc, size_t n, int type,
			       int op, uint32_t root)
{
	struct torus_req *r = req_new(ctx, kind, buf, loc, n, type, op, root);

	if (r)
		issue(ctx);
	return r;
}

struct torus_req *torus_barrier_start(struct torus_ctx *ctx)
{
	return start(ctx, TORUS_COLL_BARRIER, NULL, NULL, 0, TORUS_INT8, 0, 0);
}

struct torus_req *torus_allreduce_start(struct torus_ctx *ctx, void *buf,
					size_t n, int type, int op)
{
	return start(ctx, TORUS_COLL_ALLREDUCE, buf, NULL, n, type, op, 0);
}

struct torus_req *torus_allreduce_loc_start(struct torus_ctx *ctx,
					    void *buf, uint32_t *loc,
					    size_t n, int type, int op)
{
	return start(ctx, TORUS_COLL_ALLREDUCE, buf, loc, n, type, op, 0);
}

struct torus_req *torus_reduce_start(struct torus_ctx *ctx, void *buf,
				     size_t n, int type, int op,
				     uint32_t root)
{
	return start(ctx, TORUS_COLL_REDUCE, buf, NULL, n, type, op, root);
}

struct torus_req *torus_bcast_start(struct torus_ctx *ctx, void *buf,
				    size_t n, int type, uint32_t root)
{
	return start(ctx, TORUS_COLL_BCAST, buf, NULL, n, type, 0, root);
}

static int finish(struct torus_req *r)
{
	return r ? torus_wait(r) : -1;
}

int torus_barrier(struct torus_ctx *ctx)
{
	return finish(torus_barrier_start(ctx));
}

int torus_allreduce(struct torus_ctx *ctx, void *buf, size_t n, int type,
		    int op)
{
	return finish(torus_allreduce_start(ctx, buf, n, type, op));
}

int torus_allreduce_loc(struct torus_ctx *ctx, void *buf, uint32_t *loc,
			size_t n, int type, int op)
{
	return finish(torus_allreduce_loc_start(ctx, buf, loc, n, type, op));
}

int torus_reduce(struct torus_ctx *ctx, void *buf, size_t n, int type,
		 int op, uint32_t root)
{
	return finish(torus_reduce_start(ctx, buf, n, type, op, root));
}

int torus_bcast(struct torus_ctx *ctx, void *buf, size_t n, int type,
		uint32_t root)
{
	return finish(torus_bcast_start(ctx, buf, n, type, root));
}
