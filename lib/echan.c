// SPDX-License-Identifier: MIT
/*
 * libfdma: channels driven from user space by the engine core (the sim:
 * backend). Submission and reaping go through engine/; this file adds
 * buffer handles, waiting, statistics and recovery. chan.c has checked the
 * device, the channel number and the backend-independent arguments.
 */
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fdma_internal.h"

#define REAP_CHUNK 64

#define now_us fdma_now_us

/* ---- set-up ------------------------------------------------------------- */

int fdma_echan_setup(struct fdma_dev *dev, int ch, u32 ring_size)
{
	struct fdma_echan *c = &dev->sim->ch[ch];
	size_t dbytes = FDMA_RING_DESC_BYTES(ring_size);
	size_t cbytes = FDMA_RING_REC_BYTES(&dev->sim->caps, ring_size);
	size_t total = dbytes + cbytes + FDMA_RING_WB_BYTES;
	char *mem;
	int ret;

	if (ring_size > dev->sim->caps.ring_max)
		return fdma_err(dev, -EINVAL, "ring of %u entries is over the engine's %u",
				ring_size, dev->sim->caps.ring_max);
	mem = aligned_alloc(4096, (total + 4095) & ~(size_t)4095);
	c->slot = calloc(ring_size, sizeof(*c->slot));
	c->req = calloc(ring_size, sizeof(*c->req));
	if (!mem || !c->slot || !c->req) {
		free(mem);
		return fdma_err(dev, -ENOMEM, "out of memory for channel %d's ring", ch);
	}
	memset(mem, 0, total);
	c->mem = mem;
	ret = fdma_addrmap_add(&dev->sim->map, mem, total, &c->mem_bus);
	if (ret)
		return fdma_err(dev, ret, "cannot map channel %d's ring for the device", ch);
	ret = fdma_ering_init(&c->ring, &dev->sim->plat, &dev->sim->caps, (u32)ch, ring_size,
			      mem, c->mem_bus, mem + dbytes, c->mem_bus + dbytes,
			      mem + dbytes + cbytes, c->mem_bus + dbytes + cbytes, c->slot);
	if (ret)
		return fdma_err(dev, ret, "bad ring for channel %d", ch);
	c->present = true;
	dev->chan_align[ch] = c->ring.align;
	c->mode = FDMA_WAIT_ADAPTIVE;
	c->spin_us = 50;
	c->irq_on = false;
	fdma_ering_start(&c->ring, 0, (u32)ch);
	return 0;
}

/* Stop the device touching this channel's memory: reset and wait for the acknowledgement. */
void fdma_echan_teardown(struct fdma_dev *dev, int ch)
{
	struct fdma_echan *c = &dev->sim->ch[ch];

	if (fdma_ering_reset(&c->ring, FDMA_RESET_TIMEOUT_US))
		fdma_ering_stop(&c->ring);
	fdma_addrmap_remove(&dev->sim->map, c->mem_bus);
	c->present = false;
}

/* ---- submission ------------------------------------------------------------ */

static int chan_reset(struct fdma_dev *dev, struct fdma_echan *c);

/* Request i of a batch of either kind, as the engine and the buffer accounting see it. */
static void batch_get(struct fdma_dev *dev, const struct fdma_req *reqs,
		      const struct fdma_copy *cps, unsigned int i, struct fdma_ereq *q,
		      struct fdma_reqent *e)
{
	u32 f;

	if (cps) {
		const struct fdma_copy *cp = &cps[i];

		q->host = fdma_buf_lookup(dev, cp->src_buf)->bus + cp->src_offset;
		q->dst = fdma_buf_lookup(dev, cp->dst_buf)->bus + cp->dst_offset;
		q->len = (u32)cp->len;
		f = cp->flags;
		e->buf = cp->src_buf;
		e->dst_buf = cp->dst_buf;
		e->user_data = cp->user_data;
	} else {
		const struct fdma_req *r = &reqs[i];

		q->host = fdma_buf_lookup(dev, r->buf)->bus + r->offset;
		q->card = r->card_addr;
		q->len = (u32)r->len;
		f = r->flags;
		e->buf = r->buf;
		e->dst_buf = -1;
		e->user_data = r->user_data;
	}
	q->flags = (f & FDMA_REQ_IRQ ? FDMA_DESC_IRQ : 0) |
		   (f & FDMA_REQ_SOF ? FDMA_DESC_SOF : 0) |
		   (f & FDMA_REQ_EOF ? FDMA_DESC_EOF : 0);
}

/* Count a transfer on buffer h (-1: none) in or out (k = 1 or -1; unsigned arithmetic wraps). */
static void buf_hold(struct fdma_dev *dev, int h, int k)
{
	struct fdma_buf *b = h >= 0 ? fdma_buf_lookup(dev, h) : NULL;

	if (b)
		atomic_fetch_add_explicit(&b->inflight, (unsigned int)k, memory_order_relaxed);
}

/*
 * The channel has halted, or will: the device writes a halting error's
 * completion and wb.cidx before it publishes HALTED, so a host that has
 * reaped the error may not see HALTED yet. Waiting for it would queue the
 * next request behind a halted channel, to be canceled by the reset.
 */
static bool halted(struct fdma_echan *c)
{
	return c->halt_due || (fdma_ering_status(&c->ring) & FDMA_CH_ST_HALTED);
}

/* Queue a batch of requests (reqs) or of copies (cps): all or nothing, one doorbell. */
static int submit_batch(struct fdma_dev *dev, int ch, const struct fdma_req *reqs,
			const struct fdma_copy *cps, unsigned int n)
{
	struct fdma_echan *c = &dev->sim->ch[ch];
	u32 need = 0;
	unsigned int i;

	if (c->broken)
		return fdma_err(dev, -EIO, "channel %d did not come back from a reset", ch);
	/*
	 * An earlier error halted the channel: recover before queueing behind
	 * it. A reset the device did not acknowledge leaves it broken: nothing
	 * may be posted to a ring it may still be reading.
	 */
	if (!c->canceling && halted(c) && chan_reset(dev, c))
		return fdma_err(dev, -EIO,
				"channel %d halted on an error and did not come back from its reset", ch);
	if (c->canceling)
		return fdma_err(dev, -EAGAIN,
				"channel %d was reset after an error: reap its canceled transfers first", ch);
	/* All or nothing: check every request before writing any descriptor. */
	for (i = 0; i < n; i++) {
		int ret = cps ? fdma_copy_check(dev, &c->ring, i, &cps[i], true)
			      : fdma_req_check(dev, &c->ring, i, &reqs[i], true);

		if (ret)
			return ret;
		need += fdma_ering_ndesc(&c->ring, (u32)(cps ? cps[i].len : reqs[i].len));
	}
	/* More than the whole ring can never fit: a retry loop must not spin on it. */
	if (need > c->ring.size)
		return fdma_err(dev, -E2BIG,
				"channel %d: the batch of %u requests needs %u descriptors, the ring holds %u (max %u bytes each): split it",
				ch, n, need, c->ring.size, c->ring.max_desc_len);
	if (need > fdma_ering_space(&c->ring))
		return fdma_err(dev, -EAGAIN, "channel %d: %u descriptors needed, %u free now: reap and retry",
				ch, need, fdma_ering_space(&c->ring));
	for (i = 0; i < n; i++) {
		/* The cookie finds the request again: its first ring slot. */
		u32 first = c->ring.pidx & (c->ring.size - 1);
		struct fdma_reqent *e = &c->req[first];
		struct fdma_ereq q = { .cookie = first };

		batch_get(dev, reqs, cps, i, &q, e);
		buf_hold(dev, e->buf, 1);
		buf_hold(dev, e->dst_buf, 1);
		fdma_ering_post(&c->ring, &q);
		STAT_ADD(c, descriptors, fdma_ering_ndesc(&c->ring, q.len));
	}
	/* One doorbell for the whole batch. */
	if (n) {
		fdma_ering_doorbell(&c->ring);
		STAT_ADD(c, doorbells, 1);
		STAT_ADD(c, transfers, n);
	}
	return (int)n;
}

int fdma_echan_submit(struct fdma_dev *dev, int ch, const struct fdma_req *reqs, unsigned int n)
{
	return submit_batch(dev, ch, reqs, NULL, n);
}

int fdma_echan_submit_copy(struct fdma_dev *dev, int ch, const struct fdma_copy *cps, unsigned int n)
{
	return submit_batch(dev, ch, NULL, cps, n);
}

int fdma_echan_inflight(struct fdma_dev *dev, int ch)
{
	struct fdma_echan *c = &dev->sim->ch[ch];

	/* Requests, not descriptors: a split request counts once. */
	return (int)(STAT_GET(c, transfers) - STAT_GET(c, completions));
}

/* ---- completion -------------------------------------------------------------- */

static void convert(struct fdma_dev *dev, struct fdma_echan *c, const struct fdma_ecpl *e,
		    struct fdma_cpl *out)
{
	struct fdma_reqent *r = &c->req[e->cookie & (c->ring.size - 1)];

	out->user_data = r->user_data;
	out->len = e->len;
	out->status = e->status;
	out->res = fdma_cpl_errno(e->status);
	out->flags = (e->flags & FDMA_CPL_F_SOF ? FDMA_CPL_SOF : 0) |
		     (e->flags & FDMA_CPL_F_EOF ? FDMA_CPL_EOF : 0) |
		     (e->flags & FDMA_CPL_F_OVERRUN ? FDMA_CPL_OVERRUN : 0);
	buf_hold(dev, r->buf, -1);
	buf_hold(dev, r->dst_buf, -1);
	if (!c->canceling && e->status >= FDMA_CPL_DESC_ERR && e->status <= FDMA_CPL_LEN_ERR)
		c->halt_due = true;
	STAT_ADD(c, completions, 1);
	STAT_ADD(c, bytes, e->len);
	if (out->res)
		STAT_ADD(c, errors, 1);
}

static void chan_restart(struct fdma_echan *c)
{
	c->canceling = false;
	fdma_ering_start(&c->ring, c->ctrl_flags | (c->irq_on ? FDMA_CH_CTRL_IRQ_EN : 0),
			 c->ring.ch);
	fdma_ering_set_coalesce(&c->ring, c->coal_count, c->coal_usecs);
}

/* Reset a channel; its unfinished requests come back through reap_some(). */
static int chan_reset(struct fdma_dev *dev, struct fdma_echan *c)
{
	int ret = fdma_ering_reset(&c->ring, FDMA_RESET_TIMEOUT_US);

	c->halt_due = false;
	STAT_ADD(c, resets, 1);
	if (ret) {
		c->broken = true;
		return fdma_err(dev, ret, "channel %u: reset not acknowledged by the device",
				c->ring.ch);
	}
	c->canceling = true;
	if (!fdma_ering_inflight(&c->ring)) {
		fdma_ering_cancel(&c->ring, NULL, 0);	/* nothing to hand back: zero the indices */
		chan_restart(c);
	}
	/* The requests handed back as canceled come with no interrupt: the fd says so. */
	if (c->fd_used && c->canceling)
		fdma_efd_signal(c->efd);
	return 0;
}

static unsigned int reap_some(struct fdma_dev *dev, struct fdma_echan *c,
			      struct fdma_cpl *out, unsigned int max)
{
	struct fdma_ecpl e[REAP_CHUNK];
	unsigned int n = 0;

	/*
	 * A halted channel completes nothing more. Reset it at once: what it
	 * did finish comes back with its own status through the cancel path,
	 * the rest as canceled, and the channel runs again.
	 */
	if (!c->canceling && !c->broken && halted(c))
		chan_reset(dev, c);
	while (n < max) {
		u32 want = max - n < REAP_CHUNK ? max - n : REAP_CHUNK;
		u32 k = c->canceling ? fdma_ering_cancel(&c->ring, e, want)
				     : fdma_ering_reap(&c->ring, e, want);

		for (u32 i = 0; i < k; i++)
			convert(dev, c, &e[i], &out[n + i]);
		n += k;
		if (c->canceling && !fdma_ering_inflight(&c->ring))
			chan_restart(c);
		if (k < want)
			break;
	}
	return n;
}

static bool has_work(struct fdma_echan *c)
{
	return c->canceling || fdma_ering_ready(&c->ring) || halted(c);
}

static void set_irq(struct fdma_echan *c, bool on)
{
	if (c->irq_on == on)
		return;
	c->irq_on = on;
	fdma_ering_set_irq(&c->ring, on);
}

/* An interrupt was taken: empty the eventfd, and let the device signal the next one. */
static void drain_efd(struct fdma_echan *c)
{
	STAT_ADD(c, syscalls, 1);
	fdma_efd_drain(c->efd);
	fdma_ering_irq_ack(&c->ring);
}

/*
 * Sleep until the channel interrupts or deadline (absolute us, -1 none).
 * A lost interrupt must not hang us: sleep at most 100 ms at a time and
 * count the times completions turned up without one.
 */
static void sleep_wait(struct fdma_echan *c, int64_t deadline)
{
	struct pollfd pfd = { .fd = c->efd, .events = POLLIN };
	int64_t left = deadline < 0 ? 100000 : deadline - now_us();
	struct timespec ts;
	int r;

	set_irq(c, true);
	/* Checked after enabling interrupts (with a full barrier): no lost wake-up. */
	if (has_work(c))
		return;
	if (left > 100000)
		left = 100000;
	if (left <= 0)
		return;
	ts.tv_sec = left / 1000000;
	ts.tv_nsec = (left % 1000000) * 1000;
	r = ppoll(&pfd, 1, &ts, NULL);
	STAT_ADD(c, syscalls, 1);
	STAT_ADD(c, wakeups, 1);
	if (r > 0)
		drain_efd(c);
	else if (r == 0 && has_work(c))
		STAT_ADD(c, irq_timeouts, 1);
}

/* Wait for something to reap, per the wait mode. */
static void wait_event(struct fdma_echan *c, int64_t deadline)
{
	int64_t spin_end;

	switch (c->mode) {
	case FDMA_WAIT_SPIN:
		/* Off while we poll, unless an fd waits for them (fdma_chan_fd()). */
		set_irq(c, c->fd_used);
		while (!has_work(c) && (deadline < 0 || now_us() < deadline))
			fdma_cpu_relax();
		return;
	case FDMA_WAIT_ADAPTIVE:
		set_irq(c, c->fd_used);
		spin_end = now_us() + c->spin_us;
		if (deadline >= 0 && deadline < spin_end)
			spin_end = deadline;
		while (!has_work(c)) {
			if (now_us() >= spin_end) {
				sleep_wait(c, deadline);
				break;
			}
			fdma_cpu_relax();
		}
		return;
	case FDMA_WAIT_SLEEP:
	default:
		sleep_wait(c, deadline);
		return;
	}
}

static int reap(struct fdma_dev *dev, int ch, struct fdma_cpl *cpls, unsigned int max,
		unsigned int min_wait, int64_t timeout_us)
{
	struct fdma_echan *c = &dev->sim->ch[ch];
	unsigned int n;
	int64_t deadline;

	if (c->fd_used)
		drain_efd(c);
	n = reap_some(dev, c, cpls, max);
	/* Even a reap that would not wait: nothing will ever complete there. */
	if (!n && c->broken)
		return fdma_err(dev, -EIO, "channel %d is broken: its reset was never acknowledged", ch);
	if (n >= min_wait)
		return (int)n;
	if (!fdma_ering_inflight(&c->ring) && !n)
		return fdma_err(dev, -EAGAIN, "fdma_reap: nothing in flight on channel %d", ch);
	deadline = timeout_us < 0 ? -1 : now_us() + timeout_us;
	for (;;) {
		wait_event(c, deadline);
		n += reap_some(dev, c, cpls + n, max - n);
		if (n >= min_wait)
			return (int)n;
		if (!fdma_ering_inflight(&c->ring))
			return (int)n;	/* everything handed back (e.g. canceled) */
		if (c->broken)
			return n ? (int)n : fdma_err(dev, -EIO,
				"channel %d is broken: its reset was never acknowledged", ch);
		if (deadline >= 0 && now_us() >= deadline)
			return n ? (int)n : fdma_err(dev, -ETIMEDOUT,
				"fdma_reap: no completion on channel %d within %lld us (stuck channel? fdma_chan_reset() recovers it)",
				ch, (long long)timeout_us);
	}
}

int fdma_echan_reap(struct fdma_dev *dev, int ch, struct fdma_cpl *cpls, unsigned int max,
		    unsigned int min_wait, int64_t timeout_us)
{
	struct fdma_echan *c = &dev->sim->ch[ch];
	int ret = reap(dev, ch, cpls, max, min_wait, timeout_us);

	/*
	 * The reap drained the fd. What it left behind raises no interrupt
	 * of its own: completions past max, and canceled requests still to
	 * hand back; so the fd says so. Not for the finished pieces of a
	 * request still running: no reap can take them, and the fd would
	 * spin until the request ends.
	 */
	if (c->fd_used && ((max && ret == (int)max && has_work(c)) || c->canceling))
		fdma_efd_signal(c->efd);
	return ret;
}

/* ---- settings ---------------------------------------------------------------- */

int fdma_echan_fd(struct fdma_dev *dev, int ch)
{
	struct fdma_echan *c = &dev->sim->ch[ch];

	c->fd_used = true;
	c->mode = FDMA_WAIT_SLEEP;
	set_irq(c, true);
	/*
	 * Completions that came while interrupts were off are never
	 * signalled: look after enabling them (set_irq() ends with the full
	 * barrier), as sleep_wait() does, and signal those ourselves.
	 */
	if (has_work(c))
		fdma_efd_signal(c->efd);
	return c->efd;
}

int fdma_echan_set_wait(struct fdma_dev *dev, int ch, enum fdma_wait_mode mode, unsigned int spin_us)
{
	struct fdma_echan *c = &dev->sim->ch[ch];

	c->mode = mode;
	if (spin_us)
		c->spin_us = spin_us;
	set_irq(c, mode == FDMA_WAIT_SLEEP || c->fd_used);
	return 0;
}

int fdma_echan_set_coalesce(struct fdma_dev *dev, int ch, unsigned int count, unsigned int usecs)
{
	struct fdma_echan *c = &dev->sim->ch[ch];

	c->coal_count = count;
	c->coal_usecs = usecs;
	fdma_ering_set_coalesce(&c->ring, count, usecs);
	return 0;
}

int fdma_echan_set_drop(struct fdma_dev *dev, int ch, int drop)
{
	struct fdma_echan *c = &dev->sim->ch[ch];

	/* XDMA always holds a frame back; only a test block in front of it drops. */
	if (drop && !dev->sim->caps.stream_drop)
		return fdma_err(dev, -EOPNOTSUPP,
				"%s drops no frames on channel %d: it holds the source back until a buffer is posted",
				dev->info.engine, ch);
	c->ctrl_flags = drop ? FDMA_CH_CTRL_DROP : 0;
	fdma_ering_set_ctrl(&c->ring, FDMA_CH_CTRL_DROP, c->ctrl_flags);
	return 0;
}

int fdma_echan_reset(struct fdma_dev *dev, int ch)
{
	struct fdma_echan *c = &dev->sim->ch[ch];

	if (c->canceling)
		return 0;
	c->broken = false;
	return chan_reset(dev, c);
}

int fdma_echan_set_testgen(struct fdma_dev *dev, int ch, uint32_t frame_len, uint32_t period_ns,
			  int enable)
{
	fdma_ering_set_testgen(&dev->sim->ch[ch].ring, frame_len, period_ns, enable);
	return 0;
}

int fdma_echan_testgen_counts(struct fdma_dev *dev, int ch, uint64_t *frames, uint64_t *errors)
{
	u32 f, e;

	fdma_ering_testgen_counts(&dev->sim->ch[ch].ring, &f, &e);
	*frames = f;
	*errors = e;
	return 0;
}

int fdma_echan_stats(struct fdma_dev *dev, int ch, struct fdma_chan_stats *st)
{
	struct fdma_echan *c = &dev->sim->ch[ch];

	st->bytes = STAT_GET(c, bytes);
	st->transfers = STAT_GET(c, transfers);
	st->completions = STAT_GET(c, completions);
	st->descriptors = STAT_GET(c, descriptors);
	st->doorbells = STAT_GET(c, doorbells);
	st->wakeups = STAT_GET(c, wakeups);
	st->errors = STAT_GET(c, errors);
	st->resets = STAT_GET(c, resets);
	st->irq_timeouts = STAT_GET(c, irq_timeouts);
	st->syscalls = STAT_GET(c, syscalls);
	st->interrupts = atomic_load_explicit(&c->irqs, memory_order_relaxed);
	/* The device's count of frames it dropped. */
	st->drops = fdma_ering_overruns(&c->ring);
	return 0;
}
