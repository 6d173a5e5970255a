// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fdma.ko network interface: ethtool. Coalescing (-c/-C) is the engine's
 * own, per channel (docs/engine.md section 7): rx-frames/rx-usecs on the
 * receive channel, tx-frames/tx-usecs on the transmit channel. Statistics
 * (-S) count packets, bytes, doorbells, interrupts and the events a NIC
 * driver is judged by. The private flag per-packet (--set-priv-flags) is
 * the driver at its simplest, for comparison: a doorbell for every packet,
 * an interrupt for every completion, one frame per poll.
 */
#include <linux/ethtool.h>
#include <linux/netdevice.h>

#include "fdma_net.h"

/* The engine's limits (CH_COAL_COUNT, CH_COAL_USECS), as the library's. */
#define COAL_FRAMES_MAX	65536
#define COAL_USECS_MAX	1000000

enum {
	ST_TX_PACKETS, ST_TX_BYTES, ST_TX_DOORBELLS, ST_TX_IRQS, ST_TX_RING_FULL, ST_TX_ERRORS,
	ST_RX_PACKETS, ST_RX_BYTES, ST_RX_DOORBELLS, ST_RX_IRQS, ST_RX_NO_BUFFER,
	ST_RX_DROPPED, ST_RX_ERRORS, ST_COUNT
};

static const char fdma_net_stat_names[ST_COUNT][ETH_GSTRING_LEN] = {
	"tx_packets", "tx_bytes", "tx_doorbells", "tx_irqs", "tx_ring_full", "tx_errors",
	"rx_packets", "rx_bytes", "rx_doorbells", "rx_irqs", "rx_no_buffer",
	"rx_dropped", "rx_errors",
};

static const char fdma_net_flag_names[][ETH_GSTRING_LEN] = { "per-packet" };

static void fdma_net_get_drvinfo(struct net_device *ndev, struct ethtool_drvinfo *info)
{
	struct fdma_net *np = netdev_priv(ndev);

	strscpy(info->driver, FDMA_DRV_NAME, sizeof(info->driver));
	strscpy(info->bus_info, dev_name(np->fdev->dma_dev), sizeof(info->bus_info));
	info->n_priv_flags = ARRAY_SIZE(fdma_net_flag_names);
}

static int fdma_net_get_sset_count(struct net_device *ndev, int set)
{
	switch (set) {
	case ETH_SS_STATS:
		return ST_COUNT;
	case ETH_SS_PRIV_FLAGS:
		return ARRAY_SIZE(fdma_net_flag_names);
	default:
		return -EOPNOTSUPP;
	}
}

static void fdma_net_get_strings(struct net_device *ndev, u32 set, u8 *data)
{
	if (set == ETH_SS_STATS)
		memcpy(data, fdma_net_stat_names, sizeof(fdma_net_stat_names));
	else if (set == ETH_SS_PRIV_FLAGS)
		memcpy(data, fdma_net_flag_names, sizeof(fdma_net_flag_names));
}

static void fdma_net_get_ethtool_stats(struct net_device *ndev, struct ethtool_stats *stats,
				       u64 *data)
{
	struct fdma_net *np = netdev_priv(ndev);

	data[ST_TX_PACKETS] = fdma_net_read(&np->txs, &np->txs.packets);
	data[ST_TX_BYTES] = fdma_net_read(&np->txs, &np->txs.bytes);
	data[ST_TX_DOORBELLS] = fdma_net_read(&np->txs, &np->txs.doorbells);
	data[ST_TX_IRQS] = atomic64_read(&np->tx->st.irqs);
	data[ST_TX_RING_FULL] = fdma_net_read(&np->txs, &np->txs.ring_full);
	data[ST_TX_ERRORS] = fdma_net_read(&np->txs, &np->txs.errors);
	data[ST_RX_PACKETS] = fdma_net_read(&np->rxs, &np->rxs.packets);
	data[ST_RX_BYTES] = fdma_net_read(&np->rxs, &np->rxs.bytes);
	data[ST_RX_DOORBELLS] = fdma_net_read(&np->rxs, &np->rxs.doorbells);
	data[ST_RX_IRQS] = atomic64_read(&np->rx->st.irqs);
	data[ST_RX_NO_BUFFER] = np->up ? fdma_net_rx_overruns(np) : 0;
	data[ST_RX_DROPPED] = fdma_net_read(&np->rxs, &np->rxs.dropped);
	data[ST_RX_ERRORS] = fdma_net_read(&np->rxs, &np->rxs.errors);
}

static int fdma_net_get_coalesce(struct net_device *ndev, struct ethtool_coalesce *ec,
				 struct kernel_ethtool_coalesce *kec,
				 struct netlink_ext_ack *ack)
{
	struct fdma_net *np = netdev_priv(ndev);

	ec->tx_max_coalesced_frames = np->coal[0][0];
	ec->tx_coalesce_usecs = np->coal[0][1];
	ec->rx_max_coalesced_frames = np->coal[1][0];
	ec->rx_coalesce_usecs = np->coal[1][1];
	return 0;
}

static int fdma_net_set_coalesce(struct net_device *ndev, struct ethtool_coalesce *ec,
				 struct kernel_ethtool_coalesce *kec,
				 struct netlink_ext_ack *ack)
{
	struct fdma_net *np = netdev_priv(ndev);

	if (ec->tx_max_coalesced_frames > COAL_FRAMES_MAX ||
	    ec->rx_max_coalesced_frames > COAL_FRAMES_MAX) {
		NL_SET_ERR_MSG_MOD(ack, "frames: the engine counts up to 65536");
		return -EINVAL;
	}
	if (ec->tx_coalesce_usecs > COAL_USECS_MAX || ec->rx_coalesce_usecs > COAL_USECS_MAX) {
		NL_SET_ERR_MSG_MOD(ack, "usecs: the engine's timer goes up to 1000000");
		return -EINVAL;
	}
	if (!np->fdev->caps.coal_timer &&
	    (ec->tx_max_coalesced_frames > 1 || ec->rx_max_coalesced_frames > 1 ||
	     ec->tx_coalesce_usecs || ec->rx_coalesce_usecs)) {
		NL_SET_ERR_MSG_MOD(ack, "no interrupt timer: frames 1 and usecs 0 only");
		return -EOPNOTSUPP;
	}
	np->coal[0][0] = ec->tx_max_coalesced_frames;
	np->coal[0][1] = ec->tx_coalesce_usecs;
	np->coal[1][0] = ec->rx_max_coalesced_frames;
	np->coal[1][1] = ec->rx_coalesce_usecs;
	fdma_net_apply_coalesce(np);
	return 0;
}

static void fdma_net_get_ringparam(struct net_device *ndev, struct ethtool_ringparam *rp,
				   struct kernel_ethtool_ringparam *krp,
				   struct netlink_ext_ack *ack)
{
	struct fdma_net *np = netdev_priv(ndev);

	/* The driver's ring_size (module parameter), for every channel. */
	rp->rx_max_pending = np->fdev->ring_size;
	rp->tx_max_pending = np->fdev->ring_size;
	rp->rx_pending = np->fdev->ring_size;
	rp->tx_pending = np->fdev->ring_size;
}

/*
 * Flow control, as Ethernet's PAUSE: rx (the sender is held back when the
 * wire is full) always; tx (a full receive ring holds the other end back
 * instead of the engine dropping) by default, off with ethtool -A tx off.
 * No autonegotiation. A change restarts the interface.
 */
static void fdma_net_get_pauseparam(struct net_device *ndev, struct ethtool_pauseparam *pp)
{
	struct fdma_net *np = netdev_priv(ndev);

	pp->autoneg = AUTONEG_DISABLE;
	pp->rx_pause = 1;
	pp->tx_pause = np->tx_pause;
}

static int fdma_net_set_pauseparam(struct net_device *ndev, struct ethtool_pauseparam *pp)
{
	struct fdma_net *np = netdev_priv(ndev);

	if (pp->autoneg || !pp->rx_pause)
		return -EINVAL;
	if (np->tx_pause == !!pp->tx_pause)
		return 0;
	/* XDMA always holds a frame back: without a design that drops, there is no "off". */
	if (!pp->tx_pause && !np->fdev->caps.stream_drop) {
		netdev_info(ndev, "the engine holds frames back and cannot drop them: tx pause stays on\n");
		return -EOPNOTSUPP;
	}
	np->tx_pause = pp->tx_pause;
	return fdma_net_restart(np);
}

static u32 fdma_net_get_priv_flags(struct net_device *ndev)
{
	struct fdma_net *np = netdev_priv(ndev);

	return np->per_packet ? 1 : 0;
}

static int fdma_net_set_priv_flags(struct net_device *ndev, u32 flags)
{
	struct fdma_net *np = netdev_priv(ndev);

	if (flags & ~1u)
		return -EINVAL;
	if (np->per_packet != (flags & 1))
		fdma_net_set_per_packet(np, flags & 1);
	return 0;
}

const struct ethtool_ops fdma_net_ethtool_ops = {
	.supported_coalesce_params = ETHTOOL_COALESCE_USECS | ETHTOOL_COALESCE_MAX_FRAMES,
	.get_drvinfo = fdma_net_get_drvinfo,
	.get_link = ethtool_op_get_link,
	.get_sset_count = fdma_net_get_sset_count,
	.get_strings = fdma_net_get_strings,
	.get_ethtool_stats = fdma_net_get_ethtool_stats,
	.get_coalesce = fdma_net_get_coalesce,
	.set_coalesce = fdma_net_set_coalesce,
	.get_ringparam = fdma_net_get_ringparam,
	.get_pauseparam = fdma_net_get_pauseparam,
	.set_pauseparam = fdma_net_set_pauseparam,
	.get_priv_flags = fdma_net_get_priv_flags,
	.set_priv_flags = fdma_net_set_priv_flags,
};
