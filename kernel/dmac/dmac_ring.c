// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fdma_dmac.ko: a channel's ring over one Linux dmaengine channel, the
 * struct fdma_ring_ops under fdma.ko's channel (docs/dmaengine.md,
 * section 2); dmac_group.c makes groups of them /dev/fdmaN. Memory-to-memory channels (DMA_MEMCPY)
 * take FDMA_IOC_COPY; slave channels (DMA_SLAVE, e.g. an AXI DMA's MM2S
 * and S2MM) are H2C and C2H stream channels and take FDMA_IOC_SUBMIT: an
 * H2C frame's pieces (SOF to EOF, across requests if need be) are one
 * prep_slave_sg, a C2H buffer is one and receives one frame, its length
 * the buffer's less the residue the callback reports.
 *
 * The ring of a channel is an array of ring_size slots, one per request
 * piece, with three free-running indices:
 *
 *   cidx <= sidx <= pidx      reaped <= submitted to the provider <= posted
 *
 * post() only fills a slot (under the channel's mutex, c->lock, like every
 * op). doorbell() is the feeder: it preps and submits the posted slots in
 * order and calls dma_async_issue_pending() once, so one batch of
 * FDMA_IOC_COPY costs one issue_pending. A prep that returns NULL means
 * the provider's descriptor pool is empty (ZDMA has 32): the feeder stops
 * and resumes after the next reap, so the user still sees an
 * all-or-nothing submit, and providers with small pools work. Where none
 * of what is in flight will call back (the slot meant to was the one
 * refused, or the pass stopped at an open H2C frame), a delayed work
 * item reaps by tx_status a tick later; with nothing in flight at all the
 * provider gets DMAC_RETRIES ticks (descriptors come back a moment after
 * their completion) before the piece fails.
 *
 * Completion: only a slot that ends a pass of the feeder, or every
 * coal_count-th, asks for a callback (DMA_PREP_INTERRUPT with a callback
 * set; the others have none), which is dmaengine's only coalescing knob.
 * The callback, in whatever context the provider uses (a tasklet, a hard
 * interrupt, a work item), stores the result in the slot, publishes it
 * (store-release of cb_done, acquired by the reaper) and queues the
 * channel's work item, which reaps in process context (fdma_chan_irq():
 * syncs for the CPU, completion queue entries, wake-ups). A slot without
 * a callback is complete when dmaengine_tx_status() says so: cookies on
 * one channel complete in order, so the reaper walks from cidx and stops
 * at the first one still in progress. A slot is reused only once reaped,
 * and one that asked for a callback is reaped only after its callback ran,
 * so no late callback writes into a reused slot.
 *
 * sync_wait=1 (or fdma,sync-wait in the device tree) is the naive way,
 * kept only to measure it against the above (docs/studies/dmaengine.md):
 * each piece is prepped, submitted, issued and waited for with
 * dma_sync_wait(), a busy loop on tx_status, inside FDMA_IOC_COPY.
 *
 * Reset (recovery, FDMA_IOC_CHAN_RESET, close with transfers in flight,
 * the watchdog when nothing moves for timeout_ms, which catches providers
 * that never call back on an error): dmaengine_terminate_sync(), after
 * which the provider runs no callback and touches none of the memory;
 * what completed before is delivered as such (noted before the terminate:
 * afterwards providers differ on what tx_status says of a cookie they cut
 * short), the rest canceled. A provider without device_terminate_all is
 * refused; a terminate that fails leaves the channel broken, its buffers
 * and slots kept, and this module pinned until a later terminate of the
 * channel succeeds: the provider may still call back. A group removed
 * with such a channel keeps its slots, its fdma device and the module
 * for good.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "dmac.h"

static struct dmac_chan *to_dc(struct fdma_chan *c)
{
	return fdma_chan_priv(c);
}

static u32 slot_idx(struct dmac_chan *dc, struct dmac_slot *s)
{
	return s - dc->slot;
}

/* ---- completion --------------------------------------------------------- */

static void dmac_callback(void *param, const struct dmaengine_result *r)
{
	struct dmac_slot *s = param;
	struct dmac_chan *dc = s->dc;

	s->res = *r;
	/* The result before the flag: the reaper reads it after acquiring. */
	smp_store_release(&s->cb_done, true);
	fdma_chan_count_irq(dc->c);
	queue_work(dmac_wq, &dc->work);
}

static void dmac_work(struct work_struct *work)
{
	struct dmac_chan *dc = container_of(work, struct dmac_chan, work);

	fdma_chan_irq(dc->c);
}

static void dmac_poll(struct work_struct *work)
{
	struct dmac_chan *dc = container_of(to_delayed_work(work),
					    struct dmac_chan, poll);

	fdma_chan_irq(dc->c);
}

/*
 * A NULL prep with nothing of ours in flight: the provider may free its
 * descriptors a moment after completing them (zynqmp_dma and fdma's free
 * them after the callbacks), so it is looked at again every tick for this
 * many ticks (time, not looks: every reap feeds) before the piece fails.
 */
#define DMAC_RETRIES		20

/*
 * A submitted slot's state: 1 complete (*status set), 0 still in
 * progress. With a callback, only the callback decides (see the top).
 */
static int slot_state(struct dmac_chan *dc, struct dmac_slot *s, u16 *status)
{
	enum dma_status st;

	if (s->refused) {
		*status = FDMA_CPL_DESC_ERR;
		return 1;
	}
	if (s->cb) {
		/* Pairs with the callback's store-release: res is whole. */
		if (!smp_load_acquire(&s->cb_done))
			return 0;
		switch (s->res.result) {
		case DMA_TRANS_NOERROR:
			*status = FDMA_CPL_OK;
			break;
		case DMA_TRANS_ABORTED:
			*status = FDMA_CPL_CANCELED;
			break;
		default:	/* READ_FAILED, WRITE_FAILED */
			*status = FDMA_CPL_DATA_ERR;
			break;
		}
		return 1;
	}
	st = dmaengine_tx_status(dc->chan, s->cookie, NULL);
	if (st == DMA_IN_PROGRESS || st == DMA_PAUSED)
		return 0;
	*status = st == DMA_COMPLETE ? FDMA_CPL_OK : FDMA_CPL_DATA_ERR;
	return 1;
}

/* ---- the feeder ----------------------------------------------------------- */

/*
 * Submit tx for slot s, calling back into s or not at all. The callback
 * fields are always written, also to NULL: providers reuse their
 * descriptors without clearing them (zynqmp_dma does), and a stale
 * callback would write into a slot that never asked.
 */
static void slot_submit(struct dmac_slot *s, struct dma_async_tx_descriptor *tx,
			bool cb)
{
	tx->callback = NULL;
	tx->callback_result = cb ? dmac_callback : NULL;
	tx->callback_param = cb ? s : NULL;
	s->cookie = dmaengine_submit(tx);
}

/*
 * sync_wait: one piece at a time, spun for (the provider's tx_status
 * moves it on: dma_sync_wait() has no other way to make progress). The
 * reaper finds it complete; the work item announces it.
 */
static u32 dmac_feed_sync(struct dmac_chan *dc)
{
	u32 n = 0;

	while (dc->sidx != dc->pidx) {
		struct dmac_slot *s = &dc->slot[dc->sidx & dc->mask];
		struct dma_async_tx_descriptor *tx;

		tx = dmaengine_prep_dma_memcpy(dc->chan, s->q.dst, s->q.host,
					       s->q.len, DMA_CTRL_ACK);
		if (tx)
			slot_submit(s, tx, false);
		else
			s->cookie = -ENOMEM;
		if (dma_submit_error(s->cookie)) {
			s->refused = true;
		} else if (dma_sync_wait(dc->chan, s->cookie) != DMA_COMPLETE) {
			/*
			 * An error, or 5 s without completion: stopped before
			 * the request (and its buffers) is handed back.
			 */
			dmaengine_terminate_sync(dc->chan);
			s->refused = true;
		}
		dc->sidx++;
		n++;
	}
	if (n)
		queue_work(dmac_wq, &dc->work);
	return n;
}

/*
 * Prep and submit posted slots; returns the dma_async_issue_pending()
 * calls made.
 */
static u32 dmac_feed(struct dmac_chan *dc)
{
	struct fdma_chan *c = dc->c;
	u32 coal = max_t(u32, fdma_chan_coal_count(c), 1), n = 0;

	if (dc->sync)
		return dmac_feed_sync(dc);

	while (dc->sidx != dc->pidx) {
		struct dmac_slot *s = &dc->slot[dc->sidx & dc->mask];
		bool last = dc->sidx + 1 == dc->pidx;
		struct dma_async_tx_descriptor *tx;
		unsigned long flags = DMA_CTRL_ACK;
		bool cb;

		/* An H2C frame still gathering its pieces waits for its EOF. */
		if (dc->kind != DMAC_MEM && !s->closed)
			break;
		if (s->refused) {
			dc->sidx++;
			queue_work(dmac_wq, &dc->work);
			continue;
		}
		/* A C2H buffer's length is known from its callback only. */
		cb = dc->kind == DMAC_C2H || last || dc->feeds + 1 >= coal;
		if (cb)
			flags |= DMA_PREP_INTERRUPT;
		if (dc->kind == DMAC_MEM)
			tx = dmaengine_prep_dma_memcpy(dc->chan, s->q.dst,
						       s->q.host, s->q.len,
						       flags);
		else
			tx = dmaengine_prep_slave_sg(dc->chan,
						     dc->sg + slot_idx(dc, s) * dc->max_segs,
						     s->n, dc->kind == DMAC_C2H ?
						     DMA_DEV_TO_MEM : DMA_MEM_TO_DEV,
						     flags);
		if (!tx) {
			/*
			 * The pool is empty: a completion of ours refills it.
			 * If none of ours will call back, reap by tx_status
			 * shortly; if none is in flight at all, the provider
			 * gets DMAC_RETRIES looks before the piece fails.
			 */
			if (dc->sidx == dc->cidx && !dc->refusing) {
				dc->refusing = true;
				dc->refused_at = jiffies;
			}
			if (dc->sidx != dc->cidx ||
			    time_before(jiffies, dc->refused_at + DMAC_RETRIES)) {
				if (!dc->cb_out)
					mod_delayed_work(dmac_wq, &dc->poll, 1);
				break;
			}
			dc->refusing = false;
			dev_err_ratelimited(fdma_chan_device(c), "channel %u: %s refused a transfer of %u bytes in %u pieces\n",
					    fdma_chan_index(c), dc->name, s->q.len,
					    max_t(u32, s->n, 1));
			s->refused = true;
			dc->sidx++;
			queue_work(dmac_wq, &dc->work);
			continue;
		}
		dc->refusing = false;
		dc->feeds = cb ? 0 : dc->feeds + 1;
		slot_submit(s, tx, cb);
		if (dma_submit_error(s->cookie)) {
			s->refused = true;
		} else if (cb) {
			s->cb = true;
			dc->cb_out++;
		}
		dc->sidx++;
		n++;
	}
	if (!n)
		return 0;
	dma_async_issue_pending(dc->chan);
	/*
	 * The pass stopped before the end (an open H2C frame, a refused
	 * slot) with nothing in flight that calls back: reap by tx_status.
	 */
	if (!dc->cb_out)
		mod_delayed_work(dmac_wq, &dc->poll, 1);
	return 1;
}

/* ---- struct fdma_ring_ops --------------------------------------------------- */

static int dmac_init(struct fdma_chan *c)
{
	struct dmac_chan *dc = to_dc(c);
	u32 size = dc->ring_size;

	dc->c = c;
	dc->slot = kcalloc(size, sizeof(*dc->slot), GFP_KERNEL);
	if (!dc->slot)
		return -ENOMEM;
	if (dc->kind != DMAC_MEM) {
		dc->sg = kcalloc(size * dc->max_segs, sizeof(*dc->sg), GFP_KERNEL);
		dc->pq = kcalloc(size * dc->max_segs, sizeof(*dc->pq), GFP_KERNEL);
		if (!dc->sg || !dc->pq)
			return -ENOMEM;	/* dmac_free() follows */
	}
	dc->mask = size - 1;
	fdma_chan_set_max_len(c, dc->max_len);
	return 0;
}

static void dmac_free(struct fdma_chan *c)
{
	struct dmac_chan *dc = to_dc(c);

	/* A terminate that failed: a late callback may still write a slot. */
	if (fdma_chan_broken(c) && dc->slot) {
		fdma_chan_kept_bytes(c, dc->ring_size * sizeof(*dc->slot));
		dev_crit(fdma_chan_device(c), "channel %u: %s was never terminated: its slots are kept for good\n",
			 fdma_chan_index(c), dc->name);
		return;
	}
	kfree(dc->slot);
	kfree(dc->sg);
	kfree(dc->pq);
	dc->slot = NULL;
	dc->sg = NULL;
	dc->pq = NULL;
}

static void dmac_start(struct fdma_chan *c)
{
}

/*
 * Nothing of ours runs on the provider after it, and no callback. What
 * completed before is noted first: after a terminate, providers differ on
 * what tx_status says of the cookies it cut short.
 */
static int dmac_reset(struct fdma_chan *c)
{
	struct dmac_chan *dc = to_dc(c);
	u32 i;
	int ret;

	for (i = dc->cidx; i != dc->sidx; i++) {
		struct dmac_slot *s = &dc->slot[i & dc->mask];

		s->known = slot_state(dc, s, &s->st);
		if (!s->known)
			break;	/* in order: none after it either */
	}
	ret = dmaengine_terminate_sync(dc->chan);
	/*
	 * A callback may come later into this module's code: the module
	 * stays (rmmod is refused) until a terminate succeeds. At the
	 * module's exit the reference comes too late, but nothing can call
	 * back then: every file is closed, and a close that could not stop
	 * its transfers left the module pinned here.
	 */
	if (ret && !dc->pinned) {
		__module_get(THIS_MODULE);
		dc->pinned = true;
	} else if (!ret && dc->pinned) {
		module_put(THIS_MODULE);
		dc->pinned = false;
	}
	return ret;
}

static void dmac_stop(struct fdma_chan *c)
{
}

static int dmac_check(struct fdma_chan *c, const struct fdma_ereq *q,
		      const char **why)
{
	struct dmac_chan *dc = to_dc(c);
	u32 align = dc->align;

	if (!q->len || q->len > dc->max_len) {
		if (why)
			*why = "length 0 or above the longest piece";
		return -EINVAL;
	}
	/* A stream's card side is 0 (the union's dst reads it). */
	if ((q->host | q->dst | q->len) & (align - 1)) {
		if (why)
			*why = "address or length not aligned for the provider";
		return -EINVAL;
	}
	return 0;
}

static u32 dmac_ndesc(struct fdma_chan *c, u32 len)
{
	return 1;
}

static u32 dmac_space(struct fdma_chan *c)
{
	struct dmac_chan *dc = to_dc(c);

	return dc->ring_size - (dc->pidx - dc->cidx);
}

/*
 * A slave piece joins the open slot (an H2C frame gathering its pieces)
 * or starts one. A slot closes at the frame's EOF (a C2H buffer at once).
 * A frame of more pieces than one prep takes, and the rest of it, fail
 * (refused): dmaengine has no "frame continues" marker to carry it on.
 */
static int dmac_post_slave(struct dmac_chan *dc, const struct fdma_ereq *q)
{
	struct dmac_slot *s;
	struct scatterlist *sg;
	u32 k;

	/*
	 * A frame's start while another is open (another file's, or one that
	 * lost its EOF): the open one is cut, it fails, and this one starts.
	 */
	if (dc->open && (q->flags & FDMA_DESC_SOF)) {
		if (!dmac_space(dc->c))
			return -EAGAIN;
		s = &dc->slot[(dc->pidx - 1) & dc->mask];
		s->refused = true;
		s->closed = true;
		dc->open = false;
	}
	if (!dc->open) {
		if (!dmac_space(dc->c))
			return -EAGAIN;
		s = &dc->slot[dc->pidx & dc->mask];
		*s = (struct dmac_slot){ .dc = dc, .q = *q };
		/* Not the start of a frame: the rest of a cut one. */
		s->refused = dc->kind == DMAC_H2C && !(q->flags & FDMA_DESC_SOF);
		sg_init_table(dc->sg + slot_idx(dc, s) * dc->max_segs,
			      dc->max_segs);
		dc->pidx++;
		dc->open = true;
	} else {
		s = &dc->slot[(dc->pidx - 1) & dc->mask];
	}
	k = slot_idx(dc, s) * dc->max_segs + s->n;
	sg = dc->sg + k;
	sg_dma_address(sg) = q->host;
	sg_dma_len(sg) = q->len;
	dc->pq[k] = *q;
	if (++s->n > 1)
		s->q.len += q->len;
	if (dc->kind == DMAC_C2H || (q->flags & FDMA_DESC_EOF) ||
	    s->n == dc->max_segs) {
		if (dc->kind == DMAC_H2C && !(q->flags & FDMA_DESC_EOF)) {
			dev_err_ratelimited(fdma_chan_device(dc->c), "channel %u: an H2C frame of more than %u pieces: %s takes %u in one transfer\n",
					    fdma_chan_index(dc->c), dc->max_segs, dc->name,
					    dc->max_segs);
			s->refused = true;
		}
		s->closed = true;
		dc->open = false;
	}
	return 0;
}

static int dmac_post(struct fdma_chan *c, const struct fdma_ereq *q)
{
	struct dmac_chan *dc = to_dc(c);
	struct dmac_slot *s;
	int ret = dmac_check(c, q, NULL);

	if (ret)
		return ret;
	if (dc->kind != DMAC_MEM)
		return dmac_post_slave(dc, q);
	if (!dmac_space(c))
		return -EAGAIN;
	s = &dc->slot[dc->pidx & dc->mask];
	*s = (struct dmac_slot){ .dc = dc, .q = *q };
	dc->pidx++;
	return 0;
}

static u32 dmac_doorbell(struct fdma_chan *c)
{
	return dmac_feed(to_dc(c));
}

/*
 * The completions of slot s, one per piece posted (fdma_chan.c folds the
 * pieces of a request): into e[], which has room for them.
 */
static u32 slot_cpl(struct dmac_chan *dc, struct dmac_slot *s, u16 status,
		    struct fdma_ecpl *e)
{
	struct fdma_ereq *pq;
	u32 i;

	if (dc->kind == DMAC_MEM) {
		e[0] = (struct fdma_ecpl){
			.cookie = s->q.cookie,
			.len = status == FDMA_CPL_OK ? s->q.len : 0,
			.status = status,
		};
		return 1;
	}
	pq = dc->pq + slot_idx(dc, s) * dc->max_segs;
	for (i = 0; i < s->n; i++) {
		e[i] = (struct fdma_ecpl){
			.cookie = pq[i].cookie,
			.len = status == FDMA_CPL_OK ? pq[i].len : 0,
			.status = status,
		};
	}
	/* A C2H buffer holds one frame: its length, less what it left. */
	if (dc->kind == DMAC_C2H && status == FDMA_CPL_OK) {
		e[0].len = s->res.residue < pq[0].len ?
			   pq[0].len - s->res.residue : 0;
		e[0].flags = FDMA_CPL_F_SOF | FDMA_CPL_F_EOF;
	}
	return s->n;
}

static u32 dmac_reap(struct fdma_chan *c, struct fdma_ecpl *e, u32 max)
{
	struct dmac_chan *dc = to_dc(c);
	u32 n = 0;

	while (dc->cidx != dc->sidx) {
		struct dmac_slot *s = &dc->slot[dc->cidx & dc->mask];
		u16 status;

		if (n + max_t(u32, s->n, 1) > max || !slot_state(dc, s, &status))
			break;
		n += slot_cpl(dc, s, status, e + n);
		dc->cb_out -= s->cb;
		dc->cidx++;
	}
	/* Room in the provider's pool again, or a poll after a NULL prep. */
	if (dc->sidx != dc->pidx)
		dmac_feed(dc);
	return n;
}

/* After dmac_reset(): what completed as such, the rest canceled. */
static u32 dmac_cancel(struct fdma_chan *c, struct fdma_ecpl *e, u32 max)
{
	struct dmac_chan *dc = to_dc(c);
	u32 n = 0;

	while (dc->cidx != dc->pidx) {
		struct dmac_slot *s = &dc->slot[dc->cidx & dc->mask];
		/* Before sidx: submitted, with its own result if it has one. */
		bool sub = dc->cidx != dc->sidx;
		u16 status = FDMA_CPL_CANCELED;

		if (n + max_t(u32, s->n, 1) > max)
			break;
		/* Noted before the terminate, or told by its callback. */
		if (sub && s->known)
			status = s->st;
		else if (sub && s->cb && !slot_state(dc, s, &status))
			status = FDMA_CPL_CANCELED;
		n += slot_cpl(dc, s, status, e + n);
		dc->cb_out -= s->cb;
		dc->cidx++;
		if (!sub)
			dc->sidx = dc->cidx;
	}
	if (dc->cidx == dc->pidx)
		dc->open = false;
	return n;
}

/* dmaengine reports errors per transfer; a channel never halts. */
static u32 dmac_status(struct fdma_chan *c)
{
	return 0;
}

static void dmac_pos(struct fdma_chan *c, struct fdma_ring_pos *p)
{
	struct dmac_chan *dc = to_dc(c);
	u32 i = dc->cidx;
	u16 status;

	while (i != dc->sidx && slot_state(dc, &dc->slot[i & dc->mask], &status))
		i++;
	p->posted = dc->sidx;
	p->done = i;
	p->reaped = dc->cidx;
}

static int dmac_describe(struct fdma_chan *c, char *buf, size_t len)
{
	struct dmac_chan *dc = to_dc(c);

	return scnprintf(buf, len, "%s of %s (%s)", dc->name, dc->dev, dc->drv);
}

/* The count is fdma_chan_coal_count(), read by the feeder. */
static void dmac_set_coalesce(struct fdma_chan *c, u32 count, u32 usecs)
{
}

const struct fdma_ring_ops dmac_ops = {
	.backend = "dmaengine",
	.init = dmac_init,
	.free = dmac_free,
	.start = dmac_start,
	.reset = dmac_reset,
	.stop = dmac_stop,
	.check = dmac_check,
	.ndesc = dmac_ndesc,
	.space = dmac_space,
	.post = dmac_post,
	.doorbell = dmac_doorbell,
	.reap = dmac_reap,
	.cancel = dmac_cancel,
	.status = dmac_status,
	.pos = dmac_pos,
	.set_coalesce = dmac_set_coalesce,
	.describe = dmac_describe,
};

/* ---- set-up -------------------------------------------------------------- */

/*
 * A channel's ring state before its device is added (fdma_backend_add()
 * calls dmac_init(), which allocates the slots): sync_wait for a memcpy
 * channel, the work items, the pieces one slave prep takes.
 */
void dmac_chan_prepare(struct dmac_chan *dc, bool sync, u32 ring_size,
		       u32 align, u32 max_len)
{
	struct dma_slave_caps sc;

	dc->ring_size = ring_size;
	dc->align = align;
	dc->max_len = max_len;
	/* The naive way is a memcpy one: slave channels never wait so. */
	dc->sync = sync && dc->kind == DMAC_MEM;
	INIT_WORK(&dc->work, dmac_work);
	INIT_DELAYED_WORK(&dc->poll, dmac_poll);
	/* One piece per C2H buffer; an H2C frame in as many as one prep takes. */
	dc->max_segs = dc->kind == DMAC_C2H ? 1 : DMAC_SLAVE_SEGS;
	if (dc->kind == DMAC_H2C && !dma_get_slave_caps(dc->chan, &sc) &&
	    sc.max_sg_burst)
		dc->max_segs = min_t(u32, sc.max_sg_burst, DMAC_SLAVE_SEGS);
}

/* After the device's removal: no reap or poll of this channel runs. */
void dmac_chan_cancel_work(struct dmac_chan *dc)
{
	cancel_work_sync(&dc->work);
	cancel_delayed_work_sync(&dc->poll);
}

