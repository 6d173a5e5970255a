// SPDX-License-Identifier: MIT
/*
 * FDMA engine model: one thread per channel plays the FPGA's channel logic
 * (fdma_model_stream.c: what its stream channels carry).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "fdma_model_priv.h"

/* The test block names the fault kinds without the model's header. */
_Static_assert(FDMA_MDBG_FAULT_DESC == FDMA_FAULT_DESC && FDMA_MDBG_FAULT_DATA == FDMA_FAULT_DATA &&
	       FDMA_MDBG_FAULT_STUCK == FDMA_FAULT_STUCK && FDMA_MDBG_FAULT_IRQ == FDMA_FAULT_IRQ &&
	       FDMA_MDBG_FAULT_NOACK == FDMA_FAULT_NOACK && FDMA_MDBG_FAULT_MAGIC == FDMA_FAULT_MAGIC, "fault kinds of fdma_mdbg.h");

/* ---- the bus-master gate ------------------------------------------------- */

/*
 * Every access to host memory, and every interrupt, happens inside
 * dma_begin()/dma_end(), which refuses it while CTRL.ENABLE is 0. The
 * count of threads inside (per channel, so that channels share no written
 * line) lets channel 0 report STATUS.BUSY = 0 only once none is left
 * (service_enable()): the users increment and the ENABLE load here,
 * against the host's ENABLE store and channel 0's ENABLE then users loads,
 * are ordered by seq_cst, so no access starts after BUSY drops.
 * count: an access was refused (the idle loop's look is not one).
 */
bool fm_engine_enabled(struct fdma_model *m)
{
	return __atomic_load_n(&m->regs[FDMA_REG_CTRL / 4], __ATOMIC_SEQ_CST) &
	       FDMA_CTRL_ENABLE;
}

static void mdbg_count(struct fdma_model *m, atomic_uint_fast64_t *ctr, u32 reg)
{
	gwr(m, reg, (u32)(atomic_fetch_add(ctr, 1) + 1));
}

static bool dma_begin(struct mchan *c, bool count)
{
	atomic_fetch_add(&c->dma_users, 1);
	if (fm_engine_enabled(c->m))
		return true;
	atomic_fetch_sub(&c->dma_users, 1);
	if (count)
		mdbg_count(c->m, &c->m->refused, FDMA_MDBG_REFUSED);
	return false;
}

static void dma_end(struct mchan *c)
{
	atomic_fetch_sub(&c->dma_users, 1);
}

static bool dma_any_user(struct fdma_model *m)
{
	for (unsigned int i = 0; i < m->nchan; i++)
		if (atomic_load(&m->chan[i].dma_users))
			return true;
	return false;
}

void fdma_model_cfg_defaults(struct fdma_model_cfg *c)
{
	memset(c, 0, sizeof(*c));
	fdma_link_defaults(&c->link);
	c->paced = true;
	c->mm_pairs = 1;
	c->streams = 1;
	c->stream_bytes = FDMA_BYTES_ALL;
	c->card_size = 1ull << 30;
	c->max_desc_len = 16u << 20;
	c->align_log2 = 6;
	c->ring_max = 4096;
	c->poll_us = FDMA_POLL_DEFAULT;
}

/* ---- status, write-back, interrupts ------------------------------------ */

void fm_publish_status(struct mchan *c)
{
	wr(c, FDMA_CH_STATUS, c->status);
	if (c->wb && dma_begin(c, true)) {
		__atomic_store_n(&c->wb->status, c->status, __ATOMIC_RELEASE);
		dma_end(c);
	}
}

static void raise_irq(struct mchan *c)
{
	/*
	 * The host enables IRQ_EN and then reads wb.cidx; we wrote wb.cidx and
	 * now read IRQ_EN. Each side's store must be visible before its load
	 * (see fdma_ering_set_irq()), hence the full fence.
	 */
	atomic_thread_fence(memory_order_seq_cst);
	c->unsig = 0;
	if (!(rd(c, FDMA_CH_CTRL) & FDMA_CH_CTRL_IRQ_EN))
		return;
	if (c->lose_irq) {
		c->lose_irq = false;
		return;
	}
	/* An MSI-X message is a memory write too. */
	if (!dma_begin(c, true))
		return;
	c->irqs++;
	wr(c, FDMA_CH_IRQS, c->irqs);
	if (c->wb)
		__atomic_store_n(&c->wb->irqs, c->irqs, __ATOMIC_RELAXED);
	c->m->host.irq(c->m->host.ctx, rd(c, FDMA_CH_IRQ_VEC));
	dma_end(c);
}

/* Apply the coalescing rule after one completion (docs/engine.md). */
void fm_coalesce(struct mchan *c, bool force)
{
	u32 count = rd(c, FDMA_CH_COAL_COUNT);

	/*
	 * The same Dekker as raise_irq()'s: the completion's wb.cidx store is
	 * visible before this IRQ_EN load, or the host, enabling IRQ_EN now,
	 * may read the old wb.cidx while we read IRQ_EN off, and sleep with
	 * the completion pending and no interrupt coming.
	 */
	atomic_thread_fence(memory_order_seq_cst);
	/* Completions while interrupts are off are never signalled later. */
	if (!(rd(c, FDMA_CH_CTRL) & FDMA_CH_CTRL_IRQ_EN)) {
		c->unsig = 0;
		return;
	}
	if (++c->unsig == 1)
		c->first_unsig_ns = now_ns();
	if (force || c->unsig >= (count ? count : 1))
		raise_irq(c);
}

static void coalesce_timer(struct mchan *c, bool ring_empty)
{
	u32 usecs;

	if (!c->unsig)
		return;
	usecs = rd(c, FDMA_CH_COAL_USECS);
	if (usecs) {
		if (now_ns() - c->first_unsig_ns >= (u64)usecs * 1000)
			raise_irq(c);
	} else if (ring_empty) {
		/* No timer: signal what is left when the ring drains. */
		raise_irq(c);
	}
}

void fm_write_cpl(struct mchan *c, const struct fdma_desc *d, u32 len, u16 status, u16 flags)
{
	struct fdma_cpl_rec *r = &c->cpl[c->cidx & (c->size - 1)];

	r->cookie = d ? d->cookie : 0;
	r->len = len;
	r->status = status;
	r->flags = flags;
	c->cidx++;
	/* Release: the record is visible before the index that covers it. */
	__atomic_store_n(&c->wb->cidx, c->cidx, __ATOMIC_RELEASE);
	wr(c, FDMA_CH_CIDX, c->cidx);
}

static u32 cpl_err_bit(u16 status)
{
	switch (status) {
	case FDMA_CPL_DESC_ERR:
		return FDMA_CH_ST_DESC_ERR;
	case FDMA_CPL_ADDR_ERR:
		return FDMA_CH_ST_ADDR_ERR;
	case FDMA_CPL_DATA_ERR:
		return FDMA_CH_ST_DATA_ERR;
	case FDMA_CPL_ALIGN_ERR:
		return FDMA_CH_ST_ALIGN_ERR;
	case FDMA_CPL_RANGE_ERR:
		return FDMA_CH_ST_RANGE_ERR;
	default:
		return FDMA_CH_ST_LEN_ERR;
	}
}

/* Complete the current descriptor with an error and stop the channel. */
void fm_halt(struct mchan *c, const struct fdma_desc *d, u16 status)
{
	/*
	 * The error record and cidx first, HALTED after (docs/engine.md): a
	 * host that sees HALTED has every completion the channel will write.
	 */
	wr(c, FDMA_CH_ERR_IDX, c->cidx);
	fm_write_cpl(c, d, 0, status, 0);
	c->halted = true;
	c->status = (c->status & ~FDMA_CH_ST_RUNNING) | FDMA_CH_ST_HALTED | cpl_err_bit(status);
	fm_publish_status(c);
	/* Errors interrupt whatever the coalescing. */
	c->unsig++;
	raise_irq(c);
}

/* ---- pacing ------------------------------------------------------------ */

static bool paced(struct fdma_model *m)
{
	switch (grd(m, FDMA_MDBG_PACE)) {
	case FDMA_MDBG_PACE_ON:
		return true;
	case FDMA_MDBG_PACE_OFF:
		return false;
	default:
		return m->cfg.paced;
	}
}

/*
 * Hold a transfer of len bytes for the link's time in this channel's
 * direction; returns when that ended (0 unpaced). A MEM2MEM piece crosses
 * the link both ways: its reads take downstream time (clk[0], as H2C),
 * its writes upstream time (clk[1], as C2H), the writes starting no
 * earlier than the reads (a piece's data is written as it arrives). Both
 * clocks advance, so copies compete with H2C and C2H channels for each
 * direction, and a lone copy runs at the slower direction's rate. Like concurrent H2C and C2H channels here, the read
 * requests' upstream bytes are not charged against the writes.
 */
u64 fm_pace(struct mchan *c, u32 len)
{
	struct fdma_model *m = c->m;
	u64 done;

	if (!paced(m))
		return 0;
	/* Back to back when the descriptor was waiting; else from when it arrived. */
	if (is_m2m(c)) {
		u64 cost_r = fdma_link_xfer_ns(&m->cfg.link, FDMA_LINK_H2C, len, c->was_empty);
		u64 cost_w = fdma_link_xfer_ns(&m->cfg.link, FDMA_LINK_C2H, len, false);
		u64 done_r = fdma_link_clock_reserve(&m->clk[0], c->avail_ns, cost_r);
		u64 done_w = fdma_link_clock_reserve(&m->clk[1], done_r - cost_r, cost_w);

		done = done_r > done_w ? done_r : done_w;
	} else {
		int dir = is_c2h(c) ? FDMA_LINK_C2H : FDMA_LINK_H2C;

		done = fdma_link_clock_reserve(&m->clk[dir], c->avail_ns,
			       fdma_link_xfer_ns(&m->cfg.link, dir, len, c->was_empty));
	}
	sleep_until(done);
	c->avail_ns = done;
	c->was_empty = false;
	return done;
}

/* ---- reset and control ------------------------------------------------- */

static void chan_reset(struct mchan *c)
{
	c->running = false;
	c->halted = false;
	c->stuck = false;
	c->stopped = false;
	c->rogue = false;
	c->cidx = 0;
	c->last_pidx = 0;
	c->unsig = 0;
	c->gen.in_frame = false;
	c->pending_overrun = false;
	c->chk.in_frame = false;
	/* The wire keeps whole frames; a frame half sent or half delivered is lost. */
	if (c->wire && !is_c2h(c))
		fdma_wire_abort(c->wire);
	if (c->wire && is_c2h(c) && c->w_in_frame) {
		fdma_wire_pop(c->wire);
		fdma_model_kick(c->m, c->peer);
	}
	c->w_in_frame = false;
	c->gen.seq = 0;
	c->chk.seq = 0;
	c->chk.frames = 0;
	c->chk.errors = 0;
	c->next_frame_ns = 0;
	c->tg_frames = 0;
	c->tg_errors = 0;
	c->status = FDMA_CH_ST_IDLE;
	/* Overruns and interrupts are free-running statistics: kept. */
	if (c->wb && dma_begin(c, true)) {
		__atomic_store_n(&c->wb->cidx, 0, __ATOMIC_RELEASE);
		dma_end(c);
	}
	wr(c, FDMA_CH_CIDX, 0);
	wr(c, FDMA_CH_ERR_IDX, 0);
	wr(c, FDMA_CH_TG_FRAMES, 0);
	wr(c, FDMA_CH_TG_ERRORS, 0);
	fm_publish_status(c);
	/*
	 * Forget the ring: after the acknowledgement the host may free it
	 * (docs/engine.md, section 11), and a later reset (say, the next
	 * driver's engine reset at probe) must not write there. RUN latches
	 * the ring again.
	 */
	c->ring = NULL;
	c->cpl = NULL;
	c->wb = NULL;
	c->size = 0;
}

static void latch_ring(struct mchan *c)
{
	struct fdma_model *m = c->m;
	u64 ring = rd(c, FDMA_CH_RING_LO) | (u64)rd(c, FDMA_CH_RING_HI) << 32;
	u64 cpl = rd(c, FDMA_CH_CPL_LO) | (u64)rd(c, FDMA_CH_CPL_HI) << 32;
	u64 wb = rd(c, FDMA_CH_WB_LO) | (u64)rd(c, FDMA_CH_WB_HI) << 32;
	u32 size = rd(c, FDMA_CH_RING_SIZE);

	c->running = true;
	c->was_empty = true;
	if (!size || (size & (size - 1)) || size > m->cfg.ring_max ||
	    (ring & 31) || (cpl & 15) || (wb & 63)) {
		c->size = 0;
		c->ring = NULL;
	} else {
		c->size = size;
		c->ring = m->host.dma(m->host.ctx, ring, (u64)size * sizeof(*c->ring));
	}
	c->cpl = c->size ? m->host.dma(m->host.ctx, cpl, (u64)size * sizeof(*c->cpl)) : NULL;
	c->wb = m->host.dma(m->host.ctx, wb, sizeof(*c->wb));
	c->status = FDMA_CH_ST_RUNNING | FDMA_CH_ST_IDLE;
	if (c->wb && dma_begin(c, true)) {
		/* A new block starts with the free-running counts, not zeros. */
		__atomic_store_n(&c->wb->overruns, c->overruns, __ATOMIC_RELAXED);
		__atomic_store_n(&c->wb->irqs, c->irqs, __ATOMIC_RELAXED);
		dma_end(c);
	}
	if (!c->cpl || !c->wb) {
		/* Nowhere to report: flag it in the register only. */
		c->halted = true;
		c->status |= FDMA_CH_ST_HALTED | FDMA_CH_ST_ADDR_ERR;
		wr(c, FDMA_CH_STATUS, c->status);
		return;
	}
	fm_publish_status(c);
}

static void global_reset(struct mchan *c, u32 req)
{
	struct fdma_model *m = c->m;

	chan_reset(c);
	atomic_store(&c->greset_seen, req);
	if (c->ch != 0)
		return;
	for (unsigned int i = 1; i < m->nchan; i++)
		fdma_model_kick(m, i);
	for (unsigned int i = 1; i < m->nchan; i++)
		while (atomic_load(&m->chan[i].greset_seen) != req &&
		       !atomic_load(&m->quit))
			sleep_until(now_ns() + 10000);
	gwr(m, FDMA_REG_RESET_ACK, req);
}

/*
 * Channel 0 keeps STATUS.BUSY: set while ENABLE is 1, cleared once ENABLE
 * is 0 and no thread is inside the bus-master gate (see dma_begin()).
 */
static void service_enable(struct fdma_model *m)
{
	u32 st = grd(m, FDMA_REG_STATUS);

	if (fm_engine_enabled(m)) {
		if (!(st & FDMA_STATUS_BUSY))
			gwr(m, FDMA_REG_STATUS, st | FDMA_STATUS_BUSY);
		return;
	}
	if (!(st & FDMA_STATUS_BUSY))
		return;
	while (dma_any_user(m) && !atomic_load(&m->quit))
		sleep_until(now_ns() + 10000);
	gwr(m, FDMA_REG_STATUS, st & ~FDMA_STATUS_BUSY);
}

static void mdbg_check(struct fdma_model *m);

/* Look at TG_CTRL (this thread or a host's kick): count a rise from 0 to 1; returns it. */
static bool tg_look(struct mchan *c)
{
	bool on;

	pthread_mutex_lock(&c->tg_lock);
	on = rd(c, FDMA_CH_TG_CTRL) & 1;
	if (on && !c->tg_on)
		atomic_fetch_add(&c->tg_starts, 1);
	c->tg_on = on;
	pthread_mutex_unlock(&c->tg_lock);
	return on;
}

/*
 * Is the generator or checker on? This channel's thread asks here, never
 * the register itself, so that what it does follows the look that
 * counted a rise. A rise (here or at a kick) restarts the frame numbers
 * from 0 with a fresh schedule (docs/engine.md section 14); a frame being
 * sent keeps its number.
 */
bool fm_tg_on(struct mchan *c)
{
	bool on = tg_look(c);
	unsigned int starts = atomic_load(&c->tg_starts);

	if (starts != c->tg_starts_seen) {
		c->tg_starts_seen = starts;
		c->gen.seq = 0;
		c->next_frame_ns = 0;
		c->chk.seq = 0;
		c->chk.in_frame = false;
	}
	return on;
}

static void service_control(struct mchan *c)
{
	u32 greq = grd(c->m, FDMA_REG_RESET_REQ);
	u32 req = rd(c, FDMA_CH_RESET_REQ);
	u32 w1c, ctrl;

	mdbg_check(c->m);
	if (greq != atomic_load(&c->greset_seen))
		global_reset(c, greq);
	if (c->ch == 0)
		service_enable(c->m);
	/* A NOACK channel ignores everything but an engine reset. */
	if (c->rogue)
		return;
	if (req != c->reset_seen) {
		chan_reset(c);
		c->reset_seen = req;
		wr(c, FDMA_CH_RESET_ACK, req);
	}
	w1c = rd(c, FDMA_CH_STATUS_W1C);
	if (w1c) {
		/* A strobe: apply it and clear it (the one device write to a host register). */
		c->status &= ~(w1c & FDMA_CH_ST_ERR_MASK);
		wr(c, FDMA_CH_STATUS_W1C, 0);
		fm_publish_status(c);
	}
	fm_tg_on(c);
	ctrl = rd(c, FDMA_CH_CTRL);
	if ((ctrl & FDMA_CH_CTRL_RUN) && !c->running && !c->halted)
		latch_ring(c);
	else if (!(ctrl & FDMA_CH_CTRL_RUN) && c->running) {
		c->running = false;
		c->status &= ~FDMA_CH_ST_RUNNING;
		fm_publish_status(c);
	}
}

/* ---- data movement --------------------------------------------------------- */

/* Take a fault armed through the test block, if there is a new one. */
static void mdbg_check(struct fdma_model *m)
{
	u32 req = grd(m, FDMA_MDBG_FAULT_REQ);

	if (req == atomic_load(&m->mdbg_seen))
		return;
	pthread_mutex_lock(&m->mdbg_lock);
	if (req != atomic_load(&m->mdbg_seen)) {
		u32 kind = grd(m, FDMA_MDBG_FAULT_KIND);
		u32 ch = grd(m, FDMA_MDBG_FAULT_CHAN);
		u32 at = grd(m, FDMA_MDBG_FAULT_AT);

		/* A request that names no channel or kind disarms nothing and arms nothing. */
		if (ch < m->nchan && kind < FDMA_FAULT_KINDS) {
			struct mchan *c = &m->chan[ch];

			atomic_store(&c->arm_kind, FDMA_FAULT_NONE);
			atomic_store(&c->arm_left, at ? at : 1);
			atomic_store(&c->arm_kind, kind);
		}
		atomic_store(&m->mdbg_seen, req);
		gwr(m, FDMA_MDBG_FAULT_ACK, req);
	}
	pthread_mutex_unlock(&m->mdbg_lock);
}

/* Count one descriptor fetch and fire the configured or armed fault when it is due. */
static enum fdma_fault fault_due(struct mchan *c)
{
	struct fdma_model *m = c->m;
	/* A device-wide count only while a configured fault waits: it is a shared line. */
	u64 n = m->cfg.fault != FDMA_FAULT_NONE ? atomic_fetch_add(&m->desc_count, 1) + 1 : 0;
	enum fdma_fault f = FDMA_FAULT_NONE;

	mdbg_check(m);
	if (atomic_load(&c->arm_kind) != FDMA_FAULT_NONE &&
	    atomic_fetch_sub(&c->arm_left, 1) == 1)
		f = atomic_exchange(&c->arm_kind, FDMA_FAULT_NONE);
	else if (m->cfg.fault != FDMA_FAULT_NONE && n == m->cfg.fault_at)
		f = m->cfg.fault;
	if (f != FDMA_FAULT_NONE)
		mdbg_count(m, &m->faults, FDMA_MDBG_FAULTS);
	return f;
}

static bool aligned(u64 v, u32 align_log2)
{
	return !(v & ((1ull << align_log2) - 1));
}

/*
 * Common checks; returns FDMA_CPL_OK and the host pointer (MEM2MEM: the
 * source, and the destination in *dst), or an error status.
 */
static u16 check_desc(struct mchan *c, const struct fdma_desc *d, void **host, void **dst)
{
	struct fdma_model *m = c->m;
	bool c2h = is_c2h(c);

	if (is_m2m(c)) {
		if (d->len == 0 || d->len > m->cfg.max_desc_len)
			return FDMA_CPL_LEN_ERR;
		if (!aligned(d->src, m->cfg.align_log2) || !aligned(d->dst, m->cfg.align_log2) ||
		    !aligned(d->len, m->cfg.align_log2))
			return FDMA_CPL_ALIGN_ERR;
		*host = m->host.dma(m->host.ctx, d->src, d->len);
		*dst = m->host.dma(m->host.ctx, d->dst, d->len);
		return *host && *dst ? FDMA_CPL_OK : FDMA_CPL_ADDR_ERR;
	}
	u64 hbus = c2h ? d->dst : d->src;
	u64 card = c2h ? d->src : d->dst;
	/* 1.3 STREAM_BYTES: a stream descriptor is bytes at any address; H2C_BYTES: H2C's alone. */
	bool bytes = is_stream(c) && (m->cfg.stream_bytes == FDMA_BYTES_ALL ||
				      (m->cfg.stream_bytes == FDMA_BYTES_H2C && !c2h));
	u32 align_log2 = bytes ? 0 : m->cfg.align_log2;

	if (d->len == 0 || d->len > m->cfg.max_desc_len)
		return FDMA_CPL_LEN_ERR;
	if (!aligned(hbus, align_log2) || !aligned(d->len, align_log2) ||
	    (!is_stream(c) && !aligned(card, align_log2)))
		return FDMA_CPL_ALIGN_ERR;
	if (!is_stream(c) && (card > m->cfg.card_size || d->len > m->cfg.card_size - card))
		return FDMA_CPL_RANGE_ERR;
	*host = m->host.dma(m->host.ctx, hbus, d->len);
	if (!*host)
		return FDMA_CPL_ADDR_ERR;
	return FDMA_CPL_OK;
}

/*
 * Fetch and check descriptor cidx, applying the fault due on it. Returns
 * false if the channel stopped (stuck, or halted on an error).
 */
bool fm_fetch_desc(struct mchan *c, struct fdma_desc *d, void **host, void **dst,
		   enum fdma_fault *f)
{
	u16 st;

	*f = fault_due(c);
	if (*f == FDMA_FAULT_STUCK || *f == FDMA_FAULT_NOACK)
		c->stuck = true;
	if (*f == FDMA_FAULT_NOACK)
		c->rogue = true;
	if (c->stuck)
		return false;
	/* A host that does not say it knows the kind gets nothing written (CH_CTRL.M2M). */
	if (!c->ring || *f == FDMA_FAULT_DESC || *f == FDMA_FAULT_MAGIC ||
	    (is_m2m(c) && !(rd(c, FDMA_CH_CTRL) & FDMA_CH_CTRL_M2M))) {
		fm_halt(c, NULL, FDMA_CPL_DESC_ERR);
		return false;
	}
	if (*f == FDMA_FAULT_IRQ)
		c->lose_irq = true;
	*d = c->ring[c->cidx & (c->size - 1)];
	st = check_desc(c, d, host, dst);
	if (st != FDMA_CPL_OK) {
		fm_halt(c, d, st);
		return false;
	}
	return true;
}

/*
 * One descriptor of a memory-mapped, MEM2MEM or H2C stream channel.
 * Returns false if the channel stopped (error, stuck or STOP).
 */
static bool run_desc(struct mchan *c)
{
	struct fdma_model *m = c->m;
	enum fdma_fault f;
	struct fdma_desc d;
	void *host = NULL, *dst = NULL;

	if (!fm_fetch_desc(c, &d, &host, &dst, &f))
		return false;
	if (is_stream(c) && c->wire) {
		/*
		 * Store and forward: the bytes go on the wire once they have
		 * crossed the link, with when they did, which is when the other
		 * end may start on them (fdma_wire_put()).
		 */
		fm_wire_send(c, host, d.len, d.ctrl, fm_pace(c, d.len));
	} else {
		/* The host's rule keeps src and dst apart; memmove keeps the model defined anyway. */
		if (is_m2m(c))
			memmove(dst, host, d.len);
		else if (is_stream(c))
			fm_checker_feed(c, host, d.len, d.ctrl);
		else if (is_c2h(c))
			memcpy(host, m->card + d.src, d.len);
		else
			memcpy(m->card + d.dst, host, d.len);
		fm_pace(c, d.len);
	}
	if (f == FDMA_FAULT_DATA) {
		fm_halt(c, &d, FDMA_CPL_DATA_ERR);
		return false;
	}
	fm_write_cpl(c, &d, d.len, FDMA_CPL_OK, 0);
	fm_coalesce(c, d.ctrl & FDMA_DESC_IRQ);
	if (d.ctrl & FDMA_DESC_STOP) {
		c->stopped = true;
		c->status |= FDMA_CH_ST_STOPPED;
		fm_publish_status(c);
		return false;
	}
	return true;
}

/* Work through posted descriptors. Returns how many were handled. */
static u32 process(struct mchan *c, u64 *deadline)
{
	u32 pidx = rd(c, FDMA_CH_PIDX), n = 0;

	if (pidx != c->last_pidx) {
		/* A new doorbell resumes a channel stopped by a STOP descriptor. */
		c->last_pidx = pidx;
		if (c->stopped) {
			c->stopped = false;
			c->status &= ~FDMA_CH_ST_STOPPED;
		}
	}
	if (c->stopped || c->stuck)
		return 0;
	/*
	 * A channel that had run dry has no descriptor until it fetches one: a
	 * read round trip after the doorbell (a busy channel's next ones are
	 * fetched while it works, so only this one shows).
	 */
	if (c->was_empty && pidx != c->cidx)
		c->avail_ns = now_ns() + fdma_link_fetch_ns(&c->m->cfg.link);
	if (is_stream(c) && is_c2h(c)) {
		n = c->wire ? fm_run_wire_rx(c, pidx, deadline) : fm_run_generator(c, pidx, deadline);
	} else {
		/* A disabled engine stops at the next descriptor; a full wire, until it drains. */
		while (c->cidx != pidx && n < BUDGET && fm_engine_enabled(c->m) &&
		       !(c->wire && fm_wire_blocked(c)) && run_desc(c))
			n++;
	}
	c->was_empty = rd(c, FDMA_CH_PIDX) == c->cidx;
	if (c->was_empty != !!(c->status & FDMA_CH_ST_IDLE)) {
		c->status ^= FDMA_CH_ST_IDLE;
		fm_publish_status(c);
	}
	return n;
}

/* ---- channel thread ------------------------------------------------------- */

/*
 * A channel with a NOACK fault: a device gone wrong that keeps writing the
 * completion ring and write-back block it was given, whatever the host
 * asks, until the engine is disabled. Returns when to write next.
 */
static u64 rogue_write(struct mchan *c)
{
	if (c->cpl && c->wb && dma_begin(c, true)) {
		struct fdma_cpl_rec *r = &c->cpl[c->cidx & (c->size - 1)];

		r->cookie = 0x0bad0bad0bad0badull;
		r->len = 0;
		r->status = FDMA_CPL_DESC_ERR;
		r->flags = 0;
		__atomic_store_n(&c->wb->status, c->status | FDMA_CH_ST_RUNNING,
				 __ATOMIC_RELEASE);
		__atomic_store_n(&c->wb->cidx, c->cidx, __ATOMIC_RELEASE);
		dma_end(c);
		mdbg_count(c->m, &c->m->rogue_writes, FDMA_MDBG_ROGUE_WRITES);
	}
	return now_ns() + ROGUE_PERIOD_NS;
}

static void chan_sleep(struct mchan *c, u64 deadline)
{
	pthread_mutex_lock(&c->lock);
	/*
	 * Dekker with fdma_model_kick(): we store sleeping then load kicked,
	 * the host stores kicked then loads sleeping (both seq_cst), so at
	 * least one side sees the other and no kick is lost. The explicit
	 * fence between the store and the load, not the seq_cst accesses
	 * alone: under QEMU's user-mode arm64 on an x86 host, a bare
	 * store-release then load-acquire pair lost a kick in about one run
	 * in four of fdma loop (the load passed the store); with the fence,
	 * none in 55.
	 */
	atomic_store(&c->sleeping, 1);
	atomic_thread_fence(memory_order_seq_cst);
	if (!atomic_load(&c->kicked) && !atomic_load(&c->m->quit)) {
		if (deadline == UINT64_MAX) {
			pthread_cond_wait(&c->cond, &c->lock);
		} else {
			struct timespec ts = {
				.tv_sec = (time_t)(deadline / 1000000000ull),
				.tv_nsec = (long)(deadline % 1000000000ull) };

			pthread_cond_timedwait(&c->cond, &c->lock, &ts);
		}
	}
	atomic_store(&c->sleeping, 0);
	pthread_mutex_unlock(&c->lock);
}

static void *chan_main(void *arg)
{
	struct mchan *c = arg;
	u64 idle_since = now_ns();

	while (!atomic_load(&c->m->quit)) {
		u64 deadline = UINT64_MAX, now;
		u32 n = 0;

		/* Clear the kick before reading registers: a later kick means new writes. */
		atomic_store(&c->kicked, 0);
		service_control(c);
		if (!c->rogue && c->running && !c->halted && dma_begin(c, false)) {
			n = process(c, &deadline);
			dma_end(c);
		}
		/* Gone wrong now or before: it writes on, on its own clock. */
		if (c->rogue)
			deadline = rogue_write(c);
		if (c->running && c->wb && !c->rogue)
			coalesce_timer(c, c->was_empty);
		now = now_ns();
		if (n) {
			idle_since = now;
			continue;
		}
		if (c->unsig) {
			u32 usecs = rd(c, FDMA_CH_COAL_USECS);
			u64 t = c->first_unsig_ns + (u64)usecs * 1000;

			if (usecs && t < deadline)
				deadline = t;
		}
		if (deadline <= now)
			continue;
		/*
		 * Polling the doorbell, as an engine does, but yielding: where
		 * the host's threads outnumber the cores (2 here), a thread the
		 * host woke would otherwise wait out our time slice, and every
		 * hand-off of a frame could cost one (docs/studies/net.md).
		 */
		if (now - idle_since < c->m->poll_ns) {
			sched_yield();
			continue;
		}
		chan_sleep(c, deadline);
	}
	return NULL;
}

void fdma_model_kick(struct fdma_model *m, unsigned int ch)
{
	struct mchan *c;

	if (ch >= m->nchan)
		return;
	c = &m->chan[ch];
	/* The host kicks after its writes: a generator turned off and on is seen here. */
	tg_look(c);
	atomic_store(&c->kicked, 1);
	atomic_thread_fence(memory_order_seq_cst);	/* see chan_sleep() */
	if (atomic_load(&c->sleeping)) {
		pthread_mutex_lock(&c->lock);
		pthread_cond_signal(&c->cond);
		pthread_mutex_unlock(&c->lock);
	}
}

/* ---- construction ------------------------------------------------------------ */

unsigned int fdma_model_nchan(const struct fdma_model *m)
{
	return m->nchan;
}

static void init_regs(struct fdma_model *m)
{
	static const u32 caps_bytes[] = {
		[FDMA_BYTES_NONE] = 0,
		[FDMA_BYTES_ALL] = FDMA_CAPS_STREAM_BYTES,
		[FDMA_BYTES_H2C] = FDMA_CAPS_H2C_BYTES,
	};
	const struct fdma_model_cfg *cfg = &m->cfg;

	gwr(m, FDMA_REG_ID, FDMA_ID_MAGIC);
	gwr(m, FDMA_REG_VERSION, FDMA_VERSION_MAJOR << 16 | FDMA_VERSION_MINOR);
	gwr(m, FDMA_REG_CAPS, FDMA_CAPS_MAKE(m->nchan, cfg->align_log2) |
			      FDMA_CAPS_COALESCE | (cfg->streams && !cfg->loop ? FDMA_CAPS_TESTGEN : 0) |
			      (cfg->memcpy_chans ? FDMA_CAPS_MEM2MEM : 0) |
			      (cfg->streams ? caps_bytes[cfg->stream_bytes] : 0));
	gwr(m, FDMA_REG_MAX_DESC_LEN, cfg->max_desc_len);
	gwr(m, FDMA_REG_CARD_SIZE_LO, (u32)cfg->card_size);
	gwr(m, FDMA_REG_CARD_SIZE_HI, (u32)(cfg->card_size >> 32));
	gwr(m, FDMA_REG_RING_MAX, cfg->ring_max);
	gwr(m, FDMA_REG_STATUS, FDMA_STATUS_READY);
	gwr(m, FDMA_MDBG_MAGIC, FDMA_MDBG_MAGIC_VAL);
	for (unsigned int i = 0; i < m->nchan; i++) {
		u32 caps = m->chan[i].caps;

		gwr(m, FDMA_CH_BASE(i) + FDMA_CH_CAPS, caps);
		gwr(m, FDMA_CH_BASE(i) + FDMA_CH_STATUS, FDMA_CH_ST_IDLE);
		gwr(m, FDMA_CH_BASE(i) + FDMA_CH_IRQ_VEC, i);
	}
}

int fdma_model_create(const struct fdma_model_cfg *cfg, volatile uint32_t *regs,
		      const struct fdma_model_host *host, struct fdma_model **mp)
{
	struct fdma_model *m;
	pthread_condattr_t ca;
	unsigned int n_mm_st = cfg->mm_pairs * 2 + cfg->streams * 2;
	unsigned int n = n_mm_st + cfg->memcpy_chans, i;
	int ret = 0;

	*mp = NULL;
	if (n == 0 || n > FDMA_MAX_CHANNELS || cfg->streams > FDMA_MAX_CHANNELS / 2 ||
	    cfg->align_log2 > 12 ||
	    !cfg->max_desc_len || cfg->ring_max < 2 || (cfg->ring_max & (cfg->ring_max - 1)))
		return -EINVAL;
	/* The channels are cache-line aligned: so must the whole be. */
	m = aligned_alloc(_Alignof(struct fdma_model), sizeof(*m));
	if (m)
		memset(m, 0, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->cfg = *cfg;
	m->poll_ns = fdma_mpoll_ns(cfg, POLL_US);
	m->host = *host;
	m->regs = regs;
	m->nchan = n;
	if (cfg->card_size) {
		/* Sparse: untouched card memory costs no RAM. */
		m->card = mmap(NULL, cfg->card_size, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (m->card == MAP_FAILED) {
			free(m);
			return -ENOMEM;
		}
	}
	for (i = 0; i < 2; i++)
		pthread_mutex_init(&m->clk[i].lock, NULL);
	pthread_mutex_init(&m->mdbg_lock, NULL);
	for (i = 0; i < n; i++) {
		struct mchan *c = &m->chan[i];

		c->m = m;
		c->ch = i;
		c->base = FDMA_CH_BASE(i);
		if (i < cfg->mm_pairs * 2)
			c->caps = (i & 1) ? FDMA_CH_CAP_C2H : 0;
		else if (i >= n_mm_st)
			c->caps = FDMA_CH_CAP_MEM2MEM;
		else
			c->caps = FDMA_CH_CAP_STREAM | (cfg->loop ? 0 : FDMA_CH_CAP_TESTGEN) |
				  ((i - cfg->mm_pairs * 2) % 2 ? 0 : FDMA_CH_CAP_C2H);
		c->status = FDMA_CH_ST_IDLE;
		pthread_mutex_init(&c->lock, NULL);
		pthread_mutex_init(&c->tg_lock, NULL);
		/* Deadlines are CLOCK_MONOTONIC, like every other time here. */
		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&c->cond, &ca);
		pthread_condattr_destroy(&ca);
	}
	/* Pair k is channels s0 + 2k (C2H) and s0 + 2k + 1 (H2C); wire k carries pair k's H2C. */
	for (i = 0; cfg->loop && i < cfg->streams && !ret; i++) {
		unsigned int s0 = cfg->mm_pairs * 2, to = (i ^ 1) < cfg->streams ? i ^ 1 : i;

		/* 4 MiB: a few hundred jumbo frames, or one large one, in flight. */
		ret = fdma_wire_init(&m->wires[i], 4u << 20, 1024, cfg->wire_mbps);
		m->chan[s0 + 2 * i + 1].wire = &m->wires[i];
		m->chan[s0 + 2 * i + 1].peer = s0 + 2 * to;
		m->chan[s0 + 2 * to].wire = &m->wires[i];
		m->chan[s0 + 2 * to].peer = s0 + 2 * i + 1;
	}
	init_regs(m);
	for (i = 0; i < n && !ret; i++) {
		struct mchan *c = &m->chan[i];

		ret = fdma_mthread_start(&c->thread, &cfg->cpus, chan_main, c);
		if (ret)
			break;
		c->started = true;
		if (pthread_getcpuclockid(c->thread, &c->cpuclock))
			c->cpuclock = (clockid_t)-1;
	}
	if (ret) {
		fdma_model_destroy(m);
		return ret;
	}
	*mp = m;
	return 0;
}

void fdma_model_destroy(struct fdma_model *m)
{
	unsigned int i;

	if (!m)
		return;
	atomic_store(&m->quit, true);
	for (i = 0; i < m->nchan; i++) {
		if (m->chan[i].started) {
			fdma_model_kick(m, i);
			pthread_join(m->chan[i].thread, NULL);
		}
	}
	for (i = 0; i < m->nchan; i++) {
		pthread_mutex_destroy(&m->chan[i].lock);
		pthread_mutex_destroy(&m->chan[i].tg_lock);
		pthread_cond_destroy(&m->chan[i].cond);
		fdma_tgen_free(&m->chan[i].gen);
	}
	for (i = 0; i < FDMA_MAX_CHANNELS / 2; i++)
		fdma_wire_free(&m->wires[i]);
	for (i = 0; i < 2; i++)
		pthread_mutex_destroy(&m->clk[i].lock);
	pthread_mutex_destroy(&m->mdbg_lock);
	if (m->card)
		munmap(m->card, m->cfg.card_size);
	free(m);
}

void fdma_model_counts(struct fdma_model *m, struct fdma_model_counts *out)
{
	out->faults = atomic_load(&m->faults);
	out->refused = atomic_load(&m->refused);
	out->rogue_writes = atomic_load(&m->rogue_writes);
}

double fdma_model_cpu_seconds(struct fdma_model *m)
{
	double s = 0;

	for (unsigned int i = 0; i < m->nchan; i++) {
		struct timespec ts;

		if (m->chan[i].started && m->chan[i].cpuclock != (clockid_t)-1 &&
		    !clock_gettime(m->chan[i].cpuclock, &ts))
			s += ts.tv_sec + ts.tv_nsec * 1e-9;
	}
	return s;
}
