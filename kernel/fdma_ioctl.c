// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fdma.ko: the ioctls of /dev/fdmaN (include/fdma_ioctl.h) and the
 * completion queues.
 *
 * Each (open file, channel) pair gets a completion queue on first use
 * (FDMA_IOC_SUBMIT, FDMA_IOC_WAIT or its mmap): a header and cq_entries
 * entries in vmalloc_user() memory, mapped at FDMA_CQ_MMAP_OFFSET(chan).
 * The kernel writes entries at its own tail (never read back from user
 * memory) and publishes it with a store-release; user space moves head.
 * FDMA_IOC_SUBMIT refuses (-EAGAIN) a batch that, with the file's requests
 * in flight on the channel and the entries not yet consumed, would not fit,
 * so the queue never overflows (unless user space moves head wrongly, which
 * only garbles its own queue).
 *
 * Every ioctl copies its structure in once, checks every field (reserved
 * ones must be 0) before acting, and answers 0 or a negative errno:
 *   -ENOTTY   unknown ioctl number
 *   -EFAULT   a user pointer that cannot be read or written
 *   -EINVAL   a bad field: channel, flags, reserved, length 0, misaligned,
 *             count 0 or over FDMA_IOC_MAX_BATCH
 *   -EBADF    a handle that is not one of this file's buffers
 *   -ERANGE   a range beyond the buffer or beyond card memory
 *   -E2BIG    a batch (or one request) needing more descriptors than the
 *             channel's ring holds: it could never be posted
 *   -EAGAIN   no room now in the queue or the ring (reap, then retry)
 *   -EBUSY    FDMA_IOC_BUF_FREE of a buffer with transfers in flight
 *   -ENOSPC   FDMA_IOC_BUF_ALLOC/REGISTER: the file holds max_bufs_per_file
 *             buffers, or the device has no handle left
 *   -ENOMEM   also: a buffer would take the process over RLIMIT_MEMLOCK
 *   -EOPNOTSUPP  the channel or engine cannot do it (testgen, coalescing)
 *   -EIO      the channel is broken (its reset was never acknowledged)
 *   -ENODEV   the device was removed
 */
#include <linux/bitfield.h>
#include <linux/eventfd.h>
#include <linux/fs.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "fdma_compat.h"
#include "fdma_drv.h"

/* ---- completion queues ---------------------------------------------------- */

struct fdma_cq *fdma_file_cq(struct fdma_file *f, u32 ch)
{
	u32 n = fdma_param_cq_entries;
	struct fdma_cq *q;

	/* Pairs with the store-release below: a queue is seen initialised. */
	q = smp_load_acquire(&f->cq[ch]);
	if (q)
		return q;
	mutex_lock(&f->cq_lock);
	q = f->cq[ch];
	if (q)
		goto out;
	q = kzalloc(sizeof(*q), GFP_KERNEL);
	if (!q) {
		q = ERR_PTR(-ENOMEM);
		goto out;
	}
	q->file = f;
	q->entries = n;
	q->mask = n - 1;
	q->bytes = FDMA_CQ_MMAP_BYTES(n);
	INIT_LIST_HEAD(&q->dirty);
	spin_lock_init(&q->efd_lock);
	q->hdr = vmalloc_user(PAGE_ALIGN(q->bytes));
	if (!q->hdr) {
		kfree(q);
		q = ERR_PTR(-ENOMEM);
		goto out;
	}
	q->ent = (void *)q->hdr + FDMA_CQ_ENTRIES_OFFSET;
	q->hdr->mask = q->mask;
	/* Initialised before it is seen (lock-free readers: poll, ioctls). */
	smp_store_release(&f->cq[ch], q);
out:
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
		vfree(f->cq[ch]->hdr);
		kfree(f->cq[ch]);
		f->cq[ch] = NULL;
	}
}

/* Entries published and not consumed (user space's head, clamped). */
u32 fdma_cq_queued(const struct fdma_cq *q)
{
	u32 n = READ_ONCE(q->pub) - READ_ONCE(q->hdr->head);

	return n > q->entries ? q->entries : n;
}

/* off: the mmap offset, below 1 << FDMA_BUF_MMAP_SHIFT. */
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
	return remap_vmalloc_range(vma, q->hdr, 0);
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

/* ---- ioctls --------------------------------------------------------------- */

static struct fdma_chan *ioc_chan(struct fdma_file *f, u32 ch)
{
	if (ch >= f->fdev->caps.nchan)
		return NULL;
	return &f->fdev->chan[ch];
}

static int ioc_info(struct fdma_file *f, void __user *argp)
{
	struct fdma_dev *fdev = f->fdev;
	struct pci_dev *pdev = fdev->pdev;
	struct fdma_ioc_info in = {
		.uapi_version = FDMA_UAPI_VERSION,
		.engine_version = fdev->caps.version,
		.nchan = fdev->caps.nchan,
		.align = fdev->caps.align,
		.max_desc_len = fdev->caps.max_desc_len,
		.ring_size = fdev->ring_size,
		.cq_entries = fdma_param_cq_entries,
		.card_size = fdev->card_size,
	};
	u32 ch;

	switch (fdev->irq_mode) {
	case FDMA_IRQ_MSIX:
		in.irq_mode = FDMA_IRQ_MODE_MSIX;
		break;
	case FDMA_IRQ_MSI:
		in.irq_mode = FDMA_IRQ_MODE_MSI;
		break;
	case FDMA_IRQ_INTX:
		in.irq_mode = FDMA_IRQ_MODE_INTX;
		break;
	default:
		break;
	}
	if (pci_is_pcie(pdev)) {
		u16 lnksta = 0;

		pcie_capability_read_word(pdev, PCI_EXP_LNKSTA, &lnksta);
		in.link_gen = lnksta & PCI_EXP_LNKSTA_CLS;
		in.link_width = FIELD_GET(PCI_EXP_LNKSTA_NLW, lnksta);
		in.mps = pcie_get_mps(pdev);
		in.mrrs = pcie_get_readrq(pdev);
	}
	for (ch = 0; ch < fdev->caps.nchan; ch++)
		in.chan_caps[ch] = fdev->caps.chan_caps[ch];
	return copy_to_user(argp, &in, sizeof(in)) ? -EFAULT : 0;
}

/*
 * A new buffer's handle is only reserved until it was copied out: if that
 * fails, no other thread can have used (submitted, mapped, freed) the
 * buffer by guessing its handle, and it is freed with its handle.
 */
static int ioc_buf_alloc(struct fdma_file *f, void __user *argp)
{
	struct fdma_ioc_buf_alloc a;
	struct fdma_buf *b;
	int ret;

	if (copy_from_user(&a, argp, sizeof(a)))
		return -EFAULT;
	ret = fdma_buf_alloc(f, &a, &b);
	if (ret)
		return ret;
	if (copy_to_user(argp, &a, sizeof(a))) {
		fdma_buf_unreserve(f, b);
		return -EFAULT;
	}
	fdma_buf_publish(f, b);
	return 0;
}

static int ioc_buf_register(struct fdma_file *f, void __user *argp)
{
	struct fdma_ioc_buf_reg r;
	struct fdma_buf *b;
	int ret;

	if (copy_from_user(&r, argp, sizeof(r)))
		return -EFAULT;
	ret = fdma_buf_register(f, &r, &b);
	if (ret)
		return ret;
	if (copy_to_user(argp, &r, sizeof(r))) {
		fdma_buf_unreserve(f, b);
		return -EFAULT;
	}
	fdma_buf_publish(f, b);
	return 0;
}

/*
 * Check one request of a batch against its buffer, the channel and the
 * engine's rules, piece by piece as it will be posted; adds its
 * descriptors to *ndesc. Called with f->bufs_sem held (read).
 */
static int ioc_check_req(struct fdma_file *f, struct fdma_chan *c,
			 const struct fdma_ioc_req *r, struct fdma_sub *s,
			 u32 *ndesc)
{
	struct fdma_dev *fdev = f->fdev;
	u32 align = fdev->caps.align, pieces = 0;
	bool stream = c->caps & FDMA_CH_CAP_STREAM;
	u64 off = r->offset, left = r->len;
	struct fdma_buf *b;

	if (r->flags & ~(FDMA_IOC_REQ_IRQ | FDMA_IOC_REQ_SOF |
			 FDMA_IOC_REQ_EOF))
		return -EINVAL;
	b = r->handle ? idr_find(&f->bufs, r->handle) : NULL;
	if (!b)
		return -EBADF;
	if (!r->len || ((r->offset | r->len) & (align - 1)))
		return -EINVAL;
	if (r->offset > b->size || r->len > b->size - r->offset)
		return -ERANGE;
	if (!stream) {
		if (r->card_addr & (align - 1))
			return -EINVAL;
		if (r->card_addr > fdev->card_size ||
		    r->len > fdev->card_size - r->card_addr)
			return -ERANGE;
	}
	while (left) {
		struct fdma_ereq q = { 0 };
		dma_addr_t bus;
		u32 len = fdma_buf_piece(b, off, left, c->ereq_max, &bus);
		int ret;

		if (!len)
			return -EINVAL;
		q.host = bus;
		q.card = stream ? 0 : r->card_addr + (off - r->offset);
		q.len = len;
		ret = fdma_ering_check(&c->ring, &q, NULL);
		if (ret)
			return ret;
		*ndesc += fdma_ering_ndesc(&c->ring, len);
		if (*ndesc > c->ring.size)
			return -E2BIG;
		pieces++;
		off += len;
		left -= len;
	}
	/* A C2H stream buffer is one descriptor: a frame starts in it. */
	if (stream && (c->caps & FDMA_CH_CAP_C2H) && pieces != 1)
		return -EINVAL;
	s->r = r;
	s->buf = b;
	return 0;
}

static int ioc_submit(struct fdma_file *f, void __user *argp)
{
	struct fdma_ioc_submit sb;
	struct fdma_ioc_req *reqs;
	struct fdma_sub *subs;
	struct fdma_chan *c;
	struct fdma_cq *q;
	u32 i, ndesc = 0;
	int ret;

	if (copy_from_user(&sb, argp, sizeof(sb)))
		return -EFAULT;
	c = ioc_chan(f, sb.chan);
	if (!c || memchr_inv(sb.rsvd, 0, sizeof(sb.rsvd)) || !sb.count ||
	    sb.count > FDMA_IOC_MAX_BATCH)
		return -EINVAL;
	atomic64_inc(&c->st.syscalls);
	if (READ_ONCE(f->fdev->dead))
		return -ENODEV;
	q = fdma_file_cq(f, sb.chan);
	if (IS_ERR(q))
		return PTR_ERR(q);

	reqs = kvmalloc_array(sb.count, sizeof(*reqs) + sizeof(*subs),
			      GFP_KERNEL);
	if (!reqs)
		return -ENOMEM;
	subs = (void *)(reqs + sb.count);
	/* The whole batch in one copy. */
	if (copy_from_user(reqs, u64_to_user_ptr(sb.reqs),
			   sb.count * sizeof(*reqs))) {
		ret = -EFAULT;
		goto out;
	}
	down_read(&f->bufs_sem);
	for (i = 0; i < sb.count; i++) {
		ret = ioc_check_req(f, c, &reqs[i], &subs[i], &ndesc);
		if (ret)
			goto out_sem;
	}
	ret = fdma_chan_submit(c, q, subs, sb.count, ndesc);
out_sem:
	up_read(&f->bufs_sem);
out:
	kvfree(reqs);
	return ret;
}

static bool ioc_wait_done(struct fdma_file *f, struct fdma_cq *q, u32 min)
{
	u32 queued = fdma_cq_queued(q);

	return queued >= min || queued + READ_ONCE(q->inflight) < min ||
	       READ_ONCE(f->fdev->dead);
}

static int ioc_wait(struct fdma_file *f, void __user *argp)
{
	struct fdma_ioc_wait w;
	struct fdma_chan *c;
	struct fdma_cq *q;
	u32 queued;
	int ret = 0;

	if (copy_from_user(&w, argp, sizeof(w)))
		return -EFAULT;
	c = ioc_chan(f, w.chan);
	if (!c || memchr_inv(w.rsvd, 0, sizeof(w.rsvd)) ||
	    w.min_entries > fdma_param_cq_entries)
		return -EINVAL;
	atomic64_inc(&c->st.syscalls);
	q = fdma_file_cq(f, w.chan);
	if (IS_ERR(q))
		return PTR_ERR(q);

	/* What the device finished goes into the queue now. */
	fdma_chan_reap(c);
	queued = fdma_cq_queued(q);
	if (queued < w.min_entries) {
		if (READ_ONCE(f->fdev->dead)) {
			ret = -ENODEV;
		} else if (queued + READ_ONCE(q->inflight) < w.min_entries) {
			ret = -EAGAIN;	/* not enough in flight to ever get there */
		} else if (!w.timeout_us) {
			ret = -ETIMEDOUT;
		} else {
			u32 min = w.min_entries;
			ktime_t to = KTIME_MAX;

			if (w.timeout_us > 0 &&
			    w.timeout_us < KTIME_MAX / NSEC_PER_USEC)
				to = ns_to_ktime(w.timeout_us * NSEC_PER_USEC);

			ret = wait_event_interruptible_hrtimeout(f->wq,
								 ioc_wait_done(f, q, min),
								 to);
			if (ret == -ERESTARTSYS)
				return -EINTR;
			if (ret == -ETIME) {
				/* An interrupt may have been lost: look. */
				fdma_chan_reap(c);
				ret = -ETIMEDOUT;
			}
			queued = fdma_cq_queued(q);
			if (queued >= w.min_entries)
				ret = 0;
			else if (!ret)
				ret = READ_ONCE(f->fdev->dead) ? -ENODEV :
								 -EAGAIN;
		}
	}
	w.ready = fdma_cq_queued(q);
	if (copy_to_user(argp, &w, sizeof(w)))
		return -EFAULT;
	return ret;
}

static int ioc_coalesce(struct fdma_file *f, void __user *argp)
{
	struct fdma_ioc_coalesce co;
	struct fdma_chan *c;

	if (copy_from_user(&co, argp, sizeof(co)))
		return -EFAULT;
	c = ioc_chan(f, co.chan);
	if (!c || co.rsvd)
		return -EINVAL;
	return fdma_chan_set_coalesce(c, co.count, co.usecs);
}

static int ioc_chan_reset(struct fdma_file *f, void __user *argp)
{
	struct fdma_chan *c;
	u32 ch;

	if (get_user(ch, (u32 __user *)argp))
		return -EFAULT;
	c = ioc_chan(f, ch);
	if (!c)
		return -EINVAL;
	return fdma_chan_reset(c);
}

static int ioc_testgen(struct fdma_file *f, void __user *argp)
{
	struct fdma_dev *fdev = f->fdev;
	struct fdma_ioc_testgen t;
	struct fdma_chan *c;
	u32 frames, errors;

	if (copy_from_user(&t, argp, sizeof(t)))
		return -EFAULT;
	c = ioc_chan(f, t.chan);
	if (!c || t.enable > FDMA_IOC_TESTGEN_QUERY ||
	    (t.enable == FDMA_IOC_TESTGEN_QUERY && (t.frame_len || t.period_ns)))
		return -EINVAL;
	if (!(c->caps & FDMA_CH_CAP_TESTGEN))
		return -EOPNOTSUPP;
	if (t.enable == 1 && t.frame_len < FDMA_TG_FRAME_MIN)
		return -EINVAL;
	mutex_lock(&c->lock);
	if (READ_ONCE(fdev->dead) || !c->up) {
		mutex_unlock(&c->lock);
		return -ENODEV;
	}
	if (t.enable != FDMA_IOC_TESTGEN_QUERY)
		fdma_ering_set_testgen(&c->ring, t.frame_len, t.period_ns,
				       t.enable);
	fdma_ering_testgen_counts(&c->ring, &frames, &errors);
	mutex_unlock(&c->lock);
	t.frames = frames;
	t.errors = errors;
	return copy_to_user(argp, &t, sizeof(t)) ? -EFAULT : 0;
}

static int ioc_stats(struct fdma_file *f, void __user *argp)
{
	struct fdma_ioc_stats in, st = { 0 };
	struct fdma_chan *c;

	if (copy_from_user(&in, argp, sizeof(in)))
		return -EFAULT;
	c = ioc_chan(f, in.chan);
	if (!c || in.rsvd)
		return -EINVAL;
	st.chan = in.chan;
	st.transfers = atomic64_read(&c->st.transfers);
	st.completions = atomic64_read(&c->st.completions) +
			 atomic64_read(&c->st.errors);
	st.bytes = atomic64_read(&c->st.bytes);
	st.descriptors = atomic64_read(&c->st.descriptors);
	st.doorbells = atomic64_read(&c->st.doorbells);
	st.interrupts = atomic64_read(&c->st.irqs);
	st.errors = atomic64_read(&c->st.errors);
	st.resets = atomic64_read(&c->st.resets);
	st.drops = fdma_chan_drops(c);
	st.syscalls = atomic64_read(&c->st.syscalls);
	return copy_to_user(argp, &st, sizeof(st)) ? -EFAULT : 0;
}

/*
 * FDMA_IOC_CQ_EVENTFD: one readiness fd per channel. The file's own poll
 * covers all of its queues; a thread or an epoll set per channel wants to
 * hear of its channel only.
 */
static int ioc_cq_eventfd(struct fdma_file *f, void __user *argp)
{
	struct fdma_ioc_cq_eventfd e;
	struct eventfd_ctx *ctx = NULL, *old;
	struct fdma_cq *q;

	if (copy_from_user(&e, argp, sizeof(e)))
		return -EFAULT;
	if (!ioc_chan(f, e.chan) || memchr_inv(e.rsvd, 0, sizeof(e.rsvd)) ||
	    e.fd < -1)
		return -EINVAL;
	q = fdma_file_cq(f, e.chan);
	if (IS_ERR(q))
		return PTR_ERR(q);
	if (e.fd >= 0) {
		ctx = eventfd_ctx_fdget(e.fd);
		if (IS_ERR(ctx))
			return PTR_ERR(ctx);
	}
	spin_lock_irq(&q->efd_lock);
	old = q->efd;
	q->efd = ctx;
	spin_unlock_irq(&q->efd_lock);
	if (old)
		eventfd_ctx_put(old);
	/* Entries already queued are news to a new listener. */
	if (ctx && fdma_cq_queued(q))
		fdma_cq_notify(q);
	return 0;
}

static int ioc_drop(struct fdma_file *f, void __user *argp)
{
	struct fdma_ioc_drop d;
	struct fdma_chan *c;

	if (copy_from_user(&d, argp, sizeof(d)))
		return -EFAULT;
	c = ioc_chan(f, d.chan);
	if (!c || d.drop > 1)
		return -EINVAL;
	if ((c->caps & (FDMA_CH_CAP_STREAM | FDMA_CH_CAP_C2H)) !=
	    (FDMA_CH_CAP_STREAM | FDMA_CH_CAP_C2H))
		return -EOPNOTSUPP;
	return fdma_chan_set_drop(c, d.drop);
}

long fdma_cdev_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct fdma_file *f = file->private_data;
	void __user *argp = (void __user *)arg;
	u32 handle;

	/*
	 * Moving data or changing the device needs the file open for
	 * writing, as write() does; a read-only opener may only look.
	 */
	if (!(file->f_mode & FMODE_WRITE) && cmd != FDMA_IOC_INFO &&
	    cmd != FDMA_IOC_STATS && cmd != FDMA_IOC_WAIT)
		return -EBADF;

	/* After remove, buffers can still be freed and counters read. */
	if (READ_ONCE(f->fdev->dead) && cmd != FDMA_IOC_BUF_FREE &&
	    cmd != FDMA_IOC_STATS)
		return -ENODEV;
	switch (cmd) {
	case FDMA_IOC_INFO:
		return ioc_info(f, argp);
	case FDMA_IOC_BUF_ALLOC:
		return ioc_buf_alloc(f, argp);
	case FDMA_IOC_BUF_REGISTER:
		return ioc_buf_register(f, argp);
	case FDMA_IOC_BUF_FREE:
		if (get_user(handle, (u32 __user *)argp))
			return -EFAULT;
		return fdma_buf_free(f, handle);
	case FDMA_IOC_SUBMIT:
		return ioc_submit(f, argp);
	case FDMA_IOC_WAIT:
		return ioc_wait(f, argp);
	case FDMA_IOC_COALESCE:
		return ioc_coalesce(f, argp);
	case FDMA_IOC_CHAN_RESET:
		return ioc_chan_reset(f, argp);
	case FDMA_IOC_TESTGEN:
		return ioc_testgen(f, argp);
	case FDMA_IOC_STATS:
		return ioc_stats(f, argp);
	case FDMA_IOC_DROP:
		return ioc_drop(f, argp);
	case FDMA_IOC_CQ_EVENTFD:
		return ioc_cq_eventfd(f, argp);
	default:
		return -ENOTTY;
	}
}
