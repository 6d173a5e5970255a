// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fdma.ko network interface: receive. Each C2H stream descriptor is one
 * page from a page_pool; the engine writes a frame after the skb
 * headroom. A completed page becomes an skb around it (napi_build_skb, no
 * copy) marked for recycling, and goes up through GRO. Pages are given
 * back to the engine in batches, one doorbell per batch. Only NAPI touches
 * the ring while the interface is up, so it needs no lock.
 *
 * The driver maps a page when it posts it and unmaps it when the engine
 * is done with it, before the stack sees it, rather than letting the pool
 * keep its pages mapped: a page a socket still holds after the interface
 * or the device went away is then plain memory, and no DMA API call is
 * ever made on it for a device that may be gone. The cost is a map and an
 * unmap per frame, where the pool would sync (the same cache maintenance
 * on a non-coherent host).
 *
 * A refill that gets no page (memory, or mappings, short) leaves the ring
 * with fewer pages; one left with none would get no completion, so no
 * poll, ever again: a timer schedules NAPI to try again.
 */
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/skbuff.h>

#include "fdma_compat.h"
#include "fdma_net.h"

/* Pages given back per doorbell, at most: fewer doorbells, buffers back soon enough. */
#define RX_REFILL_BATCH	32

int fdma_net_rx_init(struct fdma_net *np)
{
	struct fdma_device *fdev = np->fdev;
	struct page_pool_params pp = {
		.order = 0,
		.pool_size = fdev->ring_size,
		.nid = dev_to_node(fdev->dma_dev),
		.dev = fdev->dma_dev,
	};

	np->rxp = kcalloc(fdev->ring_size, sizeof(*np->rxp), GFP_KERNEL);
	np->rxd = kcalloc(fdev->ring_size, sizeof(*np->rxd), GFP_KERNEL);
	if (!np->rxp || !np->rxd) {
		fdma_net_rx_free(np);
		return -ENOMEM;
	}
	np->pool = page_pool_create(&pp);
	if (IS_ERR(np->pool)) {
		int ret = PTR_ERR(np->pool);

		np->pool = NULL;
		fdma_net_rx_free(np);
		return ret;
	}
	return 0;
}

void fdma_net_rx_free(struct fdma_net *np)
{
	if (np->pool)
		page_pool_destroy(np->pool);
	np->pool = NULL;
	kfree(np->rxp);
	np->rxp = NULL;
	kfree(np->rxd);
	np->rxd = NULL;
}

/* The engine is done with slot's page: the CPU's again, all of it. */
static void rx_unmap(struct fdma_net *np, u32 slot)
{
	dma_unmap_page_attrs(np->fdev->dma_dev, np->rxd[slot], PAGE_SIZE, DMA_FROM_DEVICE,
			     DMA_ATTR_SKIP_CPU_SYNC);
}

/* Post free pages, up to a batch, with one doorbell. Returns the pages posted. */
static int rx_refill(struct fdma_net *np, u32 max)
{
	struct fdma_ering *r = &np->rx->ring;
	int n = 0;

	while (fdma_ering_space(r) && n < max) {
		u32 slot = r->pidx & (r->size - 1);
		struct page *page = page_pool_dev_alloc_pages(np->pool);
		struct fdma_ereq q = { .len = np->rx_buf_len, .cookie = slot };
		dma_addr_t dma;

		if (!page)
			break;
		/* The whole page: the CPU writes the skb's head room and tail after the unmap. */
		dma = dma_map_page(np->fdev->dma_dev, page, 0, PAGE_SIZE, DMA_FROM_DEVICE);
		if (dma_mapping_error(np->fdev->dma_dev, dma)) {
			page_pool_recycle_direct(np->pool, page);
			break;
		}
		q.host = dma + np->rx_headroom;
		if (WARN_ON_ONCE(fdma_ering_post(r, &q))) {
			dma_unmap_page(np->fdev->dma_dev, dma, PAGE_SIZE, DMA_FROM_DEVICE);
			page_pool_recycle_direct(np->pool, page);
			break;
		}
		np->rxp[slot] = page;
		np->rxd[slot] = dma;
		n++;
	}
	if (n) {
		fdma_ering_doorbell(r);
		fdma_net_count(&np->rxs, &np->rxs.doorbells, 1);
	}
	return n;
}

/* At open: the whole ring. -ENOMEM if not one page could be had. */
int fdma_net_rx_fill(struct fdma_net *np)
{
	int total = 0, n;

	while ((n = rx_refill(np, RX_REFILL_BATCH)) > 0)
		total += n;
	return total ? 0 : -ENOMEM;
}

/* One completed buffer: an skb up the stack, or the page back to the pool. */
static void rx_one(struct fdma_net *np, const struct fdma_ecpl *e, unsigned int *pkts,
		   unsigned int *bytes)
{
	struct fdma_ering *r = &np->rx->ring;
	u32 slot = e->cookie & (r->size - 1);
	struct page *page = np->rxp[slot];
	bool whole = (e->flags & FDMA_CPL_F_SOF) && (e->flags & FDMA_CPL_F_EOF);
	struct sk_buff *skb;

	np->rxp[slot] = NULL;
	/* What the engine wrote reaches the CPU's view; the rest of the page is stale anyway. */
	if (e->status == FDMA_CPL_OK && e->len)
		dma_sync_single_range_for_cpu(np->fdev->dma_dev, np->rxd[slot], np->rx_headroom,
					      min(e->len, np->rx_buf_len), DMA_FROM_DEVICE);
	rx_unmap(np, slot);
	if (e->status != FDMA_CPL_OK) {
		fdma_net_count(&np->rxs, &np->rxs.errors, 1);
		goto recycle;
	}
	/* A frame longer than one buffer (the peer's MTU above ours): each piece dropped. */
	if (!whole) {
		if (e->flags & FDMA_CPL_F_EOF)
			fdma_net_count(&np->rxs, &np->rxs.dropped, 1);
		goto recycle;
	}
	if (e->len < ETH_HLEN) {
		fdma_net_count(&np->rxs, &np->rxs.dropped, 1);
		goto recycle;
	}
	skb = napi_build_skb(page_address(page), PAGE_SIZE);
	if (unlikely(!skb)) {
		fdma_net_count(&np->rxs, &np->rxs.dropped, 1);
		goto recycle;
	}
	skb_reserve(skb, np->rx_headroom);
	__skb_put(skb, e->len);
	skb_mark_for_recycle(skb);
	skb->protocol = eth_type_trans(skb, np->ndev);
	(*pkts)++;
	*bytes += e->len;
	napi_gro_receive(&np->napi, skb);
	return;
recycle:
	page_pool_recycle_direct(np->pool, page);
}

/* Up to budget frames, then the ring refilled. Returns the frames taken (NAPI's work). */
int fdma_net_rx_poll(struct fdma_net *np, int budget)
{
	struct fdma_ering *r = &np->rx->ring;
	unsigned int pkts = 0, bytes = 0;
	struct fdma_ecpl e[RX_REFILL_BATCH];
	int done = 0;
	u32 got, i;

	while (done < budget) {
		got = fdma_ering_reap(r, e, min_t(u32, ARRAY_SIZE(e), budget - done));
		if (!got)
			break;
		for (i = 0; i < got; i++)
			rx_one(np, &e[i], &pkts, &bytes);
		done += got;
		/* Give pages back as they are used: the engine never waits for a whole poll. */
		if (fdma_ering_space(r) >= RX_REFILL_BATCH)
			rx_refill(np, RX_REFILL_BATCH);
	}
	rx_refill(np, r->size);
	/* Dry: nothing will complete, so nothing would poll again. */
	if (!fdma_ering_inflight(r))
		mod_timer(&np->refill, jiffies + max_t(unsigned long, HZ / 100, 1));
	u64_stats_update_begin(&np->rxs.syncp);
	u64_stats_add(&np->rxs.packets, pkts);
	u64_stats_add(&np->rxs.bytes, bytes);
	u64_stats_update_end(&np->rxs.syncp);
	return done;
}

/*
 * After the channel's reset: the posted pages go back to the pool, or,
 * if the device never acknowledged (it may still write them), are kept
 * for good.
 */
void fdma_net_rx_drain(struct fdma_net *np, bool device_let_go)
{
	struct fdma_ering *r = &np->rx->ring;
	struct fdma_ecpl e[32];
	u32 got, i;

	while ((got = fdma_ering_cancel(r, e, ARRAY_SIZE(e)))) {
		for (i = 0; i < got; i++) {
			u32 slot = e[i].cookie & (r->size - 1);

			if (!np->rxp[slot])
				continue;
			/*
			 * Unacknowledged, the device may still write it: page
			 * and mapping stay in their slot, and the pool with
			 * them (fdma_net_rx_release_kept()).
			 */
			if (!device_let_go) {
				np->kept = true;
				continue;
			}
			rx_unmap(np, slot);
			page_pool_put_full_page(np->pool, np->rxp[slot], false);
			np->rxp[slot] = NULL;
		}
	}
}

/* remove() stopped the engine (fdma_net_release()): the pages kept go back, and the pool. */
void fdma_net_rx_release_kept(struct fdma_net *np)
{
	u32 i;

	for (i = 0; np->rxp && i < np->fdev->ring_size; i++) {
		if (!np->rxp[i])
			continue;
		rx_unmap(np, i);
		page_pool_put_full_page(np->pool, np->rxp[i], false);
		np->rxp[i] = NULL;
	}
	fdma_net_rx_free(np);
}

/* Frames the engine dropped for want of a posted page since open. */
u64 fdma_net_rx_overruns(struct fdma_net *np)
{
	return (u32)(fdma_ering_overruns(&np->rx->ring) - np->overruns_seen);
}
