// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fdma.ko: the FDMA engine's rings behind struct fdma_ring_ops. Each
 * channel has its write-back block, descriptors and completion records in
 * one coherent DMA allocation, driven through the engine core's
 * fdma_ering_* (engine/), which owns the ring arithmetic and the register
 * protocol; this file only allocates, and adapts the calls.
 */
#include <linux/dma-mapping.h>
#include <linux/slab.h>

#include "fdma_drv.h"

static int ering_init(struct fdma_chan *c)
{
	struct fdma_device *fdev = c->fdev;
	u32 size = fdev->ring_size;
	size_t dbytes = FDMA_RING_DESC_BYTES(size);
	size_t cbytes = FDMA_RING_REC_BYTES(&fdev->caps, size);
	/*
	 * The descriptors first (32-byte aligned, and page-aligned: XDMA's
	 * adjacent blocks never cross 4 KiB, so more of them are long), then
	 * the records (16 or 32 bytes each), then the write-back block
	 * (64-byte aligned): each area aligned whatever the ring size, in one
	 * page-aligned allocation.
	 */
	size_t doff = 0, coff = dbytes, woff = round_up(coff + cbytes, 64);
	int ret;

	c->slot = kcalloc(size, sizeof(*c->slot), GFP_KERNEL);
	if (!c->slot)
		return -ENOMEM;
	/* An engine request: a u32 length, and it must fit the ring once split. */
	c->ereq_max = round_down(min_t(u64, U32_MAX,
				       (u64)size * fdev->caps.max_desc_len),
				 fdev->caps.align);
	c->ring_bytes = woff + FDMA_RING_WB_BYTES;
	c->ring_mem = dma_alloc_coherent(fdev->dma_dev, c->ring_bytes,
					 &c->ring_bus, GFP_KERNEL);
	if (!c->ring_mem)
		return -ENOMEM;
	ret = fdma_ering_init(&c->ring, &fdev->plat, &fdev->caps, c->idx, size,
			      c->ring_mem + doff, c->ring_bus + doff,
			      c->ring_mem + coff, c->ring_bus + coff,
			      c->ring_mem + woff, c->ring_bus + woff, c->slot);
	if (ret) {
		dev_err(fdev->dma_dev, "channel %u: ring of %u entries refused (%d)\n",
			c->idx, size, ret);
		return ret;
	}
	c->ops->start(c);
	return 0;
}

/*
 * The ring of a channel whose reset was never acknowledged is given back
 * only once the engine stopped mastering the bus (fdev->quiesced); else it
 * is kept for good: the device may still write it.
 */
static void ering_free(struct fdma_chan *c)
{
	struct fdma_device *fdev = c->fdev;

	if (c->ring_mem && c->broken && !fdev->quiesced) {
		atomic64_add(c->ring_bytes, &fdev->leaked_bytes);
		dev_crit(fdev->dma_dev, "channel %u: rings (%zu bytes) kept for good: the engine may still write them\n",
			 c->idx, c->ring_bytes);
	} else if (c->ring_mem) {
		dma_free_coherent(fdev->dma_dev, c->ring_bytes, c->ring_mem,
				  c->ring_bus);
	}
	kfree(c->slot);
	c->ring_mem = NULL;
	c->slot = NULL;
}

/*
 * IRQ_EN stays set while the channel runs: the engine's coalescing rule
 * decides when it interrupts (docs/engine.md, section 7).
 */
static void ering_start(struct fdma_chan *c)
{
	/* Polled: the engine need not interrupt at all. */
	u32 irq = c->fdev->irq_mode == FDMA_IRQ_POLL ? 0 : FDMA_CH_CTRL_IRQ_EN;

	fdma_ering_set_coalesce(&c->ring, c->coal_count, c->coal_usecs);
	fdma_ering_start(&c->ring, irq | c->ctrl_flags, c->vec);
}

static void ering_irq_ack(struct fdma_chan *c)
{
	fdma_ering_irq_ack(&c->ring);
}

static int ering_reset(struct fdma_chan *c)
{
	return fdma_ering_reset(&c->ring, FDMA_RESET_TIMEOUT_US);
}

static void ering_stop(struct fdma_chan *c)
{
	fdma_ering_stop(&c->ring);
}

static int ering_check(struct fdma_chan *c, const struct fdma_ereq *q,
		       const char **why)
{
	return fdma_ering_check(&c->ring, q, why);
}

static u32 ering_ndesc(struct fdma_chan *c, u32 len)
{
	return fdma_ering_ndesc(&c->ring, len);
}

static u32 ering_space(struct fdma_chan *c)
{
	return fdma_ering_space(&c->ring);
}

static int ering_post(struct fdma_chan *c, const struct fdma_ereq *q)
{
	return fdma_ering_post(&c->ring, q);
}

static u32 ering_doorbell(struct fdma_chan *c)
{
	u32 before = c->ring.doorbells;

	fdma_ering_doorbell(&c->ring);
	return c->ring.doorbells - before;
}

static u32 ering_reap(struct fdma_chan *c, struct fdma_ecpl *e, u32 n)
{
	return fdma_ering_reap(&c->ring, e, n);
}

static u32 ering_cancel(struct fdma_chan *c, struct fdma_ecpl *e, u32 n)
{
	return fdma_ering_cancel(&c->ring, e, n);
}

static u32 ering_status(struct fdma_chan *c)
{
	return fdma_ering_status(&c->ring);
}

static void ering_pos(struct fdma_chan *c, struct fdma_ring_pos *p)
{
	p->posted = c->ring.pidx_pub;
	p->done = fdma_ering_done(&c->ring);
	p->reaped = c->ring.cidx;
}

static void ering_set_coalesce(struct fdma_chan *c, u32 count, u32 usecs)
{
	fdma_ering_set_coalesce(&c->ring, count, usecs);
}

static void ering_set_ctrl(struct fdma_chan *c, u32 mask, u32 val)
{
	fdma_ering_set_ctrl(&c->ring, mask, val);
}

static int ering_describe(struct fdma_chan *c, char *buf, size_t len)
{
	return scnprintf(buf, len, "ch%u of %s (%s)", c->idx,
			 dev_name(c->fdev->dma_dev), FDMA_DRV_NAME);
}

static u32 ering_overruns(struct fdma_chan *c)
{
	return fdma_ering_overruns(&c->ring);
}

const struct fdma_ring_ops fdma_ring_engine_ops = {
	.backend = "engine",
	.coal_timer = true,
	.init = ering_init,
	.free = ering_free,
	.start = ering_start,
	.reset = ering_reset,
	.stop = ering_stop,
	.check = ering_check,
	.ndesc = ering_ndesc,
	.space = ering_space,
	.post = ering_post,
	.doorbell = ering_doorbell,
	.reap = ering_reap,
	.cancel = ering_cancel,
	.status = ering_status,
	.pos = ering_pos,
	.set_coalesce = ering_set_coalesce,
	.set_ctrl = ering_set_ctrl,
	.overruns = ering_overruns,
	.irq_ack = ering_irq_ack,
	.describe = ering_describe,
};
