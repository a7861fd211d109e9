// SPDX-License-Identifier: GPL-2.0
/*
 * ethtool for node devices and torport cables: driver information and
 * the fabric's counters, every drop reason by name (ethtool -S).
 */
#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <linux/string.h>

#include "torus_priv.h"

static const char *const torus_drop_names[] = TORUS_DROP_NAMES;
static_assert(ARRAY_SIZE(torus_drop_names) == __TORUS_DROP_MAX);

static const char *const torus_counter_names[] = {
	"rx_packets", "rx_bytes", "tx_packets", "tx_bytes", "fwd_packets",
	"detours", "drops",
};

#define TORUS_ETHTOOL_STATS \
	(ARRAY_SIZE(torus_counter_names) + __TORUS_DROP_MAX)

static void torus_get_drvinfo(struct net_device *dev,
			      struct ethtool_drvinfo *info)
{
	strscpy(info->driver, netif_is_torport(dev) ? TORUS_PORT_KIND :
		TORUS_NODE_KIND, sizeof(info->driver));
	strscpy(info->bus_info, "virtual", sizeof(info->bus_info));
}

static int torus_get_sset_count(struct net_device *dev, int sset)
{
	return sset == ETH_SS_STATS ? TORUS_ETHTOOL_STATS : -EOPNOTSUPP;
}

static void torus_get_strings(struct net_device *dev, u32 sset, u8 *data)
{
	unsigned int i;

	if (sset != ETH_SS_STATS)
		return;
	for (i = 0; i < ARRAY_SIZE(torus_counter_names); i++)
		ethtool_sprintf(&data, "%s", torus_counter_names[i]);
	for (i = 0; i < __TORUS_DROP_MAX; i++)
		ethtool_sprintf(&data, "drop_%s", torus_drop_names[i]);
}

static void torus_get_ethtool_stats(struct net_device *dev,
				    struct ethtool_stats *stats, u64 *data)
{
	struct torus_pcpu_stats __percpu *pcpu;
	struct torus_stats st;
	unsigned int i;

	if (netif_is_torport(dev))
		pcpu = ((struct torport_priv *)netdev_priv(dev))->stats;
	else
		pcpu = ((struct torus_node *)netdev_priv(dev))->stats;
	torus_stats_read(pcpu, &st);
	*data++ = st.rx_packets;
	*data++ = st.rx_bytes;
	*data++ = st.tx_packets;
	*data++ = st.tx_bytes;
	*data++ = st.fwd_packets;
	*data++ = st.detours;
	*data++ = st.drops;
	for (i = 0; i < __TORUS_DROP_MAX; i++)
		*data++ = st.drop[i];
}

const struct ethtool_ops torus_ethtool_ops = {
	.get_drvinfo		= torus_get_drvinfo,
	.get_link		= ethtool_op_get_link,
	.get_sset_count		= torus_get_sset_count,
	.get_strings		= torus_get_strings,
	.get_ethtool_stats	= torus_get_ethtool_stats,
};
