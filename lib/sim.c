// SPDX-License-Identifier: MIT
/*
 * libfdma "sim:" backend: the engine core drives the device model
 * in-process. The register file is plain memory both sides share, host
 * memory reaches the model through the bus address map, interrupts are
 * eventfds: the same three seams the model will have behind ivshmem.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fdma_internal.h"

static void *sim_dma(void *ctx, uint64_t bus, uint64_t len)
{
	struct fdma_dev *dev = ctx;

	return fdma_addrmap_lookup(&dev->map, bus, len);
}

static void sim_irq(void *ctx, unsigned int vector)
{
	struct fdma_dev *dev = ctx;
	uint64_t one = 1;

	if (vector < FDMA_MAX_CHAN && dev->ch[vector].efd >= 0 &&
	    write(dev->ch[vector].efd, &one, sizeof(one)) < 0) {
		/* Only fails if the counter would overflow; the waiter is awake anyway. */
	}
}

static void sim_kick(void *ctx, unsigned int ch)
{
	fdma_model_kick(ctx, ch);
}

/* ---- buffers: host memory the model reaches through the bus address map ---- */

static int sim_buf_alloc(struct fdma_dev *dev, struct fdma_buf *b, size_t size, unsigned int flags)
{
	bool huge = flags & FDMA_BUF_HUGEPAGE;
	size_t len;
	void *p = huge ? fdma_mmap_hugetlb(size, &len) : NULL;
	int ret;

	if (p)
		b->flags = FDMA_BUF_HUGEPAGE;
	else
		p = fdma_mmap_anon(size, huge, &len);
	if (!p)
		return fdma_err(dev, -ENOMEM, "fdma_buf_alloc: cannot map %zu bytes", size);
	ret = fdma_addrmap_add(&dev->map, p, size, &b->bus);
	if (ret) {
		munmap(p, len);
		return fdma_err(dev, ret,
				"fdma_buf_alloc: no free bus window (%d per device, shared with the channel rings)",
				FDMA_MAX_BUFS);
	}
	b->addr = p;
	b->size = size;
	b->map_len = len;
	return 0;
}

static int sim_buf_register(struct fdma_dev *dev, struct fdma_buf *b, void *addr, size_t size)
{
	int ret = fdma_addrmap_add(&dev->map, addr, size, &b->bus);

	if (ret)
		return fdma_err(dev, ret, "fdma_buf_register: no free bus window");
	b->addr = addr;
	b->size = size;
	return 0;
}

static int sim_buf_free(struct fdma_dev *dev, struct fdma_buf *b)
{
	unsigned int n = atomic_load(&b->inflight);

	if (n)
		return fdma_err(dev, -EBUSY, "fdma_buf_free: buffer %d has %u transfers in flight",
				(int)(b - dev->buf), n);
	fdma_addrmap_remove(&dev->map, b->bus);
	if (b->map_len)
		munmap(b->addr, b->map_len);
	b->map_len = 0;
	return 0;
}

static void fill_info(struct fdma_dev *dev, const struct fdma_sim_opts *o)
{
	struct fdma_info *in = &dev->info;
	const struct fdma_link_cfg *l = &o->model.link;

	snprintf(in->backend, sizeof(in->backend), "sim");
	snprintf(in->name, sizeof(in->name), "simulated FDMA, gen%u x%u MPS %u%s",
		 l->gen, l->lanes, l->mps, o->model.paced ? "" : ", unpaced");
	in->version = dev->caps.version;
	in->nchan = dev->caps.nchan;
	in->align = dev->caps.align;
	in->max_desc_len = dev->caps.max_desc_len;
	in->card_size = dev->caps.card_size;
	in->link.gen = l->gen;
	in->link.lanes = l->lanes;
	in->link.mps = l->mps;
	in->link.mrrs = l->mrrs;
	in->link.paced = o->model.paced;
	in->link.write_mbps = fdma_link_write_Bps(l) / 1e6;
	in->link.read_mbps = fdma_link_read_Bps(l) / 1e6;
	for (u32 i = 0; i < in->nchan; i++)
		fdma_chan_info_from_caps(&in->chan[i], dev->caps.chan_caps[i], o->ring);
}

static void sim_close(struct fdma_dev *dev);

int fdma_sim_open(struct fdma_dev *dev, const struct fdma_sim_opts *o)
{
	struct fdma_model_host host = { .dma = sim_dma, .irq = sim_irq, .ctx = dev };
	int ret;

	dev->ops = &fdma_sim_ops;
	fdma_addrmap_init(&dev->map);
	dev->regs = aligned_alloc(4096, FDMA_MODEL_REGS_BYTES);
	if (!dev->regs)
		return fdma_err(dev, -ENOMEM, "out of memory for the register file");
	memset((void *)dev->regs, 0, FDMA_MODEL_REGS_BYTES);
	for (int i = 0; i < FDMA_MAX_CHAN; i++) {
		dev->ch[i].efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (dev->ch[i].efd < 0)
			return fdma_err(dev, -errno, "eventfd: %s", strerror(errno));
	}
	ret = fdma_model_create(&o->model, dev->regs, &host, &dev->model);
	if (ret)
		return fdma_err(dev, ret, "cannot start the device model: %s", strerror(-ret));
	dev->plat.regs = dev->regs;
	dev->plat.kick = sim_kick;
	dev->plat.kick_ctx = dev->model;

	ret = fdma_eng_probe(&dev->plat, &dev->caps);
	if (ret)
		return fdma_err(dev, ret, "no FDMA engine found (probe: %s)", strerror(-ret));
	ret = fdma_eng_reset(&dev->plat, FDMA_RESET_TIMEOUT_US);
	if (ret)
		return fdma_err(dev, ret, "engine reset timed out");
	fdma_eng_enable(&dev->plat, true);
	fill_info(dev, o);
	dev->link = o->model.link;
	dev->link_known = true;
	for (u32 i = 0; i < dev->caps.nchan; i++) {
		ret = fdma_echan_setup(dev, (int)i, o->ring);
		if (ret)
			return ret;
		if (o->coal_count || o->coal_usecs)
			fdma_echan_set_coalesce(dev, (int)i, o->coal_count, o->coal_usecs);
	}
	return 0;
}

static void sim_close(struct fdma_dev *dev)
{
	for (int i = 0; i < FDMA_MAX_CHAN; i++)
		if (dev->ch[i].present)
			fdma_echan_teardown(dev, i);
	if (dev->model) {
		/* Bus mastering off and drained (a NOACK channel may still be writing). */
		fdma_eng_quiesce(&dev->plat, &dev->caps, FDMA_RESET_TIMEOUT_US);
		fdma_model_destroy(dev->model);
		dev->model = NULL;
	}
	/* The device is gone: nothing can write the memory we free now. */
	for (int i = 0; i < FDMA_MAX_BUFS; i++) {
		struct fdma_buf *b = &dev->buf[i];

		if (b->used && b->map_len)
			munmap(b->addr, b->map_len);
	}
	for (int i = 0; i < FDMA_MAX_CHAN; i++) {
		free(dev->ch[i].mem);
		free(dev->ch[i].slot);
		free(dev->ch[i].req);
		if (dev->ch[i].efd >= 0)
			close(dev->ch[i].efd);
	}
	free((void *)dev->regs);
	fdma_addrmap_destroy(&dev->map);
}

/*
 * The simulated device has one BAR: the engine's register file, all of it
 * the engine's. Reads are free (the engine's registers have no read side
 * effects); writes need FDMA_REG_FORCE, as on kdev:.
 */
static int sim_reg(struct fdma_dev *dev, unsigned int bar, u64 off, u32 *val, bool write,
		   unsigned int flags)
{
	if (bar != 0)
		return fdma_err(dev, -ENXIO, "the simulated device has BAR0 only, not BAR%u", bar);
	if (off >= FDMA_MODEL_REGS_BYTES)
		return fdma_err(dev, -ERANGE,
				"offset 0x%llx is beyond BAR0's %u bytes (the engine's registers)",
				(unsigned long long)off, FDMA_MODEL_REGS_BYTES);
	if (!write) {
		*val = __atomic_load_n(&dev->regs[off / 4], __ATOMIC_ACQUIRE);
		return 0;
	}
	if (!(flags & FDMA_REG_FORCE))
		return fdma_err(dev, -EPERM,
				"BAR0 0x%llx is the engine's register: writing it under the library can break the device (FDMA_REG_FORCE to insist)",
				(unsigned long long)off);
	/* The model polls its registers: a store is a write on this bus. */
	__atomic_store_n(&dev->regs[off / 4], *val, __ATOMIC_RELEASE);
	return 0;
}

const struct fdma_ops fdma_sim_ops = {
	.close = sim_close,
	.buf_alloc = sim_buf_alloc,
	.buf_register = sim_buf_register,
	.buf_free = sim_buf_free,
	.submit = fdma_echan_submit,
	.submit_copy = fdma_echan_submit_copy,
	.reap = fdma_echan_reap,
	.inflight = fdma_echan_inflight,
	.chan_fd = fdma_echan_fd,
	.set_wait = fdma_echan_set_wait,
	.set_coalesce = fdma_echan_set_coalesce,
	.set_drop = fdma_echan_set_drop,
	.reset = fdma_echan_reset,
	.set_testgen = fdma_echan_set_testgen,
	.testgen_counts = fdma_echan_testgen_counts,
	.stats = fdma_echan_stats,
	.reg = sim_reg,
};
