// SPDX-License-Identifier: MIT
/*
 * libfdma "sim:" and "rtl:" backends: the engine core drives a simulated
 * device (model/fdma_mdev.h: the FDMA or XDMA model, or the RTL)
 * in-process, its channels from user space (echan.c). Registers are the
 * device's memory, kicked (the FDMA model), or trapped calls (the XDMA
 * model, the RTL); host memory reaches the device through the bus address
 * map; interrupts are eventfds: the seams the device has behind QEMU too.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fdma_internal.h"
#include "fdma_mdev.h"

static void *sim_dma(void *ctx, uint64_t bus, uint64_t len)
{
	struct fdma_dev *dev = ctx;

	return fdma_addrmap_lookup(&dev->sim->map, bus, len);
}

static void sim_irq(void *ctx, unsigned int vector)
{
	struct fdma_dev *dev = ctx;
	uint64_t one = 1;

	/* Channel i interrupts on vector i, on either engine; user interrupt k on nchan + k. */
	if (vector >= dev->sim->caps.nchan) {
		unsigned int k = vector - dev->sim->caps.nchan;
		int fd = k < FDMA_USER_IRQS ? __atomic_load_n(&dev->uirq_efd[k], __ATOMIC_ACQUIRE) : -1;

		if (fd >= 0 && write(fd, &one, sizeof(one)) < 0) {
			/* Only on overflow: the reader is told anyway. */
		}
		return;
	}
	if (dev->sim->ch[vector].efd < 0)
		return;
	atomic_fetch_add_explicit(&dev->sim->ch[vector].irqs, 1, memory_order_relaxed);
	if (write(dev->sim->ch[vector].efd, &one, sizeof(one)) < 0) {
		/* Only fails if the counter would overflow; the waiter is awake anyway. */
	}
}

/* What every simulated device (the models, the RTL) reaches the host through. */
static void fdma_sim_host(struct fdma_dev *dev, struct fdma_model_host *host)
{
	host->dma = sim_dma;
	host->irq = sim_irq;
	host->ctx = dev;
}

/* ---- buffers: host memory the model reaches through the bus address map ---- */

/* Why a buffer found no place in the bus address map (fdma_addrmap.h). */
static int map_err(struct fdma_dev *dev, int ret, const char *call, size_t size)
{
	bool low = dev->sim->map.shift == FDMA_ADDRMAP_LOW_SHIFT;

	if (ret == -EINVAL)
		return fdma_err(dev, ret, "%s: %zu bytes do not fit one bus window of %llu MiB%s", call,
				size, (1ull << dev->sim->map.shift) >> 20,
				low ? " (addr=32 keeps every bus address below 4 GiB)" : "");
	return fdma_err(dev, ret, "%s: no free bus window (%u per device, shared with the channel rings)",
			call, dev->sim->map.nslots);
}

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
	ret = fdma_addrmap_add(&dev->sim->map, p, size, &b->bus);
	if (ret) {
		munmap(p, len);
		return map_err(dev, ret, "fdma_buf_alloc", size);
	}
	b->addr = p;
	b->size = size;
	b->map_len = len;
	return 0;
}

static int sim_buf_register(struct fdma_dev *dev, struct fdma_buf *b, void *addr, size_t size)
{
	int ret = fdma_addrmap_add(&dev->sim->map, addr, size, &b->bus);

	if (ret)
		return map_err(dev, ret, "fdma_buf_register", size);
	b->addr = addr;
	b->size = size;
	return 0;
}

/*
 * The simulated device reaches host memory through the CPU's view of it,
 * so an imported fd must be mappable: a dma-buf whose exporter allows
 * mmap, or any shared memory file (a memfd stands in for one in tests).
 */
static int sim_buf_import(struct fdma_dev *dev, struct fdma_buf *b, int fd, u64 offset,
			  size_t size)
{
	size_t off, len;
	void *p = fdma_mmap_fd(fd, offset, size, &off, &len);
	int ret;

	if (!p)
		return fdma_err(dev, -errno,
				"fdma_buf_import_dmabuf: %s cannot map fd %d (%s); the simulated device reaches memory through a mapping",
				dev->info.backend, fd, strerror(errno));
	b->addr = p;
	b->size = size;
	b->map_off = off;
	b->map_len = len;
	b->flags = FDMA_BUF_DMABUF;
	ret = fdma_addrmap_add(&dev->sim->map, p, size, &b->bus);
	if (ret) {
		fdma_buf_unmap(b);
		return map_err(dev, ret, "fdma_buf_import_dmabuf", size);
	}
	return 0;
}

static int sim_buf_free(struct fdma_dev *dev, struct fdma_buf *b)
{
	unsigned int n = atomic_load(&b->inflight);

	if (n)
		return fdma_err(dev, -EBUSY, "fdma_buf_free: buffer %d has %u transfers in flight",
				(int)(b - dev->buf), n);
	fdma_addrmap_remove(&dev->sim->map, b->bus);
	fdma_buf_unmap(b);
	return 0;
}

static void fill_info(struct fdma_dev *dev, const struct fdma_sim_opts *o)
{
	const struct fdma_eng_caps *caps = &dev->sim->caps;
	const struct fdma_link_cfg *l = &o->dev.model.link;
	struct fdma_info *in = &dev->info;

	snprintf(in->backend, sizeof(in->backend), "%s", o->dev.rtl ? "rtl" : "sim");
	snprintf(in->name, sizeof(in->name), "%s, gen%u x%u MPS %u%s", dev->sim->mdev->ops->name,
		 l->gen, l->lanes, l->mps, o->dev.model.paced ? "" : ", unpaced");
	in->version = caps->version;
	snprintf(in->engine, sizeof(in->engine), "%s", caps->eng->name);
	in->user_irqs = caps->user_irqs < FDMA_USER_IRQS ? caps->user_irqs : FDMA_USER_IRQS;
	in->coal = (caps->coalesce ? FDMA_COAL_COUNT : 0) |
		   (caps->coal_timer ? FDMA_COAL_TIMER : 0) |
		   (caps->coal_emulated ? FDMA_COAL_EMULATED : 0);
	in->nchan = caps->nchan;
	in->align = caps->align;
	in->max_desc_len = caps->max_desc_len;
	in->card_size = caps->card_size;
	in->link.gen = l->gen;
	in->link.lanes = l->lanes;
	in->link.mps = l->mps;
	in->link.mrrs = l->mrrs;
	in->link.paced = o->dev.model.paced;
	in->link.write_mbps = fdma_link_write_Bps(l) / 1e6;
	in->link.read_mbps = fdma_link_read_Bps(l) / 1e6;
	for (u32 i = 0; i < in->nchan; i++) {
		fdma_chan_info_from_caps(&in->chan[i], caps->chan_caps[i], o->ring);
		in->chan[i].overrun_flag &= caps->overrun_flag;
	}
}

/* ---- the device: registers in memory and kicked, or trapped ------------ */

/* Trapped registers (XDMA's model, the RTL): every access a call into the device. */
static u32 mdev_rd(void *ctx, u32 off)
{
	return off >= FDMA_PLAT_BAR1 ? fdma_mdev_read(ctx, 1, off - FDMA_PLAT_BAR1)
				     : fdma_mdev_read(ctx, 0, off);
}

static void mdev_wr(void *ctx, u32 off, u32 val)
{
	if (off >= FDMA_PLAT_BAR1)
		fdma_mdev_write(ctx, 1, off - FDMA_PLAT_BAR1, val);
	else
		fdma_mdev_write(ctx, 0, off, val);
}

/* A register file in memory (the FDMA model's): the engine core kicks after writes. */
static void mdev_kick(void *ctx, unsigned int ch)
{
	fdma_mdev_kick(ctx, ch);
}

/*
 * The device for o: found by engine (and rtl=), started with the host's
 * side (DMA through the bus address map, interrupts to eventfds), and
 * reached by the engine core through dev->sim->plat.
 */
static int sim_device_create(struct fdma_dev *dev, const struct fdma_sim_opts *o)
{
	const struct fdma_mdev_ops *mops = o->dev.dev;
	struct fdma_model_host host;
	volatile u32 *regs;
	char why[256] = "";
	sigset_t all, old;
	int ret;

	fdma_sim_host(dev, &host);
	/*
	 * The device's threads stand in for hardware: they take no signal, so
	 * the application's own thread gets its SIGINT (a thread that spins
	 * without a system call would otherwise hold it, as under
	 * ThreadSanitizer, which delivers a signal only at a call it sees).
	 * Threads inherit the mask they are created with.
	 */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	ret = fdma_mdev_create(mops, &o->dev.model, &host, NULL, &dev->sim->mdev, why, sizeof(why));
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		dev->sim->mdev = NULL;
		return fdma_err(dev, ret, "%s", why);
	}
	regs = fdma_mdev_regs(dev->sim->mdev);
	if (regs) {
		dev->sim->plat.regs = regs;
		dev->sim->plat.kick = mdev_kick;
		dev->sim->plat.kick_ctx = dev->sim->mdev;
	} else {
		dev->sim->plat.rd = mdev_rd;
		dev->sim->plat.wr = mdev_wr;
		dev->sim->plat.trap_ctx = dev->sim->mdev;
	}
	/*
	 * The host's limits, which an engine without registers for them
	 * (XDMA) takes as given; the FDMA engine reads its own (struct
	 * fdma_eng_caps).
	 */
	dev->sim->caps.max_desc_len = o->dev.model.max_desc_len;
	dev->sim->caps.card_size = o->dev.model.card_size;
	dev->sim->caps.poll_wb = !o->no_wb;
	return 0;
}

/* ---- open and close ------------------------------------------------------ */

static void sim_close(struct fdma_dev *dev);

int fdma_sim_open(struct fdma_dev *dev, const struct fdma_sim_opts *o)
{
	int ret;

	dev->ops = &fdma_sim_ops;
	/* Its channels are cache-line aligned: so must it be. */
	dev->sim = aligned_alloc(_Alignof(struct fdma_sim), sizeof(*dev->sim));
	if (!dev->sim)
		return fdma_err(dev, -ENOMEM, "out of memory");
	memset(dev->sim, 0, sizeof(*dev->sim));
	for (int i = 0; i < FDMA_MAX_CHAN; i++)
		dev->sim->ch[i].efd = -1;
	/* addr=32: the device's bus addresses are below 4 GiB, as its 3DW
	 * request headers assume */
	if (o->dev.model.link.addr64)
		fdma_addrmap_init(&dev->sim->map);
	else
		fdma_addrmap_init_low(&dev->sim->map);
	for (int i = 0; i < FDMA_MAX_CHAN; i++) {
		dev->sim->ch[i].efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (dev->sim->ch[i].efd < 0)
			return fdma_err(dev, -errno, "eventfd: %s", strerror(errno));
	}
	ret = sim_device_create(dev, o);
	if (ret)
		return ret;
	ret = fdma_eng_probe(o->dev.eng, &dev->sim->plat, &dev->sim->caps);
	if (ret)
		return fdma_err(dev, ret, "no %s engine found (probe: %s)", o->dev.eng->name,
				strerror(-ret));
	ret = fdma_eng_reset(&dev->sim->plat, &dev->sim->caps, FDMA_RESET_TIMEOUT_US);
	if (ret)
		return fdma_err(dev, ret, "engine reset timed out");
	fdma_eng_enable(&dev->sim->plat, &dev->sim->caps, true);
	fill_info(dev, o);
	dev->link = o->dev.model.link;
	dev->link_known = true;
	for (u32 i = 0; i < dev->sim->caps.nchan; i++) {
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
	if (!dev->sim)
		return;
	for (int i = 0; i < FDMA_MAX_CHAN; i++)
		if (dev->sim->ch[i].present)
			fdma_echan_teardown(dev, i);
	if (dev->sim->mdev) {
		/* Bus mastering off and drained (a NOACK channel may still be writing). */
		fdma_eng_quiesce(&dev->sim->plat, &dev->sim->caps, FDMA_RESET_TIMEOUT_US);
		fdma_mdev_destroy(dev->sim->mdev);
		dev->sim->mdev = NULL;
	}
	/* The device is gone: nothing can write the memory we free now. */
	for (int i = 0; i < FDMA_MAX_BUFS; i++) {
		struct fdma_buf *b = &dev->buf[i];

		if (b->used)
			fdma_buf_unmap(b);
	}
	for (int i = 0; i < FDMA_MAX_CHAN; i++) {
		free(dev->sim->ch[i].mem);
		free(dev->sim->ch[i].slot);
		free(dev->sim->ch[i].req);
		if (dev->sim->ch[i].efd >= 0)
			close(dev->sim->ch[i].efd);
	}
	for (int i = 0; i < FDMA_USER_IRQS; i++)
		if (dev->uirq_efd[i] >= 0)
			close(dev->uirq_efd[i]);
	fdma_addrmap_destroy(&dev->sim->map);
	free(dev->sim);
	dev->sim = NULL;
}

/* An eventfd the model's interrupt for user irq writes; the engine lets it through from then on. */
static int sim_user_irq_fd(struct fdma_dev *dev, unsigned int irq)
{
	int fd;

	pthread_mutex_lock(&dev->lock);
	fd = dev->uirq_efd[irq];
	if (fd < 0) {
		fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (fd >= 0) {
			__atomic_store_n(&dev->uirq_efd[irq], fd, __ATOMIC_RELEASE);
			fdma_eng_user_irq_enable(&dev->sim->plat, &dev->sim->caps, 1u << irq, true);
		}
	}
	pthread_mutex_unlock(&dev->lock);
	if (fd < 0)
		return fdma_err(dev, -errno, "fdma_user_irq_fd: eventfd: %s", strerror(errno));
	return fd;
}

/*
 * One register of the device's BARs, as a card's (reg.c checked the
 * offset's alignment). BAR0 holds the engine's registers: a write there
 * needs FDMA_REG_FORCE, as on kdev:, and so does a read that clears a
 * status the library needs (XDMA's). A simulated device's registers are
 * 32-bit words: an 8- or 16-bit read takes its lanes of the word, as a
 * register file that ignores byte enables on reads answers; a narrower
 * write it cannot take.
 */
static int sim_reg(struct fdma_dev *dev, unsigned int bar, u64 off, u32 *val, bool write,
		   unsigned int flags)
{
	const struct fdma_mdev_ops *mops = dev->sim->mdev->ops;
	unsigned int w = flags & FDMA_REG_8 ? 1 : flags & FDMA_REG_16 ? 2 : 4;
	u32 word = (u32)off & ~3u, v;

	if (bar >= mops->nbars)
		return fdma_err(dev, -ENXIO, mops->nbars == 1 ? "the %s has BAR0 only, not BAR%u" :
				"the %s has BAR0 and BAR1, not BAR%u", mops->name, bar);
	if (off >= mops->bar_bytes[bar])
		return fdma_err(dev, -ERANGE, "offset 0x%llx is beyond BAR%u's %u bytes (%s)",
				(unsigned long long)off, bar, mops->bar_bytes[bar],
				mops->bar_what[bar]);
	if (write && w < 4)
		return fdma_err(dev, -EOPNOTSUPP,
				"the %s's registers take 32-bit writes only: no %u-bit write at BAR%u 0x%llx",
				mops->name, 8 * w, bar, (unsigned long long)off);
	if (!(flags & FDMA_REG_FORCE) && bar == 0 &&
	    (write || fdma_eng_rd_clears(dev->sim->caps.eng, word)))
		return fdma_err(dev, -EPERM,
				write ? "BAR0 0x%llx is the engine's register: writing it under the library can break the device (FDMA_REG_FORCE to insist)"
				      : "BAR0 0x%llx clears the channel's status when read, which the library needs (FDMA_REG_FORCE to insist)",
				(unsigned long long)off);
	if (write) {
		fdma_mdev_write(dev->sim->mdev, bar, (u32)off, *val);
		return 0;
	}
	v = fdma_mdev_read(dev->sim->mdev, bar, word);
	/* Little-endian: byte k of the word is bits 8k.. (docs/engine.md). */
	v >>= 8 * ((u32)off & 3);
	*val = w == 4 ? v : v & ((1u << (8 * w)) - 1);
	return 0;
}

const struct fdma_ops fdma_sim_ops = {
	.close = sim_close,
	.buf_alloc = sim_buf_alloc,
	.buf_register = sim_buf_register,
	.buf_import = sim_buf_import,
	.buf_free = sim_buf_free,
	.submit = fdma_echan_submit,
	.submit_copy = fdma_echan_submit_copy,
	.reap = fdma_echan_reap,
	.inflight = fdma_echan_inflight,
	.chan_fd = fdma_echan_fd,
	.user_irq_fd = sim_user_irq_fd,
	.set_wait = fdma_echan_set_wait,
	.set_coalesce = fdma_echan_set_coalesce,
	.set_drop = fdma_echan_set_drop,
	.reset = fdma_echan_reset,
	.set_testgen = fdma_echan_set_testgen,
	.testgen_counts = fdma_echan_testgen_counts,
	.stats = fdma_echan_stats,
	.reg = sim_reg,
};

int fdma_rtl_counts_get(struct fdma_dev *dev, struct fdma_rtl_counts *out)
{
	return dev->sim && dev->sim->mdev ? fdma_mdev_rtl_counts(dev->sim->mdev, out) : -ENODEV;
}
