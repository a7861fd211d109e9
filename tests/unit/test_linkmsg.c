// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_linkmsg.c - the torport pair request of tools/torus/linkmsg.c,
 * parsed back attribute by attribute
 */
#include <sys/socket.h>

#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <linux/torus.h>

#include "linkmsg.h"
#include "unit.h"

static char buf[4096];

static const struct nlattr *find(const struct nlattr *nest, size_t skip,
				 uint16_t type)
{
	const char *p = (const char *)mnl_attr_get_payload(nest) +
			MNL_ALIGN(skip);
	const char *end = (const char *)nest + nest->nla_len;
	const struct nlattr *a;

	while (p + MNL_ATTR_HDRLEN <= end) {
		a = (const struct nlattr *)p;
		if (a->nla_len < MNL_ATTR_HDRLEN || p + a->nla_len > end)
			return NULL;
		if (mnl_attr_get_type(a) == type)
			return a;
		p += MNL_ALIGN(a->nla_len);
	}
	return NULL;
}

static const struct nlattr *top(const struct nlmsghdr *nlh, uint16_t type)
{
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, sizeof(struct ifinfomsg))
		if (mnl_attr_get_type(a) == type)
			return a;
	return NULL;
}

static struct nlmsghdr *build(int fd0, int fd1)
{
	struct link_end a = {
		.name = "tp0", .label = TORUS_DIR(0, 0), .ns_fd = fd0,
	};
	struct link_end b = {
		.name = "tp1", .label = TORUS_DIR(1, 1), .ns_fd = fd1,
	};
	struct nlmsghdr *nlh;

	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_NEWLINK;
	link_add_build(nlh, &a, &b);
	return nlh;
}

UNIT_TEST(linkmsg_local_end)
{
	const struct nlmsghdr *nlh = build(-1, -1);
	const struct ifinfomsg *ifm = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a;

	UNIT_CHECK(ifm->ifi_family == AF_UNSPEC && ifm->ifi_index == 0);
	a = top(nlh, IFLA_IFNAME);
	UNIT_CHECK(a && !mnl_attr_validate(a, MNL_TYPE_NUL_STRING));
	UNIT_STREQ(a ? mnl_attr_get_str(a) : NULL, "tp0");
	UNIT_CHECK(top(nlh, IFLA_NET_NS_FD) == NULL);
}

UNIT_TEST(linkmsg_kind_and_labels)
{
	const struct nlmsghdr *nlh = build(-1, -1);
	const struct nlattr *info, *kind, *data, *a;

	info = top(nlh, IFLA_LINKINFO);
	UNIT_CHECK(info && (info->nla_type & NLA_F_NESTED));
	if (!info)
		return;
	kind = find(info, 0, IFLA_INFO_KIND);
	UNIT_STREQ(kind ? mnl_attr_get_str(kind) : NULL, "torport");
	data = find(info, 0, IFLA_INFO_DATA);
	UNIT_CHECK(data != NULL);
	if (!data)
		return;
	a = find(data, 0, TORUS_LINK_A_LABEL);
	UNIT_CHECK(a && mnl_attr_get_payload_len(a) == 1 &&
		   mnl_attr_get_u8(a) == TORUS_DIR(0, 0));
	a = find(data, 0, TORUS_LINK_A_PEER_LABEL);
	UNIT_CHECK(a && mnl_attr_get_u8(a) == TORUS_DIR(1, 1));
}

UNIT_TEST(linkmsg_peer_like_veth)
{
	const struct nlmsghdr *nlh = build(7, 9);
	const struct nlattr *info, *data, *peer, *a;
	const struct ifinfomsg *ifm;

	a = top(nlh, IFLA_NET_NS_FD);
	UNIT_CHECK(a && mnl_attr_get_u32(a) == 7);
	info = top(nlh, IFLA_LINKINFO);
	data = info ? find(info, 0, IFLA_INFO_DATA) : NULL;
	peer = data ? find(data, 0, TORUS_LINK_A_PEER) : NULL;
	UNIT_CHECK(peer != NULL);
	if (!peer)
		return;
	/* struct ifinfomsg first, then the peer's IFLA_* */
	UNIT_CHECK(mnl_attr_get_payload_len(peer) >
		   sizeof(struct ifinfomsg));
	ifm = mnl_attr_get_payload(peer);
	UNIT_CHECK(ifm->ifi_family == AF_UNSPEC && ifm->ifi_index == 0 &&
		   ifm->ifi_flags == 0 && ifm->ifi_change == 0);
	a = find(peer, sizeof(struct ifinfomsg), IFLA_IFNAME);
	UNIT_STREQ(a ? mnl_attr_get_str(a) : NULL, "tp1");
	a = find(peer, sizeof(struct ifinfomsg), IFLA_NET_NS_FD);
	UNIT_CHECK(a && mnl_attr_get_u32(a) == 9);
	/* the whole message is consistent */
	UNIT_CHECK(nlh->nlmsg_len ==
		   (uint32_t)((char *)mnl_nlmsg_get_payload_tail(nlh) -
			      (char *)nlh));
}

UNIT_TEST(linkmsg_attr_namer)
{
	uint16_t path[] = { IFLA_LINKINFO, IFLA_INFO_DATA,
			    TORUS_LINK_A_PEER_LABEL };
	uint16_t other[] = { IFLA_AF_SPEC, 2 };
	char name[128];

	rtnl_attr_namer(path, 3, name, sizeof(name));
	UNIT_STREQ(name, "IFLA_LINKINFO/IFLA_INFO_DATA/TORUS_LINK_A_PEER_LABEL");
	rtnl_attr_namer(path, 1, name, sizeof(name));
	UNIT_STREQ(name, "IFLA_LINKINFO");
	rtnl_attr_namer(other, 2, name, sizeof(name));
	UNIT_STREQ(name, "26/2");
}

/* torus port set: the label in IFLA_INFO_SLAVE_DATA, the port by index */
UNIT_TEST(linkmsg_port_label)
{
	uint16_t path[] = { IFLA_LINKINFO, IFLA_INFO_SLAVE_DATA,
			    TORUS_PORT_INFO_A_LABEL };
	const struct nlattr *linkinfo, *data, *a;
	const struct ifinfomsg *ifm;
	struct nlmsghdr *nlh;
	char name[128];

	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_NEWLINK;
	port_label_build(nlh, 7, TORUS_DIR(2, 1));
	ifm = mnl_nlmsg_get_payload(nlh);
	UNIT_CHECK(ifm->ifi_index == 7);
	UNIT_CHECK(ifm->ifi_family == AF_UNSPEC);
	linkinfo = top(nlh, IFLA_LINKINFO);
	UNIT_CHECK(linkinfo != NULL);
	/* no kind: the kernel takes the master's ops for slave data */
	UNIT_CHECK(find(linkinfo, 0, IFLA_INFO_KIND) == NULL);
	data = find(linkinfo, 0, IFLA_INFO_SLAVE_DATA);
	UNIT_CHECK(data != NULL);
	a = find(data, 0, TORUS_PORT_INFO_A_LABEL);
	UNIT_CHECK(a && mnl_attr_get_u8(a) == TORUS_DIR(2, 1));
	UNIT_CHECK(find(data, 0, TORUS_PORT_INFO_A_GLOBAL_DIR) == NULL);
	rtnl_attr_namer(path, 3, name, sizeof(name));
	UNIT_STREQ(name,
		   "IFLA_LINKINFO/IFLA_INFO_SLAVE_DATA/TORUS_PORT_INFO_A_LABEL");
}

static const struct unit_case cases[] = {
	UNIT_CASE(linkmsg_local_end),
	UNIT_CASE(linkmsg_kind_and_labels),
	UNIT_CASE(linkmsg_peer_like_veth),
	UNIT_CASE(linkmsg_attr_namer),
	UNIT_CASE(linkmsg_port_label),
};

UNIT_MAIN(cases)
