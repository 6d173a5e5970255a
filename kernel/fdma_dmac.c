// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fdma_dmac.ko: user-space DMA over Linux dmaengine channels. A group of
 * channels becomes one /dev/fdmaN with fdma's user interface (buffers
 * mapped once, batched submission, completion queues in shared memory,
 * poll/epoll, eventfd, SIGIO), the same code as an FDMA function's: this
 * module is only another struct fdma_ring_ops under fdma.ko's channels
 * (docs/dmaengine.md, section 2). Memory-to-memory channels (DMA_MEMCPY)
 * take FDMA_IOC_COPY; slave channels (DMA_SLAVE, e.g. an AXI DMA's MM2S
 * and S2MM) are H2C and C2H stream channels and take FDMA_IOC_SUBMIT: an
 * H2C frame's pieces (SOF to EOF, across requests if need be) are one
 * prep_slave_sg, a C2H buffer is one and receives one frame, its length
 * the buffer's less the residue the callback reports.
 *
 * Groups come from the module parameter chans= (any platform: a group per
 * ';'-separated list) or from the device tree: a node with compatible
 * "fdma,dmaengine" whose dmas/dma-names name the channels (mem* for
 * memory-to-memory), bound as a platform device; docs/dmaengine.md
 * section 2.2 has the binding. A group's channels must map memory for
 * the same device (buffers are mapped once, for it).
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

#include <linux/dmaengine.h>
#include <linux/dma-mapping.h>
#include <linux/list.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/of.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "fdma_compat.h"
#include "fdma_drv.h"

MODULE_IMPORT_NS(FDMA);

static char *dmac_param_chans;
module_param_named(chans, dmac_param_chans, charp, 0444);
MODULE_PARM_DESC(chans,
		 "Groups of dmaengine channels, each a /dev/fdmaN: groups separated by ';', channels by ','; a channel is a dmaengine channel name (dma0chan1), a provider device (0000:00:03.0: its first free memcpy channel) or memcpy[*N] (any free memcpy channels). Default: without \"fdma,dmaengine\" device-tree nodes, one group of every free memcpy channel of the first provider that has one");

/*
 * The longest piece handed to a provider in one prep. dmaengine has no
 * generic "longest memcpy" (dma_get_max_seg_size() is about merging
 * scatterlists, 64 KiB where a driver sets none, and providers split a
 * memcpy into their own descriptors: ZDMA up to 1 GiB each, fdma's
 * provider up to its ring), so requests are split here: one prep per MiB
 * costs little. A provider that refuses a piece with nothing in flight
 * fails that request with a message; then lower it.
 */
static unsigned int dmac_param_max_piece = SZ_1M;
module_param_named(max_piece, dmac_param_max_piece, uint, 0444);
MODULE_PARM_DESC(max_piece,
		 "Longest memcpy handed to a provider in one prep, bytes, 4096..1073741824 (default 1 MiB)");

static bool dmac_param_sync_wait;
module_param_named(sync_wait, dmac_param_sync_wait, bool, 0444);
MODULE_PARM_DESC(sync_wait,
		 "Wait for each copy inside FDMA_IOC_COPY with dma_sync_wait() (a busy loop), one issue_pending per piece: the naive way, for comparisons only (default 0)");

static unsigned int dmac_param_ring_size = 256;
module_param_named(ring_size, dmac_param_ring_size, uint, 0444);
MODULE_PARM_DESC(ring_size,
		 "Request pieces in flight per channel, a power of two, 2..65536 (default 256; a device-tree group's fdma,ring-size overrides it)");

/* Pieces of one H2C frame in one prep_slave_sg, at most. */
#define DMAC_SLAVE_SEGS		16

enum dmac_kind { DMAC_MEM, DMAC_H2C, DMAC_C2H };

struct dmac_chan;

/*
 * One descriptor on its way through the provider: a memcpy piece, or a
 * slave transfer of n pieces (an H2C frame; a C2H buffer is one).
 */
struct dmac_slot {
	struct dmac_chan *dc;
	struct fdma_ereq q;		/* the (first) piece */
	u32 n;				/* slave: pieces in its sg and pq */
	bool closed;			/* slave: takes no more pieces */
	dma_cookie_t cookie;		/* > 0 once submitted */
	bool known;			/* complete before a reset: st */
	u16 st;
	bool cb;			/* asked for a callback */
	bool refused;			/* the provider refused it: an error */
	bool cb_done;			/* the callback ran: res is valid */
	struct dmaengine_result res;
};

struct dmac_chan {
	struct fdma_chan *c;
	struct dma_chan *chan;
	struct dmac_slot *slot;		/* ring_size, a power of two */
	u32 mask;
	u32 pidx, sidx, cidx;		/* free-running, under c->lock */
	u32 feeds;			/* slots fed since the last that calls back */
	bool sync;			/* sync_wait: dma_sync_wait() per piece */
	enum dmac_kind kind;
	/* Slave: per slot max_segs scatterlist entries and pieces. */
	u32 max_segs;
	struct scatterlist *sg;
	struct fdma_ereq *pq;
	bool open;			/* slot pidx - 1 gathers an H2C frame */
	/*
	 * A terminate failed: the provider may still call back into this
	 * module, which holds a reference on itself until one succeeds.
	 */
	bool pinned;
	u32 cb_out;			/* submitted slots that call back, not reaped */
	bool refusing;			/* NULL preps, nothing of ours in flight, */
	unsigned long refused_at;	/* since this time (jiffies) */
	struct work_struct work;	/* reaps after a callback */
	struct delayed_work poll;	/* reaps by tx_status when no callback will come */
	/* Names kept: a provider's unregistering frees its channels' devices. */
	char name[32], dev[64], drv[32];
};

struct dmac_group {
	struct list_head node;
	struct fdma_dev *fdev;
	u32 n;
	struct dmac_chan ch[FDMA_MAX_CHANNELS];
};

static LIST_HEAD(dmac_groups);
static struct workqueue_struct *dmac_wq;
/*
 * Our channel's lock is held while the provider takes its own (fdma.ko's
 * provider: another fdma channel's lock, in tx_status and terminate): a
 * class of their own, so that lockdep does not see recursion.
 */
static struct lock_class_key dmac_lock_key;

static struct dmac_chan *to_dc(struct fdma_chan *c)
{
	return c->priv;
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
	atomic64_inc(&dc->c->st.irqs);
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
	u32 coal = max_t(u32, c->coal_count, 1), n = 0;

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
			dev_err_ratelimited(&c->fdev->dev, "channel %u: %s refused a transfer of %u bytes in %u pieces\n",
					    c->idx, dc->name, s->q.len,
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
	u32 size = c->fdev->ring_size;

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
	c->ereq_max = c->fdev->caps.max_desc_len;
	return 0;
}

static void dmac_free(struct fdma_chan *c)
{
	struct dmac_chan *dc = to_dc(c);

	/* A terminate that failed: a late callback may still write a slot. */
	if (c->broken && dc->slot) {
		atomic64_add(c->fdev->ring_size * sizeof(*dc->slot),
			     &c->fdev->leaked_bytes);
		dev_crit(&c->fdev->dev, "channel %u: %s was never terminated: its slots are kept for good\n",
			 c->idx, dc->name);
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
	u32 align = c->fdev->caps.align;

	if (!q->len || q->len > c->ereq_max) {
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

	return c->fdev->ring_size - (dc->pidx - dc->cidx);
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
			dev_err_ratelimited(&dc->c->fdev->dev, "channel %u: an H2C frame of more than %u pieces: %s takes %u in one transfer\n",
					    dc->c->idx, dc->max_segs, dc->name,
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

/* The count is c->coal_count, read by the feeder. */
static void dmac_set_coalesce(struct fdma_chan *c, u32 count, u32 usecs)
{
}

static const struct fdma_ring_ops dmac_ops = {
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

/* ---- groups ----------------------------------------------------------------- */

/* What a channel spec asks for. */
struct dmac_want {
	const char *name;	/* a channel or provider device name; NULL: any */
	struct device *same;	/* only channels mapping for it; NULL: any */
};

static bool dmac_filter(struct dma_chan *chan, void *param)
{
	const struct dmac_want *w = param;

	if (w->same && dmaengine_get_dma_device(chan) != w->same)
		return false;
	return !w->name || !strcmp(dma_chan_name(chan), w->name) ||
	       !strcmp(dev_name(chan->device->dev), w->name);
}

static const char *dmac_kind_name(enum dmac_kind kind)
{
	return kind == DMAC_MEM ? "memcpy" : kind == DMAC_H2C ? "h2c" : "c2h";
}

/*
 * Does slave channel chan move data in kind's direction? The capabilities
 * say where they can (fdma's provider names both directions for its
 * device); device_config with the direction asks the channel itself (a
 * provider without one is taken at its word: the name said h2c or c2h).
 */
static int dmac_slave_dir(struct dma_chan *chan, enum dmac_kind kind)
{
	enum dma_transfer_direction dir = kind == DMAC_C2H ? DMA_DEV_TO_MEM :
							   DMA_MEM_TO_DEV;
	struct dma_slave_config cfg = { .direction = dir };
	struct dma_slave_caps caps;

	if (!dma_get_slave_caps(chan, &caps) && !(caps.directions & BIT(dir)))
		return -EINVAL;
	if (!chan->device->device_config)
		return 0;
	return dmaengine_slave_config(chan, &cfg);
}

/*
 * Request the channels of one spec into g, exclusive until released: an
 * optional "h2c:" or "c2h:" (a slave channel of that direction; else a
 * memcpy one), then memcpy[*N] (any free ones, mapping for the group's
 * first one's device), a channel name or a provider device.
 */
static int dmac_request(struct dmac_group *g, const char *spec, bool quiet)
{
	struct dma_chan *tried[FDMA_MAX_CHANNELS];
	enum dmac_kind kind = DMAC_MEM;
	struct dmac_want w = { .name = spec };
	unsigned int want = 1, got = 0, ntried = 0, i;
	dma_cap_mask_t mask;
	int ret = 0;

	if (!strncmp(spec, "h2c:", 4) || !strncmp(spec, "c2h:", 4)) {
		kind = spec[0] == 'h' ? DMAC_H2C : DMAC_C2H;
		w.name = spec + 4;
	} else if (!strncmp(spec, "memcpy", 6) &&
		   (!spec[6] || (spec[6] == '*' && !kstrtouint(spec + 7, 0, &want)))) {
		w.name = NULL;
		if (!want) {
			pr_err("%s: no channels asked for\n", spec);
			return -EINVAL;
		}
	}
	dma_cap_zero(mask);
	dma_cap_set(kind == DMAC_MEM ? DMA_MEMCPY : DMA_SLAVE, mask);
	while (got < want) {
		struct dma_chan *chan;

		if (g->n == FDMA_MAX_CHANNELS) {
			pr_err("%s: more than %u channels in a group\n", spec,
			       FDMA_MAX_CHANNELS);
			ret = -E2BIG;
			break;
		}
		/* Any: but mapping for the same device as the group's first. */
		if (!w.name && g->n)
			w.same = dmaengine_get_dma_device(g->ch[0].chan);
		chan = dma_request_channel(mask, dmac_filter, &w);
		if (!chan) {
			if (!quiet && ntried)
				pr_err("%s: %u free slave channel(s) found, none moving data %s\n",
				       spec, ntried, kind == DMAC_H2C ?
				       "to the device" : "from the device");
			else if (!quiet)
				pr_err("%s: no free %s channel%s\n", spec,
				       kind == DMAC_MEM ? "memcpy" : "slave",
				       got ? " more" : "");
			ret = -ENODEV;
			break;
		}
		/* Held while we look on, so that the next request finds another. */
		if (kind != DMAC_MEM && dmac_slave_dir(chan, kind)) {
			tried[ntried++] = chan;
			if (ntried < ARRAY_SIZE(tried))
				continue;
			ret = -ENODEV;
			break;
		}
		g->ch[g->n].chan = chan;
		g->ch[g->n++].kind = kind;
		got++;
	}
	for (i = 0; i < ntried; i++)
		dma_release_channel(tried[i]);
	return ret;
}

static void dmac_group_free(struct dmac_group *g)
{
	u32 i;

	for (i = 0; i < g->n; i++)
		dma_release_channel(g->ch[i].chan);
	kfree(g);
}

/*
 * What a group must be, checked as soon as its channels are requested
 * (before any node exists): its channels map memory for one device, and
 * each can be terminated.
 */
static int dmac_group_check(struct dmac_group *g)
{
	struct device *dd = dmaengine_get_dma_device(g->ch[0].chan);
	u32 i;

	for (i = 0; i < g->n; i++) {
		struct dma_chan *chan = g->ch[i].chan;

		/* Buffers are mapped once, for one device (docs/dmaengine.md 2.3). */
		if (dmaengine_get_dma_device(chan) != dd) {
			pr_err("%s and %s map memory for different devices (%s, %s): put them in two groups\n",
			       dma_chan_name(g->ch[0].chan), dma_chan_name(chan),
			       dev_name(dd),
			       dev_name(dmaengine_get_dma_device(chan)));
			return -EINVAL;
		}
		/* A reset and a teardown need it: nothing else stops a transfer. */
		if (!chan->device->device_terminate_all) {
			pr_err("%s cannot be terminated (its provider has no device_terminate_all)\n",
			       dma_chan_name(chan));
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * The group's channels (checked) become /dev/fdmaN (a child of parent, if
 * given), with ring slots per channel.
 */
static int dmac_group_create(struct dmac_group *g, struct device *parent,
			     u32 ring_size, bool sync)
{
	struct device *dd = dmaengine_get_dma_device(g->ch[0].chan);
	struct fdma_dev *fdev;
	bool fdev_mem = false;
	u32 align = 1, i;
	int ret;

	for (i = 0; i < g->n; i++) {
		struct dma_chan *chan = g->ch[i].chan;

		align = max_t(u32, align, 1u << chan->device->copy_align);
		if (g->ch[i].kind == DMAC_MEM)
			fdev_mem = true;
		strscpy(g->ch[i].name, dma_chan_name(chan), sizeof(g->ch[i].name));
		strscpy(g->ch[i].dev, dev_name(chan->device->dev),
			sizeof(g->ch[i].dev));
		strscpy(g->ch[i].drv, dev_driver_string(chan->device->dev),
			sizeof(g->ch[i].drv));
	}
	fdev = fdma_dev_alloc(parent, dd);
	if (IS_ERR(fdev))
		return PTR_ERR(fdev);
	fdev->caps.nchan = g->n;
	fdev->caps.align = align;
	fdev->caps.max_desc_len = round_down(dmac_param_max_piece, align);
	fdev->caps.ring_max = ring_size;
	fdev->caps.coalesce = true;
	fdev->caps.mem2mem = fdev_mem;
	fdev->ring_size = ring_size;
	fdev->dma_align = max_t(u32, align, dma_get_cache_alignment());
	fdev->dma_bits = fls64(dma_get_mask(dd));
	for (i = 0; i < g->n; i++) {
		struct dmac_chan *dc = &g->ch[i];

		struct dma_slave_caps sc;

		dc->c = &fdev->chan[i];
		/* The naive way is a memcpy one: slave channels never wait so. */
		dc->sync = sync && dc->kind == DMAC_MEM;
		INIT_WORK(&dc->work, dmac_work);
		INIT_DELAYED_WORK(&dc->poll, dmac_poll);
		/* One piece per C2H buffer; an H2C frame in as many as one prep takes. */
		dc->max_segs = dc->kind == DMAC_C2H ? 1 : DMAC_SLAVE_SEGS;
		if (dc->kind == DMAC_H2C && !dma_get_slave_caps(dc->chan, &sc) &&
		    sc.max_sg_burst)
			dc->max_segs = min_t(u32, sc.max_sg_burst, DMAC_SLAVE_SEGS);
		fdev->caps.chan_caps[i] = dc->kind == DMAC_MEM ? FDMA_CH_CAP_MEM2MEM :
					  dc->kind == DMAC_H2C ? FDMA_CH_CAP_STREAM :
					  FDMA_CH_CAP_STREAM | FDMA_CH_CAP_C2H;
		fdev->chan[i].ops = &dmac_ops;
		fdev->chan[i].priv = dc;
		lockdep_set_class(&fdev->chan[i].lock, &dmac_lock_key);
	}
	ret = fdma_dev_chans_init(fdev);
	if (ret)
		goto err_put;
	ret = fdma_dev_publish(fdev, THIS_MODULE);
	if (ret)
		goto err_chans;
	g->fdev = fdev;
	for (i = 0; i < g->n; i++)
		dev_info(&fdev->dev, "channel %u: %s of %s (%s), %s%s\n", i,
			 g->ch[i].name, g->ch[i].dev, g->ch[i].drv,
			 dmac_kind_name(g->ch[i].kind),
			 g->ch[i].sync ? ", waited for with dma_sync_wait()" : "");
	return 0;

err_chans:
	fdma_dev_chans_stop(fdev);
	fdev->quiesced = true;
	fdma_dev_chans_free(fdev, true);
err_put:
	fdma_dev_put(fdev);
	return ret;
}

/*
 * The group goes: no new operation, everything in flight terminated and
 * handed back (terminate_sync: the providers no longer touch our memory,
 * so it may be given back), buffers revoked, channels released. Open
 * files keep fdma.ko's device until their last close.
 */
static void dmac_group_destroy(struct dmac_group *g)
{
	struct fdma_dev *fdev = g->fdev;
	bool broken = false;
	u32 i;

	fdma_dev_unpublish(fdev);
	fdma_dev_chans_stop(fdev);
	/* A channel whose terminate failed may still write: keep its buffers. */
	for (i = 0; i < g->n; i++)
		broken |= fdev->chan[i].broken;
	fdev->quiesced = !broken;
	fdma_dev_chans_free(fdev, false);
	for (i = 0; i < g->n; i++) {
		cancel_work_sync(&g->ch[i].work);
		cancel_delayed_work_sync(&g->ch[i].poll);
	}
	if (broken) {
		/*
		 * A late callback may still come: what it touches is kept for
		 * good: the group, its slots, the fdma device its channels
		 * live in (its reference is not put) and this module (pinned
		 * by the terminate that failed, dmac_reset()).
		 */
		dev_crit(&fdev->dev, "removed; a channel was never terminated: its group, channels and fdma_dmac are kept\n");
		return;
	}
	dev_info(&fdev->dev, "removed\n");
	fdma_dev_put(fdev);
	dmac_group_free(g);
}

/*
 * One group from "spec,spec,...", or every free memcpy channel: its
 * channels requested, on the list; made a node later (dmac_init_module()).
 */
static int dmac_group_add(char *specs)
{
	struct dmac_group *g = kzalloc(sizeof(*g), GFP_KERNEL);
	char *spec;
	int ret = 0;

	if (!g)
		return -ENOMEM;
	if (!specs) {
		/* Every free memcpy channel, at most a group's worth. */
		while (g->n < FDMA_MAX_CHANNELS && !dmac_request(g, "memcpy", true))
			;
		if (!g->n) {
			pr_err("no free memcpy channel: name channels with chans=\n");
			ret = -ENODEV;
		}
	} else {
		while (!ret && (spec = strsep(&specs, ","))) {
			spec = strim(spec);
			if (!*spec) {
				pr_err("chans=: an empty channel in a group\n");
				ret = -EINVAL;
			} else {
				ret = dmac_request(g, spec, false);
			}
		}
	}
	if (!ret)
		ret = dmac_group_check(g);
	if (ret) {
		dmac_group_free(g);
		return ret;
	}
	list_add_tail(&g->node, &dmac_groups);
	return 0;
}

static void dmac_groups_destroy(void)
{
	struct dmac_group *g, *tmp;

	list_for_each_entry_safe_reverse(g, tmp, &dmac_groups, node) {
		list_del(&g->node);
		if (g->fdev)
			dmac_group_destroy(g);
		else
			dmac_group_free(g);
	}
}

/* ---- device tree: compatible = "fdma,dmaengine" ------------------------------ */

/*
 * Every dma-names entry is a channel of the group, in order, requested by
 * name (dma_request_chan: the provider's xlate); a provider not there yet
 * is -EPROBE_DEFER, so the group appears when its providers do.
 */
static int dmac_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	int n = of_property_count_strings(dev->of_node, "dma-names"), i, ret;
	u32 ring = dmac_param_ring_size;
	struct dmac_group *g;

	if (n <= 0 || n > FDMA_MAX_CHANNELS)
		return dev_err_probe(dev, -EINVAL,
				     "dma-names: expected 1..%u channels, found %d\n",
				     FDMA_MAX_CHANNELS, n);
	of_property_read_u32(dev->of_node, "fdma,ring-size", &ring);
	if (ring < 2 || ring > 65536 || !is_power_of_2(ring))
		return dev_err_probe(dev, -EINVAL,
				     "fdma,ring-size %u: expected a power of two, 2..65536\n",
				     ring);
	g = kzalloc(sizeof(*g), GFP_KERNEL);
	if (!g)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		enum dmac_kind kind;
		struct dma_chan *chan;
		const char *name;

		ret = of_property_read_string_index(dev->of_node, "dma-names",
						    i, &name);
		if (ret)
			goto err;
		if (!strncmp(name, "mem", 3)) {
			kind = DMAC_MEM;
		} else if (!strncmp(name, "h2c", 3) || !strncmp(name, "tx", 2)) {
			kind = DMAC_H2C;
		} else if (!strncmp(name, "c2h", 3) || !strncmp(name, "rx", 2)) {
			kind = DMAC_C2H;
		} else {
			ret = dev_err_probe(dev, -EINVAL,
					    "dma-names \"%s\": expected mem*, h2c*/tx* or c2h*/rx*\n",
					    name);
			goto err;
		}
		chan = dma_request_chan(dev, name);
		if (IS_ERR(chan)) {
			ret = dev_err_probe(dev, PTR_ERR(chan),
					    "channel \"%s\"\n", name);
			goto err;
		}
		g->ch[g->n].chan = chan;
		g->ch[g->n++].kind = kind;
		if (kind == DMAC_MEM ?
		    !dma_has_cap(DMA_MEMCPY, chan->device->cap_mask) :
		    dmac_slave_dir(chan, kind)) {
			ret = dev_err_probe(dev, -EINVAL,
					    "channel \"%s\" (%s) cannot %s\n",
					    name, dma_chan_name(chan),
					    kind == DMAC_MEM ? "copy memory" :
					    kind == DMAC_H2C ? "move data to the device" :
					    "move data from the device");
			goto err;
		}
	}
	ret = dmac_group_check(g);
	if (!ret)
		ret = dmac_group_create(g, dev, ring,
					of_property_read_bool(dev->of_node, "fdma,sync-wait"));
	if (ret)
		goto err;
	platform_set_drvdata(pdev, g);
	return 0;
err:
	dmac_group_free(g);
	return ret;
}

static void dmac_remove_group(struct platform_device *pdev)
{
	dmac_group_destroy(platform_get_drvdata(pdev));
}

FDMA_PLATFORM_REMOVE(dmac_remove, dmac_remove_group);

static const struct of_device_id dmac_of_match[] = {
	{ .compatible = "fdma,dmaengine" },
	{ }
};
MODULE_DEVICE_TABLE(of, dmac_of_match);

static struct platform_driver dmac_platform_driver = {
	.driver = {
		.name = "fdma_dmac",
		.of_match_table = dmac_of_match,
	},
	.probe = dmac_probe,
	.remove = dmac_remove,
};

static bool dmac_have_dt_groups(void)
{
	struct device_node *np = of_find_compatible_node(NULL, NULL,
							 "fdma,dmaengine");

	of_node_put(np);
	return np;
}

static int __init dmac_init_module(void)
{
	char *copy = NULL, *p, *grp;
	int ret = 0;

	if (dmac_param_ring_size < 2 || dmac_param_ring_size > 65536 ||
	    !is_power_of_2(dmac_param_ring_size)) {
		pr_err("ring_size=%u: expected a power of two, 2..65536\n",
		       dmac_param_ring_size);
		return -EINVAL;
	}
	if (dmac_param_max_piece < SZ_4K || dmac_param_max_piece > SZ_1G) {
		pr_err("max_piece=%u: expected 4096..1073741824\n",
		       dmac_param_max_piece);
		return -EINVAL;
	}
	dmac_wq = alloc_workqueue("fdma_dmac", WQ_HIGHPRI, 0);
	if (!dmac_wq)
		return -ENOMEM;
	if (!dmac_param_chans || !*dmac_param_chans) {
		/* The device tree says which groups there are, if it has any. */
		if (!dmac_have_dt_groups())
			ret = dmac_group_add(NULL);
	} else {
		copy = kstrdup(dmac_param_chans, GFP_KERNEL);
		p = copy;
		if (!copy)
			ret = -ENOMEM;
		while (!ret && p && (grp = strsep(&p, ";")))
			ret = dmac_group_add(grp);
		kfree(copy);
	}
	/*
	 * Every group's channels found and checked first, then the nodes:
	 * what fails for a user's reason fails before a node exists that a
	 * file could open while the load still fails (what is left is
	 * running out of memory). The device tree's groups come last.
	 */
	if (!ret) {
		struct dmac_group *g;

		list_for_each_entry(g, &dmac_groups, node) {
			ret = dmac_group_create(g, NULL, dmac_param_ring_size,
						dmac_param_sync_wait);
			if (ret)
				break;
		}
	}
	if (!ret)
		ret = platform_driver_register(&dmac_platform_driver);
	if (ret) {
		dmac_groups_destroy();
		destroy_workqueue(dmac_wq);
	}
	return ret;
}

static void __exit dmac_exit_module(void)
{
	platform_driver_unregister(&dmac_platform_driver);
	dmac_groups_destroy();
	destroy_workqueue(dmac_wq);
}

module_init(dmac_init_module);
module_exit(dmac_exit_module);

MODULE_DESCRIPTION("fdma over dmaengine: user-space DMA on any dmaengine memcpy channel");
MODULE_LICENSE("Dual MIT/GPL");
