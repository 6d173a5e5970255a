// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fdma.ko network interface (net=1): stream pair k of device fdmaN is the
 * Ethernet interface fdmaNnK. See
 * fdma_net.h for the layout and the locking, docs/net.md for its use.
 *
 * Interrupts: a channel's hard interrupt masks that channel (IRQ_EN off)
 * and schedules NAPI, which cleans transmit, receives up to its budget and
 * refills; once done it turns both channels' interrupts back on and looks
 * at the rings once more, since completions that came while they were off
 * are never signalled later (docs/engine.md section 7). The engine's
 * coalescing (ethtool -C) decides how many completions an interrupt
 * stands for.
 */
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/kmemleak.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>

#include "fdma_compat.h"
#include "fdma_net.h"

/*
 * Coalescing at open, [tx, rx][frames, usecs]: see docs/net.md. Without an
 * interrupt timer (XDMA) a count would leave the last frames of a burst
 * waiting for the rest of it: an interrupt per descriptor, which NAPI's
 * masking merges under load.
 */
static const u32 fdma_net_coal_default[2][2] = { { 32, 100 }, { 16, 20 } };
static const u32 fdma_net_coal_untimed[2][2] = { { 1, 0 }, { 1, 0 } };

static bool ring_halted(struct fdma_chan *c)
{
	return fdma_ering_status(&c->ring) & FDMA_CH_ST_HALTED;
}

static bool polled(const struct fdma_net *np)
{
	return np->fdev->irq_mode == FDMA_IRQ_POLL;
}

/* Transmit completions waiting, looked at under the xmit lock like the rest of the ring. */
static bool tx_pending(struct fdma_net *np)
{
	struct netdev_queue *txq = netdev_get_tx_queue(np->ndev, 0);
	bool ready;

	__netif_tx_lock(txq, smp_processor_id());
	ready = fdma_ering_ready(&np->tx->ring);
	__netif_tx_unlock(txq);
	return ready;
}

static int fdma_net_poll(struct napi_struct *napi, int budget)
{
	struct fdma_net *np = container_of(napi, struct fdma_net, napi);
	bool tx_err = fdma_net_tx_clean(np, budget);
	/* Per-packet mode takes one frame per interrupt, as the simplest drivers do. */
	int done = fdma_net_rx_poll(np, np->per_packet ? min(budget, 1) : budget);

	if (tx_err || ring_halted(np->tx) || ring_halted(np->rx)) {
		/* The channel stopped on an error: recover outside NAPI, interrupts left off. */
		napi_complete_done(napi, done);
		schedule_work(&np->reset_work);
		return min(done, budget - 1);
	}
	if (done >= budget)
		return budget;
	/* Per-packet mode never masks, but a switch to it may have found them masked. */
	if (napi_complete_done(napi, done) && !polled(np)) {
		fdma_ering_set_irq(&np->rx->ring, true);
		fdma_ering_set_irq(&np->tx->ring, true);
		/* set_irq() ends with the read-back and the barrier the race needs. */
		if (fdma_ering_ready(&np->rx->ring) || tx_pending(np))
			napi_schedule(napi);
	}
	return done;
}

/*
 * A channel's hard interrupt (the channel layer hands it over: struct
 * fdma_chan_client): mask it, poll. In per-packet mode it stays unmasked,
 * so that every completion interrupts, as in the simplest drivers; one
 * that comes while NAPI runs makes NAPI run again. A level-triggered INTx
 * line is masked at the engine whatever the mode: it would stay up until
 * the poll.
 */
static void fdma_net_irq(struct fdma_chan *c, struct fdma_chan_client *cl)
{
	struct fdma_net *np = container_of(cl, struct fdma_net, cl);

	if (!READ_ONCE(np->per_packet) || np->fdev->irq_mode == FDMA_IRQ_INTX)
		fdma_ering_set_irq(&c->ring, false);
	napi_schedule_irqoff(&np->napi);
}

/*
 * The same from process context: an interrupt thread, or irq_mode=poll's
 * thread. The channel layer calls it under rcu_read_lock(), as the hard
 * interrupt runs with interrupts off: fdma_net_free() waits for both
 * before the interface goes.
 */
static void fdma_net_kick(struct fdma_chan *c, struct fdma_chan_client *cl)
{
	struct fdma_net *np = container_of(cl, struct fdma_net, cl);

	local_bh_disable();
	napi_schedule(&np->napi);
	local_bh_enable();
}

/*
 * irq_mode=poll's thread asks before it kicks: receive rings keep pages
 * posted while idle, so "something posted" is no reason to poll (NAPI
 * would run every poll period for ever); completions are, and sent
 * packets still in flight. Read without the rings' owners' locks: a stale
 * answer costs one poll period.
 */
static bool fdma_net_busy(struct fdma_chan *c, struct fdma_chan_client *cl)
{
	struct fdma_net *np = container_of(cl, struct fdma_net, cl);

	if (!READ_ONCE(np->up))
		return false;
	return fdma_ering_ready(&c->ring) ||
	       (c == np->tx && fdma_ering_inflight(&c->ring));
}

/*
 * The device stopped for good: no carrier, no transmit, so that the
 * stack's watchdog does not take a ring that can no longer complete for a
 * stuck one. Any context (fdma_chan_gone() holds RCU).
 */
static void fdma_net_gone(struct fdma_chan *c, struct fdma_chan_client *cl)
{
	struct fdma_net *np = container_of(cl, struct fdma_net, cl);

	netif_carrier_off(np->ndev);
	netif_tx_stop_all_queues(np->ndev);
}

static const struct fdma_client_ops fdma_net_client_ops = {
	.own_ring = true,
	.irq = fdma_net_irq,
	.kick = fdma_net_kick,
	.busy = fdma_net_busy,
	.gone = fdma_net_gone,
};

/*
 * Switch per-packet mode. With NAPI stopped, so that no poll masks or
 * unmasks meanwhile: both channels unmasked, as the mode leaves them, and a
 * poll to start from, for what came in between.
 */
void fdma_net_set_per_packet(struct fdma_net *np, bool on)
{
	if (!np->up) {
		np->per_packet = on;
		return;
	}
	napi_disable(&np->napi);
	WRITE_ONCE(np->per_packet, on);
	if (!polled(np)) {
		fdma_ering_set_irq(&np->tx->ring, true);
		fdma_ering_set_irq(&np->rx->ring, true);
	}
	fdma_net_apply_coalesce(np);
	napi_enable(&np->napi);
	local_bh_disable();
	napi_schedule(&np->napi);
	local_bh_enable();
}

void fdma_net_apply_coalesce(struct fdma_net *np)
{
	struct fdma_chan *c[2] = { np->tx, np->rx };
	int i;

	if (!np->up)
		return;
	for (i = 0; i < 2; i++) {
		if (np->per_packet)
			fdma_ering_set_coalesce(&c[i]->ring, 1, 0);
		else
			fdma_ering_set_coalesce(&c[i]->ring, np->coal[i][0], np->coal[i][1]);
	}
}

/*
 * Reset a channel (the engine drops what is posted): true once the
 * engine acknowledged. Without the acknowledgment it may still use the
 * memory posted to it, which is then kept, never reused.
 */
static bool ring_reset(struct fdma_net *np, struct fdma_chan *c)
{
	int ret;

	mutex_lock(&c->lock);
	ret = fdma_ering_reset(&c->ring, FDMA_RESET_TIMEOUT_US);
	if (ret) {
		c->broken = true;
		fdma_ering_stop(&c->ring);
		netdev_err(np->ndev, "channel %u: no reset acknowledgment (%d): its memory is kept\n",
			   c->idx, ret);
	}
	mutex_unlock(&c->lock);
	return !ret;
}

/* Started with its interrupts masked: the first poll unmasks (see fdma_net_open()). */
static void ring_start(struct fdma_net *np, struct fdma_chan *c, u32 flags)
{
	mutex_lock(&c->lock);
	fdma_ering_start(&c->ring, flags, c->vec);
	mutex_unlock(&c->lock);
}

/* The receive ring ran dry for want of pages: try again (fdma_net_rx_poll()). */
static void fdma_net_refill_timer(struct timer_list *t)
{
	struct fdma_net *np = from_timer(np, t, refill);

	napi_schedule(&np->napi);
}

static int fdma_net_open(struct net_device *ndev)
{
	struct fdma_net *np = netdev_priv(ndev);
	int ret;

	if (READ_ONCE(np->fdev->dead) || np->tx->broken || np->rx->broken)
		return -ENODEV;
	/* A clean start: whatever the rings held is dropped (nothing, after stop). */
	if (!ring_reset(np, np->tx) || !ring_reset(np, np->rx))
		return -EIO;
	fdma_net_tx_drain(np, true);
	ret = fdma_net_rx_init(np);
	if (ret)
		return ret;
	fdma_net_rx_drain(np, true);
	/*
	 * Flow control: with tx pause (the default) a frame waits for a page
	 * and the sender is held back, as PAUSE frames hold a link partner;
	 * without, the engine drops it (CH_CTRL.DROP), counted in rx_no_buffer.
	 *
	 * Both rings start with their interrupts masked: NAPI is still off,
	 * so an interrupt now would mask the channel and schedule nothing,
	 * and receive would stay masked for good. The first poll, scheduled
	 * once NAPI is on, unmasks them and looks at the rings.
	 */
	ring_start(np, np->tx, 0);
	ring_start(np, np->rx, np->tx_pause ? 0 : FDMA_CH_CTRL_DROP);
	np->overruns_seen = fdma_ering_overruns(&np->rx->ring);
	ret = fdma_net_rx_fill(np);
	if (ret) {
		ring_reset(np, np->rx);
		fdma_net_rx_drain(np, true);
		fdma_net_rx_free(np);
		return ret;
	}
	WRITE_ONCE(np->up, true);
	fdma_net_apply_coalesce(np);
	napi_enable(&np->napi);
	netif_carrier_on(ndev);
	netif_tx_start_all_queues(ndev);
	local_bh_disable();
	napi_schedule(&np->napi);
	local_bh_enable();
	return 0;
}

static int fdma_net_stop(struct net_device *ndev)
{
	struct fdma_net *np = netdev_priv(ndev);
	bool tx_ok, rx_ok;

	netif_carrier_off(ndev);
	netif_tx_disable(ndev);
	/*
	 * Down already: a restart that failed (fdma_net_restart()) left the
	 * rings reset and NAPI off, and NAPI must be disabled only once.
	 * NAPI is on exactly while up is.
	 */
	if (!np->up)
		return 0;
	napi_disable(&np->napi);
	fdma_timer_delete_sync(&np->refill);
	WRITE_ONCE(np->up, false);
	/* With traffic flowing: the engine lets go first, then the memory goes. */
	tx_ok = ring_reset(np, np->tx);
	rx_ok = ring_reset(np, np->rx);
	/* Everything posted comes back, completed or not (fdma_ering_cancel()). */
	fdma_net_tx_drain(np, tx_ok);
	fdma_net_rx_drain(np, rx_ok);
	/* What the device may still write keeps the pool too (np->kept). */
	if (!np->kept)
		fdma_net_rx_free(np);
	return 0;
}

/*
 * Under RTNL: down and up, if up (recovery, and settings that need a
 * restart). If the open fails, the interface stays administratively up
 * with its rings down (up false, NAPI off, no carrier) until it is set
 * down and up again.
 */
int fdma_net_restart(struct fdma_net *np)
{
	int ret;

	ASSERT_RTNL();
	if (!netif_running(np->ndev) || !np->up)
		return 0;
	fdma_net_stop(np->ndev);
	ret = fdma_net_open(np->ndev);
	if (ret)
		netdev_err(np->ndev, "cannot restart (%d): down until set up again\n", ret);
	return ret;
}

/* Recovery from a halted channel or a stuck queue: the interface goes down and up. */
static void fdma_net_reset_work(struct work_struct *work)
{
	struct fdma_net *np = container_of(work, struct fdma_net, reset_work);

	rtnl_lock();
	if (netif_running(np->ndev) && np->up) {
		netdev_warn(np->ndev, "resetting its channels (%s)\n",
			    ring_halted(np->tx) || ring_halted(np->rx) ?
			    "halted on an error" : "transmit timed out");
		fdma_net_restart(np);
	}
	rtnl_unlock();
}

static void fdma_net_tx_timeout(struct net_device *ndev, unsigned int txqueue)
{
	struct fdma_net *np = netdev_priv(ndev);

	netdev_err(ndev, "transmit queue %u timed out: %u descriptors in flight\n", txqueue,
		   fdma_ering_inflight(&np->tx->ring));
	schedule_work(&np->reset_work);
}

static void fdma_net_get_stats64(struct net_device *ndev, struct rtnl_link_stats64 *s)
{
	struct fdma_net *np = netdev_priv(ndev);

	s->tx_packets = fdma_net_read(&np->txs, &np->txs.packets);
	s->tx_bytes = fdma_net_read(&np->txs, &np->txs.bytes);
	s->tx_errors = fdma_net_read(&np->txs, &np->txs.errors);
	s->rx_packets = fdma_net_read(&np->rxs, &np->rxs.packets);
	s->rx_bytes = fdma_net_read(&np->rxs, &np->rxs.bytes);
	s->rx_errors = fdma_net_read(&np->rxs, &np->rxs.errors);
	s->rx_dropped = fdma_net_read(&np->rxs, &np->rxs.dropped);
	/* Frames the engine dropped for want of a posted page: a NIC's missed count. */
	s->rx_missed_errors = np->up ? fdma_net_rx_overruns(np) : 0;
}

static int fdma_net_change_mtu(struct net_device *ndev, int mtu)
{
	/* Any MTU up to max_mtu fits one receive page: nothing to reallocate. */
	WRITE_ONCE(ndev->mtu, mtu);
	return 0;
}

static const struct net_device_ops fdma_net_ops = {
	.ndo_open = fdma_net_open,
	.ndo_stop = fdma_net_stop,
	.ndo_start_xmit = fdma_net_xmit,
	.ndo_get_stats64 = fdma_net_get_stats64,
	.ndo_change_mtu = fdma_net_change_mtu,
	.ndo_tx_timeout = fdma_net_tx_timeout,
	.ndo_validate_addr = eth_validate_addr,
	.ndo_set_mac_address = eth_mac_addr,
};

/* Take a channel for the interface: the channel layer leaves its ring alone from here. */
static int chan_take(struct fdma_chan *c, struct fdma_net *np)
{
	int ret;

	mutex_lock(&c->lock);
	ret = fdma_chan_claim(c, &np->cl);
	mutex_unlock(&c->lock);
	return ret;
}

/* Give it back, running as the channel layer runs it (unless the device is gone). */
static void chan_give(struct fdma_chan *c)
{
	mutex_lock(&c->lock);
	fdma_chan_release(c);
	if (!READ_ONCE(c->fdev->dead) && !c->broken &&
	    !fdma_ering_reset(&c->ring, FDMA_RESET_TIMEOUT_US)) {
		struct fdma_ecpl e[8];

		while (fdma_ering_cancel(&c->ring, e, ARRAY_SIZE(e)))
			;
		c->ops->start(c);
	}
	mutex_unlock(&c->lock);
}

/* np->tx and np->rx are set once taken. */
static void fdma_net_free(struct fdma_net *np)
{
	if (np->tx)
		chan_give(np->tx);
	if (np->rx)
		chan_give(np->rx);
	/* An interrupt or a kick that still saw the channel as ours is over. */
	synchronize_rcu();
	fdma_timer_shutdown_sync(&np->refill);
	netif_napi_del(&np->napi);
	fdma_net_tx_free(np);
	free_netdev(np->ndev);
}

static int fdma_net_add(struct fdma_device *fdev, u32 pair, struct fdma_chan *tx,
			struct fdma_chan *rx)
{
	struct net_device *ndev;
	struct fdma_net *np;
	const u32 (*coal)[2];
	int ret, i;

	ndev = alloc_etherdev(sizeof(*np));
	if (!ndev)
		return -ENOMEM;
	np = netdev_priv(ndev);
	np->ndev = ndev;
	np->fdev = fdev;
	np->pair = pair;
	np->cl.ops = &fdma_net_client_ops;
	netif_napi_add(ndev, &np->napi, fdma_net_poll);
	INIT_WORK(&np->reset_work, fdma_net_reset_work);
	timer_setup(&np->refill, fdma_net_refill_timer, 0);
	u64_stats_init(&np->txs.syncp);
	u64_stats_init(&np->rxs.syncp);
	coal = fdev->caps.coal_timer ? fdma_net_coal_default : fdma_net_coal_untimed;
	for (i = 0; i < 4; i++)
		np->coal[i / 2][i % 2] = coal[i / 2][i % 2];
	/*
	 * The frame after the stack's headroom, and the skb's own tail after
	 * the page's end. A receive buffer keeps the C2H ring's rules (1 for a
	 * byte stream): where it starts (H2C_BYTES alone, no byte streams) and
	 * what its length is a multiple of (those, and XDMA's 64 bytes).
	 */
	np->rx_headroom = round_up(NET_SKB_PAD + NET_IP_ALIGN, rx->ring.addr_align);
	np->tx_pause = true;
	np->rx_buf_len = round_down(SKB_WITH_OVERHEAD(PAGE_SIZE) - np->rx_headroom,
				    rx->ring.align);

	ret = chan_take(tx, np);
	if (ret)
		goto err;
	np->tx = tx;
	ret = chan_take(rx, np);
	if (ret)
		goto err;
	np->rx = rx;
	ret = fdma_net_tx_init(np);
	if (ret)
		goto err;

	snprintf(ndev->name, IFNAMSIZ, "%sn%u", dev_name(&fdev->dev), pair);
	SET_NETDEV_DEV(ndev, fdev->dma_dev);
	ndev->netdev_ops = &fdma_net_ops;
	ndev->ethtool_ops = &fdma_net_ethtool_ops;
	ndev->watchdog_timeo = 5 * HZ;
	/* Scatter-gather: a packet's pieces go as they are. No checksum offload. */
	ndev->hw_features = NETIF_F_SG;
	ndev->features = NETIF_F_SG | NETIF_F_HIGHDMA;
	ndev->min_mtu = ETH_MIN_MTU;
	/* A frame fits one receive page (docs/net.md). */
	ndev->max_mtu = np->rx_buf_len - VLAN_ETH_HLEN;
	eth_hw_addr_random(ndev);

	ret = register_netdev(ndev);
	if (ret)
		goto err;
	fdev->net[pair] = np;
	netdev_info(ndev, "channels %u (transmit) and %u (receive) of %s, MTU up to %u\n",
		    tx->idx, rx->idx, dev_name(&fdev->dev), ndev->max_mtu);
	if (np->tx_copy_why)
		netdev_info(ndev, "packets copied to be sent (%s)\n", np->tx_copy_why);
	return 0;
err:
	fdma_net_free(np);
	return ret;
}

/*
 * net=1 at probe: every stream pair (the k-th H2C and the k-th C2H stream
 * channel) becomes an interface. On an engine without byte streams, whose
 * stream requests are whole alignment units, transmit copies (see
 * fdma_net.h).
 */
int fdma_net_register(struct fdma_device *fdev)
{
	struct fdma_chan *tx[FDMA_MAX_CHANNELS], *rx[FDMA_MAX_CHANNELS];
	u32 ntx = 0, nrx = 0, i;
	int ret = 0;

	for (i = 0; i < fdev->caps.nchan; i++) {
		struct fdma_chan *c = &fdev->chan[i];

		if (!(c->caps & FDMA_CH_CAP_STREAM) || c->ops != &fdma_ring_engine_ops)
			continue;
		if (c->caps & FDMA_CH_CAP_C2H)
			rx[nrx++] = c;
		else
			tx[ntx++] = c;
	}
	if (!min(ntx, nrx)) {
		dev_warn(fdev->dma_dev, "%s: net=1, but the engine has no stream channel pair\n",
			 dev_name(&fdev->dev));
		return -ENODEV;
	}
	for (i = 0; i < min(ntx, nrx) && !ret; i++)
		ret = fdma_net_add(fdev, i, tx[i], rx[i]);
	if (ret)
		dev_warn(fdev->dma_dev, "%s: network interface %u not added (%d)\n",
			 dev_name(&fdev->dev), i - 1, ret);
	return ret;
}

/*
 * Before remove() marks the device dead: each interface stops with the
 * engine still there, and goes, unless a channel of its never acknowledged
 * its reset: the packets and pages posted to it stay mapped until the
 * engine has stopped (fdma_net_release()).
 */
void fdma_net_unregister(struct fdma_device *fdev)
{
	u32 i;

	for (i = 0; i < ARRAY_SIZE(fdev->net); i++) {
		struct fdma_net *np = fdev->net[i];

		if (!np)
			continue;
		unregister_netdev(np->ndev);
		cancel_work_sync(&np->reset_work);
		if (np->kept)
			continue;
		fdev->net[i] = NULL;
		fdma_net_free(np);
	}
}

/*
 * After remove() stopped the engine (fdev->quiesced: it reads idle with
 * bus mastering off), what the interfaces kept is unmapped and freed with
 * them. If it never stopped, it stays for good, as the driver's other
 * memory does.
 */
void fdma_net_release(struct fdma_device *fdev)
{
	u32 i;

	for (i = 0; i < ARRAY_SIZE(fdev->net); i++) {
		struct fdma_net *np = fdev->net[i];

		if (!np)
			continue;
		fdev->net[i] = NULL;
		if (!fdev->quiesced) {
			netdev_crit(np->ndev, "the engine never stopped: the packets and pages posted to its channels are kept for good\n");
			kmemleak_not_leak(np->ndev);
			continue;
		}
		fdma_net_tx_release_kept(np);
		fdma_net_rx_release_kept(np);
		fdma_net_free(np);
	}
}
