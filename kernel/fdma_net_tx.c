// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fdma.ko network interface: transmit. A packet is its head and page
 * fragments, each one H2C stream descriptor (the first with SOF, the last
 * with EOF), mapped where the stack left them; on an engine without H2C
 * byte streams, one descriptor of its slot's bounce page, the packet
 * copied there and padded to the alignment, and the skb freed at once.
 * Descriptors are written at once; the doorbell is rung once per burst
 * (netdev_xmit_more(), through BQL's __netdev_tx_sent_queue()). The queue
 * stops while a largest packet might not fit (every fragment a descriptor;
 * one in copy mode), so transmit never finds the ring full; completion
 * (in NAPI, under the same xmit lock) wakes it. The ring's producer (pidx)
 * and consumer (cidx) are the engine core's: both sides run under the
 * queue's xmit lock, so the ring needs no ordering of its own.
 */
#include <linux/dma-mapping.h>
#include <linux/skbuff.h>

#include "fdma_net.h"

/* Descriptors the largest packet takes: its head and every fragment. */
#define TX_MAX_DESC	(MAX_SKB_FRAGS + 1)

/*
 * Copy mode: a page per ring slot, mapped once. A frame fits one page:
 * the MTU is bounded by the receive page (fdma_net_add()).
 */
static int tx_bounce_init(struct fdma_net *np)
{
	struct device *dma = np->fdev->dma_dev;
	u32 i;

	np->bounce = kcalloc(np->fdev->ring_size, sizeof(*np->bounce), GFP_KERNEL);
	if (!np->bounce)
		return -ENOMEM;
	for (i = 0; i < np->fdev->ring_size; i++) {
		struct page *pg = alloc_page(GFP_KERNEL);

		if (!pg)
			return -ENOMEM;
		np->bounce[i].dma = dma_map_page(dma, pg, 0, PAGE_SIZE, DMA_TO_DEVICE);
		if (dma_mapping_error(dma, np->bounce[i].dma)) {
			__free_page(pg);
			return -ENOMEM;
		}
		np->bounce[i].va = page_address(pg);
	}
	return 0;
}

/* After np->tx is taken: its ring's rules decide between zero-copy and copy. */
int fdma_net_tx_init(struct fdma_net *np)
{
	struct fdma_device *fdev = np->fdev;

	/* A ring too small for a largest packet's pieces copies too (ring_size=). */
	if (np->tx->ring.align != 1)
		np->tx_copy_why = "no H2C byte streams";
	else if (fdev->ring_size < TX_MAX_DESC)
		np->tx_copy_why = "the ring is smaller than a packet's pieces";

	np->txb = kcalloc(fdev->ring_size, sizeof(*np->txb), GFP_KERNEL);
	if (!np->txb)
		return -ENOMEM;
	np->tx_max_desc = np->tx_copy_why ? 1 : TX_MAX_DESC;
	/*
	 * Wake with room for a few largest packets, so that the queue does
	 * not flap, and never below one: a woken queue must take a packet.
	 */
	np->tx_wake = clamp_t(u32, fdev->ring_size / 2, np->tx_max_desc,
			      max_t(u32, 4 * np->tx_max_desc, 16));
	return np->tx_copy_why ? tx_bounce_init(np) : 0;
}

void fdma_net_tx_free(struct fdma_net *np)
{
	struct device *dma = np->fdev->dma_dev;
	u32 i;

	/*
	 * A channel that never acknowledged its reset may still read them:
	 * kept, unless remove() has stopped the engine since.
	 */
	if (np->bounce && (!(np->tx && np->tx->broken) || np->fdev->quiesced)) {
		for (i = 0; i < np->fdev->ring_size && np->bounce[i].va; i++) {
			dma_unmap_page(dma, np->bounce[i].dma, PAGE_SIZE, DMA_TO_DEVICE);
			free_page((unsigned long)np->bounce[i].va);
		}
	}
	kfree(np->bounce);
	np->bounce = NULL;
	kfree(np->txb);
	np->txb = NULL;
}

static void txb_unmap(struct fdma_net *np, struct fdma_net_txb *b)
{
	struct device *dma = np->fdev->dma_dev;

	/* Copy mode: the slot's bounce page, which stays mapped. */
	if (!np->bounce) {
		if (b->page)
			dma_unmap_page(dma, b->dma, b->len, DMA_TO_DEVICE);
		else
			dma_unmap_single(dma, b->dma, b->len, DMA_TO_DEVICE);
	}
	b->len = 0;
}

/* Map the packet's pieces into the slots from the producer index on; their count, or -ENOMEM. */
static int tx_map(struct fdma_net *np, struct sk_buff *skb)
{
	struct fdma_ering *r = &np->tx->ring;
	struct device *dma = np->fdev->dma_dev;
	u32 mask = r->size - 1, n = 0, i;
	struct fdma_net_txb *b;

	if (skb_headlen(skb)) {
		b = &np->txb[r->pidx & mask];
		b->dma = dma_map_single(dma, skb->data, skb_headlen(skb), DMA_TO_DEVICE);
		if (dma_mapping_error(dma, b->dma))
			return -ENOMEM;
		b->len = skb_headlen(skb);
		b->page = false;
		n++;
	}
	for (i = 0; i < skb_shinfo(skb)->nr_frags; i++) {
		const skb_frag_t *f = &skb_shinfo(skb)->frags[i];

		if (!skb_frag_size(f))
			continue;
		b = &np->txb[(r->pidx + n) & mask];
		b->dma = skb_frag_dma_map(dma, f, 0, skb_frag_size(f), DMA_TO_DEVICE);
		if (dma_mapping_error(dma, b->dma))
			goto unwind;
		b->len = skb_frag_size(f);
		b->page = true;
		n++;
	}
	return n;
unwind:
	while (n--)
		txb_unmap(np, &np->txb[(r->pidx + n) & mask]);
	return -ENOMEM;
}

/*
 * Copy mode: the packet whole into the slot's bounce page, zeros up to the
 * alignment; one descriptor. Returns 1, or a negative errno. The skb is
 * the caller's to free: nothing refers to it once copied.
 */
static int tx_copy(struct fdma_net *np, struct sk_buff *skb)
{
	struct fdma_ering *r = &np->tx->ring;
	u32 slot = r->pidx & (r->size - 1), len = round_up(skb->len, r->align);
	struct fdma_net_bounce *c = &np->bounce[slot];
	struct fdma_net_txb *b = &np->txb[slot];

	/* The stack segments large sends (no TSO), and the MTU fits a page. */
	if (!skb->len || WARN_ON_ONCE(len > PAGE_SIZE))
		return -EMSGSIZE;
	if (skb_copy_bits(skb, 0, c->va, skb->len))
		return -EFAULT;
	memset(c->va + skb->len, 0, len - skb->len);
	/* The CPU's writes reach memory (or the device's view) before the doorbell. */
	dma_sync_single_for_device(np->fdev->dma_dev, c->dma, len, DMA_TO_DEVICE);
	b->dma = c->dma;
	b->len = len;
	return 1;
}

/*
 * The n pieces mapped at the producer index, as the ring would take them:
 * the descriptors they need fit, and each passes the engine's checks. So
 * that posting them cannot fail half-way, leaving a SOF without its EOF.
 */
static bool tx_fits(struct fdma_net *np, u32 n)
{
	struct fdma_ering *r = &np->tx->ring;
	u32 mask = r->size - 1, ndesc = 0, i;

	for (i = 0; i < n; i++) {
		const struct fdma_net_txb *b = &np->txb[(r->pidx + i) & mask];
		struct fdma_ereq q = { .host = b->dma, .len = b->len };

		if (fdma_ering_check(r, &q, NULL))
			return false;
		ndesc += fdma_ering_ndesc(r, b->len);
	}
	return ndesc <= fdma_ering_space(r);
}

/* What was mapped for a packet that is not posted after all. */
static void tx_unmap_n(struct fdma_net *np, u32 n)
{
	struct fdma_ering *r = &np->tx->ring;

	while (n--)
		txb_unmap(np, &np->txb[(r->pidx + n) & (r->size - 1)]);
}

netdev_tx_t fdma_net_xmit(struct sk_buff *skb, struct net_device *ndev)
{
	struct fdma_net *np = netdev_priv(ndev);
	struct netdev_queue *txq = netdev_get_tx_queue(ndev, 0);
	struct fdma_ering *r = &np->tx->ring;
	u32 mask = r->size - 1, first = r->pidx, len = skb->len, i;
	int n;
	bool kick;

	if (unlikely(fdma_ering_space(r) < np->tx_max_desc)) {
		/* Stopped below before this could happen: a bug, not a full ring. */
		netif_tx_stop_queue(txq);
		netdev_err_once(ndev, "transmit with the ring full\n");
		return NETDEV_TX_BUSY;
	}
	n = np->bounce ? tx_copy(np, skb) : tx_map(np, skb);
	if (n > 0 && unlikely(!tx_fits(np, n))) {
		/* The checks let through what the engine refuses: a bug, dropped. */
		netdev_err_once(ndev, "a packet of %u bytes the engine would refuse\n", len);
		tx_unmap_n(np, n);
		n = -EINVAL;
	}
	if (n <= 0) {
		/* A mapping or a copy failed, or an empty packet: dropped and counted. */
		fdma_net_count(&np->txs, &np->txs.errors, 1);
		dev_kfree_skb_any(skb);
		/*
		 * The packets before it in this burst were written without a
		 * doorbell (xmit_more): they go now, unless more are coming.
		 */
		if (!netdev_xmit_more() && r->pidx != r->pidx_pub) {
			fdma_ering_doorbell(r);
			fdma_net_count(&np->txs, &np->txs.doorbells, 1);
		}
		return NETDEV_TX_OK;
	}
	for (i = 0; i < (u32)n; i++) {
		struct fdma_net_txb *b = &np->txb[(first + i) & mask];
		bool last = i == (u32)n - 1;
		struct fdma_ereq q = {
			.host = b->dma,
			.len = b->len,
			.flags = (i == 0 ? FDMA_DESC_SOF : 0) | (last ? FDMA_DESC_EOF : 0),
			.cookie = (first + i) & mask,
		};

		/* A copied packet's skb is freed below: only its length stays. */
		b->skb = last && !np->bounce ? skb : NULL;
		b->pkt_len = last ? len : 0;
		/* tx_fits() said the ring takes every piece. */
		WARN_ON_ONCE(fdma_ering_post(r, &q));
	}
	skb_tx_timestamp(skb);
	/* Copied: the socket gets its memory back now, not at completion. */
	if (np->bounce)
		dev_consume_skb_any(skb);

	/* Stop before the next packet could not fit; completion wakes the queue. */
	if (fdma_ering_space(r) < np->tx_max_desc) {
		netif_tx_stop_queue(txq);
		fdma_net_count(&np->txs, &np->txs.ring_full, 1);
	}
	/* BQL: true when the doorbell is due (no more packets coming now, or stopped). */
	kick = __netdev_tx_sent_queue(txq, len, netdev_xmit_more());
	if (kick || np->per_packet || netif_xmit_stopped(txq)) {
		fdma_ering_doorbell(r);
		fdma_net_count(&np->txs, &np->txs.doorbells, 1);
	}
	return NETDEV_TX_OK;
}

/*
 * Completions, in NAPI: unmap, free the packets, tell BQL, wake the queue.
 * Returns true if a completion carried an error (the channel then halted:
 * the caller resets it).
 */
bool fdma_net_tx_clean(struct fdma_net *np, int budget)
{
	struct netdev_queue *txq = netdev_get_tx_queue(np->ndev, 0);
	struct fdma_ering *r = &np->tx->ring;
	unsigned int pkts = 0, bytes = 0, errors = 0;
	struct fdma_ecpl e[32];
	u32 got, i;

	__netif_tx_lock(txq, smp_processor_id());
	while ((got = fdma_ering_reap(r, e, ARRAY_SIZE(e)))) {
		for (i = 0; i < got; i++) {
			struct fdma_net_txb *b = &np->txb[e[i].cookie & (r->size - 1)];

			if (e[i].status != FDMA_CPL_OK)
				errors++;
			txb_unmap(np, b);
			if (!b->pkt_len)
				continue;
			pkts++;
			bytes += b->pkt_len;
			b->pkt_len = 0;
			if (b->skb)
				napi_consume_skb(b->skb, budget);
			b->skb = NULL;
		}
	}
	netdev_tx_completed_queue(txq, pkts, bytes);
	if (netif_tx_queue_stopped(txq) && fdma_ering_space(r) >= np->tx_wake &&
	    netif_carrier_ok(np->ndev))
		netif_tx_wake_queue(txq);
	__netif_tx_unlock(txq);

	u64_stats_update_begin(&np->txs.syncp);
	u64_stats_add(&np->txs.packets, pkts);
	u64_stats_add(&np->txs.bytes, bytes);
	u64_stats_add(&np->txs.errors, errors);
	u64_stats_update_end(&np->txs.syncp);
	return errors;
}

/*
 * remove() stopped the engine (fdma_net_release()): the packets a channel
 * that never acknowledged its reset kept are unmapped and freed.
 */
void fdma_net_tx_release_kept(struct fdma_net *np)
{
	u32 i;

	for (i = 0; np->txb && i < np->fdev->ring_size; i++) {
		struct fdma_net_txb *b = &np->txb[i];

		if (b->len)
			txb_unmap(np, b);
		if (b->skb)
			dev_kfree_skb_any(b->skb);
		b->skb = NULL;
	}
}

/*
 * After a reset (device_let_go: acknowledged) every packet still posted is
 * dropped. Without the acknowledgment the device may still read them:
 * their memory is kept (unmapped but never freed) rather than reused.
 */
void fdma_net_tx_drain(struct fdma_net *np, bool device_let_go)
{
	struct fdma_ering *r = &np->tx->ring;
	struct fdma_ecpl e[32];
	u32 got, i;

	while ((got = fdma_ering_cancel(r, e, ARRAY_SIZE(e)))) {
		for (i = 0; i < got; i++) {
			struct fdma_net_txb *b = &np->txb[e[i].cookie & (r->size - 1)];

			b->pkt_len = 0;
			/*
			 * The device may still read them: packet and mapping stay
			 * in their slot (fdma_net_tx_release_kept()). Copied
			 * packets are gone already: only their pages are kept.
			 */
			if (!device_let_go) {
				np->kept = true;
				continue;
			}
			txb_unmap(np, b);
			if (b->skb)
				dev_kfree_skb_any(b->skb);
			b->skb = NULL;
		}
	}
	netdev_tx_reset_queue(netdev_get_tx_queue(np->ndev, 0));
}
