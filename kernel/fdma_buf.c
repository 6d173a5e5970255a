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
 *
 * Handles: a new buffer's handle is reserved in the file's table (a NULL
 * entry: not found by lookups) until the ioctl has copied it to user
 * space, and published only then, so a buffer whose handle could not be
 * returned is freed without any other thread having been able to use it.
 * A file holds at most max_bufs_per_file buffers (-ENOSPC beyond).
 *
 * Both kinds are charged to RLIMIT_MEMLOCK (see "RLIMIT_MEMLOCK" below).
 */
#include <linux/capability.h>
#include <linux/dma-mapping.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "fdma_drv.h"

static struct device *buf_dev(const struct fdma_buf *b)
{
	return &b->fdev->pdev->dev;
}

/* ---- RLIMIT_MEMLOCK ------------------------------------------------------ */

/*
 * The memory of both kinds of buffer is charged to the locked_vm of the
 * process that made the buffer (VmLck in /proc/PID/status), against its
 * RLIMIT_MEMLOCK unless it has CAP_IPC_LOCK, as account_locked_vm() does
 * (-ENOMEM over the limit), for as long as the memory lives. locked_vm is
 * changed only under mmap_lock held for writing.
 *
 * The charge is given back where the memory is freed, except when the
 * last reference goes in vm_ops->close() (munmap(), exit_mmap(), of this
 * process or of a child that inherited the mapping) or in a failed mmap():
 * mmap_lock is held there already, and taking it again would deadlock.
 * Such a buffer (its memory freed: only mm and the page count are left)
 * is queued on uncharge_list, and a work item gives the charge back later.
 * The buffer holds an mmgrab() reference (the mm_struct, not the address
 * space: a process that exits takes its locked_vm with it).
 *
 * Every charge first takes back the process's own queued uncharges under
 * the same write lock, and the work item takes a queued uncharge off the
 * list only under that lock too: a process that allocates again after
 * FDMA_IOC_BUF_FREE and munmap() never fails on a charge still on its way
 * back.
 */
static LIST_HEAD(uncharge_list);
static DEFINE_SPINLOCK(uncharge_lock);

static void buf_uncharge_work(struct work_struct *work);
static DECLARE_WORK(uncharge_work, buf_uncharge_work);

/*
 * Move mm's queued uncharges from uncharge_list to done; returns their
 * pages. The caller holds mm's mmap_lock for writing, or mm has no users
 * left.
 */
static unsigned long buf_uncharge_claim(struct mm_struct *mm,
					struct list_head *done)
{
	struct fdma_buf *b, *tmp;
	unsigned long pages = 0;

	spin_lock(&uncharge_lock);
	list_for_each_entry_safe(b, tmp, &uncharge_list, qnode) {
		if (b->mm != mm)
			continue;
		list_move_tail(&b->qnode, done);
		pages += b->locked;
	}
	spin_unlock(&uncharge_lock);
	return pages;
}

/* Uncharged (or their process is gone): drop what is left of them. */
static void buf_uncharge_done(struct list_head *done)
{
	struct fdma_buf *b, *tmp;

	list_for_each_entry_safe(b, tmp, done, qnode) {
		list_del(&b->qnode);
		mmdrop(b->mm);
		kfree(b);
	}
}

static void buf_uncharge_work(struct work_struct *work)
{
	for (;;) {
		struct mm_struct *mm = NULL;
		unsigned long pages;
		struct fdma_buf *b;
		LIST_HEAD(done);

		spin_lock(&uncharge_lock);
		b = list_first_entry_or_null(&uncharge_list, struct fdma_buf,
					     qnode);
		if (b) {
			mm = b->mm;
			mmgrab(mm);
		}
		spin_unlock(&uncharge_lock);
		if (!mm)
			return;
		if (mmget_not_zero(mm)) {
			mmap_write_lock(mm);
			pages = buf_uncharge_claim(mm, &done);
			if (pages)
				__account_locked_vm(mm, pages, false, current,
						    false);
			mmap_write_unlock(mm);
			mmput(mm);
		} else {
			/* The process is gone, and its locked_vm with it. */
			buf_uncharge_claim(mm, &done);
		}
		buf_uncharge_done(&done);
		mmdrop(mm);
	}
}

/*
 * Charge pages of b to the calling process. 0, -ENOMEM over its
 * RLIMIT_MEMLOCK, -EINTR if it is being killed.
 */
static int buf_charge(struct fdma_buf *b, unsigned long pages)
{
	struct mm_struct *mm = current->mm;
	unsigned long back;
	LIST_HEAD(done);
	int ret;

	if (!mm)
		return -EFAULT;
	if (mmap_write_lock_killable(mm))
		return -EINTR;
	back = buf_uncharge_claim(mm, &done);
	if (back)
		__account_locked_vm(mm, back, false, current, false);
	ret = __account_locked_vm(mm, pages, true, current,
				  capable(CAP_IPC_LOCK));
	mmap_write_unlock(mm);
	buf_uncharge_done(&done);
	if (ret)
		return ret;
	mmgrab(mm);
	b->mm = mm;
	b->locked = pages;
	return 0;
}

/* Give b's charge back now: the caller holds no mmap_lock. */
static void buf_uncharge(struct fdma_buf *b)
{
	struct mm_struct *mm = b->mm;

	/* The process may be gone: then there is nothing to uncharge. */
	if (mmget_not_zero(mm)) {
		mmap_write_lock(mm);
		__account_locked_vm(mm, b->locked, false, current, false);
		mmap_write_unlock(mm);
		mmput(mm);
	}
	mmdrop(mm);
	b->mm = NULL;
}

/* Module exit: every buffer is gone; wait for the last queued uncharges. */
void fdma_buf_exit(void)
{
	flush_work(&uncharge_work);
}

/* ---- buffers --------------------------------------------------------------- */

/*
 * Give the memory back. Process context, no lock held, or (in_mmap)
 * mmap_lock held: then the charge goes back later (see above).
 */
static void buf_release_mem(struct fdma_buf *b, bool in_mmap)
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
		kvfree(b->pages);
		kvfree(b->seg);
	}
	if (b->handle)
		ida_free(&fdev->handles, b->handle);
	atomic64_dec(&fdev->nbufs);
	if (b->mm && in_mmap) {
		/* Only the charge is left: the work item frees b. */
		spin_lock(&uncharge_lock);
		list_add_tail(&b->qnode, &uncharge_list);
		spin_unlock(&uncharge_lock);
		queue_work(system_unbound_wq, &uncharge_work);
		return;
	}
	if (b->mm)
		buf_uncharge(b);
	kfree(b);
}

static void buf_last_ref(struct fdma_buf *b, bool in_mmap)
{
	struct fdma_dev *fdev = b->fdev;

	if (b->tainted) {
		dev_warn(buf_dev(b), "buffer %u kept: it was in flight on a channel that did not acknowledge its reset\n",
			 b->handle);
		spin_lock(&fdev->qlock);
		list_add_tail(&b->qnode, &fdev->quarantine);
		spin_unlock(&fdev->qlock);
		return;
	}
	buf_release_mem(b, in_mmap);
}

static void buf_kref_release(struct kref *ref)
{
	buf_last_ref(container_of(ref, struct fdma_buf, ref), false);
}

static void buf_kref_release_mmap(struct kref *ref)
{
	buf_last_ref(container_of(ref, struct fdma_buf, ref), true);
}

/* Drop a reference; the caller holds no mmap_lock. */
void fdma_buf_put(struct fdma_buf *b)
{
	kref_put(&b->ref, buf_kref_release);
}

/* Drop a reference with mmap_lock held: vm_ops->close(), a failed mmap(). */
static void buf_put_mmap(struct fdma_buf *b)
{
	kref_put(&b->ref, buf_kref_release_mmap);
}

/* At the device's release: nothing can DMA any more. */
void fdma_buf_quarantine_free(struct fdma_dev *fdev)
{
	struct fdma_buf *b, *tmp;

	list_for_each_entry_safe(b, tmp, &fdev->quarantine, qnode) {
		list_del(&b->qnode);
		buf_release_mem(b, false);
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

/*
 * Give b a handle and reserve it in f's table (a NULL entry, which no
 * lookup finds): fdma_buf_publish() makes it usable, fdma_buf_unreserve()
 * takes it back. -ENOSPC: the file holds max_bufs_per_file buffers, or
 * the device's handles are all taken.
 */
static int buf_install(struct fdma_file *f, struct fdma_buf *b)
{
	int h, ret;

	down_write(&f->bufs_sem);
	if (f->nbufs >= fdma_param_max_bufs) {
		ret = -ENOSPC;
		goto out;
	}
	h = ida_alloc_range(&f->fdev->handles, 1, FDMA_HANDLE_MAX, GFP_KERNEL);
	if (h < 0) {
		ret = h;
		goto out;
	}
	ret = idr_alloc(&f->bufs, NULL, h, h + 1, GFP_KERNEL);
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

/* The handle of a new buffer reached user space: the buffer can be used. */
void fdma_buf_publish(struct fdma_file *f, struct fdma_buf *b)
{
	down_write(&f->bufs_sem);
	idr_replace(&f->bufs, b, b->handle);
	up_write(&f->bufs_sem);
}

/* The handle of a new buffer could not be returned: nobody saw it, free it. */
void fdma_buf_unreserve(struct fdma_file *f, struct fdma_buf *b)
{
	down_write(&f->bufs_sem);
	idr_remove(&f->bufs, b->handle);
	f->nbufs--;
	up_write(&f->bufs_sem);
	fdma_buf_put(b);
}

/* A new buffer, its handle reserved (*bp): see buf_install(). */
int fdma_buf_alloc(struct fdma_file *f, struct fdma_ioc_buf_alloc *a,
		   struct fdma_buf **bp)
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
	ret = buf_charge(b, b->alloc_size >> PAGE_SHIFT);
	if (ret)
		goto err;
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
	*bp = b;
	return 0;
err:
	buf_release_mem(b, false);
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

/* A new buffer, its handle reserved (*bp): see buf_install(). */
int fdma_buf_register(struct fdma_file *f, struct fdma_ioc_buf_reg *r,
		      struct fdma_buf **bp)
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
	ret = buf_charge(b, npages);
	if (ret)
		goto err;
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
	*bp = b;
	return 0;
err:
	buf_release_mem(b, false);
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

/* munmap(), exit_mmap(): mmap_lock is held. */
static void fdma_buf_vm_close(struct vm_area_struct *vma)
{
	buf_put_mmap(vma->vm_private_data);
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
		buf_put_mmap(b);
		return ret;
	}
	vma->vm_private_data = b;
	vma->vm_ops = &fdma_buf_vm_ops;
	return 0;
}
