/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * linkmsg.h - the rtnetlink requests that create a torport pair and
 * label a port, built without a socket so they can be unit-tested
 */
#ifndef TORUS_LINKMSG_H
#define TORUS_LINKMSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libmnl/libmnl.h>

struct link_end {
	const char	*name;
	const char	*netns;		/* NULL: the current netns */
	const char	*master;	/* NULL: not enslaved */
	uint8_t		label;
	bool		has_label;
	int		ns_fd;		/* of @netns, -1 if none */
};

/*
 * Fill @nlh (an RTM_NEWLINK header) with struct ifinfomsg, IFLA_IFNAME,
 * IFLA_NET_NS_FD and IFLA_LINKINFO { IFLA_INFO_KIND "torport",
 * IFLA_INFO_DATA { TORUS_LINK_A_LABEL, TORUS_LINK_A_PEER_LABEL,
 * TORUS_LINK_A_PEER { struct ifinfomsg, IFLA_IFNAME, IFLA_NET_NS_FD } } }.
 */
void link_add_build(struct nlmsghdr *nlh, const struct link_end *local,
		    const struct link_end *peer);

/*
 * Fill @nlh (an RTM_NEWLINK header) with the label of an enslaved port:
 * struct ifinfomsg (@ifindex), IFLA_LINKINFO { IFLA_INFO_SLAVE_DATA
 * { TORUS_PORT_INFO_A_LABEL @label } }.  The master's kind is the
 * kernel's to find: the request names no kind.
 */
void port_label_build(struct nlmsghdr *nlh, uint32_t ifindex, uint8_t label);

/* rtnetlink attribute names for error messages */
void rtnl_attr_namer(const uint16_t *path, unsigned int depth, char *buf,
		     size_t len);

#endif /* TORUS_LINKMSG_H */
