// SPDX-License-Identifier: MIT
/*
 * XDMA model: one thread per channel follows descriptor chains the way
 * PG195 describes the engine; the register file is trapped (every access
 * is a call under the model's lock), so reads and writes have the side
 * effects the real registers have. See xdma_model.h.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "fdma_plat.h"
#include "fdma_mcommon.h"
#include "fdma_mdbg.h"
#include "fdma_wire.h"
#include "xdma_regs.h"
#include "xdma_model.h"

#define NCH		(2 * XDMA_MAX_CHAN)
#define VERSION		0x06u	/* the identifier's version field (XDMA v4.1 reports 6) */
/*
 * By default an idle channel sleeps at once: polling, with the channels'
 * threads on one CPU, took a third off its batched loop, and on CPUs it
 * shares with the host it added slow per-packet runs (docs/studies/net.md).
 */
#define POLL_US		0u

struct xch {
	_Alignas(64) struct xdma_model *m;
	bool present, c2h, stream;
	u32 n;			/* channel number within its direction */
	u32 bit;		/* engine order: the IRQ block's bit */
	pthread_t thread;
	bool started;
	pthread_cond_t cond;
	atomic_uint wakes;	/* wake()s: what a polling channel watches without the lock */
	clockid_t cpuclock;

	/* registers (under m->lock) */
	u32 ctrl, status, completed, ie, wb_lo, wb_hi;
	u32 sg_lo, sg_hi, sg_adj, credits;

	/* the chain (under m->lock) */
	bool busy;
	u64 tail_ns;		/* cfg.busy_us: BUSY held until then after a chain's end (0: not) */
	u32 gen;		/* bumped at every RUN rising edge */
	u64 cur;		/* next descriptor's address */
	u32 blk_left;		/* descriptors left in the declared adjacent block */
	bool line;		/* interrupt level */
	bool stuck, rogue, lose_irq, eop_prev;

	/*
	 * Performance monitor (under m->lock): ns counted so far and since
	 * when (0: not counting), data beats, the AUTO stop after a STOP.
	 */
	u32 pm_ctrl;
	u64 pm_ns, pm_since, pm_beats;
	bool pm_done;

	/* faults armed through the test block */
	enum fdma_fault arm_kind;
	u64 arm_left;

	/* pacing (channel thread only) */
	u64 avail_ns;
	bool was_empty;

	/* stream test block (under m->lock; data by the thread) */
	u32 tg_len, tg_period, tg_ctrl, tg_frames, tg_errors, tg_overruns;
	struct fdma_tgen gen_st;
	struct fdma_tchk chk;
	u64 next_frame_ns;
	bool pending_overrun;

	/*
	 * loop: the wire this stream channel feeds (H2C) or drains (C2H), and
	 * the channel at its other end. The wire is single-producer and
	 * single-consumer: only this channel's thread touches its end.
	 */
	struct fdma_wire *wire;
	struct xch *peer;
	u32 w_gen;		/* the chain the wire state belongs to */
	bool w_in;		/* C2H: a frame from the wire is being delivered */
	u32 w_len, w_off;
};

struct xdma_model {
	struct fdma_model_cfg cfg;
	struct fdma_model_host host;
	pthread_mutex_t lock;
	u8 *card;
	atomic_bool quit;
	u32 chan_en, user_en, user_req;
	u32 chan_vec[2], user_vec[4];
	u32 mdbg[64];		/* the test block, 0xf00.. of BAR 1 */
	u32 sgc_ctrl, sgc_credit;	/* the SGDMA common block: kept, not applied */
	u32 cfg_pcie_ctrl, cfg_user_mps, cfg_user_mrrs, cfg_wr_flush;	/* config block: kept */
	/*
	 * The MSI-X table, as the IP keeps it in its DMA BAR: written by the
	 * host's MSI-X code, read back; the messages themselves go through
	 * host.irq (the proxy's carrier, or libfdma's in-process callback).
	 */
	u32 msix[XDMA_MSIX_VECTORS][4];
	u32 scratch;
	u64 desc_count, faults;
	double pm_hz;		/* the performance monitor's clock (fdma_link_clock_hz()) */
	struct fdma_link_clock clk[2];
	/*
	 * Vectors (bit per vector, 5-bit numbers) whose message is decided
	 * under the lock and sent once it is released (msi_flush()): the host
	 * woken by one reads our registers at once, and must not find the
	 * lock still held by the thread that woke it.
	 */
	atomic_uint msi_pending;
	/*
	 * INTx mode (xdma_model_set_intx()): the level, decided under the
	 * lock, and whether it changed since host.intx last heard of it.
	 */
	bool intx;
	atomic_bool intx_level, intx_dirty;
	/*
	 * One report at a time: a thread that took intx_dirty reports the
	 * level it reads after, so the last report is the last level.
	 */
	pthread_mutex_t intx_lock;
	struct xch ch[NCH];	/* [0..3] H2C, [4..7] C2H */
	struct fdma_wire wires[XDMA_MAX_CHAN];
};

static struct xch *chan_at(struct xdma_model *m, bool c2h, u32 n)
{
	struct xch *c = &m->ch[(c2h ? XDMA_MAX_CHAN : 0) + n];

	return n < XDMA_MAX_CHAN && c->present ? c : NULL;
}

/* ---- interrupts --------------------------------------------------------- */

/* A message for vector vec (lock held): sent by msi_flush() after the unlock. */
static void msi_post(struct xdma_model *m, u32 vec)
{
	atomic_fetch_or(&m->msi_pending, 1u << vec);
}

/* Send the messages posted and a changed INTx level (lock not held). */
static void msi_flush(struct xdma_model *m)
{
	u32 v = atomic_exchange(&m->msi_pending, 0);

	if (atomic_load(&m->intx_dirty)) {
		pthread_mutex_lock(&m->intx_lock);
		if (atomic_exchange(&m->intx_dirty, false) && m->host.intx)
			m->host.intx(m->host.ctx, atomic_load(&m->intx_level));
		pthread_mutex_unlock(&m->intx_lock);
	}

	while (v) {
		u32 vec = (u32)__builtin_ctz(v);

		v &= v - 1;
		m->host.irq(m->host.ctx, vec);
	}
}

/*
 * Before a channel thread sleeps (lock held): send what is posted, by any
 * thread, with the lock released meanwhile. True if it did, and the caller
 * must look again at what it was about to wait for.
 */
static bool msi_flush_unlocked(struct xdma_model *m)
{
	if (!atomic_load(&m->msi_pending) && !atomic_load(&m->intx_dirty))
		return false;
	pthread_mutex_unlock(&m->lock);
	msi_flush(m);
	pthread_mutex_lock(&m->lock);
	return true;
}

static u32 vec_of(const u32 *regs, u32 i)
{
	return (regs[i / 4] >> XDMA_IRQ_VEC_SHIFT(i)) & 0x1f;
}

static u32 req_bits(struct xdma_model *m);

/* INTx (lock held): the level is the channel pending register's being non-zero. */
static void intx_eval(struct xdma_model *m)
{
	bool level = m->intx && (req_bits(m) & m->chan_en) != 0;

	if (level != atomic_load(&m->intx_level)) {
		atomic_store(&m->intx_level, level);
		atomic_store(&m->intx_dirty, true);
	}
}

/*
 * The level is the status bits the IE mask lets through; a message goes
 * on its rising edge, or in INTx mode the function's level follows.
 */
static void irq_eval(struct xch *c)
{
	struct xdma_model *m = c->m;
	bool line = (c->status & c->ie & ~XDMA_ST_BUSY) != 0;

	if (m->intx) {
		c->line = line;
		intx_eval(m);
		return;
	}
	if (line && !c->line && (m->chan_en & c->bit)) {
		if (c->lose_irq)
			c->lose_irq = false;
		else
			msi_post(m, vec_of(m->chan_vec, (u32)__builtin_ctz(c->bit)));
	}
	c->line = line;
}

/* Channels whose line is high when their enable bit turns on: their message goes now. */
static void irq_enable(struct xdma_model *m, u32 was)
{
	if (m->intx) {
		intx_eval(m);
		return;
	}
	for (u32 i = 0; i < NCH; i++) {
		struct xch *c = &m->ch[i];

		if (c->present && c->line && (m->chan_en & c->bit) && !(was & c->bit))
			msi_post(m, vec_of(m->chan_vec, (u32)__builtin_ctz(c->bit)));
	}
}

static void user_irq(struct xdma_model *m, u32 bits)
{
	/* INTx: the test block's strobe is a pulse, not a request held until acknowledged. */
	if (m->intx)
		return;
	for (u32 k = 0; k < XDMA_USER_IRQS; k++)
		if ((bits & (1u << k)) && (m->user_en & (1u << k)))
			msi_post(m, vec_of(m->user_vec, k));
}

/* Under m->lock: c has work, asleep or polling (chan_main()). */
static void wake(struct xch *c)
{
	atomic_fetch_add_explicit(&c->wakes, 1, memory_order_release);
	pthread_cond_signal(&c->cond);
}

/* An event: logged in status only if its IE bit is set in control (PG195). */
static void event(struct xch *c, u32 st_bit)
{
	u32 gate = st_bit & (XDMA_ST_ERRORS | XDMA_ST_STOPPED | XDMA_ST_COMPLETED | XDMA_ST_IDLE);

	if (c->ctrl & gate)
		c->status |= st_bit;
	irq_eval(c);
}

/* ---- the chain ----------------------------------------------------------- */

/*
 * The poll-mode write-back: the completed count, at a descriptor with
 * COMPLETED (PG195) and, with bit 31 set, when an error stops the chain
 * (as Xilinx's driver reads it).
 */
static void write_wb(struct xch *c, bool err)
{
	struct xdma_model *m = c->m;
	u32 *wb;

	if (!(c->ctrl & XDMA_CTRL_POLL_WB))
		return;
	wb = m->host.dma(m->host.ctx, (u64)c->wb_hi << 32 | c->wb_lo, 4);
	if (wb)
		__atomic_store_n(wb, XDMA_WB_COUNT(c->completed) | (err ? XDMA_WB_ERR : 0),
				 __ATOMIC_RELEASE);
}

/* Stop the chain on an error: status bits, write-back with the error flag, interrupt. */
static void stop_err(struct xch *c, u32 st_bit)
{
	c->busy = false;
	c->status &= ~XDMA_ST_BUSY;
	c->status |= st_bit;
	write_wb(c, true);
	event(c, XDMA_ST_STOPPED);
	irq_eval(c);
}

/* ---- performance monitor ------------------------------------------------- */

/* Counting: armed, the channel's RUN set, and (AUTO) no STOP descriptor done since it rose. */
static bool pm_counting(const struct xch *c)
{
	return (c->pm_ctrl & XDMA_PMON_RUN) && (c->ctrl & XDMA_CTRL_RUN) && !c->pm_done;
}

/*
 * After anything that may start or stop the count (lock held): the time
 * since pm_since was counted, and counting goes on from now or stops.
 */
static void pm_update(struct xch *c)
{
	u64 now = fdma_mnow_ns();

	if (c->pm_since)
		c->pm_ns += now - c->pm_since;
	c->pm_since = pm_counting(c) ? now : 0;
}

static void pm_clear(struct xch *c)
{
	c->pm_ns = 0;
	c->pm_beats = 0;
	c->pm_since = pm_counting(c) ? fdma_mnow_ns() : 0;
}

/* A 42-bit count's word: low, or high (bits 41:32, and MAXED once it saturated). */
static u32 pm_word(u64 v, bool hi)
{
	bool maxed = v > XDMA_PMON_MAX;

	if (maxed)
		v = XDMA_PMON_MAX;
	if (!hi)
		return (u32)v;
	return ((u32)(v >> 32) & XDMA_PMON_HI_BITS) | (maxed ? XDMA_PMON_MAXED : 0);
}

static u64 pm_cycles(const struct xch *c)
{
	u64 ns = c->pm_ns + (c->pm_since ? fdma_mnow_ns() - c->pm_since : 0);

	return (u64)((double)ns * c->m->pm_hz / 1e9);
}

/* Data beats of one descriptor: the 64-bit words its source spans, as the datapath reads them. */
static void pm_data(struct xch *c, u64 src, u32 len)
{
	if (pm_counting(c))
		c->pm_beats += ((src & 7) + len + 7) / 8;
}

static void run_edge(struct xch *c)
{
	c->status = XDMA_ST_BUSY;
	c->completed = 0;
	c->busy = true;
	c->gen++;
	c->cur = (u64)c->sg_hi << 32 | c->sg_lo;
	c->blk_left = c->sg_adj + 1;
	c->was_empty = true;
	c->line = false;
	wake(c);
}

static void ctrl_write(struct xch *c, u32 val)
{
	u32 was = c->ctrl;

	c->ctrl = val;
	/* RUN rising re-arms an AUTO monitor with its counts cleared. */
	if ((val & XDMA_CTRL_RUN) && !(was & XDMA_CTRL_RUN)) {
		c->pm_done = false;
		if (c->pm_ctrl & XDMA_PMON_AUTO)
			pm_clear(c);
	}
	pm_update(c);
	if ((val & XDMA_CTRL_RUN) && !(was & XDMA_CTRL_RUN)) {
		/* Still busy after the last chain (cfg.busy_us): the edge goes unseen. */
		if (!c->tail_ns)
			run_edge(c);
	} else if (!(val & XDMA_CTRL_RUN) && (was & XDMA_CTRL_RUN)) {
		/* The descriptor in progress finishes; a stuck channel just stops. */
		if (c->rogue)
			return;
		if (c->stuck || !c->busy) {
			c->stuck = false;
			if (c->busy) {
				c->busy = false;
				c->status &= ~XDMA_ST_BUSY;
			}
			event(c, XDMA_ST_IDLE);
		}
		wake(c);
	}
}

/* ---- faults -------------------------------------------------------------- */

static enum fdma_fault fault_due(struct xch *c)
{
	struct xdma_model *m = c->m;
	enum fdma_fault f = FDMA_FAULT_NONE;

	m->desc_count++;
	if (c->arm_kind != FDMA_FAULT_NONE && --c->arm_left == 0) {
		f = c->arm_kind;
		c->arm_kind = FDMA_FAULT_NONE;
	} else if (m->cfg.fault != FDMA_FAULT_NONE && m->desc_count == m->cfg.fault_at) {
		f = m->cfg.fault;
	}
	if (f != FDMA_FAULT_NONE) {
		m->faults++;
		m->mdbg[(FDMA_MDBG_FAULTS - 0xf00) / 4] = (u32)m->faults;
	}
	return f;
}

/* ---- data movement --------------------------------------------------------- */

static bool paced(struct xdma_model *m)
{
	switch (m->mdbg[(FDMA_MDBG_PACE - 0xf00) / 4]) {
	case FDMA_MDBG_PACE_ON:
		return true;
	case FDMA_MDBG_PACE_OFF:
		return false;
	default:
		return m->cfg.paced;
	}
}

/* Hold len bytes for the link's time; returns when that ended (0 unpaced). */
static u64 pace(struct xch *c, u32 len, bool paced_now)
{
	struct xdma_model *m = c->m;
	int dir = c->c2h ? FDMA_LINK_C2H : FDMA_LINK_H2C;
	u64 done;

	if (!paced_now)
		return 0;
	done = fdma_link_clock_reserve(&m->clk[dir], c->avail_ns,
				       fdma_link_xfer_ns(&m->cfg.link, dir, len, c->was_empty));
	fdma_msleep_until(done);
	c->avail_ns = done;
	c->was_empty = false;
	return done;
}

static u64 addr64(u32 lo, u32 hi)
{
	return (u64)hi << 32 | lo;
}

/*
 * Check the host kept its adjacency promise: a block it declared adjacent
 * must not cross 4 KiB and must be linked in memory order, or the engine
 * would have fetched the wrong descriptors.
 */
static bool adj_ok(struct xch *c, u64 at, const struct xdma_desc *d, bool stop)
{
	u64 next = addr64(d->next_lo, d->next_hi);

	if (c->blk_left > 1) {
		if (stop || next != at + 32 || ((at + 32) & 4095) == 0)
			return false;
		c->blk_left--;
		return true;
	}
	if (!stop) {
		u32 adj = XDMA_DESC_ADJ_OF(d->ctrl);

		if ((next & 4095) + (u64)(adj + 1) * 32 > 4096)
			return false;
		c->blk_left = adj + 1;
	}
	return true;
}

/* The C2H stream source: a frame ready for this buffer? (lock held; may drop frames) */
static bool frame_ready(struct xch *c, u64 now, u64 *deadline)
{
	u32 period = c->tg_period;

	/* A frame that has started goes out whole, even with the generator turned off since. */
	if (c->gen_st.in_frame)
		return true;
	if (!(c->tg_ctrl & XDMA_TG_CTRL_EN) || c->tg_len < sizeof(struct fdma_frame_hdr) + 8 ||
	    c->tg_len > FDMA_TGEN_MODEL_MAX)
		return false;
	if (!c->next_frame_ns)
		c->next_frame_ns = now;
	if (now < c->next_frame_ns) {
		*deadline = c->next_frame_ns;
		return false;
	}
	if (period && now - c->next_frame_ns >= period) {
		u64 late = (now - c->next_frame_ns) / period;

		if ((c->tg_ctrl & XDMA_TG_CTRL_DROP) && c->m->cfg.paced) {
			c->tg_overruns += (u32)late;
			c->gen_st.seq += (u32)late;
			c->pending_overrun = true;
			c->next_frame_ns += late * period;
		} else {
			c->next_frame_ns = now;
		}
	}
	if (fdma_tgen_build(&c->gen_st, c->tg_len, period ? c->next_frame_ns : now))
		return false;
	if (c->avail_ns < now)
		c->avail_ns = now;
	return true;
}

/* A C2H stream source with no buffer at a frame's time: a camera drops it. */
static void idle_source(struct xch *c, u64 now, u64 *deadline)
{
	u32 period = c->tg_period;

	if (!c->stream || !c->c2h || !(c->tg_ctrl & XDMA_TG_CTRL_EN) || c->gen_st.in_frame ||
	    !(c->tg_ctrl & XDMA_TG_CTRL_DROP) || !period)
		return;
	if (!c->next_frame_ns)
		c->next_frame_ns = now;
	while (c->next_frame_ns <= now) {
		c->tg_overruns++;
		c->gen_st.seq++;
		c->pending_overrun = true;
		c->next_frame_ns += period;
	}
	*deadline = c->next_frame_ns;
}

/* ---- the loop's wire (lock held) --------------------------------------------- */

/*
 * A new chain (RUN rose again): the wire keeps whole frames only, so a
 * frame this channel had half sent, or half delivered, is lost.
 */
static void wire_new_chain(struct xch *c)
{
	if (c->w_gen == c->gen)
		return;
	c->w_gen = c->gen;
	if (!c->c2h) {
		fdma_wire_abort(c->wire);
		c->eop_prev = true;
	} else if (c->w_in && c->w_off) {
		c->w_in = false;
		fdma_wire_pop(c->wire);
		wake(c->peer);
	}
}

/* C2H: a frame off the wire for this buffer? Sets *deadline while the wire's rate holds it. */
static bool wire_frame(struct xch *c, u64 now, u64 *deadline)
{
	u64 at;
	u32 len;

	if (c->w_in)
		return true;
	len = fdma_wire_peek(c->wire);
	if (!len || !fdma_wire_due(c->wire, len, now, deadline, &at))
		return false;
	c->w_in = true;
	c->w_len = len;
	c->w_off = 0;
	if (c->avail_ns < at)
		c->avail_ns = at;
	return true;
}

/*
 * Sleep on the channel's condition until deadline (0: a millisecond) or a
 * signal; or, with messages to send, send them and return at once.
 */
static void chan_wait(struct xch *c, u64 deadline)
{
	struct timespec ts;
	u64 t = deadline ? deadline : fdma_mnow_ns() + 1000000;

	if (msi_flush_unlocked(c->m))
		return;
	ts.tv_sec = (time_t)(t / 1000000000ull);
	ts.tv_nsec = (long)(t % 1000000000ull);
	pthread_cond_timedwait(&c->cond, &c->m->lock, &ts);
}

/*
 * One descriptor of a chain, in four steps (run_one()): the descriptor
 * fetched and checked (desc_fetch), the stream's source or sink waited
 * for (stream_wait), the data moved with no lock held (data_move), and
 * its completion (desc_complete: errors, result records, counts,
 * write-back, events, the chain's end).
 */
struct xrun {
	struct xdma_desc d;
	u64 at, src, dst;
	u32 gen, len, piece;	/* piece: a stream C2H descriptor's bytes */
	enum fdma_fault f;
	bool stop, pn, bad_card;
	void *host;		/* where the data went or came from, NULL: nowhere */
};

/* Fetch and check the descriptor at c->cur: false, the chain stopped on an error. */
static bool desc_fetch(struct xch *c, struct xrun *r)
{
	struct xdma_model *m = c->m;
	struct xdma_desc *dp;
	/*
	 * PG195: AXI-ST takes any address and length, but C2H descriptors are
	 * multiples of 64; AXI-MM takes any (align_log2 0, the default), or a
	 * design's larger alignment (align=) on both addresses and the length.
	 */
	bool bytes = c->stream && m->cfg.stream_bytes;
	u32 amask = bytes ? 0 : (1u << m->cfg.align_log2) - 1;
	u32 lmask = bytes ? (c->c2h ? 63u : 0) : amask;

	dp = (r->at & 31) ? NULL : m->host.dma(m->host.ctx, r->at, sizeof(r->d));
	if (!dp || r->f == FDMA_FAULT_DESC) {
		stop_err(c, XDMA_ST_DESC_UR);
		return false;
	}
	r->d = *dp;
	if (XDMA_DESC_MAGIC_OF(r->d.ctrl) != XDMA_DESC_MAGIC || r->f == FDMA_FAULT_MAGIC) {
		stop_err(c, XDMA_ST_MAGIC);
		return false;
	}
	r->stop = r->d.ctrl & XDMA_DESC_STOP;
	if (!adj_ok(c, r->at, &r->d, r->stop)) {
		stop_err(c, XDMA_ST_DESC_UR);
		return false;
	}
	r->len = r->d.len & XDMA_DESC_LEN_MAX;
	r->src = addr64(r->d.src_lo, r->d.src_hi);
	r->dst = addr64(r->d.dst_lo, r->d.dst_hi);
	/* A length rule broken is a length error; an address one, an alignment mismatch. */
	if (!r->len || (r->len & lmask)) {
		stop_err(c, XDMA_ST_LEN);
		return false;
	}
	if (((c->c2h ? r->dst : r->src) & amask) ||
	    (!c->stream && ((c->c2h ? r->src : r->dst) & amask))) {
		stop_err(c, XDMA_ST_ALIGN);
		return false;
	}
	return true;
}

/*
 * A stream's source (C2H: a frame of the generator or the wire) or sink
 * (H2C on the wire: room for it). 1: go on; 0: RUN fell, a new chain came
 * or the model quits meanwhile; -1: the chain stopped on an error.
 */
static int stream_wait(struct xch *c, struct xrun *r)
{
	struct xdma_model *m = c->m;

	if (c->stream && c->c2h) {
		u64 deadline = 0;

		/* Wait for the source; RUN falling or a new chain ends the wait. */
		while (!(c->wire ? wire_frame(c, fdma_mnow_ns(), &deadline) :
				   frame_ready(c, fdma_mnow_ns(), &deadline))) {
			if (atomic_load(&m->quit) || !(c->ctrl & XDMA_CTRL_RUN) || c->gen != r->gen)
				return 0;
			chan_wait(c, deadline);
			deadline = 0;
		}
		if (c->wire) {
			r->piece = c->w_len - c->w_off;
		} else {
			r->piece = c->gen_st.len - c->gen_st.off;
			if (c->gen_st.off == 0 && c->pending_overrun)
				c->pending_overrun = false;
		}
		if (r->piece > r->len)
			r->piece = r->len;
	} else if (c->wire) {
		bool sof = c->eop_prev, eof = r->d.ctrl & XDMA_DESC_EOP;
		int room = 1;

		/*
		 * Room for it on the wire: the receiver frees it and signals us.
		 * XDMA's RUN bit runs one chain, not a port: a receiver between
		 * chains is no port that is down, so the wire always holds.
		 */
		while (!(room = fdma_wire_room(c->wire, r->len, sof, eof))) {
			if (atomic_load(&m->quit) || !(c->ctrl & XDMA_CTRL_RUN) || c->gen != r->gen)
				return 0;
			chan_wait(c, 0);
		}
		/* A frame larger than the whole wire could never go. */
		if (room < 0) {
			stop_err(c, XDMA_ST_LEN);
			return -1;
		}
	}
	return 1;
}

/* The data: no lock held, as an engine moves data while its registers are read. */
static void data_move(struct xch *c, struct xrun *r)
{
	struct xdma_model *m = c->m;
	bool ok = r->f != FDMA_FAULT_DATA;

	if (!c->stream) {
		u64 card = c->c2h ? r->src : r->dst;

		r->bad_card = card > m->cfg.card_size || r->len > m->cfg.card_size - card;
		r->host = r->bad_card ? NULL :
			  m->host.dma(m->host.ctx, c->c2h ? r->dst : r->src, r->len);
		if (r->host && ok) {
			if (c->c2h)
				memcpy(r->host, m->card + card, r->len);
			else
				memcpy(m->card + card, r->host, r->len);
		}
		pace(c, r->len, r->pn);
	} else if (c->c2h) {
		r->host = m->host.dma(m->host.ctx, r->dst, r->piece);
		if (r->host && ok) {
			if (c->wire)
				fdma_wire_read(c->wire, c->w_off, r->host, r->piece);
			else
				memcpy(r->host, c->gen_st.frame + c->gen_st.off, r->piece);
		}
		pace(c, r->piece, r->pn);
	} else {
		u64 done = pace(c, r->len, r->pn);
		bool sof = c->eop_prev, eof = r->d.ctrl & XDMA_DESC_EOP;

		/* Store and forward: on the wire once its bytes have crossed the link. */
		r->host = m->host.dma(m->host.ctx, r->src, r->len);
		if (r->host && ok && c->wire)
			fdma_wire_put(c->wire, r->host, r->len, sof, eof, done);
		else if (r->host && ok && (c->tg_ctrl & XDMA_TG_CTRL_EN))
			fdma_tchk_feed(&c->chk, r->host, r->len, sof, eof);
	}
}

/* A stream C2H descriptor's result record: a posted write, lost where nothing answers. */
static void c2h_result(struct xch *c, const struct xrun *r, bool eop)
{
	struct xdma_result *res = c->m->host.dma(c->m->host.ctx, r->src, sizeof(*res));

	if (res) {
		res->len = r->piece;
		__atomic_store_n(&res->status, XDMA_RES_MAGIC << 16 | (eop ? XDMA_RES_EOP : 0),
				 __ATOMIC_RELEASE);
	}
}

/*
 * The descriptor moved (with the lock again): its errors, result record
 * and counts, the write-back and events, and whether the chain goes on
 * (true: c->cur is the next descriptor).
 */
static bool desc_complete(struct xch *c, struct xrun *r)
{
	struct xdma_model *m = c->m;
	bool eop = false;

	if (c->gen != r->gen)
		return false;		/* RUN fell and rose meanwhile: this chain is gone */
	/* A data fault: poisoned data read from the host (H2C), a slave error reading the card (C2H). */
	if (r->f == FDMA_FAULT_DATA) {
		stop_err(c, c->c2h ? XDMA_ST_READ_CA : XDMA_ST_READ_PARITY);
		return false;
	}
	/*
	 * Nothing at the card address: an AXI decode error, on the write
	 * (H2C) or the read (C2H). A host address nobody answers: an
	 * unsupported request on H2C's read; C2H's write is posted, so the
	 * engine cannot know: the data is lost and the descriptor completes.
	 */
	if (r->bad_card) {
		stop_err(c, c->c2h ? XDMA_ST_READ_UR : XDMA_ST_WRITE_DEC);
		return false;
	}
	if (!r->host && !c->c2h) {
		stop_err(c, XDMA_ST_READ_UR);
		return false;
	}
	if (c->stream && c->c2h && c->wire) {
		c->w_off += r->piece;
		if (c->w_off == c->w_len) {
			/* The frame is out of the wire: its room goes back to the sender. */
			eop = true;
			c->w_in = false;
			fdma_wire_pop(c->wire);
			wake(c->peer);
		}
		c2h_result(c, r, eop);
	} else if (c->stream && c->c2h) {
		c->gen_st.off += r->piece;
		if (c->gen_st.off == c->gen_st.len) {
			eop = true;
			c->gen_st.in_frame = false;
			c->gen_st.seq++;
			c->tg_frames++;
			c->next_frame_ns = c->tg_period ? c->next_frame_ns + c->tg_period : fdma_mnow_ns();
		}
		c2h_result(c, r, eop);
	} else if (c->stream) {
		c->eop_prev = r->d.ctrl & XDMA_DESC_EOP;
		c->tg_frames = c->chk.frames;
		c->tg_errors = c->chk.errors;
		/* A whole frame is there for the other end: wake it. */
		if (c->wire && c->eop_prev)
			wake(c->peer);
	}
	c->completed++;
	/* A stream C2H descriptor's data comes from the stream, its src is the result record. */
	pm_data(c, c->stream && c->c2h ? 0 : r->src, c->stream && c->c2h ? r->piece : r->len);
	/* PG195: the count is written back when a descriptor with COMPLETED completes. */
	if (r->d.ctrl & XDMA_DESC_COMPLETED) {
		write_wb(c, false);
		event(c, XDMA_ST_COMPLETED);
	}
	if (r->stop && (c->pm_ctrl & XDMA_PMON_AUTO)) {
		c->pm_done = true;
		pm_update(c);
	}
	if (r->stop) {
		if (m->cfg.busy_us) {
			/*
			 * The count, STOPPED and the interrupt are out, BUSY is
			 * not: chan_main() drops it after busy_us (tail_end()).
			 */
			event(c, XDMA_ST_STOPPED);
			c->tail_ns = fdma_mnow_ns() + m->cfg.busy_us * 1000ull;
			return false;
		}
		c->busy = false;
		c->status &= ~XDMA_ST_BUSY;
		event(c, XDMA_ST_STOPPED);
		return false;
	}
	if (!(c->ctrl & XDMA_CTRL_RUN)) {
		c->busy = false;
		c->status &= ~XDMA_ST_BUSY;
		event(c, XDMA_ST_IDLE);
		return false;
	}
	c->cur = addr64(r->d.next_lo, r->d.next_hi);
	return true;
}

/*
 * Run one descriptor of the chain (lock held on entry and exit, dropped
 * while data moves). Returns false when the chain stopped.
 */
static bool run_one(struct xch *c)
{
	struct xrun r = { .at = c->cur, .gen = c->gen, .f = fault_due(c), .pn = paced(c->m) };
	int go;

	if (r.f == FDMA_FAULT_STUCK || r.f == FDMA_FAULT_NOACK) {
		c->stuck = true;
		c->rogue = r.f == FDMA_FAULT_NOACK;
		return false;
	}
	if (r.f == FDMA_FAULT_IRQ)
		c->lose_irq = true;
	if (!desc_fetch(c, &r))
		return false;
	if (c->wire)
		wire_new_chain(c);
	go = stream_wait(c, &r);
	if (go < 0)
		return false;
	if (!go) {
		/* RUN fell (or a new chain came) while the stream was waited for. */
		if (c->gen == r.gen && !(c->ctrl & XDMA_CTRL_RUN)) {
			c->busy = false;
			c->status &= ~XDMA_ST_BUSY;
			event(c, XDMA_ST_IDLE);
		}
		return false;
	}
	pthread_mutex_unlock(&c->m->lock);
	msi_flush(c->m);
	data_move(c, &r);
	pthread_mutex_lock(&c->m->lock);
	return desc_complete(c, &r);
}

/*
 * The end of the time a channel reads BUSY after its chain (cfg.busy_us):
 * idle now, and IDLE_STOPPED if RUN fell meanwhile, as when RUN falls on
 * an idle engine.
 */
static void tail_end(struct xch *c)
{
	c->tail_ns = 0;
	c->busy = false;
	c->status &= ~XDMA_ST_BUSY;
	if (!(c->ctrl & XDMA_CTRL_RUN))
		event(c, XDMA_ST_IDLE);
}

static void *chan_main(void *arg)
{
	struct xch *c = arg;
	struct xdma_model *m = c->m;
	u64 idle_since = fdma_mnow_ns(), now, poll_ns = fdma_mpoll_ns(&m->cfg, POLL_US);

	pthread_mutex_lock(&m->lock);
	while (!atomic_load(&m->quit)) {
		u64 deadline = 0;

		if (c->busy && !c->stuck && !c->tail_ns) {
			/* The chain's first descriptor is fetched first (fdma_link_fetch_ns()). */
			if (c->was_empty)
				c->avail_ns = fdma_mnow_ns() + fdma_link_fetch_ns(&m->cfg.link);
			while (!atomic_load(&m->quit) && c->busy && !c->stuck && run_one(c))
				;
			idle_since = fdma_mnow_ns();
			continue;
		}
		now = fdma_mnow_ns();
		if (c->tail_ns && now >= c->tail_ns) {
			tail_end(c);
			continue;
		}
		idle_source(c, now, &deadline);
		if (c->tail_ns && (!deadline || c->tail_ns < deadline))
			deadline = c->tail_ns;
		if (msi_flush_unlocked(m))
			continue;
		/*
		 * An engine sees its run bit at once; a thread asleep on the
		 * condition needs a wake-up, which from another CPU costs what
		 * an interrupt does. So watch for a wake() for poll_us first,
		 * yielding as the FDMA model's channels do, and without the
		 * lock, which the host's register accesses need. Acquire pairs
		 * with wake()'s release; the lock, taken again, orders the rest.
		 */
		if (now - idle_since < poll_ns && (!deadline || deadline > now)) {
			unsigned int w = atomic_load_explicit(&c->wakes, memory_order_relaxed);

			pthread_mutex_unlock(&m->lock);
			while (atomic_load_explicit(&c->wakes, memory_order_acquire) == w &&
			       !atomic_load(&m->quit) && (now = fdma_mnow_ns()) - idle_since < poll_ns &&
			       (!deadline || now < deadline))
				sched_yield();
			pthread_mutex_lock(&m->lock);
			continue;
		}
		if (deadline) {
			struct timespec ts = { .tv_sec = (time_t)(deadline / 1000000000ull),
					       .tv_nsec = (long)(deadline % 1000000000ull) };

			pthread_cond_timedwait(&c->cond, &m->lock, &ts);
		} else {
			pthread_cond_wait(&c->cond, &m->lock);
		}
	}
	pthread_mutex_unlock(&m->lock);
	return NULL;
}

/* ---- registers ------------------------------------------------------------ */

static u32 chan_read(struct xch *c, u32 reg)
{
	u32 v;

	switch (reg) {
	case XDMA_ID:
		return XDMA_ID_MAKE(c->c2h ? XDMA_TARGET_C2H : XDMA_TARGET_H2C, c->stream, c->n, VERSION);
	case XDMA_CH_CTRL:
	case XDMA_CH_CTRL_W1S:
	case XDMA_CH_CTRL_W1C:
		return c->ctrl;
	case XDMA_CH_STATUS:
		return c->status;
	case XDMA_CH_STATUS_RC:
		v = c->status;
		c->status &= XDMA_ST_BUSY;
		irq_eval(c);
		return v;
	case XDMA_CH_COMPLETED:
		return c->completed;
	case XDMA_CH_ALIGN: {
		u32 a = 1u << c->m->cfg.align_log2, l = a;

		/*
		 * AXI-MM: the design's alignment, 1 on the IP (a card with 64-bit
		 * addressing reads 0x00010140). AXI-ST: what PG195 gives it, with
		 * C2H's 64-byte descriptors as its length granularity.
		 */
		if (c->stream && c->m->cfg.stream_bytes) {
			a = 1;
			l = c->c2h ? 64 : 1;
		}
		return a << 16 | l << 8 | 64;
	}
	case XDMA_CH_WB_LO:
		return c->wb_lo;
	case XDMA_CH_WB_HI:
		return c->wb_hi;
	case XDMA_CH_IE:
	case XDMA_CH_IE_W1S:
	case XDMA_CH_IE_W1C:
		return c->ie;
	case XDMA_CH_PMON_CTRL:
		return c->pm_ctrl;
	case XDMA_CH_PMON_CYC_LO:
	case XDMA_CH_PMON_CYC_HI:
		return pm_word(pm_cycles(c), reg == XDMA_CH_PMON_CYC_HI);
	case XDMA_CH_PMON_DAT_LO:
	case XDMA_CH_PMON_DAT_HI:
		return pm_word(c->pm_beats, reg == XDMA_CH_PMON_DAT_HI);
	default:
		return 0;
	}
}

/* A register with its W1S and W1C aliases at base, base + 4, base + 8: reg written. */
static void rw1sc(u32 *r, u32 reg, u32 base, u32 val, u32 mask)
{
	if (reg == base)
		*r = val & mask;
	else if (reg == base + 4)
		*r |= val & mask;
	else if (reg == base + 8)
		*r &= ~val;
}

static void chan_write(struct xch *c, u32 reg, u32 val)
{
	switch (reg) {
	case XDMA_CH_CTRL:
		ctrl_write(c, val);
		break;
	case XDMA_CH_CTRL_W1S:
		ctrl_write(c, c->ctrl | val);
		break;
	case XDMA_CH_CTRL_W1C:
		ctrl_write(c, c->ctrl & ~val);
		break;
	case XDMA_CH_STATUS:
		c->status &= ~(val & ~XDMA_ST_BUSY);
		irq_eval(c);
		break;
	case XDMA_CH_WB_LO:
		c->wb_lo = val;
		break;
	case XDMA_CH_WB_HI:
		c->wb_hi = val;
		break;
	case XDMA_CH_IE:
	case XDMA_CH_IE_W1S:
	case XDMA_CH_IE_W1C:
		rw1sc(&c->ie, reg, XDMA_CH_IE, val, ~0u);
		irq_eval(c);
		break;
	case XDMA_CH_PMON_CTRL:
		c->pm_ctrl = val & (XDMA_PMON_AUTO | XDMA_PMON_RUN);
		if (val & XDMA_PMON_CLEAR)
			pm_clear(c);
		pm_update(c);
		break;
	default:
		break;
	}
}

static u32 sg_read(struct xch *c, u32 reg)
{
	switch (reg) {
	case XDMA_ID:
		return XDMA_ID_MAKE(c->c2h ? 5 : 4, c->stream, c->n, VERSION);
	case XDMA_SG_DESC_LO:
		return c->sg_lo;
	case XDMA_SG_DESC_HI:
		return c->sg_hi;
	case XDMA_SG_DESC_ADJ:
		return c->sg_adj;
	case XDMA_SG_CREDITS:
		return c->credits;
	default:
		return 0;
	}
}

static void sg_write(struct xch *c, u32 reg, u32 val)
{
	switch (reg) {
	case XDMA_SG_DESC_LO:
		c->sg_lo = val;
		break;
	case XDMA_SG_DESC_HI:
		c->sg_hi = val;
		break;
	case XDMA_SG_DESC_ADJ:
		c->sg_adj = val & XDMA_DESC_ADJ_MAX;
		break;
	case XDMA_SG_CREDITS:
		c->credits = val;
		break;
	default:
		break;
	}
}

static u32 req_bits(struct xdma_model *m)
{
	u32 v = 0;

	for (u32 i = 0; i < NCH; i++)
		if (m->ch[i].present && m->ch[i].line)
			v |= m->ch[i].bit;
	return v;
}

static u32 irq_read(struct xdma_model *m, u32 reg)
{
	switch (reg) {
	case XDMA_ID:
		return XDMA_ID_MAKE(XDMA_TARGET_IRQ, 0, 0, VERSION);
	case XDMA_IRQ_USER_EN:
	case XDMA_IRQ_USER_EN_W1S:
	case XDMA_IRQ_USER_EN_W1C:
		return m->user_en;
	case XDMA_IRQ_CHAN_EN:
	case XDMA_IRQ_CHAN_EN_W1S:
	case XDMA_IRQ_CHAN_EN_W1C:
		return m->chan_en;
	case XDMA_IRQ_USER_REQ:
		return m->user_req;
	case XDMA_IRQ_CHAN_REQ:
		return req_bits(m);
	case XDMA_IRQ_USER_PEND:
		return m->user_req & m->user_en;
	case XDMA_IRQ_CHAN_PEND:
		return req_bits(m) & m->chan_en;
	default:
		if (reg >= 0x80 && reg < 0x90)
			return m->user_vec[(reg - 0x80) / 4];
		if (reg >= 0xa0 && reg < 0xa8)
			return m->chan_vec[(reg - 0xa0) / 4];
		return 0;
	}
}

static void irq_write(struct xdma_model *m, u32 reg, u32 val)
{
	u32 was = m->chan_en;

	rw1sc(&m->user_en, reg, XDMA_IRQ_USER_EN, val, ~0u);
	rw1sc(&m->chan_en, reg, XDMA_IRQ_CHAN_EN, val, ~0u);
	if (reg >= 0x80 && reg < 0x90)
		m->user_vec[(reg - 0x80) / 4] = val & 0x1f1f1f1f;
	if (reg >= 0xa0 && reg < 0xa8)
		m->chan_vec[(reg - 0xa0) / 4] = val & 0x1f1f1f1f;
	irq_enable(m, was);
}

/* The SGDMA common block: descriptor control and credit mode, both with W1S/W1C. */
static u32 sgc_read(struct xdma_model *m, u32 reg)
{
	switch (reg) {
	case XDMA_ID:
		return XDMA_ID_MAKE(XDMA_TARGET_SGC, 0, 0, VERSION);
	case XDMA_SGC_DESC_CTRL:
	case XDMA_SGC_DESC_CTRL_W1S:
	case XDMA_SGC_DESC_CTRL_W1C:
		return m->sgc_ctrl;
	case XDMA_SGC_CREDIT_EN:
	case XDMA_SGC_CREDIT_EN_W1S:
	case XDMA_SGC_CREDIT_EN_W1C:
		return m->sgc_credit;
	default:
		return 0;
	}
}

static void sgc_write(struct xdma_model *m, u32 reg, u32 val)
{
	u32 chans = 0;

	for (u32 n = 0; n < XDMA_MAX_CHAN; n++)
		if (chan_at(m, false, n))
			chans |= (1u << n) | (1u << (16 + n));
	rw1sc(&m->sgc_ctrl, reg, XDMA_SGC_DESC_CTRL, val, ~0u);
	rw1sc(&m->sgc_credit, reg, XDMA_SGC_CREDIT_EN, val, chans);
}

/* MSI-X table words and the pending bits (none: a message is never held back here). */
static u32 msix_read(struct xdma_model *m, u32 off)
{
	if (off < XDMA_MSIX_VECTORS * 16)
		return m->msix[off / 16][(off % 16) / 4];
	return 0;
}

static void msix_write(struct xdma_model *m, u32 off, u32 val)
{
	if (off >= XDMA_MSIX_VECTORS * 16)
		return;
	m->msix[off / 16][(off % 16) / 4] = val;
}

static u32 log2u(u32 v)
{
	u32 l = 0;

	while (v > 1) {
		v >>= 1;
		l++;
	}
	return l;
}

/* An AXI user size register: the effective size [6:4] is the programmed one [2:0] within the link's. */
static u32 cfg_user_size(u32 prg, u32 link_bytes)
{
	u32 link = log2u(link_bytes) - 7;

	return (prg < link ? prg : link) << 4 | prg;
}

/*
 * The config block: the link's sizes, the system ID, the interrupt mode
 * (MSI-X unless INTx), a 64-bit datapath; the writable registers are kept
 * and not applied (relaxed ordering, the AXI side's sizes, the AXI-ST
 * write flush timeout). BusDev reads 0: the model has no bus number.
 */
static u32 cfg_read(struct xdma_model *m, u32 reg)
{
	switch (reg) {
	case XDMA_ID:
		return XDMA_ID_MAKE(XDMA_TARGET_CFG, 0, 0, VERSION);
	case XDMA_CFG_MPS:
		return log2u(m->cfg.link.mps) - 7;
	case XDMA_CFG_MRRS:
		return log2u(m->cfg.link.mrrs) - 7;
	case XDMA_CFG_SYSTEM_ID:
		return 0xff01;
	case XDMA_CFG_MSI_EN:
		return m->intx ? 0 : 2;
	case XDMA_CFG_PCIE_CTRL:
		return m->cfg_pcie_ctrl;
	case XDMA_CFG_USER_MPS:
		return cfg_user_size(m->cfg_user_mps, m->cfg.link.mps);
	case XDMA_CFG_USER_MRRS:
		return cfg_user_size(m->cfg_user_mrrs, m->cfg.link.mrrs);
	case XDMA_CFG_WR_FLUSH:
		return m->cfg_wr_flush;
	default:
		return 0;	/* DATA_WIDTH 0: 64 bits */
	}
}

static void cfg_write(struct xdma_model *m, u32 reg, u32 val)
{
	switch (reg) {
	case XDMA_CFG_PCIE_CTRL:
		m->cfg_pcie_ctrl = val & 1;
		break;
	case XDMA_CFG_USER_MPS:
		m->cfg_user_mps = val & 7;
		break;
	case XDMA_CFG_USER_MRRS:
		m->cfg_user_mrrs = val & 7;
		break;
	case XDMA_CFG_WR_FLUSH:
		m->cfg_wr_flush = val & 0x1f;
		break;
	default:
		break;
	}
}

static u32 bar0_read(struct xdma_model *m, u32 off)
{
	u32 blk = off & 0xf000, n = (off >> 8) & 0xf, reg = off & 0xff;
	struct xch *c;

	switch (blk) {
	case XDMA_BLK_H2C:
	case XDMA_BLK_C2H:
		c = chan_at(m, blk == XDMA_BLK_C2H, n);
		return c ? chan_read(c, reg) : 0;
	case XDMA_BLK_H2C_SGDMA:
	case XDMA_BLK_C2H_SGDMA:
		c = chan_at(m, blk == XDMA_BLK_C2H_SGDMA, n);
		return c ? sg_read(c, reg) : 0;
	case XDMA_BLK_IRQ:
		return n ? 0 : irq_read(m, reg);
	case XDMA_BLK_CFG:
		if (n)
			return 0;
		return cfg_read(m, reg);
	case XDMA_BLK_SGDMA_COMMON:
		return n ? 0 : sgc_read(m, reg);
	case XDMA_BLK_MSIX:
		return msix_read(m, off & 0xfff);
	default:
		return 0;
	}
}

static void bar0_write(struct xdma_model *m, u32 off, u32 val)
{
	u32 blk = off & 0xf000, n = (off >> 8) & 0xf, reg = off & 0xff;
	struct xch *c;

	switch (blk) {
	case XDMA_BLK_H2C:
	case XDMA_BLK_C2H:
		c = chan_at(m, blk == XDMA_BLK_C2H, n);
		if (c)
			chan_write(c, reg, val);
		break;
	case XDMA_BLK_H2C_SGDMA:
	case XDMA_BLK_C2H_SGDMA:
		c = chan_at(m, blk == XDMA_BLK_C2H_SGDMA, n);
		if (c)
			sg_write(c, reg, val);
		break;
	case XDMA_BLK_IRQ:
		if (!n)
			irq_write(m, reg, val);
		break;
	case XDMA_BLK_CFG:
		if (!n)
			cfg_write(m, reg, val);
		break;
	case XDMA_BLK_SGDMA_COMMON:
		if (!n)
			sgc_write(m, reg, val);
		break;
	case XDMA_BLK_MSIX:
		msix_write(m, off & 0xfff, val);
		break;
	default:
		break;
	}
}

/* The stream channel a test-block offset names, and the register in it. */
static struct xch *tg_chan(struct xdma_model *m, u32 off, u32 *reg)
{
	if (m->cfg.loop || off < 0x100 || off >= 0x900)
		return NULL;
	*reg = off & 0xff;
	{
		bool c2h = off >= 0x500;
		struct xch *c = chan_at(m, c2h, ((off - 0x100) >> 8) & 3);

		return c && c->stream ? c : NULL;
	}
}

static u32 bar1_read(struct xdma_model *m, u32 off)
{
	struct xch *c;
	u32 reg;

	/* With loop the design behind the streams is the wire: no test block. */
	if (off == XDMA_TG_MAGIC)
		return m->cfg.loop ? 0 : XDMA_TG_MAGIC_VAL;
	if (off == XDMA_TG_SCRATCH)
		return m->scratch;
	if (off >= 0xf00 && off < 0x1000) {
		if (off == FDMA_MDBG_MAGIC)
			return FDMA_MDBG_MAGIC_VAL;
		return m->mdbg[(off - 0xf00) / 4];
	}
	c = tg_chan(m, off, &reg);
	if (!c)
		return 0;
	switch (reg) {
	case XDMA_TG_FRAME_LEN:
		return c->tg_len;
	case XDMA_TG_PERIOD_NS:
		return c->tg_period;
	case XDMA_TG_CTRL:
		return c->tg_ctrl;
	case XDMA_TG_FRAMES:
		return c->tg_frames;
	case XDMA_TG_ERRORS:
		return c->tg_errors;
	case XDMA_TG_OVERRUNS:
		return c->tg_overruns;
	default:
		return 0;
	}
}

static void mdbg_write(struct xdma_model *m, u32 off, u32 val)
{
	m->mdbg[(off - 0xf00) / 4] = val;
	if (off == FDMA_MDBG_FAULT_REQ) {
		u32 kind = m->mdbg[(FDMA_MDBG_FAULT_KIND - 0xf00) / 4];
		u32 ch = m->mdbg[(FDMA_MDBG_FAULT_CHAN - 0xf00) / 4];
		u32 at = m->mdbg[(FDMA_MDBG_FAULT_AT - 0xf00) / 4];
		u32 k = 0;

		/* The channel in fdma's numbering: pairs, H2C n then C2H n. */
		for (u32 i = 0; i < NCH; i++) {
			struct xch *c = &m->ch[(i & 1) * XDMA_MAX_CHAN + i / 2];

			if (!c->present)
				continue;
			if (k++ == ch && kind < FDMA_FAULT_KINDS) {
				c->arm_kind = kind;
				c->arm_left = at ? at : 1;
			}
		}
		m->mdbg[(FDMA_MDBG_FAULT_ACK - 0xf00) / 4] = val;
	}
}

static void bar1_write(struct xdma_model *m, u32 off, u32 val)
{
	struct xch *c;
	u32 reg;

	if (off == XDMA_TG_SCRATCH) {
		m->scratch = val;
		return;
	}
	if (off == XDMA_TG_USER_IRQ) {
		m->user_req |= val & 0xffff;
		user_irq(m, val & 0xffff);
		m->user_req &= ~val;	/* a pulse: the design drops the request once sent */
		return;
	}
	if (off >= 0xf00 && off < 0x1000) {
		mdbg_write(m, off, val);
		return;
	}
	c = tg_chan(m, off, &reg);
	if (!c)
		return;
	switch (reg) {
	case XDMA_TG_FRAME_LEN:
		c->tg_len = val;
		break;
	case XDMA_TG_PERIOD_NS:
		c->tg_period = val;
		break;
	case XDMA_TG_CTRL:
		if (((val & XDMA_TG_CTRL_EN) && !(c->tg_ctrl & XDMA_TG_CTRL_EN)) ||
		    (val & XDMA_TG_CTRL_RESTART)) {
			/* Enabling starts a fresh schedule and count, as the FDMA engine's does. */
			c->next_frame_ns = 0;
			c->tg_frames = 0;
			c->tg_errors = 0;
			c->gen_st.in_frame = false;
			c->gen_st.seq = 0;
			memset(&c->chk, 0, sizeof(c->chk));
			c->eop_prev = true;
		}
		c->tg_ctrl = val & ~XDMA_TG_CTRL_RESTART;
		wake(c);
		break;
	default:
		break;
	}
}

uint32_t xdma_model_read(struct xdma_model *m, unsigned int bar, uint32_t off)
{
	u32 v = 0;

	if (off & 3)
		return 0;
	pthread_mutex_lock(&m->lock);
	if (bar == 0 && off < XDMA_MODEL_BAR0_BYTES)
		v = bar0_read(m, off);
	else if (bar == 1 && off < XDMA_MODEL_BAR1_BYTES)
		v = bar1_read(m, off);
	pthread_mutex_unlock(&m->lock);
	msi_flush(m);
	return v;
}

void xdma_model_write(struct xdma_model *m, unsigned int bar, uint32_t off, uint32_t val)
{
	if (off & 3)
		return;
	pthread_mutex_lock(&m->lock);
	if (bar == 0 && off < XDMA_MODEL_BAR0_BYTES)
		bar0_write(m, off, val);
	else if (bar == 1 && off < XDMA_MODEL_BAR1_BYTES)
		bar1_write(m, off, val);
	pthread_mutex_unlock(&m->lock);
	msi_flush(m);
}

/* ---- construction ------------------------------------------------------------ */

int xdma_model_create(const struct fdma_model_cfg *cfg, const struct fdma_model_host *host,
		      struct xdma_model **mp)
{
	unsigned int per_dir = cfg->mm_pairs + cfg->streams, bit = 0;
	struct xdma_model *m;
	pthread_condattr_t ca;
	int ret = 0;

	*mp = NULL;
	if (!per_dir || per_dir > XDMA_MAX_CHAN || cfg->memcpy_chans || cfg->align_log2 > 12)
		return -EINVAL;
	m = aligned_alloc(64, (sizeof(*m) + 63) & ~(size_t)63);
	if (!m)
		return -ENOMEM;
	memset(m, 0, sizeof(*m));
	m->cfg = *cfg;
	m->host = *host;
	m->pm_hz = fdma_link_clock_hz(&cfg->link);
	if (cfg->card_size) {
		m->card = mmap(NULL, cfg->card_size, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (m->card == MAP_FAILED) {
			free(m);
			return -ENOMEM;
		}
	}
	pthread_mutex_init(&m->lock, NULL);
	pthread_mutex_init(&m->intx_lock, NULL);
	for (int i = 0; i < 2; i++)
		pthread_mutex_init(&m->clk[i].lock, NULL);
	/* Engine order: H2C channels first, then C2H. */
	for (unsigned int dir = 0; dir < 2; dir++) {
		for (unsigned int n = 0; n < per_dir; n++) {
			struct xch *c = &m->ch[dir * XDMA_MAX_CHAN + n];

			c->m = m;
			c->present = true;
			c->c2h = dir;
			c->n = n;
			c->stream = n >= cfg->mm_pairs;
			c->bit = 1u << bit++;
			c->eop_prev = true;
			pthread_condattr_init(&ca);
			pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
			pthread_cond_init(&c->cond, &ca);
			pthread_condattr_destroy(&ca);
		}
	}
	/* Stream pair k's H2C frames arrive on pair k ^ 1's C2H channel (k's own where k ^ 1 has none). */
	for (unsigned int i = 0; cfg->loop && i < cfg->streams && !ret; i++) {
		unsigned int to = (i ^ 1) < cfg->streams ? i ^ 1 : i;
		struct xch *tx = &m->ch[cfg->mm_pairs + i];
		struct xch *rx = &m->ch[XDMA_MAX_CHAN + cfg->mm_pairs + to];

		ret = fdma_wire_init(&m->wires[i], 4u << 20, 1024, cfg->wire_mbps);
		tx->wire = rx->wire = &m->wires[i];
		tx->peer = rx;
		rx->peer = tx;
	}
	m->mdbg[(FDMA_MDBG_MAGIC - 0xf00) / 4] = FDMA_MDBG_MAGIC_VAL;
	/* Every vector masked at reset (PG195: vector control 0xffffffff). */
	for (unsigned int v = 0; v < XDMA_MSIX_VECTORS; v++)
		m->msix[v][3] = ~0u;
	m->cfg_pcie_ctrl = 1;
	m->cfg_user_mps = 5;
	m->cfg_user_mrrs = 5;
	for (unsigned int i = 0; i < NCH && !ret; i++) {
		struct xch *c = &m->ch[i];

		if (!c->present)
			continue;
		ret = fdma_mthread_start(&c->thread, &cfg->cpus, chan_main, c);
		if (ret)
			break;
		c->started = true;
		if (pthread_getcpuclockid(c->thread, &c->cpuclock))
			c->cpuclock = (clockid_t)-1;
	}
	if (ret) {
		xdma_model_destroy(m);
		return ret;
	}
	*mp = m;
	return 0;
}

void xdma_model_destroy(struct xdma_model *m)
{
	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	atomic_store(&m->quit, true);
	for (unsigned int i = 0; i < NCH; i++)
		if (m->ch[i].present)
			pthread_cond_signal(&m->ch[i].cond);
	pthread_mutex_unlock(&m->lock);
	for (unsigned int i = 0; i < NCH; i++) {
		struct xch *c = &m->ch[i];

		if (c->started)
			pthread_join(c->thread, NULL);
		if (c->present) {
			pthread_cond_destroy(&c->cond);
			fdma_tgen_free(&c->gen_st);
		}
	}
	for (unsigned int i = 0; i < XDMA_MAX_CHAN; i++)
		fdma_wire_free(&m->wires[i]);
	for (int i = 0; i < 2; i++)
		pthread_mutex_destroy(&m->clk[i].lock);
	pthread_mutex_destroy(&m->intx_lock);
	pthread_mutex_destroy(&m->lock);
	if (m->card)
		munmap(m->card, m->cfg.card_size);
	free(m);
}

void xdma_model_set_intx(struct xdma_model *m, bool intx)
{
	pthread_mutex_lock(&m->lock);
	m->intx = intx;
	intx_eval(m);
	pthread_mutex_unlock(&m->lock);
	msi_flush(m);
}

void xdma_model_counts(struct xdma_model *m, struct fdma_model_counts *out)
{
	pthread_mutex_lock(&m->lock);
	out->faults = m->faults;
	out->refused = 0;
	out->rogue_writes = 0;
	pthread_mutex_unlock(&m->lock);
}

double xdma_model_cpu_seconds(struct xdma_model *m)
{
	double s = 0;

	for (unsigned int i = 0; i < NCH; i++) {
		struct timespec ts;

		if (m->ch[i].started && m->ch[i].cpuclock != (clockid_t)-1 &&
		    !clock_gettime(m->ch[i].cpuclock, &ts))
			s += ts.tv_sec + ts.tv_nsec * 1e-9;
	}
	return s;
}
