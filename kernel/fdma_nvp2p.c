// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fdma.ko: GPU memory pinned through NVIDIA's peer-to-peer API
 * (FDMA_IOC_BUF_NVP2P), where the build found its nv-p2p.h (Kbuild:
 * NV_P2P_INC, NV_P2P=dgpu or jetson; docs/dmabuf.md). Two APIs behind
 * one set of calls here:
 *   dgpu    open-gpu-kernel-modules: cudaMalloc memory in 64 KiB GPU
 *           pages, mapped for our PCI function as peer (dma_addresses[]);
 *           the free callback comes only when the memory goes away.
 *   jetson  Jetson Linux: cudaHostAlloc memory in 4 KiB pages, mapped
 *           for our device (hw_address[], hw_len[]); put_pages itself
 *           fires the free callback, which must free the table.
 *
 * Pinned once, at registration, and mapped once: nothing per transfer.
 * Built this way, fdma.ko links against NVIDIA's module (its calls are
 * plain EXPORT_SYMBOL, which symbol_get() refuses since 6.5), so that
 * module loads first.
 *
 * The free callback (the application freed the memory, or exited) may
 * come at any moment, transfers in flight: it does what an exporter's
 * move does to an imported dma-buf (fdma_dmabuf.c): the buffer turns
 * stale, its requests get a grace to finish and are then ended with -EIO
 * by a reset of their channel (one that does not acknowledge it stops
 * the whole engine), and only then is the table freed. The pin
 * (struct fdma_nvp2p) is shared by the buffer and NVIDIA's callback and
 * goes with the last of them; the table and mapping pointers are claimed
 * under its lock by whichever side frees them, and NVIDIA is called
 * outside it (its callback may run under its own locks).
 */
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>

#include <nv-p2p.h>

#include "fdma_drv.h"

#ifdef FDMA_NV_P2P_JETSON
#define NVP2P_PAGE	SZ_4K
#else
#define NVP2P_PAGE	SZ_64K
#endif

struct fdma_nvp2p {
	struct kref ref;	/* the buffer's; the pin's while NVIDIA may call back */
	struct mutex lock;
	struct fdma_buffer *buf;	/* NULL once the buffer let go */
	u64 va;
	struct nvidia_p2p_page_table *pt;	/* NULL once claimed */
	struct nvidia_p2p_dma_mapping *map;
	struct nvidia_p2p_page_table *put_pt;	/* jetson: ours, being put ... */
	struct task_struct *put_task;		/* ... by this task */
	bool pinned;		/* the callback may still come */
	bool gone;		/* the callback came */

};

static void nvp2p_release(struct kref *ref)
{
	kfree(container_of(ref, struct fdma_nvp2p, ref));
}

/* Unmap and free what the callback claimed (NVIDIA's rules for it). */
static void nvp2p_free_claimed(struct nvidia_p2p_page_table *pt,
			       struct nvidia_p2p_dma_mapping *map)
{
#ifdef FDMA_NV_P2P_JETSON
	if (map)
		nvidia_p2p_dma_unmap_pages(map);
#else
	if (map)
		nvidia_p2p_free_dma_mapping(map);
#endif
	if (pt)
		nvidia_p2p_free_page_table(pt);
}

/* NVIDIA's free callback: the memory is going away. See the top. */
static void nvp2p_free_cb(void *data)
{
	struct fdma_nvp2p *p = data;
	struct nvidia_p2p_page_table *pt;
	struct nvidia_p2p_dma_mapping *map;
	bool drop;

	mutex_lock(&p->lock);
	p->gone = true;
	/*
	 * NVIDIA frees the memory once we return, whatever the device does:
	 * a channel that cannot let go stops the whole engine (or, where
	 * nothing can stop it, is said to). No sync after, of a mapping
	 * that goes.
	 */
	if (p->buf) {
		fdma_buf_stop_using(p->buf, "its GPU memory was freed");
		fdma_buf_nosync(p->buf);
	}
	pt = p->pt;
	map = p->map;
	p->pt = NULL;
	p->map = NULL;
	/* Jetson: our own put_pages calls us; any other caller leaves it ours. */
	if (!pt && p->put_pt && p->put_task == current) {
		pt = p->put_pt;
		p->put_pt = NULL;
	}
	drop = p->pinned;
	p->pinned = false;
	mutex_unlock(&p->lock);
	nvp2p_free_claimed(pt, map);
	if (drop)
		kref_put(&p->ref, nvp2p_release);
}

/* Cut the mapping into segments: contiguous bus ranges merged. */
static int nvp2p_build_segs(struct fdma_buffer *b, struct nvidia_p2p_dma_mapping *map,
			    u32 align)
{
	u32 i, n = 0;

	b->seg = kvmalloc_array(map->entries, sizeof(*b->seg), GFP_KERNEL_ACCOUNT);
	if (!b->seg)
		return -ENOMEM;
	for (i = 0; i < map->entries; i++) {
#ifdef FDMA_NV_P2P_JETSON
		dma_addr_t bus = map->hw_address[i];
		u32 len = map->hw_len[i];
#else
		dma_addr_t bus = map->dma_addresses[i];
		u32 len = NVP2P_PAGE;
#endif
		struct fdma_seg *s = n ? &b->seg[n - 1] : NULL;

		if ((bus | len) & (align - 1))
			return -EINVAL;
		if (s && s->bus + s->len == bus && s->len <= SZ_1G) {
			s->len += len;
		} else {
			b->seg[n].off = n ? s->off + s->len : 0;
			b->seg[n].bus = bus;
			b->seg[n].len = len;
			n++;
		}
	}
	if (!n || b->seg[n - 1].off + b->seg[n - 1].len < b->size)
		return -EIO;	/* NVIDIA mapped less than it pinned */
	b->nseg = n;
#ifdef FDMA_NV_P2P_JETSON
	/* Host memory the GPU shares: synced per request where it needs it. */
	for (i = 0; i < n && !b->dsync; i++)
		b->dsync = dma_need_sync(b->fdev->dma_dev, b->seg[i].bus);
#endif
	return 0;
}

/*
 * Pin [va, + b->size) of GPU memory and map it for the device. Under
 * revoke_sem with the device alive (fdma_buf.c). The table and mapping
 * are published (p->pt, p->map) only once both exist: a callback that
 * comes before finds nothing to free and says so (p->gone), and this
 * frees them instead.
 */
int fdma_nvp2p_map(struct fdma_buffer *b, u64 va)
{
	struct fdma_device *fdev = b->fdev;
	struct nvidia_p2p_page_table *pt = NULL;
	struct nvidia_p2p_dma_mapping *map = NULL;
	struct fdma_nvp2p *p;
	bool gone;
	int ret;

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	kref_init(&p->ref);
	mutex_init(&p->lock);
	p->buf = b;
	p->va = va;
	b->nvp2p = p;
	kref_get(&p->ref);	/* the pin's: see nvp2p_free_cb() */
	p->pinned = true;
#ifdef FDMA_NV_P2P_JETSON
	ret = nvidia_p2p_get_pages(va, b->size, &pt, nvp2p_free_cb, p);
#else
	ret = nvidia_p2p_get_pages(0, 0, va, b->size, &pt, nvp2p_free_cb, p);
#endif
	if (ret) {
		mutex_lock(&p->lock);
		p->pinned = false;
		mutex_unlock(&p->lock);
		kref_put(&p->ref, nvp2p_release);
		return ret;
	}
#ifdef FDMA_NV_P2P_JETSON
	ret = nvidia_p2p_dma_map_pages(fdev->dma_dev, pt, &map, DMA_BIDIRECTIONAL);
#else
	ret = fdev->pdev ? nvidia_p2p_dma_map_pages(fdev->pdev, pt, &map) : -ENODEV;
#endif
	if (ret)
		map = NULL;
	mutex_lock(&p->lock);
	gone = p->gone;
	if (!gone) {
		p->pt = pt;
		p->map = map;
	}
	mutex_unlock(&p->lock);
	if (gone) {
		/* Freed while we mapped it: the callback left the table to us. */
		nvp2p_free_claimed(pt, map);
		return -EIO;
	}
	if (ret)
		return ret;	/* fdma_nvp2p_unmap() puts the pages */
	return nvp2p_build_segs(b, map, fdev->dma_align);
}

/*
 * Let go of the GPU memory (free, close, kill, remove): unmap and put the
 * pages, unless the callback came first. Under fdev->buf_lock.
 */
void fdma_nvp2p_unmap(struct fdma_buffer *b)
{
	struct fdma_nvp2p *p = b->nvp2p;
	struct nvidia_p2p_page_table *pt;
	struct nvidia_p2p_dma_mapping *map;
	bool drop = false;
	int ret = 0;

	if (!p)
		return;
	mutex_lock(&p->lock);
	p->buf = NULL;
	pt = p->pt;
	map = p->map;
	p->pt = NULL;
	p->map = NULL;
#ifdef FDMA_NV_P2P_JETSON
	/* put_pages calls the callback, which frees the table (put_task). */
	p->put_pt = pt;
	p->put_task = current;
	mutex_unlock(&p->lock);
	if (pt) {
		bool gone;

		if (map)
			nvidia_p2p_dma_unmap_pages(map);
		mutex_lock(&p->lock);
		gone = p->gone;
		if (gone)
			p->put_pt = NULL;
		mutex_unlock(&p->lock);
		/* The memory went meanwhile: the table is ours to free, unput. */
		if (gone)
			nvidia_p2p_free_page_table(pt);
		else
			ret = nvidia_p2p_put_pages(pt);
	}
#else
	/*
	 * Unmapped under the lock: NVIDIA frees the table and its mappings
	 * once a callback returns, and a callback waits here for us. Not
	 * put_pages, which may wait for a callback itself.
	 */
	if (pt && map)
		nvidia_p2p_dma_unmap_pages(b->fdev->pdev, pt, map);
	mutex_unlock(&p->lock);
	if (pt)
		ret = nvidia_p2p_put_pages(0, 0, p->va, pt);
#endif
	/* Put, pinned: no callback will come. Else the callback came or will. */
	mutex_lock(&p->lock);
	if (!ret && p->pinned) {
		p->pinned = false;
		drop = true;
	}
	mutex_unlock(&p->lock);
	if (drop)
		kref_put(&p->ref, nvp2p_release);
	b->nvp2p = NULL;
	kref_put(&p->ref, nvp2p_release);
}

/*
 * A buffer kept for good (remove() found it tainted and the engine never
 * stopped): the callback must not touch it or its device, which is freed
 * at the last close; the pin stays. At remove(), under fdev->buf_lock.
 */
void fdma_nvp2p_forget(struct fdma_buffer *b)
{
	struct fdma_nvp2p *p = b->nvp2p;

	if (!p)
		return;
	mutex_lock(&p->lock);
	p->buf = NULL;
	mutex_unlock(&p->lock);
}

/* The page size NVIDIA pins in: addresses and sizes are multiples of it. */
u32 fdma_nvp2p_page(void)
{
	return NVP2P_PAGE;
}
