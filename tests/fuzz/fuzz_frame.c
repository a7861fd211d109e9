// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_frame.c - the daemon's control frame parser (td_frame_parse in
 * daemon/frame.c) on whatever a packet socket hands torusd, and the
 * default node id (td_mac_id) on whatever MAC addresses the ports have.
 *
 * Input: a received frame from the Ethernet header on.
 * Beyond the sanitizers: an accepted frame's message lies inside the
 * frame right after the headers; td_frame_build() of that message gives
 * a frame td_frame_parse() accepts with the same message; every result
 * has a name; the node id of the input read as MAC addresses is never 0
 * and does not depend on the order of the addresses.
 */
#include <string.h>

#include "frame.h"
#include "fuzz_input.h"

#define FRAME_MAX_MACS	16

static void frame_roundtrip(const uint8_t *msg, size_t len)
{
	static const uint8_t src[TD_ETH_ALEN] = { 0x02, 0, 0, 0, 0, 0x01 };
	const uint8_t *msg2;
	uint8_t *buf;
	size_t cap = TD_FRAME_HLEN + len, n, len2;

	buf = malloc(cap);
	if (!buf)
		return;
	n = td_frame_build(buf, cap, src, msg, len);
	FZ_ASSERT(n == cap);
	FZ_ASSERT(td_frame_build(buf, cap - 1, src, msg, len) == 0);
	FZ_ASSERT(td_frame_parse(buf, n, &msg2, &len2) == TD_FRAME_OK);
	FZ_ASSERT(len2 == len && !memcmp(msg2, msg, len));
	free(buf);
}

static void frame_mac_id(const uint8_t *data, size_t size)
{
	uint8_t macs[FRAME_MAX_MACS][TD_ETH_ALEN];
	uint8_t rev[FRAME_MAX_MACS][TD_ETH_ALEN];
	unsigned int n = (unsigned int)(size / TD_ETH_ALEN), i;

	if (n > FRAME_MAX_MACS)
		n = FRAME_MAX_MACS;
	memcpy(macs, data, n * TD_ETH_ALEN);
	for (i = 0; i < n; i++)
		memcpy(rev[i], macs[n - 1 - i], TD_ETH_ALEN);
	FZ_ASSERT(td_mac_id(macs, n) != 0);
	FZ_ASSERT(td_mac_id(macs, n) == td_mac_id(rev, n));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *msg = NULL;
	size_t len = 0;
	uint8_t *frame;
	int err;

	/* exactly the frame's bytes, so ASan sees any read past them */
	frame = malloc(size ? size : 1);
	if (!frame)
		return 0;
	memcpy(frame, data, size);
	err = td_frame_parse(frame, size, &msg, &len);
	FZ_ASSERT(err >= 0 && err < __TD_FRAME_ERR_MAX);
	FZ_ASSERT(strcmp(td_frame_strerror(err), "?"));
	if (err == TD_FRAME_OK) {
		FZ_ASSERT(msg == frame + TD_FRAME_HLEN);
		FZ_ASSERT(len && len == size - TD_FRAME_HLEN);
		frame_roundtrip(msg, len);
	} else {
		FZ_ASSERT(!msg);
	}
	free(frame);
	frame_mac_id(data, size);
	return 0;
}
