// SPDX-License-Identifier: MIT
/*
 * The FDMA engine (docs/engine.md): rings, descriptors, doorbells,
 * completion reaping, coalescing and recovery, behind struct
 * fdma_eng_ops. See fdma_engine.h for the platform contract.
 */
#include "fdma_engine.h"

static void ch_wr(struct fdma_ering *r, u32 off, u32 val)
{
	fdma_plat_wr32(r->plat, r->reg + off, val);
}

/*
 * CH_CTRL is written from two kinds of caller: its owner, serialised (the
 * channel layer under its lock, or a network interface with NAPI off),
 * which changes RUN, DROP and M2M; and the interrupt mask, flipped by a
 * network interface's hard interrupt and its NAPI without any lock. The
 * mask is kept apart (r->irq_en) and each write composes the register
 * from both, so that no read-modify-write of one undoes the other's bits.
 */
static void fd_ctrl_wr(struct fdma_ering *r)
{
	ch_wr(r, FDMA_CH_CTRL, r->ctrl | r->irq_en);
}

static bool is_pow2(u32 v)
{
	return v && !(v & (v - 1));
}

static int fd_probe(struct fdma_plat *p, struct fdma_eng_caps *caps)
{
	u32 caps_reg, ch, align_log2;

	if (fdma_plat_rd32(p, FDMA_REG_ID) != FDMA_ID_MAGIC)
		return -ENODEV;
	caps->version = fdma_plat_rd32(p, FDMA_REG_VERSION);
	if ((caps->version >> 16) != FDMA_VERSION_MAJOR)
		return -EPROTO;
	caps_reg = fdma_plat_rd32(p, FDMA_REG_CAPS);
	caps->nchan = FDMA_CAPS_NCHAN(caps_reg);
	align_log2 = FDMA_CAPS_ALIGN_LOG2(caps_reg);
	if (caps->nchan > FDMA_MAX_CHANNELS || align_log2 > 12)
		return -EPROTO;
	caps->align = 1u << align_log2;
	caps->coalesce = !!(caps_reg & FDMA_CAPS_COALESCE);
	caps->testgen = !!(caps_reg & FDMA_CAPS_TESTGEN);
	caps->mem2mem = !!(caps_reg & FDMA_CAPS_MEM2MEM);
	/* STREAM_BYTES: both directions; H2C_BYTES: C2H buffers stay aligned */
	caps->stream_bytes = !!(caps_reg & (FDMA_CAPS_STREAM_BYTES | FDMA_CAPS_H2C_BYTES));
	caps->max_desc_len = fdma_plat_rd32(p, FDMA_REG_MAX_DESC_LEN);
	/* Keep split pieces aligned: round the advertised maximum down. */
	caps->max_desc_len &= ~(caps->align - 1);
	if (!caps->max_desc_len)
		return -EPROTO;
	caps->ring_max = fdma_plat_rd32(p, FDMA_REG_RING_MAX);
	if (!is_pow2(caps->ring_max) || caps->ring_max < 2)
		return -EPROTO;
	caps->card_size = fdma_plat_rd32(p, FDMA_REG_CARD_SIZE_LO) |
			  (u64)fdma_plat_rd32(p, FDMA_REG_CARD_SIZE_HI) << 32;
	for (ch = 0; ch < FDMA_MAX_CHANNELS; ch++) {
		caps->chan_caps[ch] = ch < caps->nchan ?
			fdma_plat_rd32(p, FDMA_CH_BASE(ch) + FDMA_CH_CAPS) : 0;
		caps->hw_chan[ch] = ch;
	}
	caps->coal_timer = caps->coalesce;
	caps->coal_emulated = false;
	caps->overrun_flag = true;
	caps->stream_drop = true;
	caps->c2h_stream_len = caps_reg & FDMA_CAPS_STREAM_BYTES ? 0 : caps->align;
	caps->c2h_stream_addr = caps->c2h_stream_len;
	caps->poll_wb = false;
	caps->user_irqs = 0;
	return 0;
}

/* Wait for a device-written acknowledgement register to reach seq. */
static int wait_ack(struct fdma_plat *p, u32 off, u32 seq, u32 timeout_us)
{
	return fdma_plat_poll32(p, off, ~0u, seq, timeout_us);
}

static int fd_reset(struct fdma_plat *p, const struct fdma_eng_caps *caps, u32 timeout_us)
{
	u32 seq = fdma_plat_rd32(p, FDMA_REG_RESET_REQ) + 1;

	(void)caps;
	/* From the register, not caps: a reset may come before anything else is known. */
	u32 nchan = FDMA_CAPS_NCHAN(fdma_plat_rd32(p, FDMA_REG_CAPS)), ch;
	int ret;

	if (nchan > FDMA_MAX_CHANNELS)
		nchan = FDMA_MAX_CHANNELS;
	/*
	 * Clear RUN first: a channel still marked running would restart
	 * straight after the reset on a stale ring (e.g. left by a crashed
	 * driver) and write memory nobody owns any more.
	 */
	for (ch = 0; ch < nchan; ch++)
		fdma_plat_wr32(p, FDMA_CH_BASE(ch) + FDMA_CH_CTRL, 0);
	fdma_wmb();
	fdma_plat_wr32(p, FDMA_REG_RESET_REQ, seq);
	fdma_plat_kick(p, 0);
	ret = wait_ack(p, FDMA_REG_RESET_ACK, seq, timeout_us);
	if (ret)
		return ret;
	for (ch = 0; ch < nchan; ch++)
		fdma_plat_wr32(p, FDMA_CH_BASE(ch) + FDMA_CH_PIDX, 0);
	return 0;
}

static void fd_enable(struct fdma_plat *p, const struct fdma_eng_caps *caps, bool on)
{
	(void)caps;
	fdma_plat_wr32(p, FDMA_REG_CTRL, on ? FDMA_CTRL_ENABLE : 0);
	fdma_plat_kick(p, 0);
}

static int fd_quiesce(struct fdma_plat *p, const struct fdma_eng_caps *caps,
		      u32 timeout_us)
{
	fd_enable(p, caps, false);
	/*
	 * Every read of a register is also a flush: its completion cannot
	 * pass the engine's earlier posted writes (PCIe ordering), and the
	 * engine saw ENABLE = 0 before it answered. A 1.0 engine says no
	 * more than that; a 1.1 engine also says when requests it issued
	 * earlier (reads of host memory among them) are all done.
	 */
	if ((caps->version & 0xffff) < 1) {
		fdma_plat_rd32(p, FDMA_REG_STATUS);
		return 0;
	}
	return fdma_plat_poll32(p, FDMA_REG_STATUS, FDMA_STATUS_BUSY, 0,
				timeout_us);
}

static int fd_ring_init(struct fdma_ering *r, const struct fdma_eng_caps *caps)
{
	(void)caps;
	r->reg = FDMA_CH_BASE(r->ch);
	r->fd = r->desc;
	r->cpl = r->rec;
	r->wb = r->wbp;
	r->irq_en = 0;
	r->reset_seq = fdma_plat_rd32(r->plat, r->reg + FDMA_CH_RESET_REQ);
	return 0;
}

static void fd_start(struct fdma_ering *r, u32 ctrl_flags, u32 irq_vec)
{
	ch_wr(r, FDMA_CH_RING_LO, (u32)r->desc_bus);
	ch_wr(r, FDMA_CH_RING_HI, (u32)(r->desc_bus >> 32));
	ch_wr(r, FDMA_CH_RING_SIZE, r->size);
	ch_wr(r, FDMA_CH_CPL_LO, (u32)r->rec_bus);
	ch_wr(r, FDMA_CH_CPL_HI, (u32)(r->rec_bus >> 32));
	ch_wr(r, FDMA_CH_WB_LO, (u32)r->wb_bus);
	ch_wr(r, FDMA_CH_WB_HI, (u32)(r->wb_bus >> 32));
	ch_wr(r, FDMA_CH_IRQ_VEC, irq_vec);
	ch_wr(r, FDMA_CH_PIDX, r->pidx);
	r->pidx_pub = r->pidx;
	r->irq_en = ctrl_flags & FDMA_CH_CTRL_IRQ_EN;
	r->ctrl = FDMA_CH_CTRL_RUN | (ctrl_flags & ~FDMA_CH_CTRL_IRQ_EN);
	/* Say we know the channel is memory-to-memory (FDMA_CH_CTRL_M2M). */
	if (r->caps & FDMA_CH_CAP_MEM2MEM)
		r->ctrl |= FDMA_CH_CTRL_M2M;
	/* The device latches the ring registers when it sees RUN: order them first. */
	fdma_wmb();
	fd_ctrl_wr(r);
	fdma_plat_kick(r->plat, r->ch);
}

static void fd_stop(struct fdma_ering *r)
{
	r->ctrl &= ~FDMA_CH_CTRL_RUN;
	fd_ctrl_wr(r);
	fdma_plat_kick(r->plat, r->ch);
}

static void fd_set_coalesce(struct fdma_ering *r, u32 count, u32 usecs)
{
	ch_wr(r, FDMA_CH_COAL_COUNT, count);
	ch_wr(r, FDMA_CH_COAL_USECS, usecs);
	fdma_plat_kick(r->plat, r->ch);
}

static void fd_set_testgen(struct fdma_ering *r, u32 frame_len, u32 period_ns, bool enable)
{
	ch_wr(r, FDMA_CH_TG_FRAME_LEN, frame_len);
	ch_wr(r, FDMA_CH_TG_PERIOD_NS, period_ns);
	ch_wr(r, FDMA_CH_TG_CTRL, enable ? 1 : 0);
	fdma_plat_kick(r->plat, r->ch);
}

static void fd_testgen_counts(const struct fdma_ering *r, u32 *frames, u32 *errors)
{
	/* Slow-path register reads: counters the device keeps. */
	*frames = fdma_plat_rd32(r->plat, r->reg + FDMA_CH_TG_FRAMES);
	*errors = fdma_plat_rd32(r->plat, r->reg + FDMA_CH_TG_ERRORS);
}

static void fd_set_ctrl(struct fdma_ering *r, u32 mask, u32 val)
{
	if (mask & FDMA_CH_CTRL_IRQ_EN)
		r->irq_en = val & FDMA_CH_CTRL_IRQ_EN;
	mask &= ~FDMA_CH_CTRL_IRQ_EN;
	r->ctrl = (r->ctrl & ~mask) | (val & mask);
	fd_ctrl_wr(r);
	/* IRQ_EN is read by the device as it completes; anything else needs a look now. */
	if (mask)
		fdma_plat_kick(r->plat, r->ch);
}

static void fd_set_irq(struct fdma_ering *r, bool on)
{
	r->irq_en = on ? FDMA_CH_CTRL_IRQ_EN : 0;
	fd_ctrl_wr(r);
	/*
	 * Enabling: the caller next reads wb.cidx to decide whether to sleep,
	 * while the device writes wb.cidx and then reads IRQ_EN to decide
	 * whether to interrupt. Store-then-load on both sides needs a full
	 * barrier, or each side can miss the other and the host sleeps with
	 * completions pending and no interrupt coming. On a real link the
	 * store is a posted write that may still be on its way: reading a
	 * register back makes it arrive first, and the read's completion
	 * cannot pass the wb.cidx writes the device sent before it
	 * (docs/engine.md section 7).
	 */
	if (on)
		(void)fdma_plat_rd32(r->plat, r->reg + FDMA_CH_CTRL);
	fdma_mb();
}

/* The engine acknowledges nothing: an interrupt is a message, and IRQ_EN is the gate. */
static u32 fd_irq_ack(struct fdma_ering *r)
{
	(void)r;
	return 0;
}

static u32 fd_overruns(const struct fdma_ering *r)
{
	return fdma_load_acquire32(&r->wb->overruns);
}

static int fd_post(struct fdma_ering *r, const struct fdma_ereq *q)
{
	u32 n, i, left = q->len;
	u64 off = 0;
	bool c2h = r->caps & FDMA_CH_CAP_C2H;
	bool stream = r->caps & FDMA_CH_CAP_STREAM;
	int ret;

	ret = fdma_ering_check(r, q, NULL);
	if (ret)
		return ret;
	n = fdma_ering_ndesc(r, q->len);
	if (fdma_ering_space(r) < n)
		return -EAGAIN;

	for (i = 0; i < n; i++) {
		u32 idx = r->pidx & (r->size - 1);
		struct fdma_desc *d = &r->fd[idx];
		u32 piece = left < r->max_desc_len ? left : r->max_desc_len;
		u32 ctrl = 0;
		/* MEM2MEM (never C2H): card is the destination's bus address. */
		u64 host = q->host + off, card = stream ? 0 : q->card + off;

		if (i == 0)
			ctrl |= q->flags & FDMA_DESC_SOF;
		if (i == n - 1)
			ctrl |= q->flags & (FDMA_DESC_EOF | FDMA_DESC_IRQ | FDMA_DESC_STOP);
		d->src = c2h ? card : host;
		d->dst = c2h ? host : card;
		d->len = piece;
		d->ctrl = ctrl;
		d->cookie = q->cookie;
		r->slot[idx].last = i == n - 1;
		r->pidx++;
		left -= piece;
		off += piece;
	}
	return 0;
}

static void fd_doorbell(struct fdma_ering *r)
{
	if (r->pidx == r->pidx_pub)
		return;
	/*
	 * Descriptors are plain stores to host memory; the device reads them
	 * only after it sees the new producer index, so they must be visible
	 * before the doorbell write.
	 */
	fdma_wmb();
	ch_wr(r, FDMA_CH_PIDX, r->pidx);
	r->pidx_pub = r->pidx;
	r->doorbells++;
	fdma_plat_kick(r->plat, r->ch);
}

/* Completed-but-unreaped descriptors, clamped so a confused device cannot push us past pidx. */
static u32 hw_ready(const struct fdma_ering *r, u32 *hw)
{
	/* Only what the doorbell published can have completed. */
	u32 published = r->pidx_pub - r->cidx;
	u32 n;

	/* Acquire: the records below cidx were written before cidx. */
	*hw = fdma_load_acquire32(&r->wb->cidx);
	n = *hw - r->cidx;
	if (n > published) {
		/* A count out of range (device confused, or mid-reset): trust nothing. */
		n = 0;
		*hw = r->cidx;
	}
	return n;
}

static u32 fd_done(const struct fdma_ering *r)
{
	u32 hw;

	hw_ready(r, &hw);
	return hw;
}

static void fold(struct fdma_ecpl *acc, const struct fdma_cpl_rec *c, bool first)
{
	fdma_ecpl_fold(acc, c->cookie, c->len, c->status, c->flags, first);
}

static u32 fd_reap(struct fdma_ering *r, struct fdma_ecpl *out, u32 max)
{
	u32 hw, n = 0, j, start;
	struct fdma_ecpl acc = { 0 };

	if (!hw_ready(r, &hw))
		return 0;
	start = r->cidx;
	for (j = r->cidx; j != hw && n < max; j++) {
		u32 idx = j & (r->size - 1);
		struct fdma_cpl_rec c = r->cpl[idx];

		/* Trust our own descriptor for the cookie: a failed fetch cannot echo it. */
		c.cookie = r->fd[idx].cookie;
		fold(&acc, &c, j == start);
		if (r->slot[idx].last) {
			out[n++] = acc;
			r->cidx = j + 1;
			start = j + 1;
		}
	}
	return n;
}

static u32 fd_status(const struct fdma_ering *r)
{
	return fdma_load_acquire32(&r->wb->status);
}

static int fd_ring_reset(struct fdma_ering *r, u32 timeout_us)
{
	u32 hw;
	int ret;

	/* Remember how far the device got: fdma_ering_cancel() reports those pieces' status. */
	hw_ready(r, &hw);
	r->done_at_reset = hw;
	r->ctrl &= ~FDMA_CH_CTRL_RUN;
	fd_ctrl_wr(r);
	r->reset_seq++;
	fdma_wmb();
	ch_wr(r, FDMA_CH_RESET_REQ, r->reset_seq);
	fdma_plat_kick(r->plat, r->ch);
	ret = wait_ack(r->plat, r->reg + FDMA_CH_RESET_ACK, r->reset_seq,
		       timeout_us);
	if (ret)
		return ret;
	ch_wr(r, FDMA_CH_PIDX, 0);
	return 0;
}

static u32 fd_cancel(struct fdma_ering *r, struct fdma_ecpl *out, u32 max)
{
	u32 done = r->done_at_reset, n = 0, j, start = r->cidx;
	struct fdma_ecpl acc = { 0 };
	static const struct fdma_cpl_rec canceled = { .status = FDMA_CPL_CANCELED };

	for (j = r->cidx; j != r->pidx && n < max; j++) {
		u32 idx = j & (r->size - 1);
		bool ran = (s32)(done - j) > 0;
		struct fdma_cpl_rec c = ran ? r->cpl[idx] : canceled;

		c.cookie = r->fd[idx].cookie;
		fold(&acc, &c, j == start);
		if (r->slot[idx].last) {
			out[n++] = acc;
			r->cidx = j + 1;
			start = j + 1;
		}
	}
	if (r->cidx == r->pidx) {
		/* The device restarts counting from 0 after a reset. */
		r->pidx = 0;
		r->cidx = 0;
		r->pidx_pub = 0;
	}
	return n;
}

const struct fdma_eng_ops fdma_eng_fdma = {
	.name = "fdma",
	.rec_bytes = sizeof(struct fdma_cpl_rec),
	.probe = fd_probe,
	.reset = fd_reset,
	.enable = fd_enable,
	.quiesce = fd_quiesce,
	.ring_init = fd_ring_init,
	.start = fd_start,
	.stop = fd_stop,
	.set_coalesce = fd_set_coalesce,
	.set_ctrl = fd_set_ctrl,
	.set_irq = fd_set_irq,
	.irq_ack = fd_irq_ack,
	.set_testgen = fd_set_testgen,
	.testgen_counts = fd_testgen_counts,
	.overruns = fd_overruns,
	.post = fd_post,
	.doorbell = fd_doorbell,
	.done = fd_done,
	.reap = fd_reap,
	.status = fd_status,
	.ring_reset = fd_ring_reset,
	.cancel = fd_cancel,
};
