/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * fdma.ko: the kernel API changes the driver meets between the kernels it
 * is built for out of tree (6.1, from its first release, to 6.12; built
 * and tested on Debian's 6.1 and 6.12). This is the one place
 * that tests LINUX_VERSION_CODE; checkpatch's warning about it is expected
 * here, and only here.
 */
#ifndef FDMA_COMPAT_H
#define FDMA_COMPAT_H

#include <linux/dma-map-ops.h>
#include <linux/eventfd.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/scatterlist.h>
#include <linux/timer.h>
#include <linux/version.h>

/* 6.8 dropped eventfd_signal()'s count argument (it was always 1 here). */
static inline void fdma_eventfd_signal(struct eventfd_ctx *ctx)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 8, 0)
	eventfd_signal(ctx);
#else
	eventfd_signal(ctx, 1);
#endif
}

/* 6.8 renamed vb2_queue.min_buffers_needed to min_queued_buffers. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 8, 0)
#define FDMA_VB2_MIN_QUEUED(q)	((q)->min_queued_buffers)
#else
#define FDMA_VB2_MIN_QUEUED(q)	((q)->min_buffers_needed)
#endif

/* 6.3 made vm_flags read-only outside vm_flags_set(). */
static inline void fdma_vm_flags_set(struct vm_area_struct *vma,
				     unsigned long flags)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_set(vma, flags);
#else
	vma->vm_flags |= flags;
#endif
}

/* 6.8 renamed MAX_ORDER (one past the largest order) to MAX_PAGE_ORDER (the largest). */
#ifdef MAX_PAGE_ORDER
#define FDMA_MAX_PAGE_ORDER	MAX_PAGE_ORDER
#else
#define FDMA_MAX_PAGE_ORDER	(MAX_ORDER - 1)
#endif

/*
 * 6.11 made platform_driver.remove return void: name(pdev) calls fn(pdev)
 * with the return type the kernel wants.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
#define FDMA_PLATFORM_REMOVE(name, fn)					\
	static void name(struct platform_device *pdev) { fn(pdev); }
#else
#define FDMA_PLATFORM_REMOVE(name, fn)					\
	static int name(struct platform_device *pdev) { fn(pdev); return 0; }
#endif

/*
 * A DMA address of an exporter's mapping that is a peer's bus address (a
 * BAR, peer-to-peer): the CPU's cache maintenance must never run on it
 * (on arm64, a fault). 6.2 gave scatterlists a flag for it, kept only
 * where the kernel is built with it (CONFIG_PCI_P2PDMA, later
 * CONFIG_NEED_SG_DMA_FLAGS); its helper's name changed since, the flag's
 * did not. FDMA_SG_BUS_FLAG: this kernel can say.
 */
#ifdef SG_DMA_BUS_ADDRESS
#define FDMA_SG_BUS_FLAG	1
static inline bool fdma_sg_is_bus_address(const struct scatterlist *sg)
{
	return sg->dma_flags & SG_DMA_BUS_ADDRESS;
}
#else
#define FDMA_SG_BUS_FLAG	0
static inline bool fdma_sg_is_bus_address(const struct scatterlist *sg)
{
	return false;
}
#endif

/*
 * Whether the CPU's caches are coherent with the device's DMA: only then
 * does dma_need_sync() single out the addresses that need a sync (a
 * swiotlb bounce buffer) rather than say yes to every one. No exported
 * call says it; the DMA API's own inline does.
 */
static inline bool fdma_dma_coherent(struct device *dev)
{
	return dev_is_dma_coherent(dev);
}

/*
 * 6.2 renamed del_timer_sync() to timer_delete_sync() and added
 * timer_shutdown_sync(); 6.1's stable releases have both from 6.1.84 on,
 * and del_timer_sync() in every release. Before 6.1.84, shutting the timer
 * down is deleting it: its one user re-arms it only from NAPI, which is
 * off by then.
 */
static inline int fdma_timer_delete_sync(struct timer_list *timer)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 84)
	return timer_delete_sync(timer);
#else
	return del_timer_sync(timer);
#endif
}

static inline int fdma_timer_shutdown_sync(struct timer_list *timer)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 84)
	return timer_shutdown_sync(timer);
#else
	return del_timer_sync(timer);
#endif
}

/* 6.6 split page_pool's header; the calls used here are the same in both. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
#include <net/page_pool/helpers.h>
#else
#include <net/page_pool.h>
#endif

/*
 * io_uring commands (fdma_uring.c): 6.1's interface from 6.1.23 (io_uring_cmd's
 * cmd, <linux/io_uring.h>, io_uring_cmd_done() with issue_flags, which
 * 6.1.23 took from 6.3) and that of 6.7 on (io_uring_sqe_cmd(), its own
 * header, and cancelation: FDMA_URING_CANCEL). Earlier 6.1 releases and
 * those between changed it on the way and are not offered it (FDMA_URING 0).
 */
#if !IS_ENABLED(CONFIG_IO_URING)
#define FDMA_URING	0
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
#include <linux/io_uring/cmd.h>
#define FDMA_URING	1
#define FDMA_URING_CANCEL
#define fdma_uring_payload(cmd)	io_uring_sqe_cmd((cmd)->sqe)
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 23) && \
	LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0)
#include <linux/io_uring.h>
#define FDMA_URING	1
#define fdma_uring_payload(cmd)	((cmd)->cmd)
#else
#define FDMA_URING	0
#endif

#endif /* FDMA_COMPAT_H */
