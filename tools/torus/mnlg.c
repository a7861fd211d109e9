// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mnlg.c - libmnl helpers: request/ACK, dumps, extended ACK errors and
 * generic netlink family resolution
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/socket.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "mnlg.h"

#define NLSOCK_RECV_SIZE	65536
#define NLSOCK_SEND_SIZE	65536
#define NLSOCK_DUMP_RETRIES	4

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK		11
#endif
#ifndef NETLINK_CAP_ACK
#define NETLINK_CAP_ACK		10
#endif

struct nlsock *nlsock_open(int bus)
{
	struct nlsock *nls;
	int one = 1;

	nls = calloc(1, sizeof(*nls));
	if (!nls)
		goto err;
	nls->buflen = NLSOCK_RECV_SIZE;
	nls->sbuflen = NLSOCK_SEND_SIZE;
	nls->buf = malloc(NLSOCK_RECV_SIZE);
	nls->sbuf = malloc(NLSOCK_SEND_SIZE);
	if (!nls->buf || !nls->sbuf)
		goto err_free;
	nls->nl = mnl_socket_open(bus);
	if (!nls->nl)
		goto err_free;
	/* best effort: older kernels just give plain errors */
	mnl_socket_setsockopt(nls->nl, NETLINK_EXT_ACK, &one, sizeof(one));
	if (mnl_socket_bind(nls->nl, 0, MNL_SOCKET_AUTOPID) < 0)
		goto err_close;
	nls->portid = mnl_socket_get_portid(nls->nl);
	nls->seq = (unsigned int)getpid() << 8;
	return nls;

err_close:
	mnl_socket_close(nls->nl);
err_free:
	free(nls->sbuf);
	free(nls->buf);
	free(nls);
err:
	fprintf(stderr, "Error: cannot open netlink socket: %s\n",
		strerror(errno));
	return NULL;
}

void nlsock_close(struct nlsock *nls)
{
	if (!nls)
		return;
	mnl_socket_close(nls->nl);
	free(nls->sbuf);
	free(nls->buf);
	free(nls);
}

int nlsock_reserve(struct nlsock *nls, size_t len)
{
	char *sbuf;

	if (len <= nls->sbuflen)
		return 0;
	sbuf = realloc(nls->sbuf, len);
	if (!sbuf) {
		fprintf(stderr, "Error: no memory for a %zu-byte request\n", len);
		return -1;
	}
	nls->sbuf = sbuf;
	nls->sbuflen = len;
	return 0;
}

/*
 * A request larger than the socket's send buffer needs a larger one (the
 * kernel refuses it otherwise), and its ACK must not echo it back, or it
 * would not fit the receive buffer.
 */
static void nlsock_fit(struct nlsock *nls, const struct nlmsghdr *nlh)
{
	int one = 1, size = (int)nlh->nlmsg_len + 4096;

	if (nlh->nlmsg_len <= NLSOCK_SEND_SIZE)
		return;
	if (setsockopt(mnl_socket_get_fd(nls->nl), SOL_SOCKET, SO_SNDBUFFORCE,
		       &size, sizeof(size)))
		setsockopt(mnl_socket_get_fd(nls->nl), SOL_SOCKET, SO_SNDBUF,
			   &size, sizeof(size));
	mnl_socket_setsockopt(nls->nl, NETLINK_CAP_ACK, &one, sizeof(one));
}

struct nlmsghdr *nlsock_msg(struct nlsock *nls, uint16_t type,
			    uint16_t flags)
{
	struct nlmsghdr *nlh;

	memset(nls->sbuf, 0, MNL_NLMSG_HDRLEN);
	nlh = mnl_nlmsg_put_header(nls->sbuf);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	nlh->nlmsg_seq = ++nls->seq;
	return nlh;
}

size_t nl_msgs_len(const void *buf, size_t len)
{
	const struct nlmsghdr *nlh = buf;
	int rem = len > INT_MAX ? INT_MAX : (int)len;
	size_t whole = 0;

	/* the last message's padding may lie past the end */
	for (; nl_msg_ok(nlh, rem); nlh = mnl_nlmsg_next(nlh, &rem))
		whole = (size_t)((const char *)nlh - (const char *)buf) +
			nlh->nlmsg_len;
	return whole;
}

static int ext_ack_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	uint16_t type = mnl_attr_get_type(attr);

	if (type <= NLMSGERR_ATTR_MAX)
		tb[type] = attr;
	return MNL_CB_OK;
}

/*
 * Find the attribute starting at byte @off of the message @orig and
 * record the types on the way to it in @path.  Returns the depth, 0 if
 * @off is not the start of an attribute.
 */
static unsigned int attr_path(const struct nlmsghdr *orig, size_t hdrlen,
			      uint32_t off, uint16_t *path)
{
	const char *base = (const char *)orig;
	const char *p = base + MNL_NLMSG_HDRLEN + MNL_ALIGN(hdrlen);
	const char *end = base + orig->nlmsg_len;
	const char *target = base + off;
	unsigned int depth = 0;
	const struct nlattr *a;

	while (depth < NLSOCK_MAX_DEPTH && p + sizeof(*a) <= end) {
		a = (const struct nlattr *)p;
		if (a->nla_len < sizeof(*a) || p + a->nla_len > end)
			return 0;
		if (target < p || target >= p + a->nla_len) {
			p += MNL_ALIGN(a->nla_len);
			continue;
		}
		path[depth++] = a->nla_type & NLA_TYPE_MASK;
		if (target == p)
			return depth;
		/* inside: descend, assuming the payload is attributes */
		end = p + a->nla_len;
		p += MNL_ATTR_HDRLEN;
	}
	return 0;
}

static void format_path(nl_attr_namer_t namer, const uint16_t *path,
			unsigned int depth, char *buf, size_t len)
{
	size_t off = 0;
	unsigned int i;

	if (namer) {
		namer(path, depth, buf, len);
		return;
	}
	buf[0] = '\0';
	for (i = 0; i < depth && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%u",
					i ? "/" : "", path[i]);
}

int nl_format_error(const struct nlmsghdr *nlh, size_t hdrlen,
		    nl_attr_namer_t namer, char *buf, size_t len, bool *warn)
{
	const struct nlattr *tb[NLMSGERR_ATTR_MAX + 1] = {};
	const struct nlmsghdr *orig = NULL;
	uint16_t path[NLSOCK_MAX_DEPTH + 1];
	size_t plen = mnl_nlmsg_get_payload_len(nlh);
	unsigned int depth = 0;
	const char *msg = NULL;
	char where[128] = "";
	size_t tlv_off;
	int error;

	*warn = false;
	if (plen < sizeof(int)) {
		snprintf(buf, len, "truncated netlink error message");
		return EPROTO;
	}
	memcpy(&error, mnl_nlmsg_get_payload(nlh), sizeof(error));
	/* -errno from the kernel; INT_MIN has no positive counterpart */
	if (error == INT_MIN)
		error = EPROTO;
	error = error < 0 ? -error : error;

	if (nlh->nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);

		if (plen < sizeof(*err)) {
			snprintf(buf, len, "truncated netlink error message");
			return EPROTO;
		}
		tlv_off = sizeof(*err);
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED) &&
		    err->msg.nlmsg_len >= MNL_NLMSG_HDRLEN &&
		    sizeof(*err) + err->msg.nlmsg_len - MNL_NLMSG_HDRLEN <=
		    plen) {
			orig = &err->msg;
			tlv_off += err->msg.nlmsg_len - MNL_NLMSG_HDRLEN;
		}
	} else {
		tlv_off = sizeof(int);
	}

	if ((nlh->nlmsg_flags & NLM_F_ACK_TLVS) && MNL_ALIGN(tlv_off) < plen)
		mnl_attr_parse(nlh, (unsigned int)tlv_off, ext_ack_attr_cb, tb);

	if (tb[NLMSGERR_ATTR_MSG] &&
	    !mnl_attr_validate(tb[NLMSGERR_ATTR_MSG], MNL_TYPE_NUL_STRING))
		msg = mnl_attr_get_str(tb[NLMSGERR_ATTR_MSG]);

	if (orig && tb[NLMSGERR_ATTR_OFFS] &&
	    mnl_attr_get_payload_len(tb[NLMSGERR_ATTR_OFFS]) >= 4) {
		char name[96];

		depth = attr_path(orig, hdrlen,
				  mnl_attr_get_u32(tb[NLMSGERR_ATTR_OFFS]),
				  path);
		if (depth) {
			format_path(namer, path, depth, name, sizeof(name));
			snprintf(where, sizeof(where),
				 " (offending attribute %s)", name);
		}
	}
#ifdef NLMSGERR_ATTR_MISS_TYPE
	if (!where[0] && tb[NLMSGERR_ATTR_MISS_TYPE] &&
	    mnl_attr_get_payload_len(tb[NLMSGERR_ATTR_MISS_TYPE]) >= 4) {
		char name[96];

		depth = 0;
		if (orig && tb[NLMSGERR_ATTR_MISS_NEST] &&
		    mnl_attr_get_payload_len(tb[NLMSGERR_ATTR_MISS_NEST]) >= 4)
			depth = attr_path(orig, hdrlen,
				mnl_attr_get_u32(tb[NLMSGERR_ATTR_MISS_NEST]),
				path);
		path[depth++] = (uint16_t)
			mnl_attr_get_u32(tb[NLMSGERR_ATTR_MISS_TYPE]);
		format_path(namer, path, depth, name, sizeof(name));
		snprintf(where, sizeof(where), " (missing attribute %s)",
			 name);
	}
#endif

	if (!error) {
		if (msg) {
			*warn = true;
			snprintf(buf, len, "%s%s", msg, where);
		} else {
			buf[0] = '\0';
		}
		return 0;
	}
	snprintf(buf, len, "%s%s", msg ? msg : strerror(error), where);
	return error;
}

struct talk {
	struct nlsock	*nls;
	bool		dump;
	bool		done;
	bool		intr;
	int		error;
	char		*msgs;		/* a dump, collected */
	size_t		msgs_len;
	size_t		msgs_cap;
	mnl_cb_t	cb;
	void		*data;
};

static int report(struct nlsock *nls, const struct nlmsghdr *nlh)
{
	char msg[512];
	bool warn;
	int err;

	err = nl_format_error(nlh, nls->hdrlen, nls->namer, msg, sizeof(msg),
			      &warn);
	if (err) {
		errno = err;
		if (!nls->quiet)
			fprintf(stderr, "Error: %s\n", msg);
	} else if (warn && !nls->quiet) {
		fprintf(stderr, "Warning: %s\n", msg);
	}
	return err;
}

static int talk_keep(struct talk *t, const struct nlmsghdr *nlh)
{
	size_t need = MNL_ALIGN(nlh->nlmsg_len);
	char *p;

	if (t->msgs_len + need > t->msgs_cap) {
		size_t cap = t->msgs_cap ? t->msgs_cap * 2 : 65536;

		while (cap < t->msgs_len + need)
			cap *= 2;
		p = realloc(t->msgs, cap);
		if (!p)
			return -1;
		t->msgs = p;
		t->msgs_cap = cap;
	}
	memcpy(t->msgs + t->msgs_len, nlh, nlh->nlmsg_len);
	t->msgs_len += need;
	return 0;
}

/* one received buffer: 0 go on, 1 finished, -1 error (errno set) */
static int talk_buf(struct talk *t, const char *buf, size_t len,
		    unsigned int seq)
{
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)buf;
	int rem = (int)len;
	int ret;

	for (; nl_msg_ok(nlh, rem); nlh = mnl_nlmsg_next(nlh, &rem)) {
		if (nlh->nlmsg_seq != seq ||
		    nlh->nlmsg_pid != t->nls->portid)
			continue;	/* stale reply of an earlier request */
		if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
			t->intr = true;
		switch (nlh->nlmsg_type) {
		case NLMSG_NOOP:
			continue;
		case NLMSG_ERROR:
		case NLMSG_DONE:
			if (nlh->nlmsg_type == NLMSG_DONE &&
			    mnl_nlmsg_get_payload_len(nlh) < sizeof(int))
				return 1;
			t->error = report(t->nls, nlh);
			if (t->error) {
				errno = t->error;
				return -1;
			}
			return 1;
		case NLMSG_OVERRUN:
			errno = ENOSPC;
			return -1;
		}
		if (t->dump) {
			if (talk_keep(t, nlh))
				return -1;
			continue;
		}
		if (!t->cb)
			continue;
		ret = t->cb(nlh, t->data);
		if (ret == MNL_CB_ERROR)
			return -1;
		if (ret == MNL_CB_STOP)
			t->cb = NULL;	/* drain to the ACK */
	}
	return 0;
}

static int talk_once(struct talk *t, struct nlmsghdr *nlh)
{
	struct nlsock *nls = t->nls;
	ssize_t n;
	int ret;

	t->intr = false;
	t->msgs_len = 0;
	nlsock_fit(nls, nlh);
	if (mnl_socket_sendto(nls->nl, nlh, nlh->nlmsg_len) < 0) {
		fprintf(stderr, "Error: netlink send: %s\n", strerror(errno));
		return -1;
	}
	for (;;) {
		n = mnl_socket_recvfrom(nls->nl, nls->buf, nls->buflen);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "Error: netlink receive: %s\n",
				strerror(errno));
			return -1;
		}
		ret = talk_buf(t, nls->buf, (size_t)n, nlh->nlmsg_seq);
		if (ret < 0) {
			if (!t->error)
				fprintf(stderr, "Error: netlink: %s\n",
					strerror(errno));
			return -1;
		}
		if (ret > 0)
			return 0;
	}
}

int nlsock_talk(struct nlsock *nls, struct nlmsghdr *nlh, mnl_cb_t cb,
		void *data)
{
	struct talk t = {
		.nls = nls,
		.dump = (nlh->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP,
		.cb = cb,
		.data = data,
	};
	int tries = 0, ret;
	int rem;

	if (t.dump)
		nlh->nlmsg_flags &= (uint16_t)~NLM_F_ACK;
	for (;;) {
		ret = talk_once(&t, nlh);
		if (ret || !t.dump || !t.intr || ++tries >= NLSOCK_DUMP_RETRIES)
			break;
		nlh->nlmsg_seq = ++nls->seq;
	}
	if (ret || !t.dump)
		goto out;
	if (t.intr && !nls->quiet)
		fprintf(stderr,
			"Warning: dump was interrupted and may be inconsistent\n");
	rem = (int)t.msgs_len;
	for (nlh = (struct nlmsghdr *)t.msgs; cb && nl_msg_ok(nlh, rem);
	     nlh = mnl_nlmsg_next(nlh, &rem)) {
		ret = cb(nlh, data);
		if (ret == MNL_CB_ERROR) {
			ret = -1;
			goto out;
		}
		if (ret == MNL_CB_STOP)
			break;
	}
	ret = 0;
out:
	free(t.msgs);
	return ret;
}

/* generic netlink */

struct nlmsghdr *mnlg_msg(struct nlsock *nls, uint8_t cmd, uint16_t flags)
{
	struct nlmsghdr *nlh = nlsock_msg(nls, nls->family, flags);
	struct genlmsghdr *genl;

	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = nls->version;
	return nlh;
}

static int mcgrp_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	uint16_t type = mnl_attr_get_type(attr);

	if (type <= CTRL_ATTR_MCAST_GRP_MAX)
		tb[type] = attr;
	return MNL_CB_OK;
}

static void parse_groups(struct nlsock *nls, const struct nlattr *nest)
{
	const struct nlattr *grp;

	mnl_attr_for_each_nested(grp, nest) {
		const struct nlattr *tb[CTRL_ATTR_MCAST_GRP_MAX + 1] = {};
		struct nl_mcgrp *g;

		if (nls->n_groups >= NLSOCK_MAX_GROUPS)
			break;
		mnl_attr_parse_nested(grp, mcgrp_cb, tb);
		if (!tb[CTRL_ATTR_MCAST_GRP_NAME] ||
		    !tb[CTRL_ATTR_MCAST_GRP_ID])
			continue;
		g = &nls->groups[nls->n_groups++];
		snprintf(g->name, sizeof(g->name), "%s",
			 mnl_attr_get_str(tb[CTRL_ATTR_MCAST_GRP_NAME]));
		g->id = mnl_attr_get_u32(tb[CTRL_ATTR_MCAST_GRP_ID]);
	}
}

static int family_attr_cb(const struct nlattr *attr, void *data)
{
	struct nlsock *nls = data;

	switch (mnl_attr_get_type(attr)) {
	case CTRL_ATTR_FAMILY_ID:
		if (!mnl_attr_validate(attr, MNL_TYPE_U16))
			nls->family = mnl_attr_get_u16(attr);
		break;
	case CTRL_ATTR_MCAST_GROUPS:
		parse_groups(nls, attr);
		break;
	}
	return MNL_CB_OK;
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, GENL_HDRLEN, family_attr_cb, data);
}

struct nlsock *mnlg_open(const char *family, uint8_t version)
{
	struct nlmsghdr *nlh;
	struct nlsock *nls;
	int ret;

	nls = nlsock_open(NETLINK_GENERIC);
	if (!nls)
		return NULL;
	nls->hdrlen = GENL_HDRLEN;
	nls->family = GENL_ID_CTRL;
	nls->version = 1;
	nlh = mnlg_msg(nls, CTRL_CMD_GETFAMILY, 0);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, family);

	nls->quiet = true;
	nls->family = 0;
	ret = nlsock_talk(nls, nlh, family_cb, nls);
	nls->quiet = false;
	if (ret || !nls->family) {
		if (ret && errno != ENOENT)
			fprintf(stderr,
				"Error: cannot resolve generic netlink family \"%s\": %s\n",
				family, strerror(errno));
		else
			fprintf(stderr,
				"Error: generic netlink family \"%s\" not found (is the module loaded?)\n",
				family);
		nlsock_close(nls);
		return NULL;
	}
	nls->version = version;
	return nls;
}

int mnlg_join_group(struct nlsock *nls, const char *group)
{
	unsigned int i;
	int id;

	for (i = 0; i < nls->n_groups; i++) {
		if (strcmp(nls->groups[i].name, group))
			continue;
		id = (int)nls->groups[i].id;
		if (mnl_socket_setsockopt(nls->nl, NETLINK_ADD_MEMBERSHIP,
					  &id, sizeof(id)) < 0) {
			fprintf(stderr, "Error: cannot join group \"%s\": %s\n",
				group, strerror(errno));
			return -1;
		}
		return 0;
	}
	fprintf(stderr, "Error: multicast group \"%s\" not found\n", group);
	return -1;
}

int mnlg_listen(struct nlsock *nls, mnl_cb_t cb, void (*lost)(void *),
		void *data)
{
	ssize_t n;
	int ret;

	for (;;) {
		n = mnl_socket_recvfrom(nls->nl, nls->buf, nls->buflen);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS) {
				if (lost)
					lost(data);
				continue;
			}
			fprintf(stderr, "Error: netlink receive: %s\n",
				strerror(errno));
			return -1;
		}
		ret = mnl_cb_run(nls->buf, nl_msgs_len(nls->buf, (size_t)n),
				 0, 0, cb, data);
		if (ret == MNL_CB_STOP)
			return 0;
		if (ret < 0)
			return -1;
	}
}
