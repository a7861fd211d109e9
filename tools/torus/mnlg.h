/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mnlg.h - libmnl helpers: netlink sockets that send a request and run
 * its replies to the ACK or the end of the dump, printing extended ACK
 * errors as "Error: <msg>", plus generic netlink family resolution.
 */
#ifndef TORUS_MNLG_H
#define TORUS_MNLG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libmnl/libmnl.h>

#define NLSOCK_MAX_GROUPS	8
#define NLSOCK_MAX_DEPTH	8

/*
 * Names the attribute at @path[0] / @path[1] / ... (types, outermost
 * first) for error messages; NULL means numbers only.
 */
typedef void (*nl_attr_namer_t)(const uint16_t *path, unsigned int depth,
				char *buf, size_t len);

struct nl_mcgrp {
	char		name[32];
	uint32_t	id;
};

struct nlsock {
	struct mnl_socket	*nl;
	char			*buf;		/* receive buffer */
	size_t			buflen;
	char			*sbuf;		/* the request being built */
	size_t			sbuflen;
	unsigned int		seq;
	unsigned int		portid;
	size_t			hdrlen;		/* family header length */
	nl_attr_namer_t		namer;
	bool			quiet;		/* do not print errors */
	/* generic netlink */
	uint16_t		family;
	uint8_t			version;
	unsigned int		n_groups;
	struct nl_mcgrp		groups[NLSOCK_MAX_GROUPS];
};

/*
 * Whether a whole message starts at @nlh with @len bytes left.
 * mnl_nlmsg_ok() compares nlmsg_len as an int: a length of 2 GiB or
 * more passes as negative and mnl_nlmsg_next() then steps far outside
 * the buffer.
 */
static inline bool nl_msg_ok(const struct nlmsghdr *nlh, int len)
{
	return len >= (int)sizeof(*nlh) && nlh->nlmsg_len >= sizeof(*nlh) &&
	       nlh->nlmsg_len <= (unsigned int)len;
}

/* the length of the whole messages at the start of @buf (nl_msg_ok) */
size_t nl_msgs_len(const void *buf, size_t len);

/* NETLINK_ROUTE or NETLINK_GENERIC; prints the error on failure */
struct nlsock *nlsock_open(int bus);
void nlsock_close(struct nlsock *nls);

/* room for a request of @len bytes, before nlsock_msg(); 0 or -1 */
int nlsock_reserve(struct nlsock *nls, size_t len);

/* a new request with NLM_F_REQUEST | NLM_F_ACK | @flags */
struct nlmsghdr *nlsock_msg(struct nlsock *nls, uint16_t type,
			    uint16_t flags);

/*
 * Send @nlh and run @cb on each reply up to the ACK, or the end of a dump.
 * A dump is collected first and re-requested if the kernel flags it as
 * interrupted (NLM_F_DUMP_INTR), so @cb sees one consistent dump.
 * Returns 0, or -1 with errno set and the error printed.
 */
int nlsock_talk(struct nlsock *nls, struct nlmsghdr *nlh, mnl_cb_t cb,
		void *data);

/* generic netlink: open a socket for @family; prints why on failure */
struct nlsock *mnlg_open(const char *family, uint8_t version);
struct nlmsghdr *mnlg_msg(struct nlsock *nls, uint8_t cmd, uint16_t flags);
int mnlg_join_group(struct nlsock *nls, const char *group);
/*
 * Run @cb on every notification until it returns MNL_CB_STOP or an
 * error; lost events (ENOBUFS) call @lost and go on.
 */
int mnlg_listen(struct nlsock *nls, mnl_cb_t cb, void (*lost)(void *),
		void *data);

/*
 * Format the error carried by an NLMSG_ERROR or NLMSG_DONE message:
 * "<extack msg or strerror> (offending attribute NAME)".  Returns the
 * (positive) errno, 0 for a plain ACK; @warn is set when a successful
 * ACK carries a message.
 */
int nl_format_error(const struct nlmsghdr *nlh, size_t hdrlen,
		    nl_attr_namer_t namer, char *buf, size_t len, bool *warn);

#endif /* TORUS_MNLG_H */
