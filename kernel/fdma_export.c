// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fdma.ko: a buffer of the driver's own exported as a dma-buf
 * (FDMA_IOC_BUF_EXPORT), so that a frame the FPGA wrote goes on to an
 * encoder, a display, a GPU or a V4L2 device with no copy.
 *
 * Lifetime: the dma-buf takes its own reference on each page (fdma_buf.c
 * splits its chunks into single pages), not on the fdma buffer. Freeing
 * the handle, closing the file, even unbinding the device (which revokes
 * fdma's own user mappings and its DMA mapping) leave the dma-buf whole
 * until its last user goes. The pages stay charged to the memory cgroup
 * that allocated them (GFP_KERNEL_ACCOUNT); RLIMIT_MEMLOCK is charged by
 * the fdma buffer, while it lives.
 *
 * Only allocated buffers are exported: registered memory is the
 * application's (it can share it itself), and an imported dma-buf is
 * someone else's.
 *
 * Mappings: each attachment gets its own, for its own device, made in
 * map_dma_buf with the CPU syncs (a new mapping hands the memory to that
 * device) and undone with them. begin_cpu_access and end_cpu_access sync
 * every mapped attachment, in the direction it was mapped (the DMA API's
 * rule), so that the CPU, through the dma-buf's mmap or vmap, sees what
 * an importer's device wrote on a non-coherent system or through swiotlb,
 * and the other way round. fdma's own transfers sync fdma's mapping per
 * request, as for any of its buffers; fdma importing its own export gets a
 * mapping of its own (fdma_dmabuf.c), synced the same way.
 *
 * User space maps the dma-buf shared only (a private copy of DMA memory
 * would show neither side's writes); vmap (for importers that copy with
 * the CPU, such as vb2's vmalloc allocator) maps the pages once, the
 * dma-buf core counting its users.
 */
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/file.h>
#include <linux/iosys-map.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "fdma_compat.h"
#include "fdma_drv.h"

/**
 * struct fdma_xbuf - the memory behind one exported dma-buf
 * @pages: one reference each, dropped at release
 * @npages: pages, the dma-buf's size in pages
 * @lock: @attachments and each one's mapping
 * @attachments: struct fdma_xattach, one per importer's attachment
 */
struct fdma_xbuf {
	struct page **pages;
	unsigned long npages;
	struct mutex lock;		/* attachments, their mappings */
	struct list_head attachments;
};

/**
 * struct fdma_xseg - one DMA segment of an attachment's mapping
 * @addr: its bus address for the importer's device
 * @len: its bytes
 */
struct fdma_xseg {
	dma_addr_t addr;
	u32 len;
};

/**
 * struct fdma_xattach - one importer's attachment
 * @node: in fdma_xbuf.attachments
 * @dev: the importer's device
 * @sgt: the pages mapped for @dev, NULL while not mapped
 * @seg: @sgt's DMA segments, our own copy: the table is the importer's
 *	once returned (the dma-buf core's debug mangles its page links)
 * @nseg: entries of @seg
 * @dir: the direction @sgt was mapped in
 */
struct fdma_xattach {
	struct list_head node;
	struct device *dev;
	struct sg_table *sgt;
	struct fdma_xseg *seg;
	unsigned int nseg;
	enum dma_data_direction dir;
};

/* Exported dma-bufs alive, and their bytes (debugfs: a leak shows here). */
atomic64_t fdma_export_count = ATOMIC64_INIT(0);
atomic64_t fdma_export_bytes = ATOMIC64_INIT(0);

static int xbuf_attach(struct dma_buf *dmabuf, struct dma_buf_attachment *attach)
{
	struct fdma_xbuf *x = dmabuf->priv;
	struct fdma_xattach *a = kzalloc(sizeof(*a), GFP_KERNEL);

	if (!a)
		return -ENOMEM;
	a->dev = attach->dev;
	attach->priv = a;
	mutex_lock(&x->lock);
	list_add(&a->node, &x->attachments);
	mutex_unlock(&x->lock);
	return 0;
}

static void xbuf_detach(struct dma_buf *dmabuf, struct dma_buf_attachment *attach)
{
	struct fdma_xbuf *x = dmabuf->priv;
	struct fdma_xattach *a = attach->priv;

	mutex_lock(&x->lock);
	list_del(&a->node);
	mutex_unlock(&x->lock);
	kfree(a);
}

static struct sg_table *xbuf_map(struct dma_buf_attachment *attach,
				 enum dma_data_direction dir)
{
	struct fdma_xbuf *x = attach->dmabuf->priv;
	struct fdma_xattach *a = attach->priv;
	struct fdma_xseg *seg;
	struct scatterlist *sg;
	struct sg_table *sgt;
	unsigned int i;
	int ret;

	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	if (!sgt)
		return ERR_PTR(-ENOMEM);
	ret = sg_alloc_table_from_pages_segment(sgt, x->pages, x->npages, 0,
						x->npages << PAGE_SHIFT,
						dma_get_max_seg_size(a->dev),
						GFP_KERNEL);
	if (ret)
		goto err_free;
	ret = dma_map_sgtable(a->dev, sgt, dir, 0);
	if (ret)
		goto err_table;
	seg = kvmalloc_array(sgt->nents, sizeof(*seg), GFP_KERNEL);
	if (!seg) {
		ret = -ENOMEM;
		goto err_map;
	}
	for_each_sgtable_dma_sg(sgt, sg, i)
		seg[i] = (struct fdma_xseg){ sg_dma_address(sg), sg_dma_len(sg) };
	mutex_lock(&x->lock);
	if (a->sgt) {
		/* One mapping per attachment: the core never asks twice. */
		mutex_unlock(&x->lock);
		ret = -EBUSY;
		kvfree(seg);
		goto err_map;
	}
	a->sgt = sgt;
	a->seg = seg;
	a->nseg = sgt->nents;
	a->dir = dir;
	mutex_unlock(&x->lock);
	return sgt;

err_map:
	dma_unmap_sgtable(a->dev, sgt, dir, 0);
err_table:
	sg_free_table(sgt);
err_free:
	kfree(sgt);
	return ERR_PTR(ret);
}

static void xbuf_unmap(struct dma_buf_attachment *attach, struct sg_table *sgt,
		       enum dma_data_direction dir)
{
	struct fdma_xbuf *x = attach->dmabuf->priv;
	struct fdma_xattach *a = attach->priv;

	mutex_lock(&x->lock);
	if (a->sgt == sgt) {
		a->sgt = NULL;
		kvfree(a->seg);
		a->seg = NULL;
		a->nseg = 0;
	}
	mutex_unlock(&x->lock);
	dma_unmap_sgtable(a->dev, sgt, dir, 0);
	sg_free_table(sgt);
	kfree(sgt);
}

/*
 * Sync every mapped attachment, in the direction it was mapped (the DMA
 * API's rule): for the CPU, or back to the devices.
 */
static void xbuf_sync(struct fdma_xbuf *x, bool for_cpu)
{
	struct fdma_xattach *a;
	unsigned int i;

	mutex_lock(&x->lock);
	list_for_each_entry(a, &x->attachments, node)
		for (i = 0; i < a->nseg; i++) {
			const struct fdma_xseg *g = &a->seg[i];

			if (for_cpu)
				dma_sync_single_for_cpu(a->dev, g->addr, g->len, a->dir);
			else
				dma_sync_single_for_device(a->dev, g->addr, g->len, a->dir);
		}
	mutex_unlock(&x->lock);
}

/* The CPU is about to look (DMA_BUF_IOCTL_SYNC START, a kernel importer). */
static int xbuf_begin_cpu(struct dma_buf *dmabuf, enum dma_data_direction dir)
{
	xbuf_sync(dmabuf->priv, true);
	return 0;
}

/* The CPU is done: what it wrote goes to every mapped device. */
static int xbuf_end_cpu(struct dma_buf *dmabuf, enum dma_data_direction dir)
{
	xbuf_sync(dmabuf->priv, false);
	return 0;
}

/* Pages are mapped on first touch; the vma holds the dma-buf's file. */
static vm_fault_t xbuf_vm_fault(struct vm_fault *vmf)
{
	struct fdma_xbuf *x = vmf->vma->vm_private_data;

	if (vmf->pgoff >= x->npages)
		return VM_FAULT_SIGBUS;
	vmf->page = x->pages[vmf->pgoff];
	get_page(vmf->page);
	return 0;
}

static const struct vm_operations_struct xbuf_vm_ops = {
	.fault = xbuf_vm_fault,
};

static int xbuf_mmap(struct dma_buf *dmabuf, struct vm_area_struct *vma)
{
	/*
	 * The core has checked the range against the dma-buf's size.
	 * MAP_SHARED: VM_MAYSHARE (a read-only file's shared mapping has no
	 * VM_SHARED).
	 */
	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	fdma_vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_ops = &xbuf_vm_ops;
	vma->vm_private_data = dmabuf->priv;
	return 0;
}

static int xbuf_vmap(struct dma_buf *dmabuf, struct iosys_map *map)
{
	struct fdma_xbuf *x = dmabuf->priv;
	void *vaddr = vmap(x->pages, x->npages, VM_MAP, PAGE_KERNEL);

	if (!vaddr)
		return -ENOMEM;
	iosys_map_set_vaddr(map, vaddr);
	return 0;
}

static void xbuf_vunmap(struct dma_buf *dmabuf, struct iosys_map *map)
{
	vunmap(map->vaddr);
}

/* The last user is gone: every attachment was detached before. */
static void xbuf_release(struct dma_buf *dmabuf)
{
	struct fdma_xbuf *x = dmabuf->priv;
	unsigned long i;

	for (i = 0; i < x->npages; i++)
		put_page(x->pages[i]);
	atomic64_dec(&fdma_export_count);
	atomic64_sub((u64)x->npages << PAGE_SHIFT, &fdma_export_bytes);
	kvfree(x->pages);
	mutex_destroy(&x->lock);
	kfree(x);
}

static const struct dma_buf_ops fdma_xbuf_ops = {
	.attach = xbuf_attach,
	.detach = xbuf_detach,
	.map_dma_buf = xbuf_map,
	.unmap_dma_buf = xbuf_unmap,
	.begin_cpu_access = xbuf_begin_cpu,
	.end_cpu_access = xbuf_end_cpu,
	.mmap = xbuf_mmap,
	.vmap = xbuf_vmap,
	.vunmap = xbuf_vunmap,
	.release = xbuf_release,
};

/*
 * A new dma-buf over the pages of the file's allocated buffer r->handle.
 * Returns it with one reference (the caller installs it in an fd or puts
 * it), or an error: -EBADF no such handle, -EINVAL not an allocated
 * buffer, -ENODEV its memory was revoked (the device is gone), -ENOMEM.
 */
struct dma_buf *fdma_buf_export(struct fdma_file *f, u32 handle, int oflags)
{
	DEFINE_DMA_BUF_EXPORT_INFO(info);
	struct fdma_buffer *b = fdma_buf_get(f, handle);
	struct fdma_xbuf *x = NULL;
	struct dma_buf *dmabuf;
	unsigned long i, n = 0;
	int ret;

	if (IS_ERR(b))
		return ERR_CAST(b);
	ret = -EINVAL;
	if (b->kind != FDMA_BUF_ALLOC)
		goto err;
	ret = -ENOMEM;
	x = kzalloc(sizeof(*x), GFP_KERNEL);
	if (!x)
		goto err;
	mutex_init(&x->lock);
	INIT_LIST_HEAD(&x->attachments);
	x->pages = kvmalloc_array(b->npages, sizeof(*x->pages), GFP_KERNEL);
	if (!x->pages)
		goto err;
	/* Under the lock remove() gives the pages back under. */
	mutex_lock(&b->fdev->buf_lock);
	if (b->revoking || b->revoked) {
		mutex_unlock(&b->fdev->buf_lock);
		ret = -ENODEV;
		goto err;
	}
	for (n = 0; n < b->npages; n++) {
		x->pages[n] = b->pages[n];
		get_page(x->pages[n]);
	}
	mutex_unlock(&b->fdev->buf_lock);
	x->npages = n;

	info.ops = &fdma_xbuf_ops;
	info.size = n << PAGE_SHIFT;
	info.flags = oflags;
	info.priv = x;
	dmabuf = dma_buf_export(&info);
	if (IS_ERR(dmabuf)) {
		ret = PTR_ERR(dmabuf);
		goto err;
	}
	atomic64_inc(&fdma_export_count);
	atomic64_add((u64)n << PAGE_SHIFT, &fdma_export_bytes);
	fdma_buf_put(b);
	return dmabuf;

err:
	if (x) {
		for (i = 0; i < n; i++)
			put_page(x->pages[i]);
		kvfree(x->pages);
		mutex_destroy(&x->lock);
		kfree(x);
	}
	fdma_buf_put(b);
	return ERR_PTR(ret);
}
