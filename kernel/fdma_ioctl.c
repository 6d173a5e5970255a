// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fdma.ko: the ioctls of /dev/fdmaN (include/fdma_ioctl.h). The completion
 * queues they wait on and size batches against are fdma_cq.c's.
 *
 * Every ioctl copies its structure in once (any size from the structure's
 * first version up: see "Growth" in the header), checks every field
 * (reserved ones must be 0) before acting, and answers 0 or a negative
 * errno:
 *   -ENOTTY   unknown ioctl number, or a structure smaller than its first version
 *   -EFAULT   a user pointer that cannot be read or written
 *   -E2BIG    a larger structure with non-zero bytes this driver does not know;
 *             or a batch (or one request) needing more descriptors than the
 *             channel's ring holds: it could never be posted
 *   -EINVAL   a bad field: channel, flags, reserved, length 0, misaligned,
 *             count 0 or over FDMA_IOC_MAX_BATCH
 *   -EMSGSIZE FDMA_IOC_SUBMIT: a C2H stream request whose range is not one
 *             piece of device-contiguous memory (it must be one descriptor)
 *   -EBADF    a handle that is not one of this file's buffers
 *   -ERANGE   a range beyond the buffer or beyond card memory
 *   -EAGAIN   no room now in the queue or the ring (reap, then retry)
 *   -EBUSY    FDMA_IOC_BUF_FREE of a buffer with transfers in flight
 *   -ENOSPC   FDMA_IOC_BUF_ALLOC/REGISTER: the file holds max_bufs_per_file
 *             buffers, or the device has no handle left
 *   -ENOMEM   also: a buffer would take the process over RLIMIT_MEMLOCK
 *   -EOPNOTSUPP  the channel or engine cannot do it (testgen, coalescing)
 *   -EIO      the channel is broken (its reset was never acknowledged)
 *   -ENODEV   the device was removed
 *   -ENXIO    FDMA_IOC_REG: not a memory BAR
 *   -EPERM    FDMA_IOC_REG: an engine register written without FORCE and
 *             CAP_SYS_RAWIO
 */
#include <linux/bitfield.h>
#include <linux/build_bug.h>
#include <linux/dma-buf.h>
#include <linux/eventfd.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "fdma_compat.h"
#include "fdma_drv.h"

/* The user interface names the engine's values without the engine's header. */
static_assert(FDMA_IOC_CAP_C2H == FDMA_CH_CAP_C2H);
static_assert(FDMA_IOC_CAP_STREAM == FDMA_CH_CAP_STREAM);
static_assert(FDMA_IOC_CAP_TESTGEN == FDMA_CH_CAP_TESTGEN);
static_assert(FDMA_IOC_CAP_MEM2MEM == FDMA_CH_CAP_MEM2MEM);
static_assert(FDMA_IOC_ST_OK == FDMA_CPL_OK);
static_assert(FDMA_IOC_ST_DESC_ERR == FDMA_CPL_DESC_ERR);
static_assert(FDMA_IOC_ST_ADDR_ERR == FDMA_CPL_ADDR_ERR);
static_assert(FDMA_IOC_ST_DATA_ERR == FDMA_CPL_DATA_ERR);
static_assert(FDMA_IOC_ST_ALIGN_ERR == FDMA_CPL_ALIGN_ERR);
static_assert(FDMA_IOC_ST_RANGE_ERR == FDMA_CPL_RANGE_ERR);
static_assert(FDMA_IOC_ST_LEN_ERR == FDMA_CPL_LEN_ERR);
static_assert(FDMA_IOC_ST_TRUNC == FDMA_CPL_TRUNC);
static_assert(FDMA_IOC_ST_CANCELED == FDMA_CPL_CANCELED);

/* ---- ioctls --------------------------------------------------------------- */

/*
 * The caller's structure, of usize bytes, into the driver's of ksize:
 * zero-filled if shorter (never: the dispatcher checks the minimum),
 * -E2BIG if longer with non-zero bytes the driver does not know.
 */
static int ioc_in(void *k, size_t ksize, void __user *argp, size_t usize)
{
	return copy_struct_from_user(k, ksize, argp, usize);
}

/* The driver's structure out, as much of it as the caller's holds. */
static int ioc_out(void __user *argp, size_t usize, const void *k,
		   size_t ksize)
{
	return copy_to_user(argp, k, min(usize, ksize)) ? -EFAULT : 0;
}

static struct fdma_chan *ioc_chan(struct fdma_file *f, u32 ch)
{
	if (ch >= f->fdev->caps.nchan)
		return NULL;
	return &f->fdev->chan[ch];
}

static int ioc_info(struct fdma_file *f, void __user *argp, size_t usize)
{
	struct fdma_device *fdev = f->fdev;
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
		.features = FDMA_FEAT_DMA_ALIGN | FDMA_FEAT_WATCHDOG |
			    FDMA_FEAT_REVOKE |
			    (pdev ? FDMA_FEAT_REG | FDMA_FEAT_REG_WIDTH : 0) |
			    FDMA_FEAT_ENGINE | FDMA_FEAT_USER_IRQ | FDMA_FEAT_DMABUF |
			    (fdma_nvp2p_page() ? FDMA_FEAT_NVP2P : 0) |
			    (fdev->caps.overrun_flag ? FDMA_FEAT_OVERRUN_FLAG : 0) |
			    FDMA_FEAT_C2H_STREAM_LEN | FDMA_FEAT_EXPORT |
			    fdma_uring_features(),
		.dma_align = fdev->dma_align,
		.c2h_stream_len = fdev->caps.c2h_stream_len,
		.engine = !fdev->caps.eng ? FDMA_IOC_ENGINE_NONE :
			  fdev->caps.eng == &fdma_eng_xdma ? FDMA_IOC_ENGINE_XDMA :
			  FDMA_IOC_ENGINE_FDMA,
		.user_irqs = fdev->nuirq,
		.coal = (fdev->caps.coalesce ? FDMA_IOC_COAL_COUNT : 0) |
			(fdev->caps.coal_timer ? FDMA_IOC_COAL_TIMER : 0) |
			(fdev->caps.coal_emulated ? FDMA_IOC_COAL_EMULATED : 0),
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
	case FDMA_IRQ_POLL:
		in.irq_mode = FDMA_IRQ_MODE_POLL;
		break;
	default:
		break;
	}
	/* Other backends have no link: 0, unknown. */
	if (pdev && pci_is_pcie(pdev)) {
		u16 lnksta = 0;

		pcie_capability_read_word(pdev, PCI_EXP_LNKSTA, &lnksta);
		in.link_gen = lnksta & PCI_EXP_LNKSTA_CLS;
		in.link_width = FIELD_GET(PCI_EXP_LNKSTA_NLW, lnksta);
		in.mps = pcie_get_mps(pdev);
		in.mrrs = pcie_get_readrq(pdev);
	}
	for (ch = 0; ch < fdev->caps.nchan; ch++) {
		in.chan_caps[ch] = fdev->caps.chan_caps[ch];
		if (in.chan_caps[ch] & FDMA_CH_CAP_MEM2MEM)
			in.features |= FDMA_FEAT_MEMCPY;
	}
	return ioc_out(argp, usize, &in, sizeof(in));
}

/*
 * A new buffer's handle is only reserved until it was copied out: if that
 * fails, no other thread can have used (submitted, mapped, freed) the
 * buffer by guessing its handle, and it is freed with its handle.
 * ioc_buf_publish() ends every ioctl that makes a buffer: made (ret 0) as
 * b, the request r of size bytes is copied out, then b is published.
 */
static int ioc_buf_publish(struct fdma_file *f, void __user *argp,
			   size_t usize, const void *r, size_t size,
			   struct fdma_buffer *b, int ret)
{
	if (ret)
		return ret;
	if (ioc_out(argp, usize, r, size)) {
		fdma_buf_unreserve(f, b);
		return -EFAULT;
	}
	fdma_buf_publish(f, b);
	return 0;
}

static int ioc_buf_alloc(struct fdma_file *f, void __user *argp,
			 size_t usize)
{
	struct fdma_ioc_buf_alloc r;
	struct fdma_buffer *b = NULL;
	int ret = ioc_in(&r, sizeof(r), argp, usize);

	if (ret)
		return ret;
	ret = fdma_buf_alloc(f, &r, &b);
	return ioc_buf_publish(f, argp, usize, &r, sizeof(r), b, ret);
}

static int ioc_buf_register(struct fdma_file *f, void __user *argp,
			    size_t usize)
{
	struct fdma_ioc_buf_reg r;
	struct fdma_buffer *b = NULL;
	int ret = ioc_in(&r, sizeof(r), argp, usize);

	if (ret)
		return ret;
	ret = fdma_buf_register(f, &r, &b);
	return ioc_buf_publish(f, argp, usize, &r, sizeof(r), b, ret);
}

static int ioc_buf_import(struct fdma_file *f, void __user *argp,
			  size_t usize)
{
	struct fdma_ioc_buf_import r;
	struct fdma_buffer *b = NULL;
	int ret = ioc_in(&r, sizeof(r), argp, usize);

	if (ret)
		return ret;
	ret = fdma_buf_import(f, &r, &b);
	return ioc_buf_publish(f, argp, usize, &r, sizeof(r), b, ret);
}

static int ioc_buf_nvp2p(struct fdma_file *f, void __user *argp,
			 size_t usize)
{
	struct fdma_ioc_buf_nvp2p r;
	struct fdma_buffer *b = NULL;
	int ret = ioc_in(&r, sizeof(r), argp, usize);

	if (ret)
		return ret;
	ret = fdma_buf_import_nvp2p(f, &r, &b);
	return ioc_buf_publish(f, argp, usize, &r, sizeof(r), b, ret);
}

/*
 * The fd is reserved, its number copied out, and only then installed: a
 * caller whose structure cannot be written gets -EFAULT and no fd.
 */
static int ioc_buf_export(struct fdma_file *f, void __user *argp,
			  size_t usize)
{
	struct fdma_ioc_buf_export r;
	struct dma_buf *dmabuf;
	int ret = ioc_in(&r, sizeof(r), argp, usize);
	int fd;

	if (ret)
		return ret;
	if ((r.flags & ~(O_CLOEXEC | O_ACCMODE)) ||
	    (r.flags & O_ACCMODE) == O_WRONLY || r.rsvd0 ||
	    r.rsvd[0] || r.rsvd[1])
		return -EINVAL;
	dmabuf = fdma_buf_export(f, r.handle, r.flags & O_ACCMODE);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	fd = get_unused_fd_flags(r.flags & O_CLOEXEC);
	if (fd < 0) {
		dma_buf_put(dmabuf);
		return fd;
	}
	r.fd = fd;
	if (ioc_out(argp, usize, &r, sizeof(r))) {
		put_unused_fd(fd);
		dma_buf_put(dmabuf);
		return -EFAULT;
	}
	fd_install(fd, dmabuf->file);
	return 0;
}

/*
 * Count the descriptors of a checked request, piece by piece as it will be
 * posted, checking each against the engine's rules; adds them to *ndesc.
 */
static int ioc_check_pieces(struct fdma_chan *c, const struct fdma_sub *s,
			    u32 *ndesc)
{
	/* A C2H stream buffer is one descriptor: a frame starts in it. */
	bool whole = (c->caps & FDMA_CH_CAP_STREAM) && (c->caps & FDMA_CH_CAP_C2H);
	u64 done = 0;

	if (whole && s->len > c->fdev->caps.max_desc_len)
		return -EINVAL;
	while (done < s->len) {
		struct fdma_ereq q = { 0 };
		u32 len = fdma_chan_piece(c, s, done, &q);
		int ret;

		if (!len)
			return -EINVAL;
		/* Not the length but the memory's layout: an errno of its own. */
		if (whole && len < s->len)
			return -EMSGSIZE;
		ret = c->ops->check(c, &q, NULL);
		if (ret)
			return ret;
		*ndesc += c->ops->ndesc(c, len);
		if (*ndesc > c->fdev->ring_size)
			return -E2BIG;
		done += len;
	}
	return 0;
}

/* A buffer range of a request: the file's handle, aligned, inside it. */
static int ioc_check_range(struct fdma_file *f, u32 handle, u64 off, u64 len,
			   struct fdma_buffer **bp)
{
	struct fdma_buffer *b = handle ? idr_find(&f->bufs, handle) : NULL;

	if (!b)
		return -EBADF;
	/* Moved by its exporter: see fdma_dmabuf.c. */
	if (READ_ONCE(b->stale))
		return -EIO;
	/* Host memory: the DMA alignment (cache lines of their own). */
	if (!len || ((off | len) & (f->fdev->dma_align - 1)))
		return -EINVAL;
	if (off > b->size || len > b->size - off)
		return -ERANGE;
	*bp = b;
	return 0;
}

/*
 * Check one request of a batch against its buffer, the channel and the
 * engine's rules, and fill in *s; adds its descriptors to *ndesc. Called
 * with f->bufs_sem and fdev->revoke_sem held (read).
 */
static int ioc_check_req(struct fdma_file *f, struct fdma_chan *c,
			 const struct fdma_ioc_req *r, struct fdma_sub *s,
			 u32 *ndesc)
{
	struct fdma_device *fdev = f->fdev;
	int ret;

	/* A copy needs a destination buffer: FDMA_IOC_COPY. */
	if (c->caps & FDMA_CH_CAP_MEM2MEM)
		return -EOPNOTSUPP;
	if (r->flags & ~(FDMA_IOC_REQ_IRQ | FDMA_IOC_REQ_SOF |
			 FDMA_IOC_REQ_EOF))
		return -EINVAL;
	ret = ioc_check_range(f, r->handle, r->offset, r->len, &s->buf);
	if (ret)
		return ret;
	if (!(c->caps & FDMA_CH_CAP_STREAM)) {
		if (r->card_addr & (fdev->caps.align - 1))
			return -EINVAL;
		if (r->card_addr > fdev->card_size ||
		    r->len > fdev->card_size - r->card_addr)
			return -ERANGE;
	}
	s->dst = NULL;
	s->off = r->offset;
	s->dst_off = 0;
	s->card_addr = r->card_addr;
	s->len = r->len;
	s->user_data = r->user_data;
	s->flags = r->flags;
	return ioc_check_pieces(c, s, ndesc);
}

/* The same for one copy of FDMA_IOC_COPY. */
static int ioc_check_copy(struct fdma_file *f, struct fdma_chan *c,
			  const struct fdma_ioc_copy *r, struct fdma_sub *s,
			  u32 *ndesc)
{
	int ret;

	if (!(c->caps & FDMA_CH_CAP_MEM2MEM))
		return -EOPNOTSUPP;
	if ((r->flags & ~FDMA_IOC_REQ_IRQ) || r->rsvd)
		return -EINVAL;
	ret = ioc_check_range(f, r->src_handle, r->src_offset, r->len, &s->buf);
	if (!ret)
		ret = ioc_check_range(f, r->dst_handle, r->dst_offset, r->len,
				      &s->dst);
	if (ret)
		return ret;
	/*
	 * The device copies front to back (no memmove). Memory registered
	 * twice can overlap through two handles: the result is then
	 * undefined, but only the caller's own buffers are written.
	 */
	if (s->buf == s->dst && r->src_offset < r->dst_offset + r->len &&
	    r->dst_offset < r->src_offset + r->len)
		return -EINVAL;
	s->off = r->src_offset;
	s->dst_off = r->dst_offset;
	s->card_addr = 0;
	s->len = r->len;
	s->user_data = r->user_data;
	s->flags = r->flags;
	return ioc_check_pieces(c, s, ndesc);
}

/*
 * Queue a batch of count requests (FDMA_IOC_SUBMIT, and with a group
 * FDMA_URING_CMD_SUBMIT) or copies (FDMA_IOC_COPY) from user pointer uptr
 * on channel chan: one copy of the array in, every element checked, synced
 * for the device, then posted with one doorbell. All or nothing.
 */
static int ioc_batch(struct fdma_file *f, u32 chan, u32 count, u64 uptr,
		     bool copy, struct fdma_group *grp)
{
	struct fdma_device *fdev = f->fdev;
	size_t esize = copy ? sizeof(struct fdma_ioc_copy) :
			      sizeof(struct fdma_ioc_req);
	struct fdma_sub *subs;
	struct fdma_chan *c;
	struct fdma_cq *q;
	void *elems;
	u32 i, held = 0, ndesc = 0;
	int ret;

	c = ioc_chan(f, chan);
	if (!c || !count || count > FDMA_IOC_MAX_BATCH)
		return -EINVAL;
	/* An io_uring command is not a system call of its own. */
	if (!grp)
		atomic64_inc(&c->st.syscalls);
	if (READ_ONCE(fdev->dead))
		return -ENODEV;
	q = fdma_file_cq(f, chan);
	if (IS_ERR(q))
		return PTR_ERR(q);

	elems = kvmalloc_array(count, esize + sizeof(*subs), GFP_KERNEL);
	if (!elems)
		return -ENOMEM;
	subs = elems + count * esize;
	/*
	 * The whole batch in one copy. A pointer past 4 GiB on a 32-bit
	 * kernel is not one of the process's: not read truncated.
	 */
	if ((unsigned long)uptr != uptr ||
	    copy_from_user(elems, u64_to_user_ptr(uptr), count * esize)) {
		ret = -EFAULT;
		goto out;
	}
	/*
	 * The buffers' mappings stay until the requests are posted (remove()
	 * revokes under revoke_sem); nothing here takes mmap_lock or faults.
	 */
	down_read(&fdev->revoke_sem);
	down_read(&f->bufs_sem);
	ret = READ_ONCE(fdev->dead) ? -ENODEV : 0;
	for (i = 0; !ret && i < count; i++)
		ret = copy ? ioc_check_copy(f, c, (struct fdma_ioc_copy *)elems + i,
					    &subs[i], &ndesc) :
			     ioc_check_req(f, c, (struct fdma_ioc_req *)elems + i,
					   &subs[i], &ndesc);
	/* A group's result is its bytes, in an io_uring CQE's int. */
	if (!ret && grp) {
		u64 total = 0;

		for (i = 0; i < count; i++)
			total += subs[i].len;
		if (total > INT_MAX)
			ret = -EINVAL;
	}
	/*
	 * Caches written back (or bounce buffers filled) for each request's
	 * range before it is posted; outside the channel's lock, which the
	 * interrupt thread wants meanwhile. A copy's destination too: a
	 * bounce buffer must not write back stale bytes over what it skips.
	 */
	/*
	 * Held first (counted as in flight), so that an imported buffer's
	 * exporter cannot move it between the check and the sync.
	 */
	for (held = 0; !ret && held < count; held++) {
		ret = fdma_buf_hold(subs[held].buf);
		if (!ret && subs[held].dst) {
			ret = fdma_buf_hold(subs[held].dst);
			if (ret)
				fdma_buf_unhold(subs[held].buf);
		}
		if (ret)
			break;
	}
	for (i = 0; !ret && i < count; i++) {
		fdma_buf_sync(subs[i].buf, subs[i].off, subs[i].len,
			      fdma_chan_dir(c), true);
		if (subs[i].dst)
			fdma_buf_sync(subs[i].dst, subs[i].dst_off, subs[i].len,
				      DMA_FROM_DEVICE, true);
	}
	if (!ret)
		ret = fdma_chan_submit(c, q, grp, subs, count, ndesc);
	for (i = 0; i < held; i++) {
		fdma_buf_unhold(subs[i].buf);
		if (subs[i].dst)
			fdma_buf_unhold(subs[i].dst);
	}
	up_read(&f->bufs_sem);
	up_read(&fdev->revoke_sem);
out:
	kvfree(elems);
	return ret;
}

static int ioc_submit(struct fdma_file *f, void __user *argp, size_t usize)
{
	struct fdma_ioc_submit sb;
	int ret;

	ret = ioc_in(&sb, sizeof(sb), argp, usize);
	if (ret)
		return ret;
	if (memchr_inv(sb.rsvd, 0, sizeof(sb.rsvd)))
		return -EINVAL;
	return ioc_batch(f, sb.chan, sb.count, sb.reqs, false, NULL);
}

static int ioc_copy(struct fdma_file *f, void __user *argp, size_t usize)
{
	struct fdma_ioc_copy_submit cs;
	int ret;

	ret = ioc_in(&cs, sizeof(cs), argp, usize);
	if (ret)
		return ret;
	if (memchr_inv(cs.rsvd, 0, sizeof(cs.rsvd)))
		return -EINVAL;
	return ioc_batch(f, cs.chan, cs.count, cs.copies, true, NULL);
}

/* FDMA_URING_CMD_SUBMIT (fdma_uring.c): the batch, completing into grp. */
int fdma_ioc_submit_group(struct fdma_file *f, u32 chan, u32 count, u64 uptr,
			  struct fdma_group *grp)
{
	return ioc_batch(f, chan, count, uptr, false, grp);
}

static bool ioc_wait_done(struct fdma_file *f, struct fdma_cq *q, u32 min)
{
	u32 queued = fdma_cq_queued(q);

	return queued >= min || queued + READ_ONCE(q->inflight) < min ||
	       READ_ONCE(f->fdev->dead);
}

static int ioc_wait(struct fdma_file *f, void __user *argp, size_t usize)
{
	struct fdma_ioc_wait w;
	struct fdma_chan *c;
	struct fdma_cq *q;
	u32 queued;
	int ret;

	ret = ioc_in(&w, sizeof(w), argp, usize);
	if (ret)
		return ret;
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

			/*
			 * The interrupt, or the watchdog if the interrupt
			 * never comes, ends this wait; an infinite one too.
			 */
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
	if (ioc_out(argp, usize, &w, sizeof(w)))
		return -EFAULT;
	return ret;
}

static int ioc_coalesce(struct fdma_file *f, void __user *argp, size_t usize)
{
	struct fdma_ioc_coalesce co;
	struct fdma_chan *c;
	int ret;

	ret = ioc_in(&co, sizeof(co), argp, usize);
	if (ret)
		return ret;
	c = ioc_chan(f, co.chan);
	if (!c || co.rsvd)
		return -EINVAL;
	return fdma_chan_set_coalesce(c, co.count, co.usecs);
}

static int ioc_chan_reset(struct fdma_file *f, void __user *argp,
			  size_t usize)
{
	struct fdma_chan *c;
	u32 ch;
	int ret;

	ret = ioc_in(&ch, sizeof(ch), argp, usize);
	if (ret)
		return ret;
	c = ioc_chan(f, ch);
	if (!c)
		return -EINVAL;
	return fdma_chan_reset(c);
}

static int ioc_testgen(struct fdma_file *f, void __user *argp, size_t usize)
{
	struct fdma_device *fdev = f->fdev;
	struct fdma_ioc_testgen t;
	struct fdma_chan *c;
	u32 frames, errors;
	int ret;

	ret = ioc_in(&t, sizeof(t), argp, usize);
	if (ret)
		return ret;
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
	/* Frames into (or out of) a client's stream would be the client's. */
	if (t.enable != FDMA_IOC_TESTGEN_QUERY && fdma_chan_busy(c)) {
		mutex_unlock(&c->lock);
		return -EBUSY;
	}
	if (t.enable != FDMA_IOC_TESTGEN_QUERY)
		fdma_ering_set_testgen(&c->ring, t.frame_len, t.period_ns,
				       t.enable);
	fdma_ering_testgen_counts(&c->ring, &frames, &errors);
	mutex_unlock(&c->lock);
	t.frames = frames;
	t.errors = errors;
	return ioc_out(argp, usize, &t, sizeof(t));
}

static int ioc_stats(struct fdma_file *f, void __user *argp, size_t usize)
{
	struct fdma_ioc_stats in, st = { 0 };
	struct fdma_chan *c;
	int ret;

	ret = ioc_in(&in, sizeof(in), argp, usize);
	if (ret)
		return ret;
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
	st.lost_irqs = atomic64_read(&c->st.lost_irqs);
	st.timeouts = atomic64_read(&c->st.timeouts);
	st.canceled = atomic64_read(&c->st.canceled);
	st.wd_reaps = atomic64_read(&c->st.wd_reaps);
	return ioc_out(argp, usize, &st, sizeof(st));
}

/*
 * FDMA_IOC_USER_IRQ: the FPGA's interrupt irq signals this file's eventfd.
 * The engine lets it through from the first listener on (an XDMA user
 * interrupt is masked until then).
 */
static int ioc_user_irq(struct fdma_file *f, void __user *argp, size_t usize)
{
	struct fdma_device *fdev = f->fdev;
	struct fdma_ioc_user_irq u;
	struct eventfd_ctx *ctx = NULL, *old;
	int ret;

	ret = ioc_in(&u, sizeof(u), argp, usize);
	if (ret)
		return ret;
	if (u.irq >= FDMA_USER_IRQS_MAX || u.irq >= fdev->caps.user_irqs ||
	    memchr_inv(u.rsvd, 0, sizeof(u.rsvd)) || u.fd < -1)
		return -EINVAL;
	if (u.irq >= fdev->nuirq)
		return -EOPNOTSUPP;
	if (u.fd >= 0) {
		ctx = eventfd_ctx_fdget(u.fd);
		if (IS_ERR(ctx))
			return PTR_ERR(ctx);
	}
	spin_lock_irq(&f->uirq_lock);
	old = f->uirq[u.irq];
	f->uirq[u.irq] = ctx;
	spin_unlock_irq(&f->uirq_lock);
	if (old)
		eventfd_ctx_put(old);
	if (!ctx)
		return 0;
	/* A register write: remove() must not unmap the BAR meanwhile. */
	down_read(&fdev->revoke_sem);
	ret = READ_ONCE(fdev->dead) ? -ENODEV : 0;
	if (!ret)
		fdma_eng_user_irq_enable(&fdev->plat, &fdev->caps, BIT(u.irq), true);
	up_read(&fdev->revoke_sem);
	return ret;
}

/*
 * FDMA_IOC_CQ_EVENTFD: one readiness fd per channel. The file's own poll
 * covers all of its queues; a thread or an epoll set per channel wants to
 * hear of its channel only.
 */
static int ioc_cq_eventfd(struct fdma_file *f, void __user *argp,
			  size_t usize)
{
	struct fdma_ioc_cq_eventfd e;
	struct eventfd_ctx *ctx = NULL, *old;
	struct fdma_cq *q;
	int ret;

	ret = ioc_in(&e, sizeof(e), argp, usize);
	if (ret)
		return ret;
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

static int ioc_drop(struct fdma_file *f, void __user *argp, size_t usize)
{
	struct fdma_ioc_drop d;
	struct fdma_chan *c;
	int ret;

	ret = ioc_in(&d, sizeof(d), argp, usize);
	if (ret)
		return ret;
	c = ioc_chan(f, d.chan);
	if (!c || d.drop > 1)
		return -EINVAL;
	if ((c->caps & (FDMA_CH_CAP_STREAM | FDMA_CH_CAP_C2H)) !=
	    (FDMA_CH_CAP_STREAM | FDMA_CH_CAP_C2H))
		return -EOPNOTSUPP;
	return fdma_chan_set_drop(c, d.drop);
}

static int ioc_buf_free(struct fdma_file *f, void __user *argp, size_t usize)
{
	u32 handle;
	int ret;

	ret = ioc_in(&handle, sizeof(handle), argp, usize);
	if (ret)
		return ret;
	return fdma_buf_free(f, handle);
}

/*
 * off lies in the len bytes that an MSI-X capability word (the table's or
 * the PBA's: BAR index in bits 2:0, offset above) places in BAR bar.
 */
static bool ioc_reg_in_msix(struct pci_dev *pdev, int where, u64 len, u32 bar,
			    u64 off)
{
	u32 v;

	pci_read_config_dword(pdev, pdev->msix_cap + where, &v);
	return (v & PCI_MSIX_TABLE_BIR) == bar &&
	       off >= (v & PCI_MSIX_TABLE_OFFSET) &&
	       off - (v & PCI_MSIX_TABLE_OFFSET) < len;
}

/*
 * The registers the driver drives: the engine's registers, the MSI-X
 * table and pending bits (an entry's address and data are a DMA write
 * anywhere in memory, so writing them is as strong as the engine's rings),
 * and a shim's own registers (the VM harness's ivshmem: the doorbell).
 */
static bool ioc_reg_owned(struct fdma_device *fdev, u32 bar, u64 off)
{
	struct pci_dev *pdev = fdev->pdev;

	if (fdev->shim && fdev->shim->owns_bar && fdev->shim->owns_bar(fdev, bar))
		return true;
	if (bar == fdev->regs_bar && off < fdev->regs_len)
		return true;
	if (pdev->msix_cap) {
		u16 flags;
		u64 n;

		pci_read_config_word(pdev, pdev->msix_cap + PCI_MSIX_FLAGS, &flags);
		n = (flags & PCI_MSIX_FLAGS_QSIZE) + 1;
		if (ioc_reg_in_msix(pdev, PCI_MSIX_TABLE, n * PCI_MSIX_ENTRY_SIZE, bar, off) ||
		    ioc_reg_in_msix(pdev, PCI_MSIX_PBA, DIV_ROUND_UP(n, 64) * 8, bar, off))
			return true;
	}
	return false;
}

/*
 * One register of a memory BAR, for the FPGA's own logic beside the
 * engine: 32 bits, or 16 or 8 (FDMA_IOC_REG_16, _8). Its page is mapped
 * for the access only: a debugging path, not a data path. Under
 * revoke_sem with dead checked inside, so that remove() cannot release
 * the BARs meanwhile.
 */
static int ioc_reg(struct fdma_file *f, void __user *argp, size_t usize)
{
	struct fdma_device *fdev = f->fdev;
	struct pci_dev *pdev = fdev->pdev;
	struct fdma_ioc_reg r;
	void __iomem *page, *p;
	unsigned int width;
	u64 base;
	int ret;

	/* No BARs behind a dmaengine channel. */
	if (!pdev)
		return -EOPNOTSUPP;
	ret = ioc_in(&r, sizeof(r), argp, usize);
	if (ret)
		return ret;
	if (r.flags & ~(FDMA_IOC_REG_WRITE | FDMA_IOC_REG_FORCE | FDMA_IOC_REG_8 |
			FDMA_IOC_REG_16) ||
	    (r.flags & FDMA_IOC_REG_8 && r.flags & FDMA_IOC_REG_16))
		return -EINVAL;
	width = r.flags & FDMA_IOC_REG_8 ? 1 : r.flags & FDMA_IOC_REG_16 ? 2 : 4;
	if (r.bar >= PCI_STD_NUM_BARS || r.offset & (width - 1) || r.rsvd ||
	    (r.flags & FDMA_IOC_REG_WRITE && width < 4 && r.value >> (8 * width)))
		return -EINVAL;
	if (!(pci_resource_flags(pdev, r.bar) & IORESOURCE_MEM))
		return -ENXIO;
	r.bar_len = pci_resource_len(pdev, r.bar);
	/*
	 * pci_iomap_range() takes an unsigned long: on a 32-bit kernel an
	 * offset past 4 GiB would wrap onto the registers checked below.
	 */
	if (r.offset >= r.bar_len || r.bar_len - r.offset < width ||
	    (unsigned long)r.offset != r.offset)
		return ioc_out(argp, usize, &r, sizeof(r)) ?: -ERANGE;
	if ((r.flags & FDMA_IOC_REG_WRITE) && ioc_reg_owned(fdev, r.bar, r.offset) &&
	    (!(r.flags & FDMA_IOC_REG_FORCE) || !capable(CAP_SYS_RAWIO)))
		return -EPERM;
	/*
	 * The FPGA's own registers: a write may start another bus master of
	 * the design (its own DMA, pointed anywhere), so it takes what
	 * /dev/mem would.
	 */
	if ((r.flags & FDMA_IOC_REG_WRITE) && !capable(CAP_SYS_RAWIO))
		return -EPERM;
	/* A read that clears the engine's status, any byte of it, takes what the driver needs. */
	if (!(r.flags & FDMA_IOC_REG_WRITE) && r.bar == fdev->regs_bar &&
	    r.offset < fdev->regs_len &&
	    fdma_eng_rd_clears(fdev->caps.eng, round_down(r.offset, 4)) &&
	    (!(r.flags & FDMA_IOC_REG_FORCE) || !capable(CAP_SYS_RAWIO)))
		return -EPERM;

	down_read(&fdev->revoke_sem);
	if (READ_ONCE(fdev->dead)) {
		ret = -ENODEV;
		goto out;
	}
	base = round_down(r.offset, PAGE_SIZE);
	page = pci_iomap_range(pdev, r.bar, base,
			       min_t(u64, PAGE_SIZE, r.bar_len - base));
	if (!page) {
		ret = -ENOMEM;
		goto out;
	}
	p = page + (r.offset - base);
	if (r.flags & FDMA_IOC_REG_WRITE) {
		if (width == 1)
			iowrite8(r.value, p);
		else if (width == 2)
			iowrite16(r.value, p);
		else
			iowrite32(r.value, p);
		/*
		 * Posted: a read of the same function behind it flushes it,
		 * so that it has landed on return. The engine's ID register,
		 * not the one written: an FPGA register may count its reads.
		 */
		fdma_plat_rd32(&fdev->plat, FDMA_REG_ID);
	} else {
		r.value = width == 1 ? ioread8(p) : width == 2 ? ioread16(p) : ioread32(p);
	}
	pci_iounmap(pdev, page);
	ret = ioc_out(argp, usize, &r, sizeof(r));
out:
	up_read(&fdev->revoke_sem);
	return ret;
}

/*
 * Each ioctl: its number (direction, and the size of its structure's
 * first version: the smallest the driver accepts), its handler, and
 * whether a file open read-only or a removed device may still use it.
 * Moving data or changing the device needs the file open for writing, as
 * write() does; a read-only opener may only look. After remove, buffers
 * can still be freed and counters read.
 */
struct fdma_ioc_def {
	unsigned int cmd;
	bool read_only;		/* allowed without FMODE_WRITE */
	bool after_remove;	/* allowed once the device is gone */
	int (*fn)(struct fdma_file *f, void __user *argp, size_t usize);
};

static const struct fdma_ioc_def fdma_iocs[] = {
	{ FDMA_IOC_INFO, true, false, ioc_info },
	{ FDMA_IOC_BUF_ALLOC, false, false, ioc_buf_alloc },
	{ FDMA_IOC_BUF_REGISTER, false, false, ioc_buf_register },
	{ FDMA_IOC_BUF_FREE, false, true, ioc_buf_free },
	{ FDMA_IOC_SUBMIT, false, false, ioc_submit },
	{ FDMA_IOC_WAIT, true, false, ioc_wait },
	{ FDMA_IOC_COALESCE, false, false, ioc_coalesce },
	{ FDMA_IOC_CHAN_RESET, false, false, ioc_chan_reset },
	{ FDMA_IOC_TESTGEN, false, false, ioc_testgen },
	{ FDMA_IOC_STATS, true, true, ioc_stats },
	{ FDMA_IOC_DROP, false, false, ioc_drop },
	{ FDMA_IOC_CQ_EVENTFD, false, false, ioc_cq_eventfd },
	{ FDMA_IOC_USER_IRQ, false, false, ioc_user_irq },
	{ FDMA_IOC_REG, false, false, ioc_reg },
	{ FDMA_IOC_COPY, false, false, ioc_copy },
	{ FDMA_IOC_BUF_IMPORT, false, false, ioc_buf_import },
	{ FDMA_IOC_BUF_NVP2P, false, false, ioc_buf_nvp2p },
	{ FDMA_IOC_BUF_EXPORT, false, false, ioc_buf_export },
};

long fdma_cdev_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct fdma_file *f = file->private_data;
	const struct fdma_ioc_def *d = NULL;
	unsigned int i;

	if (_IOC_TYPE(cmd) != FDMA_IOC_MAGIC)
		return -ENOTTY;
	for (i = 0; i < ARRAY_SIZE(fdma_iocs) && !d; i++)
		if (_IOC_NR(fdma_iocs[i].cmd) == _IOC_NR(cmd))
			d = &fdma_iocs[i];
	/* The structure may have grown since: never shrunk, never turned. */
	if (!d || _IOC_DIR(cmd) != _IOC_DIR(d->cmd) ||
	    _IOC_SIZE(cmd) < _IOC_SIZE(d->cmd))
		return -ENOTTY;
	if (!(file->f_mode & FMODE_WRITE) && !d->read_only)
		return -EBADF;
	if (READ_ONCE(f->fdev->dead) && !d->after_remove)
		return -ENODEV;
	return d->fn(f, (void __user *)arg, _IOC_SIZE(cmd));
}
