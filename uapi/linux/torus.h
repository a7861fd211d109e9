/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * torus: a self-configuring N-dimensional torus/mesh fabric.
 *
 * The one contract between torus.ko and userspace (torusd, torus,
 * torus-sim): the generic netlink family, its attributes, the frame
 * header carried on the ports, and the limits.  Only __u and __be types.
 */
#ifndef _UAPI_LINUX_TORUS_H
#define _UAPI_LINUX_TORUS_H

#include <linux/types.h>

#define TORUS_GENL_NAME		"torus"
#define TORUS_GENL_VERSION	1
#define TORUS_GENL_MCGRP_EVENTS	"events"

/* link kinds for rtnetlink (ip link add ... type torus|torport) */
#define TORUS_NODE_KIND		"torus"
#define TORUS_PORT_KIND		"torport"

/* IEEE 802 local experimental ethertype 2 */
#define ETH_P_TORUS		0x88B5

/* Limits */
#define TORUS_MAX_AXES		8	/* x y z a b c d e */
#define TORUS_MAX_EXTENT	256	/* coordinates fit in one byte */
#define TORUS_MAX_DIRS		(2 * TORUS_MAX_AXES)
#define TORUS_MAX_ROUTES	65536	/* route exceptions per node */
#define TORUS_MAX_PLANS		8	/* routing plans per node, 0 is DOR */
#define TORUS_LOSS_PPM_MAX	1000000

/**
 * DOC: directions
 *
 * A direction is one byte: (axis << 1) | sign, sign 0 for "+" and 1 for
 * "-".  So +x = 0, -x = 1, +y = 2, ... -e = 15.  Axis names are
 * "xyzabcde"; the first six are Tofu's.  A port's *label* is the
 * direction printed on its connector (its own frame); its *global*
 * direction is what the port map says it serves in the fabric's frame.
 */
#define TORUS_AXIS_NAMES	"xyzabcde"
#define TORUS_DIR(axis, neg)	((__u8)(((axis) << 1) | ((neg) ? 1 : 0)))
#define TORUS_DIR_AXIS(dir)	((dir) >> 1)
#define TORUS_DIR_NEG(dir)	((dir) & 1)
#define TORUS_DIR_OPPOSITE(dir)	((dir) ^ 1)
#define TORUS_DIR_NONE		0xff	/* unmapped, or "deliver here" */

/**
 * DOC: address plan
 *
 * IPv4: 10.0.0.0/8; for up to 3 axes the octets after the first are the
 * x, y and z coordinates (missing axes are 0), so node (1,2,3) is
 * 10.1.2.3.  IPv6: fd74:6f72:7573::/64 ("torus"), the interface
 * identifier holds one coordinate byte per axis, x first, for up to 8
 * axes: node (1,2,3) is fd74:6f72:7573:0:102:300::.  Addresses outside
 * the plan are dropped with TORUS_DROP_BAD_ADDR.
 */
#define TORUS_IPV4_PREFIX	0x0a000000	/* 10.0.0.0, host order */
#define TORUS_IPV4_PREFIX_LEN	8
#define TORUS_IPV4_MAX_AXES	3
#define TORUS_IPV6_PREFIX	{ 0xfd, 0x74, 0x6f, 0x72, 0x75, 0x73, 0, 0 }
#define TORUS_IPV6_PREFIX_LEN	64

/**
 * enum torus_frame_type - what a fabric frame carries
 * @TORUS_T_DATA: a network-layer packet (IPv4/IPv6, see @proto), routed
 *	by coordinates and consumed by the module
 * @TORUS_T_CTRL: a control frame for the daemon, one hop only; it is
 *	passed up on the port so a packet socket (torusd, tcpdump) sees it
 * @TORUS_T_COLL: a collective operation frame (struct torus_coll_hdr
 *	follows the header, @proto is 0), consumed by the module: one hop
 *	along the combining tree, or, in a node-list group
 *	(TORUS_COLL_GROUP_LIST), routed to another member as data is
 */
enum torus_frame_type {
	TORUS_T_DATA = 1,
	TORUS_T_CTRL = 2,
	TORUS_T_COLL = 3,
	/* add new types above */
};

/* torus_hdr.flags */
#define TORUS_F_VIA		0x01	/* round 1: route to @via first */
#define TORUS_F_DETOUR		0x02	/* a local detour was taken */
/* while TORUS_F_VIA is set: the plan of round 1, taken at the via node */
#define TORUS_F_PLAN1_SHIFT	5
#define TORUS_F_PLAN1_MASK	0xe0

/**
 * DOC: routing plans and virtual channels
 *
 * A plan is an axis order and, per axis, which way round a ring a frame
 * goes (enum torus_plan_policy).  Plan 0 is dimension-ordered routing:
 * x first, the shortest way, ties "+".  A frame keeps its plan from
 * source to destination; transit nodes route it by the plan named in
 * its header, so every node must hold the same plan table.
 *
 * torus_hdr.vc is the frame's virtual channel class:
 * vc = plan * 4 + round * 2 + dateline, where plan is the plan of the
 * current round, round is 0 for the first (or only) round, from the
 * source to the intermediate node (TORUS_F_VIA) or straight to the
 * destination, and 1 from the intermediate node on, and the dateline bit
 * is set when the frame crosses the wrap cable of the ring it travels on
 * (from extent - 1 to 0 going "+", from 0 to extent - 1 going "-") and
 * cleared when it changes axis or round.  Each round may have its own
 * plan: round 1's travels in the flags (TORUS_F_PLAN1_MASK) until the
 * intermediate node puts it into vc.
 */
#define TORUS_VC(plan, round, dateline) \
	((__u8)(((plan) << 2) | ((round) ? 2 : 0) | ((dateline) ? 1 : 0)))
#define TORUS_VC_PLAN(vc)	((vc) >> 2)
#define TORUS_VC_ROUND(vc)	(((vc) >> 1) & 1)
#define TORUS_VC_DATELINE(vc)	((vc) & 1)
#define TORUS_VC_MAX		TORUS_VC(TORUS_MAX_PLANS - 1, 1, 1)

/**
 * enum torus_plan_policy - which way round a ring a plan goes on an axis
 * @TORUS_PLAN_SHORTEST: the shortest way, ties "+" (meshes: the only way)
 * @TORUS_PLAN_PLUS: always "+" on a ring
 * @TORUS_PLAN_MINUS: always "-" on a ring
 */
enum torus_plan_policy {
	TORUS_PLAN_SHORTEST,
	TORUS_PLAN_PLUS,
	TORUS_PLAN_MINUS,
	/* add new policies above */
	__TORUS_PLAN_POLICY_MAX,
	TORUS_PLAN_POLICY_MAX = __TORUS_PLAN_POLICY_MAX - 1
};

#define TORUS_HDR_VERSION	1
#define TORUS_HOP_LIMIT_DEFAULT	255

/**
 * struct torus_hdr - fabric frame header, after the Ethernet header
 * @version: TORUS_HDR_VERSION; frames of another version are dropped
 * @type: enum torus_frame_type
 * @hop_limit: decremented per hop; a frame that reaches 0 is dropped
 * @flags: TORUS_F_*
 * @proto: ethertype of the payload of a data frame (ETH_P_IP, ETH_P_IPV6)
 * @vc: virtual channel class, TORUS_VC(plan, round, dateline)
 * @traversed: one bit per axis on which a local detour took a
 *	non-minimal step (FTROUTE's dimensions-traversed vector); each axis
 *	at most once, so detours are bounded
 * @dst: destination coordinates, one byte per axis
 * @src: source coordinates
 * @via: intermediate coordinates while TORUS_F_VIA is set (lambs round 1)
 */
struct torus_hdr {
	__u8	version;
	__u8	type;
	__u8	hop_limit;
	__u8	flags;
	__be16	proto;
	__u8	vc;
	__u8	traversed;
	__u8	dst[TORUS_MAX_AXES];
	__u8	src[TORUS_MAX_AXES];
	__u8	via[TORUS_MAX_AXES];
};

#define TORUS_HDR_LEN		32

/**
 * enum torus_cmd - generic netlink commands
 * @TORUS_CMD_NODE_GET: get one node device (by TORUS_A_IFINDEX or
 *	TORUS_A_IFNAME) or dump all in the netns
 * @TORUS_CMD_NODE_SET: set id, coordinates, extents, wrap, state, role,
 *	reason, hop limit (CAP_NET_ADMIN)
 * @TORUS_CMD_PORT_GET: dump ports (of one node if TORUS_A_IFINDEX is
 *	given), or get one by TORUS_A_PORT_IFINDEX
 * @TORUS_CMD_PORTMAP_SET: replace the port map (global direction ->
 *	port) of a node atomically (CAP_NET_ADMIN)
 * @TORUS_CMD_CABLE_SET: cut/restore a torport cable (carrier on both
 *	ends) and set its loss rate (CAP_NET_ADMIN)
 * @TORUS_CMD_ROUTE_GET: next hop for TORUS_A_ROUTE_DST; dump lists the
 *	route exceptions
 * @TORUS_CMD_ROUTE_SET: add or replace a per-destination exception
 * @TORUS_CMD_ROUTE_DEL: delete one exception, or all if no destination
 * @TORUS_CMD_NODE_EVENT: multicast: a node's configuration changed
 * @TORUS_CMD_PORT_EVENT: multicast: a port changed (carrier, map, slave)
 * @TORUS_CMD_STATS_RESET: zero the node's and its ports' counters
 * @TORUS_CMD_ROUTE_BATCH: set many exceptions, one TORUS_A_ROUTE each
 *	(the attribute repeated) and/or packed in TORUS_A_ROUTES_PACKED
 *	records, in one step: merged into the table, or
 *	replacing it whole with TORUS_A_ROUTES_REPLACE; all or nothing
 *	(CAP_NET_ADMIN)
 * @TORUS_CMD_PLAN_SET: replace the node's plans 1..TORUS_MAX_PLANS - 1
 *	by the TORUS_A_PLAN attributes given (repeated; none: only plan 0
 *	is left); all or nothing (CAP_NET_ADMIN).  NODE_GET reports them.
 * @TORUS_CMD_NODE_REDISCOVER: ask the node's daemon to discover again
 *	from scratch (after recabling): relayed to the events group as a
 *	message of this command with the node's attributes; fails with
 *	ESRCH when nobody listens there (CAP_NET_ADMIN)
 * @TORUS_CMD_COLL_TREE_SET: install the node's combining tree
 *	(TORUS_A_COLL_TREE), or, without it, go back to the default one
 *	computed from the coordinates (CAP_NET_ADMIN)
 * @TORUS_CMD_COLL_TREE_GET: the node's combining tree, installed or
 *	default (TORUS_A_COLL_TREE, TORUS_A_COLL_TREE_SET)
 * @TORUS_CMD_COLL: join a collective operation (TORUS_A_COLL_*).  The
 *	request is answered later, when the operation completes or fails,
 *	by a message of this command to the requesting socket with the
 *	request's sequence number: TORUS_A_COLL_RESULT (or
 *	TORUS_A_COLL_PLACED) or TORUS_A_COLL_ERROR.  Errors found in the request itself come back
 *	at once as a netlink error.  Every node of the group calls the
 *	same operations in the same order.
 */
enum torus_cmd {
	TORUS_CMD_UNSPEC,
	TORUS_CMD_NODE_GET,
	TORUS_CMD_NODE_SET,
	TORUS_CMD_PORT_GET,
	TORUS_CMD_PORTMAP_SET,
	TORUS_CMD_CABLE_SET,
	TORUS_CMD_ROUTE_GET,
	TORUS_CMD_ROUTE_SET,
	TORUS_CMD_ROUTE_DEL,
	TORUS_CMD_NODE_EVENT,
	TORUS_CMD_PORT_EVENT,
	TORUS_CMD_STATS_RESET,
	TORUS_CMD_ROUTE_BATCH,
	TORUS_CMD_PLAN_SET,
	TORUS_CMD_NODE_REDISCOVER,
	TORUS_CMD_COLL_TREE_SET,
	TORUS_CMD_COLL_TREE_GET,
	TORUS_CMD_COLL,
	/* add new commands above */
	__TORUS_CMD_MAX,
	TORUS_CMD_MAX = __TORUS_CMD_MAX - 1
};

/**
 * enum torus_attr - top-level attributes
 * @TORUS_A_IFINDEX: u32, the node device
 * @TORUS_A_IFNAME: string, the node device
 * @TORUS_A_NODE_ID: u64, unique node id (the daemon's election key)
 * @TORUS_A_COORD: nest of u32 per axis (TORUS_AXIS_A_*), < extent
 * @TORUS_A_DIMS: nest of u32 per axis, extent 1..TORUS_MAX_EXTENT
 * @TORUS_A_WRAP: nest of u8 per axis, 1 torus ring, 0 mesh line
 * @TORUS_A_STATE: u8, enum torus_node_state
 * @TORUS_A_ROLE: u8, enum torus_node_role
 * @TORUS_A_REASON: string, why the node is in its state (failed)
 * @TORUS_A_HOP_LIMIT: u8, initial hop limit of frames sent by this node;
 *	0 means TORUS_HOP_LIMIT_DEFAULT
 * @TORUS_A_STATS: nest of enum torus_stats_attr
 * @TORUS_A_PORT: nest of enum torus_port_attr (one port)
 * @TORUS_A_PORTMAP: nest of TORUS_A_PORTMAP_ENTRY (enum torus_pme_attr)
 * @TORUS_A_PORT_IFINDEX: u32, a port (cable and port commands)
 * @TORUS_A_CARRIER: u8, 1 cable up, 0 cable cut
 * @TORUS_A_LOSS_PPM: u32, frames lost per million on the cable
 * @TORUS_A_ROUTE: nest of enum torus_route_attr
 * @TORUS_A_GENERATION: u32, bumped on every change of the node's
 *	routing state; dumps carry it so torn reads can be detected
 * @TORUS_A_PAD: padding for 64-bit attributes
 * @TORUS_A_LEADER: u64, id of the leader whose frame the coordinates are
 *	in (set by torusd; lets a restarted daemon resume without moving)
 * @TORUS_A_ROUTES_REPLACE: flag, TORUS_CMD_ROUTE_BATCH replaces the
 *	whole table
 * @TORUS_A_PLAN: nest of enum torus_plan_attr (repeated, one per plan)
 * @TORUS_A_ROUTES_GENERATION: u32, the exception table's generation,
 *	bumped on every install (set, batch, delete); in route dumps and
 *	NODE_GET
 * @TORUS_A_ROUTES_COUNT: u32, number of exceptions installed (NODE_GET)
 * @TORUS_A_COLL_TREE: nest of enum torus_coll_tree_attr
 * @TORUS_A_COLL_TREE_SET: u8, 1 if the tree was installed, 0 if it is
 *	the default one (COLL_TREE_GET)
 * @TORUS_A_COLL_KIND: u8, enum torus_coll_kind
 * @TORUS_A_COLL_TYPE: u8, enum torus_coll_type (not for a barrier)
 * @TORUS_A_COLL_OP: u8, enum torus_coll_op (allreduce)
 * @TORUS_A_COLL_DATA: binary, this node's elements of TORUS_A_COLL_TYPE
 *	in host byte order (allreduce; broadcast: the root only)
 * @TORUS_A_COLL_COUNT: u32, number of elements (broadcast: every node
 *	but a root that gives TORUS_A_COLL_DATA)
 * @TORUS_A_COLL_ROOT: nest of u32 per axis, the broadcast's root
 * @TORUS_A_COLL_TIMEOUT_MS: u32, fail with ETIMEDOUT after this long;
 *	default TORUS_COLL_TIMEOUT_MS
 * @TORUS_A_COLL_SEQ: u32, reply: the operation's sequence number
 * @TORUS_A_COLL_RESULT: binary, reply: the result elements, host order
 * @TORUS_A_COLL_ERROR: u32, reply: the operation failed with this errno
 * @TORUS_A_ROUTES_PACKED: binary, an array of struct torus_exc_rec
 *	(ROUTE_BATCH; repeated, at most TORUS_EXC_RECS_PER_ATTR each):
 *	the same exceptions as TORUS_A_ROUTE nests at a tenth of the
 *	parsing cost, for a whole table
 * @TORUS_A_COLL_LOC: binary, reply of minloc and maxloc: per element the
 *	u32 rank (host order) of the lowest-ranked node that holds the
 *	result; rank = x + X * (y + Y * (z + ...)) for extents X, Y, ...
 * @TORUS_A_COLL_GROUP: u16, the group: 0 (default) the whole fabric, or a
 *	bit per axis the group spans through this node (one bit: the
 *	node's line along that axis; two: its plane; ...), or
 *	TORUS_COLL_GROUP_LIST with a list's number in the low bits, for
 *	the nodes of TORUS_A_COLL_MEMBERS.  Every member joins with the
 *	same value; operations are numbered per group.
 * @TORUS_A_COLL_MEMBERS: binary, the ranks (u32, host order, strictly
 *	ascending, this node's among them, at most TORUS_COLL_LIST_MAX) of
 *	a node-list group; with TORUS_COLL_GROUP_LIST only.  See the DOC
 *	on collectives.
 * @TORUS_A_COLL_PLACE: u64, request: the address, in the requester's
 *	memory, 8-byte aligned, of a buffer of the operation's count of
 *	8-byte elements that the result goes straight into (an allreduce,
 *	a broadcast, a reduce at its root).  The module pins it until the
 *	operation ends; the requester must not touch it until the answer.
 *	A refused request leaves it as it was; after a failed operation
 *	its contents are undefined.
 *	Saves the copies into the answer, out of the socket and into the
 *	caller's memory.  At a broadcast's root the buffer holds the data
 *	instead of TORUS_A_COLL_DATA (then TORUS_A_COLL_COUNT is given),
 *	and is only read.  A placed broadcast takes up to
 *	TORUS_COLL_PLACED_MAX_COUNT elements in one operation.
 * @TORUS_A_COLL_PLACED: flag, reply: the result is in the buffer of
 *	TORUS_A_COLL_PLACE (instead of TORUS_A_COLL_RESULT)
 */
enum torus_attr {
	TORUS_A_UNSPEC,
	TORUS_A_IFINDEX,
	TORUS_A_IFNAME,
	TORUS_A_NODE_ID,
	TORUS_A_COORD,
	TORUS_A_DIMS,
	TORUS_A_WRAP,
	TORUS_A_STATE,
	TORUS_A_ROLE,
	TORUS_A_REASON,
	TORUS_A_HOP_LIMIT,
	TORUS_A_STATS,
	TORUS_A_PORT,
	TORUS_A_PORTMAP,
	TORUS_A_PORT_IFINDEX,
	TORUS_A_CARRIER,
	TORUS_A_LOSS_PPM,
	TORUS_A_ROUTE,
	TORUS_A_GENERATION,
	TORUS_A_PAD,
	TORUS_A_LEADER,
	TORUS_A_ROUTES_REPLACE,
	TORUS_A_PLAN,
	TORUS_A_ROUTES_GENERATION,
	TORUS_A_ROUTES_COUNT,
	TORUS_A_COLL_TREE,
	TORUS_A_COLL_TREE_SET,
	TORUS_A_COLL_KIND,
	TORUS_A_COLL_TYPE,
	TORUS_A_COLL_OP,
	TORUS_A_COLL_DATA,
	TORUS_A_COLL_COUNT,
	TORUS_A_COLL_ROOT,
	TORUS_A_COLL_TIMEOUT_MS,
	TORUS_A_COLL_SEQ,
	TORUS_A_COLL_RESULT,
	TORUS_A_COLL_ERROR,
	TORUS_A_ROUTES_PACKED,
	TORUS_A_COLL_LOC,
	TORUS_A_COLL_GROUP,
	TORUS_A_COLL_MEMBERS,
	TORUS_A_COLL_PLACE,
	TORUS_A_COLL_PLACED,
	/* add new attributes above */
	__TORUS_A_MAX,
	TORUS_A_MAX = __TORUS_A_MAX - 1
};

/**
 * struct torus_exc_rec - one exception in TORUS_A_ROUTES_PACKED
 * @dst: destination coordinates, one byte per axis, unused axes 0
 * @via: the intermediate node, with TORUS_EXC_REC_VIA (else zero)
 * @plan: the plan of the frame (of round 0 with a via)
 * @plan1: the plan of round 1 (with TORUS_EXC_REC_VIA, else 0)
 * @dir: leave by this global direction, TORUS_DIR_NONE for none (not
 *	with a via)
 * @flags: TORUS_EXC_REC_VIA
 *
 * The rules of a TORUS_A_ROUTE nest hold: a destination and at most one
 * of via or dir, or a plan other than 0.
 */
struct torus_exc_rec {
	__u8 dst[TORUS_MAX_AXES];
	__u8 via[TORUS_MAX_AXES];
	__u8 plan;
	__u8 plan1;
	__u8 dir;
	__u8 flags;
};

#define TORUS_EXC_REC_VIA		0x01
/* what one attribute's 16-bit length holds */
#define TORUS_EXC_RECS_PER_ATTR	\
	((0xffff - 4) / sizeof(struct torus_exc_rec))

/* Per-axis arrays (TORUS_A_COORD, _DIMS, _WRAP): attribute type = axis + 1 */
#define TORUS_AXIS_A(axis)	((axis) + 1)

/**
 * enum torus_node_state - discovery state shown by "node show"
 * @TORUS_STATE_UNCONFIGURED: no coordinates; the node forwards nothing
 * @TORUS_STATE_DISCOVERING: the daemon is finding neighbors/orientation
 * @TORUS_STATE_ORIENTED: orientation resolved, coordinates pending
 * @TORUS_STATE_PLACED: coordinates, extents and port map are valid
 * @TORUS_STATE_FAILED: discovery failed; see TORUS_A_REASON
 */
enum torus_node_state {
	TORUS_STATE_UNCONFIGURED,
	TORUS_STATE_DISCOVERING,
	TORUS_STATE_ORIENTED,
	TORUS_STATE_PLACED,
	TORUS_STATE_FAILED,
	/* add new states above */
	__TORUS_STATE_MAX,
	TORUS_STATE_MAX = __TORUS_STATE_MAX - 1
};

/**
 * enum torus_node_role - who gave the node its coordinates
 * @TORUS_ROLE_NONE: nobody yet
 * @TORUS_ROLE_STATIC: set by hand (torus node set)
 * @TORUS_ROLE_LEADER: elected leader of discovery
 * @TORUS_ROLE_FOLLOWER: placed by following the leader's frame
 * @TORUS_ROLE_LAMB: a lamb (Ho & Stockmeyer): the node forwards, but is
 *	no endpoint: frames for it or from its own stack are dropped with
 *	TORUS_DROP_LAMB
 */
enum torus_node_role {
	TORUS_ROLE_NONE,
	TORUS_ROLE_STATIC,
	TORUS_ROLE_LEADER,
	TORUS_ROLE_FOLLOWER,
	TORUS_ROLE_LAMB,
	/* add new roles above */
	__TORUS_ROLE_MAX,
	TORUS_ROLE_MAX = __TORUS_ROLE_MAX - 1
};

/**
 * enum torus_port_attr - one port (TORUS_A_PORT)
 * @TORUS_PORT_A_IFINDEX: u32
 * @TORUS_PORT_A_IFNAME: string
 * @TORUS_PORT_A_LABEL: u8, physical direction label, TORUS_DIR_NONE if
 *	the port is a plain Ethernet device without a label
 * @TORUS_PORT_A_PEER_IFINDEX: u32, the other end of a torport cable
 * @TORUS_PORT_A_PEER_IFNAME: string
 * @TORUS_PORT_A_PEER_NETNSID: s32, netns id of the peer as seen from
 *	the port's netns (absent if the same netns or no id)
 * @TORUS_PORT_A_CARRIER: u8
 * @TORUS_PORT_A_GLOBAL_DIR: u8, the direction this port serves in the
 *	port map, TORUS_DIR_NONE if unmapped
 * @TORUS_PORT_A_LOSS_PPM: u32
 * @TORUS_PORT_A_STATS: nest of enum torus_stats_attr
 * @TORUS_PORT_A_MASTER: u32, ifindex of the node device, if enslaved
 * @TORUS_PORT_A_PAD: padding
 */
enum torus_port_attr {
	TORUS_PORT_A_UNSPEC,
	TORUS_PORT_A_IFINDEX,
	TORUS_PORT_A_IFNAME,
	TORUS_PORT_A_LABEL,
	TORUS_PORT_A_PEER_IFINDEX,
	TORUS_PORT_A_PEER_IFNAME,
	TORUS_PORT_A_PEER_NETNSID,
	TORUS_PORT_A_CARRIER,
	TORUS_PORT_A_GLOBAL_DIR,
	TORUS_PORT_A_LOSS_PPM,
	TORUS_PORT_A_STATS,
	TORUS_PORT_A_MASTER,
	TORUS_PORT_A_PAD,
	/* add new attributes above */
	__TORUS_PORT_A_MAX,
	TORUS_PORT_A_MAX = __TORUS_PORT_A_MAX - 1
};

/**
 * enum torus_pme_attr - one port map entry (in TORUS_A_PORTMAP, each
 * entry is a TORUS_A_PORTMAP_ENTRY nest)
 * @TORUS_PME_A_DIR: u8, global direction
 * @TORUS_PME_A_IFINDEX: u32, the port serving it (an enslaved port)
 */
enum torus_pme_attr {
	TORUS_PME_A_UNSPEC,
	TORUS_PME_A_DIR,
	TORUS_PME_A_IFINDEX,
	/* add new attributes above */
	__TORUS_PME_A_MAX,
	TORUS_PME_A_MAX = __TORUS_PME_A_MAX - 1
};

#define TORUS_A_PORTMAP_ENTRY	1

/**
 * enum torus_route_attr - a route exception or a route lookup result
 * @TORUS_ROUTE_A_DST: nest of u32 per axis, destination coordinates
 * @TORUS_ROUTE_A_VIA: nest of u32 per axis: go to this intermediate
 *	node first (dimension-ordered), then on to @DST (lambs' two rounds)
 * @TORUS_ROUTE_A_DIR: u8, leave by this global direction instead of the
 *	dimension-ordered one
 * @TORUS_ROUTE_A_NEXT_DIR: u8, lookup result: global direction taken,
 *	TORUS_DIR_NONE when the destination is this node
 * @TORUS_ROUTE_A_NEXT_PORT: u32, lookup result: ifindex of the port
 * @TORUS_ROUTE_A_EXCEPTION: flag, lookup result: an exception applied
 * @TORUS_ROUTE_A_HOPS: u32, lookup result: dimension-ordered hop count
 * @TORUS_ROUTE_A_PLAN: u8, the plan the frame follows (< TORUS_MAX_PLANS),
 *	in its first round; in an exception, absent means plan 0
 * @TORUS_ROUTE_A_VC: u8, lookup result: the frame's vc on the first hop
 * @TORUS_ROUTE_A_WHY: u8, lookup result: enum torus_route_why
 * @TORUS_ROUTE_A_PLAN1: u8, a via exception's plan for round 1 (from
 *	the intermediate node on); absent means the same as @PLAN
 */
enum torus_route_attr {
	TORUS_ROUTE_A_UNSPEC,
	TORUS_ROUTE_A_DST,
	TORUS_ROUTE_A_VIA,
	TORUS_ROUTE_A_DIR,
	TORUS_ROUTE_A_NEXT_DIR,
	TORUS_ROUTE_A_NEXT_PORT,
	TORUS_ROUTE_A_EXCEPTION,
	TORUS_ROUTE_A_HOPS,
	TORUS_ROUTE_A_PLAN,
	TORUS_ROUTE_A_VC,
	TORUS_ROUTE_A_WHY,
	TORUS_ROUTE_A_PLAN1,
	/* add new attributes above */
	__TORUS_ROUTE_A_MAX,
	TORUS_ROUTE_A_MAX = __TORUS_ROUTE_A_MAX - 1
};

/**
 * enum torus_route_why - what decided a next hop
 * @TORUS_WHY_LOCAL: the destination is this node
 * @TORUS_WHY_DOR: the plan in the header (plan 0: dimension-ordered)
 * @TORUS_WHY_EXCEPTION: an installed exception (via, dir or plan)
 * @TORUS_WHY_DETOUR: the planned port is down: a local detour
 */
enum torus_route_why {
	TORUS_WHY_LOCAL,
	TORUS_WHY_DOR,
	TORUS_WHY_EXCEPTION,
	TORUS_WHY_DETOUR,
	/* add new reasons above */
	__TORUS_WHY_MAX,
	TORUS_WHY_MAX = __TORUS_WHY_MAX - 1
};

#define TORUS_WHY_NAMES { "local", "dor", "exception", "detour" }

/**
 * enum torus_plan_attr - one routing plan (TORUS_A_PLAN)
 * @TORUS_PLAN_A_INDEX: u8, 1..TORUS_MAX_PLANS - 1 (plan 0 is fixed DOR)
 * @TORUS_PLAN_A_ORDER: nest of u8, attribute type = position + 1, value
 *	= the axis corrected at that position; a permutation of the node's
 *	axes
 * @TORUS_PLAN_A_POLICY: nest of u8 per axis (TORUS_AXIS_A(axis)), enum
 *	torus_plan_policy; axes not given are TORUS_PLAN_SHORTEST
 */
enum torus_plan_attr {
	TORUS_PLAN_A_UNSPEC,
	TORUS_PLAN_A_INDEX,
	TORUS_PLAN_A_ORDER,
	TORUS_PLAN_A_POLICY,
	/* add new attributes above */
	__TORUS_PLAN_A_MAX,
	TORUS_PLAN_A_MAX = __TORUS_PLAN_A_MAX - 1
};

/**
 * enum torus_drop_reason - why a frame was dropped (counted per reason)
 * @TORUS_DROP_MALFORMED: truncated or inconsistent frame header
 * @TORUS_DROP_VERSION: unknown header version
 * @TORUS_DROP_NOT_PLACED: node has no coordinates yet
 * @TORUS_DROP_BAD_ADDR: destination address outside the address plan
 *	or coordinates outside the extents
 * @TORUS_DROP_NO_PORT: no port mapped for the direction to take
 * @TORUS_DROP_LINK_DOWN: the port for the direction has no carrier
 * @TORUS_DROP_HOP_LIMIT: hop limit exhausted (a loop, or a bad map)
 * @TORUS_DROP_LOSS: lost on purpose by an injected cable loss rate
 * @TORUS_DROP_NO_PEER: torport without a peer (being torn down)
 * @TORUS_DROP_PROTO: payload protocol not carried by the fabric
 * @TORUS_DROP_NOMEM: allocation or headroom failure
 * @TORUS_DROP_TOO_BIG: frame larger than the port's MTU
 * @TORUS_DROP_VLAN: a VLAN-tagged frame on a port (the fabric carries
 *	only untagged frames; forwarding the tag would let a neighbour hop
 *	VLANs)
 * @TORUS_DROP_OTHER_HOST: a frame unicast to another host's address,
 *	seen only because the port is promiscuous
 * @TORUS_DROP_SPOOFED: at delivery, the inner IP source address is not
 *	the address of the header's source coordinates; or a collective
 *	frame that does not come from the neighbour or member it names
 * @TORUS_DROP_LAMB: a frame for a lamb, or sent by a lamb's own stack
 * @TORUS_DROP_NO_PLAN: the frame's plan is not installed on this node
 * @TORUS_DROP_RX_FULL: the receiving end of a torport cable had its
 *	receive buffer full (its node did not keep up)
 * @TORUS_DROP_COLL_REFUSED: a collective frame the engine does not take:
 *	for an operation outside the window of those it may hold, over
 *	the node's budget for frames ahead of a join, a range of elements
 *	already had or out of order, or from no edge of the tree
 */
enum torus_drop_reason {
	TORUS_DROP_MALFORMED,
	TORUS_DROP_VERSION,
	TORUS_DROP_NOT_PLACED,
	TORUS_DROP_BAD_ADDR,
	TORUS_DROP_NO_PORT,
	TORUS_DROP_LINK_DOWN,
	TORUS_DROP_HOP_LIMIT,
	TORUS_DROP_LOSS,
	TORUS_DROP_NO_PEER,
	TORUS_DROP_PROTO,
	TORUS_DROP_NOMEM,
	TORUS_DROP_TOO_BIG,
	TORUS_DROP_VLAN,
	TORUS_DROP_OTHER_HOST,
	TORUS_DROP_SPOOFED,
	TORUS_DROP_LAMB,
	TORUS_DROP_NO_PLAN,
	TORUS_DROP_RX_FULL,
	TORUS_DROP_COLL_REFUSED,
	/* add new reasons above */
	__TORUS_DROP_MAX,
	TORUS_DROP_MAX = __TORUS_DROP_MAX - 1
};

/* names for tools, indexed by enum torus_drop_reason */
#define TORUS_DROP_NAMES {						\
	"malformed", "version", "not_placed", "bad_addr", "no_port",	\
	"link_down", "hop_limit", "loss", "no_peer", "proto", "nomem",	\
	"too_big", "vlan", "other_host", "spoofed", "lamb", "no_plan",	\
	"rx_full", "coll_refused" }

/**
 * enum torus_stats_attr - counters (all u64)
 * @TORUS_STATS_A_RX_PACKETS: frames received (port) / delivered to the
 *	local stack (node)
 * @TORUS_STATS_A_RX_BYTES: bytes of the above
 * @TORUS_STATS_A_TX_PACKETS: frames sent (port) / sent by the local
 *	stack into the fabric (node)
 * @TORUS_STATS_A_TX_BYTES: bytes of the above
 * @TORUS_STATS_A_FWD_PACKETS: frames forwarded through this node
 * @TORUS_STATS_A_DROPS: all drops
 * @TORUS_STATS_A_DROP: nest, attribute type = enum torus_drop_reason + 1,
 *	u64 count per reason
 * @TORUS_STATS_A_PAD: padding
 * @TORUS_STATS_A_DETOURS: frames this node sent on a local detour
 *	because the planned port was down
 */
enum torus_stats_attr {
	TORUS_STATS_A_UNSPEC,
	TORUS_STATS_A_RX_PACKETS,
	TORUS_STATS_A_RX_BYTES,
	TORUS_STATS_A_TX_PACKETS,
	TORUS_STATS_A_TX_BYTES,
	TORUS_STATS_A_FWD_PACKETS,
	TORUS_STATS_A_DROPS,
	TORUS_STATS_A_DROP,
	TORUS_STATS_A_PAD,
	TORUS_STATS_A_DETOURS,
	/* add new attributes above */
	__TORUS_STATS_A_MAX,
	TORUS_STATS_A_MAX = __TORUS_STATS_A_MAX - 1
};

/**
 * enum torus_link_attr - IFLA_INFO_DATA of "type torport"
 * @TORUS_LINK_A_LABEL: u8, this end's direction label
 * @TORUS_LINK_A_PEER: nest: struct ifinfomsg followed by the peer's
 *	IFLA_* attributes (IFLA_IFNAME, IFLA_NET_NS_FD, IFLA_ADDRESS, ...),
 *	as veth's VETH_INFO_PEER
 * @TORUS_LINK_A_PEER_LABEL: u8, the peer's direction label
 */
enum torus_link_attr {
	TORUS_LINK_A_UNSPEC,
	TORUS_LINK_A_LABEL,
	TORUS_LINK_A_PEER,
	TORUS_LINK_A_PEER_LABEL,
	/* add new attributes above */
	__TORUS_LINK_A_MAX,
	TORUS_LINK_A_MAX = __TORUS_LINK_A_MAX - 1
};

/**
 * enum torus_node_info_attr - IFLA_INFO_DATA of "type torus" (read-only:
 *	ip -d link show; set the node with TORUS_CMD_NODE_SET)
 * @TORUS_NODE_INFO_A_NODE_ID: u64, unique node id
 * @TORUS_NODE_INFO_A_STATE: u8, enum torus_node_state
 * @TORUS_NODE_INFO_A_ROLE: u8, enum torus_node_role
 * @TORUS_NODE_INFO_A_COORD: nest of u32 per axis (TORUS_AXIS_A(axis)),
 *	absent while the node has no coordinates
 * @TORUS_NODE_INFO_A_DIMS: nest of u32 per axis, extents
 * @TORUS_NODE_INFO_A_WRAP: nest of u8 per axis, 1 torus ring, 0 mesh
 * @TORUS_NODE_INFO_A_PORTS: u32, number of enslaved ports
 * @TORUS_NODE_INFO_A_PAD: padding for 64-bit attributes
 */
enum torus_node_info_attr {
	TORUS_NODE_INFO_A_UNSPEC,
	TORUS_NODE_INFO_A_NODE_ID,
	TORUS_NODE_INFO_A_STATE,
	TORUS_NODE_INFO_A_ROLE,
	TORUS_NODE_INFO_A_COORD,
	TORUS_NODE_INFO_A_DIMS,
	TORUS_NODE_INFO_A_WRAP,
	TORUS_NODE_INFO_A_PORTS,
	TORUS_NODE_INFO_A_PAD,
	/* add new attributes above */
	__TORUS_NODE_INFO_A_MAX,
	TORUS_NODE_INFO_A_MAX = __TORUS_NODE_INFO_A_MAX - 1
};

/**
 * enum torus_port_info_attr - IFLA_INFO_SLAVE_DATA of a port enslaved to
 *	a node device (ip -d link show; ip link set PORT type torus_slave)
 * @TORUS_PORT_INFO_A_LABEL: u8, physical direction label,
 *	TORUS_DIR_NONE if the port has none.  Settable on a port that is
 *	not a torport (a torport's is fixed at its cable): a direction
 *	no other port of the node has, or TORUS_DIR_NONE to clear it
 * @TORUS_PORT_INFO_A_GLOBAL_DIR: u8, the direction the port serves in
 *	the port map, TORUS_DIR_NONE if unmapped (read-only)
 */
enum torus_port_info_attr {
	TORUS_PORT_INFO_A_UNSPEC,
	TORUS_PORT_INFO_A_LABEL,
	TORUS_PORT_INFO_A_GLOBAL_DIR,
	/* add new attributes above */
	__TORUS_PORT_INFO_A_MAX,
	TORUS_PORT_INFO_A_MAX = __TORUS_PORT_INFO_A_MAX - 1
};

/**
 * DOC: collectives
 *
 * A collective runs over a combining tree: each node has a parent port
 * (none at the root) and child ports.  Contributions go up the tree,
 * each node combining its children's with its own; the root's result
 * comes back down the same tree.  The default tree is dimension-wise:
 * along x lines to x = 0, then along the y line to y = 0, and so on, the
 * shorter way round a ring, over the cables that have carrier.  torusd
 * installs another around dead nodes, cut cables and lambs.  A broadcast
 * that names its root runs down the default tree rooted there instead,
 * with no phase up: a node that joins late delays only the nodes below
 * it.
 *
 * A node-list group is any set of placed nodes, named by their ranks:
 * its tree is a 4-ary tree over the members in the order of their ranks
 * (rooted at the first, or at a broadcast's root), and its frames go
 * from member to member by the fabric's routes, exceptions and lambs
 * included, relayed in the data path of the nodes between.  So a dead
 * node or a cut cable outside the list does not stop it, but an edge
 * lost mid-operation is only seen at the timeout.  A node keeps the
 * numbering of TORUS_COLL_LISTS lists at once: a list's number given
 * with other members restarts its numbering on that node (only while
 * none of its operations is in flight), and a new number past that many
 * takes the place of the least recently used list with nothing in
 * flight.
 *
 * Sums of floats and doubles are exact and rounded once at the root, to
 * nearest, ties to even, so every node gets the same bits whatever the
 * tree's shape and the order of arrival: contributions travel as exact
 * fixed-point sums.  Any nan gives the canonical quiet nan; +inf with
 * -inf gives it too; a zero sum is -0 only if every value was -0; a sum
 * beyond the format's range is an infinity.  Products of floats and
 * doubles are exact too (the odd integer and power of two of the
 * product), rounded once the same way; a product whose integer outgrows
 * 4096 bits (more than 77 doubles of full precision) fails with
 * EOVERFLOW rather than round early.  min and max of floats give the
 * canonical nan if any value is a nan and order -0 below +0; minloc and
 * maxloc give the same value and the lowest rank that holds it.  A
 * reduce runs as an allreduce whose result only the root is given.
 */
#define TORUS_COLL_TIMEOUT_MS		10000	/* default */
#define TORUS_COLL_TIMEOUT_MS_MAX	600000
#define TORUS_COLL_MAX_COUNT		8192	/* elements per operation */
/* elements of a placed broadcast (TORUS_A_COLL_PLACE): 1 MiB at once */
#define TORUS_COLL_PLACED_MAX_COUNT	131072
#define TORUS_COLL_GROUP_LIST		0x8000	/* a node-list group */
#define TORUS_COLL_LIST_MAX		4096	/* members of a node list */
#define TORUS_COLL_LISTS		16	/* lists a node numbers */

/**
 * enum torus_coll_tree_attr - a node's combining tree (TORUS_A_COLL_TREE)
 * @TORUS_COLL_TREE_A_PARENT: u8, global direction of the parent,
 *	TORUS_DIR_NONE at the root
 * @TORUS_COLL_TREE_A_CHILDREN: u32, bit per global direction of a child
 */
enum torus_coll_tree_attr {
	TORUS_COLL_TREE_A_UNSPEC,
	TORUS_COLL_TREE_A_PARENT,
	TORUS_COLL_TREE_A_CHILDREN,
	/* add new attributes above */
	__TORUS_COLL_TREE_A_MAX,
	TORUS_COLL_TREE_A_MAX = __TORUS_COLL_TREE_A_MAX - 1
};

/**
 * enum torus_coll_kind - what a collective does
 * @TORUS_COLL_BARRIER: return when every node has joined
 * @TORUS_COLL_ALLREDUCE: every node gets the reduction of all nodes' data
 * @TORUS_COLL_BCAST: every node gets the root's data
 * @TORUS_COLL_REDUCE: the root (TORUS_A_COLL_ROOT) gets the reduction
 *	of all nodes' data; the others' answer has no result
 */
enum torus_coll_kind {
	TORUS_COLL_BARRIER,
	TORUS_COLL_ALLREDUCE,
	TORUS_COLL_BCAST,
	TORUS_COLL_REDUCE,
	/* add new kinds above */
	__TORUS_COLL_KIND_MAX,
	TORUS_COLL_KIND_MAX = __TORUS_COLL_KIND_MAX - 1
};

/* enum torus_coll_type - element types */
enum torus_coll_type {
	TORUS_COLL_INT8,
	TORUS_COLL_INT16,
	TORUS_COLL_INT32,
	TORUS_COLL_INT64,
	TORUS_COLL_UINT8,
	TORUS_COLL_UINT16,
	TORUS_COLL_UINT32,
	TORUS_COLL_UINT64,
	TORUS_COLL_FLOAT,
	TORUS_COLL_DOUBLE,
	/* add new types above */
	__TORUS_COLL_TYPE_MAX,
	TORUS_COLL_TYPE_MAX = __TORUS_COLL_TYPE_MAX - 1
};

#define TORUS_COLL_TYPE_NAMES { "int8", "int16", "int32", "int64", \
	"uint8", "uint16", "uint32", "uint64", "float", "double" }

/*
 * enum torus_coll_op - reductions.  Integer sums and products wrap;
 * the logical ones give 0 or 1 (a float is true unless it is +0 or -0);
 * the bitwise ones take integers only.  Float sums and products are
 * exact and rounded once.  minloc and maxloc also give the lowest rank
 * that holds the result (TORUS_A_COLL_LOC).
 */
enum torus_coll_op {
	TORUS_COLL_SUM,
	TORUS_COLL_PROD,
	TORUS_COLL_MIN,
	TORUS_COLL_MAX,
	TORUS_COLL_BAND,
	TORUS_COLL_BOR,
	TORUS_COLL_BXOR,
	TORUS_COLL_LAND,
	TORUS_COLL_LOR,
	TORUS_COLL_LXOR,
	TORUS_COLL_MINLOC,
	TORUS_COLL_MAXLOC,
	/* add new ops above */
	__TORUS_COLL_OP_MAX,
	TORUS_COLL_OP_MAX = __TORUS_COLL_OP_MAX - 1
};

#define TORUS_COLL_OP_NAMES { "sum", "prod", "min", "max", "band", "bor", \
	"bxor", "land", "lor", "lxor", "minloc", "maxloc" }

/* torus_coll_hdr.phase */
#define TORUS_COLL_UP		1	/* a subtree's contribution */
#define TORUS_COLL_DOWN		2	/* the result */
#define TORUS_COLL_ABORT	3	/* the operation failed: pass it on */
#define TORUS_COLL_READY	4	/* a receiver's buffer is posted */

/* torus_coll_hdr.flags */
#define TORUS_COLL_F_EMPTY	0x01	/* no data from this subtree (bcast) */

/**
 * struct torus_coll_hdr - after the torus header of a TORUS_T_COLL frame
 * @phase: TORUS_COLL_UP, TORUS_COLL_DOWN, TORUS_COLL_ABORT (no
 *	elements: a node failed the operation, its neighbours on the tree
 *	fail it too and pass it on, so nobody waits for the timeout; on
 *	the whole fabric every neighbour does, since one may have joined
 *	on a tree installed meanwhile) or
 *	TORUS_COLL_READY (no elements: a child has joined a broadcast too
 *	large to be buffered before its join, so its parent may now send
 *	the data straight into its result; one hop, never passed on.
 *	@first is the DOWN frames the child has received, @n how many more
 *	it may be sent (credits, renewed as they are used; 0: no limit))
 * @kind: enum torus_coll_kind
 * @type: enum torus_coll_type
 * @op: enum torus_coll_op
 * @flags: TORUS_COLL_F_*
 * @reserved: 0
 * @group: the group (0: the whole fabric, a bit per axis spanned, or
 *	TORUS_COLL_GROUP_LIST and the list's number)
 * @seq: the operation's sequence number in the group
 * @count: elements of the operation
 * @first: index of the first element in this frame
 * @n: elements in this frame (@first + @n <= @count)
 *
 * The elements follow: big-endian 64-bit values (sign-extended integers,
 * float bits), each followed by its big-endian u32 rank for minloc and
 * maxloc; except in UP frames of float and double sums and products,
 * which carry exact sums (4-byte head: flags, first word, words, 0; then
 * the words big-endian, least significant first) or exact products
 * (8-byte head: flags, words, 0, 0, big-endian s32 exponent; then the
 * odd integer's words the same way); see torus_xacc.c.
 */
struct torus_coll_hdr {
	__u8	phase;
	__u8	kind;
	__u8	type;
	__u8	op;
	__u8	flags;
	__u8	reserved;
	__be16	group;
	__be32	seq;
	__be32	count;
	__be32	first;
	__be32	n;
};

#define TORUS_COLL_HDR_LEN	24

#endif /* _UAPI_LINUX_TORUS_H */
