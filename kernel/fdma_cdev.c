// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fdma.ko: the character device /dev/fdmaN, the simple path.
 *
 * The file is card memory: read() and pread() move bytes from card memory
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
#include <linux/module.h>

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
		return mutex_trylock(&c->lock) ? 0 : -EAGAIN;
	return mutex_lock_interruptible_nested(&c->lock, subclass);
}

static int fdma_cdev_open(struct inode *inode, struct file *file)
{
	struct fdma_dev *fdev = container_of(inode->i_cdev, struct fdma_dev,
					     cdev);

	if (READ_ONCE(fdev->dead))
		return -ENODEV;
	file->private_data = fdev;
	return 0;
}

static int fdma_cdev_release(struct inode *inode, struct file *file)
{
	return 0;
}

static ssize_t fdma_cdev_read(struct file *file, char __user *buf,
			      size_t count, loff_t *ppos)
{
	struct fdma_dev *fdev = file->private_data;
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
	mutex_unlock(&c->lock);
	if (ret > 0)
		*ppos += ret;
	return ret;
}

static ssize_t fdma_cdev_write(struct file *file, const char __user *buf,
			       size_t count, loff_t *ppos)
{
	struct fdma_dev *fdev = file->private_data;
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
	mutex_unlock(&c->lock);
	if (ret > 0)
		*ppos += ret;
out_rd:
	if (rd)
		mutex_unlock(&rd->lock);
	return ret;
}

static loff_t fdma_cdev_llseek(struct file *file, loff_t offset, int whence)
{
	struct fdma_dev *fdev = file->private_data;

	return fixed_size_llseek(file, offset, whence, fdev->card_size);
}

const struct file_operations fdma_cdev_fops = {
	.owner = THIS_MODULE,
	.open = fdma_cdev_open,
	.release = fdma_cdev_release,
	.read = fdma_cdev_read,
	.write = fdma_cdev_write,
	.llseek = fdma_cdev_llseek,
};
