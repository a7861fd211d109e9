// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_mnlg.c - extended ACK formatting of tools/torus/mnlg.c, from fake
 * NLMSG_ERROR / NLMSG_DONE messages
 */
#include <errno.h>
#include <limits.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "mnlg.h"
#include "parse.h"
#include "unit.h"

static char req[1024], ans[2048];

/* a request: TORUS_A_IFINDEX, TORUS_A_ROUTE { DST { x, y } }; returns
 * the offset of DST/y */
static const struct nlmsghdr *request(uint32_t *off)
{
	struct nlmsghdr *nlh;
	struct genlmsghdr *genl;
	struct nlattr *route, *dst, *y;

	memset(req, 0, sizeof(req));
	nlh = mnl_nlmsg_put_header(req);
	nlh->nlmsg_type = 0x20;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = TORUS_CMD_ROUTE_GET;
	mnl_attr_put_u32(nlh, TORUS_A_IFINDEX, 5);
	route = mnl_attr_nest_start(nlh, TORUS_A_ROUTE);
	dst = mnl_attr_nest_start(nlh, TORUS_ROUTE_A_DST);
	mnl_attr_put_u32(nlh, TORUS_AXIS_A(0), 1);
	y = mnl_nlmsg_get_payload_tail(nlh);
	mnl_attr_put_u32(nlh, TORUS_AXIS_A(1), 300);
	mnl_attr_nest_end(nlh, dst);
	mnl_attr_nest_end(nlh, route);
	*off = (uint32_t)((char *)y - (char *)nlh);
	return nlh;
}

/* NLMSG_ERROR for @orig (echoed unless @capped), extack TLVs after */
static struct nlmsghdr *error_msg(const struct nlmsghdr *orig, int error,
				  bool capped)
{
	struct nlmsghdr *nlh;
	struct nlmsgerr *err;
	size_t plen = orig->nlmsg_len - MNL_NLMSG_HDRLEN;

	memset(ans, 0, sizeof(ans));
	nlh = mnl_nlmsg_put_header(ans);
	nlh->nlmsg_type = NLMSG_ERROR;
	err = mnl_nlmsg_put_extra_header(nlh, sizeof(*err));
	err->error = error;
	err->msg = *orig;
	if (capped) {
		nlh->nlmsg_flags |= NLM_F_CAPPED;
	} else {
		memcpy(mnl_nlmsg_put_extra_header(nlh, plen),
		       mnl_nlmsg_get_payload(orig), plen);
	}
	return nlh;
}

#define NO_OFFSET	UINT32_MAX

/* an extended ACK: message @msg (NULL: none), offset @off (NO_OFFSET: none) */
static struct nlmsghdr *extack(const struct nlmsghdr *orig, int error,
			       bool capped, const char *msg, uint32_t off)
{
	struct nlmsghdr *nlh = error_msg(orig, error, capped);

	if (msg)
		mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, msg);
	if (off != NO_OFFSET)
		mnl_attr_put_u32(nlh, NLMSGERR_ATTR_OFFS, off);
	nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
	return nlh;
}

static int fmt(const struct nlmsghdr *nlh, char *buf, size_t len, bool *warn)
{
	return nl_format_error(nlh, GENL_HDRLEN, torus_attr_namer, buf, len,
			       warn);
}

UNIT_TEST(extack_msg_and_offset)
{
	const struct nlmsghdr *orig;
	struct nlmsghdr *nlh;
	char buf[256];
	uint32_t off;
	bool warn;

	orig = request(&off);
	nlh = extack(orig, -EINVAL, false, "coordinate out of range", off);
	UNIT_CHECK(fmt(nlh, buf, sizeof(buf), &warn) == EINVAL);
	UNIT_CHECK(!warn);
	UNIT_STREQ(buf, "coordinate out of range (offending attribute "
			"TORUS_A_ROUTE/TORUS_ROUTE_A_DST/y)");
}

UNIT_TEST(extack_top_level_offset)
{
	const struct nlmsghdr *orig;
	struct nlmsghdr *nlh;
	char buf[256];
	uint32_t off;
	bool warn;

	orig = request(&off);
	nlh = extack(orig, -ENODEV, false, NULL,
		     MNL_NLMSG_HDRLEN + GENL_HDRLEN);
	UNIT_CHECK(fmt(nlh, buf, sizeof(buf), &warn) == ENODEV);
	UNIT_STREQ(buf, "No such device (offending attribute TORUS_A_IFINDEX)");
}

UNIT_TEST(extack_bad_offset_ignored)
{
	const struct nlmsghdr *orig;
	struct nlmsghdr *nlh;
	char buf[256];
	uint32_t off;
	bool warn;

	orig = request(&off);
	nlh = extack(orig, -EINVAL, false, "bad", 100000);
	UNIT_CHECK(fmt(nlh, buf, sizeof(buf), &warn) == EINVAL);
	UNIT_STREQ(buf, "bad");
	/* an offset in the middle of an attribute header names nothing */
	nlh = extack(orig, -EINVAL, false, "bad", off + 2);
	UNIT_CHECK(fmt(nlh, buf, sizeof(buf), &warn) == EINVAL);
	UNIT_STREQ(buf, "bad");
}

UNIT_TEST(extack_capped)
{
	const struct nlmsghdr *orig;
	struct nlmsghdr *nlh;
	char buf[256];
	uint32_t off;
	bool warn;

	orig = request(&off);
	nlh = extack(orig, -EPERM, true, "admin only", off);
	UNIT_CHECK(fmt(nlh, buf, sizeof(buf), &warn) == EPERM);
	UNIT_STREQ(buf, "admin only");
}

UNIT_TEST(extack_none_strerror)
{
	const struct nlmsghdr *orig;
	char buf[256];
	uint32_t off;
	bool warn;

	orig = request(&off);
	UNIT_CHECK(fmt(error_msg(orig, -EOPNOTSUPP, false), buf, sizeof(buf),
		       &warn) == EOPNOTSUPP);
	UNIT_STREQ(buf, strerror(EOPNOTSUPP));
}

UNIT_TEST(extack_missing_attr)
{
	const struct nlmsghdr *orig;
	struct nlmsghdr *nlh;
	char buf[256];
	uint32_t off;
	bool warn;

	orig = request(&off);
	nlh = error_msg(orig, -EINVAL, false);
	mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, "missing attribute");
#ifdef NLMSGERR_ATTR_MISS_TYPE
	mnl_attr_put_u32(nlh, NLMSGERR_ATTR_MISS_TYPE, TORUS_ROUTE_A_DST);
	mnl_attr_put_u32(nlh, NLMSGERR_ATTR_MISS_NEST,
			 off - 2 * MNL_ATTR_HDRLEN - 8);
#endif
	nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
	UNIT_CHECK(fmt(nlh, buf, sizeof(buf), &warn) == EINVAL);
#ifdef NLMSGERR_ATTR_MISS_TYPE
	UNIT_STREQ(buf, "missing attribute (missing attribute "
			"TORUS_A_ROUTE/TORUS_ROUTE_A_DST)");
#endif
}

UNIT_TEST(extack_ack_warning)
{
	const struct nlmsghdr *orig;
	struct nlmsghdr *nlh;
	char buf[256];
	uint32_t off;
	bool warn;

	orig = request(&off);
	nlh = error_msg(orig, 0, true);
	UNIT_CHECK(fmt(nlh, buf, sizeof(buf), &warn) == 0);
	UNIT_CHECK(!warn && buf[0] == '\0');
	mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, "deprecated attribute");
	nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
	UNIT_CHECK(fmt(nlh, buf, sizeof(buf), &warn) == 0);
	UNIT_CHECK(warn);
	UNIT_STREQ(buf, "deprecated attribute");
}

UNIT_TEST(extack_done_error)
{
	struct nlmsghdr *nlh;
	char buf[256];
	int *err;
	bool warn;

	memset(ans, 0, sizeof(ans));
	nlh = mnl_nlmsg_put_header(ans);
	nlh->nlmsg_type = NLMSG_DONE;
	nlh->nlmsg_flags = NLM_F_MULTI | NLM_F_ACK_TLVS;
	err = mnl_nlmsg_put_extra_header(nlh, sizeof(*err));
	*err = -ENODEV;
	mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, "node went away");
	UNIT_CHECK(fmt(nlh, buf, sizeof(buf), &warn) == ENODEV);
	UNIT_STREQ(buf, "node went away");
}

UNIT_TEST(extack_truncated)
{
	struct nlmsghdr *nlh;
	char buf[256];
	bool warn;

	memset(ans, 0, sizeof(ans));
	nlh = mnl_nlmsg_put_header(ans);
	nlh->nlmsg_type = NLMSG_ERROR;
	mnl_nlmsg_put_extra_header(nlh, 2);
	UNIT_CHECK(fmt(nlh, buf, sizeof(buf), &warn) == EPROTO);
	/* claims an echoed request longer than the message: not trusted */
	nlh = error_msg(&(struct nlmsghdr){ .nlmsg_len = MNL_NLMSG_HDRLEN },
			-EINVAL, false);
	((struct nlmsgerr *)mnl_nlmsg_get_payload(nlh))->msg.nlmsg_len = 4000;
	UNIT_CHECK(fmt(nlh, buf, sizeof(buf), &warn) == EINVAL);
	UNIT_STREQ(buf, strerror(EINVAL));
}

/* found by tests/fuzz/fuzz_mnlg: negating INT_MIN is undefined */
UNIT_TEST(error_int_min)
{
	struct nlmsghdr *nlh;
	char buf[256];
	bool warn;

	nlh = error_msg(&(struct nlmsghdr){ .nlmsg_len = MNL_NLMSG_HDRLEN },
			INT_MIN, false);
	UNIT_CHECK(fmt(nlh, buf, sizeof(buf), &warn) == EPROTO);
	UNIT_STREQ(buf, strerror(EPROTO));
}

/*
 * found by tests/fuzz/fuzz_records and fuzz_mnlg: a length of 2 GiB or
 * more passes mnl_nlmsg_ok() and sends the reply loops off the buffer
 */
UNIT_TEST(msg_length_beyond_int)
{
	struct nlmsghdr *nlh;

	memset(ans, 0, sizeof(ans));
	nlh = mnl_nlmsg_put_header(ans);
	UNIT_CHECK(nl_msg_ok(nlh, MNL_NLMSG_HDRLEN));
	UNIT_CHECK(nl_msgs_len(ans, MNL_NLMSG_HDRLEN + 1) == MNL_NLMSG_HDRLEN);
	nlh->nlmsg_len = 0xffffcacaU;
	UNIT_CHECK(!nl_msg_ok(nlh, 17));
	UNIT_CHECK(nl_msgs_len(ans, 17) == 0);
	nlh->nlmsg_len = 0x80000000U;
	UNIT_CHECK(!nl_msg_ok(nlh, 64));
	/* a good message, then a bad one: only the first is taken */
	nlh->nlmsg_len = MNL_NLMSG_HDRLEN;
	((struct nlmsghdr *)(ans + MNL_NLMSG_HDRLEN))->nlmsg_len = 0xfffffff0U;
	UNIT_CHECK(nl_msgs_len(ans, 2 * MNL_NLMSG_HDRLEN) == MNL_NLMSG_HDRLEN);
}

static const struct unit_case cases[] = {
	UNIT_CASE(extack_msg_and_offset),
	UNIT_CASE(extack_top_level_offset),
	UNIT_CASE(extack_bad_offset_ignored),
	UNIT_CASE(extack_capped),
	UNIT_CASE(extack_none_strerror),
	UNIT_CASE(extack_missing_attr),
	UNIT_CASE(extack_ack_warning),
	UNIT_CASE(extack_done_error),
	UNIT_CASE(extack_truncated),
	UNIT_CASE(error_int_min),
	UNIT_CASE(msg_length_beyond_int),
};

UNIT_MAIN(cases)
