// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fdma.ko: channels. Each channel has a ring, driven through its
 * struct fdma_ring_ops (the FDMA engine's in fdma_ring.c, a dmaengine
 * channel's in fdma_dmac.c): everything here is the same for both.
 * Memory-mapped channels also own a bounce buffer for read() and write()
 * (kernel pages, a streaming mapping synced around each transfer),
 * unmapped by remove() and freed only at the device's release
 * (fdma_chan_free_bounce()).
 *
 * Two kinds of requests share a ring:
 *  - requests of FDMA_IOC_SUBMIT (struct fdma_ureq, one per user request,
 *    indexed by the cookie of its engine requests), owned by an open file;
 *    their completion goes into that file's completion queue;
 *  - the read/write path's one request at a time (c->kr, cookie
 *    FDMA_KCOOKIE | n), whose caller sleeps until it is done.
 *
 * Completions are reaped under the channel's lock (c->lock, a mutex) by the
 * interrupt's thread, by FDMA_IOC_WAIT, by the read/write waiter and by the
 * watchdog, whoever comes first: the ring's reap hands back finished
 * engine requests, they are folded into their user request, and a finished
 * user request is synced for the CPU and written to its owner's queue; the
 * queue's tail is published (store-release) once per reap and the owner
 * woken (poll, FDMA_IOC_WAIT, eventfd, SIGIO). IRQ_EN stays set while the
 * channel runs, so the engine's coalescing rule decides when it
 * interrupts; every rule ends in an interrupt once the ring runs empty or
 * the timer expires (docs/engine.md, section 7).
 *
 * The watchdog (the netdev tx_timeout idea) runs every watchdog_ms while
 * anything is in flight: completions that waited a whole period unreaped
 * are reaped (counted in lost_irqs when the engine had drained its ring,
 * which always ends in an interrupt), so no waiter depends on the
 * interrupt alone; and a memory-mapped channel whose completion count did
 * not move for timeout_ms while it owed completions is reset (timeouts).
 * A timeout means "no progress", never "not done yet": a deep queue on a
 * slow link never times out while it moves. Stream channels legitimately
 * wait for frames or for the sink, and are never reset for it.
 *
 * Recovery (docs/engine.md, section 11): a channel that halted on an
 * error, that made no progress, that a user resets (FDMA_IOC_CHAN_RESET),
 * or on which a file is closed with transfers in flight, is reset,
 * everything posted is handed back to its owners (the ring's cancel:
 * -ECANCELED, -ETIMEDOUT after no progress, or the request's own error),
 * and it is started again. A signal never resets a channel: read/write
 * waiters sleep killably only, and a caller killed while its request is in
 * flight leaves it there (abandoned), for the next user of the bounce
 * buffer to wait for. A channel that does not acknowledge its reset is
 * marked broken (RUN cleared) and refuses further work until a reset
 * succeeds; its rings, and the buffers that were in flight on it, are
 * never freed while the device might still write them (see fdma_pci.c).
 */
#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "fdma_drv.h"

static struct device *chan_dev(struct fdma_chan *c)
{
	return c->fdev->dma_dev;
}

/* Messages name the function, or the node where there is none (dmaengine). */
static struct device *chan_log(struct fdma_chan *c)
{
	return c->fdev->pdev ? &c->fdev->pdev->dev : &c->fdev->dev;
}

static bool chan_halted(struct fdma_chan *c)
{
	return c->ops->status(c) & FDMA_CH_ST_HALTED;
}

static u32 chan_inflight(struct fdma_chan *c)
{
	struct fdma_ring_pos p;

	c->ops->pos(c, &p);
	return p.posted - p.reaped;
}

static void chan_wd_work(struct work_struct *work);

/* The channel's locks and lists, before anything can look at it. */
void fdma_chan_setup(struct fdma_device *fdev, u32 idx)
{
	struct fdma_chan *c = &fdev->chan[idx];

	c->fdev = fdev;
	c->idx = idx;
	mutex_init(&c->lock);
	mutex_init(&c->rw_lock);
	init_waitqueue_head(&c->wq);
	INIT_LIST_HEAD(&c->dirty);
	INIT_DELAYED_WORK(&c->wd, chan_wd_work);
	atomic_set(&c->bounce_users, 0);
}

/*
 * The read/write bounce buffer: one request per chunk, which must fit the
 * ring once split at the engine's maximum descriptor length. Contiguous
 * pages may be short: settle for less.
 */
static int chan_alloc_bounce(struct fdma_chan *c)
{
	struct fdma_device *fdev = c->fdev;
	struct device *dev = fdev->dma_dev;
	u64 most = (u64)fdev->ring_size * fdev->caps.max_desc_len;
	gfp_t gfp = GFP_KERNEL | __GFP_NOWARN | __GFP_NORETRY | __GFP_ZERO;
	struct page *p;
	size_t want;
	int order;

	/* One mapping: no longer than one may be (swiotlb: 256 KiB). */
	most = min_t(u64, most, dma_max_mapping_size(dev));
	want = round_down(min_t(u64, FDMA_BOUNCE_SIZE, most), fdev->caps.align);
	want = max_t(size_t, want, fdev->caps.align);
	order = get_order(want);
	if (fdev->dma_bits <= 32)
		gfp |= GFP_DMA32;
	/* Settle for less where contiguous pages or mapping room are short. */
	for (;; order--) {
		p = alloc_pages(gfp, order);
		if (p) {
			c->bounce_size = min_t(size_t, want, PAGE_SIZE << order);
			c->bounce_map_len = PAGE_ALIGN(c->bounce_size);
			c->bounce_bus = dma_map_single(dev, page_address(p),
						       c->bounce_map_len,
						       DMA_BIDIRECTIONAL);
			if (!dma_mapping_error(dev, c->bounce_bus))
				break;
			__free_pages(p, order);
			p = NULL;
		}
		if (!order)
			return -ENOMEM;
	}
	c->bounce = page_address(p);
	c->bounce_order = order;
	c->bounce_mapped = true;
	if (c->bounce_size != want)
		dev_info(dev, "channel %u: bounce buffer of %zu bytes, not %zu\n",
			 c->idx, c->bounce_size, want);
	return 0;
}

int fdma_chan_init(struct fdma_device *fdev, u32 idx)
{
	struct fdma_chan *c = &fdev->chan[idx];
	u32 size = fdev->ring_size, i;
	int ret;

	c->caps = fdev->caps.chan_caps[idx];
	c->ureq = kcalloc(size, sizeof(*c->ureq), GFP_KERNEL);
	c->ufree = kcalloc(size, sizeof(*c->ufree), GFP_KERNEL);
	if (!c->ureq || !c->ufree) {
		ret = -ENOMEM;
		goto err;
	}
	/* Every user request takes a descriptor at least: size of them suffice. */
	for (i = 0; i < size; i++)
		c->ufree[i] = size - 1 - i;
	c->nufree = size;

	/* read()/write() of card memory bounce through it: memory-mapped channels only. */
	if (!(c->caps & (FDMA_CH_CAP_STREAM | FDMA_CH_CAP_MEM2MEM))) {
		ret = chan_alloc_bounce(c);
		if (ret)
			goto err;
	}
	ret = c->ops->init(c);
	if (ret)
		goto err;
	c->up = true;
	return 0;

err:
	fdma_chan_unmap_bounce(c);
	fdma_chan_free_bounce(c);
	fdma_chan_free(c);
	return ret;
}

/*
 * Free the ring and the request tables: the channel is stopped (c->up
 * false), and every access to them is under c->lock after checking c->up.
 * The ring's backend keeps what a device may still write.
 */
void fdma_chan_free(struct fdma_chan *c)
{
	WARN_ON(c->up);
	if (c->ops)
		c->ops->free(c);
	kfree(c->ureq);
	kfree(c->ufree);
	c->ureq = NULL;
	c->ufree = NULL;
	c->nufree = 0;
}

/*
 * A bounce buffer that a channel whose reset failed may still write into
 * (b->bounce_tainter is that channel): kept mapped and allocated unless the
 * engine stopped mastering the bus.
 */
static bool bounce_kept(const struct fdma_chan *b)
{
	return READ_ONCE(b->bounce_tainter) && !b->fdev->quiesced;
}

/*
 * Undo the bounce buffer's DMA mapping (remove(), once the engine is
 * stopped): nothing of the DMA API is used on it after remove() returns.
 * A read() copying from it meanwhile still reads valid memory.
 */
void fdma_chan_unmap_bounce(struct fdma_chan *c)
{
	mutex_lock(&c->lock);
	if (c->bounce_mapped && !bounce_kept(c))
		dma_unmap_single_attrs(chan_dev(c), c->bounce_bus,
				       c->bounce_map_len, DMA_BIDIRECTIONAL,
				       DMA_ATTR_SKIP_CPU_SYNC);
	c->bounce_mapped = false;
	mutex_unlock(&c->lock);
}

/*
 * Free the bounce buffer's pages, at the device's release (or a failed
 * probe): a read() or write() copies to or from it with only rw_lock held
 * (possibly faulting on user memory for as long as user space likes), and
 * an open file keeps the device, so nothing can be using it any more.
 * Freeing it in remove() would make remove() wait for rw_lock, i.e. for
 * such a copy.
 */
void fdma_chan_free_bounce(struct fdma_chan *c)
{
	if (c->bounce && bounce_kept(c)) {
		atomic64_add(PAGE_SIZE << c->bounce_order,
			     &c->fdev->leaked_bytes);
		dev_crit(chan_log(c), "channel %u: bounce buffer kept for good: the engine may still write it\n",
			 c->idx);
	} else if (c->bounce) {
		free_pages((unsigned long)c->bounce, c->bounce_order);
	}
	c->bounce = NULL;
}

/* ---- accounting and delivery --------------------------------------------- */

/* Count a finished request (read/write or submitted); returns its errno. */
int fdma_chan_account(struct fdma_chan *c, u16 status, u64 len)
{
	int ret = fdma_cpl_errno(status);

	if (!ret) {
		atomic64_inc(&c->st.completions);
		atomic64_add(len, &c->st.bytes);
		return 0;
	}
	atomic64_inc(&c->st.errors);
	if (status != FDMA_CPL_CANCELED)
		dev_err_ratelimited(chan_log(c), "channel %u: transfer failed: %s\n",
				    c->idx, fdma_cpl_str(status));
	return ret;
}

/* Something happened on the ring: read/write waiters look again. */
static void chan_wake(struct fdma_chan *c)
{
	WRITE_ONCE(c->events, c->events + 1);
	wake_up_all(&c->wq);
}

/* Publish the tails of the queues written since the last call, wake owners. */
static void chan_publish(struct fdma_chan *c)
{
	struct fdma_cq *q, *tmp;

	list_for_each_entry_safe(q, tmp, &c->dirty, dirty) {
		list_del_init(&q->dirty);
		/* The entries first, then the tail that covers them. */
		smp_store_release(&q->hdr->tail, q->tail);
		WRITE_ONCE(q->pub, q->tail);
		fdma_cq_notify(q);
		fdma_file_notify(q->file);
	}
}

/* A user request is complete: its entry goes into its owner's queue, or its group. */
static void chan_ureq_done(struct fdma_chan *c, struct fdma_ureq *u)
{
	struct fdma_group *g = u->grp;
	struct fdma_cq *q = u->cq;
	int res;

	/*
	 * Caches invalidated (or the bounce copied back) for this range only;
	 * C2H, only the bytes the device wrote (a stream frame shorter than
	 * its buffer): a bounce copy beyond them would put back bytes of
	 * before the transfer over the application's.
	 */
	fdma_buf_sync(u->buf, u->off, u->dir == DMA_FROM_DEVICE ?
		      min(u->len, round_up(u->done, (u64)c->fdev->dma_align)) :
		      u->len, u->dir, false);
	/* A copy's destination: the bytes the device wrote. */
	if (u->dst)
		fdma_buf_sync(u->dst, u->dst_off,
			      min(u->len, round_up(u->done, (u64)c->fdev->dma_align)),
			      DMA_FROM_DEVICE, false);
	res = fdma_chan_account(c, u->status, u->done);
	if (u->status == FDMA_CPL_CANCELED)
		res = u->cancel_res;
	if (g) {
		g->bytes += (u32)u->done;
		if (res && !g->res)
			g->res = res;
	} else {
		struct fdma_cq_entry *e = &q->ent[q->tail & q->mask];

		e->user_data = u->user_data;
		e->len = u->done;
		e->res = res;
		e->status = u->status;
		e->flags = u->flags & (FDMA_IOC_CPL_SOF | FDMA_IOC_CPL_EOF |
				       FDMA_IOC_CPL_OVERRUN);
		q->tail++;
		WRITE_ONCE(q->inflight, q->inflight - 1);
		if (list_empty(&q->dirty))
			list_add_tail(&q->dirty, &c->dirty);
	}
	/* After the sync: FDMA_IOC_BUF_FREE may free it once this reads 0. */
	fdma_buf_unhold(u->buf);
	if (u->dst)
		fdma_buf_unhold(u->dst);
	u->cq = NULL;
	u->grp = NULL;
	u->buf = NULL;
	u->dst = NULL;
	c->ufree[c->nufree++] = u - c->ureq;
	/* Last: done may complete its owner, which may then go. */
	if (g && !--g->left)
		g->done(g);
}

/* The read/write path's request finished (completed or canceled). */
static void chan_kreq_done(struct fdma_chan *c, const struct fdma_ecpl *e,
			   int cancel_res)
{
	struct fdma_kreq *k = &c->kr;

	if (!k->busy || k->done || k->cookie != e->cookie)
		return;		/* stale: a request of before a reset */
	k->cpl = *e;
	k->cancel_res = cancel_res;
	WRITE_ONCE(k->done, true);
	/* The bounce buffer it moved bytes of is free for its owner again. */
	if (atomic_dec_and_test(&k->buf_of->bounce_users) && k->buf_of != c)
		wake_up_all(&k->buf_of->wq);
	if (k->abandoned) {
		/* Nobody waits for it: count it and free the slot. */
		fdma_chan_account(c, e->status, e->len);
		k->busy = false;
	}
}

/*
 * One finished engine request (from reap or cancel). taint: the channel's
 * reset was not acknowledged, so the device may still write the buffer.
 * cancel_res: the errno of a request canceled by this reset.
 */
static void chan_piece(struct fdma_chan *c, const struct fdma_ecpl *e,
		       bool taint, int cancel_res)
{
	struct fdma_ureq *u;

	if (e->cookie & FDMA_KCOOKIE) {
		chan_kreq_done(c, e, cancel_res);
		return;
	}
	if (e->cookie & FDMA_DCOOKIE) {
		/* A client's that posts through us (the dmaengine provider). */
		if (c->client && c->client->ops->piece)
			c->client->ops->piece(c, c->client, e, taint);
		else
			dev_err_ratelimited(chan_log(c), "channel %u: completion of request %llu of no client\n",
					    c->idx, e->cookie);
		return;
	}
	if (e->cookie >= c->fdev->ring_size || !c->ureq[e->cookie].cq) {
		dev_err_ratelimited(chan_log(c), "channel %u: completion of unknown request %llu\n",
				    c->idx, e->cookie);
		return;
	}
	u = &c->ureq[e->cookie];
	if (taint) {
		u->buf->tainted = true;
		if (u->dst)
			u->dst->tainted = true;
	}
	u->done += e->len;
	u->flags |= e->flags;
	if (u->status == FDMA_CPL_OK) {
		u->status = e->status;
		u->cancel_res = cancel_res;
	}
	if (!--u->pieces)
		chan_ureq_done(c, u);
}

/*
 * Reset the channel and hand back everything posted to its owners
 * (canceled ones with cancel_res). The channel is left stopped. Returns
 * 0, or the reset's error (the channel is then broken, RUN cleared).
 */
int fdma_chan_reset_cancel(struct fdma_chan *c, const char *why,
			   int cancel_res)
{
	struct fdma_ecpl e[16];
	u32 n, i;
	int ret;

	lockdep_assert_held(&c->lock);
	atomic64_inc(&c->st.resets);
	if (c->client && c->client->ops->reset)
		c->client->ops->reset(c, c->client);
	ret = c->ops->reset(c);
	if (ret) {
		c->broken = true;
		c->ops->stop(c);
		/* The bounce buffer its read/write request moves stays its own. */
		if (c->kr.busy && !c->kr.done)
			WRITE_ONCE(c->kr.buf_of->bounce_tainter, c);
		dev_err(chan_log(c), "channel %u: %s, and no reset acknowledgment (%d): channel disabled\n",
			c->idx, why, ret);
	}
	while ((n = c->ops->cancel(c, e, ARRAY_SIZE(e)))) {
		for (i = 0; i < n; i++) {
			if (e[i].status == FDMA_CPL_CANCELED)
				atomic64_inc(&c->st.canceled);
			chan_piece(c, &e[i], ret != 0, cancel_res);
		}
	}
	chan_publish(c);
	chan_wake(c);
	return ret;
}

/* Reset, hand everything back, start again. */
int fdma_chan_recover(struct fdma_chan *c, const char *why, int cancel_res)
{
	int ret = fdma_chan_reset_cancel(c, why, cancel_res);
	u32 i;

	if (ret)
		return ret;
	c->broken = false;
	/* The engine has let go of this channel: so of any bounce buffer. */
	for (i = 0; i < c->fdev->caps.nchan; i++)
		if (READ_ONCE(c->fdev->chan[i].bounce_tainter) == c)
			WRITE_ONCE(c->fdev->chan[i].bounce_tainter, NULL);
	c->ops->start(c);
	dev_notice_ratelimited(chan_log(c), "channel %u reset: %s\n",
			       c->idx, why);
	return 0;
}

/*
 * Move every finished request to its owner. With recover, also reset a
 * halted channel (which sleeps); without, leave that to the next reaper
 * that may sleep. Returns the engine requests reaped.
 */
static u32 chan_reap(struct fdma_chan *c, bool recover)
{
	struct fdma_ecpl e[16];
	u32 n, i, total = 0;

	lockdep_assert_held(&c->lock);
	/* A ring its client drives itself (a network interface's NAPI) is not ours. */
	if (!c->up || (c->client && c->client->ops->own_ring))
		return 0;
	while ((n = c->ops->reap(c, e, ARRAY_SIZE(e)))) {
		for (i = 0; i < n; i++)
			chan_piece(c, &e[i], false, -ECANCELED);
		total += n;
	}
	/* HALTED is published after the last record: all are reaped now. */
	if (recover && !c->broken && chan_halted(c)) {
		fdma_chan_recover(c, "halted on an error", -ECANCELED);
	} else if (total) {
		chan_publish(c);
		chan_wake(c);
	}
	return total;
}

u32 fdma_chan_reap_locked(struct fdma_chan *c)
{
	return chan_reap(c, true);
}

/* Reap without ever sleeping (dmaengine's tx_status). */
u32 fdma_chan_reap_nosleep(struct fdma_chan *c)
{
	return chan_reap(c, false);
}

/* The interrupt's thread (and FDMA_IOC_WAIT): reap. */
void fdma_chan_irq(struct fdma_chan *c)
{
	mutex_lock(&c->lock);
	fdma_chan_reap_locked(c);
	mutex_unlock(&c->lock);
}

/* Also a backend module's completion work (fdma_backend.h). */
EXPORT_SYMBOL_NS_GPL(fdma_chan_irq, FDMA);

void fdma_chan_intr(struct fdma_chan *c)
{
	struct fdma_chan_client *cl;

	/* A ring its client drives: the client is told (its release waits for RCU). */
	rcu_read_lock();
	cl = READ_ONCE(c->client);
	if (cl && cl->ops->own_ring) {
		cl->ops->kick(c, cl);
		rcu_read_unlock();
		return;
	}
	rcu_read_unlock();
	mutex_lock(&c->lock);
	if (c->ops->irq_ack && c->up)
		c->ops->irq_ack(c);
	fdma_chan_reap_locked(c);
	mutex_unlock(&c->lock);
}

void fdma_chan_reap(struct fdma_chan *c)
{
	fdma_chan_irq(c);
}

/* Is the channel usable? Recovers a halted one. Called with c->lock. */
int fdma_chan_usable(struct fdma_chan *c)
{
	if (READ_ONCE(c->fdev->dead))
		return -ENODEV;
	if (!c->up || c->broken)
		return -EIO;
	if (chan_halted(c)) {
		fdma_chan_reap_locked(c);
		if (c->broken)
			return -EIO;
	}
	return 0;
}

/* ---- the watchdog ------------------------------------------------------- */

/* Remember where the ring is, for the next tick to compare. */
static void chan_wd_snapshot(struct fdma_chan *c)
{
	struct fdma_ring_pos p;

	c->ops->pos(c, &p);
	c->wd_cidx = p.reaped;
	c->wd_hw = p.done;
	c->wd_irqs = atomic64_read(&c->st.irqs);
}

/* Something was posted: make sure the watchdog looks at it. Under lock. */
static void chan_wd_arm(struct fdma_chan *c)
{
	unsigned int ms = READ_ONCE(fdma_param_watchdog_ms);

	if (c->wd_armed)
		return;
	c->wd_armed = true;
	chan_wd_snapshot(c);
	c->prog_hw = c->wd_hw;
	c->prog_at = jiffies;
	queue_delayed_work(system_wq, &c->wd, msecs_to_jiffies(ms));
}

static void chan_wd_work(struct work_struct *work)
{
	struct fdma_chan *c = container_of(to_delayed_work(work),
					   struct fdma_chan, wd);
	unsigned int ms = READ_ONCE(fdma_param_watchdog_ms);
	unsigned int tmo = READ_ONCE(fdma_param_timeout_ms);
	struct fdma_ring_pos p;

	mutex_lock(&c->lock);
	if (!c->up || c->broken || READ_ONCE(c->fdev->dead)) {
		c->wd_armed = false;
		goto out;
	}
	/*
	 * The engine had written completions by the last tick and nobody
	 * reaped since: reap now. If it has drained its ring by now, its
	 * interrupt was due (the drain rule); if none came on the channel's
	 * vector for a whole tick, it was lost (unless the coalescing timer
	 * is longer than a tick). One that came and was not acted on yet (a
	 * slow interrupt thread) is not lost; a drain a moment before this
	 * tick, its interrupt still on the way, would be counted: the count
	 * is a statistic, the reap is what matters.
	 */
	c->ops->pos(c, &p);
	if (p.reaped == c->wd_cidx && c->wd_hw != c->wd_cidx) {
		bool lost = p.done == p.posted &&
			    c->coal_usecs < ms * USEC_PER_MSEC &&
			    atomic64_read(&c->st.irqs) == c->wd_irqs;

		/* Counted only if whole requests came of it (not pieces of one). */
		if (fdma_chan_reap_locked(c)) {
			atomic64_inc(&c->st.wd_reaps);
			if (lost)
				atomic64_inc(&c->st.lost_irqs);
		}
	}
	/* Progress: the completion count moves while the engine owes some. */
	c->ops->pos(c, &p);
	if (p.done != c->prog_hw || p.done == p.posted) {
		c->prog_hw = p.done;
		c->prog_at = jiffies;
	} else if (!(c->caps & FDMA_CH_CAP_STREAM) &&
		   time_after(jiffies, c->prog_at + msecs_to_jiffies(tmo))) {
		atomic64_inc(&c->st.timeouts);
		dev_warn_ratelimited(chan_log(c), "channel %u: no progress for %u ms with %u descriptors posted\n",
				     c->idx, tmo, p.posted - p.done);
		fdma_chan_recover(c, "no progress", -ETIMEDOUT);
		c->prog_at = jiffies;
		c->ops->pos(c, &p);
		c->prog_hw = p.done;
	}
	if (!c->up || c->broken || !chan_inflight(c)) {
		c->wd_armed = false;
		goto out;
	}
	chan_wd_snapshot(c);
	queue_delayed_work(system_wq, &c->wd, msecs_to_jiffies(ms));
out:
	mutex_unlock(&c->lock);
}

/* ---- stop, reset, release ---------------------------------------------- */

/*
 * Called by remove() after the device was marked dead: stops the engine
 * touching the channel's memory and hands everything back to its owners.
 */
void fdma_chan_stop(struct fdma_chan *c)
{
	mutex_lock(&c->lock);
	if (c->up) {
		if (fdma_chan_reset_cancel(c, "device removed", -ECANCELED))
			dev_warn(chan_log(c), "channel %u: no reset acknowledgment: RUN cleared only\n",
				 c->idx);
		c->up = false;
	}
	mutex_unlock(&c->lock);
	/* The watchdog sees the channel down and does not come back. */
	cancel_delayed_work_sync(&c->wd);
}

/* FDMA_IOC_CHAN_RESET: recovers a halted, stuck or broken channel. */
int fdma_chan_reset(struct fdma_chan *c)
{
	int ret;

	mutex_lock(&c->lock);
	if (READ_ONCE(c->fdev->dead) || !c->up) {
		ret = -ENODEV;
	} else if (fdma_chan_busy(c)) {
		/* A client's requests are its own to terminate. */
		ret = -EBUSY;
	} else {
		/* What is finished is delivered as such, the rest canceled. */
		fdma_chan_reap_locked(c);
		ret = fdma_chan_recover(c, "reset by FDMA_IOC_CHAN_RESET",
					-ECANCELED);
	}
	mutex_unlock(&c->lock);
	return ret;
}

/*
 * A file is closed with requests in flight on this channel (queue q): the
 * device must not write its buffers after they are freed, so the channel
 * is reset (bounded wait) and everything on it handed back; other files'
 * requests come back -ECANCELED. Returns 0 or the reset's error (the
 * buffers involved are then kept, never freed).
 */
/*
 * Under the lock: what the device finished is delivered; if *left (a count
 * that delivery lowers) is still not 0, the channel is reset (why) and
 * everything on it handed back -ECANCELED. 0 or the reset's error.
 */
static int chan_reap_or_reset(struct fdma_chan *c, const u32 *left, const char *why)
{
	lockdep_assert_held(&c->lock);
	if (!*left || !c->up)
		return 0;
	fdma_chan_reap_locked(c);
	return *left ? fdma_chan_recover(c, why, -ECANCELED) : 0;
}

int fdma_chan_release_file(struct fdma_chan *c, struct fdma_cq *q)
{
	int ret;

	mutex_lock(&c->lock);
	ret = chan_reap_or_reset(c, &q->inflight, "file closed with transfers in flight");
	mutex_unlock(&c->lock);
	return ret;
}

/*
 * The owner of group g gives up on it (io_uring cancels its command: the
 * ring or its task is going). Not posted yet: it never will be. In
 * flight: what is finished is delivered, and if any of it is still on the
 * ring the channel is reset, as for a file closed with transfers in
 * flight (the device cannot be told to let go of one request). g->done
 * then runs, here or from the reset. Returns 0 or the reset's error.
 */
int fdma_chan_cancel_group(struct fdma_chan *c, struct fdma_group *g)
{
	int ret = 0;

	mutex_lock(&c->lock);
	if (!g->posted)
		g->canceled = true;
	else
		ret = chan_reap_or_reset(c, &g->left, "io_uring canceled a command in flight");
	mutex_unlock(&c->lock);
	return ret;
}

/*
 * An imported buffer's exporter is moving it (fdma_dmabuf.c): if a request
 * on this channel still uses b, what is finished is delivered, the
 * requests on b end with -EIO and the channel's others are canceled (a
 * reset: the device lets go of them). Returns 0 or the reset's error.
 */
int fdma_chan_release_buf(struct fdma_chan *c, struct fdma_buffer *b)
{
	bool uses = false;
	int ret = 0;
	u32 i;

	mutex_lock(&c->lock);
	/* A client's channel carries no file's requests. */
	if (c->up && !c->client) {
		fdma_chan_reap_locked(c);
		/* Its requests end -EIO; the others are canceled as by any reset. */
		for (i = 0; i < c->fdev->ring_size; i++) {
			struct fdma_ureq *u = &c->ureq[i];

			if (u->cq && (u->buf == b || u->dst == b)) {
				u->status = FDMA_CPL_CANCELED;
				u->cancel_res = -EIO;
				uses = true;
			}
		}
		if (uses)
			ret = fdma_chan_recover(c, "its buffer was moved by the exporter",
						-ECANCELED);
	}
	mutex_unlock(&c->lock);
	return ret;
}

/* ---- the channel's client (fdma_drv.h: struct fdma_chan_client) --------- */

/*
 * Take the channel for a client: -ENODEV once removed, -EBUSY while
 * another client holds it or a file's requests are in flight on it.
 * Published for the interrupt handlers, which read it without the lock.
 */
int fdma_chan_claim(struct fdma_chan *c, struct fdma_chan_client *cl)
{
	lockdep_assert_held(&c->lock);
	if (READ_ONCE(c->fdev->dead) || !c->up)
		return -ENODEV;
	if (c->client || c->nufree != c->fdev->ring_size || c->kr.busy)
		return -EBUSY;
	WRITE_ONCE(c->client, cl);
	return 0;
}

/*
 * Give it back. An interrupt handler may still be calling the client:
 * one whose handlers run in interrupt context waits for RCU before it
 * goes (synchronize_rcu()).
 */
void fdma_chan_release(struct fdma_chan *c)
{
	lockdep_assert_held(&c->lock);
	WRITE_ONCE(c->client, NULL);
}

/* The device stopped for good (fdma_pci_stop_dma()): its client is told. */
void fdma_chan_gone(struct fdma_chan *c)
{
	struct fdma_chan_client *cl;

	rcu_read_lock();
	cl = READ_ONCE(c->client);
	if (cl && cl->ops->gone)
		cl->ops->gone(c, cl);
	rcu_read_unlock();
}

/* Every request and knob of the character device asks this first. */
int fdma_chan_busy(const struct fdma_chan *c)
{
	lockdep_assert_held(&c->lock);
	return c->client ? -EBUSY : 0;
}

/* One engine request, posted; the doorbell is the caller's (one per batch). */
int fdma_chan_post(struct fdma_chan *c, const struct fdma_ereq *q)
{
	int ret;

	lockdep_assert_held(&c->lock);
	ret = c->ops->post(c, q);
	if (!ret)
		atomic64_add(c->ops->ndesc(c, q->len), &c->st.descriptors);
	return ret;
}

/* Doorbell, with the driver's own count of it; the watchdog watches. */
void fdma_chan_doorbell(struct fdma_chan *c)
{
	atomic64_add(c->ops->doorbell(c), &c->st.doorbells);
	chan_wd_arm(c);
}

/* ---- FDMA_IOC_SUBMIT ---------------------------------------------------- */

/*
 * The engine request for the piece of s that starts done bytes in: as much
 * as is contiguous in bus addresses in its buffer (and, for a copy, in its
 * destination) up to the longest engine request. Returns its length, 0 if
 * the range leaves the buffer. The checks (fdma_ioctl.c) and the posting
 * below split a request the same way.
 */
u32 fdma_chan_piece(const struct fdma_chan *c, const struct fdma_sub *s,
		    u64 done, struct fdma_ereq *q)
{
	bool stream = c->caps & FDMA_CH_CAP_STREAM;
	dma_addr_t bus, dbus;
	u32 len = fdma_buf_piece(s->buf, s->off + done, s->len - done,
				 c->ereq_max, &bus);

	if (len && s->dst)
		len = fdma_buf_piece(s->dst, s->dst_off + done, len, len, &dbus);
	if (!len)
		return 0;
	q->host = bus;
	if (s->dst)
		q->dst = dbus;
	else
		q->card = stream ? 0 : s->card_addr + done;
	q->len = len;
	return len;
}

/*
 * FDMA_IOC_SUBMIT, FDMA_IOC_COPY and FDMA_URING_CMD_SUBMIT, after
 * fdma_ioctl.c validated every request (handles, ranges, alignment,
 * pieces; ndesc descriptors in all): check room, post all, ring the
 * doorbell once. The caller holds its file's bufs_sem, so the buffers
 * stay. All or nothing: -EAGAIN if the queue or the ring lacks room. With
 * a group (grp), the requests complete into it and take no room in q.
 */
int fdma_chan_submit(struct fdma_chan *c, struct fdma_cq *q, struct fdma_group *grp,
		     const struct fdma_sub *s, u32 n, u32 ndesc)
{
	enum dma_data_direction dir = fdma_chan_dir(c);
	u32 i;
	int ret;

	mutex_lock(&c->lock);
	ret = fdma_chan_busy(c) ?: fdma_chan_usable(c);
	if (ret)
		goto out;
	/* The queue never overflows: room for every request in flight. */
	if (!grp && (u64)q->inflight + fdma_cq_queued(q) + n > q->entries) {
		ret = -EAGAIN;
		goto out;
	}
	/* Its owner gave up on it before we got here (fdma_uring.c). */
	if (grp && grp->canceled) {
		ret = -ECANCELED;
		goto out;
	}
	if (c->ops->space(c) < ndesc || c->nufree < n) {
		fdma_chan_reap_locked(c);
		if (c->broken) {
			ret = -EIO;
			goto out;
		}
		if (c->ops->space(c) < ndesc || c->nufree < n) {
			ret = -EAGAIN;
			goto out;
		}
	}

	if (grp) {
		/* Before the first request: one found stale finishes at once. */
		grp->left = n;
		grp->posted = true;
	}
	for (i = 0; i < n; i++) {
		const struct fdma_sub *r = &s[i];
		u32 idx = c->ufree[--c->nufree];
		struct fdma_ureq *u = &c->ureq[idx];
		u64 done = 0;

		/* Synced for the device by the caller (fdma_ioctl.c). */
		u->cq = q;
		u->grp = grp;
		u->buf = r->buf;
		u->dst = r->dst;
		u->user_data = r->user_data;
		u->off = r->off;
		u->dst_off = r->dst_off;
		u->len = r->len;
		u->done = 0;
		u->pieces = 0;
		u->status = FDMA_CPL_OK;
		u->cancel_res = -ECANCELED;
		u->flags = 0;
		u->dir = dir;
		atomic_inc(&r->buf->inflight);
		if (r->dst)
			atomic_inc(&r->dst->inflight);
		if (!grp)
			WRITE_ONCE(q->inflight, q->inflight + 1);
		/*
		 * Memory that went away since the caller held it: stale is set
		 * before fdma_chan_release_buf() takes this lock to look for
		 * requests on it, so a request either is seen there or sees
		 * stale here, and is never posted.
		 */
		if (READ_ONCE(r->buf->stale) ||
		    (r->dst && READ_ONCE(r->dst->stale))) {
			u->status = FDMA_CPL_CANCELED;
			u->cancel_res = -EIO;
			u->pieces = 1;
			chan_ureq_done(c, u);
			continue;
		}
		while (done < r->len) {
			struct fdma_ereq eq = { .cookie = idx };
			u32 len = fdma_chan_piece(c, r, done, &eq);

			if (!done && (r->flags & FDMA_IOC_REQ_SOF))
				eq.flags |= FDMA_DESC_SOF;
			if (len == r->len - done)
				eq.flags |= (r->flags & FDMA_IOC_REQ_EOF ?
					     FDMA_DESC_EOF : 0) |
					    (r->flags & FDMA_IOC_REQ_IRQ ?
					     FDMA_DESC_IRQ : 0);
			ret = len ? c->ops->post(c, &eq) : -EINVAL;
			if (ret) {
				/* Validated before: cannot happen. Fail this one. */
				dev_err_ratelimited(chan_log(c), "channel %u: request %u refused by the engine core (%d)\n",
						    c->idx, i, ret);
				u->status = FDMA_CPL_DESC_ERR;
				break;
			}
			atomic64_add(c->ops->ndesc(c, len), &c->st.descriptors);
			u->pieces++;
			done += len;
		}
		if (!u->pieces) {
			u->pieces = 1;
			chan_ureq_done(c, u);
		}
	}
	atomic64_add(n, &c->st.transfers);
	fdma_chan_doorbell(c);
	chan_publish(c);
	ret = 0;
out:
	mutex_unlock(&c->lock);
	return ret;
}

/* FDMA_IOC_DROP */
/* CH_CTRL.DROP for whoever drives the channel (under lock); -EOPNOTSUPP where it cannot. */
int fdma_chan_set_drop_locked(struct fdma_chan *c, bool drop)
{
	lockdep_assert_held(&c->lock);
	/* XDMA always holds a frame back; only a test block in front of it drops. */
	if (!c->ops->set_ctrl || (drop && !c->fdev->caps.stream_drop))
		return -EOPNOTSUPP;
	c->ctrl_flags = drop ? FDMA_CH_CTRL_DROP : 0;
	c->ops->set_ctrl(c, FDMA_CH_CTRL_DROP, c->ctrl_flags);
	return 0;
}

int fdma_chan_set_drop(struct fdma_chan *c, bool drop)
{
	int ret;

	mutex_lock(&c->lock);
	if (READ_ONCE(c->fdev->dead) || !c->up)
		ret = -ENODEV;
	else if (fdma_chan_busy(c))
		ret = -EBUSY;
	else
		ret = fdma_chan_set_drop_locked(c, drop);
	mutex_unlock(&c->lock);
	return ret;
}

/*
 * Stream frames dropped by the device. CH_OVERRUNS is free-running across
 * channel resets (docs/engine.md, section 11); once the channel is down
 * the last value seen stands.
 */
u64 fdma_chan_drops_locked(struct fdma_chan *c)
{
	lockdep_assert_held(&c->lock);
	/* The device's counter is 32 bits: add what it moved since the last look. */
	if (c->up && c->ops->overruns)
		c->drops_seen += (u32)(c->ops->overruns(c) - (u32)c->drops_seen);
	return c->drops_seen;
}

u64 fdma_chan_drops(struct fdma_chan *c)
{
	u64 n;

	mutex_lock(&c->lock);
	n = fdma_chan_drops_locked(c);
	mutex_unlock(&c->lock);
	return n;
}

int fdma_chan_set_coalesce(struct fdma_chan *c, u32 count, u32 usecs)
{
	int ret;

	/* A count above the ring size fires by the timer or the drain rule. */
	if (count > FDMA_COAL_COUNT_MAX || usecs > FDMA_COAL_USECS_MAX)
		return -EINVAL;
	if (((count > 1 || usecs) && !c->fdev->caps.coalesce) ||
	    (usecs && !c->ops->coal_timer))
		return -EOPNOTSUPP;
	ret = mutex_lock_interruptible(&c->lock);
	if (ret)
		return ret;
	if (READ_ONCE(c->fdev->dead) || !c->up) {
		ret = -ENODEV;
	} else if (fdma_chan_busy(c)) {
		ret = -EBUSY;
	} else {
		c->coal_count = count;
		c->coal_usecs = usecs;
		c->ops->set_coalesce(c, count, usecs);
	}
	mutex_unlock(&c->lock);
	return ret;
}

/* ---- the read/write path ------------------------------------------------- */

/*
 * Wait (dropping c->lock) until the channel's request slot is free (an
 * abandoned request finished) and the ring has need free descriptors.
 * Killable only: a signal does not end a wait that costs nobody anything.
 */
static int chan_wait_slot(struct fdma_chan *c, u32 need)
{
	for (;;) {
		u32 seq;
		int ret = fdma_chan_busy(c) ?: fdma_chan_usable(c);

		if (ret)
			return ret;
		if (!c->kr.busy) {
			if (c->ops->space(c) < need)
				fdma_chan_reap_locked(c);
			if (c->ops->space(c) >= need)
				return 0;
		}
		seq = c->events;
		mutex_unlock(&c->lock);
		ret = wait_event_killable(c->wq, READ_ONCE(c->events) != seq ||
					  READ_ONCE(c->fdev->dead));
		mutex_lock(&c->lock);
		if (ret)
			return -EINTR;
	}
}

/*
 * Wait until no request of before (abandoned by a killed caller) still
 * moves bytes of b's bounce buffer. The caller holds b->rw_lock, so no new
 * one can start meanwhile.
 */
static int bounce_wait_idle(struct fdma_chan *b)
{
	if (wait_event_killable(b->wq, !atomic_read(&b->bounce_users) ||
				READ_ONCE(b->fdev->dead)))
		return -EINTR;
	if (READ_ONCE(b->fdev->dead))
		return -ENODEV;
	/* A broken channel may still write it: -EIO until that one is reset. */
	return READ_ONCE(b->bounce_tainter) ? -EIO : 0;
}

/* Sync [off, off + len) of b's bounce buffer, if it is still mapped. */
static int bounce_sync(struct fdma_chan *b, u32 off, u32 len,
		       enum dma_data_direction dir, bool for_device)
{
	int ret = 0;

	mutex_lock(&b->lock);
	if (!b->bounce_mapped)
		ret = -ENODEV;
	else if (for_device)
		dma_sync_single_for_device(chan_dev(b), b->bounce_bus + off, len,
					   dir);
	else
		dma_sync_single_for_cpu(chan_dev(b), b->bounce_bus + off, len,
					dir);
	mutex_unlock(&b->lock);
	return ret;
}

/*
 * Move len bytes between card address card and offset boff of the bounce
 * buffer of channel b, on channel c (the direction is c's: b is c, or the
 * H2C channel whose bounce a write() fills), and wait until they have
 * moved. The caller holds c->rw_lock and b->rw_lock. Returns 0 or a
 * negative errno:
 *   -ENODEV       the device was removed
 *   -EIO          the channel is broken, or a device error
 *   -ETIMEDOUT    the channel made no progress for timeout_ms (it was reset)
 *   -EINTR        the caller is being killed (the request stays in flight)
 *   other         the engine's error for the request (fdma_cpl_errno())
 * A request canceled by a reset someone else asked for is posted again
 * (it moves the same bytes again), twice at most.
 */
static int chan_xfer(struct fdma_chan *c, struct fdma_chan *b, u64 card,
		     u32 boff, u32 len)
{
	enum dma_data_direction dir = fdma_chan_dir(c);
	struct fdma_ereq q = {
		.host = b->bounce_bus + boff,
		.card = card,
		.len = len,
	};
	struct fdma_kreq *k = &c->kr;
	struct fdma_ecpl cpl;
	const char *why;
	int tries = 0, cancel_res;
	int ret;

	lockdep_assert_held(&c->rw_lock);
again:
	ret = bounce_wait_idle(b);
	if (!ret)
		ret = bounce_sync(b, boff, len, dir, true);
	if (ret)
		return ret;
	mutex_lock(&c->lock);
	ret = c->ops->check(c, &q, &why);
	if (ret) {
		dev_dbg(chan_log(c), "channel %u: %s\n", c->idx, why);
		goto out;
	}
	ret = chan_wait_slot(c, c->ops->ndesc(c, len));
	if (ret)
		goto out;
	q.cookie = FDMA_KCOOKIE | ++c->cookie;
	ret = c->ops->post(c, &q);
	if (ret)
		goto out;
	*k = (struct fdma_kreq){ .cookie = q.cookie, .busy = true, .buf_of = b };
	atomic_inc(&b->bounce_users);
	atomic64_inc(&c->st.transfers);
	atomic64_add(c->ops->ndesc(c, len), &c->st.descriptors);
	fdma_chan_doorbell(c);
	mutex_unlock(&c->lock);

	/* Interrupts, the watchdog, a reset or remove() end this wait. */
	ret = wait_event_killable(c->wq, READ_ONCE(k->done) ||
				  READ_ONCE(c->fdev->dead));
	mutex_lock(&c->lock);
	if (!k->done) {
		/* Killed, or removed: the request finishes without us. */
		k->abandoned = true;
		ret = READ_ONCE(c->fdev->dead) ? -ENODEV : -EINTR;
		goto out;
	}
	cpl = k->cpl;
	cancel_res = k->cancel_res;
	k->busy = false;
	mutex_unlock(&c->lock);

	if (cpl.status == FDMA_CPL_CANCELED) {
		atomic64_inc(&c->st.errors);
		if (cancel_res != -ECANCELED)
			return cancel_res;
		if (READ_ONCE(c->fdev->dead))
			return -ENODEV;
		if (++tries <= 2)
			goto again;
		return -EIO;
	}
	ret = fdma_chan_account(c, cpl.status, cpl.len);
	if (!ret && dir == DMA_FROM_DEVICE)
		ret = bounce_sync(b, boff, len, dir, false);
	return ret;
out:
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
 * the bounce buffer. The caller holds c->rw_lock and has checked the range.
 * Returns the bytes copied, or a negative errno if none were. A signal
 * ends the read between chunks (a short count), never in one.
 */
ssize_t fdma_chan_read(struct fdma_chan *c, char __user *buf, size_t count,
		       u64 pos)
{
	struct fdma_chunk k;
	size_t done = 0;
	int ret = 0;

	while (done < count) {
		chunk_of(c, pos + done, count - done, &k);
		ret = chan_xfer(c, c, k.a0, 0, k.len);
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
 * of the aligned blocks around it). The caller holds c->rw_lock, and
 * rd->rw_lock if rd is given.
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
				ret = chan_xfer(rd, c, k.a0, 0, align);
			if (!ret && (end & (align - 1)) &&
			    (!k.head || k.len > align))
				ret = chan_xfer(rd, c, k.a0 + k.len - align,
						k.len - align, align);
			if (ret)
				break;
		}
		/* An abandoned transfer may still read the bounce buffer. */
		ret = bounce_wait_idle(c);
		if (ret)
			break;
		if (copy_from_user(c->bounce + k.head, buf + done, k.n)) {
			ret = -EFAULT;
			break;
		}
		ret = chan_xfer(c, c, k.a0, 0, k.len);
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
