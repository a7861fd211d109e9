/* SPDX-License-Identifier: GPL-2.0 */
/*
 * torus.ko internal interfaces.
 */
#ifndef _TORUS_PRIV_H
#define _TORUS_PRIV_H

#include <linux/netdevice.h>
#include <linux/rcupdate.h>
#include <linux/u64_stats_sync.h>
#include <linux/torus.h>

#define TORUS_REASON_LEN	64
/* checks return this, or the enum torus_drop_reason to count (0 is one) */
#define TORUS_PASS		(-1)
#define TORUS_NEEDED_HEADROOM	(ETH_HLEN + TORUS_HDR_LEN)

/**
 * struct torus_geom - where a node sits in the fabric
 * @ndims: number of axes in use (0: not configured)
 * @wrap: bit per axis, set for a ring (torus), clear for a line (mesh)
 * @coord: this node's coordinates
 * @dims: extent per axis
 */
struct torus_geom {
	u8 ndims;
	u8 wrap;
	u8 coord[TORUS_MAX_AXES];
	u16 dims[TORUS_MAX_AXES];
};

/**
 * struct torus_route_exc - per-destination exception to DOR
 * @dst: destination coordinates (unused axes 0)
 * @via: intermediate node, valid if @has_via
 * @dir: leave by this global direction, TORUS_DIR_NONE if unused
 * @has_via: route to @via first (lambs' first round)
 * @plan: the plan of the frame's first round (0: DOR)
 * @plan1: the plan of round 1, from @via on (@has_via only)
 */
struct torus_route_exc {
	u8 dst[TORUS_MAX_AXES];
	u8 via[TORUS_MAX_AXES];
	u8 dir;
	bool has_via;
	u8 plan;
	u8 plan1;
};

/**
 * struct torus_rtable - the exception table, replaced as a whole under
 *	RTNL, read under RCU
 * @rcu: deferred free
 * @count: number of exceptions
 * @hash_mask: number of hash slots - 1 (a power of two, >= 2 * @count)
 * @slot: open-addressing hash index over @exc by destination: entry
 *	index + 1, 0 for an empty slot; lives after @exc
 * @exc: the exceptions, sorted by @dst (dumps, merges)
 */
struct torus_rtable {
	struct rcu_head rcu;
	u32 count;
	u32 hash_mask;
	u32 *slot;
	struct torus_route_exc exc[];
};

/**
 * struct torus_plan - one routing plan
 * @ndims: the number of axes the plan was made for; a plan for another
 *	geometry is not used
 * @order: the axes in the order they are corrected
 * @policy: enum torus_plan_policy per axis
 */
struct torus_plan {
	u8 ndims;
	u8 order[TORUS_MAX_AXES];
	u8 policy[TORUS_MAX_AXES];
};

/**
 * struct torus_plans - a node's plan table, replaced as a whole
 * @rcu: deferred free
 * @present: bit per plan index installed (plan 0 is always DOR)
 * @plan: the plans, by index
 */
struct torus_plans {
	struct rcu_head rcu;
	u8 present;
	struct torus_plan plan[TORUS_MAX_PLANS];
};

struct torus_stats {
	u64 rx_packets;
	u64 rx_bytes;
	u64 tx_packets;
	u64 tx_bytes;
	u64 fwd_packets;
	u64 detours;
	u64 drops;
	u64 drop[__TORUS_DROP_MAX];
};

/*
 * The counters are written by their own CPU only; @base, what they were
 * at the last reset, by the reset alone (under RTNL), and readers
 * subtract it.
 */
struct torus_pcpu_stats {
	u64_stats_t rx_packets;
	u64_stats_t rx_bytes;
	u64_stats_t tx_packets;
	u64_stats_t tx_bytes;
	u64_stats_t fwd_packets;
	u64_stats_t detours;
	u64_stats_t drops[__TORUS_DROP_MAX];
	struct u64_stats_sync syncp;
	struct torus_stats base;
	struct u64_stats_sync base_syncp;
};

struct torus_node;
struct torus_coll;
struct genl_info;
struct nlattr;

/**
 * struct torus_port - a device enslaved to a node device
 * @list: in torus_node.ports (RTNL; RCU for readers)
 * @dev: the port's net_device (a torport or any Ethernet device)
 * @node: the node it serves
 * @stats: frames the fabric took from / gave to this port, and drops
 *	attributed to it
 * @label: physical direction label, TORUS_DIR_NONE if none; a torport's
 *	is its cable's, any other port's is set (slave_changelink), RTNL
 * @rcu: deferred free
 */
struct torus_port {
	struct list_head list;
	struct net_device *dev;
	struct torus_node *node;
	struct torus_pcpu_stats __percpu *stats;
	u8 label;
	struct rcu_head rcu;
};

/**
 * struct torus_fib - the forwarding state of a node, replaced as a whole
 * @geom: coordinates, extents and wrap
 * @placed: the node forwards (state is TORUS_STATE_PLACED)
 * @hop_limit: initial hop limit of frames this node originates
 * @map: global direction -> port
 */
struct torus_fib {
	struct rcu_head rcu;
	struct torus_geom geom;
	bool placed;
	u8 hop_limit;
	struct torus_port *map[TORUS_MAX_DIRS];
};

/**
 * struct torus_node - private data of a node device (type torus)
 * @dev: the node device
 * @ports: enslaved ports (RTNL)
 * @fib: forwarding state (RCU; written under RTNL)
 * @routes: route exceptions (RCU; written under RTNL)
 * @plans: routing plans 1.. (RCU; written under RTNL), NULL: only DOR
 * @stats: node counters
 * @id: unique node id
 * @leader: id of the leader of the frame the coordinates are in
 * @state: enum torus_node_state
 * @role: enum torus_node_role
 * @hop_limit: configured hop limit, 0 for the default
 * @reason: why the node is in its state
 * @generation: bumped on every change, reported in dumps
 * @routes_generation: bumped on every install of @routes
 * @coll: collective operations (torus_coll.c); RCU for the data path
 */
struct torus_node {
	struct net_device *dev;
	struct list_head ports;
	struct torus_fib __rcu *fib;
	struct torus_rtable __rcu *routes;
	struct torus_plans __rcu *plans;
	struct torus_pcpu_stats __percpu *stats;
	u64 id;
	u64 leader;
	u8 state;
	u8 role;
	u8 hop_limit;
	char reason[TORUS_REASON_LEN];
	u32 generation;
	u32 routes_generation;
	struct torus_coll __rcu *coll;
};

/**
 * struct torport_priv - one end of a torport cable
 * @peer: the other end, possibly in another netns
 * @stats: device counters (ip -s link) and cable drops
 * @loss_ppm: frames lost on purpose per million (fault injection)
 * @label: physical direction label of this end
 * @cut: the cable is cut: no carrier on either end
 * @rx_on: this end is up and takes frames into @rxq (under @rxq.lock)
 * @rxq_bytes: truesize of the frames in @rxq (under @rxq.lock)
 * @rxq: frames the peer sent, waiting for this end's @napi: the cable's
 *	own receive buffer, so that no other device's burst fills it
 * @napi: delivers @rxq to the stack (the node's rx_handler)
 */
struct torport_priv {
	struct net_device __rcu *peer;
	struct torus_pcpu_stats __percpu *stats;
	u32 loss_ppm;
	u8 label;
	bool cut;
	bool rx_on;
	unsigned int rxq_bytes;
	struct sk_buff_head rxq;
	struct napi_struct napi;
};

/*
 * A torport's receive buffer: TORPORT_RXQ_LEN frames.  Collective frames
 * may fill it up to TORPORT_RXQ_COLL_MAX frames and TORPORT_RXQ_COLL_BYTES
 * of memory: the collectives have no retransmission, and what one node
 * can have in flight towards a neighbour is bounded by its slots
 * (TORUS_COLL_SLOTS), so their link is lossless as long as the peer
 * drains it, as a real fabric's collective channel is by credits.
 */
#define TORPORT_RXQ_LEN		1024
#define TORPORT_RXQ_COLL_MAX	16384
#define TORPORT_RXQ_COLL_BYTES	(16U << 20)

/* torus_route.c: pure routing logic */
bool torus_coord_valid(const struct torus_geom *g, const u8 *coord);
u8 torus_dor_next_dir(const struct torus_geom *g, const u8 *cur,
		      const u8 *dst);
unsigned int torus_dor_hops(const struct torus_geom *g, const u8 *src,
			    const u8 *dst);
u8 torus_plan_next_dir(const struct torus_geom *g, const struct torus_plan *p,
		       const u8 *cur, const u8 *dst, u8 skip_axes);
const struct torus_plan *torus_plan_get(const struct torus_plans *plans,
					unsigned int index);

/**
 * struct torus_route_ctx - what a node knows when it routes a frame
 * @g: its geometry
 * @rt: route exceptions, may be NULL
 * @plans: plans, may be NULL (only plan 0)
 * @usable: bit per global direction whose port can send now
 * @in_dir: global direction of the port the frame arrived on,
 *	TORUS_DIR_NONE at the source or on an unmapped port
 * @at_source: the frame is being originated here
 */
struct torus_route_ctx {
	const struct torus_geom *g;
	const struct torus_rtable *rt;
	const struct torus_plans *plans;
	u16 usable;
	u8 in_dir;
	bool at_source;
};

/* torus_route() result besides a direction */
#define TORUS_ROUTE_NO_PLAN	0xfe	/* drop: TORUS_DROP_NO_PLAN */

u8 torus_route(const struct torus_route_ctx *ctx, struct torus_hdr *h,
	       u8 *why);
u8 torus_detour_dir(const struct torus_geom *g, const struct torus_plan *p,
		    struct torus_hdr *h, u8 blocked, u16 usable);
u8 torus_vc_next(const struct torus_geom *g, u8 vc, u8 in_dir, u8 out_dir);
int torus_addr4_to_coord(const struct torus_geom *g, __be32 addr, u8 *coord);
int torus_addr6_to_coord(const struct torus_geom *g,
			 const struct in6_addr *addr, u8 *coord);
__be32 torus_coord_to_addr4(const u8 *coord);
void torus_coord_to_addr6(const u8 *coord, struct in6_addr *addr);
const struct torus_route_exc *
torus_rtable_lookup(const struct torus_rtable *rt, const u8 *dst);
struct torus_rtable *torus_rtable_upsert(const struct torus_rtable *old,
					 const struct torus_route_exc *exc);
struct torus_rtable *torus_rtable_remove(const struct torus_rtable *old,
					 const u8 *dst);

/* torus_frame.c: frame header */
void torus_hdr_init(struct torus_hdr *h, u8 type, __be16 proto,
		    const u8 *src, const u8 *dst, u8 hop_limit);
int torus_hdr_check(const struct torus_hdr *h, const struct torus_geom *g);
bool torus_frame_pull(struct sk_buff *skb, struct torus_hdr **hp);

/* torus_stats.c */
struct torus_pcpu_stats __percpu *torus_stats_alloc(void);
void torus_stats_read(struct torus_pcpu_stats __percpu *p,
		      struct torus_stats *out);
void torus_stats_reset(struct torus_pcpu_stats __percpu *p);
void torus_stats_rx(struct torus_pcpu_stats __percpu *p, unsigned int len);
void torus_stats_tx(struct torus_pcpu_stats __percpu *p, unsigned int len);
void torus_stats_fwd(struct torus_pcpu_stats __percpu *p);
void torus_stats_detour(struct torus_pcpu_stats __percpu *p);
void torus_stats_drop(struct torus_pcpu_stats __percpu *p,
		      enum torus_drop_reason reason);

/* torus_node.c: node device */
extern struct rtnl_link_ops torus_node_link_ops;
bool netif_is_torus_node(const struct net_device *dev);
struct torus_port *torus_port_from_dev(const struct net_device *dev);
int torus_node_set_fib(struct torus_node *node, const struct torus_geom *g,
		       bool placed, struct torus_port *const *map);
u8 torus_port_global_dir(const struct torus_fib *fib,
			 const struct torus_port *port);
void torus_node_release_port(struct torus_port *port);
int torus_port_label_check(const struct torus_port *port, u8 label,
			   const struct nlattr *attr,
			   struct netlink_ext_ack *extack);
void torus_node_port_changed(struct net_device *dev);
int torus_node_notifier_init(void);
void torus_node_notifier_exit(void);

/* torus_port.c: torport cables */
extern struct rtnl_link_ops torport_link_ops;
bool netif_is_torport(const struct net_device *dev);
int torport_set_cable(struct net_device *dev, int carrier, s64 loss_ppm,
		      struct netlink_ext_ack *extack);
int torport_pernet_register(void);
void torport_pernet_unregister(void);

/* torus_fwd.c: data path */
netdev_tx_t torus_node_xmit(struct sk_buff *skb, struct net_device *dev);
rx_handler_result_t torus_handle_frame(struct sk_buff **pskb);
u16 torus_fib_usable(const struct torus_fib *fib);
void torus_coll_xmit(struct torus_node *node, struct sk_buff *skb, u8 dir);
void torus_coll_route_xmit(struct torus_node *node, struct sk_buff *skb);
enum skb_drop_reason torus_skb_drop_reason(enum torus_drop_reason r);
void torus_coll_drop(struct torus_node *node, struct torus_port *port,
		     struct sk_buff *skb, enum torus_drop_reason reason);

/* torus_gso.c: segmentation of fabric frames */
void torus_gso_init(void);
void torus_gso_exit(void);

/* torus_ethtool.c: for node devices and torports alike */
extern const struct ethtool_ops torus_ethtool_ops;

/* torus_netlink.c */
int torus_netlink_init(void);
void torus_netlink_exit(void);
void torus_notify_node(struct torus_node *node);
void torus_notify_port(struct torus_port *port);
int torus_nl_put_axes(struct sk_buff *skb, int type,
		      const struct torus_geom *g, int what);
struct torus_node *torus_nl_get_node(struct genl_info *info);
int torus_nl_parse_coord(struct nlattr *nest, const struct torus_geom *g,
			 u8 *coord, struct netlink_ext_ack *extack);
void *torus_nl_put_header(struct sk_buff *skb, u32 portid, u32 seq, u8 cmd);

/* torus_route.c: route exceptions against a geometry, batches */
unsigned int torus_diameter(const struct torus_geom *g);
int torus_rtable_revalidate(const struct torus_rtable *old,
			    const struct torus_plans *plans,
			    const struct torus_geom *g, gfp_t gfp,
			    struct torus_rtable **out);
int torus_nl_route_batch_parse(const struct nlattr *head, int len,
			       const struct torus_geom *g,
			       struct torus_route_exc **batch, u32 *n,
			       struct netlink_ext_ack *extack);
int torus_nl_validate_request(const struct nlattr *head, int len,
			      struct netlink_ext_ack *extack);
const char *torus_exc_from_rec(const struct torus_exc_rec *rec,
			       const struct torus_geom *g,
			       struct torus_route_exc *exc);
struct torus_rtable *torus_rtable_build(const struct torus_rtable *old,
					struct torus_route_exc *batch, u32 n,
					bool replace, gfp_t gfp);

/* torus_node.c: forwarding state built, then published */
struct torus_fib *torus_fib_build(const struct torus_node *node,
				  const struct torus_geom *g, bool placed,
				  struct torus_port *const *map, u8 hop_limit,
				  gfp_t gfp);
void torus_node_publish_fib(struct torus_node *node, struct torus_fib *fib);

/**
 * struct torus_node_change - a validated NODE_SET request
 * @geom: new geometry, if @has_geom
 * @has_geom: the geometry changes
 * @id: node id
 * @leader: leader id
 * @state: enum torus_node_state
 * @role: enum torus_node_role
 * @hop_limit: configured hop limit, 0 for the default
 * @reason: why the node is in @state
 * @fib: forwarding state, allocated by torus_node_change_prepare()
 * @routes: route exceptions still valid in @geom, if @new_routes
 * @new_routes: @routes replaces the node's table
 */
struct torus_node_change {
	struct torus_geom geom;
	bool has_geom;
	u64 id;
	u64 leader;
	u8 state;
	u8 role;
	u8 hop_limit;
	char reason[TORUS_REASON_LEN];
	struct torus_fib *fib;
	struct torus_rtable *routes;
	bool new_routes;
};

/* torus_config.c: node changes, all or nothing */
void torus_node_change_init(const struct torus_node *node,
			    struct torus_node_change *c);
int torus_node_change_prepare(struct torus_node *node,
			      struct torus_node_change *c, gfp_t gfp,
			      struct netlink_ext_ack *extack);
void torus_node_change_commit(struct torus_node *node,
			      struct torus_node_change *c);

#endif /* _TORUS_PRIV_H */
