// SPDX-License-Identifier: MIT
/*
 * Xilinx XDMA (PG195) behind struct fdma_eng_ops: the same rings, requests
 * and completions as the FDMA engine, on an engine that runs linked lists
 * of descriptors and reports only how many it completed.
 *
 * The ring. Descriptors live in a ring of `size` entries, each linked to
 * the next (the last to the first), so the linked list the engine follows
 * is the ring itself. The engine runs one chain at a time: from the
 * first-descriptor register to a descriptor with STOP. A doorbell starts a
 * chain of everything handed over since the last one when the channel is
 * idle; requests that arrive while a chain runs wait, and the reap that
 * sees the chain end starts them as the next chain, one start for all of
 * them. STOP and the adjacency counts are written when a chain starts,
 * since only then is its end known: a block of adjacent descriptors never
 * crosses 4 KiB nor the ring's end, and holds at most 64.
 *
 * A chain starts only on an idle engine, which after a chain may still
 * read BUSY a while; the engine then interrupts once it is idle, so that
 * the reap in the interrupt path starts the chain, and fdma_ering_ready()
 * says so to a caller that had interrupts off (see launch()). A caller
 * needs no more than its ordinary loop: reap on an interrupt, and sleep
 * only once fdma_ering_ready() is 0 with interrupts on.
 *
 * Completion. The engine counts descriptors completed since RUN rose: in
 * the poll-mode write-back word in host memory (caps.poll_wb: no register
 * read on the hot path), else in a register. Per-descriptor results exist
 * only for stream C2H (a result record with the length and EOP); every
 * other descriptor completes whole.
 *
 * Coalescing is emulated, as the engine has none: the COMPLETED flag goes
 * on every coal-th descriptor posted and on the last of every chain, and
 * the channel interrupts for COMPLETED and STOP. There is no timer:
 * caps.coal_timer is false, and a chain's end always interrupts.
 *
 * Interrupts are levels from the status bits: the engine sends the next
 * message only after the host cleared the status, by a read of the
 * clear-on-read register (fdma_ering_irq_ack(), and when interrupts are
 * turned on).
 *
 * Errors stop the channel with the error in its status and the completed
 * count at the failed descriptor. Recovery (fdma_ering_reset()) clears RUN,
 * waits for the engine to go idle, clears the status, and hands back the
 * failed request with the error and the rest as canceled.
 *
 * Channels are numbered in pairs as on an FDMA engine: H2C 0, C2H 0, H2C 1,
 * ... (the IRQ block numbers them its own way: H2C channels, then C2H).
 * Channel i interrupts on vector i, user interrupt k on vector nchan + k
 * (set by fdma_eng_reset(); fdma_eng_route_irqs() shares vectors when the
 * host has fewer).
 */
#include "fdma_engine.h"
#include "xdma_regs.h"

#define XDMA_RING_MAX	4096u

/* caps.hw_chan: direction, channel number, and the engine's order (its IRQ bit). */
#define XDMA_HW(c2h, n, order)	((u32)(c2h) << 4 | (u32)(n) | (u32)(order) << 8)
#define XDMA_HW_C2H(h)		(((h) >> 4) & 1)
#define XDMA_HW_N(h)		((h) & 0xf)
#define XDMA_HW_ORDER(h)	((h) >> 8)

/* Index -> engine-order channel block helpers. */
static bool ch_c2h(const struct fdma_ering *r)
{
	return r->caps & FDMA_CH_CAP_C2H;
}

static bool ch_stream(const struct fdma_ering *r)
{
	return r->caps & FDMA_CH_CAP_STREAM;
}

static u32 rd(const struct fdma_ering *r, u32 off)
{
	return fdma_plat_rd32(r->plat, off);
}

static void wr(struct fdma_ering *r, u32 off, u32 val)
{
	fdma_plat_wr32(r->plat, off, val);
}

static struct xdma_desc *xdesc(const struct fdma_ering *r, u32 j)
{
	return (struct xdma_desc *)r->desc + (j & (r->size - 1));
}

static struct xdma_result *xres(const struct fdma_ering *r, u32 j)
{
	return (struct xdma_result *)r->rec + (j & (r->size - 1));
}

static u32 *xwb(const struct fdma_ering *r)
{
	return r->wbp;
}

/* ---- the engine ------------------------------------------------------- */

static bool is_xdma_id(u32 v, u32 target)
{
	return XDMA_ID_SUBSYS(v) == XDMA_ID_SUBSYS_VAL && XDMA_ID_TARGET(v) == target;
}

static int x_probe(struct fdma_plat *p, struct fdma_eng_caps *caps)
{
	u32 dir, n, nchan = 0, align = 1, salign = 1, c2h_len = XDMA_C2H_ST_LEN, v, nh2c = 0;
	bool tg, bytes = true;

	if (!is_xdma_id(fdma_plat_rd32(p, XDMA_BLK_CFG + XDMA_ID), XDMA_TARGET_CFG) ||
	    !is_xdma_id(fdma_plat_rd32(p, XDMA_BLK_IRQ + XDMA_ID), XDMA_TARGET_IRQ))
		return -ENODEV;
	tg = fdma_plat_rd32(p, FDMA_PLAT_BAR1 + XDMA_TG_MAGIC) == XDMA_TG_MAGIC_VAL;
	caps->version = XDMA_ID_VERSION(fdma_plat_rd32(p, XDMA_BLK_CFG + XDMA_ID)) << 16;
	caps->testgen = false;
	/* The engine's order (IRQ bits): its H2C channels, then its C2H channels. */
	for (n = 0; n < XDMA_MAX_CHAN; n++)
		if (is_xdma_id(fdma_plat_rd32(p, XDMA_CH(0, n) + XDMA_ID), XDMA_TARGET_H2C))
			nh2c = n + 1;
	/* fdma's order: pairs, H2C n then C2H n, as on an FDMA engine. */
	for (n = 0; n < XDMA_MAX_CHAN; n++) {
		for (dir = 0; dir < 2; dir++) {
			u32 base = XDMA_CH(dir, n), a, al;

			v = fdma_plat_rd32(p, base + XDMA_ID);
			if (!is_xdma_id(v, dir) || XDMA_ID_CHAN(v) != n)
				continue;
			caps->chan_caps[nchan] = (dir ? FDMA_CH_CAP_C2H : 0) |
				(v & XDMA_ID_STREAM ? FDMA_CH_CAP_STREAM : 0) |
				(v & XDMA_ID_STREAM && tg ? FDMA_CH_CAP_TESTGEN : 0);
			caps->testgen |= tg && (v & XDMA_ID_STREAM);
			caps->hw_chan[nchan++] = XDMA_HW(dir, n, dir ? nh2c + n : n);
			/* One alignment for the device: the strictest channel's. */
			a = fdma_plat_rd32(p, base + XDMA_CH_ALIGN);
			al = XDMA_ALIGN_ADDR(a);
			if (XDMA_ALIGN_LEN(a) > al)
				al = XDMA_ALIGN_LEN(a);
			if (al & (al - 1))
				return -EPROTO;
			if (!(v & XDMA_ID_STREAM)) {
				align = al > align ? al : align;
				continue;
			}
			salign = al > salign ? al : salign;
			/*
			 * Byte streams (PG195, "Address Alignment" and "Length
			 * Granularity"): AXI-ST takes any address and length,
			 * except that each C2H descriptor is a multiple of 64
			 * bytes (the frame in it has any length). Whatever the
			 * C2H channel reports for lengths is kept on top.
			 */
			if (XDMA_ALIGN_ADDR(a) > 1 || (!dir && XDMA_ALIGN_LEN(a) > 1))
				bytes = false;
			else if (dir && XDMA_ALIGN_LEN(a) > c2h_len)
				c2h_len = XDMA_ALIGN_LEN(a);
		}
	}
	/* Without byte streams, the stream channels' alignment is everyone's. */
	if (!bytes && salign > align)
		align = salign;
	if (!nchan || align > 4096 || c2h_len > 4096 || (c2h_len & (c2h_len - 1)))
		return -EPROTO;
	caps->stream_bytes = bytes;
	caps->c2h_stream_len = bytes ? c2h_len : 0;
	caps->c2h_stream_addr = 0;
	/* The engine always holds a frame back; dropping is the design's (the test block's). */
	caps->stream_drop = tg;
	for (n = nchan; n < FDMA_MAX_CHANNELS; n++) {
		caps->chan_caps[n] = 0;
		caps->hw_chan[n] = 0;
	}
	caps->nchan = nchan;
	caps->align = align;
	/* The engine's 28-bit length, or the host's own limit (like Xilinx's desc_blen_max). */
	if (!caps->max_desc_len || caps->max_desc_len > XDMA_DESC_LEN_MAX)
		caps->max_desc_len = XDMA_DESC_LEN_MAX;
	caps->max_desc_len &= ~(align - 1);
	if (!caps->max_desc_len)
		return -EPROTO;
	caps->ring_max = XDMA_RING_MAX;
	/* Card memory is the design's, not the engine's: the host says, else the AXI space. */
	if (!caps->card_size)
		caps->card_size = 1ull << 32;
	caps->coalesce = true;
	caps->coal_timer = false;
	caps->coal_emulated = true;
	/* A result record has no such bit: drops are counted (the test block's), not flagged. */
	caps->overrun_flag = false;
	caps->mem2mem = false;
	caps->user_irqs = XDMA_USER_IRQS;
	return 0;
}

static u32 hw_base(const struct fdma_eng_caps *caps, u32 i)
{
	return XDMA_CH(XDMA_HW_C2H(caps->hw_chan[i]), XDMA_HW_N(caps->hw_chan[i]));
}

/* Wait until a channel's engine is idle (BUSY clear). */
static int wait_idle(struct fdma_plat *p, u32 base, u32 timeout_us)
{
	return fdma_plat_poll32(p, base + XDMA_CH_STATUS, XDMA_ST_BUSY, 0, timeout_us);
}

/* Stop every channel and wait for it: nothing runs on a stale chain after this. */
static int stop_all(struct fdma_plat *p, const struct fdma_eng_caps *caps, u32 timeout_us)
{
	u32 i;
	int ret = 0, r;

	for (i = 0; i < caps->nchan; i++)
		fdma_plat_wr32(p, hw_base(caps, i) + XDMA_CH_CTRL_W1C, XDMA_CTRL_RUN);
	for (i = 0; i < caps->nchan; i++) {
		r = wait_idle(p, hw_base(caps, i), timeout_us);
		if (r && !ret)
			ret = r;
	}
	return ret;
}

/*
 * Vectors, for nvec of them: channel i on vector i (i % nvec where there
 * are fewer, as the host shares them), user interrupt k on nchan + k
 * where that exists (else vector 0: it stays masked).
 */
static void x_route_irqs(struct fdma_plat *p, const struct fdma_eng_caps *caps, u32 nvec)
{
	u32 i, vec[2] = { 0, 0 }, uvec[4] = { 0, 0, 0, 0 };

	if (!nvec)
		return;
	for (i = 0; i < caps->nchan; i++) {
		u32 e = XDMA_HW_ORDER(caps->hw_chan[i]);

		vec[e / 4] |= ((i % nvec) & 0x1f) << XDMA_IRQ_VEC_SHIFT(e);
	}
	for (i = 0; i < XDMA_USER_IRQS; i++)
		if (caps->nchan + i < nvec)
			uvec[i / 4] |= ((caps->nchan + i) & 0x1f) << XDMA_IRQ_VEC_SHIFT(i);
	for (i = 0; i < 2; i++)
		fdma_plat_wr32(p, XDMA_BLK_IRQ + XDMA_IRQ_CHAN_VEC(4 * i), vec[i]);
	for (i = 0; i < 4; i++)
		fdma_plat_wr32(p, XDMA_BLK_IRQ + XDMA_IRQ_USER_VEC(4 * i), uvec[i]);
}

static int x_reset(struct fdma_plat *p, const struct fdma_eng_caps *caps, u32 timeout_us)
{
	u32 i;
	int ret;

	/* Interrupts off first: a stale chain's end must not reach a new driver. */
	fdma_plat_wr32(p, XDMA_BLK_IRQ + XDMA_IRQ_CHAN_EN_W1C, ~0u);
	fdma_plat_wr32(p, XDMA_BLK_IRQ + XDMA_IRQ_USER_EN_W1C, ~0u);
	ret = stop_all(p, caps, timeout_us);
	if (ret)
		return ret;
	/* Credit mode (Xilinx's driver leaves it on) would starve our stream C2H channels. */
	fdma_plat_wr32(p, XDMA_BLK_SGDMA_COMMON + XDMA_SGC_CREDIT_EN_W1C, ~0u);
	for (i = 0; i < caps->nchan; i++) {
		u32 base = hw_base(caps, i);

		fdma_plat_wr32(p, base + XDMA_CH_CTRL, 0);
		fdma_plat_wr32(p, base + XDMA_CH_IE, 0);
		fdma_plat_wr32(p, base + XDMA_CH_WB_LO, 0);
		fdma_plat_wr32(p, base + XDMA_CH_WB_HI, 0);
		fdma_plat_wr32(p, base + XDMA_CH_STATUS, ~0u);
		(void)fdma_plat_rd32(p, base + XDMA_CH_STATUS_RC);
	}
	/* Until the host says how many vectors it has (fdma_eng_route_irqs()): all of them. */
	x_route_irqs(p, caps, caps->nchan + XDMA_USER_IRQS);
	return 0;
}

/* XDMA has no engine-wide bus-master switch: the PCI function's is the host's. */
static void x_enable(struct fdma_plat *p, const struct fdma_eng_caps *caps, bool on)
{
	(void)p;
	(void)caps;
	(void)on;
}

static int x_quiesce(struct fdma_plat *p, const struct fdma_eng_caps *caps, u32 timeout_us)
{
	fdma_plat_wr32(p, XDMA_BLK_IRQ + XDMA_IRQ_CHAN_EN_W1C, ~0u);
	fdma_plat_wr32(p, XDMA_BLK_IRQ + XDMA_IRQ_USER_EN_W1C, ~0u);
	return stop_all(p, caps, timeout_us);
}

/* ---- rings -------------------------------------------------------------- */

static int x_ring_init(struct fdma_ering *r, const struct fdma_eng_caps *caps)
{
	u32 hw = caps->hw_chan[r->ch], i;

	r->reg = XDMA_CH(XDMA_HW_C2H(hw), XDMA_HW_N(hw));
	r->x.sg = XDMA_SG(XDMA_HW_C2H(hw), XDMA_HW_N(hw));
	r->x.irq_bit = 1u << XDMA_HW_ORDER(hw);
	r->x.run_start = 0;
	r->x.run_end = 0;
	r->x.coal = 0;
	r->x.since_irq = 0;
	r->x.err = 0;
	r->x.err_st = 0;
	r->x.sof = true;
	r->x.irq_on = false;
	r->x.parked = false;
	r->fd = NULL;
	r->cpl = NULL;
	r->wb = NULL;
	r->ctrl = caps->poll_wb ? XDMA_CTRL_POLL_WB : 0;
	/* The list is the ring: entry i links to i + 1, the last to the first. */
	for (i = 0; i < r->size; i++) {
		struct xdma_desc *d = xdesc(r, i);
		u64 next = r->desc_bus + (u64)((i + 1) & (r->size - 1)) * sizeof(*d);
		u64 res = r->rec_bus + (u64)i * sizeof(struct xdma_result);

		d->ctrl = XDMA_DESC_MAGIC << 16;
		d->len = 0;
		d->src_lo = ch_stream(r) && ch_c2h(r) ? (u32)res : 0;
		d->src_hi = ch_stream(r) && ch_c2h(r) ? (u32)(res >> 32) : 0;
		d->dst_lo = 0;
		d->dst_hi = 0;
		d->next_lo = (u32)next;
		d->next_hi = (u32)(next >> 32);
	}
	*xwb(r) = 0;
	return 0;
}

/*
 * Read the clear-on-read status: it ends the interrupt's level, so the next
 * event is an edge. It also clears the error bits, which the channel's
 * status must go on reporting until the reset: keep them.
 */
static u32 ack_status(struct fdma_ering *r)
{
	u32 st = rd(r, r->reg + XDMA_CH_STATUS_RC);

	r->x.err_st |= st & XDMA_ST_ERRORS;
	return st;
}

static void x_set_irq(struct fdma_ering *r, bool on)
{
	if (on) {
		ack_status(r);
		wr(r, XDMA_BLK_IRQ + XDMA_IRQ_CHAN_EN_W1S, r->x.irq_bit);
		/* flush the posted write before the caller looks (see fd_set_irq()) */
		(void)rd(r, XDMA_BLK_IRQ + XDMA_IRQ_CHAN_EN);
	} else {
		wr(r, XDMA_BLK_IRQ + XDMA_IRQ_CHAN_EN_W1C, r->x.irq_bit);
	}
	r->x.irq_on = on;
	/*
	 * As on FDMA: the caller next reads the completed count to decide
	 * whether to sleep, while the engine updates it and then raises the
	 * interrupt; both sides store then load.
	 */
	fdma_mb();
}

static u32 x_irq_ack(struct fdma_ering *r)
{
	return ack_status(r);
}

static void x_start(struct fdma_ering *r, u32 ctrl_flags, u32 irq_vec)
{
	u32 events = XDMA_CTRL_IE_STOPPED | XDMA_CTRL_IE_COMPLETED | XDMA_CTRL_IE_ERRORS;

	(void)irq_vec;
	r->x.run_start = r->pidx_pub;
	r->x.run_end = r->pidx_pub;
	r->x.sof = true;
	r->x.parked = false;
	r->ctrl = (r->ctrl & XDMA_CTRL_POLL_WB) | events;
	if (r->ctrl & XDMA_CTRL_POLL_WB) {
		wr(r, r->reg + XDMA_CH_WB_LO, (u32)r->wb_bus);
		wr(r, r->reg + XDMA_CH_WB_HI, (u32)(r->wb_bus >> 32));
	}
	/*
	 * IDLE_STOPPED interrupts where it is logged, which control's IE_IDLE
	 * allows only while a chain is parked (launch()): clearing RUN before
	 * every other start must not interrupt.
	 */
	wr(r, r->reg + XDMA_CH_IE, events | XDMA_CTRL_IE_IDLE);
	/* RUN stays low until a chain starts: its rising edge starts one. */
	wr(r, r->reg + XDMA_CH_CTRL, r->ctrl);
	x_set_irq(r, ctrl_flags & FDMA_CH_CTRL_IRQ_EN);
}

static void x_stop(struct fdma_ering *r)
{
	wr(r, r->reg + XDMA_CH_CTRL_W1C, XDMA_CTRL_RUN);
}

static void x_set_coalesce(struct fdma_ering *r, u32 count, u32 usecs)
{
	(void)usecs;	/* no timer: caps.coal_timer is false */
	r->x.coal = count;
	r->x.since_irq = 0;
}

static u32 tg_base(const struct fdma_ering *r)
{
	return FDMA_PLAT_BAR1 + XDMA_TG_CH(ch_c2h(r), (r->reg >> 8) & 0xf);
}

/* DROP is the stream source's (the test block's): the engine itself always backpressures. */
static void x_set_ctrl(struct fdma_ering *r, u32 mask, u32 val)
{
	u32 tg;

	if (!(mask & FDMA_CH_CTRL_DROP) || !(r->caps & FDMA_CH_CAP_TESTGEN))
		return;
	tg = rd(r, tg_base(r) + XDMA_TG_CTRL) & ~XDMA_TG_CTRL_DROP;
	wr(r, tg_base(r) + XDMA_TG_CTRL, tg | (val & FDMA_CH_CTRL_DROP ? XDMA_TG_CTRL_DROP : 0));
}

static void x_set_testgen(struct fdma_ering *r, u32 frame_len, u32 period_ns, bool enable)
{
	u32 tg = tg_base(r);

	if (!(r->caps & FDMA_CH_CAP_TESTGEN))
		return;
	wr(r, tg + XDMA_TG_FRAME_LEN, frame_len);
	wr(r, tg + XDMA_TG_PERIOD_NS, period_ns);
	wr(r, tg + XDMA_TG_CTRL, (rd(r, tg + XDMA_TG_CTRL) & XDMA_TG_CTRL_DROP) |
				 (enable ? XDMA_TG_CTRL_EN : 0));
}

static void x_testgen_counts(const struct fdma_ering *r, u32 *frames, u32 *errors)
{
	if (!(r->caps & FDMA_CH_CAP_TESTGEN)) {
		*frames = 0;
		*errors = 0;
		return;
	}
	*frames = rd(r, tg_base(r) + XDMA_TG_FRAMES);
	*errors = rd(r, tg_base(r) + XDMA_TG_ERRORS);
}

static u32 x_overruns(const struct fdma_ering *r)
{
	return r->caps & FDMA_CH_CAP_TESTGEN ? rd(r, tg_base(r) + XDMA_TG_OVERRUNS) : 0;
}

static int x_post(struct fdma_ering *r, const struct fdma_ereq *q)
{
	u32 n, i, left = q->len;
	u64 off = 0;
	bool c2h = ch_c2h(r), stream = ch_stream(r);
	int ret;

	ret = fdma_ering_check(r, q, NULL);
	if (ret)
		return ret;
	n = fdma_ering_ndesc(r, q->len);
	if (fdma_ering_space(r) < n)
		return -EAGAIN;
	for (i = 0; i < n; i++) {
		u32 idx = r->pidx & (r->size - 1);
		struct xdma_desc *d = xdesc(r, idx);
		u32 piece = left < r->max_desc_len ? left : r->max_desc_len;
		u32 ctrl = XDMA_DESC_MAGIC << 16;
		u64 host = q->host + off, card = q->card + off;

		if (i == n - 1 && (q->flags & FDMA_DESC_IRQ)) {
			ctrl |= XDMA_DESC_COMPLETED;
			r->x.since_irq = 0;
		} else if (r->x.coal > 1 && ++r->x.since_irq >= r->x.coal) {
			ctrl |= XDMA_DESC_COMPLETED;
			r->x.since_irq = 0;
		} else if (r->x.coal <= 1) {
			ctrl |= XDMA_DESC_COMPLETED;
		}
		if (stream && !c2h && i == n - 1 && (q->flags & FDMA_DESC_EOF))
			ctrl |= XDMA_DESC_EOP;
		d->ctrl = ctrl;
		d->len = piece;
		if (stream && c2h) {
			/* src stays the slot's result record; a stale one must not pass for new. */
			xres(r, idx)->status = 0;
		} else {
			u64 src = c2h ? card : host;

			d->src_lo = (u32)src;
			d->src_hi = (u32)(src >> 32);
		}
		if (stream && !c2h) {
			d->dst_lo = 0;
			d->dst_hi = 0;
		} else {
			u64 dst = c2h ? host : card;

			d->dst_lo = (u32)dst;
			d->dst_hi = (u32)(dst >> 32);
		}
		r->slot[idx].last = i == n - 1;
		r->slot[idx].len = piece;
		r->slot[idx].cookie = q->cookie;
		r->pidx++;
		left -= piece;
		off += piece;
	}
	return 0;
}

/* Adjacent descriptors after entry j that the engine may fetch with it, up to end. */
static u32 adjacent(const struct fdma_ering *r, u32 j, u32 end)
{
	u32 idx = j & (r->size - 1);
	u64 bus = r->desc_bus + (u64)idx * sizeof(struct xdma_desc);
	/* Entries to the 4 KiB boundary, to the ring's end, to the chain's end. */
	u32 page = (u32)((4096 - (bus & 4095)) / sizeof(struct xdma_desc)) - 1;
	u32 ring = r->size - 1 - idx, chain = end - j - 1, n = page;

	if (ring < n)
		n = ring;
	if (chain < n)
		n = chain;
	return n < XDMA_DESC_ADJ_MAX ? n : XDMA_DESC_ADJ_MAX;
}

static bool busy(const struct fdma_ering *r)
{
	return rd(r, r->reg + XDMA_CH_STATUS) & XDMA_ST_BUSY;
}

/*
 * Start a chain of what was handed over and not yet run.
 *
 * After a chain the engine may read BUSY a while longer: its last count
 * (and the interrupt) can come before BUSY falls, and a RUN edge while
 * BUSY may go unseen. So a start needs an idle engine: after a chain, look
 * (one read a chain). Still busy, the start must not wait for a caller to
 * look again by chance: a network interface's transmit path rings the
 * doorbell and leaves, and its NAPI sleeps once nothing is ready, so the
 * chain would wait for good. The chain is parked instead: RUN cleared with
 * control's IE_IDLE on, so that the engine logs IDLE_STOPPED and
 * interrupts once it is idle, and the reap in the interrupt path starts
 * the chain. A caller that had the interrupt off loses that
 * IDLE_STOPPED when it turns it on (the clear-on-read acknowledge), and
 * learns from fdma_ering_ready() instead (x_start_due()). While the
 * engine is busy nothing says there is work: no poll spins on it.
 */
static void launch(struct fdma_ering *r)
{
	u32 start = r->x.run_end, end = r->pidx_pub, j;
	u64 first = r->desc_bus + (u64)(start & (r->size - 1)) * sizeof(struct xdma_desc);

	if (r->x.run_end != r->x.run_start && busy(r)) {
		if (r->x.parked)
			return;
		r->x.parked = true;
		r->ctrl |= XDMA_CTRL_IE_IDLE;
		/* One write (r->ctrl never holds RUN): RUN falls with IE_IDLE already on. */
		wr(r, r->reg + XDMA_CH_CTRL, r->ctrl);
		/*
		 * Idle by now: it may have gone idle before RUN fell, and
		 * then need not log IDLE_STOPPED at all. Start at once.
		 */
		if (busy(r))
			return;
	}

	for (j = start; j != end; j++) {
		struct xdma_desc *d = xdesc(r, j);
		u32 c = d->ctrl & ~(XDMA_DESC_STOP | XDMA_DESC_ADJ(XDMA_DESC_ADJ_MAX));

		/* A descriptor's count is about the block at its next address. */
		if (j + 1 != end)
			c |= XDMA_DESC_ADJ(adjacent(r, j + 1, end));
		else
			c |= XDMA_DESC_STOP | XDMA_DESC_COMPLETED;
		d->ctrl = c;
	}
	r->x.run_start = start;
	r->x.run_end = end;
	/* The count restarts at 0 with RUN: a stale count must not complete the new chain. */
	*xwb(r) = 0;
	/* Descriptors and the zeroed count are host stores the engine reads after RUN. */
	fdma_wmb();
	/* Unparked (IE_IDLE off): RUN falling on an idle engine must not interrupt. */
	r->x.parked = false;
	r->ctrl &= ~XDMA_CTRL_IE_IDLE;
	wr(r, r->reg + XDMA_CH_CTRL_W1C, XDMA_CTRL_RUN | XDMA_CTRL_IE_IDLE);
	wr(r, r->x.sg + XDMA_SG_DESC_LO, (u32)first);
	wr(r, r->x.sg + XDMA_SG_DESC_HI, (u32)(first >> 32));
	wr(r, r->x.sg + XDMA_SG_DESC_ADJ, adjacent(r, start, end));
	wr(r, r->reg + XDMA_CH_CTRL_W1S, XDMA_CTRL_RUN);
	r->doorbells++;
}

/* Parked (launch()) and the engine idle now: the next reap starts the chain. */
static bool x_start_due(const struct fdma_ering *r)
{
	return r->x.parked && !busy(r);
}

/* Completed in the running chain, clamped to len descriptors. */
static u32 chain_count_to(const struct fdma_ering *r, u32 len)
{
	u32 n;

	if (!len)
		return 0;
	if (r->ctrl & XDMA_CTRL_POLL_WB)
		n = XDMA_WB_COUNT(fdma_load_acquire32(xwb(r)));
	else
		n = rd(r, r->reg + XDMA_CH_COMPLETED);
	return n < len ? n : len;
}

static u32 x_done(const struct fdma_ering *r)
{
	return r->x.run_start + chain_count_to(r, r->x.run_end - r->x.run_start);
}

static void x_doorbell(struct fdma_ering *r)
{
	if (r->pidx == r->pidx_pub)
		return;
	r->pidx_pub = r->pidx;
	if (x_done(r) == r->x.run_end)
		launch(r);
}

/* One piece's completion: its length and stream flags (sof: in and out). */
static void piece(const struct fdma_ering *r, u32 j, u32 *len, u16 *status, u16 *flags, bool *sof)
{
	const struct xdma_result *res;

	*len = r->slot[j & (r->size - 1)].len;
	*status = FDMA_CPL_OK;
	*flags = 0;
	if (!ch_stream(r) || !ch_c2h(r))
		return;
	res = xres(r, j);
	if ((res->status >> 16) != XDMA_RES_MAGIC) {
		*len = 0;
		*status = FDMA_CPL_DESC_ERR;
		return;
	}
	*len = res->len;
	if (*sof)
		*flags |= FDMA_CPL_F_SOF;
	*sof = res->status & XDMA_RES_EOP;
	if (*sof)
		*flags |= FDMA_CPL_F_EOF;
}

static u32 x_reap(struct fdma_ering *r, struct fdma_ecpl *out, u32 max)
{
	u32 hw = x_done(r), n = 0, j, start = r->cidx;
	struct fdma_ecpl acc = { 0 };
	bool sof = r->x.sof;

	for (j = r->cidx; j != hw && n < max; j++) {
		struct fdma_eslot *s = &r->slot[j & (r->size - 1)];
		u32 len;
		u16 st, fl;

		piece(r, j, &len, &st, &fl, &sof);
		fdma_ecpl_fold(&acc, s->cookie, len, st, fl, j == start);
		if (s->last) {
			out[n++] = acc;
			r->cidx = j + 1;
			r->x.sof = sof;
			start = j + 1;
		}
	}
	/* The chain ended whole (an error stops it short): run what waits. */
	if (hw == r->x.run_end && r->pidx_pub != r->x.run_end)
		launch(r);
	return n;
}

/*
 * The completion status of the descriptor an error stopped the channel on.
 * Read errors are the engine's reads: of host memory for H2C (UR: the
 * address is unreachable; the others: the data), of card memory (AXI) for
 * C2H (DECERR: nothing there, SLVERR: the design refused). Write errors
 * are H2C's AXI writes to card memory.
 */
static u16 err_status(const struct fdma_ering *r, u32 st)
{
	if (st & (XDMA_ST_DESC_ERR | XDMA_ST_MAGIC))
		return FDMA_CPL_DESC_ERR;
	if (st & XDMA_ST_READ_UR)
		return ch_c2h(r) ? FDMA_CPL_RANGE_ERR : FDMA_CPL_ADDR_ERR;
	if (st & XDMA_ST_WRITE_DEC)
		return FDMA_CPL_RANGE_ERR;
	if (st & (XDMA_ST_READ_ERR | XDMA_ST_WRITE_ERR))
		return FDMA_CPL_DATA_ERR;
	if (st & XDMA_ST_ALIGN)
		return FDMA_CPL_ALIGN_ERR;
	if (st & XDMA_ST_LEN)
		return FDMA_CPL_LEN_ERR;
	return FDMA_CPL_OK;
}

static u32 map_status(const struct fdma_ering *r, u32 st)
{
	u32 out = st & XDMA_ST_BUSY ? FDMA_CH_ST_RUNNING : 0;

	if (st & XDMA_ST_ERRORS) {
		out |= FDMA_CH_ST_HALTED;
		switch (err_status(r, st)) {
		case FDMA_CPL_DESC_ERR:
			out |= FDMA_CH_ST_DESC_ERR;
			break;
		case FDMA_CPL_DATA_ERR:
			out |= FDMA_CH_ST_DATA_ERR;
			break;
		case FDMA_CPL_ADDR_ERR:
			out |= FDMA_CH_ST_ADDR_ERR;
			break;
		case FDMA_CPL_RANGE_ERR:
			out |= FDMA_CH_ST_RANGE_ERR;
			break;
		case FDMA_CPL_ALIGN_ERR:
			out |= FDMA_CH_ST_ALIGN_ERR;
			break;
		default:
			out |= FDMA_CH_ST_LEN_ERR;
			break;
		}
	}
	if (x_done(r) == r->pidx_pub)
		out |= FDMA_CH_ST_IDLE;
	return out;
}

static u32 x_status(const struct fdma_ering *r)
{
	/* Poll mode: the write-back word says whether there is an error to read about. */
	if ((r->ctrl & XDMA_CTRL_POLL_WB) && !(fdma_load_acquire32(xwb(r)) & XDMA_WB_ERR) &&
	    !r->x.err_st)
		return FDMA_CH_ST_RUNNING | (x_done(r) == r->pidx_pub ? FDMA_CH_ST_IDLE : 0);
	return map_status(r, rd(r, r->reg + XDMA_CH_STATUS) | r->x.err_st);
}

static int x_ring_reset(struct fdma_ering *r, u32 timeout_us)
{
	u32 end = r->x.run_end, st;
	int ret;

	/*
	 * What completed so far, first: if the engine never stops, the caller
	 * still cancels, and only these may be reported done. Nothing more is
	 * handed over: the rest is canceled.
	 */
	r->done_at_reset = x_done(r);
	r->x.err = FDMA_CPL_OK;
	r->x.run_end = r->done_at_reset;
	r->pidx_pub = r->pidx;
	r->x.parked = false;
	r->ctrl &= ~XDMA_CTRL_IE_IDLE;
	wr(r, r->reg + XDMA_CH_CTRL_W1C, XDMA_CTRL_RUN | XDMA_CTRL_IE_IDLE);
	ret = wait_idle(r->plat, r->reg, timeout_us);
	if (ret)
		return ret;
	/* Stopped: the count no longer moves (the descriptor in progress may have ended). */
	r->done_at_reset = r->x.run_start + chain_count_to(r, end - r->x.run_start);
	r->x.run_end = r->done_at_reset;
	/* A chain cut short by an error: the descriptor at the count is the one that failed. */
	st = rd(r, r->reg + XDMA_CH_STATUS) | r->x.err_st;
	r->x.err = r->done_at_reset != end ? err_status(r, st) : FDMA_CPL_OK;
	wr(r, r->reg + XDMA_CH_STATUS, ~0u);
	(void)rd(r, r->reg + XDMA_CH_STATUS_RC);
	r->x.err_st = 0;
	/*
	 * The test block is the stream's source or sink: restart it with the
	 * channel, as the FDMA engine's channel reset does its generator (a
	 * frame cut by the reset must not run on into the next buffer).
	 */
	if (r->caps & FDMA_CH_CAP_TESTGEN)
		wr(r, tg_base(r) + XDMA_TG_CTRL,
		   rd(r, tg_base(r) + XDMA_TG_CTRL) | XDMA_TG_CTRL_RESTART);
	return 0;
}

static u32 x_cancel(struct fdma_ering *r, struct fdma_ecpl *out, u32 max)
{
	u32 done = r->done_at_reset, n = 0, j, start = r->cidx;
	struct fdma_ecpl acc = { 0 };
	bool sof = r->x.sof;

	for (j = r->cidx; j != r->pidx && n < max; j++) {
		struct fdma_eslot *s = &r->slot[j & (r->size - 1)];
		u32 len = 0;
		u16 st = FDMA_CPL_CANCELED, fl = 0;

		if ((s32)(done - j) > 0)
			piece(r, j, &len, &st, &fl, &sof);
		else if (j == done && r->x.err)
			st = r->x.err;
		fdma_ecpl_fold(&acc, s->cookie, len, st, fl, j == start);
		if (s->last) {
			out[n++] = acc;
			r->cidx = j + 1;
			r->x.sof = sof;
			start = j + 1;
		}
	}
	if (r->cidx == r->pidx) {
		r->pidx = 0;
		r->cidx = 0;
		r->pidx_pub = 0;
		r->done_at_reset = 0;
		r->x.run_start = 0;
		r->x.run_end = 0;
		r->x.since_irq = 0;
		r->x.err = 0;
	}
	return n;
}

static void x_user_irq_enable(struct fdma_plat *p, const struct fdma_eng_caps *caps, u32 mask,
			      bool on)
{
	(void)caps;
	fdma_plat_wr32(p, XDMA_BLK_IRQ + (on ? XDMA_IRQ_USER_EN_W1S : XDMA_IRQ_USER_EN_W1C), mask);
}

/* The channels' clear-on-read status (H2C and C2H blocks). */
static bool x_rd_clears(u32 off)
{
	return off < XDMA_BLK_IRQ && (off & 0xff) == XDMA_CH_STATUS_RC;
}

/* The IRQ block's pending channels, in the engine's order, as fdma channel bits. */
static u32 x_irq_pending(struct fdma_plat *p, const struct fdma_eng_caps *caps)
{
	u32 hw = fdma_plat_rd32(p, XDMA_BLK_IRQ + XDMA_IRQ_CHAN_PEND), out = 0, i;

	for (i = 0; i < caps->nchan; i++)
		if (hw & (1u << XDMA_HW_ORDER(caps->hw_chan[i])))
			out |= 1u << i;
	return out;
}

const struct fdma_eng_ops fdma_eng_xdma = {
	.name = "xdma",
	.rec_bytes = sizeof(struct xdma_result),
	.probe = x_probe,
	.reset = x_reset,
	.enable = x_enable,
	.quiesce = x_quiesce,
	.ring_init = x_ring_init,
	.start = x_start,
	.stop = x_stop,
	.set_coalesce = x_set_coalesce,
	.set_ctrl = x_set_ctrl,
	.set_irq = x_set_irq,
	.irq_ack = x_irq_ack,
	.set_testgen = x_set_testgen,
	.testgen_counts = x_testgen_counts,
	.overruns = x_overruns,
	.post = x_post,
	.doorbell = x_doorbell,
	.done = x_done,
	.reap = x_reap,
	.status = x_status,
	.ring_reset = x_ring_reset,
	.cancel = x_cancel,
	.irq_pending = x_irq_pending,
	.rd_clears = x_rd_clears,
	.user_irq_enable = x_user_irq_enable,
	.route_irqs = x_route_irqs,
	.start_due = x_start_due,
};
