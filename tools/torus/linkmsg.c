// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * linkmsg.c - build the torport pair request; name rtnetlink attributes
 */
#include <stdio.h>
#include <sys/socket.h>

#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <linux/torus.h>

#include "linkmsg.h"

/* struct ifinfomsg (AF_UNSPEC, zeroed), IFLA_IFNAME, IFLA_NET_NS_FD */
static void put_end(struct nlmsghdr *nlh, const struct link_end *e)
{
	struct ifinfomsg *ifm;

	ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	ifm->ifi_family = AF_UNSPEC;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, e->name);
	if (e->ns_fd >= 0)
		mnl_attr_put_u32(nlh, IFLA_NET_NS_FD, (uint32_t)e->ns_fd);
}

void link_add_build(struct nlmsghdr *nlh, const struct link_end *local,
		    const struct link_end *peer)
{
	struct nlattr *linkinfo, *data, *nest;

	put_end(nlh, local);
	linkinfo = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, TORUS_PORT_KIND);
	data = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
	mnl_attr_put_u8(nlh, TORUS_LINK_A_LABEL, local->label);
	mnl_attr_put_u8(nlh, TORUS_LINK_A_PEER_LABEL, peer->label);
	/* as veth's VETH_INFO_PEER: struct ifinfomsg, then IFLA_* */
	nest = mnl_attr_nest_start(nlh, TORUS_LINK_A_PEER);
	put_end(nlh, peer);
	mnl_attr_nest_end(nlh, nest);
	mnl_attr_nest_end(nlh, data);
	mnl_attr_nest_end(nlh, linkinfo);
}

void port_label_build(struct nlmsghdr *nlh, uint32_t ifindex, uint8_t label)
{
	struct nlattr *linkinfo, *data;
	struct ifinfomsg *ifm;

	ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	ifm->ifi_family = AF_UNSPEC;
	ifm->ifi_index = (int)ifindex;
	linkinfo = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	data = mnl_attr_nest_start(nlh, IFLA_INFO_SLAVE_DATA);
	mnl_attr_put_u8(nlh, TORUS_PORT_INFO_A_LABEL, label);
	mnl_attr_nest_end(nlh, data);
	mnl_attr_nest_end(nlh, linkinfo);
}

/* rtnetlink names for error messages: IFLA_*, our IFLA_INFO_DATA and
 * IFLA_INFO_SLAVE_DATA
 */
void rtnl_attr_namer(const uint16_t *path, unsigned int depth, char *buf,
		     size_t len)
{
	static const char *const top[] = {
		[IFLA_IFNAME] = "IFLA_IFNAME",
		[IFLA_MASTER] = "IFLA_MASTER",
		[IFLA_LINKINFO] = "IFLA_LINKINFO",
		[IFLA_NET_NS_FD] = "IFLA_NET_NS_FD",
	};
	static const char *const info[] = {
		[IFLA_INFO_KIND] = "IFLA_INFO_KIND",
		[IFLA_INFO_DATA] = "IFLA_INFO_DATA",
		[IFLA_INFO_SLAVE_DATA] = "IFLA_INFO_SLAVE_DATA",
	};
	static const char *const data[] = {
		[TORUS_LINK_A_LABEL] = "TORUS_LINK_A_LABEL",
		[TORUS_LINK_A_PEER] = "TORUS_LINK_A_PEER",
		[TORUS_LINK_A_PEER_LABEL] = "TORUS_LINK_A_PEER_LABEL",
	};
	static const char *const slave[] = {
		[TORUS_PORT_INFO_A_LABEL] = "TORUS_PORT_INFO_A_LABEL",
		[TORUS_PORT_INFO_A_GLOBAL_DIR] = "TORUS_PORT_INFO_A_GLOBAL_DIR",
	};
	const char *const *names[] = { top, info, data };
	size_t sizes[] = {
		sizeof(top) / sizeof(top[0]),
		sizeof(info) / sizeof(info[0]),
		sizeof(data) / sizeof(data[0]),
	};
	bool known = true;
	size_t off = 0;
	unsigned int i;
	int w;

	buf[0] = '\0';
	for (i = 0; i < depth && off < len; i++) {
		/* only IFLA_LINKINFO/IFLA_INFO_{,SLAVE_}DATA has names below */
		if (i == 1 && path[0] != IFLA_LINKINFO)
			known = false;
		if (i == 2 && path[1] == IFLA_INFO_SLAVE_DATA) {
			names[2] = slave;
			sizes[2] = sizeof(slave) / sizeof(slave[0]);
		} else if (i == 2 && path[1] != IFLA_INFO_DATA) {
			known = false;
		}
		if (known && i < 3 && path[i] < sizes[i] && names[i][path[i]])
			w = snprintf(buf + off, len - off, "%s%s",
				     i ? "/" : "", names[i][path[i]]);
		else
			w = snprintf(buf + off, len - off, "%s%u",
				     i ? "/" : "", path[i]);
		if (w < 0)
			return;
		off += (size_t)w;
	}
}
