// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fdma.ko: completion queues, one per (open file, channel) pair.
 *
 * A queue is made on first use (FDMA_IOC_SUBMIT, FDMA_IOC_WAIT or its
 * mmap): a header and cq_entries entries in pages charged to the opener's
 * memory cgroup, mapped at FDMA_CQ_MMAP_OFFSET(chan). The channel
 * (fdma_chan.c) writes entries at the kernel's own tail (never read back
 * from user memory) and publishes it with a store-release; user space
 * moves head. FDMA_IOC_SUBMIT (fdma_ioctl.c) refuses (-EAGAIN) a batch
 * that, with the file's requests in flight on the channel and the entries
 * not yet consumed, would not fit, so the queue never overflows (unless
 * user space moves head wrongly, which only garbles its own queue).
 *
 * The channel and the ioctls both use this file; neither calls the other
 * for it.
 */
#include <linux/eventfd.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "fdma_compat.h"
#include "fdma_drv.h"

static void cq_free(struct fdma_cq *q)
{
	u32 i;

	if (q->hdr)
		vunmap(q->hdr);
	for (i = 0; i < q->npages; i++)
		__free_page(q->pages[i]);
	kvfree(q->pages);
	kfree(q);
}

/* A queue's pages, zeroed and charged to the opener (GFP_KERNEL_ACCOUNT). */
static struct fdma_cq *cq_alloc(struct fdma_file *f, u32 n)
{
	struct fdma_cq *q = kzalloc(sizeof(*q), GFP_KERNEL_ACCOUNT);
	u32 want;

	if (!q)
		return NULL;
	q->file = f;
	q->entries = n;
	q->mask = n - 1;
	q->bytes = FDMA_CQ_MMAP_BYTES(n);
	INIT_LIST_HEAD(&q->dirty);
	spin_lock_init(&q->efd_lock);
	want = PAGE_ALIGN(q->bytes) >> PAGE_SHIFT;
	q->pages = kvcalloc(want, sizeof(*q->pages), GFP_KERNEL_ACCOUNT);
	if (!q->pages)
		goto err;
	for (; q->npages < want; q->npages++) {
		q->pages[q->npages] = alloc_page(GFP_KERNEL_ACCOUNT |
						 __GFP_ZERO);
		if (!q->pages[q->npages])
			goto err;
	}
	q->hdr = vmap(q->pages, q->npages, VM_MAP, PAGE_KERNEL);
	if (!q->hdr)
		goto err;
	q->ent = (void *)q->hdr + FDMA_CQ_ENTRIES_OFFSET;
	q->hdr->mask = q->mask;
	return q;
err:
	cq_free(q);
	return NULL;
}

struct fdma_cq *fdma_file_cq(struct fdma_file *f, u32 ch)
{
	struct fdma_cq *q;

	/* Pairs with the store-release below: a queue is seen initialised. */
	q = smp_load_acquire(&f->cq[ch]);
	if (q)
		return q;
	mutex_lock(&f->cq_lock);
	q = f->cq[ch];
	if (!q) {
		q = cq_alloc(f, fdma_param_cq_entries);
		if (q)
			/* Initialised before it is seen (lock-free readers: poll, ioctls). */
			smp_store_release(&f->cq[ch], q);
		else
			q = ERR_PTR(-ENOMEM);
	}
	mutex_unlock(&f->cq_lock);
	return q;
}

void fdma_file_free_cqs(struct fdma_file *f)
{
	u32 ch;

	for (ch = 0; ch < FDMA_MAX_CHANNELS; ch++) {
		if (!f->cq[ch])
			continue;
		if (f->cq[ch]->efd)
			eventfd_ctx_put(f->cq[ch]->efd);
		cq_free(f->cq[ch]);
		f->cq[ch] = NULL;
	}
}

/* Entries published and not consumed (user space's head, clamped). */
u32 fdma_cq_queued(const struct fdma_cq *q)
{
	u32 n = READ_ONCE(q->pub) - READ_ONCE(q->hdr->head);

	return n > q->entries ? q->entries : n;
}

/*
 * off: the mmap offset, below 1 << FDMA_BUF_MMAP_SHIFT. The pages hold a
 * reference for each mapping of them, and are freed at the file's release,
 * after the last munmap.
 */
int fdma_cq_mmap(struct fdma_file *f, struct vm_area_struct *vma, u64 off)
{
	unsigned long len = vma->vm_end - vma->vm_start;
	u64 ch = off / FDMA_CQ_MMAP_OFFSET(1);
	struct fdma_cq *q;

	if (off % FDMA_CQ_MMAP_OFFSET(1) || ch >= f->fdev->caps.nchan)
		return -EINVAL;
	q = fdma_file_cq(f, ch);
	if (IS_ERR(q))
		return PTR_ERR(q);
	if (len > PAGE_ALIGN(q->bytes))
		return -EINVAL;
	return vm_map_pages_zero(vma, q->pages, q->npages);
}

/* New entries in q: its eventfd, if it has one (any context). */
void fdma_cq_notify(struct fdma_cq *q)
{
	unsigned long flags;

	spin_lock_irqsave(&q->efd_lock, flags);
	if (q->efd)
		fdma_eventfd_signal(q->efd);
	spin_unlock_irqrestore(&q->efd_lock, flags);
}

/* New entries in one of f's queues: poll, FDMA_IOC_WAIT, SIGIO. */
void fdma_file_notify(struct fdma_file *f)
{
	wake_up_interruptible_poll(&f->wq, EPOLLIN | EPOLLRDNORM);
	kill_fasync(&f->fasync, SIGIO, POLL_IN);
}
