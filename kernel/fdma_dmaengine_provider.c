// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fdma.ko as a dmaengine provider (module parameter dmaengine=1): the
 * engine's memory-to-memory channels (engine 1.2) registered as DMA_MEMCPY
 * channels and its stream channels as DMA_SLAVE channels (prep_slave_sg:
 * H2C frames from a scatterlist, C2H frames into one buffer each), so
 * Linux's own clients (dmatest, async_tx users, a driver that streams
 * through dmaengine) drive the FDMA engine. docs/dmaengine.md, section 4.
 *
 * Two dma_devices per engine, one per kind: the core hands a memcpy client
 * any free channel of a device that has DMA_MEMCPY, without asking the
 * channel, so a stream channel must not sit in that device.
 *
 * Ownership. A channel serves one master at a time: while a dmaengine
 * client holds it (alloc_chan_resources to free_chan_resources), the
 * character device's FDMA_IOC_COPY and FDMA_IOC_CHAN_RESET on it are
 * -EBUSY, and it is refused to a client while a file has copies in flight
 * on it. So a dmaengine terminate never cancels a file's requests, nor a
 * file's reset a client's.
 *
 * Descriptors. A pool of ring_size descriptors per channel, allocated when a
 * client takes the channel: prep takes one from the free list under the
 * channel's spinlock (any context), never allocates. tx_submit gives it a
 * cookie and queues it on the pending list; issue_pending (any context:
 * clients call it from callbacks) moves what is pending to the issued list
 * and queues the channel's post work, which takes the ring lock and posts
 * every issued descriptor that fits, with one doorbell: a client's batch
 * keeps the engine's batching. Nothing starts before issue_pending.
 *
 * Completion. The ring is reaped where the character device's requests are
 * (the interrupt's thread, the watchdog, tx_status): a finished descriptor
 * completes its cookie at once (in ring order, so completed_cookie only
 * moves forward; a failed one is remembered for tx_status's DMA_ERROR) and
 * goes to the done list; the done work, in process context, outside every
 * lock of the channel, invokes the callbacks and frees the descriptors, so
 * a callback may prep, submit and issue again. tx_status posts what is
 * issued and reaps by itself when the cookie is not complete yet:
 * dma_sync_wait() spins without sleeping, and on a one-CPU guest with
 * voluntary preemption neither the post work nor the interrupt thread
 * would run meanwhile. It does so only where it may take a mutex, and
 * never sleeps for it (no recovery of a halted channel there).
 *
 * Terminate. terminate_all (any context) drops what is pending or issued,
 * marks what is done and not yet called back as not to be called back,
 * and queues the terminate work, which resets the channel (the engine
 * hands everything posted back as canceled; no callbacks for them);
 * synchronize waits for it and for the done work. A reset that is not
 * acknowledged leaves the engine possibly writing: such descriptors are
 * never completed (their memory is the client's; see kernel/README.md).
 *
 * Lifetime. remove() unregisters the dma_device first (its memcpy
 * capability cleared, so no new client finds it), completes what is still
 * posted as aborted when the channels stop, then detaches: the channels'
 * work is flushed and later preps return NULL. The provider holds a
 * reference on the fdma device until both the detach and dmaengine's
 * device_release (the last client let go) happened. Its memory itself
 * (struct dma_device and the dma_chans) is freed only at module exit:
 * dma_release_channel() still reads the channel and its device after the
 * put that can call device_release, so freeing there would be a
 * use-after-free; no client can hold a channel at module exit (each holds
 * a reference on this module).
 *
 * Device tree. Where the function has a node of its own (a child of its
 * PCIe host's node, reg naming its devfn) with #dma-cells = <1>, other
 * nodes name its stream channels there, numbered from 0 in channel order
 * (dmas = <&fdma 0>): an fdma_dmac.ko group ("fdma,dmaengine"), any
 * driver that requests a DMA_SLAVE channel by name. docs/dmaengine.md,
 * section 4.
 */
#include <linux/dmaengine.h>
#include <linux/kref.h>
#include <linux/log2.h>
#include <linux/of.h>
#include <linux/of_dma.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "fdma_drv.h"

/* Pieces of one slave descriptor: an H2C frame's scatterlist, at most. */
#define FDMA_DMAE_MAX_SEGS	4

/*
 * A descriptor's engine requests carry FDMA_DCOOKIE | its pool index: one
 * for a copy (src to dst), one per segment of a slave transfer.
 */
struct fdma_dmae_desc {
	struct dma_async_tx_descriptor tx;
	struct list_head node;
	dma_addr_t src, dst;		/* memcpy */
	struct {
		dma_addr_t addr;
		u32 len;
	} seg[FDMA_DMAE_MAX_SEGS];	/* slave */
	u32 nseg;			/* 0: a copy */
	u32 len;
	u32 done;		/* bytes copied, all pieces */
	u32 pieces;		/* engine requests not yet complete */
	u16 status;		/* first non-OK engine status */
	bool quiet;		/* terminated: no callback */
};

struct fdma_dmae_chan {
	struct dma_chan chan;
	struct fdma_chan *c;
	/* Claims c while a consumer holds the channel: its pieces come back here. */
	struct fdma_chan_client cl;
	enum dma_transfer_direction dir;
	/* The lists and the cookies; taken in any context, never with c->lock inside. */
	spinlock_t lock;
	struct list_head free, pending, issued, active, done;
	struct fdma_dmae_desc *descs;
	u32 ndesc;
	/*
	 * Failed cookies remembered for tx_status (DMA_ERROR): as many as the
	 * pool holds descriptors, so that every cookie a client can still
	 * have in flight is told right (a client that reaps by tx_status,
	 * fdma_dmac.ko, asks about every one). Under lock; NULL while no
	 * client holds the channel.
	 */
	dma_cookie_t *err;
	u32 nerr, nerr_max;
	struct work_struct post_work, done_work, term_work;
};

/*
 * Two references: fdma's (dropped by fdma_dmae_detach() once the channels
 * stopped, so that their last completions still find the provider) and
 * dmaengine's (device_release). The last one puts the fdma device and
 * parks the memory for module exit.
 */
struct fdma_dmae {
	struct dma_device dd;
	struct kref ref;
	struct list_head parked;
	struct fdma_device *fdev;
	u32 nchan;
	struct fdma_dmae_chan ch[FDMA_MAX_CHANNELS];
};

static void dmae_detach(struct fdma_device *fdev, u32 k);

static LIST_HEAD(fdma_dmae_parked);
static DEFINE_MUTEX(fdma_dmae_parked_lock);

static struct fdma_dmae_chan *to_dchan(struct dma_chan *chan)
{
	return container_of(chan, struct fdma_dmae_chan, chan);
}

static struct fdma_dmae_desc *to_ddesc(struct dma_async_tx_descriptor *tx)
{
	return container_of(tx, struct fdma_dmae_desc, tx);
}

/* ---- cookies (the core's helpers are private to drivers/dma) ----------- */

static dma_cookie_t dchan_cookie_assign(struct dma_chan *chan,
					struct dma_async_tx_descriptor *tx)
{
	dma_cookie_t cookie = chan->cookie + 1;

	if (cookie < DMA_MIN_COOKIE)
		cookie = DMA_MIN_COOKIE;
	tx->cookie = cookie;
	chan->cookie = cookie;
	return cookie;
}

/* ---- prep, submit, issue -------------------------------------------------- */

static dma_cookie_t fdma_dmae_tx_submit(struct dma_async_tx_descriptor *tx)
{
	struct fdma_dmae_chan *dc = to_dchan(tx->chan);
	struct fdma_dmae_desc *d = to_ddesc(tx);
	unsigned long flags;
	dma_cookie_t cookie;

	spin_lock_irqsave(&dc->lock, flags);
	cookie = dchan_cookie_assign(&dc->chan, tx);
	list_move_tail(&d->node, &dc->pending);
	spin_unlock_irqrestore(&dc->lock, flags);
	return cookie;
}

static struct dma_async_tx_descriptor *
fdma_dmae_prep_memcpy(struct dma_chan *chan, dma_addr_t dst, dma_addr_t src,
		      size_t len, unsigned long flags)
{
	struct fdma_dmae_chan *dc = to_dchan(chan);
	struct fdma_chan *c = dc->c;
	u32 align = c->fdev->caps.align;
	struct fdma_dmae_desc *d;
	unsigned long irqf;

	/* The engine's rules (docs/engine.md, section 15); split at ereq_max. */
	if (READ_ONCE(c->fdev->dead) || !len || len > c->ereq_max ||
	    ((src | dst | len) & (align - 1)) ||
	    (src < dst + len && dst < src + len))
		return NULL;
	spin_lock_irqsave(&dc->lock, irqf);
	d = list_first_entry_or_null(&dc->free, struct fdma_dmae_desc, node);
	if (d)
		list_del_init(&d->node);
	spin_unlock_irqrestore(&dc->lock, irqf);
	/* None free: the client retries after a completion, as with any pool. */
	if (!d)
		return NULL;
	/* A reused slot: nothing of its last client's (callbacks, params) stays. */
	memset(&d->tx, 0, sizeof(d->tx));
	dma_async_tx_descriptor_init(&d->tx, chan);
	d->tx.flags = flags;
	d->tx.tx_submit = fdma_dmae_tx_submit;
	d->src = src;
	d->dst = dst;
	d->nseg = 0;
	d->len = len;
	d->done = 0;
	d->pieces = 0;
	d->status = FDMA_CPL_OK;
	d->quiet = false;
	return &d->tx;
}

/*
 * A slave transfer: an H2C frame from up to FDMA_DMAE_MAX_SEGS segments
 * (SOF on the first, EOF on the last), or one C2H buffer that receives one
 * frame (its length is the descriptor's length less the residue; a frame
 * longer than the buffer continues in the next one). Segments follow the
 * engine's alignment; a C2H buffer is at most one descriptor long.
 */
static struct dma_async_tx_descriptor *
fdma_dmae_prep_slave_sg(struct dma_chan *chan, struct scatterlist *sgl,
			unsigned int sg_len, enum dma_transfer_direction dir,
			unsigned long flags, void *context)
{
	struct fdma_dmae_chan *dc = to_dchan(chan);
	struct fdma_chan *c = dc->c;
	u32 align = c->fdev->caps.align, ndesc = 0, i;
	bool c2h = dir == DMA_DEV_TO_MEM;
	struct fdma_dmae_desc *d;
	struct scatterlist *sg;
	unsigned long irqf;
	u64 total = 0;

	if (READ_ONCE(c->fdev->dead) || dir != dc->dir || !sg_len ||
	    sg_len > (c2h ? 1 : FDMA_DMAE_MAX_SEGS))
		return NULL;
	for_each_sg(sgl, sg, sg_len, i) {
		u32 len = sg_dma_len(sg);

		if (!len || ((sg_dma_address(sg) | len) & (align - 1)) ||
		    len > (c2h ? c->fdev->caps.max_desc_len : c->ereq_max))
			return NULL;
		total += len;
		ndesc += fdma_ering_ndesc(&c->ring, len);
	}
	if (total > U32_MAX || ndesc > c->ring.size)
		return NULL;
	spin_lock_irqsave(&dc->lock, irqf);
	d = list_first_entry_or_null(&dc->free, struct fdma_dmae_desc, node);
	if (d)
		list_del_init(&d->node);
	spin_unlock_irqrestore(&dc->lock, irqf);
	if (!d)
		return NULL;
	memset(&d->tx, 0, sizeof(d->tx));
	dma_async_tx_descriptor_init(&d->tx, chan);
	d->tx.flags = flags;
	d->tx.tx_submit = fdma_dmae_tx_submit;
	for_each_sg(sgl, sg, sg_len, i) {
		d->seg[i].addr = sg_dma_address(sg);
		d->seg[i].len = sg_dma_len(sg);
	}
	d->nseg = sg_len;
	d->len = total;
	d->done = 0;
	d->pieces = 0;
	d->status = FDMA_CPL_OK;
	d->quiet = false;
	return &d->tx;
}

/*
 * A stream has no device address and takes any width. A direction, where
 * the client gives one, must be the channel's: the capabilities name both
 * directions for the device, so this is how a client without a device
 * tree (no xlate) tells an H2C stream from a C2H one.
 */
static int fdma_dmae_config(struct dma_chan *chan, struct dma_slave_config *cfg)
{
	if (cfg->src_addr || cfg->dst_addr ||
	    (cfg->direction != DMA_MEM_TO_MEM && cfg->direction != to_dchan(chan)->dir))
		return -EINVAL;
	return 0;
}

/* Engine descriptors descriptor d takes. */
static u32 ddesc_ndesc(const struct fdma_chan *c, const struct fdma_dmae_desc *d)
{
	u32 n = 0, i;

	if (!d->nseg)
		return fdma_ering_ndesc(&c->ring, d->len);
	for (i = 0; i < d->nseg; i++)
		n += fdma_ering_ndesc(&c->ring, d->seg[i].len);
	return n;
}

static void fdma_dmae_issue_pending(struct dma_chan *chan)
{
	struct fdma_dmae_chan *dc = to_dchan(chan);
	unsigned long flags;

	spin_lock_irqsave(&dc->lock, flags);
	list_splice_tail_init(&dc->pending, &dc->issued);
	spin_unlock_irqrestore(&dc->lock, flags);
	queue_work(system_highpri_wq, &dc->post_work);
}

/* Complete descriptor d now (under dc->lock), remembering a failure. */
static void dchan_complete(struct fdma_dmae_chan *dc, struct fdma_dmae_desc *d)
{
	lockdep_assert_held(&dc->lock);
	/* Ring order is submission order: the completed cookie only moves on. */
	dc->chan.completed_cookie = d->tx.cookie;
	if (d->status != FDMA_CPL_OK && dc->nerr_max)
		dc->err[dc->nerr++ % dc->nerr_max] = d->tx.cookie;
	list_move_tail(&d->node, &dc->done);
}

/*
 * Post every issued descriptor that fits the ring, in order, with one
 * doorbell. What does not fit waits for the next completion (the done work
 * queues the post work again). On a channel that cannot run any more
 * (device removed, reset never acknowledged), what was issued completes
 * aborted. Under c->lock.
 */
static void dchan_post_locked(struct fdma_dmae_chan *dc)
{
	struct fdma_chan *c = dc->c;
	struct fdma_dmae_desc *d, *tmp;
	unsigned long flags;
	u32 posted = 0;

	lockdep_assert_held(&c->lock);
	if (c->client != &dc->cl)
		return;
	if (fdma_chan_usable(c)) {
		spin_lock_irqsave(&dc->lock, flags);
		list_for_each_entry_safe(d, tmp, &dc->issued, node) {
			d->status = FDMA_CPL_CANCELED;
			dchan_complete(dc, d);
		}
		spin_unlock_irqrestore(&dc->lock, flags);
		queue_work(system_highpri_wq, &dc->done_work);
		return;
	}
	for (;;) {
		u32 i, n;

		spin_lock_irqsave(&dc->lock, flags);
		d = list_first_entry_or_null(&dc->issued,
					     struct fdma_dmae_desc, node);
		if (d && fdma_ering_space(&c->ring) >= ddesc_ndesc(c, d))
			list_move_tail(&d->node, &dc->active);
		else
			d = NULL;
		spin_unlock_irqrestore(&dc->lock, flags);
		if (!d)
			break;
		/* An engine request per copy or segment; split at max_desc_len. */
		n = d->nseg ? d->nseg : 1;
		d->pieces = n;
		for (i = 0; i < n; i++) {
			struct fdma_ereq q = {
				.cookie = FDMA_DCOOKIE | (d - dc->descs),
			};

			if (d->nseg) {
				q.host = d->seg[i].addr;
				q.len = d->seg[i].len;
				/* H2C: the sink sees the segments as one frame. */
				if (dc->dir == DMA_MEM_TO_DEV)
					q.flags = (i == 0 ? FDMA_DESC_SOF : 0) |
						  (i == n - 1 ? FDMA_DESC_EOF : 0);
			} else {
				q.host = d->src;
				q.dst = d->dst;
				q.len = d->len;
			}
			if (i == n - 1 && (d->tx.flags & DMA_PREP_INTERRUPT))
				q.flags |= FDMA_DESC_IRQ;
			/* Checked at prep, room checked above: a refusal is a driver bug. */
			WARN_ON_ONCE(fdma_chan_post(c, &q));
		}
		posted++;
	}
	if (posted) {
		atomic64_add(posted, &c->st.transfers);
		fdma_chan_doorbell(c);
	}
}

static void fdma_dmae_post_work(struct work_struct *work)
{
	struct fdma_dmae_chan *dc = container_of(work, struct fdma_dmae_chan,
						 post_work);

	mutex_lock(&dc->c->lock);
	dchan_post_locked(dc);
	mutex_unlock(&dc->c->lock);
}

/* ---- completion ------------------------------------------------------------ */

/*
 * An engine request of this provider finished or was canceled (under
 * c->lock, from the reap or a reset). taint: the channel's reset was not
 * acknowledged, so the engine may still write: the descriptor is never
 * completed, its client not told its memory is free.
 */
static void dmae_piece(struct fdma_chan *c, struct fdma_chan_client *cl,
		       const struct fdma_ecpl *e, bool taint)
{
	struct fdma_dmae_chan *dc = container_of(cl, struct fdma_dmae_chan, cl);
	u64 idx = e->cookie & ~FDMA_DCOOKIE;
	struct fdma_dmae_desc *d;
	unsigned long flags;

	if (!dc->descs || idx >= dc->ndesc) {
		dev_err_ratelimited(c->fdev->dma_dev, "channel %u: completion of unknown dmaengine descriptor %llu\n",
				    c->idx, idx);
		return;
	}
	d = &dc->descs[idx];
	if (taint) {
		dev_err_ratelimited(c->fdev->dma_dev, "channel %u: dmaengine cookie %d never completes: the engine may still write its memory\n",
				    c->idx, d->tx.cookie);
		return;
	}
	d->done += e->len;
	if (d->status == FDMA_CPL_OK)
		d->status = e->status;
	if (d->pieces && --d->pieces)
		return;
	fdma_chan_account(c, d->status, d->done);
	spin_lock_irqsave(&dc->lock, flags);
	dchan_complete(dc, d);
	spin_unlock_irqrestore(&dc->lock, flags);
	queue_work(system_highpri_wq, &dc->done_work);
}

static const struct fdma_client_ops dmae_client_ops = {
	.piece = dmae_piece,
};

static enum dmaengine_tx_result ddesc_result(const struct fdma_dmae_chan *dc,
					     u16 status)
{
	switch (status) {
	case FDMA_CPL_OK:
		return DMA_TRANS_NOERROR;
	case FDMA_CPL_CANCELED:
		return DMA_TRANS_ABORTED;
	default:
		/* A copy reads before it writes: its status names no side. */
		return dc->dir == DMA_DEV_TO_MEM ? DMA_TRANS_WRITE_FAILED :
						   DMA_TRANS_READ_FAILED;
	}
}

/* Callbacks, outside every lock of the channel; then the descriptors are free. */
static void fdma_dmae_done_work(struct work_struct *work)
{
	struct fdma_dmae_chan *dc = container_of(work, struct fdma_dmae_chan,
						 done_work);
	struct fdma_dmae_desc *d;
	unsigned long flags;
	bool more;

	for (;;) {
		struct dmaengine_result res;
		dma_async_tx_callback_result cb_res;
		dma_async_tx_callback cb;
		void *param;
		bool quiet;

		spin_lock_irqsave(&dc->lock, flags);
		d = list_first_entry_or_null(&dc->done, struct fdma_dmae_desc,
					     node);
		if (d) {
			cb_res = d->tx.callback_result;
			cb = d->tx.callback;
			param = d->tx.callback_param;
			quiet = d->quiet;
			res.result = ddesc_result(dc, d->status);
			res.residue = d->len - min(d->done, d->len);
			d->tx.cookie = 0;
			list_move_tail(&d->node, &dc->free);
		}
		spin_unlock_irqrestore(&dc->lock, flags);
		if (!d)
			break;
		if (quiet)
			continue;
		if (cb_res)
			cb_res(param, &res);
		else if (cb)
			cb(param);
	}
	/* Ring space came free: what waited for it goes now. */
	spin_lock_irqsave(&dc->lock, flags);
	more = !list_empty(&dc->issued);
	spin_unlock_irqrestore(&dc->lock, flags);
	if (more)
		queue_work(system_highpri_wq, &dc->post_work);
}

/* Where tx_status may take the ring's mutex (never sleeping for it). */
static bool may_trylock(void)
{
	if (!in_task() || irqs_disabled())
		return false;
	return !IS_ENABLED(CONFIG_PREEMPT_COUNT) || preemptible();
}

/* Under dc->lock: the state of a cookie that is not complete. */
static u32 dchan_residue(struct fdma_dmae_chan *dc, dma_cookie_t cookie)
{
	struct list_head *lists[] = { &dc->pending, &dc->issued, &dc->active };
	struct fdma_dmae_desc *d;
	u32 i;

	for (i = 0; i < ARRAY_SIZE(lists); i++)
		list_for_each_entry(d, lists[i], node)
			if (d->tx.cookie == cookie)
				return d->len;
	return 0;
}

static enum dma_status fdma_dmae_tx_status(struct dma_chan *chan,
					   dma_cookie_t cookie,
					   struct dma_tx_state *st)
{
	struct fdma_dmae_chan *dc = to_dchan(chan);
	struct fdma_chan *c = dc->c;
	dma_cookie_t last, used;
	enum dma_status ret;
	unsigned long flags;
	u32 residue = 0, i;
	int pass;

	for (pass = 0; ; pass++) {
		spin_lock_irqsave(&dc->lock, flags);
		last = chan->completed_cookie;
		used = chan->cookie;
		ret = dma_async_is_complete(cookie, last, used);
		if (ret == DMA_COMPLETE) {
			for (i = 0; i < min_t(u32, dc->nerr, dc->nerr_max); i++)
				if (dc->err[i] == cookie)
					ret = DMA_ERROR;
		} else if (st) {
			residue = dchan_residue(dc, cookie);
		}
		spin_unlock_irqrestore(&dc->lock, flags);
		dma_set_tx_state(st, last, used, residue);
		if (ret != DMA_IN_PROGRESS || pass || !may_trylock())
			return ret;
		/*
		 * Not complete yet: post what is issued and reap, then look
		 * again. A caller spinning here (dma_sync_wait()) may keep the
		 * post work and the interrupt thread from ever running on its
		 * CPU. A halted channel is left to them: its reset sleeps.
		 */
		if (mutex_trylock(&c->lock)) {
			if (c->up && !c->broken && !READ_ONCE(c->fdev->dead) &&
			    !(fdma_ering_status(&c->ring) & FDMA_CH_ST_HALTED)) {
				dchan_post_locked(dc);
				fdma_chan_reap_nosleep(c);
			}
			mutex_unlock(&c->lock);
		}
	}
}

/* ---- terminate ---------------------------------------------------------------- */

static int fdma_dmae_terminate_all(struct dma_chan *chan)
{
	struct fdma_dmae_chan *dc = to_dchan(chan);
	struct fdma_dmae_desc *d;
	unsigned long flags;

	spin_lock_irqsave(&dc->lock, flags);
	list_splice_tail_init(&dc->pending, &dc->free);
	list_splice_tail_init(&dc->issued, &dc->free);
	list_for_each_entry(d, &dc->done, node)
		d->quiet = true;
	list_for_each_entry(d, &dc->active, node)
		d->quiet = true;
	spin_unlock_irqrestore(&dc->lock, flags);
	queue_work(system_highpri_wq, &dc->term_work);
	return 0;
}

/*
 * Reset the channel: everything posted comes back canceled, quietly. On a
 * removed device too (the engine must stop before synchronize returns);
 * then it is not started again.
 */
static void fdma_dmae_term_work(struct work_struct *work)
{
	struct fdma_dmae_chan *dc = container_of(work, struct fdma_dmae_chan,
						 term_work);
	struct fdma_chan *c = dc->c;
	unsigned long flags;
	bool active;

	mutex_lock(&c->lock);
	spin_lock_irqsave(&dc->lock, flags);
	active = !list_empty(&dc->active);
	spin_unlock_irqrestore(&dc->lock, flags);
	if (active && c->up) {
		if (READ_ONCE(c->fdev->dead))
			fdma_chan_reset_cancel(c, "terminated by its dmaengine client",
					       -ECANCELED);
		else
			fdma_chan_recover(c, "terminated by its dmaengine client",
					  -ECANCELED);
	}
	mutex_unlock(&c->lock);
}

static void fdma_dmae_synchronize(struct dma_chan *chan)
{
	struct fdma_dmae_chan *dc = to_dchan(chan);

	flush_work(&dc->term_work);
	flush_work(&dc->post_work);
	flush_work(&dc->done_work);
}

/* ---- a client takes and releases a channel ------------------------------- */

static int fdma_dmae_alloc_chan(struct dma_chan *chan)
{
	struct fdma_dmae_chan *dc = to_dchan(chan);
	struct fdma_chan *c = dc->c;
	u32 n = c->ring.size, i;
	struct fdma_dmae_desc *descs;
	dma_cookie_t *errs;
	unsigned long flags;
	int ret;

	descs = kcalloc(n, sizeof(*descs), GFP_KERNEL);
	errs = kcalloc(n, sizeof(*errs), GFP_KERNEL);
	if (!descs || !errs) {
		kfree(descs);
		kfree(errs);
		return -ENOMEM;
	}
	mutex_lock(&c->lock);
	ret = fdma_chan_claim(c, &dc->cl);
	mutex_unlock(&c->lock);
	if (ret) {
		kfree(descs);
		kfree(errs);
		return ret;
	}
	spin_lock_irqsave(&dc->lock, flags);
	dc->descs = descs;
	dc->ndesc = n;
	dc->err = errs;
	dc->nerr_max = n;
	dc->nerr = 0;
	for (i = 0; i < n; i++) {
		INIT_LIST_HEAD(&descs[i].node);
		list_add_tail(&descs[i].node, &dc->free);
	}
	spin_unlock_irqrestore(&dc->lock, flags);
	return n;
}

static void fdma_dmae_free_chan(struct dma_chan *chan)
{
	struct fdma_dmae_chan *dc = to_dchan(chan);
	struct fdma_chan *c = dc->c;
	struct fdma_dmae_desc *descs;
	dma_cookie_t *errs;
	unsigned long flags;

	fdma_dmae_terminate_all(chan);
	fdma_dmae_synchronize(chan);
	mutex_lock(&c->lock);
	fdma_chan_release(c);
	spin_lock_irqsave(&dc->lock, flags);
	/* A reset never acknowledged: its active descriptors stay, never completed. */
	descs = list_empty(&dc->active) ? dc->descs : NULL;
	if (descs) {
		INIT_LIST_HEAD(&dc->free);
		INIT_LIST_HEAD(&dc->pending);
		INIT_LIST_HEAD(&dc->issued);
		INIT_LIST_HEAD(&dc->done);
		dc->descs = NULL;
		dc->ndesc = 0;
	}
	errs = dc->err;
	dc->err = NULL;
	dc->nerr_max = 0;
	spin_unlock_irqrestore(&dc->lock, flags);
	mutex_unlock(&c->lock);
	kfree(descs);
	kfree(errs);
}

/* ---- registration ------------------------------------------------------------ */

/* Both references gone: nothing uses the fdma device through us any more. */
static void fdma_dmae_unref(struct kref *ref)
{
	struct fdma_dmae *p = container_of(ref, struct fdma_dmae, ref);

	put_device(&p->fdev->dev);
	p->fdev = NULL;
	mutex_lock(&fdma_dmae_parked_lock);
	list_add_tail(&p->parked, &fdma_dmae_parked);
	mutex_unlock(&fdma_dmae_parked_lock);
}

static void fdma_dmae_release(struct dma_device *dd)
{
	kref_put(&container_of(dd, struct fdma_dmae, dd)->ref, fdma_dmae_unref);
}

/* Module exit: every provider was released (clients hold module references). */
void fdma_dmae_exit(void)
{
	struct fdma_dmae *p, *tmp;
	u32 i;

	mutex_lock(&fdma_dmae_parked_lock);
	list_for_each_entry_safe(p, tmp, &fdma_dmae_parked, parked) {
		list_del(&p->parked);
		for (i = 0; i < p->nchan; i++) {
			kfree(p->ch[i].descs);
			kfree(p->ch[i].err);
		}
		kfree(p);
	}
	mutex_unlock(&fdma_dmae_parked_lock);
}

/*
 * debugfs's dmaengine/summary: the core's default names each channel
 * through its struct device, which unregistering frees while a client may
 * still hold the dma_device.
 */
static void fdma_dmae_dbg_show(struct seq_file *s, struct dma_device *dd)
{
	struct fdma_dmae *p = container_of(dd, struct fdma_dmae, dd);
	u32 i;

	for (i = 0; i < p->nchan; i++)
		seq_printf(s, " fdma channel %u: %s\n", p->ch[i].c->idx,
			   p->ch[i].chan.client_count ? "in use" : "free");
}

/*
 * One provider for the channels of one kind: the memory-to-memory ones
 * (DMA_MEMCPY) or the stream ones (DMA_SLAVE). 0 also when there are none.
 */
static int dmae_register_kind(struct fdma_device *fdev, bool slave)
{
	struct fdma_dmae *p;
	struct dma_device *dd;
	u32 i;
	int ret;

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	dd = &p->dd;
	p->fdev = fdev;
	INIT_LIST_HEAD(&p->parked);
	dd->dev = fdev->dma_dev;
	INIT_LIST_HEAD(&dd->channels);
	/* Private: with ASYNC_TX_DMA, async_tx users would take public channels. */
	dma_cap_set(DMA_PRIVATE, dd->cap_mask);
	if (slave) {
		dma_cap_set(DMA_SLAVE, dd->cap_mask);
		dd->directions = BIT(DMA_DEV_TO_MEM) | BIT(DMA_MEM_TO_DEV);
		/*
		 * A stream has no device-side width: any the client names
		 * (the mask is a u32 of byte counts: up to 16).
		 */
		dd->src_addr_widths = BIT(DMA_SLAVE_BUSWIDTH_1_BYTE) |
				      BIT(DMA_SLAVE_BUSWIDTH_2_BYTES) |
				      BIT(DMA_SLAVE_BUSWIDTH_4_BYTES) |
				      BIT(DMA_SLAVE_BUSWIDTH_8_BYTES) |
				      BIT(DMA_SLAVE_BUSWIDTH_16_BYTES);
		dd->dst_addr_widths = dd->src_addr_widths;
		dd->max_sg_burst = FDMA_DMAE_MAX_SEGS;
		dd->device_prep_slave_sg = fdma_dmae_prep_slave_sg;
		dd->device_config = fdma_dmae_config;
	} else {
		dma_cap_set(DMA_MEMCPY, dd->cap_mask);
		dd->directions = BIT(DMA_MEM_TO_MEM);
		dd->device_prep_dma_memcpy = fdma_dmae_prep_memcpy;
	}
	dd->copy_align = ilog2(fdev->caps.align);
	dd->residue_granularity = DMA_RESIDUE_GRANULARITY_DESCRIPTOR;
	dd->device_alloc_chan_resources = fdma_dmae_alloc_chan;
	dd->device_free_chan_resources = fdma_dmae_free_chan;
	dd->device_issue_pending = fdma_dmae_issue_pending;
	dd->device_tx_status = fdma_dmae_tx_status;
	dd->device_terminate_all = fdma_dmae_terminate_all;
	dd->device_synchronize = fdma_dmae_synchronize;
	dd->device_release = fdma_dmae_release;
	dd->dbg_summary_show = fdma_dmae_dbg_show;

	for (i = 0; i < fdev->caps.nchan; i++) {
		struct fdma_chan *c = &fdev->chan[i];
		struct fdma_dmae_chan *dc = &p->ch[p->nchan];
		u32 kind = slave ? FDMA_CH_CAP_STREAM : FDMA_CH_CAP_MEM2MEM;

		if (!(c->caps & kind) || !c->up)
			continue;
		dc->c = c;
		dc->cl.ops = &dmae_client_ops;
		dc->dir = !slave ? DMA_MEM_TO_MEM :
			  (c->caps & FDMA_CH_CAP_C2H) ? DMA_DEV_TO_MEM : DMA_MEM_TO_DEV;
		spin_lock_init(&dc->lock);
		INIT_LIST_HEAD(&dc->free);
		INIT_LIST_HEAD(&dc->pending);
		INIT_LIST_HEAD(&dc->issued);
		INIT_LIST_HEAD(&dc->active);
		INIT_LIST_HEAD(&dc->done);
		INIT_WORK(&dc->post_work, fdma_dmae_post_work);
		INIT_WORK(&dc->done_work, fdma_dmae_done_work);
		INIT_WORK(&dc->term_work, fdma_dmae_term_work);
		dc->chan.device = dd;
		list_add_tail(&dc->chan.device_node, &dd->channels);
		p->nchan++;
	}
	if (!p->nchan) {
		kfree(p);
		return 0;
	}
	get_device(&fdev->dev);
	kref_init(&p->ref);
	fdev->dmae[slave] = p;
	kref_get(&p->ref);
	ret = dma_async_device_register(dd);
	if (ret) {
		/* Not registered: the core holds nothing, no release will come. */
		kref_put(&p->ref, fdma_dmae_unref);
		dmae_detach(fdev, slave);
		return ret;
	}
	dev_info(fdev->dma_dev, "%s: %u %s channels registered with dmaengine\n",
		 dev_name(&fdev->dev), p->nchan,
		 slave ? "stream (DMA_SLAVE)" : "memory-to-memory (DMA_MEMCPY)");
	return 0;
}

int fdma_dmae_register(struct fdma_device *fdev)
{
	struct device_node *np = fdev->dma_dev->of_node;
	int ret = dmae_register_kind(fdev, false);

	if (!ret)
		ret = dmae_register_kind(fdev, true);
	if (ret || !np || !of_find_property(np, "#dma-cells", NULL) || !fdev->dmae[1])
		return ret;
	/*
	 * Optional: the channels work without it. The cell is the stream
	 * channel's number in the slave dma_device (its chan_id: the
	 * function's stream channels in order, from 0).
	 */
	if (of_dma_controller_register(np, of_dma_xlate_by_chan_id, &fdev->dmae[1]->dd))
		dev_warn(fdev->dma_dev, "%s: %pOF: its channels cannot be named in the device tree\n",
			 dev_name(&fdev->dev), np);
	else
		fdev->dmae_of = true;
	return 0;
}

/*
 * remove(), first: no new client finds the channels (the core keeps an
 * unregistered device listed until its last client lets go, so the
 * capabilities go too). Clients that hold one keep the dma_device; what
 * they have posted completes aborted when the channels stop, and their
 * preps fail (fdev->dead).
 */
void fdma_dmae_unregister(struct fdma_device *fdev)
{
	u32 k;

	/* Device-tree lookups first: they reach fdev->dmae[]. */
	if (fdev->dmae_of) {
		of_dma_controller_free(fdev->dma_dev->of_node);
		fdev->dmae_of = false;
	}
	for (k = 0; k < ARRAY_SIZE(fdev->dmae); k++) {
		if (!fdev->dmae[k])
			continue;
		dma_async_device_unregister(&fdev->dmae[k]->dd);
		dma_cap_clear(DMA_MEMCPY, fdev->dmae[k]->dd.cap_mask);
		dma_cap_clear(DMA_SLAVE, fdev->dmae[k]->dd.cap_mask);
	}
}

/* One kind's provider, once its channels stopped: they complete nothing more. */
static void dmae_detach(struct fdma_device *fdev, u32 k)
{
	struct fdma_dmae *p = fdev->dmae[k];
	u32 i;

	if (!p)
		return;
	for (i = 0; i < p->nchan; i++) {
		struct fdma_dmae_chan *dc = &p->ch[i];

		/* Callbacks of the last completions run before the fdma device may go. */
		flush_work(&dc->term_work);
		flush_work(&dc->post_work);
		flush_work(&dc->done_work);
	}
	fdev->dmae[k] = NULL;
	kref_put(&p->ref, fdma_dmae_unref);
}

void fdma_dmae_detach(struct fdma_device *fdev)
{
	u32 k;

	for (k = 0; k < ARRAY_SIZE(fdev->dmae); k++)
		dmae_detach(fdev, k);
}
