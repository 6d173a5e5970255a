// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fdma.ko: dma-bufs imported as buffers (FDMA_IOC_BUF_IMPORT): GPU memory
 * exported by CUDA or ROCm, udmabuf, a dma-heap, any exporter. The rest of
 * the driver sees an ordinary buffer: segments of bus addresses.
 *
 * Import: a dynamic attachment for the device that does the DMA, with
 * allow_peer2peer (a GPU's memory behind its BAR is a fine target), then
 * under the reservation lock: pin where the exporter can, map once, and
 * wait for the kernel fences (an exporter's own clear or move of the
 * memory) before the device may touch it. The mapping is walked by its DMA
 * addresses and lengths only: sg_page() is never looked at, since P2P and
 * NVIDIA's exporters hand out entries without a struct page.
 *
 * CPU syncs: per request, as for any buffer, but only where the DMA API
 * says an address of the mapping needs them (dma_need_sync(): a bounce
 * buffer, a non-coherent device). The exporter's own CPU-access calls
 * (DMA_BUF_IOCTL_SYNC) sync its mapping, not ours: a udmabuf mapped for
 * us through swiotlb would otherwise never show the device's writes.
 * A peer's memory (a GPU's BAR, P2P) is never synced: cache maintenance
 * on an address that is not memory faults (arm64). On a non-coherent
 * device dma_need_sync() says yes to any address, so the mapping has to
 * say which are a peer's: scatterlists carry that flag where the kernel
 * keeps it (fdma_sg_is_bus_address()). Where it cannot say, a
 * non-coherent device does not offer peer-to-peer at all: the exporter
 * then hands host memory (or refuses), which is synced as any. On a
 * coherent one dma_need_sync() is only true of bounce buffers, never of
 * a peer's address.
 *
 * Moves: an exporter that could not pin may move the memory, and tells us
 * with move_notify() under the reservation lock. The rule (docs/dmabuf.md):
 * fdma_buf_stop_using() (the buffer turns stale at once, so that no new
 * request takes it, -EIO; the requests already using it get a grace to
 * finish, and those still in flight then end -EIO by a reset of their
 * channel, so that the device has let go of the memory; a channel that
 * does not acknowledge its reset stops the whole engine); then the
 * mapping is dropped. If the device could not be stopped (no PCI
 * function to stop), the mapping stays: the buffer is tainted, kept.
 * The application frees the handle and imports the fd again. A
 * mapping is not rebuilt behind the application's back: a stream that
 * silently moved into other memory is worse than one that stops.
 *
 * Release, in reverse: unmap, unpin (both under the reservation lock),
 * detach, and the reference on the dma-buf goes last.
 */
#include <linux/dma-buf.h>
#include <linux/dma-resv.h>
#include <linux/wait_bit.h>

#include "fdma_compat.h"
#include "fdma_drv.h"

MODULE_IMPORT_NS(DMA_BUF);

/* How long an import waits for the exporter's fences. */
#define FDMA_FENCE_WAIT	(10 * HZ)

static void dmabuf_move_notify(struct dma_buf_attachment *attach)
{
	struct fdma_buffer *b = attach->importer_priv;

	dma_resv_assert_held(attach->dmabuf->resv);
	/* Its device is removed, maybe freed: see fdma_dmabuf_keep(). */
	if (b->kept) {
		pr_crit_ratelimited("fdma: a dma-buf kept for good (its device was removed while it might still write it) was moved by its exporter\n");
		return;
	}
	/* Not mapped yet (a move during the import) or any more: nothing to do. */
	if (!b->dsgt)
		return;
	/* The device may still write it: the mapping stays, tainted, kept. */
	if (fdma_buf_stop_using(b, "moved by its exporter"))
		return;
	fdma_buf_nosync(b);
	dma_buf_unmap_attachment(attach, b->dsgt, DMA_BIDIRECTIONAL);
	b->dsgt = NULL;
}

/* Where the device can take a peer's memory (see the top), and where not. */
static const struct dma_buf_attach_ops fdma_dmabuf_attach_ops = {
	.allow_peer2peer = true,
	.move_notify = dmabuf_move_notify,
};

static const struct dma_buf_attach_ops fdma_dmabuf_attach_ops_nop2p = {
	.move_notify = dmabuf_move_notify,
};

/*
 * Cut [off, off + b->size) of the mapping into segments: DMA addresses and
 * lengths only, each at most 2 GiB (a segment's length is 32 bits), each
 * aligned as the engine needs.
 */
static int dmabuf_build_segs(struct fdma_buffer *b, u64 off, u32 align)
{
	struct device *dev = b->fdev->dma_dev;
	struct sg_table *t = b->dsgt;
	struct scatterlist *sg;
	u64 pos = 0, end = off + b->size;
	bool peer = false, sync = false;
	u32 n = 0, max;
	int i;

	max = t->nents + (u32)(b->size >> 31) + 1;
	b->seg = kvmalloc_array(max, sizeof(*b->seg), GFP_KERNEL_ACCOUNT);
	if (!b->seg)
		return -ENOMEM;
	for_each_sgtable_dma_sg(t, sg, i) {
		dma_addr_t bus = sg_dma_address(sg);
		u64 len = sg_dma_len(sg), lo, hi;

		lo = max(pos, off);
		hi = min(pos + len, end);
		for (; lo < hi; lo += min_t(u64, hi - lo, SZ_2G)) {
			u64 n_len = min_t(u64, hi - lo, SZ_2G);

			if (n == max)
				return -EIO;
			if ((bus + (lo - pos)) & (align - 1) ||
			    n_len & (align - 1))
				return -EINVAL;	/* the engine cannot move it */
			b->seg[n].off = lo - off;
			b->seg[n].bus = bus + (lo - pos);
			b->seg[n].len = n_len;
			/* A peer's memory is never synced (see the top). */
			if (fdma_sg_is_bus_address(sg))
				peer = true;
			else if (!sync)
				sync = dma_need_sync(dev, b->seg[n].bus);
			n++;
		}
		pos += len;
		if (pos >= end)
			break;
	}
	if (pos < end)
		return -ERANGE;	/* the mapping is shorter than the dma-buf */
	/* Syncs are per buffer: one that needs them must have no peer's memory. */
	if (peer && sync) {
		dev_err(dev, "dma-buf import: the exporter's mapping mixes a peer's memory with host memory that needs CPU syncs: not supported\n");
		return -EINVAL;
	}
	b->nseg = n;
	b->dsync = sync;
	return 0;
}

/*
 * Attach b->dmabuf to the device, pin, map and cut [off, + b->size) into
 * segments. Under revoke_sem with the device alive (fdma_buf.c).
 */
int fdma_dmabuf_map(struct fdma_buffer *b, u64 off)
{
	struct device *dev = b->fdev->dma_dev;
	struct dma_buf *dmabuf = b->dmabuf;
	struct sg_table *sgt;
	bool p2p;
	long left;
	int ret;

	/* A peer's memory only where it will not be synced (see the top). */
	p2p = FDMA_SG_BUS_FLAG || fdma_dma_coherent(dev);
	b->attach = dma_buf_dynamic_attach(dmabuf, dev, p2p ?
					   &fdma_dmabuf_attach_ops :
					   &fdma_dmabuf_attach_ops_nop2p, b);
	if (IS_ERR(b->attach)) {
		ret = PTR_ERR(b->attach);
		b->attach = NULL;
		return ret;
	}
	dma_resv_lock(dmabuf->resv, NULL);
	/* An exporter that cannot pin may move it later: see the top. */
	ret = dma_buf_pin(b->attach);
	b->pinned = !ret;
	sgt = dma_buf_map_attachment(b->attach, DMA_BIDIRECTIONAL);
	if (IS_ERR(sgt)) {
		ret = PTR_ERR(sgt);
		goto unlock;
	}
	b->dsgt = sgt;
	/* The segments under the lock: a move may drop the mapping after it. */
	ret = dmabuf_build_segs(b, off, b->fdev->dma_align);
	if (ret)
		goto unlock;
	/* The exporter's own work on the memory (a clear, a move) first. */
	left = dma_resv_wait_timeout(dmabuf->resv, DMA_RESV_USAGE_KERNEL,
				     true, FDMA_FENCE_WAIT);
	ret = left < 0 ? left : left ? 0 : -ETIMEDOUT;
unlock:
	dma_resv_unlock(dmabuf->resv);
	return ret;
}

/*
 * remove() keeps b for good (the engine never stopped and may still write
 * the memory): attached, pinned and mapped it stays, and from now on
 * move_notify leaves it alone, since the device it points at is freed at
 * the last close. Under fdev->buf_lock.
 */
void fdma_dmabuf_keep(struct fdma_buffer *b)
{
	dma_resv_lock(b->dmabuf->resv, NULL);
	b->kept = true;
	dma_resv_unlock(b->dmabuf->resv);
}

/* Undo fdma_dmabuf_map(), whatever it got to. Under fdev->buf_lock. */
void fdma_dmabuf_unmap(struct fdma_buffer *b)
{
	if (!b->attach)
		return;
	dma_resv_lock(b->dmabuf->resv, NULL);
	if (b->dsgt)
		dma_buf_unmap_attachment(b->attach, b->dsgt, DMA_BIDIRECTIONAL);
	b->dsgt = NULL;
	if (b->pinned)
		dma_buf_unpin(b->attach);
	b->pinned = false;
	dma_resv_unlock(b->dmabuf->resv);
	dma_buf_detach(b->dmabuf, b->attach);
	b->attach = NULL;
}
