// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_mnlg.c - the torus tool's netlink reply handling in
 * tools/torus/mnlg.c: the loop that sorts a received buffer into
 * replies, dump parts, ACKs and errors (talk_buf), the events loop
 * (mnl_cb_run over nl_msgs_len, as mnlg_listen runs it), the extended ACK
 * decoder (nl_format_error, attr_path) and the generic netlink family
 * reply (family_cb: id and multicast groups).  The static functions are
 * reached by including mnlg.c itself.
 *
 * Input: u8 selector (bit 0 dump, bits 1-7 family header length), then
 * a buffer as recvfrom() returns it.  The socket's sequence number and
 * port id are the first message's, so the fuzzer need not guess them.
 * Beyond the sanitizers: error texts are terminated and fit their
 * buffer; the family's groups stay within NLSOCK_MAX_GROUPS.
 */
#include "../../tools/torus/mnlg.c"

#include "fuzz_input.h"
#include "parse.h"

static int mnlg_reply_cb(const struct nlmsghdr *nlh, void *data)
{
	unsigned int *n = data;

	FZ_ASSERT(nlh->nlmsg_len >= sizeof(*nlh));
	return ++*n % 5 ? MNL_CB_OK : MNL_CB_STOP;
}

static void mnlg_errors(const char *buf, size_t size, size_t hdrlen)
{
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)buf;
	char text[512];
	int rem = (int)size;
	bool warn;

	for (; nl_msg_ok(nlh, rem); nlh = mnl_nlmsg_next(nlh, &rem)) {
		if (nlh->nlmsg_type != NLMSG_ERROR &&
		    nlh->nlmsg_type != NLMSG_DONE)
			continue;
		memset(text, 0x55, sizeof(text));
		nl_format_error(nlh, hdrlen, torus_attr_namer, text,
				sizeof(text), &warn);
		FZ_ASSERT(memchr(text, '\0', sizeof(text)));
		nl_format_error(nlh, hdrlen, NULL, text, sizeof(text), &warn);
		FZ_ASSERT(memchr(text, '\0', sizeof(text)));
	}
}

static void mnlg_family(const char *buf, size_t size)
{
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)buf;
	struct nlsock nls = { .quiet = true };
	int rem = (int)size;
	unsigned int i;

	for (; nl_msg_ok(nlh, rem); nlh = mnl_nlmsg_next(nlh, &rem)) {
		if (mnl_nlmsg_get_payload_len(nlh) < GENL_HDRLEN)
			continue;
		family_cb(nlh, &nls);
		FZ_ASSERT(nls.n_groups <= NLSOCK_MAX_GROUPS);
		for (i = 0; i < nls.n_groups; i++)
			FZ_ASSERT(memchr(nls.groups[i].name, '\0',
					 sizeof(nls.groups[i].name)));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = { .p = data, .n = size };
	uint8_t sel = fz_u8(&f);
	struct nlsock nls = { .quiet = true };
	struct talk t = { .nls = &nls, .dump = sel & 1 };
	unsigned int replies = 0;
	size_t hdrlen = sel >> 1;
	unsigned int seq = 0;
	char *buf;

	if (f.n > 65536)
		return 0;
	/* the socket's buffer: aligned, and exactly the bytes received */
	buf = malloc(f.n ? f.n : 1);
	if (!buf)
		return 0;
	memcpy(buf, f.p, f.n);
	if (f.n >= sizeof(struct nlmsghdr)) {
		const struct nlmsghdr *first = (const struct nlmsghdr *)buf;

		seq = first->nlmsg_seq;
		nls.portid = first->nlmsg_pid;
	}
	nls.hdrlen = hdrlen;
	nls.namer = torus_attr_namer;
	t.cb = mnlg_reply_cb;
	t.data = &replies;
	talk_buf(&t, buf, f.n, seq);
	free(t.msgs);
	replies = 0;
	mnl_cb_run(buf, nl_msgs_len(buf, f.n), 0, 0, mnlg_reply_cb, &replies);
	mnlg_errors(buf, f.n, hdrlen);
	mnlg_family(buf, f.n);
	free(buf);
	return 0;
}
