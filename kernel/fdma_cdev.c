// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fdma.ko: the character device /dev/fdmaN.
 *
 * Each open file owns its buffers and completion queues (struct
 * fdma_file; the ioctls are in fdma_ioctl.c). mmap() maps a completion
 * queue (offset FDMA_CQ_MMAP_OFFSET(chan)) or an allocated buffer (the
 * mmap_offset FDMA_IOC_BUF_ALLOC returned), shared only, never grown by
 * mremap() nor written to core dumps (VM_DONTEXPAND | VM_DONTDUMP). A
 * child inherits the mappings at fork() like any MAP_SHARED mapping (the
 * same memory; a buffer lives until its last munmap()); registered memory
 * follows the kernel's rule for pinned pages (a child gets its own copy of
 * a pinned private page, the parent keeps the pinned one). remove()
 * zaps buffer mappings: an access after it is SIGBUS. poll() is readable
 * while any of the file's queues holds an entry (head != tail); fasync()
 * arms SIGIO (or the F_SETSIG signal) for new entries. release() with
 * transfers in flight resets the channels they are on (bounded wait)
 * before anything is freed.
 *
 * The simple path: the file is card memory: read() and pread() move bytes from card memory
 * through the first memory-mapped C2H channel, write() and pwrite() to card
 * memory through the first memory-mapped H2C channel; the file offset is
 * the card address. Any offset and length work: the engine's alignment is
 * met by moving the aligned blocks around the range (a write reads the
 * partial blocks at its ends first; it is not atomic against a concurrent
 * write to the same block).
 *
 * Ranges: an offset beyond the end of card memory is refused (-EINVAL);
 * at the end, read() returns 0 and write() fails with -ENOSPC; a range that
 * runs past the end is shortened. O_NONBLOCK: -EAGAIN instead of waiting
 * for another transfer on the same channel; a transfer that has started is
 * always finished (or aborted) before the call returns, because the data
 * goes through a buffer the driver owns.
 */
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/slab.h>

#include "fdma_compat.h"
#include "fdma_drv.h"

/*
 * Check [pos, pos + *count) against a device of size bytes and shorten
 * *count to the end. Returns 0 (with *count 0 at the end, for a read) or a
 * negative errno.
 */
int fdma_range_check(u64 size, loff_t pos, size_t *count, bool write)
{
	if (pos < 0 || (u64)pos > size)
		return -EINVAL;
	if (!*count)
		return 0;
	if ((u64)pos == size) {
		*count = 0;
		return write ? -ENOSPC : 0;
	}
	if (*count > size - pos)
		*count = size - pos;
	return 0;
}

/* subclass: 1 for the H2C lock taken while holding the C2H one (lockdep). */
static int fdma_lock(struct fdma_chan *c, bool nonblock, unsigned int subclass)
{
	if (nonblock)
		return mutex_trylock(&c->rw_lock) ? 0 : -EAGAIN;
	return mutex_lock_interruptible_nested(&c->rw_lock, subclass);
}

/* remove(): wake every sleeper of every open file (they see the device dead). */
void fdma_files_wake(struct fdma_device *fdev)
{
	struct fdma_file *f;
	u32 ch;

	mutex_lock(&fdev->files_lock);
	list_for_each_entry(f, &fdev->files, node) {
		wake_up_interruptible_poll(&f->wq, EPOLLERR | EPOLLHUP);
		kill_fasync(&f->fasync, SIGIO, POLL_HUP);
		/* Per-channel listeners hear of it too. */
		for (ch = 0; ch < FDMA_MAX_CHANNELS; ch++) {
			/* Pairs with fdma_file_cq(): a queue is seen initialised. */
			struct fdma_cq *q = smp_load_acquire(&f->cq[ch]);

			if (q)
				fdma_cq_notify(q);
		}
	}
	mutex_unlock(&fdev->files_lock);
}

static int fdma_cdev_open(struct inode *inode, struct file *file)
{
	struct fdma_device *fdev = container_of(inode->i_cdev, struct fdma_device,
					     cdev);
	struct fdma_file *f;

	if (READ_ONCE(fdev->dead))
		return -ENODEV;
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	f->fdev = fdev;
	f->mapping = file->f_mapping;
	init_rwsem(&f->bufs_sem);
	idr_init(&f->bufs);
	mutex_init(&f->cq_lock);
	init_waitqueue_head(&f->wq);
	spin_lock_init(&f->uirq_lock);
	mutex_lock(&fdev->files_lock);
	list_add_tail(&f->node, &fdev->files);
	mutex_unlock(&fdev->files_lock);
	file->private_data = f;
	return 0;
}

/*
 * The last reference to the file is gone (no mapping of it is left). Its
 * requests in flight are stopped first: the channels they are on are reset
 * (other files' requests there come back -ECANCELED); then its buffers are
 * unpinned or freed and its queues freed.
 */
static int fdma_cdev_release(struct inode *inode, struct file *file)
{
	struct fdma_file *f = file->private_data;
	struct fdma_device *fdev = f->fdev;
	u32 ch;

	mutex_lock(&fdev->files_lock);
	list_del(&f->node);
	mutex_unlock(&fdev->files_lock);
	for (ch = 0; ch < fdev->caps.nchan; ch++)
		if (f->cq[ch])
			fdma_chan_release_file(&fdev->chan[ch], f->cq[ch]);
	fdma_buf_free_all(f);
	fdma_file_free_cqs(f);
	/* Off the list: no user interrupt looks at f any more. */
	for (ch = 0; ch < FDMA_USER_IRQS_MAX; ch++)
		if (f->uirq[ch])
			eventfd_ctx_put(f->uirq[ch]);
	kfree(f);
	return 0;
}

static int fdma_cdev_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct fdma_file *f = file->private_data;
	struct fdma_device *fdev = f->fdev;
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;

	/* DMA memory and queues are shared with the device and the kernel. */
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	fdma_vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	/* A buffer mapped now faults its pages in: remove() stops that. */
	if (READ_ONCE(fdev->dead))
		return -ENODEV;
	if (off < BIT_ULL(FDMA_BUF_MMAP_SHIFT))
		return fdma_cq_mmap(f, vma, off);
	return fdma_buf_mmap(f, vma, off);
}

static __poll_t fdma_cdev_poll(struct file *file, poll_table *wait)
{
	struct fdma_file *f = file->private_data;
	__poll_t mask = 0;
	u32 ch;

	poll_wait(file, &f->wq, wait);
	if (READ_ONCE(f->fdev->dead))
		mask |= EPOLLERR | EPOLLHUP;
	for (ch = 0; ch < FDMA_MAX_CHANNELS; ch++) {
		/* Pairs with fdma_file_cq(): a queue is seen initialised. */
		struct fdma_cq *q = smp_load_acquire(&f->cq[ch]);

		if (q && READ_ONCE(q->pub) != READ_ONCE(q->hdr->head)) {
			mask |= EPOLLIN | EPOLLRDNORM;
			break;
		}
	}
	return mask;
}

static int fdma_cdev_fasync(int fd, struct file *file, int on)
{
	struct fdma_file *f = file->private_data;

	return fasync_helper(fd, file, on, &f->fasync);
}

static ssize_t fdma_cdev_read(struct file *file, char __user *buf,
			      size_t count, loff_t *ppos)
{
	struct fdma_device *fdev = ((struct fdma_file *)file->private_data)->fdev;
	struct fdma_chan *c;
	ssize_t ret;

	if (READ_ONCE(fdev->dead))
		return -ENODEV;
	if (fdev->c2h < 0)
		return -EOPNOTSUPP;
	ret = fdma_range_check(fdev->card_size, *ppos, &count, false);
	if (ret || !count)
		return ret;

	c = &fdev->chan[fdev->c2h];
	ret = fdma_lock(c, file->f_flags & O_NONBLOCK, 0);
	if (ret)
		return ret;
	if (READ_ONCE(fdev->dead))
		ret = -ENODEV;
	else
		ret = fdma_chan_read(c, buf, count, *ppos);
	mutex_unlock(&c->rw_lock);
	if (ret > 0)
		*ppos += ret;
	return ret;
}

static ssize_t fdma_cdev_write(struct file *file, const char __user *buf,
			       size_t count, loff_t *ppos)
{
	struct fdma_device *fdev = ((struct fdma_file *)file->private_data)->fdev;
	bool nonblock = file->f_flags & O_NONBLOCK;
	struct fdma_chan *c, *rd = NULL;
	u32 mask = fdev->caps.align - 1;
	ssize_t ret;

	if (READ_ONCE(fdev->dead))
		return -ENODEV;
	if (fdev->h2c < 0)
		return -EOPNOTSUPP;
	ret = fdma_range_check(fdev->card_size, *ppos, &count, true);
	if (ret || !count)
		return ret;

	c = &fdev->chan[fdev->h2c];
	/* Partial blocks at either end are read first: lock C2H, then H2C. */
	if (((*ppos | (*ppos + count)) & mask) && fdev->c2h >= 0) {
		rd = &fdev->chan[fdev->c2h];
		ret = fdma_lock(rd, nonblock, 0);
		if (ret)
			return ret;
	}
	ret = fdma_lock(c, nonblock, rd ? SINGLE_DEPTH_NESTING : 0);
	if (ret)
		goto out_rd;
	if (READ_ONCE(fdev->dead))
		ret = -ENODEV;
	else
		ret = fdma_chan_write(c, rd, buf, count, *ppos);
	mutex_unlock(&c->rw_lock);
	if (ret > 0)
		*ppos += ret;
out_rd:
	if (rd)
		mutex_unlock(&rd->rw_lock);
	return ret;
}

static loff_t fdma_cdev_llseek(struct file *file, loff_t offset, int whence)
{
	struct fdma_device *fdev = ((struct fdma_file *)file->private_data)->fdev;

	return fixed_size_llseek(file, offset, whence, fdev->card_size);
}

const struct file_operations fdma_cdev_fops = {
	.owner = THIS_MODULE,
	.open = fdma_cdev_open,
	.release = fdma_cdev_release,
	.read = fdma_cdev_read,
	.write = fdma_cdev_write,
	.llseek = fdma_cdev_llseek,
	.unlocked_ioctl = fdma_cdev_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.uring_cmd = fdma_uring_cmd,
	.mmap = fdma_cdev_mmap,
	.poll = fdma_cdev_poll,
	.fasync = fdma_cdev_fasync,
};
