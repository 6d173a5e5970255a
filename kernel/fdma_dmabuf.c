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
 * Device memory (a GPU's, P2P) needs none on a coherent platform.
 *
 * Moves: an exporter that could not pin may move the memory, and tells us
 * with move_notify() under the reservation lock. The rule (docs/dmabuf.md):
 * fdma_buf_stop_using() (the buffer turns stale at once, so that no new
 * request takes it, -EIO; the requests already using it get a grace to
 * finish, and those still in flight then end -EIO by a reset of their
 * channel, so that the device has let go of the memory); then the mapping
 * is dropped.
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

#include "fdma_drv.h"

MODULE_IMPORT_NS(DMA_BUF);

/* How long an import waits for the exporter's fences. */
#define FDMA_FENCE_WAIT	(10 * HZ)

static void dmabuf_move_notify(struct dma_buf_attachment *attach)
{
	struct fdma_buf *b = attach->importer_priv;

	dma_resv_assert_held(attach->dmabuf->resv);
	/* Not mapped yet (a move during the import) or any more: nothing to do. */
	if (!b->dsgt)
		return;
	fdma_buf_stop_using(b, "moved by its exporter");
	dma_buf_unmap_attachment(attach, b->dsgt, DMA_BIDIRECTIONAL);
	b->dsgt = NULL;
}

static const struct dma_buf_attach_ops fdma_dmabuf_attach_ops = {
	.allow_peer2peer = true,
	.move_notify = dmabuf_move_notify,
};

/*
 * Cut [off, off + b->size) of the mapping into segments: DMA addresses and
 * lengths only, each at most 2 GiB (a segment's length is 32 bits), each
 * aligned as the engine needs.
 */
static int dmabuf_build_segs(struct fdma_buf *b, u64 off, u32 align)
{
	struct sg_table *t = b->dsgt;
	struct scatterlist *sg;
	u64 pos = 0, end = off + b->size;
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
			n++;
		}
		pos += len;
		if (pos >= end)
			break;
	}
	if (pos < end)
		return -ERANGE;	/* the mapping is shorter than the dma-buf */
	b->nseg = n;
	for (i = 0; i < n && !b->dsync; i++)
		b->dsync = dma_need_sync(b->fdev->dma_dev, b->seg[i].bus);
	return 0;
}

/*
 * Attach b->dmabuf to the device, pin, map and cut [off, + b->size) into
 * segments. Under revoke_sem with the device alive (fdma_buf.c).
 */
int fdma_dmabuf_map(struct fdma_buf *b, u64 off)
{
	struct dma_buf *dmabuf = b->dmabuf;
	struct sg_table *sgt;
	long left;
	int ret;

	b->attach = dma_buf_dynamic_attach(dmabuf, b->fdev->dma_dev,
					   &fdma_dmabuf_attach_ops, b);
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

/* Undo fdma_dmabuf_map(), whatever it got to. Under fdev->buf_lock. */
void fdma_dmabuf_unmap(struct fdma_buf *b)
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
