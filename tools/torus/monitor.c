// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * monitor.c - torus monitor: print node and port events as they happen
 *
 *	torus monitor [ dev DEV ]
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <linux/genetlink.h>
#include <linux/torus.h>

#include "json_print.h"
#include "parse.h"
#include "records.h"
#include "tool.h"

#define OBJ	"monitor"

void monitor_usage(FILE *f)
{
	fprintf(f,
		"Usage: torus monitor [ dev DEV ]\n"
		"       prints node and port events with a timestamp; with -j one JSON\n"
		"       object per line\n");
}

struct monitor {
	uint32_t		node;	/* 0: every node */
	struct torus_node_rec	n;
	struct torus_port_rec	p;
};

static void timestamp(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;
	size_t n;

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, len - n, ".%06ld", ts.tv_nsec / 1000);
}

static void event_begin(const char *event)
{
	char ts[64];

	timestamp(ts, sizeof(ts));
	new_json_obj(stdout, opts.json, opts.pretty);
	open_json_object(NULL);
	print_string(PRINT_ANY, "timestamp", "[%s] ", ts);
	print_string(PRINT_ANY, "event", "%s ", event);
}

static void event_end(void)
{
	close_json_object();
	delete_json_obj();
}

static int event_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct genlmsghdr *genl = mnl_nlmsg_get_payload(nlh);
	struct monitor *m = data;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*genl))
		return MNL_CB_OK;
	switch (genl->cmd) {
	case TORUS_CMD_NODE_EVENT:
		if (node_rec_parse(nlh, &m->n))
			break;
		if (m->node && m->n.ifindex != m->node)
			break;
		event_begin("node");
		node_rec_print_fields(&m->n, opts.stats);
		event_end();
		break;
	case TORUS_CMD_PORT_EVENT:
		if (port_rec_parse(nlh, &m->p))
			break;
		if (m->node && m->p.node_ifindex != m->node &&
		    m->p.master != m->node)
			break;
		event_begin("port");
		if (m->p.node_ifname[0])
			print_string(PRINT_JSON, "node", NULL,
				     m->p.node_ifname);
		port_rec_print_fields(&m->p, opts.stats);
		event_end();
		break;
	}
	return MNL_CB_OK;
}

static void lost(void *data)
{
	(void)data;
	fprintf(stderr, "Warning: events were lost (receive buffer overrun)\n");
}

int do_monitor(int argc, char **argv)
{
	struct monitor *m = &(struct monitor){};
	const char *dev = NULL;
	struct nlsock *nls;
	int ret;

	while (argc > 0) {
		if (kw(argv[0], "dev")) {
			NEXT_IFNAME(OBJ, "dev", dev);
		} else if (kw(argv[0], "help")) {
			monitor_usage(stdout);
			return EXIT_OK;
		} else {
			return unknown_keyword(OBJ, argv[0]);
		}
		argc--;
		argv++;
	}
	if (dev && dev_ifindex(dev, &m->node))
		return EXIT_ERR;
	nls = mnlg_open(TORUS_GENL_NAME, TORUS_GENL_VERSION);
	if (!nls)
		return EXIT_ERR;
	ret = mnlg_join_group(nls, TORUS_GENL_MCGRP_EVENTS);
	if (!ret)
		ret = mnlg_listen(nls, event_cb, lost, m);
	nlsock_close(nls);
	return ret ? EXIT_ERR : EXIT_OK;
}
