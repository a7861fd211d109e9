// SPDX-License-Identifier: GPL-2.0
/*
 * Software segmentation of fabric frames (ethertype 0x88B5), as NSH and
 * GRE do for theirs: the inner IP packet is segmented and every segment
 * gets a copy of the Ethernet and torus headers.  The core calls this
 * when a port cannot take a GSO frame whole (no checksum offload for
 * the ethertype, GSO turned off); the data path calls it for every port
 * that is not a torport.
 */
#include <linux/if_ether.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>

#include "torus_priv.h"

/* Called with data at the torus header, the Ethernet header before it. */
static struct sk_buff *torus_gso_segment(struct sk_buff *skb,
					 netdev_features_t features)
{
	struct sk_buff *segs = ERR_PTR(-EINVAL);
	u16 mac_offset = skb->mac_header;
	int mac_len = skb->mac_len;
	const struct torus_hdr *h;
	__be16 proto;

	if (unlikely(!pskb_may_pull(skb, TORUS_HDR_LEN)))
		return segs;
	h = (const struct torus_hdr *)skb->data;
	proto = h->proto;
	if (h->type != TORUS_T_DATA ||
	    (proto != htons(ETH_P_IP) && proto != htons(ETH_P_IPV6)))
		return segs;

	__skb_pull(skb, TORUS_HDR_LEN);
	skb_reset_mac_header(skb);
	skb->mac_len = 0;
	skb->protocol = proto;
	/* the port checksums by offset at best, never by protocol */
	features &= NETIF_F_SG | NETIF_F_HW_CSUM | NETIF_F_FRAGLIST |
		    NETIF_F_HIGHDMA;
	segs = skb_mac_gso_segment(skb, features);
	if (IS_ERR_OR_NULL(segs)) {
		skb_gso_error_unwind(skb, htons(ETH_P_TORUS), TORUS_HDR_LEN,
				     mac_offset, mac_len);
		return segs;
	}

	/* each segment starts at its inner IP header, the copied headers
	 * before it: start it at the Ethernet header again
	 */
	for (skb = segs; skb; skb = skb->next) {
		__skb_push(skb, TORUS_HDR_LEN + mac_len);
		skb_reset_mac_header(skb);
		skb_set_network_header(skb, mac_len);
		skb->mac_len = mac_len;
		skb->protocol = htons(ETH_P_TORUS);
	}
	return segs;
}

static struct packet_offload torus_packet_offload __read_mostly = {
	.type = cpu_to_be16(ETH_P_TORUS),
	.priority = 15,
	.callbacks = {
		.gso_segment = torus_gso_segment,
	},
};

void torus_gso_init(void)
{
	dev_add_offload(&torus_packet_offload);
}

void torus_gso_exit(void)
{
	dev_remove_offload(&torus_packet_offload);
}
