/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * records.h - node, port and route records: parsed from a generic
 * netlink message into plain structs, printed from those structs in text
 * or JSON.  No sockets here, so the printing can be tested without the
 * kernel.
 */
#ifndef TORUS_RECORDS_H
#define TORUS_RECORDS_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include <libmnl/libmnl.h>
#include <linux/torus.h>

#define TORUS_REC_MAX_DROPS	32
#define TORUS_REC_REASON_LEN	256

struct torus_stats_rec {
	bool		present;
	uint64_t	rx_packets;
	uint64_t	rx_bytes;
	uint64_t	tx_packets;
	uint64_t	tx_bytes;
	uint64_t	fwd_packets;
	uint64_t	detours;
	uint64_t	drops;
	uint32_t	drop_mask;	/* bit n: drop[n] was reported */
	uint64_t	drop[TORUS_REC_MAX_DROPS];
};

struct torus_node_rec {
	uint32_t	ifindex;
	char		ifname[IF_NAMESIZE];
	uint64_t	id;
	uint64_t	leader;		/* 0: none */
	unsigned int	n_coord;
	unsigned int	n_dims;
	unsigned int	n_wrap;
	uint32_t	coord[TORUS_MAX_AXES];
	uint32_t	dims[TORUS_MAX_AXES];
	uint8_t		wrap[TORUS_MAX_AXES];
	uint8_t		state;
	uint8_t		role;
	char		reason[TORUS_REC_REASON_LEN];
	uint8_t		hop_limit;
	uint32_t	generation;
	uint32_t	routes_generation;
	uint32_t	routes_count;
	uint8_t		plans_present;	/* bit n: plans[n] was reported */
	struct torus_plan_rec {
		unsigned int	n_order;
		uint8_t		order[TORUS_MAX_AXES];
		unsigned int	n_policy;
		uint8_t		policy[TORUS_MAX_AXES];
	} plans[TORUS_MAX_PLANS];
	struct torus_stats_rec stats;
};

struct torus_port_rec {
	uint32_t	node_ifindex;	/* TORUS_A_IFINDEX of the message */
	char		node_ifname[IF_NAMESIZE];
	uint32_t	ifindex;
	char		ifname[IF_NAMESIZE];
	uint32_t	master;		/* 0: not enslaved */
	char		master_name[IF_NAMESIZE];
	uint8_t		label;		/* TORUS_DIR_NONE: none */
	uint32_t	peer_ifindex;	/* 0: no peer */
	char		peer_name[IF_NAMESIZE];
	bool		has_peer_netnsid;
	int32_t		peer_netnsid;
	bool		carrier;
	uint8_t		global_dir;	/* TORUS_DIR_NONE: unmapped */
	uint32_t	loss_ppm;
	struct torus_stats_rec stats;
};

struct torus_route_rec {
	uint32_t	ifindex;	/* the node */
	char		ifname[IF_NAMESIZE];
	unsigned int	n_dst;
	unsigned int	n_via;
	uint32_t	dst[TORUS_MAX_AXES];
	uint32_t	via[TORUS_MAX_AXES];
	bool		has_dir;
	uint8_t		dir;
	bool		has_plan;
	uint8_t		plan;
	bool		has_plan1;	/* round 1's plan, with via */
	uint8_t		plan1;
	bool		has_generation;	/* the table's, in dumps */
	uint32_t	generation;
	/* lookup results (route get) */
	bool		has_next_dir;
	uint8_t		next_dir;
	uint32_t	next_port;
	char		next_port_name[IF_NAMESIZE];
	bool		exception;
	uint32_t	hops;
	bool		has_vc;
	uint8_t		vc;
	bool		has_why;
	uint8_t		why;		/* enum torus_route_why */
};

/* 0, or -1 if the message is not a well-formed record */
int node_rec_parse(const struct nlmsghdr *nlh, struct torus_node_rec *r);
int port_rec_parse(const struct nlmsghdr *nlh, struct torus_port_rec *r);
int route_rec_parse(const struct nlmsghdr *nlh, struct torus_route_rec *r);

/* members only (text: the whole record, newline-terminated) */
void node_rec_print_fields(const struct torus_node_rec *r, int stats);
void port_rec_print_fields(const struct torus_port_rec *r, int stats);
/* one JSON object (an array element), or the text lines */
void node_rec_print(const struct torus_node_rec *r, int stats);
/* the node's plans 1..7 alone: "route plans show" */
void node_plans_print(const struct torus_node_rec *r);
void port_rec_print(const struct torus_port_rec *r, int stats);
/* route show entry, route get result */
void route_rec_print(const struct torus_route_rec *r);
void route_get_print(const struct torus_route_rec *r);

#endif /* TORUS_RECORDS_H */
