/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * fdma_dmac.ko, the dmaengine client: groups of Linux dmaengine channels
 * as /dev/fdmaN with fdma's user interface (buffers mapped once, batched
 * submission, completion queues in shared memory, poll/epoll, eventfd,
 * SIGIO), the same code as an FDMA function's. Two files:
 *
 *   dmac_ring.c   a channel's ring over one dmaengine channel: the struct
 *                 fdma_ring_ops fdma.ko's channel drives
 *   dmac_group.c  groups of channels as devices (chans=, the device tree's
 *                 "fdma,dmaengine" nodes), the module
 *
 * It sees fdma.ko only through fdma_backend.h (its Kbuild has no path to
 * fdma.ko's own headers).
 */
#ifndef DMAC_H
#define DMAC_H

#include <linux/dmaengine.h>
#include <linux/list.h>
#include <linux/scatterlist.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "fdma_backend.h"

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
	struct fdma_chan *c;		/* fdma.ko's, from the ring's init */
	struct dma_chan *chan;
	u32 ring_size;			/* slots, a power of two */
	u32 align;			/* every piece's address and length */
	u32 max_len;			/* the longest piece */
	struct dmac_slot *slot;		/* ring_size, a power of two */
	u32 mask;
	u32 pidx, sidx, cidx;		/* free-running, under the channel's lock */
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
	struct fdma_device *fdev;
	u32 n;
	struct dmac_chan ch[FDMA_MAX_CHANNELS];
};

/* dmac_ring.c */
extern const struct fdma_ring_ops dmac_ops;
void dmac_chan_prepare(struct dmac_chan *dc, bool sync, u32 ring_size,
		       u32 align, u32 max_len);
void dmac_chan_cancel_work(struct dmac_chan *dc);

/* dmac_group.c: the module's work queue (completion work, polls) */
extern struct workqueue_struct *dmac_wq;

#endif /* DMAC_H */
