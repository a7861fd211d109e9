// SPDX-License-Identifier: GPL-2.0
/*
 * The data path.  Packets the node device sends get a torus header with
 * the destination's coordinates (from the address plan) and leave by the
 * port the route picks.  Frames arriving on a port are forwarded hop by
 * hop without touching the IP stack of transit nodes, and delivered to
 * the node device at their destination.  Every drop is counted by reason.
 */
#include <linux/etherdevice.h>
#include <linux/if_ether.h>
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>

#include "torus_priv.h"
#include "torus_coll.h"

/* The kernel's reason for a drop (drop monitors, skb:kfree_skb). */
enum skb_drop_reason torus_skb_drop_reason(enum torus_drop_reason r)
{
	switch (r) {
	case TORUS_DROP_MALFORMED:
		return SKB_DROP_REASON_HDR_TRUNC;
	case TORUS_DROP_VERSION:
	case TORUS_DROP_PROTO:
	case TORUS_DROP_VLAN:
		return SKB_DROP_REASON_UNHANDLED_PROTO;
	case TORUS_DROP_SPOOFED:
		/* a source its arrival port cannot have: as rp_filter */
		return SKB_DROP_REASON_IP_RPFILTER;
	case TORUS_DROP_NOT_PLACED:
	case TORUS_DROP_LINK_DOWN:
	case TORUS_DROP_NO_PEER:
		return SKB_DROP_REASON_DEV_READY;
	case TORUS_DROP_BAD_ADDR:
		return SKB_DROP_REASON_IP_INADDRERRORS;
	case TORUS_DROP_NO_PORT:
	case TORUS_DROP_NO_PLAN:
		return SKB_DROP_REASON_IP_INNOROUTES;
	case TORUS_DROP_HOP_LIMIT:
		return SKB_DROP_REASON_IP_INHDR;
	case TORUS_DROP_NOMEM:
		return SKB_DROP_REASON_NOMEM;
	case TORUS_DROP_TOO_BIG:
		return SKB_DROP_REASON_PKT_TOO_BIG;
	case TORUS_DROP_OTHER_HOST:
		return SKB_DROP_REASON_OTHERHOST;
	case TORUS_DROP_RX_FULL:
		return SKB_DROP_REASON_FULL_RING;
	default:
		return SKB_DROP_REASON_NOT_SPECIFIED;
	}
}

static void torus_drop(struct torus_node *node, struct torus_port *port,
		       struct sk_buff *skb, enum torus_drop_reason reason)
{
	torus_stats_drop(node->stats, reason);
	if (port)
		torus_stats_drop(port->stats, reason);
	kfree_skb_reason(skb, torus_skb_drop_reason(reason));
}

/* Point-to-point cables address the peer; other Ethernet ports flood. */
static void torus_eth_dest(struct net_device *odev, u8 *dest)
{
	struct net_device *peer = NULL;

	if (netif_is_torport(odev)) {
		struct torport_priv *priv = netdev_priv(odev);

		peer = rcu_dereference(priv->peer);
	}
	if (peer)
		ether_addr_copy(dest, peer->dev_addr);
	else
		eth_broadcast_addr(dest);
}

/* Put the Ethernet header on a frame (data at its torus header) and
 * queue it on the port.
 */
static void torus_port_queue(struct torus_port *out, struct sk_buff *skb)
{
	struct net_device *odev = out->dev;
	struct ethhdr *eth;

	skb_reset_network_header(skb);
	eth = skb_push(skb, ETH_HLEN);
	skb_reset_mac_header(skb);
	skb->mac_len = ETH_HLEN;
	eth->h_proto = htons(ETH_P_TORUS);
	ether_addr_copy(eth->h_source, odev->dev_addr);
	torus_eth_dest(odev, eth->h_dest);
	skb->dev = odev;
	skb->protocol = htons(ETH_P_TORUS);
	torus_stats_tx(out->stats, skb->len);
	dev_queue_xmit(skb);
}

/* A torport takes GSO frames whole (its peer's receiver handles them);
 * any other port gets them segmented here, since no NIC can parse the
 * fabric header for TSO.
 */
static void torus_port_queue_segments(struct torus_node *node,
				      struct torus_port *out,
				      struct sk_buff *skb)
{
	netdev_features_t features;
	struct sk_buff *segs, *next;

	skb_reset_network_header(skb);
	skb_push(skb, ETH_HLEN);
	skb_reset_mac_header(skb);
	skb->mac_len = ETH_HLEN;
	skb->protocol = htons(ETH_P_TORUS);
	skb->dev = out->dev;
	features = netif_skb_features(skb) & ~NETIF_F_GSO_MASK;
	segs = skb_gso_segment(skb, features);
	if (IS_ERR(segs)) {
		torus_drop(node, out, skb,
			   PTR_ERR(segs) == -ENOMEM ? TORUS_DROP_NOMEM :
						      TORUS_DROP_MALFORMED);
		return;
	}
	if (!segs) {
		/* it fits in one frame after all */
		__skb_pull(skb, ETH_HLEN);
		torus_port_queue(out, skb);
		return;
	}
	consume_skb(skb);
	skb_list_walk_safe(segs, skb, next) {
		skb_mark_not_on_list(skb);
		__skb_pull(skb, ETH_HLEN);
		torus_port_queue(out, skb);
	}
}

/* The port can take a frame now. */
static bool torus_port_usable(const struct torus_port *port)
{
	return port && netif_running(port->dev) && netif_carrier_ok(port->dev);
}

/**
 * torus_fib_usable - the directions whose port can send now
 * @fib: the node's forwarding state
 *
 * Return: a bit per global direction of the node's axes.
 */
u16 torus_fib_usable(const struct torus_fib *fib)
{
	unsigned int dir;
	u16 usable = 0;

	for (dir = 0; dir < 2 * fib->geom.ndims; dir++)
		if (torus_port_usable(fib->map[dir]))
			usable |= BIT(dir);
	return usable;
}

/* Route a frame here: TORUS_PASS with *dir set, or a drop reason. */
static int torus_fwd_route(struct torus_node *node,
			   const struct torus_fib *fib, struct torus_hdr *h,
			   u8 in_dir, bool at_source, u8 *dir)
{
	struct torus_route_ctx ctx = {
		.g = &fib->geom,
		.rt = rcu_dereference(node->routes),
		.plans = rcu_dereference(node->plans),
		.usable = torus_fib_usable(fib),
		.in_dir = in_dir,
		.at_source = at_source,
	};
	u8 why;

	*dir = torus_route(&ctx, h, &why);
	if (unlikely(*dir == TORUS_ROUTE_NO_PLAN))
		return TORUS_DROP_NO_PLAN;
	if (unlikely(why == TORUS_WHY_DETOUR))
		torus_stats_detour(node->stats);
	return TORUS_PASS;
}

/* Send a frame (data at its torus header) out of the port for @dir. */
static void torus_port_send(struct torus_node *node,
			    const struct torus_fib *fib, struct sk_buff *skb,
			    u8 dir)
{
	struct torus_port *out = dir < TORUS_MAX_DIRS ? fib->map[dir] : NULL;
	struct net_device *odev;

	if (unlikely(!out)) {
		torus_drop(node, NULL, skb, TORUS_DROP_NO_PORT);
		return;
	}
	odev = out->dev;
	if (unlikely(!torus_port_usable(out))) {
		torus_drop(node, out, skb, TORUS_DROP_LINK_DOWN);
		return;
	}
	if (unlikely(skb_cow_head(skb, ETH_HLEN))) {
		torus_drop(node, out, skb, TORUS_DROP_NOMEM);
		return;
	}
	if (skb_is_gso(skb) && !netif_is_torport(odev))
		torus_port_queue_segments(node, out, skb);
	else
		torus_port_queue(out, skb);
}

/* A collective frame (data at its torus header) to the neighbour in
 * @dir.  Under rcu_read_lock(), bottom halves off (per-CPU counters).
 */
void torus_coll_xmit(struct torus_node *node, struct sk_buff *skb, u8 dir)
{
	const struct torus_fib *fib = rcu_dereference(node->fib);

	lockdep_assert_in_softirq();

	if (unlikely(!fib)) {
		torus_drop(node, NULL, skb, TORUS_DROP_NOT_PLACED);
		return;
	}
	torus_port_send(node, fib, skb, dir);
}

/*
 * A node-list group's frame (data at its torus header) to another member,
 * routed from here as a packet of the node's own would be.  Under
 * rcu_read_lock().
 */
void torus_coll_route_xmit(struct torus_node *node, struct sk_buff *skb)
{
	const struct torus_fib *fib = rcu_dereference(node->fib);
	int reason;
	u8 dir;

	lockdep_assert_in_softirq();

	if (unlikely(!fib || !fib->placed)) {
		torus_drop(node, NULL, skb, TORUS_DROP_NOT_PLACED);
		return;
	}
	reason = torus_fwd_route(node, fib, (struct torus_hdr *)skb->data,
				 TORUS_DIR_NONE, true, &dir);
	if (unlikely(reason == TORUS_PASS && dir == TORUS_DIR_NONE))
		reason = TORUS_DROP_MALFORMED;	/* not a member's own */
	if (unlikely(reason != TORUS_PASS)) {
		torus_drop(node, NULL, skb, reason);
		return;
	}
	torus_port_send(node, fib, skb, dir);
}

void torus_coll_drop(struct torus_node *node, struct torus_port *port,
		     struct sk_buff *skb, enum torus_drop_reason reason)
{
	torus_drop(node, port, skb, reason);
}

/* Strip the torus header and hand the packet to the node device. */
static void torus_deliver_prepare(struct torus_node *node,
				  struct sk_buff *skb, __be16 proto)
{
	skb_pull_rcsum(skb, TORUS_HDR_LEN);
	skb->protocol = proto;
	skb->dev = node->dev;
	skb->pkt_type = PACKET_HOST;
	skb_reset_network_header(skb);
	skb_reset_mac_header(skb);
	skb->mac_len = 0;
	torus_stats_rx(node->stats, skb->len);
}

/* Source or destination coordinates from the IP header at @off, by the
 * address plan: TORUS_PASS or a drop reason.
 */
static int torus_skb_ip_coord(struct sk_buff *skb, unsigned int off,
			      __be16 proto, const struct torus_geom *g,
			      bool src, u8 *coord)
{
	switch (proto) {
	case htons(ETH_P_IP): {
		const struct iphdr *iph;

		if (!pskb_may_pull(skb, off + sizeof(*iph)))
			return TORUS_DROP_MALFORMED;
		iph = (const struct iphdr *)(skb->data + off);
		if (iph->version != 4)
			return TORUS_DROP_MALFORMED;
		if (g->ndims > TORUS_IPV4_MAX_AXES)
			return TORUS_DROP_BAD_ADDR;
		if (torus_addr4_to_coord(g, src ? iph->saddr : iph->daddr,
					 coord))
			return TORUS_DROP_BAD_ADDR;
		return TORUS_PASS;
	}
	case htons(ETH_P_IPV6): {
		const struct ipv6hdr *ip6h;

		if (!pskb_may_pull(skb, off + sizeof(*ip6h)))
			return TORUS_DROP_MALFORMED;
		ip6h = (const struct ipv6hdr *)(skb->data + off);
		if (ip6h->version != 6)
			return TORUS_DROP_MALFORMED;
		if (torus_addr6_to_coord(g, src ? &ip6h->saddr : &ip6h->daddr,
					 coord))
			return TORUS_DROP_BAD_ADDR;
		return TORUS_PASS;
	}
	default:
		return TORUS_DROP_PROTO;
	}
}

/* A frame for this node: its inner source address must be the address
 * of the header's source coordinates, or a neighbour could speak for
 * any node.  TORUS_PASS or TORUS_DROP_SPOOFED / _MALFORMED.
 */
static int torus_check_source(struct sk_buff *skb,
			      const struct torus_geom *g)
{
	const struct torus_hdr *h = (const struct torus_hdr *)skb->data;
	u8 src[TORUS_MAX_AXES];
	int reason;

	reason = torus_skb_ip_coord(skb, TORUS_HDR_LEN, h->proto, g, true,
				    src);
	if (reason == TORUS_DROP_MALFORMED)
		return reason;
	/* pskb_may_pull() may have moved the header */
	h = (const struct torus_hdr *)skb->data;
	if (reason != TORUS_PASS || memcmp(src, h->src, TORUS_MAX_AXES))
		return TORUS_DROP_SPOOFED;
	return TORUS_PASS;
}

netdev_tx_t torus_node_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct torus_node *node = netdev_priv(dev);
	const struct torus_fib *fib;
	u8 dst[TORUS_MAX_AXES], dir;
	struct torus_hdr *h;
	int reason;

	rcu_read_lock();
	fib = rcu_dereference(node->fib);
	if (unlikely(!fib || !fib->placed)) {
		reason = TORUS_DROP_NOT_PLACED;
		goto drop;
	}
	/* a lamb forwards for others but is no endpoint */
	if (unlikely(READ_ONCE(node->role) == TORUS_ROLE_LAMB)) {
		reason = TORUS_DROP_LAMB;
		goto drop;
	}
	reason = torus_skb_ip_coord(skb, 0, skb->protocol, &fib->geom, false,
				    dst);
	if (unlikely(reason != TORUS_PASS))
		goto drop;
	if (unlikely(skb_cow_head(skb, TORUS_NEEDED_HEADROOM))) {
		reason = TORUS_DROP_NOMEM;
		goto drop;
	}
	torus_stats_tx(node->stats, skb->len);

	h = skb_push(skb, TORUS_HDR_LEN);
	torus_hdr_init(h, TORUS_T_DATA, skb->protocol, fib->geom.coord, dst,
		       fib->hop_limit);
	reason = torus_fwd_route(node, fib, h, TORUS_DIR_NONE, true, &dir);
	if (unlikely(reason != TORUS_PASS))
		goto drop;
	if (dir == TORUS_DIR_NONE) {
		/* to ourselves: normally the stack loops this back itself */
		torus_deliver_prepare(node, skb, h->proto);
		netif_rx(skb);
	} else {
		torus_port_send(node, fib, skb, dir);
	}
	rcu_read_unlock();
	return NETDEV_TX_OK;

drop:
	torus_drop(node, NULL, skb, reason);
	rcu_read_unlock();
	return NETDEV_TX_OK;
}

/* rx_handler of every port: called under RCU in softirq. */
rx_handler_result_t torus_handle_frame(struct sk_buff **pskb)
{
	struct sk_buff *skb = *pskb;
	struct torus_port *port = rcu_dereference(skb->dev->rx_handler_data);
	struct torus_node *node = port->node;
	const struct torus_fib *fib;
	struct torus_hdr *h;
	int reason;
	u8 dir;

	if (skb->protocol != htons(ETH_P_TORUS))
		return RX_HANDLER_PASS;
	/* The fabric carries only untagged frames for this host: a tag
	 * would leave with the frame again, a frame for another host was
	 * only seen because the port is promiscuous.
	 */
	if (unlikely(skb_vlan_tag_present(skb))) {
		torus_drop(node, port, skb, TORUS_DROP_VLAN);
		return RX_HANDLER_CONSUMED;
	}
	if (unlikely(skb->pkt_type == PACKET_OTHERHOST)) {
		torus_drop(node, port, skb, TORUS_DROP_OTHER_HOST);
		return RX_HANDLER_CONSUMED;
	}

	skb = skb_share_check(skb, GFP_ATOMIC);
	if (unlikely(!skb)) {
		torus_stats_drop(node->stats, TORUS_DROP_NOMEM);
		return RX_HANDLER_CONSUMED;
	}
	*pskb = skb;

	if (unlikely(!torus_frame_pull(skb, &h))) {
		reason = TORUS_DROP_MALFORMED;
		goto drop;
	}
	torus_stats_rx(port->stats, skb->len);
	/* control frames are the daemon's: pass them to packet sockets */
	if (h->type == TORUS_T_CTRL && h->version == TORUS_HDR_VERSION)
		return RX_HANDLER_PASS;
	/* The frame has left its sender's node: release the sender's socket
	 * now, as ip_rcv() does, or every hop of the path holds its send
	 * buffer and TCP small queues (a 31-hop path starves TCP).
	 */
	skb_orphan(skb);
	/* Collectives are consumed by the engine where they are addressed
	 * (one-hop frames always: it drops the misaddressed); a node-list
	 * group's frame for another member goes on as data does.
	 */
	fib = rcu_dereference(node->fib);
	if (h->type == TORUS_T_COLL &&
	    (!fib || !fib->placed || h->hop_limit <= 1 ||
	     !memcmp(h->dst, fib->geom.coord, TORUS_MAX_AXES))) {
		torus_coll_rx(node, port, skb);
		return RX_HANDLER_CONSUMED;
	}

	if (unlikely(!fib || !fib->placed)) {
		reason = TORUS_DROP_NOT_PLACED;
		goto drop;
	}
	reason = torus_hdr_check(h, &fib->geom);
	if (unlikely(reason != TORUS_PASS))
		goto drop;
	if (unlikely(skb_ensure_writable(skb, TORUS_HDR_LEN))) {
		reason = TORUS_DROP_NOMEM;
		goto drop;
	}
	h = (struct torus_hdr *)skb->data;

	reason = torus_fwd_route(node, fib, h,
				 torus_port_global_dir(fib, port), false, &dir);
	if (unlikely(reason != TORUS_PASS))
		goto drop;
	if (dir == TORUS_DIR_NONE) {
		/* a collective frame for here went to the engine above */
		if (unlikely(h->type != TORUS_T_DATA)) {
			reason = TORUS_DROP_MALFORMED;
			goto drop;
		}
		if (unlikely(READ_ONCE(node->role) == TORUS_ROLE_LAMB)) {
			reason = TORUS_DROP_LAMB;
			goto drop;
		}
		reason = torus_check_source(skb, &fib->geom);
		if (unlikely(reason != TORUS_PASS))
			goto drop;
		h = (struct torus_hdr *)skb->data;
		torus_deliver_prepare(node, skb, h->proto);
		return RX_HANDLER_ANOTHER;
	}
	if (unlikely(h->hop_limit <= 1)) {
		reason = TORUS_DROP_HOP_LIMIT;
		goto drop;
	}
	/* the header changes: a checksum of the whole frame goes stale */
	skb_forward_csum(skb);
	h->hop_limit--;
	torus_stats_fwd(node->stats);
	torus_port_send(node, fib, skb, dir);
	return RX_HANDLER_CONSUMED;

drop:
	torus_drop(node, port, skb, reason);
	return RX_HANDLER_CONSUMED;
}
