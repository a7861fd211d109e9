// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * frame.c - control frame codec and the default node id
 */
#include <stdlib.h>
#include <string.h>

#include "frame.h"

static const uint8_t eth_bcast[TD_ETH_ALEN] = {
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff
};

size_t td_frame_build(uint8_t *buf, size_t cap,
		      const uint8_t src[TD_ETH_ALEN], const uint8_t *msg,
		      size_t len)
{
	struct torus_hdr h;

	if (len > cap || cap - len < TD_FRAME_HLEN)
		return 0;
	memcpy(buf, eth_bcast, TD_ETH_ALEN);
	memcpy(buf + TD_ETH_ALEN, src, TD_ETH_ALEN);
	buf[12] = ETH_P_TORUS >> 8;
	buf[13] = ETH_P_TORUS & 0xff;

	memset(&h, 0, sizeof(h));
	h.version = TORUS_HDR_VERSION;
	h.type = TORUS_T_CTRL;
	h.hop_limit = 1;	/* one hop: the neighbor's daemon */
	memcpy(buf + TD_ETH_HLEN, &h, TORUS_HDR_LEN);
	if (len)
		memcpy(buf + TD_FRAME_HLEN, msg, len);
	return TD_FRAME_HLEN + len;
}

int td_frame_parse(const uint8_t *buf, size_t buflen, const uint8_t **msg,
		   size_t *len)
{
	const uint8_t *h = buf + TD_ETH_HLEN;

	if (buflen < TD_FRAME_HLEN)
		return TD_FRAME_SHORT;
	if (buf[12] != (ETH_P_TORUS >> 8) || buf[13] != (ETH_P_TORUS & 0xff))
		return TD_FRAME_ETHERTYPE;
	if (h[offsetof(struct torus_hdr, version)] != TORUS_HDR_VERSION)
		return TD_FRAME_VERSION;
	if (h[offsetof(struct torus_hdr, type)] != TORUS_T_CTRL)
		return TD_FRAME_TYPE;
	if (buflen == TD_FRAME_HLEN)
		return TD_FRAME_EMPTY;
	*msg = buf + TD_FRAME_HLEN;
	*len = buflen - TD_FRAME_HLEN;
	return TD_FRAME_OK;
}

const char *td_frame_strerror(int err)
{
	static const char *const names[__TD_FRAME_ERR_MAX] = {
		[TD_FRAME_OK] = "ok",
		[TD_FRAME_SHORT] = "truncated headers",
		[TD_FRAME_ETHERTYPE] = "not a torus frame",
		[TD_FRAME_VERSION] = "unknown header version",
		[TD_FRAME_TYPE] = "not a control frame",
		[TD_FRAME_EMPTY] = "no message",
	};

	if (err < 0 || err >= __TD_FRAME_ERR_MAX)
		return "?";
	return names[err];
}

static int mac_cmp(const void *a, const void *b)
{
	return memcmp(a, b, TD_ETH_ALEN);
}

uint64_t td_mac_id(uint8_t (*macs)[TD_ETH_ALEN], unsigned int n)
{
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a 64 */
	unsigned int i, j;

	if (n > 1)
		qsort(macs, n, TD_ETH_ALEN, mac_cmp);
	for (i = 0; i < n; i++) {
		for (j = 0; j < TD_ETH_ALEN; j++) {
			h ^= macs[i][j];
			h *= 0x100000001b3ULL;
		}
	}
	/* splitmix64's finalizer, so that close MACs give distant ids */
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebULL;
	h ^= h >> 31;
	return h ? h : 1;
}
