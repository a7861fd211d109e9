// SPDX-License-Identifier: GPL-2.0
/*
 * The fabric frame header: building it, pulling it from an skb and
 * checking it.  A frame from a port is untrusted: every field is checked
 * before it steers anything.
 */
#include <linux/if_ether.h>
#include <linux/skbuff.h>
#include <linux/string.h>

#include "torus_priv.h"

static_assert(sizeof(struct torus_hdr) == TORUS_HDR_LEN);

void torus_hdr_init(struct torus_hdr *h, u8 type, __be16 proto,
		    const u8 *src, const u8 *dst, u8 hop_limit)
{
	memset(h, 0, sizeof(*h));
	h->version = TORUS_HDR_VERSION;
	h->type = type;
	h->hop_limit = hop_limit;
	h->proto = proto;
	memcpy(h->src, src, TORUS_MAX_AXES);
	memcpy(h->dst, dst, TORUS_MAX_AXES);
}

/**
 * torus_hdr_check - validate a received header against the node's frame
 * @h: the header
 * @g: the receiving node's geometry
 *
 * Return: TORUS_PASS if the frame may be forwarded or delivered,
 * otherwise the enum torus_drop_reason to count.
 */
int torus_hdr_check(const struct torus_hdr *h, const struct torus_geom *g)
{
	if (h->version != TORUS_HDR_VERSION)
		return TORUS_DROP_VERSION;
	/* routed collective frames are a node-list group's */
	if (h->type == TORUS_T_COLL) {
		if (h->proto)
			return TORUS_DROP_MALFORMED;
	} else if (h->type != TORUS_T_DATA) {
		return TORUS_DROP_MALFORMED;
	} else if (h->proto != htons(ETH_P_IP) &&
		   h->proto != htons(ETH_P_IPV6)) {
		return TORUS_DROP_PROTO;
	}
	if (h->flags & ~(TORUS_F_VIA | TORUS_F_DETOUR | TORUS_F_PLAN1_MASK) ||
	    ((h->flags & TORUS_F_PLAN1_MASK) && !(h->flags & TORUS_F_VIA)) ||
	    h->vc > TORUS_VC_MAX || h->traversed >> g->ndims)
		return TORUS_DROP_MALFORMED;
	if (!torus_coord_valid(g, h->dst) || !torus_coord_valid(g, h->src))
		return TORUS_DROP_BAD_ADDR;
	if ((h->flags & TORUS_F_VIA) && !torus_coord_valid(g, h->via))
		return TORUS_DROP_BAD_ADDR;
	if (!h->hop_limit)
		return TORUS_DROP_HOP_LIMIT;
	return TORUS_PASS;
}

/**
 * torus_frame_pull - make the header of a received frame linear
 * @skb: frame with data at the torus header (after eth_type_trans)
 * @hp: set to the header
 *
 * Return: false for a truncated frame (count TORUS_DROP_MALFORMED).
 */
bool torus_frame_pull(struct sk_buff *skb, struct torus_hdr **hp)
{
	if (!pskb_may_pull(skb, TORUS_HDR_LEN))
		return false;
	*hp = (struct torus_hdr *)skb->data;
	return true;
}
