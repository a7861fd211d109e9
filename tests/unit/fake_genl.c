// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fake_genl.c - a generic netlink "torus" family without the module, for
 * the command line tests (tests/unit/cli.sh): preloaded into the torus
 * tool, it answers the family lookup with a made-up id, every dump with
 * an empty one and every other request with an ACK, and writes one line
 * per torus request to the file $FAKE_GENL_LOG:
 *
 *	NAME { do | dump }
 *
 * so a test can tell which requests a command line sends (a read, or a
 * change).  Only libmnl's socket calls are replaced: netlink sockets are
 * still opened and bound, and nothing is sent to the kernel.
 *
 *	LD_PRELOAD=build/tests/unit/fake_genl.so FAKE_GENL_LOG=log torus ...
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/torus.h>

#define FAKE_FAMILY	0x3f	/* the "torus" family's id here */

static char reply[4096];
static size_t reply_len;

static struct nlmsghdr *put_reply(const struct mnl_socket *nl,
				  const struct nlmsghdr *req, uint16_t type)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(reply + reply_len);

	nlh->nlmsg_type = type;
	nlh->nlmsg_seq = req->nlmsg_seq;
	nlh->nlmsg_pid = mnl_socket_get_portid(nl);
	return nlh;
}

static void end_reply(struct nlmsghdr *nlh)
{
	reply_len += NLMSG_ALIGN(nlh->nlmsg_len);
}

/* NLMSG_ERROR 0 (an ACK) or NLMSG_DONE */
static void put_end(const struct mnl_socket *nl, const struct nlmsghdr *req,
		    bool dump)
{
	struct nlmsghdr *nlh;
	struct nlmsgerr *err;
	int *done;

	nlh = put_reply(nl, req, dump ? NLMSG_DONE : NLMSG_ERROR);
	if (dump) {
		done = mnl_nlmsg_put_extra_header(nlh, sizeof(*done));
		*done = 0;
	} else {
		err = mnl_nlmsg_put_extra_header(nlh, sizeof(*err));
		err->error = 0;
		err->msg = *req;
		nlh->nlmsg_flags = NLM_F_CAPPED;
	}
	end_reply(nlh);
}

static void log_request(const struct nlmsghdr *req,
			const struct genlmsghdr *genl)
{
	const char *path = getenv("FAKE_GENL_LOG");
	char name[16];
	FILE *f;

	if (!path)
		return;
	f = fopen(path, "a");
	if (!f)
		return;
	switch (genl->cmd) {
	case TORUS_CMD_NODE_GET:
		snprintf(name, sizeof(name), "node_get");
		break;
	case TORUS_CMD_PORT_GET:
		snprintf(name, sizeof(name), "port_get");
		break;
	case TORUS_CMD_PORTMAP_SET:
		snprintf(name, sizeof(name), "portmap_set");
		break;
	case TORUS_CMD_PLAN_SET:
		snprintf(name, sizeof(name), "plan_set");
		break;
	default:
		snprintf(name, sizeof(name), "cmd_%u", genl->cmd);
	}
	fprintf(f, "%s %s\n", name,
		(req->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP ? "dump" : "do");
	fclose(f);
}

ssize_t mnl_socket_sendto(const struct mnl_socket *nl, const void *buf,
			  size_t len)
{
	const struct nlmsghdr *req = buf;
	const struct genlmsghdr *genl;
	struct nlmsghdr *nlh;
	bool dump;

	if (len < NLMSG_HDRLEN + GENL_HDRLEN) {
		errno = EINVAL;
		return -1;
	}
	genl = mnl_nlmsg_get_payload(req);
	dump = (req->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP;
	reply_len = 0;
	if (req->nlmsg_type == GENL_ID_CTRL &&
	    genl->cmd == CTRL_CMD_GETFAMILY) {
		struct genlmsghdr *g;

		nlh = put_reply(nl, req, GENL_ID_CTRL);
		g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
		g->cmd = CTRL_CMD_NEWFAMILY;
		mnl_attr_put_u16(nlh, CTRL_ATTR_FAMILY_ID, FAKE_FAMILY);
		mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, "torus");
		end_reply(nlh);
	} else if (req->nlmsg_type == FAKE_FAMILY) {
		log_request(req, genl);
	} else {
		/* not ours to fake (rtnetlink): refuse, loudly */
		errno = EOPNOTSUPP;
		return -1;
	}
	put_end(nl, req, dump);
	return (ssize_t)len;
}

ssize_t mnl_socket_recvfrom(const struct mnl_socket *nl, void *buf,
			    size_t size)
{
	(void)nl;
	if (!reply_len || reply_len > size) {
		errno = EAGAIN;
		return -1;
	}
	memcpy(buf, reply, reply_len);
	size = reply_len;
	reply_len = 0;
	return (ssize_t)size;
}
