/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * install.h - what torusd writes into the kernel, decided by one pure
 * function: the core's view, the kernel's state as read, the ports and
 * what the core knows of each cable in; a list of actions out.  No I/O,
 * so every rule is unit-tested (tests/unit/daemon_install.c).
 */
#ifndef TORUSD_INSTALL_H
#define TORUSD_INSTALL_H

#include <stdbool.h>
#include <stdint.h>

#include "tcore.h"
#include "tnl.h"

#define TD_MAX_ADDRS		16	/* node device addresses read */
#define TD_MAX_ACTIONS		(2 + 2 * TD_MAX_ADDRS)

/* one port of the node, by label, as the install decision needs it */
struct td_iport {
	bool		present;
	uint32_t	ifindex;
	/* heard but unresolved this many ticks (0: not unresolved) */
	uint32_t	unresolved_ticks;
	struct tc_nbr_info nbr;
};

struct td_install_in {
	uint64_t		id;
	const struct tc_view	*view;
	const struct td_knode	*kn;		/* the kernel's node */
	const uint32_t		*kmap;		/* [dir] = ifindex, 0 */
	const struct td_iport	*ports;		/* [label] */
	const struct td_addr	*kaddrs;	/* the device's addresses */
	unsigned int		nkaddrs;
	bool			addresses;	/* manage plan addresses */
	/* a cable unresolved this long does not serve its direction */
	uint32_t		unresolved_grace;
	/* the daemon exits: the plan addresses go, the kernel stays */
	bool			exiting;
	/* the installed routes make this node a lamb (placed views only) */
	bool			lamb;
};

enum td_action_kind {
	TD_ACT_PORTMAP,		/* replace the port map with @map */
	TD_ACT_NODE,		/* node set @node */
	TD_ACT_ADDR_DEL,	/* remove @addr */
	TD_ACT_ADDR_ADD,	/* add @addr */
};

struct td_action {
	uint8_t			kind;
	uint32_t		map[TORUS_MAX_DIRS];
	struct td_node_req	node;
	struct td_addr		addr;
};

/* why a port the view maps is left out of the port map */
enum td_refusal {
	TD_REFUSE_NONE,
	TD_REFUSE_ABSENT,	/* the node has no such port */
	TD_REFUSE_UNRESOLVED,	/* the cable's axis map never resolved */
	TD_REFUSE_CONFLICT,	/* the cable's evidence contradicts itself */
	TD_REFUSE_MISPLACED,	/* the node across is not where the
				   direction leads (wrong node cabled) */
};

struct td_install_plan {
	struct td_action	act[TD_MAX_ACTIONS];
	unsigned int		n;
	/* a node request's reason points here (or at a literal) */
	char			reason[TC_REASON_LEN];
	/* after the actions the kernel holds the placed view */
	bool			installed;
	/* the kernel keeps a placement the view does not have (yet) */
	bool			kept;
	/* per global direction: why the view's port is not installed */
	uint8_t			refused[TORUS_MAX_DIRS];
};

/*
 * Decide what to write.  The port map goes first (coordinates never go
 * live without it), then the node, then the addresses, which follow the
 * placement the kernel holds once the node set is done.
 */
void td_install_decide(const struct td_install_in *in,
		       struct td_install_plan *plan);

/* the address plan: 0 and @a filled, or -1 if the node has none */
int td_plan_addr4(const uint8_t *coord, uint8_t ndims, struct td_addr *a);
void td_plan_addr6(const uint8_t *coord, uint8_t ndims, struct td_addr *a);
/* @a is in the plan's prefixes (so torusd manages it) */
bool td_addr_in_plan(const struct td_addr *a);
/* one word: "absent", "unresolved", "conflict", "misplaced" ("" none) */
const char *td_refusal_name(uint8_t why);
/* "10.1.2.3/8", "fd74:...::/64" */
void td_addr_fmt(const struct td_addr *a, char *buf, size_t len);

#endif /* TORUSD_INSTALL_H */
