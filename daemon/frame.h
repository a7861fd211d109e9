/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * frame.h - control frames on the ports: Ethernet header, struct
 * torus_hdr, then the core's message.  Pure functions, unit-tested in
 * tests/unit/daemon_frame.c.
 */
#ifndef TORUSD_FRAME_H
#define TORUSD_FRAME_H

#include <stddef.h>
#include <stdint.h>
#include <linux/torus.h>

#define TD_ETH_ALEN	6
#define TD_ETH_HLEN	14
#define TD_FRAME_HLEN	(TD_ETH_HLEN + TORUS_HDR_LEN)

/* why td_frame_parse() refused a frame */
enum td_frame_err {
	TD_FRAME_OK = 0,
	TD_FRAME_SHORT,		/* shorter than the two headers */
	TD_FRAME_ETHERTYPE,	/* not ETH_P_TORUS */
	TD_FRAME_VERSION,	/* unknown torus_hdr version */
	TD_FRAME_TYPE,		/* not TORUS_T_CTRL */
	TD_FRAME_EMPTY,		/* no message after the headers */
	__TD_FRAME_ERR_MAX
};

/*
 * Build a broadcast control frame from @src carrying @msg in @buf.
 * Returns the frame length, 0 if it does not fit in @cap.
 */
size_t td_frame_build(uint8_t *buf, size_t cap,
		      const uint8_t src[TD_ETH_ALEN], const uint8_t *msg,
		      size_t len);

/*
 * Check the headers of a received frame; on success point @msg/@len at
 * the message.  Returns enum td_frame_err.
 */
int td_frame_parse(const uint8_t *buf, size_t buflen, const uint8_t **msg,
		   size_t *len);

const char *td_frame_strerror(int err);

/*
 * The default node id: a hash of the ports' MAC addresses, independent
 * of their order, never 0.  @macs is sorted in place.
 */
uint64_t td_mac_id(uint8_t (*macs)[TD_ETH_ALEN], unsigned int n);

#endif /* TORUSD_FRAME_H */
