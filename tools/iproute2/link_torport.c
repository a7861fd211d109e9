// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * link_torport.c - stock iproute2 `ip` plugin for torport cable pairs
 *
 *	ip link add NAME type torport dir LABEL
 *		peer name NAME dir LABEL [ netns NS ] [ LINK-OPTIONS ]
 *	ip -d [-j] link show NAME	dir and peer_dir of the cable's ends
 *
 * The peer's options other than "dir" are ip's own (name, netns,
 * address, mtu, ...): iplink_parse() fills them into an ifinfomsg of
 * their own inside TORUS_LINK_A_PEER, as the kernel's torport_newlink()
 * reads it.
 */
#include <stdlib.h>
#include <string.h>

#include <linux/torus.h>

#include "ip_plugin.h"
#include "parse.h"
#include "plugin_print.h"

static void torport_usage(FILE *f)
{
	fprintf(f,
		"Usage: ip link add NAME type torport dir LABEL\n"
		"                peer name NAME dir LABEL [ netns NS ] [ LINK-OPTIONS ]\n"
		"       ip -d [ -j ] link show NAME\n"
		"where  LABEL := { +x | -x | +y | -y | +z | -z | +a | -a | +b | -b |\n"
		"                  +c | -c | +d | -d | +e | -e }\n"
		"       LINK-OPTIONS are the options of \"ip link add\" for the peer\n");
}

static void torport_print_help(struct link_util *lu, int argc, char **argv,
			       FILE *f)
{
	torport_usage(f);
}

static uint8_t torport_label_arg(const char *arg)
{
	uint8_t dir;

	if (parse_dir(arg, &dir))
		invarg("\"dir\" is a direction label, +x .. -e", arg);
	return dir;
}

/*
 * The peer's words: "dir LABEL" is torport's, the others go to ip's own
 * parser.  Returns the number of words left in @pargv.
 */
static int torport_split_peer(int argc, char **argv, char **pargv,
			      int *peer_label)
{
	int pargc = 0;

	for (; argc > 0; argc--, argv++) {
		if (strcmp(*argv, "dir") == 0) {
			if (*peer_label >= 0)
				duparg("dir", argv[1] ? argv[1] : "");
			if (argc < 2)
				invarg("\"dir\" needs a direction label", "");
			*peer_label = torport_label_arg(argv[1]);
			argc--;
			argv++;
			continue;
		}
		pargv[pargc++] = *argv;
	}
	return pargc;
}

/* the peer's ifinfomsg and IFLA_* attributes, nested as the kernel wants */
static int torport_put_peer(int argc, char **argv, struct nlmsghdr *n)
{
	struct ifinfomsg *ifm = NLMSG_DATA(n), saved = *ifm, *peer_ifm;
	struct rtattr *nest;
	char *type = NULL;
	int err;

	/* iplink_parse() writes the flags it parses into the outer header */
	ifm->ifi_flags = 0;
	ifm->ifi_change = 0;
	ifm->ifi_index = 0;
	nest = addattr_nest(n, IP_PLUGIN_REQ_MAX, TORUS_LINK_A_PEER);
	peer_ifm = RTA_DATA(nest);
	memset(peer_ifm, 0, sizeof(*peer_ifm));
	n->nlmsg_len += sizeof(*peer_ifm);

	err = iplink_parse(argc, argv, (struct iplink_req *)n, &type);
	if (err < 0)
		return err;
	if (type)
		duparg("type", argv[err]);

	peer_ifm->ifi_index = ifm->ifi_index;
	peer_ifm->ifi_flags = ifm->ifi_flags;
	peer_ifm->ifi_change = ifm->ifi_change;
	ifm->ifi_flags = saved.ifi_flags;
	ifm->ifi_change = saved.ifi_change;
	ifm->ifi_index = saved.ifi_index;
	addattr_nest_end(n, nest);
	return 0;
}

static int torport_parse_opt(struct link_util *lu, int argc, char **argv,
			     struct nlmsghdr *n)
{
	int label = -1, peer_label = -1;

	while (argc > 0) {
		if (strcmp(*argv, "dir") == 0) {
			if (label >= 0)
				duparg("dir", argv[1] ? argv[1] : "");
			if (argc < 2)
				invarg("\"dir\" needs a direction label", "");
			label = torport_label_arg(argv[1]);
			argc -= 2;
			argv += 2;
		} else if (strcmp(*argv, "peer") == 0) {
			char **pargv = calloc(argc, sizeof(*pargv));
			int pargc, err;

			if (!pargv)
				return -1;
			pargc = torport_split_peer(argc - 1, argv + 1, pargv,
						   &peer_label);
			err = torport_put_peer(pargc, pargv, n);
			free(pargv);
			if (err < 0)
				return err;
			argc = 0;
		} else if (strcmp(*argv, "help") == 0) {
			torport_usage(stdout);
			return -1;
		} else {
			fprintf(stderr, "torport: unknown option \"%s\"\n",
				*argv);
			torport_usage(stderr);
			return -1;
		}
	}
	if (label >= 0)
		addattr8(n, IP_PLUGIN_REQ_MAX, TORUS_LINK_A_LABEL, label);
	if (peer_label >= 0)
		addattr8(n, IP_PLUGIN_REQ_MAX, TORUS_LINK_A_PEER_LABEL,
			 peer_label);
	return 0;
}

static void torport_print_opt(struct link_util *lu, FILE *f,
			      struct rtattr *tb[])
{
	if (!tb)
		return;
	plugin_print_dir(tb[TORUS_LINK_A_LABEL], "dir");
	plugin_print_dir(tb[TORUS_LINK_A_PEER_LABEL], "peer_dir");
}

PLUGIN_EXPORT struct link_util torport_link_util = {
	.id		= TORUS_PORT_KIND,
	.maxattr	= TORUS_LINK_A_MAX,
	.parse_opt	= torport_parse_opt,
	.print_opt	= torport_print_opt,
	.print_help	= torport_print_help,
};
