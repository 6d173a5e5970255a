// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fdma.ko: channels. Each channel has its rings (descriptors, completion
 * records, write-back block) in one coherent DMA allocation, driven through
 * the engine core's fdma_ering_*; memory-mapped channels also own a
 * coherent bounce buffer for read() and write().
 *
 * A transfer is posted, the doorbell rung once, and the caller sleeps on
 * the channel's wait queue until the engine's completion count (in the
 * write-back block, no register read) covers it. IRQ_EN stays set while
 * the channel runs, so the engine's coalescing rule decides when it
 * interrupts; every rule ends in an interrupt once the ring runs empty or
 * the timer expires (docs/engine.md, section 7).
 *
 * Recovery (docs/engine.md, section 11): a channel that halted on an error,
 * that did not finish a transfer within timeout_ms, or whose waiter was
 * interrupted by a signal is reset, its unfinished requests are handed
 * back, and it is started again. A channel that does not acknowledge its
 * reset is marked broken and refuses further work.
 */
#include <linux/dma-mapping.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "fdma_drv.h"

static struct device *chan_dev(struct fdma_chan *c)
{
	return &c->fdev->pdev->dev;
}

static bool chan_halted(struct fdma_chan *c)
{
	return fdma_ering_status(&c->ring) & FDMA_CH_ST_HALTED;
}

static void chan_start(struct fdma_chan *c)
{
	fdma_ering_set_coalesce(&c->ring, c->coal_count, c->coal_usecs);
	fdma_ering_start(&c->ring, FDMA_CH_CTRL_IRQ_EN, c->vec);
}

int fdma_chan_init(struct fdma_dev *fdev, u32 idx)
{
	struct fdma_chan *c = &fdev->chan[idx];
	struct device *dev = &fdev->pdev->dev;
	u32 size = fdev->ring_size;
	size_t dbytes = FDMA_RING_DESC_BYTES(size);
	size_t cbytes = FDMA_RING_CPL_BYTES(size);
	int ret;

	c->caps = fdev->caps.chan_caps[idx];
	c->slot = kcalloc(size, sizeof(*c->slot), GFP_KERNEL);
	if (!c->slot)
		return -ENOMEM;
	/* Page-aligned: each area below is aligned as the engine requires. */
	c->ring_bytes = dbytes + cbytes + FDMA_RING_WB_BYTES;
	c->ring_mem = dma_alloc_coherent(dev, c->ring_bytes, &c->ring_bus,
					 GFP_KERNEL);
	if (!c->ring_mem) {
		ret = -ENOMEM;
		goto err;
	}

	if (!(c->caps & FDMA_CH_CAP_STREAM)) {
		/*
		 * One request per chunk: it must fit the ring once split at
		 * the engine's maximum descriptor length.
		 */
		u64 most = (u64)size * fdev->caps.max_desc_len;
		size_t want = round_down(min_t(u64, FDMA_BOUNCE_SIZE, most),
					 fdev->caps.align);

		/* Contiguous memory may be short (CMA): settle for less. */
		c->bounce_size = want;
		for (;;) {
			size_t half = round_down(c->bounce_size / 2,
						 fdev->caps.align);

			c->bounce = dma_alloc_coherent(dev, c->bounce_size,
						       &c->bounce_bus,
						       GFP_KERNEL | __GFP_NOWARN);
			if (c->bounce || c->bounce_size <= PAGE_SIZE || !half)
				break;
			c->bounce_size = half;
		}
		if (!c->bounce) {
			ret = -ENOMEM;
			goto err;
		}
		if (c->bounce_size != want)
			dev_info(dev, "channel %u: bounce buffer of %zu bytes, not %zu\n",
				 idx, c->bounce_size, want);
	}

	ret = fdma_ering_init(&c->ring, &fdev->plat, &fdev->caps, idx, size,
			      c->ring_mem, c->ring_bus,
			      c->ring_mem + dbytes, c->ring_bus + dbytes,
			      c->ring_mem + dbytes + cbytes,
			      c->ring_bus + dbytes + cbytes, c->slot);
	if (ret) {
		dev_err(dev, "channel %u: ring of %u entries refused (%d)\n",
			idx, size, ret);
		goto err;
	}
	chan_start(c);
	c->up = true;
	return 0;

err:
	fdma_chan_free(c);
	return ret;
}

/*
 * Called by remove() after the device was marked dead: waits for the
 * channel's user to leave, then stops the engine touching its memory.
 */
void fdma_chan_stop(struct fdma_chan *c)
{
	mutex_lock(&c->lock);
	if (c->up) {
		if (c->broken ||
		    fdma_ering_reset(&c->ring, FDMA_RESET_TIMEOUT_US)) {
			dev_warn(chan_dev(c), "channel %u: no reset acknowledgment: clearing RUN only\n",
				 c->idx);
			fdma_ering_stop(&c->ring);
		}
		c->up = false;
	}
	mutex_unlock(&c->lock);
}

void fdma_chan_free(struct fdma_chan *c)
{
	struct device *dev = chan_dev(c);

	WARN_ON(c->up);
	if (c->bounce)
		dma_free_coherent(dev, c->bounce_size, c->bounce,
				  c->bounce_bus);
	if (c->ring_mem)
		dma_free_coherent(dev, c->ring_bytes, c->ring_mem,
				  c->ring_bus);
	kfree(c->slot);
	c->bounce = NULL;
	c->ring_mem = NULL;
	c->slot = NULL;
}

/*
 * Reset the channel, hand back what was posted and start it again. The one
 * request the caller had in flight comes back in *cpl (if it was posted).
 */
static int chan_recover(struct fdma_chan *c, const char *why,
			struct fdma_ecpl *cpl, bool *got)
{
	struct fdma_ecpl back[4];
	u32 n, i;
	int ret;

	atomic64_inc(&c->st.resets);
	ret = fdma_ering_reset(&c->ring, FDMA_RESET_TIMEOUT_US);
	if (ret) {
		c->broken = true;
		dev_err(chan_dev(c), "channel %u: %s, and no reset acknowledgment (%d): channel disabled\n",
			c->idx, why, ret);
		return ret;
	}
	while ((n = fdma_ering_cancel(&c->ring, back, ARRAY_SIZE(back)))) {
		for (i = 0; i < n; i++) {
			if (back[i].status == FDMA_CPL_CANCELED)
				atomic64_inc(&c->st.canceled);
			if (cpl && !*got) {
				*cpl = back[i];
				*got = true;
			}
		}
	}
	chan_start(c);
	dev_notice_ratelimited(chan_dev(c), "channel %u reset: %s\n",
			       c->idx, why);
	return 0;
}

static bool chan_event(struct fdma_chan *c)
{
	return fdma_ering_ready(&c->ring) || chan_halted(c) ||
	       READ_ONCE(c->fdev->dead);
}

static int chan_complete(struct fdma_chan *c, const struct fdma_ecpl *cpl)
{
	int ret = fdma_cpl_errno(cpl->status);

	if (!ret) {
		atomic64_inc(&c->st.completions);
		atomic64_add(cpl->len, &c->st.bytes);
		return 0;
	}
	atomic64_inc(&c->st.errors);
	dev_err_ratelimited(chan_dev(c), "channel %u: transfer failed: %s\n",
			    c->idx, fdma_cpl_str(cpl->status));
	return ret;
}

/*
 * Move len bytes between card address card and bus address bus on channel
 * c (the direction is the channel's) and wait until they have moved.
 * Called with c->lock held. Returns 0 or a negative errno:
 *   -ENODEV       the device was removed
 *   -EIO          the channel is broken, or a device error
 *   -ETIMEDOUT    not complete within timeout_ms (the channel was reset)
 *   -ERESTARTSYS  a signal arrived (the transfer was aborted by a reset)
 *   other         the engine's error for the request (fdma_cpl_errno())
 */
int fdma_chan_xfer(struct fdma_chan *c, u64 card, dma_addr_t bus, u32 len)
{
	struct fdma_ereq q = {
		.host = bus,
		.card = card,
		.len = len,
		.cookie = ++c->cookie,
	};
	unsigned long deadline;
	struct fdma_ecpl cpl;
	const char *why;
	long left;
	bool got;
	int ret;

	lockdep_assert_held(&c->lock);
	if (READ_ONCE(c->fdev->dead))
		return -ENODEV;
	if (c->broken || !c->up)
		return -EIO;
	if (chan_halted(c)) {
		ret = chan_recover(c, "halted before a new transfer", NULL,
				   NULL);
		if (ret)
			return ret;
	}
	ret = fdma_ering_check(&c->ring, &q, &why);
	if (ret) {
		dev_dbg(chan_dev(c), "channel %u: %s\n", c->idx, why);
		return ret;
	}
	ret = fdma_ering_post(&c->ring, &q);
	if (ret)
		return ret;
	fdma_ering_doorbell(&c->ring);

	left = msecs_to_jiffies(fdma_param_timeout_ms);
	deadline = jiffies + left;
	for (;;) {
		if (fdma_ering_reap(&c->ring, &cpl, 1)) {
			if (time_after_eq(jiffies, deadline)) {
				/* Complete, but nothing woke us: say so. */
				atomic64_inc(&c->st.lost_irqs);
				dev_warn_ratelimited(chan_dev(c), "channel %u: transfer complete but no interrupt within %u ms\n",
						     c->idx, fdma_param_timeout_ms);
			}
			ret = chan_complete(c, &cpl);
			/* An error halted the channel: recover it now. */
			if (ret && chan_halted(c))
				chan_recover(c, "halted on an error", NULL,
					     NULL);
			return ret;
		}
		if (READ_ONCE(c->fdev->dead))
			return -ENODEV;	/* remove() stops the channel */
		if (chan_halted(c)) {
			/* The failed piece was not the request's last. */
			got = false;
			ret = chan_recover(c, "halted on an error", &cpl,
					   &got);
			if (ret)
				return ret;
			if (got && cpl.status != FDMA_CPL_CANCELED)
				return chan_complete(c, &cpl);
			atomic64_inc(&c->st.errors);
			return -EIO;
		}
		if (!left) {
			atomic64_inc(&c->st.errors);
			ret = chan_recover(c, "transfer timed out", NULL, NULL);
			return ret ? ret : -ETIMEDOUT;
		}
		left = wait_event_interruptible_timeout(c->wq, chan_event(c),
							left);
		if (left < 0) {
			/* Nothing may land in the buffer after we return. */
			ret = chan_recover(c, "transfer interrupted by a signal",
					   NULL, NULL);
			return ret ? ret : -ERESTARTSYS;
		}
	}
}

int fdma_chan_set_coalesce(struct fdma_chan *c, u32 count, u32 usecs)
{
	int ret;

	if (count > c->ring.size || usecs > FDMA_COAL_USECS_MAX)
		return -EINVAL;
	if ((count > 1 || usecs) && !c->fdev->caps.coalesce)
		return -EOPNOTSUPP;
	ret = mutex_lock_interruptible(&c->lock);
	if (ret)
		return ret;
	if (READ_ONCE(c->fdev->dead) || !c->up) {
		ret = -ENODEV;
	} else {
		c->coal_count = count;
		c->coal_usecs = usecs;
		fdma_ering_set_coalesce(&c->ring, count, usecs);
	}
	mutex_unlock(&c->lock);
	return ret;
}

/* One chunk of a read or write: the aligned card range around [pos, +n). */
struct fdma_chunk {
	u64 a0;		/* aligned start */
	u32 head;	/* pos - a0 */
	u32 len;	/* aligned length moved */
	size_t n;	/* caller's bytes in this chunk */
};

static void chunk_of(const struct fdma_chan *c, u64 pos, size_t left,
		     struct fdma_chunk *k)
{
	u32 align = c->fdev->caps.align;

	k->a0 = round_down(pos, align);
	k->head = pos - k->a0;
	k->n = min_t(size_t, left, c->bounce_size - k->head);
	k->len = round_up(pos + k->n, align) - k->a0;
}

/*
 * read(): card memory [pos, pos + count) to user memory, in chunks through
 * the bounce buffer. The caller holds c->lock and has checked the range.
 * Returns the bytes copied, or a negative errno if none were.
 */
ssize_t fdma_chan_read(struct fdma_chan *c, char __user *buf, size_t count,
		       u64 pos)
{
	struct fdma_chunk k;
	size_t done = 0;
	int ret = 0;

	while (done < count) {
		chunk_of(c, pos + done, count - done, &k);
		ret = fdma_chan_xfer(c, k.a0, c->bounce_bus, k.len);
		if (ret)
			break;
		if (copy_to_user(buf + done, c->bounce + k.head, k.n)) {
			ret = -EFAULT;
			break;
		}
		done += k.n;
		if (done < count && signal_pending(current)) {
			ret = -ERESTARTSYS;
			break;
		}
	}
	return done ? done : ret;
}

/*
 * write(): user memory to card memory [pos, pos + count). An unaligned
 * start or end is read first through the C2H channel rd (read-modify-write
 * of the aligned blocks around it). The caller holds c->lock, and rd->lock
 * if rd is given.
 */
ssize_t fdma_chan_write(struct fdma_chan *c, struct fdma_chan *rd,
			const char __user *buf, size_t count, u64 pos)
{
	u32 align = c->fdev->caps.align;
	struct fdma_chunk k;
	size_t done = 0;
	int ret = 0;

	while (done < count) {
		u64 end;

		chunk_of(c, pos + done, count - done, &k);
		end = pos + done + k.n;
		if (k.head || (end & (align - 1))) {
			if (!rd) {
				ret = -EINVAL;
				break;
			}
			/* Head block, then the tail block if it is another. */
			if (k.head)
				ret = fdma_chan_xfer(rd, k.a0, c->bounce_bus,
						     align);
			if (!ret && (end & (align - 1)) &&
			    (!k.head || k.len > align))
				ret = fdma_chan_xfer(rd, k.a0 + k.len - align,
						     c->bounce_bus + k.len -
						     align, align);
			if (ret)
				break;
		}
		if (copy_from_user(c->bounce + k.head, buf + done, k.n)) {
			ret = -EFAULT;
			break;
		}
		ret = fdma_chan_xfer(c, k.a0, c->bounce_bus, k.len);
		if (ret)
			break;
		done += k.n;
		if (done < count && signal_pending(current)) {
			ret = -ERESTARTSYS;
			break;
		}
	}
	return done ? done : ret;
}
