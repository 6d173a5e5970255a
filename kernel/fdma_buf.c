// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fdma.ko: DMA buffers, named by handles private to an open file.
 *
 * Both kinds are pages with a streaming DMA mapping, synced per request:
 *
 * Allocated (FDMA_IOC_BUF_ALLOC): zeroed pages of the driver's own, in
 * chunks as large as the allocator gives (up to 4 MiB, down to a page),
 * mapped to user space (ordinary cached memory) at mmap offset
 * handle << 32; the mapping must start at that offset, be shared, and not
 * be longer than the buffer. A mapping holds a reference: FDMA_IOC_BUF_FREE
 * drops the handle at once, the memory goes with the last munmap().
 *
 * Registered (FDMA_IOC_BUF_REGISTER): user memory pinned once
 * (pin_user_pages_fast(FOLL_WRITE | FOLL_LONGTERM)).
 *
 * Either is put in an sg table and mapped once with dma_map_sgtable()
 * (DMA_BIDIRECTIONAL, DMA_ATTR_SKIP_CPU_SYNC), and unmapped the same way:
 * the map and unmap do no cache maintenance and copy nothing. Around each
 * transfer only the request's range is synced, piece by piece
 * (dma_sync_single_for_device() before the doorbell, _for_cpu() after the
 * completion). A sync of the whole buffer at map or unmap time would
 * invalidate CPU caches over parts user space wrote meanwhile (a
 * non-coherent device, arm64), or copy a swiotlb bounce buffer over them:
 * a buffer freed after a transfer of its first 64 KiB would lose
 * everything the application wrote into the rest.
 *
 * DMA segments are cut where either a scatterlist entry (physically
 * contiguous) or a DMA segment (bus contiguous) ends, so that every piece
 * of a request lies in one of each. Requests are aligned to the device's
 * dma_align (the engine's alignment, at least the architecture's DMA cache
 * line), so two requests never share a cache line that a sync could
 * write back over the other's data.
 *
 * Memory registered twice (under two handles, or a page mapped twice in
 * one range) is mapped twice, and each buffer syncs only through the bus
 * addresses of its own mapping: under an IOMMU or swiotlb they are its
 * own. On a device mapped directly both mappings have the same bus
 * addresses, and the DMA API's debug (CONFIG_DMA_API_DEBUG) cannot tell
 * which one a sync is of: where two of them hold the range in one of its
 * hash buckets, it reports "device driver tries to sync DMA memory it has
 * not allocated" though both do.
 *
 * A buffer is freed only when no transfer uses it: FDMA_IOC_BUF_FREE is
 * -EBUSY then, and release() stops the channels first. One that was in
 * flight on a channel whose reset was never acknowledged is "tainted" and
 * kept (the device might still write it) until remove() has stopped the
 * engine, or for good if it never stopped.
 *
 * remove() revokes every buffer of the device (fdev->bufs): user mappings
 * zapped (a later access is SIGBUS), DMA mappings undone, pages unpinned
 * or freed, while the device is still ours; the files get -ENODEV from
 * then on and free the shells at close.
 *
 * Handles: a new buffer's handle is reserved in the file's table (a NULL
 * entry: not found by lookups) until the ioctl has copied it to user
 * space, and published only then, so a buffer whose handle could not be
 * returned is freed without any other thread having been able to use it.
 * A file holds at most max_bufs_per_file buffers (-ENOSPC beyond).
 *
 * Both kinds are charged to RLIMIT_MEMLOCK (see "RLIMIT_MEMLOCK" below),
 * and their kernel-side arrays to the memory cgroup (GFP_KERNEL_ACCOUNT).
 *
 * Imported (FDMA_IOC_BUF_IMPORT): a range of a dma-buf, the exporter's
 * memory (fdma_dmabuf.c). It is not charged (the exporter owns and counts
 * it), synced per request only where its mapping needs it, and not mapped
 * through the device node: user space maps the dma-buf itself where the
 * exporter allows.
 */
#include <linux/backing-dev.h>
#include <linux/capability.h>
#include <linux/compat.h>
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>

#include "fdma_compat.h"
#include "fdma_drv.h"

/* The largest chunk an allocated buffer is made of (order 10 = 4 MiB). */
#define FDMA_CHUNK_ORDER	min(10, FDMA_MAX_PAGE_ORDER)

atomic64_t fdma_pinned_total = ATOMIC64_INIT(0);

static struct device *buf_dev(const struct fdma_buffer *b)
{
	return b->fdev->dma_dev;
}

/* ---- RLIMIT_MEMLOCK ------------------------------------------------------ */

/*
 * The memory of both kinds of buffer is charged to the locked_vm of the
 * process that made the buffer (VmLck in /proc/PID/status), against its
 * RLIMIT_MEMLOCK unless it has CAP_IPC_LOCK, as account_locked_vm() does
 * (-ENOMEM over the limit), for as long as the buffer lives. locked_vm is
 * changed only under mmap_lock held for writing. The charge is taken
 * before anything is allocated.
 *
 * The charge is given back where the buffer is freed, except when the
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
	struct fdma_buffer *b, *tmp;
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
	struct fdma_buffer *b, *tmp;

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
		struct fdma_buffer *b;
		LIST_HEAD(done);

		spin_lock(&uncharge_lock);
		b = list_first_entry_or_null(&uncharge_list, struct fdma_buffer,
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
static int buf_charge(struct fdma_buffer *b, unsigned long pages)
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
static void buf_uncharge(struct fdma_buffer *b)
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

/* ---- memory ---------------------------------------------------------------- */

/*
 * Allocated buffers: want pages, in chunks split into single pages, into
 * b->pages; b->npages counts those allocated so far (freed on failure).
 */
static int buf_alloc_pages(struct fdma_buffer *b, unsigned long want)
{
	gfp_t gfp = GFP_KERNEL_ACCOUNT | __GFP_ZERO;
	int order = FDMA_CHUNK_ORDER;

	/* The engine reaches 32-bit bus addresses only: no bounce buffering. */
	if (b->fdev->dma_bits <= 32)
		gfp |= GFP_DMA32;
	while (b->npages < want) {
		struct page *p;
		unsigned long j;

		while (order && (1UL << order) > want - b->npages)
			order--;
		/*
		 * Large chunks if they are there, without a fight for them;
		 * single pages with reclaim, but never the OOM killer: a
		 * buffer too large for the machine is -ENOMEM.
		 */
		p = alloc_pages(gfp | __GFP_NOWARN | (order ? __GFP_NORETRY :
						      __GFP_RETRY_MAYFAIL),
				order);
		if (!p) {
			if (!order)
				return -ENOMEM;
			order--;
			continue;
		}
		/* One reference per page: each is mapped to user space alone. */
		split_page(p, order);
		for (j = 0; j < (1UL << order); j++)
			b->pages[b->npages++] = p + j;
		atomic64_add(PAGE_SIZE << order, &b->fdev->alloc_bytes);
	}
	return 0;
}

/* Give back the pages (unpin or free) of the first n of b->pages. */
static void buf_put_pages(struct fdma_buffer *b, unsigned long n)
{
	unsigned long i;

	if (b->kind == FDMA_BUF_USER) {
		/* The device may have written them. */
		unpin_user_pages_dirty_lock(b->pages, n, true);
		atomic64_sub(n, &b->fdev->pinned_pages);
		atomic64_sub(n, &fdma_pinned_total);
		return;
	}
	for (i = 0; i < n; i++)
		__free_page(b->pages[i]);
	atomic64_sub((u64)n << PAGE_SHIFT, &b->fdev->alloc_bytes);
}

/* Undo the DMA mapping, if there is one (no sync: see the top of this file). */
static void buf_unmap(struct fdma_buffer *b)
{
	if (b->kind == FDMA_BUF_DMABUF)
		fdma_dmabuf_unmap(b);
	if (b->kind == FDMA_BUF_NVP2P)
		fdma_nvp2p_unmap(b);
	if (b->sgt.sgl) {
		if (b->nseg)
			dma_unmap_sgtable(buf_dev(b), &b->sgt, DMA_BIDIRECTIONAL,
					  DMA_ATTR_SKIP_CPU_SYNC);
		sg_free_table(&b->sgt);
		b->sgt.sgl = NULL;
	}
	b->nseg = 0;
}

/*
 * Give back what b holds of the device and of memory: the DMA mapping,
 * then the pages. Under fdev->buf_lock.
 */
static void buf_drop_mem(struct fdma_buffer *b)
{
	buf_unmap(b);
	if (b->npages)
		buf_put_pages(b, b->npages);
	b->npages = 0;
	kvfree(b->pages);
	b->pages = NULL;
	kvfree(b->seg);
	b->seg = NULL;
	if (b->dmabuf)
		dma_buf_put(b->dmabuf);
	b->dmabuf = NULL;
}

/*
 * Free b. Process context, no lock held, or (in_mmap) mmap_lock held: then
 * the charge goes back later (see above).
 */
static void buf_release(struct fdma_buffer *b, bool in_mmap)
{
	struct fdma_device *fdev = b->fdev;

	/* Not mapped for the device yet, or on fdev->bufs (see buf_map_live()). */
	mutex_lock(&fdev->buf_lock);
	if (!b->revoked)
		buf_drop_mem(b);
	list_del_init(&b->dnode);
	mutex_unlock(&fdev->buf_lock);
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
	/* Still attached: the exporter may call move_notify with it (buf_keep()). */
	if (b->kept)
		return;
	kfree(b);
}

static void buf_last_ref(struct fdma_buffer *b, bool in_mmap)
{
	struct fdma_device *fdev = b->fdev;

	/* Checked under the lock remove() revokes under. */
	mutex_lock(&fdev->buf_lock);
	if (b->tainted && !b->revoked) {
		mutex_unlock(&fdev->buf_lock);
		dev_warn(buf_dev(b), "buffer %u kept: it was in flight on a channel that did not acknowledge its reset\n",
			 b->handle);
		spin_lock(&fdev->qlock);
		list_add_tail(&b->qnode, &fdev->quarantine);
		spin_unlock(&fdev->qlock);
		return;
	}
	mutex_unlock(&fdev->buf_lock);
	buf_release(b, in_mmap);
}

static void buf_kref_release(struct kref *ref)
{
	buf_last_ref(container_of(ref, struct fdma_buffer, ref), false);
}

static void buf_kref_release_mmap(struct kref *ref)
{
	buf_last_ref(container_of(ref, struct fdma_buffer, ref), true);
}

/* Drop a reference; the caller holds no mmap_lock. */
void fdma_buf_put(struct fdma_buffer *b)
{
	kref_put(&b->ref, buf_kref_release);
}

/* Drop a reference with mmap_lock held: vm_ops->close(), a failed mmap(). */
static void buf_put_mmap(struct fdma_buffer *b)
{
	kref_put(&b->ref, buf_kref_release_mmap);
}

/*
 * At the device's release: tainted buffers whose memory remove() gave
 * back, or kept for good; what is left is the bookkeeping.
 */
void fdma_buf_quarantine_free(struct fdma_device *fdev)
{
	struct fdma_buffer *b, *tmp;

	list_for_each_entry_safe(b, tmp, &fdev->quarantine, qnode) {
		list_del(&b->qnode);
		buf_release(b, false);
	}
}

/*
 * remove() keeps b for good: the engine never stopped and may still write
 * its memory, so it stays mapped (an imported buffer attached, GPU memory
 * pinned). What its exporter or NVIDIA may still call must touch neither b's
 * device, which is freed at the last close, nor its mapping: an imported
 * buffer is marked kept under the reservation lock its move_notify runs
 * under, and then outlives its file; NVIDIA's callback forgets it. Their
 * calls run this module's code: it stays too. Under fdev->buf_lock.
 */
static void buf_keep(struct fdma_buffer *b)
{
	if (b->kind == FDMA_BUF_DMABUF && b->attach)
		fdma_dmabuf_keep(b);
	else if (b->kind == FDMA_BUF_NVP2P && b->nvp2p)
		fdma_nvp2p_forget(b);
	else
		return;
	__module_get(THIS_MODULE);
}

/*
 * remove(): the engine is stopped (fdev->quiesced) or was asked to stop.
 * Every buffer is marked revoked first, so that no page fault maps its
 * pages again (fdma_buf_vm_fault()); then every user mapping of a buffer
 * is zapped (they are all mappings of this device's files: a later access
 * is SIGBUS); then every buffer's DMA mapping and memory are given back:
 * the device may be gone or bound to another driver once remove()
 * returns. A tainted buffer on an engine that never stopped is kept for
 * good (its pages stay pinned or allocated, counted in leaked_bytes).
 */
void fdma_buf_revoke_all(struct fdma_device *fdev)
{
	struct fdma_file *f;
	struct fdma_buffer *b;

	mutex_lock(&fdev->buf_lock);
	list_for_each_entry(b, &fdev->bufs, dnode)
		b->revoking = true;
	mutex_unlock(&fdev->buf_lock);

	mutex_lock(&fdev->files_lock);
	list_for_each_entry(f, &fdev->files, node)
		unmap_mapping_range(f->mapping, BIT_ULL(FDMA_BUF_MMAP_SHIFT), 0,
				    1);
	mutex_unlock(&fdev->files_lock);

	mutex_lock(&fdev->buf_lock);
	list_for_each_entry(b, &fdev->bufs, dnode) {
		if (b->revoked)
			continue;
		b->revoked = true;
		if (b->tainted && !fdev->quiesced) {
			atomic64_add(b->size, &fdev->leaked_bytes);
			dev_crit(buf_dev(b), "buffer %u (%llu bytes) kept for good: the engine may still write it\n",
				 b->handle, b->size);
			buf_keep(b);
			continue;
		}
		buf_drop_mem(b);
	}
	mutex_unlock(&fdev->buf_lock);
}

static struct fdma_buffer *buf_new(struct fdma_file *f, enum fdma_buf_kind kind)
{
	struct fdma_device *fdev = f->fdev;
	struct fdma_buffer *b = kzalloc(sizeof(*b), GFP_KERNEL_ACCOUNT);

	if (!b)
		return NULL;
	kref_init(&b->ref);
	b->fdev = fdev;
	b->kind = kind;
	atomic_set(&b->inflight, 0);
	spin_lock_init(&b->sync_lock);
	INIT_LIST_HEAD(&b->qnode);
	INIT_LIST_HEAD(&b->dnode);
	atomic64_inc(&fdev->nbufs);
	return b;
}

/*
 * Give b a handle and reserve it in f's table (a NULL entry, which no
 * lookup finds): fdma_buf_publish() makes it usable, fdma_buf_unreserve()
 * takes it back. -ENOSPC: the file holds max_bufs_per_file buffers, or
 * the device's handles are all taken (for a buffer a 32-bit process
 * allocates, those it can map: FDMA_HANDLE_MAX_MMAP2).
 */
static int buf_install(struct fdma_file *f, struct fdma_buffer *b)
{
	unsigned int max = FDMA_HANDLE_MAX;
	int h, ret;

	if (b->kind == FDMA_BUF_ALLOC &&
	    (!IS_ENABLED(CONFIG_64BIT) || in_compat_syscall()))
		max = FDMA_HANDLE_MAX_MMAP2;
	down_write(&f->bufs_sem);
	if (f->nbufs >= fdma_param_max_bufs) {
		ret = -ENOSPC;
		goto out;
	}
	h = ida_alloc_range(&f->fdev->handles, 1, max, GFP_KERNEL);
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
void fdma_buf_publish(struct fdma_file *f, struct fdma_buffer *b)
{
	down_write(&f->bufs_sem);
	idr_replace(&f->bufs, b, b->handle);
	up_write(&f->bufs_sem);
}

/* The handle of a new buffer could not be returned: nobody saw it, free it. */
void fdma_buf_unreserve(struct fdma_file *f, struct fdma_buffer *b)
{
	down_write(&f->bufs_sem);
	idr_remove(&f->bufs, b->handle);
	f->nbufs--;
	up_write(&f->bufs_sem);
	fdma_buf_put(b);
}

/* Cut the buffer into pieces contiguous both physically and on the bus. */
static int buf_build_segs(struct fdma_buffer *b, u32 align)
{
	struct sg_table *t = &b->sgt;
	struct scatterlist *cs = t->sgl, *ds = t->sgl;
	u64 off = 0, crem = cs->length, drem = sg_dma_len(ds);
	dma_addr_t dbus = sg_dma_address(ds);
	u32 dleft = t->nents - 1, n = 0, max = t->orig_nents + t->nents;

	b->seg = kvmalloc_array(max, sizeof(*b->seg), GFP_KERNEL_ACCOUNT);
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

/*
 * b->pages hold the buffer (from byte offset first_off of the first page):
 * build the sg table, map it for the device once, cut the segments.
 */
static int buf_map(struct fdma_buffer *b, unsigned long first_off)
{
	struct device *dev = buf_dev(b);
	unsigned int max_seg;
	int ret;

	/* DMA segments no longer than a mapping may be (swiotlb). */
	max_seg = min_t(size_t, dma_max_mapping_size(dev), FDMA_MAX_SEG);
	max_seg = max_t(unsigned int, round_down(max_seg, PAGE_SIZE),
			PAGE_SIZE);
	ret = sg_alloc_table_from_pages_segment(&b->sgt, b->pages, b->npages,
						first_off, b->size, max_seg,
						GFP_KERNEL_ACCOUNT);
	if (ret) {
		b->sgt.sgl = NULL;
		return ret;
	}
	/* No cache maintenance, no bounce copy: the per-request syncs do it. */
	ret = dma_map_sgtable(dev, &b->sgt, DMA_BIDIRECTIONAL,
			      DMA_ATTR_SKIP_CPU_SYNC);
	if (ret)
		return ret;
	b->nseg = 1;	/* mapped: unmap on release (buf_build_segs sets it) */
	ret = buf_build_segs(b, b->fdev->dma_align);
	if (ret)
		b->nseg = 1;
	return ret;
}

/*
 * Map b for the device and put it where remove() finds it, unless the
 * device is gone. Under revoke_sem, held here for nothing that takes
 * mmap_lock or faults (a process's mmap() holds mmap_lock and waits for
 * remove(), which waits for revoke_sem): the charge, the allocation and
 * the pinning come before.
 */
static int buf_map_live(struct fdma_buffer *b, u64 first_off)
{
	struct fdma_device *fdev = b->fdev;
	int ret = -ENODEV;

	down_read(&fdev->revoke_sem);
	if (!READ_ONCE(fdev->dead)) {
		if (b->kind == FDMA_BUF_DMABUF)
			ret = fdma_dmabuf_map(b, first_off);
		else if (b->kind == FDMA_BUF_NVP2P)
			ret = fdma_nvp2p_map(b, first_off);	/* the GPU address */
		else
			ret = buf_map(b, first_off);
		if (ret) {
			buf_unmap(b);
		} else {
			mutex_lock(&fdev->buf_lock);
			list_add_tail(&b->dnode, &fdev->bufs);
			mutex_unlock(&fdev->buf_lock);
		}
	}
	up_read(&fdev->revoke_sem);
	return ret;
}

/* The last steps of both kinds: mapped for the device, then a handle. */
static int buf_map_install(struct fdma_file *f, struct fdma_buffer *b,
			   u64 first_off)
{
	int ret = buf_map_live(b, first_off);

	return ret ? ret : buf_install(f, b);
}

/*
 * The last step of the kinds the caller only names (registered, imported,
 * NVIDIA's): mapped with a handle (*handle, *bp), or released.
 */
static int buf_finish(struct fdma_file *f, struct fdma_buffer *b, u64 first_off,
		      u32 *handle, struct fdma_buffer **bp)
{
	int ret = buf_map_install(f, b, first_off);

	if (ret) {
		buf_release(b, false);
		return ret;
	}
	*handle = b->handle;
	*bp = b;
	return 0;
}

/* A new buffer, its handle reserved (*bp): see buf_install(). */
int fdma_buf_alloc(struct fdma_file *f, struct fdma_ioc_buf_alloc *a,
		   struct fdma_buffer **bp)
{
	struct fdma_buffer *b;
	int ret;

	if (a->flags || a->rsvd[0] || a->rsvd[1])
		return -EINVAL;
	if (!a->size || a->size > FDMA_ALLOC_MAX)
		return -EINVAL;
	b = buf_new(f, FDMA_BUF_ALLOC);
	if (!b)
		return -ENOMEM;
	b->size = PAGE_ALIGN(a->size);
	/* More than half the machine's memory in one buffer is never there. */
	if ((b->size >> PAGE_SHIFT) > totalram_pages() / 2) {
		ret = -ENOMEM;
		goto err;
	}
	/* The charge first: a process over its limit allocates nothing. */
	ret = buf_charge(b, b->size >> PAGE_SHIFT);
	if (ret)
		goto err;
	b->pages = kvcalloc(b->size >> PAGE_SHIFT, sizeof(*b->pages),
			    GFP_KERNEL_ACCOUNT);
	if (!b->pages) {
		ret = -ENOMEM;
		goto err;
	}
	ret = buf_alloc_pages(b, b->size >> PAGE_SHIFT);
	if (ret)
		goto err;
	ret = buf_map_install(f, b, 0);
	if (ret)
		goto err;
	a->size = b->size;
	a->handle = b->handle;
	a->mmap_offset = (u64)b->handle << FDMA_BUF_MMAP_SHIFT;
	*bp = b;
	return 0;
err:
	buf_release(b, false);
	return ret;
}

/*
 * Memory the device may write for as long as it is registered must not be
 * page cache a file system writes back (a shared mapping of an ext4 file,
 * say): the pages would be dirtied behind its back. Anonymous memory,
 * tmpfs and hugetlbfs are fine. Kernels from 6.5 refuse such long-term
 * pins in GUP itself (-EFAULT); 6.1 does not, so the driver looks.
 */
static int buf_check_vmas(unsigned long start, unsigned long end)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	int ret = 0;

	if (mmap_read_lock_killable(mm))
		return -EINTR;
	for (; start < end; start = vma->vm_end) {
		vma = vma_lookup(mm, start);
		if (!vma) {
			ret = -EFAULT;
			break;
		}
		if ((vma->vm_flags & VM_SHARED) && vma->vm_file &&
		    mapping_can_writeback(vma->vm_file->f_mapping)) {
			ret = -EFAULT;
			break;
		}
	}
	mmap_read_unlock(mm);
	return ret;
}

/* A new buffer, its handle reserved (*bp): see buf_install(). */
int fdma_buf_register(struct fdma_file *f, struct fdma_ioc_buf_reg *r,
		      struct fdma_buffer **bp)
{
	struct fdma_device *fdev = f->fdev;
	u32 align = fdev->dma_align;
	unsigned long first, npages, pinned = 0;
	struct fdma_buffer *b;
	int ret;

	if (r->flags || r->rsvd[0] || r->rsvd[1])
		return -EINVAL;
	if (!r->size || ((r->addr | r->size) & (align - 1)))
		return -EINVAL;
	if (r->size > FDMA_REG_MAX || r->addr + r->size < r->addr)
		return -EINVAL;
	/*
	 * Past the address space: on a 32-bit kernel, also an end past 4 GiB,
	 * which access_ok(), the VMA check and the pinning below would see
	 * truncated (another range of the process's memory).
	 */
	if ((unsigned long)(r->addr + r->size) != r->addr + r->size ||
	    !access_ok(u64_to_user_ptr(r->addr), r->size))
		return -EFAULT;
	if (!current->mm)
		return -EFAULT;

	ret = buf_check_vmas(r->addr, r->addr + r->size);
	if (ret)
		return ret;
	first = r->addr >> PAGE_SHIFT;
	npages = ((r->addr + r->size - 1) >> PAGE_SHIFT) - first + 1;
	b = buf_new(f, FDMA_BUF_USER);
	if (!b)
		return -ENOMEM;
	b->size = r->size;
	/* The charge first: a process over its limit allocates nothing. */
	ret = buf_charge(b, npages);
	if (ret)
		goto err;
	b->pages = kvmalloc_array(npages, sizeof(*b->pages),
				  GFP_KERNEL_ACCOUNT);
	if (!b->pages) {
		ret = -ENOMEM;
		goto err;
	}
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
	atomic64_add(pinned, &fdev->pinned_pages);
	atomic64_add(pinned, &fdma_pinned_total);
	b->npages = pinned;
	if (pinned < npages)
		goto err;
	return buf_finish(f, b, offset_in_page(r->addr), &r->handle, bp);
err:
	buf_release(b, false);
	return ret;
}

/*
 * A new buffer over [offset, + size) of a dma-buf, its handle reserved
 * (*bp): see buf_install() and fdma_dmabuf.c.
 */
int fdma_buf_import(struct fdma_file *f, struct fdma_ioc_buf_import *r,
		    struct fdma_buffer **bp)
{
	u32 align = f->fdev->dma_align;
	struct dma_buf *dmabuf;
	struct fdma_buffer *b;

	if (r->flags || r->rsvd0 || r->rsvd[0] || r->rsvd[1])
		return -EINVAL;
	if (!r->size || ((r->offset | r->size) & (align - 1)))
		return -EINVAL;
	dmabuf = dma_buf_get(r->fd);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	if (r->offset > dmabuf->size || r->size > dmabuf->size - r->offset) {
		dma_buf_put(dmabuf);
		return -ERANGE;
	}
	b = buf_new(f, FDMA_BUF_DMABUF);
	if (!b) {
		dma_buf_put(dmabuf);
		return -ENOMEM;
	}
	b->dmabuf = dmabuf;
	b->size = r->size;
	return buf_finish(f, b, r->offset, &r->handle, bp);
}

/*
 * A new buffer over [va, + size) of GPU memory, pinned through NVIDIA's
 * P2P API (fdma_nvp2p.c), its handle reserved (*bp): see buf_install().
 */
int fdma_buf_import_nvp2p(struct fdma_file *f, struct fdma_ioc_buf_nvp2p *r,
			  struct fdma_buffer **bp)
{
	u32 page = fdma_nvp2p_page();
	struct fdma_buffer *b;

	if (!page)
		return -EOPNOTSUPP;	/* built without NVIDIA's nv-p2p.h */
	if (r->flags || r->rsvd[0] || r->rsvd[1])
		return -EINVAL;
	if (!r->size || ((r->va | r->size) & (page - 1)) ||
	    r->va + r->size < r->va || r->size > FDMA_REG_MAX)
		return -EINVAL;
	b = buf_new(f, FDMA_BUF_NVP2P);
	if (!b)
		return -ENOMEM;
	b->size = r->size;
	return buf_finish(f, b, r->va, &r->handle, bp);
}

int fdma_buf_free(struct fdma_file *f, u32 handle)
{
	struct fdma_buffer *b;
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

/* The file's buffer handle with a reference (fdma_buf_put()), or ERR_PTR(-EBADF). */
struct fdma_buffer *fdma_buf_get(struct fdma_file *f, u32 handle)
{
	struct fdma_buffer *b;

	down_read(&f->bufs_sem);
	b = handle ? idr_find(&f->bufs, handle) : NULL;
	if (b)
		kref_get(&b->ref);
	up_read(&f->bufs_sem);
	return b ?: ERR_PTR(-EBADF);
}

/* At release: every transfer of the file was stopped before. */
void fdma_buf_free_all(struct fdma_file *f)
{
	struct fdma_buffer *b;
	int id;

	idr_for_each_entry(&f->bufs, b, id)
		fdma_buf_put(b);
	idr_destroy(&f->bufs);
	f->nbufs = 0;
}

/*
 * The next engine request of [off, off + left) of b: at most max bytes,
 * within one DMA segment. Returns its length (0 if off is outside b, or b
 * was revoked) and its bus address in *bus. Called where remove() cannot
 * revoke meanwhile: under a channel's lock with the channel up, or with
 * the file's bufs_sem held before a submission (which then finds the
 * channel down).
 */
u32 fdma_buf_piece(const struct fdma_buffer *b, u64 off, u64 left, u32 max,
		   dma_addr_t *bus)
{
	u32 lo = 0, hi = b->nseg, i;
	const struct fdma_seg *s;
	u64 in;

	if (off >= b->size || !left || !b->nseg)
		return 0;
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

/*
 * Count a submission being prepared on b as a request in flight, before
 * its syncs: an exporter's move (fdma_dmabuf.c) then waits for it. The
 * count before the look at stale, with a full barrier, as the move sets
 * stale before it reads the count. -EIO: the buffer was moved.
 */
int fdma_buf_hold(struct fdma_buffer *b)
{
	atomic_inc(&b->inflight);
	/* Pairs with smp_mb() in dmabuf_move_notify(). */
	smp_mb__after_atomic();
	if (READ_ONCE(b->stale)) {
		fdma_buf_unhold(b);
		return -EIO;
	}
	return 0;
}

/*
 * Drop a count of fdma_buf_hold() or of a request. What b is, first: once
 * the count is 0, FDMA_IOC_BUF_FREE may free it (a move waiting for the
 * count only needs the address).
 */
void fdma_buf_unhold(struct fdma_buffer *b)
{
	bool foreign = b->kind == FDMA_BUF_DMABUF || b->kind == FDMA_BUF_NVP2P;

	atomic_dec_return_release(&b->inflight);
	if (foreign) {
		/*
		 * Wake fdma_buf_stop_using(): the count before the look at
		 * the wait queue, which the waiter fills before it reads the
		 * count (pairs with wait_var_event_timeout()'s barrier).
		 */
		smp_mb__after_atomic();
		wake_up_var(&b->inflight);
	}
}

static bool buf_idle(struct fdma_buffer *b)
{
	return !atomic_read(&b->inflight);
}

/*
 * Memory that is not ours is going away (an exporter's move, NVIDIA's
 * free callback), and the caller holds the exporter's locks: the buffer
 * turns stale at once, so that no new request takes it (-EIO); the
 * requests already using it get FDMA_GONE_GRACE to finish (a stream
 * buffer may wait for a frame for ever); those still in flight then end
 * -EIO by a reset of their channel, so that the device lets go of the
 * memory. Each reset is bounded, and nothing else is waited for: a
 * submission counted but not posted yet (it may be syncing) sees stale
 * under the channel's lock and is never posted (fdma_chan_submit()), and
 * the caller stops the syncs (fdma_buf_nosync()) before the mapping goes.
 *
 * A channel that did not acknowledge its reset, now or when the buffer
 * was in flight on it before (tainted, and a channel is still broken),
 * may still write the memory: the whole engine is then stopped
 * (fdma_pci_stop_dma()) before the memory is given back. Returns 0 once
 * the device no longer touches the memory, -EIO if it may and cannot be
 * stopped (a backend without a PCI function): the caller keeps what it
 * can.
 */
#define FDMA_GONE_GRACE	(HZ / 10)

int fdma_buf_stop_using(struct fdma_buffer *b, const char *why)
{
	struct fdma_device *fdev = b->fdev;
	bool unsafe = false, broken = false;
	int ret = 0;
	u32 i;

	/*
	 * stale before the count is read, and a submission counts its
	 * buffers before it reads stale (fdma_buf_hold(); both with a full
	 * barrier): it either sees stale and fails, or is counted and
	 * its requests are found by fdma_chan_release_buf().
	 */
	WRITE_ONCE(b->stale, true);
	/* Pairs with smp_mb__after_atomic() in fdma_buf_hold(). */
	smp_mb();
	if (!wait_var_event_timeout(&b->inflight, buf_idle(b), FDMA_GONE_GRACE)) {
		for (i = 0; i < fdev->caps.nchan; i++) {
			if (!fdma_chan_release_buf(&fdev->chan[i], b))
				continue;
			dev_err(fdev->dma_dev, "buffer %u: %s while channel %u, which did not acknowledge its reset, may still write it\n",
				b->handle, why, i);
			unsafe = true;
		}
	}
	for (i = 0; i < fdev->caps.nchan; i++) {
		struct fdma_chan *c = &fdev->chan[i];

		mutex_lock(&c->lock);
		broken |= c->broken;
		mutex_unlock(&c->lock);
	}
	/* Set under a channel's lock, which the loop above took since. */
	if (b->tainted && broken)
		unsafe = true;
	/* remove() saw the engine stop: nothing writes any more. */
	if (unsafe && !READ_ONCE(fdev->quiesced)) {
		ret = fdma_pci_stop_dma(fdev, why);
		if (ret)
			dev_crit(fdev->dma_dev, "buffer %u: %s while a channel that did not acknowledge its reset may still write it, and the device cannot be stopped: its mapping is kept\n",
				 b->handle, why);
		return ret ? -EIO : 0;
	}
	dev_info(fdev->dma_dev, "buffer %u: %s; requests on it now fail with -EIO\n",
		 b->handle, why);
	return 0;
}

/*
 * The mapping of an imported buffer or of GPU memory is about to go: no
 * sync uses it from here, and one in progress is over when this returns.
 */
void fdma_buf_nosync(struct fdma_buffer *b)
{
	spin_lock(&b->sync_lock);
	b->dsync = false;
	spin_unlock(&b->sync_lock);
}

/*
 * Sync [off, off + len) of a buffer, piece by piece. Imported buffers and
 * GPU memory only where their mapping needs it (b->dsync), each piece
 * under sync_lock, so that a mapping taken away meanwhile (a move) is
 * never synced after fdma_buf_nosync().
 */
void fdma_buf_sync(struct fdma_buffer *b, u64 off, u64 len,
		   enum dma_data_direction dir, bool for_device)
{
	bool foreign = b->kind == FDMA_BUF_DMABUF || b->kind == FDMA_BUF_NVP2P;
	struct device *dev = buf_dev(b);

	if (foreign && !READ_ONCE(b->dsync))
		return;
	while (len) {
		dma_addr_t bus;
		u32 n = fdma_buf_piece(b, off, len, U32_MAX, &bus);

		if (!n)
			return;
		if (foreign) {
			spin_lock(&b->sync_lock);
			if (!b->dsync) {
				spin_unlock(&b->sync_lock);
				return;
			}
		}
		if (for_device)
			dma_sync_single_for_device(dev, bus, n, dir);
		else
			dma_sync_single_for_cpu(dev, bus, n, dir);
		if (foreign)
			spin_unlock(&b->sync_lock);
		off += n;
		len -= n;
	}
}

/* ---- mmap of an allocated buffer ----------------------------------------- */

static void fdma_buf_vm_open(struct vm_area_struct *vma)
{
	struct fdma_buffer *b = vma->vm_private_data;

	kref_get(&b->ref);
}

/* munmap(), exit_mmap(): mmap_lock is held. */
static void fdma_buf_vm_close(struct vm_area_struct *vma)
{
	buf_put_mmap(vma->vm_private_data);
}

/*
 * Pages are mapped on first touch (MAP_POPULATE: at mmap() time), each
 * with a reference of its own, under the lock remove() marks the buffer
 * revoked under: once revoked, a fault is SIGBUS, and the mappings made
 * before are zapped (fdma_buf_revoke_all()). mmap_lock (read) is held.
 */
static vm_fault_t fdma_buf_vm_fault(struct vm_fault *vmf)
{
	struct fdma_buffer *b = vmf->vma->vm_private_data;
	pgoff_t first = (pgoff_t)b->handle << (FDMA_BUF_MMAP_SHIFT - PAGE_SHIFT);
	vm_fault_t ret = VM_FAULT_SIGBUS;

	mutex_lock(&b->fdev->buf_lock);
	if (!b->revoking && !b->revoked && vmf->pgoff >= first &&
	    vmf->pgoff - first < b->npages) {
		vmf->page = b->pages[vmf->pgoff - first];
		get_page(vmf->page);
		ret = 0;
	}
	mutex_unlock(&b->fdev->buf_lock);
	return ret;
}

static const struct vm_operations_struct fdma_buf_vm_ops = {
	.open = fdma_buf_vm_open,
	.close = fdma_buf_vm_close,
	.fault = fdma_buf_vm_fault,
};

/* off: the mmap offset, at or above 1 << FDMA_BUF_MMAP_SHIFT. */
int fdma_buf_mmap(struct fdma_file *f, struct vm_area_struct *vma, u64 off)
{
	unsigned long len = vma->vm_end - vma->vm_start;
	struct fdma_buffer *b;
	u64 h = off >> FDMA_BUF_MMAP_SHIFT;

	if (off & (BIT_ULL(FDMA_BUF_MMAP_SHIFT) - 1) || !h ||
	    h > FDMA_HANDLE_MAX)
		return -EINVAL;
	down_read(&f->bufs_sem);
	b = idr_find(&f->bufs, h);
	if (!b || b->kind != FDMA_BUF_ALLOC || len > b->size) {
		up_read(&f->bufs_sem);
		return -EINVAL;
	}
	kref_get(&b->ref);
	up_read(&f->bufs_sem);
	vma->vm_private_data = b;
	vma->vm_ops = &fdma_buf_vm_ops;
	return 0;
}
