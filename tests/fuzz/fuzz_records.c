// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_records.c - the torus tool's parsing of the kernel's replies and
 * events (node_rec_parse, port_rec_parse, route_rec_parse in
 * tools/torus/records.c) and the printing of what they parsed, in text
 * and in JSON, as node/port/route show and monitor do.
 *
 * Input: a buffer as recvfrom() on the generic netlink socket returns
 * it: netlink messages (struct nlmsghdr, genlmsghdr, attributes), walked
 * as tools/torus/mnlg.c walks them (nl_msg_ok).
 * Beyond the sanitizers: every string a record holds is terminated.
 */
#include <string.h>

#include "fuzz_input.h"
#include "json_print.h"
#include "mnlg.h"
#include "records.h"

static FILE *devnull;

#define TERMINATED(s) FZ_ASSERT(memchr((s), '\0', sizeof(s)))

static void records_print_node(const struct nlmsghdr *nlh, bool json)
{
	struct torus_node_rec r;

	if (node_rec_parse(nlh, &r))
		return;
	TERMINATED(r.ifname);
	TERMINATED(r.reason);
	FZ_ASSERT(r.n_coord <= TORUS_MAX_AXES && r.n_dims <= TORUS_MAX_AXES &&
		  r.n_wrap <= TORUS_MAX_AXES);
	node_rec_print(&r, json ? 2 : 1);
}

static void records_print_port(const struct nlmsghdr *nlh, bool json)
{
	struct torus_port_rec r;

	if (port_rec_parse(nlh, &r))
		return;
	TERMINATED(r.node_ifname);
	TERMINATED(r.ifname);
	TERMINATED(r.master_name);
	TERMINATED(r.peer_name);
	port_rec_print(&r, json ? 2 : 1);
}

static void records_print_route(const struct nlmsghdr *nlh)
{
	struct torus_route_rec r;

	if (route_rec_parse(nlh, &r))
		return;
	TERMINATED(r.ifname);
	TERMINATED(r.next_port_name);
	FZ_ASSERT(r.n_dst <= TORUS_MAX_AXES && r.n_via <= TORUS_MAX_AXES);
	route_rec_print(&r);
	route_get_print(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct nlmsghdr *nlh;
	unsigned int pass;
	void *buf;
	int rem;

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	FZ_ASSERT(devnull);
	if (size > 65536)
		return 0;
	/* the socket's buffer: aligned, and exactly the bytes received */
	buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	for (pass = 0; pass < 2; pass++) {
		new_json_obj(devnull, pass, false);
		open_json_array(PRINT_JSON, NULL);
		rem = (int)size;
		for (nlh = buf; nl_msg_ok(nlh, rem);
		     nlh = mnl_nlmsg_next(nlh, &rem)) {
			records_print_node(nlh, pass);
			records_print_port(nlh, pass);
			records_print_route(nlh);
		}
		close_json_array(PRINT_JSON, NULL);
		delete_json_obj();
	}
	free(buf);
	return 0;
}
