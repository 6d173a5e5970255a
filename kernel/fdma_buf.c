// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fdma.ko: DMA buffers, named by handles private to an open file.
 *
 * Allocated (FDMA_IOC_BUF_ALLOC): dma_alloc_coherent(), mapped to user
 * space with dma_mmap_coherent() (the architecture's page attributes for
 * coherent DMA memory) at mmap offset handle << 32; the mapping must start
 * at that offset, be shared, and not be longer than the buffer. A mapping
 * holds a reference: FDMA_IOC_BUF_FREE drops the handle at once, the memory
 * goes with the last munmap().
 *
 * Registered (FDMA_IOC_BUF_REGISTER): user memory pinned once
 * (pin_user_pages_fast(FOLL_WRITE | FOLL_LONGTERM), charged to
 * RLIMIT_MEMLOCK unless CAP_IPC_LOCK), put in an sg table and mapped with
 * dma_map_sgtable(DMA_BIDIRECTIONAL). Its DMA segments are cut where either
 * a scatterlist entry (physically contiguous) or a DMA segment (bus
 * contiguous) ends, so that every piece of a request lies in one of each.
 * Around each transfer only the request's range is synced, piece by piece
 * (dma_sync_single_for_device() before the doorbell, _for_cpu() after the
 * completion): syncing the whole table would invalidate CPU caches over
 * parts of the buffer that user space is writing meanwhile (non-coherent
 * arm64), or copy a bounce buffer over them (swiotlb). Unpinned on free and
 * on release; the device-wide count is /sys/class/fdma/fdmaN/pinned_pages.
 *
 * A buffer is freed only when no transfer uses it: FDMA_IOC_BUF_FREE is
 * -EBUSY then, and release() stops the channels first. One that was in
 * flight on a channel whose reset was never acknowledged is "tainted" and
 * kept (the device might still write it) until the device is released.
 */
#include <linux/dma-mapping.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "fdma_drv.h"

static struct device *buf_dev(const struct fdma_buf *b)
{
	return &b->fdev->pdev->dev;
}

/* Give the memory back. Process context, no lock held. */
static void buf_release_mem(struct fdma_buf *b)
{
	struct fdma_dev *fdev = b->fdev;

	if (!b->user) {
		if (b->cpu) {
			dma_free_coherent(buf_dev(b), b->alloc_size, b->cpu,
					  b->bus);
			atomic64_sub(b->alloc_size, &fdev->coherent_bytes);
		}
	} else {
		if (b->sgt.sgl) {
			if (b->nseg)
				dma_unmap_sgtable(buf_dev(b), &b->sgt,
						  DMA_BIDIRECTIONAL, 0);
			sg_free_table(&b->sgt);
		}
		if (b->npages) {
			/* The device may have written them. */
			unpin_user_pages_dirty_lock(b->pages, b->npages, true);
			atomic64_sub(b->npages, &fdev->pinned_pages);
		}
		if (b->mm) {
			/* The process may be gone: then there is nothing to uncharge. */
			if (mmget_not_zero(b->mm)) {
				account_locked_vm(b->mm, b->npages, false);
				mmput(b->mm);
			}
			mmdrop(b->mm);
		}
		kvfree(b->pages);
		kvfree(b->seg);
	}
	if (b->handle)
		ida_free(&fdev->handles, b->handle);
	atomic64_dec(&fdev->nbufs);
	kfree(b);
}

static void buf_kref_release(struct kref *ref)
{
	struct fdma_buf *b = container_of(ref, struct fdma_buf, ref);
	struct fdma_dev *fdev = b->fdev;

	if (b->tainted) {
		dev_warn(buf_dev(b), "buffer %u kept: it was in flight on a channel that did not acknowledge its reset\n",
			 b->handle);
		spin_lock(&fdev->qlock);
		list_add_tail(&b->qnode, &fdev->quarantine);
		spin_unlock(&fdev->qlock);
		return;
	}
	buf_release_mem(b);
}

void fdma_buf_put(struct fdma_buf *b)
{
	kref_put(&b->ref, buf_kref_release);
}

/* At the device's release: nothing can DMA any more. */
void fdma_buf_quarantine_free(struct fdma_dev *fdev)
{
	struct fdma_buf *b, *tmp;

	list_for_each_entry_safe(b, tmp, &fdev->quarantine, qnode) {
		list_del(&b->qnode);
		buf_release_mem(b);
	}
}

static struct fdma_buf *buf_new(struct fdma_file *f, bool user)
{
	struct fdma_buf *b = kzalloc(sizeof(*b), GFP_KERNEL);

	if (!b)
		return NULL;
	kref_init(&b->ref);
	b->fdev = f->fdev;
	b->user = user;
	atomic_set(&b->inflight, 0);
	INIT_LIST_HEAD(&b->qnode);
	atomic64_inc(&f->fdev->nbufs);
	return b;
}

/* Give b a handle and put it in f's table. */
static int buf_install(struct fdma_file *f, struct fdma_buf *b)
{
	int h, ret;

	down_write(&f->bufs_sem);
	if (f->nbufs >= FDMA_BUFS_PER_FILE) {
		ret = -ENOSPC;
		goto out;
	}
	h = ida_alloc_range(&f->fdev->handles, 1, FDMA_HANDLE_MAX, GFP_KERNEL);
	if (h < 0) {
		ret = h == -ENOSPC ? -ENOSPC : h;
		goto out;
	}
	ret = idr_alloc(&f->bufs, b, h, h + 1, GFP_KERNEL);
	if (ret < 0) {
		ida_free(&f->fdev->handles, h);
		goto out;
	}
	b->handle = h;
	f->nbufs++;
	ret = 0;
out:
	up_write(&f->bufs_sem);
	return ret;
}

int fdma_buf_alloc(struct fdma_file *f, struct fdma_ioc_buf_alloc *a)
{
	struct fdma_dev *fdev = f->fdev;
	struct fdma_buf *b;
	int ret;

	if (a->flags || a->rsvd[0] || a->rsvd[1])
		return -EINVAL;
	if (!a->size || a->size > FDMA_ALLOC_MAX)
		return -EINVAL;
	b = buf_new(f, false);
	if (!b)
		return -ENOMEM;
	b->alloc_size = PAGE_ALIGN(a->size);
	b->size = b->alloc_size;
	/* Large sizes may simply not be there: no allocation-failure splat. */
	b->cpu = dma_alloc_coherent(&fdev->pdev->dev, b->alloc_size, &b->bus,
				    GFP_KERNEL | __GFP_NOWARN);
	if (!b->cpu) {
		ret = -ENOMEM;
		goto err;
	}
	atomic64_add(b->alloc_size, &fdev->coherent_bytes);
	if (b->bus & (fdev->caps.align - 1)) {
		ret = -EIO;
		goto err;
	}
	ret = buf_install(f, b);
	if (ret)
		goto err;
	a->size = b->size;
	a->handle = b->handle;
	a->mmap_offset = (u64)b->handle << FDMA_BUF_MMAP_SHIFT;
	return 0;
err:
	buf_release_mem(b);
	return ret;
}

/* Cut the buffer into pieces contiguous both physically and on the bus. */
static int buf_build_segs(struct fdma_buf *b, u32 align)
{
	struct sg_table *t = &b->sgt;
	struct scatterlist *cs = t->sgl, *ds = t->sgl;
	u64 off = 0, crem = cs->length, drem = sg_dma_len(ds);
	dma_addr_t dbus = sg_dma_address(ds);
	u32 dleft = t->nents - 1, n = 0, max = t->orig_nents + t->nents;

	b->seg = kvmalloc_array(max, sizeof(*b->seg), GFP_KERNEL);
	if (!b->seg)
		return -ENOMEM;
	while (off < b->size) {
		u64 len = min(crem, drem);

		if (!len || n == max)
			return -EIO;	/* the two views disagree */
		if ((dbus | len) & (align - 1))
			return -EINVAL;	/* the engine cannot move it */
		b->seg[n].off = off;
		b->seg[n].bus = dbus;
		b->seg[n].len = len;
		n++;
		off += len;
		dbus += len;
		crem -= len;
		drem -= len;
		if (!crem && off < b->size) {
			cs = sg_next(cs);
			crem = cs ? cs->length : 0;
		}
		if (!drem && off < b->size && dleft) {
			ds = sg_next(ds);
			dleft--;
			drem = sg_dma_len(ds);
			dbus = sg_dma_address(ds);
		}
	}
	b->nseg = n;
	return 0;
}

int fdma_buf_register(struct fdma_file *f, struct fdma_ioc_buf_reg *r)
{
	struct fdma_dev *fdev = f->fdev;
	struct device *dev = &fdev->pdev->dev;
	u32 align = fdev->caps.align;
	unsigned long first, npages, pinned = 0;
	unsigned int max_seg;
	struct fdma_buf *b;
	int ret;

	if (r->flags || r->rsvd[0] || r->rsvd[1])
		return -EINVAL;
	if (!r->size || ((r->addr | r->size) & (align - 1)))
		return -EINVAL;
	if (r->size > FDMA_REG_MAX || r->addr + r->size < r->addr)
		return -EINVAL;
	if (!access_ok(u64_to_user_ptr(r->addr), r->size))
		return -EFAULT;
	if (!current->mm)
		return -EFAULT;

	first = r->addr >> PAGE_SHIFT;
	npages = ((r->addr + r->size - 1) >> PAGE_SHIFT) - first + 1;
	b = buf_new(f, true);
	if (!b)
		return -ENOMEM;
	b->size = r->size;
	b->pages = kvmalloc_array(npages, sizeof(*b->pages), GFP_KERNEL);
	if (!b->pages) {
		ret = -ENOMEM;
		goto err;
	}
	ret = account_locked_vm(current->mm, npages, true);
	if (ret)
		goto err;
	b->mm = current->mm;
	mmgrab(b->mm);
	while (pinned < npages) {
		long got = pin_user_pages_fast((first + pinned) << PAGE_SHIFT,
					       npages - pinned,
					       FOLL_WRITE | FOLL_LONGTERM,
					       b->pages + pinned);

		if (got <= 0) {
			ret = got ? got : -EFAULT;
			break;
		}
		pinned += got;
	}
	if (pinned < npages) {
		account_locked_vm(b->mm, npages, false);
		mmdrop(b->mm);
		b->mm = NULL;
		unpin_user_pages(b->pages, pinned);
		goto err;
	}
	b->npages = npages;
	atomic64_add(npages, &fdev->pinned_pages);

	/* DMA segments no longer than a mapping may be (swiotlb). */
	max_seg = min_t(size_t, dma_max_mapping_size(dev), SZ_1G);
	max_seg = max_t(unsigned int, round_down(max_seg, PAGE_SIZE),
			PAGE_SIZE);
	ret = sg_alloc_table_from_pages_segment(&b->sgt, b->pages, npages,
						offset_in_page(r->addr),
						r->size, max_seg, GFP_KERNEL);
	if (ret)
		goto err;
	ret = dma_map_sgtable(dev, &b->sgt, DMA_BIDIRECTIONAL, 0);
	if (ret)
		goto err;
	b->nseg = 1;	/* mapped: unmap on release (buf_build_segs sets it) */
	ret = buf_build_segs(b, align);
	if (ret) {
		b->nseg = 1;
		goto err;
	}
	ret = buf_install(f, b);
	if (ret)
		goto err;
	r->handle = b->handle;
	return 0;
err:
	buf_release_mem(b);
	return ret;
}

int fdma_buf_free(struct fdma_file *f, u32 handle)
{
	struct fdma_buf *b;
	int ret = 0;

	down_write(&f->bufs_sem);
	b = handle ? idr_find(&f->bufs, handle) : NULL;
	if (!b) {
		ret = -EBADF;
	} else if (atomic_read_acquire(&b->inflight)) {
		ret = -EBUSY;
	} else {
		idr_remove(&f->bufs, handle);
		f->nbufs--;
	}
	up_write(&f->bufs_sem);
	if (!ret)
		fdma_buf_put(b);
	return ret;
}

/* At release: every transfer of the file was stopped before. */
void fdma_buf_free_all(struct fdma_file *f)
{
	struct fdma_buf *b;
	int id;

	idr_for_each_entry(&f->bufs, b, id)
		fdma_buf_put(b);
	idr_destroy(&f->bufs);
	f->nbufs = 0;
}

/*
 * The next engine request of [off, off + left) of b: at most max bytes,
 * within one DMA segment. Returns its length (0 if off is outside b) and
 * its bus address in *bus.
 */
u32 fdma_buf_piece(const struct fdma_buf *b, u64 off, u64 left, u32 max,
		   dma_addr_t *bus)
{
	u32 lo = 0, hi = b->nseg, i;
	const struct fdma_seg *s;
	u64 in;

	if (off >= b->size || !left)
		return 0;
	if (!b->user) {
		*bus = b->bus + off;
		return min_t(u64, left, max);
	}
	/* The last segment starting at or before off. */
	while (hi - lo > 1) {
		i = lo + (hi - lo) / 2;
		if (b->seg[i].off <= off)
			lo = i;
		else
			hi = i;
	}
	s = &b->seg[lo];
	in = off - s->off;
	if (in >= s->len)
		return 0;
	*bus = s->bus + in;
	return min3((u64)max, left, s->len - in);
}

/* Sync [off, off + len) of a registered buffer, piece by piece. */
void fdma_buf_sync(const struct fdma_buf *b, u64 off, u64 len,
		   enum dma_data_direction dir, bool for_device)
{
	struct device *dev = buf_dev(b);

	while (len) {
		dma_addr_t bus;
		u32 n = fdma_buf_piece(b, off, len, U32_MAX, &bus);

		if (!n)
			return;
		if (for_device)
			dma_sync_single_for_device(dev, bus, n, dir);
		else
			dma_sync_single_for_cpu(dev, bus, n, dir);
		off += n;
		len -= n;
	}
}

/* ---- mmap of an allocated buffer ----------------------------------------- */

static void fdma_buf_vm_open(struct vm_area_struct *vma)
{
	struct fdma_buf *b = vma->vm_private_data;

	kref_get(&b->ref);
}

static void fdma_buf_vm_close(struct vm_area_struct *vma)
{
	fdma_buf_put(vma->vm_private_data);
}

static const struct vm_operations_struct fdma_buf_vm_ops = {
	.open = fdma_buf_vm_open,
	.close = fdma_buf_vm_close,
};

/* off: the mmap offset, at or above 1 << FDMA_BUF_MMAP_SHIFT. */
int fdma_buf_mmap(struct fdma_file *f, struct vm_area_struct *vma, u64 off)
{
	unsigned long len = vma->vm_end - vma->vm_start;
	struct fdma_buf *b;
	u64 h = off >> FDMA_BUF_MMAP_SHIFT;
	int ret;

	if (off & (BIT_ULL(FDMA_BUF_MMAP_SHIFT) - 1) || !h ||
	    h > FDMA_HANDLE_MAX)
		return -EINVAL;
	down_read(&f->bufs_sem);
	b = idr_find(&f->bufs, h);
	if (!b || b->user || len > b->alloc_size) {
		up_read(&f->bufs_sem);
		return -EINVAL;
	}
	kref_get(&b->ref);
	up_read(&f->bufs_sem);

	/* dma_mmap_coherent() reads vm_pgoff as the offset in the buffer. */
	vma->vm_pgoff = 0;
	ret = dma_mmap_coherent(buf_dev(b), vma, b->cpu, b->bus,
				b->alloc_size);
	if (ret) {
		fdma_buf_put(b);
		return ret;
	}
	vma->vm_private_data = b;
	vma->vm_ops = &fdma_buf_vm_ops;
	return 0;
}
