// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fdma.ko network interface: receive. Each C2H stream descriptor is one
 * page from a page_pool, mapped once by the pool and synced for the
 * device by it when recycled (PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV); the
 * engine writes a frame after the skb headroom. A completed page becomes
 * an skb around it (napi_build_skb, no copy) marked for recycling, and
 * goes up through GRO. Pages are given back to the engine in batches, one
 * doorbell per batch. Only NAPI touches the ring while the interface is
 * up, so it needs no lock.
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
	struct fdma_dev *fdev = np->fdev;
	struct page_pool_params pp = {
		.flags = PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV,
		.order = 0,
		.pool_size = fdev->ring_size,
		.nid = dev_to_node(fdev->dma_dev),
		.dev = fdev->dma_dev,
		.dma_dir = DMA_FROM_DEVICE,
		.offset = np->rx_headroom,
		.max_len = np->rx_buf_len,
	};

	np->rxp = kcalloc(fdev->ring_size, sizeof(*np->rxp), GFP_KERNEL);
	if (!np->rxp)
		return -ENOMEM;
	np->pool = page_pool_create(&pp);
	if (IS_ERR(np->pool)) {
		int ret = PTR_ERR(np->pool);

		np->pool = NULL;
		kfree(np->rxp);
		np->rxp = NULL;
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

		if (!page)
			break;
		q.host = page_pool_get_dma_addr(page) + np->rx_headroom;
		if (WARN_ON_ONCE(fdma_ering_post(r, &q))) {
			page_pool_put_full_page(np->pool, page, false);
			break;
		}
		np->rxp[slot] = page;
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
	dma_sync_single_range_for_cpu(np->fdev->dma_dev, page_pool_get_dma_addr(page),
				      np->rx_headroom, e->len, DMA_FROM_DEVICE);
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

			if (np->rxp[slot] && device_let_go)
				page_pool_put_full_page(np->pool, np->rxp[slot], false);
			np->rxp[slot] = NULL;
		}
	}
}

/* Frames the engine dropped for want of a posted page since open. */
u64 fdma_net_rx_overruns(struct fdma_net *np)
{
	return (u32)(fdma_ering_overruns(&np->rx->ring) - np->overruns_seen);
}
