// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * link.c - torus link: torport pairs (cables) over rtnetlink
 *
 *	torus link add NAME dir LABEL [netns NS] [master DEV]
 *		peer NAME dir LABEL [netns NS] [master DEV]
 *	torus link del NAME
 *	torus link set NAME { master DEV | nomaster }
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <linux/torus.h>

#include "linkmsg.h"
#include "parse.h"
#include "tool.h"

#define OBJ	"link"

void link_usage(FILE *f)
{
	fprintf(f,
		"Usage: torus link add NAME dir LABEL [ netns NS ] [ master DEV ]\n"
		"                      peer NAME dir LABEL [ netns NS ] [ master DEV ]\n"
		"       torus link del NAME\n"
		"       torus link set NAME { master DEV | nomaster }\n"
		"where  LABEL := { +x | -x | +y | -y | +z | -z | +a | -a | +b | -b |\n"
		"                  +c | -c | +d | -d | +e | -e }\n");
}

static struct nlmsghdr *link_msg(struct nlsock *rtnl, uint16_t type,
				 uint16_t flags, uint32_t ifindex)
{
	struct nlmsghdr *nlh = nlsock_msg(rtnl, type, flags);
	struct ifinfomsg *ifm;

	ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	ifm->ifi_family = AF_UNSPEC;
	ifm->ifi_index = (int)ifindex;
	return nlh;
}

static int set_master(struct nlsock *rtnl, const char *name,
		      const char *master)
{
	uint32_t ifindex, mindex = 0;
	struct nlmsghdr *nlh;

	if (dev_ifindex(name, &ifindex) ||
	    (master && dev_ifindex(master, &mindex)))
		return EXIT_ERR;
	nlh = link_msg(rtnl, RTM_NEWLINK, 0, ifindex);
	mnl_attr_put_u32(nlh, IFLA_MASTER, mindex);
	return nlsock_talk(rtnl, nlh, NULL, NULL) ? EXIT_ERR : EXIT_OK;
}

/* enslave one end, in its own netns */
static int end_master(const struct link_end *e)
{
	struct nlsock *rtnl;
	void *saved;
	int ret = EXIT_ERR;

	if (!e->master)
		return EXIT_OK;
	saved = ns_save();
	if (e->netns && ns_switch(e->netns))
		return EXIT_ERR;
	rtnl = ns_rtnl();
	if (rtnl)
		ret = set_master(rtnl, e->name, e->master);
	if (ns_restore(saved))
		ret = EXIT_ERR;
	return ret;
}

/* the options after NAME; stops at "peer" or the end */
static int parse_end(int *pargc, char ***pargv, struct link_end *e)
{
	int argc = *pargc;
	char **argv = *pargv;

	while (argc > 0 && !kw(argv[0], "peer")) {
		if (kw(argv[0], "dir")) {
			NEXT_ARG(OBJ);
			if (parse_dir(argv[0], &e->label))
				return bad_value(OBJ, "dir", argv[0],
						 "a label +x .. -e");
			e->has_label = true;
		} else if (kw(argv[0], "netns")) {
			NEXT_ARG(OBJ);
			e->netns = argv[0];
		} else if (kw(argv[0], "master")) {
			NEXT_IFNAME(OBJ, "master", e->master);
		} else {
			return unknown_keyword(OBJ, argv[0]);
		}
		argc--;
		argv++;
	}
	*pargc = argc;
	*pargv = argv;
	return EXIT_OK;
}

static int link_add(int argc, char **argv)
{
	struct link_end ends[2] = {};
	struct nlsock *rtnl;
	struct nlmsghdr *nlh;
	int i, ret;

	for (i = 0; i < 2; i++) {
		if (argc < 1)
			return usage_error(OBJ, i ? "missing peer NAME" :
						    "missing NAME");
		if (parse_ifname(argv[0]))
			return bad_value(OBJ, "name", argv[0],
					 "a device name");
		ends[i].name = argv[0];
		argc--;
		argv++;
		ret = parse_end(&argc, &argv, &ends[i]);
		if (ret)
			return ret;
		if (!ends[i].has_label)
			return usage_error(OBJ, "missing \"dir LABEL\" for %s",
					   ends[i].name);
		if (i == 0) {
			if (argc < 1)
				return usage_error(OBJ,
						   "missing \"peer NAME\"");
			argc--;		/* "peer" */
			argv++;
		}
	}
	if (argc > 0)
		return unknown_keyword(OBJ, argv[0]);

	rtnl = ns_rtnl();
	if (!rtnl)
		return EXIT_ERR;
	for (i = 0; i < 2; i++) {
		ends[i].ns_fd = -1;
		if (ends[i].netns) {
			ends[i].ns_fd = ns_fd(ends[i].netns);
			if (ends[i].ns_fd < 0)
				return EXIT_ERR;
		}
	}
	nlh = nlsock_msg(rtnl, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL);
	link_add_build(nlh, &ends[0], &ends[1]);
	if (nlsock_talk(rtnl, nlh, NULL, NULL))
		return EXIT_ERR;

	ret = end_master(&ends[0]);
	if (!ret)
		ret = end_master(&ends[1]);
	return ret;
}

static int link_del(int argc, char **argv)
{
	struct nlsock *rtnl;
	struct nlmsghdr *nlh;
	const char *name;
	int ret;

	ret = parse_name_arg(OBJ, "NAME", "name", &argc, &argv, &name);
	if (ret)
		return ret;
	if (argc > 0)
		return unknown_keyword(OBJ, argv[0]);
	rtnl = ns_rtnl();
	if (!rtnl)
		return EXIT_ERR;
	nlh = link_msg(rtnl, RTM_DELLINK, 0, 0);
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	return nlsock_talk(rtnl, nlh, NULL, NULL) ? EXIT_ERR : EXIT_OK;
}

static int link_set(int argc, char **argv)
{
	const char *name, *master = NULL;
	bool have = false;
	struct nlsock *rtnl;
	int ret;

	ret = parse_name_arg(OBJ, "NAME", "name", &argc, &argv, &name);
	if (ret)
		return ret;
	while (argc > 0) {
		if (kw(argv[0], "master")) {
			NEXT_IFNAME(OBJ, "master", master);
			have = true;
		} else if (kw(argv[0], "nomaster")) {
			master = NULL;
			have = true;
		} else {
			return unknown_keyword(OBJ, argv[0]);
		}
		argc--;
		argv++;
	}
	if (!have)
		return usage_error(OBJ, "nothing to set: use \"master DEV\" or \"nomaster\"");
	rtnl = ns_rtnl();
	if (!rtnl)
		return EXIT_ERR;
	return set_master(rtnl, name, master);
}

static const struct cmd link_cmds[] = {
	{ "add",	link_add },
	{ "del",	link_del },
	{ "delete",	link_del },
	{ "set",	link_set },
	{}
};

int do_link(int argc, char **argv)
{
	return do_cmds(OBJ, link_cmds, link_usage, argc, argv);
}
