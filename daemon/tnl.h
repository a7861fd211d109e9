/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tnl.h - torusd's libnl glue: the "torus" generic netlink family
 *
 * Two sockets: one for requests (each waits for its reply or ACK; errors
 * carry the kernel's extended ACK message) and one subscribed to the
 * "events" multicast group, read by the event loop.  Functions return 0
 * or a negative errno; the text of the last failure is in td_nl.err.
 */
#ifndef TORUSD_TNL_H
#define TORUSD_TNL_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include "tcore.h"

struct nl_sock;

struct td_nl {
	struct nl_sock	*req;
	struct nl_sock	*ev;
	struct nl_sock	*rt;		/* rtnetlink: the device's addresses */
	int		family;
	int		grp;
	uint8_t		*evbuf;
	char		err[256];
};

/* a port as the kernel shows it (TORUS_A_PORT) */
struct td_kport {
	uint32_t	ifindex;
	char		ifname[IFNAMSIZ];
	uint8_t		label;		/* TORUS_DIR_NONE if unlabelled */
	bool		carrier;
	uint8_t		global_dir;	/* TORUS_DIR_NONE if unmapped */
	uint32_t	master;		/* node ifindex, 0 if not enslaved */
};

/* a node device as the kernel shows it */
struct td_knode {
	uint32_t	ifindex;
	uint64_t	id;
	uint64_t	leader;		/* frame of the coordinates, 0: none */
	uint8_t		state;
	uint8_t		role;
	char		reason[TC_REASON_LEN];
	uint8_t		ndims;		/* 0: no geometry */
	uint8_t		coord[TC_MAX_AXES];
	uint16_t	dims[TC_MAX_AXES];
	uint8_t		wrap;
	uint32_t	generation;
	uint32_t	routes_generation;	/* the exception table's */
	uint32_t	routes_count;		/* exceptions it holds */
};

/* a route exception: "via @via with @plan0, then @plan1 to @dst" */
struct td_route_exc {
	uint8_t		dst[TC_MAX_AXES];
	uint8_t		via[TC_MAX_AXES];
	uint8_t		plan0;
	uint8_t		plan1;
};

/* a node's plans as PLAN_SET carries them and NODE_GET reports them */
struct td_plans {
	unsigned int	nplans;		/* plan 0 (DOR, never sent) included */
	unsigned int	ndims;
	uint8_t		order[TORUS_MAX_PLANS][TC_MAX_AXES];
	uint8_t		policy[TORUS_MAX_PLANS][TC_MAX_AXES];
};

/* a TORUS_CMD_NODE_SET request */
struct td_node_req {
	uint64_t	id;		/* 0: leave */
	uint64_t	leader;		/* 0: leave */
	uint8_t		state;
	uint8_t		role;
	const char	*reason;	/* NULL: leave ("" clears) */
	bool		geom;		/* send coord, dims, wrap */
	uint8_t		ndims;
	uint8_t		coord[TC_MAX_AXES];
	uint16_t	dims[TC_MAX_AXES];
	uint8_t		wrap;
};

/* an address of a device (RTM_NEWADDR) */
struct td_addr {
	uint8_t		family;		/* AF_INET, AF_INET6 */
	uint8_t		prefixlen;
	uint8_t		addr[16];	/* 4 bytes for AF_INET */
};

/* a multicast event */
struct td_event {
	uint8_t		cmd;		/* TORUS_CMD_NODE_EVENT, _PORT_EVENT */
	uint32_t	ifindex;	/* node device, 0 if none */
	bool		has_port;
	struct td_kport	port;
};

typedef void (*td_event_cb)(void *arg, const struct td_event *ev);

int td_nl_open(struct td_nl *nl);
void td_nl_close(struct td_nl *nl);
int td_nl_event_fd(const struct td_nl *nl);
/* the family cannot be resolved any more: torus.ko was unloaded */
bool td_nl_family_gone(struct td_nl *nl);

int td_nl_node_get(struct td_nl *nl, uint32_t ifindex, struct td_knode *kn);
/* ports of node @ifindex; -E2BIG if more than @max (the first @max kept) */
int td_nl_port_dump(struct td_nl *nl, uint32_t ifindex,
		    struct td_kport *ports, unsigned int max,
		    unsigned int *n);
int td_nl_node_set(struct td_nl *nl, uint32_t ifindex,
		   const struct td_node_req *r);
/* replace the port map: @map[global dir] = port ifindex, 0 unmapped */
int td_nl_portmap_set(struct td_nl *nl, uint32_t ifindex,
		      const uint32_t map[TORUS_MAX_DIRS]);

/*
 * Replace the node's plans 1..@nplans-1 (@order and @policy per plan,
 * plan 0 is the kernel's fixed DOR and not sent) for @ndims axes.
 */
int td_nl_plan_set(struct td_nl *nl, uint32_t ifindex, unsigned int nplans,
		   const uint8_t (*order)[TC_MAX_AXES],
		   const uint8_t (*policy)[TC_MAX_AXES], unsigned int ndims);
/*
 * The node's plans as the kernel holds them (NODE_GET's TORUS_A_PLAN
 * nests; plan 0 not reported, left zero); -EPROTO if they are not plans
 * 1..n-1 over one number of axes, which PLAN_SET could not put back
 */
int td_nl_plans_get(struct td_nl *nl, uint32_t ifindex, struct td_plans *p);
/*
 * Replace the whole exception table by @exc in one TORUS_CMD_ROUTE_BATCH
 * (TORUS_A_ROUTES_REPLACE): the kernel swaps it atomically; n may be 0.
 * Packed records (TORUS_A_ROUTES_PACKED); in the order of their
 * coordinate bytes, x first, the kernel has nothing to sort.
 */
/*
 * The node's combining tree for collectives: parent direction
 * (TORUS_DIR_NONE: a root) and a bit per child direction; @set false
 * goes back to the kernel's default tree
 */
int td_nl_coll_tree_set(struct td_nl *nl, uint32_t ifindex, bool set,
			uint8_t parent, uint32_t children);

/* the node's combining tree as the kernel has it */
struct td_ktree {
	bool		valid;		/* the reply carried it */
	bool		set;		/* installed, not the default */
	uint8_t		parent;
	uint32_t	children;
};

int td_nl_coll_tree_get(struct td_nl *nl, uint32_t ifindex,
			struct td_ktree *t);
int td_nl_route_replace(struct td_nl *nl, uint32_t ifindex,
			const struct td_route_exc *exc, unsigned int n);

/* addresses of device @ifindex (rtnetlink); -E2BIG past @max */
int td_nl_addr_dump(struct td_nl *nl, uint32_t ifindex,
		    struct td_addr *addrs, unsigned int max, unsigned int *n);
/* add (usable at once: no DAD) or remove one address */
int td_nl_addr_change(struct td_nl *nl, uint32_t ifindex,
		      const struct td_addr *a, bool add);

/*
 * Read every pending event and call @cb for each.  0 when drained,
 * -ENOBUFS if events were lost (the caller resyncs), other -errno.
 */
int td_nl_events(struct td_nl *nl, td_event_cb cb, void *arg);

#endif /* TORUSD_TNL_H */
