// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cable.c - torus cable: cut, restore and degrade a torport cable
 *
 *	torus cable set PORT { up | down | loss PCT } ...
 */
#include <stdio.h>

#include <linux/torus.h>

#include "parse.h"
#include "tool.h"

#define OBJ	"cable"

void cable_usage(FILE *f)
{
	fprintf(f,
		"Usage: torus cable set PORT { up | down | loss PCT } ...\n"
		"where  PCT := 0..100, up to 4 decimals (\"12.5\", \"0.0001\"), an optional %%\n");
}

static int cable_set(int argc, char **argv)
{
	bool has_carrier = false, has_loss = false, carrier = false;
	uint32_t ifindex, ppm = 0;
	struct nlsock *genl;
	struct nlmsghdr *nlh;
	const char *port;
	int ret;

	ret = parse_name_arg(OBJ, "PORT", "port", &argc, &argv, &port);
	if (ret)
		return ret;
	while (argc > 0) {
		if (kw(argv[0], "up")) {
			has_carrier = true;
			carrier = true;
		} else if (kw(argv[0], "down")) {
			has_carrier = true;
			carrier = false;
		} else if (kw(argv[0], "loss")) {
			NEXT_ARG(OBJ);
			if (parse_pct_ppm(argv[0], &ppm))
				return bad_value(OBJ, "loss", argv[0],
						 "a percentage 0..100");
			has_loss = true;
		} else {
			return unknown_keyword(OBJ, argv[0]);
		}
		argc--;
		argv++;
	}
	if (!has_carrier && !has_loss)
		return usage_error(OBJ, "nothing to set: use up, down or loss PCT");

	if (dev_ifindex(port, &ifindex))
		return EXIT_ERR;
	genl = ns_genl();
	if (!genl)
		return EXIT_ERR;
	nlh = mnlg_msg(genl, TORUS_CMD_CABLE_SET, 0);
	mnl_attr_put_u32(nlh, TORUS_A_PORT_IFINDEX, ifindex);
	if (has_carrier)
		mnl_attr_put_u8(nlh, TORUS_A_CARRIER, carrier);
	if (has_loss)
		mnl_attr_put_u32(nlh, TORUS_A_LOSS_PPM, ppm);
	return nlsock_talk(genl, nlh, NULL, NULL) ? EXIT_ERR : EXIT_OK;
}

static const struct cmd cable_cmds[] = {
	{ "set",	cable_set },
	{}
};

int do_cable(int argc, char **argv)
{
	return do_cmds(OBJ, cable_cmds, cable_usage, argc, argv);
}
